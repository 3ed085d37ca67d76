// impact — detail/gjk_core_instances.hpp: the GJK loops the library compiles once.
//
// Every query reaches the GJK loop (`gjk_core`) on a pair of core types, in double and, for its
// retry, in long double: distance and intersect (gjk_*.cpp), the casts' distance at the time of
// impact (cast_*.cpp), each step of time of impact (toi_*.cpp). Float shapes run it in double on
// the same core types as double shapes (primitives are converted, detail/promote.hpp). Left to
// implicit instantiation, each of those six units compiled its own copy of the same loops: 1,296
// of them where 504 are distinct. Here every pair the queries hand over is declared an explicit
// instantiation (`extern template`), and defined once, in gjk_core_double.cpp,
// gjk_core_long_double.cpp and gjk_core_float.cpp. The code is the same, so are the answers:
// only where it is compiled changes (the loop was a call already; it is now a call into
// another unit).
//
// The families, as (loop scalar C, shape scalar S):
//   - (double, double) and (long double, double): every pair of core types;
//   - (double, float) and (long double, float): the pairs with a hull, a Minkowski sum or a
//     transformed shape, which float shapes hand over wrapped (Promoted); their other pairs are
//     the first families' own types.
// A pair not listed (a test's own type) is instantiated where it is used, as before.
//
// Measured (2 cores, the six units and these three, with toi/toi_solver_instances.hpp): under
// ASan (clang -O1) 2,065 s of compile before, 1,231 s after; in release (GCC -O3) gjk_float.cpp
// alone went from 287 s to 22 s, and the 22 targets that include GJK rebuilt in 7 minutes.
// Later, with GJK's rare phases out of line (gjk_descend_again in detail/gjk_core.hpp), the three
// gjk_core_*.cpp went from 476 s to 193 s in release.
#pragma once

#include "detail/core_pairs.hpp"
#include "detail/gjk_core.hpp"

// One instantiation: PREFIX is `extern` (a declaration) or empty (the definition).
#define IMPACT_GJK_CORE_ONE(PREFIX, B, C, S, KA, KB)                                                        \
  PREFIX template GjkOutput<C> gjk_core<B, C, KA<C, S>, KB<C, S>>(                                          \
      const KA<C, S>&, C, const KB<C, S>&, C, const Transform<C>&, const GjkOptions<C>&, GjkCache<C>*, int);
// The definitions of each unit (gjk_core_*.cpp), distance and boolean loops.
#define IMPACT_GJK_CORE_DOUBLE(PREFIX)                                           \
  IMPACT_CORE_ALL_PAIRS(IMPACT_GJK_CORE_ONE, PREFIX, false, double, double) \
  IMPACT_CORE_ALL_PAIRS(IMPACT_GJK_CORE_ONE, PREFIX, true, double, double)
#define IMPACT_GJK_CORE_LONG_DOUBLE(PREFIX)                                           \
  IMPACT_CORE_ALL_PAIRS(IMPACT_GJK_CORE_ONE, PREFIX, false, long double, double) \
  IMPACT_CORE_ALL_PAIRS(IMPACT_GJK_CORE_ONE, PREFIX, true, long double, double)
#define IMPACT_GJK_CORE_FLOAT(PREFIX)                                                     \
  IMPACT_CORE_WRAPPED_PAIRS(IMPACT_GJK_CORE_ONE, PREFIX, false, double, float)      \
  IMPACT_CORE_WRAPPED_PAIRS(IMPACT_GJK_CORE_ONE, PREFIX, true, double, float)       \
  IMPACT_CORE_WRAPPED_PAIRS(IMPACT_GJK_CORE_ONE, PREFIX, false, long double, float) \
  IMPACT_CORE_WRAPPED_PAIRS(IMPACT_GJK_CORE_ONE, PREFIX, true, long double, float)

namespace impact::detail {
IMPACT_GJK_CORE_DOUBLE(extern)
IMPACT_GJK_CORE_LONG_DOUBLE(extern)
IMPACT_GJK_CORE_FLOAT(extern)
}  // namespace impact::detail
