// impact — batch.cpp: the batch calls of include/impact/batch.hpp. Each checks the arrays' row
// counts once, then runs the single-query call for every row, split over a oneTBB arena, and
// writes each answer to its own row of the wanted outputs (mesh rays a block at a time through
// mesh_detail::mesh_ray_cast_many, which interleaves their walks). Nothing here computes geometry: a
// batch answer is the single answer, bit for bit, for any thread count.
#include <impact/batch.hpp>

#include "detail/batch_columns.hpp"
#include "mesh/ray_many.hpp"

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace impact {
namespace {

using Index = Eigen::Index;

/// An input's row count against the batch's N: n or 1 (shared), or 0 where a default exists.
std::string input_rows_error(std::string_view name, Index rows, Index n, bool optional) {
  if (rows == n || rows == 1 || (optional && rows == 0)) return {};
  return std::string(name) + ": " + std::to_string(rows) + " rows, expected " + std::to_string(n) + " (one per query) or 1" +
         (optional ? " (shared) or 0 (the default)" : " (shared)");
}

/// An output's row count: n, or 0 (not wanted).
std::string output_rows_error(std::string_view name, std::size_t rows, Index n) {
  if (rows == 0 || rows == static_cast<std::size_t>(n)) return {};
  return std::string(name) + ": " + std::to_string(rows) + " rows, expected " + std::to_string(n) + " or 0 (not wanted)";
}

/// The same for an output array (an Eigen map).
template <class Derived>
std::string output_rows_error(std::string_view name, const Eigen::EigenBase<Derived>& out, Index n) {
  return output_rows_error(name, static_cast<std::size_t>(out.rows()), n);
}

/// The first error of a list of checks ("" when all pass).
std::string first_error(std::initializer_list<std::string> errors) {
  for (const std::string& e : errors)
    if (!e.empty()) return e;
  return {};
}

/// Row i of an input with 1 (shared) or N rows.
template <class M>
Index row_of(const M& m, Index i) {
  return m.rows() == 1 ? 0 : i;
}

template <class S>
Vec3<S> vec_at(const Rows<S, 3>& m, Index i) {
  if (m.rows() == 0) return Vec3<S>::Zero();
  return m.row(row_of(m, i)).transpose();
}

template <class S>
Pose<S> pose_at(const PoseRows<S>& p, Index i) {
  Pose<S> out;
  out.position = vec_at(p.position, i);
  if (p.rotation.rows() > 0) {
    const Index r = row_of(p.rotation, i);
    out.rotation = Quat<S>(p.rotation(r, 0), p.rotation(r, 1), p.rotation(r, 2), p.rotation(r, 3));
  }
  return out;
}

template <class S>
Motion<S> motion_at(const MotionRows<S>& m, Index i) {
  Motion<S> out;
  out.pose = pose_at(m.pose, i);
  out.linear_velocity = vec_at(m.linear_velocity, i);
  out.angular_velocity = vec_at(m.angular_velocity, i);
  return out;
}

Index max_rows(std::initializer_list<Index> rows) { return std::max(rows); }

template <class S>
std::string pose_errors(std::string_view name, const PoseRows<S>& p, Index n) {
  return first_error({input_rows_error(std::string(name) + ".position", p.position.rows(), n, true),
                      input_rows_error(std::string(name) + ".rotation", p.rotation.rows(), n, true)});
}

template <class S>
std::string motion_errors(std::string_view name, const MotionRows<S>& m, Index n) {
  return first_error({pose_errors(std::string(name) + ".pose", m.pose, n),
                      input_rows_error(std::string(name) + ".linear_velocity", m.linear_velocity.rows(), n, true),
                      input_rows_error(std::string(name) + ".angular_velocity", m.angular_velocity.rows(), n, true)});
}

template <class S>
Index motion_rows(const MotionRows<S>& m) {
  return max_rows({m.pose.position.rows(), m.pose.rotation.rows(), m.linear_velocity.rows(), m.angular_velocity.rows()});
}

/// The oneTBB arena the calling thread ran its last batch in, kept for its next batch of as many
/// threads: making one a call cost 1.5–2.5% of level_1m's 65,536-ray camera and random batches on
/// 2 threads (2026-12-06, in-process harness). `running` while a batch runs in it: a batch
/// started from inside another (none of impact's own) gets an arena of its own, so that the one
/// running is never replaced.
struct KeptArena {
  std::unique_ptr<tbb::task_arena> arena;
  int threads = 0;
  bool running = false;
};
KeptArena& kept_arena() {
  thread_local KeptArena kept;
  return kept;
}

/// Runs f(begin, end) over blocks of [0, n): on the calling thread (one block) for one thread or
/// n ≤ grain, else over blocks of about `grain` queries in an arena of `threads` threads.
template <class F>
void for_each_block(Index n, const BatchOptions& batch, const F& f) {
  if (n <= 0) return;
  const int threads = batch.threads > 0 ? batch.threads : tbb::info::default_concurrency();
  const Index grain = std::max(1, batch.grain);
  if (threads == 1 || n <= grain) {
    f(Index(0), n);
    return;
  }
  auto run = [&](tbb::task_arena& arena) {
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<Index>(0, n, static_cast<std::size_t>(grain)),
                        [&](const tbb::blocked_range<Index>& r) { f(r.begin(), r.end()); });
    });
  };
  KeptArena& kept = kept_arena();
  if (kept.running) {
    tbb::task_arena own(threads);
    run(own);
    return;
  }
  if (!kept.arena || kept.threads != threads) {
    kept.arena = std::make_unique<tbb::task_arena>(threads);
    kept.threads = threads;
  }
  kept.running = true;
  run(*kept.arena);
  kept.running = false;
}

