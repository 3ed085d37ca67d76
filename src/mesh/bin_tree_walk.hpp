#pragma once
// impact — mesh/bin_tree_walk.hpp: walking the tree of bins along a segment: four boxes per step by the slab test
// (SSE lanes where available), nearest bins first, pruned by the best time so far; and the
// brute-force visit the tests compare it with.
#include <impact/mesh.hpp>

#include "mesh/bin_tree.hpp"
#include "mesh/bin_tree_build.hpp"

#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>
#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace impact::mesh_detail {

/// Four lanes of S with the few operations the four-box slab test needs: SSE on x86-64 (two
/// registers for double), plain loops elsewhere. Every operation is the IEEE one, lane by lane.
template <class S>
struct Lanes4 {
  S v[4];
  static constexpr int lanes = 4;
  static Lanes4 load(const S* p) { return {{p[0], p[1], p[2], p[3]}}; }
  static Lanes4 load4(const S* p) { return load(p); }  ///< Four values (one per lane), as load.
  static Lanes4 splat(S x) { return {{x, x, x, x}}; }
  template <class F>
  static Lanes4 map(const Lanes4& a, const Lanes4& b, F f) {
    return {{f(a.v[0], b.v[0]), f(a.v[1], b.v[1]), f(a.v[2], b.v[2]), f(a.v[3], b.v[3])}};
  }
  friend Lanes4 operator+(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x + y; }); }
  friend Lanes4 operator-(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x - y; }); }
  friend Lanes4 operator/(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x / y; }); }
  friend Lanes4 operator*(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x * y; }); }
  static Lanes4 max(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x > y ? x : y; }); }
  static Lanes4 abs(const Lanes4& a) { return {{std::abs(a.v[0]), std::abs(a.v[1]), std::abs(a.v[2]), std::abs(a.v[3])}}; }
  static Lanes4 min(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x < y ? x : y; }); }
  template <class F>
  static int mask(const Lanes4& a, const Lanes4& b, F f) {
    return int(f(a.v[0], b.v[0])) | int(f(a.v[1], b.v[1])) << 1 | int(f(a.v[2], b.v[2])) << 2 | int(f(a.v[3], b.v[3])) << 3;
  }
  static int le_mask(const Lanes4& a, const Lanes4& b) { return mask(a, b, [](S x, S y) { return x <= y; }); }
  static int lt_mask(const Lanes4& a, const Lanes4& b) { return mask(a, b, [](S x, S y) { return x < y; }); }
  static int eq_mask(const Lanes4& a, const Lanes4& b) { return mask(a, b, [](S x, S y) { return x == y; }); }
  void store(S* p) const { std::copy(v, v + 4, p); }
};

#if defined(__SSE2__)
template <>
struct Lanes4<float> {
  __m128 v;
  static constexpr int lanes = 4;
  static Lanes4 load(const float* p) { return {_mm_load_ps(p)}; }
  static Lanes4 load4(const float* p) { return load(p); }
  static Lanes4 splat(float x) { return {_mm_set1_ps(x)}; }
  friend Lanes4 operator+(Lanes4 a, Lanes4 b) { return {_mm_add_ps(a.v, b.v)}; }
  friend Lanes4 operator-(Lanes4 a, Lanes4 b) { return {_mm_sub_ps(a.v, b.v)}; }
  friend Lanes4 operator*(Lanes4 a, Lanes4 b) { return {_mm_mul_ps(a.v, b.v)}; }
  friend Lanes4 operator/(Lanes4 a, Lanes4 b) { return {_mm_div_ps(a.v, b.v)}; }
  static Lanes4 max(Lanes4 a, Lanes4 b) { return {_mm_max_ps(a.v, b.v)}; }
  static Lanes4 abs(Lanes4 a) { return {_mm_andnot_ps(_mm_set1_ps(-0.0f), a.v)}; }  ///< The sign bit cleared, as std::abs.
  static Lanes4 min(Lanes4 a, Lanes4 b) { return {_mm_min_ps(a.v, b.v)}; }
  static int le_mask(Lanes4 a, Lanes4 b) { return _mm_movemask_ps(_mm_cmple_ps(a.v, b.v)); }
  static int lt_mask(Lanes4 a, Lanes4 b) { return _mm_movemask_ps(_mm_cmplt_ps(a.v, b.v)); }
  static int eq_mask(Lanes4 a, Lanes4 b) { return _mm_movemask_ps(_mm_cmpeq_ps(a.v, b.v)); }
  void store(float* p) const { _mm_storeu_ps(p, v); }
};

