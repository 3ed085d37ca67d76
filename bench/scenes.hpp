// impact benchmarks — scenes.hpp: the seeded random cases every library is timed on.
//
// A scene is a pool of shapes and an array of cases (shape a at pose a, shape b at pose b).
// Rotations are uniform (Shoemake's method). A is placed uniformly in a 10-unit cube; B's
// centre is put along a uniformly random direction u from A's at f·t*, where t* is the contact
// distance along u (found by bisection: the set of overlapping offsets along a ray from an
// overlapping start is an interval, by convexity) and f is uniform in [0.5, 1.5]. So half the
// cases intersect by construction, and the gaps and depths are spread around contact the way a
// broadphase would hand them over. t* is found with impact::intersect; the cross-check at start
// would expose an impact bug there, since the peers would then disagree on the f ≈ 1 cases.
//
// Pairs: box_box (half extents in [0.1, 1]), sphere_box (radius in [0.1, 1]), cylinder_cylinder
// (radius, half height in [0.1, 1]), hull_hull (a pool of 64 hulls, each the hull of 128 random
// points on a sphere of radius in [0.5, 1.5], so 128 vertices each).
#pragma once

#include "peers.hpp"

#include <impact/query.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace impact_bench {

/// The random source of every scene: seeded, and read through the helpers below only, so scenes
/// do not depend on the standard library's distributions (which differ between implementations).
using Rng = std::mt19937_64;
/// Uniform in [lo, hi), from the raw 64-bit output.
[[nodiscard]] double uniform(Rng& rng, double lo, double hi);
/// Uniform on the unit sphere.
[[nodiscard]] impact::Vec3<double> unit_vector(Rng& rng);
/// Uniform rotation (Shoemake).
[[nodiscard]] impact::Quat<double> random_rotation(Rng& rng);
/// The hull of n random points on the sphere of `radius` (n extreme vertices).
[[nodiscard]] impact::Hull<double> hull_on_sphere(Rng& rng, int n, double radius);

/// The shape pairs benchmarked.
enum class Pair { box_box, sphere_box, cylinder_cylinder, hull_hull };
inline constexpr Pair kPairs[] = {Pair::box_box, Pair::sphere_box, Pair::cylinder_cylinder, Pair::hull_hull};
[[nodiscard]] const char* pair_name(Pair p);

/// Cases per pair: a power of two, so the timed loops cycle with a mask. The shapes of all cases
/// of a pair fit in L2 (the hull pool is 64 × 128 vertices).
inline constexpr std::size_t kCases = 1024;
/// Seed of every random choice in the benchmarks.
inline constexpr std::uint64_t kSeed = 0x1badb002u;

/// One query on shapes of a pool.
template <class S>
struct Case {
  int a = 0;
  int b = 0;
  impact::Pose<S> pose_a;
  impact::Pose<S> pose_b;
};

/// A pool of shapes and the cases on it.
template <class S>
struct Scene {
  std::vector<impact::Shape<S>> shapes;
  std::vector<Case<S>> cases;
};

/// The scene of a pair, in double (the reference all libraries get). `hull_points` sets the
/// points per hull of hull_hull (128 for the peer comparison; the gjk/hull_N benchmarks vary it).
[[nodiscard]] Scene<double> make_scene(Pair pair, std::size_t cases = kCases, std::uint64_t seed = kSeed,
                                       int hull_points = 128);

/// The same scene in float (shapes by impact::convert_shape, poses rounded).
[[nodiscard]] Scene<float> to_float(const Scene<double>& scene);

/// The same scene as plain numbers for the peers (hull faces recovered from the hull's planes).
[[nodiscard]] SceneDesc describe(const Scene<double>& scene);

/// A hull of n random points on the unit sphere (n extreme vertices) and `directions` random
/// unit directions, for the support benchmarks.
[[nodiscard]] impact::Hull<double> random_hull(int n, std::uint64_t seed = kSeed);
[[nodiscard]] std::vector<impact::Vec3<double>> random_directions(std::size_t count, std::uint64_t seed = kSeed);
/// A random walk of unit directions, each about `step` radians from the last: the coherent
/// sequence GJK asks a hull for within one query.
[[nodiscard]] std::vector<impact::Vec3<double>> direction_walk(std::size_t count, double step,
                                                               std::uint64_t seed = kSeed);

}  // namespace impact_bench
