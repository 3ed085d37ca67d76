// impact benchmarks — bench_cast.cpp: ray_cast and shape_cast against Bullet's casters and FCL.
//
// Scenes (built here; seeded, the same for every library):
// - Linear casts (shape_cast/PAIR/...): pairs box_box, cylinder_cylinder and hull_hull, each a
//   pool of 64 shapes (boxes with half extents in [0.1, 1]; cylinders with radius and half height
//   in [0.1, 1]; hulls of 128 random points on a sphere of radius [0.5, 1.5], 128 vertices). Ten
//   sessions of 10,000 sweeps each, every session its own seed: A uniform in a cube of side 10
//   with a uniform rotation, B with a uniform rotation at f·R from A along a uniform direction u
//   (R the sum of the bounding radii, f in [1.02, 2], so every sweep starts apart), B's motion
//   relative to A aimed at A's origin plus a lateral offset e·h perpendicular to
//   u (e in [0, 2.2] box, [0, 2.35] cylinder, [0, 2.8] hull, h the width of the CSO A − B along the
//   offset's direction), of length
//   g·|aim| (g in [0.7, 1.5]); both share a drift in [−1, 1]³. About half the sweeps hit (printed).
// - Ray casts (ray_cast/SHAPE/...): sphere, box, capsule, cylinder, cone, hull; a pool of 64 shapes
//   of each kind (sizes in [0.1, 1], hulls as above) and 4096 rays: origin at f·R from the shape
//   (R its bounding radius, f in [1.05, 3]), aimed at the shape's origin plus a lateral offset
//   e·h (e in [0, k], k from 1.4 (cone) to 2.5 (sphere), h the shape's extent along the offset's
//   direction), direction of length
//   g·|aim| (g in [0.7, 1.5]), λ ∈ [0, 1].
//
// Before timing, when `checks`: the agreement report (every library against impact's
// gjk_raycast, disagreements judged by an independent check with impact::distance), the seed
// note's session table (min/avg/max ns per sweep over sessions, each session timed as a whole,
// min of 3 passes), the ray-cast agreement and the GJK ray cast iteration count on spheres.
#include "bench_cast.hpp"

#include "peers.hpp"
#include "scenes.hpp"

#include <impact/cast.hpp>
#include "detail/ray_cast_core.hpp"
#include <impact/query.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace impact_bench {
namespace {

using V3 = impact::Vec3<double>;

constexpr int kSessions = 10;
constexpr int kSweeps = 10000;  // per session
constexpr int kPool = 64;
constexpr std::size_t kRays = 4096;

// ---- random numbers: scenes.hpp's generators (uniform, unit_vector, random_rotation) ----

/// A unit vector perpendicular to u, uniform in angle.
V3 perpendicular(Rng& rng, const V3& u) {
  for (;;) {
    V3 w = unit_vector(rng);
    w -= w.dot(u) * u;
    if (w.squaredNorm() > 1e-6) return w.normalized();
  }
}

/// h(w) = max over the shape (at rotation q, origin at 0) of x·w: its extent along w.
double world_support(const impact::Shape<double>& s, const impact::Quat<double>& q, const V3& w) {
  const V3 l = q.conjugate() * w;
  return impact::support(s, l).dot(l);
}

// ---- linear-cast scenes ----

enum class CastPair { box_box, cylinder_cylinder, hull_hull };
constexpr CastPair kCastPairs[] = {CastPair::box_box, CastPair::cylinder_cylinder, CastPair::hull_hull};
const char* cast_pair_name(CastPair p) {
  switch (p) {
    case CastPair::box_box: return "box_box";
    case CastPair::cylinder_cylinder: return "cylinder_cylinder";
    case CastPair::hull_hull: return "hull_hull";
  }
  return "?";
}

template <class S>
struct CastCase {
  int a = 0, b = 0;
  impact::Pose<S> pose_a, pose_b;
  impact::Vec3<S> velocity_a, velocity_b;
};

template <class S>
struct CastScene {
  std::vector<impact::Shape<S>> shapes;
  std::vector<CastCase<S>> cases;  // session k: cases [k·kSweeps, (k + 1)·kSweeps)
};

CastScene<double> make_cast_scene(CastPair pair) {
  CastScene<double> sc;
  Rng pool_rng(kSeed ^ (0x51ed2701u * (static_cast<std::uint64_t>(pair) + 7)));
  for (int i = 0; i < kPool; ++i) {
    switch (pair) {
      case CastPair::box_box:
        sc.shapes.push_back(impact::Box<double>{V3(uniform(pool_rng, 0.1, 1), uniform(pool_rng, 0.1, 1), uniform(pool_rng, 0.1, 1))});
        break;
      case CastPair::cylinder_cylinder: {
        const double r = uniform(pool_rng, 0.1, 1), h = uniform(pool_rng, 0.1, 1);
        sc.shapes.push_back(impact::Cylinder<double>{r, h});
        break;
      }
      case CastPair::hull_hull: sc.shapes.push_back(hull_on_sphere(pool_rng, 128, uniform(pool_rng, 0.5, 1.5))); break;
    }
  }
  // Largest lateral offset, in CSO widths: tuned so that about half the sweeps hit.
  const double lateral = pair == CastPair::box_box ? 2.2 : pair == CastPair::cylinder_cylinder ? 2.35 : 2.8;
  std::vector<double> radius;
  for (const auto& s : sc.shapes) radius.push_back(impact::bounding_radius(s));
  for (int session = 0; session < kSessions; ++session) {
    Rng rng(kSeed + 1000003u * static_cast<std::uint64_t>(session + 1) + static_cast<std::uint64_t>(pair));
    for (int k = 0; k < kSweeps; ++k) {
      CastCase<double> c;
      c.a = static_cast<int>(rng() % kPool);
      c.b = static_cast<int>(rng() % kPool);
      c.pose_a.position = V3(uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5));
      c.pose_a.rotation = random_rotation(rng);
      c.pose_b.rotation = random_rotation(rng);
      const double R = radius[c.a] + radius[c.b];
      const V3 u = unit_vector(rng);
      c.pose_b.position = c.pose_a.position + uniform(rng, 1.02, 2.0) * R * u;
      // Lateral offset e·h along w ⊥ u, h the width of the CSO A − B (about the origins) along w:
      // the sweep of B's origin relative to A passes through the CSO's projection roughly when e ≤ 1.
      const V3 w = perpendicular(rng, u);
      const double h = world_support(sc.shapes[c.a], c.pose_a.rotation, w) + world_support(sc.shapes[c.b], c.pose_b.rotation, -w);
      const V3 aim = c.pose_a.position + uniform(rng, 0, lateral) * h * w - c.pose_b.position;
      const V3 rel = uniform(rng, 0.7, 1.5) * aim;
      c.velocity_a = V3(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -1, 1));
      c.velocity_b = c.velocity_a + rel;
      sc.cases.push_back(c);
    }
  }
  return sc;
}

