#pragma once
// impact — mesh/bin_tree_build.hpp: building a mesh's tree of bins (Schroeder's AABB bins): the binary tree by the surface area
// heuristic over the triangles' box centres, then collapsed to the eight-wide tree the walk reads (the cut of least node area, CollapsePlan).
#include "mesh/bin_tree.hpp"

#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>
#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace impact::mesh_detail {

/// Node boxes are grown outward by this many ulps of their largest coordinate (dimensionless), so
/// the rounding of the slab test never culls a bin whose triangle the exact test would hit: the
/// tree must find exactly what brute force finds, including rays through shared edges on a
/// bin's boundary.
template <class S>
constexpr S box_slack = S(16) * std::numeric_limits<S>::epsilon();

/// Widening of the far parameter of the slab test (dimensionless, 1 + 8 ulps): see Segment3::entry_wide.
template <class S>
constexpr S slab_widen = S(1) + S(8) * std::numeric_limits<S>::epsilon();

/// A triangle as the build sorts it: its box and the box's centre (the centre of the box, not
/// the corners' mean, as Embree's builders bin: measured the better tree, sah_plane's note).
struct BuildItem {
  double lo[3], hi[3], centre[3];
  std::uint32_t index;
};

template <class S>
void grow_box(MeshNode<S>& n) {
  for (int i = 0; i < 3; ++i) {
    const S m = std::max(std::abs(n.lo[i]), std::abs(n.hi[i]));
    const S g = box_slack<S> * m + std::numeric_limits<S>::min();
    n.lo[i] -= g;
    n.hi[i] += g;
  }
}

/// Binned SAH (Wald, "On fast construction of SAH-based bounding volume hierarchies", 2007):
/// 32 bins per axis over the centres' bounds; sets `axis` and `plane` to the cheapest split
/// (sum over both sides of box surface × the blocks of four triangles they fill, ⌈n/4⌉: a leaf's
/// triangles are tested four at a time, TriangleBlock4, so five cost what eight do). Leaves them
/// unchanged when the centres coincide.
///
/// Until 2026-12-06 the cost counted triangles over 16 bins of the triangles' centroids: against
/// a binary tree built by Embree's own SAH builder (`rtcBuildBVH`, blocks of four, leaves of at
/// most four) and collapsed the same way, impact's walks ran about 10% slower on level_1m's camera
/// batch (its leaves held 3.3 triangles, Embree's 3.9). Counting blocks, 32 bins and the
/// triangles' box centres (BuildItem) together closed that: 260k leaves of 3.99 triangles instead
/// of 315k of 3.29 (bench/README.md, twenty-seventh session).
inline void sah_plane(const std::vector<BuildItem>& items, std::size_t begin, std::size_t end, int& axis,
                      double& plane) {
  constexpr int kBins = 32;
  constexpr std::size_t kBlock = 4;  // triangles a leaf tests at once (TriangleBlock4's lanes)
  double clo[3], chi[3];
  for (int k = 0; k < 3; ++k) clo[k] = chi[k] = items[begin].centre[k];
  for (std::size_t i = begin; i < end; ++i)
    for (int k = 0; k < 3; ++k) {
      clo[k] = std::min(clo[k], items[i].centre[k]);
      chi[k] = std::max(chi[k], items[i].centre[k]);
    }
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    const double ext = chi[k] - clo[k];
    if (!(ext > 0)) continue;
    struct Bin {
      double lo[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::infinity()};
      double hi[3] = {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                      -std::numeric_limits<double>::infinity()};
      std::size_t n = 0;
      void add(const double* l, const double* h, std::size_t c) {
        for (int j = 0; j < 3; ++j) {
          lo[j] = std::min(lo[j], l[j]);
          hi[j] = std::max(hi[j], h[j]);
        }
        n += c;
      }
      double area() const {
        if (n == 0) return 0.0;
        const double x = hi[0] - lo[0], y = hi[1] - lo[1], z = hi[2] - lo[2];
        return x * y + y * z + z * x;
      }
    } bins[kBins];
    const double scale = kBins / ext;
    // Below about 1e-307 of extent the scale is infinite, and the lowest centre's 0 · ∞ a NaN (a
    // level fuzz input): it goes to the first bin, every larger centre to the last.
    auto bin_of = [&](double c) {
      const double x = (c - clo[k]) * scale;
      return x >= double(kBins - 1) ? kBins - 1 : x > 0.0 ? static_cast<int>(x) : 0;
    };
    for (std::size_t i = begin; i < end; ++i) bins[bin_of(items[i].centre[k])].add(items[i].lo, items[i].hi, 1);
    Bin right[kBins];
    Bin acc;
    for (int b = kBins - 1; b > 0; --b) {
      acc.add(bins[b].lo, bins[b].hi, bins[b].n);
      right[b] = acc;
    }
    Bin left;
    for (int b = 1; b < kBins; ++b) {
      left.add(bins[b - 1].lo, bins[b - 1].hi, bins[b - 1].n);
      if (left.n == 0 || right[b].n == 0) continue;
      const double cost = left.area() * double((left.n + kBlock - 1) / kBlock) + right[b].area() * double((right[b].n + kBlock - 1) / kBlock);
      if (cost < best) {
        best = cost;
        axis = k;
        plane = clo[k] + b / scale;
      }
    }
  }
}

