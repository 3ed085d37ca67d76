// impact — detail/core_pairs.hpp: the pairs of core types the queries hand to their templated
// solvers, as lists for explicit instantiation (detail/gjk_core_instances.hpp,
// toi/toi_solver_instances.hpp).
//
// A query peels its shapes into cores (detail/dispatch.hpp: a sphere is a point with a radius, a
// capsule a segment with one) of nine kinds, and runs its solver in scalar C on shapes of scalar
// S: the kinds' own types when C is S; when C is wider, the primitives converted (the same types
// as a C shape's) and hulls, Minkowski sums and transformed shapes wrapped (detail/promote.hpp).
// Each list below calls F(P, B, C, S, KA, KB) for its pairs, KA and KB naming the kinds as alias
// templates of (C, S) (so that no macro argument holds a comma); P and B are passed through.
#pragma once

#include <impact/shapes.hpp>

#include "detail/promote.hpp"

#include <type_traits>

namespace impact::detail {

// The type in which a core of each kind reaches a solver in scalar C from shapes of scalar S.
template <class C, class S>
using CorePoint = Point<C>;
template <class C, class S>
using CoreBox = Box<C>;
template <class C, class S>
using CoreCylinder = Cylinder<C>;
template <class C, class S>
using CoreCone = Cone<C>;
template <class C, class S>
using CoreSegment = Segment<C>;
template <class C, class S>
using CoreTriangle = Triangle<C>;
template <class C, class S>
using CoreHull = std::conditional_t<std::is_same_v<C, S>, Hull<C>, Promoted<C, S, Hull<S>>>;
template <class C, class S>
using CoreMinkowski = std::conditional_t<std::is_same_v<C, S>, MinkowskiShape<C>, Promoted<C, S, MinkowskiShape<S>>>;
template <class C, class S>
using CoreTransformed =
    std::conditional_t<std::is_same_v<C, S>, TransformedShape<C>, Promoted<C, S, TransformedShape<S>>>;

}  // namespace impact::detail

// KA against each primitive kind, and against each wrapped kind.
#define IMPACT_CORE_PRIMITIVES_OF(F, P, B, C, S, KA) \
  F(P, B, C, S, KA, CorePoint)                       \
  F(P, B, C, S, KA, CoreBox)                         \
  F(P, B, C, S, KA, CoreCylinder)                    \
  F(P, B, C, S, KA, CoreCone)                        \
  F(P, B, C, S, KA, CoreSegment)                     \
  F(P, B, C, S, KA, CoreTriangle)
#define IMPACT_CORE_WRAPPED_OF(F, P, B, C, S, KA) \
  F(P, B, C, S, KA, CoreHull)                     \
  F(P, B, C, S, KA, CoreMinkowski)                \
  F(P, B, C, S, KA, CoreTransformed)
#define IMPACT_CORE_ALL_OF(F, P, B, C, S, KA)    \
  IMPACT_CORE_PRIMITIVES_OF(F, P, B, C, S, KA) \
  IMPACT_CORE_WRAPPED_OF(F, P, B, C, S, KA)
/// The 36 pairs of primitive kinds (their types are the same for every S).
#define IMPACT_CORE_PRIMITIVE_PAIRS(F, P, B, C, S)            \
  IMPACT_CORE_PRIMITIVES_OF(F, P, B, C, S, CorePoint)        \
  IMPACT_CORE_PRIMITIVES_OF(F, P, B, C, S, CoreBox)          \
  IMPACT_CORE_PRIMITIVES_OF(F, P, B, C, S, CoreCylinder)     \
  IMPACT_CORE_PRIMITIVES_OF(F, P, B, C, S, CoreCone)         \
  IMPACT_CORE_PRIMITIVES_OF(F, P, B, C, S, CoreSegment)      \
  IMPACT_CORE_PRIMITIVES_OF(F, P, B, C, S, CoreTriangle)
/// The 45 pairs with a wrapped kind on either side (their types depend on S when C is wider).
#define IMPACT_CORE_WRAPPED_PAIRS(F, P, B, C, S)     \
  IMPACT_CORE_WRAPPED_OF(F, P, B, C, S, CorePoint)   \
  IMPACT_CORE_WRAPPED_OF(F, P, B, C, S, CoreBox)     \
  IMPACT_CORE_WRAPPED_OF(F, P, B, C, S, CoreCylinder) \
  IMPACT_CORE_WRAPPED_OF(F, P, B, C, S, CoreCone)    \
  IMPACT_CORE_WRAPPED_OF(F, P, B, C, S, CoreSegment) \
  IMPACT_CORE_WRAPPED_OF(F, P, B, C, S, CoreTriangle) \
  IMPACT_CORE_ALL_OF(F, P, B, C, S, CoreHull)        \
  IMPACT_CORE_ALL_OF(F, P, B, C, S, CoreMinkowski)   \
  IMPACT_CORE_ALL_OF(F, P, B, C, S, CoreTransformed)
/// All 81 pairs.
#define IMPACT_CORE_ALL_PAIRS(F, P, B, C, S)   \
  IMPACT_CORE_PRIMITIVE_PAIRS(F, P, B, C, S) \
  IMPACT_CORE_WRAPPED_PAIRS(F, P, B, C, S)
