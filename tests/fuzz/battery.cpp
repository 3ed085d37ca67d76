// impact — tests/fuzz/battery.cpp: a seeded battery of random and adversarial queries with
// independent checks (tests/fuzz/oracle.hpp never calls the library). scripts/battery.py runs it
// in chunks, restarts it after a hang or a crash, and prints the totals; see tests/fuzz/README.md.
//
//   impact_battery --seed S --start I --count N [--time-limit SEC] [--show K] [--verbose]
//
// Query I of seed S is drawn from its own generator (seed and index hashed), so any one query is
// reproduced alone with --start I --count 1 --verbose. Families: distance, ray_cast, shape_cast
// (gjk_raycast with and without closed forms, conservative_advancement, mpr) and time_of_impact
// (extrusion_brent, conservative_advancement), in double and float, on points, spheres, boxes,
// capsules, segments, triangles, rounded boxes and hulls of box corners. A fraction of the
// queries is adversarial: contact exactly at the start or the end, grazing passes, parallel faces,
// zero sizes, far from the origin, near-unit quaternions, tiny and huge scales, invalid input.
//
// Each answer is classified (one class per query, the first that applies):
//   crash, hang            (seen by the watchdog and the signal handler; the script counts them)
//   nonfinite              a number of a valid answer is NaN or infinite
//   invalid_handling       valid input answered invalid_input, or invalid input answered
//   miss                   a cast answered miss (or a ray no hit) where the oracle sees the
//                          distance fall below target − tolerance within the interval
//   late                   the oracle finds the distance below target − tolerance before the
//                          reported time (or the reported time is past the first contact by more
//                          than the tolerance allows)
//   out_of_range           a toi outside [0, 1] or a λ outside [0, max_lambda], whatever the status
//   phantom                a hit or an overlap where the oracle sees the distance stay above
//                          target + tolerance (at the reported time, or throughout)
//   early                  a hit whose distance at toi exceeds target + tolerance (allowed to be
//                          conservative, but not beyond the tolerance: the protocol's contract)
//   wrong_distance         a distance query off the oracle by more than the tolerance
//   witness_off            a witness point farther than the tolerance from its shape, or a
//                          distance that disagrees with its own witness points
//   max_iterations         the answer reached its iteration cap (not an error by itself)
//   ok
// Tolerances (length): double max(1e-9·size, 64·eps·reach); float max(1e-4·size, 64·eps·reach),
// size the largest body size, motion or target, reach the largest coordinate; the casts get the
// tolerance `impact query` gives them (apps/impact/protocol.cpp) and are checked at twice it.
#include "oracle.hpp"

#include <impact/cast.hpp>
#include <impact/query.hpp>
#include <impact/shapes.hpp>
#include <impact/toi.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace impact;
using oracle::Body;
using oracle::V;

// ---- random numbers ---------------------------------------------------------------------------

