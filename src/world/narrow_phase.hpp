// impact — world/narrow_phase.hpp: the first contact of one body pair, over its pieces.
//
// The pieces of a pair are part × part (convex bodies are one part) or part × triangle. Each
// piece has a swept sphere (swept_bounds.hpp); a piece pair is kept when the two spheres come
// within the gap, with the first time they can (`t_enter`). Triangles of a mesh that does not
// turn are culled in the mesh's frame, where the other piece moves on a line: its sweep's box
// walks the mesh's box tree (box_tree.hpp), then each triangle's sphere, plane, box and distance
// from the sweep's line (segment_triangle.hpp) are tested.
// Triangles of a turning mesh (a platform) get swept spheres in the world once per step and are
// tested one by one (a brute-force pass: such meshes are small in the scenes so far).
//
// Kept piece pairs run through `time_of_impact` in the order of t_enter, then of how near the
// sweep's line passes (the nearest triangles usually hold the earliest contact). Each later call
// gets the best time so far as its max_toi, and tries first the directions triangle_normal_hint
// and TriangleAwayHint give, which prove most triangles of a step apart without GJK
// (toi_entry.hpp); neither changes an answer that could be the pair's earliest. A piece pair cannot
// come within the gap before its t_enter, and a hit is within the tolerance of the target, so
// once t_enter exceeds the best toi so far by more than a float ulp the rest cannot beat it and
// are skipped (a `max_iterations` lower bound earlier than t_enter is the one thing a skipped pair
// could have reported; skipping it keeps a later, still valid, answer).
//
// How a piece is queried: a part of a body that does not turn is the part's shape at the body's
// pose composed with the part's pose, moving linearly; a part of a turning body is the part
// placed in the body's frame (TransformedShape) under the body's motion, so it turns about the
// body's origin (so too a part whose placed position would fall outside the accepted range of
// coordinates); a triangle is a Triangle in the mesh's frame under the mesh's motion. The call
// order is canonical (the lower ID first, a mesh's triangle always second), so the answer does
// not depend on where bodies sit in the world's arrays.
#pragma once

#include "world/bodies.hpp"
#include "world/segment_triangle.hpp"
#include "world/swept_bounds.hpp"

#include "detail/validation.hpp"
#include "toi/toi_entry.hpp"

#include <impact/toi.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace impact::world_detail {

/// A body as one step sees it.
template <class S>
struct StepBody {
  const Body<S>* body = nullptr;
  Motion<S> motion;                   ///< Pose at t = 0 and velocities (zero at rest).
  BodyPath path;                      ///< The same in double.
  std::vector<SweptSphere> parts;     ///< Swept sphere of each part (world).
  std::vector<SweptSphere> triangles; ///< Turning meshes only: swept sphere of each live triangle (world).
};

/// Rounding allowance of the segment–triangle distance (relative to the coordinates in play): its
/// products and square roots err by a few ulps of the scene, and a segment grazing the plane can
/// lose its crossing test to rounding only when it stays within a few ulps of the plane (then an
/// edge or an end is that close instead).
inline constexpr double kSegmentSlack = 1e-9;

/// A piece pair kept by the culling.
struct PiecePair {
  double t_enter = 0;
  /// How far the first piece's sweep passes from a triangle (0 for part pairs): after t_enter,
  /// the nearer triangles run first, as they usually hold the earliest contact, and the best time
  /// so far then lets the rest stop early (max_toi).
  double reach = 0;
  int part_a = 0;           ///< Part of the first body of the call.
  std::uint32_t piece_b = 0;  ///< Part, or index into MeshData::bounds/corners, of the second.
};

/// The first contact of a pair in call order (a = first body of the call).
template <class S>
struct PairContact {
  bool found = false;
  ToiHit<S> hit;
  int part_a = -1;
  std::int64_t piece_b = -1;  ///< Part, or triangle index.
};

/// Per-thread scratch: no allocation per pair once warm.
template <class S>
struct NarrowScratch {
  std::vector<PiecePair> pieces;
  std::vector<toi::PartSweep<S>> sweeps;  ///< Against a mesh: each part of the first body, set up once.
  std::vector<Vec3d> centers;             ///< Against a mesh: each part's centre at t = 0, in the mesh's frame.
  /// Against a mesh: each part's last GJK axis (world, part toward triangle); zero: none yet.
  std::vector<Vec3<S>> last_axes;
};

