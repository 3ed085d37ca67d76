// impact — detail/cylinder_cast.hpp: the linear cast of two cylinders by Newton's method on the
// support function of their configuration space obstacle, certified by a point of the obstacle.
//
// The cast is the ray t·d from the origin against C = A − B(0) grown by R (the cores' radii plus
// the target distance). For every direction n with n·d < 0, the plane n·y = h_C(n) bounds C, and
// the ray cannot reach C before λ(n) = h_C(n)/(n·d): every n gives a proven lower bound of the
// time of impact, and the time of impact is the largest of them. With n = e + U·w (e = −d/|d|, U
// an orthonormal basis of d's normal plane) the problem is to minimise F(w) = h_C(e + U·w), a
// convex function of two variables: its gradient is Uᵀ·s_C(n) (the support point) and its Hessian
// Uᵀ·H·U, with H = Σ ρ/|P·n|·t·tᵀ over the two cylinders (t the rim's tangent at the support
// point, P the projection off the axis) plus R·(I − n̂n̂ᵀ)/|n|. Both are closed forms.
//
// F has creases where a cylinder's support jumps from one rim to the other (n ⊥ axis: a side in
// contact) and cone points where n lies along an axis (a cap in contact). So:
//   - the cap normals (±axis of A or B) and the side–side normal (A's axis × B's axis) are tried
//     first, each checked by its flat face (a disc, or a parallelogram of two side segments);
//   - Newton's method runs from n = e, damped by halving, and stops at a crease it would cross:
//     there it goes on along the crease (one variable) until the side's multiplier t (the height
//     on the side that puts the support point on the ray) is known; inside [−η, η] that is the
//     answer, outside the crease is released toward the side t points to.
// An answer is kept only with a certificate: a point y of C ⊕ ball(R) (points of the two
// cylinders) within `tol` of the ray point x = λ·d, so the shapes are within target + tol at λ,
// while λ is a lower bound: never late. A lower bound past max_lambda proves a miss. Anything
// else (a cone point approached by Newton, both creases at once away from the side–side normal,
// no certificate within the step cap, λ ≤ 0) answers `unknown` and the caller runs the GJK ray
// cast. Computed in double for both precisions.
//
// Layout: the parts of C, their support function and faces in detail/cylinder_cast/parts.hpp;
// the cast's state and its phases before Newton (frame, flat contacts' bounds, the start, the
// jump off a cone point) in detail/cylinder_cast/caster.hpp; the Newton iteration in
// detail/cylinder_cast/newton.hpp.
#pragma once

#include "detail/cylinder_cast/caster.hpp"
#include "detail/cylinder_cast/newton.hpp"
#include "detail/cylinder_cast/parts.hpp"

#include <impact/math.hpp>

#include <cmath>

namespace impact::detail {

/// The cast of the ray t·d, 0 ≤ t ≤ max_lambda, against parts[0] ⊕ parts[1] ⊕ ball(radius)
/// (see the file comment). `tol`: the certificate's bound on the distance to C ⊕ ball(R) at the
/// answer (length).
inline CylinderCastAnswer cylinder_cast(const CastCylinder (&world)[2], double radius, const Vec3<double>& d,
                                        double max_lambda, double tol, int max_steps = kCylinderCastMaxSteps) {
  const double dn = d.norm();
  if (!(dn > 0) || !std::isfinite(dn)) return CylinderCastAnswer{};
  for (const auto& c : world)
    if (!(c.radius > 0) || !(c.half_height > 0)) return CylinderCastAnswer{};
  return cylinder_cast_detail::CylinderCaster(world, radius, d, dn, max_lambda, tol, max_steps).run();
}

}  // namespace impact::detail
