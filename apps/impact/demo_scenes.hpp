// impact — demo_scenes.hpp: the scenes `impact demo` runs after its GJK and linear-cast parts.
#pragma once

#include <impact/level.hpp>
#include <impact/toi.hpp>
#include <impact/world.hpp>

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace impact::cli {

/// Time of impact under rotation: a spinning blade and a fast ball, and the paper's statistics.
void run_rotating_demo(int repetitions, std::ostream& out);

/// A shape of the demo's ring (demo.cpp): one of every type, at varied poses.
struct DemoShape {
  std::string name;
  Shape<double> shape;
  Pose<double> pose;
};
std::vector<DemoShape> demo_shapes();

/// The bullet and the thin wall (demo.cpp): the bullet moves by `velocity` over the step from
/// `start`; the wall stays.
struct DemoBullet {
  Shape<double> bullet, wall;
  Pose<double> start, wall_pose;
  Vec3<double> velocity = Vec3<double>::Zero();
};
DemoBullet demo_bullet();

/// The spinning blade and the ball (demo_rotating.cpp).
struct DemoBlade {
  Shape<double> blade, ball;
  Motion<double> blade_motion, ball_motion;
};
DemoBlade demo_blade();

/// The level of the level demo: `rooms` rooms of 8 × 8 × 4 in a row along x, a doorway and a
/// portal in every shared wall (demo_level.cpp).
Level<double> make_demo_level(int rooms);

/// A sphere thrown through the demo level: its start and what it is aimed at.
struct DemoThrow {
  Vec3<double> from;
  const char* aim;
};
/// The spheres the level demo throws, each along kDemoThrowPath with radius kDemoThrowRadius.
std::vector<DemoThrow> demo_level_throws();
inline const Vec3<double> kDemoThrowPath{22.0, 0.0, -0.2};
inline constexpr double kDemoThrowRadius = 0.3;
/// The blast that carves the wall between rooms 1 and 2.
inline const Vec3<double> kDemoBlastCenter{16.0, 1.5, 2.0};
inline constexpr double kDemoBlastRadius = 1.0;

/// Tumbling pieces over a bumpy ground (demo_world.cpp): the ground mesh (quads × quads squares
/// over [−half_size, half_size]², two triangles each) as body "ground", then `pieces` bodies
/// (boxes, cylinders, hulls; every fourth a compound of 2–4) on a lattice above it, each with its
/// motion for one step (falling, drifting, turning up to 6 rad).
struct DemoWorld {
  std::shared_ptr<TriangleMesh<double>> ground;
  std::vector<WorldBody<double>> bodies;      ///< The ground first, then the pieces.
  std::vector<BodyMotion<double>> motions;    ///< One per piece, in the pieces' order.
};
DemoWorld make_falling_pieces(int pieces, int quads, double half_size, std::uint64_t seed);

/// The world scene: a step of 1,000 falling pieces, its statistics on one and two threads, and
/// what a translation-only sweep of the same pieces misses.
void run_world_demo(std::ostream& out);

/// Pictures of the demo's scenes (demo_pictures.cpp), written as PNG files into `dir` (created
/// when missing) at width × height; prints each path and its render time. Returns false when a
/// picture could not be written.
bool write_demo_pictures(const std::string& dir, int width, int height, std::ostream& out);

}  // namespace impact::cli
