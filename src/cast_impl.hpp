#pragma once
// impact — cast_impl.hpp (included by cast_float.cpp and cast_double.cpp, one precision each so
// the two heavy halves compile in parallel): ray_cast and shape_cast on Shape variants (dispatch once, then templates).
#include <impact/cast.hpp>

#include <impact/detail/cylinder_cast.hpp>
#include <impact/detail/mpr.hpp>
#include <impact/detail/ray_cast_core.hpp>
#include <impact/detail/ray_closed_form.hpp>

#include <algorithm>
#include <limits>
#include <type_traits>

#include "detail/dispatch.hpp"

namespace impact {
namespace {

template <class S>
std::string check_scalar(S x, const char* field, bool positive) {
  if (!std::isfinite(x)) return std::string(field) + ": not finite";
  if (x < S(0) || (positive && x == S(0))) return std::string(field) + (positive ? ": must be positive" : ": negative");
  if (x > Tolerances<S>::max_magnitude) return std::string(field) + ": out of range";
  return {};
}

/// Cores whose boundary is flat everywhere (points, segments, triangles, boxes, hulls): on them
/// the methods' final supporting planes are exact contact normals.
template <class T, class S>
inline constexpr bool kFlatCore = std::is_same_v<T, Point<S>> || std::is_same_v<T, Segment<S>> ||
                                  std::is_same_v<T, Triangle<S>> || std::is_same_v<T, Box<S>> ||
                                  std::is_same_v<T, Hull<S>>;

/// Separation of two cores along the unit direction u (A toward B), B placed by `b_in_a` in A's
/// frame: the least u·y over B minus the largest u·x over A (two support calls).
template <class S, class A, class B>
S core_separation(const A& a, const B& b, const Transform<S>& b_in_a, const Vec3<S>& u) {
  int ha = -1, hb = -1;
  const Vec3<S> sa = detail::support_with_hint<S>(a, u, ha);
  const Vec3<S> sb = b_in_a.apply(detail::support_with_hint<S>(b, Vec3<S>(b_in_a.rotation.transpose() * -u), hb));
  return u.dot(sb - sa);
}

/// Contact normal and points where the CSO is curved at the contact.
///
/// Every method ends with a plane that supports both shapes at the hit, a valid normal; where
/// the contact is on a curved part (a round shape, a cylinder's or cone's side, a buffer around
/// a polytope's edge) that plane touches the surface up to √(2ρ·gap) away from the hit, so its
/// normal is off by about √(2·gap/ρ): a millidegree for a gap of 1e-9 on unit shapes. The cure is
/// one GJK distance between the cores at toi, with B backed off from A along the estimate by a
/// small δ (so that cores in contact, R = 0, are apart and their direction is defined): at the
/// nearest core points the normal is the direction between them, accurate to the square root of
/// the rounding of GJK's last support value, √(ε·size/ρ). The back-off moves the contact
/// tangentially by δ times the estimate's error, which δ ≈ √ε·size makes negligible.
/// Used where both cores are flat and R = ra + rb + target > 0 (spheres, capsules, rounded
/// shapes, buffers): GJK on such cores is exact (closed forms, finite on polytopes), and the
/// normal comes out within about 1e-7 rad. Not on cylinder and cone cores: GJK converges only
/// linearly there, and the refinement measured 2.8 µs per cylinder–cylinder hit on a 1.2 µs
/// cast (see shape_cast).
/// `b_at_toi`: B's core in A's frame at toi. `n` (in: estimate; out: refined), `pa`, `pb`: A's
/// frame, unit normal from A toward B and the surface points (untouched when GJK cannot tell).
template <class S, class A, class B>
void refine_contact(const A& a, S ra, const B& b, S rb, Transform<S> b_at_toi, Vec3<S>& n, Vec3<S>& pa,
                    Vec3<S>& pb, S target = S(0), S tol = std::numeric_limits<S>::infinity()) {
  const Transform<S> at_toi = b_at_toi;
  const S size = std::max({pa.norm(), (pb - pa).norm(), ra + rb, std::numeric_limits<S>::min()});
  const S delta = std::sqrt(Tolerances<S>::epsilon) * size;
  const Vec3<S> back = delta * n;
  b_at_toi.translation += back;
  GjkCache<S> cache;
  cache.axis = -n;  // v = a − b points from B toward A
  GjkOptions<S> gopt;
  gopt.relative_tolerance = S(4) * Tolerances<S>::epsilon;  // to the rounding floor
  const auto g = detail::gjk_solve<false, S>(a, S(0), b, S(0), b_at_toi, gopt, &cache);
  const S len = g.v.norm();
  if (g.status != Status::separated || !(len > S(0))) return;
  const Vec3<S> m = -g.v / len;
  if (m.dot(n) < S(0.5)) return;  // not the contact the method found
  if (std::isfinite(tol)) {
    // Kept only if its plane still supports both shapes at toi; otherwise the method's plane
    // stays. (Written for curved cores, which are no longer refined; kept as a guard.)
    const S sep_m = core_separation<S>(a, b, at_toi, m) - ra - rb;
    if (sep_m < target - tol / S(2) && sep_m < core_separation<S>(a, b, at_toi, n) - ra - rb) return;
  }
  n = m;
  pa = g.pa + ra * m;
  pb = g.pb - back - rb * m;
}

/// The outward unit normal of a cylinder or a cone at a boundary point x (local frame), from the
/// face x is nearest: exact where the surface is smooth, to first order in x's error (a ray
/// cast's hit point is accurate along the ray, where the last supporting plane is only accurate
/// to √(gap/ρ)). Zero within `slack` of a rim or the apex, whose normal cones hold the cast's
/// own plane already, and for a cylinder or cone without extent.
template <class S>
Vec3<S> smooth_normal(const Cylinder<S>& c, const Vec3<S>& x, S slack) {
  const S rho = std::hypot(x.x(), x.y());
  const S side = std::abs(rho - c.radius);
  const S cap = std::abs(std::abs(x.z()) - c.half_height);
  if ((side <= slack && cap <= slack) || !(c.radius > S(0))) return Vec3<S>::Zero();
  if (cap < side || !(rho > S(0))) return {S(0), S(0), x.z() < S(0) ? S(-1) : S(1)};
  return {x.x() / rho, x.y() / rho, S(0)};
}

template <class S>
Vec3<S> smooth_normal(const Cone<S>& c, const Vec3<S>& x, S slack) {
  const S h2 = S(2) * c.half_height;
  const S len = std::hypot(h2, c.radius);
  const S rho = std::hypot(x.x(), x.y());
  // The slant through the apex (0, 0, h) with outward normal (2h·x̂y, r)/len.
  const S slant = std::abs(h2 * rho + c.radius * (x.z() - c.half_height)) / std::max(len, std::numeric_limits<S>::min());
  const S base = std::abs(x.z() + c.half_height);
  if ((slant <= slack && base <= slack) || rho <= slack || !(c.radius > S(0)) || !(c.half_height > S(0)))
    return Vec3<S>::Zero();
  if (base < slant) return {S(0), S(0), S(-1)};
  return Vec3<S>(h2 * x.x() / rho, h2 * x.y() / rho, c.radius) / len;
}

/// The entering root of a·λ² + b·λ + c = 0 nearest `near` (cancellation-free form), or NaN.
template <class S>
S quadratic_root_near(S a, S b, S c, S near) {
  const S disc = b * b - S(4) * a * c;
  if (!(disc >= S(0))) return std::numeric_limits<S>::quiet_NaN();
  const S q = S(-0.5) * (b + std::copysign(std::sqrt(disc), b));
  const S r1 = a != S(0) ? q / a : std::numeric_limits<S>::quiet_NaN();
  const S r2 = q != S(0) ? c / q : std::numeric_limits<S>::quiet_NaN();
  if (!std::isfinite(r1)) return r2;
  if (!std::isfinite(r2)) return r1;
  return std::abs(r1 - near) <= std::abs(r2 - near) ? r1 : r2;
}

/// Where the ray s + λr crosses the smooth face of `c` whose outward normal at the hit is `n`
/// (from smooth_normal), solved in closed form near the GJK ray cast's λ; NaN if it does not.
template <class S>
S face_lambda(const Cylinder<S>& c, const Vec3<S>& s, const Vec3<S>& r, const Vec3<S>& n, S lambda) {
  if (n.z() != S(0)) return r.z() != S(0) ? (n.z() * c.half_height - s.z()) / r.z() : std::numeric_limits<S>::quiet_NaN();
  const S a = r.x() * r.x() + r.y() * r.y();
  const S b = S(2) * (s.x() * r.x() + s.y() * r.y());
  const S k = s.x() * s.x() + s.y() * s.y() - c.radius * c.radius;
  return quadratic_root_near(a, b, k, lambda);
}

template <class S>
S face_lambda(const Cone<S>& c, const Vec3<S>& s, const Vec3<S>& r, const Vec3<S>& n, S lambda) {
  if (n.x() == S(0) && n.y() == S(0))
    return r.z() != S(0) ? (-c.half_height - s.z()) / r.z() : std::numeric_limits<S>::quiet_NaN();
  // 4h²·|xy|² = r²·(h − z)² on the slant.
  const S hh = S(4) * c.half_height * c.half_height;
  const S rr = c.radius * c.radius;
  const S u = c.half_height - s.z();
  const S a = hh * (r.x() * r.x() + r.y() * r.y()) - rr * r.z() * r.z();
  const S b = S(2) * (hh * (s.x() * r.x() + s.y() * r.y()) + rr * u * r.z());
  const S k = hh * (s.x() * s.x() + s.y() * s.y()) - rr * u * u;
  return quadratic_root_near(a, b, k, lambda);
}

/// Shape cast by conservative advancement: GJK distance at t (warm-started from the previous
/// step), then advance to where the separation along GJK's axis, a proven lower bound of the
/// distance that changes linearly under translation, reaches the target.
template <class S, class A, class B>
CastHit<S> advance(const A& a, S ra, const B& b, S rb, const Transform<S>& ta, const Transform<S>& b_in_a,
                   const Vec3<S>& d, const ShapeCastOptions<S>& opt) {
  CastHit<S> out;
  GjkCache<S> cache;
  GjkOptions<S> gopt;
  const S radii = ra + rb;
  S t = 0;
  int steps = 0;
  Vec3<S> axis = Vec3<S>::Zero();  // the last separating axis advanced along (A toward B)
  for (;;) {
    Transform<S> bt = b_in_a;
    bt.translation += t * d;
    const auto g = detail::gjk_solve<false, S>(a, S(0), b, S(0), bt, gopt, &cache);
    const S len = g.v.norm();
    const S upper = len - radii;  // distance at t is at most this (v is a point of the CSO)
    if (g.status == Status::intersecting || upper <= opt.target_distance + opt.tolerance) {
      out.status = steps == 0 ? Status::initially_overlapping : Status::hit;
      out.toi = t;
      // The axis of the last step is a plane that touches both shapes at t: a valid contact
      // normal, where GJK's v may be too short to have a direction.
      Vec3<S> n = steps > 0 ? axis : len > S(0) ? Vec3<S>(-g.v / len) : Vec3<S>::Zero();
      if (steps > 0 && len > S(0)) {
        // GJK's own direction at toi may support the shapes better than the last step's axis
        // (on curved shapes the axis can come from a step taken with the proven bound of an
        // earlier axis): keep whichever separates them more along itself.
        const Vec3<S> m = -g.v / len;
        if (core_separation<S>(a, b, bt, m) > core_separation<S>(a, b, bt, n)) n = m;
      }
      out.point_a = ta.apply(g.pa + ra * n);
      out.point_b = ta.apply(g.pb - rb * n);
      out.normal = ta.rotation * n;
      break;
    }
    if (steps >= opt.max_iterations) {
      out.status = Status::max_iterations;
      out.toi = t;
      break;
    }
    ++steps;
    // Separation along n = −v̂ (A toward B): sep(t') = sep(t) + (t' − t)·n·d, exactly linear.
    // It is measured along n itself (two support calls): GJK's proven bound `lower` may come
    // from an earlier, different axis, and stepping n by it would overshoot n's own plane (on
    // curved shapes the final normal then failed to separate the shapes at the hit).
    const Vec3<S> n = -g.v / len;
    axis = n;
    const S rate = n.dot(d);
    const S sep_n = core_separation<S>(a, b, bt, n) - radii;
    const S sep = sep_n > opt.target_distance ? sep_n : g.lower - radii;
    if (rate >= S(0)) {
      out.status = Status::miss;
      break;
    }
    t += std::max(S(0), sep - opt.target_distance) / -rate;
    if (t > S(1)) {
      out.status = Status::miss;
      break;
    }
  }
  out.iterations = steps;
  return out;
}

/// Shape cast by MPR on the swept CSO (the 2010 note). In A's frame B moves by t·d, so the
/// shapes are within R = ra + rb + target at time t iff t·d ∈ K0 = (A − B(0)) ⊕ ball(R), i.e.
/// iff the origin is in K0 − t·d. The swept set K = K0 ⊕ [−d, 0] holds the origin iff that
/// happens for some t ∈ [0, 1]; then the ray from the origin along −d leaves K at −(1 − t*)·d.
/// The exit is bounded from outside by the supporting plane at MPR's last support point, so the
/// time is never late.
/// Returns false when the configuration is degenerate for MPR (no motion, or a swept CSO without
/// interior around the ray: flat shapes moving in their own plane); the caller then uses the
/// GJK ray cast.
template <class S, class A, class B>
bool mpr_cast(const A& a, S ra, const B& b, S rb, const Transform<S>& ta, const Transform<S>& b_in_a,
              const Vec3<S>& d, const ShapeCastOptions<S>& opt, CastHit<S>& out) {
  const S radius = ra + rb + opt.target_distance;
  // t = 0 first: contact within the target there is initially_overlapping, and MPR below needs
  // the origin strictly inside K.
  {
    GjkOptions<S> gopt;
    const auto g = detail::gjk_solve<false, S>(a, S(0), b, S(0), b_in_a, gopt, nullptr);
    if (g.status == Status::intersecting || g.v.norm() - radius <= opt.tolerance) {
      out.status = Status::initially_overlapping;
      out.iterations = g.iterations;
      return true;
    }
  }
  if (d.squaredNorm() == S(0)) {
    out.status = Status::miss;  // apart at t = 0 and not moving
    return true;
  }
  const Mat3<S> rt = b_in_a.rotation.transpose();
  int hint_a = -1, hint_b = -1;
  auto support = [&](const Vec3<S>& dir) {
    detail::MprVertex<S> v;
    v.a = detail::support_with_hint<S>(a, dir, hint_a);
    v.b = b_in_a.apply(detail::support_with_hint<S>(b, Vec3<S>(rt * -dir), hint_b));
    const S len = dir.norm();
    v.sweep = dir.dot(d) < S(0) ? S(1) : S(0);
    v.w = v.a - v.b - v.sweep * d;
    if (len > S(0)) v.w += (radius / len) * dir;
    return v;
  };
  const Vec3<S> center = interior_point<S>(a) - b_in_a.apply(interior_point<S>(b)) - d / S(2);
  // Is the origin in K? Cast from the interior point toward the origin.
  const auto in = detail::mpr_ray_exit<S>(support, center, Vec3<S>(-center), opt.tolerance, opt.max_iterations);
  // Where does the ray from the origin along −d leave K?
  const auto ex = in.ok && in.lambda >= S(1)
                      ? detail::mpr_ray_exit<S>(support, Vec3<S>::Zero(), Vec3<S>(-d), opt.tolerance, opt.max_iterations)
                      : detail::MprResult<S>{};
  out.iterations = in.iterations + ex.iterations;
  if (in.ok && in.lambda < S(1) && in.converged) {
    // The portal is within tolerance of K's boundary and the origin is beyond it: outside K, or
    // within tolerance of it (a graze that never gets closer than the tolerance).
    out.status = Status::miss;
    return true;
  }
  if (!in.ok || !ex.ok) return false;
  // Outer bound of the exit along −d from the last support plane: never later than the truth.
  const S toi = std::clamp(S(1) - ex.lambda_outer, S(0), S(1));
  out.status = ex.converged ? Status::hit : Status::max_iterations;
  out.toi = toi;
  const Vec3<S> n = ex.normal;
  out.point_a = ta.apply(ex.a + ra * n);
  out.point_b = ta.apply(ex.b + toi * d - rb * n);
  out.normal = ta.rotation * n;
  return true;
}

/// Two cylinders by Newton's method on the CSO's support function (detail/cylinder_cast.hpp),
/// in double whatever S, in the world's axes about A's centre (no transforms: only the axes,
/// z columns of the rotations). False (the GJK ray cast decides): no certificate, λ ≤ 0, or a
/// hit within the tolerance of t = 0, whose initially_overlapping test is the GJK path's.
template <class S>
bool cylinder_pair_cast(const Cylinder<S>& ca, const Pose<S>& pose_a, const Vec3<S>& velocity_a,
                        const Cylinder<S>& cb, const Pose<S>& pose_b, const Vec3<S>& velocity_b,
                        const ShapeCastOptions<S>& opt, CastHit<S>& out) {
  auto axis = [](const Quat<S>& q) {  // rotation · (0, 0, 1), as Eigen's rotation matrix forms it
    const double w = q.w(), x = q.x(), y = q.y(), z = q.z();
    return Vec3<double>(2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y));
  };
  const Vec3<double> origin = pose_a.position.template cast<double>();
  const detail::CastCylinder parts[2] = {
      {Vec3<double>::Zero(), axis(pose_a.rotation), double(ca.radius), double(ca.half_height)},
      {origin - pose_b.position.template cast<double>(), axis(pose_b.rotation), double(cb.radius),
       double(cb.half_height)}};
  const Vec3<double> d = velocity_b.template cast<double>() - velocity_a.template cast<double>();
  const auto r = detail::cylinder_cast(parts, double(opt.target_distance), d, 1.0, double(opt.tolerance),
                                       std::min(opt.max_iterations, detail::kCylinderCastMaxSteps));
  if (r.kind == detail::CylinderCastAnswer::Kind::miss) {
    out.status = Status::miss;
    out.iterations = r.iterations;
    return true;
  }
  if (r.kind != detail::CylinderCastAnswer::Kind::hit || r.lambda * d.norm() <= double(opt.tolerance)) return false;
  const Vec3<double> moved = origin + r.lambda * velocity_a.template cast<double>();
  out.status = Status::hit;
  out.toi = detail::time_below<S>(r.lambda);
  out.iterations = r.iterations;
  out.point_a = (moved + r.point_a).template cast<S>();
  out.point_b = (moved + r.point_b + r.lambda * d).template cast<S>();
  out.normal = r.normal.template cast<S>();
  return true;
}

/// The cast of two cores by the chosen method (A's frame for the geometry, world for the answer).
template <class S, class A, class B>
CastHit<S> cast_cores(const A& ca, S ra, const B& cb, S rb, const Transform<S>& ta, const Transform<S>& b_in_a,
                      const Vec3<S>& d, const ShapeCastOptions<S>& opt) {
  if (opt.method == CastMethod::conservative_advancement) return advance<S>(ca, ra, cb, rb, ta, b_in_a, d, opt);
  if (opt.method == CastMethod::mpr) {
    CastHit<S> m;
    if (mpr_cast<S>(ca, ra, cb, rb, ta, b_in_a, d, opt, m)) return m;
  }
  // GJK ray cast on the CSO A − B(0) with the ray t·d from the origin: at time t the shapes
  // are within R = ra + rb + target iff t·d is within R of A − B(0). The loop runs in double
  // for float shapes too: in float, rounding stalled it short of the tolerance on a few sweeps
  // in 10,000 (its progress guards then reported hits that come no closer than 3e-4). The
  // support mappings stay in S.
  using C = double;
  const Transform<C> bia = detail::promote_transform<C>(b_in_a);
  const Mat3<C> rt = bia.rotation.transpose();
  const Vec3<C> dc = d.template cast<C>();
  int hint_a = -1, hint_b = -1;
  auto support = [&](const Vec3<C>& dir, Vec3<C>& pa, Vec3<C>& pb) -> Vec3<C> {
    pa = detail::support_with_hint<S>(ca, Vec3<S>(dir.template cast<S>()), hint_a).template cast<C>();
    pb = bia.apply(detail::support_with_hint<S>(cb, Vec3<S>((rt * -dir).template cast<S>()), hint_b).template cast<C>());
    return pa - pb;
  };
  const C radius = C(ra) + C(rb) + C(opt.target_distance);
  const C tol = C(opt.tolerance);
  // A sweep passing beside the CSO: the plane through the ray's line facing away from the CSO's
  // centre (the cores' origins) separates them when the CSO's support value there is below
  // −tolerance (closer than that at t = 0 is the GJK path's initially_overlapping test).
  // About half the sweeps of a scene miss, most of them this way: one support call each.
  if (const C dd = dc.squaredNorm(); dd > C(0)) {
    Vec3<C> away = bia.translation;  // minus the CSO's centre
    away -= (away.dot(dc) / dd) * dc;
    if (const C len = away.norm(); len > C(0)) {
      Vec3<C> pa, pb;
      if (away.dot(support(away, pa, pb)) + (radius + tol) * len < C(0)) {
        CastHit<S> h;
        h.status = Status::miss;
        return h;
      }
    }
  }
  // The stop is the caller's tolerance on the distance (the relative test of ray_cast would
  // fire first in float, a thousandth of the size away, and report sweeps that pass 1e-3 apart
  // as hits); where rounding prevents reaching it, the core's progress guards stop it.
  constexpr bool curved = !(kFlatCore<A, S> && kFlatCore<B, S>);
  const auto res = detail::gjk_ray_cast_core<C, decltype(support)&, curved>(
      support, radius, Vec3<C>::Zero(), dc, C(1), C(0), tol, opt.max_iterations, bia.translation);
  CastHit<S> h;
  h.status = res.status;
  h.iterations = res.iterations;
  h.toi = detail::time_below<S>(res.lambda);
  if ((res.status == Status::miss && res.lambda == C(0) && res.margin <= tol) ||
      (res.status == Status::hit && res.lambda > C(0) && res.lambda * dc.norm() <= tol)) {
    // Moving apart from t = 0 with a plane that proves less than the tolerance, or a hit a
    // rounding step after t = 0: the shapes may touch at t = 0, which the other methods (and
    // the protocol) call initially_overlapping.
    GjkOptions<S> gopt;
    const auto g = detail::gjk_solve<false, S>(ca, S(0), cb, S(0), b_in_a, gopt, nullptr);
    if (g.status == Status::intersecting || g.v.norm() - S(radius) <= opt.tolerance) {
      h.status = Status::initially_overlapping;
      h.toi = S(0);
      return h;
    }
  }
  if (res.status == Status::hit) {
    if (res.lambda == C(0)) {
      h.status = Status::initially_overlapping;
      return h;
    }
    // v = x − c points from A's point toward B's point at the hit: the normal from A to B.
    const Vec3<C> n = res.normal.normalized();
    const Vec3<S> ns = n.template cast<S>();
    h.point_a = ta.apply(Vec3<C>(res.pa + C(ra) * n).template cast<S>());
    h.point_b = ta.apply(Vec3<C>(res.pb + res.lambda * dc - C(rb) * n).template cast<S>());
    h.normal = ta.rotation * ns;
  }
  return h;
}

}  // namespace

