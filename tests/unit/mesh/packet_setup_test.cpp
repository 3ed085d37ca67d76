// The packet set-up sixteen rays at a time (src/mesh/packet_setup.hpp) against the constructors it
// stands for, field by field and bit for bit: RayPacket::add(Segment3(o, d, 0, 0), t) for the slab
// test and WatertightRay for the triangle test. The directions are drawn to hit what the
// constructors branch on: components tied in magnitude (the axis of largest |d|), zero and
// negative zero, components below 4·FLT_MIN (a huge reciprocal instead), subnormal ones; the
// origins near zero, at zero of either sign, and far away.
#include "mesh/packet_setup.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace impact;
using namespace impact::mesh_detail;

bool same(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

// One component of a direction, with the sign asked for (the packet's sign group).
float component(std::mt19937& rng, bool negative) {
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  float x;
  switch (kind(rng)) {
    case 0: x = 0.0f; break;                                                  // zero (−0 when negative)
    case 1: x = std::numeric_limits<float>::min() * 3.0f * u(rng); break;    // below 4·FLT_MIN
    case 2: x = std::numeric_limits<float>::denorm_min() * 7.0f; break;      // subnormal
    case 3:
    case 6: x = 1.0f; break;                                                  // ties with the others
    case 4: x = 1e-30f * (1.0f + u(rng)); break;
    case 5: x = 1e6f * u(rng); break;
    default: x = u(rng) * 4.0f; break;
  }
  return negative ? -x : x;
}

TEST(PacketSetup, SixteenAtATimeEqualsTheConstructorsBitForBit) {
#if IMPACT_PACKET_AVX512
  if (!packet_avx512_available()) {
    // Nothing here runs the sixteen-lane set-up: the batches use the constructors themselves.
    EXPECT_NE(packet_lanes(), 16);
    return;
  }
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int rays = 0, ties = 0, tiny = 0, frames_differ = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int group = trial % 8;  // the direction signs of the packet
    Vec3<float> o;
    switch (trial % 5) {
      case 0: o = Vec3<float>(u(rng), u(rng), u(rng)); break;
      case 1: o = Vec3<float>(4.0f, u(rng), 1.0f); break;
      case 2: o = Vec3<float>(30.0f * u(rng), 30.0f * u(rng), 30.0f * u(rng)); break;
      case 3: o = Vec3<float>(-0.0f, 0.0f, -0.0f); break;
      default: o = Vec3<float>(1e9f * u(rng), 2.0f, -7.0f); break;                        // far away
    }
    const int n = 1 + trial % kPacketRays;
    alignas(64) float d[3][kPacketRays];
    std::vector<Vec3<float>> dir(static_cast<std::size_t>(n));
    for (int r = 0; r < kPacketRays; ++r) {
      Vec3<float> v;
      do {
        for (int k = 0; k < 3; ++k) v[k] = component(rng, (group >> k & 1) != 0);
      } while (v == Vec3<float>::Zero());  // a searched ray has a direction
      if (trial % 3 == 0) v *= 10.0f * (u(rng) + 1.5f);  // rays longer than the box
      for (int k = 0; k < 3; ++k) d[k][r] = v[k];
      if (r < n) dir[static_cast<std::size_t>(r)] = v;
    }
    const float t_max = trial % 4 == 0 ? 0.25f : 1.0f;
    RayPacket p, ref;
    PacketFrames f;
    set_up_packet16(o, d[0], d[1], d[2], n, t_max, p, f);
    ASSERT_EQ(p.n, n);
    for (int r = 0; r < n; ++r) {
      const Vec3<float>& v = dir[static_cast<std::size_t>(r)];
      const Segment3<float> seg(o, v, Vec3<float>::Zero(), Vec3<float>::Zero());
      ref.add(seg, t_max);
      for (int k = 0; k < 3; ++k) {
        ASSERT_TRUE(same(p.inv[k][r], ref.inv[k][r])) << trial << " " << r << " " << k;
        ASSERT_TRUE(same(p.near_o[k][r], ref.near_o[k][r])) << trial << " " << r << " " << k;
        ASSERT_TRUE(same(p.far_o[k][r], ref.far_o[k][r])) << trial << " " << r << " " << k;
        ASSERT_EQ(p.near_at[k], ref.near_at[k]);
        ASSERT_EQ(p.far_at[k], ref.far_at[k]);
      }
      ASSERT_TRUE(same(p.tm[r], ref.tm[r]));
      const Ray<float> ray{o, v};
      const WatertightRay<float> w(ray), got = f.ray(r, ray);
      ASSERT_EQ(got.kx, w.kx) << trial << " " << r;
      ASSERT_EQ(got.ky, w.ky) << trial << " " << r;
      ASSERT_EQ(got.kz, w.kz) << trial << " " << r;
      for (auto [a, b] : {std::pair{got.sx, w.sx}, {got.sy, w.sy}, {got.sz, w.sz}, {got.smax, w.smax}, {got.ox, w.ox},
                          {got.oy, w.oy}, {got.oz, w.oz}})
        ASSERT_TRUE(same(a, b)) << trial << " " << r;
      ASSERT_EQ(got.origin, w.origin);
      ASSERT_EQ(got.direction, w.direction);
      // The frame code (the packet leaf's same_frame) tells the frames apart, against every
      // earlier ray of the packet.
      for (int q = 0; q < r; ++q) {
        const bool same_axes = f.kx[q] == f.kx[r] && f.ky[q] == f.ky[r] && f.kz[q] == f.kz[r];
        ASSERT_EQ(f.frame[q] == f.frame[r], same_axes) << trial << " " << q << " " << r;
        frames_differ += !same_axes;
      }
      const Vec3<float> a = v.cwiseAbs();
      ties += a[w.kz] == a[w.kx] || a[w.kz] == a[w.ky];
      tiny += (a.array() < 4.0f * std::numeric_limits<float>::min()).any();
      ++rays;
    }
  }
  // The draws reach what the set-up branches on.
  EXPECT_GT(ties, rays / 20);
  EXPECT_GT(tiny, rays / 5);
  EXPECT_GT(frames_differ, rays);  // pairs of rays of different frames, about two thirds of them
#else
  EXPECT_EQ(packet_lanes(), 4);  // no AVX-512 target on this compiler: nothing runs the set-up
#endif
}

