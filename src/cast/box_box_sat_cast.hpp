#pragma once
// impact — cast/box_box_sat_cast.hpp: two boxes cast by the separating axis theorem under linear
// motion, with the contact points from the touching features.
//
// Two boxes touch iff none of 15 axes separates them: A's three face normals, B's three, and the
// nine cross products of an edge direction of A with one of B (Gottschalk, Lin & Manocha's OBB
// test). Along an axis L, B's centre relative to A's projects to p + t·q (q = L·d, d the relative
// displacement over the step) and the boxes' projections overlap iff |p + t·q| ≤ r, r the sum of
// their projected radii: an interval of t. The boxes touch exactly at the times common to all 15
// intervals, so the first contact is the latest interval start, when it comes before the earliest
// interval end. The normal is the axis that starts last; the contact points come from the two
// features that touch along it (a face clipped against a face, or two edges).
//
// The answer is exact up to rounding in double (float boxes are promoted); wherever rounding
// could decide it, the function declines and the GJK ray cast answers:
// - an edge pair closer to parallel than kMinEdgeSine (its axis would carry rounding amplified by
//   1/sine), but not parallel within kParallelShare of the tolerance (parallel edges need no
//   axis: the face axes decide);
// - shapes within the tolerance of each other at t = 0, or a hit within the tolerance of t = 0
//   (initially_overlapping or not is the GJK path's test);
// - a sweep that passes within the tolerance without a clear contact (a miss is answered only when
//   the intervals stay apart with every radius grown by the tolerance: a graze is GJK's);
// - contact points that the features give further apart than the tolerance.
#include <impact/cast.hpp>

#include "detail/closed_form.hpp"
#include "detail/promote.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace impact::cast_detail {

namespace box_sat {

/// Sine of the angle between two edges below which their cross product is not used as an axis
/// (dimensionless). Along such an axis rounding moves the separation by about 2ε·size / sine:
/// 2e-12 of the size at this bound, well under a length's rounding allowance, so that the time
/// is never late by more than rounding. Pairs of edges this close to parallel are rare in general
/// position (a chance of about 1e-8 per pair of random boxes).
inline constexpr double kMinEdgeSine = 1e-4;
/// Edges whose sine times the boxes' reach is below this share of the tolerance count as
/// parallel, and their axis is left out: exactly parallel edges need none (the face axes decide),
/// and leaving out a nearly parallel pair can only widen the contact interval, by about sine ×
/// reach: an early time, which the contact points' check below then bounds by the tolerance.
/// Between the two bounds the GJK ray cast answers.
inline constexpr double kParallelShare = 0.1;

/// Interval starts closer than this (a time, dimensionless) are a tie between their axes.
inline constexpr double kTie = 1e-9;

/// Two boxes in A's frame: B's axes (columns of `rot`), its centre at t = 0, its displacement.
struct Pair {
  Vec3<double> ha, hb;
  Mat3<double> rot;
  Vec3<double> centre, d;
};

/// The 15 axes' common interval of contact times, and the axis that starts it.
struct Sweep {
  double first = -std::numeric_limits<double>::infinity();
  double last = std::numeric_limits<double>::infinity();
  Vec3<double> axis = Vec3<double>::Zero();  ///< the axis whose interval starts last
  int kind = -1;                             ///< 0: A's face `i`, 1: B's face `j`, 2: edges `i`, `j`
  int i = 0, j = 0;
  double q = 0;                              ///< L·d on that axis
  /// The common interval with every radius grown by the tolerance: when it is empty (or outside
  /// [0, 1]) some axis separates the boxes by more than the tolerance at every time, a proven miss.
  double near_first = -std::numeric_limits<double>::infinity();
  double near_last = std::numeric_limits<double>::infinity();
  bool apart_at_start = false;               ///< some axis separates the boxes at t = 0 by more than tol
  bool ill_conditioned = false;              ///< a nearly parallel edge pair: let GJK answer
};

/// Sweeps the 15 axes; stops early once the grown interval is empty (a proven miss). The projected radii use
/// |rot| entries as in Gottschalk, Lin & Manocha's test (B's axes are orthonormal up to rounding).
inline Sweep sweep(const Pair& s, double tol) {
  Sweep w;
  const Mat3<double>& rot = s.rot;
  const Mat3<double> ab = rot.cwiseAbs();
  const double reach = s.ha.norm() + s.hb.norm();
  const double parallel2 = square(kParallelShare * tol / std::max(reach, 1e-300));
  // One axis L (squared length l2): B's centre projects to p + t·q relative to A's, the radii sum to r.
  Sweep face;  // the face axis that starts last
  auto axis = [&](double p, double q, double r, double l2, int kind, int i, int j) __attribute__((always_inline)) {
    const double gap0 = std::abs(p) - r;  // the separation at t = 0 along L, times |L|
    if (gap0 > 0 && gap0 * gap0 > tol * tol * l2) w.apart_at_start = true;
    const double grown = r + tol;  // at least r + tol·|L| (|L| ≤ 1): apart by more than tol outside
    if (q == 0) {
      if (gap0 > 0) w.last = -std::numeric_limits<double>::infinity();
      if (std::abs(p) > grown) w.near_last = -std::numeric_limits<double>::infinity();
      return;
    }
    const double inv = 1 / q;  // one division per axis (rounding: an ulp or two of the time)
    double t0 = (-r - p) * inv, t1 = (r - p) * inv, u0 = (-grown - p) * inv, u1 = (grown - p) * inv;
    if (q < 0) std::swap(t0, t1), std::swap(u0, u1);
    if (t0 > w.first) w.first = t0, w.kind = kind, w.i = i, w.j = j, w.q = q;
    if (kind < 2 && t0 > face.first) face.first = t0, face.kind = kind, face.i = i, face.j = j, face.q = q;
    w.last = std::min(w.last, t1);
    w.near_first = std::max(w.near_first, u0);
    w.near_last = std::min(w.near_last, u1);
  };
  for (int i = 0; i < 3 && w.near_first <= w.near_last; ++i) axis(s.centre[i], s.d[i], s.ha[i] + s.hb.dot(ab.row(i)), 1, 0, i, 0);
  for (int j = 0; j < 3 && w.near_first <= w.near_last; ++j)
    axis(s.centre.dot(rot.col(j)), s.d.dot(rot.col(j)), s.ha.dot(ab.col(j)) + s.hb[j], 1, 1, 0, j);
  for (int i = 0; i < 3 && w.near_first <= w.near_last; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3 && w.near_first <= w.near_last; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      Vec3<double> l = Vec3<double>::Zero();  // e_i × b_j
      l[i1] = -rot(i2, j);
      l[i2] = rot(i1, j);
      const double l2 = l[i1] * l[i1] + l[i2] * l[i2];
      if (l2 <= parallel2) continue;
      if (l2 < kMinEdgeSine * kMinEdgeSine) {
        w.ill_conditioned = true;
        return w;
      }
      const double r = s.ha[i1] * ab(i2, j) + s.ha[i2] * ab(i1, j) + s.hb[j1] * ab(i, j2) + s.hb[j2] * ab(i, j1);
      axis(l.dot(s.centre), l.dot(s.d), r, l2, 2, i, j);
    }
  }
  // An edge axis that starts with a face axis within rounding (boxes turned by right angles have
  // edge axes equal to face axes) gives way to it: a clipped face finds every kind of contact,
  // an edge pair only crossing edges. The time stays the latest start.
  if (w.kind == 2 && face.kind >= 0 && w.first - face.first <= kTie)
    w.kind = face.kind, w.i = face.i, w.j = face.j, w.q = face.q;
  if (w.kind == 0) w.axis = Vec3<double>::Unit(w.i);
  else if (w.kind == 1) w.axis = rot.col(w.j);
  else if (w.kind == 2) w.axis = Vec3<double>::Unit(w.i).cross(rot.col(w.j));
  return w;
}

