// impact benchmarks — world_peers.hpp: the plain-struct boundary between the world-step benchmark
// (world_bench.cpp, world_stats.cpp) and Bullet's side of it (peers_bullet_world.cpp, compiled
// with the peers' baseline flags). Only doubles, floats and ints cross it.
#pragma once

#include "mesh_peers.hpp"
#include "peers.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace impact_bench {

/// One convex part of a body, at a pose in the body's frame.
struct WorldPartDesc {
  ShapeDesc shape;
  PoseDesc pose;
};

/// A body: one convex part at the identity (a convex body), several parts (a compound), or the
/// scene's static mesh (`is_mesh`; its triangles are WorldSceneDesc::mesh, at the identity).
struct WorldBodyDesc {
  std::vector<WorldPartDesc> parts;
  bool is_mesh = false;
  bool moving = true;      ///< Has a motion in every step (a static body never moves).
  double ccd_radius = 0;   ///< Bullet's swept sphere: the inscribed radius of the part at the origin.
};

/// A scene: bodies, at most one static mesh (at the identity), and the motions of every step.
/// steps[k][i] is body i's motion over step k (t ∈ [0, 1]): its pose at t = 0 and constant linear and
/// angular velocity; a static body's entry has zero velocities and its fixed pose.
struct WorldSceneDesc {
  std::string name;
  std::vector<WorldBodyDesc> bodies;
  MeshDesc mesh;
  int mesh_body = -1;  ///< Index of the mesh body, or −1.
  std::vector<std::vector<MotionDesc>> steps;
};

/// One body pair's first contact in a step, as a peer answers it (a < b, body indices).
struct WorldPairHit {
  int a = 0;
  int b = 0;
  double toi = 0;
};

/// What a peer did in one step.
struct WorldPeerStep {
  std::vector<WorldPairHit> hits;  ///< Body pairs with a contact, each once.
  std::size_t pairs = 0;           ///< Body pairs the broad phase handed on (or sweeps run).
  std::size_t toi_calls = 0;       ///< Calls into Bullet's TOI / sweep.
  std::size_t gave_up = 0;         ///< btContinuousConvexCollision's reportFailure calls (answered "no impact").
  double broad_seconds = 0;
  double narrow_seconds = 0;
};

/// Bullet (float btScalar in Debian's default build) on a world scene:
/// - continuous: a btDbvtBroadphase holding one proxy per body, moved each step to the body's
///   swept box (btConvexShape::calculateTemporalAabb / btCollisionShape::calculateTemporalAabb:
///   the box at t = 0 grown by the linear motion and by the angular motion disc times the turn);
///   then, on every overlapping pair, btContinuousConvexCollision (conservative advancement with
///   GJK + EPA, margins 0) on each pair of convex parts whose own swept boxes overlap, and on each
///   part against every triangle btBvhTriangleMeshShape::processAllTriangles finds in the part's
///   swept box (btTriangleShape, margin 0); the earliest time per body pair. Bullet rebuilds a
///   motion from two transforms and clamps a turn at 45° per interval, so the step is cut into the
///   fewest equal sub-intervals in which no body of the pair turns more than 0.24π (as
///   BulletToiPeer does) and tried in order until one hits.
/// - swept_sphere: what btDiscreteDynamicsWorld's CCD does (integrateTransforms): a
///   btCollisionWorld holding every body at its pose at t = 0; for each moving body, a
///   btSphereShape of its ccd radius swept by convexSweepTest from its position at t = 0 to its
///   position at t = 1 (no rotation), hits on itself and hits whose normal does not oppose the
///   motion skipped (btClosestNotMeConvexResultCallback's rules); the closest hit is the body's
///   one contact of the step. Every moving body is swept (ccd motion threshold 0).
class BulletWorldPeer {
 public:
  explicit BulletWorldPeer(const WorldSceneDesc& scene);
  ~BulletWorldPeer();
  BulletWorldPeer(const BulletWorldPeer&) = delete;
  BulletWorldPeer& operator=(const BulletWorldPeer&) = delete;
  void continuous(std::size_t step, WorldPeerStep& out);
  void swept_sphere(std::size_t step, WorldPeerStep& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace impact_bench
