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

}  // namespace