struct Rng {
  std::uint64_t s;
  explicit Rng(std::uint64_t seed) : s(seed) {}
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform(double a = 0, double b = 1) { return a + (b - a) * (double(next() >> 11) * 0x1.0p-53); }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  bool chance(double p) { return uniform() < p; }
  double log_uniform(double lo_exp, double hi_exp) { return std::pow(10.0, uniform(lo_exp, hi_exp)); }
  V unit() {
    for (;;) {
      const V v(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
      const double n = v.norm();
      if (n > 0.1 && n <= 1) return v / n;
    }
  }
};

// ---- cases ------------------------------------------------------------------------------------

enum class Kind { point, sphere, box, capsule, segment, triangle, rounded_box, hull_box };
const char* kind_name(Kind k) {
  static const char* names[] = {"point", "sphere", "box", "capsule", "segment", "triangle", "rounded_box", "hull_box"};
  return names[static_cast<int>(k)];
}

/// A shape in its local frame, in the numbers both the library and the oracle see.
struct ShapeSpec {
  Kind kind = Kind::point;
  double radius = 0, half_height = 0;
  V half = V::Zero(), a = V::Zero(), b = V::Zero(), c = V::Zero();
  std::vector<V> hull_points;  // hull_box: the corners and some interior points
};

struct PoseSpec {
  V position = V::Zero();
  double q[4] = {1, 0, 0, 0};  // w, x, y, z
};

enum class Family { distance, ray_cast, shape_cast, time_of_impact };
const char* family_name(Family f) {
  static const char* names[] = {"distance", "ray_cast", "shape_cast", "time_of_impact"};
  return names[static_cast<int>(f)];
}

struct Case {
  Family family = Family::distance;
  bool use_float = false;
  bool expect_invalid = false;
  std::string adversarial;  // which adversarial construction, empty for plain random
  ShapeSpec a, b;
  PoseSpec pa, pb;
  V va = V::Zero(), vb = V::Zero(), wa = V::Zero(), wb = V::Zero();  // linear and angular velocities
  V origin = V::Zero(), direction = V::Zero();
  double max_lambda = 1, target = 0;
  int method = 0;  // shape_cast: 0 gjk_raycast, 1 conservative_advancement, 2 mpr, 3 gjk_raycast without closed forms; toi: 0 brent, 1 CA
};

double to_float(double x) { return static_cast<double>(static_cast<float>(x)); }

/// Calls f on every number of the case (as a double&, or const double& for a const case): the
/// one list of fields that rounding and its check both walk.
template <class C, class F>
void for_each_number(C& k, F&& f) {
  auto vec = [&](auto& v) { f(v.x()), f(v.y()), f(v.z()); };
  for (auto* s : {&k.a, &k.b}) {
    f(s->radius), f(s->half_height);
    vec(s->half), vec(s->a), vec(s->b), vec(s->c);
    for (auto& p : s->hull_points) vec(p);
  }
  for (auto* p : {&k.pa, &k.pb}) {
    vec(p->position);
    for (auto& x : p->q) f(x);
  }
  vec(k.va), vec(k.vb), vec(k.wa), vec(k.wb), vec(k.origin), vec(k.direction);
  f(k.max_lambda), f(k.target);
}

/// Rounds every number of the case to float when the case runs in float, so the oracle sees
/// exactly what the library computes with. g++ 12 at -O2 has dropped some of these stores (see
/// tests/fuzz/CMakeLists.txt: the battery is built with -fno-tree-slp-vectorize there).
void round_case(Case& k) {
  if (k.use_float) for_each_number(k, [](double& x) { x = to_float(x); });
}

/// Whether every number of a float case is a float (round_case took effect).
bool is_rounded(const Case& k) {
  bool all = true;
  if (k.use_float) for_each_number(k, [&](const double& x) { all = all && (x == to_float(x) || std::isnan(x)); });
  return all;
}

ShapeSpec random_shape(Rng& r, double s, bool degenerate) {
  ShapeSpec x;
  x.kind = static_cast<Kind>(r.below(8));
  auto len = [&] { return degenerate && r.chance(0.3) ? 0.0 : s * r.uniform(0.05, 1.5); };
  switch (x.kind) {
    case Kind::point: break;
    case Kind::sphere: x.radius = len(); break;
    case Kind::box: x.half = V(len(), len(), len()); break;
    case Kind::capsule: x.radius = len(), x.half_height = len(); break;
    case Kind::segment: x.a = s * r.unit() * r.uniform(0, 1), x.b = degenerate && r.chance(0.3) ? x.a : V(s * r.unit()); break;
    case Kind::triangle:
      x.a = s * r.unit(), x.b = s * r.unit(), x.c = degenerate && r.chance(0.3) ? V(0.5 * (x.a + x.b)) : V(s * r.unit());
      break;
    case Kind::rounded_box: x.half = V(len(), len(), len()), x.radius = s * r.uniform(0.01, 0.5); break;
    case Kind::hull_box: {
      x.half = V(len(), len(), len());
      for (int i = 0; i < 8; ++i)
        x.hull_points.emplace_back((i & 1) ? x.half.x() : -x.half.x(), (i & 2) ? x.half.y() : -x.half.y(),
                                   (i & 4) ? x.half.z() : -x.half.z());
      for (int i = r.below(4); i > 0; --i)
        x.hull_points.emplace_back(x.half.cwiseProduct(V(r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1))));
      break;
    }
  }
  return x;
}

PoseSpec random_pose(Rng& r, const V& position, bool identity, bool near_unit) {
  PoseSpec p;
  p.position = position;
  if (!identity) {
    Eigen::Vector4d q(r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1));
    while (q.norm() < 0.1) q = Eigen::Vector4d(r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(-1, 1));
    q.normalize();
    if (near_unit) q *= 1 + r.uniform(-5e-7, 5e-7);  // within validation's 1e-6
    for (int i = 0; i < 4; ++i) p.q[i] = q[i];
  }
  return p;
}

/// Size of a shape: the radius of a ball about its local origin that holds it.
double extent(const ShapeSpec& s) {
  switch (s.kind) {
    case Kind::point: return 0;
    case Kind::sphere: return s.radius;
    case Kind::box:
    case Kind::hull_box: return s.half.norm();
    case Kind::capsule: return s.radius + s.half_height;
    case Kind::segment: return std::max(s.a.norm(), s.b.norm());
    case Kind::triangle: return std::max({s.a.norm(), s.b.norm(), s.c.norm()});
    case Kind::rounded_box: return s.half.norm() + s.radius;
  }
  return 0;
}

