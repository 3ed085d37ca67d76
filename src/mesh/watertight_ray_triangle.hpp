#pragma once
// impact — mesh/watertight_ray_triangle.hpp: the watertight ray–triangle test (Woop, Benthin and Wald 2013), exact on shared
// edges and vertices so that no ray slips between two triangles.
#include <impact/mesh.hpp>

#include "mesh/bin_tree_walk.hpp"  // Lanes4: four triangles per test

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

/// Per-ray set-up of the watertight test (Woop, Benthin, Wald 2013): the axis kz of largest
/// |direction| becomes the ray's axis, the other two are sheared so the ray is the z axis of a
/// frame at its origin; kx and ky swap when direction[kz] < 0 to keep the winding.
template <class S>
struct WatertightRay {
  int kx = 0, ky = 1, kz = 2;
  S sx = 0, sy = 0, sz = 1;
  S ox = 0, oy = 0, oz = 0;  // origin[kx], origin[ky], origin[kz]
  explicit WatertightRay(const Ray<S>& r) {
    const Vec3<S> a = r.direction.cwiseAbs();
    kz = a[0] >= a[1] ? (a[0] >= a[2] ? 0 : 2) : (a[1] >= a[2] ? 1 : 2);
    kx = (kz + 1) % 3;
    ky = (kx + 1) % 3;
    if (r.direction[kz] < S(0)) std::swap(kx, ky);
    sx = r.direction[kx] / r.direction[kz];
    sy = r.direction[ky] / r.direction[kz];
    sz = S(1) / r.direction[kz];
    ox = r.origin[kx];
    oy = r.origin[ky];
    oz = r.origin[kz];
  }
};

/// λ of the crossing of the ray with triangle (a, b, c) when it is in [0, t_best] (and a
/// front-to-back crossing under BackFaces::ignore); false otherwise. The three edge functions
/// U, V, W are computed from the same products for both triangles sharing an edge (with opposite
/// signs), so a point on a shared edge is inside at least one of them; a zero edge function is
/// re-evaluated in double for float, as the paper advises.
template <class S>
[[gnu::always_inline]] inline bool ray_triangle(const WatertightRay<S>& r, const PackedTriangle<S>& tri, BackFaces bf, S t_best, S& lambda) {
  // Corners relative to the origin, sheared so the ray is the z axis.
  const S Az = tri.a[r.kz] - r.oz, Bz = tri.b[r.kz] - r.oz, Cz = tri.c[r.kz] - r.oz;
  const S ax = (tri.a[r.kx] - r.ox) - r.sx * Az, ay = (tri.a[r.ky] - r.oy) - r.sy * Az;
  const S bx = (tri.b[r.kx] - r.ox) - r.sx * Bz, by = (tri.b[r.ky] - r.oy) - r.sy * Bz;
  const S cx = (tri.c[r.kx] - r.ox) - r.sx * Cz, cy = (tri.c[r.ky] - r.oy) - r.sy * Cz;
  S u = cx * by - cy * bx;
  S v = ax * cy - ay * cx;
  S w = bx * ay - by * ax;
  if constexpr (sizeof(S) < sizeof(double)) {
    if (u == S(0) || v == S(0) || w == S(0)) [[unlikely]] {
      u = static_cast<S>(double(cx) * double(by) - double(cy) * double(bx));
      v = static_cast<S>(double(ax) * double(cy) - double(ay) * double(cx));
      w = static_cast<S>(double(bx) * double(ay) - double(by) * double(ax));
    }
  }
  // With this winding a front-to-back crossing has u, v, w ≥ 0 (det > 0).
  if (bf == BackFaces::ignore) {
    if (u < S(0) || v < S(0) || w < S(0)) return false;
  } else if ((u < S(0) || v < S(0) || w < S(0)) && (u > S(0) || v > S(0) || w > S(0))) {
    return false;
  }
  const S det = u + v + w;
  if (det == S(0)) return false;  // the ray lies in the triangle's plane
  const S az = r.sz * Az, bz = r.sz * Bz, cz = r.sz * Cz;
  const S t = u * az + v * bz + w * cz;
  // Cheap rejection with a bound widened by rounding, then the exact test on λ itself (so a tie
  // with t_best is decided the same way whatever order triangles come in).
  constexpr S widen = S(1) + S(4) * std::numeric_limits<S>::epsilon();
  if (det > S(0)) {
    if (t < S(0) || t > t_best * det * widen) return false;
  } else {
    if (t > S(0) || t < t_best * det * widen) return false;
  }
  lambda = t / det;
  return lambda <= t_best;
}

