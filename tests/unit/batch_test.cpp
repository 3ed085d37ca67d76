// Batch calls (include/impact/batch.hpp): every row equals the single-query call bit for bit, for
// 1, 2 and all threads, in float and double; shared (1-row) inputs, unwanted (0-row) outputs,
// per-query invalid input as that row's status, and arrays of the wrong size refused by name with
// nothing written.
#include <impact/batch.hpp>

#include "mesh/packet_walk.hpp"
#include "mesh/ray_many.hpp"

#include "mesh_scenes.hpp"
#include "scenes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace {

using namespace impact;

template <class S>
using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

template <class S>
Mat<S> random_rows(std::mt19937_64& rng, int n, int k, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Mat<S> m(n, k);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) m(i, j) = static_cast<S>(u(rng));
  return m;
}

template <class S>
Mat<S> random_rotations(std::mt19937_64& rng, int n) {
  std::normal_distribution<double> g;
  Mat<S> m(n, 4);
  for (int i = 0; i < n; ++i) {
    Eigen::Vector4d q(g(rng), g(rng), g(rng), g(rng));
    q.normalize();
    for (int j = 0; j < 4; ++j) m(i, j) = static_cast<S>(q[j]);
  }
  return m;
}

template <class S>
Rows<S, 3> rows3(const Mat<S>& m) {
  return Rows<S, 3>(m.data(), m.rows(), 3);
}
template <class S>
Rows<S, 4> rows4(const Mat<S>& m) {
  return Rows<S, 4>(m.data(), m.rows(), 4);
}
template <class S>
RowsOut<S, 3> out3(Mat<S>& m) {
  return RowsOut<S, 3>(m.data(), m.rows(), 3);
}

template <class S>
Pose<S> pose_row(const Mat<S>& p, const Mat<S>& q, int i) {
  Pose<S> out;
  out.position = p.row(p.rows() == 1 ? 0 : i).transpose();
  const int r = q.rows() == 1 ? 0 : i;
  out.rotation = Quat<S>(q(r, 0), q(r, 1), q(r, 2), q(r, 3));
  return out;
}

template <class S>
Vec3<S> row(const Mat<S>& m, int i) {
  return m.row(m.rows() == 1 ? 0 : i).transpose();
}

/// Bitwise equality (so −0 and 0 differ, as they would to a caller comparing bytes).
using scenes::same_bits;

template <class S>
Shape<S> hull_shape() {
  std::vector<Vec3<S>> pts;
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g;
  for (int i = 0; i < 40; ++i) pts.push_back(Vec3<double>(g(rng), g(rng), g(rng)).normalized().template cast<S>());
  auto built = Hull<S>::build(pts);
  EXPECT_TRUE(built.error.empty());
  return Shape<S>(std::move(built.hull));
}

template <class S>
struct Batches : ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Batches, Scalars);

TYPED_TEST(Batches, DistanceEqualsSingleForAnyThreadCount) {
  using S = TypeParam;
  constexpr int n = 3000;
  std::mt19937_64 rng(1);
  const Shape<S> a = Box<S>{Vec3<S>(1, 0.5, 0.75)};
  const Shape<S> b = Cylinder<S>{S(0.5), S(1)};
  const Mat<S> pa = random_rows<S>(rng, 1, 3, -0.1, 0.1), qa = random_rotations<S>(rng, 1);
  const Mat<S> pb = random_rows<S>(rng, n, 3, -1.8, 1.8), qb = random_rotations<S>(rng, n);
  int separated = 0;
  std::vector<std::uint8_t> first;
  for (int threads : {1, 2, 0}) {
    std::vector<std::uint8_t> status(n);
    Mat<S> dist(n, 1), ptA(n, 3), ptB(n, 3), nrm(n, 3);
    DistanceRows<S> out{status, ColumnOut<S>(dist.data(), n), out3(ptA), out3(ptB), out3(nrm)};
    ASSERT_EQ(distance_batch<S>(a, {rows3(pa), rows4(qa)}, b, {rows3(pb), rows4(qb)}, {}, out, {.threads = threads}), "");
    for (int i = 0; i < n; ++i) {
      const DistanceResult<S> r = distance(a, pose_row(pa, qa, i), b, pose_row(pb, qb, i));
      ASSERT_EQ(status[i], static_cast<std::uint8_t>(r.status)) << i;
      ASSERT_TRUE(same_bits(dist(i, 0), r.distance) && same_bits(row(ptA, i), r.point_a) && same_bits(row(ptB, i), r.point_b) &&
                  same_bits(row(nrm, i), r.normal))
          << "row " << i << " threads " << threads;
      separated += threads == 1 && r.status == Status::separated;
    }
    if (first.empty()) first = status;
    EXPECT_EQ(status, first);
  }
  EXPECT_GT(separated, n / 4);
  EXPECT_LT(separated, 3 * n / 4);
}