/// The closed-form line clip of a peeled shape, when it has one (false: use the GJK ray cast).
/// Rounded cores other than a point or segment, Minkowski sums, and shapes without volume where
/// the closed form would divide by zero go to GJK.
template <class S>
bool closed_form_ray(const detail::Core<S>& core, const Vec3<S>& s, const Vec3<S>& r, detail::LineClip<S>& clip) {
  using K = detail::Core<S>;
  if (core.kind == K::point_core) {
    if (!(core.radius > S(0))) return false;
    clip = detail::clip_sphere<S>(core.radius, s, r);
    return true;
  }
  if (core.kind == K::segment_core) {
    if (!(core.radius > S(0))) return false;
    clip = detail::clip_capsule<S>(core.segment, core.radius, s, r);
    return true;
  }
  const auto& v = core.shape->variant();
  if (core.radius > S(0)) {  // a rounded core (Minkowski sum with a sphere)
    if (const auto* b = std::get_if<Box<S>>(&v)) return detail::clip_rounded_box<S>(b->half_extents, core.radius, s, r, clip);
    if (const auto* sg = std::get_if<Segment<S>>(&v)) {
      clip = detail::clip_capsule<S>(*sg, core.radius, s, r);
      return true;
    }
    if (std::holds_alternative<Point<S>>(v)) {
      clip = detail::clip_sphere<S>(core.radius, s, r);
      return true;
    }
    return false;
  }
  if (const auto* b = std::get_if<Box<S>>(&v)) {
    clip = detail::clip_box<S>(b->half_extents, s, r);
    return true;
  }
  if (const auto* cy = std::get_if<Cylinder<S>>(&v); cy && cy->radius > S(0)) {
    clip = detail::clip_cylinder<S>(*cy, s, r);
    return true;
  }
  if (const auto* co = std::get_if<Cone<S>>(&v); co && co->radius > S(0) && co->half_height > S(0)) {
    clip = detail::clip_cone<S>(*co, s, r);
    return true;
  }
  if (const auto* h = std::get_if<Hull<S>>(&v); h && h->dimension == 3 && !h->faces.empty() &&
                                                  static_cast<int>(h->faces.size()) <= detail::kHullClipMaxFaces) {
    clip = detail::clip_hull<S>(*h, s, r);
    return true;
  }
  return false;
}

