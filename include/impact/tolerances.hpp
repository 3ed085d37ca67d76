// impact — tolerances.hpp: every default tolerance of the library, with its meaning and unit.
// See docs/tolerances.md for how they were chosen.
#pragma once

#include <limits>

namespace impact {

/// Default tolerances for scalar S. All are dimensionless ratios unless marked otherwise, so
/// they hold at any scale (a millimetre part and a kilometre of terrain behave the same).
template <class S>
struct Tolerances {
  static constexpr S epsilon = std::numeric_limits<S>::epsilon();

  /// GJK relative termination (van den Bergen 2003): stop when ||v||² − v·w ≤ rel·||v||², i.e.
  /// the distance upper bound ||v|| exceeds the proven lower bound v·w/||v|| by at most
  /// rel·||v||. Dimensionless. Below about 10·epsilon the test can never pass through rounding
  /// and GJK runs to its iteration cap; above it the distance error grows linearly with it.
  static constexpr S gjk_relative = sizeof(S) == 4 ? S(1e-6) : S(1e-12);

  /// GJK "v is zero": ||v||² ≤ tiny·max||y||² (y the simplex vertices) means the origin lies in
  /// the CSO up to rounding, so the shapes touch or overlap. Dimensionless, on squared lengths.
  /// It is (64·epsilon)²: the rounding error of a barycentric combination of the vertices is a few
  /// epsilon of their length. Too small: touching pairs spin to the iteration cap; too large:
  /// pairs a hair apart are reported intersecting.
  static constexpr S gjk_tiny_squared = (S(64) * epsilon) * (S(64) * epsilon);

  /// Iteration cap of GJK. Polytopes converge in a few iterations, smooth shapes in about
  /// −log(gjk_relative); reaching the cap reports `Status::max_iterations`.
  static constexpr int gjk_max_iterations = 128;

  /// GJK ray cast relative termination (van den Bergen 2004, §4): stop when
  /// (‖v‖ − R)² ≤ tol·max‖x − p‖² over the simplex, i.e. x is within √tol of the simplex's size
  /// from the (grown) shape. Dimensionless, on squared lengths; an order of magnitude above
  /// machine epsilon, as the paper prescribes: below epsilon the rounding error of ‖v‖² exceeds
  /// the bound and the loop never ends; larger values stop further from the surface (earlier).
  static constexpr S ray_cast_relative = S(10) * epsilon;

  /// Iteration cap of the ray cast and the casts built on it; reaching it reports
  /// Status::max_iterations with λ a valid lower bound.
  static constexpr int ray_cast_max_iterations = 128;

  /// Default `tolerance` of shape casts (length): the distance at the reported time of impact is
  /// within this of the target distance.
  static constexpr S cast_tolerance = sizeof(S) == 4 ? S(1e-4) : S(1e-6);

  /// Largest accepted |coordinate| or size (length). Beyond it, squared lengths overflow float.
  static constexpr S max_magnitude = S(1e12);

  /// How far a quaternion's norm may be from 1 before it is rejected (dimensionless).
  static constexpr S unit_quaternion = S(1e-6);
};

}  // namespace impact
