// impact — mesh_obj.cpp: Wavefront OBJ input for triangle meshes, parsed by tinyobjloader (Debian
// libtinyobjloader-dev, double variant) behind a bounded read and a strict pre-scan.
//
// A path handed to `impact query` may name anything, so before tinyobjloader sees a byte this file
// makes sure it is an OBJ mesh (docs/limits.md): a regular file of at most kObjMaxFileBytes, read
// here with a bounded buffer (tinyobjloader would read a file whole whatever its size, and wait on
// a FIFO). tinyobjloader accepts anything silently (unknown lines are skipped, `2.0` is index 2,
// `zero` is the coordinate 0, a file of no faces is an empty mesh), so a linear pre-scan checks the
// statements it would let through: every keyword one OBJ knows, the three coordinates of `v`
// finite numbers, the corners of `f` integer indices in range, at least one face. Messages give
// line numbers, never the file's text (a path may name a file the caller should not read).
// tinyobjloader then parses the text from memory, through its callback interface (vertices and
// faces straight into our arrays; no material file is opened).
//
// The scan splits lines and tokens exactly as tinyobjloader does (a line ends at '\n', "\r\n" or
// '\r'; tokens are separated by ' ' and '\t'), so what it checked is what tinyobjloader reads.
// Comments (from '#' to the end of the line) are blanked in our copy, since tinyobjloader only
// knows whole-line comments and would read `f 1 2 3 # x` as a corner 0.
#include <impact/mesh.hpp>

#include <tiny_obj_loader.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cstdint>
#include <cmath>
#include <istream>
#include <streambuf>
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

// ---- The pre-scan ------------------------------------------------------------------------------

/// tinyobjloader's separators within a line (its IS_SPACE).
bool blank(char c) { return c == ' ' || c == '\t'; }

/// Calls `f(begin, end, number)` on each line of `text` as tinyobjloader's safeGetline splits them
/// ('\n', "\r\n" or '\r' ends a line), until `f` returns false.
template <class F>
void for_each_line(std::string& text, F&& f) {
  char* p = text.data();
  char* const end = p + text.size();
  for (std::size_t number = 1; p < end; ++number) {
    char* e = p;
    while (e < end && *e != '\n' && *e != '\r') ++e;
    if (!f(p, e, number)) return;
    p = e + (e < end && *e == '\r' && e + 1 < end && e[1] == '\n' ? 2 : 1);
  }
}

/// The next blank-separated token of `line` from `i` on (empty at the end of the line).
std::string_view next_token(std::string_view line, std::size_t& i) {
  while (i < line.size() && blank(line[i])) ++i;
  const std::size_t from = i;
  while (i < line.size() && !blank(line[i])) ++i;
  return line.substr(from, i - from);
}

/// The OBJ statements a mesh may contain besides `v` and `f`: tinyobjloader reads or skips them,
/// and so do we.
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

/// A whole integer token.
bool parse_int(std::string_view t, long long& x) {
  if (!t.empty() && t[0] == '+') t.remove_prefix(1);
  const auto r = std::from_chars(t.data(), t.data() + t.size(), x);
  return !t.empty() && r.ec == std::errc() && r.ptr == t.data() + t.size();
}

/// A face corner "v", "v/t", "v//n" or "v/t/n" (non-zero integers; negative counts back from the
/// last vertex read so far). Returns the 1-based vertex index, 0 when malformed, -1 when it
/// counts back past the first vertex or is beyond what an int (tinyobjloader's index) holds.
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
  for (std::size_t j = 1; j < k; ++j) {
    if (j == 1 && k == 3 && part[1].empty()) continue;
    if (!parse_int(part[j], other) || other == 0 || other > INT_MAX || other < -INT_MAX) return 0;
  }
  if (v > INT_MAX || v < -INT_MAX) return -1;
  if (v < 0) v += static_cast<long long>(vertices_so_far) + 1;
  return v >= 1 ? v : -1;
}

/// What the scan learnt of a file that passed it.
struct ObjScan {
  std::size_t vertices = 0, triangles = 0;
  long long max_corner = 0;  // the largest 1-based vertex index a face uses, and its line
  std::size_t max_corner_line = 0;
};

/// Checks the `v` statement whose coordinates start at `i` of `line`.
std::string check_vertex(std::string_view line, std::size_t i, const std::string& at) {
  std::string_view tok[7];
  std::size_t n = 0;
  for (std::string_view t = next_token(line, i); !t.empty(); t = next_token(line, i))
    if (++n <= 7) tok[n - 1] = t;
  if (n != 3 && n != 4 && n != 6) return at + "a vertex needs x y z (optionally w, or r g b)";
  double c = 0;
  for (int k = 0; k < 3; ++k)
    if (!parse_number(tok[k], c)) return at + "vertex coordinate " + std::to_string(k + 1) + " is not a finite number";
  return {};
}

/// Checks the `f` statement whose corners start at `i` of `line`.
std::string check_face(std::string_view line, std::size_t i, std::size_t number, const std::string& at, ObjScan& s) {
  std::size_t corners = 0;
  for (std::string_view t = next_token(line, i); !t.empty(); t = next_token(line, i)) {
    const long long v = corner(t, s.vertices);
    ++corners;
    if (v == 0) return at + "face corner " + std::to_string(corners) + " is not an integer index (v, v/t, v//n or v/t/n)";
    if (v < 0) return at + "face vertex index out of range";
    if (v > s.max_corner) s.max_corner = v, s.max_corner_line = number;
  }
  if (corners < 3) return at + "a face needs at least 3 corners";
  s.triangles += corners - 2;
  return {};
}

