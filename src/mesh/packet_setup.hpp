#pragma once
// impact — mesh/packet_setup.hpp: a packet's rays set up sixteen at a time (AVX-512, float meshes).
//
// A camera batch's rays each need two set-ups before the walk: the slab test's (Segment3: the
// reciprocal direction and the origin shifted by the boxes' growth, as RayPacket::add stores them)
// and the watertight triangle test's (WatertightRay: the axis of largest |direction|, the shear,
// the origin in that frame). Made ray by ray they cost about a quarter of a camera ray's time
// (bench/README.md). Here they are made sixteen rays per step: each lane runs the same IEEE
// operations on the same operands as those constructors (the divisions too, no reciprocal
// estimates; no fused multiply-add: the target enables none for GCC and mesh_*.cpp are compiled
// with -ffp-contract=off), so every field is the same bits, and the walk's answers with them.
// A choice between two values (the axis of largest |direction|, near or far plane) is a blend on
// the comparison the constructor branches on. tests/unit/mesh/packet_setup_test.cpp compares
// every field with the constructors' on rays drawn to hit the ties and the tiny components.
#include "mesh/packet_walk.hpp"
#include "mesh/watertight_ray_triangle.hpp"

#include <cstdint>
#include <limits>

namespace impact::mesh_detail {

/// The watertight frames of a packet's rays, side by side (WatertightRay's fields less the
/// origin and direction in double, which the caller adds from the ray).
struct PacketFrames {
  alignas(64) float sx[kPacketRays], sy[kPacketRays], sz[kPacketRays], smax[kPacketRays];
  alignas(64) float ox[kPacketRays], oy[kPacketRays], oz[kPacketRays];
  std::uint8_t kx[kPacketRays], ky[kPacketRays], kz[kPacketRays];
  std::uint8_t frame[kPacketRays];  ///< kx | ky << 2 | kz << 4: one byte to compare two rays' frames
  /// Ray r's WatertightRay (ray: the ray it was set up from). The walks read the arrays in place
  /// (mesh_impl.hpp's PacketFrameSource); this whole copy is for the rare exact decisions.
  [[nodiscard]] WatertightRay<float> ray(int r, const Ray<float>& ray) const {
    WatertightRay<float> w;
    w.kx = kx[r], w.ky = ky[r], w.kz = kz[r];
    w.sx = sx[r], w.sy = sy[r], w.sz = sz[r], w.smax = smax[r];
    w.ox = ox[r], w.oy = oy[r], w.oz = oz[r];
    w.origin = ray.origin.template cast<double>();
    w.direction = ray.direction.template cast<double>();
    return w;
  }
};

#if IMPACT_PACKET_AVX512
namespace packet_setup_detail {
IMPACT_TARGET_AVX512 inline __m512 abs16(__m512 x) { return _mm512_abs_ps(x); }
/// a where m is set, else b.
IMPACT_TARGET_AVX512 inline __m512 pick(__mmask16 m, __m512 a, __m512 b) { return _mm512_mask_blend_ps(m, b, a); }
/// Per lane, axis (k + shift) mod 3 of v, where k is the lane's kz (0 where z0 is set, 1 where z1 is).
IMPACT_TARGET_AVX512 inline __m512 by_axis(__mmask16 z0, __mmask16 z1, const __m512 v[3], int shift) {
  return pick(z0, v[shift % 3], pick(z1, v[(1 + shift) % 3], v[(2 + shift) % 3]));
}
}  // namespace packet_setup_detail

/// The directions (dx[i], dy[i], dz[i]) of rays i = order[0 … n) (0 < n ≤ kPacketRays) side by
/// side in dirs[0], dirs[1], dirs[2], sixteen lanes a gather, and the lanes from n on copies of
/// lane n − 1 (set_up_packet16 sets up every lane; a packet's bounds take in every lane). `order`
/// is read a whole kPacketRays entries (those from n on are not used as indices).
IMPACT_TARGET_AVX512 inline void gather_directions16(const std::uint16_t* order, int n, const float* dx, const float* dy,
                                                     const float* dz, float (*dirs)[kPacketRays]) {
  static_assert(kPacketRays == 32);
  const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i last = _mm512_set1_epi32(n - 1);
  const __m512i idx[2] = {_mm512_maskz_cvtepu16_epi32(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(order))),
                          _mm512_maskz_cvtepu16_epi32(0xffff, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(order + 16)))};
  const __mmask16 in[2] = {_mm512_cmp_epi32_mask(lane, last, _MM_CMPINT_LE),
                           _mm512_cmp_epi32_mask(_mm512_add_epi32(lane, _mm512_set1_epi32(16)), last, _MM_CMPINT_LE)};
  // Lane j of the packet takes lane min(j, n − 1) of the two gathered halves.
  const __m512i from[2] = {_mm512_maskz_min_epi32(0xffff, lane, last),
                           _mm512_maskz_min_epi32(0xffff, _mm512_add_epi32(lane, _mm512_set1_epi32(16)), last)};
  const float* src[3] = {dx, dy, dz};
  for (int a = 0; a < 3; ++a) {
    const __m512 lo = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), in[0], idx[0], src[a], 4);
    const __m512 hi = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), in[1], idx[1], src[a], 4);
    _mm512_store_ps(dirs[a], _mm512_permutex2var_ps(lo, from[0], hi));
    _mm512_store_ps(dirs[a] + 16, _mm512_permutex2var_ps(lo, from[1], hi));
  }
}

