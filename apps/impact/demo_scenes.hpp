// impact — demo_scenes.hpp: the scenes `impact demo` runs after its GJK and linear-cast parts.
#pragma once

#include <iosfwd>

namespace impact::cli {

/// Time of impact under rotation: a spinning blade and a fast ball, and the paper's statistics.
void run_rotating_demo(int repetitions, std::ostream& out);

}  // namespace impact::cli
