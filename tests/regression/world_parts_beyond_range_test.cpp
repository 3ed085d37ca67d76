// Regression: a compound part placed beyond the accepted range of coordinates made the world's
// step answer "internal: time_of_impact rejected a piece pair"; so did a body an earlier step had
// taken there.
//
// Found by fuzz_world: a body's position and its part's offset are each within 1e12 (every
// number of the input is valid), but the part's position in the world, their sum, is not, and the
// narrow phase handed that composed pose to time_of_impact, which refused it. Such a part is now
// queried in its body's frame (as the part of a turning body is), where both numbers are in range.
#include <impact/tolerances.hpp>
#include <impact/world.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

namespace {

using namespace impact;

// Two compounds at x = 9e11, each with a sphere part 6e11 further out (1.5e12 in the world).
// The second's part sits 3R above the first's, and falls at 2R per unit time: the gap R closes
// at t = 0.5. A third body, a plain sphere inside the range, is hit by nothing.
template <class S>
void parts_beyond_range() {
  const S R = S(1e9), x = S(9e11), off = S(6e11);
  const Quat<S> I = Quat<S>::Identity();
  World<S> w;
  std::vector<WorldBody<S>> bodies = {
      WorldBody<S>::compound_body("a", {{Sphere<S>{R}, Pose<S>{{off, 0, 0}, I}}}, Pose<S>{{x, 0, 0}, I}),
      WorldBody<S>::compound_body("b", {{Sphere<S>{R}, Pose<S>{{off, 3 * R, 0}, I}}}, Pose<S>{{x, 0, 0}, I}),
      WorldBody<S>::convex_body("c", Sphere<S>{R}, Pose<S>{{0, 0, 0}, I}),
  };
  ASSERT_EQ(w.edit({}, bodies), "");
  const Vec3<S> Z = Vec3<S>::Zero();
  for (const bool spin : {false, true}) {
    // The same fall, once with a slow spin about the body's x axis (the part, 3R off that axis,
    // moves a thousandth of R sideways: the toi moves by about 1e-6).
    const Vec3<S> w_b = spin ? Vec3<S>(S(1e-3), 0, 0) : Z;
    std::vector<BodyMotion<S>> m = {{"b", {{}, {0, -2 * R, 0}, w_b}, true}};
    const WorldStepResult<S> r = w.step(m);
    ASSERT_TRUE(r.ok()) << r.error;
    ASSERT_EQ(r.events.size(), 1u);
    const WorldEvent<S>& e = r.events[0];
    EXPECT_EQ(e.a, "a");
    EXPECT_EQ(e.b, "b");
    EXPECT_EQ(e.status, Status::hit);
    // A hit is within the tolerance the pair can honour above the target (world_impl.hpp,
    // honoured_tolerance: 64 ulps of its reach, under 2.2e12 here, and 1e-2 of the default
    // relative to its size, the compounds' radius 6.01e11): it comes at most that distance, over
    // the closing speed 2R, before t = 0.5 (8.4e-3 in float, 3.5e-6 in double).
    const double tol = std::max(64.0 * double(std::numeric_limits<S>::epsilon()) * 2.2e12,
                                double(Tolerances<S>::cast_tolerance) * 1e-2 * 7e11);
    const double early = tol / (2 * double(R));
    EXPECT_LE(double(e.toi), 0.5 + 1e-9);
    EXPECT_GE(double(e.toi), 0.5 - early);
    EXPECT_NEAR(double(e.normal.y()), 1.0, 1e-3);  // from a toward b
    EXPECT_NEAR(double(e.point_a.x()), double(x + off), 1e-6 * double(x + off));
    EXPECT_NEAR(double(e.point_a.y()), double(R), 1e-3 * double(R));
    // The step moved b: move it back for the next round.
    ASSERT_EQ(w.edit(std::vector<std::string>{"b"}, std::vector<WorldBody<S>>{bodies[1]}), "");
  }
}

TEST(WorldPartsBeyondRange, CompoundPartsPlacedPastTheRangeAreQueriedInTheirBodysFrameDouble) {
  parts_beyond_range<double>();
}
TEST(WorldPartsBeyondRange, CompoundPartsPlacedPastTheRangeAreQueriedInTheirBodysFrameFloat) {
  parts_beyond_range<float>();
}

// A step may take a body past the range (a position and a velocity each within 1e12 end within
// 2e12). Later steps that would start from that stored pose are refused, naming the body, rather
// than run without its pairs; a pose given with its motion, or its removal, clears the way.
template <class S>
void stored_poses_beyond_range() {
  const Quat<S> I = Quat<S>::Identity();
  const Vec3<S> Z = Vec3<S>::Zero();
  World<S> w;
  std::vector<WorldBody<S>> bodies = {WorldBody<S>::convex_body("far", Sphere<S>{1}, Pose<S>{{S(9e11), 0, 0}, I}),
                                      WorldBody<S>::convex_body("near", Sphere<S>{1}, Pose<S>{{0, 0, 0}, I})};
  ASSERT_EQ(w.edit({}, bodies), "");
  const WorldStepResult<S> out = w.step(std::vector<BodyMotion<S>>{{"far", {{}, {S(9e11), 0, 0}, Z}, true}});
  ASSERT_TRUE(out.ok()) << out.error;
  EXPECT_TRUE(out.events.empty());
  const Pose<S> stored = *w.pose("far");
  EXPECT_NEAR(double(stored.position.x()), 1.8e12, 1e-6 * 1.8e12);
  auto unchanged = [&] {
    EXPECT_EQ(w.pose("far")->position, stored.position);
    EXPECT_EQ(w.pose("near")->position, Z);
  };
  // Moved from its stored pose.
  WorldStepResult<S> r = w.step(std::vector<BodyMotion<S>>{{"far", {{}, {1, 0, 0}, Z}, true}});
  EXPECT_EQ(r.status, Status::invalid_input);
  EXPECT_EQ(r.error.rfind("motions.far: the stored pose is out of range", 0), 0u) << r.error;
  unchanged();
  // At rest while another body moves.
  r = w.step(std::vector<BodyMotion<S>>{{"near", {{}, {1, 0, 0}, Z}, true}});
  EXPECT_EQ(r.status, Status::invalid_input);
  EXPECT_EQ(r.error.rfind("bodies.far: the stored pose is out of range", 0), 0u) << r.error;
  unchanged();
  // Given a pose: the step runs (the spheres meet at t = 0.5: a gap of 3 closing at 6).
  r = w.step(std::vector<BodyMotion<S>>{{"far", {{{5, 0, 0}, I}, {-6, 0, 0}, Z}, false}});
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_NEAR(double(r.events[0].toi), 0.5, 1e-4);
  // Taken out again, then removed: the other body steps.
  ASSERT_TRUE(w.step(std::vector<BodyMotion<S>>{{"far", {{{S(9e11), 0, 0}, I}, {S(9e11), 0, 0}, Z}, false}}).ok());
  EXPECT_FALSE(w.step(std::vector<BodyMotion<S>>{{"near", {{}, {1, 0, 0}, Z}, true}}).ok());
  ASSERT_EQ(w.edit(std::vector<std::string>{"far"}, {}), "");
  EXPECT_TRUE(w.step(std::vector<BodyMotion<S>>{{"near", {{}, {1, 0, 0}, Z}, true}}).ok());
}

TEST(WorldPartsBeyondRange, StoredPosesPastTheRangeAreRefusedAsAStepsStartDouble) { stored_poses_beyond_range<double>(); }
TEST(WorldPartsBeyondRange, StoredPosesPastTheRangeAreRefusedAsAStepsStartFloat) { stored_poses_beyond_range<float>(); }

}  // namespace
