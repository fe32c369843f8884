// Standalone test of native/pose against brute-force enumeration. No Node headers:
//   g++ -std=c++17 -O2 -Inative native/pose/*.cc native/gdt/gdt.cc native/hog/hog.cc -o test_tree
// The next line names the other folders' sources it links (read by scripts/sanitize.sh):
// link: native/gdt/gdt.cc native/hog/hog.cc
// Exit code 0 on success, 1 on any failure (each failure is printed).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "hog/hog.h"
#include "pose/tree.h"

namespace {

using gapbcfw::pose::DecodeBatch;
using gapbcfw::pose::PoseBatch;
using gapbcfw::pose::Spring;
using gapbcfw::pose::Tree;
using gapbcfw::pose::TreeMaxSum;
using gapbcfw::pose::TreeWorkspace;

int g_failures = 0;
int g_checks = 0;

void Check(bool ok, const std::string& msg) {
  ++g_checks;
  if (ok) return;
  if (g_failures < 30) std::fprintf(stderr, "FAIL: %s\n", msg.c_str());
  ++g_failures;
}

// mulberry32, as in the TypeScript tests.
struct Rng {
  uint32_t s;
  explicit Rng(uint32_t seed) : s(seed) {}
  double Next() {
    s += 0x6D2B79F5u;
    uint32_t t = s;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }
  int Int(int n) { return static_cast<int>(Next() * n); }
};

struct Problem {
  int P, H, W;
  std::vector<int32_t> parents, order;
  std::vector<Spring> springs;
  std::vector<double> maps;  // P x H*W
};

// A random tree (parent of part p among parts 0..p-1 after a random relabelling), springs with integer
// mean offsets; integer scores when `ties` (many equal optima), else continuous ones.
Problem RandomProblem(Rng& rng, bool ties) {
  Problem q;
  q.P = 1 + rng.Int(4);
  q.H = 1 + rng.Int(3);
  q.W = 1 + rng.Int(4);
  std::vector<int32_t> label(q.P);
  for (int p = 0; p < q.P; ++p) label[p] = p;
  for (int p = q.P - 1; p > 0; --p) std::swap(label[p], label[rng.Int(p + 1)]);
  q.parents.assign(q.P, -1);
  for (int p = 1; p < q.P; ++p) q.parents[label[p]] = label[rng.Int(p)];
  for (int p = 0; p < q.P; ++p) q.order.push_back(label[p]);  // parents come first by construction
  auto value = [&](double scale) { return ties ? static_cast<double>(rng.Int(3)) * scale : rng.Next() * scale; };
  for (int p = 0; p < q.P; ++p) {
    q.springs.push_back({value(1.0), value(2.0) - (ties ? 2.0 : 1.0), value(1.0), value(2.0) - (ties ? 2.0 : 1.0),
                         rng.Int(5) - 2, rng.Int(5) - 2});
  }
  for (int k = 0; k < q.P * q.H * q.W; ++k) q.maps.push_back(value(4.0) - 2.0);
  return q;
}

// The objective of TreeMaxSum for a labelling (cells per part).
double Score(const Problem& q, const std::vector<int>& cell) {
  double s = 0;
  for (int p = 0; p < q.P; ++p) {
    s += q.maps[static_cast<size_t>(p) * q.H * q.W + cell[p]];
    const int parent = q.parents[p];
    if (parent < 0) continue;
    const Spring& e = q.springs[p];
    const double dx = cell[p] % q.W - cell[parent] % q.W - e.mx, dy = cell[p] / q.W - cell[parent] / q.W - e.my;
    s -= e.ax * dx * dx + e.bx * dx + e.ay * dy * dy + e.by * dy;
  }
  return s;
}

double BruteForce(const Problem& q) {
  const int cells = q.H * q.W;
  std::vector<int> cell(q.P, 0);
  double best = -INFINITY;
  for (;;) {
    best = std::max(best, Score(q, cell));
    int p = 0;
    while (p < q.P && ++cell[p] == cells) cell[p++] = 0;
    if (p == q.P) return best;
  }
}

void TestAgainstBruteForce() {
  Rng rng(7);
  TreeWorkspace ws;
  for (int it = 0; it < 400; ++it) {
    const bool ties = it % 2 == 1;
    const Problem q = RandomProblem(rng, ties);
    std::vector<double> totals = q.maps;
    std::vector<int32_t> x(q.P), y(q.P);
    const Tree tree{q.P, q.parents.data(), q.order.data(), q.springs.data()};
    const double value = TreeMaxSum(totals.data(), q.H, q.W, tree, x.data(), y.data(), ws);
    std::vector<int> cell(q.P);
    bool inside = true;
    for (int p = 0; p < q.P; ++p) {
      inside = inside && x[p] >= 0 && x[p] < q.W && y[p] >= 0 && y[p] < q.H;
      cell[p] = y[p] * q.W + x[p];
    }
    const std::string where = "problem " + std::to_string(it) + (ties ? " (integer scores)" : "");
    Check(inside, where + ": a part outside the grid");
    if (!inside) continue;
    const double best = BruteForce(q);
    Check(std::fabs(value - best) <= 1e-9 * (1 + std::fabs(best)), where + ": value " + std::to_string(value) + " != max " + std::to_string(best));
    Check(std::fabs(Score(q, cell) - best) <= 1e-9 * (1 + std::fabs(best)), where + ": the labelling does not attain the max");
  }
}

// DecodeBatch (filter responses + loss maps + TreeMaxSum on 2 threads) equals the same steps image by image.
void TestBatchEqualsSequential() {
  Rng rng(11);
  const int P = 4, dim = 3, k = 3, n = 12;
  const std::vector<int32_t> parents{-1, 0, 0, 1}, order{0, 1, 2, 3};
  std::vector<Spring> springs;
  for (int p = 0; p < P; ++p) springs.push_back({rng.Next(), rng.Next() - 0.5, rng.Next(), rng.Next() - 0.5, rng.Int(3) - 1, rng.Int(3) - 1});
  std::vector<double> w(static_cast<size_t>(P) * k * k * dim);
  for (double& v : w) v = rng.Next() * 2 - 1;
  std::vector<std::vector<float>> feats(n);
  std::vector<const float*> ptrs(n);
  std::vector<int32_t> rows(n), cols(n), tx(n * P), ty(n * P);
  std::vector<double> scale(n);
  for (int i = 0; i < n; ++i) {
    rows[i] = 2 + rng.Int(5);
    cols[i] = 2 + rng.Int(6);
    feats[i].resize(static_cast<size_t>(rows[i]) * cols[i] * dim);
    for (float& v : feats[i]) v = static_cast<float>(rng.Next());
    ptrs[i] = feats[i].data();
    for (int p = 0; p < P; ++p) {
      tx[i * P + p] = rng.Int(cols[i]);
      ty[i * P + p] = rng.Int(rows[i]);
    }
    scale[i] = 0.5 + rng.Next() * 2;
  }
  const Tree tree{P, parents.data(), order.data(), springs.data()};
  for (const bool augmented : {false, true}) {
    PoseBatch batch{};
    batch.n = n;
    batch.features = ptrs.data();
    batch.rows = rows.data();
    batch.cols = cols.data();
    batch.dim = dim;
    batch.w = w.data();
    batch.filter_size = k;
    if (augmented) {
      batch.truth_x = tx.data();
      batch.truth_y = ty.data();
      batch.truth_scale = scale.data();
    }
    std::vector<int32_t> bx(n * P), by(n * P);
    DecodeBatch(batch, tree, bx.data(), by.data(), 2);
    TreeWorkspace ws;
    for (int i = 0; i < n; ++i) {
      const size_t cells = static_cast<size_t>(rows[i]) * cols[i];
      std::vector<double> maps(P * cells);
      gapbcfw::hog::FilterResponses(ptrs[i], rows[i], cols[i], dim, w.data(), P, k, maps.data());
      if (augmented) {
        for (int p = 0; p < P; ++p)
          for (int r = 0; r < rows[i]; ++r)
            for (int c = 0; c < cols[i]; ++c) {
              const double dx = c - tx[i * P + p], dy = r - ty[i * P + p];
              maps[p * cells + r * cols[i] + c] += std::min((dx * dx + dy * dy) / (scale[i] * scale[i]), 1.0) / P;
            }
      }
      std::vector<int32_t> x(P), y(P);
      TreeMaxSum(maps.data(), rows[i], cols[i], tree, x.data(), y.data(), ws);
      bool same = true;
      for (int p = 0; p < P; ++p) same = same && x[p] == bx[i * P + p] && y[p] == by[i * P + p];
      Check(same, "image " + std::to_string(i) + (augmented ? " (loss-augmented)" : "") + ": batch differs from sequential");
    }
  }
}

}  // namespace

int main() {
  TestAgainstBruteForce();
  TestBatchEqualsSequential();
  if (g_failures > 0) {
    std::fprintf(stderr, "pose tree tests: %d of %d checks failed\n", g_failures, g_checks);
    return 1;
  }
  std::printf("pose tree tests: all %d checks passed\n", g_checks);
  return 0;
}
