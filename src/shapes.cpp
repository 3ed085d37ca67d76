// impact — shapes.cpp: names, validation, bounds and scalar conversion of variant shapes.
#include <impact/shapes.hpp>

#include "detail/validation.hpp"

#include <algorithm>
#include <cstdio>

namespace impact {
namespace {

template <class>
[[maybe_unused]] inline constexpr bool kAlwaysFalse = false;

}  // namespace

template <class S>
const char* shape_name(const Shape<S>& s) {
  return std::visit(
      [](const auto& x) -> const char* {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Point<S>>) return "point";
        else if constexpr (std::is_same_v<T, Sphere<S>>) return "sphere";
        else if constexpr (std::is_same_v<T, Box<S>>) return "box";
        else if constexpr (std::is_same_v<T, Capsule<S>>) return "capsule";
        else if constexpr (std::is_same_v<T, Cylinder<S>>) return "cylinder";
        else if constexpr (std::is_same_v<T, Cone<S>>) return "cone";
        else if constexpr (std::is_same_v<T, Segment<S>>) return "segment";
        else if constexpr (std::is_same_v<T, Triangle<S>>) return "triangle";
        else if constexpr (std::is_same_v<T, Hull<S>>) return "hull";
        else if constexpr (std::is_same_v<T, MinkowskiShape<S>>) return "minkowski";
        else if constexpr (std::is_same_v<T, TransformedShape<S>>) return "transformed";
        else static_assert(kAlwaysFalse<T>);
      },
      s.variant());
}

template <class S>
std::string validate(const Pose<S>& p) {
  if (auto e = detail::check_vector(p.position, "position"); !e.empty()) return e;
  const auto& q = p.rotation.coeffs();
  for (int i = 0; i < 4; ++i) {
    // Eigen stores x, y, z, w; the protocol indexes w first.
    if (!std::isfinite(q[i])) return "rotation." + std::to_string((i + 1) % 4) + ": not finite";
  }
  const S n = p.rotation.norm();
  if (!(std::abs(n - S(1)) <= Tolerances<S>::unit_quaternion)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "rotation: norm %.9g is not 1 (unit quaternion required)", static_cast<double>(n));
    return buf;
  }
  return {};
}

template <class S>
std::string validate(const Shape<S>& s) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Point<S>>) {
          return {};
        } else if constexpr (std::is_same_v<T, Sphere<S>>) {
          return detail::check_scalar(x.radius, "radius");
        } else if constexpr (std::is_same_v<T, Box<S>>) {
          for (int i = 0; i < 3; ++i)
            if (auto e = detail::check_scalar(x.half_extents[i], "half_extents", false, i); !e.empty()) return e;
          return {};
        } else if constexpr (std::is_same_v<T, Capsule<S>> || std::is_same_v<T, Cylinder<S>> ||
                             std::is_same_v<T, Cone<S>>) {
          if (auto e = detail::check_scalar(x.radius, "radius"); !e.empty()) return e;
          return detail::check_scalar(x.half_height, "half_height");
        } else if constexpr (std::is_same_v<T, Segment<S>>) {
          if (auto e = detail::check_vector(x.a, "a"); !e.empty()) return e;
          return detail::check_vector(x.b, "b");
        } else if constexpr (std::is_same_v<T, Triangle<S>>) {
          if (auto e = detail::check_vector(x.a, "a"); !e.empty()) return e;
          if (auto e = detail::check_vector(x.b, "b"); !e.empty()) return e;
          return detail::check_vector(x.c, "c");
        } else if constexpr (std::is_same_v<T, Hull<S>>) {
          if (x.vertices.empty()) return "points: empty hull";
          // Vertices were checked by Hull::build; a query only checks that the hull was built.
          if (x.neighbor_offset.size() != x.vertices.size() + 1) return "points: hull not built (use Hull::build)";
          return {};
        } else if constexpr (std::is_same_v<T, MinkowskiShape<S>>) {
          if (!x.a) return "a: missing";
          if (!x.b) return "b: missing";
          if (auto e = validate(*x.a); !e.empty()) return "a." + e;
          if (auto e = validate(*x.b); !e.empty()) return "b." + e;
          return {};
        } else if constexpr (std::is_same_v<T, TransformedShape<S>>) {
          if (!x.shape) return "shape: missing";
          if (auto e = validate(x.pose); !e.empty()) return "pose." + e;
          if (auto e = validate(*x.shape); !e.empty()) return "shape." + e;
          return {};
        } else {
          static_assert(kAlwaysFalse<T>);
        }
      },
      s.variant());
}

