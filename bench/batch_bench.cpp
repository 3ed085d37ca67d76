// impact benchmarks — batch_bench.cpp: the convex batch calls (include/impact/batch.hpp) over 1
// and 2 threads, and the same queries as single calls in a loop (issue 19: "batch casts and TOI
// at least 1.8× faster on 2 threads than on 1").
//
// One scene of N = 20,000 queries per call, double precision, seeded: a capsule (radius 0.3, half
// height 0.6) at random poses in [-4, 4]³ against a 40-point hull at the origin; linear casts and
// times of impact move the capsule toward the hull about half the time (velocity = a random
// vector in [-2, 2]³ minus the position), the time of impact with a random spin of up to 6 rad a
// unit time on each axis as well; rays from [-4, 4]³ toward the hull about half the time.
// Names QUERY/capsule_hull/impact/threads:N (ray_cast_batch: QUERY/hull/...); the variant
// impact/loop is the single-query call over the same rows on the calling thread (what the batch
// costs beyond the queries themselves). One iteration is one call; ns_per_query divides by N.
#include "batch_bench.hpp"

#include <impact/batch.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace impact_bench {
namespace {

using S = double;
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using impact::Rows;
using impact::RowsOut;
using impact::Vec3;

constexpr int kQueries = 20000;

Mat uniform_rows(std::mt19937_64& rng, int n, int k, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Mat m(n, k);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) m(i, j) = u(rng);
  return m;
}

Mat unit_quaternions(std::mt19937_64& rng, int n) {
  std::normal_distribution<double> g;
  Mat m(n, 4);
  for (int i = 0; i < n; ++i) {
    Eigen::Vector4d q(g(rng), g(rng), g(rng), g(rng));
    m.row(i) = q.normalized().transpose();
  }
  return m;
}

/// The shared scene: shapes, inputs and output arrays (written by every call).
struct BatchScene {
  impact::Shape<S> capsule = impact::Capsule<S>{0.3, 0.6};
  impact::Shape<S> hull;
  Mat pa, qa, va, wa, pb, qb, origin, direction;
  std::vector<std::uint8_t> status = std::vector<std::uint8_t>(kQueries);
  Mat value = Mat(kQueries, 1), point_a = Mat(kQueries, 3), point_b = Mat(kQueries, 3), normal = Mat(kQueries, 3);

  BatchScene() {
    std::mt19937_64 rng(19);
    std::normal_distribution<double> g;
    std::vector<Vec3<S>> pts;
    for (int i = 0; i < 40; ++i) pts.push_back(Vec3<S>(g(rng), g(rng), g(rng)).normalized());
    hull = impact::Shape<S>(std::move(impact::Hull<S>::build(pts).hull));
    pa = uniform_rows(rng, kQueries, 3, -4, 4);
    qa = unit_quaternions(rng, kQueries);
    va = uniform_rows(rng, kQueries, 3, -2, 2) - pa;  // toward the hull about half the time
    wa = uniform_rows(rng, kQueries, 3, -6, 6);
    pb = Mat::Zero(1, 3);
    qb = unit_quaternions(rng, 1);
    origin = uniform_rows(rng, kQueries, 3, -4, 4);
    direction = uniform_rows(rng, kQueries, 3, -0.8, 0.8) - 0.5 * origin;
  }
  static Rows<S, 3> r3(const Mat& m) { return Rows<S, 3>(m.data(), m.rows(), 3); }
  static Rows<S, 4> r4(const Mat& m) { return Rows<S, 4>(m.data(), m.rows(), 4); }
  static RowsOut<S, 3> o3(Mat& m) { return RowsOut<S, 3>(m.data(), m.rows(), 3); }
  impact::PoseRows<S> poses_a() const { return {r3(pa), r4(qa)}; }
  impact::PoseRows<S> poses_b() const { return {r3(pb), r4(qb)}; }
  impact::Pose<S> pose(const Mat& p, const Mat& q, int i) const {
    impact::Pose<S> out;
    const int r = p.rows() == 1 ? 0 : i, s = q.rows() == 1 ? 0 : i;
    out.position = p.row(r).transpose();
    out.rotation = impact::Quat<S>(q(s, 0), q(s, 1), q(s, 2), q(s, 3));
    return out;
  }
  impact::CastRows<S> cast_rows() {
    return {status, impact::ColumnOut<S>(value.data(), kQueries), o3(point_a), o3(point_b), o3(normal)};
  }
};

BatchScene& scene() {
  static BatchScene s;  // built on first use (a filter without these benchmarks builds nothing)
  return s;
}

