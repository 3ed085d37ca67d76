// impact — render/ray_tracer.hpp: pictures of scenes, ray traced through the library's own casts.
//
// van den Bergen (2004) closes with this application: a support mapping is all a ray needs, so
// convex shapes are drawn exactly, with no tessellation. Every primary ray and every shadow ray is
// one `ray_cast` per candidate shape (closed forms for the primitives and hulls, the GJK ray cast
// for Minkowski sums and the rest), `mesh_ray_cast` for meshes (their tree of bins) and
// `level_ray_cast` for levels (the walk through rooms and portals), behind a bounding-volume tree
// over the scene's items (item_tree.hpp).
//
// The picture is cut into 32×32 tiles rendered in parallel (oneTBB). Every pixel's value depends
// on the scene and its own position only, so the pixels are identical for any thread count.
// Anti-aliasing is adaptive and deterministic: a first pass samples each pixel's centre; a pixel
// whose item or shadow differs from one of its 8 neighbours' is then sampled samples × samples
// times at fixed stratified offsets.
#pragma once

#include "scene.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace impact::render {

/// An 8-bit sRGB picture, rows from the top.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  ///< width × height × 3 bytes.
  [[nodiscard]] const std::uint8_t* pixel(int x, int y) const { return &rgb[3 * (std::size_t(y) * width + x)]; }
};

/// What a render did.
struct RenderStats {
  std::uint64_t primary_rays = 0;  ///< Camera rays (first pass plus the anti-aliasing samples).
  std::uint64_t shadow_rays = 0;   ///< Rays toward the lights.
  std::uint64_t edge_pixels = 0;   ///< Pixels that got the anti-aliasing samples.
  double seconds = 0;              ///< Wall time of the render (tree build included).
};

struct RenderOptions {
  int threads = 0;        ///< Worker threads; 0: every core. The pixels do not depend on it.
  bool progress = false;  ///< Draw a progress bar on standard error once a render passes 1 s.
};

/// The camera's rays: a pinhole at camera.position, vertical field of view, picture point (x, y)
/// in pixels from the top-left corner (a pixel's centre is x + ½, y + ½).
class CameraFrame {
 public:
  explicit CameraFrame(const Scene& scene);
  /// The unit direction of the ray through picture point (x, y).
  [[nodiscard]] Vec3<double> ray(double x, double y) const {
    const double sx = (2 * x / width_ - 1) * tan_half_ * aspect_;
    const double sy = (1 - 2 * y / height_) * tan_half_;
    return Vec3<double>(forward_ + sx * right_ + sy * up_).normalized();
  }

 private:
  Vec3<double> forward_, right_, up_;
  double tan_half_, aspect_;
  int width_, height_;
};

/// Renders the scene. The scene must have passed `check_scene`.
Image render(const Scene& scene, const RenderOptions& options = {}, RenderStats* stats = nullptr);

/// "" when the scene can be rendered, else the offending field ("camera.fov_degrees: ...").
std::string check_scene(const Scene& scene);

/// The first item along a ray (the item index, or −1), and where: what a pixel at the picture's
/// (x, y) sees through its centre. For tests and for `impact render --probe`.
struct Probe {
  int item = -1;
  double distance = 0;                            ///< Along the unit ray from the camera.
  Vec3<double> point = Vec3<double>::Zero();      ///< World hit point.
  Vec3<double> normal = Vec3<double>::Zero();     ///< Unit normal, facing the camera.
  bool shadowed = false;                          ///< Whether the first light is blocked there.
};
Probe probe(const Scene& scene, double x, double y);

/// The 8-bit sRGB value of a linear intensity (IEC 61966-2-1, clamped to [0, 1]; NaN gives 0).
std::uint8_t srgb_byte(float linear);

/// Writes an 8-bit RGB PNG (libpng). Returns "" or what went wrong.
std::string write_png(const Image& image, const std::string& path);
/// Reads a PNG as 8-bit RGB (libpng converts other formats). Returns "" or what went wrong.
std::string read_png(const std::string& path, Image& image);

}  // namespace impact::render
