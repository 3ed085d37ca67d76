#pragma once
// impact — toi/rotating_advancement.hpp: conservative advancement under rotation (the 2010
// shape-casting note's method with Vlack & Tachi's bound on the turning). Included by
// toi/toi_solver.hpp.
//
// The bound is detail/advancement_bound.hpp's, shared with the linear cast: along a unit s, the
// separation falls at most at K(s) − s·v_rel, K(s) = |s × ωA|·rA + |s × ωB|·rB (rotation_speed).

#include "detail/advancement_bound.hpp"

namespace impact::toi {

/// From t, the separation along GJK's axis s decreases at most at K(s) − s·v_rel, so it stays
/// above the target for (sep − target) / that rate: advance that far and ask GJK again.
template <class S, class A, class B>
void ToiSolver<S, A, B>::advance(ToiHit<S>& out) {
  const ToiOptions<S>& opt = pair_.opt;
  S t = 0;
  Transform<S> ta = lo_tf_a_, tb = lo_tf_b_;
  DistanceResult<S> r = lo_;
  bool cold_retry = false;
  for (int step = 0;; ++step) {
    if (step >= opt.max_iterations) {
      finish(out, Status::max_iterations, t, r, Vec3<S>::Zero());
      return;
    }
    const Vec3<S> s = r.normal;
    const S sep = pair_.separation(s, ta, tb);
    const S rate = detail::approach_speed(rotation_speed(s, pair_.ka, pair_.kb), S(s.dot(pair_.rel.vrel)));
    if (rate <= S(0)) {
      finish(out, Status::miss, S(1), r, s);
      return;
    }
    const S dt = detail::advance_time(sep - opt.target_distance - pair_.rel.slack, rate);
    if (!(dt > S(0))) {
      // GJK's axis no longer proves the gap (a warm start can end on an axis a little off the
      // true one, which a gap of a few tolerances does not absorb): once, ask a cold GJK.
      if (!cold_retry) {
        cold_retry = true;
        r = pair_.cold_distance(ta, tb);
        if (pair_.within(r)) {
          finish(out, Status::hit, t, r, s);
          return;
        }
        --step;
        continue;
      }
      finish(out, Status::max_iterations, t, r, s);
      return;
    }
    cold_retry = false;
    const S next = t + dt;
    if (next > S(1) || next > limit_) {  // apart past the step, or past max_toi
      finish(out, Status::miss, S(1), r, s);
      return;
    }
    t = next;
    ta = pair_.ka.at(t);
    tb = pair_.kb.at(t);
    r = pair_.distance(ta, tb);
    if (pair_.within(r)) {
      finish(out, Status::hit, t, r, s);
      return;
    }
  }
}

}  // namespace impact::toi
