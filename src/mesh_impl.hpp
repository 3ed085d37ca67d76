#pragma once
// impact — mesh_impl.hpp (included by mesh_float.cpp and mesh_double.cpp): the mesh queries'
// entry points (validation, build, ray, sphere and shape casts); each algorithm they use has its
// own file in src/mesh/.
#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include "detail/batch_columns.hpp"
#include "detail/validation.hpp"
#include "mesh/bin_tree.hpp"
#include "mesh/bin_tree_build.hpp"
#include "mesh/bin_tree_walk.hpp"
#include "mesh/closest_on_triangle.hpp"
#include "mesh/interleaved_walk.hpp"
#include "mesh/packet_order.hpp"
#include "mesh/packet_setup.hpp"
#include "mesh/packet_walk.hpp"
#include "mesh/ray_many.hpp"
#include "mesh/sphere_triangle_sweep.hpp"
#include "mesh/watertight_ray_triangle.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <cmath>
#include <limits>
#include <numeric>
#include <string_view>
#include <utility>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace impact {
namespace mesh_detail {

/// The part of ray_input_ok that rays from one origin share: the origin and max_lambda.
template <class S>
bool ray_origin_ok(const Vec3<S>& origin, const MeshRayOptions<S>& opt) {
  return detail::point_ok(origin) && detail::size_ok(opt.max_lambda);
}
/// Whether a mesh or level ray query's input is good (ray_input_error empty; no message built).
template <class S>
bool ray_input_ok(const Ray<S>& ray, const MeshRayOptions<S>& opt) {
  return ray_origin_ok(ray.origin, opt) && detail::point_ok(ray.direction);
}

/// What is wrong with a mesh or level ray query, or an empty string (checked before any early
/// answer: a query on an empty mesh or level is refused the same way).
template <class S>
std::string ray_input_error(const Ray<S>& ray, const MeshRayOptions<S>& opt) {
  if (ray_input_ok(ray, opt)) [[likely]]
    return {};
  if (auto e = detail::check_vector(ray.origin, "origin"); !e.empty()) return e;
  if (auto e = detail::check_vector(ray.direction, "direction"); !e.empty()) return e;
  return detail::check_scalar(opt.max_lambda, "max_lambda");
}

/// The same for a sphere cast.
template <class S>
std::string sphere_input_error(const Vec3<S>& center, S radius, const Vec3<S>& path, const MeshSphereOptions<S>& opt) {
  if (auto e = detail::check_vector(center, "center"); !e.empty()) return e;
  if (auto e = detail::check_scalar(radius, "radius"); !e.empty()) return e;
  if (auto e = detail::check_vector(path, "path"); !e.empty()) return e;
  if (auto e = detail::check_scalar(opt.buffer, "buffer"); !e.empty()) return e;
  if (!std::isfinite(opt.max_toi)) return "max_toi: not finite";
  return {};
}

}  // namespace mesh_detail

// =============================================================================================

template <class S>
std::string build_mesh(TriangleMesh<S>& m, const MeshBuildOptions& opt) {
  using namespace mesh_detail;
  for (std::size_t i = 0; i < m.vertices.size(); ++i)
    if (!detail::point_ok(m.vertices[i])) return detail::check_vector(m.vertices[i], "vertices." + std::to_string(i));
  const std::size_t nv = m.vertices.size();
  for (std::size_t i = 0; i < m.triangles.size(); ++i)
    for (int k = 0; k < 3; ++k)
      if (m.triangles[i][k] >= nv)
        return "triangles." + std::to_string(i) + "." + std::to_string(k) + ": index " +
               std::to_string(m.triangles[i][k]) + " out of range (" + std::to_string(nv) + " vertices)";
  if (m.triangles.size() >= std::numeric_limits<std::uint32_t>::max() / 2) return "triangles: too many";
  const std::size_t nt = m.triangles.size();
  auto built = std::make_shared<MeshTree<S>>();
  MeshTree<S>& tree = *built;
  tree.normals.assign(nt, Vec3<S>::Zero());
  tree.offsets.assign(nt, S(0));
  tree.degenerate.assign(nt, 0);
  std::vector<BuildItem> items;
  items.reserve(nt);
  for (std::size_t i = 0; i < nt; ++i) {
    const auto& t = m.triangles[i];
    const Vec3<S>& a = m.vertices[t[0]];
    const Vec3<S>& b = m.vertices[t[1]];
    const Vec3<S>& c = m.vertices[t[2]];
    // The plane is computed in double and rounded once: float meshes get the best normal their
    // corners allow. Zero area (exactly) means degenerate.
    const Vec3<double> ad = a.template cast<double>(), bd = b.template cast<double>(), cd = c.template cast<double>();
    Vec3<double> nd;
    if (!unit_front_normal(ad, bd, cd, nd)) {
      tree.degenerate[i] = 1;
      continue;
    }
    tree.normals[i] = nd.template cast<S>();
    tree.offsets[i] = static_cast<S>(nd.dot(ad));
    BuildItem it{};
    for (int k = 0; k < 3; ++k) {
      it.lo[k] = std::min({ad[k], bd[k], cd[k]});
      it.hi[k] = std::max({ad[k], bd[k], cd[k]});
      it.centre[k] = 0.5 * (it.lo[k] + it.hi[k]);
    }
    it.index = static_cast<std::uint32_t>(i);
    items.push_back(it);
  }
  tree.nodes.clear();
  tree.wide.clear();
  tree.blocks.clear();
  tree.packed_triangles = 0;
  tree.depth = 0;
  if (items.empty()) {
    detail::MeshAccess::set(m, std::move(built));
    return {};
  }
  tree.blocks.reserve(items.size() / 2 + 1);
  tree.nodes.reserve(2 * items.size() / static_cast<std::size_t>(std::max(1, opt.leaf_size)) + 2);
  tree.nodes.emplace_back();
  build_node(m, tree, items, 0, items.size(), 0, 0, opt);
  tree.wide.clear();
  if (tree.nodes[0].count == 0) {
    tree.wide.reserve(tree.nodes.size() / 2 + 1);
    tree.wide.emplace_back();
    collapse(tree, CollapsePlan(tree), 0, 0);
  }
  detail::MeshAccess::set(m, std::move(built));
  return {};
}

