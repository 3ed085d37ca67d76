// impact — mesh_protocol.cpp: the triangle-mesh queries of `impact query`
// (docs/protocol.md "Triangle meshes" and "Levels"; how they work: docs/mesh.md).
#include "mesh_protocol.hpp"

#include "level_protocol.hpp"

#include <impact/mesh.hpp>

#include <map>
#include <memory>

namespace impact::cli {
namespace {

/// A mesh stored by define_mesh, with its float twin built on first use.
struct StoredMesh {
  TriangleMesh<double> d;
  std::unique_ptr<TriangleMesh<float>> f;
  const TriangleMesh<float>& as_float() {
    if (!f) f = std::make_unique<TriangleMesh<float>>(convert_mesh<float>(d));
    return *f;
  }
};

std::map<std::string, std::shared_ptr<StoredMesh>, std::less<>>& store() {
  static std::map<std::string, std::shared_ptr<StoredMesh>, std::less<>> meshes;  // one process per stream
  return meshes;
}

/// A vertex index: an integer written as one (`2.0` is refused, as in OBJ files).
std::uint32_t index_in(const json& v, const std::string& path) {
  if (!v.is_number_integer()) throw Bad{path + ": expected a non-negative integer index (written without '.' or exponent)"};
  return static_cast<std::uint32_t>(integer(v, path, 0, 4294967295));
}

}  // namespace

void parse_mesh_arrays(const json& j, const std::string& path, TriangleMesh<double>& m) {
  Fields f(j, path);
  const json& vs = f.required("vertices");
  const json& ts = f.required("triangles");
  f.finish();
  const std::string vp = f.at("vertices"), tp = f.at("triangles");
  if (!vs.is_array()) throw Bad{vp + ": expected an array of [x, y, z]"};
  if (!ts.is_array()) throw Bad{tp + ": expected an array of [i, j, k]"};
  m.vertices.clear();
  m.triangles.clear();
  m.vertices.reserve(vs.size());
  m.triangles.reserve(ts.size());
  for (std::size_t i = 0; i < vs.size(); ++i) m.vertices.push_back(vec(vs[i], vp + "." + std::to_string(i)));
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const std::string p = tp + "." + std::to_string(i);
    const json& t = ts[i];
    if (!t.is_array() || t.size() != 3) throw Bad{p + ": expected [i, j, k]"};
    std::array<std::uint32_t, 3> tri{};
    for (int k = 0; k < 3; ++k) {
      const std::string pk = p + "." + std::to_string(k);
      tri[k] = index_in(t[k], pk);
      if (tri[k] >= m.vertices.size())
        throw Bad{pk + ": index " + std::to_string(tri[k]) + " out of range (" + std::to_string(m.vertices.size()) +
                  " vertices)"};
    }
    m.triangles.push_back(tri);
  }
}

