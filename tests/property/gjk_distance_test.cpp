// Certifies impact::distance and impact::intersect (GJK) on every pair of the ten shape types
// (point, sphere, box, capsule, cylinder, cone, segment, triangle, hull, box ⊕ sphere), in float
// and double, never by comparing with GJK itself:
//  * against closed forms (sphere–sphere, sphere–box, capsule–capsule) and exact feature
//    enumeration with separating-axis overlap tests (box–box, hull–hull, and every pair of
//    polytope-cored shapes), from tests/support/oracles.hpp;
//  * by certificates on every answer: witness points on the shapes, |pB − pA| = distance along
//    the normal, and the duality gap (min_B n·x − max_A n·x equals the distance); where no exact
//    oracle exists (cylinder and cone against anything but a ball) also by proven bounds from
//    alternating projections; intersecting answers by a common point of both shapes between the
//    witnesses, and by the failure of a search for a separating direction;
//  * on 10,000 seeded random cases per pair and precision, 30% to 70% of them in contact;
//  * for symmetry (swap A and B), invariance (translate the scene 1e3 and 1e5 away in double,
//    1e2 and 1e3 in float), warm starts (same answer, fewer iterations), agreement of
//    intersect() with distance(), near-unit quaternions, and invalid inputs naming the field.
// Tolerances come from scenes::length_tolerance (derived there from GJK's own tolerance), and
// every looser bound below is derived from it in a comment.
#include "oracles.hpp"
#include "scenes.hpp"

#include <impact/query.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace impact;
using oracle::Body;
using oracle::Kind;
using oracle::V;
using scenes::Case;
using scenes::FailureLog;

constexpr int kCasesPerPair = scenes::battery(10000);
constexpr int kSymmetryCasesPerPair = scenes::battery(2000);
constexpr int kFarCasesPerPair = scenes::battery(1000);

template <class S>
V vd(const Vec3<S>& v) {
  return v.template cast<double>();
}

template <class S>
std::string result_text(const DistanceResult<S>& r) {
  std::ostringstream o;
  o.precision(17);
  o << "status " << to_string(r.status) << ", distance " << double(r.distance) << ", point_a ("
    << vd(r.point_a).transpose() << "), point_b (" << vd(r.point_b).transpose() << "), normal ("
    << vd(r.normal).transpose() << "), iterations " << r.iterations;
  if (!r.error.empty()) o << ", error " << r.error;
  return o.str();
}

template <class S>
std::string cache_text(const GjkCache<S>& c) {
  std::string s = "GjkCache{count " + std::to_string(c.count) + ", local_a {";
  for (int i = 0; i < c.count; ++i) s += (i ? ", " : "") + scenes::vec(c.local_a[i]);
  s += "}, local_b {";
  for (int i = 0; i < c.count; ++i) s += (i ? ", " : "") + scenes::vec(c.local_b[i]);
  return s + "}, axis " + scenes::vec(c.axis) + ", hint_a " + std::to_string(c.hint_a) + ", hint_b " +
         std::to_string(c.hint_b) + "}";
}

/// Exact distance when the oracle knows one, with the oracle's kind of answer.
inline std::string oracle_text(const std::optional<double>& d) {
  return d ? "oracle distance " + scenes::num(*d) : std::string("no exact oracle for this pair");
}

