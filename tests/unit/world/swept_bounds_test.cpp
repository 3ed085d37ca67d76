// The world's culling geometry (src/world/swept_bounds.hpp, segment_triangle.hpp) against
// sampling: a swept sphere holds every point of a turning part at every sampled time; two swept
// spheres are never within the gap before their `first_entry`; the segment–triangle distance is
// never above the distance of any sampled pair of points and within sampling error of the least.
#include "world/segment_triangle.hpp"
#include "world/swept_bounds.hpp"

#include <gtest/gtest.h>

#include <random>

namespace {

using namespace impact;
using namespace impact::world_detail;

Vec3d rnd(std::mt19937_64& g, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  return {u(g), u(g), u(g)};
}

TEST(WorldBounds, APartStaysInItsSweptSphereWhileTurning) {
  std::mt19937_64 g(5);
  for (int k = 0; k < 2000; ++k) {
    Motion<double> m;
    Quat<double> q(rnd(g, -1, 1).x(), rnd(g, -1, 1).y(), rnd(g, -1, 1).z(), 0.5);
    m.pose = {rnd(g, -5, 5), q.normalized()};
    m.linear_velocity = rnd(g, -5, 5);
    // From a sliver of a turn (the chord bound) to four turns (the origin's line).
    m.angular_velocity = rnd(g, -1, 1).normalized() * std::pow(10.0, std::uniform_real_distribution<double>(-2, 1.4)(g));
    const BodyPath path = BodyPath::of(m);
    const Vec3d c = rnd(g, -2, 2);
    const double r = 0.3;
    const SweptSphere s = path.piece(c, r);
    for (int i = 0; i <= 200; ++i) {
      const double t = i / 200.0;
      const Pose<double> p = m.at(t);
      const Vec3d centre = p.apply(c);
      const Vec3d line = s.p0 + t * (s.p1 - s.p0);
      // A point of the part is within r of its centre: the centre must be within s.r − r of the line.
      ASSERT_LE((centre - line).norm(), s.r - r + 1e-12) << "turn " << m.angular_velocity.norm() << " t " << t;
    }
  }
}

TEST(WorldBounds, SweptSpheresNeverMeetBeforeTheirFirstEntry) {
  std::mt19937_64 g(6);
  int met = 0;
  for (int k = 0; k < 5000; ++k) {
    const SweptSphere a{rnd(g, -3, 3), rnd(g, -3, 3), std::uniform_real_distribution<double>(0, 1.5)(g)};
    const SweptSphere b{rnd(g, -3, 3), rnd(g, -3, 3), std::uniform_real_distribution<double>(0, 1.5)(g)};
    const double gap = 0.1;
    const double t0 = first_entry(a, b, gap);
    met += t0 != kNever;
    if (t0 != kNever) {  // and it is tight: at t0 they are that close
      const Vec3d ca = a.p0 + t0 * (a.p1 - a.p0), cb = b.p0 + t0 * (b.p1 - b.p0);
      EXPECT_LE((cb - ca).norm(), a.r + b.r + gap + 1e-9);
    }
    for (int i = 0; i <= 400; ++i) {
      const double t = i / 400.0;
      const Vec3d ca = a.p0 + t * (a.p1 - a.p0), cb = b.p0 + t * (b.p1 - b.p0);
      if ((cb - ca).norm() <= a.r + b.r + gap) {
        ASSERT_NE(t0, kNever);
        ASSERT_LE(t0, t);
        break;
      }
    }
  }
  EXPECT_GT(met, 1500);
  EXPECT_LT(met, 3500);
}

TEST(WorldBounds, SegmentTriangleDistanceAgainstSampling) {
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(0, 1);
  for (int k = 0; k < 3000; ++k) {
    const Vec3d a = rnd(g, -1, 1), b = rnd(g, -1, 1), c = rnd(g, -1, 1);
    Vec3d q0 = rnd(g, -2, 2), q1 = rnd(g, -2, 2);
    if (k % 3 == 0) q1 = q0 + 0.01 * (q1 - q0);  // short segments
    const double d = segment_triangle_distance(q0, q1, a, b, c);
    double sampled = 1e300;
    for (int i = 0; i <= 40; ++i) {
      const Vec3d q = q0 + (i / 40.0) * (q1 - q0);
      for (int j = 0; j <= 20; ++j)
        for (int l = 0; j + l <= 20; ++l) {
          const Vec3d p = a + (j / 20.0) * (b - a) + (l / 20.0) * (c - a);
          sampled = std::min(sampled, (q - p).norm());
        }
    }
    ASSERT_LE(d, sampled + 1e-12) << k;
    // Sampling steps of 1/40 of the segment and 1/20 of the triangle's edges bound its error.
    const double step = (q1 - q0).norm() / 40 + ((b - a).norm() + (c - a).norm()) / 20;
    ASSERT_GE(d, sampled - step) << k;
  }
}

}  // namespace
