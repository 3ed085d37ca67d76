// Johnson's distance sub-algorithm (src/detail/johnson.hpp), in float and double, against an
// independent brute-force oracle in long double: the point of a simplex (segment, triangle,
// tetrahedron) nearest the origin, found by enumerating its vertices, the interior feet of its
// edges, the interior feet of its faces (a 2×2 Gram system) and, for a tetrahedron, the origin's
// barycentric coordinates (a 3×3 system). Checked:
// - closest(): the simplex built vertex by vertex (as GJK builds it, with no vertex dropped),
//   the newest vertex being one of the nearest feature's (GJK's support point always is):
//   v equals the oracle, W is a face of Y whose weights λ are ≥ 0 and sum to 1, Σ λ_i y_i = v,
//   the optimality certificate v·y_i ≥ ‖v‖² holds for every vertex, and the witnesses
//   Σ λ_i a_i, Σ λ_i b_i differ by v;
// - closest_geometric(): the same point for any order of the vertices;
// - origin_weights(): a tetrahedron around the origin gives the oracle's barycentric coordinates,
//   one that leaves it out says `outside`;
// - translate(): moving every vertex (the ray cast's step) gives the shifted simplex's answer.
#include "detail/johnson.hpp"

#include "scenes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace impact;
using scenes::Rng;
using L = long double;
using VL = Eigen::Matrix<long double, 3, 1>;
using V = Eigen::Vector3d;

/// The oracle's answer: the nearest point, its barycentric weights over the input vertices, and
/// the distance (long double throughout).
struct Nearest {
  VL point = VL::Zero();
  std::array<L, 4> weight{0, 0, 0, 0};
};

/// Nearest point of conv{p_0..p_{n−1}} (n ≤ 4) to the origin, by enumerating every feature.
Nearest brute_force_nearest(const std::vector<VL>& p) {
  const int n = static_cast<int>(p.size());
  Nearest best;
  L best2 = std::numeric_limits<L>::infinity();
  auto consider = [&](const VL& x, const std::array<L, 4>& w) {
    const L d2 = x.squaredNorm();
    if (d2 < best2) {
      best2 = d2;
      best.point = x;
      best.weight = w;
    }
  };
  for (int i = 0; i < n; ++i) {
    std::array<L, 4> w{0, 0, 0, 0};
    w[i] = 1;
    consider(p[i], w);
  }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      const VL e = p[j] - p[i];
      const L t = -p[i].dot(e) / e.squaredNorm();
      if (!(t > 0 && t < 1)) continue;
      std::array<L, 4> w{0, 0, 0, 0};
      w[i] = 1 - t;
      w[j] = t;
      consider(VL(p[i] + t * e), w);
    }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      for (int k = j + 1; k < n; ++k) {
        // Foot of the origin on the plane: p_i + u·e1 + s·e2 with the residual ⊥ e1, e2.
        const VL e1 = p[j] - p[i], e2 = p[k] - p[i];
        const L a11 = e1.dot(e1), a12 = e1.dot(e2), a22 = e2.dot(e2);
        const L b1 = -p[i].dot(e1), b2 = -p[i].dot(e2);
        const L det = a11 * a22 - a12 * a12;
        const L u = (b1 * a22 - b2 * a12) / det, s = (a11 * b2 - a12 * b1) / det;
        if (!(u > 0 && s > 0 && u + s < 1)) continue;
        std::array<L, 4> w{0, 0, 0, 0};
        w[i] = 1 - u - s;
        w[j] = u;
        w[k] = s;
        consider(VL(p[i] + u * e1 + s * e2), w);
      }
  if (n == 4) {
    Eigen::Matrix<long double, 3, 3> m;
    m << p[1] - p[0], p[2] - p[0], p[3] - p[0];
    const VL l = m.fullPivLu().solve(VL(-p[0]));
    if (l.minCoeff() > 0 && l.sum() < 1) consider(VL::Zero(), {1 - l.sum(), l[0], l[1], l[2]});
  }
  return best;
}

/// The order to add n vertices in with the nearest feature's heaviest vertex last (Johnson's
/// newest vertex, which its tests assume is in the answer).
std::vector<int> heaviest_last(const Nearest& o, int n) {
  const int newest = int(std::max_element(o.weight.begin(), o.weight.begin() + n) - o.weight.begin());
  std::vector<int> order;
  for (int i = 0; i < n; ++i)
    if (i != newest) order.push_back(i);
  order.push_back(newest);
  return order;
}