/// Checks one distance answer against the oracle and the certificates; `tol` is the length
/// tolerance. Returns true when the answer reports contact (intersecting, or distance ≤ tol).
template <class S>
bool check_distance(const Case<S>& c, const DistanceResult<S>& r, double tol, FailureLog& log) {
  const Body& A = c.body_a;
  const Body& B = c.body_b;
  const std::optional<double> exact = oracle::distance(A, B);
  auto details = [&](const std::string& what) {
    return c.describe() + "\n  got: " + result_text(r) + "\n  " + oracle_text(exact) + "\n  " + what +
           " (tolerance " + scenes::num(tol) + ")";
  };
  if (r.status != Status::separated && r.status != Status::intersecting) {
    log.fail("status is neither separated nor intersecting", details(""));
    return false;
  }
  const V pa = vd(r.point_a), pb = vd(r.point_b), n = vd(r.normal);
  const double d = r.distance;
  if (r.status == Status::separated) {
    if (exact && std::abs(d - *exact) > tol)
      log.fail("separated: distance differs from the exact oracle", details("error " + scenes::num(d - *exact)));
    if (!(d >= 0)) log.fail("separated: negative distance", details(""));
    // On the surface: not outside (a witness is a convex combination of support points, or a
    // core point pushed out by the radius), and not deeper inside than 2 tol: a witness inside
    // by e proves the distance is at most |pb − pa| − e, which the two checks of the distance
    // (against the truth and against |pb − pa|, tol each) bound by 2 tol.
    const double sa = oracle::signed_distance(A, pa), sb = oracle::signed_distance(B, pb);
    if (sa > tol || sb > tol || sa < -2 * tol || sb < -2 * tol)
      log.fail("separated: a witness point is off its shape's surface",
               details("signed distances of point_a to A " + scenes::num(sa) + ", of point_b to B " + scenes::num(sb)));
    if (std::abs((pb - pa).norm() - d) > tol)
      log.fail("separated: |point_b - point_a| differs from the distance", details("|pb - pa| = " + scenes::num((pb - pa).norm())));
    if (d > tol) {
      // The normal is only defined up to rounding when the shapes (nearly) touch.
      if (std::abs(n.norm() - 1) > 1e3 * std::numeric_limits<S>::epsilon())
        log.fail("separated: normal is not a unit vector", details("|n| = " + scenes::num(n.norm())));
      // Duality gap. With the exact normal n* the lower bound equals d; an error e = n − n* lowers
      // it by at most max_{a∈A, b∈B} e·(a − b) ≤ |e|·4·size (first order: support values of
      // polytopes are piecewise linear in n). n is v/|v| for the core vector v, known within
      // tol, and |v| = d + the radii peeled off round shapes, so |e| ≤ tol/|v|.
      const double core = d + A.rounding() + B.rounding();
      const double gap_tol = tol + 4 * c.size * tol / core;
      const double lower = -oracle::support_value(B, -n) - oracle::support_value(A, n);
      if (lower - d > tol || d - lower > gap_tol)
        log.fail("separated: duality gap (min_B n.x - max_A n.x differs from the distance)",
                 details("lower bound " + scenes::num(lower) + ", allowed deficit " + scenes::num(gap_tol)));
      if ((pb - pa - d * n).norm() > tol)
        log.fail("separated: normal is not along point_b - point_a", details(""));
    }
    if (!exact) {
      // No oracle: independent proven bounds (alternating projections) must bracket the answer.
      const oracle::Bounds bounds = oracle::distance_bounds(A, B, tol / 4, 500, {n});
      if (d < bounds.lower - tol)
        log.fail("separated: distance below a proven lower bound", details("lower bound " + scenes::num(bounds.lower)));
      if (d > bounds.upper + tol)
        log.fail("separated: distance above a proven upper bound", details("upper bound " + scenes::num(bounds.upper)));
    }
    return d <= tol;
  }
  // Intersecting.
  if (d != S(0)) log.fail("intersecting: distance is not 0", details(""));  // documented sentinel, exact
  if (exact && *exact > tol)
    log.fail("intersecting: the exact oracle separates the shapes", details(""));
  const double sa = oracle::signed_distance(A, pa), sb = oracle::signed_distance(B, pb);
  if (sa > tol || sb > tol)
    log.fail("intersecting: a witness point lies outside its shape",
             details("signed distances of point_a to A " + scenes::num(sa) + ", of point_b to B " + scenes::num(sb)));
  if (!exact) {
    // No oracle: try to refute the answer with a separating direction (a proof when found).
    const double sep = oracle::best_separation(A, B, {V(B.pos - A.pos), V(pb - pa)});
    if (sep > tol)
      log.fail("intersecting: a separating direction proves the shapes apart",
               details("min_B n.x - max_A n.x = " + scenes::num(sep) + " for some n"));
  }
  const double excess = oracle::common_point_excess(A, B, pa, pb);
  if (excess > tol)
    log.fail("intersecting: no common point of A and B between the witnesses",
             details("least max(sd_A, sd_B) on the segment " + scenes::num(excess)));
  return true;
}

/// Checks that intersect() agrees with the reference answer (the oracle's when known, else the
/// certified distance answer), except within tol of contact, and certifies its separating axis.
template <class S>
void check_intersect(const Case<S>& c, const IntersectResult<S>& ri, const DistanceResult<S>& rd, double tol,
                     FailureLog& log) {
  const std::optional<double> exact = oracle::distance(c.body_a, c.body_b);
  const double ref = exact ? *exact : double(rd.distance);
  auto details = [&](const std::string& what) {
    return c.describe() + "\n  intersect: status " + std::string(to_string(ri.status)) + ", axis (" +
           scenes::vec(ri.separating_axis) + ")\n  distance: " + result_text(rd) + "\n  " + oracle_text(exact) + "\n  " +
           what;
  };
  if (ri.status != Status::separated && ri.status != Status::intersecting) {
    log.fail("intersect: status is neither separated nor intersecting", details(""));
    return;
  }
  const bool touching = ref <= tol;
  if (!touching && ri.status != rd.status) log.fail("intersect: status differs from distance()", details(""));
  if (!touching && ri.status == Status::intersecting && ref > 0)
    log.fail("intersect: intersecting but the shapes are apart", details(""));
  if (ri.status == Status::separated) {
    const V axis = vd(ri.separating_axis);
    if (!(axis.norm() > 0)) {
      log.fail("intersect: separated with a zero axis", details(""));
      return;
    }
    const V u = axis.normalized();
    // max_A u·x < min_B u·x, up to rounding. The axis is −v for the cores' vector v, known within
    // tol: its direction within tol/|v|, which moves the support values by at most that times the
    // extent 4·size (as for the duality gap).
    const double overlap = oracle::support_value(c.body_a, u) + oracle::support_value(c.body_b, -u);
    const double allowed = tol + 4 * c.size * tol / axis.norm();
    if (overlap > allowed)
      log.fail("intersect: the separating axis does not separate",
               details("overlap " + scenes::num(overlap) + ", allowed " + scenes::num(allowed)));
  }
}

// ---------------------------------------------------------------------------------------------
// The random batteries: one test per pair of kinds and precision
// ---------------------------------------------------------------------------------------------

struct PairParam {
  Kind a, b;
  bool is_float;
};

