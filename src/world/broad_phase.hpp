// impact — world/broad_phase.hpp: which body pairs a step hands to the narrow phase.
//
// Two ways to find the pairs whose boxes (the boxes of the bodies' swept spheres) overlap:
//  * a box tree over all the boxes, built for the step (box_tree.hpp), queried with each moving
//    body's box (the default: 5,000 bodies at high speed, whose boxes are long, 19 ms against 25);
//  * sweep-and-prune (Baraff 1992; Cohen et al., I-COLLIDE 1995): bodies sorted by the boxes'
//    lower end along the axis their centres spread most, each compared with the bodies whose
//    interval on that axis is still open (faster where boxes are short: 1,000 falling pieces,
//    0.5 ms against 0.8).
// A pair whose boxes overlap is then kept only when
//  * at least one of the two moves (two bodies at rest cannot come closer),
//  * not both are meshes (never tested against each other),
//  * each one's category meets the other's mask,
//  * their swept spheres, moving together in time, come within the gap (`first_entry`); a mesh's
//    sphere is too loose to be worth it (its triangles are culled one by one later).
// Both rebuild their order every step and give the same pairs, each as (lower index, higher),
// in no fixed order: the caller sorts them (on the step's threads).
#pragma once

#include "world/box_tree.hpp"
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

/// Whether the pair (a, b), whose boxes overlap, goes to the narrow phase.
[[nodiscard]] inline bool keep_pair(const BroadBody& a, const BroadBody& b, double gap) {
  if (!a.moves && !b.moves) return false;
  if (a.mesh && b.mesh) return false;
  if ((a.category & b.mask) == 0 || (b.category & a.mask) == 0) return false;
  if ((a.lo.array() > b.hi.array()).any() || (b.lo.array() > a.hi.array()).any()) return false;
  return a.mesh || b.mesh || first_entry(a.sweep, b.sweep, gap) != kNever;
}

/// The candidate pairs (i < j) of `bodies` for a contact gap `gap`, unsorted: sweep-and-prune.
inline void sweep_and_prune(const std::vector<BroadBody>& bodies, double gap, std::vector<std::uint32_t>& order,
                            std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  pairs.clear();
  const auto n = static_cast<std::uint32_t>(bodies.size());
  const int x = sweep_axis(bodies);
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
      if (!keep_pair(a, b, gap)) continue;
      const std::uint32_t i = order[k], j = order[m];
      pairs.emplace_back(std::min(i, j), std::max(i, j));
    }
  }
}

/// The same pairs from a box tree over the bodies' boxes (kept from the last step and refitted,
/// BoxTree::update): each moving body
/// queries it with its own box (pairs of two resting bodies are never wanted, so resting bodies
/// only answer queries). `for_each(n, f)` calls f(begin, end, list) over a partition of [0, n)
/// (in parallel, each call with its own list); the lists are joined, unsorted.
template <class ForEach>
void tree_pairs(const std::vector<BroadBody>& bodies, double gap, BoxTree& tree,
                std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs, ForEach&& for_each) {
  pairs.clear();
  std::vector<Vec3d> lo(bodies.size()), hi(bodies.size());
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    lo[i] = bodies[i].lo;
    hi[i] = bodies[i].hi;
  }
  tree.update(lo, hi);
  for_each(bodies.size(), [&](std::size_t begin, std::size_t end, std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) {
    for (auto i = static_cast<std::uint32_t>(begin); i < end; ++i) {
      const BroadBody& a = bodies[i];
      if (!a.moves) continue;
      tree.query(a.lo, a.hi, [&](std::uint32_t j) {
        // A pair of two movers is found from both sides: keep it from the lower index.
        if (j == i || (bodies[j].moves && j < i)) return;
        if (keep_pair(a, bodies[j], gap)) out.emplace_back(std::min(i, j), std::max(i, j));
      });
    }
  }, pairs);
}

}  // namespace impact::world_detail
