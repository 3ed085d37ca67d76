// impact — world/swept_bounds.hpp: bounds that provably contain a moving piece over t ∈ [0, 1].
//
// A swept sphere is a centre moving on a straight line, c(t) = p0 + t·(p1 − p0), and a radius r:
// the piece is inside the ball B(c(t), r) at every t. Two of them can come within a gap g only at
// times t with |c_b(t) − c_a(t)| ≤ r_a + r_b + g, a quadratic in t: `first_entry` solves it.
//
// Where the line comes from. A rigid motion moves the body's origin on the line p(t) = p0 + t·v
// and turns the body about it: every point at distance ≤ R from the origin stays within R of p(t)
// (R the bounding radius), whatever the spin. For a piece whose centre sits at ρ = |c| from the
// body's origin, the centre's path is p(t) + exp(tω)·(R0·c): a circle arc about the axis of ω.
// Its second derivative has length θ²·(distance from the axis) ≤ θ²·ρ (θ = |ω|, the turn over the
// step), so it leaves the chord between its ends by at most θ²·ρ·t(1 − t)/2 ≤ θ²·ρ/8; for
// θ² ≥ 8 the origin's line with radius ρ + r is the better (and still proven) bound.
//
// Everything here runs in double from the scalar's values (float values convert exactly), and
// every radius is inflated for the rounding of this arithmetic: `kRelativeSlack` of the largest
// coordinate in play, far above double rounding (a few 1e-16) and far below any tolerance.
#pragma once

#include <impact/math.hpp>
#include <impact/toi.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact::world_detail {

using Vec3d = Vec3<double>;

/// Rounding allowance of the bounds (dimensionless, relative to the coordinates and radii).
inline constexpr double kRelativeSlack = 1e-12;

/// No entry: the bounds never meet during the step.
inline constexpr double kNever = std::numeric_limits<double>::infinity();

/// A ball of radius r whose centre moves from p0 (t = 0) to p1 (t = 1) on a straight line.
struct SweptSphere {
  Vec3d p0 = Vec3d::Zero();
  Vec3d p1 = Vec3d::Zero();
  double r = 0;

  /// Box of the whole sweep, grown by `grow` on every side.
  void box(double grow, Vec3d& lo, Vec3d& hi) const {
    lo = p0.cwiseMin(p1).array() - (r + grow);
    hi = p0.cwiseMax(p1).array() + (r + grow);
  }
};

/// The rigid motion of a body in a step, in double.
struct BodyPath {
  Vec3d p0 = Vec3d::Zero();   ///< Origin at t = 0.
  Vec3d p1 = Vec3d::Zero();   ///< Origin at t = 1.
  Mat3<double> r0 = Mat3<double>::Identity();  ///< Rotation at t = 0.
  Mat3<double> r1 = Mat3<double>::Identity();  ///< Rotation at t = 1 (the motion's own at(1)).
  double turn = 0;            ///< θ = |ω|: the angle turned over the step (rad).
  bool spins = false;         ///< ω ≠ 0.
  bool moves = false;         ///< Any velocity ≠ 0.

  template <class S>
  static BodyPath of(const Motion<S>& m) {
    BodyPath p;
    const Pose<double> a = m.pose.template cast<double>();
    const Vec3d v = m.linear_velocity.template cast<double>();
    const Vec3d w = m.angular_velocity.template cast<double>();
    p.p0 = a.position;
    p.p1 = a.position + v;
    p.r0 = Transform<double>::unit(a.rotation).toRotationMatrix();
    p.turn = w.norm();
    // By the components: a squared length underflows to 0 below 1e-162, and a body whose
    // velocity is that small still moves (the protocol's rest is velocities all zero).
    p.spins = (w.array() != 0.0).any();
    p.moves = p.spins || (v.array() != 0.0).any();
    if (p.spins) {
      const Motion<double> md{a, v, w};
      p.r1 = Transform<double>::unit(md.at(1.0).rotation).toRotationMatrix();
    } else {
      p.r1 = p.r0;
    }
    return p;
  }

  /// The swept sphere of a piece whose centre is at `c` in the body's frame (ρ = |c|) with every
  /// point within `r` of it (see the top of this file).
  [[nodiscard]] SweptSphere piece(const Vec3d& c, double r) const {
    const double rho = c.norm();
    const double scale = std::max({p0.cwiseAbs().maxCoeff(), p1.cwiseAbs().maxCoeff(), rho, r});
    const double slack = kRelativeSlack * scale;
    if (!spins) return {p0 + r0 * c, p1 + r0 * c, r + slack};
    const double bow = turn * turn / 8.0;
    if (bow < 1.0) return {p0 + r0 * c, p1 + r1 * c, r + rho * bow + slack};
    return {p0, p1, r + rho + slack};
  }

  /// The swept sphere of the whole body: radius R about its origin.
  [[nodiscard]] SweptSphere body(double radius) const {
    const double scale = std::max({p0.cwiseAbs().maxCoeff(), p1.cwiseAbs().maxCoeff(), radius});
    return {p0, p1, radius + kRelativeSlack * scale};
  }
};

/// first_entry's solve, from the centres' offset at t = 0 (d0), its change over the step (e, with
/// its largest coordinate e_max and its squared length ee) and the distance to come within (reach).
[[nodiscard]] inline double entry_time(const Vec3d& d0, const Vec3d& e, double e_max, double ee, double reach) {
  const double scale = std::max({d0.cwiseAbs().maxCoeff(), e_max, reach});
  const double big = reach + kRelativeSlack * scale;
  const double c = d0.squaredNorm() - big * big;
  if (c <= 0) return 0.0;
  const double de = d0.dot(e);
  if (!(ee > 0) || de >= 0) return kNever;  // not approaching at t = 0, and the gap is convex in t
  const double disc = de * de - ee * c;
  if (disc < 0) return kNever;
  // The smaller root, in the form without cancellation: c / (−de + √disc).
  const double t = c / (-de + std::sqrt(disc));
  if (t > 1.0) return kNever;
  return std::max(0.0, t * (1.0 - 1e-12));
}

/// The first t ∈ [0, 1] at which the two swept spheres come within `gap` of each other, or
/// kNever. Conservative: rounding can only make it earlier (the radii carry the slack).
[[nodiscard]] inline double first_entry(const SweptSphere& a, const SweptSphere& b, double gap) {
  const Vec3d e = (b.p1 - b.p0) - (a.p1 - a.p0);
  return entry_time(b.p0 - a.p0, e, e.cwiseAbs().maxCoeff(), e.squaredNorm(), a.r + b.r + gap);
}

/// first_entry(a, {c, c, r}, gap) for many balls at rest (a mesh's triangles in its frame) against
/// one swept sphere a: what depends on a alone computed once, the arithmetic the same.
struct EntryAgainstRest {
  const SweptSphere& a;
  double gap;
  Vec3d e = -(a.p1 - a.p0);  // (c − c) − (a.p1 − a.p0), exactly
  double e_max = e.cwiseAbs().maxCoeff();
  double ee = e.squaredNorm();

  [[nodiscard]] double operator()(const Vec3d& c, double r) const { return entry_time(c - a.p0, e, e_max, ee, a.r + r + gap); }
};

}  // namespace impact::world_detail
