// impact — protocol.cpp: parsing, validating and answering `impact query` lines.
//
// Parsing is strict (../shared/query-protocol.md): unknown fields, wrong types, vectors of the
// wrong length, non-finite or out-of-range numbers and non-unit quaternions are errors whose
// message starts with the field's path ("pose_b.rotation: ..."). The parser reports an error by
// throwing `Bad`, caught in `answer_line`; the library itself never throws.
#include "protocol.hpp"

#include <impact/cast.hpp>
#include <impact/query.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace impact::cli {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

struct Bad {
  std::string message;
};

/// Stands in for a number literal too large for a double (1e400): nlohmann rejects the whole
/// line for it, which would lose the id. The parser turns it into "not finite" for its field.
constexpr std::string_view kOverflow = "\x01overflow";

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

/// Replaces number literals that overflow a double by the kOverflow string, outside strings.
std::string neutralize_overflow(const std::string& line) {
  std::string out;
  out.reserve(line.size() + 16);
  bool in_string = false;
  for (std::size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < line.size()) {
        out += line[i + 1];
        i += 2;
        continue;
      }
      if (c == '"') in_string = false;
      ++i;
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      ++i;
      continue;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i + 1;
      while (j < line.size() && (std::isdigit(static_cast<unsigned char>(line[j])) || line[j] == '.' ||
                                 line[j] == 'e' || line[j] == 'E' || line[j] == '+' || line[j] == '-'))
        ++j;
      const std::string tok = line.substr(i, j - i);
      const double x = std::strtod(tok.c_str(), nullptr);
      if (std::isinf(x)) {
        out += "\"\\u0001overflow\"";  // the JSON spelling of kOverflow
      } else {
        out += tok;
      }
      i = j;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

/// The fields of one JSON object: records which keys the parser asked for, so `finish` can
/// reject the rest (a typo must not silently change a query).
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j.is_object()) throw Bad{(path_.empty() ? std::string("line") : path_) + ": expected a JSON object"};
  }
  const json* optional(std::string_view key) {
    allowed_.push_back(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const json& required(std::string_view key) {
    const json* p = optional(key);
    if (!p) throw Bad{join(path_, key) + ": missing"};
    return *p;
  }
  [[nodiscard]] std::string at(std::string_view key) const { return join(path_, key); }
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      bool ok = false;
      for (auto k : allowed_) ok = ok || k == it.key();
      if (!ok) throw Bad{join(path_, it.key()) + ": unknown field"};
    }
  }

 private:
  const json& j_;
  std::string path_;
  std::vector<std::string_view> allowed_;
};

double number(const json& v, const std::string& path) {
  if (v.is_string() && v.get_ref<const std::string&>() == kOverflow) throw Bad{path + ": not finite"};
  if (!v.is_number()) throw Bad{path + ": expected a number"};
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw Bad{path + ": not finite"};
  if (std::abs(x) > Tolerances<double>::max_magnitude) throw Bad{path + ": out of range (|x| > 1e12)"};
  return x;
}

double size(const json& v, const std::string& path) {
  const double x = number(v, path);
  if (x < 0) throw Bad{path + ": negative"};
  return x;
}

Vec3<double> vec(const json& v, const std::string& path) {
  if (!v.is_array() || v.size() != 3) throw Bad{path + ": expected [x, y, z]"};
  return {number(v[0], path + ".0"), number(v[1], path + ".1"), number(v[2], path + ".2")};
}

std::string text(const json& v, const std::string& path) {
  if (!v.is_string()) throw Bad{path + ": expected a string"};
  return v.get<std::string>();
}