template <class S>
RayHit<S> ray_cast(const Shape<S>& shape, const Pose<S>& pose, const Ray<S>& ray, const RayCastOptions<S>& opt) {
  RayHit<S> out;
  if (!detail::shape_ok(shape) || !detail::pose_ok(pose) || !detail::point_ok(ray.origin) ||
      !detail::point_ok(ray.direction) || !detail::size_ok(opt.max_lambda)) {
    if (auto e = validate(shape); !e.empty()) out.error = "shape." + e;
    else if (auto e = validate(pose); !e.empty()) out.error = "pose." + e;
    else if (auto e = detail::check_vector(ray.origin, "origin"); !e.empty()) out.error = e;
    else if (auto e = detail::check_vector(ray.direction, "direction"); !e.empty()) out.error = e;
    else out.error = check_scalar(opt.max_lambda, "max_lambda", false);
    return out;
  }
  const Transform<S> tf(pose);
  const Mat3<S> rt = tf.rotation.transpose();
  const Vec3<S> s = rt * (ray.origin - tf.translation);
  const Vec3<S> r = rt * ray.direction;
  const Vec3<S> axis = opt.separating_axis ? Vec3<S>(rt * *opt.separating_axis) : Vec3<S>::Zero();
  detail::Core<S> core;
  detail::peel(shape, core);
  if (detail::LineClip<S> clip; opt.closed_form && closed_form_ray<S>(core, s, r, clip)) {
    out.iterations = 0;
    if (clip.none() || clip.hi < S(0) || clip.lo > opt.max_lambda) {
      out.status = Status::miss;
    } else if (clip.lo <= S(0)) {
      out.status = Status::initially_overlapping;  // the origin is in the (closed) shape
      out.point = ray.origin;
    } else {
      out.status = Status::hit;
      out.lambda = clip.lo;
      out.point = ray.origin + clip.lo * ray.direction;
      out.normal = tf.rotation * clip.normal;
    }
    return out;
  }
  const auto res = detail::visit_core(core, [&](const auto& c) {
    // The loop runs in double for float shapes too (the support stays in float): in float it
    // stalled short of the surface on thin simplices (cones: hits early by more than the gap).
    using W = detail::GjkCompute<S>;
    int hint = -1;
    auto support = [&](const Vec3<W>& d, Vec3<W>& pa, Vec3<W>& pb) -> Vec3<W> {
      pa = detail::support_with_hint<S>(c, detail::narrow_direction<S>(d), hint).template cast<W>();
      pb.setZero();
      return pa;
    };
    // The default tolerance is the rounding floor of the arithmetic the loop runs in (float's
    // left grazing rays 1e-3 off a cylinder accepted as hits with normals along the ray).
    const W rel = opt.relative_tolerance == Tolerances<S>::ray_cast_relative ? Tolerances<W>::ray_cast_relative
                                                                             : W(opt.relative_tolerance);
    const auto wide = detail::gjk_ray_cast_core<W>(support, W(core.radius), Vec3<W>(s.template cast<W>()),
                                                   Vec3<W>(r.template cast<W>()), W(opt.max_lambda), rel, W(0),
                                                   opt.max_iterations, Vec3<W>(axis.template cast<W>()));
    detail::RayCastCoreResult<S> res;
    res.status = wide.status;
    res.lambda = detail::time_below<S>(wide.lambda);
    res.normal = wide.normal.template cast<S>();
    res.pa = wide.pa.template cast<S>();
    res.pb = wide.pb.template cast<S>();
    res.iterations = wide.iterations;
    res.margin = S(wide.margin);
    using C = std::decay_t<decltype(c)>;
    if (res.status == Status::hit && res.lambda > S(0) && res.normal.squaredNorm() > S(0) &&
        kFlatCore<C, S> && core.radius > S(0)) {
      const Vec3<S> x = s + res.lambda * r;
      Vec3<S> n = res.normal.normalized();
      Vec3<S> pa = x, pb = x;
      refine_contact<S>(c, core.radius, Point<S>{}, S(0), Transform<S>(Mat3<S>::Identity(), x), n, pa, pb);
      res.normal = n;
    }
    if constexpr (std::is_same_v<C, Cylinder<S>> || std::is_same_v<C, Cone<S>>) {
      if (res.status == Status::hit && res.lambda > S(0) && core.radius == S(0) && res.normal.squaredNorm() > S(0)) {
        const S slack = S(4) * std::sqrt(Tolerances<S>::ray_cast_relative) * std::max(c.radius, c.half_height);
        const Vec3<S> m = smooth_normal<S>(c, Vec3<S>(s + res.lambda * r), slack);
        if (m.dot(res.normal.normalized()) > S(0.5)) {
          res.normal = m;
          // The GJK ray cast stops at a relative gap (about 5e-8 of the size in double), so its λ
          // is a lower bound short of the hit by up to gap / (incidence cosine). On the smooth
          // face just found the crossing has a closed form: taken when it lies just beyond λ
          // (never earlier than the proven bound by more than rounding, never far past it).
          const S lam = face_lambda<S>(c, s, r, m, res.lambda);
          const S rn = r.norm();
          if (std::isfinite(lam) && lam <= opt.max_lambda && (lam - res.lambda) * rn >= -slack &&
              (lam - res.lambda) * rn <= std::max(S(64) * slack, S(1e-3) * std::max(c.radius, c.half_height))) {
            const Vec3<S> m2 = smooth_normal<S>(c, Vec3<S>(s + lam * r), slack);
            if (m2.dot(m) > S(0.5)) {
              res.lambda = std::max(lam, S(0));
              res.normal = m2;
            }
          }
        }
      }
    }
    return res;
  });
  out.iterations = res.iterations;
  out.status = res.status;
  out.lambda = res.lambda;
  out.point = ray.origin + res.lambda * ray.direction;
  if (res.status == Status::hit && res.lambda == S(0)) {
    out.status = Status::initially_overlapping;
  } else if ((res.status == Status::hit || res.status == Status::max_iterations) &&
             res.normal.squaredNorm() > S(0)) {
    out.normal = (tf.rotation * res.normal).normalized();  // at the cap: the last bounding plane
  } else if (res.status == Status::miss && opt.separating_axis && res.normal.squaredNorm() > S(0)) {
    *opt.separating_axis = tf.rotation * res.normal;
  }
  return out;
}

