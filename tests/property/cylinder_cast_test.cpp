// Cylinder–cylinder shape casts by Newton's method on the CSO's support function
// (detail/cylinder_cast.hpp), checked against the test oracles, not the library:
//  - a seeded battery of 10,000 sweeps per precision placed like the benchmark's (every sweep
//    starts apart, about half hit; half of them with a target distance): the Newton path must
//    answer almost all of them on its own (else the GJK ray cast silently does the work), and
//    every hit of the public `shape_cast` must be exact by certificate at its time: both points on
//    their surfaces (oracle signed distance), |point_b − point_a| at most target + tolerance, and
//    the separation along the normal (oracle support values) at least target − tolerance with the
//    shapes approaching along it, which proves that no earlier time comes closer than the target;
//    misses agree with the GJK ray cast (closed_form = false), a second algorithm;
//  - closed forms through the public `shape_cast`: caps landing on caps, sides on sides (parallel
//    and crossed), a side on a cap, a tilted rim on a cap, and a side landing on a rim (a curved
//    contact with a closed-form normal), with and without a target distance.
#include "oracles.hpp"
#include "scenes.hpp"

#include <impact/cast.hpp>
#include "detail/cylinder_cast.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

using namespace impact;
using oracle::V;

template <class S>
class CylinderCast : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(CylinderCast, Scalars);

/// The body of `shape` at `pose` moved by t·v (oracle, double).
template <class S>
oracle::Body moved_body(const Cylinder<S>& c, const Pose<S>& pose, const Vec3<S>& v, double t) {
  Pose<S> p = pose;
  p.position = (pose.position.template cast<double>() + t * v.template cast<double>()).template cast<S>();
  oracle::Body b = oracle::make_body<S>(Shape<S>(c), p);
  b.pos = pose.position.template cast<double>() + t * v.template cast<double>();  // unrounded
  return b;
}

