// The box–box shape cast by the separating axis test under linear motion
// (src/cast/box_box_sat_cast.hpp), in float and double:
// - closed forms for each kind of first contact: face on face, edge across edge, vertex on face;
// - a seeded battery of random boxes against the GJK ray cast on the same pairs
//   (`closed_form = false`): the same status outside grazes, times that agree within what the
//   tolerance allows, contact points on the boxes' surfaces (an independent box distance), and
//   the share of hits the separating axis test answers itself (iterations 0), so that a fast path
//   that silently declined everything would fail;
// - boxes with parallel edges (axis-aligned, and one turned a multiple of 90°) and flat boxes
//   (a zero half extent), the cases the test treats specially.
// The property battery ShapeCast.BoxBoxMovingSat* certifies the same path against an
// independent moving-SAT oracle over polytope vertices.
#include "scenes.hpp"

#include <impact/cast.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace {

using namespace impact;
using scenes::Rng;
using V = Eigen::Vector3d;

template <class S>
class BoxBoxSatCast : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(BoxBoxSatCast, Scalars);

template <class S>
Vec3<S> vs(const V& v) {
  return v.template cast<S>();
}

/// Signed distance from a world point to a box (half extents h at pose), computed directly:
/// positive outside (Euclidean), minus the depth inside.
template <class S>
double box_signed_distance(const Vec3<S>& h, const Pose<S>& pose, const Vec3<S>& p) {
  const Eigen::Matrix3d r = pose.rotation.template cast<double>().normalized().toRotationMatrix();
  const V local = r.transpose() * (p.template cast<double>() - pose.position.template cast<double>());
  const V excess = local.cwiseAbs() - h.template cast<double>();
  return excess.maxCoeff() > 0 ? excess.cwiseMax(0.0).norm() : excess.maxCoeff();
}

template <class S>
double eps_len() {
  return sizeof(S) == 4 ? 2e-5 : 1e-9;  // a few units of rounding on scenes of size ~5
}

template <class S>
CastHit<S> cast(const Vec3<S>& ha, const Pose<S>& pa, const V& va, const Vec3<S>& hb, const Pose<S>& pb, const V& vb,
                bool closed_form = true) {
  ShapeCastOptions<S> opt;
  opt.closed_form = closed_form;
  return shape_cast<S>(Shape<S>(Box<S>{ha}), pa, vs<S>(va), Shape<S>(Box<S>{hb}), pb, vs<S>(vb), opt);
}

template <class S>
Pose<S> pose(const V& p, const Eigen::Quaterniond& q = Eigen::Quaterniond::Identity()) {
  Pose<S> x;
  x.position = vs<S>(p);
  x.rotation = q.template cast<S>();
  return x;
}

TYPED_TEST(BoxBoxSatCast, FaceOnFaceClosedForm) {
  using S = TypeParam;
  // Unit cubes, B from x = 5 toward A by 10: faces meet at x = 1 when B's centre is at 2, t = 0.3.
  const Vec3<S> h(1, 1, 1);
  const CastHit<S> c = cast<S>(h, pose<S>(V::Zero()), V::Zero(), h, pose<S>(V(5, 0.5, 0)), V(-10, 0, 0));
  ASSERT_EQ(c.status, Status::hit);
  EXPECT_EQ(c.iterations, 0);
  EXPECT_NEAR(double(c.toi), 0.3, 4 * eps_len<S>());
  EXPECT_LE(double(c.toi), 0.3 + 1e-15);
  EXPECT_NEAR((c.normal.template cast<double>() - V(1, 0, 0)).norm(), 0, 1e-6);
  // The touching faces overlap in y ∈ [−0.5, 1], z ∈ [−1, 1]: the points lie in it, on x = 1.
  for (const Vec3<S>& p : {c.point_a, c.point_b}) {
    EXPECT_NEAR(double(p.x()), 1, 4 * eps_len<S>());
    EXPECT_GE(double(p.y()), -0.5 - eps_len<S>());
    EXPECT_LE(double(p.y()), 1 + eps_len<S>());
    EXPECT_LE(std::abs(double(p.z())), 1 + eps_len<S>());
  }
}

