// impact benchmarks — ray_pairs.cpp: single mesh rays, impact's mesh_ray_cast against Embree's
// rtcIntersect1, timed alternately in one process: each round runs one library over the 4,096
// seeded rays of mesh_bench.cpp's single-ray benchmarks fifty times, then the other (their order
// swapped every round), so that both see the same machine state; it prints each library's median
// time a ray and the median of the rounds' ratios. The benchmark program runs each library's
// repetitions in one process too, but on a shared virtual machine its separate runs spread by a
// factor per process (terrain_1m: impact 377–520 ns a ray, Embree 265–366, bench/README.md,
// thirty-second session); the paired ratio here moved far less (1.25–1.34). Usage:
//   ./build/release/bench/impact_ray_pairs [terrain_1m|level_1m|terrain_20k] [ROUNDS] [up] [no_normal]
// The mesh is the float one with SAH bins, both faces colliding, as mesh_ray_cast/MESH/impact/float/sah;
// `no_normal` turns MeshRayOptions::normal off, as .../impact/float/sah/no_normal (Embree's call
// returns no unit normal either).
// Two variants that tell where a gap lives: terrain_20k is a 100×100 height field (20,000
// triangles, about 1 MB of tree and blocks: the caches hold it) with terrain_1m's rays, so its
// time is computation rather than memory; `up` (terrains only) raises every ray's origin by 10,
// above the highest ground (6.5) and every box, and turns its path straight up: it enters no box,
// and what is left is the fixed cost of a call (the checks, the set-ups, the first node's box test).
#include "mesh_bench_scenes.hpp"
#include "mesh_peers.hpp"

#include <impact/mesh.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  const char* name = argc > 1 ? argv[1] : "terrain_1m";
  const bool small = std::strcmp(name, "terrain_20k") == 0;
  const bool terrain = small || std::strcmp(name, "terrain_1m") == 0;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  bool up = false, no_normal = false, bad = false;
  for (int i = 3; i < argc; ++i) {
    if (std::strcmp(argv[i], "up") == 0)
      up = true;
    else if (std::strcmp(argv[i], "no_normal") == 0)
      no_normal = true;
    else
      bad = true;
  }
  if ((!terrain && std::strcmp(name, "level_1m") != 0) || rounds < 1 || bad || (up && !terrain)) {
    std::fprintf(stderr, "usage: %s [terrain_1m|level_1m|terrain_20k] [ROUNDS ≥ 1] [up (terrains)] [no_normal]\n", argv[0]);
    return 2;
  }
  if (!impact_bench::EmbreePeer::available()) {
    std::fprintf(stderr, "Embree not built: nothing to pair with\n");
    return 1;
  }
  using impact_bench::SegmentDesc;
  const int which = terrain ? 0 : 1;  // mesh_bench.cpp's meshes and single-ray seeds
  const impact_scenes::MeshData d = small ? impact_bench::bench_terrain(100) : impact_bench::bench_mesh(which);
  std::vector<SegmentDesc> rays = impact_bench::bench_rays(which, terrain ? 1 : 2);
  if (up)  // straight up from above every box, a path as long as before
    for (SegmentDesc& r : rays) {
      const float len = std::sqrt(r.path[0] * r.path[0] + r.path[1] * r.path[1] + r.path[2] * r.path[2]);
      r.origin[2] += 10.0f;
      r.path[0] = r.path[1] = 0.0f;
      r.path[2] = len;
    }
  const auto mesh = impact_scenes::to_mesh<float>(d, {.split = impact::MeshSplit::sah});
  const impact_bench::EmbreePeer embree(impact_bench::mesh_desc(d));
  std::vector<impact::Ray<float>> ours;
  for (const SegmentDesc& r : rays)
    ours.push_back({{r.origin[0], r.origin[1], r.origin[2]}, {r.path[0], r.path[1], r.path[2]}});
  const impact::MeshRayOptions<float> opt{.back_faces = impact::BackFaces::collide, .normal = !no_normal};

  constexpr int kPasses = 50;
  double sink = 0;  // every answer feeds it, so that no call is left out
  auto run_impact = [&] {
    for (int p = 0; p < kPasses; ++p)
      for (const auto& ray : ours) sink += impact::mesh_ray_cast(mesh, ray, opt).lambda;
  };
  auto run_embree = [&] {
    std::uint32_t tri = 0;
    for (int p = 0; p < kPasses; ++p)
      for (const SegmentDesc& ray : rays) sink += embree.ray(ray, tri);
  };
  auto ns_a_ray = [&](auto&& run) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / (double(kPasses) * double(rays.size()));
  };
  run_impact();  // first touches outside the rounds
  run_embree();
  std::vector<double> a, e, ratio;
  for (int r = 0; r < rounds; ++r) {
    double ta = 0, te = 0;
    if (r % 2 == 0) {
      ta = ns_a_ray(run_impact);
      te = ns_a_ray(run_embree);
    } else {
      te = ns_a_ray(run_embree);
      ta = ns_a_ray(run_impact);
    }
    a.push_back(ta);
    e.push_back(te);
    ratio.push_back(ta / te);
  }
  std::printf("mesh_ray_cast/%s%s%s paired, %d rounds of %d passes over %zu rays: impact %.1f ns, Embree %.1f ns a ray (medians); "
              "impact / Embree median %.3f, range %.3f–%.3f (checksum %g)\n",
              name, up ? " (up: no box entered)" : "", no_normal ? " (no normal)" : "", rounds, kPasses, rays.size(), median(a), median(e), median(ratio),
              *std::min_element(ratio.begin(), ratio.end()), *std::max_element(ratio.begin(), ratio.end()), sink);
  return 0;
}