Case make_case(std::uint64_t seed, std::uint64_t index) {
  Rng r(seed * 0x9e3779b97f4a7c15ull ^ (index + 1) * 0xd1b54a32d192ed69ull);
  r.next();
  Case k;
  const double f = r.uniform();
  k.family = f < 0.25 ? Family::distance : f < 0.45 ? Family::ray_cast : f < 0.75 ? Family::shape_cast : Family::time_of_impact;
  k.use_float = r.chance(0.35);
  const bool adversarial = r.chance(0.35);
  // Scale: usually 1e-2..1e2; adversarially tiny or huge.
  double s = r.log_uniform(-2, 2);
  bool degenerate = false, far = false, near_unit = false, axis_aligned = false;
  if (adversarial) {
    switch (r.below(7)) {
      case 0: s = r.chance(0.5) ? r.log_uniform(-5, -3) : r.log_uniform(3, 6), k.adversarial = "scale"; break;
      case 1: degenerate = true, k.adversarial = "degenerate"; break;
      case 2: far = true, k.adversarial = "far"; break;
      case 3: near_unit = true, k.adversarial = "near_unit_quaternion"; break;
      case 4: axis_aligned = true, k.adversarial = "axis_aligned"; break;
      case 5: k.adversarial = "touching"; break;
      default: k.adversarial = "grazing"; break;
    }
  }
  k.a = random_shape(r, s, degenerate);
  k.b = random_shape(r, s, degenerate);
  const V offset = far ? V(r.unit() * r.log_uniform(3, 6) * std::max(s, 1.0)) : V(V::Zero());
  const double ea = extent(k.a), eb = extent(k.b);
  // B starts a few sizes away from A in a random direction.
  const V dir = axis_aligned ? V::Unit(r.below(3)) * (r.chance(0.5) ? 1.0 : -1.0) : r.unit();
  const double gap = (ea + eb) * r.uniform(0.6, 2.5) + s * r.uniform(0, 1);
  k.pa = random_pose(r, offset, axis_aligned || r.chance(0.15), near_unit);
  k.pb = random_pose(r, offset + gap * dir, axis_aligned || r.chance(0.15), near_unit);
  if (r.chance(0.3)) k.target = s * r.uniform(0, 0.2);
  switch (k.family) {
    case Family::distance:
      if (r.chance(0.4)) k.pb.position = offset + (ea + eb) * r.uniform(0, 1) * dir;  // often overlapping
      break;
    case Family::ray_cast: {
      k.a = k.b;
      const V aim = offset + (r.chance(0.6) ? V(eb * 0.5 * r.unit()) : V(eb * 1.5 * r.unit()));
      k.origin = offset + gap * dir;
      k.direction = (aim - k.origin) * r.uniform(0.5, 2.5);
      k.max_lambda = r.chance(0.8) ? 1.0 : r.uniform(0, 3);
      k.pa = k.pb;
      k.pa.position = offset;
      if (k.adversarial == "grazing") k.direction = k.direction.cross(r.unit()).normalized() * gap;
      break;
    }
    case Family::shape_cast:
    case Family::time_of_impact: {
      // Relative motion toward A's neighbourhood: about half hit.
      const V aim = offset + (r.chance(0.6) ? V(ea * 0.5 * r.unit()) : V((ea + eb) * 1.5 * r.unit()));
      const V rel = (aim - k.pb.position) * r.uniform(0.5, 2.5);
      const double share = r.chance(0.5) ? 0 : r.uniform(0, 1);
      k.va = -share * rel;
      k.vb = (1 - share) * rel;
      if (k.adversarial == "axis_aligned") k.va = V::Zero(), k.vb = -gap * dir * r.uniform(0.5, 1.5);
      if (k.adversarial == "grazing") {
        // Pass by A at about the sum of the extents (spheres: exactly tangent).
        const V side = dir.cross(r.unit()).normalized();
        k.pb.position = offset + (ea + eb + k.target) * side - gap * dir;
        k.va = V::Zero(), k.vb = 2 * gap * dir;
      }
      if (k.adversarial == "touching") {
        // The first contact exactly at t = 1 (spheres) or starting in contact.
        if (r.chance(0.5)) k.pb.position = offset + (ea + eb + k.target) * dir;
        k.vb = -(k.pb.position - offset) + (ea + eb + k.target) * dir;
        k.va = V::Zero();
      }
      if (k.family == Family::time_of_impact) {
        k.method = r.below(2);
        if (r.chance(0.8)) k.wa = r.unit() * r.log_uniform(-1, 1.3);
        if (r.chance(0.5)) k.wb = r.unit() * r.log_uniform(-1, 1.3);
      } else {
        k.method = r.below(4);
      }
      if (r.chance(0.05)) k.va = k.vb = V::Zero();
      break;
    }
  }
  // A few invalid inputs, which must be answered invalid_input.
  if (r.chance(0.02)) {
    k.expect_invalid = true;
    k.adversarial = "invalid";
    switch (r.below(4)) {
      case 0: k.pa.position.x() = std::numeric_limits<double>::quiet_NaN(); break;
      case 1:
        for (double& x : (k.family == Family::ray_cast ? k.pa : k.pb).q) x *= 1.1;  // norm 1.1
        break;
      case 2:
        if (k.family == Family::ray_cast) k.direction.y() = std::numeric_limits<double>::infinity();
        else k.pb.position.z() = 2e12;
        break;
      default:
        k.b.kind = Kind::sphere, k.b.radius = -s;
        if (k.family == Family::ray_cast) k.a = k.b;
        break;
    }
  }
  round_case(k);
  return k;
}

// ---- the case as library input and as oracle bodies -------------------------------------------

template <class S>
Shape<S> to_shape(const ShapeSpec& x) {
  auto v = [](const V& p) { return p.cast<S>(); };
  switch (x.kind) {
    case Kind::point: return Point<S>{};
    case Kind::sphere: return Sphere<S>{S(x.radius)};
    case Kind::box: return Box<S>{v(x.half)};
    case Kind::capsule: return Capsule<S>{S(x.radius), S(x.half_height)};
    case Kind::segment: return Segment<S>{v(x.a), v(x.b)};
    case Kind::triangle: return Triangle<S>{v(x.a), v(x.b), v(x.c)};
    case Kind::rounded_box:
      return MinkowskiShape<S>{std::make_shared<const Shape<S>>(Box<S>{v(x.half)}),
                               std::make_shared<const Shape<S>>(Sphere<S>{S(x.radius)})};
    case Kind::hull_box: {
      std::vector<Vec3<S>> pts;
      for (const V& p : x.hull_points) pts.push_back(v(p));
      HullBuild<S> h = Hull<S>::build(pts);
      if (!h.ok()) return Point<S>{};  // cannot happen for finite corners; the oracle would disagree
      return std::move(h.hull);
    }
  }
  return Point<S>{};
}

