// impact benchmarks — batch_time.cpp: times impact::mesh_ray_cast_batch from C++ on a mesh and
// rays read from raw files, for bench/python_batch.py, which times the Python module's
// mesh_ray_cast_batch on the same files (Python batch against the C++ batch, issue 19).
//
//   impact_batch_time DIR PRECISION
// DIR holds vertices.f64 (V×3), triangles.u32 (T×3), origin.f64 and direction.f64 (N×3), written
// by the script; PRECISION is float or double (the mesh and rays are converted once, outside the
// timing). It then serves the script: each line read from stdin is a thread count, answered by
// one timed call ("seconds hits", flushed); end of input ends it. So the script alternates the
// C++ call and its own, the two running minutes apart never again (the machine's drift between
// separate runs was larger than the 10% being measured).
#include <impact/batch.hpp>
#include <impact/mesh.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace {

template <class T>
std::vector<T> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  const auto bytes = static_cast<std::size_t>(f.tellg());
  std::vector<T> v(bytes / sizeof(T));
  f.seekg(0);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  return v;
}

template <class S>
int run(const std::string& dir) {
  const auto vd = read_all<double>(dir + "/vertices.f64");
  const auto td = read_all<std::uint32_t>(dir + "/triangles.u32");
  const auto od = read_all<double>(dir + "/origin.f64");
  const auto dd = read_all<double>(dir + "/direction.f64");
  impact::TriangleMesh<S> m;
  for (std::size_t i = 0; i + 2 < vd.size(); i += 3)
    m.vertices.emplace_back(static_cast<S>(vd[i]), static_cast<S>(vd[i + 1]), static_cast<S>(vd[i + 2]));
  for (std::size_t i = 0; i + 2 < td.size(); i += 3) m.triangles.push_back({td[i], td[i + 1], td[i + 2]});
  if (const std::string e = impact::build_mesh(m); !e.empty()) return std::fprintf(stderr, "%s\n", e.c_str()), 1;
  const auto n = static_cast<Eigen::Index>(od.size() / 3);
  std::vector<S> o(od.begin(), od.end()), d(dd.begin(), dd.end());
  int threads = 0;
  while (std::scanf("%d", &threads) == 1) {
    // The outputs the Python call returns (status, lambda, point, normal, triangle), new and
    // uninitialised each call as numpy's are: their allocation and first touch (page faults) are
    // inside both times.
    const auto t0 = std::chrono::steady_clock::now();
    const auto un = static_cast<std::size_t>(n);
    const auto status = std::make_unique_for_overwrite<std::uint8_t[]>(un);
    const auto tri = std::make_unique_for_overwrite<std::uint32_t[]>(un);
    const auto lambda = std::make_unique_for_overwrite<S[]>(un);
    const auto point = std::make_unique_for_overwrite<S[]>(3 * un), normal = std::make_unique_for_overwrite<S[]>(3 * un);
    impact::MeshRayRows<S> out{{status.get(), un}, impact::ColumnOut<S>(lambda.get(), n),
                               impact::RowsOut<S, 3>(point.get(), n, 3), impact::RowsOut<S, 3>(normal.get(), n, 3),
                               {tri.get(), un}};
    const std::string e = impact::mesh_ray_cast_batch<S>(m, {o.data(), n, 3}, {d.data(), n, 3}, {}, out, {.threads = threads});
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!e.empty()) return std::fprintf(stderr, "%s\n", e.c_str()), 1;
    std::printf("%.6f %ld\n", s, static_cast<long>(std::count(status.get(), status.get() + un, std::uint8_t(impact::Status::hit))));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return std::fprintf(stderr, "usage: impact_batch_time DIR float|double (thread counts on stdin)\n"), 2;
  const std::string dir = argv[1], precision = argv[2];
  return precision == "float" ? run<float>(dir) : run<double>(dir);
}
