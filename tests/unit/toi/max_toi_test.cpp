// ToiOptions::max_toi and the triangle hint of toi::time_of_impact_hinted (src/toi/toi_entry.hpp),
// the two ways a caller keeping the earliest of many pairs (World) makes the others stop early.
// - max_toi on the turning bar of tests/support/toi_scenes.hpp, whose first contact t* is a closed
//   form, for both methods: a contact before max_toi is found, never after t*, at a closed-form
//   distance within the tolerance of the target (the search is shorter than without max_toi, so
//   the time may differ from that answer within the tolerance; with max_toi ≥ 1 it is the same
//   bit for bit); a pair whose first contact is past max_toi (or that never touches) is a miss.
//   Both outcomes are common. Bad values are refused naming the field.
// - The hints on random pieces (boxes, hulls, cylinders, capsules, spheres, rounded boxes) turning
//   and moving against a triangle (none, the normal, or the normal and a direction toward the
//   triangle), with max_toi at random: the hinted answer is the unhinted one
//   bit for bit, or a miss where the unhinted is a miss too (or stops at its cap). A hinted miss is a certificate that
//   the distance stays above target + tolerance over [0, max_toi], checked on 65 sampled times by
//   `distance`; a good share of the misses is settled that way.
#include "toi/toi_entry.hpp"
#include "toi_scenes.hpp"

#include <impact/query.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace {

using namespace impact;
using scenes::Rng;
using V = Eigen::Vector3d;

template <class S>
class MaxToi : public testing::Test {};
using Scalars = testing::Types<float, double>;
TYPED_TEST_SUITE(MaxToi, Scalars);

template <class S>
bool same(const ToiHit<S>& x, const ToiHit<S>& y) {
  return x.status == y.status && scenes::same_bits(x.toi, y.toi) && scenes::same_bits(x.point_a, y.point_a) &&
         scenes::same_bits(x.point_b, y.point_b) && scenes::same_bits(x.normal, y.normal) && x.iterations == y.iterations;
}

template <class S>
void bar_cases(ToiMethod method, const std::string& name) {
  Rng rng(scenes::seed_of(name + scenes::scalar_name<S>()));
  const int cases = scenes::battery(800);
  int found = 0, cut = 0;
  for (int c = 0; c < cases; ++c) {
    const toi_scenes::BarCase<S> k = toi_scenes::turning_bar<S>(rng);
    ToiOptions<S> opt;
    opt.method = method;
    opt.target_distance = S(k.target);
    const ToiHit<S> whole = time_of_impact<S>(k.a, k.motion_a, k.b, k.motion_b, opt);
    opt.max_toi = S(rng.uniform(0, 1.2));
    const ToiHit<S> r = time_of_impact<S>(k.a, k.motion_a, k.b, k.motion_b, opt);
    const std::string what = name + " case " + std::to_string(c) + " max_toi " + std::to_string(double(opt.max_toi)) +
                             (k.hit ? " t* " + std::to_string(k.toi) : " (miss)") + ": " +
                             std::string(to_string(r.status)) + " toi " + std::to_string(double(r.toi)) +
                             "; without max_toi " + std::string(to_string(whole.status)) + " " +
                             std::to_string(double(whole.toi));
    ASSERT_NE(r.status, Status::invalid_input) << what << r.error;
    // The closed form: a contact before max_toi is found, at a distance within the tolerance of
    // the target; where the distance stays above target + tolerance up to max_toi (it falls
    // monotonically toward the contact), nothing is found. In between (the distance enters the
    // tolerance's window before max_toi, the contact comes after it) both answers are valid. (Past
    // the contact the bar sweeps on through the sphere's place: the distance rises again.)
    const double limit = std::min(1.0, double(opt.max_toi));
    const double len_eps = sizeof(S) == 4 ? 6e-5 : 1e-9;
    if (k.hit && k.toi < limit - 1e-6) {
      ASSERT_EQ(r.status, Status::hit) << what;
      const double dist = k.distance(double(r.toi));
      EXPECT_GE(dist, k.target - len_eps) << what << ": late";
      EXPECT_LE(dist, k.target + double(opt.tolerance) + len_eps) << what << ": early beyond the tolerance";
      ++found;
    }
    if (!k.hit || (limit < k.toi && k.distance(limit) > k.target + double(opt.tolerance) + len_eps)) {
      EXPECT_EQ(r.status, Status::miss) << what;
      cut += k.hit;
    }
    if (opt.max_toi >= S(1)) {
      EXPECT_TRUE(same(r, whole)) << what;
    }
  }
  // Both outcomes common: contacts found before max_toi, and contacts cut off by it (each about
  // a fifth of the cases: measured 18–22% and 21–25% in release's 800; the sanitizers' 200 drew
  // 16.5% found once).
  EXPECT_GT(found, cases / 10) << name;
  EXPECT_GT(cut, cases / 10) << name;
  std::printf("[ max_toi  ] %s%s: %d cases, %d contacts found before max_toi, %d cut off by it\n", name.c_str(),
              scenes::scalar_name<S>(), cases, found, cut);
}

