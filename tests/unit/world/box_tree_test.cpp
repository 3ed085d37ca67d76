// The world's box tree (src/world/box_tree.hpp) against brute force: every item whose box
// overlaps the query box (closed boxes: touching counts) is reported exactly once, whatever the
// rounding of the collapsed tree's float boxes. Random box sets: clustered and spread, flat boxes
// (a height field's triangles lie in planes), boxes sharing a face with the query, and
// coordinates far from the origin (1e6, where a float ulp is 0.06 and the boxes are 1e-3 wide:
// the tree stores its float boxes relative to the root's centre, and without that the superset it
// reports would be everything, which the count below catches). Also: renumber() puts each leaf's
// items in a run, and the answers follow the new numbers; queries reaching to infinity report
// every item once (an empty slot of a four-wide node is never taken for a child).
#include "world/box_tree.hpp"

#include "scenes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace {

using impact::world_detail::BoxTree;
using Vec3d = Eigen::Vector3d;
using scenes::Rng;

bool overlap(const Vec3d& alo, const Vec3d& ahi, const Vec3d& blo, const Vec3d& bhi) {
  return (alo.array() <= bhi.array()).all() && (blo.array() <= ahi.array()).all();
}

void check_sets(double offset, double size, const std::string& name) {
  Rng rng(scenes::seed_of(name));
  int reported = 0, met = 0;
  for (int set = 0; set < scenes::battery(40); ++set) {
    const int n = 1 + rng.index(set % 4 == 0 ? 8 : 3000);
    std::vector<Vec3d> lo(static_cast<std::size_t>(n)), hi(static_cast<std::size_t>(n));
    const Vec3d origin = Vec3d::Constant(offset) + rng.in_cube(1) * offset * 1e-3;
    for (int k = 0; k < n; ++k) {
      const Vec3d c = origin + (set % 3 == 0 ? rng.in_cube(0.1) * size : rng.in_cube(1) * size);
      Vec3d e(rng.uniform(0, 0.05), rng.uniform(0, 0.05), rng.uniform(0, 0.05));
      e *= size;
      if (rng.uniform() < 0.2) e[rng.index(3)] = 0;  // flat
      lo[static_cast<std::size_t>(k)] = c - e;
      hi[static_cast<std::size_t>(k)] = c + e;
    }
    BoxTree tree;
    tree.build(lo, hi);
    std::vector<int> seen(static_cast<std::size_t>(n));
    for (int q = 0; q < 50; ++q) {
      Vec3d qlo, qhi;
      if (q % 5 == 0) {
        // Touching an item's box: share a face (or a corner) exactly.
        const auto k = static_cast<std::size_t>(rng.index(n));
        const int axis = rng.index(3);
        qlo = hi[k] - Vec3d::Constant(rng.uniform(0, 0.2) * size);
        qlo[axis] = hi[k][axis];
        qhi = qlo + Vec3d::Constant(rng.uniform(0, 0.2) * size);
      } else {
        const Vec3d c = origin + rng.in_cube(1.1) * size;
        const Vec3d e = Vec3d(rng.uniform(0, 0.3), rng.uniform(0, 0.3), rng.uniform(0, 0.3)) * size;
        qlo = c - e;
        qhi = c + e;
      }
      std::fill(seen.begin(), seen.end(), 0);
      tree.query(qlo, qhi, [&](std::uint32_t k) {
        ASSERT_LT(k, static_cast<std::uint32_t>(n));
        ++seen[k];
      });
      for (int k = 0; k < n; ++k) {
        const auto i = static_cast<std::size_t>(k);
        ASSERT_LE(seen[i], 1) << name << " set " << set << " query " << q << " item " << k << " reported twice";
        if (overlap(lo[i], hi[i], qlo, qhi)) {
          ++met;
          ASSERT_EQ(seen[i], 1) << name << " set " << set << " query " << q << ": item " << k << " overlaps, not reported";
        }
        reported += seen[i];
      }
    }
    // Renumbered: item i is old[i]; the same boxes give the same answers under the new numbers.
    const std::vector<std::uint32_t> old = tree.renumber();
    ASSERT_EQ(old.size(), static_cast<std::size_t>(n));
    std::vector<std::uint32_t> sorted = old;
    std::sort(sorted.begin(), sorted.end());
    for (int k = 0; k < n; ++k) ASSERT_EQ(sorted[static_cast<std::size_t>(k)], static_cast<std::uint32_t>(k));
    const Vec3d c = origin + rng.in_cube(1) * size, e = Vec3d::Constant(0.4 * size);
    std::vector<std::uint32_t> before, after;
    for (int k = 0; k < n; ++k)
      if (overlap(lo[static_cast<std::size_t>(k)], hi[static_cast<std::size_t>(k)], c - e, c + e))
        before.push_back(static_cast<std::uint32_t>(k));
    tree.query(c - e, c + e, [&](std::uint32_t k) {
      const std::uint32_t was = old[k];
      if (overlap(lo[was], hi[was], c - e, c + e)) after.push_back(was);
    });
    std::sort(after.begin(), after.end());
    EXPECT_EQ(before, after) << name << " set " << set << " after renumber()";
  }
  // The queries meet boxes often, and the tree's superset is not everything.
  EXPECT_GT(met, 1000) << name;
  EXPECT_LT(reported, 4 * met) << name;
}

