// Dense kernels of one block-coordinate Frank-Wolfe step (Lacoste-Julien et al. 2013, Alg. 4), plain C++.
// The corner w_s = psi / (lambda n) arrives as a sparse vector (idx, val, nnz) with distinct indices.
#pragma once
#include <cstdint>

namespace gapbcfw {

struct BlockStats {
  double wi_dot_w;    // <w_i, w>
  double wi_sq;       // ||w_i||^2
  double wi_dot_psi;  // <w_i, psi>
};

BlockStats block_stats(const double* wi, const double* w, int64_t d, const int32_t* idx, const double* val,
                       int64_t nnz);

// w_i <- (1 - gamma) w_i + gamma * psi_scale * psi, w <- w + (w_i_new - w_i_old), and, when w_avg is not
// null, w_avg <- (1 - rho) w_avg + rho w_new (weighted averaging, Sec. 4). One fused dense sweep plus a
// sparse sweep; no allocation.
void block_update(double* wi, double* w, double* w_avg, int64_t d, const int32_t* idx, const double* val,
                  int64_t nnz, double gamma, double psi_scale, double rho);

}  // namespace gapbcfw