std::string pair_name(const testing::TestParamInfo<PairParam>& info) {
  return std::string(oracle::kind_name(info.param.a)) + "_" + oracle::kind_name(info.param.b) + "_" +
         (info.param.is_float ? "float" : "double");
}

std::vector<PairParam> all_pairs() {
  std::vector<PairParam> out;
  for (bool f : {false, true})
    for (std::size_t i = 0; i < std::size(scenes::kAllKinds); ++i)
      for (std::size_t j = i; j < std::size(scenes::kAllKinds); ++j) out.push_back({scenes::kAllKinds[i], scenes::kAllKinds[j], f});
  return out;
}

class RandomPairs : public testing::TestWithParam<PairParam> {
 protected:
  std::string seed_name(const char* test) const {
    const auto& p = GetParam();
    return std::string(test) + oracle::kind_name(p.a) + oracle::kind_name(p.b) + (p.is_float ? "f" : "d");
  }
};

template <class S>
void battery(const PairParam& p, const std::string& seed) {
  scenes::Rng rng(scenes::seed_of(seed));
  FailureLog log;
  int contact = 0, exact_checked = 0;
  for (int i = 0; i < kCasesPerPair; ++i) {
    const Case<S> c = scenes::random_case<S>(p.a, p.b, rng, i);
    const double tol = scenes::length_tolerance<S>(c.size);
    const DistanceResult<S> rd = distance(c.a, c.pose_a, c.b, c.pose_b);
    if (check_distance(c, rd, tol, log)) ++contact;
    if (oracle::distance(c.body_a, c.body_b)) ++exact_checked;
    const IntersectResult<S> ri = intersect(c.a, c.pose_a, c.b, c.pose_b);
    check_intersect(c, ri, rd, tol, log);
  }
  const double share = double(contact) / kCasesPerPair;
  EXPECT_GE(share, 0.3) << "too few cases in contact: the battery would not exercise intersecting answers";
  EXPECT_LE(share, 0.7) << "too few cases apart: the battery would not exercise separated answers";
  testing::Test::RecordProperty("contact_share", std::to_string(share));
  testing::Test::RecordProperty("cases_with_exact_oracle", exact_checked);
}

TEST_P(RandomPairs, DistanceMatchesOracleOrCertificatesAndIntersectAgrees) {
  const auto& p = GetParam();
  if (p.is_float)
    battery<float>(p, seed_name("battery"));
  else
    battery<double>(p, seed_name("battery"));
}

/// Swapping A and B: same distance and status, normal negated, witness points swapped (checked
/// where the closest points are unique: one shape is a point or a ball); the swapped answer is
/// certified like any other.
template <class S>
void symmetry(const PairParam& p, const std::string& seed) {
  scenes::Rng rng(scenes::seed_of(seed));
  FailureLog log;
  const bool unique_points = p.a == Kind::point || p.a == Kind::sphere || p.b == Kind::point || p.b == Kind::sphere;
  for (int i = 0; i < kSymmetryCasesPerPair; ++i) {
    const Case<S> c = scenes::random_case<S>(p.a, p.b, rng, i);
    Case<S> swapped = c;
    std::swap(swapped.a, swapped.b);
    std::swap(swapped.pose_a, swapped.pose_b);
    std::swap(swapped.body_a, swapped.body_b);
    std::swap(swapped.hull_a, swapped.hull_b);
    const double tol = scenes::length_tolerance<S>(c.size);
    const DistanceResult<S> r = distance(c.a, c.pose_a, c.b, c.pose_b);
    const DistanceResult<S> s = distance(swapped.a, swapped.pose_a, swapped.b, swapped.pose_b);
    check_distance(swapped, s, tol, log);
    auto details = [&](const std::string& what) {
      return c.describe() + "\n  a,b: " + result_text(r) + "\n  b,a: " + result_text(s) + "\n  " + what;
    };
    // Each answer is within tol of the truth, so they are within 2 tol of each other.
    if (std::abs(double(r.distance) - double(s.distance)) > 2 * tol) log.fail("swap: distance changed", details(""));
    const std::optional<double> exact = oracle::distance(c.body_a, c.body_b);
    const double ref = exact ? *exact : double(r.distance);
    if (ref > 2 * tol && r.status != s.status) log.fail("swap: status changed", details(""));
    if (r.status == Status::separated && s.status == Status::separated && r.distance > 2 * tol) {
      // Each normal is v/|v| for a point v of the configuration space obstacle K (of the cores)
      // with |v| ≤ d + tol, d the cores' distance = distance + radii. K lies in {x : n*·x ≥ d}, so
      // cos∠(v, n*) ≥ d/(d + tol): the angle is at most √(2 tol/d), plus tol/d of rounding.
      const double core = double(r.distance) + c.body_a.rounding() + c.body_b.rounding();
      const double angle = std::sqrt(2 * tol / core) + tol / core;
      if ((vd(r.normal) + vd(s.normal)).norm() > 2 * angle)
        log.fail("swap: normal not negated", details("|n_ab + n_ba| = " + scenes::num((vd(r.normal) + vd(s.normal)).norm()) +
                                                     ", allowed " + scenes::num(2 * angle)));
      // The closest point of a convex set to a ball's centre is unique, and a point y of the
      // set with |y − c| ≤ d + tol is within √((d + tol)² − d²) ≈ √(2 d tol) of it.
      const double point_tol = 2 * std::sqrt(2 * core * tol + tol * tol) + 2 * tol;
      if (unique_points && ((vd(r.point_a) - vd(s.point_b)).norm() > point_tol || (vd(r.point_b) - vd(s.point_a)).norm() > point_tol))
        log.fail("swap: witness points not swapped", details("allowed " + scenes::num(point_tol)));
    }
  }
}