TYPED_TEST(Batches, RayCastEqualsSingle) {
  using S = TypeParam;
  constexpr int n = 3000;
  std::mt19937_64 rng(2);
  const Shape<S> shape = hull_shape<S>();
  Pose<S> pose;
  pose.position = Vec3<S>(S(0.2), S(-0.1), S(0.3));
  const Mat<S> o = random_rows<S>(rng, n, 3, -4, 4);
  Mat<S> d = random_rows<S>(rng, n, 3, -0.8, 0.8);
  for (int i = 0; i < n; ++i) d.row(i) -= o.row(i) * S(0.5);  // toward the shape about half the time
  std::vector<std::uint8_t> status(n);
  Mat<S> lam(n, 1), pt(n, 3);
  RayRows<S> out{status, ColumnOut<S>(lam.data(), n), out3(pt), RowsOut<S, 3>(nullptr, 0, 3)};  // normals not wanted
  ASSERT_EQ(ray_cast_batch<S>(shape, pose, rows3(o), rows3(d), {.max_lambda = S(2)}, out, {.threads = 2}), "");
  int hits = 0;
  for (int i = 0; i < n; ++i) {
    const RayHit<S> h = ray_cast(shape, pose, Ray<S>{row(o, i), row(d, i)}, {.max_lambda = S(2)});
    ASSERT_EQ(status[i], static_cast<std::uint8_t>(h.status)) << i;
    ASSERT_TRUE(same_bits(lam(i, 0), h.lambda) && same_bits(row(pt, i), h.point)) << i;
    hits += h.status == Status::hit;
  }
  EXPECT_GT(hits, n / 5);
  EXPECT_LT(hits, 4 * n / 5);
}

TYPED_TEST(Batches, ShapeCastAndTimeOfImpactEqualSingle) {
  using S = TypeParam;
  constexpr int n = 600;
  std::mt19937_64 rng(3);
  const Shape<S> a = Capsule<S>{S(0.3), S(0.6)};
  const Shape<S> b = hull_shape<S>();
  const Mat<S> pa = random_rows<S>(rng, n, 3, -4, 4), qa = random_rotations<S>(rng, n);
  Mat<S> va = random_rows<S>(rng, n, 3, -2, 2);
  for (int i = 0; i < n; ++i) va.row(i) -= pa.row(i);  // toward B about half the time
  const Mat<S> wa = random_rows<S>(rng, n, 3, -6, 6);
  const Mat<S> pb = Mat<S>::Zero(1, 3), qb = random_rotations<S>(rng, 1);
  const Rows<S, 3> none(nullptr, 0, 3);
  int hits = 0;
  for (int threads : {1, 2}) {
    std::vector<std::uint8_t> s1(n), s2(n);
    Mat<S> t1(n, 1), t2(n, 1), a1(n, 3), b1(n, 3), n1(n, 3), a2(n, 3), b2(n, 3), n2(n, 3);
    CastRows<S> o1{s1, ColumnOut<S>(t1.data(), n), out3(a1), out3(b1), out3(n1)};
    CastRows<S> o2{s2, ColumnOut<S>(t2.data(), n), out3(a2), out3(b2), out3(n2)};
    ASSERT_EQ(shape_cast_batch<S>(a, {rows3(pa), rows4(qa)}, rows3(va), b, {rows3(pb), rows4(qb)}, none, {}, o1,
                                  {.threads = threads}),
              "");
    const MotionRows<S> ma{{rows3(pa), rows4(qa)}, rows3(va), rows3(wa)};
    const MotionRows<S> mb{{rows3(pb), rows4(qb)}, none, none};
    ASSERT_EQ(time_of_impact_batch<S>(a, ma, b, mb, {}, o2, {.threads = threads}), "");
    for (int i = 0; i < n; ++i) {
      const CastHit<S> c = shape_cast(a, pose_row(pa, qa, i), row(va, i), b, pose_row(pb, qb, i), Vec3<S>(Vec3<S>::Zero()));
      ASSERT_EQ(s1[i], static_cast<std::uint8_t>(c.status)) << i;
      ASSERT_TRUE(same_bits(t1(i, 0), c.toi) && same_bits(row(a1, i), c.point_a) && same_bits(row(b1, i), c.point_b) &&
                  same_bits(row(n1, i), c.normal))
          << i;
      Motion<S> m1, m2;
      m1.pose = pose_row(pa, qa, i);
      m1.linear_velocity = row(va, i);
      m1.angular_velocity = row(wa, i);
      m2.pose = pose_row(pb, qb, i);
      const ToiHit<S> h = time_of_impact(a, m1, b, m2);
      ASSERT_EQ(s2[i], static_cast<std::uint8_t>(h.status)) << i;
      ASSERT_TRUE(same_bits(t2(i, 0), h.toi) && same_bits(row(a2, i), h.point_a) && same_bits(row(b2, i), h.point_b) &&
                  same_bits(row(n2, i), h.normal))
          << i;
      hits += threads == 1 && h.status == Status::hit;
    }
  }
  EXPECT_GT(hits, n / 5);
  EXPECT_LT(hits, 4 * n / 5);
}

