// impact benchmarks — world_stats.cpp: which contacts each library finds on the world-step
// scenes (world_scenes.hpp), step by step; not timed (impact_world_bench times the same steps).
//
// For every step of a scene it runs
//   - impact: World<double>::step (defaults: report pairs, target 0, all cores);
//   - bullet/continuous and bullet/swept_sphere (world_peers.hpp);
//   - with --reference 1, a reference of --substeps (256) discrete sub-steps: every body pair (and
//     body–triangle pair) whose swept boxes meet is tested at t = s/256, s = 0..256, on the exact
//     motions, part against part (and part against triangle) with impact::intersect; the first
//     sample that overlaps makes it a contact of the step. It can miss a contact that lasts less
//     than 1/256 of a step; it never reports one that does not happen.
// and compares the body pairs, step by step: a pair "missed" by a variant is one impact (or the
// reference) reports at that step and the variant does not; "extra" the other way round.
//
//   impact_world_stats [--scenes a,b,...] [--steps 24] [--reference 0|1] [--substeps 256]
#include "world_peers.hpp"
#include "world_scenes.hpp"

#include <impact/query.hpp>
#include <impact/world.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace impact_bench;
using V = impact::Vec3<double>;
using Pair = std::pair<int, int>;
using Clock = std::chrono::steady_clock;

struct RefBody {
  std::vector<const impact::Shape<double>*> shapes;
  std::vector<impact::Pose<double>> poses;  // in the body's frame
  std::vector<double> radii;                // each part's bounding radius about its own origin
  double radius = 0;                        // the body's, about its origin
};

struct Reference {
  const WorldScene* scene = nullptr;
  std::vector<RefBody> bodies;
  std::vector<impact::Shape<double>> triangles;  // the mesh's triangles as shapes (world)
  std::vector<std::pair<V, V>> tri_boxes;
  int substeps = 256;
  long intersect_calls = 0;

  explicit Reference(const WorldScene& s, int n) : scene(&s), substeps(n) {
    bodies.resize(s.bodies.size());
    for (std::size_t i = 0; i < s.bodies.size(); ++i) {
      const auto& b = s.bodies[i];
      RefBody& r = bodies[i];
      if (b.kind == impact::BodyKind::convex) {
        r.shapes.push_back(&b.shape);
        r.poses.emplace_back();
        r.radii.push_back(impact::bounding_radius(b.shape));
      } else if (b.kind == impact::BodyKind::compound) {
        for (const auto& p : b.parts) {
          r.shapes.push_back(&p.shape);
          r.poses.push_back(p.pose);
          r.radii.push_back(impact::bounding_radius(p.shape));
        }
      }
      for (std::size_t k = 0; k < r.shapes.size(); ++k) r.radius = std::max(r.radius, r.poses[k].position.norm() + r.radii[k]);
    }
    if (s.mesh)
      for (const auto& t : s.mesh->triangles) {
        const V a = s.mesh->vertices[t[0]], b = s.mesh->vertices[t[1]], c = s.mesh->vertices[t[2]];
        triangles.push_back(impact::Triangle<double>{a, b, c});
        tri_boxes.emplace_back(a.cwiseMin(b).cwiseMin(c), a.cwiseMax(b).cwiseMax(c));
      }
  }

  static impact::Pose<double> compose(const impact::Pose<double>& body, const impact::Pose<double>& part) {
    impact::Pose<double> p;
    p.position = body.rotation * part.position + body.position;
    p.rotation = (body.rotation * part.rotation).normalized();
    return p;
  }

  bool overlap_bodies(int a, int b, const impact::Motion<double>& ma, const impact::Motion<double>& mb) {
    const RefBody& A = bodies[static_cast<std::size_t>(a)];
    const RefBody& B = bodies[static_cast<std::size_t>(b)];
    for (int s = 0; s <= substeps; ++s) {
      const double t = double(s) / substeps;
      const impact::Pose<double> pa = ma.at(t), pb = mb.at(t);
      if ((pa.position - pb.position).norm() > A.radius + B.radius) continue;
      for (std::size_t i = 0; i < A.shapes.size(); ++i) {
        const impact::Pose<double> qa = compose(pa, A.poses[i]);
        for (std::size_t j = 0; j < B.shapes.size(); ++j) {
          const impact::Pose<double> qb = compose(pb, B.poses[j]);
          if ((qa.position - qb.position).norm() > A.radii[i] + B.radii[j]) continue;
          ++intersect_calls;
          if (impact::intersect(*A.shapes[i], qa, *B.shapes[j], qb).status == impact::Status::intersecting) return true;
        }
      }
    }
    return false;
  }

