#pragma once
// impact — toi/kinematics.hpp: one body's rigid motion over the step, evaluated at any t, and the
// two bodies' relative motion as the time-of-impact bounds use it (docs/toi.md).
#include <impact/toi.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact::toi {

/// One shape's motion, precomputed for evaluation at any t.
///
/// The rotation at t is exp(t·ω)·R0 by Rodrigues' formula on the matrix, with θ = t·|ω| and
/// K the cross-product matrix of the unit axis:
///   R(t) = R0 + sin θ·(K·R0) + (1 − cos θ)·(K²·R0),   1 − cos θ = 2·sin²(θ/2),
/// the same rotation as Motion::at's quaternion (to rounding), with K·R0 and K²·R0 computed once.
template <class S>
struct Kinematics {
  Motion<S> motion;
  S radius = 0;  ///< Radius of the core about the local origin (what rotation moves).
  S spin = 0;    ///< |ω|
  Vec3<S> axis = Vec3<S>::Zero();
  Mat3<S> r0, kr0, kkr0;  ///< R0, K·R0, K²·R0

  Kinematics() : Kinematics(Motion<S>{}, S(0)) {}
  Kinematics(const Motion<S>& m, S r) : motion(m), radius(r) {
    motion.pose.rotation.normalize();
    spin = m.angular_velocity.norm();
    if (spin > S(0)) axis = m.angular_velocity / spin;
    r0 = motion.pose.rotation.toRotationMatrix();
    Mat3<S> k;
    k << S(0), -axis.z(), axis.y(), axis.z(), S(0), -axis.x(), -axis.y(), axis.x(), S(0);
    kr0 = k * r0;
    kkr0 = k * kr0;
  }
  [[nodiscard]] const Vec3<S>& position() const { return motion.pose.position; }
  [[nodiscard]] const Vec3<S>& velocity() const { return motion.linear_velocity; }
  [[nodiscard]] const Vec3<S>& omega() const { return motion.angular_velocity; }

  /// The placement at time t.
  [[nodiscard]] Transform<S> at(S t) const {
    if (t == kept_t_) return kept_;
    Transform<S> tf;
    tf.translation = motion.pose.position + t * motion.linear_velocity;
    if (spin > S(0) && t != S(0)) {  // (at t = 0 the formula gives R0 up to the signs of zeros)
      const S half = S(0.5) * t * spin;
      const S sh = std::sin(half), ch = std::cos(half);
      tf.rotation = r0 + (S(2) * sh * ch) * kr0 + (S(2) * sh * sh) * kkr0;
    } else {
      tf.rotation = r0;
    }
    return tf;
  }

  /// Keeps the placement at t, which at(t) then returns as it is, without its sine and cosine: a
  /// part swept against many triangles (PartSweep) asks each of them for the same end of the step.
  void keep(S t) {
    kept_t_ = std::numeric_limits<S>::quiet_NaN();
    kept_ = at(t);
    kept_t_ = t;
  }

 private:
  S kept_t_ = std::numeric_limits<S>::quiet_NaN();  ///< NaN: none kept (equal to no t)
  Transform<S> kept_;
};

/// What the bounds need of the two motions together, computed once per query.
template <class S>
struct RelativeMotion {
  Vec3<S> vrel;  ///< v_B − v_A
  /// An upper bound on how fast any point of B approaches any point of A: |v_rel| + |ωA|·rA +
  /// |ωB|·rB (length per step). Brent's time tolerance is the length tolerance over it.
  S speed = 0;
  /// Rounding of a separation: a few ulps of the largest coordinate involved (length). Every
  /// acceptance asks for the target plus this, so rounding cannot accept a touching interval.
  S slack = 0;
  /// For directions turning with a body (DirectionStore::make), per body X (0: A, 1: B): the
  /// largest distance of x_B − x_A from X's spin axis over [0, 1], and v_rel's parts along and
  /// across that axis; and |ωA − ωB|. Each rounded up by 8 ulps.
  S dperp[2] = {0, 0}, v_along[2] = {0, 0}, v_across[2] = {0, 0};
  S wrel = 0;

  RelativeMotion(const Kinematics<S>& ka, const Kinematics<S>& kb, S ra, S rb, S target_distance) {
    vrel = kb.velocity() - ka.velocity();
    vrel_norm_ = vrel.norm();
    reach_ = std::max(ka.position().norm() + ka.velocity().norm(), kb.position().norm() + kb.velocity().norm());
    // d(t) = x_B(t) − x_A(t) is linear in t and its distance from a line convex: the larger end.
    const Vec3<S> d0 = kb.position() - ka.position(), d1 = d0 + vrel;
    const S up = S(1) + S(8) * std::numeric_limits<S>::epsilon();
    for (int x = 0; x < 2; ++x) {
      const Vec3<S>& u = x == 0 ? ka.axis : kb.axis;
      dperp[x] = std::max(d0.cross(u).norm(), d1.cross(u).norm()) * up;
      v_along[x] = vrel.dot(u);
      v_across[x] = vrel.cross(u).norm() * up;
    }
    wrel = (ka.omega() - kb.omega()).norm() * up;
    set_sizes(ka, kb, ra, rb, target_distance);
  }

  /// The same motions with other radii or target (kb.radius: each triangle of a mesh swept by one
  /// part, toi::PartSweep): speed and slack again, bit for bit as a fresh RelativeMotion gives them;
  /// everything else depends on the motions only.
  void set_sizes(const Kinematics<S>& ka, const Kinematics<S>& kb, S ra, S rb, S target_distance) {
    speed = vrel_norm_ + ka.spin * ka.radius + kb.spin * kb.radius;
    const S scale = reach_ + ka.radius + kb.radius + ra + rb + target_distance;
    slack = S(16) * std::numeric_limits<S>::epsilon() * scale;
  }

 private:
  S vrel_norm_ = 0;  ///< |v_rel|
  S reach_ = 0;      ///< the larger |x| + |v| of the two motions
};

/// Rotation speed of the separation along a world direction s: K(s) = |s × ωA|·rA + |s × ωB|·rB,
/// the most the bodies' turning can change it per unit time (Vlack & Tachi's bound).
template <class S>
S rotation_speed(const Vec3<S>& s, const Kinematics<S>& ka, const Kinematics<S>& kb) {
  return s.cross(ka.omega()).norm() * ka.radius + s.cross(kb.omega()).norm() * kb.radius;
}

}  // namespace impact::toi
