// impact benchmarks — peers_bullet.cpp: Bullet's GJK distance on the shared scenes.
//
// Configuration, and why:
// - btGjkPairDetector + btVoronoiSimplexSolver: Bullet's GJK distance, the narrow phase behind
//   its convex–convex algorithm. No penetration-depth solver (nullptr): impact's `distance`
//   reports overlap without a depth, so EPA would be extra work Bullet does and impact does not.
//   Without it, Bullet gives no result for an overlapping pair (we read that as "intersecting").
// - Collision margins set to zero on boxes, cylinders and hulls (setMargin(0) keeps the shapes'
//   true size: Bullet moves the margin back into the implicit dimensions), so both libraries
//   measure the same solids. A sphere keeps its radius as the margin: Bullet runs GJK on its
//   centre point and subtracts the radius at the end, which is exactly what impact does.
// - A fresh detector per query (its cached separating axis starts at the default), so no query
//   is warm-started by the previous case; impact runs cold too. The detector and the output
//   collector live on the stack: no allocation.
// - Shapes and transforms are built once, outside the timed loop.
// - btScalar is float in Debian's default libBulletCollision; IMPACT_BENCH_BULLET_DOUBLE links the
//   -float64 build instead (see bench/CMakeLists.txt).
//
// Bullet has no boolean GJK query (btGjkPairDetector always runs to the closest points), so it
// is not benchmarked under intersect/.
#include "peers.hpp"

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/NarrowPhaseCollision/btContinuousConvexCollision.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <LinearMath/btTransformUtil.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include <stdexcept>

