#include "slic/slic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gapbcfw {
namespace slic {

namespace {
double Linearise(double c) {
  c /= 255.0;
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
double LabF(double t) {
  constexpr double kEps = 216.0 / 24389.0;
  constexpr double kKappa = 24389.0 / 27.0;
  return t > kEps ? std::cbrt(t) : (kKappa * t + 16.0) / 116.0;
}
}  // namespace

void RgbToLab(double r, double g, double b, double* L, double* A, double* B) {
  const double R = Linearise(r), G = Linearise(g), Bl = Linearise(b);
  const double X = (0.4124564 * R + 0.3575761 * G + 0.1804375 * Bl) / 0.95047;
  const double Y = 0.2126729 * R + 0.7151522 * G + 0.0721750 * Bl;
  const double Z = (0.0193339 * R + 0.1191920 * G + 0.9503041 * Bl) / 1.08883;
  const double fx = LabF(X), fy = LabF(Y), fz = LabF(Z);
  *L = 116.0 * fy - 16.0;
  *A = 500.0 * (fx - fy);
  *B = 200.0 * (fy - fz);
}

int32_t Segment(const uint8_t* pixels, int32_t H, int32_t W, int32_t channels, const Params& params, int32_t* labels) {
  const std::size_t P = static_cast<std::size_t>(H) * static_cast<std::size_t>(W);
  // 1. CIELAB image (grey images: L only, a = b = 0).
  std::vector<double> lab(3 * P);
  for (std::size_t p = 0; p < P; ++p) {
    const uint8_t* px = pixels + p * static_cast<std::size_t>(channels);
    const double r = px[0], g = channels >= 3 ? px[1] : px[0], b = channels >= 3 ? px[2] : px[0];
    RgbToLab(r, g, b, &lab[3 * p], &lab[3 * p + 1], &lab[3 * p + 2]);
  }
  // 2. Grid of centres with step S, moved to the lowest gradient position in their 3x3 neighbourhood.
  const int32_t K = std::max<int32_t>(1, params.numSuperpixels);
  const double S = std::max(1.0, std::sqrt(static_cast<double>(P) / K));
  const int32_t step = std::max<int32_t>(1, static_cast<int32_t>(std::lround(S)));
  auto gradient = [&](int32_t y, int32_t x) {
    const int32_t x0 = std::max(0, x - 1), x1 = std::min(W - 1, x + 1), y0 = std::max(0, y - 1), y1 = std::min(H - 1, y + 1);
    double g = 0;
    for (int c = 0; c < 3; ++c) {
      const double dx = lab[3 * (static_cast<std::size_t>(y) * W + x1) + c] - lab[3 * (static_cast<std::size_t>(y) * W + x0) + c];
      const double dy = lab[3 * (static_cast<std::size_t>(y1) * W + x) + c] - lab[3 * (static_cast<std::size_t>(y0) * W + x) + c];
      g += dx * dx + dy * dy;
    }
    return g;
  };
  struct Centre {
    double l, a, b, y, x;
  };
  auto gridLine = [step](int32_t n) {
    std::vector<int32_t> v;
    for (int32_t c = step / 2; c < n; c += step) v.push_back(c);
    if (v.empty()) v.push_back((n - 1) / 2);
    return v;
  };
  std::vector<Centre> centres;
  for (const int32_t yy : gridLine(H)) {
    for (const int32_t xx : gridLine(W)) {
      int32_t by = yy, bx = xx;
      double best = std::numeric_limits<double>::infinity();
      for (int32_t dy = -1; dy <= 1; ++dy) {
        for (int32_t dx = -1; dx <= 1; ++dx) {
          const int32_t y = yy + dy, x = xx + dx;
          if (y < 0 || y >= H || x < 0 || x >= W) continue;
          const double g = gradient(y, x);
          if (g < best) {
            best = g;
            by = y;
            bx = x;
          }
        }
      }
      const std::size_t p = static_cast<std::size_t>(by) * W + bx;
      centres.push_back({lab[3 * p], lab[3 * p + 1], lab[3 * p + 2], static_cast<double>(by), static_cast<double>(bx)});
    }
  }
  // 3. Local k-means: each centre scans a 2S x 2S window; D^2 = d_lab^2 + (d_xy / S)^2 m^2.
  const double m2s2 = params.compactness * params.compactness / (S * S);
  std::vector<double> dist(P);
  std::vector<int32_t> assign(P, 0);
  const int32_t radius = static_cast<int32_t>(std::ceil(S));
  std::vector<double> sums;
  for (int32_t it = 0; it < std::max(1, params.iterations); ++it) {
    std::fill(dist.begin(), dist.end(), std::numeric_limits<double>::infinity());
    for (std::size_t k = 0; k < centres.size(); ++k) {
      const Centre& c = centres[k];
      const int32_t y0 = std::max(0, static_cast<int32_t>(c.y) - radius), y1 = std::min(H - 1, static_cast<int32_t>(c.y) + radius);
      const int32_t x0 = std::max(0, static_cast<int32_t>(c.x) - radius), x1 = std::min(W - 1, static_cast<int32_t>(c.x) + radius);
      for (int32_t y = y0; y <= y1; ++y) {
        for (int32_t x = x0; x <= x1; ++x) {
          const std::size_t p = static_cast<std::size_t>(y) * W + x;
          const double dl = lab[3 * p] - c.l, da = lab[3 * p + 1] - c.a, db = lab[3 * p + 2] - c.b;
          const double dy = y - c.y, dx = x - c.x;
          const double d = dl * dl + da * da + db * db + (dy * dy + dx * dx) * m2s2;
          if (d < dist[p]) {
            dist[p] = d;
            assign[p] = static_cast<int32_t>(k);
          }
        }
      }
    }
    sums.assign(centres.size() * 6, 0.0);
    for (int32_t y = 0; y < H; ++y) {
      for (int32_t x = 0; x < W; ++x) {
        const std::size_t p = static_cast<std::size_t>(y) * W + x;
        double* s = &sums[6 * static_cast<std::size_t>(assign[p])];
        s[0] += lab[3 * p];
        s[1] += lab[3 * p + 1];
        s[2] += lab[3 * p + 2];
        s[3] += y;
        s[4] += x;
        s[5] += 1;
      }
    }
    for (std::size_t k = 0; k < centres.size(); ++k) {
      const double* s = &sums[6 * k];
      if (s[5] > 0) centres[k] = {s[0] / s[5], s[1] / s[5], s[2] / s[5], s[3] / s[5], s[4] / s[5]};
    }
  }
  // 4. Connectivity: label 4-connected components; a component smaller than minSize joins the label of
  //    a neighbouring, already relabelled component (Achanta et al.'s EnforceLabelConnectivity).
  const std::size_t minSize = static_cast<std::size_t>(std::max(1.0, params.minSizeFactor * S * S));
  std::fill(labels, labels + P, -1);
  std::vector<std::size_t> queue;
  queue.reserve(P);
  int32_t count = 0;
  const int32_t dys[4] = {-1, 0, 1, 0}, dxs[4] = {0, -1, 0, 1};
  for (std::size_t start = 0; start < P; ++start) {
    if (labels[start] >= 0) continue;
    const int32_t sy = static_cast<int32_t>(start / W), sx = static_cast<int32_t>(start % W);
    int32_t adjacent = -1;
    for (int d = 0; d < 4; ++d) {
      const int32_t y = sy + dys[d], x = sx + dxs[d];
      if (y < 0 || y >= H || x < 0 || x >= W) continue;
      const int32_t l = labels[static_cast<std::size_t>(y) * W + x];
      if (l >= 0) adjacent = l;
    }
    queue.clear();
    queue.push_back(start);
    labels[start] = count;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const std::size_t p = queue[q];
      const int32_t py = static_cast<int32_t>(p / W), px = static_cast<int32_t>(p % W);
      for (int d = 0; d < 4; ++d) {
        const int32_t y = py + dys[d], x = px + dxs[d];
        if (y < 0 || y >= H || x < 0 || x >= W) continue;
        const std::size_t n = static_cast<std::size_t>(y) * W + x;
        if (labels[n] < 0 && assign[n] == assign[p]) {
          labels[n] = count;
          queue.push_back(n);
        }
      }
    }
    if (queue.size() < minSize && adjacent >= 0) {
      for (const std::size_t p : queue) labels[p] = adjacent;
    } else {
      ++count;
    }
  }
  return count;
}

}  // namespace slic
}  // namespace gapbcfw
