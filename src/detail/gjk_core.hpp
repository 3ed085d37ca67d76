// impact — detail/gjk_core.hpp: the GJK loop on two shape cores (templates; not installed).
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
// `gjk_core` runs in phases, each a function below: the start (warm from the cache, else one
// support point), the descent (one support point per iteration; in double the geometric
// refinement of Johnson's point, a full simplex, a stall), the foot of the perpendicular that
// corrects v's direction, the certificate, and the cache write-back. Pairs with a shortcut
// (closed forms, two cylinders by Newton's method) are dispatched before it, in
// detail/core_distance.hpp; the queries reach both through detail/gjk.hpp.
#pragma once

#include <impact/math.hpp>
#include <impact/query.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>

#include "detail/johnson.hpp"
#include "detail/promote.hpp"

#include <algorithm>
#include <iterator>

namespace impact::detail {

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
  // Every choice of corner gives the same vector exactly; in rounding, the short one does best.
  // A sliver 1e11 long had its normal from the two long edges, and the edge perpendicular from
  // the far vertex: both lost all but five digits to cancellation (GJK then answered 2.07 for a
  // distance of 0.97; see tests/regression/raycast_stall_overlap_test.cpp).
  if (n == 3) {
    // The corner opposite the longest edge: its two edges are the short ones.
    const Vec3<S> e[3] = {w.y[idx[2]] - w.y[idx[1]], w.y[idx[0]] - w.y[idx[2]], w.y[idx[1]] - w.y[idx[0]]};
    int k = 0;
    for (int i = 1; i < 3; ++i)
      if (e[i].squaredNorm() > e[k].squaredNorm()) k = i;
    d = e[(k + 1) % 3].cross(e[(k + 2) % 3]);
  } else if (n == 2) {
    const Vec3<S> e = w.y[idx[1]] - w.y[idx[0]];
    const Vec3<S>& y = w.y[idx[0]].squaredNorm() <= w.y[idx[1]].squaredNorm() ? w.y[idx[0]] : w.y[idx[1]];
    d = e.cross(y.cross(e));  // in the plane of the edge and the origin, ⊥ e
  } else if (n == 1) {
    d = v;
  }
  if (d.dot(v) < S(0)) d = -d;
  return d;
}

/// Result of the GJK loop on two cores, in A's local frame.
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

/// Agreement of two computations of the same point, and rounding slack of a duality gap, in
/// units of epsilon·size (dimensionless; size the largest ‖y‖ of the simplex): a few dozen
/// roundings of the dot and cross products they are built from. The same 64 as
/// Tolerances::gjk_tiny_squared's.
inline constexpr int kGjkRoundingUlps = 64;
/// A separation counts as proven when its duality gap is within this many times the relative
/// tolerance (dimensionless): the termination test's own slack, which stops at one times it
/// but measures the gap with the v·w of the last support point, not the best lower bound.
inline constexpr int kGjkCertifiedGapFactor = 10;

/// True when the gap between the upper bound `len` (‖v‖) and the lower bound `lower` of a
/// separated pair is within what proves it (kGjkCertifiedGapFactor relative tolerances, plus
/// rounding of a simplex whose largest vertex is `scale` long): gjk_certify's proof, and what a
/// stall that found a plane checks before asking for a new start.
template <class S>
[[nodiscard]] inline bool gjk_gap_proven(S len, S lower, S relative_tolerance, S scale) {
  return len - lower <= S(kGjkCertifiedGapFactor) * relative_tolerance * len +
                            S(kGjkRoundingUlps) * Tolerances<S>::epsilon * scale;
}

/// Support of the core CSO A − B in direction d, in A's frame, with the hull hints GJK keeps.
template <class S, class A, class B>
struct CsoSupport {
  const A& a;
  const B& b;
  const Transform<S>& b_in_a;
  Mat3<S> rt;  // B's rotation in A, transposed: A's directions into B's frame
  int hint_a;
  int hint_b;

  Vec3<S> operator()(const Vec3<S>& d, Vec3<S>& pa, Vec3<S>& pb) {
    pa = support_with_hint<S>(a, d, hint_a);
    pb = b_in_a.apply(support_with_hint<S>(b, Vec3<S>(rt * -d), hint_b));
    return pa - pb;
  }
};

