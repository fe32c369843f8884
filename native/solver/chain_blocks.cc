#include <algorithm>

#include "scoring/chain.h"
#include "scoring/rows.h"
#include "solver/models.h"

namespace gapbcfw {

namespace {

// The batched pass's collect (src/engine): a label whose hinge rechecks below 0 is replaced by the ground truth.
void collect_chains(const ChainLayout& c, BatchItems items, int32_t* labels, double* hinge) {
  for (int64_t q = 0; q < items.count; ++q) {
    const int64_t i = items[q];
    if (!(hinge[i] < 0)) continue;
    hinge[i] = 0.0;
    std::copy(c.truth + c.offsets[i], c.truth + c.offsets[i + 1], labels + c.offsets[i]);
  }
}

// decode() of either chain batch: the items' node scores into theta, Viterbi, their hinges, then collect.
template <class Batch>
void decode_chains(const Batch& batch, const ChainLayout& c, int64_t label_total, const double* transitions, std::vector<double>& theta,
                   const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) {
  const size_t size = static_cast<size_t>(label_total) * c.K;
  if (theta.size() < size) theta.resize(size);
  batch.scores(w, true, theta.data(), items, threads);
  chain_viterbi_items(c, transitions, theta.data(), items, labels, threads);
  batch.hinges(w, labels, hinge, items, threads);
  collect_chains(c, items, labels, hinge);
}

}  // namespace

size_t ChainBlocks::begin_block(int32_t i, const double* w) {
  i_ = i;
  w_ = w;
  T_ = label_length(i);
  partial_ = false;
  const size_t TK = static_cast<size_t>(T_) * chain_.K;
  if (plain_.size() < TK) {
    plain_.resize(TK);
    aug_.resize(TK);
  }
  return TK;
}

// The entries (t, k) that the ground truth and the labels use, in order of t, then their plain node scores.
void ChainBlocks::prepare_labels(int32_t i, const double* w, const int32_t* labels, int32_t count) {
  const int32_t K = chain_.K;
  const size_t TK = begin_block(i, w);
  if (marked_.size() < TK) marked_.resize(TK);
  entries_.clear();
  for (int32_t t = 0; t < T_; ++t) {
    const auto mark = [&](int32_t k) {
      const int32_t e = t * K + k;
      if (marked_[static_cast<size_t>(e)] == 0) {
        marked_[static_cast<size_t>(e)] = 1;
        entries_.push_back(e);
      }
    };
    mark(truth(i)[t]);
    for (int32_t c = 0; c < count; ++c) mark(labels[static_cast<size_t>(c) * T_ + t]);
  }
  for (const int32_t e : entries_) marked_[static_cast<size_t>(e)] = 0;
  score_entries(w);
  truth_score_ = path_score(truth(i));
  partial_ = true;
}

void ChainBlocks::complete() {
  if (partial_) prepare(i_, w_);
}

void ChainBlocks::add_biases(const double* first, const double* last, int64_t e) {
  const int32_t K = chain_.K;
  const int64_t t = e / K, k = e % K;
  if (t == 0) plain_[static_cast<size_t>(e)] += first[k];
  if (t == T_ - 1) plain_[static_cast<size_t>(e)] += last[k];
}

int32_t ChainBlocks::max_label_length() const {
  int32_t m = 0;
  for (int32_t i = 0; i < chain_.n; ++i) m = std::max(m, label_length(i));
  return m;
}

double ChainBlocks::loss(int32_t i, const int32_t* y) const {
  const int32_t T = label_length(i);
  const int32_t* truth = chain_.truth + chain_.offsets[i];
  int32_t m = 0;
  for (int32_t t = 0; t < T; ++t) m += y[t] != truth[t] ? 1 : 0;
  return static_cast<double>(m) / T;
}

double ChainBlocks::path_score(const int32_t* y) const {
  const int32_t K = chain_.K;
  const double* tr = transitions(w_);
  double s = plain_[static_cast<size_t>(y[0])];
  for (int32_t t = 1; t < T_; ++t) s += plain_[static_cast<size_t>(t) * K + y[t]] + tr[y[t - 1] + static_cast<int64_t>(K) * y[t]];
  return s;
}

double ChainBlocks::score(const int32_t* y) const { return loss(i_, y) + path_score(y) - truth_score_; }

void ChainBlocks::viterbi(const double* w, int32_t* y) { chain_viterbi(transitions(w), chain_.K, aug_.data(), T_, y, work_); }

// ---- dense chains ------------------------------------------------------------------------------------------

DenseChainBlocks::DenseChainBlocks(const DenseChainBatch& batch)
    : ChainBlocks(batch.chain, static_cast<int64_t>(batch.chain.K) * batch.D + 2 * batch.chain.K + static_cast<int64_t>(batch.chain.K) * batch.chain.K),
      batch_(batch) {}

int64_t DenseChainBlocks::psi_capacity(int32_t i) const { return chain_psi_capacity({batch_.D, chain_.K}, label_length(i)); }

int64_t DenseChainBlocks::psi(int32_t i, const int32_t* y, int32_t* idx, double* val) const {
  const int32_t t0 = chain_.offsets[i];
  return chain_psi({batch_.D, chain_.K}, batch_.x + static_cast<size_t>(t0) * batch_.D, label_length(i), chain_.truth + t0, y, idx, val);
}

void DenseChainBlocks::prefetch(int32_t i) const {
  const char* p = reinterpret_cast<const char*>(batch_.x + static_cast<size_t>(chain_.offsets[i]) * batch_.D);
  const int64_t bytes = static_cast<int64_t>(label_length(i)) * batch_.D * static_cast<int64_t>(sizeof(double));
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 0, 3);
}

