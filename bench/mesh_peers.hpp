// impact benchmarks — mesh_peers.hpp: the plain-array boundary between the mesh benchmarks and
// the peers' triangle-mesh queries (Embree's rtcIntersect1, Bullet's btBvhTriangleMeshShape ray
// test and btCollisionWorld::convexSweepTest). Only floats, doubles and ints cross it; each peer
// copies the mesh into its own structures in its constructor, outside every timed loop.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace impact_bench {

/// A triangle mesh as plain arrays (float, as Embree and Debian's Bullet take it).
struct MeshDesc {
  std::vector<std::array<float, 3>> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
};

/// One ray or sweep: from `origin` along `path` (t ∈ [0, 1]).
struct SegmentDesc {
  std::array<float, 3> origin{};
  std::array<float, 3> path{};
};

/// Embree 3 (Debian libembree-dev): one scene of one triangle geometry, default build quality;
/// rays traced one at a time with rtcIntersect1 (both faces hit, as Embree's default build does).
class EmbreePeer {
 public:
  explicit EmbreePeer(const MeshDesc& mesh);
  ~EmbreePeer();
  EmbreePeer(const EmbreePeer&) = delete;
  EmbreePeer& operator=(const EmbreePeer&) = delete;
  /// Nearest hit t ∈ [0, 1] along the segment, or a negative number for a miss; `tri` its triangle.
  [[nodiscard]] float ray(const SegmentDesc& s, std::uint32_t& tri) const;
  /// Rays [first, first + n) as one stream (rtcIntersect1M, `coherent` sets the context's
  /// coherent-rays flag): each nearest t into `t` (negative for a miss). `scratch` holds the
  /// stream's RTCRayHit records (resized outside timed loops when large enough).
  void rays_stream(const SegmentDesc* first, std::size_t n, bool coherent, float* t, std::vector<unsigned char>& scratch) const;
  /// Whether the library was found at build time (otherwise every call misses).
  static bool available();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Bullet (Debian libbullet-dev, float btScalar): a btBvhTriangleMeshShape (quantized BVH) over a
/// btTriangleIndexVertexArray, its performRaycast for rays, and btCollisionWorld::convexSweepTest
/// of a btSphereShape for sphere sweeps.
class BulletMeshPeer {
 public:
  explicit BulletMeshPeer(const MeshDesc& mesh);
  ~BulletMeshPeer();
  BulletMeshPeer(const BulletMeshPeer&) = delete;
  BulletMeshPeer& operator=(const BulletMeshPeer&) = delete;
  /// Nearest hit fraction along the segment (both faces), or a negative number for a miss.
  [[nodiscard]] float ray(const SegmentDesc& s) const;
  /// Closest hit fraction of a sphere of `radius` swept along the segment, or negative.
  [[nodiscard]] float sphere_sweep(const SegmentDesc& s, float radius) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace impact_bench