Shape<double> parse_shape(const json& j, const std::string& path) {
  Fields f(j, path);
  const std::string type = text(f.required("type"), f.at("type"));
  Shape<double> s;
  if (type == "point") {
    s = Point<double>{};
  } else if (type == "sphere") {
    s = Sphere<double>{size(f.required("radius"), f.at("radius"))};
  } else if (type == "box") {
    const Vec3<double> h = vec(f.required("half_extents"), f.at("half_extents"));
    for (int i = 0; i < 3; ++i)
      if (h[i] < 0) throw Bad{f.at("half_extents") + "." + std::to_string(i) + ": negative"};
    s = Box<double>{h};
  } else if (type == "capsule" || type == "cylinder" || type == "cone") {
    const double r = size(f.required("radius"), f.at("radius"));
    const double h = size(f.required("half_height"), f.at("half_height"));
    if (type == "capsule") s = Capsule<double>{r, h};
    else if (type == "cylinder") s = Cylinder<double>{r, h};
    else s = Cone<double>{r, h};
  } else if (type == "segment") {
    s = Segment<double>{vec(f.required("a"), f.at("a")), vec(f.required("b"), f.at("b"))};
  } else if (type == "triangle") {
    s = Triangle<double>{vec(f.required("a"), f.at("a")), vec(f.required("b"), f.at("b")),
                         vec(f.required("c"), f.at("c"))};
  } else if (type == "hull") {
    const json& pts = f.required("points");
    if (!pts.is_array() || pts.empty()) throw Bad{f.at("points") + ": expected a non-empty array of [x, y, z]"};
    std::vector<Vec3<double>> p;
    p.reserve(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) p.push_back(vec(pts[i], f.at("points") + "." + std::to_string(i)));
    auto built = Hull<double>::build(p);
    if (!built.ok()) throw Bad{join(path, built.error)};
    s = std::move(built.hull);
  } else if (type == "minkowski") {
    auto a = std::make_shared<const Shape<double>>(parse_shape(f.required("a"), f.at("a")));
    auto b = std::make_shared<const Shape<double>>(parse_shape(f.required("b"), f.at("b")));
    s = MinkowskiShape<double>{std::move(a), std::move(b)};
  } else {
    throw Bad{f.at("type") + ": unknown shape type '" + type + "'"};
  }
  f.finish();
  return s;
}

Pose<double> parse_pose(const json& j, const std::string& path) {
  Fields f(j, path);
  Pose<double> p;
  if (const json* v = f.optional("position")) p.position = vec(*v, f.at("position"));
  if (const json* v = f.optional("rotation")) {
    const std::string rp = f.at("rotation");
    if (!v->is_array() || v->size() != 4) throw Bad{rp + ": expected [w, x, y, z]"};
    double q[4];
    for (int i = 0; i < 4; ++i) q[i] = number((*v)[i], rp + "." + std::to_string(i));
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(std::abs(n - 1.0) <= Tolerances<double>::unit_quaternion)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.9g", n);
      throw Bad{rp + ": norm " + buf + " is not 1 (a unit quaternion [w, x, y, z] is required)"};
    }
    p.rotation = Quat<double>(q[0] / n, q[1] / n, q[2] / n, q[3] / n);
  }
  f.finish();
  return p;
}

struct Motion {
  Pose<double> pose;
  Vec3<double> linear = Vec3<double>::Zero();
  Vec3<double> angular = Vec3<double>::Zero();
};

Motion parse_motion(const json& j, const std::string& path) {
  Fields f(j, path);
  Motion m;
  if (const json* v = f.optional("pose")) m.pose = parse_pose(*v, f.at("pose"));
  m.linear = vec(f.required("linear_velocity"), f.at("linear_velocity"));
  m.angular = vec(f.required("angular_velocity"), f.at("angular_velocity"));
  f.finish();
  return m;
}

Pose<double> pose_or_identity(Fields& f, std::string_view key) {
  const json* v = f.optional(key);
  return v ? parse_pose(*v, f.at(key)) : Pose<double>{};
}

void put_vec(ojson& o, const char* key, const auto& v) {
  o[key] = {static_cast<double>(v.x()), static_cast<double>(v.y()), static_cast<double>(v.z())};
}

template <class S>
void answer_distance(const Shape<double>& a, const Pose<double>& pa, const Shape<double>& b, const Pose<double>& pb,
                     ojson& out) {
  DistanceResult<S> r;
  if constexpr (std::is_same_v<S, double>) {
    r = distance<double>(a, pa, b, pb);
  } else {
    r = distance<float>(convert_shape<float>(a), pa.cast<float>(), convert_shape<float>(b), pb.cast<float>());
  }
  if (r.status == Status::invalid_input) throw Bad{r.error};
  // The protocol knows two outcomes; at the iteration cap the distance is a valid upper bound.
  const bool sep = r.status == Status::separated || (r.status == Status::max_iterations && r.distance > S(0));
  out["status"] = sep ? "separated" : "intersecting";
  out["distance"] = static_cast<double>(r.distance);
  put_vec(out, "point_a", r.point_a);
  put_vec(out, "point_b", r.point_b);
  put_vec(out, "normal", r.normal);
  out["iterations"] = r.iterations;
}

