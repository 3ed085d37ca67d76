// impact — demo_pictures.cpp: `impact demo --pictures DIR`: the demo's scenes drawn by the ray
// tracer (render/ray_tracer.hpp), each from the same queries the text part of the demo runs:
// - shapes.png: a shape of every type (Minkowski sum and hull included), drawn exactly;
// - bullet.png: the bullet and the thin wall; faded copies where a discrete engine looks (t = 0
//   and t = 1, both clear of the wall) and the bullet stopped at the cast's time of impact, with
//   the contact point and normal;
// - blade.png: the spinning blade's disc (faded copies over the step), the ball's path, and both
//   at our time of impact under rotation with its contact (the paper's acceptance misses it);
// - level_before.png, level_after.png: the four-room level from above, walls cut away, the
//   spheres' paths before and after the carve (the hole in the wall);
// - falling_pieces.png: a world of tumbling pieces over a bumpy ground: each piece at t = 0
//   (faded) and stopped at its first contact of the step, the contacts marked.
#include "demo.hpp"
#include "demo_scenes.hpp"
#include "render/ray_tracer.hpp"

#include <impact/cast.hpp>
#include <impact/query.hpp>
#include <impact/toi.hpp>
#include <impact/world.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <random>

namespace impact::cli {
namespace {

using render::Color;
using render::Scene;
using V = Vec3<double>;

const Color kOrange(0.93f, 0.55f, 0.25f), kBlue(0.30f, 0.55f, 0.85f), kRed = render::kMarkerColor,
    kGrey(0.75f, 0.74f, 0.72f);

Pose<double> at(const V& p, const Quat<double>& q = Quat<double>::Identity()) {
  Pose<double> pose;
  pose.position = p;
  pose.rotation = q;
  return pose;
}

/// A floor: a flat box under the scene.
void add_floor(Scene& s, double z, double half) { s.add_shape(Box<double>{V(half, half, 0.05)}, at(V(0, 0, z - 0.05)), kGrey); }

Scene shapes_scene() {
  Scene s;
  int i = 0;
  for (const DemoShape& d : demo_shapes()) s.add_shape(d.shape, d.pose, render::palette(i++));  // a point and a segment are not seen
  add_floor(s, -1.2, 6);
  s.camera.position = V(5.5, -7.5, 5.0);
  s.camera.look_at = V(0, 0, -0.2);
  return s;
}

Scene bullet_scene(std::ostream& out) {
  Scene s;
  const DemoBullet d = demo_bullet();
  Motion<double> mb;
  mb.pose = d.start;
  mb.linear_velocity = d.velocity;
  const CastHit<double> h = shape_cast(d.bullet, mb.pose, mb.linear_velocity, d.wall, d.wall_pose, V(V::Zero()));
  s.add_shape(d.wall, d.wall_pose, kBlue);
  // Where a discrete engine looks: the step's two ends (faded), then the cast's answer (opaque).
  s.add_shape(d.bullet, mb.at(0), kOrange, 0.35f);
  s.add_shape(d.bullet, mb.at(1), kOrange, 0.35f);
  if (h.status == Status::hit) {
    s.add_shape(d.bullet, mb.at(h.toi), kOrange);
    s.add_marker(h.point_b, -h.normal, 0.02, kRed);
  }
  // The path: a thin rod from start to end.
  const V a = mb.at(0).position, b = mb.at(1).position;
  s.add_shape(Capsule<double>{0.008, 0.5 * (b - a).norm()}, at(0.5 * (a + b), Quat<double>::FromTwoVectors(V::UnitZ(), (b - a).normalized())),
              Color(0.5f, 0.5f, 0.5f), 0.5f);
  add_floor(s, -1.0, 3);
  s.camera.position = V(0.6, -3.6, 1.6);
  s.camera.look_at = V(0, 0, -0.2);
  s.camera.fov_degrees = 50;
  char line[200];
  std::snprintf(line, sizeof line, "    bullet: discrete test at t = 0 and t = 1 sees nothing; the cast stops it at t = %.6f\n", h.toi);
  out << line;
  return s;
}

Scene blade_scene(std::ostream& out) {
  Scene s;
  const DemoBlade d = demo_blade();
  ToiOptions<double> paper;
  paper.paper_acceptance = true;
  const ToiHit<double> missed = time_of_impact(d.blade, d.blade_motion, d.ball, d.ball_motion, paper);
  const ToiHit<double> h = time_of_impact(d.blade, d.blade_motion, d.ball, d.ball_motion);
  const double end = h.status == Status::hit ? h.toi : 1.0;
  // The blade's disc: faded copies over the step up to the contact.
  for (int k = 0; k < 24; ++k) s.add_shape(d.blade, d.blade_motion.at(end * k / 24.0), kBlue, 0.12f);
  s.add_shape(d.blade, d.blade_motion.at(end), kBlue);
  std::vector<double> times;
  for (int k = 0; k < 6; ++k) times.push_back(end * k / 6.0);
  times.push_back(end);
  s.add_path(d.ball, d.ball_motion, times, kOrange);
  s.add_shape(d.ball, d.ball_motion.at(1.0), kOrange, 0.3f);  // where the step ends (the paper's test looks here)
  if (h.status == Status::hit) s.add_marker(h.point_b, -h.normal, 0.025, kRed);
  add_floor(s, -1.3, 3);
  s.camera.position = V(2.6, -3.4, 1.9);
  s.camera.look_at = V(0.3, 0, -0.2);
  char line[200];
  std::snprintf(line, sizeof line, "    blade: the paper's acceptance answers %s; ours hits at t = %.6f\n",
                std::string(to_string(missed.status)).c_str(), h.toi);
  out << line;
  return s;
}

Scene level_scene(bool carved) {
  Scene s;
  auto L = std::make_shared<Level<double>>(make_demo_level(4));
  if (carved) (void)carve(*L, kDemoBlastCenter, kDemoBlastRadius);
  s.add_level(L, Color(0.80f, 0.78f, 0.74f));
  int i = 0;
  for (const DemoThrow& t : demo_level_throws()) {
    const auto h = level_sphere_cast(*L, t.from, kDemoThrowRadius, kDemoThrowPath, {.buffer = 0.01});
    const double end = h.hit.status == Status::hit ? h.hit.toi : 1.0;
    Motion<double> m;
    m.pose.position = t.from;
    m.linear_velocity = kDemoThrowPath;
    std::vector<double> times;
    for (int k = 0; k < 5; ++k) times.push_back(end * k / 5.0);
    times.push_back(end);
    s.add_path(Sphere<double>{kDemoThrowRadius}, m, times, render::palette(i++));
  }
  s.camera.position = V(7, -14, 24);
  s.camera.look_at = V(16, 4, 0);
  s.camera.fov_degrees = 48;
  s.lights[0].direction = V(-0.3, 0.5, -1.0);
  return s;
}

Scene falling_pieces_scene(std::ostream& out) {
  Scene s;
  // 60 pieces over a ground of 48 × 48 quads on [−6, 6]² (the text demo's scene, smaller).
  const DemoWorld w = make_falling_pieces(60, 48, 6.0, 18);
  const auto& ground = w.ground;
  const auto& bodies = w.bodies;
  const auto& motions = w.motions;
  const int pieces = static_cast<int>(motions.size());
  World<double> world;
  (void)world.edit({}, bodies, "bodies");
  WorldStepOptions<double> opt;
  opt.report = WorldReport::bodies;
  const WorldStepResult<double> r = world.step(motions, opt);
  s.add_mesh(ground, Pose<double>{}, Color(0.62f, 0.72f, 0.55f));
  int hits = 0;
  for (std::size_t i = 0; i < motions.size(); ++i) {
    double stop = 1.0;
    for (const auto& e : r.events)
      if (e.status == Status::hit && (e.a == motions[i].body || e.b == motions[i].body)) stop = std::min(stop, double(e.toi));
    s.add_body(bodies[i + 1], motions[i].motion.at(0.0), render::palette(i), 0.25f);
    s.add_body(bodies[i + 1], motions[i].motion.at(stop), render::palette(i));
  }
  for (const auto& e : r.events)
    if (e.status == Status::hit) {
      ++hits;
      s.add_marker(e.point_a, e.normal, 0.05, kRed);
    }
  s.camera.position = V(9, -11, 8);
  s.camera.look_at = V(0, 0, 0.8);
  s.camera.fov_degrees = 42;
  char line[200];
  std::snprintf(line, sizeof line, "    falling pieces: %d pieces over a %zu-triangle ground, %d first contacts in the step\n", pieces,
                ground->triangles.size(), hits);
  out << line;
  return s;
}

}  // namespace

bool write_demo_pictures(const std::string& dir, int width, int height, std::ostream& out) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  out << "\nPictures (" << width << " x " << height << ", shadows, anti-aliased edges) in " << dir << ":\n";
  struct Named {
    const char* file;
    Scene scene;
  };
  std::vector<Named> scenes;
  scenes.push_back({"shapes.png", shapes_scene()});
  scenes.push_back({"bullet.png", bullet_scene(out)});
  scenes.push_back({"blade.png", blade_scene(out)});
  scenes.push_back({"level_before.png", level_scene(false)});
  scenes.push_back({"level_after.png", level_scene(true)});
  scenes.push_back({"falling_pieces.png", falling_pieces_scene(out)});
  bool ok = true;
  for (Named& n : scenes) {
    n.scene.width = width;
    n.scene.height = height;
    const std::string path = (std::filesystem::path(dir) / n.file).string();
    render::RenderStats st;
    const render::Image img = render::render(n.scene, {}, &st);
    const std::string e = render::write_png(img, path);
    char line[300];
    if (e.empty()) {
      std::snprintf(line, sizeof line, "  %-40s %8.3f s  %zu items, %llu primary and %llu shadow rays\n", path.c_str(),
                    st.seconds, n.scene.items.size(), (unsigned long long)st.primary_rays, (unsigned long long)st.shadow_rays);
    } else {
      std::snprintf(line, sizeof line, "  %s: %s\n", path.c_str(), e.c_str());
      ok = false;
    }
    out << line;
  }
  return ok;
}

}  // namespace impact::cli
