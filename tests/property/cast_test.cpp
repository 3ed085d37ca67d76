// impact — property tests of ray_cast and shape_cast (issue 3): closed forms, exact oracles,
// agreement of the three methods, adversarial batteries and certificates.
//
// Nothing here trusts the library's geometry. The truths come from:
//  * ray casts: closed forms written below in the shape's local frame — the sphere's quadratic,
//    the box's slabs, the capsule as the union of a finite cylinder and two balls, the cylinder
//    as an infinite cylinder cut by a slab, the cone as the lower nappe of a quadric cone cut by
//    its base plane (apex (0,0,h), base disc at z = −h, as in shapes.hpp), the hull by clipping
//    the ray against the face planes of the brute-force polytope of its cloud (oracles.hpp);
//  * shape casts: the sphere–sphere quadratic; for box–box and hull–hull (target 0) the separating
//    axis theorem with linear motion (each candidate axis — face normals of both, cross products
//    of their edges — overlaps over a closed interval of t, and the first contact is the start of
//    the intersection of those intervals); for everything else certificates from the exact
//    distances of oracles.hpp (feature enumeration, closed forms for balls), or, for cylinders
//    and cones against anything larger than a ball, proven bounds from alternating projections.
//
// Certificates on every answer (see `certify`): hit — the distance at toi is the target within
// the cast's tolerance, the witness points lie on the shapes, |pB − pA| is the target, the
// normal proves it (min_B n·x − max_A n·x ≈ target), and no contact at 16 earlier times (every
// 4th case) nor after a re-cast from the hit nudged back along the normal; miss — no contact at
// any time (the least distance over [0, 1], a convex function of t under translation, found by
// the oracles); initially_overlapping — within the target at t = 0.
//
// Tolerances: `slack` is scenes::length_tolerance (1e-9·size double, 1e-4·size float: rounding
// of the library's own arithmetic, derived there from GJK's tolerance); every other bound is the
// query's own tolerance plus that slack, or derived below from the query's documented
// termination test.
#include "oracles.hpp"
#include "scenes.hpp"

#include <impact/cast.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace impact;
using oracle::Body;
using oracle::kInf;
using oracle::Kind;
using oracle::M;
using oracle::V;
using scenes::FailureLog;
using scenes::Rng;

template <class S>
V vd(const Vec3<S>& v) {
  return v.template cast<double>();
}

constexpr CastMethod kMethods[] = {CastMethod::gjk_raycast, CastMethod::conservative_advancement, CastMethod::mpr};

/// ShapeCastOptions::closed_form for the batteries (the ball pairs run both ways).
bool g_cast_closed_form = true;
struct ClosedFormOff {
  ClosedFormOff() { g_cast_closed_form = false; }
  ~ClosedFormOff() { g_cast_closed_form = true; }
};

const char* method_name(CastMethod m) {
  switch (m) {
    case CastMethod::gjk_raycast: return "gjk_raycast";
    case CastMethod::conservative_advancement: return "conservative_advancement";
    case CastMethod::mpr: return "mpr";
  }
  return "?";
}

std::string num(double x) { return scenes::num(x); }

// =============================================================================================
// Ray casts
// =============================================================================================

/// An interval of the ray parameter λ over the whole line, with the outward normal (local frame)
/// of the surface the ray enters through at `lo`.
struct Interval {
  double lo = kInf, hi = -kInf;
  V n_lo = V::Zero();
  [[nodiscard]] bool empty() const { return !(lo <= hi); }
};
const Interval kAll{-kInf, kInf, V::Zero()};

Interval intersect(const Interval& a, const Interval& b) {
  if (a.empty() || b.empty()) return {};
  Interval out = a.lo >= b.lo ? a : b;  // the later entry, with its normal
  out.hi = std::min(a.hi, b.hi);
  return out;
}

/// The union of two intervals known to overlap (pieces of one convex set): the earlier entry.
Interval unite(const Interval& a, const Interval& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  Interval out = a.lo <= b.lo ? a : b;
  out.hi = std::max(a.hi, b.hi);
  return out;
}

/// {λ : lo ≤ o + λ·d ≤ hi} for one coordinate; `axis` the coordinate's unit vector.
Interval slab(double o, double d, double lo, double hi, const V& axis) {
  if (d == 0) return (o >= lo && o <= hi) ? kAll : Interval{};
  double t0 = (lo - o) / d, t1 = (hi - o) / d;
  V n = -axis;  // entering through the lower face when d > 0
  if (t0 > t1) {
    std::swap(t0, t1);
    n = axis;
  }
  return {t0, t1, n};
}

/// {λ : aλ² + bλ + c ≤ 0}: up to two intervals (stable roots, Numerical Recipes §5.6).
std::array<Interval, 2> quadratic_le0(double a, double b, double c) {
  if (a == 0) {
    if (b == 0) return {c <= 0 ? kAll : Interval{}, Interval{}};
    return {b > 0 ? Interval{-kInf, -c / b} : Interval{-c / b, kInf}, Interval{}};
  }
  const double disc = b * b - 4 * a * c;
  if (disc < 0) return {a > 0 ? Interval{} : kAll, Interval{}};
  const double q = -0.5 * (b + std::copysign(std::sqrt(disc), b));
  double r1 = q / a, r2 = q != 0 ? c / q : r1;
  if (r1 > r2) std::swap(r1, r2);
  if (a > 0) return {Interval{r1, r2}, Interval{}};
  return {Interval{-kInf, r1}, Interval{r2, kInf}};
}

/// The ball of radius r about c.
Interval ray_ball(const V& o, const V& d, const V& c, double r) {
  const V m = o - c;
  Interval i = quadratic_le0(d.squaredNorm(), 2 * m.dot(d), m.squaredNorm() - r * r)[0];
  if (!i.empty()) i.n_lo = (m + i.lo * d).normalized();
  return i;
}

/// The infinite solid cylinder x² + y² ≤ r² about z.
Interval ray_infinite_cylinder(const V& o, const V& d, double r) {
  const auto pieces = quadratic_le0(d.x() * d.x() + d.y() * d.y(), 2 * (o.x() * d.x() + o.y() * d.y()),
                                    o.x() * o.x() + o.y() * o.y() - r * r);
  Interval i = pieces[0];  // a ≥ 0: one piece
  if (!i.empty() && std::isfinite(i.lo)) {
    const V p = o + i.lo * d;
    i.n_lo = V(p.x(), p.y(), 0).normalized();
  }
  return i;
}

/// The solid cone about z with apex (0,0,h) and base disc of radius r at z = −h: the lower nappe
/// ρ ≤ k·(h − z), k = r/(2h), cut by z ≥ −h.
Interval ray_cone(const V& o, const V& d, double r, double h) {
  const double k = r / (2 * h), k2 = k * k, e = h - o.z();
  const double a = d.x() * d.x() + d.y() * d.y() - k2 * d.z() * d.z();
  const double b = 2 * (o.x() * d.x() + o.y() * d.y() + k2 * e * d.z());
  const double c = o.x() * o.x() + o.y() * o.y() - k2 * e * e;
  const Interval below_apex = slab(o.z(), d.z(), -kInf, h, V::UnitZ());
  Interval nappe;
  for (Interval piece : quadratic_le0(a, b, c)) {
    if (piece.empty()) continue;
    if (std::isfinite(piece.lo)) {
      const V p = o + piece.lo * d;
      const double rho = std::hypot(p.x(), p.y());
      piece.n_lo = rho > 0 ? V(p.x() / rho, p.y() / rho, k).normalized() : V::UnitZ();
    }
    nappe = unite(nappe, intersect(piece, below_apex));
  }
  return intersect(nappe, slab(o.z(), d.z(), -h, kInf, V::UnitZ()));
}

/// Cyrus–Beck clipping against a polytope's face planes.
Interval ray_planes(const V& o, const V& d, const std::vector<oracle::Plane>& planes) {
  Interval i = kAll;
  for (const oracle::Plane& f : planes) {
    const double dn = f.n.dot(d), dist = f.d - f.n.dot(o);  // inside iff λ·dn ≤ dist
    Interval half;
    if (dn == 0) half = dist >= 0 ? kAll : Interval{};
    else if (dn > 0) half = {-kInf, dist / dn};
    else half = {dist / dn, kInf, f.n};
    i = intersect(i, half);
  }
  return i;
}

/// The rounded box (box of half extents h ⊕ ball of radius r) as the union of its pieces: the
/// box grown along one axis at a time, a ball at each corner and a cylinder along each edge. The
/// solid is convex, so the union of the pieces' intervals is one interval.
Interval ray_rounded_box(const V& o, const V& d, const V& h, double r) {
  Interval out;
  for (int k = 0; k < 3; ++k) {  // grown along axis k
    Interval i = kAll;
    for (int j = 0; j < 3; ++j) {
      const double e = h[j] + (j == k ? r : 0.0);
      i = intersect(i, slab(o[j], d[j], -e, e, V::Unit(j)));
    }
    out = unite(out, i);
  }
  for (int c = 0; c < 8; ++c) {
    const V corner((c & 1) ? h.x() : -h.x(), (c & 2) ? h.y() : -h.y(), (c & 4) ? h.z() : -h.z());
    out = unite(out, ray_ball(o, d, corner, r));
  }
  for (int k = 0; k < 3; ++k) {  // edges along axis k: permute so the edge runs along z
    const int u = (k + 1) % 3, w = (k + 2) % 3;
    for (int c = 0; c < 4; ++c) {
      const double cu = (c & 1) ? h[u] : -h[u], cw = (c & 2) ? h[w] : -h[w];
      const V po(o[u] - cu, o[w] - cw, o[k]), pd(d[u], d[w], d[k]);
      Interval i = intersect(ray_infinite_cylinder(po, pd, r), slab(po.z(), pd.z(), -h[k], h[k], V::UnitZ()));
      if (!i.empty()) {
        V n = V::Zero();
        n[u] = i.n_lo.x();
        n[w] = i.n_lo.y();
        n[k] = i.n_lo.z();
        i.n_lo = n;
      }
      out = unite(out, i);
    }
  }
  return out;
}