template <>
struct Lanes4<double> {
  __m128d lo, hi;
  static constexpr int lanes = 4;
  static Lanes4 load(const double* p) { return {_mm_load_pd(p), _mm_load_pd(p + 2)}; }
  static Lanes4 load4(const double* p) { return load(p); }
  static Lanes4 splat(double x) { return {_mm_set1_pd(x), _mm_set1_pd(x)}; }
  friend Lanes4 operator+(Lanes4 a, Lanes4 b) { return {_mm_add_pd(a.lo, b.lo), _mm_add_pd(a.hi, b.hi)}; }
  friend Lanes4 operator-(Lanes4 a, Lanes4 b) { return {_mm_sub_pd(a.lo, b.lo), _mm_sub_pd(a.hi, b.hi)}; }
  friend Lanes4 operator*(Lanes4 a, Lanes4 b) { return {_mm_mul_pd(a.lo, b.lo), _mm_mul_pd(a.hi, b.hi)}; }
  friend Lanes4 operator/(Lanes4 a, Lanes4 b) { return {_mm_div_pd(a.lo, b.lo), _mm_div_pd(a.hi, b.hi)}; }
  static Lanes4 max(Lanes4 a, Lanes4 b) { return {_mm_max_pd(a.lo, b.lo), _mm_max_pd(a.hi, b.hi)}; }
  static Lanes4 abs(Lanes4 a) {
    const __m128d sign = _mm_set1_pd(-0.0);
    return {_mm_andnot_pd(sign, a.lo), _mm_andnot_pd(sign, a.hi)};
  }
  static Lanes4 min(Lanes4 a, Lanes4 b) { return {_mm_min_pd(a.lo, b.lo), _mm_min_pd(a.hi, b.hi)}; }
  static int le_mask(Lanes4 a, Lanes4 b) {
    return _mm_movemask_pd(_mm_cmple_pd(a.lo, b.lo)) | _mm_movemask_pd(_mm_cmple_pd(a.hi, b.hi)) << 2;
  }
  static int lt_mask(Lanes4 a, Lanes4 b) {
    return _mm_movemask_pd(_mm_cmplt_pd(a.lo, b.lo)) | _mm_movemask_pd(_mm_cmplt_pd(a.hi, b.hi)) << 2;
  }
  static int eq_mask(Lanes4 a, Lanes4 b) {
    return _mm_movemask_pd(_mm_cmpeq_pd(a.lo, b.lo)) | _mm_movemask_pd(_mm_cmpeq_pd(a.hi, b.hi)) << 2;
  }
  void store(double* p) const {
    _mm_storeu_pd(p, lo);
    _mm_storeu_pd(p + 2, hi);
  }
};
#endif

/// Byte offsets in a MeshWideNode of axis k's near and far planes (the boxes' max coordinates are
/// the near plane where near_hi: the direction is negative along k).
template <class S>
void plane_offsets(int k, bool near_hi, std::uint32_t& near_at, std::uint32_t& far_at) {
  // By arithmetic on near_hi, not a choice (GCC made each choice a compare, a borrow and two
  // masks).
  constexpr auto step = static_cast<std::uint32_t>(offsetof(MeshWideNode<S>, hi) - offsetof(MeshWideNode<S>, lo));
  const auto lo_at = static_cast<std::uint32_t>(offsetof(MeshWideNode<S>, lo) + kMeshWidth * sizeof(float) * static_cast<std::size_t>(k));
  const std::uint32_t hi_step = step * static_cast<std::uint32_t>(near_hi);
  near_at = lo_at + hi_step;
  far_at = lo_at + (step - hi_step);
}

/// A best time t rounded up to float: the far bound of the wide nodes' float slab tests, never
/// lowered by the rounding.
template <class S>
float round_up_to_float(S t) {
  float f = static_cast<float>(t);
  if (S(f) < t) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

#if defined(__SSE4_1__)
/// A float segment's slab parameters (Segment3's reciprocal direction and shifted origins per
/// axis) on SSE lanes x, y, z (the fourth a copy of x, so that maxima over the lanes are the maxima over x, y, z), and the
/// axes whose near plane is the box's max (bit k). The same IEEE operations on the same operands
/// as Segment3's portable code, the choices made by blends instead of branches (a random
/// direction's signs mispredicted about one branch a ray, 2026-12-06).
struct SlabLanes4 {
  __m128 inv, near, far;
  int negs;
};
inline SlabLanes4 slab_lanes4(const Vec3<float>& o, const Vec3<float>& d, const Vec3<float>& glo_in, const Vec3<float>& ghi_in) {
  const auto lanes = [](const Vec3<float>& v) { return _mm_setr_ps(v[0], v[1], v[2], v[0]); };
  const auto hmax = [](__m128 v) {  // the greatest lane (max is exact: the order does not matter)
    v = _mm_max_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm_cvtss_f32(_mm_max_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1))));
  };
  const __m128 sign = _mm_set1_ps(-0.0f);
  const __m128 o4 = lanes(o), d4 = lanes(d), glo4 = lanes(glo_in), ghi4 = lanes(ghi_in);
  // max(max|o|, max|o + d|) + max(max glo, max ghi), as Segment3's mag.
  const float mag = hmax(_mm_max_ps(_mm_andnot_ps(sign, o4), _mm_andnot_ps(sign, _mm_add_ps(o4, d4)))) + hmax(_mm_max_ps(glo4, ghi4));
  const __m128 slack = _mm_set1_ps(16.0f * std::numeric_limits<float>::epsilon() * mag);
  const __m128 big = _mm_or_ps(_mm_and_ps(sign, d4), _mm_set1_ps(std::numeric_limits<float>::max()));  // copysign
  const __m128 keep = _mm_cmpgt_ps(_mm_andnot_ps(sign, d4), _mm_set1_ps(std::numeric_limits<float>::min() * 4.0f));
  const __m128 inv = _mm_blendv_ps(big, _mm_div_ps(_mm_set1_ps(1.0f), d4), keep);
  const __m128 neg = _mm_cmplt_ps(inv, _mm_setzero_ps());
  const __m128 plus = _mm_add_ps(o4, _mm_add_ps(glo4, slack)), minus = _mm_sub_ps(o4, _mm_add_ps(ghi4, slack));
  return {inv, _mm_blendv_ps(plus, minus, neg), _mm_blendv_ps(minus, plus, neg), _mm_movemask_ps(neg)};
}
#endif

