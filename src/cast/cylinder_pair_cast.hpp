#pragma once
// impact — cast/cylinder_pair_cast.hpp: two cylinders cast by Newton's method on the CSO's support function
// (detail/cylinder_cast.hpp), taken when it proves its answer.
#include <impact/cast.hpp>

#include "cast/contact_refinement.hpp"
#include "detail/cylinder_cast.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>

namespace impact::cast_detail {

/// Two cylinders by Newton's method on the CSO's support function (detail/cylinder_cast.hpp),
/// in double whatever S, in the world's axes about A's centre (no transforms: only the axes,
/// z columns of the rotations). False (the GJK ray cast decides): no certificate, λ ≤ 0, or a
/// hit within the tolerance of t = 0, whose initially_overlapping test is the GJK path's.
template <class S>
bool cylinder_pair_cast(const Cylinder<S>& ca, const Pose<S>& pose_a, const Vec3<S>& velocity_a,
                        const Cylinder<S>& cb, const Pose<S>& pose_b, const Vec3<S>& velocity_b,
                        const ShapeCastOptions<S>& opt, CastHit<S>& out) {
  auto axis = [](const Quat<S>& q) {  // rotation · (0, 0, 1), as Eigen's rotation matrix forms it
    const double w = q.w(), x = q.x(), y = q.y(), z = q.z();
    return Vec3<double>(2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y));
  };
  const Vec3<double> origin = pose_a.position.template cast<double>();
  const detail::CastCylinder parts[2] = {
      {Vec3<double>::Zero(), axis(pose_a.rotation), double(ca.radius), double(ca.half_height)},
      {origin - pose_b.position.template cast<double>(), axis(pose_b.rotation), double(cb.radius),
       double(cb.half_height)}};
  const Vec3<double> d = velocity_b.template cast<double>() - velocity_a.template cast<double>();
  const auto r = detail::cylinder_cast(parts, double(opt.target_distance), d, 1.0, double(opt.tolerance),
                                       std::min(opt.max_iterations, detail::kCylinderCastMaxSteps));
  if (r.kind == detail::CylinderCastAnswer::Kind::miss) {
    out.status = Status::miss;
    out.iterations = r.iterations;
    return true;
  }
  if (r.kind != detail::CylinderCastAnswer::Kind::hit || r.lambda * d.norm() <= double(opt.tolerance)) return false;
  const Vec3<double> moved = origin + r.lambda * velocity_a.template cast<double>();
  out.status = Status::hit;
  out.toi = detail::time_below<S>(r.lambda);
  out.iterations = r.iterations;
  out.point_a = (moved + r.point_a).template cast<S>();
  out.point_b = (moved + r.point_b + r.lambda * d).template cast<S>();
  out.normal = r.normal.template cast<S>();
  return true;
}

}  // namespace impact::cast_detail
