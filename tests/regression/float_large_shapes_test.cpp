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