/// The simplex's membership and weights, kept so that W can be restored when a new simplex or
/// a refinement of it is rejected: adding writes only the new vertex's slot and the
/// determinants that involve it.
template <class S>
struct SimplexWeights {
  unsigned bits;
  S lambda[4];

  [[gnu::always_inline]] explicit SimplexWeights(const Johnson<S>& w) : bits(w.bits) {
    std::copy(std::begin(w.lambda), std::end(w.lambda), lambda);
  }
  [[gnu::always_inline]] void restore(Johnson<S>& w) const {
    w.bits = bits;
    std::copy(std::begin(lambda), std::end(lambda), w.lambda);
  }
};

/// The state of one GJK descent.
template <class S>
struct GjkDescent {
  Johnson<S> simplex;
  Vec3<S> v;  // closest point of conv W to the origin
  S vv = 0;   // ‖v‖²
  S lower_vw = 0, lower_vv = 1;  // best lower bound so far as the ratio vw/‖v‖ (no square root per iteration)
  Status status = Status::max_iterations;
  bool stalled = false;  // rounding, not a proof, ended the loop
  bool early = false;    // GjkOptions::apart_beyond ended it (proven, not converged)
  bool plane = false;    // some v·w > 0 beyond its rounding: the origin is proven outside the CSO
  int it = 0;            // GJK iterations (support calls in the loop)
  int restarts = 0;      // new starts made (gjk_core)
  bool restart = false;  // a stall asks for a new start from restart_w (a point of the CSO)
  Vec3<S> restart_w, restart_pa, restart_pb;
};

/// W = {w} (a point of the CSO, with its shapes' points pa and pb), v = w.
template <class S>
[[gnu::always_inline]] inline void gjk_start_at(GjkDescent<S>& g, const Vec3<S>& w, const Vec3<S>& pa,
                                                const Vec3<S>& pb) {
  g.simplex.add(w, pa, pb);
  g.simplex.closest(g.v);
  g.vv = g.v.squaredNorm();
}

/// Start: W from the cached support points, else a single support point.
template <class S, class A, class B>
[[gnu::always_inline]] inline void gjk_start(GjkDescent<S>& g, CsoSupport<S, A, B>& support,
                                             const Transform<S>& b_in_a, const GjkCache<S>* cache) {
  Johnson<S>& simplex = g.simplex;
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
    if (simplex.closest(g.v)) {
      g.vv = g.v.squaredNorm();
      return;
    }
    simplex.reset();
  }
  // Cold: any point of the CSO will do; the support point toward A's origin from B's is a good one.
  Vec3<S> d = cache && cache->axis.squaredNorm() > S(0) ? Vec3<S>(-cache->axis) : Vec3<S>(b_in_a.translation);
  if (d.squaredNorm() == S(0)) d = Vec3<S>::UnitX();
  Vec3<S> pa, pb;
  const Vec3<S> w = support(d, pa, pb);
  gjk_start_at(g, w, pa, pb);
}

/// Double only: the nearest point of the new simplex by geometry where Johnson's is inaccurate.
/// `ok` and `next` are Johnson's answer on entry and the one taken on return; `vv` is ‖v‖² of the
/// previous simplex (progress must beat it).
template <class S>
[[gnu::always_inline]] inline void gjk_refine_geometric(Johnson<S>& simplex, bool& ok, Vec3<S>& next, S vv) {
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
  const SimplexWeights<S> johnson(simplex);
  const bool refined = ok && k >= 2 && k <= 3 && simplex.refine_subset(g);
  if (refined && g.squaredNorm() < vv) {
    next = g;
  } else {
    johnson.restore(simplex);
    if ((!ok || next.squaredNorm() >= vv || (k >= 2 && k <= 3)) && simplex.closest_geometric(g) &&
        g.squaredNorm() < vv) {
      next = g;
      ok = true;
    } else {
      johnson.restore(simplex);
      // Johnson's subset stands, but its point by geometry is the accurate one: at the
      // rounding level of ‖v‖² Johnson's ratios can still show progress with v tilted
      // (measured: a sliver of a box corner and two cone rim points 1e-6 apart, Johnson's v
      // 5e-8 rad off, shorter by 2e-13, its duality gap 4e-7 of the distance). The
      // geometric point then says no progress, and the previous v, proven, stands.
      if (refined && simplex.refine_subset(g)) next = g;
    }
  }
}

