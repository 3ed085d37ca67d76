// Brent's root finder (src/detail/brent.hpp) on functions whose roots are known independently:
// a line, cos x − x (the Dottie number, 0.739085133215160641655312...), random cubics
// (r − x)(x² + c) with one real root r, a triple root (r − x)³, and a step (discontinuous at r).
// Every answer is checked against the true root: the final bracket holds it (f > 0 at `positive`,
// f ≤ 0 at `negative`, so `positive` is on the safe side), it is as narrow as asked unless the
// evaluation cap or an exact zero ended the search, f is never evaluated outside the initial
// bracket, the evaluation count reported is the number of calls, the cap is respected, and smooth
// simple roots converge in far fewer evaluations than bisection would need.
#include "detail/brent.hpp"

#include "scenes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

namespace {

using impact::detail::brent_root;
using impact::detail::BrentResult;
using scenes::Rng;

/// Runs brent_root on f over [lo, hi] and checks what holds for any f with the one sign change
/// at `root` (f > 0 before it, f ≤ 0 from it on): returns the result for further checks.
template <class S>
BrentResult<S> solve_and_check(const std::function<S(S)>& f, S root, S lo, S hi, S xtol, int cap,
                               const std::string& what) {
  int calls = 0;
  bool outside = false;
  auto counted = [&](S x) {
    ++calls;
    outside = outside || x < lo || x > hi;
    return f(x);
  };
  const S f_lo = f(lo), f_hi = f(hi);
  EXPECT_GT(f_lo, S(0)) << what;
  EXPECT_LE(f_hi, S(0)) << what;
  const BrentResult<S> r = brent_root<S>(counted, lo, f_lo, hi, f_hi, xtol, cap);
  EXPECT_FALSE(outside) << what << ": evaluated outside [lo, hi]";
  EXPECT_EQ(r.evaluations, calls) << what;
  EXPECT_LE(r.evaluations, cap) << what;
  // The answer is on the positive side, with the value f has there; the other end is not.
  EXPECT_GT(f(r.positive), S(0)) << what;
  EXPECT_EQ(r.f_positive, f(r.positive)) << what;
  EXPECT_LE(f(r.negative), S(0)) << what;
  // The true root lies in the final bracket.
  const S a = std::min(r.positive, r.negative), b = std::max(r.positive, r.negative);
  EXPECT_LE(a, root) << what;
  EXPECT_GE(b, root) << what;
  // Narrow enough, unless the cap or an exact zero stopped it (Brent's stopping rule:
  // |c − b| / 2 ≤ 2ε|b| + xtol / 2).
  if (r.evaluations < cap && f(r.negative) != S(0)) {
    const S eps = std::numeric_limits<S>::epsilon();
    EXPECT_LE(b - a, xtol + S(4) * eps * std::max(std::abs(a), std::abs(b)) * S(1.0001)) << what;
  }
  return r;
}

template <class S>
class Brent : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(Brent, Scalars);

template <class S>
S small_tolerance() {
  return sizeof(S) == 4 ? S(1e-6) : S(1e-13);
}

TYPED_TEST(Brent, LineIsSolvedAtOnce) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("brent line ") + scenes::scalar_name<S>()));
  for (int c = 0; c < 200; ++c) {
    const S root = S(rng.uniform(0.01, 0.99)), slope = S(rng.uniform(0.1, 10));
    const auto f = [=](S x) { return slope * (root - x); };
    const auto r = solve_and_check<S>(f, root, S(0), S(1), small_tolerance<S>(), 100, "line " + std::to_string(c));
    // The secant through the ends is the line itself: a couple of evaluations, then the
    // tolerance step that closes the bracket.
    EXPECT_LE(r.evaluations, 4) << c;
  }
}

