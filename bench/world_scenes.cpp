// impact benchmarks — world_scenes.cpp: the world-step scenes (see world_scenes.hpp).
#include "world_scenes.hpp"

#include "mesh_scenes.hpp"

#include <impact/shapes.hpp>
#include <impact/toi.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>
#include <stdexcept>

namespace impact_bench {
namespace {

using V = impact::Vec3<double>;
using Q = impact::Quat<double>;
using Rng = std::mt19937_64;
constexpr double kPi = std::numbers::pi;

double uniform(Rng& rng, double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(rng() >> 11) * 0x1.0p-53); }

V unit_vector(Rng& rng) {
  const double z = uniform(rng, -1, 1), phi = uniform(rng, 0, 2 * kPi), s = std::sqrt(std::max(0.0, 1 - z * z));
  return {s * std::cos(phi), s * std::sin(phi), z};
}

Q random_rotation(Rng& rng) {  // Shoemake
  const double u1 = uniform(rng, 0, 1), u2 = uniform(rng, 0, 2 * kPi), u3 = uniform(rng, 0, 2 * kPi);
  const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
  return Q(a * std::sin(u2), a * std::cos(u2), b * std::sin(u3), b * std::cos(u3)).normalized();
}

PoseDesc to_desc(const impact::Pose<double>& p) {
  return {{p.position.x(), p.position.y(), p.position.z()}, {p.rotation.w(), p.rotation.x(), p.rotation.y(), p.rotation.z()}};
}

MotionDesc to_desc(const impact::Motion<double>& m) {
  MotionDesc d;
  d.pose = to_desc(m.pose);
  d.linear_velocity = {m.linear_velocity.x(), m.linear_velocity.y(), m.linear_velocity.z()};
  d.angular_velocity = {m.angular_velocity.x(), m.angular_velocity.y(), m.angular_velocity.z()};
  return d;
}

struct ConvexPiece {
  impact::Shape<double> shape;
  ShapeDesc desc;
  double ccd = 0;  // inscribed radius about the origin
};

/// A box, hull or cylinder about the origin, sizes times `scale`.
ConvexPiece convex_piece(Rng& rng, int kind, double scale) {
  ConvexPiece p;
  switch (kind) {
    case 0: {
      const V h(uniform(rng, 0.08, 0.35) * scale, uniform(rng, 0.08, 0.35) * scale, uniform(rng, 0.08, 0.35) * scale);
      p.shape = impact::Box<double>{h};
      p.desc.kind = ShapeKind::box;
      p.desc.half_extents = {h.x(), h.y(), h.z()};
      p.ccd = h.minCoeff();
      break;
    }
    case 1: {
      const V axes(uniform(rng, 0.1, 0.35) * scale, uniform(rng, 0.1, 0.35) * scale, uniform(rng, 0.1, 0.35) * scale);
      const int n = 12 + static_cast<int>(rng() % 21);
      std::vector<V> pts;
      for (int i = 0; i < n; ++i) pts.push_back(unit_vector(rng).cwiseProduct(axes));
      auto built = impact::Hull<double>::build(std::span<const V>(pts));
      if (!built.ok()) throw std::runtime_error("bench: world scene: hull build failed: " + built.error);
      p.desc.kind = ShapeKind::hull;
      for (const V& v : built.hull.vertices) p.desc.vertices.push_back({v.x(), v.y(), v.z()});
      p.ccd = 1e300;
      for (const auto& f : built.hull.faces) p.ccd = std::min(p.ccd, f.offset);
      p.ccd = std::max(p.ccd, 0.01 * scale);
      p.shape = std::move(built.hull);
      break;
    }
    default: {
      const double r = uniform(rng, 0.08, 0.3) * scale, h = uniform(rng, 0.08, 0.35) * scale;
      p.shape = impact::Cylinder<double>{r, h};
      p.desc.kind = ShapeKind::cylinder;
      p.desc.radius = r;
      p.desc.half_height = h;
      p.ccd = std::min(r, h);
      break;
    }
  }
  return p;
}

struct Piece {
  std::vector<impact::CompoundPart<double>> parts;
  WorldBodyDesc desc;
  double radius = 0;  // bounding radius about the origin
};

/// kind 0 box, 1 hull, 2 cylinder, 3 a compound of 2–4 of them (the first at the origin).
Piece make_piece(Rng& rng, int kind, double scale) {
  Piece p;
  if (kind < 3) {
    ConvexPiece c = convex_piece(rng, kind, scale);
    p.radius = impact::bounding_radius(c.shape);
    p.desc.ccd_radius = c.ccd;
    p.desc.parts.push_back({c.desc, PoseDesc{}});
    p.parts.push_back({std::move(c.shape), impact::Pose<double>{}});
    return p;
  }
  const int n = 2 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n; ++i) {
    ConvexPiece c = convex_piece(rng, static_cast<int>(rng() % 3), 0.7 * scale);
    impact::Pose<double> pose;
    if (i > 0) {
      pose.position = uniform(rng, 0.15, 0.35) * scale * unit_vector(rng);
      pose.rotation = random_rotation(rng);
    } else {
      p.desc.ccd_radius = c.ccd;
    }
    p.radius = std::max(p.radius, pose.position.norm() + impact::bounding_radius(c.shape));
    p.desc.parts.push_back({c.desc, to_desc(pose)});
    p.parts.push_back({std::move(c.shape), pose});
  }
  return p;
}