template <class T, class S>
TriangleMesh<T> convert_mesh(const TriangleMesh<S>& in, const MeshBuildOptions& opt) {
  TriangleMesh<T> out;
  out.vertices.reserve(in.vertices.size());
  for (const auto& v : in.vertices) out.vertices.push_back(v.template cast<T>());
  out.triangles = in.triangles;
  (void)build_mesh(out, opt);  // in was valid, so is out (coordinates are within float range)
  return out;
}

namespace mesh_detail {

/// Whether two scalars have the same bits (−0 and +0 differ; a NaN equals its own bits).
template <class S>
[[nodiscard]] bool same_bits(S x, S y) {
  return std::memcmp(&x, &y, sizeof(S)) == 0;
}

/// One mesh ray's search: its watertight set-up and the best crossing so far.
template <class S>
struct RayQuery {
  WatertightRay<S> wr;
  BackFaces back_faces = BackFaces::collide;
  bool have = false;
  std::uint32_t best_tri = 0;
  const TriangleBlock4<S>* best_blk = nullptr;  // where the tree's best triangle is stored (null: brute force)
  int best_lane = 0;
  RayQuery() = default;
  RayQuery(const Ray<S>& ray, BackFaces bf) : wr(ray), back_faces(bf) {}
  /// A new search, the ray's watertight set-up kept elsewhere (a packet's: PacketFrameSource).
  void start(BackFaces bf) {
    back_faces = bf;
    have = false;
    best_tri = 0;
    best_blk = nullptr;
    best_lane = 0;
  }
  /// A crossing at λ of triangle `index` (stored in lane `lane` of `blk`) becomes the answer when
  /// it is earlier, or as early with a lower index.
  void take(S lambda, std::uint32_t index, const TriangleBlock4<S>* blk, int lane, S& t_best) {
    if (!better(lambda, index, t_best, best_tri, have)) return;
    have = true;
    t_best = lambda;
    best_tri = index;
    best_blk = blk;
    best_lane = lane;
  }
  /// A leaf of the walk: its blocks four triangles at a time (padding lanes repeat a triangle,
  /// which changes nothing).
  void leaf(const MeshTree<S>& m, std::uint32_t first, std::uint32_t count, S& t_best) {
    leaf_lanes(m, first, count, t_best, RayLanes<Lanes4<S>>::of(wr), [this]() -> const WatertightRay<S>& { return wr; });
  }
  /// The same with the ray's lanes given (`lanes`: its watertight set-up, RayLanes::of) and
  /// ray_of() giving its WatertightRay for the rare exact decisions (block_hits).
  template <class RayOf>
  [[gnu::always_inline]] void leaf_lanes(const MeshTree<S>& m, std::uint32_t first, std::uint32_t count, S& t_best, const RayLanes<Lanes4<S>>& lanes,
                  const RayOf& ray_of) {
    for (std::uint32_t b = first, end = first + (count + 3) / 4; b < end; ++b) {
      const TriangleBlock4<S>& blk = m.blocks[b];
      S lambda[4];
      int redo;
      const int hits = ray_block_lanes(lanes, blk, back_faces, Lanes4<S>::splat(t_best), lambda, redo);
      block_hits(blk, hits, redo, lambda, t_best, ray_of);
    }
  }
  /// A packet walk's leaf for the queries of `rays` (q[r], best time t_best[r]), their watertight
  /// set-ups read from `frames` (QueryFrames: each query's wr; PacketFrameSource: the packet's
  /// set-up arrays): each its own leaf's answer, bit for bit. With the walk's lanes offering a Pair
  /// (a float mesh on the AVX-512 walk), two queries at a time on the eight lanes of L8
  /// (ray_block_lanes on their two set-ups side by side: the first's four triangle tests in the
  /// low half, the second's in the high half): each query of the mask with the next one when they
  /// share their frame, else with itself. Block by block, each block's terms (BlockTerms: the
  /// corners relative to the origin) are computed once for each run of pairs whose frames and
  /// origins are the same (`same_terms`): for a packet of ray_cast_packets, whose rays share their
  /// origin, once per frame met.
  template <class Ops, class Mask, class Frames>
  static void leaf_rays(Ops, const MeshTree<S>& m, std::uint32_t first, std::uint32_t count, Mask rays, RayQuery* q,
                        S* t_best, const Frames& frames) {
    if constexpr (requires { typename Ops::Pair; } && std::is_same_v<S, float>) {
      using L8 = typename Ops::Pair;
      // The pairs, and (bit j of `fresh`) those whose terms are not the last pair's (either half:
      // a pair's two rays share their frame, not necessarily their origin).
      int pa[kPacketRays], pb[kPacketRays], np = 0, held = -1;
      for (Mask z = rays; z != 0; z &= z - 1) {
        const int r = std::countr_zero(z);
        if (held < 0) {
          held = r;
          continue;
        }
        const bool partner = frames.same_frame(held, r);
        pa[np] = held;
        pb[np++] = partner ? r : held;
        held = partner ? -1 : r;
      }
      if (held >= 0) pa[np] = pb[np] = held, ++np;
      std::uint32_t fresh = 1;
      for (int j = 1; j < np; ++j)
        fresh |= std::uint32_t(!frames.same_terms(pa[j - 1], pa[j]) || !frames.same_terms(pb[j - 1], pb[j])) << j;
      for (std::uint32_t k = first, end = first + (count + 3) / 4; k < end; ++k) {
        const TriangleBlock4<S>& blk = m.blocks[k];
        BlockTerms<L8> terms;
        for (int j = 0; j < np; ++j) {
          const int a = pa[j], b = pb[j];
          const RayLanes<L8> r = frames.template pair<L8>(a, b);
          if ((fresh >> j) & 1u) terms = BlockTerms<L8>(r, blk);
          S lambda[8];
          int redo;
          const int hits = ray_block_lanes(r, terms, q[a].back_faces, L8::pair(t_best[a], t_best[b]), lambda, redo);
          q[a].block_hits(blk, hits & 0xf, redo & 0xf, lambda, t_best[a], [&] { return frames.ray(a); });
          if (b != a) q[b].block_hits(blk, hits >> 4, redo >> 4, lambda + 4, t_best[b], [&] { return frames.ray(b); });
        }
      }
    } else {
      for (Mask z = rays; z != 0; z &= z - 1) {
        const int r = std::countr_zero(z);
        q[r].leaf_lanes(m, first, count, t_best[r], frames.lanes4(r), [&] { return frames.ray(r); });
      }
    }
  }
  /// A block's answer from ray_block_lanes: the lanes `hits` crossed at lambda[lane], the lanes `redo`
  /// decided exactly (ray_triangle on ray_of()'s WatertightRay), each crossing taken in lane
  /// order.
  template <class RayOf>
  [[gnu::always_inline]] void block_hits(const TriangleBlock4<S>& blk, int hits, int redo, S lambda[4], S& t_best, const RayOf& ray_of) {
    if (redo != 0) [[unlikely]]
      hits |= redo_lanes(blk, redo, lambda, t_best, ray_of);
    for (unsigned z = static_cast<unsigned>(hits); z != 0; z &= z - 1) {
      const int l = std::countr_zero(z);
      take(lambda[l], blk.index[l], &blk, l, t_best);
    }
  }
  /// The lanes `redo` of a block decided by ray_triangle (on ray_of()'s WatertightRay, against
  /// t_best): those crossed, their λ in `lambda`. Out of line and cold (0.17% of a terrain_1m
  /// ray's blocks have such a lane): inlined, GCC hoisted the scalar test's address arithmetic
  /// into every leaf's preamble, about 25 instructions a leaf (callgrind, 2026-12-07: a
  /// terrain_1m ray 1,729 → 1,679 instructions).
  template <class RayOf>
  [[gnu::noinline, gnu::cold]] int redo_lanes(const TriangleBlock4<S>& blk, int redo, S lambda[4], S t_best, const RayOf& ray_of) const {
    const auto& w = ray_of();
    int hits = 0;
    for (unsigned z = static_cast<unsigned>(redo); z != 0; z &= z - 1) {
      const int l = std::countr_zero(z);
      if (ray_triangle(w, blk.lane(l), back_faces, t_best, lambda[l])) hits |= 1 << l;
    }
    return hits;
  }
  /// mesh_ray_cast's answer once the search is over (t_best: the best λ), written into `out`, the
  /// MeshRayHit ray_needs_search began: no second one built and copied (ray_needs_search's comment).
  /// `normal`: whether to compute the hit's normal (MeshRayOptions::normal; else it stays zero).
  void answer(const MeshTree<S>& m, const Ray<S>& ray, S t_best, bool normal, MeshRayHit<S>& out) const {
    out.status = Status::miss;
    if (!have) return;
    out.status = Status::hit;
    out.lambda = t_best;
    out.point = ray.origin + t_best * ray.direction;
    out.triangle = best_tri;
    if (normal) out.normal = front_normal(m);
  }
  /// The hit triangle's unit front normal (have: a crossing was found).
  [[nodiscard]] Vec3<S> front_normal(const MeshTree<S>& m) const {
    if (best_blk == nullptr) return m.normals[best_tri];
    Vec3<double> n;
    const PackedTriangle<S> t = best_blk->lane(best_lane);
    if (!unit_front_normal(t.a.template cast<double>(), t.b.template cast<double>(), t.c.template cast<double>(), n))
      n = m.normals[best_tri].template cast<double>();  // not reached: blocks hold no degenerate triangle
    return n.template cast<S>();
  }
};

/// A packet's watertight set-ups as leaf_rays reads them, from each query's own WatertightRay
/// (the set-up ray by ray).
template <class S>
struct QueryFrames {
  const RayQuery<S>* q;
  [[nodiscard]] bool same_frame(int a, int b) const {
    return q[a].wr.kx == q[b].wr.kx && q[a].wr.ky == q[b].wr.ky && q[a].wr.kz == q[b].wr.kz;
  }
  /// The same frame from the same origin, to the bit: the same BlockTerms.
  [[nodiscard]] bool same_terms(int a, int b) const {
    const WatertightRay<S>&ra = q[a].wr, &rb = q[b].wr;
    return same_frame(a, b) && same_bits(ra.ox, rb.ox) && same_bits(ra.oy, rb.oy) && same_bits(ra.oz, rb.oz);
  }
  template <class L8>
  [[nodiscard]] RayLanes<L8> pair(int a, int b) const {
    const WatertightRay<S>&ra = q[a].wr, &rb = q[b].wr;
    return {L8::pair(ra.ox, rb.ox), L8::pair(ra.oy, rb.oy), L8::pair(ra.oz, rb.oz), L8::pair(ra.sx, rb.sx),
            L8::pair(ra.sy, rb.sy), L8::pair(ra.sz, rb.sz), L8::pair(ra.smax, rb.smax), ra.kx, ra.ky, ra.kz};
  }
  [[nodiscard]] RayLanes<Lanes4<S>> lanes4(int r) const { return RayLanes<Lanes4<S>>::of(q[r].wr); }
  [[nodiscard]] const WatertightRay<S>& ray(int r) const { return q[r].wr; }
};

#if IMPACT_PACKET_AVX512
/// The same from the packet set-up's arrays (set_up_packet16), read in place: copying them into
/// each query right after the set-up's sixteen-lane stores cost about 4 ns a camera ray at
/// level_1m (each copy's loads waited on those stores). Ray r is rays[at[r]].
struct PacketFrameSource {
  const PacketFrames& f;
  const RayRowsIn<float>& rays;
  const std::size_t* at;
  [[nodiscard]] bool same_frame(int a, int b) const { return f.frame[a] == f.frame[b]; }
  /// The same frame from the same origin, to the bit: the same BlockTerms. A packet set up by
  /// set_up_packet16 has one origin, so rays of the same frame have the same ox, oy, oz.
  [[nodiscard]] bool same_terms(int a, int b) const { return same_frame(a, b); }
  template <class L8>
  [[nodiscard]] RayLanes<L8> pair(int a, int b) const {
    return {L8::pair(f.ox[a], f.ox[b]), L8::pair(f.oy[a], f.oy[b]), L8::pair(f.oz[a], f.oz[b]), L8::pair(f.sx[a], f.sx[b]),
            L8::pair(f.sy[a], f.sy[b]), L8::pair(f.sz[a], f.sz[b]), L8::pair(f.smax[a], f.smax[b]), f.kx[a], f.ky[a], f.kz[a]};
  }
  [[nodiscard]] RayLanes<Lanes4<float>> lanes4(int r) const {
    using L = Lanes4<float>;
    return {L::splat(f.ox[r]), L::splat(f.oy[r]), L::splat(f.oz[r]), L::splat(f.sx[r]), L::splat(f.sy[r]), L::splat(f.sz[r]),
            L::splat(f.smax[r]), f.kx[r], f.ky[r], f.kz[r]};
  }
  [[nodiscard]] WatertightRay<float> ray(int r) const { return f.ray(r, rays[at[r]]); }
};
#endif

/// Whether a mesh ray with this direction needs a search, its origin and max_lambda already
/// checked (`rest_ok`: both good; rays that share them are checked once); when not, `answer` is
/// its status: invalid_input (a field not finite or too large) or a miss (a zero direction goes
/// nowhere).
template <class S>
bool direction_searchable(bool rest_ok, const Vec3<S>& direction, Status& answer) {
  if (!rest_ok || !detail::point_ok(direction)) [[unlikely]] {
    answer = Status::invalid_input;
    return false;
  }
  answer = Status::miss;
  return direction != Vec3<S>::Zero();
}
/// Whether a mesh ray needs a search (ray_input_ok, and a direction that is not zero); when not,
/// `answer` is its status, as direction_searchable's.
template <class S>
bool ray_searchable(const Ray<S>& ray, const MeshRayOptions<S>& opt, Status& answer) {
  return direction_searchable(ray_origin_ok(ray.origin, opt), ray.direction, answer);
}

/// Rows first, first + 1, … of a batch's outputs (batch.hpp), where mesh_ray_cast_many writes
/// ray i's answer at row first + i, column by column and only the columns asked for: what
/// mesh_ray_cast answers, bit for bit, less the invalid input's message (a batch has no column
/// for it) and a mesh's room (0).
template <class S>
struct RayRowsOut {
  MeshRayRows<S>& rows;
  Eigen::Index first = 0;
  bool normal = true;  ///< MeshRayOptions::normal: false writes zero normal rows, as mesh_ray_cast leaves them.
  /// Ray i's answer without a crossing (invalid_input or miss): every other column zero.
  void none(std::size_t i, Status s) const { write(i, s, S(0), Vec3<S>::Zero(), std::uint32_t(0), nullptr); }
  /// Ray i's answer after its search (q: the best crossing found, t_best its λ).
  void put(std::size_t i, const MeshTree<S>& m, const RayQuery<S>& q, const Ray<S>& ray, S t_best) const {
    if (!q.have) return none(i, Status::miss);
    write(i, Status::hit, t_best, ray.origin + t_best * ray.direction, q.best_tri, &q, &m);
  }
  /// Whether put_rows can answer: every column but the normal, which needs each ray's query
  /// (unless it is not computed: zero rows).
  [[nodiscard]] bool by_rows() const { return rows.normal.rows() == 0 || !normal; }
  /// Rays i0 … i0 + n − 1 of `rays` (row first + i0 on) at once, each from its status, its λ and
  /// its triangle (both 0 unless a hit): what none and put write, bit for bit (the point is the
  /// same o + λ·d), column by column in loops without a branch a ray. Normals only when they are
  /// not computed (zero rows; by_rows).
  void put_rows(std::size_t i0, std::size_t n, const std::uint8_t* status, const S* lambda, const std::uint32_t* tri,
                const RayRowsIn<S>& rays) const {
    const auto r0 = static_cast<std::size_t>(first) + i0;
    if (!rows.status.empty()) std::copy(status, status + n, rows.status.data() + r0);
    if (rows.lambda.rows() != 0) std::copy(lambda, lambda + n, rows.lambda.data() + r0);
    if (rows.point.rows() != 0) {
      S* point = rows.point.data() + 3 * r0;
      const S* o = rays.origin + i0 * rays.origin_step;
      const S* d = rays.direction + i0 * rays.direction_step;
      constexpr auto kHit = static_cast<std::uint8_t>(Status::hit);
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t k = 0; k < 3; ++k)
          point[3 * j + k] = status[j] == kHit ? o[j * rays.origin_step + k] + lambda[j] * d[j * rays.direction_step + k] : S(0);
    }
    if (!rows.triangle.empty()) std::copy(tri, tri + n, rows.triangle.data() + r0);
    if (!rows.room.empty()) std::fill_n(rows.room.data() + r0, n, 0u);
    if (rows.normal.rows() != 0) rows.normal.middleRows(static_cast<Eigen::Index>(r0), static_cast<Eigen::Index>(n)).setZero();
  }

