#pragma once
// impact — detail/advancement_bound.hpp: conservative advancement's bound, one for the linear
// shape cast (cast/conservative_advancement.hpp) and for motion with rotation
// (toi/rotating_advancement.hpp, and the extrusion test's advancement step in
// toi/direction_store.hpp).
//
// Along a unit direction s (A toward B) the separation of the two shapes changes at the rate
//   s·v_rel ± K(s),   K(s) = |s × ωA|·rA + |s × ωB|·rB
// (rA, rB: how far each core reaches from its origin, the centre of its turning). It therefore
// falls no faster than approach = K(s) − s·v_rel, and a separation `gap` above the target cannot
// reach it within gap / approach. Without rotation K = 0: the linear cast's rate −s·d, which is
// then exact (the separation is linear in t).
namespace impact::detail {

/// The fastest the separation along s can fall: K(s) − s·v_rel (length per unit time; ≤ 0: it
/// cannot fall, the advancement ends with a miss). `turning` is K(s), `along` is s·v_rel.
template <class S>
[[nodiscard]] inline S approach_speed(S turning, S along) {
  return turning - along;
}

/// How long a separation `gap` above the target is proven to last at that approach speed.
template <class S>
[[nodiscard]] inline S advance_time(S gap, S approach) {
  return gap / approach;
}

}  // namespace impact::detail
