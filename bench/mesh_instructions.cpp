// impact benchmarks — mesh_instructions.cpp: instructions a single mesh ray executes, impact's
// mesh_ray_cast against Embree's rtcIntersect1, counted by callgrind (repeatable where timings
// drift with the machine's neighbours). The meshes and rays are mesh_bench.cpp's (terrain_1m,
// level_1m, 4,096 seeded segments, the float mesh with SAH bins, both faces colliding); each
// library's loop over the rays is counted between CALLGRIND_TOGGLE_COLLECT marks and dumped as a
// part of its own. Run under valgrind (outside it the marks do nothing and the program only
// checks that both libraries agree on the hits):
//   valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no --callgrind-out-file=/tmp/cg.%p ./build/release/bench/impact_mesh_instructions level_1m
//   grep -h -e '^desc: Trigger' -e '^totals' /tmp/cg.*.1 /tmp/cg.*.2   # part 1 impact, part 2 Embree
// then divide each total by the ray count the program prints. valgrind has no AVX-512, so both
// libraries run their AVX2 paths there. bench/README.md has the figures. With a second argument
// `batch`, the same rays go as one batch instead: impact's mesh_ray_cast_batch (one thread: the
// interleaved walk) against Embree's rtcIntersect1M in chunks of 1,024 (mesh_bench.cpp's
// embree/stream on incoherent rays).
#include "mesh_peers.hpp"
#include "mesh_bench_scenes.hpp"

#include <impact/batch.hpp>
#include <impact/mesh.hpp>

#include <valgrind/callgrind.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  const bool terrain = argc > 1 && std::strcmp(argv[1], "terrain_1m") == 0;
  const bool batch = argc > 2 && std::strcmp(argv[2], "batch") == 0;
  if ((argc > 1 && !terrain && std::strcmp(argv[1], "level_1m") != 0) || (argc > 2 && !batch)) {
    std::fprintf(stderr, "usage: %s [level_1m|terrain_1m] [batch]\n", argv[0]);
    return 2;
  }
  constexpr int kRays = impact_bench::kMeshRays;
  using impact::Vec3;
  using impact_bench::SegmentDesc;
  const int which = terrain ? 0 : 1;  // the seeds of mesh_bench.cpp's single-ray benchmarks
  const impact_scenes::MeshData d = impact_bench::bench_mesh(which);
  const std::vector<SegmentDesc> rays = impact_bench::bench_rays(which, terrain ? 1 : 2);
  const auto mesh = impact_scenes::to_mesh<float>(d, {.split = impact::MeshSplit::sah});
  const impact_bench::EmbreePeer embree(impact_bench::mesh_desc(d));
  std::vector<float> ours(kRays), theirs(kRays);
  for (int i = 0; i < kRays; ++i) {  // a first pass of each, outside the count (first touches)
    std::uint32_t tri = 0;
    theirs[static_cast<std::size_t>(i)] = embree.ray(rays[static_cast<std::size_t>(i)], tri);
  }
  // The batch's inputs and outputs, set up outside the counts.
  using RowsF = Eigen::Matrix<float, Eigen::Dynamic, 3, Eigen::RowMajor>;
  RowsF origins(kRays, 3), paths(kRays, 3);
  for (int i = 0; i < kRays; ++i)
    for (int k = 0; k < 3; ++k) {
      origins(i, k) = rays[static_cast<std::size_t>(i)].origin[static_cast<std::size_t>(k)];
      paths(i, k) = rays[static_cast<std::size_t>(i)].path[static_cast<std::size_t>(k)];
    }
  std::vector<std::uint8_t> status(kRays);
  Eigen::VectorXf lambdas(kRays);
  constexpr std::size_t kChunk = 1024;
  std::vector<unsigned char> scratch;
  const impact::MeshRayOptions<float> opt{.back_faces = impact::BackFaces::collide};
  if (batch) embree.rays_stream(rays.data(), kChunk, false, theirs.data(), scratch);  // its scratch sized outside the count
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_TOGGLE_COLLECT;
  if (batch) {
    impact::MeshRayRows<float> out{status, impact::ColumnOut<float>(lambdas.data(), kRays)};
    (void)impact::mesh_ray_cast_batch<float>(mesh, {origins.data(), kRays, 3}, {paths.data(), kRays, 3}, opt, out, {.threads = 1});
    for (int i = 0; i < kRays; ++i)
      ours[static_cast<std::size_t>(i)] = status[static_cast<std::size_t>(i)] == std::uint8_t(impact::Status::hit) ? lambdas[i] : -1.0f;
  } else {
    for (int i = 0; i < kRays; ++i) {
      const SegmentDesc& r = rays[static_cast<std::size_t>(i)];
      const auto h = impact::mesh_ray_cast(mesh, impact::Ray<float>{Vec3<float>(r.origin[0], r.origin[1], r.origin[2]),
                                                                     Vec3<float>(r.path[0], r.path[1], r.path[2])},
                                           opt);
      ours[static_cast<std::size_t>(i)] = h.status == impact::Status::hit ? h.lambda : -1.0f;
    }
  }
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS_AT(batch ? "impact mesh_ray_cast_batch" : "impact mesh_ray_cast");
  CALLGRIND_TOGGLE_COLLECT;
  if (batch) {
    for (std::size_t at = 0; at < kRays; at += kChunk)
      embree.rays_stream(rays.data() + at, std::min<std::size_t>(kChunk, kRays - at), false, theirs.data() + at, scratch);
  } else {
    for (int i = 0; i < kRays; ++i) {
      std::uint32_t tri = 0;
      theirs[static_cast<std::size_t>(i)] = embree.ray(rays[static_cast<std::size_t>(i)], tri);
    }
  }
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS_AT(batch ? "embree rtcIntersect1M" : "embree rtcIntersect1");
  int hits = 0, agree = 0;
  for (int i = 0; i < kRays; ++i) {
    const float a = ours[static_cast<std::size_t>(i)], b = theirs[static_cast<std::size_t>(i)];
    hits += a >= 0;
    agree += (a < 0) == (b < 0) && (a < 0 || std::abs(a - b) <= 1e-4f);
  }
  std::printf("%s: %d rays, %d hit, Embree agrees on %d%s\n", terrain ? "terrain_1m" : "level_1m", kRays, hits, agree,
              impact_bench::EmbreePeer::available() ? "" : " (Embree not built: its loop counts nothing)");
  return 0;
}