CastScene<float> to_float(const CastScene<double>& s) {
  CastScene<float> out;
  for (const auto& x : s.shapes) out.shapes.push_back(impact::convert_shape<float>(x));
  for (const auto& c : s.cases) {
    CastCase<float> f;
    f.a = c.a;
    f.b = c.b;
    f.pose_a = c.pose_a.cast<float>();
    f.pose_b = c.pose_b.cast<float>();
    f.pose_a.rotation.normalize();
    f.pose_b.rotation.normalize();
    f.velocity_a = c.velocity_a.cast<float>();
    f.velocity_b = c.velocity_b.cast<float>();
    out.cases.push_back(f);
  }
  return out;
}

PoseDesc pose_desc(const impact::Pose<double>& p) {
  return {{p.position.x(), p.position.y(), p.position.z()}, {p.rotation.w(), p.rotation.x(), p.rotation.y(), p.rotation.z()}};
}

std::array<double, 3> arr(const V3& v) { return {v.x(), v.y(), v.z()}; }

/// Shapes as plain numbers (hull faces from scenes.cpp's describe()).
std::vector<ShapeDesc> describe_shapes(const std::vector<impact::Shape<double>>& shapes) {
  Scene<double> tmp;
  tmp.shapes = shapes;
  return describe(tmp).shapes;
}

CastSceneDesc describe(const CastScene<double>& s) {
  CastSceneDesc d;
  d.shapes = describe_shapes(s.shapes);
  for (const auto& c : s.cases)
    d.cases.push_back({c.a, c.b, pose_desc(c.pose_a), pose_desc(c.pose_b), arr(c.velocity_a), arr(c.velocity_b)});
  return d;
}

// ---- ray scenes ----

constexpr RayShapeKind kRayKinds[] = {RayShapeKind::sphere, RayShapeKind::box,  RayShapeKind::capsule,
                                      RayShapeKind::cylinder, RayShapeKind::cone, RayShapeKind::hull};
const char* ray_kind_name(RayShapeKind k) {
  switch (k) {
    case RayShapeKind::sphere: return "sphere";
    case RayShapeKind::box: return "box";
    case RayShapeKind::capsule: return "capsule";
    case RayShapeKind::cylinder: return "cylinder";
    case RayShapeKind::cone: return "cone";
    case RayShapeKind::hull: return "hull";
  }
  return "?";
}

template <class S>
struct RayCase {
  int shape = 0;
  impact::Pose<S> pose;
  impact::Ray<S> ray;
};

template <class S>
struct RayScene {
  std::vector<impact::Shape<S>> shapes;
  std::vector<RayCase<S>> cases;
};

RayScene<double> make_ray_scene(RayShapeKind kind) {
  RayScene<double> sc;
  Rng rng(kSeed ^ (0x2545f491u * (static_cast<std::uint64_t>(kind) + 3)));
  for (int i = 0; i < kPool; ++i) {
    const double r = uniform(rng, 0.1, 1), h = uniform(rng, 0.1, 1);
    switch (kind) {
      case RayShapeKind::sphere: sc.shapes.push_back(impact::Sphere<double>{r}); break;
      case RayShapeKind::box: sc.shapes.push_back(impact::Box<double>{V3(r, h, uniform(rng, 0.1, 1))}); break;
      case RayShapeKind::capsule: sc.shapes.push_back(impact::Capsule<double>{r, h}); break;
      case RayShapeKind::cylinder: sc.shapes.push_back(impact::Cylinder<double>{r, h}); break;
      case RayShapeKind::cone: sc.shapes.push_back(impact::Cone<double>{r, h}); break;
      case RayShapeKind::hull: sc.shapes.push_back(hull_on_sphere(rng, 128, uniform(rng, 0.5, 1.5))); break;
    }
  }
  // Largest lateral offset, in extents of the shape: tuned so that about half the rays hit.
  const double lateral = kind == RayShapeKind::sphere     ? 2.5
                         : kind == RayShapeKind::box      ? 1.7
                         : kind == RayShapeKind::capsule  ? 1.85
                         : kind == RayShapeKind::cylinder ? 2.0
                         : kind == RayShapeKind::cone     ? 1.4
                                                          : 2.45;
  for (std::size_t k = 0; k < kRays; ++k) {
    RayCase<double> c;
    c.shape = static_cast<int>(rng() % kPool);
    c.pose.position = V3(uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5));
    c.pose.rotation = random_rotation(rng);
    const double R = impact::bounding_radius(sc.shapes[c.shape]);
    const V3 u = unit_vector(rng);
    c.ray.origin = c.pose.position + uniform(rng, 1.05, 3.0) * R * u;
    const V3 w = perpendicular(rng, u);
    const double h = world_support(sc.shapes[c.shape], c.pose.rotation, w);
    const V3 aim = c.pose.position + uniform(rng, 0, lateral) * h * w - c.ray.origin;
    c.ray.direction = uniform(rng, 0.7, 1.5) * aim;
    sc.cases.push_back(c);
  }
  return sc;
}

RayScene<float> to_float(const RayScene<double>& s) {
  RayScene<float> out;
  for (const auto& x : s.shapes) out.shapes.push_back(impact::convert_shape<float>(x));
  for (const auto& c : s.cases) {
    RayCase<float> f;
    f.shape = c.shape;
    f.pose = c.pose.cast<float>();
    f.pose.rotation.normalize();
    f.ray.origin = c.ray.origin.cast<float>();
    f.ray.direction = c.ray.direction.cast<float>();
    out.cases.push_back(f);
  }
  return out;
}

RaySceneDesc describe(const RayScene<double>& s, RayShapeKind kind) {
  RaySceneDesc d;
  d.kind = kind;
  if (kind == RayShapeKind::hull) {
    d.shapes = describe_shapes(s.shapes);
  } else {
    for (const auto& x : s.shapes) {
      ShapeDesc sd;
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, impact::Box<double>>) {
              sd.half_extents = arr(v.half_extents);
            } else if constexpr (std::is_same_v<T, impact::Sphere<double>>) {
              sd.radius = v.radius;
            } else if constexpr (requires { v.radius; v.half_height; }) {
              sd.radius = v.radius;
              sd.half_height = v.half_height;
            }
          },
          x.variant());
      d.shapes.push_back(sd);
    }
  }
  for (const auto& c : s.cases) d.cases.push_back({c.shape, pose_desc(c.pose), arr(c.ray.origin), arr(c.ray.direction)});
  return d;
}

