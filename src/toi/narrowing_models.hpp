#pragma once
// impact — toi/narrowing_models.hpp: models of the distance near an apart probe, from GJK's last
// simplex, whose roots propose where contact begins while a bracket is narrowed (the proposals
// are then checked by GJK: a model never decides an answer). A face's normal turning with its
// body (Newton on the separation along it), or two edges' lines (secant on their distance).
#include "toi/moving_pair.hpp"

#include <cmath>
#include <limits>

namespace impact::toi {

/// How many root-finding steps a model may take before it gives up (count).
inline constexpr int kModelSteps = 6;

/// Two edges, one on each body, from GJK's last simplex (two distinct points on each): the
/// distance between their lines, n·(p_B − p_A) with n ∥ e_A × e_B, is the distance for as long
/// as these edges stay the closest features. `sign` orients n from A toward B.
template <class S>
struct EdgeModel {
  bool valid = false;
  Vec3<S> qa, ea, qb, eb;  // a point and the direction of each edge, in its body's axes
  S sign = 1;
};

/// The edge model of GJK's last simplex at placements (ta, tb), invalid unless the simplex has
/// two distinct points on each body and the edges are not nearly parallel.
template <class S, class A, class B>
EdgeModel<S> edges_of_simplex(const MovingPair<S, A, B>& pair, const Vec3<S>& normal, const Transform<S>& ta,
                              const Transform<S>& tb) {
  // Edges whose cross product is shorter than this fraction of |e_A|·|e_B| (squared: the sine
  // of their angle below 1e-3) are parallel: their lines' distance has no stable normal.
  constexpr S kParallelSine2 = S(1e-6);
  EdgeModel<S> m;
  const GjkCache<S>& cache = pair.cache;
  if (cache.count != 4 && cache.count != 3 && cache.count != 2) return m;
  Vec3<S> pa[2], pb[2];
  int na = 0, nb = 0;
  for (int i = 0; i < cache.count; ++i) {
    bool seen_a = false, seen_b = false;
    for (int j = 0; j < na; ++j) seen_a = seen_a || pa[j] == cache.local_a[i];
    for (int j = 0; j < nb; ++j) seen_b = seen_b || pb[j] == cache.local_b[i];
    if (!seen_a && na++ < 2) pa[na - 1] = cache.local_a[i];
    if (!seen_b && nb++ < 2) pb[nb - 1] = cache.local_b[i];
  }
  if (na != 2 || nb != 2) return m;
  m.qa = pa[0];
  m.ea = pa[1] - pa[0];
  m.qb = pb[0];
  m.eb = pb[1] - pb[0];
  const Vec3<S> n = Vec3<S>(ta.rotation * m.ea).cross(Vec3<S>(tb.rotation * m.eb));
  if (!(n.squaredNorm() > kParallelSine2 * m.ea.squaredNorm() * m.eb.squaredNorm())) return m;
  m.sign = n.dot(normal) < S(0) ? S(-1) : S(1);
  m.valid = true;
  return m;
}

/// The edge model's distance at time t (NaN where the edges turn parallel).
template <class S, class A, class B>
S edge_gap(const MovingPair<S, A, B>& pair, const EdgeModel<S>& m, S t) {
  const Transform<S> ta = pair.ka.at(t), tb = pair.kb.at(t);
  const Vec3<S> n = Vec3<S>(ta.rotation * m.ea).cross(Vec3<S>(tb.rotation * m.eb));
  const S len = n.norm();
  if (!(len > S(0))) return std::numeric_limits<S>::quiet_NaN();
  return m.sign * n.dot(tb.apply(m.qb) - ta.apply(m.qa)) / len - pair.ra - pair.rb;
}

/// The secant method on the edge model from a (where the distance is fa + aim and falls at
/// −da), toward `aim`, inside (a, b): the root, or −1 when the model does not lead there.
template <class S, class A, class B>
S edge_root(MovingPair<S, A, B>& pair, const EdgeModel<S>& m, S a, S b, S fa, S da, S aim, S xtol) {
  if (!(da < S(0))) return -1;
  S t0 = a, f0 = fa, t1 = a - fa / da;
  for (int k = 0; k < kModelSteps; ++k) {
    if (!(t1 > a && t1 < b)) return -1;
    ++pair.stats.direction_evals;
    const S f1 = edge_gap(pair, m, t1) - aim;
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

/// Newton's method on the separation along d (a model of the distance), from a toward its
/// value `aim`, inside (a, b): the root, or −1 when the model does not lead there.
/// At a the model is GJK's distance there (fa + aim) and falls at −da (the same rate: the
/// direction is GJK's axis), so the first step needs no evaluation.
template <class S, class A, class B>
S model_root(MovingPair<S, A, B>& pair, const Direction<S>& d, S a, S b, S fa, S da, S aim, S xtol) {
  S t = a, f = fa, rate = da;
  for (int k = 0; k < kModelSteps; ++k) {
    if (!(rate < S(0))) return -1;
    const S next = t - f / rate;
    if (!(next > a && next < b)) return -1;
    if (std::abs(next - t) <= xtol) return next;
    t = next;
    f = pair.separation_rate(d, t, rate) - aim;
  }
  return t;
}

}  // namespace impact::toi