/// Schroeder's bins: a bin encompassing its triangles' boxes is halved across its longest axis and
/// each triangle goes to the half holding its centre; recursion stops at `leaf_size` triangles or
/// `max_depth`. When every centre falls in one half (long thin triangles, duplicates) the bin is
/// split at the median centre instead, so the recursion always makes progress.
template <class S>
void build_node(const TriangleMesh<S>& mesh, MeshTree<S>& m, std::vector<BuildItem>& items, std::size_t begin, std::size_t end, int depth,
                std::uint32_t node, const MeshBuildOptions& opt) {
  double lo[3] = {items[begin].lo[0], items[begin].lo[1], items[begin].lo[2]};
  double hi[3] = {items[begin].hi[0], items[begin].hi[1], items[begin].hi[2]};
  for (std::size_t i = begin + 1; i < end; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], items[i].lo[k]);
      hi[k] = std::max(hi[k], items[i].hi[k]);
    }
  {
    MeshNode<S>& n = m.nodes[node];
    n.lo = Vec3<S>(S(lo[0]), S(lo[1]), S(lo[2]));
    n.hi = Vec3<S>(S(hi[0]), S(hi[1]), S(hi[2]));
    grow_box(n);
  }
  m.depth = std::max(m.depth, depth);
  const std::size_t count = end - begin;
  auto make_leaf = [&] {
    MeshNode<S>& n = m.nodes[node];
    n.first = static_cast<std::uint32_t>(m.blocks.size());
    n.count = static_cast<std::uint32_t>(count);
    for (std::size_t i = begin; i < end; i += 4) {
      TriangleBlock4<S>& blk = m.blocks.emplace_back();
      for (std::size_t l = 0; l < 4; ++l) {
        const std::uint32_t index = items[std::min(i + l, end - 1)].index;  // padding repeats the last
        const auto& t = mesh.triangles[index];
        for (int k = 0; k < 3; ++k) {
          blk.a[k][l] = mesh.vertices[t[0]][k];
          blk.b[k][l] = mesh.vertices[t[1]][k];
          blk.c[k][l] = mesh.vertices[t[2]][k];
        }
        blk.index[l] = index;
      }
    }
    m.packed_triangles += count;
  };
  if (count <= static_cast<std::size_t>(std::max(1, opt.leaf_size)) ||
      depth >= std::min(opt.max_depth, kMeshMaxDepth)) {
    make_leaf();
    return;
  }
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  double mid = 0.5 * (lo[axis] + hi[axis]);
  if (opt.split == MeshSplit::sah) sah_plane(items, begin, end, axis, mid);
  auto first = items.begin() + static_cast<std::ptrdiff_t>(begin);
  auto last = items.begin() + static_cast<std::ptrdiff_t>(end);
  auto split = std::partition(first, last, [&](const BuildItem& it) { return it.centre[axis] < mid; });
  if (split == first || split == last) {
    // Every centre in one half: split at the median centre along the longest centre spread.
    double clo[3], chi[3];
    for (int k = 0; k < 3; ++k) clo[k] = chi[k] = first->centre[k];
    for (auto it = first; it != last; ++it)
      for (int k = 0; k < 3; ++k) {
        clo[k] = std::min(clo[k], it->centre[k]);
        chi[k] = std::max(chi[k], it->centre[k]);
      }
    int cax = 0;
    for (int k = 1; k < 3; ++k)
      if (chi[k] - clo[k] > chi[cax] - clo[cax]) cax = k;
    split = first + static_cast<std::ptrdiff_t>(count / 2);
    std::nth_element(first, split, last,
                     [&](const BuildItem& x, const BuildItem& y) { return x.centre[cax] < y.centre[cax]; });
  }
  const std::size_t s = static_cast<std::size_t>(split - items.begin());
  const auto child = static_cast<std::uint32_t>(m.nodes.size());
  m.nodes.emplace_back();
  m.nodes.emplace_back();
  m.nodes[node].first = child;
  m.nodes[node].count = 0;
  build_node(mesh, m, items, begin, s, depth + 1, child, opt);
  build_node(mesh, m, items, s, end, depth + 1, child + 1, opt);
}

