// GJK distance (src/detail/gjk.hpp) through its public entry points `impact::distance` and
// `impact::intersect` (include/impact/query.hpp), in float and double, on pairs whose distance
// has a closed form computed here:
// - two boxes, two cube hulls, a box and a cube hull, axis-aligned in a common frame that is then
//   turned and moved at random (distance is invariant): ‖max(0, |Δc| − hA − hB)‖ per axis;
// - a point (sphere core) against a box or a hull: ‖max(0, |p| − h)‖, less the sphere's radius;
// - an axis-aligned capsule against a box: its core is a box with half extents (0, 0, h), so the
//   same formula less the radius;
// - two segments (and capsules): the minimum of the convex quadratic |P(s) − Q(t)|² over the unit
//   square, from its interior stationary point and its four clamped edges.
// Also certified: the witness points lie on the shapes' surfaces and differ by normal·distance;
// a warm start (GjkCache) gives the cold answer; an iteration cap of 1 reports max_iterations
// with an upper bound, or a proven answer; `intersect` agrees with the distance's sign and its
// separating axis separates.
#include "scenes.hpp"

#include <impact/query.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using namespace impact;
using scenes::Rng;
using V = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;

/// Distance between two axis-aligned boxes with centres ca, cb (negative values are not needed).
double aabb_distance(const V& ca, const V& ha, const V& cb, const V& hb) {
  return ((cb - ca).cwiseAbs() - ha - hb).cwiseMax(0.0).norm();
}

/// Signed distance of world point p from a box of half extents h at (R, c): outside Euclidean,
/// inside minus the depth.
double box_signed_distance(const V& h, const M3& r, const V& c, const V& p) {
  const V local = r.transpose() * (p - c);
  const V excess = local.cwiseAbs() - h;
  return excess.maxCoeff() > 0 ? excess.cwiseMax(0.0).norm() : excess.maxCoeff();
}

/// Closest distance between segments [p0, p1] and [q0, q1]: min over (s, t) ∈ [0, 1]² of
/// |p0 + s·e − q0 − t·f|², a convex quadratic: its stationary point if inside, else the best of
/// the four edges (each a clamped 1-D minimum).
double segment_distance(const V& p0, const V& p1, const V& q0, const V& q1) {
  const V e = p1 - p0, f = q1 - q0, r = p0 - q0;
  auto value = [&](double s, double t) { return (r + s * e - t * f).norm(); };
  double best = std::numeric_limits<double>::infinity();
  const double a = e.dot(e), b = e.dot(f), c = f.dot(f), d = e.dot(r), g = f.dot(r);
  const double det = a * c - b * b;
  if (det > 1e-12 * a * c) {
    const double s = (b * g - c * d) / det, t = (a * g - b * d) / det;
    if (s >= 0 && s <= 1 && t >= 0 && t <= 1) best = value(s, t);
  }
  for (double s : {0.0, 1.0}) best = std::min(best, value(s, std::clamp((g + s * b) / c, 0.0, 1.0)));
  for (double t : {0.0, 1.0}) best = std::min(best, value(std::clamp((t * b - d) / a, 0.0, 1.0), t));
  return best;
}

