// tests/support/oracles_long_double.hpp — distances in long double, for the tests of shapes whose
// corners lie 1e9..1e12 out (slivers, needles), where double's own rounding (ε·1e12 = 2e-4) is
// the size of the answers under test. Nothing here calls impact. Points are Eigen vectors of long
// double; the convex functions of one parameter (a point moving along a segment) are minimised
// by ternary search, which needs no closed form.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cmath>

namespace oracle_ld {

using L = Eigen::Matrix<long double, 3, 1>;

/// Distance from x to segment pq.
inline long double point_segment(const L& x, const L& p, const L& q) {
  const L e = q - p;
  const long double t = std::clamp((x - p).dot(e) / e.squaredNorm(), 0.0L, 1.0L);
  return (p + t * e - x).norm();
}

/// Distance from p to triangle abc: the plane when p projects inside, else the nearest edge.
inline long double point_triangle(const L& p, const L& a, const L& b, const L& c) {
  const L n = (b - a).cross(c - a);
  const L q = p - n * ((p - a).dot(n) / n.squaredNorm());
  const bool inside = (b - a).cross(q - a).dot(n) >= 0 && (c - b).cross(q - b).dot(n) >= 0 && (a - c).cross(q - c).dot(n) >= 0;
  if (inside) return (p - q).norm();
  return std::min({point_segment(p, a, b), point_segment(p, b, c), point_segment(p, c, a)});
}

/// The least of f(t) over t in [0, 1] for a convex f, by ternary search (`steps` thirds).
template <class F>
long double least_on_unit(F f, int steps = 120) {
  long double lo = 0, hi = 1;
  for (int k = 0; k < steps; ++k) {
    const long double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) hi = m2;
    else lo = m1;
  }
  return std::min({f(0.0L), f(1.0L), f((lo + hi) / 2)});
}

/// Distance from segment pq to triangle abc.
inline long double segment_triangle(const L& p, const L& q, const L& a, const L& b, const L& c) {
  return least_on_unit([&](long double t) { return point_triangle(p + t * (q - p), a, b, c); });
}

/// Distance between segments pq and ab.
inline long double segment_segment(const L& p, const L& q, const L& a, const L& b) {
  return least_on_unit([&](long double t) { return point_segment(p + t * (q - p), a, b); }, 100);
}

/// Distance from p to the box of half extents h centred at the origin.
inline long double point_box(const L& p, const L& h) {
  L d;
  for (int k = 0; k < 3; ++k) d[k] = std::max(std::abs(p[k]) - h[k], 0.0L);
  return d.norm();
}

/// Whether the box of half extents h (centred at the origin) and triangle t are apart: the
/// separating axis test on its 13 axes.
inline bool box_triangle_apart(const L& h, const L t[3]) {
  const L e[3] = {t[1] - t[0], t[2] - t[1], t[0] - t[2]};
  L axes[13] = {L::UnitX(), L::UnitY(), L::UnitZ(), e[0].cross(e[1])};
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) axes[4 + 3 * i + k] = L::Unit(k).cross(e[i]);
  for (const L& ax : axes) {
    if (ax.squaredNorm() == 0) continue;
    const long double r = h.cwiseProduct(ax.cwiseAbs()).sum();
    const long double p0 = t[0].dot(ax), p1 = t[1].dot(ax), p2 = t[2].dot(ax);
    if (std::min({p0, p1, p2}) > r || std::max({p0, p1, p2}) < -r) return true;
  }
  return false;
}

}  // namespace oracle_ld