 private:
  void write(std::size_t i, Status s, S lambda, const Vec3<S>& point, std::uint32_t tri, const RayQuery<S>* q,
             const MeshTree<S>* m = nullptr) const {
    const Eigen::Index r = first + static_cast<Eigen::Index>(i);
    detail::put_status(rows.status, r, s);
    detail::put(rows.lambda, r, lambda);
    detail::put(rows.point, r, point);
    if (rows.normal.rows() != 0)  // the normal computed only where asked
      detail::put(rows.normal, r, q != nullptr && normal ? q->front_normal(*m) : Vec3<S>(Vec3<S>::Zero()));
    detail::put_index(rows.triangle, r, tri);
    detail::put_index(rows.room, r, 0u);
  }
};

/// Checks a mesh ray and gives the answers that need no search: false when `out` (a default
/// MeshRayHit) is already the answer (invalid input; a zero direction, a miss); true when `out`
/// is a miss yet to be searched. `out` is set field by field, not assigned a new MeshRayHit: the
/// temporary's copy stored and reloaded overlapping pieces of the stack (a store-forwarding stall:
/// two thirds of this function's 4% of a level_1m ray's time in perf, 2026-12-06).
template <class S>
bool ray_needs_search(const Ray<S>& ray, const MeshRayOptions<S>& opt, MeshRayHit<S>& out) {
  if (ray_searchable(ray, opt, out.status)) [[likely]]
    return true;
  if (out.status == Status::invalid_input) out.error = ray_input_error(ray, opt);
  return false;
}

