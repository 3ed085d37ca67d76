#pragma once
// impact — cast/mpr_cast.hpp: the linear shape cast by Minkowski portal refinement on the swept CSO (the 2010
// shape-casting note), reported at the supporting plane of its last support point.
#include <impact/cast.hpp>

#include "cast/contact_refinement.hpp"
#include "detail/gjk.hpp"
#include "detail/mpr.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

namespace impact::cast_detail {

/// Shape cast by MPR on the swept CSO (the 2010 note). In A's frame B moves by t·d, so the
/// shapes are within R = ra + rb + target at time t iff t·d ∈ K0 = (A − B(0)) ⊕ ball(R), i.e.
/// iff the origin is in K0 − t·d. The swept set K = K0 ⊕ [−d, 0] holds the origin iff that
/// happens for some t ∈ [0, 1]; then the ray from the origin along −d leaves K at −(1 − t*)·d.
/// The exit is bounded from outside by the supporting plane at MPR's last support point, so the
/// time is never late.
/// Returns false when the configuration is degenerate for MPR (no motion, or a swept CSO without
/// interior around the ray: flat shapes moving in their own plane); the caller then uses the
/// GJK ray cast.
template <class S, class A, class B>
bool mpr_cast(const A& a, S ra, const B& b, S rb, const Transform<S>& ta, const Transform<S>& b_in_a,
              const Vec3<S>& d, const ShapeCastOptions<S>& opt, CastHit<S>& out) {
  const S radius = ra + rb + opt.target_distance;
  // t = 0 first: contact within the target there is initially_overlapping, and MPR below needs
  // the origin strictly inside K.
  {
    GjkOptions<S> gopt;
    const auto g = detail::gjk_solve<false, S>(a, S(0), b, S(0), b_in_a, gopt, nullptr);
    if (g.status == Status::intersecting || g.v.norm() - radius <= opt.tolerance) {
      out.status = Status::initially_overlapping;
      out.iterations = g.iterations;
      return true;
    }
  }
  if (d.squaredNorm() == S(0)) {
    out.status = Status::miss;  // apart at t = 0 and not moving
    return true;
  }
  const Mat3<S> rt = b_in_a.rotation.transpose();
  int hint_a = -1, hint_b = -1;
  auto support = [&](const Vec3<S>& dir) {
    detail::MprVertex<S> v;
    v.a = detail::support_with_hint<S>(a, dir, hint_a);
    v.b = b_in_a.apply(detail::support_with_hint<S>(b, Vec3<S>(rt * -dir), hint_b));
    const S len = dir.norm();
    v.sweep = dir.dot(d) < S(0) ? S(1) : S(0);
    v.w = v.a - v.b - v.sweep * d;
    if (len > S(0)) v.w += (radius / len) * dir;
    return v;
  };
  const Vec3<S> center = interior_point<S>(a) - b_in_a.apply(interior_point<S>(b)) - d / S(2);
  // Is the origin in K? Cast from the interior point toward the origin.
  const auto in = detail::mpr_ray_exit<S>(support, center, Vec3<S>(-center), opt.tolerance, opt.max_iterations);
  // Where does the ray from the origin along −d leave K?
  const auto ex = in.ok && in.lambda >= S(1)
                      ? detail::mpr_ray_exit<S>(support, Vec3<S>::Zero(), Vec3<S>(-d), opt.tolerance, opt.max_iterations)
                      : detail::MprResult<S>{};
  out.iterations = in.iterations + ex.iterations;
  if (in.ok && in.lambda < S(1) && in.converged) {
    // The portal is within tolerance of K's boundary and the origin is beyond it: outside K, or
    // within tolerance of it (a graze that never gets closer than the tolerance).
    out.status = Status::miss;
    return true;
  }
  if (!in.ok || !ex.ok) return false;
  // Outer bound of the exit along −d from the last support plane: never later than the truth.
  const S toi = std::clamp(S(1) - ex.lambda_outer, S(0), S(1));
  out.status = ex.converged ? Status::hit : Status::max_iterations;
  out.toi = toi;
  if (out.status == Status::max_iterations) {
    // No claim of contact: the portal's points stand as they are (see below).
    out.point_a = ta.apply(ex.a + ra * ex.normal);
    out.point_b = ta.apply(ex.b + toi * d - rb * ex.normal);
    out.normal = ta.rotation * ex.normal;
    return true;
  }
  // The hit is proven, and its points found, by GJK distance between the cores at toi. The
  // portal's own barycentric points do not serve: its vertices take B at t = 0 or at t = 1
  // (`sweep`), so their combination is B's point at no single time, far off B at toi when the
  // motion is long (fuzzing: a box against one 1e9 long, points 150,733 apart at a hit of target
  // 0; a segment 5e10 long in float, a hit at toi 0 with its points 5e10 apart). Where GJK finds
  // the cores farther apart than R + tolerance (beyond its rounding floor) at toi, MPR's rounding
  // has claimed a contact that is not there, and the caller's GJK ray cast answers instead.
  const auto g = core_gjk_at<S>(a, b, b_in_a, d, toi);
  if (g.status != Status::intersecting && g.v.norm() - radius > opt.tolerance + gjk_resolved(g)) return false;
  // GJK's witnesses (they agree with its v, gjk_certify), grown along the portal's plane, which
  // is exact where both cores are flat; elsewhere shape_cast refines both at toi.
  const Vec3<S> n = ex.normal;
  Vec3<S> pa, pb;
  hit_witnesses(g, pa, pb);
  out.point_a = ta.apply(Vec3<S>(pa + ra * n));
  out.point_b = ta.apply(Vec3<S>(pb - rb * n));
  out.normal = ta.rotation * n;
  return true;
}

}  // namespace impact::cast_detail
