#pragma once
// impact — mesh/closest_on_triangle.hpp: the closest point of a triangle to a point by Voronoi regions, with the feature
// (face, edge, vertex) it lies on: the initial overlaps of the sphere and shape casts.
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

/// Closest point of triangle (a, b, c) to p, with the feature it lies on (Ericson, Real-Time
/// Collision Detection, §5.1.5, by Voronoi regions). Computed in double: its products of dot
/// products are fourth powers of lengths, which overflow float beyond about 1e9.
inline Vec3<double> closest_on_triangle_double(const Vec3<double>& p, const Vec3<double>& a, const Vec3<double>& b,
                                               const Vec3<double>& c, MeshFeature& f) {
  using S = double;
  const Vec3<S> ab = b - a, ac = c - a, ap = p - a;
  const S d1 = ab.dot(ap), d2 = ac.dot(ap);
  f = MeshFeature::vertex;
  if (d1 <= S(0) && d2 <= S(0)) return a;
  const Vec3<S> bp = p - b;
  const S d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= S(0) && d4 <= d3) return b;
  const S vc = d1 * d4 - d3 * d2;
  f = MeshFeature::edge;
  if (vc <= S(0) && d1 >= S(0) && d3 <= S(0)) return a + ab * (d1 / (d1 - d3));
  const Vec3<S> cp = p - c;
  const S d5 = ab.dot(cp), d6 = ac.dot(cp);
  f = MeshFeature::vertex;
  if (d6 >= S(0) && d5 <= d6) return c;
  const S vb = d5 * d2 - d1 * d6;
  f = MeshFeature::edge;
  if (vb <= S(0) && d2 >= S(0) && d6 <= S(0)) return a + ac * (d2 / (d2 - d6));
  const S va = d3 * d6 - d5 * d4;
  if (va <= S(0) && (d4 - d3) >= S(0) && (d5 - d6) >= S(0)) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  f = MeshFeature::face;
  const S denom = S(1) / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
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
