// The built-in models of the native step loop over their prepared batches (scoring/batch.h), with the arithmetic of
// their per-object paths: ChainModel (dense features: native chain kernels), SparseChainModel and MulticlassModel
// (their TypeScript sums, in the same order). The batches' arrays must outlive the models.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "solver/block_model.h"

namespace gapbcfw {

// What both chain models share: labels are the states of a sequence's tokens, the loss is the normalised Hamming
// distance, w ends with K first, K last and K x K transitions (prev + K*next); potentials are node scores with the
// biases (the plain theta of ChainStructure.scoreLabels) and the loss-augmented theta of the oracle.
class ChainBlocks : public BlockModel {
 public:
  explicit ChainBlocks(const ChainLayout& chain, int64_t dim) : chain_(chain), dim_(dim) {}
  int32_t n() const override { return chain_.n; }
  int32_t states() const override { return chain_.K; }
  int64_t dim() const override { return dim_; }
  int32_t label_length(int32_t i) const override { return chain_.offsets[i + 1] - chain_.offsets[i]; }
  int32_t max_label_length() const override;
  const int32_t* truth(int32_t i) const override { return chain_.truth + chain_.offsets[i]; }
  double loss(int32_t i, const int32_t* y) const override;
  double score(const int32_t* y) const override;
  int64_t label_offset(int32_t i) const override { return chain_.offsets[i]; }
  int64_t label_total() const override { return chain_.offsets[chain_.n]; }
  void prepare_labels(int32_t i, const double* w, const int32_t* labels, int32_t count) override;
  void complete() override;

 protected:
  // The plain node scores (with the biases) of the entries t*K + k listed in entries_, into plain_ (prepare_labels).
  virtual void score_entries(const double* w) = 0;
  // plain_[t K + k] += the first/last biases where t is 0 / T - 1 (prepare's order: first, then last).
  void add_biases(const double* first, const double* last, int64_t e);
  // Block i at w becomes the current one; the node-score buffers hold its T x K values. Returns T K.
  size_t begin_block(int32_t i, const double* w);
  // Path score of y over the plain theta: theta[y_0] + sum_t (theta[t, y_t] + trans[y_{t-1}, y_t]).
  double path_score(const int32_t* y) const;
  // Viterbi of the current block over aug_ (the oracle).
  void viterbi(const double* w, int32_t* y);
  const double* transitions(const double* w) const { return w + dim_ - static_cast<int64_t>(chain_.K) * chain_.K; }
  ChainLayout chain_;
  int64_t dim_;
  int32_t i_ = -1, T_ = 0;
  const double* w_ = nullptr;
  double truth_score_ = 0.0;
  bool partial_ = false;  // plain_ holds only the entries of entries_ (prepare_labels), unary_/aug_ nothing yet
  std::vector<double> plain_, aug_, work_;
  std::vector<int32_t> entries_;
  std::vector<uint8_t> marked_;
};

// OCR-type chains: x is tokens x D dense; unary weights state-major (k*D + j).
class DenseChainBlocks final : public ChainBlocks {
 public:
  explicit DenseChainBlocks(const DenseChainBatch& batch);
  int64_t psi_capacity(int32_t i) const override;
  int64_t psi(int32_t i, const int32_t* y, int32_t* idx, double* val) const override;
  void prepare(int32_t i, const double* w) override;
  void oracle(const double* w, int32_t* y) override;
  void decode(const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) override;
  void prefetch(int32_t i) const override;

 private:
  void score_entries(const double* w) override;
  DenseChainBatch batch_;
  std::vector<double> unary_, theta_;
};

// CoNLL-type chains: sparse token features, unary weights feature-major (f*K + k).
class SparseChainBlocks final : public ChainBlocks {
 public:
  explicit SparseChainBlocks(const SparseChainBatch& batch);
  int64_t psi_capacity(int32_t i) const override { return batch_.psi_capacity(i); }
  int64_t psi(int32_t i, const int32_t* y, int32_t* idx, double* val) const override { return batch_.psi(i, y, idx, val); }
  void prepare(int32_t i, const double* w) override;
  void oracle(const double* w, int32_t* y) override;
  void decode(const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) override;

 private:
  void score_entries(const double* w) override;
  SparseChainBatch batch_;
  std::vector<double> theta_;
};

// Crammer-Singer rows: a label is one class; the potentials are the K class scores <w_k, x_i> (MulticlassModel's
// classScore: the row's features in order).
class MulticlassBlocks final : public BlockModel {
 public:
  explicit MulticlassBlocks(const MulticlassBatch& batch) : batch_(batch), scores_(static_cast<size_t>(batch.K)) {}
  int32_t n() const override { return batch_.rows; }
  int32_t states() const override { return batch_.K; }
  int64_t dim() const override { return static_cast<int64_t>(batch_.F) * batch_.K; }
  int32_t label_length(int32_t) const override { return 1; }
  int32_t max_label_length() const override { return 1; }
  const int32_t* truth(int32_t i) const override { return batch_.truth + i; }
  double loss(int32_t i, const int32_t* y) const override { return *y == batch_.truth[i] ? 0.0 : 1.0; }
  int64_t psi_capacity(int32_t i) const override { return 2 * static_cast<int64_t>(batch_.row_offsets[i + 1] - batch_.row_offsets[i]); }
  int64_t psi(int32_t i, const int32_t* y, int32_t* idx, double* val) const override { return batch_.psi(i, *y, idx, val); }
  void prepare(int32_t i, const double* w) override;
  double score(const int32_t* y) const override;
  void oracle(const double* w, int32_t* y) override;
  void decode(const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) override;
  int64_t label_offset(int32_t i) const override { return i; }
  int64_t label_total() const override { return batch_.rows; }

  const MulticlassBatch& batch() const { return batch_; }

  // Exact steps (StepLoop::exact_step) keep w feature-major between begin_run and end_run (the K weights of a feature
  // contiguous, as LIBLINEAR does), with the per-object path's sums: class_scores(i) = prepare's scores, and
  // add_row(i, change) adds change[k] x_i to class k's weights.
  void begin_run(const double* w);
  void end_run(double* w) const;
  const double* class_scores(int32_t i);
  void add_row(int32_t i, const double* change);

 private:
  MulticlassBatch batch_;
  std::vector<double> scores_;
  std::vector<double> wt_;  // feature-major w during a run of exact steps, `stride_` entries per feature
  std::vector<double> change_;
  int32_t stride_ = 0;
  std::vector<double> batch_scores_;
  int32_t i_ = -1;
};

}  // namespace gapbcfw
