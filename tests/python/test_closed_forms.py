"""Answers against closed forms computed here, independently of the library: sphere-sphere
distances, a box and a cylinder side by side with and without GJK's apart_beyond, rays against
spheres and boxes, a sphere falling onto a box face, rays down onto a flat two-triangle mesh, and two
spheres meeting head-on in a world."""
import numpy as np
import pytest

import impact

REL = {np.float64: 1e-12, np.float32: 2e-5}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sphere_sphere_distance(dtype):
    rng = np.random.default_rng(1920)
    n = 3000
    r1, r2 = 0.7, 1.3
    c1, c2 = rng.uniform(-1, 1, (n, 3)).astype(dtype), rng.uniform(-2.1, 2.1, (n, 3)).astype(dtype)
    out = impact.distance_batch(impact.Sphere(r1), impact.Sphere(r2), c1, None, c2, None)
    gap = np.linalg.norm(c2.astype(np.float64) - c1, axis=1) - r1 - r2
    sep = gap > 1e-4
    assert 0.3 < sep.mean() < 0.7
    assert np.all(out["status"][sep] == int(impact.Status.separated))
    assert np.all(out["status"][gap < -1e-4] == int(impact.Status.intersecting))
    assert np.allclose(out["distance"][sep], gap[sep], rtol=0, atol=REL[dtype] * 8)
    unit = (c2 - c1)[sep] / np.linalg.norm((c2 - c1)[sep], axis=1, keepdims=True)
    assert np.allclose(out["normal"][sep], unit, atol=REL[dtype] * 8)
    assert np.allclose(out["point_a"][sep], c1[sep] + r1 * unit, atol=REL[dtype] * 8)


@pytest.mark.parametrize("precision", ["double", "float"])
def test_apart_beyond_bounds_far_distances_and_keeps_near_ones(precision):
    """A unit box at the origin and a cylinder (radius 0.5, axis z) beside its +x face: the
    distance is x - 1.5 exactly. With apart_beyond, distances up to it are GJK's without it, bit
    for bit; past it the answer is within an eighth of the excess above the truth, and the shapes
    are at least apart_beyond + 7/8 of (reported - apart_beyond) apart along the normal (the box's
    face is normal to x, the cylinder's side reaches 0.5 along any normal)."""
    rng = np.random.default_rng(1921)
    box, cyl = impact.Box((1, 1, 1)), impact.Cylinder(0.5, 1.0)
    beyond = 0.6
    tol = 1e-9 if precision == "double" else 5e-5
    near = far = cheaper = 0
    rows = []
    for _ in range(400):
        x, y, z = rng.uniform(1.55, 3.2), rng.uniform(-0.9, 0.9), rng.uniform(-0.9, 0.9)
        pose_b = impact.Pose((x, y, z), (np.cos(0.5 * y), 0, 0, np.sin(0.5 * y)))  # turned about z
        exact = x - 1.5
        plain = impact.distance(box, cyl, None, pose_b, precision=precision)
        early = impact.distance(box, cyl, None, pose_b, apart_beyond=beyond, precision=precision)
        rows.append(((x, y, z), pose_b.rotation, early))
        assert early.status == impact.Status.separated
        assert early.distance >= exact - tol
        assert early.distance <= exact + max(0.0, exact - beyond) / 8 + tol
        if exact < beyond - tol:
            near += 1
            assert early.distance == plain.distance
            assert np.array_equal(early.normal, plain.normal)
            assert early.iterations == plain.iterations
        else:
            far += 1
            # Separation along n: n.(x, y, z) less the box's support |n0|+|n1|+|n2| and the
            # cylinder's, 0.5 |(n0, n1)| + 1.0 |n2| (turning about its axis leaves it unchanged).
            n = np.asarray(early.normal)
            along = n @ (x, y, z) - np.abs(n).sum() - 0.5 * np.hypot(n[0], n[1]) - abs(n[2])
            assert along >= beyond + 7 / 8 * (early.distance - beyond) - tol
            cheaper += early.iterations < plain.iterations
    assert near > 50 and far > 200
    assert cheaper > 20  # the option reaches GJK: it stops earlier on the curved side
    # The batch call takes the option too, and gives the single call's answers.
    dtype = np.float64 if precision == "double" else np.float32
    out = impact.distance_batch(box, cyl, None, None, np.array([r[0] for r in rows], dtype=dtype),
                                np.array([r[1] for r in rows], dtype=dtype), apart_beyond=beyond)
    assert np.array_equal(out["distance"], np.array([r[2].distance for r in rows], dtype=dtype))


