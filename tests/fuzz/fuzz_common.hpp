// impact — tests/fuzz/fuzz_common.hpp: what the query-family fuzz targets share: turning libFuzzer's
// bytes into shapes, poses and motions (FuzzedDataProvider), the invariants every answer must
// keep, and `require`, which aborts so libFuzzer reports the input.
//
// Numbers are drawn from a mix that reaches the corners a uniform double would never hit: small
// multiples of 1/4 (touching and parallel configurations), log-uniform magnitudes from 1e-9 to
// 1e13 (past the protocol's 1e12 limit), and special values (0, -0, denormals, the largest
// double, inf, NaN). Validity is decided independently of the library (`Expect`): a value that
// is clearly out of range must be answered invalid_input, a clearly valid one must not be; only
// quaternion norms within a hair of the 1e-6 limit are left undecided.
#pragma once

#include <impact/cast.hpp>
#include <impact/query.hpp>
#include <impact/shapes.hpp>
#include <impact/toi.hpp>

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace impact::fuzz {

/// With IMPACT_FUZZ_TRACE set in the environment, every decoded value is recorded here and
/// printed when an invariant fails (to read a finding: `IMPACT_FUZZ_TRACE=1 fuzz_x crash-file`).
inline std::string& trace() {
  static std::string t;
  return t;
}
inline bool tracing() {
  static const bool on = std::getenv("IMPACT_FUZZ_TRACE") != nullptr;
  return on;
}
inline void note(const char* what, double x) {
  if (!tracing()) return;
  char b[64];
  std::snprintf(b, sizeof b, " %s=%.17g", what, x);
  trace() += b;
}

/// Aborts with a message (libFuzzer then saves the input as a crash artifact).
[[noreturn]] inline void fail(const char* what, const char* file, int line) {
  if (tracing()) std::fprintf(stderr, "decoded:%s\n", trace().c_str());
  std::fprintf(stderr, "fuzz invariant violated: %s (%s:%d)\n", what, file, line);
  std::fflush(stderr);
  __builtin_trap();
}
#define IMPACT_REQUIRE(cond)                                  \
  do {                                                        \
    if (!(cond)) ::impact::fuzz::fail(#cond, __FILE__, __LINE__); \
  } while (0)

/// Whether an input is valid, decided by the fuzz target alone.
enum class Expect { valid, invalid, unknown };

/// Combines two verdicts: any invalid part makes the whole invalid; unknown beats valid.
inline Expect operator&(Expect a, Expect b) {
  if (a == Expect::invalid || b == Expect::invalid) return Expect::invalid;
  if (a == Expect::unknown || b == Expect::unknown) return Expect::unknown;
  return Expect::valid;
}

/// The protocol's range: |x| ≤ 1e12 (Tolerances::max_magnitude), finite.
constexpr double kMaxMagnitude = 1e12;

/// Draws a number (see the file comment). `nonneg` folds the usual draws to x ≥ 0 but keeps a
/// few negative ones, which must be rejected as sizes.
inline double draw(FuzzedDataProvider& p, bool nonneg = false) {
  const int kind = p.ConsumeIntegralInRange<int>(0, 15);
  double x;
  if (kind <= 7) {
    x = 0.25 * p.ConsumeIntegralInRange<int>(-16, 16);  // small grid: touching, parallel, zero
  } else if (kind <= 12) {
    const double e = p.ConsumeFloatingPointInRange<double>(-9.0, 13.0);
    x = std::pow(10.0, e) * (p.ConsumeBool() ? -1.0 : 1.0);
  } else if (kind == 13) {
    x = p.ConsumeFloatingPoint<double>();  // any double, including huge ones
  } else {
    static constexpr double special[] = {0.0,
                                         -0.0,
                                         std::numeric_limits<double>::denorm_min(),
                                         std::numeric_limits<double>::min(),
                                         1e-300,
                                         1.0 + 1e-15,
                                         1e6,
                                         3e6,
                                         1e12,
                                         1.0000001e12,
                                         std::numeric_limits<double>::max(),
                                         std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(),
                                         std::numeric_limits<double>::quiet_NaN(),
                                         -1.0,
                                         3.4e38};
    x = special[p.ConsumeIntegralInRange<int>(0, 15)];
  }
  if (nonneg && kind != 15 && x < 0) x = -x;
  note("x", x);
  return x;
}

/// A value in the protocol's range for scalar S? (float: its conversion must stay finite too).
template <class S>
Expect in_range(double x, bool nonneg) {
  const double y = static_cast<double>(static_cast<S>(x));
  if (!std::isfinite(x) || !std::isfinite(y)) return Expect::invalid;
  if (nonneg && y < 0) return Expect::invalid;
  if (std::abs(y) > kMaxMagnitude) return Expect::invalid;
  return Expect::valid;
}

template <class S>
Expect in_range(const Vec3<double>& v) {
  return in_range<S>(v.x(), false) & in_range<S>(v.y(), false) & in_range<S>(v.z(), false);
}

inline Vec3<double> draw_vec(FuzzedDataProvider& p) { return {draw(p), draw(p), draw(p)}; }

/// A decoded shape in double, with the verdict on its validity for each scalar.
struct FuzzShape {
  Shape<double> shape = Point<double>{};
  Expect valid_double = Expect::valid;
  Expect valid_float = Expect::valid;
  double radius = -1;  ///< For a sphere: its radius (the closed-form checks); −1 otherwise.
};

/// A quaternion (w first): identity, axis-angle (unit by construction), a unit one slightly off
/// (norm 1 ± k·1e-7), or four raw numbers (usually invalid).
struct FuzzQuat {
  Quat<double> q{1, 0, 0, 0};
  Expect valid = Expect::valid;
};

inline FuzzQuat draw_quat(FuzzedDataProvider& p) {
  FuzzQuat out;
  switch (p.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: break;
    case 1:
    case 2: {
      Vec3<double> axis(draw(p), draw(p), draw(p));
      const double angle = p.ConsumeFloatingPointInRange<double>(-7.0, 7.0);
      if (!axis.allFinite() || !(axis.norm() > 1e-100) || !std::isfinite(axis.norm())) axis = Vec3<double>(0, 0, 1);
      axis.normalize();
      out.q = Quat<double>(Eigen::AngleAxis<double>(angle, axis));
      if (p.ConsumeBool()) {  // near-unit: what validation must accept (|norm − 1| ≤ 1e-6) or refuse
        const double k = p.ConsumeIntegralInRange<int>(-20, 20) * 1e-7;
        out.q.coeffs() *= 1.0 + k;
      }
      break;
    }
    default: out.q = Quat<double>(draw(p), draw(p), draw(p), draw(p)); break;
  }
  note("qw", out.q.w()), note("qx", out.q.x()), note("qy", out.q.y()), note("qz", out.q.z());
  const double n = out.q.norm();
  if (!std::isfinite(n) || !out.q.coeffs().allFinite()) out.valid = Expect::invalid;
  else if (std::abs(n - 1) > 1.5e-6) out.valid = Expect::invalid;
  else if (std::abs(n - 1) > 0.5e-6) out.valid = Expect::unknown;  // near the limit: rounding decides
  return out;
}

struct FuzzPose {
  Pose<double> pose;
  Expect valid_double = Expect::valid;
  Expect valid_float = Expect::valid;
};

inline FuzzPose draw_pose(FuzzedDataProvider& p) {
  FuzzPose out;
  out.pose.position = draw_vec(p);
  const FuzzQuat q = draw_quat(p);
  out.pose.rotation = q.q;
  out.valid_double = in_range<double>(out.pose.position) & q.valid;
  // In float a quaternion of double norm within the limit can round either side of it.
  out.valid_float = in_range<float>(out.pose.position) & (q.valid == Expect::valid ? Expect::unknown : q.valid);
  if (q.valid == Expect::valid && std::abs(q.q.norm() - 1) < 1e-9) out.valid_float = in_range<float>(out.pose.position);
  return out;
}

/// Draws a shape of any type; minkowski and transformed shapes nest at most `depth` deep.
inline FuzzShape draw_shape(FuzzedDataProvider& p, int depth = 2) {
  FuzzShape out;
  auto size = [&](double& x) {
    x = draw(p, true);
    out.valid_double = out.valid_double & in_range<double>(x, true);
    out.valid_float = out.valid_float & in_range<float>(x, true);
  };
  auto point = [&](Vec3<double>& v) {
    v = draw_vec(p);
    out.valid_double = out.valid_double & in_range<double>(v);
    out.valid_float = out.valid_float & in_range<float>(v);
  };
  const int kind = p.ConsumeIntegralInRange<int>(0, depth > 0 ? 11 : 9);
  note("shape", kind);
  switch (kind) {
    case 0: out.shape = Point<double>{}; break;
    case 1:
    case 2: {
      Sphere<double> s;
      size(s.radius);
      out.radius = s.radius;
      out.shape = s;
      break;
    }
    case 3: {
      Box<double> b;
      size(b.half_extents.x());
      size(b.half_extents.y());
      size(b.half_extents.z());
      out.shape = b;
      break;
    }
    case 4:
    case 5:
    case 6: {
      double r, h;
      size(r);
      size(h);
      if (kind == 4) out.shape = Capsule<double>{r, h};
      else if (kind == 5) out.shape = Cylinder<double>{r, h};
      else out.shape = Cone<double>{r, h};
      break;
    }
    case 7: {
      Segment<double> s;
      point(s.a);
      point(s.b);
      out.shape = s;
      break;
    }
    case 8: {
      Triangle<double> t;
      point(t.a);
      point(t.b);
      point(t.c);
      out.shape = t;
      break;
    }
    case 9: {
      // Hull::build refuses an empty cloud and points that are not finite or out of range.
      std::vector<Vec3<double>> pts(p.ConsumeIntegralInRange<int>(0, 12));
      for (auto& v : pts) point(v);
      HullBuild<double> hb = Hull<double>::build(pts);
      const bool buildable = !pts.empty() && out.valid_double == Expect::valid;
      IMPACT_REQUIRE(hb.ok() == buildable);
      if (!hb.ok()) {
        IMPACT_REQUIRE(!hb.error.empty());
        out.shape = Point<double>{};  // stand in, and keep fuzzing the query
        out.valid_double = out.valid_float = Expect::valid;
        return out;
      }
      IMPACT_REQUIRE(!hb.hull.vertices.empty() && hb.hull.dimension >= 0 && hb.hull.dimension <= 3);
      out.shape = std::move(hb.hull);
      break;
    }
    case 10: {
      FuzzShape a = draw_shape(p, depth - 1), b = draw_shape(p, depth - 1);
      out.valid_double = a.valid_double & b.valid_double;
      out.valid_float = a.valid_float & b.valid_float;
      out.shape = MinkowskiShape<double>{std::make_shared<const Shape<double>>(std::move(a.shape)),
                                         std::make_shared<const Shape<double>>(std::move(b.shape))};
      break;
    }
    default: {
      FuzzShape s = draw_shape(p, depth - 1);
      const FuzzPose pose = draw_pose(p);
      out.valid_double = s.valid_double & pose.valid_double;
      out.valid_float = s.valid_float & pose.valid_float;
      out.shape = TransformedShape<double>{std::make_shared<const Shape<double>>(std::move(s.shape)), pose.pose};
      break;
    }
  }
  return out;
}

template <class S>
Expect verdict(const FuzzShape& s) {
  return std::is_same_v<S, float> ? s.valid_float : s.valid_double;
}
template <class S>
Expect verdict(const FuzzPose& p) {
  return std::is_same_v<S, float> ? p.valid_float : p.valid_double;
}

/// The shape in scalar S (float conversion of out-of-range doubles yields inf, which the query
/// must refuse).
template <class S>
Shape<S> in_scalar(const Shape<double>& s) {
  note("scalar_bytes", sizeof(S));
  if constexpr (std::is_same_v<S, double>) return s;
  else return convert_shape<S>(s);
}

template <class S>
bool finite(const Vec3<S>& v) {
  return v.allFinite();
}

/// A unit normal, or zero where the result says "undefined".
template <class S>
bool unit_or_zero(const Vec3<S>& n) {
  const double l = static_cast<double>(n.norm());
  return l == 0.0 || std::abs(l - 1.0) <= 1e-3;
}

/// Checks the status against the independent verdict: invalid input is answered invalid_input
/// with an error, valid input never is.
template <class R>
void check_validity(const R& r, Expect e) {
  note("status", static_cast<int>(r.status)), note("expect", static_cast<int>(e));
  if (tracing() && !r.error.empty()) std::fprintf(stderr, "error: %s\n", r.error.c_str());
  if (e == Expect::invalid) IMPACT_REQUIRE(r.status == Status::invalid_input);
  if (e == Expect::valid) IMPACT_REQUIRE(r.status != Status::invalid_input);
  if (r.status == Status::invalid_input) IMPACT_REQUIRE(!r.error.empty());
}

/// Largest magnitude among the numbers that set a query's scale (for the closed-form checks).
inline double magnitude(std::initializer_list<double> xs) {
  double m = 0;
  for (double x : xs) m = std::max(m, std::abs(x));
  return m;
}

/// The distance accuracy a cast can honour (length), as `impact query` sets it: the requested
/// tolerance, no finer than 1e-2 of the default relative to the bodies' size and 64 ulps of the
/// coordinates (apps/impact/protocol.cpp, cast_tolerance).
template <class S>
double honest_tolerance(double requested, double size, double reach) {
  return std::max({requested, double(Tolerances<S>::cast_tolerance) * 1e-2 * size,
                   64.0 * double(std::numeric_limits<S>::epsilon()) * reach});
}

/// Every cast answer: a known status, finite numbers, toi in [0, 1] unless a miss (0 when
/// initially overlapping), a unit normal on hits.
template <class Hit>
void check_cast_answer(const Hit& h) {
  using S = std::remove_cv_t<decltype(h.toi)>;
  note("toi", static_cast<double>(h.toi));
  IMPACT_REQUIRE(h.status == Status::hit || h.status == Status::miss || h.status == Status::initially_overlapping ||
                 h.status == Status::max_iterations);
  // A miss carries no time: toi 0 (docs/protocol.md), as an overlap's.
  IMPACT_REQUIRE(std::isfinite(h.toi));
  IMPACT_REQUIRE(h.toi >= S(0) && h.toi <= S(1));
  if (h.status == Status::miss) IMPACT_REQUIRE(h.toi == S(0));
  IMPACT_REQUIRE(finite(h.point_a) && finite(h.point_b) && finite(h.normal));
  IMPACT_REQUIRE(h.iterations >= 0);
  if (h.status == Status::initially_overlapping) IMPACT_REQUIRE(h.toi == S(0));
  if (h.status == Status::hit) IMPACT_REQUIRE(unit_or_zero(h.normal) && h.normal.norm() > S(0.5));
}

/// The earlier root of |m + t·w| = R (w ≠ 0, the line passing within R of the origin), from the
/// foot of the perpendicular: t* − √((R − p)(R + p))/|w|, t* = −m·w/|w|² and p = |m + t*·w|.
/// Stable for grazing passes, where the quadratic's (−b − √(b² − a·k))/a cancels: its error grows
/// as √ε of the scale there (a CI finding in fuzz_ray_cast, 2026-12-07).
inline double entry_root(const Vec3<double>& m, const Vec3<double>& w, double R) {
  const double a = w.squaredNorm(), foot = -m.dot(w) / a;
  const double p = (m + foot * w).norm();
  return foot - std::sqrt(std::max(0.0, (R - p) * (R + p))) / std::sqrt(a);
}

/// Two spheres whose centres move linearly (what both the linear cast and, for spheres, the
/// rigid motion are): the first time the distance is `target` solves a quadratic. Checks that the
/// answer is neither late nor a miss, and that the distance at a hit is the target within `tol`.
template <class Hit>
void check_sphere_pair(const Hit& h, double ra, double rb, const Vec3<double>& ca, const Vec3<double>& va,
                       const Vec3<double>& cb, const Vec3<double>& vb, double target, double tol) {
  const double reach = ra + rb + target;
  const Vec3<double> m = cb - ca, w = vb - va;
  auto gap = [&](double t) { return (m + t * w).norm() - reach; };
  if (gap(0) < -tol) {
    IMPACT_REQUIRE(h.status == Status::initially_overlapping);
    return;
  }
  const double a = w.squaredNorm();
  if (!(a > 0)) return;
  const double closest = std::clamp(-m.dot(w) / a, 0.0, 1.0);
  if (gap(0) > tol && gap(closest) < -tol) {
    // A clear hit: the entry root of |m + t·w| = reach.
    const double entry = entry_root(m, w, reach);
    IMPACT_REQUIRE(h.status == Status::hit || h.status == Status::max_iterations);
    const double t = static_cast<double>(h.toi);
    IMPACT_REQUIRE(t <= entry || gap(t) >= -tol);  // never late
    if (h.status == Status::hit) IMPACT_REQUIRE(gap(t) <= tol);  // the target within tolerance
  } else if (gap(closest) > tol) {
    // A clear miss; or the iteration cap (the fuzz draws caps from 1) reached first, with toi
    // the bound proven so far, which no time of a miss can contradict (a fuzz finding: a sphere
    // passing a point at 3.7e7 a step, conservative advancement capped at 1 iteration, answered
    // max_iterations at 0.0020133, the closest approach, as documented).
    IMPACT_REQUIRE(h.status == Status::miss || h.status == Status::max_iterations);
  }
}

}  // namespace impact::fuzz
