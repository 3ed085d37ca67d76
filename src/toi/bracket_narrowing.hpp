#pragma once
// impact — toi/bracket_narrowing.hpp: narrowing a bracket [t_lo, t_c] of the first contact on the
// exact distance (GJK at t_lo: apart by more than the window; at t_c: within the target) until a
// probe lands inside the window. Brent-style safeguards around Newton steps on the distance and
// on the narrowing models (toi/narrowing_models.hpp). Included by toi/toi_solver.hpp.

namespace impact::toi {

/// Narrowing stops after this many GJK probes (count): then the bracket's apart end is the
/// candidate the extrusion test proves up to, and narrowing may run again from there.
inline constexpr int kNarrowingProbes = 60;
/// A probe is the answer when its distance is inside this part of the window (target,
/// target + tolerance]: from 5% to 95% of the tolerance above the target (fractions).
inline constexpr double kWindowLow = 0.05, kWindowHigh = 0.95;

/// What the probes of one narrowing have learnt.
template <class S, class A, class B>
struct ToiSolver<S, A, B>::Narrowing {
  S target, aim;
  DistanceResult<S> best;  ///< GJK's answer at the latest apart probe, at t_best
  S t_best;
  int best_face = 0;
  DistanceResult<S> in_window;  ///< a probe inside the window, at t_window (−1: none yet)
  S t_window = -1;
  Vec3<S> axis;  ///< the last separating axis (continues the distance below zero)
  S rate = 0;    ///< the distance's rate of change at the last apart probe
  /// The models of the distance near the last apart probe: the separation along GJK's axis there,
  /// in the frame DirectionStore::make picks (a face's normal turns with its body, so that this
  /// separation is the distance for as long as the closest features last), and the edge model.
  Direction<S> model;
  EdgeModel<S> edge;
};

/// The narrowing's function at t: GJK's distance less the aim where the shapes are apart (the
/// probe's axis, rate and models kept); where GJK finds them within the target, the separation
/// along the last separating axis, capped at the target (a signed stand-in for the penetration,
/// which GJK does not measure), so that false position works on both sides.
template <class S, class A, class B>
S ToiSolver<S, A, B>::probe(Narrowing& n, S t) {
  const Transform<S> ta = pair_.ka.at(t), tb = pair_.kb.at(t);
  const DistanceResult<S> r = pair_.distance(ta, tb, false);
  if (r.status != Status::intersecting && r.distance > n.target) {
    n.axis = r.normal;
    n.rate = pair_.distance_rate(r, t);
    const int face = pair_.face_of_simplex();
    n.model = dirs_.make(r.normal, &ta, &tb, t, face);
    n.edge = face ? EdgeModel<S>{} : edges_of_simplex(pair_, r.normal, ta, tb);
    if (t > n.t_best) {
      n.t_best = t;
      n.best = r;
      n.best_face = face;
    }
    const S tol = pair_.opt.tolerance;
    if (r.distance <= n.target + S(kWindowHigh) * tol && r.distance >= n.target + S(kWindowLow) * tol) {
      n.t_window = t;
      n.in_window = r;
      window_face_ = face;
    }
    return r.distance - n.aim;
  }
  return std::min(pair_.separation(n.axis, ta, tb), n.target) - n.aim;
}

/// Narrows [t_lo, t_c] by safeguarded Newton steps: from the apart end, the root of a narrowing
/// model where one holds, else Newton on the distance (its rate from the witness points'
/// velocities) corrected for the change of rate; false position when that leaves the bracket,
/// bisection when the bracket stops halving. Stops once a probe lands inside the window; sets
/// `cand` and `t_try` there, stores GJK's axis, and moves t_c to the contact side. False when the
/// bracket cannot be narrowed.
template <class S, class A, class B>
bool ToiSolver<S, A, B>::narrow(Extrusion& x) {
  const S t_lo = x.t_lo, aim = x.aim, xtol = x.xtol;
  Narrowing n;
  n.target = pair_.opt.target_distance;
  n.aim = aim;
  n.best = lo_;
  n.t_best = t_lo;
  n.axis = lo_.normal;
  n.model = dirs_.make(lo_.normal, &lo_tf_a_, &lo_tf_b_, t_lo, lo_face_);
  n.edge = lo_edge_;
  // At t_c the shapes are known to be within the target: only the continuation is needed.
  S b = x.t_c;
  S fb = std::min(std::min(pair_.separation(n.axis, pair_.ka.at(x.t_c), pair_.kb.at(x.t_c)), n.target) - aim,
                  -pair_.opt.tolerance / S(4));
  S a = t_lo, fa = lo_.distance - aim, da = pair_.distance_rate(lo_, t_lo);
  S ap = t_lo, dap = da;  // the previous apart end and its rate
  bool fresh = true;      // a moved since the last Newton step
  int evals = 0, slow = 0;
  while (n.t_window < S(0) && b - a > xtol && evals < kNarrowingProbes) {
    const S width = b - a;
    S t = -1;
    bool modelled = false;
    if (fresh && n.model.frame != 0) {
      t = model_root(pair_, n.model, a, b, fa, da, aim, xtol);
      modelled = t > a && t < b;
    } else if (fresh && n.edge.valid) {
      t = edge_root(pair_, n.edge, a, b, fa, da, aim, xtol);
      modelled = t > a && t < b;
    }
    if (!modelled && fresh && da < S(0)) {
      // The rate's change since the previous apart probe gives a curvature c; the root of
      // fa + da·h + c·h² (stable form) corrects Newton's overshoot where the approach speeds up.
      S h = -fa / da;
      if (ap < a) {
        const S c = S(0.5) * (da - dap) / (a - ap);
        const S disc = da * da - S(4) * c * fa;
        if (disc >= S(0)) h = S(2) * fa / (-da + std::sqrt(disc));
      }
      t = a + h;
    }
    if (!(t > a && t < b)) t = a + fa * (b - a) / (fa - fb);
    if (!(t > a && t < b) || (slow >= 2 && !modelled)) {
      t = S(0.5) * (a + b);
      slow = 0;
    }
    fresh = false;
    const S ft = probe(n, t);
    ++evals;
    if (ft > S(0)) {
      ap = a;
      dap = da;
      a = t;
      fa = ft;
      da = n.rate;
      fresh = true;
    } else {
      b = t;
      fb = ft;
    }
    slow = b - a > S(0.5) * width ? slow + 1 : 0;
  }
  pair_.stats.brent_evals += evals;
  return conclude_narrowing(x, n, a, b);
}

/// After narrowing: a probe inside the window is the candidate answer (the intervals before it
/// still to be proven); else the bracket's apart end a is the candidate, with GJK's axis there
/// stored, and t_c moves to b.
template <class S, class A, class B>
bool ToiSolver<S, A, B>::conclude_narrowing(Extrusion& x, Narrowing& n, S a, S b) {
  const S t_lo = x.t_lo;
  if (n.t_window > t_lo) {
    x.cand = x.t_try = n.t_window;
    window_t_ = n.t_window;
    window_r_ = n.in_window;
    add_direction(n.in_window.normal, n.t_window, window_face_);
    return true;
  }
  x.t_c = b;
  if (!(a > t_lo)) {
    x.cand = -1;
    x.t_try = t_lo + S(0.5) * (x.t_c - t_lo);
    return x.t_try > t_lo;
  }
  if (n.t_best != a) {
    n.best = pair_.distance(pair_.ka.at(a), pair_.kb.at(a), false);
    n.best_face = pair_.face_of_simplex();
  }
  x.cand = x.t_try = a;
  if (n.best.status != Status::intersecting) add_direction(n.best.normal, a, n.best_face);
  return true;
}

}  // namespace impact::toi