// ---- per-pair data ----

struct Variant {
  std::string name;                                // e.g. "impact/gjk_raycast", "bullet/subsimplex"
  std::function<PeerCast(std::size_t)> query;      // answer of case i (not the timed path for impact)
};

struct CastPairData {
  CastPair pair;
  CastScene<double> scene;
  CastScene<float> scene_f;
  std::unique_ptr<BulletCastPeer> subsimplex, gjk, continuous;
  std::unique_ptr<FclCastPeer> fcl;
  std::vector<Variant> variants;  // variants[0] is the reference, impact/gjk_raycast
};

struct RayData {
  RayShapeKind kind;
  RayScene<double> scene;
  RayScene<float> scene_f;
  std::unique_ptr<BulletRayPeer> subsimplex, gjk, aabb;
  std::vector<Variant> variants;
};

std::vector<std::unique_ptr<CastPairData>>& cast_storage() {
  static std::vector<std::unique_ptr<CastPairData>> s;
  return s;
}
std::vector<std::unique_ptr<RayData>>& ray_storage() {
  static std::vector<std::unique_ptr<RayData>> s;
  return s;
}

template <class S>
impact::CastHit<S> impact_cast(const CastScene<S>& sc, std::size_t i, const impact::ShapeCastOptions<S>& o) {
  const auto& c = sc.cases[i];
  return impact::shape_cast(sc.shapes[c.a], c.pose_a, c.velocity_a, sc.shapes[c.b], c.pose_b, c.velocity_b, o);
}

template <class S>
PeerCast to_peer(const impact::CastHit<S>& h) {
  PeerCast r;
  // max_iterations: toi is a proven lower bound, counted as a hit (there may be contact).
  r.hit = h.status == impact::Status::hit || h.status == impact::Status::max_iterations ||
          h.status == impact::Status::initially_overlapping;
  r.toi = r.hit ? double(h.toi) : 1.0;
  r.normal = {double(h.normal.x()), double(h.normal.y()), double(h.normal.z())};
  r.point = {double(h.point_b.x()), double(h.point_b.y()), double(h.point_b.z())};
  r.failures = h.status == impact::Status::max_iterations;
  return r;
}

template <class S>
impact::ShapeCastOptions<S> cast_options(impact::CastMethod m) {
  impact::ShapeCastOptions<S> o;
  o.method = m;
  return o;
}

// ---- timed loops ----

template <class S>
void bm_impact_cast(benchmark::State& state, const CastScene<S>* sc, impact::CastMethod m, S tolerance = S(0)) {
  auto opt = cast_options<S>(m);
  if (tolerance > S(0)) opt.tolerance = tolerance;
  const auto& shapes = sc->shapes;
  const auto& cases = sc->cases;
  const std::size_t n = cases.size();
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& c = cases[i];
    auto r = impact::shape_cast(shapes[c.a], c.pose_a, c.velocity_a, shapes[c.b], c.pose_b, c.velocity_b, opt);
    benchmark::DoNotOptimize(r.toi);
    if (++i == n) i = 0;
  }
}

template <class Peer>
void bm_peer_cast(benchmark::State& state, const Peer* peer, std::size_t n) {
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = peer->query(i);
    benchmark::DoNotOptimize(r);
    if (++i == n) i = 0;
  }
}

template <class S>
void bm_impact_ray(benchmark::State& state, const RayScene<S>* sc, S relative_tolerance = S(0), bool closed_form = true) {
  impact::RayCastOptions<S> opt;
  if (relative_tolerance > S(0)) opt.relative_tolerance = relative_tolerance;
  opt.closed_form = closed_form;
  const auto& shapes = sc->shapes;
  const auto& cases = sc->cases;
  const std::size_t n = cases.size();
  std::size_t i = 0;
  for (auto _ : state) {
    const auto& c = cases[i];
    auto r = impact::ray_cast(shapes[c.shape], c.pose, c.ray, opt);
    benchmark::DoNotOptimize(r.lambda);
    if (++i == n) i = 0;
  }
}

// ---- checks ----

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const std::size_t k = static_cast<std::size_t>(pos);
  const double f = pos - double(k);
  return k + 1 < v.size() ? v[k] * (1 - f) + v[k + 1] * f : v[k];
}

/// The shape moved inward by about eps (at most eps, at least eps·inradius/size for cones and
/// hulls, which are scaled about their origin): the checks' "robustly intersecting" test.
/// impact::distance reports some separated curved pairs as intersecting at gaps up to about 1e-6
/// (see README), so a contact counts as real only when the shrunk shapes intersect.
impact::Shape<double> shrunk(const impact::Shape<double>& s, double eps) {
  return std::visit(
      [&](const auto& v) -> impact::Shape<double> {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, impact::Box<double>>) {
          return impact::Box<double>{(v.half_extents.array() - eps).max(0.0).matrix()};
        } else if constexpr (std::is_same_v<T, impact::Sphere<double>>) {
          return impact::Sphere<double>{std::max(0.0, v.radius - eps)};
        } else if constexpr (std::is_same_v<T, impact::Capsule<double>>) {
          return impact::Capsule<double>{std::max(0.0, v.radius - eps), v.half_height};
        } else if constexpr (std::is_same_v<T, impact::Cylinder<double>>) {
          return impact::Cylinder<double>{std::max(0.0, v.radius - eps), std::max(0.0, v.half_height - eps)};
        } else if constexpr (std::is_same_v<T, impact::Cone<double>>) {
          const double k = 1 - eps / std::max(v.radius, v.half_height);
          return impact::Cone<double>{k * v.radius, k * v.half_height};
        } else if constexpr (std::is_same_v<T, impact::Hull<double>>) {
          double r = 0;
          for (const auto& x : v.vertices) r = std::max(r, x.norm());
          std::vector<V3> pts;
          for (const auto& x : v.vertices) pts.push_back((1 - eps / r) * x);
          auto built = impact::Hull<double>::build(std::span<const V3>(pts));
          if (!built.ok()) throw std::runtime_error("bench: shrunk hull: " + built.error);
          return std::move(built.hull);
        } else {
          throw std::runtime_error("bench: shrunk: unexpected shape");
        }
      },
      s.variant());
}

