// impact — detail/projection_distance.hpp: distance between two cylinders by Newton's method on
// alternating projections, certified by GJK's duality gap.
//
// On curved pairs GJK converges linearly: each support point only approximates the curved face
// of the configuration space obstacle, and two cylinders meeting rim to rim or rim to side take
// 12–14 iterations to reach a relative gap of 1e-12. The closest point of one cylinder to a
// point, though, is a closed form (clamp the height, scale the radial part), and so is its
// Jacobian. The closest pair of two convex sets is a fixed point of x ↦ P_B(P_A(x)), the
// composition of the two projections; Newton's method on that map, (I − J_B·J_A)·δ = P_B(P_A(x)) − x,
// converges quadratically wherever the features in contact are curved (rim, side) and in one step
// where they are flat (caps), whose projections are affine. The answer is kept only when the
// support mappings certify it to GJK's relative tolerance: ‖x_A − x_B‖ (an upper bound) minus
// the separation along the contact normal u (a lower bound, two support calls) is at most
// rel·‖x_A − x_B‖ plus a rounding floor. u comes from the features' own geometry (a side's or
// a cap's normal, or the common perpendicular of two rims), which stays accurate near contact.
// Anything else (a singular step, no certificate after 12 steps, a shallow overlap that does
// not settle) returns false and the caller runs GJK from its usual start. The boolean test
// stops at the first separating axis or common point. Certified answers are more accurate than
// GJK's on these pairs: GJK's relative test passes with distances off by up to 5e-10 on curved
// contacts, Newton's by 1e-14.
#pragma once

#include "detail/closed_form.hpp"
#include <impact/math.hpp>
#include <impact/shapes.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>

#include <cmath>
#include <type_traits>