/// One ray's search (a searchable ray): q gets its best crossing, t_best that crossing's λ
/// (opt.max_lambda when none).
template <class S>
void search_one(const TriangleMesh<S>& mesh, const Ray<S>& ray, const MeshRayOptions<S>& opt, RayQuery<S>& q, S& t_best) {
  const MeshTree<S>& m = detail::MeshAccess::tree(mesh);
  q = RayQuery<S>(ray, opt.back_faces);
  t_best = opt.max_lambda;
  if (opt.brute_force) {
    brute(mesh, t_best, [&](const PackedTriangle<S>& tri, S& tb) {
      S lambda;
      if (ray_triangle(q.wr, tri, opt.back_faces, tb, lambda)) q.take(lambda, tri.index, nullptr, 0, tb);
    });
  } else {
    walk_ray(m, ray.origin, ray.direction, t_best, [&](std::uint32_t first, std::uint32_t count, S& tb) { q.leaf(m, first, count, tb); });
  }
}

}  // namespace mesh_detail

template <class S>
MeshRayHit<S> mesh_ray_cast(const TriangleMesh<S>& mesh, const Ray<S>& ray, const MeshRayOptions<S>& opt) {
  MeshRayHit<S> out;
  if (!mesh_detail::ray_needs_search(ray, opt, out)) return out;
  mesh_detail::RayQuery<S> q;
  S best;
  mesh_detail::search_one(mesh, ray, opt, q, best);
  q.answer(detail::MeshAccess::tree(mesh), ray, best, opt.normal, out);
  return out;
}

