#pragma once
// impact — toi_impl.hpp (included by toi_float.cpp and toi_double.cpp): time of impact under
// rigid motion by GJK extrusion with Brent's method (Vlack & Tachi) made conservative, and by
// conservative advancement. See toi.hpp for the bound every acceptance rests on.
#include <impact/detail/brent.hpp>
#include <impact/gjk.hpp>
#include <impact/toi.hpp>

#include "detail/dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact {
namespace {

/// One shape's motion, precomputed for evaluation at any t.
template <class S>
struct Kinematics {
  Vec3<S> position, velocity, omega;
  Quat<S> rotation;
  S radius = 0;  ///< Radius of the core about the local origin (what rotation moves).

  [[nodiscard]] Transform<S> at(S t) const {
    Transform<S> tf;
    tf.translation = position + t * velocity;
    const S w = omega.norm();
    if (w > S(0)) {
      const S half = S(0.5) * t * w;
      const S s = std::sin(half) / w;
      const Quat<S> turn(std::cos(half), s * omega.x(), s * omega.y(), s * omega.z());
      tf.rotation = (turn * rotation).normalized().toRotationMatrix();
    } else {
      tf.rotation = rotation.toRotationMatrix();
    }
    return tf;
  }
};

template <class S>
std::string check_vec(const Vec3<S>& v, const std::string& field) {
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(v[i])) return field + "." + std::to_string(i) + ": not finite";
    if (std::abs(v[i]) > Tolerances<S>::max_magnitude) return field + "." + std::to_string(i) + ": out of range";
  }
  return {};
}

/// The solver for one pair of concrete core types.
template <class S, class A, class B>
class ToiSolver {
 public:
  ToiSolver(const A& a, S ra, const B& b, S rb, const Kinematics<S>& ka, const Kinematics<S>& kb,
            const ToiOptions<S>& opt)
      : a_(a), b_(b), ra_(ra), rb_(rb), ka_(ka), kb_(kb), opt_(opt) {
    vrel_ = kb.velocity - ka.velocity;
    accel_ = ka.omega.squaredNorm() * ka.radius + kb.omega.squaredNorm() * kb.radius;
    speed_ = vrel_.norm() + ka.omega.norm() * ka.radius + kb.omega.norm() * kb.radius;
    // Rounding of a separation: a few ulps of the largest coordinate involved.
    const S scale = std::max(ka.position.norm() + ka.velocity.norm(), kb.position.norm() + kb.velocity.norm()) +
                    ka.radius + kb.radius + ra + rb + opt.target_distance;
    slack_ = S(16) * std::numeric_limits<S>::epsilon() * scale;
  }

  ToiHit<S> run() {
    ToiHit<S> out;
    lo_tf_a_ = ka_.at(S(0));
    lo_tf_b_ = kb_.at(S(0));
    lo_ = distance(lo_tf_a_, lo_tf_b_);
    if (lo_.status == Status::intersecting || lo_.distance <= opt_.target_distance + opt_.tolerance) {
      finish(out, Status::initially_overlapping, S(0), lo_, Vec3<S>::Zero());
      return out;
    }
    if (opt_.method == ToiMethod::conservative_advancement) advance(out);
    else extrude(out);
    return out;
  }

 private:
  struct Dir {
    Vec3<S> s;  // unit world direction, A toward B
    S lo;       // separation along s at t_lo
    S hi;       // separation along s at the time under test
  };

  /// Rotation speed of the separation along s: K(s) = |s × ωA|·rA + |s × ωB|·rB.
  S rot_speed(const Vec3<S>& s) const {
    return s.cross(ka_.omega).norm() * ka_.radius + s.cross(kb_.omega).norm() * kb_.radius;
  }

  /// Separation of the shapes along unit s (A toward B) at the given placements.
  S separation(const Vec3<S>& s, const Transform<S>& ta, const Transform<S>& tb) {
    ++stats_.direction_evals;
    const Vec3<S> pa = ta.apply(detail::support_with_hint<S>(a_, Vec3<S>(ta.rotation.transpose() * s), hint_a_));
    const Vec3<S> pb = tb.apply(detail::support_with_hint<S>(b_, Vec3<S>(tb.rotation.transpose() * -s), hint_b_));
    return s.dot(pb - pa) - ra_ - rb_;
  }

  DistanceResult<S> distance(const Transform<S>& ta, const Transform<S>& tb) {
    ++stats_.gjk_calls;
    return gjk_distance<S>(a_, ra_, ta, b_, rb_, tb, gopt_, &cache_);
  }

