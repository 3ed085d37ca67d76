// Cylinder–cylinder distance by Newton's method on alternating projections
// (detail/projection_distance.hpp), checked against the test oracles, not the library:
//  - a seeded battery of 10,000 pairs per precision placed like the benchmark's (half touching or
//    overlapping, half apart): the Newton path must certify most of them on its own (else GJK
//    silently does the work), and every answer it gives must be exact by certificate: witness
//    points on the two surfaces (oracle signed distance), and the separation along the answer's
//    normal (oracle support values) equal to the distance within tolerance, which proves the
//    distance and the normal; in double the points also lie along the normal;
//    intersecting answers hold one point inside both cylinders;
//  - closed forms through the public `impact::distance`: parallel sides, stacked caps, crossed
//    sides, a disc and a segment (flat and thin cylinders), with the boolean test agreeing.
#include "oracles.hpp"
#include "scenes.hpp"

#include "detail/projection_distance.hpp"
#include <impact/query.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace {

using namespace impact;
using oracle::V;

template <class S>
class CylinderNewton : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(CylinderNewton, Scalars);

TYPED_TEST(CylinderNewton, CertifiesMostPairsAndEveryAnswerIsExact) {
  using S = TypeParam;
  constexpr bool kDouble = sizeof(S) == 8;
  scenes::Rng rng(scenes::seed_of(std::string("cylinder Newton ") + scenes::scalar_name<S>()));
  auto in = [&](double lo, double hi) { return rng.uniform(lo, hi); };
  const double tol = kDouble ? 1e-9 : 1e-4;  // of the scene's size
  int certified = 0, intersecting = 0, bad = 0;
  constexpr int kCases = scenes::battery(10000);
  for (int i = 0; i < kCases; ++i) {
    const Cylinder<S> a{S(in(0.1, 1)), S(in(0.1, 1))}, b{S(in(0.1, 1)), S(in(0.1, 1))};
    Pose<S> pa, pb;
    pa.position = Vec3<double>(in(-5, 5), in(-5, 5), in(-5, 5)).cast<S>();
    pa.rotation = rng.rotation().cast<S>();
    pb.rotation = rng.rotation().cast<S>();
    pa.rotation.normalize();
    pb.rotation.normalize();
    // B's centre along a random direction, at a fraction of the sum of the bounding radii chosen
    // so that about half the pairs overlap.
    const V dir = rng.unit();
    const double reach = std::hypot(double(a.radius), double(a.half_height)) + std::hypot(double(b.radius), double(b.half_height));
    pb.position = pa.position + V(in(0.4, 1.2) * reach * dir).template cast<S>();
    const oracle::Body oa = oracle::make_body<S>(Shape<S>(a), pa), ob = oracle::make_body<S>(Shape<S>(b), pb);
    const Transform<S> ta(pa), tb(pb);
    detail::ProjectionDistance<S> pd;
    if (!detail::cylinder_distance(a, b, ta.relative(tb), Tolerances<S>::gjk_relative, detail::kProjectionMaxSteps, false,
                                   pd))
      continue;
    ++certified;
    const double size = reach + pa.position.template cast<double>().norm();
    const V wa = ta.apply(pd.pa).template cast<double>(), wb = ta.apply(pd.pb).template cast<double>();
    if (pd.status == Status::intersecting) {
      ++intersecting;
      const double excess = std::max(oracle::signed_distance(oa, wa), oracle::signed_distance(ob, wa));
      if (!(excess <= tol * size)) {
        ++bad;
        ADD_FAILURE() << "case " << i << ": common point outside by " << excess;
      }
      continue;
    }
    ASSERT_EQ(pd.status, Status::separated);
    const double d = (wb - wa).norm();
    // The normal the answer carries (A toward B), and its separation of the two bodies from the
    // oracle's support values: a lower bound of the distance, where |wa − wb| with both points
    // on the bodies is an upper bound.
    const V n = (ta.rotation * Vec3<S>(-pd.v.normalized())).template cast<double>();
    const double sep = -oracle::support_value(ob, -n) - oracle::support_value(oa, n);
    const double on_a = std::abs(oracle::signed_distance(oa, wa)), on_b = std::abs(oracle::signed_distance(ob, wb));
    // In double the points are the closest pair to rounding, so they lie along the normal. (In
    // float their difference carries ε·size/d of direction noise, 1e-3 rad at d = 1e-3.)
    const double tilt = kDouble ? n.cross((wb - wa) / d).norm() : 0.0;
    if (!(d - sep <= tol * size && on_a <= tol * size && on_b <= tol * size && tilt <= 1e-8)) {
      ++bad;
      ADD_FAILURE() << "case " << i << ": distance " << d << " separation " << sep << " off surfaces " << on_a << ", "
                    << on_b << " normal off the points' direction by " << tilt;
    }
  }
  EXPECT_EQ(bad, 0);
  // Most pairs are certified by Newton alone (measured: 99.5% in double, 98% in float on the
  // benchmark's pairs); the rest go to GJK.
  EXPECT_GE(certified, kCases * (kDouble ? 97 : 94) / 100);
  // Both kinds of answer are exercised.
  EXPECT_GE(intersecting, certified * 3 / 10);
  EXPECT_LE(intersecting, certified * 7 / 10);
  std::printf("cylinder Newton %s: %d of %d certified, %d intersecting\n", kDouble ? "double" : "float", certified, kCases,
              intersecting);
}

