"""The module's objects and its errors: shapes keep their parameters, bad geometry answers
invalid_input with the field, calls that cannot mean anything raise, meshes from arrays and OBJ,
levels, world edits, and a stub (impact.pyi) that names every public object of the module."""
import ast
import pathlib

import numpy as np
import pytest

import impact
from meshes_common import hall_level


def test_shapes_keep_parameters():
    assert impact.Sphere(2.5).radius == 2.5 and impact.Sphere(2.5).type == "sphere"
    assert list(impact.Box((1, 2, 3)).half_extents) == [1, 2, 3]
    c = impact.Cone(0.5, 2.0)
    assert (c.radius, c.half_height, c.type) == (0.5, 2.0, "cone")
    assert list(impact.Segment((0, 0, 1), (0, 0, -1)).b) == [0, 0, -1]
    h = impact.Hull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.1, 0.1, 0.1]])
    assert h.points.shape == (5, 3) and h.vertices.shape == (4, 3) and h.dimension == 3 and h.face_count == 4
    m = impact.Minkowski(impact.Box((1, 1, 1)), impact.Sphere(0.5))
    assert isinstance(m.a, impact.Box) and m.bounding_radius() == pytest.approx(3 ** 0.5 + 0.5)
    t = impact.Transformed(impact.Sphere(1), impact.Pose((2, 0, 0)))
    assert list(t.pose.position) == [2, 0, 0] and list(t.support((1, 0, 0))) == [3, 0, 0]
    assert "Sphere(radius=1.0)" in repr(t)
    assert impact.Capsule(-1, 1).validate() == "radius: negative"


def test_hull_and_nesting_errors_raise():
    with pytest.raises(ValueError, match="points"):
        impact.Hull(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="points"):
        impact.Hull([[0, 0, np.nan]])
    s = impact.Sphere(1)
    for _ in range(16):
        s = impact.Minkowski(s, impact.Point())
    with pytest.raises(ValueError, match="nesting"):
        impact.Minkowski(s, impact.Point())


def test_bad_geometry_is_invalid_input_not_an_exception():
    r = impact.distance(impact.Sphere(-1), impact.Point())
    assert r.status == impact.Status.invalid_input and r.error == "a.radius: negative"
    r = impact.distance(impact.Point(), impact.Point(), None, impact.Pose(rotation=(1, 1, 0, 0)))
    assert r.status == impact.Status.invalid_input and r.error.startswith("pose_b.rotation")
    assert impact.ray_cast(impact.Sphere(1), (np.inf, 0, 0), (1, 0, 0)).status == impact.Status.invalid_input
    c = impact.shape_cast(impact.Sphere(1), impact.Sphere(1), target_distance=-1.0)
    assert c.status == impact.Status.invalid_input and "target_distance" in c.error
    t = impact.time_of_impact(impact.Sphere(1), impact.Box((1, -1, 1)))
    assert t.status == impact.Status.invalid_input and "half_extents" in t.error
    w = impact.World()
    w.add_convex("a", impact.Sphere(1))
    r = w.step({"a": impact.Motion(None, (np.nan, 0, 0))})
    assert r.status == impact.Status.invalid_input and "linear_velocity" in r.error and not r.ok


def test_calls_that_cannot_mean_anything_raise():
    s = impact.Sphere(1)
    with pytest.raises(ValueError, match="precision"):
        impact.distance(s, s, precision="half")
    with pytest.raises(ValueError, match="mpr"):
        impact.shape_cast(s, s, method="teleport")
    with pytest.raises(ValueError, match="origin"):
        impact.ray_cast(s, (0, 0), (1, 0, 0))
    with pytest.raises(ValueError, match="rotation"):
        impact.Pose(rotation=(1, 0, 0))
    assert impact.shape_cast(s, s, impact.Pose((5, 0, 0)), (-10, 0, 0), method="mpr").status == impact.Status.hit
    assert impact.Status(np.uint8(2)) == impact.Status.hit and impact.MeshSplit.sah.name == "sah"


def test_mesh_errors_name_the_field_and_obj_loads(tmp_path):
    with pytest.raises(ValueError, match=r"triangles\.1\.2: index 9"):
        impact.TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2], [0, 1, 9]])
    with pytest.raises(ValueError, match=r"vertices\.1"):
        impact.TriangleMesh([[0, 0, 0], [np.nan, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    with pytest.raises(TypeError, match="integer"):
        impact.TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2.5]])
    with pytest.raises(ValueError, match="split"):
        impact.TriangleMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], split="random")
    obj = tmp_path / "quad.obj"
    obj.write_text("v 0 0 0\nv 4 0 0\nv 4 4 0\nv 0 4 0\nf 1 2 3 4\n")
    v, t = impact.load_obj(str(obj))
    assert v.shape == (4, 3) and t.tolist() == [[0, 1, 2], [0, 2, 3]]
    m = impact.TriangleMesh.from_obj(str(obj), precision="float", leaf_size=1)
    assert len(m) == 2 and m.leaf_size == 1 and list(m.normals[0]) == [0, 0, 1]
    assert impact.mesh_ray_cast(m, (1, 3, 2), (0, 0, -4), precision="float").triangle == 1
    bare = impact.mesh_ray_cast(m, (1, 3, 2), (0, 0, -4), normal=False)
    assert (bare.status, bare.lambda_, bare.triangle, list(bare.normal)) == (impact.Status.hit, 0.5, 1, [0, 0, 0])
    (tmp_path / "bad.obj").write_text("v 0 0 0\nhello\n")
    with pytest.raises(ValueError, match="obj: .*line 2"):
        impact.load_obj(str(tmp_path / "bad.obj"))


