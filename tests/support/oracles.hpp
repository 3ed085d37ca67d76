// tests/support/oracles.hpp — independent geometry for the tests, in double precision.
//
// Nothing here calls impact's GJK or its support mappings: the tests compare the library against
// these. Everything is computed in double whatever the library's scalar, from the library's
// inputs (shape parameters and poses) cast to double, so an oracle's own rounding (~1e-15 of the
// scene size) is far below any tolerance the tests use.
//
//  * Primitives (Ericson, Real-Time Collision Detection, 2005, ch. 5): closest point on a segment
//    and a triangle, segment–segment distance, segment–triangle crossing.
//  * Convex polytopes built by brute force from a point cloud (every plane through three points
//    with all points on one side is a face; no qhull), with exact point–polytope distance and
//    exact polytope–polytope distance by feature enumeration: the closest pair of two disjoint
//    convex polytopes is realised by a vertex against the other polytope or by two edges, and
//    overlap is decided by the separating axis theorem (face normals and edge–edge cross products)
//    for solids, or by "a vertex lies in the other, or an edge crosses a face" for flat ones.
//  * Bodies: every shape of the library placed in the world, with a signed distance (exact outside,
//    minus the depth inside), the support value h(n) = max over the body of n·x in closed form,
//    and the exact distance between two bodies whenever one is known (everything but cylinder and
//    cone against anything larger than a ball).
//  * Closed forms: sphere–sphere, sphere–box, capsule–capsule, box–box with the 15-axis SAT.
#pragma once

#include <impact/shapes.hpp>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace oracle {

using V = Eigen::Vector3d;
using M = Eigen::Matrix3d;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------------------------------------
// Primitives
// ---------------------------------------------------------------------------------------------

/// Closest point of segment ab to p.
inline V closest_on_segment(const V& p, const V& a, const V& b) {
  const V ab = b - a;
  const double l2 = ab.squaredNorm();
  if (l2 == 0) return a;
  const double t = std::clamp((p - a).dot(ab) / l2, 0.0, 1.0);
  return a + t * ab;
}

