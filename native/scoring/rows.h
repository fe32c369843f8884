// Batched linear scores of many feature rows against K weight vectors: the shared kernel of full
// duality-gap passes (chain emissions, multiclass scores, segmentation unaries and edge weights).
#pragma once
#include <cstdint>
#include <vector>

namespace gapbcfw {

// The row kernel of score_rows for one W (row-major K x D), exposed so that prepared batches score any
// subset of rows with the same arithmetic: out[n*K + k] = <W_k, X_n> for rows n in [first, end), plus
// aug_weight[n] on every k != aug_labels[n] when aug_labels is not null (indices are absolute rows). With
// K < 8 each score is a vectorised dot product over the features; otherwise W is transposed to
// feature-major once (here) and the row's nonzero features are scattered over K. Each row is computed on
// its own in a fixed order, so results do not depend on how rows are split over threads.
class RowScorer {
 public:
  RowScorer(const double* W, int32_t D, int32_t K);
  void rows(const double* X, int64_t first, int64_t end, const int32_t* aug_labels, const double* aug_weight, double* out) const;
  void rows(const float* X, int64_t first, int64_t end, const int32_t* aug_labels, const double* aug_weight, double* out) const;

 private:
  const double* W_;
  int32_t D_, K_;
  std::vector<double> wt_;  // W transposed (D x K) when K >= 8
};

// out[n*K + k] = <W_k, X_n> for rows n in [0, N), with W row-major K x D and X row-major N x D; when
// aug_labels is not null, aug_weight[n] is added to every k != aug_labels[n] (a Hamming-type loss
// augmentation). Rows are split over `threads` threads (RowScorer per row), so the result does not depend
// on the thread count. X may be float32 (features stored compactly) or float64; sums are always
// accumulated in float64. Small batches use fewer threads (about 2^18 multiply-adds per thread at least).
void score_rows(const double* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                const double* aug_weight, double* out, int32_t threads);
void score_rows(const float* X, int64_t N, int32_t D, const double* W, int32_t K, const int32_t* aug_labels,
                const double* aug_weight, double* out, int32_t threads);

// Threads worth using for `work` multiply-adds: at most `threads`, about 2^shift multiply-adds each at least.
int32_t useful_threads(int64_t work, int32_t threads, int shift);

// One sparse row against feature-major weights (the K weights of feature f at W[f*K .. f*K+K)):
// out[k] = sum over j in [begin, end) of values[j] * W[ids[j]*K + k] (values null: all 1), summed in j order.
// The node scores of sparse chains (CoNLL attributes).
void score_sparse_row(int32_t begin, int32_t end, const int32_t* ids, const double* values, const double* W, int32_t K,
                      double* out);

// Crammer-Singer hinge of a given label (the multiclass model, w class-major: class y owns w[y*F .. y*F+F))
// for the sparse row [begin, end) with distinct ids: 0 when yhat == y, else 1 - <w, psi> with
// psi = [x in block y, -x in block yhat] summed as the per-object path does: s += w[y F + id_j] x_j, then
// s += w[yhat F + id_j] (-x_j), for j in row order.
double multiclass_hinge(int32_t begin, int32_t end, const int32_t* ids, const double* values, const double* w, int32_t F,
                        int32_t y, int32_t yhat);

}  // namespace gapbcfw
