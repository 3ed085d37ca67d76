// impact — tests/fuzz/fuzz_mesh.hpp: triangle meshes from fuzz bytes, and the checks the mesh and
// level targets share.
#pragma once

#include "fuzz_common.hpp"

#include <impact/mesh.hpp>

#include <array>
#include <cstdint>

namespace impact::fuzz {

/// A mesh of up to `max_vertices` vertices and `max_triangles` triangles; indices are mostly in
/// range. `valid` says whether build_mesh must accept it.
struct FuzzMesh {
  TriangleMesh<double> mesh;
  Expect valid = Expect::valid;
};

inline FuzzMesh draw_mesh(FuzzedDataProvider& p, int max_vertices = 16, int max_triangles = 24) {
  FuzzMesh out;
  const int nv = p.ConsumeIntegralInRange<int>(0, max_vertices);
  const int nt = p.ConsumeIntegralInRange<int>(0, max_triangles);
  for (int i = 0; i < nv; ++i) {
    out.mesh.vertices.push_back(draw_vec(p));
    out.valid = out.valid & in_range<double>(out.mesh.vertices.back());
  }
  for (int i = 0; i < nt; ++i) {
    std::array<std::uint32_t, 3> t{};
    for (auto& k : t) {
      k = p.ConsumeIntegralInRange<std::uint32_t>(0, nv > 0 && p.ConsumeProbability<double>() < 0.97 ? nv - 1 : nv + 2);
      if (k >= static_cast<std::uint32_t>(nv)) out.valid = Expect::invalid;
      note("index", k);
    }
    out.mesh.triangles.push_back(t);
  }
  return out;
}

inline MeshBuildOptions draw_build_options(FuzzedDataProvider& p) {
  MeshBuildOptions o;
  o.split = p.ConsumeBool() ? MeshSplit::middle : MeshSplit::sah;
  o.leaf_size = p.ConsumeIntegralInRange<int>(1, 8);
  o.max_depth = p.ConsumeIntegralInRange<int>(0, kMeshMaxDepth + 4);
  return o;
}

/// Every mesh cast answer: known status, finite numbers, toi in [0, 1], a real triangle.
template <class S>
void check_mesh_cast(const MeshCastHit<S>& h, const TriangleMesh<S>& m, bool shape_cast) {
  IMPACT_REQUIRE(h.status == Status::hit || h.status == Status::miss || h.status == Status::initially_overlapping ||
                 (shape_cast && h.status == Status::max_iterations));
  IMPACT_REQUIRE(std::isfinite(h.toi) && h.toi >= S(0) && h.toi <= S(1));
  IMPACT_REQUIRE(std::isfinite(h.contact_time) && finite(h.point) && finite(h.normal));
  if (h.status == Status::initially_overlapping) IMPACT_REQUIRE(h.toi == S(0));
  if (h.status == Status::hit || h.status == Status::initially_overlapping) {
    IMPACT_REQUIRE(h.triangle < m.triangles.size());
    IMPACT_REQUIRE(!m.degenerate()[h.triangle]);
    IMPACT_REQUIRE(unit_or_zero(h.normal));
  }
  if (h.status == Status::hit) IMPACT_REQUIRE(h.toi <= h.contact_time || h.contact_time == S(0));
}

template <class S>
void check_mesh_ray(const MeshRayHit<S>& h, const TriangleMesh<S>& m, S max_lambda) {
  IMPACT_REQUIRE(h.status == Status::hit || h.status == Status::miss);
  IMPACT_REQUIRE(std::isfinite(h.lambda) && finite(h.point) && finite(h.normal));
  if (h.status == Status::hit) {
    IMPACT_REQUIRE(h.lambda >= S(0) && h.lambda <= max_lambda);
    IMPACT_REQUIRE(h.triangle < m.triangles.size() && !m.degenerate()[h.triangle]);
    IMPACT_REQUIRE(std::abs(static_cast<double>(h.normal.norm()) - 1.0) <= 1e-3);
  }
}

/// Distance from p to the triangle a, b, c (closest point by Voronoi regions; exact up to
/// rounding, independent of the library).
inline double point_triangle_distance(const Vec3<double>& p, const Vec3<double>& a, const Vec3<double>& b,
                                      const Vec3<double>& c) {
  auto segment = [](const Vec3<double>& q, const Vec3<double>& u, const Vec3<double>& v) {
    const Vec3<double> e = v - u;
    const double l2 = e.squaredNorm();
    const double t = l2 > 0 ? std::clamp((q - u).dot(e) / l2, 0.0, 1.0) : 0.0;
    return (q - (u + t * e)).norm();
  };
  const Vec3<double> n = (b - a).cross(c - a);
  double best = std::min({segment(p, a, b), segment(p, b, c), segment(p, c, a)});
  const double n2 = n.squaredNorm();
  if (n2 > 0 && std::isfinite(n2)) {
    // Inside the prism over the triangle: the plane distance.
    const double s0 = (b - a).cross(p - a).dot(n), s1 = (c - b).cross(p - b).dot(n), s2 = (a - c).cross(p - c).dot(n);
    // The plane's distance measured from the corner nearest p, in long double: from a far corner
    // of a sliver, (p − a)·n cancels (a fuzz finding: a corner 1.8e8 away, the others a few
    // units, gave 0.0105 for a true 0.3349, and flagged a carve that rightly kept the triangle).
    if (s0 >= 0 && s1 >= 0 && s2 >= 0) {
      using L = long double;
      const double da = (p - a).squaredNorm(), db = (p - b).squaredNorm(), dc = (p - c).squaredNorm();
      const Vec3<double>& u = da <= db && da <= dc ? a : db <= dc ? b : c;
      const Eigen::Matrix<L, 3, 1> nl = (b - a).cast<L>().cross((c - a).cast<L>());
      best = std::min(best, static_cast<double>(std::abs((p - u).cast<L>().dot(nl)) / nl.norm()));
    }
  }
  return best;
}

}  // namespace impact::fuzz