TYPED_TEST(MaxToi, ContactsBeforeItAreUnchangedAndLaterOnesAreMissesExtrusion) {
  bar_cases<TypeParam>(ToiMethod::extrusion_brent, "max_toi extrusion ");
}

TYPED_TEST(MaxToi, ContactsBeforeItAreUnchangedAndLaterOnesAreMissesAdvancement) {
  bar_cases<TypeParam>(ToiMethod::conservative_advancement, "max_toi advancement ");
}

TYPED_TEST(MaxToi, BadValuesAreRefusedNamingTheField) {
  using S = TypeParam;
  const Shape<S> a = Sphere<S>{S(1)}, b = Box<S>{Vec3<S>(S(1), S(1), S(1))};
  Motion<S> ma, mb;
  mb.pose.position = Vec3<S>(S(5), S(0), S(0));
  ma.linear_velocity = Vec3<S>(S(4), S(0), S(0));
  ToiOptions<S> opt;
  opt.max_toi = S(-0.5);
  ToiHit<S> r = time_of_impact<S>(a, ma, b, mb, opt);
  EXPECT_EQ(r.status, Status::invalid_input);
  EXPECT_EQ(r.error, "max_toi: negative");
  opt.max_toi = std::numeric_limits<S>::quiet_NaN();
  r = time_of_impact<S>(a, ma, b, mb, opt);
  EXPECT_EQ(r.status, Status::invalid_input);
  EXPECT_EQ(r.error, "max_toi: not finite");
  // Beyond 1 acts as 1; 0 seeks contact at the start only.
  opt.max_toi = S(7);
  r = time_of_impact<S>(a, ma, b, mb, opt);
  EXPECT_EQ(r.status, Status::hit);
  EXPECT_NEAR(double(r.toi), 0.75, 1e-4);
  opt.max_toi = S(0);
  EXPECT_EQ(time_of_impact<S>(a, ma, b, mb, opt).status, Status::miss);
}

