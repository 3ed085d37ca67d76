// impact — mesh.hpp: triangle meshes ("level geometry") and the casts against them.
//
// After Schroeder, "Collision Detection Using Ray Casting" (Game Developer, 2001), the collision
// system of Red Faction: every face stores its plane equation; particles (rays) collide only when
// they pass from a face's front to its back; spheres collide with faces (plane test), edges
// (cylinder quadratic) and vertices (sphere quadratic); faces live in a binary tree of AABB "bins"
// (longest-axis split, faces assigned by centre, tunable leaf size and depth) queried with a
// segment-vs-box test on boxes grown by the moving body's extent, nearest bin first; a distance
// buffer keeps bodies a fixed distance from the face they hit. Rooms and portals are in level.hpp.
//
// Conventions: a triangle's front face is the side from which a, b, c wind counter-clockwise; its
// front normal is (b − a) × (c − a) normalised. Triangles of zero area are kept (their indices
// stay valid) but flagged `degenerate` and never hit. All queries are free functions that never
// throw and never allocate on the heap (the tree is walked with a fixed stack).
#pragma once

#include <impact/cast.hpp>
#include <impact/math.hpp>
#include <impact/shapes.hpp>
#include <impact/status.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace impact {

/// Which crossings of a triangle count.
enum class BackFaces {
  ignore,   ///< Only front-to-back crossings collide (Schroeder): a body leaving through a face passes.
  collide,  ///< Both sides of every triangle are solid.
};

/// The feature of a triangle a sphere touched.
enum class MeshFeature {
  face,    ///< The interior of the triangle (contact normal = ± the face normal).
  edge,    ///< An edge, between its end points.
  vertex,  ///< A corner.
};

/// Lower-case protocol name of a feature.
[[nodiscard]] constexpr const char* to_string(MeshFeature f) {
  return f == MeshFeature::face ? "face" : f == MeshFeature::edge ? "edge" : "vertex";
}

/// Deepest tree any build produces: the fixed traversal stack holds this many nodes plus one.
inline constexpr int kMeshMaxDepth = 64;

/// Where a bin is split.
enum class MeshSplit {
  middle,  ///< Schroeder: halve the bin across its longest axis; triangles go by their centre.
  sah,     ///< Binned surface area heuristic (Wald 2007): 32 bins per axis over the triangles'
           ///< box centres, the cheapest expected cost (counting the blocks of four triangles a
           ///< leaf tests at once) wins. Slower to build, faster to query.
};

/// How the AABB tree of a mesh is built (Schroeder's tuning knobs).
struct MeshBuildOptions {
  MeshSplit split = MeshSplit::middle;  ///< Split rule of the bins.
  /// A bin holding this many triangles or fewer becomes a leaf (≥ 1).
  int leaf_size = 4;
  /// A bin this deep becomes a leaf whatever it holds (root depth 0; clamped to kMeshMaxDepth).
  int max_depth = kMeshMaxDepth;
};

template <class S>
struct MeshTree;  // src/mesh/bin_tree.hpp: the planes and the tree, private to the library
namespace detail {
struct MeshAccess;  // how the library reaches them
}  // namespace detail

/// A triangle mesh with its plane equations and AABB tree. Fill `vertices` and `triangles`, then
/// call `build_mesh`; after changing them (e.g. carving) call `build_mesh` again. What the build
/// derives is read through the functions below (the tree's layout is the library's own). Copies
/// share the built planes and tree, which nothing changes once built.
template <class S>
class TriangleMesh {
 public:
  std::vector<Vec3<S>> vertices;                     ///< Corner positions (world, length).
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< Corner indices a, b, c (front: counter-clockwise).

  // ---- derived by build_mesh (empty before it; describe the triangles of the last build) ----
  /// Unit front normal of each triangle (zero when degenerate).
  [[nodiscard]] std::span<const Vec3<S>> normals() const;
  /// Plane offset normal·a of each triangle (length).
  [[nodiscard]] std::span<const S> offsets() const;
  /// 1 for a triangle of zero area (never hit).
  [[nodiscard]] std::span<const std::uint8_t> degenerate() const;
  /// How many triangles the tree holds (the non-degenerate ones).
  [[nodiscard]] std::size_t packed_triangles() const;
  /// Depth of the tree's deepest leaf (root 0; at most kMeshMaxDepth).
  [[nodiscard]] int depth() const;
  /// Bins of the binary tree the build made (0 when no triangle can be hit).
  [[nodiscard]] std::size_t bin_count() const;
  /// The tree's root box (every triangle that can be hit lies inside); false when there is none.
  [[nodiscard]] bool bounds(Vec3<S>& lo, Vec3<S>& hi) const;