  /// Proven lower bound of sep(s, t) over an interval of length dt with sep = lo at its start
  /// and hi at its end.
  S lower_bound(const Dir& d, S dt) const {
    const S k = rot_speed(d.s);
    const S sv = d.s.dot(vrel_);
    const S chord = std::min(d.lo, d.hi);
    const S curved = chord - std::min(k * dt / S(2), accel_ * dt * dt / S(8));
    const S forward = d.lo + std::min(S(0), (sv - k) * dt);   // from the start, at the fastest decrease
    const S backward = d.hi - std::max(S(0), (sv + k) * dt);  // from the end, backward in time
    return std::max({curved, forward, backward});
  }

  void finish(ToiHit<S>& out, Status st, S t, const DistanceResult<S>& r, const Vec3<S>& fallback) {
    out.status = st;
    out.toi = t;
    out.point_a = r.point_a;
    out.point_b = r.point_b;
    out.normal = r.normal.squaredNorm() > S(0.25) ? r.normal : fallback;
    out.stats = stats_;
    out.iterations = opt_.method == ToiMethod::conservative_advancement ? stats_.gjk_calls - 1 : stats_.interval_tests;
  }

  /// Conservative advancement: from t, the separation along GJK's axis s decreases at most at
  /// K(s) − s·v_rel, so it stays above the target for (sep − target) / that rate.
  void advance(ToiHit<S>& out) {
    S t = 0;
    Transform<S> ta = lo_tf_a_, tb = lo_tf_b_;
    DistanceResult<S> r = lo_;
    for (int step = 0;; ++step) {
      if (step >= opt_.max_iterations) {
        finish(out, Status::max_iterations, t, r, Vec3<S>::Zero());
        return;
      }
      const Vec3<S> s = r.normal;
      const S sep = separation(s, ta, tb);
      const S rate = rot_speed(s) - s.dot(vrel_);
      if (rate <= S(0)) {
        finish(out, Status::miss, S(1), r, s);
        return;
      }
      const S dt = (sep - opt_.target_distance - slack_) / rate;
      if (!(dt > S(0))) {  // GJK's axis no longer proves the gap: no safe step from here
        finish(out, Status::max_iterations, t, r, s);
        return;
      }
      const S next = t + dt;
      if (next > S(1)) {
        finish(out, Status::miss, S(1), r, s);
        return;
      }
      t = next;
      ta = ka_.at(t);
      tb = kb_.at(t);
      r = distance(ta, tb);
      if (r.status == Status::intersecting || r.distance <= opt_.target_distance + opt_.tolerance) {
        finish(out, Status::hit, t, r, s);
        return;
      }
    }
  }

  void add_direction(const Vec3<S>& s, S lo) {
    if (!(lo > opt_.target_distance + slack_)) return;
    if (count_ < kMaxDirs) {
      dirs_[count_++] = Dir{s, lo, lo};
      return;
    }
    int worst = 0;  // replace the direction with the least separation
    for (int i = 1; i < count_; ++i)
      if (dirs_[i].lo < dirs_[worst].lo) worst = i;
    dirs_[worst] = Dir{s, lo, lo};
  }

  /// Largest step from t_lo (at most dt_x) that the bound should certify, assuming the best
  /// direction's separation falls linearly to f_x at dt_x; never below the advancement step.
  S certifiable_step(S dt_x, S f_x) const {
    const S target = opt_.target_distance + slack_;
    int best = 0;
    for (int i = 1; i < count_; ++i)
      if (dirs_[i].lo > dirs_[best].lo) best = i;
    const Dir& d = dirs_[best];
    const S k = rot_speed(d.s);
    const S rate = k - d.s.dot(vrel_);
    const S safe = rate > S(0) ? S(0.999) * (d.lo - target) / rate : dt_x;
    auto ok = [&](S dt) {
      const S model = d.lo + (f_x - d.lo) * (dt / dt_x);
      return std::min(d.lo, model) - target >= S(2) * std::min(k * dt / S(2), accel_ * dt * dt / S(8));
    };
    if (ok(dt_x)) return dt_x;
    S lo = 0, hi = dt_x;
    for (int i = 0; i < 40; ++i) {
      const S mid = S(0.5) * (lo + hi);
      (ok(mid) ? lo : hi) = mid;
    }
    return std::clamp(std::max(lo, safe), std::min(dt_x, std::numeric_limits<S>::min()), dt_x);
  }

