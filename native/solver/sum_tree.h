// The native twin of src/sampling/sumtree.ts over the same array: a complete binary tree of non-negative weights
// whose inner nodes hold the sums of their children (leaves at [size, 2 size)), with the same arithmetic, so
// that gap sampling (2016 paper, Alg. 2) draws the same blocks in both engines.
#pragma once
#include <cstdint>

namespace gapbcfw {

class SumTreeView {
 public:
  // nodes: 2 * size entries, size the leaf count rounded up to a power of two.
  SumTreeView(double* nodes, int64_t size) : t_(nodes), size_(size) {}

  double get(int64_t i) const { return t_[size_ + i]; }
  double total() const { return t_[1]; }

  // Weight i (finite, >= 0: the caller checks) and the sums on its path to the root.
  void set(int64_t i, double weight) {
    int64_t k = size_ + i;
    t_[k] = weight;
    for (k >>= 1; k >= 1; k >>= 1) t_[k] = t_[2 * k] + t_[2 * k + 1];
  }

  // The leaf whose cumulative interval holds u * total, u in [0, 1); -1 when the total is 0. Descends towards a
  // child of positive weight, so rounding never returns a leaf of weight 0.
  int64_t sample(double u) const {
    if (!(t_[1] > 0)) return -1;
    double target = u * t_[1];
    int64_t k = 1;
    while (k < size_) {
      const double left = t_[2 * k];
      if ((target < left && left > 0) || !(t_[2 * k + 1] > 0)) {
        k = 2 * k;
      } else {
        target -= left;
        k = 2 * k + 1;
      }
    }
    return k - size_;
  }

 private:
  double* t_;
  int64_t size_;
};

}  // namespace gapbcfw