/// A face of box `ref` (half extents h, at the origin, axes the frame's) touched by box `inc`
/// (half extents g, axes the columns of m, centre o) from the side `side` of axis i: the incident
/// face (inc's face most opposed to side·e_i) clipped to the reference face's rectangle, and the
/// average of the clipped points within `keep` of the deepest. False when the clip is empty.
inline bool face_contact(const Vec3<double>& h, int i, double side, const Vec3<double>& g, const Mat3<double>& m,
                         const Vec3<double>& o, double keep, Vec3<double>& on_ref, Vec3<double>& on_inc) {
  Eigen::Index jj = 0;
  m.row(i).cwiseAbs().maxCoeff(&jj);
  const int j = int(jj);
  const double sigma = m(i, j) * side > 0 ? -1 : 1;  // the face whose normal opposes side·e_i
  const Vec3<double> fc = o + sigma * g[j] * m.col(j);
  const Vec3<double> u = g[(j + 1) % 3] * m.col((j + 1) % 3), v = g[(j + 2) % 3] * m.col((j + 2) % 3);
  // Sutherland–Hodgman against the four side planes ±x_k ≤ h_k: each adds at most one vertex.
  std::array<Vec3<double>, 8> poly{fc + u + v, fc - u + v, fc - u - v, fc + u - v}, next;
  int n = 4;
  for (int k = 0; k < 3; ++k) {
    if (k == i) continue;
    for (double sgn : {1.0, -1.0}) {
      int out = 0;
      for (int a = 0; a < n; ++a) {
        const Vec3<double>& x = poly[a];
        const Vec3<double>& y = poly[(a + 1) % n];
        const double fx = sgn * x[k] - h[k], fy = sgn * y[k] - h[k];
        if (fx <= 0) next[out++] = x;
        if ((fx < 0 && fy > 0) || (fx > 0 && fy < 0)) {
          Vec3<double> z = x + (fx / (fx - fy)) * (y - x);
          z[k] = sgn * h[k];
          next[out++] = z;
        }
      }
      n = out;
      if (n == 0) return false;
      std::copy(next.begin(), next.begin() + n, poly.begin());
    }
  }
  double deepest = std::numeric_limits<double>::infinity();
  for (int a = 0; a < n; ++a) deepest = std::min(deepest, side * poly[a][i] - h[i]);
  Vec3<double> sum = Vec3<double>::Zero();
  int count = 0;
  for (int a = 0; a < n; ++a)
    if (side * poly[a][i] - h[i] <= deepest + keep) sum += poly[a], ++count;
  on_inc = sum / double(count);
  on_ref = on_inc.cwiseMax(-h).cwiseMin(h);
  on_ref[i] = side * h[i];
  return true;
}