  /// Vlack & Tachi's extrusion test with Brent's method, on intervals [t_lo, t_try].
  void extrude(ToiHit<S>& out) {
    const S target = opt_.target_distance;
    const S aim = target + opt_.tolerance / S(2);  // Brent aims inside the accepted window
    S t_lo = 0;
    add_direction(lo_.normal, separation(lo_.normal, lo_tf_a_, lo_tf_b_));
    bool bracket = false;  // t_hi: where the stored directions last saw the gap close
    S t_hi = 1, t_try = 1;
    bool far_end_tried = opt_.paper_acceptance;
    int certified_by = 0;
    for (;;) {
      if (stats_.interval_tests >= opt_.max_iterations || count_ == 0) {
        finish(out, Status::max_iterations, t_lo, lo_, Vec3<S>::Zero());
        return;
      }
      ++stats_.interval_tests;
      const S dt = t_try - t_lo;
      const Transform<S> ta = ka_.at(t_try), tb = kb_.at(t_try);
      S best = -std::numeric_limits<S>::infinity(), f_try = best;
      for (int i = 0; i < count_; ++i) {
        dirs_[i].hi = separation(dirs_[i].s, ta, tb);
        f_try = std::max(f_try, dirs_[i].hi);
        const S lb = opt_.paper_acceptance ? dirs_[i].hi : lower_bound(dirs_[i], dt);
        if (lb > best) {
          best = lb;
          certified_by = i;
        }
      }
      const bool accepted = opt_.paper_acceptance ? best > target : best > target + slack_;
      if (accepted) {
        if (t_try >= S(1)) {
          stats_.photo_finish = stats_.interval_tests > 1;
          finish(out, Status::miss, S(1), lo_, Vec3<S>::Zero());
          return;
        }
        // No contact on [t_lo, t_try]: move there, with GJK's exact distance and axis.
        const Vec3<S> fallback = dirs_[certified_by].s;
        t_lo = t_try;
        lo_tf_a_ = ta;
        lo_tf_b_ = tb;
        lo_ = distance(ta, tb);
        if (lo_.status == Status::intersecting || lo_.distance <= target + opt_.tolerance) {
          finish(out, Status::hit, t_lo, lo_, fallback);
          return;
        }
        // The stored directions' separations at t_try are their values at the new t_lo.
        int kept = 0;
        for (int i = 0; i < count_; ++i) {
          if (dirs_[i].hi > target + slack_) {
            dirs_[kept] = dirs_[i];
            dirs_[kept].lo = dirs_[i].hi;
            ++kept;
          }
        }
        count_ = kept;
        add_direction(lo_.normal, separation(lo_.normal, ta, tb));
        if (bracket && t_hi <= t_lo) bracket = false;
        t_try = bracket ? t_hi : S(1);
        continue;
      }
      if (!far_end_tried) {
        // Beyond the paper: GJK's axis at t = 1 often separates at t = 0 too (bodies passing
        // each other), which settles [0, 1] in one more test.
        far_end_tried = true;
        const DistanceResult<S> r1 = distance(ta, tb);
        if (r1.status == Status::separated) {
          add_direction(r1.normal, separation(r1.normal, lo_tf_a_, lo_tf_b_));
          continue;
        }
      }
      // The interval is not proven free. Pick t_x by Brent's method on the largest supporting
      // distance of the stored directions when they see the gap close before t_try.
      S t_x = t_try, f_x = f_try;
      if (f_try < aim) {
        bracket = true;
        t_hi = t_try;
        S f_lo = -std::numeric_limits<S>::infinity();
        for (int i = 0; i < count_; ++i) f_lo = std::max(f_lo, dirs_[i].lo);
        if (f_lo - aim > S(0)) {
          auto f = [&](S t) {
            const Transform<S> fa = ka_.at(t), fb = kb_.at(t);
            S m = -std::numeric_limits<S>::infinity();
            for (int i = 0; i < count_; ++i) m = std::max(m, separation(dirs_[i].s, fa, fb));
            return m - aim;
          };
          const S xtol = std::max(opt_.tolerance / (S(4) * std::max(speed_, std::numeric_limits<S>::min())),
                                  S(8) * std::numeric_limits<S>::epsilon());
          const auto root = detail::brent_root<S>(f, t_lo, f_lo - aim, t_try, f_try - aim, xtol, 60);
          t_x = root.positive;
          f_x = root.f_positive + aim;
        } else {
          t_x = t_lo + (t_try - t_lo) / S(2);
          f_x = f_lo;
        }
      }
      if (opt_.paper_acceptance) {
        t_try = t_x > t_lo ? t_x : t_lo + (t_try - t_lo) / S(2);
        if (!(t_try > t_lo)) {
          finish(out, Status::max_iterations, t_lo, lo_, Vec3<S>::Zero());
          return;
        }
        continue;
      }
      const S step = t_x > t_lo ? certifiable_step(t_x - t_lo, f_x) : S(0);
      t_try = step > S(0) ? t_lo + step : t_lo + (t_try - t_lo) / S(2);
      if (!(t_try > t_lo)) {  // no representable progress: report the proven bound
        finish(out, Status::max_iterations, t_lo, lo_, Vec3<S>::Zero());
        return;
      }
    }
  }