TEST_P(RandomPairs, SwappingTheShapesNegatesTheNormalAndSwapsThePoints) {
  const auto& p = GetParam();
  if (p.is_float)
    symmetry<float>(p, seed_name("symmetry"));
  else
    symmetry<double>(p, seed_name("symmetry"));
}

/// Intersecting answers: point_a and point_b are documented as the closest points, which for
/// overlapping shapes means one common point of A and B. Checked on its own (the main battery only
/// asks for a common point between the witnesses) because the library currently fails it for
/// every shape grown by a radius (sphere, capsule, box ⊕ sphere): it returns the points of the
/// cores, e.g. the two centres of two overlapping spheres. Kept failing on purpose; see the
/// report in the commit message.
template <class S>
void coinciding_witnesses(const PairParam& p, const std::string& seed) {
  scenes::Rng rng(scenes::seed_of(seed));
  FailureLog log;
  for (int i = 0; i < kSymmetryCasesPerPair; ++i) {
    const Case<S> c = scenes::random_case<S>(p.a, p.b, rng, i);
    const double tol = scenes::length_tolerance<S>(c.size);
    const DistanceResult<S> r = distance(c.a, c.pose_a, c.b, c.pose_b);
    if (r.status != Status::intersecting) continue;
    const V pa = vd(r.point_a), pb = vd(r.point_b);
    const double worst = std::max({oracle::signed_distance(c.body_a, pa), oracle::signed_distance(c.body_b, pa),
                                   oracle::signed_distance(c.body_a, pb), oracle::signed_distance(c.body_b, pb)});
    if ((pa - pb).norm() > tol || worst > tol)
      log.fail("intersecting: witness points are not one common point of A and B",
               c.describe() + "\n  got: " + result_text(r) + "\n  |pa - pb| = " + scenes::num((pa - pb).norm()) +
                   ", largest signed distance of a witness to A or B " + scenes::num(worst));
  }
}

TEST_P(RandomPairs, IntersectingWitnessPointsAreOneCommonPoint) {
  const auto& p = GetParam();
  if (p.is_float)
    coinciding_witnesses<float>(p, seed_name("coincide"));
  else
    coinciding_witnesses<double>(p, seed_name("coincide"));
}

/// Translating the whole scene by a vector of length M changes no distance: the far answer is
/// certified at its own poses and equals the near answer, within the near tolerance plus the
/// rounding of coordinates of magnitude M.
template <class S>
void far_away(const PairParam& p, const std::string& seed) {
  scenes::Rng rng(scenes::seed_of(seed));
  FailureLog log;
  const std::vector<double> magnitudes = sizeof(S) == 4 ? std::vector<double>{1e2, 1e3} : std::vector<double>{1e3, 1e5};
  for (int i = 0; i < kFarCasesPerPair; ++i) {
    const Case<S> c = scenes::random_case<S>(p.a, p.b, rng, i);
    const double tol = scenes::length_tolerance<S>(c.size);
    const DistanceResult<S> near = distance(c.a, c.pose_a, c.b, c.pose_b);
    for (double m : magnitudes) {
      const V shift = m * rng.unit();
      Case<S> far = c;
      far.pose_a.position = scenes::to_s<S>(vd(c.pose_a.position) + shift);
      far.pose_b.position = scenes::to_s<S>(vd(c.pose_b.position) + shift);
      far.refresh();
      const double tol_far = tol + scenes::magnitude_tolerance<S>(m);
      const DistanceResult<S> r = distance(far.a, far.pose_a, far.b, far.pose_b);
      check_distance(far, r, tol_far, log);
      if (std::abs(double(r.distance) - double(near.distance)) > tol + tol_far)
        log.fail("far: distance changed by the translation",
                 c.describe() + "\n  shift " + scenes::vec<double>(shift) + "\n  near: " + result_text(near) +
                     "\n  far: " + result_text(r));
    }
  }
}

TEST_P(RandomPairs, TranslatingTheSceneFarAwayKeepsTheAnswer) {
  const auto& p = GetParam();
  if (p.is_float)
    far_away<float>(p, seed_name("far"));
  else
    far_away<double>(p, seed_name("far"));
}

