// impact benchmarks — mesh_bench.cpp: triangle meshes (issue 5) against Embree and Bullet.
//
// Meshes (tests/support/mesh_scenes.hpp, shared with the tests):
// - terrain_1m: a 708×708 height field over [-100, 100]² (1,002,528 triangles, heights ±6.5).
// - level_1m: 20 rooms of 8×8×4 in a row with doorways, 70×70 quads per face, fronts inward
//   (1,048,320 triangles) — the Red Faction kind of level, as one mesh.
// Rays: 4096 seeded segments per mesh (terrain: from 5–30 above to a random point below the
// ground; level: from a random point inside the level, up to 16 long), cycled through. Every
// library answers the nearest hit along the whole segment with both faces colliding (Embree's and
// Bullet's default), so all do the same work. Sphere sweeps: the same segments, radius 0.25.
//
// impact/float/sah is the float mesh built with MeshSplit::sah instead of Schroeder's halving;
// impact/float/sah/no_normal the same rays with MeshRayOptions::normal off: the nearest hit's λ,
// point and triangle without its unit normal (a square root and a division in double, about 10 ns
// a hit), the work Embree's rtcIntersect1 does (its Ng is the unnormalised cross product its
// test computes anyway).
// Names: mesh_ray_cast/MESH/LIBRARY, mesh_sphere_cast/MESH/LIBRARY, mesh_build/MESH/impact,
// room_rebuild/LEVEL/impact (one room after a carve) and room_rebuild/LEVEL/impact/all_rooms
// (every room of the level). Ray benchmarks run on 1 and 2 threads (real time; items/s summed).
// The scenes are built on first use, and a cross-check of the three libraries' answers is printed
// to stderr before the first timing.
//
// Batches (issue 19): mesh_ray_batch/MESH_camera and MESH_random, 65,536 rays an iteration (a
// 256×256 pinhole camera at one origin, or 65,536 distinct random segments drawn as above), through
// impact::mesh_ray_cast_batch (`impact`: the float mesh with SAH bins, as Embree's float BVH;
// `impact/double`: the default double mesh), Embree's stream call rtcIntersect1M
// (`embree/stream`, in chunks of 1,024 rays, the context flagged coherent for the camera) and
// Embree's rtcIntersect1 in a loop (`embree/single`); `threads:N` is the size of a oneTBB arena
// the batch is split in (impact's own BatchOptions::threads; Embree's chunks by the same arena).
#include "mesh_bench.hpp"

#include "mesh_peers.hpp"
#include "mesh_bench_scenes.hpp"
#include "mesh_scenes.hpp"

#include <impact/batch.hpp>
#include <impact/level.hpp>
#include <impact/mesh.hpp>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <random>

