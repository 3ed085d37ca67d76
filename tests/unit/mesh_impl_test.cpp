// Unit tests of triangle meshes (src/mesh_impl.hpp): ray crossings against closed forms, rays
// aimed exactly at shared edges and vertices of closed meshes (hit, once, at the right place),
// sphere casts against closed forms for face, edge and vertex contacts, the distance buffer,
// initial overlaps, sphere collections, convex shape casts, degenerate triangles and OBJ input.
#include "mesh_scenes.hpp"
#include "scenes.hpp"

#include <impact/mesh.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>

namespace {

using namespace impact;
using impact_scenes::MeshData;
using V = Vec3<double>;

TriangleMesh<double> one_triangle(const V& a, const V& b, const V& c) {
  MeshData d;
  d.vertices = {a, b, c};
  d.triangles = {{0, 1, 2}};
  return impact_scenes::to_mesh<double>(d);
}

// A large triangle in the plane z = 0, front +z.
TriangleMesh<double> floor_triangle() { return one_triangle(V(-10, -10, 0), V(10, -10, 0), V(0, 10, 0)); }

TEST(MeshBuild, PlanesAreUnitFrontNormalsAndDegenerateTrianglesAreFlagged) {
  MeshData d;
  d.vertices = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0), V(2, 2, 2), V(4, 4, 4)};
  d.triangles = {{0, 1, 2}, {0, 3, 4}, {1, 1, 2}};
  const auto m = impact_scenes::to_mesh<double>(d);
  EXPECT_NEAR((m.normals()[0] - V(0, 0, 1)).norm(), 0.0, 1e-15);
  EXPECT_NEAR(m.offsets()[0], 0.0, 1e-15);
  EXPECT_EQ(m.degenerate()[0], 0);
  EXPECT_EQ(m.degenerate()[1], 1);  // collinear corners
  EXPECT_EQ(m.degenerate()[2], 1);  // repeated corner
  EXPECT_EQ(m.packed_triangles(), 1u);
  // A ray through the degenerate triangles' points misses them.
  const auto h = mesh_ray_cast(m, Ray<double>{V(3, 3, 10), V(0, 0, -20)}, {.back_faces = BackFaces::collide});
  EXPECT_EQ(h.status, Status::miss);
}

TEST(MeshBuild, RejectsBadIndicesAndNonFiniteVertices) {
  TriangleMesh<double> m;
  m.vertices = {V(0, 0, 0), V(1, 0, 0), V(0, 1, 0)};
  m.triangles = {{0, 1, 3}};
  EXPECT_EQ(build_mesh(m).rfind("triangles.0.2", 0), 0u);
  m.triangles = {{0, 1, 2}};
  m.vertices[1].y() = std::nan("");
  EXPECT_EQ(build_mesh(m).rfind("vertices.1.1", 0), 0u);
}

TEST(MeshRay, FrontCrossingHitsAtTheClosedFormBackCrossingOnlyWhenCollide) {
  const auto m = floor_triangle();
  const auto h = mesh_ray_cast(m, Ray<double>{V(1, 2, 3), V(0.5, -0.25, -2)}, {.max_lambda = 10});
  ASSERT_EQ(h.status, Status::hit);
  EXPECT_NEAR(h.lambda, 1.5, 1e-15);  // z: 3 − 2λ = 0
  EXPECT_NEAR((h.point - V(1.75, 1.625, 0)).norm(), 0.0, 1e-14);
  EXPECT_EQ(h.normal, m.normals()[0]);
  const Ray<double> up{V(1, 2, -3), V(0, 0, 2)};
  EXPECT_EQ(mesh_ray_cast(m, up, {.max_lambda = 10}).status, Status::miss);
  const auto c = mesh_ray_cast(m, up, {.max_lambda = 10, .back_faces = BackFaces::collide});
  ASSERT_EQ(c.status, Status::hit);
  EXPECT_NEAR(c.lambda, 1.5, 1e-15);
  // max_lambda cuts the ray short; a ray in the plane misses.
  EXPECT_EQ(mesh_ray_cast(m, Ray<double>{V(1, 2, 3), V(0, 0, -2)}, {.max_lambda = 1.4}).status, Status::miss);
  EXPECT_EQ(mesh_ray_cast(m, Ray<double>{V(-20, 0, 0), V(1, 0, 0)}, {.max_lambda = 100, .back_faces = BackFaces::collide}).status,
            Status::miss);
}