template <class S>
Pose<S> to_pose(const PoseSpec& p) {
  Pose<S> out;
  out.position = p.position.cast<S>();
  out.rotation = Quat<S>(S(p.q[0]), S(p.q[1]), S(p.q[2]), S(p.q[3]));
  return out;
}

oracle::Place place_of(const V& position, const double q[4]) {
  return {oracle::rotation_of(q[0], q[1], q[2], q[3]), position};
}

Body body_of(const ShapeSpec& x, const oracle::Place& p) {
  switch (x.kind) {
    case Kind::point: return oracle::make_point(p, 0);
    case Kind::sphere: return oracle::make_point(p, x.radius);
    case Kind::box:
    case Kind::hull_box: return oracle::make_box(p, x.half, 0);
    case Kind::capsule: return oracle::make_segment(p, V(0, 0, -x.half_height), V(0, 0, x.half_height), x.radius);
    case Kind::segment: return oracle::make_segment(p, x.a, x.b, 0);
    case Kind::triangle: return oracle::make_triangle(p, x.a, x.b, x.c);
    case Kind::rounded_box: return oracle::make_box(p, x.half, x.radius);
  }
  return oracle::make_point(p, 0);
}

/// The pose at time t of a body moving with linear velocity v and world angular velocity w
/// (rotation(t) = exp(t·w)·rotation): computed here, independently of Motion::at.
oracle::Place place_at(const PoseSpec& p, const V& v, const V& w, double t) {
  double q[4] = {p.q[0], p.q[1], p.q[2], p.q[3]};
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& x : q) x /= n;
  const double angle = w.norm() * t;
  if (angle > 0) {
    const V axis = w.normalized();
    const double c = std::cos(angle / 2), s = std::sin(angle / 2);
    const double tw = c, tx = s * axis.x(), ty = s * axis.y(), tz = s * axis.z();
    const double r[4] = {tw * q[0] - tx * q[1] - ty * q[2] - tz * q[3], tw * q[1] + tx * q[0] + ty * q[3] - tz * q[2],
                         tw * q[2] - tx * q[3] + ty * q[0] + tz * q[1], tw * q[3] + tx * q[2] - ty * q[1] + tz * q[0]};
    for (int i = 0; i < 4; ++i) q[i] = r[i];
  }
  return place_of(p.position + t * v, q);
}

/// Signed distance between A and B at time t of the case's motion.
double gap_at(const Case& k, double t) {
  const Body a = body_of(k.a, place_at(k.pa, k.va, k.wa, t));
  const Body b = body_of(k.b, place_at(k.pb, k.vb, k.wb, t));
  return oracle::body_body(a, b);
}

// ---- JSON reproducer --------------------------------------------------------------------------

std::string num(double x) {
  if (!std::isfinite(x)) return std::isnan(x) ? "NaN" : (x > 0 ? "1e999" : "-1e999");
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}
std::string vec_json(const V& v) { return "[" + num(v.x()) + "," + num(v.y()) + "," + num(v.z()) + "]"; }
std::string shape_json(const ShapeSpec& x) {
  switch (x.kind) {
    case Kind::point: return R"({"type":"point"})";
    case Kind::sphere: return R"({"type":"sphere","radius":)" + num(x.radius) + "}";
    case Kind::box: return R"({"type":"box","half_extents":)" + vec_json(x.half) + "}";
    case Kind::capsule: return R"({"type":"capsule","radius":)" + num(x.radius) + R"(,"half_height":)" + num(x.half_height) + "}";
    case Kind::segment: return R"({"type":"segment","a":)" + vec_json(x.a) + R"(,"b":)" + vec_json(x.b) + "}";
    case Kind::triangle:
      return R"({"type":"triangle","a":)" + vec_json(x.a) + R"(,"b":)" + vec_json(x.b) + R"(,"c":)" + vec_json(x.c) + "}";
    case Kind::rounded_box:
      return R"({"type":"minkowski","a":{"type":"box","half_extents":)" + vec_json(x.half) +
             R"(},"b":{"type":"sphere","radius":)" + num(x.radius) + "}}";
    case Kind::hull_box: {
      std::string s = R"({"type":"hull","points":[)";
      for (std::size_t i = 0; i < x.hull_points.size(); ++i) s += (i ? "," : "") + vec_json(x.hull_points[i]);
      return s + "]}";
    }
  }
  return "{}";
}
std::string pose_json(const PoseSpec& p) {
  return R"({"position":)" + vec_json(p.position) + R"(,"rotation":[)" + num(p.q[0]) + "," + num(p.q[1]) + "," +
         num(p.q[2]) + "," + num(p.q[3]) + "]}";
}
std::string case_json(const Case& k, std::uint64_t index) {
  std::string s = R"({"id":)" + std::to_string(index) + (k.use_float ? R"(,"precision":"float")" : "");
  switch (k.family) {
    case Family::distance:
      s += R"(,"query":"distance","a":)" + shape_json(k.a) + R"(,"pose_a":)" + pose_json(k.pa) + R"(,"b":)" +
           shape_json(k.b) + R"(,"pose_b":)" + pose_json(k.pb);
      break;
    case Family::ray_cast:
      s += R"(,"query":"ray_cast","shape":)" + shape_json(k.a) + R"(,"pose":)" + pose_json(k.pa) + R"(,"origin":)" +
           vec_json(k.origin) + R"(,"direction":)" + vec_json(k.direction) + R"(,"max_lambda":)" + num(k.max_lambda);
      break;
    case Family::shape_cast: {
      static const char* m[] = {"gjk_raycast", "conservative_advancement", "mpr", "gjk_raycast"};
      s += R"(,"query":"shape_cast","method":")" + std::string(m[k.method]) + R"(","a":)" + shape_json(k.a) +
           R"(,"pose_a":)" + pose_json(k.pa) + R"(,"velocity_a":)" + vec_json(k.va) + R"(,"b":)" + shape_json(k.b) +
           R"(,"pose_b":)" + pose_json(k.pb) + R"(,"velocity_b":)" + vec_json(k.vb) + R"(,"target_distance":)" +
           num(k.target);
      break;
    }
    case Family::time_of_impact:
      s += R"(,"query":"time_of_impact","method":")" +
           std::string(k.method ? "conservative_advancement" : "extrusion_brent") + R"(","a":)" + shape_json(k.a) +
           R"(,"motion_a":{"pose":)" + pose_json(k.pa) + R"(,"linear_velocity":)" + vec_json(k.va) +
           R"(,"angular_velocity":)" + vec_json(k.wa) + R"(},"b":)" + shape_json(k.b) + R"(,"motion_b":{"pose":)" +
           pose_json(k.pb) + R"(,"linear_velocity":)" + vec_json(k.vb) + R"(,"angular_velocity":)" + vec_json(k.wb) +
           R"(},"target_distance":)" + num(k.target);
      break;
  }
  return s + "}";
}

