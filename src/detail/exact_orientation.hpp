#pragma once
// impact — detail/exact_orientation.hpp: exact signs of the two determinants the ray–triangle test
// decides on, for the rare cases where floating-point rounding cannot:
//   edge_side(o, p, q, d) = sign det[p − o, q − o, d]   (which side of the edge p q a ray passes)
//   orientation(o, a, b, c) = sign det[a − o, b − o, c − o] (which side of a plane a point is on)
//
// Method: each determinant is multilinear, so it is a sum of products x·y·z of the input
// coordinates (the differences expand: det[p − o, q − o, d] = det[p, q, d] − det[o, q, d] −
// det[p, o, d]). Each product of three doubles is split exactly into four doubles (two
// error-free products, Dekker 1971), and the terms are summed exactly into a
// nonoverlapping expansion (Priest 1991; Shewchuk 1997, "Grow-Expansion" with zero elimination),
// whose sign is the sign of its largest component. Our own code after those papers.
//
// Range: the points are scaled together, and d alone, by powers of two so their largest
// coordinate is about 1 (exact; the signs do not change). In double every product of three scaled
// coordinates is then exact as long as each non-zero coordinate is at least 2^-300 of the largest
// (a·b·c is then a multiple of 2^-1056, above the smallest subnormal 2^-1074). Past that range (a
// fuzz input: a triangle corner at y = 2.2e-308 beside another 1.8e8 away, where double's
// rounding errors underflowed and a ray 4 units below the triangle was found inside it) the
// same sums run in long double, whose exponent range (x87: to 2^-16445) holds any product of
// three doubles and its rounding errors; there the answer is exact for any finite input.
//
// Cost: 72 (edge_side) or 96 (orientation) exact products and an expansion of at most that many
// components: microseconds. Callers reach it only when a fast evaluation's error bound cannot
// decide the sign (docs/mesh.md, "Rays").
#include <impact/math.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <type_traits>

namespace impact::detail {

/// A sum of F (double or long double) kept exactly: nonoverlapping components in increasing
/// magnitude.
template <class F, int N>
class ExactSum {
 public:
  /// Adds a·b·c exactly (no product or rounding error below F's smallest subnormal: the caller's
  /// range).
  void add_product(F a, F b, F c) {
    F p, pe, q, qe, r, re;
    two_product(a, b, p, pe);
    two_product(p, c, q, qe);
    two_product(pe, c, r, re);
    add(re), add(r), add(qe), add(q);
  }
  /// a·b = p + e exactly: std::fma where the target has the instruction; elsewhere (the default
  /// x86-64-v2 build) Dekker's product over Veltkamp's split into 26-bit halves, since std::fma
  /// there is a software routine (perf: `fma@plt` a third of the exact path's time on camera
  /// rays grazing a level's floor). That branch has no fused multiply-add to contract into, and
  /// every partial product of the halves is exact; the scaled inputs (about 1) are far from
  /// overflow.
  /// Long double always takes Dekker's product (x87 has no fused multiply-add).
  static void two_product(F a, F b, F& p, F& e) {
    p = a * b;
#if defined(__FMA__)
    if constexpr (std::is_same_v<F, double>) {
      e = std::fma(a, b, -p);
      return;
    }
#endif
    // Veltkamp's split constant 2^⌈digits/2⌉ + 1 (2^27 + 1 for double, 2^32 + 1 for x87).
    constexpr F split = F(std::uint64_t(1) << ((std::numeric_limits<F>::digits + 1) / 2)) + F(1);
    const F ca = split * a, ah = ca - (ca - a), al = a - ah;
    const F cb = split * b, bh = cb - (cb - b), bl = b - bh;
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  }
  /// Adds x exactly (Knuth's two-sum through the expansion, zero components dropped).
  void add(F x) {
    if (x == F(0)) return;
    int m = 0;
    F q = x;
    for (int i = 0; i < n_; ++i) {
      const F s = q + e_[i];
      const F bv = s - q;
      const F err = (q - (s - bv)) + (e_[i] - bv);
      q = s;
      if (err != F(0)) e_[m++] = err;
    }
    if (q != F(0)) e_[m++] = q;
    n_ = m;
    if (n_ > limit_) {
      compress();
      limit_ = std::max(kCompressAbove, 2 * n_);  // a value that needs many components: not every add
    }
  }
  /// −1, 0 or +1.
  int sign() const { return n_ == 0 ? 0 : (e_[n_ - 1] > F(0) ? 1 : -1); }

 private:
  /// Past this many components the expansion is compressed, so that adding a term stays cheap:
  /// sums with heavy cancellation (a fuzz input's planes, terms of 1e24 summing to 1e-300) grew to
  /// a hundred components and made each add linear in them, the whole sum quadratic.
  static constexpr int kCompressAbove = 12;

