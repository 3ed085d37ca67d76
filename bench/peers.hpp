// impact benchmarks — peers.hpp: the plain-struct boundary between the benchmark driver and the
// peer libraries (Bullet, FCL, libccd).
//
// The peers' glue lives in its own translation units (peers_bullet.cpp, peers_fcl.cpp,
// peers_ccd.cpp), compiled with baseline flags (-O2 -march=x86-64-v2): Debian's FCL is built for
// baseline x86-64 and passes Eigen types by value, so its callers must agree with it on Eigen's
// alignment. Nothing in this header uses Eigen or impact: only doubles and ints cross it.
//
// Each peer converts a whole scene to its own types once, in its constructor (outside every timed
// loop); a query then takes only the index of a case.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

namespace impact_bench {

/// Kinds of shapes the scenes use.
enum class ShapeKind { sphere, box, cylinder, hull };

/// A shape in its local frame, as plain numbers.
struct ShapeDesc {
  ShapeKind kind = ShapeKind::sphere;
  double radius = 0;                     ///< sphere, cylinder.
  double half_height = 0;                ///< cylinder (about z).
  std::array<double, 3> half_extents{};  ///< box.
  std::vector<std::array<double, 3>> vertices;  ///< hull: its extreme points.
  /// hull: faces as vertex-index polygons, counter-clockwise seen from outside.
  std::vector<std::vector<int>> faces;
};

/// A rigid placement: world = rotate(quat_wxyz) * local + position.
struct PoseDesc {
  std::array<double, 3> position{};
  std::array<double, 4> quat_wxyz{1, 0, 0, 0};
};

/// One query: shape `a` at `pose_a` against shape `b` at `pose_b` (indices into SceneDesc::shapes).
struct CaseDesc {
  int a = 0;
  int b = 0;
  PoseDesc pose_a;
  PoseDesc pose_b;
};

/// A set of cases over a shared pool of shapes.
struct SceneDesc {
  std::vector<ShapeDesc> shapes;
  std::vector<CaseDesc> cases;
};

/// A peer's answer to a distance or intersection query.
struct PeerAnswer {
  bool intersecting = false;  ///< The peer reports overlap (or no separated result).
  double distance = 0;        ///< Separation distance when !intersecting (length).
  int iterations = -1;        ///< GJK iterations when the peer exposes them, else −1.
};

/// Bullet: btGjkPairDetector + btVoronoiSimplexSolver, no penetration-depth solver, zero collision
/// margins on boxes, cylinders and hulls (a sphere keeps its radius as margin: Bullet models it as
/// a point grown by the margin, exactly as impact does). Bullet has no boolean GJK query.
class BulletPeer {
 public:
  explicit BulletPeer(const SceneDesc& scene);
  ~BulletPeer();
  BulletPeer(const BulletPeer&) = delete;
  BulletPeer& operator=(const BulletPeer&) = delete;
  /// Distance by btGjkPairDetector::getClosestPoints; no result or a distance ≤ 0 is "intersecting".
  [[nodiscard]] PeerAnswer distance(std::size_t i) const;
  /// "float" or "double": the btScalar this build links against.
  [[nodiscard]] static const char* scalar_name();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// FCL 0.7 through its public entry points fcl::distance / fcl::collide on CollisionGeometry +
/// Transform3 (no CollisionObject, no broadphase). `solver` picks the GJK implementation.
class FclPeer {
 public:
  enum class Solver { libccd, indep };
  FclPeer(const SceneDesc& scene, Solver solver);
  ~FclPeer();
  FclPeer(const FclPeer&) = delete;
  FclPeer& operator=(const FclPeer&) = delete;
  /// fcl::distance (unsigned): min_distance < 0 means intersecting.
  [[nodiscard]] PeerAnswer distance(std::size_t i) const;
  /// fcl::collide with one contact and no contact data requested.
  [[nodiscard]] PeerAnswer intersect(std::size_t i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// libccd 2.1: ccdGJKIntersect with our own support functions (world-frame support through the
/// shape's rotation matrix, as FCL does; hulls are scanned whole). libccd has no GJK distance.
class CcdPeer {
 public:
  explicit CcdPeer(const SceneDesc& scene);
  ~CcdPeer();
  CcdPeer(const CcdPeer&) = delete;
  CcdPeer& operator=(const CcdPeer&) = delete;
  [[nodiscard]] PeerAnswer intersect(std::size_t i) const;
  /// ccdMPRIntersect (Minkowski portal refinement; centres are the shapes' origins).
  [[nodiscard]] PeerAnswer intersect_mpr(std::size_t i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- time of impact (bench_toi.cpp) ----

/// A rigid motion over t ∈ [0, 1], as impact::Motion: the pose at t = 0, the velocity of the local
/// origin (length per unit t) and the world angular velocity about the origin (rad per unit t):
/// rotation(t) = exp(t·ω)·rotation(0).
struct MotionDesc {
  PoseDesc pose;
  std::array<double, 3> linear_velocity{};
  std::array<double, 3> angular_velocity{};
};

/// The pose of a MotionDesc at time t (plain doubles, for the peers' constructors).
inline PoseDesc pose_at(const MotionDesc& m, double t) {
  PoseDesc p;
  for (int k = 0; k < 3; ++k) p.position[k] = m.pose.position[k] + t * m.linear_velocity[k];
  const auto& w = m.angular_velocity;
  const double n = std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  if (n == 0) {
    p.quat_wxyz = m.pose.quat_wxyz;
    return p;
  }
  const double h = 0.5 * t * n, s = std::sin(h) / n;
  const double a0 = std::cos(h), a1 = s * w[0], a2 = s * w[1], a3 = s * w[2];  // exp(tω), w first
  const auto& q = m.pose.quat_wxyz;
  double r[4] = {a0 * q[0] - a1 * q[1] - a2 * q[2] - a3 * q[3], a0 * q[1] + a1 * q[0] + a2 * q[3] - a3 * q[2],
                 a0 * q[2] - a1 * q[3] + a2 * q[0] + a3 * q[1], a0 * q[3] + a1 * q[2] - a2 * q[1] + a3 * q[0]};
  const double rn = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
  for (int k = 0; k < 4; ++k) p.quat_wxyz[k] = r[k] / rn;
  return p;
}

/// Sub-intervals needed so that neither body turns more than max_step_angle in one (1 if 0).
inline int substeps(const MotionDesc& a, const MotionDesc& b, double max_step_angle) {
  if (max_step_angle <= 0) return 1;
  auto norm = [](const std::array<double, 3>& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
  const double w = std::max(norm(a.angular_velocity), norm(b.angular_velocity));
  return std::max(1, static_cast<int>(std::ceil(w / max_step_angle)));
}

struct ToiCaseDesc {
  int a = 0;
  int b = 0;
  MotionDesc ma, mb;
};

struct ToiSceneDesc {
  std::vector<ShapeDesc> shapes;
  std::vector<ToiCaseDesc> cases;
};

/// A peer's answer to a time-of-impact query.
struct PeerToi {
  bool hit = false;
  double toi = 1;     ///< Time of impact in [0, 1] (hit).
  int calls = 0;      ///< Calls into the peer (sub-intervals tried).
  bool capped = false;  ///< impact: gave up at its iteration cap (toi then a bound; counted as a hit).
  int gave_up = 0;      ///< Bullet: sub-intervals it gave up on (reportFailure), each answered "no impact".
  PoseDesc pose_a;    ///< A's pose at toi on the peer's own path (hit).
  PoseDesc pose_b;    ///< B's pose at toi (hit).
};

/// Bullet btContinuousConvexCollision (conservative advancement on btGjkPairDetector with
/// btVoronoiSimplexSolver and btGjkEpaPenetrationDepthSolver), margins 0 on boxes and hulls.
/// Bullet takes the motion as two transforms and rebuilds the velocities from them
/// (btTransformUtil::calculateVelocity), then clamps rotation at 45° per interval
/// (integrateTransform's ANGULAR_MOTION_THRESHOLD): a larger turn follows a different path. So
/// the interval is cut into k equal sub-intervals, k the fewest with each body turning at most
/// `max_step_angle` in each, and Bullet is called on them in turn until one reports a hit.
/// max_step_angle = 0 means one call on the end transforms (what a caller who ignores the clamp gets).
class BulletToiPeer {
 public:
  BulletToiPeer(const ToiSceneDesc& scene, double max_step_angle);
  ~BulletToiPeer();
  BulletToiPeer(const BulletToiPeer&) = delete;
  BulletToiPeer& operator=(const BulletToiPeer&) = delete;
  [[nodiscard]] PeerToi query(std::size_t i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// FCL 0.7 fcl::continuousCollide with ccd_solver_type = CCDC_CONSERVATIVE_ADVANCEMENT (GJK solver
/// GST_LIBCCD) on motions built in the constructor: InterpMotion (rotation about the reference
/// point O = the local origin, built with the (R1, T1, R2, T2, O) constructor, the only one that
/// sets both O and the velocities in 0.7) or ScrewMotion. Both are built from two transforms and
/// take the rotation between them by its angle-axis (angle ≤ π), so the interval is cut into
/// sub-intervals of at most `max_step_angle` as for Bullet. InterpMotion then follows impact's
/// motion exactly; ScrewMotion follows a screw through the same poses (a different path unless
/// the velocity is parallel to the spin axis).
class FclToiPeer {
 public:
  enum class Kind { interp, screw };
  FclToiPeer(const ToiSceneDesc& scene, Kind kind, double max_step_angle);
  ~FclToiPeer();
  FclToiPeer(const FclToiPeer&) = delete;
  FclToiPeer& operator=(const FclToiPeer&) = delete;
  [[nodiscard]] PeerToi query(std::size_t i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- linear casts (bench_cast.cpp) ----

/// One linear cast: A at pose_a moving by t·velocity_a, B at pose_b moving by t·velocity_b,
/// t ∈ [0, 1], rotations fixed.
struct CastCaseDesc {
  int a = 0;
  int b = 0;
  PoseDesc pose_a;
  PoseDesc pose_b;
  std::array<double, 3> velocity_a{};
  std::array<double, 3> velocity_b{};
};

struct CastSceneDesc {
  std::vector<ShapeDesc> shapes;
  std::vector<CastCaseDesc> cases;
};

/// A peer's answer to a linear cast (or a ray cast, with toi = the ray parameter).
struct PeerCast {
  bool hit = false;
  double toi = 1;                     ///< Fraction of the motion at the hit (hit).
  std::array<double, 3> normal{};     ///< Unit normal from A toward B (ray casts: outward normal of the shape), if the peer gives one.
  std::array<double, 3> point{};      ///< A contact point (world), if the peer gives one.
  bool beyond = false;  ///< Bullet's subsimplex caster returned true with a fraction > 1 (counted as a miss).
  int failures = 0;     ///< Bullet: reportFailure calls (btContinuousConvexCollision gave up).
};

/// Bullet's linear casters (float btScalar in Debian's default build), each with a fresh
/// btVoronoiSimplexSolver per query; margins 0 on boxes, cylinders and hulls (as BulletPeer).
/// - subsimplex: btSubsimplexConvexCast (GJK ray cast à la van den Bergen, the caster of
///   btCollisionWorld::rayTest and convexSweepTest); true with a fraction > 1 is read as a miss.
/// - gjk: btGjkConvexCast (conservative advancement on btGjkPairDetector, no penetration solver).
/// - continuous: btContinuousConvexCollision (conservative advancement with
///   btGjkEpaPenetrationDepthSolver), the rotations of the two end transforms equal (zero angular
///   velocity).
class BulletCastPeer {
 public:
  enum class Caster { subsimplex, gjk, continuous };
  BulletCastPeer(const CastSceneDesc& scene, Caster caster);
  ~BulletCastPeer();
  BulletCastPeer(const BulletCastPeer&) = delete;
  BulletCastPeer& operator=(const BulletCastPeer&) = delete;
  [[nodiscard]] PeerCast query(std::size_t i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// FCL 0.7 fcl::continuousCollide(geometry, motion, geometry, motion, request, result) with
/// TranslationMotion objects (built once, reset with integrate(0) before each query),
/// ccd_solver_type = CCDC_CONSERVATIVE_ADVANCEMENT, gjk_solver_type = GST_LIBCCD,
/// ccd_motion_type = CCDM_TRANS. FCL gives the time and the poses, no points or normal.
class FclCastPeer {
 public:
  explicit FclCastPeer(const CastSceneDesc& scene);
  ~FclCastPeer();
  FclCastPeer(const FclCastPeer&) = delete;
  FclCastPeer& operator=(const FclCastPeer&) = delete;
  [[nodiscard]] PeerCast query(std::size_t i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---- ray casts (bench_cast.cpp) ----

/// Shape kinds of the ray-cast benchmarks (a superset of ShapeKind, kept apart so the other peers'
/// switches stay exhaustive). The numbers a kind uses are those of ShapeDesc: radius and
/// half_height (sphere, capsule, cylinder, cone: about z, the cone's apex at +z), half_extents
/// (box), vertices (hull). ShapeDesc::kind is not read.
enum class RayShapeKind { sphere, box, capsule, cylinder, cone, hull };

/// A ray origin + λ·direction, 0 ≤ λ ≤ 1 (world), against shape `shape` at `pose`.
struct RayCaseDesc {
  int shape = 0;
  PoseDesc pose;
  std::array<double, 3> origin{};
  std::array<double, 3> direction{};
};

struct RaySceneDesc {
  RayShapeKind kind = RayShapeKind::sphere;
  std::vector<ShapeDesc> shapes;
  std::vector<RayCaseDesc> cases;
};

/// Bullet's ray casts against one convex shape: a zero-radius btSphereShape (margin 0) cast from
/// the origin to origin + direction by btSubsimplexConvexCast or btGjkConvexCast against the
/// static shape, as btCollisionWorld::rayTestSingle does; `aabb` (boxes only): btRayAabb on the
/// ray taken into the box's frame, Bullet's slab test.
class BulletRayPeer {
 public:
  enum class Caster { subsimplex, gjk, aabb };
  BulletRayPeer(const RaySceneDesc& scene, Caster caster);
  ~BulletRayPeer();
  BulletRayPeer(const BulletRayPeer&) = delete;
  BulletRayPeer& operator=(const BulletRayPeer&) = delete;
  [[nodiscard]] PeerCast query(std::size_t i) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace impact_bench