/// A segment origin + t·dir, t ∈ [0, t_max], against the wide nodes' float boxes grown by
/// (grow_lo, grow_hi): the slab test (Kay and Kajiya), branch-free. Per axis the near and far
/// planes are chosen once per segment from the sign of dir, and the growth is folded into the
/// origin. Components of dir that are zero get a huge finite reciprocal instead of infinity, so
/// 0·∞ never makes a NaN. A walk's test reads only these float lanes (a double segment's too);
/// the root's own box is never tested (walk_start).
template <class S>
struct Segment3 {
  // Per axis, in float, splatted to four lanes (for a double segment: grown by float ulps of the
  // query's magnitudes, like a float segment): the reciprocal direction, the origin shifted by
  // the near and by the far plane's growth; and the byte offsets in a MeshWideNode of the near
  // and far planes' coordinates (the boxes' max is the near plane where dir < 0).
  Lanes4<float> l_inv[3], l_near[3], l_far[3];
  std::uint32_t near_at[3], far_at[3];
  Segment3() = default;  ///< Unset (a walk's slot before its first query).
  Segment3(const Vec3<S>& o, const Vec3<S>& d, const Vec3<S>& glo_in, const Vec3<S>& ghi_in) {
#if defined(__SSE4_1__)
    if constexpr (std::is_same_v<S, float>) {
      set_float4(o, d, glo_in, ghi_in);
      return;
    }
#endif
    // The triangle tests round in the query's own frame (the origin, the path, the radius), so
    // the boxes are also grown by a few ulps of those magnitudes: a bin is never culled by a
    // rounding error smaller than the one in the time of a triangle inside it (ties included).
    const S mag = std::max(o.cwiseAbs().maxCoeff(), Vec3<S>(o + d).cwiseAbs().maxCoeff()) +
                  std::max(glo_in.maxCoeff(), ghi_in.maxCoeff());
    const S slack = S(16) * std::numeric_limits<S>::epsilon() * mag;
    const Vec3<S> glo = glo_in.array() + slack, ghi = ghi_in.array() + slack;
    for (int i = 0; i < 3; ++i) {
      const S big = std::numeric_limits<S>::max();
      const S inv = std::abs(d[i]) > std::numeric_limits<S>::min() * S(4) ? S(1) / d[i] : std::copysign(big, d[i]);
      const bool near_hi = inv < S(0);
      if constexpr (std::is_same_v<S, float>) {
        // near plane lo − glo (dir ≥ 0) or hi + ghi (dir < 0), folded into the origin; far plane
        // the other one.
        l_inv[i] = Lanes4<float>::splat(inv);
        l_near[i] = Lanes4<float>::splat(near_hi ? o[i] - ghi[i] : o[i] + glo[i]);
        l_far[i] = Lanes4<float>::splat(near_hi ? o[i] + glo[i] : o[i] - ghi[i]);
      } else {
        // A direction component too small for a float reciprocal moves the segment by less than
        // 4 FLT_MIN · max_magnitude along its axis: added to the slack, it is parallel there.
        constexpr double fmin = std::numeric_limits<float>::min();
        const double slack_f = 16.0 * std::numeric_limits<float>::epsilon() * mag + 4.0 * fmin * Tolerances<S>::max_magnitude;
        const double lo_f = glo_in[i] + slack_f, hi_f = ghi_in[i] + slack_f;
        const float inv_f = std::abs(d[i]) > 4.0 * fmin ? static_cast<float>(1.0 / d[i])
                                                        : std::copysign(std::numeric_limits<float>::max(), float(d[i]));
        l_inv[i] = Lanes4<float>::splat(inv_f);
        l_near[i] = Lanes4<float>::splat(static_cast<float>(near_hi ? o[i] - hi_f : o[i] + lo_f));
        l_far[i] = Lanes4<float>::splat(static_cast<float>(near_hi ? o[i] + lo_f : o[i] - hi_f));
      }
      plane_offsets<S>(i, near_hi, near_at[i], far_at[i]);
    }
  }
#if defined(__SSE4_1__)
  /// The constructor's float case (slab_lanes4), spread to the members.
  void set_float4(const Vec3<float>& o, const Vec3<float>& d, const Vec3<float>& glo_in, const Vec3<float>& ghi_in) {
    const SlabLanes4 s = slab_lanes4(o, d, glo_in, ghi_in);
    l_inv[0].v = _mm_shuffle_ps(s.inv, s.inv, _MM_SHUFFLE(0, 0, 0, 0));
    l_inv[1].v = _mm_shuffle_ps(s.inv, s.inv, _MM_SHUFFLE(1, 1, 1, 1));
    l_inv[2].v = _mm_shuffle_ps(s.inv, s.inv, _MM_SHUFFLE(2, 2, 2, 2));
    l_near[0].v = _mm_shuffle_ps(s.near, s.near, _MM_SHUFFLE(0, 0, 0, 0));
    l_near[1].v = _mm_shuffle_ps(s.near, s.near, _MM_SHUFFLE(1, 1, 1, 1));
    l_near[2].v = _mm_shuffle_ps(s.near, s.near, _MM_SHUFFLE(2, 2, 2, 2));
    l_far[0].v = _mm_shuffle_ps(s.far, s.far, _MM_SHUFFLE(0, 0, 0, 0));
    l_far[1].v = _mm_shuffle_ps(s.far, s.far, _MM_SHUFFLE(1, 1, 1, 1));
    l_far[2].v = _mm_shuffle_ps(s.far, s.far, _MM_SHUFFLE(2, 2, 2, 2));
    for (int i = 0; i < 3; ++i) plane_offsets<float>(i, (s.negs >> i & 1) != 0, near_at[i], far_at[i]);
  }
#endif
  /// The entry parameters of the segment into the boxes of a wide node, four at a time, go to
  /// `out`; the result has bit i set when slot i is entered before t_max (empty slots, whose boxes
  /// are inverted infinite ones, never are). Robust slab test (Ize 2013): each t has a relative
  /// error of about 3 ulps (a subtraction, a reciprocal, a product), so the far bound is widened
  /// by more than twice that (slab_widen).
  int entry_wide(const MeshWideNode<S>& n, S t_max, float out[kMeshWidth]) const {
    using L = Lanes4<float>;
    const float tm = round_up_to_float(t_max);
    int mask = 0;
    for (int g = 0; g < kMeshWidth; g += 4) {
      const char* base = reinterpret_cast<const char*>(&n) + g * sizeof(float);
      L t0 = L::splat(0.0f), t1 = L::splat(tm);
      for (int k = 0; k < 3; ++k) {
        const L nb = L::load(reinterpret_cast<const float*>(base + near_at[k]));
        const L fb = L::load(reinterpret_cast<const float*>(base + far_at[k]));
        t0 = L::max(t0, (nb - l_near[k]) * l_inv[k]);
        t1 = L::min(t1, (fb - l_far[k]) * l_inv[k]);
      }
      t0.store(out + g);
      mask |= L::le_mask(t0, t1 * L::splat(slab_widen<float>)) << g;
    }
    return mask;
  }
};

