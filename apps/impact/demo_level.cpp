// impact — demo_level.cpp: the room-and-portal level scene of `impact demo` (issue 5).
//
// Four rooms of 8 × 8 × 4 in a row along x, walls of 0.5 × 0.5 quads facing inward, a doorway in
// every shared wall (y ∈ [3, 5], z < 3), each shared wall a portal. Spheres are thrown along +x
// from room 1; then a blast carves the wall between rooms 1 and 2, only the rooms it touched are
// rebuilt, and the same spheres are thrown again: those aimed at the hole now fly into room 2.
#include "demo.hpp"
#include "demo_scenes.hpp"

#include <impact/level.hpp>

#include <chrono>
#include <cstdio>
#include <ostream>

namespace impact::cli {
namespace {

using V = Vec3<double>;
constexpr double kRoom = 8.0, kHeight = 4.0, kCell = 0.5;

/// Adds the quads of a wall grid spanning corner + i·u + j·w (unit steps of kCell along u and w),
/// fronts facing u × w, leaving out the quads `skip` says.
template <class Skip>
void add_wall(TriangleMesh<double>& m, const V& corner, const V& u, const V& w, int nu, int nw, Skip skip) {
  for (int j = 0; j < nw; ++j)
    for (int i = 0; i < nu; ++i) {
      const V a = corner + (i * kCell) * u + (j * kCell) * w;
      if (skip(a + 0.5 * kCell * (u + w))) continue;
      const auto k = static_cast<std::uint32_t>(m.vertices.size());
      m.vertices.push_back(a);
      m.vertices.push_back(a + kCell * u);
      m.vertices.push_back(a + kCell * (u + w));
      m.vertices.push_back(a + kCell * w);
      m.triangles.push_back({k, k + 1, k + 2});
      m.triangles.push_back({k, k + 2, k + 3});
    }
}

}  // namespace

Level<double> make_demo_level(int rooms) {
  Level<double> L;
  const V ex(1, 0, 0), ey(0, 1, 0), ez(0, 0, 1);
  const int n = static_cast<int>(kRoom / kCell), h = static_cast<int>(kHeight / kCell);
  for (int r = 0; r < rooms; ++r) {
    Room<double> room;
    const double x0 = r * kRoom;
    auto none = [](const V&) { return false; };
    auto door = [](const V& c) { return c.y() > 3 && c.y() < 5 && c.z() < 3; };
    auto& m = room.mesh;
    add_wall(m, V(x0, 0, 0), ex, ey, n, n, none);                    // floor, facing +z
    add_wall(m, V(x0, 0, kHeight), ey, ex, n, n, none);              // ceiling, facing −z
    add_wall(m, V(x0, 0, 0), ez, ex, h, n, none);                    // y = 0, facing +y
    add_wall(m, V(x0, kRoom, 0), ex, ez, n, h, none);                // y = 8, facing −y
    if (r > 0) add_wall(m, V(x0, 0, 0), ey, ez, n, h, door);          // x = x0, facing +x
    else add_wall(m, V(x0, 0, 0), ey, ez, n, h, none);
    if (r + 1 < rooms) add_wall(m, V(x0 + kRoom, 0, 0), ez, ey, h, n, door);  // x = x0 + 8, facing −x
    else add_wall(m, V(x0 + kRoom, 0, 0), ez, ey, h, n, none);
    room.cell_lo = V(x0, 0, 0);
    room.cell_hi = V(x0 + kRoom, kRoom, kHeight);
    L.rooms.push_back(std::move(room));
    if (r + 1 < rooms) {
      Portal<double> p;
      p.rooms = {static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(r + 1)};
      const double x = x0 + kRoom;
      p.corners = {V(x, 0, 0), V(x, kRoom, 0), V(x, kRoom, kHeight), V(x, 0, kHeight)};
      L.portals.push_back(p);
    }
  }
  (void)build_level(L);
  return L;
}

std::vector<DemoThrow> demo_level_throws() {
  return {{V(10, 4, 1.5), "through the doorways"},
          {V(10, 1.6, 2.1), "at the wall between rooms 1 and 2"},
          {V(10, 6.3, 3.3), "high, at the same wall"},
          {V(10, 1.2, 1.8), "at the wall, a little lower"}};
}

namespace {

void throw_spheres(const Level<double>& L, std::ostream& out) {
  const V path = kDemoThrowPath;
  char line[256];
  for (const DemoThrow& t : demo_level_throws()) {
    const auto h = level_sphere_cast(L, t.from, kDemoThrowRadius, path, {.buffer = 0.01});
    if (h.hit.status == Status::hit) {
      const V c = t.from + h.hit.toi * path;
      std::snprintf(line, sizeof line,
                    "  sphere r 0.3 from (%4.1f, %4.1f, %4.1f) %-36s hits room %u (%s) at t %.6f, stops at x %6.3f; "
                    "%d rooms searched\n",
                    t.from.x(), t.from.y(), t.from.z(), t.aim, h.room, to_string(h.hit.feature), h.hit.toi, c.x(),
                    h.rooms_visited);
    } else {
      std::snprintf(line, sizeof line, "  sphere r 0.3 from (%4.1f, %4.1f, %4.1f) %-36s %s; %d rooms searched\n",
                    t.from.x(), t.from.y(), t.from.z(), t.aim, std::string(to_string(h.hit.status)).c_str(),
                    h.rooms_visited);
    }
    out << line;
  }
}

}  // namespace

void run_level_demo(std::ostream& out) {
  Level<double> L = make_demo_level(4);
  std::size_t total = 0;
  for (const auto& r : L.rooms) total += r.mesh.triangles.size();
  char line[256];
  std::snprintf(line, sizeof line,
                "\nLevel: 4 rooms of 8 x 8 x 4 in a row, %zu triangles, a doorway and a portal in every shared wall.\n",
                total);
  out << line << "Spheres thrown along +x from room 1 (distance buffer 0.01):\n";
  throw_spheres(L, out);

  const auto rep = carve(L, kDemoBlastCenter, kDemoBlastRadius);
  out << "Carve: a blast of radius 1 at (16, 1.5, 2) on the wall between rooms 1 and 2:\n";
  for (std::size_t i = 0; i < rep.rooms.size(); ++i) {
    std::snprintf(line, sizeof line, "  room %u: %u triangles removed, its tree rebuilt in %.3f ms\n", rep.rooms[i],
                  rep.removed[i], rep.rebuild_seconds[i] * 1e3);
    out << line;
  }
  // For comparison: rebuilding every room's tree.
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& r : L.rooms) (void)build_mesh(r.mesh, L.build);
  const double all = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::snprintf(line, sizeof line, "  (rebuilding all 4 rooms would take %.3f ms)\n", all * 1e3);
  out << line << "The same spheres after the carve:\n";
  throw_spheres(L, out);
}

}  // namespace impact::cli