std::string body_id(std::size_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "b%05zu", i);
  return buf;
}

struct State {
  V p, v, w;
  Q q;
  double radius = 0;
};

void add_piece(WorldScene& s, Piece&& piece, const impact::Pose<double>& pose) {
  const std::size_t i = s.bodies.size();
  if (piece.desc.parts.size() == 1)
    s.bodies.push_back(impact::WorldBody<double>::convex_body(body_id(i), std::move(piece.parts[0].shape), pose));
  else
    s.bodies.push_back(impact::WorldBody<double>::compound_body(body_id(i), std::move(piece.parts), pose));
  s.desc.bodies.push_back(std::move(piece.desc));
}

void add_mesh(WorldScene& s, const impact_scenes::MeshData& data) {
  auto mesh = std::make_shared<impact::TriangleMesh<double>>(impact_scenes::to_mesh<double>(data));
  s.mesh = mesh;
  s.desc.mesh_body = static_cast<int>(s.bodies.size());
  s.bodies.push_back(impact::WorldBody<double>::mesh_body("mesh", mesh));
  WorldBodyDesc d;
  d.is_mesh = true;
  d.moving = false;
  s.desc.bodies.push_back(d);
  for (const V& v : data.vertices) s.desc.mesh.vertices.push_back({float(v.x()), float(v.y()), float(v.z())});
  s.desc.mesh.triangles = data.triangles;
}

/// Records step motions of every body (the mesh, if any, is the last body and stays).
void record(WorldScene& s, const std::vector<State>& st, const std::vector<impact::Motion<double>>& m) {
  std::vector<impact::BodyMotion<double>> bm;
  std::vector<MotionDesc> md;
  for (std::size_t i = 0; i < st.size(); ++i) {
    bm.push_back({s.bodies[i].id, m[i], false});
    md.push_back(to_desc(m[i]));
  }
  if (s.desc.mesh_body >= 0) md.push_back(MotionDesc{});
  s.motions.push_back(std::move(bm));
  s.desc.steps.push_back(std::move(md));
}

impact::Motion<double> motion_of(const State& b, const V& lin, const V& ang) {
  impact::Motion<double> m;
  m.pose.position = b.p;
  m.pose.rotation = b.q;
  m.linear_velocity = lin;
  m.angular_velocity = ang;
  return m;
}

double ground(const WorldScene& s, const impact_scenes::MeshData& d, double x, double y) {
  const int n = s.mesh_n;
  const double gx = std::clamp((x - s.mesh_origin) / s.mesh_cell, 0.0, n - 1e-9);
  const double gy = std::clamp((y - s.mesh_origin) / s.mesh_cell, 0.0, n - 1e-9);
  const int i = static_cast<int>(gx), j = static_cast<int>(gy);
  const double u = gx - i, v = gy - j;
  auto z = [&](int a, int b) { return d.vertices[static_cast<std::size_t>(b * (n + 1) + a)].z(); };
  // Triangles (a, b, c) and (a, c, e) with a = (i, j), b = (i+1, j), c = (i+1, j+1), e = (i, j+1).
  if (u >= v) return z(i, j) + u * (z(i + 1, j) - z(i, j)) + v * (z(i + 1, j + 1) - z(i + 1, j));
  return z(i, j) + v * (z(i, j + 1) - z(i, j)) + u * (z(i + 1, j + 1) - z(i, j + 1));
}

