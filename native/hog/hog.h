// Histogram-of-oriented-gradients cell features (plain C++17, no Node headers).
//
// The 31-dimensional variant of Felzenszwalb, Girshick, McAllester & Ramanan, "Object Detection with
// Discriminatively Trained Part-Based Models", TPAMI 2010, Sec. 6 (an analytic reduction of Dalal &
// Triggs' 36-dimensional HOG): per cell of sbin x sbin pixels
//   * 18 contrast-sensitive orientation bins (0..340 degrees in steps of 20),
//   * 9 contrast-insensitive bins (orientation modulo 180 degrees),
//   * 4 "texture" (gradient energy) features, one per 2x2-cell normalisation block,
// each normalised by the four 2x2 blocks around the cell, truncated at 0.2 and summed
// (orientation features x 0.5, texture features x 0.2357).
//
// Pixel gradients are centred differences; in colour images the channel with the largest gradient
// magnitude is used. Each gradient votes with its magnitude into its orientation bin of the four
// nearest cells (bilinear in space). The grid has round(H/sbin) x round(W/sbin) cells; the output
// drops the border cells (which lack a full set of neighbouring blocks): rows = round(H/sbin) - 2,
// cols = round(W/sbin) - 2 (0 when negative). Output cell (r, c) covers pixels centred at
// ((r + 1.5) sbin, (c + 1.5) sbin) (0-based pixel coordinates, y = row).
#ifndef GAPBCFW_HOG_HOG_H_
#define GAPBCFW_HOG_HOG_H_

#include <cstddef>

namespace gapbcfw {
namespace hog {

constexpr std::size_t kFeatures = 31;

/// Output grid size for an H x W image and cell size sbin (>= 1).
void OutputShape(std::size_t height, std::size_t width, std::size_t sbin, std::size_t* rows, std::size_t* cols);

/// Computes the features. `image` is row-major with `channels` (1..4) interleaved values per pixel;
/// `out` receives rows*cols*31 floats, feature d of cell (r, c) at (r*cols + c)*31 + d.
/// Throws std::invalid_argument on sbin == 0 or channels outside 1..4.
void Compute(const double* image, std::size_t height, std::size_t width, std::size_t channels,
             std::size_t sbin, float* out);

/// Linear filter responses over a cell grid (the part score maps of a pictorial-structures model):
///   out[f*rows*cols + r*cols + c] = sum_{i,j<k, d<dim} w[f*k*k*dim + (i*k+j)*dim + d] * feat[((r+i-k/2)*cols + c+j-k/2)*dim + d]
/// with cells outside the grid contributing 0, summed in (i, j, d) order. k must be odd. The features
/// are copied once into zero-bordered channel planes; tiles of 8 cells x 4 filters then accumulate in
/// registers over every tap (AVX2 where the CPU has it, SSE2 otherwise: the same sums either way).
void FilterResponses(const float* feat, std::size_t rows, std::size_t cols, std::size_t dim, const double* w,
                     std::size_t numFilters, std::size_t k, double* out);

}  // namespace hog
}  // namespace gapbcfw

#endif  // GAPBCFW_HOG_HOG_H_
