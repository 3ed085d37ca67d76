#pragma once
// impact — toi/extrusion_brent.hpp: Vlack & Tachi's extrusion test with Brent's method, on
// intervals [t_lo, t_try], made conservative. Included by toi/toi_solver.hpp.
//
// Paper mode: the stored directions accept an interval when one separates at both ends, and
// Brent's method on their largest supporting distance F picks the next t_x. Conservative mode
// (default) accepts only what the rotation bound proves (DirectionStore), and where the stored
// directions see the gap close it checks with GJK: contact found at t_c brackets the first
// contact in [t_lo, t_c], which bracket_narrowing.hpp then narrows on the exact distance; the
// intervals up to that root are then proven free one by one, each as long as the bound allows.
//
// One pass of the loop tests one interval (test_interval). Passed: t_lo moves to its end, either
// coasting on the stored directions or with GJK's exact distance there, and the next t_try is
// planned (pass_interval). Rejected: GJK at the far end, narrowing a known contact, Brent's
// method on F, or a shorter step (reject_interval).

namespace impact::toi {

/// Brent's method on F gets at most this many evaluations (count).
inline constexpr int kBrentEvaluations = 60;
/// Where the certifying direction kept at least this fraction of its separation over the interval
/// passed (and stays above the window), no contact is near: the stored directions carry on
/// without GJK. Measured on the benchmark scenes: 0.25 beat 1, 0.8, 0.5 and 0 (always skip).
inline constexpr double kCoastKeep = 0.25;
/// Where the model's proposals keep failing, this many steps go straight to the advancement step
/// before the model is asked again (count).
inline constexpr int kSafeRuns = 4;

template <class S, class A, class B>
void ToiSolver<S, A, B>::extrude(ToiHit<S>& out) {
  Extrusion x = start_extrusion();
  for (;;) {
    if (pair_.stats.interval_tests >= pair_.opt.max_iterations || dirs_.size() == 0) {
      give_up(out, x.t_lo);
      return;
    }
    ++pair_.stats.interval_tests;
    const IntervalTest test = test_interval(x);
    if ((test.accepted ? pass_interval(out, x, test) : reject_interval(out, x, test)) == Flow::done) return;
  }
}

/// GJK's axis at t = 0 stored, and (beyond the paper) the spin axes where they separate.
template <class S, class A, class B>
auto ToiSolver<S, A, B>::start_extrusion() -> Extrusion {
  const ToiOptions<S>& opt = pair_.opt;
  Extrusion x;
  x.target = opt.target_distance;
  x.aim = x.target + opt.tolerance / S(2);
  x.paper = opt.paper_acceptance;
  x.t_try = limit_;  // the first interval: the whole search, [0, max_toi]
  x.xtol = std::max(opt.tolerance / (S(4) * std::max(pair_.rel.speed, std::numeric_limits<S>::min())),
                    S(8) * std::numeric_limits<S>::epsilon());
  add_direction(lo_.normal, lo_tf_a_, lo_tf_b_, pair_.face_of_simplex());
  if (!x.paper) add_spin_axes(true);
  // With a spin axis stored (a fan's disc ahead), GJK at t = 1 rarely settles [0, 1]: skipped.
  x.far_end_tried = x.paper || fan_;
  return x;
}

/// The stored directions' separations at t_try and the best lower bound over [t_lo, t_try]. A
/// rejected interval's end is remembered: the chain of steps often aims at it again.
template <class S, class A, class B>
auto ToiSolver<S, A, B>::test_interval(Extrusion& x) -> IntervalTest {
  IntervalTest test;
  test.dt = x.t_try - x.t_lo;
  const bool again = x.t_try == failed_t_;
  test.ta = again ? failed_a_ : pair_.ka.at(x.t_try);
  test.tb = again ? failed_b_ : pair_.kb.at(x.t_try);
  S best = -std::numeric_limits<S>::infinity();
  test.f_try = best;
  for (int i = 0; i < dirs_.size(); ++i) {
    Direction<S>& d = dirs_[i];
    d.hi = again && d.at_t == x.t_try ? d.at_value : pair_.separation(d, test.ta, test.tb);
    test.f_try = std::max(test.f_try, d.hi);
    const S lb = x.paper ? d.hi : lower_bound(d, test.dt);
    if (lb > best) {
      best = lb;
      x.certified_by = i;
    }
  }
  test.accepted = x.paper ? best > x.target : best > x.target + pair_.rel.slack;
  if (!test.accepted) {
    failed_t_ = x.t_try;
    failed_a_ = test.ta;
    failed_b_ = test.tb;
    for (int i = 0; i < dirs_.size(); ++i) {
      dirs_[i].at_t = x.t_try;
      dirs_[i].at_value = dirs_[i].hi;
    }
  }
  return test;
}

/// No contact on [t_lo, t_try]: t_lo moves there (at the search's end, t = 1 or max_toi: a miss).
template <class S, class A, class B>
auto ToiSolver<S, A, B>::pass_interval(ToiHit<S>& out, Extrusion& x, const IntervalTest& test) -> Flow {
  if (x.t_try >= limit_) {  // apart up to the step's end, or up to max_toi
    pair_.stats.photo_finish = pair_.stats.interval_tests > 1;
    finish(out, Status::miss, S(1), lo_, Vec3<S>::Zero());
    return Flow::done;
  }
  if (x.proposing) x.failed_proposals = 0;
  x.stepped = x.t_try - x.t_lo;
  x.t_lo = x.t_try;
  lo_tf_a_ = test.ta;
  lo_tf_b_ = test.tb;
  if (coast(x)) return Flow::next;
  return exact_at_t_lo(out, x, test);
}

/// Where the certifying direction kept at least kCoastKeep of its separation and stays above the
/// window, no contact is near: the stored directions carry on without GJK (ensure_exact() runs
/// it where narrowing or Brent's step needs the exact distance at t_lo).
template <class S, class A, class B>
bool ToiSolver<S, A, B>::coast(Extrusion& x) {
  const Direction<S>& cert = dirs_[x.certified_by];
  if (x.paper || x.t_lo == window_t_ || !(cert.hi >= S(kCoastKeep) * cert.lo) ||
      !(cert.hi > x.target + pair_.opt.tolerance) || (x.cand <= x.t_lo && x.t_c <= S(1)))
    return false;
  lo_exact_ = false;
  dirs_.carry(x.stepped);
  propose_toward(x, search_end(x));
  return true;
}

/// GJK's exact distance at the new t_lo (narrowing's probe inside the window was GJK at this
/// very time: only its confirmation is left to do), its axis stored; within the window: a hit.
template <class S, class A, class B>
auto ToiSolver<S, A, B>::exact_at_t_lo(ToiHit<S>& out, Extrusion& x, const IntervalTest& test) -> Flow {
  const Vec3<S> fallback = world_direction(dirs_[x.certified_by], test.ta, test.tb);
  const Transform<S>& ta = test.ta;
  const Transform<S>& tb = test.tb;
  lo_exact_ = true;
  lo_ = x.t_lo == window_t_ ? window_r_ : pair_.distance(ta, tb, false);
  int lo_face = x.t_lo == window_t_ ? window_face_ : pair_.face_of_simplex();
  lo_edge_ = x.t_lo == window_t_ || lo_face ? EdgeModel<S>{} : edges_of_simplex(pair_, lo_.normal, ta, tb);
  if (pair_.needs_confirmation(lo_, ta, tb)) {
    lo_ = pair_.cold_distance(ta, tb);
    lo_face = pair_.face_of_simplex();
    lo_edge_ = lo_face ? EdgeModel<S>{} : edges_of_simplex(pair_, lo_.normal, ta, tb);
  }
  if (pair_.within(lo_)) {
    finish(out, Status::hit, x.t_lo, lo_, fallback);
    return Flow::done;
  }
  dirs_.carry(x.stepped);
  lo_face_ = lo_face;
  add_direction(lo_.normal, ta, tb, lo_face);
  if (!x.paper) add_spin_axes(false);
  return plan_from_exact(out, x);
}

/// The next interval from an exact t_lo: the secant through the last two exact distances where
/// they approach, narrowing where contact is bracketed, else a step toward the pending candidate.
template <class S, class A, class B>
auto ToiSolver<S, A, B>::plan_from_exact(ToiHit<S>& out, Extrusion& x) -> Flow {
  if (!x.paper && x.cand <= x.t_lo && x.t_c > S(1) && x.prev_t < x.t_lo && lo_.distance < x.prev_d) {
    // Marching toward contact: the secant through the last two exact distances predicts it.
    const int r = secant(x, x.prev_t, x.prev_d, x.t_lo, lo_.distance, 1);
    if (r < 0) {
      give_up(out, x.t_lo);
      return Flow::done;
    }
    if (r > 0) {
      x.proposing = false;
      x.prev_t = x.t_lo;
      x.prev_d = lo_.distance;
      return Flow::next;
    }
  }
  x.prev_t = x.t_lo;
  x.prev_d = lo_.distance;
  if (x.cand <= x.t_lo && x.t_c <= S(1)) {
    x.proposing = false;
    if (!narrow(x)) {
      give_up(out, x.t_lo);
      return Flow::done;
    }
    return Flow::next;
  }
  // Toward the pending candidate (or the search's end), as far as the directions' model allows.
  const S end = search_end(x);
  if (!x.paper && x.failed_proposals > 0 && x.safe_runs < kSafeRuns) {
    // Marching where the model's proposals keep failing: straight to the advancement step (the
    // model is asked again every fifth step).
    ++x.safe_runs;
    x.proposing = false;
    x.t_try = x.t_lo + dirs_.safe_step(end - x.t_lo);
  } else {
    x.safe_runs = 0;
    propose_toward(x, end);
  }
  return Flow::next;
}

/// t_try: `end`, or the step the directions' model proposes when shorter (the paper: `end`).
template <class S, class A, class B>
void ToiSolver<S, A, B>::propose_toward(Extrusion& x, S end) {
  const S h = x.paper ? end - x.t_lo : dirs_.next_step(end - x.t_lo);
  x.proposing = h < end - x.t_lo;
  x.t_try = x.proposing ? x.t_lo + h : end;
}

/// Beyond the paper, once: GJK's axis at the first rejected end often separates at t_lo too
/// (bodies passing each other), which settles the interval in one more test. True when a new
/// direction was stored (test again); contact found there becomes t_c.
template <class S, class A, class B>
bool ToiSolver<S, A, B>::try_far_end(Extrusion& x, const IntervalTest& test) {
  if (x.far_end_tried) return false;
  x.far_end_tried = true;
  x.proposing = false;
  const DistanceResult<S> r1 = pair_.distance(test.ta, test.tb, false);
  if (pair_.touching(r1)) {
    x.t_c = x.t_try;
    return false;
  }
  const int before = dirs_.size();
  add_direction(r1.normal, test.ta, test.tb, pair_.face_of_simplex());
  return dirs_.size() != before;
}

/// The bound could not prove [t_lo, t_try]: find out why, or try a shorter interval.
template <class S, class A, class B>
auto ToiSolver<S, A, B>::reject_interval(ToiHit<S>& out, Extrusion& x, const IntervalTest& test) -> Flow {
  if (try_far_end(x, test)) return Flow::next;
  if (!x.paper && x.t_c <= x.t_try) {
    x.proposing = false;
    if (!ensure_exact(out, x.t_lo)) return Flow::done;
    // Contact is known at t_c within the rejected interval: narrow it on the distance.
    if (!narrow(x)) {
      give_up(out, x.t_lo);
      return Flow::done;
    }
    return Flow::next;
  }
  S f_lo = -std::numeric_limits<S>::infinity();
  for (int i = 0; i < dirs_.size(); ++i) f_lo = std::max(f_lo, dirs_[i].lo);
  // Beyond the paper: Brent's method on F only where F falls mostly by translation; where
  // turning dominates (K·Δt above F's fall), F's root says little about contact and the
  // bound's steps below go faster.
  bool linearish = true;
  if (!x.paper) {
    S kmax = 0;
    for (int i = 0; i < dirs_.size(); ++i) kmax = std::max(kmax, dirs_[i].k);
    linearish = kmax * test.dt < f_lo - test.f_try;
  }
  if (linearish && test.f_try < x.aim && f_lo > x.aim && (x.paper || (x.cand <= x.t_lo && x.t_c > S(1))))
    return brent_on_directions(out, x, test, f_lo);
  return step_back(out, x, test);
}

/// The stored directions see the gap close before t_try: Brent's method on their largest
/// supporting distance F picks t_x, on the safe side of its root (the paper's step). Beyond the
/// paper, GJK checks t_x: contact there is bracketed and narrowed; apart, t_x is the candidate and
/// the secant through the exact distances at t_lo and t_x probes ahead.
template <class S, class A, class B>
auto ToiSolver<S, A, B>::brent_on_directions(ToiHit<S>& out, Extrusion& x, const IntervalTest& test, S f_lo)
    -> Flow {
  auto f = [&](S t) {
    const Transform<S> fa = pair_.ka.at(t), fb = pair_.kb.at(t);
    S m = -std::numeric_limits<S>::infinity();
    for (int i = 0; i < dirs_.size(); ++i) m = std::max(m, pair_.separation(dirs_[i], fa, fb));
    return m - x.aim;
  };
  const auto root =
      detail::brent_root<S>(f, x.t_lo, f_lo - x.aim, x.t_try, test.f_try - x.aim, x.xtol, kBrentEvaluations);
  pair_.stats.brent_evals += root.evaluations;
  const S t_x = root.positive > x.t_lo ? root.positive : x.t_lo + S(0.5) * (root.negative - x.t_lo);
  if (!(t_x > x.t_lo && t_x < x.t_try)) {
    give_up(out, x.t_lo);
    return Flow::done;
  }
  x.t_try = t_x;
  x.proposing = false;
  if (x.paper) return Flow::next;
  if (!ensure_exact(out, x.t_lo)) return Flow::done;
  // Is the gap really closed at t_x? A stored direction underestimates the gap (its support runs
  // to the tip of a turning edge).
  const Transform<S> xa = pair_.ka.at(t_x), xb = pair_.kb.at(t_x);
  const DistanceResult<S> rx = pair_.distance(xa, xb, false);
  if (pair_.touching(rx)) {
    x.t_c = t_x;
    if (!narrow(x)) {
      give_up(out, x.t_lo);
      return Flow::done;
    }
    return Flow::next;
  }
  add_direction(rx.normal, xa, xb, pair_.face_of_simplex());
  x.cand = t_x;
  // The secant through the exact distances at t_lo and t_x predicts contact; if GJK confirms
  // it, the first contact is bracketed.
  if (secant(x, x.t_lo, lo_.distance, t_x, rx.distance, 3) < 0) {
    give_up(out, x.t_lo);
    return Flow::done;
  }
  return Flow::next;
}

/// The stored directions keep the shapes apart at t_try, but the rotation bound cannot prove the
/// whole interval: try the longest step the bound should certify. A rejected proposal falls back
/// to the advancement step, which the bound always passes.
template <class S, class A, class B>
auto ToiSolver<S, A, B>::step_back(ToiHit<S>& out, Extrusion& x, const IntervalTest& test) -> Flow {
  const S dt = test.dt;
  for (int i = 0; i < dirs_.size(); ++i) dirs_[i].slope = (dirs_[i].hi - dirs_[i].lo) / dt;
  if (x.proposing) ++x.failed_proposals;
  S step = x.paper ? dt / S(2) : x.proposing ? dirs_.safe_step(dt) : dirs_.next_step(dt);
  x.proposing = !x.paper && !x.proposing;
  if (!(step < dt)) step = dt / S(2);
  x.t_try = x.t_lo + step;
  if (!(x.t_try > x.t_lo)) {  // no representable progress: report the proven bound
    give_up(out, x.t_lo);
    return Flow::done;
  }
  return Flow::next;
}

/// Beyond the paper: along a body's spin axis its turning moves no support value, so a plane
/// across that axis (a fan's disc) separates for as long as the bodies' translation allows.
/// Stored at t_lo where it separates by at least half the distance (else it costs more tests
/// than it saves): at the start both signs are tried, later only the side B's origin is on (a
/// body that crossed the disc's plane), and only when no stored direction is that axis.
template <class S, class A, class B>
void ToiSolver<S, A, B>::add_spin_axes(bool both_signs) {
  const Kinematics<S>& ka = pair_.ka;
  const Kinematics<S>& kb = pair_.kb;
  const S target = pair_.opt.target_distance;
  const S useful = target + std::max(pair_.rel.slack, S(0.5) * (lo_.distance - target));
  const Vec3<S> d = lo_tf_b_.translation - lo_tf_a_.translation;
  const S reach = ka.radius + kb.radius + pair_.ra + pair_.rb;
  for (const Vec3<S>* axis : {&ka.axis, &kb.axis}) {
    if (!(axis->squaredNorm() > S(0))) continue;
    const S side = d.dot(*axis) < S(0) ? S(-1) : S(1);
    // The separation along ±u is at most |d·u| + the reaches: no support calls where that is short.
    if (!both_signs && !(std::abs(d.dot(*axis)) + reach > useful)) continue;
    for (const S sign : {side, -side}) {
      const Vec3<S> u = sign * *axis;
      if (!both_signs && dirs_.holds_world(u)) break;
      const S along = pair_.separation(u, lo_tf_a_, lo_tf_b_);
      if (along > useful) {
        Direction<S> dir = dirs_.make(u, nullptr, nullptr, S(0), 0, false);  // fixed: the world's bounds
        dir.lo = dir.hi = along;
        dirs_.store(dir);
        const Kinematics<S>& kx = axis == &ka.axis ? ka : kb;
        const Kinematics<S>& ky = axis == &ka.axis ? kb : ka;
        fan_ = fan_ || kx.spin * kx.radius > S(2) * (pair_.rel.vrel.norm() + ky.spin * ky.radius);
        break;
      }
      if (!both_signs) break;
    }
  }
}

/// GJK at t_lo where the last step skipped it (the stored directions carried on): lo_ exact,
/// its axis stored. False (and `out` finished as a hit) when the shapes are within the window.
template <class S, class A, class B>
bool ToiSolver<S, A, B>::ensure_exact(ToiHit<S>& out, S t_lo) {
  if (lo_exact_) return true;
  lo_exact_ = true;
  lo_ = pair_.distance(lo_tf_a_, lo_tf_b_, false);
  lo_face_ = pair_.face_of_simplex();
  lo_edge_ = lo_face_ ? EdgeModel<S>{} : edges_of_simplex(pair_, lo_.normal, lo_tf_a_, lo_tf_b_);
  if (pair_.needs_confirmation(lo_, lo_tf_a_, lo_tf_b_)) {
    lo_ = pair_.cold_distance(lo_tf_a_, lo_tf_b_);
    lo_face_ = pair_.face_of_simplex();
    lo_edge_ = lo_face_ ? EdgeModel<S>{} : edges_of_simplex(pair_, lo_.normal, lo_tf_a_, lo_tf_b_);
  }
  if (pair_.within(lo_)) {
    finish(out, Status::hit, t_lo, lo_, lo_.normal);
    return false;
  }
  add_direction(lo_.normal, lo_tf_a_, lo_tf_b_, lo_face_);
  return true;
}

/// The iteration cap or a bracket that cannot be narrowed: t_lo is a proven lower bound.
template <class S, class A, class B>
void ToiSolver<S, A, B>::give_up(ToiHit<S>& out, S t_lo) {
  if (ensure_exact(out, t_lo)) finish(out, Status::max_iterations, t_lo, lo_, Vec3<S>::Zero());
}

/// Secant probes on the exact distance through (t0, d0) and (t1, d1), at most `probes` GJK calls,
/// each aiming inside the window. A probe that finds contact brackets the first one in
/// [t_lo, probe] and hands over to narrow(); the first probe that finds the shapes apart becomes
/// `cand` (its axis stored) unless a candidate is pending. Returns 1 when narrow() set t_try,
/// 0 when no contact was found, −1 when narrowing failed.
template <class S, class A, class B>
int ToiSolver<S, A, B>::secant(Extrusion& x, S t0, S d0, S t1, S d1, int probes) {
  for (int k = 0; k < probes && d0 > d1; ++k) {
    const S tp = std::min(limit_, t1 + (d1 - x.aim) * (t1 - t0) / (d0 - d1));
    if (!(tp > t1)) break;
    const Transform<S> pa = pair_.ka.at(tp), pb = pair_.kb.at(tp);
    const DistanceResult<S> rp = pair_.distance(pa, pb, false);
    if (pair_.touching(rp)) {
      x.t_c = tp;
      return narrow(x) ? 1 : -1;
    }
    if (x.cand <= x.t_lo) {
      x.cand = tp;
      add_direction(rp.normal, pa, pb, pair_.face_of_simplex());
    }
    if (tp >= limit_) break;
    t0 = t1;
    d0 = d1;
    t1 = tp;
    d1 = rp.distance;
  }
  return 0;
}

}  // namespace impact::toi