std::unique_ptr<WorldScene> falling_pieces(int count) {
  auto s = std::make_unique<WorldScene>();
  s->desc.name = "falling_pieces_" + std::to_string(count);
  Rng rng(1000 + static_cast<std::uint64_t>(count));
  const int n = count >= 10000 ? 708 : 224;
  const double size = count >= 10000 ? 63.25 : 20.0;
  const impact_scenes::MeshData terrain = impact_scenes::terrain(n, size, 18, 1.5);
  s->mesh_n = n;
  s->mesh_cell = 2 * size / n;
  s->mesh_origin = -size;
  // Pieces on a jittered lattice of 1.6 (no two bounding spheres overlap), 5 layers above the ground.
  const double spacing = 1.6;
  const int side = static_cast<int>((2 * size - 2) / spacing);
  std::vector<std::array<int, 3>> cells;
  for (int a = 0; a < side; ++a)
    for (int b = 0; b < side; ++b)
      for (int l = 0; l < 5; ++l) cells.push_back({a, b, l});
  std::shuffle(cells.begin(), cells.end(), rng);
  if (static_cast<int>(cells.size()) < count) throw std::runtime_error("bench: world scene: too few cells");
  std::vector<State> st;
  for (int i = 0; i < count; ++i) {
    Piece piece = make_piece(rng, i % 4, 1.0);
    State b;
    b.radius = piece.radius;
    const double x = -size + 1 + spacing * (cells[static_cast<std::size_t>(i)][0] + 0.5) + uniform(rng, -0.05, 0.05);
    const double y = -size + 1 + spacing * (cells[static_cast<std::size_t>(i)][1] + 0.5) + uniform(rng, -0.05, 0.05);
    b.p = V(x, y, 0);
    b.p.z() = ground(*s, terrain, x, y) + 0.9 + spacing * cells[static_cast<std::size_t>(i)][2];
    b.q = random_rotation(rng);
    b.v = V(uniform(rng, -1, 1), uniform(rng, -1, 1), uniform(rng, -2, 0));
    b.w = uniform(rng, 0, 10) * unit_vector(rng);
    impact::Pose<double> pose;
    pose.position = b.p;
    pose.rotation = b.q;
    add_piece(*s, std::move(piece), pose);
    st.push_back(b);
  }
  add_mesh(*s, terrain);
  // The motions come from a simple simulation whose collision answers are impact's own world
  // events (as impact_toi_stats does for pairs): each piece stops at 0.9 of its earliest contact
  // of the frame (the rest of the frame is lost; the gap left is an engine's slop) and every
  // contact exchanges an impulse along its normal (restitution 0.5, equal masses, the ground
  // immovable; tangential velocity and spin × 0.8); pieces found overlapping at a frame's start
  // are pushed apart at 0.5 m/s. The recorded steps are frames 24–47.
  const double dt = 1.0 / 24, e = 0.5;
  const V g(0, 0, -9.81);
  const int warm = 24, steps = 24;
  const int mesh = s->desc.mesh_body;
  impact::World<double> sim;
  if (const std::string err = sim.edit({}, s->bodies); !err.empty()) throw std::runtime_error("bench: world scene: " + err);
  std::vector<impact::Motion<double>> m(st.size());
  std::vector<impact::BodyMotion<double>> bm(st.size());
  std::vector<double> stop(st.size());
  std::vector<V> v(st.size());
  for (int f = 0; f < warm + steps; ++f) {
    for (std::size_t i = 0; i < st.size(); ++i) {
      State& b = st[i];
      for (int k = 0; k < 2; ++k)  // stay over the terrain
        if ((b.p[k] > size - 1 && b.v[k] > 0) || (b.p[k] < -size + 1 && b.v[k] < 0)) b.v[k] = -b.v[k];
      m[i] = motion_of(b, (b.v + 0.5 * dt * g) * dt, b.w * dt);
      bm[i] = {s->bodies[i].id, m[i], false};
    }
    if (f >= warm) record(*s, st, m);
    const auto r = sim.step(bm);
    if (!r.ok()) throw std::runtime_error("bench: world scene: step: " + r.error);
    for (std::size_t i = 0; i < st.size(); ++i) {
      stop[i] = 1;
      v[i] = st[i].v + dt * g;
    }
    for (const auto& ev : r.events) {  // sorted by toi
      const int a = world_body_index(*s, ev.a), b = world_body_index(*s, ev.b);
      const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
      if (ev.status == impact::Status::initially_overlapping) {
        if (a == mesh || b == mesh) {
          const std::size_t p = a == mesh ? ub : ua;
          v[p].z() = std::max(v[p].z(), 0.5);
        } else {
          V d = st[ub].p - st[ua].p;
          d = d.norm() > 0 ? V(d.normalized()) : V::UnitZ();
          if ((v[ub] - v[ua]).dot(d) < 1.0) {
            v[ua] -= 0.5 * d;
            v[ub] += 0.5 * d;
          }
        }
        continue;
      }
      if (a != mesh) stop[ua] = std::min(stop[ua], double(ev.toi));
      if (b != mesh) stop[ub] = std::min(stop[ub], double(ev.toi));
      const V n = ev.normal;  // from a toward b
      const V va = a == mesh ? V::Zero() : v[ua], vb = b == mesh ? V::Zero() : v[ub];
      const double vn = (vb - va).dot(n);
      if (vn >= 0) continue;
      if (a != mesh && b != mesh) {
        const double j = -(1 + e) * vn / 2;
        v[ua] -= j * n;
        v[ub] += j * n;
      } else if (a != mesh) {
        v[ua] -= (1 + e) * v[ua].dot(n) * n;
      } else {
        v[ub] -= (1 + e) * v[ub].dot(n) * n;
      }
      for (int k : {a, b}) {
        if (k == mesh) continue;
        const auto uk = static_cast<std::size_t>(k);
        v[uk] -= 0.2 * (v[uk] - v[uk].dot(n) * n);
        st[uk].w *= 0.8;
      }
    }
    for (std::size_t i = 0; i < st.size(); ++i) {
      const impact::Pose<double> end = m[i].at(stop[i] < 1 ? 0.9 * stop[i] : 1.0);
      st[i].p = end.position;
      st[i].q = end.rotation;
      st[i].v = v[i];
    }
  }
  return s;
}

