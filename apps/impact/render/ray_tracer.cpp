// impact — render/ray_tracer.cpp: primary and shadow rays through the library's casts, adaptive
// anti-aliasing, tiles in parallel, PNG output. See ray_tracer.hpp.
#include "ray_tracer.hpp"

#include "item_tree.hpp"

#include <impact/cast.hpp>

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/task_arena.h>
#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>

namespace impact::render {
namespace {

/// Tiles are kTile × kTile pixels: small enough to balance two to dozens of cores, large enough
/// that scheduling is a small part of a tile's work.
constexpr int kTile = 32;
/// Most see-through layers (faded copies) a ray composites; farther ones are not drawn.
constexpr int kMaxLayers = 8;

struct Hit {
  int item = -1;
  double lambda = 0;
  Vec3<double> normal = Vec3<double>::Zero();
};

/// One cast against one item, closer than `reach` (a unit-length direction: λ is a distance).
/// `target` is the item's shape at its pose, prepared once per picture (convex items).
bool cast_item(const Item& it, const RayTarget<double>& target, const Vec3<double>& o, const Vec3<double>& d,
               double reach, Hit& out) {
  switch (it.kind) {
    case Item::Kind::convex: {
      RayCastOptions<double> opt;
      opt.max_lambda = reach;
      const RayHit<double> h = target.cast(Ray<double>{o, d}, opt);
      // A ray starting inside a shape (initially_overlapping) does not see it; a capped cast
      // (max_iterations) gives only a lower bound: neither is drawn.
      if (h.status != Status::hit || !(h.lambda < reach)) return false;
      out.lambda = h.lambda;
      out.normal = h.normal;
      return true;
    }
    case Item::Kind::mesh: {
      MeshRayOptions<double> opt;
      opt.max_lambda = reach;
      opt.back_faces = BackFaces::collide;  // both sides of a surface are drawn
      const Ray<double> local{it.pose.apply_inverse(o), it.pose.rotation.conjugate() * d};
      const MeshRayHit<double> h = mesh_ray_cast(*it.mesh, local, opt);
      if (h.status != Status::hit || !(h.lambda < reach)) return false;
      out.lambda = h.lambda;
      out.normal = it.pose.rotation * h.normal;
      return true;
    }
    case Item::Kind::level: {
      MeshRayOptions<double> opt;
      opt.max_lambda = reach;
      // Rooms face inward: walls and ceilings seen from outside are not drawn (a cut-away view).
      opt.back_faces = BackFaces::ignore;
      const LevelRayHit<double> h = level_ray_cast(*it.level, Ray<double>{o, d}, opt);
      if (h.hit.status != Status::hit || !(h.hit.lambda < reach)) return false;
      out.lambda = h.hit.lambda;
      out.normal = h.hit.normal;
      return true;
    }
  }
  return false;
}

class Tracer {
 public:
  explicit Tracer(const Scene& s) : scene_(s), tree_(boxes(s)), camera_(s) {
    targets_.reserve(s.items.size());
    for (const Item& it : s.items) targets_.emplace_back(it.shape, it.pose);
    const Box3& b = tree_.bounds();
    scale_ = b.empty() ? 1.0 : std::max(1e-9, (b.hi - b.lo).norm());
    reach_ = 4 * scale_ + (s.camera.position - (b.empty() ? s.camera.position : Vec3<double>(0.5 * (b.lo + b.hi)))).norm();
    world_up_ = s.camera.up.normalized();
    for (const Light& l : s.lights) to_light_.push_back(Vec3<double>(-l.direction.normalized()));
  }

  /// The unit ray through the picture point (x, y).
  [[nodiscard]] Vec3<double> direction(double x, double y) const { return camera_.ray(x, y); }

  /// The nearest item along the ray.
  [[nodiscard]] Hit nearest(const Vec3<double>& o, const Vec3<double>& d) const {
    Hit best;
    double reach = reach_;
    bool stop = false;
    tree_.walk(o, d, reach, stop, [&](std::uint32_t id, double& r) {
      Hit h;
      if (cast_item(scene_.items[id], targets_[id], o, d, r, h)) {
        h.item = int(id);
        best = h;
        r = h.lambda;
      }
    });
    return best;
  }