// The unary scores once; theta = unary + biases (chainNodeScores' order, the plain node scores of labelScores).
void DenseChainBlocks::prepare(int32_t i, const double* w) {
  const int32_t K = chain_.K, D = batch_.D;
  const size_t TK = begin_block(i, w);
  if (unary_.size() < TK) unary_.resize(TK);
  chain_unary_scores(w, {D, K}, batch_.x + static_cast<size_t>(chain_.offsets[i]) * D, T_, unary_.data());
  const double* first = w + static_cast<int64_t>(K) * D;
  const double* last = first + K;
  std::copy(unary_.begin(), unary_.begin() + static_cast<std::ptrdiff_t>(TK), plain_.begin());
  for (int32_t k = 0; k < K; ++k) plain_[static_cast<size_t>(k)] += first[k];
  for (int32_t k = 0; k < K; ++k) plain_[static_cast<size_t>(T_ - 1) * K + k] += last[k];
  truth_score_ = path_score(truth(i));
}

void DenseChainBlocks::score_entries(const double* w) {
  const int32_t K = chain_.K, D = batch_.D;
  const size_t count = entries_.size();
  if (unary_.size() < count) unary_.resize(count);  // scratch: unary_ is recomputed whole by complete()
  chain_unary_entries(w, {D, K}, batch_.x + static_cast<size_t>(chain_.offsets[i_]) * D, entries_.data(), static_cast<int64_t>(count), unary_.data());
  const double* first = w + static_cast<int64_t>(K) * D;
  for (size_t q = 0; q < count; ++q) {
    plain_[static_cast<size_t>(entries_[q])] = unary_[q];
    add_biases(first, first + K, entries_[q]);
  }
}

