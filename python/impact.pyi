"""Type stub of the module `impact` (python/src/*.cpp): continuous collision detection in float and double.

Single queries take precision="double" or "float" and return result objects whose vectors are
float64 arrays of 3 (a float answer widened exactly). Batch calls take numpy arrays of one dtype
(float32 or float64: the precision), N rows or 1 shared row, and return a dict of new arrays of N
rows. Bad geometry answers Status.invalid_input with `error` naming the field; only calls that
cannot mean anything (wrong array shapes or dtypes, unknown option names) raise.
"""
from enum import IntEnum
from typing import Iterable, Mapping, Sequence, TypedDict, Union

import numpy as np
import numpy.typing as npt

Vec3Like = Union[Sequence[float], npt.NDArray[np.floating]]
QuatLike = Union[Sequence[float], npt.NDArray[np.floating]]
ArrayLike = npt.ArrayLike
Float64Array = npt.NDArray[np.float64]
FloatArray = npt.NDArray[np.floating]

# ---- enums (IntEnum-like: Status(x) converts a batch's uint8 status) ----

class Status(IntEnum):
    separated = 0
    intersecting = 1
    hit = 2
    miss = 3
    initially_overlapping = 4
    max_iterations = 5
    invalid_input = 6

class CastMethod(IntEnum):
    gjk_raycast = 0
    conservative_advancement = 1
    mpr = 2

class ToiMethod(IntEnum):
    extrusion_brent = 0
    conservative_advancement = 1

class BackFaces(IntEnum):
    ignore = 0
    collide = 1

class MeshSplit(IntEnum):
    middle = 0
    sah = 1

class MeshFeature(IntEnum):
    face = 0
    edge = 1
    vertex = 2

class WorldReport(IntEnum):
    pairs = 0
    bodies = 1

class BroadPhase(IntEnum):
    box_tree = 0
    sweep_and_prune = 1

class BodyKind(IntEnum):
    convex = 0
    compound = 1
    mesh = 2

# Option arguments take the enum or its member's name ("mpr"); an unknown name raises ValueError.
CastMethodArg = Union[CastMethod, str]
ToiMethodArg = Union[ToiMethod, str]
BackFacesArg = Union[BackFaces, str]
MeshSplitArg = Union[MeshSplit, str]

# ---- poses and motions ----

class Pose:
    """Local point p is at rotation * p + position; rotation is a unit quaternion (w, x, y, z)."""
    position: Float64Array
    rotation: Float64Array
    def __init__(self, position: Vec3Like = (0, 0, 0), rotation: QuatLike = (1, 0, 0, 0)) -> None: ...
    def apply(self, point: Vec3Like) -> Float64Array: ...
    def apply_inverse(self, point: Vec3Like) -> Float64Array: ...

class Motion:
    """Rigid motion over t in [0, 1]; pose None: identity (queries) or the stored pose (World.step)."""
    pose: Pose | None
    linear_velocity: Float64Array
    angular_velocity: Float64Array
    def __init__(self, pose: Pose | None = None, linear_velocity: Vec3Like = (0, 0, 0),
                 angular_velocity: Vec3Like = (0, 0, 0)) -> None: ...
    def at(self, t: float) -> Pose: ...

# ---- shapes (immutable; sizes are checked by the queries) ----

class Shape:
    """Base of every shape; not constructible."""
    @property
    def type(self) -> str: ...
    def bounding_radius(self) -> float: ...
    def support(self, direction: Vec3Like) -> Float64Array: ...
    def validate(self) -> str: ...

class Point(Shape):
    def __init__(self) -> None: ...

class Sphere(Shape):
    def __init__(self, radius: float) -> None: ...
    @property
    def radius(self) -> float: ...

class Box(Shape):
    def __init__(self, half_extents: Vec3Like) -> None: ...
    @property
    def half_extents(self) -> Float64Array: ...

class Capsule(Shape):
    def __init__(self, radius: float, half_height: float) -> None: ...
    @property
    def radius(self) -> float: ...
    @property
    def half_height(self) -> float: ...

class Cylinder(Shape):
    def __init__(self, radius: float, half_height: float) -> None: ...
    @property
    def radius(self) -> float: ...
    @property
    def half_height(self) -> float: ...

class Cone(Shape):
    def __init__(self, radius: float, half_height: float) -> None: ...
    @property
    def radius(self) -> float: ...
    @property
    def half_height(self) -> float: ...

