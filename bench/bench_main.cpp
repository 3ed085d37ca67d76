// impact benchmarks — bench_main.cpp: impact against Bullet, FCL and libccd on shared scenes.
//
// Benchmarks are named QUERY/PAIR/LIBRARY[/VARIANT]; one iteration is one query, cycling
// through the pair's cases (scenes.hpp). Before timing, a cross-check (not timed) compares every
// library's answers with impact's, so that a misconfigured peer is seen before its figures are
// believed. After timing, a table gives ns/query (CPU time; the median when repetitions are
// asked for) and each library's time divided by impact's (> 1: impact is faster). With
// --benchmark_format=json, stdout carries only the benchmark library's output and the
// cross-check and table go to stderr.
#include "batch_bench.hpp"
#include "bench_cast.hpp"
#include "bench_toi.hpp"
#include "mesh_bench.hpp"
#include "peers.hpp"
#include "scenes.hpp"

#include "detail/gjk.hpp"  // impact::gjk_distance on concrete shapes (the kernel, below the API)

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace impact_bench {
namespace {

// ---- what each pair's benchmarks run on ----

/// A pair's cases as concrete core types with prebuilt transforms: what `impact/core` times,
/// i.e. impact's GJK without validation, variant dispatch and quaternion-to-matrix conversion.
template <class A, class B>
struct CoreCases {
  std::vector<const A*> a;
  std::vector<const B*> b;
  std::vector<double> ra, rb;
  std::vector<impact::Transform<double>> ta, tb;
};

template <class C>
void core_of(const impact::Shape<double>& s, const C*& core, double& radius) {
  static const impact::Point<double> kPoint{};
  if constexpr (std::is_same_v<C, impact::Point<double>>) {
    core = &kPoint;
    radius = std::get<impact::Sphere<double>>(s.variant()).radius;
  } else {
    core = &std::get<C>(s.variant());
    radius = 0;
  }
}

template <class A, class B>
CoreCases<A, B> make_core(const Scene<double>& scene) {
  CoreCases<A, B> c;
  for (const auto& k : scene.cases) {
    const A* a;
    const B* b;
    double ra, rb;
    core_of(scene.shapes[k.a], a, ra);
    core_of(scene.shapes[k.b], b, rb);
    c.a.push_back(a);
    c.b.push_back(b);
    c.ra.push_back(ra);
    c.rb.push_back(rb);
    c.ta.emplace_back(k.pose_a);
    c.tb.emplace_back(k.pose_b);
  }
  return c;
}

struct PairData {
  Pair pair;
  Scene<double> scene;
  Scene<float> scene_f;
  SceneDesc desc;
  std::unique_ptr<BulletPeer> bullet;
  std::unique_ptr<FclPeer> fcl_libccd, fcl_indep;
  std::unique_ptr<CcdPeer> ccd;
};

constexpr std::size_t kMask = kCases - 1;
static_assert((kCases & kMask) == 0, "kCases must be a power of two");

// ---- timed loops ----

/// GJK options of the `impact/rel1e-6` variant: Bullet's termination rule. btGjkPairDetector stops
/// when ||v||² − v·w ≤ 1e-6·||v||² (REL_ERROR2), which is impact's relative test with 1e-6
/// instead of impact's double default 1e-12: the accuracy-matched comparison with Bullet.
const impact::GjkOptions<double> kBulletLikeOptions{.relative_tolerance = 1e-6};

template <class S, bool Distance>
void bm_impact_with(benchmark::State& state, const Scene<S>* scene, const impact::GjkOptions<S>* options) {
  const impact::GjkOptions<S> opt = options ? *options : impact::GjkOptions<S>{};
  std::size_t i = 0;
  const auto& shapes = scene->shapes;
  const auto& cases = scene->cases;
  for (auto _ : state) {
    const Case<S>& c = cases[i];
    if constexpr (Distance) {
      auto r = impact::distance(shapes[c.a], c.pose_a, shapes[c.b], c.pose_b, opt);
      benchmark::DoNotOptimize(r.distance);
    } else {
      auto r = impact::intersect(shapes[c.a], c.pose_a, shapes[c.b], c.pose_b, opt);
      benchmark::DoNotOptimize(r.status);
    }
    i = (i + 1) & kMask;
  }
}

template <class S, bool Distance>
void bm_impact(benchmark::State& state, const Scene<S>* scene) {
  bm_impact_with<S, Distance>(state, scene, nullptr);
}

template <bool Distance, class A, class B>
void bm_impact_core(benchmark::State& state, const CoreCases<A, B>* c) {
  std::size_t i = 0;
  for (auto _ : state) {
    if constexpr (Distance) {
      auto r = impact::gjk_distance<double>(*c->a[i], c->ra[i], c->ta[i], *c->b[i], c->rb[i], c->tb[i]);
      benchmark::DoNotOptimize(r.distance);
    } else {
      auto r = impact::gjk_intersect<double>(*c->a[i], c->ra[i], c->ta[i], *c->b[i], c->rb[i], c->tb[i]);
      benchmark::DoNotOptimize(r.status);
    }
    i = (i + 1) & kMask;
  }
}

template <class Peer, PeerAnswer (Peer::*Query)(std::size_t) const>
void bm_peer(benchmark::State& state, const Peer* peer) {
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = (peer->*Query)(i);
    benchmark::DoNotOptimize(r);
    i = (i + 1) & kMask;
  }
}

enum class SupportMode { scan, climb_warm, climb_cold, climb_seeded, climb_walk };

void bm_support(benchmark::State& state, const impact::Hull<double>* hull,
                const std::vector<impact::Vec3<double>>* dirs, SupportMode mode) {
  const std::size_t mask = dirs->size() - 1;
  std::size_t i = 0;
  int hint = 0;
  for (auto _ : state) {
    const auto& d = (*dirs)[i];
    impact::Vec3<double> p;
    switch (mode) {
      case SupportMode::scan: p = hull->support_scan(d, hint); break;
      case SupportMode::climb_cold: hint = 0; p = hull->support_climb(d, hint); break;     // from vertex 0
      case SupportMode::climb_seeded: hint = -1; p = hull->support_climb(d, hint); break;  // library's cold start
      case SupportMode::climb_warm:  // from the previous answer
      case SupportMode::climb_walk: p = hull->support_climb(d, hint); break;
    }
    benchmark::DoNotOptimize(p);
    i = (i + 1) & mask;
  }
}

/// A hull whose support is forced to the flat scan or to the hill climb, whatever its size: GJK
/// takes any type with support(d, hint), so this times whole queries under either strategy.
template <bool Climb>
struct ForcedHull {
  const impact::Hull<double>* hull;
  [[nodiscard]] impact::Vec3<double> support(const impact::Vec3<double>& d, int& hint) const {
    return Climb ? hull->support_climb(d, hint) : hull->support_scan(d, hint);
  }
  [[nodiscard]] impact::Vec3<double> support(const impact::Vec3<double>& d) const {
    int hint = -1;
    return support(d, hint);
  }
};

struct ForcedCases {
  Scene<double> scene;
  std::vector<impact::Transform<double>> ta, tb;
};

template <bool Climb>
void bm_gjk_forced(benchmark::State& state, const ForcedCases* c) {
  std::size_t i = 0;
  const auto& shapes = c->scene.shapes;
  const auto& cases = c->scene.cases;
  for (auto _ : state) {
    const ForcedHull<Climb> a{&std::get<impact::Hull<double>>(shapes[cases[i].a].variant())};
    const ForcedHull<Climb> b{&std::get<impact::Hull<double>>(shapes[cases[i].b].variant())};
    auto r = impact::gjk_distance<double>(a, 0.0, c->ta[i], b, 0.0, c->tb[i]);
    benchmark::DoNotOptimize(r.distance);
    i = (i + 1) & kMask;
  }
}

// ---- cross-check ----

struct Agreement {
  std::string query, library;
  int agree = 0, total = 0;
  double max_diff = 0;        // max |Δdistance| where both report separated
  double max_disagree = 0;    // largest gap (either side's distance) among disagreements
  int sides_with_intersect = 0;  // disagreements where impact's own intersect agrees with the peer
  std::vector<bool> differs;  // per case
};

void compare(Agreement& g, const std::vector<PeerAnswer>& ref, const std::vector<PeerAnswer>& peer, bool distances,
             const std::vector<PeerAnswer>* other_ref) {
  g.total = static_cast<int>(ref.size());
  g.differs.assign(ref.size(), false);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (ref[i].intersecting == peer[i].intersecting) {
      ++g.agree;
      if (distances && !ref[i].intersecting)
        g.max_diff = std::max(g.max_diff, std::abs(ref[i].distance - peer[i].distance));
    } else {
      g.differs[i] = true;
      if (other_ref && (*other_ref)[i].intersecting == peer[i].intersecting) ++g.sides_with_intersect;
      const double gap = ref[i].intersecting ? peer[i].distance : ref[i].distance;
      g.max_disagree = std::max(g.max_disagree, gap);
    }
  }
}

