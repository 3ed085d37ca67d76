// Certifies impact::time_of_impact (rigid motion with rotation) without trusting the library's
// geometry: every answer is checked by an oracle written here, from the shapes' parameters.
//
// The oracle is interval subdivision with a Lipschitz bound. The exact distance d(t) of the two
// placed shapes comes from tests/support/oracles.hpp (feature enumeration with separating-axis
// overlap tests, closed forms for balls). No point of a shape moves faster than
// |v| + |ω|·r (r its distance from the shape's origin), so d changes at most at
// L = |vB − vA| + |ωA|·rA + |ωB|·rB, and [a, b] is free of contact when d(a) − target > L·(b − a).
// Splitting the intervals that are not proven free either proves a whole range free or finds a
// time where the shapes are within the target (a contact).
//
// Checked on seeded random cases per pair and precision (about half of them hits):
//  * hit: no contact in [0, toi] (never late), the exact distance at toi within tolerance of the
//    target, witness points on the shapes; miss: no contact anywhere in [0, 1];
//    initially_overlapping: within the target (+ tolerance) at t = 0. Both methods.
//  * zero angular velocity: the answer agrees with shape_cast; A/B swapped: same answer;
//    the whole scene moved far from the origin: same answer.
//  * propellers: a long thin box turning 0.25 to 3 turns per interval and a small fast body
//    crossing its disc. The paper's acceptance (a direction separating at both ends) misses some
//    of these contacts; ours must miss none.
#include "oracles.hpp"
#include "scenes.hpp"

#include <impact/cast.hpp>
#include <impact/toi.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

namespace {

using namespace impact;
using oracle::Body;
using oracle::Kind;
using oracle::V;
using scenes::FailureLog;
using scenes::Rng;

/// The pose at time t, computed here (not by the library): rotation exp(t·ω)·q0.
template <class S>
Pose<double> pose_at(const Motion<S>& m, double t) {
  Pose<double> p;
  p.position = m.pose.position.template cast<double>() + t * m.linear_velocity.template cast<double>();
  const V w = m.angular_velocity.template cast<double>();
  const Eigen::Quaterniond q0 = m.pose.rotation.template cast<double>().normalized();
  p.rotation = w.norm() > 0 ? Eigen::Quaterniond(Eigen::AngleAxisd(t * w.norm(), w.normalized())) * q0 : q0;
  return p;
}

/// Largest distance of a shape's points from its local origin, from its parameters.
template <class S>
double reach(const Shape<S>& s) {
  return std::visit(
      [](const auto& x) -> double {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Point<S>>) return 0;
        else if constexpr (std::is_same_v<T, Sphere<S>>) return double(x.radius);
        else if constexpr (std::is_same_v<T, Box<S>>) return x.half_extents.template cast<double>().norm();
        else if constexpr (std::is_same_v<T, Capsule<S>>) return double(x.radius + x.half_height);
        else if constexpr (std::is_same_v<T, Hull<S>>) {
          double r = 0;
          for (const auto& v : x.vertices) r = std::max(r, v.template cast<double>().norm());
          return r;
        } else if constexpr (std::is_same_v<T, MinkowskiShape<S>>) return reach(*x.a) + reach(*x.b);
        else if constexpr (std::is_same_v<T, Segment<S>> || std::is_same_v<T, Triangle<S>>) {
          double r = std::max(x.a.template cast<double>().norm(), x.b.template cast<double>().norm());
          if constexpr (std::is_same_v<T, Triangle<S>>) r = std::max(r, x.c.template cast<double>().norm());
          return r;
        } else return 1e9;  // no oracle for the rest
      },
      s.variant());
}

template <class S>
struct TimedCase {
  scenes::RandomShape<S> a, b;
  Motion<S> ma, mb;
  S target = 0;
};

/// Exact-distance oracle of a case over time.
template <class S>
struct Oracle {
  const TimedCase<S>& c;
  double lipschitz;
  int evaluations = 0;