// ---- checks -----------------------------------------------------------------------------------

struct Verdict {
  std::string cls = "ok";
  std::string detail;
};

double size_of(const Case& k) {
  return std::max({extent(k.a), extent(k.b), k.va.norm(), k.vb.norm(), k.target,
                   k.family == Family::ray_cast ? k.direction.norm() * k.max_lambda : 0.0});
}
double reach_of(const Case& k) {
  return std::max({k.pa.position.norm(), k.pb.position.norm(), k.origin.norm()}) + size_of(k);
}

/// The tolerance `impact query` gives a cast (apps/impact/protocol.cpp cast_tolerance, with the
/// protocol's default 1e-6).
template <class S>
double cast_tolerance_of(const Case& k) {
  const double size = size_of(k);
  return std::max({1e-6, double(Tolerances<S>::cast_tolerance) * 1e-2 * size,
                   64.0 * double(std::numeric_limits<S>::epsilon()) * reach_of(k)});
}
/// Distance accuracy expected of the distance query and of witness points.
template <class S>
double distance_tolerance_of(const Case& k) {
  const double rel = std::is_same_v<S, float> ? 1e-4 : 1e-9;
  return std::max(rel * size_of(k), 64.0 * double(std::numeric_limits<S>::epsilon()) * reach_of(k));
}

template <class T>
bool all_finite(const T& v) {
  return v.allFinite();
}

Verdict fail(const char* cls, std::string detail) { return {cls, std::move(detail)}; }

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

/// First time in [lo, hi] where the convex function g falls to `level` (g(lo) > level assumed),
/// and its minimum: golden-section for the minimum, then bisection before it.
template <class G>
void convex_first(const G& g, double lo, double hi, double level, double& t_min, double& g_min, double& t_first) {
  double a = lo, b = hi;
  const double phi = 0.5 * (std::sqrt(5.0) - 1);
  double x1 = b - phi * (b - a), x2 = a + phi * (b - a), f1 = g(x1), f2 = g(x2);
  for (int i = 0; i < 90 && b - a > 1e-15 * std::max(1.0, std::abs(b)); ++i) {
    if (f1 <= f2) b = x2, x2 = x1, f2 = f1, x1 = b - phi * (b - a), f1 = g(x1);
    else a = x1, x1 = x2, f1 = f2, x2 = a + phi * (b - a), f2 = g(x2);
  }
  t_min = 0.5 * (a + b);
  g_min = g(t_min);
  for (double t : {lo, hi})
    if (g(t) < g_min) g_min = g(t), t_min = t;
  t_first = std::numeric_limits<double>::infinity();
  if (g_min <= level) {
    double l = lo, h = t_min;
    for (int i = 0; i < 200 && h - l > 0; ++i) {
      const double m = 0.5 * (l + h);
      if (m <= l || m >= h) break;
      (g(m) <= level ? h : l) = m;
    }
    t_first = h;
  }
}