  /// Whether an opaque item blocks the ray within `reach`.
  [[nodiscard]] bool blocked(const Vec3<double>& o, const Vec3<double>& d) const {
    double reach = reach_;
    bool stop = false;
    tree_.walk(o, d, reach, stop, [&](std::uint32_t id, double& r) {
      const Item& it = scene_.items[id];
      if (it.opacity < 1.0f || !it.casts_shadow) return;  // faded copies cast no shadow
      Hit h;
      if (cast_item(it, targets_[id], o, d, r, h)) stop = true;
    });
    return stop;
  }

  /// Whether light l is blocked at surface point p of normal n (facing the light).
  [[nodiscard]] bool in_shadow(const Vec3<double>& p, const Vec3<double>& n, std::size_t l) const {
    // Off the surface by a hair of the scene's size, so the surface does not shadow itself.
    return blocked(Vec3<double>(p + n * (1e-7 * scale_)), to_light_[l]);
  }

  /// Colour seen along the unit ray (linear RGB); `key` summarises what was seen (items and
  /// shadows), for finding the pixels on edges. One walk finds the nearest opaque hit and the
  /// kMaxLayers nearest faded ones in front of it; they are composited front to back.
  Color trace(const Vec3<double>& o, const Vec3<double>& d, std::uint64_t& key, std::uint64_t& shadow_rays) const {
    Hit opaque;
    Hit layers[kMaxLayers];
    int n = 0;
    double reach = reach_;
    bool stop = false;
    tree_.walk(o, d, reach, stop, [&](std::uint32_t id, double& r) {
      const Item& it = scene_.items[id];
      Hit h;
      if (!cast_item(it, targets_[id], o, d, r, h)) return;
      h.item = int(id);
      if (it.opacity >= 1.0f) {
        opaque = h;
        r = h.lambda;
        return;
      }
      // A faded hit: keep the kMaxLayers nearest, sorted (insertion; the list is short).
      if (n == kMaxLayers && h.lambda >= layers[n - 1].lambda) return;
      int k = n < kMaxLayers ? n++ : n - 1;
      while (k > 0 && layers[k - 1].lambda > h.lambda) {
        layers[k] = layers[k - 1];
        --k;
      }
      layers[k] = h;
    });
    Color acc = Color::Zero();
    float weight = 1.0f;
    key = 0;
    for (int i = 0; i <= n; ++i) {
      const bool last = i == n;
      const Hit& h = last ? opaque : layers[i];
      if (!last && h.lambda >= opaque.lambda && opaque.item >= 0) continue;  // behind the opaque hit
      if (h.item < 0) {
        acc += weight * scene_.background;
        key = key * 1000003u + 1;
        break;
      }
      const Item& it = scene_.items[h.item];
      std::uint64_t shadows = 0;
      const Color c = shade(it, Vec3<double>(o + h.lambda * d), h.normal, d, shadows, shadow_rays);
      const float a = last ? 1.0f : it.opacity;
      acc += weight * a * c;
      weight *= 1.0f - a;
      key = (key * 1000003u + std::uint64_t(h.item) + 2) * 1009u + shadows;
      if (weight < 1.0f / 512) break;
    }
    return acc;
  }

  /// Lambert shading with a sky term and shadow rays toward each light.
  Color shade(const Item& it, const Vec3<double>& p, Vec3<double> n, const Vec3<double>& d, std::uint64_t& shadows,
              std::uint64_t& shadow_rays) const {
    if (n.dot(d) > 0) n = -n;  // the side facing the camera (open meshes, triangles)
    float light = scene_.ambient * float(0.75 + 0.25 * n.dot(world_up_));
    for (std::size_t l = 0; l < to_light_.size(); ++l) {
      const double ndl = n.dot(to_light_[l]);
      if (ndl <= 0) continue;
      if (scene_.lights[l].shadows) {
        ++shadow_rays;
        if (in_shadow(p, n, l)) {
          shadows |= std::uint64_t(1) << (l & 63);
          continue;
        }
      }
      light += scene_.lights[l].intensity * float(ndl);
    }
    return it.color * light;
  }

