#include "pose/tree.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/parallel.h"
#include "hog/hog.h"

namespace gapbcfw {
namespace pose {

namespace {

template <typename T>
T* Grow(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

// message[u] = max_z f(z) - spring(z - u - m) of one child state at every parent cell u, and its argmax cell:
// a GDT on the child's map padded by |m| with -inf, so that parents shifted outside the grid stay exact.
void SpringMessage(const double* child, int32_t H, int32_t W, const Spring& e, double* message, int32_t* message_cell, TreeWorkspace& ws) {
  const int32_t loX = std::min(0, e.mx), loY = std::min(0, e.my);
  const int32_t We = W + std::abs(e.mx), He = H + std::abs(e.my);
  const size_t padded = static_cast<size_t>(He) * We;
  double* f = Grow(ws.padded, padded);
  int32_t* argmax = Grow(ws.argmax, padded);
  std::fill(f, f + padded, -std::numeric_limits<double>::infinity());
  for (int32_t r = 0; r < H; ++r)
    std::copy(child + static_cast<size_t>(r) * W, child + static_cast<size_t>(r + 1) * W, f + static_cast<size_t>(r - loY) * We - loX);
  // D(u) = max_z f(z) - a (u - z)^2 - b (u - z) with u = parent + m: the spring's b enters negated.
  gdt::Transform2d(f, He, We, e.ay, -e.by, e.ax, -e.bx, f, argmax, ws.gdt);
  for (int32_t py = 0; py < H; ++py) {
    const int32_t ey = py + e.my - loY;
    for (int32_t px = 0; px < W; ++px) {
      const size_t j = static_cast<size_t>(ey) * We + (px + e.mx - loX);
      const size_t cell = static_cast<size_t>(py) * W + px;
      message[cell] = f[j];
      const int32_t a = argmax[j];
      // No maximiser: the scores overflowed to infinities or NaN (finite inputs can still overflow).
      if (a < 0) throw std::domain_error("tree max-sum: the part scores are not finite (overflow in w x features?)");
      message_cell[cell] = (a / We + loY) * W + (a % We + loX);
    }
  }
}

}  // namespace

double TreeMaxSum(double* totals, int32_t H, int32_t W, const Tree& tree, int32_t* out_x, int32_t* out_y, int32_t* out_type,
                  TreeWorkspace& ws) {
  const int32_t P = tree.parts;
  const size_t cells = static_cast<size_t>(H) * W;
  int64_t* back_first = Grow(ws.back_first, static_cast<size_t>(P));
  int64_t rows = 0;
  for (int32_t p = 0; p < P; ++p) {
    back_first[p] = rows;
    if (tree.parents[p] >= 0) rows += tree.types[tree.parents[p]];
  }
  int32_t* back_cell = Grow(ws.back_cell, static_cast<size_t>(rows) * cells);
  int32_t* back_type = Grow(ws.back_type, static_cast<size_t>(rows) * cells);
  double* message = Grow(ws.message, static_cast<size_t>(tree.max_types) * cells);
  int32_t* message_cell = Grow(ws.message_cell, static_cast<size_t>(tree.max_types) * cells);
  // Leaves to root. The message of child c to parent state (q, t_q) at cell u is
  //   max_{t_c} [bias(c, t_c, t_q) + max_z total_{c, t_c}(z) - spring_{c, t_c}(z - u)]:
  // one GDT per child type, then the best child type per parent type and cell.
  for (int32_t k = P - 1; k >= 1; --k) {
    const int32_t c = tree.order[k];
    const int32_t q = tree.parents[c];
    const int32_t Kc = tree.types[c], Kq = tree.types[q];
    for (int32_t tc = 0; tc < Kc; ++tc) {
      const int32_t s = tree.first[c] + tc;
      SpringMessage(totals + static_cast<size_t>(s) * cells, H, W, tree.springs[s], message + tc * cells, message_cell + tc * cells, ws);
    }
    for (int32_t tq = 0; tq < Kq; ++tq) {
      double* tq_map = totals + static_cast<size_t>(tree.first[q] + tq) * cells;
      int32_t* bc = back_cell + static_cast<size_t>(back_first[c] + tq) * cells;
      int32_t* bt = back_type + static_cast<size_t>(back_first[c] + tq) * cells;
      const double* bias = tree.biases + static_cast<size_t>(tree.first[c]) * tree.max_types + tq;
      for (size_t u = 0; u < cells; ++u) {
        double best = message[u] + bias[0];
        int32_t arg = 0;
        for (int32_t tc = 1; tc < Kc; ++tc) {
          const double v = message[tc * cells + u] + bias[static_cast<size_t>(tc) * tree.max_types];
          if (v > best) {
            best = v;
            arg = tc;
          }
        }
        tq_map[u] = tq_map[u] + best;
        bc[u] = message_cell[arg * cells + u];
        bt[u] = arg;
      }
    }
  }
  const int32_t root = tree.order[0];
  const double* tr = totals + static_cast<size_t>(tree.first[root]) * cells;
  size_t best = 0;
  for (size_t j = 1; j < static_cast<size_t>(tree.types[root]) * cells; ++j)
    if (tr[j] > tr[best]) best = j;
  int32_t* cell = Grow(ws.path_cell, static_cast<size_t>(P));
  int32_t* type = Grow(ws.path_type, static_cast<size_t>(P));
  cell[root] = static_cast<int32_t>(best % cells);
  type[root] = static_cast<int32_t>(best / cells);
  for (int32_t k = 1; k < P; ++k) {
    const int32_t c = tree.order[k];
    const int32_t q = tree.parents[c];
    const size_t at = static_cast<size_t>(back_first[c] + type[q]) * cells + cell[q];
    cell[c] = back_cell[at];
    type[c] = back_type[at];
  }
  for (int32_t p = 0; p < P; ++p) {
    out_x[p] = cell[p] % W;
    out_y[p] = cell[p] / W;
    out_type[p] = type[p];
  }
  return tr[best];
}

void DecodeBatch(const PoseBatch& b, const Tree& tree, const double* w, bool augmented, BatchItems items, const PoseLabels& out,
                 int32_t threads) {
  const int32_t P = tree.parts;
  const int32_t states = tree.first[P - 1] + tree.types[P - 1];
  // The largest images first (longest-processing-time order), so that the threads finish close together. Each
  // image is decoded on its own: the order changes no result.
  std::vector<std::pair<int64_t, int64_t>> order;  // (-cells, image), sorted
  order.reserve(static_cast<size_t>(items.count));
  for (int64_t q = 0; q < items.count; ++q) {
    int64_t cells = 0;
    for (int32_t l = 0; l < b.levels; ++l) cells += int64_t{b.images[items[q]].levels[l].rows} * b.images[items[q]].levels[l].cols;
    order.emplace_back(-cells, items[q]);
  }
  std::sort(order.begin(), order.end());
  parallel_for(items.count, threads, [&](int64_t k) {
    thread_local std::vector<double> maps;
    thread_local std::vector<int32_t> label;  // x, y, type of one level's argmax
    thread_local TreeWorkspace ws;
    const int64_t i = order[k].second;
    const PoseImage& image = b.images[i];
    int32_t* lx = Grow(label, 3 * static_cast<size_t>(P));
    int32_t* ly = lx + P;
    int32_t* lt = ly + P;
    double best = -std::numeric_limits<double>::infinity();
    for (int32_t l = 0; l < b.levels; ++l) {
      const PoseLevel& level = image.levels[l];
      const int32_t H = level.rows, W = level.cols;
      const size_t cells = static_cast<size_t>(H) * W;
      double* m = Grow(maps, static_cast<size_t>(states) * cells);
      if (level.maps != nullptr) {
        std::copy(level.maps, level.maps + static_cast<size_t>(states) * cells, m);
      } else {
        hog::FilterResponses(level.features, H, W, b.dim, w, states, b.filter_size, m);
      }
      if (augmented) {
        // Loss augmentation: the truncated squared distance to the truth mapped onto this level (PoseModel.loss).
        const double r = b.level_scales[l] / b.level_scales[image.truth_level];
        const double s = image.truth_scale * r;
        const double s2 = s * s;
        for (int32_t p = 0; p < b.joints; ++p) {
          const double tx = (image.truth_x[p] + kCellCentre) * r - kCellCentre;
          const double ty = (image.truth_y[p] + kCellCentre) * r - kCellCentre;
          for (int32_t t = 0; t < tree.types[p]; ++t) {
            double* map = m + static_cast<size_t>(tree.first[p] + t) * cells;
            for (int32_t row = 0; row < H; ++row) {
              for (int32_t col = 0; col < W; ++col) {
                const double dx = col - tx, dy = row - ty;
                const double d2 = dx * dx + dy * dy;
                map[static_cast<size_t>(row) * W + col] = map[static_cast<size_t>(row) * W + col] + std::min(d2 / s2, 1.0) / b.joints;
              }
            }
          }
        }
      }
      // Finite inputs can still overflow (huge w): refuse scores that are not finite rather than decode them.
      for (size_t j = 0; j < static_cast<size_t>(states) * cells; ++j) {
        if (!std::isfinite(m[j])) throw std::domain_error("image " + std::to_string(i) + ": the part scores are not finite (w x features overflowed)");
      }
      const double value = TreeMaxSum(m, H, W, tree, lx, ly, lt, ws);
      if (l > 0 && !(value > best)) continue;
      best = value;
      std::copy(lx, lx + P, out.x + i * P);
      std::copy(ly, ly + P, out.y + i * P);
      std::copy(lt, lt + P, out.type + i * P);
      out.level[i] = l;
    }
  });
}

}  // namespace pose
}  // namespace gapbcfw
