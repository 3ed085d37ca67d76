// impact — python/src/worlds.cpp: worlds of many moving bodies in the Python module: the Body
// description (convex, compound, mesh), the World class (one precision, fixed at construction),
// World.step with the GIL released, and the event, statistics and step result classes.
#include "common.hpp"

#include <string>
#include <utility>
#include <variant>

namespace impact::python {
namespace {

/// A body as Python describes it; made into a WorldBody of the world's precision by World.edit.
struct BodySpec {
  std::string id;
  BodyKind kind = BodyKind::convex;
  ShapePtr shape;
  std::vector<std::pair<ShapePtr, Pose<double>>> parts;
  MeshPtr mesh;
  Pose<double> pose;
  std::uint32_t category = 1;
  std::uint32_t mask = 0xffffffffu;

  template <class S>
  WorldBody<S> get() const {
    WorldBody<S> b;
    b.id = id;
    b.kind = kind;
    if (kind == BodyKind::convex) b.shape = shape->template get<S>();
    for (const auto& [s, p] : parts) b.parts.push_back({s->template get<S>(), p.template cast<S>()});
    if (kind == BodyKind::mesh) b.mesh = mesh->template get<S>();
    b.pose = pose.template cast<S>();
    b.category = category;
    b.mask = mask;
    return b;
  }
};

/// A Python world: a World<double> or a World<float>. `stepping` is set while a step runs
/// without the GIL; every other call refuses meanwhile.
struct WorldObj {
  std::variant<World<double>, World<float>> w;
  bool stepping = false;

  void check_idle() const {
    if (stepping) throw std::runtime_error("World: a step is running on this world in another thread");
  }
  [[nodiscard]] bool is_float() const { return w.index() == 1; }
};

template <class W>
struct ScalarOf;
template <class S>
struct ScalarOf<World<S>> {
  using type = S;
};

/// Marks a world as stepping for its lifetime (set and cleared with the GIL held).
class Stepping {
 public:
  explicit Stepping(bool& flag) : flag_(flag) { flag_ = true; }
  ~Stepping() { flag_ = false; }
  Stepping(const Stepping&) = delete;
  Stepping& operator=(const Stepping&) = delete;