TYPED_TEST(Batches, MeshAndLevelCastsEqualSingle) {
  using S = TypeParam;
  constexpr int n = 4000;
  const impact_scenes::MeshData d = impact_scenes::icosphere(3, 1.3);
  const TriangleMesh<S> mesh = impact_scenes::to_mesh<S>(d);
  // A level of three rooms in a row, a portal on each shared wall.
  const impact_scenes::LevelData ld = impact_scenes::level(3, 4);
  Level<S> level;
  level.rooms.resize(3);
  for (std::size_t r = 0; r < 3; ++r) {
    for (const auto& v : ld.mesh.vertices) level.rooms[r].mesh.vertices.push_back(v.template cast<S>());
    level.rooms[r].cell_lo = ld.cells[r].first.template cast<S>();
    level.rooms[r].cell_hi = ld.cells[r].second.template cast<S>();
  }
  for (std::size_t i = 0; i < ld.mesh.triangles.size(); ++i) level.rooms[ld.room_of[i]].mesh.triangles.push_back(ld.mesh.triangles[i]);
  for (int r = 0; r < 2; ++r) {
    Portal<S> p;
    p.rooms = {static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r + 1)};
    const S x = static_cast<S>(ld.cells[r].second.x()), w = static_cast<S>(ld.cells[r].second.y()),
            h = static_cast<S>(ld.cells[r].second.z());
    p.corners = {Vec3<S>(x, 0, 0), Vec3<S>(x, w, 0), Vec3<S>(x, w, h), Vec3<S>(x, 0, h)};
    level.portals.push_back(p);
  }
  ASSERT_EQ(build_level(level), "");

  std::mt19937_64 rng(4);
  Mat<S> o = random_rows<S>(rng, n, 3, -3, 3);
  Mat<S> d3 = random_rows<S>(rng, n, 3, -1.6, 1.6);
  d3 -= o;  // ending at a random point of [-1.6, 1.6]³: through the sphere's surface about half the time
  o(7, 1) = std::numeric_limits<S>::quiet_NaN();  // one invalid query: its row says so, the rest answer
  Mat<S> radius(1, 1);
  radius(0, 0) = S(0.2);  // one radius for every sphere
  int hits = 0;
  for (int threads : {1, 2}) {
    const BatchOptions bo{.threads = threads, .grain = 16};
    std::vector<std::uint8_t> st(n);
    std::vector<std::uint32_t> tri(n), room(n);
    Mat<S> lam(n, 1), pt(n, 3), nm(n, 3);
    MeshRayRows<S> ro{st, ColumnOut<S>(lam.data(), n), out3(pt), out3(nm), tri, {}};
    ASSERT_EQ(mesh_ray_cast_batch<S>(mesh, rows3(o), rows3(d3), {.back_faces = BackFaces::collide}, ro, bo), "");
    for (int i = 0; i < n; ++i) {
      const MeshRayHit<S> h = mesh_ray_cast(mesh, Ray<S>{row(o, i), row(d3, i)}, {.back_faces = BackFaces::collide});
      ASSERT_EQ(st[i], static_cast<std::uint8_t>(h.status)) << i;
      ASSERT_TRUE(same_bits(lam(i, 0), h.lambda) && same_bits(row(pt, i), h.point) && same_bits(row(nm, i), h.normal)) << i;
      if (h.status == Status::hit) {
        ASSERT_EQ(tri[i], h.triangle);
      }
      hits += threads == 1 && h.status == Status::hit;
    }
    EXPECT_EQ(st[7], static_cast<std::uint8_t>(Status::invalid_input));

    MeshCastRows<S> so{st, ColumnOut<S>(lam.data(), n), out3(pt), out3(nm), tri, {}};
    ASSERT_EQ(mesh_sphere_cast_batch<S>(mesh, rows3(o), Column<S>(radius.data(), 1), rows3(d3), {}, so, bo), "");
    for (int i = 0; i < n; ++i) {
      const MeshCastHit<S> h = mesh_sphere_cast(mesh, row(o, i), S(0.2), row(d3, i));
      ASSERT_EQ(st[i], static_cast<std::uint8_t>(h.status)) << i;
      ASSERT_TRUE(same_bits(lam(i, 0), h.toi) && same_bits(row(pt, i), h.point) && same_bits(row(nm, i), h.normal)) << i;
    }

    // The level: origins inside the rooms' row.
    Mat<S> lo = random_rows<S>(rng, n, 3, 0.1, 3.9);
    for (int i = 0; i < n; ++i) lo(i, 0) *= S(6);
    const Mat<S> ld3 = random_rows<S>(rng, n, 3, -12, 12);
    MeshRayRows<S> lr{st, ColumnOut<S>(lam.data(), n), out3(pt), out3(nm), tri, room};
    ASSERT_EQ(level_ray_cast_batch<S>(level, rows3(lo), rows3(ld3), {}, lr, bo), "");
    for (int i = 0; i < n; ++i) {
      const LevelRayHit<S> h = level_ray_cast(level, Ray<S>{row(lo, i), row(ld3, i)});
      ASSERT_EQ(st[i], static_cast<std::uint8_t>(h.hit.status)) << i;
      ASSERT_TRUE(same_bits(lam(i, 0), h.hit.lambda) && same_bits(row(pt, i), h.hit.point)) << i;
      if (h.hit.status == Status::hit) {
        ASSERT_TRUE(tri[i] == h.hit.triangle && room[i] == h.room) << i;
      }
    }
    MeshCastRows<S> ls{st, ColumnOut<S>(lam.data(), n), out3(pt), out3(nm), tri, room};
    ASSERT_EQ(level_sphere_cast_batch<S>(level, rows3(lo), Column<S>(radius.data(), 1), rows3(ld3), {}, ls, bo), "");
    for (int i = 0; i < n; ++i) {
      const LevelCastHit<S> h = level_sphere_cast(level, row(lo, i), S(0.2), row(ld3, i));
      ASSERT_EQ(st[i], static_cast<std::uint8_t>(h.hit.status)) << i;
      ASSERT_TRUE(same_bits(lam(i, 0), h.hit.toi) && same_bits(row(pt, i), h.hit.point)) << i;
    }
  }
  EXPECT_GT(hits, n / 5);
  EXPECT_LT(hits, 4 * n / 5);
}

