// impact — detail/promote.hpp: a shape of scalar S seen by an algorithm that computes in a wider
// scalar C (float shapes in double, double shapes in long double).
//
// Why: GJK's simplex arithmetic (Johnson's determinants, the projection of the origin) loses
// digits on the thin simplices that curved surfaces produce; in float it stalls at gaps of 1e-4
// of the size, above float's own tolerance, and in double at about 1e-8. The support points
// themselves are accurate to the shape's own rounding (half an ulp of S per coordinate), which is
// all a certificate needs: a support point rounded to S is still a point of the shape within that
// rounding, and a support value along a direction rounded to S differs from the exact one by at
// most the direction's rounding times the shape's extent. So the loop runs in C and only the
// support calls run in S.
//
// Primitive shapes (a few numbers) are converted outright, so the algorithms keep their
// pair-specific forms (closed forms, the cylinder Newton solver) in C; hulls, Minkowski sums and
// transformed shapes are wrapped (no copy, no allocation): their support narrows the direction
// to S, calls the shape, and widens the point.
#pragma once

#include <impact/math.hpp>
#include <impact/shapes.hpp>

#include <cmath>
#include <concepts>
#include <type_traits>

namespace impact::detail {

/// A shape type whose support takes a warm-start hint (hulls).
template <class T, class S>
concept HintedSupport = requires(const T& t, const Vec3<S>& d, int& h) {
  { t.support(d, h) } -> std::convertible_to<Vec3<S>>;
};

/// A direction of C as a direction of S: rescaled so its largest component is ±1 first, so it
/// neither underflows nor overflows S (support mappings only use a direction's orientation).
template <class S, class C>
[[nodiscard]] inline Vec3<S> narrow_direction(const Vec3<C>& d) {
  if constexpr (std::is_same_v<S, C>) {
    return d;
  } else {
    const C m = std::max({std::abs(d.x()), std::abs(d.y()), std::abs(d.z())});
    if (!(m > C(0))) return Vec3<S>::Zero();
    return Vec3<C>(d * (C(1) / m)).template cast<S>();
  }
}

/// The shape X (scalar S) with a support mapping in scalar C.
template <class C, class S, class X>
struct Promoted {
  const X* shape;
  [[nodiscard]] Vec3<C> support(const Vec3<C>& d) const {
    return shape->support(narrow_direction<S>(d)).template cast<C>();
  }
  [[nodiscard]] Vec3<C> support(const Vec3<C>& d, int& hint) const
    requires HintedSupport<X, S>
  {
    return shape->support(narrow_direction<S>(d), hint).template cast<C>();
  }
};

/// Any shape: wrapped.
template <class C, class S, class X>
[[nodiscard]] Promoted<C, S, X> promote(const X& x) {
  return {&x};
}
// Primitives: converted (exact: every S value is a C value), so pair-specific code still sees them.
template <class C, class S>
[[nodiscard]] Point<C> promote(const Point<S>&) {
  return {};
}
template <class C, class S>
[[nodiscard]] Sphere<C> promote(const Sphere<S>& x) {
  return {C(x.radius)};
}
template <class C, class S>
[[nodiscard]] Box<C> promote(const Box<S>& x) {
  return {x.half_extents.template cast<C>()};
}
template <class C, class S>
[[nodiscard]] Capsule<C> promote(const Capsule<S>& x) {
  return {C(x.radius), C(x.half_height)};
}
template <class C, class S>
[[nodiscard]] Cylinder<C> promote(const Cylinder<S>& x) {
  return {C(x.radius), C(x.half_height)};
}
template <class C, class S>
[[nodiscard]] Cone<C> promote(const Cone<S>& x) {
  return {C(x.radius), C(x.half_height)};
}
template <class C, class S>
[[nodiscard]] Segment<C> promote(const Segment<S>& x) {
  return {x.a.template cast<C>(), x.b.template cast<C>()};
}
template <class C, class S>
[[nodiscard]] Triangle<C> promote(const Triangle<S>& x) {
  return {x.a.template cast<C>(), x.b.template cast<C>(), x.c.template cast<C>()};
}

/// A time (or ray parameter) computed in a wider scalar, as S rounded toward 0, so that a lower
/// bound stays one (a cast's answer is never late).
template <class S, class C>
[[nodiscard]] S time_below(C t) {
  S s = S(t);
  if (C(s) > t) s = std::nextafter(s, S(0));
  return s;
}

/// A transform of S in C (exact).
template <class C, class S>
[[nodiscard]] Transform<C> promote_transform(const Transform<S>& t) {
  return {t.rotation.template cast<C>(), t.translation.template cast<C>()};
}

}  // namespace impact::detail
