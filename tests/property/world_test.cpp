// Worlds (include/impact/world.hpp): a step's events against a brute-force loop that calls
// time_of_impact on every piece pair of every pair of bodies (no broad phase, no culling, no
// pruning), on seeded random worlds of every body kind in both precisions; the answer does not
// depend on the order bodies were added; pairs at rest, of two meshes or filtered out by
// category/mask are never reported; closed forms for spheres, a compound and a box on a mesh.
//
// The brute force queries each piece the way world.hpp documents (a part of a body that does
// not turn at its composed pose, moving linearly; a part of a turning body as a TransformedShape
// under the body's motion; a triangle under the mesh's motion; the lower ID first, a mesh
// second), so with pruning off the two must agree bit for bit: any difference is a pair or a
// piece the culling lost.
#include "scenes.hpp"

#include <impact/query.hpp>
#include <impact/world.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace impact;

const Vec3<double> Z = Vec3<double>::Zero();

template <class S>
struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) {}
  double uni(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g); }
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(g); }
  Vec3<S> vec(double lo, double hi) { return Vec3<S>(S(uni(lo, hi)), S(uni(lo, hi)), S(uni(lo, hi))); }
  Quat<S> rot() {
    std::normal_distribution<double> n(0, 1);
    Quat<double> q(n(g), n(g), n(g), n(g));
    q.normalize();
    return q.cast<S>();
  }
  Shape<S> convex() {
    switch (pick(5)) {
      case 0: return Sphere<S>{S(uni(0.2, 0.6))};
      case 1: return Box<S>{vec(0.1, 0.6)};
      case 2: return Capsule<S>{S(uni(0.1, 0.3)), S(uni(0.1, 0.5))};
      case 3: return Cylinder<S>{S(uni(0.15, 0.4)), S(uni(0.1, 0.4))};
      default: {
        std::vector<Vec3<S>> pts;
        for (int i = 0; i < 8; ++i) pts.push_back(vec(-0.5, 0.5));
        return Hull<S>::build(pts).hull;
      }
    }
  }
};

/// A ground of 2·k² triangles on z = 0 over [−h, h]², with one degenerate triangle appended.
template <class S>
std::shared_ptr<const TriangleMesh<S>> grid(int k, double h) {
  auto m = std::make_shared<TriangleMesh<S>>();
  for (int j = 0; j <= k; ++j)
    for (int i = 0; i <= k; ++i) m->vertices.push_back(Vec3<S>(S(-h + 2 * h * i / k), S(-h + 2 * h * j / k), S(0)));
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < k; ++i) {
      const std::uint32_t a = j * (k + 1) + i, b = a + 1, c = a + k + 2, d = a + k + 1;
      m->triangles.push_back({a, b, c});
      m->triangles.push_back({a, c, d});
    }
  m->triangles.push_back({0, 1, 2});  // collinear: never hit
  EXPECT_EQ(build_mesh(*m), "");
  return m;
}

/// A random world: convex, compound and mesh bodies in a box of side `side`, with motions.
template <class S>
struct Scene {
  std::vector<WorldBody<S>> bodies;
  std::vector<BodyMotion<S>> motions;
};

