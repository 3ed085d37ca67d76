#pragma once
// impact — toi/toi_solver_instances.hpp: the time-of-impact solvers both precisions share,
// compiled once.
//
// time_of_impact runs its solver in double for float and double shapes alike (toi_impl.hpp), so
// on pairs of primitive cores (points, boxes, cylinders, cones, segments, triangles: converted,
// not wrapped, detail/promote.hpp) toi_float.cpp and toi_double.cpp made the same 36 solvers.
// They are declared explicit instantiations here and defined in toi_double.cpp; the pairs with a
// hull, a Minkowski sum or a transformed shape differ between the precisions and stay where
// they are used. The GJK loops inside them are shared the same way
// (detail/gjk_core_instances.hpp).
#include "detail/core_pairs.hpp"
#include "toi/toi_solver.hpp"

#include <span>

namespace impact::toi {

/// A ToiSolver on cores a and b, made and run (ToiSolver's constructor and run).
template <class S, class A, class B>
ToiHit<S> solve_pair(const A& a, S ra, const B& b, S rb, const Kinematics<S>& ka, const Kinematics<S>& kb,
                     const ToiOptions<S>& opt, const RelativeMotion<S>* rel, std::span<const ToiHint<S>> hints,
                     LaterHints<S> later) {
  ToiSolver<S, A, B> solver(a, ra, b, rb, ka, kb, opt, rel);
  return solver.run(hints, later);
}

}  // namespace impact::toi

// One instantiation: PREFIX is `extern` (a declaration) or empty (the definition); B_ unused.
#define IMPACT_TOI_SOLVE_ONE(PREFIX, B_, C, S, KA, KB)                                                         \
  PREFIX template ToiHit<C> solve_pair<C, detail::KA<C, S>, detail::KB<C, S>>(                                 \
      const detail::KA<C, S>&, C, const detail::KB<C, S>&, C, const Kinematics<C>&, const Kinematics<C>&,      \
      const ToiOptions<C>&, const RelativeMotion<C>*, std::span<const ToiHint<C>>, LaterHints<C>);
/// The shared solvers (defined in toi_double.cpp).
#define IMPACT_TOI_SOLVER_SHARED(PREFIX) IMPACT_CORE_PRIMITIVE_PAIRS(IMPACT_TOI_SOLVE_ONE, PREFIX, 0, double, double)

namespace impact::toi {
IMPACT_TOI_SOLVER_SHARED(extern)
}  // namespace impact::toi
