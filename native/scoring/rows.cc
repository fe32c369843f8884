#include "scoring/rows.h"

#include <algorithm>
#include <vector>

#include "common/parallel.h"
#include "scoring/simd.h"

namespace gapbcfw {

namespace {

// Loss augmentation of one row of scores: + a for every class but the true one.
GAPBCFW_INLINE void augment_row(double* s, int32_t K, int32_t truth, double a) {
  for (int32_t k = 0; k < K; ++k) s[k] += k != truth ? a : 0.0;
}

// Few classes: K dot products per row, vectorised over the features (no branches; zeros cost as much as
// any value, which is the right trade when rows are dense, as segmentation features are).
template <typename T>
void dot_rows(const T* X, int64_t first, int64_t end, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
              const double* aug_weight, double* out) {
  for (int64_t n = first; n < end; ++n) {
    const T* x = X + static_cast<size_t>(n) * D;
    double* out_row = out + static_cast<size_t>(n) * K;
    for (int32_t k = 0; k < K; ++k) {
      const double* w = W + static_cast<size_t>(k) * D;
      double s = 0.0;
#pragma omp simd reduction(+ : s)
      for (int32_t j = 0; j < D; ++j) s += static_cast<double>(x[j]) * w[j];
      out_row[k] = s;
    }
    if (aug_labels != nullptr) augment_row(out_row, K, aug_labels[n], aug_weight[n]);
  }
}

// Many classes: W transposed to feature-major (D x K), so a row's K scores are a sum of x_j * Wt[j, :] over
// its nonzero features, contiguous in K (vectorised over K, zeros skipped: sparse OCR pixels and one-hot
// multiclass features). Rows [first, end) with the loss augmentation folded in.
template <typename T>
GAPBCFW_INLINE void axpy_rows(const T* X, int64_t first, int64_t end, int32_t D, const double* wt, int32_t K,
                              const int32_t* aug_labels, const double* aug_weight, double* out, int32_t* nonzero) {
  for (int64_t n = first; n < end; ++n) {
    const T* x = X + static_cast<size_t>(n) * D;
    // The row's nonzero features, listed without branches (a branch per pixel mispredicts on OCR images).
    int32_t m = 0;
    for (int32_t j = 0; j < D; ++j) {
      nonzero[m] = j;
      m += x[j] != 0 ? 1 : 0;
    }
    double* s = out + static_cast<size_t>(n) * K;
    for (int32_t k = 0; k < K; ++k) s[k] = 0.0;
    for (int32_t q = 0; q < m; ++q) {
      const int32_t j = nonzero[q];
      const double v = static_cast<double>(x[j]);
      const double* row = wt + static_cast<size_t>(j) * K;
#pragma omp simd
      for (int32_t k = 0; k < K; ++k) s[k] += v * row[k];
    }
    if (aug_labels != nullptr) augment_row(s, K, aug_labels[n], aug_weight[n]);
  }
}

GAPBCFW_WIDE_SIMD void axpy_rows_of(const double* X, int64_t first, int64_t end, int32_t D, const double* wt, int32_t K,
                                    const int32_t* aug_labels, const double* aug_weight, double* out, int32_t* nonzero) {
  axpy_rows(X, first, end, D, wt, K, aug_labels, aug_weight, out, nonzero);
}

GAPBCFW_WIDE_SIMD void axpy_rows_of(const float* X, int64_t first, int64_t end, int32_t D, const double* wt, int32_t K,
                                    const int32_t* aug_labels, const double* aug_weight, double* out, int32_t* nonzero) {
  axpy_rows(X, first, end, D, wt, K, aug_labels, aug_weight, out, nonzero);
}

template <typename T>
void scorer_rows(const T* X, int64_t first, int64_t end, int32_t D, const double* W, const std::vector<double>& wt, int32_t K,
                 const int32_t* aug_labels, const double* aug_weight, double* out) {
  if (K < 8) {
    dot_rows(X, first, end, D, W, K, aug_labels, aug_weight, out);
    return;
  }
  thread_local std::vector<int32_t> nonzero;
  if (static_cast<int32_t>(nonzero.size()) < D) nonzero.resize(D);
  axpy_rows_of(X, first, end, D, wt.data(), K, aug_labels, aug_weight, out, nonzero.data());
}

template <typename T>
void score_rows_impl(const T* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                     const double* aug_weight, double* out, int32_t threads) {
  const RowScorer scorer(W, D, K);
  constexpr int64_t kRowsPerTask = 64;
  const int32_t useful = useful_threads(N * static_cast<int64_t>(D) * K, threads, 18);
  parallel_for((N + kRowsPerTask - 1) / kRowsPerTask, useful, [&](int64_t b) {
    scorer.rows(X, b * kRowsPerTask, std::min(N, (b + 1) * kRowsPerTask), aug_labels, aug_weight, out);
  });
}

}  // namespace

RowScorer::RowScorer(const double* W, int32_t D, int32_t K) : W_(W), D_(D), K_(K) {
  if (K < 8) return;
  wt_.resize(static_cast<size_t>(D) * K);
  for (int32_t k = 0; k < K; ++k)
    for (int32_t j = 0; j < D; ++j) wt_[static_cast<size_t>(j) * K + k] = W[static_cast<size_t>(k) * D + j];
}

void RowScorer::rows(const double* X, int64_t first, int64_t end, const int32_t* aug_labels, const double* aug_weight,
                     double* out) const {
  scorer_rows(X, first, end, D_, W_, wt_, K_, aug_labels, aug_weight, out);
}

void RowScorer::rows(const float* X, int64_t first, int64_t end, const int32_t* aug_labels, const double* aug_weight,
                     double* out) const {
  scorer_rows(X, first, end, D_, W_, wt_, K_, aug_labels, aug_weight, out);
}

int32_t useful_threads(int64_t work, int32_t threads, int shift) {
  return static_cast<int32_t>(std::max<int64_t>(1, std::min<int64_t>(threads, work >> shift)));
}

void score_sparse_row(int32_t begin, int32_t end, const int32_t* ids, const double* values, const double* W, int32_t K,
                      double* s) {
  for (int32_t k = 0; k < K; ++k) s[k] = 0.0;
  for (int32_t j = begin; j < end; ++j) {
    const double v = values != nullptr ? values[j] : 1.0;
    const double* w = W + static_cast<size_t>(ids[j]) * K;
#pragma omp simd
    for (int32_t k = 0; k < K; ++k) s[k] += v * w[k];
  }
}

double multiclass_hinge(int32_t begin, int32_t end, const int32_t* ids, const double* values, const double* w, int32_t F,
                        int32_t y, int32_t yhat) {
  if (yhat == y) return 0.0;
  const double* wa = w + static_cast<size_t>(y) * F;
  const double* wb = w + static_cast<size_t>(yhat) * F;
  double s = 0.0;
  for (int32_t j = begin; j < end; ++j) {
    const double v = values[j];
    s += wa[ids[j]] * v;
    s += wb[ids[j]] * -v;
  }
  return 1.0 - s;
}

void score_rows(const double* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                const double* aug_weight, double* out, int32_t threads) {
  score_rows_impl(X, N, D, W, K, aug_labels, aug_weight, out, threads);
}

void score_rows(const float* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                const double* aug_weight, double* out, int32_t threads) {
  score_rows_impl(X, N, D, W, K, aug_labels, aug_weight, out, threads);
}

}  // namespace gapbcfw