/// The shape and motion `time_of_impact` gets for part `i` of `sb` (see the top of this file).
template <class S>
[[nodiscard]] const Shape<S>& part_query(const StepBody<S>& sb, int i, Motion<S>& m) {
  const Part<S>& p = sb.body->parts[static_cast<std::size_t>(i)];
  m = sb.motion;
  if (p.identity) return p.shape;
  if (!sb.path.spins) {
    const Pose<S> placed = sb.motion.pose.compose(p.pose);
    // Body position and part offset are each within the accepted range, their sum need not be:
    // such a part is queried in the body's frame instead, as a turning body's is.
    if (detail::point_ok(placed.position)) {
      m.pose = placed;
      return p.shape;
    }
  }
  return p.in_body;
}

/// The first t at which a piece within `sa.r` of its line can come within `gap` of the plane
/// normal·x = offset (a triangle lies in it, up to `flat`), or kNever. The line's signed distance
/// from the plane is linear in t, so a piece that starts farther than r + gap on one side comes
/// that close no sooner than where the line's distance reaches r + gap.
/// `line_scale` is the largest coordinate of sa.p0 and sa.p1 (computed once for many planes).
[[nodiscard]] inline double plane_entry(const SweptSphere& sa, double line_scale, const Vec3d& normal, double offset,
                                        double flat, double gap) {
  if (flat == kNever) return 0.0;  // a degenerate plane: no information
  const double reach = sa.r + gap + flat;
  double s0 = normal.dot(sa.p0) - offset, s1 = normal.dot(sa.p1) - offset;
  if (s0 < 0) {
    s0 = -s0;
    s1 = -s1;
  }
  const double slack = kRelativeSlack * std::max({line_scale, std::abs(offset), reach});
  const double big = reach + slack;
  if (s0 <= big) return 0.0;
  if (s1 > big) return kNever;
  return std::max(0.0, (s0 - big) / (s0 - s1) * (1.0 - 1e-12));
}

/// Keeps the (part of a) × (triangle of mesh body b) pairs whose bounds meet.
template <class S>
void cull_triangles(int part, const SweptSphere& sa, const StepBody<S>& b, double gap,
                    std::vector<PiecePair>& out) {
  const MeshData<S>& md = *b.body->mesh;
  const std::size_t n = md.bounds.size();
  if (!b.path.spins) {
    // The mesh translates: in its frame the part's sphere moves on the line between its
    // relative positions at t = 0 and t = 1, and the triangles stand still.
    const Mat3<double>& rt = b.path.r0;
    SweptSphere local{rt.transpose() * (sa.p0 - b.path.p0), rt.transpose() * (sa.p1 - b.path.p1), sa.r};
    const double scale = std::max({local.p0.cwiseAbs().maxCoeff(), local.p1.cwiseAbs().maxCoeff(),
                                   sa.p0.cwiseAbs().maxCoeff(), sa.p1.cwiseAbs().maxCoeff(), b.path.p0.cwiseAbs().maxCoeff(),
                                   b.path.p1.cwiseAbs().maxCoeff()});
    local.r += kRelativeSlack * scale;
    Vec3d lo, hi;
    local.box(gap, lo, hi);
    if ((lo.array() > md.box_hi.array()).any() || (hi.array() < md.box_lo.array()).any()) return;
    const EntryAgainstRest entry{local, gap};
    const double line_scale = std::max(local.p0.cwiseAbs().maxCoeff(), local.p1.cwiseAbs().maxCoeff());
    md.tree.query(lo, hi, [&](std::uint32_t k) {
      // The sphere and the plane first: most triangles stop there, before their corners are read.
      const TriangleBounds& tb = md.bounds[k];
      const double t = entry(tb.center, tb.radius);
      if (t == kNever) return;
      const double tp = plane_entry(local, line_scale, tb.normal, tb.offset, tb.flatness, gap);
      if (tp == kNever) return;
      const TriangleCorners& tc = md.corners[k];
      if ((lo.array() > tc.hi().array()).any() || (hi.array() < tc.lo().array()).any()) return;
      // The exact distance from the sphere's line to the triangle: a ring of triangles around the
      // path meets the sphere test only.
      const double far = std::max({scale, tb.center.cwiseAbs().maxCoeff() + tb.radius, local.r + gap});
      const double reach = segment_triangle_distance(local.p0, local.p1, tc.a, tc.b, tc.c);
      if (reach > local.r + gap + kSegmentSlack * far) return;
      out.push_back({std::max(t, tp), reach, part, k});
    }, [&](std::uint32_t first, std::uint32_t count) {
      // The records of a leaf's triangles are consecutive (leaf order, make_mesh_data).
      const auto begin = reinterpret_cast<std::uintptr_t>(md.bounds.data() + first);
      const auto end = reinterpret_cast<std::uintptr_t>(md.bounds.data() + first + count);
      for (std::uintptr_t line = begin & ~std::uintptr_t(63); line < end; line += 64)
        __builtin_prefetch(reinterpret_cast<const void*>(line));
    });
    return;
  }
  Vec3d lo, hi;
  sa.box(gap, lo, hi);
  for (std::size_t k = 0; k < n; ++k) {
    const SweptSphere& tri = b.triangles[k];
    Vec3d tlo, thi;
    tri.box(0, tlo, thi);
    if ((lo.array() > thi.array()).any() || (hi.array() < tlo.array()).any()) continue;
    const double t = first_entry(sa, tri, gap);
    if (t != kNever) out.push_back({t, 0.0, part, static_cast<std::uint32_t>(k)});
  }
}

