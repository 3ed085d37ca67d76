// Certifies the support mappings of every shape type in float and double against dense samples of
// the shape (oracles.hpp, independent of the library): for many directions d, support(d) is a
// point of the shape (containment oracle) and d·support(d) is at least the largest d·x over the
// samples, and equals the closed-form support value. Also certifies hulls built by qhull: the
// vertex set and face planes equal a brute-force hull of the cloud, degenerate clouds get the
// right dimension and vertices, and the scanning and hill-climbing supports agree.
#include "oracles.hpp"
#include "scenes.hpp"

#include <impact/query.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace impact;
using oracle::Body;
using oracle::Kind;
using oracle::V;

template <class S>
class SupportMapping : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(SupportMapping, Scalars);

template <class S>
V vd(const Vec3<S>& v) {
  return v.template cast<double>();
}

/// Rounding allowance for a support point of a shape of size `size`: the support mappings scale a
/// direction to a length (one square root, a division, a product: a few ε relative), and the dot
/// product with d adds a few more. 16 ε·size covers them.
template <class S>
double support_tolerance(double size) {
  return 16 * double(std::numeric_limits<S>::epsilon()) * std::max(size, 1.0);
}

/// Directions that exercise every branch: random, the axes, the diagonals, directions with zero
/// components (ties in boxes, the cone's and cylinder's axis), and all of them at lengths from
/// 1e-15 to 1e15 (a direction need not be unit).
std::vector<V> test_directions(scenes::Rng& rng, int random_count) {
  std::vector<V> dirs;
  for (int i = 0; i < 3; ++i) {
    dirs.push_back(V::Unit(i));
    dirs.push_back(-V::Unit(i));
  }
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = -1; z <= 1; ++z)
        if (x || y || z) dirs.emplace_back(x, y, z);
  for (int i = 0; i < random_count; ++i) dirs.push_back(rng.unit());
  // Nearly along the axis: the cone's apex/rim decision and the cylinder's cap centre.
  dirs.emplace_back(1e-9, 0, 1);
  dirs.emplace_back(0, -1e-9, -1);
  const std::size_t base = dirs.size();
  for (double scale : {1e-15, 1e-6, 1e6, 1e15})
    for (std::size_t i = 0; i < base; i += 7) dirs.push_back(scale * dirs[i]);
  return dirs;
}

/// Checks support(d) of `shape` (placed at the identity) against the body's samples and closed
/// form, for every test direction.
template <class S>
void certify_support(const Shape<S>& shape, const Body& body, scenes::Rng& rng, const std::string& what) {
  SCOPED_TRACE(what + ": " + scenes::describe(shape));
  const auto samples = oracle::surface_samples(body, 3000, [&] { return rng.unit(); }, [&] { return rng.uniform(); });
  const double size = std::max(1.0, double(bounding_radius(shape)));
  const double tiny = support_tolerance<S>(size);
  int failures = 0;
  for (const V& d : test_directions(rng, 400)) {
    const Vec3<S> ds = d.cast<S>();
    const V s = vd(support(shape, ds));
    const V u = vd(ds).normalized();
    double sampled = -oracle::kInf;
    for (const V& x : samples) sampled = std::max(sampled, u.dot(x));
    const double value = u.dot(s);
    const double closed_form = oracle::support_value(body, u);
    const double outside = oracle::signed_distance(body, s);
    const bool ok = value >= sampled - tiny && std::abs(value - closed_form) <= tiny && outside <= tiny;
    if (!ok && ++failures <= 3)
      ADD_FAILURE() << "direction " << scenes::vec<double>(d) << ": support " << scenes::vec<double>(s) << ", d.s "
                    << scenes::num(value) << ", best sample " << scenes::num(sampled) << ", closed form "
                    << scenes::num(closed_form) << ", signed distance to the shape " << scenes::num(outside);
  }
  EXPECT_EQ(failures, 0) << "directions whose support point is wrong";
  // The zero direction has no farthest point: any point of the shape will do.
  const V s0 = vd(support(shape, Vec3<S>(Vec3<S>::Zero())));
  EXPECT_LE(oracle::signed_distance(body, s0), tiny) << "support(0) = " << scenes::vec<double>(s0) << " is not in the shape";
}

