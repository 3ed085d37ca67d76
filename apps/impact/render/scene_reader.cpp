// impact — render/scene_reader.cpp: JSON scenes (docs/render.md). Every field is checked the way
// the query protocol checks its lines: strict types, unknown keys refused, errors naming the path.
#include "scene_reader.hpp"

#include "../json_line.hpp"
#include "../level_protocol.hpp"
#include "../mesh_protocol.hpp"
#include "../protocol.hpp"
#include "../world_protocol.hpp"
#include "ray_tracer.hpp"

#include <impact/cast.hpp>
#include <impact/query.hpp>
#include <impact/world.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace impact::render {
namespace {

using cli::Bad;
using cli::Fields;
using cli::json;

Color color_in(const json& v, const std::string& path) {
  if (!v.is_array() || v.size() != 3) throw Bad{path + ": expected [r, g, b] in [0, 1]"};
  Color c;
  for (int k = 0; k < 3; ++k) {
    const double x = cli::number(v[k], path + "." + std::to_string(k));
    if (!(x >= 0 && x <= 1)) throw Bad{path + "." + std::to_string(k) + ": expected a number in [0, 1]"};
    c[k] = float(x);
  }
  return c;
}

Color color_or(Fields& f, std::string_view key, const Color& fallback) {
  const json* v = f.optional(key);
  return v ? color_in(*v, f.at(key)) : fallback;
}

/// Times in [0, 1], ascending, at most 64 of them.
std::vector<double> times_in(Fields& f, std::vector<double> fallback) {
  const json* v = f.optional("times");
  if (!v) return fallback;
  const std::string at = f.at("times");
  if (!v->is_array() || v->empty() || v->size() > 64) throw Bad{at + ": expected 1 to 64 times in [0, 1]"};
  std::vector<double> t;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const double x = cli::number((*v)[i], at + "." + std::to_string(i));
    if (!(x >= 0 && x <= 1)) throw Bad{at + "." + std::to_string(i) + ": expected a time in [0, 1]"};
    if (!t.empty() && x < t.back()) throw Bad{at + "." + std::to_string(i) + ": times must ascend"};
    t.push_back(x);
  }
  return t;
}

Motion<double> motion_of(const cli::Motion& m) {
  Motion<double> out;
  out.pose = m.pose;
  out.linear_velocity = m.linear;
  out.angular_velocity = m.angular;
  return out;
}

/// The marker size for points of a scene whose things are about `size` across.
double marker_size(double size) { return std::max(1e-6, 0.025 * size); }