template <class S>
Hull<S> cube_hull(const V& h) {
  std::vector<Vec3<S>> pts;
  for (int i = 0; i < 8; ++i) pts.push_back(V((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z()).template cast<S>());
  HullBuild<S> b = Hull<S>::build(pts);
  EXPECT_TRUE(b.ok()) << b.error;
  return b.hull;
}

template <class S>
Pose<S> make_pose(const V& p, const Eigen::Quaterniond& q) {
  Pose<S> x;
  x.position = p.template cast<S>();
  x.rotation = q.template cast<S>();
  return x;
}

template <class S>
double tolerance(double scale) {
  return (sizeof(S) == 4 ? 4e-5 : 1e-11) * (1 + scale);
}

/// Certifies a separated answer: status, distance, witnesses on the surfaces, normal.
template <class S>
void expect_distance(const DistanceResult<S>& r, double expected, double scale, const std::string& what) {
  const double tol = tolerance<S>(scale);
  if (expected > 10 * tol) {
    ASSERT_EQ(r.status, Status::separated) << what << " expected " << expected;
    EXPECT_NEAR(double(r.distance), expected, tol) << what;
    const V pa = r.point_a.template cast<double>(), pb = r.point_b.template cast<double>();
    const V n = r.normal.template cast<double>();
    EXPECT_NEAR(n.norm(), 1.0, tol) << what;
    EXPECT_LE((pb - pa - expected * n).norm(), 2 * tol) << what;
  } else if (expected == 0) {
    // Overlapping boxes (by more than rounding: the cases are built so).
    EXPECT_EQ(r.status, Status::intersecting) << what;
    EXPECT_EQ(r.distance, S(0)) << what;
  }
}

template <class S>
class GjkDistance : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(GjkDistance, Scalars);

/// Two axis-aligned boxes in a random frame; `which` picks box/box, hull/hull or box/hull.
template <class S>
void boxes_in_a_frame(const std::string& name, int which) {
  Rng rng(scenes::seed_of(name + scenes::scalar_name<S>()));
  int separated = 0, overlapping = 0;
  for (int c = 0; c < scenes::battery(1500); ++c) {
    const V ha(rng.uniform(0.1, 2), rng.uniform(0.1, 2), rng.uniform(0.1, 2));
    const V hb(rng.uniform(0.1, 2), rng.uniform(0.1, 2), rng.uniform(0.1, 2));
    V delta = rng.in_cube(4);
    if (c % 3 == 0) {  // separated along one axis only, overlapping in the other two
      const int k = rng.index(3);
      for (int i = 0; i < 3; ++i)
        if (i != k) delta[i] = rng.uniform(-0.9, 0.9) * (ha[i] + hb[i]);
    }
    const double expected = aabb_distance(V::Zero(), ha, delta, hb);
    // Overlap depth: how far the boxes interpenetrate along their least-overlapping axis.
    const double depth = (ha + hb - delta.cwiseAbs()).minCoeff();
    if (expected == 0 && depth < 1e-3) continue;  // touching: not this test's business
    // The common frame: a random rotation and translation of the whole scene.
    const Eigen::Quaterniond q = rng.rotation();
    const V origin = rng.in_cube(10);
    const Shape<S> a = which == 1 ? Shape<S>(cube_hull<S>(ha)) : Shape<S>(Box<S>{ha.template cast<S>()});
    const Shape<S> b = which == 0 ? Shape<S>(Box<S>{hb.template cast<S>()}) : Shape<S>(cube_hull<S>(hb));
    const Pose<S> pa = make_pose<S>(origin, q), pb = make_pose<S>(origin + q * delta, q);
    const DistanceResult<S> r = distance<S>(a, pa, b, pb);
    const std::string what = name + " case " + std::to_string(c);
    expect_distance(r, expected, 12, what);
    if (r.status == Status::separated) {
      ++separated;
      // The witnesses lie on the boxes' surfaces (in float, the poses' rounding too).
      const M3 ra = pa.rotation.template cast<double>().normalized().toRotationMatrix();
      const M3 rb = pb.rotation.template cast<double>().normalized().toRotationMatrix();
      EXPECT_NEAR(box_signed_distance(ha, ra, pa.position.template cast<double>(), r.point_a.template cast<double>()), 0,
                  tolerance<S>(12)) << what;
      EXPECT_NEAR(box_signed_distance(hb, rb, pb.position.template cast<double>(), r.point_b.template cast<double>()), 0,
                  tolerance<S>(12)) << what;
    } else {
      ++overlapping;
    }
    // intersect() agrees, and its axis separates.
    const IntersectResult<S> i = intersect<S>(a, pa, b, pb);
    if (expected > 10 * tolerance<S>(12)) {
      ASSERT_EQ(i.status, Status::separated) << what;
      const V d = i.separating_axis.template cast<double>();
      const V u = q.inverse() * d;  // in the boxes' frame: support values are closed forms
      const double max_a = u.cwiseAbs().dot(ha), min_b = u.dot(delta) - u.cwiseAbs().dot(hb);
      EXPECT_LT(max_a, min_b + tolerance<S>(12) * d.norm()) << what;
    } else if (expected == 0) {
      EXPECT_EQ(i.status, Status::intersecting) << what;
    }
  }
  // Both outcomes well represented, whatever the battery's size (smaller under the sanitizers).
  EXPECT_GT(separated, scenes::battery(1500) / 5);
  EXPECT_GT(overlapping, scenes::battery(1500) / 15);
}

TYPED_TEST(GjkDistance, BoxBoxInARandomFrame) { boxes_in_a_frame<TypeParam>("gjk box box ", 0); }
TYPED_TEST(GjkDistance, HullHullInARandomFrame) { boxes_in_a_frame<TypeParam>("gjk hull hull ", 1); }
TYPED_TEST(GjkDistance, BoxHullInARandomFrame) { boxes_in_a_frame<TypeParam>("gjk box hull ", 2); }

TYPED_TEST(GjkDistance, PointsAndSpheresAgainstBoxesAndHulls) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("gjk point box ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(2000); ++c) {
    const V h(rng.uniform(0.1, 2), rng.uniform(0.1, 2), rng.uniform(0.1, 2));
    const V p = rng.in_cube(4);
    const double radius = c % 2 ? rng.uniform(0, 0.5) : 0.0;
    const double outside = aabb_distance(V::Zero(), h, p, V::Zero());
    const double expected = std::max(0.0, outside - radius);
    if (outside == 0 || std::abs(outside - radius) < 1e-3) continue;  // inside, or touching
    const Eigen::Quaterniond q = rng.rotation();
    const V origin = rng.in_cube(10);
    const Shape<S> ball = radius > 0 ? Shape<S>(Sphere<S>{S(radius)}) : Shape<S>(Point<S>{});
    const Shape<S> box = c % 4 < 2 ? Shape<S>(Box<S>{h.template cast<S>()}) : Shape<S>(cube_hull<S>(h));
    const DistanceResult<S> r =
        distance<S>(box, make_pose<S>(origin, q), ball, make_pose<S>(origin + q * p, rng.rotation()));
    expect_distance(r, expected, 12, "case " + std::to_string(c));
  }
}

