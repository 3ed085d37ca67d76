// Degenerate shapes are never late (issue 16, item 5): boxes with a zero half extent (a
// rectangle), cylinders of zero height (a disc), triangles, zero-length capsules (a ball) and
// zero-length segments (a point), cast by rays that lie in a flat shape's own plane, by
// `shape_cast` with every method, and by `time_of_impact` with the body spinning about the
// degenerate shape's centre. Each answer is checked against a closed form written here (2-D slab
// and circle clipping in the shape's plane, the sphere–sphere quadratic, the point–box slab
// test), never against the library:
//  * a hit the closed form proves (by a margin) is reported as a hit, never later than the true
//    time (plus the rounding of the inputs), and not earlier than the tolerance allows;
//  * a miss it proves by a margin is reported as a miss.
// Seeded batteries of 2,000 cases per check and precision; about half of them hit.
#include "scenes.hpp"

#include <impact/cast.hpp>
#include <impact/toi.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace {

using namespace impact;
using scenes::Rng;
using V = Eigen::Vector3d;
using M = Eigen::Matrix3d;

constexpr int kCases = scenes::battery(2000);

template <class S>
V vd(const Vec3<S>& v) {
  return v.template cast<double>();
}

template <class S>
M rot(const Pose<S>& p) {
  return p.rotation.template cast<double>().normalized().toRotationMatrix();
}

/// Entry parameter of the 2-D ray o + λ·d (λ ≥ 0) into the convex region {x : n_i·x ≤ c_i},
/// with the exit parameter; nullopt when the ray misses. Cyrus–Beck clipping.
struct Clip {
  double enter = 0, exit = std::numeric_limits<double>::infinity();
  bool empty = false;
  void plane(double nd, double no_minus_c) {  // n·(o + λd) − c ≤ 0
    if (nd == 0) {
      if (no_minus_c > 0) empty = true;
      return;
    }
    const double t = -no_minus_c / nd;
    if (nd < 0) enter = std::max(enter, t);
    else exit = std::min(exit, t);
  }
  [[nodiscard]] bool hit() const { return !empty && enter <= exit; }
};

/// Tallies of one battery; the hit rate is printed so that a battery that never hits shows.
struct Tally {
  int hits = 0, misses = 0, unclassified = 0;
};

/// Checks a reported hit time t (λ or toi) against the true time `truth` (nullopt: a proven
/// miss; `grazing`: too close to call). `gap` is the true distance between the shapes (or from
/// the ray's point to the shape) at t: a hit is early only if that exceeds `allowance`, the
/// query's own tolerance.
template <class S>
void judge(const std::string& what, Status status, double t, std::optional<double> truth, bool grazing, double speed,
           double allowance, const std::function<double(double)>& gap, Tally& tally) {
  // Late by rounding only: the inputs are rounded to S and the shapes placed by rotations in S.
  const double late_allowance = 64 * double(std::numeric_limits<S>::epsilon()) * 4 / std::max(speed, 1e-3);
  if (grazing) {
    ++tally.unclassified;
    return;
  }
  if (!truth) {
    ++tally.misses;
    EXPECT_EQ(status, Status::miss) << what << ": the closed form proves a miss, got " << to_string(status)
                                    << " at t = " << t;
    return;
  }
  ++tally.hits;
  ASSERT_EQ(status, Status::hit) << what << ": the closed form hits at " << *truth << ", got " << to_string(status);
  EXPECT_LE(t, *truth + late_allowance) << what << ": late";
  EXPECT_LE(gap(t), allowance) << what << ": early, the distance at t = " << t << " (truth " << *truth
                               << ") is above the tolerance";
}

// --------------------------------------------------------------------------------------------
// Rays in a flat shape's own plane
// --------------------------------------------------------------------------------------------

enum class Flat { rectangle, disc, triangle };