/// Closest point of the solid triangle abc to p (Ericson §5.1.5, Voronoi regions). A degenerate
/// (collinear) triangle is treated as the union of its edges.
inline V closest_on_triangle(const V& p, const V& a, const V& b, const V& c) {
  const V ab = b - a, ac = c - a;
  if (ab.cross(ac).squaredNorm() <= 1e-28 * std::max({ab.squaredNorm(), ac.squaredNorm(), 1e-300}) *
                                        std::max({ab.squaredNorm(), ac.squaredNorm(), 1e-300})) {
    V best = closest_on_segment(p, a, b);
    for (const V& q : {closest_on_segment(p, b, c), closest_on_segment(p, a, c)})
      if ((q - p).squaredNorm() < (best - p).squaredNorm()) best = q;
    return best;
  }
  const V ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const V bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + (d1 / (d1 - d3)) * ab;
  const V cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + (d2 / (d2 - d6)) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

/// Distance and closest points between segments p1q1 and p2q2 (Ericson §5.1.9).
struct SegmentPair {
  double distance;
  V p, q;
};
inline SegmentPair segment_segment(const V& p1, const V& q1, const V& p2, const V& q2) {
  const V d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  double s = 0, t = 0;
  if (a == 0 && e == 0) {
    s = t = 0;
  } else if (a == 0) {
    t = std::clamp(f / e, 0.0, 1.0);
  } else {
    const double c = d1.dot(r);
    if (e == 0) {
      s = std::clamp(-c / a, 0.0, 1.0);
    } else {
      const double b = d1.dot(d2), denom = a * e - b * b;
      s = denom > 1e-30 * a * e ? std::clamp((b * f - c * e) / denom, 0.0, 1.0) : 0.0;
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
  const V x = p1 + s * d1, y = p2 + t * d2;
  // The parallel case picks s = 0; the true minimum may then sit at another end point.
  SegmentPair best{(x - y).norm(), x, y};
  for (const auto& [pt, a0, b0, first] :
       {std::tuple{p1, p2, q2, true}, std::tuple{q1, p2, q2, true}, std::tuple{p2, p1, q1, false},
        std::tuple{q2, p1, q1, false}}) {
    const V c = closest_on_segment(pt, a0, b0);
    const double dd = (c - pt).norm();
    if (dd < best.distance) best = first ? SegmentPair{dd, pt, c} : SegmentPair{dd, c, pt};
  }
  return best;
}

/// True when segment pq crosses the plane of triangle abc at a point inside the triangle.
/// Segments parallel to the plane never cross (the edge–edge and vertex terms of the polytope
/// distance cover them).
inline bool segment_crosses_triangle(const V& p, const V& q, const V& a, const V& b, const V& c) {
  const V n = (b - a).cross(c - a);
  const double dp = n.dot(p - a), dq = n.dot(q - a);
  if ((dp > 0 && dq > 0) || (dp < 0 && dq < 0) || dp == dq) return false;
  const V x = p + (dp / (dp - dq)) * (q - p);
  const double u = n.dot((b - a).cross(x - a)), v = n.dot((c - b).cross(x - b)), w = n.dot((a - c).cross(x - c));
  return u >= 0 && v >= 0 && w >= 0;
}

// ---------------------------------------------------------------------------------------------
// Convex polytopes
// ---------------------------------------------------------------------------------------------

struct Plane {
  V n;       ///< outward unit normal
  double d;  ///< n·x ≤ d inside
};

/// A convex polytope of dimension 0..3: its vertices, edges, boundary triangles (the polygon
/// itself when flat) and, when solid, its face planes.
struct Polytope {
  std::vector<V> vertices;
  std::vector<std::array<int, 2>> edges;
  std::vector<std::array<int, 3>> triangles;
  std::vector<Plane> planes;  ///< one per face (coplanar triangles share it); solids only
  int dimension = 0;

  [[nodiscard]] Polytope transformed(const M& r, const V& t) const {
    Polytope out = *this;
    for (auto& v : out.vertices) v = r * v + t;
    for (auto& p : out.planes) {
      p.n = r * p.n;
      p.d += p.n.dot(t);
    }
    return out;
  }
};

namespace detail {
/// 2D convex hull (Andrew's monotone chain) of points given by index; collinear (turn below
/// `flat`, an area) and repeated points are dropped; the result is counter-clockwise.
inline std::vector<int> hull_2d(const std::vector<Eigen::Vector2d>& q, std::vector<int> ids, double flat) {
  std::sort(ids.begin(), ids.end(), [&](int i, int j) {
    return q[i].x() < q[j].x() || (q[i].x() == q[j].x() && q[i].y() < q[j].y());
  });
  if (ids.size() < 3) return ids;
  auto cross = [&](int o, int a, int b) {
    return (q[a] - q[o]).x() * (q[b] - q[o]).y() - (q[a] - q[o]).y() * (q[b] - q[o]).x();
  };
  std::vector<int> h(2 * ids.size());
  std::size_t k = 0;
  for (int i : ids) {
    while (k >= 2 && cross(h[k - 2], h[k - 1], i) <= flat) --k;
    h[k++] = i;
  }
  for (std::size_t t = ids.size() - 1, lo = k + 1; t-- > 0;) {
    const int i = ids[t];
    while (k >= lo && cross(h[k - 2], h[k - 1], i) <= flat) --k;
    h[k++] = i;
  }
  h.resize(k - 1);
  return h;
}

/// Adds the polygon `ring` (indices into pts, CCW about the face normal) to the polytope.
inline void add_polygon(Polytope& poly, const std::vector<V>& pts, const std::vector<int>& ring,
                        std::vector<int>& remap) {
  auto id = [&](int i) {
    // Repeated points of the cloud map to one vertex.
    if (remap[i] < 0) {
      for (std::size_t k = 0; k < poly.vertices.size(); ++k)
        if (poly.vertices[k] == pts[i]) remap[i] = static_cast<int>(k);
      if (remap[i] < 0) {
        remap[i] = static_cast<int>(poly.vertices.size());
        poly.vertices.push_back(pts[i]);
      }
    }
    return remap[i];
  };
  const int n = static_cast<int>(ring.size());
  for (int k = 0; k < n; ++k) {
    std::array<int, 2> e{id(ring[k]), id(ring[(k + 1) % n])};
    if (e[0] > e[1]) std::swap(e[0], e[1]);
    if (std::find(poly.edges.begin(), poly.edges.end(), e) == poly.edges.end()) poly.edges.push_back(e);
  }
  for (int k = 1; k + 1 < n; ++k) poly.triangles.push_back({id(ring[0]), id(ring[k]), id(ring[k + 1])});
}
}  // namespace detail

/// The convex hull of a cloud by brute force (O(n⁴), for clouds of a few dozen points). Its
/// dimension comes from the singular values of the centred cloud (flat below 1e-10 of the
/// extent); a solid's faces are the planes through three points with every point on one side.
inline Polytope polytope_from_points(std::span<const V> cloud) {
  if (cloud.empty()) throw std::invalid_argument("polytope_from_points: empty cloud");
  const std::vector<V> pts(cloud.begin(), cloud.end());
  const int n = static_cast<int>(pts.size());
  Polytope poly;
  std::vector<int> remap(n, -1);
  double extent = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) extent = std::max(extent, (pts[i] - pts[j]).norm());
  if (extent == 0) {
    poly.vertices = {pts[0]};
    poly.dimension = 0;
    return poly;
  }
  V mean = V::Zero();
  for (const V& p : pts) mean += p;
  mean /= n;
  M cov = M::Zero();
  for (const V& p : pts) cov += (p - mean) * (p - mean).transpose();
  Eigen::SelfAdjointEigenSolver<M> eig(cov);  // ascending eigenvalues
  const V axis0 = eig.eigenvectors().col(2), axis1 = eig.eigenvectors().col(1), axis2 = eig.eigenvectors().col(0);
  auto spread = [&](const V& ax) {
    double lo = kInf, hi = -kInf;
    for (const V& p : pts) {
      lo = std::min(lo, ax.dot(p));
      hi = std::max(hi, ax.dot(p));
    }
    return hi - lo;
  };
  const double flat = 1e-10 * extent;
  if (spread(axis1) <= flat) {
    int lo = 0, hi = 0;
    for (int i = 0; i < n; ++i) {
      if (axis0.dot(pts[i]) < axis0.dot(pts[lo])) lo = i;
      if (axis0.dot(pts[i]) > axis0.dot(pts[hi])) hi = i;
    }
    poly.vertices = {pts[lo], pts[hi]};
    poly.edges = {{0, 1}};
    poly.dimension = 1;
    return poly;
  }
  if (spread(axis2) <= flat) {
    std::vector<Eigen::Vector2d> q(n);
    for (int i = 0; i < n; ++i) q[i] = {axis0.dot(pts[i]), axis1.dot(pts[i])};
    std::vector<int> ids(n);
    for (int i = 0; i < n; ++i) ids[i] = i;
    detail::add_polygon(poly, pts, detail::hull_2d(q, ids, 1e-10 * extent * extent), remap);
    poly.dimension = 2;
    return poly;
  }
  const double eps = 1e-9 * extent;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        V nn = (pts[j] - pts[i]).cross(pts[k] - pts[i]);
        if (nn.norm() <= 1e-9 * extent * extent) continue;
        nn.normalize();
        double d = nn.dot(pts[i]), lo = kInf, hi = -kInf;
        for (const V& p : pts) {
          lo = std::min(lo, nn.dot(p) - d);
          hi = std::max(hi, nn.dot(p) - d);
        }
        if (hi > eps && lo < -eps) continue;  // points on both sides: not a face
        if (hi > eps) {
          nn = -nn;
          d = -d;
        }
        bool seen = false;
        for (const Plane& f : poly.planes) seen = seen || ((f.n - nn).norm() < 1e-7 && std::abs(f.d - d) < 10 * eps);
        if (!seen) poly.planes.push_back({nn, d});
      }
  for (Plane& f : poly.planes) {
    // Refit the plane's offset to the farthest point along its normal (the support value).
    double hi = -kInf;
    for (const V& p : pts) hi = std::max(hi, f.n.dot(p));
    f.d = hi;
    const V e1 = f.n.unitOrthogonal(), e2 = f.n.cross(e1);  // e1 × e2 = n: CCW seen from outside
    std::vector<Eigen::Vector2d> q(n);
    std::vector<int> on;
    for (int i = 0; i < n; ++i) {
      q[i] = {e1.dot(pts[i]), e2.dot(pts[i])};
      if (f.n.dot(pts[i]) >= f.d - eps) on.push_back(i);
    }
    detail::add_polygon(poly, pts, detail::hull_2d(q, on, 1e-10 * extent * extent), remap);
  }
  poly.dimension = 3;
  return poly;
}

/// The box [−h, h] as a polytope (vertices, 12 edges, 12 triangles, 6 planes).
inline Polytope box_polytope(const V& h) {
  if ((h.array() <= 0).any()) {
    std::vector<V> c;
    for (int i = 0; i < 8; ++i) c.emplace_back(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z());
    return polytope_from_points(c);
  }
  Polytope p;
  for (int i = 0; i < 8; ++i) p.vertices.emplace_back(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z());
  for (int i = 0; i < 8; ++i)
    for (int bit : {1, 2, 4})
      if (!(i & bit)) p.edges.push_back({i, i | bit});
  // Faces as quads (CCW seen from outside), each split in two triangles.
  const int quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  for (const auto& q : quads) {
    p.triangles.push_back({q[0], q[1], q[2]});
    p.triangles.push_back({q[0], q[2], q[3]});
  }
  for (int axis = 0; axis < 3; ++axis)
    for (double s : {-1.0, 1.0}) p.planes.push_back({s * V::Unit(axis), h[axis]});
  p.dimension = 3;
  return p;
}

/// The polytope of segment ab (a point when a = b).
inline Polytope segment_polytope(const V& a, const V& b) {
  Polytope p;
  if (a == b) {
    p.vertices = {a};
    return p;
  }
  p.vertices = {a, b};
  p.edges = {{0, 1}};
  p.dimension = 1;
  return p;
}

/// True when x satisfies every face plane (solids only), up to `slack` (length).
inline bool inside_planes(const Polytope& p, const V& x, double slack = 0) {
  for (const Plane& f : p.planes)
    if (f.n.dot(x) - f.d > slack) return false;
  return true;
}

/// Exact distance from x to the polytope (0 inside a solid), with the closest point.
inline double point_polytope_distance(const Polytope& p, const V& x, V* closest = nullptr) {
  if (p.dimension == 3 && inside_planes(p, x)) {
    if (closest) *closest = x;
    return 0;
  }
  V best = p.vertices[0];
  auto consider = [&](const V& c) {
    if ((c - x).squaredNorm() < (best - x).squaredNorm()) best = c;
  };
  for (const V& v : p.vertices) consider(v);
  for (const auto& e : p.edges) consider(closest_on_segment(x, p.vertices[e[0]], p.vertices[e[1]]));
  for (const auto& t : p.triangles) consider(closest_on_triangle(x, p.vertices[t[0]], p.vertices[t[1]], p.vertices[t[2]]));
  if (closest) *closest = best;
  return (best - x).norm();
}

/// Signed distance: exact outside, minus the depth (the largest face-plane value) inside a solid.
inline double point_polytope_signed(const Polytope& p, const V& x) {
  if (p.dimension == 3 && inside_planes(p, x)) {
    double m = -kInf;
    for (const Plane& f : p.planes) m = std::max(m, f.n.dot(x) - f.d);
    return m;
  }
  return point_polytope_distance(p, x);
}

/// Separating axis test for two solids: face normals of both and cross products of their edges.
/// Exact for convex polytopes; returns true when no axis separates them (touching counts).
inline bool sat_overlap(const Polytope& a, const Polytope& b) {
  auto separates = [&](const V& axis) {
    double amin = kInf, amax = -kInf, bmin = kInf, bmax = -kInf;
    for (const V& v : a.vertices) {
      amin = std::min(amin, axis.dot(v));
      amax = std::max(amax, axis.dot(v));
    }
    for (const V& v : b.vertices) {
      bmin = std::min(bmin, axis.dot(v));
      bmax = std::max(bmax, axis.dot(v));
    }
    return amax < bmin || bmax < amin;
  };
  for (const Plane& f : a.planes)
    if (separates(f.n)) return false;
  for (const Plane& f : b.planes)
    if (separates(f.n)) return false;
  for (const auto& ea : a.edges) {
    const V da = a.vertices[ea[1]] - a.vertices[ea[0]];
    for (const auto& eb : b.edges) {
      const V db = b.vertices[eb[1]] - b.vertices[eb[0]];
      const V c = da.cross(db);
      if (c.squaredNorm() <= 1e-24 * da.squaredNorm() * db.squaredNorm()) continue;  // parallel: covered by faces
      if (separates(c)) return false;
    }
  }
  return true;
}

/// Overlap by features: a vertex of one lies in the other, or an edge of one crosses a boundary
/// triangle of the other (or, for flat shapes, two edges meet). Any nonempty intersection of two
/// convex polytopes has a vertex, and every vertex of it is of one of these kinds.
inline bool feature_overlap(const Polytope& a, const Polytope& b) {
  for (const V& v : a.vertices)
    if (point_polytope_distance(b, v) == 0) return true;
  for (const V& v : b.vertices)
    if (point_polytope_distance(a, v) == 0) return true;
  auto crosses = [](const Polytope& e, const Polytope& t) {
    for (const auto& ed : e.edges)
      for (const auto& tr : t.triangles)
        if (segment_crosses_triangle(e.vertices[ed[0]], e.vertices[ed[1]], t.vertices[tr[0]], t.vertices[tr[1]],
                                     t.vertices[tr[2]]))
          return true;
    return false;
  };
  if (crosses(a, b) || crosses(b, a)) return true;
  for (const auto& ea : a.edges)
    for (const auto& eb : b.edges)
      if (segment_segment(a.vertices[ea[0]], a.vertices[ea[1]], b.vertices[eb[0]], b.vertices[eb[1]]).distance == 0)
        return true;
  return false;
}

/// Exact distance between two convex polytopes by feature enumeration: 0 when they overlap (SAT
/// for two solids, features otherwise), else the least vertex–polytope or edge–edge distance.
inline double polytope_distance(const Polytope& a, const Polytope& b) {
  const bool overlap = (a.dimension == 3 && b.dimension == 3) ? sat_overlap(a, b) : feature_overlap(a, b);
  if (overlap) return 0;
  double best = kInf;
  for (const V& v : a.vertices) best = std::min(best, point_polytope_distance(b, v));
  for (const V& v : b.vertices) best = std::min(best, point_polytope_distance(a, v));
  for (const auto& ea : a.edges)
    for (const auto& eb : b.edges)
      best = std::min(best,
                      segment_segment(a.vertices[ea[0]], a.vertices[ea[1]], b.vertices[eb[0]], b.vertices[eb[1]]).distance);
  return best;
}

/// max over the polytope of n·x.
inline double polytope_support_value(const Polytope& p, const V& n) {
  double m = -kInf;
  for (const V& v : p.vertices) m = std::max(m, n.dot(v));
  return m;
}

// ---------------------------------------------------------------------------------------------
// Closed forms
// ---------------------------------------------------------------------------------------------

inline double sphere_sphere(const V& c1, double r1, const V& c2, double r2) {
  return std::max(0.0, (c1 - c2).norm() - r1 - r2);
}

/// Ball (c, r) against the box of half extents h placed by (rot, t): clamp in the box's frame.
inline double sphere_box(const V& c, double r, const V& h, const M& rot, const V& t) {
  const V p = rot.transpose() * (c - t);
  const V q = p.cwiseMax(-h).cwiseMin(h);
  return std::max(0.0, (p - q).norm() - r);
}

/// Capsules given by their core segments and radii.
inline double capsule_capsule(const V& a0, const V& a1, double ra, const V& b0, const V& b1, double rb) {
  return std::max(0.0, segment_segment(a0, a1, b0, b1).distance - ra - rb);
}

/// The 15-axis separating axis test of two oriented boxes (Gottschalk 1996): 3 face axes of each
/// and the 9 cross products of their edge directions.
inline bool box_box_overlap_sat15(const V& ha, const M& ra, const V& ta, const V& hb, const M& rb, const V& tb) {
  std::vector<V> axes;
  for (int i = 0; i < 3; ++i) axes.push_back(ra.col(i));
  for (int i = 0; i < 3; ++i) axes.push_back(rb.col(i));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const V c = ra.col(i).cross(rb.col(j));
      if (c.squaredNorm() > 1e-24) axes.push_back(c.normalized());
    }
  const V d = tb - ta;
  for (const V& l : axes) {
    double pa = 0, pb = 0;
    for (int i = 0; i < 3; ++i) {
      pa += ha[i] * std::abs(l.dot(ra.col(i)));
      pb += hb[i] * std::abs(l.dot(rb.col(i)));
    }
    if (std::abs(l.dot(d)) > pa + pb) return false;
  }
  return true;
}

