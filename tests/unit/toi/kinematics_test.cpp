// One body's motion and the relative motion of two (src/toi/kinematics.hpp), against rotations
// built here from Eigen's angle-axis and against Motion::at's quaternion (include/impact/toi.hpp):
// - Kinematics::at(t) places the body as exp(t·ω)·R0 and x0 + t·v, to ~1e-12 in double (1e-5 in
//   float), for spins of several turns per step;
// - RelativeMotion's fields bound what they claim to: dperp[X] is at least the largest distance
//   of x_B(t) − x_A(t) from X's spin axis over sampled t ∈ [0, 1] (and attained at an end, up to
//   its 8-ulp rounding up), v_along / v_across are v_rel's parts along and across the axis,
//   wrel ≥ |ωA − ωB|, and `speed` bounds the relative speed of every sampled point pair;
// - RelativeMotion::set_sizes (new radii and target on the same motions) gives a fresh one's
//   fields, bit for bit;
// - rotation_speed(s) bounds the rate of change of s·(x_B − x_A + R_B·b − R_A·a) for points within
//   the radii (sampled).
#include "toi/kinematics.hpp"

#include "scenes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using namespace impact;
using scenes::Rng;
using V = Eigen::Vector3d;
using M3 = Eigen::Matrix3d;

template <class S>
Motion<S> random_motion(Rng& rng, double max_spin) {
  Motion<S> m;
  m.pose.position = rng.in_cube(5).template cast<S>();
  m.pose.rotation = rng.rotation().template cast<S>();
  m.linear_velocity = rng.in_cube(4).template cast<S>();
  m.angular_velocity = (rng.uniform(0, max_spin) * rng.unit()).template cast<S>();
  return m;
}

/// exp(t·ω)·R0 by angle-axis, in double.
template <class S>
M3 reference_rotation(const Motion<S>& m, double t) {
  const V w = m.angular_velocity.template cast<double>();
  const M3 r0 = m.pose.rotation.template cast<double>().normalized().toRotationMatrix();
  const double a = w.norm();
  return a > 0 ? M3(Eigen::AngleAxisd(t * a, w / a).toRotationMatrix() * r0) : r0;
}

template <class S>
class Kinematic : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(Kinematic, Scalars);

TYPED_TEST(Kinematic, PlacementIsTheIntegratedMotion) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("kinematics at ") + scenes::scalar_name<S>()));
  const double tol = sizeof(S) == 4 ? 2e-5 : 2e-13;
  for (int c = 0; c < scenes::battery(500); ++c) {
    const Motion<S> m = random_motion<S>(rng, c % 5 == 0 ? 0.0 : 30.0);  // some without spin
    const toi::Kinematics<S> k(m, S(1));
    for (int i = 0; i <= 20; ++i) {
      const double t = i / 20.0;
      const Transform<S> tf = k.at(S(t));
      const M3 ref = reference_rotation(m, t);
      EXPECT_LE((tf.rotation.template cast<double>() - ref).norm(), tol) << "case " << c << " t " << t;
      // The same rotation as Motion::at's quaternion.
      const M3 quat = m.at(S(t)).rotation.template cast<double>().toRotationMatrix();
      EXPECT_LE((tf.rotation.template cast<double>() - quat).norm(), tol) << "case " << c << " t " << t;
      // Orthonormal, proper.
      EXPECT_LE((tf.rotation.template cast<double>().transpose() * tf.rotation.template cast<double>() - M3::Identity()).norm(), tol);
      EXPECT_NEAR(tf.rotation.template cast<double>().determinant(), 1.0, tol);
      const V x = m.pose.position.template cast<double>() + t * m.linear_velocity.template cast<double>();
      EXPECT_LE((tf.translation.template cast<double>() - x).norm(), tol * 10) << "case " << c;
    }
  }
}

// keep(t) stores the placement at t: at(t) returns it, the same bits as computed, and every other
// t (0 included) is computed as before, also on a copy.
TYPED_TEST(Kinematic, KeptPlacementIsTheComputedOne) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("kinematics keep ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(200); ++c) {
    const Motion<S> m = random_motion<S>(rng, c % 5 == 0 ? 0.0 : 30.0);
    const toi::Kinematics<S> plain(m, S(1));
    toi::Kinematics<S> kept(m, S(1));
    const S t_kept = c % 3 == 0 ? S(1) : S(rng.uniform(0, 1));
    kept.keep(t_kept);
    const toi::Kinematics<S> copy = kept;
    const toi::Kinematics<S>* const both[] = {&kept, &copy};
    for (const S t : {t_kept, S(0), S(1), S(0.5), S(rng.uniform(0, 1))}) {
      for (const toi::Kinematics<S>* k : both) {
        const Transform<S> a = k->at(t), b = plain.at(t);
        EXPECT_TRUE(a.translation == b.translation && a.rotation == b.rotation)
            << "case " << c << " t " << double(t) << " kept " << double(t_kept);
      }
    }
  }
}