template <class S>
void rays_in_plane(Flat kind, bool closed_form) {
  const std::string name = std::string("ray in plane ") + (kind == Flat::rectangle ? "rectangle" : kind == Flat::disc ? "disc" : "triangle") +
                           (closed_form ? "" : " gjk") + " " + scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  Tally tally;
  for (int i = 0; i < kCases; ++i) {
    // The shape, in its local frame, lying in the plane z = 0.
    const double hx = rng.uniform(0.2, 1.0), hy = rng.uniform(0.2, 1.0), r = rng.uniform(0.2, 1.0);
    V ta = V::Zero(), tb = V::Zero(), tc = V::Zero();
    Shape<S> shape = Box<S>{Vec3<S>(S(hx), S(hy), S(0))};
    if (kind == Flat::disc) shape = Cylinder<S>{S(r), S(0)};
    if (kind == Flat::triangle) {
      ta = V(rng.uniform(-1, 1), rng.uniform(-1, 1), 0);
      tb = V(rng.uniform(-1, 1), rng.uniform(-1, 1), 0);
      tc = V(rng.uniform(-1, 1), rng.uniform(-1, 1), 0);
      if (std::abs((tb - ta).cross(tc - ta).z()) < 0.05) continue;  // keep triangles fat enough to call
      ta = vd(scenes::to_s<S>(ta)), tb = vd(scenes::to_s<S>(tb)), tc = vd(scenes::to_s<S>(tc));
      shape = Triangle<S>{scenes::to_s<S>(ta), scenes::to_s<S>(tb), scenes::to_s<S>(tc)};
    }
    // The shape turned about its normal (z) and moved: a quaternion (cos, 0, 0, sin) keeps the
    // plane's coordinate exact in any precision, so the rays below lie exactly in the plane.
    const double half_turn = rng.uniform(0, M_PI);
    const Pose<S> pose = scenes::make_pose<S>(rng.in_cube(1.0), Eigen::Quaterniond(std::cos(half_turn), 0, 0, std::sin(half_turn)));
    const M R = rot(pose);
    const V p = vd(pose.position);
    // A ray in the plane, from outside, aimed near the shape.
    const double phi = rng.uniform(0, 2 * M_PI);
    const V o_local(2.0 * std::cos(phi), 2.0 * std::sin(phi), 0);
    const V aim(rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2), 0);
    const V d_local = (aim - o_local) * rng.uniform(0.5, 1.5);
    Ray<S> ray;
    ray.origin = scenes::to_s<S>(p + R * o_local);
    ray.direction = scenes::to_s<S>(R * d_local);
    ray.origin.z() = pose.position.z();  // exactly in the plane
    ray.direction.z() = S(0);
    // The truth for the rounded ray, expressed back in the plane (its off-plane part is rounding).
    const V o = R.transpose() * (vd(ray.origin) - p), d = R.transpose() * vd(ray.direction);
    Clip clip;
    if (kind == Flat::rectangle) {
      clip.plane(d.x(), o.x() - hx), clip.plane(-d.x(), -o.x() - hx);
      clip.plane(d.y(), o.y() - hy), clip.plane(-d.y(), -o.y() - hy);
    } else if (kind == Flat::triangle) {
      const V e[3] = {tb - ta, tc - tb, ta - tc}, q[3] = {ta, tb, tc};
      const double orient = (tb - ta).cross(tc - ta).z() > 0 ? 1 : -1;
      for (int k = 0; k < 3; ++k) {
        const V n = orient * V(e[k].y(), -e[k].x(), 0);  // outward in the plane
        clip.plane(n.dot(d), n.dot(o - q[k]));
      }
    } else {
      // |o + λd|² = r² in the plane.
      const double a = d.x() * d.x() + d.y() * d.y(), b = o.x() * d.x() + o.y() * d.y();
      const double c = o.x() * o.x() + o.y() * o.y() - r * r, disc = b * b - a * c;
      if (disc < 0) clip.empty = true;
      else clip.enter = std::max(0.0, (-b - std::sqrt(disc)) / a), clip.exit = (-b + std::sqrt(disc)) / a;
    }
    const double speed = d.norm();
    std::optional<double> truth;
    if (clip.hit() && clip.exit >= 0) truth = clip.enter;
    // Too close to call: a chord shorter than 1e-3 (a corner or a tangent), within the tolerance
    // of a vertex by rounding. Either answer is then right.
    const bool grazing = clip.hit() ? (clip.exit - clip.enter) * speed < 1e-3 : false;
    const bool near_miss = !clip.hit() && [&] {
      // Distance from the shape to the line, sampled coarsely by widening the shape: a miss by
      // less than 1e-3 is not classified.
      Clip wide;
      const double m = 1e-3;
      if (kind == Flat::rectangle) {
        wide.plane(d.x(), o.x() - hx - m), wide.plane(-d.x(), -o.x() - hx - m);
        wide.plane(d.y(), o.y() - hy - m), wide.plane(-d.y(), -o.y() - hy - m);
        return wide.hit();
      }
      if (kind == Flat::disc) {
        const double a = d.x() * d.x() + d.y() * d.y(), b = o.x() * d.x() + o.y() * d.y();
        const double c = o.x() * o.x() + o.y() * o.y() - (r + m) * (r + m);
        return b * b - a * c >= 0;
      }
      return true;  // triangles: misses are classified only through the rectangle and disc
    }();
    RayCastOptions<S> opt;
    opt.max_lambda = S(10);
    opt.closed_form = closed_form;
    const RayHit<S> h = ray_cast(shape, pose, ray, opt);
    ASSERT_TRUE(std::isfinite(double(h.lambda))) << name << " case " << i;
    const double allowance = sizeof(S) == 4 ? 1e-4 : 1e-6;
    // Distance in the plane from the ray's point at λ to the shape.
    auto gap = [&](double lambda) {
      const V x = o + lambda * d;
      if (kind == Flat::rectangle) return V(std::max(std::abs(x.x()) - hx, 0.0), std::max(std::abs(x.y()) - hy, 0.0), 0).norm();
      if (kind == Flat::disc) return std::max(std::hypot(x.x(), x.y()) - r, 0.0);
      const V q[3] = {ta, tb, tc};
      const double orient = (tb - ta).cross(tc - ta).z() > 0 ? 1 : -1;
      bool inside = true;
      double best = std::numeric_limits<double>::infinity();
      for (int k = 0; k < 3; ++k) {
        const V e = q[(k + 1) % 3] - q[k];
        if (orient * e.cross(x - q[k]).z() < 0) inside = false;
        const double u = std::clamp((x - q[k]).dot(e) / e.squaredNorm(), 0.0, 1.0);
        best = std::min(best, V(x - q[k] - u * e).head<2>().norm());
      }
      return inside ? 0.0 : best;
    };
    judge<S>(name + " case " + std::to_string(i), h.status, double(h.lambda), truth, grazing || near_miss, speed,
             allowance, gap, tally);
    if (h.status == Status::hit) {
      // The hit point is on the ray and within the allowance of the shape's plane.
      EXPECT_LE(std::abs((R.transpose() * (vd(h.point) - p)).z()), allowance) << name << " case " << i;
    }
  }
  std::printf("%s: %d hits, %d misses, %d too close to call\n", name.c_str(), tally.hits, tally.misses,
              tally.unclassified);
  EXPECT_GT(tally.hits, kCases / 5);
}