/// A bin's bound as a float for the wide nodes: a float bound as it is (already grown); a double
/// one rounded outward (`side` −1: down, +1: up) and grown by box_slack<float> of its magnitude,
/// so the float slab test has the same margin against its own rounding as a float mesh's.
template <class S>
float float_box_bound(S x, int side) {
  if constexpr (std::is_same_v<S, float>) {
    return x;
  } else {
    const double g = double(box_slack<float>) * std::abs(x) + double(std::numeric_limits<float>::min());
    const double y = side < 0 ? x - g : x + g;
    float f = static_cast<float>(y);
    if (side < 0 && double(f) > y) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    if (side > 0 && double(f) < y) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
  }
}

/// Which binary nodes become the slots of each wide node: the cut of the binary tree that
/// minimises the summed surface area of the wide nodes (the expected number of wide nodes a
/// random ray enters, as the surface area heuristic counts), by dynamic programming over the
/// binary tree (Ylitie, Karras and Laine, "Efficient incoherent ray traversal on GPUs through
/// compressed wide BVHs", 2017). cost(n, i): the least area under binary node n when n's subtree
/// may take up to i slots of its wide parent; a leaf takes one slot at no cost, an inner node
/// either one slot as a wide node of its own (its area plus the best split of kMeshWidth slots
/// between its children) or shares the i slots between its children. Greedy opening of the
/// largest child instead (until 2026-12-02) left half the slots empty: 4.0 of 8 on level_1m.
struct CollapsePlan {
  static constexpr int W = kMeshWidth;
  std::vector<float> cost;          ///< cost[n * W + i − 1] for i = 1 … W.
  /// split[n * W + i − 1], i ≥ 2: the slots given to n's first child when n may take i (0: n
  /// takes one, as a wide node); i = 1: the split of n's own kMeshWidth slots, were n a wide node.
  std::vector<std::uint8_t> split;

