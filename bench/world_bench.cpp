// impact benchmarks — world_bench.cpp: World<double>::step against Bullet on the same scenes and
// the same steps (issue 18, item 6). Scenes: world_scenes.hpp. Bullet: world_peers.hpp.
//
// Names world_step/SCENE/LIBRARY[/VARIANT]:
//   world_step/SCENE/impact/threads:1 and /threads:2   World<double>::step, WorldStepOptions::threads
//   world_step/SCENE/impact/tol1e-3/threads:1           the same with WorldStepOptions::tolerance 1e-3
//                                                       (Bullet's 0.001 stop distance)
//   world_step/SCENE/bullet/continuous                  btDbvtBroadphase + btContinuousConvexCollision
//   world_step/SCENE/bullet/swept_sphere                Bullet's own CCD (a swept sphere per body)
// One iteration is one step; every run does each of the scene's 24 steps once (Iterations(24)),
// so every library sees exactly the same steps. Times are wall-clock (UseRealTime: the narrow
// phase runs on oneTBB workers), in ms per step. Counters are per step: broad_ms, narrow_ms,
// pairs (body pairs handed to the narrow phase; swept_sphere: sweeps), piece_pairs (impact),
// toi_calls (time_of_impact calls; Bullet's calcTimeOfImpact or convexSweepTest calls), events
// (body pairs with a contact), gave_up (Bullet's reportFailure: an interval answered "no impact").
// Scenes are built on first use (outside the timed loop), so a filter that leaves a scene out
// costs nothing. The contacts each variant misses are counted by impact_world_stats
// (world_stats.cpp), not here.
//
// What two threads can give on the machine, in the same run (no impact code):
//   machine/sqrt_loop/threads:N         a dependent chain of square roots per thread (compute)
//   machine/random_reads_16mb/threads:N random 8-byte reads of a 16 MB array per thread (memory)
// items_per_second of threads:2 over threads:1 is the machine's scaling for that kind of work;
// the world steps' 2 ÷ 1 is to be read against it.
#include "world_peers.hpp"
#include "world_scenes.hpp"

