"""The module's answers equal the `impact query` tool's, bit for bit (both precisions).

The tool writes every double in the shortest form that reads back exactly (docs/protocol.md, "The
stream"; checked below on numbers that need 17 digits), and a float answer as that float widened to
double, so equality of the parsed numbers is equality of the bits. Both sides get the same inputs:
the rotation the tool's parser makes (each component over the norm, tool_rotation) and, for the
casts, an explicit tolerance above the floor the tool applies (protocol.cpp, cast_tolerance).
"""
import math

import numpy as np
import pytest

import impact
from conftest import motion_of, pose_of, random_pose, random_shape, same, shape_of

TOL = 1e-3  # explicit cast tolerance: above the tool's floor for these scenes (asserted)
EPS = {"double": 2.0 ** -52, "float": 2.0 ** -23}
CAST_TOL = {"double": 1e-6, "float": 1e-4}


def tool_floor(req, precision, pa, pb, va, vb):
    size = max(shape_of(req["a"]).bounding_radius(), shape_of(req["b"]).bounding_radius(),
               float(np.linalg.norm(va)), float(np.linalg.norm(vb)), req.get("target_distance", 0.0))
    reach = max(float(np.linalg.norm(pa)), float(np.linalg.norm(pb))) + size
    return max(CAST_TOL[precision] * 1e-2 * size, 64 * EPS[precision] * reach)


def test_tool_prints_round_trip_digits(cli):
    # 0.1 + 0.2 and 1/3 need 17 significant digits; a distance of exactly them must come back exactly.
    for x in (0.1 + 0.2, 1.0 / 3.0, 2.0 ** -40 + 1.0):
        ans = cli([{"query": "distance", "a": {"type": "point"}, "b": {"type": "point"},
                    "pose_b": {"position": [x, 0, 0]}}])[0]
        assert ans["distance"] == x
        assert impact.distance(impact.Point(), impact.Point(), None, impact.Pose((x, 0, 0))).distance == x


def distance_cases(rng, n):
    return [{"query": "distance", "a": random_shape(rng), "b": random_shape(rng),
             "pose_a": random_pose(rng, 1.0), "pose_b": random_pose(rng, 1.3)} for _ in range(n)]


@pytest.mark.parametrize("precision", ["double", "float"])
def test_distance_equals_tool(cli, precision):
    rng = np.random.default_rng(1901)
    reqs = distance_cases(rng, 300)
    for r in reqs:
        r["precision"] = precision
    answers = cli(reqs)
    intersecting = 0
    for req, ans in zip(reqs, answers):
        r = impact.distance(shape_of(req["a"]), shape_of(req["b"]), pose_of(req["pose_a"]), pose_of(req["pose_b"]),
                            precision=precision)
        sep = r.status == impact.Status.separated or (r.status == impact.Status.max_iterations and r.distance > 0)
        assert ans["status"] == ("separated" if sep else "intersecting"), (req, ans, r)
        intersecting += not sep
        assert same(ans["distance"], r.distance), (req, ans, r)
        for k in ("point_a", "point_b", "normal"):
            assert same(ans[k], getattr(r, k)), (k, req, ans, r)
        assert ans["iterations"] == r.iterations
    assert 0.2 < intersecting / len(reqs) < 0.8  # both outcomes well represented


@pytest.mark.parametrize("precision", ["double", "float"])
def test_ray_cast_equals_tool(cli, precision):
    rng = np.random.default_rng(1902)
    reqs = []
    for _ in range(300):
        pose = random_pose(rng, 1.0)
        origin = rng.uniform(-4, 4, 3)
        target = np.array(pose["position"]) + rng.uniform(-0.8, 0.8, 3)
        reqs.append({"query": "ray_cast", "precision": precision, "shape": random_shape(rng), "pose": pose,
                     "origin": origin.tolist(), "direction": ((target - origin) * 1.5).tolist()})
    answers = cli(reqs)
    hits = 0
    for req, ans in zip(reqs, answers):
        r = impact.ray_cast(shape_of(req["shape"]), req["origin"], req["direction"], pose_of(req["pose"]),
                            precision=precision)
        hit = r.status in (impact.Status.hit, impact.Status.max_iterations)
        hits += hit
        assert ans["status"] == ("hit" if hit else r.status.name), (req, ans, r)
        assert same(ans["lambda"], r.lambda_)
        if hit or r.status == impact.Status.initially_overlapping:
            assert same(ans["point"], r.point)
        if hit:
            assert same(ans["normal"], r.normal)
        assert ans["iterations"] == r.iterations
    assert 0.3 < hits / len(reqs) < 0.7


