// impact benchmarks — peers_ccd.cpp: libccd 2.1's boolean GJK (and MPR) on the shared scenes.
//
// libccd takes shapes only as support functions, so the glue supplies them: each object holds
// its shape's sizes and its pose as a rotation matrix and a translation (computed once, outside
// the timed loop); the support function rotates the direction into the local frame, takes the
// local support point and maps it back — the same work FCL's libccd glue does, minus its
// quaternion rotations. Hull support scans every vertex (libccd users have no adjacency to
// climb). ccd_t: CCD_INIT defaults (first direction +x, tolerances 1e-4/1e-6), with
// max_iterations = 500 (FCL's choice) instead of unbounded.
#include "peers.hpp"

#include <ccd/ccd.h>

#include <cmath>
#include <stdexcept>

namespace impact_bench {

namespace {

struct Object {
  ShapeKind kind = ShapeKind::sphere;
  double radius = 0, half_height = 0;
  double half[3] = {0, 0, 0};
  const std::array<double, 3>* verts = nullptr;
  int nverts = 0;
  double r[3][3] = {};  // local-to-world rotation
  double t[3] = {0, 0, 0};
};

void local_support(const Object& o, const double d[3], double p[3]) {
  switch (o.kind) {
    case ShapeKind::sphere: {
      const double n = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      const double k = n > 0 ? o.radius / n : 0;
      p[0] = d[0] * k, p[1] = d[1] * k, p[2] = d[2] * k;
      if (n == 0) p[2] = o.radius;
      return;
    }
    case ShapeKind::box:
      for (int i = 0; i < 3; ++i) p[i] = d[i] >= 0 ? o.half[i] : -o.half[i];
      return;
    case ShapeKind::cylinder: {
      const double s = std::sqrt(d[0] * d[0] + d[1] * d[1]);
      const double k = s > 0 ? o.radius / s : 0;
      p[0] = d[0] * k, p[1] = d[1] * k;
      p[2] = d[2] >= 0 ? o.half_height : -o.half_height;
      return;
    }
    case ShapeKind::hull: {
      int best = 0;
      double best_dot = d[0] * o.verts[0][0] + d[1] * o.verts[0][1] + d[2] * o.verts[0][2];
      for (int i = 1; i < o.nverts; ++i) {
        const double v = d[0] * o.verts[i][0] + d[1] * o.verts[i][1] + d[2] * o.verts[i][2];
        if (v > best_dot) best_dot = v, best = i;
      }
      for (int k = 0; k < 3; ++k) p[k] = o.verts[best][k];
      return;
    }
  }
}

void support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const Object& o = *static_cast<const Object*>(obj);
  double dl[3], pl[3];
  for (int i = 0; i < 3; ++i)
    dl[i] = o.r[0][i] * dir->v[0] + o.r[1][i] * dir->v[1] + o.r[2][i] * dir->v[2];  // Rᵀ d
  local_support(o, dl, pl);
  for (int i = 0; i < 3; ++i) out->v[i] = o.r[i][0] * pl[0] + o.r[i][1] * pl[1] + o.r[i][2] * pl[2] + o.t[i];
}

void center(const void* obj, ccd_vec3_t* c) {
  const Object& o = *static_cast<const Object*>(obj);
  for (int i = 0; i < 3; ++i) c->v[i] = o.t[i];
}

Object make_object(const ShapeDesc& s, const PoseDesc& p) {
  Object o;
  o.kind = s.kind;
  o.radius = s.radius;
  o.half_height = s.half_height;
  for (int i = 0; i < 3; ++i) o.half[i] = s.half_extents[i];
  o.verts = s.vertices.data();
  o.nverts = static_cast<int>(s.vertices.size());
  const double w = p.quat_wxyz[0], x = p.quat_wxyz[1], y = p.quat_wxyz[2], z = p.quat_wxyz[3];
  o.r[0][0] = 1 - 2 * (y * y + z * z), o.r[0][1] = 2 * (x * y - w * z), o.r[0][2] = 2 * (x * z + w * y);
  o.r[1][0] = 2 * (x * y + w * z), o.r[1][1] = 1 - 2 * (x * x + z * z), o.r[1][2] = 2 * (y * z - w * x);
  o.r[2][0] = 2 * (x * z - w * y), o.r[2][1] = 2 * (y * z + w * x), o.r[2][2] = 1 - 2 * (x * x + y * y);
  for (int i = 0; i < 3; ++i) o.t[i] = p.position[i];
  return o;
}

}  // namespace

struct CcdPeer::Impl {
  SceneDesc scene;  // owns the hull vertices the objects point into
  std::vector<std::pair<Object, Object>> items;
  ccd_t ccd;
};

CcdPeer::CcdPeer(const SceneDesc& scene) : impl_(std::make_unique<Impl>()) {
  impl_->scene = scene;
  for (const auto& c : impl_->scene.cases)
    impl_->items.emplace_back(make_object(impl_->scene.shapes[c.a], c.pose_a),
                              make_object(impl_->scene.shapes[c.b], c.pose_b));
  CCD_INIT(&impl_->ccd);
  impl_->ccd.support1 = support;
  impl_->ccd.support2 = support;
  impl_->ccd.center1 = center;
  impl_->ccd.center2 = center;
  impl_->ccd.max_iterations = 500;
}

CcdPeer::~CcdPeer() = default;

PeerAnswer CcdPeer::intersect(std::size_t i) const {
  const auto& it = impl_->items[i];
  PeerAnswer r;
  r.intersecting = ccdGJKIntersect(&it.first, &it.second, &impl_->ccd) != 0;
  return r;
}

PeerAnswer CcdPeer::intersect_mpr(std::size_t i) const {
  const auto& it = impl_->items[i];
  PeerAnswer r;
  r.intersecting = ccdMPRIntersect(&it.first, &it.second, &impl_->ccd) != 0;
  return r;
}

}  // namespace impact_bench
