#pragma once
// impact — mesh/watertight_ray_triangle.hpp: the watertight ray–triangle test (Woop, Benthin and Wald 2013), exact on shared
// edges and vertices so that no ray slips between two triangles.
#include <impact/mesh.hpp>

#include "mesh/bin_tree_walk.hpp"  // Lanes4: four triangles per test
#include "detail/exact_orientation.hpp"

#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstddef>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>
#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace impact::mesh_detail {

/// Per-ray set-up of the watertight test (Woop, Benthin, Wald 2013): the axis kz of largest
/// |direction| becomes the ray's axis, the other two are sheared so the ray is the z axis of a
/// frame at its origin; kx and ky swap when direction[kz] < 0 to keep the winding. The ray itself
/// is kept in double for the exact decisions (detail/exact_orientation.hpp).
template <class S>
struct WatertightRay {
  int kx = 0, ky = 1, kz = 2;
  S sx = 0, sy = 0, sz = 1;
  S ox = 0, oy = 0, oz = 0;  // origin[kx], origin[ky], origin[kz]
  S smax = 0;                // max(|sx|, |sy|) ≤ 1
  Vec3<double> origin, direction;
  WatertightRay() = default;  ///< Unset (a batch's slot before its ray).
  explicit WatertightRay(const Ray<S>& r)
      : origin(r.origin.template cast<double>()), direction(r.direction.template cast<double>()) {
    // The axes chosen by arithmetic on the comparisons, not branches (a random direction's
    // signs mispredicted about one branch a ray; GCC turned plain selects back into branches).
    const Vec3<S> a = r.direction.cwiseAbs();
    const int b01 = a[0] >= a[1], b02 = a[0] >= a[2], b12 = a[1] >= a[2];
    kz = b01 * (2 - 2 * b02) + (1 - b01) * (2 - b12);  // a[0] >= a[1] ? (a[0] >= a[2] ? 0 : 2) : (a[1] >= a[2] ? 1 : 2)
    const int next = (kz + 1) % 3, after = 3 - kz - next;
    const int flip = r.direction[kz] < S(0);  // kx and ky swap to keep the winding
    kx = next + flip * (after - next);
    ky = next + after - kx;
    sx = r.direction[kx] / r.direction[kz];
    sy = r.direction[ky] / r.direction[kz];
    sz = S(1) / r.direction[kz];
    smax = std::max(std::abs(sx), std::abs(sy));
    ox = r.origin[kx];
    oy = r.origin[ky];
    oz = r.origin[kz];
  }
};

/// Rounding bounds of the watertight test in S, so that a sign it reads is the sign of the exact
/// quantity (the same expression on the real numbers, from the same inputs).
///
/// A sheared coordinate x = (p_x − o_x) − s_x·(p_z − o_z) is off its exact value x* by at most
/// ξ ≤ 4.1ε·m with m = |p_x − o_x| + |s_x·(p_z − o_z)| (five roundings, s_x itself rounded). One
/// magnitude per triangle bounds every m: M = max|p_xy − o_xy| + max(|s_x|, |s_y|)·max|p_z − o_z|
/// (to a rounding). With X = the largest computed sheared coordinate |x|, |y| of the three corners,
/// an edge function u = x_c·y_b − y_c·x_b differs from its exact value by at most
///   x_c·ξ + ξ·y_b − ξ·ξ (twice) + the rounding of two products and a difference
///   ≤ 16.4ε·M·X + 33.6ε²·M² + 4.01ε·X²,
/// so E = ε·(18·M·X + 5·X²) + 64ε²·M² bounds it. (Until 2026-11-28 the bound was 32ε·M², which
/// ignores that a far, small triangle's sheared corners are small: X ≪ M. Camera rays at level_1m
/// then took the exact path for a quarter of their time.)
/// t = u·z_a + v·z_b + w·z_c (z = s_z·(p_z − o_z), three roundings) is off by at most E·Σ|z| +
/// 8ε·Σ|u·z|. Each bound also carries the smallest normal number, so a value in the subnormal range
/// (where rounding is absolute, not relative) is never trusted.
template <class S>
struct WatertightBounds {
  static constexpr S cross = S(18) * std::numeric_limits<S>::epsilon();   ///< Of M·X.
  static constexpr S square = S(5) * std::numeric_limits<S>::epsilon();   ///< Of X².
  static constexpr S second = S(64) * std::numeric_limits<S>::epsilon() * std::numeric_limits<S>::epsilon();  ///< Of M².
  static constexpr S time = S(8) * std::numeric_limits<S>::epsilon();
  static constexpr S floor = std::numeric_limits<S>::min();
};

