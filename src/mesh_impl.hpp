#pragma once
// impact — mesh_impl.hpp (included by mesh_float.cpp and mesh_double.cpp): planes, the AABB tree
// of bins, and the ray, sphere and shape casts against triangle meshes.
#include <impact/cast.hpp>
#include <impact/mesh.hpp>

#include <algorithm>
#include <bit>
#include <cstddef>
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

/// Whether every coordinate is finite and within Tolerances::max_magnitude (no string built).
template <class S>
bool vec_ok(const Vec3<S>& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]) &&
         std::abs(v[0]) <= Tolerances<S>::max_magnitude && std::abs(v[1]) <= Tolerances<S>::max_magnitude &&
         std::abs(v[2]) <= Tolerances<S>::max_magnitude;
}

/// What is wrong with `v` ("field.1: not finite"), or an empty string. The field's name is
/// copied only for an error, so a valid query builds no string.
template <class S>
std::string check_vec(const Vec3<S>& v, std::string_view field) {
  if (vec_ok(v)) return {};
  for (int i = 0; i < 3; ++i) {
    if (!std::isfinite(v[i])) return std::string(field) + "." + std::to_string(i) + ": not finite";
    if (std::abs(v[i]) > Tolerances<S>::max_magnitude) return std::string(field) + "." + std::to_string(i) + ": out of range";
  }
  return {};
}

template <class S>
std::string check_size(S x, std::string_view field) {
  if (!std::isfinite(x)) return std::string(field) + ": not finite";
  if (x < S(0)) return std::string(field) + ": negative";
  if (x > Tolerances<S>::max_magnitude) return std::string(field) + ": out of range";
  return {};
}

/// Node boxes are grown outward by this many ulps of their largest coordinate (dimensionless), so
/// the rounding of the slab test never culls a bin whose triangle the exact test would hit: the
/// tree must find exactly what brute force finds, including rays through shared edges on a
/// bin's boundary.
template <class S>
constexpr S box_slack = S(16) * std::numeric_limits<S>::epsilon();

/// Widening of the far parameter of the slab test (dimensionless, 1 + 8 ulps): see Segment3::entry.
template <class S>
constexpr S slab_widen = S(1) + S(8) * std::numeric_limits<S>::epsilon();

struct BuildItem {
  double lo[3], hi[3], centre[3];
  std::uint32_t index;
};

template <class S>
void grow_box(MeshNode<S>& n) {
  for (int i = 0; i < 3; ++i) {
    const S m = std::max(std::abs(n.lo[i]), std::abs(n.hi[i]));
    const S g = box_slack<S> * m + std::numeric_limits<S>::min();
    n.lo[i] -= g;
    n.hi[i] += g;
  }
}

/// Binned SAH (Wald, "On fast construction of SAH-based bounding volume hierarchies", 2007):
/// 16 bins per axis over the centres' bounds; sets `axis` and `plane` to the cheapest split
/// (sum over both sides of box surface × triangle count). Leaves them unchanged when the centres
/// coincide.
inline void sah_plane(const std::vector<BuildItem>& items, std::size_t begin, std::size_t end, int& axis,
                      double& plane) {
  constexpr int kBins = 16;
  double clo[3], chi[3];
  for (int k = 0; k < 3; ++k) clo[k] = chi[k] = items[begin].centre[k];
  for (std::size_t i = begin; i < end; ++i)
    for (int k = 0; k < 3; ++k) {
      clo[k] = std::min(clo[k], items[i].centre[k]);
      chi[k] = std::max(chi[k], items[i].centre[k]);
    }
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 3; ++k) {
    const double ext = chi[k] - clo[k];
    if (!(ext > 0)) continue;
    struct Bin {
      double lo[3] = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::infinity()};
      double hi[3] = {-std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                      -std::numeric_limits<double>::infinity()};
      std::size_t n = 0;
      void add(const double* l, const double* h, std::size_t c) {
        for (int j = 0; j < 3; ++j) {
          lo[j] = std::min(lo[j], l[j]);
          hi[j] = std::max(hi[j], h[j]);
        }
        n += c;
      }
      double area() const {
        if (n == 0) return 0.0;
        const double x = hi[0] - lo[0], y = hi[1] - lo[1], z = hi[2] - lo[2];
        return x * y + y * z + z * x;
      }
    } bins[kBins];
    const double scale = kBins / ext;
    auto bin_of = [&](double c) { return std::min(kBins - 1, static_cast<int>((c - clo[k]) * scale)); };
    for (std::size_t i = begin; i < end; ++i) bins[bin_of(items[i].centre[k])].add(items[i].lo, items[i].hi, 1);
    Bin right[kBins];
    Bin acc;
    for (int b = kBins - 1; b > 0; --b) {
      acc.add(bins[b].lo, bins[b].hi, bins[b].n);
      right[b] = acc;
    }
    Bin left;
    for (int b = 1; b < kBins; ++b) {
      left.add(bins[b - 1].lo, bins[b - 1].hi, bins[b - 1].n);
      if (left.n == 0 || right[b].n == 0) continue;
      const double cost = left.area() * double(left.n) + right[b].area() * double(right[b].n);
      if (cost < best) {
        best = cost;
        axis = k;
        plane = clo[k] + b / scale;
      }
    }
  }
}

/// Schroeder's bins: a bin encompassing its triangles' boxes is halved across its longest axis and
/// each triangle goes to the half holding its centre; recursion stops at `leaf_size` triangles or
/// `max_depth`. When every centre falls in one half (long thin triangles, duplicates) the bin is
/// split at the median centre instead, so the recursion always makes progress.
template <class S>
void build_node(TriangleMesh<S>& m, std::vector<BuildItem>& items, std::size_t begin, std::size_t end, int depth,
                std::uint32_t node, const MeshBuildOptions& opt) {
  double lo[3] = {items[begin].lo[0], items[begin].lo[1], items[begin].lo[2]};
  double hi[3] = {items[begin].hi[0], items[begin].hi[1], items[begin].hi[2]};
  for (std::size_t i = begin + 1; i < end; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], items[i].lo[k]);
      hi[k] = std::max(hi[k], items[i].hi[k]);
    }
  {
    MeshNode<S>& n = m.nodes[node];
    n.lo = Vec3<S>(S(lo[0]), S(lo[1]), S(lo[2]));
    n.hi = Vec3<S>(S(hi[0]), S(hi[1]), S(hi[2]));
    grow_box(n);
  }
  m.depth = std::max(m.depth, depth);
  const std::size_t count = end - begin;
  auto make_leaf = [&] {
    MeshNode<S>& n = m.nodes[node];
    n.first = static_cast<std::uint32_t>(m.blocks.size());
    n.count = static_cast<std::uint32_t>(count);
    for (std::size_t i = begin; i < end; i += 4) {
      TriangleBlock4<S>& blk = m.blocks.emplace_back();
      for (std::size_t l = 0; l < 4; ++l) {
        const std::uint32_t index = items[std::min(i + l, end - 1)].index;  // padding repeats the last
        const auto& t = m.triangles[index];
        for (int k = 0; k < 3; ++k) {
          blk.a[k][l] = m.vertices[t[0]][k];
          blk.b[k][l] = m.vertices[t[1]][k];
          blk.c[k][l] = m.vertices[t[2]][k];
        }
        blk.index[l] = index;
      }
    }
    m.packed_triangles += count;
  };
  if (count <= static_cast<std::size_t>(std::max(1, opt.leaf_size)) ||
      depth >= std::min(opt.max_depth, kMeshMaxDepth)) {
    make_leaf();
    return;
  }
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  double mid = 0.5 * (lo[axis] + hi[axis]);
  if (opt.split == MeshSplit::sah) sah_plane(items, begin, end, axis, mid);
  auto first = items.begin() + static_cast<std::ptrdiff_t>(begin);
  auto last = items.begin() + static_cast<std::ptrdiff_t>(end);
  auto split = std::partition(first, last, [&](const BuildItem& it) { return it.centre[axis] < mid; });
  if (split == first || split == last) {
    // Every centre in one half: split at the median centre along the longest centre spread.
    double clo[3], chi[3];
    for (int k = 0; k < 3; ++k) clo[k] = chi[k] = first->centre[k];
    for (auto it = first; it != last; ++it)
      for (int k = 0; k < 3; ++k) {
        clo[k] = std::min(clo[k], it->centre[k]);
        chi[k] = std::max(chi[k], it->centre[k]);
      }
    int cax = 0;
    for (int k = 1; k < 3; ++k)
      if (chi[k] - clo[k] > chi[cax] - clo[cax]) cax = k;
    split = first + static_cast<std::ptrdiff_t>(count / 2);
    std::nth_element(first, split, last,
                     [&](const BuildItem& x, const BuildItem& y) { return x.centre[cax] < y.centre[cax]; });
  }
  const std::size_t s = static_cast<std::size_t>(split - items.begin());
  const auto child = static_cast<std::uint32_t>(m.nodes.size());
  m.nodes.emplace_back();
  m.nodes.emplace_back();
  m.nodes[node].first = child;
  m.nodes[node].count = 0;
  build_node(m, items, begin, s, depth + 1, child, opt);
  build_node(m, items, s, end, depth + 1, child + 1, opt);
}