  explicit Oracle(const TimedCase<S>& tc) : c(tc) {
    lipschitz = (tc.mb.linear_velocity - tc.ma.linear_velocity).template cast<double>().norm() +
                tc.ma.angular_velocity.template cast<double>().norm() * reach(tc.a.shape) +
                tc.mb.angular_velocity.template cast<double>().norm() * reach(tc.b.shape);
  }
  Body body_a(double t) const { return oracle::make_body(c.a.shape, pose_at(c.ma, t).template cast<S>(), c.a.hull_local); }
  Body body_b(double t) const { return oracle::make_body(c.b.shape, pose_at(c.mb, t).template cast<S>(), c.b.hull_local); }
  double distance(double t) {
    ++evaluations;
    return *oracle::distance(body_a(t), body_b(t));
  }

  /// First time in [lo, hi] found with distance < target − slack (a contact), or −1 when the
  /// interval is proven free of such contact (splitting down to `min_len`, below which an
  /// interval counts as free when its start is within `near` of the target: the tolerance band).
  double first_contact(double lo, double hi, double target, double slack, double near) {
    struct Item { double a, b; };
    std::vector<Item> stack{{lo, hi}};
    double found = -1;
    while (!stack.empty()) {
      const Item it = stack.back();
      stack.pop_back();
      if (found >= 0 && it.a >= found) continue;
      const double d = distance(it.a);
      if (d < target - slack) {
        found = found < 0 ? it.a : std::min(found, it.a);
        continue;
      }
      if (d - target > lipschitz * (it.b - it.a)) continue;
      if (it.b - it.a < 1e-12 || (d - target >= -slack && (it.b - it.a) * lipschitz < near)) continue;
      const double m = 0.5 * (it.a + it.b);
      stack.push_back({m, it.b});
      stack.push_back({it.a, m});
      if (evaluations > 200000) return -2;  // give up (reported as a failure)
    }
    return found;
  }
};

template <class S>
std::string describe(const TimedCase<S>& c, const ToiHit<S>& h) {
  std::ostringstream o;
  o.precision(17);
  auto motion = [&](const Motion<S>& m) {
    o << "{pose " << scenes::describe(m.pose) << ", v " << scenes::vec(m.linear_velocity) << ", w "
      << scenes::vec(m.angular_velocity) << "}";
  };
  o << "a " << scenes::describe(c.a.shape) << " ";
  motion(c.ma);
  o << "\nb " << scenes::describe(c.b.shape) << " ";
  motion(c.mb);
  o << "\ntarget " << double(c.target) << "\n-> status " << to_string(h.status) << " toi " << double(h.toi)
    << " iterations " << h.iterations << " normal " << scenes::vec(h.normal);
  return o.str();
}

template <class S>
double tolerance_of() {
  return sizeof(S) == 4 ? 1e-4 : 1e-6;
}

/// Checks one answer against the oracle; returns false (and logs) on failure.
template <class S>
bool certify(const TimedCase<S>& c, const ToiHit<S>& h, const ToiOptions<S>& opt, FailureLog& log,
             const std::string& label, int* hits = nullptr, bool check_points = true) {
  Oracle<S> o(c);
  const double target = double(c.target), tol = double(opt.tolerance);
  // Rounding of the inputs and of the oracle's own placement (float inputs are exact in double).
  const double slack = scenes::length_tolerance<S>(1.0) + 1e-9;
  if (h.status == Status::invalid_input || h.status == Status::max_iterations) {
    log.fail(label + ": status " + std::string(to_string(h.status)), describe(c, h));
    return false;
  }
  if (h.status == Status::initially_overlapping) {
    const double d0 = o.distance(0);
    if (!(d0 <= target + tol + slack)) {
      log.fail(label + ": initially_overlapping but apart at t = 0", describe(c, h) + "\nd(0) = " + std::to_string(d0));
      return false;
    }
    return true;
  }
  if (h.status == Status::miss) {
    const double t = o.first_contact(0, 1, target, tol + slack, tol);
    if (t != -1) {
      log.fail(label + ": miss, but the oracle finds contact", describe(c, h) + "\ncontact at t = " + std::to_string(t));
      return false;
    }
    return true;
  }
  if (hits) ++*hits;
  const double toi = double(h.toi);
  const double t = o.first_contact(0, toi, target, slack, tol);
  if (t != -1) {
    log.fail(label + ": late (contact before toi)", describe(c, h) + "\ncontact at t = " + std::to_string(t));
    return false;
  }
  const double d = o.distance(toi);
  if (!(std::abs(d - target) <= tol + slack)) {
    log.fail(label + ": distance at toi not within tolerance of the target",
             describe(c, h) + "\nd(toi) = " + std::to_string(d));
    return false;
  }
  if (!check_points) return true;
  // Witness points on the shapes at toi, |pB − pA| the distance.
  const Body ba = o.body_a(toi), bb = o.body_b(toi);
  const V pa = h.point_a.template cast<double>(), pb = h.point_b.template cast<double>();
  const double pt_tol = tol + slack;
  if (std::abs(oracle::signed_distance(ba, pa)) > pt_tol || std::abs(oracle::signed_distance(bb, pb)) > pt_tol ||
      std::abs((pb - pa).norm() - d) > pt_tol + slack) {
    log.fail(label + ": witness points off the shapes", describe(c, h));
    return false;
  }
  return true;
}

