// Linear shape casts with closed-form answers, for the unit tests of the three cast methods
// (tests/unit/cast/): each case knows, from geometry computed here and not by the library,
// whether the shapes come within the target distance over t ∈ [0, 1], the first time they do, and
// their distance at any t. Grazing cases (the minimum distance within kMargin of the target, or
// contact within kMargin of t = 1) are not generated: there the status is a matter of tolerance.
//   - two spheres: |D + t·w| = rA + rB + target, a quadratic (the motion is drawn from its closest
//     approach, so that hits and misses are both common);
//   - a sphere moving along a box face's normal, its centre over the face (hit when it has come
//     far enough) or clear of the face by more than its radius (never touches);
//   - two boxes (or cube hulls) axis-aligned in a common, random frame: the slab test on the
//     Minkowski box [−(hA + hB), hA + hB] with the relative motion.
#pragma once

#include "scenes.hpp"

#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace cast_scenes {

using V = Eigen::Vector3d;
using scenes::Rng;

inline constexpr double kMargin = 1e-3;

template <class S>
struct CastCase {
  impact::Shape<S> a, b;
  impact::Pose<S> pose_a, pose_b;
  impact::Vec3<S> velocity_a, velocity_b;
  double target = 0;
  bool hit = false;
  double toi = 0;                          ///< first time at the target distance (hit)
  std::function<double(double)> distance;  ///< the shapes' distance at t (closed form)
  bool usable = true;                      ///< false: grazing, draw another
};

template <class S>
impact::Pose<S> pose(const V& p, const Eigen::Quaterniond& q) {
  impact::Pose<S> x;
  x.position = p.template cast<S>();
  x.rotation = q.template cast<S>();
  return x;
}

