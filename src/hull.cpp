// impact — hull.cpp: convex hulls of point clouds with qhull (libqhull_r, reentrant).
//
// qhull needs a full-dimensional input, so the cloud's dimension is found first: all points
// equal (a point), collinear (a segment), coplanar (a polygon: qhull in 2D on plane
// coordinates) or a polyhedron (qhull in 3D, triangulated output "Qt"). Hulls are always built
// in double and then converted, so float hulls have the same combinatorics as double ones.
#include <impact/shapes.hpp>

#include "detail/validation.hpp"

extern "C" {
#include <libqhull_r/libqhull_r.h>
}

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <utility>
#include <vector>

namespace impact {
namespace {

using V3 = Vec3<double>;

/// A cloud is treated as lower-dimensional when every point is within this fraction of its
/// extent from the line or plane (dimensionless). Well above double rounding, well below any
/// intended thickness: a box with a half extent of 1e-7 of its size stays a box.
constexpr double kFlatness = 1e-12;

struct QhullRun {
  qhT qh;
  FILE* err = nullptr;
  bool ok = false;
  QhullRun(int dim, std::vector<double>& coords, const char* flags) {
    err = std::fopen("/dev/null", "w");
    qh_zero(&qh, err);
    const int n = static_cast<int>(coords.size()) / dim;
    ok = qh_new_qhull(&qh, dim, n, coords.data(), False, const_cast<char*>(flags), nullptr, err) == 0;
  }
  ~QhullRun() {
    int curlong = 0, totlong = 0;
    qh_freeqhull(&qh, !qh_ALL);
    qh_memfreeshort(&qh, &curlong, &totlong);
    if (err) std::fclose(err);
  }
  QhullRun(const QhullRun&) = delete;
  QhullRun& operator=(const QhullRun&) = delete;
};

/// Builds vertex list and CSR adjacency from (input index) edges.
void finish_graph(Hull<double>& h, const std::vector<V3>& pts, const std::vector<int>& used,
                  std::vector<std::pair<int, int>> edges) {
  std::vector<int> remap(pts.size(), -1);
  for (int id : used) {
    if (remap[id] < 0) {
      remap[id] = static_cast<int>(h.vertices.size());
      h.vertices.push_back(pts[id]);
    }
  }
  for (auto& e : edges) {
    e = {remap[e.first], remap[e.second]};
    if (e.first > e.second) std::swap(e.first, e.second);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  const int n = static_cast<int>(h.vertices.size());
  h.center.setZero();
  for (const auto& v : h.vertices) h.center += v;
  if (n > 0) h.center /= n;
  // Seeds: the extreme vertex along each of the 26 directions (±1, 0)³ \ 0, deduplicated.
  for (int dx = -1; dx <= 1; ++dx)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dz = -1; dz <= 1; ++dz) {
        if (dx == 0 && dy == 0 && dz == 0) continue;
        const V3 d(dx, dy, dz);
        int best = 0;
        for (int i = 1; i < n; ++i)
          if (d.dot(h.vertices[i]) > d.dot(h.vertices[best])) best = i;
        if (std::find(h.seeds.begin(), h.seeds.end(), best) == h.seeds.end()) h.seeds.push_back(best);
      }
  std::vector<int> degree(n, 0);
  for (auto& [a, b] : edges) {
    if (a == b) continue;
    ++degree[a];
    ++degree[b];
  }
  h.neighbor_offset.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) h.neighbor_offset[i + 1] = h.neighbor_offset[i] + degree[i];
  h.neighbors.assign(h.neighbor_offset[n], 0);
  std::vector<int> fill(h.neighbor_offset.begin(), h.neighbor_offset.end() - 1);
  for (auto& [a, b] : edges) {
    if (a == b) continue;
    h.neighbors[fill[a]++] = b;
    h.neighbors[fill[b]++] = a;
  }
}

/// The distinct planes of a triangulated hull, found in expected constant time per triangle.
/// Two planes are one face when their unit normals differ by less than kNormalMatch (Euclidean)
/// and their offsets by less than kOffsetMatch·(1 + |offset|); the first of a face is kept. Normals
/// are bucketed on a grid of cell kCell = 100·kNormalMatch: a match lies in the normal's own cell,
/// or in a neighbour along an axis where the normal is within kNormalMatch of the cell's side
/// (looked up with a margin of 2: rounding of n / kCell is far below it). A hull's faces have
/// distinct outward normals, and faces 1e-8 apart in angle would need ~1e16 of them, so a bucket
/// holds one face or the copies of one. (A scan over every kept face took 16 s for 10⁵ points.)
class FaceSet {
 public:
  void add(const Plane<double>& pl, std::vector<Plane<double>>& faces) {
    std::int64_t c[3], from[3], to[3];
    for (int k = 0; k < 3; ++k) {
      const double t = pl.normal[k] / kCell;
      const double f = std::floor(t);
      c[k] = static_cast<std::int64_t>(f);
      from[k] = c[k] - (t - f < kMargin ? 1 : 0);
      to[k] = c[k] + (f + 1 - t < kMargin ? 1 : 0);
    }
    for (std::int64_t x = from[0]; x <= to[0]; ++x)
      for (std::int64_t y = from[1]; y <= to[1]; ++y)
        for (std::int64_t z = from[2]; z <= to[2]; ++z) {
          auto it = first_.find(Cell{x, y, z});
          if (it == first_.end()) continue;
          for (std::size_t i = it->second; i != kNone; i = next_[i])
            if (same(faces[i], pl)) return;
        }
    // Chain the new face in front of its cell's list.
    const auto [it, fresh] = first_.try_emplace(Cell{c[0], c[1], c[2]}, faces.size());
    next_.push_back(fresh ? kNone : it->second);
    if (!fresh) it->second = faces.size();
    faces.push_back(pl);
  }