template <class S>
std::vector<PeerAnswer> impact_answers(const Scene<S>& s, bool distance, double* mean_iterations,
                                       const impact::GjkOptions<S>* options = nullptr) {
  const impact::GjkOptions<S> opt = options ? *options : impact::GjkOptions<S>{};
  std::vector<PeerAnswer> out;
  long iters = 0;
  for (const auto& c : s.cases) {
    PeerAnswer a;
    if (distance) {
      const auto r = impact::distance(s.shapes[c.a], c.pose_a, s.shapes[c.b], c.pose_b, opt);
      if (r.status != impact::Status::separated && r.status != impact::Status::intersecting)
        std::fprintf(stderr, "impact distance: status %s\n", std::string(impact::to_string(r.status)).c_str());
      a.intersecting = r.status == impact::Status::intersecting;
      a.distance = static_cast<double>(r.distance);
      a.iterations = r.iterations;
    } else {
      const auto r = impact::intersect(s.shapes[c.a], c.pose_a, s.shapes[c.b], c.pose_b, opt);
      if (r.status != impact::Status::separated && r.status != impact::Status::intersecting)
        std::fprintf(stderr, "impact intersect: status %s\n", std::string(impact::to_string(r.status)).c_str());
      a.intersecting = r.status == impact::Status::intersecting;
      a.iterations = r.iterations;
    }
    iters += a.iterations;
    out.push_back(a);
  }
  if (mean_iterations) *mean_iterations = double(iters) / double(out.size());
  return out;
}