template <class S>
impact::Hull<S> cube_hull(const V& h) {
  std::vector<impact::Vec3<S>> pts;
  for (int i = 0; i < 8; ++i)
    pts.push_back(V((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z()).template cast<S>());
  return impact::Hull<S>::build(pts).hull;
}

/// Inputs rounded to S first, so that the closed form is of what the library receives.
inline V rounded(const V& v, bool to_float) { return to_float ? V(v.cast<float>().cast<double>()) : v; }
inline double rounded(double x, bool to_float) { return to_float ? double(float(x)) : x; }

/// Two spheres, A moving, B moving; target distance sometimes positive.
template <class S>
CastCase<S> sphere_sphere(Rng& rng) {
  const bool f = sizeof(S) == 4;
  const double ra = rounded(rng.uniform(0.1, 1), f), rb = rounded(rng.uniform(0.1, 1), f);
  const double target = rng.uniform() < 0.3 ? rounded(rng.uniform(0, 0.2), f) : 0.0;
  // The relative motion built from its closest approach: B's centre passes A's at distance m
  // (m < reach half the time or more) at time u ∈ [0.3, 1.7] (before t = 1 about half the time).
  const double reach0 = ra + rb + target;
  const V e = rng.unit(), along = e.cross(rng.unit()).normalized();
  const double m = rng.uniform(0, 1.6) * reach0, s = rng.uniform(reach0 + 0.5, 6), u = rng.uniform(0.3, 1.7);
  const V ca = rounded(rng.in_cube(5), f), cb = rounded(ca + m * e + s * along, f);
  const V vb = rounded(rng.in_cube(3), f), va = rounded(vb + (s / u) * along, f);
  CastCase<S> k;
  k.a = impact::Sphere<S>{S(ra)};
  k.b = impact::Sphere<S>{S(rb)};
  k.pose_a = pose<S>(ca, rng.rotation());
  k.pose_b = pose<S>(cb, rng.rotation());
  k.velocity_a = va.template cast<S>();
  k.velocity_b = vb.template cast<S>();
  k.target = target;
  const V d = cb - ca, w = vb - va;
  const double reach = ra + rb + target;
  k.distance = [=](double t) { return (d + t * w).norm() - ra - rb; };
  // Minimum of |d + t·w| over [0, 1].
  const double tm = w.squaredNorm() > 0 ? std::clamp(-d.dot(w) / w.squaredNorm(), 0.0, 1.0) : 0.0;
  const double closest = (d + tm * w).norm();
  if (d.norm() < reach + kMargin || std::abs(closest - reach) < kMargin) k.usable = false;
  k.hit = closest < reach;
  if (k.hit) {
    const double b = d.dot(w), a = w.squaredNorm(), c = d.squaredNorm() - reach * reach;
    k.toi = (-b - std::sqrt(b * b - a * c)) / a;
    if (k.toi > 1 - kMargin) k.usable = false;
  }
  return k;
}

/// A sphere moving along −x toward the +x face of a box, in a random frame.
template <class S>
CastCase<S> sphere_box_face(Rng& rng) {
  const bool f = sizeof(S) == 4;
  const V h = rounded(V(rng.uniform(0.2, 2), rng.uniform(0.2, 2), rng.uniform(0.2, 2)), f);
  const double r = rounded(rng.uniform(0.05, 1), f), gap = rng.uniform(0.1, 3);
  const bool over_face = rng.uniform() < 0.8;
  V lateral;
  for (int i = 1; i < 3; ++i) {
    const double u = rng.uniform(-1, 1);
    lateral[i] = over_face ? u * (h[i] - kMargin) : (u < 0 ? -1 : 1) * (h[i] + r + kMargin + std::abs(u) * 2);
  }
  if (!over_face && rng.uniform() < 0.5) lateral[1] = rng.uniform(-1, 1) * h[1];  // clear in z only
  const double speed = gap / rng.uniform(0.3, 1.7);
  const V centre(h.x() + r + gap, lateral[1], lateral[2]);
  const Eigen::Quaterniond q = rng.rotation();
  const V origin = rng.in_cube(5);
  CastCase<S> k;
  k.a = impact::Box<S>{h.template cast<S>()};
  k.b = impact::Sphere<S>{S(r)};
  k.pose_a = pose<S>(origin, q);
  k.pose_b = pose<S>(origin + q * centre, rng.rotation());
  k.velocity_a = impact::Vec3<S>::Zero();
  k.velocity_b = (q * V(-speed, 0, 0)).template cast<S>();
  // In float the rotated pose is rounded: the closed form is then good to ~1e-6, well inside
  // the tolerances the checks use.
  k.distance = [=](double t) {
    const V p = centre + t * V(-speed, 0, 0);
    return (p.cwiseAbs() - h).cwiseMax(0.0).norm() - r;
  };
  k.hit = over_face && gap / speed <= 1;
  k.toi = gap / speed;
  if (std::abs(gap - speed) < kMargin) k.usable = false;  // at t = 1 within kMargin of touching
  return k;
}

/// Two axis-aligned boxes (A a cube hull when `hull_a`) in a common random frame, both moving.
template <class S>
CastCase<S> box_box(Rng& rng, bool hull_a) {
  const bool f = sizeof(S) == 4;
  const V ha = rounded(V(rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5)), f);
  const V hb = rounded(V(rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5)), f);
  const V delta = rng.in_cube(5);
  const V va = rng.in_cube(2), vb = -0.8 * delta + rng.in_cube(2);
  const Eigen::Quaterniond q = rng.rotation();
  const V origin = rng.in_cube(5);
  CastCase<S> k;
  k.a = hull_a ? impact::Shape<S>(cube_hull<S>(ha)) : impact::Shape<S>(impact::Box<S>{ha.template cast<S>()});
  k.b = impact::Box<S>{hb.template cast<S>()};
  k.pose_a = pose<S>(origin, q);
  k.pose_b = pose<S>(origin + q * delta, q);
  k.velocity_a = (q * va).template cast<S>();
  k.velocity_b = (q * vb).template cast<S>();
  const V w = vb - va, H = ha + hb;
  k.distance = [=](double t) { return ((delta + t * w).cwiseAbs() - H).cwiseMax(0.0).norm(); };
  // Slab test: the times delta + t·w is inside [−H, H] on every axis.
  double enter = -1e300, leave = 1e300;
  for (int i = 0; i < 3; ++i) {
    if (w[i] == 0) {
      if (std::abs(delta[i]) > H[i]) leave = -1e300;
      continue;
    }
    double t1 = (-H[i] - delta[i]) / w[i], t2 = (H[i] - delta[i]) / w[i];
    if (t1 > t2) std::swap(t1, t2);
    enter = std::max(enter, t1);
    leave = std::min(leave, t2);
  }
  if (k.distance(0) < kMargin) k.usable = false;  // (initially) overlapping or touching
  k.hit = enter <= leave && enter >= 0 && enter <= 1;
  k.toi = enter;
  if (k.hit && (enter > 1 - kMargin || leave - enter < 0.02)) k.usable = false;  // late or grazing
  if (!k.hit) {
    // The least distance over [0, 1] (convex in t: ternary search) must be clear of contact.
    double lo = 0, hi = 1;
    for (int it = 0; it < 200; ++it) {
      const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      if (k.distance(m1) < k.distance(m2))
        hi = m2;
      else
        lo = m1;
    }
    if (k.distance(0.5 * (lo + hi)) < kMargin) k.usable = false;
  }
  return k;
}