#include <impact/world.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace impact_bench {
namespace {

struct Cached {
  std::unique_ptr<WorldScene> scene;
  std::unique_ptr<BulletWorldPeer> bullet;
};

std::map<std::string, Cached>& cache() {
  static std::map<std::string, Cached> c;
  return c;
}

WorldScene& scene(const std::string& name) {
  Cached& c = cache()[name];
  if (!c.scene) {
    c.scene = make_world_scene(name);
    std::size_t triangles = c.scene->mesh ? c.scene->mesh->triangles.size() : 0;
    std::fprintf(stderr, "[scene %s: %zu bodies, a static mesh of %zu triangles, %zu steps]\n", name.c_str(),
                 c.scene->bodies.size(), triangles, c.scene->motions.size());
  }
  return *c.scene;
}

BulletWorldPeer& bullet(const std::string& name) {
  WorldScene& s = scene(name);
  Cached& c = cache()[name];
  if (!c.bullet) c.bullet = std::make_unique<BulletWorldPeer>(s.desc);
  return *c.bullet;
}

void set_counters(benchmark::State& state, double n, double broad, double narrow, double pairs, double piece_pairs,
                  double toi, double events, double gave_up) {
  state.counters["broad_ms"] = 1e3 * broad / n;
  state.counters["narrow_ms"] = 1e3 * narrow / n;
  state.counters["pairs"] = pairs / n;
  if (piece_pairs >= 0) state.counters["piece_pairs"] = piece_pairs / n;
  state.counters["toi_calls"] = toi / n;
  state.counters["events"] = events / n;
  if (gave_up >= 0) state.counters["gave_up"] = gave_up / n;
}

void bm_impact(benchmark::State& state, const std::string& name, int threads, double tolerance) {
  WorldScene& s = scene(name);
  impact::World<double> world;
  const std::string err = world.edit({}, s.bodies);
  if (!err.empty()) {
    state.SkipWithError(("world edit: " + err).c_str());
    return;
  }
  impact::WorldStepOptions<double> opt;
  opt.threads = threads;
  if (tolerance > 0) opt.tolerance = tolerance;
  std::size_t k = 0;
  double broad = 0, narrow = 0, pairs = 0, piece_pairs = 0, toi = 0, events = 0;
  for (auto _ : state) {
    const auto r = world.step(s.motions[k % s.motions.size()], opt);
    if (!r.ok()) {
      state.SkipWithError(("step: " + r.error).c_str());
      break;
    }
    broad += r.stats.broad_seconds;
    narrow += r.stats.narrow_seconds;
    pairs += double(r.stats.pairs_tested);
    piece_pairs += double(r.stats.piece_pairs);
    toi += double(r.stats.toi_calls);
    events += double(r.events.size());
    ++k;
  }
  set_counters(state, double(k ? k : 1), broad, narrow, pairs, piece_pairs, toi, events, -1);
}

void bm_bullet(benchmark::State& state, const std::string& name, bool continuous) {
  WorldScene& s = scene(name);
  BulletWorldPeer& peer = bullet(name);
  WorldPeerStep out;
  std::size_t k = 0;
  double broad = 0, narrow = 0, pairs = 0, toi = 0, events = 0, gave_up = 0;
  for (auto _ : state) {
    const std::size_t step = k % s.motions.size();
    if (continuous) peer.continuous(step, out);
    else peer.swept_sphere(step, out);
    broad += out.broad_seconds;
    narrow += out.narrow_seconds;
    pairs += double(out.pairs);
    toi += double(out.toi_calls);
    events += double(out.hits.size());
    gave_up += double(out.gave_up);
    ++k;
  }
  set_counters(state, double(k ? k : 1), broad, narrow, pairs, -1, toi, events, continuous ? gave_up : -1);
}

/// The machine's own two-thread scaling (see the top of this file): each thread runs the same
/// work; Google Benchmark's threads:N runs N copies at once.
void bm_sqrt_loop(benchmark::State& state) {
  double x = 1.0;
  for (auto _ : state) {
    for (int i = 0; i < 4096; ++i) x = std::sqrt(x * 1.0000001 + 1.0);
    benchmark::DoNotOptimize(x);
  }
  state.SetItemsProcessed(state.iterations() * 4096);
}

void bm_random_reads(benchmark::State& state) {
  static const std::vector<std::uint64_t> buffer(std::size_t(1) << 21, 1);  // 16 MB, shared
  std::uint64_t x = 0x9e3779b97f4a7c15ull + std::uint64_t(state.thread_index()), sum = 0;
  for (auto _ : state) {
    for (int i = 0; i < 4096; ++i) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      sum += buffer[(x >> 40) & (buffer.size() - 1)];
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * 4096);
}

}  // namespace
}  // namespace impact_bench

int main(int argc, char** argv) {
  using namespace impact_bench;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  constexpr int kSteps = 24;  // every scene has 24 steps: one run is one pass over them
  for (const std::string& name : world_scene_names()) {
    const std::string base = "world_step/" + name + "/";
    for (int threads : {1, 2})
      benchmark::RegisterBenchmark((base + "impact/threads:" + std::to_string(threads)).c_str(),
                                   [name, threads](benchmark::State& st) { bm_impact(st, name, threads, 0); })
          ->Iterations(kSteps)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    // Bullet's btContinuousConvexCollision stops 0.001 from contact (absolute): impact with that
    // tolerance is the accuracy-matched comparison (as distance/*/impact/rel1e-6 is for GJK).
    benchmark::RegisterBenchmark((base + "impact/tol1e-3/threads:1").c_str(),
                                 [name](benchmark::State& st) { bm_impact(st, name, 1, 1e-3); })
        ->Iterations(kSteps)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((base + "bullet/continuous").c_str(),
                                 [name](benchmark::State& st) { bm_bullet(st, name, true); })
        ->Iterations(kSteps)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((base + "bullet/swept_sphere").c_str(),
                                 [name](benchmark::State& st) { bm_bullet(st, name, false); })
        ->Iterations(kSteps)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("machine/sqrt_loop", bm_sqrt_loop)->Threads(1)->Threads(2)->UseRealTime();
  benchmark::RegisterBenchmark("machine/random_reads_16mb", bm_random_reads)->Threads(1)->Threads(2)->UseRealTime();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
