// impact — mesh_double.cpp: the double instantiations of mesh_impl.hpp.
#include "mesh_impl.hpp"

namespace impact {
IMPACT_MESH_INSTANTIATE(double)
template TriangleMesh<double> convert_mesh<double, float>(const TriangleMesh<float>&, const MeshBuildOptions&);
template TriangleMesh<double> convert_mesh<double, double>(const TriangleMesh<double>&, const MeshBuildOptions&);
}  // namespace impact
