// impact — fuzz target: shape_cast (gjk_raycast with and without closed forms,
// conservative_advancement, mpr) on any pair of shapes, in double and float.
// Invariants: validity as decided here; every number finite; toi in [0, 1]; a unit normal on
// hits, whose two points are at most the target apart; sphere pairs neither late nor missed, and
// at the target distance within tolerance.
#include "fuzz_common.hpp"

#include <cstddef>
#include <cstdint>

namespace {

using namespace impact;
using namespace impact::fuzz;

template <class S>
void run(const FuzzShape& a, const FuzzPose& pa, const Vec3<double>& va, const FuzzShape& b, const FuzzPose& pb,
         const Vec3<double>& vb, CastMethod method, bool closed_form, double target, double tolerance) {
  const Shape<S> sa = in_scalar<S>(a.shape), sb = in_scalar<S>(b.shape);
  const Pose<S> qa = pa.pose.cast<S>(), qb = pb.pose.cast<S>();
  const Vec3<S> wa = va.cast<S>(), wb = vb.cast<S>();
  ShapeCastOptions<S> opt;
  opt.method = method;
  opt.closed_form = closed_form;
  opt.target_distance = static_cast<S>(target);
  opt.tolerance = static_cast<S>(tolerance);
  Expect e = verdict<S>(a) & verdict<S>(pa) & verdict<S>(b) & verdict<S>(pb) & in_range<S>(va) & in_range<S>(vb) &
             in_range<S>(target, true) & in_range<S>(tolerance, true);
  if (!(opt.tolerance > S(0))) e = Expect::invalid;
  const CastHit<S> h = shape_cast<S>(sa, qa, wa, sb, qb, wb, opt);
  check_validity(h, e);
  if (h.status == Status::invalid_input) return;
  check_cast_answer(h);
  if (h.status == Status::hit) {
    // A hit's two points are at most the target apart (a contact within target + tolerance at
    // toi), to twice the honest tolerance of the pair's whole extent: the largest |support| of
    // either shape along ±x, ±y, ±z, the speeds and the target (tests/fuzz/README.md).
    double extent = std::max({wa.template cast<double>().norm(), wb.template cast<double>().norm(),
                              static_cast<double>(opt.target_distance)});
    for (int k = 0; k < 3; ++k)
      for (const double sign : {-1.0, 1.0}) {
        const Vec3<S> axis = Vec3<S>::Unit(k) * static_cast<S>(sign);
        extent = std::max({extent, static_cast<double>(support(sa, axis).norm()),
                           static_cast<double>(support(sb, axis).norm())});
      }
    const double reach =
        std::max(qa.position.template cast<double>().norm(), qb.position.template cast<double>().norm()) + extent;
    const double apart = (h.point_b.template cast<double>() - h.point_a.template cast<double>()).norm();
    note("points_apart", apart);
    IMPACT_REQUIRE(apart <= static_cast<double>(opt.target_distance) +
                                2 * honest_tolerance<S>(static_cast<double>(opt.tolerance), extent, reach));
  }
  if (a.radius >= 0 && b.radius >= 0) {
    const double ra = static_cast<double>(static_cast<S>(a.radius)), rb = static_cast<double>(static_cast<S>(b.radius));
    const Vec3<double> ca = qa.position.template cast<double>(), cb = qb.position.template cast<double>();
    const Vec3<double> ua = wa.template cast<double>(), ub = wb.template cast<double>();
    const double size = std::max({ra, rb, ua.norm(), ub.norm(), static_cast<double>(opt.target_distance)});
    const double reach = std::max(ca.norm(), cb.norm()) + size;
    // Twice the honest tolerance: the check's own arithmetic rounds at the same scale.
    const double tol = 2 * honest_tolerance<S>(static_cast<double>(opt.tolerance), size, reach);
    check_sphere_pair(h, ra, rb, ca, ua, cb, ub, static_cast<double>(opt.target_distance), tol);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  const FuzzShape a = draw_shape(p);
  const FuzzPose pa = draw_pose(p);
  const Vec3<double> va = draw_vec(p);
  const FuzzShape b = draw_shape(p);
  const FuzzPose pb = draw_pose(p);
  const Vec3<double> vb = p.ConsumeBool() ? Vec3<double>::Zero() : draw_vec(p);
  const CastMethod method = static_cast<CastMethod>(p.ConsumeIntegralInRange<int>(0, 2));
  const bool closed_form = p.ConsumeBool();
  const double target = p.ConsumeBool() ? 0.0 : draw(p, true);
  const double tolerance = p.ConsumeBool() ? 1e-6 : draw(p, true);
  note("method", static_cast<int>(method)), note("closed_form", closed_form);
  run<double>(a, pa, va, b, pb, vb, method, closed_form, target, tolerance);
  run<float>(a, pa, va, b, pb, vb, method, closed_form, target, tolerance);
  return 0;
}
