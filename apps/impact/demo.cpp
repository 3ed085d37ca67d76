// impact — demo.cpp: a scene with a shape of every type at varied poses; GJK distance between
// every pair, in double and float, with timings, a warm-start comparison and an overlap test.
#include "demo.hpp"
#include "demo_scenes.hpp"

#include <impact/cast.hpp>
#include <impact/query.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <random>
#include <string>
#include <vector>

namespace impact::cli {
namespace {

Quat<double> axis_angle(double angle, Vec3<double> axis) {
  return Quat<double>(Eigen::AngleAxis<double>(angle, axis.normalized()));
}

}  // namespace

std::vector<DemoShape> demo_shapes() {
  std::vector<Vec3<double>> sphere_points;
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (int i = 0; i < 128; ++i) sphere_points.push_back(Vec3<double>(g(rng), g(rng), g(rng)).normalized() * 0.8);
  auto hull = Hull<double>::build(sphere_points).hull;
  auto box = std::make_shared<const Shape<double>>(Box<double>{Vec3<double>(0.4, 0.3, 0.2)});
  auto ball = std::make_shared<const Shape<double>>(Sphere<double>{0.15});
  // Laid out on a ring so that neighbours are close and some pairs overlap.
  std::vector<DemoShape> items = {
      {"point", Point<double>{}, {}},
      {"sphere", Sphere<double>{0.7}, {}},
      {"box", Box<double>{Vec3<double>(0.6, 0.4, 0.3)}, {}},
      {"capsule", Capsule<double>{0.3, 0.6}, {}},
      {"cylinder", Cylinder<double>{0.5, 0.4}, {}},
      {"cone", Cone<double>{0.5, 0.6}, {}},
      {"segment", Segment<double>{Vec3<double>(-0.7, 0, 0), Vec3<double>(0.7, 0.2, 0)}, {}},
      {"triangle", Triangle<double>{Vec3<double>(-0.6, -0.4, 0), Vec3<double>(0.7, -0.3, 0.1), Vec3<double>(0, 0.6, 0)}, {}},
      {"hull128", hull, {}},
      {"minkowski", MinkowskiShape<double>{box, ball}, {}},
  };
  const int n = static_cast<int>(items.size());
  for (int i = 0; i < n; ++i) {
    const double t = 2 * M_PI * i / n;
    items[i].pose.position = Vec3<double>(2.2 * std::cos(t), 2.2 * std::sin(t), 0.3 * std::sin(3 * t));
    items[i].pose.rotation = axis_angle(0.7 * i + 0.3, Vec3<double>(1, 0.5 * i, 2 - i * 0.1));
  }
  return items;
}

DemoBullet demo_bullet() {
  DemoBullet d;
  d.bullet = Sphere<double>{0.05};
  d.wall = Box<double>{Vec3<double>(0.01, 1.0, 1.0)};
  d.start.position = Vec3<double>(-2.0, 0.1, -0.2);
  d.wall_pose.rotation = axis_angle(0.3, Vec3<double>(0, 0, 1));
  d.velocity = Vec3<double>(4.0, 0.05, 0.0);
  return d;
}

namespace {

template <class F>
double ns_per_call(int reps, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) f();
  const auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / reps;
}

}  // namespace