  [[nodiscard]] const Scene& scene() const { return scene_; }
  [[nodiscard]] double reach() const { return reach_; }

 private:
  static std::vector<Box3> boxes(const Scene& s) {
    std::vector<Box3> b;
    b.reserve(s.items.size());
    for (const Item& it : s.items) b.push_back(world_box(it));
    return b;
  }
  const Scene& scene_;
  std::vector<RayTarget<double>> targets_;  ///< Each item's shape at its pose (used for convex items).
  ItemTree tree_;
  double scale_ = 1, reach_ = 1;
  CameraFrame camera_;
  Vec3<double> world_up_;
  std::vector<Vec3<double>> to_light_;
};

/// The sRGB byte of a linear intensity by its formula (IEC 61966-2-1).
std::uint8_t srgb_formula(float linear) {
  const float c = std::clamp(linear, 0.0f, 1.0f);
  const float s = c <= 0.0031308f ? 12.92f * c : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
  return static_cast<std::uint8_t>(std::lround(s * 255.0f));
}

}  // namespace

/// The formula's byte by a table and one comparison. below[b] is the least float whose byte is
/// b or more (found once by bisection over the floats of [0, 1], where the formula never
/// decreases); first[i] is the byte at i/4096. The formula's steepest slope is 0.8 byte per 1/4096
/// (at the foot of its power segment), so inside one such bin the byte is first[i] or one more. A
/// picture's every pixel goes through here: the formula's pow was 2% of a render, a search of the
/// 256 thresholds 9%.
std::uint8_t srgb_byte(float linear) {
  constexpr int kBins = 4096;
  struct Table {
    std::array<float, 257> below{};
    std::array<std::uint8_t, kBins> first{};
  };
  static const Table table = [] {
    Table t;
    for (int b = 1; b < 256; ++b) {
      std::uint32_t lo = 0, hi = std::bit_cast<std::uint32_t>(1.0f);  // formula(1) = 255 ≥ b
      while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (srgb_formula(std::bit_cast<float>(mid)) >= b) hi = mid;
        else lo = mid + 1;
      }
      t.below[std::size_t(b)] = std::bit_cast<float>(lo);
    }
    t.below[0] = -std::numeric_limits<float>::infinity();
    t.below[256] = std::numeric_limits<float>::infinity();
    for (int i = 0; i < kBins; ++i) t.first[std::size_t(i)] = srgb_formula(float(i) / kBins);
    return t;
  }();
  if (!(linear >= 0.0f)) return 0;  // negative or NaN
  if (linear >= 1.0f) return 255;
  const int b = table.first[std::size_t(linear * float(kBins))];  // exact: a power of two
  return static_cast<std::uint8_t>(b + (table.below[std::size_t(b) + 1] <= linear));
}

namespace {

/// A progress bar on standard error, drawn once the render has run a second and only on a
/// terminal; one thread draws at a time, the others do not wait for it.
class Progress {
 public:
  Progress(bool wanted, int total) : on_(wanted && isatty(2)), total_(total), start_(std::chrono::steady_clock::now()) {}
  void tick() {
    const int done = ++done_;
    if (!on_) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (s < 1.0) return;
    std::unique_lock lock(m_, std::try_to_lock);
    if (!lock) return;
    const int width = 40, filled = width * done / total_;
    std::fprintf(stderr, "\rrender [%.*s%*s] %3d%%  %.1f s", filled, "########################################",
                 width - filled, "", 100 * done / total_, s);
    drawn_ = true;
  }
  ~Progress() {
    if (drawn_) std::fprintf(stderr, "\n");
  }

