"""Mesh, level and world answers of the module equal the `impact query` tool's, bit for bit.

See test_cli_exact.py for why equality of the parsed numbers is equality of the bits. The tool
builds a float mesh from its double one with the default tree options, as the module does.
"""
import numpy as np
import pytest

import impact
from conftest import pose_of, random_pose, random_shape, same, shape_of
from meshes_common import HALL_PORTALS, HALL_ROOMS, hall_level, terrain

PRECISIONS = ["double", "float"]


def mesh_cast_equal(ans, r, feature=True):
    hit = r.status in (impact.Status.hit, impact.Status.max_iterations)
    assert ans["status"] == ("hit" if hit else r.status.name), (ans, r)
    if r.status == impact.Status.miss:
        return
    assert same(ans["toi"], r.toi) and same(ans["point"], r.point) and same(ans["normal"], r.normal), (ans, r)
    assert ans["triangle"] == r.triangle
    if feature:
        assert ans["feature"] == r.feature.name


@pytest.fixture(scope="module")
def scene():
    rng = np.random.default_rng(1905)
    v, t = terrain(rng)
    return v, t, impact.TriangleMesh(v, t, precision="both")


@pytest.mark.parametrize("precision", PRECISIONS)
def test_mesh_casts_equal_tool(cli, scene, precision):
    v, t, mesh = scene
    rng = np.random.default_rng(1906)
    reqs = [{"query": "define_mesh", "name": "t", "mesh": {"vertices": v, "triangles": t}}]
    cases = []
    for _ in range(150):
        c = [float(rng.uniform(0, 10)), float(rng.uniform(0, 10)), float(rng.uniform(1.5, 4))]
        d = [float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)), float(rng.uniform(-5, 1))]
        r = float(rng.uniform(0.1, 0.8))
        shape = random_shape(rng, ["box", "sphere", "capsule", "hull"])
        pose = random_pose(rng, 0.0)
        pose["position"] = c
        cases.append((c, d, r, shape, pose))
        base = {"precision": precision, "mesh": {"ref": "t"}}
        reqs.append({**base, "query": "mesh_ray_cast", "origin": c, "direction": d})
        reqs.append({**base, "query": "mesh_sphere_cast", "center": c, "radius": r, "path": d, "buffer": 0.01})
        reqs.append({**base, "query": "mesh_spheres_cast", "spheres": [{"center": c, "radius": r},
                     {"center": [c[0] + 1, c[1], c[2]], "radius": r / 2}], "path": d})
        reqs.append({**base, "query": "mesh_shape_cast", "shape": shape, "pose": pose, "velocity": d})
    answers = cli(reqs)
    assert answers[0]["status"] == "ok"
    hits = 0
    for k, (c, d, r, shape, pose) in enumerate(cases):
        ray_a, sph_a, sphs_a, shp_a = answers[1 + 4 * k: 5 + 4 * k]
        h = impact.mesh_ray_cast(mesh, c, d, precision=precision)
        hits += h.status == impact.Status.hit
        assert ray_a["status"] == h.status.name
        if h.status == impact.Status.hit:
            assert same(ray_a["lambda"], h.lambda_) and same(ray_a["point"], h.point)
            assert same(ray_a["normal"], h.normal) and ray_a["triangle"] == h.triangle
        mesh_cast_equal(sph_a, impact.mesh_sphere_cast(mesh, c, r, d, buffer=0.01, precision=precision))
        s = impact.mesh_spheres_cast(mesh, [c, [c[0] + 1, c[1], c[2]]], [r, r / 2], d, precision=precision)
        mesh_cast_equal(sphs_a, s)
        if s.status != impact.Status.miss:
            assert sphs_a["sphere"] == s.sphere
        mesh_cast_equal(shp_a, impact.mesh_shape_cast(mesh, shape_of(shape), d, pose_of(pose), precision=precision),
                        feature=False)
    assert 0.3 < hits / len(cases) < 0.8