/// Checks one line (its comment already blanked). Returns an error or "".
std::string check_statement(std::string_view line, std::size_t number, ObjScan& s) {
  std::size_t i = 0;
  const std::string_view keyword = next_token(line, i);
  if (keyword.empty()) return {};
  const std::string at = "line " + std::to_string(number) + ": ";
  if (keyword == "v") {
    ++s.vertices;
    return check_vertex(line, i, at);
  }
  if (keyword == "f") return check_face(line, i, number, at, s);
  if (skipped_statement(keyword)) return {};
  return at + "not an OBJ statement";
}

/// The pre-scan: blanks comments in `text` and checks every statement, then the face indices
/// against the vertex count and that there is a face. Returns an error (naming `path`) or "".
std::string prescan(const std::string& path, std::string& text, ObjScan& s) {
  std::string error;
  for_each_line(text, [&](char* b, char* e, std::size_t number) {
    for (char* c = b; c < e; ++c)
      if (*c == '#') {
        std::fill(c, e, ' ');
        break;
      }
    error = check_statement(std::string_view(b, static_cast<std::size_t>(e - b)), number, s);
    return error.empty();
  });
  if (!error.empty()) return path + ":" + error;
  if (static_cast<std::uintmax_t>(s.max_corner) > s.vertices)
    return path + ":line " + std::to_string(s.max_corner_line) + ": face vertex index out of range (" +
           std::to_string(s.max_corner) + " > " + std::to_string(s.vertices) + " vertices)";
  if (s.triangles == 0) return path + ": no faces (an OBJ mesh needs at least one 'f' statement)";
  return {};
}

/// The line of the `k`-th (0-based) `v` statement, for an error found after parsing.
std::size_t line_of_vertex(std::string& text, std::size_t k) {
  std::size_t found = 0;
  for_each_line(text, [&](char* b, char* e, std::size_t number) {
    std::size_t i = 0;
    if (next_token(std::string_view(b, static_cast<std::size_t>(e - b)), i) == "v" && k-- == 0) found = number;
    return found == 0;
  });
  return found;
}

// ---- tinyobjloader -----------------------------------------------------------------------------

/// An input stream over our copy of the file, without copying it again.
struct TextBuf : std::streambuf {
  explicit TextBuf(std::string& s) { setg(s.data(), s.data(), s.data() + s.size()); }
};

/// Where tinyobjloader's callbacks put the mesh.
struct ObjSink {
  std::vector<Vec3<double>>& vertices;
  std::vector<std::array<std::uint32_t, 3>>& triangles;
  std::size_t nonfinite_vertex = SIZE_MAX;  // the first vertex tinyobjloader read as inf or nan
  bool bad_corner = false;                  // a corner the scan did not check (never expected)
};

void on_vertex(void* user, tinyobj::real_t x, tinyobj::real_t y, tinyobj::real_t z, tinyobj::real_t /*w*/) {
  auto& s = *static_cast<ObjSink*>(user);
  if (!(std::isfinite(x) && std::isfinite(y) && std::isfinite(z)) && s.nonfinite_vertex == SIZE_MAX)
    s.nonfinite_vertex = s.vertices.size();
  s.vertices.emplace_back(x, y, z);
}

/// One `f` statement, corners as written (1-based, negative counting back): fanned from its first.
void on_face(void* user, tinyobj::index_t* corners, int n) {
  auto& s = *static_cast<ObjSink*>(user);
  if (n < 3) s.bad_corner = true;
  std::uint32_t first = 0, previous = 0;
  for (int j = 0; j < n; ++j) {
    long long v = corners[j].vertex_index;
    if (v < 0) v += static_cast<long long>(s.vertices.size()) + 1;
    if (v < 1) {
      s.bad_corner = true;
      return;
    }
    const auto index = static_cast<std::uint32_t>(v - 1);
    if (j == 0) first = index;
    if (j >= 2) s.triangles.push_back({first, previous, index});
    previous = index;
  }
}

}  // namespace

std::string load_obj(const std::string& path, std::vector<Vec3<double>>& vertices,
                     std::vector<std::array<std::uint32_t, 3>>& triangles) {
  vertices.clear();
  triangles.clear();
  std::string text;
  if (auto e = read_bounded(path, text); !e.empty()) return e;
  ObjScan scan;
  if (auto e = prescan(path, text, scan); !e.empty()) return e;
  vertices.reserve(scan.vertices);
  triangles.reserve(scan.triangles);
  ObjSink sink{vertices, triangles};
  tinyobj::callback_t callbacks;
  callbacks.vertex_cb = on_vertex;
  callbacks.index_cb = on_face;
  TextBuf buf(text);
  std::istream in(&buf);
  std::string err;  // warnings (which may quote the file) are not collected
  const bool ok = tinyobj::LoadObjWithCallback(in, callbacks, &sink, /*readMatFn=*/nullptr, nullptr, &err);
  std::string error;
  if (!ok || sink.bad_corner || vertices.size() != scan.vertices || triangles.size() != scan.triangles)
    error = path + ": tinyobjloader did not read the file as the scan did";  // never its text
  else if (sink.nonfinite_vertex != SIZE_MAX)
    error = path + ":line " + std::to_string(line_of_vertex(text, sink.nonfinite_vertex)) +
            ": vertex is not finite as tinyobjloader reads it";
  if (!error.empty()) {
    vertices.clear();
    triangles.clear();
  }
  return error;
}

}  // namespace impact
