#pragma once
// impact benchmarks — mesh_bench_scenes.hpp: the million-triangle meshes of the mesh benchmarks
// and their seeded segments (mesh_bench.cpp's single rays and random batches,
// mesh_instructions.cpp's counts), in the peers' form (MeshDesc, SegmentDesc). One place, so
// that every program measures the same meshes and rays.
#include "mesh_peers.hpp"
#include "mesh_scenes.hpp"  // tests/support

#include <impact/math.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace impact_bench {

/// Rays of mesh_bench.cpp's single-ray benchmarks, cycled through.
inline constexpr int kMeshRays = 4096;

/// level_1m's rooms in a row (8 wide each: the row is 8 · kLevelRooms long).
inline constexpr int kLevelRooms = 20;

/// terrain_1m's height field at `cells`×`cells` cells: over [-100, 100]², heights ±6.5 whatever
/// the resolution (2·cells² triangles).
inline impact_scenes::MeshData bench_terrain(int cells) { return impact_scenes::terrain(cells, 100, 42, 5.0); }

/// Mesh `which` of the benchmarks: 0 terrain_1m (bench_terrain(708): 1,002,528 triangles), 1
/// level_1m (kLevelRooms rooms of 8×8×4 with doorways, 70×70 quads a face, 1,048,320 triangles).
inline impact_scenes::MeshData bench_mesh(int which) {
  return which == 0 ? bench_terrain(708) : impact_scenes::level(kLevelRooms, 70).mesh;
}

/// The mesh in the peers' form (float corners, the same triangles).
inline MeshDesc mesh_desc(const impact_scenes::MeshData& d) {
  MeshDesc out;
  for (const auto& v : d.vertices) out.vertices.push_back({float(v.x()), float(v.y()), float(v.z())});
  out.triangles = d.triangles;
  return out;
}

/// terrain_1m's segments: from 5–30 above a random point of [-95, 95]² to a point below the ground
/// near it.
inline std::vector<SegmentDesc> terrain_rays(std::uint64_t seed, int count = kMeshRays) {
  using V = impact::Vec3<double>;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> xy(-95, 95), h(5, 30);
  std::vector<SegmentDesc> out;
  for (int i = 0; i < count; ++i) {
    const V o(xy(rng), xy(rng), h(rng));
    const V to(xy(rng) * 0.2 + o.x() * 0.8, xy(rng) * 0.2 + o.y() * 0.8, -10);
    const V p = to - o;
    out.push_back({{float(o.x()), float(o.y()), float(o.z())}, {float(p.x()), float(p.y()), float(p.z())}});
  }
  return out;
}

/// level_1m's segments: from a random point inside the row of rooms (`length` long), in a random
/// direction flattened toward the floor's plane, up to 16 long.
inline std::vector<SegmentDesc> level_rays(std::uint64_t seed, double length, int count = kMeshRays) {
  using V = impact::Vec3<double>;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.02, 0.98);
  std::normal_distribution<double> g;
  std::vector<SegmentDesc> out;
  for (int i = 0; i < count; ++i) {
    const V o(length * u(rng), 8 * u(rng), 4 * u(rng));
    const V p = V(g(rng), g(rng), 0.5 * g(rng)).normalized() * (16 * u(rng));
    out.push_back({{float(o.x()), float(o.y()), float(o.z())}, {float(p.x()), float(p.y()), float(p.z())}});
  }
  return out;
}

/// `count` seeded segments for mesh `which` of bench_mesh: terrain_rays or level_rays.
inline std::vector<SegmentDesc> bench_rays(int which, std::uint64_t seed, int count = kMeshRays) {
  return which == 0 ? terrain_rays(seed, count) : level_rays(seed, 8.0 * kLevelRooms, count);
}

}  // namespace impact_bench