@pytest.mark.parametrize("precision", PRECISIONS)
def test_level_casts_and_carve_equal_tool(cli, precision):
    rng = np.random.default_rng(1907)
    level = hall_level(impact)
    reqs = [{"query": "define_level", "name": "hall", "rooms": HALL_ROOMS, "portals": HALL_PORTALS}]
    rays = [(rng.uniform([0.5, 0.5, 0.5], [19.5, 9.5, 9.5]).tolist(), rng.uniform(-25, 25, 3).tolist())
            for _ in range(100)]

    def casts(tag):
        out = []
        for o, d in rays:
            out.append({"id": tag, "query": "level_ray_cast", "precision": precision, "level": "hall", "origin": o,
                        "direction": d})
            out.append({"id": tag, "query": "level_sphere_cast", "precision": precision, "level": "hall",
                        "center": o, "radius": 0.5, "path": d})
        return out

    reqs += casts("before")
    reqs.append({"query": "carve", "level": "hall", "center": [10, 5, 0], "radius": 1})
    reqs += casts("after")
    answers = cli(reqs)

    def check(block):
        for k, (o, d) in enumerate(rays):
            ra, sa = block[2 * k], block[2 * k + 1]
            h = impact.level_ray_cast(level, o, d, precision=precision)
            assert ra["status"] == h.status.name and ra["rooms_visited"] == h.rooms_visited
            if h.status == impact.Status.hit:
                assert same(ra["lambda"], h.lambda_) and same(ra["point"], h.point) and same(ra["normal"], h.normal)
                assert ra["room"] == h.room and ra["triangle"] == h.triangle
            s = impact.level_sphere_cast(level, o, 0.5, d, precision=precision)
            assert sa["status"] == s.status.name and sa["rooms_visited"] == s.rooms_visited
            if s.status != impact.Status.miss:
                assert same(sa["toi"], s.toi) and same(sa["point"], s.point) and sa["room"] == s.room
                assert sa["triangle"] == s.triangle and sa["feature"] == s.feature.name

    n = 2 * len(rays)
    check(answers[1:1 + n])
    rep = impact.carve(level, [10, 5, 0], 1.0)
    tool = answers[1 + n]
    assert (tool["rooms"], tool["removed"], tool["portals_added"], tool["portal_rooms"]) == (
        rep.rooms, rep.removed, rep.portals_added, rep.joined)
    check(answers[2 + n:])


@pytest.mark.parametrize("precision", PRECISIONS)
def test_world_step_equals_tool(cli, precision):
    rng = np.random.default_rng(1908)
    v, t = terrain(rng, n=4)
    bodies, motions = [{"body": "floor", "mesh": {"vertices": v, "triangles": t}}], {}
    world = impact.World(precision)
    world.add_mesh("floor", impact.TriangleMesh(v, t, precision=precision))
    for i in range(12):
        shape = random_shape(rng, ["sphere", "box", "capsule", "hull"])
        pose = random_pose(rng, 0.0)
        pose["position"] = [float(rng.uniform(1, 9)), float(rng.uniform(1, 9)), float(rng.uniform(1.5, 4))]
        bodies.append({"body": f"b{i}", "shape": shape, "pose": pose})
        world.add_convex(f"b{i}", shape_of(shape), pose_of(pose))
        motions[f"b{i}"] = {"linear_velocity": rng.uniform(-3, 3, 3).tolist(),
                            "angular_velocity": rng.uniform(-4, 4, 3).tolist()}
    answers = cli([{"query": "define_world", "precision": precision, "name": "w", "bodies": bodies},
                   {"query": "world_step", "world": "w", "motions": motions, "tolerance": 1e-3}])
    assert answers[0]["status"] == "ok"
    py_motions = {k: impact.Motion(None, m["linear_velocity"], m["angular_velocity"]) for k, m in motions.items()}
    r = world.step(py_motions, tolerance=1e-3)
    assert r.ok and answers[1]["pairs_tested"] == r.stats.pairs_tested
    events = answers[1]["events"]
    assert len(events) == len(r.events) >= 5
    for te, e in zip(events, r.events):
        assert (te["a"], te["b"], te["status"]) == (e.a, e.b, e.status.name)
        assert same(te["toi"], e.toi)
        if e.status == impact.Status.hit:
            assert same(te["point_a"], e.point_a) and same(te["point_b"], e.point_b) and same(te["normal"], e.normal)
        assert te.get("triangle", -1) == e.triangle
