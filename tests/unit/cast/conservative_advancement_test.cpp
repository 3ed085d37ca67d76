// Conservative advancement for linear casts (src/cast/conservative_advancement.hpp;
// CastMethod::conservative_advancement) against closed forms (tests/support/cast_scenes.hpp):
// two spheres, a sphere onto a box face, two boxes and a cube hull with a box, in float and
// double. Each hit is a hit, never after the true time, at a distance within the tolerance of
// the target; each miss is a miss; hits are 30–70% of the cases.
#include "cast_scenes.hpp"

namespace {

using namespace cast_scenes;
using impact::CastMethod;

template <class S>
class ConservativeAdvancementCast : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(ConservativeAdvancementCast, Scalars);

constexpr int kCases = 600;
constexpr CastMethod kMethod = CastMethod::conservative_advancement;

TYPED_TEST(ConservativeAdvancementCast, SphereSphere) {
  using S = TypeParam;
  check_method<S>(kMethod, true, "advancement sphere sphere ", sphere_sphere<S>, scenes::battery(kCases));
}

TYPED_TEST(ConservativeAdvancementCast, SphereOntoABoxFace) {
  using S = TypeParam;
  check_method<S>(kMethod, true, "advancement sphere box ", sphere_box_face<S>, scenes::battery(kCases));
}

TYPED_TEST(ConservativeAdvancementCast, BoxBoxAndHullBox) {
  using S = TypeParam;
  check_method<S>(kMethod, true, "advancement box box ", [](scenes::Rng& rng) { return box_box<S>(rng, false); },
                  scenes::battery(kCases));
  check_method<S>(kMethod, true, "advancement hull box ", [](scenes::Rng& rng) { return box_box<S>(rng, true); },
                  scenes::battery(kCases));
}

}  // namespace
