// impact — python/src/batch_meshes.cpp: the mesh and level batch calls of the Python module
// (mesh_ray_cast_batch, mesh_sphere_cast_batch, level_ray_cast_batch, level_sphere_cast_batch)
// over include/impact/batch.hpp. The mesh or level of the arrays' precision is made (or taken)
// with the GIL held; a level counts the call as a reader so that carve waits for none.
#include "batch_common.hpp"

#include <string>

namespace impact::python {
namespace {

template <class S>
constexpr std::array<S, 3> kZero{S(0), S(0), S(0)};

struct CastArgs {
  double max_lambda = 1, buffer = 0, max_toi = 1;
  BackFaces back_faces = BackFaces::ignore;
  bool brute_force = false;
  BatchOptions batch;
};

template <class S>
MeshRayRows<S> ray_outputs(BatchOutputs& out, bool level) {
  MeshRayRows<S> r{out.status(), out.column<S>("lambda"), out.rows<S>("point"), out.rows<S>("normal"),
                   out.index("triangle"), {}};
  if (level) r.room = out.index("room");
  return r;
}

template <class S>
MeshCastRows<S> cast_outputs(BatchOutputs& out, bool level) {
  MeshCastRows<S> r{out.status(), out.column<S>("toi"), out.rows<S>("point"), out.rows<S>("normal"),
                    out.index("triangle"), {}};
  if (level) r.room = out.index("room");
  return r;
}

/// Ray rows on a mesh (MeshObj) or a level (LevelObj).
template <class S, class Target>
py::dict ray_rows(Target& target, const py::object& origin, const py::object& direction, const CastArgs& x) {
  constexpr bool level = std::is_same_v<Target, LevelObj>;
  BatchInputs<S> in;
  const auto o = in.template rows<3>("origin", origin, kZero<S>);
  const auto d = in.template rows<3>("direction", direction, kZero<S>);
  const py::ssize_t n = in.count();
  const MeshRayOptions<S> opt{static_cast<S>(x.max_lambda), x.back_faces, x.brute_force};
  BatchOutputs out(n);
  MeshRayRows<S> rows = ray_outputs<S>(out, level);
  if constexpr (level) {
    const Level<S>& L = target.template get<S>();
    const LevelReader reading(target);
    run_unlocked(n, [&] { return level_ray_cast_batch<S>(L, o, d, opt, rows, x.batch); });
  } else {
    const std::shared_ptr<const TriangleMesh<S>> mesh = target.template get<S>();
    run_unlocked(n, [&] { return mesh_ray_cast_batch<S>(*mesh, o, d, opt, rows, x.batch); });
  }
  return out.dict();
}

/// Sphere cast rows on a mesh (MeshObj) or a level (LevelObj).
template <class S, class Target>
py::dict sphere_rows(Target& target, const py::object& center, const py::object& radius, const py::object& path,
                     const CastArgs& x) {
  constexpr bool level = std::is_same_v<Target, LevelObj>;
  BatchInputs<S> in;
  const auto c = in.template rows<3>("center", center, kZero<S>);
  const auto r = in.column("radius", radius);
  const auto p = in.template rows<3>("path", path, kZero<S>);
  const py::ssize_t n = in.count();
  const MeshSphereOptions<S> opt{static_cast<S>(x.buffer), x.back_faces, x.brute_force, static_cast<S>(x.max_toi)};
  BatchOutputs out(n);
  MeshCastRows<S> rows = cast_outputs<S>(out, level);
  if constexpr (level) {
    const Level<S>& L = target.template get<S>();
    const LevelReader reading(target);
    run_unlocked(n, [&] { return level_sphere_cast_batch<S>(L, c, r, p, opt, rows, x.batch); });
  } else {
    const std::shared_ptr<const TriangleMesh<S>> mesh = target.template get<S>();
    run_unlocked(n, [&] { return mesh_sphere_cast_batch<S>(*mesh, c, r, p, opt, rows, x.batch); });
  }
  return out.dict();
}

template <class Target>
py::dict rays(Target& target, const py::object& origin, const py::object& direction, const CastArgs& x) {
  return batch_is_float({{"origin", origin}, {"direction", direction}})
             ? ray_rows<float>(target, origin, direction, x)
             : ray_rows<double>(target, origin, direction, x);
}

template <class Target>
py::dict spheres(Target& target, const py::object& center, const py::object& radius, const py::object& path,
                 const CastArgs& x) {
  return batch_is_float({{"center", center}, {"radius", radius}, {"path", path}})
             ? sphere_rows<float>(target, center, radius, path, x)
             : sphere_rows<double>(target, center, radius, path, x);
}

CastArgs ray_args(double max_lambda, const py::object& bf, bool brute, int threads, int grain) {
  CastArgs x;
  x.max_lambda = max_lambda, x.back_faces = enum_arg<BackFaces>(bf, "back_faces"), x.brute_force = brute;
  x.batch = batch_options(threads, grain);
  return x;
}

CastArgs sphere_args(double buffer, const py::object& bf, bool brute, double max_toi, int threads, int grain) {
  CastArgs x;
  x.buffer = buffer, x.back_faces = enum_arg<BackFaces>(bf, "back_faces"), x.brute_force = brute, x.max_toi = max_toi;
  x.batch = batch_options(threads, grain);
  return x;
}

const char* const kBatchDoc =
    " Inputs are numpy arrays of one dtype (float32 or float64: the precision), N rows or 1 shared row; "
    "C-contiguous arrays of that dtype are read without a copy, others are copied. Returns a dict of new arrays of "
    "N rows ('status' uint8, 'triangle' and 'room' uint32). The GIL is released while it runs; row i equals the "
    "single query, bit for bit, for any `threads` (0: every core).";

}  // namespace

void bind_mesh_batches(py::module_& m) {
  m.def(
      "mesh_ray_cast_batch",
      [](const MeshPtr& mesh, const py::object& origin, const py::object& direction, double max_lambda,
         const py::object& bf, bool brute, int threads, int grain) {
        return rays(*mesh, origin, direction, ray_args(max_lambda, bf, brute, threads, grain));
      },
      py::arg("mesh"), py::arg("origin"), py::arg("direction"), py::kw_only(), py::arg("max_lambda") = 1.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("threads") = 0,
      py::arg("grain") = 64,
      (std::string("mesh_ray_cast(mesh, origin[i], direction[i]) for every row i: keys status, lambda, point, "
                   "normal, triangle.") + kBatchDoc).c_str());
  m.def(
      "mesh_sphere_cast_batch",
      [](const MeshPtr& mesh, const py::object& center, const py::object& radius, const py::object& path,
         double buffer, const py::object& bf, bool brute, double max_toi, int threads, int grain) {
        return spheres(*mesh, center, radius, path, sphere_args(buffer, bf, brute, max_toi, threads, grain));
      },
      py::arg("mesh"), py::arg("center"), py::arg("radius"), py::arg("path"), py::kw_only(), py::arg("buffer") = 0.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("max_toi") = 1.0,
      py::arg("threads") = 0, py::arg("grain") = 64,
      (std::string("mesh_sphere_cast(mesh, center[i], radius[i], path[i]) for every row i (radius: (N,), (1,) or a "
                   "number): keys status, toi, point, normal, triangle.") + kBatchDoc).c_str());
  m.def(
      "level_ray_cast_batch",
      [](const LevelPtr& level, const py::object& origin, const py::object& direction, double max_lambda,
         const py::object& bf, bool brute, int threads, int grain) {
        return rays(*level, origin, direction, ray_args(max_lambda, bf, brute, threads, grain));
      },
      py::arg("level"), py::arg("origin"), py::arg("direction"), py::kw_only(), py::arg("max_lambda") = 1.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("threads") = 0,
      py::arg("grain") = 64,
      (std::string("level_ray_cast(level, origin[i], direction[i]) for every row i (start room: the cell holding "
                   "the origin): keys status, lambda, point, normal, triangle, room.") + kBatchDoc).c_str());
  m.def(
      "level_sphere_cast_batch",
      [](const LevelPtr& level, const py::object& center, const py::object& radius, const py::object& path,
         double buffer, const py::object& bf, bool brute, double max_toi, int threads, int grain) {
        return spheres(*level, center, radius, path, sphere_args(buffer, bf, brute, max_toi, threads, grain));
      },
      py::arg("level"), py::arg("center"), py::arg("radius"), py::arg("path"), py::kw_only(), py::arg("buffer") = 0.0,
      py::arg("back_faces") = BackFaces::ignore, py::arg("brute_force") = false, py::arg("max_toi") = 1.0,
      py::arg("threads") = 0, py::arg("grain") = 64,
      (std::string("level_sphere_cast(level, center[i], radius[i], path[i]) for every row i: keys status, toi, "
                   "point, normal, triangle, room.") + kBatchDoc).c_str());
}

}  // namespace impact::python
