// impact — fuzz target: the JSON Lines reader and line handler of `impact query`
// (apps/impact: run_query_stream, answer_line), fed arbitrary bytes as a stream of lines.
// Invariants: exactly one answer line per input line; every answer a JSON object with an `id`
// and a known `status`; invalid_input answers carry an error; numbers in answers are numbers
// (a non-finite one would print as null); a query that is answered (not invalid_input) echoes
// the id of a line that is plain JSON. Meshes and levels defined by one input persist into the
// next (one process per stream, as in the tool).
#include "protocol.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const char* what, const std::string& line, const std::string& answer) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n  line: %.300s\n  answer: %.300s\n", what, line.c_str(),
               answer.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

bool numbers_are_numbers(const nlohmann::json& a) {
  for (const char* k : {"distance", "toi", "lambda"})
    if (auto it = a.find(k); it != a.end() && !it->is_number()) return false;
  for (const char* k : {"point", "point_a", "point_b", "normal"})
    if (auto it = a.find(k); it != a.end()) {
      if (!it->is_array() || it->size() != 3) return false;
      for (const auto& x : *it)
        if (!x.is_number()) return false;
    }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::istringstream in(input);
  std::ostringstream out;
  const int rc = impact::cli::run_query_stream(in, out);
  if (rc != 0) fail("run_query_stream failed", input, out.str());

  // Split input and output into lines (a last input line without '\n' still counts).
  std::vector<std::string> lines, answers;
  {
    std::size_t from = 0;
    for (std::size_t i = 0; i < input.size(); ++i)
      if (input[i] == '\n') lines.push_back(input.substr(from, i - from)), from = i + 1;
    if (from < input.size()) lines.push_back(input.substr(from));
    const std::string o = out.str();
    if (!o.empty() && o.back() != '\n') fail("output does not end in a newline", input, o);
    from = 0;
    for (std::size_t i = 0; i < o.size(); ++i)
      if (o[i] == '\n') answers.push_back(o.substr(from, i - from)), from = i + 1;
  }
  if (lines.size() != answers.size()) fail("not one answer per line", input, out.str());

  static const std::set<std::string> statuses = {"separated", "intersecting", "hit",     "miss",
                                                 "initially_overlapping", "max_iterations", "ok", "invalid_input"};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::string& text = answers[i];
    const nlohmann::json a = nlohmann::json::parse(text, nullptr, false);
    if (a.is_discarded() || !a.is_object()) fail("answer is not a JSON object", line, text);
    if (!a.contains("id")) fail("answer has no id", line, text);
    auto st = a.find("status");
    if (st == a.end() || !st->is_string() || !statuses.count(st->get<std::string>()))
      fail("answer has no known status", line, text);
    if (*st == "invalid_input") {
      auto e = a.find("error");
      if (e == a.end() || !e->is_string() || e->get<std::string>().empty()) fail("invalid_input without error", line, text);
      continue;
    }
    if (!numbers_are_numbers(a)) fail("answer holds a non-number where a number belongs", line, text);
    // An answered line was a JSON object; a plain id (string, integer, bool, null) is echoed.
    std::string_view l = line;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    const nlohmann::json j = nlohmann::json::parse(l, nullptr, false);
    if (j.is_discarded() || !j.is_object()) fail("a line that is not a JSON object was answered", line, text);
    if (auto id = j.find("id"); id != j.end() && (id->is_string() || id->is_number_integer() || id->is_boolean()))
      if (a["id"] != *id) fail("id not echoed", line, text);
  }
  return 0;
}
