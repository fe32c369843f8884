// Per-block store of labels with their dual weights, the native twin of src/cache/atoms.ts (2016 paper, Sec. 3.3 and
// App. B): the active set alpha_i(y) > 0 of pairwise/away steps and, with caching, inactive labels kept for the cache
// oracle. Labels are int32 arrays of the block's label length; removing an atom moves the last one into its place (the
// TypeScript order, so both engines index atoms alike). Plain C++.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace gapbcfw {

class BlockAtoms {
 public:
  explicit BlockAtoms(int32_t length) : len_(length) {}

  int32_t size() const { return static_cast<int32_t>(alpha.size()); }
  int32_t length() const { return len_; }
  const int32_t* label(int32_t k) const { return labels_.data() + static_cast<size_t>(k) * len_; }
  const int32_t* labels() const { return labels_.data(); }  // size() labels back to back

  int32_t find(const int32_t* y) const {
    for (int32_t k = 0; k < size(); ++k)
      if (std::memcmp(label(k), y, sizeof(int32_t) * static_cast<size_t>(len_)) == 0) return k;
    return -1;
  }

  int32_t add(const int32_t* y, double loss_of_y, double weight) {
    labels_.insert(labels_.end(), y, y + len_);
    loss.push_back(loss_of_y);
    alpha.push_back(weight);
    return size() - 1;
  }

  // Removes atom k: the last atom takes its place.
  void remove(int32_t k) {
    const int32_t last = size() - 1;
    if (k != last) {
      std::copy(label(last), label(last) + len_, labels_.begin() + static_cast<std::ptrdiff_t>(k) * len_);
      loss[static_cast<size_t>(k)] = loss[static_cast<size_t>(last)];
      alpha[static_cast<size_t>(k)] = alpha[static_cast<size_t>(last)];
    }
    labels_.resize(labels_.size() - static_cast<size_t>(len_));
    loss.pop_back();
    alpha.pop_back();
  }

  void clear() {
    labels_.clear();
    loss.clear();
    alpha.clear();
  }

  // Dual weights (sum to 1 unless exact is false) and unscaled losses L_i(y).
  std::vector<double> alpha;
  std::vector<double> loss;
  // False once an active atom was evicted (FW-only caching): w_i stays authoritative, alpha is approximate.
  bool exact = true;

 private:
  int32_t len_;
  std::vector<int32_t> labels_;
};

}  // namespace gapbcfw
