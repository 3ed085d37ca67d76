// Regression: the GJK ray cast called a shape 7.8 away from a sliver triangle "initially
// overlapping" for a target distance of 4.
//
// Found by fuzzing (fuzz_mesh, mesh_shape_cast in double, target 4): a Minkowski sum of a
// one-point hull at (−4, −0.25, −3950.2) and a cone of radius 1e-300, at (−4, −4, −4), against a
// triangle with corners out to 1e9. The tree of bins culled the triangle (its box is 6 away) and
// answered miss; brute force ran the shape cast and got initially_overlapping. The GJK ray cast
// stops with a hit at λ = 0 when rounding stalls Johnson's sub-algorithm on the sliver's
// simplex, and the cast took any hit at λ = 0 as an overlap. Such a claim is now checked by GJK
// distance and, refuted, the cast is answered by conservative advancement.
//
// The battery casts a point (a one-point hull, so GJK runs) from near the short end of random
// slivers up to 1e9 long, against the point–triangle distance computed in long double by
// projection: overlapping at t = 0 exactly when within the target, a hit never before the time the
// distance reaches the target along a straight path (never late is the other tests' business).
#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

namespace {

using namespace impact;
using V = Vec3<double>;
using L = Eigen::Matrix<long double, 3, 1>;

Shape<double> point_hull(const V& p) {
  std::vector<V> pts{p};
  auto built = Hull<double>::build(pts);
  EXPECT_TRUE(built.ok());
  return Shape<double>(std::move(built.hull));
}

TEST(RaycastStallOverlap, FuzzFinding) {
  const Shape<double> cone = Cone<double>{1e-300, 1e-9};
  const Shape<double> s = MinkowskiShape<double>{std::make_shared<const Shape<double>>(point_hull(V(-4, -0.25, -3950.1632248402179))),
                                                 std::make_shared<const Shape<double>>(cone)};
  Pose<double> pose;
  pose.position = V(-4, -4, -4);
  const V v2(2, 53991662.182601154, 7.478560914683069e-08), v3(-2, -2.5, -1035071430.342055),
      v1(-1.5, -3.6709790243156563e-07, 0.25);
  const Shape<double> tri = Triangle<double>{v2, v3, v1};
  ShapeCastOptions<double> o;
  o.target_distance = 4;
  EXPECT_EQ(shape_cast<double>(s, pose, V::Zero(), tri, Pose<double>{}, V::Zero(), o).status, Status::miss);
  // Through the mesh cast: the tree and brute force agree.
  TriangleMesh<double> m;
  m.vertices = {v2, v3, v1};
  m.triangles = {{0, 1, 2}};
  ASSERT_EQ(build_mesh(m), "");
  for (bool brute : {false, true}) {
    MeshShapeOptions<double> mo;
    mo.target_distance = 4;
    mo.brute_force = brute;
    EXPECT_EQ(mesh_shape_cast(m, s, pose, V(-4, -4, -4), mo).status, Status::miss) << "brute force " << brute;
  }
}

/// Distance from p to triangle (a, b, c) in long double: the plane when p projects inside, else
/// the nearest of the three edges.
long double point_triangle(const L& p, const L& a, const L& b, const L& c) {
  auto seg = [&](const L& x, const L& y) {
    const L e = y - x;
    long double t = (p - x).dot(e) / e.squaredNorm();
    t = std::clamp(t, 0.0L, 1.0L);
    return (x + t * e - p).norm();
  };
  const L n = (b - a).cross(c - a);
  const L q = p - n * ((p - a).dot(n) / n.squaredNorm());
  const bool inside = (b - a).cross(q - a).dot(n) >= 0 && (c - b).cross(q - b).dot(n) >= 0 && (a - c).cross(q - c).dot(n) >= 0;
  if (inside) return (p - q).norm();
  return std::min({seg(a, b), seg(b, c), seg(c, a)});
}

TEST(RaycastStallOverlap, SliversAgainstLongDoubleDistance) {
  std::mt19937_64 rng(77);
  std::uniform_real_distribution<double> u(-1, 1), far_exp(5, 9), dist(0.5, 10);
  const double target = 4;
  int overlaps = 0, apart = 0;
  for (int i = 0; i < 3000; ++i) {
    // A sliver: two corners near the origin, one 1e5..1e9 away.
    const V a(u(rng), u(rng), u(rng)), b = a + V(u(rng), u(rng), u(rng)) * 2;
    const V dir = V(u(rng), u(rng), u(rng)).normalized();
    const V c = a + dir * std::pow(10.0, far_exp(rng)) + V(u(rng), u(rng), u(rng));
    // The point: near the short end, at a random distance from a point of the short edge.
    const V on = a + (b - a) * (0.5 + 0.5 * u(rng));
    const V p = on + V(u(rng), u(rng), u(rng)).normalized() * dist(rng);
    const long double d = point_triangle(p.cast<long double>(), a.cast<long double>(), b.cast<long double>(), c.cast<long double>());
    if (std::abs(static_cast<double>(d) - target) < 1e-3) continue;  // too near the target to call
    const Shape<double> s = point_hull(V::Zero());
    Pose<double> pose;
    pose.position = p;
    const Shape<double> tri = Triangle<double>{a, b, c};
    ShapeCastOptions<double> o;
    o.target_distance = target;
    const CastHit<double> h = shape_cast<double>(s, pose, V::Zero(), tri, Pose<double>{}, V::Zero(), o);
    const bool within = static_cast<double>(d) <= target;
    ASSERT_EQ(h.status, within ? Status::initially_overlapping : Status::miss) << "case " << i << " distance " << static_cast<double>(d);
    (within ? overlaps : apart)++;
  }
  EXPECT_GT(overlaps, 600);
  EXPECT_GT(apart, 600);
}

}  // namespace
