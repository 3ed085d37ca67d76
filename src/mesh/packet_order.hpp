#pragma once
// impact — mesh/packet_order.hpp: the order in which rays from one origin form packets.
//
// A packet walks best when its rays are a square patch of neighbouring directions: a strip of 16
// pixels of one row is 16 times wider than high, and enters about twice the boxes a 4×4 patch
// enters (terrain_1m's camera: 320 against 242 ns a ray). Two ways to find such patches among up
// to a thousand rays (mesh_impl.hpp's ray_cast_packets takes the first that applies):
//   1. order_camera_rows: the caller's rays are a camera's or a lidar's rows (ray row·W + column):
//      the patches are index arithmetic. Along a row the direction turns one way, so each step
//      from a ray to the next goes on from the last; the step to the next row's first ray goes
//      back against both its neighbours (step_goes_back, ray_many.hpp). The rays are rows of
//      width W when every such step is W rays after the one before (the first row may be the
//      tail of one, the last the head of one).
//   2. order_by_direction_grid: any directions: a grid over their projection on a plane, about
//      one packet's rays a cell, and a counting sort by cell. On level_1m's 256×256 camera the
//      rows' patches walk in 47.5 ns a ray against the grid's 57.6 (2026-12-06): no projection and
//      no sort, and the patches are whole 8×4 squares of pixels, never two cells' leftovers.
// A packet's rays must share their direction signs (its near and far planes); a sign group is
// part of each ray's key, and both orders keep a group's rays together. Only the packets' shapes
// depend on the order: every ray's answer is the same whatever its packet (packet_walk.hpp).
#include "mesh/packet_walk.hpp"
#include "mesh/ray_many.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

namespace impact::mesh_detail {

/// The gnomonic coordinates of directions (dx[i], dy[i], dz[i]), i < n, in the plane across
/// `axis` spanned by e1 and e2: u[i], v[i] = (d·e1, d·e2) / (d·axis). False (u and v then
/// unfinished) when some direction is not within 75° of the axis. Branch-free, so that the
/// compiler vectorises it.
inline bool project_gnomonic(const float* dx, const float* dy, const float* dz, std::size_t n, const float* axis, const float* e1,
                             const float* e2, float* u, float* v) {
  const float a0 = axis[0], a1 = axis[1], a2 = axis[2];
  int ahead_all = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const float x = dx[i], y = dy[i], z = dz[i];
    const float ahead = x * a0 + y * a1 + z * a2;
    const float sq = x * x + y * y + z * z;
    ahead_all &= int(ahead > 0.0f) & int(ahead * ahead > 0.0625f * sq);  // bitwise: no branch
    const float inv = 1.0f / ahead;
    u[i] = (x * e1[0] + y * e1[1] + z * e1[2]) * inv;
    v[i] = (x * e2[0] + y * e2[1] + z * e2[2]) * inv;
  }
  return ahead_all != 0;
}

