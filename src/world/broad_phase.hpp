// impact — world/broad_phase.hpp: which body pairs a step hands to the narrow phase.
//
// Sweep-and-prune (Baraff 1992; Cohen et al., I-COLLIDE 1995) on the boxes of the bodies' swept
// spheres: bodies sorted by the boxes' lower x, each compared with the bodies whose x-interval
// is still open. A pair whose boxes overlap on all three axes is then kept only when
//  * at least one of the two moves (two bodies at rest cannot come closer),
//  * not both are meshes (never tested against each other),
//  * each one's category meets the other's mask,
//  * their swept spheres, moving together in time, come within the gap (`first_entry`); a mesh's
//    sphere is too loose to be worth it (its triangles are culled one by one later).
// The sort is redone every step (std::sort on keys that move little is near its best case); the
// pairs come out in a canonical order (lower index first, then sorted), so the narrow phase's
// work does not depend on how the sort broke ties.
#pragma once

#include "world/swept_bounds.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace impact::world_detail {

/// What the broad phase knows of a body in a step.
struct BroadBody {
  Vec3d lo = Vec3d::Zero(), hi = Vec3d::Zero();  ///< Box of everything the body covers in the step (grown by half the gap).
  SweptSphere sweep;                             ///< Origin's line and bounding radius.
  bool moves = false;
  bool mesh = false;
  std::uint32_t category = 1, mask = 0xffffffffu;
};

/// The candidate pairs (i < j) of `bodies` for a contact gap `gap`, sorted.
inline void broad_phase(const std::vector<BroadBody>& bodies, double gap, std::vector<std::uint32_t>& order,
                        std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  pairs.clear();
  const auto n = static_cast<std::uint32_t>(bodies.size());
  order.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return bodies[a].lo.x() < bodies[b].lo.x() || (bodies[a].lo.x() == bodies[b].lo.x() && a < b);
  });
  for (std::uint32_t k = 0; k < n; ++k) {
    const BroadBody& a = bodies[order[k]];
    for (std::uint32_t m = k + 1; m < n; ++m) {
      const BroadBody& b = bodies[order[m]];
      if (b.lo.x() > a.hi.x()) break;
      if (!a.moves && !b.moves) continue;
      if (a.mesh && b.mesh) continue;
      if ((a.category & b.mask) == 0 || (b.category & a.mask) == 0) continue;
      if (b.lo.y() > a.hi.y() || a.lo.y() > b.hi.y() || b.lo.z() > a.hi.z() || a.lo.z() > b.hi.z()) continue;
      if (!a.mesh && !b.mesh && first_entry(a.sweep, b.sweep, gap) == kNever) continue;
      const std::uint32_t i = order[k], j = order[m];
      pairs.emplace_back(std::min(i, j), std::max(i, j));
    }
  }
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace impact::world_detail
