// impact — detail/cylinder_cast/caster.hpp: the state of one cylinder cast and its phases (see
// detail/cylinder_cast.hpp for the algorithm):
//   1. the frame: z along e = −d/|d|, where n = (w, 1);
//   2. lower bounds at the flat contacts' normals (the caps, side against side), and the sweep
//      passing beside C (flat_contact_bounds);
//   3. the start: the flat contact whose bound is largest checked by its face, else n = e
//      (start, side_side_face, cap_face);
//   4. Newton's method on F(w) = h_C(w, 1) along the creases it meets (newton_iteration, in
//      detail/cylinder_cast/newton.hpp), with the jump off a cap's cone point (escape).
// Every answer goes through accept (a certificate) or miss (a lower bound past max_lambda).
#pragma once

#include "detail/cylinder_cast/parts.hpp"

#include <impact/math.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact::detail::cylinder_cast_detail {

/// A flat contact's normal is tried only when its cosine with −d (its z in the ray frame) is at
/// least this (dimensionless): its bound λ = h/(−n·d) grows without bound toward n ⊥ d, and
/// rounding with it.
inline constexpr double kMinNormalAlongRay = 1e-3;
/// Sine of the angle between the two axes below which they count as parallel and the side–side
/// normal (A's axis × B's axis) is undefined (dimensionless).
inline constexpr double kMinAxesSine = 1e-6;
/// Cosine of the angle between the other part's axis and a cap's normal within which the other
/// part's side faces that normal, so that n lies on its crease (dimensionless): its face is then
/// a segment of the side, not a rim point; near a cone point, within the first trial steps of it.
inline constexpr double kSideFacingCosine = 1e-6;
/// Sine of the angle between the other part's axis and a cap's normal below which the two are
/// parallel and the other part's face there is its own cap's disc (dimensionless).
inline constexpr double kParallelAxesSine = 1e-9;
/// A segment meets the disc's plane only where its axis is off the plane by more than this
/// cosine (dimensionless); its nearest height to the disc's centre exists only where its axis
/// projected on the plane has more than this squared length (dimensionless, sine²).
inline constexpr double kSegmentOffPlaneCosine = 1e-12;
inline constexpr double kSegmentInPlaneSineSq = 1e-24;
/// A cap's bound within this relative distance of n = e's counts as level with it (relative):
/// e is then the cap's cone point itself, and the cap is checked by its face.
inline constexpr double kLevelBound = 1e-12;
/// Leaving a cone point: the first trial step along the descent direction, relative to
/// 1 + |w| at the point (w: the tangent of the tilt of n from e, dimensionless), and how many
/// times it is halved before giving up (count).
inline constexpr double kEscapeFirstStep = 0.05;
inline constexpr int kEscapeHalvings = 16;
/// Cone jumps per cast (count): a third approach of a cone point answers unknown (GJK decides).
inline constexpr int kMaxJumps = 2;

/// The state of one cast. `run` goes through the phases in order; each phase returns a Flow.
class CylinderCaster {
 public:
  /// What a phase says next: go on with this phase's successor, start the next Newton
  /// iteration, or stop with the answer in `out` (unknown unless accept or miss set it).
  enum class Flow { proceed, restart, stop };

  /// d: the ray's direction, dn = |d| (finite, positive); the parts valid (positive radii and
  /// half heights): cylinder_cast checks both.
  CylinderCaster(const CastCylinder (&world)[2], double radius_, const V3& d, double dn_, double max_lambda_,
                 double tol_, int max_steps_)
      : radius(radius_), dn(dn_), inv_dn(1 / dn_), max_lambda(max_lambda_), tol(tol_), max_steps(max_steps_) {
    // Work in a frame whose z axis is e = −d/|d|: there n = (w, 1), Uᵀ·v = (v.x, v.y), x = −λ·|d|·z.
    // (The basis is Duff et al.'s branch-light orthonormal basis, 2017: no square root.)
    const V3 e = -d / dn;
    const double sg = std::copysign(1.0, e.z()), ba = -1 / (sg + e.z()), bb = e.x() * e.y() * ba;
    q.row(0) = V3(1 + sg * e.x() * e.x() * ba, sg * bb, -sg * e.x());
    q.row(1) = V3(bb, sg + e.y() * e.y() * ba, -e.y());
    q.row(2) = e;
    size = radius;  // a scale for rounding (L1 norms: no square roots)
    for (int k = 0; k < 2; ++k) {
      parts[k] = {q * world[k].centre, q * world[k].axis, world[k].radius, world[k].half_height};
      size += world[k].centre.cwiseAbs().sum() + world[k].radius + world[k].half_height;
    }
    // The crease of part k is c_k·w = −a_k.z with c_k = (a_k.x, a_k.y).
    for (int k = 0; k < 2; ++k) c[k] = parts[k].axis.head<2>();
  }