/// Exact box–box distance: 15-axis SAT for overlap, then vertex–box and edge–edge enumeration.
inline double box_box(const V& ha, const M& ra, const V& ta, const V& hb, const M& rb, const V& tb) {
  if (box_box_overlap_sat15(ha, ra, ta, hb, rb, tb)) return 0;
  const Polytope a = box_polytope(ha).transformed(ra, ta), b = box_polytope(hb).transformed(rb, tb);
  double best = kInf;
  for (const V& v : a.vertices) best = std::min(best, point_polytope_distance(b, v));
  for (const V& v : b.vertices) best = std::min(best, point_polytope_distance(a, v));
  for (const auto& ea : a.edges)
    for (const auto& eb : b.edges)
      best = std::min(best,
                      segment_segment(a.vertices[ea[0]], a.vertices[ea[1]], b.vertices[eb[0]], b.vertices[eb[1]]).distance);
  return best;
}

// ---------------------------------------------------------------------------------------------
// Bodies: the library's shapes placed in the world
// ---------------------------------------------------------------------------------------------

enum class Kind { point, sphere, box, capsule, cylinder, cone, segment, triangle, hull, rounded_box };

inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::point: return "point";
    case Kind::sphere: return "sphere";
    case Kind::box: return "box";
    case Kind::capsule: return "capsule";
    case Kind::cylinder: return "cylinder";
    case Kind::cone: return "cone";
    case Kind::segment: return "segment";
    case Kind::triangle: return "triangle";
    case Kind::hull: return "hull";
    case Kind::rounded_box: return "rounded_box";
  }
  return "?";
}

