// impact — detail/ray_closed_form.hpp: closed-form ray casts against the primitive shapes
// (sphere, capsule, box, rounded box, cylinder, cone) and polyhedral hulls (clipping by their
// face planes).
//
// `ray_cast` uses these instead of the GJK ray cast where they apply (parry, Jolt and Bullet's
// own ray tests do the same for primitives): they are exact up to rounding and cost a few dozen
// flops. The GJK ray cast stays the general path (other rounded shapes and Minkowski sums,
// degenerate sizes, hulls of many faces) and `RayCastOptions::closed_form = false` forces it.
//
// Each shape is convex, so the line s + t·r meets it in one interval [lo, hi] (possibly empty or
// unbounded). Everything is in the shape's local frame.
#pragma once

#include <impact/math.hpp>
#include <impact/shapes.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact::detail {

/// One half-space's cut of the line interval [lo, hi]: den = n·r, dist = n·s − offset (> 0: s is
/// outside). True when it raises lo (the line enters through this plane); an empty interval
/// shows as lo > hi.
template <class S>
inline bool cut_half_space(S den, S dist, S& lo, S& hi) {
  if (den < S(0)) {
    const S t = -dist / den;
    if (t > lo) {
      lo = t;
      return true;
    }
  } else if (den > S(0)) {
    hi = std::min(hi, -dist / den);
  } else if (dist > S(0)) {
    hi = -std::numeric_limits<S>::infinity();  // parallel to the plane, outside it
  }
  return false;
}

/// The interval of the line s + t·r inside a convex shape, and the outward normal where it enters.
template <class S>
struct LineClip {
  S lo = -std::numeric_limits<S>::infinity();
  S hi = std::numeric_limits<S>::infinity();
  Vec3<S> normal{S(0), S(0), S(0)};  ///< Outward unit normal at lo (valid when lo is finite).
  bool empty = false;

  /// Keeps the part of the line in the half-space n·x ≤ offset (n unit).
  void half_space(const Vec3<S>& n, S offset, const Vec3<S>& s, const Vec3<S>& r) {
    if (cut_half_space(n.dot(r), n.dot(s) - offset, lo, hi)) normal = n;
  }
  /// Keeps [a, b] of the line, entering with normal n at a.
  void interval(S a, S b, const Vec3<S>& n) {
    if (a > lo) {
      lo = a;
      normal = n;
    }
    hi = std::min(hi, b);
  }
  [[nodiscard]] bool none() const { return empty || !(lo <= hi); }
};

/// Parameters where |p + t·q|² = R² in the plane orthogonal to an axis (p, q already projected):
/// false when the line stays outside. A line parallel to the axis gives (−∞, ∞) when inside.
/// Solved about the point of closest approach, so a far origin loses no accuracy to cancellation.
template <class S>
bool circle_interval(const Vec3<S>& p, const Vec3<S>& q, S radius, S& a, S& b) {
  const S qq = q.squaredNorm();
  if (!(qq > S(0))) {
    a = -std::numeric_limits<S>::infinity();
    b = std::numeric_limits<S>::infinity();
    return p.squaredNorm() <= radius * radius;
  }
  const S t0 = -p.dot(q) / qq;
  const Vec3<S> c = p + t0 * q;  // closest approach to the axis
  const S h2 = radius * radius - c.squaredNorm();
  if (h2 < S(0)) return false;
  const S dt = std::sqrt(h2 / qq);
  a = t0 - dt;
  b = t0 + dt;
  return true;
}

/// Sphere of `radius` about the origin.
template <class S>
LineClip<S> clip_sphere(S radius, const Vec3<S>& s, const Vec3<S>& r) {
  LineClip<S> c;
  S a, b;
  if (!circle_interval<S>(s, r, radius, a, b)) {
    c.empty = true;
    return c;
  }
  c.lo = a;
  c.hi = b;
  const Vec3<S> x = s + a * r;
  const S n = x.norm();
  c.normal = n > S(0) ? Vec3<S>(x / n) : Vec3<S>(S(0), S(0), S(1));
  return c;
}

