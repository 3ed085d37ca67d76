// impact — level.hpp: rooms and portals, and geometry modification (Schroeder, "Collision
// Detection Using Ray Casting": Red Faction's GeoMod levels).
//
// A level is rooms joined by portals. Every triangle belongs to exactly one room, and each room
// has its own mesh and AABB tree, so a cast walks only the rooms its path reaches through portals,
// and carving a hole rebuilds only the trees of the rooms it touched. A room's `cell` is the box
// its casts may start in (used to find the start room); a portal is a planar quad the path must
// cross (either way) to pass from one room to the other, and may be larger than the opening.
//
// Carving removes every triangle the blast sphere touches (no walls are added around the hole:
// the hole is simply open) and adds one spherical portal joining all the rooms whose cells the
// hole reaches, so casts pass through the hole into the rooms behind. One portal per carve, of
// size proportional to the rooms it joins (not one per pair of them).
#pragma once

#include <impact/mesh.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace impact {

/// Most rooms a level may have: the walk's visited set is a fixed bitmap (no heap allocation).
inline constexpr std::size_t kLevelMaxRooms = 4096;

/// A room: its triangles (with their tree) and the box a cast may start in.
template <class S>
struct Room {
  TriangleMesh<S> mesh;                     ///< The room's triangles; indices are per room.
  Vec3<S> cell_lo{S(0), S(0), S(0)};        ///< Cell minimum corner (world, length).
  Vec3<S> cell_hi{S(0), S(0), S(0)};        ///< Cell maximum corner.
  std::vector<std::uint32_t> portals;       ///< Indices of the portals touching this room.
};

/// A way between rooms: a planar convex quad (crossed either way) between two rooms or, for
/// carved holes, a sphere (entered) that joins every room in `joined`.
template <class S>
struct Portal {
  std::array<std::uint32_t, 2> rooms{0, 0};  ///< The two rooms a quad joins (sphere: the first two of `joined`).
  bool sphere = false;                        ///< True for a carved hole's spherical portal.
  /// Sphere portals: every room the hole joins, sorted, each once (build_level fills it from
  /// `rooms` when empty). A cast that enters the sphere from any of them may enter all the others.
  std::vector<std::uint32_t> joined;
  std::array<Vec3<S>, 4> corners{Vec3<S>::Zero(), Vec3<S>::Zero(), Vec3<S>::Zero(), Vec3<S>::Zero()};           ///< Quad corners in order (quad portals).
  Vec3<S> center{S(0), S(0), S(0)};           ///< Sphere portal centre (world, length).
  S radius = S(0);                            ///< Sphere portal radius (length).
  TriangleMesh<S> quad;                       ///< The quad as two triangles (built by build_level).
};

/// A level of rooms and portals.
template <class S>
struct Level {
  std::vector<Room<S>> rooms;        ///< Rooms; their meshes are built by build_level.
  std::vector<Portal<S>> portals;    ///< Portals.
  MeshBuildOptions build;            ///< Tree options of every room.
};

/// Validates and builds every room's mesh and the portals' quads; fills Room::portals. Returns
/// an empty string on success, else the offending field ("rooms.2.mesh.triangles.0.1: ...").
template <class S>
[[nodiscard]] std::string build_level(Level<S>& level);

/// The same level with scalar T in `out`: rooms (corners, triangles, cells), portals and build
/// options converted, then `build_level` on it, whose message it returns ("" on success).
/// Carved levels convert as they are now (their spherical portals included).
template <class T, class S>
[[nodiscard]] std::string convert_level(const Level<S>& level, Level<T>& out);

/// The room whose cell holds p (the first one), or −1.
template <class S>
[[nodiscard]] int room_at(const Level<S>& level, const Vec3<S>& p);

/// Result of a level cast: the mesh answer plus the room of the triangle touched.
template <class S>
struct LevelRayHit {
  MeshRayHit<S> hit;          ///< status, lambda, point, normal, triangle (index within its room).
  std::uint32_t room = 0;     ///< Room of the hit triangle (hit).
  int rooms_visited = 0;      ///< How many rooms the walk searched.
};
template <class S>
struct LevelCastHit {
  MeshCastHit<S> hit;         ///< The sphere cast answer; triangle index within its room.
  std::uint32_t room = 0;     ///< Room of the touched triangle (hit, overlap).
  int rooms_visited = 0;      ///< How many rooms the walk searched.
};

/// Casts a ray through the level, starting in `start_room` (−1: the room whose cell holds the
/// origin; when none does, every room is searched). Rooms are entered through the portals the ray
/// crosses before its nearest hit so far.
template <class S>
[[nodiscard]] LevelRayHit<S> level_ray_cast(const Level<S>& level, const Ray<S>& ray, const MeshRayOptions<S>& options = {},
                                            int start_room = -1);

/// Casts a sphere through the level (as mesh_sphere_cast); portals are grown by the radius.
template <class S>
[[nodiscard]] LevelCastHit<S> level_sphere_cast(const Level<S>& level, const Vec3<S>& center, S radius,
                                                const Vec3<S>& path, const MeshSphereOptions<S>& options = {},
                                                int start_room = -1);

/// What `carve` did.
struct CarveReport {
  std::vector<std::uint32_t> rooms;        ///< Rooms whose triangles were removed (and tree rebuilt).
  std::vector<std::uint32_t> removed;      ///< Triangles removed from each of those rooms.
  std::vector<double> rebuild_seconds;     ///< Tree rebuild time of each of those rooms.
  int portals_added = 0;                   ///< Spherical portals added (0 or 1).
  std::vector<std::uint32_t> joined;       ///< Rooms the added portal joins (sorted; empty when none).
  std::string error;                       ///< Non-empty when the blast was invalid (nothing changed).
};

/// Removes every triangle the blast sphere touches (closest point within `radius`), rebuilds the
/// trees of only the rooms that lost triangles, and joins the rooms whose cells the hole reaches
/// by one spherical portal around the hole (centre `center`, radius the farthest corner of a
/// removed triangle, so the portal covers the whole opening), added when triangles were removed
/// and at least two rooms are reached. Triangle indices of a rebuilt room are renumbered (kept
/// order). Cost: a box test per room, the closest-point test of each triangle of the rooms whose
/// box the blast reaches, the rebuilds, and O(k) for a portal joining k rooms.
template <class S>
CarveReport carve(Level<S>& level, const Vec3<S>& center, S radius);

}  // namespace impact
