// impact — protocol.hpp: the JSON Lines protocol of `impact query` (docs/protocol.md).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace impact::cli {

/// Answers one protocol line (without its newline) with one JSON object (without newline).
/// Never throws: every failure becomes an `invalid_input` answer naming the field. The input
/// limits of docs/limits.md (line length, JSON nesting, minkowski nesting) are checked first.
std::string answer_line(std::string_view line);

/// Reads lines from `in` until end of input and writes one answer line per input line to `out`,
/// flushing after each; a line past the length limit is skipped to its newline (never held
/// whole) and answered invalid_input. Returns 0, or 1 if reading or writing failed.
int run_query_stream(std::istream& in, std::ostream& out);

}  // namespace impact::cli