TYPED_TEST(CylinderCast, NewtonAnswersAlmostEverySweepAndEveryHitIsExact) {
  using S = TypeParam;
  constexpr bool kDouble = sizeof(S) == 8;
  scenes::Rng rng(scenes::seed_of(std::string("cylinder cast ") + scenes::scalar_name<S>()));
  auto in = [&](double lo, double hi) { return rng.uniform(lo, hi); };
  const double tol = Tolerances<S>::cast_tolerance;
  const double slack = kDouble ? 1e-9 : 2e-5;  // rounding of the inputs and the oracle, per unit size
  int newton = 0, hits = 0, misses = 0, bad = 0;
  constexpr int kCases = scenes::battery(10000);
  for (int i = 0; i < kCases; ++i) {
    const Cylinder<S> a{S(in(0.1, 1)), S(in(0.1, 1))}, b{S(in(0.1, 1)), S(in(0.1, 1))};
    const double target = i % 2 == 0 ? 0.0 : in(0, 0.2);
    Pose<S> pa, pb;
    pa.position = Vec3<double>(in(-5, 5), in(-5, 5), in(-5, 5)).cast<S>();
    pa.rotation = rng.rotation().cast<S>();
    pb.rotation = rng.rotation().cast<S>();
    pa.rotation.normalize();
    pb.rotation.normalize();
    const double reach = std::hypot(double(a.radius), double(a.half_height)) +
                         std::hypot(double(b.radius), double(b.half_height));
    const V u = rng.unit();
    pb.position = (pa.position.template cast<double>() + (in(1.02, 2) * reach + target) * u).template cast<S>();
    // B's motion relative to A aimed at A's centre plus a lateral offset, long enough to reach.
    const V w = u.cross(rng.unit()).normalized();
    const V aim = pa.position.template cast<double>() + in(0, 1.8) * reach * w - pb.position.template cast<double>();
    const Vec3<S> va = Vec3<double>(in(-1, 1), in(-1, 1), in(-1, 1)).cast<S>();
    const Vec3<S> vb = (va.template cast<double>() + in(0.7, 1.5) * aim).template cast<S>();
    ShapeCastOptions<S> opt;
    opt.target_distance = S(target);

    // The solver on its own, with the inputs shape_cast gives it (up to the rounding of the axes:
    // the answer below counts as Newton's when it is this one).
    detail::CylinderCastAnswer r;
    {
      const Transform<S> ta(pa), tb(pb);
      const detail::CastCylinder parts[2] = {
          {V::Zero(), ta.rotation.col(2).template cast<double>(), double(a.radius), double(a.half_height)},
          {pa.position.template cast<double>() - pb.position.template cast<double>(),
           tb.rotation.col(2).template cast<double>(), double(b.radius), double(b.half_height)}};
      r = detail::cylinder_cast(parts, target, (vb - va).template cast<double>(), 1.0, double(tol));
      newton += r.kind != detail::CylinderCastAnswer::Kind::unknown;
    }

    const auto h = shape_cast(Shape<S>(a), pa, va, Shape<S>(b), pb, vb, opt);
    const double size = reach + pa.position.template cast<double>().norm() + vb.template cast<double>().norm();
    if (h.status == Status::miss) {
      ++misses;
      ShapeCastOptions<S> gjk = opt;
      gjk.closed_form = false;
      const auto g = shape_cast(Shape<S>(a), pa, va, Shape<S>(b), pb, vb, gjk);
      if (g.status == Status::hit && !(double(g.toi) > 1 - 1e-6)) {
        // GJK stops within its tolerance: a graze it calls a hit must come within that of the target.
        const oracle::Body oa = moved_body(a, pa, va, double(g.toi)), ob = moved_body(b, pb, vb, double(g.toi));
        const double d = (g.point_b - g.point_a).template cast<double>().norm();
        if (!(d > target + tol - slack * size) &&
            oracle::separation_along(oa, ob, g.normal.template cast<double>()) < target) {
          ++bad;
          ADD_FAILURE() << "case " << i << ": miss, but GJK finds a contact at " << g.toi;
        }
      }
      continue;
    }
    ASSERT_EQ(h.status, Status::hit) << "case " << i;
    ++hits;
    const double t = double(h.toi);
    const bool by_newton = r.kind == detail::CylinderCastAnswer::Kind::hit && std::abs(t - r.lambda) <= 1e-6 &&
                           (h.normal.template cast<double>() - r.normal).norm() <= 1e-6;
    const oracle::Body oa = moved_body(a, pa, va, t), ob = moved_body(b, pb, vb, t);
    const V pa_w = h.point_a.template cast<double>(), pb_w = h.point_b.template cast<double>();
    const V n = h.normal.template cast<double>();
    const double on_a = std::abs(oracle::signed_distance(oa, pa_w)), on_b = std::abs(oracle::signed_distance(ob, pb_w));
    const double gap = (pb_w - pa_w).norm();
    const double sep = oracle::separation_along(oa, ob, n);
    const double closing = n.dot((vb - va).template cast<double>());
    // The points lie along the normal, up to the certificate's slack: |point_b − point_a − target·n|
    // is at most the tolerance, so their direction is off by at most tolerance / target.
    const double tilt = target > 100 * tol ? n.cross((pb_w - pa_w) / gap).norm() : 0.0;
    const double max_tilt = by_newton ? 2 * (tol + slack * size) / std::max(target, 100 * tol) + 1e-6 : 1.0;
    // Newton's points are support points, on the surfaces to rounding; the GJK ray cast's (the
    // few sweeps it answers) are its simplex's, within the tolerance.
    const double off = by_newton ? slack * size : tol + slack * size;
    if (!(on_a <= off && on_b <= off && gap <= target + tol + slack * size &&
          sep >= target - tol - slack * size && closing < 0 && std::abs(n.norm() - 1) <= slack && tilt <= max_tilt)) {
      ++bad;
      ADD_FAILURE() << "case " << i << ": toi " << t << " off surfaces " << on_a << ", " << on_b << " |pb − pa| " << gap
                    << " separation along n " << sep << " target " << target << " closing speed " << closing
                    << " normal off the points' direction by " << tilt;
    }
  }
  EXPECT_EQ(bad, 0);
  // Measured: 99.9% of the sweeps answered by Newton (the rest are GJK's).
  EXPECT_GE(newton, kCases * 99 / 100);
  EXPECT_GE(hits, kCases * 3 / 10);
  EXPECT_LE(hits, kCases * 7 / 10);
  std::printf("cylinder cast %s: %d of %d answered by Newton; %d hits, %d misses\n", kDouble ? "double" : "float",
              newton, kCases, hits, misses);
}