std::unique_ptr<WorldScene> high_speed(int count) {
  auto s = std::make_unique<WorldScene>();
  s->desc.name = "high_speed_" + std::to_string(count);
  Rng rng(2000 + static_cast<std::uint64_t>(count));
  const double half = 20, spacing = 1.6, limit = half - 0.3;
  const int side = static_cast<int>((2 * half - 2) / spacing);
  std::vector<std::array<int, 3>> cells;
  for (int a = 0; a < side; ++a)
    for (int b = 0; b < side; ++b)
      for (int c = 0; c < side; ++c) cells.push_back({a, b, c});
  std::shuffle(cells.begin(), cells.end(), rng);
  std::vector<State> st;
  const double dt = 1.0 / 60;
  for (int i = 0; i < count; ++i) {
    Piece piece = make_piece(rng, i % 4, 1.0);
    State b;
    b.radius = piece.radius;
    for (int k = 0; k < 3; ++k)
      b.p[k] = -half + 1 + spacing * (cells[static_cast<std::size_t>(i)][static_cast<std::size_t>(k)] + 0.5) + uniform(rng, -0.05, 0.05);
    b.q = random_rotation(rng);
    b.v = uniform(rng, 50, 300) * unit_vector(rng);
    b.w = uniform(rng, 0, 20) * unit_vector(rng);
    impact::Pose<double> pose;
    pose.position = b.p;
    pose.rotation = b.q;
    add_piece(*s, std::move(piece), pose);
    st.push_back(b);
  }
  add_mesh(*s, impact_scenes::box_surface(V(-half, -half, -half), V(half, half, half), 16, /*inward=*/true));
  std::vector<impact::Motion<double>> m(st.size());
  for (int f = 0; f < 24; ++f) {
    for (std::size_t i = 0; i < st.size(); ++i) m[i] = motion_of(st[i], st[i].v * dt, st[i].w * dt);
    record(*s, st, m);
    for (std::size_t i = 0; i < st.size(); ++i) {
      const impact::Pose<double> end = m[i].at(1.0);
      st[i].p = end.position;
      st[i].q = end.rotation;
      for (int k = 0; k < 3; ++k) {  // through the wall: the next step starts from the mirror image
        if (st[i].p[k] > limit) {
          st[i].p[k] = 2 * limit - st[i].p[k];
          st[i].v[k] = -st[i].v[k];
        } else if (st[i].p[k] < -limit) {
          st[i].p[k] = -2 * limit - st[i].p[k];
          st[i].v[k] = -st[i].v[k];
        }
      }
    }
  }
  return s;
}

