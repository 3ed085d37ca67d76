// impact benchmarks — peers_bullet_world.cpp: Bullet on the world-step scenes (world_peers.hpp).
//
// Two ways Bullet answers "which pairs touch during this step":
// - continuous: btDbvtBroadphase over the swept boxes, then btContinuousConvexCollision (Bullet's
//   rotating time of impact: conservative advancement on GJK with EPA, stop at 0.001, at most 64
//   advancement steps) on the convex parts of every overlapping pair, and on parts against the
//   triangles of the static mesh found by btBvhTriangleMeshShape::processAllTriangles in the part's
//   swept box. The earliest time per body pair.
// - swept_sphere: btDiscreteDynamicsWorld's own CCD (integrateTransforms): a sphere of the body's
//   ccd radius swept by btCollisionWorld::convexSweepTest from the body's position at t = 0 to its
//   position at t = 1, against every other body standing still at its pose at t = 0.
// Margins are 0 on boxes, cylinders, hulls and triangles (a sphere's margin is its radius), so the
// solids are the true ones. Everything is built in the constructor; a step only moves proxies and
// objects. btScalar is float in Debian's default libBulletCollision.
#include "world_peers.hpp"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btContinuousConvexCollision.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <BulletCollision/CollisionShapes/btTriangleShape.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>

namespace impact_bench {

namespace {

using Clock = std::chrono::steady_clock;

// The largest turn per sub-interval (BulletToiPeer's 0.24π: under integrateTransform's 45° clamp).
constexpr double kMaxStepAngle = 0.24 * std::numbers::pi;

btTransform to_bt(const PoseDesc& p) {
  const auto& q = p.quat_wxyz;
  return btTransform(btQuaternion(btScalar(q[1]), btScalar(q[2]), btScalar(q[3]), btScalar(q[0])),
                     btVector3(btScalar(p.position[0]), btScalar(p.position[1]), btScalar(p.position[2])));
}

btVector3 vec(const std::array<double, 3>& a) { return btVector3(btScalar(a[0]), btScalar(a[1]), btScalar(a[2])); }

std::unique_ptr<btConvexShape> to_bt(const ShapeDesc& s) {
  switch (s.kind) {
    case ShapeKind::sphere:
      return std::make_unique<btSphereShape>(btScalar(s.radius));
    case ShapeKind::box: {
      auto b = std::make_unique<btBoxShape>(vec(s.half_extents));
      b->setMargin(0);
      return b;
    }
    case ShapeKind::cylinder: {
      auto c = std::make_unique<btCylinderShapeZ>(btVector3(btScalar(s.radius), btScalar(s.radius), btScalar(s.half_height)));
      c->setMargin(0);
      return c;
    }
    case ShapeKind::hull: {
      auto h = std::make_unique<btConvexHullShape>();
      for (const auto& v : s.vertices) h->addPoint(vec(v), false);
      h->recalcLocalAabb();
      h->setMargin(0);
      return h;
    }
  }
  throw std::runtime_error("bench: bullet world: unknown shape");
}

double norm(const std::array<double, 3>& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

/// Collects the triangles processAllTriangles reports.
struct TriangleCollector : btTriangleCallback {
  btAlignedObjectArray<btVector3> corners;
  void processTriangle(btVector3* t, int, int) override {
    corners.push_back(t[0]);
    corners.push_back(t[1]);
    corners.push_back(t[2]);
  }
};

/// btClosestNotMeConvexResultCallback of btDiscreteDynamicsWorld.cpp (BulletDynamics), minus the
/// dispatcher's response checks: skips the swept body itself and hits whose normal does not oppose
/// the motion.
struct NotMe : btCollisionWorld::ClosestConvexResultCallback {
  const btCollisionObject* me;
  NotMe(const btCollisionObject* m, const btVector3& from, const btVector3& to)
      : btCollisionWorld::ClosestConvexResultCallback(from, to), me(m) {}
  btScalar addSingleResult(btCollisionWorld::LocalConvexResult& r, bool normal_in_world) override {
    if (r.m_hitCollisionObject == me) return 1;
    const btVector3 motion = m_convexToWorld - m_convexFromWorld;
    if (r.m_hitNormalLocal.dot(motion) >= btScalar(0)) return 1;
    return ClosestConvexResultCallback::addSingleResult(r, normal_in_world);
  }
  bool needsCollision(btBroadphaseProxy* proxy) const override {
    if (proxy->m_clientObject == me) return false;
    return ClosestConvexResultCallback::needsCollision(proxy);
  }
};

struct CountingResult : btConvexCast::CastResult {
  int failures = 0;
  void reportFailure(int, int) override { ++failures; }
};

}  // namespace

struct BulletWorldPeer::Impl {
  const WorldSceneDesc* scene = nullptr;
  struct Part {
    btConvexShape* shape;
    btTransform local;
    double offset;  // |local origin|: the part's origin leaves the chord by at most offset·min(2, θ²/8)
  };
  struct Body {
    std::vector<Part> parts;
    std::unique_ptr<btCompoundShape> compound;  // several parts, or one part off the origin
    btCollisionShape* shape = nullptr;          // the body's whole shape (a part, the compound, or the mesh)
    btBroadphaseProxy* proxy = nullptr;
    btCollisionObject object;
    bool mesh = false, moving = false;
    double ccd_radius = 0;
    btVector3 lo, hi;  // swept box of the step (continuous)
  };
  std::vector<std::unique_ptr<btConvexShape>> shapes;
  std::vector<Body> bodies;
  // The mesh.
  std::vector<int> indices;
  std::vector<btScalar> vertices;
  std::unique_ptr<btTriangleIndexVertexArray> array;
  std::unique_ptr<btBvhTriangleMeshShape> mesh;
  // continuous: a bare broadphase (and a dispatcher only for its pair-removal calls).
  std::unique_ptr<btDefaultCollisionConfiguration> config;
  std::unique_ptr<btCollisionDispatcher> dispatcher;
  std::unique_ptr<btDbvtBroadphase> broadphase;
  // swept_sphere: a collision world.
  std::unique_ptr<btDbvtBroadphase> world_broadphase;
  std::unique_ptr<btCollisionWorld> world;
  // Scratch, reused every step.
  btAlignedObjectArray<btTransform> ta, tb, tp, pa, pb;
  std::vector<std::pair<btVector3, btVector3>> boxes_b;
  TriangleCollector tris;
  std::vector<int> subintervals;  // per body: fewest sub-intervals of at most kMaxStepAngle