template <class S>
Scene<S> random_scene(std::uint64_t seed, int n, double side) {
  Rng<S> r(seed);
  Scene<S> sc;
  const auto ground = grid<S>(6, side / 2 + 1);
  sc.bodies.push_back(WorldBody<S>::mesh_body("ground", ground, Pose<S>{Vec3<S>(S(0), S(0), S(-side / 2)), Quat<S>::Identity()}));
  auto plate = std::make_shared<TriangleMesh<S>>();
  plate->vertices = {Vec3<S>(-1, -1, 0), Vec3<S>(1, -1, 0), Vec3<S>(1, 1, 0), Vec3<S>(-1, 1, 0)};
  plate->triangles = {{0, 1, 2}, {0, 2, 3}};
  EXPECT_EQ(build_mesh(*plate), "");
  sc.bodies.push_back(WorldBody<S>::mesh_body("plate", plate, Pose<S>{r.vec(-side / 3, side / 3), r.rot()}));
  for (int i = 0; i < n; ++i) {
    // IDs whose byte order differs from their numeric order.
    const std::string id = "b" + std::to_string((i * 7919) % 1000);
    const Pose<S> pose{r.vec(-side / 2, side / 2), r.rot()};
    WorldBody<S> b;
    if (r.pick(3) == 0) {
      std::vector<CompoundPart<S>> parts;
      const int k = 2 + r.pick(3);
      for (int p = 0; p < k; ++p) parts.push_back({r.convex(), Pose<S>{r.vec(-0.6, 0.6), r.rot()}});
      b = WorldBody<S>::compound_body(id, std::move(parts), pose);
    } else {
      b = WorldBody<S>::convex_body(id, r.convex(), pose);
    }
    if (r.pick(8) == 0) b.category = 2;
    if (r.pick(8) == 0) b.mask = 0xfffffffd;
    sc.bodies.push_back(std::move(b));
  }
  for (const auto& b : sc.bodies) {
    if (b.id == "ground" || r.pick(4) == 0) continue;  // about a quarter at rest
    BodyMotion<S> m;
    m.body = b.id;
    m.motion.pose = b.pose;
    m.motion.linear_velocity = r.vec(-side, side);
    // Up to four turns in the step; a fifth of the movers do not turn.
    if (r.pick(5) != 0) m.motion.angular_velocity = r.vec(-1, 1).normalized() * S(r.uni(0, 25));
    if (b.id == "plate") m.motion.angular_velocity *= S(0.05);
    sc.motions.push_back(m);
  }
  return sc;
}

// ---------------------------------------------------------------------------------------------
// The brute force.

template <class S>
struct Piece {
  Shape<S> shape;
  Motion<S> motion;
  std::int64_t index;
};

template <class S>
std::vector<Piece<S>> pieces(const WorldBody<S>& b, const Motion<S>& m) {
  std::vector<Piece<S>> out;
  const bool turns = m.angular_velocity != Vec3<S>::Zero();
  if (b.kind == BodyKind::convex) out.push_back({b.shape, m, 0});
  if (b.kind == BodyKind::compound) {
    for (std::size_t i = 0; i < b.parts.size(); ++i) {
      const CompoundPart<S>& p = b.parts[i];
      if (turns) {
        out.push_back({TransformedShape<S>{std::make_shared<const Shape<S>>(p.shape), p.pose}, m, std::int64_t(i)});
      } else {
        Motion<S> pm = m;
        pm.pose.position = m.pose.rotation * p.pose.position + m.pose.position;
        pm.pose.rotation = (m.pose.rotation * p.pose.rotation).normalized();
        out.push_back({p.shape, pm, std::int64_t(i)});
      }
    }
  }
  if (b.kind == BodyKind::mesh) {
    for (std::size_t k = 0; k < b.mesh->triangles.size(); ++k) {
      if (b.mesh->degenerate()[k]) continue;
      const auto& t = b.mesh->triangles[k];
      out.push_back({Triangle<S>{b.mesh->vertices[t[0]], b.mesh->vertices[t[1]], b.mesh->vertices[t[2]]}, m,
                     std::int64_t(k)});
    }
  }
  return out;
}

