// impact — detail/cylinder_cast.hpp: the linear cast of two cylinders by Newton's method on the
// support function of their configuration space obstacle, certified by a point of the obstacle.
//
// The cast is the ray t·d from the origin against C = A − B(0) grown by R (the cores' radii plus
// the target distance). For every direction n with n·d < 0, the plane n·y = h_C(n) bounds C, and
// the ray cannot reach C before λ(n) = h_C(n)/(n·d): every n gives a proven lower bound of the
// time of impact, and the time of impact is the largest of them. With n = e + U·w (e = −d/|d|, U
// an orthonormal basis of d's normal plane) the problem is to minimise F(w) = h_C(e + U·w), a
// convex function of two variables: its gradient is Uᵀ·s_C(n) (the support point) and its Hessian
// Uᵀ·H·U, with H = Σ ρ/|P·n|·t·tᵀ over the two cylinders (t the rim's tangent at the support
// point, P the projection off the axis) plus R·(I − n̂n̂ᵀ)/|n|. Both are closed forms.
//
// F has creases where a cylinder's support jumps from one rim to the other (n ⊥ axis: a side in
// contact) and cone points where n lies along an axis (a cap in contact). So:
//   - the cap normals (±axis of A or B) and the side–side normal (A's axis × B's axis) are tried
//     first, each checked by its flat face (a disc, or a parallelogram of two side segments);
//   - Newton's method runs from n = e, damped by halving, and stops at a crease it would cross:
//     there it goes on along the crease (one variable) until the side's multiplier t (the height
//     on the side that puts the support point on the ray) is known; inside [−η, η] that is the
//     answer, outside the crease is released toward the side t points to.
// An answer is kept only with a certificate: a point y of C ⊕ ball(R) (points of the two
// cylinders) within `tol` of the ray point x = λ·d, so the shapes are within target + tol at λ,
// while λ is a lower bound: never late. A lower bound past max_lambda proves a miss. Anything
// else (a cone point approached by Newton, both creases at once away from the side–side normal,
// no certificate within the step cap, λ ≤ 0) answers `unknown` and the caller runs the GJK ray
// cast. Computed in double for both precisions.
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
  if (det > 1e-12) {
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

/// The cast of the ray t·d, 0 ≤ t ≤ max_lambda, against parts[0] ⊕ parts[1] ⊕ ball(radius)
/// (see the file comment). `tol`: the certificate's bound on the distance to C ⊕ ball(R) at the
/// answer (length).
inline CylinderCastAnswer cylinder_cast(const CastCylinder (&world)[2], double radius, const Vec3<double>& d,
                                        double max_lambda, double tol, int max_steps = kCylinderCastMaxSteps) {
  using namespace cylinder_cast_detail;
  CylinderCastAnswer out;
  constexpr double inf = std::numeric_limits<double>::infinity();
  const double dn = d.norm();
  if (!(dn > 0) || !std::isfinite(dn)) return out;
  for (const auto& c : world)
    if (!(c.radius > 0) || !(c.half_height > 0)) return out;
  // Work in a frame whose z axis is e = −d/|d|: there n = (w, 1), Uᵀ·v = (v.x, v.y), x = −λ·|d|·z.
  // (The basis is Duff et al.'s branch-light orthonormal basis, 2017: no square root.)
  const V3 e = -d / dn;
  const double sg = std::copysign(1.0, e.z()), ba = -1 / (sg + e.z()), bb = e.x() * e.y() * ba;
  Mat3<double> q;
  q.row(0) = V3(1 + sg * e.x() * e.x() * ba, sg * bb, -sg * e.x());
  q.row(1) = V3(bb, sg + e.y() * e.y() * ba, -e.y());
  q.row(2) = e;
  CastCylinder parts[2];
  double size = radius;  // a scale for rounding (L1 norms: no square roots)
  for (int k = 0; k < 2; ++k) {
    parts[k] = {q * world[k].centre, q * world[k].axis, world[k].radius, world[k].half_height};
    size += world[k].centre.cwiseAbs().sum() + world[k].radius + world[k].half_height;
  }
  auto ray_point = [&](double lambda) { return V3(0, 0, -lambda * dn); };

  // A hit at (n, λ) certified by the point y = part points + R·n̂ of C ⊕ ball(R).
  auto accept = [&](const V3& n, double lambda, const V3& ya, const V3& yb, int steps) {
    const V3 nh = n.normalized();
    const V3 y = ya + yb + radius * nh;
    if (!(lambda > 0) || !((ray_point(lambda) - y).norm() <= tol)) return false;
    out.kind = CylinderCastAnswer::Kind::hit;
    out.lambda = lambda;
    out.normal = q.transpose() * nh;
    out.point_a = q.transpose() * ya;
    out.point_b = q.transpose() * -yb;
    out.iterations = steps;
    return true;
  };
  auto miss = [&](int steps) {
    out.kind = CylinderCastAnswer::Kind::miss;
    out.iterations = steps;
    return out;
  };

  PartAt at[2];
  // A sweep passing beside C: the plane through the ray's line facing away from C's centre
  // separates them when C's support value there is below −tol (a direction of F's horizon,
  // n·d = 0; within tol at t = 0 is the caller's initially_overlapping test).
  if (const V3 side(-(parts[0].centre.x() + parts[1].centre.x()), -(parts[0].centre.y() + parts[1].centre.y()), 0);
      side.squaredNorm() > 0) {
    at[0] = part_at(parts[0], side);
    at[1] = part_at(parts[1], side);
    if (support_value(parts, at, side, radius) < -tol * side.norm()) return miss(0);
  }
  // Lower bounds at the flat contacts' normals: the caps (n = ±axis) and side against side.
  double cap_lambda[2] = {-inf, -inf};  // −∞: not tried (a cap facing across the ray)
  PartAt cap_other[2];                  // the other part at cap k's normal
  for (int k = 0; k < 2; ++k) {
    const CastCylinder& c = parts[k];
    if (std::abs(c.axis.z()) < 1e-3) continue;  // λ unbounded near there
    const V3 n = sign_of(c.axis.z()) * c.axis;
    const int j = 1 - k;
    const PartAt& o = cap_other[k] = part_at(parts[j], n);
    const double h0 = c.centre.dot(n) + c.half_height + parts[j].centre.dot(n) + parts[j].radius * o.p +
                      parts[j].half_height * std::abs(o.alpha) + radius;
    cap_lambda[k] = h0 / (-n.z() * dn);
    if (cap_lambda[k] > max_lambda) return miss(0);
  }
  double side_lambda = -inf;
  V3 cr = parts[0].axis.cross(parts[1].axis);
  PartAt side_at[2];
  if (const double l = cr.norm(); l > 1e-6) {
    cr *= sign_of(cr.z()) / l;
    if (cr.z() >= 1e-3) {
      for (int j = 0; j < 2; ++j) side_at[j] = part_at(parts[j], cr);
      side_lambda = support_value(parts, side_at, cr, radius) / (-cr.z() * dn);
      if (side_lambda > max_lambda) return miss(0);
    }
  }
  // Newton's method on F(w) = h_C(w, 1), along the creases it meets (an active set). The crease
  // of part k is c_k·w = −a_k.z with c_k = (a_k.x, a_k.y).
  V2 c[2];
  for (int k = 0; k < 2; ++k) c[k] = parts[k].axis.head<2>();
  V2 w = V2::Zero();
  bool on[2] = {false, false};  // following the part's crease: its side is in contact
  double forced[2] = {0, 0};    // rim chosen on release while n is still on the crease
  bool fresh = false;
  int probe = -1;  // crease just reached, its far side and the step's direction
  double probe_side = 0;
  V2 probe_dir = V2::Zero();
  const double step_tol = 1e-7;
  double h = 0;
  auto evaluate = [&parts, radius](const V3& n, PartAt* a) __attribute__((always_inline)) {
    a[0] = part_at(parts[0], n);
    a[1] = part_at(parts[1], n);
    return support_value(parts, a, n, radius);
  };
  // Newton heading into a cap's cone point: the iterates crowd the point while F's minimum may
  // lie past it. Jump to the point (n along the axis) and leave it along a descent direction:
  // the subgradients there are g_r + ρ·(v.x, v.y) over the disc of v ⊥ a, |v| ≤ 1 (g_r the
  // gradient of everything but the cap's radial term); the disc's v nearest to cancelling g_r,
  // pushed to the rim, gives the least steep ascent, and its negative a descent (checked).
  int jumps = 0;
  auto escape = [&](int k) -> bool {
    const CastCylinder& ck = parts[k];
    const V3 nt = ck.axis / ck.axis.z();
    const double ht = -cap_lambda[k] * dn;  // F at the cone point
    const int j = 1 - k;
    const PartAt& o = cap_other[k];  // the other part there (scale-free)
    PartAt a2[2];
    // g_r without the other part's height term, which is a crease when its side faces n.
    const V3 sr = ck.centre + sign_of(ck.axis.z()) * ck.half_height * ck.axis + parts[j].centre +
                  parts[j].radius * o.m(parts[j]) + (radius / nt.norm()) * nt;
    const V2 g0 = sr.head<2>(), cj = parts[j].half_height * c[j];
    const V3 b1 = ck.axis.unitOrthogonal(), b2 = ck.axis.cross(b1);
    Eigen::Matrix2d m;
    m << b1.x(), b2.x(), b1.y(), b2.y();
    const double det = m.determinant();
    if (!(std::abs(det) > 1e-12)) return false;
    const Eigen::Matrix2d mi = m.inverse(), mti = mi.transpose();
    // The slope of F along δ: g0·δ + η_j·|c_j·δ| + ρ·|Mᵀ·δ| (σ·η_j·c_j·δ off the crease). For
    // a fixed side σ of the crease, with y = Mᵀ·δ it is ρ·(|y| − v·y), v = −M⁻¹·(g0 + σ·η_j·c_j)/ρ:
    // negative for y along v when |v| > 1. Both sides are tried when n lies on the crease, and
    // the crease itself.
    const bool crease = std::abs(o.alpha) <= 1e-6;  // within the first trial steps of it
    auto slope = [&](const V2& x) {
      const double side = crease ? std::abs(cj.dot(x)) : sign_of(o.alpha) * cj.dot(x);
      return g0.dot(x) + side + ck.radius * (m.transpose() * x).norm();
    };
    V2 dir = V2::Zero();
    double best = 0;
    auto consider = [&](V2 x) {
      if (!(x.norm() > 0)) return;
      x.normalize();
      if (const double sl = slope(x); sl < best) best = sl, dir = x;
    };
    for (double sg : {-1.0, 1.0}) {
      if (!crease && sg != sign_of(o.alpha)) continue;
      const V2 v = -(mi * (g0 + sg * cj)) / ck.radius;
      if (v.norm() > 1) consider(mti * v);
    }
    if (crease) {
      consider(V2(-c[j].y(), c[j].x()));
      consider(V2(c[j].y(), -c[j].x()));
    }
    if (!(best < 0)) return false;  // the cone point is the minimum: the cap test decides
    double tau = 0.05 * (1 + nt.head<2>().norm());
    for (int halvings = 0; halvings < 16; ++halvings, tau *= 0.5) {
      const V2 w2 = nt.head<2>() + tau * dir;
      if (evaluate(V3(w2.x(), w2.y(), 1), a2) < ht) {
        w = w2;
        on[0] = on[1] = false;
        forced[0] = forced[1] = 0;
        return true;
      }
    }
    return false;
  };
  // Start. The time of impact is the largest lower bound, so only the largest can be certified:
  // a flat contact is checked only when its bound beats n = e's, and Newton starts from there
  // otherwise (next to the cap's cone point, or on both creases).
  h = evaluate(V3(0, 0, 1), at);
  fresh = true;
  if (-h / dn > max_lambda) return miss(0);
  const int best_cap = cap_lambda[0] >= cap_lambda[1] ? 0 : 1;
  if (side_lambda > std::max(cap_lambda[best_cap], -h / dn)) {
    const double lambda = side_lambda;
    const V3 mid0 = parts[0].centre + parts[0].radius * side_at[0].m(parts[0]);
    const V3 mid1 = parts[1].centre + parts[1].radius * side_at[1].m(parts[1]);
    double t0 = 0, t1 = 0;
    parallelogram_point(ray_point(lambda) - mid0 - mid1 - radius * cr, parts[0].axis, parts[0].half_height,
                        parts[1].axis, parts[1].half_height, t0, t1);
    if (accept(cr, lambda, mid0 + t0 * parts[0].axis, mid1 + t1 * parts[1].axis, 0)) return out;
    w = cr.head<2>() / cr.z();
    on[0] = on[1] = true;
    fresh = false;
  } else if (cap_lambda[best_cap] >= -h / dn - 1e-12 * (1 + std::abs(h / dn))) {  // (level: e is the cone point)
    const int k = best_cap, j = 1 - k;
    const CastCylinder& c = parts[k];
    const double lambda = cap_lambda[k];
    const V3 n = sign_of(c.axis.z()) * c.axis;
    // The face of C there: the cap's disc plus the other part's face, a segment of its side (of
    // which its rim point is an end) or, with parallel axes, its own cap's disc in a parallel
    // plane. The points nearest the ray point: discs in closed form; a disc and a segment by
    // trying the heights that are exact where the ray meets the face inside.
    const PartAt& o = cap_other[k];
    const CastCylinder& cj = parts[j];
    const V3 cap = c.centre + c.half_height * n;
    const V3 z = ray_point(lambda) - radius * n;
    V3 yk, yj;
    if (!(o.p > 1e-9)) {
      const V3 other = cj.centre + sign_of(o.alpha) * cj.half_height * cj.axis;
      V3 off = z - cap - other;
      off -= n.dot(off) * n;
      const double l = off.norm(), both = c.radius + cj.radius;
      if (l > both) off *= both / l;
      yk = cap + (c.radius / both) * off;
      yj = other + (cj.radius / both) * off;
    } else {
      // The height t on the segment: its ends, the height meeting the disc's plane, and the
      // height nearest the disc's centre in that plane (one of them is exact where the ray
      // meets the face inside).
      const V3 mid = cj.centre + cj.radius * o.m(cj);
      const V3 v0 = z - mid - cap, pa = cj.axis - cj.axis.dot(n) * n;
      const double eta = cj.half_height, along = cj.axis.dot(n);
      auto miss2 = [&](double t) {
        const V3 v = v0 - t * cj.axis;
        const double nu = v.dot(n), l = std::max(0.0, (v - nu * n).norm() - c.radius);
        return nu * nu + l * l;
      };
      double t = sign_of(o.alpha) * eta;  // the rim point first: the common case
      yj = mid + t * cj.axis;
      yk = disc_point(cap, c.axis, c.radius, z - yj);
      // The segment matters only with the side facing n (else the rim point is the face).
      if (std::abs(o.alpha) <= 1e-6 && !accept(n, lambda, k == 0 ? yk : yj, k == 0 ? yj : yk, 0)) {
        double best = miss2(t);
        auto consider = [&](double x) {
          x = std::clamp(x, -eta, eta);
          if (const double m = miss2(x); m < best) best = m, t = x;
        };
        consider(-t);
        if (std::abs(along) > 1e-12) consider(v0.dot(n) / along);
        if (const double pp = pa.squaredNorm(); pp > 1e-24) consider(v0.dot(pa) / pp);
        yj = mid + t * cj.axis;
        yk = disc_point(cap, c.axis, c.radius, z - yj);
      }
    }
    if (out.kind == CylinderCastAnswer::Kind::hit || accept(n, lambda, k == 0 ? yk : yj, k == 0 ? yj : yk, 0))
      return out;
    ++jumps;
    if (!escape(k)) return out;
    fresh = false;
  }
  const double inv_dn = 1 / dn;
  for (int steps = 0;; ++steps) {
    const V3 n(w.x(), w.y(), 1);
    const double nn2 = 1 + w.squaredNorm();
    if (!fresh) h = evaluate(n, at);  // else the damping's trial point was this one
    fresh = false;
    for (int k = 0; k < 2; ++k)
      if (!(at[k].p * at[k].p > 1e-18 * nn2)) return out;  // a cap's cone point: the cap test decides
    const double lambda = -h * inv_dn;
    if (lambda > max_lambda) return miss(steps);
    if (!std::isfinite(lambda)) return out;
    // Support point (the heights on followed sides left out).
    V3 yp[2], mk[2];
    double sigma[2], inv_p[2];
    for (int k = 0; k < 2; ++k) {
      inv_p[k] = 1 / at[k].p;
      mk[k] = at[k].pn * inv_p[k];
      sigma[k] = on[k] ? 0.0
                 : (at[k].alpha * at[k].alpha > 1e-24 * nn2 || forced[k] == 0) ? sign_of(at[k].alpha)
                                                                             : forced[k];
      yp[k] = parts[k].centre + parts[k].radius * mk[k] + sigma[k] * parts[k].half_height * parts[k].axis;
    }
    const double nn = radius > 0 ? std::sqrt(nn2) : 1.0;  // |n| (only the ball's terms need it)
    const V3 s = yp[0] + yp[1] + (radius / nn) * n;
    const V2 g = s.head<2>();

    if (probe >= 0) {
      // Just onto a crease: when F still descends on its far side along the step, the side is
      // not in contact there and the step goes on across it.
      const int k = probe;
      probe = -1;
      if ((g + probe_side * parts[k].half_height * c[k]).dot(probe_dir) < 0) {
        on[k] = false;
        forced[k] = probe_side;
        fresh = true;
        continue;
      }
    }
    if (on[0] && on[1]) {
      // The side–side normal: heights t with g + t0·c0 + t1·c1 = 0 say which crease to keep.
      const double det = c[0].x() * c[1].y() - c[0].y() * c[1].x();
      if (!(std::abs(det) > 1e-12 * c[0].norm() * c[1].norm())) return out;
      const double t0 = (-g.x() * c[1].y() + g.y() * c[1].x()) / det;
      const double t1 = (-c[0].x() * g.y() + c[0].y() * g.x()) / det;
      const bool in0 = std::abs(t0) <= parts[0].half_height, in1 = std::abs(t1) <= parts[1].half_height;
      if (in0 && in1) {
        accept(n, lambda, yp[0] + t0 * parts[0].axis, yp[1] + t1 * parts[1].axis, steps);
        return out;
      }
      if (!in0) on[0] = false, forced[0] = sign_of(t0);
      if (!in1) on[1] = false, forced[1] = sign_of(t1);
      fresh = true;
      continue;
    }
    const int side = on[0] ? 0 : on[1] ? 1 : -1;
    if (steps >= max_steps) return out;

    // Hessian in w: Σ ρ/p·(t.xy)(t.xy)ᵀ + R/|n|·(I − (w/|n|)(w/|n|)ᵀ), t = a × m.
    double h00 = 0, h01 = 0, h11 = 0;
    if (radius > 0) {
      const double r = radius / nn, r2 = r / nn2;
      h00 = r - r2 * w.x() * w.x();
      h01 = -r2 * w.x() * w.y();
      h11 = r - r2 * w.y() * w.y();
    }
    for (int k = 0; k < 2; ++k) {
      const V3& a = parts[k].axis;
      const double tx = a.y() * mk[k].z() - a.z() * mk[k].y(), ty = a.z() * mk[k].x() - a.x() * mk[k].z();
      const double f = parts[k].radius * inv_p[k];
      h00 += f * tx * tx;
      h01 += f * tx * ty;
      h11 += f * ty * ty;
    }
    V2 delta;
    if (side < 0) {
      const double ridge = 1e-12 * (h00 + h11) + 1e-300;
      const double a = h00 + ridge, dd = h11 + ridge;
      const double det = a * dd - h01 * h01;
      if (!(det > 0)) return out;
      const double inv = 1 / det;
      delta = V2(-(dd * g.x() - h01 * g.y()) * inv, -(a * g.y() - h01 * g.x()) * inv);
    } else {
      const V2 dir = V2(-c[side].y(), c[side].x()).normalized();
      const double curv = h00 * dir.x() * dir.x() + 2 * h01 * dir.x() * dir.y() + h11 * dir.y() * dir.y();
      if (!(curv > 1e-300)) return out;
      delta = -(dir.dot(g) / curv) * dir;
    }
    if (delta.norm() <= step_tol * (1 + w.norm())) {
      // Converged: Newton's step estimates the error of n, within step_tol of the normal.
      // Without a certificate yet (the gap is first order in that error), the step is taken.
      if (side < 0) {
        if (accept(n, lambda, yp[0], yp[1], steps)) return out;
      } else {
        // The side's height t balancing the gradient across the crease: g + t·c = 0.
        const double t = -g.dot(c[side]) / c[side].squaredNorm();
        if (std::abs(t) > parts[side].half_height) {
          forced[side] = sign_of(t);  // the optimum lies off the crease, on t's rim
          on[side] = false;
          fresh = true;
          continue;
        }
        if (accept(n, lambda, yp[0] + (side == 0 ? t : 0.0) * parts[0].axis,
                   yp[1] + (side == 1 ? t : 0.0) * parts[1].axis, steps))
          return out;
      }
    }
    // The step ends at the first crease it would cross.
    int crease = -1;
    for (int k = 0; k < 2; ++k) {
      if (on[k]) continue;
      const double da = c[k].dot(delta);
      const double a0 = at[k].alpha;
      const double s0 = a0 * a0 > 1e-24 * nn2 ? sign_of(a0) : sigma[k];
      if (da != 0 && s0 * (a0 + da) < 0) {
        delta *= std::clamp(-a0 / da, 0.0, 1.0);
        crease = k;
      }
    }
    // Damped: halve while F grows. F is convex and smooth up to the crease, so the Newton
    // direction descends; a step that does not descend at all means the model is wrong here
    // (near a cap's cone point): GJK decides.
    PartAt trial[2];
    for (int halvings = 0;; ++halvings) {
      const double h2 = evaluate(V3(w.x() + delta.x(), w.y() + delta.y(), 1), trial);
      if (h2 <= h + 1e-13 * (std::abs(h) + size)) {
        h = h2;
        break;
      }
      if (halvings == 12) return out;
      delta *= 0.5;
      crease = -1;
    }
    for (int k = 0; k < 2 && jumps < 2; ++k) {
      if (trial[k].p < 0.5 * at[k].p && cap_lambda[k] >= -h / dn) {
        ++jumps;
        if (!escape(k)) return out;
        crease = -2;
        break;
      }
    }
    if (crease == -2) continue;
    w += delta;
    if (crease >= 0) {
      on[crease] = true;
      forced[crease] = 0;
      if (side < 0) {  // whether the crease stops the step is decided at the crease point
        probe = crease;
        probe_dir = delta.normalized();
        probe_side = c[crease].dot(delta) > 0 ? 1.0 : -1.0;
      }
      w -= ((parts[crease].axis.z() + c[crease].dot(w)) / c[crease].squaredNorm()) * c[crease];
      if (side >= 0) {  // onto both creases: their intersection
        const double det = c[0].x() * c[1].y() - c[0].y() * c[1].x();
        if (!(std::abs(det) > 1e-12 * c[0].norm() * c[1].norm())) return out;
        const V2 r(-parts[0].axis.z(), -parts[1].axis.z());
        w = V2(r.x() * c[1].y() - r.y() * c[0].y(), c[0].x() * r.y() - c[1].x() * r.x()) / det;
      }
      continue;
    }
    at[0] = trial[0];
    at[1] = trial[1];
    fresh = true;
  }
}

}  // namespace impact::detail
