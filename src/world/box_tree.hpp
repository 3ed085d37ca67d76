// impact — world/box_tree.hpp: a box tree for box queries: over a mesh body's triangles in the
// mesh's frame (culling them by the box of another piece's sweep), and over the bodies' swept
// boxes (the broad phase).
//
// A binary tree of axis-aligned boxes built top-down: each node's triangles are split at the
// median of their box centres along the longest axis of those centres' bounds, down to leaves
// of kLeafSize. The node boxes are unions of the items' boxes, computed exactly in double.
//
// Queries walk the same tree collapsed to four children a node (each node's grandchildren, as
// Embree's BVH4), the four boxes side by side in float, relative to the centre of the root's box
// (so a scene far from the origin keeps float's precision of its own size) and rounded outward,
// and tested at once. A query box goes through the same steps: x ↦ fl(x − centre) is monotone, and
// each box is then rounded outward, so no rounding can drop an item whose box overlaps it. The
// collapse was measured on falling_pieces_1000, where the binary walk's node loads (56 bytes a
// node, one level a load) were half of the culling's time. The mesh's own tree (mesh.hpp)
// serves segment and swept-sphere queries; this one answers box queries, which is what the
// world's culling asks.
#pragma once

#include "world/swept_bounds.hpp"

#include "detail/huge_page_allocator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace impact::world_detail {

class BoxTree {
 public:
  /// Items per leaf. Small leaves cost little here: a leaf's items are box-tested again one by
  /// one by the caller.
  static constexpr std::uint32_t kLeafSize = 4;

  /// Builds the tree over boxes [lo[k], hi[k]].
  void build(const std::vector<Vec3d>& lo, const std::vector<Vec3d>& hi) {
    ++builds_;
    nodes_.clear();
    wide_.clear();
    items_.resize(lo.size());
    for (std::size_t k = 0; k < lo.size(); ++k) items_[k] = {lo[k] + hi[k], static_cast<std::uint32_t>(k)};
    order_.resize(lo.size());
    if (!lo.empty()) {
      nodes_.reserve(2 * lo.size() / kLeafSize + 2);
      nodes_.resize(1);
      build_into(0, lo, hi, 0, static_cast<std::uint32_t>(lo.size()));
    }
    for (std::size_t i = 0; i < items_.size(); ++i) order_[i] = items_[i].index;
    if (lo.empty()) return;
    built_area_ = 0;
    for (const Node& n : nodes_)
      if (n.count == 0) built_area_ += half_area(n);
    collapse_all();
  }

  /// The tree over new boxes for the same number of items: the binary tree's boxes recomputed
  /// bottom-up over its existing shape (a refit, linear in the items), then collapsed again; a
  /// full build instead when the item count changed or the refit's nodes have grown to twice the
  /// surface of the last build's (bodies drifted apart from their neighbours in the tree). Any
  /// shape over any boxes answers queries correctly (each node's box holds its items' boxes); only
  /// the walk's length depends on it. On falling_pieces_10000 the build took 3–5 ms a step on one
  /// thread, the refit well under one.
  void update(const std::vector<Vec3d>& lo, const std::vector<Vec3d>& hi) {
    if (nodes_.empty() || order_.size() != lo.size()) {
      build(lo, hi);
      return;
    }
    double area = 0;
    for (std::size_t i = nodes_.size(); i-- > 0;) {
      Node& n = nodes_[i];
      if (n.count > 0) {
        n.lo = lo[order_[n.first]];
        n.hi = hi[order_[n.first]];
        for (std::uint32_t k = n.first + 1; k < n.first + n.count; ++k) {
          n.lo = n.lo.cwiseMin(lo[order_[k]]);
          n.hi = n.hi.cwiseMax(hi[order_[k]]);
        }
      } else {
        n.lo = nodes_[n.first].lo.cwiseMin(nodes_[n.first + 1].lo);
        n.hi = nodes_[n.first].hi.cwiseMax(nodes_[n.first + 1].hi);
        area += half_area(n);
      }
    }
    if (area > 2 * built_area_) {
      build(lo, hi);
      return;
    }
    collapse_all();
  }

  /// How many full builds this tree has had (update() refits otherwise).
  [[nodiscard]] std::size_t builds() const { return builds_; }

  /// Renumbers the items in the tree's leaf order, so that each leaf holds a run of numbers:
  /// returns the old number of each new one (item i is now what was item old[i]).
  [[nodiscard]] std::vector<std::uint32_t> renumber() {
    std::vector<std::uint32_t> old = order_;
    std::iota(order_.begin(), order_.end(), 0u);
    return old;
  }