// Mesh ray batches walk a block's rays interleaved (mesh/interleaved_walk.hpp), or one by one when
// they share an origin: on a terrain deep enough for long walks, random segments, a camera's rays
// from one point, zero and invalid directions mixed in, with and without the normal column (and
// with it but MeshRayOptions::normal off: zero rows), and a batch shorter than the walks
// interleaved; every row is the single call's, bit for bit, with the box tests four lanes a step
// and eight (AVX2, where the processor has it: the interleaved walk and the single one both take
// it), and the brute-force search's on every seventh row.
TYPED_TEST(Batches, MeshRayBatchesOnADeepTreeEqualSingle) {
  using S = TypeParam;
  const TriangleMesh<S> mesh = impact_scenes::to_mesh<S>(impact_scenes::terrain(120, 60.0, 9, 4.0));
  ASSERT_GT(mesh.depth(), 10);
  std::mt19937_64 rng(19);
  constexpr int n = 3001;  // not a multiple of the blocks
  Mat<S> o = random_rows<S>(rng, n, 3, -30, 30), d = random_rows<S>(rng, n, 3, -40, 40);
  for (int i = 0; i < n; ++i) o(i, 2) = S(2 + std::abs(o(i, 2)) / 3);  // above the terrain, down or along it
  Mat<S> cam(n, 3), cd(n, 3);
  for (int i = 0; i < n; ++i) {
    cam.row(i) << S(-35), S(-35), S(12);
    const double u = (i % 60) / 60.0 - 0.5, v = (i / 60) / 50.0 - 0.5;
    cd.row(i) << S(60 + 40 * u), S(60 - 40 * u), S(-20 + 20 * v);
  }
  d.row(5).setZero();                                     // a zero direction: a miss
  d(11, 0) = std::numeric_limits<S>::infinity();          // invalid: its row says so
  cd.row(17).setZero();
  int hits = 0, brute_checked = 0;
  for (int lanes : {4, 0})
    for (const auto* rays : {&o, &cam})
      for (int len : {n, 5})
        for (bool normals : {true, false})
          for (int threads : {1, 2}) {
            mesh_detail::set_packet_lanes(lanes);
  #if IMPACT_WALK_AVX2
            ASSERT_EQ(mesh_detail::walk_wide8(), lanes == 0 && __builtin_cpu_supports("avx2"));
  #endif
            const Mat<S>& org = *rays;
            const Mat<S>& dir = rays == &o ? d : cd;
            const Mat<S> org_n = org.topRows(len), dir_n = dir.topRows(len);
            std::vector<std::uint8_t> st(static_cast<std::size_t>(len));
            std::vector<std::uint32_t> tri(static_cast<std::size_t>(len));
            Mat<S> lam(len, 1), pt(len, 3), nm(len, 3);
            MeshRayRows<S> ro{st, ColumnOut<S>(lam.data(), len), out3(pt), normals ? out3(nm) : RowsOut<S, 3>(nullptr, 0, 3), tri, {}};
            // With the normal column on two threads, MeshRayOptions::normal off: zero rows, as
            // the single call leaves its normal.
            const MeshRayOptions<S> mo{.max_lambda = S(1), .normal = !(normals && threads == 2)};
            if (!mo.normal) nm.setConstant(S(7));  // each row must be written
            ASSERT_EQ(mesh_ray_cast_batch<S>(mesh, rows3(org_n), rows3(dir_n), mo, ro, {.threads = threads, .grain = 128}), "");
            for (int i = 0; i < len; ++i) {
              const MeshRayHit<S> h = mesh_ray_cast(mesh, Ray<S>{row(org_n, i), row(dir_n, i)}, mo);
              ASSERT_EQ(st[static_cast<std::size_t>(i)], static_cast<std::uint8_t>(h.status)) << i;
              ASSERT_TRUE(same_bits(lam(i, 0), h.lambda) && same_bits(row(pt, i), h.point)) << i;
              if (normals) {
                ASSERT_TRUE(same_bits(row(nm, i), h.normal)) << i;
                ASSERT_EQ(h.normal.isZero(), !mo.normal || h.status != Status::hit) << i;
              }
              if (h.status == Status::hit) {
                ASSERT_EQ(tri[static_cast<std::size_t>(i)], h.triangle) << i;
              }
              if (i % 7 == 0 && threads == 1 && normals) {
                const MeshRayHit<S> b = mesh_ray_cast(mesh, Ray<S>{row(org_n, i), row(dir_n, i)}, {.max_lambda = S(1), .brute_force = true});
                ASSERT_EQ(b.status, h.status) << i;
                ASSERT_TRUE(same_bits(b.lambda, h.lambda)) << i;
                if (b.status == Status::hit) {
                  ASSERT_EQ(b.triangle, h.triangle) << i;
                }
                ++brute_checked;
              }
              hits += h.status == Status::hit && len == n && threads == 1 && normals && lanes == 4;
            }
            if (rays == &o && len == n) {
              EXPECT_EQ(st[11], static_cast<std::uint8_t>(Status::invalid_input));
            }
            mesh_detail::set_packet_lanes(0);
          }
  EXPECT_GT(brute_checked, 1000);
  EXPECT_GT(hits, 2 * n / 5);  // of 2n rows: random segments and the camera
  EXPECT_LT(hits, 8 * n / 5);
}

