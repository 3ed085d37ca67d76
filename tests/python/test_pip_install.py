"""`pip install` from the checkout into a fresh virtual environment, without downloading anything:
python/setup.py packages the module this suite imports (IMPACT_BUILD_DIR = its build tree, so
nothing is compiled again), and the environment's Python imports it and answers a closed form."""
import os
import pathlib
import subprocess
import sys

import impact

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_pip_installs_into_a_venv(tmp_path):
    venv = tmp_path / "venv"
    # Debian's numpy, setuptools and wheel come from the system site: --no-index fetches nothing.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    build_dir = pathlib.Path(impact.__file__).resolve().parent.parent
    env = dict(os.environ, IMPACT_BUILD_DIR=str(build_dir))
    env.pop("PYTHONPATH", None)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", "--no-cache-dir",
                          str(ROOT / "python")], env=env, capture_output=True, text=True, timeout=300)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    code = ("import impact; r = impact.distance(impact.Sphere(1), impact.Box((1, 1, 1)), pose_b=impact.Pose((4, 0, 0)));"
            " print(r.distance, impact.__file__)")
    run = subprocess.run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    distance, where = run.stdout.split()
    assert float(distance) == 2.0
    assert str(venv) in where  # the installed copy, not the build tree's
