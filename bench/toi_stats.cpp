// impact benchmarks — toi_stats.cpp: the statistics Vlack & Tachi report for their TOI solver
// (§6: iterations average and worst case, photo-finish false alarm rate), measured on our own
// scene of falling convex pieces.
//
// The scene (seeded, deterministic; every number below is a default, see --help):
// - 60 static pieces, "the plant": boxes (half extents uniform in [0.05, 0.6]) and hulls (16–32
//   random points on an ellipsoid with semi-axes in [0.15, 0.6]), alternating, at uniform
//   positions in x, z ∈ [−3, 3], y ∈ [0, 4], uniform orientations; and a floor, a static box
//   10 × 1 × 10 with its top face at y = 0, on which the pieces that get through come to rest.
// - 150 falling pieces, "the bones": boxes (half extents in [0.03, 0.4], so often long and thin) and
//   hulls (8–64 points on an ellipsoid with semi-axes in [0.05, 0.4]), alternating, dropped from
//   x, z ∈ [−2.5, 2.5], y ∈ [6, 14] (no two bounding spheres overlapping), initial velocity
//   uniform in [−1, 1]³ m/s, spin uniform in [0, 10] rad/s about a uniform axis.
// - Gravity 9.81 m/s² along −y; frames of 1/24 s (the paper's); 240 frames (10 s).
// - Each frame, every falling piece moves over the frame with constant linear velocity v + g·dt/2
//   (the same end position as the exact parabola) and constant angular velocity: the
//   impact::Motion over t ∈ [0, 1] with linear_velocity = (v + g·dt/2)·dt, angular_velocity = ω·dt.
//   Pairs (falling–falling and falling–static) whose bounding spheres (about the local origins)
//   come within each other over the frame (closest approach of the linearly moving centres) are
//   queried with time_of_impact (extrusion_brent, double, defaults) — the simulation's own answers.
// - Response, kept simple (the statistics concern the queries, not the physics): each piece stops
//   at its earliest contact of the frame (its pose at that toi; the rest of the frame is lost), and
//   every contact of the frame exchanges an impulse along the contact normal, restitution 0.7,
//   equal masses (a static piece is immovable); the tangential velocity keeps 80% and the spin 90%.
//   A pair already within the tolerance at the start of the frame (initially_overlapping) is
//   handled like a contact at t = 0 if it approaches along the normal, and ignored if it
//   separates. Pieces that fall below y = −5 leave the scene.
//
// Every query of the simulation (shapes and motions) is recorded, and the recorded list is then
// replayed with each configuration of the table: float with tolerance √ε_float ≈ 3.45e-4 (the
// paper's), with our conservative acceptance and with the paper's; double with its default
// tolerance (1e-6) and with 3.45e-4. So every row is measured on exactly the same queries.
//
// Iterations are ToiHit::iterations (interval tests: the paper's solver iterations; 1 when the
// test of [0, 1] succeeds at once). A photo finish is a query whose test of [0, 1] failed and
// that ended with no contact (ToiStats::photo_finish); the false alarm rate is photo finishes
// over the queries whose test of [0, 1] failed (photo finishes + hits + iteration caps).
// Queries that start within the tolerance (initially_overlapping) run no interval test and are
// left out of the averages (their count is shown).
#include <impact/query.hpp>
#include <impact/toi.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using V3 = impact::Vec3<double>;
using Rng = std::mt19937_64;
constexpr double kPi = std::numbers::pi;

double uniform(Rng& rng, double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53); }

V3 unit_vector(Rng& rng) {
  const double z = uniform(rng, -1, 1), phi = uniform(rng, 0, 2 * kPi), s = std::sqrt(std::max(0.0, 1 - z * z));
  return {s * std::cos(phi), s * std::sin(phi), z};
}

impact::Quat<double> random_rotation(Rng& rng) {  // Shoemake
  const double u1 = uniform(rng, 0, 1), u2 = uniform(rng, 0, 2 * kPi), u3 = uniform(rng, 0, 2 * kPi);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  return impact::Quat<double>(a * std::sin(u2), a * std::cos(u2), b * std::sin(u3), b * std::cos(u3)).normalized();
}

