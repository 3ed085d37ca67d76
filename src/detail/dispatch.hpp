// impact — detail/dispatch.hpp: turning two `Shape` variants into concrete core types once per
// query. Round shapes are peeled into a core and a radius first (sphere → point + r, capsule →
// segment + r, minkowski with a sphere → the other part + r), so the templated algorithms see
// only cores and each pair of core types is instantiated once.
#pragma once

#include <impact/shapes.hpp>

#include <cmath>
#include <string>
#include <type_traits>

namespace impact::detail {

/// A shape seen as core ⊕ ball(radius): the input shape itself, or a point or a segment made for
/// a sphere or a capsule (plain members: no variant to construct or destroy per query).
template <class S>
struct Core {
  enum Kind { shape_core, point_core, segment_core };
  const Shape<S>* shape = nullptr;
  S radius = S(0);
  Kind kind = shape_core;
  Segment<S> segment;
};

template <class S>
void peel(const Shape<S>& s, Core<S>& c) {
  if (const auto* sp = std::get_if<Sphere<S>>(&s.variant())) {
    c.kind = Core<S>::point_core;
    c.radius += sp->radius;
  } else if (const auto* cp = std::get_if<Capsule<S>>(&s.variant())) {
    c.kind = Core<S>::segment_core;
    c.segment = Segment<S>{Vec3<S>(S(0), S(0), -cp->half_height), Vec3<S>(S(0), S(0), cp->half_height)};
    c.radius += cp->radius;
  } else if (const auto* mp = std::get_if<MinkowskiShape<S>>(&s.variant())) {
    if (const auto* sb = std::get_if<Sphere<S>>(&mp->b->variant())) {
      c.radius += sb->radius;
      peel(*mp->a, c);
    } else if (const auto* sa = std::get_if<Sphere<S>>(&mp->a->variant())) {
      c.radius += sa->radius;
      peel(*mp->b, c);
    } else {
      c.shape = &s;
    }
  } else {
    c.shape = &s;
  }
}

/// Calls f with the concrete type of a core (one dispatch).
template <class S, class F>
decltype(auto) visit_core(const Core<S>& c, F&& f) {
  if (c.kind == Core<S>::point_core) return f(Point<S>{});
  if (c.kind == Core<S>::segment_core) return f(c.segment);
  return std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, Sphere<S>> || std::is_same_v<X, Capsule<S>>)
          return f(Point<S>{});  // unreachable: peel() replaced these by a point or a segment
        else
          return f(x);
      },
      c.shape->variant());
}

/// Fast check of a shape's sizes (finite, ≥ 0, in range); `validate` explains a failure.
template <class S>
bool size_ok(S x) {
  return x >= S(0) && x <= Tolerances<S>::max_magnitude;  // false for NaN too
}
template <class S>
bool point_ok(const Vec3<S>& p) {
  // Component by component: a comparison with NaN is false (Eigen's maxCoeff may skip a NaN).
  constexpr S m = Tolerances<S>::max_magnitude;
  return std::abs(p.x()) <= m && std::abs(p.y()) <= m && std::abs(p.z()) <= m;
}
template <class S>
bool shape_ok(const Shape<S>& s) {
  return std::visit(
      [](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Point<S>>) return true;
        else if constexpr (std::is_same_v<T, Sphere<S>>) return size_ok(x.radius);
        else if constexpr (std::is_same_v<T, Box<S>>)
          return size_ok(x.half_extents.x()) && size_ok(x.half_extents.y()) && size_ok(x.half_extents.z());
        else if constexpr (std::is_same_v<T, Capsule<S>> || std::is_same_v<T, Cylinder<S>> || std::is_same_v<T, Cone<S>>)
          return size_ok(x.radius) && size_ok(x.half_height);
        else if constexpr (std::is_same_v<T, Segment<S>>) return point_ok(x.a) && point_ok(x.b);
        else if constexpr (std::is_same_v<T, Triangle<S>>) return point_ok(x.a) && point_ok(x.b) && point_ok(x.c);
        else if constexpr (std::is_same_v<T, Hull<S>>) return !x.vertices.empty() && x.neighbor_offset.size() == x.vertices.size() + 1;
        else if constexpr (std::is_same_v<T, MinkowskiShape<S>>) return x.a && x.b && shape_ok(*x.a) && shape_ok(*x.b);
        else return x.shape && shape_ok(*x.shape) && point_ok(x.pose.position) &&
                    std::abs(x.pose.rotation.norm() - S(1)) <= Tolerances<S>::unit_quaternion;
      },
      s.variant());
}
template <class S>
bool pose_ok(const Pose<S>& p) {
  // validate()'s rule, |‖q‖ − 1| ≤ tol, decided without a square root well inside the band (half
  // the tolerance: rounding cannot move a norm that far) and by validate()'s own expression near
  // its edges, so the two never disagree (they did in float: a norm of 1.00000095 passed
  // validate() and failed here, answering invalid_input with an empty message; found by fuzzing).
  // False for NaN too.
  constexpr S lo = (S(1) - Tolerances<S>::unit_quaternion / 2) * (S(1) - Tolerances<S>::unit_quaternion / 2);
  constexpr S hi = (S(1) + Tolerances<S>::unit_quaternion / 2) * (S(1) + Tolerances<S>::unit_quaternion / 2);
  const S n2 = p.rotation.squaredNorm();
  if (!point_ok(p.position)) return false;
  if (n2 >= lo && n2 <= hi) return true;
  return std::abs(std::sqrt(n2) - S(1)) <= Tolerances<S>::unit_quaternion;
}

/// Why a vector input is invalid ("velocity_a.1: not finite"), empty when it is valid.
template <class S>
std::string check_vector(const Vec3<S>& v, const std::string& field) {
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(v[i])) return field + "." + std::to_string(i) + ": not finite";
    if (std::abs(v[i]) > Tolerances<S>::max_magnitude) return field + "." + std::to_string(i) + ": out of range";
  }
  return {};
}

/// True when both shapes and poses are valid (fast, no allocation).
template <class S>
bool pair_ok(const Shape<S>& a, const Pose<S>& pa, const Shape<S>& b, const Pose<S>& pb) {
  return shape_ok(a) && shape_ok(b) && pose_ok(pa) && pose_ok(pb);
}

/// Validates two shapes and poses; empty when all are valid, else "a.radius: negative".
template <class S>
std::string validate_pair(const Shape<S>& a, const Pose<S>& pa, const Shape<S>& b, const Pose<S>& pb,
                          const char* na = "a", const char* npa = "pose_a", const char* nb = "b",
                          const char* npb = "pose_b") {
  if (auto e = validate(a); !e.empty()) return std::string(na) + "." + e;
  if (auto e = validate(pa); !e.empty()) return std::string(npa) + "." + e;
  if (auto e = validate(b); !e.empty()) return std::string(nb) + "." + e;
  if (auto e = validate(pb); !e.empty()) return std::string(npb) + "." + e;
  // Only called when pair_ok() failed: a value on the edge of a bound that validate() accepted.
  return "input: a size, coordinate or quaternion norm is at the edge of its accepted range";
}

/// Calls f(core_a, radius_a, core_b, radius_b) with the concrete core types of a and b.
template <class S, class F>
decltype(auto) visit_cores(const Shape<S>& a, const Shape<S>& b, F&& f) {
  Core<S> ca, cb;
  peel(a, ca);
  peel(b, cb);
  return visit_core(ca, [&](const auto& x) {
    return visit_core(cb, [&](const auto& y) { return f(x, ca.radius, y, cb.radius); });
  });
}

}  // namespace impact::detail
