// impact — toi_float.cpp: the float instantiation of toi_impl.hpp.
#include "toi_impl.hpp"

namespace impact {

template ToiHit<float> time_of_impact<float>(const Shape<float>&, const Motion<float>&, const Shape<float>&, const Motion<float>&,
                                       const ToiOptions<float>&);

template ToiHit<float> toi::time_of_impact_hinted<float>(const Shape<float>&, const Motion<float>&, const Shape<float>&,
                                                  const Motion<float>&, const ToiOptions<float>&,
                                                  std::span<const toi::ToiHint<float>>);

template class toi::PartSweep<float>;

}  // namespace impact
