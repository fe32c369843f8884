// <w, psi> of superpixel-segmentation labellings (the model of src/models/segmentation.ts), many images
// on threads, with the per-object path's arithmetic. Plain C++ (no Node headers).
#pragma once
#include <cstdint>

namespace gapbcfw {

// One image: N superpixels with dU float features each (row-major), E undirected edges with dP float
// features each, the ground truth and a labelling (0/1 per superpixel).
struct SegmentationImage {
  int32_t N, E;
  const float* unary;
  const float* pairwise;
  const int32_t* edge_from;
  const int32_t* edge_to;
  const uint8_t* y_true;
  const uint8_t* y;
};

// dots[i] = <w, psi_i> with psi = phi(y_true) - phi(y) = sum_i 2 (y_i - y*_i) f_i (unary block) ;
// sum_e ([y_a != y_b] - [y*_a != y*_b]) f_e (pairwise block, offset dU), accumulated as
// SegmentationModel.psi does (a dense accumulator filled node by node then edge by edge, nonzero features
// only; coordinates listed at first touch; exact zeros dropped) and dotted in that order, so that
// L - dots[i] is bit-identical to the per-object H.
void segmentation_psi_dots(const SegmentationImage* images, int32_t n, int32_t dU, int32_t dP, const double* w, double* dots,
                           int32_t threads);

}  // namespace gapbcfw
