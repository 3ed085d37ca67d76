// impact — world_protocol.cpp: worlds of many moving bodies in `impact query`
// (docs/protocol.md "Worlds"; how a step works: include/impact/world.hpp).
//
// Every line is parsed whole into the library's types before anything is stored: a line that
// fails leaves every world as it was (`World::edit` and `World::step` check before they change).
#include "world_protocol.hpp"

#include "mesh_protocol.hpp"

#include <impact/world.hpp>

#include <map>
#include <memory>
#include <variant>

namespace impact::cli {
namespace {

/// A world of the stream, in the precision it was defined with.
using StoredWorld = std::variant<World<double>, World<float>>;

std::map<std::string, StoredWorld, std::less<>>& worlds() {
  static std::map<std::string, StoredWorld, std::less<>> store;  // one process per stream
  return store;
}

template <class S>
Shape<S> in_precision(const Shape<double>& s) {
  if constexpr (std::is_same_v<S, double>) return s;
  else return convert_shape<S>(s);
}

std::uint32_t bits(const json& v, const std::string& path) {
  return static_cast<std::uint32_t>(integer(v, path, 0, 4294967295));
}

template <class S>
WorldBody<S> parse_body(const json& j, const std::string& path) {
  Fields f(j, path);
  WorldBody<S> b;
  b.id = text(f.required("body"), f.at("body"));
  if (b.id.empty()) throw Bad{f.at("body") + ": expected a non-empty string"};
  const json* shape = f.optional("shape");
  const json* compound = f.optional("compound");
  const json* mesh = f.optional("mesh");
  if ((shape != nullptr) + (compound != nullptr) + (mesh != nullptr) != 1)
    throw Bad{path + ": a body needs exactly one of \"shape\", \"compound\", \"mesh\""};
  b.pose = pose_or_identity(f, "pose").cast<S>();
  if (const json* v = f.optional("category")) b.category = bits(*v, f.at("category"));
  if (const json* v = f.optional("mask")) b.mask = bits(*v, f.at("mask"));
  f.finish();
  if (shape) {
    b.kind = BodyKind::convex;
    b.shape = in_precision<S>(parse_shape(*shape, f.at("shape")));
  } else if (compound) {
    b.kind = BodyKind::compound;
    const std::string cp = f.at("compound");
    if (!compound->is_array() || compound->empty())
      throw Bad{cp + ": expected a non-empty array of {\"shape\", \"pose\"}"};
    for (std::size_t i = 0; i < compound->size(); ++i) {
      const std::string at = cp + "." + std::to_string(i);
      Fields pf((*compound)[i], at);
      CompoundPart<S> part;
      part.shape = in_precision<S>(parse_shape(pf.required("shape"), pf.at("shape")));
      part.pose = pose_or_identity(pf, "pose").cast<S>();
      pf.finish();
      b.parts.push_back(std::move(part));
    }
  } else {
    b.kind = BodyKind::mesh;
    if constexpr (std::is_same_v<S, double>) b.mesh = body_mesh_double(*mesh, f.at("mesh"));
    else b.mesh = body_mesh_float(*mesh, f.at("mesh"));
  }
  return b;
}

/// The motions of a world_step line: an object of body ID to {pose?, linear_velocity, angular_velocity}.
template <class S>
std::vector<BodyMotion<S>> parse_motions(const json& j, const std::string& path) {
  if (!j.is_object()) throw Bad{path + ": expected an object of body ID to motion"};
  std::vector<BodyMotion<S>> motions;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string at = path + "." + it.key();
    Fields f(it.value(), at);
    BodyMotion<S> m;
    m.body = it.key();
    if (const json* p = f.optional("pose")) m.motion.pose = parse_pose(*p, f.at("pose")).cast<S>();
    else m.use_stored_pose = true;
    m.motion.linear_velocity = vec(f.required("linear_velocity"), f.at("linear_velocity")).cast<S>();
    m.motion.angular_velocity = vec(f.required("angular_velocity"), f.at("angular_velocity")).cast<S>();
    f.finish();
    motions.push_back(std::move(m));
  }
  return motions;
}

template <class S>
std::vector<WorldBody<S>> parse_bodies(const json& j, const std::string& path) {
  if (!j.is_array()) throw Bad{path + ": expected an array of bodies"};
  std::vector<WorldBody<S>> out;
  out.reserve(j.size());
  for (std::size_t i = 0; i < j.size(); ++i) out.push_back(parse_body<S>(j[i], path + "." + std::to_string(i)));
  return out;
}

}  // namespace

std::vector<WorldBody<double>> parse_world_bodies(const json& j, const std::string& path) {
  return parse_bodies<double>(j, path);
}

std::vector<BodyMotion<double>> parse_world_motions(const json& j, const std::string& path) {
  return parse_motions<double>(j, path);
}

WorldReport parse_world_report(const json& v, const std::string& path) {
  const std::string s = text(v, path);
  if (s == "pairs") return WorldReport::pairs;
  if (s == "bodies") return WorldReport::bodies;
  throw Bad{path + ": expected \"pairs\" or \"bodies\", got '" + s + "'"};
}

