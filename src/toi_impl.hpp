#pragma once
// impact — toi_impl.hpp (included by toi_float.cpp and toi_double.cpp): time_of_impact's entry:
// validation, the cores peeled and visited once, the solver run relative to A's start in double
// (toi/toi_solver.hpp: Vlack & Tachi's extrusion with Brent's method made conservative, and
// conservative advancement under rotation). See toi.hpp for the bound every acceptance rests on.
#include "detail/dispatch.hpp"
#include "detail/validation.hpp"
#include "toi/toi_entry.hpp"
#include "toi/toi_solver_instances.hpp"
#include <impact/toi.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact {
namespace {

/// The radius of a core about its origin, from the shape's bounding radius and what peel() took.
template <class S>
S core_radius(S bounding, S peeled) {
  // The rounded part of a core ⊕ ball is unchanged by rotation about the core's origin... only
  // when the ball is centred on the core, which peel() guarantees; what turns is the core.
  return std::max(S(0), bounding - peeled) * (S(1) + S(64) * std::numeric_limits<S>::epsilon());
}

template <class S>
S core_radius(const Shape<S>& s, S peeled) {
  return core_radius(bounding_radius(s), peeled);
}

/// The first invalid velocity or option, in time_of_impact's order (empty: none).
template <class S>
std::string velocity_error(const Motion<S>& ma, const Motion<S>& mb) {
  if (auto e = detail::check_vector(ma.linear_velocity, "motion_a.linear_velocity"); !e.empty()) return e;
  if (auto e = detail::check_vector(ma.angular_velocity, "motion_a.angular_velocity"); !e.empty()) return e;
  if (auto e = detail::check_vector(mb.linear_velocity, "motion_b.linear_velocity"); !e.empty()) return e;
  return detail::check_vector(mb.angular_velocity, "motion_b.angular_velocity");
}

template <class S>
bool velocities_ok(const Motion<S>& ma, const Motion<S>& mb) {
  return detail::point_ok(ma.linear_velocity) && detail::point_ok(ma.angular_velocity) &&
         detail::point_ok(mb.linear_velocity) && detail::point_ok(mb.angular_velocity);
}

template <class S>
bool options_ok(const ToiOptions<S>& opt) {
  return detail::size_ok(opt.target_distance) && opt.tolerance > S(0) && detail::size_ok(opt.tolerance) &&
         opt.max_iterations >= 1 && detail::size_ok(opt.max_toi);
}

template <class S>
std::string options_error(const ToiOptions<S>& opt) {
  if (auto e = detail::check_scalar(opt.target_distance, "target_distance"); !e.empty()) return e;
  if (auto e = detail::check_scalar(opt.tolerance, "tolerance", true); !e.empty()) return e;
  if (opt.max_iterations < 1) return "max_iterations: must be at least 1";
  return detail::check_scalar(opt.max_toi, "max_toi");
}

/// A motion in the solver's scalar C with its position replaced (relative to the query's origin).
template <class C, class S>
Motion<C> widen(const Motion<S>& m, const Vec3<C>& position) {
  Motion<C> w;
  w.pose = m.pose.template cast<C>();
  w.pose.position = position;
  w.linear_velocity = m.linear_velocity.template cast<C>();
  w.angular_velocity = m.angular_velocity.template cast<C>();
  return w;
}

/// Hints in the solver's scalar, normalised there; those whose direction is not finite dropped.
/// Returns how many were written to `out` (at most kMaxHints).
template <class S, class C>
int widen_hints(std::span<const toi::ToiHint<S>> hints, toi::ToiHint<C>* out) {
  int count = 0;
  for (const toi::ToiHint<S>& h : hints.first(std::min(hints.size(), std::size_t(toi::kMaxHints)))) {
    const Vec3<C> d = h.direction.template cast<C>().normalized();
    if (d.allFinite()) out[count++] = {d, h.face_of_b};
  }
  return count;
}

/// `later`'s hints widened as the first ones, when the solver asks for them.
template <class S, class C>
int widen_later(const void* context, toi::ToiHint<C>* out) {
  const auto& later = *static_cast<const toi::LaterHints<S>*>(context);
  toi::ToiHint<S> made[toi::kMaxHints];
  const int n = std::clamp(later.make(later.context, made), 0, toi::kMaxHints);
  return widen_hints<S, C>(std::span<const toi::ToiHint<S>>(made, static_cast<std::size_t>(n)), out);
}

/// The solver on two prepared sides (motions relative to `origin`), hints tried first (`hints`,
/// then those `later` makes): A's core, and B's as `visit_b(f)` calls f with it (a Core's visit,
/// or a triangle itself).
template <class S, class C, class VisitB>
ToiHit<S> run_solver(const detail::Core<S>& ca, const toi::Kinematics<C>& ka, S radius_b, VisitB&& visit_b,
                     const toi::Kinematics<C>& kb, const Vec3<C>& origin, const ToiOptions<S>& opt,
                     std::span<const toi::ToiHint<S>> hints, toi::LaterHints<S> later = {},
                     const toi::RelativeMotion<C>* rel = nullptr) {
  const ToiOptions<C> wide{opt.method,         C(opt.target_distance), C(opt.tolerance),
                           opt.paper_acceptance, opt.max_iterations,    C(opt.max_toi)};
  toi::ToiHint<C> wide_hints[toi::kMaxHints];
  const int hint_count = widen_hints<S, C>(hints, wide_hints);
  const std::span<const toi::ToiHint<C>> solver_hints(wide_hints, static_cast<std::size_t>(hint_count));
  const toi::LaterHints<C> solver_later =
      later.make != nullptr ? toi::LaterHints<C>{&widen_later<S, C>, &later} : toi::LaterHints<C>{};
  const ToiHit<C> hit = detail::visit_core(ca, [&](const auto& x) {
    return visit_b([&](const auto& y) {
      const auto run = [&](const auto& px, const auto& py) {
        return toi::solve_pair<C>(px, C(ca.radius), py, C(radius_b), ka, kb, wide, rel, solver_hints, solver_later);
      };
      if constexpr (std::is_same_v<C, S>)
        return run(x, y);
      else
        return run(detail::promote<C, S>(x), detail::promote<C, S>(y));
    });
  });
  ToiHit<S> out;
  out.status = hit.status;
  // Rounded down: never late. A miss carries no time: 0, as for shape_cast (docs/protocol.md).
  out.toi = hit.status == Status::miss ? S(0) : detail::time_below<S>(hit.toi);
  out.point_a = (hit.point_a + origin).template cast<S>();  // finish() sets the points whatever the status
  out.point_b = (hit.point_b + origin).template cast<S>();
  out.normal = hit.normal.template cast<S>();
  out.iterations = hit.iterations;
  out.error = hit.error;
  out.stats = hit.stats;
  return out;
}

}  // namespace