/// The ray's interval in the shape (local frame), or nullopt for shapes without a closed form here.
template <class S>
Interval ray_closed_form(const Shape<S>& shape, const oracle::Polytope* hull_local, const V& o, const V& d) {
  const auto& var = shape.variant();
  if (auto* s = std::get_if<Sphere<S>>(&var)) return ray_ball(o, d, V::Zero(), double(s->radius));
  if (auto* b = std::get_if<Box<S>>(&var)) {
    const V h = vd(b->half_extents);
    Interval i = kAll;
    for (int k = 0; k < 3; ++k) i = intersect(i, slab(o[k], d[k], -h[k], h[k], V::Unit(k)));
    return i;
  }
  if (auto* c = std::get_if<Capsule<S>>(&var)) {
    const double r = c->radius, h = c->half_height;
    const Interval side = intersect(ray_infinite_cylinder(o, d, r), slab(o.z(), d.z(), -h, h, V::UnitZ()));
    return unite(unite(side, ray_ball(o, d, V(0, 0, h), r)), ray_ball(o, d, V(0, 0, -h), r));
  }
  if (auto* y = std::get_if<Cylinder<S>>(&var))
    return intersect(ray_infinite_cylinder(o, d, y->radius),
                     slab(o.z(), d.z(), -double(y->half_height), y->half_height, V::UnitZ()));
  if (auto* k = std::get_if<Cone<S>>(&var)) return ray_cone(o, d, k->radius, k->half_height);
  if (std::holds_alternative<Hull<S>>(var)) return ray_planes(o, d, hull_local->planes);
  if (auto* m = std::get_if<MinkowskiShape<S>>(&var)) {
    const auto* b = std::get_if<Box<S>>(&m->a->variant());
    const auto* s = std::get_if<Sphere<S>>(&m->b->variant());
    if (!b) b = std::get_if<Box<S>>(&m->b->variant());
    if (!s) s = std::get_if<Sphere<S>>(&m->a->variant());
    if (b && s) return ray_rounded_box(o, d, vd(b->half_extents), double(s->radius));
  }
  ADD_FAILURE() << "no ray closed form for " << scenes::describe(shape);
  return {};
}

/// Length tolerance of a ray hit point. The GJK ray cast stops when (‖v‖ − R)² ≤ rel·max‖x − p‖²
/// (docs/tolerances.md): x is then within √rel·max‖x − p‖ of the shape, and ‖x − p‖ (x at the
/// surface, p a support point) is at most the shape's diameter 2·reach. Plus rounding (`slack`).
template <class S>
double ray_gap_tolerance(const RayCastOptions<S>& opt, double reach, double size) {
  return std::sqrt(double(opt.relative_tolerance)) * 2 * reach + scenes::length_tolerance<S>(size);
}

/// Normal tolerance (length): a reported n at p is valid when h(n) − n·p is this small, i.e. no
/// point of the shape lies more than this beyond the plane through p. An angle error θ of the
/// normal moves the plane by θ·reach, so 1e-6 rad (double) / 1e-4 rad (float, ~1000 ε) of the
/// scene; p itself may sit `gap` off the surface.
template <class S>
double normal_tolerance(double reach, double gap) {
  return (sizeof(S) == 4 ? 1e-4 : 1e-6) * std::max(1.0, reach) + gap;
}

template <class S>
struct RayCase {
  scenes::RandomShape<S> shape;
  Pose<S> pose;
  Ray<S> ray;
  S max_lambda = S(1);
  int index = 0;
  [[nodiscard]] std::string describe() const {
    return "case " + std::to_string(index) + ":\n  shape = " + scenes::describe(shape.shape) +
           "\n  pose = " + scenes::describe(pose) + "\n  ray = {origin " + scenes::vec(ray.origin) + ", direction " +
           scenes::vec(ray.direction) + "}, max_lambda = " + num(max_lambda);
  }
};

template <class S>
std::string ray_hit_text(const RayHit<S>& h) {
  return "-> status " + std::string(to_string(h.status)) + ", lambda " + num(h.lambda) + ", point " +
         scenes::vec(h.point) + ", normal " + scenes::vec(h.normal) + ", iterations " + std::to_string(h.iterations) +
         (h.error.empty() ? "" : ", error " + h.error);
}

/// Oracle of one ray case.
struct RayTruth {
  Interval world;  ///< λ interval of the ray in the shape (normal in world frame)
  double reach = 1, size = 1;
  Body body;
};

template <class S>
RayTruth ray_truth(const RayCase<S>& c) {
  RayTruth t;
  t.body = oracle::make_body(c.shape.shape, c.pose, c.shape.hull_local);
  const V o = t.body.to_local(vd(c.ray.origin)), d = t.body.rot.transpose() * vd(c.ray.direction);
  t.world = ray_closed_form(c.shape.shape, c.shape.hull_local, o, d);
  t.world.n_lo = t.body.rot * t.world.n_lo;
  t.reach = std::max(1e-3, double(bounding_radius(c.shape.shape)));
  t.size = std::max({1.0, t.reach, vd(c.pose.position).norm(), vd(c.ray.origin).norm()});
  return t;
}

/// Checks one ray answer. Returns 1 for a (valid or invalid) hit, 0 otherwise.
template <class S>
int certify_ray(const RayCase<S>& c, const RayHit<S>& h, const RayCastOptions<S>& opt, FailureLog& log) {
  const RayTruth t = ray_truth(c);
  const double slack = scenes::length_tolerance<S>(t.size);
  const double gap = ray_gap_tolerance<S>(opt, t.reach, t.size);
  const double ntol = normal_tolerance<S>(t.reach, gap);
  const V o = vd(c.ray.origin), d = vd(c.ray.direction);
  const double dlen = d.norm(), lmax = double(c.max_lambda);
  const double sd_origin = oracle::signed_distance(t.body, o);
  auto details = [&](const std::string& extra = "") {
    std::ostringstream s;
    s << c.describe() << "\n" << ray_hit_text(h) << "\n  closed form: interval [" << num(t.world.lo) << ", "
      << num(t.world.hi) << "], entry normal " << t.world.n_lo.transpose() << ", signed distance of the origin "
      << num(sd_origin) << "\n  tolerances: gap " << gap << ", normal " << ntol << extra;
    return s.str();
  };
  // Deep inside at the origin: only initially_overlapping is right; within `gap` of the surface
  // either answer is.
  if (sd_origin < -gap && h.status != Status::initially_overlapping) {
    log.fail("origin inside the shape but not initially_overlapping", details());
    return 0;
  }
  switch (h.status) {
    case Status::initially_overlapping:
      if (h.lambda != S(0)) log.fail("initially_overlapping with lambda != 0", details());
      if (sd_origin > gap) log.fail("initially_overlapping but the origin is outside", details());
      return 0;
    case Status::miss: {
      // Wrong when the oracle finds a point of the ray within [0, max_lambda] deeper than `gap`
      // inside the shape (the signed distance is convex along the ray: try the middle of the
      // clipped chord and its ends).
      const double lo = std::max(0.0, t.world.lo), hi = std::min(lmax, t.world.hi);
      if (!t.world.empty() && lo <= hi) {
        double deepest = kInf;
        for (double l : {lo, 0.5 * (lo + hi), hi, 0.25 * lo + 0.75 * hi, 0.75 * lo + 0.25 * hi})
          deepest = std::min(deepest, oracle::signed_distance(t.body, o + l * d));
        if (deepest < -gap)
          log.fail("miss, but the ray passes through the shape within max_lambda",
                   details("\n  deepest ray point found: signed distance " + num(deepest)));
      }
      return 0;
    }
    case Status::hit: {
      const double lambda = h.lambda;
      const V p = o + lambda * d;
      bool ok = true;
      if (!(lambda >= 0 && lambda <= lmax)) {
        log.fail("hit with lambda outside [0, max_lambda]", details());
        return 1;
      }
      if ((vd(h.point) - p).norm() > slack + 4 * double(std::numeric_limits<S>::epsilon()) * (o.norm() + lambda * dlen)) {
        log.fail("hit point is not origin + lambda*direction", details());
        ok = false;
      }
      const double sd = oracle::signed_distance(t.body, p);
      if (sd < -slack || sd > gap) {
        log.fail("hit point not on the surface (signed distance outside [-slack, gap])",
                 details("\n  signed distance of the hit point " + num(sd)));
        ok = false;
      }
      if (!t.world.empty()) {
        // Never late: λ ≤ λ*. Not early: the hit point is before the entry plane by at most the
        // gap (its distance to the tangent plane at the entry is at most its distance to the shape).
        const double lstar = t.world.lo;
        const double cos_in = std::abs(t.world.n_lo.dot(d)) / dlen;
        if (lstar >= 0 && lambda > lstar + slack / (dlen * std::max(cos_in, 1e-3))) {
          log.fail("hit later than the closed form", details());
          ok = false;
        }
        if (lstar >= 0 && cos_in > 0 && (lstar - lambda) * dlen * cos_in > gap) {
          log.fail("hit earlier than the closed form by more than the gap", details());
          ok = false;
        }
      }
      const V n = vd(h.normal);
      if (std::abs(n.norm() - 1) > 1e-5) {
        log.fail("normal not unit", details());
        return 1;
      }
      const double excess = oracle::support_value(t.body, n) - n.dot(p);
      if (excess > ntol || excess < -gap - slack || n.dot(d) / dlen > ntol / t.reach) {
        log.fail("normal is not a valid outward normal at the hit point (h(n) - n.p out of range)",
                 details("\n  h(n) - n.p = " + num(excess)));
        ok = false;
      }
      // First order: n within θ of the normal cone at the surface. A point p' = p + δ·n a little
      // outside projects to a surface point q' whose normal (p' − q')/|p' − q'| is n itself when
      // n is in the cone there (edges and vertices included) and turns by about θ·ρ/(ρ + δ) when
      // n is θ off (ρ the radius of curvature); δ = 1e-3·reach keeps that ≈ θ. θ = 1e-6 rad.
      // In float the hit point itself may be ~1e-3 of the size before the surface (the
      // documented termination), where any supporting plane through it is a valid answer: only
      // the support-value test above applies.
      const V pp = p + 1e-3 * t.reach * n;
      const V m = (pp - oracle::closest_point(t.body, pp)).normalized();
      const double angle = std::atan2(m.cross(n).norm(), m.dot(n));
      if (sizeof(S) == 8 && angle > 1e-6)
        log.fail("normal is more than the angle tolerance from the surface normal at the hit",
                 details("\n  angle to the normal cone " + num(angle) + " rad (surface normal " + scenes::vec(Vec3<double>(m)) + ")"));
      (void)ok;
      return 1;
    }
    default:
      log.fail("status " + std::string(to_string(h.status)), details());
      return 0;
  }
}