/// A random case: B starts 1.5 to 4 away from A and moves toward a point near A, both turning;
/// about half of the cases touch.
template <class S>
TimedCase<S> random_case(Kind ka, Kind kb, Rng& rng, double turns, bool rotate = true) {
  TimedCase<S> c;
  c.a = scenes::random_shape<S>(ka, rng);
  c.b = scenes::random_shape<S>(kb, rng);
  const V start = rng.unit() * rng.uniform(1.5, 4.0);
  const V aim = rng.in_cube(1.8);
  c.ma.pose = scenes::make_pose<S>(rng.in_cube(0.2), rng.rotation());
  c.mb.pose = scenes::make_pose<S>(start, rng.rotation());
  c.ma.linear_velocity = scenes::to_s<S>(rng.in_cube(0.5));
  c.mb.linear_velocity = scenes::to_s<S>((aim - start) * rng.uniform(0.8, 2.0));
  if (rotate) {
    c.ma.angular_velocity = scenes::to_s<S>(rng.unit() * (2 * M_PI * turns * rng.uniform()));
    c.mb.angular_velocity = scenes::to_s<S>(rng.unit() * (2 * M_PI * turns * rng.uniform()));
  }
  c.target = rng.uniform() < 0.2 ? S(rng.uniform(0.0, 0.2)) : S(0);
  return c;
}

struct Pair {
  Kind a, b;
};

constexpr Pair kPairs[] = {{Kind::box, Kind::box},          {Kind::hull, Kind::hull},    {Kind::sphere, Kind::box},
                           {Kind::capsule, Kind::hull},     {Kind::box, Kind::rounded_box}, {Kind::triangle, Kind::box}};

template <class S>
void random_battery(ToiMethod method, int cases) {
  for (const Pair& p : kPairs) {
    const std::string name = std::string("toi ") + oracle::kind_name(p.a) + "-" + oracle::kind_name(p.b) + " " +
                             scenes::scalar_name<S>() + (method == ToiMethod::extrusion_brent ? " extrusion" : " ca");
    SCOPED_TRACE(name);
    Rng rng(scenes::seed_of(name));
    FailureLog log;
    ToiOptions<S> opt;
    opt.method = method;
    opt.tolerance = S(tolerance_of<S>());
    int hits = 0, n = 0;
    for (int i = 0; i < cases; ++i) {
      const TimedCase<S> c = random_case<S>(p.a, p.b, rng, 1.0);
      opt.target_distance = c.target;
      const ToiHit<S> h = time_of_impact<S>(c.a.shape, c.ma, c.b.shape, c.mb, opt);
      ++n;
      certify(c, h, opt, log, "case " + std::to_string(i), &hits);
    }
    // The battery must exercise both outcomes.
    EXPECT_GT(hits, n * 3 / 10) << name << ": too few hits (" << hits << " of " << n << ")";
    EXPECT_LT(hits, n * 7 / 10) << name << ": too many hits (" << hits << " of " << n << ")";
  }
}

TEST(TimeOfImpact, RandomCasesExtrusionDouble) { random_battery<double>(ToiMethod::extrusion_brent, scenes::heavy_battery(1500)); }
TEST(TimeOfImpact, RandomCasesExtrusionFloat) { random_battery<float>(ToiMethod::extrusion_brent, scenes::heavy_battery(1500)); }
TEST(TimeOfImpact, RandomCasesAdvancementDouble) { random_battery<double>(ToiMethod::conservative_advancement, scenes::heavy_battery(600)); }
TEST(TimeOfImpact, RandomCasesAdvancementFloat) { random_battery<float>(ToiMethod::conservative_advancement, scenes::heavy_battery(600)); }

