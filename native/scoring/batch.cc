#include "scoring/batch.h"

#include <algorithm>
#include <vector>

#include "common/parallel.h"
#include "scoring/accumulator.h"
#include "scoring/rows.h"
#include "scoring/simd.h"

namespace gapbcfw {

namespace {

// Items handed out in blocks of about `tokens_per_task` tokens' worth (sequences are short: OCR words have
// ~8 letters), on the threads that `work` multiply-adds justify.
template <class Body>
void for_items(BatchItems items, int64_t work, int32_t threads, Body body) {
  const int32_t useful = useful_threads(work, threads, 16);
  parallel_for_blocked(items.count, 16, useful, [&](int64_t q) { body(items[q]); });
}

int64_t item_tokens(const ChainLayout& c, BatchItems items) {
  if (items.index == nullptr) return c.offsets[c.n];
  int64_t t = 0;
  for (int64_t q = 0; q < items.count; ++q) t += c.offsets[items.index[q] + 1] - c.offsets[items.index[q]];
  return t;
}

// theta[first row] += w_first, theta[last row] += w_last (first, then last: one row when T = 1).
GAPBCFW_INLINE void add_sequence_biases(const double* first, const double* last, int32_t K, double* theta, int32_t t0, int32_t t1) {
  double* a = theta + static_cast<size_t>(t0) * K;
  double* b = theta + static_cast<size_t>(t1 - 1) * K;
  for (int32_t k = 0; k < K; ++k) {
    a[k] += first[k];
    b[k] += last[k];
  }
}

}  // namespace

void chain_viterbi_items(const ChainLayout& c, const double* trans, const double* theta, BatchItems items, int32_t* out_y,
                         int32_t threads) {
  const int64_t work = item_tokens(c, items) * c.K * c.K;
  std::vector<double> penalised;
  if (c.penalties.transitions != nullptr) {
    penalised.resize(static_cast<size_t>(c.K) * c.K);
    chain_penalise_transitions(c.penalties, trans, c.K, penalised.data());
    trans = penalised.data();
  }
  const bool ends = c.penalties.first != nullptr || c.penalties.last != nullptr;
  for_items(items, work, threads, [&](int64_t i) {
    thread_local std::vector<double> scratch, rows;
    const int32_t t0 = c.offsets[i], T = c.offsets[i + 1] - c.offsets[i];
    const double* th = theta + static_cast<size_t>(t0) * c.K;
    if (ends) {
      rows.assign(th, th + static_cast<size_t>(T) * c.K);
      chain_penalise_ends(c.penalties, c.K, T, rows.data());
      th = rows.data();
    }
    chain_viterbi(trans, c.K, th, T, out_y + t0, scratch);
  });
}

void DenseChainBatch::scores(const double* w, bool augmented, double* theta, BatchItems items, int32_t threads) const {
  const int32_t K = chain.K;
  const RowScorer scorer(w, D, K);
  const double* first = w + static_cast<size_t>(K) * D;
  const double* last = first + K;
  const int64_t work = item_tokens(chain, items) * D * K;
  for_items(items, work, threads, [&](int64_t i) {
    const int32_t t0 = chain.offsets[i], t1 = chain.offsets[i + 1];
    scorer.rows(x, t0, t1, augmented ? chain.truth : nullptr, augmented ? unit : nullptr, theta);
    add_sequence_biases(first, last, K, theta, t0, t1);
  });
}

void DenseChainBatch::add_biases(const double* w, double* theta, BatchItems items) const {
  const double* first = w + static_cast<size_t>(chain.K) * D;
  for (int64_t q = 0; q < items.count; ++q) {
    const int64_t i = items[q];
    add_sequence_biases(first, first + chain.K, chain.K, theta, chain.offsets[i], chain.offsets[i + 1]);
  }
}

void DenseChainBatch::hinges(const double* w, const int32_t* yhat, double* hinge, BatchItems items, int32_t threads) const {
  const ChainShape shape{D, chain.K};
  const int64_t work = item_tokens(chain, items) * D * 4;
  for_items(items, work, threads, [&](int64_t i) {
    thread_local std::vector<int32_t> idx;
    thread_local std::vector<double> val;
    const int32_t t0 = chain.offsets[i], T = chain.offsets[i + 1] - t0;
    const int32_t* y = chain.truth + t0;
    const int32_t* z = yhat + t0;
    // L(y, z) - <w, psi(z)> with psi from chain_psi and the dot product summed in psi's order: the same
    // operations as the per-object path (loss - dotSparse(w, psi)), so the two give bit-identical H.
    const auto cap = static_cast<size_t>(chain_psi_capacity(shape, T));
    if (idx.size() < cap) {
      idx.resize(cap);
      val.resize(cap);
    }
    const int64_t nnz = chain_psi(shape, x + static_cast<size_t>(t0) * D, T, y, z, idx.data(), val.data());
    double dot = 0.0;
    for (int64_t k = 0; k < nnz; ++k) dot += w[idx[k]] * val[k];
    double loss = 0.0;
    for (int32_t t = 0; t < T; ++t)
      if (z[t] != y[t]) loss += chain.token_weight(t0 + t);
    hinge[i] = loss / T - dot;
  });
}

void SparseChainBatch::scores(const double* w, bool augmented, double* theta, BatchItems items, int32_t threads) const {
  const int32_t K = chain.K;
  const double* first = w + static_cast<size_t>(F) * K;
  const double* last = first + K;
  int64_t nnz = 0;
  if (items.index == nullptr) nnz = row_offsets[chain.offsets[chain.n]];
  else
    for (int64_t q = 0; q < items.count; ++q) nnz += row_offsets[chain.offsets[items.index[q] + 1]] - row_offsets[chain.offsets[items.index[q]]];
  for_items(items, nnz * K, threads, [&](int64_t i) {
    const int32_t t0 = chain.offsets[i], t1 = chain.offsets[i + 1];
    for (int32_t t = t0; t < t1; ++t) score_sparse_row(row_offsets[t], row_offsets[t + 1], ids, values, w, K, theta + static_cast<size_t>(t) * K);
    add_sequence_biases(first, last, K, theta, t0, t1);
    if (!augmented) return;
    for (int32_t t = t0; t < t1; ++t) {
      const double unit = chain.token_weight(t) / (t1 - t0);
      double* th = theta + static_cast<size_t>(t) * K;
      for (int32_t k = 0; k < K; ++k)
        if (k != chain.truth[t]) th[k] += unit;
    }
  });
}

int64_t SparseChainBatch::psi_capacity(int64_t i) const {
  const int32_t t0 = chain.offsets[i], t1 = chain.offsets[i + 1];
  return 2 * static_cast<int64_t>(row_offsets[t1] - row_offsets[t0]) + 2 * static_cast<int64_t>(t1 - t0) + 4;
}

int64_t SparseChainBatch::psi(int64_t i, const int32_t* z, int32_t* idx, double* val) const {
  const int32_t K = chain.K;
  const int64_t first = static_cast<int64_t>(F) * K, last = first + K, trans = first + 2 * K;
  thread_local TouchStorage storage;
  TouchAccumulator acc(storage, static_cast<size_t>(trans + static_cast<int64_t>(K) * K));
  const int32_t t0 = chain.offsets[i], T = chain.offsets[i + 1] - t0;
  const int32_t* y = chain.truth + t0;
  for (int32_t t = 0; t < T; ++t) {
    const int32_t a = y[t], b = z[t];
    if (a == b) continue;
    for (int32_t j = row_offsets[t0 + t]; j < row_offsets[t0 + t + 1]; ++j) {
      const int64_t o = static_cast<int64_t>(ids[j]) * K;
      const double v = values != nullptr ? values[j] : 1.0;
      acc.add(o + a, v);
      acc.add(o + b, -v);
    }
  }
  for (int32_t t = 1; t < T; ++t) {
    acc.add(trans + y[t - 1] + static_cast<int64_t>(K) * y[t], 1.0);
    acc.add(trans + z[t - 1] + static_cast<int64_t>(K) * z[t], -1.0);
  }
  acc.add(first + y[0], 1.0);
  acc.add(first + z[0], -1.0);
  acc.add(last + y[T - 1], 1.0);
  acc.add(last + z[T - 1], -1.0);
  int64_t nnz = 0;
  acc.drain([&](int32_t j, double v) {
    idx[nnz] = j;
    val[nnz++] = v;
  });
  return nnz;
}

void SparseChainBatch::hinges(const double* w, const int32_t* yhat, double* hinge, BatchItems items, int32_t threads) const {
  for_items(items, item_tokens(chain, items) * 64, threads, [&](int64_t i) {
    thread_local std::vector<int32_t> idx;
    thread_local std::vector<double> val;
    const auto cap = static_cast<size_t>(psi_capacity(i));
    if (idx.size() < cap) {
      idx.resize(cap);
      val.resize(cap);
    }
    const int32_t t0 = chain.offsets[i], T = chain.offsets[i + 1] - t0;
    // SparseChainModel.psi, then the dot in its order: bit-identical to the per-object path.
    const int64_t nnz = psi(i, yhat + t0, idx.data(), val.data());
    double dot = 0.0;
    for (int64_t k = 0; k < nnz; ++k) dot += w[idx[k]] * val[k];
    double loss = 0.0;
    for (int32_t t = 0; t < T; ++t)
      if (yhat[t0 + t] != chain.truth[t0 + t]) loss += chain.token_weight(t0 + t);
    hinge[i] = loss / T - dot;
  });
}

void MulticlassBatch::scores(const double* w, bool augmented, double* scores, BatchItems items, int32_t threads) const {
  // w transposed to feature-major (F x K), so a row's K scores are contiguous sums over its features.
  thread_local std::vector<double> wt;
  wt.resize(static_cast<size_t>(F) * K);
  for (int32_t k = 0; k < K; ++k)
    for (int32_t f = 0; f < F; ++f) wt[static_cast<size_t>(f) * K + k] = w[static_cast<size_t>(k) * F + f];
  const double* wtp = wt.data();
  const int64_t work = (items.index == nullptr ? row_offsets[rows] : items.count * 256) * static_cast<int64_t>(K);
  for_items(items, work, threads, [&](int64_t r) {
    double* s = scores + static_cast<size_t>(r) * K;
    score_sparse_row(row_offsets[r], row_offsets[r + 1], ids, values, wtp, K, s);
    if (augmented)
      for (int32_t k = 0; k < K; ++k) s[k] += k != truth[r] ? 1.0 : 0.0;
  });
}

void MulticlassBatch::argmax(const double* scores, int32_t* labels, BatchItems items) const {
  for (int64_t q = 0; q < items.count; ++q) {
    const int64_t r = items[q];
    const double* s = scores + static_cast<size_t>(r) * K;
    int32_t y = 0;
    for (int32_t k = 1; k < K; ++k)
      if (s[k] > s[y]) y = k;
    labels[r] = y;
  }
}

void MulticlassBatch::hinges(const double* w, const int32_t* yhat, double* hinge, BatchItems items, int32_t threads) const {
  const size_t dim = static_cast<size_t>(F) * K;
  for_items(items, (items.index == nullptr ? row_offsets[rows] : items.count * 256) * 2, threads, [&](int64_t r) {
    const int32_t y = truth[r], z = yhat[r];
    if (distinct || z == y) {
      hinge[r] = multiclass_hinge(row_offsets[r], row_offsets[r + 1], ids, values, w, F, y, z);
      return;
    }
    // A row that repeats a feature: psi merges the repeats (MulticlassModel.psi's accumulator), then the dot.
    thread_local TouchStorage storage;
    TouchAccumulator acc(storage, dim);
    for (int32_t j = row_offsets[r]; j < row_offsets[r + 1]; ++j) {
      acc.add(static_cast<int64_t>(y) * F + ids[j], values[j]);
      acc.add(static_cast<int64_t>(z) * F + ids[j], -values[j]);
    }
    double dot = 0.0;
    acc.drain([&](int32_t j, double v) { dot += w[j] * v; });
    hinge[r] = 1.0 - dot;
  });
}

int64_t MulticlassBatch::psi(int64_t r, int32_t z, int32_t* idx, double* val) const {
  const int32_t y = truth[r];
  if (z == y) return 0;
  int64_t nnz = 0;
  const auto emit = [&](int32_t j, double v) {
    if (v == 0.0) return;  // the accumulator drops exact zeros
    idx[nnz] = j;
    val[nnz++] = v;
  };
  if (distinct) {
    for (int32_t j = row_offsets[r]; j < row_offsets[r + 1]; ++j) {
      emit(y * F + ids[j], values[j]);
      emit(z * F + ids[j], -values[j]);
    }
    return nnz;
  }
  thread_local TouchStorage storage;
  TouchAccumulator acc(storage, static_cast<size_t>(F) * K);
  for (int32_t j = row_offsets[r]; j < row_offsets[r + 1]; ++j) {
    acc.add(static_cast<int64_t>(y) * F + ids[j], values[j]);
    acc.add(static_cast<int64_t>(z) * F + ids[j], -values[j]);
  }
  acc.drain(emit);
  return nnz;
}

void MulticlassBatch::dual_dots(const double* alpha, double scale, const double* v, double* out, BatchItems items, int32_t threads) const {
  for_items(items, (items.index == nullptr ? row_offsets[rows] : items.count * 256) * static_cast<int64_t>(K), threads, [&](int64_t r) {
    double s = 0.0;
    for (int32_t k = 0; k < K; ++k) {
      const double beta = (k == truth[r] ? 1.0 : 0.0) - alpha[r * K + k];
      if (beta == 0.0) continue;
      const double* vk = v + static_cast<int64_t>(k) * F;
      double dot = 0.0;
      for (int32_t j = row_offsets[r]; j < row_offsets[r + 1]; ++j) dot += vk[ids[j]] * values[j];
      s += beta * dot;
    }
    out[r] = s * scale;
  });
}

void MulticlassBatch::dual_sum(const double* alpha, double scale, double* w) const {
  std::fill(w, w + static_cast<int64_t>(F) * K, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int32_t k = 0; k < K; ++k) {
      const double beta = ((k == truth[r] ? 1.0 : 0.0) - alpha[r * K + k]) * scale;
      if (beta == 0.0) continue;
      double* wk = w + static_cast<int64_t>(k) * F;
      for (int32_t j = row_offsets[r]; j < row_offsets[r + 1]; ++j) wk[ids[j]] += beta * values[j];
    }
  }
}

}  // namespace gapbcfw
