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
#include <utility>

namespace impact::detail {

/// The type in which a core of kind X (the kind's type for shapes of scalar S) reaches a solver in
/// scalar C: X itself when C is S, else what promote<C, S> makes of it (the same types the queries
/// hand over, derived rather than restated: a change to promote() changes these lists with it).
template <class C, class S, class X>
using CoreIn = std::conditional_t<std::is_same_v<C, S>, X, decltype(promote<C, S>(std::declval<const X&>()))>;

// Each kind's alias template of (C, S), as the lists below name them.
template <class C, class S>
using CorePoint = CoreIn<C, S, Point<S>>;
template <class C, class S>
using CoreBox = CoreIn<C, S, Box<S>>;
template <class C, class S>
using CoreCylinder = CoreIn<C, S, Cylinder<S>>;
template <class C, class S>
using CoreCone = CoreIn<C, S, Cone<S>>;
template <class C, class S>
using CoreSegment = CoreIn<C, S, Segment<S>>;
template <class C, class S>
using CoreTriangle = CoreIn<C, S, Triangle<S>>;
template <class C, class S>
using CoreHull = CoreIn<C, S, Hull<S>>;
template <class C, class S>
using CoreMinkowski = CoreIn<C, S, MinkowskiShape<S>>;
template <class C, class S>
using CoreTransformed = CoreIn<C, S, TransformedShape<S>>;

// The split the lists rely on: a primitive kind's type in C is the same for shapes of any S; a
// wrapped kind's depends on S when C is wider.
static_assert(std::is_same_v<CoreBox<double, float>, CoreBox<double, double>>);
static_assert(std::is_same_v<CoreTriangle<long double, float>, CoreTriangle<long double, double>>);
static_assert(!std::is_same_v<CoreHull<double, float>, CoreHull<double, double>>);

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
