#pragma once
// impact — mesh/sphere_triangle_sweep.hpp: a sphere swept along a segment against a triangle (face plane, then edges as
// cylinders and vertices as spheres), and the sphere cast over a mesh's tree that uses it.
#include <impact/mesh.hpp>

#include "mesh/bin_tree_walk.hpp"
#include "mesh/closest_on_triangle.hpp"
#include "detail/unit_direction.hpp"

#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>
#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace impact::mesh_detail {

template <class S>
struct SphereContact {
  S t = S(0);
  Vec3<S> point;
  MeshFeature feature = MeshFeature::face;
};

/// Entry time t ∈ [0, t_max] of a point w + t·d (relative to a centre, or to an axis after
/// removing the axis component) into the ball (or cylinder) of radius R: the smaller root of
/// |d|² t² + 2 (w·d) t + |w|² − R² = 0, i.e. c / (−h + √q) with h = w·d, c = |w|² − R² and the
/// quarter discriminant q = |d|² R² − |d × w|² (Lagrange's identity). Written this way q has no
/// cancellation of b² against 4ac, whose rounding would move the tangent distance by √ε (a
/// sphere passing 6e-4 from an edge was reported touching it in float). c ≤ 0 (inside only by
/// rounding: the caller has ruled out a true overlap at t = 0) while approaching is a contact at
/// t = 0. Computed in double: the squares overflow float beyond lengths of about 1e9.
template <class S>
bool entry_root(const Vec3<S>& w_in, const Vec3<S>& d_in, S R, S t_max, S& t) {
  const Vec3<double> w = w_in.template cast<double>(), d = d_in.template cast<double>();
  const double a = d.squaredNorm(), h = w.dot(d);
  if (!(h < 0.0) || !(a > 0.0)) return false;  // not approaching
  const double wn = w.norm(), R2 = double(R) * double(R);
  const double c = (wn - double(R)) * (wn + double(R));
  if (!(c > 0.0)) {
    t = S(0);
    return true;
  }
  const double q = a * R2 - d.cross(w).squaredNorm();
  if (q < 0.0) return false;  // passes at a distance larger than R
  // Rounded to S before the comparison, so the answer does not depend on t_max (the tree and
  // brute force lower it in different orders, and must still pick the same triangle).
  const S root = static_cast<S>(c / (-h + std::sqrt(q)));
  if (!(root <= t_max)) return false;
  t = root;
  return true;
}

/// First contact of the sphere (centre p, radius r, moving by d over t ∈ [0, t_max]) with the
/// triangle, which it does not touch at t = 0: the earliest of the plane contact inside the
/// face (Schroeder's closest-point-to-plane reduction to a particle), the three edge cylinders
/// and the three vertex spheres. Each quadratic is set up on the components perpendicular to the
/// edge (or relative to the vertex), which keeps its constant term free of cancellation.
template <class S>
bool sphere_triangle(const PackedTriangle<S>& tri, const Vec3<S>& n, S offset, const Vec3<S>& p, S r,
                     const Vec3<S>& d, S t_max, BackFaces bf, SphereContact<S>& out) {
  bool found = false;
  S best = t_max;
  const S s0 = n.dot(p) - offset;  // signed distance of the centre to the plane at t = 0
  const S dn = n.dot(d);
  // Face: the sphere's point nearest the plane, moving as a particle.
  const S side = s0 >= S(0) ? S(1) : S(-1);
  if (side > S(0) || bf == BackFaces::collide) {
    // Gap to the plane; a negative gap with the centre over the face would be an overlap, which
    // the caller has ruled out, so it is rounding: contact at t = 0.
    const S dist = std::max(side * s0 - r, S(0));
    const S speed = -side * dn;     // approach speed along the normal
    const S t = speed > S(0) ? dist / speed : std::numeric_limits<S>::infinity();
    if (t <= best) {
      const Vec3<S> q = p + t * d - (side * r) * n;
      const Vec3<S> e0 = tri.b - tri.a, e1 = tri.c - tri.b, e2 = tri.a - tri.c;
      if (e0.cross(q - tri.a).dot(n) >= S(0) && e1.cross(q - tri.b).dot(n) >= S(0) &&
          e2.cross(q - tri.c).dot(n) >= S(0)) {
        best = t;
        out = {t, q, MeshFeature::face};
        found = true;
      }
    }
  }
  const Vec3<S>* v[3] = {&tri.a, &tri.b, &tri.c};
  for (int i = 0; i < 3; ++i) {
    const Vec3<S>& v0 = *v[i];
    const Vec3<S>& v1 = *v[(i + 1) % 3];
    const Vec3<S> e = v1 - v0;
    const S ee = e.squaredNorm();
    const Vec3<S> w = p - v0;
    // Edge: |w⊥ + t d⊥|² = r², ⊥ meaning the part perpendicular to e.
    if (ee > S(0)) {
      const Vec3<S> wp = w - (w.dot(e) / ee) * e;
      const Vec3<S> dp = d - (d.dot(e) / ee) * e;
      S t;
      if (entry_root(wp, dp, r, best, t)) {
        const Vec3<S> c = p + t * d;
        const S s = (c - v0).dot(e) / ee;
        if (s >= S(0) && s <= S(1) && (t < best || !found)) {
          best = t;
          out = {t, v0 + s * e, MeshFeature::edge};
          found = true;
        }
      }
    }
    // Vertex: |w + t d|² = r².
    S t;
    if (entry_root(w, d, r, best, t) && (t < best || !found)) {
      best = t;
      out = {t, v0, MeshFeature::vertex};
      found = true;
    }
  }
  if (!found) return false;
  if (bf == BackFaces::ignore && n.dot(p + out.t * d) - offset < S(0)) return false;  // centre behind at contact
  return true;
}