class Segment(Shape):
    def __init__(self, a: Vec3Like, b: Vec3Like) -> None: ...
    @property
    def a(self) -> Float64Array: ...
    @property
    def b(self) -> Float64Array: ...

class Triangle(Shape):
    def __init__(self, a: Vec3Like, b: Vec3Like, c: Vec3Like) -> None: ...
    @property
    def a(self) -> Float64Array: ...
    @property
    def b(self) -> Float64Array: ...
    @property
    def c(self) -> Float64Array: ...

class Hull(Shape):
    """Convex hull of points (N, 3), built by qhull; a cloud it cannot use raises ValueError."""
    def __init__(self, points: ArrayLike) -> None: ...
    @property
    def points(self) -> Float64Array: ...
    @property
    def vertices(self) -> Float64Array: ...
    @property
    def dimension(self) -> int: ...
    @property
    def face_count(self) -> int: ...

class Minkowski(Shape):
    """a + b in the sum's frame (at most 16 levels of nesting)."""
    def __init__(self, a: Shape, b: Shape) -> None: ...
    @property
    def a(self) -> Shape: ...
    @property
    def b(self) -> Shape: ...

class Transformed(Shape):
    """A shape placed in its parent's frame by a pose."""
    def __init__(self, shape: Shape, pose: Pose) -> None: ...
    @property
    def shape(self) -> Shape: ...
    @property
    def pose(self) -> Pose: ...

# ---- pair queries ----

class DistanceResult:
    status: Status
    distance: float
    point_a: Float64Array
    point_b: Float64Array
    normal: Float64Array
    iterations: int
    error: str

class RayHit:
    """`lambda_` is the ray parameter (also getattr(hit, "lambda"))."""
    status: Status
    lambda_: float
    point: Float64Array
    normal: Float64Array
    iterations: int
    error: str

class CastHit:
    status: Status
    toi: float
    point_a: Float64Array
    point_b: Float64Array
    normal: Float64Array
    iterations: int
    error: str

class ToiStats:
    interval_tests: int
    gjk_calls: int
    direction_evals: int
    brent_evals: int
    photo_finish: bool

class ToiHit:
    status: Status
    toi: float
    point_a: Float64Array
    point_b: Float64Array
    normal: Float64Array
    iterations: int
    error: str
    stats: ToiStats

# Options left None take the C++ default of the precision (tolerances.hpp).
def distance(a: Shape, b: Shape, pose_a: Pose | None = None, pose_b: Pose | None = None, *,
             relative_tolerance: float | None = None, max_iterations: int | None = None, wide_retry: bool = True,
             apart_beyond: float | None = None, precision: str = "double") -> DistanceResult: ...
def ray_cast(shape: Shape, origin: Vec3Like, direction: Vec3Like, pose: Pose | None = None, *,
             max_lambda: float = 1.0, relative_tolerance: float | None = None, max_iterations: int | None = None,
             closed_form: bool = True, precision: str = "double") -> RayHit: ...
def shape_cast(a: Shape, b: Shape, pose_a: Pose | None = None, velocity_a: Vec3Like = (0, 0, 0),
               pose_b: Pose | None = None, velocity_b: Vec3Like = (0, 0, 0), *,
               method: CastMethodArg = CastMethod.gjk_raycast, target_distance: float = 0.0,
               tolerance: float | None = None, max_iterations: int | None = None, closed_form: bool = True,
               precision: str = "double") -> CastHit: ...
def time_of_impact(a: Shape, b: Shape, motion_a: Motion | None = None, motion_b: Motion | None = None, *,
                   method: ToiMethodArg = ToiMethod.extrusion_brent, target_distance: float = 0.0,
                   tolerance: float | None = None, paper_acceptance: bool = False, max_iterations: int = 4096,
                   max_toi: float = 1.0, precision: str = "double") -> ToiHit: ...

# ---- triangle meshes ----

class MeshRayHit:
    status: Status
    lambda_: float
    point: Float64Array
    normal: Float64Array
    triangle: int
    error: str

class MeshCastHit:
    status: Status
    toi: float
    contact_time: float
    point: Float64Array
    normal: Float64Array
    triangle: int
    feature: MeshFeature
    sphere: int
    error: str