/// A bin's bound as a float for the wide nodes: a float bound as it is (already grown); a double
/// one rounded outward (`side` −1: down, +1: up) and grown by box_slack<float> of its magnitude,
/// so the float slab test has the same margin against its own rounding as a float mesh's.
template <class S>
float float_box_bound(S x, int side) {
  if constexpr (std::is_same_v<S, float>) {
    return x;
  } else {
    const double g = double(box_slack<float>) * std::abs(x) + double(std::numeric_limits<float>::min());
    const double y = side < 0 ? x - g : x + g;
    float f = static_cast<float>(y);
    if (side < 0 && double(f) > y) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    if (side > 0 && double(f) < y) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
  }
}

/// Collapses binary node `b` (an inner node) into wide node `w`: starting from b's two children,
/// the inner child with the largest box surface is replaced by its children until kMeshWidth
/// slots are full or only leaves remain; inner slots become wide nodes in turn.
template <class S>
void collapse(TriangleMesh<S>& m, std::uint32_t b, std::uint32_t w) {
  constexpr int W = kMeshWidth;
  std::uint32_t slots[W] = {m.nodes[b].first, m.nodes[b].first + 1};
  int n = 2;
  auto area = [&](std::uint32_t i) {
    const Vec3<S> e = m.nodes[i].hi - m.nodes[i].lo;
    return e.x() * e.y() + e.y() * e.z() + e.z() * e.x();
  };
  while (n < W) {
    int best = -1;
    for (int i = 0; i < n; ++i)
      if (m.nodes[slots[i]].count == 0 && (best < 0 || area(slots[i]) > area(slots[best]))) best = i;
    if (best < 0) break;
    const std::uint32_t open = slots[best];
    slots[best] = m.nodes[open].first;
    slots[n++] = m.nodes[open].first + 1;
  }
  std::uint32_t inner[W];
  int ninner = 0;
  for (int i = 0; i < W; ++i) {
    MeshWideNode<S>& N = m.wide[w];
    if (i >= n) {
      for (int k = 0; k < 3; ++k) {
        N.lo[k][i] = std::numeric_limits<S>::infinity();
        N.hi[k][i] = -std::numeric_limits<S>::infinity();
      }
      N.child[i] = MeshWideNode<S>::kEmpty;
      N.count[i] = 0;
      continue;
    }
    const MeshNode<S>& c = m.nodes[slots[i]];
    for (int k = 0; k < 3; ++k) {
      N.lo[k][i] = float_box_bound(c.lo[k], -1);
      N.hi[k][i] = float_box_bound(c.hi[k], +1);
    }
    N.count[i] = c.count;
    if (c.count > 0) {
      N.child[i] = c.first;
    } else {
      N.child[i] = static_cast<std::uint32_t>(m.wide.size());
      m.wide.emplace_back();
      inner[ninner++] = static_cast<std::uint32_t>(i);
    }
  }
  for (int j = 0; j < ninner; ++j) {
    const std::uint32_t i = inner[j];
    collapse(m, slots[i], m.wide[w].child[i]);
  }
}

// ---- the segment-vs-box test and the tree walk ---------------------------------------------

/// Four lanes of S with the few operations the four-box slab test needs: SSE on x86-64 (two
/// registers for double), plain loops elsewhere. Every operation is the IEEE one, lane by lane.
template <class S>
struct Lanes4 {
  S v[4];
  static Lanes4 load(const S* p) { return {{p[0], p[1], p[2], p[3]}}; }
  static Lanes4 splat(S x) { return {{x, x, x, x}}; }
  template <class F>
  static Lanes4 map(const Lanes4& a, const Lanes4& b, F f) {
    return {{f(a.v[0], b.v[0]), f(a.v[1], b.v[1]), f(a.v[2], b.v[2]), f(a.v[3], b.v[3])}};
  }
  friend Lanes4 operator+(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x + y; }); }
  friend Lanes4 operator-(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x - y; }); }
  friend Lanes4 operator/(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x / y; }); }
  friend Lanes4 operator*(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x * y; }); }
  static Lanes4 max(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x > y ? x : y; }); }
  static Lanes4 min(const Lanes4& a, const Lanes4& b) { return map(a, b, [](S x, S y) { return x < y ? x : y; }); }
  template <class F>
  static int mask(const Lanes4& a, const Lanes4& b, F f) {
    return int(f(a.v[0], b.v[0])) | int(f(a.v[1], b.v[1])) << 1 | int(f(a.v[2], b.v[2])) << 2 | int(f(a.v[3], b.v[3])) << 3;
  }
  static int le_mask(const Lanes4& a, const Lanes4& b) { return mask(a, b, [](S x, S y) { return x <= y; }); }
  static int lt_mask(const Lanes4& a, const Lanes4& b) { return mask(a, b, [](S x, S y) { return x < y; }); }
  static int eq_mask(const Lanes4& a, const Lanes4& b) { return mask(a, b, [](S x, S y) { return x == y; }); }
  void store(S* p) const { std::copy(v, v + 4, p); }
};

#if defined(__SSE2__)
template <>
struct Lanes4<float> {
  __m128 v;
  static Lanes4 load(const float* p) { return {_mm_load_ps(p)}; }
  static Lanes4 splat(float x) { return {_mm_set1_ps(x)}; }
  friend Lanes4 operator+(Lanes4 a, Lanes4 b) { return {_mm_add_ps(a.v, b.v)}; }
  friend Lanes4 operator-(Lanes4 a, Lanes4 b) { return {_mm_sub_ps(a.v, b.v)}; }
  friend Lanes4 operator*(Lanes4 a, Lanes4 b) { return {_mm_mul_ps(a.v, b.v)}; }
  friend Lanes4 operator/(Lanes4 a, Lanes4 b) { return {_mm_div_ps(a.v, b.v)}; }
  static Lanes4 max(Lanes4 a, Lanes4 b) { return {_mm_max_ps(a.v, b.v)}; }
  static Lanes4 min(Lanes4 a, Lanes4 b) { return {_mm_min_ps(a.v, b.v)}; }
  static int le_mask(Lanes4 a, Lanes4 b) { return _mm_movemask_ps(_mm_cmple_ps(a.v, b.v)); }
  static int lt_mask(Lanes4 a, Lanes4 b) { return _mm_movemask_ps(_mm_cmplt_ps(a.v, b.v)); }
  static int eq_mask(Lanes4 a, Lanes4 b) { return _mm_movemask_ps(_mm_cmpeq_ps(a.v, b.v)); }
  void store(float* p) const { _mm_storeu_ps(p, v); }
};

