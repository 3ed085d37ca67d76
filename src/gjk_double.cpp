// impact — gjk_double.cpp: the double instantiations of gjk_impl.hpp.
#include "gjk_impl.hpp"

namespace impact {

#define IMPACT_INSTANTIATE(S)                                                                                   \
  template DistanceResult<S> distance<S>(const Shape<S>&, const Pose<S>&, const Shape<S>&, const Pose<S>&,     \
                                         const GjkOptions<S>&, GjkCache<S>*);                                  \
  template IntersectResult<S> intersect<S>(const Shape<S>&, const Pose<S>&, const Shape<S>&, const Pose<S>&,   \
                                           const GjkOptions<S>&, GjkCache<S>*);
IMPACT_INSTANTIATE(double)
#undef IMPACT_INSTANTIATE

}  // namespace impact
