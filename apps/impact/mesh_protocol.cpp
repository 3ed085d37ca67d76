// impact — mesh_protocol.cpp: the triangle-mesh queries of `impact query`.
#include "mesh_protocol.hpp"

namespace impact::cli {

bool is_mesh_query(const std::string& q) {
  return q == "define_mesh" || q == "mesh_ray_cast" || q == "mesh_sphere_cast" || q == "mesh_shape_cast";
}

void answer_mesh_query(const std::string& q, Fields& /*f*/, bool /*use_float*/, ojson& /*out*/) {
  throw Bad{"query: '" + q + "' is not implemented yet"};
}

}  // namespace impact::cli
