// impact — toi.hpp: time of impact of two convex shapes under rigid motion (rotation included).
//
// Each shape's local origin moves with constant linear velocity and the shape turns about it
// with constant angular velocity (world frame) over t ∈ [0, 1]: several turns per interval are
// allowed. `time_of_impact` finds the first time the distance falls to `target_distance`, and is
// never late: every answer comes with a proof that the shapes stay farther apart than the target
// before it.
//
// The proof rests on one bound. For a fixed world direction s, the separation of the shapes
// along s, sep(s, t) = min over B(t) of s·x − max over A(t) of s·x, is a minimum over point
// pairs of functions that are linear in t plus a rotation term; so over [t0, t1] (length Δ)
//   sep(s, t) ≥ chord(t) − min(K(s)·Δ/2, M·Δ²/8),
// with K(s) = |s × ωA|·rA + |s × ωB|·rB (speed of the rotation terms along s) and
// M = |ωA|²·rA + |ωB|²·rB (their acceleration), rX the radius of X's core about its origin.
// A direction whose bound stays above the target over an interval proves the interval free of
// contact. A direction may also turn with A or with B, with the same kind of bound in that body's
// axes (a blade's face seen from a body crossing its disc). docs/toi.md derives the bounds and
// describes both methods.
#pragma once

#include <impact/cast.hpp>
#include <impact/math.hpp>
#include <impact/shapes.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>

#include <string>

namespace impact {

/// Rigid motion over t ∈ [0, 1]: position(t) = pose.position + t·linear_velocity and
/// rotation(t) = exp(t·angular_velocity) · pose.rotation (angular velocity in world coordinates,
/// radians per unit t).
template <class S>
struct Motion {
  Pose<S> pose;                                    ///< Pose at t = 0.
  Vec3<S> linear_velocity{S(0), S(0), S(0)};       ///< Velocity of the local origin (length per unit t).
  Vec3<S> angular_velocity{S(0), S(0), S(0)};      ///< World-frame angular velocity (rad per unit t).

  /// The pose at time t.
  [[nodiscard]] Pose<S> at(S t) const {
    const S w = angular_velocity.norm();
    return at(t, w, w > S(0) ? Vec3<S>(angular_velocity / w) : Vec3<S>::Zero());
  }

  /// The pose at time t, given the spin rate w = |angular_velocity| and its unit axis (what a
  /// solver evaluating many times precomputes; the same arithmetic as at(t)).
  [[nodiscard]] Pose<S> at(S t, S w, const Vec3<S>& axis) const {
    Pose<S> p;
    p.position = pose.position + t * linear_velocity;
    if (w > S(0)) {
      const S half = S(0.5) * t * w;
      const S c = std::cos(half), sn = std::sin(half);
      const Quat<S> turn(c, sn * axis.x(), sn * axis.y(), sn * axis.z());
      p.rotation = (turn * pose.rotation).normalized();
    } else {
      p.rotation = pose.rotation;
    }
    return p;
  }
};

/// Time-of-impact methods.
enum class ToiMethod {
  /// Vlack & Tachi: GJK extrusion test over the interval, Brent's method on the maximum
  /// supporting distance of the stored directions, with (by default) conservative acceptance.
  extrusion_brent,
  /// Conservative advancement: GJK distance at t, advance by the separation over the bound on
  /// its rate of decrease along GJK's axis, |s·v| + K(s) (Mirtich).
  conservative_advancement,
};

/// Statistics of one `time_of_impact` call (for the paper's table).
struct ToiStats {
  int interval_tests = 0;    ///< Extrusion tests of an interval (the paper's solver iterations).
  int gjk_calls = 0;         ///< Full GJK distance queries.
  int direction_evals = 0;   ///< Supporting-distance evaluations of a stored direction.
  int brent_evals = 0;       ///< Evaluations in Brent's method on F and in narrowing the exact distance.
  bool photo_finish = false; ///< The test of [0, 1] failed, yet no contact was found.
};

/// Options of `time_of_impact`.
template <class S>
struct ToiOptions {
  ToiMethod method = ToiMethod::extrusion_brent;  ///< Algorithm.
  S target_distance = S(0);                       ///< Stop this far apart (length, ≥ 0).
  /// The distance at the reported time is within this of the target (length, > 0).
  S tolerance = Tolerances<S>::cast_tolerance;
  /// Extrusion only: accept a direction as soon as it separates at both ends of an interval,
  /// as the paper does. Fast, but a turning body can pass through the other between the ends
  /// (a propeller blade): answers may then be misses or late. Off by default.
  bool paper_acceptance = false;
  /// Cap on interval tests (extrusion) or advancement steps; reaching it reports
  /// Status::max_iterations with toi a proven lower bound.
  int max_iterations = 4096;
  /// Only contacts at or before this time are sought (≥ 0; values above 1, up to the magnitude
  /// limit of Tolerances, act as 1; negative or non-finite ones are invalid_input): the
  /// search ends there, and a pair proven apart over [0, max_toi] is a miss. A contact at or
  /// before it is found as without it, with the same guarantees (never late, within the
  /// tolerance); the search takes a shorter path, so its time may differ within the tolerance.
  /// A caller keeping the earliest of many pairs passes the best time so far (World does).
  S max_toi = S(1);
};

/// Result of `time_of_impact`: the fields of a shape cast's answer (CastHit), plus statistics.
/// Its own type, not derived from CastHit: a rotating answer is not a linear cast's.
template <class S>
struct ToiHit {
  /// hit, miss (toi 0), initially_overlapping (within target at t = 0: toi = 0), max_iterations
  /// (toi a proven lower bound), invalid_input.
  Status status = Status::invalid_input;
  S toi = S(0);                          ///< Time of impact in [0, 1] (hit, initially_overlapping).
  Vec3<S> point_a{S(0), S(0), S(0)};     ///< Contact point on A at toi (world; hit).
  Vec3<S> point_b{S(0), S(0), S(0)};     ///< Contact point on B at toi (world; hit).
  Vec3<S> normal{S(0), S(0), S(0)};      ///< Unit normal from A toward B at toi (hit).
  int iterations = 0;                    ///< Interval tests (extrusion) or advancement steps.
  std::string error;                     ///< Offending field, for invalid_input.
  ToiStats stats;                        ///< Where the work went.
};

/// Time of impact of A (moving by `motion_a`) and B (`motion_b`) over t ∈ [0, 1].
/// Status: hit (toi, points at toi, normal from A toward B), miss, initially_overlapping (within
/// the target at t = 0), max_iterations (toi a lower bound), invalid_input (`error` names the field).
template <class S>
[[nodiscard]] ToiHit<S> time_of_impact(const Shape<S>& a, const Motion<S>& motion_a, const Shape<S>& b,
                                       const Motion<S>& motion_b, const ToiOptions<S>& options = {});

}  // namespace impact
