#include "hog/hog.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

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

void FilterResponses(const float* feat, std::size_t rows, std::size_t cols, std::size_t dim, const double* w,
                     std::size_t numFilters, std::size_t k, double* out) {
  if (k % 2 == 0) throw std::invalid_argument("FilterResponses: k must be odd");
  const long rad = static_cast<long>(k / 2);
  const long R = static_cast<long>(rows), C = static_cast<long>(cols);
  for (std::size_t f = 0; f < numFilters; ++f) {
    double* map = out + f * rows * cols;
    std::fill(map, map + rows * cols, 0.0);
    for (long i = 0; i < static_cast<long>(k); ++i) {
      const long di = i - rad;
      const long r0 = std::max(0L, -di), r1 = std::min(R, R - di);
      for (long j = 0; j < static_cast<long>(k); ++j) {
        const long dj = j - rad;
        const long c0 = std::max(0L, -dj), c1 = std::min(C, C - dj);
        const double* wt = w + f * k * k * dim + (static_cast<std::size_t>(i) * k + static_cast<std::size_t>(j)) * dim;
        for (long r = r0; r < r1; ++r) {
          for (long c = c0; c < c1; ++c) {
            const float* x = feat + (static_cast<std::size_t>(r + di) * cols + static_cast<std::size_t>(c + dj)) * dim;
            double s = 0;
#pragma omp simd reduction(+ : s)
            for (std::size_t d = 0; d < dim; ++d) s += wt[d] * static_cast<double>(x[d]);
            map[r * C + c] += s;
          }
        }
      }
    }
  }
}

}  // namespace hog
}  // namespace gapbcfw