/// Runs f(i) for i in [0, n), split as for_each_block.
template <class F>
void for_each_query(Index n, const BatchOptions& batch, const F& f) {
  for_each_block(n, batch, [&](Index begin, Index end) {
    for (Index i = begin; i != end; ++i) f(i);
  });
}

using detail::put;  // one row of an output column, where asked (detail/batch_columns.hpp)
using detail::put_index;
using detail::put_status;

template <class S>
std::string cast_output_errors(const CastRows<S>& out, Index n) {
  return first_error({output_rows_error("status", out.status.size(), n),
                      output_rows_error("toi", out.toi, n),
                      output_rows_error("point_a", out.point_a, n),
                      output_rows_error("point_b", out.point_b, n),
                      output_rows_error("normal", out.normal, n)});
}

template <class S, class Hit>
void put_cast(CastRows<S>& out, Index i, const Hit& h) {
  put_status(out.status, i, h.status);
  put(out.toi, i, h.toi);
  put(out.point_a, i, h.point_a);
  put(out.point_b, i, h.point_b);
  put(out.normal, i, h.normal);
}

template <class Out>
std::string mesh_output_errors(const Out& out, Index n) {
  return first_error({output_rows_error("status", out.status.size(), n),
                      output_rows_error("point", out.point, n),
                      output_rows_error("normal", out.normal, n),
                      output_rows_error("triangle", out.triangle.size(), n), output_rows_error("room", out.room.size(), n)});
}

/// The columns a mesh ray and a mesh cast answer share: status, point, normal, triangle, room.
template <class Out, class Hit>
void put_mesh_common(Out& out, Index i, const Hit& h, std::uint32_t room) {
  put_status(out.status, i, h.status);
  put(out.point, i, h.point);
  put(out.normal, i, h.normal);
  put_index(out.triangle, i, h.triangle);
  put_index(out.room, i, room);
}

template <class S>
void put_mesh_ray(MeshRayRows<S>& out, Index i, const MeshRayHit<S>& h, std::uint32_t room) {
  put_mesh_common(out, i, h, room);
  put(out.lambda, i, h.lambda);
}

template <class S>
void put_mesh_cast(MeshCastRows<S>& out, Index i, const MeshCastHit<S>& h, std::uint32_t room) {
  put_mesh_common(out, i, h, room);
  put(out.toi, i, h.toi);
}

template <class S>
std::string ray_input_errors(Rows<S, 3> origin, Rows<S, 3> direction, Index n) {
  return first_error({input_rows_error("origin", origin.rows(), n, false), input_rows_error("direction", direction.rows(), n, false)});
}

template <class S>
std::string sphere_input_errors(Rows<S, 3> center, Column<S> radius, Rows<S, 3> path, Index n) {
  return first_error({input_rows_error("center", center.rows(), n, false), input_rows_error("radius", radius.rows(), n, false),
                      input_rows_error("path", path.rows(), n, false)});
}

template <class S>
S value_at(const Column<S>& c, Index i) {
  return c(row_of(c, i));
}

}  // namespace

