// Prepared batches of examples for batched oracle passes (the native half of src/engine): data that is the
// same every pass (features, ground truth, offsets) is held by pointer, validated once by the binding, and
// each call scores, decodes or rechecks any subset of the examples at a given w on the thread pool. Per-
// example outputs use the batch's own layout (global rows, tokens, examples), so a subset writes only its
// own entries and no call allocates in steady state (thread-local scratch is reused). Plain C++.
#pragma once
#include <cstdint>
#include <vector>

#include "scoring/chain.h"
#include "scoring/chain_decode.h"

namespace gapbcfw {

// The examples a call works on: index[0..count) (indices into the batch), or all when index is null.
struct BatchItems {
  const int32_t* index;
  int64_t count;
  int64_t operator[](int64_t q) const { return index != nullptr ? index[q] : q; }
};

// Linear chains packed end to end: sequence i owns tokens [offsets[i], offsets[i+1]) (offsets: n+1 entries,
// every sequence non-empty), truth holds the ground-truth states of all tokens. The loss is the class-weighted
// Hamming loss (1/T) sum_t c_t [y_t != yhat_t] with c_t = weight[t] (the weight of token t's true state; null:
// 1 everywhere); penalties forbid transitions and first/last states in every decode.
struct ChainLayout {
  int32_t n;
  int32_t K;
  const int32_t* offsets;
  const int32_t* truth;
  const double* weight = nullptr;
  ChainPenalties penalties = {nullptr, nullptr, nullptr};
  double token_weight(int32_t t) const { return weight != nullptr ? weight[t] : 1.0; }
};

// Viterbi of the items over node scores theta (tokens x K, biases and loss included) and transitions
// trans[prev + K*next]; labels into out_y (tokens). Labels equal chain_viterbi's on each sequence.
void chain_viterbi_items(const ChainLayout& c, const double* trans, const double* theta, BatchItems items, int32_t* out_y,
                         int32_t threads);

// Dense chains (the OCR model, w layout of chain.h: K*D unary, K first, K last, K*K transitions).
struct DenseChainBatch {
  ChainLayout chain;
  int32_t D;
  const double* x;     // tokens x D
  const double* unit;  // per token: c_t/T (the weighted normalised-Hamming loss augmentation)

  // theta rows of the items' tokens: <w_k, x_t> (+ 1/T on k != y_t when augmented) + first/last biases,
  // with score_rows' arithmetic (RowScorer), the loss before the biases as in chain_node_scores.
  void scores(const double* w, bool augmented, double* theta, BatchItems items, int32_t threads) const;
  // Adds the first/last biases to theta rows computed elsewhere (a scoring backend).
  void add_biases(const double* w, double* theta, BatchItems items) const;
  // hinge[i] = L(y_i, yhat_i) - <w, psi_i(yhat_i)> with chain_psi and the dot in psi's order: the per-object
  // path's arithmetic (chain_hinge_of_labels), for the items' decoded labels yhat (tokens).
  void hinges(const double* w, const int32_t* yhat, double* hinge, BatchItems items, int32_t threads) const;
};

// Sparse chains (the CoNLL model: feature-major unary weights w[f*K + k], then K first, K last, K*K
// transitions): token t has the features ids[row_offsets[t] .. row_offsets[t+1]) with values (null: 1).
struct SparseChainBatch {
  ChainLayout chain;
  int32_t F;
  const int32_t* row_offsets;  // tokens + 1
  const int32_t* ids;
  const double* values;

  // theta rows of the items' tokens: sum_j v_j w[ids_j*K + k] + first/last biases, then (when augmented)
  // + c_t/T on k != y_t: the order of SparseChainModel.nodeScores and augmentLoss.
  void scores(const double* w, bool augmented, double* theta, BatchItems items, int32_t threads) const;
  // hinge[i] = L - <w, psi_i(yhat_i)> with SparseChainModel.psi's accumulation (first-touch order, exact zeros
  // dropped) and dotSparse's order: bit-identical to the per-object path.
  void hinges(const double* w, const int32_t* yhat, double* hinge, BatchItems items, int32_t threads) const;
  // SparseChainModel.psi of sequence i for the label z of its tokens (the unary differences token by token, then
  // transitions, then first/last biases; first-touch order, exact zeros dropped) into idx/val, which need
  // psi_capacity(i) entries; returns nnz.
  int64_t psi(int64_t i, const int32_t* z, int32_t* idx, double* val) const;
  int64_t psi_capacity(int64_t i) const;
};

// Crammer-Singer multiclass rows (w class-major: class k owns w[k*F .. k*F+F)): row r has the features
// ids[row_offsets[r] .. row_offsets[r+1]) with values.
struct MulticlassBatch {
  int32_t rows, F, K;
  const int32_t* row_offsets;
  const int32_t* ids;
  const double* values;
  const int32_t* truth;
  bool distinct;  // every row lists distinct features (else psi merges repeats: the accumulator path)

  // scores[r*K + k] = <w_k, x_r> (+1 on k != y_r when augmented), summed over the row's features in
  // order with w transposed to feature-major (score_rows' arithmetic on the densified row when the
  // features are distinct and ascending).
  void scores(const double* w, bool augmented, double* scores, BatchItems items, int32_t threads) const;
  // labels[r] = argmax_k scores[r*K + k], ties to the smallest class (as the per-object oracle).
  void argmax(const double* scores, int32_t* labels, BatchItems items) const;
  // hinge[r] = 0 if yhat = y_r, else 1 - <w, psi_r(yhat)> with MulticlassModel.psi's arithmetic.
  void hinges(const double* w, const int32_t* yhat, double* hinge, BatchItems items, int32_t threads) const;
  // MulticlassModel.psi of row r for class z (x in block y_r, -x in block z; repeats merged, exact zeros dropped,
  // first-touch order) into idx/val, which need 2 * (the row's entries) room; returns nnz (0 when z = y_r).
  int64_t psi(int64_t r, int32_t z, int32_t* idx, double* val) const;
  // With dual weights alpha (rows x K, each row on the simplex) and w_r = (e_{y_r} - alpha_r) (x) x_r * scale (the
  // exact steps' blocks): out[r] = <w_r, v> for the items' rows, and w = sum_r w_r (rows in order).
  void dual_dots(const double* alpha, double scale, const double* v, double* out, BatchItems items, int32_t threads) const;
  void dual_sum(const double* alpha, double scale, double* w) const;
};

}  // namespace gapbcfw
