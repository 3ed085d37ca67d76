// impact — the command-line tool: `impact query` (JSON Lines protocol) and `impact demo`.
#include "demo.hpp"
#include "protocol.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{
      "impact — continuous collision detection: distances, ray casts, linear shape casts and time of impact\n"
      "under rotation between convex shapes; ray, sphere and shape casts against triangle meshes; levels of\n"
      "rooms joined by portals, with carving.\n"
      "Shapes: point, sphere, box, capsule, cylinder, cone, segment, triangle, hull, minkowski.\n"
      "Precision: every query runs in double (default) or float.\n"
      "The query protocol, with an example of every query: docs/protocol.md."};
  app.require_subcommand(1);

  auto* query = app.add_subcommand(
      "query",
      "Answer JSON Lines queries: one JSON object per line on standard input, one answer per line on standard\n"
      "output, in order.\n"
      "Convex shapes: distance (closest points and normal); ray_cast; shape_cast (linear motion; method\n"
      "gjk_raycast | conservative_advancement | mpr, target_distance, tolerance); time_of_impact (motion with\n"
      "rotation; method extrusion_brent | conservative_advancement).\n"
      "Triangle meshes: define_mesh (arrays or an OBJ file), mesh_ray_cast, mesh_sphere_cast, mesh_spheres_cast,\n"
      "mesh_shape_cast. Levels: define_level, level_ray_cast, level_sphere_cast, carve.\n"
      "Every line may carry \"id\" (echoed) and \"precision\": \"double\" | \"float\". Bad lines answer\n"
      "{\"status\": \"invalid_input\", \"error\": \"<field path>: <what is wrong>\"} and the stream goes on.\n"
      "Limits (docs/limits.md): a line of at most 32 MiB (33554432 bytes); JSON nested at most 64 levels;\n"
      "minkowski shapes nested at most 16 levels; an \"obj\" path must name a regular OBJ file of at most\n"
      "32 MiB with at least one face; duplicate keys, integers written as 2.0 and numbers beyond a double's\n"
      "range are invalid_input.\n"
      "Example:\n"
      "  echo '{\"id\":1,\"query\":\"distance\",\"a\":{\"type\":\"sphere\",\"radius\":1},' \\\n"
      "       '\"b\":{\"type\":\"box\",\"half_extents\":[1,1,1]},\"pose_b\":{\"position\":[3,0,0]}}' | impact query\n"
      "Every query, its fields and answers: docs/protocol.md; frames and units: docs/conventions.md.");
  auto* demo = app.add_subcommand("demo", "Run the built-in scene (a shape of every type) and print results and timings.");
  impact::cli::DemoOptions demo_options;
  demo->add_option("--repetitions", demo_options.repetitions, "Queries per pair for the timing columns")
      ->check(CLI::PositiveNumber);

  CLI11_PARSE(app, argc, argv);
  if (*query) {
    std::ios::sync_with_stdio(false);
    return impact::cli::run_query_stream(std::cin, std::cout);
  }
  if (*demo) return impact::cli::run_demo(demo_options, std::cout);
  return 0;
}
