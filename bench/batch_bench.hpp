// impact benchmarks — batch_bench.hpp: registers the convex batch benchmarks (batch_bench.cpp).
#pragma once

namespace impact_bench {

/// Registers distance_batch/, ray_cast_batch/, shape_cast_batch/ and time_of_impact_batch/ on 1
/// and 2 threads, and each query's single calls in a loop (impact/loop). The scene is built on
/// first use.
void register_batch_benchmarks();

}  // namespace impact_bench
