// tests/support/scenes.hpp — seeded random shapes and placements, test tolerances, and printing
// of failing cases as code one can paste into a regression test.
#pragma once

#include "oracles.hpp"

#include <impact/query.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace scenes {

using oracle::Kind;
using oracle::V;

/// Every shape type the batteries cover ("rounded_box" is the minkowski sum box ⊕ sphere).
inline constexpr Kind kAllKinds[] = {Kind::point,   Kind::sphere,   Kind::box,  Kind::capsule, Kind::cylinder,
                                     Kind::cone,    Kind::segment,  Kind::triangle, Kind::hull, Kind::rounded_box};

template <class S>
inline const char* scalar_name() {
  return sizeof(S) == 4 ? "float" : "double";
}

// ---------------------------------------------------------------------------------------------
// Tolerances of the tests
// ---------------------------------------------------------------------------------------------

/// Length tolerance for a scene of size `size` (the largest of the shapes' bounding radii and
/// the distance of their origins from the world origin, at least 1).
///
/// GJK stops when its upper and lower bounds of the distance agree to gjk_relative (1e-12 double,
/// 1e-6 float) of the core distance, which is below `size`. The rest of its error is rounding:
/// placing points costs a few ε·size, and Johnson's sub-algorithm solves for barycentric
/// coordinates whose rounding error is ε·size times the condition number of the simplex, which
/// grows as the simplex flattens near the answer. Allowing a condition number of 10⁶ in double
/// and 10³ in float gives
///   double: 1e-9·size ≈ 4.5e6·ε = 1000·gjk_relative,   float: 1e-4·size ≈ 840·ε = 100·gjk_relative.
template <class S>
inline double length_tolerance(double size) {
  return size * (sizeof(S) == 4 ? 1e-4 : 1e-9);
}

/// Extra length error from coordinates of magnitude `magnitude`: rounding the inputs moves each
/// shape by up to ½ε·magnitude per coordinate (√3/2·ε·magnitude), the relative placement
/// t_B − t_A and the world witness points R·p + t are each rounded at that magnitude again.
/// Eight ε·magnitude covers the sum with margin.
template <class S>
inline double magnitude_tolerance(double magnitude) {
  return 8 * double(std::numeric_limits<S>::epsilon()) * magnitude;
}

// ---------------------------------------------------------------------------------------------
// Random numbers: std::mt19937_64 is specified exactly by the standard; the conversions below are
// ours, so the cases are the same on every platform.
// ---------------------------------------------------------------------------------------------

