"""Batch calls: every row equals the single query bit for bit (float32 and float64), answers do not
depend on the thread count, shared rows work, and calls that cannot mean anything raise."""
import numpy as np
import pytest

import impact
from meshes_common import hall_level, terrain

DTYPES = [np.float64, np.float32]
PREC = {np.float64: "double", np.float32: "float"}


def unit_rows(rng, n, dtype):
    q = rng.normal(size=(n, 4))
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(dtype)


def rows_equal(out, i, single, fields):
    """Row i of a batch answer equals a single answer (status and every field named)."""
    assert out["status"][i] == int(single.status), (i, single)
    for key, attr in fields:
        want = np.asarray(getattr(single, attr), dtype=np.float64)
        got = np.asarray(out[key][i], dtype=np.float64)
        assert np.array_equal(want, got), (i, key, want, got, single)


def same_answers(a, b):
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k]), k


@pytest.mark.parametrize("dtype", DTYPES)
def test_distance_batch_equals_single(dtype):
    rng = np.random.default_rng(1910)
    n = 2000
    a, b = impact.Box((1.0, 0.5, 0.25)), impact.Hull(rng.uniform(-1, 1, (12, 3)))
    pa, ra = rng.uniform(-0.5, 0.5, (n, 3)).astype(dtype), unit_rows(rng, n, dtype)
    pb, rb = rng.uniform(-1.5, 1.5, (n, 3)).astype(dtype), unit_rows(rng, 1, dtype)  # one shared rotation
    out = impact.distance_batch(a, b, pa, ra, pb, rb, threads=2)
    assert out["distance"].dtype == dtype and out["point_a"].shape == (n, 3)
    for i in range(n):
        s = impact.distance(a, b, impact.Pose(pa[i], ra[i]), impact.Pose(pb[i], rb[0]), precision=PREC[dtype])
        rows_equal(out, i, s, [("distance", "distance"), ("point_a", "point_a"), ("point_b", "point_b"),
                               ("normal", "normal")])
    frac = np.mean(out["status"] == int(impact.Status.intersecting))
    assert 0.3 < frac < 0.7
    same_answers(out, impact.distance_batch(a, b, pa, ra, pb, rb, threads=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_ray_cast_batch_equals_single(dtype):
    rng = np.random.default_rng(1911)
    n = 3000
    shape, pose = impact.Capsule(0.5, 1.0), impact.Pose((1, 0, 0), (0.8, 0.6, 0, 0))
    origin = rng.uniform(-4, 4, (n, 3)).astype(dtype)
    target = np.array([1.0, 0, 0]) + rng.uniform(-1.2, 1.2, (n, 3))
    direction = ((target - origin) * 1.5).astype(dtype)
    out = impact.ray_cast_batch(shape, origin, direction, pose, threads=2)
    for i in range(n):
        s = impact.ray_cast(shape, origin[i], direction[i], pose, precision=PREC[dtype])
        rows_equal(out, i, s, [("lambda", "lambda_"), ("point", "point"), ("normal", "normal")])
    assert 0.3 < np.mean(out["status"] == int(impact.Status.hit)) < 0.7
    same_answers(out, impact.ray_cast_batch(shape, origin, direction, pose, threads=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_cast_batch_equals_single(dtype):
    rng = np.random.default_rng(1912)
    n = 1000
    a, b = impact.Cylinder(0.4, 0.6), impact.Minkowski(impact.Box((0.5, 0.5, 0.2)), impact.Sphere(0.1))
    pa, ra = rng.uniform(-0.5, 0.5, (n, 3)).astype(dtype), unit_rows(rng, n, dtype)
    pb, rb = rng.uniform(-3, 3, (n, 3)).astype(dtype), unit_rows(rng, n, dtype)
    va = ((pb - pa) * 1.2 + rng.uniform(-2, 2, (n, 3))).astype(dtype)
    vb = np.zeros(3, dtype=dtype)  # one shared row, (3,)
    out = impact.shape_cast_batch(a, b, pa, ra, va, pb, rb, vb, threads=2)
    for i in range(n):
        s = impact.shape_cast(a, b, impact.Pose(pa[i], ra[i]), va[i], impact.Pose(pb[i], rb[i]), vb,
                              precision=PREC[dtype])
        rows_equal(out, i, s, [("toi", "toi"), ("point_a", "point_a"), ("point_b", "point_b"), ("normal", "normal")])
    assert 0.3 < np.mean(out["status"] == int(impact.Status.hit)) < 0.7
    same_answers(out, impact.shape_cast_batch(a, b, pa, ra, va, pb, rb, vb, threads=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_time_of_impact_batch_equals_single(dtype):
    rng = np.random.default_rng(1913)
    n = 300
    a, b = impact.Box((1.0, 0.1, 0.1)), impact.Sphere(0.3)
    pa, ra = np.zeros(3, dtype=dtype), unit_rows(rng, n, dtype)
    wa = rng.uniform(-8, 8, (n, 3)).astype(dtype)
    pb = rng.uniform(-2, 2, (n, 3)).astype(dtype)
    lb = (-pb + rng.uniform(-1.5, 1.5, (n, 3))).astype(dtype)
    out = impact.time_of_impact_batch(a, b, pa, ra, None, wa, pb, None, lb, None, threads=2)
    for i in range(n):
        s = impact.time_of_impact(a, b, impact.Motion(impact.Pose(pa, ra[i]), (0, 0, 0), wa[i]),
                                  impact.Motion(impact.Pose(pb[i]), lb[i], (0, 0, 0)), precision=PREC[dtype])
        rows_equal(out, i, s, [("toi", "toi"), ("point_a", "point_a"), ("point_b", "point_b"), ("normal", "normal")])
    hit = np.isin(out["status"], [int(impact.Status.hit), int(impact.Status.initially_overlapping)])
    assert 0.3 < np.mean(hit) < 0.8
    same_answers(out, impact.time_of_impact_batch(a, b, pa, ra, None, wa, pb, None, lb, None, threads=1))


@pytest.fixture(scope="module")
def terrain_mesh():
    v, t = terrain(np.random.default_rng(1914), n=16)
    return impact.TriangleMesh(v, t, split="sah")


@pytest.mark.parametrize("dtype", DTYPES)
def test_mesh_batches_equal_single(terrain_mesh, dtype):
    rng = np.random.default_rng(1915)
    n = 3000
    origin = np.column_stack([rng.uniform(0, 10, n), rng.uniform(0, 10, n), rng.uniform(1.5, 3, n)]).astype(dtype)
    direction = np.column_stack([rng.uniform(-2, 2, n), rng.uniform(-2, 2, n), rng.uniform(-5, 0.5, n)]).astype(dtype)
    radius = rng.uniform(0.05, 0.5, n).astype(dtype)
    rays = impact.mesh_ray_cast_batch(terrain_mesh, origin, direction, threads=2)
    spheres = impact.mesh_sphere_cast_batch(terrain_mesh, origin, radius, direction, buffer=0.01, threads=2)
    assert rays["triangle"].dtype == np.uint32 and "room" not in rays
    for i in range(n):
        r = impact.mesh_ray_cast(terrain_mesh, origin[i], direction[i], precision=PREC[dtype])
        rows_equal(rays, i, r, [("lambda", "lambda_"), ("point", "point"), ("normal", "normal"),
                                ("triangle", "triangle")])
        s = impact.mesh_sphere_cast(terrain_mesh, origin[i], float(radius[i]), direction[i], buffer=0.01,
                                    precision=PREC[dtype])
        rows_equal(spheres, i, s, [("toi", "toi"), ("point", "point"), ("normal", "normal"),
                                   ("triangle", "triangle")])
    assert 0.3 < np.mean(rays["status"] == int(impact.Status.hit)) < 0.7
    same_answers(rays, impact.mesh_ray_cast_batch(terrain_mesh, origin, direction, threads=1))
    same_answers(spheres, impact.mesh_sphere_cast_batch(terrain_mesh, origin, radius, direction, buffer=0.01,
                                                        threads=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_level_batches_equal_single(dtype):
    rng = np.random.default_rng(1916)
    level = hall_level(impact)
    n = 1500
    origin = rng.uniform([0.5, 0.5, 0.5], [19.5, 9.5, 9.5], (n, 3)).astype(dtype)
    direction = rng.uniform([-25, -25, -40], [25, 25, 5], (n, 3)).astype(dtype)
    rays = impact.level_ray_cast_batch(level, origin, direction, threads=2)
    spheres = impact.level_sphere_cast_batch(level, origin, 0.5, direction, threads=2)
    for i in range(n):
        r = impact.level_ray_cast(level, origin[i], direction[i], precision=PREC[dtype])
        rows_equal(rays, i, r, [("lambda", "lambda_"), ("point", "point"), ("normal", "normal"),
                                ("triangle", "triangle"), ("room", "room")])
        s = impact.level_sphere_cast(level, origin[i], 0.5, direction[i], precision=PREC[dtype])
        rows_equal(spheres, i, s, [("toi", "toi"), ("point", "point"), ("normal", "normal"),
                                   ("triangle", "triangle"), ("room", "room")])
    assert 0.3 < np.mean(rays["status"] == int(impact.Status.hit)) < 0.8
    same_answers(rays, impact.level_ray_cast_batch(level, origin, direction, threads=1))


def test_bad_geometry_is_a_status_per_row():
    origin = np.array([[0, 0, 5], [np.nan, 0, 5], [0, 0, 5]])
    out = impact.ray_cast_batch(impact.Sphere(1), origin, np.array([0, 0, -10.0]))
    assert [impact.Status(s) for s in out["status"]] == [impact.Status.hit, impact.Status.invalid_input,
                                                         impact.Status.hit]
    bad_rot = np.array([[1, 0, 0, 0], [2, 0, 0, 0]], dtype=np.float32)
    out = impact.distance_batch(impact.Sphere(1), impact.Sphere(1), None, bad_rot, np.array([3, 0, 0], np.float32))
    assert list(out["status"]) == [int(impact.Status.separated), int(impact.Status.invalid_input)]
    out = impact.distance_batch(impact.Sphere(-1), impact.Sphere(1), position_b=np.zeros((4, 3)))
    assert set(out["status"]) == {int(impact.Status.invalid_input)}
    v, t = terrain(np.random.default_rng(1), n=2)
    m = impact.TriangleMesh(v, t)
    out = impact.mesh_sphere_cast_batch(m, np.array([[1, 1, 3.0], [1, 1, 3]]), np.array([0.5, -1]), (0, 0, -5.0))
    assert list(out["status"]) == [int(impact.Status.hit), int(impact.Status.invalid_input)]


def test_bad_arrays_raise():
    s = impact.Sphere(1)
    with pytest.raises(ValueError, match="origin"):
        impact.ray_cast_batch(s, np.zeros((5, 4)), np.zeros((5, 3)))
    with pytest.raises(ValueError, match="rows"):
        impact.ray_cast_batch(s, np.zeros((5, 3)), np.zeros((4, 3)))
    with pytest.raises(TypeError, match="dtype"):
        impact.ray_cast_batch(s, np.zeros((5, 3), np.float32), np.zeros((5, 3)))
    with pytest.raises(TypeError, match="float32 or float64"):
        impact.ray_cast_batch(s, np.zeros((5, 3), np.int64), np.zeros((5, 3)))
    with pytest.raises(ValueError, match="rotation_a"):
        impact.distance_batch(s, s, None, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="threads"):
        impact.ray_cast_batch(s, np.zeros((5, 3)), np.zeros((5, 3)), threads=-1)
    with pytest.raises(ValueError, match="method"):
        impact.shape_cast_batch(s, s, method="teleport")
    v, t = terrain(np.random.default_rng(1), n=2)
    with pytest.raises(ValueError, match="radius"):
        impact.mesh_sphere_cast_batch(impact.TriangleMesh(v, t), np.zeros((3, 3)), np.zeros((3, 1)), np.zeros(3))


def test_inputs_read_in_place_and_copied():
    rng = np.random.default_rng(1917)
    big = rng.uniform(-3, 3, (200, 6))
    origin_view = big[:, ::2]  # not contiguous: copied, same answers as a contiguous copy
    d = np.array([[0.0, 0.0, 0.0]]) - np.ascontiguousarray(origin_view)
    a = impact.ray_cast_batch(impact.Sphere(1), origin_view, d)
    b = impact.ray_cast_batch(impact.Sphere(1), np.ascontiguousarray(origin_view), d)
    same_answers(a, b)
    lists = impact.ray_cast_batch(impact.Sphere(1), origin_view.tolist(), d.tolist())
    same_answers(a, lists)
    empty = impact.ray_cast_batch(impact.Sphere(1), np.zeros((0, 3)), np.zeros(3))
    assert empty["status"].shape == (0,) and empty["point"].shape == (0, 3)