// AVX2 for the single walk's box tests, chosen at run time (the build stays portable): x86-64
// with GCC or clang, whose target attribute compiles single functions for it.
#if defined(__x86_64__) && defined(__GNUC__)
#define IMPACT_WALK_AVX2 1
#define IMPACT_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define IMPACT_WALK_AVX2 0
#endif

/// Whether the walks take their tests as wide as the processor allows (the default) or four
/// lanes at a time: set_packet_lanes(4) (packet_walk.hpp) or the environment variable
/// IMPACT_PACKET_LANES=4 (read once, for benchmarks) choose four, so that the tests can compare
/// both. Process-wide.
inline std::atomic<int>& packet_lanes_choice() {
  static std::atomic<int> choice{[] {
    const char* e = std::getenv("IMPACT_PACKET_LANES");
    return e != nullptr && std::string_view(e) == "4" ? 4 : 0;
  }()};
  return choice;
}

#if IMPACT_WALK_AVX2
/// A segment's float planes (Segment3's l_inv, l_near, l_far and plane offsets) splatted to eight
/// AVX lanes. The single walk makes one per walk, a local of the walking function: read through
/// the Segment3 instead, every node's test re-broadcast nine values behind a pointer that the
/// walk's own float stores (its stack, the entry times) might alias, so the compiler reloaded them
/// at each node: about 80 instructions a node instead of 36 (callgrind, 2026-12-06). The
/// interleaved walk keeps one beside each walk's segment (its tests then take them as memory
/// operands).
struct Planes8 {
  __m256 inv[3], near[3], far[3];
  std::uint32_t near_at[3], far_at[3];
};

template <class S>
IMPACT_TARGET_AVX2 inline Planes8 planes8(const Segment3<S>& seg) {
  Planes8 p;
  for (int k = 0; k < 3; ++k) {
    p.inv[k] = _mm256_broadcast_ps(&seg.l_inv[k].v);
    p.near[k] = _mm256_broadcast_ps(&seg.l_near[k].v);
    p.far[k] = _mm256_broadcast_ps(&seg.l_far[k].v);
    p.near_at[k] = seg.near_at[k];
    p.far_at[k] = seg.far_at[k];
  }
  return p;
}

#if defined(__SSE4_1__)
/// planes8 straight from a float segment's SlabLanes4 (a ray's walk: no Segment3 built); the same
/// values, lane k of each vector spread to eight.
IMPACT_TARGET_AVX2 inline Planes8 planes8(const SlabLanes4& s) {
  Planes8 p;
  for (int k = 0; k < 3; ++k) {
    const __m256i at = _mm256_set1_epi32(k);
    p.inv[k] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(s.inv), at);
    p.near[k] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(s.near), at);
    p.far[k] = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(s.far), at);
    plane_offsets<float>(k, (s.negs >> k & 1) != 0, p.near_at[k], p.far_at[k]);
  }
  return p;
}
#endif

/// Segment3::entry_wide on a wide node's eight boxes in one step of eight AVX lanes instead of two
/// of four: each lane the same IEEE operations on the same operands in the same order (max and
/// min take their second operand where either is NaN, as SSE's; the same ordered comparison; no
/// fused multiply-add: the target enables none), so the entries and the mask are the same bits.
template <class S>
IMPACT_TARGET_AVX2 inline int entry_wide8(const Planes8& p, const MeshWideNode<S>& n, S t_max, float out[kMeshWidth]) {
  static_assert(kMeshWidth == 8);
  const float tm = round_up_to_float(t_max);
  const char* base = reinterpret_cast<const char*>(&n);
  __m256 t0 = _mm256_setzero_ps(), t1 = _mm256_set1_ps(tm);
  for (int k = 0; k < 3; ++k) {
    const __m256 nb = _mm256_load_ps(reinterpret_cast<const float*>(base + p.near_at[k]));
    const __m256 fb = _mm256_load_ps(reinterpret_cast<const float*>(base + p.far_at[k]));
    t0 = _mm256_max_ps(t0, _mm256_mul_ps(_mm256_sub_ps(nb, p.near[k]), p.inv[k]));
    t1 = _mm256_min_ps(t1, _mm256_mul_ps(_mm256_sub_ps(fb, p.far[k]), p.inv[k]));
  }
  _mm256_storeu_ps(out, t0);
  return _mm256_movemask_ps(_mm256_cmp_ps(t0, _mm256_mul_ps(t1, _mm256_set1_ps(slab_widen<float>)), _CMP_LE_OS));
}

