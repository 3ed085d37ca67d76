// impact benchmarks — peers_bullet_mesh.cpp: Bullet's triangle-mesh ray test and sphere sweep.
//
// - Rays: btBvhTriangleMeshShape (its quantized, compressed AABB tree, built in the constructor)
//   over a btTriangleIndexVertexArray, queried with performRaycast and a btTriangleRaycastCallback
//   that keeps the nearest hit (each hit lowers the fraction later triangles must beat). Both
//   faces collide (Bullet's default flags).
// - Sphere sweeps: the same shape in a btCollisionWorld (btDbvtBroadphase) and
//   btCollisionWorld::convexSweepTest of a btSphereShape with ClosestConvexResultCallback — the
//   query Bullet games use for swept spheres against level geometry.
// btScalar is float in Debian's default libBulletCollision.
#include "mesh_peers.hpp"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btRaycastCallback.h>

namespace impact_bench {

struct BulletMeshPeer::Impl {
  std::vector<int> indices;
  std::vector<btScalar> vertices;
  std::unique_ptr<btTriangleIndexVertexArray> array;
  std::unique_ptr<btBvhTriangleMeshShape> shape;
  std::unique_ptr<btDefaultCollisionConfiguration> config;
  std::unique_ptr<btCollisionDispatcher> dispatcher;
  std::unique_ptr<btDbvtBroadphase> broadphase;
  std::unique_ptr<btCollisionWorld> world;
  std::unique_ptr<btCollisionObject> object;
};

BulletMeshPeer::BulletMeshPeer(const MeshDesc& m) : impl_(std::make_unique<Impl>()) {
  Impl& I = *impl_;
  for (const auto& v : m.vertices)
    for (int k = 0; k < 3; ++k) I.vertices.push_back(v[k]);
  for (const auto& t : m.triangles)
    for (int k = 0; k < 3; ++k) I.indices.push_back(static_cast<int>(t[k]));
  I.array = std::make_unique<btTriangleIndexVertexArray>(static_cast<int>(m.triangles.size()), I.indices.data(),
                                                          3 * static_cast<int>(sizeof(int)),
                                                          static_cast<int>(m.vertices.size()), I.vertices.data(),
                                                          3 * static_cast<int>(sizeof(btScalar)));
  I.shape = std::make_unique<btBvhTriangleMeshShape>(I.array.get(), /*useQuantizedAabbCompression=*/true);
  I.config = std::make_unique<btDefaultCollisionConfiguration>();
  I.dispatcher = std::make_unique<btCollisionDispatcher>(I.config.get());
  I.broadphase = std::make_unique<btDbvtBroadphase>();
  I.world = std::make_unique<btCollisionWorld>(I.dispatcher.get(), I.broadphase.get(), I.config.get());
  I.object = std::make_unique<btCollisionObject>();
  I.object->setCollisionShape(I.shape.get());
  I.world->addCollisionObject(I.object.get());
  I.world->updateAabbs();
}

BulletMeshPeer::~BulletMeshPeer() {
  impl_->world->removeCollisionObject(impl_->object.get());
}

namespace {
struct Nearest : btTriangleRaycastCallback {
  bool hit = false;
  Nearest(const btVector3& from, const btVector3& to) : btTriangleRaycastCallback(from, to) {}
  btScalar reportHit(const btVector3&, btScalar fraction, int, int) override {
    hit = true;
    return fraction;
  }
};
btVector3 vec(const std::array<float, 3>& a) { return btVector3(a[0], a[1], a[2]); }
}  // namespace

float BulletMeshPeer::ray(const SegmentDesc& s) const {
  const btVector3 from = vec(s.origin), to = from + vec(s.path);
  Nearest cb(from, to);
  impl_->shape->performRaycast(&cb, from, to);
  return cb.hit ? static_cast<float>(cb.m_hitFraction) : -1.0f;
}

float BulletMeshPeer::sphere_sweep(const SegmentDesc& s, float radius) const {
  btSphereShape sphere(radius);
  btTransform from, to;
  from.setIdentity();
  to.setIdentity();
  from.setOrigin(vec(s.origin));
  to.setOrigin(vec(s.origin) + vec(s.path));
  btCollisionWorld::ClosestConvexResultCallback cb(from.getOrigin(), to.getOrigin());
  impl_->world->convexSweepTest(&sphere, from, to, cb);
  return cb.hasHit() ? static_cast<float>(cb.m_closestHitFraction) : -1.0f;
}

}  // namespace impact_bench