template <class F>
std::vector<PeerAnswer> answers(std::size_t n, F&& f) {
  std::vector<PeerAnswer> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(f(i));
  return out;
}

void cross_check(const std::vector<std::unique_ptr<PairData>>& pairs, std::ostream& os) {
  char line[256];
  os << "Cross-check (not timed): agreement with impact (double) on intersecting/separated over " << kCases
     << " cases per pair.\n"
        "max|dd|: largest |distance difference| where both say separated. disagree gap: largest distance either\n"
        "side reported on a case they disagree on; for distance, '(impact's intersect sides with it on k)' counts the\n"
        "disagreements where impact's own intersect query answers like the peer (impact's distance is then the odd one).\n";
  for (const auto& p : pairs) {
    const std::size_t n = p->scene.cases.size();
    double it_d = 0, it_i = 0, it_b = 0;
    const auto ref_d = impact_answers(p->scene, true, &it_d);
    const auto ref_i = impact_answers(p->scene, false, &it_i);
    const int hits = static_cast<int>(std::count_if(ref_d.begin(), ref_d.end(), [](auto& a) { return a.intersecting; }));
    double it_loose = 0;
    const auto ref_loose = impact_answers(p->scene, true, &it_loose, &kBulletLikeOptions);
    const auto bullet = answers(n, [&](std::size_t i) { return p->bullet->distance(i); });
    for (const auto& a : bullet) it_b += a.iterations;
    it_b /= double(n);
    std::snprintf(line, sizeof line,
                  "\n%s: impact says %d/%zu intersecting; mean GJK iterations: impact distance %.2f (%.2f with "
                  "rel1e-6), intersect %.2f; bullet distance %.2f\n",
                  pair_name(p->pair), hits, n, it_d, it_loose, it_i, it_b);
    os << line;
    std::vector<Agreement> rows;
    auto add = [&](const char* q, std::string lib, const std::vector<PeerAnswer>& ref,
                   const std::vector<PeerAnswer>& peer, bool dist) {
      Agreement g;
      g.query = q;
      g.library = std::move(lib);
      compare(g, ref, peer, dist, std::string(q) == "distance" ? &ref_i : nullptr);
      rows.push_back(std::move(g));
    };
    add("distance", "impact/intersect", ref_d, ref_i, false);
    add("distance", "impact/float", ref_d, impact_answers(p->scene_f, true, nullptr), true);
    add("distance", "impact/rel1e-6", ref_d, ref_loose, true);
    add("distance", std::string("bullet (") + BulletPeer::scalar_name() + ")", ref_d, bullet, true);
    add("distance", "fcl (libccd)", ref_d, answers(n, [&](std::size_t i) { return p->fcl_libccd->distance(i); }), true);
    add("distance", "fcl (indep)", ref_d, answers(n, [&](std::size_t i) { return p->fcl_indep->distance(i); }), true);
    add("intersect", "impact/float", ref_i, impact_answers(p->scene_f, false, nullptr), false);
    add("intersect", "ccd (gjk)", ref_i, answers(n, [&](std::size_t i) { return p->ccd->intersect(i); }), false);
    add("intersect", "ccd (mpr)", ref_i, answers(n, [&](std::size_t i) { return p->ccd->intersect_mpr(i); }), false);
    add("intersect", "fcl (libccd)", ref_i, answers(n, [&](std::size_t i) { return p->fcl_libccd->intersect(i); }), false);
    add("intersect", "fcl (indep)", ref_i, answers(n, [&](std::size_t i) { return p->fcl_indep->intersect(i); }), false);
    for (const auto& g : rows) {
      std::snprintf(line, sizeof line, "  %-9s %-18s agree %4d/%d (%6.2f%%)", g.query.c_str(), g.library.c_str(),
                    g.agree, g.total, 100.0 * g.agree / g.total);
      os << line;
      if (g.query == "distance" && g.library != "impact/intersect") {
        std::snprintf(line, sizeof line, "  max|dd| %.2e", g.max_diff);
        os << line;
      }
      if (g.agree < g.total && g.library == "impact/intersect") {
        os << "  (the two impact queries disagree)";
      } else if (g.agree < g.total) {
        std::snprintf(line, sizeof line, "  disagree gap %.2e", g.max_disagree);
        os << line;
        if (g.query == "distance") {
          std::snprintf(line, sizeof line, " (impact's intersect sides with it on %d)", g.sides_with_intersect);
          os << line;
        }
      }
      os << "\n";
    }
    // Cases where every peer (not impact's own variants) disagrees with impact.
    for (const char* q : {"distance", "intersect"}) {
      int alone = 0, first = -1;
      for (std::size_t i = 0; i < n; ++i) {
        bool all = true, any = false;
        for (const auto& g : rows) {
          if (g.query != q || g.library.rfind("impact", 0) == 0) continue;
          any = true;
          all = all && g.differs[i];
        }
        if (any && all) {
          ++alone;
          if (first < 0) first = static_cast<int>(i);
        }
      }
      if (alone > 0) {
        const auto& r = std::string(q) == "distance" ? ref_d[first] : ref_i[first];
        std::snprintf(line, sizeof line,
                      "  %-9s every peer disagrees with impact on %d case(s); first: case %d (impact: %s, d=%.3e)\n", q,
                      alone, first, r.intersecting ? "intersecting" : "separated", r.distance);
        os << line;
      }
    }
  }
  os << "\n";
}