TYPED_TEST(MaxToi, TriangleHintSettlesOnlyMisses) {
  using S = TypeParam;
  Rng rng(scenes::seed_of(std::string("triangle hint ") + scenes::scalar_name<S>()));
  const scenes::Kind kinds[] = {scenes::Kind::box,    scenes::Kind::hull,   scenes::Kind::cylinder,
                                scenes::Kind::capsule, scenes::Kind::sphere, scenes::Kind::rounded_box};
  const int cases = scenes::heavy_battery(1500);
  int misses = 0, settled = 0, hits = 0, settled_later = 0;
  for (int c = 0; c < cases; ++c) {
    const Shape<S> piece = scenes::random_shape<S>(kinds[rng.index(6)], rng).shape;
    // A triangle about 3 across in the z = 0 plane of its body, turned and placed at random.
    const V ta(rng.uniform(-2, 0), rng.uniform(-2, 0), 0), tb(rng.uniform(0.5, 2), rng.uniform(-1, 0), 0),
        tc(rng.uniform(-1, 1), rng.uniform(0.5, 2), 0);
    const Shape<S> tri = Triangle<S>{scenes::to_s<S>(ta), scenes::to_s<S>(tb), scenes::to_s<S>(tc)};
    const Eigen::Quaterniond q = rng.rotation();
    const V origin = rng.in_cube(3);
    Motion<S> ma, mb;
    mb.pose = scenes::make_pose<S>(origin, q);
    // The piece starts above or below the plane and within reach of the triangle's sides; it
    // moves and turns over the step (the triangle's body drifts, and sometimes turns).
    const V local(rng.uniform(-2, 2), rng.uniform(-2, 2), (rng.uniform() < 0.5 ? 1 : -1) * rng.uniform(0.2, 1.8));
    ma.pose = scenes::make_pose<S>(origin + q * local, rng.rotation());
    ma.linear_velocity = scenes::to_s<S>(q * V(rng.uniform(-1, 1), rng.uniform(-1, 1), -local.z() * rng.uniform(0.5, 3.5)));
    ma.angular_velocity = scenes::to_s<S>(rng.uniform(0, 8) * rng.unit());
    mb.linear_velocity = scenes::to_s<S>(rng.in_cube(0.3));
    if (rng.uniform() < 0.2) mb.angular_velocity = scenes::to_s<S>(rng.uniform(0, 1) * rng.unit());
    ToiOptions<S> opt;
    opt.target_distance = rng.uniform() < 0.3 ? S(0.02) : S(0);
    if (rng.uniform() < 0.5) opt.max_toi = S(rng.uniform(0, 1));
    // The hint: the triangle's normal at t = 0, turned from the piece's centre toward the plane.
    const V n = q * V(0, 0, 1);
    const V hint_d = local.z() > 0 ? V(-n) : n;
    // And a direction that is no face's: from the piece's centre to the triangle's centroid (any
    // unit direction is a valid hint; the world's is toward the closest point).
    const V toward = (origin + q * ((ta + tb + tc) / 3) - (origin + q * local)).normalized();
    const toi::ToiHint<S> hint[2] = {{scenes::to_s<S>(hint_d), true}, {scenes::to_s<S>(toward), false}};
    const ToiHit<S> plain = time_of_impact<S>(piece, ma, tri, mb, opt);
    const ToiHit<S> hinted = toi::time_of_impact_hinted<S>(piece, ma, tri, mb, opt, std::span(hint, rng.index(3)));
    const std::string what = "case " + std::to_string(c) + " " + scenes::describe(piece) + ": hinted " +
                             std::string(to_string(hinted.status)) + ", plain " + std::string(to_string(plain.status)) +
                             " " + std::to_string(double(plain.toi));
    ASSERT_NE(plain.status, Status::invalid_input) << what << plain.error;
    // An iteration count is a count, also where a hint settles the query before any GJK (under
    // conservative advancement it was GJK calls − 1: −1).
    EXPECT_GE(hinted.iterations, 0) << what;
    ToiOptions<S> advance = opt;
    advance.method = ToiMethod::conservative_advancement;
    const ToiHit<S> hinted_advance = toi::time_of_impact_hinted<S>(piece, ma, tri, mb, advance, std::span(hint, 2));
    EXPECT_GE(hinted_advance.iterations, 0) << what << " (conservative advancement)";
    // The world's entry, PartSweep: the first hint given, the second made only when the first has
    // not settled the call (toi::LaterHints). Its answer is time_of_impact_hinted's with both, bit
    // for bit, and the second is asked for exactly when the first alone settles nothing.
    struct Later {
      const toi::ToiHint<S>* second;
      int calls = 0;
      static int make(const void* context, toi::ToiHint<S>* out) {
        auto& self = *const_cast<Later*>(static_cast<const Later*>(context));
        ++self.calls;
        out[0] = *self.second;
        return 1;
      }
    } later{&hint[1]};
    toi::PartSweep<S> sweep;
    ASSERT_EQ(sweep.prepare(piece, ma, mb), "") << what;
    const Triangle<S>& triangle = std::get<Triangle<S>>(tri.variant());
    const ToiHit<S> swept = sweep.against(triangle, opt, std::span(hint, 1), {&Later::make, &later});
    const ToiHit<S> both = toi::time_of_impact_hinted<S>(piece, ma, tri, mb, opt, std::span(hint, 2));
    const ToiHit<S> first = toi::time_of_impact_hinted<S>(piece, ma, tri, mb, opt, std::span(hint, 1));
    EXPECT_TRUE(same(swept, both)) << what << " (PartSweep)";
    const bool first_settles = first.status == Status::miss && first.stats.gjk_calls == 0;
    EXPECT_EQ(later.calls, first_settles ? 0 : 1) << what;
    settled_later += later.calls == 1 && swept.status == Status::miss && swept.stats.gjk_calls == 0;
    hits += plain.status == Status::hit;
    const bool settled_by_hint = hinted.status == Status::miss && hinted.stats.gjk_calls == 0;
    if (!settled_by_hint) {
      EXPECT_TRUE(same(hinted, plain)) << what;
      misses += plain.status == Status::miss;
      continue;
    }
    // A proven miss: the plain run finds no contact either (or stops at its cap).
    EXPECT_TRUE(plain.status == Status::miss || plain.status == Status::max_iterations) << what;
    ++misses;
    // Settled by a hint alone: the distance stays above target + tolerance up to max_toi.
    ++settled;
    const double limit = std::min(1.0, double(opt.max_toi));
    for (int i = 0; i <= 64; ++i) {
      const S t = S(limit * i / 64);
      const DistanceResult<S> d = distance<S>(piece, ma.at(t), tri, mb.at(t));
      ASSERT_NE(d.status, Status::intersecting) << what << " at t " << double(t);
      EXPECT_GT(double(d.distance), double(opt.target_distance + opt.tolerance) * (1 - 1e-5) - 1e-6)
          << what << " at t " << double(t);
    }
  }
  std::printf("[ hint     ] %s: %d cases, %d hits, %d misses, %d of them settled by the hint, %d by a later one\n",
              scenes::scalar_name<S>(), cases, hits, misses, settled, settled_later);
  EXPECT_GT(hits, cases / 6);
  EXPECT_GT(misses, cases / 6);
  EXPECT_GT(settled, misses / 10) << misses << " misses";
  EXPECT_GT(settled_later, 0) << "no case exercised a hint made later";
}

}  // namespace