 private:
  static constexpr double kNormalMatch = 1e-10;   // length of a normal difference (dimensionless)
  static constexpr double kNormalMatch2 = 1e-20;  // its square
  static constexpr double kOffsetMatch = 1e-12;   // relative to 1 + |offset| (length)
  static constexpr double kCell = 100 * kNormalMatch;
  static constexpr double kMargin = 2 * kNormalMatch / kCell;  // in cells
  using Cell = std::array<std::int64_t, 3>;
  struct CellHash {
    std::size_t operator()(const Cell& c) const noexcept {
      std::uint64_t h = 1469598103934665603ull;
      for (const std::int64_t x : c) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ull;
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  static bool same(const Plane<double>& f, const Plane<double>& pl) {
    return (f.normal - pl.normal).squaredNorm() < kNormalMatch2 &&
           std::abs(f.offset - pl.offset) < kOffsetMatch * (1 + std::abs(pl.offset));
  }
  static constexpr std::size_t kNone = ~std::size_t{0};
  std::unordered_map<Cell, std::size_t, CellHash> first_;  // a cell's latest face
  std::vector<std::size_t> next_;                          // the face kept before it in its cell
};

/// Runs qhull (`command`) on `dim`-dimensional coordinates and hands each facet's `dim` point
/// indices to `on_facet` (with qhull's facet); false when qhull fails or a facet is not a simplex.
/// Every point a facet uses is gathered in `used` (sorted, unique).
template <int dim, class Facet>
bool qhull_simplices(std::vector<double>& coords, const char* command, std::vector<int>& used, Facet&& on_facet) {
  QhullRun run(dim, coords, command);
  if (!run.ok) return false;
  qhT* qh = &run.qh;
  facetT* facet;
  vertexT *vertex, **vertexp;
  FORALLfacets {
    int ids[dim];
    int k = 0;
    FOREACHvertex_(facet->vertices) {
      if (k < dim) ids[k] = qh_pointid(qh, vertex->point);
      ++k;
    }
    if (k != dim) return false;  // "Qt" output is triangles in 3-d; edges in 2-d
    used.insert(used.end(), ids, ids + dim);
    on_facet(ids, facet);
  }
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  return true;
}

bool build_3d(const std::vector<V3>& pts, Hull<double>& h) {
  std::vector<double> coords;
  coords.reserve(pts.size() * 3);
  for (const auto& p : pts) coords.insert(coords.end(), {p.x(), p.y(), p.z()});
  std::vector<int> used;
  std::vector<std::pair<int, int>> edges;
  FaceSet faces;
  const bool ok = qhull_simplices<3>(coords, "qhull Qt", used, [&](const int* ids, facetT* f) {
    for (int i = 0; i < 3; ++i) edges.emplace_back(ids[i], ids[(i + 1) % 3]);
    // qhull's facet: normal·x + offset ≤ 0 inside. Merge the triangles of one face.
    faces.add(Plane<double>{V3(f->normal[0], f->normal[1], f->normal[2]), -f->offset}, h.faces);
  });
  if (!ok) return false;
  finish_graph(h, pts, used, std::move(edges));
  h.dimension = 3;
  return true;
}

bool build_2d(const std::vector<V3>& pts, const V3& origin, const V3& u, const V3& w, Hull<double>& h) {
  std::vector<double> coords;
  coords.reserve(pts.size() * 2);
  for (const auto& p : pts) coords.insert(coords.end(), {(p - origin).dot(u), (p - origin).dot(w)});
  std::vector<int> used;
  std::vector<std::pair<int, int>> edges;
  const bool ok =
      qhull_simplices<2>(coords, "qhull", used, [&](const int* ids, facetT*) { edges.emplace_back(ids[0], ids[1]); });
  if (!ok) return false;
  finish_graph(h, pts, used, std::move(edges));
  h.dimension = 2;
  return true;
}

/// Index of the point farthest from `from` (projected off `axis` when given).
int farthest(const std::vector<V3>& pts, const V3& from, const V3* axis, double& dist2) {
  int best = 0;
  dist2 = -1;
  for (int i = 0; i < static_cast<int>(pts.size()); ++i) {
    V3 d = pts[i] - from;
    if (axis) d -= axis->dot(d) * *axis;
    const double d2 = d.squaredNorm();
    if (d2 > dist2) {
      dist2 = d2;
      best = i;
    }
  }
  return best;
}

HullBuild<double> build_double(const std::vector<V3>& pts) {
  HullBuild<double> out;
  if (pts.empty()) {
    out.error = "points: empty";
    return out;
  }
  for (std::size_t i = 0; i < pts.size(); ++i) {
    if (!detail::point_ok(pts[i])) {
      out.error = detail::check_vector(pts[i], "points." + std::to_string(i));
      return out;
    }
  }
  Hull<double>& h = out.hull;
  double d2 = 0;
  const int i0 = farthest(pts, pts[0], nullptr, d2);
  const int i1 = farthest(pts, pts[i0], nullptr, d2);
  const double extent = std::sqrt(d2);
  auto single = [&](std::vector<int> ids) {
    std::vector<std::pair<int, int>> edges;
    if (ids.size() == 2) edges.emplace_back(ids[0], ids[1]);
    finish_graph(h, pts, ids, std::move(edges));
    h.dimension = static_cast<int>(ids.size()) - 1;
  };
  if (extent == 0.0) {
    single({0});
  } else {
    const V3 u = (pts[i1] - pts[i0]) / extent;
    double off2 = 0;
    const int i2 = farthest(pts, pts[i0], &u, off2);
    if (std::sqrt(off2) <= kFlatness * extent) {
      single({i0, i1});  // collinear: the two extreme points along u
    } else {
      V3 w = (pts[i2] - pts[i0]);
      w -= u.dot(w) * u;
      w.normalize();
      const V3 n = u.cross(w);
      double thick = 0;
      for (const auto& p : pts) thick = std::max(thick, std::abs(n.dot(p - pts[i0])));
      bool done = false;
      if (thick > kFlatness * extent) done = build_3d(pts, h);
      if (!done) {
        h = Hull<double>{};
        done = build_2d(pts, pts[i0], u, w, h);
      }
      if (!done) {
        h = Hull<double>{};
        single({i0, i1});
      }
    }
  }
  out.status = Status::hit;
  return out;
}

}  // namespace

template <class S>
HullBuild<S> Hull<S>::build(std::span<const Vec3<S>> points) {
  std::vector<V3> pts;
  pts.reserve(points.size());
  for (const auto& p : points) pts.push_back(p.template cast<double>());
  HullBuild<double> hd = build_double(pts);
  if constexpr (std::is_same_v<S, double>) {
    return hd;
  } else {
    HullBuild<S> out;
    out.status = hd.status;
    out.error = std::move(hd.error);
    for (const auto& v : hd.hull.vertices) out.hull.vertices.push_back(v.template cast<S>());
    out.hull.neighbor_offset = std::move(hd.hull.neighbor_offset);
    out.hull.neighbors = std::move(hd.hull.neighbors);
    out.hull.seeds = std::move(hd.hull.seeds);
    for (const auto& f : hd.hull.faces) out.hull.faces.push_back({f.normal.template cast<S>(), static_cast<S>(f.offset)});
    out.hull.dimension = hd.hull.dimension;
    out.hull.center = hd.hull.center.template cast<S>();
    return out;
  }
}

template struct Hull<float>;
template struct Hull<double>;

}  // namespace impact
