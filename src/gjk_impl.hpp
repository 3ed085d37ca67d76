#pragma once
// impact — gjk_impl.hpp (included by gjk_float.cpp and gjk_double.cpp, one precision each so
// the two heavy halves compile in parallel): `distance` and `intersect` on Shape variants (dispatch once, then templates).
#include <impact/query.hpp>

#include "detail/gjk.hpp"

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
  return detail::visit_cores(a, b, [&](const auto& ca, S ra, const auto& cb, S rb) {
    using A = std::decay_t<decltype(ca)>;
    using B = std::decay_t<decltype(cb)>;
    if constexpr (detail::kWorldClosedForm<A, B, S>) {
      if (cache) cache->count = 0;
      return detail::world_closed_form_distance<S>(ca, ra, pose_a, cb, rb, pose_b);
    } else {
      return gjk_distance<S>(ca, ra, Transform<S>(pose_a), cb, rb, Transform<S>(pose_b), options, cache);
    }
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


}  // namespace impact

/// The explicit instantiations of one precision (gjk_float.cpp, gjk_double.cpp).
#define IMPACT_GJK_INSTANTIATE(S)                                                                               \
  template DistanceResult<S> distance<S>(const Shape<S>&, const Pose<S>&, const Shape<S>&, const Pose<S>&,     \
                                         const GjkOptions<S>&, GjkCache<S>*);                                  \
  template IntersectResult<S> intersect<S>(const Shape<S>&, const Pose<S>&, const Shape<S>&, const Pose<S>&,   \
                                           const GjkOptions<S>&, GjkCache<S>*);
