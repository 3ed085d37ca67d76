#pragma once
// impact — toi_impl.hpp (included by toi_float.cpp and toi_double.cpp): time of impact under
// rigid motion by GJK extrusion with Brent's method (Vlack & Tachi) made conservative, and by
// conservative advancement. See toi.hpp for the bound every acceptance rests on.
#include "detail/brent.hpp"
#include "detail/gjk.hpp"
#include <impact/toi.hpp>

#include "detail/dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact {
namespace {

/// One shape's motion, precomputed for evaluation at any t.
///
/// The rotation at t is exp(t·ω)·R0 by Rodrigues' formula on the matrix, with θ = t·|ω| and
/// K the cross-product matrix of the unit axis:
///   R(t) = R0 + sin θ·(K·R0) + (1 − cos θ)·(K²·R0),   1 − cos θ = 2·sin²(θ/2),
/// the same rotation as Motion::at's quaternion (to rounding), with K·R0 and K²·R0 computed once.
template <class S>
struct Kinematics {
  Motion<S> motion;
  S radius = 0;  ///< Radius of the core about the local origin (what rotation moves).
  S spin = 0;    ///< |ω|
  Vec3<S> axis = Vec3<S>::Zero();
  Mat3<S> r0, kr0, kkr0;  ///< R0, K·R0, K²·R0

  Kinematics(const Motion<S>& m, S r) : motion(m), radius(r) {
    motion.pose.rotation.normalize();
    spin = m.angular_velocity.norm();
    if (spin > S(0)) axis = m.angular_velocity / spin;
    r0 = motion.pose.rotation.toRotationMatrix();
    Mat3<S> k;
    k << S(0), -axis.z(), axis.y(), axis.z(), S(0), -axis.x(), -axis.y(), axis.x(), S(0);
    kr0 = k * r0;
    kkr0 = k * kr0;
  }
  [[nodiscard]] const Vec3<S>& position() const { return motion.pose.position; }
  [[nodiscard]] const Vec3<S>& velocity() const { return motion.linear_velocity; }
  [[nodiscard]] const Vec3<S>& omega() const { return motion.angular_velocity; }

  /// The placement at time t.
  [[nodiscard]] Transform<S> at(S t) const {
    Transform<S> tf;
    tf.translation = motion.pose.position + t * motion.linear_velocity;
    if (spin > S(0)) {
      const S half = S(0.5) * t * spin;
      const S sh = std::sin(half), ch = std::cos(half);
      tf.rotation = r0 + (S(2) * sh * ch) * kr0 + (S(2) * sh * sh) * kkr0;
    } else {
      tf.rotation = r0;
    }
    return tf;
  }
};

/// The solver for one pair of concrete core types.
template <class S, class A, class B>
class ToiSolver {
 public:
  ToiSolver(const A& a, S ra, const B& b, S rb, const Kinematics<S>& ka, const Kinematics<S>& kb,
            const ToiOptions<S>& opt)
      : a_(a), b_(b), ra_(ra), rb_(rb), ka_(ka), kb_(kb), opt_(opt) {
    vrel_ = kb.velocity() - ka.velocity();
    speed_ = vrel_.norm() + ka.spin * ka.radius + kb.spin * kb.radius;
    // Rounding of a separation: a few ulps of the largest coordinate involved.
    const S scale = std::max(ka.position().norm() + ka.velocity().norm(), kb.position().norm() + kb.velocity().norm()) +
                    ka.radius + kb.radius + ra + rb + opt.target_distance;
    slack_ = S(16) * std::numeric_limits<S>::epsilon() * scale;
    // The largest distance of d(t) = x_B(t) − x_A(t) from each spin axis's line over [0, 1]
    // (d is linear in t, its distance from a line convex: the larger end).
    const Vec3<S> d0 = kb.position() - ka.position(), d1 = d0 + vrel_;
    const S up = S(1) + S(8) * std::numeric_limits<S>::epsilon();
    for (int x = 0; x < 2; ++x) {
      const Vec3<S>& u = x == 0 ? ka.axis : kb.axis;
      dperp_[x] = std::max(d0.cross(u).norm(), d1.cross(u).norm()) * up;
      v_along_[x] = vrel_.dot(u);
      v_across_[x] = vrel_.cross(u).norm() * up;
    }
    wrel_ = (ka.omega() - kb.omega()).norm() * up;
  }

  ToiHit<S> run() {
    ToiHit<S> out;
    lo_tf_a_ = ka_.at(S(0));
    lo_tf_b_ = kb_.at(S(0));
    lo_ = distance(lo_tf_a_, lo_tf_b_);
    lo_face_ = face_of_simplex();
    lo_edge_ = lo_face_ ? EdgeModel{} : edges_of_simplex(lo_.normal, lo_tf_a_, lo_tf_b_);
    if (within(lo_)) {
      finish(out, Status::initially_overlapping, S(0), lo_, Vec3<S>::Zero());
      return out;
    }
    if (opt_.method == ToiMethod::conservative_advancement) advance(out);
    else extrude(out);
    return out;
  }

 private:
  struct Dir {
    Vec3<S> s;  // unit world direction, A toward B (frame 0); for frames 1 and 2, at creation
    Vec3<S> local;  // frame 1 (2): the direction in A's (B's) body axes, turning with that body
    int frame;  // 0: fixed in the world; 1: fixed in A; 2: fixed in B
    S lo;       // separation along s at t_lo
    S hi;       // separation along s at the time under test
    S slope;    // its predicted rate of change from t_lo (next_step's model)
    S k;        // K(s): the rotation part of its slope is within ±k
    S m;        // M(s): its curvature is at most m
    S sv;       // s·v_rel: the translation part of its slope
    S at_t = -1;   // the end of the last interval it failed to prove, and its separation there
    S at_value = 0;
  };

  /// Rotation speed of the separation along s: K(s) = |s × ωA|·rA + |s × ωB|·rB.
  S rot_speed(const Vec3<S>& s) const {
    return s.cross(ka_.omega()).norm() * ka_.radius + s.cross(kb_.omega()).norm() * kb_.radius;
  }