/// Largest relative error of λ = t / det that the fast path keeps (relative to max(λ, 1)). Float:
/// no limit yet (its bound flagged so many ordinary crossings that float rays took twice as long;
/// a float sliver can still report λ off by its conditioning: to be calibrated).
template <class S>
inline constexpr S kLambdaError = sizeof(S) < sizeof(double) ? std::numeric_limits<S>::infinity() : S(1e-9);
/// Whether the fast paths test λ's accuracy at all (double meshes only, for now).
template <class S>
inline constexpr bool kCheckLambda = sizeof(S) >= sizeof(double);

/// Whether λ = t / det is accurate: its rounding bound (t within et, det = u + v + w within 3e
/// and its own rounding) is at most kLambdaError of max(λ, 1). It depends on the ray and the
/// triangle only, never on t_best, so that ties are decided the same way in any order. A sliver
/// reaching far from the ray (one corner 1e11 away, the others a few units) fails it: its signs
/// are all certain, yet t / det was off by 1e-3 (a level fuzz input): λ then comes from the plane
/// in the wider scalar.
template <class S>
[[gnu::always_inline]] inline bool lambda_accurate(S t, S det, S e, S et) {
  constexpr S eps = std::numeric_limits<S>::epsilon();
  const S ad = std::abs(det), lam = std::abs(t / det);
  const S err = (et + lam * (S(3) * e + S(4) * eps * ad)) / ad;
  return err <= kLambdaError<S> * std::max(lam, S(1));
}

/// λ of the ray's crossing with the triangle's plane, (a − o)·n / (d·n), in long double, as a
/// double (a guess for lambda_exact); NaN where that cannot say (n·d rounds to zero).
template <class S>
double lambda_from_plane(const WatertightRay<S>& r, const Vec3<double>& a, const Vec3<double>& b, const Vec3<double>& c) {
  using W = long double;
  const Vec3<W> aw = a.template cast<W>(), ow = r.origin.template cast<W>();
  const Vec3<W> n = (b.template cast<W>() - aw).cross(c.template cast<W>() - aw);
  const W l = (aw - ow).dot(n) / r.direction.template cast<W>().dot(n);
  return std::isfinite(l) ? static_cast<double>(std::max(l, W(0))) : std::numeric_limits<double>::quiet_NaN();
}

/// λ of the crossing with the plane through a, b, c, exact to a double: the last double t at
/// which o + t·d is still on the origin's side (`origin_side`: detail::plane_side_at's sign at
/// t = 0, non-zero), rounded to S; false when o + t·d stays on that side for every finite t.
/// `guess` (lambda_from_plane's, or NaN) is kept when the exact sides on either side of it
/// confirm it; else bisection over the non-negative doubles (at most 64 steps, on their bit
/// patterns, which order as the values). The answer depends on the ray and the triangle alone,
/// never on t_best, so a tie between two triangles is decided the same way in any order.
template <class S>
bool lambda_exact(const WatertightRay<S>& r, const Vec3<double>& a, const Vec3<double>& b, const Vec3<double>& c,
                  int origin_side, double guess, S& lambda) {
  auto before = [&](std::uint64_t bits) {  // o + t·d still on the origin's side
    return detail::plane_side_at(r.origin, r.direction, std::bit_cast<double>(bits), a, b, c) == origin_side;
  };
  std::uint64_t lo = 0, hi = std::bit_cast<std::uint64_t>(std::numeric_limits<double>::max());
  if (guess >= 0.0 && guess <= std::numeric_limits<double>::max()) {
    const std::uint64_t g = std::bit_cast<std::uint64_t>(guess);
    if (g > 0 && before(g - 1) && !before(g)) {
      lambda = static_cast<S>(std::bit_cast<double>(g - 1));
      return true;
    }
  }
  if (before(hi)) return false;  // no crossing at any finite λ
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (before(mid) ? lo : hi) = mid;
  }
  lambda = static_cast<S>(std::bit_cast<double>(lo));
  return true;
}

