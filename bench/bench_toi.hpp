// impact benchmarks — bench_toi.hpp: the time_of_impact benchmarks (bench_toi.cpp).
#pragma once

#include <ostream>

namespace impact_bench {

/// Builds the rotating cases and the peers' copies, registers time_of_impact/PAIR/LIBRARY[/METHOD]
/// and, when `checks`, prints the agreement report and the per-case timing (median over cases).
void setup_toi_benchmarks(std::ostream& info, bool checks);

}  // namespace impact_bench
