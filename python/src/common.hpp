// impact — python/src/common.hpp: what the binding files of the Python module share: the
// shape, mesh and level objects Python holds, argument conversions (vectors, precisions, enum
// names), numpy outputs, and the declarations of each file's bind function.
#pragma once

#include <impact/impact.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <initializer_list>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace impact::python {

namespace py = pybind11;

// ---- precision and small values ----------------------------------------------------------

/// True for "float", false for "double"; anything else raises ValueError.
bool is_float(const std::string& precision);

/// Three numbers (a sequence or an array of shape (3,)) as a double vector; ValueError otherwise.
Vec3<double> vec3(py::handle h, const char* name);

/// A vector as a new float64 numpy array of shape (3,) (a float answer widens exactly).
template <class S>
py::array_t<double> to_numpy(const Vec3<S>& v) {
  py::array_t<double> a(3);
  auto* p = a.mutable_data();
  for (int k = 0; k < 3; ++k) p[k] = static_cast<double>(v[k]);
  return a;
}

/// An array of shape (N, 3) (anything numpy converts) as double vectors; ValueError otherwise.
std::vector<Vec3<double>> rows3(py::handle h, const char* name);

/// Triangles (M, 3) of an integer dtype as corner indices; TypeError/ValueError otherwise (meshes.cpp).
std::vector<std::array<std::uint32_t, 3>> triangles_of(const py::object& o);

/// Corner indices as a new uint32 array of shape (M, 3) (meshes.cpp).
py::array_t<std::uint32_t> triangles_numpy(const std::vector<std::array<std::uint32_t, 3>>& t);

/// Tree options from the keyword arguments split, leaf_size, max_depth (meshes.cpp).
MeshBuildOptions build_options(const py::object& split, int leaf_size, int max_depth);

/// Double vectors as a new float64 array of shape (N, 3).
template <class S>
py::array_t<double> rows_numpy(std::span<const Vec3<S>> v) {
  py::array_t<double> a({static_cast<py::ssize_t>(v.size()), py::ssize_t{3}});
  auto r = a.mutable_unchecked<2>();
  for (std::size_t i = 0; i < v.size(); ++i)
    for (int k = 0; k < 3; ++k) r(static_cast<py::ssize_t>(i), k) = static_cast<double>(v[i][k]);
  return a;
}

/// The same from a vector.
template <class S>
py::array_t<double> rows_numpy(const std::vector<Vec3<S>>& v) {
  return rows_numpy(std::span<const Vec3<S>>(v));
}

/// "Name(field=repr, ...)" of a result object, from its attributes.
std::string fields_repr(const char* name, py::handle self, std::initializer_list<const char*> fields);

/// The pose argument of a query: None is the identity.
Pose<double> pose_or_identity(const py::object& pose);

/// Options such as tolerances are None for "the C++ default of this precision".
template <class S>
S or_default(const py::object& value, S fallback) {
  return value.is_none() ? fallback : value.cast<S>();
}

/// A vector widened to double (exact for float).
template <class S>
Vec3<double> widen(const Vec3<S>& v) {
  return v.template cast<double>();
}

/// An enum argument given as the enum or as its member's name ("mpr"); ValueError otherwise.
template <class E>
E enum_arg(const py::object& value, const char* name) {
  if (py::isinstance<E>(value)) return value.cast<E>();
  if (py::isinstance<py::str>(value)) {
    const py::dict members = py::type::of<E>().attr("__members__");
    if (members.contains(value)) return members[value].template cast<E>();
    std::string list;
    for (auto item : members) list += (list.empty() ? "" : ", ") + item.first.cast<std::string>();
    throw py::value_error(std::string(name) + ": unknown value '" + value.cast<std::string>() + "' (expected one of " +
                          list + ")");
  }
  throw py::type_error(std::string(name) + ": expected a " + py::str(py::type::of<E>().attr("__name__")).template cast<std::string>() +
                       " or its name as a string");
}

/// A Python motion: a pose at t = 0 (None: the identity for a query, the stored pose for a world
/// body), and linear and angular velocities over the step.
struct MotionObj {
  std::optional<Pose<double>> pose;
  Vec3<double> linear_velocity = Vec3<double>::Zero();
  Vec3<double> angular_velocity = Vec3<double>::Zero();