TYPED_TEST(GjkDistance, AxisAlignedCapsuleAgainstABox) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("gjk capsule box ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(2000); ++c) {
    const V h(rng.uniform(0.1, 2), rng.uniform(0.1, 2), rng.uniform(0.1, 2));
    const double hh = rng.uniform(0, 1.5), radius = rng.uniform(0.05, 0.6);
    const V p = rng.in_cube(4);
    // The capsule's core is the box (0, 0, hh) at p: the boxes' distance, less the radius.
    const double core = aabb_distance(V::Zero(), h, p, V(0, 0, hh));
    if (core == 0 || std::abs(core - radius) < 1e-3) continue;
    const double expected = std::max(0.0, core - radius);
    const Eigen::Quaterniond q = rng.rotation();
    const V origin = rng.in_cube(10);
    const DistanceResult<S> r = distance<S>(Shape<S>(Box<S>{h.template cast<S>()}), make_pose<S>(origin, q),
                                            Shape<S>(Capsule<S>{S(radius), S(hh)}), make_pose<S>(origin + q * p, q));
    expect_distance(r, expected, 12, "case " + std::to_string(c));
  }
}

TYPED_TEST(GjkDistance, SegmentsAndCapsules) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("gjk segments ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(2000); ++c) {
    // Segments in the world (identity poses), their ends rounded to S first.
    const V p0 = rng.in_cube(3).template cast<S>().template cast<double>();
    const V p1 = (p0 + rng.in_cube(2)).template cast<S>().template cast<double>();
    const V q0 = rng.in_cube(3).template cast<S>().template cast<double>();
    const V q1 = (q0 + rng.in_cube(2)).template cast<S>().template cast<double>();
    const double core = segment_distance(p0, p1, q0, q1);
    const bool round = c % 2;
    const double ra = round ? rng.uniform(0, 0.3) : 0, rb = round ? rng.uniform(0, 0.3) : 0;
    if (core < 1e-3 || std::abs(core - ra - rb) < 1e-3) continue;
    const double expected = std::max(0.0, core - ra - rb);
    const std::string what = "case " + std::to_string(c);
    if (!round) {
      const DistanceResult<S> r = distance<S>(Shape<S>(Segment<S>{p0.template cast<S>(), p1.template cast<S>()}), {},
                                              Shape<S>(Segment<S>{q0.template cast<S>(), q1.template cast<S>()}), {});
      expect_distance(r, expected, 5, what);
      continue;
    }
    // Capsules along z, placed so that their cores are the segments.
    auto capsule_pose = [](const V& a, const V& b) {
      return make_pose<S>(0.5 * (a + b), Eigen::Quaterniond::FromTwoVectors(V::UnitZ(), b - a));
    };
    const DistanceResult<S> r =
        distance<S>(Shape<S>(Capsule<S>{S(ra), S(0.5 * (p1 - p0).norm())}), capsule_pose(p0, p1),
                    Shape<S>(Capsule<S>{S(rb), S(0.5 * (q1 - q0).norm())}), capsule_pose(q0, q1));
    expect_distance(r, expected, 20, what);
  }
}

