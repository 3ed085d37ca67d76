// impact — render/scene.cpp: building scenes (paths as faded copies, markers).
#include "scene.hpp"

#include <algorithm>
#include <cmath>

namespace impact::render {

void Scene::add_shape(Shape<double> shape, const Pose<double>& pose, const Color& color, float opacity) {
  Item it;
  it.kind = Item::Kind::convex;
  it.shape = std::move(shape);
  it.pose = pose;
  it.color = color;
  it.opacity = opacity;
  items.push_back(std::move(it));
}

void Scene::add_path(const Shape<double>& shape, const Motion<double>& motion, std::span<const double> times,
                     const Color& color) {
  for (std::size_t i = 0; i < times.size(); ++i) add_shape(shape, motion.at(times[i]), color, path_opacity(i, times.size()));
}

float path_opacity(std::size_t k, std::size_t n) {
  return k + 1 == n ? 1.0f : 0.2f + 0.3f * float(k) / float(std::max<std::size_t>(1, n - 1));
}

void Scene::add_body(const WorldBody<double>& body, const Pose<double>& pose, const Color& color, float opacity) {
  switch (body.kind) {
    case BodyKind::convex: add_shape(body.shape, pose, color, opacity); break;
    case BodyKind::compound:
      for (const auto& part : body.parts) add_shape(part.shape, pose.compose(part.pose), color, opacity);
      break;
    case BodyKind::mesh: add_mesh(body.mesh, pose, color); break;
  }
}

void Scene::add_marker(const Vec3<double>& point, const Vec3<double>& normal, double size, const Color& color) {
  Pose<double> at;
  at.position = point;
  add_shape(Sphere<double>{size}, at, color);
  const double len = normal.norm();
  if (!(len > 0) || !std::isfinite(len)) return;
  const Vec3<double> n = normal / len;
  // The arrow: a shaft (capsule along its local z) and a head (cone, apex along +z).
  const Quat<double> turn = Quat<double>::FromTwoVectors(Vec3<double>::UnitZ(), n);
  Pose<double> shaft;
  shaft.rotation = turn;
  shaft.position = point + n * (3.5 * size);
  add_shape(Capsule<double>{0.35 * size, 3.0 * size}, shaft, color);
  Pose<double> head;
  head.rotation = turn;
  head.position = point + n * (7.0 * size);
  add_shape(Cone<double>{1.0 * size, 1.0 * size}, head, color);
}

void Scene::add_mesh(std::shared_ptr<const TriangleMesh<double>> mesh, const Pose<double>& pose, const Color& color) {
  Item it;
  it.kind = Item::Kind::mesh;
  it.mesh = std::move(mesh);
  it.pose = pose;
  it.color = color;
  items.push_back(std::move(it));
}

void Scene::add_level(std::shared_ptr<const Level<double>> level, const Color& color) {
  Item it;
  it.kind = Item::Kind::level;
  it.level = std::move(level);
  it.color = color;
  it.casts_shadow = false;
  items.push_back(std::move(it));
}

Color palette(std::size_t i) {
  static const Color colors[] = {
      {0.86f, 0.37f, 0.30f}, {0.25f, 0.55f, 0.85f}, {0.95f, 0.72f, 0.25f}, {0.35f, 0.70f, 0.45f},
      {0.62f, 0.45f, 0.80f}, {0.30f, 0.75f, 0.78f}, {0.90f, 0.55f, 0.70f}, {0.60f, 0.60f, 0.35f},
  };
  return colors[i % std::size(colors)];
}

}  // namespace impact::render