/// MeshRayOptions::normal = false: the same crossing (status, λ, point and triangle, bit for bit)
/// with the normal left zero; with the option on, the normal is the hit triangle's unit front
/// normal as build_mesh stored it (normals()). Seeded rays from above a terrain, about half of
/// them reaching it, in float and double (the float walk's leaf answers differently from the
/// double one's).
template <class S>
void expect_normal_option_keeps_the_hit(std::uint64_t seed) {
  const TriangleMesh<S> m = impact_scenes::to_mesh<S>(impact_scenes::terrain(40, 10.0, seed, 2.0), {.split = MeshSplit::sah});
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  int hits = 0;
  constexpr int n = 2000;
  for (int i = 0; i < n; ++i) {
    const Vec3<S> o(S(8 * u(rng)), S(8 * u(rng)), S(4 + 8 * std::abs(u(rng))));
    const Vec3<S> d(S(6 * u(rng)), S(6 * u(rng)), S(-16 * std::abs(u(rng))));
    MeshRayOptions<S> opt{.back_faces = i % 2 ? BackFaces::collide : BackFaces::ignore};
    const MeshRayHit<S> with = mesh_ray_cast(m, Ray<S>{o, d}, opt);
    opt.normal = false;
    const MeshRayHit<S> without = mesh_ray_cast(m, Ray<S>{o, d}, opt);
    ASSERT_EQ(with.status, without.status) << i;
    EXPECT_EQ(without.normal, Vec3<S>::Zero()) << i;
    if (with.status != Status::hit) continue;
    ++hits;
    EXPECT_TRUE(scenes::same_bits(with.lambda, without.lambda)) << i;
    EXPECT_TRUE(scenes::same_bits(with.point, without.point)) << i;
    EXPECT_EQ(with.triangle, without.triangle) << i;
    EXPECT_EQ(with.normal, m.normals()[with.triangle]) << i;
    EXPECT_NEAR(double(with.normal.norm()), 1.0, 1e-6) << i;
  }
  EXPECT_GT(hits, n / 4);
  EXPECT_LT(hits, 3 * n / 4);
}

TEST(MeshRay, WithoutTheNormalOptionTheSameHitAndAZeroNormal) {
  expect_normal_option_keeps_the_hit<float>(7);
  expect_normal_option_keeps_the_hit<double>(8);
}