namespace impact::detail {

/// Newton steps before handing over to GJK. On the benchmark's cylinder pairs certified answers
/// take 3.3 steps on average, and 99.5% (double) or 98% (float) are certified within 12.
inline constexpr int kProjectionMaxSteps = 12;

template <class A, class B, class S>
inline constexpr bool kProjectionPair = std::is_same_v<A, Cylinder<S>> && std::is_same_v<B, Cylinder<S>>;

/// Closest point q of the solid cylinder c (local frame, axis z) to p, the Jacobian J = ∂q/∂p
/// (symmetric), and the outward unit normal at q where it is unique (q on the side or a cap;
/// zero on a rim). Returns true when p is inside (q = p, J = I).
template <class S>
bool project_cylinder(const Cylinder<S>& c, const Vec3<S>& p, Vec3<S>& q, Mat3<S>& J, Vec3<S>& normal) {
  const S rho2 = p.x() * p.x() + p.y() * p.y();
  const bool radial = rho2 > c.radius * c.radius;
  const bool axial = std::abs(p.z()) > c.half_height;
  J.setZero();
  normal.setZero();
  if (radial) {
    const S rho = std::sqrt(rho2);
    const S k = c.radius / rho;
    const S ex = p.x() / rho, ey = p.y() / rho;
    q.x() = k * p.x();
    q.y() = k * p.y();
    // k·(I − e·eᵀ) in the cross-section: moving p along the radius does not move q.
    J(0, 0) = k * (S(1) - ex * ex);
    J(1, 1) = k * (S(1) - ey * ey);
    J(0, 1) = J(1, 0) = -k * ex * ey;
    if (!axial) normal = Vec3<S>(ex, ey, S(0));
  } else {
    q.x() = p.x();
    q.y() = p.y();
    J(0, 0) = J(1, 1) = S(1);
  }
  if (axial) {
    q.z() = p.z() > S(0) ? c.half_height : -c.half_height;
    if (!radial) normal.z() = p.z() > S(0) ? S(1) : S(-1);
  } else {
    q.z() = p.z();
    J(2, 2) = S(1);
  }
  return !radial && !axial;
}

template <class S>
struct ProjectionDistance {
  Status status = Status::separated;
  Vec3<S> pa{S(0), S(0), S(0)};  ///< Closest point on A (A's frame).
  Vec3<S> pb{S(0), S(0), S(0)};  ///< Closest point on B (A's frame).
  /// The CSO point nearest the origin: length ‖pa − pb‖, direction −(contact normal).
  Vec3<S> v{S(0), S(0), S(0)};
  S lower = S(0);                ///< Proven lower bound of the distance (certificate).
  int iterations = 0;            ///< Newton steps taken.
};

/// Distance between cylinders a and b (b placed by b_in_a) to GJK's relative tolerance `rel`.
/// True with `out` filled when certified (separated) or when a common point was found
/// (intersecting); false when the caller must run GJK (then only out.iterations is set).
/// `boolean` answers the intersection test instead: separated as soon as the normal is a
/// separating axis, with `lower` its separation. `start` (optional, A's frame) is where the
/// iteration begins, a point near B's closest point (GjkCache keeps the last one).
template <class S>
bool cylinder_distance(const Cylinder<S>& a, const Cylinder<S>& b, const Transform<S>& b_in_a, S rel, int max_steps,
                       bool boolean, ProjectionDistance<S>& out, const Vec3<S>* start = nullptr) {
  const Mat3<S>& R = b_in_a.rotation;
  const Vec3<S>& t = b_in_a.translation;
  const Mat3<S> Rt = R.transpose();
  const S scale = t.norm() + a.radius + a.half_height + b.radius + b.half_height;
  const S eps = std::numeric_limits<S>::epsilon();
  const S floor = S(64) * eps * scale;  // rounding level of gaps at this scale
  const S noise = S(16) * eps * scale;  // rounding level of a Newton step

  // Start on B's axis, at the point nearest A's axis.
  Vec3<S> ca, x;
  if (start) {
    x = *start;
  } else {
    const Vec3<S> axis_b = b.half_height * R.col(2);
    closest_segments<S>(Vec3<S>(S(0), S(0), -a.half_height), Vec3<S>(S(0), S(0), a.half_height), Vec3<S>(t - axis_b),
                        Vec3<S>(t + axis_b), ca, x);
  }

  for (int it = 0; it < max_steps; ++it) {
    out.iterations = it + 1;
    Vec3<S> xa, xbl, na, nbl;
    Mat3<S> ja, jbl;
    project_cylinder(a, x, xa, ja, na);
    const bool inside_b = project_cylinder(b, Vec3<S>(Rt * (xa - t)), xbl, jbl, nbl);
    if (inside_b) {  // xa is on A and inside B
      out.status = Status::intersecting;
      out.pa = out.pb = xa;
      out.v.setZero();
      out.lower = S(0);
      return true;
    }
    const Vec3<S> xb = R * xbl + t;
    const Vec3<S> v = xa - xb;
    const S vv = v.squaredNorm();
    if (vv <= floor * floor) {  // touching to rounding
      out.status = Status::intersecting;
      out.pa = xa;
      out.pb = xb;
      out.v = v;
      out.lower = S(0);
      return true;
    }
    const Vec3<S> f = xb - x;
    if (boolean || f.squaredNorm() <= S(1e-8) * rel * vv + noise * noise) {
      // The contact normal u (A toward B) of this pair, from the features' own geometry where it
      // is defined: the normal of a side or a cap at its point, or on two rims the common
      // perpendicular of their tangents (the segment between the closest points of two circles
      // is perpendicular to both). Each comes from one point's coordinates, accurate to
      // rounding, where the direction of v, a difference of nearby points, is not: near contact
      // of a flat feature a tilt of 1e-10 moves the support to the far edge of the cap.
      const S len = std::sqrt(vv);
      Vec3<S> u = -v / len;
      if (na.squaredNorm() > S(0)) {
        u = na;
      } else if (nbl.squaredNorm() > S(0)) {
        u = -(R * nbl);
      } else {
        const Vec3<S> c = Vec3<S>(-xa.y(), xa.x(), S(0)).cross(R * Vec3<S>(-xbl.y(), xbl.x(), S(0)));
        const S cc = c.squaredNorm();
        if (cc > S(1e-6) * xa.squaredNorm() * xbl.squaredNorm()) {
          // Oriented out of A: into the cone of A's rim normals, which holds e + sign(z)·z.
          const Vec3<S> out_a(xa.x() / a.radius, xa.y() / a.radius, xa.z() > S(0) ? S(1) : S(-1));
          u = (c.dot(out_a) >= S(0) ? S(1) : S(-1)) / std::sqrt(cc) * c;
        }
      }
      // Certificate: the separation along u, from two support calls, a lower bound of the
      // distance; ‖v‖ is an upper bound. It is tried only once the step f is 1e-8 of
      // the relative tolerance (in length²): the gap is second order in the points' error, so
      // it passes while they are still off along the surfaces by up to √rel·‖v‖ (measured: the
      // direction between them 1e-6 rad from the normal); the step's own size is first order.
      const S sep = u.dot(R * b.support(Vec3<S>(Rt * -u)) + t - a.support(u));
      if (sep > S(0) && (boolean || len - sep <= rel * len + floor)) {
        out.status = Status::separated;
        out.pa = xa;
        out.pb = xb;
        out.v = -len * u;
        out.lower = sep;
        return true;
      }
    }
    // Newton step on x ↦ P_B(P_A(x)) − x.
    const Mat3<S> m = Mat3<S>::Identity() - R * jbl * Rt * ja;
    // Least squares with a tiny ridge (Levenberg–Marquardt): where both projections leave a
    // direction free (two caps, or two sides along parallel axes) I − J_B·J_A is singular and the
    // fixed points form a line or a plane; the minimum-norm step lands on them.
    const Mat3<S> n = m.transpose() * m;
    // The ridge keeps the system's condition number near 1/(4096·ε), within what the
    // arithmetic resolves (1e-12 of the trace in double, 5e-4 in float).
    const S ridge = S(4096) * eps * n.trace() + std::numeric_limits<S>::min();
    const Mat3<S> h = n + ridge * Mat3<S>::Identity();
    const Mat3<S> adj = (Mat3<S>() << h.row(1).cross(h.row(2)), h.row(2).cross(h.row(0)), h.row(0).cross(h.row(1)))
                            .finished();  // symmetric: the adjugate needs no transpose
    const S det = h.row(0).dot(h.row(1).cross(h.row(2)));
    if (!(det > S(0)) || !(det < std::numeric_limits<S>::infinity())) return false;
    x += adj * (m.transpose() * f) / det;
    if (!x.allFinite()) return false;
  }
  return false;
}

}  // namespace impact::detail
