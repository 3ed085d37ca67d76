// impact — detail/ray_cast_core.hpp: van den Bergen's GJK ray cast (2004, Algorithm 3) on a
// convex core C grown by a radius R, given by a support functor.
//
// The ray is x(λ) = s + λ r. The simplex holds y_i = x − p_i for support points p_i of C, and
// v = v(conv(x − P)) = x − (the point of conv P nearest x). A support point p = s_C(v) gives the
// plane v·y = v·p + R‖v‖ bounding C ⊕ ball(R); while x lies beyond it (v·w > R‖v‖, w = x − p),
// every ray point before the plane is rejected: λ ← λ − (v·w − R‖v‖)/(v·r). λ only ever grows by
// proven lower bounds, so the answer is never later than the true hit. When x moves, the y_i all
// translate: their differences (Johnson's edge vectors) stay, the dot products and determinants
// are recomputed, and the duplicate-support guard is flushed.
#pragma once

#include "detail/johnson.hpp"
#include <impact/status.hpp>

#include <cmath>
#include <limits>

namespace impact::detail {

template <class S>
struct RayCastCoreResult {
  Status status = Status::miss;
  S lambda = S(0);
  Vec3<S> normal = Vec3<S>::Zero();  // unnormalised v (from C toward x) at the hit; zero if none
  Vec3<S> pa = Vec3<S>::Zero();      // witness point on the first shape's core (support frame)
  Vec3<S> pb = Vec3<S>::Zero();      // witness point on the second shape's core (support frame)
  int iterations = 0;
  S margin = S(0);  // on a miss: the gap the separating plane proves at the final x (length)
  /// A hit on a simplex whose farthest vertex is over a thousand times its nearest, where
  /// rounding stopped the progress (a full simplex, a support point already in it, ‖v‖ not
  /// shrinking) or the relative test fired: x is as close as GJK tells, which on a sliver (its
  /// far vertex 1e9 away) can be far from the surface. The caller checks such a hit.
  bool unproven = false;
  S near_scale = S(0);  // √min‖x − p_i‖² over the final simplex (length)
};

/// `support(d, pa, pb)` returns p = pa − pb, the support point of C in direction d (pb = 0 for a
/// single shape). `tol_sq_rel`: the paper's relative test ‖v‖² ≤ tol·max‖x − p‖² (R = 0), applied
/// to the gap ‖v‖ − R. `tol_abs`: an absolute bound on that gap (length; 0 for none).
/// The relative test scales with the simplex's farthest vertex, so where that vertex is a
/// thousand times farther than the nearest (a sliver 1e12 long: the test fired 5e4 from the
/// surface, where GJK's rounding floor is 0.014) its hit is `unproven`, for the caller to check.
/// `initial_axis`: warm-start direction (zero for none); the first termination test is then
/// skipped, as the paper says, since v0 need not lie in x − C.
///
/// `Geometric` (double only): Johnson's answer on 2- and 3-vertex subsets is re-derived by
/// geometry every iteration (Johnson::refine_subset), which thin simplices near curved surfaces
/// need; polytope pairs can leave it off.
template <class S, class Support, bool Geometric = true>
RayCastCoreResult<S> gjk_ray_cast_core(Support&& support, S radius, const Vec3<S>& s, const Vec3<S>& r,
                                       S max_lambda, S tol_sq_rel, S tol_abs, int max_iterations,
                                       const Vec3<S>& initial_axis) {
  RayCastCoreResult<S> out;
  Johnson<S> simplex;
  simplex.reject_degenerate = true;
  S lambda = 0;
  Vec3<S> x = s;
  Vec3<S> n = Vec3<S>::Zero();
  Vec3<S> v;
  Vec3<S> pa, pb;
  bool skip_test = false;
  if (initial_axis.squaredNorm() > S(0)) {
    v = initial_axis;
    skip_test = true;
  } else {
    // x minus an arbitrary point of C: the support point toward x from C's origin.
    const Vec3<S> p = support(x.squaredNorm() > S(0) ? Vec3<S>(x) : Vec3<S>(Vec3<S>::UnitX()), pa, pb);
    v = x - p;
  }
  int it = 0;
  S max_y2 = 0, min_y2 = 0;  // max and min ‖x − p‖² over the simplex vertices
  for (;;) {
    const S vv = v.squaredNorm();
    if (!skip_test) {
      if (simplex.full()) {  // x lies in conv(P) ⊂ C
        out.status = Status::hit;
        out.unproven = true;
        break;
      }
      const S len = std::sqrt(vv);
      const S gap = len - radius;
      if (gap <= S(0) || gap * gap <= tol_sq_rel * max_y2 || gap <= tol_abs) {
        out.status = Status::hit;
        out.unproven = gap > S(0) && gap > tol_abs;
        break;
      }
    }
    skip_test = false;
    if (it >= max_iterations) {
      out.status = Status::max_iterations;
      break;
    }
    ++it;
    const Vec3<S> p = support(v, pa, pb);
    Vec3<S> w = x - p;
    const S vw = v.dot(w);
    const S len = std::sqrt(vv);
    bool moved = false;
    const bool from_simplex = simplex.bits != 0;  // v came from Johnson (not the initial guess)
    if (vw > radius * len) {
      moved = true;
      const S vr = v.dot(r);
      if (vr >= S(0)) {
        out.status = Status::miss;
        out.normal = v;  // a separating axis of the ray and C ⊕ ball(R)
        out.margin = (vw - radius * len) / len;
        break;
      }
      lambda -= (vw - radius * len) / vr;
      if (lambda > max_lambda) {
        out.status = Status::miss;
        out.normal = v;
        break;
      }
      const Vec3<S> x_new = s + lambda * r;
      simplex.translate(x_new - x);
      x = x_new;
      n = v;
      w = x - p;
    } else if (simplex.contains(w)) {
      // No progress is possible at this x (rounding): x is as close as GJK can tell.
      out.status = Status::hit;
      out.unproven = true;
      break;
    }
    simplex.add(w, pa, pb);
    // When rounding defeats Johnson's tests the backup subset is the best estimate and the loop
    // goes on from it. (The paper stops there and returns x, but a degenerate simplex also arises
    // far from the surface: a fourth support point on the face of three earlier ones.)
    const bool ok = simplex.closest(v);
    if constexpr (sizeof(S) == 8) {
      // Thin simplices near curved surfaces: the same point by geometry (see
      // gjk_refine_geometric in detail/gjk_core.hpp).
      Vec3<S> g;
      const int k = simplex.count();
      if (Geometric && ok && k >= 2 && k <= 3 && simplex.refine_subset(g)) {
        v = g;
      } else if ((!ok || (!moved && v.squaredNorm() >= vv)) && simplex.closest_geometric(g) &&
                 (moved || g.squaredNorm() < vv)) {
        v = g;
      }
    }
    max_y2 = simplex.max_vertex_norm2();
    min_y2 = simplex.min_vertex_norm2();
    if (!moved && from_simplex && v.squaredNorm() >= vv) {
      // With x fixed, GJK's ‖v‖ must shrink; when rounding stops it, ‖v‖ is as close to the
      // distance from x to C as this precision resolves, and x is the best lower bound.
      out.status = Status::hit;
      out.unproven = true;
      break;
    }
  }
  out.lambda = lambda;
  out.iterations = it;
  out.near_scale = std::sqrt(min_y2);
  // Only a far vertex makes such a stop doubtful: elsewhere x is as close as the precision (or
  // the relative test) resolves, and every flat hit ends on a support point already held.
  out.unproven = out.unproven && max_y2 > S(1e6) * (min_y2 + radius * radius);
  if (out.status == Status::hit || out.status == Status::max_iterations) {
    // Witnesses: the point of conv P nearest x, split into the two shapes' points.
    simplex.witnesses(out.pa, out.pb);
    // The last plane that advanced x touches C ⊕ ball(R) and holds x: a valid normal at the
    // hit, exact for polytopes. (GJK's final v is not better: on curved surfaces it points at
    // the simplex's approximation of the surface.)
    out.normal = n.squaredNorm() > S(0) ? n : v;
  }
  return out;
}

}  // namespace impact::detail