/// Rays from random outside points aimed exactly at vertices and edge midpoints of a closed cube
/// grid (exact in binary): each hits at λ = 1 (the aimed point), with back faces ignored the exit
/// never counts (from inside: a miss), and with back faces colliding a ray from inside hits once.
TEST(MeshRay, RaysThroughSharedEdgesAndVerticesOfAClosedMeshHitExactlyOnce) {
  const MeshData d = impact_scenes::cube_grid(1.0, 4);
  for (int prec = 0; prec < 2; ++prec) {
    std::mt19937_64 rng(7 + prec);
    std::uniform_real_distribution<double> u(-1, 1);
    const auto md = impact_scenes::to_mesh<double>(d);
    const auto mf = impact_scenes::to_mesh<float>(d);
    int tested = 0;
    for (const auto& t : d.triangles) {
      for (int k = 0; k < 3; ++k) {
        const V a = d.vertices[t[k]], b = d.vertices[t[(k + 1) % 3]];
        for (const V& target : {a, V(0.5 * (a + b))}) {
          V o;
          for (int tries = 0; tries < 50; ++tries) {
            do o = V(u(rng), u(rng), u(rng)) * 4.0;
            while (o.cwiseAbs().maxCoeff() <= 1.5);
            if ((target + 1e-3 * (target - o)).cwiseAbs().maxCoeff() < 1.0) break;
          }
          // Only aim from the outer side of the target's face (else an earlier face is in the way).
          const V dir = target - o;
          // A ray that only grazes the cube at a silhouette edge or corner is tangent, not a
          // crossing (watertightness is about crossings): aim only where the ray enters the solid.
          if ((target + 1e-3 * dir).cwiseAbs().maxCoeff() >= 1.0) continue;
          if (prec == 0) {
            const auto h = mesh_ray_cast(md, Ray<double>{o, dir}, {.max_lambda = 2});
            // The first surface crossed may be another face when the target is hidden; then λ < 1.
            ASSERT_EQ(h.status, Status::hit) << "slipped through at " << target.transpose() << " from " << o.transpose();
            ASSERT_LE(h.lambda, 1.0 + 1e-12);
            const auto bc = mesh_ray_cast(md, Ray<double>{V::Zero(), target}, {.max_lambda = 2, .back_faces = BackFaces::collide});
            ASSERT_EQ(bc.status, Status::hit) << "exit through " << target.transpose() << " slipped";
            EXPECT_NEAR(bc.lambda, 1.0, 1e-12);
            const auto bi = mesh_ray_cast(md, Ray<double>{V::Zero(), target}, {.max_lambda = 2});
            EXPECT_EQ(bi.status, Status::miss) << "exit counted with back faces ignored";
          } else {
            const auto h = mesh_ray_cast(mf, Ray<float>{o.cast<float>(), dir.cast<float>()}, {.max_lambda = 2.f});
            ASSERT_EQ(h.status, Status::hit) << "float slipped through at " << target.transpose();
            const auto bc = mesh_ray_cast(mf, Ray<float>{Vec3<float>::Zero(), target.cast<float>()},
                                          {.max_lambda = 2.f, .back_faces = BackFaces::collide});
            ASSERT_EQ(bc.status, Status::hit);
            EXPECT_NEAR(bc.lambda, 1.0f, 1e-6f);
          }
          ++tested;
        }
      }
    }
    EXPECT_GT(tested, 1000);
  }
}

/// The same on a rotated icosphere, whose vertices are not exact: rays aimed at every vertex and
/// edge midpoint from the centre (back faces colliding) never slip out; from outside they hit.
TEST(MeshRay, RaysAtIcosphereVerticesAndEdgesNeverSlipThrough) {
  const MeshData d = impact_scenes::icosphere(3, 1.3, V(0.1, -0.2, 0.3));
  const auto m = impact_scenes::to_mesh<double>(d);
  const V c(0.1, -0.2, 0.3);
  int n = 0;
  for (const auto& t : d.triangles)
    for (int k = 0; k < 3; ++k) {
      const V a = d.vertices[t[k]], b = d.vertices[t[(k + 1) % 3]];
      for (const V& target : {a, V(0.5 * (a + b))}) {
        const auto in = mesh_ray_cast(m, Ray<double>{c, target - c}, {.max_lambda = 2, .back_faces = BackFaces::collide});
        ASSERT_EQ(in.status, Status::hit);
        EXPECT_NEAR(in.lambda, 1.0, 1e-9);
        const V o = c + 3.0 * (target - c);
        const auto out = mesh_ray_cast(m, Ray<double>{o, target - o}, {.max_lambda = 2});
        ASSERT_EQ(out.status, Status::hit);
        EXPECT_NEAR(out.lambda, 1.0, 1e-9);
        ++n;
      }
    }
  EXPECT_EQ(n, 6 * static_cast<int>(d.triangles.size()));
}

// ---- spheres -----------------------------------------------------------------------------------

