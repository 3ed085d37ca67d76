// Motions too short to measure (found by fuzzing, CI of 2026-11-25: a ray of direction
// (2.2e-308, 0, 0) against a triangle answered `miss` with λ = inf and a NaN point). A direction
// or velocity of norm 1e-300, the least normal double or float, or a subnormal squares to zero
// or to nothing representable; the GJK ray cast divides by v·r and can step to infinity.
// Truth by construction: over such a motion nothing moves by more than 1e-290 (double) or 1e-30
// (float), so a shape placed with a clearance of at least 2 is missed, and a ray from inside a
// solid starts overlapping. Every answer must be finite, λ (toi) 0 on a miss.
#include "scenes.hpp"

#include <impact/cast.hpp>
#include <impact/toi.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using namespace impact;
using scenes::Rng;
using V = Eigen::Vector3d;

/// Norms of the vanishing motions: tiny normals, the least normal number, subnormals.
template <class S>
std::vector<S> vanishing() {
  using L = std::numeric_limits<S>;
  if constexpr (sizeof(S) == 8) return {S(1e-300), L::min(), L::min() / 4, L::denorm_min()};
  else return {S(1e-30f), L::min(), L::min() / 4, L::denorm_min()};
}

template <class S>
bool finite(const Vec3<S>& v) {
  return v.allFinite();
}

template <class S>
void vanishing_rays() {
  Rng rng(scenes::seed_of(std::string("vanishing_rays/") + scenes::scalar_name<S>()));
  const int n = scenes::battery(2000);
  const auto norms = vanishing<S>();
  for (int i = 0; i < n; ++i) {
    const scenes::Kind k = scenes::kAllKinds[rng.index(std::size(scenes::kAllKinds))];
    const auto shape = scenes::random_shape<S>(k, rng).shape;
    const Pose<S> pose = scenes::make_pose<S>(rng.in_cube(10), rng.rotation());
    // Shapes of the battery lie within √3 of their origin: an origin 2 beyond that is clear.
    const bool inside = scenes::kind_dimension(k) == 3 && rng.uniform() < 0.5;
    // Inside: the centre of the solid (a hull's vertex mean, an interior point).
    const V c = pose.position.template cast<double>();
    const V o = inside ? V(c + pose.rotation.template cast<double>() * scenes::random_point_of(shape, rng))
                       : V(c + rng.unit() * rng.uniform(2 + std::sqrt(3.0), 6));
    const S len = norms[rng.index(static_cast<int>(norms.size()))];
    const Vec3<S> d = (rng.unit().template cast<S>() * len).eval();
    for (const bool closed_form : {true, false}) {
      RayCastOptions<S> opt;
      opt.closed_form = closed_form;
      opt.max_lambda = rng.uniform() < 0.5 ? S(1) : S(1e6);
      const RayHit<S> h = ray_cast<S>(shape, pose, Ray<S>{o.cast<S>(), d}, opt);
      SCOPED_TRACE(::testing::Message() << "case " << i << " " << scenes::describe(shape) << " at "
                                        << scenes::describe(pose) << " origin " << o.transpose() << " |d| " << len
                                        << (closed_form ? " closed form" : " gjk"));
      ASSERT_TRUE(std::isfinite(h.lambda) && finite(h.point) && finite(h.normal));
      if (inside) {
        ASSERT_EQ(h.status, Status::initially_overlapping);
      } else {
        ASSERT_EQ(h.status, Status::miss);
        ASSERT_EQ(h.lambda, S(0));
        ASSERT_EQ(h.point, o.cast<S>());
      }
    }
  }
}

template <class S>
void vanishing_sweeps() {
  Rng rng(scenes::seed_of(std::string("vanishing_sweeps/") + scenes::scalar_name<S>()));
  const int n = scenes::battery(2000);
  const auto norms = vanishing<S>();
  for (int i = 0; i < n; ++i) {
    const scenes::Kind ka = scenes::kAllKinds[rng.index(std::size(scenes::kAllKinds))];
    const scenes::Kind kb = scenes::kAllKinds[rng.index(std::size(scenes::kAllKinds))];
    const auto a = scenes::random_shape<S>(ka, rng).shape;
    const auto b = scenes::random_shape<S>(kb, rng).shape;
    const V ca = rng.in_cube(10);
    // Two shapes within √3 of their origins, centres 2√3 + 2 or more apart: clear by 2.
    const V cb = ca + rng.unit() * rng.uniform(2 + 2 * std::sqrt(3.0), 8);
    const Pose<S> pa = scenes::make_pose<S>(ca, rng.rotation()), pb = scenes::make_pose<S>(cb, rng.rotation());
    const S len = norms[rng.index(static_cast<int>(norms.size()))];
    const Vec3<S> va = (rng.unit().template cast<S>() * len).eval();
    const Vec3<S> vb = rng.uniform() < 0.5 ? Vec3<S>::Zero() : Vec3<S>((rng.unit().template cast<S>() * len).eval());
    SCOPED_TRACE(::testing::Message() << "case " << i << " " << scenes::describe(a) << " at " << scenes::describe(pa)
                                      << " / " << scenes::describe(b) << " at " << scenes::describe(pb) << " |v| " << len);
    for (const CastMethod m : {CastMethod::gjk_raycast, CastMethod::conservative_advancement, CastMethod::mpr}) {
      ShapeCastOptions<S> opt;
      opt.method = m;
      const CastHit<S> h = shape_cast<S>(a, pa, va, b, pb, vb, opt);
      ASSERT_TRUE(std::isfinite(h.toi) && finite(h.point_a) && finite(h.point_b) && finite(h.normal))
          << "method " << static_cast<int>(m);
      ASSERT_EQ(h.status, Status::miss) << "method " << static_cast<int>(m);
      ASSERT_EQ(h.toi, S(0));
    }
    Motion<S> ma{pa, va, Vec3<S>::Zero()}, mb{pb, vb, Vec3<S>::Zero()};
    if (rng.uniform() < 0.5) ma.angular_velocity = (rng.unit().template cast<S>() * len).eval();
    const ToiHit<S> t = time_of_impact<S>(a, ma, b, mb, ToiOptions<S>{});
    ASSERT_TRUE(std::isfinite(t.toi) && finite(t.point_a) && finite(t.point_b) && finite(t.normal));
    ASSERT_EQ(t.status, Status::miss);
    ASSERT_EQ(t.toi, S(0));
  }
}

TEST(VanishingMotion, RaysDouble) { vanishing_rays<double>(); }
TEST(VanishingMotion, RaysFloat) { vanishing_rays<float>(); }
TEST(VanishingMotion, SweepsAndToiDouble) { vanishing_sweeps<double>(); }
TEST(VanishingMotion, SweepsAndToiFloat) { vanishing_sweeps<float>(); }

}  // namespace
