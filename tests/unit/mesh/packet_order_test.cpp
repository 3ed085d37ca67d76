// The order in which rays from one origin form packets (src/mesh/packet_order.hpp). Cameras are
// drawn at random (row width, pixel steps across and along, view direction, where in its rows the
// piece of rays starts and how long it is, rays not searched here and there); order_camera_rows
// must take them for rows and give every searched ray once, each patch a run of one sign group
// inside a box of rows and columns of at most one packet's rays, as square in angle as the rows
// allow. Directions that are not rows (random ones; rows whose width changes) must be refused,
// and order_by_direction_grid must then order every searched ray once, sign groups apart.
#include "mesh/packet_order.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace impact::mesh_detail;

struct Piece {
  std::vector<float> dx, dy, dz;
  std::vector<std::uint16_t> key;
  std::vector<int> row, col;  // each ray's pixel
  std::size_t searched = 0;
  void add(const Eigen::Vector3d& d, int r, int c, bool skip) {
    dx.push_back(float(d.x())), dy.push_back(float(d.y())), dz.push_back(float(d.z()));
    const int group = int(std::signbit(dx.back())) | int(std::signbit(dy.back())) << 1 | int(std::signbit(dz.back())) << 2;
    key.push_back(skip ? 0xffff : static_cast<std::uint16_t>(group));
    searched += skip ? 0 : 1;
    row.push_back(r), col.push_back(c);
  }
  [[nodiscard]] std::size_t size() const { return dx.size(); }
};

// Every searched ray once, and cut[0] = 1.
void expect_permutation(const Piece& p, const std::vector<std::uint16_t>& order) {
  std::vector<int> seen(p.size(), 0);
  for (std::size_t k = 0; k < p.searched; ++k) {
    ASSERT_LT(order[k], p.size());
    ASSERT_NE(p.key[order[k]], 0xffff) << k;
    ++seen[order[k]];
  }
  for (std::size_t i = 0; i < p.size(); ++i) ASSERT_EQ(seen[i], p.key[i] == 0xffff ? 0 : 1) << i;
}

TEST(PacketOrder, CameraRowsArePatchesOfNeighbouringPixelsOfOneSignGroup) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> u(0, 1);
  int patches = 0, mixed_signs = 0, tails = 0, two_rows = 0;
  for (int c = 0; c < 3000; ++c) {
    const int w = 8 + static_cast<int>(u(rng) * (c % 4 == 0 ? 3000 : 300));  // a quarter up to a few rows a piece
    const auto n = static_cast<std::size_t>(64 + u(rng) * (kOrderAtOnce - 64));
    const int first = static_cast<int>(u(rng) * 2 * w);  // the piece's first pixel, row by row
    // A pinhole camera: ahead + x·right + y·up, x and y in steps of `along` and `across`; its
    // view anywhere (signs change inside rows and between them), normalised or not.
    Eigen::Vector3d ahead(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5);
    ahead.normalize();
    const Eigen::Vector3d right = ahead.unitOrthogonal(), up = ahead.cross(right);
    const double along = 0.002 + 0.02 * u(rng), across = along * std::exp(std::log(4.0) * (2 * u(rng) - 1));
    const bool unit = c % 2 == 0;
    Piece p;
    for (std::size_t i = 0; i < n; ++i) {
      const int pix = first + static_cast<int>(i), r = pix / w, col = pix % w;
      Eigen::Vector3d d = ahead + (col - w / 2) * along * right + (r - 20) * across * up;
      if (unit) d.normalize();
      p.add(d * 30.0, r, col, u(rng) < 0.02);
    }
    tails += first % w != 0;
    std::vector<std::uint16_t> order(n, 0xeeee);
    std::vector<std::uint8_t> cut(n, 7);
    ASSERT_TRUE(order_camera_rows(p.dx.data(), p.dy.data(), p.dz.data(), p.key.data(), n, p.searched, 32, order.data(), cut.data()))
        << c;
    expect_permutation(p, order);
    if (p.searched == 0) continue;
    ASSERT_EQ(cut[0], 1);
    // The rows the piece spans: a patch can be as tall as the ideal square's height only when
    // there are that many.
    const int rows = p.row.back() - p.row.front() + 1;
    const double ideal_h = std::sqrt(32.0 * along / across);  // in rows: h·across = (32/h)·along
    for (std::size_t k = 0; k < p.searched;) {
      std::size_t end = k + 1;
      while (end < p.searched && cut[end] == 0) ++end;
      ASSERT_EQ(cut[k], 1);
      int r_lo = 1 << 30, r_hi = -1, c_lo = 1 << 30, c_hi = -1;
      for (std::size_t j = k; j < end; ++j) {
        const std::uint16_t i = order[j];
        ASSERT_EQ(p.key[i], p.key[order[k]]) << c << " " << j;  // one sign group
        r_lo = std::min(r_lo, p.row[i]), r_hi = std::max(r_hi, p.row[i]);
        c_lo = std::min(c_lo, p.col[i]), c_hi = std::max(c_hi, p.col[i]);
      }
      const int h = r_hi - r_lo + 1, wd = c_hi - c_lo + 1;
      // A box of rows and columns of one packet's rays; of two parts of rows (no whole row to
      // measure the width by), the columns line up to one.
      if (rows >= 3) {
        ASSERT_LE(h * wd, 32) << c;
      } else {
        ASSERT_LE(wd, 32 / h + 1) << c;
        two_rows += k == 0;
      }
      ASSERT_LE(end - k, 32u);
      if (rows >= 40) {  // room for any patch height: as square in angle as powers of two allow
        ASSERT_LE(h, 2 * ideal_h + 1e-9) << c;
        ASSERT_LE(wd, 2 * 32 / ideal_h + 1e-9) << c;
      }
      mixed_signs += p.key[order[k]] != p.key[order[end - 1]];
      ++patches;
      k = end;
    }
  }
  EXPECT_GT(patches, 3000 * 8);
  EXPECT_GT(two_rows, 100);
  EXPECT_GT(tails, 2000);  // most pieces start inside a row
  EXPECT_EQ(mixed_signs, 0);
}

