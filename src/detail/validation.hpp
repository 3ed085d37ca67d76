#pragma once
// impact — detail/validation.hpp: the input checks every query shares, so that each rule is
// written once and every entry point (the library's queries, meshes, levels, worlds, batches, and
// through them the tool) refuses the same input with the same words. Each rule has a fast test
// that builds nothing (`size_ok`, `point_ok`, `shape_ok`, `pose_ok`, `pair_ok`: a valid query
// allocates nothing) and an explanation built only on failure (`check_scalar`, `check_vector`,
// `validate_pair`, and `validate` of shapes.hpp for shapes and poses) that names the field the
// way the protocol does: "origin.1: not finite", "tolerance: must be positive".
#include <impact/shapes.hpp>
#include <impact/tolerances.hpp>

#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>

namespace impact::detail {

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

/// The name of a field, with an index when it has one ("half_extents.2").
inline std::string field_name(std::string_view field, int index = -1) {
  std::string s(field);
  if (index >= 0) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, falsely) on "." + std::to_string(i).
    s += '.';
    s += std::to_string(index);
  }
  return s;
}

/// Why a number input is invalid ("max_lambda: negative"), empty when it is valid: finite, ≥ 0
/// (> 0 when `positive`), at most Tolerances::max_magnitude. `index` (≥ 0) names a component.
template <class S>
std::string check_scalar(S x, std::string_view field, bool positive = false, int index = -1) {
  if (size_ok(x) && !(positive && x == S(0))) [[likely]]
    return {};
  if (!std::isfinite(x)) return field_name(field, index) + ": not finite";
  if (x < S(0) || (positive && x == S(0))) return field_name(field, index) + (positive ? ": must be positive" : ": negative");
  return field_name(field, index) + ": out of range";
}

/// Why a vector input is invalid ("velocity_a.1: not finite"), empty when it is valid: every
/// component finite and within Tolerances::max_magnitude.
template <class S>
std::string check_vector(const Vec3<S>& v, std::string_view field) {
  if (point_ok(v)) [[likely]]
    return {};
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(v[i])) return field_name(field, i) + ": not finite";
    if (std::abs(v[i]) > Tolerances<S>::max_magnitude) return field_name(field, i) + ": out of range";
  }
  return {};
}

/// What a refusal says when a fast check failed but `validate` accepted every field: a value on
/// the edge of a bound (the two are written to agree; this keeps such an input refused, not cast).
inline constexpr const char* kAtTheEdgeOfARange =
    "input: a size, coordinate or quaternion norm is at the edge of its accepted range";

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
  return kAtTheEdgeOfARange;  // only called when pair_ok() failed
}

}  // namespace impact::detail