/// Sets up rays 0…n−1 (0 < n ≤ kPacketRays) of one origin `o` with directions (dx[i], dy[i],
/// dz[i]), all of one sign group (the same std::signbit per axis), and best time `t_max`:
/// packet `p` gets what RayPacket::add(Segment3(o, d, 0, 0), t_max) stores for each (p.n = n, not
/// yet closed), `f` their WatertightRay frames. The arrays hold kPacketRays values each (lanes
/// from n on are set up too, from whatever they hold).
IMPACT_TARGET_AVX512 inline void set_up_packet16(const Vec3<float>& o, const float* dx, const float* dy, const float* dz, int n,
                                                 float t_max, RayPacket& p, PacketFrames& f) {
  using namespace packet_setup_detail;
  static_assert(kPacketRays % 16 == 0);
  constexpr float kSlack = 16.0f * std::numeric_limits<float>::epsilon();  // Segment3's S(16)·ε
  constexpr float kTiny = std::numeric_limits<float>::min() * 4.0f;
  const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
  const __m512 big = _mm512_set1_ps(std::numeric_limits<float>::max());
  const __m512 sign = _mm512_set1_ps(-0.0f);
  const __m512 o3[3] = {_mm512_set1_ps(o[0]), _mm512_set1_ps(o[1]), _mm512_set1_ps(o[2])};
  // max |o_i|, as Eigen's cwiseAbs().maxCoeff() (the maximum of non-NaN values, in any order).
  const float oa = std::max(std::max(std::abs(o[0]), std::abs(o[1])), std::abs(o[2]));
  const float tm = round_up_to_float(t_max);
  for (int g = 0; g < kPacketRays; g += 16) {
    const __m512 d3[3] = {_mm512_load_ps(dx + g), _mm512_load_ps(dy + g), _mm512_load_ps(dz + g)};
    // Segment3: mag = max(max|o|, max|o + d|) (+ the growth's 0), slack = 16ε·mag.
    __m512 mb = abs16(_mm512_add_ps(o3[0], d3[0]));
    mb = PacketLanes16::max(mb, abs16(_mm512_add_ps(o3[1], d3[1])));
    mb = PacketLanes16::max(mb, abs16(_mm512_add_ps(o3[2], d3[2])));
    const __m512 slack = _mm512_mul_ps(_mm512_set1_ps(kSlack), PacketLanes16::max(_mm512_set1_ps(oa), mb));
    for (int k = 0; k < 3; ++k) {
      // inv = 1/d where |d| > 4·FLT_MIN, else ±FLT_MAX by d's sign.
      const __mmask16 wide = _mm512_cmp_ps_mask(abs16(d3[k]), _mm512_set1_ps(kTiny), _CMP_GT_OQ);
      const __m512 inv = pick(wide, _mm512_div_ps(one, d3[k]), _mm512_or_ps(_mm512_and_ps(d3[k], sign), big));
      const __mmask16 near_hi = _mm512_cmp_ps_mask(inv, zero, _CMP_LT_OQ);
      // near plane lo − slack (dir ≥ 0) or hi + slack (dir < 0), folded into the origin.
      const __m512 lo_side = _mm512_add_ps(o3[k], slack), hi_side = _mm512_sub_ps(o3[k], slack);
      const __m512 o_near = pick(near_hi, hi_side, lo_side), o_far = pick(near_hi, lo_side, hi_side);
      _mm512_store_ps(p.inv[k] + g, inv);
      _mm512_store_ps(p.near_o[k] + g, o_near);
      _mm512_store_ps(p.far_o[k] + g, o_far);
    }
    _mm512_store_ps(p.tm + g, _mm512_set1_ps(tm));
    // WatertightRay: kz the axis of largest |d| (x before y before z on ties), kx and ky the next
    // two, swapped when d[kz] < 0.
    const __m512 a0 = abs16(d3[0]), a1 = abs16(d3[1]), a2 = abs16(d3[2]);
    const __mmask16 ge01 = _mm512_cmp_ps_mask(a0, a1, _CMP_GE_OQ);
    const __mmask16 z0 = ge01 & _mm512_cmp_ps_mask(a0, a2, _CMP_GE_OQ);
    const __mmask16 z1 = static_cast<__mmask16>(~ge01 & _mm512_cmp_ps_mask(a1, a2, _CMP_GE_OQ));
    // kz = 0: (kx, ky) = (1, 2); kz = 1: (2, 0); kz = 2: (0, 1).
    const __m512 dz_ = by_axis(z0, z1, d3, 0), dx0 = by_axis(z0, z1, d3, 1), dy0 = by_axis(z0, z1, d3, 2);
    const __m512 ozk = by_axis(z0, z1, o3, 0), ox0 = by_axis(z0, z1, o3, 1), oy0 = by_axis(z0, z1, o3, 2);
    const __mmask16 swap = _mm512_cmp_ps_mask(dz_, zero, _CMP_LT_OQ);
    const __m512 dxk = pick(swap, dy0, dx0), dyk = pick(swap, dx0, dy0);
    const __m512 sx = _mm512_div_ps(dxk, dz_), sy = _mm512_div_ps(dyk, dz_);
    _mm512_store_ps(f.sx + g, sx);
    _mm512_store_ps(f.sy + g, sy);
    _mm512_store_ps(f.sz + g, _mm512_div_ps(one, dz_));
    // std::max(|sx|, |sy|): |sy| where |sx| < |sy|, else |sx|.
    const __m512 asx = abs16(sx), asy = abs16(sy);
    _mm512_store_ps(f.smax + g, pick(_mm512_cmp_ps_mask(asx, asy, _CMP_LT_OQ), asy, asx));
    _mm512_store_ps(f.ox + g, pick(swap, oy0, ox0));
    _mm512_store_ps(f.oy + g, pick(swap, ox0, oy0));
    _mm512_store_ps(f.oz + g, ozk);
    // The axes' numbers, picked as the components above were: by_axis and swap on the lanes
    // (0, 1, 2) (integers, carried in float registers by their bits), then as bytes.
    const __m512 axis3[3] = {_mm512_castsi512_ps(_mm512_setzero_si512()), _mm512_castsi512_ps(_mm512_set1_epi32(1)),
                             _mm512_castsi512_ps(_mm512_set1_epi32(2))};
    const __m512 ax0 = by_axis(z0, z1, axis3, 1), ay0 = by_axis(z0, z1, axis3, 2);
    const __m512i kz = _mm512_castps_si512(by_axis(z0, z1, axis3, 0));
    const __m512i kx = _mm512_castps_si512(pick(swap, ay0, ax0)), ky = _mm512_castps_si512(pick(swap, ax0, ay0));
    const __m512i frame =
        _mm512_or_si512(kx, _mm512_or_si512(_mm512_maskz_slli_epi32(0xffff, ky, 2), _mm512_maskz_slli_epi32(0xffff, kz, 4)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(f.kx + g), _mm512_maskz_cvtepi32_epi8(0xffff, kx));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(f.ky + g), _mm512_maskz_cvtepi32_epi8(0xffff, ky));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(f.kz + g), _mm512_maskz_cvtepi32_epi8(0xffff, kz));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(f.frame + g), _mm512_maskz_cvtepi32_epi8(0xffff, frame));
    if (g + 16 >= n) break;
  }
  // The packet's near and far planes from its sign group (Segment3's near_at, far_at).
  for (int k = 0; k < 3; ++k) plane_offsets<float>(k, p.inv[k][0] < 0.0f, p.near_at[k], p.far_at[k]);
  p.n = n;
}
#endif

}  // namespace impact::mesh_detail