/// A cast through the public query against its closed form: time, normal, and both points on
/// the contact (`expect_point` where the contact point is unique).
template <class S>
void expect_cast(const Cylinder<S>& a, const Pose<S>& pa, const Cylinder<S>& b, const Pose<S>& pb, const Vec3<S>& vb,
                 double target, double toi, const V& normal, const char* what) {
  const double tol = sizeof(S) == 8 ? 1e-9 : 1e-4;
  ShapeCastOptions<S> opt;
  opt.target_distance = S(target);
  const auto h = shape_cast(Shape<S>(a), pa, Vec3<S>(Vec3<S>::Zero()), Shape<S>(b), pb, vb, opt);
  ASSERT_EQ(h.status, Status::hit) << what << " target " << target;
  const double speed = vb.template cast<double>().norm();
  EXPECT_LE(double(h.toi), toi + tol / speed) << what << " target " << target;  // never late
  EXPECT_GE(double(h.toi), toi - (Tolerances<S>::cast_tolerance + tol) / speed) << what << " target " << target;
  EXPECT_LE((h.normal.template cast<double>() - normal).norm(), sizeof(S) == 8 ? 1e-6 : 1e-3) << what;
  EXPECT_NEAR((h.point_b - h.point_a).template cast<double>().norm(), target, Tolerances<S>::cast_tolerance + tol) << what;
}

TYPED_TEST(CylinderCast, ClosedForms) {
  using S = TypeParam;
  const Quat<S> id = Quat<S>::Identity();
  const Quat<S> along_y(Eigen::AngleAxis<S>(S(M_PI / 2), Vec3<S>::UnitX()));  // axis z turned onto −y
  auto at = [](double x, double y, double z, const Quat<S>& q) {
    return Pose<S>{Vec3<double>(x, y, z).cast<S>(), q};
  };
  const Cylinder<S> a{S(0.5), S(1)}, b{S(0.3), S(0.8)};
  const Vec3<S> down(0, 0, -2), left(-2, 0, 0);
  for (double target : {0.0, 0.05}) {
    // Coaxial-ish caps: B's bottom cap lands on A's top cap.
    expect_cast(a, at(0, 0, 0, id), b, at(0.1, 0, 3, id), down, target, (3 - 1 - 0.8 - target) / 2, V::UnitZ(),
                "cap on cap");
    // Parallel axes: side against side.
    expect_cast(a, at(0, 0, 0, id), b, at(2, 0, 0.3, id), left, target, (2 - 0.8 - target) / 2, V::UnitX(),
                "parallel sides");
    // Crossed axes (z and y): side against side.
    expect_cast(a, at(0, 0, 0, id), b, at(2, 0, 0, along_y), left, target, (2 - 0.8 - target) / 2, V::UnitX(),
                "crossed sides");
    // B lying on its side (axis y) lands on A's cap.
    expect_cast(a, at(0, 0, 0, id), b, at(0.1, 0, 3, along_y), down, target, (3 - 1 - 0.3 - target) / 2, V::UnitZ(),
                "side on cap");
    // B tilted by 30° about x: its lowest rim point lands on A's cap.
    const double th = M_PI / 6;
    const Quat<S> tilted(Eigen::AngleAxis<S>(S(th), Vec3<S>::UnitX()));
    const double low = 0.3 * std::sin(th) + 0.8 * std::cos(th);
    expect_cast(a, at(0, 0, 0, id), b, at(0, 0.05, 3, tilted), down, target, (3 - 1 - low - target) / 2, V::UnitZ(),
                "tilted rim on cap");
    // B lying along x, its axis 0.6 from A's axis sideways, falls onto A's top rim: B's curved side
    // meets the rim circle at its point (0, 0.5, 1); the normal points from there to B's axis.
    const Quat<S> along_x(Eigen::AngleAxis<S>(S(M_PI / 2), Vec3<S>::UnitY()));
    const double off = 0.6 - 0.5, rise = std::sqrt((0.3 + target) * (0.3 + target) - off * off);
    expect_cast(a, at(0, 0, 0, id), b, at(0, 0.6, 3, along_x), down, target, (3 - 1 - rise) / 2,
                V(0, off, rise) / (0.3 + target), "side on rim");
  }
}

}  // namespace