  /// The least value a function f on [0, dt] can take, given f(0) = lo, f(dt) = hi, a slope in
  /// [−down, up] and f'' ≤ m: the larger of the Lipschitz envelope's minimum (where the line
  /// falling at `down` from lo meets the line rising at `up` into hi) and the minimum of the
  /// parabola through both ends with curvature m (a function with f'' ≤ m lies above it).
  static S interval_floor(S lo, S hi, S dt, S down, S up, S m) {
    S lip = std::min(lo, hi);
    if (!(dt > S(0))) return lip;
    if (down > S(0) && up > S(0)) {
      const S tau = (lo - hi + up * dt) / (down + up);
      if (tau > S(0) && tau < dt) lip = std::min(lip, lo - down * tau);
    }
    S quad = std::min(lo, hi);  // m = 0: f is concave, above its chord
    if (m > S(0)) {
      const S tau = std::clamp(dt / S(2) - (hi - lo) / (m * dt), S(0), dt);
      quad = std::min(quad, lo + (hi - lo) * (tau / dt) - S(0.5) * m * tau * (dt - tau));
    }
    return std::max(lip, quad);
  }

  /// A stored direction's world vector at the given placements.
  static Vec3<S> world(const Dir& d, const Transform<S>& ta, const Transform<S>& tb) {
    if (d.frame == 0) return d.s;
    return d.frame == 1 ? Vec3<S>(ta.rotation * d.local) : Vec3<S>(tb.rotation * d.local);
  }

  /// Separation of the shapes along a stored direction at the given placements.
  S separation(const Dir& d, const Transform<S>& ta, const Transform<S>& tb) {
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
    ++stats_.direction_evals;
    const Vec3<S> pa = detail::support_with_hint<S>(a_, sa, hint_a_);
    const Vec3<S> pb = detail::support_with_hint<S>(b_, sb, hint_b_);
    return s.dot(tb.translation - ta.translation) - sb.dot(pb) - sa.dot(pa) - ra_ - rb_;
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
    return detail::world_closed_form_distance<S>(a_, ra_, pa, b_, rb_, pb);
  }

  /// GJK distance at (ta, tb), warm-started from the previous call. An answer within the window
  /// (distance ≤ target + tolerance, or touching) is confirmed by a cold GJK, whose answer is
  /// kept: in float, a warm start next to contact can end on a flat simplex and report the
  /// shapes touching while they are a few tolerances apart.
  DistanceResult<S> distance(const Transform<S>& ta, const Transform<S>& tb, bool confirm = true) {
    ++stats_.gjk_calls;
    if constexpr (kClosedForm) return closed_form_distance(ta, tb);
    DistanceResult<S> r = gjk_distance<S>(a_, ra_, ta, b_, rb_, tb, gopt_, &cache_);
    if (confirm && needs_confirmation(r, ta, tb)) r = cold_distance(ta, tb);
    return r;
  }

  /// GJK from scratch: no simplex, no axis, no hull hints.
  DistanceResult<S> cold_distance(const Transform<S>& ta, const Transform<S>& tb) {
    ++stats_.gjk_calls;
    if constexpr (kClosedForm) return closed_form_distance(ta, tb);
    cache_.count = 0;
    cache_.axis.setZero();
    cache_.hint_a = cache_.hint_b = -1;
    return gjk_distance<S>(a_, ra_, ta, b_, rb_, tb, gopt_, &cache_);
  }

  /// Which body's face GJK's last simplex lies on: 1 when it has three or more distinct points
  /// on A and one on B (a face of A against a point of B: the normal is fixed in A's axes), 2 for
  /// the converse, 0 otherwise (edges, or a cold cache).
  int face_of_simplex() const {
    auto distinct = [&](const Vec3<S>* p) {
      int n = 0;
      for (int i = 0; i < cache_.count; ++i) {
        bool seen = false;
        for (int j = 0; j < i; ++j) seen = seen || p[j] == p[i];
        n += !seen;
      }
      return n;
    };
    const int na = distinct(cache_.local_a), nb = distinct(cache_.local_b);
    return na >= 3 && nb == 1 ? 1 : nb >= 3 && na == 1 ? 2 : 0;
  }

  /// Two edges, one on each body, from GJK's last simplex (two distinct points on each): the
  /// distance between their lines, n·(p_B − p_A) with n ∥ e_A × e_B, is the distance for as long
  /// as these edges stay the closest features. `sign` orients n from A toward B.
  struct EdgeModel {
    bool valid = false;
    Vec3<S> qa, ea, qb, eb;  // a point and the direction of each edge, in its body's axes
    S sign = 1;
  };

  EdgeModel edges_of_simplex(const Vec3<S>& normal, const Transform<S>& ta, const Transform<S>& tb) const {
    EdgeModel m;
    if (cache_.count != 4 && cache_.count != 3 && cache_.count != 2) return m;
    Vec3<S> pa[2], pb[2];
    int na = 0, nb = 0;
    for (int i = 0; i < cache_.count; ++i) {
      bool seen_a = false, seen_b = false;
      for (int j = 0; j < na; ++j) seen_a = seen_a || pa[j] == cache_.local_a[i];
      for (int j = 0; j < nb; ++j) seen_b = seen_b || pb[j] == cache_.local_b[i];
      if (!seen_a && na++ < 2) pa[na - 1] = cache_.local_a[i];
      if (!seen_b && nb++ < 2) pb[nb - 1] = cache_.local_b[i];
    }
    if (na != 2 || nb != 2) return m;
    m.qa = pa[0];
    m.ea = pa[1] - pa[0];
    m.qb = pb[0];
    m.eb = pb[1] - pb[0];
    const Vec3<S> n = Vec3<S>(ta.rotation * m.ea).cross(Vec3<S>(tb.rotation * m.eb));
    if (!(n.squaredNorm() > S(1e-6) * m.ea.squaredNorm() * m.eb.squaredNorm())) return m;  // parallel edges
    m.sign = n.dot(normal) < S(0) ? S(-1) : S(1);
    m.valid = true;
    return m;
  }

  /// The edge model's distance at time t (NaN where the edges turn parallel).
  S edge_gap(const EdgeModel& m, S t) const {
    const Transform<S> ta = ka_.at(t), tb = kb_.at(t);
    const Vec3<S> n = Vec3<S>(ta.rotation * m.ea).cross(Vec3<S>(tb.rotation * m.eb));
    const S len = n.norm();
    if (!(len > S(0))) return std::numeric_limits<S>::quiet_NaN();
    return m.sign * n.dot(tb.apply(m.qb) - ta.apply(m.qa)) / len - ra_ - rb_;
  }