TYPED_TEST(BoxBoxSatCast, EdgeAcrossEdgeClosedForm) {
  using S = TypeParam;
  // A turned 45° about z has an edge along z at x = √2; B turned 45° about y has an edge along y
  // at x = X − √2 (X its centre). They cross at (√2, 0, 0) when X = 2√2.
  const Vec3<S> h(1, 1, 1);
  const Eigen::Quaterniond qa(Eigen::AngleAxisd(M_PI / 4, V::UnitZ()));
  const Eigen::Quaterniond qb(Eigen::AngleAxisd(M_PI / 4, V::UnitY()));
  const CastHit<S> c = cast<S>(h, pose<S>(V::Zero(), qa), V::Zero(), h, pose<S>(V(5, 0, 0), qb), V(-10, 0, 0));
  ASSERT_EQ(c.status, Status::hit);
  EXPECT_EQ(c.iterations, 0);
  const double toi = (5 - 2 * std::sqrt(2.0)) / 10;
  EXPECT_NEAR(double(c.toi), toi, 4 * eps_len<S>());
  EXPECT_NEAR((c.normal.template cast<double>() - V(1, 0, 0)).norm(), 0, 1e-5);
  EXPECT_NEAR((c.point_a.template cast<double>() - V(std::sqrt(2.0), 0, 0)).norm(), 0, 8 * eps_len<S>());
  EXPECT_NEAR((c.point_b.template cast<double>() - V(std::sqrt(2.0), 0, 0)).norm(), 0, 8 * eps_len<S>());
}

TYPED_TEST(BoxBoxSatCast, VertexOnFaceClosedForm) {
  using S = TypeParam;
  // B turned so that its diagonal (1, 1, 1) points down −z: its lowest vertex is √3 below its
  // centre. Falling from z = 6 by −8 onto A's top face z = 1: contact when B's centre is at
  // 1 + √3, at the point (0.2, −0.3, 1).
  const Vec3<S> h(1, 1, 1);
  const Eigen::Quaterniond qb = Eigen::Quaterniond::FromTwoVectors(V(1, 1, 1).normalized(), V(0, 0, 1));
  const CastHit<S> c = cast<S>(h, pose<S>(V::Zero()), V::Zero(), h, pose<S>(V(0.2, -0.3, 6), qb), V(0, 0, -8));
  ASSERT_EQ(c.status, Status::hit);
  EXPECT_EQ(c.iterations, 0);
  EXPECT_NEAR(double(c.toi), (6 - 1 - std::sqrt(3.0)) / 8, 4 * eps_len<S>());
  EXPECT_NEAR((c.normal.template cast<double>() - V(0, 0, 1)).norm(), 0, 1e-5);
  EXPECT_NEAR((c.point_a.template cast<double>() - V(0.2, -0.3, 1)).norm(), 0, 8 * eps_len<S>());
  EXPECT_NEAR((c.point_b.template cast<double>() - V(0.2, -0.3, 1)).norm(), 0, 8 * eps_len<S>());
}

TYPED_TEST(BoxBoxSatCast, PointThroughAPlateOfZeroThicknessIsAHit) {
  using S = TypeParam;
  // Every axis interval of a point against a plate's normal is a single instant: rounding may
  // make the common interval empty by an ulp, which must not be answered as a miss (a bullet
  // through a thin wall). The point crosses z = 0 at t = 0.5, inside the plate.
  for (const double x : {0.3, 0.999, -0.7}) {
    const CastHit<S> c = cast<S>(Vec3<S>(1, 1, 0), pose<S>(V::Zero()), V::Zero(), Vec3<S>(0, 0, 0),
                                 pose<S>(V(x, 0.2, 1)), V(0, 0, -2));
    ASSERT_EQ(c.status, Status::hit) << "x " << x;
    EXPECT_LE(double(c.toi), 0.5 + 1e-15);
    EXPECT_GE(double(c.toi), 0.5 - double(ShapeCastOptions<S>{}.tolerance));
  }
  // The same plate passed beside, 2 tolerances off its edge: a miss.
  const double off = 1 + 2 * double(ShapeCastOptions<S>{}.tolerance);
  const CastHit<S> m = cast<S>(Vec3<S>(1, 1, 0), pose<S>(V::Zero()), V::Zero(), Vec3<S>(0, 0, 0),
                               pose<S>(V(off, 0.2, 1)), V(0, 0, -2));
  EXPECT_EQ(m.status, Status::miss);
}

/// One random pair: boxes of half extents 0.2–1.5 (`flat`: one of B's is 0), A near the origin
/// drifting, B 3–6 away aimed near A. `turns`: rotations are multiples of 90° (parallel edges).
template <class S>
struct Case {
  Vec3<S> ha, hb;
  Pose<S> pa, pb;
  V va, vb;
};