#endif

/// Whether the single walk tests a node's boxes eight at a time (entry_wide8): where the
/// processor has AVX2, unless four lanes were chosen (packet_lanes_choice).
inline bool walk_wide8() {
#if IMPACT_WALK_AVX2
  static const bool ok = __builtin_cpu_supports("avx2");
  return ok && packet_lanes_choice().load(std::memory_order_relaxed) != 4;
#else
  return false;
#endif
}

/// Starts fetching a wide node (count 0) or a leaf's blocks of triangles (the first two at most)
/// into the cache: every cache line they touch. A block of four float triangles (160 bytes,
/// 16-byte aligned) straddles four lines in one case of four, and a leaf of five to eight
/// triangles has two blocks; fetching only the lines from the block's first byte on in 64-byte
/// steps missed the last line of the one and the second block of the other.
///
/// Always inlined: a function holding nothing but __builtin_prefetch looks free of side effects
/// to GCC 12's interprocedural analysis, which then deletes the calls it did not inline early. The
/// single walk lost every prefetch that way (found 2026-12-02 in the disassembly: none in
/// walk_leaves_avx2 once the batch walks were instantiated in the same file).
///
/// Unrolled, no loop: a loop over the lines from the first byte's line to the last took three to
/// five trips for a block by its alignment, a branch the predictor cannot know; without it random
/// batches (the interleaved walk prefetches at every step) took 5–10% less time (bench/README.md,
/// twenty-third session), the single walk as long for about as many instructions (callgrind:
/// 1,593 → 1,634 a level_1m ray, 2,434 → 2,443 a terrain_1m one). The fetches below name a byte in every
/// line the item touches (a node: 64-byte aligned, four lines; a block of 160 bytes from p: the
/// lines of p, p + 64, p + 128 and p + 159, consecutive lines to the last byte's; a double block of
/// 304 bytes p, p + 64, …, p + 256 and p + 303; a second block likewise); one named twice is harmless.
template <class S>
[[gnu::always_inline]] inline void prefetch_item(const MeshTree<S>& m, std::uint32_t ref, std::uint32_t count) {
#if defined(__GNUC__)
  static_assert(sizeof(MeshWideNode<S>) == 256 && alignof(MeshWideNode<S>) == 64, "a wide node is four whole lines");
  static_assert(sizeof(TriangleBlock4<S>) >= 128, "a block reaches at least a third line");
  if (count == 0) {
    const char* p = reinterpret_cast<const char*>(&m.wide[ref]);
    __builtin_prefetch(p);
    __builtin_prefetch(p + 64);
    __builtin_prefetch(p + 128);
    __builtin_prefetch(p + 192);
    return;
  }
  constexpr std::size_t block = sizeof(TriangleBlock4<S>);
  for (int b = 0; b < (count > 4 ? 2 : 1); ++b) {  // the leaf's first two blocks (a walk's leaf test reads them first)
    const char* p = reinterpret_cast<const char*>(&m.blocks[ref]) + b * block;
    for (std::size_t at = 0; at < block; at += 64) __builtin_prefetch(p + at);  // unrolled: constant bounds
    __builtin_prefetch(p + block - 1);
  }
#else
  (void)m, (void)ref, (void)count;
#endif
}

/// Starts fetching the last line of wide node `ref`: its children and counts (prefetch_item's
/// comment: always inlined).
template <class S>
[[gnu::always_inline]] inline void prefetch_node_tail(const MeshTree<S>& m, std::uint32_t ref) {
#if defined(__GNUC__)
  static_assert(offsetof(MeshWideNode<S>, child) >= 192 && offsetof(MeshWideNode<S>, count) >= 192, "children and counts share the last line");
  __builtin_prefetch(reinterpret_cast<const char*>(&m.wide[ref]) + offsetof(MeshWideNode<S>, child));
#else
  (void)m, (void)ref;
#endif
}

/// An item of a walk's stack: a wide node (count 0) or a leaf (first block, triangle count), with
/// the entry t of its (float) box.
struct WalkItem {
  std::uint32_t ref, count;
  float t;
};

/// Stack size of a walk: each wide level pushes at most kMeshWidth − 1 items and the wide tree is
/// at most kMeshMaxDepth deep.
inline constexpr int kWalkStack = (kMeshWidth - 1) * kMeshMaxDepth + 8;

#if IMPACT_WALK_AVX2
/// One layer of a sorting network on eight lanes: lane i meets lane partner[i] and keeps the
/// greater of the two where bit i of kMax is set, else the smaller.
template <int kMax>
IMPACT_TARGET_AVX2 inline __m256i sort_layer(__m256i v, __m256i partner) {
  const __m256i q = _mm256_permutevar8x32_epi32(v, partner);
  return _mm256_blend_epi32(_mm256_min_epu32(v, q), _mm256_max_epu32(v, q), kMax);
}