/// The closest points of A's edge along e_i and B's edge along b_j that support the normal n.
inline void edge_contact(const Pair& s, const Vec3<double>& centre, int i, int j, const Vec3<double>& n,
                         Vec3<double>& on_a, Vec3<double>& on_b) {
  Vec3<double> pa = s.ha.cwiseProduct(n.cwiseSign());
  pa[i] = 0;
  Vec3<double> pb = centre;
  for (int m = 0; m < 3; ++m)
    if (m != j) pb -= (s.rot.col(m).dot(n) > 0 ? 1.0 : -1.0) * s.hb[m] * s.rot.col(m);
  const Vec3<double> u = s.ha[i] * Vec3<double>::Unit(i), v = s.hb[j] * s.rot.col(j);
  detail::closest_segments<double>(Vec3<double>(pa - u), Vec3<double>(pa + u), Vec3<double>(pb - v),
                                   Vec3<double>(pb + v), on_a, on_b);
}

}  // namespace box_sat

/// Two boxes cast by the moving separating axis test (target distance 0). False when rounding
/// could decide the answer (see the file's comment): the GJK ray cast then answers.
template <class S>
bool box_box_sat_cast(const Box<S>& box_a, const Pose<S>& pose_a, const Vec3<S>& velocity_a, const Box<S>& box_b,
                      const Pose<S>& pose_b, const Vec3<S>& velocity_b, const ShapeCastOptions<S>& opt,
                      CastHit<S>& out) {
  using box_sat::Pair;
  const Transform<double> ta = detail::promote_transform<double>(Transform<S>(pose_a));
  const Transform<double> b_in_a = ta.relative(detail::promote_transform<double>(Transform<S>(pose_b)));
  const Pair s{box_a.half_extents.template cast<double>(), box_b.half_extents.template cast<double>(),
               b_in_a.rotation, b_in_a.translation,
               ta.rotation.transpose() * (velocity_b.template cast<double>() - velocity_a.template cast<double>())};
  const double tol = double(opt.tolerance);
  const box_sat::Sweep w = box_sat::sweep(s, tol);
  if (w.near_first > w.near_last || w.near_first > 1 || w.near_last < 0) {
    out = CastHit<S>{};
    out.status = Status::miss;
    return true;
  }
  // A graze within the tolerance (the exact intervals may or may not meet: rounding decides),
  // or shapes within the tolerance at t = 0.
  if (w.ill_conditioned || !w.apart_at_start || w.first > w.last || w.first > 1 || w.last < 0) return false;
  if (w.first * s.d.norm() <= tol) return false;  // apart at t = 0 yet touching within tol of it
  const S toi = detail::time_below<S>(w.first);
  const double t = double(toi);
  const Vec3<double> centre = s.centre + t * s.d;  // B's centre at toi
  const double side = w.q < 0 ? 1 : -1;             // B enters from the side that L·d closes
  Vec3<double> n, on_a, on_b;
  const double keep = 0.25 * tol;
  if (w.kind == 0) {
    n = side * Vec3<double>::Unit(w.i);
    if (!box_sat::face_contact(s.ha, w.i, side, s.hb, s.rot, centre, keep, on_a, on_b)) return false;
  } else if (w.kind == 1) {
    n = side * s.rot.col(w.j);
    // In B's frame A lies on the −side of b_j.
    const Mat3<double> rt = s.rot.transpose();
    Vec3<double> ref, inc;
    if (!box_sat::face_contact(s.hb, w.j, -side, s.ha, rt, -(rt * centre), keep, ref, inc)) return false;
    on_b = s.rot * ref + centre;
    on_a = s.rot * inc + centre;
  } else {
    n = (side * w.axis).normalized();
    box_sat::edge_contact(s, centre, w.i, w.j, n, on_a, on_b);
  }
  if (!((on_b - on_a).norm() <= tol)) return false;
  out = CastHit<S>{};  // iterations 0: a closed form
  out.status = Status::hit;
  out.toi = toi;
  const Vec3<double> moved = ta.translation + t * velocity_a.template cast<double>();
  out.point_a = (ta.rotation * on_a + moved).template cast<S>();
  out.point_b = (ta.rotation * on_b + moved).template cast<S>();
  out.normal = (ta.rotation * n).normalized().template cast<S>();
  return true;
}

}  // namespace impact::cast_detail
