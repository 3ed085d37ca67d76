// impact benchmarks — toi_scenes.hpp: the seeded rotating cases of the time_of_impact benchmarks.
//
// A case is two shapes with a rigid motion each over t ∈ [0, 1] (impact::Motion: pose at t = 0,
// velocity of the local origin, world angular velocity about the origin). Every case is apart at
// t = 0 (distance ≥ 1e-3 by impact::distance), so that no library's "already touching" rule
// decides it.
//
// Pairs:
// - box_box: half extents uniform in [0.1, 1]; |ω| of each body uniform in [0, π] rad per interval
//   (up to half a turn) about a uniform axis.
// - hull_hull: a pool of 64 hulls, each of n random points on a sphere of radius in [0.5, 1.5],
//   n uniform in [32, 128] (n extreme vertices); spins as box_box.
// - propeller: A is a long thin box (half extents L × w × w, L in [1, 2.5], w in [0.02, 0.08])
//   turning 0.25 to 3 turns per interval about an axis perpendicular to its length, through its
//   centre (its origin); B is a small box (half extents in [0.03, 0.15]) spinning up to π, crossing
//   A's disc plane at a uniform time in [0.1, 0.9], at a point at radius [0.1, 1.1]·L, with a
//   normal speed in [0.5, 4] per interval and an in-plane drift up to 0.5.
//
// box_box and hull_hull placement: A's origin uniform in a cube of side 10, uniform rotations. B
// lies along a uniform direction u from A at f·t*, t* the contact distance along u (bisection on
// impact::intersect, as scenes.cpp) and f uniform in [1.05, 2.5]. B's velocity relative to A is
// −g·f·t*·u plus a lateral part up to 0.5·t* (g uniform in [0.3, 1.5]), and both bodies share a
// uniform drift in [−2, 2]³ (which changes neither the relative translation nor the answer, but
// moves the bodies' origins, as in a real scene).
#pragma once

#include "peers.hpp"
#include "scenes.hpp"

#include <impact/query.hpp>
#include <impact/toi.hpp>

#include <cstdint>
#include <vector>

namespace impact_bench {

enum class ToiPair { box_box, hull_hull, propeller };
inline constexpr ToiPair kToiPairs[] = {ToiPair::box_box, ToiPair::hull_hull, ToiPair::propeller};
[[nodiscard]] const char* toi_pair_name(ToiPair p);

template <class S>
struct ToiCase {
  int a = 0;
  int b = 0;
  impact::Motion<S> ma, mb;
};

template <class S>
struct ToiScene {
  std::vector<impact::Shape<S>> shapes;
  std::vector<ToiCase<S>> cases;
};

/// The cases of a pair (double), `count` of them, seeded.
[[nodiscard]] ToiScene<double> make_toi_scene(ToiPair pair, std::size_t count = kCases, std::uint64_t seed = kSeed);

/// The same cases in float.
[[nodiscard]] ToiScene<float> to_float(const ToiScene<double>& scene);

/// The same cases as plain numbers for the peers.
[[nodiscard]] ToiSceneDesc describe(const ToiScene<double>& scene);

}  // namespace impact_bench
