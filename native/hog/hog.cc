#include "hog/hog.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "scoring/simd.h"

namespace gapbcfw {
namespace hog {

namespace {
// Unit vectors of the 9 orientations 0, 20, ..., 160 degrees (the other 9 are their negatives).
constexpr double kUu[9] = {1.0000, 0.9397, 0.7660, 0.5000, 0.1736, -0.1736, -0.5000, -0.7660, -0.9397};
constexpr double kVv[9] = {0.0000, 0.3420, 0.6428, 0.8660, 0.9848, 0.9848, 0.8660, 0.6428, 0.3420};
constexpr double kEps = 0.0001;

std::size_t Blocks(std::size_t n, std::size_t sbin) {
  return static_cast<std::size_t>(std::lround(static_cast<double>(n) / static_cast<double>(sbin)));
}
}  // namespace

void OutputShape(std::size_t height, std::size_t width, std::size_t sbin, std::size_t* rows, std::size_t* cols) {
  if (sbin == 0) throw std::invalid_argument("hog: sbin must be >= 1");
  const std::size_t by = Blocks(height, sbin), bx = Blocks(width, sbin);
  *rows = by > 2 ? by - 2 : 0;
  *cols = bx > 2 ? bx - 2 : 0;
}

void Compute(const double* image, std::size_t height, std::size_t width, std::size_t channels,
             std::size_t sbin, float* out) {
  if (sbin == 0) throw std::invalid_argument("hog: sbin must be >= 1");
  if (channels < 1 || channels > 4) throw std::invalid_argument("hog: channels must be 1..4");
  std::size_t rows, cols;
  OutputShape(height, width, sbin, &rows, &cols);
  if (rows == 0 || cols == 0 || height < 3 || width < 3) return;
  const std::size_t by = Blocks(height, sbin), bx = Blocks(width, sbin);
  // hist[(cy*bx + cx)*18 + o]
  std::vector<double> hist(by * bx * 18, 0.0), norm(by * bx, 0.0);
  const std::size_t visY = by * sbin, visX = bx * sbin;
  for (std::size_t y = 1; y + 1 < visY; ++y) {
    const std::size_t yy = std::min(y, height - 2);
    for (std::size_t x = 1; x + 1 < visX; ++x) {
      const std::size_t xx = std::min(x, width - 2);
      double bestV = -1, dx = 0, dy = 0;
      for (std::size_t ch = 0; ch < channels; ++ch) {
        const double gx = image[(yy * width + xx + 1) * channels + ch] - image[(yy * width + xx - 1) * channels + ch];
        const double gy = image[((yy + 1) * width + xx) * channels + ch] - image[((yy - 1) * width + xx) * channels + ch];
        const double v = gx * gx + gy * gy;
        if (v > bestV) { bestV = v; dx = gx; dy = gy; }
      }
      // Snap to one of 18 orientations.
      double bestDot = 0;
      int bestO = 0;
      for (int o = 0; o < 9; ++o) {
        const double dot = kUu[o] * dx + kVv[o] * dy;
        if (dot > bestDot) { bestDot = dot; bestO = o; }
        else if (-dot > bestDot) { bestDot = -dot; bestO = o + 9; }
      }
      // Bilinear vote into the four nearest cells.
      const double xp = (static_cast<double>(x) + 0.5) / static_cast<double>(sbin) - 0.5;
      const double yp = (static_cast<double>(y) + 0.5) / static_cast<double>(sbin) - 0.5;
      const long ixp = static_cast<long>(std::floor(xp)), iyp = static_cast<long>(std::floor(yp));
      const double vx0 = xp - ixp, vy0 = yp - iyp, vx1 = 1 - vx0, vy1 = 1 - vy0;
      const double v = std::sqrt(bestV);
      const long BX = static_cast<long>(bx), BY = static_cast<long>(by);
      auto add = [&](long cy, long cx, double wgt) {
        if (cy >= 0 && cx >= 0 && cy < BY && cx < BX) hist[(static_cast<std::size_t>(cy) * bx + static_cast<std::size_t>(cx)) * 18 + bestO] += wgt * v;
      };
      add(iyp, ixp, vx1 * vy1);
      add(iyp, ixp + 1, vx0 * vy1);
      add(iyp + 1, ixp, vx1 * vy0);
      add(iyp + 1, ixp + 1, vx0 * vy0);
    }
  }
  // Gradient energy of each cell (contrast-insensitive).
  for (std::size_t b = 0; b < by * bx; ++b) {
    double s = 0;
    for (int o = 0; o < 9; ++o) {
      const double h = hist[b * 18 + o] + hist[b * 18 + o + 9];
      s += h * h;
    }
    norm[b] = s;
  }
  auto blockNorm = [&](std::size_t cy, std::size_t cx) {  // 2x2 block with top-left cell (cy, cx)
    return 1.0 / std::sqrt(norm[cy * bx + cx] + norm[cy * bx + cx + 1] + norm[(cy + 1) * bx + cx] +
                           norm[(cy + 1) * bx + cx + 1] + kEps);
  };
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) {
      const std::size_t cy = r + 1, cx = c + 1;  // the cell in block coordinates
      const double n1 = blockNorm(cy, cx), n2 = blockNorm(cy, cx - 1), n3 = blockNorm(cy - 1, cx),
                   n4 = blockNorm(cy - 1, cx - 1);
      const double* src = &hist[(cy * bx + cx) * 18];
      float* dst = out + (r * cols + c) * kFeatures;
      double t1 = 0, t2 = 0, t3 = 0, t4 = 0;
      for (int o = 0; o < 18; ++o) {
        const double h1 = std::min(src[o] * n1, 0.2), h2 = std::min(src[o] * n2, 0.2),
                     h3 = std::min(src[o] * n3, 0.2), h4 = std::min(src[o] * n4, 0.2);
        dst[o] = static_cast<float>(0.5 * (h1 + h2 + h3 + h4));
        t1 += h1; t2 += h2; t3 += h3; t4 += h4;
      }
      for (int o = 0; o < 9; ++o) {
        const double s = src[o] + src[o + 9];
        const double h1 = std::min(s * n1, 0.2), h2 = std::min(s * n2, 0.2), h3 = std::min(s * n3, 0.2),
                     h4 = std::min(s * n4, 0.2);
        dst[18 + o] = static_cast<float>(0.5 * (h1 + h2 + h3 + h4));
      }
      dst[27] = static_cast<float>(0.2357 * t1);
      dst[28] = static_cast<float>(0.2357 * t2);
      dst[29] = static_cast<float>(0.2357 * t3);
      dst[30] = static_cast<float>(0.2357 * t4);
    }
  }
}