template <>
struct Lanes4<double> {
  __m128d lo, hi;
  static Lanes4 load(const double* p) { return {_mm_load_pd(p), _mm_load_pd(p + 2)}; }
  static Lanes4 splat(double x) { return {_mm_set1_pd(x), _mm_set1_pd(x)}; }
  friend Lanes4 operator+(Lanes4 a, Lanes4 b) { return {_mm_add_pd(a.lo, b.lo), _mm_add_pd(a.hi, b.hi)}; }
  friend Lanes4 operator-(Lanes4 a, Lanes4 b) { return {_mm_sub_pd(a.lo, b.lo), _mm_sub_pd(a.hi, b.hi)}; }
  friend Lanes4 operator*(Lanes4 a, Lanes4 b) { return {_mm_mul_pd(a.lo, b.lo), _mm_mul_pd(a.hi, b.hi)}; }
  friend Lanes4 operator/(Lanes4 a, Lanes4 b) { return {_mm_div_pd(a.lo, b.lo), _mm_div_pd(a.hi, b.hi)}; }
  static Lanes4 max(Lanes4 a, Lanes4 b) { return {_mm_max_pd(a.lo, b.lo), _mm_max_pd(a.hi, b.hi)}; }
  static Lanes4 min(Lanes4 a, Lanes4 b) { return {_mm_min_pd(a.lo, b.lo), _mm_min_pd(a.hi, b.hi)}; }
  static int le_mask(Lanes4 a, Lanes4 b) {
    return _mm_movemask_pd(_mm_cmple_pd(a.lo, b.lo)) | _mm_movemask_pd(_mm_cmple_pd(a.hi, b.hi)) << 2;
  }
  static int lt_mask(Lanes4 a, Lanes4 b) {
    return _mm_movemask_pd(_mm_cmplt_pd(a.lo, b.lo)) | _mm_movemask_pd(_mm_cmplt_pd(a.hi, b.hi)) << 2;
  }
  static int eq_mask(Lanes4 a, Lanes4 b) {
    return _mm_movemask_pd(_mm_cmpeq_pd(a.lo, b.lo)) | _mm_movemask_pd(_mm_cmpeq_pd(a.hi, b.hi)) << 2;
  }
  void store(double* p) const {
    _mm_storeu_pd(p, lo);
    _mm_storeu_pd(p + 2, hi);
  }
};
#endif

/// A segment origin + t·dir, t ∈ [0, t_max], against boxes grown by (grow_lo, grow_hi): the slab
/// test (Kay and Kajiya), branch-free. Per axis the near and far planes are chosen once per
/// segment from the sign of dir, and the growth is folded into the origin. Components of dir
/// that are zero get a huge finite reciprocal instead of infinity, so 0·∞ never makes a NaN.
template <class S>
struct Segment3 {
  S inv[3];
  S o_near[3], o_far[3];  // origin shifted by the growth of the near / far plane
  int near_hi[3];         // 1 when the near plane of the axis is the box's max (dir < 0)
  // The same per axis for the wide nodes' float boxes: in float, splatted to four lanes (for a
  // double segment: grown by float ulps of the query's magnitudes, like a float segment), and the
  // byte offsets in a MeshWideNode of the near and far planes' coordinates.
  Lanes4<float> l_inv[3], l_near[3], l_far[3];
  std::uint32_t near_at[3], far_at[3];
  Segment3(const Vec3<S>& o, const Vec3<S>& d, const Vec3<S>& glo_in, const Vec3<S>& ghi_in) {
    // The triangle tests round in the query's own frame (the origin, the path, the radius), so
    // the boxes are also grown by a few ulps of those magnitudes: a bin is never culled by a
    // rounding error smaller than the one in the time of a triangle inside it (ties included).
    const S mag = std::max(o.cwiseAbs().maxCoeff(), Vec3<S>(o + d).cwiseAbs().maxCoeff()) +
                  std::max(glo_in.maxCoeff(), ghi_in.maxCoeff());
    const S slack = S(16) * std::numeric_limits<S>::epsilon() * mag;
    const Vec3<S> glo = glo_in.array() + slack, ghi = ghi_in.array() + slack;
    for (int i = 0; i < 3; ++i) {
      const S big = std::numeric_limits<S>::max();
      inv[i] = std::abs(d[i]) > std::numeric_limits<S>::min() * S(4) ? S(1) / d[i] : std::copysign(big, d[i]);
      near_hi[i] = inv[i] < S(0);
      // near plane lo − glo (dir ≥ 0) or hi + ghi (dir < 0); far plane the other one.
      o_near[i] = near_hi[i] ? o[i] - ghi[i] : o[i] + glo[i];
      o_far[i] = near_hi[i] ? o[i] + glo[i] : o[i] - ghi[i];
      if constexpr (std::is_same_v<S, float>) {
        l_inv[i] = Lanes4<float>::splat(inv[i]);
        l_near[i] = Lanes4<float>::splat(o_near[i]);
        l_far[i] = Lanes4<float>::splat(o_far[i]);
      } else {
        // A direction component too small for a float reciprocal moves the segment by less than
        // 4 FLT_MIN · max_magnitude along its axis: added to the slack, it is parallel there.
        constexpr double fmin = std::numeric_limits<float>::min();
        const double slack_f = 16.0 * std::numeric_limits<float>::epsilon() * mag + 4.0 * fmin * Tolerances<S>::max_magnitude;
        const double lo_f = glo_in[i] + slack_f, hi_f = ghi_in[i] + slack_f;
        const float inv_f = std::abs(d[i]) > 4.0 * fmin ? static_cast<float>(1.0 / d[i])
                                                        : std::copysign(std::numeric_limits<float>::max(), float(d[i]));
        l_inv[i] = Lanes4<float>::splat(inv_f);
        l_near[i] = Lanes4<float>::splat(static_cast<float>(near_hi[i] ? o[i] - hi_f : o[i] + lo_f));
        l_far[i] = Lanes4<float>::splat(static_cast<float>(near_hi[i] ? o[i] + lo_f : o[i] - hi_f));
      }
      const auto lo_at = static_cast<std::uint32_t>(offsetof(MeshWideNode<S>, lo) + kMeshWidth * sizeof(float) * i);
      const auto hi_at = static_cast<std::uint32_t>(offsetof(MeshWideNode<S>, hi) + kMeshWidth * sizeof(float) * i);
      near_at[i] = near_hi[i] ? hi_at : lo_at;
      far_at[i] = near_hi[i] ? lo_at : hi_at;
    }
  }
  /// Entry parameter of the segment into the node's grown box, or +inf when it misses.
  S entry(const MeshNode<S>& n, S t_max) const {
    const Vec3<S>* b[2] = {&n.lo, &n.hi};
    S t0 = S(0), t1 = t_max;
    for (int i = 0; i < 3; ++i) {
      const S a = ((*b[near_hi[i]])[i] - o_near[i]) * inv[i];
      const S c = ((*b[1 - near_hi[i]])[i] - o_far[i]) * inv[i];
      t0 = std::max(t0, a);
      t1 = std::min(t1, c);
    }
    // Robust slab test (Ize 2013): each t has a relative error of about 3 ulps (a subtraction,
    // a reciprocal, a product), so the far bound is widened by more than twice that.
    return t0 <= t1 * slab_widen<S> ? t0 : std::numeric_limits<S>::infinity();
  }
  /// The same for the boxes of a wide node, four at a time: the entry parameters go to `out` and
  /// the result has bit i set when slot i is entered before t_max (empty slots, whose boxes are
  /// inverted infinite ones, never are).
  int entry_wide(const MeshWideNode<S>& n, S t_max, float out[kMeshWidth]) const {
    using L = Lanes4<float>;
    float tm = static_cast<float>(t_max);  // rounded up: the far bound is never lowered
    if (S(tm) < t_max) tm = std::nextafter(tm, std::numeric_limits<float>::infinity());
    int mask = 0;
    for (int g = 0; g < kMeshWidth; g += 4) {
      const char* base = reinterpret_cast<const char*>(&n) + g * sizeof(float);
      L t0 = L::splat(0.0f), t1 = L::splat(tm);
      for (int k = 0; k < 3; ++k) {
        const L nb = L::load(reinterpret_cast<const float*>(base + near_at[k]));
        const L fb = L::load(reinterpret_cast<const float*>(base + far_at[k]));
        t0 = L::max(t0, (nb - l_near[k]) * l_inv[k]);
        t1 = L::min(t1, (fb - l_far[k]) * l_inv[k]);
      }
      t0.store(out + g);
      mask |= L::le_mask(t0, t1 * L::splat(slab_widen<float>)) << g;
    }
    return mask;
  }
};

