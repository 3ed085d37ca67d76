// Conservative advancement under rotation (src/toi/rotating_advancement.hpp;
// ToiMethod::conservative_advancement) on a closed form under rotation
// (tests/support/toi_scenes.hpp): a thin bar turning toward a sphere, first contact at
// θ* = φ − asin((w + r + target) / d); in float and double. Each hit is a hit, never after θ*/ω,
// at a distance within the tolerance of the target; the misses (too slow, or out of reach under
// several turns) are misses; hits are 30–70% of the cases.
#include "toi_scenes.hpp"

namespace {

template <class S>
class RotatingAdvancement : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(RotatingAdvancement, Scalars);

TYPED_TEST(RotatingAdvancement, TurningBarMeetsASphereAtTheClosedFormAngle) {
  toi_scenes::check_method<TypeParam>(impact::ToiMethod::conservative_advancement, "advancement bar ", scenes::battery(600));
}

}  // namespace
