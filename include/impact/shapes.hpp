// impact — shapes.hpp: convex shapes given by their support mappings.
//
// Every shape is a plain struct in its own local frame (the frames of docs/conventions.md and of
// the query protocol) with a `support(d)`: a point of the shape farthest along direction d
// (d need not be unit; any d, including zero, gets a point of the shape). Queries take shapes
// either as these concrete types (templates, no dispatch at all) or as the `Shape` variant,
// which is visited once per query.
#pragma once

#include <impact/math.hpp>
#include <impact/status.hpp>
#include <impact/tolerances.hpp>

#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace impact {

namespace detail {
/// d itself, or d rescaled so its largest component is ±1 when its squared length would
/// underflow or overflow: support mappings that normalise stay right for any length of d.
template <class S>
[[nodiscard]] inline Vec3<S> tame(const Vec3<S>& d) {
  constexpr S lo = std::numeric_limits<S>::min() / std::numeric_limits<S>::epsilon();
  constexpr S hi = std::numeric_limits<S>::max() / S(8);
  const S n2 = d.squaredNorm();
  if (n2 >= lo && n2 <= hi) return d;  // the usual case: no rescaling
  const S m = d.cwiseAbs().maxCoeff();
  return m > S(0) && m <= std::numeric_limits<S>::max() ? Vec3<S>(d / m) : d;
}

/// d scaled to length r, or r along +z when d is zero (any direction is a valid answer then).
template <class S>
[[nodiscard]] inline Vec3<S> scaled_direction(const Vec3<S>& dir, S r) {
  const Vec3<S> d = tame(dir);
  const S n2 = d.squaredNorm();
  if (n2 > S(0)) return d * (r / std::sqrt(n2));
  return Vec3<S>(S(0), S(0), r);
}
/// +h for x ≥ 0, −h otherwise: the support choice for one box axis (ties go to +).
template <class S>
[[nodiscard]] constexpr S signed_extent(S x, S h) {
  return x >= S(0) ? h : -h;
}
}  // namespace detail

/// A single point at the local origin.
template <class S>
struct Point {
  [[nodiscard]] Vec3<S> support(const Vec3<S>&) const { return Vec3<S>::Zero(); }
};

/// A ball centred at the local origin.
template <class S>
struct Sphere {
  S radius = S(0);  ///< Radius (length, ≥ 0).
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const { return detail::scaled_direction(d, radius); }
};

/// An axis-aligned box centred at the local origin. A zero half extent makes a rectangle.
template <class S>
struct Box {
  Vec3<S> half_extents{S(0), S(0), S(0)};  ///< Half sizes along x, y, z (length, ≥ 0).
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const {
    return {detail::signed_extent(d.x(), half_extents.x()), detail::signed_extent(d.y(), half_extents.y()),
            detail::signed_extent(d.z(), half_extents.z())};
  }
};

/// The segment (0,0,−h)..(0,0,h) swept by a ball of radius r.
template <class S>
struct Capsule {
  S radius = S(0);       ///< Radius of the swept ball (length, ≥ 0).
  S half_height = S(0);  ///< Half length of the core segment along z (length, ≥ 0).
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const {
    Vec3<S> p = detail::scaled_direction(d, radius);
    p.z() += detail::signed_extent(d.z(), half_height);
    return p;
  }
};

/// A solid cylinder about z with caps at z = ±h.
template <class S>
struct Cylinder {
  S radius = S(0);       ///< Radius of the caps (length, ≥ 0).
  S half_height = S(0);  ///< Half height along z (length, ≥ 0).
  [[nodiscard]] Vec3<S> support(const Vec3<S>& dir) const {
    const Vec3<S> d = detail::tame(dir);
    const S s2 = d.x() * d.x() + d.y() * d.y();
    const S z = detail::signed_extent(d.z(), half_height);
    if (s2 > S(0)) {
      const S k = radius / std::sqrt(s2);
      return {d.x() * k, d.y() * k, z};
    }
    return {S(0), S(0), z};  // the whole cap supports d: its centre will do
  }
};

