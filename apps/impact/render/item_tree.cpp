// impact — render/item_tree.cpp: item boxes and the binned-SAH build of the render's tree.
#include "item_tree.hpp"

#include <algorithm>
#include <numeric>

namespace impact::render {

Box3 world_box(const Item& item) {
  Box3 b;
  switch (item.kind) {
    case Item::Kind::convex: {
      // The support point along ±e_k (turned into the local frame) bounds the shape exactly.
      for (int k = 0; k < 3; ++k) {
        const Vec3<double> e = Vec3<double>::Unit(k);
        const Vec3<double> local = item.pose.rotation.conjugate() * e;
        b.grow(item.pose.apply(support(item.shape, local)));
        b.grow(item.pose.apply(support(item.shape, Vec3<double>(-local))));
      }
      break;
    }
    case Item::Kind::mesh:
      if (item.mesh)
        for (const auto& v : item.mesh->vertices) b.grow(item.pose.apply(v));
      break;
    case Item::Kind::level:
      if (item.level)
        for (const auto& room : item.level->rooms)
          for (const auto& v : room.mesh.vertices) b.grow(v);
      break;
  }
  if (!b.empty()) {
    // Rounding of the support points: a relative pad so a grazing ray is never culled.
    const double pad = 1e-9 * (b.hi - b.lo).cwiseAbs().maxCoeff() + 1e-12 * (b.lo.cwiseAbs().maxCoeff() + b.hi.cwiseAbs().maxCoeff());
    b.lo.array() -= pad;
    b.hi.array() += pad;
  }
  return b;
}

ItemTree::ItemTree(const std::vector<Box3>& boxes) {
  std::vector<std::uint32_t> ids;
  for (std::uint32_t i = 0; i < boxes.size(); ++i)
    if (!boxes[i].empty()) ids.push_back(i);
  if (ids.empty()) return;
  nodes_.reserve(2 * ids.size());
  order_.reserve(ids.size());
  build(ids, 0, ids.size(), boxes, 0);
  wide_.reserve(nodes_.size() / 2 + 1);
  wide_.emplace_back();
  collapse(0, 0);
}

/// Collapses binary node `b` into wide node `w`: the inner node with the largest surface among the
/// slots is replaced by its two children until the four slots are full or only leaves remain
/// (a leaf root takes one slot); inner slots become wide nodes in turn.
void ItemTree::collapse(std::uint32_t b, std::uint32_t w) {
  std::uint32_t slots[kWidth];
  int n = 0;
  auto second_of = [&](std::uint32_t i) { return nodes_[i].second; };
  if (nodes_[b].count > 0) {
    slots[n++] = b;
  } else {
    slots[n++] = b + 1;
    slots[n++] = second_of(b);
  }
  while (n < kWidth) {
    int best = -1;
    for (int i = 0; i < n; ++i)
      if (nodes_[slots[i]].count == 0 && (best < 0 || nodes_[slots[i]].box.area() > nodes_[slots[best]].box.area())) best = i;
    if (best < 0) break;
    const std::uint32_t open = slots[best];
    slots[best] = open + 1;
    slots[n++] = second_of(open);
  }
  std::uint32_t inner[kWidth];
  int ninner = 0;
  for (int i = 0; i < kWidth; ++i) {
    WideNode& N = wide_[w];
    if (i >= n) {
      for (int k = 0; k < 3; ++k) {
        N.lo[k][i] = std::numeric_limits<double>::infinity();
        N.hi[k][i] = -std::numeric_limits<double>::infinity();
      }
      N.child[i] = WideNode::kEmpty;
      N.count[i] = 0;
      continue;
    }
    const Node& c = nodes_[slots[i]];
    for (int k = 0; k < 3; ++k) {
      N.lo[k][i] = c.box.lo[k];
      N.hi[k][i] = c.box.hi[k];
    }
    N.count[i] = c.count;
    if (c.count > 0) {
      N.child[i] = c.first;
    } else {
      N.child[i] = static_cast<std::uint32_t>(wide_.size());
      wide_.emplace_back();
      inner[ninner++] = static_cast<std::uint32_t>(i);
    }
  }
  for (int j = 0; j < ninner; ++j) collapse(slots[inner[j]], wide_[w].child[inner[j]]);
}

std::uint32_t ItemTree::build(std::vector<std::uint32_t>& ids, std::size_t lo, std::size_t hi,
                              const std::vector<Box3>& boxes, int depth) {
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  Box3 box, centres;
  for (std::size_t i = lo; i < hi; ++i) {
    box.grow(boxes[ids[i]]);
    centres.grow(Vec3<double>(0.5 * (boxes[ids[i]].lo + boxes[ids[i]].hi)));
  }
  nodes_[index].box = box;
  const std::size_t n = hi - lo;
  auto make_leaf = [&] {
    nodes_[index].first = static_cast<std::uint32_t>(order_.size());
    nodes_[index].count = static_cast<std::uint32_t>(n);
    for (std::size_t i = lo; i < hi; ++i) order_.push_back(ids[i]);
    return index;
  };
  if (n <= 1 || depth >= kMaxDepth) return make_leaf();
  // Binned surface-area heuristic over the centres (16 bins per axis).
  constexpr int kBins = 16;
  int best_axis = -1, best_split = 0;
  double best_cost = std::numeric_limits<double>::infinity();
  for (int axis = 0; axis < 3; ++axis) {
    const double c0 = centres.lo[axis], c1 = centres.hi[axis];
    if (!(c1 > c0)) continue;
    Box3 bin_box[kBins];
    int bin_count[kBins] = {};
    const double scale = kBins / (c1 - c0);
    for (std::size_t i = lo; i < hi; ++i) {
      const Box3& b = boxes[ids[i]];
      const int k = std::min(kBins - 1, static_cast<int>((0.5 * (b.lo[axis] + b.hi[axis]) - c0) * scale));
      bin_box[k].grow(b);
      ++bin_count[k];
    }
    double right_area[kBins];
    int right_count[kBins];
    Box3 acc;
    int cnt = 0;
    for (int k = kBins - 1; k > 0; --k) {
      acc.grow(bin_box[k]);
      cnt += bin_count[k];
      right_area[k] = acc.area();
      right_count[k] = cnt;
    }
    Box3 left;
    int lc = 0;
    for (int k = 1; k < kBins; ++k) {
      left.grow(bin_box[k - 1]);
      lc += bin_count[k - 1];
      if (lc == 0 || right_count[k] == 0) continue;
      const double cost = left.area() * lc + right_area[k] * right_count[k];
      if (cost < best_cost) {
        best_cost = cost;
        best_axis = axis;
        best_split = k;
      }
    }
  }
  std::size_t mid;
  if (best_axis < 0) {
    mid = lo + n / 2;  // every centre at one point: halve the list
    best_axis = 0;
  } else {
    const double c0 = centres.lo[best_axis], scale = kBins / (centres.hi[best_axis] - c0);
    auto left_of = [&](std::uint32_t id) {
      const Box3& b = boxes[id];
      return std::min(kBins - 1, static_cast<int>((0.5 * (b.lo[best_axis] + b.hi[best_axis]) - c0) * scale)) < best_split;
    };
    mid = static_cast<std::size_t>(std::partition(ids.begin() + lo, ids.begin() + hi, left_of) - ids.begin());
    if (mid == lo || mid == hi) mid = lo + n / 2;
  }
  build(ids, lo, mid, boxes, depth + 1);
  const std::uint32_t second = build(ids, mid, hi, boxes, depth + 1);
  nodes_[index].second = second;
  return index;
}

}  // namespace impact::render