struct Rng {
  std::mt19937_64 engine;
  explicit Rng(std::uint64_t seed) : engine(seed) {}
  double uniform() { return double(engine() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  int index(int n) { return static_cast<int>(engine() % static_cast<std::uint64_t>(n)); }
  V in_cube(double h) { return {uniform(-h, h), uniform(-h, h), uniform(-h, h)}; }
  V unit() {
    const double z = uniform(-1, 1), phi = uniform(0, 2 * M_PI), s = std::sqrt(std::max(0.0, 1 - z * z));
    return {s * std::cos(phi), s * std::sin(phi), z};
  }
  /// Uniform random rotation (Shoemake, Graphics Gems III).
  Eigen::Quaterniond rotation() {
    const double u1 = uniform(), u2 = uniform(0, 2 * M_PI), u3 = uniform(0, 2 * M_PI);
    const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    return Eigen::Quaterniond(b * std::cos(u3), a * std::sin(u2), a * std::cos(u2), b * std::sin(u3)).normalized();
  }
};

/// A seed from a test's name, so every case set is fixed and distinct.
/// Size of a seeded battery: whole in release; a quarter under AddressSanitizer (the sanitizer
/// build runs every test, on the same seeds, at a fraction of the cases so that .ci/run stays
/// within its hour: the release build is where the full batteries are counted).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kBatteryDivisor = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr int kBatteryDivisor = 4;
#else
inline constexpr int kBatteryDivisor = 1;
#endif
#else
inline constexpr int kBatteryDivisor = 1;
#endif
constexpr int battery(int cases) { return cases / kBatteryDivisor > 0 ? cases / kBatteryDivisor : 1; }
/// The heaviest batteries (rotating time of impact, big mesh trees: about 1 ms a case under the
/// sanitizers, a third of the sanitizer stage's time at a quarter) run at an eighth there.
constexpr int heavy_battery(int cases) {
  return kBatteryDivisor == 1 ? cases : cases / (2 * kBatteryDivisor) > 0 ? cases / (2 * kBatteryDivisor) : 1;
}

/// Bitwise equality (so −0 and 0 differ, and NaN equals itself): what "bit for bit the same
/// answer" means in the tests of batches and prepared casts.
template <class S>
bool same_bits(S a, S b) {
  return std::memcmp(&a, &b, sizeof(S)) == 0;
}
template <class S>
bool same_bits(const impact::Vec3<S>& a, const impact::Vec3<S>& b) {
  return same_bits(a.x(), b.x()) && same_bits(a.y(), b.y()) && same_bits(a.z(), b.z());
}

inline std::uint64_t seed_of(const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

template <class S>
impact::Vec3<S> to_s(const V& v) {
  return v.cast<S>();
}

template <class S>
impact::Pose<S> make_pose(const V& position, const Eigen::Quaterniond& q) {
  impact::Pose<S> p;
  p.position = position.cast<S>();
  p.rotation = q.cast<S>();
  p.rotation.normalize();
  return p;
}

// ---------------------------------------------------------------------------------------------
// Printing cases as code
// ---------------------------------------------------------------------------------------------

inline std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
template <class S>
std::string vec(const impact::Vec3<S>& v) {
  return "Vec3(" + num(v.x()) + ", " + num(v.y()) + ", " + num(v.z()) + ")";
}

template <class S>
std::string describe(const impact::Shape<S>& shape) {
  using namespace impact;
  const std::string T = std::string("<") + scalar_name<S>() + ">";
  return std::visit(
      [&](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, Point<S>>) return "Point" + T + "{}";
        else if constexpr (std::is_same_v<X, Sphere<S>>) return "Sphere" + T + "{" + num(x.radius) + "}";
        else if constexpr (std::is_same_v<X, Box<S>>) return "Box" + T + "{" + vec(x.half_extents) + "}";
        else if constexpr (std::is_same_v<X, Capsule<S>>)
          return "Capsule" + T + "{" + num(x.radius) + ", " + num(x.half_height) + "}";
        else if constexpr (std::is_same_v<X, Cylinder<S>>)
          return "Cylinder" + T + "{" + num(x.radius) + ", " + num(x.half_height) + "}";
        else if constexpr (std::is_same_v<X, Cone<S>>)
          return "Cone" + T + "{" + num(x.radius) + ", " + num(x.half_height) + "}";
        else if constexpr (std::is_same_v<X, Segment<S>>) return "Segment" + T + "{" + vec(x.a) + ", " + vec(x.b) + "}";
        else if constexpr (std::is_same_v<X, Triangle<S>>)
          return "Triangle" + T + "{" + vec(x.a) + ", " + vec(x.b) + ", " + vec(x.c) + "}";
        else if constexpr (std::is_same_v<X, Hull<S>>) {
          std::string s = "Hull" + T + "::build({";
          for (std::size_t i = 0; i < x.vertices.size(); ++i) s += (i ? ", " : "") + vec(x.vertices[i]);
          return s + "}).hull";
        } else if constexpr (std::is_same_v<X, MinkowskiShape<S>>)
          return "MinkowskiShape" + T + "{" + describe(*x.a) + ", " + describe(*x.b) + "}";
        else
          return "TransformedShape" + T + "{" + describe(*x.shape) + ", ...}";
      },
      shape.variant());
}

template <class S>
std::string describe(const impact::Pose<S>& p) {
  const auto& q = p.rotation;
  return "Pose{" + vec(p.position) + ", Quat(" + num(q.w()) + ", " + num(q.x()) + ", " + num(q.y()) + ", " + num(q.z()) +
         ")}";
}

// ---------------------------------------------------------------------------------------------
// Random shapes
// ---------------------------------------------------------------------------------------------

/// A hull with its cloud's brute-force polytope (local frame) for the oracle.
template <class S>
struct PooledHull {
  std::shared_ptr<const impact::Shape<S>> shape;
  oracle::Polytope local;
};

/// A fixed pool of random solid hulls (6 to 40 points, some on a sphere, some inside, so both the
/// scanning and the hill-climbing support run), built once per scalar type.
template <class S>
const std::vector<PooledHull<S>>& hull_pool() {
  static const std::vector<PooledHull<S>> pool = [] {
    std::vector<PooledHull<S>> out;
    Rng rng(seed_of(std::string("hull pool ") + scalar_name<S>()));
    while (out.size() < 24) {
      const int n = 6 + rng.index(35);
      const V stretch(rng.uniform(0.4, 1.0), rng.uniform(0.4, 1.0), rng.uniform(0.4, 1.0));
      std::vector<impact::Vec3<S>> cloud;
      for (int i = 0; i < n; ++i) {
        const V p = (rng.uniform() < 0.7 ? rng.unit() : rng.in_cube(0.5)).cwiseProduct(stretch);
        cloud.push_back(to_s<S>(p));
      }
      auto built = impact::Hull<S>::build(cloud);
      if (!built.ok() || built.hull.dimension != 3) continue;
      std::vector<V> cd;
      for (const auto& p : cloud) cd.push_back(p.template cast<double>());
      out.push_back({std::make_shared<const impact::Shape<S>>(std::move(built.hull)), oracle::polytope_from_points(cd)});
    }
    return out;
  }();
  return pool;
}

/// A random shape of kind k with sizes about 0.2 to 1 (a unit scene), and its oracle core when it
/// is a hull.
template <class S>
struct RandomShape {
  impact::Shape<S> shape;
  const oracle::Polytope* hull_local = nullptr;
};

template <class S>
RandomShape<S> random_shape(Kind k, Rng& rng) {
  using namespace impact;
  auto r = [&](double lo, double hi) { return S(rng.uniform(lo, hi)); };
  switch (k) {
    case Kind::point: return {Point<S>{}};
    case Kind::sphere: return {Sphere<S>{r(0.2, 1.0)}};
    case Kind::box: return {Box<S>{Vec3<S>(r(0.1, 1.0), r(0.1, 1.0), r(0.1, 1.0))}};
    case Kind::capsule: return {Capsule<S>{r(0.1, 0.6), r(0.1, 1.0)}};
    case Kind::cylinder: return {Cylinder<S>{r(0.2, 1.0), r(0.1, 1.0)}};
    case Kind::cone: return {Cone<S>{r(0.2, 1.0), r(0.2, 1.0)}};
    case Kind::segment: return {Segment<S>{to_s<S>(rng.in_cube(1)), to_s<S>(rng.in_cube(1))}};
    case Kind::triangle: return {Triangle<S>{to_s<S>(rng.in_cube(1)), to_s<S>(rng.in_cube(1)), to_s<S>(rng.in_cube(1))}};
    case Kind::hull: {
      const auto& pool = hull_pool<S>();
      const auto& h = pool[rng.index(static_cast<int>(pool.size()))];
      return {*h.shape, &h.local};
    }
    case Kind::rounded_box: {
      auto box = std::make_shared<const Shape<S>>(Box<S>{Vec3<S>(r(0.1, 0.7), r(0.1, 0.7), r(0.1, 0.7))});
      auto ball = std::make_shared<const Shape<S>>(Sphere<S>{r(0.05, 0.4)});
      // Both orders of the summands occur.
      return {rng.uniform() < 0.5 ? MinkowskiShape<S>{box, ball} : MinkowskiShape<S>{ball, box}};
    }
  }
  return {Point<S>{}};
}

/// A point of the shape (local frame), to build touching pairs: a random point of a segment or a
/// triangle; the origin of the centred solids; the mean of a hull's vertices.
template <class S>
V random_point_of(const impact::Shape<S>& s, Rng& rng) {
  using namespace impact;
  if (auto* h = std::get_if<Hull<S>>(&s.variant())) {
    V m = V::Zero();
    for (const auto& v : h->vertices) m += v.template cast<double>();
    return m / double(h->vertices.size());
  }
  if (auto* g = std::get_if<Segment<S>>(&s.variant())) {
    const double t = rng.uniform();
    return (1 - t) * g->a.template cast<double>() + t * g->b.template cast<double>();
  }
  if (auto* t = std::get_if<Triangle<S>>(&s.variant())) {
    double u = rng.uniform(), v = rng.uniform();
    if (u + v > 1) {
      u = 1 - u;
      v = 1 - v;
    }
    return t->a.template cast<double>() + u * (t->b - t->a).template cast<double>() +
           v * (t->c - t->a).template cast<double>();
  }
  return V::Zero();
}

/// Dimension of a kind's shape (3 for solids).
inline int kind_dimension(Kind k) {
  return k == Kind::point ? 0 : k == Kind::segment ? 1 : k == Kind::triangle ? 2 : 3;
}

/// A pair whose configuration space obstacle has no volume (point–point, point–segment,
/// point–triangle, segment–segment): randomly placed, such shapes never meet.
inline bool flat_pair(Kind a, Kind b) { return kind_dimension(a) + kind_dimension(b) < 3; }

/// Share of the cases of a pair built in contact (a point of B put on a point of A). Random
/// placement alone makes flat pairs never touch and segments or triangles touch in only 5% to
/// 30% of the cases (they are thin and off their origin), which would leave intersecting answers
/// barely tested.
inline double constructed_contact_share(Kind a, Kind b) {
  if (flat_pair(a, b)) return 0.5;
  if (a == Kind::segment || a == Kind::triangle || b == Kind::segment || b == Kind::triangle) return 0.4;
  return 0.0;
}

/// One random case: two shapes, their poses, their oracle bodies, and the scene size.
template <class S>
struct Case {
  impact::Shape<S> a, b;
  impact::Pose<S> pose_a, pose_b;
  oracle::Body body_a, body_b;
  const oracle::Polytope* hull_a = nullptr;
  const oracle::Polytope* hull_b = nullptr;
  double size = 1;
  int index = 0;

  [[nodiscard]] std::string describe() const {
    return "case " + std::to_string(index) + ":\n  a = " + scenes::describe(a) + "\n  pose_a = " + scenes::describe(pose_a) +
           "\n  b = " + scenes::describe(b) + "\n  pose_b = " + scenes::describe(pose_b);
  }
  /// Rebuilds the oracle bodies after the poses changed.
  void refresh() {
    body_a = oracle::make_body(a, pose_a, hull_a);
    body_b = oracle::make_body(b, pose_b, hull_b);
    size = std::max({1.0, double(impact::bounding_radius(a)), double(impact::bounding_radius(b)),
                     double(pose_a.position.norm()), double(pose_b.position.norm())});
  }
};

/// Places B about A so that about half the pairs overlap. A sits in the cube [−1, 1]³ with a
/// random rotation; B's origin is put at A's origin plus D·u for a random unit u, with D a random
/// fraction s of the extent h_A(u) + h_B(−u) of the configuration space obstacle along u (both
/// shapes measured about their own origins). For pairs with a segment or a triangle, a share of
/// the cases (constructed_contact_share) instead makes a point of B coincide with a point of A.
template <class S>
Case<S> random_case(Kind ka, Kind kb, Rng& rng, int index) {
  Case<S> c;
  c.index = index;
  auto sa = random_shape<S>(ka, rng);
  auto sb = random_shape<S>(kb, rng);
  c.a = sa.shape;
  c.b = sb.shape;
  c.hull_a = sa.hull_local;
  c.hull_b = sb.hull_local;
  const V pa = rng.in_cube(1);
  const Eigen::Quaterniond qa = rng.rotation(), qb = rng.rotation();
  c.pose_a = make_pose<S>(pa, qa);
  if (rng.uniform() < constructed_contact_share(ka, kb)) {
    const V xa = random_point_of(c.a, rng), xb = random_point_of(c.b, rng);
    const V world = oracle::rotation_of(c.pose_a) * xa + c.pose_a.position.template cast<double>();
    c.pose_b = make_pose<S>(V::Zero(), qb);
    c.pose_b.position = to_s<S>(world - oracle::rotation_of(c.pose_b) * xb);
  } else {
    const V u = rng.unit();
    // Extents of the rotated shapes about their origins, from the oracle's support values.
    const oracle::Body a0 = oracle::make_body(c.a, make_pose<S>(V::Zero(), qa), c.hull_a);
    const oracle::Body b0 = oracle::make_body(c.b, make_pose<S>(V::Zero(), qb), c.hull_b);
    const double extent = oracle::support_value(a0, u) + oracle::support_value(b0, -u);
    // Flat pairs get a margin: two points have no extent at all.
    const double margin = flat_pair(ka, kb) ? rng.uniform(0.01, 1.0) : 0.0;
    const double s = rng.uniform(0.0, 1.6);
    c.pose_b = make_pose<S>(c.pose_a.position.template cast<double>() + (s * extent + margin) * u, qb);
  }
  c.refresh();
  return c;
}

// ---------------------------------------------------------------------------------------------
// Failure reporting: a battery of 10,000 cases reports its first few failures in full (with the
// case as code) and then only counts.
// ---------------------------------------------------------------------------------------------

class FailureLog {
 public:
  explicit FailureLog(int max_reported = 4) : max_(max_reported) {}
  ~FailureLog() {
    if (counts_.empty()) return;
    std::string summary = "SUMMARY of failing cases:";
    for (const auto& [what, n] : counts_) summary += "\n  " + std::to_string(n) + " x " + what;
    ADD_FAILURE() << summary;
  }
  /// Records a failure of check `what` (a short fixed label) with its details.
  void fail(const std::string& what, const std::string& details) {
    if (++counts_[what] <= max_) ADD_FAILURE() << what << "\n" << details;
  }
  [[nodiscard]] int count() const {
    int n = 0;
    for (const auto& [w, k] : counts_) n += k;
    return n;
  }

 private:
  int max_;
  std::map<std::string, int> counts_;
};

}  // namespace scenes