/// The closed-form cast of a ball X (a sphere or a point: its centre is its local origin) against
/// Y: the ray of X's centre, relative to Y, against Y grown by X's radius and the target. False
/// when X is not a ball or grown Y has no closed form. `x_is_a` orients the answer.
template <class S>
bool ball_cast(const Shape<S>& x, const Pose<S>& pose_x, const Vec3<S>& vel_x, const Shape<S>& y,
               const Pose<S>& pose_y, const Vec3<S>& vel_y, const ShapeCastOptions<S>& opt, bool x_is_a,
               CastHit<S>& out) {
  detail::Core<S> cx;
  detail::peel(x, cx);
  if (!(cx.kind == detail::Core<S>::point_core ||
        (cx.kind == detail::Core<S>::shape_core && std::holds_alternative<Point<S>>(cx.shape->variant()))))
    return false;
  detail::Core<S> cy;
  detail::peel(y, cy);
  const S rx = cx.radius;
  cy.radius += rx + opt.target_distance;
  const Transform<S> ty(pose_y);
  const Mat3<S> rt = ty.rotation.transpose();
  const Vec3<S> s = rt * (pose_x.position - pose_y.position);
  const Vec3<S> r = rt * (vel_x - vel_y);
  detail::LineClip<S> clip;
  if (!closed_form_ray<S>(cy, s, r, clip)) return false;
  out = CastHit<S>{};  // iterations 0
  const bool miss = clip.none() || clip.hi < S(0) || clip.lo > S(1);
  if (miss || clip.lo * r.norm() <= opt.tolerance) {
    // A miss or a hit within the tolerance of t = 0: touching at the start (within the tolerance
    // of the target) is initially_overlapping, as with the GJK ray cast. The start is within the
    // tolerance iff it lies in Y grown by that much more.
    detail::Core<S> grown = cy;
    grown.radius += opt.tolerance;
    detail::LineClip<S> near;
    if (!closed_form_ray<S>(grown, s, r, near)) return false;  // no closed form grown: GJK decides
    if (!near.none() && near.lo <= S(0) && near.hi >= S(0)) {
      out.status = Status::initially_overlapping;
      return true;
    }
  }
  if (miss) {
    out.status = Status::miss;
    return true;
  }
  if (clip.lo <= S(0)) {
    out.status = Status::initially_overlapping;
    return true;
  }
  out.status = Status::hit;
  out.toi = clip.lo;
  const Vec3<S> n = ty.rotation * clip.normal;  // outward from grown Y at X's centre
  const Vec3<S> centre = pose_x.position + out.toi * vel_x;
  const Vec3<S> on_x = centre - rx * n;
  const Vec3<S> on_y = centre - (rx + opt.target_distance) * n;
  out.normal = x_is_a ? Vec3<S>(-n) : n;
  out.point_a = x_is_a ? on_x : on_y;
  out.point_b = x_is_a ? on_y : on_x;
  return true;
}

