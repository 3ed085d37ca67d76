// impact benchmarks — bench_toi.cpp: time_of_impact/PAIR/LIBRARY[/METHOD] against Bullet's
// btContinuousConvexCollision and FCL's conservative advancement, on the rotating cases of
// toi_scenes.hpp.
//
// Before timing (and not timed), two reports go to the info stream:
// - agreement: for every library and variant, hits and misses against impact's extrusion_brent
//   (double, default options), the cases where the other finds a contact impact misses (each one
//   checked: impact's distance at the other's time of impact, on impact's motion for peers that
//   follow it, on the peer's own poses otherwise), TOI differences where both hit;
// - per-case timing: every case timed on its own (min over 3 passes of a batch of repeats), so
//   the median over cases can be reported beside the mean; Google Benchmark's figure is the mean
//   over the cycled cases.
#include "bench_toi.hpp"

#include "peers.hpp"
#include "toi_scenes.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

namespace impact_bench {
namespace {

constexpr double kPi = std::numbers::pi;
/// Bullet: at most 0.24π (43.2°) per sub-interval, under its 45° clamp.
constexpr double kBulletStep = 0.24 * kPi;
/// FCL: at most 0.75π per sub-interval (its angle-axis reading is exact below π).
constexpr double kFclStep = 0.75 * kPi;
constexpr std::size_t kMaskToi = kCases - 1;

struct Variant {
  std::string name;  // library column, e.g. "impact/extrusion_brent"
  bool same_path;    // follows impact's motion exactly
  std::function<PeerToi(std::size_t)> query;
  bool timed;        // registered as a benchmark
};

struct ToiPairData {
  ToiPair pair;
  ToiScene<double> scene;
  ToiScene<float> scene_f;
  ToiSceneDesc desc;
  std::unique_ptr<BulletToiPeer> bullet, bullet_endpoints;
  std::unique_ptr<FclToiPeer> fcl_interp, fcl_screw;
  std::vector<Variant> variants;
};

std::vector<std::unique_ptr<ToiPairData>>& storage() {
  static std::vector<std::unique_ptr<ToiPairData>> s;
  return s;
}

impact::Pose<double> pose_of(const PoseDesc& d) {
  impact::Pose<double> p;
  p.position = impact::Vec3<double>(d.position[0], d.position[1], d.position[2]);
  p.rotation = impact::Quat<double>(d.quat_wxyz[0], d.quat_wxyz[1], d.quat_wxyz[2], d.quat_wxyz[3]).normalized();
  return p;
}

template <class S>
PeerToi impact_toi(const ToiScene<S>& scene, std::size_t i, const impact::ToiOptions<S>& opt, int* status_out = nullptr,
                   int* iterations = nullptr, impact::ToiStats* stats = nullptr) {
  const auto& c = scene.cases[i];
  const auto r = impact::time_of_impact(scene.shapes[c.a], c.ma, scene.shapes[c.b], c.mb, opt);
  if (stats) *stats = r.stats;
  PeerToi out;
  out.calls = 1;
  out.hit = r.status == impact::Status::hit || r.status == impact::Status::max_iterations;
  out.capped = r.status == impact::Status::max_iterations;
  out.toi = out.hit ? double(r.toi) : 1.0;
  if (status_out) *status_out = static_cast<int>(r.status);
  if (iterations) *iterations = r.iterations;
  return out;
}

template <class S>
void bm_impact_toi(benchmark::State& state, const ToiScene<S>* scene, impact::ToiOptions<S> opt) {
  std::size_t i = 0;
  const auto& shapes = scene->shapes;
  const auto& cases = scene->cases;
  for (auto _ : state) {
    const auto& c = cases[i];
    auto r = impact::time_of_impact(shapes[c.a], c.ma, shapes[c.b], c.mb, opt);
    benchmark::DoNotOptimize(r.toi);
    i = (i + 1) & kMaskToi;
  }
}

template <class Peer>
void bm_peer_toi(benchmark::State& state, const Peer* peer) {
  std::size_t i = 0;
  for (auto _ : state) {
    auto r = peer->query(i);
    benchmark::DoNotOptimize(r);
    i = (i + 1) & kMaskToi;
  }
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const std::size_t k = static_cast<std::size_t>(pos);
  const double f = pos - double(k);
  return k + 1 < v.size() ? v[k] * (1 - f) + v[k + 1] * f : v[k];
}

std::string motion_text(const impact::Motion<double>& m) {
  char b[400];
  std::snprintf(b, sizeof b, "p=(%.6g, %.6g, %.6g) q_wxyz=(%.6g, %.6g, %.6g, %.6g) v=(%.6g, %.6g, %.6g) w=(%.6g, %.6g, %.6g) |w|=%.4g",
                m.pose.position.x(), m.pose.position.y(), m.pose.position.z(), m.pose.rotation.w(), m.pose.rotation.x(),
                m.pose.rotation.y(), m.pose.rotation.z(), m.linear_velocity.x(), m.linear_velocity.y(),
                m.linear_velocity.z(), m.angular_velocity.x(), m.angular_velocity.y(), m.angular_velocity.z(),
                m.angular_velocity.norm());
  return b;
}

std::string shape_text(const impact::Shape<double>& s) {
  char b[160];
  if (const auto* bx = std::get_if<impact::Box<double>>(&s.variant())) {
    std::snprintf(b, sizeof b, "box half extents (%.6g, %.6g, %.6g)", bx->half_extents.x(), bx->half_extents.y(),
                  bx->half_extents.z());
  } else if (const auto* h = std::get_if<impact::Hull<double>>(&s.variant())) {
    std::snprintf(b, sizeof b, "hull of %zu vertices, radius %.6g", h->vertices.size(), impact::bounding_radius(s));
  } else {
    std::snprintf(b, sizeof b, "%s", impact::shape_name(s));
  }
  return b;
}

/// Distance (negative: intersecting) between the shapes of case i at the given poses.
double gap(const ToiScene<double>& s, std::size_t i, const impact::Pose<double>& pa, const impact::Pose<double>& pb) {
  const auto& c = s.cases[i];
  const auto r = impact::distance(s.shapes[c.a], pa, s.shapes[c.b], pb);
  return r.status == impact::Status::intersecting ? -1.0 : double(r.distance);
}

/// Smallest impact::distance (−1: intersecting) over 20001 evenly spaced times of case i's motion.
double min_sampled_gap(const ToiScene<double>& s, std::size_t i) {
  const auto& c = s.cases[i];
  double m = std::numeric_limits<double>::infinity();
  for (int k = 0; k <= 20000; ++k) {
    const double t = k / 20000.0;
    m = std::min(m, gap(s, i, c.ma.at(t), c.mb.at(t)));
    if (m < 0) break;
  }
  return m;
}

void agreement(ToiPairData& p, std::ostream& os) {
  const std::size_t n = p.scene.cases.size();
  char line[512];
  std::vector<PeerToi> ref(n);
  std::vector<int> ref_status(n), ref_iters(n);
  std::vector<impact::ToiStats> ref_stats(n);
  for (std::size_t i = 0; i < n; ++i)
    ref[i] = impact_toi(p.scene, i, impact::ToiOptions<double>{}, &ref_status[i], &ref_iters[i], &ref_stats[i]);
  const int ref_hits = static_cast<int>(std::count_if(ref.begin(), ref.end(), [](auto& r) { return r.hit; }));
  const int ref_capped = static_cast<int>(std::count(ref_status.begin(), ref_status.end(), int(impact::Status::max_iterations)));
  const int ref_initial =
      static_cast<int>(std::count(ref_status.begin(), ref_status.end(), int(impact::Status::initially_overlapping)));
  double it_mean = 0;
  int it_max = 0;
  for (int k : ref_iters) {
    it_mean += k;
    it_max = std::max(it_max, k);
  }
  it_mean /= double(n);
  // impact's own hits: the distance at its toi (on the exact motion) must be within its tolerance.
  double ref_gap_max = -1;
  std::string capped_ids;
  for (std::size_t i = 0; i < n; ++i) {
    if (ref_status[i] == int(impact::Status::max_iterations)) capped_ids += (capped_ids.empty() ? "" : ", ") + std::to_string(i);
    if (ref_status[i] != int(impact::Status::hit)) continue;
    const auto& c = p.scene.cases[i];
    ref_gap_max = std::max(ref_gap_max, gap(p.scene, i, c.ma.at(ref[i].toi), c.mb.at(ref[i].toi)));
  }
  std::snprintf(line, sizeof line,
                "\ntime_of_impact/%s: impact extrusion_brent (double) hits %d/%zu (max_iterations %d, initially_overlapping %d); "
                "interval tests mean %.2f, max %d\n",
                toi_pair_name(p.pair), ref_hits, n, ref_capped, ref_initial, it_mean, it_max);
  os << line;
  {
    double g = 0, de = 0, be = 0;
    int pf = 0, first_failed = 0;
    for (std::size_t i = 0; i < n; ++i) {
      g += ref_stats[i].gjk_calls;
      de += ref_stats[i].direction_evals;
      be += ref_stats[i].brent_evals;
      pf += ref_stats[i].photo_finish;
      first_failed += ref_stats[i].photo_finish || ref_status[i] == int(impact::Status::hit) ||
                      ref_status[i] == int(impact::Status::max_iterations);
    }
    std::snprintf(line, sizeof line,
                  "  per query (mean): GJK calls %.2f, direction evaluations %.1f, Brent and narrowing evaluations %.2f; photo finishes %d "
                  "(%.1f%% of the %d queries whose test of [0, 1] failed)\n",
                  g / double(n), de / double(n), be / double(n), pf, 100.0 * pf / std::max(1, first_failed), first_failed);
    os << line;
  }
  std::snprintf(line, sizeof line, "  largest distance at impact's reported toi over its hits: %.3g%s%s\n", ref_gap_max,
                capped_ids.empty() ? "" : "; max_iterations on cases ", capped_ids.c_str());
  os << line;
  os << "  library                          hits  both  impact-only  other-only (real contact / near miss, max gap)   |dt| p50      p99      max     (other-impact: min, max)\n";
  for (const auto& v : p.variants) {
    if (v.name == "impact/extrusion_brent") continue;
    int hits = 0, both = 0, impact_only = 0, other_only = 0, other_real = 0, capped = 0;
    int gave_up_total = 0, gave_up_queries = 0, gave_up_late = 0, gave_up_missed = 0;
    int impact_late = 0, other_late = 0;  // same path only: a real contact found earlier by the other / by impact
    std::size_t worst_late = 0;
    double worst_late_dt = 0;
    std::vector<std::size_t> impact_late_cases;
    double near_max = 0, dmin = 0, dmax = 0;
    std::vector<double> dt;
    std::vector<std::size_t> real_cases, near_cases, capped_only;
    std::vector<double> real_gaps;
    double sampled_min = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      const PeerToi r = v.query(i);
      hits += r.hit;
      capped += r.capped;
      gave_up_total += r.gave_up;
      gave_up_queries += r.gave_up > 0;
      if (r.gave_up > 0 && r.hit && ref[i].hit && r.toi - ref[i].toi > 1e-3) ++gave_up_late;
      if (r.gave_up > 0 && !r.hit && ref[i].hit) ++gave_up_missed;
      if (r.hit && ref[i].hit) {
        ++both;
        const double d = r.toi - ref[i].toi;
        if (v.same_path && !r.capped) {
          const auto& c = p.scene.cases[i];
          if (d < -1e-9 && gap(p.scene, i, c.ma.at(r.toi), c.mb.at(r.toi)) <= 0) {
            ++impact_late;  // the shapes touch at the other's earlier time: impact's answer is late
            impact_late_cases.push_back(i);
          }
          if (d > 1e-3 && ref_status[i] == int(impact::Status::hit)) {
            ++other_late;  // impact's earlier contact is real (checked above): the other is late
            if (d > worst_late_dt) {
              worst_late_dt = d;
              worst_late = i;
            }
          }
        }
        dt.push_back(std::abs(d));
        dmin = std::min(dmin, d);
        dmax = std::max(dmax, d);
      } else if (ref[i].hit) {
        ++impact_only;
      } else if (r.hit && r.capped) {
        ++other_only;
        capped_only.push_back(i);
      } else if (r.hit) {
        ++other_only;
        // Is there a real contact at the other's time? On impact's motion when the other follows
        // it (its own poses differ only by its rounding), else on the other's own poses.
        const auto& c = p.scene.cases[i];
        const double g = v.same_path ? gap(p.scene, i, c.ma.at(r.toi), c.mb.at(r.toi))
                                     : gap(p.scene, i, pose_of(r.pose_a), pose_of(r.pose_b));
        if (g <= 0) {
          ++other_real;
          real_cases.push_back(i);
          real_gaps.push_back(g);
        } else {
          near_max = std::max(near_max, g);
          near_cases.push_back(i);
          if (v.same_path) {
            // The other may have stopped short of a contact that comes later: sample impact's
            // distance densely over [0, 1] on the exact motion (a check, not a proof).
            const double m = min_sampled_gap(p.scene, i);
            sampled_min = std::min(sampled_min, m);
            if (m <= 0) {
              ++other_real;
              real_cases.push_back(i);
              real_gaps.push_back(m);
              near_cases.pop_back();
            }
          }
        }
      }
    }
    std::snprintf(line, sizeof line, "  %-30s %5d %5d  %11d  %10d (%d / %d, %.2e)%s   %.2e %.2e %.2e (%+.2e, %+.2e)\n",
                  v.name.c_str(), hits, both, impact_only, other_only, other_real, static_cast<int>(near_cases.size()), near_max,
                  v.same_path ? "" : " [own path]", quantile(dt, 0.5), quantile(dt, 0.99),
                  dt.empty() ? 0.0 : *std::max_element(dt.begin(), dt.end()), dmin, dmax);
    os << line;
    if (v.same_path) {
      std::snprintf(line, sizeof line,
                    "    %s: gave up (iteration cap) on %d; impact late (contact at the other's earlier toi) on %d; "
                    "%s late by > 1e-3 on %d",
                    v.name.c_str(), capped, impact_late, v.name.c_str(), other_late);
      os << line;
      if (other_late) {
        std::snprintf(line, sizeof line, " (worst: case %zu, %.3g late)", worst_late, worst_late_dt);
        os << line;
      }
      os << "\n";
    }
    if (gave_up_total) {
      std::snprintf(line, sizeof line,
                    "    %s gave up (reportFailure, answered 'no impact') on %d sub-intervals in %d queries; of these queries "
                    "%d end late by > 1e-3 and %d miss impact's contact\n",
                    v.name.c_str(), gave_up_total, gave_up_queries, gave_up_late, gave_up_missed);
      os << line;
    }
    for (std::size_t i : impact_late_cases) {
      const auto& c = p.scene.cases[i];
      std::snprintf(line, sizeof line, "    IMPACT LATE: case %zu: impact toi %.9g, %s touches at %.9g\n", i, ref[i].toi,
                    v.name.c_str(), v.query(i).toi);
      os << line;
      os << "      A: " << shape_text(p.scene.shapes[c.a]) << "; " << motion_text(c.ma) << "\n";
      os << "      B: " << shape_text(p.scene.shapes[c.b]) << "; " << motion_text(c.mb) << "\n";
    }
    // Every real contact impact misses, in full (on impact's path these must not exist).
    for (std::size_t k = 0; k < real_cases.size(); ++k) {
      const std::size_t i = real_cases[k];
      const auto& c = p.scene.cases[i];
      const PeerToi r = v.query(i);
      std::snprintf(line, sizeof line,
                    "    %s: case %zu: %s reports contact at t=%.9g where impact says %s; impact::distance at %s: %s\n",
                    v.same_path ? "MISSED CONTACT" : "contact on the peer's own path (not impact's motion)", i,
                    v.name.c_str(), r.toi, impact::to_string(static_cast<impact::Status>(ref_status[i])).data(),
                    v.same_path ? "impact's poses at that time" : "the peer's poses", real_gaps[k] < 0 ? "intersecting" : "touching (0)");
      os << line;
      if (v.same_path) {
        os << "      A: " << shape_text(p.scene.shapes[c.a]) << "; " << motion_text(c.ma) << "\n";
        os << "      B: " << shape_text(p.scene.shapes[c.b]) << "; " << motion_text(c.mb) << "\n";
      }
    }
    if (!capped_only.empty()) {
      std::string ids;
      for (std::size_t k = 0; k < capped_only.size() && k < 8; ++k) ids += (k ? ", " : "") + std::to_string(capped_only[k]);
      if (capped_only.size() > 8) ids += ", ...";
      os << "    other-only answers that are iteration caps, not contacts: " << capped_only.size() << " (cases " << ids << ")\n";
    }
    // The closest near misses, briefly.
    if (!near_cases.empty()) {
      std::string ids;
      for (std::size_t k = 0; k < near_cases.size() && k < 8; ++k) ids += (k ? ", " : "") + std::to_string(near_cases[k]);
      if (near_cases.size() > 8) ids += ", ...";
      os << "    near misses reported as hits (apart at the reported time; cases " << ids << ")";
      if (v.same_path) {
        std::snprintf(line, sizeof line, "; smallest distance over 20001 samples of [0, 1] on these: %.3g", sampled_min);
        os << line;
      }
      os << "\n";
    }
  }
}

/// ns per query of each case on its own: min over `passes` of a batch of repeats.
std::vector<double> time_each(std::size_t n, const std::function<PeerToi(std::size_t)>& f, int passes = 3) {
  using clock = std::chrono::steady_clock;
  std::vector<double> out(n, 1e300);
  for (int pass = 0; pass < passes; ++pass) {
    for (std::size_t i = 0; i < n; ++i) {
      auto t0 = clock::now();
      benchmark::DoNotOptimize(f(i));
      const double first = std::chrono::duration<double, std::nano>(clock::now() - t0).count();
      const int reps = std::clamp(static_cast<int>(20000.0 / std::max(first, 1.0)), 1, 64);
      t0 = clock::now();
      for (int r = 0; r < reps; ++r) benchmark::DoNotOptimize(f(i));
      const double ns = std::chrono::duration<double, std::nano>(clock::now() - t0).count() / reps;
      out[i] = std::min(out[i], ns);
    }
  }
  return out;
}

void per_case_timing(ToiPairData& p, std::ostream& os) {
  const std::size_t n = p.scene.cases.size();
  char line[256];
  std::snprintf(line, sizeof line,
                "\ntime_of_impact/%s: ns per query, each case timed alone (min of 3 passes); median and mean over %zu cases\n",
                toi_pair_name(p.pair), n);
  os << line;
  os << "| library | median ns | mean ns | median x | mean x | median of per-case x | calls/query |\n|---|---:|---:|---:|---:|---:|---:|\n";
  std::vector<double> base;
  for (const auto& v : p.variants) {
    if (!v.timed) continue;
    const auto t = time_each(n, v.query);
    if (base.empty()) base = t;
    std::vector<double> ratio(n);
    for (std::size_t i = 0; i < n; ++i) ratio[i] = t[i] / base[i];
    double mean = 0, bmean = 0, calls = 0;
    for (std::size_t i = 0; i < n; ++i) {
      mean += t[i];
      bmean += base[i];
      calls += v.query(i).calls;
    }
    mean /= double(n);
    bmean /= double(n);
    std::snprintf(line, sizeof line, "| %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", v.name.c_str(), quantile(t, 0.5),
                  mean, quantile(t, 0.5) / quantile(base, 0.5), mean / bmean, quantile(ratio, 0.5), calls / double(n));
    os << line;
  }
}

}  // namespace

