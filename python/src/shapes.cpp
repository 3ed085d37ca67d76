// impact — python/src/shapes.cpp: the enums, Pose, Motion and the shape classes of the Python
// module. A shape object keeps its parameters (read-only) as a double `Shape`; queries take the
// float one from it, converted once and cached (docs in python/impact.pyi).
#include "common.hpp"

#include <string>
#include <utility>

namespace impact::python {
namespace {

/// Deepest nesting of Minkowski / Transformed shapes (as `impact query`'s minkowski limit).
constexpr int kMaxNesting = 16;

std::string num(double x) { return py::repr(py::float_(x)).cast<std::string>(); }
std::string vec_text(const Vec3<double>& v) { return "(" + num(v.x()) + ", " + num(v.y()) + ", " + num(v.z()) + ")"; }

Quat<double> quat4(py::handle h, const char* name) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  if (!a || a.ndim() != 1 || a.shape(0) != 4)
    throw py::value_error(std::string(name) + ": expected 4 numbers (w, x, y, z)");
  return {a.at(0), a.at(1), a.at(2), a.at(3)};
}

py::array_t<double> quat_numpy(const Quat<double>& q) {
  py::array_t<double> a(4);
  auto* p = a.mutable_data();
  p[0] = q.w(), p[1] = q.x(), p[2] = q.y(), p[3] = q.z();
  return a;
}

// ---- enums ------------------------------------------------------------------------------

void bind_enums(py::module_& m) {
  py::enum_<Status>(m, "Status", "Outcome of a query (include/impact/status.hpp). Batches return it as uint8: "
                                 "Status(x) converts one.")
      .value("separated", Status::separated, "distance: the shapes are apart.")
      .value("intersecting", Status::intersecting, "distance: the shapes overlap or touch.")
      .value("hit", Status::hit, "casts: a contact was found.")
      .value("miss", Status::miss, "casts: no contact over the motion or ray.")
      .value("initially_overlapping", Status::initially_overlapping, "casts: in contact at t = 0.")
      .value("max_iterations", Status::max_iterations, "the iteration cap was reached; the answer is a bound.")
      .value("invalid_input", Status::invalid_input, "an input was malformed; `error` names the field.");
  py::enum_<CastMethod>(m, "CastMethod", "Algorithm of shape_cast.")
      .value("gjk_raycast", CastMethod::gjk_raycast, "GJK ray cast on the configuration space obstacle (default).")
      .value("conservative_advancement", CastMethod::conservative_advancement, "Repeated GJK distance.")
      .value("mpr", CastMethod::mpr, "Minkowski portal refinement on the swept CSO.");
  py::enum_<ToiMethod>(m, "ToiMethod", "Algorithm of time_of_impact.")
      .value("extrusion_brent", ToiMethod::extrusion_brent, "Vlack & Tachi's GJK extrusion with Brent's method.")
      .value("conservative_advancement", ToiMethod::conservative_advancement, "Conservative advancement.");
  py::enum_<BackFaces>(m, "BackFaces", "Which crossings of a mesh triangle count.")
      .value("ignore", BackFaces::ignore, "Only front-to-back crossings collide.")
      .value("collide", BackFaces::collide, "Both sides of every triangle are solid.");
  py::enum_<MeshSplit>(m, "MeshSplit", "How a mesh's bins are split.")
      .value("middle", MeshSplit::middle, "Halve the longest axis (Schroeder).")
      .value("sah", MeshSplit::sah, "Binned surface area heuristic.");
  py::enum_<MeshFeature>(m, "MeshFeature", "The feature of a triangle a sphere touched.")
      .value("face", MeshFeature::face, "The triangle's interior.")
      .value("edge", MeshFeature::edge, "An edge.")
      .value("vertex", MeshFeature::vertex, "A corner.");
  py::enum_<WorldReport>(m, "WorldReport", "Which events World.step reports.")
      .value("pairs", WorldReport::pairs, "One event per pair of bodies, at its first contact.")
      .value("bodies", WorldReport::bodies, "Each body's earliest event.");
  py::enum_<BroadPhase>(m, "BroadPhase", "How World.step finds candidate pairs (same pairs either way).")
      .value("box_tree", BroadPhase::box_tree, "A box tree over the swept boxes.")
      .value("sweep_and_prune", BroadPhase::sweep_and_prune, "Sort and sweep along the widest axis.");
  py::enum_<BodyKind>(m, "BodyKind", "What a world body is made of.")
      .value("convex", BodyKind::convex, "One convex shape.")
      .value("compound", BodyKind::compound, "Convex parts at poses in the body's frame.")
      .value("mesh", BodyKind::mesh, "A triangle mesh.");
}

// ---- Pose and Motion --------------------------------------------------------------------------

std::string pose_repr(const Pose<double>& p) {
  const auto& q = p.rotation;
  return "Pose(position=" + vec_text(p.position) + ", rotation=(" + num(q.w()) + ", " + num(q.x()) + ", " +
         num(q.y()) + ", " + num(q.z()) + "))";
}

void bind_pose_motion(py::module_& m) {
  py::class_<Pose<double>>(m, "Pose",
                           "A rigid placement: local point p is at rotation * p + position (world). The rotation is a "
                           "unit quaternion given as (w, x, y, z); queries check it (norm within 1e-6 of 1).")
      .def(py::init([](const py::object& position, const py::object& rotation) {
             return Pose<double>{vec3(position, "position"), quat4(rotation, "rotation")};
           }),
           py::arg("position") = py::make_tuple(0.0, 0.0, 0.0), py::arg("rotation") = py::make_tuple(1.0, 0.0, 0.0, 0.0),
           "Pose(position=(0, 0, 0), rotation=(1, 0, 0, 0)), rotation as w, x, y, z.")
      .def_property(
          "position", [](const Pose<double>& p) { return to_numpy(p.position); },
          [](Pose<double>& p, const py::object& v) { p.position = vec3(v, "position"); },
          "Local origin in world coordinates (float64 array of 3; a copy).")
      .def_property(
          "rotation", [](const Pose<double>& p) { return quat_numpy(p.rotation); },
          [](Pose<double>& p, const py::object& v) { p.rotation = quat4(v, "rotation"); },
          "Unit quaternion (w, x, y, z) (float64 array of 4; a copy).")
      .def(
          "apply", [](const Pose<double>& p, const py::object& x) { return to_numpy(p.apply(vec3(x, "point"))); },
          py::arg("point"), "World point of a local point.")
      .def(
          "apply_inverse",
          [](const Pose<double>& p, const py::object& x) { return to_numpy(p.apply_inverse(vec3(x, "point"))); },
          py::arg("point"), "Local point of a world point.")
      .def("__repr__", &pose_repr);

  py::class_<MotionObj>(m, "Motion",
                        "Rigid motion over t in [0, 1]: position(t) = pose.position + t * linear_velocity, rotation(t) = "
                        "exp(t * angular_velocity) * pose.rotation (angular velocity in world coordinates, radians per "
                        "step). pose None: the identity in time_of_impact, the body's stored pose in World.step.")
      .def(py::init([](const py::object& pose, const py::object& lin, const py::object& ang) {
             MotionObj mo;
             if (!pose.is_none()) mo.pose = pose.cast<Pose<double>>();
             mo.linear_velocity = vec3(lin, "linear_velocity");
             mo.angular_velocity = vec3(ang, "angular_velocity");
             return mo;
           }),
           py::arg("pose") = py::none(), py::arg("linear_velocity") = py::make_tuple(0.0, 0.0, 0.0),
           py::arg("angular_velocity") = py::make_tuple(0.0, 0.0, 0.0))
      .def_property(
          "pose", [](const MotionObj& mo) -> py::object { return mo.pose ? py::cast(*mo.pose) : py::none(); },
          [](MotionObj& mo, const py::object& p) {
            mo.pose = p.is_none() ? std::nullopt : std::optional<Pose<double>>(p.cast<Pose<double>>());
          },
          "Pose at t = 0, or None.")
      .def_property(
          "linear_velocity", [](const MotionObj& mo) { return to_numpy(mo.linear_velocity); },
          [](MotionObj& mo, const py::object& v) { mo.linear_velocity = vec3(v, "linear_velocity"); },
          "Displacement of the local origin over the step (world).")
      .def_property(
          "angular_velocity", [](const MotionObj& mo) { return to_numpy(mo.angular_velocity); },
          [](MotionObj& mo, const py::object& v) { mo.angular_velocity = vec3(v, "angular_velocity"); },
          "Rotation vector over the step (world; radians).")
      .def(
          "at", [](const MotionObj& mo, double t) { return mo.get<double>().at(t); }, py::arg("t"),
          "The pose at time t (pose None counts as the identity).")
      .def("__repr__", [](const MotionObj& mo) {
        return "Motion(pose=" + (mo.pose ? pose_repr(*mo.pose) : std::string("None")) +
               ", linear_velocity=" + vec_text(mo.linear_velocity) +
               ", angular_velocity=" + vec_text(mo.angular_velocity) + ")";
      });
}

// ---- shapes -------------------------------------------------------------------------------

// One C++ type per Python class (pybind11 maps types to classes); the data is in ShapeObj::d.
struct PointObj : ShapeObj { using ShapeObj::ShapeObj; };
struct SphereObj : ShapeObj { using ShapeObj::ShapeObj; };
struct BoxObj : ShapeObj { using ShapeObj::ShapeObj; };
struct CapsuleObj : ShapeObj { using ShapeObj::ShapeObj; };
struct CylinderObj : ShapeObj { using ShapeObj::ShapeObj; };
struct ConeObj : ShapeObj { using ShapeObj::ShapeObj; };
struct SegmentObj : ShapeObj { using ShapeObj::ShapeObj; };
struct TriangleObj : ShapeObj { using ShapeObj::ShapeObj; };
struct HullObj : ShapeObj {
  using ShapeObj::ShapeObj;
  std::vector<Vec3<double>> points;  ///< The cloud it was built from.
};
struct MinkowskiObj : ShapeObj {
  using ShapeObj::ShapeObj;
  ShapePtr a, b;
};
struct TransformedObj : ShapeObj {
  using ShapeObj::ShapeObj;
  ShapePtr shape;
};

template <class T>
const T& as(const ShapeObj& s) {
  return std::get<T>(s.d.variant());
}

std::shared_ptr<const Shape<double>> alias(const ShapePtr& s) { return {s, &s->d}; }

int nested(const ShapePtr& a, const ShapePtr& b = nullptr) {
  const int depth = 1 + std::max(a->depth, b ? b->depth : 0);
  if (depth > kMaxNesting)
    throw py::value_error("shape nesting deeper than " + std::to_string(kMaxNesting) + " Minkowski/Transformed levels");
  return depth;
}

template <class T>
using ShapeClass = py::class_<T, ShapeObj, std::shared_ptr<T>>;

void bind_round_shapes(py::module_& m) {
  ShapeClass<PointObj>(m, "Point", "A single point at the local origin.")
      .def(py::init([] { return std::make_shared<PointObj>(Point<double>{}); }))
      .def("__repr__", [](const PointObj&) { return std::string("Point()"); });
  ShapeClass<SphereObj>(m, "Sphere", "A ball centred at the local origin.")
      .def(py::init([](double r) { return std::make_shared<SphereObj>(Sphere<double>{r}); }), py::arg("radius"))
      .def_property_readonly("radius", [](const SphereObj& s) { return as<Sphere<double>>(s).radius; }, "Radius.")
      .def("__repr__", [](const SphereObj& s) { return "Sphere(radius=" + num(as<Sphere<double>>(s).radius) + ")"; });
  ShapeClass<BoxObj>(m, "Box", "A box centred at the local origin, from -half_extents to +half_extents.")
      .def(py::init([](const py::object& h) { return std::make_shared<BoxObj>(Box<double>{vec3(h, "half_extents")}); }),
           py::arg("half_extents"))
      .def_property_readonly(
          "half_extents", [](const BoxObj& s) { return to_numpy(as<Box<double>>(s).half_extents); }, "Half sizes.")
      .def("__repr__", [](const BoxObj& s) { return "Box(half_extents=" + vec_text(as<Box<double>>(s).half_extents) + ")"; });
  ShapeClass<CapsuleObj>(m, "Capsule", "The segment (0,0,-h)..(0,0,h) swept by a ball of the radius.")
      .def(py::init([](double r, double h) { return std::make_shared<CapsuleObj>(Capsule<double>{r, h}); }),
           py::arg("radius"), py::arg("half_height"))
      .def_property_readonly("radius", [](const CapsuleObj& s) { return as<Capsule<double>>(s).radius; })
      .def_property_readonly("half_height", [](const CapsuleObj& s) { return as<Capsule<double>>(s).half_height; })
      .def("__repr__", [](const CapsuleObj& s) {
        const auto& c = as<Capsule<double>>(s);
        return "Capsule(radius=" + num(c.radius) + ", half_height=" + num(c.half_height) + ")";
      });
  ShapeClass<CylinderObj>(m, "Cylinder", "A solid cylinder about z with caps at z = +-half_height.")
      .def(py::init([](double r, double h) { return std::make_shared<CylinderObj>(Cylinder<double>{r, h}); }),
           py::arg("radius"), py::arg("half_height"))
      .def_property_readonly("radius", [](const CylinderObj& s) { return as<Cylinder<double>>(s).radius; })
      .def_property_readonly("half_height", [](const CylinderObj& s) { return as<Cylinder<double>>(s).half_height; })
      .def("__repr__", [](const CylinderObj& s) {
        const auto& c = as<Cylinder<double>>(s);
        return "Cylinder(radius=" + num(c.radius) + ", half_height=" + num(c.half_height) + ")";
      });
  ShapeClass<ConeObj>(m, "Cone", "A solid cone about z: base disc of the radius at z = -h, apex at (0, 0, h).")
      .def(py::init([](double r, double h) { return std::make_shared<ConeObj>(Cone<double>{r, h}); }),
           py::arg("radius"), py::arg("half_height"))
      .def_property_readonly("radius", [](const ConeObj& s) { return as<Cone<double>>(s).radius; })
      .def_property_readonly("half_height", [](const ConeObj& s) { return as<Cone<double>>(s).half_height; })
      .def("__repr__", [](const ConeObj& s) {
        const auto& c = as<Cone<double>>(s);
        return "Cone(radius=" + num(c.radius) + ", half_height=" + num(c.half_height) + ")";
      });
}

void bind_point_shapes(py::module_& m) {
  ShapeClass<SegmentObj>(m, "Segment", "The segment from a to b (local points).")
      .def(py::init([](const py::object& a, const py::object& b) {
             return std::make_shared<SegmentObj>(Segment<double>{vec3(a, "a"), vec3(b, "b")});
           }),
           py::arg("a"), py::arg("b"))
      .def_property_readonly("a", [](const SegmentObj& s) { return to_numpy(as<Segment<double>>(s).a); })
      .def_property_readonly("b", [](const SegmentObj& s) { return to_numpy(as<Segment<double>>(s).b); })
      .def("__repr__", [](const SegmentObj& s) {
        const auto& g = as<Segment<double>>(s);
        return "Segment(a=" + vec_text(g.a) + ", b=" + vec_text(g.b) + ")";
      });
  ShapeClass<TriangleObj>(m, "Triangle", "The solid (two-sided) triangle a, b, c (local points).")
      .def(py::init([](const py::object& a, const py::object& b, const py::object& c) {
             return std::make_shared<TriangleObj>(Triangle<double>{vec3(a, "a"), vec3(b, "b"), vec3(c, "c")});
           }),
           py::arg("a"), py::arg("b"), py::arg("c"))
      .def_property_readonly("a", [](const TriangleObj& s) { return to_numpy(as<Triangle<double>>(s).a); })
      .def_property_readonly("b", [](const TriangleObj& s) { return to_numpy(as<Triangle<double>>(s).b); })
      .def_property_readonly("c", [](const TriangleObj& s) { return to_numpy(as<Triangle<double>>(s).c); })
      .def("__repr__", [](const TriangleObj& s) {
        const auto& t = as<Triangle<double>>(s);
        return "Triangle(a=" + vec_text(t.a) + ", b=" + vec_text(t.b) + ", c=" + vec_text(t.c) + ")";
      });
  ShapeClass<HullObj>(m, "Hull",
                      "The convex hull of a point cloud (N, 3), built by qhull in double when constructed (the float "
                      "hull of float queries is converted from it). A cloud qhull cannot use raises ValueError.")
      .def(py::init([](const py::object& pts) {
             std::vector<Vec3<double>> cloud = rows3(pts, "points");
             HullBuild<double> built = Hull<double>::build(cloud);
             if (!built.ok()) throw py::value_error("points: " + built.error);
             auto h = std::make_shared<HullObj>(std::move(built.hull));
             h->points = std::move(cloud);
             return h;
           }),
           py::arg("points"))
      .def_property_readonly("points", [](const HullObj& s) { return rows_numpy(s.points); }, "The input cloud (N, 3).")
      .def_property_readonly(
          "vertices", [](const HullObj& s) { return rows_numpy(as<Hull<double>>(s).vertices); }, "Extreme points (K, 3).")
      .def_property_readonly("dimension", [](const HullObj& s) { return as<Hull<double>>(s).dimension; },
                             "0 point, 1 segment, 2 polygon, 3 polyhedron.")
      .def_property_readonly("face_count", [](const HullObj& s) { return as<Hull<double>>(s).faces.size(); })
      .def("__repr__", [](const HullObj& s) {
        return "Hull(<" + std::to_string(s.points.size()) + " points, " +
               std::to_string(as<Hull<double>>(s).vertices.size()) + " vertices>)";
      });
}

void bind_composite_shapes(py::module_& m) {
  ShapeClass<MinkowskiObj>(m, "Minkowski",
                           "The Minkowski sum a + b of two shapes, both in the sum's frame (Sphere + Box is a rounded "
                           "box). Nesting is limited to 16 levels.")
      .def(py::init([](const ShapePtr& a, const ShapePtr& b) {
             auto s = std::make_shared<MinkowskiObj>(MinkowskiShape<double>{alias(a), alias(b)}, nested(a, b));
             s->a = a, s->b = b;
             return s;
           }),
           py::arg("a"), py::arg("b"))
      .def_readonly("a", &MinkowskiObj::a)
      .def_readonly("b", &MinkowskiObj::b)
      .def("__repr__", [](const MinkowskiObj& s) {
        return "Minkowski(" + py::repr(py::cast(s.a)).cast<std::string>() + ", " +
               py::repr(py::cast(s.b)).cast<std::string>() + ")";
      });
  ShapeClass<TransformedObj>(m, "Transformed", "A shape placed in its parent's frame by a pose (shape inside a shape).")
      .def(py::init([](const ShapePtr& shape, const Pose<double>& pose) {
             auto s = std::make_shared<TransformedObj>(TransformedShape<double>{alias(shape), pose}, nested(shape));
             s->shape = shape;
             return s;
           }),
           py::arg("shape"), py::arg("pose"))
      .def_readonly("shape", &TransformedObj::shape)
      .def_property_readonly("pose", [](const TransformedObj& s) { return as<TransformedShape<double>>(s).pose; })
      .def("__repr__", [](const TransformedObj& s) {
        return "Transformed(" + py::repr(py::cast(s.shape)).cast<std::string>() + ", " +
               pose_repr(as<TransformedShape<double>>(s).pose) + ")";
      });
}

}  // namespace

void bind_shapes(py::module_& m) {
  bind_enums(m);
  bind_pose_motion(m);
  py::class_<ShapeObj, ShapePtr>(m, "Shape",
                                 "Base of every convex shape (not constructible). Shapes are immutable; sizes are checked "
                                 "by the queries (a negative radius answers invalid_input).")
      .def_property_readonly("type", [](const ShapeObj& s) { return std::string(shape_name(s.d)); },
                             "Protocol name of the shape's type ('sphere', 'hull', ...).")
      .def("bounding_radius", [](const ShapeObj& s) { return bounding_radius(s.d); },
           "Largest distance from the local origin to a point of the shape.")
      .def(
          "support", [](const ShapeObj& s, const py::object& d) { return to_numpy(support(s.d, vec3(d, "direction"))); },
          py::arg("direction"), "A point of the shape farthest along the direction (local frame).")
      .def("validate", [](const ShapeObj& s) { return validate(s.d); },
           "What is wrong with the shape's sizes ('' when valid): what a query would answer as invalid_input.");
  bind_round_shapes(m);
  bind_point_shapes(m);
  bind_composite_shapes(m);
}

}  // namespace impact::python
