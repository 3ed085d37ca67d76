// impact benchmarks — toi_scenes.cpp: building the rotating cases (see toi_scenes.hpp).
#include "toi_scenes.hpp"

#include "scenes.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>

namespace impact_bench {
namespace {

using V3 = impact::Vec3<double>;
constexpr double kPi = std::numbers::pi;

// uniform, unit_vector, random_rotation: scenes.hpp.

V3 perpendicular(const V3& u, Rng& rng) {
  V3 t = unit_vector(rng);
  t -= t.dot(u) * u;
  return t.squaredNorm() > 1e-12 ? V3(t.normalized()) : V3(u.unitOrthogonal());
}

impact::Shape<double> random_box(Rng& rng, double lo, double hi) {
  return impact::Box<double>{V3(uniform(rng, lo, hi), uniform(rng, lo, hi), uniform(rng, lo, hi))};
}

impact::Shape<double> random_hull(Rng& rng) {
  const int n = 32 + static_cast<int>(rng() % 97);  // 32..128
  const double r = uniform(rng, 0.5, 1.5);
  std::vector<V3> pts;
  for (int i = 0; i < n; ++i) pts.push_back(r * unit_vector(rng));
  auto built = impact::Hull<double>::build(std::span<const V3>(pts));
  if (!built.ok()) throw std::runtime_error("bench: hull build failed: " + built.error);
  return std::move(built.hull);
}

double gap_at_start(const impact::Shape<double>& a, const impact::Motion<double>& ma, const impact::Shape<double>& b,
                    const impact::Motion<double>& mb) {
  const auto r = impact::distance(a, ma.pose, b, mb.pose);
  return r.status == impact::Status::separated ? r.distance : -1;
}

}  // namespace

const char* toi_pair_name(ToiPair p) {
  switch (p) {
    case ToiPair::box_box: return "box_box";
    case ToiPair::hull_hull: return "hull_hull";
    case ToiPair::propeller: return "propeller";
  }
  return "?";
}

ToiScene<double> make_toi_scene(ToiPair pair, std::size_t count, std::uint64_t seed) {
  Rng rng(seed ^ (0x2545f4914f6cdd1dull * (static_cast<std::uint64_t>(pair) + 11)));
  ToiScene<double> scene;
  constexpr int kPool = 64;
  if (pair == ToiPair::hull_hull)
    for (int i = 0; i < kPool; ++i) scene.shapes.push_back(random_hull(rng));
  scene.cases.resize(count);
  for (auto& c : scene.cases) {
    if (pair == ToiPair::propeller) {
      const double L = uniform(rng, 1, 2.5), w = uniform(rng, 0.02, 0.08);
      c.a = static_cast<int>(scene.shapes.size());
      scene.shapes.push_back(impact::Box<double>{V3(L, w, w)});
      c.b = static_cast<int>(scene.shapes.size());
      scene.shapes.push_back(random_box(rng, 0.03, 0.15));
      for (;;) {
        c.ma.pose.position = V3(uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5));
        c.ma.pose.rotation = random_rotation(rng);
        // Spin about the blade's local z (perpendicular to its length x): the disc is its x–y plane.
        const V3 axis = c.ma.pose.rotation * V3::UnitZ();
        const double turns = uniform(rng, 0.25, 3);
        c.ma.angular_velocity = (rng() & 1 ? 1.0 : -1.0) * 2 * kPi * turns * axis;
        c.ma.linear_velocity = V3(uniform(rng, -0.2, 0.2), uniform(rng, -0.2, 0.2), uniform(rng, -0.2, 0.2));
        // B crosses the disc plane at time tc, at radius rho, angle phi in the disc.
        const double tc = uniform(rng, 0.1, 0.9), rho = uniform(rng, 0.1, 1.1) * L, phi = uniform(rng, 0, 2 * kPi);
        const V3 ex = c.ma.pose.rotation * V3::UnitX(), ey = c.ma.pose.rotation * V3::UnitY();
        const V3 cross_point = c.ma.pose.position + tc * c.ma.linear_velocity + rho * (std::cos(phi) * ex + std::sin(phi) * ey);
        const V3 drift = uniform(rng, 0, 0.5) * perpendicular(axis, rng);
        const V3 vb = (rng() & 1 ? 1.0 : -1.0) * uniform(rng, 0.5, 4) * axis + drift;
        c.mb.linear_velocity = vb;
        c.mb.pose.position = cross_point - tc * vb;
        c.mb.pose.rotation = random_rotation(rng);
        c.mb.angular_velocity = uniform(rng, 0, kPi) * unit_vector(rng);
        if (gap_at_start(scene.shapes[c.a], c.ma, scene.shapes[c.b], c.mb) >= 1e-3) break;
      }
      continue;
    }
    if (pair == ToiPair::box_box) {
      c.a = static_cast<int>(scene.shapes.size());
      scene.shapes.push_back(random_box(rng, 0.1, 1));
      c.b = static_cast<int>(scene.shapes.size());
      scene.shapes.push_back(random_box(rng, 0.1, 1));
    } else {
      c.a = static_cast<int>(rng() % kPool);
      c.b = static_cast<int>(rng() % kPool);
    }
    const auto& sa = scene.shapes[c.a];
    const auto& sb = scene.shapes[c.b];
    for (;;) {
      c.ma.pose.position = V3(uniform(rng, -5, 5), uniform(rng, -5, 5), uniform(rng, -5, 5));
      c.ma.pose.rotation = random_rotation(rng);
      c.mb.pose.rotation = random_rotation(rng);
      const V3 u = unit_vector(rng);
      double lo = 0, hi = impact::bounding_radius(sa) + impact::bounding_radius(sb) + 1e-9;
      for (int k = 0; k < 60 && hi - lo > 1e-13 * hi; ++k) {
        const double mid = 0.5 * (lo + hi);
        c.mb.pose.position = c.ma.pose.position + mid * u;
        (impact::intersect(sa, c.ma.pose, sb, c.mb.pose).status == impact::Status::intersecting ? lo : hi) = mid;
      }
      const double tstar = 0.5 * (lo + hi);
      const double f = uniform(rng, 1.05, 2.5), g = uniform(rng, 0.3, 1.5);
      c.mb.pose.position = c.ma.pose.position + f * tstar * u;
      const V3 drift(uniform(rng, -2, 2), uniform(rng, -2, 2), uniform(rng, -2, 2));
      c.ma.linear_velocity = drift;
      c.mb.linear_velocity = drift - g * f * tstar * u + uniform(rng, 0, 0.5) * tstar * perpendicular(u, rng);
      c.ma.angular_velocity = uniform(rng, 0, kPi) * unit_vector(rng);
      c.mb.angular_velocity = uniform(rng, 0, kPi) * unit_vector(rng);
      if (gap_at_start(sa, c.ma, sb, c.mb) >= 1e-3) break;
    }
  }
  return scene;
}

