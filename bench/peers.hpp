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

#include <array>
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

}  // namespace impact_bench
