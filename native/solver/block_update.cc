#include "solver/block_update.h"

#include <algorithm>

#include "common/parallel.h"

namespace gapbcfw {

namespace {

// sum_j wi[j] w[j] and sum_j wi[j]^2 over [begin, end).
void dense_sums(const double* wi, const double* w, int64_t begin, int64_t end, double& dw, double& sq) {
  double a = 0.0, b = 0.0;
#pragma omp simd reduction(+ : a, b)
  for (int64_t j = begin; j < end; ++j) {
    a += wi[j] * w[j];
    b += wi[j] * wi[j];
  }
  dw = a;
  sq = b;
}

}  // namespace

BlockStats block_stats(const double* wi, const double* w, int64_t d, const int32_t* idx, const double* val,
                       int64_t nnz, bool chunked, int32_t threads) {
  double dw = 0.0, sq = 0.0;
  if (!chunked) {
    dense_sums(wi, w, 0, d, dw, sq);
  } else {
    constexpr int64_t kMaxChunks = 64;  // longer vectors take longer chunks (the same for every thread count)
    const int64_t chunk = std::max(kBlockChunk, (d + kMaxChunks - 1) / kMaxChunks);
    const int64_t chunks = (d + chunk - 1) / chunk;
    double part_dw[kMaxChunks], part_sq[kMaxChunks];
    parallel_for(chunks, d >= kParallelSweep ? threads : 1, [&](int64_t c) { dense_sums(wi, w, c * chunk, std::min(d, (c + 1) * chunk), part_dw[c], part_sq[c]); });
    for (int64_t c = 0; c < chunks; ++c) {
      dw += part_dw[c];
      sq += part_sq[c];
    }
  }
  double dp = 0.0;
  for (int64_t q = 0; q < nnz; ++q) dp += wi[idx[q]] * val[q];
  return {dw, sq, dp};
}

void block_dots(const double* blocks, int64_t d, const int32_t* which, int64_t count, const double* w, double* out,
                int32_t threads) {
  parallel_for(count, d >= kParallelSweep ? threads : 1, [&](int64_t q) {
    const double* wi = blocks + which[q] * d;
    double s = 0.0;
    for (int64_t j = 0; j < d; ++j) s += wi[j] * w[j];
    out[q] = s;
  });
}

void block_update(double* wi, double* w, double* w_avg, int64_t d, const int32_t* idx, const double* val,
                  int64_t nnz, double gamma, double psi_scale, double rho, int32_t threads) {
  // Dense part: w_i <- (1 - gamma) w_i, w moves by the same difference; w_avg sees w without the sparse
  // part, which the sparse sweep then adds with weight rho. Per coordinate, so chunks may run on threads.
  const int64_t chunks = (d + kBlockChunk - 1) / kBlockChunk;
  parallel_for(chunks, d >= kParallelSweep ? threads : 1, [&](int64_t c) {
    const int64_t begin = c * kBlockChunk, end = std::min(d, begin + kBlockChunk);
    if (w_avg != nullptr) {
#pragma omp simd
      for (int64_t j = begin; j < end; ++j) {
        const double delta = -gamma * wi[j];
        wi[j] += delta;
        w[j] += delta;
        w_avg[j] = (1.0 - rho) * w_avg[j] + rho * w[j];
      }
    } else {
#pragma omp simd
      for (int64_t j = begin; j < end; ++j) {
        const double delta = -gamma * wi[j];
        wi[j] += delta;
        w[j] += delta;
      }
    }
  });
  const double s = gamma * psi_scale;
  for (int64_t q = 0; q < nnz; ++q) {
    const int32_t j = idx[q];
    const double delta = s * val[q];
    wi[j] += delta;
    w[j] += delta;
    if (w_avg != nullptr) w_avg[j] += rho * delta;
  }
}

}  // namespace gapbcfw