/// A pasted protocol line: the query answers exactly as `impact query` would, then its inputs and
/// answer are drawn. Shape A orange, B blue; paths as faded copies up to the contact.
void add_query(Scene& scene, const json& q, Fields& f, const std::string& at) {
  const std::string answer_text = cli::answer_line(q.dump());
  const json answer = json::parse(answer_text);
  const std::string status = answer.value("status", "");
  if (status == "invalid_input") throw Bad{at + ".query." + answer.value("error", std::string("invalid"))};
  const std::vector<double> times = times_in(f, {0.0, 0.25, 0.5, 0.75});
  const Color ca = color_or(f, "color_a", Color(0.93f, 0.55f, 0.25f));
  const Color cb = color_or(f, "color_b", Color(0.30f, 0.55f, 0.85f));
  const Color cm = color_or(f, "marker_color", kMarkerColor);
  f.finish();
  const std::string kind = q.at("query").get<std::string>();
  // The line was read whole by answer_line above: these reads cannot fail.
  Fields qf(q, "query");
  auto vec_of = [&](const char* key) { return cli::vec(answer.at(key), key); };
  const bool has_contact = answer.contains("point_a") && answer.contains("point_b") && answer.contains("normal");
  if (kind == "distance") {
    const Shape<double> a = cli::parse_shape(q.at("a"), "a"), b = cli::parse_shape(q.at("b"), "b");
    const Pose<double> pa = cli::pose_or_identity(qf, "pose_a");
    const Pose<double> pb = cli::pose_or_identity(qf, "pose_b");
    scene.add_shape(a, pa, ca);
    scene.add_shape(b, pb, cb);
    const double size = std::max(bounding_radius(a), bounding_radius(b));
    if (has_contact) {
      scene.add_marker(vec_of("point_a"), vec_of("normal"), marker_size(size), cm);
      scene.add_marker(vec_of("point_b"), Vec3<double>::Zero(), marker_size(size), cm);
    }
  } else if (kind == "ray_cast") {
    const Shape<double> s = cli::parse_shape(q.at("shape"), "shape");
    const Pose<double> p = cli::pose_or_identity(qf, "pose");
    const Vec3<double> o = cli::vec(q.at("origin"), "origin"), d = cli::vec(q.at("direction"), "direction");
    const double max_lambda = q.contains("max_lambda") ? cli::number(q.at("max_lambda"), "max_lambda") : 1.0;
    scene.add_shape(s, p, cb);
    const double size = bounding_radius(s) + 1e-9;
    const double lambda = status == "hit" ? answer.at("lambda").get<double>() : max_lambda;
    // The ray: a thin capsule from the origin to where it stops.
    const Vec3<double> end = o + lambda * d;
    const Vec3<double> mid = 0.5 * (o + end), along = end - o;
    if (along.norm() > 0) {
      Pose<double> rp;
      rp.position = mid;
      rp.rotation = Quat<double>::FromTwoVectors(Vec3<double>::UnitZ(), along.normalized());
      scene.add_shape(Capsule<double>{0.2 * marker_size(size), 0.5 * along.norm()}, rp, ca);
    }
    if (status == "hit" && answer.contains("point") && answer.contains("normal"))
      scene.add_marker(vec_of("point"), vec_of("normal"), marker_size(size), cm);
  } else if (kind == "shape_cast" || kind == "time_of_impact") {
    const Shape<double> a = cli::parse_shape(q.at("a"), "a"), b = cli::parse_shape(q.at("b"), "b");
    Motion<double> ma, mb;
    if (kind == "shape_cast") {
      ma.pose = cli::pose_or_identity(qf, "pose_a");
      mb.pose = cli::pose_or_identity(qf, "pose_b");
      ma.linear_velocity = cli::vec(q.at("velocity_a"), "velocity_a");
      mb.linear_velocity = cli::vec(q.at("velocity_b"), "velocity_b");
    } else {
      ma = motion_of(cli::parse_motion(q.at("motion_a"), "motion_a"));
      mb = motion_of(cli::parse_motion(q.at("motion_b"), "motion_b"));
    }
    // Copies at the given times up to the time of impact (or t = 1 on a miss), the last one there.
    const double end = status == "hit" ? answer.at("toi").get<double>() : 1.0;
    std::vector<double> path;
    for (double t : times)
      if (t < end) path.push_back(t);
    path.push_back(end);
    scene.add_path(a, ma, path, ca);
    scene.add_path(b, mb, path, cb);
    const double size = std::max(bounding_radius(a), bounding_radius(b));
    if (status == "hit" && has_contact) {
      scene.add_marker(vec_of("point_a"), vec_of("normal"), marker_size(size), cm);
      scene.add_marker(vec_of("point_b"), Vec3<double>::Zero(), marker_size(size), cm);
    }
  } else {
    throw Bad{at + ".query.query: '" + kind +
              "' cannot be drawn (distance, ray_cast, shape_cast and time_of_impact can; meshes, levels and worlds "
              "have objects of their own)"};
  }
}

/// The pose of each body of a world at time t of its motion (bodies without a motion stay).
void add_world(Scene& scene, const json& wj, const std::string& at) {
  Fields f(wj, at);
  const std::vector<WorldBody<double>> bodies = cli::parse_world_bodies(f.required("bodies"), f.at("bodies"));
  const json* mj = f.optional("motions");
  std::vector<BodyMotion<double>> motions;
  if (mj) motions = cli::parse_world_motions(*mj, f.at("motions"));
  WorldStepOptions<double> opt;
  if (const json* v = f.optional("report")) opt.report = cli::parse_world_report(*v, f.at("report"));
  if (const json* v = f.optional("target_distance")) opt.target_distance = cli::size(*v, f.at("target_distance"));
  const std::vector<double> times = times_in(f, {0.0, 0.5, 1.0});
  bool markers = true;
  if (const json* v = f.optional("events")) {
    if (!v->is_boolean()) throw Bad{f.at("events") + ": expected true or false"};
    markers = v->get<bool>();
  }
  f.finish();
  World<double> world;
  if (auto e = world.edit({}, bodies, at + ".bodies"); !e.empty()) throw Bad{e};
  WorldStepResult<double> step;
  if (!motions.empty()) {
    step = world.step(motions, opt);
    if (!step.ok()) throw Bad{at + "." + step.error};
  }
  double size = 0;
  for (const auto& b : bodies)
    if (b.kind != BodyKind::mesh) size = std::max(size, b.kind == BodyKind::convex ? bounding_radius(b.shape) : 1.0);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const WorldBody<double>& b = bodies[i];
    const Color c = b.kind == BodyKind::mesh ? Color(0.72f, 0.70f, 0.66f) : palette(i);
    const BodyMotion<double>* m = nullptr;
    for (const auto& x : motions)
      if (x.body == b.id) m = &x;
    Motion<double> motion;
    motion.pose = b.pose;
    if (m) {
      motion = m->motion;
      if (m->use_stored_pose) motion.pose = b.pose;
    }
    const std::vector<double> body_times = m ? times : std::vector<double>{0.0};
    for (std::size_t k = 0; k < body_times.size(); ++k)
      scene.add_body(b, motion.at(body_times[k]), c, path_opacity(k, body_times.size()));
  }
  if (markers)
    for (const auto& e : step.events)
      if (e.status == Status::hit) scene.add_marker(e.point_a, e.normal, marker_size(size), kMarkerColor);
}

