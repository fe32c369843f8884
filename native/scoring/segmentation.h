// The batched oracle of superpixel segmentation (the model of src/models/segmentation.ts), many images on
// the thread pool with the per-object path's arithmetic: the s-t cut capacities of the (loss-augmented)
// energy, and <w, psi> of decoded labellings. Plain C++ (no Node headers).
#pragma once
#include <cstdint>

#include "scoring/batch.h"

namespace gapbcfw {

// One image: N superpixels with dU float features each (row-major), E undirected edges with dP float
// features each, the ground truth (0/1 per superpixel) and its loss weights a_i (the loss is
// sum_i [y_i != y*_i] a_i), and the image's cut capacities (N source, N sink, E Potts), written by
// SegmentationBatch::capacities.
struct SegmentationBatchImage {
  int32_t N, E;
  const float* unary;
  const float* pairwise;
  const int32_t* edge_from;
  const int32_t* edge_to;
  const uint8_t* truth;
  const double* loss_weight;
  double* source;
  double* sink;
  double* potts;
};

struct SegmentationBatch {
  const SegmentationBatchImage* images;
  int32_t n, dU, dP;

  // For the items: u_i = f_i^T w_U and p_e = f_e^T w_P (score_rows' arithmetic), cost0 = -u, cost1 = u,
  // minus a_i on the wrong label when augmented, Potts weights clipped at 0, and the cut form of
  // SegmentationModel.cutGraph: source = cost1 - min(cost0, cost1), sink = cost0 - min. Returns the
  // number of negative Potts weights clipped.
  int64_t capacities(const double* w, bool augmented, BatchItems items, int32_t threads) const;

  // dots[i] = <w, psi_i(labels[i])> with psi = phi(y*) - phi(y) = sum_i 2 (y_i - y*_i) f_i (unary block) ;
  // sum_e ([y_a != y_b] - [y*_a != y*_b]) f_e (pairwise block, offset dU), accumulated as
  // SegmentationModel.psi does (a dense accumulator filled node by node then edge by edge, nonzero features
  // only; coordinates listed at first touch; exact zeros dropped) and dotted in that order, so that
  // L - dots[i] is bit-identical to the per-object H.
  void psi_dots(const double* w, const uint8_t* const* labels, double* dots, BatchItems items, int32_t threads) const;
};

}  // namespace gapbcfw