/// The slots of `mask` far to near by t, in out[0 … popcount(mask)), without a branch: keys (t's
/// bits without the sign and the last three bits, then the slot) sorted by a bitonic network on
/// eight AVX2 lanes, complemented so that the slots not in the mask (key 0) come last. Times
/// within 8 ulps of each other may come in either order (immaterial: every item popped before
/// t_best is visited). Replaced the insertion sort of three or more children (2026-12-06):
/// terrain_1m random batch under callgrind's branch simulation 82.3k → 75.7k mispredicted
/// branches for 4,096 rays, instructions 8.42M → 8.37M.
IMPACT_TARGET_AVX2 inline __m256i far_to_near8_lanes(unsigned mask, const float t[kMeshWidth]) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i bits = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t)), _mm256_set1_epi32(0x7ffffff8));
  const __m256i entered = _mm256_cmpgt_epi32(
      _mm256_and_si256(_mm256_set1_epi32(static_cast<int>(mask)), _mm256_sllv_epi32(_mm256_set1_epi32(1), lane)), _mm256_setzero_si256());
  // Descending keys as an ascending sort of their complements; the slots not entered 0, first.
  __m256i v = _mm256_and_si256(entered, _mm256_xor_si256(_mm256_or_si256(bits, lane), _mm256_set1_epi32(-1)));
  v = sort_layer<0b01101001>(v, _mm256_setr_epi32(1, 0, 3, 2, 5, 4, 7, 6));  // (01)↑ (23)↓ (45)↑ (67)↓
  v = sort_layer<0b00111100>(v, _mm256_setr_epi32(2, 3, 0, 1, 6, 7, 4, 5));  // (02)(13)↑ (46)(57)↓
  v = sort_layer<0b01011010>(v, _mm256_setr_epi32(1, 0, 3, 2, 5, 4, 7, 6));  // (01)(23)↑ (45)(67)↓
  v = sort_layer<0b11110000>(v, _mm256_setr_epi32(4, 5, 6, 7, 0, 1, 2, 3));  // (04)(15)(26)(37)↑
  v = sort_layer<0b11001100>(v, _mm256_setr_epi32(2, 3, 0, 1, 6, 7, 4, 5));  // (02)(13)(46)(57)↑
  v = sort_layer<0b10101010>(v, _mm256_setr_epi32(1, 0, 3, 2, 5, 4, 7, 6));  // (01)(23)(45)(67)↑
  // The entered slots, far to near, in the last popcount(mask) lanes: rotated to the front.
  const int n = std::popcount(mask);
  const __m256i slots = _mm256_xor_si256(_mm256_and_si256(v, _mm256_set1_epi32(7)), _mm256_set1_epi32(7));
  const __m256i from = _mm256_and_si256(_mm256_add_epi32(lane, _mm256_set1_epi32(8 - n)), _mm256_set1_epi32(7));
  return _mm256_permutevar8x32_epi32(slots, from);
}
/// far_to_near8_lanes into out[0 … kMeshWidth).
IMPACT_TARGET_AVX2 inline void far_to_near8(unsigned mask, const float t[kMeshWidth], int out[kMeshWidth]) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), far_to_near8_lanes(mask, t));
}
#endif

/// The stack of a walk that pushes every child it enters without a branch (push_children8): three
/// arrays, so that eight items are stored by three eight-lane stores. Each wide level leaves at
/// most kMeshWidth items, and the last push writes kMeshWidth lanes from its top.
inline constexpr int kWalkStack8 = kMeshWidth * (kMeshMaxDepth + 1);
struct WalkStack8 {
  alignas(32) std::uint32_t ref[kWalkStack8];
  alignas(32) std::uint32_t count[kWalkStack8];
  alignas(32) float t[kWalkStack8];
};

#if IMPACT_WALK_AVX2
/// Pushes the children of w that `mask` enters (entry times t) far to near, without a branch:
/// their slots from far_to_near8_lanes pick their refs, counts and times, eight lanes stored at
/// the top whatever the count, the top raised by the count. The nearest is then the top item
/// (pop_item8 takes it, or what lies below when none was entered). `alone`: a node entering one
/// child or none pushes it without the sort (one branch, worth it where most nodes do: level_1m's
/// random rays, 72% one child, 16% none; terrain_1m's 49% and 15%).
template <class S>
IMPACT_TARGET_AVX2 inline void push_children8(const MeshWideNode<S>& w, unsigned mask, const float t[kMeshWidth], WalkStack8& s,
                                              int& top, bool alone) {
  static_assert(kMeshWidth == 8);
  if (alone && (mask & (mask - 1)) == 0) {  // one child or none: no order to find
    const int i = std::countr_zero(mask | 1u << kMeshWidth) & (kMeshWidth - 1);
    s.ref[top] = w.child[i];
    s.count[top] = w.count[i];
    s.t[top] = t[i];
    top += static_cast<int>(mask != 0);
    return;
  }
  const __m256i order = far_to_near8_lanes(mask, t);
  const __m256i ref = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.child)), order);
  const __m256i count = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(w.count)), order);
  const __m256 tt = _mm256_permutevar8x32_ps(_mm256_loadu_ps(t), order);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(s.ref + top), ref);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(s.count + top), count);
  _mm256_storeu_ps(s.t + top, tt);
  top += std::popcount(mask);
}
#endif

/// pop_item on a WalkStack8.
template <class S>
[[gnu::always_inline]] inline bool pop_item8(const WalkStack8& s, int& top, S t_best, std::uint32_t& ref, std::uint32_t& count) {
  while (top > 0) {
    --top;
    if (s.t[top] <= t_best) {
      ref = s.ref[top];
      count = s.count[top];
      return true;
    }
  }
  return false;
}

