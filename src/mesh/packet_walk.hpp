#pragma once
// impact — mesh/packet_walk.hpp: a packet of coherent segments (a camera's or a lidar's rays from
// one origin) walking the tree together.
//
// Rays from one origin through neighbouring pixels enter nearly the same nodes. Walked one by one,
// each ray pays for every node it enters: eight box tests, the sort of the children entered, the
// stack. Walked as a packet (Wald, Slusallek, Benthin and Wagner, "Interactive rendering with
// coherent ray tracing", 2001; with the interval test of Wald, Boulos and Shirley, "Ray tracing
// deformable scenes using dynamic bounding volume hierarchies", 2007), a node is reached once for
// all the rays that enter it:
//   1. One interval test per child box for the whole packet: the packet's reciprocal directions
//      and shifted origins as intervals, evaluated at the corners that bound every ray's own slab
//      test. A box it rejects is rejected by every ray's test.
//   2. The boxes it keeps are tested ray by ray, four rays per SIMD step, with each ray's own
//      best time: exactly the test a single walk makes (Segment3::entry_wide), lane for lane.
//   3. The children some ray enters are visited nearest first (by the interval's entry bound),
//      each with the mask of the rays that enter it; a leaf is tested by those rays only.
// So each ray reaches every leaf its single walk would reach with its best time at least as low,
// and takes the same triangle test on it: the answers are the single walk's, bit for bit (the
// best is the least (λ, index) over the triangles tested, whatever their order).
#include "mesh/bin_tree_walk.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace impact::mesh_detail {

/// Rays per packet (at most the bits of a PacketMask). Sixteen measured best of 16, 32 and 64 on
/// the 256×256 cameras of bench/ (consecutive rays of a row: the wider the strip, the less the
/// interval test culls; terrain_1m 310, 338 and 362 ns a ray).
inline constexpr int kPacketRays = 16;
using PacketMask = std::uint32_t;
static_assert(kPacketRays <= 32 && kPacketRays % 4 == 0);

/// The packet's rays as the wide nodes' float slab tests see them (Segment3's l_inv, l_near,
/// l_far), side by side, and the interval bounds over them. All rays of a packet have the same
/// direction signs, so the same near and far planes per axis.
struct RayPacket {
  int n = 0;                                   ///< Rays in the packet (≤ kPacketRays).
  alignas(16) float inv[3][kPacketRays];       ///< Reciprocal direction per axis and ray.
  alignas(16) float near_o[3][kPacketRays];    ///< Origin shifted by the near plane's growth.
  alignas(16) float far_o[3][kPacketRays];     ///< Origin shifted by the far plane's growth.
  alignas(16) float tm[kPacketRays];           ///< Each ray's best time rounded up to float.
  std::uint32_t near_at[3] = {}, far_at[3] = {};  ///< Byte offsets of the planes in a MeshWideNode.
  // Interval bounds: inv in [inv_lo, inv_hi]; near_b, far_b the shifted origins at which the
  // entry is least and the exit greatest; tm_hi ≥ every tm.
  Lanes4<float> inv_lo[3], inv_hi[3], near_b[3], far_b[3];
  float tm_hi = 0.0f;

