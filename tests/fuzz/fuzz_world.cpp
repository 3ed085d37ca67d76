// impact — fuzz target: worlds (World::edit, World::step) of up to six bodies, convex, compound or
// mesh, with any motions and options, in double and float.
// Invariants: validity as decided here (an edit or step with any bad field is refused naming a
// field, and changes nothing; a valid one is accepted); every event finite, toi in [0, 1], a
// known status, the IDs of two bodies in byte order, sorted by (toi, a, b), a unit normal on hits;
// moved bodies end at a finite pose with a unit rotation. Independent: for every pair of two
// convex bodies, the event equals `time_of_impact` on the pair alone (the world's contract), and
// there is an event exactly when that call finds a contact (or, at its iteration cap, none when
// the world's bounds prove the pair apart).
#include "fuzz_mesh.hpp"

#include <impact/world.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

namespace {

using namespace impact;
using namespace impact::fuzz;

struct FuzzBody {
  std::string id;
  BodyKind kind = BodyKind::convex;
  FuzzShape shape;                                     // convex
  std::vector<std::pair<FuzzShape, FuzzPose>> parts;  // compound
  FuzzMesh mesh;                                       // mesh
  FuzzPose pose;
  std::uint32_t category = 1, mask = 0xffffffffu;
};

struct FuzzBodyMotion {
  std::string body;
  FuzzPose pose;
  bool stored = false;
  Vec3<double> linear = Vec3<double>::Zero(), angular = Vec3<double>::Zero();
};

FuzzBody draw_body(FuzzedDataProvider& p, int i) {
  FuzzBody b;
  // Mostly distinct IDs; now and then a repeat or an empty one (refused).
  const int name = p.ConsumeIntegralInRange<int>(0, 15);
  b.id = name == 15 ? std::string() : name == 14 ? std::string("b0") : "b" + std::to_string(i);
  const int kind = p.ConsumeIntegralInRange<int>(0, 9);
  if (kind <= 5) {
    b.kind = BodyKind::convex;
    b.shape = draw_shape(p, 1);
  } else if (kind <= 8) {
    b.kind = BodyKind::compound;
    const int n = p.ConsumeIntegralInRange<int>(0, 3);  // 0 parts: refused
    for (int k = 0; k < n; ++k) {
      FuzzShape s = draw_shape(p, 0);
      FuzzPose q = draw_pose(p);
      b.parts.emplace_back(std::move(s), q);
    }
  } else {
    b.kind = BodyKind::mesh;
    b.mesh = draw_mesh(p, 8, 8);
  }
  b.pose = draw_pose(p);
  if (p.ConsumeProbability<double>() < 0.2) {
    b.category = p.ConsumeIntegralInRange<std::uint32_t>(0, 3);
    b.mask = p.ConsumeIntegralInRange<std::uint32_t>(0, 3);
  }
  return b;
}

FuzzBodyMotion draw_body_motion(FuzzedDataProvider& p, int bodies) {
  FuzzBodyMotion m;
  const int k = p.ConsumeIntegralInRange<int>(0, bodies);  // == bodies: an unknown body
  m.body = k == bodies ? std::string("nobody") : "b" + std::to_string(k);
  m.stored = p.ConsumeBool();
  if (!m.stored) m.pose = draw_pose(p);
  if (p.ConsumeBool()) m.linear = draw_vec(p);
  if (p.ConsumeBool()) m.angular = draw_vec(p);
  return m;
}

template <class S>
Pose<S> in_scalar(const FuzzPose& q) {
  return q.pose.cast<S>();
}

template <class S>
bool unit_rotation(const Pose<S>& q) {
  return std::abs(static_cast<double>(q.rotation.norm()) - 1.0) <= 1e-5;
}

template <class S>
void run(const std::vector<FuzzBody>& fb, const std::vector<FuzzBodyMotion>& fm, const WorldStepOptions<S>& opt,
         double target, double tolerance) {
  // The edit: every body valid and every ID non-empty and new → accepted; otherwise refused.
  std::vector<WorldBody<S>> bodies;
  Expect e_edit = Expect::valid;
  std::map<std::string, bool> ids;
  for (const FuzzBody& b : fb) {
    WorldBody<S> w;
    w.id = b.id;
    w.kind = b.kind;
    w.pose = in_scalar<S>(b.pose);
    w.category = b.category;
    w.mask = b.mask;
    if (b.kind == BodyKind::convex) {
      w.shape = impact::fuzz::in_scalar<S>(b.shape.shape);
      e_edit = e_edit & verdict<S>(b.shape);
    } else if (b.kind == BodyKind::compound) {
      if (b.parts.empty()) e_edit = Expect::invalid;
      for (const auto& [s, q] : b.parts) {
        w.parts.push_back({impact::fuzz::in_scalar<S>(s.shape), in_scalar<S>(q)});
        e_edit = e_edit & verdict<S>(s) & verdict<S>(q);
      }
    } else {
      TriangleMesh<S> m;
      for (const auto& v : b.mesh.mesh.vertices) m.vertices.push_back(v.cast<S>());
      m.triangles = b.mesh.mesh.triangles;
      if (!build_mesh(m).empty()) continue;  // build_mesh's refusals are fuzz_mesh's business
      w.mesh = std::make_shared<const TriangleMesh<S>>(std::move(m));
    }
    e_edit = e_edit & verdict<S>(b.pose);
    if (b.id.empty() || !ids.emplace(b.id, true).second) e_edit = Expect::invalid;
    bodies.push_back(std::move(w));
  }
  World<S> world;
  const std::string err = world.edit({}, bodies);
  note("edit_ok", err.empty() ? 1 : 0);
  if (e_edit == Expect::valid) IMPACT_REQUIRE(err.empty());
  if (e_edit == Expect::invalid) IMPACT_REQUIRE(!err.empty());
  if (!err.empty()) {
    IMPACT_REQUIRE(world.size() == 0);  // nothing changed
    return;
  }
  IMPACT_REQUIRE(world.size() == bodies.size());

  // The step.
  std::vector<BodyMotion<S>> motions;
  Expect e_step = in_range<S>(target, true) & in_range<S>(tolerance, true);
  if (!(opt.tolerance > S(0))) e_step = Expect::invalid;
  std::map<std::string, bool> given;
  for (const FuzzBodyMotion& m : fm) {
    BodyMotion<S> bm;
    bm.body = m.body;
    bm.use_stored_pose = m.stored;
    bm.motion.pose = in_scalar<S>(m.pose);
    bm.motion.linear_velocity = m.linear.cast<S>();
    bm.motion.angular_velocity = m.angular.cast<S>();
    if (world.pose(m.body) == nullptr || !given.emplace(m.body, true).second) e_step = Expect::invalid;
    if (!m.stored) e_step = e_step & verdict<S>(m.pose);
    e_step = e_step & in_range<S>(m.linear) & in_range<S>(m.angular);
    motions.push_back(bm);
  }
  std::map<std::string, Pose<S>> before;
  for (const std::string& id : world.ids()) before[id] = *world.pose(id);
  const WorldStepResult<S> r = world.step(motions, opt);
  check_validity(r, e_step);
  if (r.status == Status::invalid_input) {
    for (const auto& [id, q] : before) {  // nothing changed
      IMPACT_REQUIRE(world.pose(id)->position == q.position);
      IMPACT_REQUIRE(world.pose(id)->rotation.coeffs() == q.rotation.coeffs());
    }
    return;
  }
  IMPACT_REQUIRE(r.status == Status::hit);
  for (std::size_t k = 0; k < r.events.size(); ++k) {
    const WorldEvent<S>& e = r.events[k];
    IMPACT_REQUIRE(e.a < e.b && world.pose(e.a) != nullptr && world.pose(e.b) != nullptr);
    IMPACT_REQUIRE(e.status == Status::hit || e.status == Status::initially_overlapping ||
                   e.status == Status::max_iterations);
    IMPACT_REQUIRE(std::isfinite(e.toi) && e.toi >= S(0) && e.toi <= S(1));
    IMPACT_REQUIRE(finite(e.point_a) && finite(e.point_b) && finite(e.normal));
    if (e.status == Status::hit) IMPACT_REQUIRE(unit_or_zero(e.normal) && e.normal.norm() > S(0.5));
    if (k > 0) {
      const WorldEvent<S>& d = r.events[k - 1];
      IMPACT_REQUIRE(d.toi < e.toi || (d.toi == e.toi && (d.a < e.a || (d.a == e.a && d.b < e.b))));
    }
  }
  for (const std::string& id : world.ids()) {
    IMPACT_REQUIRE(finite(world.pose(id)->position) && world.pose(id)->rotation.coeffs().allFinite());
    IMPACT_REQUIRE(unit_rotation(*world.pose(id)));
  }
  if (opt.report != WorldReport::pairs) return;

  // Every pair of convex bodies against time_of_impact alone.
  std::map<std::string, const BodyMotion<S>*> moving;
  for (const BodyMotion<S>& m : motions) moving[m.body] = &m;
  auto motion_of = [&](const WorldBody<S>& b) {
    Motion<S> m{before.at(b.id), Vec3<S>::Zero(), Vec3<S>::Zero()};
    if (auto it = moving.find(b.id); it != moving.end()) {
      if (!it->second->use_stored_pose) m.pose = it->second->motion.pose;
      m.linear_velocity = it->second->motion.linear_velocity;
      m.angular_velocity = it->second->motion.angular_velocity;
    }
    return m;
  };
  ToiOptions<S> t;
  t.method = opt.method;
  t.target_distance = opt.target_distance;
  t.tolerance = opt.tolerance;
  t.max_iterations = opt.max_iterations;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    for (std::size_t j = 0; j < bodies.size(); ++j) {
      const WorldBody<S>& a = bodies[i];
      const WorldBody<S>& b = bodies[j];
      if (!(a.id < b.id) || a.kind != BodyKind::convex || b.kind != BodyKind::convex) continue;
      if (!(a.category & b.mask) || !(b.category & a.mask)) continue;
      const Motion<S> ma = motion_of(a), mb = motion_of(b);
      const bool rest = ma.linear_velocity.isZero(0) && ma.angular_velocity.isZero(0) &&
                        mb.linear_velocity.isZero(0) && mb.angular_velocity.isZero(0);
      const WorldEvent<S>* ev = nullptr;
      for (const WorldEvent<S>& e : r.events)
        if (e.a == a.id && e.b == b.id) ev = &e;
      if (rest) {
        IMPACT_REQUIRE(ev == nullptr);
        continue;
      }
      // The world raises a pair's tolerance to what the pair can honour (as `impact query`
      // does): 1e-2 of the default relative to its size, 64 ulps of its coordinates. Compared
      // only when the requested one is above that floor for certain (bounding radii taken 1%
      // larger), where both calls must be the same call.
      const double ra = 1.01 * double(bounding_radius(a.shape)), rb = 1.01 * double(bounding_radius(b.shape));
      const auto end = [](const Motion<S>& m) { return (m.pose.position + m.linear_velocity).template cast<double>(); };
      const double reach = std::max({ma.pose.position.template cast<double>().norm(), end(ma).norm(),
                                     mb.pose.position.template cast<double>().norm(), end(mb).norm()}) +
                           std::max(ra, rb);
      const double size = std::max({ra, rb, ma.linear_velocity.template cast<double>().norm(),
                                    mb.linear_velocity.template cast<double>().norm(), double(opt.target_distance)});
      const double floor = std::max(double(Tolerances<S>::cast_tolerance) * 1e-2 * size,
                                    64.0 * double(std::numeric_limits<S>::epsilon()) * reach);
      if (!(double(opt.tolerance) > 1.01 * floor)) continue;
      const ToiHit<S> h = time_of_impact<S>(a.shape, ma, b.shape, mb, t);
      note("pair_status", static_cast<int>(h.status));
      IMPACT_REQUIRE(h.status != Status::invalid_input);
      // A pair the world's bounds prove apart is never run: no event even where the call alone
      // stops at its iteration cap (then undecided, never a contact).
      // What the checks below require: no event for a miss, one for a contact (either for the
      // cap), and an event the same as the call's.
      const bool present_ok = h.status == Status::miss ? ev == nullptr : h.status == Status::max_iterations || ev != nullptr;
      const bool agree = present_ok && (ev == nullptr || (ev->status == h.status && ev->toi == h.toi));
      if (tracing() && !agree) {
        auto show = [](const Motion<S>& m) {
          std::fprintf(stderr, "  pose %.17g %.17g %.17g q %.17g %.17g %.17g %.17g v %.17g %.17g %.17g w %.17g %.17g %.17g\n",
                       double(m.pose.position.x()), double(m.pose.position.y()), double(m.pose.position.z()),
                       double(m.pose.rotation.w()), double(m.pose.rotation.x()), double(m.pose.rotation.y()),
                       double(m.pose.rotation.z()), double(m.linear_velocity.x()), double(m.linear_velocity.y()),
                       double(m.linear_velocity.z()), double(m.angular_velocity.x()), double(m.angular_velocity.y()),
                       double(m.angular_velocity.z()));
        };
        std::fprintf(stderr, "pair %s %s: alone status %d toi %.17g; world %s\n", a.id.c_str(), b.id.c_str(),
                     int(h.status), double(h.toi), ev ? "an event" : "no event");
        show(ma), show(mb);
      }
      if (h.status == Status::miss) IMPACT_REQUIRE(ev == nullptr);
      else if (h.status != Status::max_iterations) IMPACT_REQUIRE(ev != nullptr);
      if (ev) {
        note("event_status", static_cast<int>(ev->status)), note("event_toi", static_cast<double>(ev->toi));
        note("pair_toi", static_cast<double>(h.toi));
        IMPACT_REQUIRE(ev->status == h.status && ev->toi == h.toi);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  const int n = p.ConsumeIntegralInRange<int>(0, 6);
  std::vector<FuzzBody> bodies;
  for (int i = 0; i < n; ++i) bodies.push_back(draw_body(p, i));
  const int nm = p.ConsumeIntegralInRange<int>(0, n + 1);
  std::vector<FuzzBodyMotion> motions;
  for (int i = 0; i < nm; ++i) motions.push_back(draw_body_motion(p, n));
  const double target = p.ConsumeBool() ? 0.0 : draw(p, true);
  const double tolerance = p.ConsumeBool() ? 1e-6 : draw(p, true);
  const WorldReport report = p.ConsumeBool() ? WorldReport::pairs : WorldReport::bodies;
  const ToiMethod method = p.ConsumeBool() ? ToiMethod::extrusion_brent : ToiMethod::conservative_advancement;
  const BroadPhase broad = p.ConsumeBool() ? BroadPhase::box_tree : BroadPhase::sweep_and_prune;
  const int max_iterations = p.ConsumeBool() ? 4096 : p.ConsumeIntegralInRange<int>(1, 64);
  const int threads = p.ConsumeIntegralInRange<int>(0, 2);
  auto options = [&]<class S>(S) {
    WorldStepOptions<S> o;
    o.report = report;
    o.target_distance = static_cast<S>(target);
    o.tolerance = static_cast<S>(tolerance);
    o.method = method;
    o.broad_phase = broad;
    o.max_iterations = max_iterations;
    o.threads = threads;
    return o;
  };
  run<double>(bodies, motions, options(0.0), target, tolerance);
  run<float>(bodies, motions, options(0.0f), target, tolerance);
  return 0;
}
