#include "scoring/rows.h"

#include <vector>

#include "scoring/parallel.h"

namespace gapbcfw {

namespace {

// Few classes: K dot products per row, vectorised over the features (no branches; zeros cost as much as
// any value, which is the right trade when rows are dense, as segmentation features are).
template <typename T>
void score_rows_dot(const T* X, int64_t N, int32_t D, const double* W, int32_t K, double* out, int32_t threads) {
  parallel_for_blocked(N, 64, threads, [&](int64_t n) {
    const T* x = X + static_cast<size_t>(n) * D;
    for (int32_t k = 0; k < K; ++k) {
      const double* w = W + static_cast<size_t>(k) * D;
      double s = 0.0;
#pragma omp simd reduction(+ : s)
      for (int32_t j = 0; j < D; ++j) s += static_cast<double>(x[j]) * w[j];
      out[static_cast<size_t>(n) * K + k] = s;
    }
  });
}

// Many classes: W transposed to feature-major (D x K), so a row's K scores are a sum of x_j * Wt[j, :] over
// its nonzero features, contiguous in K (vectorised over K, zeros skipped: sparse OCR pixels and one-hot
// multiclass features).
template <typename T>
void score_rows_axpy(const T* X, int64_t N, int32_t D, const double* W, int32_t K, double* out, int32_t threads) {
  std::vector<double> wt(static_cast<size_t>(D) * K);
  for (int32_t k = 0; k < K; ++k)
    for (int32_t j = 0; j < D; ++j) wt[static_cast<size_t>(j) * K + k] = W[static_cast<size_t>(k) * D + j];
  parallel_for_blocked(N, 64, threads, [&](int64_t n) {
    const T* x = X + static_cast<size_t>(n) * D;
    double* s = out + static_cast<size_t>(n) * K;
    for (int32_t k = 0; k < K; ++k) s[k] = 0.0;
    for (int32_t j = 0; j < D; ++j) {
      const double v = static_cast<double>(x[j]);
      if (v == 0.0) continue;
      const double* row = wt.data() + static_cast<size_t>(j) * K;
#pragma omp simd
      for (int32_t k = 0; k < K; ++k) s[k] += v * row[k];
    }
  });
}

template <typename T>
void score_rows_impl(const T* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                     const double* aug_weight, double* out, int32_t threads) {
  const int64_t work = N * static_cast<int64_t>(D) * K;
  const int32_t useful = static_cast<int32_t>(std::max<int64_t>(1, std::min<int64_t>(threads, work >> 18)));
  if (K < 8) {
    score_rows_dot(X, N, D, W, K, out, useful);
  } else {
    score_rows_axpy(X, N, D, W, K, out, useful);
  }
  if (aug_labels != nullptr) {
    for (int64_t n = 0; n < N; ++n) {
      const double a = aug_weight[n];
      const int32_t truth = aug_labels[n];
      double* s = out + static_cast<size_t>(n) * K;
      for (int32_t k = 0; k < K; ++k)
        if (k != truth) s[k] += a;
    }
  }
}

}  // namespace

void score_sparse_rows(const int32_t* row_offsets, int64_t rows, const int32_t* ids, const double* values, const double* W,
                       int32_t K, double* out, int32_t threads) {
  const int64_t work = static_cast<int64_t>(row_offsets[rows]) * K;
  const int32_t useful = static_cast<int32_t>(std::max<int64_t>(1, std::min<int64_t>(threads, work >> 16)));
  parallel_for_blocked(rows, 256, useful, [&](int64_t t) {
    double* s = out + static_cast<size_t>(t) * K;
    for (int32_t k = 0; k < K; ++k) s[k] = 0.0;
    for (int32_t j = row_offsets[t]; j < row_offsets[t + 1]; ++j) {
      const double v = values != nullptr ? values[j] : 1.0;
      const double* w = W + static_cast<size_t>(ids[j]) * K;
#pragma omp simd
      for (int32_t k = 0; k < K; ++k) s[k] += v * w[k];
    }
  });
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
