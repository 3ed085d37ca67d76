// impact — python/src/meshes.cpp: triangle meshes in the Python module: the TriangleMesh class
// (from arrays or an OBJ file), load_obj, the mesh casts (ray, sphere, spheres, convex shape) and
// their result classes. A mesh is built per precision on first use (common.hpp, MeshObj).
#include "common.hpp"

#include <limits>
#include <string>
#include <utility>

namespace impact::python {

// ---- building (shared with levels.cpp) ---------------------------------------------------------

std::vector<std::array<std::uint32_t, 3>> triangles_of(const py::object& o) {
  py::array raw = py::array::ensure(o);
  if (!raw) {
    PyErr_Clear();
    throw py::type_error("triangles: expected an integer array of shape (M, 3)");
  }
  const char kind = raw.dtype().kind();
  if (raw.size() > 0 && kind != 'i' && kind != 'u')
    throw py::type_error("triangles: expected integer indices, got dtype " + raw.dtype().attr("name").cast<std::string>());
  const auto a = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(raw);
  if (!a || a.ndim() != 2 || a.shape(1) != 3) throw py::value_error("triangles: expected an array of shape (M, 3)");
  std::vector<std::array<std::uint32_t, 3>> out(static_cast<std::size_t>(a.shape(0)));
  const auto r = a.unchecked<2>();
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    for (int k = 0; k < 3; ++k) {
      const std::int64_t x = r(i, k);
      if (x < 0 || x > std::int64_t{std::numeric_limits<std::uint32_t>::max()})
        throw py::value_error("triangles." + std::to_string(i) + "." + std::to_string(k) + ": index " +
                              std::to_string(x) + " out of range");
      out[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(x);
    }
  }
  return out;
}

py::array_t<std::uint32_t> triangles_numpy(const std::vector<std::array<std::uint32_t, 3>>& t) {
  py::array_t<std::uint32_t> a({static_cast<py::ssize_t>(t.size()), py::ssize_t{3}});
  auto r = a.mutable_unchecked<2>();
  for (std::size_t i = 0; i < t.size(); ++i)
    for (int k = 0; k < 3; ++k) r(static_cast<py::ssize_t>(i), k) = t[i][static_cast<std::size_t>(k)];
  return a;
}

MeshBuildOptions build_options(const py::object& split, int leaf_size, int max_depth) {
  if (leaf_size < 1) throw py::value_error("leaf_size: must be at least 1");
  if (max_depth < 1 || max_depth > kMeshMaxDepth)
    throw py::value_error("max_depth: must be in [1, " + std::to_string(kMeshMaxDepth) + "]");
  return {enum_arg<MeshSplit>(split, "split"), leaf_size, max_depth};
}

namespace {

/// Builds the precision(s) named now ("double", "float" or "both"): a bad mesh raises here.
MeshPtr make_mesh(std::vector<Vec3<double>> vertices, std::vector<std::array<std::uint32_t, 3>> triangles,
                  const MeshBuildOptions& options, const std::string& precision) {
  auto m = std::make_shared<MeshObj>();
  m->vertices = std::move(vertices);
  m->triangles = std::move(triangles);
  m->options = options;
  if (precision == "both") {
    (void)m->get<double>();
    (void)m->get<float>();
  } else if (is_float(precision)) {
    (void)m->get<float>();
  } else {
    (void)m->get<double>();
  }
  return m;
}

MeshPtr mesh_from_obj(const std::string& path, const MeshBuildOptions& options, const std::string& precision) {
  std::vector<Vec3<double>> v;
  std::vector<std::array<std::uint32_t, 3>> t;
  if (auto e = load_obj(path, v, t); !e.empty()) throw py::value_error("obj: " + e);
  return make_mesh(std::move(v), std::move(t), options, precision);
}

// ---- answers ----------------------------------------------------------------------------------

template <class S>
MeshRayHit<double> widen_hit(const MeshRayHit<S>& h) {
  return {h.status, double(h.lambda), widen(h.point), widen(h.normal), h.triangle, h.error};
}
template <class S>
MeshCastHit<double> widen_hit(const MeshCastHit<S>& h) {
  return {h.status, double(h.toi), double(h.contact_time), widen(h.point), widen(h.normal), h.triangle,
          h.feature, h.sphere, h.error};
}

struct SphereArgs {
  double buffer;
  BackFaces back_faces;
  bool brute_force;
  double max_toi;
  template <class S>
  MeshSphereOptions<S> get() const {
    return {static_cast<S>(buffer), back_faces, brute_force, static_cast<S>(max_toi)};
  }
};

template <class S>
MeshRayHit<double> ray(const MeshObj& m, const Vec3<double>& o, const Vec3<double>& d, double max_lambda, BackFaces bf,
                       bool brute, bool normal) {
  const MeshRayOptions<S> opt{static_cast<S>(max_lambda), bf, brute, normal};
  return widen_hit(mesh_ray_cast<S>(*m.get<S>(), Ray<S>{o.cast<S>(), d.cast<S>()}, opt));
}

template <class S>
MeshCastHit<double> sphere(const MeshObj& m, const Vec3<double>& c, double r, const Vec3<double>& path,
                           const SphereArgs& x) {
  return widen_hit(mesh_sphere_cast<S>(*m.get<S>(), c.cast<S>(), static_cast<S>(r), path.cast<S>(), x.get<S>()));
}

template <class S>
MeshCastHit<double> spheres(const MeshObj& m, const std::vector<Vec3<double>>& centers, const std::vector<double>& radii,
                            const Vec3<double>& path, const SphereArgs& x) {
  std::vector<SphereInBody<S>> body(centers.size());
  for (std::size_t i = 0; i < centers.size(); ++i)
    body[i] = {centers[i].cast<S>(), static_cast<S>(radii[radii.size() == 1 ? 0 : i])};
  return widen_hit(mesh_spheres_cast<S>(*m.get<S>(), body, path.cast<S>(), x.get<S>()));
}

template <class S>
MeshCastHit<double> shape(const MeshObj& m, const ShapeObj& s, const Pose<double>& pose, const Vec3<double>& v,
                          double target, BackFaces bf, const py::object& tolerance, bool brute) {
  MeshShapeOptions<S> opt;
  opt.target_distance = static_cast<S>(target);
  opt.back_faces = bf;
  opt.tolerance = or_default<S>(tolerance, opt.tolerance);
  opt.brute_force = brute;
  return widen_hit(mesh_shape_cast<S>(*m.get<S>(), s.get<S>(), pose.cast<S>(), v.cast<S>(), opt));
}

std::vector<double> radii_of(const py::object& o, std::size_t n) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(o);
  if (!a || a.ndim() > 1) throw py::value_error("radii: expected a number or an array of shape (K,)");
  std::vector<double> r(a.data(), a.data() + a.size());
  if (r.size() != n && r.size() != 1)
    throw py::value_error("radii: " + std::to_string(r.size()) + " values for " + std::to_string(n) + " centers");
  return r;
}

// ---- classes ----------------------------------------------------------------------------------

void bind_mesh_results(py::module_& m) {
  using R = MeshRayHit<double>;
  py::class_<R>(m, "MeshRayHit", "Answer of mesh_ray_cast(): status hit, miss or invalid_input.")
      .def_readonly("status", &R::status)
      .def_readonly("lambda_", &R::lambda, "Ray parameter of the first crossing.")
      .def_readonly("lambda", &R::lambda, "Same as lambda_.")
      .def_property_readonly("point", [](const R& h) { return to_numpy(h.point); }, "The crossing (world).")
      .def_property_readonly("normal", [](const R& h) { return to_numpy(h.normal); }, "Front normal of the triangle.")
      .def_readonly("triangle", &R::triangle, "Index of the triangle hit.")
      .def_readonly("error", &R::error)
      .def("__repr__", [](py::handle s) {
        return fields_repr("MeshRayHit", s, {"status", "lambda_", "point", "normal", "triangle", "error"});
      });
  using C = MeshCastHit<double>;
  py::class_<C>(m, "MeshCastHit", "Answer of the mesh sphere and shape casts: status hit, miss, initially_overlapping, "
                                  "max_iterations (shape casts: toi a lower bound) or invalid_input.")
      .def_readonly("status", &C::status)
      .def_readonly("toi", &C::toi, "Time of impact in [0, 1], after the distance buffer.")
      .def_readonly("contact_time", &C::contact_time, "Time of first contact, before the buffer.")
      .def_property_readonly("point", [](const C& h) { return to_numpy(h.point); }, "Contact point on the mesh.")
      .def_property_readonly("normal", [](const C& h) { return to_numpy(h.normal); }, "Unit normal toward the body.")
      .def_readonly("triangle", &C::triangle, "Triangle touched.")
      .def_readonly("feature", &C::feature, "Feature touched (sphere casts).")
      .def_readonly("sphere", &C::sphere, "Which sphere of a collection touched.")
      .def_readonly("error", &C::error)
      .def("__repr__", [](py::handle s) {
        return fields_repr("MeshCastHit", s,
                           {"status", "toi", "contact_time", "point", "normal", "triangle", "feature", "sphere", "error"});
      });
}

void bind_mesh_class(py::module_& m) {
  py::class_<MeshObj, MeshPtr>(m, "TriangleMesh",
                               "A triangle mesh with its planes and AABB tree (build_mesh). Front faces wind "
                               "counter-clockwise. Built at construction in `precision` ('double', 'float' or 'both'); "
                               "another precision is built on its first use. Immutable. A bad mesh raises ValueError "
                               "naming the field ('triangles.3.1: index 9 out of range').")
      .def(py::init([](const py::object& vertices, const py::object& triangles, const py::object& split, int leaf_size,
                       int max_depth, const std::string& precision) {
             return make_mesh(rows3(vertices, "vertices"), triangles_of(triangles),
                              build_options(split, leaf_size, max_depth), precision);
           }),
           py::arg("vertices"), py::arg("triangles"), py::kw_only(), py::arg("split") = MeshSplit::middle,
           py::arg("leaf_size") = 4, py::arg("max_depth") = kMeshMaxDepth, py::arg("precision") = "double")
      .def_static(
          "from_obj",
          [](const std::string& path, const py::object& split, int leaf_size, int max_depth, const std::string& precision) {
            return mesh_from_obj(path, build_options(split, leaf_size, max_depth), precision);
          },
          py::arg("path"), py::kw_only(), py::arg("split") = MeshSplit::middle, py::arg("leaf_size") = 4,
          py::arg("max_depth") = kMeshMaxDepth, py::arg("precision") = "double",
          "A mesh from a Wavefront OBJ file (load_obj); a bad file raises ValueError.")
      .def_property_readonly("vertices", [](const MeshObj& x) { return rows_numpy(x.vertices); }, "(N, 3) float64 copy.")
      .def_property_readonly("triangles", [](const MeshObj& x) { return triangles_numpy(x.triangles); },
                             "(M, 3) uint32 copy.")
      .def_property_readonly(
          "normals", [](const MeshObj& x) { return rows_numpy(x.get<double>()->normals()); },
          "(M, 3) unit front normals (zero for degenerate triangles).")
      .def_property_readonly(
          "degenerate",
          [](const MeshObj& x) {
            const auto d = x.get<double>()->degenerate();
            return py::array_t<std::uint8_t>(static_cast<py::ssize_t>(d.size()), d.data());
          },
          "(M,) uint8: 1 for a triangle of zero area (never hit).")
      .def_property_readonly("depth", [](const MeshObj& x) { return x.get<double>()->depth(); }, "Deepest leaf of the tree.")
      .def_property_readonly("split", [](const MeshObj& x) { return x.options.split; })
      .def_property_readonly("leaf_size", [](const MeshObj& x) { return x.options.leaf_size; })
      .def_property_readonly("max_depth", [](const MeshObj& x) { return x.options.max_depth; })
      .def("__len__", [](const MeshObj& x) { return x.triangles.size(); }, "Number of triangles.")
      .def("__repr__", [](const MeshObj& x) {
        return "TriangleMesh(<" + std::to_string(x.vertices.size()) + " vertices, " +
               std::to_string(x.triangles.size()) + " triangles>)";
      });
  m.def(
      "load_obj",
      [](const std::string& path) {
        std::vector<Vec3<double>> v;
        std::vector<std::array<std::uint32_t, 3>> t;
        if (auto e = load_obj(path, v, t); !e.empty()) throw py::value_error("obj: " + e);
        return py::make_tuple(rows_numpy(v), triangles_numpy(t));
      },
      py::arg("path"),
      "Vertices (N, 3) float64 and triangles (M, 3) uint32 of a Wavefront OBJ file (polygons fanned); a file that "
      "is not strict OBJ raises ValueError with the line.");
}

void bind_mesh_casts(py::module_& m) {
  const auto none = py::none();
  m.def(
      "mesh_ray_cast",
      [](const MeshPtr& mesh, const py::object& origin, const py::object& direction, double max_lambda,
         const py::object& back_faces, bool brute_force, bool normal, const std::string& precision) {
        const Vec3<double> o = vec3(origin, "origin"), d = vec3(direction, "direction");
        const BackFaces bf = enum_arg<BackFaces>(back_faces, "back_faces");
        return is_float(precision) ? ray<float>(*mesh, o, d, max_lambda, bf, brute_force, normal)
                                   : ray<double>(*mesh, o, d, max_lambda, bf, brute_force, normal);
      },
      py::arg("mesh"), py::arg("origin"), py::arg("direction"), py::kw_only(), py::arg("max_lambda") = 1.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("normal") = true,
      py::arg("precision") = "double",
      "First crossing of the ray origin + lambda * direction (0 <= lambda <= max_lambda) with the mesh (watertight). "
      "normal=False leaves the hit's normal zero (where and which triangle only: a little faster).");
  m.def(
      "mesh_sphere_cast",
      [](const MeshPtr& mesh, const py::object& center, double radius, const py::object& path, double buffer,
         const py::object& back_faces, bool brute_force, double max_toi, const std::string& precision) {
        const SphereArgs x{buffer, enum_arg<BackFaces>(back_faces, "back_faces"), brute_force, max_toi};
        const Vec3<double> c = vec3(center, "center"), p = vec3(path, "path");
        return is_float(precision) ? sphere<float>(*mesh, c, radius, p, x) : sphere<double>(*mesh, c, radius, p, x);
      },
      py::arg("mesh"), py::arg("center"), py::arg("radius"), py::arg("path"), py::kw_only(), py::arg("buffer") = 0.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("max_toi") = 1.0,
      py::arg("precision") = "double",
      "Casts the sphere whose centre moves from center to center + path over t in [0, 1] against the mesh.");
  m.def(
      "mesh_spheres_cast",
      [](const MeshPtr& mesh, const py::object& centers, const py::object& radii, const py::object& path, double buffer,
         const py::object& back_faces, bool brute_force, double max_toi, const std::string& precision) {
        const SphereArgs x{buffer, enum_arg<BackFaces>(back_faces, "back_faces"), brute_force, max_toi};
        const std::vector<Vec3<double>> c = rows3(centers, "centers");
        const std::vector<double> r = radii_of(radii, c.size());
        const Vec3<double> p = vec3(path, "path");
        return is_float(precision) ? spheres<float>(*mesh, c, r, p, x) : spheres<double>(*mesh, c, r, p, x);
      },
      py::arg("mesh"), py::arg("centers"), py::arg("radii"), py::arg("path"), py::kw_only(), py::arg("buffer") = 0.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("max_toi") = 1.0,
      py::arg("precision") = "double",
      "Casts a rigid collection of spheres (centers (K, 3), radii (K,) or one number) moving together by path; "
      "`sphere` of the answer says which touched.");
  m.def(
      "mesh_shape_cast",
      [](const MeshPtr& mesh, const ShapePtr& s, const py::object& velocity, const py::object& pose, double target,
         const py::object& back_faces, const py::object& tolerance, bool brute_force, const std::string& precision) {
        const BackFaces bf = enum_arg<BackFaces>(back_faces, "back_faces");
        const Vec3<double> v = vec3(velocity, "velocity");
        const Pose<double> p = pose_or_identity(pose);
        return is_float(precision) ? shape<float>(*mesh, *s, p, v, target, bf, tolerance, brute_force)
                                   : shape<double>(*mesh, *s, p, v, target, bf, tolerance, brute_force);
      },
      py::arg("mesh"), py::arg("shape"), py::arg("velocity"), py::arg("pose") = none, py::kw_only(),
      py::arg("target_distance") = 0.0, py::arg("back_faces") = BackFaces::ignore, py::arg("tolerance") = none,
      py::arg("brute_force") = false, py::arg("precision") = "double",
      "Casts a convex shape at pose moving by t * velocity, t in [0, 1], against the mesh.");
}

}  // namespace

void bind_meshes(py::module_& m) {
  bind_mesh_results(m);
  bind_mesh_class(m);
  bind_mesh_casts(m);
}

}  // namespace impact::python
