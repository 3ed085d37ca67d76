// Regression: GJK called a cone 0.92 away from a sliver triangle `intersecting` (float).
//
// Found by fuzzing (fuzz_mesh, CI of 2026-11-28: the tree and brute force disagreed): a cone in a
// TransformedShape against a triangle with a corner at y = 1e12, in float. The mesh shape cast's
// first pass (B not moving) asked the pair cast whether they touch at t = 0; GJK said yes, with
// ‖v‖ = 5.2 and uncertified, and the brute force reported `initially_overlapping` where the tree
// (rightly) culled the triangle.
//
// The cause: after two support points (the far corner and a near one), v is a combination of a
// point 1e12 away and its direction is off; the support along −v came back to the far corner,
// but a hair away from the copy already in W (the cone's own support point moves with the
// direction), so gjk_reaim's `contains` test did not fire. The new vertex made no progress, and
// gjk_stall's rule (no separating plane seen: touching) answered `intersecting`. Now, before that
// rule, the support along W's own normal is tried, and the descent goes on from it when it is new.
//
// The battery: cones and cylinders (in TransformedShapes, at random poses) above slivers 1e3 to
// 1e12 long lying in the plane z = 0, a known gap apart, in float, with B placed in A's frame in
// float as the casts do: GJK must not call any of them intersecting. Before the fix 12 of 4,000
// were (all in the Boolean test).
#include <impact/cast.hpp>
#include <impact/mesh.hpp>
#include <impact/query.hpp>

#include "detail/gjk.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>

namespace {

using namespace impact;
using F = float;
using V = Vec3<F>;

TEST(GjkSliverStall, FuzzFinding) {
  Pose<F> inner;
  inner.position = V(F(-0.5), F(-2.3964425963640679e-06), F(3.75));
  inner.rotation = Quat<F>(F(0.66950410604476929), F(-0.42886021733283997), F(-0.42886021733283997),
                           F(-0.42886021733283997));
  const Shape<F> s{TransformedShape<F>{std::make_shared<const Shape<F>>(Cone<F>{F(4), F(3.75)}), inner}};
  Pose<F> q;
  q.position = V(F(3.75), F(3.75), F(-1.5));
  q.rotation = Quat<F>(F(-0.80812883377075195), F(-9.1876377522821438e-19), F(-0.41648992896080017),
                       F(-0.41648992896080017));
  const V a(F(-2.5), F(999999995904), F(0.25)), b(F(3.75), F(3.75), F(-1.5)), c(F(0.25), F(0.25), F(0.25));
  const Shape<F> tri{Triangle<F>{a, b, c}};
  // The distance in double (the same float inputs, widened): 0.9157.
  const Shape<double> sd{TransformedShape<double>{
      std::make_shared<const Shape<double>>(Cone<double>{4, 3.75}),
      Pose<double>{inner.position.cast<double>(), inner.rotation.cast<double>()}}};
  const DistanceResult<double> dd =
      distance<double>(sd, Pose<double>{q.position.cast<double>(), q.rotation.cast<double>()},
                       Shape<double>{Triangle<double>{a.cast<double>(), b.cast<double>(), c.cast<double>()}}, Pose<double>{});
  ASSERT_EQ(dd.status, Status::separated);
  ASSERT_NEAR(dd.distance, 0.9157, 1e-4);
  EXPECT_EQ(intersect<F>(s, q, tri, Pose<F>{}).status, Status::separated);
  const DistanceResult<F> df = distance<F>(s, q, tri, Pose<F>{});
  EXPECT_EQ(df.status, Status::separated);
  EXPECT_NEAR(df.distance, dd.distance, 1e-4);
  for (CastMethod m : {CastMethod::gjk_raycast, CastMethod::conservative_advancement, CastMethod::mpr}) {
    ShapeCastOptions<F> o;
    o.method = m;
    o.tolerance = F(1e-4);
    const CastHit<F> h = shape_cast<F>(s, q, V::Zero(), tri, Pose<F>{}, V::Zero(), o);
    EXPECT_EQ(h.status, Status::miss) << "method " << static_cast<int>(m);
  }
  // The mesh cast, as fuzz_mesh ran it: tree and brute force agree.
  TriangleMesh<F> mesh;
  mesh.vertices = {a, b, c, V(F(0.25), F(0.25), F(-1.5))};
  mesh.triangles = {{0, 1, 3}, {0, 1, 2}};
  ASSERT_TRUE(build_mesh(mesh).empty());
  MeshShapeOptions<F> mo;
  mo.tolerance = F(1e-4);
  const V vel(F(0.52145195007324219), F(-7.2852628818509402e-08), F(-0.5));
  const MeshCastHit<F> tree = mesh_shape_cast(mesh, s, q, vel, mo);
  mo.brute_force = true;
  const MeshCastHit<F> brute = mesh_shape_cast(mesh, s, q, vel, mo);
  EXPECT_EQ(tree.status, brute.status);
  EXPECT_NE(brute.status, Status::initially_overlapping);
  if (tree.status == brute.status && tree.status != Status::miss) {
    EXPECT_EQ(tree.toi, brute.toi);
  }
}

TEST(GjkSliverStall, CurvedShapesAboveSlivers) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1), len_exp(3, 12), gap(0.05, 2);
  int wrong = 0;
  for (int i = 0; i < 4000; ++i) {
    // The sliver lies in z = 0 (exact in float): two corners near the origin, one 1e3..1e12 out.
    const double len = std::pow(10.0, len_exp(rng)), angle = 3.14159 * u(rng);
    const V n0(F(u(rng)), F(u(rng)), 0), n1(F(u(rng)), F(u(rng)), 0);
    const V far(F(len * std::cos(angle)), F(len * std::sin(angle)), 0);
    const Triangle<F> tri{far, n0, n1};
    const F r = F(0.2 + std::abs(u(rng))), h = F(0.2 + std::abs(u(rng)));
    const Shape<F> core = (i % 2) ? Shape<F>(Cone<F>{r, h}) : Shape<F>(Cylinder<F>{r, h});
    Pose<F> inner;
    inner.position = V(F(u(rng)), F(u(rng)), F(u(rng)));
    inner.rotation = Quat<F>(F(u(rng)), F(u(rng)), F(u(rng)), F(u(rng))).normalized();
    const TransformedShape<F> ts{std::make_shared<const Shape<F>>(core), inner};
    // Placed `gap` above the plane: its lowest point (support along −z, in float) at z = gap.
    Pose<F> q;
    q.rotation = Quat<F>(F(u(rng)), F(u(rng)), F(u(rng)), F(u(rng))).normalized();
    const V low = q.rotation * support(Shape<F>{ts}, V(q.rotation.conjugate() * V(0, 0, -1)));
    const double g = gap(rng);
    q.position = V(F(u(rng)), F(u(rng)), F(g - double(low.z())));
    // B in A's frame in float, as shape_cast computes it.
    const Transform<F> b_in_a = Transform<F>(q).relative(Transform<F>(Pose<F>{}));
    const GjkOptions<F> gopt;
    const auto dist = detail::gjk_solve<false, F>(ts, F(0), tri, F(0), b_in_a, gopt, nullptr);
    const auto test = detail::gjk_solve<true, F>(ts, F(0), tri, F(0), b_in_a, gopt, nullptr);
    if (dist.status == Status::intersecting || test.status == Status::intersecting) {
      ++wrong;
      ADD_FAILURE() << "case " << i << " length " << len << " gap " << g << ": distance query "
                    << static_cast<int>(dist.status) << ", test " << static_cast<int>(test.status);
    }
  }
  EXPECT_EQ(wrong, 0);
}

