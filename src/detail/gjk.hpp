// impact — detail/gjk.hpp: GJK distance and intersection on concrete shapes (templates; not installed).
//
// Gilbert, Johnson and Keerthi's algorithm as van den Bergen describes it (2003; 2004 §3): a
// descent on the configuration space obstacle A − B through its support mapping
// s_{A−B}(d) = s_A(d) − s_B(−d), with Johnson's sub-algorithm (detail/johnson.hpp), the
// relative termination test, the duplicate-support guard, the separating-axis early out for
// boolean queries, and a cache the caller keeps between calls.
//
// Round shapes are handled as a core plus a radius (a sphere is a point with a radius, a capsule
// a segment with one): GJK runs on the cores and the radii are subtracted at the end, which is
// exact and converges in the cores' few iterations instead of a curved surface's many.
//
// The API is `impact::distance` / `impact::intersect` on `Shape` variants (include/impact/query.hpp).
#pragma once

#include <impact/math.hpp>
#include <impact/query.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>

#include "detail/closed_form.hpp"
#include "detail/johnson.hpp"
#include "detail/projection_distance.hpp"
#include "detail/promote.hpp"

#include <algorithm>
#include <iterator>
#include <string>

namespace impact {

namespace detail {

template <class S, class T>
[[nodiscard]] inline Vec3<S> support_with_hint(const T& shape, const Vec3<S>& d, int& hint) {
  if constexpr (HintedSupport<T, S>)
    return shape.support(d, hint);
  else
    return shape.support(d);
}

/// A direction accurate to rounding in which the origin lies beyond the simplex W (oriented
/// like v): the normal of a triangle W, the perpendicular from the origin to the line of an
/// edge W, v itself for a single vertex. Zero when W is degenerate.
template <class S>
Vec3<S> simplex_normal(const Johnson<S>& w, const Vec3<S>& v) {
  int idx[4], n = 0;
  for (int i = 0; i < 4; ++i)
    if (w.bits & (1u << i)) idx[n++] = i;
  Vec3<S> d = Vec3<S>::Zero();
  if (n == 3) {
    d = (w.y[idx[1]] - w.y[idx[0]]).cross(w.y[idx[2]] - w.y[idx[0]]);
  } else if (n == 2) {
    const Vec3<S> e = w.y[idx[1]] - w.y[idx[0]];
    d = e.cross(w.y[idx[0]].cross(e));  // in the plane of the edge and the origin, ⊥ e
  } else if (n == 1) {
    d = v;
  }
  if (d.dot(v) < S(0)) d = -d;
  return d;
}

/// Core GJK loop, in A's local frame. `Boolean` selects the intersection test (separating-axis
/// early out) over the distance query.
template <class S>
struct GjkOutput {
  Status status;
  Vec3<S> v;       // closest point of the core CSO to the origin (A's frame)
  Vec3<S> pa, pb;  // witness points on the cores (A's frame)
  S lower;         // proven lower bound of the core distance: max over iterations of v·w/‖v‖
  int iterations;
  /// False when rounding stopped the descent (or the cap did) before the answer was proven:
  /// gjk_solve then runs the loop again in a wider scalar.
  bool certified = true;
  S scale = S(0);  // largest ‖y‖ of the final simplex (the scale of its rounding errors)
};

template <bool Boolean, class S, class A, class B>
GjkOutput<S> gjk_core(const A& a, S radius_a, const B& b, S radius_b, const Transform<S>& b_in_a,
                                     const GjkOptions<S>& opt, GjkCache<S>* cache) {
  const S radii = radius_a + radius_b;
  if constexpr (kClosedForm<A, B, S>) {
    // Point and segment cores against points, boxes and segments: exact, no iteration.
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
  int newton_steps = 0;
  if constexpr (kProjectionPair<A, B, S>) {
    // Two cylinders: Newton's method on the alternating projections, certified by the same
    // relative gap as the loop below, or for the boolean test by a separating axis or a common
    // point (detail/projection_distance.hpp). GJK runs only where it gives up (0.5% of random
    // pairs in double), from its usual start or its own cached simplex, never along Newton's
    // direction: started there it was measured to stop early near contact of flat faces, with
    // normals off by 1e-4 to 1e-3.
    ProjectionDistance<S> pd;
    const bool warm = cache && cache->has_point_b;
    const Vec3<S> start = warm ? b_in_a.apply(cache->point_b) : Vec3<S>::Zero();
    const bool done = (!Boolean || radii == S(0)) &&
                      cylinder_distance(a, b, b_in_a, opt.relative_tolerance,
                                        std::min(opt.max_iterations, kProjectionMaxSteps), Boolean, pd,
                                        warm ? &start : nullptr);
    newton_steps = pd.iterations;
    if (done) {
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
  }
  const Mat3<S> rt = b_in_a.rotation.transpose();
  int hint_a = cache ? cache->hint_a : -1;
  int hint_b = cache ? cache->hint_b : -1;

  // Support of the core CSO A − B in direction d, in A's frame.
  auto support = [&](const Vec3<S>& d, Vec3<S>& pa, Vec3<S>& pb) -> Vec3<S> {
    pa = support_with_hint<S>(a, d, hint_a);
    pb = b_in_a.apply(support_with_hint<S>(b, Vec3<S>(rt * -d), hint_b));
    return pa - pb;
  };

  Johnson<S> simplex;
  Vec3<S> v;
  bool have_v = false;
  if (cache && cache->count > 0) {
    // Warm start: the cached support points are still points of the shapes, so their
    // differences are points of the CSO at the new poses.
    for (int i = 0; i < cache->count; ++i) {
      const Vec3<S> pa = cache->local_a[i];
      const Vec3<S> pb = b_in_a.apply(cache->local_b[i]);
      const Vec3<S> w = pa - pb;
      if (simplex.contains(w)) continue;
      simplex.add(w, pa, pb);
      simplex.bits |= simplex.last_bit;
    }
    simplex.bits &= ~simplex.last_bit;
    have_v = simplex.closest(v);
    if (!have_v) simplex.reset();
  }
  if (!have_v) {
    // Any point of the CSO will do; the support point toward A's origin from B's is a good one.
    Vec3<S> d = cache && cache->axis.squaredNorm() > S(0) ? Vec3<S>(-cache->axis) : Vec3<S>(b_in_a.translation);
    if (d.squaredNorm() == S(0)) d = Vec3<S>::UnitX();
    Vec3<S> pa, pb;
    const Vec3<S> w = support(d, pa, pb);
    simplex.add(w, pa, pb);
    simplex.closest(v);
  }

  Status status = Status::max_iterations;
  bool stalled = false;  // rounding, not a proof, ended the loop
  int it = 0;
  S vv = v.squaredNorm();
  S lower_vw = 0, lower_vv = 1;  // best lower bound so far as the ratio vw/‖v‖ (no square root per iteration)
  const int cap = opt.max_iterations - newton_steps;  // the Newton steps count against the cap
  while (it < cap) {
    if (vv <= Tolerances<S>::gjk_tiny_squared * simplex.max_vertex_norm2()) {
      status = Status::intersecting;  // the origin is in the CSO up to rounding
      break;
    }
    if constexpr (Boolean) {
      if (vv <= radii * radii) {
        status = Status::intersecting;  // upper bound of the core distance already within the radii
        break;
      }
    }
    ++it;
    Vec3<S> pa, pb;
    const Vec3<S> w = support(-v, pa, pb);
    const S vw = v.dot(w);
    if (vw > S(0) && vw * vw * lower_vv > lower_vw * lower_vw * vv) {
      lower_vw = vw;
      lower_vv = vv;
    }
    if constexpr (Boolean) {
      // Separating-axis early out: v·w/||v|| is a lower bound of the core distance.
      if (vw > S(0) && vw * vw > radii * radii * vv) {
        status = Status::separated;
        break;
      }
    }
    // Relative termination: ||v|| − v·w/||v|| ≤ rel·||v||.
    if (vv - vw <= opt.relative_tolerance * vv || simplex.contains(w)) {
      status = Status::separated;
      break;
    }
    // Keep W's membership and weights: adding writes only the new vertex's slot and the
    // determinants that involve it, so W can be restored if the new simplex is rejected below.
    const unsigned prev_bits = simplex.bits;
    S prev_lambda[4];
    std::copy(std::begin(simplex.lambda), std::end(simplex.lambda), prev_lambda);
    simplex.add(w, pa, pb);
    Vec3<S> next;
    bool ok = simplex.closest(next);
    if constexpr (sizeof(S) >= 8) {
      // Johnson's coordinates are ratios of determinants built from dot products of the y_i.
      // Near a curved surface the support points crowd together (a cylinder's side gives points
      // on its two rims, a unit apart along the axis and 1e-4 apart across), and on such thin
      // simplices those ratios lose most of their digits: v tilts, no subset passes the tests,
      // and the descent stopped at a duality gap of 1e-8..1e-3 of the distance. The same point
      // by geometry (edge parameter, or signed areas from cross products) keeps its accuracy,
      // and where Johnson's tests fail or make no progress the nearest point of conv Y by
      // geometry takes over. Measured on a point against a cylinder from a perturbed start:
      // normals off by more than 1e-6 rad in 98% of cases before, none after, at 36 iterations
      // instead of a premature stop at 21. Double only: in float the geometric points were
      // measured worse than Johnson's on polytope pairs (14 random batteries regressed).
      // Both refinements rewrite W's membership and weights; one that is not taken must leave
      // Johnson's, or the witnesses (from the weights) stop matching v: measured 4e-7 apart on a
      // box face against a cone's rim, with the normal that far off the points.
      Vec3<S> g;
      const int k = simplex.count();
      const unsigned johnson_bits = simplex.bits;
      S johnson_lambda[4];
      std::copy(std::begin(simplex.lambda), std::end(simplex.lambda), johnson_lambda);
      auto keep_johnson = [&] {
        simplex.bits = johnson_bits;
        std::copy(std::begin(johnson_lambda), std::end(johnson_lambda), simplex.lambda);
      };
      const bool refined = ok && k >= 2 && k <= 3 && simplex.refine_subset(g);
      if (refined && g.squaredNorm() < vv) {
        next = g;
      } else {
        keep_johnson();
        if ((!ok || next.squaredNorm() >= vv || (k >= 2 && k <= 3)) && simplex.closest_geometric(g) &&
            g.squaredNorm() < vv) {
          next = g;
          ok = true;
        } else {
          keep_johnson();
          // Johnson's subset stands, but its point by geometry is the accurate one: at the
          // rounding level of ‖v‖² Johnson's ratios can still show progress with v tilted
          // (measured: a sliver of a box corner and two cone rim points 1e-6 apart, Johnson's v
          // 5e-8 rad off, shorter by 2e-13, its duality gap 4e-7 of the distance). The
          // geometric point then says no progress, and the previous v, proven, stands.
          if (refined && simplex.refine_subset(g)) next = g;
        }
      }
    }
    const S nn = next.squaredNorm();
    // A full simplex whose determinants all pass Johnson's tests holds the origin, when the signs
    // can be trusted: either the descent made progress, or the tetrahedron is well above the
    // rounding level (a thin one in float has a noisy v but sound signs; a flat one has neither).
    if (simplex.full() && ok && (nn < vv || !simplex.degenerate(15u))) {
      if constexpr (sizeof(S) >= 8) {
        // The common point by signed volumes, accurate where Johnson's weights are not.
        if (simplex.origin_weights()) {
          simplex.witnesses(v, next);
          v -= next;
          vv = v.squaredNorm();
          status = Status::intersecting;
          break;
        }
      }
      if (nn < vv) {
        v = next;
        vv = nn;
      } else {
        // The signs hold but the combination made no progress: rounding spoilt it (measured
        // 8e-4 long on float boxes touching within 1e-7). The previous v, shorter, and its
        // witnesses stand as the common point.
        simplex.bits = prev_bits;
        std::copy(std::begin(prev_lambda), std::end(prev_lambda), simplex.lambda);
      }
      status = Status::intersecting;
      break;
    }
    // (In double a backup subset that still makes progress is kept and the descent goes on.)
    if (nn >= vv || (!ok && sizeof(S) < 8)) {

      // Rounding stopped the descent: keep the smaller of the two bounds and stop. Without any
      // separating plane seen (every v·w ≤ 0) nothing proves the shapes apart: the origin is
      // within ‖v‖ of the CSO and may be inside it (thin simplices around the origin in float),
      // so the pair counts as touching rather than as separated by an unproven ‖v‖.
      if (nn < vv) {
        v = next;
        vv = nn;
      } else {
        simplex.bits = prev_bits;  // v stays W's: its witnesses must too
        std::copy(std::begin(prev_lambda), std::end(prev_lambda), simplex.lambda);
      }
      if (lower_vw <= S(0) && vv > Tolerances<S>::gjk_tiny_squared * simplex.max_vertex_norm2()) {
        // No plane seen, but v is far above the rounding level. Near contact of two flat faces
        // (or edges) the direction of v carries an error of about ε·size/‖v‖ (it is a small
        // difference of large points), and the support along a tilted v runs to a far corner of
        // the face, past the origin: the test fails from rounding, not geometry. The simplex's
        // own geometry gives an accurate direction (a triangle's normal, an edge's
        // perpendicular through the origin, both cross products without cancellation): the
        // support along it proves separation when the shapes are apart.
        const Vec3<S> d = simplex_normal(simplex, v);
        if (d.squaredNorm() > S(0)) {
          Vec3<S> qa, qb;
          const S dw = d.dot(support(-d, qa, qb));
          if (dw > S(0)) {
            lower_vw = dw;
            lower_vv = d.squaredNorm();
          }
        }
      }
      status = lower_vw > S(0) ? Status::separated : Status::intersecting;
      stalled = true;
      break;
    }
    v = next;
    vv = nn;
  }

  if (status != Status::intersecting) {
    // v as a barycentric combination of large vertices carries an absolute error of a few
    // ε·size, which near contact is a large part of ‖v‖ and tilts its direction (float: a gap of
    // 1e-4 on unit shapes comes out with a normal off by 1e-3). W's own plane or line gives the
    // same point without the cancellation: v is the foot of the perpendicular from the origin.
    const Vec3<S> d = simplex_normal(simplex, v);
    const S dd = d.squaredNorm();
    if (dd > S(0) && (simplex.bits & (simplex.bits - 1u))) {  // two or three vertices
      int first = 0;
      while (!(simplex.bits & (1u << first))) ++first;
      const S h = d.dot(simplex.y[first]);
      // Taken only where it agrees with Johnson's v to rounding (a sliver triangle's normal is
      // itself ill-conditioned; then Johnson's v is the better one).
      const Vec3<S> foot = (h / dd) * d;
      const S agree = S(64) * Tolerances<S>::epsilon;
      if (h > S(0) && (foot - v).squaredNorm() <= agree * agree * simplex.max_vertex_norm2()) {
        v = foot;
        vv = v.squaredNorm();
      }
    }
  }
  GjkOutput<S> out;
  out.v = v;
  out.iterations = it + newton_steps;
  out.lower = status == Status::intersecting ? S(0) : lower_vw / std::sqrt(lower_vv);
  out.scale = std::sqrt(simplex.max_vertex_norm2());
  simplex.witnesses(out.pa, out.pb);
  // Proven? The cap is not a proof; an overlap claimed after a stall is a proof only when v is at
  // the rounding level; a separation only when the gap between ‖v‖ and the lower bound is within
  // the termination test's own slack (ten times the relative tolerance) plus rounding.
  if (status == Status::max_iterations) {
    out.certified = false;
  } else if (status == Status::intersecting) {
    out.certified = !stalled || vv <= Tolerances<S>::gjk_tiny_squared * simplex.max_vertex_norm2();
  } else {
    const S len = std::sqrt(vv);
    out.certified = len - out.lower <= S(10) * opt.relative_tolerance * len + S(64) * Tolerances<S>::epsilon * out.scale;
  }
  if (status == Status::separated || status == Status::max_iterations) {
    if constexpr (!Boolean) {
      if (vv <= radii * radii) status = Status::intersecting;
    } else {
      if (status == Status::separated && vv <= radii * radii) status = Status::intersecting;
    }
  }
  out.status = status;

  if (cache) {
    cache->count = 0;
    const Transform<S> a_in_b{rt, rt * -b_in_a.translation};
    for (unsigned i = 0; i < 4; ++i) {
      if (simplex.bits & (1u << i)) {
        cache->local_a[cache->count] = simplex.a[i];
        cache->local_b[cache->count] = a_in_b.apply(simplex.b[i]);
        ++cache->count;
      }
    }
    if (simplex.full()) cache->count = 0;  // a tetrahedron around the origin is no warm start
    cache->axis = v;
    cache->hint_a = hint_a;
    cache->hint_b = hint_b;
  }
  return out;
}

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

/// GJK in scalar C on shapes of scalar S placed by ta and tb (the relative placement is computed
/// in C too, so far-apart scenes lose nothing to S's rounding of it).
template <bool Boolean, class C, class S, class A, class B>
GjkOutput<C> gjk_in(const A& a, S radius_a, const Transform<S>& ta, const B& b, S radius_b, const Transform<S>& tb,
                    const GjkOptions<S>& opt, GjkCache<C>* cache) {
  if constexpr (std::is_same_v<C, S>) {
    return gjk_core<Boolean, S>(a, radius_a, b, radius_b, ta.relative(tb), opt, cache);
  } else {
    const GjkOptions<C> wide{C(opt.relative_tolerance), opt.max_iterations, opt.wide_retry};
    const Transform<C> b_in_a = promote_transform<C>(ta).relative(promote_transform<C>(tb));
    return gjk_core<Boolean, C>(promote<C, S>(a), C(radius_a), promote<C, S>(b), C(radius_b), b_in_a, wide, cache);
  }
}

/// GJK as the queries run it: the loop in GjkCompute<S>; where rounding stopped it before a proof
/// (a stall on the thin simplices of curved shapes, about 1e-8 of the distance in double), once
/// more in long double from a cold start, keeping whichever answer is proven, else the one with
/// the smaller upper bound and the larger lower bound. Measured on the random batteries (ten
/// shape types, 10,000 pairs each): see docs/tolerances.md.
template <bool Boolean, class S, class A, class B>
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
  if (!g.certified && opt.wide_retry) {
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
  }
  return convert_output<S>(g);
}

/// gjk_solve in A's frame: B's core placed by b_in_a.
template <bool Boolean, class S, class A, class B>
GjkOutput<S> gjk_solve(const A& a, S radius_a, const B& b, S radius_b, const Transform<S>& b_in_a,
                       const GjkOptions<S>& opt, GjkCache<S>* cache) {
  return gjk_solve<Boolean, S>(a, radius_a, Transform<S>{}, b, radius_b, b_in_a, opt, cache);
}

}  // namespace detail

/// GJK distance between concrete shape cores `a` and `b` grown by `radius_a`, `radius_b`, placed
/// by `ta` and `tb`. No allocation; `cache` (optional) warm-starts and is updated.
template <class S, class A, class B>
[[nodiscard]] DistanceResult<S> gjk_distance(const A& a, S radius_a, const Transform<S>& ta, const B& b, S radius_b,
                                             const Transform<S>& tb, const GjkOptions<S>& opt = {},
                                             GjkCache<S>* cache = nullptr) {
  const auto g = detail::gjk_solve<false, S>(a, radius_a, ta, b, radius_b, tb, opt, cache);
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