/// Starts fetching a wide node (count 0) or a leaf's first triangles into the cache.
template <class S>
inline void prefetch_item(const TriangleMesh<S>& m, std::uint32_t ref, std::uint32_t count) {
#if defined(__GNUC__)
  const char* p = count == 0 ? reinterpret_cast<const char*>(&m.wide[ref]) : reinterpret_cast<const char*>(&m.blocks[ref]);
  __builtin_prefetch(p);
  __builtin_prefetch(p + 64);
#else
  (void)m, (void)ref, (void)count;
#endif
}

/// Walks the tree nearest bin first, calling leaf(first block, triangle count, t_best&) on every
/// leaf whose grown box the segment enters before t_best; leaf lowers t_best on a hit. Fixed
/// stack: no allocation. The nearest child entered is visited next without a round trip through
/// the stack; the others are pushed far to near, and dropped when popped behind t_best.
template <class S, class Leaf>
void walk_leaves(const TriangleMesh<S>& m, const Segment3<S>& seg, S& t_best, Leaf&& leaf) {
  if (m.nodes.empty()) return;
  const MeshNode<S>& root = m.nodes[0];
  if (!(seg.entry(root, t_best) <= t_best)) return;
  if (root.count > 0) {  // a single leaf
    leaf(root.first, root.count, t_best);
    return;
  }
  // Stack of wide nodes (count 0) and leaves (first block, count), each with its entry
  // t. Each wide level pushes at most kMeshWidth − 1 items and the wide tree is at most
  // kMeshMaxDepth deep.
  struct Item {
    std::uint32_t ref, count;
    float t;  // entry into the item's (float) box
  };
  Item stack[(kMeshWidth - 1) * kMeshMaxDepth + 8];
  int top = 0;
  std::uint32_t ref = 0, count = 0;  // the current wide node (count 0) or leaf
  for (;;) {
    if (count == 0) {
      const MeshWideNode<S>& w = m.wide[ref];
      float t[kMeshWidth];
      unsigned mask = static_cast<unsigned>(seg.entry_wide(w, t_best, t));
      if (mask != 0) {
        const int i0 = std::countr_zero(mask);
        mask &= mask - 1;
        if (mask == 0) {  // one child entered: go down
          ref = w.child[i0];
          count = w.count[i0];
          continue;
        }
        const int i1 = std::countr_zero(mask);
        mask &= mask - 1;
        if (mask == 0) {  // two: the far one waits on the stack
          const int near = t[i1] < t[i0] ? i1 : i0, far = i0 + i1 - near;
          stack[top++] = {w.child[far], w.count[far], t[far]};
          prefetch_item(m, w.child[far], w.count[far]);
          ref = w.child[near];
          count = w.count[near];
          continue;
        }
        // More: sorted far to near by insertion, all but the nearest pushed.
        int order[kMeshWidth] = {i0, i1};  // far to near
        if (t[i0] < t[i1]) std::swap(order[0], order[1]);
        int n = 2;
        while (mask != 0) {
          const int i = std::countr_zero(mask);
          mask &= mask - 1;
          int j = n++;
          while (j > 0 && t[order[j - 1]] < t[i]) {
            order[j] = order[j - 1];
            --j;
          }
          order[j] = i;
        }
        for (int j = 0; j + 1 < n; ++j) {
          stack[top++] = {w.child[order[j]], w.count[order[j]], t[order[j]]};
          prefetch_item(m, w.child[order[j]], w.count[order[j]]);
        }
        ref = w.child[order[n - 1]];
        count = w.count[order[n - 1]];
        continue;
      }
    } else {
      leaf(ref, count, t_best);
    }
    // Next: the nearest item on the stack still in front of t_best.
    for (;;) {
      if (top == 0) return;
      const Item& it = stack[--top];
      if (it.t <= t_best) {
        ref = it.ref;
        count = it.count;
        break;
      }
    }
  }
}

/// walk_leaves calling visit(packed triangle, t_best&) on each triangle of the leaves reached.
template <class S, class Visit>
void walk(const TriangleMesh<S>& m, const Segment3<S>& seg, S& t_best, Visit&& visit) {
  walk_leaves(m, seg, t_best, [&](std::uint32_t first, std::uint32_t count, S& tb) {
    for (std::uint32_t i = 0; i < count; ++i) visit(m.blocks[first + i / 4].lane(static_cast<int>(i % 4)), tb);
  });
}

/// Every non-degenerate triangle in index order (the brute-force oracle).
template <class S, class Visit>
void brute(const TriangleMesh<S>& m, S& t_best, Visit&& visit) {
  for (std::uint32_t i = 0; i < m.triangles.size(); ++i) {
    if (m.degenerate[i]) continue;
    const auto& t = m.triangles[i];
    const PackedTriangle<S> p{m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]], i};
    visit(p, t_best);
  }
}

/// (t, index) ordering: earlier first, then the lower triangle index, so the tree and brute force
/// pick the same triangle when several are hit at the same time.
template <class S>
bool better(S t, std::uint32_t i, S t_best, std::uint32_t i_best, bool have) {
  return !have || t < t_best || (t == t_best && i < i_best);
}

// ---- ray vs triangle ---------------------------------------------------------------------------