template <class S>
Verdict check_distance(const Case& k) {
  const DistanceResult<S> d = distance<S>(to_shape<S>(k.a), to_pose<S>(k.pa), to_shape<S>(k.b), to_pose<S>(k.pb));
  if (k.expect_invalid) return d.status == Status::invalid_input ? Verdict{} : fail("invalid_handling", "invalid input answered");
  if (d.status == Status::invalid_input) return fail("invalid_handling", "valid input refused: " + d.error);
  if (!std::isfinite(d.distance) || !all_finite(d.point_a) || !all_finite(d.point_b) || !all_finite(d.normal))
    return fail("nonfinite", "");
  const double tol = distance_tolerance_of<S>(k);
  const Body a = body_of(k.a, place_of(k.pa.position, k.pa.q)), b = body_of(k.b, place_of(k.pb.position, k.pb.q));
  const double truth = std::max(0.0, oracle::body_body(a, b));
  const double got = d.distance;
  if (std::abs(got - truth) > tol) return fail("wrong_distance", fmt("distance %.17g, oracle %.17g, tol %.3g", got, truth, tol));
  const V pa = d.point_a.template cast<double>(), pb = d.point_b.template cast<double>();
  const double oa = oracle::point_body(pa, a), ob = oracle::point_body(pb, b);
  if (oa > tol || ob > tol) return fail("witness_off", fmt("point_a %.3g and point_b %.3g outside, tol %.3g", oa, ob, tol));
  if (d.status == Status::separated && std::abs((pb - pa).norm() - got) > tol)
    return fail("witness_off", fmt("|point_b - point_a| %.17g, distance %.17g", (pb - pa).norm(), got));
  if (d.status == Status::max_iterations) return fail("max_iterations", "");
  return {};
}

template <class S>
Verdict check_ray(const Case& k) {
  RayCastOptions<S> opt;
  opt.max_lambda = S(k.max_lambda);
  const Ray<S> ray{k.origin.cast<S>(), k.direction.cast<S>()};
  const RayHit<S> h = ray_cast<S>(to_shape<S>(k.a), to_pose<S>(k.pa), ray, opt);
  if (k.expect_invalid) return h.status == Status::invalid_input ? Verdict{} : fail("invalid_handling", "invalid input answered");
  if (h.status == Status::invalid_input) return fail("invalid_handling", "valid input refused: " + h.error);
  if (!std::isfinite(h.lambda) || !all_finite(h.point) || !all_finite(h.normal)) return fail("nonfinite", "");
  const Body body = body_of(k.a, place_of(k.pa.position, k.pa.q));
  const double speed = k.direction.norm();
  const double tol = 2 * cast_tolerance_of<S>(k);
  auto g = [&](double l) { return oracle::point_body(k.origin + l * k.direction, body); };
  const double g0 = g(0);
  if (h.status == Status::initially_overlapping) {
    return g0 > tol ? fail("phantom", fmt("initially_overlapping, origin %.3g outside", g0)) : Verdict{};
  }
  if (g0 < -tol) return fail("miss", fmt("origin inside by %.3g, not reported", -g0));
  double t_min, g_min, t_first;
  convex_first(g, 0.0, k.max_lambda, 0.0, t_min, g_min, t_first);
  const bool hit = h.status == Status::hit || h.status == Status::max_iterations;
  if (!hit) {
    if (g_min < -tol) return fail("miss", fmt("the ray enters by %.3g at lambda %.17g", -g_min, t_min));
    return {};
  }
  const double l = h.lambda;
  if (l < 0 || l > k.max_lambda * (1 + 1e-6)) return fail("out_of_range", fmt("lambda %.17g outside [0, %.17g]", l, k.max_lambda));
  if (std::isfinite(t_first) && (l - t_first) * speed > tol)
    return fail("late", fmt("lambda %.17g, first contact %.17g (%.3g late in length, tol %.3g)", l, t_first, (l - t_first) * speed, tol));
  if (!std::isfinite(t_first) && g(l) > tol) return fail("phantom", fmt("hit at %.17g, the ray stays %.3g away", l, g_min));
  if (h.status == Status::hit && g(l) > tol) return fail("early", fmt("hit at %.17g, %.3g from the shape (tol %.3g)", l, g(l), tol));
  if (h.status == Status::max_iterations) return fail("max_iterations", "");
  return {};
}