/// A full simplex whose determinants all pass Johnson's tests: true when it holds the origin,
/// with the common point (v and its witnesses) and the status set. In double the signed volumes
/// decide; where they, or a plane some support point already proved (GjkDescent::plane), put the
/// origin outside, Johnson's signs were rounding (a tetrahedron with a corner 1e8 out passed them
/// with the origin 0.9% of it outside; a segment 2.6 from a sliver 1e12 long in float was called
/// intersecting after a plane): false, with W, `next` and `nn` the tetrahedron's nearest point by
/// geometry (Johnson::closest_geometric), from which the descent goes on; a touching pair's
/// rounding (a coordinate of −7e-14) then gives a v at the rounding level, as before. `prev` is W
/// before the new vertex.
template <class S>
[[gnu::noinline]] inline bool gjk_enclosed(GjkDescent<S>& g, Vec3<S>& next, S& nn, const SimplexWeights<S>& prev) {
  bool outside = g.plane;
  if constexpr (sizeof(S) >= 8) {
    if (!outside) {
      switch (g.simplex.origin_weights()) {
        case Johnson<S>::Enclosure::inside:  // the common point by signed volumes, accurate where Johnson's weights are not
          g.simplex.witnesses(g.v, next);
          g.v -= next;
          g.vv = g.v.squaredNorm();
          g.status = Status::intersecting;
          return true;
        case Johnson<S>::Enclosure::outside:
          outside = true;
          break;
        case Johnson<S>::Enclosure::unknown:
          break;
      }
    }
  }
  if (outside) {
    if (g.simplex.closest_geometric(next)) {
      nn = next.squaredNorm();
    } else {  // inside by the faces' planes after all: no progress, the previous v stands
      prev.restore(g.simplex);
      next = g.v;
      nn = g.vv;
    }
    return false;
  }
  if (nn < g.vv) {
    g.v = next;
    g.vv = nn;
  } else {
    // The signs hold but the combination made no progress: rounding spoilt it (measured
    // 8e-4 long on float boxes touching within 1e-7). The previous v, shorter, and its
    // witnesses stand as the common point.
    prev.restore(g.simplex);
  }
  g.status = Status::intersecting;
  return true;
}

/// New starts one GJK query may make after stalls (gjk_core).
inline constexpr int kGjkRestarts = 2;

/// Rounding stopped the descent: keep the smaller of the two bounds and stop. Without any
/// separating plane seen (every v·w ≤ 0) nothing proves the shapes apart: the origin is within
/// ‖v‖ of the CSO and may be inside it (thin simplices around the origin in float), so unless a
/// plane is found here the pair counts as touching rather than as separated by an unproven ‖v‖.
/// A plane with v not proven near it asks gjk_core for a new start (`restart`) from the support
/// point that proved it (`w`, `pa`, `pb`: the last one the descent took, unless one here does
/// better).
template <class S, class A, class B>
[[gnu::noinline]] inline void gjk_stall(GjkDescent<S>& g, const Vec3<S>& next, S nn, const SimplexWeights<S>& prev,
                                             CsoSupport<S, A, B>& support, const Vec3<S>& w, const Vec3<S>& pa,
                                             const Vec3<S>& pb, const GjkOptions<S>& opt) {
  Johnson<S>& simplex = g.simplex;
  if (nn < g.vv) {
    g.v = next;
    g.vv = nn;
  } else {
    prev.restore(simplex);  // v stays W's: its witnesses must too
  }
  g.stalled = true;
  g.restart_w = w, g.restart_pa = pa, g.restart_pb = pb;
  if (g.lower_vw <= S(0) && g.vv > Tolerances<S>::gjk_tiny_squared * simplex.max_vertex_norm2()) {
    // No plane seen, but v is far above the rounding level. Near contact of two flat faces
    // (or edges) the direction of v carries an error of about ε·size/‖v‖ (it is a small
    // difference of large points), and the support along a tilted v runs to a far corner of
    // the face, past the origin: the test fails from rounding, not geometry. The simplex's
    // own geometry gives an accurate direction (a triangle's normal, an edge's
    // perpendicular through the origin, both cross products without cancellation): the
    // support along it proves separation when the shapes are apart. Two are tried: W's, and
    // that of W with the vertex the descent just rejected. On a CSO with a vertex 1e12 out
    // (a segment against a sliver) the support along W's edge is, rightly, the far vertex's
    // twin 124 away, and only the triangle of the three separates (a segment 2 above such a
    // sliver was answered `intersecting`).
    const unsigned keep = simplex.bits;
    const unsigned tries[2] = {keep, simplex.all_bits};
    for (int k = 0; k < (simplex.all_bits != keep ? 2 : 1); ++k) {
      const unsigned bits = tries[k];
      if (bits == 15u) continue;  // a tetrahedron has no normal
      simplex.bits = bits;
      const Vec3<S> d = simplex_normal(simplex, g.v);
      simplex.bits = keep;
      if (!(d.squaredNorm() > S(0))) continue;
      Vec3<S> qa, qb;
      const Vec3<S> x = support(-d, qa, qb);
      const S dw = d.dot(x);
      if (dw > S(0)) {
        g.lower_vw = dw;
        g.lower_vv = d.squaredNorm();
        g.restart_w = x, g.restart_pa = qa, g.restart_pb = qb;
        break;
      }
    }
  }
  g.status = g.lower_vw > S(0) ? Status::separated : Status::intersecting;
  if (g.status == Status::separated) {
    const S len = std::sqrt(g.vv), lower = g.lower_vw / std::sqrt(g.lower_vv);
    g.restart = !gjk_gap_proven(len, lower, opt.relative_tolerance, std::sqrt(simplex.max_vertex_norm2()));
  }
}