impact::Shape<double> ellipsoid_hull(Rng& rng, int n, double lo, double hi) {
  const V3 axes(uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi));
  std::vector<V3> pts;
  for (int i = 0; i < n; ++i) pts.push_back(unit_vector(rng).cwiseProduct(axes));
  auto built = impact::Hull<double>::build(std::span<const V3>(pts));
  if (!built.ok()) {
    std::fprintf(stderr, "hull build failed: %s\n", built.error.c_str());
    std::exit(1);
  }
  return std::move(built.hull);
}

impact::Shape<double> box(Rng& rng, double lo, double hi) {
  return impact::Box<double>{V3(uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi))};
}

struct Body {
  int shape;
  double radius;  // bounding radius about the origin
  impact::Pose<double> pose;
  V3 v = V3::Zero(), w = V3::Zero();  // m/s, rad/s
  bool dynamic = true, active = true;
};

struct Query {
  int sa, sb;
  impact::Motion<double> ma, mb;
};

struct Config {
  const char* name;
  bool use_float;
  double tolerance;
  bool paper;
};

struct Row {
  long queries = 0, initial = 0, hits = 0, misses = 0, capped = 0, photo = 0, first_failed = 0, iters = 0;
  long iters_failed = 0;  // interval tests summed over the queries whose test of [0, 1] failed
  int worst = 0;
  long gjk = 0, dir = 0, brent = 0;
  long differ = 0;  // hit/miss differs from the simulation's own answer (double, defaults)
  std::vector<std::size_t> capped_ids;
  double seconds = 0;
};

template <class S>
impact::Motion<S> cast_motion(const impact::Motion<double>& m) {
  impact::Motion<S> out;
  out.pose = m.pose.cast<S>();
  out.pose.rotation.normalize();
  out.linear_velocity = m.linear_velocity.cast<S>();
  out.angular_velocity = m.angular_velocity.cast<S>();
  return out;
}

template <class S>
Row replay(const std::vector<impact::Shape<S>>& shapes, const std::vector<Query>& queries, const Config& cfg,
           const std::vector<int>& reference) {
  impact::ToiOptions<S> opt;
  opt.tolerance = S(cfg.tolerance);
  opt.paper_acceptance = cfg.paper;
  Row row;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t q = 0; q < queries.size(); ++q) {
    const auto& k = queries[q];
    const auto r = impact::time_of_impact(shapes[k.sa], cast_motion<S>(k.ma), shapes[k.sb], cast_motion<S>(k.mb), opt);
    ++row.queries;
    const bool hit = r.status == impact::Status::hit || r.status == impact::Status::max_iterations;
    if (r.status == impact::Status::initially_overlapping) {
      ++row.initial;
      row.differ += reference[q] != int(impact::Status::initially_overlapping);
      continue;
    }
    row.differ += hit != (reference[q] == int(impact::Status::hit) || reference[q] == int(impact::Status::max_iterations));
    row.hits += r.status == impact::Status::hit;
    row.misses += r.status == impact::Status::miss;
    row.capped += r.status == impact::Status::max_iterations;
    if (r.status == impact::Status::max_iterations) row.capped_ids.push_back(q);
    row.photo += r.stats.photo_finish;
    row.first_failed += r.stats.photo_finish || hit;
    if (r.stats.photo_finish || hit) row.iters_failed += r.iterations;
    row.iters += r.iterations;
    row.worst = std::max(row.worst, r.iterations);
    row.gjk += r.stats.gjk_calls;
    row.dir += r.stats.direction_evals;
    row.brent += r.stats.brent_evals;
  }
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return row;
}

