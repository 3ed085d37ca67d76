// impact — gjk_core_long_double.cpp: the GJK loops in long double (the retry) on double shapes'
// cores, compiled once for the whole library (detail/gjk_core_instances.hpp).
#include "detail/gjk_core_instances.hpp"

namespace impact::detail {
IMPACT_GJK_CORE_LONG_DOUBLE()
}  // namespace impact::detail