/// GjkOptions::apart_beyond = X (drawn between 0 and 1.6 times the distance, so that about a
/// third of the cases lie within it): either the answer is the plain one bit for bit, or it is
/// `separated` with the true distance d* (the oracle's, else the plain certified answer) past X,
/// its distance d at most (d* − X)/8 above d*, never below it, |pB − pA| = d, and the shapes
/// apart along its normal by at least X + 7/8·(d − X) (the support values of the oracle's
/// bodies); all up to the length tolerance. Early stops must be common.
template <class S>
void apart_beyond(const PairParam& p, const std::string& seed) {
  scenes::Rng rng(scenes::seed_of(seed));
  FailureLog log;
  int early = 0, beyond_truth = 0;
  for (int i = 0; i < kSymmetryCasesPerPair; ++i) {
    const Case<S> c = scenes::random_case<S>(p.a, p.b, rng, i);
    const double tol = scenes::length_tolerance<S>(c.size);
    const DistanceResult<S> plain = distance(c.a, c.pose_a, c.b, c.pose_b);
    GjkOptions<S> opt;
    opt.apart_beyond = S(rng.uniform(0.0, 1.6) * double(plain.distance));
    const DistanceResult<S> r = distance(c.a, c.pose_a, c.b, c.pose_b, opt);
    const std::optional<double> exact = oracle::distance(c.body_a, c.body_b);
    const double truth = exact ? *exact : double(plain.distance);
    const double x = opt.apart_beyond, d = r.distance;
    if (truth > x + tol) ++beyond_truth;
    const bool same = r.status == plain.status && r.distance == plain.distance && r.point_a == plain.point_a &&
                      r.point_b == plain.point_b && r.normal == plain.normal && r.iterations == plain.iterations;
    if (same) continue;
    ++early;
    auto details = [&](const std::string& what) {
      return c.describe() + "\n  apart_beyond " + scenes::num(x) + "\n  got: " + result_text(r) + "\n  plain: " +
             result_text(plain) + "\n  " + oracle_text(exact) + "\n  " + what;
    };
    if (r.status != Status::separated) {
      log.fail("apart_beyond: an early answer is not separated", details(""));
      continue;
    }
    if (truth < x - tol) log.fail("apart_beyond: stopped early below the threshold", details(""));
    if (d < truth - tol) log.fail("apart_beyond: distance below the true distance", details(""));
    if (d - truth > (truth - x) / 8 + tol)
      log.fail("apart_beyond: distance more than an eighth of the excess above the truth", details(""));
    const V pa = vd(r.point_a), pb = vd(r.point_b), n = vd(r.normal);
    if (std::abs((pb - pa).norm() - d) > tol) log.fail("apart_beyond: |point_b - point_a| differs from the distance", details(""));
    const double separation = -oracle::support_value(c.body_b, -n) - oracle::support_value(c.body_a, n);
    if (separation < x + 0.875 * (d - x) - tol)
      log.fail("apart_beyond: the normal does not hold the shapes apart by the promised amount",
               details("separation along the normal " + scenes::num(separation)));
  }
  // Polytope pairs converge in a few exact steps, often before any early stop can help; the
  // round and curved pairs stop early in most cases past the threshold.
  EXPECT_GE(beyond_truth, kSymmetryCasesPerPair / 5) << "too few cases past the threshold";
  // (Two cylinders take Newton's method, detail/projection_distance.hpp, and a point or a ball
  // against one a closed form: not GJK.)
  const auto curved = [](Kind k) { return k == Kind::cylinder || k == Kind::cone; };
  const auto closed = [](Kind k) { return k == Kind::point || k == Kind::sphere; };
  if ((curved(p.a) || curved(p.b)) && !(curved(p.a) && curved(p.b) && p.a == p.b) && !closed(p.a) && !closed(p.b)) {
    EXPECT_GE(early, beyond_truth / 4) << "a curved pair stopped early too rarely for the test to mean anything";
  }
  testing::Test::RecordProperty("early_stops", early);
}

TEST_P(RandomPairs, ApartBeyondStopsEarlyWithinAnEighthOfTheExcess) {
  const auto& p = GetParam();
  if (p.is_float)
    apart_beyond<float>(p, seed_name("beyond"));
  else
    apart_beyond<double>(p, seed_name("beyond"));
}

INSTANTIATE_TEST_SUITE_P(AllShapePairs, RandomPairs, testing::ValuesIn(all_pairs()), pair_name);

// ---------------------------------------------------------------------------------------------
// Closed forms and named oracles, both precisions
// ---------------------------------------------------------------------------------------------

template <class S>
class GjkDistance : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(GjkDistance, Scalars);

/// Runs `cases` random cases of kinds (ka, kb) and compares the distance with `closed_form`.
template <class S, class F>
void against(Kind ka, Kind kb, const char* seed, F closed_form) {
  scenes::Rng rng(scenes::seed_of(std::string(seed) + scenes::scalar_name<S>()));
  FailureLog log;
  int contact = 0;
  for (int i = 0; i < kCasesPerPair; ++i) {
    const Case<S> c = scenes::random_case<S>(ka, kb, rng, i);
    const double tol = scenes::length_tolerance<S>(c.size);
    const DistanceResult<S> r = distance(c.a, c.pose_a, c.b, c.pose_b);
    const double expected = closed_form(c);
    if (expected == 0) ++contact;
    const bool ok = r.status == Status::intersecting ? expected <= tol
                                                     : r.status == Status::separated && std::abs(r.distance - expected) <= tol;
    if (!ok) log.fail("distance differs from the closed form", c.describe() + "\n  got: " + result_text(r) + "\n  expected " + scenes::num(expected));
  }
  EXPECT_GE(contact, 0.3 * kCasesPerPair);
  EXPECT_LE(contact, 0.7 * kCasesPerPair);
}

template <class S>
V center(const Pose<S>& p) {
  return vd(p.position);
}

TYPED_TEST(GjkDistance, SphereSphereEqualsCentreDistanceMinusRadii) {
  using S = TypeParam;
  against<S>(Kind::sphere, Kind::sphere, "sphere-sphere", [](const Case<S>& c) {
    return oracle::sphere_sphere(center(c.pose_a), std::get<Sphere<S>>(c.a.variant()).radius, center(c.pose_b),
                                 std::get<Sphere<S>>(c.b.variant()).radius);
  });
}

