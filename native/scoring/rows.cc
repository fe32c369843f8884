#include "scoring/rows.h"

#include <vector>

#include "scoring/parallel.h"

namespace gapbcfw {

namespace {

template <typename T>
void score_rows_impl(const T* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                     const double* aug_weight, double* out, int32_t threads) {
  // W transposed to feature-major (D x K): a row's K scores are a sum of x_j * Wt[j, :] over its nonzero
  // features, contiguous in K (vectorised, zeros skipped).
  std::vector<double> wt(static_cast<size_t>(D) * K);
  for (int32_t k = 0; k < K; ++k)
    for (int32_t j = 0; j < D; ++j) wt[static_cast<size_t>(j) * K + k] = W[static_cast<size_t>(k) * D + j];
  constexpr int64_t kRowsPerItem = 64;
  const int64_t items = (N + kRowsPerItem - 1) / kRowsPerItem;
  const int64_t work = N * static_cast<int64_t>(D) * K;
  const int32_t useful = static_cast<int32_t>(std::max<int64_t>(1, std::min<int64_t>(threads, work >> 16)));
  parallel_for(items, useful, [&](int64_t item) {
    const int64_t end = std::min<int64_t>(N, (item + 1) * kRowsPerItem);
    for (int64_t n = item * kRowsPerItem; n < end; ++n) {
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
      if (aug_labels != nullptr) {
        const double a = aug_weight[n];
        const int32_t truth = aug_labels[n];
        for (int32_t k = 0; k < K; ++k)
          if (k != truth) s[k] += a;
      }
    }
  });
}

}  // namespace

void score_rows(const double* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                const double* aug_weight, double* out, int32_t threads) {
  score_rows_impl(X, N, D, W, K, aug_labels, aug_weight, out, threads);
}

void score_rows(const float* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                const double* aug_weight, double* out, int32_t threads) {
  score_rows_impl(X, N, D, W, K, aug_labels, aug_weight, out, threads);
}

}  // namespace gapbcfw
