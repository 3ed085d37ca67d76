// impact — gjk_float.cpp: the float instantiations of gjk_impl.hpp.
#include "gjk_impl.hpp"

namespace impact {
IMPACT_GJK_INSTANTIATE(float)
}  // namespace impact
