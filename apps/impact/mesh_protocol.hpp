// impact — mesh_protocol.hpp: the triangle-mesh queries of `impact query` (define_mesh,
// mesh_ray_cast, mesh_sphere_cast, mesh_shape_cast; docs/protocol.md "Triangle meshes").
#pragma once

#include "parse.hpp"

#include <impact/mesh.hpp>

#include <memory>
#include <string>

namespace impact::cli {

/// True when `query` names a mesh query.
bool is_mesh_query(const std::string& query);

/// Answers a mesh query whose common fields (id, query, precision) `f` has already read. Meshes
/// stored by `define_mesh` live for the rest of the process (one process per stream). Throws `Bad`.
void answer_mesh_query(const std::string& query, Fields& f, bool use_float, ojson& out);

/// The mesh of a world body at `path`: {"ref": NAME} of a mesh an earlier define_mesh stored (the
/// body keeps that mesh even if the name is redefined later), or inline arrays, built here.
/// Throws `Bad` naming the field.
std::shared_ptr<const TriangleMesh<double>> body_mesh_double(const json& j, const std::string& path);
/// The same, as the float twin of the mesh.
std::shared_ptr<const TriangleMesh<float>> body_mesh_float(const json& j, const std::string& path);

/// Reads {"vertices": [[x,y,z], ...], "triangles": [[i,j,k], ...]} at `path` into `m` (not built).
void parse_mesh_arrays(const json& j, const std::string& path, TriangleMesh<double>& m);

}  // namespace impact::cli
