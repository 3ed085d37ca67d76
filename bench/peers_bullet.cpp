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
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConeShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkConvexCast.h>
#include <BulletCollision/NarrowPhaseCollision/btSubSimplexConvexCast.h>
#include <LinearMath/btAabbUtil2.h>

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

// ---- linear casts: btSubsimplexConvexCast, btGjkConvexCast, btContinuousConvexCollision ----
//
// Configuration, and why:
// - The shapes are those of the distance benchmarks (margins 0 on boxes, cylinders, hulls).
// - Each caster is called once per query on (fromA, toA, fromB, toB), built here outside the
//   timed loop: from = the pose at t = 0, to = the same rotation at position + velocity. A fresh
//   caster and btVoronoiSimplexSolver (and, for btContinuousConvexCollision, a
//   btGjkEpaPenetrationDepthSolver) on the stack serve each query, as in BulletToiPeer.
// - CastResult defaults: m_allowedPenetration 0, m_fraction BT_LARGE_FLOAT on entry, and the
//   subsimplex caster's own stopping rule m_subSimplexCastEpsilon = 1e-4 on the squared distance
//   (float build: it stops about 0.01 from contact) with at most 32 iterations — what
//   btCollisionWorld's convexSweepTest gets.
// - btSubsimplexConvexCast can return true with a fraction above 1 (it checks λ > 1 only at the
//   top of its loop): read as a miss (rayTestSingle does the same), flagged `beyond`.
// - Normals: every caster reports n pointing from B toward A (v = a − b of the CSO, or
//   btPointCollector's normal on B); the answer carries −n, from A toward B as impact does.

struct BulletCastPeer::Impl {
  std::vector<std::unique_ptr<btConvexShape>> shapes;
  struct Item {
    const btConvexShape* a;
    const btConvexShape* b;
    btTransform from_a, to_a, from_b, to_b;
  };
  btAlignedObjectArray<Item> items;
  Caster caster;
};

namespace {
btTransform moved(const PoseDesc& p, const std::array<double, 3>& v) {
  PoseDesc q = p;
  for (int k = 0; k < 3; ++k) q.position[k] += v[k];
  return to_bt(q);
}

void fill(PeerCast& r, const btConvexCast::CastResult& res, double sign) {
  r.toi = double(res.m_fraction);
  for (int k = 0; k < 3; ++k) {
    r.normal[k] = sign * double(res.m_normal[k]);
    r.point[k] = double(res.m_hitPoint[k]);
  }
}
}  // namespace

BulletCastPeer::BulletCastPeer(const CastSceneDesc& scene, Caster caster) : impl_(std::make_unique<Impl>()) {
  impl_->caster = caster;
  for (const auto& s : scene.shapes) impl_->shapes.push_back(to_bt(s));
  for (const auto& c : scene.cases)
    impl_->items.push_back({impl_->shapes[c.a].get(), impl_->shapes[c.b].get(), to_bt(c.pose_a), moved(c.pose_a, c.velocity_a),
                            to_bt(c.pose_b), moved(c.pose_b, c.velocity_b)});
}

BulletCastPeer::~BulletCastPeer() = default;

PeerCast BulletCastPeer::query(std::size_t i) const {
  const Impl::Item& it = impl_->items[static_cast<int>(i)];
  btVoronoiSimplexSolver simplex;
  PeerCast r;
  switch (impl_->caster) {
    case Caster::subsimplex: {
      btSubsimplexConvexCast cast(it.a, it.b, &simplex);
      btConvexCast::CastResult res;
      if (cast.calcTimeOfImpact(it.from_a, it.to_a, it.from_b, it.to_b, res)) {
        fill(r, res, -1);
        r.beyond = res.m_fraction > btScalar(1);
        r.hit = !r.beyond;
        if (r.beyond) r.toi = 1;
      }
      break;
    }
    case Caster::gjk: {
      btGjkConvexCast cast(it.a, it.b, &simplex);
      btConvexCast::CastResult res;
      if (cast.calcTimeOfImpact(it.from_a, it.to_a, it.from_b, it.to_b, res)) {
        fill(r, res, -1);
        r.hit = true;
      }
      break;
    }
    case Caster::continuous: {
      btGjkEpaPenetrationDepthSolver epa;
      btContinuousConvexCollision cast(it.a, it.b, &simplex, &epa);
      CountingResult res;
      if (cast.calcTimeOfImpact(it.from_a, it.to_a, it.from_b, it.to_b, res)) {
        fill(r, res, -1);
        r.hit = true;
      }
      r.failures = res.failures;
      break;
    }
  }
  return r;
}

