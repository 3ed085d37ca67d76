#pragma once
// impact — mesh/interleaved_walk.hpp: many segments walking one tree at once on one thread, a
// step of each in turn, so that the memory reads of one walk overlap the work of the others.
//
// A mesh walk is a chain of dependent reads: a wide node's children are known only once the node
// has arrived. On a large mesh (level_1m, terrain_1m: 70 MB of nodes and triangle blocks) most
// reads miss the caches, so a single ray spends most of its time waiting (about 100 ns a node
// visited, bench/README.md). Walking K rays in turn (Kocberber et al., "Asynchronous memory access
// chaining", VLDB 2015: interleave independent pointer chases) hides that wait: after a step a
// walk prefetches the node or leaf it visits next and yields to the next walk, and by the time
// its turn comes again the data has arrived.
//
// The steps switch between walks, so a node's data-dependent branches (how many children it
// enters, which is nearer) are unpredictable: with eight-box tests a node pushes every child it
// enters, far to near, without a branch (push_children8: a sorting network on their entry times),
// and its nearest is popped at once. terrain_1m's random batch 1.15 → 0.95–0.99 Embree's stream
// time (2026-12-06); level_1m, whose nodes mostly enter one child, the same (it skips the sort
// there, `alone`). Each walk tests every leaf the single walk could find its answer in (the same
// box tests; an item popped behind t_best is dropped by both), so answers are the single walk's,
// bit for bit: the least (λ, index) over the triangles tested.
#include "mesh/bin_tree_walk.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace impact::mesh_detail {

/// A member that holds nothing (a walk's planes where the box test reads its Segment3).
struct NoPlanes {};

/// How many walks are interleaved on one thread: enough to keep several reads in flight (a core
/// tracks 10–16 outstanding misses), few enough that their stacks' tops and segments stay in L1.
inline constexpr int kInterleavedWalks = 8;

/// Walks the segments of queries 0 … n − 1 through m, kInterleavedWalks at a time. For each query
/// i, start(i, seg, t_best) sets up its segment and initial t_best and returns false when the
/// query is already answered (no walk); leaf(i, first block, count, t_best&) is walk_leaves' leaf
/// callback for query i; finish(i, t_best) is called once its walk is over (also after a false
/// start, or on an empty tree). kWide8: a node's boxes tested eight at a time
/// (entry_wide8 on planes splatted once per query, in a function compiled for AVX2), as the
/// single walk's walk_leaves_with.
template <bool kWide8, class S, class Start, class Leaf, class Finish>
void walk_leaves_interleaved_with(const MeshTree<S>& m, std::size_t n, Start& start, Leaf& leaf, Finish& finish) {
#if IMPACT_WALK_AVX2
  using Planes = std::conditional_t<kWide8, Planes8, NoPlanes>;
#else
  using Planes = NoPlanes;
#endif
  struct Walk {
    std::size_t query = 0;
    Segment3<S> seg;
    Planes planes;  // kWide8: seg's planes splatted once (entry_wide8 then reads them as they are)
    S t_best = S(0);
    std::uint32_t ref = 0, count = 0;
    int top = 0;
    std::conditional_t<kWide8, WalkStack8, WalkItem[kWalkStack]> stack;
  };
  Walk walks[kInterleavedWalks];
  int active[kInterleavedWalks];
  int live = 0;
  std::size_t next = 0;
  std::uint32_t nodes = 0, several = 0;  // node steps, and those that entered two children or more
  // Gives walk w the next query that has a walk; false when none is left.
  auto begin = [&](Walk& w) {
    while (next < n) {
      const std::size_t i = next++;
      if (start(i, w.seg, w.t_best) && walk_start(m, w.ref, w.count)) {
#if IMPACT_WALK_AVX2
        if constexpr (kWide8) w.planes = planes8(w.seg);
#endif
        w.query = i;
        w.top = 0;
        prefetch_item(m, w.ref, w.count);
        return true;
      }
      finish(i, w.t_best);
    }
    return false;
  };
  for (int k = 0; k < kInterleavedWalks; ++k)
    if (begin(walks[k])) active[live++] = k;
  while (live > 0) {
    for (int a = 0; a < live;) {
      Walk& w = walks[active[a]];
      // One step: a wide node's children, or a leaf's triangles; then the next item is chosen
      // and prefetched, and the turn passes.
      bool more;
      if (w.count == 0) {
        const MeshWideNode<S>& node = m.wide[w.ref];
        float t[kMeshWidth];
        unsigned mask;
#if IMPACT_WALK_AVX2
        if constexpr (kWide8) {
          mask = static_cast<unsigned>(entry_wide8(w.planes, node, w.t_best, t));
          // A node entering one child or none skips the sort while fewer than a fifth of the
          // nodes seen so far entered several (push_children8's `alone`: a branch then taken
          // or not most of the time).
          push_children8(node, mask, t, w.stack, w.top, 5 * several < nodes);
          several += static_cast<std::uint32_t>((mask & (mask - 1)) != 0);
          ++nodes;
          more = pop_item8(w.stack, w.top, w.t_best, w.ref, w.count);
        } else
#endif
        {
          mask = static_cast<unsigned>(w.seg.entry_wide(node, w.t_best, t));
          more = enter_children<S, false>(m, node, mask, t, w.stack, w.top, w.ref, w.count) ||
                 pop_item(w.stack, w.top, w.t_best, w.ref, w.count);
        }
      } else {
        leaf(w.query, w.ref, w.count, w.t_best);
        if constexpr (kWide8)
          more = pop_item8(w.stack, w.top, w.t_best, w.ref, w.count);
        else
          more = pop_item(w.stack, w.top, w.t_best, w.ref, w.count);
      }
      if (more) {
        prefetch_item(m, w.ref, w.count);
        ++a;
        continue;
      }
      finish(w.query, w.t_best);
      if (begin(w)) {
        ++a;
        continue;
      }
      active[a] = active[--live];  // this walk is done and no query is left for it
    }
  }
}

#if IMPACT_WALK_AVX2
/// walk_leaves_interleaved_with eight boxes a step, the whole walk (the callbacks too) compiled
/// for AVX2, as walk_leaves_avx2: the same IEEE operations, the same answers.
template <class S, class Start, class Leaf, class Finish>
IMPACT_TARGET_AVX2 __attribute__((flatten)) void walk_leaves_interleaved_avx2(const MeshTree<S>& m, std::size_t n, Start& start,
                                                                             Leaf& leaf, Finish& finish) {
  walk_leaves_interleaved_with<true>(m, n, start, leaf, finish);
}
#endif

/// walk_leaves_interleaved_with on the widest box test the processor has (walk_wide8): the same
/// answers.
template <class S, class Start, class Leaf, class Finish>
void walk_leaves_interleaved(const MeshTree<S>& m, std::size_t n, Start&& start, Leaf&& leaf, Finish&& finish) {
#if IMPACT_WALK_AVX2
  if (walk_wide8()) return walk_leaves_interleaved_avx2(m, n, start, leaf, finish);
#endif
  walk_leaves_interleaved_with<false>(m, n, start, leaf, finish);
}

}  // namespace impact::mesh_detail