TYPED_TEST(SupportMapping, EveryShapeTypeMatchesDenseSamplesAndItsClosedForm) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("support all kinds ") + scenes::scalar_name<S>()));
  for (Kind k : scenes::kAllKinds) {
    for (int i = 0; i < 12; ++i) {
      const auto rs = scenes::random_shape<S>(k, rng);
      const Body body = oracle::make_body(rs.shape, Pose<S>::identity(), rs.hull_local);
      certify_support(rs.shape, body, rng, oracle::kind_name(k));
    }
  }
}

TYPED_TEST(SupportMapping, DegenerateSizesStillGivePointsOfTheShape) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("support degenerate ") + scenes::scalar_name<S>()));
  const Shape<S> shapes[] = {
      Sphere<S>{S(0)},
      Box<S>{Vec3<S>(1, 0, 0.5)},  // a rectangle
      Box<S>{Vec3<S>(0, 0, 0)},
      Capsule<S>{S(0.5), S(0)},    // a ball
      Capsule<S>{S(0), S(1)},      // a segment
      Cylinder<S>{S(1), S(0)},     // a disc
      Cylinder<S>{S(0), S(1)},     // a segment
      Cone<S>{S(1), S(0)},         // a disc
      Cone<S>{S(0), S(1)},         // a segment
      Segment<S>{Vec3<S>(1, 2, 3), Vec3<S>(1, 2, 3)},
      Triangle<S>{Vec3<S>(0, 0, 0), Vec3<S>(1, 1, 1), Vec3<S>(2, 2, 2)},  // collinear
  };
  for (const Shape<S>& shape : shapes) certify_support(shape, oracle::make_body(shape, Pose<S>::identity()), rng, "degenerate");
}

/// Minkowski sums and transformed shapes of any parts: their support is the sum of the parts'
/// supports, and the transformed support is the rotated support of the rotated direction.
TYPED_TEST(SupportMapping, CompositesCombineTheirPartsSupports) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("support composites ") + scenes::scalar_name<S>()));
  for (int i = 0; i < 60; ++i) {
    const Kind ka = scenes::kAllKinds[rng.index(10)], kb = scenes::kAllKinds[rng.index(10)];
    const auto pa = std::make_shared<const Shape<S>>(scenes::random_shape<S>(ka, rng).shape);
    const auto pb = std::make_shared<const Shape<S>>(scenes::random_shape<S>(kb, rng).shape);
    const Pose<S> pose = scenes::make_pose<S>(rng.in_cube(2), rng.rotation());
    const Shape<S> sum = MinkowskiShape<S>{pa, pb};
    const Shape<S> moved = TransformedShape<S>{pa, pose};
    const Body body_a = oracle::make_body(*pa, Pose<S>::identity()), body_b = oracle::make_body(*pb, Pose<S>::identity());
    const Body body_moved = oracle::make_body(*pa, pose);
    const double tiny = support_tolerance<S>(4);
    for (const V& d : test_directions(rng, 50)) {
      const V u = vd(Vec3<S>(d.cast<S>())).normalized();
      const double expected_sum = oracle::support_value(body_a, u) + oracle::support_value(body_b, u);
      EXPECT_NEAR(u.dot(vd(support(sum, Vec3<S>(d.cast<S>())))), expected_sum, tiny)
          << scenes::describe(sum) << " along " << scenes::vec<double>(d);
      const V s = vd(support(moved, Vec3<S>(d.cast<S>())));
      EXPECT_NEAR(u.dot(s), oracle::support_value(body_moved, u), tiny) << scenes::describe(moved);
      EXPECT_LE(oracle::signed_distance(body_moved, s), tiny) << "transformed support is not in the moved shape";
    }
  }
}

