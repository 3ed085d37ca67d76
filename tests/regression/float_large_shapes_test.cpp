// Regression: float distance, shape_cast and time_of_impact on shapes of size 1e6 and above
// answered "internal: the query produced a non-finite number".
//
// Found by fuzzing `impact query` (issue 16, item 7): two overlapping boxes of half extent 1e6,
// and 45 of 200 random float queries at 3e6, although the protocol accepts sizes up to 1e12.
// GJK's squared lengths and determinants (products of squared lengths) overflowed float. Float
// shapes are now queried by loops in double (detail/promote.hpp); these cases check the answers
// against closed forms at that scale, not only that they are finite.
#include <impact/cast.hpp>
#include <impact/query.hpp>
#include <impact/toi.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace {

using namespace impact;

bool finite(const Vec3<float>& v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }

TEST(FloatLargeShapes, OverlappingBoxesOfSize1e6AreIntersecting) {
  const Shape<float> box = Box<float>{Vec3<float>(1e6f, 1e6f, 1e6f)};
  Pose<float> pa, pb;
  pb.position = Vec3<float>(5e5f, 3e5f, 1e5f);
  pb.rotation = Quat<float>(0.9f, 0.1f, 0.3f, 0.3f);
  const DistanceResult<float> r = distance(box, pa, box, pb);
  EXPECT_EQ(r.status, Status::intersecting) << r.error;
  EXPECT_TRUE(finite(r.point_a) && finite(r.point_b));
}

TEST(FloatLargeShapes, SphereDistancesAndCastsAt3e6MatchClosedForms) {
  std::mt19937_64 rng(16);
  std::uniform_real_distribution<double> coord(-3e6, 3e6), radius(1e5, 3e6), unit(-1, 1);
  int separated = 0;
  for (int i = 0; i < 200; ++i) {
    const float ra = float(radius(rng)), rb = float(radius(rng));
    Pose<float> pa, pb;
    pa.position = Vec3<float>(float(coord(rng)), float(coord(rng)), float(coord(rng)));
    pb.position = Vec3<float>(float(coord(rng)), float(coord(rng)), float(coord(rng)));
    const Shape<float> a = Sphere<float>{ra}, b = Sphere<float>{rb};
    const double centres = (pb.position.cast<double>() - pa.position.cast<double>()).norm();
    const double exact = std::max(0.0, centres - ra - rb);
    const double tol = 1e-4 * (centres + ra + rb);  // float's tolerance, 1e-4 of the scene's size
    const DistanceResult<float> r = distance(a, pa, b, pb);
    ASSERT_TRUE(r.status == Status::separated || r.status == Status::intersecting) << i << ": " << r.error;
    EXPECT_NEAR(double(r.distance), exact, tol) << i;
    EXPECT_TRUE(finite(r.point_a) && finite(r.point_b) && finite(r.normal)) << i;
    if (r.status == Status::separated) ++separated;
    // B moves straight at A's centre: the cast hits when the gap closes, at t = gap / speed.
    const Vec3<float> velocity = Vec3<float>((pa.position - pb.position) * 2.0f);
    ShapeCastOptions<float> opt;
    opt.method = CastMethod::conservative_advancement;
    opt.tolerance = float(tol);
    const CastHit<float> h = shape_cast(a, pa, Vec3<float>(Vec3<float>::Zero()), b, pb, velocity, opt);
    ASSERT_NE(h.status, Status::invalid_input) << i << ": " << h.error;
    if (exact > tol) {
      ASSERT_EQ(h.status, Status::hit) << i;
      const double speed = velocity.cast<double>().norm();
      EXPECT_LE(double(h.toi), exact / speed + 1e-6) << i;                  // never late
      EXPECT_GE(double(h.toi), (exact - 2 * tol) / speed - 1e-6) << i;      // within the tolerance
      EXPECT_TRUE(finite(h.point_a) && finite(h.point_b) && finite(h.normal)) << i;
    }
    Motion<float> ma, mb;
    ma.pose = pa;
    mb.pose = pb;
    mb.linear_velocity = velocity;
    mb.angular_velocity = Vec3<float>(float(unit(rng)), float(unit(rng)), float(unit(rng)));
    ToiOptions<float> topt;
    topt.tolerance = float(tol);
    const ToiHit<float> t = time_of_impact(a, ma, b, mb, topt);
    ASSERT_NE(t.status, Status::invalid_input) << i << ": " << t.error;
    if (exact > tol) {
      // Spheres turning about their centres: the same contact time as the straight cast.
      ASSERT_EQ(t.status, Status::hit) << i;
      EXPECT_LE(double(t.toi), exact / velocity.cast<double>().norm() + 1e-6) << i;
      EXPECT_TRUE(finite(t.point_a) && finite(t.point_b) && finite(t.normal)) << i;
    }
  }
  EXPECT_GT(separated, 50);  // both outcomes exercised
  EXPECT_LT(separated, 195);
}

}  // namespace