// ---- results table ----

/// Passes everything to the reporter the user asked for and keeps each benchmark's CPU time (a
/// batch's: its time a query, from its ns_per_query or ns_per_ray counter).
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  explicit CollectingReporter(std::unique_ptr<benchmark::BenchmarkReporter> inner) : inner_(std::move(inner)) {}
  bool ReportContext(const Context& context) override { return inner_->ReportContext(context); }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      if (r.error_occurred) continue;
      double ns = r.GetAdjustedCPUTime() * 1e9 / benchmark::GetTimeUnitMultiplier(r.time_unit);
      // A batch's iteration is a whole call: its time a query is the counter it reports (seconds).
      for (const char* per : {"ns_per_query", "ns_per_ray"})
        if (const auto c = r.counters.find(per); c != r.counters.end()) ns = c->second.value * 1e9;
      auto& e = times_[r.run_name.function_name];
      if (r.run_type == Run::RT_Aggregate) {
        if (r.aggregate_name == "median") e.median = ns;
      } else {
        e.samples.push_back(ns);
      }
    }
    inner_->ReportRuns(runs);
  }
  void Finalize() override { inner_->Finalize(); }

  /// ns/query per benchmark name: the median aggregate if reported, else the median of the runs.
  [[nodiscard]] std::map<std::string, double> times() const {
    std::map<std::string, double> out;
    for (auto [name, e] : times_) {
      if (e.median >= 0) {
        out[name] = e.median;
      } else if (!e.samples.empty()) {
        std::sort(e.samples.begin(), e.samples.end());
        const std::size_t k = e.samples.size();
        out[name] = k % 2 ? e.samples[k / 2] : 0.5 * (e.samples[k / 2 - 1] + e.samples[k / 2]);
      }
    }
    return out;
  }

 private:
  struct Entry {
    double median = -1;
    std::vector<double> samples;
  };
  std::unique_ptr<benchmark::BenchmarkReporter> inner_;
  std::map<std::string, Entry> times_;
};

