// A dense accumulator that lists its coordinates at first touch: the native twin of SparseAccumulator
// in src/core/vector.ts (same order, so the same sums as the per-object path's psi).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gapbcfw {

// The buffers, kept per thread across calls (all zero between uses).
struct TouchStorage {
  std::vector<double> sum;
  std::vector<uint8_t> seen;
  std::vector<int32_t> order;
};

// The accumulator itself: a local object over a TouchStorage (plain pointers and a count, which the
// compiler keeps in registers in the hot loops).
class TouchAccumulator {
 public:
  // Uses `storage` for coordinates [0, dim), growing it as needed.
  TouchAccumulator(TouchStorage& storage, size_t dim) {
    if (storage.sum.size() < dim) {
      storage.sum.assign(dim, 0.0);
      storage.seen.assign(dim, 0);
      storage.order.resize(dim);
    }
    sum_ = storage.sum.data();
    seen_ = storage.seen.data();
    order_ = storage.order.data();
  }

  void add(int64_t j, double v) {
    if (!seen_[j]) {
      seen_[j] = 1;
      order_[count_++] = static_cast<int32_t>(j);
    }
    sum_[j] += v;
  }

  // Calls visit(j, value) for every touched coordinate in first-touch order, exact zeros dropped, and
  // leaves the storage zeroed for the next use.
  template <class Visit>
  void drain(Visit&& visit) {
    for (int64_t k = 0; k < count_; ++k) {
      const int32_t j = order_[k];
      const double v = sum_[j];
      sum_[j] = 0.0;
      seen_[j] = 0;
      if (v != 0.0) visit(j, v);
    }
    count_ = 0;
  }

 private:
  double* sum_;
  uint8_t* seen_;
  int32_t* order_;
  int64_t count_ = 0;
};

}  // namespace gapbcfw
