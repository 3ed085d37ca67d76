// impact — world/world_impl.hpp: World<S>: the bodies, their edits, and one step from motions to
// sorted events (docs/architecture.md, "How a world step flows").
#pragma once

#include "detail/validation.hpp"
#include "world/bodies.hpp"
#include "world/broad_phase.hpp"
#include "world/narrow_phase.hpp"
#include "world/swept_bounds.hpp"

#include <impact/world.hpp>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace impact {

template <class S>
struct World<S>::Impl {
  std::vector<world_detail::Body<S>> bodies;  ///< In insertion order.
  world_detail::BodyIndex index;  ///< ID → position in `bodies`.
  /// The broad phase's box tree, kept between steps and refitted (BoxTree::update).
  world_detail::BoxTree broad_tree;
  /// The bodies as the last step saw them: scratch, kept so that their vectors keep their memory.
  std::vector<world_detail::StepBody<S>> step_bodies;
  /// Some stored pose is outside the accepted range of coordinates: a step took a body there
  /// (a position and a velocity each within 1e12 end within 2e12). Such a pose is refused as a
  /// step's pose at t = 0 (gather_motions), as a motion's given pose would be.
  bool far_poses = false;

  void note_far_poses() {
    far_poses = std::any_of(bodies.begin(), bodies.end(), [](const world_detail::Body<S>& b) { return !detail::pose_ok(b.pose); });
  }

  void reindex() {
    index.clear();
    index.reserve(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) index.emplace(bodies[i].id, i);
  }
};

template <class S>
World<S>::World() : impl_(std::make_unique<Impl>()) {}
template <class S>
World<S>::~World() = default;
template <class S>
World<S>::World(World&&) noexcept = default;
template <class S>
World<S>& World<S>::operator=(World&&) noexcept = default;
template <class S>
World<S>::World(const World& o) : impl_(std::make_unique<Impl>(*o.impl_)) {}
template <class S>
World<S>& World<S>::operator=(const World& o) {
  if (this != &o) impl_ = std::make_unique<Impl>(*o.impl_);
  return *this;
}

template <class S>
std::size_t World<S>::size() const {
  return impl_->bodies.size();
}

template <class S>
std::vector<std::string> World<S>::ids() const {
  std::vector<std::string> out;
  out.reserve(impl_->index.size());
  for (const auto& [id, i] : impl_->index) out.push_back(id);
  std::sort(out.begin(), out.end());
  return out;
}

template <class S>
const Pose<S>* World<S>::pose(std::string_view id) const {
  auto it = impl_->index.find(id);
  return it == impl_->index.end() ? nullptr : &impl_->bodies[it->second].pose;
}

template <class S>
std::string World<S>::edit(std::span<const std::string> remove, std::span<const WorldBody<S>> add,
                           std::string_view add_path) {
  // Everything is checked before anything changes.
  std::map<std::string, bool, std::less<>> gone;
  for (std::size_t i = 0; i < remove.size(); ++i) {
    const std::string at = "remove." + std::to_string(i);
    if (!impl_->index.contains(remove[i])) return at + ": no body '" + remove[i] + "'";
    if (!gone.emplace(remove[i], true).second) return at + ": body '" + remove[i] + "' removed twice";
  }
  std::vector<world_detail::Body<S>> fresh(add.size());
  std::map<std::string, bool, std::less<>> added;
  for (std::size_t i = 0; i < add.size(); ++i) {
    const std::string at = std::string(add_path) + "." + std::to_string(i) + ".";
    if (auto e = world_detail::make_body(add[i], fresh[i]); !e.empty()) return at + e;
    const std::string& id = add[i].id;
    if ((impl_->index.contains(id) && !gone.contains(id)) || !added.emplace(id, true).second)
      return at + "body: ID '" + id + "' exists";
  }
  if (!gone.empty()) {
    std::erase_if(impl_->bodies, [&](const world_detail::Body<S>& b) { return gone.contains(b.id); });
  }
  for (auto& b : fresh) impl_->bodies.push_back(std::move(b));
  impl_->reindex();
  if (impl_->far_poses) impl_->note_far_poses();  // a removal may have taken the last one
  return {};
}