namespace {

template <class S>
void define(const std::string& name, const json& bodies, ojson& out) {
  const std::vector<WorldBody<S>> list = parse_bodies<S>(bodies, "bodies");
  World<S> w;
  if (auto e = w.edit({}, list, "bodies"); !e.empty()) throw Bad{e};
  out["status"] = "ok";
  out["bodies"] = w.size();
  worlds().insert_or_assign(name, StoredWorld(std::move(w)));
}

template <class S>
void edit(World<S>& w, const json* remove, const json* add, ojson& out) {
  std::vector<std::string> gone;
  if (remove) {
    if (!remove->is_array()) throw Bad{"remove: expected an array of body IDs"};
    for (std::size_t i = 0; i < remove->size(); ++i) gone.push_back(text((*remove)[i], "remove." + std::to_string(i)));
  }
  std::vector<WorldBody<S>> fresh;
  if (add) fresh = parse_bodies<S>(*add, "add");
  if (auto e = w.edit(gone, fresh, "add"); !e.empty()) throw Bad{e};
  out["status"] = "ok";
  out["bodies"] = w.size();
}

template <class S>
void put_event(const WorldEvent<S>& e, ojson& out) {
  ojson o;
  o["a"] = e.a;
  o["b"] = e.b;
  o["status"] = std::string(to_string(e.status));
  o["toi"] = static_cast<double>(e.toi);
  if (e.status == Status::hit) {
    put_vec(o, "point_a", e.point_a);
    put_vec(o, "point_b", e.point_b);
    put_vec(o, "normal", e.normal);
  }
  if (e.part_a >= 0) o["part_a"] = e.part_a;
  if (e.part_b >= 0) o["part_b"] = e.part_b;
  if (e.triangle >= 0) o["triangle"] = e.triangle;
  out.push_back(std::move(o));
}

struct StepLine {
  const json* motions = nullptr;
  WorldReport report = WorldReport::pairs;
  double target = 0;
  double tolerance = 1e-6;
};

template <class S>
void step(World<S>& w, const StepLine& line, ojson& out) {
  const std::vector<BodyMotion<S>> motions = parse_motions<S>(*line.motions, "motions");
  WorldStepOptions<S> opt;
  opt.report = line.report;
  opt.target_distance = static_cast<S>(line.target);
  opt.tolerance = static_cast<S>(line.tolerance);
  if (!(opt.tolerance > S(0))) opt.tolerance = std::numeric_limits<S>::min();  // a positive double below float's range
  const WorldStepResult<S> r = w.step(motions, opt);
  if (!r.ok()) throw Bad{r.error};
  out["status"] = "ok";
  ojson events = ojson::array();
  for (const auto& e : r.events) put_event(e, events);
  out["events"] = std::move(events);
  out["pairs_tested"] = r.stats.pairs_tested;
}

/// The world a line names, in the line's precision if it gives one.
StoredWorld& world_named(Fields& f, bool use_float, bool precision_given) {
  const std::string name = text(f.required("world"), "world");
  auto it = worlds().find(name);
  if (it == worlds().end()) throw Bad{"world: no world named '" + name + "' was defined"};
  const bool is_float = std::holds_alternative<World<float>>(it->second);
  if (precision_given && use_float != is_float)
    throw Bad{std::string("precision: world '") + name + "' computes in " + (is_float ? "float" : "double") +
              " (fixed by its define_world)"};
  return it->second;
}

}  // namespace

bool is_world_query(const std::string& q) { return q == "define_world" || q == "world_edit" || q == "world_step"; }

void answer_world_query(const std::string& q, Fields& f, bool use_float, bool precision_given, ojson& out) {
  if (q == "define_world") {
    const std::string name = text(f.required("name"), "name");
    const json& bodies = f.required("bodies");
    f.finish();
    if (use_float) define<float>(name, bodies, out);
    else define<double>(name, bodies, out);
  } else if (q == "world_edit") {
    StoredWorld& w = world_named(f, use_float, precision_given);
    const json* remove = f.optional("remove");
    const json* add = f.optional("add");
    f.finish();
    std::visit([&](auto& world) { edit(world, remove, add, out); }, w);
  } else {
    StoredWorld& w = world_named(f, use_float, precision_given);
    StepLine line;
    line.motions = &f.required("motions");
    if (!line.motions->is_object()) throw Bad{"motions: expected an object of body ID to motion"};
    if (const json* v = f.optional("report")) line.report = parse_world_report(*v, "report");
    if (const json* v = f.optional("target_distance")) line.target = size(*v, "target_distance");
    if (const json* v = f.optional("tolerance")) {
      line.tolerance = size(*v, "tolerance");
      if (!(line.tolerance > 0)) throw Bad{"tolerance: must be positive"};
    }
    f.finish();
    std::visit([&](auto& world) { step(world, line, out); }, w);
  }
}

}  // namespace impact::cli