  template <class S>
  Motion<S> get() const {
    return {pose.value_or(Pose<double>{}).template cast<S>(), linear_velocity.cast<S>(), angular_velocity.cast<S>()};
  }
};

// ---- shapes ------------------------------------------------------------------------------

/// A Python shape: its parameters as a double `Shape`, and the float one converted from it on
/// first use (a hull is built once, by qhull in double, and converted like `impact query` does).
struct ShapeObj {
  Shape<double> d;
  int depth = 0;  ///< Nesting of Minkowski / Transformed shapes (bounded: the queries recurse).
  mutable std::shared_ptr<const Shape<float>> f;

  explicit ShapeObj(Shape<double> s, int nesting = 0) : d(std::move(s)), depth(nesting) {}
  ShapeObj(const ShapeObj&) = delete;
  ShapeObj& operator=(const ShapeObj&) = delete;
  virtual ~ShapeObj() = default;

  template <class S>
  const Shape<S>& get() const {
    if constexpr (std::is_same_v<S, double>) {
      return d;
    } else {
      if (!f) f = std::make_shared<const Shape<float>>(convert_shape<float>(d));
      return *f;
    }
  }
};
using ShapePtr = std::shared_ptr<ShapeObj>;

// ---- meshes ------------------------------------------------------------------------------

/// A Python triangle mesh: its arrays (double) and a built mesh per precision, each made on first
/// use (the precision named at construction eagerly, so a bad mesh raises there).
struct MeshObj {
  std::vector<Vec3<double>> vertices;
  std::vector<std::array<std::uint32_t, 3>> triangles;
  MeshBuildOptions options;
  mutable std::shared_ptr<const TriangleMesh<double>> d;
  mutable std::shared_ptr<const TriangleMesh<float>> f;

  template <class S>
  const std::shared_ptr<const TriangleMesh<S>>& get() const {
    auto& slot = slot_of<S>();
    if (!slot) slot = build<S>();
    return slot;
  }

 private:
  template <class S>
  std::shared_ptr<const TriangleMesh<S>>& slot_of() const {
    if constexpr (std::is_same_v<S, double>) return d;
    else return f;
  }
  template <class S>
  std::shared_ptr<const TriangleMesh<S>> build() const {
    auto m = std::make_shared<TriangleMesh<S>>();
    m->vertices.reserve(vertices.size());
    for (const auto& v : vertices) m->vertices.push_back(v.cast<S>());
    m->triangles = triangles;
    if (auto e = build_mesh(*m, options); !e.empty()) throw py::value_error(e);
    return m;
  }
};
using MeshPtr = std::shared_ptr<MeshObj>;

// ---- levels ------------------------------------------------------------------------------

/// A Python level: the double level (what `carve` changes) and its float twin, rebuilt from it on
/// first use after a change. `readers` counts batch calls running on it without the GIL; carve
/// refuses to run meanwhile.
struct LevelObj {
  Level<double> d;
  std::unique_ptr<Level<float>> f;
  int readers = 0;

  template <class S>
  const Level<S>& get() {
    if constexpr (std::is_same_v<S, double>) return d;
    else return as_float();
  }
  const Level<float>& as_float();
};
using LevelPtr = std::shared_ptr<LevelObj>;

/// Counts a reader of a level for the lifetime of a batch call (taken and released with the GIL held).
class LevelReader {
 public:
  explicit LevelReader(LevelObj& l) : level_(l) { ++level_.readers; }
  ~LevelReader() { --level_.readers; }
  LevelReader(const LevelReader&) = delete;
  LevelReader& operator=(const LevelReader&) = delete;

 private:
  LevelObj& level_;
};

// ---- bind functions, one per file ----------------------------------------------------------
void bind_shapes(py::module_& m);       // shapes.cpp: enums, Pose, Motion, shapes
void bind_queries(py::module_& m);      // queries.cpp: distance, ray_cast, shape_cast, time_of_impact
void bind_meshes(py::module_& m);       // meshes.cpp: TriangleMesh, OBJ, mesh casts
void bind_levels(py::module_& m);       // levels.cpp: Room, Portal, Level, level casts, carve
void bind_worlds(py::module_& m);       // worlds.cpp: Body, World, events
void bind_batches(py::module_& m);      // batches.cpp: the convex-shape batches
void bind_mesh_batches(py::module_& m); // batch_meshes.cpp: the mesh and level batches

}  // namespace impact::python
