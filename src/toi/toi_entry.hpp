#pragma once
// impact — toi/toi_entry.hpp: time_of_impact with a hint, for callers inside the library (World).
// Defined in toi_impl.hpp and instantiated with time_of_impact in toi_float.cpp/toi_double.cpp, so
// that a caller compiles none of the solver.
#include <impact/toi.hpp>

#include <span>

namespace impact::toi {

/// A direction worth trying before GJK: unit (world, at t = 0), from A toward B.
template <class S>
struct ToiHint {
  Vec3<S> direction;
  bool face_of_b = false;  ///< normal to a face of B (turns with B: the bound's tighter frame)
};

/// time_of_impact(a, ma, b, mb, opt), trying first each of `hints` (a mesh triangle's normal
/// turned toward A, the direction from the triangle to A's centre): when one's separation and the
/// rotation bound prove the shapes farther apart than target + tolerance over [0, opt.max_toi],
/// the answer is a miss found without GJK. Otherwise the answer is time_of_impact's (with the same
/// options), bit for bit.
/// (No run of time_of_impact could report a contact there: its hits are within the tolerance of
/// the target.)
template <class S>
[[nodiscard]] ToiHit<S> time_of_impact_hinted(const Shape<S>& a, const Motion<S>& ma, const Shape<S>& b,
                                              const Motion<S>& mb, const ToiOptions<S>& opt,
                                              std::span<const ToiHint<S>> hints);

}  // namespace impact::toi