/// A shape in the world. Shapes with a polytope core (point, sphere, box, capsule, segment,
/// triangle, hull, box⊕sphere) are `core ⊕ ball(radius)`; cylinder and cone keep their
/// parameters and placement.
struct Body {
  Kind kind = Kind::point;
  bool has_core = true;
  Polytope core;       ///< world frame
  double radius = 0;   ///< ball radius added to the core; cylinder/cone radius
  double half_height = 0;
  M rot = M::Identity();
  V pos = V::Zero();

  [[nodiscard]] V to_local(const V& x) const { return rot.transpose() * (x - pos); }
  /// Radius of the ball the body's polytope core is grown by (0 for cylinder and cone).
  [[nodiscard]] double rounding() const { return has_core ? radius : 0.0; }
  /// True for a single point grown by a radius (point or sphere).
  [[nodiscard]] bool is_ball() const { return has_core && core.dimension == 0 && core.vertices.size() == 1; }
};

/// Signed distance from x to the body: exact outside, minus the depth inside (flat bodies have no
/// inside and give the plain distance).
inline double signed_distance(const Body& b, const V& x) {
  if (b.has_core) return point_polytope_signed(b.core, x) - b.radius;
  const V p = b.to_local(x);
  const double rho = std::hypot(p.x(), p.y()), r = b.radius, h = b.half_height;
  if (b.kind == Kind::cylinder) {
    const double ex = rho - r, ez = std::abs(p.z()) - h;
    if (ex <= 0 && ez <= 0) return std::max(ex, ez);
    return std::hypot(std::max(ex, 0.0), std::max(ez, 0.0));
  }
  if (h == 0) {  // a flat cone is its base disc
    const double ex = rho - r, ez = std::abs(p.z());
    return ex <= 0 ? ez : std::hypot(ex, ez);
  }
  // Cone: in the meridian half-plane (ρ, z) the solid is the triangle (0,−h) (r,−h) (0,h); the
  // nearest point of a solid of revolution lies in the same half-plane.
  const double len = std::hypot(2 * h, r);
  const double slant = (2 * h * rho + r * p.z() - r * h) / len;  // signed distance to the slanted side
  const double base = -h - p.z();
  if (slant <= 0 && base <= 0) return std::max(slant, base);
  const V q(rho, p.z(), 0);
  return (closest_on_triangle(q, V(0, -h, 0), V(r, -h, 0), V(0, h, 0)) - q).norm();
}