/// Distance between cylinders through the public query, with the boolean test agreeing.
template <class S>
void expect_distance(const Cylinder<S>& a, const Pose<S>& pa, const Cylinder<S>& b, const Pose<S>& pb, double expected,
                     const char* what) {
  const double tol = sizeof(S) == 8 ? 1e-9 : 2e-5;
  const auto r = distance(Shape<S>(a), pa, Shape<S>(b), pb);
  const auto i = intersect(Shape<S>(a), pa, Shape<S>(b), pb);
  if (expected > 0) {
    EXPECT_EQ(r.status, Status::separated) << what;
    EXPECT_NEAR(double(r.distance), expected, tol * 10) << what;
    EXPECT_EQ(i.status, Status::separated) << what;
  } else {
    EXPECT_EQ(r.status, Status::intersecting) << what;
    EXPECT_EQ(i.status, Status::intersecting) << what;
  }
}

TYPED_TEST(CylinderNewton, ClosedFormConfigurations) {
  using S = TypeParam;
  const Quat<S> id = Quat<S>::Identity();
  const Quat<S> tilt_x(Eigen::AngleAxis<S>(S(M_PI / 2), Vec3<S>::UnitX()));
  auto at = [](S x, S y, S z, const Quat<S>& q) { return Pose<S>{Vec3<S>(x, y, z), q}; };
  const Cylinder<S> a{S(0.5), S(1)}, b{S(0.3), S(0.8)};
  for (S gap : {S(0.7), S(0.01), S(1e-4)}) {
    // Parallel axes side by side: the sides are parallel segments' sweeps.
    expect_distance(a, at(0, 0, 0, id), b, at(S(0.8) + gap, 0, S(0.3), id), double(gap), "parallel sides");
    // Coaxial, stacked: cap against cap.
    expect_distance(a, at(0, 0, 0, id), b, at(0, 0, S(1.8) + gap, id), double(gap), "stacked caps");
    // Crossed at right angles, axes a distance 0.8 + gap apart: side against side.
    expect_distance(a, at(0, 0, 0, id), b, at(S(0.8) + gap, 0, 0, tilt_x), double(gap), "crossed sides");
    // A flat disc (half height 0) parallel to A's cap, above it.
    expect_distance(a, at(0, 0, 0, id), Cylinder<S>{S(0.4), S(0)}, at(S(0.2), 0, S(1) + gap, id), double(gap),
                    "disc over cap");
    // A segment (radius 0) crossing above the side: distance from the axis minus the radius.
    expect_distance(a, at(0, 0, 0, id), Cylinder<S>{S(0), S(2)}, at(S(0.5) + gap, 0, 0, tilt_x), double(gap),
                    "segment past side");
  }
  // Overlapping versions of the same configurations.
  expect_distance(a, at(0, 0, 0, id), b, at(S(0.7), 0, S(0.3), id), 0, "parallel sides overlapping");
  expect_distance(a, at(0, 0, 0, id), b, at(0, 0, S(1.7), id), 0, "stacked caps overlapping");
  expect_distance(a, at(0, 0, 0, id), b, at(S(0.75), 0, 0, tilt_x), 0, "crossed sides overlapping");
  expect_distance(a, at(0, 0, 0, id), b, at(0, 0, 0, tilt_x), 0, "concentric");
}

}  // namespace