/// A random ray about a random shape of kind k: the origin 0.2 to 3 reaches from the shape (or,
/// in 8% of the cases, inside it), aimed at a point near the shape; max_lambda usually far beyond
/// the shape, in a fifth of the cases somewhere along the chord (the early out).
template <class S>
RayCase<S> random_ray(Kind k, Rng& rng, int index) {
  RayCase<S> c;
  c.index = index;
  c.shape = scenes::random_shape<S>(k, rng);
  const V pos = rng.in_cube(1);
  c.pose = scenes::make_pose<S>(pos, rng.rotation());
  const double reach = std::max(0.1, double(bounding_radius(c.shape.shape)));
  const V origin = rng.uniform() < 0.08 ? V(pos + rng.in_cube(0.3 * reach)) : V(pos + rng.unit() * reach * rng.uniform(1.2, 4.0));
  // A ball fills its bounding cube less than the other shapes: aim wider to keep 30-70% hits.
  const V aim = pos + rng.in_cube((k == Kind::sphere ? 1.5 : 0.9) * reach);
  const double speed = rng.uniform(0.3, 3.0);
  c.ray.origin = scenes::to_s<S>(origin);
  c.ray.direction = scenes::to_s<S>((aim - origin).normalized() * speed);
  const double to_aim = (aim - origin).norm() / speed;
  c.max_lambda = S(rng.uniform() < 0.2 ? rng.uniform(0.0, 1.5) * to_aim : 1e3);
  return c;
}

template <class S>
void ray_battery(Kind k, int cases, bool closed_form) {
  const std::string name = std::string("ray ") + oracle::kind_name(k) + " " + scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  FailureLog log;
  int hits = 0, inside = 0;
  for (int i = 0; i < cases; ++i) {
    const RayCase<S> c = random_ray<S>(k, rng, i);
    RayCastOptions<S> opt;
    opt.max_lambda = c.max_lambda;
    opt.closed_form = closed_form;
    const RayHit<S> h = ray_cast<S>(c.shape.shape, c.pose, c.ray, opt);
    // The closed forms are exact up to rounding: certified without the GJK ray cast's gap.
    RayCastOptions<S> judged = opt;
    if (closed_form) judged.relative_tolerance = S(0);
    hits += certify_ray(c, h, judged, log);
    inside += h.status == Status::initially_overlapping;
  }
  std::printf("%s (%s): %d cases, %d hits, %d initially_overlapping\n", name.c_str(),
              closed_form ? "closed form" : "GJK ray cast", cases, hits, inside);
  EXPECT_GE(hits, cases * 3 / 10) << name << ": too few hits";
  EXPECT_LE(hits, cases * 7 / 10) << name << ": too many hits";
  EXPECT_GT(inside, 0) << name;
}

constexpr int kRayCases = scenes::battery(4000);

TEST(RayCast, SphereClosedFormDouble) { ray_battery<double>(Kind::sphere, kRayCases, true); }
TEST(RayCast, SphereGjkRayCastDouble) { ray_battery<double>(Kind::sphere, kRayCases, false); }
TEST(RayCast, SphereClosedFormFloat) { ray_battery<float>(Kind::sphere, kRayCases, true); }
TEST(RayCast, SphereGjkRayCastFloat) { ray_battery<float>(Kind::sphere, kRayCases, false); }
TEST(RayCast, BoxSlabsDouble) { ray_battery<double>(Kind::box, kRayCases, true); }
TEST(RayCast, BoxGjkRayCastDouble) { ray_battery<double>(Kind::box, kRayCases, false); }
TEST(RayCast, BoxSlabsFloat) { ray_battery<float>(Kind::box, kRayCases, true); }
TEST(RayCast, BoxGjkRayCastFloat) { ray_battery<float>(Kind::box, kRayCases, false); }
TEST(RayCast, CapsuleClosedFormDouble) { ray_battery<double>(Kind::capsule, kRayCases, true); }
TEST(RayCast, CapsuleGjkRayCastDouble) { ray_battery<double>(Kind::capsule, kRayCases, false); }
TEST(RayCast, CapsuleClosedFormFloat) { ray_battery<float>(Kind::capsule, kRayCases, true); }
TEST(RayCast, CapsuleGjkRayCastFloat) { ray_battery<float>(Kind::capsule, kRayCases, false); }
TEST(RayCast, CylinderClosedFormDouble) { ray_battery<double>(Kind::cylinder, kRayCases, true); }
TEST(RayCast, CylinderGjkRayCastDouble) { ray_battery<double>(Kind::cylinder, kRayCases, false); }
TEST(RayCast, CylinderClosedFormFloat) { ray_battery<float>(Kind::cylinder, kRayCases, true); }
TEST(RayCast, CylinderGjkRayCastFloat) { ray_battery<float>(Kind::cylinder, kRayCases, false); }
TEST(RayCast, ConeClosedFormDouble) { ray_battery<double>(Kind::cone, kRayCases, true); }
TEST(RayCast, ConeGjkRayCastDouble) { ray_battery<double>(Kind::cone, kRayCases, false); }
TEST(RayCast, ConeClosedFormFloat) { ray_battery<float>(Kind::cone, kRayCases, true); }
TEST(RayCast, ConeGjkRayCastFloat) { ray_battery<float>(Kind::cone, kRayCases, false); }
TEST(RayCast, RoundedBoxNewtonDouble) { ray_battery<double>(Kind::rounded_box, kRayCases, true); }
TEST(RayCast, RoundedBoxGjkRayCastDouble) { ray_battery<double>(Kind::rounded_box, kRayCases, false); }
TEST(RayCast, RoundedBoxNewtonFloat) { ray_battery<float>(Kind::rounded_box, kRayCases, true); }
TEST(RayCast, RoundedBoxGjkRayCastFloat) { ray_battery<float>(Kind::rounded_box, kRayCases, false); }
TEST(RayCast, HullPlaneClippingDouble) { ray_battery<double>(Kind::hull, kRayCases, true); }
TEST(RayCast, HullGjkRayCastDouble) { ray_battery<double>(Kind::hull, kRayCases, false); }
TEST(RayCast, HullPlaneClippingFloat) { ray_battery<float>(Kind::hull, kRayCases, true); }
TEST(RayCast, HullGjkRayCastFloat) { ray_battery<float>(Kind::hull, kRayCases, false); }

/// The closed forms themselves, on rays whose answers are known by hand (so a wrong closed form
/// cannot hide a wrong library).
TEST(RayCast, ClosedFormsOnHandPickedRays) {
  const V x = V::UnitX();
  Interval i = ray_ball(V(-3, 0, 0), x, V::Zero(), 1);
  EXPECT_DOUBLE_EQ(i.lo, 2);
  EXPECT_DOUBLE_EQ(i.hi, 4);
  i = intersect(ray_infinite_cylinder(V(0, -5, 0.5), V::UnitY(), 2), slab(0.5, 0, -1, 1, V::UnitZ()));
  EXPECT_DOUBLE_EQ(i.lo, 3);
  EXPECT_NEAR(i.n_lo.y(), -1, 1e-15);
  // Cone r = 1, h = 1: apex (0,0,1), base at z = −1. Along x at z = 0 the section radius is 0.5.
  i = ray_cone(V(-2, 0, 0), x, 1, 1);
  EXPECT_DOUBLE_EQ(i.lo, 1.5);
  EXPECT_DOUBLE_EQ(i.hi, 2.5);
  i = ray_cone(V(0, 0, 3), -V::UnitZ(), 1, 1);  // down the axis: apex at λ = 2, base at λ = 4
  EXPECT_DOUBLE_EQ(i.lo, 2);
  EXPECT_DOUBLE_EQ(i.hi, 4);
  i = ray_cone(V(0, 0, 3), V::UnitZ(), 1, 1);  // away from the apex, through the upper nappe: empty
  EXPECT_TRUE(i.empty() || i.hi < 0);
  const std::vector<V> cube = {V(-1, -1, -1), V(1, -1, -1), V(-1, 1, -1), V(1, 1, -1),
                               V(-1, -1, 1),  V(1, -1, 1),  V(-1, 1, 1),  V(1, 1, 1)};
  i = ray_planes(V(-3, 0.5, 0), x, oracle::polytope_from_points(cube).planes);
  EXPECT_NEAR(i.lo, 2, 1e-12);
  EXPECT_NEAR(i.hi, 4, 1e-12);
}

/// Rays with max_lambda just short of / just past the entry: the early out.
template <class S>
void max_lambda_battery(int cases, bool closed_form) {
  const std::string name = std::string("ray max_lambda ") + scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  FailureLog log;
  int hits = 0, misses = 0;
  for (int i = 0; hits + misses < cases; ++i) {
    const Kind k = std::array{Kind::sphere, Kind::box, Kind::capsule, Kind::cylinder, Kind::cone, Kind::hull}[i % 6];
    RayCase<S> c = random_ray<S>(k, rng, i);
    RayTruth t = ray_truth(c);
    if (t.world.empty() || t.world.lo <= 0) continue;
    // Stop the ray 1% of the chord before (must miss) or after (must hit) the entry.
    const double chord = std::min(t.world.hi, t.world.lo * 2) - t.world.lo;
    const bool before = (i / 6) % 2 == 0;  // each kind both ways
    c.max_lambda = S(t.world.lo + (before ? -0.01 : 0.01) * std::max(chord, 1e-3));
    RayCastOptions<S> opt;
    opt.max_lambda = c.max_lambda;
    opt.closed_form = closed_form;
    const RayHit<S> h = ray_cast<S>(c.shape.shape, c.pose, c.ray, opt);
    certify_ray(c, h, opt, log);
    const double gap = ray_gap_tolerance<S>(opt, t.reach, t.size);
    const double margin = 0.01 * std::max(chord, 1e-3) * c.ray.direction.template cast<double>().norm();
    if (margin <= 4 * gap) continue;  // too close to call at this precision
    if (before && h.status != Status::miss) log.fail("max_lambda before the entry but not a miss", c.describe() + "\n" + ray_hit_text(h));
    if (!before && h.status != Status::hit) log.fail("max_lambda after the entry but not a hit", c.describe() + "\n" + ray_hit_text(h));
    (before ? misses : hits) += 1;
  }
  EXPECT_GT(hits, cases / 3);
  EXPECT_GT(misses, cases / 3);
}

