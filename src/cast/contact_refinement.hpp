#pragma once
// impact — cast/contact_refinement.hpp: what every cast method ends with: the separation of two cores along a direction,
// and the contact normal and points at the hit where the configuration space obstacle is curved
// (GJK at the time of impact; the smooth normals and face crossings of cylinders and cones).
#include <impact/cast.hpp>

#include "detail/gjk.hpp"
#include "detail/promote.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

namespace impact::cast_detail {

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

/// Whether one of the shapes' own axes (A's frame axes and B's, each way) separates the cores by
/// more than `gap` beyond the rounding of the test: an exact refutation of a contact GJK claims.
/// Along u (A's frame; u_b = Rᵀu in B's) the separation is u_b·s_B(−u_b) − u·s_A(u) + u·t; along
/// one of B's own axes u_b is exact, so a far corner of B (a sliver 1e12 long) adds no rounding.
/// GJK distance called a segment `intersecting` with such a sliver 3.7 below it in z (no plane
/// seen at ‖v‖ = 7.3; tests/fuzz/README.md); B's z axis separates them.
template <class S, class A, class B>
bool axes_separate(const A& a, const B& b, const Transform<S>& b_in_a, S gap, Vec3<S>* axis = nullptr,
                   S* separation = nullptr) {
  const Mat3<S>& r = b_in_a.rotation;
  const Vec3<S>& t = b_in_a.translation;
  S best = gap;
  bool found = false;
  for (int k = 0; k < 12; ++k) {
    const S sign = k % 2 == 0 ? S(1) : S(-1);
    Vec3<S> u, ub;
    if (k < 6) {
      u = sign * Vec3<S>(Vec3<S>::Unit(k / 2));
      ub = r.transpose() * u;
    } else {
      ub = sign * Vec3<S>(Vec3<S>::Unit(k / 2 - 3));
      u = r * ub;
    }
    int ha = -1, hb = -1;
    const Vec3<S> sa = detail::support_with_hint<S>(a, u, ha);
    const Vec3<S> sb = detail::support_with_hint<S>(b, Vec3<S>(-ub), hb);
    const S size = (ub.cwiseProduct(sb)).cwiseAbs().sum() + (u.cwiseProduct(sa)).cwiseAbs().sum() +
                   (u.cwiseProduct(t)).cwiseAbs().sum();
    const S proven = ub.dot(sb) - u.dot(sa) + u.dot(t) - S(16) * std::numeric_limits<S>::epsilon() * size;
    if (proven > best) {
      best = proven;
      found = true;
      if (axis) *axis = u;
    }
  }
  if (found && separation) *separation = best;
  return found;
}

/// B's placement in A's frame at time t of a cast along d: translated by t·d.
template <class S>
[[nodiscard]] Transform<S> moved(Transform<S> b_in_a, const Vec3<S>& d, S t) {
  b_in_a.translation += t * d;
  return b_in_a;
}

/// GJK distance between the cores with B moved by t·d (A's frame, no cache): what proves or
/// refutes a method's contact at its time of impact, and gives the contact's points.
template <class S, class A, class B>
detail::GjkOutput<S> core_gjk_at(const A& a, const B& b, const Transform<S>& b_in_a, const Vec3<S>& d, S t) {
  return detail::gjk_solve<false, S>(a, S(0), b, S(0), moved(b_in_a, d, t), GjkOptions<S>{}, nullptr);
}

/// The finest core distance GJK resolves on its output `g`: 64 ulps (of the arithmetic its loop
/// runs in) of its simplex's largest vertex.
template <class S>
S gjk_resolved(const detail::GjkOutput<S>& g) {
  return S(detail::kGjkRoundingUlps) * S(std::numeric_limits<detail::GjkCompute<S>>::epsilon()) * g.scale;
}

/// GJK's witness points (A's frame) as the points of a hit at its time of impact: as they are
/// when GJK finds the cores apart; their midpoint, one point, when it calls them touching. Its v
/// is then the rounding of a thin simplex, not a distance (1.6e-3 long between a box 1e-9 thin
/// and another box, found by fuzz_shape_cast's points certificate).
template <class S>
void hit_witnesses(const detail::GjkOutput<S>& g, Vec3<S>& pa, Vec3<S>& pb) {
  pa = g.pa;
  pb = g.pb;
  if (g.status == Status::intersecting) pa = pb = (g.pa + g.pb) / S(2);
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
    // stays. (Written for curved cores, which are no longer refined; kept as a guard.) The two
    // separations are sums of support values in S, as large as the shapes and their radii: below
    // the rounding of those sums they cannot tell the planes apart (float, a capsule of radius
    // 6e5: the guard kept conservative advancement's stale plane, and the hit's points came out
    // 75.8 apart at a target of 0.25).
    const S floor = S(detail::kGjkRoundingUlps) * std::numeric_limits<S>::epsilon() * (g.scale + ra + rb);
    const S sep_m = core_separation<S>(a, b, at_toi, m) - ra - rb;
    if (sep_m < target - tol / S(2) - floor && sep_m < core_separation<S>(a, b, at_toi, n) - ra - rb - floor) return;
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

}  // namespace impact::cast_detail
