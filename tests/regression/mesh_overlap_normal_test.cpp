// Regression: a float mesh cast answered an overlap with a normal 0.3% off unit length.
//
// Found by fuzzing (fuzz_mesh, 2026-12-01): a point cast with target distance 4 (a sphere of
// radius 4) whose centre lay on a large triangle's plane. The overlap pass's closest point came
// 1.4e-22 from the centre, only by the rounding of the projection; the normal was
// (centre − point) / ‖centre − point‖, and in float that squared norm (2e-44) is denormal, so its
// square root had lost bits. Now the normal of a contact inside the face is the face normal on
// the centre's side (exact), and an edge's or a vertex's is normalised by detail::unit_direction,
// unit length however near the centre is.
#include <impact/mesh.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace {

using namespace impact;

TEST(MeshOverlapNormal, FuzzFindingCentreOnALargeTriangleFloat) {
  TriangleMesh<float> m;
  m.vertices = {{-4.0f, -4.0f, -4.0f}, {-2.5f, 1e12f, 0.25f}, {1e12f, 0.25f, 0.25f}};
  m.triangles = {{0, 1, 2}};
  ASSERT_EQ(build_mesh(m), "");
  MeshShapeOptions<float> opt;
  opt.target_distance = 4.0f;
  opt.back_faces = BackFaces::ignore;
  const Pose<float> pose{{0.0f, 1e-9f, -4.0f}, Quat<float>::Identity()};
  const MeshCastHit<float> h = mesh_shape_cast(m, Shape<float>{Point<float>{}}, pose, Vec3<float>(-4, -4, -4), opt);
  ASSERT_EQ(h.status, Status::initially_overlapping);
  EXPECT_EQ(h.feature, MeshFeature::face);
  EXPECT_NEAR(h.normal.norm(), 1.0f, 1e-6f);
  // Inside the face the normal is the face's, on the centre's side.
  EXPECT_GT(std::abs(h.normal.dot(m.normals()[0])), 1.0f - 1e-6f);
}

/// Centres placed a tiny distance (1e-30 to 1e-3, log-uniform) from a random point of a random
/// triangle (inside the face, on an edge or at a vertex), overlapping a sphere of radius 1: every
/// overlap's normal is unit length, the face normal inside the face, and points from the contact
/// point toward the centre (or is the face normal when they coincide). Half of the centres are
/// moved out to a distance in [0, 2] instead, so that some of the casts miss.
template <class S>
void battery(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), e(-30.0, -3.0), w(0.0, 1.0);
  int overlaps = 0, misses = 0;
  for (int i = 0; i < 3000; ++i) {
    const double scale = std::pow(10.0, 4.0 * w(rng));
    TriangleMesh<S> m;
    for (int k = 0; k < 3; ++k) m.vertices.push_back(Vec3<double>(u(rng), u(rng), u(rng)).cast<S>() * S(scale));
    m.triangles = {{0, 1, 2}};
    if (!build_mesh(m).empty()) continue;
    if (m.degenerate()[0]) continue;
    // A point of the triangle: a vertex, an edge point or a face point.
    double b[3] = {w(rng), w(rng), w(rng)};
    const int where = i % 3;
    if (where == 0) b[0] = 1, b[1] = b[2] = 0;
    if (where == 1) b[2] = 0;
    const double sum = b[0] + b[1] + b[2];
    Vec3<double> on = Vec3<double>::Zero();
    for (int k = 0; k < 3; ++k) on += (b[k] / sum) * m.vertices[k].template cast<double>();
    const Vec3<double> dir = Vec3<double>(u(rng), u(rng), u(rng)).normalized();
    const double off = (i / 3) % 2 == 1 ? 2.0 * w(rng) : std::pow(10.0, e(rng));
    const Vec3<S> centre = (on + off * dir).template cast<S>();
    const MeshCastHit<S> h = mesh_sphere_cast(m, centre, S(1), Vec3<S>(S(0), S(0), S(0)), {});
    ASSERT_NE(h.status, Status::invalid_input) << h.error;
    if (h.status == Status::miss) {
      ++misses;
      continue;
    }
    ASSERT_EQ(h.status, Status::initially_overlapping);
    ++overlaps;
    const Vec3<double> n = h.normal.template cast<double>();
    ASSERT_NEAR(n.norm(), 1.0, 1e-6) << i;
    const Vec3<double> face = m.normals()[0].template cast<double>();
    const Vec3<double> v = centre.template cast<double>() - h.point.template cast<double>();
    if (h.feature == MeshFeature::face) {
      ASSERT_GT(std::abs(n.dot(face)), 1.0 - 1e-6) << i;
    } else if (v.squaredNorm() > 0) {
      // From the contact point toward the centre.
      ASSERT_GT(n.dot(v.normalized()), 1.0 - 1e-4) << i;
    } else {
      ASSERT_GT(std::abs(n.dot(face)), 1.0 - 1e-6) << i;
    }
  }
  EXPECT_GT(overlaps, 1000);
  EXPECT_GT(misses, 200);
}

TEST(MeshOverlapNormal, TinyOffsetsFloat) { battery<float>(11); }
TEST(MeshOverlapNormal, TinyOffsetsDouble) { battery<double>(12); }

}  // namespace
