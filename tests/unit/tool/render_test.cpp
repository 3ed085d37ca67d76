// Tests of the ray tracer (apps/impact/render): pictures of closed-form scenes against their exact
// silhouettes, normals and shadows on a sphere over a plane, identical pixels for any thread
// count, the PNG round trip and the scene reader's error messages.
//
// The silhouettes are computed here independently: the camera's documented model (a pinhole,
// vertical field of view, pixel (x, y) sampled at its centre x + ½, y + ½ from the top-left) and
// closed-form ray tests for spheres (a quadratic) and boxes (slabs in the box's frame).
#include "render/item_tree.hpp"
#include "render/ray_tracer.hpp"
#include "render/scene_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>
#include <algorithm>
#include <limits>

namespace {

using impact::Box;
using impact::Pose;
using impact::Quat;
using impact::Sphere;
using impact::render::Color;
using impact::render::Image;
using impact::render::Scene;
using V = impact::Vec3<double>;

/// The camera ray through the picture point (x, y), by the documented model.
V camera_ray(const Scene& s, double x, double y) {
  const V f = (s.camera.look_at - s.camera.position).normalized();
  const V r = f.cross(s.camera.up).normalized();
  const V u = r.cross(f);
  const double t = std::tan(s.camera.fov_degrees * M_PI / 360.0), aspect = double(s.width) / s.height;
  return (f + (2 * x / s.width - 1) * t * aspect * r + (1 - 2 * y / s.height) * t * u).normalized();
}

/// Signed margin of the ray against the shape: > 0 inside the silhouette, < 0 outside; its size
/// says how far from the edge (length at the shape).
struct Truth {
  enum Kind { sphere, box } kind;
  V centre;
  double radius = 0;
  V half;
  Quat<double> rotation = Quat<double>::Identity();
  double margin(const V& o, const V& d) const {
    if (kind == sphere) {
      const V oc = centre - o;
      const double b = oc.dot(d);
      if (b <= 0) return -1;
      return radius - std::sqrt(std::max(0.0, oc.squaredNorm() - b * b));
    }
    const V lo = rotation.conjugate() * (o - centre), ld = rotation.conjugate() * d;
    double tn = -1e300, tf = 1e300;
    for (int k = 0; k < 3; ++k) {
      double a = (-half[k] - lo[k]) / ld[k], b = (half[k] - lo[k]) / ld[k];
      if (a > b) std::swap(a, b);
      tn = std::max(tn, a);
      tf = std::min(tf, b);
    }
    if (tf <= 0) return -1;
    return (tf - tn) * ld.cwiseAbs().minCoeff();  // ≈ how far inside the slab intersection
  }
};

/// A scene of one red shape on a blue background, no lights: a pixel is the shape's or the
/// background's colour exactly.
Scene one_shape_scene(const Truth& t, int w, int h) {
  Scene s;
  s.width = w;
  s.height = h;
  s.samples = 1;
  s.lights.clear();
  s.ambient = 1.0f;
  s.background = Color(0, 0, 1);
  s.camera.position = V(0.3, -6, 1.5);
  s.camera.look_at = V(0, 0, 0);
  s.camera.fov_degrees = 35;
  Pose<double> p;
  p.position = t.centre;
  p.rotation = t.rotation;
  if (t.kind == Truth::sphere) s.add_shape(Sphere<double>{t.radius}, p, Color(1, 0, 0));
  else s.add_shape(Box<double>{t.half}, p, Color(1, 0, 0));
  return s;
}

bool is_background(const Image& img, int x, int y) {
  const auto* p = img.pixel(x, y);
  return p[0] == 0 && p[1] == 0 && p[2] == 255;
}

std::vector<Truth> random_truths() {
  std::mt19937_64 rng(20);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Truth> out;
  for (int i = 0; i < 12; ++i) {
    Truth t;
    t.kind = i % 2 ? Truth::box : Truth::sphere;
    t.centre = V(1.2 * u(rng), 1.0 * u(rng), 0.8 * u(rng));
    t.radius = 0.3 + 0.5 * std::abs(u(rng));
    t.half = V(0.2 + 0.5 * std::abs(u(rng)), 0.2 + 0.5 * std::abs(u(rng)), 0.2 + 0.5 * std::abs(u(rng)));
    t.rotation = Quat<double>(u(rng), u(rng), u(rng), u(rng)).normalized();
    out.push_back(t);
  }
  return out;
}

TEST(Render, SilhouettesOfSpheresAndBoxesAreExact) {
  const int w = 160, h = 120;
  for (const Truth& t : random_truths()) {
    const Scene s = one_shape_scene(t, w, h);
    ASSERT_EQ(impact::render::check_scene(s), "");
    const Image img = impact::render::render(s, {.threads = 2});
    int inside = 0, checked = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double m = t.margin(s.camera.position, camera_ray(s, x + 0.5, y + 0.5));
        if (std::abs(m) < 1e-9) continue;  // on the silhouette to rounding: either answer is exact
        ++checked;
        inside += m > 0;
        ASSERT_EQ(!is_background(img, x, y), m > 0)
            << (t.kind == Truth::sphere ? "sphere" : "box") << " pixel " << x << ", " << y << " margin " << m;
      }
    EXPECT_GT(inside, 100);
    EXPECT_GT(checked - inside, 100);
  }
}