namespace {

using namespace impact;

/// Distance from p to the segment [a, b] (double).
double point_segment(const Vec3<double>& p, const Vec3<double>& a, const Vec3<double>& b) {
  const Vec3<double> e = b - a;
  const double t = std::clamp((p - a).dot(e) / e.squaredNorm(), 0.0, 1.0);
  return (p - (a + t * e)).norm();
}

// Found by fuzz_shape_cast's points certificate (2026-11-28): a point cast at a capsule of radius
// 6e5 in float, target 0.25, by conservative advancement: a hit at the right time with its points
// 75.8 apart. The method ended on the plane of its last step, a little stale; shape_cast's
// refinement found the right one at toi, but its guard compared the two planes' separations in
// float, where sums of support values 6e5 large round by more than the difference, and kept
// the stale plane. The guard now allows for that rounding.
TEST(FloatLargeShapes, PointAtACapsuleOfRadius6e5HitPointsAtTheTarget) {
  const Shape<float> a = Point<float>{};
  const Shape<float> b = Capsule<float>{604297.62095225079f, 4.0f};
  Pose<float> pa, pb;
  pa.position = Vec3<float>(0, 0, -4);
  pb.position = Vec3<float>(3.5f, 22.174748550287628f, 690582.68689130305f);
  const Vec3<float> va(-4, 0.75f, 690582.68691276456f), vb(4, 690582.68691276456f, -0.014480527137294143f);
  for (CastMethod m : {CastMethod::gjk_raycast, CastMethod::conservative_advancement, CastMethod::mpr}) {
    ShapeCastOptions<float> o;
    o.method = m;
    o.target_distance = 0.25f;
    const CastHit<float> h = shape_cast<float>(a, pa, va, b, pb, vb, o);
    ASSERT_EQ(h.status, Status::hit) << "method " << static_cast<int>(m);
    // Twice the honest tolerance of float at a reach of 1.4e6 (64 ulps: 10.5).
    EXPECT_LE((h.point_a - h.point_b).norm(), 0.25 + 21) << "method " << static_cast<int>(m);
  }
}

// The same kind of cast at random: a point at capsules of radius 1e5 to 1e6 in float, by each
// method, target 0.25. At a hit the distance (closed form, double) is the target and the points
// are the target apart, both to the honest tolerance of the scene's reach.
TEST(FloatLargeShapes, PointsAtLargeCapsulesHitPointsAtTheTarget) {
  std::mt19937_64 rng(61);
  std::uniform_real_distribution<double> unit(-1, 1), radius(1e5, 1e6);
  int hits = 0;
  for (int i = 0; i < 600; ++i) {
    const float r = float(radius(rng)), half = float(1 + 4 * std::abs(unit(rng)));
    Pose<float> pb;
    pb.position = Vec3<float>(float(1e5 * unit(rng)), float(1e5 * unit(rng)), float(1e5 * unit(rng)));
    pb.rotation = Quat<float>(float(unit(rng)), float(unit(rng)), float(unit(rng)), float(unit(rng))).normalized();
    // The point starts 1.5 radii from the capsule's centre and moves toward a spot near it.
    const Vec3<double> dir = Vec3<double>(unit(rng), unit(rng), unit(rng)).normalized();
    Pose<float> pa;
    pa.position = (pb.position.cast<double>() + 1.5 * double(r) * dir).cast<float>();
    const Vec3<double> aim = pb.position.cast<double>() + 1.2 * double(r) * Vec3<double>(unit(rng), unit(rng), unit(rng));
    const Vec3<float> va = (aim - pa.position.cast<double>()).cast<float>();
    const Shape<float> a = Point<float>{}, b = Capsule<float>{r, half};
    const Vec3<double> axis = (pb.rotation.cast<double>() * Vec3<double>::UnitZ());
    const Vec3<double> c0 = pb.position.cast<double>() - double(half) * axis, c1 = pb.position.cast<double>() + double(half) * axis;
    const double reach = pb.position.cast<double>().norm() + 3 * double(r);
    const double honest = 64 * double(std::numeric_limits<float>::epsilon()) * reach;
    for (CastMethod m : {CastMethod::gjk_raycast, CastMethod::conservative_advancement, CastMethod::mpr}) {
      ShapeCastOptions<float> o;
      o.method = m;
      o.target_distance = 0.25f;
      const CastHit<float> h = shape_cast<float>(a, pa, va, b, pb, Vec3<float>::Zero(), o);
      if (h.status != Status::hit) continue;
      ++hits;
      const Vec3<double> p = pa.position.cast<double>() + double(h.toi) * va.cast<double>();
      const double gap = point_segment(p, c0, c1) - double(r);
      EXPECT_NEAR(gap, 0.25, 2 * honest) << "case " << i << " method " << static_cast<int>(m);
      EXPECT_LE((h.point_a - h.point_b).norm(), 0.25 + 2 * honest) << "case " << i << " method " << static_cast<int>(m);
    }
  }
  EXPECT_GT(hits, 600);
}

}  // namespace