/// A long thin box turning about its centre and a small body crossing its disc fast.
template <class S>
TimedCase<S> propeller(Rng& rng) {
  TimedCase<S> c;
  const double len = rng.uniform(1.0, 3.0), thick = rng.uniform(0.02, 0.1);
  c.a.shape = Box<S>{Vec3<S>(S(len), S(thick), S(thick))};
  const V axis = rng.unit();
  c.ma.pose = scenes::make_pose<S>(rng.in_cube(1.0), rng.rotation());
  c.ma.angular_velocity = scenes::to_s<S>(axis * (2 * M_PI * rng.uniform(0.25, 3.0)));
  const double r = rng.uniform(0.02, 0.1);
  c.b.shape = rng.uniform() < 0.5 ? Shape<S>(Sphere<S>{S(r)}) : Shape<S>(Box<S>{Vec3<S>(S(r), S(r), S(r))});
  // B crosses the blade's plane (normal `axis`) through a point of the disc.
  const V centre = c.ma.pose.position.template cast<double>();
  V u = axis.unitOrthogonal(), w = axis.cross(u);
  const double rho = rng.uniform(0.0, len), phi = rng.uniform(0, 2 * M_PI);
  const V cross = centre + rho * (std::cos(phi) * u + std::sin(phi) * w);
  const double crossing_time = rng.uniform(0.2, 0.8), speed = rng.uniform(5.0, 30.0);
  const V dir = (axis + 0.3 * rng.in_cube(1.0)).normalized();
  c.mb.pose = scenes::make_pose<S>(cross - crossing_time * speed * dir, rng.rotation());
  c.mb.linear_velocity = scenes::to_s<S>(speed * dir);
  c.mb.angular_velocity = scenes::to_s<S>(rng.unit() * rng.uniform(0, 5));
  return c;
}

template <class S>
void propeller_battery(int cases) {
  const std::string name = std::string("toi propeller ") + scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  FailureLog log;
  int hits = 0, paper_misses = 0;
  for (int i = 0; i < cases; ++i) {
    const TimedCase<S> c = propeller<S>(rng);
    for (ToiMethod m : {ToiMethod::extrusion_brent, ToiMethod::conservative_advancement}) {
      ToiOptions<S> opt;
      opt.method = m;
      opt.tolerance = S(tolerance_of<S>());
      opt.max_iterations = 4096;  // fast turns need many short certified intervals
      const ToiHit<S> h = time_of_impact<S>(c.a.shape, c.ma, c.b.shape, c.mb, opt);
      int dummy = 0;
      certify(c, h, opt, log, std::string("propeller ") + std::to_string(i) +
                                  (m == ToiMethod::extrusion_brent ? " extrusion" : " ca"),
              m == ToiMethod::extrusion_brent ? &hits : &dummy);
      if (m == ToiMethod::extrusion_brent && h.status == Status::hit) {
        ToiOptions<S> paper = opt;
        paper.paper_acceptance = true;
        if (time_of_impact<S>(c.a.shape, c.ma, c.b.shape, c.mb, paper).status == Status::miss) ++paper_misses;
      }
    }
  }
  EXPECT_GT(hits, cases / 5) << name;
  // The scene is built so that the paper's acceptance is fooled: it must miss some contacts that
  // ours finds (else these cases would not test what they claim to).
  EXPECT_GT(paper_misses, 0) << name << ": " << hits << " hits";
  std::printf("%s: %d cases, %d hits, the paper's acceptance misses %d of them\n", name.c_str(), cases, hits,
              paper_misses);
}

TEST(TimeOfImpact, PropellersDouble) { propeller_battery<double>(scenes::battery(1000)); }
TEST(TimeOfImpact, PropellersFloat) { propeller_battery<float>(scenes::battery(500)); }

