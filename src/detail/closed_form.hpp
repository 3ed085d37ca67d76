// impact — detail/closed_form.hpp: exact closest points for the core pairs that have a short
// closed form (point–point, point–box, point–segment, segment–segment), used instead of GJK:
// sphere–sphere, sphere–box, sphere–capsule and capsule–capsule run these on their cores.
// (parry and FCL specialise the same pairs.) Everything is in A's frame; B's core is placed by
// `b_in_a`.
#pragma once

#include <impact/math.hpp>
#include <impact/query.hpp>
#include <impact/shapes.hpp>

#include "detail/unit_direction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace impact::detail {

template <class A, class B, class S>
inline constexpr bool kClosedForm =
    (std::is_same_v<A, Point<S>> && (std::is_same_v<B, Point<S>> || std::is_same_v<B, Box<S>> ||
                                     std::is_same_v<B, Segment<S>>)) ||
    (std::is_same_v<B, Point<S>> && (std::is_same_v<A, Box<S>> || std::is_same_v<A, Segment<S>>)) ||
    (std::is_same_v<A, Segment<S>> && std::is_same_v<B, Segment<S>>);

/// Closest point of segment [p, q] to x.
template <class S>
Vec3<S> closest_on_segment(const Vec3<S>& p, const Vec3<S>& q, const Vec3<S>& x) {
  const Vec3<S> e = q - p;
  const S ee = e.squaredNorm();
  if (!(ee > S(0))) return p;
  const S t = std::clamp((x - p).dot(e) / ee, S(0), S(1));
  return p + t * e;
}

/// Closest points of segments [p1, q1] and [p2, q2] (Ericson, Real-Time Collision Detection,
/// §5.1.9), with degenerate (zero-length) segments handled.
template <class S>
void closest_segments(const Vec3<S>& p1, const Vec3<S>& q1, const Vec3<S>& p2, const Vec3<S>& q2, Vec3<S>& c1,
                      Vec3<S>& c2) {
  const Vec3<S> d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  const S a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  S s = 0, t = 0;
  if (!(a > S(0)) && !(e > S(0))) {
    c1 = p1;
    c2 = p2;
    return;
  }
  if (!(a > S(0))) {
    t = std::clamp(f / e, S(0), S(1));
  } else {
    const S c = d1.dot(r);
    if (!(e > S(0))) {
      s = std::clamp(-c / a, S(0), S(1));
    } else {
      const S b = d1.dot(d2);
      const S denom = a * e - b * b;  // ≥ 0; 0 for parallel segments
      s = denom > S(0) ? std::clamp((b * f - c * e) / denom, S(0), S(1)) : S(0);
      t = (b * s + f) / e;
      if (t < S(0)) {
        t = 0;
        s = std::clamp(-c / a, S(0), S(1));
      } else if (t > S(1)) {
        t = 1;
        s = std::clamp((b - c) / a, S(0), S(1));
      }
    }
  }
  c1 = p1 + s * d1;
  c2 = p2 + t * d2;
}

/// Closest points pa (on A) and pb (on B), both in A's frame, of a closed-form core pair.
template <class S, class A, class B>
void closed_form_closest(const A& a, const B& b, const Transform<S>& b_in_a, Vec3<S>& pa, Vec3<S>& pb) {
  if constexpr (std::is_same_v<A, Point<S>> && std::is_same_v<B, Point<S>>) {
    pa.setZero();
    pb = b_in_a.translation;
  } else if constexpr (std::is_same_v<A, Point<S>> && std::is_same_v<B, Box<S>>) {
    pa.setZero();
    const Vec3<S> local = b_in_a.apply_inverse(Vec3<S>::Zero());
    const Vec3<S> clamped = local.cwiseMax(-b.half_extents).cwiseMin(b.half_extents);
    pb = clamped == local ? pa : b_in_a.apply(clamped);  // inside: exactly coincident
  } else if constexpr (std::is_same_v<A, Box<S>> && std::is_same_v<B, Point<S>>) {
    pb = b_in_a.translation;
    pa = pb.cwiseMax(-a.half_extents).cwiseMin(a.half_extents);
  } else if constexpr (std::is_same_v<A, Point<S>> && std::is_same_v<B, Segment<S>>) {
    pa.setZero();
    pb = closest_on_segment<S>(b_in_a.apply(b.a), b_in_a.apply(b.b), Vec3<S>::Zero());
  } else if constexpr (std::is_same_v<A, Segment<S>> && std::is_same_v<B, Point<S>>) {
    pb = b_in_a.translation;
    pa = closest_on_segment<S>(a.a, a.b, pb);
  } else {
    static_assert(std::is_same_v<A, Segment<S>> && std::is_same_v<B, Segment<S>>);
    closest_segments<S>(a.a, a.b, b_in_a.apply(b.a), b_in_a.apply(b.b), pa, pb);
  }
}

