// impact — mesh_float.cpp: the float instantiations of mesh_impl.hpp.
#include "mesh_impl.hpp"

namespace impact {
IMPACT_MESH_INSTANTIATE(float)
template TriangleMesh<float> convert_mesh<float, float>(const TriangleMesh<float>&, const MeshBuildOptions&);
template TriangleMesh<float> convert_mesh<float, double>(const TriangleMesh<double>&, const MeshBuildOptions&);
}  // namespace impact