namespace world_detail {

/// Tolerance a pair can honour in S (as the `time_of_impact` query floors it): 64 ulps of its
/// coordinates and 1e-2 of the default tolerance relative to its size.
template <class S>
[[nodiscard]] double honoured_tolerance(double tolerance, double reach, double size) {
  const double eps = double(std::numeric_limits<S>::epsilon());
  return std::max({tolerance, double(Tolerances<S>::cast_tolerance) * 1e-2 * size, 64.0 * eps * reach});
}

/// The box a body covers during the step, before growing by the gap.
template <class S>
void body_box(const StepBody<S>& sb, Vec3d& lo, Vec3d& hi) {
  const Body<S>& b = *sb.body;
  if (b.kind == BodyKind::mesh) {
    if (!sb.path.moves) {
      // A resting mesh: its local box placed by the pose (the box of the placed corners).
      const MeshData<S>& md = *b.mesh;
      lo = Vec3d::Constant(kNever);
      hi = Vec3d::Constant(-kNever);
      for (int c = 0; c < 8; ++c) {
        const Vec3d corner((c & 1) ? md.box_hi.x() : md.box_lo.x(), (c & 2) ? md.box_hi.y() : md.box_lo.y(),
                           (c & 4) ? md.box_hi.z() : md.box_lo.z());
        const Vec3d w = sb.path.r0 * corner + sb.path.p0;
        lo = lo.cwiseMin(w);
        hi = hi.cwiseMax(w);
      }
      const double slack = kRelativeSlack * std::max(lo.cwiseAbs().maxCoeff(), hi.cwiseAbs().maxCoeff());
      lo.array() -= slack;
      hi.array() += slack;
      if (md.bounds.empty()) hi = lo - Vec3d::Ones();  // nothing to hit: an empty box
      return;
    }
    sb.path.body(b.radius).box(0, lo, hi);
    return;
  }
  sb.parts[0].box(0, lo, hi);
  for (std::size_t i = 1; i < sb.parts.size(); ++i) {
    Vec3d l, h;
    sb.parts[i].box(0, l, h);
    lo = lo.cwiseMin(l);
    hi = hi.cwiseMax(h);
  }
}

/// `WorldEvent` of a contact found in call order (first, second).
template <class S>
[[nodiscard]] WorldEvent<S> make_event(const Body<S>& first, const Body<S>& second, const PairContact<S>& c) {
  WorldEvent<S> e;
  e.status = c.hit.status;
  e.toi = c.hit.toi;
  const bool swap = second.id < first.id;
  const Body<S>& a = swap ? second : first;
  const Body<S>& b = swap ? first : second;
  e.a = a.id;
  e.b = b.id;
  e.point_a = swap ? c.hit.point_b : c.hit.point_a;
  e.point_b = swap ? c.hit.point_a : c.hit.point_b;
  e.normal = swap ? Vec3<S>(-c.hit.normal) : c.hit.normal;
  const int piece_first = first.kind == BodyKind::compound ? c.part_a : -1;
  const std::int64_t piece_second = second.kind == BodyKind::compound ? c.piece_b : -1;
  if (second.kind == BodyKind::mesh) e.triangle = c.piece_b;
  e.part_a = static_cast<int>(swap ? piece_second : piece_first);
  e.part_b = static_cast<int>(swap ? piece_first : piece_second);
  return e;
}

template <class S>
[[nodiscard]] bool event_before(const WorldEvent<S>& x, const WorldEvent<S>& y) {
  if (x.toi != y.toi) return x.toi < y.toi;
  if (x.a != y.a) return x.a < y.a;
  return x.b < y.b;
}

/// report: bodies — each body's earliest event (ties: lower other ID), each event once.
template <class S>
[[nodiscard]] std::vector<WorldEvent<S>> per_body(std::vector<WorldEvent<S>> events) {
  std::map<std::string_view, std::size_t> best;
  auto offer = [&](std::string_view body, std::string_view other, std::size_t k) {
    auto it = best.find(body);
    if (it == best.end()) {
      best.emplace(body, k);
      return;
    }
    const WorldEvent<S>& cur = events[it->second];
    const std::string_view cur_other = cur.a == body ? std::string_view(cur.b) : std::string_view(cur.a);
    if (events[k].toi < cur.toi || (events[k].toi == cur.toi && other < cur_other)) it->second = k;
  };
  for (std::size_t k = 0; k < events.size(); ++k) {
    offer(events[k].a, events[k].b, k);
    offer(events[k].b, events[k].a, k);
  }
  std::vector<std::size_t> keep;
  for (const auto& [body, k] : best) keep.push_back(k);
  std::sort(keep.begin(), keep.end());
  keep.erase(std::unique(keep.begin(), keep.end()), keep.end());
  std::vector<WorldEvent<S>> out;
  out.reserve(keep.size());
  for (std::size_t k : keep) out.push_back(std::move(events[k]));
  return out;
}

/// The step's options: a message naming the first bad field, or empty.
template <class S>
std::string check_step_options(const WorldStepOptions<S>& options) {
  if (auto e = detail::check_scalar(options.target_distance, "target_distance"); !e.empty()) return e;
  if (auto e = detail::check_scalar(options.tolerance, "tolerance", true); !e.empty()) return e;
  if (options.max_iterations < 1) return "max_iterations: must be >= 1";
  if (options.threads < 0) return "threads: must be >= 0";
  return {};
}

/// How a step moves body i (`given[i]`): not at all (0), from its stored pose, or from the
/// motion's pose.
inline constexpr char kMovedFromStoredPose = 1, kMovedFromGivenPose = 2;

/// Every body's motion for the step: its stored pose at rest unless `motions` names it (each at
/// most once, each field checked). `given[i]` marks the bodies named, and how. A message naming
/// the first bad field, or empty.
template <class S>
std::string gather_motions(const std::vector<Body<S>>& bodies,
                           const BodyIndex& index,
                           std::span<const BodyMotion<S>> motions, std::vector<StepBody<S>>& sb,
                           std::vector<char>& given) {
  const std::size_t n = bodies.size();
  sb.resize(n);  // kept from the last step: the vectors inside keep their memory
  given.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    sb[i].body = &bodies[i];
    sb[i].motion = Motion<S>{};
    sb[i].motion.pose = bodies[i].pose;
    sb[i].parts.clear();
    sb[i].triangles.clear();
  }
  for (const BodyMotion<S>& m : motions) {
    // The field's path is built only for a message (a string per motion was a tenth of the
    // broad phase's time on 10,000 bodies).
    const auto at = [&] { return "motions." + m.body; };
    auto it = index.find(m.body);
    if (it == index.end()) return at() + ": unknown body";
    if (given[it->second]) return at() + ": given twice";
    given[it->second] = m.use_stored_pose ? kMovedFromStoredPose : kMovedFromGivenPose;
    if (!m.use_stored_pose && !detail::pose_ok(m.motion.pose)) {
      if (auto e = validate(m.motion.pose); !e.empty()) return at() + ".pose." + e;
    }
    if (!detail::point_ok(m.motion.linear_velocity))
      return detail::check_vector(m.motion.linear_velocity, at() + ".linear_velocity");
    if (!detail::point_ok(m.motion.angular_velocity))
      return detail::check_vector(m.motion.angular_velocity, at() + ".angular_velocity");
    StepBody<S>& s = sb[it->second];
    if (!m.use_stored_pose) s.motion.pose = m.motion.pose;
    s.motion.linear_velocity = m.motion.linear_velocity;
    s.motion.angular_velocity = m.motion.angular_velocity;
  }
  return {};
}