std::unique_ptr<WorldScene> blender(int count) {
  auto s = std::make_unique<WorldScene>();
  s->desc.name = "blender_" + std::to_string(count);
  Rng rng(3000 + static_cast<std::uint64_t>(count));
  std::vector<State> st;
  {  // The bar: body 0.
    const V h(10, 0.25, 1.0);
    Piece bar;
    ShapeDesc d;
    d.kind = ShapeKind::box;
    d.half_extents = {h.x(), h.y(), h.z()};
    bar.desc.parts.push_back({d, PoseDesc{}});
    bar.desc.ccd_radius = h.minCoeff();
    bar.parts.push_back({impact::Box<double>{h}, impact::Pose<double>{}});
    State b;
    b.p = V::Zero();
    b.q = Q::Identity();
    b.v = V::Zero();
    b.w = V(0, 0, 3 * 2 * kPi);  // three turns a step
    add_piece(*s, std::move(bar), impact::Pose<double>{});
    st.push_back(b);
  }
  const double spacing = 0.9;
  std::vector<V> cells;
  for (double x = -10.35; x <= 10.36; x += spacing)
    for (double y = -10.35; y <= 10.36; y += spacing)
      for (double z : {-1.35, -0.45, 0.45, 1.35}) {
        if (x * x + y * y > 10.5 * 10.5) continue;
        if (std::abs(y) < 0.75 && std::abs(z) < 1.5 && std::abs(x) < 10.5) continue;  // clear of the bar at t = 0
        cells.emplace_back(x, y, z);
      }
  std::shuffle(cells.begin(), cells.end(), rng);
  if (static_cast<int>(cells.size()) < count) throw std::runtime_error("bench: world scene: too few cells (blender)");
  for (int i = 0; i < count; ++i) {
    Piece piece = make_piece(rng, i % 4, 0.55);
    State b;
    b.radius = piece.radius;
    b.p = cells[static_cast<std::size_t>(i)] + V(uniform(rng, -0.02, 0.02), uniform(rng, -0.02, 0.02), uniform(rng, -0.02, 0.02));
    b.q = random_rotation(rng);
    b.v = V(uniform(rng, -0.05, 0.05), uniform(rng, -0.05, 0.05), uniform(rng, -0.05, 0.05));
    b.w = uniform(rng, 0, 0.3) * unit_vector(rng);
    impact::Pose<double> pose;
    pose.position = b.p;
    pose.rotation = b.q;
    add_piece(*s, std::move(piece), pose);
    st.push_back(b);
  }
  std::vector<impact::Motion<double>> m(st.size());
  for (int f = 0; f < 24; ++f) {
    for (std::size_t i = 0; i < st.size(); ++i) m[i] = motion_of(st[i], st[i].v, st[i].w);
    record(*s, st, m);
    for (std::size_t i = 0; i < st.size(); ++i) {
      const impact::Pose<double> end = m[i].at(1.0);
      st[i].p = end.position;
      st[i].q = end.rotation;
    }
  }
  return s;
}

}  // namespace

std::vector<std::string> world_scene_names() {
  return {"falling_pieces_1000", "falling_pieces_10000", "high_speed_5000", "blender_1000"};
}

std::unique_ptr<WorldScene> make_world_scene(const std::string& name) {
  if (name == "falling_pieces_1000") return falling_pieces(1000);
  if (name == "falling_pieces_10000") return falling_pieces(10000);
  if (name == "high_speed_5000") return high_speed(5000);
  if (name == "blender_1000") return blender(1000);
  throw std::runtime_error("bench: unknown world scene " + name);
}

int world_body_index(const WorldScene& scene, const std::string& id) {
  if (id == "mesh") return scene.desc.mesh_body;
  return std::atoi(id.c_str() + 1);
}

}  // namespace impact_bench