def ray_sphere(o, d, c, r):
    """Smallest lambda >= 0 with |o + lambda d - c| = r, or None."""
    w = o - c
    a, b, cc = d @ d, 2 * w @ d, w @ w - r * r
    disc = b * b - 4 * a * cc
    if disc < 0:
        return None
    lam = (-b - np.sqrt(disc)) / (2 * a)
    return lam if 0 <= lam <= 1 else None


def ray_box(o, d, h):
    """Slab test against the box [-h, h] (origin outside): entry lambda in [0, 1], or None."""
    lo, hi = 0.0, 1.0
    for k in range(3):
        if d[k] == 0:
            if abs(o[k]) > h[k]:
                return None
            continue
        t1, t2 = sorted(((-h[k] - o[k]) / d[k], (h[k] - o[k]) / d[k]))
        lo, hi = max(lo, t1), min(hi, t2)
    return lo if lo <= hi else None


def test_ray_against_sphere_and_box_by_hand():
    rng = np.random.default_rng(1921)
    c, r, h = np.array([1.0, -0.5, 0.25]), 1.2, np.array([1.0, 0.6, 0.3])
    hits = {"sphere": 0, "box": 0}
    for _ in range(1500):
        o = rng.uniform(-5, 5, 3)
        for name, shape, pose, target in (("sphere", impact.Sphere(r), impact.Pose(c), c),
                                          ("box", impact.Box(h), impact.Pose(), np.zeros(3))):
            if name == "box" and np.all(np.abs(o) <= h) or name == "sphere" and np.linalg.norm(o - c) <= r:
                continue
            d = (target + rng.uniform(-1.6, 1.6, 3) - o) * 1.3
            want = ray_sphere(o, d, c, r) if name == "sphere" else ray_box(o, d, h)
            got = impact.ray_cast(shape, o, d, pose)
            if want is None:
                assert got.status == impact.Status.miss, (name, o, d, got)
                continue
            hits[name] += 1
            assert got.status == impact.Status.hit, (name, o, d, got)
            assert abs(got.lambda_ - want) <= 1e-12 * (1 + want), (name, got.lambda_, want)
            assert np.allclose(got.point, o + want * d, atol=1e-11)
    assert all(300 < k < 1200 for k in hits.values()), hits


@pytest.mark.parametrize("precision", ["double", "float"])
def test_sphere_falls_onto_box_face(precision):
    # A ball of radius 0.5 at height 4 falls by 6 onto the top face (z = 1) of a box: contact at
    # (4 - 0.5 - 1) / 6, whatever its x, y over the face. Answers are never late, within tolerance.
    r, top, z0, fall = 0.5, 1.0, 4.0, 6.0
    t_true = (z0 - r - top) / fall
    tol = 1e-6 if precision == "double" else 1e-4
    box = impact.Box((2.0, 2.0, top))
    for x, y in ((0.0, 0.0), (1.5, -1.2), (-1.9, 1.9)):
        ball = impact.Sphere(r)
        c = impact.shape_cast(ball, box, impact.Pose((x, y, z0)), (0, 0, -fall), precision=precision)
        assert c.status == impact.Status.hit
        assert c.toi <= t_true + 1e-7 and (t_true - c.toi) * fall <= tol + 1e-6
        assert np.allclose(c.normal, (0, 0, -1), atol=1e-5)
        m = impact.time_of_impact(ball, box, impact.Motion(impact.Pose((x, y, z0)), (0, 0, -fall), (0, 0, 3.0)),
                                  precision=precision)
        assert m.status == impact.Status.hit
        assert m.toi <= t_true + 1e-7 and (t_true - m.toi) * fall <= 2 * tol + 1e-6
        assert abs(m.point_b[2] - top) <= 1e-4
        # max_toi: the contact at t_true is found when sought up to a later time (as valid), and
        # is a miss when only the time before it is searched.
        motion = impact.Motion(impact.Pose((x, y, z0)), (0, 0, -fall), (0, 0, 3.0))
        later = impact.time_of_impact(ball, box, motion, max_toi=t_true + 0.05, precision=precision)
        assert later.status == impact.Status.hit
        assert later.toi <= t_true + 1e-7 and (t_true - later.toi) * fall <= 2 * tol + 1e-6
        before = impact.time_of_impact(ball, box, motion, max_toi=t_true - 0.05, precision=precision)
        assert before.status == impact.Status.miss


