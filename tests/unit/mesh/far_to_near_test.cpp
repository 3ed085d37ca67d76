// The branch-free ordering of a wide node's entered children (far_to_near8, src/mesh/bin_tree_walk.hpp),
// checked pair by pair: every entered slot exactly once, none other, far to near by entry time
// (the network compares the times without their last three bits, so two times in one block of
// eight ulps may come in either order, and only those). Seeded draws: every mask of eight slots, times spread
// wide, tied, within a few ulps of each other, zero and negative zero.
#include "mesh/bin_tree_walk.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

namespace {

using namespace impact;
using namespace impact::mesh_detail;

// Whether a and b agree but for the last three bits of their magnitudes: the network's tie band.
bool within_band(float a, float b) {
  const auto ia = std::bit_cast<std::uint32_t>(std::abs(a)) >> 3, ib = std::bit_cast<std::uint32_t>(std::abs(b)) >> 3;
  return ia == ib;
}

TEST(FarToNear, EnteredSlotsOnceEachFarToNear) {
#if IMPACT_WALK_AVX2
  if (!__builtin_cpu_supports("avx2")) {
    EXPECT_FALSE(walk_wide8());  // no walk calls it on this processor
    return;
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  int cases = 0, ties = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const unsigned mask = trial < 256 ? static_cast<unsigned>(trial) : static_cast<unsigned>(rng() & 0xffu);
    if (mask == 0) continue;
    alignas(32) float t[kMeshWidth];
    const float base = u(rng) * 100.0f;
    for (int i = 0; i < kMeshWidth; ++i) {
      switch ((trial + i) % 6) {
        case 0: t[i] = base; break;                                            // ties
        case 1: t[i] = std::nextafter(base, 1e30f); break;                     // one ulp apart
        case 2: t[i] = i % 2 == 0 ? 0.0f : -0.0f; break;                       // zeros
        case 3: t[i] = u(rng) * 1e-3f; break;
        default: t[i] = u(rng) * 1e6f; break;
      }
    }
    int out[kMeshWidth];
    far_to_near8(mask, t, out);
    const int n = std::popcount(mask);
    unsigned seen = 0;
    for (int j = 0; j < n; ++j) {
      ASSERT_TRUE(out[j] >= 0 && out[j] < kMeshWidth) << trial;
      ASSERT_TRUE((mask >> out[j] & 1u) != 0) << trial << " slot " << out[j] << " not entered";
      ASSERT_TRUE((seen >> out[j] & 1u) == 0) << trial << " slot " << out[j] << " twice";
      seen |= 1u << out[j];
      if (j > 0) {
        const float far = t[out[j - 1]], near = t[out[j]];
        // Far to near: a later slot is not farther, unless both are in one tie band.
        ASSERT_TRUE(!(std::abs(near) > std::abs(far)) || within_band(near, far)) << trial << " " << far << " " << near;
        ties += within_band(near, far);
      }
    }
    ASSERT_EQ(seen, mask) << trial;
    ++cases;
  }
  EXPECT_GT(cases, 19000);
  EXPECT_GT(ties, 1000);  // the draws reach the tie band
#else
  EXPECT_FALSE(walk_wide8());  // no AVX2 target on this compiler: the walks order children by insertion only
#endif
}

// push_children8 (the interleaved walk's push of a node's entered children): the entered slots'
// refs, counts and times land on the stack once each, far to near, above what was there (left as
// it was), the top raised by their count; pop_item8 then takes the nearest first and drops the
// items behind t_best. With `alone` and without: the same items, the same order.
TEST(FarToNear, PushChildren8StacksTheEnteredChildrenFarToNear) {
#if IMPACT_WALK_AVX2
  if (!__builtin_cpu_supports("avx2")) {
    EXPECT_FALSE(walk_wide8());
    return;
  }
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  MeshWideNode<float> w{};
  for (int i = 0; i < kMeshWidth; ++i) w.child[i] = 1000u + static_cast<std::uint32_t>(i), w.count[i] = static_cast<std::uint32_t>(i % 3);
  int pushes = 0, dropped = 0;
  for (int trial = 0; trial < 6000; ++trial) {
    const unsigned mask = trial < 256 ? static_cast<unsigned>(trial) : static_cast<unsigned>(rng() & 0xffu);
    alignas(32) float t[kMeshWidth];
    for (int i = 0; i < kMeshWidth; ++i) t[i] = (trial + i) % 5 == 0 ? 0.0f : u(rng) * 10.0f;
    for (const bool alone : {false, true}) {
      WalkStack8 s;
      const int below = trial % 4;  // items already stacked, untouched by the push
      for (int j = 0; j < below; ++j) s.ref[j] = 7u + static_cast<std::uint32_t>(j), s.count[j] = 9u, s.t[j] = -1.0f;
      int top = below;
      push_children8(w, mask, t, s, top, alone);
      const int n = std::popcount(mask);
      ASSERT_EQ(top, below + n) << trial;
      for (int j = 0; j < below; ++j) ASSERT_TRUE(s.ref[j] == 7u + static_cast<std::uint32_t>(j) && s.count[j] == 9u && s.t[j] == -1.0f);
      unsigned seen = 0;
      for (int j = below; j < top; ++j) {
        const int slot = static_cast<int>(s.ref[j]) - 1000;
        ASSERT_TRUE(slot >= 0 && slot < kMeshWidth && (mask >> slot & 1u) != 0 && (seen >> slot & 1u) == 0) << trial << " " << j;
        seen |= 1u << slot;
        ASSERT_EQ(s.count[j], w.count[slot]);
        ASSERT_EQ(std::bit_cast<std::uint32_t>(s.t[j]), std::bit_cast<std::uint32_t>(t[slot]));
        if (j > below) {
          ASSERT_TRUE(!(s.t[j] > s.t[j - 1]) || within_band(s.t[j], s.t[j - 1])) << trial << " far to near";
        }
      }
      ASSERT_EQ(seen, mask) << trial;
      // Popping with t_best at the median time: the nearest first, the ones behind it dropped.
      const float t_best = 5.0f;
      std::uint32_t ref = 0, count = 0;
      int expect_next = top - 1;
      while (expect_next >= below && s.t[expect_next] > t_best) --expect_next, ++dropped;
      if (expect_next >= below) {
        ASSERT_TRUE(pop_item8(s, top, t_best, ref, count));
        ASSERT_EQ(ref, s.ref[expect_next]);
        ASSERT_LE(s.t[top], t_best);
      }
      pushes += n;
    }
  }
  EXPECT_GT(pushes, 40000);
  EXPECT_GT(dropped, 1000);
#else
  EXPECT_FALSE(walk_wide8());
#endif
}

}  // namespace