  /// Frees what only the build needs (the binary tree: about 14 MB for a million items), for a
  /// tree that is not rebuilt (a mesh's).
  void release_build_memory() {
    std::vector<Node>().swap(nodes_);
    std::vector<Item>().swap(items_);
  }

  /// Calls visit(k) for every item k whose box may overlap [qlo, qhi] (a superset of those
  /// that do, each once).
  template <class Visit>
  void query(const Vec3d& qlo, const Vec3d& qhi, Visit&& visit) const {
    query(qlo, qhi, visit, [](std::uint32_t, std::uint32_t) {});
  }

  /// The same, calling prefetch(first, count) for each leaf the walk will visit, before it visits
  /// the first of them: the items of a renumbered tree (renumber()) are first..first+count−1,
  /// whose records the caller can ask the memory for while the node's other children are tested.
  /// The walk is bound by its loads (measured on falling_pieces_1000: half of the culling's time
  /// went to the loads of the triangles' records and of the nodes), and these overlap them.
  template <class Visit, class Prefetch>
  void query(const Vec3d& qlo, const Vec3d& qhi, Visit&& visit, Prefetch&& prefetch) const {
    if (wide_.empty()) return;
    float lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = down(qlo[a] - centre_[a]);
      hi[a] = up(qhi[a] - centre_[a]);
    }
    // Each level of the walk pushes at most four nodes; the collapsed tree is at most half as
    // deep as the binary one (below 33 levels for 2^32 items): 128 entries hold any walk.
    std::uint32_t stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Wide& n = wide_[stack[--top]];
      const unsigned meets = overlaps(n, lo, hi);
      for (int i = 0; i < 4; ++i) {
        if (!(meets & (1u << i))) continue;
        if (n.count[i] > 0) {
          prefetch(n.child[i], n.count[i]);
        } else {
          const char* node = reinterpret_cast<const char*>(&wide_[n.child[i]]);
          __builtin_prefetch(node);
          __builtin_prefetch(node + 64);
        }
      }
      for (int i = 0; i < 4; ++i) {
        if (!(meets & (1u << i))) continue;
        if (n.count[i] > 0) {
          for (std::uint32_t k = n.child[i]; k < n.child[i] + n.count[i]; ++k) visit(order_[k]);
        } else {
          stack[top++] = n.child[i];
        }
      }
    }
  }

 private:
  struct Node {
    Vec3d lo, hi;
    std::uint32_t first = 0;  ///< Leaf: first index into order_; inner: index of the first child.
    std::uint32_t count = 0;  ///< Leaf: triangles; inner: 0.
  };

  /// An item as the build sorts it: twice its box's centre (lo + hi), beside its number, so that
  /// the median splits compare keys in one array rather than through the item numbers (on the
  /// 10,000 bodies of a world step the indirect build took 5 ms, most of the broad phase's time).
  struct Item {
    Vec3d twice_centre;
    std::uint32_t index;
  };

  /// Builds the subtree of items_[begin, end) into node `at` (children are appended in pairs;
  /// only indices are held across the recursion, since nodes_ grows).
  void build_into(std::uint32_t at, const std::vector<Vec3d>& lo, const std::vector<Vec3d>& hi, std::uint32_t begin,
                  std::uint32_t end) {
    Vec3d blo = lo[items_[begin].index], bhi = hi[items_[begin].index];
    Vec3d clo = items_[begin].twice_centre, chi = clo;
    for (std::uint32_t i = begin; i < end; ++i) {
      const std::uint32_t k = items_[i].index;
      blo = blo.cwiseMin(lo[k]);
      bhi = bhi.cwiseMax(hi[k]);
      clo = clo.cwiseMin(items_[i].twice_centre);
      chi = chi.cwiseMax(items_[i].twice_centre);
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
    std::nth_element(items_.begin() + begin, items_.begin() + mid, items_.begin() + end,
                     [axis](const Item& a, const Item& b) {
                       const double ca = a.twice_centre[axis], cb = b.twice_centre[axis];
                       return ca < cb || (ca == cb && a.index < b.index);
                     });
    const auto children = static_cast<std::uint32_t>(nodes_.size());
    nodes_.resize(nodes_.size() + 2);
    nodes_[at].first = children;
    nodes_[at].count = 0;
    build_into(children, lo, hi, begin, mid);
    build_into(children + 1, lo, hi, mid, end);
  }

  /// Half the surface area of a node's box (the cost model of a tree's walks).
  static double half_area(const Node& n) {
    const Vec3d e = n.hi - n.lo;
    return e.x() * e.y() + e.y() * e.z() + e.z() * e.x();
  }

  /// The four-wide tree from the binary one.
  void collapse_all() {
    centre_ = 0.5 * (nodes_[0].lo + nodes_[0].hi);
    wide_.clear();
    wide_.reserve(nodes_.size() / 3 + 1);
    wide_.resize(1);
    collapse(0, 0);
  }

  /// A node of the collapsed tree: up to four children's boxes, in float, rounded outward.
  struct alignas(64) Wide {
    /// lo[axis][slot]; an empty slot's are NaN, which no comparison meets (an infinite or NaN
    /// query box, rounded to ±inf, still meets only the used slots).
    float lo[3][4], hi[3][4];
    std::uint32_t child[4];     ///< Inner slot: index into wide_; leaf slot: first index into order_.
    std::uint32_t count[4];     ///< Leaf slot: items; inner or empty slot: 0.
  };

  /// The float at or below x (at or above for `up`): a box rounded outward. Beyond float's range
  /// the box reaches infinity.
  static float down(double x) {
    constexpr double top = std::numeric_limits<float>::max();
    if (x > top) return std::numeric_limits<float>::max();
    if (!(x >= -top)) return -std::numeric_limits<float>::infinity();
    const float f = static_cast<float>(x);
    return static_cast<double>(f) > x ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
  }
  static float up(double x) { return -down(-x); }

  /// Bit i set where slot i's box overlaps [lo, hi].
  static unsigned overlaps(const Wide& n, const float* lo, const float* hi) {
#if defined(__SSE2__)
    __m128 ok = _mm_castsi128_ps(_mm_set1_epi32(-1));
    for (int a = 0; a < 3; ++a) {
      ok = _mm_and_ps(ok, _mm_cmple_ps(_mm_load_ps(n.lo[a]), _mm_set1_ps(hi[a])));
      ok = _mm_and_ps(ok, _mm_cmpge_ps(_mm_load_ps(n.hi[a]), _mm_set1_ps(lo[a])));
    }
    return static_cast<unsigned>(_mm_movemask_ps(ok));
#else
    unsigned m = 0;
    for (int i = 0; i < 4; ++i) {
      bool ok = true;
      for (int a = 0; a < 3; ++a) ok = ok && n.lo[a][i] <= hi[a] && n.hi[a][i] >= lo[a];
      m |= ok ? 1u << i : 0u;
    }
    return m;
#endif
  }

  /// Fills wide node `at` from binary node `node`: its grandchildren (or children where those
  /// are leaves), each inner one collapsed in turn into a node appended to wide_.
  void collapse(std::uint32_t at, std::uint32_t node) {
    std::uint32_t slots[4];
    int used = 0;
    const Node& n = nodes_[node];
    if (n.count > 0) {
      slots[used++] = node;  // a leaf at the root
    } else {
      for (std::uint32_t c = n.first; c < n.first + 2; ++c) {
        if (nodes_[c].count > 0) {
          slots[used++] = c;
        } else {
          slots[used++] = nodes_[c].first;
          slots[used++] = nodes_[c].first + 1;
        }
      }
    }
    for (int i = 0; i < 4; ++i) {
      Wide& w = wide_[at];
      for (int a = 0; a < 3; ++a) {
        w.lo[a][i] = i < used ? down(nodes_[slots[i]].lo[a] - centre_[a]) : std::numeric_limits<float>::quiet_NaN();
        w.hi[a][i] = i < used ? up(nodes_[slots[i]].hi[a] - centre_[a]) : std::numeric_limits<float>::quiet_NaN();
      }
      w.count[i] = i < used ? nodes_[slots[i]].count : 0;
      w.child[i] = i < used && w.count[i] > 0 ? nodes_[slots[i]].first : 0;
      if (i < used && w.count[i] == 0) {
        const auto child = static_cast<std::uint32_t>(wide_.size());
        wide_.emplace_back();  // may move wide_: `w` is not used past this line
        wide_[at].child[i] = child;
        collapse(child, slots[i]);
      }
    }
  }

  std::vector<Node> nodes_;
  std::vector<Item> items_;  ///< The build's items (emptied with the binary tree).
  double built_area_ = 0;    ///< Σ half_area of the inner nodes at the last build (update()).
  std::size_t builds_ = 0;
  detail::LargeArray<Wide> wide_;  // huge pages once large: a mesh's culling reads it at random
  Vec3d centre_ = Vec3d::Zero();  ///< The root box's centre: the float boxes are relative to it.
  std::vector<std::uint32_t> order_;
};

}  // namespace impact::world_detail
