// impact — world.hpp: continuous collision of many moving bodies in one pass.
//
// A `World` is a set of bodies, each a convex shape, a compound of convex parts, or a triangle
// mesh, with a pose. A step gives some bodies a rigid motion over t ∈ [0, 1] (the `Motion` of
// toi.hpp: linear and angular velocity, several turns allowed) and answers the first contact of
// every pair of bodies that comes within `target_distance`, with the contract of
// `time_of_impact`: never later than the true first contact, no contact missed under rotation.
//
// How a step works (docs/architecture.md, "How a world step flows"):
//  1. Swept bounds that provably contain each body over the whole step. Every point of a body is
//     within R (its bounding radius about its frame origin) of the origin, and the origin moves
//     on a straight line, so the body stays inside the capsule of that line with radius R, however
//     fast it turns. Nothing is sampled.
//  2. Broad phase: a box tree (or sweep-and-prune) on the boxes of those capsules, then the exact
//     test that two such spheres, moving together in time, come within the gap. Pairs of two
//     bodies at rest, two meshes, or a category/mask mismatch are never tested.
//     A mesh's triangles are culled (through a box tree in the mesh's frame) and tested by
//     their planes as well.
//  3. Second level: a compound's parts and a mesh's triangles get their own swept spheres (a
//     part's centre follows the chord of its arc, off it by at most ρ·θ²/8 for a turn of θ);
//     pieces whose spheres never meet are dropped, the others sorted by the first time they can.
//  4. Narrow phase: `time_of_impact` on each surviving piece pair in that order; a pair whose
//     spheres meet only after the best time found so far cannot beat it and is not run. Body
//     pairs run in parallel (oneTBB), each into its own slot: the same events for any thread count.
// Events are sorted by toi, then the two IDs in byte order; the answer does not depend on the
// order in which bodies were added.
#pragma once

#include <impact/math.hpp>
#include <impact/mesh.hpp>
#include <impact/shapes.hpp>
#include <impact/status.hpp>
#include <impact/toi.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace impact {

/// One convex part of a compound body.
template <class S>
struct CompoundPart {
  Shape<S> shape;  ///< The part, in its own frame.
  Pose<S> pose;    ///< Its placement in the body's frame.
};

/// What a body is made of.
enum class BodyKind {
  convex,    ///< One convex shape.
  compound,  ///< Convex parts at poses in the body's frame.
  mesh,      ///< A triangle mesh (each triangle a thin solid); never tested against another mesh.
};

/// A body to add to a world. Build one with `convex`, `compound` or `triangle_mesh`.
template <class S>
struct WorldBody {
  std::string id;                               ///< Non-empty, unique in its world.
  BodyKind kind = BodyKind::convex;             ///< Which of the next three fields holds it.
  Shape<S> shape;                               ///< kind == convex: the shape (body frame).
  std::vector<CompoundPart<S>> parts;           ///< kind == compound: at least one part.
  std::shared_ptr<const TriangleMesh<S>> mesh;  ///< kind == mesh: a mesh built by `build_mesh` (body frame).
  Pose<S> pose;                                 ///< The body's pose in the world.
  /// Bodies A and B are tested only when A.category & B.mask and B.category & A.mask are both
  /// non-zero.
  std::uint32_t category = 1;
  std::uint32_t mask = 0xffffffffu;  ///< See `category`.

  /// A convex body.
  static WorldBody convex_body(std::string id, Shape<S> shape, const Pose<S>& pose = {}) {
    WorldBody b;
    b.id = std::move(id);
    b.kind = BodyKind::convex;
    b.shape = std::move(shape);
    b.pose = pose;
    return b;
  }
  /// A compound body.
  static WorldBody compound_body(std::string id, std::vector<CompoundPart<S>> parts, const Pose<S>& pose = {}) {
    WorldBody b;
    b.id = std::move(id);
    b.kind = BodyKind::compound;
    b.parts = std::move(parts);
    b.pose = pose;
    return b;
  }
  /// A mesh body (static or moving).
  static WorldBody mesh_body(std::string id, std::shared_ptr<const TriangleMesh<S>> mesh, const Pose<S>& pose = {}) {
    WorldBody b;
    b.id = std::move(id);
    b.kind = BodyKind::mesh;
    b.mesh = std::move(mesh);
    b.pose = pose;
    return b;
  }
};

/// A body's motion in one step.
template <class S>
struct BodyMotion {
  std::string body;  ///< The body's ID.
  /// The motion; `motion.pose` is the body's pose at t = 0 and replaces the stored one, unless
  /// `use_stored_pose`.
  Motion<S> motion;
  bool use_stored_pose = false;  ///< Start from the stored pose (motion.pose is ignored).
};

/// What a step reports.
enum class WorldReport {
  pairs,   ///< One event per pair of bodies that comes within the target, at its first time.
  bodies,  ///< For each body, its earliest event (ties: lower other ID); shared events once.
};

/// How the broad phase finds the pairs whose swept boxes overlap (the same pairs either way).
enum class BroadPhase {
  box_tree,         ///< A box tree over the swept boxes, built each step; each mover queries it.
  sweep_and_prune,  ///< Sort along the axis of widest spread and sweep (fast when boxes are short).
};