TEST(RayCast, MaxLambdaEarlyOutDouble) { max_lambda_battery<double>(2000, true); }
TEST(RayCast, MaxLambdaEarlyOutFloat) { max_lambda_battery<float>(2000, true); }
TEST(RayCast, MaxLambdaEarlyOutGjkRayCastDouble) { max_lambda_battery<double>(2000, false); }
TEST(RayCast, MaxLambdaEarlyOutGjkRayCastFloat) { max_lambda_battery<float>(2000, false); }

// =============================================================================================
// Shape casts: cases, oracles, certificates
// =============================================================================================

/// A pool of small random solid hulls (8 to 16 points) so the exact oracles stay cheap.
template <class S>
const std::vector<scenes::PooledHull<S>>& small_hulls() {
  static const std::vector<scenes::PooledHull<S>> pool = [] {
    std::vector<scenes::PooledHull<S>> out;
    Rng rng(scenes::seed_of(std::string("cast hull pool ") + scenes::scalar_name<S>()));
    while (out.size() < 32) {
      const int n = 8 + rng.index(9);
      const V stretch(rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0));
      std::vector<Vec3<S>> cloud;
      std::vector<V> cd;
      for (int i = 0; i < n; ++i) {
        cloud.push_back(scenes::to_s<S>(rng.unit().cwiseProduct(stretch)));
        cd.push_back(vd(cloud.back()));
      }
      auto built = Hull<S>::build(cloud);
      if (!built.ok() || built.hull.dimension != 3) continue;
      out.push_back({std::make_shared<const Shape<S>>(std::move(built.hull)), oracle::polytope_from_points(cd)});
    }
    return out;
  }();
  return pool;
}

template <class S>
scenes::RandomShape<S> cast_shape(Kind k, Rng& rng) {
  if (k == Kind::hull) {
    const auto& pool = small_hulls<S>();
    const auto& h = pool[rng.index(static_cast<int>(pool.size()))];
    return {*h.shape, &h.local};
  }
  return scenes::random_shape<S>(k, rng);
}

template <class S>
struct CastCase {
  scenes::RandomShape<S> a, b;
  Pose<S> pose_a, pose_b;
  Vec3<S> vel_a{S(0), S(0), S(0)}, vel_b{S(0), S(0), S(0)};
  S target = S(0);
  int index = 0;

  /// A's and B's oracle bodies at time t (placed in double from the library's inputs).
  [[nodiscard]] Body body_a(double t) const { return at(a, pose_a, vel_a, t); }
  [[nodiscard]] Body body_b(double t) const { return at(b, pose_b, vel_b, t); }
  [[nodiscard]] V relative_velocity() const { return vd(vel_b) - vd(vel_a); }
  [[nodiscard]] double size() const {
    return std::max({1.0, double(bounding_radius(a.shape)), double(bounding_radius(b.shape)), vd(pose_a.position).norm(),
                     vd(pose_b.position).norm(), vd(Vec3<S>(pose_a.position + vel_a)).norm(),
                     vd(Vec3<S>(pose_b.position + vel_b)).norm()});
  }
  [[nodiscard]] std::string describe() const {
    return "case " + std::to_string(index) + ":\n  a = " + scenes::describe(a.shape) + "\n  pose_a = " +
           scenes::describe(pose_a) + "\n  velocity_a = " + scenes::vec(vel_a) + "\n  b = " + scenes::describe(b.shape) +
           "\n  pose_b = " + scenes::describe(pose_b) + "\n  velocity_b = " + scenes::vec(vel_b) +
           "\n  target_distance = " + num(target);
  }
  [[nodiscard]] CastHit<S> run(CastMethod m, S tolerance) const {
    ShapeCastOptions<S> opt;
    opt.method = m;
    opt.target_distance = target;
    opt.tolerance = tolerance;
    opt.closed_form = g_cast_closed_form;
    return shape_cast<S>(a.shape, pose_a, vel_a, b.shape, pose_b, vel_b, opt);
  }
  /// A and B exchanged.
  [[nodiscard]] CastCase swapped() const {
    CastCase c = *this;
    std::swap(c.a, c.b);
    std::swap(c.pose_a, c.pose_b);
    std::swap(c.vel_a, c.vel_b);
    return c;
  }

 private:
  static Body at(const scenes::RandomShape<S>& s, const Pose<S>& p, const Vec3<S>& v, double t) {
    Body b = oracle::make_body(s.shape, p, s.hull_local);
    const V shift = t * vd(v);
    b.pos += shift;
    if (b.has_core) b.core = b.core.transformed(M::Identity(), shift);
    return b;
  }
};

template <class S>
std::string cast_hit_text(const CastHit<S>& h) {
  return "-> status " + std::string(to_string(h.status)) + ", toi " + num(h.toi) + ", point_a " + scenes::vec(h.point_a) +
         ", point_b " + scenes::vec(h.point_b) + ", normal " + scenes::vec(h.normal) + ", iterations " +
         std::to_string(h.iterations) + (h.error.empty() ? "" : ", error " + h.error);
}

/// Bounds of the distance between two bodies: exact when oracles.hpp knows it, else proven bounds
/// from alternating projections (with `hint` as an extra separating direction).
struct Bounds {
  double lo, hi;
};
Bounds distance_bounds(const Body& a, const Body& b, const V& hint, int steps = 300) {
  if (auto d = oracle::distance(a, b)) return {*d, *d};
  const auto r = oracle::distance_bounds(a, b, 1e-13, steps, {hint});
  return {std::max(0.0, r.lower), r.upper};
}

/// The same, with candidate points near A and B (anyone's: the oracle projects them onto the
/// shapes, so the upper bound |y − x| is a proof whoever proposed them) to start alternating
/// projections from, which converge slowly from far away near a graze.
Bounds distance_bounds(const Body& a, const Body& b, const V& hint, const V& near_a, const V& near_b, int steps = 300) {
  if (auto d = oracle::distance(a, b)) return {*d, *d};
  Bounds out = distance_bounds(a, b, hint, steps);
  out.lo = std::max(out.lo, oracle::separation_along(a, b, near_b - near_a));
  V x = oracle::closest_point(a, near_a), y = oracle::closest_point(b, near_b);
  for (int k = 0; k < steps && out.hi - out.lo > 1e-13; ++k) {
    out.hi = std::min(out.hi, (y - x).norm());
    if (out.hi > 0) out.lo = std::max(out.lo, oracle::separation_along(a, b, y - x));
    const V x2 = oracle::closest_point(a, y);
    const V y2 = oracle::closest_point(b, x2);
    if (x2 == x && y2 == y) break;
    x = x2, y = y2;
  }
  out.hi = std::min(out.hi, (y - x).norm());
  return out;
}

/// The separating axis theorem under linear motion, for two polytopes without rounding (boxes,
/// flat boxes included, and hulls). Along a unit axis L, A covers [amin, amax] + t·L·vA and B
/// [bmin, bmax] + t·L·vB, so they overlap along L iff amin − bmax ≤ t·w ≤ amax − bmin with
/// w = L·(vB − vA): a closed interval of t. Two convex polytopes touch iff no candidate axis
/// separates them, so the contact times are the intersection of the axes' intervals, and the
/// first contact is its start. sep(t) = max over the axes of the separation along them is a lower
/// bound of the distance, and minus the penetration depth when they overlap.
struct MovingSat {
  struct Axis {
    V n;
    double lo_gap, hi_gap, w;
  };
  std::vector<Axis> axes;
  double first = -kInf, last = kInf;  ///< contact interval (empty when first > last)
  double rate = 0;                    ///< |w| of the axis that sets `first`: closing speed there

  [[nodiscard]] double sep(double t) const {
    double m = -kInf;
    for (const Axis& a : axes) m = std::max({m, t * a.w - a.hi_gap, a.lo_gap - t * a.w});
    return m;
  }
  /// min over t ∈ [0, 1] of sep(t) (convex: golden-section search).
  [[nodiscard]] double min_sep() const {
    double lo = 0, hi = 1;
    const double g = 0.5 * (std::sqrt(5.0) - 1);
    double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = sep(x1), f2 = sep(x2);
    for (int i = 0; i < 60; ++i) {
      if (f1 <= f2) {
        hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = sep(x1);
      } else {
        lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = sep(x2);
      }
    }
    return std::min({sep(0), sep(1), f1, f2});
  }
};

/// Vertices, face normals and edge directions of a polytope body for the moving SAT.
struct SatFeatures {
  std::vector<V> vertices, faces, edges;
};
SatFeatures sat_features(const Body& b) {
  SatFeatures f;
  f.vertices = b.core.vertices;
  if (b.kind == Kind::box) {
    // A box, flat or not: its faces and edges are along its axes (a zero half extent leaves a
    // rectangle whose in-plane edge normals are still box axes).
    for (int i = 0; i < 3; ++i) f.faces.push_back(b.rot.col(i)), f.edges.push_back(b.rot.col(i));
    return f;
  }
  for (const auto& p : b.core.planes) f.faces.push_back(p.n);
  for (const auto& e : b.core.edges) f.edges.push_back(b.core.vertices[e[1]] - b.core.vertices[e[0]]);
  return f;
}