  static constexpr int kMaxDirs = 8;

  const A& a_;
  const B& b_;
  S ra_, rb_;
  Kinematics<S> ka_, kb_;
  ToiOptions<S> opt_;
  GjkOptions<S> gopt_;
  GjkCache<S> cache_;
  int hint_a_ = -1, hint_b_ = -1;
  Vec3<S> vrel_;
  S accel_ = 0, speed_ = 0, slack_ = 0;
  ToiStats stats_;
  Dir dirs_[kMaxDirs];
  int count_ = 0;
  Transform<S> lo_tf_a_, lo_tf_b_;
  DistanceResult<S> lo_;
};

template <class S>
S core_radius(const Shape<S>& s, S peeled) {
  // The rounded part of a core ⊕ ball is unchanged by rotation about the core's origin... only
  // when the ball is centred on the core, which peel() guarantees; what turns is the core.
  return std::max(S(0), bounding_radius(s) - peeled) * (S(1) + S(64) * std::numeric_limits<S>::epsilon());
}

}  // namespace

template <class S>
ToiHit<S> time_of_impact(const Shape<S>& a, const Motion<S>& ma, const Shape<S>& b, const Motion<S>& mb,
                         const ToiOptions<S>& opt) {
  ToiHit<S> out;
  if (!detail::pair_ok(a, ma.pose, b, mb.pose)) {
    out.error = detail::validate_pair(a, ma.pose, b, mb.pose, "a", "motion_a.pose", "b", "motion_b.pose");
    return out;
  }
  if (!detail::point_ok(ma.linear_velocity) || !detail::point_ok(ma.angular_velocity) ||
      !detail::point_ok(mb.linear_velocity) || !detail::point_ok(mb.angular_velocity) ||
      !detail::size_ok(opt.target_distance) || !(opt.tolerance > S(0)) || !detail::size_ok(opt.tolerance) ||
      opt.max_iterations < 1) {
    if (auto e = check_vec(ma.linear_velocity, "motion_a.linear_velocity"); !e.empty()) out.error = e;
    else if (auto e = check_vec(ma.angular_velocity, "motion_a.angular_velocity"); !e.empty()) out.error = e;
    else if (auto e = check_vec(mb.linear_velocity, "motion_b.linear_velocity"); !e.empty()) out.error = e;
    else if (auto e = check_vec(mb.angular_velocity, "motion_b.angular_velocity"); !e.empty()) out.error = e;
    else if (!detail::size_ok(opt.target_distance)) out.error = "target_distance: negative, not finite or out of range";
    else if (opt.max_iterations < 1) out.error = "max_iterations: must be at least 1";
    else out.error = "tolerance: must be positive and finite";
    return out;
  }
  detail::Core<S> ca, cb;
  detail::peel(a, ca);
  detail::peel(b, cb);
  Kinematics<S> ka{ma.pose.position, ma.linear_velocity, ma.angular_velocity, ma.pose.rotation.normalized(),
                   core_radius(a, ca.radius)};
  Kinematics<S> kb{mb.pose.position, mb.linear_velocity, mb.angular_velocity, mb.pose.rotation.normalized(),
                   core_radius(b, cb.radius)};
  return detail::visit_core(ca, [&](const auto& x) {
    return detail::visit_core(cb, [&](const auto& y) {
      using X = std::decay_t<decltype(x)>;
      using Y = std::decay_t<decltype(y)>;
      ToiSolver<S, X, Y> solver(x, ca.radius, y, cb.radius, ka, kb, opt);
      return solver.run();
    });
  });
}

}  // namespace impact