namespace impact_bench {
namespace {

using impact::Vec3;
using V = Vec3<double>;

constexpr int kRays = kMeshRays;  // mesh_bench_scenes.hpp
constexpr float kSphereRadius = 0.25f;

struct MeshScene {
  std::string name;
  impact_scenes::MeshData data;
  impact::TriangleMesh<double> md;
  impact::TriangleMesh<float> mf;
  impact::TriangleMesh<float> mf_sah;  // the same mesh with MeshSplit::sah bins
  MeshDesc desc;
  std::vector<SegmentDesc> rays;
  std::unique_ptr<EmbreePeer> embree;
  std::unique_ptr<BulletMeshPeer> bullet;
};

void finish(MeshScene& s) {
  s.md = impact_scenes::to_mesh<double>(s.data);
  s.mf = impact_scenes::to_mesh<float>(s.data);
  s.mf_sah = impact_scenes::to_mesh<float>(s.data, {.split = impact::MeshSplit::sah});
  s.desc = mesh_desc(s.data);
  s.embree = std::make_unique<EmbreePeer>(s.desc);
  s.bullet = std::make_unique<BulletMeshPeer>(s.desc);
  // Cross-check: the three libraries (impact in float, like the peers) on the first 2000 rays.
  int hits = 0, embree_agree = 0, bullet_agree = 0, sphere_hits = 0, sphere_agree = 0;
  for (int i = 0; i < 2000; ++i) {
    const SegmentDesc& r = s.rays[static_cast<std::size_t>(i)];
    const Vec3<float> o(r.origin[0], r.origin[1], r.origin[2]), d(r.path[0], r.path[1], r.path[2]);
    const auto h = impact::mesh_ray_cast(s.mf, impact::Ray<float>{o, d}, {.back_faces = impact::BackFaces::collide});
    const float mine = h.status == impact::Status::hit ? h.lambda : -1.0f;
    std::uint32_t tri = 0;
    const float e = s.embree->ray(r, tri), b = s.bullet->ray(r);
    auto same = [&](float x) { return (x < 0) == (mine < 0) && (mine < 0 || std::abs(x - mine) <= 1e-4f); };
    hits += mine >= 0;
    embree_agree += same(e);
    bullet_agree += same(b);
    if (i < 500) {
      const auto sh = impact::mesh_sphere_cast(s.mf, o, kSphereRadius, d, {.back_faces = impact::BackFaces::collide});
      const float ms = sh.status == impact::Status::hit ? sh.toi : sh.status == impact::Status::initially_overlapping ? 0.f : -1.f;
      const float bs = s.bullet->sphere_sweep(r, kSphereRadius);
      sphere_hits += ms >= 0;
      const bool agree = (bs < 0) == (ms < 0) && (ms < 0 || std::abs(bs - ms) <= 2e-3f);
      sphere_agree += agree;
      if (!agree && std::getenv("IMPACT_BENCH_SHOW_DISAGREEMENTS"))
        std::cerr << "  sweep " << i << ": impact " << ms << " (" << impact::to_string(sh.status) << "), bullet " << bs
                  << "\n";
    }
  }
  std::cerr << "mesh cross-check " << s.name << " (" << s.data.triangles.size() << " triangles, tree depth "
            << s.md.depth() << "): rays hit " << hits << "/2000; embree agrees on "
            << (EmbreePeer::available() ? std::to_string(embree_agree) : std::string("- (not built)"))
            << ", bullet on " << bullet_agree << " (|Δt| ≤ 1e-4); sphere sweeps hit " << sphere_hits
            << "/500, bullet agrees on " << sphere_agree << " (|Δt| ≤ 2e-3)\n";
}

MeshScene& scene(int which) {
  static std::once_flag once[2];
  static MeshScene scenes[2];
  std::call_once(once[which], [which] {
    MeshScene& s = scenes[which];
    s.name = which == 0 ? "terrain_1m" : "level_1m";
    s.data = bench_mesh(which);
    s.rays = bench_rays(which, which == 0 ? 1 : 2);
    finish(s);
  });
  return scenes[which];
}

Vec3<double> o_of(const SegmentDesc& r) { return {r.origin[0], r.origin[1], r.origin[2]}; }
Vec3<double> p_of(const SegmentDesc& r) { return {r.path[0], r.path[1], r.path[2]}; }

enum class Lib { impact_double, impact_float, impact_float_sah, impact_float_sah_no_normal, embree, bullet };

void bm_ray(benchmark::State& st, int which, Lib lib) {
  MeshScene& s = scene(which);
  std::vector<impact::Ray<double>> rd;
  std::vector<impact::Ray<float>> rf;
  for (const auto& r : s.rays) {
    rd.push_back({o_of(r), p_of(r)});
    rf.push_back({o_of(r).cast<float>(), p_of(r).cast<float>()});
  }
  std::size_t i = static_cast<std::size_t>(st.thread_index()) * 977;
  for (auto _ : st) {
    const std::size_t k = i++ % kRays;
    switch (lib) {
      case Lib::impact_double:
        benchmark::DoNotOptimize(impact::mesh_ray_cast(s.md, rd[k], {.back_faces = impact::BackFaces::collide}).lambda);
        break;
      case Lib::impact_float:
        benchmark::DoNotOptimize(impact::mesh_ray_cast(s.mf, rf[k], {.back_faces = impact::BackFaces::collide}).lambda);
        break;
      case Lib::impact_float_sah:
        benchmark::DoNotOptimize(impact::mesh_ray_cast(s.mf_sah, rf[k], {.back_faces = impact::BackFaces::collide}).lambda);
        break;
      case Lib::impact_float_sah_no_normal:
        benchmark::DoNotOptimize(
            impact::mesh_ray_cast(s.mf_sah, rf[k], {.back_faces = impact::BackFaces::collide, .normal = false}).lambda);
        break;
      case Lib::embree: {
        std::uint32_t t;
        benchmark::DoNotOptimize(s.embree->ray(s.rays[k], t));
        break;
      }
      case Lib::bullet: benchmark::DoNotOptimize(s.bullet->ray(s.rays[k])); break;
    }
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()));
}

void bm_sphere(benchmark::State& st, int which, Lib lib) {
  MeshScene& s = scene(which);
  std::size_t i = static_cast<std::size_t>(st.thread_index()) * 977;
  for (auto _ : st) {
    const SegmentDesc& r = s.rays[i++ % kRays];
    switch (lib) {
      case Lib::impact_double:
        benchmark::DoNotOptimize(impact::mesh_sphere_cast(s.md, o_of(r), double(kSphereRadius), p_of(r),
                                                          {.back_faces = impact::BackFaces::collide}).toi);
        break;
      case Lib::impact_float:
        benchmark::DoNotOptimize(impact::mesh_sphere_cast(s.mf, Vec3<float>(o_of(r).cast<float>()), kSphereRadius,
                                                          Vec3<float>(p_of(r).cast<float>()),
                                                          {.back_faces = impact::BackFaces::collide}).toi);
        break;
      case Lib::impact_float_sah:
        benchmark::DoNotOptimize(impact::mesh_sphere_cast(s.mf_sah, Vec3<float>(o_of(r).cast<float>()), kSphereRadius,
                                                          Vec3<float>(p_of(r).cast<float>()),
                                                          {.back_faces = impact::BackFaces::collide}).toi);
        break;
      case Lib::bullet: benchmark::DoNotOptimize(s.bullet->sphere_sweep(r, kSphereRadius)); break;
      case Lib::impact_float_sah_no_normal:  // a ray variant (not registered for spheres)
      case Lib::embree: break;
    }
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()));
}