TYPED_TEST(GjkDistance, WarmStartGivesTheColdAnswer) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("gjk warm ") + scenes::scalar_name<S>()));
  int cold_iterations = 0, warm_iterations = 0;
  for (int c = 0; c < scenes::battery(500); ++c) {
    const V ha(rng.uniform(0.2, 2), rng.uniform(0.2, 2), rng.uniform(0.2, 2));
    const V hb(rng.uniform(0.2, 2), rng.uniform(0.2, 2), rng.uniform(0.2, 2));
    const Shape<S> a = Shape<S>(cube_hull<S>(ha)), b = Shape<S>(Box<S>{hb.template cast<S>()});
    const Eigen::Quaterniond q = rng.rotation();
    V delta = (ha.norm() + hb.norm() + rng.uniform(0.1, 2)) * rng.unit();
    GjkCache<S> cache;
    // A pair drifting apart and around: every step is answered warm and cold.
    for (int step = 0; step < 10; ++step) {
      delta += rng.in_cube(0.05);
      const Pose<S> pa = make_pose<S>(V::Zero(), q), pb = make_pose<S>(q * delta, q);
      const DistanceResult<S> warm = distance<S>(a, pa, b, pb, {}, &cache);
      const DistanceResult<S> cold = distance<S>(a, pa, b, pb);
      const std::string what = "case " + std::to_string(c) + " step " + std::to_string(step);
      ASSERT_EQ(warm.status, cold.status) << what;
      expect_distance(warm, aabb_distance(V::Zero(), ha, delta, hb), 10, what);
      EXPECT_NEAR(double(warm.distance), double(cold.distance), tolerance<S>(10)) << what;
      EXPECT_GT(cache.count, 0) << what << ": the cache keeps the simplex";
      if (step > 0) {
        cold_iterations += cold.iterations;
        warm_iterations += warm.iterations;
      }
    }
  }
  // What a warm start is for: fewer iterations on a slowly moving pair.
  EXPECT_LT(warm_iterations, cold_iterations);
}

TYPED_TEST(GjkDistance, IterationCapReportsAnUpperBoundOrAProof) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("gjk cap ") + scenes::scalar_name<S>()));
  int capped = 0;
  for (int c = 0; c < scenes::battery(1000); ++c) {
    const V ha(rng.uniform(0.1, 2), rng.uniform(0.1, 2), rng.uniform(0.1, 2));
    const V hb(rng.uniform(0.1, 2), rng.uniform(0.1, 2), rng.uniform(0.1, 2));
    const V delta = rng.in_cube(5);
    const double expected = aabb_distance(V::Zero(), ha, delta, hb);
    if (expected < 1e-3) continue;
    const Eigen::Quaterniond q = rng.rotation();
    GjkOptions<S> opt;
    opt.max_iterations = 1 + c % 2;
    const DistanceResult<S> r = distance<S>(Shape<S>(cube_hull<S>(ha)), make_pose<S>(V::Zero(), q),
                                            Shape<S>(cube_hull<S>(hb)), make_pose<S>(q * delta, q), opt);
    const std::string what = "case " + std::to_string(c);
    if (r.status == Status::max_iterations) {
      ++capped;
      // An upper bound, with valid points that far apart.
      EXPECT_GE(double(r.distance), expected - tolerance<S>(10)) << what;
      EXPECT_NEAR((r.point_b - r.point_a).template cast<double>().norm(), double(r.distance), tolerance<S>(10)) << what;
    } else {
      expect_distance(r, expected, 10, what);
    }
    // The cap holds for each loop: the double one and, when it ends unproven, the long-double
    // retry (GjkOptions::wide_retry).
    EXPECT_LE(r.iterations, 2 * opt.max_iterations) << what;
  }
  EXPECT_GT(capped, scenes::battery(1000) / 10);
}

}  // namespace
