// impact — detail/johnson.hpp: Johnson's distance sub-algorithm with cached dot products.
//
// After van den Bergen, "Collision Detection in Interactive 3D Environments" (2003), §4.3 and
// "Ray Casting against General Convex Objects" (2004), §3. The simplex holds up to four vertices
// y_i of the CSO in slots 0..3; a subset is a bit mask. For a subset X and i ∈ X,
//   Δ_i^{y_i} = 1,   Δ_j^{X∪{y_j}} = Σ_{i∈X} Δ_i^X ((y_k − y_j)·y_i)   (any k ∈ X),
// and v(aff X) = Σ Δ_i^X y_i / Σ Δ_i^X. X is the minimal subset holding v(conv Y) when
// (i) Δ_i^X > 0 for i ∈ X and (ii) Δ_j^{X∪{y_j}} ≤ 0 for j ∉ X.
// The dot products y_i·y_j and the determinants of subsets without the newest vertex are kept
// from earlier iterations: adding a vertex computes only the subsets that contain it.
#pragma once

#include <impact/math.hpp>

#include <limits>

namespace impact::detail {

template <class S>
struct Johnson {
  Vec3<S> y[4];   ///< CSO vertices y_i = a_i − b_i (working frame).
  Vec3<S> a[4];   ///< Support points on A's core for each vertex (working frame).
  Vec3<S> b[4];   ///< Support points on B's core for each vertex (working frame).
  S lambda[4];     ///< Barycentric coordinates of v over the current subset.
  S dp[4][4];      ///< Cached y_i·y_j (entries of slots in use only).
  S det[16][4];    ///< Cached Δ_i^X, X a bit mask (entries of subsets formed so far only).
  unsigned bits = 0;      ///< Current simplex W (bit mask of slots in use).
  unsigned last = 0;      ///< Slot of the newest vertex.
  unsigned last_bit = 0;  ///< 1 << last.
  unsigned all_bits = 0;  ///< bits | last_bit: Y = W ∪ {w}.
  /// Reject affinely dependent subsets (see degenerate()). The ray cast needs it: there x moves
  /// and a support point coplanar with a face of the simplex is common. GJK distance does not:
  /// its full-simplex answer is checked for progress instead, and in float the test would also
  /// reject thin but valid tetrahedra around the origin (overlaps reported as separated).
  bool reject_degenerate = false;
  S scale2 = 0;           ///< Largest ‖y_i‖² over Y (set by closest()).
  S edge2 = 0;            ///< Largest ‖y_i − y_j‖² over Y (set by closest()).