TEST(Render, AntiAliasingChangesOnlyEdgePixels) {
  const int w = 160, h = 120;
  for (const Truth& t : random_truths()) {
    Scene s = one_shape_scene(t, w, h);
    const Image plain = impact::render::render(s, {.threads = 2});
    s.samples = 3;
    impact::render::RenderStats st;
    const Image smooth = impact::render::render(s, {.threads = 2}, &st);
    int edge = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        // A pixel is resampled when it or a neighbour sees something else (ray_tracer.hpp). A
        // pixel the silhouette does not come near (the corners and centres of its 3 × 3
        // neighbourhood on one side, clear of the edge) keeps its one-sample value exactly.
        const double c = t.margin(s.camera.position, camera_ray(s, x + 0.5, y + 0.5));
        bool crossed = false;
        for (double cy : {-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0})
          for (double cx : {-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0}) {
            const double m = t.margin(s.camera.position, camera_ray(s, x + cx, y + cy));
            crossed = crossed || (m > 0) != (c > 0) || std::abs(m) < 1e-9;
          }
        if (crossed) {
          ++edge;
          continue;
        }
        for (int k = 0; k < 3; ++k) ASSERT_EQ(smooth.pixel(x, y)[k], plain.pixel(x, y)[k]) << x << ", " << y;
      }
    EXPECT_GT(edge, 10);
    EXPECT_GT(st.edge_pixels, 0u);
  }
}

/// A ball of radius 1 resting on a floor (the top face of a thin box at z = 0), the sun overhead.
Scene ball_on_floor() {
  Scene s;
  s.width = 200;
  s.height = 150;
  s.camera.position = V(2.0, -5.0, 3.0);
  s.camera.look_at = V(0, 0, 0.5);
  s.lights = {impact::render::Light{V(0, 0, -1), 0.8f, true}};
  Pose<double> ball, floor;
  ball.position = V(0, 0, 1);
  floor.position = V(0, 0, -0.5);
  s.add_shape(Sphere<double>{1.0}, ball, Color(0.8f, 0.3f, 0.3f));
  s.add_shape(Box<double>{V(10, 10, 0.5)}, floor, Color(0.8f, 0.8f, 0.8f));
  return s;
}

