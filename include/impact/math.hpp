// impact — continuous collision detection.
// math.hpp: vectors, rotations and poses, on Eigen, templated on the scalar (float or double).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <cmath>
#include <limits>

namespace impact {

/// A 3-vector of scalar S (float or double). Unaligned fixed size: no alignment rules for users.
template <class S>
using Vec3 = Eigen::Matrix<S, 3, 1>;

/// A 3x3 matrix of scalar S (rotation matrices inside the queries).
template <class S>
using Mat3 = Eigen::Matrix<S, 3, 3>;

/// A unit quaternion. Eigen stores (x, y, z, w); the protocol and `Quat(w, x, y, z)` take w first.
template <class S>
using Quat = Eigen::Quaternion<S>;

/// A rigid placement: a point p of a shape's local frame is at `rotation * p + position` in the
/// world. `rotation` must be a unit quaternion (see `validate_pose`).
template <class S>
struct Pose {
  Vec3<S> position{S(0), S(0), S(0)};       ///< Local origin in world coordinates (length).
  Quat<S> rotation{S(1), S(0), S(0), S(0)};   ///< Local-to-world rotation, unit norm.

  /// World point of local point `p`.
  [[nodiscard]] Vec3<S> apply(const Vec3<S>& p) const { return rotation * p + position; }
  /// Local point of world point `p`.
  [[nodiscard]] Vec3<S> apply_inverse(const Vec3<S>& p) const {
    return rotation.conjugate() * (p - position);
  }
  /// The identity pose.
  static Pose identity() { return {}; }
  /// The pose of a frame placed at `inner` within this one (a compound's part in the world, from
  /// the body's pose and the part's pose in the body); the rotation renormalised.
  [[nodiscard]] Pose compose(const Pose& inner) const {
    return {apply(inner.position), (rotation * inner.rotation).normalized()};
  }

  /// This pose with scalar T (float <-> double).
  template <class T>
  [[nodiscard]] Pose<T> cast() const {
    return {position.template cast<T>(), rotation.template cast<T>()};
  }
};

/// A pose as a rotation matrix and a translation: what the queries use in their inner loops
/// (a matrix-vector product is cheaper than a quaternion rotation).
template <class S>
struct Transform {
  Mat3<S> rotation = Mat3<S>::Identity();  ///< Local-to-world rotation matrix.
  Vec3<S> translation{S(0), S(0), S(0)};   ///< Local origin in world coordinates.

  Transform() = default;
  Transform(const Mat3<S>& r, const Vec3<S>& t) : rotation(r), translation(t) {}
  /// The pose's rotation is normalised first: validation accepts quaternions within
  /// Tolerances::unit_quaternion of unit length, and such a one must place a shape rigidly.
  explicit Transform(const Pose<S>& p) : rotation(unit(p.rotation).toRotationMatrix()), translation(p.position) {}
  /// q / ‖q‖ (q itself when its squared norm rounds to 1, so unit input keeps its bits).
  [[nodiscard]] static Quat<S> unit(const Quat<S>& q) {
    const S n2 = q.squaredNorm();
    return n2 == S(1) ? q : Quat<S>(q.coeffs() / std::sqrt(n2));
  }

  [[nodiscard]] Vec3<S> apply(const Vec3<S>& p) const { return rotation * p + translation; }
  [[nodiscard]] Vec3<S> apply_inverse(const Vec3<S>& p) const {
    return rotation.transpose() * (p - translation);
  }
  /// Transform mapping frame b to the frame of `this`: inverse(this) * b.
  [[nodiscard]] Transform relative(const Transform& b) const {
    return {rotation.transpose() * b.rotation, rotation.transpose() * (b.translation - translation)};
  }
};

/// True when every component is finite.
template <class Derived>
[[nodiscard]] inline bool all_finite(const Eigen::MatrixBase<Derived>& v) {
  return v.allFinite();
}

/// Squared scalar.
template <class S>
[[nodiscard]] constexpr S square(S x) {
  return x * x;
}

}  // namespace impact