TEST(DegenerateShapes, RaysInTheRectanglesPlaneDouble) { rays_in_plane<double>(Flat::rectangle, true); }
TEST(DegenerateShapes, RaysInTheRectanglesPlaneFloat) { rays_in_plane<float>(Flat::rectangle, true); }
TEST(DegenerateShapes, RaysInTheRectanglesPlaneGjkDouble) { rays_in_plane<double>(Flat::rectangle, false); }
TEST(DegenerateShapes, RaysInTheRectanglesPlaneGjkFloat) { rays_in_plane<float>(Flat::rectangle, false); }
TEST(DegenerateShapes, RaysInTheDiscsPlaneDouble) { rays_in_plane<double>(Flat::disc, true); }
TEST(DegenerateShapes, RaysInTheDiscsPlaneFloat) { rays_in_plane<float>(Flat::disc, true); }
TEST(DegenerateShapes, RaysInTheDiscsPlaneGjkDouble) { rays_in_plane<double>(Flat::disc, false); }
TEST(DegenerateShapes, RaysInTheDiscsPlaneGjkFloat) { rays_in_plane<float>(Flat::disc, false); }
TEST(DegenerateShapes, RaysInTheTrianglesPlaneDouble) { rays_in_plane<double>(Flat::triangle, true); }
TEST(DegenerateShapes, RaysInTheTrianglesPlaneFloat) { rays_in_plane<float>(Flat::triangle, true); }
TEST(DegenerateShapes, RaysInTheTrianglesPlaneGjkDouble) { rays_in_plane<double>(Flat::triangle, false); }
TEST(DegenerateShapes, RaysInTheTrianglesPlaneGjkFloat) { rays_in_plane<float>(Flat::triangle, false); }