std::string fmt_ns(double ns) {
  char b[32];
  std::snprintf(b, sizeof b, ns < 100 ? "%.1f" : "%.0f", ns);
  return b;
}

/// Markdown tables: per query, rows = pairs, columns = libraries (ns/query, and ×impact).
void print_tables(const std::map<std::string, double>& t, std::ostream& os) {
  struct Row {
    std::map<std::string, double> lib;
  };
  std::map<std::string, std::map<std::string, Row>> by_query;  // query -> pair -> libs
  std::map<std::string, std::vector<std::string>> columns;     // query -> library order
  for (const auto& [name, ns] : t) {
    const auto s1 = name.find('/');
    const auto s2 = name.find('/', s1 + 1);
    if (s1 == std::string::npos || s2 == std::string::npos) continue;
    const std::string q = name.substr(0, s1), pair = name.substr(s1 + 1, s2 - s1 - 1), lib = name.substr(s2 + 1);
    by_query[q][pair].lib[lib] = ns;
    auto& cols = columns[q];
    if (std::find(cols.begin(), cols.end(), lib) == cols.end()) cols.push_back(lib);
  }
  // Fixed column order: impact first, then its variants, then peers.
  auto rank = [](const std::string& lib) {
    static const char* order[] = {"impact", "impact/extrusion_brent", "impact/conservative_advancement", "impact/paper",
                                  "impact/extrusion_brent/tol1e-3", "impact/extrusion_brent/float",
                                  "impact/float", "impact/rel1e-6", "impact/core",     "bullet", "bullet/endpoints",
                                  "fcl/interp", "fcl/screw", "fcl",
                                  "fcl/indep", "fcl/libccd",   "ccd",             "ccd/mpr",        "impact/scan",
                                  "impact/climb",      "impact/climb_cold", "impact/climb_seeded",
                                  "impact/climb_warm", "impact/climb_walk"};
    for (int i = 0; i < static_cast<int>(std::size(order)); ++i)
      if (lib == order[i]) return i;
    return 100;
  };
  for (auto& [q, cols] : columns) std::stable_sort(cols.begin(), cols.end(), [&](auto& a, auto& b) { return rank(a) < rank(b); });

  for (const auto& [q, pairs] : by_query) {
    const auto& cols = columns[q];
    const bool support = q == "support" || q == "gjk";
    if (q == "support")
      os << "\nsupport: ns per support call (x = time / scan's time)\n\n";
    else if (q == "gjk")
      os << "\ngjk: ns per GJK distance query between two hulls of N vertices, support forced to the scan or the climb"
            " (x = time / scan's time)\n\n";
    else
      os << "\n" << q << ": ns per query (x = time / impact's time; > 1 means impact is faster)\n\n";
    os << "| " << (support ? "hull" : "pair") << " |";
    for (const auto& c : cols) os << " " << c << " |";
    os << "\n|---|";
    for (std::size_t k = 0; k < cols.size(); ++k) os << "---:|";
    os << "\n";
    // Support rows in numeric order of N.
    std::vector<std::string> keys;
    for (const auto& [pair, row] : pairs) keys.push_back(pair);
    if (support)
      std::sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
        return std::atoi(a.c_str() + 5) < std::atoi(b.c_str() + 5);
      });
    for (const auto& pair : keys) {
      const auto& row = pairs.at(pair);
      const std::string base_name = support ? "impact/scan" : q == "time_of_impact" ? "impact/extrusion_brent" : "impact";
      const auto base = row.lib.find(base_name);
      os << "| " << pair << " |";
      for (const auto& c : cols) {
        const auto it = row.lib.find(c);
        if (it == row.lib.end()) {
          os << " – |";
          continue;
        }
        os << " " << fmt_ns(it->second);
        if (base != row.lib.end() && c != base_name) {
          char b[32];
          std::snprintf(b, sizeof b, " (%.2fx)", it->second / base->second);
          os << b;
        }
        os << " |";
      }
      os << "\n";
    }
  }
  os << "\n";
}

