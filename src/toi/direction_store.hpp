#pragma once
// impact — toi/direction_store.hpp: the extrusion test's stored directions (GJK's separating
// axes, and spin axes) with the bounds that make their separations proofs under rotation: how
// fast each can fall and bend, the lower bound over an interval, the step each certifies
// (docs/toi.md, "The bound").
#include "detail/advancement_bound.hpp"
#include "toi/kinematics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace impact::toi {

/// A direction along which the separation of the two shapes is tracked, with its bounds.
template <class S>
struct Direction {
  Vec3<S> s;      ///< unit world direction, A toward B (frame 0); for frames 1 and 2, at creation
  Vec3<S> local;  ///< frame 1 (2): the direction in A's (B's) body axes, turning with that body
  int frame;      ///< 0: fixed in the world; 1: fixed in A; 2: fixed in B
  S lo;           ///< separation along s at t_lo
  S hi;           ///< separation along s at the time under test
  S slope;        ///< its predicted rate of change from t_lo (next_step's model)
  S k;            ///< K(s): the rotation part of its slope is within ±k
  S m;            ///< M(s): its curvature is at most m
  S sv;           ///< s·v_rel: the translation part of its slope
  S at_t = -1;    ///< the end of the last interval it failed to prove, and its separation there
  S at_value = 0;
};