template <class S>
std::string distance_batch(const Shape<S>& a, const PoseRows<S>& pose_a, const Shape<S>& b, const PoseRows<S>& pose_b,
                           const GjkOptions<S>& options, DistanceRows<S> out, const BatchOptions& batch) {
  const Index n = max_rows({pose_a.position.rows(), pose_a.rotation.rows(), pose_b.position.rows(), pose_b.rotation.rows()});
  if (auto e = first_error({pose_errors("pose_a", pose_a, n), pose_errors("pose_b", pose_b, n),
                            output_rows_error("status", out.status.size(), n),
                            output_rows_error("distance", out.distance, n),
                            output_rows_error("point_a", out.point_a, n),
                            output_rows_error("point_b", out.point_b, n),
                            output_rows_error("normal", out.normal, n)});
      !e.empty())
    return e;
  for_each_query(n, batch, [&](Index i) {
    const DistanceResult<S> r = distance(a, pose_at(pose_a, i), b, pose_at(pose_b, i), options);
    put_status(out.status, i, r.status);
    put(out.distance, i, r.distance);
    put(out.point_a, i, r.point_a);
    put(out.point_b, i, r.point_b);
    put(out.normal, i, r.normal);
  });
  return {};
}

template <class S>
std::string ray_cast_batch(const Shape<S>& shape, const Pose<S>& pose, Rows<S, 3> origin, Rows<S, 3> direction,
                           const RayCastOptions<S>& options, RayRows<S> out, const BatchOptions& batch) {
  const Index n = std::max(origin.rows(), direction.rows());
  if (auto e = first_error({ray_input_errors(origin, direction, n), output_rows_error("status", out.status.size(), n),
                            output_rows_error("lambda", out.lambda, n),
                            output_rows_error("point", out.point, n),
                            output_rows_error("normal", out.normal, n)});
      !e.empty())
    return e;
  RayCastOptions<S> opt = options;
  opt.separating_axis = nullptr;  // one caller's slot cannot serve N queries
  // One shape at one pose: checked and placed once (the answers are ray_cast's, bit for bit).
  const RayTarget<S> target(shape, pose);
  for_each_query(n, batch, [&](Index i) {
    const RayHit<S> h = target.cast(Ray<S>{vec_at(origin, i), vec_at(direction, i)}, opt);
    put_status(out.status, i, h.status);
    put(out.lambda, i, h.lambda);
    put(out.point, i, h.point);
    put(out.normal, i, h.normal);
  });
  return {};
}

template <class S>
std::string shape_cast_batch(const Shape<S>& a, const PoseRows<S>& pose_a, Rows<S, 3> velocity_a, const Shape<S>& b,
                             const PoseRows<S>& pose_b, Rows<S, 3> velocity_b, const ShapeCastOptions<S>& options,
                             CastRows<S> out, const BatchOptions& batch) {
  const Index n = max_rows({pose_a.position.rows(), pose_a.rotation.rows(), velocity_a.rows(), pose_b.position.rows(),
                            pose_b.rotation.rows(), velocity_b.rows()});
  if (auto e = first_error({pose_errors("pose_a", pose_a, n), input_rows_error("velocity_a", velocity_a.rows(), n, true),
                            pose_errors("pose_b", pose_b, n), input_rows_error("velocity_b", velocity_b.rows(), n, true),
                            cast_output_errors(out, n)});
      !e.empty())
    return e;
  for_each_query(n, batch, [&](Index i) {
    put_cast(out, i,
             shape_cast(a, pose_at(pose_a, i), vec_at(velocity_a, i), b, pose_at(pose_b, i), vec_at(velocity_b, i), options));
  });
  return {};
}

template <class S>
std::string time_of_impact_batch(const Shape<S>& a, const MotionRows<S>& motion_a, const Shape<S>& b,
                                 const MotionRows<S>& motion_b, const ToiOptions<S>& options, CastRows<S> out,
                                 const BatchOptions& batch) {
  const Index n = std::max(motion_rows(motion_a), motion_rows(motion_b));
  if (auto e = first_error({motion_errors("motion_a", motion_a, n), motion_errors("motion_b", motion_b, n),
                            cast_output_errors(out, n)});
      !e.empty())
    return e;
  for_each_query(n, batch,
                 [&](Index i) { put_cast(out, i, time_of_impact(a, motion_at(motion_a, i), b, motion_at(motion_b, i), options)); });
  return {};
}