template <class S>
ToiHit<S> time_of_impact(const Shape<S>& a, const Motion<S>& ma, const Shape<S>& b, const Motion<S>& mb,
                         const ToiOptions<S>& opt) {
  return toi::time_of_impact_hinted<S>(a, ma, b, mb, opt, {});
}

template <class S>
ToiHit<S> toi::time_of_impact_hinted(const Shape<S>& a, const Motion<S>& ma, const Shape<S>& b, const Motion<S>& mb,
                                     const ToiOptions<S>& opt, std::span<const toi::ToiHint<S>> hints) {
  ToiHit<S> out;
  if (!detail::pair_ok(a, ma.pose, b, mb.pose)) {
    out.error = detail::validate_pair(a, ma.pose, b, mb.pose, "a", "motion_a.pose", "b", "motion_b.pose");
    return out;
  }
  if (!velocities_ok(ma, mb) || !options_ok(opt)) {
    out.error = velocities_ok(ma, mb) ? options_error(opt) : velocity_error(ma, mb);
    return out;
  }
  detail::Core<S> ca, cb;
  detail::peel(a, ca);
  detail::peel(b, cb);
  // The solver works relative to A's starting position, in double for float bodies too (the
  // shapes' supports stay in their own precision, detail/promote.hpp). Far from the origin (1e2
  // in float) the placements at every t otherwise round at that magnitude; and in float the
  // distance model, which needs them to the tolerance, had stalled to max_iterations on fast
  // propellers. The difference of the two positions is taken in double.
  using C = toi::ToiCompute<S>;
  const Vec3<C> origin = ma.pose.position.template cast<C>();
  const toi::Kinematics<C> ka(widen<C>(ma, Vec3<C>::Zero()), C(core_radius(a, ca.radius)));
  const toi::Kinematics<C> kb(widen<C>(mb, Vec3<C>(mb.pose.position.template cast<C>() - origin)),
                              C(core_radius(b, cb.radius)));
  return run_solver<S, C>(ca, ka, cb.radius, [&](auto&& f) { return detail::visit_core(cb, f); }, kb, origin, opt, hints);
}

