// impact — detail/cylinder_cast/parts.hpp: the two cylinders of the cylinder cast as parts of
// the configuration space obstacle C = A − B, their support function, and the nearest points of
// the flat faces of C the cast checks (a disc, a parallelogram). See detail/cylinder_cast.hpp.
#pragma once

#include <impact/math.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact::detail {

/// A cylinder as a part of C = A − B in A's frame: A's part is its cylinder, B's the reflection
/// −B (centre −c_B, same axis, radius and half height; the point of B is minus the part's point).
struct CastCylinder {
  Vec3<double> centre;  ///< Centre of the part (−c_B for B).
  Vec3<double> axis;    ///< Unit axis.
  double radius = 0;
  double half_height = 0;
};

struct CylinderCastAnswer {
  enum class Kind { unknown, hit, miss } kind = Kind::unknown;
  double lambda = 0;                         ///< Hit: time of impact.
  Vec3<double> normal = Vec3<double>::Zero();  ///< Hit: unit normal from A toward B.
  Vec3<double> point_a = Vec3<double>::Zero();  ///< Hit: point of A's core (A's frame).
  Vec3<double> point_b = Vec3<double>::Zero();  ///< Hit: point of B's core at time 0 (A's frame).
  int iterations = 0;                        ///< Newton steps.
};

/// Newton steps (creases and releases included) before handing over to GJK.
inline constexpr int kCylinderCastMaxSteps = 24;

namespace cylinder_cast_detail {

using V3 = Vec3<double>;
using V2 = Eigen::Vector2d;

/// A 2×2 system counts as singular when its determinant is at most this fraction of the product
/// of its columns' norms (dimensionless; for unit vectors the sine of the angle between them):
/// two creases, two axes or a disc's basis seen along the ray that are parallel to rounding.
inline constexpr double kSingularDet2 = 1e-12;

/// One part's support at direction n (not unit): α = a·n, P·n = n − α·a and p = |P·n|. The
/// rim point's radial direction m = P·n/p and the rim's tangent a × m are formed only where
/// needed (a trial point of the line search needs only the support value).
struct PartAt {
  double alpha = 0, p = 0;
  V3 pn;
  [[nodiscard]] V3 m(const CastCylinder& c) const {
    return p > 0 ? V3(pn * (1 / p)) : V3(c.axis.unitOrthogonal());  // along the axis: any radial direction
  }
};

[[gnu::always_inline]] inline PartAt part_at(const CastCylinder& c, const V3& n) {
  PartAt e;
  e.alpha = c.axis.dot(n);
  e.pn = n - e.alpha * c.axis;
  e.p = std::sqrt(e.pn.squaredNorm());
  return e;
}

/// h_C(n) over the two parts plus R·|n|: the exact support value.
[[gnu::always_inline]] inline double support_value(const CastCylinder* parts, const PartAt* at, const V3& n, double radius) {
  double h = radius > 0 ? radius * n.norm() : 0.0;
  for (int k = 0; k < 2; ++k)
    h += parts[k].centre.dot(n) + parts[k].radius * at[k].p + parts[k].half_height * std::abs(at[k].alpha);
  return h;
}

inline double sign_of(double x) { return x < 0 ? -1.0 : 1.0; }

/// The point of the disc (centre q0, unit normal a, radius r) nearest z.
inline V3 disc_point(const V3& q0, const V3& a, double r, const V3& z) {
  V3 off = z - q0;
  off -= a.dot(off) * a;
  const double l = off.norm();
  if (l > r) off *= r / l;
  return q0 + off;
}

/// min over |ta| ≤ ea, |tb| ≤ eb of ‖z − ta·a − tb·b‖ (unit a, b): the nearest point of a
/// parallelogram, interior or one of its four edges.
inline void parallelogram_point(const V3& z, const V3& a, double ea, const V3& b, double eb, double& ta,
                                double& tb) {
  const double c = a.dot(b), za = z.dot(a), zb = z.dot(b);
  const double det = 1 - c * c;
  double best = std::numeric_limits<double>::infinity();
  auto consider = [&](double x, double y) {
    const double r = (z - x * a - y * b).squaredNorm();
    if (r < best) {
      best = r;
      ta = x;
      tb = y;
    }
  };
  if (det > kSingularDet2) {
    const double x = (za - c * zb) / det, y = (zb - c * za) / det;
    if (std::abs(x) <= ea && std::abs(y) <= eb) {
      ta = x;
      tb = y;
      return;
    }
  }
  for (double sx : {-1.0, 1.0}) consider(sx * ea, std::clamp(zb - c * sx * ea, -eb, eb));
  for (double sy : {-1.0, 1.0}) consider(std::clamp(za - c * sy * eb, -ea, ea), sy * eb);
}

}  // namespace cylinder_cast_detail

}  // namespace impact::detail