class TriangleMesh:
    """Built in `precision` ("double", "float" or "both") at construction, another on first use."""
    def __init__(self, vertices: ArrayLike, triangles: ArrayLike, *, split: MeshSplitArg = MeshSplit.middle,
                 leaf_size: int = 4, max_depth: int = 64, precision: str = "double") -> None: ...
    @staticmethod
    def from_obj(path: str, *, split: MeshSplitArg = MeshSplit.middle, leaf_size: int = 4, max_depth: int = 64,
                 precision: str = "double") -> TriangleMesh: ...
    @property
    def vertices(self) -> Float64Array: ...
    @property
    def triangles(self) -> npt.NDArray[np.uint32]: ...
    @property
    def normals(self) -> Float64Array: ...
    @property
    def degenerate(self) -> npt.NDArray[np.uint8]: ...
    @property
    def depth(self) -> int: ...
    @property
    def split(self) -> MeshSplit: ...
    @property
    def leaf_size(self) -> int: ...
    @property
    def max_depth(self) -> int: ...
    def __len__(self) -> int: ...

def load_obj(path: str) -> tuple[Float64Array, npt.NDArray[np.uint32]]: ...
def mesh_ray_cast(mesh: TriangleMesh, origin: Vec3Like, direction: Vec3Like, *, max_lambda: float = 1.0,
                  back_faces: BackFacesArg = BackFaces.ignore, brute_force: bool = False, normal: bool = True,
                  precision: str = "double") -> MeshRayHit: ...
def mesh_sphere_cast(mesh: TriangleMesh, center: Vec3Like, radius: float, path: Vec3Like, *, buffer: float = 0.0,
                     back_faces: BackFacesArg = BackFaces.ignore, brute_force: bool = False, max_toi: float = 1.0,
                     precision: str = "double") -> MeshCastHit: ...
def mesh_spheres_cast(mesh: TriangleMesh, centers: ArrayLike, radii: ArrayLike | float, path: Vec3Like, *,
                      buffer: float = 0.0, back_faces: BackFacesArg = BackFaces.ignore, brute_force: bool = False,
                      max_toi: float = 1.0, precision: str = "double") -> MeshCastHit: ...
def mesh_shape_cast(mesh: TriangleMesh, shape: Shape, velocity: Vec3Like, pose: Pose | None = None, *,
                    target_distance: float = 0.0, back_faces: BackFacesArg = BackFaces.ignore,
                    tolerance: float | None = None, brute_force: bool = False,
                    precision: str = "double") -> MeshCastHit: ...

# ---- levels ----

class Room:
    def __init__(self, vertices: ArrayLike, triangles: ArrayLike, cell_min: Vec3Like, cell_max: Vec3Like) -> None: ...
    @property
    def vertices(self) -> Float64Array: ...
    @property
    def triangles(self) -> npt.NDArray[np.uint32]: ...
    @property
    def cell_min(self) -> Float64Array: ...
    @property
    def cell_max(self) -> Float64Array: ...

class Portal:
    def __init__(self, rooms: tuple[int, int] | Sequence[int], corners: ArrayLike) -> None: ...
    @property
    def rooms(self) -> tuple[int, int]: ...
    @property
    def corners(self) -> Float64Array: ...

class Level:
    """Rooms and portals, built in double (float twin on first use); carve() changes it."""
    def __init__(self, rooms: Sequence[Room], portals: Sequence[Portal] = ..., *,
                 split: MeshSplitArg = MeshSplit.middle, leaf_size: int = 4, max_depth: int = 64) -> None: ...
    def __len__(self) -> int: ...
    @property
    def portal_count(self) -> int: ...
    @property
    def triangle_counts(self) -> list[int]: ...
    def room_mesh(self, room: int) -> tuple[Float64Array, npt.NDArray[np.uint32]]: ...
    def room_at(self, point: Vec3Like) -> int: ...

class LevelRayHit:
    status: Status
    lambda_: float
    point: Float64Array
    normal: Float64Array
    triangle: int
    error: str
    room: int
    rooms_visited: int

class LevelCastHit:
    status: Status
    toi: float
    contact_time: float
    point: Float64Array
    normal: Float64Array
    triangle: int
    feature: MeshFeature
    error: str
    room: int
    rooms_visited: int

class CarveReport:
    rooms: list[int]
    removed: list[int]
    rebuild_seconds: list[float]
    portals_added: int
    joined: list[int]
    error: str