template <class S>
std::string toi::PartSweep<S>::prepare(const Shape<S>& a, const Motion<S>& ma, const Motion<S>& mb) {
  if (!detail::shape_ok(a) || !detail::pose_ok(ma.pose) || !detail::pose_ok(mb.pose))  // A, then the poses
    return detail::validate_pair(a, ma.pose, a, mb.pose, "a", "motion_a.pose", "a", "motion_b.pose");
  if (!velocities_ok(ma, mb)) return velocity_error(ma, mb);
  core_a_ = detail::Core<S>{};
  detail::peel(a, core_a_);
  origin_ = ma.pose.position.template cast<C>();
  ka_ = Kinematics<C>(widen<C>(ma, Vec3<C>::Zero()), C(core_radius(a, core_a_.radius)));
  kb_ = Kinematics<C>(widen<C>(mb, Vec3<C>(mb.pose.position.template cast<C>() - origin_)), C(0));
  ka_.keep(C(1));  // the end of the step, where every hint is tested while max_toi is 1
  kb_.keep(C(1));
  rel_ = RelativeMotion<C>(ka_, kb_, C(core_a_.radius), C(0), C(0));  // sizes set per triangle
  return {};
}

template <class S>
ToiHit<S> toi::PartSweep<S>::against(const Triangle<S>& triangle, const ToiOptions<S>& opt,
                                     std::span<const ToiHint<S>> hints, LaterHints<S> later) {
  const bool triangle_ok = detail::point_ok(triangle.a) && detail::point_ok(triangle.b) && detail::point_ok(triangle.c);
  if (!triangle_ok || !options_ok(opt)) {
    ToiHit<S> out;
    if (triangle_ok) {
      out.error = options_error(opt);
    } else {
      // A, its pose and the mesh's passed prepare(): validate_pair's answer is the triangle's.
      const std::string e = validate(Shape<S>(triangle));
      out.error = e.empty() ? std::string(detail::kAtTheEdgeOfARange) : "b." + e;
    }
    return out;
  }
  // A triangle is its own core (peel() takes nothing off it), its bounding radius its farthest
  // corner's (bounding_radius): the variant's visits are skipped, not the arithmetic.
  kb_.radius = C(core_radius(std::max({triangle.a.norm(), triangle.b.norm(), triangle.c.norm()}), S(0)));
  // The motions' part of the relative motion is the same for every triangle: only the sizes are
  // set again (bit for bit what the solver would compute).
  rel_.set_sizes(ka_, kb_, C(core_a_.radius), C(0), C(opt.target_distance));
  return run_solver<S, C>(core_a_, ka_, S(0), [&](auto&& f) { return f(triangle); }, kb_, origin_, opt, hints, later,
                          &rel_);
}

}  // namespace impact