/// Resolution of the checks (the shrink of `shrunk`): 1e-7 on polytopes, where impact::distance
/// is exact to rounding near contact, 1e-5 on curved shapes.
double check_eps(const impact::Shape<double>& s) {
  return std::holds_alternative<impact::Box<double>>(s.variant()) || std::holds_alternative<impact::Hull<double>>(s.variant()) ? 1e-7
                                                                                                                              : 1e-5;
}

std::vector<impact::Shape<double>> shrunk_pool(const std::vector<impact::Shape<double>>& shapes) {
  std::vector<impact::Shape<double>> out;
  for (const auto& s : shapes) out.push_back(shrunk(s, check_eps(s)));
  return out;
}

/// Is p (the shape's frame) inside the shape moved inward by eps? Closed forms, no GJK.
bool point_inside(const impact::Shape<double>& s, const V3& p, double eps) {
  return std::visit(
      [&](const auto& v) -> bool {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, impact::Box<double>>) {
          return (p.cwiseAbs().array() <= v.half_extents.array() - eps).all();
        } else if constexpr (std::is_same_v<T, impact::Sphere<double>>) {
          return p.norm() <= v.radius - eps;
        } else if constexpr (std::is_same_v<T, impact::Capsule<double>>) {
          const V3 q(0, 0, std::clamp(p.z(), -v.half_height, v.half_height));
          return (p - q).norm() <= v.radius - eps;
        } else if constexpr (std::is_same_v<T, impact::Cylinder<double>>) {
          return std::abs(p.z()) <= v.half_height - eps && std::hypot(p.x(), p.y()) <= v.radius - eps;
        } else if constexpr (std::is_same_v<T, impact::Cone<double>>) {
          // Base at z = −h, apex at z = h: radius r·(h − z)/(2h) at height z. Distance to the
          // slanted side = (radius at z − ρ)·cos(half angle).
          const double h = v.half_height, r = v.radius, rho = std::hypot(p.x(), p.y());
          const double cosa = 2 * h / std::hypot(2 * h, r);
          return p.z() >= -h + eps && (r * (h - p.z()) / (2 * h) - rho) * cosa >= eps;
        } else if constexpr (std::is_same_v<T, impact::Hull<double>>) {
          for (const auto& f : v.faces)
            if (f.normal.dot(p) > f.offset - eps) return false;
          return true;
        } else {
          throw std::runtime_error("bench: point_inside: unexpected shape");
        }
      },
      s.variant());
}

/// impact::distance between the shapes of case i at time t (−1: intersecting).
double gap_at(const CastScene<double>& sc, std::size_t i, double t, const std::vector<impact::Shape<double>>* shapes = nullptr) {
  const auto& c = sc.cases[i];
  const auto& sh = shapes ? *shapes : sc.shapes;
  impact::Pose<double> pa = c.pose_a, pb = c.pose_b;
  pa.position += t * c.velocity_a;
  pb.position += t * c.velocity_b;
  const auto r = impact::distance(sh[c.a], pa, sh[c.b], pb);
  return r.status == impact::Status::intersecting ? -1.0 : double(r.distance);
}

/// Smallest distance over t ∈ [0, 1] (−1: the shapes intersect at some sampled time). Under a
/// linear motion with fixed rotations the distance is a convex function of t (the distance from
/// the moving origin to a fixed convex set), so golden-section search finds its minimum; 201
/// samples first bracket it and guard against rounding on flat stretches.
double min_gap(const CastScene<double>& sc, std::size_t i, double* t_min = nullptr,
               const std::vector<impact::Shape<double>>* shapes = nullptr) {
  double best = std::numeric_limits<double>::infinity(), tb = 0;
  for (int k = 0; k <= 200; ++k) {
    const double t = k / 200.0, g = gap_at(sc, i, t, shapes);
    if (g < best) best = g, tb = t;
    if (best < 0) break;
  }
  if (best >= 0) {
    double lo = std::max(0.0, tb - 5e-3), hi = std::min(1.0, tb + 5e-3);
    const double phi = 0.5 * (std::sqrt(5.0) - 1);
    double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo), f1 = gap_at(sc, i, x1, shapes), f2 = gap_at(sc, i, x2, shapes);
    for (int k = 0; k < 60 && f1 >= 0 && f2 >= 0; ++k) {
      if (f1 < f2) hi = x2, x2 = x1, f2 = f1, x1 = hi - phi * (hi - lo), f1 = gap_at(sc, i, x1, shapes);
      else lo = x1, x1 = x2, f1 = f2, x2 = lo + phi * (hi - lo), f2 = gap_at(sc, i, x2, shapes);
    }
    if (std::min(f1, f2) < best) best = std::min(f1, f2), tb = f1 < f2 ? x1 : x2;
  }
  if (t_min) *t_min = tb;
  return best;
}

std::string case_text(const CastScene<double>& sc, std::size_t i) {
  const auto& c = sc.cases[i];
  auto shape = [&](int k) {
    char b[200];
    const auto& s = sc.shapes[k];
    if (const auto* bx = std::get_if<impact::Box<double>>(&s.variant()))
      std::snprintf(b, sizeof b, "Box{half_extents (%.17g, %.17g, %.17g)}", bx->half_extents.x(), bx->half_extents.y(), bx->half_extents.z());
    else if (const auto* cy = std::get_if<impact::Cylinder<double>>(&s.variant()))
      std::snprintf(b, sizeof b, "Cylinder{%.17g, %.17g}", cy->radius, cy->half_height);
    else
      std::snprintf(b, sizeof b, "hull #%d of the pool", k);
    return std::string(b);
  };
  auto pose = [](const impact::Pose<double>& p, const V3& v) {
    char b[400];
    std::snprintf(b, sizeof b, "p=(%.17g, %.17g, %.17g) q_wxyz=(%.17g, %.17g, %.17g, %.17g) v=(%.17g, %.17g, %.17g)", p.position.x(),
                  p.position.y(), p.position.z(), p.rotation.w(), p.rotation.x(), p.rotation.y(), p.rotation.z(), v.x(), v.y(), v.z());
    return std::string(b);
  };
  return "      A: " + shape(c.a) + " " + pose(c.pose_a, c.velocity_a) + "\n      B: " + shape(c.b) + " " +
         pose(c.pose_b, c.velocity_b) + "\n";
}