  bool overlap_mesh(int a, const impact::Motion<double>& m, const std::vector<std::size_t>& tris) {
    const RefBody& A = bodies[static_cast<std::size_t>(a)];
    for (int s = 0; s <= substeps; ++s) {
      const impact::Pose<double> pa = m.at(double(s) / substeps);
      const V r(A.radius, A.radius, A.radius);
      const V lo = pa.position - r, hi = pa.position + r;
      for (std::size_t t : tris) {
        const auto& box = tri_boxes[t];
        if ((box.first.array() > hi.array()).any() || (box.second.array() < lo.array()).any()) continue;
        for (std::size_t i = 0; i < A.shapes.size(); ++i) {
          const impact::Pose<double> qa = compose(pa, A.poses[i]);
          const V rr(A.radii[i], A.radii[i], A.radii[i]);
          if ((box.first.array() > (qa.position + rr).array()).any() || (box.second.array() < (qa.position - rr).array()).any())
            continue;
          ++intersect_calls;
          if (impact::intersect(*A.shapes[i], qa, triangles[t], impact::Pose<double>{}).status == impact::Status::intersecting)
            return true;
        }
      }
    }
    return false;
  }

  /// The body pairs in contact at some sample of step k.
  std::set<Pair> step(std::size_t k) {
    const WorldScene& s = *scene;
    const int n = static_cast<int>(s.bodies.size());
    const int mesh = s.desc.mesh_body;
    std::vector<impact::Motion<double>> motion(static_cast<std::size_t>(n));
    for (const auto& bm : s.motions[k]) motion[static_cast<std::size_t>(world_body_index(s, bm.body))] = bm.motion;
    // Swept boxes of the bodies (the origin's segment grown by the bounding radius).
    std::vector<std::pair<V, V>> box(static_cast<std::size_t>(n));
    std::vector<int> order;
    for (int i = 0; i < n; ++i) {
      if (i == mesh) continue;
      const auto& m = motion[static_cast<std::size_t>(i)];
      const V p0 = m.pose.position, p1 = m.pose.position + m.linear_velocity;
      const double R = bodies[static_cast<std::size_t>(i)].radius;
      box[static_cast<std::size_t>(i)] = {p0.cwiseMin(p1) - V(R, R, R), p0.cwiseMax(p1) + V(R, R, R)};
      order.push_back(i);
    }
    std::sort(order.begin(), order.end(), [&](int x, int y) { return box[static_cast<std::size_t>(x)].first.x() < box[static_cast<std::size_t>(y)].first.x(); });
    std::set<Pair> found;
    for (std::size_t u = 0; u < order.size(); ++u) {
      const int a = order[u];
      const auto& ba = box[static_cast<std::size_t>(a)];
      for (std::size_t w = u + 1; w < order.size(); ++w) {
        const int b = order[w];
        const auto& bb = box[static_cast<std::size_t>(b)];
        if (bb.first.x() > ba.second.x()) break;
        if ((bb.first.array() > ba.second.array()).any() || (bb.second.array() < ba.first.array()).any()) continue;
        if (overlap_bodies(a, b, motion[static_cast<std::size_t>(a)], motion[static_cast<std::size_t>(b)]))
          found.insert(std::minmax(a, b));
      }
    }
    if (mesh >= 0) {
      std::vector<std::size_t> tris;
      for (int a : order) {
        const auto& ba = box[static_cast<std::size_t>(a)];
        tris.clear();
        if (s.mesh_n > 0) {  // a height field: the quads under the box
          const int n_ = s.mesh_n;
          const int i0 = std::max(0, static_cast<int>(std::floor((ba.first.x() - s.mesh_origin) / s.mesh_cell)));
          const int i1 = std::min(n_ - 1, static_cast<int>(std::floor((ba.second.x() - s.mesh_origin) / s.mesh_cell)));
          const int j0 = std::max(0, static_cast<int>(std::floor((ba.first.y() - s.mesh_origin) / s.mesh_cell)));
          const int j1 = std::min(n_ - 1, static_cast<int>(std::floor((ba.second.y() - s.mesh_origin) / s.mesh_cell)));
          for (int j = j0; j <= j1; ++j)
            for (int i = i0; i <= i1; ++i)
              for (int h = 0; h < 2; ++h) {
                const std::size_t t = 2 * static_cast<std::size_t>(j * n_ + i) + static_cast<std::size_t>(h);
                const auto& tb = tri_boxes[t];
                if ((tb.first.array() > ba.second.array()).any() || (tb.second.array() < ba.first.array()).any()) continue;
                tris.push_back(t);
              }
        } else {
          for (std::size_t t = 0; t < tri_boxes.size(); ++t) {
            const auto& tb = tri_boxes[t];
            if ((tb.first.array() > ba.second.array()).any() || (tb.second.array() < ba.first.array()).any()) continue;
            tris.push_back(t);
          }
        }
        if (!tris.empty() && overlap_mesh(a, motion[static_cast<std::size_t>(a)], tris)) found.insert(std::minmax(a, mesh));
      }
    }
    return found;
  }
};