TEST(Render, NormalsAndShadowsOfABallOverAFloor) {
  const Scene s = ball_on_floor();
  int on_ball = 0, shadowed = 0, lit = 0;
  int dark_x = -1, dark_y = -1, sun_x = -1, sun_y = -1;  // a floor pixel deep in the shadow, one well out of it
  for (int y = 0; y < s.height; y += 2)
    for (int x = 0; x < s.width; x += 2) {
      const auto p = impact::render::probe(s, x + 0.5, y + 0.5);
      if (p.item == 0) {
        ++on_ball;
        const V c(0, 0, 1);
        EXPECT_NEAR((p.point - c).norm(), 1.0, 1e-9);
        EXPECT_LT((p.normal - (p.point - c)).norm(), 1e-9);
        // The sun overhead: the upper half lit, nothing above the ball to shadow it.
        if (p.normal.z() > 1e-6) {
          EXPECT_FALSE(p.shadowed) << x << ", " << y;
        }
      } else if (p.item == 1) {
        EXPECT_NEAR(p.point.z(), 0.0, 1e-9);
        EXPECT_NEAR(p.normal.z(), 1.0, 1e-12);
        const double r = std::hypot(p.point.x(), p.point.y());
        if (r < 0.5 && dark_x < 0) dark_x = x, dark_y = y;
        if (r > 2 && sun_x < 0) sun_x = x, sun_y = y;
        // The ball's shadow under a sun straight above is the unit disc.
        if (r < 1 - 1e-6) {
          EXPECT_TRUE(p.shadowed) << "floor point at r " << r;
          ++shadowed;
        } else if (r > 1 + 1e-6) {
          EXPECT_FALSE(p.shadowed) << "floor point at r " << r;
          ++lit;
        }
      }
    }
  EXPECT_GT(on_ball, 200);
  EXPECT_GT(shadowed, 20);
  EXPECT_GT(lit, 200);
  // And in the picture: a floor pixel in the shadow is darker than one in the sun.
  const Image img = impact::render::render(s);
  ASSERT_GE(dark_x, 0);
  ASSERT_GE(sun_x, 0);
  EXPECT_LT(int(img.pixel(dark_x, dark_y)[0]) + 40, int(img.pixel(sun_x, sun_y)[0]));
}

/// A scene of every object kind, from JSON.
Scene every_kind_scene(int w, int h) {
  const auto j = nlohmann::json::parse(R"({
    "image": {"width": 1, "height": 1, "samples": 3},
    "camera": {"position": [6, -8, 5], "look_at": [0, 0, 0.5]},
    "lights": [{"direction": [-0.3, 0.4, -1], "intensity": 0.8}],
    "objects": [
      {"shape": {"type": "box", "half_extents": [4, 4, 0.1]}, "pose": {"position": [0, 0, -0.1]}},
      {"shape": {"type": "cone", "radius": 0.5, "half_height": 0.6}, "pose": {"position": [-2, 1, 0.6]}, "color": [0.9, 0.6, 0.2]},
      {"shape": {"type": "minkowski", "a": {"type": "box", "half_extents": [0.3, 0.2, 0.1]}, "b": {"type": "sphere", "radius": 0.15}},
       "motion": {"pose": {"position": [2, -1, 0.5]}, "linear_velocity": [0, 2, 0], "angular_velocity": [0, 0, 3]},
       "times": [0, 0.5, 1], "color": [0.3, 0.6, 0.9]},
      {"mesh": {"vertices": [[-1, -1, 0], [1, -1, 0], [0, 1, 0], [0, 0, 1.5]],
                "triangles": [[0, 2, 1], [0, 1, 3], [1, 2, 3], [2, 0, 3]]}, "pose": {"position": [0, 2, 0]}},
      {"marker": {"point": [0, 0, 1], "normal": [0, 0, 1]}, "size": 0.05},
      {"query": {"query": "time_of_impact", "a": {"type": "box", "half_extents": [1, 0.05, 0.05]},
                 "motion_a": {"pose": {"position": [0, -2, 1]}, "linear_velocity": [0, 0, 0], "angular_velocity": [0, 0, 12]},
                 "b": {"type": "sphere", "radius": 0.1},
                 "motion_b": {"pose": {"position": [0.6, -2, 2]}, "linear_velocity": [0, 0, -2], "angular_velocity": [0, 0, 0]}}},
      {"world": {"bodies": [{"body": "a", "shape": {"type": "sphere", "radius": 0.3}, "pose": {"position": [2, 2, 2]}},
                            {"body": "b", "compound": [{"shape": {"type": "box", "half_extents": [0.3, 0.3, 0.3]}},
                                                       {"shape": {"type": "sphere", "radius": 0.3}, "pose": {"position": [0, 0, 0.5]}}],
                             "pose": {"position": [2, 2, 0.3]}}],
                 "motions": {"a": {"linear_velocity": [0, 0, -2], "angular_velocity": [0, 0, 0]}}}}
    ]})");
  Scene s = impact::render::read_scene(j, ".");
  s.width = w;
  s.height = h;
  return s;
}