/// A random simplex of n vertices of S, not close to degenerate (so that the answer is defined
/// to a few units of rounding): its edges at least 0.2 long and its faces and volume at least a
/// fixed fraction of what its edges allow.
template <class S>
std::vector<Vec3<S>> random_simplex(Rng& rng, int n, double offset) {
  for (;;) {
    const V centre = offset * rng.unit();
    std::vector<Vec3<S>> y;
    for (int i = 0; i < n; ++i) y.push_back((centre + rng.in_cube(1.5)).template cast<S>());
    bool ok = true;
    double longest = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const double e = (y[i] - y[j]).template cast<double>().norm();
        ok = ok && e > 0.2;
        longest = std::max(longest, e);
      }
    for (int i = 0; ok && i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        for (int k = j + 1; k < n; ++k) {
          const V e1 = (y[j] - y[i]).template cast<double>(), e2 = (y[k] - y[i]).template cast<double>();
          ok = ok && e1.cross(e2).norm() > 0.05 * longest * longest;
        }
    if (ok && n == 4) {
      const V e1 = (y[1] - y[0]).template cast<double>(), e2 = (y[2] - y[0]).template cast<double>(),
              e3 = (y[3] - y[0]).template cast<double>();
      ok = std::abs(e1.dot(e2.cross(e3))) > 0.02 * longest * longest * longest;
    }
    if (ok) return y;
  }
}

template <class S>
VL wide(const Vec3<S>& v) {
  return v.template cast<long double>();
}

/// The vertices in long double, for the brute force.
template <class S>
std::vector<VL> widened(const std::vector<Vec3<S>>& y) {
  std::vector<VL> yl;
  for (const auto& p : y) yl.push_back(wide(p));
  return yl;
}

/// Length tolerance for a simplex within ~5 of the origin: rounding of Johnson's determinants on
/// a well-shaped simplex.
template <class S>
L tolerance() {
  return sizeof(S) == 4 ? L(5e-5) : L(1e-12);
}

/// Builds Y = {y_order[0], ...} in `j` as GJK would with no vertex dropped: each vertex added,
/// then kept in W (bits), except the newest, which closest() then decides about. Each vertex's
/// support points are a_i = y_i + c_i and b_i = c_i, c_i an arbitrary offset, so that the
/// witnesses differ by v only if the weights are applied to both.
template <class S>
void build(detail::Johnson<S>& j, const std::vector<Vec3<S>>& y, const std::vector<int>& order, Rng& rng) {
  j.reset();
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Vec3<S> c = rng.in_cube(3).template cast<S>();
    j.add(y[order[k]], Vec3<S>(y[order[k]] + c), c);
    if (k + 1 < order.size()) j.bits = j.all_bits;
  }
}

/// Checks j's state after a successful closest() or closest_geometric() against the oracle.
template <class S>
void expect_answer(const detail::Johnson<S>& j, const Vec3<S>& v, const std::vector<Vec3<S>>& y, const Nearest& o,
                   const std::string& what, bool witnesses = true, bool by_distance = false) {
  const L tol = tolerance<S>();
  // closest_geometric() picks the feature whose foot has the least ‖·‖² in S: two candidates
  // whose squared distances differ by less than rounding (a vertex, and an edge's foot δ from it:
  // they differ by δ²) are a tie, so its point is good to about sqrt(ε)·‖v‖ along the simplex,
  // while the distance itself stays good to rounding.
  const L slack = by_distance ? std::sqrt(L(16) * std::numeric_limits<S>::epsilon()) * o.point.norm() : L(0);
  EXPECT_NEAR(double(wide(v).norm()), double(o.point.norm()), double(tol)) << what;
  std::ostringstream points;
  points.precision(9);
  for (const Vec3<S>& p : y) points << " (" << p.transpose() << ")";
  EXPECT_LE((wide(v) - o.point).norm(), tol + slack) << what << ": v " << v.transpose() << " oracle " << o.point.transpose()
                                             << " simplex" << points.str();
  // W's weights: non-negative, summing to 1, and reproducing v.
  L sum = 0;
  VL combo = VL::Zero();
  for (int i = 0; i < 4; ++i) {
    if (!(j.bits & (1u << i))) continue;
    EXPECT_GE(j.lambda[i], S(-tol)) << what;
    sum += j.lambda[i];
    combo += L(j.lambda[i]) * wide(j.y[i]);
  }
  EXPECT_NEAR(double(sum), 1.0, double(tol)) << what;
  EXPECT_LE((combo - wide(v)).norm(), 4 * tol) << what;
  // Optimality: v is the nearest point of conv Y iff v·y ≥ ‖v‖² for every vertex y.
  for (const Vec3<S>& p : y)
    EXPECT_GE(double(wide(v).dot(wide(p)) - wide(v).squaredNorm()), -double(8 * tol + slack * wide(p).norm())) << what;
  // Witnesses: pa − pb = Σ λ_i (a_i − b_i) = v (not after translate(), which moves y alone).
  if (!witnesses) return;
  Vec3<S> pa, pb;
  j.witnesses(pa, pb);
  EXPECT_LE((wide(pa) - wide(pb) - wide(v)).norm(), 8 * tol) << what;
}