template <class S>
std::vector<WorldEvent<S>> brute_force(const std::vector<WorldBody<S>>& bodies, const std::vector<BodyMotion<S>>& motions,
                                       const WorldStepOptions<S>& opt, std::size_t& calls) {
  std::map<std::string, Motion<S>> mo;
  for (const auto& m : motions) mo[m.body] = m.motion;
  std::vector<WorldEvent<S>> events;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    for (std::size_t j = i + 1; j < bodies.size(); ++j) {
      const WorldBody<S>* f = &bodies[i];
      const WorldBody<S>* s = &bodies[j];
      if (!mo.contains(f->id) && !mo.contains(s->id)) continue;
      if (f->kind == BodyKind::mesh && s->kind == BodyKind::mesh) continue;
      if (!(f->category & s->mask) || !(s->category & f->mask)) continue;
      if (s->id < f->id) std::swap(f, s);
      if (f->kind == BodyKind::mesh) std::swap(f, s);
      auto motion = [&](const WorldBody<S>& b) {
        auto it = mo.find(b.id);
        return it != mo.end() ? it->second : Motion<S>{b.pose, Vec3<S>::Zero(), Vec3<S>::Zero()};
      };
      ToiOptions<S> t;
      t.target_distance = opt.target_distance;
      t.tolerance = opt.tolerance;
      bool found = false;
      ToiHit<S> best;
      std::int64_t ba = -1, bb = -1;
      for (const auto& pa : pieces(*f, motion(*f))) {
        for (const auto& pb : pieces(*s, motion(*s))) {
          const ToiHit<S> h = time_of_impact(pa.shape, pa.motion, pb.shape, pb.motion, t);
          ++calls;
          EXPECT_NE(h.status, Status::invalid_input) << h.error;
          if (h.status == Status::miss || h.status == Status::invalid_input) continue;
          const bool io = h.status == Status::initially_overlapping, bio = best.status == Status::initially_overlapping;
          const bool better = !found || h.toi < best.toi ||
                              (h.toi == best.toi && (io != bio ? io : std::pair(pa.index, pb.index) < std::pair(ba, bb)));
          if (better) {
            found = true;
            best = h;
            ba = pa.index;
            bb = pb.index;
          }
        }
      }
      if (!found) continue;
      WorldEvent<S> e;
      const bool swap = s->id < f->id;
      e.a = swap ? s->id : f->id;
      e.b = swap ? f->id : s->id;
      e.status = best.status;
      e.toi = best.toi;
      e.point_a = swap ? best.point_b : best.point_a;
      e.point_b = swap ? best.point_a : best.point_b;
      e.normal = swap ? Vec3<S>(-best.normal) : best.normal;
      const int pf = f->kind == BodyKind::compound ? int(ba) : -1, ps = s->kind == BodyKind::compound ? int(bb) : -1;
      e.part_a = swap ? ps : pf;
      e.part_b = swap ? pf : ps;
      if (s->kind == BodyKind::mesh) e.triangle = bb;
      events.push_back(e);
    }
  }
  std::sort(events.begin(), events.end(), [](const auto& x, const auto& y) {
    return x.toi != y.toi ? x.toi < y.toi : x.a != y.a ? x.a < y.a : x.b < y.b;
  });
  return events;
}

template <class S>
std::string show(const WorldEvent<S>& e) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s-%s %s toi %.17g part %d/%d tri %lld", e.a.c_str(), e.b.c_str(),
                std::string(to_string(e.status)).c_str(), double(e.toi), e.part_a, e.part_b,
                static_cast<long long>(e.triangle));
  return buf;
}

template <class S>
void expect_same(const std::vector<WorldEvent<S>>& got, const std::vector<WorldEvent<S>>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t k = 0; k < got.size(); ++k) {
    const auto& g = got[k];
    const auto& w = want[k];
    EXPECT_TRUE(g.a == w.a && g.b == w.b && g.status == w.status && g.toi == w.toi && g.part_a == w.part_a &&
                g.part_b == w.part_b && g.triangle == w.triangle && g.point_a == w.point_a && g.point_b == w.point_b &&
                g.normal == w.normal)
        << what << " event " << k << ": world " << show(g) << ", brute force " << show(w);
  }
}

