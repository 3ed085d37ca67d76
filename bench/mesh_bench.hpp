// impact benchmarks — mesh_bench.hpp: registers the triangle-mesh benchmarks (mesh_bench.cpp).
#pragma once

namespace impact_bench {

/// Registers mesh_ray_cast/, mesh_sphere_cast/, mesh_build/ and room_rebuild/ benchmarks. Their
/// scenes are built on first use, so a --benchmark_filter that excludes them costs nothing.
void register_mesh_benchmarks();

}  // namespace impact_bench