/// Support value h(n) = max over the body of n·x (n need not be unit).
inline double support_value(const Body& b, const V& n) {
  if (b.has_core) return polytope_support_value(b.core, n) + b.radius * n.norm();
  const V m = b.rot.transpose() * n;
  const double s = std::hypot(m.x(), m.y());
  const double local = b.kind == Kind::cylinder ? b.radius * s + b.half_height * std::abs(m.z())
                                                : std::max(b.half_height * m.z(), b.radius * s - b.half_height * m.z());
  return local + n.dot(b.pos);
}

/// Points of the body (world frame) spread over its surface, from its parameters alone: the
/// vertices of a polytope core (each grown by the radius along random directions), the rims,
/// caps, sides and apex of cylinders and cones. The maximum of n·x over them approaches the
/// support value from below; each lies in the body. `unit` supplies random unit vectors and
/// `uniform` numbers in [0, 1).
template <class Unit, class Uniform>
std::vector<V> surface_samples(const Body& b, int n, Unit&& unit, Uniform&& uniform) {
  std::vector<V> out;
  if (b.has_core) {
    for (const V& v : b.core.vertices) {
      if (b.radius == 0) {
        out.push_back(v);
        continue;
      }
      for (int i = 0; i < std::max(1, n / static_cast<int>(b.core.vertices.size())); ++i) out.push_back(v + b.radius * unit());
    }
    // Points inside edges and faces (they never beat the vertices, but exercise containment).
    for (const auto& t : b.core.triangles) {
      double u = uniform(), w = uniform();
      if (u + w > 1) {
        u = 1 - u;
        w = 1 - w;
      }
      const V& a = b.core.vertices[t[0]];
      out.push_back(a + u * (b.core.vertices[t[1]] - a) + w * (b.core.vertices[t[2]] - a) + b.radius * unit());
    }
    for (const auto& e : b.core.edges)
      out.push_back(b.core.vertices[e[0]] + uniform() * (b.core.vertices[e[1]] - b.core.vertices[e[0]]) + b.radius * unit());
    return out;
  }
  const double r = b.radius, h = b.half_height;
  auto world = [&](const V& p) { return V(b.rot * p + b.pos); };
  for (int i = 0; i < n; ++i) {
    const double phi = 2 * M_PI * uniform(), c = std::cos(phi), sn = std::sin(phi);
    const double rho = r * std::sqrt(uniform()), t = uniform();
    if (b.kind == Kind::cylinder) {
      out.push_back(world(V(r * c, r * sn, i % 2 ? h : -h)));           // rims
      out.push_back(world(V(r * c, r * sn, (2 * t - 1) * h)));          // side
      out.push_back(world(V(rho * c, rho * sn, i % 2 ? h : -h)));       // caps
    } else {
      out.push_back(world(V(r * c, r * sn, -h)));                       // base rim
      out.push_back(world(V(rho * c, rho * sn, -h)));                   // base
      out.push_back(world(V((1 - t) * r * c, (1 - t) * r * sn, -h + 2 * h * t)));  // lateral surface
    }
  }
  if (b.kind == Kind::cone) out.push_back(world(V(0, 0, h)));
  return out;
}