/// Why a step cannot start from the stored poses: a body the step uses at its stored pose (at
/// rest, or moved without a pose) that an earlier step took outside the accepted range of
/// coordinates; empty when there is none. Its pairs could not be queried: the step is refused,
/// naming the body, rather than run without them.
template <class S>
std::string far_stored_pose(const std::vector<StepBody<S>>& sb, const std::vector<char>& given) {
  for (std::size_t i = 0; i < sb.size(); ++i) {
    const Body<S>& b = *sb[i].body;
    if (given[i] == kMovedFromGivenPose || detail::pose_ok(b.pose)) continue;
    const std::string what = ": the stored pose is out of range after an earlier step (" + validate(b.pose) + ")";
    if (given[i]) return "motions." + b.id + what + "; give the motion a pose";
    return "bodies." + b.id + what + "; give it a motion with a pose, or remove it";
  }
  return {};
}

/// The step's thread count (options.threads, 0: all cores).
template <class S>
int step_threads(const WorldStepOptions<S>& options) {
  return options.threads > 0 ? options.threads : tbb::info::default_concurrency();
}

/// Calls f(begin, end) over a partition of [0, n), on `threads` threads (one call for the whole
/// range on one thread, or below 512 items).
template <class F>
void for_each_chunk(std::size_t n, int threads, F&& f) {
  if (threads == 1 || n < 512) {
    f(std::size_t(0), n);
    return;
  }
  tbb::task_arena arena(threads);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 256),
                      [&](const tbb::blocked_range<std::size_t>& r) { f(r.begin(), r.end()); });
  });
}