TEST(PacketOrder, DirectionsThatAreNotRowsAreRefusedAndGroupedByTheirGrid) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int c = 0; c < 500; ++c) {
    const auto n = static_cast<std::size_t>(64 + (u(rng) + 1) / 2 * (kOrderAtOnce - 64));
    Piece p;
    if (c % 2 == 0) {  // random directions (a lidar's rays all around, in no order)
      for (std::size_t i = 0; i < n; ++i) p.add(Eigen::Vector3d(u(rng), u(rng), u(rng)), 0, 0, u(rng) > 0.96);
    } else {  // rows of a camera whose width changes after the third row
      const int w = 10 + c % 40;
      int r = 0, col = 0;
      for (std::size_t i = 0; i < n; ++i) {
        p.add(Eigen::Vector3d(1, 0.01 * col, 0.01 * r), r, col, false);
        if (++col == (r < 3 ? w : w + 1)) col = 0, ++r;
      }
      if (r < 5) continue;
    }
    std::vector<std::uint16_t> order(n, 0xeeee);
    std::vector<std::uint8_t> cut(n, 7);
    std::vector<std::uint16_t> key = p.key;
    EXPECT_FALSE(order_camera_rows(p.dx.data(), p.dy.data(), p.dz.data(), key.data(), n, p.searched, 32, order.data(), cut.data()))
        << c;
    if (p.searched == 0) continue;
    // The grid, as ray_cast_packets calls it: the rays not searched given the first searched
    // one's direction.
    std::size_t first = 0, last = n - 1;
    while (key[first] == 0xffff) ++first;
    while (key[last] == 0xffff) --last;
    Piece q = p;
    for (std::size_t i = 0; i < n; ++i)
      if (key[i] == 0xffff) q.dx[i] = q.dx[first], q.dy[i] = q.dy[first], q.dz[i] = q.dz[first];
    std::vector<float> u(n), v(n);
    order_by_direction_grid(q.dx.data(), q.dy.data(), q.dz.data(), key.data(), n, p.searched, first, last, order.data(), u.data(),
                            v.data());
    expect_permutation(p, order);
    // Sign groups apart: a group's rays one run.
    std::vector<int> runs(8, 0);
    for (std::size_t k = 0; k < p.searched; ++k)
      if (k == 0 || p.key[order[k]] != p.key[order[k - 1]]) ++runs[p.key[order[k]]];
    for (int g = 0; g < 8; ++g) EXPECT_LE(runs[g], 1) << c << " " << g;
  }
}

}  // namespace
