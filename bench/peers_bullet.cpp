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
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
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

}  // namespace impact_bench
