// The extrusion test's bounds (src/toi/direction_store.hpp):
// - interval_floor(lo, hi, dt, down, up, m) is a lower bound of every f on [0, dt] with f(0) = lo,
//   f(dt) = hi, slope in [−down, up] and f'' ≤ m: random smooth functions (a quadratic plus a
//   sinusoid, whose slope range and curvature bound are computed here analytically), sampled
//   densely; and it is attained by the extremal functions: the V of slopes −down, +up (m = ∞) and
//   the parabola of curvature m through both ends;
// - the directions DirectionStore::make builds (fixed in the world, or turning with A or B) bound
//   the true separation of two moving, turning boxes (support functions computed here, rotation by
//   Eigen's angle-axis): its slope stays within s·v_rel ± K, and lower_bound(d, dt) is below every
//   sampled value over [0, dt];
// - safe_step: the step it returns from one stored direction satisfies lo − (K − s·v_rel)·step ≥
//   floor, and the boxes' separation along that direction stays above the floor over the step.
#include "toi/direction_store.hpp"

#include "scenes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace {

using namespace impact;
using scenes::Rng;
using V = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;

/// f(t) = a + b·t + c·t²/2 + A·sin(ω·t + φ): f' = b + c·t + A·ω·cos(ω·t + φ),
/// f'' = c − A·ω²·sin(ω·t + φ) ≤ c + |A|·ω².
struct Smooth {
  double a, b, c, amp, w, phase;
  [[nodiscard]] double f(double t) const { return a + b * t + 0.5 * c * t * t + amp * std::sin(w * t + phase); }
  [[nodiscard]] double slope(double t) const { return b + c * t + amp * w * std::cos(w * t + phase); }
  [[nodiscard]] double curvature_bound() const { return c + std::abs(amp) * w * w; }
};

TEST(IntervalFloor, BelowEveryFunctionWithinTheBounds) {
  Rng rng(scenes::seed_of("interval floor random"));
  int binding_lip = 0, binding_quad = 0;
  for (int c = 0; c < scenes::battery(3000); ++c) {
    Smooth g{rng.uniform(-1, 1), rng.uniform(-3, 3), rng.uniform(-4, 4), rng.uniform(-0.5, 0.5), rng.uniform(0, 12),
             rng.uniform(0, 2 * M_PI)};
    if (c % 4 == 0) g.amp = 0;  // pure quadratics: the parabola bound is then exact
    const double dt = rng.uniform(0.01, 1);
    // Slope range over [0, dt]: sampled, widened by the slope's Lipschitz constant times half the
    // sample spacing (so it is a true range).
    const int n = 4000;
    double smin = std::numeric_limits<double>::infinity(), smax = -smin, fmin = smin;
    for (int i = 0; i <= n; ++i) {
      const double t = dt * i / n;
      smin = std::min(smin, g.slope(t));
      smax = std::max(smax, g.slope(t));
      fmin = std::min(fmin, g.f(t));
    }
    const double widen = (std::abs(g.c) + std::abs(g.amp) * g.w * g.w) * dt / n;
    const double down = -(smin - widen), up = smax + widen;
    // The sampled minimum is at least f's minimum: a floor above it is certainly not a bound.
    // Sometimes a looser slope range or curvature (any bound must stay a bound).
    const double loosen = c % 3 == 0 ? rng.uniform(0, 2) : 0;
    const double m = g.curvature_bound() + (c % 5 == 0 ? rng.uniform(0, 5) : 0);
    const double lo = g.f(0), hi = g.f(dt);
    const double floor = toi::interval_floor(lo, hi, dt, down + loosen, up + loosen, m);
    ASSERT_LE(floor, fmin + 1e-12) << "case " << c << ": lo " << lo << " hi " << hi << " dt " << dt << " down "
                                        << down + loosen << " up " << up + loosen << " m " << m << " (f = " << g.a << " + "
                                        << g.b << " t + " << g.c << " t²/2 + " << g.amp << " sin(" << g.w << " t + "
                                        << g.phase << "))";
    // Which of the two bounds decided (both should, in some cases).
    const double lip_only = toi::interval_floor(lo, hi, dt, down, up, 1e300);
    const double quad_only = toi::interval_floor(lo, hi, dt, 1e300, 1e300, m);
    binding_lip += lip_only > quad_only + 1e-9;
    binding_quad += quad_only > lip_only + 1e-9;
  }
  EXPECT_GT(binding_lip, scenes::battery(3000) / 30);
  EXPECT_GT(binding_quad, scenes::battery(3000) / 30);
}

