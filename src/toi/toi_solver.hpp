#pragma once
// impact — toi/toi_solver.hpp: the time-of-impact solver for one pair of concrete core types: its
// parts (the moving pair, the direction store, the narrowing models), the state shared by its two
// methods, and where each method lives:
//   toi/rotating_advancement.hpp  conservative advancement under rotation (advance)
//   toi/extrusion_brent.hpp       Vlack & Tachi's extrusion test with Brent's method (extrude)
//   toi/bracket_narrowing.hpp     narrowing a bracket of the first contact on the exact distance
// See docs/toi.md for the bound every acceptance rests on.
#include "detail/brent.hpp"
#include "toi/direction_store.hpp"
#include "toi/kinematics.hpp"
#include "toi/moving_pair.hpp"
#include "toi/narrowing_models.hpp"
#include "toi/toi_entry.hpp"

#include <algorithm>
#include <limits>

namespace impact::toi {

/// The most hints a query tries (toi_entry.hpp); more are ignored.
inline constexpr int kMaxHints = 4;

template <class S, class A, class B>
class ToiSolver {
 public:
  /// `ka` and `kb` must outlive the solver. `rel`, when given, is RelativeMotion(ka, kb, ra, rb,
  /// opt.target_distance)'s value, computed by the caller (PartSweep, once for many triangles).
  ToiSolver(const A& a, S ra, const B& b, S rb, const Kinematics<S>& ka, const Kinematics<S>& kb,
            const ToiOptions<S>& opt, const RelativeMotion<S>* rel = nullptr)
      : pair_(rel != nullptr ? MovingPair<S, A, B>(a, ra, b, rb, ka, kb, opt, *rel)
                             : MovingPair<S, A, B>(a, ra, b, rb, ka, kb, opt)),
        dirs_(pair_.ka, pair_.kb, pair_.rel, opt.target_distance + pair_.rel.slack, opt.paper_acceptance) {}
  ToiSolver(const ToiSolver&) = delete;  // dirs_ refers to pair_'s motions
  ToiSolver& operator=(const ToiSolver&) = delete;

  /// GJK at t = 0 (overlapping: done), then the method the options name. A hint (toi_entry.hpp)
  /// that proves the shapes apart over [0, max_toi] settles a miss before any GJK: `hints`, then
  /// those `later` makes when none of them did; where max_toi < 1, GJK's axis at t = 0 is tried
  /// the same way. No test changes the run that follows when it fails.
  ToiHit<S> run(std::span<const ToiHint<S>> hints = {}, LaterHints<S> later = {}) {
    ToiHit<S> out;
    lo_tf_a_ = pair_.ka.at(S(0));
    lo_tf_b_ = pair_.kb.at(S(0));
    const auto settles = [&](std::span<const ToiHint<S>> tried) {
      return std::any_of(tried.begin(), tried.end(),
                         [&](const ToiHint<S>& h) { return apart_along(h.direction, h.face_of_b ? 2 : 0); });
    };
    bool settled = settles(hints);
    if (!settled && later.make != nullptr) {
      ToiHint<S> made[kMaxHints];
      const int n = std::clamp(later.make(later.context, made), 0, kMaxHints);
      settled = settles(std::span<const ToiHint<S>>(made, static_cast<std::size_t>(n)));
    }
    if (settled) {
      finish(out, Status::miss, S(1), DistanceResult<S>{}, Vec3<S>::Zero());
      return out;
    }
    lo_ = pair_.distance(lo_tf_a_, lo_tf_b_);
    lo_face_ = pair_.face_of_simplex();
    lo_edge_ = lo_face_ ? EdgeModel<S>{} : edges_of_simplex(pair_, lo_.normal, lo_tf_a_, lo_tf_b_);
    if (pair_.within(lo_)) {
      finish(out, Status::initially_overlapping, S(0), lo_, Vec3<S>::Zero());
      return out;
    }
    if (limit_ < S(1) && apart_along(lo_.normal, lo_face_)) {
      finish(out, Status::miss, S(1), lo_, Vec3<S>::Zero());
      return out;
    }
    if (pair_.opt.method == ToiMethod::conservative_advancement) advance(out);
    else extrude(out);
    return out;
  }

 private:
  /// The state of one extrusion run (extrude and its phases).
  struct Extrusion {
    S target;  ///< the target distance
    S aim;     ///< Brent and the narrowing aim inside the accepted window: target + tolerance/2
    S xtol;    ///< time tolerance: a quarter of the length tolerance at the fastest approach
    bool paper;  ///< the paper's acceptance (stored directions separating at both ends)
    S t_lo = 0;  ///< proven free of contact up to here
    S t_try = 1;  ///< the end of the interval under test
    S t_c = 2;    ///< a time where GJK found the shapes within the target (2: none yet)
    S cand = -1;  ///< a time past t_lo where GJK found them apart; its axis is stored
    bool far_end_tried = false;  ///< GJK at the first rejected interval's end was asked
    int certified_by = 0;  ///< the stored direction whose bound passed the last interval
    S stepped = 0;         ///< the length of the last interval passed
    S prev_t = -1, prev_d = 0;  ///< the previous t_lo with an exact distance, and that distance
    int failed_proposals = 0, safe_runs = 0;
    bool proposing = false;  ///< t_try is a step the model proposed (a rejection falls back to the safe step)
  };

  /// One interval [t_lo, t_try] under test: the placements at its end, the stored directions'
  /// largest separation there, and the verdict of their bounds.
  struct IntervalTest {
    Transform<S> ta, tb;
    S dt, f_try;
    bool accepted;
  };

  enum class Flow { next, done };  ///< test the next interval, or `out` is finished