// --------------------------------------------------------------------------------------------
// Zero-length capsules and segments: casts and time of impact
// --------------------------------------------------------------------------------------------

/// First t in [0, 1] at which |c + w·t| = R, for |c| > R; nullopt if none.
std::optional<double> sphere_time(const V& c, const V& w, double R) {
  const double a = w.squaredNorm(), b = c.dot(w), cc = c.squaredNorm() - R * R, disc = b * b - a * cc;
  if (a == 0 || disc < 0 || b >= 0) return std::nullopt;
  const double t = (-b - std::sqrt(disc)) / a;
  if (t > 1) return std::nullopt;
  return t;
}

/// First t in [0, 1] at which the point q + w·t (B's frame) enters the box [−h, h].
std::optional<double> box_time(const V& q, const V& w, const V& h, double& chord) {
  double enter = 0, exit = 1;
  for (int k = 0; k < 3; ++k) {
    if (w[k] == 0) {
      if (std::abs(q[k]) > h[k]) return std::nullopt;
      continue;
    }
    double t0 = (-h[k] - q[k]) / w[k], t1 = (h[k] - q[k]) / w[k];
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    exit = std::min(exit, t1);
  }
  chord = exit - enter;
  if (enter > exit) return std::nullopt;
  return enter;
}

enum class Query { shape_cast_gjk, shape_cast_ca, shape_cast_mpr, toi };

const char* query_name(Query q) {
  switch (q) {
    case Query::shape_cast_gjk: return "shape_cast gjk_raycast";
    case Query::shape_cast_ca: return "shape_cast conservative_advancement";
    case Query::shape_cast_mpr: return "shape_cast mpr";
    case Query::toi: return "time_of_impact (spinning)";
  }
  return "?";
}

