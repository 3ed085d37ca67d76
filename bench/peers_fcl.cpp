// impact benchmarks — peers_fcl.cpp: FCL 0.7's distance and collision on the shared scenes.
//
// Configuration, and why:
// - The public entry points a user calls for one pair: fcl::distance and fcl::collide on
//   (CollisionGeometry, Transform3) — the same work as on CollisionObjects minus the AABB
//   bookkeeping. Geometries and transforms are built once, outside the timed loop.
// - DistanceRequest: enable_nearest_points = true (impact returns closest points too), unsigned
//   distance (enable_signed_distance = false: no EPA, as impact's distance does none), FCL's
//   default GJK tolerance (distance_tolerance = 1e-6; rel_err/abs_err only concern meshes).
// - CollisionRequest: one contact, enable_contact = false (a yes/no answer), default tolerances.
//   One result object per peer, cleared before each query (kinder to FCL than a fresh one: the
//   contact vector keeps its capacity).
// - Solver: both of FCL's GJK implementations are available (GST_LIBCCD, FCL's default, and
//   GST_INDEP, its own port of Bullet's GJK/EPA); the driver times both. FCL dispatches some pairs
//   to special-case code rather than GJK whatever the solver: sphere–box distance
//   (sphereBoxDistance), sphere–box and box–box collision (sphereBoxIntersect, boxBox SAT).
//   Cylinders and hulls (fcl::Convex, hill-climbing over its edge graph above 32 vertices) go
//   through GJK.
#include "peers.hpp"

#include <fcl/fcl.h>

#include <stdexcept>