void add_object(Scene& scene, const json& o, const std::string& at, const std::string& base_dir) {
  Fields f(o, at);
  const json* shape = f.optional("shape");
  const json* mesh = f.optional("mesh");
  const json* level = f.optional("level");
  const json* marker = f.optional("marker");
  const json* query = f.optional("query");
  const json* world = f.optional("world");
  if ((shape != nullptr) + (mesh != nullptr) + (level != nullptr) + (marker != nullptr) + (query != nullptr) +
          (world != nullptr) !=
      1)
    throw Bad{at + ": an object needs exactly one of \"shape\", \"mesh\", \"level\", \"marker\", \"query\", \"world\""};
  if (query) {
    add_query(scene, *query, f, at);
    return;
  }
  if (world) {
    f.finish();
    add_world(scene, *world, f.at("world"));
    return;
  }
  // Markers are red unless told otherwise; everything else light grey.
  const Color color = color_or(f, "color", marker ? kMarkerColor : Color(0.78f, 0.78f, 0.76f));
  if (shape) {
    const Shape<double> s = cli::parse_shape(*shape, f.at("shape"));
    if (const json* mv = f.optional("motion")) {
      const Motion<double> m = motion_of(cli::parse_motion(*mv, f.at("motion")));
      const std::vector<double> times = times_in(f, {0.0, 0.5, 1.0});
      f.finish();
      scene.add_path(s, m, times, color);
      return;
    }
    const Pose<double> pose = cli::pose_or_identity(f, "pose");
    float opacity = 1.0f;
    if (const json* v = f.optional("opacity")) {
      const double x = cli::number(*v, f.at("opacity"));
      if (!(x > 0 && x <= 1)) throw Bad{f.at("opacity") + ": expected a number in (0, 1]"};
      opacity = float(x);
    }
    f.finish();
    scene.add_shape(s, pose, color, opacity);
  } else if (mesh) {
    const Pose<double> pose = cli::pose_or_identity(f, "pose");
    f.finish();
    const std::string mp = f.at("mesh");
    auto m = std::make_shared<TriangleMesh<double>>();
    if (mesh->is_object() && mesh->contains("obj")) {
      Fields mf(*mesh, mp);
      std::string file = cli::text(mf.required("obj"), mf.at("obj"));
      mf.finish();
      if (std::filesystem::path(file).is_relative()) file = (std::filesystem::path(base_dir) / file).string();
      if (auto e = load_obj(file, m->vertices, m->triangles); !e.empty()) throw Bad{mf.at("obj") + ": " + e};
    } else {
      cli::parse_mesh_arrays(*mesh, mp, *m);
    }
    if (auto e = build_mesh(*m); !e.empty()) throw Bad{mp + "." + e};
    scene.add_mesh(std::move(m), pose, color);
  } else if (level) {
    const json* carves = f.optional("carve");
    f.finish();
    auto L = std::make_shared<Level<double>>();
    const std::string lp = f.at("level");
    try {
      Fields lf(*level, lp);
      cli::read_level(lf, *L);
    } catch (const Bad& e) {
      throw Bad{e.message.rfind(lp, 0) == 0 ? e.message : lp + "." + e.message};
    }
    if (carves) {
      const std::string cp = f.at("carve");
      if (!carves->is_array()) throw Bad{cp + ": expected an array of {\"center\", \"radius\"}"};
      for (std::size_t i = 0; i < carves->size(); ++i) {
        Fields cf((*carves)[i], cp + "." + std::to_string(i));
        const Vec3<double> c = cli::vec(cf.required("center"), cf.at("center"));
        const double r = cli::size(cf.required("radius"), cf.at("radius"));
        cf.finish();
        const CarveReport rep = carve(*L, c, r);
        if (!rep.error.empty()) throw Bad{cf.at("radius") + ": " + rep.error};
      }
    }
    scene.add_level(std::move(L), color);
  } else {
    Fields mf(*marker, f.at("marker"));
    const Vec3<double> p = cli::vec(mf.required("point"), mf.at("point"));
    const Vec3<double> n = mf.optional("normal") ? cli::vec(*mf.optional("normal"), mf.at("normal")) : Vec3<double>::Zero();
    mf.finish();
    double size = 0.05;
    if (const json* v = f.optional("size")) {
      size = cli::size(*v, f.at("size"));
      if (!(size > 0)) throw Bad{f.at("size") + ": must be positive"};
    }
    f.finish();
    scene.add_marker(p, n, size, color);
  }
}

