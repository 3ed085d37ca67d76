// impact — detail/core_distance.hpp: the distance (or boolean test) of two shape cores grown by
// radii, by the cheapest exact method for the pair (templates; not installed).
//
// Chosen at compile time from the pair of core types, before any GJK iteration:
//   - point and segment cores against points, boxes and segments: a closed form
//     (detail/closed_form.hpp), no iteration;
//   - two cylinders: Newton's method on the alternating projections
//     (detail/projection_distance.hpp), with the GJK loop as its fallback;
//   - every other pair: the GJK loop (detail/gjk_core.hpp).
// Each returns GjkOutput in A's frame, so gjk_solve (detail/gjk.hpp) treats them alike.
#pragma once

#include <impact/math.hpp>
#include <impact/query.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>

#include "detail/closed_form.hpp"
#include "detail/gjk_core_instances.hpp"
#include "detail/projection_distance.hpp"

#include <algorithm>
#include <cmath>

namespace impact::detail {

/// Point and segment cores against points, boxes and segments: exact, no iteration.
template <class S, class A, class B>
GjkOutput<S> closed_form_core(const A& a, S radii, const B& b, const Transform<S>& b_in_a, GjkCache<S>* cache) {
  GjkOutput<S> out;
  closed_form_closest<S>(a, b, b_in_a, out.pa, out.pb);
  out.v = out.pa - out.pb;
  const S vv = out.v.squaredNorm();
  out.lower = std::sqrt(vv);
  out.iterations = 0;
  const S scale2 = std::max(out.pa.squaredNorm(), out.pb.squaredNorm());
  out.status = vv <= Tolerances<S>::gjk_tiny_squared * scale2 || vv <= radii * radii ? Status::intersecting
                                                                                    : Status::separated;
  if (cache) {
    cache->count = 0;
    cache->axis = out.v;
  }
  return out;
}

/// Two cylinders: Newton's method on the alternating projections, certified by the same
/// relative gap as the GJK loop, or for the boolean test by a separating axis or a common
/// point (detail/projection_distance.hpp). GJK runs only where it gives up (0.5% of random
/// pairs in double), from its usual start or its own cached simplex, never along Newton's
/// direction: started there it was measured to stop early near contact of flat faces, with
/// normals off by 1e-4 to 1e-3. Newton's steps count against GJK's iteration cap.
template <bool Boolean, class S, class A, class B>
GjkOutput<S> cylinder_pair_core(const A& a, S radius_a, const B& b, S radius_b, const Transform<S>& b_in_a,
                                const GjkOptions<S>& opt, GjkCache<S>* cache) {
  const S radii = radius_a + radius_b;
  ProjectionDistance<S> pd;
  const bool warm = cache && cache->has_point_b;
  const Vec3<S> start = warm ? b_in_a.apply(cache->point_b) : Vec3<S>::Zero();
  const bool done = (!Boolean || radii == S(0)) &&
                    cylinder_distance(a, b, b_in_a, opt.relative_tolerance,
                                      std::min(opt.max_iterations, kProjectionMaxSteps), Boolean, pd,
                                      warm ? &start : nullptr);
  if (!done) return gjk_core<Boolean, S>(a, radius_a, b, radius_b, b_in_a, opt, cache, pd.iterations);
  GjkOutput<S> out;
  out.v = pd.v;
  out.pa = pd.pa;
  out.pb = pd.pb;
  out.lower = pd.lower;
  out.iterations = pd.iterations;
  const S vv = pd.v.squaredNorm();
  out.status = pd.status == Status::intersecting || vv <= radii * radii ? Status::intersecting : Status::separated;
  if (cache) {
    // GJK's fields cold (see above): a later GJK run starts as if uncached.
    *cache = GjkCache<S>{};
    cache->has_point_b = true;
    cache->point_b = b_in_a.apply_inverse(pd.pb);
  }
  return out;
}

/// The core distance (Boolean: the intersection test) of `a` and `b` grown by the radii, B placed
/// by b_in_a, in A's frame, by the pair's method (see the file comment).
template <bool Boolean, class S, class A, class B>
GjkOutput<S> core_distance(const A& a, S radius_a, const B& b, S radius_b, const Transform<S>& b_in_a,
                           const GjkOptions<S>& opt, GjkCache<S>* cache) {
  if constexpr (kClosedForm<A, B, S>)
    return closed_form_core<S>(a, radius_a + radius_b, b, b_in_a, cache);
  else if constexpr (kProjectionPair<A, B, S>)
    return cylinder_pair_core<Boolean, S>(a, radius_a, b, radius_b, b_in_a, opt, cache);
  else
    return gjk_core<Boolean, S>(a, radius_a, b, radius_b, b_in_a, opt, cache);
}

}  // namespace impact::detail
