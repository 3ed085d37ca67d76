// impact — detail/closed_form.hpp: exact closest points for the core pairs that have a short
// closed form (point–point, point–box, point–segment, segment–segment), used instead of GJK:
// sphere–sphere, sphere–box, sphere–capsule and capsule–capsule run these on their cores.
// (parry and FCL specialise the same pairs.) Everything is in A's frame; B's core is placed by
// `b_in_a`.
#pragma once

#include <impact/math.hpp>
#include <impact/shapes.hpp>

#include <algorithm>
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

}  // namespace impact::detail