template <class S>
Shape<S> as(const Shape<double>& s) {
  if constexpr (std::is_same_v<S, double>) return s;
  else return convert_shape<S>(s);
}

template <class S>
void answer_ray(const Shape<double>& shape, const Pose<double>& pose, const Ray<double>& ray, double max_lambda,
                ojson& out) {
  RayCastOptions<S> opt;
  opt.max_lambda = static_cast<S>(max_lambda);
  const Ray<S> r{ray.origin.cast<S>(), ray.direction.cast<S>()};
  const RayHit<S> h = ray_cast<S>(as<S>(shape), pose.cast<S>(), r, opt);
  if (h.status == Status::invalid_input) throw Bad{h.error};
  // The protocol's ray_cast has no max_iterations: at the cap λ is a proven lower bound of the
  // hit, so it is reported as a (conservative) hit rather than a miss.
  const bool hit = h.status == Status::hit || h.status == Status::max_iterations;
  out["status"] = hit ? std::string("hit") : std::string(to_string(h.status));
  out["lambda"] = static_cast<double>(h.lambda);
  if (hit || h.status == Status::initially_overlapping) put_vec(out, "point", h.point);
  if (hit) put_vec(out, "normal", h.normal);
  out["iterations"] = h.iterations;
}

template <class S>
void answer_cast(const Shape<double>& a, const Pose<double>& pa, const Vec3<double>& va, const Shape<double>& b,
                 const Pose<double>& pb, const Vec3<double>& vb, CastMethod method, double target, double tolerance,
                 ojson& out) {
  ShapeCastOptions<S> opt;
  opt.method = method;
  opt.target_distance = static_cast<S>(target);
  opt.tolerance = std::max(static_cast<S>(tolerance), Tolerances<S>::cast_tolerance * S(1e-2));
  const CastHit<S> h = shape_cast<S>(as<S>(a), pa.cast<S>(), va.cast<S>(), as<S>(b), pb.cast<S>(), vb.cast<S>(), opt);
  if (h.status == Status::invalid_input) throw Bad{h.error};
  out["status"] = std::string(to_string(h.status));
  out["toi"] = static_cast<double>(h.toi);
  if (h.status == Status::hit) {
    put_vec(out, "point_a", h.point_a);
    put_vec(out, "point_b", h.point_b);
    put_vec(out, "normal", h.normal);
  }
  out["iterations"] = h.iterations;
}

bool float_precision(Fields& f) {
  const json* p = f.optional("precision");
  if (!p) return false;
  const std::string s = text(*p, "precision");
  if (s == "double") return false;
  if (s == "float") return true;
  throw Bad{"precision: unknown precision '" + s + "' (expected \"double\" or \"float\")"};
}

/// The query's method (default: the first allowed one); unknown names are errors.
std::string method_in(Fields& f, std::initializer_list<std::string_view> allowed) {
  const json* m = f.optional("method");
  if (!m) return std::string(*allowed.begin());
  const std::string s = text(*m, "method");
  for (auto a : allowed)
    if (s == a) return s;
  std::string list;
  for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  throw Bad{"method: unknown method '" + s + "' (expected one of " + list + ")"};
}

[[noreturn]] void not_implemented(const std::string& q) {
  throw Bad{"query: '" + q + "' is not implemented yet"};
}

