#pragma once
// impact — toi/toi_entry.hpp: time_of_impact's entries for callers inside the library (World): with
// hints, and one part against many triangles of a mesh with the part's side set up once.
// Defined in toi_impl.hpp and instantiated with time_of_impact in toi_float.cpp/toi_double.cpp, so
// that a caller compiles none of the solver.
#include <impact/toi.hpp>

#include "detail/dispatch.hpp"
#include "toi/kinematics.hpp"

#include <span>
#include <string>
#include <type_traits>

namespace impact::toi {

/// A direction worth trying before GJK: unit (world, at t = 0), from A toward B.
template <class S>
struct ToiHint {
  Vec3<S> direction;
  bool face_of_b = false;  ///< normal to a face of B (turns with B: the bound's tighter frame)
};

/// Hints made only when those before them have failed: make(context, out) writes up to kMaxHints
/// (toi_solver.hpp) to `out` and returns how many. One call at most per query, none when an
/// earlier hint settles it (the world's second hint, from the triangle's closest point, costs
/// more than the normal that usually settles the call first).
template <class S>
struct LaterHints {
  int (*make)(const void* context, ToiHint<S>* out) = nullptr;
  const void* context = nullptr;
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

/// The scalar the solver computes in: double, for float shapes too (toi_impl.hpp says why).
template <class S>
using ToiCompute = std::conditional_t<(sizeof(S) < sizeof(double)), double, S>;

/// A part (A) against many triangles of one mesh (B): A's validation, its core and its motion, and
/// the mesh's motion, set up once; each triangle then costs the solver's run and little more. Its
/// answers are time_of_impact_hinted(a, ma, triangle, mb, opt, hints)'s, bit for bit (the world
/// test compares them with the pair queries).
template <class S>
class PartSweep {
 public:
  /// Sets up A and the two motions: the error time_of_impact would give for them (A's shape,
  /// either pose or velocity), empty when they are valid. `a` must outlive the sweep.
  std::string prepare(const Shape<S>& a, const Motion<S>& ma, const Motion<S>& mb);
  /// The first contact of A with `triangle` (of the mesh, in the mesh's frame), as
  /// time_of_impact_hinted with `hints` followed by those `later` makes; invalid_input names the
  /// triangle ("b") or an option.
  /// Not const: each call sets the triangle's radius in the mesh's motion and the sizes of the
  /// relative motion (a sweep serves one thread).
  [[nodiscard]] ToiHit<S> against(const Triangle<S>& triangle, const ToiOptions<S>& opt,
                                  std::span<const ToiHint<S>> hints, LaterHints<S> later = {});

 private:
  using C = ToiCompute<S>;
  detail::Core<S> core_a_;
  Vec3<C> origin_ = Vec3<C>::Zero();
  Kinematics<C> ka_, kb_;  ///< kb_'s radius is the triangle's, set per call; both keep t = 1
  RelativeMotion<C> rel_{ka_, kb_, C(0), C(0), C(0)};  ///< the motions' part computed once (prepare)
};

}  // namespace impact::toi
