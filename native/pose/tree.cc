#include "pose/tree.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <limits>
#include <stdexcept>

#include "hog/hog.h"
#include "common/parallel.h"

namespace gapbcfw {
namespace pose {

double TreeMaxSum(double* totals, int32_t H, int32_t W, const Tree& tree, int32_t* out_x, int32_t* out_y,
                  TreeWorkspace& ws) {
  const int32_t P = tree.parts;
  const size_t cells = static_cast<size_t>(H) * W;
  if (ws.back.size() < static_cast<size_t>(P) * cells) ws.back.resize(static_cast<size_t>(P) * cells);
  // Leaves to root: the message of child c to its parent q is a GDT of c's total, evaluated at
  // parent + mean offset, on a grid padded by |m| with -inf so that shifted cells outside the grid stay exact.
  for (int32_t k = P - 1; k >= 1; --k) {
    const int32_t c = tree.order[k];
    const int32_t q = tree.parents[c];
    const Spring& e = tree.springs[c];
    const int32_t loX = std::min(0, e.mx), loY = std::min(0, e.my);
    const int32_t We = W + std::abs(e.mx), He = H + std::abs(e.my);
    const size_t padded = static_cast<size_t>(He) * We;
    if (ws.padded.size() < padded) {
      ws.padded.resize(padded);
      ws.argmax.resize(padded);
    }
    double* f = ws.padded.data();
    std::fill(f, f + padded, -std::numeric_limits<double>::infinity());
    const double* src = totals + static_cast<size_t>(c) * cells;
    for (int32_t r = 0; r < H; ++r)
      std::copy(src + static_cast<size_t>(r) * W, src + static_cast<size_t>(r + 1) * W,
                f + static_cast<size_t>(r - loY) * We - loX);
    // D(u) = max_z f(z) - a (u - z)^2 - b (u - z) with u = parent + m: the spring's b enters negated.
    gdt::Transform2d(f, He, We, e.ay, -e.by, e.ax, -e.bx, f, ws.argmax.data(), ws.gdt);
    double* tq = totals + static_cast<size_t>(q) * cells;
    int32_t* arg = ws.back.data() + static_cast<size_t>(c) * cells;
    for (int32_t py = 0; py < H; ++py) {
      const int32_t ey = py + e.my - loY;
      for (int32_t px = 0; px < W; ++px) {
        const size_t j = static_cast<size_t>(ey) * We + (px + e.mx - loX);
        const size_t cell = static_cast<size_t>(py) * W + px;
        tq[cell] = tq[cell] + f[j];
        const int32_t a = ws.argmax[j];
        // No maximiser: the scores overflowed to infinities or NaN (finite inputs can still overflow).
        if (a < 0) throw std::domain_error("tree max-sum: the part scores are not finite (overflow in w x features?)");
        arg[cell] = (a / We + loY) * W + (a % We + loX);
      }
    }
  }
  const int32_t root = tree.order[0];
  const double* tr = totals + static_cast<size_t>(root) * cells;
  size_t best = 0;
  for (size_t j = 1; j < cells; ++j)
    if (tr[j] > tr[best]) best = j;
  std::vector<int32_t>& cell = ws.path;
  if (cell.size() < static_cast<size_t>(P)) cell.resize(P);
  cell[root] = static_cast<int32_t>(best);
  for (int32_t k = 1; k < P; ++k) {
    const int32_t c = tree.order[k];
    cell[c] = ws.back[static_cast<size_t>(c) * cells + cell[tree.parents[c]]];
  }
  for (int32_t p = 0; p < P; ++p) {
    out_x[p] = cell[p] % W;
    out_y[p] = cell[p] / W;
  }
  return tr[best];
}

void DecodeBatch(const PoseBatch& b, const Tree& tree, int32_t* out_x, int32_t* out_y, int32_t threads) {
  const int32_t P = tree.parts;
  parallel_for(b.n, threads, [&](int64_t i) {
    thread_local std::vector<double> maps;
    thread_local TreeWorkspace ws;
    const int32_t H = b.rows[i], W = b.cols[i];
    const size_t cells = static_cast<size_t>(H) * W;
    if (maps.size() < static_cast<size_t>(P) * cells) maps.resize(static_cast<size_t>(P) * cells);
    double* m = maps.data();
    if (b.maps != nullptr) {
      std::copy(b.maps[i], b.maps[i] + static_cast<size_t>(P) * cells, m);
    } else {
      hog::FilterResponses(b.features[i], H, W, b.dim, b.w, P, b.filter_size, m);
    }
    if (b.truth_x != nullptr) {
      // Loss augmentation (normalised, truncated squared distance), as PoseModel.addLossMap.
      const double s2 = b.truth_scale[i] * b.truth_scale[i];
      for (int32_t p = 0; p < P; ++p) {
        const int32_t tx = b.truth_x[i * P + p], ty = b.truth_y[i * P + p];
        double* map = m + static_cast<size_t>(p) * cells;
        for (int32_t r = 0; r < H; ++r) {
          for (int32_t c = 0; c < W; ++c) {
            const double dx = c - tx, dy = r - ty;
            const double d2 = dx * dx + dy * dy;
            map[static_cast<size_t>(r) * W + c] = map[static_cast<size_t>(r) * W + c] + std::min(d2 / s2, 1.0) / P;
          }
        }
      }
    }
    // Finite inputs can still overflow (huge w): refuse scores that are not finite rather than decode them.
    for (size_t q = 0; q < static_cast<size_t>(P) * cells; ++q) {
      if (!std::isfinite(m[q])) throw std::domain_error("image " + std::to_string(i) + ": the part scores are not finite (w x features overflowed)");
    }
    TreeMaxSum(m, H, W, tree, out_x + i * P, out_y + i * P, ws);
  });
}

}  // namespace pose
}  // namespace gapbcfw
