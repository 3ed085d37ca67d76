// Certifies the test oracles themselves (tests/support/oracles.hpp), so that a failing library
// test points at the library: every exact distance agrees with brute force over dense samples
// (it is never above the closest sampled pair and within the sampling resolution of it), the
// two overlap tests (SAT and features) agree, the closed forms agree with feature enumeration,
// and the signed distances of cylinders and cones agree with their sampled surfaces.
#include "oracles.hpp"
#include "scenes.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using oracle::Body;
using oracle::Kind;
using oracle::V;

std::vector<V> samples_of(const Body& b, scenes::Rng& rng, int n) {
  auto s = oracle::surface_samples(b, n, [&] { return rng.unit(); }, [&] { return rng.uniform(); });
  // Dense points on the core's faces and edges too, for polytopes.
  if (b.has_core) {
    for (const auto& t : b.core.triangles)
      for (int i = 0; i < n / 20; ++i) {
        double u = rng.uniform(), w = rng.uniform();
        if (u + w > 1) {
          u = 1 - u;
          w = 1 - w;
        }
        const V& a = b.core.vertices[t[0]];
        s.push_back(a + u * (b.core.vertices[t[1]] - a) + w * (b.core.vertices[t[2]] - a) + b.radius * rng.unit());
      }
    for (const auto& e : b.core.edges)
      for (int i = 0; i < n / 20; ++i)
        s.push_back(b.core.vertices[e[0]] + rng.uniform() * (b.core.vertices[e[1]] - b.core.vertices[e[0]]) + b.radius * rng.unit());
  }
  return s;
}