/// The directions time_of_impact tries before GJK for the part whose swept sphere is `sa` against
/// triangle k of mesh body b (toi_entry.hpp), at t = 0 in the world: the triangle's normal turned
/// toward the part's centre's side (triangle_normal_hint), then, made only when the normal has
/// not settled the call, the direction from the centre to its closest point of the triangle
/// (TriangleAwayHint: it separates a part beside the triangle, where the normal cannot).
/// `local` is the part's centre at t = 0 in the mesh's frame (mesh_frame_center).
template <class S>
toi::ToiHint<S> triangle_normal_hint(const Vec3d& local, const StepBody<S>& b, std::uint32_t k) {
  const TriangleBounds& tb = b.body->mesh->bounds[k];
  const bool above = tb.normal.dot(local) > tb.offset;
  const Vec3d n = b.path.r0 * tb.normal;
  return {(above ? Vec3d(-n) : n).template cast<S>(), true};
}

/// The later hints, as toi::LaterHints make them: the direction from the triangle's closest point
/// to the part's centre (none when it would be the normal again), then the axis the part's last
/// GJK call against this mesh ended on (`last`, when there is one: a separating axis of the
/// part from one triangle often separates it from the next one too, neighbours of a surface).
template <class S>
struct TriangleAwayHint {
  const Vec3d* local;
  const StepBody<S>* b;
  std::uint32_t k;
  const Vec3<S>* last = nullptr;
  static int make(const void* context, toi::ToiHint<S>* out) {
    const auto& h = *static_cast<const TriangleAwayHint*>(context);
    const TriangleBounds& tb = h.b->body->mesh->bounds[h.k];
    const TriangleCorners& tc = h.b->body->mesh->corners[h.k];
    const Vec3d away = from_triangle(*h.local, tc.a, tc.b, tc.c);
    const double len = away.norm();
    int n = 0;
    if (len > 0 && std::abs(tb.normal.dot(away)) <= 0.999 * len)  // else the normal again
      out[n++] = {(h.b->path.r0 * (away / -len)).template cast<S>(), false};
    if (h.last != nullptr) out[n++] = {*h.last, false};
    return n;
  }
  [[nodiscard]] toi::LaterHints<S> later() const { return {&make, this}; }
};

/// The centre of a part's swept sphere at t = 0 in mesh body b's frame (the hints above).
template <class S>
[[nodiscard]] Vec3d mesh_frame_center(const SweptSphere& sa, const StepBody<S>& b) {
  return b.path.r0.transpose() * (sa.p0 - b.path.p0);
}

/// The hint time_of_impact tries first for two parts (toi_entry.hpp): the line from A's centre to
/// B's at t = 0, the direction that separates two round parts (none when the centres coincide).
template <class S>
toi::ToiHint<S> centre_line_hint(const SweptSphere& a, const SweptSphere& b) {
  const Vec3d d = b.p0 - a.p0;
  const double len = d.norm();
  if (!(len > 0)) return {Vec3<S>::Zero(), false};
  return {Vec3d(d / len).template cast<S>(), false};
}

/// Per-pair options of the narrow phase.
template <class S>
struct NarrowOptions {
  ToiOptions<S> toi;        ///< target, tolerance (already floored for the pair), method, cap.
  double gap = 0;           ///< Culling gap: target + 2·tolerance (double).
  bool prune_by_best = true;
};

/// The tie order of contacts: earlier toi, then an initial overlap before a hit at 0, then the
/// lower piece indices.
template <class S>
[[nodiscard]] bool better(const ToiHit<S>& h, int pa, std::int64_t pb, const PairContact<S>& best) {
  if (!best.found) return true;
  if (h.toi != best.hit.toi) return h.toi < best.hit.toi;
  const bool io = h.status == Status::initially_overlapping, bio = best.hit.status == Status::initially_overlapping;
  if (io != bio) return io;
  if (pa != best.part_a) return pa < best.part_a;
  return pb < best.piece_b;
}