/// Runs `method` on `cases` usable cases of `make` and checks each answer against the closed form:
/// hits are hits, no later than the true time, and at a distance within the tolerance of the
/// target (never below it by more than rounding); misses are misses; both occur in 30–70%.
template <class S>
void check_method(impact::CastMethod method, bool closed_form, const std::string& name,
                  const std::function<CastCase<S>(Rng&)>& make, int cases) {
  Rng rng(scenes::seed_of(name + scenes::scalar_name<S>()));
  impact::ShapeCastOptions<S> opt;
  opt.method = method;
  opt.closed_form = closed_form;
  const double len_eps = sizeof(S) == 4 ? 3e-5 : 1e-9;  // rounding of scenes of size ~10
  const double time_eps = sizeof(S) == 4 ? 1e-3 : 1e-7;  // the same over the slowest approach (~0.05)
  int hits = 0, done = 0;
  while (done < cases) {
    const CastCase<S> k = make(rng);
    if (!k.usable) continue;
    ++done;
    opt.target_distance = S(k.target);
    const impact::CastHit<S> r =
        impact::shape_cast<S>(k.a, k.pose_a, k.velocity_a, k.b, k.pose_b, k.velocity_b, opt);
    const std::string what = name + " case " + std::to_string(done) + (k.hit ? " (hit at " + std::to_string(k.toi) + ")" : " (miss)");
    if (!k.hit) {
      EXPECT_EQ(r.status, impact::Status::miss) << what << " got toi " << r.toi;
      continue;
    }
    ++hits;
    ASSERT_EQ(r.status, impact::Status::hit) << what;
    const double t = double(r.toi), d = k.distance(t);
    EXPECT_GE(d, k.target - len_eps) << what << ": late, toi " << t;
    EXPECT_LE(d, k.target + double(opt.tolerance) + len_eps) << what << ": early beyond the tolerance, toi " << t;
    EXPECT_LE(t, k.toi + time_eps) << what;
    const double n = r.normal.template cast<double>().norm();
    EXPECT_NEAR(n, 1.0, 1e-3) << what;
  }
  EXPECT_GT(hits, cases * 3 / 10) << name;
  EXPECT_LT(hits, cases * 7 / 10) << name;
}

/// A mesh of the one triangle (a, b, c), cast at by `shape` from `pose` along `velocity`: the tree
/// walk and brute force (`options.brute_force` set both ways) must both answer `miss`, like the
/// pair cast against the triangle itself (the regression tests of casts near slivers).
template <class S>
void expect_one_triangle_mesh_misses(const impact::Vec3<S>& a, const impact::Vec3<S>& b, const impact::Vec3<S>& c,
                                     const impact::Shape<S>& shape, const impact::Pose<S>& pose,
                                     const impact::Vec3<S>& velocity, impact::MeshShapeOptions<S> options = {}) {
  impact::TriangleMesh<S> mesh;
  mesh.vertices = {a, b, c};
  mesh.triangles = {{0, 1, 2}};
  ASSERT_EQ(impact::build_mesh(mesh), "");
  for (bool brute : {false, true}) {
    options.brute_force = brute;
    EXPECT_EQ(impact::mesh_shape_cast(mesh, shape, pose, velocity, options).status, impact::Status::miss)
        << "brute force " << brute;
  }
}

}  // namespace cast_scenes