template <class S>
S bounding_radius(const Shape<S>& s) {
  return std::visit(
      [](const auto& x) -> S {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Point<S>>) return S(0);
        else if constexpr (std::is_same_v<T, Sphere<S>>) return x.radius;
        else if constexpr (std::is_same_v<T, Box<S>>) return x.half_extents.norm();
        else if constexpr (std::is_same_v<T, Capsule<S>>) return x.radius + x.half_height;
        else if constexpr (std::is_same_v<T, Cylinder<S>> || std::is_same_v<T, Cone<S>>)
          return std::hypot(x.radius, x.half_height);
        else if constexpr (std::is_same_v<T, Segment<S>>) return std::max(x.a.norm(), x.b.norm());
        else if constexpr (std::is_same_v<T, Triangle<S>>) return std::max({x.a.norm(), x.b.norm(), x.c.norm()});
        else if constexpr (std::is_same_v<T, Hull<S>>) {
          S r = 0;
          for (const auto& v : x.vertices) r = std::max(r, v.norm());
          return r;
        } else if constexpr (std::is_same_v<T, MinkowskiShape<S>>) return bounding_radius(*x.a) + bounding_radius(*x.b);
        else if constexpr (std::is_same_v<T, TransformedShape<S>>) return x.pose.position.norm() + bounding_radius(*x.shape);
        else static_assert(kAlwaysFalse<T>);
      },
      s.variant());
}

template <class S>
Vec3<S> interior_point(const Shape<S>& s) {
  return std::visit(
      [](const auto& x) -> Vec3<S> {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, MinkowskiShape<S>>) return interior_point(*x.a) + interior_point(*x.b);
        else if constexpr (std::is_same_v<T, TransformedShape<S>>) return x.pose.apply(interior_point(*x.shape));
        else return interior_point<S, T>(x);
      },
      s.variant());
}

template <class T, class S>
Shape<T> convert_shape(const Shape<S>& s) {
  auto v = [](const Vec3<S>& p) -> Vec3<T> { return p.template cast<T>(); };
  return std::visit(
      [&](const auto& x) -> Shape<T> {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, Point<S>>) return Point<T>{};
        else if constexpr (std::is_same_v<X, Sphere<S>>) return Sphere<T>{T(x.radius)};
        else if constexpr (std::is_same_v<X, Box<S>>) return Box<T>{v(x.half_extents)};
        else if constexpr (std::is_same_v<X, Capsule<S>>) return Capsule<T>{T(x.radius), T(x.half_height)};
        else if constexpr (std::is_same_v<X, Cylinder<S>>) return Cylinder<T>{T(x.radius), T(x.half_height)};
        else if constexpr (std::is_same_v<X, Cone<S>>) return Cone<T>{T(x.radius), T(x.half_height)};
        else if constexpr (std::is_same_v<X, Segment<S>>) return Segment<T>{v(x.a), v(x.b)};
        else if constexpr (std::is_same_v<X, Triangle<S>>) return Triangle<T>{v(x.a), v(x.b), v(x.c)};
        else if constexpr (std::is_same_v<X, Hull<S>>) {
          Hull<T> h;
          for (const auto& p : x.vertices) h.vertices.push_back(v(p));
          h.neighbor_offset = x.neighbor_offset;
          h.neighbors = x.neighbors;
          h.seeds = x.seeds;
          for (const auto& f : x.faces) h.faces.push_back({v(f.normal), T(f.offset)});
          h.dimension = x.dimension;
          h.center = v(x.center);
          return h;
        } else if constexpr (std::is_same_v<X, MinkowskiShape<S>>) {
          return MinkowskiShape<T>{std::make_shared<const Shape<T>>(convert_shape<T>(*x.a)),
                                   std::make_shared<const Shape<T>>(convert_shape<T>(*x.b))};
        } else if constexpr (std::is_same_v<X, TransformedShape<S>>) {
          return TransformedShape<T>{std::make_shared<const Shape<T>>(convert_shape<T>(*x.shape)),
                                     x.pose.template cast<T>()};
        } else {
          static_assert(kAlwaysFalse<X>);
        }
      },
      s.variant());
}

#define IMPACT_INSTANTIATE(S)                                   \
  template const char* shape_name<S>(const Shape<S>&);          \
  template std::string validate<S>(const Shape<S>&);            \
  template std::string validate<S>(const Pose<S>&);             \
  template S bounding_radius<S>(const Shape<S>&);               \
  template Vec3<S> interior_point<S>(const Shape<S>&);          \
  template Shape<float> convert_shape<float, S>(const Shape<S>&); \
  template Shape<double> convert_shape<double, S>(const Shape<S>&);
IMPACT_INSTANTIATE(float)
IMPACT_INSTANTIATE(double)
#undef IMPACT_INSTANTIATE

}  // namespace impact