TEST(Render, PixelsDoNotDependOnTheThreadCount) {
  const Scene s = every_kind_scene(173, 97);  // tiles cut the picture unevenly
  ASSERT_GT(s.items.size(), 10u);
  const Image three = impact::render::render(s, {.threads = 3});
  const Image two = impact::render::render(s, {.threads = 2});
  const Image one = impact::render::render(s, {.threads = 1});
  EXPECT_EQ(one.rgb, two.rgb);
  EXPECT_EQ(one.rgb, three.rgb);
  // Not a blank picture: the background and several colours show.
  int background = 0;
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x) background += one.pixel(x, y)[2] == one.pixel(0, 0)[2];
  EXPECT_GT(background, 100);
  EXPECT_LT(background, s.width * s.height - 1000);
}

/// The exact slab test: whether origin + λ·d meets the box for some λ in [0, reach], and where
/// it enters (computed with division, independently of the walk's reciprocals and lanes).
bool meets(const impact::render::Box3& b, const V& o, const V& d, double reach, double& enter) {
  double t0 = 0, t1 = reach;
  for (int k = 0; k < 3; ++k) {
    if (d[k] == 0) {
      if (o[k] < b.lo[k] || o[k] > b.hi[k]) return false;
      continue;
    }
    double a = (b.lo[k] - o[k]) / d[k], c = (b.hi[k] - o[k]) / d[k];
    if (a > c) std::swap(a, c);
    t0 = std::max(t0, a);
    t1 = std::min(t1, c);
  }
  enter = t0;
  return t0 <= t1;
}

TEST(Render, ItemTreeWalkVisitsEveryBoxTheRayMeetsAndFindsTheNearest) {
  // Random boxes (clusters, thin slabs, boxes sharing planes with axis-aligned rays) and rays:
  // a walk with a fixed reach visits every box the exact slab test says the ray meets (and may
  // visit a few more: its reciprocals round); a walk that shrinks the reach to each box's entry
  // finds the nearest entry of all.
  std::mt19937_64 rng(2011);
  std::uniform_real_distribution<double> u(-1, 1);
  int met = 0, total = 0;
  for (int scene = 0; scene < 40; ++scene) {
    const int n = 1 + scene * 7;
    std::vector<impact::render::Box3> boxes(static_cast<std::size_t>(n));
    for (auto& b : boxes) {
      const V c(4 * u(rng), 4 * u(rng), 4 * u(rng));
      V h(0.05 + 0.5 * std::abs(u(rng)), 0.05 + 0.5 * std::abs(u(rng)), 0.05 + 0.5 * std::abs(u(rng)));
      if (u(rng) > 0.8) h[rng() % 3] = 0;  // a flat box
      b.lo = c - h;
      b.hi = c + h;
      if (u(rng) > 0.9) b.lo.x() = b.hi.x() = 1.0;  // boxes on one plane
    }
    const impact::render::ItemTree tree(boxes);
    for (int r = 0; r < 200; ++r, ++total) {
      V o(6 * u(rng), 6 * u(rng), 6 * u(rng));
      V d = (V(2 * u(rng), 2 * u(rng), 2 * u(rng)) - o).normalized();
      if (r % 5 == 0) d = V::Unit(int(rng() % 3)) * (u(rng) > 0 ? 1.0 : -1.0);  // along an axis
      if (r % 10 == 1) {
        d = V(0, u(rng), u(rng)).normalized();  // in the plane x = 1 the flat boxes share
        o.x() = 1.0;
      }
      std::vector<int> seen(std::size_t(n), 0);
      double reach = 20;
      bool stop = false;
      tree.walk(o, d, reach, stop, [&](std::uint32_t id, double&) { ++seen[id]; });
      double nearest = 1e300;
      for (int i = 0; i < n; ++i) {
        double enter = 0;
        const bool m = meets(boxes[std::size_t(i)], o, d, 20, enter);
        ASSERT_LE(seen[std::size_t(i)], 1) << scene << "/" << r << ": box " << i << " visited twice";
        if (m) {
          ASSERT_EQ(seen[std::size_t(i)], 1) << scene << "/" << r << ": box " << i << " met but not visited";
          nearest = std::min(nearest, enter);
          ++met;
        }
      }
      double shrinking = 20;
      double found = 1e300;
      tree.walk(o, d, shrinking, stop, [&](std::uint32_t id, double& reach_now) {
        double enter = 0;
        if (meets(boxes[id], o, d, reach_now, enter) && enter < reach_now) {
          found = std::min(found, enter);
          reach_now = enter;
        }
      });
      if (nearest < 1e300) {
        ASSERT_EQ(found, nearest) << scene << "/" << r;
      } else {
        ASSERT_EQ(found, 1e300) << scene << "/" << r;
      }
    }
  }
  EXPECT_GT(met, total / 2);  // most rays meet some box
}

