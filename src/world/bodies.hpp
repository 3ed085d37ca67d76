// impact — world/bodies.hpp: a world's bodies as the step sees them: convex pieces with their
// bounding spheres in the body's frame, and the mesh data the culling needs.
//
// A convex body is one piece at the identity; a compound has a piece per part; a mesh body keeps
// its triangles' local boxes and bounding spheres. Every radius is a bound about its centre,
// inflated for the rounding of the scalar it was computed in (`kRadiusUlps` ulps of S).
#pragma once

#include "world/swept_bounds.hpp"
#include "world/box_tree.hpp"

#include "detail/huge_page_allocator.hpp"

#include <impact/world.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace impact::world_detail {

/// Hashes an ID given as any string type (a motion's body, looked up without a copy).
struct IdHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view id) const noexcept { return std::hash<std::string_view>{}(id); }
};

/// A world's body IDs → positions in its array of bodies: hashed, since a step looks up every
/// motion's body (a binary tree of strings took 2.3 ms of a 10,000-body step, on one thread).
using BodyIndex = std::unordered_map<std::string, std::size_t, IdHash, std::equal_to<>>;

/// Relative inflation of radii computed in S (a norm of S values is within a few ulps).
template <class S>
inline constexpr double kRadiusUlps = 256.0 * double(std::numeric_limits<S>::epsilon());

/// A convex piece of a body: the part's shape and its place in the body's frame.
template <class S>
struct Part {
  Shape<S> shape;       ///< The part in its own frame.
  Pose<S> pose;         ///< Its pose in the body's frame.
  bool identity = true; ///< pose is the identity (a convex body's only piece).
  Shape<S> in_body;     ///< The part in the body's frame: `shape`, or a TransformedShape.
  Vec3d center = Vec3d::Zero();  ///< The part's origin in the body frame (double).
  double radius = 0;    ///< Every point of the part is within this of `center`.
};

/// What the culling tests first of one live (non-degenerate) triangle of a mesh body, in its
/// frame: the bounding sphere, then the plane. Most triangles a query visits stop here, so this
/// part is kept apart from the corners (72 bytes a triangle, not 152).
struct TriangleBounds {
  Vec3d center;           ///< Bounding-sphere centre.
  double radius = 0;      ///< Its radius.
  Vec3d normal;           ///< Unit normal of the plane (zero for a degenerate plane).
  double offset = 0;      ///< normal·a: the plane is normal·x = offset.
  double flatness = 0;    ///< How far the corners may be off that plane (rounding); kNever: no plane.
};

/// The corners of a live triangle (double), for its box and the distance from a sweep's line.
struct TriangleCorners {
  Vec3d a, b, c;
  std::uint32_t index = 0;  ///< The triangle's index in the mesh.
  [[nodiscard]] Vec3d lo() const { return a.cwiseMin(b).cwiseMin(c); }
  [[nodiscard]] Vec3d hi() const { return a.cwiseMax(b).cwiseMax(c); }
};

/// What a mesh body's culling needs, computed once when the body is added. The live triangles'
/// bounds and corners are stored in the leaf order of their box tree, so that the triangles of a
/// leaf, and of neighbouring leaves, are adjacent in memory: a query over a 100,000-triangle mesh
/// reads a few runs instead of scattered entries (measured: the culling of falling_pieces_1000 was
/// bound by those cache misses).
template <class S>
struct MeshData {
  std::shared_ptr<const TriangleMesh<S>> mesh;
  /// The live triangles' spheres and planes, in the tree's leaf order (huge pages: read at random).
  detail::LargeArray<TriangleBounds> bounds;
  detail::LargeArray<TriangleCorners> corners;  ///< Their corners and mesh indices, in the same order.
  Vec3d box_lo = Vec3d::Zero(), box_hi = Vec3d::Zero();  ///< Local box of all live triangles.
  BoxTree tree;                          ///< Over the triangles' boxes (reports indices into both arrays).

  /// Live triangle k (an index into bounds and corners) as the query's shape: its corners cast
  /// back to S, which gives the mesh's own vertices bit for bit (they were cast to double
  /// exactly), from the record the culling has just read instead of from three vertices and a
  /// triangle scattered over the mesh's arrays.
  [[nodiscard]] Triangle<S> triangle(std::uint32_t k) const {
    const TriangleCorners& c = corners[k];
    return {c.a.template cast<S>(), c.b.template cast<S>(), c.c.template cast<S>()};
  }
};

/// A body of a world.
template <class S>
struct Body {
  std::string id;
  BodyKind kind = BodyKind::convex;
  std::vector<Part<S>> parts;              ///< convex: one identity part; compound: its parts.
  std::shared_ptr<const MeshData<S>> mesh; ///< kind == mesh.
  Pose<S> pose;                            ///< Stored pose.
  std::uint32_t category = 1, mask = 0xffffffffu;
  double radius = 0;                       ///< Bounding radius about the body's origin (double).
};