template <class Hit>
Verdict check_cast_answer(const Case& k, const Hit& h) {
  using S = std::remove_cv_t<decltype(h.toi)>;
  if (k.expect_invalid) return h.status == Status::invalid_input ? Verdict{} : fail("invalid_handling", "invalid input answered");
  if (h.status == Status::invalid_input) return fail("invalid_handling", "valid input refused: " + h.error);
  if (!std::isfinite(h.toi) || !all_finite(h.point_a) || !all_finite(h.point_b) || !all_finite(h.normal))
    return fail("nonfinite", "");
  if (h.toi < 0 || h.toi > 1)
    return fail("out_of_range", std::string(to_string(h.status)) + fmt(" with toi %.17g outside [0, 1]", h.toi));
  const double tol = 2 * cast_tolerance_of<S>(k);
  const double level = k.target;
  auto g = [&](double t) { return gap_at(k, t); };
  const double toi = h.toi;
  const double g0 = g(0);
  if (h.status == Status::initially_overlapping)
    return g0 > level + tol ? fail("phantom", fmt("initially_overlapping, distance %.17g at t = 0 (target %.3g)", g0, level)) : Verdict{};
  if (g0 < level - tol) return fail("miss", fmt("distance %.17g at t = 0, below the target %.3g, not reported", g0, level));
  const bool linear = k.family == Family::shape_cast || (k.wa.isZero() && k.wb.isZero());
  const bool hit = h.status == Status::hit || h.status == Status::max_iterations;
  const double speed = std::max((k.vb - k.va).norm(), 1e-300);
  if (linear) {
    double t_min, g_min, t_first;
    convex_first(g, 0.0, 1.0, level, t_min, g_min, t_first);
    if (!hit) {
      if (g_min < level - tol)
        return fail("miss", std::string(to_string(h.status)) + fmt(" (toi %.17g), but the distance falls to %.17g at t %.17g (target %.3g)", h.toi, g_min, t_min, level));
      return {};
    }
    if (std::isfinite(t_first) && (toi - t_first) * speed > tol && g(toi) < level + tol)
      return fail("late", fmt("toi %.17g, first contact %.17g (%.3g late in length, tol %.3g)", toi, t_first, (toi - t_first) * speed, tol));
    if (std::isfinite(t_first) && (toi - t_first) * speed > tol)
      return fail("late", fmt("toi %.17g after the whole contact (first %.17g, distance at toi %.17g)", toi, t_first, g(toi)));
  } else {
    // Rotation: the distance is not convex in t. Sample [0, 1] and refine around local minima;
    // every sample is an exact oracle value, so a sample below the target proves contact.
    const int n = 128;
    std::vector<double> ts(n + 1), gs(n + 1);
    for (int i = 0; i <= n; ++i) ts[i] = double(i) / n, gs[i] = g(ts[i]);
    double first_below = std::numeric_limits<double>::infinity(), low = std::numeric_limits<double>::infinity(), t_low = 0;
    auto consider = [&](double t, double v) {
      if (v < low) low = v, t_low = t;
      if (v < level - tol) first_below = std::min(first_below, t);
    };
    for (int i = 0; i <= n; ++i) consider(ts[i], gs[i]);
    for (int i = 1; i < n; ++i) {
      if (gs[i] <= gs[i - 1] && gs[i] <= gs[i + 1]) {
        double a = ts[i - 1], b = ts[i + 1];
        for (int it = 0; it < 40; ++it) {
          const double m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
          const double v1 = g(m1), v2 = g(m2);
          consider(m1, v1), consider(m2, v2);
          (v1 < v2 ? b : a) = v1 < v2 ? m2 : m1;
        }
      }
    }
    if (!hit) {
      if (std::isfinite(first_below))
        return fail("miss", std::string(to_string(h.status)) + fmt(" (toi %.17g), but distance %.17g at t %.17g (target %.3g)", h.toi, low, t_low, level));
      return {};
    }
    // Late: a sampled time before toi already closer than target − tol.
    for (int i = 0; i <= n && ts[i] < toi; ++i)
      if (gs[i] < level - tol) return fail("late", fmt("toi %.17g, but distance %.17g at t %.17g (target %.3g)", toi, gs[i], ts[i], level));
    if (first_below < toi) return fail("late", fmt("toi %.17g, contact found at t %.17g (target %.3g)", toi, first_below, level));
    if (g(toi) < level - tol) return fail("late", fmt("distance %.17g at toi %.17g (target %.3g, tol %.3g)", g(toi), toi, level, tol));
  }
  if (h.status == Status::hit) {
    const double at = g(toi);
    if (at > level + tol) {
      // Early: allowed to be conservative, but not beyond the tolerance.
      return fail("early", fmt("distance %.17g at toi %.17g (target %.3g, tol %.3g)", at, toi, level, tol));
    }
    // Witness points on the bodies at toi.
    const Body a = body_of(k.a, place_at(k.pa, k.va, k.wa, toi)), b = body_of(k.b, place_at(k.pb, k.vb, k.wb, toi));
    const double oa = oracle::point_body(h.point_a.template cast<double>(), a);
    const double ob = oracle::point_body(h.point_b.template cast<double>(), b);
    if (oa > tol || ob > tol) return fail("witness_off", fmt("at toi: point_a %.3g, point_b %.3g outside (tol %.3g)", oa, ob, tol));
  }
  if (h.status == Status::max_iterations) return fail("max_iterations", "");
  return {};
}

template <class S>
Verdict check_shape_cast(const Case& k) {
  ShapeCastOptions<S> opt;
  opt.method = k.method == 1 ? CastMethod::conservative_advancement : k.method == 2 ? CastMethod::mpr : CastMethod::gjk_raycast;
  opt.closed_form = k.method != 3;
  opt.target_distance = S(k.target);
  opt.tolerance = S(cast_tolerance_of<S>(k));
  const CastHit<S> h = shape_cast<S>(to_shape<S>(k.a), to_pose<S>(k.pa), k.va.cast<S>(), to_shape<S>(k.b),
                                     to_pose<S>(k.pb), k.vb.cast<S>(), opt);
  return check_cast_answer(k, h);
}

template <class S>
Verdict check_toi(const Case& k) {
  ToiOptions<S> opt;
  opt.method = k.method ? ToiMethod::conservative_advancement : ToiMethod::extrusion_brent;
  opt.target_distance = S(k.target);
  opt.tolerance = S(cast_tolerance_of<S>(k));
  const Motion<S> ma{to_pose<S>(k.pa), k.va.cast<S>(), k.wa.cast<S>()}, mb{to_pose<S>(k.pb), k.vb.cast<S>(), k.wb.cast<S>()};
  const ToiHit<S> h = time_of_impact<S>(to_shape<S>(k.a), ma, to_shape<S>(k.b), mb, opt);
  return check_cast_answer(k, h);
}

template <class S>
Verdict check(const Case& k) {
  switch (k.family) {
    case Family::distance: return check_distance<S>(k);
    case Family::ray_cast: return check_ray<S>(k);
    case Family::shape_cast: return check_shape_cast<S>(k);
    case Family::time_of_impact: return check_toi<S>(k);
  }
  return {};
}