TEST(Render, SrgbBytesFollowTheFormula) {
  // The renderer's table lookup against the IEC 61966-2-1 formula evaluated here in double, on a
  // fine grid over [−0.1, 1.1]: equal except where the formula lands within 1e-4 of a rounding
  // boundary (there float and double evaluations may round apart).
  int checked = 0;
  for (int i = 0; i <= 1200000; ++i) {
    const float x = float(-0.1 + 1.2 * i / 1200000.0);
    const double c = std::clamp(double(x), 0.0, 1.0);
    const double v = 255 * (c <= 0.0031308 ? 12.92 * c : 1.055 * std::pow(c, 1 / 2.4) - 0.055);
    if (std::abs(v - std::floor(v) - 0.5) < 1e-4) continue;
    ASSERT_EQ(int(impact::render::srgb_byte(x)), int(std::lround(v))) << x;
    ++checked;
  }
  EXPECT_GT(checked, 1190000);
  EXPECT_EQ(impact::render::srgb_byte(std::numeric_limits<float>::quiet_NaN()), 0);
  EXPECT_EQ(impact::render::srgb_byte(-std::numeric_limits<float>::infinity()), 0);
  EXPECT_EQ(impact::render::srgb_byte(std::numeric_limits<float>::infinity()), 255);
}

TEST(Render, PngRoundTrip) {
  const Scene s = every_kind_scene(64, 48);
  const Image img = impact::render::render(s);
  const std::string path = (std::filesystem::temp_directory_path() / "impact_render_test.png").string();
  ASSERT_EQ(impact::render::write_png(img, path), "");
  Image back;
  ASSERT_EQ(impact::render::read_png(path, back), "");
  EXPECT_EQ(back.width, img.width);
  EXPECT_EQ(back.height, img.height);
  EXPECT_EQ(back.rgb, img.rgb);
  std::filesystem::remove(path);
  EXPECT_NE(impact::render::write_png(img, "/nonexistent-dir/x.png"), "");
}

std::string scene_error(const std::string& text) {
  try {
    (void)impact::render::read_scene(nlohmann::json::parse(text), ".");
  } catch (const impact::cli::Bad& e) {
    return e.message;
  }
  return "";
}

