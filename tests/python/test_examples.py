"""Each example of examples/python runs (as a subprocess, in a scratch directory) and says what it did."""
import os
import pathlib
import subprocess
import sys

import pytest

import impact

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.parametrize("name, expect", [("lidar.py", "16200 rays"), ("distance_field.py", "1525 distances"),
                                          ("rotating_toi.py", "speeds hit")])
def test_example_runs(tmp_path, name, expect):
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(impact.__file__).parent), MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert expect in run.stdout