TEST(IntervalFloor, AttainedByTheExtremalFunctions) {
  Rng rng(scenes::seed_of("interval floor extremal"));
  for (int c = 0; c < scenes::battery(2000); ++c) {
    const double dt = rng.uniform(0.01, 1), down = rng.uniform(0.1, 5), up = rng.uniform(0.1, 5);
    const double lo = rng.uniform(-1, 1);
    // The V: fall at `down` until tau, then rise at `up`; its minimum lo − down·tau.
    const double tau = rng.uniform(0.01, 0.99) * dt;
    const double bottom = lo - down * tau, hi = bottom + up * (dt - tau);
    EXPECT_NEAR(toi::interval_floor(lo, hi, dt, down, up, 1e300), bottom, 1e-12) << "V case " << c;
    // The parabola of curvature m through (0, lo) and (dt, hi2): minimum at its vertex or an end.
    const double m = rng.uniform(0.1, 40), hi2 = lo + rng.uniform(-1, 1) * m * dt * dt;
    const double b = (hi2 - lo) / dt - 0.5 * m * dt;  // p(t) = lo + b·t + m·t²/2
    const double vertex = std::clamp(-b / m, 0.0, dt);
    const double pmin = lo + b * vertex + 0.5 * m * vertex * vertex;
    // Its slopes lie in [b, b + m·dt]: give exactly those as the slope range.
    const double pdown = std::max(0.0, -b), pup = std::max(0.0, b + m * dt);
    EXPECT_NEAR(toi::interval_floor(lo, hi2, dt, pdown, pup, m), pmin, 1e-12) << "parabola case " << c;
  }
}

TEST(IntervalFloor, NoInformationGivesTheSmallerEnd) {
  // Zero length: only the ends are known.
  EXPECT_EQ(toi::interval_floor(1.0, 2.0, 0.0, 1.0, 1.0, 1.0), 1.0);
  // A concave f (m = 0) lies above its chord.
  EXPECT_EQ(toi::interval_floor(3.0, 2.0, 1.0, 1e9, 1e9, 0.0), 2.0);
}

// ---------------------------------------------------------------------------------------------
// Directions on two turning boxes.
// ---------------------------------------------------------------------------------------------

struct Body {
  Motion<double> motion;
  V half;
  [[nodiscard]] M3 rotation(double t) const {
    const V w = motion.angular_velocity;
    const M3 r0 = motion.pose.rotation.toRotationMatrix();
    return w.norm() > 0 ? M3(Eigen::AngleAxisd(t * w.norm(), w / w.norm()).toRotationMatrix() * r0) : r0;
  }
  [[nodiscard]] V position(double t) const { return motion.pose.position + t * motion.linear_velocity; }
  [[nodiscard]] double support(const V& s, double t) const {
    const M3 r = rotation(t);
    double h = s.dot(position(t));
    for (int i = 0; i < 3; ++i) h += std::abs(s.dot(r.col(i))) * half[i];
    return h;
  }
};

/// The direction's world vector at t: fixed, or turning with A (frame 1) or B (frame 2), as
/// exp(t·ω)·s0 built here.
V direction_at(const toi::Direction<double>& d, const Body& a, const Body& b, double t) {
  if (d.frame == 0) return d.s;
  const V w = (d.frame == 1 ? a : b).motion.angular_velocity;
  return Eigen::AngleAxisd(t * w.norm(), w / w.norm()).toRotationMatrix() * d.s;
}

double separation(const Body& a, const Body& b, const V& s, double t) { return -b.support(-s, t) - a.support(s, t); }

Body random_body(Rng& rng, const V& centre) {
  Body x;
  x.half = V(rng.uniform(0.05, 1.2), rng.uniform(0.05, 1.2), rng.uniform(0.05, 1.2));
  x.motion.pose.position = centre;
  x.motion.pose.rotation = rng.rotation();
  x.motion.linear_velocity = rng.in_cube(3);
  x.motion.angular_velocity = rng.uniform(0.5, 12) * rng.unit();
  return x;
}

/// A long thin blade spinning fast about an axis across its length, and a small slow body near
/// that axis, inside the blade's reach: the case where directions turning with the blade win.
std::pair<Body, Body> blade_and_body(Rng& rng) {
  Body blade = random_body(rng, rng.in_cube(2));
  blade.half = V(rng.uniform(2, 4), rng.uniform(0.05, 0.2), rng.uniform(0.05, 0.2));
  const M3 r0 = blade.motion.pose.rotation.toRotationMatrix();
  const double a = rng.uniform(0, 2 * M_PI);
  const V axis = std::cos(a) * r0.col(1) + std::sin(a) * r0.col(2);
  blade.motion.angular_velocity = rng.uniform(8, 20) * axis;
  Body small = random_body(rng, blade.motion.pose.position + rng.uniform(0.6, 2) * axis + rng.in_cube(0.3));
  small.half = V(rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3), rng.uniform(0.05, 0.3));
  small.motion.linear_velocity = rng.in_cube(0.3);
  small.motion.angular_velocity = rng.uniform(0.5, 2) * rng.unit();
  return {blade, small};
}