/// The support point along −v is already in W, yet the duality gap is open: v's direction is
/// off. v is a combination of W's vertices, so its absolute error is a few ε·‖y‖max: on a sliver
/// 1e11 long that tilted it by 5e-6 rad, the support along it came back to the far vertex, and
/// the descent stopped at 2.07 for a distance of 0.97. W's own geometry (simplex_normal: cross
/// products of its short edges) gives the direction without that error; the support along it is
/// a proven lower bound, and when it is a new point the descent goes on from it (`w`, `pa`, `pb`
/// replaced). False when there is nothing better to try.
template <class S, class A, class B>
[[gnu::noinline]] inline bool gjk_reaim(GjkDescent<S>& g, CsoSupport<S, A, B>& support, Vec3<S>& w, Vec3<S>& pa,
                                             Vec3<S>& pb) {
  const Johnson<S>& simplex = g.simplex;
  if (!(simplex.bits & (simplex.bits - 1u))) return false;  // a single vertex: v is exact
  const Vec3<S> d = simplex_normal(simplex, g.v);
  const S dd = d.squaredNorm();
  if (!(dd > S(0))) return false;
  Vec3<S> qa, qb;
  const Vec3<S> x = support(-d, qa, qb);
  const S dx = d.dot(x);
  if (dx > S(0) && dx * dx * g.lower_vv > g.lower_vw * g.lower_vw * dd) {
    g.lower_vw = dx;
    g.lower_vv = dd;
  }
  if (simplex.contains(x)) return false;
  w = x, pa = qa, pb = qb;
  return true;
}

/// GjkOptions::apart_beyond's early stop, from v and the support point w along −v: the lower
/// bound l = v·w/‖v‖ − radii exceeds `beyond` and ‖v‖ − v·w/‖v‖ ≤ (l − beyond)/8. Multiplied
/// through by ‖v‖ (one square root, only once v·w is past the first test).
template <class S>
[[gnu::always_inline]] inline bool gjk_apart_enough(S vv, S vw, S radii, S beyond) {
  const S edge = beyond + radii;  // the core distance the shapes must exceed
  if (!(vw > S(0)) || !(edge < std::numeric_limits<S>::infinity())) return false;
  if (edge > S(0) && !(vw * vw > edge * edge * vv)) return false;
  const S len = std::sqrt(vv);
  return vw > edge * len && vv - vw <= S(0.125) * (vw - edge * len);
}