TYPED_TEST(GjkDistance, SphereBoxEqualsClampedCentreDistanceMinusRadius) {
  using S = TypeParam;
  against<S>(Kind::sphere, Kind::box, "sphere-box", [](const Case<S>& c) {
    return oracle::sphere_box(center(c.pose_a), std::get<Sphere<S>>(c.a.variant()).radius,
                              vd(std::get<Box<S>>(c.b.variant()).half_extents), oracle::rotation_of(c.pose_b), center(c.pose_b));
  });
}

TYPED_TEST(GjkDistance, CapsuleCapsuleEqualsSegmentDistanceMinusRadii) {
  using S = TypeParam;
  against<S>(Kind::capsule, Kind::capsule, "capsule-capsule", [](const Case<S>& c) {
    const auto& ca = std::get<Capsule<S>>(c.a.variant());
    const auto& cb = std::get<Capsule<S>>(c.b.variant());
    const auto end = [](const Pose<S>& p, double z) { return V(oracle::rotation_of(p) * V(0, 0, z) + vd(p.position)); };
    return oracle::capsule_capsule(end(c.pose_a, -ca.half_height), end(c.pose_a, ca.half_height), ca.radius,
                                   end(c.pose_b, -cb.half_height), end(c.pose_b, cb.half_height), cb.radius);
  });
}

TYPED_TEST(GjkDistance, BoxBoxEqualsFeatureEnumerationWith15AxisSat) {
  using S = TypeParam;
  against<S>(Kind::box, Kind::box, "box-box", [](const Case<S>& c) {
    return oracle::box_box(vd(std::get<Box<S>>(c.a.variant()).half_extents), oracle::rotation_of(c.pose_a), center(c.pose_a),
                           vd(std::get<Box<S>>(c.b.variant()).half_extents), oracle::rotation_of(c.pose_b), center(c.pose_b));
  });
}

TYPED_TEST(GjkDistance, HullHullEqualsFeatureEnumerationWithSat) {
  using S = TypeParam;
  against<S>(Kind::hull, Kind::hull, "hull-hull",
             [](const Case<S>& c) { return oracle::polytope_distance(c.body_a.core, c.body_b.core); });
}

// ---------------------------------------------------------------------------------------------
// Warm starts
// ---------------------------------------------------------------------------------------------

/// A slowly moving pair queried with a GjkCache gives the cold answer, in fewer iterations on
/// average. Each trajectory moves both shapes by 0.3% of a unit and turns them by 0.006 rad per
/// step; the cache belongs to the pair, in this order.
TYPED_TEST(GjkDistance, WarmStartGivesTheColdAnswerInFewerIterations) {
  using S = TypeParam;
  const std::pair<Kind, Kind> pairs[] = {{Kind::hull, Kind::hull},        {Kind::box, Kind::box},
                                         {Kind::box, Kind::cylinder},     {Kind::cone, Kind::cylinder},
                                         {Kind::capsule, Kind::hull},     {Kind::triangle, Kind::cone},
                                         {Kind::rounded_box, Kind::cone}, {Kind::segment, Kind::cylinder},
                                         {Kind::cylinder, Kind::cylinder}};
  for (const auto& [ka, kb] : pairs) {
    SCOPED_TRACE(std::string(oracle::kind_name(ka)) + " vs " + oracle::kind_name(kb));
    scenes::Rng rng(scenes::seed_of(std::string("warm") + oracle::kind_name(ka) + oracle::kind_name(kb) + scenes::scalar_name<S>()));
    FailureLog log;
    long cold_iterations = 0, warm_iterations = 0, queries = 0;
    for (int t = 0; t < 20; ++t) {
      Case<S> c = scenes::random_case<S>(ka, kb, rng, t);
      const V velocity_a = 0.003 * rng.unit(), velocity_b = 0.003 * rng.unit();
      const Eigen::Quaterniond turn_a(Eigen::AngleAxisd(0.006, rng.unit())), turn_b(Eigen::AngleAxisd(0.006, rng.unit()));
      GjkCache<S> cache;
      for (int step = 0; step < 100; ++step) {
        c.pose_a = scenes::make_pose<S>(vd(c.pose_a.position) + velocity_a, turn_a * c.pose_a.rotation.template cast<double>());
        c.pose_b = scenes::make_pose<S>(vd(c.pose_b.position) + velocity_b, turn_b * c.pose_b.rotation.template cast<double>());
        c.refresh();
        c.index = t * 1000 + step;
        const double tol = scenes::length_tolerance<S>(c.size);
        const DistanceResult<S> cold = distance(c.a, c.pose_a, c.b, c.pose_b);
        const GjkCache<S> before = cache;
        const DistanceResult<S> warm = distance(c.a, c.pose_a, c.b, c.pose_b, GjkOptions<S>{}, &cache);
        check_distance(c, warm, tol, log);
        if (std::abs(double(warm.distance) - double(cold.distance)) > 2 * tol ||
            (warm.status != cold.status && std::max(warm.distance, cold.distance) > 2 * tol))
          log.fail("warm answer differs from cold", c.describe() + "\n  cache before the call: " + cache_text(before) +
                                                        "\n  cold: " + result_text(cold) + "\n  warm: " + result_text(warm));
        cold_iterations += cold.iterations;
        warm_iterations += warm.iterations;
        ++queries;
      }
    }
    EXPECT_LT(warm_iterations, cold_iterations)
        << "mean iterations: cold " << double(cold_iterations) / queries << ", warm " << double(warm_iterations) / queries;
    testing::Test::RecordProperty(std::string("mean_iterations_cold_warm_") + oracle::kind_name(ka) + "_" + oracle::kind_name(kb),
                                  std::to_string(double(cold_iterations) / queries) + " " +
                                      std::to_string(double(warm_iterations) / queries));
  }
}

