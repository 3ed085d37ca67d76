// impact — tests/fuzz/oracle.hpp: an independent distance oracle for the battery (never calls the
// library). A body is a convex polytope core (a point, a segment, a triangle or a box) swept by a
// ball of radius r, placed in the world: it covers the library's point, sphere, box, capsule,
// segment, triangle, rounded box (minkowski of a box and a sphere) and a hull of a box's corners.
//
// Signed distance of two bodies: the cores' signed distance minus both radii. Disjoint cores are
// as far apart as their closest features: a vertex of one and the other core, or two edges (the
// closest points of two convex polytopes lie on features of which at least one pair is
// vertex–core or edge–edge). Whether cores overlap, and by how much, is the separating axis test
// over the face normals, the cross products of edge pairs and, for flat cores, the in-plane
// normals of the edges: the penetration depth of two polytopes is the least overlap over the
// facet normals of their Minkowski difference, all among those axes. The signed distance is
// convex along any translation, which the linear casts' oracle relies on.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace impact::oracle {

using V = Eigen::Vector3d;

/// A polytope core in world coordinates, with a radius.
struct Body {
  enum Kind { point, segment, triangle, box } kind = point;
  std::vector<V> vertices;                 ///< World vertices.
  std::vector<std::array<int, 2>> edges;   ///< Edges as vertex index pairs.
  std::vector<V> normals;                  ///< Face normals (unit; box: its 3 axes; triangle: 1).
  // Box only: centre, axes (columns) and half extents, for the closed-form point distance.
  V center = V::Zero();
  Eigen::Matrix3d axes = Eigen::Matrix3d::Identity();
  V half = V::Zero();
  double radius = 0;
  [[nodiscard]] bool flat() const { return kind == triangle || (kind == box && half.minCoeff() == 0); }
};

/// The closest point to p on segment a..b.
inline V closest_on_segment(const V& p, const V& a, const V& b) {
  const V e = b - a;
  const double l2 = e.squaredNorm();
  if (!(l2 > 0)) return a;
  const double t = std::clamp((p - a).dot(e) / l2, 0.0, 1.0);
  return a + t * e;
}

/// Distance between segments p0..p1 and q0..q1 (clamped closest points, then the four endpoint
/// projections, whichever is least: exact up to rounding, parallel segments included).
inline double segment_segment(const V& p0, const V& p1, const V& q0, const V& q1) {
  double best = std::min({(closest_on_segment(p0, q0, q1) - p0).norm(), (closest_on_segment(p1, q0, q1) - p1).norm(),
                          (closest_on_segment(q0, p0, p1) - q0).norm(), (closest_on_segment(q1, p0, p1) - q1).norm()});
  const V d1 = p1 - p0, d2 = q1 - q0, r = p0 - q0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r), c = d1.dot(r), b = d1.dot(d2);
  const double den = a * e - b * b;
  if (a > 0 && e > 0 && den > 1e-300 && den > 1e-14 * a * e) {
    // Interior closest points of the two lines, when both lie within the segments.
    const double s = (b * f - c * e) / den, t = (a * f - b * c) / den;
    if (s > 0 && s < 1 && t > 0 && t < 1) best = std::min(best, ((p0 + s * d1) - (q0 + t * d2)).norm());
  }
  return best;
}

/// Distance from p to the triangle a, b, c.
inline double point_triangle(const V& p, const V& a, const V& b, const V& c) {
  double best = std::min({(closest_on_segment(p, a, b) - p).norm(), (closest_on_segment(p, b, c) - p).norm(),
                          (closest_on_segment(p, c, a) - p).norm()});
  const V n = (b - a).cross(c - a);
  const double n2 = n.squaredNorm();
  if (n2 > 0 && std::isfinite(n2)) {
    const double s0 = (b - a).cross(p - a).dot(n), s1 = (c - b).cross(p - b).dot(n), s2 = (a - c).cross(p - c).dot(n);
    if (s0 >= 0 && s1 >= 0 && s2 >= 0) best = std::min(best, std::abs((p - a).dot(n)) / std::sqrt(n2));
  }
  return best;
}

/// Signed distance from p to the core (negative inside a solid box).
inline double point_core(const V& p, const Body& b) {
  switch (b.kind) {
    case Body::point: return (p - b.vertices[0]).norm();
    case Body::segment: return (closest_on_segment(p, b.vertices[0], b.vertices[1]) - p).norm();
    case Body::triangle: return point_triangle(p, b.vertices[0], b.vertices[1], b.vertices[2]);
    case Body::box: {
      const V l = b.axes.transpose() * (p - b.center);
      const V q = l.cwiseAbs() - b.half;
      const double outside = q.cwiseMax(0.0).norm();
      return outside > 0 ? outside : std::min(q.maxCoeff(), 0.0);
    }
  }
  return 0;
}

/// Signed distance from p to the body (core minus radius).
inline double point_body(const V& p, const Body& b) { return point_core(p, b) - b.radius; }

/// Overlap of the two cores' projections on axis u (unit): negative = a gap of that size.
inline double overlap_on(const V& u, const Body& a, const Body& b) {
  double amin = std::numeric_limits<double>::infinity(), amax = -amin, bmin = amin, bmax = -amin;
  for (const V& v : a.vertices) amin = std::min(amin, u.dot(v)), amax = std::max(amax, u.dot(v));
  for (const V& v : b.vertices) bmin = std::min(bmin, u.dot(v)), bmax = std::max(bmax, u.dot(v));
  return std::min(amax - bmin, bmax - amin);
}

