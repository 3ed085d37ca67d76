// impact — parse.hpp: the strict JSON reading shared by the `impact query` handlers.
//
// Every reader reports an error by throwing `Bad` whose message starts with the field's path
// ("pose_b.rotation: ..."); `answer_line` turns it into an `invalid_input` answer.
#pragma once

#include <impact/shapes.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace impact::cli {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

struct Bad {
  std::string message;
};

/// Deepest accepted nesting of `minkowski` shapes (a minkowski whose `a` is a minkowski is 2 deep):
/// a chain of 17 shapes. Parsing, conversion and support mapping recurse once per level.
inline constexpr int kMaxMinkowskiDepth = 16;

std::string join(const std::string& path, std::string_view key);

/// The fields of one JSON object: records which keys the parser asked for, so `finish` can
/// reject the rest (a typo must not silently change a query).
class Fields {
 public:
  Fields(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    if (!j.is_object()) throw Bad{(path_.empty() ? std::string("line") : path_) + ": expected a JSON object"};
  }
  const json* optional(std::string_view key) {
    allowed_.push_back(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const json& required(std::string_view key) {
    const json* p = optional(key);
    if (!p) throw Bad{join(path_, key) + ": missing"};
    return *p;
  }
  [[nodiscard]] std::string at(std::string_view key) const { return join(path_, key); }
  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      bool ok = false;
      for (auto k : allowed_) ok = ok || k == it.key();
      if (!ok) throw Bad{join(path_, it.key()) + ": unknown field"};
    }
  }

 private:
  const json& j_;
  std::string path_;
  std::vector<std::string_view> allowed_;
};

/// A finite number within the protocol's range (|x| <= 1e12). A literal that overflows a double
/// (json_line.hpp's marker) is "not finite".
double number(const json& v, const std::string& path);
/// An integer written as one (no fraction or exponent: `2.0` and `2e0` are refused) in [lo, hi].
std::int64_t integer(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi);
/// A finite number >= 0.
double size(const json& v, const std::string& path);
Vec3<double> vec(const json& v, const std::string& path);
std::string text(const json& v, const std::string& path);
/// A shape; `minkowski_depth` is the number of minkowski shapes that enclose it.
Shape<double> parse_shape(const json& j, const std::string& path, int minkowski_depth = 0);
Pose<double> parse_pose(const json& j, const std::string& path);

struct Motion {
  Pose<double> pose;
  Vec3<double> linear = Vec3<double>::Zero();
  Vec3<double> angular = Vec3<double>::Zero();
};

Motion parse_motion(const json& j, const std::string& path);
Pose<double> pose_or_identity(Fields& f, std::string_view key);

/// A vector as a JSON array. A zero component is written 0.0, never -0.0 (x + 0.0 is +0.0 for
/// either zero and x otherwise): a normal along an axis reads [0.0, 0.0, 1.0] whichever way its
/// rounding went.
void put_vec(ojson& o, const char* key, const auto& v) {
  o[key] = {static_cast<double>(v.x()) + 0.0, static_cast<double>(v.y()) + 0.0, static_cast<double>(v.z()) + 0.0};
}

}  // namespace impact::cli
