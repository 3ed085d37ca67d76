// impact — gjk.cpp: `distance` and `intersect` on Shape variants (dispatch once, then templates).
#include <impact/query.hpp>

#include "detail/dispatch.hpp"

namespace impact {

template <class S>
DistanceResult<S> distance(const Shape<S>& a, const Pose<S>& pose_a, const Shape<S>& b, const Pose<S>& pose_b,
                           const GjkOptions<S>& options, GjkCache<S>* cache) {
  if (!detail::pair_ok(a, pose_a, b, pose_b)) {
    DistanceResult<S> r;
    r.error = detail::validate_pair(a, pose_a, b, pose_b);
    return r;
  }
  const Transform<S> ta(pose_a), tb(pose_b);
  return detail::visit_cores(a, b, [&](const auto& ca, S ra, const auto& cb, S rb) {
    return gjk_distance<S>(ca, ra, ta, cb, rb, tb, options, cache);
  });
}

template <class S>
IntersectResult<S> intersect(const Shape<S>& a, const Pose<S>& pose_a, const Shape<S>& b, const Pose<S>& pose_b,
                             const GjkOptions<S>& options, GjkCache<S>* cache) {
  if (!detail::pair_ok(a, pose_a, b, pose_b)) {
    IntersectResult<S> r;
    r.error = detail::validate_pair(a, pose_a, b, pose_b);
    return r;
  }
  const Transform<S> ta(pose_a), tb(pose_b);
  return detail::visit_cores(a, b, [&](const auto& ca, S ra, const auto& cb, S rb) {
    return gjk_intersect<S>(ca, ra, ta, cb, rb, tb, options, cache);
  });
}

#define IMPACT_INSTANTIATE(S)                                                                                   \
  template DistanceResult<S> distance<S>(const Shape<S>&, const Pose<S>&, const Shape<S>&, const Pose<S>&,     \
                                         const GjkOptions<S>&, GjkCache<S>*);                                  \
  template IntersectResult<S> intersect<S>(const Shape<S>&, const Pose<S>&, const Shape<S>&, const Pose<S>&,   \
                                           const GjkOptions<S>&, GjkCache<S>*);
IMPACT_INSTANTIATE(float)
IMPACT_INSTANTIATE(double)
#undef IMPACT_INSTANTIATE

}  // namespace impact