  /// Transforms of body i at j/k, j = 0..k, into `out`.
  void body_transforms(int i, const MotionDesc& m, int k, btAlignedObjectArray<btTransform>& out) const {
    out.resize(k + 1, btTransform::getIdentity());
    if (!bodies[static_cast<std::size_t>(i)].moving) {
      for (int j = 0; j <= k; ++j) out[j] = to_bt(m.pose);
      return;
    }
    for (int j = 0; j <= k; ++j) out[j] = to_bt(pose_at(m, double(j) / k));
  }

  /// The earliest hit of two convex parts over the sub-intervals before `best` (their transforms
  /// side by side, k + 1 each), or `best`.
  double part_toi(const btConvexShape* a, const btTransform* ta_, const btConvexShape* b, const btTransform* tb_, int k,
                  double best, WorldPeerStep& out) const {
    btVoronoiSimplexSolver simplex;
    btGjkEpaPenetrationDepthSolver epa;
    btContinuousConvexCollision ccd(a, b, &simplex, &epa);
    for (int j = 0; j < k && double(j) / k < best; ++j) {
      CountingResult res;
      ++out.toi_calls;
      const bool hit = ccd.calcTimeOfImpact(ta_[j], ta_[j + 1], tb_[j], tb_[j + 1], res);
      out.gave_up += static_cast<std::size_t>(res.failures);
      if (hit) return std::min(best, (j + double(res.m_fraction)) / k);
    }
    return best;
  }
};

BulletWorldPeer::BulletWorldPeer(const WorldSceneDesc& scene) : impl_(std::make_unique<Impl>()) {
  Impl& I = *impl_;
  I.scene = &scene;
  I.bodies.resize(scene.bodies.size());
  if (scene.mesh_body >= 0) {
    for (const auto& v : scene.mesh.vertices)
      for (int k = 0; k < 3; ++k) I.vertices.push_back(btScalar(v[static_cast<std::size_t>(k)]));
    for (const auto& t : scene.mesh.triangles)
      for (int k = 0; k < 3; ++k) I.indices.push_back(static_cast<int>(t[static_cast<std::size_t>(k)]));
    I.array = std::make_unique<btTriangleIndexVertexArray>(
        static_cast<int>(scene.mesh.triangles.size()), I.indices.data(), 3 * static_cast<int>(sizeof(int)),
        static_cast<int>(scene.mesh.vertices.size()), I.vertices.data(), 3 * static_cast<int>(sizeof(btScalar)));
    I.mesh = std::make_unique<btBvhTriangleMeshShape>(I.array.get(), /*useQuantizedAabbCompression=*/true);
  }
  I.config = std::make_unique<btDefaultCollisionConfiguration>();
  I.dispatcher = std::make_unique<btCollisionDispatcher>(I.config.get());
  I.broadphase = std::make_unique<btDbvtBroadphase>();
  I.world_broadphase = std::make_unique<btDbvtBroadphase>();
  I.world = std::make_unique<btCollisionWorld>(I.dispatcher.get(), I.world_broadphase.get(), I.config.get());
  I.subintervals.assign(scene.bodies.size(), 1);
  const auto& first = scene.steps.at(0);
  for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
    const WorldBodyDesc& d = scene.bodies[i];
    Impl::Body& b = I.bodies[i];
    b.mesh = d.is_mesh;
    b.moving = d.moving;
    b.ccd_radius = d.ccd_radius;
    if (d.is_mesh) {
      b.shape = I.mesh.get();
    } else {
      for (const auto& p : d.parts) {
        I.shapes.push_back(to_bt(p.shape));
        b.parts.push_back({I.shapes.back().get(), to_bt(p.pose), norm(p.pose.position)});
      }
      const bool single = b.parts.size() == 1 && b.parts[0].offset == 0 && d.parts[0].pose.quat_wxyz[0] == 1;
      if (single) {
        b.shape = b.parts[0].shape;
      } else {
        b.compound = std::make_unique<btCompoundShape>(/*enableDynamicAabbTree=*/true, static_cast<int>(b.parts.size()));
        for (const auto& p : b.parts) b.compound->addChildShape(p.local, p.shape);
        b.shape = b.compound.get();
      }
    }
    const btTransform t0 = to_bt(first[i].pose);
    b.shape->getAabb(t0, b.lo, b.hi);
    b.proxy = I.broadphase->createProxy(b.lo, b.hi, b.shape->getShapeType(), reinterpret_cast<void*>(static_cast<std::intptr_t>(i)),
                                        int(btBroadphaseProxy::DefaultFilter), int(btBroadphaseProxy::AllFilter),
                                        I.dispatcher.get());
    b.object.setCollisionShape(b.shape);
    b.object.setWorldTransform(t0);
    b.object.setUserIndex(static_cast<int>(i));
    if (!d.moving) b.object.setCollisionFlags(b.object.getCollisionFlags() | btCollisionObject::CF_STATIC_OBJECT);
    I.world->addCollisionObject(&b.object);
  }
  I.world->setForceUpdateAllAabbs(false);
  I.world->updateAabbs();
}

BulletWorldPeer::~BulletWorldPeer() {
  Impl& I = *impl_;
  for (auto& b : I.bodies) {
    I.world->removeCollisionObject(&b.object);
    I.broadphase->destroyProxy(b.proxy, I.dispatcher.get());
  }
}

void BulletWorldPeer::continuous(std::size_t step, WorldPeerStep& out) {
  Impl& I = *impl_;
  const auto& motions = I.scene->steps.at(step);
  out = WorldPeerStep{};
  const auto t0 = Clock::now();
  // Broad phase: every moving body's proxy to its swept box, then the pairs.
  for (std::size_t i = 0; i < I.bodies.size(); ++i) {
    Impl::Body& b = I.bodies[i];
    if (!b.moving) continue;
    const MotionDesc& m = motions[i];
    b.shape->calculateTemporalAabb(to_bt(m.pose), vec(m.linear_velocity), vec(m.angular_velocity), btScalar(1), b.lo, b.hi);
    I.broadphase->setAabb(b.proxy, b.lo, b.hi, I.dispatcher.get());
    I.subintervals[i] = std::max(1, static_cast<int>(std::ceil(norm(m.angular_velocity) / kMaxStepAngle)));
  }
  I.broadphase->calculateOverlappingPairs(I.dispatcher.get());
  const auto t1 = Clock::now();
  // Narrow phase.
  btBroadphasePairArray& pairs = I.broadphase->getOverlappingPairCache()->getOverlappingPairArray();
  for (int p = 0; p < pairs.size(); ++p) {
    int ia = static_cast<int>(reinterpret_cast<std::intptr_t>(pairs[p].m_pProxy0->m_clientObject));
    int ib = static_cast<int>(reinterpret_cast<std::intptr_t>(pairs[p].m_pProxy1->m_clientObject));
    if (ia > ib) std::swap(ia, ib);
    const Impl::Body& A0 = I.bodies[static_cast<std::size_t>(ia)];
    const Impl::Body& B0 = I.bodies[static_cast<std::size_t>(ib)];
    if (!A0.moving && !B0.moving) continue;
    if (A0.mesh && B0.mesh) continue;
    if (!TestAabbAgainstAabb2(A0.lo, A0.hi, B0.lo, B0.hi)) continue;  // a pair the cache has not cleaned up yet
    ++out.pairs;
    double best = 2;  // > 1: no hit
    if (A0.mesh || B0.mesh) {
      const int ic = A0.mesh ? ib : ia;  // the convex or compound body
      const Impl::Body& C = I.bodies[static_cast<std::size_t>(ic)];
      const MotionDesc& m = motions[static_cast<std::size_t>(ic)];
      const int k = I.subintervals[static_cast<std::size_t>(ic)];
      I.body_transforms(ic, m, k, I.ta);
      const double turn = norm(m.angular_velocity);
      I.tb.resize(k + 1, btTransform::getIdentity());
      for (int j = 0; j <= k; ++j) I.tb[j].setIdentity();
      for (const auto& part : C.parts) {
        I.tp.resize(k + 1, btTransform::getIdentity());
        for (int j = 0; j <= k; ++j) I.tp[j] = I.ta[j] * part.local;
        // The part's swept box: its box at t = 0 grown along the chord of its origin and by its
        // angular motion disc, and by how far the arc leaves the chord.
        btVector3 lo, hi;
        const btVector3 chord = I.tp[k].getOrigin() - I.tp[0].getOrigin();
        part.shape->calculateTemporalAabb(I.tp[0], chord, vec(m.angular_velocity), btScalar(1), lo, hi);
        const btScalar sag = btScalar(part.offset * std::min(2.0, turn * turn / 8));
        lo -= btVector3(sag, sag, sag);
        hi += btVector3(sag, sag, sag);
        I.tris.corners.resizeNoInitialize(0);
        I.mesh->processAllTriangles(&I.tris, lo, hi);
        for (int t = 0; t + 2 < I.tris.corners.size(); t += 3) {
          btTriangleShape tri(I.tris.corners[t], I.tris.corners[t + 1], I.tris.corners[t + 2]);
          tri.setMargin(0);
          best = I.part_toi(part.shape, &I.tp[0], &tri, &I.tb[0], k, best, out);
        }
      }
    } else {
      const MotionDesc& ma = motions[static_cast<std::size_t>(ia)];
      const MotionDesc& mb = motions[static_cast<std::size_t>(ib)];
      const int k = std::max(I.subintervals[static_cast<std::size_t>(ia)], I.subintervals[static_cast<std::size_t>(ib)]);
      I.body_transforms(ia, ma, k, I.ta);
      I.body_transforms(ib, mb, k, I.tb);
      if (A0.parts.size() == 1 && B0.parts.size() == 1) {
        btAlignedObjectArray<btTransform>& pa = I.tp;
        pa.resize(2 * (k + 1), btTransform::getIdentity());
        for (int j = 0; j <= k; ++j) {
          pa[j] = I.ta[j] * A0.parts[0].local;
          pa[k + 1 + j] = I.tb[j] * B0.parts[0].local;
        }
        best = I.part_toi(A0.parts[0].shape, &pa[0], B0.parts[0].shape, &pa[k + 1], k, best, out);
      } else {
        // Compounds: each pair of parts whose own swept boxes overlap (Bullet's compound
        // algorithms cull children by their boxes too).
        const double turn_a = norm(ma.angular_velocity), turn_b = norm(mb.angular_velocity);
        btAlignedObjectArray<btTransform>& pa = I.pa;
        btAlignedObjectArray<btTransform>& pb = I.pb;
        std::vector<std::pair<btVector3, btVector3>>& boxes_b = I.boxes_b;
        boxes_b.clear();
        pb.resize(static_cast<int>(B0.parts.size()) * (k + 1), btTransform::getIdentity());
        for (std::size_t q = 0; q < B0.parts.size(); ++q) {
          btTransform* t = &pb[static_cast<int>(q) * (k + 1)];
          for (int j = 0; j <= k; ++j) t[j] = I.tb[j] * B0.parts[q].local;
          btVector3 lo, hi;
          B0.parts[q].shape->calculateTemporalAabb(t[0], t[k].getOrigin() - t[0].getOrigin(), vec(mb.angular_velocity), btScalar(1), lo, hi);
          const btScalar sag = btScalar(B0.parts[q].offset * std::min(2.0, turn_b * turn_b / 8));
          boxes_b.emplace_back(lo - btVector3(sag, sag, sag), hi + btVector3(sag, sag, sag));
        }
        pa.resize(k + 1, btTransform::getIdentity());
        for (const auto& part : A0.parts) {
          for (int j = 0; j <= k; ++j) pa[j] = I.ta[j] * part.local;
          btVector3 lo, hi;
          part.shape->calculateTemporalAabb(pa[0], pa[k].getOrigin() - pa[0].getOrigin(), vec(ma.angular_velocity), btScalar(1), lo, hi);
          const btScalar sag = btScalar(part.offset * std::min(2.0, turn_a * turn_a / 8));
          lo -= btVector3(sag, sag, sag);
          hi += btVector3(sag, sag, sag);
          for (std::size_t q = 0; q < B0.parts.size(); ++q) {
            if (!TestAabbAgainstAabb2(lo, hi, boxes_b[q].first, boxes_b[q].second)) continue;
            best = I.part_toi(part.shape, &pa[0], B0.parts[q].shape, &pb[static_cast<int>(q) * (k + 1)], k, best, out);
          }
        }
      }
    }
    if (best <= 1) out.hits.push_back({ia, ib, best});
  }
  const auto t2 = Clock::now();
  out.broad_seconds = std::chrono::duration<double>(t1 - t0).count();
  out.narrow_seconds = std::chrono::duration<double>(t2 - t1).count();
}

void BulletWorldPeer::swept_sphere(std::size_t step, WorldPeerStep& out) {
  Impl& I = *impl_;
  const auto& motions = I.scene->steps.at(step);
  out = WorldPeerStep{};
  const auto t0 = Clock::now();
  for (std::size_t i = 0; i < I.bodies.size(); ++i) {
    Impl::Body& b = I.bodies[i];
    if (b.moving) b.object.setWorldTransform(to_bt(motions[i].pose));
  }
  I.world->updateAabbs();
  const auto t1 = Clock::now();
  for (std::size_t i = 0; i < I.bodies.size(); ++i) {
    Impl::Body& b = I.bodies[i];
    if (!b.moving) continue;
    const MotionDesc& m = motions[i];
    btTransform from, to;
    from.setIdentity();
    to.setIdentity();
    from.setOrigin(vec(m.pose.position));
    const btVector3 d = vec(m.linear_velocity);
    to.setOrigin(from.getOrigin() + d);
    btSphereShape sphere(btScalar(b.ccd_radius));
    NotMe cb(&b.object, from.getOrigin(), to.getOrigin());
    ++out.pairs;
    ++out.toi_calls;
    I.world->convexSweepTest(&sphere, from, to, cb, btScalar(0));
    if (cb.hasHit()) {
      int other = cb.m_hitCollisionObject->getUserIndex();
      int self = static_cast<int>(i);
      if (self > other) std::swap(self, other);
      out.hits.push_back({self, other, double(cb.m_closestHitFraction)});
    }
  }
  // A pair each of whose bodies hit the other: once, at the earlier time.
  std::sort(out.hits.begin(), out.hits.end(), [](const WorldPairHit& x, const WorldPairHit& y) {
    return x.a != y.a ? x.a < y.a : x.b != y.b ? x.b < y.b : x.toi < y.toi;
  });
  out.hits.erase(std::unique(out.hits.begin(), out.hits.end(),
                             [](const WorldPairHit& x, const WorldPairHit& y) { return x.a == y.a && x.b == y.b; }),
                 out.hits.end());
  const auto t2 = Clock::now();
  out.broad_seconds = std::chrono::duration<double>(t1 - t0).count();
  out.narrow_seconds = std::chrono::duration<double>(t2 - t1).count();
}

}  // namespace impact_bench
