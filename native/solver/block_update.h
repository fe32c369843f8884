// Dense kernels of one block-coordinate Frank-Wolfe step (Lacoste-Julien et al. 2013, Alg. 4), plain C++.
// The corner w_s = psi / (lambda n) arrives as a sparse vector (idx, val, nnz) with distinct indices.
// Long vectors are cut into chunks of kBlockChunk coordinates that run on up to `threads` threads of the
// shared pool; the results never depend on the thread count.
#pragma once
#include <cstdint>

namespace gapbcfw {

// Coordinates per chunk of the dense sweeps (16 KiB of doubles): shorter vectors are one chunk, on the caller.
constexpr int64_t kBlockChunk = 2048;
// Shorter vectors are swept on the caller whatever `threads` says: waking the pool costs more than the sweep
// (OCR's d = 4,082 is two chunks, about a microsecond of work).
constexpr int64_t kParallelSweep = int64_t{1} << 16;

// block_dots hands its blocks to the pool from this many numbers in all (a mini-batch of OCR's 4,082-long blocks).
constexpr int64_t kParallelDots = int64_t{1} << 13;

struct BlockStats {
  double wi_dot_w;    // <w_i, w>
  double wi_sq;       // ||w_i||^2
  double wi_dot_psi;  // <w_i, psi>
};

// <w_i, w> and ||w_i||^2 in one dense sweep, <w_i, psi> over psi's entries. The dense sums are taken with 16
// interleaved partial sums in a fixed order; `chunked` (mini-batch runs): per chunk, the chunk sums added in order, so
// the chunks can run on `threads` threads with the same result; otherwise in one sweep on the caller.
BlockStats block_stats(const double* wi, const double* w, int64_t d, const int32_t* idx, const double* val,
                       int64_t nnz, bool chunked, int32_t threads);

// The two halves of block_stats: the dense sums (<w_i, w>, ||w_i||^2) and the sparse <w_i, psi>, with its
// arithmetic (block_stats is these two), for a step that takes the dense sums once and several <w_i, psi>.
void block_dense_sums(const double* wi, const double* w, int64_t d, bool chunked, int32_t threads, double& dw, double& sq);
double block_dot_sparse(const double* wi, const int32_t* idx, const double* val, int64_t nnz);

// out[q] = <w_{which[q]}, w> for the blocks w_0..w_{n-1} stored row by row (d each), each sum taken with four
// interleaved partial sums in a fixed order (no fused multiply-add), so the result does not depend on the
// threads. The blocks run on up to `threads` threads (the mini-batch's exact block gaps).
void block_dots(const double* blocks, int64_t d, const int32_t* which, int64_t count, const double* w, double* out,
                int32_t threads);

// w_i <- (1 - gamma) w_i + gamma * psi_scale * psi, w <- w + (w_i_new - w_i_old), and, when w_avg is not
// null, w_avg <- (1 - rho) w_avg + rho w_new (weighted averaging, Sec. 4). One fused dense sweep (per
// coordinate, so chunks on threads give the same result) plus a sparse sweep; no allocation.
void block_update(double* wi, double* w, double* w_avg, int64_t d, const int32_t* idx, const double* val,
                  int64_t nnz, double gamma, double psi_scale, double rho, int32_t threads);

}  // namespace gapbcfw