// gather_directions16: a packet's directions in order's order, the lanes from n on copies of lane
// n − 1, for every n from 1 to kPacketRays; the entries of `order` from n on are never read as
// indices (here far out of the arrays' range).
TEST(PacketSetup, GatheredDirectionsAreInOrderAndTheLastRepeats) {
#if IMPACT_PACKET_AVX512
  if (!packet_avx512_available()) {
    EXPECT_NE(packet_lanes(), 16);
    return;
  }
  std::mt19937 rng(7);
  std::vector<float> dx(500), dy(500), dz(500);
  for (std::size_t i = 0; i < dx.size(); ++i) dx[i] = float(i), dy[i] = -float(i), dz[i] = 0.5f * float(i);
  for (int trial = 0; trial < 200; ++trial)
    for (int n = 1; n <= kPacketRays; ++n) {
      std::uint16_t order[kPacketRays];
      for (int j = 0; j < kPacketRays; ++j) order[j] = j < n ? static_cast<std::uint16_t>(rng() % dx.size()) : std::uint16_t(60000);
      alignas(64) float dirs[3][kPacketRays];
      gather_directions16(order, n, dx.data(), dy.data(), dz.data(), dirs);
      for (int j = 0; j < kPacketRays; ++j) {
        const std::uint16_t i = order[std::min(j, n - 1)];
        ASSERT_EQ(dirs[0][j], dx[i]) << n << " " << j;
        ASSERT_EQ(dirs[1][j], dy[i]) << n << " " << j;
        ASSERT_EQ(dirs[2][j], dz[i]) << n << " " << j;
      }
    }
#else
  EXPECT_EQ(packet_lanes(), 4);
#endif
}

}  // namespace
