#pragma once
// impact — mesh/packet_walk.hpp: a packet of coherent segments (a camera's or a lidar's rays from
// one origin) walking the tree together.
//
// Rays from one origin through neighbouring pixels enter nearly the same nodes. Walked one by one,
// each ray pays for every node it enters: eight box tests, the sort of the children entered, the
// stack. Walked as a packet (Wald, Slusallek, Benthin and Wagner, "Interactive rendering with
// coherent ray tracing", 2001; with the interval test of Wald, Boulos and Shirley, "Ray tracing
// deformable scenes using dynamic bounding volume hierarchies", 2007), a node is reached once for
// all the rays that enter it:
//   1. One interval test per child box for the whole packet: the packet's reciprocal directions
//      and shifted origins as intervals, evaluated at the corners that bound every ray's own slab
//      test. A box it rejects is rejected by every ray's test.
//   2. The boxes it keeps are tested ray by ray, four rays per SIMD step (sixteen with AVX-512,
//      chosen at run time: PacketLanes16), with each ray's own best time: exactly the test a
//      single walk makes (Segment3::entry_wide), lane for lane.
//   3. The children some ray enters are visited nearest first (by the interval's entry bound),
//      each with the mask of the rays that enter it (each prefetched as soon as step 2 finds a
//      ray entering it); a leaf is tested by those rays only, on the AVX-512 walk of a
//      float mesh two rays of one frame at a time (Lanes8f: each ray's four triangle tests in one
//      half of an eight-lane register, ray_block_lanes).
//   4. On the AVX-512 walk, a packet thinned to four rays or fewer at a wide node sends each of
//      them down that subtree alone (PacketLanes16::walk_single: the single walk's eight-box test
//      on the ray's own lane values), since sixteen-lane tests for one or two live rays cost more
//      than a single walk (2026-12-06: level_1m camera 1.44 → 1.39 Embree's stream time, terrain_1m
//      0.90 → 0.81).
// So each ray reaches every leaf its single walk would reach with its best time at least as low,
// and takes the same triangle test on it: the answers are the single walk's, bit for bit (the
// best is the least (λ, index) over the triangles tested, whatever their order).
#include "mesh/bin_tree_walk.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

// AVX-512 for the packet's tests, chosen at run time (the build stays portable): x86-64 with GCC
// or clang, whose target attribute compiles single functions for it.
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define IMPACT_PACKET_AVX512 1
#define IMPACT_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq")))
#else
#define IMPACT_PACKET_AVX512 0
#endif

