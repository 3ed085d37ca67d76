// impact — fuzz target: levels of rooms and portals (build_level, level_ray_cast,
// level_sphere_cast, carve), in double. Invariants: a level of valid rooms builds; every answer
// finite with a real room and triangle; a cast never reports a contact earlier than the first
// contact over all rooms (independent: each room's mesh by brute force), and equals it when the
// start is in no room's cell (then every room is searched); after a carve no triangle the blast
// sphere touches is left (independent closest-point test) and the report is consistent.
#include "fuzz_mesh.hpp"

#include <impact/level.hpp>

#include <cstddef>
#include <cstdint>

namespace {

using namespace impact;
using namespace impact::fuzz;
using S = double;

/// Level casts validate their input before walking any room (until 2026-11-25 a level whose walk
/// reached only rooms without a tree answered miss without looking at it), so the verdict is the
/// target's whatever the level.
Expect searchable(const Level<S>&, Expect e) { return e; }

void cast_ray(const Level<S>& L, FuzzedDataProvider& p) {
  const Vec3<double> o = draw_vec(p), d = draw_vec(p);
  MeshRayOptions<S> opt;
  opt.back_faces = p.ConsumeBool() ? BackFaces::ignore : BackFaces::collide;
  const int start = p.ConsumeIntegralInRange<int>(-1, static_cast<int>(L.rooms.size()) - 1);
  const Ray<S> ray{o, d};
  const LevelRayHit<S> h = level_ray_cast(L, ray, opt, start);
  check_validity(h.hit, searchable(L, in_range<S>(o) & in_range<S>(d)));
  if (h.hit.status == Status::invalid_input) return;
  IMPACT_REQUIRE(h.rooms_visited >= 0 && static_cast<std::size_t>(h.rooms_visited) <= L.rooms.size());
  if (h.hit.status == Status::hit) {
    IMPACT_REQUIRE(h.room < L.rooms.size());
    check_mesh_ray(h.hit, L.rooms[h.room].mesh, opt.max_lambda);
  } else {
    IMPACT_REQUIRE(h.hit.status == Status::miss);
  }
  // Every room by brute force: the first crossing over the whole level.
  MeshRayOptions<S> bo = opt;
  bo.brute_force = true;
  bool any = false;
  S first = 0;
  for (const Room<S>& r : L.rooms) {
    const MeshRayHit<S> b = mesh_ray_cast(r.mesh, ray, bo);
    if (b.status == Status::hit && (!any || b.lambda < first)) any = true, first = b.lambda;
  }
  if (h.hit.status == Status::hit) IMPACT_REQUIRE(any && h.hit.lambda >= first);
  if (start < 0 && room_at(L, o.cast<S>()) < 0) {
    IMPACT_REQUIRE((h.hit.status == Status::hit) == any);
    if (any) IMPACT_REQUIRE(h.hit.lambda == first);
  }
}

void cast_sphere(const Level<S>& L, FuzzedDataProvider& p) {
  const Vec3<double> c = draw_vec(p), path = draw_vec(p);
  const double radius = draw(p, true);
  MeshSphereOptions<S> opt;
  opt.back_faces = p.ConsumeBool() ? BackFaces::ignore : BackFaces::collide;
  const int start = p.ConsumeIntegralInRange<int>(-1, static_cast<int>(L.rooms.size()) - 1);
  const LevelCastHit<S> h = level_sphere_cast(L, c, radius, path, opt, start);
  check_validity(h.hit, searchable(L, in_range<S>(c) & in_range<S>(path) & in_range<S>(radius, true)));
  if (h.hit.status == Status::invalid_input) return;
  IMPACT_REQUIRE(h.hit.status == Status::hit || h.hit.status == Status::miss ||
                 h.hit.status == Status::initially_overlapping);
  if (h.hit.status != Status::miss) {
    IMPACT_REQUIRE(h.room < L.rooms.size());
    check_mesh_cast(h.hit, L.rooms[h.room].mesh, false);
  }
  MeshSphereOptions<S> bo = opt;
  bo.brute_force = true;
  bool overlap = false, any = false;
  S first = 0;
  for (const Room<S>& r : L.rooms) {
    const MeshCastHit<S> b = mesh_sphere_cast(r.mesh, c, radius, path, bo);
    if (b.status == Status::initially_overlapping) overlap = true;
    if (b.status == Status::hit && (!any || b.contact_time < first)) any = true, first = b.contact_time;
  }
  if (h.hit.status == Status::initially_overlapping) IMPACT_REQUIRE(overlap);
  if (h.hit.status == Status::hit) IMPACT_REQUIRE(any && h.hit.contact_time >= first);
  if (start < 0 && room_at(L, c) < 0) {
    if (overlap) IMPACT_REQUIRE(h.hit.status == Status::initially_overlapping);
    else if (any) IMPACT_REQUIRE(h.hit.status == Status::hit && h.hit.contact_time == first);
    else IMPACT_REQUIRE(h.hit.status == Status::miss);
  }
}

void blast(Level<S>& L, FuzzedDataProvider& p) {
  const Vec3<double> c = draw_vec(p);
  const double radius = draw(p, true);
  std::vector<std::size_t> before;
  for (const Room<S>& r : L.rooms) before.push_back(r.mesh.triangles.size());
  const std::size_t portals = L.portals.size();
  const CarveReport rep = carve(L, c, radius);
  const Expect e = in_range<S>(c) & in_range<S>(radius, true);
  if (e == Expect::invalid) IMPACT_REQUIRE(!rep.error.empty());
  if (e == Expect::valid) IMPACT_REQUIRE(rep.error.empty());
  if (!rep.error.empty()) {
    IMPACT_REQUIRE(L.portals.size() == portals);
    return;
  }
  IMPACT_REQUIRE(rep.rooms.size() == rep.removed.size() && rep.rooms.size() == rep.rebuild_seconds.size());
  IMPACT_REQUIRE(rep.portals_added == 0 || rep.portals_added == 1);
  IMPACT_REQUIRE(L.portals.size() == portals + static_cast<std::size_t>(rep.portals_added));
  for (std::size_t k = 0; k < rep.rooms.size(); ++k) {
    IMPACT_REQUIRE(rep.rooms[k] < L.rooms.size() && rep.removed[k] > 0);
    IMPACT_REQUIRE(L.rooms[rep.rooms[k]].mesh.triangles.size() + rep.removed[k] == before[rep.rooms[k]]);
  }
  // No triangle that can be hit is left within the blast (a 1e-9 relative margin for rounding).
  for (const Room<S>& r : L.rooms) {
    const TriangleMesh<S>& m = r.mesh;
    for (std::size_t i = 0; i < m.triangles.size(); ++i) {
      if (m.degenerate()[i]) continue;
      const auto& t = m.triangles[i];
      const Vec3<double>&a = m.vertices[t[0]], &b = m.vertices[t[1]], &cc = m.vertices[t[2]];
      const double scale = std::max({radius, c.cwiseAbs().maxCoeff(), a.cwiseAbs().maxCoeff(),
                                     b.cwiseAbs().maxCoeff(), cc.cwiseAbs().maxCoeff()});
      if (tracing() && !(point_triangle_distance(c, a, b, cc) > radius - 1e-9 * scale))
        std::fprintf(stderr, "kept: centre %.17g %.17g %.17g radius %.17g triangle (%.17g %.17g %.17g) (%.17g %.17g %.17g) (%.17g %.17g %.17g) at %.17g\n",
                     c.x(), c.y(), c.z(), radius, a.x(), a.y(), a.z(), b.x(), b.y(), b.z(), cc.x(), cc.y(), cc.z(),
                     point_triangle_distance(c, a, b, cc));
      IMPACT_REQUIRE(point_triangle_distance(c, a, b, cc) > radius - 1e-9 * scale);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider p(data, size);
  Level<S> L;
  L.build = draw_build_options(p);
  Expect valid = Expect::valid;
  const int rooms = p.ConsumeIntegralInRange<int>(0, 4);
  for (int i = 0; i < rooms; ++i) {
    Room<S> r;
    FuzzMesh m = draw_mesh(p, 10, 12);
    r.mesh = std::move(m.mesh);
    valid = valid & m.valid;
    Vec3<double> lo = draw_vec(p), hi = draw_vec(p);
    if (p.ConsumeProbability<double>() < 0.9) {
      const Vec3<double> a = lo.cwiseMin(hi), b = lo.cwiseMax(hi);
      lo = a, hi = b;
    }
    // build_level checks min ≤ max (NaN fails that too); the range is not checked for cells.
    for (int k = 0; k < 3; ++k)
      if (!(lo[k] <= hi[k])) valid = Expect::invalid;
    r.cell_lo = lo, r.cell_hi = hi;
    L.rooms.push_back(std::move(r));
  }
  for (int i = p.ConsumeIntegralInRange<int>(0, 4); i > 0; --i) {
    Portal<S> q;
    q.rooms = {p.ConsumeIntegralInRange<std::uint32_t>(0, rooms), p.ConsumeIntegralInRange<std::uint32_t>(0, rooms)};
    if (q.rooms[0] >= static_cast<std::uint32_t>(rooms) || q.rooms[1] >= static_cast<std::uint32_t>(rooms))
      valid = Expect::invalid;
    q.sphere = p.ConsumeProbability<double>() < 0.2;
    if (q.sphere) {
      // Sphere portals come from carve, which gives them finite fields: so do these.
      q.center = draw_vec(p);
      q.radius = draw(p, true);
      if (in_range<S>(q.center) != Expect::valid) q.center.setZero();
      if (in_range<S>(q.radius, true) != Expect::valid) q.radius = 1;
    } else {
      for (auto& c : q.corners) {
        c = draw_vec(p);
        valid = valid & in_range<S>(c);
      }
    }
    L.portals.push_back(std::move(q));
  }
  const std::string err = build_level(L);
  if (valid == Expect::valid) IMPACT_REQUIRE(err.empty());
  if (valid == Expect::invalid) IMPACT_REQUIRE(!err.empty());
  if (!err.empty()) return 0;
  while (p.remaining_bytes() > 0) {
    switch (p.ConsumeIntegralInRange<int>(0, 2)) {
      case 0: cast_ray(L, p); break;
      case 1: cast_sphere(L, p); break;
      default: blast(L, p); break;
    }
  }
  return 0;
}
