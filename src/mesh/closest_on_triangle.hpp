#pragma once
// impact — mesh/closest_on_triangle.hpp: the closest point of a triangle to a point, with the feature (face,
// edge, vertex) it lies on: the initial overlaps of the sphere casts and the carving of levels.
#include <impact/mesh.hpp>

#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>
#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace impact::mesh_detail {

/// Closest point of segment [u, v] to p, measured from the nearer end (so a point near v of a
/// long edge is not v minus a rounding error of the whole length); `end` is set when it is u or v.
inline Vec3<double> closest_on_edge(const Vec3<double>& p, const Vec3<double>& u, const Vec3<double>& v, bool& end) {
  const Vec3<double> e = v - u;
  const double ee = e.squaredNorm();
  end = true;
  if (!(ee > 0.0)) return u;
  const double t = (p - u).dot(e) / ee;
  if (t <= 0.0) return u;
  if (t >= 1.0) return v;
  end = false;
  if (t <= 0.5) return u + t * e;
  return v - ((v - p).dot(e) / ee) * e;
}

/// Closest point of triangle (a, b, c) to p, with the feature it lies on. Computed in double
/// (its products are fourth powers of lengths, which overflow float beyond about 1e9).
///
/// Not by Ericson's Voronoi-region tests (Real-Time Collision Detection §5.1.5), which this file
/// used until fuzzing found them wrong on slivers: their region tests are differences of
/// products of dot products, fourth powers of lengths, and for a triangle 1e11 long and 6 wide
/// with p 0.075 from it they cancelled into the wrong region (a vertex 476 away; a carve kept a
/// triangle inside its blast). Here: p is over the face when it is on the inner side of each
/// edge's plane through the normal (signs of triple products, which fail only within rounding
/// of an edge, where the face and the edge agree); then it is projected from the nearest
/// corner. Otherwise the nearest of the three edges' closest points (a closest point off the
/// face lies on its boundary).
inline Vec3<double> closest_on_triangle_double(const Vec3<double>& p, const Vec3<double>& a, const Vec3<double>& b,
                                               const Vec3<double>& c, MeshFeature& f) {
  const Vec3<double> n = (b - a).cross(c - a);
  const double nn = n.squaredNorm();
  if (nn > 0.0 && std::isfinite(nn)) {
    const bool inside = (b - a).cross(p - a).dot(n) >= 0.0 && (c - b).cross(p - b).dot(n) >= 0.0 &&
                        (a - c).cross(p - c).dot(n) >= 0.0;
    if (inside) {
      const double da = (p - a).squaredNorm(), db = (p - b).squaredNorm(), dc = (p - c).squaredNorm();
      const Vec3<double>& u = da <= db && da <= dc ? a : db <= dc ? b : c;
      f = MeshFeature::face;
      return p - (n.dot(p - u) / nn) * n;
    }
  }
  bool end_ab, end_bc, end_ca;
  const Vec3<double> qab = closest_on_edge(p, a, b, end_ab), qbc = closest_on_edge(p, b, c, end_bc),
                     qca = closest_on_edge(p, c, a, end_ca);
  const double dab = (p - qab).squaredNorm(), dbc = (p - qbc).squaredNorm(), dca = (p - qca).squaredNorm();
  if (dab <= dbc && dab <= dca) {
    f = end_ab ? MeshFeature::vertex : MeshFeature::edge;
    return qab;
  }
  if (dbc <= dca) {
    f = end_bc ? MeshFeature::vertex : MeshFeature::edge;
    return qbc;
  }
  f = end_ca ? MeshFeature::vertex : MeshFeature::edge;
  return qca;
}

template <class S>
Vec3<S> closest_on_triangle(const Vec3<S>& p, const Vec3<S>& a, const Vec3<S>& b, const Vec3<S>& c, MeshFeature& f) {
  if constexpr (!std::is_same_v<S, double>) {
    return closest_on_triangle<double>(p.template cast<double>(), a.template cast<double>(), b.template cast<double>(),
                                       c.template cast<double>(), f)
        .template cast<S>();
  } else {
    return closest_on_triangle_double(p, a, b, c, f);
  }
}

}  // namespace impact::mesh_detail