/// Exact distance between two bodies when one is known: a ball against anything (signed distance
/// of its centre minus its radius), or two polytope cores (feature enumeration minus the radii).
inline std::optional<double> distance(const Body& a, const Body& b) {
  if (a.is_ball()) return std::max(0.0, signed_distance(b, a.core.vertices[0]) - a.radius);
  if (b.is_ball()) return std::max(0.0, signed_distance(a, b.core.vertices[0]) - b.radius);
  if (a.has_core && b.has_core) return std::max(0.0, polytope_distance(a.core, b.core) - a.radius - b.radius);
  return std::nullopt;
}

/// min over t ∈ [0,1] of max(sd_A(x), sd_B(x)) on x = p + t(q − p): at most `tol` certifies that
/// A and B share a point (up to tol) on the segment pq. Both signed distances are convex, so is
/// their maximum along a line: golden-section search finds the minimum.
inline double common_point_excess(const Body& a, const Body& b, const V& p, const V& q) {
  auto f = [&](double t) {
    const V x = p + t * (q - p);
    return std::max(signed_distance(a, x), signed_distance(b, x));
  };
  double lo = 0, hi = 1;
  const double g = 0.5 * (std::sqrt(5.0) - 1);
  double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < 80 && hi - lo > 1e-15; ++i) {
    if (f1 <= f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - g * (hi - lo);
      f1 = f(x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + g * (hi - lo);
      f2 = f(x2);
    }
  }
  return std::min({f(0), f(1), f1, f2});
}

