// impact — mesh_obj.cpp: Wavefront OBJ input for triangle meshes, through tinyobjloader when the
// build found it (Debian libtinyobjloader-dev), else a small reader of `v` and `f` lines.
#include <impact/mesh.hpp>

#include <fstream>
#include <sstream>

#if IMPACT_HAVE_TINYOBJLOADER
#include <tiny_obj_loader.h>
#endif

namespace impact {

#if IMPACT_HAVE_TINYOBJLOADER
std::string load_obj(const std::string& path, std::vector<Vec3<double>>& vertices,
                     std::vector<std::array<std::uint32_t, 3>>& triangles) {
  tinyobj::ObjReaderConfig config;
  config.triangulate = false;  // polygons are fanned below, so the triangle order is documented
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(path, config)) {
    std::string e = reader.Error();
    while (!e.empty() && (e.back() == '\n' || e.back() == '\r')) e.pop_back();
    return e.empty() ? "cannot read " + path : e;
  }
  const auto& v = reader.GetAttrib().vertices;
  vertices.clear();
  triangles.clear();
  for (std::size_t i = 0; i + 2 < v.size(); i += 3) vertices.emplace_back(v[i], v[i + 1], v[i + 2]);
  const std::size_t nv = vertices.size();
  for (const auto& shape : reader.GetShapes()) {
    std::size_t at = 0;
    for (std::size_t f = 0; f < shape.mesh.num_face_vertices.size(); ++f) {
      const std::size_t k = shape.mesh.num_face_vertices[f];
      for (std::size_t j = 0; j < k; ++j) {
        const int idx = shape.mesh.indices[at + j].vertex_index;
        if (idx < 0 || static_cast<std::size_t>(idx) >= nv) return path + ": face vertex index out of range";
      }
      for (std::size_t j = 1; j + 1 < k; ++j)
        triangles.push_back({static_cast<std::uint32_t>(shape.mesh.indices[at].vertex_index),
                             static_cast<std::uint32_t>(shape.mesh.indices[at + j].vertex_index),
                             static_cast<std::uint32_t>(shape.mesh.indices[at + j + 1].vertex_index)});
      at += k;
    }
  }
  return {};
}
#else
std::string load_obj(const std::string& path, std::vector<Vec3<double>>& vertices,
                     std::vector<std::array<std::uint32_t, 3>>& triangles) {
  std::ifstream in(path);
  if (!in) return "cannot open " + path;
  vertices.clear();
  triangles.clear();
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream s(line);
    std::string tag;
    if (!(s >> tag)) continue;
    if (tag == "v") {
      double x, y, z;
      if (!(s >> x >> y >> z)) return path + ":" + std::to_string(number) + ": malformed vertex";
      vertices.emplace_back(x, y, z);
    } else if (tag == "f") {
      std::vector<std::uint32_t> face;
      std::string tok;
      while (s >> tok) {
        long i = std::strtol(tok.c_str(), nullptr, 10);  // "i", "i/t", "i//n", "i/t/n"
        if (i < 0) i += static_cast<long>(vertices.size()) + 1;
        if (i < 1 || static_cast<std::size_t>(i) > vertices.size())
          return path + ":" + std::to_string(number) + ": face vertex index out of range";
        face.push_back(static_cast<std::uint32_t>(i - 1));
      }
      for (std::size_t j = 1; j + 1 < face.size(); ++j) triangles.push_back({face[0], face[j], face[j + 1]});
    }
  }
  return {};
}
#endif

}  // namespace impact