// ---- watchdog and crash reporting ---------------------------------------------------------------

std::atomic<std::int64_t> g_current{-1};
std::atomic<std::int64_t> g_started_ns{0};
char g_line[16384];  // the current case as a JSON line, for the crash handler

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void write_all(const char* s) {
  std::size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(1, s, n);
    if (w <= 0) return;
    s += w, n -= static_cast<std::size_t>(w);
  }
}

void write_index(const char* tag, std::int64_t i) {
  char buf[64];
  int n = 0;
  char digits[24];
  int d = 0;
  std::uint64_t v = i < 0 ? 0 : static_cast<std::uint64_t>(i);
  do digits[d++] = static_cast<char>('0' + v % 10), v /= 10;
  while (v);
  for (const char* t = tag; *t;) buf[n++] = *t++;
  while (d) buf[n++] = digits[--d];
  buf[n++] = ' ';
  buf[n] = 0;
  write_all(buf);
}

extern "C" void on_crash(int sig) {
  write_index("CRASH ", g_current.load());
  write_all(sig == SIGSEGV ? "SIGSEGV " : sig == SIGABRT ? "SIGABRT " : sig == SIGFPE ? "SIGFPE " : "signal ");
  write_all(g_line);
  write_all("\n");
  ::_exit(4);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 16, start = 0, count = 1000;
  double time_limit = 10;
  int show = 5;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--seed") seed = std::stoull(next());
    else if (a == "--start") start = std::stoull(next());
    else if (a == "--count") count = std::stoull(next());
    else if (a == "--time-limit") time_limit = std::stod(next());
    else if (a == "--show") show = std::stoi(next());
    else if (a == "--verbose") verbose = true;
    else {
      std::fprintf(stderr, "usage: impact_battery --seed S --start I --count N [--time-limit SEC] [--show K] [--verbose]\n");
      return 2;
    }
  }
  // A stack overflow must still reach the handler: give it its own stack.
  static char alt[1 << 16];
  stack_t ss{};
  ss.ss_sp = alt;
  ss.ss_size = sizeof alt;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_handler = on_crash;
  sa.sa_flags = SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) sigaction(sig, &sa, nullptr);

  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    const auto limit = static_cast<std::int64_t>(time_limit * 1e9);
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const std::int64_t i = g_current.load(), t0 = g_started_ns.load();
      if (i >= 0 && t0 > 0 && now_ns() - t0 > limit) {
        write_index("HANG ", i);
        write_all(g_line);
        write_all("\n");
        ::_exit(3);
      }
    }
  });

  std::map<std::string, std::uint64_t> counts;
  std::map<std::string, int> shown;
  std::map<std::string, std::uint64_t> by_family_class;
  double slowest = 0;
  std::uint64_t slowest_index = 0;
  for (std::uint64_t i = start; i < start + count; ++i) {
    const Case k = make_case(seed, i);
    if (!is_rounded(k)) {  // the oracle would judge another query than the library answers
      std::fprintf(stderr, "battery: query %llu of a float case is not rounded to float (miscompiled?)\n",
                   static_cast<unsigned long long>(i));
      return 2;
    }
    const std::string line = case_json(k, i);
    std::snprintf(g_line, sizeof g_line, "%s", line.c_str());
    g_started_ns.store(now_ns());
    g_current.store(static_cast<std::int64_t>(i));
    const auto t0 = std::chrono::steady_clock::now();
    const Verdict v = k.use_float ? check<float>(k) : check<double>(k);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    g_current.store(-1);
    g_started_ns.store(0);
    if (sec > slowest) slowest = sec, slowest_index = i;
    ++counts[v.cls];
    static const char* cast_methods[] = {"gjk_raycast", "conservative_advancement", "mpr", "gjk_raycast(closed_form=false)"};
    const std::string fam = std::string(family_name(k.family)) + (k.use_float ? "/float" : "/double") +
                            (k.family == Family::shape_cast ? std::string("/") + cast_methods[k.method]
                             : k.family == Family::time_of_impact ? std::string(k.method ? "/conservative_advancement" : "/extrusion_brent")
                                                                  : std::string());
    if (v.cls != "ok") ++by_family_class[v.cls + ":" + fam];
    if ((v.cls != "ok" && shown[v.cls]++ < show) || verbose) {
      std::printf("FAIL %s %llu %s [%s%s%s] %s\n  %s\n", v.cls.c_str(), static_cast<unsigned long long>(i), fam.c_str(),
                  kind_name(k.a.kind), k.family == Family::ray_cast ? "" : "-", k.family == Family::ray_cast ? "" : kind_name(k.b.kind),
                  v.detail.c_str(), line.c_str());
    }
  }
  done.store(true);
  watchdog.join();
  std::printf("BREAKDOWN");
  for (const auto& [k, n] : by_family_class) std::printf(" %s=%llu", k.c_str(), static_cast<unsigned long long>(n));
  std::printf("\nSLOWEST %llu %.3f\n", static_cast<unsigned long long>(slowest_index), slowest);
  std::printf("COUNTS queries=%llu", static_cast<unsigned long long>(count));
  for (const auto& [k, n] : counts) std::printf(" %s=%llu", k.c_str(), static_cast<unsigned long long>(n));
  std::printf("\n");
  return 0;
}