// Rays that share an origin walk as packets (mesh/packet_walk.hpp): sixteen at a time, drawn from
// up to a thousand by sign group and by a grid over their directions, culled by one interval test
// per box and then ray by ray. Here every kind of packet a camera or lidar can make: directions
// over the whole sphere in rows (signs change inside packets), cameras' rows, axis-aligned and
// nearly axis-aligned directions (±0 and 1e-30 components: huge reciprocals), lengths from short
// to past the mesh, an origin on a mesh vertex, inside the level, above the terrain and far
// outside; zero and invalid directions mixed in. Every row is the single call's bit for bit, and
// the brute-force search's on every seventh.
TYPED_TEST(Batches, MeshRayBatchesFromOneOriginWalkAsPacketsAndEqualSingle) {
  using S = TypeParam;
  const auto lvl = impact_scenes::level(4, 12);
  const TriangleMesh<S> level = impact_scenes::to_mesh<S>(lvl.mesh);
  const TriangleMesh<S> terrain = impact_scenes::to_mesh<S>(impact_scenes::terrain(90, 60.0, 5, 4.0));
  // The last two scenes' meshes have leaves of several blocks (up to 11 triangles, SAH bins): a
  // packet's leaf tests block after block, each ray's best time lowered between them.
  const MeshBuildOptions big_leaves{.split = MeshSplit::sah, .leaf_size = 11};
  const TriangleMesh<S> level_big = impact_scenes::to_mesh<S>(lvl.mesh, big_leaves);
  const TriangleMesh<S> terrain_big = impact_scenes::to_mesh<S>(impact_scenes::terrain(90, 60.0, 5, 4.0), big_leaves);
  ASSERT_GT(level.depth(), 4);
  ASSERT_GT(terrain.depth(), 4);
  ASSERT_GT(level_big.depth(), 3);
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> u(0, 1);
  int rows = 0, hits = 0, brute_checked = 0;
  for (int scene = 0; scene < 9; ++scene) {
    const TriangleMesh<S>& mesh = scene % 2 == 0 ? (scene == 6 ? level_big : level) : (scene == 7 ? terrain_big : terrain);
    Vec3<S> eye;
    switch (scene) {
      case 0: eye = Vec3<S>(S(5), S(3), S(2)); break;                      // inside the first room
      case 1: eye = Vec3<S>(S(-10), S(-10), S(12)); break;                 // above a corner of the terrain
      case 2: eye = mesh.vertices[mesh.triangles[mesh.triangles.size() / 2][1]]; break;  // on a vertex
      case 3: eye = mesh.vertices[mesh.triangles[77][0]]; break;
      case 4: eye = Vec3<S>(S(-200), S(4), S(2)); break;                   // outside, far away
      case 5: eye = Vec3<S>(S(30), S(30), S(3)); break;                    // low over the middle
      case 6: eye = Vec3<S>(S(17), S(4.5), S(1)); break;
      case 8: eye = Vec3<S>(S(13), S(4), S(1.5)); break;
      default: eye = Vec3<S>(S(30), S(-90), S(40)); break;
    }
    // Rows of a sphere of directions (latitude by latitude, longitude around), or for the last
    // four scenes a camera's rows (a 100° view whose centre is off the axes, so signs change
    // inside rows and between them; over a thousand rays: several groups of packets; in the last
    // scene a narrow view along the diagonal of x and y whose rays lean to x and to y in turn, so
    // that a packet's rays alternate between two watertight frames: its leaves pair rays of one
    // frame, a ray without a partner with itself, and take each block's terms anew at every change
    // of frame), then the axes and near-axes; random lengths.
    std::vector<Vec3<S>> dirs;
    const bool camera = scene >= 5;
    const int lat = camera ? 40 : 23, lon = camera ? 41 : 37;  // not multiples of the packet
    const double len = scene == 4 ? 300.0 : (scene % 2 == 0 ? 12.0 + 30.0 * u(rng) : 40.0 + 40.0 * u(rng));
    const Vec3<double> ahead =
        scene == 6 ? Vec3<double>(1, 0.1, -0.05) : scene == 8 ? Vec3<double>(1, 1, -0.3) : Vec3<double>(0.2, 1, -0.3);
    const double field = scene == 8 ? 0.03 : 1.2;
    const Vec3<double> right = ahead.cross(Vec3<double>(0, 0, 1)).normalized(), up = right.cross(ahead).normalized();
    for (int a = 0; a < lat; ++a)
      for (int b = 0; b < lon; ++b) {
        const double th = 3.141592653589793 * (a + 0.5) / lat, ph = 2 * 3.141592653589793 * b / lon + 0.1 * scene;
        const double lean = scene == 8 ? ((a * lon + b) % 2 == 0 ? 0.05 : -0.05) : 0.0;  // x, then y dominant
        const Vec3<double> d = camera ? Vec3<double>(ahead.normalized() + field * ((b + 0.5) / lon * 2 - 1) * right +
                                                     field * ((a + 0.5) / lat * 2 - 1) * up + Vec3<double>(lean, -lean, 0))
                                      : Vec3<double>(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th));
        dirs.push_back(d.normalized().template cast<S>() * static_cast<S>(len * (0.3 + 0.7 * u(rng))));
      }
    for (int axis = 0; axis < 3; ++axis)
      for (double sign : {1.0, -1.0})
        for (double tiny : {0.0, -0.0, 1e-30, -1e-30, 1e-7}) {
          Vec3<S> d = Vec3<S>::Constant(static_cast<S>(tiny));
          d[axis] = static_cast<S>(sign * len);
          dirs.push_back(d);
        }
    dirs[5] = Vec3<S>::Zero();                                                   // a miss
    dirs[40] = Vec3<S>(std::numeric_limits<S>::quiet_NaN(), S(1), S(0));         // invalid
    const int n = static_cast<int>(dirs.size());
    Mat<S> org(n, 3), dir(n, 3);
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) {
        org(i, k) = eye[k];
        dir(i, k) = dirs[static_cast<std::size_t>(i)][k];
      }
    // The packets' tests four rays a step, and the processor's widest (sixteen with AVX-512;
    // the single walk's box tests eight at a time with AVX2): the same answers, each checked
    // against brute force.
    for (BackFaces bf : {BackFaces::collide, BackFaces::ignore})
      for (int threads : {1, 2})
        for (int lanes : {4, 0}) {
          mesh_detail::set_packet_lanes(lanes);
          ASSERT_EQ(mesh_detail::packet_lanes(), lanes == 4 || !mesh_detail::packet_avx512_available() ? 4 : 16);
#if IMPACT_WALK_AVX2
          ASSERT_EQ(mesh_detail::walk_wide8(), lanes == 0 && __builtin_cpu_supports("avx2"));
#else
          ASSERT_FALSE(mesh_detail::walk_wide8());
#endif
          const MeshRayOptions<S> opt{.max_lambda = S(1), .back_faces = bf};
          std::vector<std::uint8_t> st(static_cast<std::size_t>(n));
          std::vector<std::uint32_t> tri(static_cast<std::size_t>(n));
          Mat<S> lam(n, 1), pt(n, 3), nm(n, 3);
          // Both ways of writing the answers: ray by ray with normals, a thousand rows at a time
          // without; the origin as a row per ray or as one row that every ray shares.
          const bool normals = bf == BackFaces::collide;
          const Mat<S> org_in = threads == 2 ? Mat<S>(org.topRows(1)) : org;
          MeshRayRows<S> ro{st, ColumnOut<S>(lam.data(), n), out3(pt), normals ? out3(nm) : RowsOut<S, 3>(nullptr, 0, 3), tri, {}};
          ASSERT_EQ(mesh_ray_cast_batch<S>(mesh, rows3(org_in), rows3(dir), opt, ro, {.threads = threads, .grain = 64}), "");
          for (int i = 0; i < n; ++i) {
            const Ray<S> ray{row(org, i), row(dir, i)};
            const MeshRayHit<S> h = mesh_ray_cast(mesh, ray, opt);
            ASSERT_EQ(st[static_cast<std::size_t>(i)], static_cast<std::uint8_t>(h.status)) << scene << " " << i;
            ASSERT_TRUE(same_bits(lam(i, 0), h.lambda) && same_bits(row(pt, i), h.point) &&
                        (!normals || same_bits(row(nm, i), h.normal)))
                << scene << " " << i;
            ASSERT_EQ(tri[static_cast<std::size_t>(i)], h.triangle) << scene << " " << i;  // 0 unless a hit
            if (i % 7 == 0 && threads == 1) {
              MeshRayOptions<S> bo = opt;
              bo.brute_force = true;
              const MeshRayHit<S> b = mesh_ray_cast(mesh, ray, bo);
              ASSERT_EQ(b.status, h.status) << scene << " " << i;
              ASSERT_TRUE(same_bits(b.lambda, h.lambda)) << scene << " " << i;
              if (b.status == Status::hit) {
                ASSERT_EQ(b.triangle, h.triangle) << scene << " " << i;
              }
              ++brute_checked;
            }
            rows += threads == 1 && bf == BackFaces::collide && lanes == 4;
            hits += threads == 1 && bf == BackFaces::collide && lanes == 4 && h.status == Status::hit;
          }
          EXPECT_EQ(st[5], static_cast<std::uint8_t>(Status::miss));
          EXPECT_EQ(st[40], static_cast<std::uint8_t>(Status::invalid_input));
          mesh_detail::set_packet_lanes(0);
        }
  }
  EXPECT_GT(brute_checked, 1000);
  EXPECT_GT(hits, rows / 4);  // about half: rooms and terrain hit from inside or above, the sphere's upper half not
  EXPECT_LT(hits, 3 * rows / 4);
}

