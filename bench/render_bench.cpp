// impact benchmarks — render_bench.cpp: issue 20's rendering benchmark. A scene of 1,000
// support-mapped shapes of every solid type (sphere, box, capsule, cylinder, cone, hull, Minkowski
// sum of a box and a ball, triangle) drawn by impact's ray tracer (apps/impact/render: one
// `ray_cast` per candidate shape behind the item tree) beside Embree (rtcIntersect1) on the same
// shapes tessellated: boxes and triangles exactly, every other shape by an icosphere of 5,120
// triangles projected radially onto its surface (each vertex is the shape's boundary point along a
// ray toward its centre, found by impact's ray cast). Both trace the same primary rays, one per
// pixel centre, on one thread, no shadows.
//
//   render/shapes_1000/impact   ns per primary ray (a whole 640 × 360 picture, tree build included)
//   render/shapes_1000/embree   ns per primary ray (the same rays through rtcIntersect1; scene prebuilt)
// Counters: triangles (Embree's scene), pixel_diff (pixels whose hit/miss differs between the two:
// the tessellation's error along silhouettes), rays.
//
//   cmake --build build/release --target impact_render_bench -j2 && ./build/release/bench/impact_render_bench
#include "mesh_peers.hpp"
#include "mesh_scenes.hpp"
#include "render/ray_tracer.hpp"

#include <impact/cast.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <random>