/// validate() accepts rotations whose norm is within Tolerances::unit_quaternion of 1; such a
/// pose must place the shape rigidly, as its normalised rotation does, so the distance is the
/// same within the length tolerance. (Using the raw quaternion's matrix scales the shape by up to
/// 1 + 2·unit_quaternion: 2e-6 of its size, far above the double tolerance.)
TYPED_TEST(GjkDistance, AcceptedNearUnitQuaternionsPlaceShapesRigidly) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("near unit ") + scenes::scalar_name<S>()));
  FailureLog log;
  const Kind kinds[] = {Kind::box, Kind::hull, Kind::cylinder, Kind::triangle};
  for (int i = 0; i < 2000; ++i) {
    const Case<S> c = scenes::random_case<S>(kinds[i % 4], kinds[(i / 4) % 4], rng, i);
    Case<S> stretched = c;
    const S factor = S(1) + S(0.5) * Tolerances<S>::unit_quaternion * S(i % 2 ? 1 : -1);
    stretched.pose_a.rotation.coeffs() *= factor;
    stretched.pose_b.rotation.coeffs() *= S(1) / factor;
    ASSERT_EQ(validate(stretched.pose_a), "");
    ASSERT_EQ(validate(stretched.pose_b), "");
    const double tol = scenes::length_tolerance<S>(c.size);
    const DistanceResult<S> r = distance(c.a, c.pose_a, c.b, c.pose_b);
    const DistanceResult<S> q = distance(stretched.a, stretched.pose_a, stretched.b, stretched.pose_b);
    if (std::abs(double(r.distance) - double(q.distance)) > 2 * tol)
      log.fail("a near-unit quaternion changed the distance", stretched.describe() + "\n  with normalised rotations: " +
                                                                  result_text(r) + "\n  as given: " + result_text(q));
  }
}

// ---------------------------------------------------------------------------------------------
// Exact contacts and invalid input
// ---------------------------------------------------------------------------------------------

/// Shapes that touch exactly (distance 0 in exact arithmetic) are reported in contact, with
/// coinciding witness points on both shapes.
TYPED_TEST(GjkDistance, ExactlyTouchingShapesAreInContact) {
  using S = TypeParam;
  const auto box = Shape<S>(Box<S>{Vec3<S>(1, 1, 1)});
  const auto ball = Shape<S>(Sphere<S>{S(0.5)});
  const auto point = Shape<S>(Point<S>{});
  const auto tri = Shape<S>(Triangle<S>{Vec3<S>(-1, -1, 0), Vec3<S>(1, -1, 0), Vec3<S>(0, 1, 0)});
  const auto seg = Shape<S>(Segment<S>{Vec3<S>(-1, 0, 0), Vec3<S>(1, 0, 0)});
  const Pose<S> id = Pose<S>::identity();
  auto at = [](double x, double y, double z) { return scenes::make_pose<S>(V(x, y, z), Eigen::Quaterniond::Identity()); };
  struct Touch {
    const char* what;
    Shape<S> a;
    Pose<S> pa;
    Shape<S> b;
    Pose<S> pb;
  };
  const Touch cases[] = {
      {"box face on box face", box, id, box, at(2, 0.5, 0.25)},
      {"box edge on box edge", box, id, box, at(2, 2, 0)},
      {"box corner on box corner", box, id, box, at(2, 2, 2)},
      {"ball on box face", box, id, ball, at(0, 1.5, 0)},
      {"point on box face", box, id, point, at(0.25, 0.5, 1)},
      {"point at the same place", point, at(1, 2, 3), point, at(1, 2, 3)},
      {"concentric balls", ball, at(1, 1, 1), ball, at(1, 1, 1)},
      {"point inside triangle", tri, id, point, at(0, 0, 0)},
      {"crossing segments", seg, id, seg, scenes::make_pose<S>(V::Zero(), Eigen::Quaterniond(Eigen::AngleAxisd(M_PI / 2, V::UnitZ())))},
      {"segment through triangle", tri, id, seg, scenes::make_pose<S>(V::Zero(), Eigen::Quaterniond(Eigen::AngleAxisd(M_PI / 2, V::UnitY())))},
  };
  for (const Touch& t : cases) {
    SCOPED_TRACE(t.what);
    const DistanceResult<S> r = distance(t.a, t.pa, t.b, t.pb);
    const double tol = scenes::length_tolerance<S>(4);
    EXPECT_TRUE(r.status == Status::intersecting || (r.status == Status::separated && r.distance <= tol))
        << result_text(r);
    const Body A = oracle::make_body(t.a, t.pa), B = oracle::make_body(t.b, t.pb);
    EXPECT_LE(oracle::signed_distance(A, vd(r.point_a)), tol) << result_text(r);
    EXPECT_LE(oracle::signed_distance(B, vd(r.point_b)), tol) << result_text(r);
    EXPECT_LE(oracle::common_point_excess(A, B, vd(r.point_a), vd(r.point_b)), tol) << result_text(r);
    const IntersectResult<S> ri = intersect(t.a, t.pa, t.b, t.pb);
    EXPECT_EQ(ri.status, Status::intersecting) << t.what;
  }
}