/// The distance, at the event's time, of the two pieces the event names (parts of compounds,
/// the triangle of a mesh), each under its body's motion: what makes the event a contact (0 when
/// GJK finds them intersecting: at a contact with target 0 it may, within its own tolerance).
template <class S>
double event_distance(const Scene<S>& sc, const WorldEvent<S>& e) {
  auto piece = [&](const std::string& id, int part) {
    const WorldBody<S>* b = nullptr;
    for (const auto& x : sc.bodies) b = x.id == id ? &x : b;
    Motion<S> m{b->pose, Vec3<S>::Zero(), Vec3<S>::Zero()};
    for (const auto& x : sc.motions) m = x.body == id ? x.motion : m;
    const std::int64_t want = b->kind == BodyKind::mesh ? e.triangle : b->kind == BodyKind::compound ? part : 0;
    for (auto& p : pieces(*b, m))
      if (p.index == want) return p;
    ADD_FAILURE() << "no piece " << want << " of " << id;
    return pieces(*b, m).front();
  };
  const Piece<S> a = piece(e.a, e.part_a), b = piece(e.b, e.part_b);
  const DistanceResult<S> d = distance<S>(a.shape, a.motion.at(e.toi), b.shape, b.motion.at(e.toi));
  return d.status == Status::intersecting ? 0.0 : double(d.distance);
}

