// Unit tests of rooms, portals and carving (src/level.cpp): a walk through the rooms a cast's
// path reaches equals brute force over every triangle of the level (same time, same triangle), a
// short cast searches fewer rooms than the level holds, and after a carve only the rooms that
// lost triangles are rebuilt and casts pass through the hole into the room behind.
#include "mesh_scenes.hpp"
#include "scenes.hpp"

#include <impact/level.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace {

using namespace impact;
using V = Vec3<double>;

/// The scene's rows of rooms as a Level: each room's cell is its box; a portal is the whole wall
/// shared by neighbours (it covers the doorway).
Level<double> make_level(const impact_scenes::LevelData& d) {
  Level<double> L;
  L.rooms.resize(static_cast<std::size_t>(d.rooms));
  for (std::size_t r = 0; r < L.rooms.size(); ++r) {
    L.rooms[r].mesh.vertices = d.mesh.vertices;  // unused vertices are harmless
    L.rooms[r].cell_lo = d.cells[r].first;
    L.rooms[r].cell_hi = d.cells[r].second;
  }
  for (std::size_t i = 0; i < d.mesh.triangles.size(); ++i) L.rooms[d.room_of[i]].mesh.triangles.push_back(d.mesh.triangles[i]);
  for (int r = 0; r + 1 < d.rooms; ++r) {
    Portal<double> p;
    p.rooms = {static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r + 1)};
    const double x = d.cells[r].second.x(), w = d.cells[r].second.y(), h = d.cells[r].second.z();
    p.corners = {V(x, 0, 0), V(x, w, 0), V(x, w, h), V(x, 0, h)};
    L.portals.push_back(p);
  }
  EXPECT_EQ(build_level(L), "");
  return L;
}

/// All rooms' current triangles as one mesh, with each triangle's (room, index).
TriangleMesh<double> whole(const Level<double>& L, std::vector<std::pair<std::uint32_t, std::uint32_t>>& origin) {
  TriangleMesh<double> m;
  m.vertices = L.rooms[0].mesh.vertices;
  origin.clear();
  for (std::uint32_t r = 0; r < L.rooms.size(); ++r)
    for (std::uint32_t i = 0; i < L.rooms[r].mesh.triangles.size(); ++i) {
      m.triangles.push_back(L.rooms[r].mesh.triangles[i]);
      origin.emplace_back(r, i);
    }
  EXPECT_EQ(build_mesh(m), "");
  return m;
}

void expect_walk_equals_brute_force(const Level<double>& L, std::uint64_t seed, int* fewer_rooms = nullptr) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> origin;
  const TriangleMesh<double> all = whole(L, origin);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.01, 0.99);
  const double len = L.rooms.back().cell_hi.x();
  for (int i = 0; i < scenes::battery(2000); ++i) {  // a quarter under the sanitizers
    const V o(len * u(rng), 8 * u(rng), 4 * u(rng));
    // Casts of up to about a room's length, so most of them stay within a few rooms.
    const V to = o + V(16 * (u(rng) - 0.5), 16 * (u(rng) - 0.5), 8 * (u(rng) - 0.5));
    const BackFaces bf = i % 2 ? BackFaces::collide : BackFaces::ignore;
    const auto w = level_ray_cast(L, Ray<double>{o, to - o}, {.max_lambda = 1.5, .back_faces = bf});
    const auto b = mesh_ray_cast(all, Ray<double>{o, to - o}, {.max_lambda = 1.5, .back_faces = bf, .brute_force = true});
    ASSERT_EQ(w.hit.status, b.status) << i;
    if (b.status == Status::hit) {
      ASSERT_EQ(w.hit.lambda, b.lambda) << i;
      ASSERT_EQ(w.room, origin[b.triangle].first) << i;
      ASSERT_EQ(w.hit.triangle, origin[b.triangle].second) << i;
    }
    if (fewer_rooms && w.rooms_visited < static_cast<int>(L.rooms.size())) ++*fewer_rooms;
    const double r = 0.05 + 0.5 * u(rng);
    const auto ws = level_sphere_cast(L, o, r, V(to - o), {.back_faces = bf});
    const auto bs = mesh_sphere_cast(all, o, r, V(to - o), {.back_faces = bf, .brute_force = true});
    ASSERT_EQ(ws.hit.status, bs.status) << i;
    if (bs.status == Status::hit) {
      ASSERT_EQ(ws.hit.toi, bs.toi) << i;
      ASSERT_EQ(ws.room, origin[bs.triangle].first) << i;
      ASSERT_EQ(ws.hit.triangle, origin[bs.triangle].second) << i;
    }
  }
}

TEST(Level, WalkingThroughPortalsEqualsBruteForceOverTheWholeLevel) {
  const Level<double> L = make_level(impact_scenes::level(5, 8));
  int fewer = 0;
  expect_walk_equals_brute_force(L, 31, &fewer);
  EXPECT_GT(fewer, scenes::battery(2000) / 2);  // most casts search only some of the rooms
}

