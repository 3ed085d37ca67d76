// Regression: float sphere casts far from the origin answered NaN.
//
// Found by fuzzing `impact query` (precision "float", coordinates and radii near 1e6–1e12, all
// within the protocol's range): the closest-point test of the overlap pass multiplies dot products
// together, i.e. fourth powers of lengths, which overflow float (3.4e38) beyond lengths of about
// 1e9; inf − inf made a NaN point, and the protocol layer had to turn the answer into
// "internal: the query produced a non-finite number". The closest point (and the quadratics'
// discriminants) are now computed in double for float meshes.
#include <impact/mesh.hpp>

#include <gtest/gtest.h>

#include <random>

namespace {

using namespace impact;

TEST(MeshFloatLargeCoordinates, SphereCastsStayFinite) {
  TriangleMesh<float> m;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> u(-1e12f, 1e12f);
  for (int i = 0; i < 30; ++i) m.vertices.emplace_back(u(rng), u(rng), u(rng));
  for (std::uint32_t i = 0; i + 2 < 30; ++i) m.triangles.push_back({i, i + 1, i + 2});
  ASSERT_EQ(build_mesh(m), "");
  int answered = 0;
  for (int i = 0; i < 500; ++i) {
    const Vec3<float> c(u(rng), u(rng), u(rng));
    const Vec3<float> path = Vec3<float>(u(rng), u(rng), u(rng)) - c;
    const float r = std::abs(u(rng)) * 0.5f;
    for (BackFaces bf : {BackFaces::ignore, BackFaces::collide}) {
      const auto h = mesh_sphere_cast(m, c, r, Vec3<float>(path * 0.4f), {.buffer = 1.0f, .back_faces = bf});
      ASSERT_NE(h.status, Status::invalid_input) << h.error;
      if (h.status == Status::miss) continue;
      ++answered;
      ASSERT_TRUE(std::isfinite(h.toi));
      ASSERT_TRUE(h.point.allFinite()) << i;
      ASSERT_TRUE(h.normal.allFinite()) << i;
      EXPECT_NEAR(h.normal.norm(), 1.0f, 1e-5f);
    }
  }
  EXPECT_GT(answered, 100);
}

}  // namespace
