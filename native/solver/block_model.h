// What the native step loop needs of a built-in model (the native twin of Problem for its block steps): labels as
// int32 arrays (a chain's states, a class), the loss, psi, the max-oracle and the scores of stored labels, each with
// the arithmetic of the model's per-object path in src/models (so that both engines take the same decisions), and
// the batched decode of a mini-batch with the batched pass's arithmetic (src/engine). Plain C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "scoring/batch.h"

namespace gapbcfw {

class BlockModel {
 public:
  virtual ~BlockModel() = default;
  virtual int32_t n() const = 0;
  virtual int64_t dim() const = 0;
  // Labels are arrays of states 0..states()-1 (a chain's K, the classes).
  virtual int32_t states() const = 0;
  // Ints per label of block i (T_i for a chain, 1 for a class), and the most over all blocks.
  virtual int32_t label_length(int32_t i) const = 0;
  virtual int32_t max_label_length() const = 0;
  virtual const int32_t* truth(int32_t i) const = 0;
  virtual double loss(int32_t i, const int32_t* y) const = 0;
  // psi_i(y) = phi(x_i, y_i) - phi(x_i, y) with the per-object path's entries in its order; idx/val need
  // psi_capacity(i) entries. Returns nnz.
  virtual int64_t psi_capacity(int32_t i) const = 0;
  virtual int64_t psi(int32_t i, const int32_t* y, int32_t* idx, double* val) const = 0;
  // The potentials of block i at w (node scores, class scores) that score() and oracle() read until the next call.
  virtual void prepare(int32_t i, const double* w) = 0;
  // prepare() for score() of the ground truth and of `count` labels only (stored back to back, label_length(i) ints
  // each): a chain scores just the states they use. complete() then computes the rest before an oracle call. The
  // potentials computed have the bits prepare() gives them.
  virtual void prepare_labels(int32_t i, const double* w, const int32_t*, int32_t) { prepare(i, w); }
  virtual void complete() {}
  // s_i(y) = L_i(y) - <w, psi_i(y)> from the potentials (Problem.labelScores: the loss plus the label's score minus
  // the ground truth's).
  virtual double score(const int32_t* y) const = 0;
  // argmax_y L_i(y) - <w, psi_i(y)> from the potentials (Problem.oracle).
  virtual void oracle(const double* w, int32_t* y) = 0;
  // The loss-augmented decode of the items at w with the batched pass's arithmetic, on up to `threads` threads:
  // labels[tokens of item q's block] (the batch's label layout: label_offset) and hinge[block] = H_i(w) >= 0 (a label
  // that rechecks below 0 is replaced by the ground truth, hinge 0).
  virtual void decode(const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) = 0;
  // Where block i's label starts in decode's label layout.
  virtual int64_t label_offset(int32_t i) const = 0;
  virtual int64_t label_total() const = 0;
  // Hint that block i is next: its input's cache lines are requested early (dense chains: T x D features).
  virtual void prefetch(int32_t) const {}
};

}  // namespace gapbcfw