/// Capsule: the points within `radius` of the segment [p, q]. The union of two spheres and a
/// finite cylinder, whose line intervals overlap (the capsule is convex): the union is the
/// hull of theirs. The normal comes from the entry point's nearest point on the segment.
template <class S>
LineClip<S> clip_capsule(const Segment<S>& seg, S radius, const Vec3<S>& s, const Vec3<S>& r) {
  LineClip<S> c;
  c.lo = std::numeric_limits<S>::infinity();
  c.hi = -std::numeric_limits<S>::infinity();
  auto take = [&](S a, S b) {
    c.lo = std::min(c.lo, a);
    c.hi = std::max(c.hi, b);
  };
  S a, b;
  if (circle_interval<S>(Vec3<S>(s - seg.a), r, radius, a, b)) take(a, b);
  if (circle_interval<S>(Vec3<S>(s - seg.b), r, radius, a, b)) take(a, b);
  const Vec3<S> e = seg.b - seg.a;
  const S len = e.norm();
  if (len > S(0)) {
    const Vec3<S> u = e / len;
    const Vec3<S> p = s - seg.a;
    const S pz = p.dot(u), rz = r.dot(u);
    if (circle_interval<S>(Vec3<S>(p - pz * u), Vec3<S>(r - rz * u), radius, a, b)) {
      // Within the slab 0 ≤ axial ≤ len.
      if (rz != S(0)) {
        S t1 = -pz / rz, t2 = (len - pz) / rz;
        if (t1 > t2) std::swap(t1, t2);
        a = std::max(a, t1);
        b = std::min(b, t2);
        if (a <= b) take(a, b);
      } else if (pz >= S(0) && pz <= len) {
        take(a, b);
      }
    }
  }
  if (!(c.lo <= c.hi) || !std::isfinite(c.lo)) {
    c.empty = !(c.lo <= c.hi);
    return c;
  }
  const Vec3<S> x = s + c.lo * r;
  const S ee = e.squaredNorm();
  const S w = ee > S(0) ? std::clamp((x - seg.a).dot(e) / ee, S(0), S(1)) : S(0);
  const Vec3<S> m = x - (seg.a + w * e);
  const S mn = m.norm();
  c.normal = mn > S(0) ? Vec3<S>(m / mn) : Vec3<S>(S(0), S(0), S(1));
  return c;
}

/// Box with the given half extents about the origin (slabs; a zero half extent is a flat box).
template <class S>
LineClip<S> clip_box(const Vec3<S>& half, const Vec3<S>& s, const Vec3<S>& r) {
  LineClip<S> c;
  for (int i = 0; i < 3; ++i) {
    Vec3<S> n = Vec3<S>::Zero();
    n[i] = S(1);
    c.half_space(n, half[i], s, r);
    n[i] = S(-1);
    c.half_space(n, half[i], s, r);
  }
  return c;
}

/// Rounded box: the points within `radius` (> 0) of the box with half extents `half`. The line
/// is clipped by the box grown by `radius` (exact on the faces); in an edge or corner region the
/// entry is the first root of the convex f(t) = dist(s + t·r, box) − radius, found by Newton's
/// method from the left: each tangent lies below f, so every step stays before the root (never
/// late) and a step past the grown box's exit proves a miss. Faces converge in one step. False
/// when `max_steps` Newton steps do not settle (a ray grazing an edge tangentially): use GJK.
template <class S>
bool clip_rounded_box(const Vec3<S>& half, S radius, const Vec3<S>& s, const Vec3<S>& r, LineClip<S>& c,
                      int max_steps = 64) {
  c = clip_box<S>(Vec3<S>(half + Vec3<S>::Constant(radius)), s, r);
  if (c.none()) return true;
  S t = std::max(c.lo, S(0));
  if (t > c.hi) return true;  // behind the origin: hi < 0 reports the miss
  const S settle = S(8) * std::numeric_limits<S>::epsilon() *
                   (s.cwiseAbs().maxCoeff() + t * r.cwiseAbs().maxCoeff() + half.maxCoeff() + radius);
  for (int i = 0; i < max_steps; ++i) {
    const Vec3<S> x = s + t * r;
    const Vec3<S> d = x - x.cwiseMax(-half).cwiseMin(half);
    const S dn = d.norm();
    const S f = dn - radius;
    if (f <= settle) {
      if (t <= S(0) && f <= S(0)) {
        c.lo = S(0);  // the origin is inside
        return true;
      }
      c.lo = t;
      if (dn > S(0)) c.normal = d / dn;
      return true;
    }
    const S slope = d.dot(r) / dn;  // dn > radius > 0 here
    if (!(slope < S(0))) {
      c.empty = true;  // moving away from the box with f > 0: f only grows (convex)
      return true;
    }
    t -= f / slope;
    if (t > c.hi) {
      c.empty = true;  // the first root would lie past the grown box: none
      return true;
    }
  }
  return false;
}

/// Cylinder along z: side radius and caps at ±half_height.
template <class S>
LineClip<S> clip_cylinder(const Cylinder<S>& cy, const Vec3<S>& s, const Vec3<S>& r) {
  LineClip<S> c;
  c.half_space(Vec3<S>(S(0), S(0), S(1)), cy.half_height, s, r);
  c.half_space(Vec3<S>(S(0), S(0), S(-1)), cy.half_height, s, r);
  if (c.none()) return c;
  S a, b;
  if (!circle_interval<S>(Vec3<S>(s.x(), s.y(), S(0)), Vec3<S>(r.x(), r.y(), S(0)), cy.radius, a, b)) {
    c.empty = true;
    return c;
  }
  if (a > c.lo) {
    const S x = s.x() + a * r.x(), y = s.y() + a * r.y();
    const S rho = std::hypot(x, y);
    c.interval(a, b, rho > S(0) ? Vec3<S>(x / rho, y / rho, S(0)) : Vec3<S>(S(1), S(0), S(0)));
  } else {
    c.hi = std::min(c.hi, b);
  }
  return c;
}

