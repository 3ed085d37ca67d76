// Regression: thin spheres passing near an edge were reported touching it (float).
//
// Found by the tree-vs-brute-force battery (an icosphere, SAH bins, float): a sphere of radius
// 4.5e-5 was reported touching an edge at a time where its centre was 6e-4 from the edge. The
// edge and vertex quadratics computed their discriminant as b² − 4ac, whose cancellation near
// tangency moves the tangent distance by about √ε times the scene's size (3e-4 · 1.5 in float).
// The discriminant is now |d|²R² − |d × w|² (Lagrange's identity), accurate to ε times the size.
// Closed form here: a sphere whose centre passes at distance D from an edge touches it iff
// D ≤ r, at the time its distance to the edge's line is r.
#include <impact/mesh.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace {

using namespace impact;

TEST(MeshEdgeGrazePrecision, ThinSpheresTouchAnEdgeOnlyWithinTheirRadius) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(-1, 1);
  int hits = 0, misses = 0;
  for (int i = 0; i < 2000; ++i) {
    // A triangle with edge a–b; the sphere crosses the edge's line perpendicularly, on the far
    // side of the triangle, at distance D (above or below the edge's outward side).
    const Vec3<double> a(u(rng), u(rng), u(rng)), b = a + Vec3<double>(u(rng), u(rng), u(rng)).normalized() * 1.5;
    const Vec3<double> e = (b - a).normalized();
    Vec3<double> side = e.cross(Vec3<double>(u(rng), u(rng), u(rng))).normalized();  // ⊥ e
    const Vec3<double> c = 0.5 * (a + b) - side * 0.8;  // the triangle lies on the −side half
    TriangleMesh<float> m;
    m.vertices = {a.cast<float>(), b.cast<float>(), c.cast<float>()};
    m.triangles = {{0, 1, 2}};
    ASSERT_EQ(build_mesh(m), "");
    const double r = 1e-4;
    const double D = i % 2 ? 0.5 * r : 2.0 * r;  // passes within (hit) or beyond (miss) its radius
    const Vec3<double> up = e.cross(side);        // ⊥ e and side: the sphere moves along `up`
    const Vec3<double> at = 0.5 * (a + b) + side * D;  // closest approach of the centre to the edge
    const Vec3<double> start = at - up * 1.0, path = up * 2.0;
    const auto h = mesh_sphere_cast(m, Vec3<float>(start.cast<float>()), float(r), Vec3<float>(path.cast<float>()),
                                    {.back_faces = BackFaces::collide});
    if (D > r) {
      EXPECT_EQ(h.status, Status::miss) << i;
      ++misses;
    } else {
      ASSERT_EQ(h.status, Status::hit) << i;
      EXPECT_EQ(h.feature, MeshFeature::edge);
      const double t = (1.0 - std::sqrt(r * r - D * D)) / 2.0;  // closed form
      EXPECT_NEAR(h.toi, t, 2e-6) << i;
      ++hits;
    }
  }
  EXPECT_EQ(hits, 1000);
  EXPECT_EQ(misses, 1000);
}

}  // namespace