  CylinderCastAnswer run() {
    if (flat_contact_bounds() == Flow::stop || start() == Flow::stop) return out;
    for (int steps = 0;; ++steps)
      if (newton_iteration(steps) == Flow::stop) return out;
  }

 private:
  static constexpr double inf = std::numeric_limits<double>::infinity();

  // The input, in the ray frame.
  CastCylinder parts[2];
  Mat3<double> q;  // rows: the ray frame's axes in A's frame
  double radius, dn, inv_dn, max_lambda, tol;
  int max_steps;
  double size = 0;  // a scale for rounding
  CylinderCastAnswer out;

  // Lower bounds at the flat contacts' normals.
  double cap_lambda[2] = {-inf, -inf};  // −∞: not tried (a cap facing across the ray)
  PartAt cap_other[2];                  // the other part at cap k's normal
  double side_lambda = -inf;
  V3 cr = V3::Zero();  // the side–side normal (unit, toward +z) where side_lambda is tried
  PartAt side_at[2];

  // Newton's method on F(w) = h_C(w, 1), along the creases it meets (an active set).
  V2 c[2];  // crease of part k: c_k·w = −a_k.z
  PartAt at[2];
  V2 w = V2::Zero();
  bool on[2] = {false, false};  // following the part's crease: its side is in contact
  double forced[2] = {0, 0};    // rim chosen on release while n is still on the crease
  bool fresh = false;           // h and at are already those of the current w
  int probe = -1;               // crease just reached, its far side and the step's direction
  double probe_side = 0;
  V2 probe_dir = V2::Zero();
  double h = 0;  // F at w
  int jumps = 0;

  /// The support point, gradient and Hessian inputs of F at the current w (newton.hpp).
  struct SupportPoint {
    V3 yp[2], mk[2];  // each part's support point (heights on followed sides left out), radial direction
    double sigma[2], inv_p[2];
    double nn;  // |n| (1 when the ball has no radius: only its terms need it)
    V2 g;       // the gradient of F in w
  };

  [[gnu::always_inline]] V3 ray_point(double lambda) const { return V3(0, 0, -lambda * dn); }

  [[gnu::always_inline]] double evaluate(const V3& n, PartAt* a) const {
    a[0] = part_at(parts[0], n);
    a[1] = part_at(parts[1], n);
    return support_value(parts, a, n, radius);
  }

  /// A hit at (n, λ) certified by the point y = part points + R·n̂ of C ⊕ ball(R).
  bool accept(const V3& n, double lambda, const V3& ya, const V3& yb, int steps) {
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
  }

  Flow miss(int steps) {
    out.kind = CylinderCastAnswer::Kind::miss;
    out.iterations = steps;
    return Flow::stop;
  }

