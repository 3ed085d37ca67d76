"""Shared helpers of the pytest suite of the Python module `impact` (tests/python).

- `impact` is imported from PYTHONPATH (ctest sets it to the module's build directory); run by
  hand, build/release/python is tried.
- `cli` runs JSON Lines requests through the `impact query` tool (IMPACT_CLI, else
  build/release/apps/impact/impact): the tool prints every double in the shortest form that reads
  back exactly, so its answers can be compared with the module's bit for bit.
- `shape_of` turns a protocol shape (a dict) into a module shape, so one random description feeds
  both; `pose_of` normalises a rotation exactly as the tool's parser does (q / |q| in double).
"""
import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
try:
    import impact  # noqa: F401
except ImportError:  # run by hand without PYTHONPATH
    sys.path.insert(0, str(ROOT / "build" / "release" / "python"))
    import impact  # noqa: F401


def cli_path():
    p = os.environ.get("IMPACT_CLI") or str(ROOT / "build" / "release" / "apps" / "impact" / "impact")
    return p if os.path.exists(p) else None


@pytest.fixture(scope="session")
def cli():
    """Runs a list of request dicts through `impact query`; returns the answer dicts in order."""
    path = cli_path()
    if path is None:
        pytest.skip("the impact tool is not built (IMPACT_CLI)")

    def run(requests):
        text = "".join(json.dumps(r) + "\n" for r in requests)
        out = subprocess.run([path, "query"], input=text, capture_output=True, text=True, check=True).stdout
        answers = [json.loads(line) for line in out.splitlines()]
        assert len(answers) == len(requests)
        return answers

    return run


def shape_of(j):
    """The module shape of a protocol shape dict."""
    t = j["type"]
    if t == "point":
        return impact.Point()
    if t == "sphere":
        return impact.Sphere(j["radius"])
    if t == "box":
        return impact.Box(j["half_extents"])
    if t in ("capsule", "cylinder", "cone"):
        cls = {"capsule": impact.Capsule, "cylinder": impact.Cylinder, "cone": impact.Cone}[t]
        return cls(j["radius"], j["half_height"])
    if t == "segment":
        return impact.Segment(j["a"], j["b"])
    if t == "triangle":
        return impact.Triangle(j["a"], j["b"], j["c"])
    if t == "hull":
        return impact.Hull(j["points"])
    if t == "minkowski":
        return impact.Minkowski(shape_of(j["a"]), shape_of(j["b"]))
    raise ValueError(t)


def tool_rotation(q):
    """The rotation the tool's parser makes of [w, x, y, z]: each component over the norm."""
    n = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return [q[0] / n, q[1] / n, q[2] / n, q[3] / n]


def pose_of(j):
    """The module pose of a protocol pose dict (None: identity)."""
    if j is None:
        return impact.Pose()
    return impact.Pose(j.get("position", [0, 0, 0]), tool_rotation(j.get("rotation", [1, 0, 0, 0])))


def motion_of(j):
    return impact.Motion(pose_of(j.get("pose")), j["linear_velocity"], j["angular_velocity"])


def random_shape(rng, types=None):
    """A random protocol shape of moderate size (about 0.2 to 1.5)."""
    types = types or ["point", "sphere", "box", "capsule", "cylinder", "cone", "segment", "triangle", "hull",
                      "minkowski"]
    t = types[rng.integers(len(types))]
    size = lambda: float(rng.uniform(0.2, 1.5))  # noqa: E731
    vec = lambda s=1.0: [float(x) for x in rng.uniform(-s, s, 3)]  # noqa: E731
    if t == "point":
        return {"type": "point"}
    if t == "sphere":
        return {"type": "sphere", "radius": size()}
    if t == "box":
        return {"type": "box", "half_extents": [size(), size(), size()]}
    if t in ("capsule", "cylinder", "cone"):
        return {"type": t, "radius": size(), "half_height": size()}
    if t == "segment":
        return {"type": "segment", "a": vec(), "b": vec()}
    if t == "triangle":
        return {"type": "triangle", "a": vec(), "b": vec(), "c": vec()}
    if t == "hull":
        return {"type": "hull", "points": [vec() for _ in range(int(rng.integers(4, 12)))]}
    return {"type": "minkowski", "a": {"type": "box", "half_extents": [size(), size(), size()]},
            "b": {"type": "sphere", "radius": size() / 3}}


def random_rotation(rng):
    q = rng.normal(size=4)
    return [float(x) for x in q / math.sqrt(float(q @ q))]


def random_pose(rng, spread):
    return {"position": [float(x) for x in rng.uniform(-spread, spread, 3)], "rotation": random_rotation(rng)}


def same(a, b):
    """Exact equality of numbers or vectors (lists, tuples, numpy arrays), -0.0 == 0.0."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return len(a) == len(b) and all(float(x) == float(y) for x, y in zip(a, b))