template <class S>
class Johnson : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(Johnson, Scalars);

TYPED_TEST(Johnson, ClosestEqualsBruteForceWhenTheNewestVertexIsOnTheNearestFeature) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("johnson closest ") + scenes::scalar_name<S>()));
  int by_dimension[4][4] = {};  // [simplex size − 1][support size − 1]: every kind of answer seen
  int cases = 0, fallbacks = 0;
  for (int c = 0; c < scenes::battery(6000); ++c) {
    const int n = 2 + c % 3;
    const std::vector<Vec3<S>> y = random_simplex<S>(rng, n, rng.uniform(0, 3.5));
    std::vector<VL> yl = widened(y);
    const Nearest o = brute_force_nearest(yl);
    // The newest vertex: the one with the largest weight in the nearest feature.
    const std::vector<int> order = heaviest_last(o, n);
    detail::Johnson<S> j;
    build(j, y, order, rng);
    Vec3<S> v;
    const std::string what = "case " + std::to_string(c) + " n " + std::to_string(n);
    // Where the nearest point is about to change feature, rounding may leave no subset passing
    // Johnson's sign tests; the backup subset must then still give the nearest point.
    fallbacks += !j.closest(v);
    expect_answer(j, v, y, o, what);
    ++cases;
    int support = 0;
    for (int i = 0; i < n; ++i) support += o.weight[i] > 0;
    ++by_dimension[n - 1][support - 1];
  }
  // Nearest vertices, edges and (for triangles and tetrahedra) faces and interiors all occurred.
  for (int n = 2; n <= 4; ++n)
    for (int k = 1; k <= std::min(n, 3); ++k) EXPECT_GT(by_dimension[n - 1][k - 1], 10) << n << " vertices, feature of " << k;
  EXPECT_GT(by_dimension[3][3], 10) << "origin inside a tetrahedron";
  EXPECT_LE(fallbacks, cases / 200) << "Johnson's tests should pass on well-shaped simplices";
}

TYPED_TEST(Johnson, ClosestGeometricEqualsBruteForceInAnyOrder) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("johnson geometric ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(6000); ++c) {
    const int n = 2 + c % 3;
    const std::vector<Vec3<S>> y = random_simplex<S>(rng, n, rng.uniform(0, 3.5));
    std::vector<VL> yl = widened(y);
    const Nearest o = brute_force_nearest(yl);
    std::vector<int> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = n - 1; i > 0; --i) std::swap(order[i], order[rng.index(i + 1)]);
    detail::Johnson<S> j;
    build(j, y, order, rng);
    Vec3<S> v = Vec3<S>::Constant(S(1e9));
    const std::string what = "case " + std::to_string(c) + " n " + std::to_string(n);
    const bool inside = o.point.squaredNorm() == 0;
    // Inside or outside is a matter of rounding within a few ulps of a face: skip those.
    if (inside ? *std::min_element(o.weight.begin(), o.weight.end()) < 1e-3 : o.point.norm() < 1e-3) continue;
    ASSERT_EQ(j.closest_geometric(v), !inside) << what;
    if (!inside) expect_answer(j, v, y, o, what, true, true);
  }
}

