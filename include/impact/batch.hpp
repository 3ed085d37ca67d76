// impact — batch.hpp: many queries of one kind in one call, split over threads.
//
// Every batch call answers N queries that share their shapes (or mesh, or level) and differ in
// their numbers: poses, motions, rays, sphere paths. Inputs are read from the caller's memory and
// outputs written to it, one array per field (Eigen maps: an N×3 array is row-major, as a
// C-contiguous numpy array of shape (N, 3)), with no copy and no allocation per query.
//
// - Query i's answer is, bit for bit, what the single-query call gives for row i (the batch calls
//   it), for any number of threads: each answer is written to its own row, and no query reads
//   another's.
// - A per-query input array has N rows, or 1 row that every query shares (a fixed pose, one
//   radius); a pose's or motion's array may also have 0 rows, meaning the default (the origin,
//   no rotation, no velocity). N is the largest row count of the inputs. Any other row count is
//   a call that cannot mean anything: the call returns a message naming the array and writes
//   nothing. Per-query problems (a non-finite number in row i) are
//   that query's status, `invalid_input`, as in the single call.
// - An output array with 0 rows is not wanted and not written; otherwise it has N rows.
// - Statuses are written as bytes: `static_cast<std::uint8_t>(Status)`.
// - Work is split with oneTBB over blocks of queries; `BatchOptions::threads` = 0 uses every core,
//   1 runs on the calling thread.
#pragma once

#include <impact/cast.hpp>
#include <impact/level.hpp>
#include <impact/math.hpp>
#include <impact/mesh.hpp>
#include <impact/query.hpp>
#include <impact/shapes.hpp>
#include <impact/toi.hpp>

#include <Eigen/Core>

#include <cstdint>
#include <span>
#include <string>

