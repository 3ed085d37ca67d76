// impact — python/src/levels.cpp: levels of rooms and portals in the Python module: the Room and
// Portal descriptions, the Level class (double, with a float twin rebuilt after each carve, as
// `impact query` keeps it), level_ray_cast, level_sphere_cast, carve and their result classes.
#include "common.hpp"

#include <string>
#include <utility>

namespace impact::python {
namespace {

/// A room as Python describes it (built into the level by Level()).
struct RoomSpec {
  std::vector<Vec3<double>> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  Vec3<double> cell_min, cell_max;
};

/// A quad portal as Python describes it.
struct PortalSpec {
  std::array<std::uint32_t, 2> rooms{0, 0};
  std::array<Vec3<double>, 4> corners;
};

LevelPtr make_level(const std::vector<RoomSpec>& rooms, const std::vector<PortalSpec>& portals,
                    const MeshBuildOptions& options) {
  if (rooms.empty()) throw py::value_error("rooms: expected at least one room");
  if (rooms.size() > kLevelMaxRooms) throw py::value_error("rooms: more than " + std::to_string(kLevelMaxRooms));
  auto L = std::make_shared<LevelObj>();
  L->d.build = options;
  for (const auto& r : rooms) {
    Room<double> room;
    room.mesh.vertices = r.vertices;
    room.mesh.triangles = r.triangles;
    room.cell_lo = r.cell_min;
    room.cell_hi = r.cell_max;
    L->d.rooms.push_back(std::move(room));
  }
  for (const auto& p : portals) {
    Portal<double> portal;
    portal.rooms = p.rooms;
    portal.corners = p.corners;
    L->d.portals.push_back(std::move(portal));
  }
  if (auto e = build_level(L->d); !e.empty()) throw py::value_error(e);
  return L;
}

int start_room(const LevelObj& L, const py::object& room) {
  if (room.is_none()) return -1;
  const auto r = room.cast<std::int64_t>();
  if (r < 0 || r >= static_cast<std::int64_t>(L.d.rooms.size())) throw py::value_error("room: no such room");
  return static_cast<int>(r);
}

template <class S>
LevelRayHit<double> ray(LevelObj& L, const Vec3<double>& o, const Vec3<double>& d, const MeshRayOptions<double>& opt,
                        int room) {
  const MeshRayOptions<S> o2{static_cast<S>(opt.max_lambda), opt.back_faces, opt.brute_force, opt.normal};
  const LevelRayHit<S> h = level_ray_cast<S>(L.get<S>(), Ray<S>{o.cast<S>(), d.cast<S>()}, o2, room);
  return {{h.hit.status, double(h.hit.lambda), widen(h.hit.point), widen(h.hit.normal), h.hit.triangle, h.hit.error},
          h.room,
          h.rooms_visited};
}

template <class S>
LevelCastHit<double> sphere(LevelObj& L, const Vec3<double>& c, double r, const Vec3<double>& path,
                            const MeshSphereOptions<double>& opt, int room) {
  const MeshSphereOptions<S> o2{static_cast<S>(opt.buffer), opt.back_faces, opt.brute_force, static_cast<S>(opt.max_toi)};
  const LevelCastHit<S> h = level_sphere_cast<S>(L.get<S>(), c.cast<S>(), static_cast<S>(r), path.cast<S>(), o2, room);
  const auto& x = h.hit;
  return {{x.status, double(x.toi), double(x.contact_time), widen(x.point), widen(x.normal), x.triangle, x.feature,
           x.sphere, x.error},
          h.room,
          h.rooms_visited};
}

// ---- classes ----------------------------------------------------------------------------------

void bind_level_results(py::module_& m) {
  using R = LevelRayHit<double>;
  py::class_<R>(m, "LevelRayHit", "Answer of level_ray_cast(): the MeshRayHit fields plus room and rooms_visited.")
      .def_property_readonly("status", [](const R& h) { return h.hit.status; })
      .def_property_readonly("lambda_", [](const R& h) { return h.hit.lambda; }, "Ray parameter of the hit.")
      .def_property_readonly("lambda", [](const R& h) { return h.hit.lambda; }, "Same as lambda_.")
      .def_property_readonly("point", [](const R& h) { return to_numpy(h.hit.point); })
      .def_property_readonly("normal", [](const R& h) { return to_numpy(h.hit.normal); })
      .def_property_readonly("triangle", [](const R& h) { return h.hit.triangle; }, "Triangle index within its room.")
      .def_property_readonly("error", [](const R& h) { return h.hit.error; })
      .def_readonly("room", &R::room, "Room of the triangle hit.")
      .def_readonly("rooms_visited", &R::rooms_visited, "Rooms the walk searched.")
      .def("__repr__", [](py::handle s) {
        return fields_repr("LevelRayHit", s,
                           {"status", "lambda_", "point", "normal", "room", "triangle", "rooms_visited", "error"});
      });
  using C = LevelCastHit<double>;
  py::class_<C>(m, "LevelCastHit", "Answer of level_sphere_cast(): the MeshCastHit fields plus room and rooms_visited.")
      .def_property_readonly("status", [](const C& h) { return h.hit.status; })
      .def_property_readonly("toi", [](const C& h) { return h.hit.toi; })
      .def_property_readonly("contact_time", [](const C& h) { return h.hit.contact_time; })
      .def_property_readonly("point", [](const C& h) { return to_numpy(h.hit.point); })
      .def_property_readonly("normal", [](const C& h) { return to_numpy(h.hit.normal); })
      .def_property_readonly("triangle", [](const C& h) { return h.hit.triangle; }, "Triangle index within its room.")
      .def_property_readonly("feature", [](const C& h) { return h.hit.feature; })
      .def_property_readonly("error", [](const C& h) { return h.hit.error; })
      .def_readonly("room", &C::room, "Room of the triangle touched.")
      .def_readonly("rooms_visited", &C::rooms_visited, "Rooms the walk searched.")
      .def("__repr__", [](py::handle s) {
        return fields_repr("LevelCastHit", s,
                           {"status", "toi", "point", "normal", "room", "triangle", "feature", "rooms_visited", "error"});
      });
  py::class_<CarveReport>(m, "CarveReport", "What carve() did; `error` is non-empty when the blast was invalid "
                                            "(and nothing changed).")
      .def_readonly("rooms", &CarveReport::rooms, "Rooms that lost triangles (their trees rebuilt).")
      .def_readonly("removed", &CarveReport::removed, "Triangles removed from each of those rooms.")
      .def_readonly("rebuild_seconds", &CarveReport::rebuild_seconds, "Tree rebuild time of each (measured).")
      .def_readonly("portals_added", &CarveReport::portals_added, "0 or 1.")
      .def_readonly("joined", &CarveReport::joined, "Rooms the added portal joins (sorted).")
      .def_readonly("error", &CarveReport::error)
      .def("__repr__", [](py::handle s) {
        return fields_repr("CarveReport", s, {"rooms", "removed", "portals_added", "joined", "error"});
      });
}

void bind_level_class(py::module_& m) {
  py::class_<RoomSpec>(m, "Room", "A room of a level: its triangles (indices within the room) and its cell, the box "
                                  "[cell_min, cell_max] in which casts may start.")
      .def(py::init([](const py::object& v, const py::object& t, const py::object& lo, const py::object& hi) {
             return RoomSpec{rows3(v, "vertices"), triangles_of(t), vec3(lo, "cell_min"), vec3(hi, "cell_max")};
           }),
           py::arg("vertices"), py::arg("triangles"), py::arg("cell_min"), py::arg("cell_max"))
      .def_property_readonly("vertices", [](const RoomSpec& r) { return rows_numpy(r.vertices); })
      .def_property_readonly("triangles", [](const RoomSpec& r) { return triangles_numpy(r.triangles); })
      .def_property_readonly("cell_min", [](const RoomSpec& r) { return to_numpy(r.cell_min); })
      .def_property_readonly("cell_max", [](const RoomSpec& r) { return to_numpy(r.cell_max); });
  py::class_<PortalSpec>(m, "Portal", "A flat convex quad (4 corners in order) joining two rooms, crossed either way.")
      .def(py::init([](const std::array<std::uint32_t, 2>& rooms, const py::object& corners) {
             const auto c = rows3(corners, "corners");
             if (c.size() != 4) throw py::value_error("corners: expected 4 corners");
             return PortalSpec{rooms, {c[0], c[1], c[2], c[3]}};
           }),
           py::arg("rooms"), py::arg("corners"))
      .def_readonly("rooms", &PortalSpec::rooms)
      .def_property_readonly("corners", [](const PortalSpec& p) {
        return rows_numpy(std::vector<Vec3<double>>(p.corners.begin(), p.corners.end()));
      });
  py::class_<LevelObj, LevelPtr>(m, "Level",
                                 "Rooms joined by portals, each room with its own mesh and tree (build_level). Built in "
                                 "double; float queries use a float twin made on first use. carve() changes it. A bad "
                                 "level raises ValueError naming the field.")
      .def(py::init([](const std::vector<RoomSpec>& rooms, const std::vector<PortalSpec>& portals,
                       const py::object& split, int leaf_size, int max_depth) {
             return make_level(rooms, portals, build_options(split, leaf_size, max_depth));
           }),
           py::arg("rooms"), py::arg("portals") = std::vector<PortalSpec>{}, py::kw_only(),
           py::arg("split") = MeshSplit::middle, py::arg("leaf_size") = 4, py::arg("max_depth") = kMeshMaxDepth)
      .def("__len__", [](const LevelObj& L) { return L.d.rooms.size(); }, "Number of rooms.")
      .def_property_readonly("portal_count", [](const LevelObj& L) { return L.d.portals.size(); },
                             "Portals, carved spherical ones included.")
      .def_property_readonly(
          "triangle_counts",
          [](const LevelObj& L) {
            std::vector<std::size_t> n;
            for (const auto& r : L.d.rooms) n.push_back(r.mesh.triangles.size());
            return n;
          },
          "Triangles of each room.")
      .def(
          "room_mesh",
          [](const LevelObj& L, std::size_t i) {
            if (i >= L.d.rooms.size()) throw py::index_error("room: no such room");
            const auto& mesh = L.d.rooms[i].mesh;
            return py::make_tuple(rows_numpy(mesh.vertices), triangles_numpy(mesh.triangles));
          },
          py::arg("room"), "(vertices, triangles) of a room now (after carving, renumbered).")
      .def(
          "room_at", [](const LevelObj& L, const py::object& p) { return room_at(L.d, vec3(p, "point")); },
          py::arg("point"), "The first room whose cell holds the point, or -1.")
      .def("__repr__", [](const LevelObj& L) {
        return "Level(<" + std::to_string(L.d.rooms.size()) + " rooms, " + std::to_string(L.d.portals.size()) +
               " portals>)";
      });
}

void bind_level_queries(py::module_& m) {
  const auto none = py::none();
  m.def(
      "level_ray_cast",
      [](const LevelPtr& L, const py::object& origin, const py::object& direction, double max_lambda,
         const py::object& back_faces, bool brute_force, bool normal, const py::object& room, const std::string& precision) {
        const MeshRayOptions<double> o{max_lambda, enum_arg<BackFaces>(back_faces, "back_faces"), brute_force, normal};
        const Vec3<double> org = vec3(origin, "origin"), dir = vec3(direction, "direction");
        const int r = start_room(*L, room);
        return is_float(precision) ? ray<float>(*L, org, dir, o, r) : ray<double>(*L, org, dir, o, r);
      },
      py::arg("level"), py::arg("origin"), py::arg("direction"), py::kw_only(), py::arg("max_lambda") = 1.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("normal") = true,
      py::arg("room") = none, py::arg("precision") = "double",
      "Casts a ray through the level from `room` (None: the room whose cell holds the origin; when none does, every "
      "room), entering rooms through the portals it crosses. normal=False leaves the hit's normal zero.");
  m.def(
      "level_sphere_cast",
      [](const LevelPtr& L, const py::object& center, double radius, const py::object& path, double buffer,
         const py::object& back_faces, bool brute_force, double max_toi, const py::object& room,
         const std::string& precision) {
        const MeshSphereOptions<double> o{buffer, enum_arg<BackFaces>(back_faces, "back_faces"), brute_force, max_toi};
        const Vec3<double> c = vec3(center, "center"), p = vec3(path, "path");
        const int r = start_room(*L, room);
        return is_float(precision) ? sphere<float>(*L, c, radius, p, o, r) : sphere<double>(*L, c, radius, p, o, r);
      },
      py::arg("level"), py::arg("center"), py::arg("radius"), py::arg("path"), py::kw_only(), py::arg("buffer") = 0.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("max_toi") = 1.0,
      py::arg("room") = none, py::arg("precision") = "double",
      "Casts a sphere through the level (as mesh_sphere_cast; portals grown by the radius).");
  m.def(
      "carve",
      [](const LevelPtr& L, const py::object& center, double radius) {
        if (L->readers > 0) throw std::runtime_error("carve: a batch call is reading this level in another thread");
        CarveReport rep = carve(L->d, vec3(center, "center"), radius);
        if (rep.error.empty()) L->f.reset();  // the float twin is rebuilt from the carved level on next use
        return rep;
      },
      py::arg("level"), py::arg("center"), py::arg("radius"),
      "Removes every triangle within radius of center, rebuilds the trees of the rooms that lost triangles, and joins "
      "the rooms whose cells the hole reaches by a spherical portal.");
}

}  // namespace

void bind_levels(py::module_& m) {
  bind_level_results(m);
  bind_level_class(m);
  bind_level_queries(m);
}

}  // namespace impact::python