/// A is a zero-length capsule (a ball) or a zero-length segment at its local origin (a point);
/// B is a ball or a box. A spins (time_of_impact only) about its own centre, which moves it not
/// at all: the closed forms of the translation alone are the truth.
template <class S>
void zero_length(Query q, bool point) {
  const std::string name = std::string(point ? "zero-length segment " : "zero-length capsule ") + query_name(q) + " " +
                           scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  Tally tally;
  for (int i = 0; i < kCases; ++i) {
    const double ra = point ? 0.0 : rng.uniform(0.1, 0.6);
    const Shape<S> a = point ? Shape<S>{Segment<S>{Vec3<S>::Zero(), Vec3<S>::Zero()}} : Shape<S>{Capsule<S>{S(ra), S(0)}};
    const bool ball = rng.uniform() < 0.5;
    const double rb = rng.uniform(0.2, 1.0);
    const V hb(rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0), rng.uniform(0.2, 1.0));
    // A point needs a box or a ball; a ball against a box has no simple closed form, so a ball
    // meets balls only.
    const bool box = !ball && point;
    const Shape<S> b = box ? Shape<S>{Box<S>{scenes::to_s<S>(hb)}} : Shape<S>{Sphere<S>{S(rb)}};
    const Pose<S> pose_a = scenes::make_pose<S>(rng.in_cube(2.0), rng.rotation());
    const Pose<S> pose_b = scenes::make_pose<S>(rng.in_cube(0.3), rng.rotation());
    // Aim A's centre near B's so that about half the casts hit.
    const V target = vd(pose_b.position) + rng.in_cube(box ? 1.2 : 1.3);
    const Vec3<S> va = scenes::to_s<S>((target - vd(pose_a.position)) * rng.uniform(0.6, 1.6));
    const Vec3<S> vb = scenes::to_s<S>(rng.in_cube(0.2));
    const V w = vd(va) - vd(vb);
    const V c0 = vd(pose_a.position) - vd(pose_b.position);
    std::optional<double> truth;
    bool grazing = false;
    if (box) {
      const M Rb = rot(pose_b);
      double chord = 0;
      truth = box_time(Rb.transpose() * c0, Rb.transpose() * w, vd(Box<S>{scenes::to_s<S>(hb)}.half_extents), chord);
      const V wide = vd(scenes::to_s<S>(hb)) + V::Constant(1e-3);
      double wide_chord = 0;
      grazing = (truth && chord * w.norm() < 1e-3) ||
                (!truth && box_time(Rb.transpose() * c0, Rb.transpose() * w, wide, wide_chord).has_value());
      const V q0 = Rb.transpose() * c0;
      if ((q0.cwiseAbs() - wide).maxCoeff() <= 0) continue;  // start apart
    } else {
      const double R = double(S(ra)) + double(S(rb));
      if (c0.norm() <= R + 1e-3) continue;  // start apart
      truth = sphere_time(c0, w, R);
      // Too close to call: a tangent pass (closest approach within 1e-3 of R) or a touch at t ≈ 1.
      const double a = w.squaredNorm();
      const double tc = a > 0 ? std::clamp(-c0.dot(w) / a, 0.0, 1.0) : 0.0;
      const double closest = (c0 + tc * w).norm();
      grazing = std::abs(closest - R) < 1e-3 || (truth && *truth > 1 - 1e-3 / std::max(w.norm(), 1e-3));
    }
    double t = 0;
    Status status = Status::invalid_input;
    if (q == Query::toi) {
      Motion<S> ma{pose_a, va, scenes::to_s<S>(rng.unit() * rng.uniform(5.0, 40.0))};
      Motion<S> mb{pose_b, vb, Vec3<S>::Zero()};
      if (box) mb.angular_velocity.setZero();  // the box turning would move its faces: no closed form
      const ToiHit<S> h = time_of_impact(a, ma, b, mb);
      status = h.status;
      t = double(h.toi);
    } else {
      ShapeCastOptions<S> opt;
      opt.method = q == Query::shape_cast_gjk  ? CastMethod::gjk_raycast
                   : q == Query::shape_cast_ca ? CastMethod::conservative_advancement
                                               : CastMethod::mpr;
      const CastHit<S> h = shape_cast(a, pose_a, va, b, pose_b, vb, opt);
      status = h.status;
      t = double(h.toi);
    }
    ASSERT_TRUE(std::isfinite(t)) << name << " case " << i;
    if (!box && c0.norm() <= double(S(ra)) + double(S(rb))) continue;
    const double allowance = 2 * double(Tolerances<S>::cast_tolerance);
    // The true distance between the shapes at time t.
    auto gap = [&](double time) {
      const V c = c0 + time * w;
      if (!box) return std::max(c.norm() - double(S(ra)) - double(S(rb)), 0.0);
      const V q = rot(pose_b).transpose() * c, h = vd(scenes::to_s<S>(hb));
      return (q.cwiseAbs() - h).cwiseMax(0.0).norm();
    };
    judge<S>(name + " case " + std::to_string(i), status, t, truth, grazing, w.norm(), allowance, gap, tally);
  }
  std::printf("%s: %d hits, %d misses, %d too close to call\n", name.c_str(), tally.hits, tally.misses,
              tally.unclassified);
  EXPECT_GT(tally.hits, kCases / 5);
  EXPECT_GT(tally.misses, kCases / 10);
}

#define ZERO_LENGTH_TEST(Name, query)                                                                      \
  TEST(DegenerateShapes, ZeroLengthCapsule##Name##Double) { zero_length<double>(query, false); }           \
  TEST(DegenerateShapes, ZeroLengthCapsule##Name##Float) { zero_length<float>(query, false); }             \
  TEST(DegenerateShapes, ZeroLengthSegment##Name##Double) { zero_length<double>(query, true); }            \
  TEST(DegenerateShapes, ZeroLengthSegment##Name##Float) { zero_length<float>(query, true); }

ZERO_LENGTH_TEST(ShapeCastGjkRayCast, Query::shape_cast_gjk)
ZERO_LENGTH_TEST(ShapeCastConservativeAdvancement, Query::shape_cast_ca)
ZERO_LENGTH_TEST(ShapeCastMpr, Query::shape_cast_mpr)
ZERO_LENGTH_TEST(SpinningTimeOfImpact, Query::toi)

}  // namespace