/// The descent: one support point per iteration until a proof, a stall or `cap` iterations.
template <bool Boolean, class S, class A, class B>
[[gnu::always_inline]] inline void gjk_descend(GjkDescent<S>& g, CsoSupport<S, A, B>& support, S radii,
                                               const GjkOptions<S>& opt, int cap) {
  Johnson<S>& simplex = g.simplex;
  while (g.it < cap) {
    if (g.vv <= Tolerances<S>::gjk_tiny_squared * simplex.max_vertex_norm2()) {
      g.status = Status::intersecting;  // the origin is in the CSO up to rounding
      return;
    }
    if constexpr (Boolean) {
      if (g.vv <= radii * radii) {
        g.status = Status::intersecting;  // upper bound of the core distance already within the radii
        return;
      }
    }
    ++g.it;
    Vec3<S> pa, pb;
    Vec3<S> w = support(-g.v, pa, pb);
    const S vw = g.v.dot(w);
    if (vw > S(0)) {
      if (vw * vw * g.lower_vv > g.lower_vw * g.lower_vw * g.vv) {
        g.lower_vw = vw;
        g.lower_vv = g.vv;
      }
      // v·w's rounding is a few ε·‖v‖·‖w‖: past it, no simplex can hold the origin.
      g.plane = g.plane || vw * vw > Tolerances<S>::gjk_tiny_squared * g.vv * w.squaredNorm();
    }
    if constexpr (Boolean) {
      // Separating-axis early out: v·w/||v|| is a lower bound of the core distance.
      if (vw > S(0) && vw * vw > radii * radii * g.vv) {
        g.status = Status::separated;
        return;
      }
    }
    // Relative termination: ||v|| − v·w/||v|| ≤ rel·||v||.
    if (g.vv - vw <= opt.relative_tolerance * g.vv ||
        (simplex.contains(w) && !gjk_reaim(g, support, w, pa, pb))) {
      g.status = Status::separated;
      return;
    }
    if constexpr (!Boolean) {
      if (gjk_apart_enough(g.vv, vw, radii, opt.apart_beyond)) {
        g.status = Status::separated;
        g.early = true;
        return;
      }
    }
    const SimplexWeights<S> prev(simplex);
    simplex.add(w, pa, pb);
    Vec3<S> next;
    bool ok = simplex.closest(next);
    if constexpr (sizeof(S) >= 8) gjk_refine_geometric(simplex, ok, next, g.vv);
    S nn = next.squaredNorm();
    // A full simplex whose determinants all pass Johnson's tests holds the origin, when the signs
    // can be trusted: either the descent made progress, or the tetrahedron is well above the
    // rounding level (a thin one in float has a noisy v but sound signs; a flat one has neither).
    if (simplex.full() && ok && (nn < g.vv || !simplex.degenerate(15u))) {
      if (gjk_enclosed(g, next, nn, prev)) return;
    }
    // (In double a backup subset that still makes progress is kept and the descent goes on.)
    if (nn >= g.vv || (!ok && sizeof(S) < 8)) {
      if (nn >= g.vv && g.lower_vw <= S(0) && g.vv > Tolerances<S>::gjk_tiny_squared * simplex.max_vertex_norm2()) {
        // No progress and no separating plane seen yet, with v far above the rounding level:
        // v's direction is off (a combination of far vertices), not the geometry. Where the
        // support along −v is a new point only by a curved shape's rounding, gjk_reaim's
        // `contains` test cannot catch it (a cone against a sliver 1e12 long in float: the far
        // vertex came back a hair away, and the pair at a distance of 0.92 was called touching).
        // The support along W's own normal instead, when new, lets the descent go on.
        prev.restore(simplex);
        if (gjk_reaim(g, support, w, pa, pb)) {
          const SimplexWeights<S> before(simplex);
          simplex.add(w, pa, pb);
          bool ok2 = simplex.closest(next);
          if constexpr (sizeof(S) >= 8) gjk_refine_geometric(simplex, ok2, next, g.vv);
          S n2 = next.squaredNorm();
          if (simplex.full() && ok2 && (n2 < g.vv || !simplex.degenerate(15u)) && gjk_enclosed(g, next, n2, before))
            return;
          if (ok2 && n2 < g.vv) {
            g.v = next;
            g.vv = n2;
            continue;
          }
          before.restore(simplex);
        }
        next = g.v;
        nn = g.vv;
      }
      gjk_stall(g, next, nn, prev, support, w, pa, pb, opt);
      return;
    }
    g.v = next;
    g.vv = nn;
  }
}