 private:
  bool on_;
  int total_;
  std::atomic<int> done_{0};
  std::mutex m_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

bool finite_in(const Color& c, float lo, float hi) {
  for (int k = 0; k < 3; ++k)
    if (!(c[k] >= lo && c[k] <= hi)) return false;
  return true;
}
bool finite(const Vec3<double>& v) { return v.allFinite(); }

}  // namespace

CameraFrame::CameraFrame(const Scene& s)
    : forward_((s.camera.look_at - s.camera.position).normalized()),
      right_(forward_.cross(s.camera.up).normalized()),
      up_(right_.cross(forward_)),
      tan_half_(std::tan(s.camera.fov_degrees * M_PI / 360.0)),
      aspect_(double(s.width) / double(s.height)),
      width_(s.width),
      height_(s.height) {}

std::string check_scene(const Scene& s) {
  auto side = [](int v) { return v >= 1 && v <= Scene::kMaxSide; };
  if (!side(s.width)) return "image.width: expected 1.." + std::to_string(Scene::kMaxSide);
  if (!side(s.height)) return "image.height: expected 1.." + std::to_string(Scene::kMaxSide);
  if (s.samples < 1 || s.samples > Scene::kMaxSamples) return "image.samples: expected 1.." + std::to_string(Scene::kMaxSamples);
  const Camera& c = s.camera;
  if (!finite(c.position)) return "camera.position: not finite";
  if (!finite(c.look_at)) return "camera.look_at: not finite";
  if (!finite(c.up)) return "camera.up: not finite";
  if (!(c.fov_degrees > 0 && c.fov_degrees < 180)) return "camera.fov_degrees: expected a number in (0, 180)";
  const Vec3<double> view = c.look_at - c.position;
  if (!(view.norm() > 0)) return "camera.look_at: the same point as camera.position";
  if (!(view.normalized().cross(c.up).norm() > 1e-6 * c.up.norm())) return "camera.up: zero or along the view direction";
  for (std::size_t i = 0; i < s.lights.size(); ++i) {
    const std::string at = "lights." + std::to_string(i);
    if (!finite(s.lights[i].direction) || !(s.lights[i].direction.norm() > 0)) return at + ".direction: zero or not finite";
    if (!(s.lights[i].intensity >= 0 && s.lights[i].intensity <= 1e6)) return at + ".intensity: expected 0..1e6";
  }
  if (s.lights.size() > 32) return "lights: at most 32";
  if (!(s.ambient >= 0 && s.ambient <= 1e6)) return "ambient: expected 0..1e6";
  if (!finite_in(s.background, 0, 1)) return "background: expected [r, g, b] in [0, 1]";
  if (s.items.size() > Scene::kMaxItems) return "objects: more than " + std::to_string(Scene::kMaxItems) + " items";
  for (std::size_t i = 0; i < s.items.size(); ++i) {
    const Item& it = s.items[i];
    const std::string at = "objects." + std::to_string(i);
    if (!finite_in(it.color, 0, 1)) return at + ".color: expected [r, g, b] in [0, 1]";
    if (!(it.opacity > 0 && it.opacity <= 1)) return at + ".opacity: expected (0, 1]";
    if (it.kind == Item::Kind::convex) {
      if (auto e = validate(it.shape); !e.empty()) return at + ".shape: " + e;
      if (!finite(it.pose.position) || !it.pose.rotation.coeffs().allFinite()) return at + ".pose: not finite";
    } else if (it.kind == Item::Kind::mesh && !it.mesh) {
      return at + ".mesh: missing";
    } else if (it.kind == Item::Kind::level && !it.level) {
      return at + ".level: missing";
    }
  }
  return "";
}

Image render(const Scene& scene, const RenderOptions& options, RenderStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  const Tracer tracer(scene);
  const int w = scene.width, h = scene.height, s = scene.samples;
  const int tiles_x = (w + kTile - 1) / kTile, tiles_y = (h + kTile - 1) / kTile, tiles = tiles_x * tiles_y;
  // The picture is written in place: pass 1 writes every pixel, pass 2 rewrites the edge pixels.
  // The keys (what each pixel saw) are kept only when pass 2 needs them.
  Image img;
  img.width = w;
  img.height = h;
  img.rgb.resize(std::size_t(w) * h * 3);
  auto put = [&](std::size_t i, const Color& c) {
    for (int k = 0; k < 3; ++k) img.rgb[3 * i + std::size_t(k)] = srgb_byte(c[k]);
  };
  std::vector<std::uint64_t> key(s > 1 ? std::size_t(w) * h : 0);
  std::atomic<std::uint64_t> primary{0}, shadow{0}, edges{0};
  Progress progress(options.progress, 2 * tiles);
  const Vec3<double> eye = scene.camera.position;

  auto for_tiles = [&](auto&& body) {
    tbb::parallel_for(tbb::blocked_range<int>(0, tiles, 1), [&](const tbb::blocked_range<int>& r) {
      for (int t = r.begin(); t < r.end(); ++t) {
        const int x0 = (t % tiles_x) * kTile, y0 = (t / tiles_x) * kTile;
        body(x0, y0, std::min(w, x0 + kTile), std::min(h, y0 + kTile));
        progress.tick();
      }
    });
  };
  const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
  tbb::task_arena arena(threads);
  arena.execute([&] {
    // Pass 1: each pixel's centre.
    for_tiles([&](int x0, int y0, int x1, int y1) {
      std::uint64_t sh = 0, unused = 0;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
          const std::size_t i = std::size_t(y) * w + x;
          put(i, tracer.trace(eye, tracer.direction(x + 0.5, y + 0.5), key.empty() ? unused : key[i], sh));
        }
      primary += std::uint64_t(x1 - x0) * (y1 - y0);
      shadow += sh;
    });
    // Pass 2: pixels whose 3×3 neighbourhood saw different things get s × s samples.
    for_tiles([&](int x0, int y0, int x1, int y1) {
      if (s <= 1) return;
      std::uint64_t sh = 0, rays = 0, n_edge = 0;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
          const std::size_t i = std::size_t(y) * w + x;
          bool differs = false;
          for (int dy = -1; dy <= 1 && !differs; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int nx = x + dx, ny = y + dy;
              if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
              if (key[std::size_t(ny) * w + nx] != key[i]) {
                differs = true;
                break;
              }
            }
          if (!differs) continue;
          ++n_edge;
          Color sum = Color::Zero();
          std::uint64_t k = 0;
          for (int sy = 0; sy < s; ++sy)
            for (int sx = 0; sx < s; ++sx) sum += tracer.trace(eye, tracer.direction(x + (sx + 0.5) / s, y + (sy + 0.5) / s), k, sh);
          rays += std::uint64_t(s) * s;
          put(i, sum / float(s * s));
        }
      primary += rays;
      shadow += sh;
      edges += n_edge;
    });
  });
  if (stats) {
    stats->primary_rays = primary;
    stats->shadow_rays = shadow;
    stats->edge_pixels = edges;
    stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return img;
}