/// Calls f(begin, end, list) over a partition of [0, n), on `threads` threads, each call with a
/// list of its own; the lists are then appended to `joined` (in no fixed order: callers sort).
template <class T, class F>
void for_each_range(std::size_t n, int threads, F&& f, std::vector<T>& joined) {
  tbb::enumerable_thread_specific<std::vector<T>> lists;
  for_each_chunk(n, threads, [&](std::size_t begin, std::size_t end) { f(begin, end, lists.local()); });
  for (const auto& l : lists) joined.insert(joined.end(), l.begin(), l.end());
}

/// Calls f(i) for every i in [0, n), on `threads` threads.
template <class F>
void for_each_index(std::size_t n, int threads, F&& f) {
  for_each_chunk(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i != end; ++i) f(i);
  });
}

/// Sorts v by `less`, on `threads` threads (from 1,024 elements on). `less` must be a total order on v's elements (no two
/// equivalent), so that the result is the same for any thread count.
template <class T, class Less>
void sort_on(std::vector<T>& v, int threads, Less&& less) {
  if (threads == 1 || v.size() < 1024) {
    std::sort(v.begin(), v.end(), less);
    return;
  }
  tbb::task_arena arena(threads);
  arena.execute([&] { tbb::parallel_sort(v.begin(), v.end(), less); });
}