// MeshRayOptions::normal reaches the rooms: without it a level ray's hit is the same (status, λ,
// point, triangle and room) with a zero normal.
TEST(Level, RaysWithoutTheNormalOptionHitTheSameWithAZeroNormal) {
  const Level<double> L = make_level(impact_scenes::level(5, 8));
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> u(0.01, 0.99);
  const double len = L.rooms.back().cell_hi.x();
  int hits = 0;
  const int n = scenes::battery(1000);
  for (int i = 0; i < n; ++i) {
    const V o(len * u(rng), 8 * u(rng), 4 * u(rng));
    const V d(16 * (u(rng) - 0.5), 16 * (u(rng) - 0.5), 8 * (u(rng) - 0.5));
    MeshRayOptions<double> opt{.max_lambda = 0.5};
    const auto with = level_ray_cast(L, Ray<double>{o, d}, opt);
    opt.normal = false;
    const auto without = level_ray_cast(L, Ray<double>{o, d}, opt);
    ASSERT_EQ(with.hit.status, without.hit.status) << i;
    EXPECT_EQ(without.hit.normal, V::Zero()) << i;
    if (with.hit.status != Status::hit) continue;
    ++hits;
    EXPECT_EQ(with.hit.lambda, without.hit.lambda) << i;
    EXPECT_EQ(with.hit.point, without.hit.point) << i;
    EXPECT_EQ(with.hit.triangle, without.hit.triangle) << i;
    EXPECT_EQ(with.room, without.room) << i;
    EXPECT_NEAR(with.hit.normal.norm(), 1.0, 1e-12) << i;
  }
  EXPECT_GT(hits, n / 5);
  EXPECT_LT(hits, 4 * n / 5);
}

TEST(Level, CarvingRebuildsOnlyTheTouchedRoomsAndOpensAHole) {
  Level<double> L = make_level(impact_scenes::level(5, 8));
  // The wall between rooms 1 and 2 (x = 16) away from the doorway (y ∈ [2, 6], z < 3).
  const V blast(16, 1.0, 2.5);
  const Ray<double> through{V(12, 1.0, 2.5), V(12, 0, 0)};  // from room 1 across the wall into room 2
  const auto before = level_ray_cast(L, through);
  ASSERT_EQ(before.hit.status, Status::hit);
  EXPECT_EQ(before.room, 1u);
  EXPECT_NEAR(before.hit.lambda, 1.0 / 3.0, 1e-15);
  const std::size_t tris0 = L.rooms[0].mesh.triangles.size();
  const CarveReport rep = carve(L, blast, 0.8);
  ASSERT_EQ(rep.error, "");
  ASSERT_EQ(rep.rooms.size(), 2u);
  EXPECT_EQ(rep.rooms[0], 1u);
  EXPECT_EQ(rep.rooms[1], 2u);
  EXPECT_GT(rep.removed[0], 0u);
  EXPECT_EQ(L.rooms[0].mesh.triangles.size(), tris0);  // untouched
  EXPECT_EQ(rep.portals_added, 1);
  // Every remaining triangle keeps out of the blast; the ray now reaches room 2's far wall.
  const auto after = level_ray_cast(L, through);
  ASSERT_EQ(after.hit.status, Status::hit);
  EXPECT_EQ(after.room, 2u);
  EXPECT_NEAR(after.hit.lambda, 1.0, 1e-15);  // x = 24
  const auto sphere = level_sphere_cast(L, V(12, 1.0, 2.5), 0.2, V(12, 0, 0));
  ASSERT_EQ(sphere.hit.status, Status::hit);
  EXPECT_EQ(sphere.room, 2u);
  EXPECT_NEAR(sphere.hit.toi, (12 - 0.2) / 12, 1e-14);
  // And the walk still equals brute force over the carved level.
  expect_walk_equals_brute_force(L, 37);
}

TEST(Level, ABlastReachingManyRoomsAddsOnePortalAndTheWalkStillEqualsBruteForce) {
  Level<double> L = make_level(impact_scenes::level(5, 8));
  const std::size_t portals0 = L.portals.size();
  const V blast(16, 1.0, 2.5);
  const CarveReport rep = carve(L, blast, 9.0);
  ASSERT_EQ(rep.error, "");
  EXPECT_EQ(rep.portals_added, 1);
  ASSERT_EQ(L.portals.size(), portals0 + 1);  // one portal, not one per pair of rooms
  const Portal<double>& p = L.portals.back();
  EXPECT_TRUE(p.sphere);
  EXPECT_EQ(p.joined, rep.joined);
  ASSERT_GE(rep.joined.size(), 3u);
  // It joins exactly the rooms whose cells its sphere reaches, each listing it once.
  for (std::uint32_t r = 0; r < L.rooms.size(); ++r) {
    const V q = blast.cwiseMax(L.rooms[r].cell_lo).cwiseMin(L.rooms[r].cell_hi);
    const bool reached = (q - blast).norm() <= p.radius;
    EXPECT_EQ(std::count(rep.joined.begin(), rep.joined.end(), r), reached ? 1 : 0) << r;
    EXPECT_EQ(std::count(L.rooms[r].portals.begin(), L.rooms[r].portals.end(), portals0), reached ? 1 : 0) << r;
  }
  expect_walk_equals_brute_force(L, 41);
  // A second blast elsewhere adds a second portal; walks still equal brute force.
  const CarveReport rep2 = carve(L, V(30, 6.0, 1.0), 3.0);
  ASSERT_EQ(rep2.error, "");
  EXPECT_EQ(L.portals.size(), portals0 + static_cast<std::size_t>(1 + rep2.portals_added));
  expect_walk_equals_brute_force(L, 43);
}

}  // namespace