/// A direction's length does not matter, however small or large, as long as it is not zero: the
/// header promises "d need not be unit". Lengths whose square underflows or overflows the scalar
/// (below about 1e-19 or above 1e19 in float, 1e-154 / 1e154 in double) currently break the
/// shapes that normalise d (sphere, capsule, cylinder, cone): they answer the zero-direction
/// fallback or the centre. Kept failing on purpose; see the report.
TYPED_TEST(SupportMapping, DirectionLengthDoesNotMatterAtTheExtremesOfTheScalarRange) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("support extremes ") + scenes::scalar_name<S>()));
  const S tiny_len = std::sqrt(std::numeric_limits<S>::min()) / S(16);
  const S huge_len = std::sqrt(std::numeric_limits<S>::max()) * S(16);
  for (Kind k : {Kind::sphere, Kind::box, Kind::capsule, Kind::cylinder, Kind::cone, Kind::hull}) {
    const auto rs = scenes::random_shape<S>(k, rng);
    const Body body = oracle::make_body(rs.shape, Pose<S>::identity(), rs.hull_local);
    for (int i = 0; i < 20; ++i) {
      const V u = vd(Vec3<S>(rng.unit().cast<S>()));
      for (S len : {tiny_len, huge_len}) {
        const Vec3<S> d = (u * double(len)).cast<S>();
        const V s = vd(support(rs.shape, d));
        EXPECT_NEAR(u.normalized().dot(s), oracle::support_value(body, u), support_tolerance<S>(2))
            << scenes::describe(rs.shape) << " along " << scenes::vec<double>(u) << " scaled by " << scenes::num(len);
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hulls
// ---------------------------------------------------------------------------------------------

template <class S>
std::vector<Vec3<S>> to_cloud(const std::vector<V>& pts) {
  std::vector<Vec3<S>> out;
  for (const V& p : pts) out.push_back(p.cast<S>());
  return out;
}

/// Sorted copy of points, for comparing vertex sets.
std::vector<V> sorted(std::vector<V> pts) {
  std::sort(pts.begin(), pts.end(), [](const V& a, const V& b) { return std::lexicographical_compare(a.data(), a.data() + 3, b.data(), b.data() + 3); });
  return pts;
}

template <class S>
std::vector<V> vertices_of(const Hull<S>& h) {
  std::vector<V> out;
  for (const auto& v : h.vertices) out.push_back(vd(v));
  return out;
}

/// The hull of a cloud equals the brute-force hull: same vertex set (both are input points, so
/// compared exactly), same number of faces, unit normals with every point inside, each face plane
/// through at least three vertices, and an adjacency that is symmetric and holds every true edge.
template <class S>
void expect_hull_matches_brute_force(const std::vector<Vec3<S>>& cloud, const std::string& what) {
  SCOPED_TRACE(what);
  std::vector<V> cd;
  for (const auto& p : cloud) cd.push_back(vd(p));
  const oracle::Polytope brute = oracle::polytope_from_points(cd);
  const HullBuild<S> built = Hull<S>::build(cloud);
  ASSERT_TRUE(built.ok()) << built.error;
  const Hull<S>& h = built.hull;
  EXPECT_EQ(h.dimension, brute.dimension);
  EXPECT_EQ(sorted(vertices_of(h)), sorted(brute.vertices)) << "hull vertices differ from the extreme points";
  double extent = 0;
  for (const V& p : cd) extent = std::max(extent, p.norm());
  const double tiny = support_tolerance<S>(extent);
  if (brute.dimension == 3) {
    EXPECT_EQ(h.faces.size(), brute.planes.size()) << "one plane per face";
    for (const Plane<S>& f : h.faces) {
      EXPECT_NEAR(vd(f.normal).norm(), 1.0, tiny);
      int on = 0;
      for (const V& p : cd) EXPECT_LE(vd(f.normal).dot(p) - double(f.offset), tiny) << "a point lies outside a face plane";
      for (const auto& v : h.vertices) on += std::abs(vd(f.normal).dot(vd(v)) - double(f.offset)) <= tiny;
      EXPECT_GE(on, 3) << "a face plane through fewer than three vertices";
    }
  } else {
    EXPECT_TRUE(h.faces.empty()) << "a flat hull has no face planes";
  }
  // Adjacency: CSR shape, symmetric, and containing every edge of the true hull.
  ASSERT_EQ(h.neighbor_offset.size(), h.vertices.size() + 1);
  const int n = static_cast<int>(h.vertices.size());
  auto adjacent = [&](int i, int j) {
    for (int k = h.neighbor_offset[i]; k < h.neighbor_offset[i + 1]; ++k)
      if (h.neighbors[k] == j) return true;
    return false;
  };
  for (int i = 0; i < n; ++i)
    for (int k = h.neighbor_offset[i]; k < h.neighbor_offset[i + 1]; ++k) {
      const int j = h.neighbors[k];
      ASSERT_TRUE(j >= 0 && j < n && j != i) << "bad neighbour index";
      EXPECT_TRUE(adjacent(j, i)) << "adjacency is not symmetric";
    }
  auto index_of = [&](const V& p) {
    for (int i = 0; i < n; ++i)
      if (vd(h.vertices[i]) == p) return i;
    return -1;
  };
  for (const auto& e : brute.edges) {
    const int i = index_of(brute.vertices[e[0]]), j = index_of(brute.vertices[e[1]]);
    if (i >= 0 && j >= 0) {
      EXPECT_TRUE(adjacent(i, j)) << "a hull edge is missing from the adjacency";
    }
  }
}

TYPED_TEST(SupportMapping, HullOfRandomCloudEqualsBruteForceHull) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("hull brute ") + scenes::scalar_name<S>()));
  for (int i = 0; i < 40; ++i) {
    std::vector<V> pts;
    const int n = 4 + rng.index(50);
    for (int k = 0; k < n; ++k) pts.push_back(rng.uniform() < 0.6 ? rng.unit() : rng.in_cube(0.6));
    expect_hull_matches_brute_force<S>(to_cloud<S>(pts), "random cloud of " + std::to_string(n));
  }
}