/// Broad phase: every body's path and swept spheres, the pairs whose swept boxes (grown by half
/// the culling gap, returned in `gap`) overlap, and the swept spheres of the triangles of turning
/// meshes in a pair. The paths and the box queries run on the step's threads (on 10,000 bodies
/// the broad phase was a tenth of a two-thread step, run on one).
template <class S>
std::vector<std::pair<std::uint32_t, std::uint32_t>> broad_phase(std::vector<StepBody<S>>& sb,
                                                                 const WorldStepOptions<S>& options, BoxTree& tree,
                                                                 double& gap) {
  const double target = double(options.target_distance);
  const int threads = step_threads(options);
  // Swept bounds, and the world's scale for the culling gap (maxima: the same in any order).
  struct Scale {
    double reach, size;
  };
  std::vector<Scale> scales;
  for_each_range(sb.size(), threads, [&](std::size_t begin, std::size_t end, std::vector<Scale>& out) {
    Scale m{0, target};
    for (std::size_t i = begin; i < end; ++i) {
      StepBody<S>& s = sb[i];
      s.path = BodyPath::of(s.motion);
      const Body<S>& b = *s.body;
      s.parts.clear();
      for (const auto& p : b.parts) s.parts.push_back(s.path.piece(p.center, p.radius));
      m.reach = std::max({m.reach, s.path.p0.norm() + b.radius, s.path.p1.norm() + b.radius});
      m.size = std::max({m.size, b.radius, (s.path.p1 - s.path.p0).norm()});
    }
    out.push_back(m);
  }, scales);
  double reach = 0, size = target;
  for (const Scale& m : scales) {
    reach = std::max(reach, m.reach);
    size = std::max(size, m.size);
  }
  gap = target + 2.0 * honoured_tolerance<S>(double(options.tolerance), reach, size);
  std::vector<BroadBody> broad(sb.size());
  for_each_index(sb.size(), threads, [&](std::size_t i) {
    const Body<S>& b = *sb[i].body;
    BroadBody& x = broad[i];
    body_box(sb[i], x.lo, x.hi);
    x.lo.array() -= 0.5 * gap;
    x.hi.array() += 0.5 * gap;
    x.sweep = sb[i].path.body(b.radius);
    x.moves = sb[i].path.moves;
    x.mesh = b.kind == BodyKind::mesh;
    x.category = b.category;
    x.mask = b.mask;
  });
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  if (options.broad_phase == BroadPhase::sweep_and_prune) {
    std::vector<std::uint32_t> order;
    sweep_and_prune(broad, gap, order, pairs);
  } else {
    tree_pairs(broad, gap, tree, pairs, [&](std::size_t n, auto&& f, auto& joined) { for_each_range(n, threads, f, joined); });
  }
  sort_on(pairs, threads, std::less<>());  // pairs are distinct
  // Turning meshes in a pair: their triangles' swept spheres, once.
  for (const auto& [i, j] : pairs) {
    for (std::uint32_t k : {i, j}) {
      StepBody<S>& s = sb[k];
      if (s.body->kind != BodyKind::mesh || !s.path.spins || !s.triangles.empty()) continue;
      const MeshData<S>& md = *s.body->mesh;
      s.triangles.reserve(md.bounds.size());
      for (const TriangleBounds& t : md.bounds) s.triangles.push_back(s.path.piece(t.center, t.radius));
    }
  }
  return pairs;
}

/// One body pair's narrow phase, and what it cost.
template <class S>
struct PairOutcome {
  PairContact<S> contact;
  std::size_t toi_calls = 0, piece_pairs = 0;
  std::string error;
};

/// Narrow phase of pair k: put in call order (the lower ID first, unless it is the mesh; written
/// back to `pairs[k]`), its tolerance honoured at the pair's scale, its earliest contact.
template <class S>
void narrow_pair(std::vector<StepBody<S>>& sb, std::pair<std::uint32_t, std::uint32_t>& pair,
                 const WorldStepOptions<S>& options, double gap, NarrowScratch<S>& scratch, PairOutcome<S>& o) {
  auto [f, s] = pair;
  if (sb[s].body->id < sb[f].body->id) std::swap(f, s);
  if (sb[f].body->kind == BodyKind::mesh) std::swap(f, s);
  const double target = double(options.target_distance);
  NarrowOptions<S> no;
  no.toi.method = options.method;
  no.toi.max_iterations = options.max_iterations;
  no.toi.target_distance = options.target_distance;
  const double pair_reach = std::max({sb[f].path.p0.norm(), sb[f].path.p1.norm(), sb[s].path.p0.norm(),
                                      sb[s].path.p1.norm()}) +
                            std::max(sb[f].body->radius, sb[s].body->radius);
  const double pair_size = std::max({sb[f].body->radius, sb[s].body->radius, (sb[f].path.p1 - sb[f].path.p0).norm(),
                                     (sb[s].path.p1 - sb[s].path.p0).norm(), target});
  no.toi.tolerance = static_cast<S>(honoured_tolerance<S>(double(options.tolerance), pair_reach, pair_size));
  no.gap = gap;
  no.prune_by_best = options.prune_by_best;
  if (!pair_contact(sb[f], sb[s], no, scratch, o.contact, o.toi_calls, o.piece_pairs, o.error))
    o.error = "internal: time_of_impact rejected a piece pair of '" + sb[f].body->id + "' and '" + sb[s].body->id +
              "': " + o.error;
  pair = {f, s};
}