TYPED_TEST(Kinematic, RelativeMotionFieldsBoundWhatTheyBound) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("kinematics relative ") + scenes::scalar_name<S>()));
  const double rel = sizeof(S) == 4 ? 1e-5 : 1e-12;
  for (int c = 0; c < scenes::battery(500); ++c) {
    const Motion<S> ma = random_motion<S>(rng, 10), mb = random_motion<S>(rng, 10);
    const double ra = rng.uniform(0.1, 2), rb = rng.uniform(0.1, 2);
    const toi::Kinematics<S> ka(ma, S(ra)), kb(mb, S(rb));
    const toi::RelativeMotion<S> r(ka, kb, S(0), S(0), S(0));
    const V xa = ma.pose.position.template cast<double>(), xb = mb.pose.position.template cast<double>();
    const V va = ma.linear_velocity.template cast<double>(), vb = mb.linear_velocity.template cast<double>();
    const V wa = ma.angular_velocity.template cast<double>(), wb = mb.angular_velocity.template cast<double>();
    const V vrel = vb - va;
    EXPECT_LE((r.vrel.template cast<double>() - vrel).norm(), rel * 10) << c;
    EXPECT_GE(double(r.wrel), (wa - wb).norm() * (1 - rel)) << c;
    for (int x = 0; x < 2; ++x) {
      const V w = x == 0 ? wa : wb;
      const V u = w.norm() > 0 ? V(w / w.norm()) : V::Zero();
      double far = 0;
      for (int i = 0; i <= 200; ++i) {
        const double t = i / 200.0;
        const V d = xb - xa + t * vrel;
        far = std::max(far, (d - d.dot(u) * u).norm());  // distance from the axis through the origin
      }
      EXPECT_GE(double(r.dperp[x]), far * (1 - rel)) << "case " << c << " body " << x;
      // Convex in t: the largest value is at an end (so not much above the sampled maximum).
      EXPECT_LE(double(r.dperp[x]), far * (1 + 100 * rel) + rel) << "case " << c << " body " << x;
      EXPECT_NEAR(double(r.v_along[x]), vrel.dot(u), rel * 10) << c;
      EXPECT_GE(double(r.v_across[x]), (vrel - vrel.dot(u) * u).norm() * (1 - rel)) << c;
    }
    // `speed` bounds how fast any point within rA of A's origin approaches any point within rB of
    // B's, at any time: sampled points and times.
    for (int i = 0; i < 50; ++i) {
      const double t = rng.uniform();
      const V pa = reference_rotation(ma, t) * (ra * rng.uniform() * rng.unit());
      const V pb = reference_rotation(mb, t) * (rb * rng.uniform() * rng.unit());
      const V relative_velocity = vb + wb.cross(pb) - va - wa.cross(pa);
      EXPECT_LE(relative_velocity.norm(), double(r.speed) * (1 + rel)) << c;
    }
  }
}

// PartSweep computes a RelativeMotion once per part and sets only its sizes per triangle
// (set_sizes): every field must then be what a fresh RelativeMotion of those sizes holds, bit for
// bit (the pair query's answers depend on them).
TYPED_TEST(Kinematic, RelativeMotionWithNewSizesIsAFreshOne) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("kinematics set_sizes ") + scenes::scalar_name<S>()));
  for (int c = 0; c < scenes::battery(500); ++c) {
    const Motion<S> ma = random_motion<S>(rng, 10), mb = random_motion<S>(rng, 10);
    toi::Kinematics<S> ka(ma, S(rng.uniform(0.1, 2))), kb(mb, S(0));
    toi::RelativeMotion<S> reused(ka, kb, S(rng.uniform(0, 1)), S(0), S(0));
    for (int k = 0; k < 3; ++k) {
      kb.radius = S(rng.uniform(0, 3));
      const S ra = S(rng.uniform(0, 1)), rb = S(rng.uniform(0, 1)), target = S(rng.uniform(0, 0.5));
      reused.set_sizes(ka, kb, ra, rb, target);
      const toi::RelativeMotion<S> fresh(ka, kb, ra, rb, target);
      EXPECT_EQ(reused.speed, fresh.speed) << c;
      EXPECT_EQ(reused.slack, fresh.slack) << c;
      EXPECT_EQ(reused.vrel, fresh.vrel) << c;
      EXPECT_EQ(reused.wrel, fresh.wrel) << c;
      for (int x = 0; x < 2; ++x) {
        EXPECT_EQ(reused.dperp[x], fresh.dperp[x]) << c;
        EXPECT_EQ(reused.v_along[x], fresh.v_along[x]) << c;
        EXPECT_EQ(reused.v_across[x], fresh.v_across[x]) << c;
      }
    }
  }
}

TYPED_TEST(Kinematic, RotationSpeedBoundsTheTurningRate) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("kinematics rotation speed ") + scenes::scalar_name<S>()));
  const double rel = sizeof(S) == 4 ? 1e-5 : 1e-12;
  double best = 0;
  for (int c = 0; c < scenes::battery(500); ++c) {
    const Motion<S> ma = random_motion<S>(rng, 10), mb = random_motion<S>(rng, 10);
    const double ra = rng.uniform(0.1, 2), rb = rng.uniform(0.1, 2);
    const toi::Kinematics<S> ka(ma, S(ra)), kb(mb, S(rb));
    const V s = rng.unit();
    const double k = double(toi::rotation_speed<S>(s.template cast<S>(), ka, kb));
    // Body points a, b (at most the radii from the origins) turning: the rate of s·(R_B b − R_A a).
    for (int i = 0; i < 50; ++i) {
      const double t = rng.uniform();
      const V pa = reference_rotation(ma, t) * (ra * rng.unit()), pb = reference_rotation(mb, t) * (rb * rng.unit());
      const double rate = s.dot(mb.angular_velocity.template cast<double>().cross(pb) -
                                ma.angular_velocity.template cast<double>().cross(pa));
      EXPECT_LE(std::abs(rate), k * (1 + rel) + rel) << c;
      if (k > 0) best = std::max(best, std::abs(rate) / k);
    }
  }
  EXPECT_GT(best, 0.8);  // attained nearly: not a loose constant
}

}  // namespace
