// SLIC superpixels (Achanta, Shaji, Smith, Lucchi, Fua, Suesstrunk, "SLIC Superpixels Compared to
// State-of-the-Art Superpixel Methods", TPAMI 2012). Plain C++17, no Node headers.
#pragma once
#include <cstdint>

namespace gapbcfw {
namespace slic {

struct Params {
  /// Desired number of superpixels K (the grid step is S = sqrt(H*W/K)).
  int32_t numSuperpixels = 200;
  /// Compactness m: weight of the spatial distance against the CIELAB colour distance (paper: 10).
  double compactness = 10.0;
  /// k-means iterations (paper: 10).
  int32_t iterations = 10;
  /// Connected components smaller than minSizeFactor * S^2 pixels are merged into a neighbour.
  double minSizeFactor = 0.25;
};

/// Segments an H x W image with `channels` (1 = grey, 3 = RGB, 4 = RGBA, alpha ignored) interleaved
/// 8-bit values, row-major. Writes a label in 0..count-1 per pixel into `labels` (H*W entries) and
/// returns count. Every superpixel is 4-connected. Preconditions (checked by the binding): H, W >= 1,
/// numSuperpixels >= 1, compactness > 0, iterations >= 1.
int32_t Segment(const uint8_t* pixels, int32_t H, int32_t W, int32_t channels, const Params& params, int32_t* labels);

/// sRGB (0..255) to CIELAB (D65), the conversion SLIC clusters in.
void RgbToLab(double r, double g, double b, double* L, double* A, double* B);

}  // namespace slic
}  // namespace gapbcfw