/// Signed distance between the two cores.
inline double core_core(const Body& a0, const Body& b0) {
  // A segment of zero length is a point.
  auto collapsed = [](const Body& x) {
    if (x.kind != Body::segment || x.vertices[0] != x.vertices[1]) return x;
    Body p = x;
    p.kind = Body::point;
    p.vertices.resize(1);
    p.edges.clear();
    return p;
  };
  const Body a = collapsed(a0), b = collapsed(b0);
  if (a.kind == Body::point) return point_core(a.vertices[0], b);
  if (b.kind == Body::point) return point_core(b.vertices[0], a);
  if (a.kind == Body::segment && b.kind == Body::segment)
    return segment_segment(a.vertices[0], a.vertices[1], b.vertices[0], b.vertices[1]);
  // Separating axis test; the least overlap is the penetration depth when no axis separates.
  double least = std::numeric_limits<double>::infinity();
  bool separated = false;
  auto axis = [&](const V& w) {
    const double n = w.norm();
    if (!(n > 1e-12)) return;
    const double o = overlap_on(w / n, a, b);
    if (o < 0) separated = true;
    least = std::min(least, o);
  };
  auto unit_edge = [](const Body& x, const std::array<int, 2>& e) {
    const V d = x.vertices[e[1]] - x.vertices[e[0]];
    const double n = d.norm();
    return n > 0 ? V(d / n) : V(V::Zero());
  };
  for (const V& n : a.normals) axis(n);
  for (const V& n : b.normals) axis(n);
  for (const auto& ea : a.edges)
    for (const auto& eb : b.edges) axis(unit_edge(a, ea).cross(unit_edge(b, eb)));
  if (a.flat() || b.flat()) {
    for (const Body* x : {&a, &b})
      for (const V& n : x->normals)
        for (const Body* y : {&a, &b})
          for (const auto& e : y->edges) axis(n.cross(unit_edge(*y, e)));
  }
  // No usable axis (cores degenerate in every direction tested): fall back to the features.
  if (!separated && std::isfinite(least)) return -std::max(0.0, least);
  // Disjoint: the closest features.
  double best = std::numeric_limits<double>::infinity();
  for (const V& v : a.vertices) best = std::min(best, point_core(v, b));
  for (const V& v : b.vertices) best = std::min(best, point_core(v, a));
  for (const auto& ea : a.edges)
    for (const auto& eb : b.edges)
      best = std::min(best, segment_segment(a.vertices[ea[0]], a.vertices[ea[1]], b.vertices[eb[0]], b.vertices[eb[1]]));
  return std::max(best, 0.0);
}

/// Signed distance between two bodies (negative: they overlap).
inline double body_body(const Body& a, const Body& b) { return core_core(a, b) - a.radius - b.radius; }

// ---- building bodies ------------------------------------------------------------------------

/// A rigid placement: world = rotation * local + position (rotation from a quaternion w, x, y, z,
/// normalised here: validation accepts norms within 1e-6 of 1 and they place a shape rigidly).
struct Place {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  V position = V::Zero();
  [[nodiscard]] V apply(const V& p) const { return rotation * p + position; }
};

inline Eigen::Matrix3d rotation_of(double w, double x, double y, double z) {
  const double n = std::sqrt(w * w + x * x + y * y + z * z);
  w /= n, x /= n, y /= n, z /= n;
  Eigen::Matrix3d m;
  m << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),  //
      2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),   //
      2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
  return m;
}

inline Body make_point(const Place& p, double radius) {
  Body b;
  b.kind = Body::point;
  b.vertices = {p.position};
  b.radius = radius;
  return b;
}

inline Body make_segment(const Place& p, const V& a, const V& c, double radius) {
  Body b;
  b.kind = Body::segment;
  b.vertices = {p.apply(a), p.apply(c)};
  b.edges = {{0, 1}};
  b.radius = radius;
  return b;
}

inline Body make_triangle(const Place& p, const V& a, const V& c, const V& d) {
  Body b;
  b.kind = Body::triangle;
  b.vertices = {p.apply(a), p.apply(c), p.apply(d)};
  b.edges = {{0, 1}, {1, 2}, {2, 0}};
  const V n = (b.vertices[1] - b.vertices[0]).cross(b.vertices[2] - b.vertices[0]);
  if (n.norm() > 0) b.normals = {n.normalized()};
  return b;
}

inline Body make_box(const Place& p, const V& half, double radius) {
  Body b;
  b.kind = Body::box;
  b.center = p.position;
  b.axes = p.rotation;
  b.half = half;
  b.radius = radius;
  for (int i = 0; i < 8; ++i) {
    const V l((i & 1) ? half.x() : -half.x(), (i & 2) ? half.y() : -half.y(), (i & 4) ? half.z() : -half.z());
    b.vertices.push_back(p.apply(l));
  }
  for (int i = 0; i < 8; ++i)
    for (int k = 0; k < 3; ++k)
      if (!(i & (1 << k))) b.edges.push_back({i, i | (1 << k)});
  for (int k = 0; k < 3; ++k) b.normals.push_back(p.rotation.col(k));
  return b;
}

}  // namespace impact::oracle