namespace impact_bench {

struct BulletPeer::Impl {
  std::vector<std::unique_ptr<btConvexShape>> shapes;
  struct Item {
    const btConvexShape* a;
    const btConvexShape* b;
    btTransform ta, tb;
  };
  btAlignedObjectArray<Item> items;  // btTransform is 16-byte aligned
};

namespace {

btTransform to_bt(const PoseDesc& p) {
  const auto& q = p.quat_wxyz;
  return btTransform(btQuaternion(btScalar(q[1]), btScalar(q[2]), btScalar(q[3]), btScalar(q[0])),
                     btVector3(btScalar(p.position[0]), btScalar(p.position[1]), btScalar(p.position[2])));
}

std::unique_ptr<btConvexShape> to_bt(const ShapeDesc& s) {
  switch (s.kind) {
    case ShapeKind::sphere:
      return std::make_unique<btSphereShape>(btScalar(s.radius));  // margin = radius (a grown point)
    case ShapeKind::box: {
      auto b = std::make_unique<btBoxShape>(
          btVector3(btScalar(s.half_extents[0]), btScalar(s.half_extents[1]), btScalar(s.half_extents[2])));
      b->setMargin(0);
      return b;
    }
    case ShapeKind::cylinder: {
      auto c = std::make_unique<btCylinderShapeZ>(
          btVector3(btScalar(s.radius), btScalar(s.radius), btScalar(s.half_height)));
      c->setMargin(0);
      return c;
    }
    case ShapeKind::hull: {
      auto h = std::make_unique<btConvexHullShape>();
      for (const auto& v : s.vertices) h->addPoint(btVector3(btScalar(v[0]), btScalar(v[1]), btScalar(v[2])), false);
      h->recalcLocalAabb();
      h->setMargin(0);
      return h;
    }
  }
  throw std::runtime_error("bench: bullet: unknown shape");
}

}  // namespace

BulletPeer::BulletPeer(const SceneDesc& scene) : impl_(std::make_unique<Impl>()) {
  for (const auto& s : scene.shapes) impl_->shapes.push_back(to_bt(s));
  for (const auto& c : scene.cases)
    impl_->items.push_back({impl_->shapes[c.a].get(), impl_->shapes[c.b].get(), to_bt(c.pose_a), to_bt(c.pose_b)});
}

BulletPeer::~BulletPeer() = default;

PeerAnswer BulletPeer::distance(std::size_t i) const {
  const Impl::Item& it = impl_->items[static_cast<int>(i)];
  btVoronoiSimplexSolver simplex;
  btGjkPairDetector gjk(it.a, it.b, &simplex, nullptr);
  btGjkPairDetector::ClosestPointInput input;
  input.m_transformA = it.ta;
  input.m_transformB = it.tb;
  btPointCollector out;
  gjk.getClosestPoints(input, out, nullptr);
  PeerAnswer r;
  r.intersecting = !out.m_hasResult || out.m_distance <= 0;
  r.distance = out.m_hasResult ? double(out.m_distance) : 0.0;
  r.iterations = gjk.m_curIter;
  return r;
}

const char* BulletPeer::scalar_name() { return sizeof(btScalar) == 8 ? "double" : "float"; }

// ---- time of impact: btContinuousConvexCollision ----
//
// Configuration, and why:
// - btContinuousConvexCollision is Bullet's conservative advancement for convex pairs: GJK distance,
//   advance by dist / (|v_rel·n| + |ωA|·rA + |ωB|·rB) with r the shapes' angular motion disc, stop
//   when dist ≤ 0.001 (absolute, hard-coded), give up after 64 steps. It runs on
//   btGjkPairDetector with btVoronoiSimplexSolver and btGjkEpaPenetrationDepthSolver: without a
//   penetration solver, a step that lands in overlap gives no GJK result and Bullet reports "no
//   impact".
// - Margins 0 on boxes and hulls (the true solids, as in the distance benchmarks).
// - Bullet rebuilds the motion from two transforms (btTransformUtil::calculateVelocity: the
//   shortest rotation between them) and integrateTransform clamps the turn at 45° per interval,
//   so a faster spin follows another path. The interval is cut into the fewest equal sub-intervals
//   in which no body turns more than max_step_angle (0.24π); their transforms come from the exact
//   motion and are built here, outside the timed loop. Bullet is called on each in turn, and a
//   fresh btContinuousConvexCollision, simplex and EPA solver (on the stack) serve each query.

struct BulletToiPeer::Impl {
  std::vector<std::unique_ptr<btConvexShape>> shapes;
  struct Item {
    const btConvexShape* a;
    const btConvexShape* b;
    int first;  // index of the case's first transform in `poses` (k + 1 for A, then k + 1 for B)
    int k;      // sub-intervals
  };
  std::vector<Item> items;
  btAlignedObjectArray<btTransform> poses;
};

BulletToiPeer::BulletToiPeer(const ToiSceneDesc& scene, double max_step_angle) : impl_(std::make_unique<Impl>()) {
  for (const auto& s : scene.shapes) impl_->shapes.push_back(to_bt(s));
  for (const auto& c : scene.cases) {
    const int k = substeps(c.ma, c.mb, max_step_angle);
    impl_->items.push_back({impl_->shapes[c.a].get(), impl_->shapes[c.b].get(), impl_->poses.size(), k});
    for (const MotionDesc* m : {&c.ma, &c.mb})
      for (int j = 0; j <= k; ++j) impl_->poses.push_back(to_bt(pose_at(*m, double(j) / k)));
  }
}

BulletToiPeer::~BulletToiPeer() = default;

namespace {
/// Bullet's CastResult, counting reportFailure calls: −1 (GJK found no result, i.e. overlap with no
/// penetration solver) and −2 (64 advancement steps without reaching 0.001): both return "no impact".
struct CountingResult : btConvexCast::CastResult {
  int failures = 0;
  void reportFailure(int, int) override { ++failures; }
};

PoseDesc from_bt(const btTransform& t) {
  const btQuaternion q = t.getRotation();
  const btVector3& p = t.getOrigin();
  return {{double(p.x()), double(p.y()), double(p.z())}, {double(q.w()), double(q.x()), double(q.y()), double(q.z())}};
}
}  // namespace

PeerToi BulletToiPeer::query(std::size_t i) const {
  const Impl::Item& it = impl_->items[i];
  const btTransform* ta = &impl_->poses[it.first];
  const btTransform* tb = ta + it.k + 1;
  btVoronoiSimplexSolver simplex;
  btGjkEpaPenetrationDepthSolver epa;
  btContinuousConvexCollision ccd(it.a, it.b, &simplex, &epa);
  PeerToi r;
  for (int j = 0; j < it.k; ++j) {
    CountingResult res;
    ++r.calls;
    const bool hit = ccd.calcTimeOfImpact(ta[j], ta[j + 1], tb[j], tb[j + 1], res);
    r.gave_up += res.failures;
    if (hit) {
      r.hit = true;
      const double lambda = double(res.m_fraction);
      r.toi = (j + lambda) / it.k;
      // The poses at the hit on Bullet's own path (its velocities, its integration).
      btVector3 lin, ang;
      btTransform pa, pb;
      btTransformUtil::calculateVelocity(ta[j], ta[j + 1], btScalar(1), lin, ang);
      btTransformUtil::integrateTransform(ta[j], lin, ang, res.m_fraction, pa);
      btTransformUtil::calculateVelocity(tb[j], tb[j + 1], btScalar(1), lin, ang);
      btTransformUtil::integrateTransform(tb[j], lin, ang, res.m_fraction, pb);
      r.pose_a = from_bt(pa);
      r.pose_b = from_bt(pb);
      break;
    }
  }
  return r;
}

}  // namespace impact_bench
