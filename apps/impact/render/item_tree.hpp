// impact — render/item_tree.hpp: a bounding-volume tree over a scene's items (each item's world
// box: exact for convex shapes through their support mapping along ±x, ±y, ±z; the transformed
// vertex box for meshes and levels), built once per picture by binned surface-area splits, then
// collapsed to four children a node (the layout of Embree's BVH4 and of the mesh tree's wide
// nodes), and walked front to back by a ray whose reach shrinks to the nearest hit so far: one
// step tests a node's four boxes at once (SSE2, two doubles a register) and visits the children
// it meets nearest first.
#pragma once

#include "scene.hpp"

#include <array>
#include <cstdint>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/// The tree. The binary build's nodes are stored depth first (a node's first child follows it,
/// `second` is the other); the walk reads the wide nodes they are collapsed into.
class ItemTree {
 public:
  struct Node {
    Box3 box;
    std::uint32_t first = 0;   ///< Leaf: first index into `order`. Inner: unused.
    std::uint32_t count = 0;   ///< Leaf: number of items (> 0). Inner: 0.
    std::uint32_t second = 0;  ///< Inner: index of the second child.
  };
  static constexpr int kWidth = 4;
  /// Up to four children side by side: their boxes by axis then slot (lo[axis][slot]), in double
  /// so the slab test is the binary tree's own, four at a time.
  struct alignas(64) WideNode {
    static constexpr std::uint32_t kEmpty = 0xffffffffu;
    double lo[3][kWidth];          ///< Empty slot: +∞ (no ray meets it).
    double hi[3][kWidth];          ///< Empty slot: −∞.
    std::uint32_t child[kWidth];   ///< Inner slot: wide node index; leaf slot: first index into `order`; kEmpty.
    std::uint32_t count[kWidth];   ///< Leaf slot: number of items; inner or empty slot: 0.
  };

  /// Builds over `boxes` (one per item; empty boxes are left out). A leaf holds one item (more
  /// only at kMaxDepth): its slot box is then the item's own, so a ray casts only against items
  /// whose box it meets (two to a leaf cost 1.6 times as much per ray on the render benchmark).
  explicit ItemTree(const std::vector<Box3>& boxes);

  /// Visits, front to back, every leaf item whose box the ray origin + λ·direction meets for λ in
  /// [0, reach]; `hit(item, reach)` tests the item and may shorten `reach` (the walk then prunes
  /// against the new reach). Returns early once `hit` sets `stop`. Depth at most kMaxDepth (the
  /// build stops splitting there).
  template <class HitFn>
  void walk(const Vec3<double>& origin, const Vec3<double>& direction, double& reach, bool& stop, HitFn&& hit) const;

  [[nodiscard]] std::size_t node_count() const { return nodes_.size(); }
  [[nodiscard]] std::size_t wide_node_count() const { return wide_.size(); }
  [[nodiscard]] const Box3& bounds() const { return nodes_.empty() ? empty_ : nodes_[0].box; }

  static constexpr int kMaxDepth = 48;