  /// The sweep passing beside C, then the lower bounds at the flat contacts' normals: the caps
  /// (n = ±axis) and side against side. Any bound past max_lambda proves a miss.
  Flow flat_contact_bounds() {
    // A sweep passing beside C: the plane through the ray's line facing away from C's centre
    // separates them when C's support value there is below −tol (a direction of F's horizon,
    // n·d = 0; within tol at t = 0 is the caller's initially_overlapping test).
    if (const V3 side(-(parts[0].centre.x() + parts[1].centre.x()), -(parts[0].centre.y() + parts[1].centre.y()), 0);
        side.squaredNorm() > 0) {
      at[0] = part_at(parts[0], side);
      at[1] = part_at(parts[1], side);
      if (support_value(parts, at, side, radius) < -tol * side.norm()) return miss(0);
    }
    for (int k = 0; k < 2; ++k) {
      const CastCylinder& cyl = parts[k];
      if (std::abs(cyl.axis.z()) < kMinNormalAlongRay) continue;  // λ unbounded near there
      const V3 n = sign_of(cyl.axis.z()) * cyl.axis;
      const int j = 1 - k;
      const PartAt& o = cap_other[k] = part_at(parts[j], n);
      const double h0 = cyl.centre.dot(n) + cyl.half_height + parts[j].centre.dot(n) + parts[j].radius * o.p +
                        parts[j].half_height * std::abs(o.alpha) + radius;
      cap_lambda[k] = h0 / (-n.z() * dn);
      if (cap_lambda[k] > max_lambda) return miss(0);
    }
    cr = parts[0].axis.cross(parts[1].axis);
    if (const double l = cr.norm(); l > kMinAxesSine) {
      cr *= sign_of(cr.z()) / l;
      if (cr.z() >= kMinNormalAlongRay) {
        for (int j = 0; j < 2; ++j) side_at[j] = part_at(parts[j], cr);
        side_lambda = support_value(parts, side_at, cr, radius) / (-cr.z() * dn);
        if (side_lambda > max_lambda) return miss(0);
      }
    }
    return Flow::proceed;
  }

  /// Start. The time of impact is the largest lower bound, so only the largest can be certified:
  /// a flat contact is checked only when its bound beats n = e's, and Newton starts from there
  /// otherwise (next to the cap's cone point, or on both creases).
  Flow start() {
    h = evaluate(V3(0, 0, 1), at);
    fresh = true;
    if (-h / dn > max_lambda) return miss(0);
    const int best_cap = cap_lambda[0] >= cap_lambda[1] ? 0 : 1;
    if (side_lambda > std::max(cap_lambda[best_cap], -h / dn)) {
      if (side_side_face()) return Flow::stop;
      w = cr.head<2>() / cr.z();
      on[0] = on[1] = true;
      fresh = false;
    } else if (cap_lambda[best_cap] >= -h / dn - kLevelBound * (1 + std::abs(h / dn))) {  // (level: e is the cone point)
      if (cap_face(best_cap)) return Flow::stop;
      ++jumps;
      if (!escape(best_cap)) return Flow::stop;
      fresh = false;
    }
    return Flow::proceed;
  }

  /// The side–side contact checked by its face, a parallelogram of two side segments: true when
  /// accepted.
  bool side_side_face() {
    const double lambda = side_lambda;
    const V3 mid0 = parts[0].centre + parts[0].radius * side_at[0].m(parts[0]);
    const V3 mid1 = parts[1].centre + parts[1].radius * side_at[1].m(parts[1]);
    double t0 = 0, t1 = 0;
    parallelogram_point(ray_point(lambda) - mid0 - mid1 - radius * cr, parts[0].axis, parts[0].half_height,
                        parts[1].axis, parts[1].half_height, t0, t1);
    return accept(cr, lambda, mid0 + t0 * parts[0].axis, mid1 + t1 * parts[1].axis, 0);
  }