void cast_agreement(CastPairData& p, std::ostream& os) {
  const auto& sc = p.scene;
  const std::size_t n = sc.cases.size();
  char line[1200];
  std::vector<PeerCast> ref(n);
  std::vector<impact::Status> ref_status(n);
  std::vector<int> ref_iters(n);
  const auto ro = cast_options<double>(impact::CastMethod::gjk_raycast);
  const std::vector<impact::Shape<double>> small = shrunk_pool(sc.shapes);
  const double eps = check_eps(sc.shapes[0]);
  for (std::size_t i = 0; i < n; ++i) {
    const auto h = impact_cast(sc, i, ro);
    ref[i] = to_peer(h);
    ref_status[i] = h.status;
    ref_iters[i] = h.iterations;
  }
  int hits = 0, capped = 0, initial = 0, own_late = 0, own_far = 0;
  std::size_t own_far_case = 0, own_late_case = 0;
  double it_mean = 0, own_gap_max = 0;
  for (std::size_t i = 0; i < n; ++i) {
    hits += ref[i].hit;
    capped += ref_status[i] == impact::Status::max_iterations;
    initial += ref_status[i] == impact::Status::initially_overlapping;
    it_mean += ref_iters[i];
    if (ref_status[i] == impact::Status::hit) {
      // Independent check of impact's own answer: the distance there is within the tolerance
      // (1e-6, allowing 1e-6 for the check's own error), and the shapes shrunk by the check's
      // resolution do not intersect there (never late).
      const double g = gap_at(sc, i, ref[i].toi);
      if (gap_at(sc, i, ref[i].toi, &small) < 0) {
        if (own_late == 0) own_late_case = i;
        ++own_late;
      }
      if (g > 2e-6) {
        if (own_far == 0) own_far_case = i;
        ++own_far;
      }
      own_gap_max = std::max(own_gap_max, g);
    }
  }
  std::snprintf(line, sizeof line,
                "\nshape_cast/%s: %zu sweeps (%d sessions of %d); impact gjk_raycast (double) hits %d (%.1f%%), "
                "max_iterations %d, initially_overlapping %d, iterations mean %.2f\n"
                "  impact::distance at impact's toi over its hits: max %.3g; farther than 2e-6 (beyond the tolerance) on %d; "
                "late (the shapes shrunk by %.0e intersect at its toi) on %d\n",
                cast_pair_name(p.pair), n, kSessions, kSweeps, hits, 100.0 * hits / double(n), capped, initial, it_mean / double(n),
                own_gap_max, own_far, eps, own_late);
  os << line;
  if (own_far) {
    std::snprintf(line, sizeof line, "    first case beyond the tolerance: %zu, toi %.17g, distance there %.3g\n", own_far_case, ref[own_far_case].toi,
                  gap_at(sc, own_far_case, ref[own_far_case].toi));
    os << line << case_text(sc, own_far_case);
  }
  if (own_late) {
    std::snprintf(line, sizeof line, "    first case where the shrunk shapes intersect at impact's toi: %zu, toi %.17g\n", own_late_case, ref[own_late_case].toi);
    os << line << case_text(sc, own_late_case);
  }
  os << "  library                          hits   both  impact-only (other wrong / graze / impact wrong)  other-only (impact wrong / "
        "graze / other wrong, max gap)  |dt| p50 p99 max  later>1e-6 (late; by at least p99 max)  normal deg p50 p99 max\n";
  for (std::size_t vi = 1; vi < p.variants.size(); ++vi) {
    const auto& v = p.variants[vi];
    int h = 0, both = 0, ionly = 0, ionly_real = 0, ionly_graze = 0, ionly_false = 0;
    int oonly = 0, oonly_real = 0, oonly_graze = 0, oonly_false = 0, later = 0, later_real = 0, beyond = 0, failures = 0;
    double oonly_gap = 0;
    std::vector<double> dt, ang, lateness;
    std::size_t worst_false = 0;
    std::vector<std::size_t> impact_wrong;
    for (std::size_t i = 0; i < n; ++i) {
      const PeerCast r = v.query(i);
      h += r.hit;
      beyond += r.beyond;
      failures += r.failures > 0;
      if (r.hit && ref[i].hit) {
        ++both;
        const double d = r.toi - ref[i].toi;
        dt.push_back(std::abs(d));
        if (d > 1e-6) {
          ++later;
          // The shrunk shapes already intersect at the other's time: a late answer. How late (at
          // least): the first contact of the shrunk shapes, by bisection between the two answers.
          if (gap_at(sc, i, r.toi, &small) < 0) {
            ++later_real;
            double lo = ref[i].toi, hi = r.toi;
            for (int k = 0; k < 40 && hi - lo > 1e-9; ++k) {
              const double mid = 0.5 * (lo + hi);
              (gap_at(sc, i, mid, &small) < 0 ? hi : lo) = mid;
            }
            lateness.push_back(r.toi - hi);
          }
        }
        const double nn = std::sqrt(r.normal[0] * r.normal[0] + r.normal[1] * r.normal[1] + r.normal[2] * r.normal[2]);
        if (nn > 0 && std::abs(d) < 1e-3 && ref_status[i] == impact::Status::hit) {
          const double c = (r.normal[0] * ref[i].normal[0] + r.normal[1] * ref[i].normal[1] + r.normal[2] * ref[i].normal[2]) / nn;
          ang.push_back(std::acos(std::clamp(c, -1.0, 1.0)) * 180 / std::numbers::pi);
        }
      } else if (ref[i].hit || r.hit) {
        // Real contact: the shrunk shapes meet; no contact: the originals stay more than
        // max(2e-6, eps) apart; otherwise a graze within the check's resolution.
        const double gs = min_gap(sc, i, nullptr, &small);
        const double g = gs < 0 ? -1.0 : min_gap(sc, i);
        const bool graze = gs >= 0 && g <= std::max(2e-6, eps);
        if (ref[i].hit) {
          ++ionly;
          if (g < 0 && !graze) ++ionly_real;
          else if (graze) ++ionly_graze;
          else {
            ++ionly_false;
            impact_wrong.push_back(i);
          }
        } else {
          ++oonly;
          if (g < 0 && !graze) {
            ++oonly_real;
            impact_wrong.push_back(i);
          } else if (graze) {
            ++oonly_graze;
          } else {
            ++oonly_false;
            if (g > oonly_gap) worst_false = i;
            oonly_gap = std::max(oonly_gap, g);
          }
        }
      }
    }
    std::snprintf(line, sizeof line,
                  "  %-30s %6d %6d  %6d (%d / %d / %d)  %6d (%d / %d / %d, %.2e)  %.1e %.1e %.1e  %d (%d, by p99 %.1e max %.1e)  %.2g %.2g %.2g\n",
                  v.name.c_str(), h, both, ionly, ionly_real, ionly_graze, ionly_false, oonly, oonly_real, oonly_graze, oonly_false,
                  oonly_gap, quantile(dt, 0.5), quantile(dt, 0.99), dt.empty() ? 0.0 : *std::max_element(dt.begin(), dt.end()), later,
                  later_real, quantile(lateness, 0.99), lateness.empty() ? 0.0 : *std::max_element(lateness.begin(), lateness.end()),
                  quantile(ang, 0.5), quantile(ang, 0.99), ang.empty() ? 0.0 : *std::max_element(ang.begin(), ang.end()));
    os << line;
    if (beyond) os << "    " << v.name << ": returned true with a fraction > 1 (read as a miss) on " << beyond << "\n";
    if (failures)
      os << "    " << v.name << ": " << (v.name.starts_with("impact") ? "max_iterations" : "gave up (reportFailure)") << " on "
         << failures << "\n";
    if (oonly_false && v.name.starts_with("impact") && !v.name.ends_with("tol1e-2")) {  // tol1e-2 may stop 1e-2 short
      std::snprintf(line, sizeof line, "    IMPACT FALSE HIT: worst case %zu: %s toi %.9g, min impact::distance over [0, 1] %.3g\n", worst_false,
                    v.name.c_str(), v.query(worst_false).toi, min_gap(sc, worst_false));
      os << line << case_text(sc, worst_false);
    }
    for (std::size_t k = 0; k < impact_wrong.size() && k < 3; ++k) {
      const std::size_t i = impact_wrong[k];
      double tm = 0;
      const double g = min_gap(sc, i, &tm);
      std::snprintf(line, sizeof line,
                    "    IMPACT WRONG? case %zu: impact %s toi %.9g, %s %s toi %.9g; min impact::distance over [0, 1] %.3g at t %.6g\n", i,
                    std::string(impact::to_string(ref_status[i])).c_str(), ref[i].toi, v.name.c_str(), v.query(i).hit ? "hit" : "miss",
                    v.query(i).toi, g, tm);
      os << line << case_text(sc, i);
    }
  }
}

