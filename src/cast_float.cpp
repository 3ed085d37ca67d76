// impact — cast_float.cpp: the float instantiations of cast_impl.hpp.
#include "cast_impl.hpp"

namespace impact {
IMPACT_CAST_INSTANTIATE(float)
}  // namespace impact