/// The order of rays 0 … n − 1 (n ≤ kOrderAtOnce; directions dx[i], dy[i], dz[i]; key[i] their
/// sign group, 0 … 7, or 0xffff for a ray not searched) in patches of up to `patch` rays (a power
/// of two, at most 64), when they are rows of one width: order[0 … searched) the searched rays
/// (`searched`: the keys not 0xffff), patch by patch, each patch's rays grouped by key; cut[k] = 1
/// where a patch or a run of one key starts (a packet should not go on past it), else 0. Returns
/// false, order and cut unfinished, when the rays are not rows: fewer than 64 rays, a whole row
/// shorter than 8 rays or not as long as the others, a part of a row longer than a whole one.
/// Whatever the directions, when it returns true every searched ray is in `order` once.
inline bool order_camera_rows(const float* dx, const float* dy, const float* dz, const std::uint16_t* key, std::size_t n,
                              std::size_t searched, int patch, std::uint16_t* order, std::uint8_t* cut) {
  constexpr std::size_t kMinRow = 8, kMaxRows = kOrderAtOnce / kMinRow + 2;
  if (n < 64 || n > kOrderAtOnce || patch > 64) return false;
  // Rows start where two steps in a row go back (step_goes_back, ray_many.hpp). rev[i]: step i
  // goes back against step i − 1 (i from 2; rev[1] and rev[n] stand for the missing neighbours:
  // the first and the last step go back when the one next to them goes back against it alone).
  std::uint8_t rev[kOrderAtOnce + 2];
  for (std::size_t i = 2; i < n; ++i) {
    const float ax = dx[i] - dx[i - 1], ay = dy[i] - dy[i - 1], az = dz[i] - dz[i - 1];
    const float bx = dx[i - 1] - dx[i - 2], by = dy[i - 1] - dy[i - 2], bz = dz[i - 1] - dz[i - 2];
    rev[i] = step_goes_back(ax, ay, az, bx, by, bz);
  }
  rev[1] = rev[2] && !rev[3];
  rev[n] = rev[n - 1] && !rev[n - 2];
  rev[n + 1] = 0;  // read by the eight-at-a-time scan below
  // start[r] is row r's first ray: where step i and step i + 1 both go back.
  std::size_t start[kMaxRows + 1];
  std::size_t rows = 1;
  start[0] = 0;
  for (std::size_t i = 1; i < n; ++i) {
    // Eight rays at a time (nearly always none starts a row).
    if (i + 9 <= n + 2) {
      std::uint64_t here, next;
      std::memcpy(&here, rev + i, 8);
      std::memcpy(&next, rev + i + 1, 8);
      if ((here & next) == 0) {
        i += 7;
        continue;
      }
    }
    if (rev[i] && rev[i + 1]) [[unlikely]] {
      if (rows == kMaxRows) return false;
      if (rows >= 2) {  // the row that ends here began at a step back: a whole row
        const std::size_t len = i - start[rows - 1];
        if (len < kMinRow || (rows >= 3 && len != start[2] - start[1])) return false;
      }
      start[rows++] = i;
    }
  }
  start[rows] = n;
  // The width: a whole row's. Of two parts of rows, at least the longer part's, and about
  // 1 − (b·a)/(a·a) where a is a step along a row and b the step back to the next row (w − 1
  // steps back and one row on): the parts' columns line up as well as that estimate.
  std::size_t w = rows >= 3 ? start[2] - start[1] : std::max(start[1], n - start[rows - 1]);
  const std::size_t ja = start[1] >= 2 ? start[1] - 2 : start[1];  // rays ja and ja + 1: one row's
  const float a[3] = {dx[ja + 1] - dx[ja], dy[ja + 1] - dy[ja], dz[ja + 1] - dz[ja]};
  const std::size_t rb = rows >= 2 ? start[1] : 1;
  const float b[3] = {dx[rb] - dx[rb - 1], dy[rb] - dy[rb - 1], dz[rb] - dz[rb - 1]};
  const float aa = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
  if (rows == 2) {
    const float back = -(b[0] * a[0] + b[1] * a[1] + b[2] * a[2]) / aa;
    if (back + 1.0f > float(w) && back < float(4 * kOrderAtOnce)) w = static_cast<std::size_t>(std::lround(back + 1.0f));
  }
  if (start[1] > w || n - start[rows - 1] > w) return false;
  // The patch: th rows of tw columns (th·tw = patch), as square as the directions' steps allow:
  // th² about patch · along / across, th a power of two and no more than the rows there are.
  // With three rows or more, along and across are the steps from row 1's first ray to the next
  // and to the one below; of two rows, |a| and |b + (w − 1)·a|.
  int th = 1;
  if (rows >= 2) {
    float along, across;
    if (rows >= 3) {
      const std::size_t p = start[1], q = start[2];
      along = std::hypot(dx[p + 1] - dx[p], dy[p + 1] - dy[p], dz[p + 1] - dz[p]);
      across = std::hypot(dx[q] - dx[p], dy[q] - dy[p], dz[q] - dz[p]);
    } else {
      const float wf = float(w - 1);
      along = std::sqrt(aa);
      across = std::hypot(b[0] + wf * a[0], b[1] + wf * a[1], b[2] + wf * a[2]);
    }
    while (th * 2 <= patch && static_cast<std::size_t>(th * 2) <= rows && float(th * th * 2) * across < float(patch) * along)
      th *= 2;
  }
  const auto tw = static_cast<std::size_t>(patch / th), rh = static_cast<std::size_t>(th);
  // Ray (row r, column c) is start[r] + c − col0[r], where col0 is 0 but for a first row that is
  // the tail of one.
  // Each patch is a run of at most th row segments, [seg_lo, seg_hi) each.
  std::size_t k = 0;
  for (std::size_t r0 = 0; r0 < rows; r0 += rh)
    for (std::size_t c0 = 0; c0 < w; c0 += tw) {
      std::size_t seg_lo[64], seg_hi[64], segs = 0, m = 0;
      for (std::size_t r = r0; r < std::min(rows, r0 + rh); ++r) {
        const std::size_t len = start[r + 1] - start[r], col0 = r == 0 ? w - len : 0;
        const std::size_t lo = std::max(c0, col0), hi = std::min(c0 + tw, col0 + len);
        if (lo >= hi) continue;
        seg_lo[segs] = start[r] + lo - col0, seg_hi[segs] = start[r] + hi - col0;
        m += hi - lo;
        ++segs;
      }
      if (m == 0) continue;
      // The patch's rays by key (nearly always one key: copied as they are).
      const std::uint16_t k0 = key[seg_lo[0]];
      bool one_key = k0 != 0xffff;
      for (std::size_t g = 0; g < segs; ++g)
        for (std::size_t i = seg_lo[g]; i < seg_hi[g]; ++i) one_key &= key[i] == k0;
      if (one_key) {
        cut[k] = 1;
        std::fill(cut + k + 1, cut + k + m, std::uint8_t(0));
        for (std::size_t g = 0; g < segs; ++g)
          for (std::size_t i = seg_lo[g]; i < seg_hi[g]; ++i) order[k++] = static_cast<std::uint16_t>(i);
        continue;
      }
      for (std::uint16_t kg = 0; kg < 8; ++kg) {
        bool first = true;
        for (std::size_t g = 0; g < segs; ++g)
          for (std::size_t i = seg_lo[g]; i < seg_hi[g]; ++i)
            if (key[i] == kg) {
              cut[k] = first ? 1 : 0;
              first = false;
              order[k++] = static_cast<std::uint16_t>(i);
            }
      }
    }
  return k == searched;
}