enum class Query { distance, ray_cast, shape_cast, time_of_impact };

/// One call of the batch (threads ≥ 1) or, threads = 0, the single-query calls in a loop.
void run(Query q, int threads, BatchScene& s) {
  const impact::BatchOptions opt{.threads = threads};
  const Rows<S, 3> none(nullptr, 0, 3);
  std::string error;
  switch (q) {
    case Query::distance:
      if (threads > 0) {
        error = impact::distance_batch<S>(s.capsule, s.poses_a(), s.hull, s.poses_b(), {},
                                          {s.status, impact::ColumnOut<S>(s.value.data(), kQueries), BatchScene::o3(s.point_a),
                                           BatchScene::o3(s.point_b), BatchScene::o3(s.normal)},
                                          opt);
      } else {
        for (int i = 0; i < kQueries; ++i)
          benchmark::DoNotOptimize(impact::distance(s.capsule, s.pose(s.pa, s.qa, i), s.hull, s.pose(s.pb, s.qb, i)).distance);
      }
      break;
    case Query::ray_cast: {
      impact::Pose<S> at;
      if (threads > 0) {
        error = impact::ray_cast_batch<S>(s.hull, at, BatchScene::r3(s.origin), BatchScene::r3(s.direction), {.max_lambda = 2.0},
                                          {s.status, impact::ColumnOut<S>(s.value.data(), kQueries), BatchScene::o3(s.point_a),
                                           BatchScene::o3(s.normal)},
                                          opt);
      } else {
        for (int i = 0; i < kQueries; ++i)
          benchmark::DoNotOptimize(impact::ray_cast(s.hull, at, impact::Ray<S>{s.origin.row(i).transpose(), s.direction.row(i).transpose()},
                                                    {.max_lambda = 2.0})
                                       .lambda);
      }
      break;
    }
    case Query::shape_cast:
      if (threads > 0) {
        error = impact::shape_cast_batch<S>(s.capsule, s.poses_a(), BatchScene::r3(s.va), s.hull, s.poses_b(), none, {}, s.cast_rows(), opt);
      } else {
        for (int i = 0; i < kQueries; ++i)
          benchmark::DoNotOptimize(impact::shape_cast(s.capsule, s.pose(s.pa, s.qa, i), Vec3<S>(s.va.row(i).transpose()), s.hull,
                                                      s.pose(s.pb, s.qb, i), Vec3<S>(Vec3<S>::Zero()))
                                       .toi);
      }
      break;
    case Query::time_of_impact:
      if (threads > 0) {
        const impact::MotionRows<S> ma{s.poses_a(), BatchScene::r3(s.va), BatchScene::r3(s.wa)};
        const impact::MotionRows<S> mb{s.poses_b(), none, none};
        error = impact::time_of_impact_batch<S>(s.capsule, ma, s.hull, mb, {}, s.cast_rows(), opt);
      } else {
        for (int i = 0; i < kQueries; ++i) {
          impact::Motion<S> a, b;
          a.pose = s.pose(s.pa, s.qa, i);
          a.linear_velocity = s.va.row(i).transpose();
          a.angular_velocity = s.wa.row(i).transpose();
          b.pose = s.pose(s.pb, s.qb, i);
          benchmark::DoNotOptimize(impact::time_of_impact(s.capsule, a, s.hull, b).toi);
        }
      }
      break;
  }
  if (!error.empty()) std::abort();  // the scene's arrays are well formed: a refusal is a bug
}

void bm_batch(benchmark::State& st, Query q, int threads) {
  BatchScene& s = scene();
  for (auto _ : st) {
    run(q, threads, s);
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * kQueries);
  st.counters["ns_per_query"] = benchmark::Counter(static_cast<double>(st.iterations()) * kQueries,
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

void register_batch_benchmarks() {
  const std::pair<const char*, Query> queries[] = {{"distance_batch/capsule_hull", Query::distance},
                                                   {"ray_cast_batch/hull", Query::ray_cast},
                                                   {"shape_cast_batch/capsule_hull", Query::shape_cast},
                                                   {"time_of_impact_batch/capsule_hull", Query::time_of_impact}};
  for (const auto& [name, q] : queries) {
    for (int threads : {1, 2})
      benchmark::RegisterBenchmark((std::string(name) + "/impact/threads:" + std::to_string(threads)).c_str(), bm_batch, q, threads)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    benchmark::RegisterBenchmark((std::string(name) + "/impact/loop/threads:1").c_str(), bm_batch, q, 0)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace impact_bench