MovingSat moving_sat(const Body& a, const Body& b, const V& relative_velocity) {
  const SatFeatures fa = sat_features(a), fb = sat_features(b);
  MovingSat s;
  auto add = [&](const V& axis) {
    MovingSat::Axis x{axis, 0, 0, axis.dot(relative_velocity)};
    double amin = kInf, amax = -kInf, bmin = kInf, bmax = -kInf;
    for (const V& v : fa.vertices) amin = std::min(amin, axis.dot(v)), amax = std::max(amax, axis.dot(v));
    for (const V& v : fb.vertices) bmin = std::min(bmin, axis.dot(v)), bmax = std::max(bmax, axis.dot(v));
    x.lo_gap = amin - bmax;
    x.hi_gap = amax - bmin;
    s.axes.push_back(x);
    double t0, t1;
    if (x.w == 0) {
      if (x.lo_gap <= 0 && 0 <= x.hi_gap) return;
      t0 = kInf, t1 = -kInf;
    } else {
      t0 = x.lo_gap / x.w, t1 = x.hi_gap / x.w;
      if (t0 > t1) std::swap(t0, t1);
    }
    if (t0 > s.first) s.first = t0, s.rate = std::abs(x.w);
    s.last = std::min(s.last, t1);
  };
  for (const V& n : fa.faces) add(n.normalized());
  for (const V& n : fb.faces) add(n.normalized());
  for (const V& ea : fa.edges)
    for (const V& eb : fb.edges) {
      const V c = ea.cross(eb);
      if (c.squaredNorm() > 1e-20 * ea.squaredNorm() * eb.squaredNorm()) add(c.normalized());
    }
  return s;
}

/// What an exact oracle knows about a case's first contact (sphere–sphere closed form, or the
/// moving SAT for two polytopes at target 0).
struct Truth {
  bool known = false;
  bool initially = false;
  double toi = kInf;       ///< first time in [0, 1] within the target; kInf: none
  double rate = 0;         ///< closing speed along the contact normal at toi
  double min_excess = kInf;  ///< lower bound of min over [0, 1] of d(t) − target (exact when < 0)
  const char* name = "none";
  Bounds d0{0, kInf};                ///< distance at t = 0
  std::optional<MovingSat> sat;      ///< for two polytopes: exact overlap test at any t
};

template <class S>
Truth truth_of(const CastCase<S>& c) {
  Truth t;
  const Body a = c.body_a(0), b = c.body_b(0);
  const V v = c.relative_velocity();
  const double target = c.target;
  t.d0 = distance_bounds(a, b, b.pos - a.pos);
  if (a.is_ball() && b.is_ball()) {
    // |c0 + t·v| = R, R = rA + rB + target.
    t.known = true;
    t.name = "sphere-sphere quadratic";
    const V c0 = b.core.vertices[0] - a.core.vertices[0];
    const double R = a.radius + b.radius + target;
    const double tmin = v.squaredNorm() > 0 ? std::clamp(-c0.dot(v) / v.squaredNorm(), 0.0, 1.0) : 0.0;
    t.min_excess = (c0 + tmin * v).norm() - R;
    if (c0.norm() <= R) {
      t.initially = true;
      t.toi = 0;
      return t;
    }
    const Interval i = quadratic_le0(v.squaredNorm(), 2 * c0.dot(v), c0.squaredNorm() - R * R)[0];
    if (!i.empty() && i.lo >= 0 && i.lo <= 1) {
      t.toi = i.lo;
      t.rate = -((c0 + t.toi * v) / R).dot(v);
    }
    return t;
  }
  const bool polytopes = (a.kind == Kind::box || a.kind == Kind::hull) && (b.kind == Kind::box || b.kind == Kind::hull);
  if (!polytopes) return t;
  t.sat = moving_sat(a, b, v);
  const MovingSat& s = *t.sat;
  t.min_excess = s.min_sep() - target;
  if (target != 0) return t;  // the SAT knows penetration and separation along axes, not distance
  t.known = true;
  t.name = "moving SAT";
  if (s.first > s.last || s.first > 1 || s.last < 0) return t;
  if (s.first <= 0) {
    t.initially = true;
    t.toi = 0;
    return t;
  }
  t.toi = s.first;
  t.rate = s.rate;
  return t;
}

/// Counts of one battery.
struct Tally {
  int cases = 0, hits = 0, misses = 0, initially = 0, inconclusive = 0, certified_hits = 0;
};

/// Tolerances of a shape cast certificate.
template <class S>
struct CastTolerances {
  double tol, slack, pt, ntol;
  CastTolerances(const CastCase<S>& c, double cast_tolerance) {
    tol = cast_tolerance;
    slack = scenes::length_tolerance<S>(c.size());
    pt = tol + slack;  // witness points: the distance error itself
    // The normal must prove the distance to within the cast's tolerance, plus an angle error of
    // 1e-6 rad (double) / 1e-4 rad (float) over the scene.
    ntol = tol + slack + (sizeof(S) == 4 ? 1e-4 : 1e-6) * c.size();
  }
};

/// Checks one shape_cast answer against the oracles. `heavy`: also sample earlier times, re-cast
/// from the hit, and search the whole motion for contact on misses without an exact oracle.
/// The checks of a battery come in two parts, run as separate tests: times and statuses (with
/// the normal as a proof of the distance), and the witness points and their agreement with the
/// normal.
enum class Part { times, witnesses };

template <class S>
bool certify_cast(const CastCase<S>& c, const CastHit<S>& h, CastMethod method, double cast_tolerance,
                  const Truth& truth, bool heavy, FailureLog& log, Tally& tally, const std::string& label = "",
                  Part part = Part::times) {
  const CastTolerances<S> k(c, cast_tolerance);
  const double target = c.target;
  const std::string who = label + method_name(method) + ": ";
  auto details = [&](const std::string& extra = "") {
    std::ostringstream s;
    s << c.describe() << "\n  method " << method_name(method) << ", tolerance " << cast_tolerance << "\n"
      << cast_hit_text(h) << "\n  oracle " << truth.name;
    if (truth.known)
      s << ": " << (truth.initially ? "initially in contact" : truth.toi <= 1 ? "first contact at " + num(truth.toi) : "no contact")
        << ", closing rate " << truth.rate;
    if (truth.min_excess < kInf) s << ", min over t of (separation - target) >= " << truth.min_excess;
    s << extra;
    return s.str();
  };
  bool ok = true;
  auto fail = [&](const std::string& what, const std::string& extra = "") {
    log.fail(who + what, details(extra));
    ok = false;
  };
  const Bounds d0 = truth.d0;
  ++tally.cases;
  switch (h.status) {
    case Status::initially_overlapping: {
      ++tally.initially;
      if (h.toi != S(0)) fail("initially_overlapping with toi != 0");
      if (d0.lo > target + k.tol + k.slack) fail("initially_overlapping but apart beyond the target at t = 0", "\n  d(0) >= " + num(d0.lo));
      return ok;
    }
    case Status::miss: {
      ++tally.misses;
      if (d0.hi < target - k.slack) fail("miss, but within the target at t = 0", "\n  d(0) <= " + num(d0.hi));
      if (truth.min_excess >= -k.tol - k.slack) return ok;  // proven: never within the target
      if (truth.known && truth.min_excess < -k.tol - k.slack) {
        fail("miss, but the exact oracle finds contact deeper than the tolerance");
        return ok;
      }
      if (!heavy && !oracle::distance(c.body_a(0), c.body_b(0))) return ok;
      // The least distance over the motion (convex in t): golden-section search on the oracle.
      auto f = [&](double t) { return distance_bounds(c.body_a(t), c.body_b(t), V::Zero(), 100).hi; };
      double lo = 0, hi = 1;
      const double g = 0.5 * (std::sqrt(5.0) - 1);
      double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(x1), f2 = f(x2);
      for (int i = 0; i < 40; ++i) {
        if (f1 <= f2) hi = x2, x2 = x1, f2 = f1, x1 = hi - g * (hi - lo), f1 = f(x1);
        else lo = x1, x1 = x2, f1 = f2, x2 = lo + g * (hi - lo), f2 = f(x2);
      }
      const double m = std::min({f1, f2, f(1)});
      if (m < target - k.tol - k.slack)
        fail("miss, but the oracle finds contact", "\n  distance <= " + num(m) + " at t = " + num(x1));
      return ok;
    }
    case Status::hit: break;
    default: fail("status " + std::string(to_string(h.status))); return false;
  }
  ++tally.hits;
  const double toi = h.toi;
  if (!(toi > 0 && toi <= 1)) {
    fail("hit with toi outside (0, 1]");
    return false;
  }
  const V n = vd(h.normal), pa = vd(h.point_a), pb = vd(h.point_b);
  const Body a = c.body_a(toi), b = c.body_b(toi);
  if (std::abs(n.norm() - 1) > 1e-5) {
    fail("normal not unit");
    return false;
  }
  if (part == Part::witnesses) {
    // Witness points on the shapes, |pB − pA| the target, the normal along pB − pA.
    const double sda = oracle::signed_distance(a, pa), sdb = oracle::signed_distance(b, pb);
    if (std::abs(sda) > k.pt || std::abs(sdb) > k.pt)
      fail("witness points off the shapes", "\n  signed distances " + num(sda) + ", " + num(sdb));
    if (std::abs((pb - pa).norm() - target) > 2 * k.pt)
      fail("|point_b - point_a| is not the target distance", "\n  |pb - pa| = " + num((pb - pa).norm()));
    if (target > 100 * k.pt) {
      const double angle = std::acos(std::clamp(n.dot((pb - pa).normalized()), -1.0, 1.0));
      if (angle > 4 * k.pt / target + 1e-6) fail("normal not along point_b - point_a", "\n  angle " + num(angle));
    }
    return ok;
  }
  {
    if (d0.hi < target - k.slack) fail("hit at toi > 0, but within the target at t = 0", "\n  d(0) <= " + num(d0.hi));
  }
  // The distance at toi is the target within the tolerance.
  const Bounds d = distance_bounds(a, b, n, pa, pb);
  if (d.lo > target + k.tol + k.slack) fail("distance at toi above target + tolerance", "\n  d(toi) >= " + num(d.lo));
  else if (d.hi < target - k.slack) fail("distance at toi below the target (late)", "\n  d(toi) <= " + num(d.hi));
  else if (d.hi > target + k.tol + k.slack) ++tally.inconclusive;
  else ++tally.certified_hits;
  // The exact first contact.
  if (truth.known) {
    if (truth.initially || truth.toi > 1) {
      if (truth.min_excess < -k.tol - k.slack) fail("hit, but the exact oracle says " + std::string(truth.initially ? "initially in contact" : "no contact"));
    } else {
      if ((toi - truth.toi) * truth.rate > k.slack) fail("toi later than the exact first contact");
      if ((truth.toi - toi) * truth.rate > k.tol + k.slack) fail("toi earlier than the exact first contact by more than the tolerance");
    }
  }
  // The normal proves the distance: it is a valid contact normal.
  const double sep = oracle::separation_along(a, b, n);
  if (sep < target - k.ntol) fail("the normal does not separate the shapes by the target", "\n  separation along n " + num(sep));
  if (!heavy) return ok;
  // No contact at earlier times (two polytopes at target 0: the exact moving-SAT overlap test).
  for (int j = 0; j < 16; ++j) {
    const double t = toi * j / 16;
    const double e = truth.sat && target == 0 ? truth.sat->sep(t) : distance_bounds(c.body_a(t), c.body_b(t), n, 100).hi;
    if (e < target - k.slack) {
      fail("contact before toi", "\n  distance (or SAT separation) at " + num(t) + " <= " + num(e));
      break;
    }
  }
  // Re-cast from the hit with B nudged back along the normal: a miss, or a time no earlier than
  // the separation along n allows (it shrinks at exactly −n·v per unit time).
  if (toi < 1) {
    CastCase<S> r = c;
    const double delta = 0.05 * c.size();
    r.pose_a.position = scenes::to_s<S>(vd(c.pose_a.position) + toi * vd(c.vel_a));
    r.pose_b.position = scenes::to_s<S>(vd(c.pose_b.position) + toi * vd(c.vel_b) + delta * n);
    r.vel_a = scenes::to_s<S>((1 - toi) * vd(c.vel_a));
    r.vel_b = scenes::to_s<S>((1 - toi) * vd(c.vel_b));
    const CastHit<S> h2 = r.run(method, S(cast_tolerance));
    const double sep0 = oracle::separation_along(r.body_a(0), r.body_b(0), n);
    const double rate = -n.dot(r.relative_velocity());
    const double earliest = rate > 0 ? (sep0 - target - k.tol - k.slack) / rate : kInf;
    if (h2.status == Status::initially_overlapping && sep0 > target + k.tol + k.slack)
      fail("re-cast nudged back along the normal is initially_overlapping", "\n  re-cast " + cast_hit_text(h2));
    else if (h2.status == Status::hit && double(h2.toi) < earliest - 1e-9)
      fail("re-cast nudged back along the normal hits too early",
           "\n  re-cast " + cast_hit_text(h2) + ", earliest possible " + num(earliest));
    else if (h2.status != Status::hit && h2.status != Status::miss && h2.status != Status::initially_overlapping)
      fail("re-cast status " + std::string(to_string(h2.status)));
  }
  return ok;
}

