#pragma once
// impact — cast/gjk_raycast_cast.hpp: the linear shape cast by the GJK ray cast on the configuration space obstacle
// (van den Bergen 2004), with the one-support early out for sweeps that pass beside it.
#include <impact/cast.hpp>

#include "cast/conservative_advancement.hpp"
#include "cast/contact_refinement.hpp"
#include "detail/ray_cast_core.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

namespace impact::cast_detail {

/// The linear shape cast as van den Bergen's GJK ray cast on the CSO (2004, §4): at time t the
/// shapes are within R = ra + rb + target iff t·d is within R of A − B(0).
template <class S, class A, class B>
CastHit<S> gjk_raycast_cast(const A& ca, S ra, const B& cb, S rb, const Transform<S>& ta, const Transform<S>& b_in_a,
                            const Vec3<S>& d, const ShapeCastOptions<S>& opt) {
  // GJK ray cast on the CSO A − B(0) with the ray t·d from the origin: at time t the shapes
  // are within R = ra + rb + target iff t·d is within R of A − B(0). The loop runs in double
  // for float shapes too: in float, rounding stalled it short of the tolerance on a few sweeps
  // in 10,000 (its progress guards then reported hits that come no closer than 3e-4). The
  // support mappings stay in S.
  using C = double;
  const Transform<C> bia = detail::promote_transform<C>(b_in_a);
  const Mat3<C> rt = bia.rotation.transpose();
  const Vec3<C> dc = d.template cast<C>();
  int hint_a = -1, hint_b = -1;
  auto support = [&](const Vec3<C>& dir, Vec3<C>& pa, Vec3<C>& pb) -> Vec3<C> {
    pa = detail::support_with_hint<S>(ca, Vec3<S>(dir.template cast<S>()), hint_a).template cast<C>();
    pb = bia.apply(detail::support_with_hint<S>(cb, Vec3<S>((rt * -dir).template cast<S>()), hint_b).template cast<C>());
    return pa - pb;
  };
  const C radius = C(ra) + C(rb) + C(opt.target_distance);
  const C tol = C(opt.tolerance);
  // A sweep passing beside the CSO: the plane through the ray's line facing away from the CSO's
  // centre (the cores' origins) separates them when the CSO's support value there is below
  // −tolerance (closer than that at t = 0 is the GJK path's initially_overlapping test).
  // About half the sweeps of a scene miss, most of them this way: one support call each.
  if (const C dd = dc.squaredNorm(); dd > C(0)) {
    Vec3<C> away = bia.translation;  // minus the CSO's centre
    away -= (away.dot(dc) / dd) * dc;
    if (const C len = away.norm(); len > C(0)) {
      // `away` is perpendicular to the sweep only up to rounding: when the centre lies on the
      // sweep's line (a head-on approach) it is all rounding, and may point along the sweep.
      // The sweep's points s·d, s in [0, 1], then lie up to min(0, away·d) below the plane, so
      // the proof compares with that, not with 0: a plane across the sweep separates the CSO
      // from the origin, not from the sweep (found by fuzzing: head-on casts answered miss).
      const C along = std::min(C(0), away.dot(dc));
      Vec3<C> pa, pb;
      if (away.dot(support(away, pa, pb)) + (radius + tol) * len < along) {
        CastHit<S> h;
        h.status = Status::miss;
        return h;
      }
    }
  }
  // The stop is the caller's tolerance on the distance (the relative test of ray_cast would
  // fire first in float, a thousandth of the size away, and report sweeps that pass 1e-3 apart
  // as hits); where rounding prevents reaching it, the core's progress guards stop it.
  constexpr bool curved = !(kFlatCore<A, S> && kFlatCore<B, S>);
  const auto res = detail::gjk_ray_cast_core<C, decltype(support)&, curved>(
      support, radius, Vec3<C>::Zero(), dc, C(1), C(0), tol, opt.max_iterations, bia.translation);
  CastHit<S> h;
  h.status = res.status;
  h.iterations = res.iterations;
  h.toi = detail::time_below<S>(res.lambda);
  // A hit at t = 0 claims that the shapes are within the target now. The core also stops there
  // when rounding stalls Johnson's sub-algorithm (a sliver triangle 1e9 long against a shape 4e3
  // from its origin, found by fuzzing: `initially_overlapping` at a distance of 7.8 for a target
  // of 4), so like the two near-t = 0 answers below the claim is checked by GJK distance (with
  // its wider retry); refuted, the cast is answered by conservative advancement, whose steps are
  // proven by that same distance.
  const bool hit_at_start = res.status == Status::hit && res.lambda == C(0);
  if (hit_at_start || (res.status == Status::miss && res.lambda == C(0) && res.margin <= tol) ||
      (res.status == Status::hit && res.lambda > C(0) && res.lambda * dc.norm() <= tol)) {
    // Moving apart from t = 0 with a plane that proves less than the tolerance, or a hit a
    // rounding step after t = 0: the shapes may touch at t = 0, which the other methods (and
    // the protocol) call initially_overlapping.
    GjkOptions<S> gopt;
    const auto g = detail::gjk_solve<false, S>(ca, S(0), cb, S(0), b_in_a, gopt, nullptr);
    const bool contact = g.status == Status::intersecting || g.v.norm() - S(radius) <= opt.tolerance;
    // A claim of contact that one of the shapes' axes refutes is GJK's rounding on a sliver:
    // conservative advancement answers.
    if (contact && axes_separate<S>(ca, cb, b_in_a, S(radius) + opt.tolerance))
      return advance<S>(ca, ra, cb, rb, ta, b_in_a, d, opt);
    if (contact) {
      h.status = Status::initially_overlapping;
      h.toi = S(0);
      return h;
    }
    if (hit_at_start) return advance<S>(ca, ra, cb, rb, ta, b_in_a, d, opt);
  }
  if (res.status == Status::hit) {
    // The core also answers `hit` where rounding stops its progress (Johnson's sub-algorithm on a
    // sliver 1e12 long, found by fuzzing: a hit whose witnesses lay 6.4 apart, the shapes never
    // nearer than 4.5). Its witnesses are points of the two cores, so when they lie within
    // R + tolerance the hit is proven; otherwise GJK distance at that time decides (it has the
    // wider retry), and refuted, the cast is answered by conservative advancement.
    Vec3<C> pa = res.pa, pb = res.pb + res.lambda * dc;  // the cores' points at the hit
    // v = x − c points from A's point toward B's point at the hit: the normal from A to B.
    Vec3<C> n = res.normal.normalized();
    const C eps = C(std::numeric_limits<S>::epsilon());
    const C slack = C(detail::kGjkRoundingUlps) * eps * (std::max(pa.norm(), pb.norm()) + radius);
    if ((pa - pb).norm() - radius > tol + slack) {
      const Transform<S> at_toi = moved(b_in_a, d, static_cast<S>(res.lambda));
      const auto g = detail::gjk_solve<false, S>(ca, S(0), cb, S(0), at_toi, GjkOptions<S>{}, nullptr);
      if ((g.status != Status::intersecting && C(g.v.norm()) - radius > tol + slack) ||
          axes_separate<S>(ca, cb, at_toi, static_cast<S>(radius + tol + slack)))
        return advance<S>(ca, ra, cb, rb, ta, b_in_a, d, opt);
      // Confirmed, the hit takes GJK's points, which agree with its v (gjk_certify): the
      // core's stay as far apart as they were (a needle 1e12 long: 819,855 apart at a hit of
      // target 0, found by fuzz_shape_cast's points certificate).
      Vec3<S> ga, gb;
      hit_witnesses(g, ga, gb);
      pa = ga.template cast<C>();
      pb = gb.template cast<C>();
      // Its direction too where it has one; touching (`intersecting`), v is rounding, and the
      // core's last plane stays.
      if (const C len = C(g.v.norm()); g.status != Status::intersecting && len > C(0))
        n = -g.v.template cast<C>() / len;
    }
    const Vec3<S> ns = n.template cast<S>();
    h.point_a = ta.apply(Vec3<C>(pa + C(ra) * n).template cast<S>());
    h.point_b = ta.apply(Vec3<C>(pb - C(rb) * n).template cast<S>());
    h.normal = ta.rotation * ns;
  }
  return h;
}

}  // namespace impact::cast_detail
