// impact — demo_rotating.cpp: the rotating scene of `impact demo`: a spinning blade and a fast
// body (time of impact under rotation, the paper's acceptance beside ours), and the statistics of
// Vlack & Tachi's table on tumbling pieces.
#include "demo_scenes.hpp"

#include <impact/toi.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <random>
#include <string>

namespace impact::cli {

DemoBlade demo_blade() {
  DemoBlade d;
  d.blade = Box<double>{Vec3<double>(1.5, 0.04, 0.04)};
  d.ball = Sphere<double>{0.05};
  // The blade turns about z and points along x at t = 0.5.
  d.blade_motion.angular_velocity = Vec3<double>(0, 0, 2 * M_PI * 2.5);
  d.blade_motion.pose.rotation = Quat<double>(Eigen::AngleAxis<double>(-0.5 * 2 * M_PI * 2.5, Vec3<double>::UnitZ()));
  d.ball_motion.pose.position = Vec3<double>(0.9, 0.0, -1.0);
  d.ball_motion.linear_velocity = Vec3<double>(0, 0, 2.0);
  d.ball_motion.angular_velocity = Vec3<double>(3, -2, 1);
  return d;
}

void run_rotating_demo(int reps, std::ostream& out) {
  char line[256];
  volatile double sink = 0;
  out << "\nRotation: a blade 3 long and 0.08 thick turning 2.5 turns in the step; a ball of radius 0.05\n"
         "crosses its disc at 2 units per step. At t = 0 and t = 1 the ball is a unit above and below\n"
         "the blade, so the plane between them separates both ends: the paper's test accepts [0, 1].\n";
  const DemoBlade d = demo_blade();
  const Shape<double>& blade = d.blade;
  const Shape<double>& ball = d.ball;
  const Motion<double>& mb = d.blade_motion;
  const Motion<double>& mf = d.ball_motion;
  auto run = [&](const char* name, ToiMethod method, bool paper) {
    ToiOptions<double> opt;
    opt.method = method;
    opt.paper_acceptance = paper;
    const auto h = time_of_impact(blade, mb, ball, mf, opt);
    const auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < reps / 10 + 1; ++r) sink = sink + time_of_impact(blade, mb, ball, mf, opt).toi;
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() /
                      (reps / 10 + 1);
    std::snprintf(line, sizeof line, "  %-34s %-8s toi %.9f  normal (%7.4f, %7.4f, %7.4f)  %3d it  %8.1f ns\n", name,
                  std::string(to_string(h.status)).c_str(), h.toi, h.normal.x(), h.normal.y(), h.normal.z(),
                  h.iterations, ns);
    out << line;
  };
  run("extrusion_brent (paper's acceptance)", ToiMethod::extrusion_brent, true);
  run("extrusion_brent (ours, bounded)", ToiMethod::extrusion_brent, false);
  run("conservative_advancement", ToiMethod::conservative_advancement, false);

  // Vlack & Tachi report, at a collision tolerance of √ε (float), 2.2 solver iterations on
  // average, 43 at worst and 70% photo-finish false alarms. Here: tumbling boxes and hulls of
  // size 0.2 to 1 falling past each other in steps of 1/24 s, pairs whose bounding spheres meet
  // during the step.
  out << "\nStatistics (the paper's table): 2000 tumbling box and hull pairs, float, tolerance sqrt(eps) = 3.45e-4\n";
  std::mt19937_64 rng(2024);
  std::uniform_real_distribution<double> u(-1, 1);
  auto unit = [&] {
    Vec3<double> v(u(rng), u(rng), u(rng));
    while (v.squaredNorm() > 1 || v.squaredNorm() < 1e-6) v = Vec3<double>(u(rng), u(rng), u(rng));
    return v.normalized();
  };
  std::vector<Vec3<float>> cloud;
  for (int i = 0; i < 24; ++i) cloud.push_back((unit() * 0.5).cast<float>());
  const Shape<float> hull = Hull<float>::build(cloud).hull;
  long iterations = 0;
  int worst = 0, first_failed = 0, false_alarms = 0, hits = 0;
  const int pairs = 2000;
  for (int k = 0; k < pairs; ++k) {
    auto piece = [&](Motion<float>& m) -> Shape<float> {
      m.pose.position = (unit() * (0.3 + 0.9 * std::abs(u(rng)))).cast<float>();
      m.pose.rotation = Quat<float>(Eigen::AngleAxis<float>(float(3 * u(rng)), unit().cast<float>()));
      // 1/24 s of a fall at up to 10 m/s with spins up to 20 rad/s.
      m.linear_velocity = (Vec3<double>(0, 0, -10 * std::abs(u(rng))) / 24 + unit() * 0.2 / 24).cast<float>();
      m.angular_velocity = (unit() * 20.0 * std::abs(u(rng)) / 24).cast<float>();
      if (rng() % 2) return hull;
      return Box<float>{Vec3<float>(float(0.1 + 0.4 * std::abs(u(rng))), float(0.1 + 0.4 * std::abs(u(rng))),
                                    float(0.1 + 0.4 * std::abs(u(rng))))};
    };
    Motion<float> ma, mo;
    const Shape<float> a = piece(ma), b = piece(mo);
    mo.pose.position += Vec3<float>(0, 0, 0.25f);  // b falls onto a
    mo.linear_velocity.z() -= 0.3f;
    ToiOptions<float> opt;
    opt.tolerance = std::sqrt(std::numeric_limits<float>::epsilon());
    const auto h = time_of_impact(a, ma, b, mo, opt);
    if (h.status == Status::initially_overlapping) continue;
    iterations += h.iterations;
    worst = std::max(worst, h.iterations);
    hits += h.status == Status::hit;
    if (h.iterations > 1) {
      ++first_failed;
      false_alarms += h.stats.photo_finish;
    }
  }
  std::snprintf(line, sizeof line,
                "  solver iterations: %.2f on average, %d at worst; %d hits; photo-finish false alarms %.0f%% "
                "(%d of %d failed first tests)\n  (paper: 2.2, 43, 70%%)\n",
                double(iterations) / pairs, worst, hits, first_failed ? 100.0 * false_alarms / first_failed : 0.0,
                false_alarms, first_failed);
  out << line;
}

}  // namespace impact::cli
