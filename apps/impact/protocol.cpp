// impact — protocol.cpp: parsing, validating and answering `impact query` lines.
//
// Parsing is strict (docs/protocol.md): unknown fields, wrong types, vectors of the
// wrong length, non-finite or out-of-range numbers and non-unit quaternions are errors whose
// message starts with the field's path ("pose_b.rotation: ..."). The parser reports an error by
// throwing `Bad`, caught in `answer_line`; the library itself never throws.
#include "protocol.hpp"

#include "json_line.hpp"
#include "mesh_protocol.hpp"
#include "parse.hpp"
#include "world_protocol.hpp"

#include <impact/cast.hpp>
#include <impact/query.hpp>
#include <impact/toi.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace impact::cli {
namespace {

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

/// The protocol's tolerance in the query's precision, no finer than that precision can honour:
/// 1e-2 of the library's default tolerance relative to the bodies' size (bounding radii, the
/// distance travelled, the target; so a millimetre-sized scene keeps its own tolerance), and no
/// finer than 64 ulps of the coordinates (a scene far from the origin).
template <class S>
S cast_tolerance(double tolerance, const Shape<double>& a, const Vec3<double>& position_a, const Vec3<double>& velocity_a,
                 const Shape<double>& b, const Vec3<double>& position_b, const Vec3<double>& velocity_b,
                 double target) {
  const double size =
      std::max({bounding_radius(a), bounding_radius(b), velocity_a.norm(), velocity_b.norm(), target});
  const double reach = std::max(position_a.norm(), position_b.norm()) + size;
  const double floor = std::max(double(Tolerances<S>::cast_tolerance) * 1e-2 * size,
                                64.0 * double(std::numeric_limits<S>::epsilon()) * reach);
  return std::max(static_cast<S>(tolerance), static_cast<S>(floor));
}

/// The answer fields shared by shape_cast and time_of_impact (a CastHit or a ToiHit).
template <class Hit>
void put_cast_answer(const Hit& h, ojson& out) {
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

template <class S>
void answer_cast(const Shape<double>& a, const Pose<double>& pa, const Vec3<double>& va, const Shape<double>& b,
                 const Pose<double>& pb, const Vec3<double>& vb, CastMethod method, double target, double tolerance,
                 ojson& out) {
  ShapeCastOptions<S> opt;
  opt.method = method;
  opt.target_distance = static_cast<S>(target);
  opt.tolerance = cast_tolerance<S>(tolerance, a, pa.position, va, b, pb.position, vb, target);
  put_cast_answer(shape_cast<S>(as<S>(a), pa.cast<S>(), va.cast<S>(), as<S>(b), pb.cast<S>(), vb.cast<S>(), opt), out);
}

template <class S>
void answer_toi(const Shape<double>& a, const Motion& ma, const Shape<double>& b, const Motion& mb, ToiMethod method,
                double target, double tolerance, ojson& out) {
  ToiOptions<S> opt;
  opt.method = method;
  opt.target_distance = static_cast<S>(target);
  opt.tolerance = cast_tolerance<S>(tolerance, a, ma.pose.position, ma.linear, b, mb.pose.position, mb.linear, target);
  auto motion = [](const Motion& m) {
    return impact::Motion<S>{m.pose.cast<S>(), m.linear.cast<S>(), m.angular.cast<S>()};
  };
  put_cast_answer(time_of_impact<S>(as<S>(a), motion(ma), as<S>(b), motion(mb), opt), out);
}

/// The optional `target_distance` (≥ 0) and `tolerance` (> 0) of the cast queries.
void read_target_and_tolerance(Fields& f, double& target, double& tolerance) {
  if (const json* v = f.optional("target_distance")) target = size(*v, "target_distance");
  if (const json* v = f.optional("tolerance")) {
    tolerance = size(*v, "tolerance");
    if (!(tolerance > 0)) throw Bad{"tolerance: must be positive"};
  }
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
    read_target_and_tolerance(f, target, tolerance);
    f.finish();
    const CastMethod m = method == "conservative_advancement" ? CastMethod::conservative_advancement
                         : method == "mpr"                    ? CastMethod::mpr
                                                              : CastMethod::gjk_raycast;
    if (use_float) answer_cast<float>(a, pa, va, b, pb, vb, m, target, tolerance, out);
    else answer_cast<double>(a, pa, va, b, pb, vb, m, target, tolerance, out);
  } else if (q == "time_of_impact") {
    const Shape<double> a = parse_shape(f.required("a"), "a");
    const Motion ma = parse_motion(f.required("motion_a"), "motion_a");
    const Shape<double> b = parse_shape(f.required("b"), "b");
    const Motion mb = parse_motion(f.required("motion_b"), "motion_b");
    const std::string method = method_in(f, {"extrusion_brent", "conservative_advancement"});
    double target = 0, tolerance = 1e-6;
    read_target_and_tolerance(f, target, tolerance);
    f.finish();
    const ToiMethod m = method == "conservative_advancement" ? ToiMethod::conservative_advancement
                                                              : ToiMethod::extrusion_brent;
    if (use_float) answer_toi<float>(a, ma, b, mb, m, target, tolerance, out);
    else answer_toi<double>(a, ma, b, mb, m, target, tolerance, out);
  } else if (is_mesh_query(q)) {
    answer_mesh_query(q, f, use_float, out);
  } else if (is_world_query(q)) {
    answer_world_query(q, f, use_float, j.contains("precision"), out);
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

std::string invalid_answer(const ojson& id, const std::string& error) {
  ojson err;
  err["id"] = id;
  err["status"] = "invalid_input";
  err["error"] = error;
  return err.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string answer_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ParsedLine parsed = parse_line(line);
  if (!parsed.error.empty()) return invalid_answer(parsed.id, parsed.error);
  const json& j = parsed.value;
  ojson out;
  out["id"] = nullptr;
  if (auto it = j.find("id"); it != j.end()) {
    // The id is echoed as written; a number no double holds cannot be (protocol: invalid input).
    if (holds_overflow(*it)) return invalid_answer(nullptr, "id: holds a number that overflows a double (not finite)");
    out["id"] = *it;
  }
  try {
    answer_query(j, out);
    if (!all_numbers_finite(out)) throw Bad{"internal: the query produced a non-finite number"};
  } catch (const Bad& e) {
    return invalid_answer(out["id"], e.message);
  } catch (const std::exception& e) {
    return invalid_answer(out["id"], std::string("internal: ") + e.what());
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

int run_query_stream(std::istream& in, std::ostream& out) {
  std::string line;
  for (;;) {
    const LineRead r = read_line(in, line);
    if (r == LineRead::end) break;
    if (r == LineRead::too_long) {
      out << invalid_answer(nullptr, "line: longer than " + std::to_string(kMaxLineBytes) + " bytes (the line limit)");
    } else {
      out << answer_line(line);
    }
    out << '\n';
    out.flush();
    if (!out) return 1;
  }
  return in.bad() ? 1 : 0;
}

}  // namespace impact::cli