namespace mesh_detail {

#if IMPACT_PACKET_AVX512
/// ray_cast_packets' first loop on sixteen float rays a step (AVX-512), for rays[0 … n) up to the
/// last whole sixteen: key[i] their sign group (bit k: std::signbit of d[k]) where ok (the
/// direction within ±lim on each axis and not zero, and shared_ok), else 0xffff; the directions
/// side by side in dx, dy, dz; `searched` grows by the rays ok. Returns how many rays it did (a
/// multiple of sixteen).
IMPACT_TARGET_AVX512 inline std::size_t check_directions16(const RayRowsIn<float>& rays, std::size_t n, bool shared_ok, float lim,
                                                           std::uint16_t* key, float* dx, float* dy, float* dz,
                                                           std::size_t& searched) {
  // Lane j reads the floats of ray i + j's direction, rays.direction_step apart.
  const __m512i step = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                          _mm512_set1_epi32(static_cast<int>(rays.direction_step)));
  const __m512 lim16 = _mm512_set1_ps(lim), zero = _mm512_setzero_ps();
  const __mmask16 shared = shared_ok ? __mmask16(0xffff) : __mmask16(0);
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const float* base = rays.direction + i * rays.direction_step;
    __m512 d[3];
    __mmask16 ok = shared, nonzero = 0;
    __m512i group = _mm512_setzero_si512();
    for (int k = 0; k < 3; ++k) {
      d[k] = _mm512_mask_i32gather_ps(zero, __mmask16(0xffff), _mm512_add_epi32(step, _mm512_set1_epi32(k)), base, 4);
      ok &= _mm512_cmp_ps_mask(_mm512_abs_ps(d[k]), lim16, _CMP_LE_OQ);
      nonzero |= _mm512_cmp_ps_mask(d[k], zero, _CMP_NEQ_UQ);
      // std::signbit: the sign bit itself (−0 too) as bit k.
      group = _mm512_mask_or_epi32(group, _mm512_movepi32_mask(_mm512_castps_si512(d[k])), group, _mm512_set1_epi32(1 << k));
    }
    ok &= nonzero;
    _mm512_storeu_ps(dx + i, d[0]);
    _mm512_storeu_ps(dy + i, d[1]);
    _mm512_storeu_ps(dz + i, d[2]);
    const __m512i keys = _mm512_mask_blend_epi32(ok, _mm512_set1_epi32(0xffff), group);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(key + i), _mm512_maskz_cvtepi32_epi16(__mmask16(0xffff), keys));
    searched += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(ok)));
  }
  return i;
}
#endif

/// A direction's sign group, 0 … 7: bit k is the sign bit of component k (std::signbit: −0 too).
template <class T>
int sign_group_of(T x, T y, T z) {
  return int(std::signbit(x)) | int(std::signbit(y)) << 1 | int(std::signbit(z)) << 2;
}

/// ray_cast_packets' arrays for up to kOrderAtOnce rays at once: about 300 KB, one set per
/// thread (in no thread's stack, some of which are small; no allocation after a thread's first).
template <class S>
struct PacketPiece {
  std::uint16_t key[kOrderAtOnce], order[kOrderAtOnce + kPacketRays];  // a packet's gather reads kPacketRays entries
  alignas(64) float dx[kOrderAtOnce], dy[kOrderAtOnce], dz[kOrderAtOnce];
  alignas(64) float u[kOrderAtOnce], v[kOrderAtOnce];  // order_by_direction_grid's
  std::uint8_t cut[kOrderAtOnce];
  std::uint8_t answer_status[kOrderAtOnce];
  S answer_lambda[kOrderAtOnce];
  std::uint32_t answer_tri[kOrderAtOnce];
};

