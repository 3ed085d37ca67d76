// impact — gjk_core_double.cpp: the GJK loops in double on double shapes' cores, compiled once
// for the whole library (detail/gjk_core_instances.hpp).
#include "detail/gjk_core_instances.hpp"

namespace impact::detail {
IMPACT_GJK_CORE_DOUBLE()
}  // namespace impact::detail
