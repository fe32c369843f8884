#include "scoring/segmentation.h"

#include <vector>

#include "scoring/parallel.h"

namespace gapbcfw {

void segmentation_psi_dots(const SegmentationImage* images, int32_t n, int32_t dU, int32_t dP, const double* w, double* dots,
                           int32_t threads) {
  const size_t dim = static_cast<size_t>(dU) + dP;
  parallel_for(n, threads, [&](int64_t q) {
    thread_local std::vector<double> acc_store;
    thread_local std::vector<uint8_t> touched_store;
    thread_local std::vector<int32_t> order_store;
    if (acc_store.size() < dim) {
      acc_store.assign(dim, 0.0);
      touched_store.assign(dim, 0);
      order_store.resize(dim);
    }
    // Plain pointers: a thread_local vector is reached through a TLS wrapper call on every use.
    double* acc = acc_store.data();
    uint8_t* touched = touched_store.data();
    int32_t* order = order_store.data();
    int32_t count = 0;
    auto add = [&](int32_t j, double v) {
      if (!touched[j]) {
        touched[j] = 1;
        order[count++] = j;
      }
      acc[j] += v;
    };
    const SegmentationImage& im = images[q];
    for (int32_t i = 0; i < im.N; ++i) {
      const int d = static_cast<int>(im.y[i]) - static_cast<int>(im.y_true[i]);
      if (d == 0) continue;
      const float* f = im.unary + static_cast<size_t>(i) * dU;
      const double scale = 2.0 * d;
      for (int32_t j = 0; j < dU; ++j)
        if (f[j] != 0) add(j, scale * static_cast<double>(f[j]));
    }
    for (int32_t e = 0; e < im.E; ++e) {
      const int32_t a = im.edge_from[e], b = im.edge_to[e];
      const int d = (im.y[a] != im.y[b] ? 1 : 0) - (im.y_true[a] != im.y_true[b] ? 1 : 0);
      if (d == 0) continue;
      const float* f = im.pairwise + static_cast<size_t>(e) * dP;
      for (int32_t j = 0; j < dP; ++j)
        if (f[j] != 0) add(dU + j, d * static_cast<double>(f[j]));
    }
    double dot = 0.0;
    for (int32_t k = 0; k < count; ++k) {
      const int32_t j = order[k];
      const double v = acc[j];
      acc[j] = 0.0;
      touched[j] = 0;
      if (v != 0.0) dot += w[j] * v;
    }
    dots[q] = dot;
  });
}

}  // namespace gapbcfw
