// impact benchmarks — world_scenes.hpp: the seeded scenes of the world-step benchmark (issue 18,
// item 6), built once for impact (World<double> bodies and per-step motions) and as plain numbers
// for Bullet (world_peers.hpp). Every scene is deterministic in its name.
//
// Motions are prescribed (no dynamics): over each step every moving body has a constant linear
// and angular velocity (impact::Motion over t ∈ [0, 1]), and the next step starts where the
// scene's own rule puts it. Each step's motion carries its pose at t = 0, so any step can be run
// on its own, in any order.
//
// - falling_pieces_N (N = 1,000 or 10,000): tumbling pieces — boxes, hulls (12–32 points on an
//   ellipsoid), cylinders and compounds of 2–4 such parts, bounding radii up to about 0.8 —
//   dropped from 0.5–8 m above a bumpy height field (impact_scenes::terrain, heights ±1.95):
//   224×224 quads over [−20, 20]² (100,352 triangles) for 1,000 pieces, 708×708 over
//   [−63.2, 63.2]² (1,002,528 triangles, the same density of pieces per area) for 10,000. Frames
//   of 1/24 s, gravity 9.81 m/s²; initial velocity (±1, ±1, −2..0) m/s, spin 0–10 rad/s about a
//   random axis. The motions come from a simple simulation whose collision answers are impact's
//   own World::step events (as impact_toi_stats does for pairs): each piece stops at 0.9 of its
//   earliest contact of the frame and every contact exchanges an impulse along its normal
//   (restitution 0.5, equal masses, the ground immovable; tangential velocity and spin × 0.8);
//   pieces found overlapping at a frame's start are pushed apart at 0.5 m/s. The benchmark steps
//   are frames 24–47 (1–2 s): pieces landing, bouncing, hopping on the ground and still falling.
// - high_speed_5000: 5,000 pieces (as above) in a closed box [−20, 20]³ (its inside faces, 16×16
//   quads a face, 3,072 triangles, one static mesh), at 50–300 m/s in frames of 1/60 s
//   (0.8–5 m a step), spin 0–20 rad/s. A piece whose step ends outside the box passes through
//   the wall during the step; the next step starts from its mirror image inside, its velocity
//   reflected. 24 steps.
// - blender_1000: a bar 20 × 0.5 × 2 (a box) at the origin turning 3 times a step about z, among
//   1,000 small pieces (bounding radii up to about 0.45) in the cylinder r ≤ 10.5, |z| ≤ 1.5,
//   drifting at up to 0.05 a step and turning up to 0.3 rad a step. 24 steps.
#pragma once

#include "world_peers.hpp"

#include <impact/world.hpp>

#include <memory>
#include <string>
#include <vector>

namespace impact_bench {

struct WorldScene {
  WorldSceneDesc desc;                                       ///< The plain copy for Bullet.
  std::vector<impact::WorldBody<double>> bodies;             ///< impact's bodies (IDs "b00000"..., the mesh "mesh").
  std::vector<std::vector<impact::BodyMotion<double>>> motions;  ///< Per step: the moving bodies' motions.
  std::shared_ptr<const impact::TriangleMesh<double>> mesh;  ///< The static mesh (or null).
  double mesh_cell = 0;     ///< Height fields: the side of a quad; 0 for other meshes.
  double mesh_origin = 0;   ///< Height fields: the lower corner's coordinate (x and y).
  int mesh_n = 0;           ///< Height fields: quads a side.
};

/// The scene names: falling_pieces_1000, falling_pieces_10000, high_speed_5000, blender_1000.
std::vector<std::string> world_scene_names();

/// Builds a scene (seconds for the large ones: hulls, the mesh's tree).
std::unique_ptr<WorldScene> make_world_scene(const std::string& name);

/// The body index of an impact body ID.
int world_body_index(const WorldScene& scene, const std::string& id);

}  // namespace impact_bench