TEST(Oracles, BruteForceHullOfACubeCloudHasEightVerticesSixFacesTwelveEdges) {
  std::vector<V> pts;
  for (int i = 0; i < 8; ++i) pts.emplace_back(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
  pts.emplace_back(0, 0, 1);  // face centre
  pts.emplace_back(0, 1, 1);  // edge midpoint
  pts.emplace_back(0.1, 0.2, 0.3);
  pts.push_back(pts[0]);
  const oracle::Polytope p = oracle::polytope_from_points(pts);
  EXPECT_EQ(p.dimension, 3);
  EXPECT_EQ(p.vertices.size(), 8u);
  EXPECT_EQ(p.planes.size(), 6u);
  EXPECT_EQ(p.edges.size(), 12u);
  EXPECT_EQ(p.triangles.size(), 12u);
}

/// The exact distance of every pair with an oracle is a lower bound of all sampled pair distances
/// and within the sampling resolution of their minimum; overlapping pairs give 0.
TEST(Oracles, ExactDistancesAgreeWithDenseSampling) {
  scenes::Rng rng(scenes::seed_of("oracle sampling"));
  int checked = 0, overlapping = 0;
  for (std::size_t ia = 0; ia < std::size(scenes::kAllKinds); ++ia)
    for (std::size_t ib = ia; ib < std::size(scenes::kAllKinds); ++ib) {
      const Kind ka = scenes::kAllKinds[ia], kb = scenes::kAllKinds[ib];
      for (int i = 0; i < 5; ++i) {
        const auto c = scenes::random_case<double>(ka, kb, rng, i);
        const auto exact = oracle::distance(c.body_a, c.body_b);
        if (!exact) continue;
        ++checked;
        if (*exact == 0) {
          ++overlapping;
          continue;
        }
        const auto sa = samples_of(c.body_a, rng, 400), sb = samples_of(c.body_b, rng, 400);
        double sampled = oracle::kInf;
        for (const V& x : sa)
          for (const V& y : sb) sampled = std::min(sampled, (x - y).norm());
        EXPECT_LE(*exact, sampled + 1e-12) << c.describe();
        // Sample spacing on unit-sized shapes is about 0.15; the closest pair is found within that.
        EXPECT_GE(*exact, sampled - 0.25) << c.describe();
        // And against the closed signed distance: the sampled points of B are no closer to A.
        for (const V& y : sb) EXPECT_GE(oracle::signed_distance(c.body_a, y), *exact - 1e-12);
      }
    }
  EXPECT_GT(checked, 150);
  EXPECT_GT(overlapping, 40);
}

/// Cylinder and cone signed distances: outside points are at the distance of the nearest sampled
/// surface point (within sampling resolution, never farther), inside points are negative, and
/// the samples themselves are on the surface.
TEST(Oracles, CylinderAndConeSignedDistancesAgreeWithSampledSurfaces) {
  scenes::Rng rng(scenes::seed_of("oracle round"));
  for (Kind k : {Kind::cylinder, Kind::cone}) {
    for (int i = 0; i < 10; ++i) {
      const auto rs = scenes::random_shape<double>(k, rng);
      const Body b = oracle::make_body(rs.shape, scenes::make_pose<double>(rng.in_cube(1), rng.rotation()));
      const auto surface = oracle::surface_samples(b, 20000, [&] { return rng.unit(); }, [&] { return rng.uniform(); });
      for (const V& s : surface) EXPECT_NEAR(oracle::signed_distance(b, s), 0.0, 1e-12);
      for (int j = 0; j < 200; ++j) {
        const V x = b.pos + rng.in_cube(2.5);
        const double sd = oracle::signed_distance(b, x);
        double nearest = oracle::kInf;
        for (const V& s : surface) nearest = std::min(nearest, (s - x).norm());
        if (sd > 0) {
          EXPECT_LE(sd, nearest + 1e-12);
          EXPECT_GE(sd, nearest - 0.05) << oracle::kind_name(k);
        } else {
          // Inside: the depth is the distance to the surface.
          EXPECT_LE(-sd, nearest + 1e-12);
          EXPECT_GE(-sd, nearest - 0.05) << oracle::kind_name(k);
        }
      }
    }
  }
}

/// The separating axis test and the feature test decide overlap alike on solids; the 15-axis box
/// test and the closed forms agree with generic feature enumeration.
TEST(Oracles, OverlapTestsAndClosedFormsAgreeWithFeatureEnumeration) {
  scenes::Rng rng(scenes::seed_of("oracle overlap"));
  int overlaps = 0;
  for (int i = 0; i < 3000; ++i) {
    const Kind ka = i % 2 ? Kind::box : Kind::hull, kb = i % 3 ? Kind::hull : Kind::box;
    const auto c = scenes::random_case<double>(ka, kb, rng, i);
    const bool sat = oracle::sat_overlap(c.body_a.core, c.body_b.core);
    EXPECT_EQ(sat, oracle::feature_overlap(c.body_a.core, c.body_b.core)) << c.describe();
    overlaps += sat;
  }
  EXPECT_GT(overlaps, 900);
  EXPECT_LT(overlaps, 2100);
  for (int i = 0; i < 2000; ++i) {
    const auto c = scenes::random_case<double>(Kind::box, Kind::box, rng, i);
    const auto& ha = std::get<impact::Box<double>>(c.a.variant()).half_extents;
    const auto& hb = std::get<impact::Box<double>>(c.b.variant()).half_extents;
    EXPECT_NEAR(oracle::box_box(ha, c.body_a.rot, c.body_a.pos, hb, c.body_b.rot, c.body_b.pos),
                oracle::polytope_distance(c.body_a.core, c.body_b.core), 1e-13)
        << c.describe();
    const auto s = scenes::random_case<double>(Kind::sphere, Kind::box, rng, i);
    EXPECT_NEAR(oracle::sphere_box(s.body_a.pos, s.body_a.radius, std::get<impact::Box<double>>(s.b.variant()).half_extents,
                                   s.body_b.rot, s.body_b.pos),
                *oracle::distance(s.body_a, s.body_b), 1e-13);
  }
}

TEST(Oracles, SegmentSegmentDistanceAgreesWithDenseSampling) {
  scenes::Rng rng(scenes::seed_of("oracle segments"));
  for (int i = 0; i < 300; ++i) {
    const V a0 = rng.in_cube(1), a1 = i % 10 == 0 ? a0 : rng.in_cube(1), b0 = rng.in_cube(1);
    // Some parallel pairs.
    const V b1 = i % 7 == 0 ? V(b0 + 0.7 * (a1 - a0)) : rng.in_cube(1);
    const auto r = oracle::segment_segment(a0, a1, b0, b1);
    EXPECT_NEAR((r.p - r.q).norm(), r.distance, 1e-14);
    double sampled = oracle::kInf;
    for (int s = 0; s <= 400; ++s)
      for (int t = 0; t <= 400; t += 1) sampled = std::min(sampled, ((a0 + s / 400.0 * (a1 - a0)) - (b0 + t / 400.0 * (b1 - b0))).norm());
    EXPECT_LE(r.distance, sampled + 1e-14);
    EXPECT_GE(r.distance, sampled - 0.01);
  }
}

TEST(Oracles, SeparationSearchAndCommonPointCertifyTheRightAnswer) {
  scenes::Rng rng(scenes::seed_of("oracle certificates"));
  int apart = 0, together = 0;
  for (int i = 0; i < 2000; ++i) {
    const Kind ka = scenes::kAllKinds[rng.index(10)], kb = scenes::kAllKinds[rng.index(10)];
    const auto c = scenes::random_case<double>(ka, kb, rng, i);
    const auto exact = oracle::distance(c.body_a, c.body_b);
    if (!exact) continue;
    // A separation found is never more than the distance (it is a lower bound)...
    const double sep = oracle::best_separation(c.body_a, c.body_b, {V(c.body_b.pos - c.body_a.pos)});
    EXPECT_LE(sep, *exact + 1e-12) << c.describe();
    if (*exact > 1e-3) {
      ++apart;
      // ... and for apart shapes the search proves most of the distance (Frank–Wolfe converges
      // slowly; the search is only used to refute answers that claim an overlap).
      EXPECT_GT(sep, 0.5 * *exact) << c.describe();
    } else if (*exact == 0) {
      ++together;
    }
  }
  EXPECT_GT(apart, 400);
  EXPECT_GT(together, 400);
  // Two overlapping balls have a common point between their centres; two apart balls do not.
  const auto ball = impact::Shape<double>(impact::Sphere<double>{1.0});
  const Body a = oracle::make_body(ball, scenes::make_pose<double>(V(0, 0, 0), Eigen::Quaterniond::Identity()));
  const Body b = oracle::make_body(ball, scenes::make_pose<double>(V(1.5, 0, 0), Eigen::Quaterniond::Identity()));
  const Body c = oracle::make_body(ball, scenes::make_pose<double>(V(2.5, 0, 0), Eigen::Quaterniond::Identity()));
  EXPECT_LE(oracle::common_point_excess(a, b, a.pos, b.pos), 0.0);
  EXPECT_NEAR(oracle::common_point_excess(a, c, a.pos, c.pos), 0.25, 1e-9);
}

}  // namespace