 private:
  friend struct detail::MeshAccess;
  std::shared_ptr<const MeshTree<S>> tree_;
};

/// Validates `mesh.vertices`/`triangles` (finite coordinates within Tolerances::max_magnitude,
/// indices in range), computes planes and degenerate flags, and builds the tree. Returns an empty
/// string on success, else the offending field ("triangles.3.1: index 9 out of range").
template <class S>
[[nodiscard]] std::string build_mesh(TriangleMesh<S>& mesh, const MeshBuildOptions& options = {});

/// Largest OBJ file `load_obj` reads: 32 MiB, the longest `impact query` line. At most about 4
/// million triangles (8 bytes per `f 1 2 3`), whose built mesh takes about 1 GB (a 64 MiB file of
/// them: 8.4 million triangles, 2.0 GB, 5.4 s); an OBJ of that size with
/// 6-decimal coordinates holds about 800,000.
inline constexpr std::uintmax_t kObjMaxFileBytes = std::uintmax_t{32} << 20;

/// Reads the vertices and faces of a Wavefront OBJ file (all objects, in file order; polygons are
/// fanned into triangles from their first corner), parsed by tinyobjloader from a copy in memory.
/// Strict: the path must name a regular file of at most kObjMaxFileBytes whose every statement is
/// OBJ (`v` and `f` read, the others skipped), with whole finite coordinates, integer face indices
/// and at least one face, which a pre-scan checks before tinyobjloader reads it. Returns an empty
/// string on success, else what is wrong (not a regular file, too large, malformed line, index out
/// of range, no faces), with a line number and never the file's text.
[[nodiscard]] std::string load_obj(const std::string& path, std::vector<Vec3<double>>& vertices,
                                   std::vector<std::array<std::uint32_t, 3>>& triangles);

/// The same mesh with scalar T (planes and tree rebuilt in T).
template <class T, class S>
[[nodiscard]] TriangleMesh<T> convert_mesh(const TriangleMesh<S>& mesh, const MeshBuildOptions& options = {});

// ---------------------------------------------------------------------------------------------
// Ray (particle) casts.

/// Options of `mesh_ray_cast`.
template <class S>
struct MeshRayOptions {
  S max_lambda = S(1);                   ///< The ray is origin + λ·direction, 0 ≤ λ ≤ max_lambda.
  BackFaces back_faces = BackFaces::ignore;  ///< Whether back-to-front crossings collide.
  bool brute_force = false;              ///< Test every triangle instead of walking the tree (oracle).
  /// Whether a hit's unit front normal is computed. false: MeshRayHit::normal stays zero, for
  /// rays that need only where and which triangle (sight lines, distances, picking): the normal's
  /// square root and division in double took about 10 ns of a 150 ns ray (bench/README.md,
  /// thirty-fourth session). level_ray_cast passes it on to its rooms; the ray batches
  /// (batch.hpp) then write zero normal rows.
  bool normal = true;
};

/// Result of `mesh_ray_cast`.
template <class S>
struct MeshRayHit {
  Status status = Status::invalid_input;  ///< hit, miss or invalid_input.
  S lambda = S(0);                         ///< Ray parameter of the first crossing (hit).
  Vec3<S> point{S(0), S(0), S(0)};         ///< origin + λ·direction (world; hit).
  Vec3<S> normal{S(0), S(0), S(0)};        ///< Unit front normal of the hit triangle (hit; zero without MeshRayOptions::normal).
  std::uint32_t triangle = 0;              ///< Index of the hit triangle (hit).
  std::string error;                       ///< Offending field (invalid_input).
};

/// First crossing of the ray with the mesh. The crossing test is watertight (Woop, Benthin and
/// Wald, "Watertight ray/triangle intersection", JCGT 2013): a ray through a shared edge or vertex
/// of a closed mesh hits one of the triangles there, never none; a ray in a triangle's plane misses it.
template <class S>
[[nodiscard]] MeshRayHit<S> mesh_ray_cast(const TriangleMesh<S>& mesh, const Ray<S>& ray,
                                          const MeshRayOptions<S>& options = {});