/// The exact decision for a triangle where a bound above could not tell a sign: the signs of the
/// three edge functions and of the crossing's λ from exact determinants, and λ exact to a double
/// (lambda_exact) when the fast one has the wrong sign or is not accurate (lambda_accurate). Rare (a ray within rounding of an edge, a
/// ray parallel to the plane, an origin on the plane), so it is kept out of line.
template <class S>
[[gnu::noinline]] bool ray_triangle_exact(const WatertightRay<S>& r, const PackedTriangle<S>& tri, BackFaces bf,
                                          S t_best, S u, S v, S w, S e, S t, S et, S& lambda) {
  const Vec3<double> a = tri.a.template cast<double>(), b = tri.b.template cast<double>(), c = tri.c.template cast<double>();
  const Vec3<double>& o = r.origin;
  const Vec3<double>& d = r.direction;
  // sign(u) = sign det[c − o, b − o, d] whatever the shear (the frame's handedness and d_kz's sign
  // cancel), and likewise for v and w.
  auto sign_of = [](S x) { return x > S(0) ? 1 : (x < S(0) ? -1 : 0); };
  const int su = std::abs(u) > e ? sign_of(u) : detail::edge_side(o, c, b, d);
  const int sv = std::abs(v) > e ? sign_of(v) : detail::edge_side(o, a, c, d);
  const int sw = std::abs(w) > e ? sign_of(w) : detail::edge_side(o, b, a, d);
  const int lo = std::min({su, sv, sw}), hi = std::max({su, sv, sw});
  if (lo == 0 && hi == 0) return false;            // the ray lies in the triangle's plane
  if (bf == BackFaces::ignore ? lo < 0 : lo < 0 && hi > 0) return false;
  const int s = hi > 0 ? 1 : -1;                    // +1: a front-to-back crossing
  // λ ≥ 0 exactly when the origin is not beyond the plane: det[a − o, b − o, c − o]·s ≤ 0.
  const int side = detail::orientation(o, a, b, c);
  if (side * s > 0) return false;
  const S det = u + v + w;
  if (side == 0) {
    lambda = S(0);
  } else if (sign_of(det) == s && sign_of(t) == s && lambda_accurate(t, det, e, et)) {
    lambda = t / det;
  } else {
    // The fast λ cannot be trusted: λ from the plane, confirmed (or else found) by the exact
    // side of the ray's points from the plane (lambda_exact). Until 2026-11-28 the plane's λ was
    // taken as it came, and 0 where it was not finite: a plane within 1e-316 of parallel to the
    // ray (a fuzz input: a corner at y = 2.2e-308 beside one 1.8e8 away), which the ray meets at
    // a corner at λ = 17, was found crossed at λ = 0 with max_lambda 1.
    // (plane_side_at at t = 0 is −side: det[b − a, c − a, o − a] = −det[a − o, b − o, c − o].)
    if (!lambda_exact(r, a, b, c, -side, lambda_from_plane(r, a, b, c), lambda)) return false;
  }
  return lambda <= t_best;
}