/// gjk_descend compiled out of line, for gjk_core's new starts after a stall (rare): one inlined
/// copy of the descent per pair, not two. The rare phases (gjk_enclosed, gjk_stall, gjk_reaim,
/// gjk_foot_of_perpendicular, gjk_certify) are out of line too; the descent's hot path (the
/// support, Johnson's step, gjk_refine_geometric) stays inlined. Measured (GCC -O3):
/// gjk_core_double.cpp alone compiled in 140 s before, 63 s after; the code is the same
/// operations, so the answers are the same bits.
template <bool Boolean, class S, class A, class B>
[[gnu::noinline]] void gjk_descend_again(GjkDescent<S>& g, CsoSupport<S, A, B>& support, S radii, const GjkOptions<S>& opt,
                                         int cap) {
  gjk_descend<Boolean>(g, support, radii, opt, cap);
}

/// v as a barycentric combination of large vertices carries an absolute error of a few
/// ε·size, which near contact is a large part of ‖v‖ and tilts its direction (float: a gap of
/// 1e-4 on unit shapes comes out with a normal off by 1e-3). W's own plane or line gives the
/// same point without the cancellation: v is the foot of the perpendicular from the origin.
template <class S>
[[gnu::noinline]] inline void gjk_foot_of_perpendicular(GjkDescent<S>& g) {
  const Johnson<S>& simplex = g.simplex;
  const Vec3<S> d = simplex_normal(simplex, g.v);
  const S dd = d.squaredNorm();
  if (dd > S(0) && (simplex.bits & (simplex.bits - 1u))) {  // two or three vertices
    int first = 0;
    while (!(simplex.bits & (1u << first))) ++first;
    const S h = d.dot(simplex.y[first]);
    // Taken only where it agrees with Johnson's v to rounding (a sliver triangle's normal is
    // itself ill-conditioned; then Johnson's v is the better one).
    const Vec3<S> foot = (h / dd) * d;
    const S agree = S(kGjkRoundingUlps) * Tolerances<S>::epsilon;
    if (h > S(0) && (foot - g.v).squaredNorm() <= agree * agree * simplex.max_vertex_norm2()) {
      g.v = foot;
      g.vv = g.v.squaredNorm();
    }
  }
}

/// The output of a finished descent: bounds, witnesses, whether the answer is proven, and the
/// status with the radii applied. `start_iterations` count toward the reported iterations.
template <bool Boolean, class S>
[[gnu::noinline]] inline GjkOutput<S> gjk_certify(const GjkDescent<S>& g, S radii, const GjkOptions<S>& opt,
                                                       int start_iterations) {
  const Johnson<S>& simplex = g.simplex;
  const S vv = g.vv;
  Status status = g.status;
  GjkOutput<S> out;
  out.v = g.v;
  out.iterations = g.it + start_iterations;
  out.lower = status == Status::intersecting ? S(0) : g.lower_vw / std::sqrt(g.lower_vv);
  out.scale = std::sqrt(simplex.max_vertex_norm2());
  simplex.witnesses(out.pa, out.pb);
  {
    // The witnesses are Johnson's weights times the support points, so their error is the
    // weights' times the spread of those points; v, found by geometry where Johnson's is poor, is
    // more accurate than their difference. Where the two disagree beyond rounding, the witness on
    // the shape whose support points are smaller (the smaller error) stands and the other is
    // placed from it by v, so that they are exactly v apart (a needle 2e12 long against a hull,
    // found by fuzzing: v 5e-5 long, its witnesses 3,518 apart). Touching counts too: a cast's
    // hit takes the points of GJK at its time of impact, where the pair is often `intersecting`
    // to rounding (the same needle against another hull: a hit with its points 819,856 apart).
    const S slack = S(kGjkRoundingUlps) * Tolerances<S>::epsilon * out.scale;
    if ((out.pa - out.pb - g.v).squaredNorm() > slack * slack) {
      S ma = 0, mb = 0;
      for (int i = 0; i < 4; ++i) {
        if (!(simplex.bits & (1u << i))) continue;
        ma = std::max(ma, simplex.a[i].squaredNorm());
        mb = std::max(mb, simplex.b[i].squaredNorm());
      }
      if (ma <= mb) out.pb = out.pa - g.v;
      else out.pa = out.pb + g.v;
    }
  }
  // Proven? The cap is not a proof; an overlap claimed after a stall is a proof only when v is at
  // the rounding level; a separation only when the gap between ‖v‖ and the lower bound is within
  // the termination test's own slack (ten times the relative tolerance) plus rounding.
  if (status == Status::max_iterations) {
    out.certified = false;
  } else if (g.early) {
    out.certified = true;  // apart beyond what the caller asked about, within the bound it asked for
  } else if (status == Status::intersecting) {
    out.certified = !g.stalled || vv <= Tolerances<S>::gjk_tiny_squared * simplex.max_vertex_norm2();
  } else {
    const S len = std::sqrt(vv);
    out.certified = gjk_gap_proven(len, out.lower, opt.relative_tolerance, out.scale);
  }
  if (status == Status::separated || status == Status::max_iterations) {
    if constexpr (!Boolean) {
      if (vv <= radii * radii) status = Status::intersecting;
    } else {
      if (status == Status::separated && vv <= radii * radii) status = Status::intersecting;
    }
  }
  out.status = status;
  return out;
}

