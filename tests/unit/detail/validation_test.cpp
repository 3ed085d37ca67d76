// One validation path (src/detail/validation.hpp): the same bad input is refused with the same
// words by every entry point that takes it — ray casts, shape casts, time of impact, meshes,
// worlds, hulls and shape validation — in float and double. The messages are the protocol's: the
// field, then what is wrong.
#include <impact/cast.hpp>
#include <impact/level.hpp>
#include <impact/mesh.hpp>
#include <impact/query.hpp>
#include <impact/toi.hpp>
#include <impact/world.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace impact;

template <class S>
class Validation : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Validation, Scalars);

template <class S>
std::shared_ptr<const TriangleMesh<S>> floor_mesh() {
  auto m = std::make_shared<TriangleMesh<S>>();
  m->vertices = {Vec3<S>(-5, -5, 0), Vec3<S>(5, -5, 0), Vec3<S>(5, 5, 0), Vec3<S>(-5, 5, 0)};
  m->triangles = {{0, 1, 2}, {0, 2, 3}};
  EXPECT_EQ(build_mesh(*m), "");
  return m;
}

TYPED_TEST(Validation, ANegativeToleranceIsRefusedInTheSameWordsEverywhere) {
  using S = TypeParam;
  const Shape<S> ball = Sphere<S>{S(1)};
  const Vec3<S> v(1, 0, 0), zero = Vec3<S>::Zero();
  Pose<S> far;
  far.position = Vec3<S>(5, 0, 0);
  for (const S tol : {S(-1), S(0)}) {
    const std::string want = "tolerance: must be positive";
    ShapeCastOptions<S> so;
    so.tolerance = tol;
    EXPECT_EQ(shape_cast<S>(ball, Pose<S>{}, v, ball, far, zero, so).error, want);
    ToiOptions<S> to;
    to.tolerance = tol;
    Motion<S> ma, mb;
    mb.pose = far;
    EXPECT_EQ(time_of_impact<S>(ball, ma, ball, mb, to).error, want);
    MeshShapeOptions<S> mo;
    mo.tolerance = tol;
    EXPECT_EQ(mesh_shape_cast<S>(*floor_mesh<S>(), ball, far, v, mo).error, want);
    World<S> w;
    WorldStepOptions<S> wo;
    wo.tolerance = tol;
    EXPECT_EQ(w.step({}, wo).error, want);
  }
}

TYPED_TEST(Validation, ANegativeTargetDistanceIsRefusedInTheSameWordsEverywhere) {
  using S = TypeParam;
  const Shape<S> ball = Sphere<S>{S(1)};
  const Vec3<S> v(1, 0, 0), zero = Vec3<S>::Zero();
  const std::string want = "target_distance: negative";
  ShapeCastOptions<S> so;
  so.target_distance = S(-1);
  EXPECT_EQ(shape_cast<S>(ball, Pose<S>{}, v, ball, Pose<S>{}, zero, so).error, want);
  ToiOptions<S> to;
  to.target_distance = S(-1);
  EXPECT_EQ(time_of_impact<S>(ball, Motion<S>{}, ball, Motion<S>{}, to).error, want);
  MeshShapeOptions<S> mo;
  mo.target_distance = S(-1);
  EXPECT_EQ(mesh_shape_cast<S>(*floor_mesh<S>(), ball, Pose<S>{}, v, mo).error, want);
  World<S> w;
  WorldStepOptions<S> wo;
  wo.target_distance = S(-1);
  EXPECT_EQ(w.step({}, wo).error, want);
  // Not finite, and beyond the range, by the same rule.
  so.target_distance = std::numeric_limits<S>::infinity();
  EXPECT_EQ(shape_cast<S>(ball, Pose<S>{}, v, ball, Pose<S>{}, zero, so).error, "target_distance: not finite");
  to.target_distance = std::numeric_limits<S>::quiet_NaN();
  EXPECT_EQ(time_of_impact<S>(ball, Motion<S>{}, ball, Motion<S>{}, to).error, "target_distance: not finite");
  wo.target_distance = S(2) * Tolerances<S>::max_magnitude;
  EXPECT_EQ(w.step({}, wo).error, "target_distance: out of range");
}

TYPED_TEST(Validation, ABadVectorIsNamedWithItsComponent) {
  using S = TypeParam;
  const S nan = std::numeric_limits<S>::quiet_NaN();
  const Shape<S> box = Box<S>{Vec3<S>(1, 1, 1)};
  const Ray<S> bad_origin{Vec3<S>(0, nan, 0), Vec3<S>(1, 0, 0)};
  EXPECT_EQ(ray_cast<S>(box, Pose<S>{}, bad_origin).error, "origin.1: not finite");
  EXPECT_EQ(RayTarget<S>(box, Pose<S>{}).cast(bad_origin).error, "origin.1: not finite");
  EXPECT_EQ(mesh_ray_cast<S>(*floor_mesh<S>(), bad_origin).error, "origin.1: not finite");
  const Ray<S> huge{Vec3<S>(0, 0, 0), Vec3<S>(0, 0, S(2) * Tolerances<S>::max_magnitude)};
  EXPECT_EQ(ray_cast<S>(box, Pose<S>{}, huge).error, "direction.2: out of range");
  EXPECT_EQ(mesh_ray_cast<S>(*floor_mesh<S>(), huge).error, "direction.2: out of range");
  // A shape's own fields, by validate(), and a hull's points.
  EXPECT_EQ(validate(Shape<S>(Box<S>{Vec3<S>(1, -1, 1)})), "half_extents.1: negative");
  EXPECT_EQ(validate(Shape<S>(Segment<S>{Vec3<S>(0, 0, 0), Vec3<S>(0, 0, nan)})), "b.2: not finite");
  const std::vector<Vec3<S>> cloud = {Vec3<S>(0, 0, 0), Vec3<S>(1, 0, 0), Vec3<S>(nan, 1, 0), Vec3<S>(0, 0, 1)};
  const auto hull = Hull<S>::build(cloud);
  EXPECT_EQ(hull.error, "points.2.0: not finite");
  // A mesh sphere cast's radius.
  EXPECT_EQ(mesh_sphere_cast<S>(*floor_mesh<S>(), Vec3<S>(0, 0, 2), S(-1), Vec3<S>(0, 0, -3)).error, "radius: negative");
}

}  // namespace