/// Options of `World::step`.
template <class S>
struct WorldStepOptions {
  WorldReport report = WorldReport::pairs;  ///< Which events.
  S target_distance = S(0);                 ///< Contact distance (length, ≥ 0).
  /// The distance at a hit's toi is within this of the target (length, > 0). Each piece pair runs
  /// with at least what its precision can honour: 64 ulps of the pair's coordinates and 1e-2 of
  /// the default cast tolerance relative to its size (as the `time_of_impact` query does).
  S tolerance = Tolerances<S>::cast_tolerance;
  ToiMethod method = ToiMethod::extrusion_brent;  ///< Of every piece pair's `time_of_impact`.
  BroadPhase broad_phase = BroadPhase::box_tree;  ///< How body pairs are found.
  int max_iterations = 4096;                      ///< Of every piece pair's `time_of_impact`.
  /// Skip a body pair's piece pairs whose swept spheres meet only after the best toi found so far
  /// (they cannot beat it), and search the others only up to it (ToiOptions::max_toi): the same
  /// contacts, each time within the tolerance. False runs every piece pair the culling keeps over
  /// the whole step (for tests: each event is then its pieces' own time_of_impact, bit for bit).
  bool prune_by_best = true;
  /// Threads of the narrow phase (oneTBB): 0 for every core, 1 for the calling thread only. The
  /// events are the same, bit for bit, for any count (each pair's answer has its own slot).
  int threads = 0;
};

/// The first contact of two bodies in a step.
template <class S>
struct WorldEvent {
  std::string a;  ///< Lower ID of the pair (byte order).
  std::string b;  ///< Higher ID.
  /// hit, initially_overlapping (within the target at t = 0: toi 0), max_iterations (toi a
  /// proven lower bound).
  Status status = Status::hit;
  S toi = S(0);                          ///< Time of the first contact, in [0, 1].
  Vec3<S> point_a{S(0), S(0), S(0)};     ///< Contact point on a at toi (world; hit).
  Vec3<S> point_b{S(0), S(0), S(0)};     ///< Contact point on b at toi (world; hit).
  Vec3<S> normal{S(0), S(0), S(0)};      ///< Unit normal from a toward b at toi (hit).
  int part_a = -1;                       ///< Touching part of a, when a is a compound; else −1.
  int part_b = -1;                       ///< Touching part of b, when b is a compound; else −1.
  std::int64_t triangle = -1;            ///< Touching triangle of the mesh body of the pair; else −1.
};

/// Figures of one step (for diagnosis; not part of the contract).
struct WorldStepStats {
  std::size_t pairs_tested = 0;      ///< Body pairs the broad phase handed to the narrow phase.
  std::size_t piece_pairs = 0;       ///< Part/triangle pairs whose swept spheres meet.
  std::size_t toi_calls = 0;         ///< `time_of_impact` calls made.
  double broad_seconds = 0;          ///< Swept bounds and sweep-and-prune.
  double narrow_seconds = 0;         ///< Piece culling and time_of_impact.
};

/// Result of `World::step`.
template <class S>
struct WorldStepResult {
  Status status = Status::invalid_input;  ///< hit (the step ran) or invalid_input (nothing changed).
  std::vector<WorldEvent<S>> events;      ///< Sorted by toi, then a, then b (byte order).
  WorldStepStats stats;                   ///< Figures.
  std::string error;                      ///< The offending field (invalid_input).
  [[nodiscard]] bool ok() const { return status == Status::hit; }
};

/// A set of bodies with poses, stepped together.
template <class S>
class World {
 public:
  World();
  ~World();
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  World(const World&);
  World& operator=(const World&);

  /// Removes the bodies `remove` names, then adds `add`, or changes nothing and returns what is
  /// wrong ("remove.0: no body 'x'", "add.2.shape.radius: negative", "add.1.body: ID 'y' exists").
  /// `add_path` names the added list in errors.
  [[nodiscard]] std::string edit(std::span<const std::string> remove, std::span<const WorldBody<S>> add,
                                 std::string_view add_path = "add");

  /// Moves the bodies `motions` names over t ∈ [0, 1] (the others stay) and returns the events.
  /// Afterwards each moved body's pose is its pose at t = 1. An invalid motion or option changes
  /// nothing (status invalid_input, `error` naming it: "motions.x.linear_velocity: not finite"),
  /// as does a stored pose an earlier step took outside the range of coordinates
  /// (Tolerances::max_magnitude) that this step would start from ("motions.x: the stored pose is
  /// out of range ...", "bodies.y: ..." for a body at rest): give it a motion with a pose, or
  /// remove it.
  [[nodiscard]] WorldStepResult<S> step(std::span<const BodyMotion<S>> motions, const WorldStepOptions<S>& options = {});

  /// Number of bodies.
  [[nodiscard]] std::size_t size() const;
  /// The IDs, in byte order.
  [[nodiscard]] std::vector<std::string> ids() const;
  /// The stored pose of a body, or nullptr when there is no such body.
  [[nodiscard]] const Pose<S>* pose(std::string_view id) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace impact
