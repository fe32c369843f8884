#include "solver/block_update.h"

namespace gapbcfw {

BlockStats block_stats(const double* wi, const double* w, int64_t d, const int32_t* idx, const double* val,
                       int64_t nnz) {
  double dw = 0.0, sq = 0.0;
#pragma omp simd reduction(+ : dw, sq)
  for (int64_t j = 0; j < d; ++j) {
    dw += wi[j] * w[j];
    sq += wi[j] * wi[j];
  }
  double dp = 0.0;
  for (int64_t q = 0; q < nnz; ++q) dp += wi[idx[q]] * val[q];
  return {dw, sq, dp};
}

void block_update(double* wi, double* w, double* w_avg, int64_t d, const int32_t* idx, const double* val,
                  int64_t nnz, double gamma, double psi_scale, double rho) {
  // Dense part: w_i <- (1 - gamma) w_i, w moves by the same difference; w_avg sees w without the sparse
  // part, which the sparse sweep then adds with weight rho.
  if (w_avg != nullptr) {
#pragma omp simd
    for (int64_t j = 0; j < d; ++j) {
      const double delta = -gamma * wi[j];
      wi[j] += delta;
      w[j] += delta;
      w_avg[j] = (1.0 - rho) * w_avg[j] + rho * w[j];
    }
  } else {
#pragma omp simd
    for (int64_t j = 0; j < d; ++j) {
      const double delta = -gamma * wi[j];
      wi[j] += delta;
      w[j] += delta;
    }
  }
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