TEST(Render, SceneReaderNamesTheField) {
  struct Case {
    const char* scene;
    const char* starts;
  };
  const Case cases[] = {
      {R"({"image": {"width": 0}})", "image.width"},
      {R"({"image": {"samples": 2.0}})", "image.samples"},
      {R"({"camera": {"fov_degrees": 180}})", "camera.fov_degrees"},
      {R"({"camera": {"position": [0, 0, 0], "look_at": [0, 0, 0]}})", "camera.look_at"},
      {R"({"camera": {"position": [0, 0, 5], "look_at": [0, 0, 0], "up": [0, 0, 1]}})", "camera.up"},
      {R"({"lights": [{"direction": [0, 0, 0]}]})", "lights.0.direction"},
      {R"({"background": [1, 2, 0]})", "background.1"},
      {R"({"zoom": 2})", "zoom: unknown field"},
      {R"({"objects": [{"shape": {"type": "sphere", "radius": -1}}]})", "objects.0.shape.radius"},
      {R"({"objects": [{"shape": {"type": "sphere", "radius": 1}, "colour": [1, 0, 0]}]})", "objects.0.colour: unknown field"},
      {R"({"objects": [{"shape": {"type": "sphere", "radius": 1}, "opacity": 0}]})", "objects.0.opacity"},
      {R"({"objects": [{"shape": {"type": "sphere", "radius": 1}, "motion": {"linear_velocity": [0, 0, 1],
          "angular_velocity": [0, 0, 0]}, "times": [0.5, 0.2]}]})", "objects.0.times.1"},
      {R"({"objects": [{}]})", "objects.0: an object needs exactly one of"},
      {R"({"objects": [{"mesh": {"vertices": [[0, 0, 0]], "triangles": [[0, 1, 2]]}}]})", "objects.0.mesh.triangles.0"},
      {R"({"objects": [{"mesh": {"obj": "no-such-file.obj"}}]})", "objects.0.mesh.obj"},
      {R"({"objects": [{"level": {"rooms": []}}]})", "objects.0.level.rooms"},
      {R"({"objects": [{"marker": {"point": [0, 0]}}]})", "objects.0.marker.point"},
      {R"({"objects": [{"query": {"query": "distance", "a": {"type": "sphere", "radius": 1}}}]})", "objects.0.query.b: missing"},
      {R"({"objects": [{"query": {"query": "mesh_ray_cast", "mesh": {"ref": "m"}, "origin": [0, 0, 0],
          "direction": [1, 0, 0]}}]})", "objects.0.query."},
      {R"({"objects": [{"world": {"bodies": [{"body": "a"}]}}]})", "objects.0.world.bodies.0"},
      {R"({"objects": [{"world": {"bodies": [{"body": "a", "shape": {"type": "sphere", "radius": 1}}],
          "motions": {"a": {"linear_velocity": [0, 0, 1]}}}}]})", "objects.0.world.motions.a.angular_velocity"},
  };
  for (const Case& c : cases) {
    const std::string e = scene_error(c.scene);
    EXPECT_EQ(e.rfind(c.starts, 0), 0u) << c.scene << "\n  got: " << e;
  }
  // And a good one reads.
  EXPECT_EQ(scene_error(R"({"objects": [{"shape": {"type": "sphere", "radius": 1}}]})"), "");
}

TEST(Render, PastedQueryDrawsItsAnswer) {
  // A shape cast pasted as it was sent to `impact query`: both shapes along their paths up to the
  // contact, and the contact marked (a ball, a shaft and a head for point_a; a ball for point_b).
  const auto j = nlohmann::json::parse(R"({"objects": [{"query": {"query": "shape_cast",
      "a": {"type": "sphere", "radius": 0.5}, "pose_a": {"position": [-3, 0, 0]}, "velocity_a": [6, 0, 0],
      "b": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}, "velocity_b": [0, 0, 0]}, "times": [0, 0.5]}]})");
  const Scene s = impact::render::read_scene(j, ".");
  // a: copies at 0 and the toi 1/3 (0.5 is past it); b: the same; markers: 3 + 1.
  ASSERT_EQ(s.items.size(), 2u + 2u + 4u);
  const auto& a_at_toi = s.items[1];
  EXPECT_NEAR(a_at_toi.pose.position.x(), -1.0, 1e-9);
  EXPECT_EQ(a_at_toi.opacity, 1.0f);
  EXPECT_LT(s.items[0].opacity, 1.0f);
  EXPECT_NEAR(s.items[4].pose.position.x(), -0.5, 1e-9);  // the contact point on a
}

}  // namespace
