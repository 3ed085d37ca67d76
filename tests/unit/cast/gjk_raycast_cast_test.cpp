// The GJK ray cast shape cast (src/cast/gjk_raycast_cast.hpp; CastMethod::gjk_raycast, the
// default) against closed forms (tests/support/cast_scenes.hpp): two spheres, a sphere onto a
// box face, two boxes and a cube hull with a box, in float and double. Run with the closed forms
// off (every pair through the GJK ray cast on the CSO) and on (spheres and boxes answered by
// ray_cast's closed forms and the box–box separating axis test). Each hit is a hit, never after
// the true time, at a distance within the tolerance of the target; each miss is a miss; hits
// are 30–70% of the cases.
#include "cast_scenes.hpp"

namespace {

using namespace cast_scenes;
using impact::CastMethod;

template <class S>
class GjkRaycastCast : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(GjkRaycastCast, Scalars);

constexpr int kCases = 600;

TYPED_TEST(GjkRaycastCast, SphereSphere) {
  using S = TypeParam;
  check_method<S>(CastMethod::gjk_raycast, false, "gjk raycast sphere sphere ", sphere_sphere<S>, scenes::battery(kCases));
  check_method<S>(CastMethod::gjk_raycast, true, "closed form sphere sphere ", sphere_sphere<S>, scenes::battery(kCases));
}

TYPED_TEST(GjkRaycastCast, SphereOntoABoxFace) {
  using S = TypeParam;
  check_method<S>(CastMethod::gjk_raycast, false, "gjk raycast sphere box ", sphere_box_face<S>, scenes::battery(kCases));
  check_method<S>(CastMethod::gjk_raycast, true, "closed form sphere box ", sphere_box_face<S>, scenes::battery(kCases));
}

TYPED_TEST(GjkRaycastCast, BoxBoxAndHullBox) {
  using S = TypeParam;
  const auto boxes = [](scenes::Rng& rng) { return box_box<S>(rng, false); };
  const auto hull = [](scenes::Rng& rng) { return box_box<S>(rng, true); };
  check_method<S>(CastMethod::gjk_raycast, false, "gjk raycast box box ", boxes, scenes::battery(kCases));
  check_method<S>(CastMethod::gjk_raycast, true, "closed form box box ", boxes, scenes::battery(kCases));
  check_method<S>(CastMethod::gjk_raycast, true, "gjk raycast hull box ", hull, scenes::battery(kCases));
}

}  // namespace