void bm_build(benchmark::State& st, int which, bool as_float, impact::MeshSplit split) {
  MeshScene& s = scene(which);
  impact::TriangleMesh<double> md = s.md;
  impact::TriangleMesh<float> mf = s.mf;
  for (auto _ : st) {
    if (as_float) benchmark::DoNotOptimize(impact::build_mesh(mf, {.split = split}));
    else benchmark::DoNotOptimize(impact::build_mesh(md, {.split = split}));
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * static_cast<std::int64_t>(s.data.triangles.size())));
}

constexpr int kBatchSide = 256;
constexpr int kBatch = kBatchSide * kBatchSide;

/// The batch rays of a mesh: a camera (one origin, a 256×256 grid of directions, row by row) or
/// kBatch random segments drawn like the single-ray benchmark's.
const std::vector<SegmentDesc>& batch_rays(int which, bool camera) {
  static std::once_flag once[2][2];
  static std::vector<SegmentDesc> rays[2][2];
  std::call_once(once[which][camera], [&] {
    std::vector<SegmentDesc>& out = rays[which][camera];
    if (!camera) {
      // kBatch distinct rays drawn like the scene's (until 2026-11-28 its 4,096 cycled 16 times:
      // a batch sorted into coherent groups would then have found each ray's 15 copies beside it).
      out = bench_rays(which, which == 0 ? 101 : 102, kBatch);
      return;
    }
    // terrain: from 30 above one corner region, looking down the diagonal; level: from inside room 3,
    // looking down the row of rooms. A 90° field of view, rays 200 (terrain) or 60 (level) long.
    const V eye = which == 0 ? V(-80, -80, 30) : V(26, 4, 2);
    const V ahead = which == 0 ? V(1, 1, -0.6).normalized() : V(1, 0.05, 0.02).normalized();
    const V right = ahead.cross(V(0, 0, 1)).normalized(), up = right.cross(ahead);
    const double length = which == 0 ? 200 : 60;
    for (int y = 0; y < kBatchSide; ++y)
      for (int x = 0; x < kBatchSide; ++x) {
        const double u = (x + 0.5) / kBatchSide * 2 - 1, v = (y + 0.5) / kBatchSide * 2 - 1;
        const V d = (ahead + u * right + v * up).normalized() * length;
        out.push_back({{float(eye.x()), float(eye.y()), float(eye.z())}, {float(d.x()), float(d.y()), float(d.z())}});
      }
  });
  return rays[which][camera];
}