/// One wide node of a walk whose box test gave `mask` (bit i: child i entered before t_best) and
/// the entry times t: of those children, the nearest becomes (ref, count), the others are pushed
/// far to near (and prefetched). False when it enters none. kAvx2: three or more children ordered
/// by far_to_near8 (the caller compiled for AVX2), else by insertion.
template <class S, bool kAvx2 = false>
[[gnu::always_inline]] inline bool enter_children(const MeshTree<S>& m, const MeshWideNode<S>& w, unsigned mask,
                                                  const float t[kMeshWidth], WalkItem* stack, int& top, std::uint32_t& ref,
                                                  std::uint32_t& count) {
  if (mask == 0) return false;
  const int i0 = std::countr_zero(mask);
  mask &= mask - 1;
  if (mask == 0) {  // one child entered: go down
    ref = w.child[i0];
    count = w.count[i0];
    return true;
  }
  const int i1 = std::countr_zero(mask);
  mask &= mask - 1;
  if (mask == 0) {  // two: the far one waits on the stack
    const int near = t[i1] < t[i0] ? i1 : i0, far = i0 + i1 - near;
    stack[top++] = {w.child[far], w.count[far], t[far]};
    prefetch_item(m, w.child[far], w.count[far]);
    ref = w.child[near];
    count = w.count[near];
    return true;
  }
  // More: sorted far to near, all but the nearest pushed.
  int order[kMeshWidth] = {i0, i1};  // far to near
  int n = 2;
#if IMPACT_WALK_AVX2
  if constexpr (kAvx2) {
    n += std::popcount(mask);
    far_to_near8(mask | 1u << i0 | 1u << i1, t, order);
    mask = 0;
  }
#endif
  if (n == 2 && t[i0] < t[i1]) std::swap(order[0], order[1]);
  while (mask != 0) {
    const int i = std::countr_zero(mask);
    mask &= mask - 1;
    int j = n++;
    while (j > 0 && t[order[j - 1]] < t[i]) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = i;
  }
  for (int j = 0; j + 1 < n; ++j) {
    stack[top++] = {w.child[order[j]], w.count[order[j]], t[order[j]]};
    prefetch_item(m, w.child[order[j]], w.count[order[j]]);
  }
  ref = w.child[order[n - 1]];
  count = w.count[order[n - 1]];
  return true;
}

/// The nearest stacked item still in front of t_best becomes (ref, count); the ones behind it
/// are dropped. False when none is left.
template <class S>
[[gnu::always_inline]] inline bool pop_item(const WalkItem* stack, int& top, S t_best, std::uint32_t& ref, std::uint32_t& count) {
  while (top > 0) {
    const WalkItem& it = stack[--top];
    if (it.t <= t_best) {
      ref = it.ref;
      count = it.count;
      return true;
    }
  }
  return false;
}

/// Where a walk starts: false for an empty tree; else (ref, count) is the root wide node (count 0)
/// or, for a tree of one leaf, that leaf. The root's own box is not tested: the first step tests
/// its children's boxes, and a leaf the root's test would have culled holds no crossing anyway
/// (every box is conservative: a segment that crosses a triangle enters each box around it), so
/// the answers are the same. Testing it cost a scalar slab test (about 46 instructions and an
/// unpredictable branch) on every ray.
template <class S>
bool walk_start(const MeshTree<S>& m, std::uint32_t& ref, std::uint32_t& count) {
  if (m.nodes.empty()) return false;
  const MeshNode<S>& root = m.nodes[0];
  ref = root.count > 0 ? root.first : 0;
  count = root.count;
  return true;
}

/// walk_loop's walk of the subtree at (ref, count): a wide node (count 0) or a leaf.
template <bool kAvx2 = false, class S, class BoxTest, class Leaf>
[[gnu::always_inline]] inline void walk_loop_from(const MeshTree<S>& m, std::uint32_t ref, std::uint32_t count, S& t_best,
                                                  BoxTest&& box_test, Leaf&& leaf) {
  WalkItem stack[kWalkStack];
  int top = 0;
  for (;;) {
    if (count == 0) {
      const MeshWideNode<S>& w = m.wide[ref];
      float t[kMeshWidth];
      const auto mask = static_cast<unsigned>(box_test(w, t_best, t));
      if (enter_children<S, kAvx2>(m, w, mask, t, stack, top, ref, count)) {
        // A node gone down to has its last line (children and counts) prefetched: its box planes
        // are loaded at once, but that line only once the box test has chosen a slot, a second
        // miss in series at every level without the prefetch. Its other lines, and a leaf's
        // blocks, are read at once: prefetching them too cost about 50 instructions a terrain_1m
        // ray (callgrind, 2026-12-07) for no time measured.
        if (count == 0) prefetch_node_tail(m, ref);
        continue;
      }
    } else {
      leaf(ref, count, t_best);
    }
    if (!pop_item(stack, top, t_best, ref, count)) return;
  }
}

/// Walks the tree nearest bin first, calling leaf(first block, triangle count, t_best&) on every
/// leaf whose grown box the segment enters before t_best; leaf lowers t_best on a hit. A node's
/// boxes are tested by box_test(node, t_best, entry times) (a mask, as entry_wide's). Fixed stack:
/// no allocation. The nearest child entered is visited next without a round trip through the
/// stack; the others are pushed far to near, and dropped when popped behind t_best.
template <class S, class BoxTest, class Leaf>
[[gnu::always_inline]] inline void walk_loop(const MeshTree<S>& m, S& t_best, BoxTest&& box_test, Leaf&& leaf) {
  std::uint32_t ref = 0, count = 0;
  if (walk_start(m, ref, count)) walk_loop_from(m, ref, count, t_best, box_test, leaf);
}