/// The seed note's table: every session of 10,000 sweeps timed as a whole (min of `passes`),
/// min / avg / max ns per sweep over the sessions.
void session_table(const std::vector<std::unique_ptr<CastPairData>>& pairs, std::ostream& os, int passes = 3) {
  using clock = std::chrono::steady_clock;
  os << "\nshape_cast sessions (the 2010 note's table): " << kSessions << " sessions of " << kSweeps
     << " sweeps per pair, each session a different seeded set of poses and sweep directions; ns per sweep, each session "
        "timed whole, min of "
     << passes << " passes; min / avg / max over sessions (x ms per session: multiply by " << kSweeps / 1000 << "e-3)\n\n";
  os << "| pair | library | min | avg | max | max/avg | hits/session (avg) |\n|---|---|---:|---:|---:|---:|---:|\n";
  for (const auto& p : pairs) {
    for (const auto& v : p->variants) {
      std::vector<double> best(kSessions, 1e300);
      double hits = 0;
      for (int pass = 0; pass < passes; ++pass) {
        for (int s = 0; s < kSessions; ++s) {
          int h = 0;
          const auto t0 = clock::now();
          for (std::size_t i = std::size_t(s) * kSweeps; i < std::size_t(s + 1) * kSweeps; ++i) h += v.query(i).hit;
          const double ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / kSweeps;
          best[s] = std::min(best[s], ns);
          if (pass == 0) hits += h;
        }
      }
      double mn = 1e300, mx = 0, avg = 0;
      for (double b : best) mn = std::min(mn, b), mx = std::max(mx, b), avg += b;
      avg /= kSessions;
      char line[300];
      std::snprintf(line, sizeof line, "| %s | %s | %.0f | %.0f | %.0f | %.2f | %.0f |\n", cast_pair_name(p->pair), v.name.c_str(), mn, avg,
                    mx, mx / avg, hits / kSessions);
      os << line;
    }
  }
}

void ray_agreement(RayData& d, std::ostream& os) {
  const auto& sc = d.scene;
  const std::size_t n = sc.cases.size();
  char line[1200];
  std::vector<PeerCast> ref(n);
  int hits = 0;
  double it = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = d.variants[0].query(i);
    hits += ref[i].hit;
    const auto& c = sc.cases[i];
    impact::RayCastOptions<double> gjk;
    gjk.closed_form = false;
    it += impact::ray_cast(sc.shapes[c.shape], c.pose, c.ray, gjk).iterations;
  }
  // Independent check, exact and GJK-free: is the ray's point at λ inside the shape shrunk by
  // 1e-9 (closed-form tests in the shape's frame)?
  auto inside = [&](std::size_t i, double lambda) {
    const auto& c = sc.cases[i];
    const V3 p = c.pose.rotation.conjugate() * (c.ray.origin + lambda * c.ray.direction - c.pose.position);
    return point_inside(sc.shapes[c.shape], p, 1e-9);
  };
  auto ever_inside = [&](std::size_t i) {
    for (int k = 0; k <= 4000; ++k)
      if (inside(i, k / 4000.0)) return true;
    return false;
  };
  int own_late = 0;
  std::size_t own_late_case = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (ref[i].hit && inside(i, ref[i].toi) && own_late++ == 0) own_late_case = i;
  std::snprintf(line, sizeof line, "\nray_cast/%s: %zu rays; impact hits %d (%.1f%%), GJK ray cast iterations mean %.2f; impact late (its point inside) %d\n",
                ray_kind_name(d.kind), n, hits, 100.0 * hits / double(n), it / double(n), own_late);
  os << line;
  if (own_late) {
    const auto& c = sc.cases[own_late_case];
    std::snprintf(line, sizeof line,
                  "    first: case %zu, shape %s, pose p=(%.17g, %.17g, %.17g) q_wxyz=(%.17g, %.17g, %.17g, %.17g), ray o=(%.17g, %.17g, "
                  "%.17g) d=(%.17g, %.17g, %.17g), λ %.17g\n",
                  own_late_case, impact::shape_name(sc.shapes[c.shape]), c.pose.position.x(), c.pose.position.y(), c.pose.position.z(),
                  c.pose.rotation.w(), c.pose.rotation.x(), c.pose.rotation.y(), c.pose.rotation.z(), c.ray.origin.x(), c.ray.origin.y(),
                  c.ray.origin.z(), c.ray.direction.x(), c.ray.direction.y(), c.ray.direction.z(), ref[own_late_case].toi);
    os << line;
    if (const auto* cy = std::get_if<impact::Cylinder<double>>(&sc.shapes[c.shape].variant())) {
      std::snprintf(line, sizeof line, "      Cylinder{%.17g, %.17g}\n", cy->radius, cy->half_height);
      os << line;
    }
  }
  for (std::size_t vi = 1; vi < d.variants.size(); ++vi) {
    const auto& v = d.variants[vi];
    int h = 0, both = 0, ionly = 0, ionly_real = 0, oonly = 0, oonly_real = 0, beyond = 0, later = 0;
    std::vector<double> dl;
    for (std::size_t i = 0; i < n; ++i) {
      const PeerCast r = v.query(i);
      h += r.hit;
      beyond += r.beyond;
      if (r.hit && ref[i].hit) {
        ++both;
        dl.push_back(std::abs(r.toi - ref[i].toi));
        later += r.toi - ref[i].toi > 1e-6 && inside(i, r.toi);
      } else if (ref[i].hit) {
        ++ionly;
        ionly_real += ever_inside(i);
      } else if (r.hit) {
        ++oonly;
        oonly_real += ever_inside(i);
      }
    }
    std::snprintf(line, sizeof line,
                  "  %-22s hits %5d both %5d  impact-only %4d (real contact %d)  other-only %4d (real contact %d)  |dλ| p50 %.1e p99 %.1e "
                  "max %.1e  late (later by > 1e-6, point inside) %d%s\n",
                  v.name.c_str(), h, both, ionly, ionly_real, oonly, oonly_real, quantile(dl, 0.5), quantile(dl, 0.99),
                  dl.empty() ? 0.0 : *std::max_element(dl.begin(), dl.end()), later,
                  beyond ? (", fraction > 1 read as miss: " + std::to_string(beyond)).c_str() : "");
    os << line;
  }
}

