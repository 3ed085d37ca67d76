// impact — gjk_double.cpp: the double instantiations of gjk_impl.hpp.
#include "gjk_impl.hpp"

namespace impact {
IMPACT_GJK_INSTANTIATE(double)
}  // namespace impact