TEST(BoxTree, ReportsEveryOverlappingBoxOnceNearTheOrigin) { check_sets(0, 1, "box tree near origin"); }

TEST(BoxTree, ReportsEveryOverlappingBoxOnceFarFromTheOrigin) { check_sets(1e6, 1e-2, "box tree far"); }

// A tree kept across steps (the broad phase's): update() refits it to boxes that moved, or
// builds it again (the item count changed, or the boxes drifted far apart). After each update
// every overlapping box is reported once, as after a fresh build: drifts small and large, boxes
// swapping places, the count changing, and down to one item and none.
TEST(BoxTree, UpdatedTreesReportEveryOverlappingBoxOnce) {
  Rng rng(scenes::seed_of("box tree update"));
  BoxTree tree;
  std::vector<Vec3d> lo, hi;
  int met = 0, refits = 0;
  int n = 500;
  for (int step = 0; step < scenes::battery(60); ++step) {
    if (step % 10 == 9) n = step == 49 ? 1 : step == 59 ? 0 : 1 + rng.index(1500);  // a new count
    const double drift = step % 3 == 0 ? 0.01 : step % 3 == 1 ? 0.3 : 3.0;
    std::vector<Vec3d> nlo(static_cast<std::size_t>(n)), nhi(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
      const auto i = static_cast<std::size_t>(k);
      const Vec3d c = i < lo.size() && step % 7 != 3 ? Vec3d(0.5 * (lo[i] + hi[i]) + rng.in_cube(drift)) : rng.in_cube(1);
      const Vec3d e = Vec3d(rng.uniform(0, 0.05), rng.uniform(0, 0.05), rng.uniform(0, 0.05));
      nlo[i] = c - e;
      nhi[i] = c + e;
    }
    lo = nlo;
    hi = nhi;
    const std::size_t builds = tree.builds();
    tree.update(lo, hi);
    refits += tree.builds() == builds;
    std::vector<int> seen(static_cast<std::size_t>(n));
    for (int q = 0; q < 30; ++q) {
      const Vec3d c = rng.in_cube(1.5), e = Vec3d(rng.uniform(0, 0.4), rng.uniform(0, 0.4), rng.uniform(0, 0.4));
      std::fill(seen.begin(), seen.end(), 0);
      tree.query(c - e, c + e, [&](std::uint32_t k) {
        ASSERT_LT(k, static_cast<std::uint32_t>(n));
        ++seen[k];
      });
      for (int k = 0; k < n; ++k) {
        const auto i = static_cast<std::size_t>(k);
        ASSERT_LE(seen[i], 1) << "step " << step << " query " << q << " item " << k << " reported twice";
        if (overlap(lo[i], hi[i], c - e, c + e)) {
          ++met;
          ASSERT_EQ(seen[i], 1) << "step " << step << " query " << q << ": item " << k << " overlaps, not reported";
        }
      }
    }
  }
  EXPECT_GT(met, 10 * scenes::battery(60));
  EXPECT_GT(refits, scenes::battery(60) / 3) << "updates mostly rebuilt: the refit went untested";
  EXPECT_GT(tree.builds(), std::size_t(scenes::battery(60) / 10)) << "no rebuilds: the rebuild path went untested";
}

TEST(BoxTree, EmptyAndSingleItemTrees) {
  BoxTree empty;
  empty.build({}, {});
  int calls = 0;
  empty.query(Vec3d::Constant(-1e300), Vec3d::Constant(1e300), [&](std::uint32_t) { ++calls; });
  EXPECT_EQ(calls, 0);
  // Every item once for an unbounded query, over trees whose four-wide nodes have empty slots.
  for (int n : {1, 2, 3, 5, 6, 7, 9, 13}) {
    std::vector<Vec3d> lo, hi;
    for (int k = 0; k < n; ++k) {
      lo.push_back(Vec3d(k, 0, 0));
      hi.push_back(Vec3d(k + 0.5, 1, 1));
    }
    BoxTree tree;
    tree.build(lo, hi);
    std::vector<int> seen(static_cast<std::size_t>(n));
    const double inf = std::numeric_limits<double>::infinity();
    tree.query(Vec3d::Constant(-inf), Vec3d::Constant(inf), [&](std::uint32_t k) { ++seen[k]; });
    tree.query(Vec3d::Constant(-1e300), Vec3d::Constant(1e300), [&](std::uint32_t k) { ++seen[k]; });
    for (int k = 0; k < n; ++k) EXPECT_EQ(seen[static_cast<std::size_t>(k)], 2) << n << " items, item " << k;
  }
  BoxTree one;
  one.build({Vec3d(1, 2, 3)}, {Vec3d(1, 2, 3)});  // a point box
  one.query(Vec3d(1, 2, 3), Vec3d(1, 2, 3), [&](std::uint32_t k) { calls += 1 + int(k); });
  EXPECT_EQ(calls, 1);
  one.query(Vec3d(1, 2, 3.5), Vec3d(2, 3, 4), [&](std::uint32_t) { ADD_FAILURE() << "reported"; });
}

}  // namespace
