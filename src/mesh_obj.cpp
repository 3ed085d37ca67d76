// impact — mesh_obj.cpp: Wavefront OBJ input for triangle meshes, by a strict reader of its own.
//
// A path handed to `impact query` may name anything, so the reader accepts only what an OBJ mesh
// is (docs/mesh.md): a regular file of at most kObjMaxFileBytes, read with a bounded buffer; every
// statement one OBJ knows (`v` and `f` are used, the others — texture coordinates, normals,
// groups, materials, curves — skipped); numbers that parse whole; face corners that are integers
// (`2.0` is not an index); and at least one face. A file that is not OBJ (/etc/passwd, a
// directory, /dev/zero) is an error, never an empty mesh. Messages give line numbers, never the
// file's text (a path may name a file the caller should not read). (tinyobjloader, used before,
// accepts unknown lines, reads `2.0` as 2 and reads a file whole whatever its size.)
#include <impact/mesh.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>

namespace impact {
namespace {

/// Reads `path` into `text` if it is a regular file of at most kObjMaxFileBytes (checked on the
/// open descriptor, and again while reading: a file may grow, and /proc files report size 0).
std::string read_bounded(const std::string& path, std::string& text) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused as not regular).
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return "cannot open " + path;
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return "cannot stat " + path;
  if (!S_ISREG(st.st_mode)) return path + ": not a regular file";
  const auto too_big = [&] {
    return path + ": larger than " + std::to_string(kObjMaxFileBytes) + " bytes (the OBJ file limit)";
  };
  if (static_cast<std::uintmax_t>(st.st_size) > kObjMaxFileBytes) return too_big();
  text.clear();
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) return "cannot read " + path;
    if (text.size() + static_cast<std::size_t>(n) > kObjMaxFileBytes) return too_big();
    text.append(buf, static_cast<std::size_t>(n));
  }
  return {};
}

bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Splits a line (comment removed) into whitespace-separated tokens, at most `cap` (the rest is
/// reported by returning cap + 1).
std::size_t tokens(std::string_view line, std::string_view* out, std::size_t cap) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < line.size();) {
    while (i < line.size() && space(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !space(line[j])) ++j;
    if (n == cap) return cap + 1;
    out[n++] = line.substr(i, j - i);
    i = j;
  }
  return n;
}

/// The OBJ statements a mesh may contain besides `v` and `f`: skipped.
bool skipped_statement(std::string_view s) {
  static constexpr std::string_view kKnown[] = {
      "vt",  "vn",   "vp",       "o",        "g",          "s",          "mtllib", "usemtl", "l",     "p",
      "mg",  "lod",  "usemap",   "maplib",   "bevel",      "c_interp",   "d_interp", "shadow_obj", "trace_obj",
      "ctech", "stech", "cstype", "deg",     "bmat",       "step",       "curv",   "curv2",  "surf",  "parm",
      "trim", "hole", "scrv",    "sp",       "end",        "con"};
  for (const auto k : kKnown)
    if (s == k) return true;
  return false;
}

bool parse_number(std::string_view t, double& x) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), x);
  return r.ec == std::errc() && r.ptr == t.data() + t.size() && std::isfinite(x);
}

bool parse_int(std::string_view t, long long& x) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), x);
  return !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size();
}

/// A face corner "v", "v/t", "v//n" or "v/t/n" (non-zero integers; negative counts back from the
/// last vertex read so far). Returns the 1-based vertex index, or 0 when malformed.
long long corner(std::string_view t, std::size_t vertices_so_far) {
  std::array<std::string_view, 3> part{};
  std::size_t k = 0, from = 0;
  for (std::size_t i = 0; i <= t.size(); ++i) {
    if (i < t.size() && t[i] != '/') continue;
    if (k == 3) return 0;
    part[k++] = t.substr(from, i - from);
    from = i + 1;
  }
  long long v = 0, other = 0;
  if (!parse_int(part[0], v) || v == 0) return 0;
  for (std::size_t j = 1; j < k; ++j)
    if (!(j == 1 && k == 3 && part[1].empty()) && (!parse_int(part[j], other) || other == 0)) return 0;
  if (v < 0) v += static_cast<long long>(vertices_so_far) + 1;
  return v >= 1 ? v : -1;
}