/// Narrow phase of every pair, on `threads` threads (0: all cores). Each pair's outcome goes to
/// its own slot, so the events do not depend on which thread ran which pair.
/// The order the narrow phase runs the pairs in: along a Morton curve through the smaller body's
/// position at t = 0, so that consecutive pairs over a large mesh cull neighbouring triangles,
/// whose records and tree nodes are then still in cache (on falling_pieces_1000, where the pairs
/// came in the order of the bodies' insertion, scattered over a 100,000-triangle ground, the
/// culling's loads missed the cache). Each pair's outcome has its own slot: no answer depends on
/// the order.
template <class S>
std::vector<std::uint32_t> spatial_order(const std::vector<StepBody<S>>& sb,
                                         const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs, int threads) {
  const auto at = [&](std::size_t k) -> const Vec3d& {
    const auto [i, j] = pairs[k];
    return sb[i].body->radius <= sb[j].body->radius ? sb[i].path.p0 : sb[j].path.p0;
  };
  Vec3d lo = Vec3d::Constant(kNever), hi = Vec3d::Constant(-kNever);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    lo = lo.cwiseMin(at(k));
    hi = hi.cwiseMax(at(k));
  }
  const Vec3d scale = (hi - lo).cwiseMax(1e-300).cwiseInverse() * 1023.0;
  auto spread = [](std::uint64_t x) {  // bits of x (10) three apart
    x = (x | (x << 16)) & 0x030000FFull;
    x = (x | (x << 8)) & 0x0300F00Full;
    x = (x | (x << 4)) & 0x030C30C3ull;
    return (x | (x << 2)) & 0x09249249ull;
  };
  // The code above the pair's index: one 64-bit key each, all distinct (a total order).
  std::vector<std::uint64_t> keyed(pairs.size());
  for_each_index(pairs.size(), threads, [&](std::size_t k) {
    std::uint64_t code = 0;
    for (int a = 0; a < 3; ++a) {
      const double q = std::clamp((at(k)[a] - lo[a]) * scale[a], 0.0, 1023.0);
      code |= spread(static_cast<std::uint64_t>(q)) << a;
    }
    keyed[k] = code << 32 | k;
  });
  sort_on(keyed, threads, std::less<>());
  std::vector<std::uint32_t> order(pairs.size());
  for (std::size_t k = 0; k < pairs.size(); ++k) order[k] = static_cast<std::uint32_t>(keyed[k]);
  return order;
}

template <class S>
std::vector<PairOutcome<S>> narrow_phase(std::vector<StepBody<S>>& sb,
                                         std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs,
                                         const WorldStepOptions<S>& options, double gap) {
  std::vector<PairOutcome<S>> outcomes(pairs.size());
  const int threads = step_threads(options);
  const std::vector<std::uint32_t> order = spatial_order(sb, pairs, threads);
  auto run = [&](std::size_t n, NarrowScratch<S>& scratch) {
    const std::uint32_t k = order[n];
    narrow_pair(sb, pairs[k], options, gap, scratch, outcomes[k]);
  };
  if (threads == 1 || pairs.size() < 2) {
    NarrowScratch<S> scratch;
    for (std::size_t k = 0; k < pairs.size(); ++k) run(k, scratch);
  } else {
    tbb::task_arena arena(threads);
    tbb::enumerable_thread_specific<NarrowScratch<S>> scratch;
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pairs.size()), [&](const tbb::blocked_range<std::size_t>& r) {
        NarrowScratch<S>& local = scratch.local();
        for (std::size_t k = r.begin(); k != r.end(); ++k) run(k, local);
      });
    });
  }
  return outcomes;
}

}  // namespace world_detail