/// True when distance() and intersect() answer invalid_input with an error that starts with
/// the field's name ("a.radius", "pose_b.position.1"), for the bad input as A and as B; prints
/// every discrepancy to stderr.
template <class S>
bool invalid_input_is_named(const Shape<S>& shape, const Pose<S>& pose, const Shape<S>& good, const std::string& field,
                            bool pose_is_bad) {
  const Pose<S> id = Pose<S>::identity();
  const std::string as_a = (pose_is_bad ? "pose_a." : "a.") + field;
  const std::string as_b = (pose_is_bad ? "pose_b." : "b.") + field;
  bool ok = true;
  auto expect = [&](const char* query, Status status, const std::string& error, const std::string& prefix) {
    if (status != Status::invalid_input || error.rfind(prefix, 0) != 0) {
      std::fprintf(stderr, "%s: status %s, error \"%s\"; expected invalid_input and an error starting with \"%s\"\n", query,
                   std::string(to_string(status)).c_str(), error.c_str(), prefix.c_str());
      ok = false;
    }
  };
  const DistanceResult<S> ra = distance(shape, pose, good, id);
  expect("distance(bad, good)", ra.status, ra.error, as_a);
  const DistanceResult<S> rb = distance(good, id, shape, pose);
  expect("distance(good, bad)", rb.status, rb.error, as_b);
  const IntersectResult<S> ia = intersect(shape, pose, good, id);
  expect("intersect(bad, good)", ia.status, ia.error, as_a);
  const IntersectResult<S> ib = intersect(good, id, shape, pose);
  expect("intersect(good, bad)", ib.status, ib.error, as_b);
  return ok;
}

/// Malformed shapes and poses answer invalid_input naming the field, from both queries and for
/// either shape, and never a distance.
TYPED_TEST(GjkDistance, InvalidInputNamesTheField) {
  using S = TypeParam;
  const S nan = std::numeric_limits<S>::quiet_NaN();
  const Shape<S> good = Box<S>{Vec3<S>(1, 1, 1)};
  const Pose<S> id = Pose<S>::identity();
  Pose<S> nan_position = id;
  nan_position.position.y() = nan;
  Pose<S> long_quaternion = id;
  long_quaternion.rotation = Quat<S>(S(1.1), 0, 0, 0);
  Pose<S> nan_quaternion = id;
  nan_quaternion.rotation = Quat<S>(nan, 0, 0, 0);
  struct Bad {
    Shape<S> shape;
    Pose<S> pose;
    std::string field;  // the error, after "a." or "pose_a."
    bool pose_is_bad;
  };
  const Bad bad[] = {
      {Sphere<S>{S(-1)}, id, "radius", false},
      {Capsule<S>{S(-0.5), S(1)}, id, "radius", false},
      {Cylinder<S>{S(1), S(-1)}, id, "half_height", false},
      {Box<S>{Vec3<S>(1, -1, 1)}, id, "half_extents.1", false},
      {Segment<S>{Vec3<S>(nan, 0, 0), Vec3<S>(1, 0, 0)}, id, "a.0", false},
      {Hull<S>{}, id, "points", false},
      {MinkowskiShape<S>{std::make_shared<const Shape<S>>(good), std::make_shared<const Shape<S>>(Sphere<S>{S(-2)})}, id,
       "b.radius", false},
      {good, nan_position, "position.1", true},
      {good, long_quaternion, "rotation", true},
      {good, nan_quaternion, "rotation.0", true},
  };
  std::vector<Bad> all(std::begin(bad), std::end(bad));
  // A NaN in each coordinate in turn (a check that looks at only some of them lets NaN through).
  for (int i = 0; i < 3; ++i) {
    Pose<S> p = id;
    p.position[i] = nan;
    all.push_back({good, p, "position." + std::to_string(i), true});
    Vec3<S> h(1, 1, 1);
    h[i] = nan;
    all.push_back({Box<S>{h}, id, "half_extents." + std::to_string(i), false});
    Vec3<S> e(0, 0, 0);
    e[i] = nan;
    all.push_back({Triangle<S>{Vec3<S>(1, 0, 0), Vec3<S>(0, 1, 0), e}, id, "c." + std::to_string(i), false});
  }
  for (const Bad& b : all) {
    const std::string what = scenes::describe(b.shape) + " at " + scenes::describe(b.pose);
    // Each input is queried in a child process: a malformed input that slips past validation
    // can crash GJK (a NaN coordinate has overflowed the simplex tables), and one crash must
    // not take the rest of the binary down. The child prints what is wrong and exits 1.
    EXPECT_EXIT(std::exit(invalid_input_is_named<S>(b.shape, b.pose, good, b.field, b.pose_is_bad) ? 0 : 1),
                testing::ExitedWithCode(0), "")
        << what;
  }
}

}  // namespace
