// impact — detail/gjk.hpp: GJK distance and intersection as the queries run them (templates; not
// installed).
//
// The pair's method on the cores (detail/core_distance.hpp: a closed form, Newton's method for
// two cylinders, else the GJK loop of detail/gjk_core.hpp), computed in a scalar at least as wide
// as double, retried once in long double where rounding stopped it before a proof; then the
// radii, the witness points and the normal in the world frame.
//
// The API is `impact::distance` / `impact::intersect` on `Shape` variants (include/impact/query.hpp).
#pragma once

#include <impact/math.hpp>
#include <impact/query.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>

#include "detail/core_distance.hpp"
#include "detail/gjk_core.hpp"
#include "detail/promote.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

namespace impact {

namespace detail {

/// The scalar GJK's loop computes in for shapes of scalar S: double for float shapes (float
/// arithmetic stalls the descent above float's own tolerance), S itself otherwise.
template <class S>
using GjkCompute = std::conditional_t<(sizeof(S) < sizeof(double)), double, S>;

/// The cache of one scalar as the cache of another scalar (a handful of points: exact widening,
/// or the rounding of points that are then only a warm start).
template <class T, class S>
GjkCache<T> convert_cache(const GjkCache<S>& c) {
  GjkCache<T> out;
  out.count = c.count;
  for (int i = 0; i < 4; ++i) {
    out.local_a[i] = c.local_a[i].template cast<T>();
    out.local_b[i] = c.local_b[i].template cast<T>();
  }
  out.axis = c.axis.template cast<T>();
  out.hint_a = c.hint_a;
  out.hint_b = c.hint_b;
  out.has_point_b = c.has_point_b;
  out.point_b = c.point_b.template cast<T>();
  return out;
}

template <class T, class S>
GjkOutput<T> convert_output(const GjkOutput<S>& g) {
  if constexpr (std::is_same_v<T, S>) {
    return g;
  } else {
    return {g.status, g.v.template cast<T>(), g.pa.template cast<T>(), g.pb.template cast<T>(), T(g.lower),
            g.iterations, g.certified, T(g.scale)};
  }
}

/// The core distance (detail/core_distance.hpp) in scalar C on shapes of scalar S placed by ta
/// and tb (the relative placement is computed in C too, so far-apart scenes lose nothing to S's
/// rounding of it).
template <bool Boolean, class C, class S, class A, class B>
GjkOutput<C> gjk_in(const A& a, S radius_a, const Transform<S>& ta, const B& b, S radius_b, const Transform<S>& tb,
                    const GjkOptions<S>& opt, GjkCache<C>* cache) {
  if constexpr (std::is_same_v<C, S>) {
    return core_distance<Boolean, S>(a, radius_a, b, radius_b, ta.relative(tb), opt, cache);
  } else {
    const GjkOptions<C> wide{C(opt.relative_tolerance), opt.max_iterations, opt.wide_retry, C(opt.apart_beyond)};
    const Transform<C> b_in_a = promote_transform<C>(ta).relative(promote_transform<C>(tb));
    return core_distance<Boolean, C>(promote<C, S>(a), C(radius_a), promote<C, S>(b), C(radius_b), b_in_a, wide, cache);
  }
}

/// gjk_solve's retry: the loop once more in long double from a cold start (g: the first run's
/// answer, in GjkCompute<S>), keeping whichever answer is proven, else the one with the smaller
/// upper bound and the larger lower bound.
template <bool Boolean, class C, class S, class A, class B>
GjkOutput<C> wide_retry(GjkOutput<C> g, const A& a, S radius_a, const Transform<S>& ta, const B& b, S radius_b,
                        const Transform<S>& tb, const GjkOptions<S>& opt) {
  using L = long double;
  const GjkOutput<L> w = gjk_in<Boolean, L>(a, radius_a, ta, b, radius_b, tb, opt, static_cast<GjkCache<L>*>(nullptr));
  const GjkOutput<C> h = convert_output<C>(w);
  const int iterations = g.iterations + h.iterations;
  if (h.certified || (h.status == g.status && h.v.squaredNorm() < g.v.squaredNorm()) ||
      (g.status == Status::max_iterations && h.status != Status::max_iterations)) {
    const C lower = g.status == h.status ? std::max(g.lower, h.lower) : h.lower;
    g = h;
    g.lower = lower;
  }
  g.iterations = iterations;
  return g;
}

/// GJK as the queries run it: the loop in GjkCompute<S>; where rounding stopped it before a proof
/// (a stall on the thin simplices of curved shapes, about 1e-8 of the distance in double), once
/// more in long double from a cold start, keeping whichever answer is proven, else the one with
/// the smaller upper bound and the larger lower bound. Measured on the random batteries (ten
/// shape types, 10,000 pairs each): see docs/tolerances.md. WideRetry false compiles the retry out
/// (never retried, whatever opt.wide_retry says), so that a unit whose calls never retry does not
/// compile the long double loops.
template <bool Boolean, class S, bool WideRetry = true, class A, class B>
GjkOutput<S> gjk_solve(const A& a, S radius_a, const Transform<S>& ta, const B& b, S radius_b, const Transform<S>& tb,
                       const GjkOptions<S>& opt, GjkCache<S>* cache) {
  using C = GjkCompute<S>;
  GjkOutput<C> g;
  if constexpr (std::is_same_v<C, S>) {
    g = gjk_in<Boolean, C>(a, radius_a, ta, b, radius_b, tb, opt, cache);
  } else {
    GjkCache<C> wide_cache;  // the caller's cache, widened for the loop and narrowed back
    if (cache) wide_cache = convert_cache<C>(*cache);
    g = gjk_in<Boolean, C>(a, radius_a, ta, b, radius_b, tb, opt, cache ? &wide_cache : nullptr);
    if (cache) *cache = convert_cache<S>(wide_cache);
  }
  if constexpr (WideRetry) {
    if (!g.certified && opt.wide_retry) g = wide_retry<Boolean>(g, a, radius_a, ta, b, radius_b, tb, opt);
  }
  return convert_output<S>(g);
}

/// gjk_solve in A's frame: B's core placed by b_in_a.
template <bool Boolean, class S, class A, class B>
GjkOutput<S> gjk_solve(const A& a, S radius_a, const B& b, S radius_b, const Transform<S>& b_in_a,
                       const GjkOptions<S>& opt, GjkCache<S>* cache) {
  return gjk_solve<Boolean, S>(a, radius_a, Transform<S>{}, b, radius_b, b_in_a, opt, cache);
}

/// gjk_distance with gjk_solve's retry compiled in or out (WideRetry false: time of impact, whose
/// solvers run with opt.wide_retry false anyway, so that its units do not compile the retry's
/// long double loops).
template <bool WideRetry, class S, class A, class B>
[[nodiscard]] DistanceResult<S> gjk_distance_with(const A& a, S radius_a, const Transform<S>& ta, const B& b, S radius_b,
                                                  const Transform<S>& tb, const GjkOptions<S>& opt, GjkCache<S>* cache) {
  const auto g = detail::gjk_solve<false, S, WideRetry>(a, radius_a, ta, b, radius_b, tb, opt, cache);
  DistanceResult<S> r;
  r.iterations = g.iterations;
  r.status = g.status;
  Vec3<S> pa = g.pa, pb = g.pb;
  const Vec3<S> n = detail::finish_distance<S, S>(g.v, radius_a, radius_b, pa, pb, r);  // A's frame
  r.point_a = ta.apply(pa);
  r.point_b = ta.apply(pb);
  r.normal = ta.rotation * n;
  return r;
}

}  // namespace detail

/// GJK distance between concrete shape cores `a` and `b` grown by `radius_a`, `radius_b`, placed
/// by `ta` and `tb`. No allocation; `cache` (optional) warm-starts and is updated.
template <class S, class A, class B>
[[nodiscard]] DistanceResult<S> gjk_distance(const A& a, S radius_a, const Transform<S>& ta, const B& b, S radius_b,
                                             const Transform<S>& tb, const GjkOptions<S>& opt = {},
                                             GjkCache<S>* cache = nullptr) {
  return detail::gjk_distance_with<true, S>(a, radius_a, ta, b, radius_b, tb, opt, cache);
}

/// GJK boolean intersection test of grown cores, with the separating-axis early out.
template <class S, class A, class B>
[[nodiscard]] IntersectResult<S> gjk_intersect(const A& a, S radius_a, const Transform<S>& ta, const B& b, S radius_b,
                                               const Transform<S>& tb, const GjkOptions<S>& opt = {},
                                               GjkCache<S>* cache = nullptr) {
  const auto g = detail::gjk_solve<true, S>(a, radius_a, ta, b, radius_b, tb, opt, cache);
  IntersectResult<S> r;
  r.status = g.status;
  r.iterations = g.iterations;
  r.separating_axis = ta.rotation * -g.v;
  return r;
}

}  // namespace impact
