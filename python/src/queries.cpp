// impact — python/src/queries.cpp: the single pair queries of the Python module (distance,
// ray_cast, shape_cast, time_of_impact) and their result classes. A query runs in the precision
// its `precision` keyword names; its answer is widened to double exactly, so a float answer reads
// back bit for bit what the float query computed.
#include "common.hpp"

namespace impact::python {
namespace {

// ---- widening answers to double -------------------------------------------------------------

template <class S>
DistanceResult<double> widen_result(const DistanceResult<S>& r) {
  return {r.status, double(r.distance), widen(r.point_a), widen(r.point_b), widen(r.normal), r.iterations, r.error};
}
template <class S>
RayHit<double> widen_result(const RayHit<S>& r) {
  return {r.status, double(r.lambda), widen(r.point), widen(r.normal), r.iterations, r.error};
}
template <class S>
CastHit<double> widen_result(const CastHit<S>& r) {
  return {r.status, double(r.toi), widen(r.point_a), widen(r.point_b), widen(r.normal), r.iterations, r.error};
}
template <class S>
ToiHit<double> widen_result(const ToiHit<S>& r) {
  return {r.status, double(r.toi), widen(r.point_a), widen(r.point_b), widen(r.normal), r.iterations, r.error, r.stats};
}

// ---- the queries, in one precision -----------------------------------------------------------

struct DistanceArgs {
  const ShapeObj& a;
  const ShapeObj& b;
  Pose<double> pose_a, pose_b;
  py::object relative_tolerance, max_iterations;
  bool wide_retry;
  py::object apart_beyond;
};

template <class S>
DistanceResult<double> run(const DistanceArgs& x) {
  GjkOptions<S> o;
  o.relative_tolerance = or_default<S>(x.relative_tolerance, o.relative_tolerance);
  o.max_iterations = or_default<int>(x.max_iterations, o.max_iterations);
  o.wide_retry = x.wide_retry;
  o.apart_beyond = or_default<S>(x.apart_beyond, o.apart_beyond);
  return widen_result(distance<S>(x.a.get<S>(), x.pose_a.cast<S>(), x.b.get<S>(), x.pose_b.cast<S>(), o));
}

struct RayArgs {
  const ShapeObj& shape;
  Pose<double> pose;
  Vec3<double> origin, direction;
  double max_lambda;
  py::object relative_tolerance, max_iterations;
  bool closed_form;
};

template <class S>
RayHit<double> run(const RayArgs& x) {
  RayCastOptions<S> o;
  o.max_lambda = static_cast<S>(x.max_lambda);
  o.relative_tolerance = or_default<S>(x.relative_tolerance, o.relative_tolerance);
  o.max_iterations = or_default<int>(x.max_iterations, o.max_iterations);
  o.closed_form = x.closed_form;
  const Ray<S> ray{x.origin.cast<S>(), x.direction.cast<S>()};
  return widen_result(ray_cast<S>(x.shape.get<S>(), x.pose.cast<S>(), ray, o));
}

struct CastArgs {
  const ShapeObj& a;
  const ShapeObj& b;
  Pose<double> pose_a, pose_b;
  Vec3<double> velocity_a, velocity_b;
  CastMethod method;
  double target_distance;
  py::object tolerance, max_iterations;
  bool closed_form;
};

template <class S>
CastHit<double> run(const CastArgs& x) {
  ShapeCastOptions<S> o;
  o.method = x.method;
  o.target_distance = static_cast<S>(x.target_distance);
  o.tolerance = or_default<S>(x.tolerance, o.tolerance);
  o.max_iterations = or_default<int>(x.max_iterations, o.max_iterations);
  o.closed_form = x.closed_form;
  return widen_result(shape_cast<S>(x.a.get<S>(), x.pose_a.cast<S>(), x.velocity_a.cast<S>(), x.b.get<S>(),
                                    x.pose_b.cast<S>(), x.velocity_b.cast<S>(), o));
}

struct ToiArgs {
  const ShapeObj& a;
  const ShapeObj& b;
  MotionObj motion_a, motion_b;
  ToiMethod method;
  double target_distance;
  py::object tolerance;
  bool paper_acceptance;
  int max_iterations;
  double max_toi;
};

template <class S>
ToiHit<double> run(const ToiArgs& x) {
  ToiOptions<S> o;
  o.method = x.method;
  o.target_distance = static_cast<S>(x.target_distance);
  o.tolerance = or_default<S>(x.tolerance, o.tolerance);
  o.paper_acceptance = x.paper_acceptance;
  o.max_iterations = x.max_iterations;
  o.max_toi = static_cast<S>(x.max_toi);
  return widen_result(time_of_impact<S>(x.a.get<S>(), x.motion_a.get<S>(), x.b.get<S>(), x.motion_b.get<S>(), o));
}

/// Runs a query in the precision named.
template <class Args>
auto in_precision(const std::string& precision, const Args& args) {
  return is_float(precision) ? run<float>(args) : run<double>(args);
}

MotionObj motion_or_rest(const py::object& m) { return m.is_none() ? MotionObj{} : m.cast<MotionObj>(); }

// ---- result classes ---------------------------------------------------------------------------

void bind_results(py::module_& m) {
  using D = DistanceResult<double>;
  py::class_<D>(m, "DistanceResult", "Answer of distance(): status separated, intersecting, max_iterations or "
                                     "invalid_input. Points and normal are world float64 arrays of 3.")
      .def_readonly("status", &D::status)
      .def_readonly("distance", &D::distance, "Distance; 0 when intersecting.")
      .def_property_readonly("point_a", [](const D& r) { return to_numpy(r.point_a); }, "Closest point on A.")
      .def_property_readonly("point_b", [](const D& r) { return to_numpy(r.point_b); }, "Closest point on B.")
      .def_property_readonly("normal", [](const D& r) { return to_numpy(r.normal); }, "Unit vector from A toward B.")
      .def_readonly("iterations", &D::iterations, "GJK iterations.")
      .def_readonly("error", &D::error, "The offending field, for invalid_input ('' otherwise).")
      .def("__repr__", [](py::handle s) {
        return fields_repr("DistanceResult", s, {"status", "distance", "point_a", "point_b", "normal", "iterations", "error"});
      });
  using R = RayHit<double>;
  py::class_<R>(m, "RayHit", "Answer of ray_cast(): status hit, miss, initially_overlapping, max_iterations (lambda "
                             "a lower bound) or invalid_input. `lambda_` (also getattr(r, 'lambda')) is the ray parameter.")
      .def_readonly("status", &R::status)
      .def_readonly("lambda_", &R::lambda, "Ray parameter of the hit.")
      .def_readonly("lambda", &R::lambda, "Same as lambda_.")
      .def_property_readonly("point", [](const R& r) { return to_numpy(r.point); }, "origin + lambda * direction.")
      .def_property_readonly("normal", [](const R& r) { return to_numpy(r.normal); }, "Outward unit normal (hit).")
      .def_readonly("iterations", &R::iterations, "GJK ray cast iterations (0 for a closed form).")
      .def_readonly("error", &R::error)
      .def("__repr__", [](py::handle s) {
        return fields_repr("RayHit", s, {"status", "lambda_", "point", "normal", "iterations", "error"});
      });
  using C = CastHit<double>;
  py::class_<C>(m, "CastHit", "Answer of shape_cast(): status hit, miss, initially_overlapping, max_iterations (toi "
                              "a lower bound) or invalid_input.")
      .def_readonly("status", &C::status)
      .def_readonly("toi", &C::toi, "Time of impact in [0, 1].")
      .def_property_readonly("point_a", [](const C& r) { return to_numpy(r.point_a); }, "Contact point on A at toi.")
      .def_property_readonly("point_b", [](const C& r) { return to_numpy(r.point_b); }, "Contact point on B at toi.")
      .def_property_readonly("normal", [](const C& r) { return to_numpy(r.normal); }, "Unit normal from A toward B.")
      .def_readonly("iterations", &C::iterations)
      .def_readonly("error", &C::error)
      .def("__repr__", [](py::handle s) {
        return fields_repr("CastHit", s, {"status", "toi", "point_a", "point_b", "normal", "iterations", "error"});
      });
  py::class_<ToiStats>(m, "ToiStats", "Where the work of one time_of_impact call went.")
      .def_readonly("interval_tests", &ToiStats::interval_tests)
      .def_readonly("gjk_calls", &ToiStats::gjk_calls)
      .def_readonly("direction_evals", &ToiStats::direction_evals)
      .def_readonly("brent_evals", &ToiStats::brent_evals)
      .def_readonly("photo_finish", &ToiStats::photo_finish)
      .def("__repr__", [](py::handle s) {
        return fields_repr("ToiStats", s, {"interval_tests", "gjk_calls", "direction_evals", "brent_evals", "photo_finish"});
      });
  using T = ToiHit<double>;
  py::class_<T>(m, "ToiHit", "Answer of time_of_impact(): the fields of CastHit plus `stats`.")
      .def_readonly("status", &T::status)
      .def_readonly("toi", &T::toi, "Time of impact in [0, 1].")
      .def_property_readonly("point_a", [](const T& r) { return to_numpy(r.point_a); }, "Contact point on A at toi.")
      .def_property_readonly("point_b", [](const T& r) { return to_numpy(r.point_b); }, "Contact point on B at toi.")
      .def_property_readonly("normal", [](const T& r) { return to_numpy(r.normal); }, "Unit normal from A toward B.")
      .def_readonly("iterations", &T::iterations, "Interval tests (extrusion) or advancement steps.")
      .def_readonly("error", &T::error)
      .def_readonly("stats", &T::stats)
      .def("__repr__", [](py::handle s) {
        return fields_repr("ToiHit", s, {"status", "toi", "point_a", "point_b", "normal", "iterations", "error"});
      });
}

}  // namespace

void bind_queries(py::module_& m) {
  bind_results(m);
  const auto none = py::none();
  m.def(
      "distance",
      [](const ShapePtr& a, const ShapePtr& b, const py::object& pose_a, const py::object& pose_b,
         const py::object& relative_tolerance, const py::object& max_iterations, bool wide_retry,
         const py::object& apart_beyond, const std::string& precision) {
        return in_precision(precision, DistanceArgs{*a, *b, pose_or_identity(pose_a), pose_or_identity(pose_b),
                                                    relative_tolerance, max_iterations, wide_retry, apart_beyond});
      },
      py::arg("a"), py::arg("b"), py::arg("pose_a") = none, py::arg("pose_b") = none, py::kw_only(),
      py::arg("relative_tolerance") = none, py::arg("max_iterations") = none, py::arg("wide_retry") = true,
      py::arg("apart_beyond") = none, py::arg("precision") = "double",
      "Distance, closest points and normal (A toward B) of shapes a and b at their poses (None: identity) by GJK. "
      "Options default to the C++ defaults of the precision (GjkOptions). apart_beyond (a length; None: off): "
      "once the shapes are proven farther apart than it, GJK stops when the distance is known within an eighth "
      "of its excess over it (the reported distance is then at most (d - apart_beyond)/8 above the true d); "
      "distances up to it come out exactly as without it.");
  m.def(
      "ray_cast",
      [](const ShapePtr& shape, const py::object& origin, const py::object& direction, const py::object& pose,
         double max_lambda, const py::object& relative_tolerance, const py::object& max_iterations, bool closed_form,
         const std::string& precision) {
        return in_precision(precision, RayArgs{*shape, pose_or_identity(pose), vec3(origin, "origin"),
                                               vec3(direction, "direction"), max_lambda, relative_tolerance,
                                               max_iterations, closed_form});
      },
      py::arg("shape"), py::arg("origin"), py::arg("direction"), py::arg("pose") = none, py::kw_only(),
      py::arg("max_lambda") = 1.0, py::arg("relative_tolerance") = none, py::arg("max_iterations") = none,
      py::arg("closed_form") = true, py::arg("precision") = "double",
      "First point of the ray origin + lambda * direction, 0 <= lambda <= max_lambda, on the shape at its pose.");
  m.def(
      "shape_cast",
      [](const ShapePtr& a, const ShapePtr& b, const py::object& pose_a, const py::object& velocity_a,
         const py::object& pose_b, const py::object& velocity_b, const py::object& method, double target_distance,
         const py::object& tolerance, const py::object& max_iterations, bool closed_form, const std::string& precision) {
        return in_precision(precision, CastArgs{*a, *b, pose_or_identity(pose_a), pose_or_identity(pose_b),
                                                vec3(velocity_a, "velocity_a"), vec3(velocity_b, "velocity_b"),
                                                enum_arg<CastMethod>(method, "method"), target_distance, tolerance,
                                                max_iterations, closed_form});
      },
      py::arg("a"), py::arg("b"), py::arg("pose_a") = none, py::arg("velocity_a") = py::make_tuple(0.0, 0.0, 0.0),
      py::arg("pose_b") = none, py::arg("velocity_b") = py::make_tuple(0.0, 0.0, 0.0), py::kw_only(),
      py::arg("method") = CastMethod::gjk_raycast, py::arg("target_distance") = 0.0, py::arg("tolerance") = none,
      py::arg("max_iterations") = none, py::arg("closed_form") = true, py::arg("precision") = "double",
      "First time t in [0, 1] at which a (moving by t * velocity_a) and b (t * velocity_b) come within "
      "target_distance. Never later than the true contact.");
  m.def(
      "time_of_impact",
      [](const ShapePtr& a, const ShapePtr& b, const py::object& motion_a, const py::object& motion_b,
         const py::object& method, double target_distance, const py::object& tolerance, bool paper_acceptance,
         int max_iterations, double max_toi, const std::string& precision) {
        return in_precision(precision, ToiArgs{*a, *b, motion_or_rest(motion_a), motion_or_rest(motion_b),
                                               enum_arg<ToiMethod>(method, "method"), target_distance, tolerance,
                                               paper_acceptance, max_iterations, max_toi});
      },
      py::arg("a"), py::arg("b"), py::arg("motion_a") = none, py::arg("motion_b") = none, py::kw_only(),
      py::arg("method") = ToiMethod::extrusion_brent, py::arg("target_distance") = 0.0, py::arg("tolerance") = none,
      py::arg("paper_acceptance") = false, py::arg("max_iterations") = 4096, py::arg("max_toi") = 1.0,
      py::arg("precision") = "double",
      "First time t in [0, 1] at which a and b, under rigid motions with rotation (None: at rest at the identity), "
      "come within target_distance; never late, no contact missed under rotation. max_toi: only contacts at or "
      "before it are sought (later ones are misses; earlier answers are unchanged).");
}

}  // namespace impact::python
