// impact tests and benchmarks — mesh_scenes.hpp: seeded triangle meshes shared by the mesh tests
// and benchmarks. Every generator is deterministic in its arguments.
//
// - cube_grid: the closed surface of the cube [-h, h]³, each face an n×n grid of quads split into
//   two triangles, outward front faces, vertices shared (a watertight closed mesh). With h and n
//   powers of two every vertex and edge midpoint is exact in binary.
// - icosphere: a closed sphere (icosahedron subdivided `levels` times, vertices on the sphere).
// - terrain: an (n+1)×(n+1) height field over [-size, size]², fronts facing +z.
// - soup: n random triangles in a box (sizes log-uniform), random orientations: no structure.
// - level: `rooms` rooms in a row along x, each a closed box (fronts facing inward, so a body
//   inside collides with the walls), with a doorway in every shared wall: the room-and-portal
//   scene. Each room's triangles are contiguous; `room_of[i]` is triangle i's room.
#pragma once

#include <impact/mesh.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

namespace impact_scenes {

using V = impact::Vec3<double>;
using Tri = std::array<std::uint32_t, 3>;

struct MeshData {
  std::vector<V> vertices;
  std::vector<Tri> triangles;
};

template <class S>
impact::TriangleMesh<S> to_mesh(const MeshData& d, const impact::MeshBuildOptions& opt = {}) {
  impact::TriangleMesh<S> m;
  for (const V& v : d.vertices) m.vertices.push_back(v.cast<S>());
  m.triangles = d.triangles;
  (void)impact::build_mesh(m, opt);
  return m;
}

/// Appends an n×m grid of quads spanning corner + i·u/n + j·w/m, fronts facing u × w.
inline void add_grid(MeshData& d, const V& corner, const V& u, const V& w, int n, int m, std::map<std::array<double, 3>, std::uint32_t>* shared = nullptr) {
  std::vector<std::uint32_t> idx((n + 1) * (m + 1));
  for (int j = 0; j <= m; ++j)
    for (int i = 0; i <= n; ++i) {
      const V p = corner + (double(i) / n) * u + (double(j) / m) * w;
      std::uint32_t k;
      if (shared) {
        const std::array<double, 3> key{p.x(), p.y(), p.z()};
        auto it = shared->find(key);
        if (it == shared->end()) {
          k = static_cast<std::uint32_t>(d.vertices.size());
          d.vertices.push_back(p);
          shared->emplace(key, k);
        } else {
          k = it->second;
        }
      } else {
        k = static_cast<std::uint32_t>(d.vertices.size());
        d.vertices.push_back(p);
      }
      idx[j * (n + 1) + i] = k;
    }
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < n; ++i) {
      const std::uint32_t a = idx[j * (n + 1) + i], b = idx[j * (n + 1) + i + 1];
      const std::uint32_t c = idx[(j + 1) * (n + 1) + i + 1], e = idx[(j + 1) * (n + 1) + i];
      d.triangles.push_back({a, b, c});
      d.triangles.push_back({a, c, e});
    }
}

/// Closed box surface [lo, hi] with n×n quads per face; fronts outward (or inward).
inline MeshData box_surface(const V& lo, const V& hi, int n, bool inward = false) {
  MeshData d;
  std::map<std::array<double, 3>, std::uint32_t> shared;
  const V s = hi - lo;
  const V ex(s.x(), 0, 0), ey(0, s.y(), 0), ez(0, 0, s.z());
  auto face = [&](const V& corner, const V& u, const V& w) {
    if (inward) add_grid(d, corner, w, u, n, n, &shared);
    else add_grid(d, corner, u, w, n, n, &shared);
  };
  face(lo, ey, ex);                // z = lo, normal −z
  face(lo + ez, ex, ey);           // z = hi, normal +z
  face(lo, ex, ez);                // y = lo, normal −y
  face(lo + ey, ez, ex);           // y = hi, normal +y
  face(lo, ez, ey);                // x = lo, normal −x
  face(lo + ex, ey, ez);           // x = hi, normal +x
  return d;
}

inline MeshData cube_grid(double h, int n) { return box_surface(V(-h, -h, -h), V(h, h, h), n); }

