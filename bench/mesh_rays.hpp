#pragma once
// impact benchmarks — mesh_rays.hpp: the seeded segments of the mesh benchmarks (mesh_bench.cpp's
// single rays and random batches, mesh_instructions.cpp's counts), in SegmentDesc form.
#include "mesh_peers.hpp"

#include <impact/math.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace impact_bench {

/// Rays of mesh_bench.cpp's single-ray benchmarks, cycled through.
inline constexpr int kMeshRays = 4096;

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

}  // namespace impact_bench