  void finish(ToiHit<S>& out, Status st, S t, const DistanceResult<S>& r, const Vec3<S>& fallback) {
    out.status = st;
    out.toi = t;
    out.point_a = r.point_a;
    out.point_b = r.point_b;
    out.normal = r.normal.squaredNorm() > S(0.25) ? r.normal : fallback;
    out.stats = pair_.stats;
    // Advancement's steps are its GJK calls after the first (none when a hint settled the query).
    out.iterations = pair_.opt.method == ToiMethod::conservative_advancement ? std::max(0, pair_.stats.gjk_calls - 1)
                                                                            : pair_.stats.interval_tests;
  }

  /// Whether unit s (world, A toward B; `face` as for DirectionStore::make) proves the shapes
  /// farther apart than target + tolerance over [0, max_toi]: its separations at both ends and
  /// the rotation bound between them, the extrusion's test of one interval. GJK's distance is
  /// never below a separation, so no run could report a hit there (a hit is a distance within
  /// the tolerance of the target). The support calls' hill-climbing hints are put back, so that
  /// a run after a failed test is the run without it.
  bool apart_along(const Vec3<S>& s, int face) {
    const int ha = pair_.hint_a, hb = pair_.hint_b;
    Direction<S> d = dirs_.make(s, &lo_tf_a_, &lo_tf_b_, S(0), face);
    d.lo = pair_.separation(d, lo_tf_a_, lo_tf_b_);
    const S floor = pair_.opt.target_distance + pair_.opt.tolerance + pair_.rel.slack;
    bool apart = d.lo > floor;
    if (apart) {
      d.hi = pair_.separation(d, pair_.ka.at(limit_), pair_.kb.at(limit_));
      apart = lower_bound(d, limit_) > floor;
    }
    pair_.hint_a = ha;
    pair_.hint_b = hb;
    return apart;
  }

  /// Stores GJK's axis s found at placements (ta, tb), with its separation at t_lo.
  void add_direction(const Vec3<S>& s, const Transform<S>& ta, const Transform<S>& tb, int face = 0) {
    add_direction(s, &ta, &tb, S(0), face);
  }

  /// The same at time t, the placements there computed only when the direction turns with a body.
  void add_direction(const Vec3<S>& s, S t, int face) { add_direction(s, nullptr, nullptr, t, face); }

  void add_direction(const Vec3<S>& s, const Transform<S>* ta, const Transform<S>* tb, S t, int face) {
    Direction<S> d = dirs_.make(s, ta, tb, t, face);
    d.lo = d.hi = pair_.separation(d, lo_tf_a_, lo_tf_b_);
    dirs_.store(d);
  }

  // toi/rotating_advancement.hpp
  void advance(ToiHit<S>& out);

  /// Where the next steps aim: the pending candidate (a time GJK found the shapes apart), or the
  /// search's end (t = 1, or max_toi).
  S search_end(const Extrusion& x) const { return std::min(x.cand > x.t_lo ? x.cand : S(1), limit_); }

  // toi/extrusion_brent.hpp
  void extrude(ToiHit<S>& out);
  Extrusion start_extrusion();
  IntervalTest test_interval(Extrusion& x);
  Flow pass_interval(ToiHit<S>& out, Extrusion& x, const IntervalTest& test);
  bool coast(Extrusion& x);
  Flow exact_at_t_lo(ToiHit<S>& out, Extrusion& x, const IntervalTest& test);
  Flow plan_from_exact(ToiHit<S>& out, Extrusion& x);
  void propose_toward(Extrusion& x, S end);
  bool try_far_end(Extrusion& x, const IntervalTest& test);
  Flow reject_interval(ToiHit<S>& out, Extrusion& x, const IntervalTest& test);
  Flow brent_on_directions(ToiHit<S>& out, Extrusion& x, const IntervalTest& test, S f_lo);
  Flow step_back(ToiHit<S>& out, Extrusion& x, const IntervalTest& test);
  void add_spin_axes(bool both_signs);
  bool ensure_exact(ToiHit<S>& out, S t_lo);
  void give_up(ToiHit<S>& out, S t_lo);
  int secant(Extrusion& x, S t0, S d0, S t1, S d1, int probes);

  // toi/bracket_narrowing.hpp
  struct Narrowing;
  bool narrow(Extrusion& x);
  S probe(Narrowing& n, S t);
  bool conclude_narrowing(Extrusion& x, Narrowing& n, S a, S b);

  MovingPair<S, A, B> pair_;
  DirectionStore<S> dirs_;
  S limit_ = std::min(S(1), pair_.opt.max_toi);  ///< the search's end: contacts after it are not sought
  Transform<S> lo_tf_a_, lo_tf_b_;  ///< the placements at t_lo
  DistanceResult<S> lo_;            ///< GJK's answer at t_lo (or at an earlier time: see lo_exact_)
  int lo_face_ = 0;                 ///< face_of_simplex() of lo_
  EdgeModel<S> lo_edge_;            ///< edges_of_simplex() of lo_
  bool lo_exact_ = true;            ///< lo_ is GJK's answer at t_lo (false: from an earlier time)
  S window_t_ = -1;                 ///< narrow()'s probe inside the window, and GJK's answer there
  DistanceResult<S> window_r_;
  int window_face_ = 0;
  S failed_t_ = -1;  ///< the end of the last interval that failed its test, and the placements there
  Transform<S> failed_a_, failed_b_;
  bool fan_ = false;  ///< a spin axis stored at the start separates a fast fan's disc
};

}  // namespace impact::toi

#include "toi/bracket_narrowing.hpp"
#include "toi/extrusion_brent.hpp"
#include "toi/rotating_advancement.hpp"