/// The order of rays 0 … n − 1 (directions dx[i], dy[i], dz[i], the rays not searched (key
/// 0xffff) given the direction of a searched one; key[i] their sign group, 0 … 7) by the cell of
/// a grid over their directions sized for about kPacketRays rays a cell, sign group by sign group:
/// order[0 … searched) the searched rays (`first` and `last`: the first and the last of them;
/// 0 < n ≤ kOrderAtOnce). `key` is overwritten (each ray's cell); u and v (n floats each) are
/// scratch.
inline void order_by_direction_grid(const float* dx, const float* dy, const float* dz, std::uint16_t* key, std::size_t n,
                                    std::size_t searched, std::size_t first, std::size_t last, std::uint16_t* order, float* u,
                                    float* v) {
  constexpr int kMaxCells = static_cast<int>(kOrderAtOnce) / kPacketRays;  // grid cells per sign group
  if (n == 0 || n > kOrderAtOnce) return;
  std::uint16_t count[4][8 * kMaxCells + 1];
  // Directions as points of the plane across a view axis (the gnomonic projection: a camera's
  // pixel grid stays a grid), the axis from the first, middle and last directions, the plane's
  // first axis along the way from the first to the last (the caller's rows); where some
  // direction is not well in front of the axis (a lidar all around), the first two
  // coordinates of d/‖d‖₁ instead. Only the grouping depends on these: any rounding will do.
  auto unit = [&](std::size_t i) { return Eigen::Vector3f(dx[i], dy[i], dz[i]).normalized().eval(); };
  const Eigen::Vector3f d0 = unit(first), d1 = unit(last);
  Eigen::Vector3f axis = d0 + d1 + unit(first + (last - first) / 2);
  Eigen::Vector3f e1 = d1 - d0;
  bool gnomonic = axis.squaredNorm() > 1e-6f;
  if (gnomonic) {
    axis.normalize();
    e1 -= e1.dot(axis) * axis;
    if (!(e1.squaredNorm() > 1e-12f)) e1 = axis.unitOrthogonal();
    e1.normalize();
  }
  const Eigen::Vector3f e2 = axis.cross(e1);
  float ulo = 1, uhi = -1, vlo = 1, vhi = -1;
  // Every ray's coordinates (a vectorised loop: float arrays side by side, no branch).
  if (!gnomonic || !project_gnomonic(dx, dy, dz, n, axis.data(), e1.data(), e2.data(), u, v)) {
    // ‖d‖₁ at least the least normal float: a double direction below float's range is (0, 0, 0)
    // here, and 0 / 0 made the grid's bounds NaN, its size and cells undefined (found
    // 2026-12-06, reading this code: cells out of `count`'s range).
    for (std::size_t i = 0; i < n; ++i) {
      const float l1 = std::max(std::abs(dx[i]) + std::abs(dy[i]) + std::abs(dz[i]), std::numeric_limits<float>::min());
      u[i] = dx[i] / l1;
      v[i] = dy[i] / l1;
    }
  }
  min_max4(u, n, ulo, uhi);
  min_max4(v, n, vlo, vhi);
  // A grid of about searched / kPacketRays cells, as square as the directions' extent allows.
  const float w = std::max(uhi - ulo, 1e-30f), h = std::max(vhi - vlo, 1e-30f);
  const double cells = std::clamp(double(searched) / kPacketRays, 1.0, double(kMaxCells));
  const int gx = static_cast<int>(std::clamp(std::round(std::sqrt(cells * w / h)), 1.0, cells));
  const int gy = std::clamp(static_cast<int>(cells) / gx, 1, kMaxCells / gx);
  const int groups = 8 * gx * gy;
  const float fx = float(gx) / w, fy = float(gy) / h;
  // Each ray's cell (a loop without a branch); the rays not searched take `groups`, a
  // last bucket that sorts after every cell (order[searched …] then holds them: never read).
  for (std::size_t i = 0; i < n; ++i) {
    const int cx = std::min(gx - 1, static_cast<int>((u[i] - ulo) * fx));
    const int cy = std::min(gy - 1, static_cast<int>((v[i] - vlo) * fy));
    const int cell = (key[i] * gy + cy) * gx + cx;
    key[i] = static_cast<std::uint16_t>(key[i] == 0xffff ? groups : cell);
  }
  // A counting sort by cell with four counts per cell, ray i counted in count[i % 4]: rays of a
  // camera's row fall in one cell several in a row, and with one count each increment waited
  // on the last one's store (about 2 ns a ray, 2026-12-06). Within a cell the rays come by
  // i % 4, then i: any order in a cell will do (it only groups).
  for (auto& c : count) std::fill(c, c + groups + 1, std::uint16_t(0));
  for (std::size_t i = 0; i < n; ++i) ++count[i % 4][key[i]];
  for (int b = 0, at_ = 0; b <= groups; ++b)
    for (auto& c : count) {
      const int here = c[b];
      c[b] = static_cast<std::uint16_t>(at_);
      at_ += here;
    }
  for (std::size_t i = 0; i < n; ++i) order[count[i % 4][key[i]]++] = static_cast<std::uint16_t>(i);
}

}  // namespace impact::mesh_detail
