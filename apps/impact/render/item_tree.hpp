// impact — render/item_tree.hpp: a bounding-volume tree over a scene's items (each item's world
// box: exact for convex shapes through their support mapping along ±x, ±y, ±z; the transformed
// vertex box for meshes and levels), built once per picture by binned surface-area splits, and
// walked front to back by a ray whose reach shrinks to the nearest hit so far.
#pragma once

#include "scene.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace impact::render {

/// An axis-aligned box (world).
struct Box3 {
  Vec3<double> lo{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                  std::numeric_limits<double>::infinity()};
  Vec3<double> hi = -lo;
  void grow(const Vec3<double>& p) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  void grow(const Box3& b) {
    lo = lo.cwiseMin(b.lo);
    hi = hi.cwiseMax(b.hi);
  }
  [[nodiscard]] bool empty() const { return !(lo.x() <= hi.x()); }
  [[nodiscard]] double area() const {
    if (empty()) return 0;
    const Vec3<double> e = hi - lo;
    return 2 * (e.x() * e.y() + e.y() * e.z() + e.z() * e.x());
  }
};

/// The world box of an item (empty for an item with nothing to draw).
Box3 world_box(const Item& item);

/// The tree. Nodes are stored depth first: a node's first child follows it, `second` is the other.
class ItemTree {
 public:
  struct Node {
    Box3 box;
    std::uint32_t first = 0;   ///< Leaf: first index into `order`. Inner: unused.
    std::uint32_t count = 0;   ///< Leaf: number of items (> 0). Inner: 0.
    std::uint32_t second = 0;  ///< Inner: index of the second child.
    std::uint8_t axis = 0;     ///< Inner: the split axis (its sign of the ray decides the near child).
  };

  /// Builds over `boxes` (one per item; empty boxes are left out). Leaves hold up to 2 items.
  explicit ItemTree(const std::vector<Box3>& boxes);

  /// Visits, front to back, every leaf item whose box the ray origin + λ·direction meets for λ in
  /// [0, reach]; `hit(item, reach)` tests the item and may shorten `reach` (the walk then prunes
  /// against the new reach). Returns early once `hit` sets `stop`. Depth at most kMaxDepth (the
  /// build stops splitting there).
  template <class HitFn>
  void walk(const Vec3<double>& origin, const Vec3<double>& direction, double& reach, bool& stop, HitFn&& hit) const;

  [[nodiscard]] std::size_t node_count() const { return nodes_.size(); }
  [[nodiscard]] const Box3& bounds() const { return nodes_.empty() ? empty_ : nodes_[0].box; }

  static constexpr int kMaxDepth = 48;

 private:
  std::uint32_t build(std::vector<std::uint32_t>& ids, std::size_t lo, std::size_t hi, const std::vector<Box3>& boxes,
                      int depth);
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> order_;
  Box3 empty_;
};

/// λ interval of the ray inside the box, clipped to [0, reach]: true when not empty.
inline bool slab(const Box3& b, const Vec3<double>& o, const Vec3<double>& inv, double reach, double& enter) {
  double t0 = 0, t1 = reach;
  for (int k = 0; k < 3; ++k) {
    double a = (b.lo[k] - o[k]) * inv[k], c = (b.hi[k] - o[k]) * inv[k];
    if (a > c) std::swap(a, c);
    // NaN (0·∞ for a ray in the box's plane) keeps the previous bound: max/min ignore it this way.
    t0 = a > t0 ? a : t0;
    t1 = c < t1 ? c : t1;
  }
  enter = t0;
  return t0 <= t1;
}

template <class HitFn>
void ItemTree::walk(const Vec3<double>& origin, const Vec3<double>& direction, double& reach, bool& stop,
                    HitFn&& hit) const {
  if (nodes_.empty()) return;
  const Vec3<double> inv(1.0 / direction.x(), 1.0 / direction.y(), 1.0 / direction.z());
  struct Entry {
    std::uint32_t node;
    double enter;
  };
  std::array<Entry, kMaxDepth + 2> stack;
  int top = 0;
  double enter = 0;
  if (!slab(nodes_[0].box, origin, inv, reach, enter)) return;
  stack[top++] = {0, enter};
  while (top > 0) {
    const Entry e = stack[--top];
    if (e.enter > reach) continue;  // the reach shrank since it was pushed
    const Node& n = nodes_[e.node];
    if (n.count > 0) {
      for (std::uint32_t i = n.first; i < n.first + n.count; ++i) {
        hit(order_[i], reach);
        if (stop) return;
      }
      continue;
    }
    std::uint32_t near = e.node + 1, far = n.second;
    if (direction[n.axis] < 0) std::swap(near, far);
    double en = 0, ef = 0;
    const bool hn = slab(nodes_[near].box, origin, inv, reach, en);
    const bool hf = slab(nodes_[far].box, origin, inv, reach, ef);
    if (hf) stack[top++] = {far, ef};
    if (hn) stack[top++] = {near, en};
  }
}

}  // namespace impact::render