/// Parses one statement (comment removed) at line `number`. Returns an error or "".
std::string statement(std::string_view line, std::size_t number, std::vector<Vec3<double>>& vertices,
                      std::vector<std::array<std::uint32_t, 3>>& triangles, long long& max_corner,
                      std::size_t& max_corner_line) {
  constexpr std::size_t kCap = 64;  // tokens kept per line; a longer face is fanned in pieces below
  std::string_view tok[kCap];
  const std::string at = "line " + std::to_string(number) + ": ";
  std::size_t n = tokens(line, tok, kCap);
  if (n == 0) return {};
  if (tok[0] == "v") {
    if (n != 4 && n != 5 && n != 7) return at + "a vertex needs x y z (optionally w, or r g b)";
    double c[3];
    for (int k = 0; k < 3; ++k)
      if (!parse_number(tok[k + 1], c[k])) return at + "vertex coordinate " + std::to_string(k + 1) + " is not a finite number";
    vertices.emplace_back(c[0], c[1], c[2]);
    return {};
  }
  if (tok[0] == "f") {
    // A polygon of any size, fanned from its first corner: read it in one pass over the line.
    std::vector<std::uint32_t> face;
    std::size_t i = line.find('f') + 1;
    while (i < line.size()) {
      while (i < line.size() && space(line[i])) ++i;
      std::size_t j = i;
      while (j < line.size() && !space(line[j])) ++j;
      if (j == i) break;
      const std::string_view t = line.substr(i, j - i);
      const long long v = corner(t, vertices.size());
      if (v == 0) return at + "face corner " + std::to_string(face.size() + 1) + " is not an integer index (v, v/t, v//n or v/t/n)";
      if (v < 0 || v > 4294967295LL) return at + "face vertex index out of range";
      if (v > max_corner) max_corner = v, max_corner_line = number;
      face.push_back(static_cast<std::uint32_t>(v - 1));
      i = j;
    }
    if (face.size() < 3) return at + "a face needs at least 3 corners";
    for (std::size_t j = 1; j + 1 < face.size(); ++j) triangles.push_back({face[0], face[j], face[j + 1]});
    return {};
  }
  if (skipped_statement(tok[0])) return {};
  return at + "not an OBJ statement";
}

}  // namespace

std::string load_obj(const std::string& path, std::vector<Vec3<double>>& vertices,
                     std::vector<std::array<std::uint32_t, 3>>& triangles) {
  vertices.clear();
  triangles.clear();
  std::string text;
  if (auto e = read_bounded(path, text); !e.empty()) return e;
  long long max_corner = 0;
  std::size_t max_corner_line = 0, number = 0;
  const std::string_view all(text);
  for (std::size_t from = 0; from < all.size();) {
    std::size_t to = all.find('\n', from);
    if (to == std::string_view::npos) to = all.size();
    std::string_view line = all.substr(from, to - from);
    from = to + 1;
    ++number;
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    if (auto e = statement(line, number, vertices, triangles, max_corner, max_corner_line); !e.empty()) {
      vertices.clear();
      triangles.clear();
      return path + ":" + e;
    }
  }
  if (static_cast<std::uintmax_t>(max_corner) > vertices.size()) {
    const std::string e = path + ":line " + std::to_string(max_corner_line) + ": face vertex index out of range (" +
                          std::to_string(max_corner) + " > " + std::to_string(vertices.size()) + " vertices)";
    vertices.clear();
    triangles.clear();
    return e;
  }
  if (triangles.empty()) return path + ": no faces (an OBJ mesh needs at least one 'f' statement)";
  return {};
}

}  // namespace impact
