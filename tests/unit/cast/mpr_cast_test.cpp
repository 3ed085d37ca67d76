// Minkowski portal refinement on the swept CSO (src/cast/mpr_cast.hpp;
// CastMethod::mpr) against closed forms (tests/support/cast_scenes.hpp):
// two spheres, a sphere onto a box face, two boxes and a cube hull with a box, in float and
// double. Each hit is a hit, never after the true time, at a distance within the tolerance of
// the target; each miss is a miss; hits are 30–70% of the cases.
#include "cast_scenes.hpp"

namespace {

using namespace cast_scenes;
using impact::CastMethod;

template <class S>
class MprCast : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(MprCast, Scalars);

constexpr int kCases = 600;
constexpr CastMethod kMethod = CastMethod::mpr;

TYPED_TEST(MprCast, SphereSphere) {
  using S = TypeParam;
  check_method<S>(kMethod, true, "mpr sphere sphere ", sphere_sphere<S>, scenes::battery(kCases));
}

TYPED_TEST(MprCast, SphereOntoABoxFace) {
  using S = TypeParam;
  check_method<S>(kMethod, true, "mpr sphere box ", sphere_box_face<S>, scenes::battery(kCases));
}

TYPED_TEST(MprCast, BoxBoxAndHullBox) {
  using S = TypeParam;
  check_method<S>(kMethod, true, "mpr box box ", [](scenes::Rng& rng) { return box_box<S>(rng, false); },
                  scenes::battery(kCases));
  check_method<S>(kMethod, true, "mpr hull box ", [](scenes::Rng& rng) { return box_box<S>(rng, true); },
                  scenes::battery(kCases));
}

}  // namespace
