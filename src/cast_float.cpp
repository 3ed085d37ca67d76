// impact — cast_float.cpp: the float instantiations of cast_impl.hpp.
#include "cast_impl.hpp"

namespace impact {

#define IMPACT_INSTANTIATE(S)                                                                                       \
  template RayHit<S> ray_cast<S>(const Shape<S>&, const Pose<S>&, const Ray<S>&, const RayCastOptions<S>&);        \
  template CastHit<S> shape_cast<S>(const Shape<S>&, const Pose<S>&, const Vec3<S>&, const Shape<S>&, const Pose<S>&, \
                                    const Vec3<S>&, const ShapeCastOptions<S>&);      \
  template class RayTarget<S>;
IMPACT_INSTANTIATE(float)
#undef IMPACT_INSTANTIATE

}  // namespace impact