// A mesh ray batch's statuses and λ (one thread), each row checked against the single call's bit
// for bit (`c`: the case, named in a failure); the statuses are left in `st`.
template <class S>
void expect_ray_rows_equal_single(const TriangleMesh<S>& mesh, const Mat<S>& org, const Mat<S>& dir, const MeshRayOptions<S>& opt,
                                  int c, std::vector<std::uint8_t>& st) {
  const auto n = static_cast<int>(org.rows());
  st.assign(static_cast<std::size_t>(n), 0);
  Mat<S> lam(n, 1);
  MeshRayRows<S> ro{st, ColumnOut<S>(lam.data(), n)};
  ASSERT_EQ(mesh_ray_cast_batch<S>(mesh, rows3(org), rows3(dir), opt, ro, {.threads = 1}), "");
  for (int i = 0; i < n; ++i) {
    const MeshRayHit<S> h = mesh_ray_cast(mesh, Ray<S>{row(org, i), row(dir, i)}, opt);
    ASSERT_EQ(st[static_cast<std::size_t>(i)], static_cast<std::uint8_t>(h.status)) << c << " " << i;
    ASSERT_TRUE(same_bits(lam(i, 0), h.lambda)) << c << " " << i;
  }
}

// Rays from one origin share its check and max_lambda's (done once per batch): an origin or a
// max_lambda out of range makes every row invalid_input, as the single call says, and −0 beside
// +0 in the origins is not one origin (the packets' set-up takes the origin's bits once).
TYPED_TEST(Batches, MeshRayBatchesFromOneBadOriginAreInvalidRowByRow) {
  using S = TypeParam;
  const TriangleMesh<S> mesh = impact_scenes::to_mesh<S>(impact_scenes::level(2, 6).mesh);
  const S nan = std::numeric_limits<S>::quiet_NaN();
  const int n = 300;
  for (int c = 0; c < 5; ++c) {
    Vec3<S> eye(S(3), S(2), S(1));
    MeshRayOptions<S> opt{.max_lambda = S(1)};
    if (c == 0) eye[1] = nan;
    if (c == 1) eye[2] = S(2e12);  // beyond Tolerances::max_magnitude
    if (c == 2) opt.max_lambda = nan;
    if (c == 3) opt.max_lambda = S(-1);
    Mat<S> org(n, 3), dir(n, 3);
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < 3; ++k) org(i, k) = eye[k];
      if (c == 4 && i % 2 == 1) org(i, 0) = S(-0.0), org(i, 1) = S(2), org(i, 2) = S(1);  // −0 and +0
      if (c == 4 && i % 2 == 0) org(i, 0) = S(0.0), org(i, 1) = S(2), org(i, 2) = S(1);
      const double a = 6.283185307179586 * i / n;
      dir(i, 0) = static_cast<S>(20 * std::cos(a)), dir(i, 1) = static_cast<S>(20 * std::sin(a)), dir(i, 2) = static_cast<S>(i % 7 - 3);
    }
    std::vector<std::uint8_t> st;
    expect_ray_rows_equal_single<S>(mesh, org, dir, opt, c, st);
    if (::testing::Test::HasFatalFailure()) return;
    int hits = 0;
    for (int i = 0; i < n; ++i) {
      if (c < 4) {
        ASSERT_EQ(st[static_cast<std::size_t>(i)], static_cast<std::uint8_t>(Status::invalid_input)) << c << " " << i;
      }
      hits += st[static_cast<std::size_t>(i)] == static_cast<std::uint8_t>(Status::hit);
    }
    if (c == 4) {
      EXPECT_GT(hits, n / 2);  // inside a room: the rays hit its walls
    }
  }
}