/// Average GJK ray cast iterations on spheres at relative tolerance 1e-6 (van den Bergen reports
/// about 8): through the API (which peels a sphere to a point core plus its radius), and on the
/// sphere as a plain support mapping (the paper's setting) through the ray-cast core.
void sphere_iterations(const RayData& d, std::ostream& os) {
  const auto& sc = d.scene;
  impact::RayCastOptions<double> opt;
  opt.relative_tolerance = 1e-6;
  opt.closed_form = false;  // the GJK ray cast, not the sphere's closed form
  double api = 0, core = 0, api_hit = 0, core_hit = 0;
  int hits = 0, core_hits = 0, api_max = 0, core_max = 0;
  for (const auto& c : sc.cases) {
    const auto r = impact::ray_cast(sc.shapes[c.shape], c.pose, c.ray, opt);
    api += r.iterations;
    api_max = std::max(api_max, r.iterations);
    if (r.status == impact::Status::hit) api_hit += r.iterations, ++hits;
    const impact::Transform<double> tf(c.pose);
    const impact::Mat3<double> rt = tf.rotation.transpose();
    const V3 s = rt * (c.ray.origin - tf.translation), dir = rt * c.ray.direction;
    const auto& sphere = std::get<impact::Sphere<double>>(sc.shapes[c.shape].variant());
    auto support = [&](const V3& v, V3& pa, V3& pb) -> V3 {
      pa = sphere.support(v);
      pb.setZero();
      return pa;
    };
    const auto k = impact::detail::gjk_ray_cast_core<double>(support, 0.0, s, dir, 1.0, 1e-6, 0.0, 128, V3::Zero());
    core += k.iterations;
    core_max = std::max(core_max, k.iterations);
    if (k.status == impact::Status::hit) core_hit += k.iterations, ++core_hits;
  }
  const double n = double(sc.cases.size());
  char line[1200];
  std::snprintf(line, sizeof line,
                "\nGJK ray cast iterations on spheres, relative_tolerance 1e-6 (%zu rays; the paper: about 8):\n"
                "  impact::ray_cast (sphere peeled to a point core + radius): mean %.2f over all rays, %.2f over the %d hits, max %d\n"
                "  the sphere as a support mapping (detail::gjk_ray_cast_core, radius 0): mean %.2f over all rays, %.2f over the %d hits, max %d\n",
                sc.cases.size(), api / n, api_hit / std::max(1, hits), hits, api_max, core / n, core_hit / std::max(1, core_hits), core_hits,
                core_max);
  os << line;
}

}  // namespace

