#pragma once
// impact — toi/moving_pair.hpp: two cores in motion and what the time-of-impact solvers measure
// of them at a time t: the separation along a direction (two support calls), its rate, and the
// exact distance by GJK, warm-started from the previous call and confirmed near contact.
#include "detail/gjk.hpp"
#include "toi/direction_store.hpp"
#include "toi/kinematics.hpp"

namespace impact::toi {

/// A pair of concrete core types (A, B) with radii, their motions, and the counters of the work.
template <class S, class A, class B>
struct MovingPair {
  const A& a;
  const B& b;
  S ra, rb;  ///< the radii peeled off the cores (detail::peel)
  const Kinematics<S>& ka;  ///< the motions: the caller's, which outlive the pair
  const Kinematics<S>& kb;
  ToiOptions<S> opt;
  RelativeMotion<S> rel;
  /// The solvers' bounds certify their answers (no long double retry: compiled out, by
  /// detail::gjk_distance_with<false>), and a distance past the
  /// window (target + tolerance) steers them only: there GJK stops at an eighth of the excess
  /// (GjkOptions::apart_beyond; on the world's falling pieces a cylinder against a triangle took
  /// 19 iterations to converge to 1e-12).
  GjkOptions<S> gopt{.wide_retry = false};
  GjkCache<S> cache;  ///< GJK's last simplex (warm start; the narrowing models read it)
  int hint_a = -1, hint_b = -1;  ///< hill-climbing hints of the support calls along directions
  ToiStats stats;

  MovingPair(const A& a_, S ra_, const B& b_, S rb_, const Kinematics<S>& ka_, const Kinematics<S>& kb_,
             const ToiOptions<S>& opt_)
      : MovingPair(a_, ra_, b_, rb_, ka_, kb_, opt_, RelativeMotion<S>(ka_, kb_, ra_, rb_, opt_.target_distance)) {}
  /// The same with their relative motion given (computed for these motions, radii and target).
  MovingPair(const A& a_, S ra_, const B& b_, S rb_, const Kinematics<S>& ka_, const Kinematics<S>& kb_,
             const ToiOptions<S>& opt_, const RelativeMotion<S>& rel_)
      : a(a_), b(b_), ra(ra_), rb(rb_), ka(ka_), kb(kb_), opt(opt_), rel(rel_) {
    gopt.apart_beyond = opt.target_distance + opt.tolerance;
  }

  /// Separation of the shapes along a stored direction at the given placements.
  S separation(const Direction<S>& d, const Transform<S>& ta, const Transform<S>& tb) {
    if (d.frame == 0) return separation(d.s, ta, tb);
    if (d.frame == 1) {
      const Vec3<S> s = ta.rotation * d.local;
      return separation(s, d.local, Vec3<S>(tb.rotation.transpose() * -s), ta, tb);
    }
    const Vec3<S> s = tb.rotation * d.local;
    return separation(s, Vec3<S>(ta.rotation.transpose() * s), Vec3<S>(-d.local), ta, tb);
  }

  /// Separation of the shapes along unit s (A toward B) at the given placements.
  S separation(const Vec3<S>& s, const Transform<S>& ta, const Transform<S>& tb) {
    return separation(s, Vec3<S>(ta.rotation.transpose() * s), Vec3<S>(tb.rotation.transpose() * -s), ta, tb);
  }

  /// The same, given s in A's axes (sa) and −s in B's axes (sb): s·(x_B − x_A) less the two
  /// supports' offsets from their origins, computed in the bodies' own axes.
  S separation(const Vec3<S>& s, const Vec3<S>& sa, const Vec3<S>& sb, const Transform<S>& ta, const Transform<S>& tb) {
    ++stats.direction_evals;
    const Vec3<S> pa = detail::support_with_hint<S>(a, sa, hint_a);
    const Vec3<S> pb = detail::support_with_hint<S>(b, sb, hint_b);
    return s.dot(tb.translation - ta.translation) - sb.dot(pb) - sa.dot(pa) - ra - rb;
  }

  /// The separation along a stored direction at time t, and its rate of change there: the
  /// support points held fixed on their bodies (the envelope theorem), a turning direction turning.
  S separation_rate(const Direction<S>& d, S t, S& rate) {
    ++stats.direction_evals;
    const Transform<S> ta = ka.at(t), tb = kb.at(t);
    const Vec3<S> s = world_direction(d, ta, tb);
    const Vec3<S> oa = ta.rotation * detail::support_with_hint<S>(a, Vec3<S>(ta.rotation.transpose() * s), hint_a);
    const Vec3<S> ob = tb.rotation * detail::support_with_hint<S>(b, Vec3<S>(tb.rotation.transpose() * -s), hint_b);
    const Vec3<S> gap = tb.translation - ta.translation + ob - oa;
    const Vec3<S> turn = d.frame == 1 ? ka.omega().cross(s) : d.frame == 2 ? kb.omega().cross(s) : Vec3<S>::Zero();
    rate = turn.dot(gap) + s.dot(rel.vrel + kb.omega().cross(ob) - ka.omega().cross(oa));
    return s.dot(gap) - ra - rb;
  }