enum class BatchLib { impact_float_sah, impact_double, embree_stream, embree_single };

void bm_ray_batch(benchmark::State& st, int which, bool camera, BatchLib lib, int threads) {
  MeshScene& s = scene(which);
  const std::vector<SegmentDesc>& rays = batch_rays(which, camera);
  const auto n = static_cast<Eigen::Index>(rays.size());
  Eigen::Matrix<float, Eigen::Dynamic, 3, Eigen::RowMajor> of(n, 3), pf(n, 3);
  for (Eigen::Index i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      of(i, k) = rays[static_cast<std::size_t>(i)].origin[static_cast<std::size_t>(k)];
      pf(i, k) = rays[static_cast<std::size_t>(i)].path[static_cast<std::size_t>(k)];
    }
  const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> od = of.cast<double>(), pd = pf.cast<double>();
  std::vector<std::uint8_t> status(rays.size());
  std::vector<std::uint32_t> tri(rays.size());
  Eigen::VectorXf lf(n);
  Eigen::VectorXd ld(n);
  std::vector<float> te(rays.size());
  constexpr std::size_t kChunk = 1024;
  std::vector<std::vector<unsigned char>> scratch(rays.size() / kChunk + 1);
  tbb::task_arena arena(threads);
  const impact::MeshRayOptions<float> optf{.max_lambda = 1.0f, .back_faces = impact::BackFaces::collide};
  const impact::MeshRayOptions<double> optd{.max_lambda = 1.0, .back_faces = impact::BackFaces::collide};
  for (auto _ : st) {
    switch (lib) {
      case BatchLib::impact_float_sah: {
        impact::MeshRayRows<float> out{status, impact::ColumnOut<float>(lf.data(), n)};
        out.triangle = tri;
        benchmark::DoNotOptimize(impact::mesh_ray_cast_batch<float>(s.mf_sah, {of.data(), n, 3}, {pf.data(), n, 3}, optf,
                                                                    out, {.threads = threads}));
        break;
      }
      case BatchLib::impact_double: {
        impact::MeshRayRows<double> out{status, impact::ColumnOut<double>(ld.data(), n)};
        out.triangle = tri;
        benchmark::DoNotOptimize(impact::mesh_ray_cast_batch<double>(s.md, {od.data(), n, 3}, {pd.data(), n, 3}, optd,
                                                                     out, {.threads = threads}));
        break;
      }
      case BatchLib::embree_stream:
        arena.execute([&] {
          tbb::parallel_for(tbb::blocked_range<std::size_t>(0, rays.size(), kChunk), [&](const tbb::blocked_range<std::size_t>& r) {
            s.embree->rays_stream(rays.data() + r.begin(), r.size(), camera, te.data() + r.begin(), scratch[r.begin() / kChunk]);
          });
        });
        break;
      case BatchLib::embree_single:
        arena.execute([&] {
          tbb::parallel_for(tbb::blocked_range<std::size_t>(0, rays.size(), 64), [&](const tbb::blocked_range<std::size_t>& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) te[i] = s.embree->ray(rays[i], tri[i]);
          });
        });
        break;
    }
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * n);
  st.counters["ns_per_ray"] = benchmark::Counter(static_cast<double>(st.iterations()) * static_cast<double>(n),
                                                 benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// The 20-room level of the room benchmarks: 32×32 quads per face (about 24,000 triangles a room),
/// one carve through the wall between rooms 7 and 8.
impact::Level<double>& rebuild_level() {
  static std::once_flag once;
  static impact::Level<double> L;
  std::call_once(once, [] {
    const auto d = impact_scenes::level(20, 32);
    L.rooms.resize(20);
    for (std::size_t r = 0; r < 20; ++r) {
      L.rooms[r].mesh.vertices = d.mesh.vertices;
      L.rooms[r].cell_lo = d.cells[r].first;
      L.rooms[r].cell_hi = d.cells[r].second;
    }
    for (std::size_t i = 0; i < d.mesh.triangles.size(); ++i) L.rooms[d.room_of[i]].mesh.triangles.push_back(d.mesh.triangles[i]);
    (void)impact::build_level(L);
    const auto rep = impact::carve(L, V(64, 1.5, 2.0), 0.75);
    std::cerr << "room_rebuild level20: " << d.mesh.triangles.size() << " triangles in 20 rooms; the carve removed";
    for (std::size_t i = 0; i < rep.rooms.size(); ++i)
      std::cerr << " " << rep.removed[i] << " from room " << rep.rooms[i] << " (rebuilt in " << rep.rebuild_seconds[i] * 1e3 << " ms)";
    std::cerr << "\n";
  });
  return L;
}

void bm_room_rebuild(benchmark::State& st, bool all_rooms) {
  impact::Level<double>& L = rebuild_level();
  for (auto _ : st) {
    if (all_rooms) {
      for (auto& r : L.rooms) benchmark::DoNotOptimize(impact::build_mesh(r.mesh, L.build));
    } else {
      benchmark::DoNotOptimize(impact::build_mesh(L.rooms[7].mesh, L.build));
    }
  }
}

}  // namespace