  /// Cap k's contact checked by its face: true when accepted.
  bool cap_face(int k) {
    const int j = 1 - k;
    const CastCylinder& cyl = parts[k];
    const double lambda = cap_lambda[k];
    const V3 n = sign_of(cyl.axis.z()) * cyl.axis;
    // The face of C there: the cap's disc plus the other part's face, a segment of its side (of
    // which its rim point is an end) or, with parallel axes, its own cap's disc in a parallel
    // plane. The points nearest the ray point: discs in closed form; a disc and a segment by
    // trying the heights that are exact where the ray meets the face inside.
    const PartAt& o = cap_other[k];
    const CastCylinder& cj = parts[j];
    const V3 cap = cyl.centre + cyl.half_height * n;
    const V3 z = ray_point(lambda) - radius * n;
    V3 yk, yj;
    if (!(o.p > kParallelAxesSine)) {
      const V3 other = cj.centre + sign_of(o.alpha) * cj.half_height * cj.axis;
      V3 off = z - cap - other;
      off -= n.dot(off) * n;
      const double l = off.norm(), both = cyl.radius + cj.radius;
      if (l > both) off *= both / l;
      yk = cap + (cyl.radius / both) * off;
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
        const double nu = v.dot(n), l = std::max(0.0, (v - nu * n).norm() - cyl.radius);
        return nu * nu + l * l;
      };
      double t = sign_of(o.alpha) * eta;  // the rim point first: the common case
      yj = mid + t * cj.axis;
      yk = disc_point(cap, cyl.axis, cyl.radius, z - yj);
      // The segment matters only with the side facing n (else the rim point is the face).
      if (std::abs(o.alpha) <= kSideFacingCosine && !accept(n, lambda, k == 0 ? yk : yj, k == 0 ? yj : yk, 0)) {
        double best = miss2(t);
        auto consider = [&](double x) {
          x = std::clamp(x, -eta, eta);
          if (const double m = miss2(x); m < best) best = m, t = x;
        };
        consider(-t);
        if (std::abs(along) > kSegmentOffPlaneCosine) consider(v0.dot(n) / along);
        if (const double pp = pa.squaredNorm(); pp > kSegmentInPlaneSineSq) consider(v0.dot(pa) / pp);
        yj = mid + t * cj.axis;
        yk = disc_point(cap, cyl.axis, cyl.radius, z - yj);
      }
    }
    return out.kind == CylinderCastAnswer::Kind::hit || accept(n, lambda, k == 0 ? yk : yj, k == 0 ? yj : yk, 0);
  }

  /// Newton heading into a cap's cone point: the iterates crowd the point while F's minimum may
  /// lie past it. Jump to the point (n along the axis) and leave it along a descent direction:
  /// the subgradients there are g_r + ρ·(v.x, v.y) over the disc of v ⊥ a, |v| ≤ 1 (g_r the
  /// gradient of everything but the cap's radial term); the disc's v nearest to cancelling g_r,
  /// pushed to the rim, gives the least steep ascent, and its negative a descent (checked).
  /// False when the cone point is the minimum or no descent was found.
  bool escape(int k) {
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
    if (!(std::abs(det) > kSingularDet2)) return false;
    const Eigen::Matrix2d mi = m.inverse(), mti = mi.transpose();
    // The slope of F along δ: g0·δ + η_j·|c_j·δ| + ρ·|Mᵀ·δ| (σ·η_j·c_j·δ off the crease). For
    // a fixed side σ of the crease, with y = Mᵀ·δ it is ρ·(|y| − v·y), v = −M⁻¹·(g0 + σ·η_j·c_j)/ρ:
    // negative for y along v when |v| > 1. Both sides are tried when n lies on the crease, and
    // the crease itself.
    const bool crease = std::abs(o.alpha) <= kSideFacingCosine;
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
    double tau = kEscapeFirstStep * (1 + nt.head<2>().norm());
    for (int halvings = 0; halvings < kEscapeHalvings; ++halvings, tau *= 0.5) {
      const V2 w2 = nt.head<2>() + tau * dir;
      if (evaluate(V3(w2.x(), w2.y(), 1), a2) < ht) {
        w = w2;
        on[0] = on[1] = false;
        forced[0] = forced[1] = 0;
        return true;
      }
    }
    return false;
  }

  // Newton's method, one iteration and its parts (defined in detail/cylinder_cast/newton.hpp;
  // inlined into run's loop, the hot path, as the one loop body they were).
  [[gnu::always_inline]] inline Flow newton_iteration(int steps);
  [[gnu::always_inline]] inline SupportPoint support_point(const V3& n, double nn2) const;
  [[gnu::always_inline]] inline bool leave_probed_crease(const V2& g);
  [[gnu::always_inline]] inline Flow side_side(const V3& n, double lambda, const SupportPoint& sp, int steps);
  [[gnu::always_inline]] inline bool newton_step(const SupportPoint& sp, int side, double nn2, V2& delta) const;
  [[gnu::always_inline]] inline Flow converged(const V3& n, double lambda, const SupportPoint& sp, int side, int steps);
  [[gnu::always_inline]] inline Flow advance(V2 delta, int side, const SupportPoint& sp, double nn2);
  [[gnu::always_inline]] inline Flow onto_crease(int crease, const V2& delta, int side);
};

}  // namespace impact::detail::cylinder_cast_detail