/// Per-ray set-up of the watertight test (Woop, Benthin, Wald 2013): the axis kz of largest
/// |direction| becomes the ray's axis, the other two are sheared so the ray is the z axis of a
/// frame at its origin; kx and ky swap when direction[kz] < 0 to keep the winding.
template <class S>
struct WatertightRay {
  int kx = 0, ky = 1, kz = 2;
  S sx = 0, sy = 0, sz = 1;
  S ox = 0, oy = 0, oz = 0;  // origin[kx], origin[ky], origin[kz]
  explicit WatertightRay(const Ray<S>& r) {
    const Vec3<S> a = r.direction.cwiseAbs();
    kz = a[0] >= a[1] ? (a[0] >= a[2] ? 0 : 2) : (a[1] >= a[2] ? 1 : 2);
    kx = (kz + 1) % 3;
    ky = (kx + 1) % 3;
    if (r.direction[kz] < S(0)) std::swap(kx, ky);
    sx = r.direction[kx] / r.direction[kz];
    sy = r.direction[ky] / r.direction[kz];
    sz = S(1) / r.direction[kz];
    ox = r.origin[kx];
    oy = r.origin[ky];
    oz = r.origin[kz];
  }
};

/// λ of the crossing of the ray with triangle (a, b, c) when it is in [0, t_best] (and a
/// front-to-back crossing under BackFaces::ignore); false otherwise. The three edge functions
/// U, V, W are computed from the same products for both triangles sharing an edge (with opposite
/// signs), so a point on a shared edge is inside at least one of them; a zero edge function is
/// re-evaluated in double for float, as the paper advises.
template <class S>
[[gnu::always_inline]] inline bool ray_triangle(const WatertightRay<S>& r, const PackedTriangle<S>& tri, BackFaces bf, S t_best, S& lambda) {
  // Corners relative to the origin, sheared so the ray is the z axis.
  const S Az = tri.a[r.kz] - r.oz, Bz = tri.b[r.kz] - r.oz, Cz = tri.c[r.kz] - r.oz;
  const S ax = (tri.a[r.kx] - r.ox) - r.sx * Az, ay = (tri.a[r.ky] - r.oy) - r.sy * Az;
  const S bx = (tri.b[r.kx] - r.ox) - r.sx * Bz, by = (tri.b[r.ky] - r.oy) - r.sy * Bz;
  const S cx = (tri.c[r.kx] - r.ox) - r.sx * Cz, cy = (tri.c[r.ky] - r.oy) - r.sy * Cz;
  S u = cx * by - cy * bx;
  S v = ax * cy - ay * cx;
  S w = bx * ay - by * ax;
  if constexpr (sizeof(S) < sizeof(double)) {
    if (u == S(0) || v == S(0) || w == S(0)) [[unlikely]] {
      u = static_cast<S>(double(cx) * double(by) - double(cy) * double(bx));
      v = static_cast<S>(double(ax) * double(cy) - double(ay) * double(cx));
      w = static_cast<S>(double(bx) * double(ay) - double(by) * double(ax));
    }
  }
  // With this winding a front-to-back crossing has u, v, w ≥ 0 (det > 0).
  if (bf == BackFaces::ignore) {
    if (u < S(0) || v < S(0) || w < S(0)) return false;
  } else if ((u < S(0) || v < S(0) || w < S(0)) && (u > S(0) || v > S(0) || w > S(0))) {
    return false;
  }
  const S det = u + v + w;
  if (det == S(0)) return false;  // the ray lies in the triangle's plane
  const S az = r.sz * Az, bz = r.sz * Bz, cz = r.sz * Cz;
  const S t = u * az + v * bz + w * cz;
  // Cheap rejection with a bound widened by rounding, then the exact test on λ itself (so a tie
  // with t_best is decided the same way whatever order triangles come in).
  constexpr S widen = S(1) + S(4) * std::numeric_limits<S>::epsilon();
  if (det > S(0)) {
    if (t < S(0) || t > t_best * det * widen) return false;
  } else {
    if (t > S(0) || t < t_best * det * widen) return false;
  }
  lambda = t / det;
  return lambda <= t_best;
}

/// ray_triangle on the four lanes of a block at once, with the same operations in the same order
/// lane by lane (so each lane's λ is bit for bit the scalar one). Returns the lanes crossed at
/// λ ≤ t_best (their λ in `lambda`); `redo` gets the float lanes with a zero edge function, which
/// the caller passes to ray_triangle for its double re-evaluation.
template <class S>
[[gnu::always_inline]] inline int ray_block(const WatertightRay<S>& r, const TriangleBlock4<S>& blk, BackFaces bf,
                                            S t_best, S lambda[4], int& redo) {
  using L = Lanes4<S>;
  const L ox = L::splat(r.ox), oy = L::splat(r.oy), oz = L::splat(r.oz), sx = L::splat(r.sx), sy = L::splat(r.sy);
  const L Az = L::load(blk.a[r.kz]) - oz, Bz = L::load(blk.b[r.kz]) - oz, Cz = L::load(blk.c[r.kz]) - oz;
  const L ax = (L::load(blk.a[r.kx]) - ox) - sx * Az, ay = (L::load(blk.a[r.ky]) - oy) - sy * Az;
  const L bx = (L::load(blk.b[r.kx]) - ox) - sx * Bz, by = (L::load(blk.b[r.ky]) - oy) - sy * Bz;
  const L cx = (L::load(blk.c[r.kx]) - ox) - sx * Cz, cy = (L::load(blk.c[r.ky]) - oy) - sy * Cz;
  const L u = cx * by - cy * bx, v = ax * cy - ay * cx, w = bx * ay - by * ax;
  const L zero = L::splat(S(0));
  const int neg = L::lt_mask(u, zero) | L::lt_mask(v, zero) | L::lt_mask(w, zero);
  const int pos = L::lt_mask(zero, u) | L::lt_mask(zero, v) | L::lt_mask(zero, w);
  redo = 0;
  if constexpr (sizeof(S) < sizeof(double)) redo = L::eq_mask(u, zero) | L::eq_mask(v, zero) | L::eq_mask(w, zero);
  int keep = 0xf & ~redo & ~(bf == BackFaces::ignore ? neg : neg & pos);
  if (keep == 0) return 0;
  const L det = u + v + w;
  keep &= ~L::eq_mask(det, zero);
  const L sz = L::splat(r.sz);
  const L t = u * (sz * Az) + v * (sz * Bz) + w * (sz * Cz);
  constexpr S widen = S(1) + S(4) * std::numeric_limits<S>::epsilon();
  const L bound = L::splat(t_best) * det * L::splat(widen);
  const int det_pos = L::lt_mask(zero, det);
  // det > 0: t in [0, bound]; det < 0: t in [bound, 0].
  const int out_pos = L::lt_mask(t, zero) | L::lt_mask(bound, t);
  const int out_neg = L::lt_mask(zero, t) | L::lt_mask(t, bound);
  keep &= ~((det_pos & out_pos) | (~det_pos & out_neg));
  if (keep == 0) return 0;
  const L lam = t / det;
  lam.store(lambda);
  return keep & L::le_mask(lam, L::splat(t_best));
}

/// The unit front normal (b − a) × (c − a) / |…| of a triangle in double; false when its area is
/// zero (or not finite). build_mesh stores it rounded to S, and a ray's answer computes it again
/// from the hit block's corners (the same operations, so the same bits) instead of reading
/// `normals` at a random place in memory.
inline bool unit_front_normal(const Vec3<double>& a, const Vec3<double>& b, const Vec3<double>& c, Vec3<double>& n) {
  const Vec3<double> cr = (b - a).cross(c - a);
  const double len = cr.norm();
  if (!(len > 0.0) || !std::isfinite(len)) return false;
  n = cr / len;
  return true;
}

// ---- closest point (initial overlaps) ----------------------------------------------------------