/// The first contact of bodies a and b (a is the first of the call: the lower ID, or the
/// non-mesh body). Returns false with `error` set if a query rejected its input.
template <class S>
[[nodiscard]] bool pair_contact(const StepBody<S>& a, const StepBody<S>& b, const NarrowOptions<S>& opt,
                                NarrowScratch<S>& scratch, PairContact<S>& best, std::size_t& toi_calls,
                                std::size_t& piece_pairs, std::string& error) {
  best = PairContact<S>{};
  auto& pieces = scratch.pieces;
  pieces.clear();
  const bool mesh_b = b.body->kind == BodyKind::mesh;
  for (std::size_t i = 0; i < a.parts.size(); ++i) {
    if (mesh_b) {
      cull_triangles(static_cast<int>(i), a.parts[i], b, opt.gap, pieces);
    } else {
      for (std::size_t j = 0; j < b.parts.size(); ++j) {
        const double t = first_entry(a.parts[i], b.parts[j], opt.gap);
        if (t != kNever) pieces.push_back({t, 0.0, static_cast<int>(i), static_cast<std::uint32_t>(j)});
      }
    }
  }
  piece_pairs += pieces.size();
  std::sort(pieces.begin(), pieces.end(), [](const PiecePair& x, const PiecePair& y) {
    if (x.t_enter != y.t_enter) return x.t_enter < y.t_enter;
    if (x.reach != y.reach) return x.reach < y.reach;
    if (x.part_a != y.part_a) return x.part_a < y.part_a;
    return x.piece_b < y.piece_b;
  });
  // A float toi is rounded down by at most an ulp of 1: past that margin a piece pair cannot tie.
  const double margin = 4.0 * double(std::numeric_limits<S>::epsilon());
  Motion<S> ma, mb;
  ToiOptions<S> toi = opt.toi;
  if (mesh_b && !pieces.empty()) {
    // Each part's shape, motion and validation are set up once against the mesh's motion.
    scratch.sweeps.resize(a.parts.size());
    scratch.centers.resize(a.parts.size());
    scratch.last_axes.assign(a.parts.size(), Vec3<S>::Zero());
    for (std::size_t i = 0; i < a.parts.size(); ++i) {
      const Shape<S>& sa = part_query(a, static_cast<int>(i), ma);
      if (std::string e = scratch.sweeps[i].prepare(sa, ma, b.motion); !e.empty()) {
        error = std::move(e);
        return false;
      }
      scratch.centers[i] = mesh_frame_center(a.parts[i], b);
    }
  }
  for (const PiecePair& pp : pieces) {
    if (opt.prune_by_best && best.found) {
      if (pp.t_enter > double(best.hit.toi) + margin) break;
      // Only a contact no later than the best (a tie may still win on the indices) is sought.
      toi.max_toi = static_cast<S>(std::min(1.0, double(best.hit.toi) + margin));
    }
    ToiHit<S> h;
    std::int64_t piece_b;
    if (mesh_b) {
      const MeshData<S>& md = *b.body->mesh;
      const std::uint32_t tri = md.corners[pp.piece_b].index;
      const Triangle<S> sb = md.triangle(pp.piece_b);
      const auto part = static_cast<std::size_t>(pp.part_a);
      const toi::ToiHint<S> normal = triangle_normal_hint(scratch.centers[part], b, pp.piece_b);
      const Vec3<S>& last = scratch.last_axes[part];
      const TriangleAwayHint<S> away{&scratch.centers[part], &b, pp.piece_b,
                                     last.squaredNorm() > S(0) ? &last : nullptr};
      h = scratch.sweeps[part].against(sb, toi, std::span(&normal, 1), away.later());
      piece_b = tri;
      if (h.stats.gjk_calls > 0 && h.normal.squaredNorm() > S(0.25)) scratch.last_axes[part] = h.normal;
    } else {
      const Shape<S>& sa = part_query(a, pp.part_a, ma);
      const Shape<S>& sb = part_query(b, static_cast<int>(pp.piece_b), mb);
      const toi::ToiHint<S> apart = centre_line_hint<S>(a.parts[static_cast<std::size_t>(pp.part_a)], b.parts[pp.piece_b]);
      h = toi::time_of_impact_hinted(sa, ma, sb, mb, toi, std::span(&apart, apart.direction.squaredNorm() > 0 ? 1 : 0));
      piece_b = pp.piece_b;
    }
    ++toi_calls;
    if (h.status == Status::invalid_input) {
      error = h.error;
      return false;
    }
    if (h.status == Status::miss) continue;
    if (better(h, pp.part_a, piece_b, best)) {
      best.found = true;
      best.hit = h;
      best.part_a = pp.part_a;
      best.piece_b = piece_b;
    }
  }
  return true;
}

}  // namespace impact::world_detail