TEST(DirectionStore, DirectionBoundsHoldForTurningBoxes) {
  Rng rng(scenes::seed_of("direction store bounds"));
  int frames[3] = {0, 0, 0};
  for (int c = 0; c < scenes::battery(900); ++c) {
    Body a = random_body(rng, rng.in_cube(2));
    // B sometimes inside A's reach, sometimes far; and a third of the cases a blade and a body
    // near its axis (either way round), where the turning frames win.
    Body b = random_body(rng, a.motion.pose.position + rng.uniform(0.5, 6) * rng.unit());
    V s = c % 2 ? V(rng.unit()) : V((b.motion.pose.position - a.motion.pose.position).normalized());
    if (c % 3 == 0) {
      auto [blade, small] = blade_and_body(rng);
      const V axis = blade.motion.angular_velocity.normalized();
      s = (axis + 0.3 * rng.in_cube(1)).normalized();
      a = blade;
      b = small;
      if (c % 2) {
        std::swap(a, b);
        s = -s;
      }
    }
    const toi::Kinematics<double> ka(a.motion, a.half.norm()), kb(b.motion, b.half.norm());
    const toi::RelativeMotion<double> rel(ka, kb, 0.0, 0.0, 0.0);
    const toi::DirectionStore<double> store(ka, kb, rel, 0.0, false);
    const double t0 = 0;
    toi::Direction<double> d = store.make(s, nullptr, nullptr, t0, 0, c % 7 != 0);
    ++frames[d.frame];
    const double dt = rng.uniform(0.02, 1);
    d.lo = separation(a, b, direction_at(d, a, b, 0), 0);
    d.hi = separation(a, b, direction_at(d, a, b, dt), dt);
    const double floor = toi::lower_bound(d, dt);
    const int n = 400;
    double prev = d.lo;
    for (int i = 1; i <= n; ++i) {
      const double t = dt * i / n, f = separation(a, b, direction_at(d, a, b, t), t);
      ASSERT_GE(f, floor - 1e-10) << "case " << c << " frame " << d.frame << " t " << t;
      const double slope = (f - prev) / (dt / n);
      ASSERT_GE(slope, d.sv - d.k - 1e-7) << "case " << c << " frame " << d.frame << " t " << t;
      ASSERT_LE(slope, d.sv + d.k + 1e-7) << "case " << c << " frame " << d.frame << " t " << t;
      prev = f;
    }
  }
  // Every frame was chosen in some cases.
  for (int f = 0; f < 3; ++f) EXPECT_GT(frames[f], 20) << "frame " << f;
}

TEST(DirectionStore, SafeStepIsCertifiedByItsDirection) {
  Rng rng(scenes::seed_of("direction store safe step"));
  int stepped = 0;
  for (int c = 0; c < scenes::battery(600); ++c) {
    const Body a = random_body(rng, rng.in_cube(2));
    const V s = rng.unit();
    const Body b = random_body(rng, a.motion.pose.position + rng.uniform(2.5, 6) * s + rng.in_cube(0.5));
    const toi::Kinematics<double> ka(a.motion, a.half.norm()), kb(b.motion, b.half.norm());
    const double target = rng.uniform(0, 0.3);
    const toi::RelativeMotion<double> rel(ka, kb, 0.0, 0.0, target);
    const double floor = target + rel.slack;
    toi::DirectionStore<double> store(ka, kb, rel, floor, false);
    toi::Direction<double> d = store.make(s, nullptr, nullptr, 0.0, 0, c % 3 != 0);
    d.lo = separation(a, b, direction_at(d, a, b, 0), 0);
    store.store(d);
    if (!(d.lo > floor)) {
      EXPECT_EQ(store.size(), 0) << "a direction not above the floor is not kept";
      continue;
    }
    ASSERT_EQ(store.size(), 1);
    const double step = store.safe_step(1.0);
    ASSERT_GT(step, 0) << c;
    ASSERT_LE(step, 1.0) << c;
    ++stepped;
    EXPECT_GE(d.lo - (d.k - d.sv) * step, floor - 1e-12) << c;
    for (int i = 0; i <= 400; ++i) {
      const double t = step * i / 400;
      ASSERT_GE(separation(a, b, direction_at(d, a, b, t), t), floor - 1e-10) << "case " << c << " t " << t;
    }
  }
  EXPECT_GT(stepped, scenes::battery(600) / 2);
}

}  // namespace
