// impact — fuzz target: time_of_impact (extrusion_brent, conservative_advancement) on any pair of
// shapes under any rigid motions, in double and float.
// Invariants: validity as decided here; every number finite; toi in [0, 1]; a unit normal on
// hits; sphere pairs (which only translate, whatever their spin) neither late nor missed, and at
// the target distance within tolerance.
#include "fuzz_common.hpp"

#include <cstddef>
#include <cstdint>

namespace {

using namespace impact;
using namespace impact::fuzz;

struct FuzzMotion {
  FuzzPose pose;
  Vec3<double> linear = Vec3<double>::Zero(), angular = Vec3<double>::Zero();
};

FuzzMotion draw_motion(FuzzedDataProvider& p) {
  FuzzMotion m;
  m.pose = draw_pose(p);
  if (p.ConsumeBool()) m.linear = draw_vec(p);
  if (p.ConsumeBool()) m.angular = draw_vec(p);
  return m;
}

template <class S>
void run(const FuzzShape& a, const FuzzMotion& ma, const FuzzShape& b, const FuzzMotion& mb, ToiMethod method,
         double target, double tolerance, int max_iterations) {
  const Shape<S> sa = in_scalar<S>(a.shape), sb = in_scalar<S>(b.shape);
  auto motion = [](const FuzzMotion& m) {
    return Motion<S>{m.pose.pose.cast<S>(), m.linear.cast<S>(), m.angular.cast<S>()};
  };
  const Motion<S> qa = motion(ma), qb = motion(mb);
  ToiOptions<S> opt;
  opt.method = method;
  opt.target_distance = static_cast<S>(target);
  opt.tolerance = static_cast<S>(tolerance);
  opt.max_iterations = max_iterations;
  Expect e = verdict<S>(a) & verdict<S>(ma.pose) & verdict<S>(b) & verdict<S>(mb.pose) & in_range<S>(ma.linear) &
             in_range<S>(ma.angular) & in_range<S>(mb.linear) & in_range<S>(mb.angular) & in_range<S>(target, true) &
             in_range<S>(tolerance, true);
  if (!(opt.tolerance > S(0)) || max_iterations < 1) e = Expect::invalid;
  const ToiHit<S> h = time_of_impact<S>(sa, qa, sb, qb, opt);
  check_validity(h, e);
  if (h.status == Status::invalid_input) return;
  check_cast_answer(h);
  IMPACT_REQUIRE(h.stats.interval_tests >= 0 && h.stats.gjk_calls >= 0);
  if (a.radius >= 0 && b.radius >= 0) {
    const double ra = static_cast<double>(static_cast<S>(a.radius)), rb = static_cast<double>(static_cast<S>(b.radius));
    const Vec3<double> ca = qa.pose.position.template cast<double>(), cb = qb.pose.position.template cast<double>();
    const Vec3<double> ua = qa.linear_velocity.template cast<double>(), ub = qb.linear_velocity.template cast<double>();
    const double size = std::max({ra, rb, ua.norm(), ub.norm(), static_cast<double>(opt.target_distance)});
    const double reach = std::max(ca.norm(), cb.norm()) + size;
    const double tol = 2 * honest_tolerance<S>(static_cast<double>(opt.tolerance), size, reach);
    check_sphere_pair(h, ra, rb, ca, ua, cb, ub, static_cast<double>(opt.target_distance), tol);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  const FuzzShape a = draw_shape(p);
  const FuzzMotion ma = draw_motion(p);
  const FuzzShape b = draw_shape(p);
  const FuzzMotion mb = draw_motion(p);
  const ToiMethod method = p.ConsumeBool() ? ToiMethod::extrusion_brent : ToiMethod::conservative_advancement;
  const double target = p.ConsumeBool() ? 0.0 : draw(p, true);
  const double tolerance = p.ConsumeBool() ? 1e-6 : draw(p, true);
  // The cap: 512 or a small one (the default 4096 in this build, where the library runs at -O0
  // under the sanitizers, took 1.5 ms a GJK call: a conservative advancement spinning 3e7 rad a
  // step took 4096 of them, 12 s, past the 10 s a hang is allowed; the cap's behaviour, a proven
  // lower bound as max_iterations, is the same at any value).
  const int max_iterations = p.ConsumeBool() ? 512 : p.ConsumeIntegralInRange<int>(-1, 64);
  run<double>(a, ma, b, mb, method, target, tolerance, max_iterations);
  run<float>(a, ma, b, mb, method, target, tolerance, max_iterations);
  return 0;
}