template <class S>
void random_worlds(int worlds, int bodies, double side, S tolerance) {
  std::size_t pairs = 0, moving_pairs = 0, contacts = 0, calls = 0, tested = 0, world_calls = 0;
  for (int w = 0; w < worlds; ++w) {
    Scene<S> sc = random_scene<S>(1000 + w, bodies, side);
    World<S> world;
    ASSERT_EQ(world.edit({}, sc.bodies), "");
    WorldStepOptions<S> opt;
    opt.tolerance = tolerance;
    opt.target_distance = w % 3 == 2 ? S(0.05) : S(0);
    const std::string what = std::string(sizeof(S) == 4 ? "float" : "double") + " world " + std::to_string(w);
    const auto want = brute_force(sc.bodies, sc.motions, opt, calls);
    // Without pruning: bit for bit.
    World<S> copy = world;
    opt.prune_by_best = false;
    const WorldStepResult<S> all = copy.step(sc.motions, opt);
    ASSERT_TRUE(all.ok()) << all.error;
    expect_same(all.events, want, what + " (no pruning)");
    World<S> sap = world;
    opt.broad_phase = BroadPhase::sweep_and_prune;
    const WorldStepResult<S> swept = sap.step(sc.motions, opt);
    opt.broad_phase = BroadPhase::box_tree;
    ASSERT_TRUE(swept.ok());
    expect_same(swept.events, want, what + " (sweep and prune, no pruning)");
    EXPECT_EQ(swept.stats.pairs_tested, all.stats.pairs_tested);
    // report: bodies keeps each body's earliest event of the brute force (ties: lower other ID).
    {
      std::map<std::string, const WorldEvent<S>*> first;
      auto offer = [&](const std::string& body, const std::string& other, const WorldEvent<S>& e) {
        const WorldEvent<S>*& f = first[body];
        const std::string& fo = f == nullptr ? other : (f->a == body ? f->b : f->a);
        if (f == nullptr || e.toi < f->toi || (e.toi == f->toi && other < fo)) f = &e;
      };
      for (const auto& e : want) {
        offer(e.a, e.b, e);
        offer(e.b, e.a, e);
      }
      std::vector<WorldEvent<S>> kept;
      for (const auto& e : want) {
        const bool mine = first[e.a] == &e || first[e.b] == &e;
        if (mine) kept.push_back(e);
      }
      World<S> copy2 = world;
      WorldStepOptions<S> bo = opt;
      bo.report = WorldReport::bodies;
      const WorldStepResult<S> rb = copy2.step(sc.motions, bo);
      ASSERT_TRUE(rb.ok());
      expect_same(rb.events, kept, what + " (report bodies, no pruning)");
    }
    // With pruning: the same pairs and statuses. A toi comes from fewer piece pairs, each searched
    // only up to the best time so far (max_toi: a shorter search, whose time may differ within the
    // tolerance). It is a contact: the distance of its two pieces there is within the tolerance of
    // the target (certificate); and it is not late: where it is later than the brute force's
    // time, the brute force's pieces do not touch yet at it (certificate).
    opt.prune_by_best = true;
    const WorldStepResult<S> r = world.step(sc.motions, opt);
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(r.events.size(), want.size()) << what;
    std::map<std::pair<std::string, std::string>, const WorldEvent<S>*> by;
    for (const auto& e : want) by[{e.a, e.b}] = &e;
    for (const auto& e : r.events) {
      auto it = by.find({e.a, e.b});
      ASSERT_NE(it, by.end()) << what << ": " << show(e) << " not in the brute force";
      EXPECT_EQ(e.status == Status::initially_overlapping, it->second->status == Status::initially_overlapping) << what << show(e);
      if (double(e.toi) > double(it->second->toi) + 1e-3 && e.status == Status::hit) {
        // Later than the brute force's time by more than a slow approach's window usually spans:
        // then the brute force's own two pieces must not yet touch at this time (else the event
        // is late), which their distance there certifies.
        WorldEvent<S> earlier = *it->second;
        earlier.toi = e.toi;
        const double d = event_distance(sc, earlier), slack = sizeof(S) == 4 ? 1e-4 : 1e-8;
        EXPECT_GE(d, double(opt.target_distance) - slack)
            << what << show(e) << " vs " << show(*it->second) << ": late (the brute force's pieces at "
            << double(e.toi) << " are " << d << " apart)";
      }
      if (e.status == Status::hit) {
        // Within the tolerance of the target: not early beyond it, and not late (apart by at least
        // the target, up to rounding: a real test where the target is positive, a third of the
        // worlds; at target 0 GJK may call a contact within its tolerance intersecting).
        const double d = event_distance(sc, e), slack = sizeof(S) == 4 ? 1e-4 : 1e-8;
        EXPECT_LE(d, double(opt.target_distance) + 2 * double(opt.tolerance) + slack)
            << what << show(e) << ": not a contact (distance " << d << ")";
        EXPECT_GE(d, double(opt.target_distance) - slack) << what << show(e) << ": late (distance " << d << ")";
      }
    }
    // After the step every moved body is at its pose at t = 1.
    for (const auto& m : sc.motions) {
      const Pose<S> end = m.motion.at(S(1));
      EXPECT_EQ(world.pose(m.body)->position, end.position);
    }
    const std::size_t n = sc.bodies.size();
    pairs += n * (n - 1) / 2;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        auto moves = [&](const std::string& id) {
          return std::any_of(sc.motions.begin(), sc.motions.end(), [&](const auto& m) { return m.body == id; });
        };
        moving_pairs += moves(sc.bodies[i].id) || moves(sc.bodies[j].id);
      }
    contacts += want.size();
    tested += r.stats.pairs_tested;
    world_calls += r.stats.toi_calls;
  }
  std::printf("[ world    ] %s: %d worlds, %zu body pairs, %zu with a mover, %zu contacts; broad phase kept %zu; "
              "time_of_impact calls: brute force %zu, world %zu\n",
              sizeof(S) == 4 ? "float" : "double", worlds, pairs, moving_pairs, contacts, tested, calls, world_calls);
  // The battery means something only if both outcomes are common.
  EXPECT_GT(contacts, moving_pairs / 5);
  EXPECT_LT(contacts, moving_pairs * 4 / 5);
}

// 30 and 20 worlds in release; a quarter of them under the sanitizers (.ci/run's hour).
TEST(World, RandomWorldsEqualBruteForceDouble) { random_worlds<double>(scenes::battery(30), 22, 1.9, 1e-6); }
TEST(World, RandomWorldsEqualBruteForceFloat) { random_worlds<float>(scenes::battery(20), 22, 1.9, 1e-3f); }

// ---------------------------------------------------------------------------------------------

