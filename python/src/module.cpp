// impact — python/src/module.cpp: the module `impact` itself (its docstring and the order in which
// each area binds), and the small argument conversions every binding file uses (common.hpp).
#include "common.hpp"

#include <string>

namespace impact::python {

bool is_float(const std::string& precision) {
  if (precision == "double") return false;
  if (precision == "float") return true;
  throw py::value_error("precision: unknown precision '" + precision + "' (expected \"double\" or \"float\")");
}

Vec3<double> vec3(py::handle h, const char* name) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  if (!a) {
    PyErr_Clear();
    throw py::type_error(std::string(name) + ": expected 3 numbers");
  }
  if (a.ndim() != 1 || a.shape(0) != 3) throw py::value_error(std::string(name) + ": expected 3 numbers");
  return {a.at(0), a.at(1), a.at(2)};
}

std::string fields_repr(const char* name, py::handle self, std::initializer_list<const char*> fields) {
  std::string out = std::string(name) + "(";
  bool first = true;
  for (const char* f : fields) {
    py::object v = self.attr(f);
    if (py::isinstance<py::array>(v)) v = v.attr("tolist")();
    out += (first ? "" : ", ") + std::string(f) + "=" + py::repr(v).cast<std::string>();
    first = false;
  }
  return out + ")";
}

std::vector<Vec3<double>> rows3(py::handle h, const char* name) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  if (!a) {
    PyErr_Clear();
    throw py::type_error(std::string(name) + ": expected an array of shape (N, 3)");
  }
  if (a.ndim() != 2 || a.shape(1) != 3) throw py::value_error(std::string(name) + ": expected an array of shape (N, 3)");
  std::vector<Vec3<double>> out(static_cast<std::size_t>(a.shape(0)));
  const auto r = a.unchecked<2>();
  for (py::ssize_t i = 0; i < a.shape(0); ++i) out[static_cast<std::size_t>(i)] = {r(i, 0), r(i, 1), r(i, 2)};
  return out;
}

Pose<double> pose_or_identity(const py::object& pose) {
  return pose.is_none() ? Pose<double>{} : pose.cast<Pose<double>>();
}

const Level<float>& LevelObj::as_float() {
  if (f) return *f;
  auto x = std::make_unique<Level<float>>();
  if (auto e = convert_level(d, *x); !e.empty()) throw py::value_error("float level: " + e);
  f = std::move(x);
  return *f;
}

}  // namespace impact::python

PYBIND11_MODULE(impact, m) {
  m.doc() =
      "impact: continuous collision detection (distances, ray and shape casts, time of impact under rotation, "
      "triangle meshes, levels of rooms, worlds of many bodies) in float and double. Single queries take "
      "precision='double' or 'float'; batch calls take the precision of their numpy arrays (float32 or float64). "
      "Queries never raise for bad geometry: they answer Status.invalid_input with `error` naming the field.";
  using namespace impact::python;
  bind_shapes(m);
  bind_queries(m);
  bind_meshes(m);
  bind_levels(m);
  bind_worlds(m);
  bind_batches(m);
  bind_mesh_batches(m);
}
