// impact benchmarks — bench_cast.hpp: the ray_cast and shape_cast benchmarks (bench_cast.cpp).
#pragma once

#include <ostream>

namespace impact_bench {

/// Builds the linear-cast sessions and the peers' copies, registers ray_cast/SHAPE/LIBRARY[/VARIANT]
/// and shape_cast/PAIR/LIBRARY[/METHOD] and, when `checks`, prints the agreement report and the
/// seed note's session table (min/avg/max over sessions).
void setup_cast_benchmarks(std::ostream& info, bool checks);

}  // namespace impact_bench
