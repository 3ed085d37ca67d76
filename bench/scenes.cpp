// impact benchmarks — scenes.cpp: building the seeded scenes (see scenes.hpp).
#include "scenes.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>

namespace impact_bench {

using V3 = impact::Vec3<double>;

double uniform(Rng& rng, double lo, double hi) {
  // From the raw 64-bit output, so the scenes do not depend on the standard library's
  // distributions (which differ between implementations).
  return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53);
}

V3 unit_vector(Rng& rng) {
  // Uniform on the sphere: z uniform in [−1, 1], azimuth uniform (Archimedes).
  const double z = uniform(rng, -1, 1);
  const double phi = uniform(rng, 0, 2 * std::numbers::pi);
  const double s = std::sqrt(std::max(0.0, 1 - z * z));
  return {s * std::cos(phi), s * std::sin(phi), z};
}

impact::Quat<double> random_rotation(Rng& rng) {
  // Shoemake, "Uniform random rotations", Graphics Gems III.
  const double u1 = uniform(rng, 0, 1), u2 = uniform(rng, 0, 2 * std::numbers::pi),
               u3 = uniform(rng, 0, 2 * std::numbers::pi);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  impact::Quat<double> q(a * std::sin(u2), a * std::cos(u2), b * std::sin(u3), b * std::cos(u3));
  q.normalize();
  return q;
}

impact::Hull<double> hull_on_sphere(Rng& rng, int n, double radius) {
  std::vector<V3> pts;
  pts.reserve(n);
  for (int i = 0; i < n; ++i) pts.push_back(radius * unit_vector(rng));
  auto built = impact::Hull<double>::build(std::span<const V3>(pts));
  if (!built.ok()) throw std::runtime_error("bench: hull build failed: " + built.error);
  return std::move(built.hull);
}

namespace {

impact::Shape<double> random_shape(Rng& rng, ShapeKind kind, int hull_points = 128) {
  switch (kind) {
    case ShapeKind::sphere: return impact::Sphere<double>{uniform(rng, 0.1, 1)};
    case ShapeKind::box: {
      V3 h(uniform(rng, 0.1, 1), uniform(rng, 0.1, 1), uniform(rng, 0.1, 1));
      return impact::Box<double>{h};
    }
    case ShapeKind::cylinder: {
      const double r = uniform(rng, 0.1, 1), hh = uniform(rng, 0.1, 1);
      return impact::Cylinder<double>{r, hh};
    }
    case ShapeKind::hull: return hull_on_sphere(rng, hull_points, uniform(rng, 0.5, 1.5));
  }
  return impact::Point<double>{};
}

bool overlaps(const impact::Shape<double>& a, const impact::Pose<double>& pa, const impact::Shape<double>& b,
              const impact::Pose<double>& pb) {
  const auto r = impact::intersect(a, pa, b, pb);
  return r.status == impact::Status::intersecting;
}

}  // namespace

const char* pair_name(Pair p) {
  switch (p) {
    case Pair::box_box: return "box_box";
    case Pair::sphere_box: return "sphere_box";
    case Pair::cylinder_cylinder: return "cylinder_cylinder";
    case Pair::hull_hull: return "hull_hull";
  }
  return "?";
}

Scene<double> make_scene(Pair pair, std::size_t count, std::uint64_t seed, int hull_points) {
  Rng rng(seed ^ (0x9e3779b97f4a7c15ull * (static_cast<std::uint64_t>(pair) + 1)));
  Scene<double> scene;
  scene.cases.resize(count);
  if (pair == Pair::hull_hull) {
    constexpr int kPool = 64;
    for (int i = 0; i < kPool; ++i) scene.shapes.push_back(random_shape(rng, ShapeKind::hull, hull_points));
    for (auto& c : scene.cases) {
      c.a = static_cast<int>(rng() % kPool);
      c.b = static_cast<int>(rng() % kPool);
    }
  } else {
    const ShapeKind ka = pair == Pair::box_box ? ShapeKind::box
                         : pair == Pair::sphere_box ? ShapeKind::sphere
                                                    : ShapeKind::cylinder;
    const ShapeKind kb = pair == Pair::cylinder_cylinder ? ShapeKind::cylinder : ShapeKind::box;
    for (auto& c : scene.cases) {
      c.a = static_cast<int>(scene.shapes.size());
      scene.shapes.push_back(random_shape(rng, ka));
      c.b = static_cast<int>(scene.shapes.size());
      scene.shapes.push_back(random_shape(rng, kb));
    }
  }
  for (auto& c : scene.cases) {
    const auto& sa = scene.shapes[c.a];
    const auto& sb = scene.shapes[c.b];
    c.pose_a.position = V3(uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5));
    c.pose_a.rotation = random_rotation(rng);
    c.pose_b.rotation = random_rotation(rng);
    const V3 u = unit_vector(rng);
    const double f = uniform(rng, 0.5, 1.5);
    // Contact distance along u: overlapping at 0 (both shapes hold their origin), apart beyond
    // the sum of the bounding radii.
    double lo = 0, hi = impact::bounding_radius(sa) + impact::bounding_radius(sb) + 1e-9;
    for (int k = 0; k < 60 && hi - lo > 1e-13 * hi; ++k) {
      const double mid = 0.5 * (lo + hi);
      c.pose_b.position = c.pose_a.position + mid * u;
      (overlaps(sa, c.pose_a, sb, c.pose_b) ? lo : hi) = mid;
    }
    c.pose_b.position = c.pose_a.position + (f * 0.5 * (lo + hi)) * u;
  }
  return scene;
}