/// The three methods agree: same status unless both answers are certified (a graze within the
/// tolerance band), and hit times within what their normals allow. If toi_j < toi_i, the
/// separation along n_i at toi_j is at least target − ntol + (toi_i − toi_j)·rate_i (it changes
/// at exactly rate_i = −n_i·v), and the distance there is at most target + tol, so
/// (toi_i − toi_j)·rate_i ≤ tol + ntol.
template <class S>
void check_agreement(const CastCase<S>& c, const CastHit<S>* hits, const bool* certified, int n, double cast_tolerance,
                     FailureLog& log, const std::string& label = "") {
  const CastTolerances<S> k(c, cast_tolerance);
  const V v = c.relative_velocity();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const CastHit<S>& x = hits[i];
      const CastHit<S>& y = hits[j];
      auto text = [&] {
        return c.describe() + "\n  " + method_name(kMethods[i]) + " " + cast_hit_text(x) + "\n  " +
               method_name(kMethods[j]) + " " + cast_hit_text(y);
      };
      if (i < j && x.status != y.status && !(certified[i] && certified[j]))
        log.fail(label + "methods disagree on the status", text());
      if (x.status == Status::hit && y.status == Status::hit && double(y.toi) < double(x.toi)) {
        const double rate = -vd(x.normal).dot(v);
        if ((double(x.toi) - double(y.toi)) * rate > k.tol + k.ntol + k.slack)
          log.fail(label + "methods disagree on toi beyond what the normals allow", text());
      }
    }
}

// =============================================================================================
// Random batteries
// =============================================================================================

/// A random case: A near the origin, B 1.5 to 4 reaches away moving toward a point near A
/// (`spread` sets how near, tuned so that 30% to 70% of the cases hit), A drifting slowly;
/// a quarter of the cases ask for a target distance of up to 0.2.
template <class S>
CastCase<S> random_cast(Kind ka, Kind kb, Rng& rng, int index, double spread, double target_share = 0.25) {
  CastCase<S> c;
  c.index = index;
  c.a = cast_shape<S>(ka, rng);
  c.b = cast_shape<S>(kb, rng);
  const double ra = double(bounding_radius(c.a.shape)), rb = double(bounding_radius(c.b.shape));
  const V pa = rng.in_cube(0.5);
  const V start = pa + rng.unit() * (ra + rb) * rng.uniform(1.1, 3.0);
  const V aim = pa + rng.in_cube(spread * (ra + rb));
  c.pose_a = scenes::make_pose<S>(pa, rng.rotation());
  c.pose_b = scenes::make_pose<S>(start, rng.rotation());
  c.vel_a = scenes::to_s<S>(rng.in_cube(0.3));
  c.vel_b = scenes::to_s<S>((aim - start) * rng.uniform(0.8, 2.0));
  if (rng.uniform() < target_share) c.target = S(rng.uniform(0.0, 0.2));
  return c;
}

struct CastPair {
  Kind a, b;
  double spread;
};

template <class S>
void cast_battery(const CastPair& p, int cases, Part part = Part::times) {
  const std::string name = std::string("shape_cast ") + oracle::kind_name(p.a) + "-" + oracle::kind_name(p.b) + " " +
                           scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  FailureLog log;
  Tally tally[3];
  int truth_known = 0;
  const double tol = Tolerances<S>::cast_tolerance;
  for (int i = 0; i < cases; ++i) {
    const CastCase<S> c = random_cast<S>(p.a, p.b, rng, i, p.spread);
    const Truth truth = truth_of(c);
    truth_known += truth.known;
    CastHit<S> hits[3];
    bool certified[3];
    for (int m = 0; m < 3; ++m) {
      hits[m] = c.run(kMethods[m], S(tol));
      certified[m] = certify_cast(c, hits[m], kMethods[m], tol, truth, i % 4 == 0, log, tally[m], "", part);
    }
    if (part == Part::times) check_agreement(c, hits, certified, 3, tol, log);
  }
  if (part == Part::witnesses) return;
  for (int m = 0; m < 3; ++m) {
    const Tally& t = tally[m];
    std::printf("%s %s: %d cases, %d hits (%d certified, %d inconclusive), %d misses, %d initially_overlapping; exact oracle on %d\n",
                name.c_str(), method_name(kMethods[m]), t.cases, t.hits, t.certified_hits, t.inconclusive, t.misses,
                t.initially, truth_known);
    EXPECT_GE(t.hits, cases * 3 / 10) << name << " " << method_name(kMethods[m]) << ": too few hits";
    EXPECT_LE(t.hits, cases * 7 / 10) << name << " " << method_name(kMethods[m]) << ": too many hits";
    // Where the oracle only bounds the distance, the bounds must settle almost every hit.
    EXPECT_LE(t.inconclusive, t.hits / 100) << name << " " << method_name(kMethods[m]);
  }
}

constexpr int kCastCases = scenes::battery(10000);

TEST(ShapeCast, SphereSphereClosedFormDouble) { cast_battery<double>({Kind::sphere, Kind::sphere, 2.0}, kCastCases); }
TEST(ShapeCast, SphereSphereClosedFormFloat) { cast_battery<float>({Kind::sphere, Kind::sphere, 2.0}, kCastCases); }
/// The same battery with ShapeCastOptions::closed_form off: the GJK ray cast on ball pairs.
template <class S>
void gjk_cast_battery(const CastPair& p, int cases) {
  ClosedFormOff off;
  cast_battery<S>(p, cases);
}

TEST(ShapeCast, SphereSphereGjkRayCastDouble) { gjk_cast_battery<double>({Kind::sphere, Kind::sphere, 2.0}, kCastCases); }
TEST(ShapeCast, SphereSphereGjkRayCastFloat) { gjk_cast_battery<float>({Kind::sphere, Kind::sphere, 2.0}, kCastCases); }
TEST(ShapeCast, SphereBoxGjkRayCastDouble) { gjk_cast_battery<double>({Kind::sphere, Kind::box, 1.0}, kCastCases); }
TEST(ShapeCast, SphereBoxGjkRayCastFloat) { gjk_cast_battery<float>({Kind::sphere, Kind::box, 1.0}, kCastCases); }
TEST(ShapeCast, BoxBoxMovingSatDouble) { cast_battery<double>({Kind::box, Kind::box, 1.0}, kCastCases); }
TEST(ShapeCast, BoxBoxMovingSatFloat) { cast_battery<float>({Kind::box, Kind::box, 1.0}, kCastCases); }
TEST(ShapeCast, HullHullMovingSatDouble) { cast_battery<double>({Kind::hull, Kind::hull, 1.0}, kCastCases); }
TEST(ShapeCast, HullHullMovingSatFloat) { cast_battery<float>({Kind::hull, Kind::hull, 1.0}, kCastCases); }
TEST(ShapeCast, SphereBoxCertifiedDouble) { cast_battery<double>({Kind::sphere, Kind::box, 1.0}, kCastCases); }
TEST(ShapeCast, SphereBoxCertifiedFloat) { cast_battery<float>({Kind::sphere, Kind::box, 1.0}, kCastCases); }
TEST(ShapeCast, CapsuleBoxCertifiedDouble) { cast_battery<double>({Kind::capsule, Kind::box, 1.0}, kCastCases); }
TEST(ShapeCast, CapsuleBoxCertifiedFloat) { cast_battery<float>({Kind::capsule, Kind::box, 1.0}, kCastCases); }
TEST(ShapeCast, CylinderCylinderCertifiedDouble) { cast_battery<double>({Kind::cylinder, Kind::cylinder, 1.0}, kCastCases); }
TEST(ShapeCast, CylinderCylinderCertifiedFloat) { cast_battery<float>({Kind::cylinder, Kind::cylinder, 1.0}, kCastCases); }
TEST(ShapeCast, ConeHullCertifiedDouble) { cast_battery<double>({Kind::cone, Kind::hull, 1.0}, kCastCases); }
TEST(ShapeCast, ConeHullCertifiedFloat) { cast_battery<float>({Kind::cone, Kind::hull, 1.0}, kCastCases); }

