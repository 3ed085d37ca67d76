// impact — json_line.hpp: reading one `impact query` line into JSON within stated limits.
//
// Hostile input must cost no more than its size (docs/limits.md): a line is read with a bounded
// buffer, parsed by nlohmann's SAX interface (iterative, no recursion) into a tree built here, so
// a nesting past kMaxJsonDepth or a duplicate key stops the parse at once, before any deep tree
// exists. Numbers the JSON grammar allows but a double cannot hold (1e400) are kept as markers so
// the field that holds them is named; tokens the grammar does not allow (1e999e5) make the line
// invalid JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

namespace impact::cli {

/// Longest accepted line in bytes (32 MiB, without its newline): a closed mesh of about 800,000
/// triangles (400,000 vertices written to 6 decimals, ~40 bytes per triangle in all). The parsed tree takes up to about 22 bytes of memory per
/// byte of line (a line of `[0,0,0]` arrays: 56 MB took 1.3 GB), so the limit bounds a line's
/// memory near 0.7 GB; larger meshes come from OBJ files (define_mesh "obj").
inline constexpr std::size_t kMaxLineBytes = std::size_t{32} << 20;

/// Deepest accepted JSON nesting (objects and arrays counted together; the line's object is 1).
/// Every protocol line needs at most about 25.
inline constexpr int kMaxJsonDepth = 64;

/// The outcome of reading one line from a stream.
enum class LineRead { line, too_long, end };

/// Reads one line (without its '\n') into `line`. A line longer than `max_bytes` is read to its
/// end and dropped (`line` is left empty): memory stays bounded by `max_bytes`.
LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes = kMaxLineBytes);

/// A parsed line: `error` is empty when `value` holds the line's JSON object.
struct ParsedLine {
  nlohmann::json value;
  std::string error;  ///< "line: ..." or "<path>: ..." (depth, duplicate key).
  /// With an error past a limit (nesting, duplicate key) outside the id: the line's id when it was
  /// read whole before the error, so the answer can echo it. Null otherwise (not JSON).
  nlohmann::json id;
};

/// Parses one line within the limits above. Overflowing numbers become markers (`is_overflow`).
ParsedLine parse_line(std::string_view line);

/// True for the marker of a number literal that overflows a double.
inline bool is_overflow(const nlohmann::json& v) { return v.is_discarded(); }

/// True when `v` or anything inside it is such a marker.
bool holds_overflow(const nlohmann::json& v);

}  // namespace impact::cli