def level_ray_cast(level: Level, origin: Vec3Like, direction: Vec3Like, *, max_lambda: float = 1.0,
                   back_faces: BackFacesArg = BackFaces.ignore, brute_force: bool = False, normal: bool = True,
                   room: int | None = None, precision: str = "double") -> LevelRayHit: ...
def level_sphere_cast(level: Level, center: Vec3Like, radius: float, path: Vec3Like, *, buffer: float = 0.0,
                      back_faces: BackFacesArg = BackFaces.ignore, brute_force: bool = False, max_toi: float = 1.0,
                      room: int | None = None, precision: str = "double") -> LevelCastHit: ...
def carve(level: Level, center: Vec3Like, radius: float) -> CarveReport: ...

# ---- worlds ----

class Body:
    @staticmethod
    def convex(id: str, shape: Shape, pose: Pose | None = None, *, category: int = 1,
               mask: int = 0xFFFFFFFF) -> Body: ...
    @staticmethod
    def compound(id: str, parts: Iterable[tuple[Shape, Pose | None]], pose: Pose | None = None, *, category: int = 1,
                 mask: int = 0xFFFFFFFF) -> Body: ...
    @staticmethod
    def mesh(id: str, mesh: TriangleMesh, pose: Pose | None = None, *, category: int = 1,
             mask: int = 0xFFFFFFFF) -> Body: ...
    id: str
    kind: BodyKind
    pose: Pose
    category: int
    mask: int

class WorldEvent:
    a: str
    b: str
    status: Status
    toi: float
    point_a: Float64Array
    point_b: Float64Array
    normal: Float64Array
    part_a: int
    part_b: int
    triangle: int

class WorldStepStats:
    pairs_tested: int
    piece_pairs: int
    toi_calls: int
    broad_seconds: float
    narrow_seconds: float

class WorldStepResult:
    status: Status
    events: list[WorldEvent]
    stats: WorldStepStats
    error: str
    ok: bool

class World:
    """Bodies stepped together in one precision; edits that cannot be made raise ValueError."""
    def __init__(self, precision: str = "double") -> None: ...
    @property
    def precision(self) -> str: ...
    def edit(self, remove: Sequence[str] = ..., add: Sequence[Body] = ...) -> None: ...
    def add_convex(self, id: str, shape: Shape, pose: Pose | None = None, *, category: int = 1,
                   mask: int = 0xFFFFFFFF) -> None: ...
    def add_compound(self, id: str, parts: Iterable[tuple[Shape, Pose | None]], pose: Pose | None = None, *,
                     category: int = 1, mask: int = 0xFFFFFFFF) -> None: ...
    def add_mesh(self, id: str, mesh: TriangleMesh, pose: Pose | None = None, *, category: int = 1,
                 mask: int = 0xFFFFFFFF) -> None: ...
    def remove(self, id: str) -> None: ...
    def step(self, motions: Mapping[str, Motion], *, report: Union[WorldReport, str] = WorldReport.pairs,
             target_distance: float = 0.0, tolerance: float | None = None,
             method: ToiMethodArg = ToiMethod.extrusion_brent,
             broad_phase: Union[BroadPhase, str] = BroadPhase.box_tree, max_iterations: int = 4096,
             prune_by_best: bool = True, threads: int = 0) -> WorldStepResult: ...
    def ids(self) -> list[str]: ...
    def pose(self, id: str) -> Pose: ...
    def __len__(self) -> int: ...
    def __contains__(self, id: str) -> bool: ...

# ---- batches: dicts of new arrays of N rows (status uint8; dtype of the inputs) ----

DistanceRows = TypedDict("DistanceRows", {"status": npt.NDArray[np.uint8], "distance": FloatArray,
                                          "point_a": FloatArray, "point_b": FloatArray, "normal": FloatArray})
RayRows = TypedDict("RayRows", {"status": npt.NDArray[np.uint8], "lambda": FloatArray, "point": FloatArray,
                                "normal": FloatArray})
CastRows = TypedDict("CastRows", {"status": npt.NDArray[np.uint8], "toi": FloatArray, "point_a": FloatArray,
                                  "point_b": FloatArray, "normal": FloatArray})
MeshRayRows = TypedDict("MeshRayRows", {"status": npt.NDArray[np.uint8], "lambda": FloatArray, "point": FloatArray,
                                        "normal": FloatArray, "triangle": npt.NDArray[np.uint32]})
MeshCastRows = TypedDict("MeshCastRows", {"status": npt.NDArray[np.uint8], "toi": FloatArray, "point": FloatArray,
                                          "normal": FloatArray, "triangle": npt.NDArray[np.uint32]})