void register_mesh_benchmarks() {
  const char* meshes[] = {"terrain_1m", "level_1m"};
  for (int w = 0; w < 2; ++w) {
    const std::string m = meshes[w];
    for (int threads : {1, 2}) {
      auto reg = [&](const std::string& lib, Lib l) {
        benchmark::RegisterBenchmark(("mesh_ray_cast/" + m + "/" + lib).c_str(), bm_ray, w, l)->Threads(threads)->UseRealTime();
      };
      reg("impact", Lib::impact_double);
      reg("impact/float", Lib::impact_float);
      reg("impact/float/sah", Lib::impact_float_sah);
      reg("impact/float/sah/no_normal", Lib::impact_float_sah_no_normal);
      if (EmbreePeer::available()) reg("embree", Lib::embree);
      reg("bullet", Lib::bullet);
    }
    benchmark::RegisterBenchmark(("mesh_sphere_cast/" + m + "/impact").c_str(), bm_sphere, w, Lib::impact_double);
    benchmark::RegisterBenchmark(("mesh_sphere_cast/" + m + "/impact/float").c_str(), bm_sphere, w, Lib::impact_float);
    benchmark::RegisterBenchmark(("mesh_sphere_cast/" + m + "/impact/float/sah").c_str(), bm_sphere, w, Lib::impact_float_sah);
    benchmark::RegisterBenchmark(("mesh_sphere_cast/" + m + "/bullet").c_str(), bm_sphere, w, Lib::bullet);
    benchmark::RegisterBenchmark(("mesh_build/" + m + "/impact").c_str(), bm_build, w, false, impact::MeshSplit::middle)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("mesh_build/" + m + "/impact/float").c_str(), bm_build, w, true, impact::MeshSplit::middle)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("mesh_build/" + m + "/impact/float/sah").c_str(), bm_build, w, true, impact::MeshSplit::sah)->Unit(benchmark::kMillisecond);
  }
  for (int w = 0; w < 2; ++w)
    for (bool camera : {true, false})
      for (int threads : {1, 2}) {
        const std::string base = std::string("mesh_ray_batch/") + meshes[w] + (camera ? "_camera/" : "_random/");
        const std::string suffix = "/threads:" + std::to_string(threads);
        auto reg = [&](const std::string& lib, BatchLib l) {
          benchmark::RegisterBenchmark((base + lib + suffix).c_str(), bm_ray_batch, w, camera, l, threads)
              ->Unit(benchmark::kMillisecond)
              ->UseRealTime();
        };
        reg("impact", BatchLib::impact_float_sah);
        reg("impact/double", BatchLib::impact_double);
        if (EmbreePeer::available()) {
          reg("embree/stream", BatchLib::embree_stream);
          reg("embree/single", BatchLib::embree_single);
        }
      }
  benchmark::RegisterBenchmark("room_rebuild/level20/impact", bm_room_rebuild, false)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("room_rebuild/level20/impact/all_rooms", bm_room_rebuild, true)->Unit(benchmark::kMillisecond);
}

}  // namespace impact_bench