TEST(MeshSphere, FaceContactMatchesTheClosedForm) {
  const auto m = floor_triangle();
  // Centre at height 3, radius 0.5, falling 5: contact when 3 − 5t = 0.5.
  const auto h = mesh_sphere_cast(m, V(1, 1, 3), 0.5, V(0.3, 0.1, -5));
  ASSERT_EQ(h.status, Status::hit);
  EXPECT_EQ(h.feature, MeshFeature::face);
  EXPECT_NEAR(h.toi, 0.5, 1e-15);
  EXPECT_NEAR((h.point - V(1.15, 1.05, 0)).norm(), 0.0, 1e-14);
  EXPECT_NEAR((h.normal - V(0, 0, 1)).norm(), 0.0, 1e-15);
  // From below: ignored, or hit at the same closed form with the normal toward the sphere.
  EXPECT_EQ(mesh_sphere_cast(m, V(1, 1, -3), 0.5, V(0, 0, 5)).status, Status::miss);
  const auto b = mesh_sphere_cast(m, V(1, 1, -3), 0.5, V(0, 0, 5), {.back_faces = BackFaces::collide});
  ASSERT_EQ(b.status, Status::hit);
  EXPECT_NEAR(b.toi, 0.5, 1e-15);
  EXPECT_NEAR((b.normal - V(0, 0, -1)).norm(), 0.0, 1e-15);
}

TEST(MeshSphere, EdgeAndVertexContactsMatchClosedFormsOnRandomCases) {
  // Triangle a=(0,0,0), b=(4,0,0), c=(0,4,0). Spheres approach the edge ab from −y (edge hit) or
  // the corner a from (−1,−1,·) (vertex hit), in a plane perpendicular to the feature.
  const auto m = one_triangle(V(0, 0, 0), V(4, 0, 0), V(0, 4, 0));
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  int edges = 0, vertices = 0;
  for (int i = 0; i < 2000; ++i) {
    const double r = 0.1 + u(rng);
    const double phi = -1.2 + 2.4 * u(rng);  // direction of approach in the plane x = const
    const double dist = r + 0.5 + 2 * u(rng);  // start distance from the feature
    const double speed = dist * (0.5 + 1.5 * u(rng));
    if (i % 2 == 0) {
      // Edge ab: centre at (x, −dist cos φ, dist sin φ) moving toward the edge's line.
      const double x = 0.5 + 3 * u(rng);
      const V dir(0, std::cos(phi), -std::sin(phi));
      const V p = V(x, 0, 0) - dist * dir;
      const auto h = mesh_sphere_cast(m, p, r, V(speed * dir), {.back_faces = BackFaces::collide});
      const double t = (dist - r) / speed;  // closed form: the centre reaches distance r from the line
      if (t > 1) {
        EXPECT_EQ(h.status, Status::miss);
        continue;
      }
      // Approaching from nearly over the face the face may be touched first; skip those.
      if (std::abs(phi) > 0.05 && std::cos(phi) > 0) {
        ASSERT_EQ(h.status, Status::hit) << i;
        if (h.feature == MeshFeature::edge) {
          EXPECT_NEAR(h.toi, t, 1e-12) << i;
          EXPECT_NEAR((h.point - V(x, 0, 0)).norm(), 0.0, 1e-12);
          ++edges;
        }
      }
    } else {
      // Corner a from the outside octant, in the plane z = 0 or out of it.
      const V dir = V(1, 1, std::tan(phi) * 0.5).normalized();
      const V p = -dist * dir;
      const auto h = mesh_sphere_cast(m, p, r, V(speed * dir), {.back_faces = BackFaces::collide});
      const double t = (dist - r) / speed;
      if (t > 1) {
        EXPECT_EQ(h.status, Status::miss);
        continue;
      }
      ASSERT_EQ(h.status, Status::hit) << i;
      EXPECT_EQ(h.feature, MeshFeature::vertex);
      EXPECT_NEAR(h.toi, t, 1e-12);
      EXPECT_NEAR(h.point.norm(), 0.0, 1e-15);
      EXPECT_NEAR((h.normal + dir).norm(), 0.0, 1e-12);
      ++vertices;
    }
  }
  EXPECT_GT(edges, 300);
  EXPECT_GT(vertices, 300);
}