namespace impact {

/// N rows of K numbers in caller memory, row-major (numpy shape (N, K), C order).
template <class S, int K>
using Rows = Eigen::Map<const Eigen::Matrix<S, Eigen::Dynamic, K, Eigen::RowMajor>>;
/// The same, written by the call.
template <class S, int K>
using RowsOut = Eigen::Map<Eigen::Matrix<S, Eigen::Dynamic, K, Eigen::RowMajor>>;
/// N numbers in caller memory (numpy shape (N,)).
template <class S>
using Column = Eigen::Map<const Eigen::Matrix<S, Eigen::Dynamic, 1>>;
/// The same, written by the call.
template <class S>
using ColumnOut = Eigen::Map<Eigen::Matrix<S, Eigen::Dynamic, 1>>;

/// How a batch runs.
struct BatchOptions {
  /// Threads (oneTBB arena size): 0 = every core, 1 = the calling thread only.
  int threads = 0;
  /// Queries per task (a block is one task); answers do not depend on it. Mesh ray batches
  /// split in whole pieces of 1,024 rays (a camera's packets are drawn from one piece), so their
  /// tasks take max(1, grain / 1024) pieces.
  int grain = 64;
};

/// Poses of N queries (or 1 shared): positions (N, 3) and rotations (N, 4) as w, x, y, z.
template <class S>
struct PoseRows {
  Rows<S, 3> position{nullptr, 0, 3};
  Rows<S, 4> rotation{nullptr, 0, 4};
};

/// Motions of N queries (or 1 shared): the pose at t = 0, linear and angular velocity (world).
template <class S>
struct MotionRows {
  PoseRows<S> pose;
  Rows<S, 3> linear_velocity{nullptr, 0, 3};
  Rows<S, 3> angular_velocity{nullptr, 0, 3};
};

/// Outputs of `distance_batch` (each N rows, or 0: not wanted).
template <class S>
struct DistanceRows {
  std::span<std::uint8_t> status{};
  ColumnOut<S> distance{nullptr, 0};
  RowsOut<S, 3> point_a{nullptr, 0, 3};
  RowsOut<S, 3> point_b{nullptr, 0, 3};
  RowsOut<S, 3> normal{nullptr, 0, 3};
};

/// Outputs of `ray_cast_batch`.
template <class S>
struct RayRows {
  std::span<std::uint8_t> status{};
  ColumnOut<S> lambda{nullptr, 0};
  RowsOut<S, 3> point{nullptr, 0, 3};
  RowsOut<S, 3> normal{nullptr, 0, 3};
};

/// Outputs of `shape_cast_batch` and `time_of_impact_batch`.
template <class S>
struct CastRows {
  std::span<std::uint8_t> status{};
  ColumnOut<S> toi{nullptr, 0};
  RowsOut<S, 3> point_a{nullptr, 0, 3};
  RowsOut<S, 3> point_b{nullptr, 0, 3};
  RowsOut<S, 3> normal{nullptr, 0, 3};
};

/// Outputs of `mesh_ray_cast_batch` and `level_ray_cast_batch` (`room` for levels only).
template <class S>
struct MeshRayRows {
  std::span<std::uint8_t> status{};
  ColumnOut<S> lambda{nullptr, 0};
  RowsOut<S, 3> point{nullptr, 0, 3};
  RowsOut<S, 3> normal{nullptr, 0, 3};
  std::span<std::uint32_t> triangle{};
  std::span<std::uint32_t> room{};
};

/// Outputs of `mesh_sphere_cast_batch` and `level_sphere_cast_batch` (`room` for levels only).
template <class S>
struct MeshCastRows {
  std::span<std::uint8_t> status{};
  ColumnOut<S> toi{nullptr, 0};
  RowsOut<S, 3> point{nullptr, 0, 3};
  RowsOut<S, 3> normal{nullptr, 0, 3};
  std::span<std::uint32_t> triangle{};
  std::span<std::uint32_t> room{};
};

/// `distance(a, pose_a[i], b, pose_b[i])` for every i. Returns "" or what is wrong with the arrays.
template <class S>
[[nodiscard]] std::string distance_batch(const Shape<S>& a, const PoseRows<S>& pose_a, const Shape<S>& b,
                                         const PoseRows<S>& pose_b, const GjkOptions<S>& options, DistanceRows<S> out,
                                         const BatchOptions& batch = {});

/// `ray_cast(shape, pose, {origin[i], direction[i]})` for every i.
template <class S>
[[nodiscard]] std::string ray_cast_batch(const Shape<S>& shape, const Pose<S>& pose, Rows<S, 3> origin,
                                         Rows<S, 3> direction, const RayCastOptions<S>& options, RayRows<S> out,
                                         const BatchOptions& batch = {});

/// `shape_cast(a, pose_a[i], velocity_a[i], b, pose_b[i], velocity_b[i])` for every i.
template <class S>
[[nodiscard]] std::string shape_cast_batch(const Shape<S>& a, const PoseRows<S>& pose_a, Rows<S, 3> velocity_a,
                                           const Shape<S>& b, const PoseRows<S>& pose_b, Rows<S, 3> velocity_b,
                                           const ShapeCastOptions<S>& options, CastRows<S> out,
                                           const BatchOptions& batch = {});

/// `time_of_impact(a, motion_a[i], b, motion_b[i])` for every i.
template <class S>
[[nodiscard]] std::string time_of_impact_batch(const Shape<S>& a, const MotionRows<S>& motion_a, const Shape<S>& b,
                                               const MotionRows<S>& motion_b, const ToiOptions<S>& options,
                                               CastRows<S> out, const BatchOptions& batch = {});

/// `mesh_ray_cast(mesh, {origin[i], direction[i]})` for every i.
template <class S>
[[nodiscard]] std::string mesh_ray_cast_batch(const TriangleMesh<S>& mesh, Rows<S, 3> origin, Rows<S, 3> direction,
                                              const MeshRayOptions<S>& options, MeshRayRows<S> out,
                                              const BatchOptions& batch = {});

/// `mesh_sphere_cast(mesh, center[i], radius[i], path[i])` for every i (radius: N or 1 values).
template <class S>
[[nodiscard]] std::string mesh_sphere_cast_batch(const TriangleMesh<S>& mesh, Rows<S, 3> center, Column<S> radius,
                                                 Rows<S, 3> path, const MeshSphereOptions<S>& options,
                                                 MeshCastRows<S> out, const BatchOptions& batch = {});

/// `level_ray_cast(level, {origin[i], direction[i]})` for every i.
template <class S>
[[nodiscard]] std::string level_ray_cast_batch(const Level<S>& level, Rows<S, 3> origin, Rows<S, 3> direction,
                                               const MeshRayOptions<S>& options, MeshRayRows<S> out,
                                               const BatchOptions& batch = {});

/// `level_sphere_cast(level, center[i], radius[i], path[i])` for every i.
template <class S>
[[nodiscard]] std::string level_sphere_cast_batch(const Level<S>& level, Rows<S, 3> center, Column<S> radius,
                                                  Rows<S, 3> path, const MeshSphereOptions<S>& options,
                                                  MeshCastRows<S> out, const BatchOptions& batch = {});

}  // namespace impact
