#pragma once
// impact — mesh/ray_many.hpp: many rays against one mesh in one call, the way in of the mesh ray
// batch (batch.cpp); defined in mesh_impl.hpp, for float and double.
#include <impact/batch.hpp>
#include <impact/mesh.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>

namespace impact::mesh_detail {

/// The most rays mesh_ray_cast_many orders into packets at once (packet_order.hpp): four rows of
/// a camera 2,048 pixels wide.
inline constexpr std::size_t kOrderAtOnce = 8192;

/// A batch's rays read where the caller keeps them: ray i is row i of `origin` and of
/// `direction`, N×3 row-major arrays (batch.hpp's Rows), a step of 0 for one row that every ray
/// shares. No copy into Ray<S>s: a camera's million rays were copied once more than they are read
/// (about 1 ns a ray of level_1m's camera, 2026-12-06).
template <class S>
struct RayRowsIn {
  const S* origin = nullptr;
  std::size_t origin_step = 3;  ///< 3, or 0: one origin for every ray
  const S* direction = nullptr;
  std::size_t direction_step = 3;  ///< 3, or 0: one direction for every ray
  std::size_t n = 0;

  [[nodiscard]] std::size_t size() const { return n; }
  [[nodiscard]] Vec3<S> origin_of(std::size_t i) const { return Eigen::Map<const Vec3<S>>(origin + i * origin_step); }
  [[nodiscard]] Vec3<S> direction_of(std::size_t i) const { return Eigen::Map<const Vec3<S>>(direction + i * direction_step); }
  [[nodiscard]] Ray<S> operator[](std::size_t i) const { return Ray<S>{origin_of(i), direction_of(i)}; }
  /// Rays first … first + count − 1.
  [[nodiscard]] RayRowsIn rows(std::size_t first, std::size_t count) const {
    return {origin + first * origin_step, origin_step, direction + first * direction_step, direction_step, count};
  }
  /// Whether every ray has the same origin, to the bit (not ==, which takes −0 for +0): each row
  /// the same bytes as the one before it.
  [[nodiscard]] bool one_origin() const {
    return origin_step == 0 || n < 2 || std::memcmp(origin + origin_step, origin, (n - 1) * origin_step * sizeof(S)) == 0;
  }
};

/// Where a camera's rows start, the rule of both row finders (camera_row_width below, and
/// order_camera_rows in packet_order.hpp): step i is d_i − d_{i−1}, the change from one ray's
/// direction to the next one's. Along a row the direction turns one way, so each step goes on
/// from the last (a positive dot product); the step to the next row's first ray goes back across
/// the row, against the steps on either side. So ray i starts a row where step i goes back against
/// step i − 1 and step i + 1 goes back against step i. This is the first half: whether step
/// (ax, ay, az) goes back against the step (bx, by, bz) before it.
template <class S>
[[gnu::always_inline]] inline bool step_goes_back(S ax, S ay, S az, S bx, S by, S bz) {
  return ax * bx + ay * by + az * bz < S(0);
}

/// The rows of a camera among `rays`, from its first few thousand: {W, b} when rows start
/// (step_goes_back) at b, b + W and b + 2W and nowhere between, 8 ≤ W ≤ max_width (row by row,
/// W rays a row, a row from b); {0, 0} when they do not within the first 3·max_width + 4 rays.
template <class S>
std::pair<std::size_t, std::size_t> camera_row_width(const RayRowsIn<S>& rays, std::size_t max_width) {
  const std::size_t n = std::min(rays.size(), 3 * max_width + 4);
  if (n < 4 || rays.direction_step == 0) return {0, 0};
  auto step = [&](std::size_t i) -> Vec3<S> { return rays.direction_of(i) - rays.direction_of(i - 1); };
  auto goes_back = [](const Vec3<S>& a, const Vec3<S>& b) { return step_goes_back(a.x(), a.y(), a.z(), b.x(), b.y(), b.z()); };
  Vec3<S> before = step(1), here = step(2);
  bool back_here = goes_back(here, before);
  std::size_t at[3], found = 0;
  for (std::size_t i = 2; i + 1 < n && found < 3; ++i) {
    const Vec3<S> next = step(i + 1);
    const bool back_next = goes_back(next, here);
    if (back_here && back_next) at[found++] = i;
    here = next;
    back_here = back_next;
  }
  if (found < 3 || at[1] - at[0] != at[2] - at[1] || at[1] - at[0] < 8 || at[1] - at[0] > max_width) return {0, 0};
  return {at[1] - at[0], at[0]};
}

/// Ray i's answer, mesh_ray_cast(mesh, rays[i], opt) bit for bit, written in place at row
/// first + i of `rows` (the columns asked for: a normal only when `rows.normal` has rows; no
/// message for invalid input, a batch has no column for it; room 0). No MeshRayHit per ray, no
/// allocation. Rays that all share one origin (a camera, a lidar) walk the tree as packets of
/// neighbouring directions (packet_walk.hpp); others have their walks interleaved on the calling
/// thread (interleaved_walk.hpp), so that the memory reads of one overlap the work of the others.
template <class S>
void mesh_ray_cast_many(const TriangleMesh<S>& mesh, const RayRowsIn<S>& rays, const MeshRayOptions<S>& opt,
                        MeshRayRows<S>& rows, Eigen::Index first);

}  // namespace impact::mesh_detail
