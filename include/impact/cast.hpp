// impact — cast.hpp: ray casts against convex shapes and linear shape casts.
//
// `ray_cast` is van den Bergen's GJK ray cast (2004, Algorithm 3), with closed forms for the
// primitive shapes and polyhedral hulls (detail/ray_closed_form.hpp). `shape_cast` moves both
// shapes linearly over t ∈ [0, 1] (rotations fixed) and finds the first time their distance
// falls to `target_distance`, by one of three methods: the GJK ray cast on the configuration
// space obstacle (default), conservative advancement, or MPR on the swept CSO. Every answer is
// a lower bound of the true time (never late); running out of iterations says so.
#pragma once

#include <impact/query.hpp>
#include <impact/shapes.hpp>

#include <string>

namespace impact {

/// A ray origin + λ·direction, 0 ≤ λ ≤ max_lambda (world frame).
template <class S>
struct Ray {
  Vec3<S> origin{S(0), S(0), S(0)};     ///< Start point (world, length).
  Vec3<S> direction{S(1), S(0), S(0)};  ///< Direction; need not be unit; λ is in its units.
};

/// Options of `ray_cast`.
template <class S>
struct RayCastOptions {
  S max_lambda = S(1);  ///< Largest λ of interest; beyond it the ray misses (early out).
  /// Relative termination ε of van den Bergen's test ‖v‖² ≤ ε·max‖x − p‖² (dimensionless).
  S relative_tolerance = Tolerances<S>::ray_cast_relative;
  int max_iterations = Tolerances<S>::ray_cast_max_iterations;  ///< Iteration cap.
  /// Warm start: a separating axis from an earlier miss of a similar ray (world frame; zero for
  /// none). Updated with the new separating axis on a miss when given.
  Vec3<S>* separating_axis = nullptr;
  /// Closed forms for spheres, capsules, boxes, rounded boxes, cylinders, cones and polyhedral
  /// hulls up to detail::kHullClipMaxFaces faces (exact up to rounding, no iterations); false
  /// runs the GJK ray cast on every shape.
  bool closed_form = true;
};

/// Result of `ray_cast`.
template <class S>
struct RayHit {
  /// hit, miss, initially_overlapping (origin inside: λ = 0, no normal), max_iterations
  /// (λ a lower bound), invalid_input.
  Status status = Status::invalid_input;
  S lambda = S(0);                       ///< Hit parameter (hit, initially_overlapping).
  Vec3<S> point{S(0), S(0), S(0)};       ///< Hit point origin + λ·direction (world).
  Vec3<S> normal{S(0), S(0), S(0)};      ///< Outward unit surface normal at the hit (hit only).
  int iterations = 0;                    ///< GJK ray cast iterations (0 for a closed form).
  std::string error;                     ///< Offending field, for invalid_input.
};

/// Casts `ray` against `shape` at `pose`.
template <class S>
[[nodiscard]] RayHit<S> ray_cast(const Shape<S>& shape, const Pose<S>& pose, const Ray<S>& ray,
                                 const RayCastOptions<S>& options = {});

/// A shape at a pose, prepared for many rays (a renderer's items, a sensor's targets): the shape
/// and the pose are checked and the pose's matrices built once, so that `cast` pays only for the
/// ray. Each `cast(ray, options)` answers bit for bit as `ray_cast(shape, pose, ray, options)`.
/// The shape is not copied: it must outlive the target.
template <class S>
class RayTarget {
 public:
  RayTarget(const Shape<S>& shape, const Pose<S>& pose);
  /// Casts `ray` against the shape at its pose.
  [[nodiscard]] RayHit<S> cast(const Ray<S>& ray, const RayCastOptions<S>& options = {}) const;
  /// "" when the shape and the pose are valid; otherwise the field, as `ray_cast` names it, that
  /// every cast then reports with invalid_input.
  [[nodiscard]] const std::string& error() const { return error_; }

 private:
  const Shape<S>* shape_;
  Transform<S> frame_;  ///< Local to world.
  Mat3<S> to_local_;    ///< frame_.rotation transposed.
  std::string error_;
};

/// Linear cast methods.
enum class CastMethod {
  gjk_raycast,               ///< GJK ray cast on the CSO (van den Bergen 2004, Algorithm 3).
  conservative_advancement,  ///< Repeated GJK distance, advancing by a proven separation bound.
  mpr,                       ///< Minkowski portal refinement on the swept CSO (2010 note).
};

/// Options of `shape_cast`.
template <class S>
struct ShapeCastOptions {
  CastMethod method = CastMethod::gjk_raycast;  ///< Algorithm.
  S target_distance = S(0);  ///< Stop when the shapes are this far apart (length, ≥ 0).
  /// The distance at the reported time is within this of the target (length, > 0).
  S tolerance = Tolerances<S>::cast_tolerance;
  int max_iterations = Tolerances<S>::ray_cast_max_iterations;  ///< Iteration cap.
  /// With the default method: when one shape is a ball (a sphere, or a point), the cast is a ray
  /// from its centre against the other shape grown by the radii and the target, solved by
  /// `ray_cast`'s closed forms where the other shape has one (sphere, capsule, box, rounded box,
  /// and for a point also cylinder, cone and hull): exact time, normal and points, no
  /// iterations. Two boxes at target distance 0 are cast by the separating axis test under
  /// linear motion (cast/box_box_sat_cast.hpp): exact time, the entering axis as the normal, the
  /// touching features' points. False runs the GJK ray cast on every pair.
  bool closed_form = true;
};

/// Result of `shape_cast`.
template <class S>
struct CastHit {
  /// hit, miss, initially_overlapping (within target at t = 0: toi = 0), max_iterations (toi a
  /// lower bound), invalid_input.
  Status status = Status::invalid_input;
  S toi = S(0);                          ///< Time of impact in [0, 1] (hit, initially_overlapping).
  Vec3<S> point_a{S(0), S(0), S(0)};     ///< Contact point on A at toi (world; hit).
  Vec3<S> point_b{S(0), S(0), S(0)};     ///< Contact point on B at toi (world; hit).
  Vec3<S> normal{S(0), S(0), S(0)};      ///< Unit normal from A toward B at toi (hit).
  int iterations = 0;                    ///< Iterations of the method.
  std::string error;                     ///< Offending field, for invalid_input.
};

/// Casts A (at pose_a, moving by t·velocity_a) and B (at pose_b, moving by t·velocity_b) over
/// t ∈ [0, 1] and returns the first time their distance is options.target_distance.
template <class S>
[[nodiscard]] CastHit<S> shape_cast(const Shape<S>& a, const Pose<S>& pose_a, const Vec3<S>& velocity_a,
                                    const Shape<S>& b, const Pose<S>& pose_b, const Vec3<S>& velocity_b,
                                    const ShapeCastOptions<S>& options = {});

}  // namespace impact
