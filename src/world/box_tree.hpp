// impact — world/box_tree.hpp: a box tree for box queries: over a mesh body's triangles in the
// mesh's frame (culling them by the box of another piece's sweep), and over the bodies' swept
// boxes (the broad phase).
//
// A binary tree of axis-aligned boxes built top-down: each node's triangles are split at the
// median of their box centres along the longest axis of those centres' bounds, down to leaves
// of kLeafSize. A query visits every node whose box overlaps the query box, so it reports every
// item whose own box does (the node boxes are unions of the triangles' boxes, computed
// exactly in double: no rounding can drop one). The mesh's own tree (mesh.hpp) serves segment
// and swept-sphere queries with float boxes; this one stays in double and answers box queries,
// which is what the world's culling asks.
#pragma once

#include "world/swept_bounds.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace impact::world_detail {

class BoxTree {
 public:
  /// Items per leaf. Small leaves cost little here: a leaf's items are box-tested again one by
  /// one by the caller.
  static constexpr std::uint32_t kLeafSize = 4;

  /// Builds the tree over boxes [lo[k], hi[k]].
  void build(const std::vector<Vec3d>& lo, const std::vector<Vec3d>& hi) {
    nodes_.clear();
    order_.resize(lo.size());
    std::iota(order_.begin(), order_.end(), 0u);
    if (lo.empty()) return;
    nodes_.reserve(2 * lo.size() / kLeafSize + 2);
    nodes_.resize(1);
    build_into(0, lo, hi, 0, static_cast<std::uint32_t>(lo.size()));
  }

  /// Calls visit(k) for every item k whose box may overlap [qlo, qhi] (a superset of those
  /// that do, each once).
  template <class Visit>
  void query(const Vec3d& qlo, const Vec3d& qhi, Visit&& visit) const {
    if (nodes_.empty()) return;
    std::uint32_t stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& n = nodes_[stack[--top]];
      if ((qlo.array() > n.hi.array()).any() || (qhi.array() < n.lo.array()).any()) continue;
      if (n.count > 0) {
        for (std::uint32_t i = n.first; i < n.first + n.count; ++i) visit(order_[i]);
      } else {
        stack[top++] = n.first;
        stack[top++] = n.first + 1;
      }
    }
  }

 private:
  struct Node {
    Vec3d lo, hi;
    std::uint32_t first = 0;  ///< Leaf: first index into order_; inner: index of the first child.
    std::uint32_t count = 0;  ///< Leaf: triangles; inner: 0.
  };

  /// Builds the subtree of order_[begin, end) into node `at` (children are appended in pairs;
  /// only indices are held across the recursion, since nodes_ grows).
  void build_into(std::uint32_t at, const std::vector<Vec3d>& lo, const std::vector<Vec3d>& hi, std::uint32_t begin,
                  std::uint32_t end) {
    Vec3d blo = lo[order_[begin]], bhi = hi[order_[begin]];
    Vec3d clo = 0.5 * (blo + bhi), chi = clo;
    for (std::uint32_t i = begin; i < end; ++i) {
      const std::uint32_t k = order_[i];
      blo = blo.cwiseMin(lo[k]);
      bhi = bhi.cwiseMax(hi[k]);
      const Vec3d c = 0.5 * (lo[k] + hi[k]);
      clo = clo.cwiseMin(c);
      chi = chi.cwiseMax(c);
    }
    nodes_[at].lo = blo;
    nodes_[at].hi = bhi;
    // Every split halves its range, so the depth stays below log2(n) + 1: the query's stack of
    // 128 holds any mesh.
    if (end - begin <= kLeafSize) {
      nodes_[at].first = begin;
      nodes_[at].count = end - begin;
      return;
    }
    int axis = 0;
    (chi - clo).maxCoeff(&axis);
    const std::uint32_t mid = begin + (end - begin) / 2;
    std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                     [&](std::uint32_t a, std::uint32_t b) {
                       const double ca = lo[a][axis] + hi[a][axis], cb = lo[b][axis] + hi[b][axis];
                       return ca < cb || (ca == cb && a < b);
                     });
    const auto children = static_cast<std::uint32_t>(nodes_.size());
    nodes_.resize(nodes_.size() + 2);
    nodes_[at].first = children;
    nodes_[at].count = 0;
    build_into(children, lo, hi, begin, mid);
    build_into(children + 1, lo, hi, mid, end);
  }

  std::vector<Node> nodes_;
  std::vector<std::uint32_t> order_;
};

}  // namespace impact::world_detail