namespace {

/// The mesh a query names: inline arrays (built for this query) or a stored name.
std::shared_ptr<StoredMesh> mesh_of(const json& j, const std::string& path) {
  if (j.is_object() && j.contains("ref")) {
    Fields f(j, path);
    const std::string name = text(f.required("ref"), f.at("ref"));
    f.finish();
    auto it = store().find(name);
    if (it == store().end()) throw Bad{join(path, "ref") + ": no mesh named '" + name + "' was defined"};
    return it->second;
  }
  auto m = std::make_shared<StoredMesh>();
  parse_mesh_arrays(j, path, m->d);
  if (auto e = build_mesh(m->d); !e.empty()) throw Bad{join(path, e)};
  return m;
}

void define_mesh(Fields& f, ojson& out) {
  const std::string name = text(f.required("name"), "name");
  const json* mj = f.optional("mesh");
  const json* oj = f.optional("obj");
  f.finish();
  if ((mj != nullptr) == (oj != nullptr)) throw Bad{"mesh: give exactly one of \"mesh\" and \"obj\""};
  auto m = std::make_shared<StoredMesh>();
  if (mj) {
    parse_mesh_arrays(*mj, "mesh", m->d);
  } else {
    const std::string path = text(*oj, "obj");
    std::vector<Vec3<double>> v;
    if (auto e = load_obj(path, v, m->d.triangles); !e.empty()) throw Bad{"obj: " + e};
    m->d.vertices = std::move(v);
  }
  if (auto e = build_mesh(m->d); !e.empty()) throw Bad{(mj ? "mesh." : "obj: ") + e};
  out["status"] = "ok";
  out["triangles"] = m->d.triangles.size();
  store()[name] = std::move(m);
}

BackFaces back_faces_in(Fields& f) {
  const json* v = f.optional("back_faces");
  if (!v) return BackFaces::ignore;
  const std::string s = text(*v, "back_faces");
  if (s == "ignore") return BackFaces::ignore;
  if (s == "collide") return BackFaces::collide;
  throw Bad{"back_faces: expected \"ignore\" or \"collide\", got '" + s + "'"};
}

template <class S>
const TriangleMesh<S>& typed(StoredMesh& m) {
  if constexpr (std::is_same_v<S, double>) return m.d;
  else return m.as_float();
}

template <class S>
void put_cast(const MeshCastHit<S>& h, bool with_feature, ojson& out) {
  if (h.status == Status::invalid_input) throw Bad{h.error};
  const bool hit = h.status == Status::hit || h.status == Status::max_iterations;  // a lower bound is a safe hit
  out["status"] = hit ? std::string("hit") : std::string(to_string(h.status));
  if (h.status == Status::miss) return;
  out["toi"] = static_cast<double>(h.toi);
  put_vec(out, "point", h.point);
  put_vec(out, "normal", h.normal);
  out["triangle"] = h.triangle;
  if (with_feature) out["feature"] = to_string(h.feature);
}

template <class S>
void ray(StoredMesh& m, const Vec3<double>& o, const Vec3<double>& d, double max_lambda, BackFaces bf, ojson& out) {
  MeshRayOptions<S> opt;
  opt.max_lambda = static_cast<S>(max_lambda);
  opt.back_faces = bf;
  const MeshRayHit<S> h = mesh_ray_cast<S>(typed<S>(m), Ray<S>{o.cast<S>(), d.cast<S>()}, opt);
  if (h.status == Status::invalid_input) throw Bad{h.error};
  out["status"] = std::string(to_string(h.status));
  if (h.status != Status::hit) return;
  out["lambda"] = static_cast<double>(h.lambda);
  put_vec(out, "point", h.point);
  put_vec(out, "normal", h.normal);
  out["triangle"] = h.triangle;
}

template <class S>
void sphere(StoredMesh& m, const Vec3<double>& c, double r, const Vec3<double>& path, double buffer, BackFaces bf,
            ojson& out) {
  MeshSphereOptions<S> opt;
  opt.buffer = static_cast<S>(buffer);
  opt.back_faces = bf;
  put_cast(mesh_sphere_cast<S>(typed<S>(m), c.cast<S>(), static_cast<S>(r), path.cast<S>(), opt), true, out);
}

template <class S>
void spheres(StoredMesh& m, const std::vector<SphereInBody<double>>& body, const Vec3<double>& path, double buffer,
             BackFaces bf, ojson& out) {
  MeshSphereOptions<S> opt;
  opt.buffer = static_cast<S>(buffer);
  opt.back_faces = bf;
  std::vector<SphereInBody<S>> b;
  b.reserve(body.size());
  for (const auto& x : body) b.push_back({x.center.cast<S>(), static_cast<S>(x.radius)});
  const MeshCastHit<S> h = mesh_spheres_cast<S>(typed<S>(m), b, path.cast<S>(), opt);
  put_cast(h, true, out);
  if (h.status != Status::miss) out["sphere"] = h.sphere;
}

template <class S>
void shape(StoredMesh& m, const Shape<double>& s, const Pose<double>& pose, const Vec3<double>& v, double target,
           BackFaces bf, ojson& out) {
  MeshShapeOptions<S> opt;
  opt.target_distance = static_cast<S>(target);
  opt.back_faces = bf;
  Shape<S> sh;
  if constexpr (std::is_same_v<S, double>) sh = s;
  else sh = convert_shape<S>(s);
  put_cast(mesh_shape_cast<S>(typed<S>(m), sh, pose.cast<S>(), v.cast<S>(), opt), false, out);
}

}  // namespace

