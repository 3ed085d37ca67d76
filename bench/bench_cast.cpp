// impact benchmarks — bench_cast.cpp: ray_cast and shape_cast against Bullet's casters and FCL.
#include "bench_cast.hpp"

namespace impact_bench {

void setup_cast_benchmarks(std::ostream& /*info*/, bool /*checks*/) {}

}  // namespace impact_bench