// A camera wider than a thousand pixels' worth of rows: the batch finds its rows in its first rays
// (mesh_detail::camera_row_width: the width, and where the first whole row starts when the batch
// starts inside a row) and goes in pieces of four whole rows or more, cut at row starts; a
// camera wider than four rows of kOrderAtOnce rays goes in pieces of a thousand as before. Every
// row is the single call's bit for bit, on 1 and 2 threads.
TYPED_TEST(Batches, MeshRayBatchesOfWideCamerasGoInPiecesOfWholeRowsAndEqualSingle) {
  using S = TypeParam;
  const auto lvl = impact_scenes::level(4, 12);
  const TriangleMesh<S> mesh = impact_scenes::to_mesh<S>(lvl.mesh);
  const Vec3<double> eye(5, 3, 2), ahead = Vec3<double>(1, 0.3, -0.2).normalized();
  const Vec3<double> right = ahead.cross(Vec3<double>(0, 0, 1)).normalized(), up = right.cross(ahead);
  int hits = 0, rows_total = 0;
  for (const int w : {300, 700, 1300, 2100})
    for (const int skip : {0, w / 3}) {
      const int h = 7, n = w * h - skip;  // the batch starts `skip` rays into the first row
      Mat<S> org(1, 3), dir(n, 3);
      for (int k = 0; k < 3; ++k) org(0, k) = static_cast<S>(eye[k]);
      for (int i = 0; i < n; ++i) {
        const int px = (i + skip) % w, py = (i + skip) / w;
        // Every other row too short to reach a wall.
        const Vec3<double> d = (ahead + (2.0 * px / w - 1) * right + 0.01 * (py - h / 2) * up).normalized() * (py % 2 ? 40.0 : 0.5);
        for (int k = 0; k < 3; ++k) dir(i, k) = static_cast<S>(d[k]);
      }
      const mesh_detail::RayRowsIn<S> in{org.data(), 0, dir.data(), 3, static_cast<std::size_t>(n)};
      const auto [width, row0] = mesh_detail::camera_row_width(in, mesh_detail::kOrderAtOnce / 4);
      EXPECT_EQ(width, w <= 2048 ? std::size_t(w) : 0u) << w;
      EXPECT_EQ(row0, w <= 2048 ? std::size_t(skip == 0 ? w : w - skip) : 0u) << w;
      for (int threads : {1, 2}) {
        std::vector<std::uint8_t> st(static_cast<std::size_t>(n));
        std::vector<std::uint32_t> tri(static_cast<std::size_t>(n));
        Mat<S> lam(n, 1), pt(n, 3);
        MeshRayRows<S> ro{st, ColumnOut<S>(lam.data(), n), out3(pt), RowsOut<S, 3>(nullptr, 0, 3), tri, {}};
        ASSERT_EQ(mesh_ray_cast_batch<S>(mesh, rows3(org), rows3(dir), {.max_lambda = S(1)}, ro, {.threads = threads, .grain = 64}),
                  "");
        for (int i = 0; i < n; ++i) {
          const MeshRayHit<S> hit = mesh_ray_cast(mesh, Ray<S>{row(org, 0), row(dir, i)}, {.max_lambda = S(1)});
          ASSERT_EQ(st[static_cast<std::size_t>(i)], static_cast<std::uint8_t>(hit.status)) << w << " " << i;
          ASSERT_TRUE(same_bits(lam(i, 0), hit.lambda) && same_bits(row(pt, i), hit.point)) << w << " " << i;
          ASSERT_EQ(tri[static_cast<std::size_t>(i)], hit.triangle) << w << " " << i;
          hits += threads == 1 && hit.status == Status::hit;
          rows_total += threads == 1;
        }
      }
    }
  EXPECT_GT(hits, rows_total / 4);  // inside a room, looking across it and down
  EXPECT_LT(hits, rows_total);
}