TYPED_TEST(SupportMapping, HullOfDegenerateCloudsHasTheRightDimensionAndVertices) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("hull degenerate ") + scenes::scalar_name<S>()));
  // Dyadic coordinates, so float and double clouds are exactly collinear or coplanar.
  const V origin(0.5, -0.25, 0.125);
  const V u(0.25, 0.5, -0.5), w(0.5, -0.25, 0.25);
  // Single point, repeated.
  {
    const std::vector<V> pts(6, origin);
    const auto b = Hull<S>::build(to_cloud<S>(pts));
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b.hull.dimension, 0);
    EXPECT_EQ(vertices_of(b.hull), std::vector<V>{vd(Vec3<S>(origin.cast<S>()))});
  }
  // Collinear, shuffled, with repeats: the two ends.
  {
    std::vector<V> pts;
    for (int k = 0; k <= 10; ++k) pts.push_back(origin + (k % 2 ? 0.125 * k : -0.0625 * k) * u);
    pts.push_back(pts[3]);
    expect_hull_matches_brute_force<S>(to_cloud<S>(pts), "collinear");
    const auto b = Hull<S>::build(to_cloud<S>(pts));
    EXPECT_EQ(b.hull.dimension, 1);
    EXPECT_EQ(b.hull.vertices.size(), 2u);
  }
  // Coplanar: a 5x5 grid on a tilted plane with repeats and interior points: the four corners.
  {
    std::vector<V> pts;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) pts.push_back(origin + 0.25 * i * u + 0.25 * j * w);
    pts.push_back(pts[0]);
    pts.push_back(pts[24]);
    expect_hull_matches_brute_force<S>(to_cloud<S>(pts), "coplanar grid");
    const auto b = Hull<S>::build(to_cloud<S>(pts));
    EXPECT_EQ(b.hull.dimension, 2);
    EXPECT_EQ(b.hull.vertices.size(), 4u);
  }
  // A cube with repeated corners, face centres, edge midpoints and interior points: 8 vertices,
  // 6 faces.
  {
    std::vector<V> pts;
    for (int i = 0; i < 8; ++i) pts.emplace_back(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
    for (int i = 0; i < 8; ++i) pts.push_back(pts[i]);
    for (int a = 0; a < 3; ++a)
      for (double s : {-1.0, 1.0}) pts.push_back(s * V::Unit(a));
    for (int a = 0; a < 3; ++a) pts.push_back(V::Ones() - V::Unit(a));
    for (int k = 0; k < 20; ++k) pts.push_back(rng.in_cube(0.9));
    expect_hull_matches_brute_force<S>(to_cloud<S>(pts), "cube with extra points");
    const auto b = Hull<S>::build(to_cloud<S>(pts));
    EXPECT_EQ(b.hull.dimension, 3);
    EXPECT_EQ(b.hull.vertices.size(), 8u);
    EXPECT_EQ(b.hull.faces.size(), 6u);
  }
  // A tetrahedron given twice.
  {
    const std::vector<V> tet = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(0, 0, 1)};
    std::vector<V> pts = tet;
    pts.insert(pts.end(), tet.begin(), tet.end());
    expect_hull_matches_brute_force<S>(to_cloud<S>(pts), "tetrahedron twice");
  }
  // Invalid clouds.
  {
    const auto empty = Hull<S>::build(std::vector<Vec3<S>>{});
    EXPECT_EQ(empty.status, Status::invalid_input);
    EXPECT_FALSE(empty.error.empty());
    std::vector<Vec3<S>> bad = {Vec3<S>(0, 0, 0), Vec3<S>(1, 0, 0), Vec3<S>(0, std::numeric_limits<S>::quiet_NaN(), 0)};
    const auto nan = Hull<S>::build(bad);
    EXPECT_EQ(nan.status, Status::invalid_input);
    EXPECT_EQ(nan.error.rfind("points.2", 0), 0u) << nan.error;
  }
}

