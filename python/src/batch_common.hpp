// impact — python/src/batch_common.hpp: how the batch bindings read numpy inputs and allocate
// numpy outputs (batches.cpp, batch_meshes.cpp).
//
// - The precision of a call is the dtype of its numpy array inputs: all float32 (float) or all
//   float64 (double); mixed or other dtypes raise TypeError. Inputs that are not numpy arrays
//   (lists, tuples, numbers) take the call's dtype (float64 when no input is an array).
// - An input of the call's dtype that is C-contiguous is read in place, without a copy; any other
//   (non-contiguous, a list) is copied once into a contiguous array.
// - A per-query input has shape (N, K), or (K,) or (1, K) for one row that every query shares
//   (a radius: (N,), (1,) or a number). N is the largest row count; any other count raises
//   ValueError naming the array. None is the documented default row (identity, zero velocity).
// - Outputs are new arrays of N rows, returned in a dict keyed by the C++ field names.
#pragma once

#include "common.hpp"

#include <algorithm>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace impact::python {

/// True when the call runs in float: the dtype of its numpy inputs (None and non-arrays ignored).
bool batch_is_float(std::initializer_list<std::pair<const char*, py::handle>> inputs);

/// Threads and grain of a batch; ValueError when threads < 0 or grain < 1.
BatchOptions batch_options(int threads, int grain);

/// The inputs of one batch call in scalar S: keeps every array alive and checks row counts.
template <class S>
class BatchInputs {
 public:
  /// An (N, K) input, or its default row when `value` is None.
  template <int K>
  Rows<S, K> rows(const char* name, const py::object& value, const std::array<S, K>& default_row) {
    if (value.is_none()) {
      py::array_t<S> a(K);
      for (int k = 0; k < K; ++k) a.mutable_data()[k] = default_row[static_cast<std::size_t>(k)];
      return keep<K>(name, a, 1);
    }
    auto a = contiguous(name, value);
    const bool one_row = a.ndim() == 1 && a.shape(0) == K;
    if (!one_row && !(a.ndim() == 2 && a.shape(1) == K))
      throw py::value_error(std::string(name) + ": expected shape (N, " + std::to_string(K) + ") or (" +
                            std::to_string(K) + ",), got " + shape_text(a));
    return keep<K>(name, a, one_row ? 1 : a.shape(0));
  }

  /// An (N,) input (or one number).
  Column<S> column(const char* name, const py::object& value) {
    auto a = contiguous(name, value);
    if (a.ndim() > 1) throw py::value_error(std::string(name) + ": expected shape (N,) or a number, got " + shape_text(a));
    const py::ssize_t n = a.ndim() == 0 ? 1 : a.shape(0);
    note(name, n);
    arrays_.push_back(a);
    return Column<S>(a.data(), n);
  }

  /// N: the largest row count (0 when some input has 0 rows and none more than 1). Raises
  /// ValueError for an input of neither N rows nor 1.
  py::ssize_t count() const {
    py::ssize_t n = 1;
    bool empty = false;
    for (const auto& [name, r] : counts_) {
      n = std::max(n, r);
      empty = empty || r == 0;
    }
    if (n == 1 && empty) n = 0;
    for (const auto& [name, r] : counts_)
      if (r != n && r != 1)
        throw py::value_error(name + ": " + std::to_string(r) + " rows, but other inputs have " + std::to_string(n) +
                              " (each input has N rows or 1)");
    return n;
  }

 private:
  py::array_t<S, py::array::c_style | py::array::forcecast> contiguous(const char* name, const py::object& value) {
    auto a = py::array_t<S, py::array::c_style | py::array::forcecast>::ensure(value);
    if (!a) {
      PyErr_Clear();
      throw py::type_error(std::string(name) + ": expected an array of numbers");
    }
    return a;
  }
  template <int K>
  Rows<S, K> keep(const char* name, const py::array& a, py::ssize_t rows) {
    note(name, rows);
    arrays_.push_back(a);
    return Rows<S, K>(static_cast<const S*>(a.data()), rows, K);
  }
  void note(const char* name, py::ssize_t rows) { counts_.emplace_back(name, rows); }
  static std::string shape_text(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
    return s + (a.ndim() == 1 ? ",)" : ")");
  }

  std::vector<py::array> arrays_;
  std::vector<std::pair<std::string, py::ssize_t>> counts_;
};

/// New outputs of N rows, collected into the answer dict as they are made.
class BatchOutputs {
 public:
  explicit BatchOutputs(py::ssize_t n) : n_(n) {}
  std::span<std::uint8_t> status() {
    py::array_t<std::uint8_t> a(n_);
    out_["status"] = a;
    return {a.mutable_data(), static_cast<std::size_t>(n_)};
  }
  std::span<std::uint32_t> index(const char* name) {
    py::array_t<std::uint32_t> a(n_);
    out_[name] = a;
    return {a.mutable_data(), static_cast<std::size_t>(n_)};
  }
  template <class S>
  ColumnOut<S> column(const char* name) {
    py::array_t<S> a(n_);
    out_[name] = a;
    return ColumnOut<S>(a.mutable_data(), n_);
  }
  template <class S>
  RowsOut<S, 3> rows(const char* name) {
    py::array_t<S> a({n_, py::ssize_t{3}});
    out_[name] = a;
    return RowsOut<S, 3>(a.mutable_data(), n_, 3);
  }
  [[nodiscard]] py::dict dict() const { return out_; }

 private:
  py::ssize_t n_;
  py::dict out_;
};

/// Runs a batch call without the GIL (nothing when N = 0); its error message (arrays that cannot mean anything) raises ValueError.
template <class F>
void run_unlocked(py::ssize_t n, F&& call) {
  if (n == 0) return;
  std::string error;
  {
    const py::gil_scoped_release unlocked;
    error = call();
  }
  if (!error.empty()) throw py::value_error(error);
}

}  // namespace impact::python