  /// The secant method on the edge model from a (where the distance is fa + aim and falls at
  /// −da), toward `aim`, inside (a, b): the root, or −1 when the model does not lead there.
  S edge_root(const EdgeModel& m, S a, S b, S fa, S da, S aim, S xtol) {
    if (!(da < S(0))) return -1;
    S t0 = a, f0 = fa, t1 = a - fa / da;
    for (int k = 0; k < 6; ++k) {
      if (!(t1 > a && t1 < b)) return -1;
      ++stats_.direction_evals;
      const S f1 = edge_gap(m, t1) - aim;
      if (!(std::abs(f1) < std::numeric_limits<S>::infinity())) return -1;
      if (std::abs(t1 - t0) <= xtol) return t1;
      const S slope = (f1 - f0) / (t1 - t0);
      if (!(slope < S(0))) return -1;
      const S t2 = t1 - f1 / slope;
      t0 = t1;
      f0 = f1;
      t1 = t2;
    }
    return t1 > a && t1 < b ? t1 : S(-1);
  }

  /// A GJK answer within the window is confirmed by a cold GJK in float, where a warm start next
  /// to contact can end on a flat simplex and under-report the distance by a few tolerances. In
  /// double it is confirmed only when touching or intersecting, or when its own axis does not
  /// certify it (the separation along the axis falls short of the distance by a tenth of the
  /// tolerance: GJK stopped before converging).
  bool needs_confirmation(const DistanceResult<S>& r, const Transform<S>& ta, const Transform<S>& tb) {
    if (!within(r)) return false;
    if (sizeof(S) < sizeof(double) || r.status == Status::intersecting || r.distance <= opt_.target_distance)
      return true;
    return separation(r.normal, ta, tb) < r.distance - S(0.1) * opt_.tolerance;
  }

  bool within(const DistanceResult<S>& r) const {
    return r.status == Status::intersecting || r.distance <= opt_.target_distance + opt_.tolerance;
  }

