// impact — fuzz target: distance and intersect on any pair of shapes, in double and float.
// Invariants: valid input is answered, invalid input is invalid_input; every number finite;
// distance ≥ 0 and 0 when intersecting; a unit (or zero) normal; intersect agrees with a clear
// separation; sphere–sphere distances and witness points match the closed form.
#include "fuzz_common.hpp"

#include <cstddef>
#include <cstdint>

namespace {

using namespace impact;
using namespace impact::fuzz;

template <class S>
void run(const FuzzShape& a, const FuzzPose& pa, const FuzzShape& b, const FuzzPose& pb) {
  const Shape<S> sa = in_scalar<S>(a.shape), sb = in_scalar<S>(b.shape);
  const Pose<S> qa = pa.pose.cast<S>(), qb = pb.pose.cast<S>();
  const Expect e = verdict<S>(a) & verdict<S>(pa) & verdict<S>(b) & verdict<S>(pb);

  const DistanceResult<S> d = distance<S>(sa, qa, sb, qb);
  check_validity(d, e);
  const IntersectResult<S> x = intersect<S>(sa, qa, sb, qb);
  check_validity(x, e);
  IMPACT_REQUIRE((d.status == Status::invalid_input) == (x.status == Status::invalid_input));
  if (d.status == Status::invalid_input) return;

  IMPACT_REQUIRE(d.status == Status::separated || d.status == Status::intersecting ||
                 d.status == Status::max_iterations);
  IMPACT_REQUIRE(std::isfinite(d.distance) && d.distance >= S(0));
  IMPACT_REQUIRE(finite(d.point_a) && finite(d.point_b) && finite(d.normal));
  IMPACT_REQUIRE(unit_or_zero(d.normal));
  IMPACT_REQUIRE(d.iterations >= 0);
  if (d.status == Status::intersecting) IMPACT_REQUIRE(d.distance == S(0));
  IMPACT_REQUIRE(x.status == Status::separated || x.status == Status::intersecting ||
                 x.status == Status::max_iterations);
  IMPACT_REQUIRE(finite(x.separating_axis));

  // Sphere pairs: the closed form, independent of the library.
  if (a.radius >= 0 && b.radius >= 0) {
    const double ra = static_cast<double>(static_cast<S>(a.radius)), rb = static_cast<double>(static_cast<S>(b.radius));
    const Vec3<double> ca = qa.position.template cast<double>(), cb = qb.position.template cast<double>();
    const double scale = std::max({ra, rb, ca.cwiseAbs().maxCoeff(), cb.cwiseAbs().maxCoeff(), 1e-30});
    const double tol = (std::is_same_v<S, float> ? 1e-4 : 1e-9) * scale;
    const double gap = (cb - ca).norm() - ra - rb;
    const double want = std::max(0.0, gap);
    IMPACT_REQUIRE(std::abs(static_cast<double>(d.distance) - want) <= tol);
    IMPACT_REQUIRE((d.point_a.template cast<double>() - ca).norm() <= ra + tol);
    IMPACT_REQUIRE((d.point_b.template cast<double>() - cb).norm() <= rb + tol);
    if (gap > tol) IMPACT_REQUIRE(x.status != Status::intersecting);
    if (gap < -tol) IMPACT_REQUIRE(x.status != Status::separated);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  const FuzzShape a = draw_shape(p);
  const FuzzPose pa = draw_pose(p);
  const FuzzShape b = draw_shape(p);
  const FuzzPose pb = draw_pose(p);
  run<double>(a, pa, b, pb);
  run<float>(a, pa, b, pb);
  return 0;
}
