// Regression: a float ray parallel to a far triangle's plane crossed it by rounding.
//
// Found by fuzzing (`FUZZ_SECONDS=60 FUZZ_SEED=23 scripts/fuzz.sh`, fuzz_mesh): a float mesh with
// a corner at (1950725128.5, −0.5, −0.5) and a triangle in the plane y = z; the ray from
// (3.75, 1e-9, −4) along (−4, −4, −4) keeps y − z = 4, so it never meets that plane. The tree
// answered miss (its boxes culled the triangle) and brute force answered a hit at λ = −0: in
// float the sheared corners (ulp 128 at 2e9) cancelled into edge functions of the wrong sign, the
// determinant came out non-zero and t = −0 passed `t < 0`. The double re-evaluation ran only when
// an edge function was exactly zero.
//
// The watertight test now bounds the rounding of each edge function and of t, and decides any
// sign inside its bound exactly (src/detail/exact_orientation.hpp). These tests check both parts
// against integer arithmetic: the exact signs on their own, and whole ray casts on integer
// geometry, where rays through edges and vertices, rays in and parallel to planes and origins on
// planes are common, far from the origin, in float and double, through the tree and brute force.
#include <impact/mesh.hpp>

#include "detail/exact_orientation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

namespace {

using namespace impact;
__extension__ typedef __int128 I;
using IV = std::array<I, 3>;

I det3(const IV& x, const IV& y, const IV& z) {
  return x[0] * (y[1] * z[2] - y[2] * z[1]) - x[1] * (y[0] * z[2] - y[2] * z[0]) + x[2] * (y[0] * z[1] - y[1] * z[0]);
}
IV sub(const IV& a, const IV& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
int sgn(I x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
template <class S>
Vec3<S> vec(const IV& a, double scale = 1.0) {
  return Vec3<S>(static_cast<S>(static_cast<double>(a[0]) * scale), static_cast<S>(static_cast<double>(a[1]) * scale),
                 static_cast<S>(static_cast<double>(a[2]) * scale));
}

TEST(RayTriangleExact, FuzzFindingParallelToAFarPlane) {
  TriangleMesh<float> m;
  m.vertices = {{1950725128.5f, -0.5f, -0.5f}, {-0.5f, -0.5f, -0.5f}, {-1.25f, -1.25f, -1.25f}};
  m.triangles = {{0, 1, 2}};
  ASSERT_EQ(build_mesh(m), "");
  const Ray<float> ray{Vec3<float>(3.75f, 1e-9f, -4.0f), Vec3<float>(-4.0f, -4.0f, -4.0f)};
  for (bool brute : {false, true}) {
    for (BackFaces bf : {BackFaces::collide, BackFaces::ignore}) {
      MeshRayOptions<float> opt;
      opt.max_lambda = 4.0f;
      opt.back_faces = bf;
      opt.brute_force = brute;
      EXPECT_EQ(mesh_ray_cast(m, ray, opt).status, Status::miss) << "brute force " << brute;
    }
  }
}

// ExactSum itself, long enough to be compressed many times (more than 12 components), with heavy
// cancellation: terms m·2^k (|m| < 2^40, k < 60) and their negatives give or take one unit,
// against the same sum in 128-bit integers; in double and in long double.
template <class F>
void exact_sum_battery(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  int zeros = 0;
  for (int i = 0; i < 3000; ++i) {
    detail::ExactSum<F, 240> sum;
    I exact = 0;
    std::vector<std::pair<long long, int>> terms;  // m·2^k
    const int n = 20 + static_cast<int>(rng() % 100);
    for (int k = 0; k < n; ++k) {
      long long m;
      int e;
      if (!terms.empty() && rng() % 3 == 0) {  // cancel an earlier term, give or take one unit
        const auto [m0, e0] = terms[rng() % terms.size()];
        m = -m0;
        e = e0;
        const int unit = static_cast<int>(rng() % 3) - 1;
        sum.add_product(F(unit), F(1), F(1));
        exact += unit;
      } else {
        m = static_cast<long long>(rng() % (1ull << 40)) - (1ll << 39);
        e = static_cast<int>(rng() % 60);
      }
      terms.emplace_back(m, e);
      sum.add_product(F(static_cast<double>(m)), F(std::ldexp(1.0, e)), F(1));  // m < 2^40: exact
      exact += I(m) << e;
    }
    if (i % 2 == 0) {  // cancel the whole sum but for a unit or none, in chunks of 40 bits
      I r = -exact + I(static_cast<int>(rng() % 3) - 1);
      while (r != 0) {
        int bits = 0;
        for (I a = r < 0 ? -r : r; a != 0; a >>= 1) ++bits;
        const int e = std::max(0, bits - 40);
        const I m = r >> e;  // floor: r − m·2^e in [0, 2^e)
        sum.add_product(F(static_cast<double>(static_cast<long long>(m))), F(std::ldexp(1.0, e)), F(1));
        exact += m << e;
        r -= m << e;
      }
    }
    ASSERT_EQ(sum.sign(), sgn(exact)) << i;
    zeros += exact == 0;
  }
  EXPECT_GT(zeros, 0);  // some sums cancel exactly
}
// Terms spread over 2^-900 … 2^900 (a value that needs dozens of components: the expansion is
// compressed again and again), each added with its negation in a shuffled order, and one more
// term t (zero a tenth of the time) whose sign is then the sum's.
template <class F>
void spread_sum_battery(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 2000; ++i) {
    std::vector<F> adds;
    const int n = 10 + static_cast<int>(rng() % 100);
    for (int k = 0; k < n; ++k) {
      const double m = static_cast<double>(static_cast<long long>(rng() % (1ull << 40)) - (1ll << 39));
      const F x = static_cast<F>(std::ldexp(m, static_cast<int>(rng() % 1801) - 900));
      adds.push_back(x);
      adds.push_back(-x);
    }
    const int expected = i % 10 == 0 ? 0 : (rng() % 2 ? 1 : -1);
    adds.push_back(static_cast<F>(std::ldexp(double(expected), static_cast<int>(rng() % 1801) - 900)));
    std::shuffle(adds.begin(), adds.end(), rng);
    detail::ExactSum<F, 240> sum;
    for (const F x : adds) sum.add_product(x, F(1), F(1));
    ASSERT_EQ(sum.sign(), expected) << i;
  }
}

TEST(RayTriangleExact, ExactSumsWithHeavyCancellation) {
  exact_sum_battery<double>(41);
  exact_sum_battery<long double>(42);
  spread_sum_battery<double>(43);
  spread_sum_battery<long double>(44);
}

// The exact signs against 128-bit integers, on coordinates with many exact degeneracies, scaled
// by powers of two from 2^-60 to 2^30 (the signs do not change).
TEST(RayTriangleExact, SignsEqualIntegerDeterminants) {
  std::mt19937_64 rng(20261126);
  int zeros = 0, cases = 0;
  for (int i = 0; i < 20000; ++i) {
    const int range = i % 3 == 0 ? 2 : (i % 3 == 1 ? 40 : (1 << 20));
    std::uniform_int_distribution<long long> u(-range, range);
    auto draw = [&] { return IV{u(rng), u(rng), u(rng)}; };
    IV o = draw(), a = draw(), b = draw(), c = draw(), d = draw();
    if (i % 5 == 0) c = a;                                                          // a repeated point
    if (i % 7 == 0) b = IV{2 * a[0] - o[0], 2 * a[1] - o[1], 2 * a[2] - o[2]};      // o, a, b collinear
    const double s = std::ldexp(1.0, static_cast<int>(rng() % 91) - 60), sd = std::ldexp(1.0, static_cast<int>(rng() % 41) - 20);
    const int e = sgn(det3(sub(a, o), sub(b, o), d)), f = sgn(det3(sub(a, o), sub(b, o), sub(c, o)));
    ASSERT_EQ(detail::edge_side(vec<double>(o, s), vec<double>(a, s), vec<double>(b, s), vec<double>(d, sd)), e) << i;
    ASSERT_EQ(detail::orientation(vec<double>(o, s), vec<double>(a, s), vec<double>(b, s), vec<double>(c, s)), f) << i;
    zeros += (e == 0) + (f == 0);
    cases += 2;
  }
  EXPECT_GT(zeros, cases / 20);  // the degenerate cases were really drawn
}

// Whole casts on one-triangle meshes of integer geometry, against the exact answer: a crossing
// when the three edge signs agree (≥ 0 for a front-to-back crossing under BackFaces::ignore),
// not all zero, and λ = num/den ≥ 0; λ itself within rounding of num/den.
template <class S>
void integer_battery(std::uint64_t seed, int count) {
  std::mt19937_64 rng(seed);
  int hits = 0, misses = 0, edge_cases = 0;
  // float holds integers exactly to 2^24, double to 2^53: offsets keep every coordinate exact (and
  // below Tolerances::max_magnitude, 1e12).
  const long long far = sizeof(S) == 4 ? (1ll << 22) : (1ll << 38);
  for (int i = 0; i < count; ++i) {
    const int range = i % 2 == 0 ? 3 : 64;
    std::uniform_int_distribution<long long> u(-range, range);
    auto draw = [&] { return IV{u(rng), u(rng), u(rng)}; };
    IV shift{0, 0, 0};
    if (i % 4 == 1) shift = IV{far, -far / 2, far / 3};
    if (i % 4 == 2) shift = IV{static_cast<long long>(rng() % (2 * far)) - far, 0, 0};
    IV a = draw(), b = draw(), c = draw(), o = draw(), d = draw();
    if (i % 6 == 0) {  // the fuzz finding's shape: one corner far along x, the ray parallel to the plane
      a = IV{far, -1, -1};
      d[2] = d[1];
    }
    if (i % 6 != 0 && i % 2 == 1) {  // aimed at p·a + q·b + r·c: through the face, an edge, a corner, or beside
      std::uniform_int_distribution<int> w(-1, 3);
      const I p = w(rng), q = w(rng), r = w(rng);
      for (int k = 0; k < 3; ++k) d[k] = p * a[k] + q * b[k] + r * c[k] - (p + q + r) * o[k];
    }
    if (d == IV{0, 0, 0}) d = IV{1, 0, 0};
    for (IV* p : {&a, &b, &c, &o}) *p = IV{(*p)[0] + shift[0], (*p)[1] + shift[1], (*p)[2] + shift[2]};
    const I su = det3(sub(c, o), sub(b, o), d), sv = det3(sub(a, o), sub(c, o), d), sw = det3(sub(b, o), sub(a, o), d);
    const I num = -det3(sub(a, o), sub(b, o), sub(c, o));  // λ·(u + v + w) in the exact frame: sign tests λ ≥ 0
    const I den = su + sv + sw;
    TriangleMesh<S> m;
    m.vertices = {vec<S>(a), vec<S>(b), vec<S>(c)};
    m.triangles = {{0, 1, 2}};
    if (!build_mesh(m).empty()) continue;  // a degenerate triangle is not stored
    const Ray<S> ray{vec<S>(o), vec<S>(d)};
    for (BackFaces bf : {BackFaces::collide, BackFaces::ignore}) {
      const int lo = std::min({sgn(su), sgn(sv), sgn(sw)}), hi = std::max({sgn(su), sgn(sv), sgn(sw)});
      bool crosses = (lo != 0 || hi != 0) && (bf == BackFaces::ignore ? lo >= 0 : !(lo < 0 && hi > 0));
      crosses = crosses && den != 0 && sgn(num) * sgn(den) >= 0;
      const double lam = crosses ? static_cast<double>(num) / static_cast<double>(den) : 0.0;
      MeshRayOptions<S> opt;
      opt.back_faces = bf;
      opt.max_lambda = S(1e9);
      if (crosses && lam > 1e8) continue;  // far from the end of the ray: no tie with max_lambda
      edge_cases += crosses && (su == 0 || sv == 0 || sw == 0 || num == 0);
      for (bool brute : {false, true}) {
        opt.brute_force = brute;
        const MeshRayHit<S> h = mesh_ray_cast(m, ray, opt);
        ASSERT_EQ(h.status, crosses ? Status::hit : Status::miss)
            << "case " << i << " brute " << brute << " back faces " << int(bf) << " u v w " << sgn(su) << sgn(sv) << sgn(sw)
            << " num " << sgn(num) << " den " << sgn(den);
        if (!crosses) continue;
        // λ is never negative and never late by more than rounding of the inputs' size.
        const double scale = std::max({1.0, lam, static_cast<double>(far)});
        const double tol = 64.0 * std::numeric_limits<S>::epsilon() * scale * (i % 4 ? 1.0 : 1e-6);
        ASSERT_GE(h.lambda, S(0)) << i;
        if (std::abs(static_cast<double>(den)) > 1e-3 * scale) {
          ASSERT_LE(static_cast<double>(h.lambda), lam + tol) << i;
        }
      }
      (crosses ? hits : misses)++;
    }
  }
  EXPECT_GT(hits, count / 4);  // count cases, two back-face rules each
  EXPECT_GT(misses, count / 4);
  EXPECT_GT(edge_cases, count / 100);  // rays through edges, vertices and origins on the plane were drawn
}

TEST(RayTriangleExact, IntegerGeometryDouble) { integer_battery<double>(7, 20000); }
TEST(RayTriangleExact, IntegerGeometryFloat) { integer_battery<float>(8, 20000); }

// Signs over double's whole exponent range, against an independent answer. The points are integer
// (many exact degeneracies) scaled by 2^0 … 2^30, and one coordinate that is zero among them is
// set to ±2^-k, k in [300, 1074] (down to the smallest subnormal). Both determinants are affine
// in every coordinate, so the perturbed one is det(x) + δ·(det(x + e) − det(x)) with e that
// coordinate's unit step: its sign is det(x)'s when that is non-zero (|δ·…| is far below the
// scaled integer det(x)), else δ's times the step's. A fuzz input (fuzz_level, 2026-11-27) had
// such a corner, y = 2.2e-308 beside x = −1.8e8: double's scaled products underflowed and a ray 4
// units below the triangle was found inside it.
TEST(RayTriangleExact, SignsOverTheWholeExponentRange) {
  std::mt19937_64 rng(20261128);
  int tiny_decided = 0;
  for (int i = 0; i < 20000; ++i) {
    std::uniform_int_distribution<long long> u(-(i % 2 ? 2 : 40), i % 2 ? 2 : 40);
    auto draw = [&] { return IV{u(rng), u(rng), u(rng)}; };
    IV x[4] = {draw(), draw(), draw(), draw()};  // o, a, b, then c (orientation) or d (edge_side)
    if (i % 5 == 0) x[2] = IV{2 * x[1][0] - x[0][0], 2 * x[1][1] - x[0][1], 2 * x[1][2] - x[0][2]};  // o, a, b collinear
    if (i % 3 == 0) x[3] = x[1];
    // The perturbed coordinate: point k, axis j, zero in the integer configuration.
    const int k = static_cast<int>(rng() % 4), j = static_cast<int>(rng() % 3);
    x[k][j] = 0;
    if (i % 4 < 2) {  // all four in the plane of that coordinate: det(x) = 0, the sign is the tiny one's
      for (IV& y : x) y[j] = 0;
    }
    const bool edge = i % 2 == 0;
    auto det = [&](const IV* y) {
      return edge ? det3(sub(y[1], y[0]), sub(y[2], y[0]), y[3]) : det3(sub(y[1], y[0]), sub(y[2], y[0]), sub(y[3], y[0]));
    };
    IV step[4] = {x[0], x[1], x[2], x[3]};
    step[k][j] = 1;
    const I d0 = det(x), slope = det(step) - d0;
    const double delta = std::ldexp(rng() % 2 ? 1.0 : -1.0, -300 - static_cast<int>(rng() % 775));
    const int expected = d0 != 0 ? sgn(d0) : (delta > 0 ? 1 : -1) * sgn(slope);
    const double s = std::ldexp(1.0, static_cast<int>(rng() % 31)), sd = std::ldexp(1.0, static_cast<int>(rng() % 31));
    Vec3<double> v[4];
    for (int p = 0; p < 4; ++p) v[p] = vec<double>(x[p], edge && p == 3 ? sd : s);
    v[k][j] = delta;
    const int got = edge ? detail::edge_side(v[0], v[1], v[2], v[3]) : detail::orientation(v[0], v[1], v[2], v[3]);
    ASSERT_EQ(got, expected) << "case " << i << " point " << k << " axis " << j << " delta " << delta << " edge " << edge << "\n"
        << v[0].transpose() << "\n" << v[1].transpose() << "\n" << v[2].transpose() << "\n" << v[3].transpose();
    tiny_decided += d0 == 0 && slope != 0;
  }
  EXPECT_GT(tiny_decided, 20000 / 4);  // signs decided by the tiny coordinate alone were really drawn
}

// A second fuzz_level input on the same corners: the triangle twice, in both windings, a ray
// meeting it where the plane's λ is not trusted. The exact path compared the crossing with the
// best time so far, so the answer depended on the order triangles came in: the tree took one
// winding at one λ, brute force the other at a λ 1e-20 later. λ now depends on the ray and the
// triangle alone (lambda_exact), and the tie goes to the lower index in both.
TEST(RayTriangleExact, FuzzFindingBothWindingsAnswerInAnyOrder) {
  TriangleMesh<double> m;
  m.vertices = {{-179846448.19838297, 2.2250738585072014e-308, -0.0}, {0.25, 0.25, 0.25}, {-4, -23580.425755507495, 3.25}};
  m.triangles = {{1, 2, 0}, {2, 1, 0}};
  ASSERT_EQ(build_mesh(m), "");
  const Ray<double> ray{Vec3<double>(-4, 0.25, 0.25), Vec3<double>(-4, -4, -4)};
  MeshRayOptions<double> opt;
  opt.back_faces = BackFaces::collide;
  const MeshRayHit<double> tree = mesh_ray_cast(m, ray, opt);
  opt.brute_force = true;
  const MeshRayHit<double> brute = mesh_ray_cast(m, ray, opt);
  ASSERT_EQ(tree.status, Status::hit);
  ASSERT_EQ(brute.status, Status::hit);
  EXPECT_EQ(tree.lambda, brute.lambda);
  EXPECT_EQ(tree.triangle, 0u);
  EXPECT_EQ(brute.triangle, 0u);
  // Each winding alone gives the same λ.
  for (std::uint32_t k : {0u, 1u}) {
    TriangleMesh<double> one;
    one.vertices = m.vertices;
    one.triangles = {m.triangles[k]};
    ASSERT_EQ(build_mesh(one), "");
    EXPECT_EQ(mesh_ray_cast(one, ray, opt).lambda, brute.lambda) << k;
  }
}

// plane_side_at (which side of a triangle's plane o + t·d is, t·d unrounded) against 128-bit
// integers: integer points, t = m / 2^k, so 2^k·det[b − a, c − a, o + t·d − a] =
// det[b − a, c − a, 2^k·(o − a) + m·d]. Half the cases put o + t·d on the plane exactly.
TEST(RayTriangleExact, PlaneSideAtEqualsIntegerDeterminants) {
  std::mt19937_64 rng(20261129);
  int on_plane = 0;
  for (int i = 0; i < 20000; ++i) {
    std::uniform_int_distribution<long long> u(-40, 40);
    auto draw = [&] { return IV{u(rng), u(rng), u(rng)}; };
    const IV a = draw(), b = draw(), c = draw(), d = draw();
    const int k = static_cast<int>(rng() % 21);
    const long long m = static_cast<long long>(rng() % (40ll << k));
    IV o = draw();
    if (i % 2 == 0) {  // o + t·d = a + p·(b − a) + q·(c − a) exactly: o = that point − t·d, in 2^-k units
      const long long p = u(rng), q = u(rng);
      IV o2;  // 2^k·o
      for (int j = 0; j < 3; ++j) o2[j] = (a[j] + p * (b[j] - a[j]) + q * (c[j] - a[j])) * (I(1) << k) - m * d[j];
      // keep o integer: only when 2^k divides every coordinate of 2^k·o
      bool whole = true;
      for (int j = 0; j < 3; ++j) whole = whole && o2[j] % (I(1) << k) == 0;
      if (whole)
        for (int j = 0; j < 3; ++j) o[j] = o2[j] / (I(1) << k);
    }
    IV q;
    for (int j = 0; j < 3; ++j) q[j] = (o[j] - a[j]) * (I(1) << k) + m * d[j];
    const int expected = sgn(det3(sub(b, a), sub(c, a), q));
    const double t = std::ldexp(static_cast<double>(m), -k);
    ASSERT_EQ(detail::plane_side_at(vec<double>(o), vec<double>(d), t, vec<double>(a), vec<double>(b), vec<double>(c)), expected)
        << i;
    on_plane += expected == 0;
  }
  EXPECT_GT(on_plane, 20000 / 50);
}

// The fuzz input itself, through a mesh cast (tree and brute force) and a level: the ray from
// (−4, −4, −4) along (−4, −4, −4) keeps y ≤ −4, the triangle has y ≥ 0.
TEST(RayTriangleExact, FuzzFindingSubnormalCornerBesideAFarOne) {
  TriangleMesh<double> m;
  m.vertices = {{-179846448.19838297, 2.2250738585072014e-308, -0.0}, {0.25, 0.25, 0.25}, {-23580.425755507495, 3.25, 3.25}};
  m.triangles = {{0, 1, 2}};
  ASSERT_EQ(build_mesh(m), "");
  const Ray<double> ray{Vec3<double>(-4, -4, -4), Vec3<double>(-4, -4, -4)};
  for (bool brute : {false, true}) {
    for (BackFaces bf : {BackFaces::collide, BackFaces::ignore}) {
      MeshRayOptions<double> opt;
      opt.back_faces = bf;
      opt.brute_force = brute;
      EXPECT_EQ(mesh_ray_cast(m, ray, opt).status, Status::miss) << "brute force " << brute;
    }
  }
  // The finding's own ray, along (1, 1, 1): its line meets the triangle at the corner
  // (0.25, 0.25, 0.25), at λ = 17, and the plane is within 1e-316 of parallel to it, so the plane's
  // λ rounds to 0/0. Before max_lambda 17 it is a miss; from 17 on a hit at 17 (never earlier).
  const Ray<double> along{Vec3<double>(-4, -4, -4), Vec3<double>(0.25, 0.25, 0.25)};
  for (bool brute : {false, true}) {
    MeshRayOptions<double> opt;
    opt.back_faces = BackFaces::collide;
    opt.brute_force = brute;
    opt.max_lambda = 1;
    EXPECT_EQ(mesh_ray_cast(m, along, opt).status, Status::miss) << "brute force " << brute;
    opt.max_lambda = 16.999;
    EXPECT_EQ(mesh_ray_cast(m, along, opt).status, Status::miss) << "brute force " << brute;
    opt.max_lambda = 20;
    const MeshRayHit<double> h = mesh_ray_cast(m, along, opt);
    ASSERT_EQ(h.status, Status::hit) << "brute force " << brute;
    EXPECT_LE(h.lambda, 17.0) << "brute force " << brute;
    EXPECT_GE(h.lambda, 17.0 - 1e-12) << "brute force " << brute;
  }
}

}  // namespace