/// A solid cone about z: base disc of radius r at z = −h, apex at (0,0,h).
template <class S>
struct Cone {
  S radius = S(0);       ///< Base radius (length, ≥ 0).
  S half_height = S(0);  ///< Half height along z (length, ≥ 0).
  [[nodiscard]] Vec3<S> support(const Vec3<S>& dir) const {
    const Vec3<S> d = detail::tame(dir);
    const S s = std::sqrt(d.x() * d.x() + d.y() * d.y());
    // The farthest point is the apex or a point of the base rim: compare their dot products.
    const S apex = d.z() * half_height;
    const S rim = s * radius - d.z() * half_height;
    if (apex >= rim) return {S(0), S(0), half_height};
    if (s > S(0)) return {d.x() * radius / s, d.y() * radius / s, -half_height};
    return {S(0), S(0), -half_height};
  }
};

/// The segment from a to b.
template <class S>
struct Segment {
  Vec3<S> a{S(0), S(0), S(0)};  ///< First end point (local frame).
  Vec3<S> b{S(0), S(0), S(0)};  ///< Second end point (local frame).
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const { return d.dot(b) > d.dot(a) ? b : a; }
};

/// The solid triangle a, b, c.
template <class S>
struct Triangle {
  Vec3<S> a{S(0), S(0), S(0)};  ///< First corner (local frame).
  Vec3<S> b{S(0), S(0), S(0)};  ///< Second corner.
  Vec3<S> c{S(0), S(0), S(0)};  ///< Third corner.
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const {
    const S da = d.dot(a), db = d.dot(b), dc = d.dot(c);
    if (da >= db) return da >= dc ? a : c;
    return db >= dc ? b : c;
  }
};

/// A face plane of a hull: points x of the hull satisfy normal·x ≤ offset.
template <class S>
struct Plane {
  Vec3<S> normal{S(0), S(0), S(1)};  ///< Outward unit normal (local frame).
  S offset = S(0);                    ///< normal·x on the plane (length).
};

template <class S>
struct HullBuild;

/// The convex hull of a point cloud, built by qhull (see `Hull::build`). Holds the hull's
/// vertices, their adjacency (for hill-climbing support) and the face planes.
template <class S>
struct Hull {
  std::vector<Vec3<S>> vertices;     ///< Extreme points (local frame); at least one.
  std::vector<int> neighbor_offset;  ///< Neighbours of vertex i: neighbors[offset[i] .. offset[i+1]).
  std::vector<int> neighbors;        ///< Concatenated adjacency lists (hull edges).
  std::vector<Plane<S>> faces;       ///< Face planes; empty for a hull of dimension < 3.
  std::vector<int> seeds;            ///< Extreme vertices along 26 fixed directions: climb starts.
  int dimension = 0;                 ///< 0 point, 1 segment, 2 polygon, 3 polyhedron.
  Vec3<S> center{S(0), S(0), S(0)};  ///< Mean of the vertices: a point of the hull's relative interior.

  /// Hulls with at most this many vertices are scanned whole; larger ones hill-climb over the
  /// adjacency. Measured in bench/ on whole GJK queries (`gjk/hull_N/impact/scan|climb`): the
  /// scan wins by 30–80% up to 32 vertices and by 7–19% at 48, the two are level at 64, and the
  /// climb wins by 15–30% from 96 on.
  static constexpr std::size_t flat_scan_max = 48;

  /// Builds the hull of `points` (duplicates, interior, coplanar and collinear points allowed).
  /// Fails with `invalid_input` for an empty or non-finite cloud.
  [[nodiscard]] static HullBuild<S> build(std::span<const Vec3<S>> points);

  /// Support point (cold start).
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const {
    int hint = -1;
    return support(d, hint);
  }