TEST(MeshSphere, BufferBacksTheFaceHitOffAndNeverGoesNegative) {
  const auto m = floor_triangle();
  // Path (0, 0, −5) at 45°: len = |path·n|.
  const V path(3, 0, -4);
  const auto h = mesh_sphere_cast(m, V(0, 0, 3), 0.5, path, {.buffer = 0.2});
  ASSERT_EQ(h.status, Status::hit);
  EXPECT_NEAR(h.contact_time, 2.5 / 4, 1e-15);
  EXPECT_NEAR(h.toi, 2.5 / 4 - 0.2 / 4, 1e-15);
  // At toi the sphere keeps exactly `buffer` from the plane.
  EXPECT_NEAR(3 + h.toi * path.z() - 0.5, 0.2, 1e-14);
  const auto z = mesh_sphere_cast(m, V(0, 0, 0.6), 0.5, path, {.buffer = 0.2});
  ASSERT_EQ(z.status, Status::hit);
  EXPECT_EQ(z.toi, 0.0);
}

TEST(MeshSphere, InitialOverlapCountsOnlyFrontSideCentresWhenBackFacesAreIgnored) {
  const auto m = floor_triangle();
  const auto f = mesh_sphere_cast(m, V(1, 1, 0.3), 0.5, V(0, 0, 1));
  EXPECT_EQ(f.status, Status::initially_overlapping);
  EXPECT_EQ(f.toi, 0.0);
  EXPECT_NEAR((f.point - V(1, 1, 0)).norm(), 0.0, 1e-15);
  // Centre behind the plane: ignored (and not hit later either) unless back faces collide.
  EXPECT_EQ(mesh_sphere_cast(m, V(1, 1, -0.3), 0.5, V(0, 0, 1)).status, Status::miss);
  EXPECT_EQ(mesh_sphere_cast(m, V(1, 1, -0.3), 0.5, V(0, 0, 1), {.back_faces = BackFaces::collide}).status,
            Status::initially_overlapping);
}

TEST(MeshSphere, ACollectionIsTheEarliestOfItsSpheres) {
  const MeshData d = impact_scenes::terrain(20, 5, 3);
  const auto m = impact_scenes::to_mesh<double>(d);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  int hits = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<SphereInBody<double>> body;
    const V c(u(rng), u(rng), 3 + std::abs(u(rng)));
    for (int k = 0; k < 4; ++k) body.push_back({c + 0.3 * V(u(rng), u(rng), u(rng)), 0.2 + 0.1 * std::abs(u(rng))});
    const V path(u(rng), u(rng), -3 - std::abs(u(rng)));
    const auto all = mesh_spheres_cast<double>(m, body, path);
    double best = 2;
    bool overlap = false;
    for (const auto& s : body) {
      const auto h = mesh_sphere_cast(m, s.center, s.radius, path);
      if (h.status == Status::initially_overlapping) overlap = true;
      if (h.status == Status::hit) best = std::min(best, h.toi);
    }
    if (overlap) {
      EXPECT_EQ(all.status, Status::initially_overlapping);
    } else if (best <= 1) {
      ASSERT_EQ(all.status, Status::hit);
      EXPECT_EQ(all.toi, best);
      ++hits;
    } else {
      EXPECT_EQ(all.status, Status::miss);
    }
  }
  EXPECT_GT(hits, 60);
  EXPECT_LT(hits, 240);
}

