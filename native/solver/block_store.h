// Storage of the per-block primal vectors w_i of the native step loop, the twins of src/solvers/blocks.ts with the
// same arithmetic: dense n x d rows (the TypeScript engine's own array, kernels of block_update.h) or sparse blocks
// that keep the coordinates each block touched (huge sparse feature maps: CoNLL's d = 1.6M). Plain C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gapbcfw {

// A sparse vector with distinct indices.
struct SparseRef {
  const int32_t* idx;
  const double* val;
  int64_t nnz;
};

class BlockStore {
 public:
  virtual ~BlockStore() = default;
  // <w_i, w> and ||w_i||^2 (the dense sums of block_stats; over the stored entries for sparse blocks).
  virtual void sums(int32_t i, const double* w, double& dw, double& sq) = 0;
  // <w_i, psi>.
  virtual double dot_sparse(int32_t i, SparseRef psi) = 0;
  // w_i <- (1 - gamma) w_i + gamma * scale * psi, w by the same difference; w_avg <- (1 - rho) w_avg + rho w if given.
  virtual void update(int32_t i, double* w, double* w_avg, SparseRef psi, double gamma, double scale, double rho) = 0;
  // w_i += scale * v and w += scale * v.
  virtual void add_sparse(int32_t i, double* w, SparseRef v, double scale) = 0;
  // w_i <- values (dense, d entries) and w by the difference.
  virtual void replace(int32_t i, double* w, const double* values) = 0;
  // <w_i, v> for a dense v.
  virtual double dot(int32_t i, const double* v) const = 0;
  // Hint that block i is next (dense rows: its cache lines are requested early).
  virtual void prefetch(int32_t) const {}
};

// Dense rows in an array of the caller's (the TypeScript engine's DenseBlocks). `chunked`: block_stats' chunked
// dense sums on up to `threads` threads (mini-batch runs), as DenseBlocks does.
class DenseBlockStore final : public BlockStore {
 public:
  DenseBlockStore(double* data, int64_t d, bool chunked, int32_t threads) : data_(data), d_(d), chunked_(chunked), threads_(threads) {}
  void sums(int32_t i, const double* w, double& dw, double& sq) override;
  double dot_sparse(int32_t i, SparseRef psi) override;
  void update(int32_t i, double* w, double* w_avg, SparseRef psi, double gamma, double scale, double rho) override;
  void add_sparse(int32_t i, double* w, SparseRef v, double scale) override;
  void replace(int32_t i, double* w, const double* values) override;
  double dot(int32_t i, const double* v) const override;
  void prefetch(int32_t i) const override;

 private:
  double* row(int32_t i) const { return data_ + static_cast<int64_t>(i) * d_; }
  double* data_;
  int64_t d_;
  bool chunked_;
  int32_t threads_;
};

// Sparse blocks: block i keeps (index, value) of the coordinates it touched, in the order first touched
// (SparseBlocks' arithmetic). No averaging.
class SparseBlockStore final : public BlockStore {
 public:
  SparseBlockStore(int32_t n, int64_t d) : idx_(n), val_(n), slot_(d, 0), d_(d) {}
  void sums(int32_t i, const double* w, double& dw, double& sq) override;
  double dot_sparse(int32_t i, SparseRef psi) override;
  void update(int32_t i, double* w, double* w_avg, SparseRef psi, double gamma, double scale, double rho) override;
  void add_sparse(int32_t i, double* w, SparseRef v, double scale) override;
  void replace(int32_t i, double* w, const double* values) override;
  double dot(int32_t i, const double* v) const override;

  int32_t n() const { return static_cast<int32_t>(idx_.size()); }
  int64_t stored() const;
  const std::vector<int32_t>& indices(int32_t i) const { return idx_[static_cast<size_t>(i)]; }
  const std::vector<double>& values(int32_t i) const { return val_[static_cast<size_t>(i)]; }
  // Block i's entries (a checkpoint's), replacing what it held; indices must be distinct and in [0, d).
  void load(int32_t i, const int32_t* idx, const double* val, int64_t nnz);
  // w = sum_i w_i (SparseBlocks.sumInto's order); every w_i scaled by s.
  void sum_into(double* w) const;
  void scale_all(double s);

 private:
  void mark(int32_t i);
  void unmark(int32_t i);
  std::vector<std::vector<int32_t>> idx_;
  std::vector<std::vector<double>> val_;
  std::vector<int32_t> slot_;  // 1 + position of each coordinate of the marked block (0: absent)
  int64_t d_;
};

}  // namespace gapbcfw
