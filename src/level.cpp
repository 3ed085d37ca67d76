// impact — level.cpp: rooms and portals, walks through them, and carving (level.hpp).
#include <impact/level.hpp>

#include "mesh_impl.hpp"

#include <algorithm>
#include <bitset>
#include <chrono>

namespace impact {
namespace {

/// The sphere portals a walk has entered, so a hole joining k rooms has its rooms listed once per
/// walk, not once per room visited (k² for a walk through all of them). A fixed open-addressing
/// table, cleared on first use; past kMaxFill entries a portal is simply not recorded (its rooms
/// are then listed again: slower, same answer, since they are already seen).
struct PortalsEntered {
  static constexpr std::size_t kSlots = 1024, kMaxFill = kSlots / 2;
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  std::uint32_t slot[kSlots];
  std::size_t fill = 0;
  bool cleared = false;
  static std::size_t home(std::uint32_t id) { return (id * 2654435761u) & (kSlots - 1); }
  bool contains(std::uint32_t id) const {
    if (!cleared) return false;
    for (std::size_t i = home(id);; i = (i + 1) & (kSlots - 1)) {
      if (slot[i] == id) return true;
      if (slot[i] == kEmpty) return false;
    }
  }
  void insert(std::uint32_t id) {
    if (!cleared) {
      std::fill(std::begin(slot), std::end(slot), kEmpty);
      cleared = true;
    }
    if (fill >= kMaxFill) return;
    std::size_t i = home(id);
    while (slot[i] != kEmpty && slot[i] != id) i = (i + 1) & (kSlots - 1);
    if (slot[i] == kEmpty) ++fill;
    slot[i] = id;
  }
};

/// Fixed-capacity work list and visited set of a walk (no heap allocation per query).
struct RoomWalk {
  std::bitset<kLevelMaxRooms> seen;
  std::uint32_t queue[kLevelMaxRooms];
  std::size_t head = 0, tail = 0;
  PortalsEntered spheres;
  void push(std::uint32_t r) {
    if (r >= kLevelMaxRooms || seen[r]) return;
    seen[r] = true;
    queue[tail++] = r;
  }
  bool empty() const { return head == tail; }
  std::uint32_t pop() { return queue[head++]; }
};

/// Pushes the rooms behind the portals of room r that the cast passes: `through(portal)` decides.
/// A sphere portal is decided once per walk: the walk's reach (the best time so far) only
/// shrinks, so a sphere not entered now is not entered later, and one entered has pushed all
/// its rooms.
template <class S, class Through>
void enter_portals(const Level<S>& L, std::uint32_t r, RoomWalk& w, Through&& through) {
  for (std::uint32_t pi : L.rooms[r].portals) {
    const Portal<S>& p = L.portals[pi];
    if (p.sphere) {
      if (w.spheres.contains(pi) || !through(p)) continue;
      w.spheres.insert(pi);
      for (std::uint32_t other : p.joined) w.push(other);
      continue;
    }
    const std::uint32_t other = p.rooms[0] == r ? p.rooms[1] : p.rooms[0];
    if (!w.seen[other] && through(p)) w.push(other);
  }
}

/// Earliest t ∈ [0, t_max] at which a point moving p + t·d is within r of the sphere portal.
template <class S>
bool enters_sphere(const Portal<S>& pt, const Vec3<S>& p, const Vec3<S>& d, S r, S t_max) {
  const Vec3<S> w = p - pt.center;
  const S R = pt.radius + r;
  if (w.squaredNorm() <= R * R) return true;
  S t;
  return mesh_detail::entry_root(w, d, R, t_max, t);
}

template <class S>
void start_rooms(const Level<S>& L, const Vec3<S>& p, int start, RoomWalk& w) {
  if (start < 0) start = room_at(L, p);
  if (start >= 0) {
    w.push(static_cast<std::uint32_t>(start));
  } else {
    for (std::uint32_t r = 0; r < L.rooms.size(); ++r) w.push(r);
  }
}

/// Portal tests look a little past the nearest hit so far: a wall in the portal's plane may be
/// hit an ulp before the portal itself is crossed, and the room behind may hold a triangle in the
/// same plane that wins the tie (dimensionless, relative to the cast's parameter).
template <class S>
S past(S t) {
  return t * (S(1) + S(64) * std::numeric_limits<S>::epsilon()) + std::numeric_limits<S>::min();
}

/// The rooms a cast reaches, searched for its earliest answer: each room popped from the walk is
/// cast with the best time so far as its limit; a hit that comes earlier (or as early, in a room
/// of lower index) becomes the answer; an answer `stops` accepts ends the walk at once (invalid
/// input, an overlap at the start); then the portals the cast `enters` before a little past the
/// best time add their rooms. `cast(room, limit)` answers one room, `time(hit)` is a hit's time.
template <class S, class Out, class Cast, class Time, class Stops, class Enters>
void walk_rooms(const Level<S>& L, RoomWalk& w, S best, Out& out, Cast&& cast, Time&& time, Stops&& stops,
                Enters&& enters) {
  bool have = false;
  out.hit.status = Status::miss;
  while (!w.empty()) {
    const std::uint32_t r = w.pop();
    ++out.rooms_visited;
    const auto h = cast(r, best);
    if (stops(h)) {
      out.hit = h;
      out.room = r;
      return;
    }
    if (h.status == Status::hit && (!have || time(h) < best || (time(h) == best && r < out.room))) {
      have = true;
      best = time(h);
      out.hit = h;
      out.room = r;
    }
    enter_portals(L, r, w, [&](const Portal<S>& p) { return enters(p, past(best)); });
  }
}

}  // namespace

template <class S>
std::string build_level(Level<S>& L) {
  if (L.rooms.size() > kLevelMaxRooms) return "rooms: more than " + std::to_string(kLevelMaxRooms);
  for (std::size_t i = 0; i < L.rooms.size(); ++i) {
    Room<S>& r = L.rooms[i];
    const std::string at = "rooms." + std::to_string(i);
    if (auto e = build_mesh(r.mesh, L.build); !e.empty()) return at + ".mesh." + e;
    for (int k = 0; k < 3; ++k)
      if (!(r.cell_lo[k] <= r.cell_hi[k])) return at + ".cell: min above max";
    r.portals.clear();
  }
  for (std::size_t i = 0; i < L.portals.size(); ++i) {
    Portal<S>& p = L.portals[i];
    const std::string at = "portals." + std::to_string(i);
    for (int k = 0; k < 2; ++k)
      if (p.rooms[k] >= L.rooms.size()) return at + ".rooms." + std::to_string(k) + ": no such room";
    if (p.sphere) {
      if (p.joined.empty()) p.joined.assign(p.rooms.begin(), p.rooms.end());
      std::sort(p.joined.begin(), p.joined.end());
      p.joined.erase(std::unique(p.joined.begin(), p.joined.end()), p.joined.end());
      for (std::size_t k = 0; k < p.joined.size(); ++k)
        if (p.joined[k] >= L.rooms.size()) return at + ".joined." + std::to_string(k) + ": no such room";
      for (std::uint32_t r : p.joined) L.rooms[r].portals.push_back(static_cast<std::uint32_t>(i));
      continue;
    }
    p.quad.vertices.assign(p.corners.begin(), p.corners.end());
    p.quad.triangles = {{0, 1, 2}, {0, 2, 3}};
    if (auto e = build_mesh(p.quad); !e.empty()) return at + ".corners" + e.substr(e.find('.') == std::string::npos ? e.size() : e.find('.'));
    L.rooms[p.rooms[0]].portals.push_back(static_cast<std::uint32_t>(i));
    if (p.rooms[1] != p.rooms[0]) L.rooms[p.rooms[1]].portals.push_back(static_cast<std::uint32_t>(i));
  }
  return {};
}

template <class S>
int room_at(const Level<S>& L, const Vec3<S>& p) {
  for (std::size_t i = 0; i < L.rooms.size(); ++i) {
    const Room<S>& r = L.rooms[i];
    if ((p.array() >= r.cell_lo.array()).all() && (p.array() <= r.cell_hi.array()).all()) return static_cast<int>(i);
  }
  return -1;
}

template <class S>
LevelRayHit<S> level_ray_cast(const Level<S>& L, const Ray<S>& ray, const MeshRayOptions<S>& opt, int start) {
  LevelRayHit<S> out;
  if (auto e = mesh_detail::ray_input_error(ray, opt); !e.empty()) return out.hit.error = std::move(e), out;
  RoomWalk w;
  start_rooms(L, ray.origin, start, w);
  walk_rooms(
      L, w, opt.max_lambda, out,
      [&](std::uint32_t r, S limit) {
        MeshRayOptions<S> o = opt;
        o.max_lambda = limit;
        return mesh_ray_cast(L.rooms[r].mesh, ray, o);
      },
      [](const MeshRayHit<S>& h) { return h.lambda; },
      [](const MeshRayHit<S>& h) { return h.status == Status::invalid_input; },
      [&](const Portal<S>& p, S reach) {
        if (p.sphere) return enters_sphere(p, ray.origin, ray.direction, S(0), reach);
        return mesh_ray_cast(p.quad, ray, {.max_lambda = reach, .back_faces = BackFaces::collide}).status == Status::hit;
      });
  return out;
}

template <class S>
LevelCastHit<S> level_sphere_cast(const Level<S>& L, const Vec3<S>& c, S radius, const Vec3<S>& path,
                                  const MeshSphereOptions<S>& opt, int start) {
  LevelCastHit<S> out;
  if (auto e = mesh_detail::sphere_input_error(c, radius, path, opt); !e.empty()) return out.hit.error = std::move(e), out;
  RoomWalk w;
  start_rooms(L, c, start, w);
  walk_rooms(
      L, w, std::clamp(opt.max_toi, S(0), S(1)), out,
      [&](std::uint32_t r, S limit) {
        MeshSphereOptions<S> o = opt;
        o.max_toi = limit;
        return mesh_sphere_cast(L.rooms[r].mesh, c, radius, path, o);
      },
      [](const MeshCastHit<S>& h) { return h.contact_time; },
      [](const MeshCastHit<S>& h) {
        return h.status == Status::invalid_input || h.status == Status::initially_overlapping;
      },
      [&](const Portal<S>& p, S reach) {
        if (p.sphere) return enters_sphere(p, c, path, radius, reach);
        const auto ph = mesh_sphere_cast(p.quad, c, radius, path, {.back_faces = BackFaces::collide, .max_toi = reach});
        return ph.status == Status::hit || ph.status == Status::initially_overlapping;
      });
  return out;
}

template <class S>
CarveReport carve(Level<S>& L, const Vec3<S>& center, S radius) {
  CarveReport rep;
  if (auto e = detail::check_vector(center, "center"); !e.empty()) return rep.error = e, rep;
  if (auto e = detail::check_scalar(radius, "radius"); !e.empty()) return rep.error = e, rep;
  const S rr = radius * radius;
  S reach = radius;  // the hole's extent: removed triangles may stick out of the blast sphere
  for (std::uint32_t ri = 0; ri < L.rooms.size(); ++ri) {
    TriangleMesh<S>& m = L.rooms[ri].mesh;
    // Cull with the room's root box first: most rooms are far from the blast.
    Vec3<S> lo, hi;
    if (!m.bounds(lo, hi)) continue;
    if (((center.array() + radius) < lo.array()).any() || ((center.array() - radius) > hi.array()).any()) continue;
    std::vector<std::array<std::uint32_t, 3>> kept;
    kept.reserve(m.triangles.size());
    for (const auto& t : m.triangles) {
      MeshFeature f;
      const Vec3<S> q = mesh_detail::closest_on_triangle(center, m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]], f);
      if ((q - center).squaredNorm() > rr) {
        kept.push_back(t);
      } else {
        for (int k = 0; k < 3; ++k) reach = std::max(reach, (m.vertices[t[k]] - center).norm());
      }
    }
    if (kept.size() == m.triangles.size()) continue;
    const auto removed = static_cast<std::uint32_t>(m.triangles.size() - kept.size());
    m.triangles = std::move(kept);
    const auto t0 = std::chrono::steady_clock::now();
    (void)build_mesh(m, L.build);  // vertices unchanged and valid
    const auto t1 = std::chrono::steady_clock::now();
    rep.rooms.push_back(ri);
    rep.removed.push_back(removed);
    rep.rebuild_seconds.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  // Join the rooms whose cells the blast reaches: the hole may open one into the other.
  std::vector<std::uint32_t> near;
  for (std::uint32_t ri = 0; ri < L.rooms.size(); ++ri) {
    const Room<S>& r = L.rooms[ri];
    const Vec3<S> q = center.cwiseMax(r.cell_lo).cwiseMin(r.cell_hi);
    if ((q - center).norm() <= reach) near.push_back(ri);
  }
  // One portal joins them all: O(k) for k rooms (a portal per pair was k²/2 portals, 3 GB and
  // 31 s for a blast reaching 4,096 rooms, and every walk through them listed k² portals).
  if (!rep.rooms.empty() && near.size() >= 2) {
    Portal<S> p;
    p.rooms = {near[0], near[1]};
    p.sphere = true;
    p.center = center;
    p.radius = reach;
    p.joined = near;  // ascending, as build_level keeps them
    const auto idx = static_cast<std::uint32_t>(L.portals.size());
    for (std::uint32_t r : near) L.rooms[r].portals.push_back(idx);
    L.portals.push_back(std::move(p));
    rep.portals_added = 1;
    rep.joined = std::move(near);
  }
  return rep;
}

