// impact — python/src/batches.cpp: the convex-shape batch calls of the Python module
// (distance_batch, ray_cast_batch, shape_cast_batch, time_of_impact_batch) over
// include/impact/batch.hpp, and the dtype and option checks every batch shares (batch_common.hpp).
#include "batch_common.hpp"

#include <string>

namespace impact::python {

bool batch_is_float(std::initializer_list<std::pair<const char*, py::handle>> inputs) {
  const char* first = nullptr;
  bool single = false;
  for (const auto& [name, h] : inputs) {
    if (h.is_none() || !py::isinstance<py::array>(h)) continue;
    const py::dtype dt = py::reinterpret_borrow<py::array>(h).dtype();
    const bool is32 = dt.kind() == 'f' && dt.itemsize() == 4;
    const bool is64 = dt.kind() == 'f' && dt.itemsize() == 8;
    if (!is32 && !is64)
      throw py::type_error(std::string(name) + ": expected a float32 or float64 array, got dtype " +
                           dt.attr("name").cast<std::string>());
    if (first && is32 != single)
      throw py::type_error(std::string("arrays of one call must share their dtype: ") + first + " is " +
                           (single ? "float32" : "float64") + ", " + name + " is " + (is32 ? "float32" : "float64"));
    if (!first) first = name, single = is32;
  }
  return single;
}

BatchOptions batch_options(int threads, int grain) {
  if (threads < 0) throw py::value_error("threads: must be 0 (every core) or more");
  if (grain < 1) throw py::value_error("grain: must be at least 1");
  return {threads, grain};
}

namespace {

template <class S>
constexpr std::array<S, 3> kZero{S(0), S(0), S(0)};
template <class S>
constexpr std::array<S, 4> kUnit{S(1), S(0), S(0), S(0)};

template <class S>
PoseRows<S> pose_rows(BatchInputs<S>& in, const char* position_name, const py::object& position,
                      const char* rotation_name, const py::object& rotation) {
  auto p = in.template rows<3>(position_name, position, kZero<S>);
  auto r = in.template rows<4>(rotation_name, rotation, kUnit<S>);
  return {p, r};
}

/// The keyword options of the GJK and cast batches (None: the C++ default of the precision).
struct PairArgs {
  py::object relative_tolerance, max_iterations, tolerance, apart_beyond;
  bool wide_retry = true, closed_form = true, paper_acceptance = false;
  double max_lambda = 1, target_distance = 0;
  CastMethod cast_method = CastMethod::gjk_raycast;
  ToiMethod toi_method = ToiMethod::extrusion_brent;
  int toi_max_iterations = 4096;
  double max_toi = 1.0;
  BatchOptions batch;
};

template <class S>
py::dict distance_rows(const ShapeObj& a, const ShapeObj& b, const py::object& pa, const py::object& ra,
                       const py::object& pb, const py::object& rb, const PairArgs& x) {
  BatchInputs<S> in;
  const PoseRows<S> A = pose_rows(in, "position_a", pa, "rotation_a", ra);
  const PoseRows<S> B = pose_rows(in, "position_b", pb, "rotation_b", rb);
  const py::ssize_t n = in.count();
  GjkOptions<S> o;
  o.relative_tolerance = or_default<S>(x.relative_tolerance, o.relative_tolerance);
  o.max_iterations = or_default<int>(x.max_iterations, o.max_iterations);
  o.wide_retry = x.wide_retry;
  o.apart_beyond = or_default<S>(x.apart_beyond, o.apart_beyond);
  BatchOutputs out(n);
  DistanceRows<S> rows{out.status(), out.column<S>("distance"), out.rows<S>("point_a"), out.rows<S>("point_b"),
                       out.rows<S>("normal")};
  const Shape<S>& sa = a.get<S>();
  const Shape<S>& sb = b.get<S>();
  run_unlocked(n, [&] { return distance_batch<S>(sa, A, sb, B, o, rows, x.batch); });
  return out.dict();
}

template <class S>
py::dict ray_rows(const ShapeObj& shape, const py::object& origin, const py::object& direction, const Pose<double>& pose,
                  const PairArgs& x) {
  BatchInputs<S> in;
  const auto o = in.template rows<3>("origin", origin, kZero<S>);
  const auto d = in.template rows<3>("direction", direction, kZero<S>);
  const py::ssize_t n = in.count();
  RayCastOptions<S> opt;
  opt.max_lambda = static_cast<S>(x.max_lambda);
  opt.relative_tolerance = or_default<S>(x.relative_tolerance, opt.relative_tolerance);
  opt.max_iterations = or_default<int>(x.max_iterations, opt.max_iterations);
  opt.closed_form = x.closed_form;
  BatchOutputs out(n);
  RayRows<S> rows{out.status(), out.column<S>("lambda"), out.rows<S>("point"), out.rows<S>("normal")};
  const Shape<S>& s = shape.get<S>();
  const Pose<S> p = pose.cast<S>();
  run_unlocked(n, [&] { return ray_cast_batch<S>(s, p, o, d, opt, rows, x.batch); });
  return out.dict();
}

template <class S>
CastRows<S> cast_outputs(BatchOutputs& out) {
  return {out.status(), out.column<S>("toi"), out.rows<S>("point_a"), out.rows<S>("point_b"), out.rows<S>("normal")};
}

template <class S>
py::dict cast_rows(const ShapeObj& a, const ShapeObj& b, const std::array<py::object, 6>& v, const PairArgs& x) {
  BatchInputs<S> in;
  const PoseRows<S> A = pose_rows(in, "position_a", v[0], "rotation_a", v[1]);
  const auto va = in.template rows<3>("velocity_a", v[2], kZero<S>);
  const PoseRows<S> B = pose_rows(in, "position_b", v[3], "rotation_b", v[4]);
  const auto vb = in.template rows<3>("velocity_b", v[5], kZero<S>);
  const py::ssize_t n = in.count();
  ShapeCastOptions<S> o;
  o.method = x.cast_method;
  o.target_distance = static_cast<S>(x.target_distance);
  o.tolerance = or_default<S>(x.tolerance, o.tolerance);
  o.max_iterations = or_default<int>(x.max_iterations, o.max_iterations);
  o.closed_form = x.closed_form;
  BatchOutputs out(n);
  CastRows<S> rows = cast_outputs<S>(out);
  const Shape<S>& sa = a.get<S>();
  const Shape<S>& sb = b.get<S>();
  run_unlocked(n, [&] { return shape_cast_batch<S>(sa, A, va, sb, B, vb, o, rows, x.batch); });
  return out.dict();
}

template <class S>
py::dict toi_rows(const ShapeObj& a, const ShapeObj& b, const std::array<py::object, 8>& v, const PairArgs& x) {
  BatchInputs<S> in;
  MotionRows<S> A{pose_rows(in, "position_a", v[0], "rotation_a", v[1]),
                  in.template rows<3>("linear_velocity_a", v[2], kZero<S>),
                  in.template rows<3>("angular_velocity_a", v[3], kZero<S>)};
  MotionRows<S> B{pose_rows(in, "position_b", v[4], "rotation_b", v[5]),
                  in.template rows<3>("linear_velocity_b", v[6], kZero<S>),
                  in.template rows<3>("angular_velocity_b", v[7], kZero<S>)};
  const py::ssize_t n = in.count();
  ToiOptions<S> o;
  o.method = x.toi_method;
  o.target_distance = static_cast<S>(x.target_distance);
  o.tolerance = or_default<S>(x.tolerance, o.tolerance);
  o.paper_acceptance = x.paper_acceptance;
  o.max_iterations = x.toi_max_iterations;
  o.max_toi = static_cast<S>(x.max_toi);
  BatchOutputs out(n);
  CastRows<S> rows = cast_outputs<S>(out);
  const Shape<S>& sa = a.get<S>();
  const Shape<S>& sb = b.get<S>();
  run_unlocked(n, [&] { return time_of_impact_batch<S>(sa, A, sb, B, o, rows, x.batch); });
  return out.dict();
}

const char* const kBatchDoc =
    " Inputs are numpy arrays of one dtype (float32 or float64: the precision), N rows or 1 shared row "
    "(None: identity pose / zero velocity); C-contiguous arrays of that dtype are read without a copy, others are "
    "copied. Returns a dict of new arrays of N rows; 'status' is uint8 (impact.Status(x) converts). The GIL is "
    "released while it runs; row i equals the single query, bit for bit, for any `threads` (0: every core).";

}  // namespace

void bind_batches(py::module_& m) {
  const auto none = py::none();
  m.def(
      "distance_batch",
      [](const ShapePtr& a, const ShapePtr& b, const py::object& pa, const py::object& ra, const py::object& pb,
         const py::object& rb, const py::object& rel, const py::object& iters, bool wide_retry,
         const py::object& apart_beyond, int threads, int grain) {
        PairArgs x;
        x.relative_tolerance = rel, x.max_iterations = iters, x.wide_retry = wide_retry, x.apart_beyond = apart_beyond;
        x.batch = batch_options(threads, grain);
        const bool f = batch_is_float({{"position_a", pa}, {"rotation_a", ra}, {"position_b", pb}, {"rotation_b", rb}});
        return f ? distance_rows<float>(*a, *b, pa, ra, pb, rb, x) : distance_rows<double>(*a, *b, pa, ra, pb, rb, x);
      },
      py::arg("a"), py::arg("b"), py::arg("position_a") = none, py::arg("rotation_a") = none,
      py::arg("position_b") = none, py::arg("rotation_b") = none, py::kw_only(), py::arg("relative_tolerance") = none,
      py::arg("max_iterations") = none, py::arg("wide_retry") = true, py::arg("apart_beyond") = none,
      py::arg("threads") = 0, py::arg("grain") = 64,
      (std::string("distance(a, pose_a[i], b, pose_b[i]) for every row i (options as distance's, apart_beyond "
                   "included): keys status, distance, point_a, point_b, normal.") + kBatchDoc).c_str());
  m.def(
      "ray_cast_batch",
      [](const ShapePtr& shape, const py::object& origin, const py::object& direction, const py::object& pose,
         double max_lambda, const py::object& rel, const py::object& iters, bool closed_form, int threads, int grain) {
        PairArgs x;
        x.relative_tolerance = rel, x.max_iterations = iters, x.closed_form = closed_form, x.max_lambda = max_lambda;
        x.batch = batch_options(threads, grain);
        const Pose<double> p = pose_or_identity(pose);
        return batch_is_float({{"origin", origin}, {"direction", direction}})
                   ? ray_rows<float>(*shape, origin, direction, p, x)
                   : ray_rows<double>(*shape, origin, direction, p, x);
      },
      py::arg("shape"), py::arg("origin"), py::arg("direction"), py::arg("pose") = none, py::kw_only(),
      py::arg("max_lambda") = 1.0, py::arg("relative_tolerance") = none, py::arg("max_iterations") = none,
      py::arg("closed_form") = true, py::arg("threads") = 0, py::arg("grain") = 64,
      (std::string("ray_cast(shape, pose, origin[i], direction[i]) for every row i (one Pose for all): keys status, "
                   "lambda, point, normal.") + kBatchDoc).c_str());
  m.def(
      "shape_cast_batch",
      [](const ShapePtr& a, const ShapePtr& b, const py::object& pa, const py::object& ra, const py::object& va,
         const py::object& pb, const py::object& rb, const py::object& vb, const py::object& method, double target,
         const py::object& tolerance, const py::object& iters, bool closed_form, int threads, int grain) {
        PairArgs x;
        x.cast_method = enum_arg<CastMethod>(method, "method"), x.target_distance = target, x.tolerance = tolerance;
        x.max_iterations = iters, x.closed_form = closed_form, x.batch = batch_options(threads, grain);
        const std::array<py::object, 6> v{pa, ra, va, pb, rb, vb};
        const bool f = batch_is_float({{"position_a", pa}, {"rotation_a", ra}, {"velocity_a", va},
                                       {"position_b", pb}, {"rotation_b", rb}, {"velocity_b", vb}});
        return f ? cast_rows<float>(*a, *b, v, x) : cast_rows<double>(*a, *b, v, x);
      },
      py::arg("a"), py::arg("b"), py::arg("position_a") = none, py::arg("rotation_a") = none,
      py::arg("velocity_a") = none, py::arg("position_b") = none, py::arg("rotation_b") = none,
      py::arg("velocity_b") = none, py::kw_only(), py::arg("method") = CastMethod::gjk_raycast,
      py::arg("target_distance") = 0.0, py::arg("tolerance") = none, py::arg("max_iterations") = none,
      py::arg("closed_form") = true, py::arg("threads") = 0, py::arg("grain") = 64,
      (std::string("shape_cast(a, pose_a[i], velocity_a[i], b, pose_b[i], velocity_b[i]) for every row i: keys "
                   "status, toi, point_a, point_b, normal.") + kBatchDoc).c_str());
  m.def(
      "time_of_impact_batch",
      [](const ShapePtr& a, const ShapePtr& b, const py::object& pa, const py::object& ra, const py::object& la,
         const py::object& wa, const py::object& pb, const py::object& rb, const py::object& lb, const py::object& wb,
         const py::object& method, double target, const py::object& tolerance, bool paper, int iters, double max_toi,
         int threads, int grain) {
        PairArgs x;
        x.toi_method = enum_arg<ToiMethod>(method, "method"), x.target_distance = target, x.tolerance = tolerance;
        x.paper_acceptance = paper, x.toi_max_iterations = iters, x.max_toi = max_toi;
        x.batch = batch_options(threads, grain);
        const std::array<py::object, 8> v{pa, ra, la, wa, pb, rb, lb, wb};
        const bool f = batch_is_float({{"position_a", pa}, {"rotation_a", ra}, {"linear_velocity_a", la},
                                       {"angular_velocity_a", wa}, {"position_b", pb}, {"rotation_b", rb},
                                       {"linear_velocity_b", lb}, {"angular_velocity_b", wb}});
        return f ? toi_rows<float>(*a, *b, v, x) : toi_rows<double>(*a, *b, v, x);
      },
      py::arg("a"), py::arg("b"), py::arg("position_a") = none, py::arg("rotation_a") = none,
      py::arg("linear_velocity_a") = none, py::arg("angular_velocity_a") = none, py::arg("position_b") = none,
      py::arg("rotation_b") = none, py::arg("linear_velocity_b") = none, py::arg("angular_velocity_b") = none,
      py::kw_only(), py::arg("method") = ToiMethod::extrusion_brent, py::arg("target_distance") = 0.0,
      py::arg("tolerance") = none, py::arg("paper_acceptance") = false, py::arg("max_iterations") = 4096,
      py::arg("max_toi") = 1.0, py::arg("threads") = 0, py::arg("grain") = 64,
      (std::string("time_of_impact(a, motion_a[i], b, motion_b[i]) for every row i (motions as pose, linear and "
                   "angular velocity arrays): keys status, toi, point_a, point_b, normal.") + kBatchDoc).c_str());
}

}  // namespace impact::python