std::string flag_value(int argc, char** argv, const char* flag) {
  const std::size_t n = std::strlen(flag);
  std::string v;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], flag, n) == 0 && argv[i][n] == '=') v = argv[i] + n + 1;
  return v;
}

}  // namespace
}  // namespace impact_bench

int main(int argc, char** argv) {
  using namespace impact_bench;
  const std::string format = flag_value(argc, argv, "--benchmark_format");
  const bool console = format.empty() || format == "console";
  const bool listing = !flag_value(argc, argv, "--benchmark_list_tests").empty() &&
                       flag_value(argc, argv, "--benchmark_list_tests") != "false";
  const std::string color = flag_value(argc, argv, "--benchmark_color");
  const std::string filter = flag_value(argc, argv, "--benchmark_filter");
  // Default 0.2 s per benchmark (Google Benchmark's own default is 0.5 s): the whole run then
  // takes about a minute. An explicit --benchmark_min_time wins.
  std::vector<char*> args(argv, argv + argc);
  static char default_min_time[] = "--benchmark_min_time=0.2";
  if (flag_value(argc, argv, "--benchmark_min_time").empty()) args.insert(args.begin() + 1, default_min_time);
  int nargs = static_cast<int>(args.size());
  args.push_back(nullptr);
  argc = nargs;
  argv = args.data();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::ostream& info = console ? std::cout : std::cerr;

  // Scenes and the peers' copies of them, all built before any timing.
  std::vector<std::unique_ptr<PairData>> pairs;
  for (Pair p : kPairs) {
    auto d = std::make_unique<PairData>();
    d->pair = p;
    d->scene = make_scene(p);
    d->scene_f = to_float(d->scene);
    d->desc = describe(d->scene);
    d->bullet = std::make_unique<BulletPeer>(d->desc);
    d->fcl_libccd = std::make_unique<FclPeer>(d->desc, FclPeer::Solver::libccd);
    d->fcl_indep = std::make_unique<FclPeer>(d->desc, FclPeer::Solver::indep);
    d->ccd = std::make_unique<CcdPeer>(d->desc);
    pairs.push_back(std::move(d));
  }
  // The time_of_impact checks (agreement, per-case medians) take a few seconds: run them unless a
  // filter leaves the time_of_impact benchmarks out.
  const bool toi_wanted = filter.empty() || filter.find("time_of_impact") != std::string::npos ||
                          filter == "." || filter == ".*" || filter == "all";
  const bool others_wanted = filter.empty() || (filter.find("time_of_impact") == std::string::npos &&
                                                  filter.find("cast") == std::string::npos);
  if (!listing && others_wanted) cross_check(pairs, info);
  setup_toi_benchmarks(info, !listing && toi_wanted);
  // The linear-cast checks (agreement, the seed note's session table) likewise.
  const bool cast_wanted = filter.empty() || filter.find("cast") != std::string::npos || filter == "." ||
                           filter == ".*" || filter == "all";
  setup_cast_benchmarks(info, !listing && cast_wanted);

  // Core-type copies for impact/core.
  const auto core_bb = make_core<impact::Box<double>, impact::Box<double>>(pairs[0]->scene);
  const auto core_sb = make_core<impact::Point<double>, impact::Box<double>>(pairs[1]->scene);
  const auto core_cc = make_core<impact::Cylinder<double>, impact::Cylinder<double>>(pairs[2]->scene);
  const auto core_hh = make_core<impact::Hull<double>, impact::Hull<double>>(pairs[3]->scene);

  for (const auto& d : pairs) {
    const std::string pn = pair_name(d->pair);
    const PairData* p = d.get();
    // Distance.
    benchmark::RegisterBenchmark(("distance/" + pn + "/impact").c_str(), bm_impact<double, true>, &p->scene);
    benchmark::RegisterBenchmark(("distance/" + pn + "/impact/float").c_str(), bm_impact<float, true>, &p->scene_f);
    benchmark::RegisterBenchmark(("distance/" + pn + "/impact/rel1e-6").c_str(), bm_impact_with<double, true>, &p->scene,
                                 &kBulletLikeOptions);
    auto core = [&](const std::string& name, auto distance_tag) {
      constexpr bool D = decltype(distance_tag)::value;
      switch (p->pair) {
        case Pair::box_box: benchmark::RegisterBenchmark(name.c_str(), bm_impact_core<D, impact::Box<double>, impact::Box<double>>, &core_bb); break;
        case Pair::sphere_box: benchmark::RegisterBenchmark(name.c_str(), bm_impact_core<D, impact::Point<double>, impact::Box<double>>, &core_sb); break;
        case Pair::cylinder_cylinder: benchmark::RegisterBenchmark(name.c_str(), bm_impact_core<D, impact::Cylinder<double>, impact::Cylinder<double>>, &core_cc); break;
        case Pair::hull_hull: benchmark::RegisterBenchmark(name.c_str(), bm_impact_core<D, impact::Hull<double>, impact::Hull<double>>, &core_hh); break;
      }
    };
    core("distance/" + pn + "/impact/core", std::true_type{});
    benchmark::RegisterBenchmark(("distance/" + pn + "/bullet").c_str(), bm_peer<BulletPeer, &BulletPeer::distance>,
                                 p->bullet.get());
    benchmark::RegisterBenchmark(("distance/" + pn + "/fcl").c_str(), bm_peer<FclPeer, &FclPeer::distance>,
                                 p->fcl_libccd.get());
    benchmark::RegisterBenchmark(("distance/" + pn + "/fcl/indep").c_str(), bm_peer<FclPeer, &FclPeer::distance>,
                                 p->fcl_indep.get());
    // Intersect.
    benchmark::RegisterBenchmark(("intersect/" + pn + "/impact").c_str(), bm_impact<double, false>, &p->scene);
    benchmark::RegisterBenchmark(("intersect/" + pn + "/impact/float").c_str(), bm_impact<float, false>, &p->scene_f);
    core("intersect/" + pn + "/impact/core", std::false_type{});
    benchmark::RegisterBenchmark(("intersect/" + pn + "/ccd").c_str(), bm_peer<CcdPeer, &CcdPeer::intersect>,
                                 p->ccd.get());
    benchmark::RegisterBenchmark(("intersect/" + pn + "/ccd/mpr").c_str(), bm_peer<CcdPeer, &CcdPeer::intersect_mpr>,
                                 p->ccd.get());
    benchmark::RegisterBenchmark(("intersect/" + pn + "/fcl").c_str(), bm_peer<FclPeer, &FclPeer::intersect>,
                                 p->fcl_libccd.get());
    benchmark::RegisterBenchmark(("intersect/" + pn + "/fcl/indep").c_str(), bm_peer<FclPeer, &FclPeer::intersect>,
                                 p->fcl_indep.get());
  }

  // Hull support: flat scan against hill-climbing, to place Hull::flat_scan_max.
  const auto dirs = random_directions(4096);
  const auto walk = direction_walk(4096, 0.2);
  std::vector<std::unique_ptr<impact::Hull<double>>> hulls;
  for (int n : {8, 12, 16, 24, 32, 48, 64, 96, 128}) {
    hulls.push_back(std::make_unique<impact::Hull<double>>(random_hull(n)));
    const impact::Hull<double>* h = hulls.back().get();
    if (static_cast<int>(h->vertices.size()) != n)
      info << "note: hull_" << n << " has " << h->vertices.size() << " vertices\n";
    const std::string base = "support/hull_" + std::to_string(n) + "/impact/";
    benchmark::RegisterBenchmark((base + "scan").c_str(), bm_support, h, &dirs, SupportMode::scan);
    benchmark::RegisterBenchmark((base + "climb_warm").c_str(), bm_support, h, &dirs, SupportMode::climb_warm);
    benchmark::RegisterBenchmark((base + "climb_cold").c_str(), bm_support, h, &dirs, SupportMode::climb_cold);
    benchmark::RegisterBenchmark((base + "climb_seeded").c_str(), bm_support, h, &dirs, SupportMode::climb_seeded);
    benchmark::RegisterBenchmark((base + "climb_walk").c_str(), bm_support, h, &walk, SupportMode::climb_walk);
  }

  // Whole GJK distance queries on hull pairs of each size, scan against climb.
  std::vector<std::unique_ptr<ForcedCases>> forced;
  for (int n : {8, 12, 16, 24, 32, 48, 64, 96, 128}) {
    auto c = std::make_unique<ForcedCases>();
    c->scene = make_scene(Pair::hull_hull, kCases, kSeed, n);
    for (const auto& k : c->scene.cases) {
      c->ta.emplace_back(k.pose_a);
      c->tb.emplace_back(k.pose_b);
    }
    const std::string base = "gjk/hull_" + std::to_string(n) + "/impact/";
    benchmark::RegisterBenchmark((base + "scan").c_str(), bm_gjk_forced<false>, c.get());
    benchmark::RegisterBenchmark((base + "climb").c_str(), bm_gjk_forced<true>, c.get());
    forced.push_back(std::move(c));
  }

  // Triangle meshes against Embree and Bullet (mesh_bench.cpp).
  register_mesh_benchmarks();
  register_batch_benchmarks();

  std::unique_ptr<benchmark::BenchmarkReporter> display;
  if (console) {
    const bool colour = color.empty() || color == "auto" ? isatty(STDOUT_FILENO) != 0
                                                         : (color == "true" || color == "yes" || color == "1");
    display = std::make_unique<benchmark::ConsoleReporter>(colour ? benchmark::ConsoleReporter::OO_ColorTabular
                                                                  : benchmark::ConsoleReporter::OO_Tabular);
  } else if (format == "json") {
    display = std::make_unique<benchmark::JSONReporter>();
  } else {
    std::cerr << "unknown --benchmark_format=" << format << " (console or json)\n";
    return 1;
  }
  CollectingReporter reporter(std::move(display));
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const auto times = reporter.times();
  if (!times.empty()) print_tables(times, info);
  benchmark::Shutdown();
  return 0;
}
