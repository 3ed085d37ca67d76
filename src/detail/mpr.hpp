// impact — detail/mpr.hpp: Minkowski portal refinement (Snethen's XenoCollide) as a ray cast
// from an interior point, for the linear shape cast "MPR on the swept CSO" (2010 note).
//
// Given a convex set K by its support mapping, a point p inside K and a direction r, MPR finds
// where the ray p + λr leaves K. Phase 1 (portal discovery) finds three support points whose
// cone from p contains the ray; phase 2 (refinement) replaces one portal vertex at a time by the
// support point along the portal's normal until the portal lies on K's boundary within
// tolerance. The formulas are XenoCollide's with the origin replaced by the target p + r.
#pragma once

#include <impact/math.hpp>

#include <cmath>
#include <limits>

namespace impact::detail {

template <class S>
struct MprVertex {
  Vec3<S> w;   // support point minus p
  Vec3<S> a;   // A's part of the support point (for witnesses)
  Vec3<S> b;   // B's part
  S sweep = 0; // the sweep segment's part (0 or 1: which end)
};

template <class S>
struct MprResult {
  bool ok = false;        // false: degenerate configuration (p on the boundary, flat K)
  bool converged = false; // false: iteration cap reached; lambda is then the portal's (inner) bound
  S lambda = 0;           // exit parameter along r where it crosses the final portal (inner bound)
  S lambda_outer = 0;     // exit parameter at the supporting plane of the last support point (outer bound)
  Vec3<S> normal = Vec3<S>::Zero();  // outward normal of K at the exit point (unit)
  Vec3<S> a = Vec3<S>::Zero();       // barycentric combination of the portal's A parts
  Vec3<S> b = Vec3<S>::Zero();       // ... of its B parts
  S sweep = 0;                       // ... of its sweep parts
  int iterations = 0;
};

/// `support(d)` returns an MprVertex with w = s_K(d) (absolute; this function subtracts p).
/// `tol`: stop when the exit is bracketed to this length: the portal's crossing (inside K) and the
/// last support plane's (outside) are within `tol` of each other.
template <class S, class Support>
MprResult<S> mpr_ray_exit(Support&& support, const Vec3<S>& p, const Vec3<S>& r, S tol, int max_iterations) {
  MprResult<S> out;
  auto sup = [&](const Vec3<S>& d) {
    MprVertex<S> v = support(d);
    v.w -= p;
    return v;
  };
  const S tiny = S(64) * std::numeric_limits<S>::epsilon();
  MprVertex<S> v1 = sup(r);
  const S scale = std::max(v1.w.norm(), r.norm());
  if (!(v1.w.dot(r) > tiny * scale * r.norm())) return out;  // p on the boundary facing r
  Vec3<S> n = r.cross(v1.w);
  if (n.squaredNorm() <= square(tiny * scale * r.norm())) {
    // The support point along r lies on the ray: it is the exit point.
    out.ok = out.converged = true;
    out.lambda = out.lambda_outer = v1.w.dot(r) / r.squaredNorm();
    out.normal = r.normalized();
    out.a = v1.a;
    out.b = v1.b;
    out.sweep = v1.sweep;
    return out;
  }
  MprVertex<S> v2 = sup(n);
  n = v1.w.cross(v2.w);
  if (n.squaredNorm() <= square(tiny * scale * scale)) return out;  // flat: K has no interior here
  if (n.dot(r) < S(0)) {
    std::swap(v1, v2);
    n = -n;
  }
  MprVertex<S> v3;
  int it = 0;
  // Phase 1: portal discovery.
  for (;;) {
    if (++it > max_iterations) return out;
    v3 = sup(n);
    if (v1.w.cross(v3.w).dot(r) > S(0)) {
      v2 = v3;
      n = v1.w.cross(v3.w);
      continue;
    }
    if (v3.w.cross(v2.w).dot(r) > S(0)) {
      v1 = v3;
      n = v3.w.cross(v2.w);
      continue;
    }
    break;
  }
  // Phase 2: refinement.
  for (;;) {
    n = (v2.w - v1.w).cross(v3.w - v1.w);
    const S nn = n.norm();
    if (!(nn > S(0))) return out;
    n /= nn;
    if (n.dot(r) < S(0)) n = -n;
    const MprVertex<S> v4 = sup(n);
    const S gap = (v4.w - v1.w).dot(n);
    // Done when the two bounds of the exit are within `tol` of each other as points: the ray
    // meets the portal (inside K) at λ and the supporting plane of v4 (outside K, or on it) at
    // λ_outer = λ + gap / (n·r), so the outer point is within (λ_outer − λ)·‖r‖ of K. Testing the
    // gap alone allowed that much more by 1 / cos of the ray's incidence: a shape cast of
    // 1e-5-sized shapes stopped 6.9e-6 short with a tolerance of 1e-6 (the million-case battery).
    const S nr = n.dot(r);
    const bool done = gap * r.norm() <= tol * nr || gap <= tiny * v4.w.norm();
    if (done || it >= max_iterations) {
      // Exit point: the ray meets the portal plane n·(x − v1) = 0.
      if (!(nr > S(0))) return out;
      out.lambda = n.dot(v1.w) / nr;
      out.lambda_outer = std::max(out.lambda, n.dot(v4.w) / nr);
      const Vec3<S> x = out.lambda * r;
      // Barycentric coordinates of x in the portal triangle.
      const Vec3<S> e1 = v2.w - v1.w, e2 = v3.w - v1.w, q = x - v1.w;
      const S d11 = e1.dot(e1), d12 = e1.dot(e2), d22 = e2.dot(e2), q1 = q.dot(e1), q2 = q.dot(e2);
      const S den = d11 * d22 - d12 * d12;
      S b2 = 0, b3 = 0;
      if (den > S(0)) {
        b2 = std::clamp((d22 * q1 - d12 * q2) / den, S(0), S(1));
        b3 = std::clamp((d11 * q2 - d12 * q1) / den, S(0), S(1) - b2);
      }
      const S b1 = S(1) - b2 - b3;
      out.a = b1 * v1.a + b2 * v2.a + b3 * v3.a;
      out.b = b1 * v1.b + b2 * v2.b + b3 * v3.b;
      out.sweep = b1 * v1.sweep + b2 * v2.sweep + b3 * v3.sweep;
      out.normal = n;
      out.ok = true;
      out.converged = done;
      out.iterations = it;
      return out;
    }
    ++it;
    // Keep the two of the three candidate portals (v4 with two old vertices) that the ray
    // crosses (XenoCollide's three plane tests through p and v4).
    const Vec3<S> t = r.cross(v4.w);
    if (v1.w.dot(t) > S(0)) {
      if (v2.w.dot(t) > S(0)) v1 = v4;
      else v3 = v4;
    } else {
      if (v3.w.dot(t) > S(0)) v2 = v4;
      else v1 = v4;
    }
  }
}

}  // namespace impact::detail