 private:
  std::uint32_t build(std::vector<std::uint32_t>& ids, std::size_t lo, std::size_t hi, const std::vector<Box3>& boxes,
                      int depth);
  void collapse(std::uint32_t binary, std::uint32_t wide);
  std::vector<Node> nodes_;
  std::vector<WideNode> wide_;
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

/// The four boxes of a wide node against the ray: entry parameters (clipped below at 0) and the
/// mask of the slots met within [0, reach]. A NaN (0·∞: the ray in a box's plane) keeps the
/// previous bound, as in `slab`; empty slots never meet.
inline int slab4(const ItemTree::WideNode& n, const Vec3<double>& o, const Vec3<double>& inv, const int near_hi[3],
                 double reach, double enter[4]) {
#if defined(__SSE2__)
  __m128d t0a = _mm_setzero_pd(), t0b = t0a, t1a = _mm_set1_pd(reach), t1b = t1a;
  for (int k = 0; k < 3; ++k) {
    const double* nearp = near_hi[k] ? n.hi[k] : n.lo[k];
    const double* farp = near_hi[k] ? n.lo[k] : n.hi[k];
    const __m128d ok = _mm_set1_pd(o[k]), ik = _mm_set1_pd(inv[k]);
    // max/min return their second operand when either is NaN: the previous bound.
    t0a = _mm_max_pd(_mm_mul_pd(_mm_sub_pd(_mm_load_pd(nearp), ok), ik), t0a);
    t0b = _mm_max_pd(_mm_mul_pd(_mm_sub_pd(_mm_load_pd(nearp + 2), ok), ik), t0b);
    t1a = _mm_min_pd(_mm_mul_pd(_mm_sub_pd(_mm_load_pd(farp), ok), ik), t1a);
    t1b = _mm_min_pd(_mm_mul_pd(_mm_sub_pd(_mm_load_pd(farp + 2), ok), ik), t1b);
  }
  _mm_storeu_pd(enter, t0a);
  _mm_storeu_pd(enter + 2, t0b);
  return _mm_movemask_pd(_mm_cmple_pd(t0a, t1a)) | _mm_movemask_pd(_mm_cmple_pd(t0b, t1b)) << 2;
#else
  int mask = 0;
  for (int i = 0; i < ItemTree::kWidth; ++i) {
    double t0 = 0, t1 = reach;
    for (int k = 0; k < 3; ++k) {
      const double a = ((near_hi[k] ? n.hi[k][i] : n.lo[k][i]) - o[k]) * inv[k];
      const double c = ((near_hi[k] ? n.lo[k][i] : n.hi[k][i]) - o[k]) * inv[k];
      t0 = a > t0 ? a : t0;
      t1 = c < t1 ? c : t1;
    }
    enter[i] = t0;
    mask |= int(t0 <= t1) << i;
  }
  return mask;
#endif
}

template <class HitFn>
void ItemTree::walk(const Vec3<double>& origin, const Vec3<double>& direction, double& reach, bool& stop,
                    HitFn&& hit) const {
  if (wide_.empty()) return;
  const Vec3<double> inv(1.0 / direction.x(), 1.0 / direction.y(), 1.0 / direction.z());
  // Per axis, the near plane of every box is its max when the ray goes toward −axis.
  const int near_hi[3] = {inv.x() < 0, inv.y() < 0, inv.z() < 0};
  // A stack entry is a wide node or a leaf's run of items, with the ray's entry into its box.
  struct Entry {
    std::uint32_t index;
    std::uint32_t count;  ///< 0: `index` is a wide node; otherwise a leaf's items from order_[index].
    double enter;
  };
  // Each wide node popped pushes at most kWidth entries: depth × (kWidth − 1) + 1 bounds the stack.
  std::array<Entry, kMaxDepth * (kWidth - 1) + 2> stack;
  int top = 0;
  double enter = 0;
  if (!slab(nodes_[0].box, origin, inv, reach, enter)) return;
  stack[top++] = {0, 0, enter};
  while (top > 0) {
    const Entry e = stack[--top];
    if (e.enter > reach) continue;  // the reach shrank since it was pushed
    if (e.count > 0) {
      for (std::uint32_t i = e.index; i < e.index + e.count; ++i) {
        hit(order_[i], reach);
        if (stop) return;
      }
      continue;
    }
    const WideNode& n = wide_[e.index];
    double t0[kWidth];
    int mask = slab4(n, origin, inv, near_hi, reach, t0);
    // The slots met, nearest first (insertion sort of at most four), pushed farthest first.
    int slot[kWidth], m = 0;
    for (; mask != 0; mask &= mask - 1) {
      const int i = __builtin_ctz(static_cast<unsigned>(mask));
      int k = m++;
      while (k > 0 && t0[slot[k - 1]] > t0[i]) {
        slot[k] = slot[k - 1];
        --k;
      }
      slot[k] = i;
    }
    while (m > 0) {
      const int i = slot[--m];
      stack[top++] = {n.child[i], n.count[i], t0[i]};
    }
  }
}

}  // namespace impact::render