/// Closest point of triangle (a, b, c) to p, with the feature it lies on (Ericson, Real-Time
/// Collision Detection, §5.1.5, by Voronoi regions). Computed in double: its products of dot
/// products are fourth powers of lengths, which overflow float beyond about 1e9.
inline Vec3<double> closest_on_triangle_double(const Vec3<double>& p, const Vec3<double>& a, const Vec3<double>& b,
                                               const Vec3<double>& c, MeshFeature& f) {
  using S = double;
  const Vec3<S> ab = b - a, ac = c - a, ap = p - a;
  const S d1 = ab.dot(ap), d2 = ac.dot(ap);
  f = MeshFeature::vertex;
  if (d1 <= S(0) && d2 <= S(0)) return a;
  const Vec3<S> bp = p - b;
  const S d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= S(0) && d4 <= d3) return b;
  const S vc = d1 * d4 - d3 * d2;
  f = MeshFeature::edge;
  if (vc <= S(0) && d1 >= S(0) && d3 <= S(0)) return a + ab * (d1 / (d1 - d3));
  const Vec3<S> cp = p - c;
  const S d5 = ab.dot(cp), d6 = ac.dot(cp);
  f = MeshFeature::vertex;
  if (d6 >= S(0) && d5 <= d6) return c;
  const S vb = d5 * d2 - d1 * d6;
  f = MeshFeature::edge;
  if (vb <= S(0) && d2 >= S(0) && d6 <= S(0)) return a + ac * (d2 / (d2 - d6));
  const S va = d3 * d6 - d5 * d4;
  if (va <= S(0) && (d4 - d3) >= S(0) && (d5 - d6) >= S(0)) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  f = MeshFeature::face;
  const S denom = S(1) / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

template <class S>
Vec3<S> closest_on_triangle(const Vec3<S>& p, const Vec3<S>& a, const Vec3<S>& b, const Vec3<S>& c, MeshFeature& f) {
  if constexpr (!std::is_same_v<S, double>) {
    return closest_on_triangle<double>(p.template cast<double>(), a.template cast<double>(), b.template cast<double>(),
                                       c.template cast<double>(), f)
        .template cast<S>();
  } else {
    return closest_on_triangle_double(p, a, b, c, f);
  }
}

// ---- sphere vs triangle ------------------------------------------------------------------------

template <class S>
struct SphereContact {
  S t = S(0);
  Vec3<S> point;
  MeshFeature feature = MeshFeature::face;
};

/// Entry time t ∈ [0, t_max] of a point w + t·d (relative to a centre, or to an axis after
/// removing the axis component) into the ball (or cylinder) of radius R: the smaller root of
/// |d|² t² + 2 (w·d) t + |w|² − R² = 0, i.e. c / (−h + √q) with h = w·d, c = |w|² − R² and the
/// quarter discriminant q = |d|² R² − |d × w|² (Lagrange's identity). Written this way q has no
/// cancellation of b² against 4ac, whose rounding would move the tangent distance by √ε (a
/// sphere passing 6e-4 from an edge was reported touching it in float). c ≤ 0 (inside only by
/// rounding: the caller has ruled out a true overlap at t = 0) while approaching is a contact at
/// t = 0. Computed in double: the squares overflow float beyond lengths of about 1e9.
template <class S>
bool entry_root(const Vec3<S>& w_in, const Vec3<S>& d_in, S R, S t_max, S& t) {
  const Vec3<double> w = w_in.template cast<double>(), d = d_in.template cast<double>();
  const double a = d.squaredNorm(), h = w.dot(d);
  if (!(h < 0.0) || !(a > 0.0)) return false;  // not approaching
  const double wn = w.norm(), R2 = double(R) * double(R);
  const double c = (wn - double(R)) * (wn + double(R));
  if (!(c > 0.0)) {
    t = S(0);
    return true;
  }
  const double q = a * R2 - d.cross(w).squaredNorm();
  if (q < 0.0) return false;  // passes at a distance larger than R
  // Rounded to S before the comparison, so the answer does not depend on t_max (the tree and
  // brute force lower it in different orders, and must still pick the same triangle).
  const S root = static_cast<S>(c / (-h + std::sqrt(q)));
  if (!(root <= t_max)) return false;
  t = root;
  return true;
}

/// First contact of the sphere (centre p, radius r, moving by d over t ∈ [0, t_max]) with the
/// triangle, which it does not touch at t = 0: the earliest of the plane contact inside the
/// face (Schroeder's closest-point-to-plane reduction to a particle), the three edge cylinders
/// and the three vertex spheres. Each quadratic is set up on the components perpendicular to the
/// edge (or relative to the vertex), which keeps its constant term free of cancellation.
template <class S>
bool sphere_triangle(const PackedTriangle<S>& tri, const Vec3<S>& n, S offset, const Vec3<S>& p, S r,
                     const Vec3<S>& d, S t_max, BackFaces bf, SphereContact<S>& out) {
  bool found = false;
  S best = t_max;
  const S s0 = n.dot(p) - offset;  // signed distance of the centre to the plane at t = 0
  const S dn = n.dot(d);
  // Face: the sphere's point nearest the plane, moving as a particle.
  const S side = s0 >= S(0) ? S(1) : S(-1);
  if (side > S(0) || bf == BackFaces::collide) {
    // Gap to the plane; a negative gap with the centre over the face would be an overlap, which
    // the caller has ruled out, so it is rounding: contact at t = 0.
    const S dist = std::max(side * s0 - r, S(0));
    const S speed = -side * dn;     // approach speed along the normal
    const S t = speed > S(0) ? dist / speed : std::numeric_limits<S>::infinity();
    if (t <= best) {
      const Vec3<S> q = p + t * d - (side * r) * n;
      const Vec3<S> e0 = tri.b - tri.a, e1 = tri.c - tri.b, e2 = tri.a - tri.c;
      if (e0.cross(q - tri.a).dot(n) >= S(0) && e1.cross(q - tri.b).dot(n) >= S(0) &&
          e2.cross(q - tri.c).dot(n) >= S(0)) {
        best = t;
        out = {t, q, MeshFeature::face};
        found = true;
      }
    }
  }
  const Vec3<S>* v[3] = {&tri.a, &tri.b, &tri.c};
  for (int i = 0; i < 3; ++i) {
    const Vec3<S>& v0 = *v[i];
    const Vec3<S>& v1 = *v[(i + 1) % 3];
    const Vec3<S> e = v1 - v0;
    const S ee = e.squaredNorm();
    const Vec3<S> w = p - v0;
    // Edge: |w⊥ + t d⊥|² = r², ⊥ meaning the part perpendicular to e.
    if (ee > S(0)) {
      const Vec3<S> wp = w - (w.dot(e) / ee) * e;
      const Vec3<S> dp = d - (d.dot(e) / ee) * e;
      S t;
      if (entry_root(wp, dp, r, best, t)) {
        const Vec3<S> c = p + t * d;
        const S s = (c - v0).dot(e) / ee;
        if (s >= S(0) && s <= S(1) && (t < best || !found)) {
          best = t;
          out = {t, v0 + s * e, MeshFeature::edge};
          found = true;
        }
      }
    }
    // Vertex: |w + t d|² = r².
    S t;
    if (entry_root(w, d, r, best, t) && (t < best || !found)) {
      best = t;
      out = {t, v0, MeshFeature::vertex};
      found = true;
    }
  }
  if (!found) return false;
  if (bf == BackFaces::ignore && n.dot(p + out.t * d) - offset < S(0)) return false;  // centre behind at contact
  return true;
}