/// The normal at a sphere's contact `point` on a triangle (plane n·x = offset), pointing toward
/// the centre: the face normal on the centre's side when the point is inside the face, where it
/// is exact (centre − point is along n only up to the rounding of the projection: a centre on
/// the plane gave a direction along the face), and the direction from point to centre at an edge
/// or a vertex, unit length however near they are; the face normal again when they coincide.
template <class S>
Vec3<S> contact_normal(const Vec3<S>& centre, const Vec3<S>& point, MeshFeature f, const Vec3<S>& n, S offset) {
  const Vec3<S> face = n.dot(centre) - offset >= S(0) ? n : Vec3<S>(-n);
  if (f == MeshFeature::face) return face;
  const Vec3<S> u = detail::unit_direction(Vec3<S>(centre - point));
  return u.squaredNorm() > S(0) ? u : face;
}


/// The sphere cast without validation; `limit` is the latest contact time of interest (lowered
/// by the caller for collections). Overlap first (a point query on the tree), then the sweep.
template <class S>
MeshCastHit<S> sphere_cast_core(const TriangleMesh<S>& mesh, const Vec3<S>& p, S r, const Vec3<S>& d,
                                const MeshSphereOptions<S>& opt, S limit) {
  const MeshTree<S>& m = detail::MeshAccess::tree(mesh);
  MeshCastHit<S> out;
  out.status = Status::miss;
  const BackFaces bf = opt.back_faces;
  // 1. Initial overlap with a counted triangle: the nearest one is reported.
  {
    S zero = S(0);
    bool have = false;
    S best_d2 = S(0);
    auto visit = [&](const PackedTriangle<S>& tri, S&) {
      const Vec3<S>& n = m.normals[tri.index];
      const S s0 = n.dot(p) - m.offsets[tri.index];
      if (s0 > r || s0 < -r) return;
      if (bf == BackFaces::ignore && s0 < S(0)) return;
      MeshFeature f;
      const Vec3<S> q = closest_on_triangle(p, tri.a, tri.b, tri.c, f);
      const S d2 = (p - q).squaredNorm();
      if (d2 > r * r || !better(d2, tri.index, best_d2, out.triangle, have)) return;
      have = true;
      best_d2 = d2;
      out.triangle = tri.index;
      out.point = q;
      out.feature = f;
    };
    if (opt.brute_force) {
      brute(mesh, zero, visit);
    } else {
      const Segment3<S> seg(p, Vec3<S>::Zero(), Vec3<S>::Constant(r), Vec3<S>::Constant(r));
      walk(m, seg, zero, visit);
    }
    if (have) {
      out.status = Status::initially_overlapping;
      out.normal = contact_normal(p, out.point, out.feature, m.normals[out.triangle], m.offsets[out.triangle]);
      return out;
    }
  }
  // 2. The sweep, nearest bin first, with early out.
  S best = limit;
  bool have = false;
  SphereContact<S> hit;
  auto visit = [&](const PackedTriangle<S>& tri, S& t_best) {
    const Vec3<S>& n = m.normals[tri.index];
    const S off = m.offsets[tri.index];
    const S s0 = n.dot(p) - off;
    if (bf == BackFaces::ignore && s0 >= -r && s0 < S(0)) {
      // Behind the plane but within r of it: a triangle overlapped from behind at t = 0 is not
      // counted now and cannot be first touched later.
      MeshFeature f;
      if ((p - closest_on_triangle(p, tri.a, tri.b, tri.c, f)).squaredNorm() <= r * r) return;
    }
    SphereContact<S> c;
    if (!sphere_triangle(tri, n, off, p, r, d, t_best, bf, c)) return;
    if (!better(c.t, tri.index, t_best, out.triangle, have)) return;
    have = true;
    t_best = c.t;
    hit = c;
    out.triangle = tri.index;
  };
  if (opt.brute_force) {
    brute(mesh, best, visit);
  } else {
    const Segment3<S> seg(p, d, Vec3<S>::Constant(r), Vec3<S>::Constant(r));
    walk(m, seg, best, visit);
  }
  if (!have) return out;
  const Vec3<S>& n = m.normals[out.triangle];
  out.status = Status::hit;
  out.contact_time = hit.t;
  out.point = hit.point;
  out.feature = hit.feature;
  const Vec3<S> centre = p + hit.t * d;
  out.normal = contact_normal(centre, hit.point, hit.feature, n, m.offsets[out.triangle]);
  out.toi = hit.t;
  if (opt.buffer > S(0)) {
    // Schroeder's distance buffer: back up along the path until the plane is `buffer` nearer.
    const S len = std::abs(d.dot(n));
    out.toi = len > S(0) ? std::max(S(0), hit.t - opt.buffer / len) : S(0);
  }
  return out;
}

}  // namespace impact::mesh_detail