/// Zero rotation: the same contact as the linear shape cast (both certified; same status, and
/// toi within what the two tolerances allow along the closing speed).
// The demo's blade (`impact demo`): a ball crosses the disc of a blade turning 2.5 times while it
// is above and below the blade at t = 0 and t = 1, so one fixed plane separates both ends. The
// paper's acceptance (directions fixed in the world, accepted when they separate both ends) must
// miss it, as published; ours must find the contact, certified by sampling the distance before it.
template <class S>
void demo_blade() {
  const Shape<S> blade = Box<S>{Vec3<S>(S(1.5), S(0.04), S(0.04))};
  const Shape<S> ball = Sphere<S>{S(0.05)};
  Motion<S> mb;
  mb.angular_velocity = Vec3<S>(0, 0, S(2 * M_PI * 2.5));
  mb.pose.rotation = Quat<S>(Eigen::AngleAxis<S>(S(-0.5 * 2 * M_PI * 2.5), Vec3<S>::UnitZ()));
  Motion<S> mf;
  mf.pose.position = Vec3<S>(S(0.9), 0, -1);
  mf.linear_velocity = Vec3<S>(0, 0, 2);
  mf.angular_velocity = Vec3<S>(3, -2, 1);
  ToiOptions<S> paper;
  paper.paper_acceptance = true;
  EXPECT_EQ(time_of_impact<S>(blade, mb, ball, mf, paper).status, Status::miss);
  const ToiHit<S> ours = time_of_impact<S>(blade, mb, ball, mf);
  ASSERT_EQ(ours.status, Status::hit);
  const S tol = ToiOptions<S>{}.tolerance;
  const auto at_toi = distance<S>(blade, mb.at(ours.toi), ball, mf.at(ours.toi));
  EXPECT_LE(at_toi.distance, S(2) * tol);
  for (int i = 0; i < 4000; ++i) {  // apart before the answer
    const S t = ours.toi * S(i) / S(4000);
    const auto r = distance<S>(blade, mb.at(t), ball, mf.at(t));
    ASSERT_EQ(r.status, Status::separated) << "contact at t = " << t << " before toi " << ours.toi;
  }
}

TEST(TimeOfImpact, DemoBladePaperMissesOursFinds) {
  demo_blade<double>();
  demo_blade<float>();
}

TEST(TimeOfImpact, ZeroRotationMatchesShapeCast) {
  Rng rng(scenes::seed_of("toi zero rotation"));
  FailureLog log;
  for (int i = 0; i < scenes::heavy_battery(2000); ++i) {
    const Pair& p = kPairs[i % std::size(kPairs)];
    const TimedCase<double> c = random_case<double>(p.a, p.b, rng, 0.0, false);
    ToiOptions<double> opt;
    opt.target_distance = c.target;
    const ToiHit<double> h = time_of_impact<double>(c.a.shape, c.ma, c.b.shape, c.mb, opt);
    certify(c, h, opt, log, "zero rotation " + std::to_string(i));
    ShapeCastOptions<double> so;
    so.target_distance = c.target;
    const CastHit<double> s = shape_cast<double>(c.a.shape, c.ma.pose, c.ma.linear_velocity, c.b.shape, c.mb.pose,
                                                 c.mb.linear_velocity, so);
    // Both answers certified by the oracle; the statuses agree except around a graze that
    // stays within the tolerance band.
    if (s.status == Status::hit || s.status == Status::miss || s.status == Status::initially_overlapping) {
      ToiHit<double> as_toi;
      as_toi.status = s.status;
      as_toi.toi = s.toi;
      as_toi.point_a = s.point_a;
      as_toi.point_b = s.point_b;
      as_toi.normal = s.normal;
      as_toi.iterations = s.iterations;
      ToiOptions<double> sopt = opt;
      sopt.tolerance = so.tolerance;
      certify(c, as_toi, sopt, log, "shape_cast " + std::to_string(i));
    }
    if (h.status != s.status) {
      Oracle<double> o(c);
      if (o.first_contact(0, 1, c.target, 2e-6, 1e-6) != -1 && h.status != Status::initially_overlapping &&
          s.status != Status::initially_overlapping)
        log.fail("status differs from shape_cast", describe(c, h) + "\nshape_cast " + std::string(to_string(s.status)));
    }
  }
}