template <class S>
Vec3<S> contact_normal(const Vec3<S>& centre, const Vec3<S>& point, const Vec3<S>& n, S offset) {
  const Vec3<S> v = centre - point;
  const S len = v.norm();
  if (len > S(0) && std::isfinite(len)) return v / len;
  return n.dot(centre) - offset >= S(0) ? n : Vec3<S>(-n);
}

}  // namespace mesh_detail

// =============================================================================================

template <class S>
std::string build_mesh(TriangleMesh<S>& m, const MeshBuildOptions& opt) {
  using namespace mesh_detail;
  for (std::size_t i = 0; i < m.vertices.size(); ++i)
    if (!vec_ok(m.vertices[i])) return check_vec(m.vertices[i], "vertices." + std::to_string(i));
  const std::size_t nv = m.vertices.size();
  for (std::size_t i = 0; i < m.triangles.size(); ++i)
    for (int k = 0; k < 3; ++k)
      if (m.triangles[i][k] >= nv)
        return "triangles." + std::to_string(i) + "." + std::to_string(k) + ": index " +
               std::to_string(m.triangles[i][k]) + " out of range (" + std::to_string(nv) + " vertices)";
  if (m.triangles.size() >= std::numeric_limits<std::uint32_t>::max() / 2) return "triangles: too many";
  const std::size_t nt = m.triangles.size();
  m.normals.assign(nt, Vec3<S>::Zero());
  m.offsets.assign(nt, S(0));
  m.degenerate.assign(nt, 0);
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
      m.degenerate[i] = 1;
      continue;
    }
    m.normals[i] = nd.template cast<S>();
    m.offsets[i] = static_cast<S>(nd.dot(ad));
    BuildItem it{};
    for (int k = 0; k < 3; ++k) {
      it.lo[k] = std::min({ad[k], bd[k], cd[k]});
      it.hi[k] = std::max({ad[k], bd[k], cd[k]});
      it.centre[k] = (ad[k] + bd[k] + cd[k]) / 3.0;
    }
    it.index = static_cast<std::uint32_t>(i);
    items.push_back(it);
  }
  m.nodes.clear();
  m.wide.clear();
  m.blocks.clear();
  m.packed_triangles = 0;
  m.depth = 0;
  if (items.empty()) return {};
  m.blocks.reserve(items.size() / 2 + 1);
  m.nodes.reserve(2 * items.size() / static_cast<std::size_t>(std::max(1, opt.leaf_size)) + 2);
  m.nodes.emplace_back();
  build_node(m, items, 0, items.size(), 0, 0, opt);
  m.wide.clear();
  if (m.nodes[0].count == 0) {
    m.wide.reserve(m.nodes.size() / 2 + 1);
    m.wide.emplace_back();
    collapse(m, 0, 0);
  }
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

template <class S>
MeshRayHit<S> mesh_ray_cast(const TriangleMesh<S>& m, const Ray<S>& ray, const MeshRayOptions<S>& opt) {
  using namespace mesh_detail;
  MeshRayHit<S> out;
  if (!vec_ok(ray.origin) || !vec_ok(ray.direction) || !(opt.max_lambda >= S(0)) ||
      !(opt.max_lambda <= Tolerances<S>::max_magnitude)) [[unlikely]] {
    if (auto e = check_vec(ray.origin, "origin"); !e.empty()) return out.error = e, out;
    if (auto e = check_vec(ray.direction, "direction"); !e.empty()) return out.error = e, out;
    if (auto e = check_size(opt.max_lambda, "max_lambda"); !e.empty()) return out.error = e, out;
  }
  out.status = Status::miss;
  if (ray.direction == Vec3<S>::Zero()) return out;
  const WatertightRay<S> wr(ray);
  S best = opt.max_lambda;
  bool have = false;
  std::uint32_t best_tri = 0;
  const TriangleBlock4<S>* best_blk = nullptr;  // where the tree's best triangle is stored (null: brute force)
  int best_lane = 0;
  // A crossing at λ of triangle `index` (stored in lane `lane` of `blk`) becomes the answer when
  // it is earlier, or as early with a lower index.
  auto take = [&](S lambda, std::uint32_t index, const TriangleBlock4<S>* blk, int lane, S& t_best) {
    if (!better(lambda, index, t_best, best_tri, have)) return;
    have = true;
    t_best = lambda;
    best_tri = index;
    best_blk = blk;
    best_lane = lane;
  };
  if (opt.brute_force) {
    brute(m, best, [&](const PackedTriangle<S>& tri, S& t_best) {
      S lambda;
      if (ray_triangle(wr, tri, opt.back_faces, t_best, lambda)) take(lambda, tri.index, nullptr, 0, t_best);
    });
  } else {
    // Four triangles at a time; padding lanes repeat a triangle, which changes nothing.
    auto leaf = [&](std::uint32_t first, std::uint32_t count, S& t_best) {
      for (std::uint32_t b = first, end = first + (count + 3) / 4; b < end; ++b) {
        const TriangleBlock4<S>& blk = m.blocks[b];
        S lambda[4];
        int redo;
        unsigned hits = static_cast<unsigned>(ray_block(wr, blk, opt.back_faces, t_best, lambda, redo));
        for (unsigned z = static_cast<unsigned>(redo); z != 0; z &= z - 1) {
          const int l = std::countr_zero(z);
          if (ray_triangle(wr, blk.lane(l), opt.back_faces, t_best, lambda[l])) hits |= 1u << l;
        }
        for (; hits != 0; hits &= hits - 1) {
          const int l = std::countr_zero(hits);
          take(lambda[l], blk.index[l], &blk, l, t_best);
        }
      }
    };
    const Segment3<S> seg(ray.origin, ray.direction, Vec3<S>::Zero(), Vec3<S>::Zero());
    walk_leaves(m, seg, best, leaf);
  }
  if (!have) return out;
  out.status = Status::hit;
  out.lambda = best;
  out.point = ray.origin + best * ray.direction;
  Vec3<double> n;
  if (best_blk != nullptr) {
    const PackedTriangle<S> t = best_blk->lane(best_lane);
    if (!unit_front_normal(t.a.template cast<double>(), t.b.template cast<double>(), t.c.template cast<double>(), n))
      n = m.normals[best_tri].template cast<double>();  // not reached: blocks hold no degenerate triangle
    out.normal = n.template cast<S>();
  } else {
    out.normal = m.normals[best_tri];
  }
  out.triangle = best_tri;
  return out;
}