  /// Support point, warm-started at vertex `hint` (−1: cold), which is updated to the vertex
  /// returned: a query that asks for nearby directions in turn walks only a few edges.
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d, int& hint) const {
    return vertices.size() <= flat_scan_max ? support_scan(d, hint) : support_climb(d, hint);
  }

  /// Support by scanning every vertex (ties: lowest index). Sets `hint` to the vertex.
  [[nodiscard]] Vec3<S> support_scan(const Vec3<S>& d, int& hint) const {
    const int n = static_cast<int>(vertices.size());
    int best = 0;
    S best_dot = d.dot(vertices[0]);
    for (int i = 1; i < n; ++i) {
      const S v = d.dot(vertices[i]);
      if (v > best_dot) {
        best_dot = v;
        best = i;
      }
    }
    hint = best;
    return vertices[best];
  }

  /// Support by steepest ascent over the hull's edge graph, from vertex `hint`, or, for a cold
  /// start (hint < 0), from the best seed vertex (extreme along 26 fixed directions, so a few
  /// edges from any answer). A linear function has no local maximum on a convex polytope's edge
  /// graph other than the global one, so this ends at a support vertex. Sets `hint` to it.
  [[nodiscard]] Vec3<S> support_climb(const Vec3<S>& d, int& hint) const {
    const int n = static_cast<int>(vertices.size());
    int cur = 0;
    S cur_dot;
    if (hint >= 0 && hint < n) {
      cur = hint;
      cur_dot = d.dot(vertices[cur]);
    } else {
      cur_dot = d.dot(vertices[0]);
      for (int k : seeds) {
        const S v = d.dot(vertices[k]);
        if (v > cur_dot) {
          cur_dot = v;
          cur = k;
        }
      }
    }
    for (;;) {
      int next = cur;
      S next_dot = cur_dot;
      for (int k = neighbor_offset[cur]; k < neighbor_offset[cur + 1]; ++k) {
        const int j = neighbors[k];
        const S v = d.dot(vertices[j]);
        if (v > next_dot) {
          next_dot = v;
          next = j;
        }
      }
      if (next == cur) break;
      cur = next;
      cur_dot = next_dot;
    }
    hint = cur;
    return vertices[cur];
  }
};

/// Result of `Hull::build`.
template <class S>
struct HullBuild {
  Status status = Status::invalid_input;  ///< `hit` on success, `invalid_input` otherwise.
  Hull<S> hull;                           ///< The hull; valid when status == hit.
  std::string error;                      ///< What is wrong with the input, when invalid.
  [[nodiscard]] bool ok() const { return status == Status::hit; }
};

/// The Minkowski sum a ⊕ b of two concrete shapes (template adapter, no dispatch).
template <class A, class B>
struct MinkowskiSum {
  A a;  ///< First summand.
  B b;  ///< Second summand.
  template <class V>
  [[nodiscard]] V support(const V& d) const {
    return a.support(d) + b.support(d);
  }
};

/// A concrete shape placed in a parent frame by a transform (template adapter, no dispatch).
template <class T, class S>
struct Transformed {
  T shape;               ///< The shape, in its own frame.
  Transform<S> frame;    ///< Its placement in the parent frame.
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const {
    return frame.apply(shape.support(frame.rotation.transpose() * d));
  }
};

template <class S>
struct Shape;


/// Minkowski sum of two variant shapes (the protocol's `minkowski`).
template <class S>
struct MinkowskiShape {
  std::shared_ptr<const Shape<S>> a;  ///< First summand; never null in a valid shape.
  std::shared_ptr<const Shape<S>> b;  ///< Second summand; never null in a valid shape.
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const;
};

/// A variant shape under a pose in its parent's frame.
template <class S>
struct TransformedShape {
  std::shared_ptr<const Shape<S>> shape;  ///< The shape, in its own frame; never null.
  Pose<S> pose;                           ///< Its placement in the parent frame.
  [[nodiscard]] Vec3<S> support(const Vec3<S>& d) const;
};