namespace impact_bench {

struct FclPeer::Impl {
  std::vector<std::shared_ptr<fcl::CollisionGeometryd>> shapes;
  struct Item {
    const fcl::CollisionGeometryd* a;
    const fcl::CollisionGeometryd* b;
    fcl::Transform3d ta, tb;
    EIGEN_MAKE_ALIGNED_OPERATOR_NEW
  };
  std::vector<Item, Eigen::aligned_allocator<Item>> items;
  fcl::DistanceRequestd distance_request;
  fcl::CollisionRequestd collision_request;
  mutable fcl::CollisionResultd collision_result;
};

namespace {

fcl::Transform3d to_fcl(const PoseDesc& p) {
  const auto& q = p.quat_wxyz;
  fcl::Transform3d t = fcl::Transform3d::Identity();
  t.linear() = fcl::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
  t.translation() = fcl::Vector3d(p.position[0], p.position[1], p.position[2]);
  return t;
}

std::shared_ptr<fcl::CollisionGeometryd> to_fcl(const ShapeDesc& s) {
  switch (s.kind) {
    case ShapeKind::sphere: return std::make_shared<fcl::Sphered>(s.radius);
    case ShapeKind::box:  // FCL takes full side lengths
      return std::make_shared<fcl::Boxd>(2 * s.half_extents[0], 2 * s.half_extents[1], 2 * s.half_extents[2]);
    case ShapeKind::cylinder:  // axis z, full length
      return std::make_shared<fcl::Cylinderd>(s.radius, 2 * s.half_height);
    case ShapeKind::hull: {
      auto verts = std::make_shared<std::vector<fcl::Vector3d>>();
      for (const auto& v : s.vertices) verts->emplace_back(v[0], v[1], v[2]);
      auto faces = std::make_shared<std::vector<int>>();
      for (const auto& f : s.faces) {
        faces->push_back(static_cast<int>(f.size()));
        faces->insert(faces->end(), f.begin(), f.end());
      }
      // throw_if_invalid: a malformed face list would silently turn off FCL's edge walking.
      return std::make_shared<fcl::Convexd>(verts, static_cast<int>(s.faces.size()), faces, true);
    }
  }
  throw std::runtime_error("bench: fcl: unknown shape");
}

}  // namespace

FclPeer::FclPeer(const SceneDesc& scene, Solver solver) : impl_(std::make_unique<Impl>()) {
  for (const auto& s : scene.shapes) {
    auto g = to_fcl(s);
    g->computeLocalAABB();
    impl_->shapes.push_back(std::move(g));
  }
  for (const auto& c : scene.cases)
    impl_->items.push_back({impl_->shapes[c.a].get(), impl_->shapes[c.b].get(), to_fcl(c.pose_a), to_fcl(c.pose_b)});
  const auto type = solver == Solver::libccd ? fcl::GST_LIBCCD : fcl::GST_INDEP;
  impl_->distance_request.enable_nearest_points = true;
  impl_->distance_request.enable_signed_distance = false;
  impl_->distance_request.gjk_solver_type = type;
  impl_->collision_request.num_max_contacts = 1;
  impl_->collision_request.enable_contact = false;
  impl_->collision_request.gjk_solver_type = type;
}

FclPeer::~FclPeer() = default;

PeerAnswer FclPeer::distance(std::size_t i) const {
  const Impl::Item& it = impl_->items[i];
  fcl::DistanceResultd result;
  fcl::distance(it.a, it.ta, it.b, it.tb, impl_->distance_request, result);
  PeerAnswer r;
  r.intersecting = result.min_distance <= 0;
  r.distance = r.intersecting ? 0.0 : result.min_distance;
  return r;
}

PeerAnswer FclPeer::intersect(std::size_t i) const {
  const Impl::Item& it = impl_->items[i];
  impl_->collision_result.clear();
  fcl::collide(it.a, it.ta, it.b, it.tb, impl_->collision_request, impl_->collision_result);
  PeerAnswer r;
  r.intersecting = impl_->collision_result.isCollision();
  return r;
}

// ---- time of impact: fcl::continuousCollide, conservative advancement ----
//
// Configuration, and why:
// - fcl::continuousCollide(geometry, motion, geometry, motion, request, result) with
//   ccd_solver_type = CCDC_CONSERVATIVE_ADVANCEMENT and gjk_solver_type = GST_LIBCCD (FCL's
//   default). FCL's shape–shape conservative advancement: a collide() at the start, then GJK
//   distance, a motion bound along the closest-point direction from the RSS of each shape, and a
//   stop when the step falls below t_err = 1e-4 (hard-coded; toc_err is not read). It reports
//   a collision at the time it stopped, whether or not the shapes touch there.
// - Motions: InterpMotion built with (R1, T1, R2, T2, O), O = (0, 0, 0) the local origin, so the
//   origin moves linearly and the body turns about it at constant angular velocity: impact's
//   motion. (InterpMotion(tf1, tf2) leaves O uninitialised, and InterpMotion(tf1, tf2, O) sets O
//   but never computes the velocities.) ScrewMotion(tf1, tf2) is the screw through the same poses.
// - Both read the rotation between the two transforms as an angle-axis (angle ≤ π): the interval
//   is cut into sub-intervals of at most max_step_angle each, built here from the exact motion.
// - The motions are built once; a query resets each to t = 0 (integrate(0)) before the call,
//   since FCL starts from the motion's current transform and leaves it at the contact.

struct FclToiPeer::Impl {
  std::vector<std::shared_ptr<fcl::CollisionGeometryd>> shapes;
  struct Item {
    const fcl::CollisionGeometryd* a;
    const fcl::CollisionGeometryd* b;
    int first;  // first motion of A in `motions`; A's k motions, then B's k
    int k;
  };
  std::vector<Item> items;
  std::vector<std::unique_ptr<fcl::MotionBased>> motions;
  fcl::ContinuousCollisionRequestd request;
};

FclToiPeer::FclToiPeer(const ToiSceneDesc& scene, Kind kind, double max_step_angle) : impl_(std::make_unique<Impl>()) {
  for (const auto& s : scene.shapes) {
    auto g = to_fcl(s);
    g->computeLocalAABB();
    impl_->shapes.push_back(std::move(g));
  }
  for (const auto& c : scene.cases) {
    const int k = substeps(c.ma, c.mb, max_step_angle);
    impl_->items.push_back({impl_->shapes[c.a].get(), impl_->shapes[c.b].get(), static_cast<int>(impl_->motions.size()), k});
    for (const MotionDesc* m : {&c.ma, &c.mb}) {
      for (int j = 0; j < k; ++j) {
        const fcl::Transform3d t0 = to_fcl(pose_at(*m, double(j) / k)), t1 = to_fcl(pose_at(*m, double(j + 1) / k));
        if (kind == Kind::interp)
          impl_->motions.push_back(std::make_unique<fcl::InterpMotion<double>>(t0.linear(), fcl::Vector3d(t0.translation()), t1.linear(),
                                                                        fcl::Vector3d(t1.translation()), fcl::Vector3d::Zero()));
        else
          impl_->motions.push_back(std::make_unique<fcl::ScrewMotion<double>>(t0, t1));
      }
    }
  }
  impl_->request.ccd_solver_type = fcl::CCDC_CONSERVATIVE_ADVANCEMENT;
  impl_->request.gjk_solver_type = fcl::GST_LIBCCD;
  impl_->request.ccd_motion_type = kind == Kind::interp ? fcl::CCDM_LINEAR : fcl::CCDM_SCREW;
}

FclToiPeer::~FclToiPeer() = default;

namespace {
PoseDesc from_fcl(const fcl::Transform3d& t) {
  const fcl::Quaterniond q(t.linear());
  const fcl::Vector3d p = t.translation();
  return {{p.x(), p.y(), p.z()}, {q.w(), q.x(), q.y(), q.z()}};
}
}  // namespace

PeerToi FclToiPeer::query(std::size_t i) const {
  const Impl::Item& it = impl_->items[i];
  PeerToi r;
  for (int j = 0; j < it.k; ++j) {
    const fcl::MotionBased* ma = impl_->motions[it.first + j].get();
    const fcl::MotionBased* mb = impl_->motions[it.first + it.k + j].get();
    ma->integrate(0);
    mb->integrate(0);
    fcl::ContinuousCollisionResultd res;
    ++r.calls;
    fcl::continuousCollide(it.a, ma, it.b, mb, impl_->request, res);
    if (res.is_collide) {
      r.hit = true;
      r.toi = (j + res.time_of_contact) / it.k;
      r.pose_a = from_fcl(res.contact_tf1);
      r.pose_b = from_fcl(res.contact_tf2);
      break;
    }
  }
  return r;
}

// ---- linear casts: fcl::continuousCollide on TranslationMotion ----
//
// Configuration, and why:
// - ccd_solver_type = CCDC_CONSERVATIVE_ADVANCEMENT: FCL's only working solver for shape pairs
//   (CCDC_RAY_SHOOTING is an empty stub for shapes, CCDC_POLYNOMIAL_SOLVER takes BVH meshes only,
//   CCDC_NAIVE samples 10 poses and tunnels through anything thinner than a tenth of the motion).
// - TranslationMotion(tf_begin, tf_end) motions, ccd_motion_type = CCDM_TRANS: the motion is a
//   pure translation, and this motion's bound is exactly v·n (InterpMotion would add a rotation
//   term that is zero here but cost its computation). gjk_solver_type = GST_LIBCCD (FCL's default).
// - FCL stops when its step falls below t_err = 1e-4 (hard-coded; toc_err is ignored) and then
//   reports a collision at that time whether or not the shapes touch; a collision at the start
//   gives toc = 0.
// - The motions are built once; each query resets both to t = 0 (integrate(0)), since FCL
//   starts from the motion's current transform and leaves it at the contact.

struct FclCastPeer::Impl {
  std::vector<std::shared_ptr<fcl::CollisionGeometryd>> shapes;
  struct Item {
    const fcl::CollisionGeometryd* a;
    const fcl::CollisionGeometryd* b;
    std::unique_ptr<fcl::TranslationMotion<double>> ma, mb;
  };
  std::vector<Item> items;
  fcl::ContinuousCollisionRequestd request;
};

FclCastPeer::FclCastPeer(const CastSceneDesc& scene) : impl_(std::make_unique<Impl>()) {
  for (const auto& s : scene.shapes) {
    auto g = to_fcl(s);
    g->computeLocalAABB();
    impl_->shapes.push_back(std::move(g));
  }
  auto moved = [](const PoseDesc& p, const std::array<double, 3>& v) {
    PoseDesc q = p;
    for (int k = 0; k < 3; ++k) q.position[k] += v[k];
    return to_fcl(q);
  };
  for (const auto& c : scene.cases) {
    Impl::Item it;
    it.a = impl_->shapes[c.a].get();
    it.b = impl_->shapes[c.b].get();
    it.ma = std::make_unique<fcl::TranslationMotion<double>>(to_fcl(c.pose_a), moved(c.pose_a, c.velocity_a));
    it.mb = std::make_unique<fcl::TranslationMotion<double>>(to_fcl(c.pose_b), moved(c.pose_b, c.velocity_b));
    impl_->items.push_back(std::move(it));
  }
  impl_->request.ccd_solver_type = fcl::CCDC_CONSERVATIVE_ADVANCEMENT;
  impl_->request.gjk_solver_type = fcl::GST_LIBCCD;
  impl_->request.ccd_motion_type = fcl::CCDM_TRANS;
}

FclCastPeer::~FclCastPeer() = default;

PeerCast FclCastPeer::query(std::size_t i) const {
  const Impl::Item& it = impl_->items[i];
  it.ma->integrate(0);
  it.mb->integrate(0);
  fcl::ContinuousCollisionResultd res;
  fcl::continuousCollide(it.a, it.ma.get(), it.b, it.mb.get(), impl_->request, res);
  PeerCast r;
  r.hit = res.is_collide;
  r.toi = r.hit ? res.time_of_contact : 1.0;
  return r;
}

}  // namespace impact_bench