constexpr int kWitnessCases = scenes::battery(3000);

// The witness points and the normal's agreement with them, on the same cases (fewer of them).
TEST(ShapeCastWitness, SphereSphereDouble) { cast_battery<double>({Kind::sphere, Kind::sphere, 2.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, SphereSphereFloat) { cast_battery<float>({Kind::sphere, Kind::sphere, 2.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, BoxBoxDouble) { cast_battery<double>({Kind::box, Kind::box, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, BoxBoxFloat) { cast_battery<float>({Kind::box, Kind::box, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, HullHullDouble) { cast_battery<double>({Kind::hull, Kind::hull, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, HullHullFloat) { cast_battery<float>({Kind::hull, Kind::hull, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, SphereBoxDouble) { cast_battery<double>({Kind::sphere, Kind::box, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, SphereBoxFloat) { cast_battery<float>({Kind::sphere, Kind::box, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, CapsuleBoxDouble) { cast_battery<double>({Kind::capsule, Kind::box, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, CapsuleBoxFloat) { cast_battery<float>({Kind::capsule, Kind::box, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, CylinderCylinderDouble) { cast_battery<double>({Kind::cylinder, Kind::cylinder, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, CylinderCylinderFloat) { cast_battery<float>({Kind::cylinder, Kind::cylinder, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, ConeHullDouble) { cast_battery<double>({Kind::cone, Kind::hull, 1.0}, kWitnessCases, Part::witnesses); }
TEST(ShapeCastWitness, ConeHullFloat) { cast_battery<float>({Kind::cone, Kind::hull, 1.0}, kWitnessCases, Part::witnesses); }

// =============================================================================================
// Adversarial batteries
// =============================================================================================

enum class Scenario { touching, sliding_on_contact, sliding_above, sliding_then_landing, moving_apart,
                      moving_apart_overlapping, still_apart, still_overlapping, flat_boxes, needles };

constexpr Kind kSolidKinds[] = {Kind::sphere, Kind::box, Kind::hull, Kind::capsule, Kind::cylinder, Kind::cone};

/// B placed so that its support point along −u sits at A's support point along u plus
/// (target + gap)·u: u is then a common normal, and the distance is exactly target + gap
/// (before rounding the inputs to S) when gap ≥ −target.
template <class S>
void place_along(CastCase<S>& c, const V& pa, const Eigen::Quaterniond& qa, const Eigen::Quaterniond& qb, const V& u,
                 double gap) {
  c.pose_a = scenes::make_pose<S>(pa, qa);
  c.pose_b = scenes::make_pose<S>(V::Zero(), qb);
  const Body a0 = oracle::make_body(c.a.shape, scenes::make_pose<S>(V::Zero(), qa), c.a.hull_local);
  const Body b0 = oracle::make_body(c.b.shape, c.pose_b, c.b.hull_local);
  c.pose_b.position = scenes::to_s<S>(pa + oracle::support_point(a0, u) - oracle::support_point(b0, -u) +
                                      (double(c.target) + gap) * u);
}

template <class S>
CastCase<S> adversarial_case(Scenario sc, Rng& rng, int index, Status& expected) {
  CastCase<S> c;
  c.index = index;
  expected = Status::invalid_input;  // no strict expectation
  const double tol = Tolerances<S>::cast_tolerance;
  c.target = rng.uniform() < 0.3 ? S(rng.uniform(0.0, 0.2)) : S(0);
  const V pa = rng.in_cube(0.5);
  const Eigen::Quaterniond qa = rng.rotation(), qb = rng.rotation();
  auto pick = [&] { return kSolidKinds[rng.index(static_cast<int>(std::size(kSolidKinds)))]; };
  switch (sc) {
    case Scenario::touching:
    case Scenario::moving_apart:
    case Scenario::moving_apart_overlapping:
    case Scenario::still_apart:
    case Scenario::still_overlapping: {
      c.a = cast_shape<S>(pick(), rng);
      c.b = cast_shape<S>(pick(), rng);
      const V u = rng.unit();
      double gap = 0;
      if (sc == Scenario::moving_apart || sc == Scenario::still_apart) gap = rng.uniform(0.01, 0.5);
      if (sc == Scenario::moving_apart_overlapping || sc == Scenario::still_overlapping)
        gap = -double(c.target) - rng.uniform(0.01, 0.1);
      place_along(c, pa, qa, qb, u, gap);
      V w = rng.in_cube(3.0);
      if (sc == Scenario::moving_apart || sc == Scenario::moving_apart_overlapping)
        w = w - w.dot(u) * u + rng.uniform(0.1, 3.0) * u;  // separation along u grows
      if (sc == Scenario::still_apart || sc == Scenario::still_overlapping) w.setZero();
      c.vel_a = scenes::to_s<S>(rng.in_cube(1.0) * (w.isZero() ? 0.0 : 1.0));
      c.vel_b = scenes::to_s<S>(vd(c.vel_a) + w);
      expected = (sc == Scenario::moving_apart || sc == Scenario::still_apart) ? Status::miss
                                                                               : Status::initially_overlapping;
      // Pushing B's support point into A along −u need not put it inside A (at a sharp vertex
      // −u may leave A): expect an overlap only where the oracle proves one.
      if (gap < 0 && !(truth_of(c).d0.hi < double(c.target))) expected = Status::invalid_input;
      break;
    }
    case Scenario::sliding_on_contact:
    case Scenario::sliding_above:
    case Scenario::sliding_then_landing: {
      // Two boxes with the same rotation, B resting over A's +z face (overlapping in x and y),
      // sliding along it.
      const V ha(rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0), rng.uniform(0.1, 1.0));
      const V hb(rng.uniform(0.1, 0.5), rng.uniform(0.1, 0.5), rng.uniform(0.1, 1.0));
      c.a.shape = Box<S>{scenes::to_s<S>(ha)};
      c.b.shape = Box<S>{scenes::to_s<S>(hb)};
      const M r = qa.toRotationMatrix();
      double gap = 0;
      if (sc == Scenario::sliding_above) gap = 10 * tol;
      if (sc == Scenario::sliding_then_landing) gap = rng.uniform(0.05, 0.5);
      const V local(rng.uniform(-ha.x(), ha.x()) * 0.5, rng.uniform(-ha.y(), ha.y()) * 0.5,
                    ha.z() + hb.z() + double(c.target) + gap);
      c.pose_a = scenes::make_pose<S>(pa, qa);
      c.pose_b = scenes::make_pose<S>(pa + r * local, qa);
      V w = r * V(rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), 0);  // stays over the face
      if (sc == Scenario::sliding_then_landing) w += r * V(0, 0, -gap / rng.uniform(0.2, 0.9));
      c.vel_b = scenes::to_s<S>(w);
      // Landing: B may slide off A's face first; the exact oracles judge those (no expectation).
      expected = sc == Scenario::sliding_on_contact ? Status::initially_overlapping
                 : sc == Scenario::sliding_above    ? Status::miss
                                                    : Status::invalid_input;
      break;
    }
    case Scenario::flat_boxes:
    case Scenario::needles: {
      if (sc == Scenario::flat_boxes) {
        c = random_cast<S>(Kind::box, Kind::box, rng, index, 1.0, 0.3);
        for (auto* sh : {&c.a.shape, &c.b.shape})
          if (rng.uniform() < 0.7) {
            Box<S> box = std::get<Box<S>>(sh->variant());
            box.half_extents[rng.index(3)] = S(0);
            *sh = box;
          }
      } else {
        auto needle = [&](scenes::RandomShape<S>& x) {
          const double len = rng.uniform(1.0, 3.0), w = rng.uniform(1e-3, 1e-2);
          if (rng.uniform() < 0.5) x.shape = Box<S>{Vec3<S>(S(w), S(w * rng.uniform(0.5, 1.0)), S(len))};
          else x.shape = Capsule<S>{S(w), S(len)};
        };
        c = random_cast<S>(Kind::box, Kind::box, rng, index, 1.0, 0.3);
        needle(c.a);
        if (rng.uniform() < 0.5) needle(c.b);
        // Aim B's centre at A's axis so that thin A is hit often.
        const V pa2 = vd(c.pose_a.position), pb2 = vd(c.pose_b.position);
        const V axis = oracle::rotation_of(c.pose_a).col(2);
        const V aim = pa2 + axis * rng.uniform(-1.0, 1.0) + rng.in_cube(0.05);
        c.vel_b = scenes::to_s<S>(vd(c.vel_a) + (aim - pb2) * rng.uniform(1.0, 2.0));
      }
      break;
    }
  }
  return c;
}

const char* scenario_name(Scenario s) {
  switch (s) {
    case Scenario::touching: return "touching at t = 0";
    case Scenario::sliding_on_contact: return "sliding on contact";
    case Scenario::sliding_above: return "sliding just above contact";
    case Scenario::sliding_then_landing: return "sliding then landing";
    case Scenario::moving_apart: return "moving apart";
    case Scenario::moving_apart_overlapping: return "moving apart from overlap";
    case Scenario::still_apart: return "zero velocity apart";
    case Scenario::still_overlapping: return "zero velocity overlapping";
    case Scenario::flat_boxes: return "flat boxes";
    case Scenario::needles: return "needles";
  }
  return "?";
}

template <class S>
void adversarial_battery(Scenario sc, int cases) {
  const std::string name = std::string("shape_cast adversarial ") + scenario_name(sc) + " " + scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  FailureLog log;
  Tally tally[3];
  const double tol = Tolerances<S>::cast_tolerance;
  for (int i = 0; i < cases; ++i) {
    Status expected;
    const CastCase<S> c = adversarial_case<S>(sc, rng, i, expected);
    const Truth truth = truth_of(c);
    CastHit<S> hits[3];
    bool certified[3];
    for (int m = 0; m < 3; ++m) {
      hits[m] = c.run(kMethods[m], S(tol));
      certified[m] = certify_cast(c, hits[m], kMethods[m], tol, truth, true, log, tally[m]);
      if (expected != Status::invalid_input && hits[m].status != expected)
        log.fail(std::string(method_name(kMethods[m])) + ": expected " + std::string(to_string(expected)),
                 c.describe() + "\n" + cast_hit_text(hits[m]));
    }
    check_agreement(c, hits, certified, 3, tol, log);
  }
  std::printf("%s: %d cases, gjk_raycast %d hits, %d misses, %d initially_overlapping\n", name.c_str(), cases,
              tally[0].hits, tally[0].misses, tally[0].initially);
}

constexpr int kAdversarialCases = 300;

#define ADVERSARIAL_TEST(Name, scenario)                                                            \
  TEST(ShapeCastAdversarial, Name##Double) { adversarial_battery<double>(scenario, kAdversarialCases); } \
  TEST(ShapeCastAdversarial, Name##Float) { adversarial_battery<float>(scenario, kAdversarialCases); } \
  TEST(ShapeCastAdversarial, Name##GjkRayCastDouble) {                                               \
    ClosedFormOff off;                                                                              \
    adversarial_battery<double>(scenario, kAdversarialCases);                                      \
  }                                                                                                 \
  TEST(ShapeCastAdversarial, Name##GjkRayCastFloat) {                                                \
    ClosedFormOff off;                                                                              \
    adversarial_battery<float>(scenario, kAdversarialCases);                                       \
  }

ADVERSARIAL_TEST(TouchingAtStart, Scenario::touching)
ADVERSARIAL_TEST(SlidingOnContact, Scenario::sliding_on_contact)
ADVERSARIAL_TEST(SlidingJustAboveContact, Scenario::sliding_above)
ADVERSARIAL_TEST(SlidingThenLanding, Scenario::sliding_then_landing)
ADVERSARIAL_TEST(MovingApart, Scenario::moving_apart)
ADVERSARIAL_TEST(MovingApartFromOverlap, Scenario::moving_apart_overlapping)
ADVERSARIAL_TEST(ZeroVelocityApart, Scenario::still_apart)
ADVERSARIAL_TEST(ZeroVelocityOverlapping, Scenario::still_overlapping)
ADVERSARIAL_TEST(FlatBoxes, Scenario::flat_boxes)
ADVERSARIAL_TEST(Needles, Scenario::needles)

// =============================================================================================
// Symmetry and translation invariance
// =============================================================================================

constexpr CastPair kMixedPairs[] = {{Kind::sphere, Kind::sphere, 2.0}, {Kind::box, Kind::box, 1.0},
                                    {Kind::hull, Kind::hull, 1.0},     {Kind::capsule, Kind::box, 1.0},
                                    {Kind::sphere, Kind::box, 1.0},    {Kind::cylinder, Kind::cylinder, 1.0},
                                    {Kind::cone, Kind::hull, 1.0}};

/// A and B swapped (shapes, poses, velocities): the same time, the points swapped, the normal
/// negated.
template <class S>
void symmetry_battery(int cases) {
  const std::string name = std::string("shape_cast symmetry ") + scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  FailureLog log;
  Tally tally;
  const double tol = Tolerances<S>::cast_tolerance;
  for (int i = 0; i < cases; ++i) {
    const CastPair& p = kMixedPairs[i % std::size(kMixedPairs)];
    const CastCase<S> c = random_cast<S>(p.a, p.b, rng, i, p.spread);
    const CastCase<S> sw = c.swapped();
    const Truth truth = truth_of(c), truth_sw = truth_of(sw);
    const CastTolerances<S> k(c, tol);
    for (CastMethod m : kMethods) {
      const CastHit<S> h = c.run(m, S(tol)), hs = sw.run(m, S(tol));
      bool ok[2] = {certify_cast(c, h, m, tol, truth, false, log, tally),
                    certify_cast(sw, hs, m, tol, truth_sw, false, log, tally, "swapped ")};
      // Compare in the original frame: the swapped answer with its points exchanged and its
      // normal negated.
      CastHit<S> back = hs;
      std::swap(back.point_a, back.point_b);
      back.normal = -hs.normal;
      const CastHit<S> both[2] = {h, back};
      check_agreement(c, both, ok, 2, tol, log, std::string(method_name(m)) + " vs swapped: ");
      // Points and normals are unique only where the contact is (two balls); elsewhere both
      // answers are certified above.
      if (h.status == Status::hit && hs.status == Status::hit && p.a == Kind::sphere && p.b == Kind::sphere) {
        const std::string text = c.describe() + "\n  " + method_name(m) + " " + cast_hit_text(h) + "\n  swapped " + cast_hit_text(hs);
        if ((vd(back.point_a) - vd(h.point_a)).norm() > 4 * k.pt || (vd(back.point_b) - vd(h.point_b)).norm() > 4 * k.pt)
          log.fail(std::string(method_name(m)) + ": swapped points differ", text);
        if ((vd(back.normal) - vd(h.normal)).norm() > (sizeof(S) == 4 ? 1e-3 : 1e-6))
          log.fail(std::string(method_name(m)) + ": swapped normal is not the negated normal", text);
      }
    }
  }
}

TEST(ShapeCastSymmetry, SwappingAAndBDouble) { symmetry_battery<double>(1400); }
TEST(ShapeCastSymmetry, SwappingAAndBFloat) { symmetry_battery<float>(1400); }

/// The whole scene (poses) moved far from the origin: the same answer, within the tolerance
/// widened by the rounding of the inputs there (scenes::magnitude_tolerance).
template <class S>
void far_battery(int cases) {
  const std::string name = std::string("shape_cast far ") + scenes::scalar_name<S>();
  Rng rng(scenes::seed_of(name));
  FailureLog log;
  Tally tally;
  const double tol = Tolerances<S>::cast_tolerance;
  for (int i = 0; i < cases; ++i) {
    const CastPair& p = kMixedPairs[i % std::size(kMixedPairs)];
    const CastCase<S> c = random_cast<S>(p.a, p.b, rng, i, p.spread);
    const double far = (sizeof(S) == 4 ? 1e2 : 1e3) * std::pow(100.0, rng.index(2));  // 1e3, 1e5 (float 1e2, 1e4)
    CastCase<S> moved = c;
    const V shift = rng.unit() * far;
    moved.pose_a.position = scenes::to_s<S>(vd(c.pose_a.position) + shift);
    moved.pose_b.position = scenes::to_s<S>(vd(c.pose_b.position) + shift);
    const double far_tol = tol + scenes::magnitude_tolerance<S>(far);
    const Truth truth = truth_of(c), truth_far = truth_of(moved);
    for (CastMethod m : kMethods) {
      const CastHit<S> h = c.run(m, S(tol)), hf = moved.run(m, S(far_tol));
      bool ok[2] = {certify_cast(c, h, m, tol, truth, false, log, tally),
                    certify_cast(moved, hf, m, far_tol, truth_far, false, log, tally, "far ")};
      CastHit<S> back = hf;  // compare in the near frame
      back.point_a -= scenes::to_s<S>(shift);
      back.point_b -= scenes::to_s<S>(shift);
      const CastHit<S> both[2] = {h, back};
      check_agreement(c, both, ok, 2, far_tol, log, std::string(method_name(m)) + " vs far: ");
    }
  }
}

TEST(ShapeCastFar, TranslatedSceneKeepsTheAnswerDouble) { far_battery<double>(1400); }
TEST(ShapeCastFar, TranslatedSceneKeepsTheAnswerFloat) { far_battery<float>(1400); }

/// The oracles on hand-made cases (a wrong oracle must not hide a wrong library).
TEST(ShapeCast, OraclesOnHandMadeCases) {
  CastCase<double> c;
  c.a.shape = Box<double>{Vec3<double>(1, 1, 1)};
  c.b.shape = Box<double>{Vec3<double>(0.5, 0.5, 0.5)};
  c.pose_b.position = Vec3<double>(4, 0.2, 0);
  c.vel_b = Vec3<double>(-5, 0, 0);  // gap 2.5, closing at 5: contact at t = 0.5
  Truth t = truth_of(c);
  EXPECT_TRUE(t.known);
  EXPECT_NEAR(t.toi, 0.5, 1e-15);
  EXPECT_NEAR(t.rate, 5, 1e-15);
  c.vel_b = Vec3<double>(-5, 2.0, 0);  // B's bottom face passes y = 1.7 + ... : misses A above
  c.pose_b.position = Vec3<double>(4, 1.6, 0);
  t = truth_of(c);
  EXPECT_GT(t.toi, 1);
  EXPECT_GT(t.min_excess, 0);
  CastCase<double> s;
  s.a.shape = Sphere<double>{1};
  s.b.shape = Sphere<double>{1};
  s.pose_b.position = Vec3<double>(5, 0, 0);
  s.vel_b = Vec3<double>(-6, 0, 0);
  s.target = 1;  // contact when the centres are 3 apart: t = 1/3
  t = truth_of(s);
  EXPECT_NEAR(t.toi, 1.0 / 3, 1e-15);
}

}  // namespace