// Double rays from one origin whose directions are below float's range (every component under
// 1e-38): the packets' grouping reads directions in float, where they are all (0, 0, 0). Until
// 2026-12-06 the grid's bounds then came out NaN and its cells undefined (out of the counting
// sort's range: the ASan build reports it). Mixed with ordinary rays, all tiny, and a camera's
// rows with one tiny column; every row is the single call's bit for bit.
TEST(Batches, DoubleRaysFromOneOriginBelowFloatRangeAreAnsweredAsSingle) {
  const TriangleMesh<double> mesh = impact_scenes::to_mesh<double>(impact_scenes::level(2, 6).mesh);
  const int n = 600;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int c = 0; c < 3; ++c) {
    Mat<double> org(n, 3), dir(n, 3);
    for (int i = 0; i < n; ++i) {
      org.row(i) << 3, 2, 1;
      const bool tiny = c == 1 || (c == 0 && i % 3 == 0) || (c == 2 && i % 25 == 7);
      const double scale = tiny ? 1e-300 : 20.0;
      if (c == 2) {
        dir.row(i) << scale, scale * (i % 25 - 12) / 12.0, scale * (i / 25 - 12) / 12.0;  // rows of a camera
      } else {
        dir.row(i) << scale * u(rng), scale * u(rng), scale * u(rng);
      }
    }
    const MeshRayOptions<double> opt{.max_lambda = 1e12};
    std::vector<std::uint8_t> st;
    expect_ray_rows_equal_single<double>(mesh, org, dir, opt, c, st);
    if (::testing::Test::HasFatalFailure()) return;
    int hits = 0;
    for (const std::uint8_t s : st) hits += s == static_cast<std::uint8_t>(Status::hit);
    if (c != 1) {
      EXPECT_GT(hits, n / 2) << c;  // inside a room: the ordinary rays hit its walls
    }
  }
}

TEST(Batches, ArraysOfTheWrongSizeAreRefusedByNameAndNothingIsWritten) {
  using S = double;
  const Shape<S> ball = Sphere<S>{1.0};
  Mat<S> o(5, 3), d(4, 3);
  o.setZero();
  d.setOnes();
  std::vector<std::uint8_t> st(5, 99);
  Mat<S> lam(5, 1);
  lam.setConstant(-7);
  RayRows<S> out{st, ColumnOut<S>(lam.data(), 5)};
  const std::string e = ray_cast_batch<S>(ball, {}, rows3(o), rows3(d), {}, out);
  EXPECT_NE(e.find("direction"), std::string::npos) << e;
  EXPECT_EQ(st, std::vector<std::uint8_t>(5, 99));
  EXPECT_EQ(lam(0, 0), -7);
  // An output of the wrong size.
  Mat<S> d5(5, 3);
  d5.setOnes();
  std::vector<std::uint8_t> st4(4);
  const std::string e2 = ray_cast_batch<S>(ball, {}, rows3(o), rows3(d5), {}, RayRows<S>{st4});
  EXPECT_NE(e2.find("status"), std::string::npos) << e2;
  // A shared direction (one row) is fine, and so is an empty batch.
  Mat<S> d1(1, 3);
  d1 << 1, 0, 0;
  EXPECT_EQ(ray_cast_batch<S>(ball, {}, rows3(o), rows3(d1), {}, out), "");
  EXPECT_EQ(st[0], static_cast<std::uint8_t>(Status::initially_overlapping));
  Mat<S> empty(0, 3);
  EXPECT_EQ(ray_cast_batch<S>(ball, {}, rows3(empty), rows3(empty), {}, RayRows<S>{}), "");
  // Poses: a rotation array of 3 rows against 5 positions.
  Mat<S> p5(5, 3), q3(3, 4);
  p5.setZero();
  q3.setZero();
  q3.col(0).setOnes();
  const std::string e3 = distance_batch<S>(ball, {rows3(p5), rows4(q3)}, ball, {}, {}, DistanceRows<S>{});
  EXPECT_NE(e3.find("pose_a.rotation"), std::string::npos) << e3;
}

}  // namespace