/// Cone along z: apex (0, 0, h), base disc of `radius` at z = −h (h > 0, radius > 0).
template <class S>
LineClip<S> clip_cone(const Cone<S>& co, const Vec3<S>& s_in, const Vec3<S>& r) {
  constexpr S inf = std::numeric_limits<S>::infinity();
  LineClip<S> c;
  const S h = co.half_height;
  c.half_space(Vec3<S>(S(0), S(0), S(-1)), h, s_in, r);  // base
  c.half_space(Vec3<S>(S(0), S(0), S(1)), h, s_in, r);   // the apex's plane (the nappe below it)
  if (c.none()) return c;
  // Solve about the point of closest approach to the centre; t = t0 + τ.
  const S rr = r.squaredNorm();
  const S t0 = rr > S(0) ? -s_in.dot(r) / rr : S(0);
  const Vec3<S> s = s_in + t0 * r;
  // Lateral surface: ρ² = k²·w², w = h − z ≥ 0, k = radius / (2h). g(τ) = Aτ² + 2Bτ + C ≤ 0 inside.
  const S k = co.radius / (S(2) * h);
  const S k2 = k * k;
  const S w0 = h - s.z();
  const S A = r.x() * r.x() + r.y() * r.y() - k2 * r.z() * r.z();
  const S B = s.x() * r.x() + s.y() * r.y() + k2 * w0 * r.z();
  const S C = s.x() * s.x() + s.y() * s.y() - k2 * w0 * w0;
  S lo = -inf, hi = inf;
  if (A == S(0)) {  // the line is parallel to a generator
    if (B > S(0)) hi = -C / (S(2) * B);
    else if (B < S(0)) lo = -C / (S(2) * B);
    else if (C > S(0)) lo = inf;  // empty
  } else {
    const S disc = B * B - A * C;
    if (disc < S(0)) {
      if (A > S(0)) lo = inf;  // misses the double cone; for A < 0 it lies inside (rounding)
    } else {
      const S q = -(B + std::copysign(std::sqrt(disc), B));
      S t1 = q / A, t2 = q != S(0) ? C / q : S(0);
      if (t1 > t2) std::swap(t1, t2);
      if (A > S(0)) {
        lo = t1;  // one nappe crossed: ours only if the chord lies below the apex
        hi = t2;
        if (w0 - S(0.5) * (t1 + t2) * r.z() < S(0)) lo = inf;
      } else if (r.z() > S(0)) {
        hi = t1;  // rising into the apex: our nappe is the part before the first root
      } else {
        lo = t2;
      }
    }
  }
  if (!(lo <= hi)) {
    c.empty = true;
    return c;
  }
  lo += t0;
  hi += t0;
  if (lo > c.lo) {
    const Vec3<S> x = s_in + lo * r;
    const S rho = std::hypot(x.x(), x.y());
    const S len = std::hypot(S(2) * h, co.radius);
    const Vec3<S> n = rho > S(0) ? Vec3<S>(S(2) * h * x.x() / (rho * len), S(2) * h * x.y() / (rho * len), co.radius / len)
                                 : Vec3<S>(S(0), S(0), S(1));
    c.interval(lo, hi, n);
  } else {
    c.hi = std::min(c.hi, hi);
  }
  return c;
}

/// Above this many faces `ray_cast` keeps the GJK ray cast on hulls: clipping is linear in the
/// faces, the hill-climbing GJK ray cast grows far slower. Measured on hulls of random points on
/// a sphere (ns per ray, clip / GJK): 60 faces 97 / 534, 252 faces 413 / 813, 508 faces 840 / 962,
/// 1020 faces 1546 / 1201, 2044 faces 2825 / 1403.
inline constexpr int kHullClipMaxFaces = 600;

/// Polyhedral hull (dimension 3): the intersection of its face half-spaces (Cyrus–Beck), with
/// the early out once the interval is empty. Measured on 128-vertex hulls (252 faces): this plain
/// loop beat division-free fraction compares (1.4× slower), four independent lanes (2×) and a
/// branch-free structure-of-arrays pass (2.5×); most of the faces are rejected by the early out
/// on a miss and a well-predicted branch on a hit.
template <class S>
LineClip<S> clip_hull(const Hull<S>& hull, const Vec3<S>& s, const Vec3<S>& r) {
  constexpr S inf = std::numeric_limits<S>::infinity();
  LineClip<S> c;
  S lo = -inf, hi = inf;
  int face = -1;
  const int n = static_cast<int>(hull.faces.size());
  const Plane<S>* f = hull.faces.data();
  for (int i = 0; i < n; ++i) {
    if (cut_half_space(f[i].normal.dot(r), f[i].normal.dot(s) - f[i].offset, lo, hi)) face = i;
    if (lo > hi) {
      c.empty = true;
      return c;
    }
  }
  c.lo = lo;
  c.hi = hi;
  if (face >= 0) c.normal = f[face].normal;
  return c;
}

}  // namespace impact::detail
