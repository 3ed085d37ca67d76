// impact — mesh_protocol.hpp: the triangle-mesh queries of `impact query` (define_mesh,
// mesh_ray_cast, mesh_sphere_cast, mesh_shape_cast; docs/protocol.md "Triangle meshes").
#pragma once

#include "parse.hpp"

#include <impact/mesh.hpp>

#include <string>

namespace impact::cli {

/// True when `query` names a mesh query.
bool is_mesh_query(const std::string& query);

/// Answers a mesh query whose common fields (id, query, precision) `f` has already read. Meshes
/// stored by `define_mesh` live for the rest of the process (one process per stream). Throws `Bad`.
void answer_mesh_query(const std::string& query, Fields& f, bool use_float, ojson& out);

/// Reads {"vertices": [[x,y,z], ...], "triangles": [[i,j,k], ...]} at `path` into `m` (not built).
void parse_mesh_arrays(const json& j, const std::string& path, TriangleMesh<double>& m);

}  // namespace impact::cli