  /// The rate of change of the distance at t, from the velocities of the witness points as points
  /// of their bodies (by the envelope theorem, the distance's derivative where the closest
  /// features are unique).
  S distance_rate(const DistanceResult<S>& r, S t) const {
    const Vec3<S> ca = ka.position() + t * ka.velocity(), cb = kb.position() + t * kb.velocity();
    const Vec3<S> va = ka.velocity() + ka.omega().cross(r.point_a - ca);
    const Vec3<S> vb = kb.velocity() + kb.omega().cross(r.point_b - cb);
    return r.normal.dot(vb - va);
  }

  /// Ball–ball and ball–box pairs have their distance in closed form (detail::kWorldClosedForm),
  /// with exact normals. GJK's normal near contact is good to its relative precision of the
  /// scene, and a scene of size 86 left both methods at max_iterations 2e-6 from a point–box
  /// contact with a tolerance of 1e-6: the separation along GJK's normal no longer proved the
  /// gap its distance reported (battery #75623).
  static constexpr bool kClosedForm = detail::kWorldClosedForm<A, B, S>;
  DistanceResult<S> closed_form_distance(const Transform<S>& ta, const Transform<S>& tb) const {
    Pose<S> pa, pb;
    pa.position = ta.translation;
    pa.rotation = Quat<S>(ta.rotation);
    pb.position = tb.translation;
    pb.rotation = Quat<S>(tb.rotation);
    return detail::world_closed_form_distance<S>(a, ra, pa, b, rb, pb);
  }

  /// GJK distance at (ta, tb), warm-started from the previous call. An answer within the window
  /// (distance ≤ target + tolerance, or touching) is confirmed by a cold GJK, whose answer is
  /// kept: in float, a warm start next to contact can end on a flat simplex and report the
  /// shapes touching while they are a few tolerances apart.
  DistanceResult<S> distance(const Transform<S>& ta, const Transform<S>& tb, bool confirm = true) {
    ++stats.gjk_calls;
    if constexpr (kClosedForm) return closed_form_distance(ta, tb);
    DistanceResult<S> r = detail::gjk_distance_with<false, S>(a, ra, ta, b, rb, tb, gopt, &cache);
    if (confirm && needs_confirmation(r, ta, tb)) r = cold_distance(ta, tb);
    return r;
  }

  /// GJK from scratch: no simplex, no axis, no hull hints.
  DistanceResult<S> cold_distance(const Transform<S>& ta, const Transform<S>& tb) {
    ++stats.gjk_calls;
    if constexpr (kClosedForm) return closed_form_distance(ta, tb);
    cache.count = 0;
    cache.axis.setZero();
    cache.hint_a = cache.hint_b = -1;
    return detail::gjk_distance_with<false, S>(a, ra, ta, b, rb, tb, gopt, &cache);
  }

  /// A GJK answer within the window is confirmed by a cold GJK in float, where a warm start next
  /// to contact can end on a flat simplex and under-report the distance by a few tolerances. In
  /// double it is confirmed only when touching or intersecting, or when its own axis does not
  /// certify it (the separation along the axis falls short of the distance by a tenth of the
  /// tolerance: GJK stopped before converging).
  bool needs_confirmation(const DistanceResult<S>& r, const Transform<S>& ta, const Transform<S>& tb) {
    if (!within(r)) return false;
    if (sizeof(S) < sizeof(double) || r.status == Status::intersecting || r.distance <= opt.target_distance)
      return true;
    return separation(r.normal, ta, tb) < r.distance - S(0.1) * opt.tolerance;
  }

  /// Within the accepted window: touching, or no farther apart than target + tolerance.
  [[nodiscard]] bool within(const DistanceResult<S>& r) const {
    return r.status == Status::intersecting || r.distance <= opt.target_distance + opt.tolerance;
  }

  /// Within the target (GJK found contact, for the solvers' brackets).
  [[nodiscard]] bool touching(const DistanceResult<S>& r) const {
    return r.status == Status::intersecting || r.distance <= opt.target_distance;
  }

  /// Which body's face GJK's last simplex lies on: 1 when it has three or more distinct points
  /// on A and one on B (a face of A against a point of B: the normal is fixed in A's axes), 2 for
  /// the converse, 0 otherwise (edges, or a cold cache).
  [[nodiscard]] int face_of_simplex() const {
    auto distinct = [&](const Vec3<S>* p) {
      int n = 0;
      for (int i = 0; i < cache.count; ++i) {
        bool seen = false;
        for (int j = 0; j < i; ++j) seen = seen || p[j] == p[i];
        n += !seen;
      }
      return n;
    };
    const int na = distinct(cache.local_a), nb = distinct(cache.local_b);
    return na >= 3 && nb == 1 ? 1 : nb >= 3 && na == 1 ? 2 : 0;
  }
};

}  // namespace impact::toi
