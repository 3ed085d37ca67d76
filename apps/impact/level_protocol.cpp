// impact — level_protocol.cpp: rooms, portals and carving in `impact query` (docs/mesh.md).
#include "level_protocol.hpp"

namespace impact::cli {

bool is_level_query(const std::string&) { return false; }

void answer_level_query(const std::string& q, Fields&, bool, ojson&) { throw Bad{"query: unknown query '" + q + "'"}; }

}  // namespace impact::cli