long arg(int argc, char** argv, const char* name, long def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::strtol(argv[i + 1], nullptr, 10);
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("impact_toi_stats [--frames 240] [--static 60] [--falling 150] [--seed 24]\n"
                  "Falling convex pieces; the TOI solver statistics of Vlack & Tachi, section 6 (see toi_stats.cpp).\n");
      return 0;
    }
  const int frames = static_cast<int>(arg(argc, argv, "--frames", 240));
  const int n_static = static_cast<int>(arg(argc, argv, "--static", 60));
  const int n_falling = static_cast<int>(arg(argc, argv, "--falling", 150));
  const std::uint64_t seed = static_cast<std::uint64_t>(arg(argc, argv, "--seed", 24));
  const double dt = 1.0 / 24, e = 0.7;
  const V3 g(0, -9.81, 0);

  Rng rng(seed);
  std::vector<impact::Shape<double>> shapes;
  std::vector<Body> bodies;
  for (int i = 0; i < n_static; ++i) {
    shapes.push_back(i % 2 ? ellipsoid_hull(rng, 16 + static_cast<int>(rng() % 17), 0.15, 0.6) : box(rng, 0.05, 0.6));
    Body b;
    b.shape = static_cast<int>(shapes.size()) - 1;
    b.radius = impact::bounding_radius(shapes.back());
    b.pose.position = V3(uniform(rng, -3, 3), uniform(rng, 0, 4), uniform(rng, -3, 3));
    b.pose.rotation = random_rotation(rng);
    b.dynamic = false;
    bodies.push_back(b);
  }
  {  // The floor: a static box 10 × 1 × 10, top face at y = 0.
    shapes.push_back(impact::Box<double>{V3(5, 0.5, 5)});
    Body b;
    b.shape = static_cast<int>(shapes.size()) - 1;
    b.radius = impact::bounding_radius(shapes.back());
    b.pose.position = V3(0, -0.5, 0);
    b.dynamic = false;
    bodies.push_back(b);
  }
  for (int i = 0; i < n_falling; ++i) {
    shapes.push_back(i % 2 ? ellipsoid_hull(rng, 8 + static_cast<int>(rng() % 57), 0.05, 0.4) : box(rng, 0.03, 0.4));
    Body b;
    b.shape = static_cast<int>(shapes.size()) - 1;
    b.radius = impact::bounding_radius(shapes.back());
    for (int tries = 0;; ++tries) {
      b.pose.position = V3(uniform(rng, -2.5, 2.5), uniform(rng, 6, 14), uniform(rng, -2.5, 2.5));
      bool clear = true;
      for (const auto& o : bodies)
        if (o.dynamic && (o.pose.position - b.pose.position).norm() < o.radius + b.radius) clear = false;
      if (clear || tries > 1000) break;
    }
    b.pose.rotation = random_rotation(rng);
    b.v = V3(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
    b.w = uniform(rng, 0, 10) * unit_vector(rng);
    bodies.push_back(b);
  }

  // ---- simulate, recording every query and the simulation's own (double, default) answer ----
  std::vector<Query> queries;
  std::vector<int> reference;
  long contacts = 0, initial_contacts = 0;
  int active_at_end = 0;
  for (int f = 0; f < frames; ++f) {
    const std::size_t n = bodies.size();
    std::vector<impact::Motion<double>> motion(n);
    for (std::size_t i = 0; i < n; ++i) {
      motion[i].pose = bodies[i].pose;
      if (bodies[i].dynamic && bodies[i].active) {
        motion[i].linear_velocity = (bodies[i].v + 0.5 * dt * g) * dt;
        motion[i].angular_velocity = bodies[i].w * dt;
      }
    }
    struct Contact {
      std::size_t a, b;
      double toi;
      V3 normal;  // from a toward b
    };
    std::vector<Contact> found;
    for (std::size_t i = 0; i < n; ++i) {
      if (!bodies[i].active) continue;
      for (std::size_t j = i + 1; j < n; ++j) {
        if (!bodies[j].active || (!bodies[i].dynamic && !bodies[j].dynamic)) continue;
        // Closest approach of the two centres over the frame against the sum of the radii.
        const V3 d0 = bodies[j].pose.position - bodies[i].pose.position;
        const V3 dv = motion[j].linear_velocity - motion[i].linear_velocity;
        const double s = dv.squaredNorm() > 0 ? std::clamp(-d0.dot(dv) / dv.squaredNorm(), 0.0, 1.0) : 0.0;
        const double r = bodies[i].radius + bodies[j].radius;
        if ((d0 + s * dv).squaredNorm() > r * r) continue;
        queries.push_back({bodies[i].shape, bodies[j].shape, motion[i], motion[j]});
        const auto hit = impact::time_of_impact(shapes[bodies[i].shape], motion[i], shapes[bodies[j].shape], motion[j]);
        reference.push_back(static_cast<int>(hit.status));
        if (hit.status == impact::Status::hit || hit.status == impact::Status::max_iterations) {
          found.push_back({i, j, double(hit.toi), hit.normal});
        } else if (hit.status == impact::Status::initially_overlapping) {
          // A normal from the distance query (apart by at most the tolerance), else from the centres.
          const auto dq = impact::distance(shapes[bodies[i].shape], bodies[i].pose, shapes[bodies[j].shape], bodies[j].pose);
          V3 nrm = dq.status == impact::Status::separated && (dq.point_b - dq.point_a).norm() > 0
                       ? V3((dq.point_b - dq.point_a).normalized())
                       : V3(d0.norm() > 0 ? V3(d0.normalized()) : V3::UnitY());
          found.push_back({i, j, 0.0, nrm});
          ++initial_contacts;
        }
      }
    }
    contacts += static_cast<long>(found.size());
    // Each body stops at its earliest contact; impulses along the normals.
    // A pair touching at the frame's start that is already separating along the normal neither
    // stops nor exchanges an impulse (else resting pieces would stay glued).
    std::vector<V3> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = bodies[i].v + dt * g * (bodies[i].dynamic ? 1.0 : 0.0);
    std::vector<double> stop(n, 1.0);
    for (const auto& c : found) {
      if (c.toi == 0 && (v[c.b] - v[c.a]).dot(c.normal) >= 0) continue;
      stop[c.a] = std::min(stop[c.a], c.toi);
      stop[c.b] = std::min(stop[c.b], c.toi);
    }
    std::sort(found.begin(), found.end(), [](const Contact& x, const Contact& y) { return x.toi < y.toi; });
    for (const auto& c : found) {
      Body& A = bodies[c.a];
      Body& B = bodies[c.b];
      const V3& nrm = c.normal;
      const double vn = (v[c.b] - v[c.a]).dot(nrm);  // < 0: approaching
      if (vn >= 0) continue;
      if (A.dynamic && B.dynamic) {
        const double j = -(1 + e) * vn / 2;
        v[c.a] -= j * nrm;
        v[c.b] += j * nrm;
      } else if (A.dynamic) {
        v[c.a] -= (1 + e) * (v[c.a].dot(nrm)) * nrm;
      } else {
        v[c.b] -= (1 + e) * (v[c.b].dot(nrm)) * nrm;
      }
      for (std::size_t k : {c.a, c.b}) {
        if (!bodies[k].dynamic) continue;
        const V3 vt = v[k] - v[k].dot(nrm) * nrm;
        v[k] -= 0.2 * vt;
        bodies[k].w *= 0.9;
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      Body& b = bodies[i];
      if (!b.dynamic || !b.active) continue;
      b.pose = motion[i].at(stop[i]);
      b.v = v[i];
      if (b.pose.position.y() < -5) b.active = false;
    }
  }
  for (const auto& b : bodies) active_at_end += b.dynamic && b.active;

  // ---- replay with each configuration ----
  std::vector<impact::Shape<float>> shapes_f;
  for (const auto& s : shapes) shapes_f.push_back(impact::convert_shape<float>(s));
  const double sqrt_eps_f = std::sqrt(double(std::numeric_limits<float>::epsilon()));
  const Config configs[] = {
      {"float, tol √ε_f, conservative (ours)", true, sqrt_eps_f, false},
      {"float, tol √ε_f, paper's acceptance", true, sqrt_eps_f, true},
      {"double, tol √ε_f, conservative (ours)", false, sqrt_eps_f, false},
      {"double, tol 1e-6 (default), conservative", false, 1e-6, false},
      {"double, tol 1e-6 (default), paper's acceptance", false, 1e-6, true},
  };
  std::printf("Falling pieces: %d static and a floor, %d falling, %d frames of 1/24 s, seed %llu; %d still in the scene at the end.\n",
              n_static, n_falling, frames, static_cast<unsigned long long>(seed), active_at_end);
  std::printf("%zu time_of_impact queries (pairs whose bounding spheres meet over the frame); the simulation's own answers "
              "(double, defaults): %ld contacts, of which %ld already within tolerance at the frame's start.\n\n",
              queries.size(), contacts, initial_contacts);
  std::printf("| configuration | queries | initially within tol | hits | misses | max_iterations | iterations avg | avg when [0, 1] failed | worst | "
              "photo finishes / first test failed | false alarm rate | GJK calls avg | differ from sim | µs/query |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::vector<std::pair<const char*, std::vector<std::size_t>>> capped;
  for (const auto& cfg : configs) {
    const Row r = cfg.use_float ? replay(shapes_f, queries, cfg, reference) : replay(shapes, queries, cfg, reference);
    if (!r.capped_ids.empty()) capped.emplace_back(cfg.name, r.capped_ids);
    const long tested = r.queries - r.initial;
    std::printf("| %s | %ld | %ld | %ld | %ld | %ld | %.2f | %.2f | %d | %ld / %ld | %.1f%% | %.2f | %ld | %.1f |\n", cfg.name,
                r.queries, r.initial, r.hits, r.misses, r.capped, double(r.iters) / double(std::max(1L, tested)),
                double(r.iters_failed) / double(std::max(1L, r.first_failed)), r.worst,
                r.photo, r.first_failed, 100.0 * double(r.photo) / double(std::max(1L, r.first_failed)),
                double(r.gjk) / double(std::max(1L, tested)), r.differ, 1e6 * r.seconds / double(std::max(1L, r.queries)));
  }
  std::printf("| Vlack & Tachi 2001, §6 (float, tol ≈ 3e-4, their skeleton-on-plant scene) | | | | | | 2.2 | | 43 | | 70%% | | | |\n");
  // Where the iteration caps fall: the gap at the frame's start and the simulation's answer.
  for (const auto& [name, ids] : capped) {
    std::vector<double> gaps;
    long hits = 0;
    for (std::size_t q : ids) {
      const auto& k = queries[q];
      const auto d = impact::distance(shapes[k.sa], k.ma.pose, shapes[k.sb], k.mb.pose);
      gaps.push_back(d.status == impact::Status::separated ? double(d.distance) : 0.0);
      hits += reference[q] == int(impact::Status::hit);
    }
    std::sort(gaps.begin(), gaps.end());
    std::printf("\nmax_iterations under '%s': %zu queries; distance at t = 0 (double) min %.3g, median %.3g, max %.3g; "
                "the double default answer is a hit on %ld of them. First: query %zu:\n",
                name, ids.size(), gaps.front(), gaps[gaps.size() / 2], gaps.back(), hits, ids.front());
    const auto& k = queries[ids.front()];
    {
      const auto df = impact::distance(shapes_f[k.sa], cast_motion<float>(k.ma).pose, shapes_f[k.sb], cast_motion<float>(k.mb).pose);
      const auto dd = impact::distance(shapes[k.sa], k.ma.pose, shapes[k.sb], k.mb.pose);
      std::printf("  at t = 0: float distance %s %.3g (%d GJK iterations), double %s %.3g; shapes %s and %s\n",
                  impact::to_string(df.status).data(), double(df.distance), df.iterations, impact::to_string(dd.status).data(),
                  dd.distance, impact::shape_name(shapes[k.sa]), impact::shape_name(shapes[k.sb]));
    }
    for (const auto* m : {&k.ma, &k.mb})
      std::printf("  p=(%.9g, %.9g, %.9g) q_wxyz=(%.9g, %.9g, %.9g, %.9g) v=(%.9g, %.9g, %.9g) w=(%.9g, %.9g, %.9g)\n",
                  m->pose.position.x(), m->pose.position.y(), m->pose.position.z(), m->pose.rotation.w(),
                  m->pose.rotation.x(), m->pose.rotation.y(), m->pose.rotation.z(), m->linear_velocity.x(),
                  m->linear_velocity.y(), m->linear_velocity.z(), m->angular_velocity.x(), m->angular_velocity.y(),
                  m->angular_velocity.z());
  }
  return 0;
}
