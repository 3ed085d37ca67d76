// impact — fuzz target: build_mesh (both split rules, any leaf size and depth) and the mesh casts
// (ray, sphere, spheres, convex shape), in double and float, each through the tree and by brute
// force. Invariants: a mesh is refused exactly when a vertex is out of range or an index out of
// bounds; every answer finite, with toi in [0, 1], λ in [0, max_lambda] and a real, non-degenerate
// triangle; the tree and the brute-force oracle agree on the status and the time.
#include "fuzz_mesh.hpp"

#include <cstddef>
#include <cstdint>

namespace {

using namespace impact;
using namespace impact::fuzz;

/// Brute force's GJK gave up on a triangle (max_iterations: a proven bound, no claim of contact)
/// that the tree's boxes culled (miss). Not a disagreement about contact (fuzz_mesh, 2026-11-28:
/// the seed corpus's mesh/shape_cast_brute_gave_up_tree_culled, a shape cast with sizes of 1e12).
template <class Hit>
bool brute_gave_up_where_tree_culled(const Hit& brute, const Hit& tree) {
  return brute.status == Status::max_iterations && tree.status == Status::miss;
}

/// Every mesh query validates all of its input before any early answer (an empty mesh, an
/// overlap at t = 0, a path whose box misses every node), so its verdict is exactly the target's.
/// (Until 2026-11-25 it did not, and this returned `unknown` for invalid input.)
template <class S, class R>
Expect expect_on(const TriangleMesh<S>&, const R&, Expect e) {
  return e;
}

template <class S>
void run(const TriangleMesh<S>& m, FuzzedDataProvider& p) {
  for (int q = p.ConsumeIntegralInRange<int>(1, 4); q > 0 && p.remaining_bytes() > 0; --q) {
    const BackFaces bf = p.ConsumeBool() ? BackFaces::ignore : BackFaces::collide;
    switch (p.ConsumeIntegralInRange<int>(0, 3)) {
      case 0: {
        const Vec3<double> o = draw_vec(p), d = draw_vec(p);
        MeshRayOptions<S> opt;
        opt.max_lambda = static_cast<S>(p.ConsumeBool() ? 1.0 : draw(p, true));
        opt.back_faces = bf;
        const Ray<S> ray{o.cast<S>(), d.cast<S>()};
        const MeshRayHit<S> h = mesh_ray_cast(m, ray, opt);
        const Expect e = in_range<S>(o) & in_range<S>(d) & in_range<S>(static_cast<double>(opt.max_lambda), true);
        check_validity(h, expect_on(m, h, e));
        if (h.status == Status::invalid_input) break;
        check_mesh_ray(h, m, opt.max_lambda);
        opt.brute_force = true;
        const MeshRayHit<S> b = mesh_ray_cast(m, ray, opt);
        IMPACT_REQUIRE(b.status == h.status);
        if (h.status == Status::hit) IMPACT_REQUIRE(b.lambda == h.lambda);
        break;
      }
      case 1:
      case 2: {
        MeshSphereOptions<S> opt;
        opt.back_faces = bf;
        opt.buffer = static_cast<S>(p.ConsumeBool() ? 0.0 : draw(p, true));
        const Vec3<double> path = draw_vec(p);
        std::vector<SphereInBody<S>> body(p.ConsumeIntegralInRange<int>(1, 3));
        Expect e = in_range<S>(path) & in_range<S>(static_cast<double>(opt.buffer), true);
        for (auto& s : body) {
          const Vec3<double> c = draw_vec(p);
          const double r = draw(p, true);
          s = {c.cast<S>(), static_cast<S>(r)};
          e = e & in_range<S>(c) & in_range<S>(r, true);
        }
        const bool one = body.size() == 1 && p.ConsumeBool();
        const Vec3<S> ps = path.cast<S>();
        const MeshCastHit<S> h = one ? mesh_sphere_cast(m, body[0].center, body[0].radius, ps, opt)
                                     : mesh_spheres_cast(m, std::span<const SphereInBody<S>>(body), ps, opt);
        check_validity(h, expect_on(m, h, e));
        if (h.status == Status::invalid_input) break;
        check_mesh_cast(h, m, false);
        if (h.status != Status::miss) IMPACT_REQUIRE(h.sphere < body.size());
        opt.brute_force = true;
        const MeshCastHit<S> b = one ? mesh_sphere_cast(m, body[0].center, body[0].radius, ps, opt)
                                     : mesh_spheres_cast(m, std::span<const SphereInBody<S>>(body), ps, opt);
        IMPACT_REQUIRE(b.status == h.status);
        if (h.status != Status::miss) IMPACT_REQUIRE(b.toi == h.toi);
        break;
      }
      default: {
        const FuzzShape shape = draw_shape(p, 1);
        const FuzzPose pose = draw_pose(p);
        const Vec3<double> v = draw_vec(p);
        MeshShapeOptions<S> opt;
        opt.back_faces = bf;
        opt.target_distance = static_cast<S>(p.ConsumeBool() ? 0.0 : draw(p, true));
        const Expect e = verdict<S>(shape) & verdict<S>(pose) & in_range<S>(v) &
                         in_range<S>(static_cast<double>(opt.target_distance), true);
        const Shape<S> s = in_scalar<S>(shape.shape);
        const Pose<S> q = pose.pose.cast<S>();
        const Vec3<S> vs = v.cast<S>();
        const MeshCastHit<S> h = mesh_shape_cast(m, s, q, vs, opt);
        check_validity(h, expect_on(m, h, e));
        if (h.status == Status::invalid_input) break;
        check_mesh_cast(h, m, true);
        opt.brute_force = true;
        const MeshCastHit<S> b = mesh_shape_cast(m, s, q, vs, opt);
        note("tree_status", static_cast<int>(h.status)), note("tree_toi", h.toi), note("tree_triangle", h.triangle);
        note("brute_status", static_cast<int>(b.status)), note("brute_toi", b.toi), note("brute_triangle", b.triangle);
        note("back_faces_ignore", opt.back_faces == BackFaces::ignore);
        if (b.status != h.status && opt.target_distance > S(0)) {
          // A tie: the shape exactly at the target distance from a triangle (the tree may cull
          // what the brute force finds at distance == target). Slightly nearer, they agree.
          double reach = q.position.template cast<double>().cwiseAbs().maxCoeff() + vs.template cast<double>().norm();
          for (const auto& v : m.vertices) reach = std::max(reach, static_cast<double>(v.cwiseAbs().maxCoeff()));
          const double slack = 1e-5 * static_cast<double>(opt.target_distance) +
                               64.0 * static_cast<double>(std::numeric_limits<S>::epsilon()) * reach;
          if (static_cast<double>(opt.target_distance) <= slack) break;  // too near to tell at this precision
          MeshShapeOptions<S> nearer = opt;
          nearer.target_distance = static_cast<S>(static_cast<double>(opt.target_distance) - slack);
          const MeshCastHit<S> b2 = mesh_shape_cast(m, s, q, vs, nearer);
          nearer.brute_force = false;
          const MeshCastHit<S> h2 = mesh_shape_cast(m, s, q, vs, nearer);
          IMPACT_REQUIRE(b2.status == h2.status || brute_gave_up_where_tree_culled(b2, h2));
          break;
        }
        IMPACT_REQUIRE(b.status == h.status || brute_gave_up_where_tree_culled(b, h));
        if (b.status != h.status) break;
        if (h.status != Status::miss) IMPACT_REQUIRE(b.toi == h.toi);
        break;
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  FuzzMesh fm = draw_mesh(p);
  const MeshBuildOptions bo = draw_build_options(p);
  const std::string err = build_mesh(fm.mesh, bo);
  if (fm.valid == Expect::valid) IMPACT_REQUIRE(err.empty());
  if (fm.valid == Expect::invalid) IMPACT_REQUIRE(!err.empty());
  if (!err.empty()) return 0;
  IMPACT_REQUIRE(fm.mesh.depth() >= 0 && fm.mesh.depth() <= kMeshMaxDepth);
  IMPACT_REQUIRE(fm.mesh.normals().size() == fm.mesh.triangles.size());
  // The same queries on the double mesh and on its float twin (planes and tree rebuilt).
  const std::vector<std::uint8_t> rest = p.ConsumeRemainingBytes<std::uint8_t>();
  {
    FuzzedDataProvider q(rest.data(), rest.size());
    run<double>(fm.mesh, q);
  }
  {
    const TriangleMesh<float> f = convert_mesh<float>(fm.mesh, bo);
    FuzzedDataProvider q(rest.data(), rest.size());
    run<float>(f, q);
  }
  return 0;
}