  template <class S>
  explicit CollapsePlan(const MeshTree<S>& m) : cost(m.nodes.size() * W), split(m.nodes.size() * W) {
    // Children come after their parent in `nodes`: bottom-up is backwards.
    for (std::size_t n = m.nodes.size(); n-- > 0;) {
      const MeshNode<S>& node = m.nodes[n];
      float* c = &cost[n * W];
      if (node.count > 0) {
        std::fill(c, c + W, 0.0f);
        continue;
      }
      const float* l = &cost[std::size_t(node.first) * W];
      const float* r = &cost[(std::size_t(node.first) + 1) * W];
      const Vec3<double> e = (node.hi - node.lo).template cast<double>();
      const double a = e.x() * e.y() + e.y() * e.z() + e.z() * e.x();
      // Above float's range (a double mesh's far-flung boxes) the area saturates: a float cast of
      // it would be undefined, and the plan only compares.
      const float area = a < double(std::numeric_limits<float>::max()) ? static_cast<float>(a) : std::numeric_limits<float>::max();
      auto best_share = [&](int slots, std::uint8_t& at) {  // the best split of `slots` between the children
        float best = std::numeric_limits<float>::infinity();
        for (int j = 1; j < slots; ++j)
          if (const float x = l[j - 1] + r[slots - j - 1]; x < best) {
            best = x;
            at = static_cast<std::uint8_t>(j);
          }
        return best;
      };
      split[n * W] = 1;  // where no split is finite, one slot to the first child
      const float as_wide = area + best_share(W, split[n * W]);
      c[0] = as_wide;
      for (int i = 2; i <= W; ++i) {
        std::uint8_t at = 1;
        const float shared = best_share(i, at);
        const bool wide = !(shared <= as_wide);  // a tie shares: fewer nodes
        c[i - 1] = wide ? as_wide : shared;
        split[n * W + i - 1] = wide ? 0 : at;
      }
    }
  }
  /// The slots binary node n fills with up to i slots (appended to `out`).
  template <class S>
  void cut(const MeshTree<S>& m, std::uint32_t n, int i, std::uint32_t* out, int& k) const {
    const std::uint8_t j = m.nodes[n].count > 0 || i == 1 ? 0 : split[std::size_t(n) * W + i - 1];
    if (j == 0) {
      out[k++] = n;
      return;
    }
    cut(m, m.nodes[n].first, j, out, k);
    cut(m, m.nodes[n].first + 1, i - j, out, k);
  }
  /// The slots of the wide node made of inner binary node b.
  template <class S>
  int slots(const MeshTree<S>& m, std::uint32_t b, std::uint32_t* out) const {
    const int at = split[std::size_t(b) * W];
    int k = 0;
    cut(m, m.nodes[b].first, at, out, k);
    cut(m, m.nodes[b].first + 1, W - at, out, k);
    return k;
  }
};

/// Makes binary node `b` (an inner node) wide node `w`: its slots as `plan` cuts them, the
/// inner ones wide nodes in turn (depth first, each node's children side by side).
template <class S>
void collapse(MeshTree<S>& m, const CollapsePlan& plan, std::uint32_t b, std::uint32_t w) {
  constexpr int W = kMeshWidth;
  std::uint32_t slots[W];
  const int n = plan.slots(m, b, slots);
  std::uint32_t inner[W];
  int ninner = 0;
  for (int i = 0; i < W; ++i) {
    MeshWideNode<S>& N = m.wide[w];
    if (i >= n) {
      for (int k = 0; k < 3; ++k) {
        N.lo[k][i] = std::numeric_limits<S>::infinity();
        N.hi[k][i] = -std::numeric_limits<S>::infinity();
      }
      N.child[i] = MeshWideNode<S>::kEmpty;
      N.count[i] = 0;
      continue;
    }
    const MeshNode<S>& c = m.nodes[slots[i]];
    for (int k = 0; k < 3; ++k) {
      N.lo[k][i] = float_box_bound(c.lo[k], -1);
      N.hi[k][i] = float_box_bound(c.hi[k], +1);
    }
    N.count[i] = c.count;
    if (c.count > 0) {
      N.child[i] = c.first;
    } else {
      N.child[i] = static_cast<std::uint32_t>(m.wide.size());
      m.wide.emplace_back();
      inner[ninner++] = static_cast<std::uint32_t>(i);
    }
  }
  for (int j = 0; j < ninner; ++j) {
    const std::uint32_t i = inner[j];
    collapse(m, plan, slots[i], m.wide[w].child[i]);
  }
}

}  // namespace impact::mesh_detail
