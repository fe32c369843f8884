#include <algorithm>
#include <limits>

#include "scoring/simd.h"

#include "solver/models.h"

namespace gapbcfw {

// MulticlassModel.classScore of every class: sum over the row's features, in order, of w[k*F + id] * x.
void MulticlassBlocks::prepare(int32_t i, const double* w) {
  const int32_t F = batch_.F, K = batch_.K;
  i_ = i;
  const int32_t b = batch_.row_offsets[i], e = batch_.row_offsets[i + 1];
  for (int32_t k = 0; k < K; ++k) {
    const double* wk = w + static_cast<int64_t>(k) * F;
    double s = 0.0;
    for (int32_t j = b; j < e; ++j) s += wk[batch_.ids[j]] * batch_.values[j];
    scores_[static_cast<size_t>(k)] = s;
  }
}

namespace {

// Four lanes of doubles: element-wise arithmetic only, so the AVX2 copy and the baseline copy of a GAPBCFW_WIDE_SIMD
// function give the same bits.
typedef double Lanes __attribute__((vector_size(32)));

GAPBCFW_INLINE void load_lanes(Lanes& v, const double* p) { __builtin_memcpy(&v, p, sizeof v); }
GAPBCFW_INLINE void store_lanes(double* p, const Lanes& v) { __builtin_memcpy(p, &v, sizeof v); }

// s[0 .. 4G) = sum over the row's features j, in order, of wt[id_j * 4G ..] * x_j: G groups of four classes, kept in
// registers when G is known at compile time.
template <int G>
GAPBCFW_INLINE void row_scores(const int32_t* ids, const double* values, int32_t begin, int32_t end, const double* wt, int32_t stride, double* s) {
  Lanes acc[G > 0 ? G : 1] = {};
  const int groups = G > 0 ? G : stride / 4;
  if (G == 0) std::fill(s, s + stride, 0.0);
  for (int32_t j = begin; j < end; ++j) {
    const double v = values[j];
    const Lanes vv = {v, v, v, v};
    const double* row = wt + static_cast<size_t>(ids[j]) * stride;
    for (int q = 0; q < groups; ++q) {
      Lanes x;
      load_lanes(x, row + 4 * q);
      if (G > 0) {
        acc[q] += x * vv;
      } else {
        Lanes a;
        load_lanes(a, s + 4 * q);
        store_lanes(s + 4 * q, a + x * vv);
      }
    }
  }
  if (G > 0)
    for (int q = 0; q < G; ++q) store_lanes(s + 4 * q, acc[q]);
}

GAPBCFW_WIDE_SIMD void scores_of(const int32_t* ids, const double* values, int32_t begin, int32_t end, const double* wt, int32_t stride, double* s) {
  switch (stride / 4) {
    case 1: row_scores<1>(ids, values, begin, end, wt, stride, s); break;
    case 2: row_scores<2>(ids, values, begin, end, wt, stride, s); break;
    case 3: row_scores<3>(ids, values, begin, end, wt, stride, s); break;
    case 4: row_scores<4>(ids, values, begin, end, wt, stride, s); break;
    default: row_scores<0>(ids, values, begin, end, wt, stride, s);
  }
}

// wt[id_j * stride ..] += change * x_j for the row's features (change padded with zeros to the stride): G groups of
// four classes (0: any number, read from the stride).
template <int G>
GAPBCFW_INLINE void add_row_lanes(const int32_t* ids, const double* values, int32_t begin, int32_t end, double* wt, int32_t stride, const double* change) {
  const int groups = G > 0 ? G : stride / 4;
  Lanes c[G > 0 ? G : 1];
  if (G > 0)
    for (int q = 0; q < G; ++q) load_lanes(c[q], change + 4 * q);
  for (int32_t j = begin; j < end; ++j) {
    const double v = values[j];
    const Lanes vv = {v, v, v, v};
    double* row = wt + static_cast<size_t>(ids[j]) * stride;
    for (int q = 0; q < groups; ++q) {
      Lanes a, cq;
      load_lanes(a, row + 4 * q);
      if (G > 0) cq = c[q];
      else load_lanes(cq, change + 4 * q);
      store_lanes(row + 4 * q, a + cq * vv);
    }
  }
}

GAPBCFW_WIDE_SIMD void add_scaled_row(const int32_t* ids, const double* values, int32_t begin, int32_t end, double* wt, int32_t stride, const double* change) {
  switch (stride / 4) {
    case 1: add_row_lanes<1>(ids, values, begin, end, wt, stride, change); break;
    case 2: add_row_lanes<2>(ids, values, begin, end, wt, stride, change); break;
    case 3: add_row_lanes<3>(ids, values, begin, end, wt, stride, change); break;
    case 4: add_row_lanes<4>(ids, values, begin, end, wt, stride, change); break;
    default: add_row_lanes<0>(ids, values, begin, end, wt, stride, change);
  }
}

}  // namespace

// The K weights of a feature at wt[f * stride ..], stride = K rounded up to 4 (the padding stays 0).
void MulticlassBlocks::begin_run(const double* w) {
  const int32_t F = batch_.F, K = batch_.K;
  stride_ = (K + 3) & ~3;
  wt_.assign(static_cast<size_t>(F) * stride_, 0.0);
  scores_.assign(static_cast<size_t>(stride_), 0.0);
  change_.assign(static_cast<size_t>(stride_), 0.0);
  for (int32_t k = 0; k < K; ++k)
    for (int32_t f = 0; f < F; ++f) wt_[static_cast<size_t>(f) * stride_ + k] = w[static_cast<size_t>(k) * F + f];
}

void MulticlassBlocks::end_run(double* w) const {
  const int32_t F = batch_.F, K = batch_.K;
  for (int32_t k = 0; k < K; ++k)
    for (int32_t f = 0; f < F; ++f) w[static_cast<size_t>(k) * F + f] = wt_[static_cast<size_t>(f) * stride_ + k];
}

// The K class scores of row i summed over its features in order (classScore's sums, as K-wide axpys per feature).
const double* MulticlassBlocks::class_scores(int32_t i) {
  i_ = i;
  scores_of(batch_.ids, batch_.values, batch_.row_offsets[i], batch_.row_offsets[i + 1], wt_.data(), stride_, scores_.data());
  return scores_.data();
}

void MulticlassBlocks::add_row(int32_t i, const double* change) {
  std::copy(change, change + batch_.K, change_.begin());
  add_scaled_row(batch_.ids, batch_.values, batch_.row_offsets[i], batch_.row_offsets[i + 1], wt_.data(), stride_, change_.data());
}

double MulticlassBlocks::score(const int32_t* y) const {
  const int32_t yt = batch_.truth[i_];
  return ((*y == yt ? 0.0 : 1.0) + scores_[static_cast<size_t>(*y)]) - scores_[static_cast<size_t>(yt)];
}

// The loss-augmented argmax, ties to the smallest class.
void MulticlassBlocks::oracle(const double*, int32_t* y) {
  const int32_t yt = batch_.truth[i_];
  double best = -std::numeric_limits<double>::infinity();
  int32_t arg = 0;
  for (int32_t k = 0; k < batch_.K; ++k) {
    const double s = scores_[static_cast<size_t>(k)] + (k != yt ? 1.0 : 0.0);
    if (s > best) {
      best = s;
      arg = k;
    }
  }
  *y = arg;
}

void MulticlassBlocks::decode(const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) {
  const size_t size = static_cast<size_t>(batch_.rows) * batch_.K;
  if (batch_scores_.size() < size) batch_scores_.resize(size);
  batch_.scores(w, true, batch_scores_.data(), items, threads);
  batch_.argmax(batch_scores_.data(), labels, items);
  batch_.hinges(w, labels, hinge, items, threads);
  for (int64_t q = 0; q < items.count; ++q) {
    const int64_t r = items[q];
    if (!(hinge[r] < 0)) continue;
    hinge[r] = 0.0;
    labels[r] = batch_.truth[r];
  }
}

}  // namespace gapbcfw
