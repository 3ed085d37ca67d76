// impact — json_line.cpp: bounded line reading and a limit-checking JSON parse (json_line.hpp).
#include "json_line.hpp"

#include <cmath>
#include <cstdlib>
#include <istream>
#include <utility>
#include <vector>

namespace impact::cli {
namespace {

using json = nlohmann::json;

/// True when `tok` is exactly a JSON number (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?).
bool json_number_grammar(std::string_view tok) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < tok.size() && tok[i] >= '0' && tok[i] <= '9') ++i;
    return i > from;
  };
  if (i < tok.size() && tok[i] == '-') ++i;
  if (i < tok.size() && tok[i] == '0') ++i;
  else if (!digits()) return false;
  if (i < tok.size() && tok[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < tok.size() && (tok[i] == 'e' || tok[i] == 'E')) {
    ++i;
    if (i < tok.size() && (tok[i] == '+' || tok[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == tok.size();
}

/// True when a JSON number token is too large for a double (what nlohmann rejects as 406).
bool overflows(std::string_view tok) {
  // Without an exponent, a number needs more than 308 digits to overflow.
  if (tok.find_first_of("eE") == std::string_view::npos && tok.size() < 300) return false;
  const std::string s(tok);
  return std::isinf(std::strtod(s.c_str(), nullptr));
}

bool number_char(char c) { return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'; }

/// One linear pass outside strings: every number token that is grammatical JSON but overflows a
/// double is replaced by `null`, and the ordinal of that `null` among all the line's `null`
/// tokens is recorded (the parse's null events come in the same order). Ungrammatical tokens
/// (1e999e5, 1e400-5) are left for the parser to reject. Returns false when nothing was replaced.
bool replace_overflows(std::string_view line, std::string& out, std::vector<std::size_t>& ordinals) {
  std::size_t nulls = 0, copied = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      ++i;
    } else if (c == '"') {
      in_string = true;
      ++i;
    } else if (c == 'n' && line.substr(i, 4) == "null") {
      ++nulls;
      i += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t j = i + 1;
      while (j < line.size() && number_char(line[j])) ++j;
      const std::string_view tok = line.substr(i, j - i);
      if (json_number_grammar(tok) && overflows(tok)) {
        out.append(line.substr(copied, i - copied));
        out += "null";
        copied = j;
        ordinals.push_back(nulls++);
      }
      i = j;
    } else {
      ++i;
    }
  }
  if (ordinals.empty()) return false;
  out.append(line.substr(copied));
  return true;
}

/// A path component for messages: keys are cut at 40 bytes (on a UTF-8 boundary).
std::string short_key(const std::string& k) {
  constexpr std::size_t kKeyBytes = 40;
  if (k.size() <= kKeyBytes) return k;
  std::size_t n = kKeyBytes;
  while (n > 0 && (static_cast<unsigned char>(k[n]) & 0xC0) == 0x80) --n;
  return k.substr(0, n) + "...";
}

/// Builds the tree from nlohmann's SAX events (the parser itself is iterative), refusing a
/// nesting deeper than kMaxJsonDepth and a key already present in its object before either
/// is stored. Pointers into parents stay valid: a parent only grows after its child closes.
class TreeBuilder {
 public:
  explicit TreeBuilder(const std::vector<std::size_t>& overflow_nulls) : overflow_nulls_(overflow_nulls) {}

  bool null() {
    const bool overflow = next_overflow_ < overflow_nulls_.size() && overflow_nulls_[next_overflow_] == nulls_;
    if (overflow) ++next_overflow_;
    ++nulls_;
    return put(overflow ? json(json::value_t::discarded) : json(nullptr)) != nullptr;
  }
  bool boolean(bool b) { return put(json(b)) != nullptr; }
  bool number_integer(json::number_integer_t v) { return put(json(v)) != nullptr; }
  bool number_unsigned(json::number_unsigned_t v) { return put(json(v)) != nullptr; }
  bool number_float(json::number_float_t v, const std::string& /*lexeme*/) { return put(json(v)) != nullptr; }
  bool string(std::string& s) { return put(json(std::move(s))) != nullptr; }
  bool binary(json::binary_t& /*unused*/) { return fail("line: binary values are not JSON"); }
  bool start_object(std::size_t /*unknown size*/) { return open(json::value_t::object); }
  bool start_array(std::size_t /*unknown size*/) { return open(json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    json& object = *stack_.back();
    if (object.contains(k)) return limit(join(path(false), short_key(k)) + ": duplicate key");
    keys_.back() = short_key(k);
    slot_ = &object[std::move(k)];
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*token*/, const nlohmann::detail::exception& /*e*/) {
    return fail("line: not valid JSON (at byte " + std::to_string(position) + ")");
  }

  json root;
  std::string error;
  bool past_limit = false;  // the error is a limit (depth, duplicate key), not bad syntax

 private:
  bool fail(std::string message) {
    if (error.empty()) error = std::move(message);
    return false;
  }
  bool limit(std::string message) {
    past_limit = error.empty();
    return fail(std::move(message));
  }
  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  /// The path of the value being added (`inner`: of the innermost open container instead).
  std::string path(bool inner) const {
    std::string p;
    const std::size_t n = stack_.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (!inner && i + 1 == n) break;
      const json& c = *stack_[i];
      // The child being built at level i is its container's last element, or the next one.
      const std::size_t index = c.size() - (i + 1 < n ? 1 : 0);
      p = join(p, c.is_array() ? std::to_string(index) : keys_[i]);
    }
    return p;
  }
  json* put(json&& v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    *slot_ = std::move(v);
    return slot_;
  }
  bool open(json::value_t type) {
    if (static_cast<int>(stack_.size()) >= kMaxJsonDepth) {
      // Under a line that is not an object the path would be all indices: name the line.
      const std::string at = root.is_object() ? path(true) : std::string();
      return limit((at.empty() ? std::string("line") : at) + ": nested deeper than " + std::to_string(kMaxJsonDepth) +
                  " levels (the JSON nesting limit)");
    }
    json* v = put(json(type));
    stack_.push_back(v);
    keys_.emplace_back();
    return true;
  }
  bool close() {
    stack_.pop_back();
    keys_.pop_back();
    return true;
  }

  const std::vector<std::size_t>& overflow_nulls_;
  std::size_t next_overflow_ = 0, nulls_ = 0;
  std::vector<json*> stack_;
  std::vector<std::string> keys_;  // the current key of each open object (short form)
  json* slot_ = nullptr;
};

}  // namespace

LineRead read_line(std::istream& in, std::string& line, std::size_t max_bytes) {
  line.clear();
  std::streambuf* sb = in.rdbuf();
  if (!sb) return LineRead::end;
  bool any = false, too_long = false;
  for (;;) {
    const int c = sb->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      if (!any) return LineRead::end;
      break;
    }
    any = true;
    if (c == '\n') break;
    if (too_long) continue;
    if (line.size() >= max_bytes) {
      too_long = true;
      std::string().swap(line);
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  return too_long ? LineRead::too_long : LineRead::line;
}

ParsedLine parse_line(std::string_view line) {
  ParsedLine out;
  if (line.size() > kMaxLineBytes) {
    out.error = "line: longer than " + std::to_string(kMaxLineBytes) + " bytes (the line limit)";
    return out;
  }
  std::string replaced;
  std::vector<std::size_t> ordinals;
  const std::string_view text = replace_overflows(line, replaced, ordinals) ? std::string_view(replaced) : line;
  TreeBuilder b(ordinals);
  const bool ok = json::sax_parse(text.begin(), text.end(), &b);
  if (!ok || !b.error.empty()) {
    out.error = b.error.empty() ? std::string("line: not valid JSON") : std::move(b.error);
    const bool in_id = out.error.rfind("id:", 0) == 0 || out.error.rfind("id.", 0) == 0;
    if (b.past_limit && !in_id && b.root.is_object())
      if (auto it = b.root.find("id"); it != b.root.end() && !holds_overflow(*it)) out.id = std::move(*it);
    return out;
  }
  if (!b.root.is_object()) {
    out.error = "line: expected a JSON object";
    return out;
  }
  out.value = std::move(b.root);
  return out;
}

bool holds_overflow(const nlohmann::json& v) {
  if (is_overflow(v)) return true;
  if (v.is_array() || v.is_object())
    for (const auto& x : v)
      if (holds_overflow(x)) return true;
  return false;
}

}  // namespace impact::cli
