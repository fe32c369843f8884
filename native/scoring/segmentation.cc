#include "scoring/segmentation.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "common/parallel.h"
#include "scoring/accumulator.h"
#include "scoring/rows.h"

namespace gapbcfw {

int64_t SegmentationBatch::capacities(const double* w, bool augmented, BatchItems items, int32_t threads) const {
  const RowScorer unary_scorer(w, dU, 1);
  const RowScorer pairwise_scorer(w + dU, dP, 1);
  std::atomic<int64_t> clipped{0};
  parallel_for(items.count, threads, [&](int64_t q) {
    thread_local std::vector<double> u;
    const SegmentationBatchImage& im = images[items[q]];
    if (u.size() < static_cast<size_t>(im.N)) u.resize(static_cast<size_t>(im.N));
    unary_scorer.rows(im.unary, 0, im.N, nullptr, nullptr, u.data());
    pairwise_scorer.rows(im.pairwise, 0, im.E, nullptr, nullptr, im.potts);
    for (int32_t i = 0; i < im.N; ++i) {
      double cost0 = -u[i], cost1 = u[i];
      if (augmented) {
        if (im.truth[i]) cost0 -= im.loss_weight[i];
        else cost1 -= im.loss_weight[i];
      }
      // Math.min(cost0, cost1), -0 below +0 as in JavaScript
      const double m = cost0 < cost1 ? cost0 : cost1 < cost0 ? cost1 : std::signbit(cost0) ? cost0 : cost1;
      im.source[i] = cost1 - m;
      im.sink[i] = cost0 - m;
    }
    int64_t c = 0;
    for (int32_t e = 0; e < im.E; ++e) {
      if (im.potts[e] < 0) {
        im.potts[e] = 0;
        ++c;
      }
    }
    if (c > 0) clipped += c;
  });
  return clipped.load();
}

void SegmentationBatch::psi_dots(const double* w, const uint8_t* const* labels, double* dots, BatchItems items, int32_t threads) const {
  const size_t dim = static_cast<size_t>(dU) + dP;
  parallel_for(items.count, threads, [&](int64_t q) {
    thread_local TouchStorage storage;
    TouchAccumulator acc(storage, dim);
    const int64_t k = items[q];
    const SegmentationBatchImage& im = images[k];
    const uint8_t* y = labels[k];
    for (int32_t i = 0; i < im.N; ++i) {
      const int d = static_cast<int>(y[i]) - static_cast<int>(im.truth[i]);
      if (d == 0) continue;
      const float* f = im.unary + static_cast<size_t>(i) * dU;
      const double scale = 2.0 * d;
      for (int32_t j = 0; j < dU; ++j)
        if (f[j] != 0) acc.add(j, scale * static_cast<double>(f[j]));
    }
    for (int32_t e = 0; e < im.E; ++e) {
      const int32_t a = im.edge_from[e], b = im.edge_to[e];
      const int d = (y[a] != y[b] ? 1 : 0) - (im.truth[a] != im.truth[b] ? 1 : 0);
      if (d == 0) continue;
      const float* f = im.pairwise + static_cast<size_t>(e) * dP;
      for (int32_t j = 0; j < dP; ++j)
        if (f[j] != 0) acc.add(dU + j, d * static_cast<double>(f[j]));
    }
    double dot = 0.0;
    acc.drain([&](int32_t j, double v) { dot += w[j] * v; });
    dots[k] = dot;
  });
}

}  // namespace gapbcfw
