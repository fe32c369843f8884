#include "scoring/segmentation.h"

#include "scoring/accumulator.h"
#include "common/parallel.h"

namespace gapbcfw {

void segmentation_psi_dots(const SegmentationImage* images, int32_t n, int32_t dU, int32_t dP, const double* w, double* dots,
                           int32_t threads) {
  const size_t dim = static_cast<size_t>(dU) + dP;
  parallel_for(n, threads, [&](int64_t q) {
    thread_local TouchStorage storage;
    TouchAccumulator acc(storage, dim);
    const SegmentationImage& im = images[q];
    for (int32_t i = 0; i < im.N; ++i) {
      const int d = static_cast<int>(im.y[i]) - static_cast<int>(im.y_true[i]);
      if (d == 0) continue;
      const float* f = im.unary + static_cast<size_t>(i) * dU;
      const double scale = 2.0 * d;
      for (int32_t j = 0; j < dU; ++j)
        if (f[j] != 0) acc.add(j, scale * static_cast<double>(f[j]));
    }
    for (int32_t e = 0; e < im.E; ++e) {
      const int32_t a = im.edge_from[e], b = im.edge_to[e];
      const int d = (im.y[a] != im.y[b] ? 1 : 0) - (im.y_true[a] != im.y_true[b] ? 1 : 0);
      if (d == 0) continue;
      const float* f = im.pairwise + static_cast<size_t>(e) * dP;
      for (int32_t j = 0; j < dP; ++j)
        if (f[j] != 0) acc.add(dU + j, d * static_cast<double>(f[j]));
    }
    double dot = 0.0;
    acc.drain([&](int32_t j, double v) { dot += w[j] * v; });
    dots[q] = dot;
  });
}

}  // namespace gapbcfw