def cast_fields_equal(ans, r):
    assert ans["status"] == r.status.name, (ans, r)
    assert same(ans["toi"], r.toi), (ans, r)
    if r.status == impact.Status.hit:
        for k in ("point_a", "point_b", "normal"):
            assert same(ans[k], getattr(r, k)), (k, ans, r)
    assert ans["iterations"] == r.iterations


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("method", ["gjk_raycast", "conservative_advancement", "mpr"])
def test_shape_cast_equals_tool(cli, precision, method):
    rng = np.random.default_rng(1903)
    reqs = []
    for _ in range(120):
        pa, pb = random_pose(rng, 1.0), random_pose(rng, 3.0)
        va = (np.array(pb["position"]) - np.array(pa["position"]) + rng.uniform(-2.5, 2.5, 3)) * 1.2
        reqs.append({"query": "shape_cast", "precision": precision, "method": method, "tolerance": TOL,
                     "a": random_shape(rng), "pose_a": pa, "velocity_a": va.tolist(),
                     "b": random_shape(rng), "pose_b": pb, "velocity_b": [0.0, 0.0, 0.0]})
    answers = cli(reqs)
    hits = 0
    for req, ans in zip(reqs, answers):
        assert tool_floor(req, precision, req["pose_a"]["position"], req["pose_b"]["position"],
                          req["velocity_a"], req["velocity_b"]) < TOL
        r = impact.shape_cast(shape_of(req["a"]), shape_of(req["b"]), pose_of(req["pose_a"]), req["velocity_a"],
                              pose_of(req["pose_b"]), req["velocity_b"], method=method, tolerance=TOL,
                              precision=precision)
        hits += r.status == impact.Status.hit
        cast_fields_equal(ans, r)
    assert 0.25 < hits / len(reqs) < 0.75


@pytest.mark.parametrize("precision", ["double", "float"])
@pytest.mark.parametrize("method", ["extrusion_brent", "conservative_advancement"])
def test_time_of_impact_equals_tool(cli, precision, method):
    rng = np.random.default_rng(1904)
    reqs = []
    for _ in range(60):
        pa, pb = random_pose(rng, 1.0), random_pose(rng, 3.0)
        la = (np.array(pb["position"]) - np.array(pa["position"]) + rng.uniform(-2.5, 2.5, 3)) * 1.2
        ma = {"pose": pa, "linear_velocity": la.tolist(), "angular_velocity": rng.uniform(-6, 6, 3).tolist()}
        mb = {"pose": pb, "linear_velocity": [0.0, 0.0, 0.0], "angular_velocity": rng.uniform(-3, 3, 3).tolist()}
        reqs.append({"query": "time_of_impact", "precision": precision, "method": method, "tolerance": TOL,
                     "a": random_shape(rng), "motion_a": ma, "b": random_shape(rng), "motion_b": mb})
    answers = cli(reqs)
    hits = 0
    for req, ans in zip(reqs, answers):
        ma, mb = req["motion_a"], req["motion_b"]
        assert tool_floor(req, precision, ma["pose"]["position"], mb["pose"]["position"], ma["linear_velocity"],
                          mb["linear_velocity"]) < TOL
        r = impact.time_of_impact(shape_of(req["a"]), shape_of(req["b"]), motion_of(ma), motion_of(mb),
                                  method=method, tolerance=TOL, precision=precision)
        hits += r.status == impact.Status.hit
        cast_fields_equal(ans, r)
    assert 0.25 < hits / len(reqs) < 0.75