  /// Relative size below which a subset counts as affinely dependent (dimensionless, per power of
  /// ‖y‖²): 16 epsilon, a few roundings of the dot products the determinants are built from.
  static constexpr S kDegenerate = S(16) * std::numeric_limits<S>::epsilon();
  /// Members of each subset (baseline x86-64 has no popcount instruction).
  static constexpr int kBitCount[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

  /// Empties the simplex (the tables need no clearing: entries are written before being read).
  void reset() { bits = last = last_bit = all_bits = 0; }

  [[nodiscard]] int count() const { return kBitCount[bits]; }
  [[nodiscard]] bool full() const { return bits == 15u; }

  /// True when w is already a vertex of W: GJK cannot return a point twice unless rounding stops
  /// its progress, so this is the duplicate-support guard.
  [[nodiscard]] bool contains(const Vec3<S>& w) const {
    for (unsigned i = 0; i < 4; ++i)
      if ((bits & (1u << i)) && y[i] == w) return true;
    return false;
  }

  /// Largest ||y_i||² over W (the scale of rounding errors in ||v||²).
  [[nodiscard]] S max_vertex_norm2() const {
    S m = 0;
    for (unsigned i = 0; i < 4; ++i)
      if (bits & (1u << i)) m = std::max(m, dp[i][i]);
    return m;
  }
  /// The least ‖y_i‖² over the simplex's vertices (0 when empty).
  [[nodiscard]] S min_vertex_norm2() const {
    S m = std::numeric_limits<S>::infinity();
    for (unsigned i = 0; i < 4; ++i)
      if (bits & (1u << i)) m = std::min(m, dp[i][i]);
    return bits != 0 ? m : S(0);
  }

  /// Adds w = pa − pb as the newest vertex and computes the determinants that involve it.
  void add(const Vec3<S>& w, const Vec3<S>& pa, const Vec3<S>& pb) {
    // A full simplex has no free slot: the callers stop before adding to one. Should one not
    // (non-finite input slipping past validation), replace the newest vertex rather than write
    // out of bounds.
    if (bits == 15u) bits &= ~last_bit;
    last = 0;
    last_bit = 1;
    while (bits & last_bit) {
      ++last;
      last_bit <<= 1;
    }
    y[last] = w;
    a[last] = pa;
    b[last] = pb;
    all_bits = bits | last_bit;
    for (unsigned i = 0; i < 4; ++i)
      if (bits & (1u << i)) dp[i][last] = dp[last][i] = y[i].dot(w);
    dp[last][last] = w.dot(w);
    compute_determinants();
  }

  /// Moves every vertex of W by `shift` (the ray cast moves x, so all y_i = x − p_i move
  /// together). The support points and the edge vectors y_i − y_j are unchanged; the dot products
  /// y_i·y_j and with them the determinants are recomputed, vertex by vertex.
  void translate(const Vec3<S>& shift) {
    const unsigned w = bits;
    bits = 0;
    for (unsigned i = 0; i < 4; ++i) {
      if (!(w & (1u << i))) continue;
      y[i] += shift;
      last = i;
      last_bit = 1u << i;
      all_bits = bits | last_bit;
      for (unsigned j = 0; j < 4; ++j)
        if (bits & (1u << j)) dp[i][j] = dp[j][i] = y[i].dot(y[j]);
      dp[i][i] = y[i].dot(y[i]);
      compute_determinants();
      bits |= last_bit;
    }
  }

  /// Finds v = v(conv Y) and reduces W to its minimal subset. Returns false when rounding left no
  /// subset passing Johnson's tests; W and v are then the best proper subset found (backup).
  bool closest(Vec3<S>& v) {
    scale2 = -1;  // the degeneracy test's scales are computed on first use
    for (unsigned s = bits; s; --s) {
      if ((s & bits) != s) continue;
      const unsigned x = s | last_bit;
      if (valid(x)) {
        set(x, v);
        return true;
      }
    }
    if (valid(last_bit)) {
      set(last_bit, v);
      return true;
    }
    // Backup (van den Bergen 2003): among the subsets whose Δ_i are all positive, take the one
    // whose affine closest point is nearest the origin.
    S best = std::numeric_limits<S>::infinity();
    unsigned best_s = last_bit;
    for (unsigned s = all_bits; s; --s) {
      if ((s & all_bits) != s || !proper(s)) continue;
      Vec3<S> t;
      combine(s, t);
      const S t2 = t.squaredNorm();
      if (t2 < best) {
        best = t2;
        best_s = s;
      }
    }
    set(best_s, v);
    return false;
  }

  /// Foot p of the perpendicular from the origin to the line through A and B, with its weights
  /// (la, lb) from the edge vector (no cancellation of long dot products), measured from the end
  /// nearer the origin: from a far one (a sliver's corner 3e11 out) p and the near end's weight
  /// carried an error of ε·3e11, which tilted v enough for the support along it to swing the far
  /// corner 1e7 past the origin. False for a repeated point.
  static bool edge_foot(const Vec3<S>& A, const Vec3<S>& B, S& la, S& lb, Vec3<S>& p) {
    const Vec3<S> e = B - A;
    const S ee = e.squaredNorm();
    if (!(ee > S(0))) return false;
    if (A.squaredNorm() <= B.squaredNorm()) {
      lb = -A.dot(e) / ee;
      la = S(1) - lb;
      p = A + lb * e;
    } else {
      la = B.dot(e) / ee;
      lb = S(1) - la;
      p = B - la * e;
    }
    return true;
  }

  /// Foot p of the perpendicular from the origin to the plane of ABC, with the plane's normal and
  /// p's barycentric coordinates l from signed areas (cross products). False for a collinear ABC.
  static bool triangle_foot(const Vec3<S>& A, const Vec3<S>& B, const Vec3<S>& C, Vec3<S>& nrm, Vec3<S>& p,
                            S l[3]) {
    // The plane's normal from the two shortest edges (those at the corner opposite the longest):
    // on a sliver (two of the points 1e-6 apart, the third a unit away) the cross product of the
    // two long edges cancels to ε·‖e‖²/area of relative error, a hundred times more.
    const Vec3<S> ab = B - A, bc = C - B, ca = A - C;
    const S lab = ab.squaredNorm(), lbc = bc.squaredNorm(), lca = ca.squaredNorm();
    const Vec3<S>* corner = &A;
    if (lab >= lbc && lab >= lca) {
      nrm = bc.cross(ca);  // longest AB: corner C
      corner = &C;
    } else if (lbc >= lca) {
      nrm = ca.cross(ab);  // longest BC: corner A (the orientation of (B − A)×(C − A) throughout)
    } else {
      nrm = ab.cross(bc);  // longest CA: corner B
      corner = &B;
    }
    const S nn = nrm.squaredNorm();
    if (!(nn > S(0))) return false;
    p = (nrm.dot(*corner) / nn) * nrm;
    // Each weight from the signed area opposite its vertex, but the nearest vertex's, which is one
    // minus the others: a far vertex's weight is tiny, and only a product of the near edges gives
    // it to full relative accuracy (its error is multiplied by the vertex in the witnesses).
    const Vec3<S>* v[3] = {&A, &B, &C};
    int near = 0;
    for (int i = 1; i < 3; ++i)
      if (v[i]->squaredNorm() < v[near]->squaredNorm()) near = i;
    S rest = 0;
    for (int i = 0; i < 3; ++i) {
      if (i == near) continue;
      l[i] = nrm.dot((*v[(i + 1) % 3] - p).cross(*v[(i + 2) % 3] - p)) / nn;
      rest += l[i];
    }
    l[near] = S(1) - rest;
    return true;
  }

  /// Recomputes v and λ on the current subset W (an edge or a triangle) by geometry: the foot of
  /// the perpendicular from the origin, with the line's parameter from the edge vector and the
  /// triangle's coordinates from signed areas (cross products). Johnson's coordinates are ratios
  /// of determinants built from dot products of the long vectors y_i; on a thin simplex (short
  /// edges far from the origin, or a sliver) they carry an error of about ε·‖y‖²/Δ that tilts v
  /// by far more than rounding. Returns false, leaving everything as is, when the foot falls
  /// outside W (then W was not the right subset after all).
  bool refine_subset(Vec3<S>& v) {
    int idx[4], n = 0;
    for (int i = 0; i < 4; ++i)
      if (bits & (1u << i)) idx[n++] = i;
    if (n == 2) {
      S la, lb;
      Vec3<S> p;
      if (!edge_foot(y[idx[0]], y[idx[1]], la, lb, p) || !(la >= S(0) && lb >= S(0))) return false;
      lambda[idx[0]] = la;
      lambda[idx[1]] = lb;
      v = p;
      return true;
    }
    Vec3<S> nrm, p;
    S l[3];
    if (n != 3 || !triangle_foot(y[idx[0]], y[idx[1]], y[idx[2]], nrm, p, l)) return false;
    if (!(l[0] >= S(0) && l[1] >= S(0) && l[2] >= S(0))) return false;
    for (int k = 0; k < 3; ++k) lambda[idx[k]] = l[k];
    v = p;
    return true;
  }

  /// The point of conv Y nearest the origin by geometry rather than by Johnson's determinants,
  /// for when rounding leaves no subset passing Johnson's tests (closest() returned false).
  /// Thin simplices are the case: near a curved surface GJK's support points crowd together
  /// (two rims of a cylinder's side a few 1e-4 apart and a unit apart along the axis), and the
  /// determinants, differences of products of dot products of long vectors, lose all their
  /// digits while the simplex is still far from converged. Here each face's plane comes from a
  /// cross product of edge vectors and each barycentric coordinate from a signed area (cross
  /// products, no Lagrange-identity cancellation): the closest point over the faces, edges and
  /// vertices of Y is then accurate to rounding of the coordinates. Sets W, λ and v; returns
  /// false when the origin is inside a solid Y (v is then left as is).
  bool closest_geometric(Vec3<S>& v) {
    int idx[4], n = 0;
    for (int i = 0; i < 4; ++i)
      if (all_bits & (1u << i)) idx[n++] = i;
    S best = std::numeric_limits<S>::infinity();
    unsigned best_s = 0;
    S best_l[4] = {0, 0, 0, 0};
    Vec3<S> best_v = Vec3<S>::Zero();
    auto consider = [&](unsigned s, const S* l, const Vec3<S>& p) {
      const S d = p.squaredNorm();
      if (d < best) {
        best = d;
        best_s = s;
        best_v = p;
        for (int k = 0; k < 4; ++k) best_l[k] = l[k];
      }
    };
    // Vertices and edges.
    for (int i = 0; i < n; ++i) {
      S l[4] = {0, 0, 0, 0};
      l[idx[i]] = 1;
      consider(1u << idx[i], l, y[idx[i]]);
      for (int j = i + 1; j < n; ++j) {
        S m[4] = {0, 0, 0, 0};
        Vec3<S> p;
        if (!edge_foot(y[idx[i]], y[idx[j]], m[idx[i]], m[idx[j]], p) || !(m[idx[i]] > S(0) && m[idx[j]] > S(0)))
          continue;
        consider((1u << idx[i]) | (1u << idx[j]), m, p);
      }
    }
    // Faces: the foot of the perpendicular, when inside by signed areas.
    int inside_faces = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        for (int k = j + 1; k < n; ++k) {
          const Vec3<S>& A = y[idx[i]];
          Vec3<S> nrm, p;
          S l[3];
          if (!triangle_foot(A, y[idx[j]], y[idx[k]], nrm, p, l)) continue;
          if (n == 4) {
            // Which side of this face the fourth vertex and the origin lie on.
            const Vec3<S>& D = y[idx[6 - i - j - k]];
            const S sd = nrm.dot(D - A), so = -nrm.dot(A);
            if ((sd > S(0) && so >= S(0)) || (sd < S(0) && so <= S(0))) ++inside_faces;
          }
          if (!(l[0] >= S(0) && l[1] >= S(0) && l[2] >= S(0))) continue;
          S m[4] = {0, 0, 0, 0};
          m[idx[i]] = l[0];
          m[idx[j]] = l[1];
          m[idx[k]] = l[2];
          consider((1u << idx[i]) | (1u << idx[j]) | (1u << idx[k]), m, p);
        }
    if (n == 4 && inside_faces == 4) return false;
    bits = best_s;
    for (int k = 0; k < 4; ++k) lambda[k] = best_l[k];
    v = best_v;
    return true;
  }

  /// Where the origin lies for a full W, by origin_weights.
  enum class Enclosure { inside, outside, unknown };

  /// Barycentric coordinates of the origin in the tetrahedron Y by signed volumes (triple products
  /// of the vertices, no Lagrange-identity cancellation), for a full W that Johnson's tests say
  /// holds the origin. Johnson's weights there come from determinants of dot products: on a thin
  /// tetrahedron they put Σ λ_i y_i a few 1e-9 from the origin (box–cylinder, segment–triangle),
  /// so the two witnesses were not one common point; on one with a vertex 1e8 out their signs
  /// passed with the origin 0.9% of the tetrahedron outside (a segment 0.02 from a sliver called
  /// intersecting). `inside` (λ set) when every coordinate is ≥ 0, `outside` when one is < 0,
  /// `unknown` for a flat tetrahedron (zero volume); nothing changed but for `inside`.
  Enclosure origin_weights() {
    if (bits != 15u) return Enclosure::unknown;
    // The volume of Y with the origin in place of y_i, as a triple product a·(b×c) of vertices
    // (the origin as base: no difference of two far vertices), the longest of the three taken as
    // the dot's (the cross product of the shorter two keeps its digits; with a corner 1e9 out, a
    // triple product of differences from it lost them and put the origin inside).
    auto triple = [](const Vec3<S>& a, const Vec3<S>& b, const Vec3<S>& c) {
      const S na = a.squaredNorm(), nb = b.squaredNorm(), nc = c.squaredNorm();
      if (na >= nb && na >= nc) return a.dot(b.cross(c));
      if (nb >= nc) return b.dot(c.cross(a));
      return c.dot(a.cross(b));
    };
    const S l[4] = {triple(y[1], y[2], y[3]), -triple(y[0], y[2], y[3]), triple(y[0], y[1], y[3]),
                    -triple(y[0], y[1], y[2])};
    const S total = l[0] + l[1] + l[2] + l[3];
    if (!(total != S(0)) || !std::isfinite(total)) return Enclosure::unknown;
    for (int i = 0; i < 4; ++i)
      if (!(l[i] / total >= S(0))) return Enclosure::outside;
    for (int i = 0; i < 4; ++i) lambda[i] = l[i] / total;
    return Enclosure::inside;
  }

  /// Witness points Σ λ_i a_i and Σ λ_i b_i of the current v.
  void witnesses(Vec3<S>& pa, Vec3<S>& pb) const {
    pa.setZero();
    pb.setZero();
    for (unsigned i = 0; i < 4; ++i) {
      if (bits & (1u << i)) {
        pa += lambda[i] * a[i];
        pb += lambda[i] * b[i];
      }
    }
  }

  /// Rejects subsets whose vertices are affinely dependent up to rounding. Δ^X = Σ Δ_i^X is the
  /// Gram determinant of X's edges: ‖e‖² for a pair, (2·area)² for a triangle, (6·volume)² for a
  /// tetrahedron. Its rounding error is that of the dot products it is built from, about
  /// ε·max‖y‖² times the (‖e‖²)^(|X|−2) of the other factors, so it is compared with that.
  [[nodiscard]] bool degenerate(unsigned s) {
    const int n = kBitCount[s];
    if (n < 2) return false;
    if (scale2 < S(0)) {
      // The largest ‖y‖² and the largest squared edge of Y (a pair's Δ^{ij}_i + Δ^{ij}_j is
      // ‖y_i − y_j‖², already in the table).
      scale2 = 0;
      edge2 = 0;
      for (unsigned i = 0; i < 4; ++i) {
        if (!(all_bits & (1u << i))) continue;
        scale2 = std::max(scale2, dp[i][i]);
        for (unsigned j = 0; j < i; ++j) {
          const unsigned pair = (1u << i) | (1u << j);
          if (all_bits & (1u << j)) edge2 = std::max(edge2, det[pair][i] + det[pair][j]);
        }
      }
    }
    S sum = 0;
    for (unsigned i = 0; i < 4; ++i)
      if (s & (1u << i)) sum += det[s][i];
    S ref = kDegenerate * scale2;
    for (int k = 2; k < n; ++k) ref *= edge2;
    return !(sum > ref);
  }

 private:
  void compute_determinants() {
    det[last_bit][last] = 1;
    for (unsigned j = 0; j < 4; ++j) {
      const unsigned j_bit = 1u << j;
      if (!(bits & j_bit)) continue;
      const unsigned s2 = j_bit | last_bit;
      det[s2][j] = dp[last][last] - dp[last][j];
      det[s2][last] = dp[j][j] - dp[j][last];
      for (unsigned k = 0; k < j; ++k) {
        const unsigned k_bit = 1u << k;
        if (!(bits & k_bit)) continue;
        const unsigned s3 = k_bit | s2;
        det[s3][k] = det[s2][j] * (dp[j][j] - dp[j][k]) + det[s2][last] * (dp[last][j] - dp[last][k]);
        det[s3][j] = det[k_bit | last_bit][k] * (dp[k][k] - dp[k][j]) +
                     det[k_bit | last_bit][last] * (dp[last][k] - dp[last][j]);
        det[s3][last] = det[k_bit | j_bit][k] * (dp[k][k] - dp[k][last]) +
                        det[k_bit | j_bit][j] * (dp[j][k] - dp[j][last]);
      }
    }
    if (all_bits == 15u) {
      det[15][0] = det[14][1] * (dp[1][1] - dp[1][0]) + det[14][2] * (dp[2][1] - dp[2][0]) +
                   det[14][3] * (dp[3][1] - dp[3][0]);
      det[15][1] = det[13][0] * (dp[0][0] - dp[0][1]) + det[13][2] * (dp[2][0] - dp[2][1]) +
                   det[13][3] * (dp[3][0] - dp[3][1]);
      det[15][2] = det[11][0] * (dp[0][0] - dp[0][2]) + det[11][1] * (dp[1][0] - dp[1][2]) +
                   det[11][3] * (dp[3][0] - dp[3][2]);
      det[15][3] = det[7][0] * (dp[0][0] - dp[0][3]) + det[7][1] * (dp[1][0] - dp[1][3]) +
                   det[7][2] * (dp[2][0] - dp[2][3]);
    }
  }

  [[nodiscard]] bool valid(unsigned s) {
    for (unsigned i = 0; i < 4; ++i) {
      const unsigned bit = 1u << i;
      if (!(all_bits & bit)) continue;
      if (s & bit) {
        if (det[s][i] <= S(0)) return false;
      } else if (det[s | bit][i] > S(0)) {
        return false;
      }
    }
    return !reject_degenerate || !degenerate(s);  // last: only the subset that passes the signs pays
  }

  [[nodiscard]] bool proper(unsigned s) {
    for (unsigned i = 0; i < 4; ++i)
      if ((s & (1u << i)) && det[s][i] <= S(0)) return false;
    return !reject_degenerate || !degenerate(s);
  }

  void combine(unsigned s, Vec3<S>& v) const {
    S sum = 0;
    v.setZero();
    for (unsigned i = 0; i < 4; ++i) {
      if (s & (1u << i)) {
        sum += det[s][i];
        v += det[s][i] * y[i];
      }
    }
    v /= sum;
  }

  void set(unsigned s, Vec3<S>& v) {
    bits = s;
    S sum = 0;
    for (unsigned i = 0; i < 4; ++i)
      if (s & (1u << i)) sum += det[s][i];
    v.setZero();
    for (unsigned i = 0; i < 4; ++i) {
      if (s & (1u << i)) {
        lambda[i] = det[s][i] / sum;
        v += lambda[i] * y[i];
      } else {
        lambda[i] = 0;
      }
    }
  }
};

}  // namespace impact::detail