template <class S>
CastHit<S> shape_cast(const Shape<S>& a, const Pose<S>& pose_a, const Vec3<S>& velocity_a, const Shape<S>& b,
                      const Pose<S>& pose_b, const Vec3<S>& velocity_b, const ShapeCastOptions<S>& opt) {
  CastHit<S> out;
  if (!detail::pair_ok(a, pose_a, b, pose_b)) {
    out.error = detail::validate_pair(a, pose_a, b, pose_b);
    return out;
  }
  if (!detail::point_ok(velocity_a) || !detail::point_ok(velocity_b) || !detail::size_ok(opt.target_distance) ||
      !(opt.tolerance > S(0)) || !detail::size_ok(opt.tolerance)) {
    if (auto e = detail::check_vector(velocity_a, "velocity_a"); !e.empty()) out.error = e;
    else if (auto e = detail::check_vector(velocity_b, "velocity_b"); !e.empty()) out.error = e;
    else if (auto e = check_scalar(opt.target_distance, "target_distance", false); !e.empty()) out.error = e;
    else out.error = check_scalar(opt.tolerance, "tolerance", true);
    return out;
  }
  if (opt.closed_form && opt.method == CastMethod::gjk_raycast) {
    if (ball_cast<S>(a, pose_a, velocity_a, b, pose_b, velocity_b, opt, true, out) ||
        ball_cast<S>(b, pose_b, velocity_b, a, pose_a, velocity_a, opt, false, out))
      return out;
    const auto* ca = std::get_if<Cylinder<S>>(&a.variant());
    const auto* cb = std::get_if<Cylinder<S>>(&b.variant());
    if (ca && cb && cylinder_pair_cast<S>(*ca, pose_a, velocity_a, *cb, pose_b, velocity_b, opt, out)) return out;
  }
  const Transform<S> ta(pose_a), tb(pose_b);
  const Transform<S> b_in_a = ta.relative(tb);
  // In A's frame, B moves by t·d relative to A.
  const Vec3<S> d = ta.rotation.transpose() * (velocity_b - velocity_a);
  out = detail::visit_cores(a, b, [&](const auto& ca, S ra, const auto& cb, S rb) -> CastHit<S> {
    CastHit<S> h = cast_cores<S>(ca, ra, cb, rb, ta, b_in_a, d, opt);
    using CA = std::decay_t<decltype(ca)>;
    using CB = std::decay_t<decltype(cb)>;
    // Curved cores (cylinders, cones) always: the last simplex of a cast on them gives witness
    // points a few 1e-6 off each other and a normal off the points (MPR's portal and the ray
    // cast's simplex converge only linearly there); GJK's distance at toi, now certified (it
    // runs in long double where double stalls), gives both from the geometry. The cost measured
    // 2.8 µs per cone hit and about 3.4 µs per cylinder–cylinder hit (where the default Newton
    // cast handed a sweep over: at the √ε·size back-off the Newton distance is ill-conditioned).
    constexpr bool flat = kFlatCore<CA, S> && kFlatCore<CB, S>;
    if (h.status == Status::hit && (!flat || ra + rb + opt.target_distance > S(0))) {
      const Mat3<S> rt = ta.rotation.transpose();
      Vec3<S> n = rt * h.normal;
      Vec3<S> pa = ta.apply_inverse(h.point_a);
      Vec3<S> pb = ta.apply_inverse(h.point_b);
      Transform<S> bt = b_in_a;
      bt.translation += h.toi * d;
      refine_contact<S>(ca, ra, cb, rb, bt, n, pa, pb, opt.target_distance, opt.tolerance);
      h.normal = ta.rotation * n;
      h.point_a = ta.apply(pa);
      h.point_b = ta.apply(pb);
    }
    return h;
  });
  if (out.status == Status::hit || out.status == Status::initially_overlapping) {
    // A moved by toi·velocity_a; the points above are in A's frame at time 0.
    out.point_a += out.toi * velocity_a;
    out.point_b += out.toi * velocity_a;
  }
  return out;
}


}  // namespace impact