TYPED_TEST(Brent, CosMinusXConvergesToTheDottieNumber) {
  using S = TypeParam;
  const long double dottie = 0.739085133215160641655312087673873404L;
  const auto f = [](S x) { return std::cos(x) - x; };
  const auto r = solve_and_check<S>(f, S(dottie), S(0), S(1), small_tolerance<S>(), 100, "cos x − x");
  // The answer: `positive`, or `negative` when an evaluation landed exactly on the root (the
  // search then stops with the bracket as it was: in float it does here, at 0.739085138).
  const S answer = f(r.negative) == S(0) ? r.negative : r.positive;
  EXPECT_NEAR(double(answer), double(dottie), 2 * double(small_tolerance<S>()));
  // Bisection would need log2(1 / xtol) ≈ 20 (float) or 43 (double) evaluations.
  EXPECT_LE(r.evaluations, sizeof(S) == 4 ? 8 : 10);
}

TYPED_TEST(Brent, RandomCubicsWithOneRealRoot) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("brent cubic ") + scenes::scalar_name<S>()));
  int most = 0;
  for (int c = 0; c < 2000; ++c) {
    // f(x) = (r − x)(x² + q), q > 0: one real root r; bracket [lo, hi] around it.
    const double root = rng.uniform(-2, 2), q = rng.uniform(0.05, 3);
    const S lo = S(root - rng.uniform(0.01, 3)), hi = S(root + rng.uniform(0.01, 3));
    const S rs = S(root), qs = S(q);
    const auto f = [=](S x) { return (rs - x) * (x * x + qs); };
    if (!(f(lo) > S(0)) || !(f(hi) <= S(0))) continue;  // rounding of the cast root at an end
    const S xtol = S(std::pow(10.0, rng.uniform(sizeof(S) == 4 ? -6 : -13, -3)));
    const auto r = solve_and_check<S>(f, rs, lo, hi, xtol, 100, "cubic " + std::to_string(c));
    most = std::max(most, r.evaluations);
  }
  // Superlinear convergence on a simple root: well under bisection's ~log2(6 / 1e-13) ≈ 46.
  EXPECT_LE(most, sizeof(S) == 4 ? 16 : 20);
}

TYPED_TEST(Brent, TripleRootStillBracketed) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("brent triple ") + scenes::scalar_name<S>()));
  for (int c = 0; c < 500; ++c) {
    const S root = S(rng.uniform(0.1, 0.9));
    const auto f = [=](S x) { return (root - x) * (root - x) * (root - x); };
    const S xtol = sizeof(S) == 4 ? S(1e-5) : S(1e-9);
    // f is flat around the root: the bracket is what must stay right, whatever the count.
    const auto r = solve_and_check<S>(f, root, S(0), S(1), xtol, 200, "triple " + std::to_string(c));
    EXPECT_LT(r.evaluations, 200) << c;
  }
}

TYPED_TEST(Brent, StepFunctionNarrowsAtBisectionPace) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("brent step ") + scenes::scalar_name<S>()));
  for (int c = 0; c < 1000; ++c) {
    const S root = S(rng.uniform(0.001, 0.999));
    const S up = S(rng.uniform(0.1, 10)), down = S(rng.uniform(0.1, 10));
    const auto f = [=](S x) { return x < root ? up : -down; };
    const S xtol = sizeof(S) == 4 ? S(1e-5) : S(1e-10);
    const auto r = solve_and_check<S>(f, root, S(0), S(1), xtol, 500, "step " + std::to_string(c));
    // Brent's safeguard halves the bracket at least every second step: about 2·log2(1 / xtol).
    const int bisections = int(std::ceil(std::log2(1.0 / double(xtol))));
    EXPECT_LE(r.evaluations, 2 * bisections + 4) << c;
  }
}

TYPED_TEST(Brent, EvaluationCapStopsWithAValidBracket) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("brent cap ") + scenes::scalar_name<S>()));
  for (int c = 0; c < 500; ++c) {
    const S root = S(rng.uniform(0.05, 0.95));
    const auto f = [=](S x) { return (root - x) * (root - x) * (root - x); };
    const int cap = 1 + c % 6;
    const auto r = solve_and_check<S>(f, root, S(0), S(1), S(0), cap, "cap " + std::to_string(c));
    // xtol = 0 and a flat root: only the cap can end it (or an exact zero of the cube).
    if (f(r.negative) != S(0)) {
      EXPECT_EQ(r.evaluations, cap) << c;
    }
  }
}

}  // namespace