TYPED_TEST(Johnson, OriginWeightsAreTheBarycentricCoordinatesOfTheOrigin) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("johnson origin weights ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(3000); ++c) {
    // A tetrahedron with the origin at known weights w inside it: y_i = q_i − Σ w_k q_k.
    std::vector<Vec3<S>> q = random_simplex<S>(rng, 4, 0);
    double w[4], total = 0;
    for (double& x : w) total += (x = rng.uniform(0.05, 1));
    V inner = V::Zero();
    for (int i = 0; i < 4; ++i) inner += (w[i] / total) * q[i].template cast<double>();
    std::vector<Vec3<S>> y;
    for (const auto& p : q) y.push_back((p.template cast<double>() - inner).template cast<S>());
    std::vector<VL> yl = widened(y);
    const Nearest o = brute_force_nearest(yl);
    const std::string what = "case " + std::to_string(c);
    ASSERT_EQ(o.point.squaredNorm(), 0) << what << ": the oracle must see the origin inside";
    detail::Johnson<S> j;
    build(j, y, {0, 1, 2, 3}, rng);
    Vec3<S> v;
    ASSERT_TRUE(j.closest(v)) << what;
    EXPECT_EQ(j.bits, 15u) << what;
    EXPECT_LE(double(wide(v).norm()), double(tolerance<S>())) << what;
    ASSERT_EQ(j.origin_weights(), detail::Johnson<S>::Enclosure::inside) << what;
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(double(j.lambda[i]), double(o.weight[i]), 50 * double(tolerance<S>())) << what;
  }
}

// The origin outside the tetrahedron (one weight −0.02..−1 of the total) is `outside`, and the
// weights are left as they were.
TYPED_TEST(Johnson, OriginWeightsSayOutsideWhenAWeightIsNegative) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("johnson origin outside ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(3000); ++c) {
    std::vector<Vec3<S>> q = random_simplex<S>(rng, 4, 0);
    double w[4], total = 0;
    for (double& x : w) total += (x = rng.uniform(0.05, 1));
    const int neg = c % 4;
    total -= w[neg];
    w[neg] = -rng.uniform(0.02, 1) * total;
    total += w[neg];
    V inner = V::Zero();
    for (int i = 0; i < 4; ++i) inner += (w[i] / total) * q[i].template cast<double>();
    std::vector<Vec3<S>> y;
    for (const auto& p : q) y.push_back((p.template cast<double>() - inner).template cast<S>());
    detail::Johnson<S> j;
    build(j, y, {0, 1, 2, 3}, rng);
    j.bits = 15u;
    for (S& l : j.lambda) l = S(0.25);
    const std::string what = "case " + std::to_string(c);
    EXPECT_EQ(j.origin_weights(), detail::Johnson<S>::Enclosure::outside) << what;
    for (const S l : j.lambda) EXPECT_EQ(l, S(0.25)) << what;
  }
}

// The tetrahedron of a segment–sliver pair (2026-11-30) that passed Johnson's sign tests in
// double with the origin outside it (its weight at vertex 1 is −0.0090, exactly): signed volumes
// say outside, and GJK no longer calls the pair, 0.019 apart, intersecting.
TEST(JohnsonDouble, OriginWeightsOfATetrahedronWithACornerFarOut) {
  const std::vector<Vec3<double>> y = {
      {148533922.91655638814, 71181167.8039139211178, 2088259.70337203843519},
      {-10.4455704747248994124, 0.468804749493415551242, 1.73036184967982853422},
      {60.668003929753311354, -13.8090287082834191068, 3.19350905429299647409},
      {-10.3943330883206925819, 1.34423436699915699322, -0.469127928522475534656}};
  detail::Johnson<double> j;
  Rng rng(1);
  build(j, y, {0, 1, 2, 3}, rng);
  j.bits = 15u;
  EXPECT_EQ(j.origin_weights(), detail::Johnson<double>::Enclosure::outside);
}

TYPED_TEST(Johnson, TranslateMovesTheWholeSimplex) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("johnson translate ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(3000); ++c) {
    const int n = 2 + c % 3;
    const std::vector<Vec3<S>> y = random_simplex<S>(rng, n, rng.uniform(0, 3.5));
    const Vec3<S> shift = rng.in_cube(1).template cast<S>();
    std::vector<Vec3<S>> moved;
    std::vector<VL> yl;
    for (const auto& p : y) {
      moved.push_back(p + shift);
      yl.push_back(wide(moved.back()));
    }
    const Nearest o = brute_force_nearest(yl);
    // translate() leaves the highest slot as the newest vertex: put the nearest feature's
    // heaviest vertex there.
    const std::vector<int> order = heaviest_last(o, n);
    detail::Johnson<S> j;
    build(j, y, order, rng);
    j.bits = j.all_bits;
    j.translate(shift);
    Vec3<S> v;
    const std::string what = "case " + std::to_string(c) + " n " + std::to_string(n);
    ASSERT_TRUE(j.closest(v)) << what;
    expect_answer(j, v, moved, o, what, false);
  }
}

}  // namespace