def test_spheres_and_shape_casts_on_a_mesh():
    m = impact.TriangleMesh([[0, 0, 0], [4, 0, 0], [4, 4, 0], [0, 4, 0]], [[0, 1, 2], [0, 2, 3]])
    s = impact.mesh_sphere_cast(m, (1, 2, 3), 0.5, (0, 0, -5))
    assert s.status == impact.Status.hit and s.toi == pytest.approx(0.5) and s.feature == impact.MeshFeature.face
    many = impact.mesh_spheres_cast(m, [[1, 2, 3], [3, 2, 2]], [0.5, 0.25], (0, 0, -5))
    assert many.sphere == 1 and many.toi == pytest.approx(1.75 / 5)
    box = impact.mesh_shape_cast(m, impact.Box((0.5, 0.5, 0.5)), (0, 0, -5), impact.Pose((2, 1, 3)))
    assert box.status == impact.Status.hit and box.toi == pytest.approx(0.5, abs=1e-6)


def test_level_rooms_portals_and_carve():
    level = hall_level(impact)
    assert len(level) == 2 and level.portal_count == 1 and level.room_at((15, 5, 5)) == 1
    through = impact.level_ray_cast(level, (5, 5, 5), (20, 0, 0))
    assert (through.status, through.lambda_, through.room, through.rooms_visited) == (impact.Status.hit, 0.65, 1, 2)
    bare = impact.level_ray_cast(level, (5, 5, 5), (20, 0, 0), normal=False)
    assert (bare.status, bare.lambda_, bare.room, list(bare.normal)) == (impact.Status.hit, 0.65, 1, [0, 0, 0])
    assert list(through.normal) == [-1, 0, 0]
    rep = impact.carve(level, (10, 5, 0), 1.0)
    assert (rep.rooms, rep.removed, rep.portals_added, rep.joined, rep.error) == ([0], [1], 1, [0, 1], "")
    assert level.triangle_counts == [1, 2] and level.portal_count == 2
    assert impact.level_ray_cast(level, (8, 2, 5), (0, 0, -10)).status == impact.Status.miss
    assert impact.carve(level, (0, 0, 0), -1.0).error.startswith("radius")
    with pytest.raises(ValueError, match="room"):
        impact.level_ray_cast(level, (5, 5, 5), (1, 0, 0), room=7)
    with pytest.raises(ValueError, match="cell"):
        impact.Level([impact.Room([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], (1, 1, 1), (0, 0, 0))])


def test_world_edits():
    w = impact.World("float")
    floor = impact.TriangleMesh([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], [[0, 1, 2], [0, 2, 3]])
    w.edit(add=[impact.Body.mesh("floor", floor),
                impact.Body.compound("dumbbell", [(impact.Sphere(0.5), impact.Pose((-1, 0, 0))),
                                                  (impact.Sphere(0.5), impact.Pose((1, 0, 0)))],
                                     impact.Pose((0, 0, 3)))])
    w.add_convex("ghost", impact.Sphere(1), impact.Pose((0, 0, 3)), category=2, mask=2)
    assert w.ids() == ["dumbbell", "floor", "ghost"] and len(w) == 3 and "ghost" in w and w.precision == "float"
    with pytest.raises(ValueError, match="exists"):
        w.add_convex("ghost", impact.Sphere(1))
    with pytest.raises(ValueError, match="no body"):
        w.remove("nobody")
    with pytest.raises(ValueError, match="radius"):
        w.add_convex("bad", impact.Sphere(-1))
    with pytest.raises(KeyError):
        w.pose("nobody")
    r = w.step({"dumbbell": impact.Motion(None, (0, 0, -4), (0, 0, 1))}, report="bodies")
    assert [(e.a, e.b, e.status.name) for e in r.events] == [("dumbbell", "floor", "hit")]
    assert r.events[0].part_a in (0, 1) and r.events[0].triangle in (0, 1)
    assert r.events[0].toi == pytest.approx(2.5 / 4, abs=1e-3) and r.stats.pairs_tested == 1
    w.remove("ghost")
    assert w.ids() == ["dumbbell", "floor"]


def test_stub_describes_every_public_name():
    stub = pathlib.Path(impact.__file__).with_name("impact.pyi")
    tree = ast.parse(stub.read_text())
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    public = {n for n in dir(impact) if not n.startswith("_")}
    assert public <= names, sorted(public - names)
    for cls in tree.body:
        if isinstance(cls, ast.ClassDef) and hasattr(impact, cls.name):
            declared = {n.name for n in cls.body if isinstance(n, ast.FunctionDef)}
            declared |= {t.target.id for t in cls.body if isinstance(t, ast.AnnAssign)}
            declared |= {t.targets[0].id for t in cls.body if isinstance(t, ast.Assign)}
            declared |= {"name", "value"} if any(getattr(b, "id", "") == "IntEnum" for b in cls.bases) else set()
            attrs = {a for a in vars(getattr(impact, cls.name)) if not a.startswith("_") and a != "lambda"}
            assert attrs <= declared, (cls.name, sorted(attrs - declared))