template <class S>
void insertion_order() {
  for (int w = 0; w < 4; ++w) {
    Scene<S> sc = random_scene<S>(77 + w, 20, 5.0);
    World<S> a, b;
    ASSERT_EQ(a.edit({}, sc.bodies), "");
    std::vector<WorldBody<S>> shuffled = sc.bodies;
    std::mt19937 g(w);
    std::shuffle(shuffled.begin(), shuffled.end(), g);
    // Added in two batches, one of them removed and re-added.
    std::vector<WorldBody<S>> first(shuffled.begin(), shuffled.begin() + 7), rest(shuffled.begin() + 7, shuffled.end());
    ASSERT_EQ(b.edit({}, rest), "");
    ASSERT_EQ(b.edit({}, first), "");
    const std::string victim = first[2].id;
    ASSERT_EQ(b.edit(std::vector<std::string>{victim}, {}), "");
    ASSERT_EQ(b.edit({}, std::vector<WorldBody<S>>{first[2]}), "");
    std::vector<BodyMotion<S>> motions = sc.motions;
    std::reverse(motions.begin(), motions.end());
    for (int step = 0; step < 2; ++step) {
      for (auto& m : motions) m.use_stored_pose = step > 0;
      for (auto& m : sc.motions) m.use_stored_pose = step > 0;
      for (auto report : {WorldReport::pairs, WorldReport::bodies}) {
        WorldStepOptions<S> opt;
        opt.report = report;
        World<S> a2 = a, b2 = b;
        const auto ra = a2.step(sc.motions, opt), rb = b2.step(motions, opt);
        ASSERT_TRUE(ra.ok() && rb.ok());
        expect_same(rb.events, ra.events, "insertion order");
      }
      (void)a.step(sc.motions, {});
      (void)b.step(motions, {});
    }
  }
}

TEST(World, EventsDoNotDependOnInsertionOrder) {
  insertion_order<double>();
  insertion_order<float>();
}

template <class S>
void thread_counts() {
  for (int w = 0; w < 3; ++w) {
    // The third world has 1,000 bodies, packed: the broad phase runs on the threads from 512
    // bodies on, and the pairs and the events are sorted on them from 1,024 on (sort_on).
    Scene<S> sc = w < 2 ? random_scene<S>(500 + w, 40, 6.0) : random_scene<S>(500 + w, 1000, 20.0);
    World<S> world;
    ASSERT_EQ(world.edit({}, sc.bodies), "");
    WorldStepOptions<S> opt;
    opt.threads = 1;
    World<S> one = world;
    const auto r1 = one.step(sc.motions, opt);
    ASSERT_TRUE(r1.ok());
    EXPECT_GT(r1.events.size(), 10u);
    if (w == 2) {
      EXPECT_GE(r1.stats.pairs_tested, 1024u);
      EXPECT_GE(r1.events.size(), 1024u);
    }
    for (int threads : {2, 0}) {
      opt.threads = threads;
      World<S> many = world;
      const auto rn = many.step(sc.motions, opt);
      ASSERT_TRUE(rn.ok());
      expect_same(rn.events, r1.events, "threads " + std::to_string(threads));
      EXPECT_EQ(rn.stats.toi_calls, r1.stats.toi_calls);
    }
  }
}

TEST(World, EventsAreTheSameForAnyThreadCount) {
  thread_counts<double>();
  thread_counts<float>();
}

