// impact — detail/brent.hpp: Brent's root finder (bisection, secant and inverse quadratic
// interpolation with Brent's safeguards; R. P. Brent, "Algorithms for Minimization without
// Derivatives", 1973, ch. 4), on a bracket [lo, hi] with f(lo) > 0 ≥ f(hi).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact::detail {

template <class S>
struct BrentResult {
  S positive;     ///< End of the final bracket where f > 0: the answer on the safe side of the root.
  S f_positive;   ///< f there.
  S negative;     ///< The other end (f ≤ 0).
  int evaluations = 0;
};

/// Narrows [lo, hi] (f(lo) = f_lo > 0 ≥ f(hi) = f_hi) until the bracket is at most `xtol` wide,
/// an evaluation lands on zero, or `max_evaluations` calls of f are spent. Never evaluates
/// outside the bracket.
template <class S, class F>
BrentResult<S> brent_root(F&& f, S lo, S f_lo, S hi, S f_hi, S xtol, int max_evaluations) {
  constexpr S eps = std::numeric_limits<S>::epsilon();
  // b: the best estimate; a: the previous one; c: b's bracket partner (f(b), f(c) of opposite sign).
  S a = lo, fa = f_lo, b = hi, fb = f_hi, c = a, fc = fa;
  S step = b - a, prev_step = step;
  int evals = 0;
  for (;;) {
    if ((fb > S(0)) == (fc > S(0))) {
      c = a;
      fc = fa;
      step = prev_step = b - a;
    }
    if (std::abs(fc) < std::abs(fb)) {  // b is the end with the smaller |f|
      a = b;
      b = c;
      c = a;
      fa = fb;
      fb = fc;
      fc = fa;
    }
    const S tol = S(2) * eps * std::abs(b) + S(0.5) * xtol;
    const S half = S(0.5) * (c - b);
    if (std::abs(half) <= tol || fb == S(0) || evals >= max_evaluations) break;
    if (std::abs(prev_step) >= tol && std::abs(fa) > std::abs(fb)) {
      // Interpolate: the secant through a and b, or the inverse quadratic through a, b, c.
      S p, q;
      const S s = fb / fa;
      if (a == c) {
        p = S(2) * half * s;
        q = S(1) - s;
      } else {
        const S qa = fa / fc, r = fb / fc;
        p = s * (S(2) * half * qa * (qa - r) - (b - a) * (r - S(1)));
        q = (qa - S(1)) * (r - S(1)) * (s - S(1));
      }
      if (p > S(0)) q = -q;
      else p = -p;
      // Accept the interpolation only if it falls well inside the bracket and shrinks faster
      // than the step before last; otherwise bisect.
      if (S(2) * p < std::min(S(3) * half * q - std::abs(tol * q), std::abs(prev_step * q))) {
        prev_step = step;
        step = p / q;
      } else {
        step = half;
        prev_step = step;
      }
    } else {
      step = half;
      prev_step = step;
    }
    a = b;
    fa = fb;
    b += std::abs(step) > tol ? step : (half > S(0) ? tol : -tol);
    fb = f(b);
    ++evals;
  }
  BrentResult<S> r;
  r.evaluations = evals;
  if (fb > S(0)) {
    r.positive = b;
    r.f_positive = fb;
    r.negative = c;
  } else {
    r.positive = c;
    r.f_positive = fc;
    r.negative = b;
  }
  return r;
}

}  // namespace impact::detail