/// Lower bound of the distance from a direction: min over B of n̂·x − max over A of n̂·x. Positive
/// values prove that A and B are apart by at least that much (n̂ separates them).
inline double separation_along(const Body& a, const Body& b, const V& n) {
  const double len = n.norm();
  if (!(len > 0)) return -kInf;
  const V u = n / len;
  return -support_value(b, -u) - support_value(a, u);
}

/// A point of the body farthest along n (closed forms, like support_value).
inline V support_point(const Body& b, const V& n) {
  if (b.has_core) {
    const V* best = &b.core.vertices[0];
    for (const V& v : b.core.vertices)
      if (n.dot(v) > n.dot(*best)) best = &v;
    const double len = n.norm();
    return len > 0 ? V(*best + b.radius / len * n) : *best;
  }
  const V m = b.rot.transpose() * n;
  const double s = std::hypot(m.x(), m.y()), r = b.radius, h = b.half_height;
  V local;
  if (b.kind == Kind::cylinder) {
    local = V(s > 0 ? r * m.x() / s : 0, s > 0 ? r * m.y() / s : 0, m.z() >= 0 ? h : -h);
  } else if (h * m.z() >= r * s - h * m.z()) {
    local = V(0, 0, h);
  } else {
    local = V(s > 0 ? r * m.x() / s : 0, s > 0 ? r * m.y() / s : 0, -h);
  }
  return b.rot * local + b.pos;
}

/// Closest point of the body to x (x itself when inside).
inline V closest_point(const Body& b, const V& x) {
  if (b.has_core) {
    V c;
    const double d = point_polytope_distance(b.core, x, &c);
    if (d <= b.radius) return x;
    return c + (b.radius / d) * (x - c);
  }
  const V p = b.to_local(x);
  const double rho = std::hypot(p.x(), p.y()), r = b.radius, h = b.half_height;
  // Nearest point in the meridian half-plane (ρ, z), then back to 3D along the point's azimuth.
  Eigen::Vector2d q;
  if (b.kind == Kind::cylinder) {
    q = {std::min(rho, r), std::clamp(p.z(), -h, h)};
  } else {
    const V c = closest_on_triangle(V(rho, p.z(), 0), V(0, -h, 0), V(r, -h, 0), V(0, h, 0));
    q = {c.x(), c.y()};
  }
  const double cx = rho > 0 ? p.x() / rho : 1, cy = rho > 0 ? p.y() / rho : 0;
  return b.rot * V(q.x() * cx, q.x() * cy, q.y()) + b.pos;
}

/// Bounds on the distance, each a proof: `upper` is |y − x| for points x ∈ A, y ∈ B, `lower` is
/// min_B n·z − max_A n·z for a direction n (or 0). They come from alternating projections
/// (x ← P_A(y), y ← P_B(x), which converge to a closest pair of disjoint convex sets, or to a
/// common point), each pair's direction y − x giving a lower bound, and from the `hints`
/// directions. The iteration stops when the bounds are within `gap` or after `max_steps`, so an
/// unconverged pair of bounds is merely loose, never wrong.
struct Bounds {
  double lower, upper;
};
inline Bounds distance_bounds(const Body& a, const Body& b, double gap, int max_steps,
                              std::initializer_list<V> hints = {}) {
  double lower = 0, upper = kInf;
  for (const V& h : hints) lower = std::max(lower, separation_along(a, b, h));
  V y = b.has_core ? b.core.vertices[0] : b.pos;
  for (int k = 0; k < max_steps && upper - lower > gap; ++k) {
    const V x = closest_point(a, y);
    const V y2 = closest_point(b, x);
    upper = std::min(upper, (y2 - x).norm());
    if (upper > 0) lower = std::max(lower, separation_along(a, b, y2 - x));
    if (y2 == y) break;
    y = y2;
  }
  return {lower, upper};
}