namespace {

/// The row counts of a mesh or level ray batch's inputs and outputs.
template <class S>
std::string ray_output_errors(const Rows<S, 3>& origin, const Rows<S, 3>& direction, const MeshRayRows<S>& out, Index n) {
  return first_error({ray_input_errors(origin, direction, n), output_rows_error("lambda", out.lambda, n), mesh_output_errors(out, n)});
}

/// Rays of a mesh or level batch: checks, then `cast(ray)` → (answer, room) for every row.
template <class S, class Cast>
std::string ray_rows(Rows<S, 3> origin, Rows<S, 3> direction, MeshRayRows<S>& out, const BatchOptions& batch,
                     const Cast& cast) {
  const Index n = std::max(origin.rows(), direction.rows());
  if (auto e = ray_output_errors(origin, direction, out, n); !e.empty()) return e;
  for_each_query(n, batch, [&](Index i) {
    const auto [hit, room] = cast(Ray<S>{vec_at(origin, i), vec_at(direction, i)});
    put_mesh_ray(out, i, hit, room);
  });
  return {};
}

/// Spheres of a mesh or level batch: checks, then `cast(center, radius, path)` → (answer, room).
template <class S, class Cast>
std::string sphere_rows(Rows<S, 3> center, Column<S> radius, Rows<S, 3> path, MeshCastRows<S>& out,
                        const BatchOptions& batch, const Cast& cast) {
  const Index n = max_rows({center.rows(), radius.rows(), path.rows()});
  if (auto e = first_error({sphere_input_errors(center, radius, path, n),
                            output_rows_error("toi", out.toi, n),
                            mesh_output_errors(out, n)});
      !e.empty())
    return e;
  for_each_query(n, batch, [&](Index i) {
    const auto [hit, room] = cast(vec_at(center, i), value_at(radius, i), vec_at(path, i));
    put_mesh_cast(out, i, hit, room);
  });
  return {};
}

}  // namespace

template <class S>
std::string mesh_ray_cast_batch(const TriangleMesh<S>& mesh, Rows<S, 3> origin, Rows<S, 3> direction,
                                const MeshRayOptions<S>& options, MeshRayRows<S> out, const BatchOptions& batch) {
  const Index n = std::max(origin.rows(), direction.rows());
  if (auto e = ray_output_errors(origin, direction, out, n); !e.empty()) return e;
  // Rays a thousand at a time through mesh_ray_cast_many, whose walks interleave so that their
  // memory reads overlap (mesh/interleaved_walk.hpp), or, from one origin, go as packets of
  // neighbouring directions (mesh/packet_walk.hpp: a thousand rays are several rows of a
  // camera, from which square packets are drawn); each answer is mesh_ray_cast's.
  // The threads' tasks take whole pieces, cut at multiples of kAtOnce from the batch's start: a
  // task cut in the middle of a camera's rows (the grain alone allowed 64 rays) left packets of a
  // fraction of a row (terrain_1m's camera on 2 threads: 129 ns a ray, whole pieces 103;
  // bench/README.md). A camera's rows found in the batch's first rays (W pixels a row, from ray
  // b on), the pieces are whole rows instead, four or a multiple of four and a thousand rays or
  // more, cut at b + k·piece: a thousand rays of a camera 640 or 1,920 pixels wide are a row or
  // two, whose packets are strips (level_1m, 2026-12-06: 1.3 and 1.7 times Embree's stream time).
  // A batch of one piece runs on the calling thread.
  constexpr Index kAtOnce = 1024;
  // The rays are read in place (a shared row: a step of 0).
  const mesh_detail::RayRowsIn<S> rays{origin.data(), origin.rows() == 1 ? 0u : 3u, direction.data(),
                                       direction.rows() == 1 ? 0u : 3u, static_cast<std::size_t>(n)};
  constexpr auto kMaxWidth = static_cast<Index>(mesh_detail::kOrderAtOnce / 4);
  const auto [width, row0] = mesh_detail::camera_row_width(rays, static_cast<std::size_t>(kMaxWidth));
  Index piece = kAtOnce, cut0 = 0;  // pieces [0, cut0), then [cut0 + k·piece, cut0 + (k + 1)·piece)
  if (width > 0) {
    const auto rows4 = 4 * static_cast<Index>(width);
    piece = rows4 * ((kAtOnce + rows4 - 1) / rows4);
    cut0 = static_cast<Index>(row0) % piece;
  }
  const Index pieces = (cut0 > 0 ? 1 : 0) + (n - std::min(n, cut0) + piece - 1) / piece;
  auto piece_start = [&](Index p) { return std::min(n, cut0 > 0 ? (p == 0 ? 0 : cut0 + (p - 1) * piece) : p * piece); };
  BatchOptions by_piece = batch;
  by_piece.grain = std::max(1, batch.grain / static_cast<int>(piece));
  for_each_block(pieces, by_piece, [&](Index first_piece, Index end_piece) {
    for (Index p = first_piece; p < end_piece; ++p) {
      const Index base = piece_start(p), m = piece_start(p + 1) - base;
      if (m > 0)
        mesh_detail::mesh_ray_cast_many<S>(mesh, rays.rows(static_cast<std::size_t>(base), static_cast<std::size_t>(m)), options,
                                           out, base);
    }
  });
  return {};
}

