// Vlack & Tachi's extrusion test with Brent's method (src/toi/extrusion_brent.hpp;
// ToiMethod::extrusion_brent, the default) on a closed form under rotation
// (tests/support/toi_scenes.hpp): a thin bar turning toward a sphere, first contact at
// θ* = φ − asin((w + r + target) / d); in float and double. Each hit is a hit, never after θ*/ω,
// at a distance within the tolerance of the target; the misses (too slow, or out of reach under
// several turns) are misses; hits are 30–70% of the cases.
#include "toi_scenes.hpp"

namespace {

template <class S>
class ExtrusionBrent : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(ExtrusionBrent, Scalars);

TYPED_TEST(ExtrusionBrent, TurningBarMeetsASphereAtTheClosedFormAngle) {
  toi_scenes::check_method<TypeParam>(impact::ToiMethod::extrusion_brent, "extrusion bar ", scenes::battery(600));
}

}  // namespace
