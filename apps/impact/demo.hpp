// impact — demo.hpp: the built-in showcase scene of `impact demo`.
#pragma once

#include <iosfwd>

namespace impact::cli {

/// Options of `impact demo`.
struct DemoOptions {
  int repetitions = 20000;  ///< Queries per pair for the timing column.
};

/// Runs the demo scene and prints what it computed and how fast. Returns the exit status.
int run_demo(const DemoOptions& options, std::ostream& out);

/// The room-and-portal level scene (demo_level.cpp): spheres thrown through rooms, a wall carved,
/// only its rooms rebuilt, the spheres thrown again through the hole; with the rebuild times.
void run_level_demo(std::ostream& out);

}  // namespace impact::cli
