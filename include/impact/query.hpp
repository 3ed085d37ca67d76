// impact — query.hpp: distance and intersection of two shapes, their options and results. Each
// query visits the two `Shape` variants once and then runs GJK (src/detail/gjk.hpp) on their
// concrete types.
#pragma once

#include <impact/math.hpp>
#include <impact/shapes.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>

#include <limits>
#include <string>

namespace impact {

/// Options of the GJK queries. Defaults in tolerances.hpp.
template <class S>
struct GjkOptions {
  /// Relative termination tolerance (dimensionless): stop when the distance is known within
  /// this fraction of itself. See Tolerances::gjk_relative.
  S relative_tolerance = Tolerances<S>::gjk_relative;
  /// Iteration cap; reaching it reports Status::max_iterations with the best bound.
  int max_iterations = Tolerances<S>::gjk_max_iterations;
  /// Where rounding stops the double loop before a proof (thin simplices near curved shapes),
  /// run it once more in long double (about 2-4 times a double run, on a few percent of queries).
  /// time_of_impact turns it off: its own bounds certify its answers, and near contact its many
  /// calls stalled often enough to cost 20-35% of its time.
  bool wide_retry = true;
  /// Where distances past some value matter only roughly (time_of_impact's window: target +
  /// tolerance; a contact margin): once the shapes are proven farther apart than this (length),
  /// GJK stops as soon as its bounds hold the distance within an eighth of its excess over it.
  /// The answer is then `separated` with a distance d no more than (d* − apart_beyond)/8 above
  /// the true distance d*, and the shapes at least apart_beyond + 7/8 of (d − apart_beyond)
  /// apart along the normal, up to rounding. Distances up to apart_beyond come out as without
  /// it, bit for bit. Infinity (the default) or NaN: off.
  S apart_beyond = std::numeric_limits<S>::infinity();
};

/// What a caller keeps between GJK calls on the same pair so that a slowly moving pair
/// converges in one or two iterations: the last simplex, as support points in each shape's own
/// frame (so it survives motion of either shape), the last search direction, and the hull
/// vertices where the support hill-climbs start. A default-constructed cache is cold.
template <class S>
struct GjkCache {
  int count = 0;                          ///< Simplex vertices kept (0: cold).
  Vec3<S> local_a[4];                     ///< Support points on A's core, A's local frame.
  Vec3<S> local_b[4];                     ///< Support points on B's core, B's local frame.
  Vec3<S> axis{S(0), S(0), S(0)};         ///< Last v = closest point of A − B, A's local frame.
  int hint_a = -1;                        ///< Warm-start vertex for a hull A (−1: none).
  int hint_b = -1;                        ///< Warm-start vertex for a hull B (−1: none).
  /// Two cylinders (Newton's method, detail/projection_distance.hpp): B's last closest point in
  /// B's local frame, where the next call starts. GJK's fields are then cold.
  bool has_point_b = false;
  Vec3<S> point_b{S(0), S(0), S(0)};
};

/// Result of a distance query.
template <class S>
struct DistanceResult {
  /// separated, intersecting (touching within tolerance counts), max_iterations (distance is
  /// then an upper bound and the points are valid), or invalid_input (see `error`).
  Status status = Status::invalid_input;
  S distance = S(0);                       ///< Distance (length); 0 when intersecting.
  Vec3<S> point_a{S(0), S(0), S(0)};       ///< Closest point on A, world (valid unless invalid_input).
  Vec3<S> point_b{S(0), S(0), S(0)};       ///< Closest point on B, world.
  Vec3<S> normal{S(0), S(0), S(0)};        ///< Unit vector from A toward B (zero if undefined).
  int iterations = 0;                      ///< GJK iterations (support calls).
  std::string error;                       ///< The offending field, for invalid_input.
};

/// Result of a boolean intersection query.
template <class S>
struct IntersectResult {
  Status status = Status::invalid_input;   ///< separated, intersecting, max_iterations, invalid_input.
  /// For separated: a world direction d (unnormalised) with max over A of d·x < min over B of d·x.
  Vec3<S> separating_axis{S(0), S(0), S(0)};
  int iterations = 0;                      ///< GJK iterations.
  std::string error;                       ///< The offending field, for invalid_input.
};


/// Distance, closest points and normal between shapes `a` at `pose_a` and `b` at `pose_b`.
/// Never throws, never allocates (except to describe invalid input); bad shapes or poses answer
/// Status::invalid_input with `error` naming the field ("a.radius: negative").
/// `cache`, when given, must belong to this pair (same shapes, in this order) and warm-starts GJK.
template <class S>
[[nodiscard]] DistanceResult<S> distance(const Shape<S>& a, const Pose<S>& pose_a, const Shape<S>& b,
                                         const Pose<S>& pose_b, const GjkOptions<S>& options = {},
                                         GjkCache<S>* cache = nullptr);

/// Boolean overlap test with GJK's separating-axis early out (cheaper than `distance`).
template <class S>
[[nodiscard]] IntersectResult<S> intersect(const Shape<S>& a, const Pose<S>& pose_a, const Shape<S>& b,
                                           const Pose<S>& pose_b, const GjkOptions<S>& options = {},
                                           GjkCache<S>* cache = nullptr);

}  // namespace impact