 private:
  bool& flag_;
};

struct StepArgs {
  WorldReport report;
  double target_distance;
  py::object tolerance;
  ToiMethod method;
  BroadPhase broad_phase;
  int max_iterations;
  bool prune_by_best;
  int threads;
};

template <class S>
WorldEvent<double> widen_event(const WorldEvent<S>& e) {
  return {e.a, e.b, e.status, double(e.toi), widen(e.point_a), widen(e.point_b), widen(e.normal),
          e.part_a, e.part_b, e.triangle};
}

template <class S>
WorldStepResult<double> step(WorldObj& self, World<S>& w, const std::vector<std::pair<std::string, MotionObj>>& motions,
                             const StepArgs& x) {
  std::vector<BodyMotion<S>> ms;
  ms.reserve(motions.size());
  for (const auto& [id, mo] : motions) ms.push_back({id, mo.template get<S>(), !mo.pose.has_value()});
  WorldStepOptions<S> o;
  o.report = x.report;
  o.target_distance = static_cast<S>(x.target_distance);
  o.tolerance = or_default<S>(x.tolerance, o.tolerance);
  o.method = x.method;
  o.broad_phase = x.broad_phase;
  o.max_iterations = x.max_iterations;
  o.prune_by_best = x.prune_by_best;
  o.threads = x.threads;
  WorldStepResult<S> r;
  {
    const Stepping busy(self.stepping);
    const py::gil_scoped_release unlocked;
    r = w.step(ms, o);
  }
  WorldStepResult<double> out;
  out.status = r.status;
  out.stats = r.stats;
  out.error = r.error;
  out.events.reserve(r.events.size());
  for (const auto& e : r.events) out.events.push_back(widen_event(e));
  return out;
}

void edit(WorldObj& self, const std::vector<std::string>& remove, const std::vector<BodySpec>& add) {
  self.check_idle();
  std::visit(
      [&](auto& w) {
        using S = typename ScalarOf<std::decay_t<decltype(w)>>::type;
        std::vector<WorldBody<S>> bodies;
        bodies.reserve(add.size());
        for (const auto& b : add) bodies.push_back(b.get<S>());
        if (auto e = w.edit(remove, bodies); !e.empty()) throw py::value_error(e);
      },
      self.w);
}

BodySpec body(std::string id, BodyKind kind, const py::object& pose, std::uint32_t category, std::uint32_t mask) {
  BodySpec b;
  b.id = std::move(id);
  b.kind = kind;
  b.pose = pose_or_identity(pose);
  b.category = category;
  b.mask = mask;
  return b;
}

BodySpec convex_body(std::string id, ShapePtr shape, const py::object& pose, std::uint32_t category, std::uint32_t mask) {
  BodySpec b = body(std::move(id), BodyKind::convex, pose, category, mask);
  b.shape = std::move(shape);
  return b;
}

BodySpec compound_body(std::string id, const py::sequence& parts, const py::object& pose, std::uint32_t category,
                       std::uint32_t mask) {
  BodySpec b = body(std::move(id), BodyKind::compound, pose, category, mask);
  for (const auto& item : parts) {
    const auto part = item.cast<py::tuple>();
    if (part.size() != 2) throw py::value_error("parts: expected (shape, pose) pairs");
    b.parts.emplace_back(part[0].cast<ShapePtr>(), pose_or_identity(part[1]));
  }
  return b;
}

BodySpec mesh_body(std::string id, MeshPtr mesh, const py::object& pose, std::uint32_t category, std::uint32_t mask) {
  BodySpec b = body(std::move(id), BodyKind::mesh, pose, category, mask);
  b.mesh = std::move(mesh);
  return b;
}

// ---- classes ----------------------------------------------------------------------------------

void bind_step_results(py::module_& m) {
  using E = WorldEvent<double>;
  py::class_<E>(m, "WorldEvent", "The first contact of two bodies in a step (points and normal for status hit).")
      .def_readonly("a", &E::a, "Lower ID of the pair (byte order).")
      .def_readonly("b", &E::b, "Higher ID.")
      .def_readonly("status", &E::status, "hit, initially_overlapping or max_iterations.")
      .def_readonly("toi", &E::toi, "Time of the first contact in [0, 1].")
      .def_property_readonly("point_a", [](const E& e) { return to_numpy(e.point_a); }, "Contact point on a.")
      .def_property_readonly("point_b", [](const E& e) { return to_numpy(e.point_b); }, "Contact point on b.")
      .def_property_readonly("normal", [](const E& e) { return to_numpy(e.normal); }, "Unit normal from a toward b.")
      .def_readonly("part_a", &E::part_a, "Touching part of a compound a, else -1.")
      .def_readonly("part_b", &E::part_b, "Touching part of a compound b, else -1.")
      .def_readonly("triangle", &E::triangle, "Touching triangle of the pair's mesh body, else -1.")
      .def("__repr__", [](py::handle s) {
        return fields_repr("WorldEvent", s,
                           {"a", "b", "status", "toi", "point_a", "point_b", "normal", "part_a", "part_b", "triangle"});
      });
  py::class_<WorldStepStats>(m, "WorldStepStats", "Figures of one step (for diagnosis).")
      .def_readonly("pairs_tested", &WorldStepStats::pairs_tested)
      .def_readonly("piece_pairs", &WorldStepStats::piece_pairs)
      .def_readonly("toi_calls", &WorldStepStats::toi_calls)
      .def_readonly("broad_seconds", &WorldStepStats::broad_seconds)
      .def_readonly("narrow_seconds", &WorldStepStats::narrow_seconds)
      .def("__repr__", [](py::handle s) {
        return fields_repr("WorldStepStats", s,
                           {"pairs_tested", "piece_pairs", "toi_calls", "broad_seconds", "narrow_seconds"});
      });
  using R = WorldStepResult<double>;
  py::class_<R>(m, "WorldStepResult", "Answer of World.step: status hit (the step ran) or invalid_input (nothing "
                                      "changed; `error` names the field).")
      .def_readonly("status", &R::status)
      .def_readonly("events", &R::events, "Sorted by toi, then a, then b.")
      .def_readonly("stats", &R::stats)
      .def_readonly("error", &R::error)
      .def_property_readonly("ok", &R::ok)
      .def("__repr__", [](py::handle s) { return fields_repr("WorldStepResult", s, {"status", "events", "error"}); });
}

void bind_body(py::module_& m) {
  const auto none = py::none();
  py::class_<BodySpec>(m, "Body", "A body to add to a World: make one with Body.convex, Body.compound or Body.mesh.")
      .def_static("convex", &convex_body, py::arg("id"), py::arg("shape"), py::arg("pose") = none, py::kw_only(),
                  py::arg("category") = 1u, py::arg("mask") = 0xffffffffu, "A body of one convex shape.")
      .def_static("compound", &compound_body, py::arg("id"), py::arg("parts"), py::arg("pose") = none, py::kw_only(),
                  py::arg("category") = 1u, py::arg("mask") = 0xffffffffu,
                  "A body of convex parts: a sequence of (shape, pose) pairs, poses in the body's frame (None: identity).")
      .def_static("mesh", &mesh_body, py::arg("id"), py::arg("mesh"), py::arg("pose") = none, py::kw_only(),
                  py::arg("category") = 1u, py::arg("mask") = 0xffffffffu,
                  "A triangle mesh body (both sides of each triangle collide; never tested against another mesh).")
      .def_readonly("id", &BodySpec::id)
      .def_readonly("kind", &BodySpec::kind)
      .def_readonly("pose", &BodySpec::pose)
      .def_readonly("category", &BodySpec::category)
      .def_readonly("mask", &BodySpec::mask)
      .def("__repr__", [](const BodySpec& b) {
        return "Body(id=" + py::repr(py::str(b.id)).cast<std::string>() + ", kind=" +
               py::str(py::cast(b.kind)).cast<std::string>() + ")";
      });
}

WorldStepResult<double> step_world(WorldObj& self, const py::dict& motions, const StepArgs& args) {
  self.check_idle();
  std::vector<std::pair<std::string, MotionObj>> ms;
  for (const auto& [k, v] : motions) ms.emplace_back(k.cast<std::string>(), v.cast<MotionObj>());
  return std::visit([&](auto& w) { return step(self, w, ms, args); }, self.w);
}

void bind_world(py::module_& m) {
  const auto none = py::none();
  py::class_<WorldObj, std::shared_ptr<WorldObj>>(
      m, "World",
      "A set of bodies stepped together in one precision ('double' or 'float'). Edits that cannot be made raise "
      "ValueError and change nothing.")
      .def(py::init([](const std::string& precision) {
             auto w = std::make_shared<WorldObj>();
             if (is_float(precision)) w->w.emplace<World<float>>();
             return w;
           }),
           py::arg("precision") = "double")
      .def_property_readonly("precision", [](const WorldObj& w) { return w.is_float() ? "float" : "double"; })
      .def("edit", &edit, py::arg("remove") = std::vector<std::string>{}, py::arg("add") = std::vector<BodySpec>{},
           "Removes the bodies named, then adds the Body list, or raises ValueError and changes nothing.")
      .def(
          "add_convex",
          [](WorldObj& w, std::string id, ShapePtr s, const py::object& pose, std::uint32_t category, std::uint32_t mask) {
            edit(w, {}, {convex_body(std::move(id), std::move(s), pose, category, mask)});
          },
          py::arg("id"), py::arg("shape"), py::arg("pose") = none, py::kw_only(), py::arg("category") = 1u,
          py::arg("mask") = 0xffffffffu, "Adds a convex body.")
      .def(
          "add_compound",
          [](WorldObj& w, std::string id, const py::sequence& parts, const py::object& pose, std::uint32_t category,
             std::uint32_t mask) { edit(w, {}, {compound_body(std::move(id), parts, pose, category, mask)}); },
          py::arg("id"), py::arg("parts"), py::arg("pose") = none, py::kw_only(), py::arg("category") = 1u,
          py::arg("mask") = 0xffffffffu, "Adds a compound body of (shape, pose) parts.")
      .def(
          "add_mesh",
          [](WorldObj& w, std::string id, MeshPtr mesh, const py::object& pose, std::uint32_t category,
             std::uint32_t mask) { edit(w, {}, {mesh_body(std::move(id), std::move(mesh), pose, category, mask)}); },
          py::arg("id"), py::arg("mesh"), py::arg("pose") = none, py::kw_only(), py::arg("category") = 1u,
          py::arg("mask") = 0xffffffffu, "Adds a triangle mesh body.")
      .def(
          "remove", [](WorldObj& w, const std::string& id) { edit(w, {id}, {}); }, py::arg("id"),
          "Removes a body (ValueError when there is none of that ID).")
      .def(
          "step",
          [](WorldObj& w, const py::dict& motions, const py::object& report, double target_distance,
             const py::object& tolerance, const py::object& method, const py::object& broad_phase, int max_iterations,
             bool prune_by_best, int threads) {
            const StepArgs args{enum_arg<WorldReport>(report, "report"), target_distance, tolerance,
                                enum_arg<ToiMethod>(method, "method"), enum_arg<BroadPhase>(broad_phase, "broad_phase"),
                                max_iterations, prune_by_best, threads};
            return step_world(w, motions, args);
          },
          py::arg("motions"), py::kw_only(), py::arg("report") = WorldReport::pairs, py::arg("target_distance") = 0.0,
          py::arg("tolerance") = none, py::arg("method") = ToiMethod::extrusion_brent,
          py::arg("broad_phase") = BroadPhase::box_tree, py::arg("max_iterations") = 4096,
          py::arg("prune_by_best") = true, py::arg("threads") = 0,
          "Moves the bodies of `motions` ({id: Motion}; a Motion whose pose is None starts from the stored pose) over "
          "t in [0, 1] and returns every pair's first contact. The GIL is released while it runs; the events do not "
          "depend on `threads` (0: every core).")
      .def("ids",
           [](const WorldObj& w) {
             w.check_idle();
             return std::visit([](const auto& x) { return x.ids(); }, w.w);
           },
           "The IDs, in byte order.")
      .def(
          "pose",
          [](const WorldObj& w, const std::string& id) {
            w.check_idle();
            return std::visit(
                [&](const auto& x) {
                  const auto* p = x.pose(id);
                  if (!p) throw py::key_error("no body '" + id + "'");
                  return p->template cast<double>();
                },
                w.w);
          },
          py::arg("id"), "The stored pose of a body (KeyError when there is none).")
      .def("__len__",
           [](const WorldObj& w) {
             w.check_idle();
             return std::visit([](const auto& x) { return x.size(); }, w.w);
           })
      .def("__contains__",
           [](const WorldObj& w, const std::string& id) {
             w.check_idle();
             return std::visit([&](const auto& x) { return x.pose(id) != nullptr; }, w.w);
           })
      .def("__repr__", [](const WorldObj& w) {
        const std::size_t n = std::visit([](const auto& x) { return x.size(); }, w.w);
        return "World(<" + std::to_string(n) + " bodies, " + (w.is_float() ? "float" : "double") + ">)";
      });
}

}  // namespace

void bind_worlds(py::module_& m) {
  bind_step_results(m);
  bind_body(m);
  bind_world(m);
}

}  // namespace impact::python
