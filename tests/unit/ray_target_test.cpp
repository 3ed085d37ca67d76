// RayTarget (include/impact/cast.hpp): a shape at a pose prepared once for many rays answers every
// ray bit for bit as `ray_cast(shape, pose, ray, options)` — every shape kind, rounded and
// Minkowski shapes, closed forms on and off, the separating-axis warm start, and invalid input
// named by the same field — and a sphere's closed form through it.
#include <impact/cast.hpp>

#include "scenes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace impact;
using oracle::Kind;
using V = Eigen::Vector3d;

using scenes::same_bits;
template <class S>
::testing::AssertionResult same_hit(const RayHit<S>& a, const RayHit<S>& b) {
  if (a.status != b.status || !same_bits(a.lambda, b.lambda) || !same_bits(a.point, b.point) ||
      !same_bits(a.normal, b.normal) || a.iterations != b.iterations || a.error != b.error)
    return ::testing::AssertionFailure() << to_string(a.status) << " λ " << a.lambda << " '" << a.error << "' against "
                                         << to_string(b.status) << " λ " << b.lambda << " '" << b.error << "'";
  return ::testing::AssertionSuccess();
}

template <class S>
class RayTargets : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RayTargets, Scalars);

TYPED_TEST(RayTargets, EveryRayEqualsRayCastBitForBit) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("ray target ") + scenes::scalar_name<S>()));
  const Kind kinds[] = {Kind::point, Kind::sphere, Kind::box, Kind::capsule, Kind::cylinder,
                        Kind::cone, Kind::segment, Kind::triangle, Kind::hull, Kind::rounded_box};
  auto ball = std::make_shared<const Shape<S>>(Sphere<S>{S(0.15)});
  int hits = 0, rays = 0;
  for (int shape_case = 0; shape_case < scenes::battery(240); ++shape_case) {
    Shape<S> shape = scenes::random_shape<S>(kinds[shape_case % std::size(kinds)], rng).shape;
    // Every third shape a Minkowski sum with a ball (the GJK ray cast, or a rounded closed form).
    if (shape_case % 3 == 2) shape = MinkowskiShape<S>{std::make_shared<const Shape<S>>(shape), ball};
    Pose<S> pose = scenes::make_pose<S>(rng.in_cube(2), rng.rotation());
    if (shape_case % 5 == 0) pose.rotation.coeffs() *= S(1 + 4e-7);  // not quite unit: both normalise it alike
    const RayTarget<S> target(shape, pose);
    ASSERT_EQ(target.error(), "");
    for (int r = 0; r < 20; ++r, ++rays) {
      const Vec3<S> o = scenes::to_s<S>(rng.in_cube(4));
      // Toward the shape about half the time.
      const Vec3<S> d = scenes::to_s<S>(V((pose.position.template cast<double>() - o.template cast<double>()) +
                                          rng.in_cube(0.5)));
      RayCastOptions<S> opt;
      opt.max_lambda = S(r % 4 == 0 ? 0.7 : 2);
      opt.closed_form = r % 7 != 0;
      const Ray<S> ray{o, d};
      const RayHit<S> want = ray_cast(shape, pose, ray, opt);
      ASSERT_TRUE(same_hit(target.cast(ray, opt), want)) << shape_case << "/" << r << " " << scenes::describe(shape);
      hits += want.status == Status::hit;
      // The warm start writes the same separating axis.
      Vec3<S> axis_a = Vec3<S>::Zero(), axis_b = Vec3<S>::Zero();
      opt.closed_form = false;
      opt.separating_axis = &axis_a;
      const RayHit<S> wa = ray_cast(shape, pose, ray, opt);
      opt.separating_axis = &axis_b;
      ASSERT_TRUE(same_hit(target.cast(ray, opt), wa)) << shape_case << "/" << r;
      ASSERT_TRUE(same_bits(axis_a, axis_b)) << shape_case << "/" << r;
    }
  }
  EXPECT_GT(hits, rays / 3);
  EXPECT_LT(hits, 2 * rays / 3);
}

TYPED_TEST(RayTargets, InvalidInputIsNamedAsRayCastNamesIt) {
  using S = TypeParam;
  const S nan = std::numeric_limits<S>::quiet_NaN();
  const Ray<S> good{Vec3<S>(-3, 0, 0), Vec3<S>(1, 0, 0)};
  // A bad shape or pose: every cast answers invalid_input with the field.
  const Shape<S> bad_shape = Sphere<S>{S(-1)};
  const RayTarget<S> t1(bad_shape, Pose<S>{});
  EXPECT_EQ(t1.error(), ray_cast(bad_shape, Pose<S>{}, good, {.max_lambda = S(4)}).error);
  EXPECT_NE(t1.error(), "");
  EXPECT_TRUE(same_hit(t1.cast(good, {.max_lambda = S(4)}), ray_cast(bad_shape, Pose<S>{}, good, {.max_lambda = S(4)})));
  Pose<S> bad_pose;
  bad_pose.position.x() = nan;
  const Shape<S> ball = Sphere<S>{S(1)};
  const RayTarget<S> t2(ball, bad_pose);
  EXPECT_EQ(t2.cast(good).status, Status::invalid_input);
  EXPECT_TRUE(same_hit(t2.cast(good), ray_cast(ball, bad_pose, good)));
  // A good target, bad rays and options.
  const RayTarget<S> t3(ball, Pose<S>{});
  for (const Ray<S>& ray : {Ray<S>{Vec3<S>(nan, 0, 0), Vec3<S>(1, 0, 0)}, Ray<S>{Vec3<S>(0, 0, 0), Vec3<S>(0, nan, 0)}}) {
    const RayHit<S> h = t3.cast(ray);
    EXPECT_EQ(h.status, Status::invalid_input);
    EXPECT_TRUE(same_hit(h, ray_cast(ball, Pose<S>{}, ray)));
  }
  const RayHit<S> neg = t3.cast(good, {.max_lambda = S(-1)});
  EXPECT_EQ(neg.status, Status::invalid_input);
  EXPECT_NE(neg.error.find("max_lambda"), std::string::npos);
}

TYPED_TEST(RayTargets, ASphereAtAPoseIsHitWhereItsClosedFormSays) {
  using S = TypeParam;
  // A ball of radius 2 at (5, 1, 0) turned about z; a ray along +x from the origin at height 1
  // enters it at x = 3.
  const Shape<S> ball = Sphere<S>{S(2)};
  Pose<S> pose;
  pose.position = Vec3<S>(5, 1, 0);
  pose.rotation = Quat<S>(Eigen::AngleAxis<S>(S(0.7), Vec3<S>::UnitZ()));
  const RayTarget<S> target(ball, pose);
  const RayHit<S> h = target.cast({Vec3<S>(0, 1, 0), Vec3<S>(2, 0, 0)}, {.max_lambda = S(10)});
  ASSERT_EQ(h.status, Status::hit);
  EXPECT_NEAR(double(h.lambda), 1.5, 1e-6);
  EXPECT_NEAR(double(h.normal.x()), -1.0, 1e-6);
  EXPECT_EQ(target.cast({Vec3<S>(0, 3.5, 0), Vec3<S>(2, 0, 0)}, {.max_lambda = S(10)}).status, Status::miss);
}

}  // namespace
