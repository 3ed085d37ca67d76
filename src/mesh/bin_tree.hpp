#pragma once
// impact — mesh/bin_tree.hpp: what build_mesh derives from a mesh, private to the library: the
// triangles' planes, the binary tree of bins (Schroeder's AABB bins), the wide tree the queries
// walk and the triangles copied four to a block in leaf order. TriangleMesh holds one, shared by
// its copies and never changed once built; the library reaches it through MeshAccess.
#include <impact/mesh.hpp>

#include "detail/huge_page_allocator.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace impact {

/// A node ("bin") of a mesh's AABB tree.
template <class S>
struct MeshNode {
  Vec3<S> lo{S(0), S(0), S(0)};  ///< Box minimum corner (world, length), grown a few ulps outward.
  Vec3<S> hi{S(0), S(0), S(0)};  ///< Box maximum corner.
  /// Leaf: index of its first block in `MeshTree::blocks`; inner: index of the first of its
  /// two children, which are adjacent.
  std::uint32_t first = 0;
  std::uint32_t count = 0;  ///< Leaf: number of triangles (≥ 1); inner node: 0.
};

/// Children per node of the wide tree the queries walk.
inline constexpr int kMeshWidth = 8;

/// A node of the wide tree the queries walk: the binary tree of bins collapsed so that each node
/// holds up to kMeshWidth bins (Wald et al., "Getting rid of packets", 2008; Embree's BVH8), their
/// boxes side by side so one query tests them four at a time. The boxes are float for either
/// precision (a double mesh's rounded outward and grown by float ulps): half the memory to walk,
/// and culling stays conservative; the triangles themselves are tested in S.
template <class S>
struct alignas(64) MeshWideNode {
  static constexpr std::uint32_t kEmpty = 0xffffffffu;  ///< `child` of an unused slot.
  float lo[3][kMeshWidth];            ///< lo[axis][slot]: minimum corners of the boxes.
  float hi[3][kMeshWidth];            ///< hi[axis][slot]: maximum corners.
  std::uint32_t child[kMeshWidth];    ///< Inner slot: index of a MeshWideNode; leaf slot: first TriangleBlock4; kEmpty.
  std::uint32_t count[kMeshWidth];    ///< Leaf slot: number of triangles (≥ 1); inner or empty slot: 0.
};

/// A triangle's corners with its index: what the per-triangle tests of the casts take.
template <class S>
struct PackedTriangle {
  Vec3<S> a, b, c;           ///< Corners (world, length).
  std::uint32_t index = 0;   ///< Index into `TriangleMesh::triangles`.
};

/// Up to four triangles of one leaf, copied in tree order with their coordinates side by side
/// (a[axis][lane]), so a ray tests all four at once. A leaf of n triangles has ⌈n/4⌉ blocks;
/// lanes past its last triangle repeat that triangle (same corners, same index).
template <class S>
struct alignas(16) TriangleBlock4 {
  S a[3][4], b[3][4], c[3][4];  ///< Corners (world, length): a[axis][lane].
  std::uint32_t index[4];       ///< Index of each lane's triangle in `TriangleMesh::triangles`.
  /// Lane i as a PackedTriangle.
  [[nodiscard]] PackedTriangle<S> lane(int i) const {
    return {Vec3<S>(a[0][i], a[1][i], a[2][i]), Vec3<S>(b[0][i], b[1][i], b[2][i]), Vec3<S>(c[0][i], c[1][i], c[2][i]),
            index[i]};
  }
};

/// What build_mesh derives from a mesh's vertices and triangles.
template <class S>
struct MeshTree {
  std::vector<Vec3<S>> normals;          ///< Unit front normal of each triangle (zero when degenerate).
  std::vector<S> offsets;                ///< Plane offset normal·a of each triangle (length).
  std::vector<std::uint8_t> degenerate;  ///< 1 for a triangle of zero area (never hit).
  std::vector<MeshNode<S>> nodes;        ///< AABB tree, root first; empty when no triangle can be hit.
  /// The same bins, kMeshWidth to a node, root first (what queries walk; huge pages).
  detail::LargeArray<MeshWideNode<S>> wide;
  detail::LargeArray<TriangleBlock4<S>> blocks;  ///< Non-degenerate triangles in leaf order, four to a block.
  std::size_t packed_triangles = 0;      ///< How many triangles the blocks hold (padding lanes not counted).
  int depth = 0;                         ///< Depth of the deepest leaf.
};

/// The tree of a mesh never built: nothing can be hit.
template <class S>
inline const MeshTree<S> kEmptyMeshTree{};

namespace detail {

/// The library's way to a mesh's derived data (TriangleMesh's friend).
struct MeshAccess {
  /// The mesh's planes and tree; an empty one (nothing can be hit) before build_mesh.
  template <class S>
  static const MeshTree<S>& tree(const TriangleMesh<S>& m) {
    return m.tree_ ? *m.tree_ : kEmptyMeshTree<S>;
  }
  /// Installs a freshly built tree.
  template <class S>
  static void set(TriangleMesh<S>& m, std::shared_ptr<MeshTree<S>> tree) {
    m.tree_ = std::move(tree);
  }
};

}  // namespace detail

template <class S>
std::span<const Vec3<S>> TriangleMesh<S>::normals() const {
  return detail::MeshAccess::tree(*this).normals;
}
template <class S>
std::span<const S> TriangleMesh<S>::offsets() const {
  return detail::MeshAccess::tree(*this).offsets;
}
template <class S>
std::span<const std::uint8_t> TriangleMesh<S>::degenerate() const {
  return detail::MeshAccess::tree(*this).degenerate;
}
template <class S>
std::size_t TriangleMesh<S>::packed_triangles() const {
  return detail::MeshAccess::tree(*this).packed_triangles;
}
template <class S>
int TriangleMesh<S>::depth() const {
  return detail::MeshAccess::tree(*this).depth;
}
template <class S>
std::size_t TriangleMesh<S>::bin_count() const {
  return detail::MeshAccess::tree(*this).nodes.size();
}
template <class S>
bool TriangleMesh<S>::bounds(Vec3<S>& lo, Vec3<S>& hi) const {
  const MeshTree<S>& t = detail::MeshAccess::tree(*this);
  if (t.nodes.empty()) return false;
  lo = t.nodes[0].lo;
  hi = t.nodes[0].hi;
  return true;
}

}  // namespace impact