namespace impact::mesh_detail {

/// Rays per packet (at most the bits of a PacketMask). With packets gathered from square cells of
/// directions (mesh_impl.hpp's ray_cast_packets), 32 measured faster than 16 on the 256×256
/// cameras of bench/ (level_1m 136 → 109 ns a ray; terrain_1m about the same; 64: no better).
/// Before that grouping, when a packet was a strip of one row, 16 was best.
inline constexpr int kPacketRays = 32;
using PacketMask = std::uint32_t;
static_assert(kPacketRays <= 32 && kPacketRays % 16 == 0);

/// The least and greatest of x[0…n), n ≥ 1: four lanes a step, then the tail one at a time.
inline void min_max4(const float* x, std::size_t n, float& lo, float& hi) {
  using L = Lanes4<float>;
  std::size_t i = 0;
  lo = hi = x[0];
  if (n >= 4) {
    L l = L::load(x), h = l;
    for (i = 4; i + 4 <= n; i += 4) l = L::min(l, L::load(x + i)), h = L::max(h, L::load(x + i));
    float a[4], b[4];
    l.store(a), h.store(b);
    lo = std::min(std::min(a[0], a[1]), std::min(a[2], a[3]));
    hi = std::max(std::max(b[0], b[1]), std::max(b[2], b[3]));
  }
  for (; i < n; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
}

/// The packet's rays as the wide nodes' float slab tests see them (Segment3's l_inv, l_near,
/// l_far), side by side, and the interval bounds over them. All rays of a packet have the same
/// direction signs, so the same near and far planes per axis.
struct RayPacket {
  int n = 0;                                   ///< Rays in the packet (≤ kPacketRays).
  alignas(64) float inv[3][kPacketRays];       ///< Reciprocal direction per axis and ray.
  alignas(64) float near_o[3][kPacketRays];    ///< Origin shifted by the near plane's growth.
  alignas(64) float far_o[3][kPacketRays];     ///< Origin shifted by the far plane's growth.
  alignas(64) float tm[kPacketRays];           ///< Each ray's best time rounded up to float.
  std::uint32_t near_at[3] = {}, far_at[3] = {};  ///< Byte offsets of the planes in a MeshWideNode.
  // Interval bounds: inv in [inv_lo, inv_hi]; near_b, far_b the shifted origins at which the
  // entry is least and the exit greatest; tm_hi ≥ the tm of every ray of the walk's current
  // mask (after a pop, the bound kept since the item was pushed: PacketItem).
  Lanes4<float> inv_lo[3], inv_hi[3], near_b[3], far_b[3];
  float tm_hi = 0.0f;

  /// Appends a segment (the packet not full, and its direction signs the packet's: the same
  /// near and far planes) with its best time.
  template <class S>
  void add(const Segment3<S>& seg, S t_best) {
    for (int k = 0; k < 3; ++k) {
      float x[4];
      seg.l_inv[k].store(x), inv[k][n] = x[0];
      seg.l_near[k].store(x), near_o[k][n] = x[0];
      seg.l_far[k].store(x), far_o[k][n] = x[0];
      near_at[k] = seg.near_at[k];
      far_at[k] = seg.far_at[k];
    }
    tm[n] = round_up_to_float(t_best);
    ++n;
  }
  /// Pads the lanes up to kPacketRays with copies of the last ray (never in a mask), then sets
  /// the interval bounds over all of them, four lanes a step.
  void close() {
    for (int i = n; i < kPacketRays; ++i) {
      for (int k = 0; k < 3; ++k) inv[k][i] = inv[k][n - 1], near_o[k][i] = near_o[k][n - 1], far_o[k][i] = far_o[k][n - 1];
      tm[i] = tm[n - 1];
    }
    set_bounds([](const float* x, float& lo, float& hi) { min_max4(x, kPacketRays, lo, hi); });
  }
  /// Sets the interval bounds once the rays are in, from `least_greatest(x, lo, hi)`: the least
  /// and greatest of the lanes x (every lane a mask can hold).
  template <class LeastGreatest>
  void set_bounds(LeastGreatest least_greatest) {
    using L = Lanes4<float>;
    for (int k = 0; k < 3; ++k) {
      const bool neg = near_at[k] > far_at[k];  // the near plane is the box's max (hi follows lo): dir < 0
      float ilo, ihi, nlo, nhi, flo, fhi;
      least_greatest(inv[k], ilo, ihi);
      least_greatest(near_o[k], nlo, nhi);
      least_greatest(far_o[k], flo, fhi);
      inv_lo[k] = L::splat(ilo);
      inv_hi[k] = L::splat(ihi);
      // Entry (nb − near)·inv is least at the greatest near (inv > 0) or the least (inv < 0);
      // exit (fb − far)·inv is greatest at the least far (inv > 0) or the greatest (inv < 0).
      near_b[k] = L::splat(neg ? nlo : nhi);
      far_b[k] = L::splat(neg ? fhi : flo);
    }
    float tlo;
    least_greatest(tm, tlo, tm_hi);
  }
  /// A ray's best time has dropped to t.
  template <class S>
  void lower(int r, S t) {
    tm[r] = round_up_to_float(t);
  }
  /// The rays of `mask` have best times t_best[r] (some lowered, the others as they were).
  template <class S>
  void copy_times(PacketMask mask, const S* t_best) {
    for (PacketMask z = mask; z != 0; z &= z - 1) lower(std::countr_zero(z), t_best[std::countr_zero(z)]);
  }
  /// Recomputes tm_hi over the groups of four rays that hold a ray of `mask`.
  void bound_tm(PacketMask mask) {
    using L = Lanes4<float>;
    L hi = L::splat(0.0f);
    for (PacketMask groups = mask; groups != 0;) {
      const int g = std::countr_zero(groups) & ~3;
      groups &= ~(PacketMask(0xf) << g);
      hi = L::max(hi, L::load(tm + g));
    }
    float h[4];
    hi.store(h);
    tm_hi = std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
  }
  /// The rays of `mask` whose best time (rounded up) is not before t.
  [[nodiscard]] PacketMask not_before(PacketMask mask, float t) const {
    using L = Lanes4<float>;
    const L lt = L::splat(t);
    PacketMask keep = 0;
    for (PacketMask groups = mask; groups != 0;) {
      const int g = std::countr_zero(groups) & ~3;
      groups &= ~(PacketMask(0xf) << g);
      keep |= PacketMask(static_cast<unsigned>(L::le_mask(lt, L::load(tm + g)))) << g;
    }
    return keep & mask;
  }

#if IMPACT_WALK_AVX2
  /// Ray r's planes on eight lanes (its lanes of inv, near_o, far_o splatted): what planes8 gives
  /// for that ray's Segment3.
  IMPACT_TARGET_AVX2 Planes8 planes8(int r) const {
    Planes8 pl;
    for (int k = 0; k < 3; ++k) {
      pl.inv[k] = _mm256_set1_ps(inv[k][r]);
      pl.near[k] = _mm256_set1_ps(near_o[k][r]);
      pl.far[k] = _mm256_set1_ps(far_o[k][r]);
      pl.near_at[k] = near_at[k];
      pl.far_at[k] = far_at[k];
    }
    return pl;
  }
#endif

  /// Step 1 for the eight boxes of a wide node: bit i set when some ray of the packet may enter
  /// slot i (every ray's entry_wide leaves it clear otherwise); t_lo[i] ≤ every ray's entry.
  template <class S>
  int interval_test(const MeshWideNode<S>& w, float t_lo[kMeshWidth]) const {
    using L = Lanes4<float>;
    int mask = 0;
    for (int g = 0; g < kMeshWidth; g += 4) {
      const char* base = reinterpret_cast<const char*>(&w) + g * sizeof(float);
      L t0 = L::splat(0.0f), t1 = L::splat(tm_hi);
      for (int k = 0; k < 3; ++k) {
        // Rounding is monotone, so each ray's (b − o)·inv lies between the values at the corners.
        const L dn = L::load(reinterpret_cast<const float*>(base + near_at[k])) - near_b[k];
        const L df = L::load(reinterpret_cast<const float*>(base + far_at[k])) - far_b[k];
        t0 = L::max(t0, L::min(dn * inv_lo[k], dn * inv_hi[k]));
        t1 = L::min(t1, L::max(df * inv_lo[k], df * inv_hi[k]));
      }
      t0.store(t_lo + g);
      mask |= L::le_mask(t0, t1 * L::splat(slab_widen<float>)) << g;
    }
    return mask;
  }
  /// Step 2 for slot `slot` of a wide node: the rays of `active` whose own slab test enters it,
  /// four at a time, each lane computed as Segment3::entry_wide computes that ray's.
  template <class S>
  PacketMask ray_test(const MeshWideNode<S>& w, int slot, PacketMask active) const {
    using L = Lanes4<float>;
    const char* base = reinterpret_cast<const char*>(&w) + slot * sizeof(float);
    L nb[3], fb[3];
    for (int k = 0; k < 3; ++k) {
      nb[k] = L::splat(*reinterpret_cast<const float*>(base + near_at[k]));
      fb[k] = L::splat(*reinterpret_cast<const float*>(base + far_at[k]));
    }
    const L widen = L::splat(slab_widen<float>);
    PacketMask hit = 0;
    for (PacketMask groups = active; groups != 0;) {
      const int g = std::countr_zero(groups) & ~3;
      groups &= ~(PacketMask(0xf) << g);
      L t0 = L::splat(0.0f), t1 = L::load(tm + g);
      for (int k = 0; k < 3; ++k) {
        t0 = L::max(t0, (nb[k] - L::load(near_o[k] + g)) * L::load(inv[k] + g));
        t1 = L::min(t1, (fb[k] - L::load(far_o[k] + g)) * L::load(inv[k] + g));
      }
      hit |= PacketMask(static_cast<unsigned>(L::le_mask(t0, t1 * widen))) << g;
    }
    return hit & active;
  }
};

/// The packet's tests four rays (or four boxes) per step: RayPacket's own, SSE where there is
/// SSE (Lanes4).
struct PacketLanes4 {
  static constexpr int lanes = 4;
  static constexpr int single_below = 0;  ///< The packet walks to the end (no walk_single).
  template <class S, class Leaf>
  static void walk_single(const MeshTree<S>&, const RayPacket&, int, std::uint32_t, S&, Leaf&&) {}
  template <class S>
  static int interval_test(const RayPacket& p, const MeshWideNode<S>& w, float t_lo[kMeshWidth]) {
    return p.interval_test(w, t_lo);
  }
  template <class S>
  static PacketMask ray_test(const RayPacket& p, const MeshWideNode<S>& w, int slot, PacketMask active) {
    return p.ray_test(w, slot, active);
  }
  static PacketMask not_before(const RayPacket& p, PacketMask mask, float t) { return p.not_before(mask, t); }
  static void bound_tm(RayPacket& p, PacketMask mask) { p.bound_tm(mask); }
  template <class S>
  static void copy_times(RayPacket& p, PacketMask mask, const S* t_best) { p.copy_times(mask, t_best); }
};

#if IMPACT_PACKET_AVX512
struct Lanes8f;
/// The same tests sixteen rays (or eight boxes) per step, with AVX-512 (chosen at run time:
/// packet_lanes()). Each lane is the same IEEE operations on the same operands in the same order
/// as PacketLanes4's (no fused multiply-add: the target has none enabled for GCC, and clang
/// contracts only within one expression), so the masks and bounds are the same bits; bound_tm
/// takes the maximum over the mask's rays only (PacketLanes4 over their groups of four), a bound
/// that only culls, never decides.
struct PacketLanes16 {
  static constexpr int lanes = 16;
  /// A packet left with this many rays or fewer at a wide node walks it ray by ray (walk_single).
  static constexpr int single_below = 4;
  /// Ray r of the packet walks the subtree of wide node `ref` alone, as the single walk (the box
  /// test of entry_wide8 on its lane's planes), calling leaf(first block, count) for the leaves
  /// it reaches; leaf lowers t_best.
  template <class S, class Leaf>
  IMPACT_TARGET_AVX512 static void walk_single(const MeshTree<S>& m, const RayPacket& p, int r, std::uint32_t ref, S& t_best,
                                               Leaf&& leaf) {
    walk_planes8(m, p.planes8(r), ref, 0u, t_best, [&leaf](std::uint32_t first, std::uint32_t count, S&) { leaf(first, count); });
  }
  // max and min as masked operations with every lane kept: GCC 12's plain _mm512_max_ps passes an
  // undefined register through, which its -Wuninitialized reports (GCC bug 105593).
  IMPACT_TARGET_AVX512 static __m512 max(__m512 a, __m512 b) { return _mm512_maskz_max_ps(__mmask16(0xffff), a, b); }
  IMPACT_TARGET_AVX512 static __m512 min(__m512 a, __m512 b) { return _mm512_maskz_min_ps(__mmask16(0xffff), a, b); }
  template <class S>
  IMPACT_TARGET_AVX512 static int interval_test(const RayPacket& p, const MeshWideNode<S>& w, float t_lo[kMeshWidth]) {
    static_assert(kMeshWidth == 8);
    const char* base = reinterpret_cast<const char*>(&w);
    __m256 t0 = _mm256_setzero_ps(), t1 = _mm256_set1_ps(p.tm_hi);
    for (int k = 0; k < 3; ++k) {
      const __m256 dn = _mm256_sub_ps(_mm256_load_ps(reinterpret_cast<const float*>(base + p.near_at[k])),
                                      _mm256_broadcastss_ps(p.near_b[k].v));
      const __m256 df = _mm256_sub_ps(_mm256_load_ps(reinterpret_cast<const float*>(base + p.far_at[k])),
                                      _mm256_broadcastss_ps(p.far_b[k].v));
      const __m256 lo = _mm256_broadcastss_ps(p.inv_lo[k].v), hi = _mm256_broadcastss_ps(p.inv_hi[k].v);
      t0 = _mm256_max_ps(t0, _mm256_min_ps(_mm256_mul_ps(dn, lo), _mm256_mul_ps(dn, hi)));
      t1 = _mm256_min_ps(t1, _mm256_max_ps(_mm256_mul_ps(df, lo), _mm256_mul_ps(df, hi)));
    }
    _mm256_storeu_ps(t_lo, t0);
    return _mm256_movemask_ps(_mm256_cmp_ps(t0, _mm256_mul_ps(t1, _mm256_set1_ps(slab_widen<float>)), _CMP_LE_OS));
  }
  template <class S>
  IMPACT_TARGET_AVX512 static PacketMask ray_test(const RayPacket& p, const MeshWideNode<S>& w, int slot, PacketMask active) {
    const char* base = reinterpret_cast<const char*>(&w) + slot * sizeof(float);
    __m512 nb[3], fb[3];
    for (int k = 0; k < 3; ++k) {
      nb[k] = _mm512_set1_ps(*reinterpret_cast<const float*>(base + p.near_at[k]));
      fb[k] = _mm512_set1_ps(*reinterpret_cast<const float*>(base + p.far_at[k]));
    }
    const __m512 widen = _mm512_set1_ps(slab_widen<float>);
    PacketMask hit = 0;
    for (int g = 0; g < kPacketRays; g += 16) {
      if (((active >> g) & 0xffffu) == 0) continue;
      __m512 t0 = _mm512_setzero_ps(), t1 = _mm512_load_ps(p.tm + g);
      for (int k = 0; k < 3; ++k) {
        const __m512 inv = _mm512_load_ps(p.inv[k] + g);
        t0 = max(t0, _mm512_mul_ps(_mm512_sub_ps(nb[k], _mm512_load_ps(p.near_o[k] + g)), inv));
        t1 = min(t1, _mm512_mul_ps(_mm512_sub_ps(fb[k], _mm512_load_ps(p.far_o[k] + g)), inv));
      }
      hit |= PacketMask(_mm512_cmp_ps_mask(t0, _mm512_mul_ps(t1, widen), _CMP_LE_OS)) << g;
    }
    return hit & active;
  }
  IMPACT_TARGET_AVX512 static PacketMask not_before(const RayPacket& p, PacketMask mask, float t) {
    PacketMask keep = 0;
    for (int g = 0; g < kPacketRays; g += 16)
      if (((mask >> g) & 0xffffu) != 0)
        keep |= PacketMask(_mm512_cmp_ps_mask(_mm512_set1_ps(t), _mm512_load_ps(p.tm + g), _CMP_LE_OS)) << g;
    return keep & mask;
  }
  /// RayPacket::copy_times, sixteen rays a step for a float mesh (round_up_to_float keeps a float).
  template <class S>
  IMPACT_TARGET_AVX512 static void copy_times(RayPacket& p, PacketMask mask, const S* t_best) {
    if constexpr (std::is_same_v<S, float>) {
      for (int g = 0; g < kPacketRays; g += 16) {
        const auto m = static_cast<__mmask16>(mask >> g);
        _mm512_mask_storeu_ps(p.tm + g, m, _mm512_maskz_loadu_ps(m, t_best + g));
      }
    } else {
      p.copy_times(mask, t_best);
    }
  }
  IMPACT_TARGET_AVX512 static void bound_tm(RayPacket& p, PacketMask mask) {
    // The mask's times (the others 0: every time is ≥ 0, as bound_tm's start), halved thrice.
    __m512 v = _mm512_setzero_ps();
    for (int g = 0; g < kPacketRays; g += 16)
      v = max(v, _mm512_maskz_mov_ps(static_cast<__mmask16>(mask >> g), _mm512_load_ps(p.tm + g)));
    const __m256 h8 = _mm256_max_ps(_mm512_maskz_extractf32x8_ps(__mmask8(0xff), v, 0), _mm512_maskz_extractf32x8_ps(__mmask8(0xff), v, 1));
    __m128 h4 = _mm_max_ps(_mm256_castps256_ps128(h8), _mm256_extractf128_ps(h8, 1));
    h4 = _mm_max_ps(h4, _mm_movehl_ps(h4, h4));
    h4 = _mm_max_ss(h4, _mm_shuffle_ps(h4, h4, 1));
    p.tm_hi = _mm_cvtss_f32(h4);
  }
  using Pair = Lanes8f;  ///< Two rays' triangle tests at once (the packet leaf's, float meshes).
  /// The least and greatest of x[0…15], or of x[0…31] with `two`.
  IMPACT_TARGET_AVX512 static void bounds(const float* x, bool two, float& lo, float& hi) {
    const __m512 a = _mm512_load_ps(x), b = two ? _mm512_load_ps(x + 16) : a;
    lo = reduce(min(a, b), false);
    hi = reduce(max(a, b), true);
  }
  /// The greatest (or least) of sixteen lanes, halved four times (masked extracts, as bound_tm:
  /// GCC 12's _mm512_reduce_max_ps trips the same -Wuninitialized as its _mm512_max_ps).
  IMPACT_TARGET_AVX512 static float reduce(__m512 v, bool greatest) {
    const __m256 a = _mm512_maskz_extractf32x8_ps(__mmask8(0xff), v, 0), b = _mm512_maskz_extractf32x8_ps(__mmask8(0xff), v, 1);
    const __m256 h8 = greatest ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b);
    const __m128 c = _mm256_castps256_ps128(h8), d = _mm256_extractf128_ps(h8, 1);
    __m128 h4 = greatest ? _mm_max_ps(c, d) : _mm_min_ps(c, d);
    const __m128 e = _mm_movehl_ps(h4, h4);
    h4 = greatest ? _mm_max_ps(h4, e) : _mm_min_ps(h4, e);
    const __m128 f = _mm_shuffle_ps(h4, h4, 1);
    h4 = greatest ? _mm_max_ss(h4, f) : _mm_min_ss(h4, f);
    return _mm_cvtss_f32(h4);
  }
  /// RayPacket::close for a packet set up by set_up_packet16, whose lanes from n to the end of
  /// their group of sixteen copy ray n − 1 already: the same interval bounds over those groups,
  /// sixteen lanes a step (the least and greatest of finite values: the same values in any
  /// order, but for the sign of a zero, which no comparison sees). Lanes of a group past n are
  /// left as they are (no test reads them: every mask leaves them out).
  IMPACT_TARGET_AVX512 static void close(RayPacket& p) {
    static_assert(kPacketRays == 32);
    const bool two = p.n > 16;
    p.set_bounds([two](const float* x, float& lo, float& hi) { bounds(x, two, lo, hi); });
  }
};

/// Eight float lanes with Lanes4's operations, compiled for the AVX-512 walk: two rays' tests of
/// a block's four triangles side by side (ray_block_lanes, one ray in each half), each lane the
/// same IEEE operation as Lanes4<float>'s (max and min take their second operand where either is
/// NaN, as SSE's; the comparisons are the same ordered predicates).
struct Lanes8f {
  static constexpr int lanes = 8;
  __m256 v;
  IMPACT_TARGET_AVX512 static Lanes8f splat(float x) { return {_mm256_set1_ps(x)}; }
  /// a in the low four lanes, b in the high four.
  IMPACT_TARGET_AVX512 static Lanes8f pair(float a, float b) {
    return {_mm256_insertf128_ps(_mm256_castps128_ps256(_mm_set1_ps(a)), _mm_set1_ps(b), 1)};
  }
  /// The four values at p in both halves.
  IMPACT_TARGET_AVX512 static Lanes8f load4(const float* p) { return {_mm256_broadcast_ps(reinterpret_cast<const __m128*>(p))}; }
  IMPACT_TARGET_AVX512 friend Lanes8f operator+(Lanes8f a, Lanes8f b) { return {_mm256_add_ps(a.v, b.v)}; }
  IMPACT_TARGET_AVX512 friend Lanes8f operator-(Lanes8f a, Lanes8f b) { return {_mm256_sub_ps(a.v, b.v)}; }
  IMPACT_TARGET_AVX512 friend Lanes8f operator*(Lanes8f a, Lanes8f b) { return {_mm256_mul_ps(a.v, b.v)}; }
  IMPACT_TARGET_AVX512 friend Lanes8f operator/(Lanes8f a, Lanes8f b) { return {_mm256_div_ps(a.v, b.v)}; }
  IMPACT_TARGET_AVX512 static Lanes8f max(Lanes8f a, Lanes8f b) { return {_mm256_max_ps(a.v, b.v)}; }
  IMPACT_TARGET_AVX512 static Lanes8f abs(Lanes8f a) { return {_mm256_andnot_ps(_mm256_set1_ps(-0.0f), a.v)}; }
  IMPACT_TARGET_AVX512 static Lanes8f min(Lanes8f a, Lanes8f b) { return {_mm256_min_ps(a.v, b.v)}; }
  IMPACT_TARGET_AVX512 static int le_mask(Lanes8f a, Lanes8f b) { return _mm256_movemask_ps(_mm256_cmp_ps(a.v, b.v, _CMP_LE_OS)); }
  IMPACT_TARGET_AVX512 static int lt_mask(Lanes8f a, Lanes8f b) { return _mm256_movemask_ps(_mm256_cmp_ps(a.v, b.v, _CMP_LT_OS)); }
  IMPACT_TARGET_AVX512 void store(float* p) const { _mm256_storeu_ps(p, v); }
};
#endif

/// An item of a packet walk's stack: a wide node (count 0) or a leaf, the rays that entered its
/// box, a bound below all their entry times, and one above all their best times (the packet's
/// tm_hi when the item was pushed: best times only fall).
struct PacketItem {
  std::uint32_t ref, count;
  float t_lo;
  PacketMask rays;
  float tm_hi;
};

/// Walks the tree with the packet's rays of `active` from the root (its own box not tested, as
/// walk_start's), calling leaf(Ops{}, rays, first block, count) for each leaf it
/// reaches with the rays that reach it; leaf lowers t_best[r] of a ray r that hits (and may take
/// its triangle tests Ops::lanes wide). The root is a wide node (the caller handles a tree
/// of one leaf). Fixed stack: no allocation.
template <class Ops, class S, class Leaf>
void walk_packet_with(const MeshTree<S>& m, RayPacket& p, PacketMask active, S* t_best, Leaf&& leaf) {
  PacketItem stack[kWalkStack];
  int top = 0;
  std::uint32_t ref = 0, count = 0;
  PacketMask rays = active;
  Ops::bound_tm(p, rays);
  for (;;) {
    if (count == 0 && std::popcount(rays) <= Ops::single_below) {
      // Few rays left: each walks this subtree on its own (walk_loop_from, eight boxes a step),
      // cheaper than a packet's tests for one or two lanes; the same leaves' tests, so the same
      // answers (a ray reaches every leaf its box tests admit before its best time, either way).
      for (PacketMask z = rays; z != 0; z &= z - 1) {
        const int r = std::countr_zero(z);
        Ops::walk_single(m, p, r, ref, t_best[r], [&](std::uint32_t first, std::uint32_t n) { leaf(Ops{}, PacketMask(1) << r, first, n); });
        p.lower(r, t_best[r]);
      }
    } else if (count == 0) {
      const MeshWideNode<S>& w = m.wide[ref];
      float t_lo[kMeshWidth];
      unsigned cand = static_cast<unsigned>(Ops::interval_test(p, w, t_lo));
      // The children some ray enters, with their rays, sorted far to near by t_lo.
      int order[kMeshWidth];
      PacketMask sub[kMeshWidth];
      int n = 0;
      for (; cand != 0; cand &= cand - 1) {
        const int i = std::countr_zero(cand);
        const PacketMask r = Ops::ray_test(p, w, i, rays);
        if (r == 0) continue;
        // Fetched now, before it is popped: only a child some ray enters (prefetching every child
        // the interval test kept took 7% of level_1m's camera walk; 2026-12-06: 2-3% faster).
        prefetch_item(m, w.child[i], w.count[i]);
        int j = n++;
        while (j > 0 && t_lo[order[j - 1]] < t_lo[i]) {
          order[j] = order[j - 1];
          sub[j] = sub[j - 1];
          --j;
        }
        order[j] = i;
        sub[j] = r;
      }
      if (n > 0) {
        for (int j = 0; j + 1 < n; ++j) {
          const int i = order[j];
          stack[top++] = {w.child[i], w.count[i], t_lo[i], sub[j], p.tm_hi};
        }
        ref = w.child[order[n - 1]];
        count = w.count[order[n - 1]];
        rays = sub[n - 1];  // tm_hi, the bound of a superset of these rays, stays a bound
        continue;
      }
    } else {
      // Every ray of the leaf takes its (rounded-up) best time into the packet, lowered or not:
      // for an unchanged ray the same value (a float mesh's is the time itself, copied sixteen
      // rays a step). Saving the times before the leaf and comparing after it took 3%.
      leaf(Ops{}, rays, ref, count);
      Ops::copy_times(p, rays, t_best);
    }
    // The nearest stacked item with a ray whose best time is not before its entry bound.
    for (;;) {
      if (top == 0) return;
      const PacketItem& it = stack[--top];
      // A ray whose best time is before the bound is before its own entry (tm ≥ t_best: kept
      // when in doubt).
      const PacketMask keep = Ops::not_before(p, it.rays, it.t_lo);
      if (keep == 0) continue;
      ref = it.ref;
      count = it.count;
      rays = keep;
      p.tm_hi = it.tm_hi;
      break;
    }
  }
}

inline bool packet_avx512_available() {
#if IMPACT_PACKET_AVX512
  static const bool ok = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
                         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
  return ok;
#else
  return false;
#endif
}
/// How many rays a packet's tests take per step: 16 where the processor has AVX-512 (and the
/// build can target it), else 4; set_packet_lanes(4) or (16) overrides that (16 only where
/// available; 0 goes back to the processor's), so that the tests can compare both, and so does
/// the environment variable IMPACT_PACKET_LANES=4 (packet_lanes_choice, bin_tree_walk.hpp; four
/// lanes there also keep the single walk's box tests four wide).
inline int packet_lanes() {
  const int c = packet_lanes_choice().load(std::memory_order_relaxed);
  return packet_avx512_available() && c != 4 ? 16 : 4;
}
inline void set_packet_lanes(int lanes) { packet_lanes_choice().store(lanes, std::memory_order_relaxed); }

#if IMPACT_PACKET_AVX512
/// walk_packet_with on sixteen lanes, the whole walk (the leaf's triangle tests too) compiled for
/// AVX-512 (flatten: every call inlined into this function, so into its target).
template <class S, class Leaf>
IMPACT_TARGET_AVX512 __attribute__((flatten)) void walk_packet_avx512(const MeshTree<S>& m, RayPacket& p, PacketMask active,
                                                              S* t_best, Leaf& leaf) {
  walk_packet_with<PacketLanes16>(m, p, active, t_best, leaf);
}
#endif

/// walk_packet_with on the lanes packet_lanes() chooses (the answers are the same bits).
template <class S, class Leaf>
void walk_packet(const MeshTree<S>& m, RayPacket& p, PacketMask active, S* t_best, Leaf&& leaf) {
#if IMPACT_PACKET_AVX512
  if (packet_lanes() == 16) return walk_packet_avx512(m, p, active, t_best, leaf);
#endif
  walk_packet_with<PacketLanes4>(m, p, active, t_best, leaf);
}

}  // namespace impact::mesh_detail
