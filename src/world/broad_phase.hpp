// impact — world/broad_phase.hpp: which body pairs a step hands to the narrow phase.
//
// Sweep-and-prune (Baraff 1992; Cohen et al., I-COLLIDE 1995) on the boxes of the bodies' swept
// spheres: bodies sorted by the boxes' lower end along the axis their centres spread most, each
// compared with the bodies whose interval on that axis is still open. A pair whose boxes overlap on all three axes is then kept only when
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

/// The axis along which the boxes' centres spread most: sweeping along it keeps the open list
/// short (a scene spread along y and z but not x would make sweeping x quadratic).
[[nodiscard]] inline int sweep_axis(const std::vector<BroadBody>& bodies) {
  if (bodies.size() < 2) return 0;
  Vec3d mean = Vec3d::Zero(), square = Vec3d::Zero();
  for (const BroadBody& b : bodies) {
    const Vec3d c = 0.5 * (b.lo + b.hi);
    mean += c;
    square += c.cwiseProduct(c);
  }
  const double n = static_cast<double>(bodies.size());
  const Vec3d spread = square / n - (mean / n).cwiseProduct(mean / n);
  int axis = 0;
  spread.maxCoeff(&axis);
  return axis;
}

/// The candidate pairs (i < j) of `bodies` for a contact gap `gap`, sorted.
inline void broad_phase(const std::vector<BroadBody>& bodies, double gap, std::vector<std::uint32_t>& order,
                        std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  pairs.clear();
  const auto n = static_cast<std::uint32_t>(bodies.size());
  const int x = sweep_axis(bodies), y = (x + 1) % 3, z = (x + 2) % 3;
  order.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return bodies[a].lo[x] < bodies[b].lo[x] || (bodies[a].lo[x] == bodies[b].lo[x] && a < b);
  });
  for (std::uint32_t k = 0; k < n; ++k) {
    const BroadBody& a = bodies[order[k]];
    for (std::uint32_t m = k + 1; m < n; ++m) {
      const BroadBody& b = bodies[order[m]];
      if (b.lo[x] > a.hi[x]) break;
      if (!a.moves && !b.moves) continue;
      if (a.mesh && b.mesh) continue;
      if ((a.category & b.mask) == 0 || (b.category & a.mask) == 0) continue;
      if (b.lo[y] > a.hi[y] || a.lo[y] > b.hi[y] || b.lo[z] > a.hi[z] || a.lo[z] > b.hi[z]) continue;
      if (!a.mesh && !b.mesh && first_entry(a.sweep, b.sweep, gap) == kNever) continue;
      const std::uint32_t i = order[k], j = order[m];
      pairs.emplace_back(std::min(i, j), std::max(i, j));
    }
  }
  std::sort(pairs.begin(), pairs.end());
}

}  // namespace impact::world_detail
