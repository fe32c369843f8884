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

// The same sums with four interleaved partial sums each, added as (s0 + s1) + (s2 + s3) at the end: four
// independent addition chains instead of one, so the sweep is not bound by the adder's latency. The order is
// fixed by the code (not by the vector width or the thread count); mini-batch runs use it.
void dense_sums_4(const double* wi, const double* w, int64_t begin, int64_t end, double& dw, double& sq) {
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0, b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0;
  int64_t j = begin;
  for (; j + 4 <= end; j += 4) {
    a0 += wi[j] * w[j];
    a1 += wi[j + 1] * w[j + 1];
    a2 += wi[j + 2] * w[j + 2];
    a3 += wi[j + 3] * w[j + 3];
    b0 += wi[j] * wi[j];
    b1 += wi[j + 1] * wi[j + 1];
    b2 += wi[j + 2] * wi[j + 2];
    b3 += wi[j + 3] * wi[j + 3];
  }
  for (; j < end; ++j) {
    a0 += wi[j] * w[j];
    b0 += wi[j] * wi[j];
  }
  dw = (a0 + a1) + (a2 + a3);
  sq = (b0 + b1) + (b2 + b3);
}

double dot_4(const double* a, const double* b, int64_t d) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int64_t j = 0;
  for (; j + 4 <= d; j += 4) {
    s0 += a[j] * b[j];
    s1 += a[j + 1] * b[j + 1];
    s2 += a[j + 2] * b[j + 2];
    s3 += a[j + 3] * b[j + 3];
  }
  for (; j < d; ++j) s0 += a[j] * b[j];
  return (s0 + s1) + (s2 + s3);
}

}  // namespace

void block_dense_sums(const double* wi, const double* w, int64_t d, bool chunked, int32_t threads, double& dw, double& sq) {
  dw = 0.0;
  sq = 0.0;
  if (!chunked) {
    dense_sums(wi, w, 0, d, dw, sq);
    return;
  }
  constexpr int64_t kMaxChunks = 64;  // longer vectors take longer chunks (the same for every thread count)
  const int64_t chunk = std::max(kBlockChunk, (d + kMaxChunks - 1) / kMaxChunks);
  const int64_t chunks = (d + chunk - 1) / chunk;
  double part_dw[kMaxChunks], part_sq[kMaxChunks];
  parallel_for(chunks, d >= kParallelSweep ? threads : 1, [&](int64_t c) { dense_sums_4(wi, w, c * chunk, std::min(d, (c + 1) * chunk), part_dw[c], part_sq[c]); });
  for (int64_t c = 0; c < chunks; ++c) {
    dw += part_dw[c];
    sq += part_sq[c];
  }
}

double block_dot_sparse(const double* wi, const int32_t* idx, const double* val, int64_t nnz) {
  double dp = 0.0;
  for (int64_t q = 0; q < nnz; ++q) dp += wi[idx[q]] * val[q];
  return dp;
}

BlockStats block_stats(const double* wi, const double* w, int64_t d, const int32_t* idx, const double* val,
                       int64_t nnz, bool chunked, int32_t threads) {
  double dw, sq;
  block_dense_sums(wi, w, d, chunked, threads, dw, sq);
  return {dw, sq, block_dot_sparse(wi, idx, val, nnz)};
}

void block_dots(const double* blocks, int64_t d, const int32_t* which, int64_t count, const double* w, double* out,
                int32_t threads) {
  // One block per index: worth a pool worker once the blocks hold a few thousand numbers in all.
  parallel_for(count, count * d >= kParallelDots ? threads : 1, [&](int64_t q) { out[q] = dot_4(blocks + which[q] * d, w, d); });
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
