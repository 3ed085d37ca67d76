// Time of impact under rotation with a closed-form answer, for the unit tests of the two
// time-of-impact methods (tests/unit/toi/): a thin bar (a box of half extents L, w, w) turning
// about its z axis at angular speed ω, and a sphere of radius r whose centre is at distance
// d ≤ 0.9·L from that axis, at angle φ from the bar, in the bar's mid-plane. In the bar's frame
// the centre is at (d·cos(φ − θ), d·sin(φ − θ), 0); since d < L it is always over the bar's long
// faces, so the distance is d·|sin(φ − θ)| − w − r and the first contact at the target is
//   θ* = φ − asin((w + r + target) / d),   t* = θ* / ω.
// The scene is then turned and moved at random (both bodies share one linear velocity and the
// sphere spins too: neither changes the distance). A share of the cases put the sphere beyond
// the bar's reach and spin the bar several turns: misses. Hits are about half the cases; the
// grazing ones (t* within 2% of 1) are not generated.
#pragma once

#include "scenes.hpp"

#include <impact/toi.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace toi_scenes {

using V = Eigen::Vector3d;
using scenes::Rng;

template <class S>
struct BarCase {
  impact::Shape<S> a, b;
  impact::Motion<S> motion_a, motion_b;
  double target = 0;
  bool hit = false;
  double toi = 0;
  double bar_length = 0, bar_width = 0, radius = 0, d = 0, phi = 0, omega = 0;
  bool bar_is_a = true;
  /// The closed-form distance at t: the sphere's centre against the bar in the bar's frame.
  [[nodiscard]] double distance(double t) const {
    const double th = phi - omega * t;
    const V local(d * std::cos(th), d * std::sin(th), 0);
    return (local.cwiseAbs() - V(bar_length, bar_width, bar_width)).cwiseMax(0.0).norm() - radius;
  }
};

template <class S>
BarCase<S> turning_bar(Rng& rng) {
  constexpr bool f = sizeof(S) == 4;
  auto rd = [](double x) { return f ? double(float(x)) : x; };
  BarCase<S> k;
  k.bar_width = rd(rng.uniform(0.02, 0.2));
  k.radius = rd(rng.uniform(0.1, 0.5));
  k.target = rng.uniform() < 0.3 ? rd(rng.uniform(0.01, 0.1)) : 0.0;
  const double reach = k.bar_width + k.radius + k.target;
  k.bar_length = rd(rng.uniform(1.6, 3.0) * reach / 0.9 + rng.uniform(0, 1));
  const bool beyond = rng.uniform() < 0.15;
  double theta_star = 0;
  if (beyond) {
    // Beyond the bar's corners (and the target) by at least 0.05: never within reach.
    const double corner = std::hypot(k.bar_length, k.bar_width * std::sqrt(2.0));
    k.d = rd(corner + k.radius + k.target + rng.uniform(0.05, 1));
    k.phi = rd(rng.uniform(0, 2 * M_PI));
    k.omega = rd(rng.uniform(-40, 40));
  } else {
    k.d = rd(rng.uniform(1.3 * reach, 0.9 * k.bar_length));
    const double edge = std::asin(reach / k.d);
    k.phi = rd(rng.uniform(edge + 0.05, M_PI - edge - 0.05));
    theta_star = k.phi - edge;
    double u;
    do u = rng.uniform(0.3, 1.7);
    while (std::abs(u - 1) < 0.02);
    k.omega = rd(theta_star / u);
  }
  // Recompute from the rounded inputs.
  if (!beyond) {
    theta_star = k.phi - std::asin(reach / k.d);
    k.toi = theta_star / k.omega;
    k.hit = k.toi <= 1;
  }
  // The scene frame: turned and moved; a common drift; the sphere spinning.
  const Eigen::Quaterniond q = rng.rotation();
  const V origin = rng.in_cube(5), drift = rng.in_cube(3);
  impact::Motion<S> bar, ball;
  bar.pose.position = origin.template cast<S>();
  bar.pose.rotation = q.template cast<S>();
  bar.linear_velocity = drift.template cast<S>();
  bar.angular_velocity = (q * V(0, 0, k.omega)).template cast<S>();
  ball.pose.position = (origin + q * V(k.d * std::cos(k.phi), k.d * std::sin(k.phi), 0)).template cast<S>();
  ball.pose.rotation = rng.rotation().template cast<S>();
  ball.linear_velocity = drift.template cast<S>();
  ball.angular_velocity = (rng.uniform(0, 10) * rng.unit()).template cast<S>();
  const impact::Shape<S> bar_shape = impact::Box<S>{V(k.bar_length, k.bar_width, k.bar_width).template cast<S>()};
  const impact::Shape<S> ball_shape = impact::Sphere<S>{S(k.radius)};
  k.bar_is_a = rng.uniform() < 0.5;
  k.a = k.bar_is_a ? bar_shape : ball_shape;
  k.b = k.bar_is_a ? ball_shape : bar_shape;
  k.motion_a = k.bar_is_a ? bar : ball;
  k.motion_b = k.bar_is_a ? ball : bar;
  return k;
}

/// Runs `method` on `cases` bar cases: hits are hits, never after t*, at a closed-form distance
/// within the tolerance of the target; misses are misses; hits are 30–70% of the cases.
template <class S>
void check_method(impact::ToiMethod method, const std::string& name, int cases) {
  Rng rng(scenes::seed_of(name + scenes::scalar_name<S>()));
  impact::ToiOptions<S> opt;
  opt.method = method;
  // Rounding of the inputs in float: the scene (size ~10) to ~1e-6, and the angle at t, ω·t,
  // to a few 1e-6 rad over the bar's length.
  const double len_eps = sizeof(S) == 4 ? 6e-5 : 1e-9;
  int hits = 0;
  for (int c = 0; c < cases; ++c) {
    const BarCase<S> k = turning_bar<S>(rng);
    opt.target_distance = S(k.target);
    const impact::ToiHit<S> r = impact::time_of_impact<S>(k.a, k.motion_a, k.b, k.motion_b, opt);
    const std::string what = name + " case " + std::to_string(c) +
                             (k.hit ? " (hit at " + std::to_string(k.toi) + ")" : " (miss)") + " ω " +
                             std::to_string(k.omega) + " d " + std::to_string(k.d) + " L " + std::to_string(k.bar_length);
    if (!k.hit) {
      EXPECT_EQ(r.status, impact::Status::miss) << what << " got toi " << r.toi;
      continue;
    }
    ++hits;
    ASSERT_EQ(r.status, impact::Status::hit) << what;
    const double t = double(r.toi), dist = k.distance(t);
    EXPECT_GE(dist, k.target - len_eps) << what << ": late, toi " << t;
    EXPECT_LE(dist, k.target + double(opt.tolerance) + len_eps) << what << ": early beyond the tolerance, toi " << t;
    EXPECT_LE(t, k.toi + len_eps / std::max(1e-3, std::abs(k.omega) * k.d)) << what;
    EXPECT_NEAR(r.normal.template cast<double>().norm(), 1.0, 1e-3) << what;
  }
  EXPECT_GT(hits, cases * 3 / 10) << name;
  EXPECT_LT(hits, cases * 7 / 10) << name;
}

}  // namespace toi_scenes