// ---- ray casts: a point cast against a static convex shape ----
//
// As btCollisionWorld::rayTestSingle casts a ray against a convex shape: a btSphereShape of
// radius 0 (margin 0) moves from the ray's origin to origin + direction, identity rotation, and the
// target stays at its pose. The normal is the caster's v (from the shape toward the point): the
// outward normal. `aabb` is Bullet's slab test btRayAabb, for boxes only, on the ray taken into the
// box's frame (the transform is part of the query, as impact's is). Targets: margins 0 on box,
// cylinder, cone and hull; sphere and capsule keep their radius as margin (Bullet's own model).

struct BulletRayPeer::Impl {
  std::vector<std::unique_ptr<btConvexShape>> shapes;
  btSphereShape point{0};
  struct Item {
    const btConvexShape* shape;
    btTransform pose, from, to;
    btVector3 half_extents;
  };
  btAlignedObjectArray<Item> items;
  Caster caster;
};

namespace {
std::unique_ptr<btConvexShape> ray_target(RayShapeKind kind, const ShapeDesc& s) {
  switch (kind) {
    case RayShapeKind::sphere: return std::make_unique<btSphereShape>(btScalar(s.radius));
    case RayShapeKind::capsule:  // height = the core segment's length; margin = radius
      return std::make_unique<btCapsuleShapeZ>(btScalar(s.radius), btScalar(2 * s.half_height));
    case RayShapeKind::cone: {  // apex at +z, base at −z, like impact's Cone
      auto c = std::make_unique<btConeShapeZ>(btScalar(s.radius), btScalar(2 * s.half_height));
      c->setMargin(0);
      return c;
    }
    case RayShapeKind::box: {
      ShapeDesc d = s;
      d.kind = ShapeKind::box;
      return to_bt(d);
    }
    case RayShapeKind::cylinder: {
      ShapeDesc d = s;
      d.kind = ShapeKind::cylinder;
      return to_bt(d);
    }
    case RayShapeKind::hull: {
      ShapeDesc d = s;
      d.kind = ShapeKind::hull;
      return to_bt(d);
    }
  }
  throw std::runtime_error("bench: bullet: unknown ray shape");
}
}  // namespace

BulletRayPeer::BulletRayPeer(const RaySceneDesc& scene, Caster caster) : impl_(std::make_unique<Impl>()) {
  impl_->caster = caster;
  impl_->point.setMargin(0);
  if (caster == Caster::aabb && scene.kind != RayShapeKind::box) throw std::runtime_error("bench: btRayAabb is for boxes");
  for (const auto& s : scene.shapes) impl_->shapes.push_back(ray_target(scene.kind, s));
  for (const auto& c : scene.cases) {
    Impl::Item it;
    it.shape = impl_->shapes[c.shape].get();
    it.pose = to_bt(c.pose);
    const btVector3 o(btScalar(c.origin[0]), btScalar(c.origin[1]), btScalar(c.origin[2]));
    const btVector3 d(btScalar(c.direction[0]), btScalar(c.direction[1]), btScalar(c.direction[2]));
    it.from = btTransform(btQuaternion::getIdentity(), o);
    it.to = btTransform(btQuaternion::getIdentity(), o + d);
    const auto& h = scene.shapes[c.shape].half_extents;
    it.half_extents = btVector3(btScalar(h[0]), btScalar(h[1]), btScalar(h[2]));
    impl_->items.push_back(it);
  }
}

BulletRayPeer::~BulletRayPeer() = default;

PeerCast BulletRayPeer::query(std::size_t i) const {
  const Impl::Item& it = impl_->items[static_cast<int>(i)];
  PeerCast r;
  switch (impl_->caster) {
    case Caster::subsimplex: {
      btVoronoiSimplexSolver simplex;
      btSubsimplexConvexCast cast(&impl_->point, it.shape, &simplex);
      btConvexCast::CastResult res;
      if (cast.calcTimeOfImpact(it.from, it.to, it.pose, it.pose, res)) {
        fill(r, res, 1);
        r.beyond = res.m_fraction > btScalar(1);
        r.hit = !r.beyond;
        if (r.beyond) r.toi = 1;
      }
      break;
    }
    case Caster::gjk: {
      btVoronoiSimplexSolver simplex;
      btGjkConvexCast cast(&impl_->point, it.shape, &simplex);
      btConvexCast::CastResult res;
      if (cast.calcTimeOfImpact(it.from, it.to, it.pose, it.pose, res)) {
        fill(r, res, 1);
        r.hit = true;
      }
      break;
    }
    case Caster::aabb: {
      const btVector3 from = it.pose.invXform(it.from.getOrigin()), to = it.pose.invXform(it.to.getOrigin());
      btScalar param = 1;
      btVector3 n(0, 0, 0);
      if (btRayAabb(from, to, -it.half_extents, it.half_extents, param, n)) {
        r.hit = true;
        r.toi = double(param);
        const btVector3 nw = it.pose.getBasis() * n;
        for (int k = 0; k < 3; ++k) r.normal[k] = double(nw[k]);
      }
      break;
    }
  }
  return r;
}

}  // namespace impact_bench