std::shared_ptr<const TriangleMesh<double>> body_mesh_double(const json& j, const std::string& path) {
  std::shared_ptr<StoredMesh> m = mesh_of(j, path);
  return {m, &m->d};
}

std::shared_ptr<const TriangleMesh<float>> body_mesh_float(const json& j, const std::string& path) {
  std::shared_ptr<StoredMesh> m = mesh_of(j, path);
  const TriangleMesh<float>* f = &m->as_float();
  return {m, f};
}

bool is_mesh_query(const std::string& q) {
  return q == "define_mesh" || q == "mesh_ray_cast" || q == "mesh_sphere_cast" || q == "mesh_shape_cast" ||
         q == "mesh_spheres_cast" || is_level_query(q);
}

void answer_mesh_query(const std::string& q, Fields& f, bool use_float, ojson& out) {
  if (q == "define_mesh") {
    define_mesh(f, out);
  } else if (q == "mesh_ray_cast") {
    auto m = mesh_of(f.required("mesh"), "mesh");
    const Vec3<double> o = vec(f.required("origin"), "origin");
    const Vec3<double> d = vec(f.required("direction"), "direction");
    double max_lambda = 1;
    if (const json* l = f.optional("max_lambda")) max_lambda = size(*l, "max_lambda");
    const BackFaces bf = back_faces_in(f);
    f.finish();
    if (use_float) ray<float>(*m, o, d, max_lambda, bf, out);
    else ray<double>(*m, o, d, max_lambda, bf, out);
  } else if (q == "mesh_sphere_cast") {
    auto m = mesh_of(f.required("mesh"), "mesh");
    const Vec3<double> c = vec(f.required("center"), "center");
    const double r = size(f.required("radius"), "radius");
    const Vec3<double> path = vec(f.required("path"), "path");
    double buffer = 0;
    if (const json* b = f.optional("buffer")) buffer = size(*b, "buffer");
    const BackFaces bf = back_faces_in(f);
    f.finish();
    if (use_float) sphere<float>(*m, c, r, path, buffer, bf, out);
    else sphere<double>(*m, c, r, path, buffer, bf, out);
  } else if (q == "mesh_spheres_cast") {
    auto m = mesh_of(f.required("mesh"), "mesh");
    const json& js = f.required("spheres");
    if (!js.is_array() || js.empty()) throw Bad{"spheres: expected a non-empty array of {\"center\", \"radius\"}"};
    std::vector<SphereInBody<double>> body;
    for (std::size_t i = 0; i < js.size(); ++i) {
      const std::string at = "spheres." + std::to_string(i);
      Fields sf(js[i], at);
      SphereInBody<double> b;
      b.center = vec(sf.required("center"), sf.at("center"));
      b.radius = size(sf.required("radius"), sf.at("radius"));
      sf.finish();
      body.push_back(b);
    }
    const Vec3<double> path = vec(f.required("path"), "path");
    double buffer = 0;
    if (const json* b = f.optional("buffer")) buffer = size(*b, "buffer");
    const BackFaces bf = back_faces_in(f);
    f.finish();
    if (use_float) spheres<float>(*m, body, path, buffer, bf, out);
    else spheres<double>(*m, body, path, buffer, bf, out);
  } else if (q == "mesh_shape_cast") {
    auto m = mesh_of(f.required("mesh"), "mesh");
    const Shape<double> s = parse_shape(f.required("shape"), "shape");
    const Pose<double> pose = pose_or_identity(f, "pose");
    const Vec3<double> v = vec(f.required("velocity"), "velocity");
    double target = 0;
    if (const json* t = f.optional("target_distance")) target = size(*t, "target_distance");
    const BackFaces bf = back_faces_in(f);
    f.finish();
    if (use_float) shape<float>(*m, s, pose, v, target, bf, out);
    else shape<double>(*m, s, pose, v, target, bf, out);
  } else {
    answer_level_query(q, f, use_float, out);
  }
}

}  // namespace impact::cli