int int_in(const json& v, const std::string& path, int lo, int hi) { return int(cli::integer(v, path, lo, hi)); }

}  // namespace

Scene read_scene(const json& j, const std::string& base_dir) {
  Scene s;
  Fields f(j, "");
  if (const json* v = f.optional("image")) {
    Fields g(*v, "image");
    if (const json* x = g.optional("width")) s.width = int_in(*x, g.at("width"), 1, Scene::kMaxSide);
    if (const json* x = g.optional("height")) s.height = int_in(*x, g.at("height"), 1, Scene::kMaxSide);
    if (const json* x = g.optional("samples")) s.samples = int_in(*x, g.at("samples"), 1, Scene::kMaxSamples);
    g.finish();
  }
  if (const json* v = f.optional("camera")) {
    Fields g(*v, "camera");
    if (const json* x = g.optional("position")) s.camera.position = cli::vec(*x, g.at("position"));
    if (const json* x = g.optional("look_at")) s.camera.look_at = cli::vec(*x, g.at("look_at"));
    if (const json* x = g.optional("up")) s.camera.up = cli::vec(*x, g.at("up"));
    if (const json* x = g.optional("fov_degrees")) s.camera.fov_degrees = cli::number(*x, g.at("fov_degrees"));
    g.finish();
  }
  if (const json* v = f.optional("lights")) {
    if (!v->is_array() || v->size() > 32) throw Bad{"lights: expected an array of at most 32 lights"};
    s.lights.clear();
    for (std::size_t i = 0; i < v->size(); ++i) {
      Fields g((*v)[i], "lights." + std::to_string(i));
      Light l;
      l.direction = cli::vec(g.required("direction"), g.at("direction"));
      if (const json* x = g.optional("intensity")) l.intensity = float(cli::size(*x, g.at("intensity")));
      if (const json* x = g.optional("shadows")) {
        if (!x->is_boolean()) throw Bad{g.at("shadows") + ": expected true or false"};
        l.shadows = x->get<bool>();
      }
      g.finish();
      s.lights.push_back(l);
    }
  }
  if (const json* v = f.optional("ambient")) s.ambient = float(cli::size(*v, "ambient"));
  if (const json* v = f.optional("background")) s.background = color_in(*v, "background");
  if (const json* v = f.optional("objects")) {
    if (!v->is_array()) throw Bad{"objects: expected an array of objects"};
    for (std::size_t i = 0; i < v->size(); ++i) add_object(s, (*v)[i], "objects." + std::to_string(i), base_dir);
  }
  f.finish();
  if (auto e = check_scene(s); !e.empty()) throw Bad{e};
  return s;
}

std::string read_scene_file(const std::string& path, Scene& scene) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return path + ": not a readable file";
  if (std::filesystem::file_size(path, ec) > cli::kMaxLineBytes) return path + ": larger than 32 MiB";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) return path + ": could not be read";
  const cli::ParsedLine parsed = cli::parse_line(text.str());
  if (!parsed.error.empty()) return path + ": " + parsed.error;
  try {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    scene = read_scene(parsed.value, dir.empty() ? "." : dir);
  } catch (const Bad& e) {
    return path + ": " + e.message;
  }
  return "";
}

}  // namespace impact::render