template <class T, class S>
std::string convert_level(const Level<S>& in, Level<T>& out) {
  out = Level<T>{};
  out.build = in.build;
  for (const Room<S>& r : in.rooms) {
    Room<T> room;
    for (const auto& v : r.mesh.vertices) room.mesh.vertices.push_back(v.template cast<T>());
    room.mesh.triangles = r.mesh.triangles;
    room.cell_lo = r.cell_lo.template cast<T>();
    room.cell_hi = r.cell_hi.template cast<T>();
    out.rooms.push_back(std::move(room));
  }
  for (const Portal<S>& p : in.portals) {
    Portal<T> q;
    q.rooms = p.rooms;
    q.sphere = p.sphere;
    q.joined = p.joined;
    for (std::size_t k = 0; k < p.corners.size(); ++k) q.corners[k] = p.corners[k].template cast<T>();
    q.center = p.center.template cast<T>();
    q.radius = static_cast<T>(p.radius);
    out.portals.push_back(std::move(q));
  }
  return build_level(out);
}

#define IMPACT_LEVEL_INSTANTIATE(S)                                                                               \
  template std::string build_level<S>(Level<S>&);                                                                 \
  template int room_at<S>(const Level<S>&, const Vec3<S>&);                                                       \
  template LevelRayHit<S> level_ray_cast<S>(const Level<S>&, const Ray<S>&, const MeshRayOptions<S>&, int);      \
  template LevelCastHit<S> level_sphere_cast<S>(const Level<S>&, const Vec3<S>&, S, const Vec3<S>&,             \
                                                const MeshSphereOptions<S>&, int);                                \
  template CarveReport carve<S>(Level<S>&, const Vec3<S>&, S);
IMPACT_LEVEL_INSTANTIATE(float)
IMPACT_LEVEL_INSTANTIATE(double)
#undef IMPACT_LEVEL_INSTANTIATE
template std::string convert_level<float, double>(const Level<double>&, Level<float>&);
template std::string convert_level<double, float>(const Level<float>&, Level<double>&);

}  // namespace impact