/// The least value a function f on [0, dt] can take, given f(0) = lo, f(dt) = hi, a slope in
/// [−down, up] and f'' ≤ m: the larger of the Lipschitz envelope's minimum (where the line
/// falling at `down` from lo meets the line rising at `up` into hi) and the minimum of the
/// parabola through both ends with curvature m (a function with f'' ≤ m lies above it).
template <class S>
S interval_floor(S lo, S hi, S dt, S down, S up, S m) {
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

/// Proven lower bound of sep(s, t) over an interval of length dt with sep = lo at its start
/// and hi at its end: the slope of sep lies in s·v_rel ± K(s) and its curvature is at most M(s).
template <class S>
S lower_bound(const Direction<S>& d, S dt) {
  return interval_floor(d.lo, d.hi, dt, detail::approach_speed(d.k, d.sv), d.k + d.sv, d.m);
}

/// A stored direction's world vector at the given placements.
template <class S>
Vec3<S> world_direction(const Direction<S>& d, const Transform<S>& ta, const Transform<S>& tb) {
  if (d.frame == 0) return d.s;
  return d.frame == 1 ? Vec3<S>(ta.rotation * d.local) : Vec3<S>(tb.rotation * d.local);
}

/// Up to kMaxDirs directions, each in the frame where its bound is tightest.
template <class S>
class DirectionStore {
 public:
  static constexpr int kMaxDirs = 8;
  /// A face's normal turns with its body: that frame is kept unless its advancement rate is more
  /// than this factor above the best frame's (dimensionless).
  static constexpr S kFaceSlack = S(2);
  /// Two directions in one frame closer than this cosine (about 0.8°) prove nearly the same
  /// intervals at twice the support calls: the better one is kept.
  static constexpr S kSameDirection = S(0.9999);

  /// `floor`: the separation a direction must exceed to be worth storing (target + slack).
  DirectionStore(const Kinematics<S>& ka, const Kinematics<S>& kb, const RelativeMotion<S>& rel, S floor, bool paper)
      : ka_(ka), kb_(kb), rel_(rel), floor_(floor), paper_(paper) {}

  [[nodiscard]] int size() const { return count_; }
  Direction<S>& operator[](int i) { return dirs_[i]; }
  const Direction<S>& operator[](int i) const { return dirs_[i]; }

  /// A direction s with its bounds, in the frame where they are tightest (not yet stored: its
  /// separations are the caller's to fill in).
  ///
  /// Fixed in the world (frame 0): K(s) as rotation_speed() and the curvature bound
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
  ///
  /// `face` (1: A, 2: B) names a body whose face the direction is the normal of; `turning` false
  /// keeps the direction fixed in the world. The placements at t are computed only when needed.
  Direction<S> make(const Vec3<S>& s, const Transform<S>* ta, const Transform<S>* tb, S t, int face = 0,
                    bool turning = true) const {
    // |s × ω̂X| for each body (0 when X does not turn: its axis is zero).
    const S across[2] = {s.cross(ka_.axis).norm(), s.cross(kb_.axis).norm()};
    Direction<S> d{s, s, 0, 0, 0, 0, 0, 0, s.dot(rel_.vrel)};
    d.k = ka_.spin * across[0] * ka_.radius + kb_.spin * across[1] * kb_.radius;
    d.m = ka_.spin * ka_.spin * across[0] * ka_.radius + kb_.spin * kb_.spin * across[1] * kb_.radius;
    S rate = detail::approach_speed(d.k, d.sv);  // the advancement rate of the frame chosen so far
    S face_rate = std::numeric_limits<S>::infinity();
    Direction<S> face_dir = d;
    // The paper's directions are fixed in the world: its acceptance is kept as published.
    for (int x = 0; turning && !paper_ && x < 2; ++x) {
      const Kinematics<S>& kx = x == 0 ? ka_ : kb_;
      const Kinematics<S>& ky = x == 0 ? kb_ : ka_;
      if (!(kx.spin > S(0))) continue;
      const S kappa = std::min(rel_.wrel, kx.spin * across[x] + ky.spin);
      const S fsv = s.dot(kx.axis) * rel_.v_along[x];
      const S fk = kx.spin * across[x] * rel_.dperp[x] + across[x] * rel_.v_across[x] + kappa * ky.radius;
      const S frame_rate = detail::approach_speed(fk, fsv);  // the advancement rate in this frame
      const bool is_face = face == x + 1;
      if (!(frame_rate < rate) && !is_face) continue;
      Direction<S> c = d;
      c.frame = x + 1;
      c.sv = fsv;
      c.k = fk;
      c.m = kx.spin * across[x] * (kx.spin * rel_.dperp[x] + S(2) * rel_.v_across[x]) +
            ky.radius * (rel_.wrel * kx.spin * across[x] + kappa * ky.spin);
      if (is_face) {
        face_rate = frame_rate;
        face_dir = c;
      }
      if (frame_rate < rate) {
        rate = frame_rate;
        d = c;
      }
    }
    if (face_rate <= kFaceSlack * rate) d = face_dir;
    if (d.frame == 1) d.local = (ta ? ta->rotation : ka_.at(t).rotation).transpose() * s;
    if (d.frame == 2) d.local = (tb ? tb->rotation : kb_.at(t).rotation).transpose() * s;
    return d;
  }

  /// Keeps d if it separates at t_lo: replacing a near-duplicate in its frame (the better one
  /// stays), or the least separating direction when the store is full.
  void store(const Direction<S>& d) {
    if (!(d.lo > floor_)) return;
    for (int i = 0; i < count_; ++i) {
      if (dirs_[i].frame == d.frame && dirs_[i].local.dot(d.local) > kSameDirection) {
        if (d.lo > dirs_[i].lo) dirs_[i] = d;
        return;
      }
    }
    if (count_ < kMaxDirs) {
      dirs_[count_++] = d;
      return;
    }
    int worst = 0;
    for (int i = 1; i < count_; ++i)
      if (dirs_[i].lo < dirs_[worst].lo) worst = i;
    dirs_[worst] = d;
  }

  /// Whether a world-fixed direction within kSameDirection of u is stored.
  [[nodiscard]] bool holds_world(const Vec3<S>& u) const {
    bool stored = false;
    for (int i = 0; i < count_; ++i) stored = stored || (dirs_[i].frame == 0 && dirs_[i].s.dot(u) > kSameDirection);
    return stored;
  }

  /// The advancement step from t_lo: the longest any stored direction's forward bound
  /// lo − (K − s·v_rel)·h certifies (with a 0.1% margin), at most `limit`.
  [[nodiscard]] S safe_step(S limit) const {
    S safe = 0;
    for (int i = 0; i < count_; ++i) {
      const S g = dirs_[i].lo - floor_, rate = detail::approach_speed(dirs_[i].k, dirs_[i].sv);
      if (g > S(0)) safe = std::max(safe, rate > S(0) ? detail::advance_time(kSafeMargin * g, rate) : limit);
    }
    return std::min(limit, safe);
  }

  /// The next step to try from t_lo, at most `limit`. Each stored direction's separation is
  /// modelled as lo + slope·h (slope: from the last interval tested or passed); the longest h
  /// whose bound holds on the model with a margin (the curvature terms × 1.5) solves
  ///   g + min(0, slope)·h ≥ 1.5·min(K·h/2, M·h²/8),   g = lo − target,
  /// in closed form (either term suffices). The best direction wins, never less than the
  /// advancement step (which the bound always certifies).
  [[nodiscard]] S next_step(S limit) const {
    S step = 0;
    for (int i = 0; i < count_; ++i) {
      const Direction<S>& d = dirs_[i];
      const S g = d.lo - floor_;
      if (!(g > S(0))) continue;
      const S k = d.k;
      const S fall = -std::min(S(0), d.slope);
      const S lin_den = S(0.75) * k + fall;  // 1.5 · K/2
      const S lin = lin_den > S(0) ? g / lin_den : limit;
      const S a = S(3) / S(16) * d.m;  // 1.5 · M/8: a·h² + fall·h ≤ g
      const S disc = std::sqrt(fall * fall + S(4) * a * g);
      const S quad = fall + disc > S(0) ? S(2) * g / (fall + disc) : limit;
      step = std::max({step, lin, quad});
    }
    return std::min(limit, std::max(step, safe_step(limit)));
  }

  /// After a step of length `stepped`, the stored directions' separations at its end are their
  /// values at the new t_lo (their slopes measured over it); those no longer separating go.
  void carry(S stepped) {
    int kept = 0;
    for (int i = 0; i < count_; ++i) {
      if (dirs_[i].hi > floor_) {
        dirs_[kept] = dirs_[i];
        dirs_[kept].slope = (dirs_[i].hi - dirs_[i].lo) / stepped;
        dirs_[kept].lo = dirs_[i].hi;
        ++kept;
      }
    }
    count_ = kept;
  }

 private:
  /// The advancement step stays this fraction inside the bound's limit (dimensionless).
  static constexpr S kSafeMargin = S(0.999);

  const Kinematics<S>& ka_;
  const Kinematics<S>& kb_;
  const RelativeMotion<S>& rel_;
  S floor_;
  bool paper_;
  Direction<S> dirs_[kMaxDirs];
  int count_ = 0;
};

}  // namespace impact::toi
