// Regression: a body whose velocity was a few denormals (1e-200 and less) was taken for a body at
// rest, and its pairs with bodies at rest were never tested.
//
// Found by fuzz_world: a sphere overlapping a box at t = 0 and moving at 4.9e-324 along y; alone,
// time_of_impact answers initially_overlapping, the world answered no event. The world's test
// for motion squared the velocity (1e-400 underflows to 0); the protocol's rest is velocities
// all zero, so it now looks at the components.
#include <impact/world.hpp>

#include <gtest/gtest.h>

#include <limits>

namespace {

using namespace impact;

template <class S>
void tiny_velocities() {
  const Quat<S> I = Quat<S>::Identity();
  const S tiny = std::numeric_limits<S>::denorm_min();
  const S small = std::is_same_v<S, double> ? S(1e-200) : S(1e-30);
  for (const int which : {0, 1, 2, 3}) {
    World<S> w;
    // Overlapping at t = 0 (centres 1.5 apart, radii 1).
    std::vector<WorldBody<S>> bodies = {WorldBody<S>::convex_body("a", Sphere<S>{1}, Pose<S>{{0, 0, 0}, I}),
                                        WorldBody<S>::convex_body("b", Sphere<S>{1}, Pose<S>{{S(1.5), 0, 0}, I})};
    ASSERT_EQ(w.edit({}, bodies), "");
    Vec3<S> v = Vec3<S>::Zero(), om = Vec3<S>::Zero();
    if (which == 0) v.y() = tiny;
    if (which == 1) v.z() = -small;
    if (which == 2) om.x() = tiny;
    if (which == 3) om.z() = small;
    const WorldStepResult<S> r = w.step(std::vector<BodyMotion<S>>{{"a", {{}, v, om}, true}});
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(r.events.size(), 1u) << which;
    EXPECT_EQ(r.events[0].status, Status::initially_overlapping);
    EXPECT_EQ(r.events[0].toi, S(0));
    // Truly at rest: not tested.
    const WorldStepResult<S> rest = w.step(std::vector<BodyMotion<S>>{{"a", {{}, Vec3<S>::Zero(), Vec3<S>::Zero()}, true}});
    ASSERT_TRUE(rest.ok());
    EXPECT_TRUE(rest.events.empty());
  }
}

TEST(WorldTinyVelocities, ABodyMovingByDenormalsIsNotAtRestDouble) { tiny_velocities<double>(); }
TEST(WorldTinyVelocities, ABodyMovingByDenormalsIsNotAtRestFloat) { tiny_velocities<float>(); }

}  // namespace