TEST(World, RestingMeshMeshAndFilteredPairsAreNeverReported) {
  World<double> w;
  auto quad = std::make_shared<TriangleMesh<double>>();
  quad->vertices = {{-2, -2, 0}, {2, -2, 0}, {2, 2, 0}, {-2, 2, 0}};
  quad->triangles = {{0, 1, 2}, {0, 2, 3}};
  ASSERT_EQ(build_mesh(*quad), "");
  std::vector<WorldBody<double>> bodies = {
      WorldBody<double>::convex_body("rest1", Sphere<double>{1}, Pose<double>{{0, 0, 10}, Quat<double>::Identity()}),
      WorldBody<double>::convex_body("rest2", Sphere<double>{1}, Pose<double>{{0.5, 0, 10}, Quat<double>::Identity()}),
      WorldBody<double>::mesh_body("m1", quad),
      WorldBody<double>::mesh_body("m2", quad, Pose<double>{{0, 0, 0.5}, Quat<double>::Identity()}),
      WorldBody<double>::convex_body("f1", Sphere<double>{1}, Pose<double>{{10, 0, 0}, Quat<double>::Identity()}),
      WorldBody<double>::convex_body("f2", Sphere<double>{1}, Pose<double>{{12, 0, 0}, Quat<double>::Identity()}),
  };
  bodies[4].category = 2;
  bodies[5].mask = 1;  // f2 does not see category 2
  ASSERT_EQ(w.edit({}, bodies), "");
  std::vector<BodyMotion<double>> motions(3);
  motions[0].body = "m2";
  motions[0].use_stored_pose = true;
  motions[0].motion.linear_velocity = {0, 0, -1};
  motions[1].body = "f1";
  motions[1].use_stored_pose = true;
  motions[1].motion.linear_velocity = {3, 0, 0};
  motions[2].body = "rest1";  // a motion with zero velocities: at rest
  motions[2].motion.pose = *w.pose("rest1");
  const auto r = w.step(motions);
  ASSERT_TRUE(r.ok()) << r.error;
  for (const auto& e : r.events) ADD_FAILURE() << "unexpected event " << show(e);
  // Without the filter, f1 hits f2 at toi 0.
  World<double> w2;
  bodies[5].mask = 0xffffffffu;
  ASSERT_EQ(w2.edit({}, bodies), "");
  const auto r2 = w2.step(motions);
  ASSERT_EQ(r2.events.size(), 1u);
  EXPECT_EQ(r2.events[0].a, "f1");
  EXPECT_NEAR(r2.events[0].toi, 0.0, 1e-6);
}

TEST(World, ClosedFormsSpheresCompoundAndBoxOnAMesh) {
  World<double> w;
  auto ground = grid<double>(4, 10);
  std::vector<CompoundPart<double>> parts = {{Sphere<double>{0.5}, Pose<double>{{-2, 0, 0}, Quat<double>::Identity()}},
                                             {Box<double>{{0.5, 0.5, 0.5}}, Pose<double>{{2, 0, 0}, Quat<double>::Identity()}}};
  std::vector<WorldBody<double>> bodies = {
      WorldBody<double>::mesh_body("ground", ground),
      WorldBody<double>::convex_body("box", Box<double>{{0.5, 0.5, 0.5}}, Pose<double>{{0, 5, 3}, Quat<double>::Identity()}),
      WorldBody<double>::convex_body("s1", Sphere<double>{1}, Pose<double>{{-4, -5, 5}, Quat<double>::Identity()}),
      WorldBody<double>::convex_body("s2", Sphere<double>{1}, Pose<double>{{4, -5, 5}, Quat<double>::Identity()}),
      WorldBody<double>::compound_body("c", parts, Pose<double>{{0, 0, 8}, Quat<double>::Identity()}),
      WorldBody<double>::convex_body("p", Point<double>{}, Pose<double>{{2, 0, 6}, Quat<double>::Identity()}),
  };
  ASSERT_EQ(w.edit({}, bodies), "");
  std::vector<BodyMotion<double>> m(4);
  m[0] = {"box", {{}, {0, 0, -5}, Z}, true};  // bottom at 2.5, falls 5: touches the ground at 0.5
  m[1] = {"s1", {{}, {4, 0, 0}, Z}, true};    // a gap of 6 closing at 8: 0.75
  m[2] = {"s2", {{}, {-4, 0, 0}, Z}, true};
  m[3] = {"c", {{}, {0, 0, -4}, Z}, true};    // the box part (bottom 7.5) reaches the point at z 6: 1.5/4
  const auto r = w.step(m);
  ASSERT_TRUE(r.ok()) << r.error;
  std::map<std::string, WorldEvent<double>> by;
  for (const auto& e : r.events) by[e.a + "-" + e.b] = e;
  ASSERT_TRUE(by.contains("box-ground"));
  EXPECT_NEAR(by["box-ground"].toi, 0.5, 1e-6);
  EXPECT_GE(by["box-ground"].triangle, 0);
  EXPECT_NEAR(by["box-ground"].normal.z(), -1.0, 1e-6);  // from the box toward the ground
  ASSERT_TRUE(by.contains("s1-s2"));
  EXPECT_NEAR(by["s1-s2"].toi, 0.75, 1e-6);
  EXPECT_NEAR(by["s1-s2"].normal.x(), 1.0, 1e-6);
  ASSERT_TRUE(by.contains("c-p"));
  EXPECT_NEAR(by["c-p"].toi, 1.5 / 4, 1e-6);
  EXPECT_EQ(by["c-p"].part_a, 1);
  EXPECT_EQ(by["c-p"].part_b, -1);
  EXPECT_EQ(by.size(), 3u);
  // The compound's sphere part reaches the ground only at t = 7.5 / 4 > 1: no event; in the next
  // step from the stored poses it does (sphere bottom at 3.5, box bottom at 3.5: both at 3.5/4).
  const auto r2 = w.step(std::vector<BodyMotion<double>>{{"c", {{}, {0, 0, -4}, Z}, true}});
  ASSERT_TRUE(r2.ok());
  bool found = false;
  for (const auto& e : r2.events)
    if (e.a == "c" && e.b == "ground") {
      found = true;
      EXPECT_NEAR(e.toi, 3.5 / 4, 1e-6);
    }
  EXPECT_TRUE(found);
}