template <class S>
[[nodiscard]] Part<S> make_part(const Shape<S>& shape, const Pose<S>& pose, bool identity) {
  Part<S> p;
  p.shape = shape;
  p.pose = pose;
  p.identity = identity;
  if (identity) p.in_body = shape;
  else p.in_body = TransformedShape<S>{std::make_shared<const Shape<S>>(shape), pose};
  p.center = identity ? Vec3d::Zero() : Vec3d(pose.position.template cast<double>());
  p.radius = double(bounding_radius(shape)) * (1.0 + kRadiusUlps<S>);
  return p;
}

template <class S>
[[nodiscard]] std::shared_ptr<const MeshData<S>> make_mesh_data(std::shared_ptr<const TriangleMesh<S>> mesh) {
  auto d = std::make_shared<MeshData<S>>();
  const auto& m = *mesh;
  const std::size_t n = m.triangles.size();
  std::vector<TriangleBounds> bounds;
  std::vector<TriangleCorners> corners;
  std::vector<Vec3d> los, his;
  bool any = false;
  for (std::size_t k = 0; k < n; ++k) {
    if (k < m.degenerate().size() && m.degenerate()[k]) continue;
    const auto& t = m.triangles[k];
    TriangleCorners tc;
    tc.a = m.vertices[t[0]].template cast<double>();
    tc.b = m.vertices[t[1]].template cast<double>();
    tc.c = m.vertices[t[2]].template cast<double>();
    tc.index = static_cast<std::uint32_t>(k);
    const Vec3d lo = tc.lo(), hi = tc.hi();
    const Vec3d mid = 0.5 * (lo + hi);
    const double r = std::max({(tc.a - mid).norm(), (tc.b - mid).norm(), (tc.c - mid).norm()});
    const double scale = std::max(mid.cwiseAbs().maxCoeff(), r);
    TriangleBounds tb;
    tb.center = mid;
    tb.radius = r + kRelativeSlack * scale;
    // The plane through the triangle, in double; its corners lie on it up to rounding, which
    // `flatness` bounds (a generous multiple of the error of the cross product and dot products).
    const Vec3d nrm = (tc.b - tc.a).cross(tc.c - tc.a);
    const double len = nrm.norm();
    tb.normal = len > 0 ? Vec3d(nrm / len) : Vec3d::Zero();
    tb.offset = tb.normal.dot(tc.a);
    const double flat = std::max({std::abs(tb.normal.dot(tc.b) - tb.offset), std::abs(tb.normal.dot(tc.c) - tb.offset)}) +
                        kRelativeSlack * (scale + r);
    tb.flatness = len > 0 ? flat : kNever;
    d->box_lo = any ? Vec3d(d->box_lo.cwiseMin(lo)) : lo;
    d->box_hi = any ? Vec3d(d->box_hi.cwiseMax(hi)) : hi;
    any = true;
    bounds.push_back(tb);
    corners.push_back(tc);
    los.push_back(lo);
    his.push_back(hi);
  }
  d->tree.build(los, his);
  const std::vector<std::uint32_t> old = d->tree.renumber();
  d->tree.release_build_memory();
  d->bounds.reserve(old.size());
  d->corners.reserve(old.size());
  for (std::uint32_t k : old) {
    d->bounds.push_back(bounds[k]);
    d->corners.push_back(corners[k]);
  }
  d->mesh = std::move(mesh);
  return d;
}

/// Checks a body description and builds the body; returns the error (path relative to the body).
template <class S>
[[nodiscard]] std::string make_body(const WorldBody<S>& in, Body<S>& out) {
  if (in.id.empty()) return "body: empty ID";
  if (auto e = validate(in.pose); !e.empty()) return "pose." + e;
  out = Body<S>{};
  out.id = in.id;
  out.kind = in.kind;
  out.pose = in.pose;
  out.category = in.category;
  out.mask = in.mask;
  switch (in.kind) {
    case BodyKind::convex:
      if (auto e = validate(in.shape); !e.empty()) return "shape." + e;
      out.parts.push_back(make_part(in.shape, Pose<S>{}, true));
      break;
    case BodyKind::compound:
      if (in.parts.empty()) return "compound: no parts";
      for (std::size_t i = 0; i < in.parts.size(); ++i) {
        const std::string at = "compound." + std::to_string(i) + ".";
        if (auto e = validate(in.parts[i].shape); !e.empty()) return at + "shape." + e;
        if (auto e = validate(in.parts[i].pose); !e.empty()) return at + "pose." + e;
        out.parts.push_back(make_part(in.parts[i].shape, in.parts[i].pose, false));
      }
      break;
    case BodyKind::mesh: {
      if (!in.mesh) return "mesh: missing";
      if (in.mesh->normals().size() != in.mesh->triangles.size()) return "mesh: not built (call build_mesh)";
      out.mesh = make_mesh_data(in.mesh);
      break;
    }
  }
  double r = 0;
  for (const auto& p : out.parts) r = std::max(r, p.center.norm() + p.radius);
  if (out.mesh) {
    for (const TriangleBounds& t : out.mesh->bounds) r = std::max(r, t.center.norm() + t.radius);
  }
  out.radius = r * (1.0 + kRelativeSlack);
  return {};
}

}  // namespace impact::world_detail