/// ray_triangle on the four lanes of a block at once, with the same operations in the same order
/// lane by lane (so each lane's λ is bit for bit the scalar one). Returns the lanes crossed at
/// λ ≤ t_best (their λ in `lambda`); `redo` gets the float lanes with a zero edge function, which
/// the caller passes to ray_triangle for its double re-evaluation.
template <class S>
[[gnu::always_inline]] inline int ray_block(const WatertightRay<S>& r, const TriangleBlock4<S>& blk, BackFaces bf,
                                            S t_best, S lambda[4], int& redo) {
  using L = Lanes4<S>;
  const L ox = L::splat(r.ox), oy = L::splat(r.oy), oz = L::splat(r.oz), sx = L::splat(r.sx), sy = L::splat(r.sy);
  const L Az = L::load(blk.a[r.kz]) - oz, Bz = L::load(blk.b[r.kz]) - oz, Cz = L::load(blk.c[r.kz]) - oz;
  const L ax = (L::load(blk.a[r.kx]) - ox) - sx * Az, ay = (L::load(blk.a[r.ky]) - oy) - sy * Az;
  const L bx = (L::load(blk.b[r.kx]) - ox) - sx * Bz, by = (L::load(blk.b[r.ky]) - oy) - sy * Bz;
  const L cx = (L::load(blk.c[r.kx]) - ox) - sx * Cz, cy = (L::load(blk.c[r.ky]) - oy) - sy * Cz;
  const L u = cx * by - cy * bx, v = ax * cy - ay * cx, w = bx * ay - by * ax;
  const L zero = L::splat(S(0));
  const int neg = L::lt_mask(u, zero) | L::lt_mask(v, zero) | L::lt_mask(w, zero);
  const int pos = L::lt_mask(zero, u) | L::lt_mask(zero, v) | L::lt_mask(zero, w);
  redo = 0;
  if constexpr (sizeof(S) < sizeof(double)) redo = L::eq_mask(u, zero) | L::eq_mask(v, zero) | L::eq_mask(w, zero);
  int keep = 0xf & ~redo & ~(bf == BackFaces::ignore ? neg : neg & pos);
  if (keep == 0) return 0;
  const L det = u + v + w;
  keep &= ~L::eq_mask(det, zero);
  const L sz = L::splat(r.sz);
  const L t = u * (sz * Az) + v * (sz * Bz) + w * (sz * Cz);
  constexpr S widen = S(1) + S(4) * std::numeric_limits<S>::epsilon();
  const L bound = L::splat(t_best) * det * L::splat(widen);
  const int det_pos = L::lt_mask(zero, det);
  // det > 0: t in [0, bound]; det < 0: t in [bound, 0].
  const int out_pos = L::lt_mask(t, zero) | L::lt_mask(bound, t);
  const int out_neg = L::lt_mask(zero, t) | L::lt_mask(t, bound);
  keep &= ~((det_pos & out_pos) | (~det_pos & out_neg));
  if (keep == 0) return 0;
  const L lam = t / det;
  lam.store(lambda);
  return keep & L::le_mask(lam, L::splat(t_best));
}

/// The unit front normal (b − a) × (c − a) / |…| of a triangle in double; false when its area is
/// zero (or not finite). build_mesh stores it rounded to S, and a ray's answer computes it again
/// from the hit block's corners (the same operations, so the same bits) instead of reading
/// `normals` at a random place in memory.
inline bool unit_front_normal(const Vec3<double>& a, const Vec3<double>& b, const Vec3<double>& c, Vec3<double>& n) {
  const Vec3<double> cr = (b - a).cross(c - a);
  const double len = cr.norm();
  if (!(len > 0.0) || !std::isfinite(len)) return false;
  n = cr / len;
  return true;
}

}  // namespace impact::mesh_detail
