// impact — query.hpp: the queries on `Shape` variants. Each visits the two shapes once and then
// runs the templated algorithm (gjk.hpp) on their concrete types.
#pragma once

#include <impact/gjk.hpp>
#include <impact/shapes.hpp>

namespace impact {

/// Distance, closest points and normal between shapes `a` at `pose_a` and `b` at `pose_b`.
/// Never throws, never allocates (except to describe invalid input); bad shapes or poses answer
/// Status::invalid_input with `error` naming the field ("a.radius: negative").
/// `cache`, when given, must belong to this pair (same shapes, in this order) and warm-starts GJK.
template <class S>
[[nodiscard]] DistanceResult<S> distance(const Shape<S>& a, const Pose<S>& pose_a, const Shape<S>& b,
                                         const Pose<S>& pose_b, const GjkOptions<S>& options = {},
                                         GjkCache<S>* cache = nullptr);

/// Boolean overlap test with GJK's separating-axis early out (cheaper than `distance`).
template <class S>
[[nodiscard]] IntersectResult<S> intersect(const Shape<S>& a, const Pose<S>& pose_a, const Shape<S>& b,
                                           const Pose<S>& pose_b, const GjkOptions<S>& options = {},
                                           GjkCache<S>* cache = nullptr);

}  // namespace impact
