// impact — detail/dispatch.hpp: turning two `Shape` variants into concrete core types once per
// query. Round shapes are peeled into a core and a radius first (sphere → point + r, capsule →
// segment + r, minkowski with a sphere → the other part + r), so the templated algorithms see
// only cores and each pair of core types is instantiated once.
#pragma once

#include <impact/shapes.hpp>

#include "detail/validation.hpp"

#include <cmath>
#include <string>
#include <type_traits>

namespace impact::detail {

/// A shape seen as core ⊕ ball(radius): the input shape itself, or a point or a segment made for
/// a sphere or a capsule (plain members: no variant to construct or destroy per query).
template <class S>
struct Core {
  enum Kind { shape_core, point_core, segment_core };
  const Shape<S>* shape = nullptr;
  S radius = S(0);
  Kind kind = shape_core;
  Segment<S> segment;
};

template <class S>
void peel(const Shape<S>& s, Core<S>& c) {
  if (const auto* sp = std::get_if<Sphere<S>>(&s.variant())) {
    c.kind = Core<S>::point_core;
    c.radius += sp->radius;
  } else if (const auto* cp = std::get_if<Capsule<S>>(&s.variant())) {
    c.kind = Core<S>::segment_core;
    c.segment = Segment<S>{Vec3<S>(S(0), S(0), -cp->half_height), Vec3<S>(S(0), S(0), cp->half_height)};
    c.radius += cp->radius;
  } else if (const auto* mp = std::get_if<MinkowskiShape<S>>(&s.variant())) {
    if (const auto* sb = std::get_if<Sphere<S>>(&mp->b->variant())) {
      c.radius += sb->radius;
      peel(*mp->a, c);
    } else if (const auto* sa = std::get_if<Sphere<S>>(&mp->a->variant())) {
      c.radius += sa->radius;
      peel(*mp->b, c);
    } else {
      c.shape = &s;
    }
  } else {
    c.shape = &s;
  }
}

/// Calls f with the concrete type of a core (one dispatch).
template <class S, class F>
decltype(auto) visit_core(const Core<S>& c, F&& f) {
  if (c.kind == Core<S>::point_core) return f(Point<S>{});
  if (c.kind == Core<S>::segment_core) return f(c.segment);
  return std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, Sphere<S>> || std::is_same_v<X, Capsule<S>>)
          return f(Point<S>{});  // unreachable: peel() replaced these by a point or a segment
        else
          return f(x);
      },
      c.shape->variant());
}

/// Calls f(core_a, radius_a, core_b, radius_b) with the concrete core types of a and b.
template <class S, class F>
decltype(auto) visit_cores(const Shape<S>& a, const Shape<S>& b, F&& f) {
  Core<S> ca, cb;
  peel(a, ca);
  peel(b, cb);
  return visit_core(ca, [&](const auto& x) {
    return visit_core(cb, [&](const auto& y) { return f(x, ca.radius, y, cb.radius); });
  });
}

}  // namespace impact::detail