#if IMPACT_WALK_AVX2
/// walk_loop_from eight boxes a step: entry_wide8 on the planes p, which the caller made once for
/// the walk (a local: see Planes8). Every eight-box walk goes through here: the single walk of a
/// segment or a ray, and a packet's ray walking a subtree alone (PacketLanes16::walk_single).
/// Inlined into its callers, which are compiled for AVX2 or wider (flatten).
template <class S, class Leaf>
IMPACT_TARGET_AVX2 inline void walk_planes8(const MeshTree<S>& m, const Planes8& p, std::uint32_t ref, std::uint32_t count,
                                            S& t_best, Leaf&& leaf) {
  walk_loop_from<true>(
      m, ref, count, t_best, [&p](const MeshWideNode<S>& w, S tb, float* t) { return entry_wide8(p, w, tb, t); }, leaf);
}
/// walk_planes8 from the root (walk_start).
template <class S, class Leaf>
IMPACT_TARGET_AVX2 inline void walk_planes8(const MeshTree<S>& m, const Planes8& p, S& t_best, Leaf&& leaf) {
  std::uint32_t ref = 0, count = 0;
  if (walk_start(m, ref, count)) walk_planes8(m, p, ref, count, t_best, leaf);
}
#endif

/// walk_loop with Segment3's box test; kWide8: eight boxes at a time (walk_planes8 on the
/// segment's planes, in a function compiled for AVX2).
template <bool kWide8, class S, class Leaf>
void walk_leaves_with(const MeshTree<S>& m, const Segment3<S>& seg, S& t_best, Leaf&& leaf) {
#if IMPACT_WALK_AVX2
  if constexpr (kWide8) return walk_planes8(m, planes8(seg), t_best, leaf);
#endif
  walk_loop(
      m, t_best, [&seg](const MeshWideNode<S>& w, S tb, float* t) { return seg.entry_wide(w, tb, t); }, leaf);
}

#if IMPACT_WALK_AVX2
/// walk_leaves_with eight boxes a step, the whole walk (the leaf's tests too) compiled for AVX2
/// (flatten: every call inlined into this function, so into its target). The leaf's own
/// operations are the same as elsewhere (VEX-encoded SSE): the answers are the same bits.
template <class S, class Leaf>
IMPACT_TARGET_AVX2 __attribute__((flatten)) void walk_leaves_avx2(const MeshTree<S>& m, const Segment3<S>& seg, S& t_best,
                                                                 Leaf& leaf) {
  walk_leaves_with<true>(m, seg, t_best, leaf);
}
#endif

/// walk_leaves_with on the widest box test the processor has (walk_wide8): the same answers.
template <class S, class Leaf>
void walk_leaves(const MeshTree<S>& m, const Segment3<S>& seg, S& t_best, Leaf&& leaf) {
#if IMPACT_WALK_AVX2
  if (walk_wide8()) return walk_leaves_avx2(m, seg, t_best, leaf);
#endif
  walk_leaves_with<false>(m, seg, t_best, leaf);
}

#if IMPACT_WALK_AVX2 && defined(__SSE4_1__)
/// walk_ray for a float ray on the eight-box walk: its planes set up straight from the ray
/// (slab_lanes4, planes8) instead of through a Segment3 (about 75 instructions a ray fewer).
template <class Leaf>
IMPACT_TARGET_AVX2 __attribute__((flatten)) void walk_ray_avx2(const MeshTree<float>& m, const Vec3<float>& o,
                                                              const Vec3<float>& d, float& t_best, Leaf& leaf) {
  walk_planes8(m, planes8(slab_lanes4(o, d, Vec3<float>::Zero(), Vec3<float>::Zero())), t_best, leaf);
}
#endif

/// walk_leaves for the segment o + t·d of a ray (no growth): the same leaves, the same answers.
template <class S, class Leaf>
void walk_ray(const MeshTree<S>& m, const Vec3<S>& o, const Vec3<S>& d, S& t_best, Leaf&& leaf) {
#if IMPACT_WALK_AVX2 && defined(__SSE4_1__)
  if constexpr (std::is_same_v<S, float>)
    if (walk_wide8()) return walk_ray_avx2(m, o, d, t_best, leaf);
#endif
  walk_leaves(m, Segment3<S>(o, d, Vec3<S>::Zero(), Vec3<S>::Zero()), t_best, leaf);
}

/// walk_leaves calling visit(packed triangle, t_best&) on each triangle of the leaves reached
/// (the sphere casts' walk: four boxes a step, its triangle tests not compiled a second time).
template <class S, class Visit>
void walk(const MeshTree<S>& m, const Segment3<S>& seg, S& t_best, Visit&& visit) {
  walk_leaves_with<false>(m, seg, t_best, [&](std::uint32_t first, std::uint32_t count, S& tb) {
    for (std::uint32_t i = 0; i < count; ++i) visit(m.blocks[first + i / 4].lane(static_cast<int>(i % 4)), tb);
  });
}

/// Every non-degenerate triangle in index order (the brute-force oracle).
template <class S, class Visit>
void brute(const TriangleMesh<S>& mesh, S& t_best, Visit&& visit) {
  const MeshTree<S>& m = detail::MeshAccess::tree(mesh);
  for (std::uint32_t i = 0; i < mesh.triangles.size(); ++i) {
    if (m.degenerate[i]) continue;
    const auto& t = mesh.triangles[i];
    const PackedTriangle<S> p{mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]], i};
    visit(p, t_best);
  }
}

/// (t, index) ordering: earlier first, then the lower triangle index, so the tree and brute force
/// pick the same triangle when several are hit at the same time.
template <class S>
bool better(S t, std::uint32_t i, S t_best, std::uint32_t i_best, bool have) {
  return !have || t < t_best || (t == t_best && i < i_best);
}

}  // namespace impact::mesh_detail