/// The best lower bound of the distance found by distance_bounds (up to 2000 steps): any
/// positive value proves the shapes apart. It only refutes answers that claim an overlap.
inline double best_separation(const Body& a, const Body& b, std::initializer_list<V> hints) {
  double best = -kInf;
  for (const V& h : hints) best = std::max(best, separation_along(a, b, h));
  return std::max(best, distance_bounds(a, b, 1e-14, 2000, hints).lower);
}

// ---------------------------------------------------------------------------------------------
// From the library's inputs (only their parameters are read; no library geometry is called)
// ---------------------------------------------------------------------------------------------

template <class S>
M rotation_of(const impact::Pose<S>& pose) {
  return pose.rotation.template cast<double>().normalized().toRotationMatrix();
}

/// Local-frame oracle core of a primitive shape. Hulls need their cloud's polytope (`hull_local`),
/// built once by the caller with `polytope_from_points`; without it the hull's vertices are used.
template <class S>
Body make_body(const impact::Shape<S>& shape, const impact::Pose<S>& pose, const Polytope* hull_local = nullptr) {
  using namespace impact;
  Body b;
  b.rot = rotation_of(pose);
  b.pos = pose.position.template cast<double>();
  auto vd = [](const Vec3<S>& v) -> V { return v.template cast<double>(); };
  Polytope local;
  const auto& var = shape.variant();
  if (std::holds_alternative<Point<S>>(var)) {
    b.kind = Kind::point;
    local = segment_polytope(V::Zero(), V::Zero());
  } else if (auto* s = std::get_if<Sphere<S>>(&var)) {
    b.kind = Kind::sphere;
    local = segment_polytope(V::Zero(), V::Zero());
    b.radius = s->radius;
  } else if (auto* x = std::get_if<Box<S>>(&var)) {
    b.kind = Kind::box;
    local = box_polytope(vd(x->half_extents));
  } else if (auto* c = std::get_if<Capsule<S>>(&var)) {
    b.kind = Kind::capsule;
    local = segment_polytope(V(0, 0, -double(c->half_height)), V(0, 0, double(c->half_height)));
    b.radius = c->radius;
  } else if (auto* y = std::get_if<Cylinder<S>>(&var)) {
    b.kind = Kind::cylinder;
    b.has_core = false;
    b.radius = y->radius;
    b.half_height = y->half_height;
  } else if (auto* k = std::get_if<Cone<S>>(&var)) {
    b.kind = Kind::cone;
    b.has_core = false;
    b.radius = k->radius;
    b.half_height = k->half_height;
  } else if (auto* g = std::get_if<Segment<S>>(&var)) {
    b.kind = Kind::segment;
    local = segment_polytope(vd(g->a), vd(g->b));
  } else if (auto* t = std::get_if<Triangle<S>>(&var)) {
    b.kind = Kind::triangle;
    const V pts[3] = {vd(t->a), vd(t->b), vd(t->c)};
    local = polytope_from_points(pts);
  } else if (auto* h = std::get_if<Hull<S>>(&var)) {
    b.kind = Kind::hull;
    if (hull_local) {
      local = *hull_local;
    } else {
      std::vector<V> pts;
      for (const auto& v : h->vertices) pts.push_back(vd(v));
      local = polytope_from_points(pts);
    }
  } else if (auto* m = std::get_if<MinkowskiShape<S>>(&var)) {
    const Box<S>* bx = std::get_if<Box<S>>(&m->a->variant());
    const Sphere<S>* sp = std::get_if<Sphere<S>>(&m->b->variant());
    if (!bx) bx = std::get_if<Box<S>>(&m->b->variant());
    if (!sp) sp = std::get_if<Sphere<S>>(&m->a->variant());
    if (!bx || !sp) throw std::invalid_argument("make_body: only box ⊕ sphere has an oracle");
    b.kind = Kind::rounded_box;
    local = box_polytope(vd(bx->half_extents));
    b.radius = sp->radius;
  } else {
    throw std::invalid_argument("make_body: transformed shapes have no oracle");
  }
  if (b.has_core) b.core = local.transformed(b.rot, b.pos);
  return b;
}

}  // namespace oracle
