// impact benchmarks — peers_embree.cpp: Embree 3's single-ray query and ray stream on a triangle mesh.
//
// One RTCDevice, one RTCScene with one RTC_GEOMETRY_TYPE_TRIANGLE geometry whose vertex and index
// buffers Embree owns (rtcSetNewGeometryBuffer), committed with the default build quality. A ray is
// traced with rtcIntersect1 and a default intersect context: nearest hit, both faces (Debian's
// build does not enable back-face culling). Built only when CMake finds Embree.
#include "mesh_peers.hpp"

#if IMPACT_BENCH_HAVE_EMBREE
#include <embree3/rtcore.h>
#endif

#include <cstring>
#include <limits>

namespace impact_bench {

#if IMPACT_BENCH_HAVE_EMBREE
struct EmbreePeer::Impl {
  RTCDevice device = nullptr;
  RTCScene scene = nullptr;
};

EmbreePeer::EmbreePeer(const MeshDesc& m) : impl_(std::make_unique<Impl>()) {
  impl_->device = rtcNewDevice(nullptr);
  impl_->scene = rtcNewScene(impl_->device);
  RTCGeometry g = rtcNewGeometry(impl_->device, RTC_GEOMETRY_TYPE_TRIANGLE);
  auto* v = static_cast<float*>(rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                                        3 * sizeof(float), m.vertices.size()));
  for (std::size_t i = 0; i < m.vertices.size(); ++i) std::memcpy(v + 3 * i, m.vertices[i].data(), 3 * sizeof(float));
  auto* t = static_cast<unsigned*>(rtcSetNewGeometryBuffer(g, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                                           3 * sizeof(unsigned), m.triangles.size()));
  for (std::size_t i = 0; i < m.triangles.size(); ++i)
    for (int k = 0; k < 3; ++k) t[3 * i + k] = m.triangles[i][k];
  rtcCommitGeometry(g);
  rtcAttachGeometry(impl_->scene, g);
  rtcReleaseGeometry(g);
  rtcCommitScene(impl_->scene);
}

EmbreePeer::~EmbreePeer() {
  rtcReleaseScene(impl_->scene);
  rtcReleaseDevice(impl_->device);
}

namespace {
void fill(RTCRayHit& rh, const SegmentDesc& s) {
  rh.ray.org_x = s.origin[0];
  rh.ray.org_y = s.origin[1];
  rh.ray.org_z = s.origin[2];
  rh.ray.dir_x = s.path[0];
  rh.ray.dir_y = s.path[1];
  rh.ray.dir_z = s.path[2];
  rh.ray.tnear = 0.0f;
  rh.ray.tfar = 1.0f;
  rh.ray.time = 0.0f;
  rh.ray.mask = std::numeric_limits<unsigned>::max();
  rh.ray.id = 0;
  rh.ray.flags = 0;
  rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
  rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
}
}  // namespace

float EmbreePeer::ray(const SegmentDesc& s, std::uint32_t& tri) const {
  RTCIntersectContext ctx;
  rtcInitIntersectContext(&ctx);
  RTCRayHit rh;
  fill(rh, s);
  rtcIntersect1(impl_->scene, &ctx, &rh);
  if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) return -1.0f;
  tri = rh.hit.primID;
  return rh.ray.tfar;
}

void EmbreePeer::rays_stream(const SegmentDesc* first, std::size_t n, bool coherent, float* t,
                             std::vector<unsigned char>& scratch) const {
  if (scratch.size() < n * sizeof(RTCRayHit)) scratch.resize(n * sizeof(RTCRayHit));
  auto* rh = reinterpret_cast<RTCRayHit*>(scratch.data());
  for (std::size_t i = 0; i < n; ++i) fill(rh[i], first[i]);
  RTCIntersectContext ctx;
  rtcInitIntersectContext(&ctx);
  ctx.flags = coherent ? RTC_INTERSECT_CONTEXT_FLAG_COHERENT : RTC_INTERSECT_CONTEXT_FLAG_INCOHERENT;
  rtcIntersect1M(impl_->scene, &ctx, rh, static_cast<unsigned>(n), sizeof(RTCRayHit));
  for (std::size_t i = 0; i < n; ++i) t[i] = rh[i].hit.geomID == RTC_INVALID_GEOMETRY_ID ? -1.0f : rh[i].ray.tfar;
}

bool EmbreePeer::available() { return true; }
#else
struct EmbreePeer::Impl {};
EmbreePeer::EmbreePeer(const MeshDesc&) {}
EmbreePeer::~EmbreePeer() = default;
float EmbreePeer::ray(const SegmentDesc&, std::uint32_t&) const { return -1.0f; }
void EmbreePeer::rays_stream(const SegmentDesc*, std::size_t n, bool, float* t, std::vector<unsigned char>&) const {
  for (std::size_t i = 0; i < n; ++i) t[i] = -1.0f;
}
bool EmbreePeer::available() { return false; }
#endif

}  // namespace impact_bench
