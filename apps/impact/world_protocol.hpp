// impact — world_protocol.hpp: the world queries of `impact query` (define_world, world_edit,
// world_step; docs/protocol.md "Worlds").
#pragma once

#include "parse.hpp"

#include <impact/world.hpp>

#include <string>
#include <vector>

namespace impact::cli {

/// True when `query` names a world query.
bool is_world_query(const std::string& query);

/// Answers a world query whose common fields (id, query, precision) `f` has already read;
/// `precision_given` says whether the line named its precision (a world's lines must match the
/// world's). Worlds stored by `define_world` live for the rest of the process (one process per
/// stream). A line that throws `Bad` has changed nothing.
void answer_world_query(const std::string& query, Fields& f, bool use_float, bool precision_given, ojson& out);

/// The bodies of a define_world line (an array at `path`), in double. Throws `Bad`.
std::vector<WorldBody<double>> parse_world_bodies(const json& j, const std::string& path);
/// The motions of a world_step line (an object of body ID to motion at `path`). Throws `Bad`.
std::vector<BodyMotion<double>> parse_world_motions(const json& j, const std::string& path);
/// A world_step line's `report` at `path`: "pairs" or "bodies". Throws `Bad`.
WorldReport parse_world_report(const json& v, const std::string& path);

}  // namespace impact::cli