int run_demo(const DemoOptions& options, std::ostream& out) {
  char line[256];
  auto items = demo_shapes();
  out << "impact demo — GJK distance between a shape of every type (double and float)\n\n";
  out << "Scene: " << items.size() << " shapes on a ring of radius 2.2, each turned differently:\n";
  for (const auto& it : items) {
    std::snprintf(line, sizeof line, "  %-10s at (%6.3f, %6.3f, %6.3f)\n", it.name.c_str(), it.pose.position.x(),
                  it.pose.position.y(), it.pose.position.z());
    out << line;
  }
  const int reps = std::max(1, options.repetitions);
  out << "\nNeighbouring pairs and the far pair (timings: median-free mean of " << reps << " queries):\n";
  std::snprintf(line, sizeof line, "  %-22s %-13s %12s %5s %9s %9s %34s\n", "pair", "status", "distance", "iter",
                "ns double", "ns float", "normal (A toward B)");
  out << line;
  const int n = static_cast<int>(items.size());
  volatile double sink = 0;
  for (int i = 0; i < n; ++i) {
    for (int step : {1, 2, n / 2}) {
      if (step == n / 2 && i >= n / 2) continue;
      const DemoShape& a = items[i];
      const DemoShape& b = items[(i + step) % n];
      const auto r = distance(a.shape, a.pose, b.shape, b.pose);
      const double td = ns_per_call(reps, [&] { sink = sink + distance(a.shape, a.pose, b.shape, b.pose).distance; });
      const auto af = convert_shape<float>(a.shape), bf = convert_shape<float>(b.shape);
      const auto paf = a.pose.cast<float>(), pbf = b.pose.cast<float>();
      const double tf = ns_per_call(reps, [&] { sink = sink + distance(af, paf, bf, pbf).distance; });
      std::snprintf(line, sizeof line, "  %-22s %-13s %12.9f %5d %9.1f %9.1f   (%9.6f, %9.6f, %9.6f)\n",
                    (a.name + "-" + b.name).c_str(), std::string(to_string(r.status)).c_str(), r.distance,
                    r.iterations, td, tf, r.normal.x(), r.normal.y(), r.normal.z());
      out << line;
    }
  }

  // A slowly moving pair: the cache carries the simplex from one step to the next.
  out << "\nWarm start: hull128 sliding past the box in 200 small steps\n";
  const DemoShape& hb = items[8];
  const DemoShape& bx = items[2];
  GjkCache<double> cache;
  int cold_iters = 0, warm_iters = 0;
  double max_diff = 0;
  for (int k = 0; k < 200; ++k) {
    Pose<double> p = hb.pose;
    p.position = bx.pose.position + Vec3<double>(1.6, -1.0 + 0.01 * k, 0.2);
    p.rotation = hb.pose.rotation * axis_angle(0.002 * k, Vec3<double>(0, 0, 1));
    const auto cold = distance(hb.shape, p, bx.shape, bx.pose);
    const auto warm = distance(hb.shape, p, bx.shape, bx.pose, {}, &cache);
    cold_iters += cold.iterations;
    warm_iters += warm.iterations;
    max_diff = std::max(max_diff, std::abs(cold.distance - warm.distance));
  }
  std::snprintf(line, sizeof line, "  iterations per query: cold %.2f, warm %.2f; largest distance difference %.3g\n",
                cold_iters / 200.0, warm_iters / 200.0, max_diff);
  out << line;

  out << "\nOverlap test (separating-axis early out) on the same neighbouring pairs:\n";
  int hits = 0, total = 0;
  double t_int = 0;
  for (int i = 0; i < n; ++i) {
    const DemoShape& a = items[i];
    const DemoShape& b = items[(i + 1) % n];
    const auto r = intersect(a.shape, a.pose, b.shape, b.pose);
    hits += r.status == Status::intersecting;
    ++total;
    t_int += ns_per_call(reps, [&] { sink = sink + intersect(a.shape, a.pose, b.shape, b.pose).iterations; });
  }
  std::snprintf(line, sizeof line, "  %d of %d neighbouring pairs overlap; %.1f ns per test on average\n", hits, total,
                t_int / total);
  out << line;
  // A bullet and a thin wall: the step is long enough that the bullet is in front of the wall at
  // t = 0 and behind it at t = 1, so overlap tests at the two ends see nothing.
  out << "\nLinear cast: a sphere of radius 0.05 crossing 4 units in one step through a wall 0.02 thick\n";
  {
    const DemoBullet d = demo_bullet();
    const Shape<double>& bullet = d.bullet;
    const Shape<double>& wall = d.wall;
    const Pose<double> pb = d.start, pw = d.wall_pose;
    const Vec3<double> vel = d.velocity, still = Vec3<double>::Zero();
    Pose<double> pend = pb;
    pend.position += vel;
    const auto start = intersect(bullet, pb, wall, pw), end = intersect(bullet, pend, wall, pw);
    std::snprintf(line, sizeof line, "  discrete test at t = 0: %s, at t = 1: %s  -> a discrete engine tunnels\n",
                  std::string(to_string(start.status)).c_str(), std::string(to_string(end.status)).c_str());
    out << line;
    struct Row {
      const char* name;
      CastMethod method;
      bool closed_form;
    };
    for (const Row& row : {Row{"gjk_raycast (closed form)", CastMethod::gjk_raycast, true},
                           Row{"gjk_raycast (GJK)", CastMethod::gjk_raycast, false},
                           Row{"conservative_advancement", CastMethod::conservative_advancement, true},
                           Row{"mpr", CastMethod::mpr, true}}) {
      ShapeCastOptions<double> opt;
      opt.method = row.method;
      opt.closed_form = row.closed_form;  // a ball against a box: a ray against the rounded box
      const auto h = shape_cast(bullet, pb, vel, wall, pw, still, opt);
      const double ns = ns_per_call(reps, [&] { sink = sink + shape_cast(bullet, pb, vel, wall, pw, still, opt).toi; });
      std::snprintf(line, sizeof line,
                    "  %-25s %-4s toi %.9f  contact (%7.4f, %7.4f, %7.4f)  normal (%7.4f, %7.4f, %7.4f)  %2d it  %7.1f ns\n",
                    row.name, std::string(to_string(h.status)).c_str(), h.toi, h.point_b.x(), h.point_b.y(), h.point_b.z(),
                    h.normal.x(), h.normal.y(), h.normal.z(), h.iterations, ns);
      out << line;
    }
    Ray<double> ray{pb.position, vel};
    const auto r = ray_cast(wall, pw, ray);
    std::snprintf(line, sizeof line, "  ray (the bullet's centre)  %s at lambda %.9f, normal (%7.4f, %7.4f, %7.4f)\n",
                  std::string(to_string(r.status)).c_str(), r.lambda, r.normal.x(), r.normal.y(), r.normal.z());
    out << line;
  }

  run_rotating_demo(reps, out);
  run_level_demo(out);
  run_world_demo(out);

  out << "\nMore: `impact query` answers the JSON Lines protocol; `impact --help` lists everything.\n";
  return 0;
}

}  // namespace impact::cli