ToiScene<float> to_float(const ToiScene<double>& scene) {
  ToiScene<float> out;
  for (const auto& s : scene.shapes) out.shapes.push_back(impact::convert_shape<float>(s));
  auto conv = [](const impact::Motion<double>& m) {
    impact::Motion<float> f;
    f.pose = m.pose.cast<float>();
    f.pose.rotation.normalize();
    f.linear_velocity = m.linear_velocity.cast<float>();
    f.angular_velocity = m.angular_velocity.cast<float>();
    return f;
  };
  for (const auto& c : scene.cases) out.cases.push_back({c.a, c.b, conv(c.ma), conv(c.mb)});
  return out;
}

ToiSceneDesc describe(const ToiScene<double>& scene) {
  Scene<double> shapes_only;
  shapes_only.shapes = scene.shapes;
  ToiSceneDesc out;
  out.shapes = describe(shapes_only).shapes;
  auto conv = [](const impact::Motion<double>& m) {
    MotionDesc d;
    d.pose.position = {m.pose.position.x(), m.pose.position.y(), m.pose.position.z()};
    d.pose.quat_wxyz = {m.pose.rotation.w(), m.pose.rotation.x(), m.pose.rotation.y(), m.pose.rotation.z()};
    d.linear_velocity = {m.linear_velocity.x(), m.linear_velocity.y(), m.linear_velocity.z()};
    d.angular_velocity = {m.angular_velocity.x(), m.angular_velocity.y(), m.angular_velocity.z()};
    return d;
  };
  for (const auto& c : scene.cases) out.cases.push_back({c.a, c.b, conv(c.ma), conv(c.mb)});
  return out;
}

}  // namespace impact_bench