Scene<float> to_float(const Scene<double>& scene) {
  Scene<float> out;
  out.shapes.reserve(scene.shapes.size());
  for (const auto& s : scene.shapes) out.shapes.push_back(impact::convert_shape<float>(s));
  out.cases.reserve(scene.cases.size());
  for (const auto& c : scene.cases) {
    Case<float> f;
    f.a = c.a;
    f.b = c.b;
    f.pose_a = c.pose_a.cast<float>();
    f.pose_b = c.pose_b.cast<float>();
    f.pose_a.rotation.normalize();
    f.pose_b.rotation.normalize();
    out.cases.push_back(f);
  }
  return out;
}

namespace {

/// Faces of a hull as polygons: the vertices on each plane, ordered counter-clockwise about the
/// outward normal.
std::vector<std::vector<int>> hull_faces(const impact::Hull<double>& h) {
  double scale = 0;
  for (const auto& v : h.vertices) scale = std::max(scale, v.norm());
  std::vector<std::vector<int>> faces;
  for (const auto& pl : h.faces) {
    std::vector<int> ids;
    V3 centre = V3::Zero();
    for (int i = 0; i < static_cast<int>(h.vertices.size()); ++i) {
      if (std::abs(pl.normal.dot(h.vertices[i]) - pl.offset) <= 1e-9 * scale) {
        ids.push_back(i);
        centre += h.vertices[i];
      }
    }
    if (ids.size() < 3) continue;
    centre /= static_cast<double>(ids.size());
    const V3 e1 = (h.vertices[ids[0]] - centre).normalized();
    const V3 e2 = pl.normal.cross(e1);
    std::sort(ids.begin(), ids.end(), [&](int x, int y) {
      const V3 dx = h.vertices[x] - centre, dy = h.vertices[y] - centre;
      return std::atan2(dx.dot(e2), dx.dot(e1)) < std::atan2(dy.dot(e2), dy.dot(e1));
    });
    faces.push_back(std::move(ids));
  }
  return faces;
}

PoseDesc pose_desc(const impact::Pose<double>& p) {
  return {{p.position.x(), p.position.y(), p.position.z()},
          {p.rotation.w(), p.rotation.x(), p.rotation.y(), p.rotation.z()}};
}

}  // namespace

SceneDesc describe(const Scene<double>& scene) {
  SceneDesc out;
  for (const auto& s : scene.shapes) {
    ShapeDesc d;
    if (const auto* sp = std::get_if<impact::Sphere<double>>(&s.variant())) {
      d.kind = ShapeKind::sphere;
      d.radius = sp->radius;
    } else if (const auto* bx = std::get_if<impact::Box<double>>(&s.variant())) {
      d.kind = ShapeKind::box;
      d.half_extents = {bx->half_extents.x(), bx->half_extents.y(), bx->half_extents.z()};
    } else if (const auto* cy = std::get_if<impact::Cylinder<double>>(&s.variant())) {
      d.kind = ShapeKind::cylinder;
      d.radius = cy->radius;
      d.half_height = cy->half_height;
    } else if (const auto* h = std::get_if<impact::Hull<double>>(&s.variant())) {
      d.kind = ShapeKind::hull;
      for (const auto& v : h->vertices) d.vertices.push_back({v.x(), v.y(), v.z()});
      d.faces = hull_faces(*h);
    } else {
      throw std::runtime_error("bench: describe: shape kind not used by the scenes");
    }
    out.shapes.push_back(std::move(d));
  }
  for (const auto& c : scene.cases) out.cases.push_back({c.a, c.b, pose_desc(c.pose_a), pose_desc(c.pose_b)});
  return out;
}

impact::Hull<double> random_hull(int n, std::uint64_t seed) {
  Rng rng(seed + static_cast<std::uint64_t>(n));
  return hull_on_sphere(rng, n, 1.0);
}

std::vector<V3> random_directions(std::size_t count, std::uint64_t seed) {
  Rng rng(seed * 3 + 1);
  std::vector<V3> out(count);
  for (auto& d : out) d = unit_vector(rng);
  return out;
}

std::vector<V3> direction_walk(std::size_t count, double step, std::uint64_t seed) {
  Rng rng(seed * 5 + 2);
  std::vector<V3> out(count);
  V3 d = unit_vector(rng);
  for (auto& o : out) {
    o = d;
    // A step of about `step` radians: perturb orthogonally and renormalise.
    V3 t = unit_vector(rng);
    t -= t.dot(d) * d;
    if (t.squaredNorm() > 1e-12) d = (d + std::tan(step) * t.normalized()).normalized();
  }
  return out;
}

}  // namespace impact_bench