void setup_toi_benchmarks(std::ostream& info, bool checks) {
  for (ToiPair pair : kToiPairs) {
    auto d = std::make_unique<ToiPairData>();
    d->pair = pair;
    d->scene = make_toi_scene(pair);
    d->scene_f = to_float(d->scene);
    d->desc = describe(d->scene);
    d->bullet = std::make_unique<BulletToiPeer>(d->desc, kBulletStep);
    d->bullet_endpoints = std::make_unique<BulletToiPeer>(d->desc, 0.0);
    d->fcl_interp = std::make_unique<FclToiPeer>(d->desc, FclToiPeer::Kind::interp, kFclStep);
    d->fcl_screw = std::make_unique<FclToiPeer>(d->desc, FclToiPeer::Kind::screw, kFclStep);
    ToiPairData* p = d.get();
    impact::ToiOptions<double> eb, ca, paper, loose;
    ca.method = impact::ToiMethod::conservative_advancement;
    paper.paper_acceptance = true;
    loose.tolerance = 1e-3;
    impact::ToiOptions<float> ebf;
    auto imp = [p](impact::ToiOptions<double> o) {
      return [p, o](std::size_t i) { return impact_toi(p->scene, i, o); };
    };
    p->variants = {
        {"impact/extrusion_brent", true, imp(eb), true},
        {"impact/conservative_advancement", true, imp(ca), true},
        {"impact/paper", true, imp(paper), true},
        {"impact/extrusion_brent/tol1e-3", true, imp(loose), true},
        {"impact/extrusion_brent/float", true, [p, ebf](std::size_t i) { return impact_toi(p->scene_f, i, ebf); }, true},
        {"bullet", true, [p](std::size_t i) { return p->bullet->query(i); }, true},
        {"bullet/endpoints", false, [p](std::size_t i) { return p->bullet_endpoints->query(i); }, true},
        {"fcl/interp", true, [p](std::size_t i) { return p->fcl_interp->query(i); }, true},
        {"fcl/screw", false, [p](std::size_t i) { return p->fcl_screw->query(i); }, true},
    };
    const std::string base = std::string("time_of_impact/") + toi_pair_name(pair) + "/";
    benchmark::RegisterBenchmark((base + "impact/extrusion_brent").c_str(), bm_impact_toi<double>, &p->scene, eb);
    benchmark::RegisterBenchmark((base + "impact/conservative_advancement").c_str(), bm_impact_toi<double>, &p->scene, ca);
    benchmark::RegisterBenchmark((base + "impact/paper").c_str(), bm_impact_toi<double>, &p->scene, paper);
    benchmark::RegisterBenchmark((base + "impact/extrusion_brent/tol1e-3").c_str(), bm_impact_toi<double>, &p->scene, loose);
    benchmark::RegisterBenchmark((base + "impact/extrusion_brent/float").c_str(), bm_impact_toi<float>, &p->scene_f, ebf);
    benchmark::RegisterBenchmark((base + "bullet").c_str(), bm_peer_toi<BulletToiPeer>, p->bullet.get());
    benchmark::RegisterBenchmark((base + "bullet/endpoints").c_str(), bm_peer_toi<BulletToiPeer>, p->bullet_endpoints.get());
    benchmark::RegisterBenchmark((base + "fcl/interp").c_str(), bm_peer_toi<FclToiPeer>, p->fcl_interp.get());
    benchmark::RegisterBenchmark((base + "fcl/screw").c_str(), bm_peer_toi<FclToiPeer>, p->fcl_screw.get());
    storage().push_back(std::move(d));
  }
  if (!checks) return;
  info << "\nTime of impact: agreement with impact extrusion_brent (double, defaults) on " << kCases
       << " cases per pair (not timed).\n"
          "other-only: the other reports a contact impact does not; 'real contact' if impact::distance says the shapes\n"
          "intersect or touch at the other's time (on impact's motion for libraries that follow it; [own path]: on the\n"
          "other's own poses), else a near miss (max gap = largest distance there). dt = other's toi - impact's.\n";
  for (auto& d : storage()) agreement(*d, info);
  info << "\n";
  for (auto& d : storage()) per_case_timing(*d, info);
  info << "\n";
}

}  // namespace impact_bench