// ---------------------------------------------------------------------------------------------
// Sphere casts.

/// Options of `mesh_sphere_cast`.
template <class S>
struct MeshSphereOptions {
  /// Distance buffer (length, ≥ 0; Schroeder's "fudge"): a hit's time is moved back so the sphere
  /// keeps this distance from the plane of the hit triangle: toi = t − buffer / |path·n|, ≥ 0.
  S buffer = S(0);
  /// ignore: a triangle counts only while the sphere's centre is on its front side (at t = 0 for
  /// an initial overlap, at contact for a hit).
  BackFaces back_faces = BackFaces::ignore;
  bool brute_force = false;  ///< Test every triangle instead of walking the tree (oracle).
  S max_toi = S(1);          ///< Only contacts at t ≤ max_toi count (the path is still center..center+path).
};

/// Result of `mesh_sphere_cast` (and `mesh_shape_cast`, without `feature`).
template <class S>
struct MeshCastHit {
  /// hit, miss, initially_overlapping (touching or overlapping a counted triangle at t = 0:
  /// toi = 0), max_iterations (shape casts only: toi a lower bound), invalid_input.
  Status status = Status::invalid_input;
  S toi = S(0);                        ///< Time of impact in [0, 1], after the buffer (hit).
  S contact_time = S(0);               ///< Time of first contact, before the buffer (hit).
  Vec3<S> point{S(0), S(0), S(0)};     ///< Contact point on the mesh (world; hit, overlap).
  Vec3<S> normal{S(0), S(0), S(0)};    ///< Unit normal at the point, toward the body (hit, overlap).
  std::uint32_t triangle = 0;          ///< Triangle touched (hit, overlap).
  MeshFeature feature = MeshFeature::face;  ///< Feature touched (sphere casts; hit, overlap).
  std::uint32_t sphere = 0;            ///< Which sphere of a collection touched (collections).
  std::string error;                   ///< Offending field (invalid_input).
};

/// Casts the sphere of `radius` whose centre moves from `center` to `center + path` over t ∈ [0, 1].
template <class S>
[[nodiscard]] MeshCastHit<S> mesh_sphere_cast(const TriangleMesh<S>& mesh, const Vec3<S>& center, S radius,
                                              const Vec3<S>& path, const MeshSphereOptions<S>& options = {});

/// One sphere of a collection: "objects are collections of spheres" (Schroeder).
template <class S>
struct SphereInBody {
  Vec3<S> center{S(0), S(0), S(0)};  ///< Centre at t = 0 (world, length).
  S radius = S(0);                   ///< Radius (length, ≥ 0).
};

/// Casts a rigid collection of spheres moving together by `path`: the earliest answer over its
/// spheres (an overlap of any sphere wins); `sphere` says which one.
template <class S>
[[nodiscard]] MeshCastHit<S> mesh_spheres_cast(const TriangleMesh<S>& mesh, std::span<const SphereInBody<S>> spheres,
                                               const Vec3<S>& path, const MeshSphereOptions<S>& options = {});

// ---------------------------------------------------------------------------------------------
// Convex shape casts.

/// Options of `mesh_shape_cast`.
template <class S>
struct MeshShapeOptions {
  S target_distance = S(0);  ///< Stop when the shape is this far from the mesh (length, ≥ 0).
  /// ignore: a triangle counts only while the shape's local origin is on its front side (at t = 0
  /// for an initial overlap, at contact for a hit), as for the sphere's centre.
  BackFaces back_faces = BackFaces::ignore;
  S tolerance = Tolerances<S>::cast_tolerance;  ///< Of the per-triangle shape_cast (length).
  bool brute_force = false;  ///< Test every triangle instead of walking the tree (oracle).
};

/// Casts a convex shape at `pose` moving by t·velocity, t ∈ [0, 1], against the mesh: the linear
/// shape_cast against every triangle the tree reaches (boxes grown by the shape's extent). A
/// sphere or point is the exact sphere cast of radius + target_distance (with its `feature`).
template <class S>
[[nodiscard]] MeshCastHit<S> mesh_shape_cast(const TriangleMesh<S>& mesh, const Shape<S>& shape, const Pose<S>& pose,
                                             const Vec3<S>& velocity, const MeshShapeOptions<S>& options = {});

}  // namespace impact
