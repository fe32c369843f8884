#include "solver/block_update.h"

#include <algorithm>

#include "common/parallel.h"
#include "scoring/simd.h"

namespace gapbcfw {

namespace {

// Four lanes of doubles: element-wise arithmetic only, so the AVX2 copy (one register) and the baseline copy (two) of
// a GAPBCFW_WIDE_SIMD function give the same bits.
typedef double Lanes __attribute__((vector_size(32)));

GAPBCFW_INLINE void load_lanes(Lanes& v, const double* p) { __builtin_memcpy(&v, p, sizeof v); }

// sum_j wi[j] w[j] and sum_j wi[j]^2 over [begin, end) as 16 partial sums each (s_r over j = begin + r mod 16, in
// increasing j; the last (end - begin) mod 16 terms zero-padded), added as a fixed tree: four independent addition
// chains of four lanes, so the sweep runs at the loads' speed. The order is fixed by the code (not by the vector
// width, the chunking or the thread count).
GAPBCFW_WIDE_SIMD void dense_sums_16(const double* wi, const double* w, int64_t begin, int64_t end, double& dw, double& sq) {
  Lanes a[4] = {}, b[4] = {};
  Lanes x, y;
  int64_t j = begin;
  for (; j + 16 <= end; j += 16) {
    for (int r = 0; r < 4; ++r) {
      load_lanes(x, wi + j + 4 * r);
      load_lanes(y, w + j + 4 * r);
      a[r] += x * y;
      b[r] += x * x;
    }
  }
  if (j < end) {
    double pi[16] = {}, pw[16] = {};
    for (int64_t q = j; q < end; ++q) {
      pi[q - j] = wi[q];
      pw[q - j] = w[q];
    }
    for (int r = 0; r < 4; ++r) {
      load_lanes(x, pi + 4 * r);
      load_lanes(y, pw + 4 * r);
      a[r] += x * y;
      b[r] += x * x;
    }
  }
  const Lanes ta = (a[0] + a[1]) + (a[2] + a[3]);
  const Lanes tb = (b[0] + b[1]) + (b[2] + b[3]);
  dw = (ta[0] + ta[1]) + (ta[2] + ta[3]);
  sq = (tb[0] + tb[1]) + (tb[2] + tb[3]);
}

// The dense part of block_update over [begin, end): per coordinate, so any vector width gives the same bits.
GAPBCFW_WIDE_SIMD void scale_block(double* wi, double* w, double* w_avg, int64_t begin, int64_t end, double gamma, double rho) {
  if (w_avg != nullptr) {
    for (int64_t j = begin; j < end; ++j) {
      const double delta = -gamma * wi[j];
      wi[j] += delta;
      w[j] += delta;
      w_avg[j] = (1.0 - rho) * w_avg[j] + rho * w[j];
    }
  } else {
    for (int64_t j = begin; j < end; ++j) {
      const double delta = -gamma * wi[j];
      wi[j] += delta;
      w[j] += delta;
    }
  }
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
    dense_sums_16(wi, w, 0, d, dw, sq);
    return;
  }
  constexpr int64_t kMaxChunks = 64;  // longer vectors take longer chunks (the same for every thread count)
  const int64_t chunk = std::max(kBlockChunk, (d + kMaxChunks - 1) / kMaxChunks);
  const int64_t chunks = (d + chunk - 1) / chunk;
  double part_dw[kMaxChunks], part_sq[kMaxChunks];
  parallel_for(chunks, d >= kParallelSweep ? threads : 1, [&](int64_t c) { dense_sums_16(wi, w, c * chunk, std::min(d, (c + 1) * chunk), part_dw[c], part_sq[c]); });
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
    const int64_t begin = c * kBlockChunk;
    scale_block(wi, w, w_avg, begin, std::min(d, begin + kBlockChunk), gamma, rho);
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