/// The scanning support and the hill-climbing support give the same support value from any
/// start vertex, and both equal the maximum over the cloud; hulls larger than flat_scan_max use
/// the climb by default, smaller ones the scan.
TYPED_TEST(SupportMapping, HullScanAndClimbAgreeWithTheCloudMaximum) {
  using S = TypeParam;
  scenes::Rng rng(scenes::seed_of(std::string("hull scan climb ") + scenes::scalar_name<S>()));
  for (int i = 0; i < 30; ++i) {
    std::vector<V> pts;
    const int n = 5 + rng.index(300);
    const V stretch(rng.uniform(0.1, 2), rng.uniform(0.1, 2), rng.uniform(0.1, 2));
    for (int k = 0; k < n; ++k) pts.push_back((rng.uniform() < 0.8 ? rng.unit() : rng.in_cube(0.5)).cwiseProduct(stretch));
    const auto cloud = to_cloud<S>(pts);
    const auto b = Hull<S>::build(cloud);
    ASSERT_TRUE(b.ok());
    const Hull<S>& h = b.hull;
    const double tiny = support_tolerance<S>(2);
    const int nv = static_cast<int>(h.vertices.size());
    for (const V& d : test_directions(rng, 200)) {
      const Vec3<S> ds = d.cast<S>();
      const V u = vd(ds).normalized();
      double cloud_max = -oracle::kInf;
      for (const auto& p : cloud) cloud_max = std::max(cloud_max, u.dot(vd(p)));
      int scan_hint = rng.index(nv + 1) - 1, climb_hint = rng.index(nv + 1) - 1;
      const V scan = vd(h.support_scan(ds, scan_hint));
      const V climb = vd(h.support_climb(ds, climb_hint));
      EXPECT_NEAR(u.dot(scan), cloud_max, tiny) << "scan misses the maximum, " << nv << " vertices";
      EXPECT_NEAR(u.dot(climb), cloud_max, tiny) << "climb stops short of the maximum, " << nv << " vertices";
      EXPECT_TRUE(scan_hint >= 0 && scan_hint < nv && vd(h.vertices[scan_hint]) == scan) << "scan hint is not the vertex";
      EXPECT_TRUE(climb_hint >= 0 && climb_hint < nv && vd(h.vertices[climb_hint]) == climb) << "climb hint is not the vertex";
      EXPECT_NEAR(u.dot(vd(h.support(ds))), cloud_max, tiny);
    }
  }
}

}  // namespace
