// The closest point of a sliver triangle (found by fuzzing levels, 2026-11-25: a triangle 1e11
// long and 6 wide, a blast centre 0.075 from it, and the closest point by Ericson's
// Voronoi-region tests was a vertex 476 away, so `carve` kept a triangle inside its blast).
// Truth by construction: a point of the triangle q (on its face or on an edge's interior) and a
// point p placed off it along the face normal, or outward from the edge within the plane and
// along the normal, so that q is p's closest point and |p − q| is known. Slivers 1e2..1e8 long and
// 0.1..10 wide in random orientations, p at distances 1e-3..1e3, anywhere along the sliver; 2,000
// cases of each.
// The bound is the conditioning of the question in double, not a fudge: a sliver's plane, computed
// from its corners, turns by up to about eps·L/w (length L, width w), so over the face the distance
// is uncertain by that angle times the distance along the sliver, eps·L²/w; the test allows 16
// times that (at most 0.35 here), against errors of the order of L (4.6e7) from the old tests.
#include "scenes.hpp"

#include "mesh/closest_on_triangle.hpp"

#include <impact/level.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using namespace impact;
using scenes::Rng;
using V = Eigen::Vector3d;

struct Sliver {
  V a, b, c;
  double length, width;
  /// What double can tell of a point's distance from it (see the top of the file).
  double bound(const V& p) const {
    const double eps = std::numeric_limits<double>::epsilon();
    return 16 * eps * (length * length / width + std::max(a.cwiseAbs().maxCoeff(), p.cwiseAbs().maxCoeff()));
  }
};

Sliver random_sliver(Rng& rng) {
  const double length = std::pow(10.0, rng.uniform(2, 8)), width = std::pow(10.0, rng.uniform(-1, 1));
  const V along = rng.unit();
  V side = along.cross(rng.unit()).normalized();
  const V a = rng.in_cube(10);
  const V b = a + length * along;
  const V c = a + rng.uniform(0, 1) * length * along + width * side;
  return {a, b, c, length, width};
}

TEST(SliverTriangles, ClosestPointOverTheFace) {
  Rng rng(scenes::seed_of("sliver face"));
  for (int i = 0; i < scenes::battery(2000); ++i) {
    const Sliver t = random_sliver(rng);
    const V n = (t.b - t.a).cross(t.c - t.a).normalized();
    // A barycentric point well inside (each weight at least 0.1).
    double u = rng.uniform(0.1, 0.8), v = rng.uniform(0.1, 0.9 - u);
    const V q = t.a + u * (t.b - t.a) + v * (t.c - t.a);
    const double h = std::pow(10.0, rng.uniform(-3, 3)) * (rng.uniform() < 0.5 ? -1 : 1);
    const V p = q + h * n;
    MeshFeature f;
    const V got = mesh_detail::closest_on_triangle(p, t.a, t.b, t.c, f);
    ASSERT_NEAR((p - got).norm(), std::abs(h), t.bound(p)) << i;
    ASSERT_EQ(f, MeshFeature::face) << i;
  }
}

TEST(SliverTriangles, ClosestPointOffTheLongEdge) {
  Rng rng(scenes::seed_of("sliver edge"));
  for (int i = 0; i < scenes::battery(2000); ++i) {
    const Sliver t = random_sliver(rng);
    const V ab = t.b - t.a;
    const V n = ab.cross(t.c - t.a).normalized();
    V out = n.cross(ab).normalized();  // in the plane, perpendicular to ab
    if (out.dot(t.c - t.a) > 0) out = -out;  // away from c
    const V q = t.a + rng.uniform(0.05, 0.95) * ab;
    const double h1 = std::pow(10.0, rng.uniform(-3, 3)), h2 = std::pow(10.0, rng.uniform(-3, 3)) * (rng.uniform() < 0.5 ? -1 : 1);
    const V p = q + h1 * out + (rng.uniform() < 0.5 ? h2 : 0.0) * n;
    MeshFeature f;
    const V got = mesh_detail::closest_on_triangle(p, t.a, t.b, t.c, f);
    ASSERT_NEAR((p - got).norm(), (p - q).norm(), t.bound(p)) << i;
    ASSERT_EQ(f, MeshFeature::edge) << i;
  }
}

// The level the fuzzer built, reduced to the triangle and the blast: the triangle goes.
TEST(SliverTriangles, ACarveRemovesTheSliverItsBlastReaches) {
  Level<double> L;
  Room<double> room;
  room.mesh.vertices = {V(100580329991.98581, -4, -4), V(-4, -4, -4), V(4, -2.5, 0.75), V(0, 0, 100), V(1, 0, 100),
                        V(0, 1, 100)};
  room.mesh.triangles = {{0, 1, 2}, {3, 4, 5}};
  room.cell_lo = V(-1e12, -1e12, -1e12);
  room.cell_hi = V(1e12, 1e12, 1e12);
  L.rooms.push_back(room);
  ASSERT_EQ(build_level(L), "");
  const CarveReport rep = carve(L, V(16580890.19082121, -4, -3.75), 476.16892605615186);
  ASSERT_EQ(rep.error, "");
  ASSERT_EQ(rep.removed.size(), 1u);
  EXPECT_EQ(rep.removed[0], 1u);
  ASSERT_EQ(L.rooms[0].mesh.triangles.size(), 1u);
  EXPECT_EQ(L.rooms[0].mesh.triangles[0], (std::array<std::uint32_t, 3>{3, 4, 5}));
}

// The binned SAH build over triangle centres 1e-309 apart along x (a level fuzz input): the bins'
// scale 16 / extent is infinite there and the lowest centre's 0 · ∞ a NaN, whose conversion to a
// bin index was undefined (UBSan stopped the fuzzer). Two parallel triangles, x = 0 and x = 1e-309,
// one per leaf: the tree still answers every ray as brute force does.
TEST(SliverTriangles, SahBinsOverASubnormalSpreadOfCentres) {
  const double d = 1e-309;
  ASSERT_GT(d, 0.0);
  TriangleMesh<double> m;
  m.vertices = {V(0, -1, -1), V(0, 1, -1), V(0, 0, 1), V(d, -1, -1), V(d, 1, -1), V(d, 0, 1), V(0, -1, 2), V(0, 1, 2), V(0, 0, 4)};
  m.triangles = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}};
  ASSERT_EQ(build_mesh(m, {.split = MeshSplit::sah, .leaf_size = 1}), "");
  Rng rng(20261127);
  int hits = 0;
  for (int i = 0; i < 200; ++i) {
    const V o(i % 2 ? -2.0 : 2.0, rng.uniform(-1.2, 1.2), rng.uniform(-1.5, 4.5));
    const Ray<double> ray{o, V(-o.x() * 2, rng.uniform(-0.1, 0.1), rng.uniform(-0.1, 0.1))};
    for (BackFaces bf : {BackFaces::collide, BackFaces::ignore}) {
      const MeshRayHit<double> tree = mesh_ray_cast(m, ray, {.back_faces = bf});
      const MeshRayHit<double> brute = mesh_ray_cast(m, ray, {.back_faces = bf, .brute_force = true});
      ASSERT_EQ(tree.status, brute.status) << i;
      if (tree.status != Status::hit) continue;
      ++hits;
      EXPECT_EQ(tree.triangle, brute.triangle) << i;
      EXPECT_EQ(tree.lambda, brute.lambda) << i;
    }
  }
  EXPECT_GT(hits, 60);  // 93 of 400 answers (back faces ignored half the time)
  EXPECT_LT(hits, 350);
}

}  // namespace