namespace {

using impact::render::Scene;
using V = impact::Vec3<double>;

constexpr int kWidth = 640, kHeight = 360, kShapes = 1000, kIcoLevel = 4;

Scene shapes_scene() {
  Scene s;
  s.width = kWidth;
  s.height = kHeight;
  s.samples = 1;
  s.lights.clear();  // primary rays only
  s.ambient = 1.0f;
  s.background = impact::render::Color(0, 0, 1);
  std::mt19937_64 rng(1000);
  std::uniform_real_distribution<double> u(-1, 1);
  auto unit = [&] {
    V v(u(rng), u(rng), u(rng));
    while (v.squaredNorm() > 1 || v.squaredNorm() < 1e-3) v = V(u(rng), u(rng), u(rng));
    return V(v.normalized());
  };
  auto box = std::make_shared<const impact::Shape<double>>(impact::Box<double>{V(0.25, 0.15, 0.1)});
  auto ball = std::make_shared<const impact::Shape<double>>(impact::Sphere<double>{0.1});
  for (int i = 0; i < kShapes; ++i) {
    const double k = 0.3 + 0.2 * std::abs(u(rng));
    impact::Shape<double> shape;
    switch (i % 8) {
      case 0: shape = impact::Sphere<double>{k}; break;
      case 1: shape = impact::Box<double>{V(k, 0.7 * k, 0.5 * k)}; break;
      case 2: shape = impact::Capsule<double>{0.5 * k, 0.7 * k}; break;
      case 3: shape = impact::Cylinder<double>{0.7 * k, 0.6 * k}; break;
      case 4: shape = impact::Cone<double>{0.7 * k, 0.8 * k}; break;
      case 5: {
        std::vector<V> pts;
        for (int p = 0; p < 24; ++p) pts.push_back(V(unit().cwiseProduct(V(k, 0.8 * k, 0.7 * k))));
        shape = impact::Hull<double>::build(pts).hull;
        break;
      }
      case 6: shape = impact::MinkowskiShape<double>{box, ball}; break;
      default: shape = impact::Triangle<double>{V(-k, -k, 0), V(k, -0.5 * k, 0), V(0, k, 0.2 * k)};
    }
    impact::Pose<double> p;
    p.position = V(12 * u(rng), 12 * u(rng), 4 * u(rng));
    p.rotation = impact::Quat<double>(u(rng), u(rng), u(rng), u(rng)).normalized();
    s.add_shape(shape, p, impact::render::palette(i));
  }
  s.camera.position = V(0, -30, 14);
  s.camera.look_at = V(0, 0, 0);
  s.camera.fov_degrees = 45;
  return s;
}

/// The scene's shapes as triangles (see the file's comment).
impact_bench::MeshDesc tessellate(const Scene& s) {
  impact_bench::MeshDesc m;
  const impact_scenes::MeshData ico = impact_scenes::icosphere(kIcoLevel, 1.0);  // unit directions
  auto put = [&](const V& p) {
    m.vertices.push_back({float(p.x()), float(p.y()), float(p.z())});
    return std::uint32_t(m.vertices.size() - 1);
  };
  for (const auto& it : s.items) {
    const auto base = std::uint32_t(m.vertices.size());
    if (const auto* b = std::get_if<impact::Box<double>>(&it.shape.variant())) {
      for (int c = 0; c < 8; ++c)
        put(it.pose.apply(V(c & 1 ? b->half_extents.x() : -b->half_extents.x(), c & 2 ? b->half_extents.y() : -b->half_extents.y(),
                            c & 4 ? b->half_extents.z() : -b->half_extents.z())));
      const std::uint32_t f[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                      {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
      for (const auto& t : f) m.triangles.push_back({base + t[0], base + t[1], base + t[2]});
    } else if (const auto* t = std::get_if<impact::Triangle<double>>(&it.shape.variant())) {
      put(it.pose.apply(t->a));
      put(it.pose.apply(t->b));
      put(it.pose.apply(t->c));
      m.triangles.push_back({base, base + 1, base + 2});
    } else {
      const V c = it.pose.apply(impact::interior_point(it.shape));
      const double r = 2 * (impact::bounding_radius(it.shape) + 1);
      for (const V& d : ico.vertices) {
        impact::RayCastOptions<double> opt;
        opt.max_lambda = 1;
        const auto h = impact::ray_cast(it.shape, it.pose, impact::Ray<double>{V(c + r * d), V(-2 * r * d)}, opt);
        put(h.status == impact::Status::hit ? h.point : c);
      }
      for (const auto& f : ico.triangles) m.triangles.push_back({base + f[0], base + f[1], base + f[2]});
    }
  }
  return m;
}

struct Fixture {
  Scene scene = shapes_scene();
  impact_bench::MeshDesc mesh = tessellate(scene);
  impact_bench::EmbreePeer embree{mesh};
  std::vector<impact_bench::SegmentDesc> rays;
  int pixel_diff = 0;
  Fixture() {
    // The renderer's own camera rays, one per pixel centre.
    const auto& c = scene.camera;
    const impact::render::CameraFrame camera(scene);
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x) {
        const V d = camera.ray(x + 0.5, y + 0.5) * 200.0;
        rays.push_back({{float(c.position.x()), float(c.position.y()), float(c.position.z())}, {float(d.x()), float(d.y()), float(d.z())}});
      }
    const impact::render::Image img = impact::render::render(scene, {.threads = 1});
    for (int y = 0; y < kHeight; ++y)
      for (int x = 0; x < kWidth; ++x) {
        const auto* p = img.pixel(x, y);
        const bool ours = !(p[0] == 0 && p[1] == 0 && p[2] == 255);
        std::uint32_t tri = 0;
        const bool theirs = embree.ray(rays[std::size_t(y) * kWidth + x], tri) >= 0;
        pixel_diff += ours != theirs;
      }
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

void impact_render(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) {
    const impact::render::Image img = impact::render::render(f.scene, {.threads = 1});
    benchmark::DoNotOptimize(img.rgb.data());
  }
  const double rays = double(kWidth) * kHeight;
  state.counters["ns_per_ray"] = benchmark::Counter(rays * double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["rays"] = rays;
  state.counters["shapes"] = double(f.scene.items.size());
}

void embree_render(benchmark::State& state) {
  Fixture& f = fixture();
  for (auto _ : state) {
    std::uint32_t hits = 0;
    for (const auto& r : f.rays) {
      std::uint32_t tri = 0;
      hits += f.embree.ray(r, tri) >= 0;
    }
    benchmark::DoNotOptimize(hits);
  }
  const double rays = double(f.rays.size());
  state.counters["ns_per_ray"] = benchmark::Counter(rays * double(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["triangles"] = double(f.mesh.triangles.size());
  state.counters["pixel_diff"] = f.pixel_diff;
  state.counters["rays"] = rays;
}

}  // namespace

BENCHMARK(impact_render)->Name("render/shapes_1000/impact")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(embree_render)->Name("render/shapes_1000/embree")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
