// Batched linear scores of many feature rows against K weight vectors: the shared kernel of full
// duality-gap passes (chain emissions, multiclass scores, segmentation unaries and edge weights).
#pragma once
#include <cstdint>

namespace gapbcfw {

// out[n*K + k] = <W_k, X_n> for rows n in [0, N), with W row-major K x D and X row-major N x D; when
// aug_labels is not null, aug_weight[n] is added to every k != aug_labels[n] (a Hamming-type loss
// augmentation). Rows are split over `threads` threads; each row is summed feature-major over its
// nonzero features in a fixed order, so the result does not depend on the thread count.
// X may be float32 (features stored compactly) or float64; sums are always accumulated in float64. Small
// batches use fewer threads (about 2^18 multiply-adds per thread at least). With K < 8 each score is a
// vectorised dot product over the features; otherwise the features' nonzeros are scattered over K.
void score_rows(const double* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                const double* aug_weight, double* out, int32_t threads);
void score_rows(const float* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                const double* aug_weight, double* out, int32_t threads);

// Sparse rows against feature-major weights (the K weights of feature f at W[f*K .. f*K+K)): for rows t in
// [0, rows), out[t*K + k] = sum over j in [row_offsets[t], row_offsets[t+1]) of values[j] * W[ids[j]*K + k]
// (values null: all 1), summed in j order. The node scores of sparse chains (CoNLL attributes).
void score_sparse_rows(const int32_t* row_offsets, int64_t rows, const int32_t* ids, const double* values, const double* W,
                       int32_t K, double* out, int32_t threads);

// Crammer-Singer hinges of given labels (the multiclass model, w class-major: class y owns w[y*F .. y*F+F)):
// for sparse rows t in [0, rows) with distinct ids, hinge[t] = 0 when yhat[t] == y[t], else
// 1 - <w, psi> with psi = [x_t in block y_t, -x_t in block yhat_t] summed as the per-object path does:
// s += w[y F + id_j] x_j, then s += w[yhat F + id_j] (-x_j), for j in row order.
void multiclass_hinges(const int32_t* row_offsets, int64_t rows, const int32_t* ids, const double* values, const double* w,
                       int32_t F, const int32_t* y, const int32_t* yhat, double* hinge, int32_t threads);

}  // namespace gapbcfw