/// Rays from one origin walked as packets (packet_walk.hpp): ray i's answer is mesh_ray_cast's,
/// bit for bit. The tree's root is a wide node. Up to kPackAtOnce rays at a time are ordered into
/// square patches of neighbouring directions, each of one sign group (packet_order.hpp: a camera's
/// rows by index, other directions by a grid over them; no allocation), and packed in that order.
template <class S>
void ray_cast_packets(const MeshTree<S>& m, const RayRowsIn<S>& rays, const MeshRayOptions<S>& opt,
                      const RayRowsOut<S>& out) {
  constexpr std::size_t kPackAtOnce = kOrderAtOnce;
  RayQuery<S> q[kPacketRays];
  S t_best[kPacketRays];
  std::size_t at[kPacketRays];
  RayPacket p;
#if IMPACT_PACKET_AVX512
  PacketFrames frames;
  alignas(64) float dirs[3][kPacketRays];
#endif
  thread_local PacketPiece<S> piece;
  auto& [key, order, dx, dy, dz, u, v, cut, answer_status, answer_lambda, answer_tri] = piece;
  // The piece's answers, written to the rows at its end (RayRowsOut::put_rows) unless normals are
  // asked for (then each ray's as its packet ends).
  const bool by_rows = out.by_rows();
  // The rays share their origin (to the bit) and max_lambda: those are checked once.
  const bool shared_ok = rays.size() != 0 && ray_origin_ok(rays.origin_of(0), opt);
  for (std::size_t base = 0; base < rays.size(); base += kPackAtOnce) {
    const std::size_t n = std::min(kPackAtOnce, rays.size() - base);
    // The rays to search and their sign groups, without a branch per ray (sixteen rays a step
    // with AVX-512, the rest one by one): a ray is searched when its direction is within range
    // and not zero (its origin and max_lambda, shared, are checked once); the others (key
    // 0xffff) are answered below. Their directions, in float side by side, feed the grouping only.
    constexpr S lim = Tolerances<S>::max_magnitude;
    std::size_t searched = 0, from = 0;
#if IMPACT_PACKET_AVX512
    if constexpr (std::is_same_v<S, float>)
      if (packet_lanes() == 16) from = check_directions16(rays.rows(base, n), n, shared_ok, lim, key, dx, dy, dz, searched);
#endif
    for (std::size_t i = from; i < n; ++i) {
      const Vec3<S> d = rays.direction_of(base + i);
      const int ok = int(shared_ok) & int(std::abs(d[0]) <= lim) & int(std::abs(d[1]) <= lim) & int(std::abs(d[2]) <= lim) &
                     (int(d[0] != S(0)) | int(d[1] != S(0)) | int(d[2] != S(0)));  // bitwise: no branch
      const int group = sign_group_of(d[0], d[1], d[2]);
      key[i] = static_cast<std::uint16_t>(ok != 0 ? group : 0xffff);
      searched += static_cast<std::size_t>(ok);
      dx[i] = static_cast<float>(d[0]), dy[i] = static_cast<float>(d[1]), dz[i] = static_cast<float>(d[2]);
    }
    // The others answered now.
    if (searched != n)
      for (std::size_t i = 0; i < n; ++i)
        if (key[i] == 0xffff) {
          Status st;
          (void)direction_searchable(shared_ok, rays.direction_of(base + i), st);
          if (!by_rows) out.none(base + i, st);
          answer_status[i] = static_cast<std::uint8_t>(st), answer_lambda[i] = S(0), answer_tri[i] = 0;
        }
    if (searched == 0) {
      if (by_rows) out.put_rows(base, n, answer_status, answer_lambda, answer_tri, rays);
      continue;
    }
    // The order in which they form packets (packet_order.hpp): a camera's rows by index, other
    // directions by a grid over them.
    if (!order_camera_rows(dx, dy, dz, key, n, searched, kPacketRays, order, cut)) {
      std::size_t first = 0, last = n - 1;
      if (searched != n) {
        // Their directions take the first searched one's place (they are out of the grid: only
        // its bounds and the projection's test read them).
        while (key[first] == 0xffff) ++first;
        while (key[last] == 0xffff) --last;
        for (std::size_t i = 0; i < n; ++i)
          if (key[i] == 0xffff) dx[i] = dx[first], dy[i] = dy[first], dz[i] = dz[first];
      }
      order_by_direction_grid(dx, dy, dz, key, n, searched, first, last, order, u, v);
      // The grid overwrote the keys with cells: a searched ray's sign group is read again from
      // its float direction (the conversion keeps every sign, −0 too). No lambda: Clang before 16
      // refuses a lambda's use of a structured binding (dx, dy, dz).
      cut[0] = 1;
      for (std::size_t k = 1; k < searched; ++k) {
        const std::size_t i = order[k], j = order[k - 1];
        cut[k] = sign_group_of(dx[i], dy[i], dz[i]) != sign_group_of(dx[j], dy[j], dz[j]);
      }
    }
    // A packet's rays share their direction signs (so the near and far planes of each axis): a
    // ray of another sign group starts the next packet, and so does a new patch of a camera's
    // rows; either way cut[k] is set there. A packet is the rays from one cut to the next, at most
    // kPacketRays of them.
    for (std::size_t k = 0; k < searched;) {
      std::size_t end = k + 1;
      while (end < searched && end - k < kPacketRays && cut[end] == 0) ++end;
      p.n = 0;
      [[maybe_unused]] bool set_up16 = false;  // the frames in `frames` (else in each query)
#if IMPACT_PACKET_AVX512
      if constexpr (std::is_same_v<S, float>) {
        if (packet_lanes() == 16) {
          set_up16 = true;
          // The rays' set-ups sixteen at a time (packet_setup.hpp), from their directions side by
          // side (S is float: d as it came), gathered sixteen at a time.
          const int nr = static_cast<int>(end - k);
          for (int r = 0; r < nr; ++r) at[r] = base + order[k + static_cast<std::size_t>(r)];
          gather_directions16(order + k, nr, dx, dy, dz, dirs);
          k = end;
          set_up_packet16(rays.origin_of(0), dirs[0], dirs[1], dirs[2], nr, opt.max_lambda, p, frames);
          // The watertight frames stay in `frames` (PacketFrameSource reads them in place).
          for (int r = 0; r < nr; ++r) {
            q[r].start(opt.back_faces);
            t_best[r] = opt.max_lambda;
          }
          PacketLanes16::close(p);  // the lanes from nr on copy ray nr − 1 already
        }
      }
#endif
      if (p.n == 0) {  // not set up above: ray by ray, with the constructors themselves
        for (; k < end; ++k) {
          const std::size_t i = base + order[k];
          const Ray<S> ray = rays[i];
          const Segment3<S> seg(ray.origin, ray.direction, Vec3<S>::Zero(), Vec3<S>::Zero());
          const int r = p.n;
          at[r] = i;
          q[r] = RayQuery<S>(ray, opt.back_faces);
          t_best[r] = opt.max_lambda;
          p.add(seg, t_best[r]);
        }
        p.close();
      }
      // Every ray walks from the root (whose own box is not tested: the first step's tests of its
      // children's boxes subsume it, as walk_start's note says for a single ray).
      const PacketMask all = p.n >= kPacketRays ? ~PacketMask(0) : (PacketMask(1) << p.n) - 1;
      walk_packet(m, p, all, t_best, [&](auto ops, PacketMask leaf_rays, std::uint32_t first, std::uint32_t count_) {
#if IMPACT_PACKET_AVX512
          if constexpr (std::is_same_v<S, float>)
            if (set_up16) {
              RayQuery<S>::leaf_rays(ops, m, first, count_, leaf_rays, q, t_best, PacketFrameSource{frames, rays, at});
              return;
            }
#endif
          RayQuery<S>::leaf_rays(ops, m, first, count_, leaf_rays, q, t_best, QueryFrames<S>{q});
        });
      if (!by_rows) {
        for (int r = 0; r < p.n; ++r) out.put(at[r], m, q[r], rays[at[r]], t_best[r]);
        continue;
      }
      for (int r = 0; r < p.n; ++r) {
        const std::size_t j = at[r] - base;
        answer_status[j] = static_cast<std::uint8_t>(q[r].have ? Status::hit : Status::miss);
        answer_lambda[j] = q[r].have ? t_best[r] : S(0);
        answer_tri[j] = q[r].best_tri;  // 0 unless a hit (RayQuery::start)
      }
    }
    if (by_rows) out.put_rows(base, n, answer_status, answer_lambda, answer_tri, rays);
  }
}

