// impact — parse.cpp: the strict JSON reading shared by the `impact query` handlers.
#include "parse.hpp"

#include "json_line.hpp"

#include <impact/tolerances.hpp>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace impact::cli {

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

double number(const json& v, const std::string& path) {
  if (is_overflow(v)) throw Bad{path + ": not finite (the literal overflows a double)"};
  if (!v.is_number()) throw Bad{path + ": expected a number"};
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw Bad{path + ": not finite"};
  if (std::abs(x) > Tolerances<double>::max_magnitude) throw Bad{path + ": out of range (|x| > 1e12)"};
  return x;
}

std::int64_t integer(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi) {
  const auto range = [&] {
    std::string r("[");
    r.append(std::to_string(lo)).append(", ").append(std::to_string(hi)).append("]");
    return r;
  };
  if (!v.is_number_integer()) throw Bad{path + ": expected an integer in " + range() + " (written without '.' or exponent)"};
  // An unsigned above int64's range is above every hi.
  const bool above = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
  const std::int64_t x = above ? hi : v.get<std::int64_t>();
  if (above || x < lo || x > hi) throw Bad{path + ": out of range (expected an integer in " + range() + ")"};
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

Shape<double> parse_shape(const json& j, const std::string& path, int minkowski_depth) {
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
    if (minkowski_depth >= kMaxMinkowskiDepth)
      throw Bad{path + ": minkowski nested deeper than " + std::to_string(kMaxMinkowskiDepth) +
                " levels (the minkowski nesting limit)"};
    const int d = minkowski_depth + 1;
    auto a = std::make_shared<const Shape<double>>(parse_shape(f.required("a"), f.at("a"), d));
    auto b = std::make_shared<const Shape<double>>(parse_shape(f.required("b"), f.at("b"), d));
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

}  // namespace impact::cli