TEST(World, InvalidEditsAndStepsChangeNothing) {
  World<double> w;
  std::vector<WorldBody<double>> bodies = {WorldBody<double>::convex_body("a", Sphere<double>{1}),
                                           WorldBody<double>::convex_body("b", Sphere<double>{1}, Pose<double>{{5, 0, 0}, Quat<double>::Identity()})};
  ASSERT_EQ(w.edit({}, bodies), "");
  EXPECT_EQ(w.edit(std::vector<std::string>{"zz"}, {}), "remove.0: no body 'zz'");
  EXPECT_EQ(w.edit(std::vector<std::string>{"a"}, std::vector<WorldBody<double>>{bodies[1]}), "add.0.body: ID 'b' exists");
  EXPECT_EQ(w.edit({}, std::vector<WorldBody<double>>{WorldBody<double>::convex_body("", Sphere<double>{1})}),
            "add.0.body: empty ID");
  EXPECT_EQ(w.edit({}, std::vector<WorldBody<double>>{WorldBody<double>::convex_body("c", Sphere<double>{-1})}),
            "add.0.shape.radius: negative");
  EXPECT_EQ(w.size(), 2u);
  std::vector<BodyMotion<double>> m = {{"a", {{}, {1, 0, 0}, Z}, true}, {"b", {{}, {std::nan(""), 0, 0}, Z}, true}};
  const auto r = w.step(m);
  EXPECT_EQ(r.status, Status::invalid_input);
  EXPECT_EQ(r.error, "motions.b.linear_velocity.0: not finite");
  EXPECT_EQ(w.pose("a")->position, Vec3<double>::Zero());
  m = {{"nobody", {{}, {1, 0, 0}, Z}, true}};
  EXPECT_EQ(w.step(m).error, "motions.nobody: unknown body");
  WorldStepOptions<double> bad;
  bad.tolerance = 0;
  EXPECT_EQ(w.step({}, bad).status, Status::invalid_input);
  EXPECT_EQ(w.pose("a")->position, Vec3<double>::Zero());
}

}  // namespace
