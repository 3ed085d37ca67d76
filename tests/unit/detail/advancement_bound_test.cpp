// Conservative advancement's bound (src/detail/advancement_bound.hpp) against the true
// separation of two moving, turning boxes, computed here from their support functions: along a
// fixed unit direction s (A toward B),
//   sep(t) = s·(x_B(t) − x_A(t)) − Σ_i |s·R_B(t)e_i|·hB_i − Σ_i |s·R_A(t)e_i|·hA_i,
// with R(t) = exp(t·ω)·R0 built here from Eigen's angle-axis (no library code). For many random
// motions, directions and steps h:
// - sep(t + h) ≥ sep(t) − approach_speed(K(s), s·v_rel)·h, K(s) = |s × ωA|·|hA| + |s × ωB|·|hB|;
// - a gap above the target lasts advance_time(gap, approach): sep stays ≥ target over it;
// - without rotation the bound is exact (sep is linear with slope s·v_rel), which pins its sign.
#include "detail/advancement_bound.hpp"

#include "scenes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using scenes::Rng;
using V = Eigen::Vector3d;
using M = Eigen::Matrix3d;

struct MovingBox {
  V half, x0, v, w;
  M r0;
  [[nodiscard]] M rotation(double t) const {
    const double a = w.norm();
    return a > 0 ? M(Eigen::AngleAxisd(t * a, w / a).toRotationMatrix() * r0) : r0;
  }
  [[nodiscard]] V position(double t) const { return x0 + t * v; }
  /// max over the box of s·x at time t.
  [[nodiscard]] double support(const V& s, double t) const {
    const M r = rotation(t);
    double h = s.dot(position(t));
    for (int i = 0; i < 3; ++i) h += std::abs(s.dot(r.col(i))) * half[i];
    return h;
  }
};

double separation(const MovingBox& a, const MovingBox& b, const V& s, double t) {
  return -b.support(-s, t) - a.support(s, t);
}

MovingBox random_box(Rng& rng, bool turning) {
  MovingBox m;
  m.half = V(rng.uniform(0.05, 1.5), rng.uniform(0.05, 1.5), rng.uniform(0.05, 1.5));
  m.x0 = rng.in_cube(3);
  m.v = rng.in_cube(3);
  m.w = turning ? V(rng.uniform(0, 8) * rng.unit()) : V::Zero();
  m.r0 = rng.rotation().toRotationMatrix();
  return m;
}

/// K(s): how fast the turning can change the separation along s (Vlack & Tachi's bound), from
/// the boxes' reach about their centres (the origins they turn about).
double turning_speed(const MovingBox& a, const MovingBox& b, const V& s) {
  return s.cross(a.w).norm() * a.half.norm() + s.cross(b.w).norm() * b.half.norm();
}

TEST(AdvancementBound, SeparationNeverFallsFasterThanTheApproachSpeed) {
  Rng rng(scenes::seed_of("advancement bound rate"));
  const double steps[] = {1e-4, 1e-3, 0.01, 0.05, 0.2, 0.5, 1.0};
  double closest = 0;  // the largest observed fall over the bound's, below 1: the bound is not loose everywhere
  for (int c = 0; c < scenes::battery(400); ++c) {
    const MovingBox a = random_box(rng, true), b = random_box(rng, true);
    const V s = rng.unit();
    const double approach = impact::detail::approach_speed(turning_speed(a, b, s), s.dot(b.v - a.v));
    for (int k = 0; k <= 100; ++k) {
      const double t = k / 100.0, f = separation(a, b, s, t);
      for (double h : steps) {
        if (t + h > 1) continue;
        const double g = separation(a, b, s, t + h);
        ASSERT_GE(g, f - approach * h - 1e-12) << "case " << c << " t " << t << " h " << h;
        if (approach > 0 && h <= 1e-3) closest = std::max(closest, (f - g) / (approach * h));
      }
    }
  }
  // Some small step falls at more than half the bound: a bound that grew needlessly large (say
  // K doubled) would fail here.
  EXPECT_GT(closest, 0.5);
  EXPECT_LE(closest, 1.0);
}

TEST(AdvancementBound, AGapLastsItsAdvanceTime) {
  Rng rng(scenes::seed_of("advancement bound time"));
  int advanced = 0;
  for (int c = 0; c < scenes::battery(1000); ++c) {
    const MovingBox a = random_box(rng, true), b = random_box(rng, true);
    const V s = rng.unit();
    const double t0 = rng.uniform(0, 0.8), target = rng.uniform(0, 0.2);
    const double gap = separation(a, b, s, t0) - target;
    const double approach = impact::detail::approach_speed(turning_speed(a, b, s), s.dot(b.v - a.v));
    if (!(gap > 0) || !(approach > 0)) continue;
    const double tau = impact::detail::advance_time(gap, approach);
    ASSERT_GT(tau, 0);
    ++advanced;
    const double end = std::min(1.0, t0 + tau);
    for (int k = 0; k <= 400; ++k) {
      const double t = t0 + (end - t0) * k / 400.0;
      ASSERT_GE(separation(a, b, s, t), target - 1e-12) << "case " << c << " t " << t;
    }
  }
  EXPECT_GT(advanced, scenes::battery(1000) / 10);
}

TEST(AdvancementBound, WithoutRotationTheBoundIsExact) {
  Rng rng(scenes::seed_of("advancement bound linear"));
  for (int c = 0; c < scenes::battery(1000); ++c) {
    const MovingBox a = random_box(rng, false), b = random_box(rng, false);
    const V s = rng.unit();
    const double approach = impact::detail::approach_speed(turning_speed(a, b, s), s.dot(b.v - a.v));
    const double t = rng.uniform(0, 0.5), h = rng.uniform(0, 0.5);
    EXPECT_NEAR(separation(a, b, s, t + h), separation(a, b, s, t) - approach * h, 1e-12) << c;
    const double gap = rng.uniform(0.01, 1);
    if (approach > 0) {
      EXPECT_NEAR(impact::detail::advance_time(gap, approach) * approach, gap, 1e-12) << c;
    }
  }
}

}  // namespace
