// impact — demo_world.cpp: the world scene of `impact demo` (issue 18): tumbling pieces (boxes,
// cylinders, hulls; every fourth a compound of 2–4 of them) falling onto a bumpy ground mesh, one
// step of a World, as Vlack & Tachi's experiment drops convex pieces onto a plant. It prints what
// the step did (pairs, calls, events, milliseconds on one and two threads, the events identical on
// both), then checks every ground contact against what a translation-only sweep of the same piece
// finds: the continuous collision Bullet, Jolt and PhysX run sweeps pieces in a straight line, and
// a tumbling piece's corner reaches the ground before (or where) its unturned sweep does not.
#include "demo.hpp"
#include "demo_scenes.hpp"

#include <impact/mesh.hpp>
#include <impact/world.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <random>

namespace impact::cli {

using V = Vec3<double>;

DemoWorld make_falling_pieces(int pieces, int quads, double half_size, std::uint64_t seed) {
  DemoWorld w;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  // The ground: a bumpy height field of quads × quads squares over [−half_size, half_size]².
  w.ground = std::make_shared<TriangleMesh<double>>();
  const double cell = 2 * half_size / quads;
  for (int j = 0; j <= quads; ++j)
    for (int i = 0; i <= quads; ++i) {
      const double x = -half_size + i * cell, y = -half_size + j * cell;
      w.ground->vertices.emplace_back(x, y, 0.35 * std::sin(0.9 * x) * std::cos(0.7 * y) + 0.15 * std::sin(2.1 * x + 1.3 * y));
    }
  for (int j = 0; j < quads; ++j)
    for (int i = 0; i < quads; ++i) {
      const auto a = std::uint32_t(j * (quads + 1) + i), b = a + 1, c = a + std::uint32_t(quads + 1), d = c + 1;
      w.ground->triangles.push_back({a, b, d});
      w.ground->triangles.push_back({a, d, c});
    }
  (void)build_mesh(*w.ground);
  WorldBody<double> g;
  g.id = "ground";
  g.kind = BodyKind::mesh;
  g.mesh = w.ground;
  w.bodies.push_back(g);
  auto unit = [&] {
    V v(u(rng), u(rng), u(rng));
    while (v.squaredNorm() > 1 || v.squaredNorm() < 1e-3) v = V(u(rng), u(rng), u(rng));
    return V(v.normalized());
  };
  auto turn = [](double angle, const V& axis) { return Quat<double>(Eigen::AngleAxis<double>(angle, axis.normalized())); };
  auto piece = [&](int kind) -> Shape<double> {
    const double k = 0.25 + 0.2 * std::abs(u(rng));
    if (kind == 0) return Box<double>{V(k, 0.6 * k, 0.4 * k)};
    if (kind == 1) return Cylinder<double>{0.6 * k, 0.7 * k};
    std::vector<V> pts;
    for (int i = 0; i < 20; ++i) pts.push_back(V(unit().cwiseProduct(V(k, 0.8 * k, 0.6 * k))));
    return Hull<double>::build(pts).hull;
  };
  // Cells of a lattice 1.6 apart in x and y, centred over the ground, in layers 1.6 apart. A
  // convex piece reaches at most 0.8 from its origin, so convex pieces start apart; a compound
  // reaches about 1.0, so a few may start touching a neighbour (the step then reports them
  // initially overlapping).
  const int side = std::max(1, static_cast<int>((2 * half_size - 1.6) / 1.6));
  const double first = -0.8 * (side - 1);
  std::vector<int> cells(static_cast<std::size_t>(side * side * (pieces / (side * side) + 1)));
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<int>(i);
  std::shuffle(cells.begin(), cells.end(), rng);
  for (int i = 0; i < pieces; ++i) {
    WorldBody<double> b;
    char id[16];
    std::snprintf(id, sizeof id, "p%04d", i);
    b.id = id;
    if (i % 4 == 3) {
      b.kind = BodyKind::compound;
      const int parts = 2 + i % 3;
      for (int p = 0; p < parts; ++p) {
        Pose<double> at;
        at.position = V(0.35 * std::cos(2.1 * p), 0.35 * std::sin(2.1 * p), 0.1 * p);
        at.rotation = turn(p, unit());
        b.parts.push_back({piece(p % 3), at});
      }
    } else {
      b.kind = BodyKind::convex;
      b.shape = piece(i % 3);
    }
    const int cell_index = cells[static_cast<std::size_t>(i)];
    const int cx = cell_index % side, cy = (cell_index / side) % side, layer = cell_index / (side * side);
    BodyMotion<double> m;
    m.body = b.id;
    m.motion.pose.position = V(first + 1.6 * cx + 0.1 * u(rng), first + 1.6 * cy + 0.1 * u(rng),
                               1.4 + 1.6 * layer + 0.4 * std::abs(u(rng)));
    m.motion.pose.rotation = turn(3 * u(rng), unit());
    m.motion.linear_velocity = V(0.6 * u(rng), 0.6 * u(rng), -0.8 - 1.2 * std::abs(u(rng)));
    m.motion.angular_velocity = unit() * (6 * std::abs(u(rng)));
    b.pose = m.motion.pose;
    w.bodies.push_back(std::move(b));
    w.motions.push_back(std::move(m));
  }
  return w;
}

namespace {

/// The first time a translation-only sweep of body `b` (its parts at the step's start pose,
/// moving by its linear velocity, not turning) meets the ground, or 2 for none.
double linear_sweep_toi(const WorldBody<double>& b, const Motion<double>& m, const TriangleMesh<double>& ground) {
  double best = 2;
  auto sweep = [&](const Shape<double>& shape, const Pose<double>& pose) {
    const MeshCastHit<double> h = mesh_shape_cast(ground, shape, pose, m.linear_velocity);
    if (h.status == Status::hit || h.status == Status::initially_overlapping) best = std::min(best, h.toi);
  };
  if (b.kind == BodyKind::convex) sweep(b.shape, m.pose);
  for (const CompoundPart<double>& p : b.parts) sweep(p.shape, m.pose.compose(p.pose));
  return best;
}

}  // namespace

void run_world_demo(std::ostream& out) {
  const int pieces = 1000;
  const DemoWorld w = make_falling_pieces(pieces, 224, 20.0, 18);
  char line[1024];
  std::snprintf(line, sizeof line,
                "\nWorld: %d tumbling pieces (boxes, cylinders, hulls; every fourth a compound of 2 to 4) falling onto\n"
                "a bumpy ground of %zu triangles, spinning up to 6 rad in the step: one World::step.\n",
                pieces, w.ground->triangles.size());
  out << line;
  World<double> world;
  if (auto e = world.edit({}, w.bodies, "bodies"); !e.empty()) {
    out << "  world: " << e << "\n";
    return;
  }
  // Each thread count steps a copy of the world twice (the same step: a copy keeps the start
  // poses); the second, with the mesh's data in cache as in a running simulation, is timed.
  WorldStepResult<double> result[2];
  double ms[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    WorldStepOptions<double> opt;
    opt.threads = k + 1;
    for (int run = 0; run < 2; ++run) {
      World<double> copy = world;
      const auto t0 = std::chrono::steady_clock::now();
      result[k] = copy.step(w.motions, opt);
      ms[k] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
  }
  const WorldStepResult<double>& r = result[0];
  if (!r.ok()) {
    out << "  step: " << r.error << "\n";
    return;
  }
  int hits = 0, overlapping = 0, capped = 0;
  for (const auto& e : r.events) {
    hits += e.status == Status::hit;
    overlapping += e.status == Status::initially_overlapping;
    capped += e.status == Status::max_iterations;
  }
  bool same = result[1].events.size() == r.events.size();
  for (std::size_t i = 0; same && i < r.events.size(); ++i) {
    const auto &x = r.events[i], &y = result[1].events[i];
    same = x.a == y.a && x.b == y.b && x.status == y.status && x.toi == y.toi && x.point_a == y.point_a &&
           x.point_b == y.point_b && x.normal == y.normal && x.part_a == y.part_a && x.part_b == y.part_b &&
           x.triangle == y.triangle;
  }
  std::snprintf(line, sizeof line,
                "  broad phase kept %zu body pairs; the narrow phase culled them to %zu piece pairs and ran %zu\n"
                "  time_of_impact calls; %zu first contacts (%d hits, %d initially overlapping, %d at the iteration cap)\n"
                "  %.1f ms on 1 thread (broad %.1f, narrow %.1f), %.1f ms on 2; events identical on both: %s\n",
                r.stats.pairs_tested, r.stats.piece_pairs, r.stats.toi_calls, r.events.size(), hits, overlapping, capped,
                ms[0], 1e3 * r.stats.broad_seconds, 1e3 * r.stats.narrow_seconds, ms[1], same ? "yes" : "NO");
  out << line;
  // Every ground contact against the piece's translation-only sweep.
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 1; i < w.bodies.size(); ++i) index[w.bodies[i].id] = i;
  int ground = 0, missed = 0, late = 0;
  for (const auto& e : r.events) {
    if (e.status != Status::hit || (e.a != "ground" && e.b != "ground")) continue;
    ++ground;
    const std::size_t i = index[e.a == "ground" ? e.b : e.a];
    const double t = linear_sweep_toi(w.bodies[i], w.motions[i - 1].motion, *w.ground);
    missed += t > 1;
    late += t <= 1 && t > double(e.toi) + 0.02;
  }
  std::snprintf(line, sizeof line,
                "  Of its %d ground contacts, a translation-only sweep of the same pieces (what Bullet's, Jolt's and\n"
                "  PhysX's continuous collision runs) misses %d and finds %d more than 0.02 of the step late: a\n"
                "  turning corner reaches the ground first. (Bullet itself on the benchmark's 1,000-piece scene:\n"
                "  bench/impact_world_stats.)\n",
                ground, missed, late);
  out << line;
}

}  // namespace impact::cli
