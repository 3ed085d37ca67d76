// impact — level_protocol.cpp: rooms, portals and carving in `impact query` (docs/mesh.md).
#include "level_protocol.hpp"

#include "mesh_protocol.hpp"

#include <impact/level.hpp>

#include <map>
#include <memory>

namespace impact::cli {
namespace {

/// A level stored by define_level, with its float twin built on first use (dropped by carve).
struct StoredLevel {
  Level<double> d;
  std::unique_ptr<Level<float>> f;
  const Level<float>& as_float() {
    if (!f) {
      f = std::make_unique<Level<float>>();
      (void)convert_level(d, *f);  // the double level was valid
    }
    return *f;
  }
};

std::map<std::string, std::shared_ptr<StoredLevel>, std::less<>>& levels() {
  static std::map<std::string, std::shared_ptr<StoredLevel>, std::less<>> store;  // one process per stream
  return store;
}

std::shared_ptr<StoredLevel> level_named(Fields& f) {
  const std::string name = text(f.required("level"), "level");
  auto it = levels().find(name);
  if (it == levels().end()) throw Bad{"level: no level named '" + name + "' was defined"};
  return it->second;
}

BackFaces back_faces_of(Fields& f) {
  const json* v = f.optional("back_faces");
  if (!v) return BackFaces::ignore;
  const std::string s = text(*v, "back_faces");
  if (s == "ignore") return BackFaces::ignore;
  if (s == "collide") return BackFaces::collide;
  throw Bad{"back_faces: expected \"ignore\" or \"collide\", got '" + s + "'"};
}

/// A room index: an integer (written as one) below the level's room count.
std::uint32_t room_index(const json& v, const std::string& path, std::size_t rooms) {
  if (v.is_number_integer() && (v.get<std::int64_t>() < 0 || v.get<std::uint64_t>() >= rooms))
    throw Bad{path + ": no such room"};
  return static_cast<std::uint32_t>(integer(v, path, 0, static_cast<std::int64_t>(rooms) - 1));
}

int start_room(Fields& f, std::size_t rooms) {
  const json* v = f.optional("room");
  return v ? static_cast<int>(room_index(*v, "room", rooms)) : -1;
}

int positive_int(const json& v, const std::string& path, int hi) { return static_cast<int>(integer(v, path, 1, hi)); }

}  // namespace

void read_level(Fields& f, Level<double>& level) {
  const json& rooms = f.required("rooms");
  const json* portals = f.optional("portals");
  if (const json* v = f.optional("leaf_size")) level.build.leaf_size = positive_int(*v, "leaf_size", 1 << 20);
  if (const json* v = f.optional("max_depth")) level.build.max_depth = positive_int(*v, "max_depth", kMeshMaxDepth);
  f.finish();
  if (!rooms.is_array() || rooms.empty()) throw Bad{"rooms: expected a non-empty array of rooms"};
  if (rooms.size() > kLevelMaxRooms) throw Bad{"rooms: more than " + std::to_string(kLevelMaxRooms) + " rooms"};
  for (std::size_t i = 0; i < rooms.size(); ++i) {
    const std::string at = "rooms." + std::to_string(i);
    Fields rf(rooms[i], at);
    Room<double> r;
    parse_mesh_arrays(rf.required("mesh"), rf.at("mesh"), r.mesh);
    Fields cf(rf.required("cell"), rf.at("cell"));
    r.cell_lo = vec(cf.required("min"), cf.at("min"));
    r.cell_hi = vec(cf.required("max"), cf.at("max"));
    cf.finish();
    rf.finish();
    level.rooms.push_back(std::move(r));
  }
  if (portals) {
    if (!portals->is_array()) throw Bad{"portals: expected an array of portals"};
    for (std::size_t i = 0; i < portals->size(); ++i) {
      const std::string at = "portals." + std::to_string(i);
      Fields pf((*portals)[i], at);
      const json& rs = pf.required("rooms");
      const json& cs = pf.required("corners");
      pf.finish();
      Portal<double> p;
      if (!rs.is_array() || rs.size() != 2) throw Bad{pf.at("rooms") + ": expected [room, room]"};
      for (int k = 0; k < 2; ++k) {
        const std::string rp = pf.at("rooms") + "." + std::to_string(k);
        p.rooms[k] = room_index(rs[k], rp, rooms.size());
      }
      if (!cs.is_array() || cs.size() != 4) throw Bad{pf.at("corners") + ": expected 4 corners"};
      for (int k = 0; k < 4; ++k) p.corners[k] = vec(cs[k], pf.at("corners") + "." + std::to_string(k));
      level.portals.push_back(std::move(p));
    }
  }
  if (auto e = build_level(level); !e.empty()) throw Bad{e};
}

namespace {

void define_level(Fields& f, ojson& out) {
  const std::string name = text(f.required("name"), "name");
  auto L = std::make_shared<StoredLevel>();
  read_level(f, L->d);
  std::size_t total = 0;
  for (const auto& r : L->d.rooms) total += r.mesh.triangles.size();
  out["status"] = "ok";
  out["rooms"] = L->d.rooms.size();
  out["triangles"] = total;
  levels()[name] = std::move(L);
}

template <class S>
const Level<S>& typed(StoredLevel& L) {
  if constexpr (std::is_same_v<S, double>) return L.d;
  else return L.as_float();
}

template <class S>
void ray(StoredLevel& L, const Vec3<double>& o, const Vec3<double>& d, double max_lambda, BackFaces bf, int room,
         ojson& out) {
  MeshRayOptions<S> opt;
  opt.max_lambda = static_cast<S>(max_lambda);
  opt.back_faces = bf;
  const LevelRayHit<S> h = level_ray_cast<S>(typed<S>(L), Ray<S>{o.cast<S>(), d.cast<S>()}, opt, room);
  if (h.hit.status == Status::invalid_input) throw Bad{h.hit.error};
  out["status"] = std::string(to_string(h.hit.status));
  if (h.hit.status == Status::hit) {
    out["lambda"] = static_cast<double>(h.hit.lambda);
    put_vec(out, "point", h.hit.point);
    put_vec(out, "normal", h.hit.normal);
    out["room"] = h.room;
    out["triangle"] = h.hit.triangle;
  }
  out["rooms_visited"] = h.rooms_visited;
}

template <class S>
void sphere(StoredLevel& L, const Vec3<double>& c, double r, const Vec3<double>& path, double buffer, BackFaces bf,
            int room, ojson& out) {
  MeshSphereOptions<S> opt;
  opt.buffer = static_cast<S>(buffer);
  opt.back_faces = bf;
  const LevelCastHit<S> h = level_sphere_cast<S>(typed<S>(L), c.cast<S>(), static_cast<S>(r), path.cast<S>(), opt, room);
  if (h.hit.status == Status::invalid_input) throw Bad{h.hit.error};
  out["status"] = std::string(to_string(h.hit.status));
  if (h.hit.status != Status::miss) {
    out["toi"] = static_cast<double>(h.hit.toi);
    put_vec(out, "point", h.hit.point);
    put_vec(out, "normal", h.hit.normal);
    out["room"] = h.room;
    out["triangle"] = h.hit.triangle;
    out["feature"] = to_string(h.hit.feature);
  }
  out["rooms_visited"] = h.rooms_visited;
}

}  // namespace

bool is_level_query(const std::string& q) {
  return q == "define_level" || q == "level_ray_cast" || q == "level_sphere_cast" || q == "carve";
}

void answer_level_query(const std::string& q, Fields& f, bool use_float, ojson& out) {
  if (q == "define_level") {
    define_level(f, out);
  } else if (q == "level_ray_cast") {
    auto L = level_named(f);
    const Vec3<double> o = vec(f.required("origin"), "origin");
    const Vec3<double> d = vec(f.required("direction"), "direction");
    double max_lambda = 1;
    if (const json* l = f.optional("max_lambda")) max_lambda = size(*l, "max_lambda");
    const BackFaces bf = back_faces_of(f);
    const int room = start_room(f, L->d.rooms.size());
    f.finish();
    if (use_float) ray<float>(*L, o, d, max_lambda, bf, room, out);
    else ray<double>(*L, o, d, max_lambda, bf, room, out);
  } else if (q == "level_sphere_cast") {
    auto L = level_named(f);
    const Vec3<double> c = vec(f.required("center"), "center");
    const double r = size(f.required("radius"), "radius");
    const Vec3<double> path = vec(f.required("path"), "path");
    double buffer = 0;
    if (const json* b = f.optional("buffer")) buffer = size(*b, "buffer");
    const BackFaces bf = back_faces_of(f);
    const int room = start_room(f, L->d.rooms.size());
    f.finish();
    if (use_float) sphere<float>(*L, c, r, path, buffer, bf, room, out);
    else sphere<double>(*L, c, r, path, buffer, bf, room, out);
  } else if (q == "carve") {
    auto L = level_named(f);
    const Vec3<double> c = vec(f.required("center"), "center");
    const double r = size(f.required("radius"), "radius");
    f.finish();
    const CarveReport rep = carve(L->d, c, r);
    if (!rep.error.empty()) throw Bad{rep.error};
    L->f.reset();  // the float twin is rebuilt from the carved level on next use
    out["status"] = "ok";
    out["rooms"] = rep.rooms;
    out["removed"] = rep.removed;
    out["rebuild_seconds"] = rep.rebuild_seconds;
    out["portals_added"] = rep.portals_added;
    out["portal_rooms"] = rep.joined;
  } else {
    throw Bad{"query: unknown query '" + q + "'"};
  }
}

}  // namespace impact::cli