namespace mesh_detail {

/// The sphere cast without validation; `limit` is the latest contact time of interest (lowered
/// by the caller for collections). Overlap first (a point query on the tree), then the sweep.
template <class S>
MeshCastHit<S> sphere_cast_core(const TriangleMesh<S>& m, const Vec3<S>& p, S r, const Vec3<S>& d,
                                const MeshSphereOptions<S>& opt, S limit) {
  MeshCastHit<S> out;
  out.status = Status::miss;
  const BackFaces bf = opt.back_faces;
  // 1. Initial overlap with a counted triangle: the nearest one is reported.
  {
    S zero = S(0);
    bool have = false;
    S best_d2 = S(0);
    auto visit = [&](const PackedTriangle<S>& tri, S&) {
      const Vec3<S>& n = m.normals[tri.index];
      const S s0 = n.dot(p) - m.offsets[tri.index];
      if (s0 > r || s0 < -r) return;
      if (bf == BackFaces::ignore && s0 < S(0)) return;
      MeshFeature f;
      const Vec3<S> q = closest_on_triangle(p, tri.a, tri.b, tri.c, f);
      const S d2 = (p - q).squaredNorm();
      if (d2 > r * r || !better(d2, tri.index, best_d2, out.triangle, have)) return;
      have = true;
      best_d2 = d2;
      out.triangle = tri.index;
      out.point = q;
      out.feature = f;
    };
    if (opt.brute_force) {
      brute(m, zero, visit);
    } else {
      const Segment3<S> seg(p, Vec3<S>::Zero(), Vec3<S>::Constant(r), Vec3<S>::Constant(r));
      walk(m, seg, zero, visit);
    }
    if (have) {
      out.status = Status::initially_overlapping;
      out.normal = contact_normal(p, out.point, m.normals[out.triangle], m.offsets[out.triangle]);
      return out;
    }
  }
  // 2. The sweep, nearest bin first, with early out.
  S best = limit;
  bool have = false;
  SphereContact<S> hit;
  auto visit = [&](const PackedTriangle<S>& tri, S& t_best) {
    const Vec3<S>& n = m.normals[tri.index];
    const S off = m.offsets[tri.index];
    const S s0 = n.dot(p) - off;
    if (bf == BackFaces::ignore && s0 >= -r && s0 < S(0)) {
      // Behind the plane but within r of it: a triangle overlapped from behind at t = 0 is not
      // counted now and cannot be first touched later.
      MeshFeature f;
      if ((p - closest_on_triangle(p, tri.a, tri.b, tri.c, f)).squaredNorm() <= r * r) return;
    }
    SphereContact<S> c;
    if (!sphere_triangle(tri, n, off, p, r, d, t_best, bf, c)) return;
    if (!better(c.t, tri.index, t_best, out.triangle, have)) return;
    have = true;
    t_best = c.t;
    hit = c;
    out.triangle = tri.index;
  };
  if (opt.brute_force) {
    brute(m, best, visit);
  } else {
    const Segment3<S> seg(p, d, Vec3<S>::Constant(r), Vec3<S>::Constant(r));
    walk(m, seg, best, visit);
  }
  if (!have) return out;
  const Vec3<S>& n = m.normals[out.triangle];
  out.status = Status::hit;
  out.contact_time = hit.t;
  out.point = hit.point;
  out.feature = hit.feature;
  const Vec3<S> centre = p + hit.t * d;
  out.normal = hit.feature == MeshFeature::face ? (n.dot(centre) - m.offsets[out.triangle] >= S(0) ? n : Vec3<S>(-n))
                                                 : contact_normal(centre, hit.point, n, m.offsets[out.triangle]);
  out.toi = hit.t;
  if (opt.buffer > S(0)) {
    // Schroeder's distance buffer: back up along the path until the plane is `buffer` nearer.
    const S len = std::abs(d.dot(n));
    out.toi = len > S(0) ? std::max(S(0), hit.t - opt.buffer / len) : S(0);
  }
  return out;
}

}  // namespace mesh_detail

template <class S>
MeshCastHit<S> mesh_sphere_cast(const TriangleMesh<S>& m, const Vec3<S>& center, S radius, const Vec3<S>& path,
                                const MeshSphereOptions<S>& opt) {
  using namespace mesh_detail;
  MeshCastHit<S> out;
  if (auto e = check_vec(center, "center"); !e.empty()) return out.error = e, out;
  if (auto e = check_size(radius, "radius"); !e.empty()) return out.error = e, out;
  if (auto e = check_vec(path, "path"); !e.empty()) return out.error = e, out;
  if (auto e = check_size(opt.buffer, "buffer"); !e.empty()) return out.error = e, out;
  return sphere_cast_core(m, center, radius, path, opt, std::clamp(opt.max_toi, S(0), S(1)));
}

template <class S>
MeshCastHit<S> mesh_spheres_cast(const TriangleMesh<S>& m, std::span<const SphereInBody<S>> spheres,
                                 const Vec3<S>& path, const MeshSphereOptions<S>& opt) {
  using namespace mesh_detail;
  MeshCastHit<S> best;
  best.status = Status::miss;
  if (auto e = check_vec(path, "path"); !e.empty()) return best.status = Status::invalid_input, best.error = e, best;
  for (std::size_t i = 0; i < spheres.size(); ++i) {
    const Vec3<S>& c = spheres[i].center;
    const S r = spheres[i].radius;
    const bool ok = c.allFinite() && c.cwiseAbs().maxCoeff() <= Tolerances<S>::max_magnitude && std::isfinite(r) &&
                    r >= S(0) && r <= Tolerances<S>::max_magnitude;
    if (ok) continue;  // the field names are built only for an error: no allocation per query
    const std::string f = "spheres." + std::to_string(i);
    std::string e = check_vec(c, f + ".center");
    if (e.empty()) e = check_size(r, f + ".radius");
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
MeshCastHit<S> mesh_shape_cast(const TriangleMesh<S>& m, const Shape<S>& shape, const Pose<S>& pose,
                               const Vec3<S>& velocity, const MeshShapeOptions<S>& opt) {
  using namespace mesh_detail;
  MeshCastHit<S> out;
  if (auto e = validate(shape); !e.empty()) return out.error = "shape." + e, out;
  if (auto e = validate(pose); !e.empty()) return out.error = "pose." + e, out;
  if (auto e = check_vec(velocity, "velocity"); !e.empty()) return out.error = e, out;
  if (auto e = check_size(opt.target_distance, "target_distance"); !e.empty()) return out.error = e, out;
  // A sphere or a point is the exact sphere cast with its radius grown by the target distance
  // (its centre is the shape's origin, so the back-face rule is the same); the GJK ray cast below
  // would answer up to its tolerance early.
  const Sphere<S>* ball = std::get_if<Sphere<S>>(&shape);
  if (ball || std::holds_alternative<Point<S>>(shape)) {
    MeshSphereOptions<S> so;
    so.back_faces = opt.back_faces;
    so.brute_force = opt.brute_force;
    return sphere_cast_core(m, pose.position, (ball ? ball->radius : S(0)) + opt.target_distance, velocity, so, S(1));
  }
  out.status = Status::miss;
  // The shape's box relative to its origin (world axes), grown by the target distance.
  Vec3<S> ext_lo, ext_hi;
  const Mat3<S> rot = Transform<S>::unit(pose.rotation).toRotationMatrix();
  for (int k = 0; k < 3; ++k) {
    const Vec3<S> axis = rot.row(k).transpose();  // world axis k in the local frame
    ext_hi[k] = rot.row(k).dot(support(shape, axis)) + opt.target_distance;
    ext_lo[k] = rot.row(k).dot(support(shape, Vec3<S>(-axis))) - opt.target_distance;
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
      brute(m, best, visit);
    } else {
      const Segment3<S> seg(x0, pass == 0 ? zero : velocity, Vec3<S>(-ext_lo), ext_hi);
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
  template std::string build_mesh<S>(TriangleMesh<S>&, const MeshBuildOptions&);                                   \
  template MeshRayHit<S> mesh_ray_cast<S>(const TriangleMesh<S>&, const Ray<S>&, const MeshRayOptions<S>&);        \
  template MeshCastHit<S> mesh_sphere_cast<S>(const TriangleMesh<S>&, const Vec3<S>&, S, const Vec3<S>&,          \
                                              const MeshSphereOptions<S>&);                                        \
  template MeshCastHit<S> mesh_spheres_cast<S>(const TriangleMesh<S>&, std::span<const SphereInBody<S>>,          \
                                               const Vec3<S>&, const MeshSphereOptions<S>&);                       \
  template MeshCastHit<S> mesh_shape_cast<S>(const TriangleMesh<S>&, const Shape<S>&, const Pose<S>&,             \
                                             const Vec3<S>&, const MeshShapeOptions<S>&);
