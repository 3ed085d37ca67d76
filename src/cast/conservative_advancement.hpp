#pragma once
// impact — cast/conservative_advancement.hpp: the linear shape cast by conservative advancement: GJK distance at t, advanced by
// the separation it proves along its axis (exactly linear in t under translation; the bound is
// detail/advancement_bound.hpp's, shared with the rotating case).
#include <impact/cast.hpp>

#include "cast/contact_refinement.hpp"
#include "detail/advancement_bound.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

namespace impact::cast_detail {

/// Shape cast by conservative advancement: GJK distance at t (warm-started from the previous
/// step), then advance to where the separation along GJK's axis, a proven lower bound of the
/// distance that changes linearly under translation, reaches the target.
template <class S, class A, class B>
CastHit<S> advance(const A& a, S ra, const B& b, S rb, const Transform<S>& ta, const Transform<S>& b_in_a,
                   const Vec3<S>& d, const ShapeCastOptions<S>& opt) {
  CastHit<S> out;
  GjkCache<S> cache;
  GjkOptions<S> gopt;
  const S radii = ra + rb;
  S t = 0;
  int steps = 0;
  Vec3<S> axis = Vec3<S>::Zero();  // the last separating axis advanced along (A toward B)
  for (;;) {
    const Transform<S> bt = moved(b_in_a, d, t);
    const auto g = detail::gjk_solve<false, S>(a, S(0), b, S(0), bt, gopt, &cache);
    const S len = g.v.norm();
    const S upper = len - radii;  // distance at t is at most this (v is a point of the CSO)
    // GJK resolves a distance to a few ulps of the simplex's largest vertex, no finer: a
    // tolerance below that is honoured at that floor (a sliver 1e11 long: rounding of 2e-5 kept
    // every step above a tolerance of 1e-6, and the cast spent its iterations for nothing).
    // A contact GJK claims is refuted when one of the shapes' own axes separates them (GJK's
    // rounding on a sliver 1e12 long; contact_refinement.hpp): the step then goes along it.
    Vec3<S> refuting = Vec3<S>::Zero();
    S refuted_sep = S(0);
    const bool contact = g.status == Status::intersecting || upper <= opt.target_distance + std::max(opt.tolerance, gjk_resolved(g));
    if (contact && !axes_separate<S>(a, b, bt, radii + opt.target_distance + opt.tolerance, &refuting, &refuted_sep)) {
      out.status = steps == 0 ? Status::initially_overlapping : Status::hit;
      out.toi = t;
      // The axis of the last step is a plane that touches both shapes at t: a valid contact
      // normal, where GJK's v may be too short to have a direction.
      Vec3<S> n = steps > 0 ? axis : len > S(0) ? Vec3<S>(-g.v / len) : Vec3<S>::Zero();
      if (steps > 0 && len > S(0)) {
        // GJK's own direction at toi may support the shapes better than the last step's axis
        // (on curved shapes the axis can come from a step taken with the proven bound of an
        // earlier axis): keep whichever separates them more along itself.
        const Vec3<S> m = -g.v / len;
        if (core_separation<S>(a, b, bt, m) > core_separation<S>(a, b, bt, n)) n = m;
      }
      Vec3<S> pa, pb;
      hit_witnesses(g, pa, pb);
      out.point_a = ta.apply(Vec3<S>(pa + ra * n));
      out.point_b = ta.apply(Vec3<S>(pb - rb * n));
      out.normal = ta.rotation * n;
      break;
    }
    if (steps >= opt.max_iterations) {
      out.status = Status::max_iterations;
      out.toi = t;
      break;
    }
    ++steps;
    // Separation along n = −v̂ (A toward B): sep(t') = sep(t) + (t' − t)·n·d, exactly linear.
    // It is measured along n itself (two support calls): GJK's proven bound `lower` may come
    // from an earlier, different axis, and stepping n by it would overshoot n's own plane (on
    // curved shapes the final normal then failed to separate the shapes at the hit).
    const Vec3<S> n = contact ? refuting : Vec3<S>(-g.v / len);
    axis = n;
    const S approach = detail::approach_speed(S(0), n.dot(d));  // no rotation: K = 0
    const S sep_n = contact ? refuted_sep - radii : core_separation<S>(a, b, bt, n) - radii;
    const S sep = sep_n > opt.target_distance || contact ? sep_n : g.lower - radii;
    if (approach <= S(0)) {
      out.status = Status::miss;
      break;
    }
    t += detail::advance_time(std::max(S(0), sep - opt.target_distance), approach);
    if (t > S(1)) {
      out.status = Status::miss;
      break;
    }
  }
  out.iterations = steps;
  return out;
}

}  // namespace impact::cast_detail
