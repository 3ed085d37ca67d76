// impact — gjk_core_float.cpp: the GJK loops in double and long double on float shapes' wrapped
// cores (hulls, Minkowski sums, transformed shapes), compiled once for the whole library
// (detail/gjk_core_instances.hpp).
#include "detail/gjk_core_instances.hpp"

namespace impact::detail {
IMPACT_GJK_CORE_FLOAT()
}  // namespace impact::detail