LevelRayRows = TypedDict("LevelRayRows", {"status": npt.NDArray[np.uint8], "lambda": FloatArray,
                                          "point": FloatArray, "normal": FloatArray,
                                          "triangle": npt.NDArray[np.uint32], "room": npt.NDArray[np.uint32]})
LevelCastRows = TypedDict("LevelCastRows", {"status": npt.NDArray[np.uint8], "toi": FloatArray, "point": FloatArray,
                                            "normal": FloatArray, "triangle": npt.NDArray[np.uint32],
                                            "room": npt.NDArray[np.uint32]})

# Inputs: (N, 3) / (N, 4) arrays, or (3,) / (4,) / (1, K) for one shared row; None: the identity
# rotation, the origin, zero velocity. C-contiguous arrays of the call's dtype are read in place.
def distance_batch(a: Shape, b: Shape, position_a: ArrayLike | None = None, rotation_a: ArrayLike | None = None,
                   position_b: ArrayLike | None = None, rotation_b: ArrayLike | None = None, *,
                   relative_tolerance: float | None = None, max_iterations: int | None = None,
                   wide_retry: bool = True, apart_beyond: float | None = None, threads: int = 0,
                   grain: int = 64) -> DistanceRows: ...
def ray_cast_batch(shape: Shape, origin: ArrayLike, direction: ArrayLike, pose: Pose | None = None, *,
                   max_lambda: float = 1.0, relative_tolerance: float | None = None,
                   max_iterations: int | None = None, closed_form: bool = True, threads: int = 0,
                   grain: int = 64) -> RayRows: ...
def shape_cast_batch(a: Shape, b: Shape, position_a: ArrayLike | None = None, rotation_a: ArrayLike | None = None,
                     velocity_a: ArrayLike | None = None, position_b: ArrayLike | None = None,
                     rotation_b: ArrayLike | None = None, velocity_b: ArrayLike | None = None, *,
                     method: CastMethodArg = CastMethod.gjk_raycast, target_distance: float = 0.0,
                     tolerance: float | None = None, max_iterations: int | None = None, closed_form: bool = True,
                     threads: int = 0, grain: int = 64) -> CastRows: ...
def time_of_impact_batch(a: Shape, b: Shape, position_a: ArrayLike | None = None,
                         rotation_a: ArrayLike | None = None, linear_velocity_a: ArrayLike | None = None,
                         angular_velocity_a: ArrayLike | None = None, position_b: ArrayLike | None = None,
                         rotation_b: ArrayLike | None = None, linear_velocity_b: ArrayLike | None = None,
                         angular_velocity_b: ArrayLike | None = None, *,
                         method: ToiMethodArg = ToiMethod.extrusion_brent, target_distance: float = 0.0,
                         tolerance: float | None = None, paper_acceptance: bool = False, max_iterations: int = 4096,
                         max_toi: float = 1.0, threads: int = 0, grain: int = 64) -> CastRows: ...
def mesh_ray_cast_batch(mesh: TriangleMesh, origin: ArrayLike, direction: ArrayLike, *, max_lambda: float = 1.0,
                        back_faces: BackFacesArg = BackFaces.ignore, brute_force: bool = False, threads: int = 0,
                        grain: int = 64) -> MeshRayRows: ...
def mesh_sphere_cast_batch(mesh: TriangleMesh, center: ArrayLike, radius: ArrayLike | float, path: ArrayLike, *,
                           buffer: float = 0.0, back_faces: BackFacesArg = BackFaces.ignore,
                           brute_force: bool = False, max_toi: float = 1.0, threads: int = 0,
                           grain: int = 64) -> MeshCastRows: ...
def level_ray_cast_batch(level: Level, origin: ArrayLike, direction: ArrayLike, *, max_lambda: float = 1.0,
                         back_faces: BackFacesArg = BackFaces.ignore, brute_force: bool = False, threads: int = 0,
                         grain: int = 64) -> LevelRayRows: ...
def level_sphere_cast_batch(level: Level, center: ArrayLike, radius: ArrayLike | float, path: ArrayLike, *,
                            buffer: float = 0.0, back_faces: BackFacesArg = BackFaces.ignore,
                            brute_force: bool = False, max_toi: float = 1.0, threads: int = 0,
                            grain: int = 64) -> LevelCastRows: ...
