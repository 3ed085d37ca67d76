#pragma once
// impact — mesh/ray_many.hpp: many rays against one mesh in one call, the way in of the mesh ray
// batch (batch.cpp); defined in mesh_impl.hpp, for float and double.
#include <impact/mesh.hpp>

#include <span>

namespace impact::mesh_detail {

/// out[i] = mesh_ray_cast(mesh, rays[i], opt), bit for bit, for every i (out as long as rays),
/// except that the normal is left zero unless `normals`. Rays that all share one origin (a camera,
/// a lidar) walk the tree as packets of neighbouring directions (packet_walk.hpp); others have
/// their walks interleaved on the calling thread (interleaved_walk.hpp), so that the memory reads
/// of one overlap the work of the others. No allocation.
template <class S>
void mesh_ray_cast_many(const TriangleMesh<S>& mesh, std::span<const Ray<S>> rays, const MeshRayOptions<S>& opt,
                        std::span<MeshRayHit<S>> out, bool normals = true);

}  // namespace impact::mesh_detail