/// options and motions checked (nothing changes on a bad one) → broad phase → narrow phase →
/// events (per body if asked), sorted → the moved bodies' poses at t = 1.
template <class S>
WorldStepResult<S> World<S>::step(std::span<const BodyMotion<S>> motions, const WorldStepOptions<S>& options) {
  using namespace world_detail;
  using clock = std::chrono::steady_clock;
  WorldStepResult<S> out;
  auto fail = [&](std::string e) {
    out.status = Status::invalid_input;
    out.error = std::move(e);
    return out;
  };
  if (auto e = check_step_options(options); !e.empty()) return fail(e);
  const auto t0 = clock::now();
  std::vector<StepBody<S>>& sb = impl_->step_bodies;
  std::vector<char> given;
  if (auto e = gather_motions(impl_->bodies, impl_->index, motions, sb, given); !e.empty()) return fail(e);
  if (impl_->far_poses) {
    if (auto e = far_stored_pose(sb, given); !e.empty()) return fail(e);
  }
  double gap = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs = broad_phase(sb, options, impl_->broad_tree, gap);
  const auto t1 = clock::now();

  const std::vector<PairOutcome<S>> outcomes = narrow_phase(sb, pairs, options, gap);
  std::vector<std::uint32_t> found;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const PairOutcome<S>& o = outcomes[k];
    if (!o.error.empty()) return fail(o.error);
    out.stats.toi_calls += o.toi_calls;
    out.stats.piece_pairs += o.piece_pairs;
    if (o.contact.found) found.push_back(static_cast<std::uint32_t>(k));
  }
  // The events, made and sorted on the step's threads (a pair is in one event at most, so
  // event_before is a total order on them: the same order for any thread count).
  const int threads = step_threads(options);
  std::vector<WorldEvent<S>> events(found.size());
  for_each_index(found.size(), threads, [&](std::size_t e) {
    const auto [f, s] = pairs[found[e]];
    events[e] = make_event(*sb[f].body, *sb[s].body, outcomes[found[e]].contact);
  });
  if (options.report == WorldReport::bodies) events = per_body(std::move(events));
  std::vector<std::uint32_t> rank(events.size());
  std::iota(rank.begin(), rank.end(), 0u);
  sort_on(rank, threads, [&](std::uint32_t x, std::uint32_t y) { return event_before(events[x], events[y]); });
  std::vector<WorldEvent<S>> sorted(events.size());
  for (std::size_t e = 0; e < rank.size(); ++e) sorted[e] = std::move(events[rank[e]]);
  events = std::move(sorted);
  const auto t2 = clock::now();

  // Only the moved bodies' poses change: a scan of them all only where a far pose was stored
  // before (one of them may be back in range).
  bool far = false;
  for (std::size_t i = 0; i < sb.size(); ++i) {
    if (!given[i]) continue;
    Pose<S>& pose = impl_->bodies[i].pose;
    pose = sb[i].path.moves ? sb[i].motion.at(S(1)) : sb[i].motion.pose;
    far = far || !detail::pose_ok(pose);
  }
  if (far) impl_->far_poses = true;
  else if (impl_->far_poses) impl_->note_far_poses();
  out.status = Status::hit;
  out.events = std::move(events);
  out.stats.pairs_tested = pairs.size();
  out.stats.broad_seconds = std::chrono::duration<double>(t1 - t0).count();
  out.stats.narrow_seconds = std::chrono::duration<double>(t2 - t1).count();
  return out;
}

}  // namespace impact