/// λ of the crossing of the ray with triangle (a, b, c) when it is in [0, t_best] (and a
/// front-to-back crossing under BackFaces::ignore); false otherwise. The three edge functions
/// U, V, W are computed from the same products for both triangles sharing an edge (with opposite
/// signs), so a point on a shared edge is inside at least one of them. A sign within its rounding
/// bound (WatertightBounds) is decided exactly instead (ray_triangle_exact), so the answer is the
/// exact one in both precisions: a ray parallel to a far triangle's plane cannot cross it by
/// rounding, and a ray through an edge cannot slip by it.
template <class S>
[[gnu::always_inline]] inline bool ray_triangle(const WatertightRay<S>& r, const PackedTriangle<S>& tri, BackFaces bf, S t_best, S& lambda) {
  using B = WatertightBounds<S>;
  // Corners relative to the origin, sheared so the ray is the z axis.
  const S Az = tri.a[r.kz] - r.oz, Bz = tri.b[r.kz] - r.oz, Cz = tri.c[r.kz] - r.oz;
  const S Ax = tri.a[r.kx] - r.ox, Ay = tri.a[r.ky] - r.oy, Bx = tri.b[r.kx] - r.ox, By = tri.b[r.ky] - r.oy;
  const S Cx = tri.c[r.kx] - r.ox, Cy = tri.c[r.ky] - r.oy;
  const S xa = r.sx * Az, ya = r.sy * Az, xb = r.sx * Bz, yb = r.sy * Bz, xc = r.sx * Cz, yc = r.sy * Cz;
  const S ax = Ax - xa, ay = Ay - ya, bx = Bx - xb, by = By - yb, cx = Cx - xc, cy = Cy - yc;
  const S u = cx * by - cy * bx;
  const S v = ax * cy - ay * cx;
  const S w = bx * ay - by * ax;
  const S mxy = std::max({std::abs(Ax), std::abs(Ay), std::abs(Bx), std::abs(By), std::abs(Cx), std::abs(Cy)});
  const S M = mxy + r.smax * std::max({std::abs(Az), std::abs(Bz), std::abs(Cz)});
  const S X = std::max({std::abs(ax), std::abs(ay), std::abs(bx), std::abs(by), std::abs(cx), std::abs(cy)});
  const S e = (B::cross * (M * X) + B::square * (X * X)) + B::second * (M * M) + B::floor;
  // Certainly outside: an edge function certainly negative (and, with back faces, another
  // certainly positive).
  const bool neg = u < -e || v < -e || w < -e;
  if (bf == BackFaces::ignore ? neg : neg && (u > e || v > e || w > e)) return false;
  const S az = r.sz * Az, bz = r.sz * Bz, cz = r.sz * Cz;
  const S t = u * az + v * bz + w * cz;
  const S et = e * (std::abs(az) + std::abs(bz) + std::abs(cz)) +
               B::time * (std::abs(u * az) + std::abs(v * bz) + std::abs(w * cz)) + B::floor;
  const bool sure = std::abs(u) > e && std::abs(v) > e && std::abs(w) > e;
  if (!sure) [[unlikely]]
    return ray_triangle_exact(r, tri, bf, t_best, u, v, w, e, t, et, lambda);
  // Every sign certain: with this winding a front-to-back crossing has u, v, w > 0 (det > 0).
  if (bf == BackFaces::collide && (u < S(0) || v < S(0) || w < S(0)) && (u > S(0) || v > S(0) || w > S(0))) return false;
  const S det = u + v + w;
  if (!(std::abs(t) > et) || (kCheckLambda<S> && !lambda_accurate(t, det, e, et))) [[unlikely]]
    return ray_triangle_exact(r, tri, bf, t_best, u, v, w, e, t, et, lambda);
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

/// A ray's watertight set-up (WatertightRay's ox … smax) as SIMD lanes: one ray's values in every
/// lane (RayLanes::of), or, with an eight-lane L, two rays of the same frame (kx, ky, kz), one in
/// each half (packet_walk.hpp's Lanes8f::pair).
template <class L>
struct RayLanes {
  L ox, oy, oz, sx, sy, sz, smax;
  int kx, ky, kz;
  template <class S>
  static RayLanes of(const WatertightRay<S>& r) {
    return {L::splat(r.ox), L::splat(r.oy), L::splat(r.oz), L::splat(r.sx), L::splat(r.sy), L::splat(r.sz), L::splat(r.smax),
            r.kx, r.ky, r.kz};
  }
};

/// The terms of ray_block_lanes that depend on the block and the ray's frame (its axes kx, ky, kz
/// and its origin) but not on its shear: the corners relative to the origin and the largest of
/// their magnitudes (the bound M's parts). Rays from one origin with the same axes (a camera's
/// packet) share them, so a packet's leaf computes them once per block (RayQuery::leaf_rays).
template <class L>
struct BlockTerms {
  L Az, Bz, Cz, Ax, Ay, Bx, By, Cx, Cy;
  L mxy;  ///< max(|Ax|, |Ay|, |Bx|, |By|, |Cx|, |Cy|)
  L mz;   ///< max(|Az|, |Bz|, |Cz|)
  BlockTerms() = default;
  template <class S>
  [[gnu::always_inline]] BlockTerms(const RayLanes<L>& r, const TriangleBlock4<S>& blk)
      : BlockTerms(r, axis_lanes(blk, r.kx), axis_lanes(blk, r.ky), axis_lanes(blk, r.kz)) {}

 private:
  /// The lanes of axis k of corner a in `blk`; corner b's are kCornerStep values on, c's twice
  /// that. A block's terms then load from three addresses (one per axis of the ray's frame) at
  /// constant displacements, not nine computed each time from kx, ky and kz.
  template <class S>
  static constexpr std::size_t kCornerStep = (offsetof(TriangleBlock4<S>, b) - offsetof(TriangleBlock4<S>, a)) / sizeof(S);
  template <class S>
  [[gnu::always_inline]] static const S* axis_lanes(const TriangleBlock4<S>& blk, int k) {
    static_assert(offsetof(TriangleBlock4<S>, c) - offsetof(TriangleBlock4<S>, b) ==
                      offsetof(TriangleBlock4<S>, b) - offsetof(TriangleBlock4<S>, a),
                  "corners a, b, c lie kCornerStep apart");
    return reinterpret_cast<const S*>(reinterpret_cast<const char*>(&blk) + offsetof(TriangleBlock4<S>, a) +
                                      sizeof(blk.a[0]) * static_cast<std::size_t>(k));
  }
  template <class S>
  [[gnu::always_inline]] BlockTerms(const RayLanes<L>& r, const S* x, const S* y, const S* z)
      : Az(L::load4(z) - r.oz), Bz(L::load4(z + kCornerStep<S>) - r.oz), Cz(L::load4(z + 2 * kCornerStep<S>) - r.oz),
        Ax(L::load4(x) - r.ox), Ay(L::load4(y) - r.oy), Bx(L::load4(x + kCornerStep<S>) - r.ox),
        By(L::load4(y + kCornerStep<S>) - r.oy), Cx(L::load4(x + 2 * kCornerStep<S>) - r.ox),
        Cy(L::load4(y + 2 * kCornerStep<S>) - r.oy),
        mxy(L::max(L::max(L::max(L::abs(Ax), L::abs(Ay)), L::max(L::abs(Bx), L::abs(By))), L::max(L::abs(Cx), L::abs(Cy)))),
        mz(L::max(L::max(L::abs(Az), L::abs(Bz)), L::abs(Cz))) {}
};

/// ray_triangle on the four triangles of a block at once for every group of four lanes of L (one
/// ray, or two rays side by side: r's lanes, the block's four triangles repeated by L::load4),
/// with the same operations in the same order lane by lane (so each lane's λ is bit for bit the
/// scalar one). Returns the lanes crossed at λ ≤ t_best (their λ in `lambda`); `redo` gets the
/// lanes whose decision needs an exact sign (ray_triangle_exact), which the caller passes to
/// ray_triangle. `k`: the block's terms for r's frame (BlockTerms<L>(r, blk), or those of another
/// ray with the same axes and origin: the same values).
template <class S, class L>
[[gnu::always_inline]] inline int ray_block_lanes(const RayLanes<L>& r, const BlockTerms<L>& k, BackFaces bf, const L& t_best,
                                                  S* lambda, int& redo) {
  using B = WatertightBounds<S>;
  constexpr int all = (1 << L::lanes) - 1;
  const L zero = L::splat(S(0));
  auto abs = [](const L& x) { return L::abs(x); };  // the sign bit cleared, as std::abs in ray_triangle
  const L &Az = k.Az, &Bz = k.Bz, &Cz = k.Cz, &Ax = k.Ax, &Ay = k.Ay, &Bx = k.Bx, &By = k.By, &Cx = k.Cx, &Cy = k.Cy;
  const L xa = r.sx * Az, ya = r.sy * Az, xb = r.sx * Bz, yb = r.sy * Bz, xc = r.sx * Cz, yc = r.sy * Cz;
  const L ax = Ax - xa, ay = Ay - ya, bx = Bx - xb, by = By - yb, cx = Cx - xc, cy = Cy - yc;
  const L u = cx * by - cy * bx, v = ax * cy - ay * cx, w = bx * ay - by * ax;
  const L M = k.mxy + r.smax * k.mz;
  const L X = L::max(L::max(L::max(abs(ax), abs(ay)), L::max(abs(bx), abs(by))), L::max(abs(cx), abs(cy)));
  const L floor = L::splat(B::floor);
  const L e = (L::splat(B::cross) * (M * X) + L::splat(B::square) * (X * X)) + L::splat(B::second) * (M * M) + floor;
  const L me = zero - e;
  // Per lane: some edge function certainly negative (below −e), some certainly positive (above
  // e), and every sign sure (each |·| > e), read off the least and the greatest of the three and
  // the least of their magnitudes: three comparisons and three masks, where testing each function
  // against −e and e took six of each. The same masks as ray_triangle's tests: u, v and w are
  // finite (coordinates within Tolerances::max_magnitude), so the least is below −e exactly when
  // one of them is, and so on.
  const int neg = L::lt_mask(L::min(L::min(u, v), w), me);
  const int pos = L::lt_mask(e, L::max(L::max(u, v), w));
  const int sure = L::lt_mask(e, L::min(L::min(abs(u), abs(v)), abs(w)));
  const int out = bf == BackFaces::ignore ? neg : neg & pos;
  redo = all & ~out & ~sure;
  // Every sign certain: a crossing has u, v, w of one sign. Where every sign is sure, an edge
  // function is negative exactly when certainly negative (|u| > e > 0), so the lanes of mixed
  // signs are those with some certainly negative and some certainly positive: neg & pos.
  int keep = all & sure & ~out & ~(neg & pos);
  if (keep == 0) return 0;
  const L det = u + v + w;
  const L az = r.sz * Az, bz = r.sz * Bz, cz = r.sz * Cz;
  const L t = u * az + v * bz + w * cz;
  const L et = e * (abs(az) + abs(bz) + abs(cz)) + L::splat(B::time) * (abs(u * az) + abs(v * bz) + abs(w * cz)) + floor;
  const int t_unsure = keep & ~L::lt_mask(et, abs(t));
  int lam_unsure = 0;
  if constexpr (kCheckLambda<S>) {
    // λ = t / det not accurate (lambda_accurate, lane by lane with the same operations).
    constexpr S eps = std::numeric_limits<S>::epsilon();
    const L ad = abs(det), lam_abs = abs(t / det);
    const L err = (et + lam_abs * (L::splat(S(3)) * e + L::splat(S(4) * eps) * ad)) / ad;
    lam_unsure = keep & ~L::le_mask(err, L::splat(kLambdaError<S>) * L::max(lam_abs, L::splat(S(1))));
  }
  redo |= t_unsure | lam_unsure;
  keep &= ~(t_unsure | lam_unsure);
  constexpr S widen = S(1) + S(4) * std::numeric_limits<S>::epsilon();
  const L bound = t_best * det * L::splat(widen);
  const int det_pos = L::lt_mask(zero, det);
  // det > 0: t in [0, bound]; det < 0: t in [bound, 0].
  const int out_pos = L::lt_mask(t, zero) | L::lt_mask(bound, t);
  const int out_neg = L::lt_mask(zero, t) | L::lt_mask(t, bound);
  keep &= ~((det_pos & out_pos) | (~det_pos & out_neg));
  if (keep == 0) return 0;
  const L lam = t / det;
  lam.store(lambda);
  return keep & L::le_mask(lam, t_best);
}

/// The same from a block's triangles (its terms for r's frame computed here).
template <class S, class L>
[[gnu::always_inline]] inline int ray_block_lanes(const RayLanes<L>& r, const TriangleBlock4<S>& blk, BackFaces bf, const L& t_best,
                                                  S* lambda, int& redo) {
  return ray_block_lanes(r, BlockTerms<L>(r, blk), bf, t_best, lambda, redo);
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