namespace {

// Register tiles of the filter responses: kTileCells consecutive cells of the padded map times kTileFilters
// filters are accumulated in registers over every tap, so each tap costs one load of the features per
// vector of cells and one broadcast weight per filter, instead of a load and a store of the map.
constexpr long kTileCells = 8;
constexpr std::size_t kTileFilters = 4;

// Vectors of doubles (GCC vector extensions): four for AVX2, two for the baseline x86-64 (SSE2).
typedef double Double4 __attribute__((vector_size(32)));
typedef double Double2 __attribute__((vector_size(16)));

// out_f[q] = sum over taps (i, j, d), in that order, of w_f(i, j, d) * plane_d[q + i*Cp + j - rad] for the NF
// filters f of w (consecutive, filter_len apart) and the cells q0 <= q < q0 + nq of the padded map (nq <=
// kTileCells; the tile reads, but does not store, up to kTileCells - nq cells further). Per cell and filter
// the sum runs in the same order whatever the tiling and the vector width V, so the responses do not
// depend on them.
template <std::size_t NF, typename V>
GAPBCFW_INLINE void FilterTile(const double* planes, std::size_t plane, long Cp, std::size_t dim, long k, const double* w,
                               std::size_t filter_len, long q0, long nq, double* out, std::size_t out_stride) {
  constexpr long L = sizeof(V) / sizeof(double), NV = kTileCells / L;
  V acc[NF][NV] = {};
  const long rad = k / 2;
  for (long i = 0; i < k; ++i) {
    for (long j = 0; j < k; ++j) {
      const double* wt = w + (static_cast<std::size_t>(i) * k + j) * dim;
      const double* xt = planes + q0 + i * Cp + j - rad;
      for (std::size_t d = 0; d < dim; ++d) {
        V x[NV];
        for (long v = 0; v < NV; ++v) std::memcpy(&x[v], xt + d * plane + v * L, sizeof(V));  // unaligned loads
        for (std::size_t f = 0; f < NF; ++f) {
          const double a = wt[f * filter_len + d];
          for (long v = 0; v < NV; ++v) acc[f][v] += a * x[v];
        }
      }
    }
  }
  for (std::size_t f = 0; f < NF; ++f)
    for (long c = 0; c < nq; ++c) out[f * out_stride + q0 + c] = acc[f][c / L][c % L];
}

// The tiles of the cells begin <= q < end, with vectors of V.
template <std::size_t NF, typename V>
GAPBCFW_INLINE void FilterCells(const double* planes, std::size_t plane, long Cp, std::size_t dim, long k, const double* w,
                                std::size_t filter_len, long begin, long end, double* out, std::size_t out_stride) {
  for (long q0 = begin; q0 < end; q0 += kTileCells) FilterTile<NF, V>(planes, plane, Cp, dim, k, w, filter_len, q0, std::min(kTileCells, end - q0), out, out_stride);
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define GAPBCFW_AVX2_TILES 1
template <std::size_t NF>
__attribute__((target("avx2"))) void FilterCellsAvx2(const double* planes, std::size_t plane, long Cp, std::size_t dim, long k, const double* w,
                                                     std::size_t filter_len, long begin, long end, double* out, std::size_t out_stride) {
  FilterCells<NF, Double4>(planes, plane, Cp, dim, k, w, filter_len, begin, end, out, out_stride);
}
#endif

// NF filters at once: AVX2 tiles where the CPU has AVX2 (GCC on x86-64), SSE2 ones otherwise; both compute
// the same sums in the same order (no FMA), so the responses are bit-identical.
template <std::size_t NF>
void FilterBlock(const double* planes, std::size_t plane, long Cp, std::size_t dim, long k, const double* w, std::size_t filter_len,
                 long begin, long end, double* out, std::size_t out_stride) {
#ifdef GAPBCFW_AVX2_TILES
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return FilterCellsAvx2<NF>(planes, plane, Cp, dim, k, w, filter_len, begin, end, out, out_stride);
#endif
  FilterCells<NF, Double2>(planes, plane, Cp, dim, k, w, filter_len, begin, end, out, out_stride);
}

}  // namespace

void FilterResponses(const float* feat, std::size_t rows, std::size_t cols, std::size_t dim, const double* w,
                     std::size_t numFilters, std::size_t k, double* out) {
  if (k % 2 == 0) throw std::invalid_argument("FilterResponses: k must be odd");
  // The features as dim zero-bordered planes of (rows + 2 rad) x (cols + 2 rad) doubles (channel-major), so
  // that every tap of a filter reads the padded map at a fixed shift; kTileCells zeros after the last plane
  // for the reads of the last tile.
  const std::size_t rad = k / 2, Cp = cols + 2 * rad, plane = (rows + 2 * rad) * Cp;
  thread_local std::vector<double> planes, acc;
  planes.assign(dim * plane + kTileCells, 0.0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      for (std::size_t d = 0; d < dim; ++d)
        planes[d * plane + (r + rad) * Cp + c + rad] = static_cast<double>(feat[(r * cols + c) * dim + d]);
  // Responses at the padded positions q = r*Cp + c + rad, rad <= q < rows*Cp - rad (border columns included
  // and dropped below), kTileFilters filters at a time.
  const std::size_t stride = rows * Cp, filter_len = k * k * dim;
  acc.resize(kTileFilters * stride);
  const long begin = static_cast<long>(rad), end = static_cast<long>(rows * Cp - rad);
  for (std::size_t f = 0; f < numFilters; f += kTileFilters) {
    const std::size_t nf = std::min(kTileFilters, numFilters - f);
    const double* wf = w + f * filter_len;
    const long kk = static_cast<long>(k), cp = static_cast<long>(Cp);
    switch (nf) {
      case 4: FilterBlock<4>(planes.data(), plane, cp, dim, kk, wf, filter_len, begin, end, acc.data(), stride); break;
      case 3: FilterBlock<3>(planes.data(), plane, cp, dim, kk, wf, filter_len, begin, end, acc.data(), stride); break;
      case 2: FilterBlock<2>(planes.data(), plane, cp, dim, kk, wf, filter_len, begin, end, acc.data(), stride); break;
      default: FilterBlock<1>(planes.data(), plane, cp, dim, kk, wf, filter_len, begin, end, acc.data(), stride); break;
    }
    for (std::size_t g = 0; g < nf; ++g) {
      double* map = out + (f + g) * rows * cols;
      for (std::size_t r = 0; r < rows; ++r) std::copy_n(acc.data() + g * stride + r * Cp + rad, cols, map + r * cols);
    }
  }
}

}  // namespace hog
}  // namespace gapbcfw
