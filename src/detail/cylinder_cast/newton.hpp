// impact — detail/cylinder_cast/newton.hpp: the Newton phase of the cylinder cast, one iteration
// of Newton's method on F(w) = h_C(w, 1) along the creases it meets (an active set), split into
// its parts: the support point and gradient, the crease just reached (probe), both creases at
// once (the side–side normal), the Newton step (Hessian), convergence, and the damped step that
// stops at a crease or jumps off a cone point. See detail/cylinder_cast.hpp for the algorithm and
// detail/cylinder_cast/caster.hpp for the state.
#pragma once

#include "detail/cylinder_cast/caster.hpp"
#include "detail/cylinder_cast/parts.hpp"

#include <impact/math.hpp>

#include <algorithm>
#include <cmath>

namespace impact::detail::cylinder_cast_detail {

/// (p/|n|)² at or below which n lies along a part's axis, its cap's cone point, where F has no
/// gradient (dimensionless: sine² of the angle between n and the axis).
inline constexpr double kConePointSineSq = 1e-18;
/// (α/|n|)² at or below which n lies on a part's crease (a side facing n), where the sign of α
/// no longer says which rim supports and the rim chosen on release is kept (dimensionless:
/// cosine² of the angle between n and the axis).
inline constexpr double kOnCreaseCosineSq = 1e-24;
/// Newton's step length, relative to 1 + |w|, at which n counts as converged: the step estimates
/// the error of n (dimensionless; w is the tangent of n's tilt from e, so about radians).
inline constexpr double kStepTolerance = 1e-7;
/// The Hessian's ridge, relative to its trace (dimensionless), keeps the 2×2 solve regular where
/// one curvature vanishes (a flat contact's direction).
inline constexpr double kRidge = 1e-12;
/// A curvature (of F in w, a length) at or below which there is no Newton step: with no ball
/// and no curved part, F is flat along the crease. Also the ridge's absolute floor (length).
inline constexpr double kTinyCurvature = 1e-300;
/// The damping accepts a step whose F exceeds the current by at most this fraction of
/// |F| + size (relative): the rounding of the support value, whose terms are of the scene's size.
inline constexpr double kDescentSlack = 1e-13;
/// Halvings of a step that does not descend before Newton gives up (count): 2⁻¹² of a Newton
/// step that still ascends means the model is wrong here.
inline constexpr int kMaxHalvings = 12;
/// A damped step that shrinks a part's p (|P·n|) below this fraction of its value is heading into
/// that part's cone point (dimensionless ratio): the cap's bound then decides whether to jump.
inline constexpr double kConeApproach = 0.5;

inline CylinderCaster::Flow CylinderCaster::newton_iteration(int steps) {
  const V3 n(w.x(), w.y(), 1);
  const double nn2 = 1 + w.squaredNorm();
  if (!fresh) h = evaluate(n, at);  // else the damping's trial point was this one
  fresh = false;
  for (int k = 0; k < 2; ++k)
    if (!(at[k].p * at[k].p > kConePointSineSq * nn2)) return Flow::stop;  // a cap's cone point: the cap test decides
  const double lambda = -h * inv_dn;
  if (lambda > max_lambda) return miss(steps);
  if (!std::isfinite(lambda)) return Flow::stop;
  const SupportPoint sp = support_point(n, nn2);
  if (probe >= 0 && leave_probed_crease(sp.g)) return Flow::restart;
  if (on[0] && on[1]) return side_side(n, lambda, sp, steps);
  const int side = on[0] ? 0 : on[1] ? 1 : -1;
  if (steps >= max_steps) return Flow::stop;
  V2 delta;
  if (!newton_step(sp, side, nn2, delta)) return Flow::stop;
  if (delta.norm() <= kStepTolerance * (1 + w.norm())) {
    if (const Flow f = converged(n, lambda, sp, side, steps); f != Flow::proceed) return f;
  }
  return advance(delta, side, sp, nn2);
}

/// Support point (the heights on followed sides left out) and the gradient of F.
inline CylinderCaster::SupportPoint CylinderCaster::support_point(const V3& n, double nn2) const {
  SupportPoint sp;
  for (int k = 0; k < 2; ++k) {
    sp.inv_p[k] = 1 / at[k].p;
    sp.mk[k] = at[k].pn * sp.inv_p[k];
    sp.sigma[k] = on[k] ? 0.0
                  : (at[k].alpha * at[k].alpha > kOnCreaseCosineSq * nn2 || forced[k] == 0) ? sign_of(at[k].alpha)
                                                                                        : forced[k];
    sp.yp[k] = parts[k].centre + parts[k].radius * sp.mk[k] + sp.sigma[k] * parts[k].half_height * parts[k].axis;
  }
  sp.nn = radius > 0 ? std::sqrt(nn2) : 1.0;  // |n| (only the ball's terms need it)
  const V3 s = sp.yp[0] + sp.yp[1] + (radius / sp.nn) * n;
  sp.g = s.head<2>();
  return sp;
}

/// Just onto a crease: when F still descends on its far side along the step, the side is not in
/// contact there and the step goes on across it (true: restart from there).
inline bool CylinderCaster::leave_probed_crease(const V2& g) {
  const int k = probe;
  probe = -1;
  if ((g + probe_side * parts[k].half_height * c[k]).dot(probe_dir) < 0) {
    on[k] = false;
    forced[k] = probe_side;
    fresh = true;
    return true;
  }
  return false;
}

/// The side–side normal: heights t with g + t0·c0 + t1·c1 = 0 say which crease to keep.
inline CylinderCaster::Flow CylinderCaster::side_side(const V3& n, double lambda, const SupportPoint& sp, int steps) {
  const V2& g = sp.g;
  const double det = c[0].x() * c[1].y() - c[0].y() * c[1].x();
  if (!(std::abs(det) > kSingularDet2 * c[0].norm() * c[1].norm())) return Flow::stop;
  const double t0 = (-g.x() * c[1].y() + g.y() * c[1].x()) / det;
  const double t1 = (-c[0].x() * g.y() + c[0].y() * g.x()) / det;
  const bool in0 = std::abs(t0) <= parts[0].half_height, in1 = std::abs(t1) <= parts[1].half_height;
  if (in0 && in1) {
    accept(n, lambda, sp.yp[0] + t0 * parts[0].axis, sp.yp[1] + t1 * parts[1].axis, steps);
    return Flow::stop;
  }
  if (!in0) on[0] = false, forced[0] = sign_of(t0);
  if (!in1) on[1] = false, forced[1] = sign_of(t1);
  fresh = true;
  return Flow::restart;
}

/// Newton's step δ in w, off the creases or along the one followed (side ≥ 0). False when the
/// model has no step there (GJK decides).
inline bool CylinderCaster::newton_step(const SupportPoint& sp, int side, double nn2, V2& delta) const {
  const V2& g = sp.g;
  // Hessian in w: Σ ρ/p·(t.xy)(t.xy)ᵀ + R/|n|·(I − (w/|n|)(w/|n|)ᵀ), t = a × m.
  double h00 = 0, h01 = 0, h11 = 0;
  if (radius > 0) {
    const double r = radius / sp.nn, r2 = r / nn2;
    h00 = r - r2 * w.x() * w.x();
    h01 = -r2 * w.x() * w.y();
    h11 = r - r2 * w.y() * w.y();
  }
  for (int k = 0; k < 2; ++k) {
    const V3& a = parts[k].axis;
    const V3& mk = sp.mk[k];
    const double tx = a.y() * mk.z() - a.z() * mk.y(), ty = a.z() * mk.x() - a.x() * mk.z();
    const double f = parts[k].radius * sp.inv_p[k];
    h00 += f * tx * tx;
    h01 += f * tx * ty;
    h11 += f * ty * ty;
  }
  if (side < 0) {
    const double ridge = kRidge * (h00 + h11) + kTinyCurvature;
    const double a = h00 + ridge, dd = h11 + ridge;
    const double det = a * dd - h01 * h01;
    if (!(det > 0)) return false;
    const double inv = 1 / det;
    delta = V2(-(dd * g.x() - h01 * g.y()) * inv, -(a * g.y() - h01 * g.x()) * inv);
  } else {
    const V2 dir = V2(-c[side].y(), c[side].x()).normalized();
    const double curv = h00 * dir.x() * dir.x() + 2 * h01 * dir.x() * dir.y() + h11 * dir.y() * dir.y();
    if (!(curv > kTinyCurvature)) return false;
    delta = -(dir.dot(g) / curv) * dir;
  }
  return true;
}

/// Converged: Newton's step estimates the error of n, within kStepTolerance of the normal.
/// Without a certificate yet (the gap is first order in that error), the step is taken (proceed).
inline CylinderCaster::Flow CylinderCaster::converged(const V3& n, double lambda, const SupportPoint& sp, int side,
                                                      int steps) {
  if (side < 0) {
    if (accept(n, lambda, sp.yp[0], sp.yp[1], steps)) return Flow::stop;
    return Flow::proceed;
  }
  // The side's height t balancing the gradient across the crease: g + t·c = 0.
  const double t = -sp.g.dot(c[side]) / c[side].squaredNorm();
  if (std::abs(t) > parts[side].half_height) {
    forced[side] = sign_of(t);  // the optimum lies off the crease, on t's rim
    on[side] = false;
    fresh = true;
    return Flow::restart;
  }
  if (accept(n, lambda, sp.yp[0] + (side == 0 ? t : 0.0) * parts[0].axis,
             sp.yp[1] + (side == 1 ? t : 0.0) * parts[1].axis, steps))
    return Flow::stop;
  return Flow::proceed;
}

/// The step: cut at the first crease it would cross, damped, or a jump off a cone point.
inline CylinderCaster::Flow CylinderCaster::advance(V2 delta, int side, const SupportPoint& sp, double nn2) {
  // The step ends at the first crease it would cross.
  int crease = -1;
  for (int k = 0; k < 2; ++k) {
    if (on[k]) continue;
    const double da = c[k].dot(delta);
    const double a0 = at[k].alpha;
    const double s0 = a0 * a0 > kOnCreaseCosineSq * nn2 ? sign_of(a0) : sp.sigma[k];
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
    if (h2 <= h + kDescentSlack * (std::abs(h) + size)) {
      h = h2;
      break;
    }
    if (halvings == kMaxHalvings) return Flow::stop;
    delta *= 0.5;
    crease = -1;
  }
  for (int k = 0; k < 2 && jumps < kMaxJumps; ++k) {
    if (trial[k].p < kConeApproach * at[k].p && cap_lambda[k] >= -h / dn) {
      ++jumps;
      if (!escape(k)) return Flow::stop;
      return Flow::restart;
    }
  }
  w += delta;
  if (crease >= 0) return onto_crease(crease, delta, side);
  at[0] = trial[0];
  at[1] = trial[1];
  fresh = true;
  return Flow::restart;
}

/// The step reached part `crease`'s crease: follow it from its nearest point (or, already on the
/// other crease, from their intersection).
inline CylinderCaster::Flow CylinderCaster::onto_crease(int crease, const V2& delta, int side) {
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
    if (!(std::abs(det) > kSingularDet2 * c[0].norm() * c[1].norm())) return Flow::stop;
    const V2 r(-parts[0].axis.z(), -parts[1].axis.z());
    w = V2(r.x() * c[1].y() - r.y() * c[0].y(), c[0].x() * r.y() - c[1].x() * r.x()) / det;
  }
  return Flow::restart;
}

}  // namespace impact::detail::cylinder_cast_detail