/// A/B swapped and the whole scene moved far away: the same answer.
template <class S>
void symmetry_and_far(int cases) {
  const std::string name = std::string("toi symmetry ") + scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  FailureLog log;
  const double far = sizeof(S) == 4 ? 1e2 : 1e4;
  for (int i = 0; i < cases; ++i) {
    const Pair& p = kPairs[i % std::size(kPairs)];
    const TimedCase<S> c = random_case<S>(p.a, p.b, rng, 1.0);
    ToiOptions<S> opt;
    opt.target_distance = c.target;
    opt.tolerance = S(tolerance_of<S>());
    const ToiHit<S> h = time_of_impact<S>(c.a.shape, c.ma, c.b.shape, c.mb, opt);
    TimedCase<S> swapped = c;
    std::swap(swapped.a, swapped.b);
    std::swap(swapped.ma, swapped.mb);
    const ToiHit<S> hs = time_of_impact<S>(swapped.a.shape, swapped.ma, swapped.b.shape, swapped.mb, opt);
    certify(swapped, hs, opt, log, "swapped " + std::to_string(i));
    TimedCase<S> moved = c;
    const V shift = rng.unit() * far;
    moved.ma.pose.position += scenes::to_s<S>(shift);
    moved.mb.pose.position += scenes::to_s<S>(shift);
    // Far away the inputs themselves are rounded by ε·far: allow that much more distance error.
    ToiOptions<S> far_opt = opt;
    far_opt.tolerance = S(tolerance_of<S>() + scenes::magnitude_tolerance<S>(far));
    const ToiHit<S> hf = time_of_impact<S>(moved.a.shape, moved.ma, moved.b.shape, moved.mb, far_opt);
    const double speed = (c.mb.linear_velocity - c.ma.linear_velocity).template cast<double>().norm() + 10;
    auto same = [&](const ToiHit<S>& x, double tol) {
      if (x.status != h.status) return false;
      return x.status != Status::hit || std::abs(double(x.toi) - double(h.toi)) * speed <= 4 * tol;
    };
    if (!same(hs, tolerance_of<S>())) {
      // Different answers are fine only around a graze within the tolerance band.
      Oracle<S> o(c);
      if (o.first_contact(0, 1, double(c.target), 2 * tolerance_of<S>(), tolerance_of<S>()) != -1 &&
          (hs.status != h.status))
        log.fail("A/B swap changes the answer", describe(c, h) + "\nswapped: " + describe(swapped, hs));
    }
    if (hf.status != h.status && hf.status != Status::hit && h.status != Status::initially_overlapping) {
      Oracle<S> o(c);
      if (o.first_contact(0, 1, double(c.target), 2 * double(far_opt.tolerance), double(far_opt.tolerance)) != -1)
        log.fail("far from the origin the answer changes", describe(c, h) + "\nfar: " + describe(moved, hf));
    }
  }
}

TEST(TimeOfImpact, SymmetryAndFarDouble) { symmetry_and_far<double>(scenes::heavy_battery(1500)); }
TEST(TimeOfImpact, SymmetryAndFarFloat) { symmetry_and_far<float>(scenes::heavy_battery(1000)); }

TEST(TimeOfImpact, InvalidInputsNameTheField) {
  Motion<double> m;
  ToiOptions<double> opt;
  const Shape<double> box = Box<double>{Vec3<double>(1, 1, 1)};
  Motion<double> bad = m;
  bad.angular_velocity.y() = std::nan("");
  auto h = time_of_impact<double>(box, m, box, bad, opt);
  EXPECT_EQ(h.status, Status::invalid_input);
  EXPECT_EQ(h.error.rfind("motion_b.angular_velocity.1", 0), 0u) << h.error;
  bad = m;
  bad.linear_velocity.x() = 1e300;
  h = time_of_impact<double>(box, bad, box, m, opt);
  EXPECT_EQ(h.error.rfind("motion_a.linear_velocity.0", 0), 0u) << h.error;
  bad = m;
  bad.pose.rotation.coeffs() *= 2;
  h = time_of_impact<double>(box, m, box, bad, opt);
  EXPECT_EQ(h.error.rfind("motion_b.pose", 0), 0u) << h.error;
  opt.tolerance = 0;
  h = time_of_impact<double>(box, m, box, m, opt);
  EXPECT_EQ(h.error.rfind("tolerance", 0), 0u) << h.error;
  opt.tolerance = 1e-6;
  opt.target_distance = -1;
  h = time_of_impact<double>(box, m, box, m, opt);
  EXPECT_EQ(h.error.rfind("target_distance", 0), 0u) << h.error;
}

}  // namespace