template <class S>
Case<S> random_case(Rng& rng, bool turns, bool flat) {
  auto rotation = [&] {
    if (!turns) return rng.rotation();
    const V axes[3] = {V::UnitX(), V::UnitY(), V::UnitZ()};
    return Eigen::Quaterniond(Eigen::AngleAxisd(M_PI / 2 * rng.index(4), axes[rng.index(3)]));
  };
  Case<S> c;
  c.ha = vs<S>(V(rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5)));
  c.hb = vs<S>(V(rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5), rng.uniform(0.2, 1.5)));
  if (flat) c.hb[rng.index(3)] = S(0);
  const V a = rng.in_cube(0.5);
  const V b = a + rng.unit() * rng.uniform(3, 6);
  c.pa = pose<S>(a, rotation());
  c.pb = pose<S>(b, rotation());
  c.va = rng.in_cube(0.3);
  c.vb = (a + rng.in_cube(3.2) - b) * rng.uniform(0.8, 2.0);
  return c;
}

template <class S>
void agreement_battery(const std::string& name, bool turns, bool flat) {
  SCOPED_TRACE(name);
  Rng rng(scenes::seed_of(name));
  const int cases = scenes::battery(4000);
  const double tol = double(ShapeCastOptions<S>{}.tolerance);
  int hits = 0, sat_hits = 0, failures = 0;
  for (int i = 0; i < cases && failures < 10; ++i) {
    const Case<S> c = random_case<S>(rng, turns, flat);
    const CastHit<S> sat = cast<S>(c.ha, c.pa, c.va, c.hb, c.pb, c.vb, true);
    const CastHit<S> gjk = cast<S>(c.ha, c.pa, c.va, c.hb, c.pb, c.vb, false);
    const std::string what = "case " + std::to_string(i) + ": sat " + std::string(to_string(sat.status)) + " toi " +
                             std::to_string(double(sat.toi)) + ", gjk " + std::string(to_string(gjk.status)) +
                             " toi " + std::to_string(double(gjk.toi));
    const V v = c.vb - c.va;
    const double slack = tol + 8 * eps_len<S>();
    if (sat.status != gjk.status) {
      // Only a graze may differ: a GJK hit that the test calls a miss comes within the tolerance.
      const bool graze = sat.status == Status::miss && gjk.status == Status::hit;
      EXPECT_TRUE(graze) << what;
      failures += !graze;
      continue;
    }
    if (sat.status != Status::hit) continue;
    ++hits;
    sat_hits += sat.iterations == 0;
    // Both times are lower bounds of the first contact within the tolerance: the distance at
    // the other's time is at most tol, so along the normal they differ by at most about tol.
    const double rate = std::max(std::abs(double(sat.normal.template cast<double>().dot(v))), 1e-3);
    EXPECT_LE(std::abs(double(sat.toi) - double(gjk.toi)) * rate, 2 * slack) << what;
    // The points lie on the boxes at toi, and coincide.
    Pose<S> pa = c.pa, pb = c.pb;
    pa.position += vs<S>(double(sat.toi) * c.va);
    pb.position += vs<S>(double(sat.toi) * c.vb);
    const double da = box_signed_distance<S>(c.ha, pa, sat.point_a);
    const double db = box_signed_distance<S>(c.hb, pb, sat.point_b);
    EXPECT_LE(std::abs(da), slack) << what;
    EXPECT_LE(std::abs(db), slack) << what;
    EXPECT_LE((sat.point_b - sat.point_a).template cast<double>().norm(), slack) << what;
    failures += !(std::abs(da) <= slack && std::abs(db) <= slack);
  }
  // About half the cases hit; the separating axis test answers nearly all of them itself (it
  // declines hits within the tolerance of t = 0, nearly parallel edges and unclear features).
  EXPECT_GT(hits, cases * 3 / 10) << name;
  EXPECT_LT(hits, cases * 7 / 10) << name;
  testing::Test::RecordProperty("sat_hits", std::to_string(sat_hits) + " of " + std::to_string(hits) + " hits, " + std::to_string(cases) + " cases");
  EXPECT_GE(sat_hits, hits * 95 / 100) << name << ": the separating axis test answered " << sat_hits << " of "
                                       << hits << " hits";
}

TYPED_TEST(BoxBoxSatCast, RandomBoxesAgreeWithTheGjkRayCast) {
  agreement_battery<TypeParam>(std::string("sat random ") + scenes::scalar_name<TypeParam>(), false, false);
}

TYPED_TEST(BoxBoxSatCast, BoxesWithParallelEdgesAgreeWithTheGjkRayCast) {
  agreement_battery<TypeParam>(std::string("sat turns ") + scenes::scalar_name<TypeParam>(), true, false);
}

TYPED_TEST(BoxBoxSatCast, FlatBoxesAgreeWithTheGjkRayCast) {
  agreement_battery<TypeParam>(std::string("sat flat ") + scenes::scalar_name<TypeParam>(), false, true);
}

}  // namespace