inline MeshData icosphere(int levels, double radius, const V& centre = V::Zero()) {
  MeshData d;
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<V> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                      {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  for (V& p : v) p.normalize();
  std::vector<Tri> f = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                        {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                        {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
  for (int l = 0; l < levels; ++l) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> mid;
    auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back((v[a] + v[b]).normalized());
      const auto k = static_cast<std::uint32_t>(v.size() - 1);
      mid.emplace(key, k);
      return k;
    };
    std::vector<Tri> g;
    for (const Tri& x : f) {
      const std::uint32_t a = midpoint(x[0], x[1]), b = midpoint(x[1], x[2]), c = midpoint(x[2], x[0]);
      g.push_back({x[0], a, c});
      g.push_back({x[1], b, a});
      g.push_back({x[2], c, b});
      g.push_back({a, b, c});
    }
    f = std::move(g);
  }
  for (V& p : v) d.vertices.push_back(centre + radius * p);
  d.triangles = std::move(f);
  return d;
}

inline MeshData terrain(int n, double size, std::uint64_t seed, double amplitude = 1.0) {
  MeshData d;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> ph(0, 6.283185307179586);
  const double p1 = ph(rng), p2 = ph(rng), p3 = ph(rng);
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      const double x = -size + 2 * size * i / n, y = -size + 2 * size * j / n;
      const double z = amplitude * (std::sin(0.7 * x + p1) * std::cos(0.5 * y + p2) + 0.3 * std::sin(1.9 * x + 1.3 * y + p3));
      d.vertices.emplace_back(x, y, z);
    }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const auto a = static_cast<std::uint32_t>(j * (n + 1) + i);
      const auto b = a + 1, c = a + static_cast<std::uint32_t>(n + 2), e = a + static_cast<std::uint32_t>(n + 1);
      d.triangles.push_back({a, b, c});
      d.triangles.push_back({a, c, e});
    }
  return d;
}

inline MeshData soup(int n, double box, std::uint64_t seed) {
  MeshData d;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-box, box), lg(std::log(0.05), std::log(2.0));
  std::normal_distribution<double> g;
  for (int i = 0; i < n; ++i) {
    const V c(u(rng), u(rng), u(rng));
    const double s = std::exp(lg(rng));
    const auto k = static_cast<std::uint32_t>(d.vertices.size());
    for (int j = 0; j < 3; ++j) d.vertices.push_back(c + s * V(g(rng), g(rng), g(rng)).normalized());
    d.triangles.push_back({k, k + 1, k + 2});
  }
  return d;
}

/// One room of `level`: box [x0, x0 + w] × [0, w] × [0, h] walls, floor and ceiling, n×n quads per
/// face, fronts inward; a doorway is the square hole [door_lo, door_hi] in the walls x = x0 (when
/// `door_left`) and x = x0 + w (when `door_right`): the quads there are left out.
struct LevelData {
  MeshData mesh;                        ///< All rooms' triangles.
  std::vector<std::uint32_t> room_of;   ///< Room of each triangle.
  std::vector<std::pair<V, V>> cells;   ///< Each room's box.
  int rooms = 0;
};

inline LevelData level(int rooms, int n, double w = 8.0, double h = 4.0) {
  LevelData L;
  L.rooms = rooms;
  for (int r = 0; r < rooms; ++r) {
    const double x0 = r * w;
    const V lo(x0, 0, 0), hi(x0 + w, w, h);
    MeshData room = box_surface(lo, hi, n, /*inward=*/true);
    // Cut the doorways: drop triangles of the walls x = x0 / x0 + w whose centres are in the door.
    MeshData kept;
    kept.vertices = room.vertices;
    for (const Tri& t : room.triangles) {
      const V c = (room.vertices[t[0]] + room.vertices[t[1]] + room.vertices[t[2]]) / 3.0;
      const bool on_left = std::abs(c.x() - x0) < 1e-9 && r > 0;
      const bool on_right = std::abs(c.x() - (x0 + w)) < 1e-9 && r + 1 < rooms;
      const bool in_door = std::abs(c.y() - w / 2) < w / 4 && c.z() < h * 0.75;
      if ((on_left || on_right) && in_door) continue;
      kept.triangles.push_back(t);
    }
    const auto base = static_cast<std::uint32_t>(L.mesh.vertices.size());
    for (const V& v : kept.vertices) L.mesh.vertices.push_back(v);
    for (const Tri& t : kept.triangles) {
      L.mesh.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
      L.room_of.push_back(static_cast<std::uint32_t>(r));
    }
    L.cells.emplace_back(lo, hi);
  }
  return L;
}

}  // namespace impact_scenes