/// Any shape. Queries on `Shape` visit it once and then run templated code; only the parts of
/// `MinkowskiShape` and `TransformedShape` are dispatched again at each support call (a jump
/// table, no virtual call).
template <class S>
using ShapeVariant = std::variant<Point<S>, Sphere<S>, Box<S>, Capsule<S>, Cylinder<S>, Cone<S>, Segment<S>,
                                  Triangle<S>, Hull<S>, MinkowskiShape<S>, TransformedShape<S>>;

template <class S>
struct Shape : ShapeVariant<S> {
  using ShapeVariant<S>::ShapeVariant;
  using ShapeVariant<S>::operator=;
  /// The underlying std::variant (for std::visit).
  [[nodiscard]] const ShapeVariant<S>& variant() const { return *this; }
};

/// A point of a variant shape's relative interior (local frame).
template <class S>
[[nodiscard]] Vec3<S> interior_point(const Shape<S>& s);

/// Support point of a variant shape (one dispatch).
template <class S>
[[nodiscard]] inline Vec3<S> support(const Shape<S>& s, const Vec3<S>& d) {
  return std::visit([&](const auto& x) -> Vec3<S> { return x.support(d); }, s.variant());
}

template <class S>
Vec3<S> MinkowskiShape<S>::support(const Vec3<S>& d) const {
  return impact::support(*a, d) + impact::support(*b, d);
}

template <class S>
Vec3<S> TransformedShape<S>::support(const Vec3<S>& d) const {
  return pose.apply(impact::support(*shape, pose.rotation.conjugate() * d));
}

/// A point of a shape's relative interior (local frame): MPR's starting point. Every round shape
/// and box is centred at its origin; the cone's origin is inside it (its section at z = 0 has
/// half the base radius).
template <class S, class T>
[[nodiscard]] inline Vec3<S> interior_point(const T& shape) {
  if constexpr (std::is_same_v<T, Segment<S>>) return (shape.a + shape.b) / S(2);
  else if constexpr (std::is_same_v<T, Triangle<S>>) return (shape.a + shape.b + shape.c) / S(3);
  else if constexpr (std::is_same_v<T, Hull<S>>) return shape.center;
  else if constexpr (std::is_same_v<T, MinkowskiShape<S>>) return interior_point(*shape.a) + interior_point(*shape.b);
  else if constexpr (std::is_same_v<T, TransformedShape<S>>) return shape.pose.apply(interior_point(*shape.shape));
  else if constexpr (requires { shape.a.support(Vec3<S>()); shape.b.support(Vec3<S>()); })
    return interior_point<S>(shape.a) + interior_point<S>(shape.b);  // MinkowskiSum
  else if constexpr (requires { shape.frame; }) return shape.frame.apply(interior_point<S>(shape.shape));
  else return Vec3<S>::Zero();
}

/// Protocol name of a shape's type ("sphere", "hull", ...).
template <class S>
[[nodiscard]] const char* shape_name(const Shape<S>& s);

/// Checks sizes and points of a shape (finite, non-negative, within `Tolerances::max_magnitude`).
/// Returns an empty string when valid, else the offending field ("radius: negative").
template <class S>
[[nodiscard]] std::string validate(const Shape<S>& s);

/// Checks a pose: finite, within range, rotation of unit norm (±Tolerances::unit_quaternion).
/// Returns an empty string when valid, else the offending field ("rotation: norm 0.9 is not 1").
template <class S>
[[nodiscard]] std::string validate(const Pose<S>& p);

/// Largest distance from the local origin to a point of the shape (length): bounds how far a
/// point of the shape moves when the shape turns about its origin.
template <class S>
[[nodiscard]] S bounding_radius(const Shape<S>& s);

/// Converts a shape between float and double.
template <class T, class S>
[[nodiscard]] Shape<T> convert_shape(const Shape<S>& s);

}  // namespace impact
