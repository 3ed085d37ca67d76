// impact — world_float.cpp: the float instantiation of world/world_impl.hpp.
#include "world/world_impl.hpp"

namespace impact {

template class World<float>;

}  // namespace impact
