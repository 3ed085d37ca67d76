// impact — parse.hpp: the strict JSON reading shared by the `impact query` handlers.
//
// Every reader reports an error by throwing `Bad` whose message starts with the field's path
// ("pose_b.rotation: ..."); `answer_line` turns it into an `invalid_input` answer.
#pragma once

#include <impact/shapes.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace impact::cli {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

struct Bad {
  std::string message;
};

/// Stands in for a number literal too large for a double (1e400): nlohmann rejects the whole
/// line for it, which would lose the id. The parser turns it into "not finite" for its field.
inline constexpr std::string_view kOverflow = "\x01overflow";

std::string join(const std::string& path, std::string_view key);

/// Replaces number literals that overflow a double by the kOverflow string, outside strings.
std::string neutralize_overflow(const std::string& line);

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

/// A finite number within the protocol's range (|x| <= 1e12).
double number(const json& v, const std::string& path);
/// A finite number >= 0.
double size(const json& v, const std::string& path);
Vec3<double> vec(const json& v, const std::string& path);
std::string text(const json& v, const std::string& path);
Shape<double> parse_shape(const json& j, const std::string& path);
Pose<double> parse_pose(const json& j, const std::string& path);

struct Motion {
  Pose<double> pose;
  Vec3<double> linear = Vec3<double>::Zero();
  Vec3<double> angular = Vec3<double>::Zero();
};

Motion parse_motion(const json& j, const std::string& path);
Pose<double> pose_or_identity(Fields& f, std::string_view key);

void put_vec(ojson& o, const char* key, const auto& v) {
  o[key] = {static_cast<double>(v.x()), static_cast<double>(v.y()), static_cast<double>(v.z())};
}

}  // namespace impact::cli