  /// The best time t rounded up to float (entry_wide's far bound).
  template <class S>
  static float round_up(S t) {
    float f = static_cast<float>(t);
    if (S(f) < t) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
  }
  /// True when seg has the packet's direction signs (always true for an empty packet).
  template <class S>
  [[nodiscard]] bool fits(const Segment3<S>& seg) const {
    return n == 0 || (seg.near_at[0] == near_at[0] && seg.near_at[1] == near_at[1] && seg.near_at[2] == near_at[2]);
  }
  /// Appends a segment (the packet not full, and fits(seg)) with its best time.
  template <class S>
  void add(const Segment3<S>& seg, S t_best) {
    for (int k = 0; k < 3; ++k) {
      float x[4];
      seg.l_inv[k].store(x), inv[k][n] = x[0];
      seg.l_near[k].store(x), near_o[k][n] = x[0];
      seg.l_far[k].store(x), far_o[k][n] = x[0];
      near_at[k] = seg.near_at[k];
      far_at[k] = seg.far_at[k];
    }
    tm[n] = round_up(t_best);
    ++n;
  }
  /// Sets the interval bounds once the rays are in, and pads the lanes up to a multiple of four
  /// with copies of the last ray (never in a mask).
  void close() {
    for (int i = n; i % 4 != 0; ++i) {
      for (int k = 0; k < 3; ++k) inv[k][i] = inv[k][n - 1], near_o[k][i] = near_o[k][n - 1], far_o[k][i] = far_o[k][n - 1];
      tm[i] = tm[n - 1];
    }
    for (int k = 0; k < 3; ++k) {
      const bool neg = near_at[k] > far_at[k];  // the near plane is the box's max (hi follows lo): dir < 0
      const auto [ilo, ihi] = std::minmax_element(inv[k], inv[k] + n);
      const auto [nlo, nhi] = std::minmax_element(near_o[k], near_o[k] + n);
      const auto [flo, fhi] = std::minmax_element(far_o[k], far_o[k] + n);
      inv_lo[k] = Lanes4<float>::splat(*ilo);
      inv_hi[k] = Lanes4<float>::splat(*ihi);
      // Entry (nb − near)·inv is least at the greatest near (inv > 0) or the least (inv < 0);
      // exit (fb − far)·inv is greatest at the least far (inv > 0) or the greatest (inv < 0).
      near_b[k] = Lanes4<float>::splat(neg ? *nlo : *nhi);
      far_b[k] = Lanes4<float>::splat(neg ? *fhi : *flo);
    }
    tm_hi = *std::max_element(tm, tm + n);
  }
  /// A ray's best time has dropped to t.
  template <class S>
  void lower(int r, S t) {
    tm[r] = round_up(t);
  }
  /// Recomputes tm_hi over the groups of four rays that hold a ray of `mask`.
  void bound_tm(PacketMask mask) {
    using L = Lanes4<float>;
    L hi = L::splat(0.0f);
    for (PacketMask groups = mask; groups != 0;) {
      const int g = std::countr_zero(groups) & ~3;
      groups &= ~(PacketMask(0xf) << g);
      hi = L::max(hi, L::load(tm + g));
    }
    float h[4];
    hi.store(h);
    tm_hi = std::max(std::max(h[0], h[1]), std::max(h[2], h[3]));
  }
  /// The rays of `mask` whose best time (rounded up) is not before t.
  [[nodiscard]] PacketMask not_before(PacketMask mask, float t) const {
    using L = Lanes4<float>;
    const L lt = L::splat(t);
    PacketMask keep = 0;
    for (PacketMask groups = mask; groups != 0;) {
      const int g = std::countr_zero(groups) & ~3;
      groups &= ~(PacketMask(0xf) << g);
      keep |= PacketMask(static_cast<unsigned>(L::le_mask(lt, L::load(tm + g)))) << g;
    }
    return keep & mask;
  }

  /// Step 1 for the eight boxes of a wide node: bit i set when some ray of the packet may enter
  /// slot i (every ray's entry_wide leaves it clear otherwise); t_lo[i] ≤ every ray's entry.
  template <class S>
  int interval_test(const MeshWideNode<S>& w, float t_lo[kMeshWidth]) const {
    using L = Lanes4<float>;
    int mask = 0;
    for (int g = 0; g < kMeshWidth; g += 4) {
      const char* base = reinterpret_cast<const char*>(&w) + g * sizeof(float);
      L t0 = L::splat(0.0f), t1 = L::splat(tm_hi);
      for (int k = 0; k < 3; ++k) {
        // Rounding is monotone, so each ray's (b − o)·inv lies between the values at the corners.
        const L dn = L::load(reinterpret_cast<const float*>(base + near_at[k])) - near_b[k];
        const L df = L::load(reinterpret_cast<const float*>(base + far_at[k])) - far_b[k];
        t0 = L::max(t0, L::min(dn * inv_lo[k], dn * inv_hi[k]));
        t1 = L::min(t1, L::max(df * inv_lo[k], df * inv_hi[k]));
      }
      t0.store(t_lo + g);
      mask |= L::le_mask(t0, t1 * L::splat(slab_widen<float>)) << g;
    }
    return mask;
  }
  /// Step 2 for slot `slot` of a wide node: the rays of `active` whose own slab test enters it,
  /// four at a time, each lane computed as Segment3::entry_wide computes that ray's.
  template <class S>
  PacketMask ray_test(const MeshWideNode<S>& w, int slot, PacketMask active) const {
    using L = Lanes4<float>;
    const char* base = reinterpret_cast<const char*>(&w) + slot * sizeof(float);
    L nb[3], fb[3];
    for (int k = 0; k < 3; ++k) {
      nb[k] = L::splat(*reinterpret_cast<const float*>(base + near_at[k]));
      fb[k] = L::splat(*reinterpret_cast<const float*>(base + far_at[k]));
    }
    const L widen = L::splat(slab_widen<float>);
    PacketMask hit = 0;
    for (PacketMask groups = active; groups != 0;) {
      const int g = std::countr_zero(groups) & ~3;
      groups &= ~(PacketMask(0xf) << g);
      L t0 = L::splat(0.0f), t1 = L::load(tm + g);
      for (int k = 0; k < 3; ++k) {
        t0 = L::max(t0, (nb[k] - L::load(near_o[k] + g)) * L::load(inv[k] + g));
        t1 = L::min(t1, (fb[k] - L::load(far_o[k] + g)) * L::load(inv[k] + g));
      }
      hit |= PacketMask(static_cast<unsigned>(L::le_mask(t0, t1 * widen))) << g;
    }
    return hit & active;
  }
};