template <class S>
void mesh_ray_cast_many(const TriangleMesh<S>& mesh, const RayRowsIn<S>& rays, const MeshRayOptions<S>& opt,
                        MeshRayRows<S>& rows, Eigen::Index first) {
  const RayRowsOut<S> out{rows, first, opt.normal};
  // Rays from one origin (a camera, a lidar) enter nearly the same nodes: they walk as packets
  // (a node reached once for all of them). Other rays interleave their walks. A tree of one leaf
  // has no walk to share.
  const MeshTree<S>& m = detail::MeshAccess::tree(mesh);
  // One origin to the bit: the packets' set-up takes it once.
  const bool one_origin = rays.one_origin();
  if (opt.brute_force || (one_origin && (m.nodes.empty() || m.nodes[0].count > 0))) {
    for (std::size_t i = 0; i < rays.size(); ++i) {
      const Ray<S> ray = rays[i];
      if (Status s; !ray_searchable(ray, opt, s)) {
        out.none(i, s);
        continue;
      }
      RayQuery<S> q;
      S best;
      search_one(mesh, ray, opt, q, best);
      out.put(i, m, q, ray, best);
    }
    return;
  }
  if (one_origin) {
    ray_cast_packets(m, rays, opt, out);
    return;
  }
  constexpr std::size_t kAtOnce = 64;  // rays set up at a time (their RayQuery on the stack)
  RayQuery<S> queries[kAtOnce];
  bool walked[kAtOnce];
  for (std::size_t base = 0; base < rays.size(); base += kAtOnce) {
    const std::size_t n = std::min(kAtOnce, rays.size() - base);
    walk_leaves_interleaved(
        m, n,
        [&](std::size_t i, Segment3<S>& seg, S& t_best) {
          const Ray<S> ray = rays[base + i];
          Status s;
          walked[i] = ray_searchable(ray, opt, s);
          if (!walked[i]) {
            out.none(base + i, s);
            return false;
          }
          queries[i] = RayQuery<S>(ray, opt.back_faces);
          seg = Segment3<S>(ray.origin, ray.direction, Vec3<S>::Zero(), Vec3<S>::Zero());
          t_best = opt.max_lambda;
          return true;
        },
        [&](std::size_t i, std::uint32_t first, std::uint32_t count, S& t_best) { queries[i].leaf(m, first, count, t_best); },
        [&](std::size_t i, S t_best) {
          if (walked[i]) out.put(base + i, m, queries[i], rays[base + i], t_best);
        });
  }
}

}  // namespace mesh_detail

template <class S>
MeshCastHit<S> mesh_sphere_cast(const TriangleMesh<S>& m, const Vec3<S>& center, S radius, const Vec3<S>& path,
                                const MeshSphereOptions<S>& opt) {
  using namespace mesh_detail;
  MeshCastHit<S> out;
  if (auto e = sphere_input_error(center, radius, path, opt); !e.empty()) return out.error = std::move(e), out;
  return sphere_cast_core(m, center, radius, path, opt, std::clamp(opt.max_toi, S(0), S(1)));
}

template <class S>
MeshCastHit<S> mesh_spheres_cast(const TriangleMesh<S>& m, std::span<const SphereInBody<S>> spheres,
                                 const Vec3<S>& path, const MeshSphereOptions<S>& opt) {
  using namespace mesh_detail;
  MeshCastHit<S> best;
  best.status = Status::miss;
  if (auto e = sphere_input_error(Vec3<S>::Zero().eval(), S(0), path, opt); !e.empty())
    return best.status = Status::invalid_input, best.error = std::move(e), best;
  for (std::size_t i = 0; i < spheres.size(); ++i) {
    const Vec3<S>& c = spheres[i].center;
    const S r = spheres[i].radius;
    // The field names are built only for an error: no allocation per query.
    if (detail::point_ok(c) && detail::size_ok(r)) continue;
    const std::string f = "spheres." + std::to_string(i);
    std::string e = detail::check_vector(c, f + ".center");
    if (e.empty()) e = detail::check_scalar(r, f + ".radius");
    return best.status = Status::invalid_input, best.error = e, best;
  }
  S limit = std::clamp(opt.max_toi, S(0), S(1));
  for (std::size_t i = 0; i < spheres.size(); ++i) {
    MeshCastHit<S> h = sphere_cast_core(m, spheres[i].center, spheres[i].radius, path, opt, limit);
    h.sphere = static_cast<std::uint32_t>(i);
    if (h.status == Status::initially_overlapping) return h;
    if (h.status == Status::hit && (best.status == Status::miss || h.contact_time < best.contact_time)) {
      best = h;
      limit = h.contact_time;  // later spheres only need to beat this (early out in their walk)
    }
  }
  return best;
}

