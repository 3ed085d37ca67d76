// impact — the command-line tool: `impact query` (JSON Lines protocol), `impact render` (pictures
// of scenes, docs/render.md) and `impact demo`.
#include "demo.hpp"
#include "demo_scenes.hpp"
#include "protocol.hpp"
#include "render/ray_tracer.hpp"
#include "render/scene_reader.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
  CLI::App app{
      "impact — continuous collision detection: distances, ray casts, linear shape casts and time of impact\n"
      "under rotation between convex shapes; ray, sphere and shape casts against triangle meshes; levels of\n"
      "rooms joined by portals, with carving; worlds of many moving bodies stepped in one pass; pictures.\n"
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
      "Worlds (convex, compound and mesh bodies; every first contact of a step, in order): define_world,\n"
      "world_edit (add and remove bodies), world_step (motions over the step; events by pair or body).\n"
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
  auto* demo = app.add_subcommand("demo", "Run the built-in scenes (a shape of every type, the bullet and the thin wall, the\n"
                                          "spinning blade, the level and its carve) and print results and timings; with\n"
                                          "--pictures, draw them too, and a world's falling pieces.");
  impact::cli::DemoOptions demo_options;
  demo->add_option("--repetitions", demo_options.repetitions, "Queries per pair for the timing columns")
      ->check(CLI::PositiveNumber);
  std::string pictures;
  demo->add_option("--pictures", pictures, "Also draw the demo's scenes as PNG pictures into this folder (created)");
  int picture_width = 1280;
  demo->add_option("--picture-size", picture_width, "Width of the pictures in pixels (height: 9/16 of it)")
      ->check(CLI::Range(16, 8192));

  auto* render_cmd = app.add_subcommand(
      "render",
      "Ray-trace a scene to a PNG: convex shapes drawn exactly through their support mappings (the GJK ray cast and\n"
      "the closed forms), meshes and levels through their trees, shadows, anti-aliased edges, every core.\n"
      "The scene is JSON (docs/render.md): camera, lights, and objects that are shapes at poses or along motions,\n"
      "meshes, levels (with carves), markers, pasted protocol queries, and world steps.");
  std::string scene_path, output_path;
  int threads = 0, width = 0, height = 0, samples = 0;
  bool quiet = false;
  render_cmd->add_option("scene", scene_path, "Scene file (JSON)")->required();
  render_cmd->add_option("-o,--output", output_path, "PNG file to write")->required();
  render_cmd->add_option("--width", width, "Override the scene's width in pixels")->check(CLI::Range(1, 16384));
  render_cmd->add_option("--height", height, "Override the scene's height in pixels")->check(CLI::Range(1, 16384));
  render_cmd->add_option("--samples", samples, "Override the anti-aliasing samples per axis on edges")->check(CLI::Range(1, 8));
  render_cmd->add_option("--threads", threads, "Worker threads (default: every core; the picture does not depend on it)")
      ->check(CLI::Range(1, 1024));
  render_cmd->add_flag("-q,--quiet", quiet, "No progress bar or summary");

  CLI11_PARSE(app, argc, argv);
  if (*query) {
    std::ios::sync_with_stdio(false);
    return impact::cli::run_query_stream(std::cin, std::cout);
  }
  if (*demo) {
    const int status = impact::cli::run_demo(demo_options, std::cout);
    if (status != 0 || pictures.empty()) return status;
    return impact::cli::write_demo_pictures(pictures, picture_width, picture_width * 9 / 16, std::cout) ? 0 : 1;
  }
  if (*render_cmd) {
    impact::render::Scene scene;
    if (auto e = impact::render::read_scene_file(scene_path, scene); !e.empty()) {
      std::cerr << "impact render: " << e << "\n";
      return 2;
    }
    if (width) scene.width = width;
    if (height) scene.height = height;
    if (samples) scene.samples = samples;
    impact::render::RenderStats stats;
    const impact::render::Image image = impact::render::render(scene, {.threads = threads, .progress = !quiet}, &stats);
    if (auto e = impact::render::write_png(image, output_path); !e.empty()) {
      std::cerr << "impact render: " << e << "\n";
      return 1;
    }
    if (!quiet)
      std::cout << output_path << ": " << image.width << " x " << image.height << ", " << scene.items.size() << " items, "
                << stats.primary_rays << " primary and " << stats.shadow_rays << " shadow rays, " << stats.seconds << " s\n";
    return 0;
  }
  return 0;
}