/// The end of every distance query: from the cores' closest points pa, pb (v = pa − pb) and the
/// status, the normal from A toward B (zero if undefined), the distance, and the witnesses with
/// the radii peeled off (separated) or one common point dividing the cores' witnesses in the
/// ratio ra : rb (intersecting: within ra of A's core and rb of B's). Returns the normal.
template <class S, class C>
Vec3<C> finish_distance(const Vec3<C>& v, C ra, C rb, Vec3<C>& pa, Vec3<C>& pb, DistanceResult<S>& r) {
  const C len = v.norm();
  // An intersecting pair's v can be tiny (float, shapes of size 3e-6): unit_direction keeps the
  // normal unit length there.
  const Vec3<C> n = -unit_direction(v);
  if (r.status == Status::intersecting) {
    // One common point: it divides the cores' witnesses in the ratio ra : rb, or halves them
    // (cores touching to rounding: a needle 1e12 long against a hull, its witnesses 8.5e-5 apart
    // at a distance of 0).
    r.distance = S(0);
    const C radii = ra + rb;
    pa = pb = pa + (radii > C(0) ? ra / radii : C(0.5)) * (pb - pa);
  } else {
    r.distance = S(std::max(C(0), len - ra - rb));
    pa += ra * n;
    pb -= rb * n;
  }
  return n;
}

/// Pairs whose distance is answered in world coordinates straight from the poses, before any
/// transform is built: a ball (a point core) against a ball or a box. A ball's rotation never
/// matters, and a box needs only its quaternion (two cross products per vector), not the 3×3
/// matrices, the relative transform and the witnesses' way back to the world that the general
/// path pays for; measured, those were most of a sphere–box query (perf, 2026-11-25).
template <class A, class B, class S>
inline constexpr bool kWorldClosedForm =
    (std::is_same_v<A, Point<S>> && (std::is_same_v<B, Point<S>> || std::is_same_v<B, Box<S>>)) ||
    (std::is_same_v<A, Box<S>> && std::is_same_v<B, Point<S>>);

/// Distance of a kWorldClosedForm pair, the same answer as GJK's path (gjk_distance): computed in
/// GjkCompute<S> (double for float shapes), relative to one body's position, the status and
/// witnesses by the same rules (intersecting when the cores coincide or are within the radii; the
/// common point divides the cores' witnesses in the ratio ra : rb).
template <class S, class A, class B>
DistanceResult<S> world_closed_form_distance(const A& a, S ra, const Pose<S>& pose_a, const B& b, S rb,
                                             const Pose<S>& pose_b) {
  using C = std::conditional_t<(sizeof(S) < sizeof(double)), double, S>;
  const Vec3<C> ca = pose_a.position.template cast<C>(), cb = pose_b.position.template cast<C>();
  // The cores' witnesses relative to the box's (or A's) position, and the squared length scale
  // of the local points below which a gap is rounding (GJK's test, gjk_tiny_squared).
  Vec3<C> pa, pb, v;
  C scale2 = 0;
  Vec3<C> origin = ca;
  if constexpr (std::is_same_v<A, Point<S>> && std::is_same_v<B, Point<S>>) {
    pa.setZero();
    pb = cb - ca;
    scale2 = pb.squaredNorm();
    v = pa - pb;
  } else {
    const bool a_is_box = std::is_same_v<A, Box<S>>;
    const Pose<S>& box_pose = a_is_box ? pose_a : pose_b;
    const Vec3<C> half = [&] {
      if constexpr (std::is_same_v<A, Box<S>>) return a.half_extents.template cast<C>().eval();
      else return b.half_extents.template cast<C>().eval();
    }();
    const Quat<C> q = Transform<S>::unit(box_pose.rotation).template cast<C>();
    // Rotation of x by the unit quaternion (w, u): x + w·t + u × t with t = 2 u × x (the inverse
    // rotation negates u). Written out: Eigen's out-of-line _transformVector was measured at a
    // third of the query.
    const Vec3<C> u = q.vec();
    const C w = q.w();
    auto rotate = [&](const Vec3<C>& x, C sign) -> Vec3<C> {
      const Vec3<C> su = sign * u;
      const Vec3<C> t = C(2) * su.cross(x);
      return x + w * t + su.cross(t);
    };
    origin = a_is_box ? ca : cb;
    const Vec3<C> ball = (a_is_box ? cb : ca) - origin;
    const Vec3<C> local = rotate(ball, C(-1));
    const Vec3<C> clamped = local.cwiseMax(-half).cwiseMin(half);
    const Vec3<C> on_box = clamped == local ? ball : rotate(clamped, C(1));  // inside: exactly coincident
    scale2 = std::max(local.squaredNorm(), clamped.squaredNorm());
    pa = a_is_box ? on_box : ball;
    pb = a_is_box ? ball : on_box;
    // v = pa − pb from the box's own axes: over a face it has one non-zero component there, so
    // the normal is the face's axis to rounding. From the two world points it was their
    // difference, whose direction near contact is only good to eps·(coordinates) / distance: a
    // ball 1e-6 from a box at 150 got a normal 3e-8 off, and the separation along it fell short
    // of the distance by 1e-6 (time_of_impact stalled there, battery #75623).
    const Vec3<C> gap = a_is_box ? Vec3<C>(clamped - local) : Vec3<C>(local - clamped);
    v = clamped == local ? Vec3<C>(Vec3<C>::Zero()) : rotate(gap, C(1));
  }
  const C vv = v.squaredNorm(), radii = C(ra) + C(rb);
  DistanceResult<S> r;
  r.iterations = 0;
  r.status = vv <= Tolerances<C>::gjk_tiny_squared * scale2 || vv <= radii * radii ? Status::intersecting
                                                                                    : Status::separated;
  const Vec3<C> n = finish_distance<S, C>(v, C(ra), C(rb), pa, pb, r);
  r.point_a = (pa + origin).template cast<S>();
  r.point_b = (pb + origin).template cast<S>();
  r.normal = n.template cast<S>();
  return r;
}

}  // namespace impact::detail