void setup_cast_benchmarks(std::ostream& info, bool checks) {
  using impact::CastMethod;
  const std::pair<const char*, CastMethod> methods[] = {{"gjk_raycast", CastMethod::gjk_raycast},
                                                        {"conservative_advancement", CastMethod::conservative_advancement},
                                                        {"mpr", CastMethod::mpr}};
  for (CastPair pair : kCastPairs) {
    auto d = std::make_unique<CastPairData>();
    d->pair = pair;
    d->scene = make_cast_scene(pair);
    d->scene_f = to_float(d->scene);
    const CastSceneDesc desc = describe(d->scene);
    d->subsimplex = std::make_unique<BulletCastPeer>(desc, BulletCastPeer::Caster::subsimplex);
    d->gjk = std::make_unique<BulletCastPeer>(desc, BulletCastPeer::Caster::gjk);
    d->continuous = std::make_unique<BulletCastPeer>(desc, BulletCastPeer::Caster::continuous);
    d->fcl = std::make_unique<FclCastPeer>(desc);
    CastPairData* p = d.get();
    const std::string base = std::string("shape_cast/") + cast_pair_name(pair) + "/";
    for (const auto& [mname, m] : methods) {
      const auto o = cast_options<double>(m);
      p->variants.push_back({std::string("impact/") + mname, [p, o](std::size_t i) { return to_peer(impact_cast(p->scene, i, o)); }});
      benchmark::RegisterBenchmark((base + "impact/" + mname).c_str(), bm_impact_cast<double>, &p->scene, m, 0.0);
    }
    const auto of = cast_options<float>(CastMethod::gjk_raycast);
    p->variants.push_back({"impact/gjk_raycast/float", [p, of](std::size_t i) { return to_peer(impact_cast(p->scene_f, i, of)); }});
    benchmark::RegisterBenchmark((base + "impact/gjk_raycast/float").c_str(), bm_impact_cast<float>, &p->scene_f, CastMethod::gjk_raycast, 0.0f);
    // Bullet's subsimplex caster stops when ‖v‖² ≤ 1e-4, i.e. up to 0.01 from contact: the same
    // stopping distance for impact (accuracy-matched, not a default).
    auto loose = cast_options<double>(CastMethod::gjk_raycast);
    loose.tolerance = 1e-2;
    p->variants.push_back({"impact/gjk_raycast/tol1e-2", [p, loose](std::size_t i) { return to_peer(impact_cast(p->scene, i, loose)); }});
    benchmark::RegisterBenchmark((base + "impact/gjk_raycast/tol1e-2").c_str(), bm_impact_cast<double>, &p->scene, CastMethod::gjk_raycast, 1e-2);
    const std::size_t n = p->scene.cases.size();
    p->variants.push_back({"bullet/subsimplex", [p](std::size_t i) { return p->subsimplex->query(i); }});
    p->variants.push_back({"bullet/gjk", [p](std::size_t i) { return p->gjk->query(i); }});
    p->variants.push_back({"bullet/continuous", [p](std::size_t i) { return p->continuous->query(i); }});
    p->variants.push_back({"fcl", [p](std::size_t i) { return p->fcl->query(i); }});
    benchmark::RegisterBenchmark((base + "bullet/subsimplex").c_str(), bm_peer_cast<BulletCastPeer>, p->subsimplex.get(), n);
    benchmark::RegisterBenchmark((base + "bullet/gjk").c_str(), bm_peer_cast<BulletCastPeer>, p->gjk.get(), n);
    benchmark::RegisterBenchmark((base + "bullet/continuous").c_str(), bm_peer_cast<BulletCastPeer>, p->continuous.get(), n);
    benchmark::RegisterBenchmark((base + "fcl").c_str(), bm_peer_cast<FclCastPeer>, p->fcl.get(), n);
    cast_storage().push_back(std::move(d));
  }
  for (RayShapeKind kind : kRayKinds) {
    auto d = std::make_unique<RayData>();
    d->kind = kind;
    d->scene = make_ray_scene(kind);
    d->scene_f = to_float(d->scene);
    const RaySceneDesc desc = describe(d->scene, kind);
    d->subsimplex = std::make_unique<BulletRayPeer>(desc, BulletRayPeer::Caster::subsimplex);
    d->gjk = std::make_unique<BulletRayPeer>(desc, BulletRayPeer::Caster::gjk);
    if (kind == RayShapeKind::box) d->aabb = std::make_unique<BulletRayPeer>(desc, BulletRayPeer::Caster::aabb);
    RayData* p = d.get();
    const std::size_t n = p->scene.cases.size();
    for (const bool closed_form : {true, false}) {
      p->variants.push_back({closed_form ? "impact" : "impact/gjk", [p, closed_form](std::size_t i) {
                               const auto& c = p->scene.cases[i];
                               impact::RayCastOptions<double> opt;
                               opt.closed_form = closed_form;
                               const auto r = impact::ray_cast(p->scene.shapes[c.shape], c.pose, c.ray, opt);
                               PeerCast o;
                               o.hit = r.status == impact::Status::hit || r.status == impact::Status::max_iterations ||
                                       r.status == impact::Status::initially_overlapping;
                               o.toi = o.hit ? r.lambda : 1.0;
                               o.normal = arr(r.normal);
                               return o;
                             }});
    }
    p->variants.push_back({"bullet/subsimplex", [p](std::size_t i) { return p->subsimplex->query(i); }});
    p->variants.push_back({"bullet/gjk", [p](std::size_t i) { return p->gjk->query(i); }});
    if (p->aabb) p->variants.push_back({"bullet/aabb", [p](std::size_t i) { return p->aabb->query(i); }});
    const std::string base = std::string("ray_cast/") + ray_kind_name(kind) + "/";
    benchmark::RegisterBenchmark((base + "impact").c_str(), bm_impact_ray<double>, &p->scene, 0.0, true);
    benchmark::RegisterBenchmark((base + "impact/float").c_str(), bm_impact_ray<float>, &p->scene_f, 0.0f, true);
    benchmark::RegisterBenchmark((base + "impact/gjk").c_str(), bm_impact_ray<double>, &p->scene, 0.0, false);
    benchmark::RegisterBenchmark((base + "impact/gjk/rel1e-6").c_str(), bm_impact_ray<double>, &p->scene, 1e-6, false);
    benchmark::RegisterBenchmark((base + "bullet/subsimplex").c_str(), bm_peer_cast<BulletRayPeer>, p->subsimplex.get(), n);
    benchmark::RegisterBenchmark((base + "bullet/gjk").c_str(), bm_peer_cast<BulletRayPeer>, p->gjk.get(), n);
    if (p->aabb) benchmark::RegisterBenchmark((base + "bullet/aabb").c_str(), bm_peer_cast<BulletRayPeer>, p->aabb.get(), n);
    ray_storage().push_back(std::move(d));
  }
  if (!checks) return;
  info << "\nLinear casts: agreement with impact gjk_raycast (double, defaults), not timed. impact-only / other-only: hit/miss\n"
          "disagreements, judged by the smallest impact::distance over [0, 1] (convex in t; 201 samples + golden section):\n"
          "real contact = the shapes shrunk by eps (1e-7 boxes and hulls, 1e-5 cylinders) intersect at some time; no contact\n"
          "= the shapes stay more than max(2e-6, eps) apart (max gap); else a graze (either answer acceptable).\n"
          "dt = other's toi - impact's where both hit; later>1e-6: other's toi later than impact's by more than 1e-6;\n"
          "late: the shrunk shapes already intersect at the other's time, with how late the answer is at least (other's toi\n"
          "- first contact of the shrunk shapes, by bisection; in units of t). normal: angle\n"
          "between the other's normal (A toward B) and impact's, where both hit within 1e-3.\n";
  for (auto& d : cast_storage()) cast_agreement(*d, info);
  info << "\nRay casts: agreement with impact::ray_cast (double, defaults). Checked by closed-form point-in-shape tests\n"
          "(the shape shrunk by 1e-9): real contact = one of 4001 samples of the ray is inside; late = the point at the\n"
          "reported λ is inside.\n";
  for (auto& d : ray_storage()) ray_agreement(*d, info);
  sphere_iterations(*ray_storage()[0], info);
  session_table(cast_storage(), info);
  info << "\n";
}

}  // namespace impact_bench