  /// Proven lower bound of sep(s, t) over an interval of length dt with sep = lo at its start
  /// and hi at its end: the slope of sep lies in s·v_rel ± K(s) and its curvature is at most M(s).
  static S lower_bound(const Dir& d, S dt) { return interval_floor(d.lo, d.hi, dt, d.k - d.sv, d.k + d.sv, d.m); }

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
    bool cold_retry = false;
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
      if (!(dt > S(0))) {
        // GJK's axis no longer proves the gap (a warm start can end on an axis a little off the
        // true one, which a gap of a few tolerances does not absorb): once, ask a cold GJK.
        if (!cold_retry) {
          cold_retry = true;
          r = cold_distance(ta, tb);
          if (within(r)) {
            finish(out, Status::hit, t, r, s);
            return;
          }
          --step;
          continue;
        }
        finish(out, Status::max_iterations, t, r, s);
        return;
      }
      cold_retry = false;
      const S next = t + dt;
      if (next > S(1)) {
        finish(out, Status::miss, S(1), r, s);
        return;
      }
      t = next;
      ta = ka_.at(t);
      tb = kb_.at(t);
      r = distance(ta, tb);
      if (within(r)) {
        finish(out, Status::hit, t, r, s);
        return;
      }
    }
  }

  /// A stored direction with its bounds, in the frame where they are tightest.
  ///
  /// Fixed in the world (frame 0): K(s) as rot_speed() and the curvature bound
  /// M(s) = |ωA|·|s × ωA|·rA + |ωB|·|s × ωB|·rB (a point y turning at ω accelerates by
  /// ω × (ω × y), whose part along s is −|ω|²·(s⊥ · y)), from the same two cross products.
  ///
  /// Turning with body X (frame 1 for A, 2 for B; Y the other body): s(t) = exp((t − t_s)·ωX)·s.
  /// X's support along s(t) is then constant, and
  ///   sep(t) = s(t)·d(t) + min over y ∈ Y of s(t)·(R_Y(t)·y) + const,   d = x_B − x_A,
  /// whose slope is (ωX × s)·d + s·v_rel + ((ωA − ωB) × s)·y (up to sign, the last with X's
  /// turning taken out). With a = s·ω̂X, s⊥ = |s × ω̂X|, D⊥ the largest distance of d from ω̂X's
  /// line over [0, 1] (d is linear in t: the endpoints), v∥, v⊥ the parts of v_rel:
  ///   slope ∈ a·v∥ ± (|ωX|·s⊥·D⊥ + s⊥·v⊥ + κ·rY),   κ = min(|ωA − ωB|, |ωX|·s⊥ + |ωY|),
  ///   curvature ≤ |ωX|·s⊥·(|ωX|·D⊥ + 2·v⊥) + rY·(|ωA − ωB|·|ωX|·s⊥ + κ·|ωY|).
  /// This wins where the other body is inside X's reach (D⊥ < rX): a fast blade's face seen
  /// from the body crossing its disc, whose approach is the blade's speed there, not at its tip.
  Dir make_dir(const Vec3<S>& s, const Transform<S>* ta, const Transform<S>* tb, S t, int face = 0,
               bool turning = true) const {
    // |s × ω̂X| for each body (0 when X does not turn: its axis is zero).
    const S across[2] = {s.cross(ka_.axis).norm(), s.cross(kb_.axis).norm()};
    Dir d{s, s, 0, 0, 0, 0, 0, 0, s.dot(vrel_)};
    d.k = ka_.spin * across[0] * ka_.radius + kb_.spin * across[1] * kb_.radius;
    d.m = ka_.spin * ka_.spin * across[0] * ka_.radius + kb_.spin * kb_.spin * across[1] * kb_.radius;
    S rate = d.k - d.sv;  // the advancement rate of the frame chosen so far
    S face_rate = std::numeric_limits<S>::infinity();
    Dir face_dir = d;
    // The paper's directions are fixed in the world: its acceptance is kept as published.
    for (int x = 0; turning && !opt_.paper_acceptance && x < 2; ++x) {
      const Kinematics<S>& kx = x == 0 ? ka_ : kb_;
      const Kinematics<S>& ky = x == 0 ? kb_ : ka_;
      if (!(kx.spin > S(0))) continue;
      const S kappa = std::min(wrel_, kx.spin * across[x] + ky.spin);
      const S fsv = s.dot(kx.axis) * v_along_[x];
      const S fk = kx.spin * across[x] * dperp_[x] + across[x] * v_across_[x] + kappa * ky.radius;
      const bool is_face = face == x + 1;
      if (!(fk - fsv < rate) && !is_face) continue;
      Dir c = d;
      c.frame = x + 1;
      c.sv = fsv;
      c.k = fk;
      c.m = kx.spin * across[x] * (kx.spin * dperp_[x] + S(2) * v_across_[x]) +
            ky.radius * (wrel_ * kx.spin * across[x] + kappa * ky.spin);
      if (is_face) {
        face_rate = fk - fsv;
        face_dir = c;
      }
      if (fk - fsv < rate) {
        rate = fk - fsv;
        d = c;
      }
    }
    // A face's normal turns with its body: prefer that frame unless its bound is much looser.
    if (face_rate <= kFaceSlack * rate) d = face_dir;
    // The direction in the chosen body's axes (its placement at t, computed only when needed).
    if (d.frame == 1) d.local = (ta ? ta->rotation : ka_.at(t).rotation).transpose() * s;
    if (d.frame == 2) d.local = (tb ? tb->rotation : kb_.at(t).rotation).transpose() * s;
    return d;
  }

  /// Stores GJK's axis s found at placements (ta, tb), with its separation at t_lo.
  void add_direction(const Vec3<S>& s, const Transform<S>& ta, const Transform<S>& tb, int face = 0) {
    add_direction(s, &ta, &tb, S(0), face);
  }

  /// The same at time t, the placements there computed only when the direction turns with a body.
  void add_direction(const Vec3<S>& s, S t, int face) { add_direction(s, nullptr, nullptr, t, face); }

  void add_direction(const Vec3<S>& s, const Transform<S>* ta, const Transform<S>* tb, S t, int face) {
    Dir d = make_dir(s, ta, tb, t, face);
    d.lo = d.hi = separation(d, lo_tf_a_, lo_tf_b_);
    store(d);
  }

  void store(const Dir& d) {
    if (!(d.lo > opt_.target_distance + slack_)) return;
    // A direction within about 0.8° of one stored in the same frame replaces it (the two would
    // prove nearly the same intervals, at twice the support calls).
    for (int i = 0; i < count_; ++i) {
      if (dirs_[i].frame == d.frame && dirs_[i].local.dot(d.local) > S(0.9999)) {
        if (d.lo > dirs_[i].lo) dirs_[i] = d;
        return;
      }
    }
    if (count_ < kMaxDirs) {
      dirs_[count_++] = d;
      return;
    }
    int worst = 0;  // replace the direction with the least separation
    for (int i = 1; i < count_; ++i)
      if (dirs_[i].lo < dirs_[worst].lo) worst = i;
    dirs_[worst] = d;
  }

  /// The advancement step from t_lo: the longest any stored direction's forward bound
  /// lo − (K − s·v_rel)·h certifies (with a 0.1% margin), at most `limit`.
  S safe_step(S limit) const {
    const S target = opt_.target_distance + slack_;
    S safe = 0;
    for (int i = 0; i < count_; ++i) {
      const S g = dirs_[i].lo - target, rate = dirs_[i].k - dirs_[i].sv;
      if (g > S(0)) safe = std::max(safe, rate > S(0) ? S(0.999) * g / rate : limit);
    }
    return std::min(limit, safe);
  }

  /// The next step to try from t_lo, at most `limit`. Each stored direction's separation is
  /// modelled as lo + slope·h (slope: from the last interval tested or passed); the longest h
  /// whose bound holds on the model with a margin (the curvature terms × 1.5) solves
  ///   g + min(0, slope)·h ≥ 1.5·min(K·h/2, M·h²/8),   g = lo − target,
  /// in closed form (either term suffices). The best direction wins, never less than the
  /// advancement step (which the bound always certifies).
  S next_step(S limit) const {
    const S target = opt_.target_distance + slack_;
    S step = 0;
    for (int i = 0; i < count_; ++i) {
      const Dir& d = dirs_[i];
      const S g = d.lo - target;
      if (!(g > S(0))) continue;
      const S k = d.k;
      const S fall = -std::min(S(0), d.slope);
      const S lin_den = S(0.75) * k + fall;
      const S lin = lin_den > S(0) ? g / lin_den : limit;
      const S a = S(3) / S(16) * d.m;  // a·h² + fall·h ≤ g
      const S disc = std::sqrt(fall * fall + S(4) * a * g);
      const S quad = fall + disc > S(0) ? S(2) * g / (fall + disc) : limit;
      step = std::max({step, lin, quad});
    }
    return std::min(limit, std::max(step, safe_step(limit)));
  }

  /// After a step of length `stepped`, the stored directions' separations at its end are their
  /// values at the new t_lo (their slopes measured over it); those no longer separating go.
  void carry_directions(S stepped) {
    int kept = 0;
    for (int i = 0; i < count_; ++i) {
      if (dirs_[i].hi > opt_.target_distance + slack_) {
        dirs_[kept] = dirs_[i];
        dirs_[kept].slope = (dirs_[i].hi - dirs_[i].lo) / stepped;
        dirs_[kept].lo = dirs_[i].hi;
        ++kept;
      }
    }
    count_ = kept;
  }

  /// Beyond the paper: along a body's spin axis its turning moves no support value, so a plane
  /// across that axis (a fan's disc) separates for as long as the bodies' translation allows.
  /// Stored at t_lo where it separates by at least half the distance (else it costs more tests
  /// than it saves): at the start both signs are tried, later only the side B's origin is on (a
  /// body that crossed the disc's plane), and only when no stored direction is that axis.
  void add_spin_axes(bool both_signs) {
    const S useful = opt_.target_distance + std::max(slack_, S(0.5) * (lo_.distance - opt_.target_distance));
    const Vec3<S> d = lo_tf_b_.translation - lo_tf_a_.translation;
    const S reach = ka_.radius + kb_.radius + ra_ + rb_;
    for (const Vec3<S>* axis : {&ka_.axis, &kb_.axis}) {
      if (!(axis->squaredNorm() > S(0))) continue;
      const S side = d.dot(*axis) < S(0) ? S(-1) : S(1);
      // The separation along ±u is at most |d·u| + the reaches: no support calls where that is short.
      if (!both_signs && !(std::abs(d.dot(*axis)) + reach > useful)) continue;
      for (const S sign : {side, -side}) {
        const Vec3<S> u = sign * *axis;
        bool stored = false;
        for (int i = 0; i < count_ && !both_signs; ++i) stored = stored || (dirs_[i].frame == 0 && dirs_[i].s.dot(u) > S(0.9999));
        if (stored) break;
        const S along = separation(u, lo_tf_a_, lo_tf_b_);
        if (along > useful) {
          Dir d = make_dir(u, nullptr, nullptr, S(0), 0, false);  // fixed in both frames: the world's bounds
          d.lo = d.hi = along;
          store(d);
          const Kinematics<S>& kx = axis == &ka_.axis ? ka_ : kb_;
          const Kinematics<S>& ky = axis == &ka_.axis ? kb_ : ka_;
          fan_ = fan_ || kx.spin * kx.radius > S(2) * (vrel_.norm() + ky.spin * ky.radius);
          break;
        }
        if (!both_signs) break;
      }
    }
  }

  /// Vlack & Tachi's extrusion test with Brent's method, on intervals [t_lo, t_try].
  ///
  /// Paper mode: the stored directions accept an interval when one separates at both ends, and
  /// Brent's method on their largest supporting distance F picks the next t_x. Conservative mode
  /// (default) accepts only what the rotation bound proves, and where the stored directions
  /// see the gap close it checks with GJK: contact found at t_c brackets the first contact in
  /// [t_lo, t_c], which Brent's method then narrows on the exact distance; the intervals up to
  /// Brent's root are then proven free one by one, each as long as the bound allows.
  void extrude(ToiHit<S>& out) {
    const S target = opt_.target_distance;
    const S aim = target + opt_.tolerance / S(2);  // Brent aims inside the accepted window
    const bool paper = opt_.paper_acceptance;
    const S xtol = std::max(opt_.tolerance / (S(4) * std::max(speed_, std::numeric_limits<S>::min())),
                            S(8) * std::numeric_limits<S>::epsilon());
    S t_lo = 0;
    add_direction(lo_.normal, lo_tf_a_, lo_tf_b_, face_of_simplex());
    if (!paper) {
      // Beyond the paper: along a body's spin axis its turning moves no support value, so a plane
      // across that axis (a fan's disc) separates for as long as the bodies' translation allows.
      // Kept only where it separates by at least half the distance (else it costs more tests
      // than it saves).
      add_spin_axes(true);
    }
    S t_try = 1;
    S t_c = 2;     // a time where GJK found the shapes within the target (2: none yet)
    S cand = -1;   // a time past t_lo where GJK found them apart; its axis is stored
    // With a spin axis stored (a fan's disc ahead), GJK at t = 1 rarely settles [0, 1]: skipped.
    bool far_end_tried = paper || fan_;
    int certified_by = 0;
    S stepped = 0;  // the length of the last interval passed
    S prev_t = -1, prev_d = 0;  // the previous t_lo and its exact distance
    int failed_proposals = 0, safe_runs = 0;
    bool proposing = false;     // t_try is a step the model proposed (a rejection falls back to the safe step)
    for (;;) {
      if (stats_.interval_tests >= opt_.max_iterations || count_ == 0) {
        give_up(out, t_lo);
        return;
      }
      ++stats_.interval_tests;
      const S dt = t_try - t_lo;
      // A time tested before (a candidate the chain of steps keeps aiming at): its placements,
      // and the separations of the directions evaluated there, are known.
      const bool again = t_try == failed_t_;
      const Transform<S> ta = again ? failed_a_ : ka_.at(t_try), tb = again ? failed_b_ : kb_.at(t_try);
      S best = -std::numeric_limits<S>::infinity(), f_try = best;
      for (int i = 0; i < count_; ++i) {
        dirs_[i].hi = again && dirs_[i].at_t == t_try ? dirs_[i].at_value : separation(dirs_[i], ta, tb);
        f_try = std::max(f_try, dirs_[i].hi);
        const S lb = paper ? dirs_[i].hi : lower_bound(dirs_[i], dt);
        if (lb > best) {
          best = lb;
          certified_by = i;
        }
      }
      const bool accepted = paper ? best > target : best > target + slack_;
      if (!accepted) {
        failed_t_ = t_try;
        failed_a_ = ta;
        failed_b_ = tb;
        for (int i = 0; i < count_; ++i) {
          dirs_[i].at_t = t_try;
          dirs_[i].at_value = dirs_[i].hi;
        }
      }
      if (accepted) {
        if (t_try >= S(1)) {
          stats_.photo_finish = stats_.interval_tests > 1;
          finish(out, Status::miss, S(1), lo_, Vec3<S>::Zero());
          return;
        }
        // No contact on [t_lo, t_try]: move there, with GJK's exact distance and axis.
        const Vec3<S> fallback = world(dirs_[certified_by], ta, tb);
        if (proposing) failed_proposals = 0;
        stepped = t_try - t_lo;
        t_lo = t_try;
        lo_tf_a_ = ta;
        lo_tf_b_ = tb;
        // Where the certifying direction kept at least a quarter of its separation and stays
        // above the window, no contact is near: the stored directions carry on without GJK
        // (ensure_exact() runs it where narrowing or Brent's step needs the exact distance at
        // t_lo). Measured on the benchmark scenes: 0.25 beat 1, 0.8, 0.5 and 0 (always skip).
        const Dir& cert = dirs_[certified_by];
        if (!paper && t_lo != window_t_ && cert.hi >= S(0.25) * cert.lo && cert.hi > target + opt_.tolerance &&
            !(cand <= t_lo && t_c <= S(1))) {
          lo_exact_ = false;
          carry_directions(stepped);
          const S end = cand > t_lo ? cand : S(1);
          const S h = next_step(end - t_lo);
          proposing = h < end - t_lo;
          t_try = proposing ? t_lo + h : end;
          continue;
        }
        // Narrowing's probe inside the window was GJK at this very time: only its confirmation
        // is left to do.
        lo_exact_ = true;
        lo_ = t_lo == window_t_ ? window_r_ : distance(ta, tb, false);
        int lo_face = t_lo == window_t_ ? window_face_ : face_of_simplex();
        lo_edge_ = t_lo == window_t_ || lo_face ? EdgeModel{} : edges_of_simplex(lo_.normal, ta, tb);
        if (needs_confirmation(lo_, ta, tb)) {
          lo_ = cold_distance(ta, tb);
          lo_face = face_of_simplex();
          lo_edge_ = lo_face ? EdgeModel{} : edges_of_simplex(lo_.normal, ta, tb);
        }
        if (within(lo_)) {
          finish(out, Status::hit, t_lo, lo_, fallback);
          return;
        }
        carry_directions(stepped);
        lo_face_ = lo_face;
        add_direction(lo_.normal, ta, tb, lo_face);
        if (!paper) add_spin_axes(false);
        if (!paper && cand <= t_lo && t_c > S(1) && prev_t < t_lo && lo_.distance < prev_d) {
          // Marching toward contact: the secant through the last two exact distances predicts it.
          const int r = secant(t_lo, prev_t, prev_d, t_lo, lo_.distance, 1, t_c, cand, t_try, aim, xtol);
          if (r < 0) {
            give_up(out, t_lo);
            return;
          }
          if (r > 0) {
            proposing = false;
            prev_t = t_lo;
            prev_d = lo_.distance;
            continue;
          }
        }
        prev_t = t_lo;
        prev_d = lo_.distance;
        if (cand <= t_lo && t_c <= S(1)) {
          proposing = false;
          if (!narrow(t_lo, t_c, cand, t_try, aim, xtol)) {
            give_up(out, t_lo);
            return;
          }
        } else {
          // Toward the pending candidate (or t = 1), as far as the directions' model allows.
          const S end = cand > t_lo ? cand : S(1);
          if (!paper && failed_proposals > 0 && safe_runs < 4) {
            // Marching where the model's proposals keep failing: straight to the advancement step
            // (the model is asked again every fifth step).
            ++safe_runs;
            proposing = false;
            t_try = t_lo + safe_step(end - t_lo);
          } else {
            safe_runs = 0;
            const S h = paper ? end - t_lo : next_step(end - t_lo);
            proposing = h < end - t_lo;
            t_try = proposing ? t_lo + h : end;
          }
        }
        continue;
      }
      // Beyond the paper: GJK's axis at t = 1 often separates at t = 0 too (bodies passing each
      // other), which settles [0, 1] in one more test.
      if (!far_end_tried) {
        far_end_tried = true;
        proposing = false;
        const DistanceResult<S> r1 = distance(ta, tb, false);
        if (r1.status == Status::intersecting || r1.distance <= target) {
          t_c = t_try;
        } else {
          const int before = count_;
          add_direction(r1.normal, ta, tb, face_of_simplex());
          if (count_ != before) continue;
        }
      }
      if (!paper && t_c <= t_try) {
        proposing = false;
        if (!ensure_exact(out, t_lo)) return;
        // Contact is known at t_c within the rejected interval: Brent's method on the distance.
        if (!narrow(t_lo, t_c, cand, t_try, aim, xtol)) {
          give_up(out, t_lo);
          return;
        }
        continue;
      }
      S f_lo = -std::numeric_limits<S>::infinity();
      for (int i = 0; i < count_; ++i) f_lo = std::max(f_lo, dirs_[i].lo);
      // Beyond the paper: Brent's method on F only where F falls mostly by translation; where
      // turning dominates (K·Δt above F's fall), F's root says little about contact and the
      // bound's steps below go faster.
      bool linearish = true;
      if (!paper) {
        S kmax = 0;
        for (int i = 0; i < count_; ++i) kmax = std::max(kmax, dirs_[i].k);
        linearish = kmax * dt < f_lo - f_try;
      }
      if (linearish && f_try < aim && f_lo > aim && (paper || (cand <= t_lo && t_c > S(1)))) {
        // The stored directions see the gap close before t_try: Brent's method on their largest
        // supporting distance picks t_x, on the safe side of its root (the paper's step).
        auto f = [&](S t) {
          const Transform<S> fa = ka_.at(t), fb = kb_.at(t);
          S m = -std::numeric_limits<S>::infinity();
          for (int i = 0; i < count_; ++i) m = std::max(m, separation(dirs_[i], fa, fb));
          return m - aim;
        };
        const auto root = detail::brent_root<S>(f, t_lo, f_lo - aim, t_try, f_try - aim, xtol, 60);
        stats_.brent_evals += root.evaluations;
        const S t_x = root.positive > t_lo ? root.positive : t_lo + S(0.5) * (root.negative - t_lo);
        if (!(t_x > t_lo && t_x < t_try)) {
          give_up(out, t_lo);
          return;
        }
        t_try = t_x;
        proposing = false;
        if (!paper) {
          if (!ensure_exact(out, t_lo)) return;
          // Beyond the paper: is the gap really closed at t_x? A stored direction underestimates
          // the gap (its support runs to the tip of a turning edge).
          const Transform<S> xa = ka_.at(t_x), xb = kb_.at(t_x);
          const DistanceResult<S> rx = distance(xa, xb, false);
          if (rx.status == Status::intersecting || rx.distance <= target) {
            t_c = t_x;
            if (!narrow(t_lo, t_c, cand, t_try, aim, xtol)) {
              give_up(out, t_lo);
              return;
            }
          } else {
            add_direction(rx.normal, xa, xb, face_of_simplex());
            cand = t_x;
            // The secant through the exact distances at t_lo and t_x predicts contact; if GJK
            // confirms it, the first contact is bracketed.
            if (secant(t_lo, t_lo, lo_.distance, t_x, rx.distance, 3, t_c, cand, t_try, aim, xtol) < 0) {
              give_up(out, t_lo);
              return;
            }
          }
        }
        continue;
      }
      // The stored directions keep the shapes apart at t_try, but the rotation bound cannot
      // prove the whole interval: try the longest step the bound should certify.
      for (int i = 0; i < count_; ++i) dirs_[i].slope = (dirs_[i].hi - dirs_[i].lo) / dt;
      if (proposing) ++failed_proposals;
      // A rejected proposal falls back to the advancement step, which the bound always passes.
      S step = paper ? dt / S(2) : proposing ? safe_step(dt) : next_step(dt);
      proposing = !paper && !proposing;
      if (!(step < dt)) step = dt / S(2);
      t_try = t_lo + step;
      if (!(t_try > t_lo)) {  // no representable progress: report the proven bound
        give_up(out, t_lo);
        return;
      }
    }
  }

  /// GJK at t_lo where the last step skipped it (the stored directions carried on): lo_ exact,
  /// its axis stored. False (and `out` finished as a hit) when the shapes are within the window.
  bool ensure_exact(ToiHit<S>& out, S t_lo) {
    if (lo_exact_) return true;
    lo_exact_ = true;
    lo_ = distance(lo_tf_a_, lo_tf_b_, false);
    lo_face_ = face_of_simplex();
    lo_edge_ = lo_face_ ? EdgeModel{} : edges_of_simplex(lo_.normal, lo_tf_a_, lo_tf_b_);
    if (needs_confirmation(lo_, lo_tf_a_, lo_tf_b_)) {
      lo_ = cold_distance(lo_tf_a_, lo_tf_b_);
      lo_face_ = face_of_simplex();
      lo_edge_ = lo_face_ ? EdgeModel{} : edges_of_simplex(lo_.normal, lo_tf_a_, lo_tf_b_);
    }
    if (within(lo_)) {
      finish(out, Status::hit, t_lo, lo_, lo_.normal);
      return false;
    }
    add_direction(lo_.normal, lo_tf_a_, lo_tf_b_, lo_face_);
    return true;
  }

  /// The iteration cap or a bracket that cannot be narrowed: t_lo is a proven lower bound.
  void give_up(ToiHit<S>& out, S t_lo) {
    if (ensure_exact(out, t_lo)) finish(out, Status::max_iterations, t_lo, lo_, Vec3<S>::Zero());
  }

  /// Secant probes on the exact distance through (t0, d0) and (t1, d1), at most `probes` GJK calls,
  /// each aiming inside the window. A probe that finds contact brackets the first one in
  /// [t_lo, probe] and hands over to narrow(); the first probe that finds the shapes apart becomes
  /// `cand` (its axis stored) unless a candidate is pending. Returns 1 when narrow() set t_try,
  /// 0 when no contact was found, −1 when narrowing failed.
  int secant(S t_lo, S t0, S d0, S t1, S d1, int probes, S& t_c, S& cand, S& t_try, S aim, S xtol) {
    const S target = opt_.target_distance;
    for (int k = 0; k < probes && d0 > d1; ++k) {
      const S tp = std::min(S(1), t1 + (d1 - aim) * (t1 - t0) / (d0 - d1));
      if (!(tp > t1)) break;
      const Transform<S> pa = ka_.at(tp), pb = kb_.at(tp);
      const DistanceResult<S> rp = distance(pa, pb, false);
      if (rp.status == Status::intersecting || rp.distance <= target) {
        t_c = tp;
        return narrow(t_lo, t_c, cand, t_try, aim, xtol) ? 1 : -1;
      }
      if (cand <= t_lo) {
        cand = tp;
        add_direction(rp.normal, pa, pb, face_of_simplex());
      }
      if (tp >= S(1)) break;
      t0 = t1;
      d0 = d1;
      t1 = tp;
      d1 = rp.distance;
    }
    return 0;
  }

  /// The separation along a stored direction at time t, and its rate of change there: the
  /// support points held fixed on their bodies (the envelope theorem), a turning direction turning.
  S separation_rate(const Dir& d, S t, S& rate) {
    ++stats_.direction_evals;
    const Transform<S> ta = ka_.at(t), tb = kb_.at(t);
    const Vec3<S> s = world(d, ta, tb);
    const Vec3<S> oa = ta.rotation * detail::support_with_hint<S>(a_, Vec3<S>(ta.rotation.transpose() * s), hint_a_);
    const Vec3<S> ob = tb.rotation * detail::support_with_hint<S>(b_, Vec3<S>(tb.rotation.transpose() * -s), hint_b_);
    const Vec3<S> gap = tb.translation - ta.translation + ob - oa;
    const Vec3<S> turn = d.frame == 1 ? ka_.omega().cross(s) : d.frame == 2 ? kb_.omega().cross(s) : Vec3<S>::Zero();
    rate = turn.dot(gap) + s.dot(vrel_ + kb_.omega().cross(ob) - ka_.omega().cross(oa));
    return s.dot(gap) - ra_ - rb_;
  }

  /// Newton's method on the separation along d (a model of the distance), from a toward its
  /// value `aim`, inside (a, b): the root, or −1 when the model does not lead there.
  /// At a the model is GJK's distance there (fa + aim) and falls at −da (the same rate: the
  /// direction is GJK's axis), so the first step needs no evaluation.
  S model_root(const Dir& d, S a, S b, S fa, S da, S aim, S xtol) {
    S t = a, f = fa, rate = da;
    for (int k = 0; k < 6; ++k) {
      if (!(rate < S(0))) return -1;
      const S next = t - f / rate;
      if (!(next > a && next < b)) return -1;
      if (std::abs(next - t) <= xtol) return next;
      t = next;
      f = separation_rate(d, t, rate) - aim;
    }
    return t;
  }

  /// Narrows [t_lo, t_c] on the exact distance (GJK at t_lo: apart by more than the window; at
  /// t_c: within the target) by safeguarded Newton steps (see the loop). Where GJK finds the
  /// shapes within the target, the function is continued below zero by the separation along the
  /// last separating axis (a signed stand-in for the penetration, which GJK does not measure), so
  /// false position works on both sides. Stops once a probe lands inside the window; sets `cand`
  /// and `t_try` there, stores GJK's axis, and moves t_c to the contact side. False when the
  /// bracket cannot be narrowed.
  bool narrow(S t_lo, S& t_c, S& cand, S& t_try, S aim, S xtol) {
    const S target = opt_.target_distance;
    DistanceResult<S> best = lo_;
    S t_best = t_lo;
    int best_face = 0;
    DistanceResult<S> in_window;
    S t_window = -1;  // a probe inside the window (target, target + 0.95·tolerance]
    Vec3<S> axis = lo_.normal;
    S rate = 0;  // the distance's rate of change at the last probe that found the shapes apart
    // The model of the distance near an apart probe: the separation along GJK's axis there, in
    // the frame make_dir() picks (a face's normal turns with its body, so that this separation is
    // the distance for as long as the closest features last).
    Dir model = make_dir(lo_.normal, &lo_tf_a_, &lo_tf_b_, t_lo, lo_face_);
    EdgeModel edge = lo_edge_;
    auto g = [&](S t) {
      const Transform<S> ta = ka_.at(t), tb = kb_.at(t);
      const DistanceResult<S> r = distance(ta, tb, false);
      if (r.status != Status::intersecting && r.distance > target) {
        axis = r.normal;
        rate = distance_rate(r, t);
        const int face = face_of_simplex();
        model = make_dir(r.normal, &ta, &tb, t, face);
        edge = face ? EdgeModel{} : edges_of_simplex(r.normal, ta, tb);
        if (t > t_best) {
          t_best = t;
          best = r;
          best_face = face_of_simplex();
        }
        if (r.distance <= target + S(0.95) * opt_.tolerance && r.distance >= target + S(0.05) * opt_.tolerance) {
          t_window = t;
          in_window = r;
          window_face_ = face_of_simplex();
        }
        return r.distance - aim;
      }
      return std::min(separation(axis, ta, tb), target) - aim;
    };
    // At t_c the shapes are known to be within the target: only the continuation is needed.
    S b = t_c;
    S fb = std::min(std::min(separation(axis, ka_.at(t_c), kb_.at(t_c)), target) - aim, -opt_.tolerance / S(4));
    S a = t_lo, fa = lo_.distance - aim, da = distance_rate(lo_, t_lo);
    S ap = t_lo, dap = da;  // the previous apart end and its rate
    // Newton's method on the distance from the apart side (its rate from the witness points'
    // velocities), safeguarded by the bracket: false position when Newton leaves it or was just
    // used from the same point, bisection when the bracket stops halving.
    bool fresh = true;  // a moved since the last Newton step
    int evals = 0, slow = 0;
    while (t_window < S(0) && b - a > xtol && evals < 60) {
      const S width = b - a;
      S x = -1;
      bool modelled = false;
      if (fresh && model.frame != 0) {
        x = model_root(model, a, b, fa, da, aim, xtol);
        modelled = x > a && x < b;
      } else if (fresh && edge.valid) {
        x = edge_root(edge, a, b, fa, da, aim, xtol);
        modelled = x > a && x < b;
      }
      if (!modelled && fresh && da < S(0)) {
        // The rate's change since the previous apart probe gives a curvature c; the root of
        // fa + da·h + c·h² (stable form) corrects Newton's overshoot where the approach speeds up.
        S h = -fa / da;
        if (ap < a) {
          const S c = S(0.5) * (da - dap) / (a - ap);
          const S disc = da * da - S(4) * c * fa;
          if (disc >= S(0)) h = S(2) * fa / (-da + std::sqrt(disc));
        }
        x = a + h;
      }
      if (!(x > a && x < b)) x = a + fa * (b - a) / (fa - fb);
      if (!(x > a && x < b) || (slow >= 2 && !modelled)) {
        x = S(0.5) * (a + b);
        slow = 0;
      }
      fresh = false;
      const S fx = g(x);
      ++evals;
      if (fx > S(0)) {
        ap = a;
        dap = da;
        a = x;
        fa = fx;
        da = rate;
        fresh = true;
      } else {
        b = x;
        fb = fx;
      }
      slow = b - a > S(0.5) * width ? slow + 1 : 0;
    }
    stats_.brent_evals += evals;
    if (t_window > t_lo) {
      // A probe landed inside the window: the answer, once the intervals before it are proven.
      cand = t_try = t_window;
      window_t_ = t_window;
      window_r_ = in_window;
      add_direction(in_window.normal, t_window, window_face_);
      return true;
    }
    t_c = b;
    if (!(a > t_lo)) {
      cand = -1;
      t_try = t_lo + S(0.5) * (t_c - t_lo);
      return t_try > t_lo;
    }
    if (t_best != a) {
      best = distance(ka_.at(a), kb_.at(a), false);
      best_face = face_of_simplex();
    }
    cand = t_try = a;
    if (best.status != Status::intersecting)
      add_direction(best.normal, a, best_face);
    return true;
  }

  /// The rate of change of the distance at t, from the velocities of the witness points as points
  /// of their bodies (by the envelope theorem, the distance's derivative where the closest
  /// features are unique).
  S distance_rate(const DistanceResult<S>& r, S t) const {
    const Vec3<S> ca = ka_.position() + t * ka_.velocity(), cb = kb_.position() + t * kb_.velocity();
    const Vec3<S> va = ka_.velocity() + ka_.omega().cross(r.point_a - ca);
    const Vec3<S> vb = kb_.velocity() + kb_.omega().cross(r.point_b - cb);
    return r.normal.dot(vb - va);
  }

  static constexpr int kMaxDirs = 8;
  static constexpr S kFaceSlack = S(2);

  const A& a_;
  const B& b_;
  S ra_, rb_;
  Kinematics<S> ka_, kb_;
  ToiOptions<S> opt_;
  GjkOptions<S> gopt_{.wide_retry = false};  // its own bounds certify its answers (see GjkOptions)
  GjkCache<S> cache_;
  int hint_a_ = -1, hint_b_ = -1;
  Vec3<S> vrel_;
  S speed_ = 0, slack_ = 0;
  // For directions turning with a body (make_dir), per body X (0: A, 1: B): the largest distance
  // of x_B − x_A from X's spin axis over [0, 1], and v_rel's parts along and across that axis;
  // and |ωA − ωB|.
  S dperp_[2] = {0, 0}, v_along_[2] = {0, 0}, v_across_[2] = {0, 0};
  S wrel_ = 0;
  ToiStats stats_;
  Dir dirs_[kMaxDirs];
  int count_ = 0;
  Transform<S> lo_tf_a_, lo_tf_b_;
  DistanceResult<S> lo_;
  S window_t_ = -1;               ///< narrow()'s probe inside the window, and GJK's answer there
  DistanceResult<S> window_r_;
  int window_face_ = 0;
  int lo_face_ = 0;  ///< face_of_simplex() of the GJK answer lo_
  S failed_t_ = -1;  ///< the end of the last interval that failed its test, and the placements there
  Transform<S> failed_a_, failed_b_;
  bool lo_exact_ = true;
  bool fan_ = false;  ///< lo_ is GJK's answer at t_lo (false: from an earlier time)
  EdgeModel lo_edge_;  ///< edges_of_simplex() of the GJK answer lo_
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
    if (auto e = detail::check_vector(ma.linear_velocity, "motion_a.linear_velocity"); !e.empty()) out.error = e;
    else if (auto e = detail::check_vector(ma.angular_velocity, "motion_a.angular_velocity"); !e.empty()) out.error = e;
    else if (auto e = detail::check_vector(mb.linear_velocity, "motion_b.linear_velocity"); !e.empty()) out.error = e;
    else if (auto e = detail::check_vector(mb.angular_velocity, "motion_b.angular_velocity"); !e.empty()) out.error = e;
    else if (auto e = detail::check_scalar(opt.target_distance, "target_distance"); !e.empty()) out.error = e;
    else if (auto e = detail::check_scalar(opt.tolerance, "tolerance", true); !e.empty()) out.error = e;
    else out.error = "max_iterations: must be at least 1";
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
  using C = detail::GjkCompute<S>;
  const Vec3<C> origin = ma.pose.position.template cast<C>();
  const auto widen = [](const Motion<S>& m, const Vec3<C>& position) {
    Motion<C> w;
    w.pose = m.pose.template cast<C>();
    w.pose.position = position;
    w.linear_velocity = m.linear_velocity.template cast<C>();
    w.angular_velocity = m.angular_velocity.template cast<C>();
    return w;
  };
  const Kinematics<C> ka(widen(ma, Vec3<C>::Zero()), C(core_radius(a, ca.radius)));
  const Kinematics<C> kb(widen(mb, mb.pose.position.template cast<C>() - origin), C(core_radius(b, cb.radius)));
  const ToiOptions<C> wide{opt.method, C(opt.target_distance), C(opt.tolerance), opt.paper_acceptance, opt.max_iterations};
  const ToiHit<C> hit = detail::visit_core(ca, [&](const auto& x) {
    return detail::visit_core(cb, [&](const auto& y) {
      const auto run = [&](const auto& px, const auto& py) {
        using X = std::decay_t<decltype(px)>;
        using Y = std::decay_t<decltype(py)>;
        ToiSolver<C, X, Y> solver(px, C(ca.radius), py, C(cb.radius), ka, kb, wide);
        return solver.run();
      };
      if constexpr (std::is_same_v<C, S>)
        return run(x, y);
      else
        return run(detail::promote<C, S>(x), detail::promote<C, S>(y));
    });
  });
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

}  // namespace impact
