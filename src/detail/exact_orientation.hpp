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
// coordinate is about 1 (exact; the signs do not change). The result is then exact unless a
// product of three scaled coordinates falls below 2^-1022 and its rounding error underflows,
// i.e. when some non-zero coordinate is below about 2^-340 of the largest one, far outside
// Tolerances::max_magnitude / the smallest length a query resolves.
//
// Cost: 72 (edge_side) or 96 (orientation) exact products and an expansion of at most that many
// components: microseconds. Callers reach it only when a fast evaluation's error bound cannot
// decide the sign (docs/mesh.md, "Rays").
#include <impact/math.hpp>

#include <algorithm>
#include <cmath>

namespace impact::detail {

/// A sum of doubles kept exactly: nonoverlapping components in increasing magnitude.
template <int N>
class ExactSum {
 public:
  /// Adds a·b·c exactly.
  void add_product(double a, double b, double c) {
    double p, pe, q, qe, r, re;
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
  static void two_product(double a, double b, double& p, double& e) {
    p = a * b;
#if defined(__FMA__)
    e = std::fma(a, b, -p);
#else
    constexpr double split = 134217729.0;  // 2^27 + 1
    const double ca = split * a, ah = ca - (ca - a), al = a - ah;
    const double cb = split * b, bh = cb - (cb - b), bl = b - bh;
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
#endif
  }
  /// Adds x exactly (Knuth's two-sum through the expansion, zero components dropped).
  void add(double x) {
    if (x == 0.0) return;
    int m = 0;
    double q = x;
    for (int i = 0; i < n_; ++i) {
      const double s = q + e_[i];
      const double bv = s - q;
      const double err = (q - (s - bv)) + (e_[i] - bv);
      q = s;
      if (err != 0.0) e_[m++] = err;
    }
    if (q != 0.0) e_[m++] = q;
    n_ = m;
  }
  /// −1, 0 or +1.
  int sign() const { return n_ == 0 ? 0 : (e_[n_ - 1] > 0.0 ? 1 : -1); }

 private:
  double e_[N + 1] = {};
  int n_ = 0;
};

/// Adds s·det[x, y, z] (rows) to the sum: six exact products.
template <int N>
inline void add_det3(ExactSum<N>& sum, double s, const Vec3<double>& x, const Vec3<double>& y, const Vec3<double>& z) {
  sum.add_product(s * x[0], y[1], z[2]);
  sum.add_product(-s * x[0], y[2], z[1]);
  sum.add_product(s * x[1], y[2], z[0]);
  sum.add_product(-s * x[1], y[0], z[2]);
  sum.add_product(s * x[2], y[0], z[1]);
  sum.add_product(-s * x[2], y[1], z[0]);
}

/// 2^-e with e the exponent of the largest |coordinate| of the points (1 when all are zero).
inline double unit_scale(std::initializer_list<const Vec3<double>*> pts) {
  double m = 0.0;
  for (const Vec3<double>* p : pts) m = std::max(m, p->cwiseAbs().maxCoeff());
  if (!(m > 0.0) || !std::isfinite(m)) return 1.0;
  int e = 0;
  (void)std::frexp(m, &e);
  return std::ldexp(1.0, -e);
}

/// Sign of det[p − o, q − o, d], exactly.
inline int edge_side(const Vec3<double>& o, const Vec3<double>& p, const Vec3<double>& q, const Vec3<double>& d) {
  const double sp = unit_scale({&o, &p, &q}), sd = unit_scale({&d});
  const Vec3<double> O = o * sp, P = p * sp, Q = q * sp, D = d * sd;
  ExactSum<72> sum;
  add_det3(sum, 1.0, P, Q, D);
  add_det3(sum, -1.0, O, Q, D);
  add_det3(sum, -1.0, P, O, D);
  return sum.sign();
}

/// Sign of det[a − o, b − o, c − o], exactly.
inline int orientation(const Vec3<double>& o, const Vec3<double>& a, const Vec3<double>& b, const Vec3<double>& c) {
  const double s = unit_scale({&o, &a, &b, &c});
  const Vec3<double> O = o * s, A = a * s, B = b * s, C = c * s;
  ExactSum<96> sum;
  add_det3(sum, 1.0, A, B, C);
  add_det3(sum, -1.0, O, B, C);
  add_det3(sum, -1.0, A, O, C);
  add_det3(sum, -1.0, A, B, O);
  return sum.sign();
}

}  // namespace impact::detail
