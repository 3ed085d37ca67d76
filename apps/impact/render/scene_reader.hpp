// impact — render/scene_reader.hpp: the JSON scene format of `impact render` (docs/render.md).
// Shapes, poses and motions are the query protocol's own (read by the same parser), and an object
// may be a whole protocol line ({"query": ...}, or a world's bodies and motions), so a query that
// answered something surprising can be pasted into a scene and looked at.
#pragma once

#include "../parse.hpp"
#include "scene.hpp"

#include <string>

namespace impact::render {

/// Reads a scene. Throws `cli::Bad` whose message starts with the offending field's path
/// ("objects.3.shape.radius: ..."). `base_dir` resolves relative OBJ paths.
Scene read_scene(const cli::json& j, const std::string& base_dir);

/// Reads a scene file (at most 32 MiB of JSON; the protocol's line limits apply). Returns "" and
/// fills `scene`, or the error ("scene.json: objects.3.shape.radius: ...").
std::string read_scene_file(const std::string& path, Scene& scene);

}  // namespace impact::render