struct Tally {
  long events = 0, missed = 0, extra = 0, missed_mesh = 0, missed_initial = 0, missed_ref = 0, extra_ref = 0;
  double seconds = 0;
};

void compare(const std::set<Pair>& mine, const std::set<Pair>& truth, int mesh, long& missed, long& extra, long* missed_mesh,
             const std::set<Pair>* initial = nullptr, long* missed_initial = nullptr) {
  for (const Pair& p : truth)
    if (!mine.count(p)) {
      ++missed;
      if (missed_mesh && (p.first == mesh || p.second == mesh)) ++*missed_mesh;
      if (initial && initial->count(p)) ++*missed_initial;
    }
  for (const Pair& p : mine)
    if (!truth.count(p)) ++extra;
}

std::string arg(int argc, char** argv, const char* name, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return def;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0) {
      std::printf("impact_world_stats [--scenes falling_pieces_1000,high_speed_5000,...] [--steps 24] [--reference 0|1] [--substeps 256]\n"
                  "Contacts each library finds on the world-step scenes, step by step (see world_stats.cpp).\n");
      return 0;
    }
  std::vector<std::string> names;
  {
    std::stringstream ss(arg(argc, argv, "--scenes", "falling_pieces_1000,falling_pieces_10000,high_speed_5000,blender_1000"));
    for (std::string n; std::getline(ss, n, ',');)
      if (!n.empty()) names.push_back(n);
  }
  const std::size_t max_steps = static_cast<std::size_t>(std::atol(arg(argc, argv, "--steps", "24").c_str()));
  const bool with_ref = std::atoi(arg(argc, argv, "--reference", "0").c_str()) != 0;
  const int substeps = std::atoi(arg(argc, argv, "--substeps", "256").c_str());
  const int show = std::atoi(arg(argc, argv, "--show", "0").c_str());  // print this many of bullet/continuous's misses

  std::printf("| scene | steps | variant | events | missed vs impact | of which piece–mesh | of which overlapping at t = 0 | extra vs impact |%s s/step (single run) |\n",
              with_ref ? " missed vs reference | not in reference |" : "");
  std::printf("|---|---:|---|---:|---:|---:|---:|---:|%s---:|\n", with_ref ? "---:|---:|" : "");
  for (const std::string& name : names) {
    const auto scene = make_world_scene(name);
    const WorldScene& s = *scene;
    impact::World<double> world;
    if (const std::string err = world.edit({}, s.bodies); !err.empty()) {
      std::fprintf(stderr, "edit: %s\n", err.c_str());
      return 1;
    }
    BulletWorldPeer bullet(s.desc);
    std::unique_ptr<Reference> ref;
    if (with_ref) ref = std::make_unique<Reference>(s, substeps);
    const int mesh = s.desc.mesh_body;
    Tally ti, tc, tsw, tr;
    long initially = 0, capped = 0, gave_up = 0;
    int shown = 0;
    const std::size_t steps = std::min(max_steps, s.motions.size());
    for (std::size_t k = 0; k < steps; ++k) {
      auto c0 = Clock::now();
      const auto r = world.step(s.motions[k]);
      ti.seconds += std::chrono::duration<double>(Clock::now() - c0).count();
      if (!r.ok()) {
        std::fprintf(stderr, "step %zu: %s\n", k, r.error.c_str());
        return 1;
      }
      std::set<Pair> imp, imp_initial;
      std::map<Pair, const impact::WorldEvent<double>*> by_pair;
      for (const auto& e : r.events) {
        by_pair[std::minmax(world_body_index(s, e.a), world_body_index(s, e.b))] = &e;
        imp.insert(std::minmax(world_body_index(s, e.a), world_body_index(s, e.b)));
        if (e.status == impact::Status::initially_overlapping)
          imp_initial.insert(std::minmax(world_body_index(s, e.a), world_body_index(s, e.b)));
        initially += e.status == impact::Status::initially_overlapping;
        capped += e.status == impact::Status::max_iterations;
      }
      WorldPeerStep out;
      c0 = Clock::now();
      bullet.continuous(k, out);
      tc.seconds += std::chrono::duration<double>(Clock::now() - c0).count();
      gave_up += static_cast<long>(out.gave_up);
      std::set<Pair> cont;
      for (const auto& h : out.hits) cont.insert({h.a, h.b});
      c0 = Clock::now();
      bullet.swept_sphere(k, out);
      tsw.seconds += std::chrono::duration<double>(Clock::now() - c0).count();
      std::set<Pair> sw;
      for (const auto& h : out.hits) sw.insert({h.a, h.b});
      ti.events += static_cast<long>(imp.size());
      tc.events += static_cast<long>(cont.size());
      tsw.events += static_cast<long>(sw.size());
      compare(cont, imp, mesh, tc.missed, tc.extra, &tc.missed_mesh, &imp_initial, &tc.missed_initial);
      for (const Pair& p : imp) {
        if (shown >= show || cont.count(p) || imp_initial.count(p)) continue;
        ++shown;
        const auto* e = by_pair[p];
        auto kind = [&](int i) {
          return i == mesh ? std::string("mesh") : std::to_string(s.desc.bodies[static_cast<std::size_t>(i)].parts.size()) + " part(s)";
        };
        auto turn = [&](int i) {
          const auto& m = s.desc.steps[k][static_cast<std::size_t>(i)];
          const auto& w = m.angular_velocity;
          return std::sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
        };
        std::fprintf(stderr, "  bullet/continuous misses step %zu %s–%s (%s, %s; turns %.3g, %.3g rad): impact toi %.6g triangle %lld parts %d %d\n", k,
                     e->a.c_str(), e->b.c_str(), kind(p.first).c_str(), kind(p.second).c_str(), turn(p.first),
                     p.second == mesh ? 0.0 : turn(p.second), double(e->toi), static_cast<long long>(e->triangle), e->part_a, e->part_b);
      }
      compare(sw, imp, mesh, tsw.missed, tsw.extra, &tsw.missed_mesh, &imp_initial, &tsw.missed_initial);
      if (ref) {
        c0 = Clock::now();
        const std::set<Pair> truth = ref->step(k);
        tr.seconds += std::chrono::duration<double>(Clock::now() - c0).count();
        tr.events += static_cast<long>(truth.size());
        compare(imp, truth, mesh, ti.missed_ref, ti.extra_ref, nullptr);
        compare(cont, truth, mesh, tc.missed_ref, tc.extra_ref, nullptr);
        compare(sw, truth, mesh, tsw.missed_ref, tsw.extra_ref, nullptr);
      }
      std::fprintf(stderr, "%s step %zu: impact %zu, continuous %zu, swept_sphere %zu events\n", name.c_str(), k, imp.size(),
                   cont.size(), sw.size());
    }
    auto row = [&](const char* variant, const Tally& t, bool is_impact) {
      std::printf("| %s | %zu | %s | %ld | %s | %s | %s | %s |", name.c_str(), steps, variant, t.events,
                  is_impact ? "—" : std::to_string(t.missed).c_str(), is_impact ? "—" : std::to_string(t.missed_mesh).c_str(),
                  is_impact ? "—" : std::to_string(t.missed_initial).c_str(), is_impact ? "—" : std::to_string(t.extra).c_str());
      if (with_ref) std::printf(" %ld | %ld |", t.missed_ref, t.extra_ref);
      std::printf(" %.3f |\n", t.seconds / double(steps));
    };
    row("impact", ti, true);
    row("bullet/continuous", tc, false);
    row("bullet/swept_sphere", tsw, false);
    if (ref)
      std::printf("| %s | %zu | reference (%d sub-steps, intersect) | %ld | | | | | | | %.3f |\n", name.c_str(), steps, substeps, tr.events,
                  tr.seconds / double(steps));
    std::fprintf(stderr, "%s: impact events initially_overlapping %ld, max_iterations %ld; bullet/continuous reportFailure %ld%s\n",
                 name.c_str(), initially, capped, gave_up,
                 ref ? (", reference intersect calls " + std::to_string(ref->intersect_calls)).c_str() : "");
    std::fflush(stdout);
  }
  return 0;
}