void answer_query(const json& j, ojson& out) {
  Fields f(j, "");
  f.optional("id");
  const std::string q = text(f.required("query"), "query");
  const bool use_float = float_precision(f);
  if (q == "distance") {
    const Shape<double> a = parse_shape(f.required("a"), "a");
    const Pose<double> pa = pose_or_identity(f, "pose_a");
    const Shape<double> b = parse_shape(f.required("b"), "b");
    const Pose<double> pb = pose_or_identity(f, "pose_b");
    f.finish();
    if (use_float) answer_distance<float>(a, pa, b, pb, out);
    else answer_distance<double>(a, pa, b, pb, out);
  } else if (q == "ray_cast") {
    const Shape<double> shape = parse_shape(f.required("shape"), "shape");
    const Pose<double> pose = pose_or_identity(f, "pose");
    Ray<double> ray{vec(f.required("origin"), "origin"), vec(f.required("direction"), "direction")};
    double max_lambda = 1;
    if (const json* l = f.optional("max_lambda")) max_lambda = size(*l, "max_lambda");
    f.finish();
    if (use_float) answer_ray<float>(shape, pose, ray, max_lambda, out);
    else answer_ray<double>(shape, pose, ray, max_lambda, out);
  } else if (q == "shape_cast") {
    const Shape<double> a = parse_shape(f.required("a"), "a");
    const Pose<double> pa = pose_or_identity(f, "pose_a");
    const Vec3<double> va = vec(f.required("velocity_a"), "velocity_a");
    const Shape<double> b = parse_shape(f.required("b"), "b");
    const Pose<double> pb = pose_or_identity(f, "pose_b");
    const Vec3<double> vb = vec(f.required("velocity_b"), "velocity_b");
    const std::string method = method_in(f, {"gjk_raycast", "conservative_advancement", "mpr"});
    double target = 0, tolerance = 1e-6;
    if (const json* v = f.optional("target_distance")) target = size(*v, "target_distance");
    if (const json* v = f.optional("tolerance")) {
      tolerance = size(*v, "tolerance");
      if (!(tolerance > 0)) throw Bad{"tolerance: must be positive"};
    }
    f.finish();
    const CastMethod m = method == "conservative_advancement" ? CastMethod::conservative_advancement
                         : method == "mpr"                    ? CastMethod::mpr
                                                              : CastMethod::gjk_raycast;
    if (use_float) answer_cast<float>(a, pa, va, b, pb, vb, m, target, tolerance, out);
    else answer_cast<double>(a, pa, va, b, pb, vb, m, target, tolerance, out);
  } else if (q == "time_of_impact") {
    parse_shape(f.required("a"), "a");
    parse_motion(f.required("motion_a"), "motion_a");
    parse_shape(f.required("b"), "b");
    parse_motion(f.required("motion_b"), "motion_b");
    method_in(f, {"extrusion_brent", "conservative_advancement"});
    if (const json* v = f.optional("target_distance")) size(*v, "target_distance");
    if (const json* v = f.optional("tolerance"); v && !(size(*v, "tolerance") > 0)) throw Bad{"tolerance: must be positive"};
    f.finish();
    not_implemented(q);
  } else if (q == "define_mesh" || q == "mesh_ray_cast" || q == "mesh_sphere_cast" || q == "mesh_shape_cast") {
    not_implemented(q);
  } else {
    throw Bad{"query: unknown query '" + q + "'"};
  }
}

bool all_numbers_finite(const ojson& o) {
  if (o.is_number_float()) return std::isfinite(o.get<double>());
  if (o.is_array() || o.is_object()) {
    for (const auto& x : o)
      if (!all_numbers_finite(x)) return false;
  }
  return true;
}

}  // namespace

std::string answer_line(const std::string& raw) {
  std::string line = raw;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ojson out;
  out["id"] = nullptr;
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) j = json::parse(neutralize_overflow(line), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    out["status"] = "invalid_input";
    out["error"] = j.is_discarded() ? "line: not valid JSON" : "line: expected a JSON object";
    return out.dump();
  }
  if (auto it = j.find("id"); it != j.end()) out["id"] = *it;
  try {
    answer_query(j, out);
    if (!all_numbers_finite(out)) throw Bad{"internal: the query produced a non-finite number"};
  } catch (const Bad& e) {
    ojson err;
    err["id"] = out["id"];
    err["status"] = "invalid_input";
    err["error"] = e.message;
    return err.dump();
  } catch (const std::exception& e) {
    ojson err;
    err["id"] = out["id"];
    err["status"] = "invalid_input";
    err["error"] = std::string("internal: ") + e.what();
    return err.dump();
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

int run_query_stream(std::istream& in, std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    out << answer_line(line) << '\n';
    out.flush();
    if (!out) return 1;
  }
  return in.bad() ? 1 : 0;
}

}  // namespace impact::cli