/// An item of a packet walk's stack: a wide node (count 0) or a leaf, the rays that entered its
/// box, and a bound below all their entry times.
struct PacketItem {
  std::uint32_t ref, count;
  float t_lo;
  PacketMask rays;
};

/// Walks the tree with the packet's rays of `active` (each already inside the root's box before
/// its best time t_best[r]), calling leaf(r, first block, count, t_best[r]) for each ray and leaf
/// it reaches; leaf lowers t_best[r] on a hit. The root is a wide node (the caller handles a tree
/// of one leaf). Fixed stack: no allocation.
template <class S, class Leaf>
void walk_packet(const MeshTree<S>& m, RayPacket& p, PacketMask active, S* t_best, Leaf&& leaf) {
  PacketItem stack[kWalkStack];
  int top = 0;
  std::uint32_t ref = 0, count = 0;
  PacketMask rays = active;
  p.bound_tm(rays);
  for (;;) {
    if (count == 0) {
      const MeshWideNode<S>& w = m.wide[ref];
      float t_lo[kMeshWidth];
      unsigned cand = static_cast<unsigned>(p.interval_test(w, t_lo));
      // The children some ray enters, with their rays, sorted far to near by t_lo.
      int order[kMeshWidth];
      PacketMask sub[kMeshWidth];
      int n = 0;
      for (; cand != 0; cand &= cand - 1) {
        const int i = std::countr_zero(cand);
        const PacketMask r = p.ray_test(w, i, rays);
        if (r == 0) continue;
        int j = n++;
        while (j > 0 && t_lo[order[j - 1]] < t_lo[i]) {
          order[j] = order[j - 1];
          sub[j] = sub[j - 1];
          --j;
        }
        order[j] = i;
        sub[j] = r;
      }
      if (n > 0) {
        for (int j = 0; j + 1 < n; ++j) {
          const int i = order[j];
          stack[top++] = {w.child[i], w.count[i], t_lo[i], sub[j]};
          prefetch_item(m, w.child[i], w.count[i]);
        }
        ref = w.child[order[n - 1]];
        count = w.count[order[n - 1]];
        if (sub[n - 1] != rays) p.bound_tm(rays = sub[n - 1]);
        continue;
      }
    } else {
      for (PacketMask z = rays; z != 0; z &= z - 1) {
        const int r = std::countr_zero(z);
        const S before = t_best[r];
        leaf(r, ref, count, t_best[r]);
        if (t_best[r] != before) p.lower(r, t_best[r]);
      }
    }
    // The nearest stacked item with a ray whose best time is not before its entry bound.
    for (;;) {
      if (top == 0) return;
      const PacketItem& it = stack[--top];
      // A ray whose best time is before the bound is before its own entry (tm ≥ t_best: kept
      // when in doubt).
      const PacketMask keep = p.not_before(it.rays, it.t_lo);
      if (keep == 0) continue;
      ref = it.ref;
      count = it.count;
      p.bound_tm(rays = keep);
      break;
    }
  }
}

}  // namespace impact::mesh_detail
