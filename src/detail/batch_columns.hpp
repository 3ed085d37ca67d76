#pragma once
// impact — detail/batch_columns.hpp: writing one row of a batch's output columns (batch.hpp), each
// only where the caller asked for it (an array of N rows rather than none). batch.cpp writes its
// answers through these, and so does the mesh ray batch that writes in place (mesh_impl.hpp).
#include <impact/batch.hpp>

#include <cstddef>
#include <cstdint>
#include <span>

namespace impact::detail {

inline void put_status(std::span<std::uint8_t> out, Eigen::Index i, Status s) {
  if (!out.empty()) out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(s);
}
inline void put_index(std::span<std::uint32_t> out, Eigen::Index i, std::uint32_t v) {
  if (!out.empty()) out[static_cast<std::size_t>(i)] = v;
}
template <class S>
void put(ColumnOut<S>& out, Eigen::Index i, S v) {
  if (out.rows() != 0) out(i) = v;
}
template <class S>
void put(RowsOut<S, 3>& out, Eigen::Index i, const Vec3<S>& v) {
  if (out.rows() != 0) out.row(i) = v.transpose();
}

}  // namespace impact::detail