Probe probe(const Scene& scene, double x, double y) {
  const Tracer tracer(scene);
  const Vec3<double> d = tracer.direction(x, y);
  const Hit h = tracer.nearest(scene.camera.position, d);
  Probe p;
  if (h.item < 0) return p;
  p.item = h.item;
  p.distance = h.lambda;
  p.point = scene.camera.position + h.lambda * d;
  p.normal = h.normal.dot(d) > 0 ? Vec3<double>(-h.normal) : h.normal;
  if (!scene.lights.empty())
    p.shadowed = p.normal.dot(-scene.lights[0].direction.normalized()) > 0 && tracer.in_shadow(p.point, p.normal, 0);
  return p;
}

std::string write_png(const Image& image, const std::string& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&png, path.c_str(), 0, image.rgb.data(), 0, nullptr)) {
    std::string e = png.message;
    png_image_free(&png);
    return path + ": " + e;
  }
  return "";
}

std::string read_png(const std::string& path, Image& image) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) return path + ": " + png.message;
  png.format = PNG_FORMAT_RGB;
  image.width = int(png.width);
  image.height = int(png.height);
  image.rgb.assign(PNG_IMAGE_SIZE(png), 0);
  if (!png_image_finish_read(&png, nullptr, image.rgb.data(), 0, nullptr)) {
    std::string e = png.message;
    png_image_free(&png);
    return path + ": " + e;
  }
  return "";
}

}  // namespace impact::render