// chain_decode's theta: unary, + 1/T on the wrong states, + first/last biases (in that order), then Viterbi.
void DenseChainBlocks::oracle(const double* w, int32_t* y) {
  const int32_t K = chain_.K, D = batch_.D;
  const double unit = 1.0 / T_;
  const int32_t* yt = truth(i_);
  for (int32_t t = 0; t < T_; ++t) {
    const double* u = unary_.data() + static_cast<size_t>(t) * K;
    double* a = aug_.data() + static_cast<size_t>(t) * K;
    for (int32_t k = 0; k < K; ++k) a[k] = k != yt[t] ? u[k] + unit : u[k];
  }
  const double* first = w + static_cast<int64_t>(K) * D;
  for (int32_t k = 0; k < K; ++k) aug_[static_cast<size_t>(k)] += first[k];
  for (int32_t k = 0; k < K; ++k) aug_[static_cast<size_t>(T_ - 1) * K + k] += first[K + k];
  viterbi(w, y);
}

void DenseChainBlocks::decode(const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) {
  decode_chains(batch_, chain_, label_total(), transitions(w), theta_, w, items, labels, hinge, threads);
}

// ---- sparse chains -----------------------------------------------------------------------------------------

SparseChainBlocks::SparseChainBlocks(const SparseChainBatch& batch)
    : ChainBlocks(batch.chain, static_cast<int64_t>(batch.F) * batch.chain.K + 2 * batch.chain.K + static_cast<int64_t>(batch.chain.K) * batch.chain.K),
      batch_(batch) {}

// SparseChainModel.nodeScores: the features' weights summed token by token, then the first/last biases.
void SparseChainBlocks::prepare(int32_t i, const double* w) {
  const int32_t K = chain_.K;
  begin_block(i, w);
  const int32_t t0 = chain_.offsets[i];
  for (int32_t t = 0; t < T_; ++t) {
    score_sparse_row(batch_.row_offsets[t0 + t], batch_.row_offsets[t0 + t + 1], batch_.ids, batch_.values, w, K, plain_.data() + static_cast<size_t>(t) * K);
  }
  const double* first = w + static_cast<int64_t>(batch_.F) * K;
  for (int32_t k = 0; k < K; ++k) {
    plain_[static_cast<size_t>(k)] += first[k];
    plain_[static_cast<size_t>(T_ - 1) * K + k] += first[K + k];
  }
  truth_score_ = path_score(truth(i));
}

// score_sparse_row's sums (per state: the token's features in order) at the listed entries only.
void SparseChainBlocks::score_entries(const double* w) {
  const int32_t K = chain_.K;
  const int32_t t0 = chain_.offsets[i_];
  for (const int32_t e : entries_) {
    const int32_t t = e / K, k = e % K;
    double s = 0.0;
    for (int32_t j = batch_.row_offsets[t0 + t]; j < batch_.row_offsets[t0 + t + 1]; ++j) {
      const double v = batch_.values != nullptr ? batch_.values[j] : 1.0;
      s += v * w[static_cast<size_t>(batch_.ids[j]) * K + k];
    }
    plain_[static_cast<size_t>(e)] = s;
  }
  const double* first = w + static_cast<int64_t>(batch_.F) * K;
  for (const int32_t e : entries_) add_biases(first, first + K, e);
}

// lossAugmentedDecode: the node scores, + 1/T on the wrong states (augmentLoss), then Viterbi.
void SparseChainBlocks::oracle(const double* w, int32_t* y) {
  const int32_t K = chain_.K;
  const double unit = 1.0 / T_;
  const int32_t* yt = truth(i_);
  const size_t TK = static_cast<size_t>(T_) * K;
  std::copy(plain_.begin(), plain_.begin() + static_cast<std::ptrdiff_t>(TK), aug_.begin());
  for (int32_t t = 0; t < T_; ++t)
    for (int32_t k = 0; k < K; ++k)
      if (k != yt[t]) aug_[static_cast<size_t>(t) * K + k] += unit;
  viterbi(w, y);
}

void SparseChainBlocks::decode(const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) {
  decode_chains(batch_, chain_, label_total(), transitions(w), theta_, w, items, labels, hinge, threads);
}

}  // namespace gapbcfw
