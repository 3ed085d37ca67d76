// impact — world/segment_triangle.hpp: the distance between a segment and a triangle, for
// culling a mesh's triangles by the line a piece's swept sphere follows in the mesh's frame.
//
// A piece that stays within r of the segment [q0, q1] comes within `gap` of a triangle only if
// the segment comes within r + gap of it. The closest pair of a segment and a triangle that do
// not cross lies on a segment end or a triangle edge (Ericson, Real-Time Collision Detection,
// §5.1.10), so the distance is the least of: each end to the triangle (§5.1.5), the segment to
// each edge (§5.1.9), and, when the ends lie on the two sides of the plane, the crossing point
// to the triangle (zero when it is inside). Computed in double; callers add a slack.
#pragma once

#include "world/swept_bounds.hpp"

#include <algorithm>
#include <cmath>

namespace impact::world_detail {

/// p less its closest point of the triangle abc (Ericson §5.1.5, by Voronoi regions).
[[nodiscard]] inline Vec3d from_triangle(const Vec3d& p, const Vec3d& a, const Vec3d& b, const Vec3d& c) {
  const Vec3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return ap;
  const Vec3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return bp;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return ap - ab * (d1 / (d1 - d3));
  const Vec3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return cp;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return ap - ac * (d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return bp - (c - b) * w;
  }
  const double denom = 1.0 / (va + vb + vc);
  const double v = vb * denom, w = vc * denom;
  return ap - ab * v - ac * w;
}

/// Squared distance from p to the triangle abc.
[[nodiscard]] inline double point_triangle_sq(const Vec3d& p, const Vec3d& a, const Vec3d& b, const Vec3d& c) {
  return from_triangle(p, a, b, c).squaredNorm();
}

/// Squared distance between the segments p1q1 and p2q2 (Ericson §5.1.9).
[[nodiscard]] inline double segment_segment_sq(const Vec3d& p1, const Vec3d& q1, const Vec3d& p2, const Vec3d& q2) {
  const Vec3d d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  double s = 0, t = 0;
  if (a <= 0 && e <= 0) return r.squaredNorm();
  if (a <= 0) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e <= 0) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2), denom = a * e - b * b;
      s = denom > 0 ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = std::clamp(-c / a, 0.0, 1.0);
      } else if (t > 1) {
        t = 1;
        s = std::clamp((b - c) / a, 0.0, 1.0);
      }
    }
  }
  return ((p1 + d1 * s) - (p2 + d2 * t)).squaredNorm();
}

/// Distance between the segment [q0, q1] and the triangle abc.
[[nodiscard]] inline double segment_triangle_distance(const Vec3d& q0, const Vec3d& q1, const Vec3d& a, const Vec3d& b,
                                                      const Vec3d& c) {
  double best = std::min(point_triangle_sq(q0, a, b, c), point_triangle_sq(q1, a, b, c));
  best = std::min({best, segment_segment_sq(q0, q1, a, b), segment_segment_sq(q0, q1, b, c),
                   segment_segment_sq(q0, q1, c, a)});
  const Vec3d n = (b - a).cross(c - a);
  const double s0 = n.dot(q0 - a), s1 = n.dot(q1 - a);
  if ((s0 <= 0 && s1 >= 0) || (s0 >= 0 && s1 <= 0)) {
    const double den = s0 - s1;
    const Vec3d x = den != 0 ? Vec3d(q0 + (q1 - q0) * (s0 / den)) : q0;
    best = std::min(best, point_triangle_sq(x, a, b, c));
  }
  return std::sqrt(best);
}

}  // namespace impact::world_detail
