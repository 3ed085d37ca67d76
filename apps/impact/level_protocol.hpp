// impact — level_protocol.hpp: the room-and-portal level queries of `impact query`
// (define_level, level_ray_cast, level_sphere_cast, carve; docs/mesh.md).
#pragma once

#include "parse.hpp"

#include <impact/level.hpp>

#include <string>

namespace impact::cli {

/// True when `query` names a level query.
bool is_level_query(const std::string& query);

/// Answers a level query whose common fields `f` has already read. Levels live for the rest of
/// the process, like meshes. Throws `Bad`.
void answer_level_query(const std::string& query, Fields& f, bool use_float, ojson& out);

/// Reads a level's fields (rooms, portals, leaf_size, max_depth: define_level's, without its name)
/// from `f` into `level` and builds it. Throws `Bad` naming the field (paths relative to `f`).
void read_level(Fields& f, Level<double>& level);

}  // namespace impact::cli
