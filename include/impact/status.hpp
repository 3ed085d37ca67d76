// impact — status.hpp: the one status enum every query result carries.
#pragma once

#include <string_view>

namespace impact {

/// Outcome of a query. Each result type documents which of these it can report.
enum class Status {
  separated,              ///< distance: the shapes are apart; distance and witness points valid.
  intersecting,           ///< distance/intersect: the shapes overlap (or touch within tolerance).
  hit,                    ///< casts: a contact was found at the reported parameter.
  miss,                   ///< casts: no contact over the whole motion or ray.
  initially_overlapping,  ///< casts: already in contact (or within the target distance) at t = 0.
  max_iterations,         ///< the iteration cap was reached; the answer is the best bound so far.
  invalid_input,          ///< an input was malformed; `error` names the field.
};

/// Lower-case name of a status, as the protocol spells it.
[[nodiscard]] constexpr std::string_view to_string(Status s) {
  switch (s) {
    case Status::separated: return "separated";
    case Status::intersecting: return "intersecting";
    case Status::hit: return "hit";
    case Status::miss: return "miss";
    case Status::initially_overlapping: return "initially_overlapping";
    case Status::max_iterations: return "max_iterations";
    case Status::invalid_input: return "invalid_input";
  }
  return "invalid_input";
}

}  // namespace impact