// A fuzz finding of 2026-11-29 (fuzz_mesh, float): a segment 124 long moving by (3.75, 3.75, 3.75)
// past a sliver with a corner at y = 1e12. The segment spans z ∈ [3.32, 10.58] at t = 0 and rises;
// the triangle spans z ∈ [0.25, 1]: they never come within 2.3. GJK distance still calls them
// `intersecting` at t = 0.10185 (in double too: no separating plane seen at ‖v‖ = 7.3, its rule
// "no plane seen: touching"), and the GJK ray cast's hit there was "confirmed" by it: brute force
// answered a hit at toi 0.101, the tree (which culls the triangle by its box) a miss. A contact
// GJK claims is now refuted when one of the shapes' own axes separates them (cast/
// contact_refinement.hpp, axes_separate), in the GJK ray cast and in conservative advancement.
// The GJK failure itself is still open (tests/fuzz/README.md).
template <class F>
void segment_above_sliver() {
  using V = Vec3<F>;
  const Triangle<F> tri{V(F(-2.5), F(9.99999996e+11), F(0.25)), V(F(0.25), F(0.25), F(0.25)), V(F(-1.25), F(1.75), F(1))};
  const Shape<F> seg = Segment<F>{V(F(124.09404), F(3.75), F(1.75)), V(F(1), F(-4), F(3))};
  const Pose<F> pose{V(F(-2.75), F(0.25), F(0.000748437713)),
                     Quat<F>(F(0.669504106), F(-0.0494108312), F(0), F(-0.741162479))};
  const V v(F(3.75), F(3.75), F(3.75));
  for (CastMethod m : {CastMethod::gjk_raycast, CastMethod::conservative_advancement, CastMethod::mpr}) {
    ShapeCastOptions<F> o;
    o.method = m;
    const CastHit<F> h = shape_cast<F>(seg, pose, v, Triangle<F>{tri}, Pose<F>{}, V::Zero(), o);
    EXPECT_EQ(h.status, Status::miss) << "method " << static_cast<int>(m) << " toi " << h.toi;
  }
  TriangleMesh<F> mesh;
  mesh.vertices = {tri.a, tri.b, tri.c};
  mesh.triangles = {{0, 1, 2}};
  ASSERT_EQ(build_mesh(mesh), "");
  for (bool brute : {false, true}) {
    MeshShapeOptions<F> mo;
    mo.brute_force = brute;
    EXPECT_EQ(mesh_shape_cast(mesh, seg, pose, v, mo).status, Status::miss) << "brute force " << brute;
  }
}

TEST(GjkSliverStall, SegmentAboveASliverFuzzFindingFloat) { segment_above_sliver<float>(); }
TEST(GjkSliverStall, SegmentAboveASliverFuzzFindingDouble) { segment_above_sliver<double>(); }

}  // namespace
