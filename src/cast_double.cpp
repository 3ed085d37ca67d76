// impact — cast_double.cpp: the double instantiations of cast_impl.hpp.
#include "cast_impl.hpp"

namespace impact {
IMPACT_CAST_INSTANTIATE(double)
}  // namespace impact