template <class S>
std::string mesh_sphere_cast_batch(const TriangleMesh<S>& mesh, Rows<S, 3> center, Column<S> radius, Rows<S, 3> path,
                                   const MeshSphereOptions<S>& options, MeshCastRows<S> out, const BatchOptions& batch) {
  return sphere_rows<S>(center, radius, path, out, batch, [&](const Vec3<S>& c, S r, const Vec3<S>& p) {
    return std::pair(mesh_sphere_cast(mesh, c, r, p, options), 0u);
  });
}

template <class S>
std::string level_ray_cast_batch(const Level<S>& level, Rows<S, 3> origin, Rows<S, 3> direction,
                                 const MeshRayOptions<S>& options, MeshRayRows<S> out, const BatchOptions& batch) {
  return ray_rows<S>(origin, direction, out, batch, [&](const Ray<S>& ray) {
    LevelRayHit<S> h = level_ray_cast(level, ray, options);
    return std::pair(std::move(h.hit), h.room);
  });
}

template <class S>
std::string level_sphere_cast_batch(const Level<S>& level, Rows<S, 3> center, Column<S> radius, Rows<S, 3> path,
                                    const MeshSphereOptions<S>& options, MeshCastRows<S> out, const BatchOptions& batch) {
  return sphere_rows<S>(center, radius, path, out, batch, [&](const Vec3<S>& c, S r, const Vec3<S>& p) {
    LevelCastHit<S> h = level_sphere_cast(level, c, r, p, options);
    return std::pair(std::move(h.hit), h.room);
  });
}

#define IMPACT_INSTANTIATE_BATCH(S)                                                                                       \
  template std::string distance_batch<S>(const Shape<S>&, const PoseRows<S>&, const Shape<S>&, const PoseRows<S>&,       \
                                         const GjkOptions<S>&, DistanceRows<S>, const BatchOptions&);                    \
  template std::string ray_cast_batch<S>(const Shape<S>&, const Pose<S>&, Rows<S, 3>, Rows<S, 3>,                        \
                                         const RayCastOptions<S>&, RayRows<S>, const BatchOptions&);                     \
  template std::string shape_cast_batch<S>(const Shape<S>&, const PoseRows<S>&, Rows<S, 3>, const Shape<S>&,             \
                                           const PoseRows<S>&, Rows<S, 3>, const ShapeCastOptions<S>&, CastRows<S>,      \
                                           const BatchOptions&);                                                         \
  template std::string time_of_impact_batch<S>(const Shape<S>&, const MotionRows<S>&, const Shape<S>&,                   \
                                               const MotionRows<S>&, const ToiOptions<S>&, CastRows<S>,                  \
                                               const BatchOptions&);                                                     \
  template std::string mesh_ray_cast_batch<S>(const TriangleMesh<S>&, Rows<S, 3>, Rows<S, 3>, const MeshRayOptions<S>&,  \
                                              MeshRayRows<S>, const BatchOptions&);                                      \
  template std::string mesh_sphere_cast_batch<S>(const TriangleMesh<S>&, Rows<S, 3>, Column<S>, Rows<S, 3>,              \
                                                 const MeshSphereOptions<S>&, MeshCastRows<S>, const BatchOptions&);     \
  template std::string level_ray_cast_batch<S>(const Level<S>&, Rows<S, 3>, Rows<S, 3>, const MeshRayOptions<S>&,        \
                                               MeshRayRows<S>, const BatchOptions&);                                     \
  template std::string level_sphere_cast_batch<S>(const Level<S>&, Rows<S, 3>, Column<S>, Rows<S, 3>,                    \
                                                  const MeshSphereOptions<S>&, MeshCastRows<S>, const BatchOptions&);

IMPACT_INSTANTIATE_BATCH(float)
IMPACT_INSTANTIATE_BATCH(double)
#undef IMPACT_INSTANTIATE_BATCH

}  // namespace impact
