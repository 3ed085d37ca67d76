// impact — world_double.cpp: the double instantiation of world/world_impl.hpp.
#include "world/world_impl.hpp"

namespace impact {

template class World<double>;

}  // namespace impact
