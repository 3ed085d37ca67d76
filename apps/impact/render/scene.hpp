// impact — render/scene.hpp: what `impact render` and `impact demo --pictures` draw: convex shapes
// (every shape type, drawn exactly through their support mappings, never tessellated), triangle
// meshes, levels, markers for contact points and normals, under a pinhole camera and directional
// lights. The JSON form of a scene is documented in docs/render.md (render/scene_reader.cpp).
#pragma once

#include <impact/level.hpp>
#include <impact/mesh.hpp>
#include <impact/shapes.hpp>
#include <impact/toi.hpp>
#include <impact/world.hpp>

#include <Eigen/Core>

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace impact::render {

using Color = Eigen::Vector3f;  ///< Linear RGB, each channel in [0, 1].

/// The colour of contact markers unless a scene says otherwise.
inline const Color kMarkerColor{0.85f, 0.10f, 0.10f};

/// A pinhole camera.
struct Camera {
  Vec3<double> position{7.0, -9.0, 5.0};  ///< Eye (world, length).
  Vec3<double> look_at{0.0, 0.0, 0.0};    ///< The point at the picture's centre.
  Vec3<double> up{0.0, 0.0, 1.0};         ///< Up in the picture (need not be orthogonal to the view).
  double fov_degrees = 40;                ///< Vertical field of view, in (0, 180).
};

/// A directional light (the sun): parallel rays travelling along `direction`.
struct Light {
  Vec3<double> direction{-0.35, 0.45, -1.0};  ///< Direction the light travels (need not be unit).
  float intensity = 0.85f;                    ///< Scale of its Lambert term.
  bool shadows = true;                        ///< Whether shadow rays are cast toward it.
};

/// One thing in the scene.
struct Item {
  enum class Kind { convex, mesh, level };
  Kind kind = Kind::convex;
  Shape<double> shape;                               ///< kind == convex: the shape (local frame).
  Pose<double> pose;                                 ///< convex and mesh: local-to-world placement.
  std::shared_ptr<const TriangleMesh<double>> mesh;  ///< kind == mesh: a built mesh (local frame).
  std::shared_ptr<const Level<double>> level;        ///< kind == level: a built level (world frame).
  Color color{0.8f, 0.8f, 0.8f};                     ///< Diffuse colour.
  /// 1: opaque. Below 1 the item is a faded copy (a body earlier on its path): seen through with
  /// this weight, and casts no shadow.
  float opacity = 1.0f;
  /// Whether the item blocks shadow rays. Levels do not: their rooms are closed, and a cut-away
  /// view (walls and ceilings seen from behind are not drawn) would otherwise be all in shadow.
  bool casts_shadow = true;
};

/// A scene and its picture settings.
struct Scene {
  int width = 960;    ///< Picture width in pixels, 1..kMaxSide.
  int height = 540;   ///< Picture height in pixels, 1..kMaxSide.
  /// Anti-aliasing: pixels on a silhouette or a shadow's edge are sampled samples × samples times
  /// (stratified, at fixed offsets); the rest once at their centre. 1..kMaxSamples.
  int samples = 3;
  Camera camera;
  std::vector<Light> lights{Light{}};
  float ambient = 0.28f;                 ///< Light reaching every point (a sky from above: 0.7–1 of it).
  Color background{0.90f, 0.93f, 0.97f};  ///< What a ray that hits nothing sees.
  std::vector<Item> items;

  static constexpr int kMaxSide = 16384;
  static constexpr int kMaxSamples = 8;
  static constexpr std::size_t kMaxItems = 1u << 22;

  /// An opaque (or faded) convex shape at a pose.
  void add_shape(Shape<double> shape, const Pose<double>& pose, const Color& color, float opacity = 1.0f);
  /// A shape along its motion: a copy at each of `times` (ascending), the last opaque and the
  /// earlier ones faded (older ones more), so the picture shows the swept path.
  void add_path(const Shape<double>& shape, const Motion<double>& motion, std::span<const double> times,
                const Color& color);
  /// A world body at a pose: its shape, each part of its compound, or its mesh (a mesh is always
  /// opaque).
  void add_body(const WorldBody<double>& body, const Pose<double>& pose, const Color& color, float opacity = 1.0f);
  /// A contact marker: a ball of radius `size` at `point` and, when `normal` is non-zero, an arrow
  /// 8·size long along it.
  void add_marker(const Vec3<double>& point, const Vec3<double>& normal, double size, const Color& color);
  /// A triangle mesh at a pose.
  void add_mesh(std::shared_ptr<const TriangleMesh<double>> mesh, const Pose<double>& pose, const Color& color);
  /// A level (drawn through level_ray_cast, so the walk through rooms and portals is what draws it).
  void add_level(std::shared_ptr<const Level<double>> level, const Color& color);
};

/// Opacity of copy k of n along a path: the last opaque, the earlier ones from 0.2 (the oldest)
/// up to 0.5 (the one before last).
float path_opacity(std::size_t k, std::size_t n);

/// The colour of the i-th body of a scene that colours bodies by index (a fixed palette).
Color palette(std::size_t i);

}  // namespace impact::render