template <class S>
MeshCastHit<S> mesh_shape_cast(const TriangleMesh<S>& mesh, const Shape<S>& shape, const Pose<S>& pose,
                               const Vec3<S>& velocity, const MeshShapeOptions<S>& opt) {
  const MeshTree<S>& m = detail::MeshAccess::tree(mesh);
  using namespace mesh_detail;
  MeshCastHit<S> out;
  if (auto e = validate(shape); !e.empty()) return out.error = "shape." + e, out;
  if (auto e = validate(pose); !e.empty()) return out.error = "pose." + e, out;
  if (auto e = detail::check_vector(velocity, "velocity"); !e.empty()) return out.error = e, out;
  if (auto e = detail::check_scalar(opt.target_distance, "target_distance"); !e.empty()) return out.error = e, out;
  if (auto e = detail::check_scalar(opt.tolerance, "tolerance", true); !e.empty()) return out.error = e, out;
  // A sphere or a point is the exact sphere cast with its radius grown by the target distance
  // (its centre is the shape's origin, so the back-face rule is the same); the GJK ray cast below
  // would answer up to its tolerance early.
  const Sphere<S>* ball = std::get_if<Sphere<S>>(&shape);
  if (ball || std::holds_alternative<Point<S>>(shape)) {
    MeshSphereOptions<S> so;
    so.back_faces = opt.back_faces;
    so.brute_force = opt.brute_force;
    return sphere_cast_core(mesh, pose.position, (ball ? ball->radius : S(0)) + opt.target_distance, velocity, so, S(1));
  }
  out.status = Status::miss;
  // The shape's box relative to its origin (world axes), grown by the target distance and twice
  // the tolerance: a cast reports a time at which the shape is within target + tolerance of its
  // triangle, which can come before the shape's box (grown by the target alone) meets the
  // triangle's; the walk, holding the best time so far, must not drop a bin such a triangle is
  // in (float, a cone: the tree chose another triangle of the same time than brute force).
  Vec3<S> ext_lo, ext_hi;
  const Mat3<S> rot = Transform<S>::unit(pose.rotation).toRotationMatrix();
  const S grow = opt.target_distance + S(2) * opt.tolerance;
  for (int k = 0; k < 3; ++k) {
    const Vec3<S> axis = rot.row(k).transpose();  // world axis k in the local frame
    ext_hi[k] = rot.row(k).dot(support(shape, axis)) + grow;
    ext_lo[k] = rot.row(k).dot(support(shape, Vec3<S>(-axis))) - grow;
  }
  ShapeCastOptions<S> copt;
  copt.target_distance = opt.target_distance;
  copt.tolerance = opt.tolerance;
  const Vec3<S> zero = Vec3<S>::Zero();
  const Pose<S> identity{};
  const Vec3<S>& x0 = pose.position;
  // 1. Initial overlaps (within the target at t = 0), then 2. the sweep; one walk each.
  for (int pass = 0; pass < 2; ++pass) {
    bool have = false;
    CastHit<S> hit;
    S best = pass == 0 ? S(0) : S(1);
    auto visit = [&](const PackedTriangle<S>& tri, S& t_best) {
      const Vec3<S>& n = m.normals[tri.index];
      const S off = m.offsets[tri.index];
      const Shape<S> t{Triangle<S>{tri.a, tri.b, tri.c}};
      const CastHit<S> h = shape_cast<S>(shape, pose, pass == 0 ? zero : velocity, t, identity, zero, copt);
      if (h.status == Status::invalid_input || h.status == Status::miss) return;
      const bool overlap = h.status == Status::initially_overlapping;
      if (pass == 0 ? !overlap : overlap) return;  // pass 1 skips triangles overlapped (and ignored) at t = 0
      if (opt.back_faces == BackFaces::ignore && n.dot(x0 + h.toi * velocity) - off < S(0)) return;
      if (!better(h.toi, tri.index, t_best, out.triangle, have)) return;
      have = true;
      hit = h;
      out.triangle = tri.index;
      if (pass == 1) t_best = h.toi;
    };
    if (opt.brute_force) {
      brute(mesh, best, visit);
    } else {
      // The shape at x spans [x + ext_lo, x + ext_hi], so it meets the box [lo, hi] iff x is
      // in [lo − ext_hi, hi − ext_lo]: the box grows by ext_hi below and −ext_lo above. (The
      // mirror image was used until fuzzing met a cone, whose extents are not symmetric.)
      const Segment3<S> seg(x0, pass == 0 ? zero : velocity, ext_hi, Vec3<S>(-ext_lo));
      walk(m, seg, best, visit);
    }
    if (!have) continue;
    out.status = pass == 0 ? Status::initially_overlapping : hit.status;
    out.toi = pass == 0 ? S(0) : hit.toi;
    out.contact_time = out.toi;
    out.point = hit.point_b;
    const Vec3<S>& n = m.normals[out.triangle];
    out.normal = hit.normal.squaredNorm() > S(0) ? Vec3<S>(-hit.normal)
                                                  : (n.dot(x0 + out.toi * velocity) - m.offsets[out.triangle] >= S(0)
                                                         ? n
                                                         : Vec3<S>(-n));
    out.feature = MeshFeature::face;
    return out;
  }
  return out;
}

}  // namespace impact

#define IMPACT_MESH_INSTANTIATE(S)                                                                                  \
  template class TriangleMesh<S>;                                                                                   \
  template std::string build_mesh<S>(TriangleMesh<S>&, const MeshBuildOptions&);                                   \
  template MeshRayHit<S> mesh_ray_cast<S>(const TriangleMesh<S>&, const Ray<S>&, const MeshRayOptions<S>&);        \
  template void mesh_detail::mesh_ray_cast_many<S>(const TriangleMesh<S>&, const mesh_detail::RayRowsIn<S>&,          \
                                                   const MeshRayOptions<S>&, MeshRayRows<S>&, Eigen::Index);         \
  template MeshCastHit<S> mesh_sphere_cast<S>(const TriangleMesh<S>&, const Vec3<S>&, S, const Vec3<S>&,          \
                                              const MeshSphereOptions<S>&);                                        \
  template MeshCastHit<S> mesh_spheres_cast<S>(const TriangleMesh<S>&, std::span<const SphereInBody<S>>,          \
                                               const Vec3<S>&, const MeshSphereOptions<S>&);                       \
  template MeshCastHit<S> mesh_shape_cast<S>(const TriangleMesh<S>&, const Shape<S>&, const Pose<S>&,             \
                                             const Vec3<S>&, const MeshShapeOptions<S>&);
