#pragma once
// impact — cast/mpr_cast.hpp: the linear shape cast by Minkowski portal refinement on the swept CSO (the 2010
// shape-casting note), reported at the supporting plane of its last support point.
#include <impact/cast.hpp>

#include "cast/contact_refinement.hpp"
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
  const Vec3<S> n = ex.normal;
  out.point_a = ta.apply(ex.a + ra * n);
  out.point_b = ta.apply(ex.b + toi * d - rb * n);
  out.normal = ta.rotation * n;
  return true;
}

}  // namespace impact::cast_detail
