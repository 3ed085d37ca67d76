#pragma once
// impact — mesh/ray_many.hpp: many rays against one mesh in one call, the way in of the mesh ray
// batch (batch.cpp); defined in mesh_impl.hpp, for float and double.
#include <impact/batch.hpp>
#include <impact/mesh.hpp>

#include <span>

namespace impact::mesh_detail {

/// Ray i's answer, mesh_ray_cast(mesh, rays[i], opt) bit for bit, written in place at row
/// first + i of `rows` (the columns asked for: a normal only when `rows.normal` has rows; no
/// message for invalid input, a batch has no column for it; room 0). No MeshRayHit per ray, no
/// allocation. Rays that all share one origin (a camera, a lidar) walk the tree as packets of
/// neighbouring directions (packet_walk.hpp); others have their walks interleaved on the calling
/// thread (interleaved_walk.hpp), so that the memory reads of one overlap the work of the others.
template <class S>
void mesh_ray_cast_many(const TriangleMesh<S>& mesh, std::span<const Ray<S>> rays, const MeshRayOptions<S>& opt,
                        MeshRayRows<S>& rows, Eigen::Index first);

}  // namespace impact::mesh_detail