// A sphere (or point) shape is the exact sphere cast with its radius grown by the target
// distance; a capsule of zero length is the same ball through the general path (GJK ray cast per
// triangle), which must agree within its tolerance and never be late.
TEST(MeshShape, ASphereShapeCastAgreesWithTheSphereCast) {
  const MeshData d = impact_scenes::icosphere(2, 2.0);
  const auto m = impact_scenes::to_mesh<double>(d);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  int hits = 0;
  for (int i = 0; i < 300; ++i) {
    const V p = V(u(rng), u(rng), u(rng)).normalized() * 4.0;
    const V path = (3.0 * V(u(rng), u(rng), u(rng)) - p) * (0.5 + std::abs(u(rng)));
    const double r = 0.1 + 0.5 * std::abs(u(rng));
    const double target = i % 3 == 0 ? 0.05 : 0.0;
    const auto s = mesh_sphere_cast(m, p, r + target, path);
    Pose<double> pose;
    pose.position = p;
    const auto c = mesh_shape_cast(m, Shape<double>{Sphere<double>{r}}, pose, path, {.target_distance = target});
    ASSERT_EQ(s.status, c.status) << i;
    if (s.status != Status::miss) {
      EXPECT_EQ(s.toi, c.toi) << i;
      EXPECT_EQ(s.triangle, c.triangle) << i;
    }
    const auto g = mesh_shape_cast(m, Shape<double>{Capsule<double>{r, 0.0}}, pose, path, {.target_distance = target});
    ASSERT_EQ(s.status, g.status) << i;
    if (s.status == Status::hit) {
      EXPECT_NEAR(s.toi, g.toi, 1e-5 / path.norm() + 1e-9);
      EXPECT_LE(g.toi, s.toi + 1e-12);  // never late
      ++hits;
    }
    if (r < 0.2) {  // a point is a sphere of radius 0
      const auto q = mesh_shape_cast(m, Shape<double>{Point<double>{}}, pose, path, {.target_distance = r});
      const auto qs = mesh_sphere_cast(m, p, r, path);
      ASSERT_EQ(q.status, qs.status) << i;
      if (q.status != Status::miss) {
        EXPECT_EQ(q.toi, qs.toi) << i;
      }
    }
  }
  EXPECT_GT(hits, 90);
  EXPECT_LT(hits, 210);
}

// The per-triangle cast's tolerance is checked like every other field (it once was not: a
// tolerance of 0 or below answered miss), for every shape, the ball paths included.
TEST(MeshShape, ANonPositiveOrNonFiniteToleranceIsRefusedNamingIt) {
  const auto m = impact_scenes::to_mesh<double>(impact_scenes::icosphere(1, 2.0));
  Pose<double> pose;
  pose.position = V(0, 0, 4);
  for (const Shape<double>& s : {Shape<double>{Box<double>{V(0.2, 0.2, 0.2)}}, Shape<double>{Sphere<double>{0.3}}}) {
    for (const double tol : {0.0, -1e-6, std::numeric_limits<double>::quiet_NaN(), 2e12}) {
      const auto h = mesh_shape_cast(m, s, pose, V(0, 0, -4), {.tolerance = tol});
      EXPECT_EQ(h.status, Status::invalid_input) << tol;
      EXPECT_EQ(h.error.rfind("tolerance", 0), 0u) << h.error;
    }
    EXPECT_EQ(mesh_shape_cast(m, s, pose, V(0, 0, -4), {.tolerance = 1e-9}).status, Status::hit);
  }
}

TEST(MeshObj, LoadsVerticesAndFansPolygonsInFileOrder) {
  const std::string path = testing::TempDir() + "impact_mesh_test.obj";
  {
    std::ofstream f(path);
    f << "# a quad and a triangle\no test\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nf 1 2 3 4\nf 1/1/1 2/2/2 5/5/5\n";
  }
  std::vector<V> v;
  std::vector<std::array<std::uint32_t, 3>> t;
  ASSERT_EQ(load_obj(path, v, t), "");
  ASSERT_EQ(v.size(), 5u);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0], (std::array<std::uint32_t, 3>{0, 1, 2}));
  EXPECT_EQ(t[1], (std::array<std::uint32_t, 3>{0, 2, 3}));
  EXPECT_EQ(t[2], (std::array<std::uint32_t, 3>{0, 1, 4}));
  std::remove(path.c_str());
  EXPECT_NE(load_obj(path, v, t), "");
}

}  // namespace
