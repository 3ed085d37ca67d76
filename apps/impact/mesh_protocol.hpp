// impact — mesh_protocol.hpp: the triangle-mesh queries of `impact query` (define_mesh,
// mesh_ray_cast, mesh_sphere_cast, mesh_shape_cast; ../shared/query-protocol.md "Triangle meshes").
#pragma once

#include "parse.hpp"

#include <string>

namespace impact::cli {

/// True when `query` names a mesh query.
bool is_mesh_query(const std::string& query);

/// Answers a mesh query whose common fields (id, query, precision) `f` has already read. Meshes
/// stored by `define_mesh` live for the rest of the process (one process per stream). Throws `Bad`.
void answer_mesh_query(const std::string& query, Fields& f, bool use_float, ojson& out);

}  // namespace impact::cli