/// Write-back: W's support points in each shape's local frame (a warm start at the next poses),
/// v, and the hull hints.
template <class S, class A, class B>
[[gnu::always_inline]] inline void gjk_write_cache(GjkCache<S>& cache, const GjkDescent<S>& g,
                                                   const CsoSupport<S, A, B>& support) {
  const Johnson<S>& simplex = g.simplex;
  const Mat3<S>& rt = support.rt;
  cache.count = 0;
  const Transform<S> a_in_b{rt, rt * -support.b_in_a.translation};
  for (unsigned i = 0; i < 4; ++i) {
    if (simplex.bits & (1u << i)) {
      cache.local_a[cache.count] = simplex.a[i];
      cache.local_b[cache.count] = a_in_b.apply(simplex.b[i]);
      ++cache.count;
    }
  }
  if (simplex.full()) cache.count = 0;  // a tetrahedron around the origin is no warm start
  cache.axis = g.v;
  cache.hint_a = support.hint_a;
  cache.hint_b = support.hint_b;
}

/// The GJK loop on cores `a` and `b` (B placed by b_in_a, in A's frame) grown by the radii.
/// `Boolean` selects the intersection test (separating-axis early out) over the distance query.
/// `start_iterations`: iterations already spent on this query by a shortcut that gave up (the
/// cylinder pair's Newton steps); they count against opt.max_iterations and are included in the
/// output's count. Pair shortcuts are not taken here: see detail/core_distance.hpp.
template <bool Boolean, class S, class A, class B>
GjkOutput<S> gjk_core(const A& a, S radius_a, const B& b, S radius_b, const Transform<S>& b_in_a,
                      const GjkOptions<S>& opt, GjkCache<S>* cache, int start_iterations = 0) {
  const S radii = radius_a + radius_b;
  CsoSupport<S, A, B> support{a, b, b_in_a, b_in_a.rotation.transpose(), cache ? cache->hint_a : -1,
                              cache ? cache->hint_b : -1};
  GjkDescent<S> g;
  gjk_start(g, support, b_in_a, cache);
  const int cap = opt.max_iterations - start_iterations;
  gjk_descend<Boolean>(g, support, radii, opt, cap);
  while (g.restart && g.restarts < kGjkRestarts) {
    // A stall with a plane but v far from it: W's vertices (a far corner's rounding) held the
    // descent. It starts again from the support point that proved the plane, keeping the bound;
    // the new answer stands unless it is a larger ‖v‖.
    GjkDescent<S> h;
    h.restarts = g.restarts + 1;
    h.it = g.it;
    h.lower_vw = g.lower_vw, h.lower_vv = g.lower_vv;
    h.plane = g.plane;
    gjk_start_at(h, g.restart_w, g.restart_pa, g.restart_pb);
    gjk_descend_again<Boolean>(h, support, radii, opt, cap);
    if (h.status != Status::intersecting && g.status == Status::separated && !(h.vv < g.vv)) {
      g.it = h.it;
      if (h.lower_vw * h.lower_vw * g.lower_vv > g.lower_vw * g.lower_vw * h.lower_vv)
        g.lower_vw = h.lower_vw, g.lower_vv = h.lower_vv;
      break;
    }
    g = h;
  }
  if (g.status != Status::intersecting) gjk_foot_of_perpendicular(g);
  const GjkOutput<S> out = gjk_certify<Boolean>(g, radii, opt, start_iterations);
  if (cache) gjk_write_cache(*cache, g, support);
  return out;
}

}  // namespace impact::detail