  /// Shewchuk's Compress (1997, section 2.8): the same value in as few nonoverlapping components as
  /// two passes of Fast-Two-Sum find, still in increasing magnitude, the largest one carrying the
  /// sum's sign.
  void compress() {
    F g[N + 1];
    int bottom = n_ - 1;
    F big = e_[n_ - 1];
    for (int i = n_ - 2; i >= 0; --i) {  // top down: |big| ≥ |e_[i]|
      const F sum = big + e_[i];
      const F small = e_[i] - (sum - big);
      big = sum;
      if (small != F(0)) {
        g[bottom--] = big;
        big = small;
      }
    }
    g[bottom] = big;
    int top = 0;
    for (int i = bottom + 1; i < n_; ++i) {  // bottom up: |g[i]| ≥ |big|
      const F sum = g[i] + big;
      const F small = big - (sum - g[i]);
      big = sum;
      if (small != F(0)) e_[top++] = small;
    }
    e_[top++] = big;
    n_ = top;
  }

  F e_[N + 1] = {};
  int n_ = 0;
  int limit_ = kCompressAbove;
};

/// Calls f(±s·x_i, y_j, z_k) for the six terms of s·det[x, y, z] (rows): the one place that
/// spells out the determinant's expansion, for the exact sums and plane_side_at's filter.
template <class F, class Term>
inline void for_each_det3_term(F s, const Vec3<F>& x, const Vec3<F>& y, const Vec3<F>& z, Term&& f) {
  f(s * x[0], y[1], z[2]);
  f(-s * x[0], y[2], z[1]);
  f(s * x[1], y[2], z[0]);
  f(-s * x[1], y[0], z[2]);
  f(s * x[2], y[0], z[1]);
  f(-s * x[2], y[1], z[0]);
}

/// Adds s·det[x, y, z] (rows) to the sum: six exact products.
template <class F, int N>
inline void add_det3(ExactSum<F, N>& sum, F s, const Vec3<F>& x, const Vec3<F>& y, const Vec3<F>& z) {
  for_each_det3_term(s, x, y, z, [&](F a, F b, F c) { sum.add_product(a, b, c); });
}

/// v scaled by s (a power of two), in F: exact.
template <class F>
inline Vec3<F> scaled(const Vec3<double>& v, double s) {
  return v.template cast<F>() * F(s);
}

/// The scale that brings a group of points to about 1, and whether their coordinates' dynamic
/// range keeps double's exact products from underflowing.
struct UnitScale {
  double scale = 1.0;  ///< 2^-e with e the exponent of the largest |coordinate| (1 when all are zero).
  bool narrow = true;  ///< Every non-zero coordinate is at least 2^-300 of the largest.
};

inline UnitScale unit_scale(std::initializer_list<const Vec3<double>*> pts) {
  double hi = 0.0, lo = std::numeric_limits<double>::infinity();
  for (const Vec3<double>* p : pts) {
    for (int i = 0; i < 3; ++i) {
      const double a = std::abs((*p)[i]);
      hi = std::max(hi, a);
      if (a > 0.0) lo = std::min(lo, a);
    }
  }
  if (!(hi > 0.0) || !std::isfinite(hi)) return {};
  int e = 0;
  (void)std::frexp(hi, &e);
  // Points all below 2^-1000 (2^-e would overflow past 2^1023): scaled by 2^1000 only, and never
  // narrow (their products underflow in double).
  if (e < -1000) return {std::ldexp(1.0, 1000), false};
  return {std::ldexp(1.0, -e), lo >= std::ldexp(hi, -300)};
}

/// Whether long double can hold every product of three doubles and its rounding errors (x87's
/// 15-bit exponent; IEEE quad's too). Where it cannot (long double = double), the wide inputs
/// fall back on the scaled double sums and their documented range.
inline constexpr bool kWideExact = std::numeric_limits<long double>::min_exponent < -4000;

/// Sign of det[p − o, q − o, d] in F, the points scaled by sp and d by sd (in F: exact).
template <class F>
int edge_side_in(const Vec3<double>& o, const Vec3<double>& p, const Vec3<double>& q, const Vec3<double>& d, double sp, double sd) {
  const Vec3<F> O = scaled<F>(o, sp), P = scaled<F>(p, sp), Q = scaled<F>(q, sp), D = scaled<F>(d, sd);
  ExactSum<F, 72> sum;
  add_det3(sum, F(1), P, Q, D);
  add_det3(sum, F(-1), O, Q, D);
  add_det3(sum, F(-1), P, O, D);
  return sum.sign();
}

/// Sign of det[a − o, b − o, c − o] in F, the points scaled by s.
template <class F>
int orientation_in(const Vec3<double>& o, const Vec3<double>& a, const Vec3<double>& b, const Vec3<double>& c, double s) {
  const Vec3<F> O = scaled<F>(o, s), A = scaled<F>(a, s), B = scaled<F>(b, s), C = scaled<F>(c, s);
  ExactSum<F, 96> sum;
  add_det3(sum, F(1), A, B, C);
  add_det3(sum, F(-1), O, B, C);
  add_det3(sum, F(-1), A, O, C);
  add_det3(sum, F(-1), A, B, O);
  return sum.sign();
}

/// Sign of det[p − o, q − o, d], exactly.
inline int edge_side(const Vec3<double>& o, const Vec3<double>& p, const Vec3<double>& q, const Vec3<double>& d) {
  const UnitScale sp = unit_scale({&o, &p, &q}), sd = unit_scale({&d});
  if ((sp.narrow && sd.narrow) || !kWideExact) return edge_side_in<double>(o, p, q, d, sp.scale, sd.scale);
  return edge_side_in<long double>(o, p, q, d, sp.scale, sd.scale);
}

/// Sign of det[a − o, b − o, c − o], exactly.
inline int orientation(const Vec3<double>& o, const Vec3<double>& a, const Vec3<double>& b, const Vec3<double>& c) {
  const UnitScale s = unit_scale({&o, &a, &b, &c});
  if (s.narrow || !kWideExact) return orientation_in<double>(o, a, b, c, s.scale);
  return orientation_in<long double>(o, a, b, c, s.scale);
}

/// Adds s·t·det[x, y, z] (rows) to the sum: six exact products of four factors (t·x split
/// first, exactly, then each half times y and z).
template <class F, int N>
inline void add_det3_times(ExactSum<F, N>& sum, F s, F t, const Vec3<F>& x, const Vec3<F>& y, const Vec3<F>& z) {
  for_each_det3_term(s, x, y, z, [&](F a, F b, F c) {
    F p, pe;
    ExactSum<F, N>::two_product(t, a, p, pe);
    sum.add_product(p, b, c);
    sum.add_product(pe, b, c);
  });
}

/// Sign of det[b − a, c − a, (o + t·d) − a], exactly (o + t·d not rounded): which side of the
/// plane through a, b, c the ray o + t·d is at t. Expanded by multilinearity:
/// det[b, c, o] − det[b, c, a] − det[b, a, o] − det[a, c, o] + t·(det[b, c, d] − det[b, a, d] −
/// det[a, c, d]). In long double (where kWideExact) every product of four doubles is exact, so no
/// scaling is needed; elsewhere in double, exact while no product underflows or overflows.
/// Cost: 240 components, tens of microseconds: for the rare triangles whose crossing's λ the
/// fast formulas cannot give (ray_triangle_exact).
inline int plane_side_at(const Vec3<double>& o, const Vec3<double>& d, double t, const Vec3<double>& a,
                         const Vec3<double>& b, const Vec3<double>& c) {
  using F = std::conditional_t<kWideExact, long double, double>;
  const Vec3<F> O = o.template cast<F>(), D = d.template cast<F>(), A = a.template cast<F>(), B = b.template cast<F>(),
                C = c.template cast<F>();
  if constexpr (kWideExact) {
    // A filter first: the same 42 products summed plainly in long double, with the sum of their
    // magnitudes. Each product of three or four doubles is within 3ε of its value (no underflow
    // or overflow in long double's range), and the sum adds at most 42ε of the magnitudes, so a
    // sum beyond 64ε·Σ|term| has the exact sum's sign. A bisection's steps far from the crossing
    // (all but the last few) stop here, in linear time; the expansion below is quadratic.
    F sum = 0, mag = 0;
    auto det = [&](F s, F f, const Vec3<F>& x, const Vec3<F>& y, const Vec3<F>& z) {
      for_each_det3_term(s, x, y, z, [&](F a, F b, F c) {
        const F v = f * (a * b * c);
        sum += v;
        mag += std::abs(v);
      });
    };
    det(F(1), F(1), B, C, O);
    det(F(-1), F(1), B, C, A);
    det(F(-1), F(1), B, A, O);
    det(F(-1), F(1), A, C, O);
    det(F(1), F(t), B, C, D);
    det(F(-1), F(t), B, A, D);
    det(F(-1), F(t), A, C, D);
    if (std::abs(sum) > F(64) * std::numeric_limits<F>::epsilon() * mag) return sum > F(0) ? 1 : -1;
  }
  ExactSum<F, 240> sum;
  add_det3(sum, F(1), B, C, O);
  add_det3(sum, F(-1), B, C, A);
  add_det3(sum, F(-1), B, A, O);
  add_det3(sum, F(-1), A, C, O);
  add_det3_times(sum, F(1), F(t), B, C, D);
  add_det3_times(sum, F(-1), F(t), B, A, D);
  add_det3_times(sum, F(-1), F(t), A, C, D);
  return sum.sign();
}

}  // namespace impact::detail