def test_rays_down_onto_flat_mesh():
    mesh = impact.TriangleMesh([[0, 0, 0], [4, 0, 0], [4, 4, 0], [0, 4, 0]], [[0, 1, 2], [0, 2, 3]])
    rng = np.random.default_rng(1922)
    xy = rng.uniform(-1, 5, (2000, 2))
    origin = np.column_stack([xy, np.full(len(xy), 3.0)])
    out = impact.mesh_ray_cast_batch(mesh, origin, np.array([0, 0, -6.0]))
    inside = np.all((xy > 1e-9) & (xy < 4 - 1e-9), axis=1) & (np.abs(xy[:, 0] - xy[:, 1]) > 1e-9)
    assert np.all(out["status"][inside] == int(impact.Status.hit))
    assert np.all(out["status"][~np.all((xy >= 0) & (xy <= 4), axis=1)] == int(impact.Status.miss))
    assert np.all(out["lambda"][inside] == 0.5)
    assert np.array_equal(out["point"][inside], np.column_stack([xy[inside], np.zeros(inside.sum())]))
    assert np.all(out["normal"][inside] == [0, 0, 1])
    below_diagonal = xy[inside, 0] > xy[inside, 1]  # triangle 0 is (0,0)-(4,0)-(4,4): x > y
    assert np.array_equal(out["triangle"][inside], np.where(below_diagonal, 0, 1))
    up = impact.mesh_ray_cast(mesh, (2, 1, -3), (0, 0, 6))  # from behind: back faces are ignored
    assert up.status == impact.Status.miss
    assert impact.mesh_ray_cast(mesh, (2, 1, -3), (0, 0, 6), back_faces="collide").lambda_ == 0.5


@pytest.mark.parametrize("precision", ["double", "float"])
def test_world_head_on_spheres(precision):
    # Spheres of radius 0.5 at x = -3 and x = 3 move toward each other at 4 per step: they touch
    # when 6 - 8 t = 1, t = 5/8, at x = 0.
    w = impact.World(precision)
    w.add_convex("left", impact.Sphere(0.5), impact.Pose((-3, 0, 0)))
    w.add_convex("right", impact.Sphere(0.5), impact.Pose((3, 0, 0)))
    w.add_convex("far", impact.Box((0.5, 0.5, 0.5)), impact.Pose((0, 50, 0)))
    r = w.step({"left": impact.Motion(None, (4, 0, 0)), "right": impact.Motion(None, (-4, 0, 0))}, tolerance=1e-6)
    assert r.ok and len(r.events) == 1
    e = r.events[0]
    assert (e.a, e.b, e.status) == ("left", "right", impact.Status.hit)
    tol = 1e-6 if precision == "double" else 1e-4
    assert e.toi <= 0.625 + 1e-7 and (0.625 - e.toi) * 8 <= tol + 1e-6
    assert np.allclose(e.normal, (1, 0, 0), atol=1e-6) and abs(e.point_a[0]) < 1e-4
    assert (e.part_a, e.part_b, e.triangle) == (-1, -1, -1)
    assert np.allclose(w.pose("left").position, (1, 0, 0)) and np.allclose(w.pose("right").position, (-1, 0, 0))
    same = w.step({"left": impact.Motion(impact.Pose((-3, 0, 0)), (4, 0, 0)),
                   "right": impact.Motion(impact.Pose((3, 0, 0)), (-4, 0, 0))}, tolerance=1e-6, threads=1)
    assert same.events[0].toi == e.toi
