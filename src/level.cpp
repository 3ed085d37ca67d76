// impact — level.cpp: rooms and portals, walks through them, and carving (level.hpp).
#include <impact/level.hpp>

#include "mesh_impl.hpp"

#include <bitset>
#include <chrono>

namespace impact {
namespace {

/// Fixed-capacity work list and visited set of a walk (no heap allocation per query).
struct RoomWalk {
  std::bitset<kLevelMaxRooms> seen;
  std::uint32_t queue[kLevelMaxRooms];
  std::size_t head = 0, tail = 0;
  void push(std::uint32_t r) {
    if (r >= kLevelMaxRooms || seen[r]) return;
    seen[r] = true;
    queue[tail++] = r;
  }
  bool empty() const { return head == tail; }
  std::uint32_t pop() { return queue[head++]; }
};

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
    if (!p.sphere) {
      p.quad.vertices.assign(p.corners.begin(), p.corners.end());
      p.quad.triangles = {{0, 1, 2}, {0, 2, 3}};
      if (auto e = build_mesh(p.quad); !e.empty()) return at + ".corners" + e.substr(e.find('.') == std::string::npos ? e.size() : e.find('.'));
    }
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
  RoomWalk w;
  start_rooms(L, ray.origin, start, w);
  S best = opt.max_lambda;
  bool have = false;
  out.hit.status = Status::miss;
  while (!w.empty()) {
    const std::uint32_t r = w.pop();
    ++out.rooms_visited;
    MeshRayOptions<S> o = opt;
    o.max_lambda = best;
    const MeshRayHit<S> h = mesh_ray_cast(L.rooms[r].mesh, ray, o);
    if (h.status == Status::invalid_input) {
      out.hit = h;
      return out;
    }
    if (h.status == Status::hit && (!have || h.lambda < best || (h.lambda == best && r < out.room))) {
      have = true;
      best = h.lambda;
      out.hit = h;
      out.room = r;
    }
    for (std::uint32_t pi : L.rooms[r].portals) {
      const Portal<S>& p = L.portals[pi];
      const std::uint32_t other = p.rooms[0] == r ? p.rooms[1] : p.rooms[0];
      if (w.seen[other]) continue;
      bool through;
      if (p.sphere) {
        through = enters_sphere(p, ray.origin, ray.direction, S(0), past(best));
      } else {
        through = mesh_ray_cast(p.quad, ray, {.max_lambda = past(best), .back_faces = BackFaces::collide}).status == Status::hit;
      }
      if (through) w.push(other);
    }
  }
  return out;
}

template <class S>
LevelCastHit<S> level_sphere_cast(const Level<S>& L, const Vec3<S>& c, S radius, const Vec3<S>& path,
                                  const MeshSphereOptions<S>& opt, int start) {
  LevelCastHit<S> out;
  RoomWalk w;
  start_rooms(L, c, start, w);
  S best = std::clamp(opt.max_toi, S(0), S(1));
  bool have = false;
  out.hit.status = Status::miss;
  while (!w.empty()) {
    const std::uint32_t r = w.pop();
    ++out.rooms_visited;
    MeshSphereOptions<S> o = opt;
    o.max_toi = best;
    const MeshCastHit<S> h = mesh_sphere_cast(L.rooms[r].mesh, c, radius, path, o);
    if (h.status == Status::invalid_input || h.status == Status::initially_overlapping) {
      out.hit = h;
      out.room = r;
      return out;
    }
    if (h.status == Status::hit && (!have || h.contact_time < best || (h.contact_time == best && r < out.room))) {
      have = true;
      best = h.contact_time;
      out.hit = h;
      out.room = r;
    }
    for (std::uint32_t pi : L.rooms[r].portals) {
      const Portal<S>& p = L.portals[pi];
      const std::uint32_t other = p.rooms[0] == r ? p.rooms[1] : p.rooms[0];
      if (w.seen[other]) continue;
      bool through;
      if (p.sphere) {
        through = enters_sphere(p, c, path, radius, past(best));
      } else {
        const auto ph = mesh_sphere_cast(p.quad, c, radius, path, {.back_faces = BackFaces::collide, .max_toi = past(best)});
        through = ph.status == Status::hit || ph.status == Status::initially_overlapping;
      }
      if (through) w.push(other);
    }
  }
  return out;
}

template <class S>
CarveReport carve(Level<S>& L, const Vec3<S>& center, S radius) {
  CarveReport rep;
  if (auto e = mesh_detail::check_vec(center, "center"); !e.empty()) return rep.error = e, rep;
  if (auto e = mesh_detail::check_size(radius, "radius"); !e.empty()) return rep.error = e, rep;
  const S rr = radius * radius;
  S reach = radius;  // the hole's extent: removed triangles may stick out of the blast sphere
  for (std::uint32_t ri = 0; ri < L.rooms.size(); ++ri) {
    TriangleMesh<S>& m = L.rooms[ri].mesh;
    if (m.nodes.empty()) continue;
    // Cull with the room's root box first: most rooms are far from the blast.
    const MeshNode<S>& root = m.nodes[0];
    if (((center.array() + radius) < root.lo.array()).any() || ((center.array() - radius) > root.hi.array()).any()) continue;
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
  if (!rep.rooms.empty()) {
    for (std::size_t i = 0; i < near.size(); ++i)
      for (std::size_t j = i + 1; j < near.size(); ++j) {
        Portal<S> p;
        p.rooms = {near[i], near[j]};
        p.sphere = true;
        p.center = center;
        p.radius = reach;
        const auto idx = static_cast<std::uint32_t>(L.portals.size());
        L.portals.push_back(std::move(p));
        L.rooms[near[i]].portals.push_back(idx);
        L.rooms[near[j]].portals.push_back(idx);
        ++rep.portals_added;
      }
  }
  return rep;
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

}  // namespace impact
