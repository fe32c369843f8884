// Standalone test of native/pose against brute-force enumeration. No Node headers:
//   g++ -std=c++17 -O2 -Inative native/pose/*.cc native/gdt/gdt.cc native/hog/hog.cc -o test_tree
// The next line names the other folders' sources it links (read by scripts/sanitize.sh):
// link: native/gdt/gdt.cc native/hog/hog.cc
// Exit code 0 on success, 1 on any failure (each failure is printed).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "hog/hog.h"
#include "pose/tree.h"

namespace {

using gapbcfw::BatchItems;
using gapbcfw::pose::DecodeBatch;
using gapbcfw::pose::kCellCentre;
using gapbcfw::pose::PoseBatch;
using gapbcfw::pose::PoseImage;
using gapbcfw::pose::PoseLabels;
using gapbcfw::pose::PoseLevel;
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

// A random tree of parts with types, its springs, biases and the score map of every state.
struct Problem {
  int P, H, W, max_types = 1, states = 0;
  std::vector<int32_t> parents, order, types, first;
  std::vector<Spring> springs;   // per state
  std::vector<double> biases;    // states x max_types
  std::vector<double> maps;      // states x H*W
  Tree tree() const { return {P, parents.data(), order.data(), types.data(), first.data(), max_types, springs.data(), biases.data()}; }
};

// The tree: part p's parent among the parts before it after a random relabelling; 1..max_types types per part
// (types 1 everywhere reproduces the plain pictorial-structures tree). Springs with integer anchors; integer
// scores and biases when `ties` (many equal optima), else continuous ones.
Problem RandomTree(Rng& rng, bool ties, int P, int max_types) {
  Problem q;
  q.P = P;
  std::vector<int32_t> label(q.P);
  for (int p = 0; p < q.P; ++p) label[p] = p;
  for (int p = q.P - 1; p > 0; --p) std::swap(label[p], label[rng.Int(p + 1)]);
  q.parents.assign(q.P, -1);
  for (int p = 1; p < q.P; ++p) q.parents[label[p]] = label[rng.Int(p)];
  for (int p = 0; p < q.P; ++p) q.order.push_back(label[p]);  // parents come first by construction
  for (int p = 0; p < q.P; ++p) {
    q.types.push_back(1 + rng.Int(max_types));
    q.first.push_back(q.states);
    q.states += q.types.back();
    q.max_types = std::max(q.max_types, q.types.back());
  }
  auto value = [&](double scale) { return ties ? static_cast<double>(rng.Int(3)) * scale : rng.Next() * scale; };
  for (int s = 0; s < q.states; ++s) {
    q.springs.push_back({value(1.0), value(2.0) - (ties ? 2.0 : 1.0), value(1.0), value(2.0) - (ties ? 2.0 : 1.0), rng.Int(5) - 2, rng.Int(5) - 2});
  }
  for (int k = 0; k < q.states * q.max_types; ++k) q.biases.push_back(value(2.0) - 1.0);
  return q;
}

void RandomMaps(Rng& rng, bool ties, Problem& q) {
  q.maps.clear();
  for (int k = 0; k < q.states * q.H * q.W; ++k) q.maps.push_back(ties ? static_cast<double>(rng.Int(3)) * 4.0 - 2.0 : rng.Next() * 4.0 - 2.0);
}

// The objective of TreeMaxSum for a labelling (cell and type per part).
double Score(const Problem& q, const std::vector<int>& cell, const std::vector<int>& type) {
  double s = 0;
  for (int p = 0; p < q.P; ++p) {
    const int state = q.first[p] + type[p];
    s += q.maps[static_cast<size_t>(state) * q.H * q.W + cell[p]];
    const int parent = q.parents[p];
    if (parent < 0) continue;
    const Spring& e = q.springs[state];
    const double dx = cell[p] % q.W - cell[parent] % q.W - e.mx, dy = cell[p] / q.W - cell[parent] / q.W - e.my;
    s -= e.ax * dx * dx + e.bx * dx + e.ay * dy * dy + e.by * dy;
    s += q.biases[static_cast<size_t>(state) * q.max_types + type[parent]];
  }
  return s;
}

// Every (cell, type) of every part.
double BruteForce(const Problem& q) {
  const int cells = q.H * q.W;
  std::vector<int> cell(q.P, 0), type(q.P, 0);
  double best = -INFINITY;
  for (;;) {
    best = std::max(best, Score(q, cell, type));
    int p = 0;
    while (p < q.P) {
      if (++cell[p] < cells) break;
      cell[p] = 0;
      if (++type[p] < q.types[p]) break;
      type[p++] = 0;
    }
    if (p == q.P) return best;
  }
}

void TestAgainstBruteForce(int max_types, int problems) {
  Rng rng(7 + max_types);
  TreeWorkspace ws;
  for (int it = 0; it < problems; ++it) {
    const bool ties = it % 2 == 1;
    Problem q = RandomTree(rng, ties, 1 + rng.Int(4), max_types);
    // Keep the enumeration small: shrink the grid until the label space has at most 2^17 labellings.
    q.H = 1 + rng.Int(3);
    q.W = 1 + rng.Int(4);
    for (;;) {
      double space = 1;
      for (int p = 0; p < q.P; ++p) space *= q.H * q.W * q.types[p];
      if (space <= 131072 || q.H * q.W == 1) break;
      if (q.W > 1) --q.W; else --q.H;
    }
    RandomMaps(rng, ties, q);
    std::vector<double> totals = q.maps;
    std::vector<int32_t> x(q.P), y(q.P), t(q.P);
    const double value = TreeMaxSum(totals.data(), q.H, q.W, q.tree(), x.data(), y.data(), t.data(), ws);
    std::vector<int> cell(q.P), type(q.P);
    bool inside = true;
    for (int p = 0; p < q.P; ++p) {
      inside = inside && x[p] >= 0 && x[p] < q.W && y[p] >= 0 && y[p] < q.H && t[p] >= 0 && t[p] < q.types[p];
      cell[p] = y[p] * q.W + x[p];
      type[p] = t[p];
    }
    const std::string where = "problem " + std::to_string(it) + " with up to " + std::to_string(max_types) + " types" + (ties ? " (integer scores)" : "");
    Check(inside, where + ": a part outside the grid or its types");
    if (!inside) continue;
    const double best = BruteForce(q);
    Check(std::fabs(value - best) <= 1e-9 * (1 + std::fabs(best)), where + ": value " + std::to_string(value) + " != max " + std::to_string(best));
    Check(std::fabs(Score(q, cell, type) - best) <= 1e-9 * (1 + std::fabs(best)), where + ": the labelling does not attain the max");
  }
}

// DecodeBatch (filter responses of every state + loss maps on every pyramid level + TreeMaxSum, the best level
// kept, on 2 threads, for a subset of the images in a shuffled order) equals the same steps image by image,
// written here from the definitions in tree.h.
void TestBatchEqualsSequential(int max_types, int levels) {
  Rng rng(11 + max_types * 5 + levels);
  const int dim = 3, k = 3, n = 12;
  Problem q = RandomTree(rng, false, 5, max_types);
  const int P = q.P, joints = 4;
  const std::vector<double> level_scales = levels == 1 ? std::vector<double>{1.0} : std::vector<double>{1.0, 0.75, 1.25};
  std::vector<double> w(static_cast<size_t>(q.states) * k * k * dim);
  for (double& v : w) v = rng.Next() * 2 - 1;
  std::vector<std::vector<std::vector<float>>> feats(n, std::vector<std::vector<float>>(levels));
  std::vector<PoseLevel> level_list(static_cast<size_t>(n) * levels);
  std::vector<PoseImage> images(n);
  std::vector<int32_t> tx(n * P), ty(n * P);
  for (int i = 0; i < n; ++i) {
    for (int l = 0; l < levels; ++l) {
      const int rows = 2 + rng.Int(5), cols = 2 + rng.Int(6);
      feats[i][l].resize(static_cast<size_t>(rows) * cols * dim);
      for (float& v : feats[i][l]) v = static_cast<float>(rng.Next());
      level_list[i * levels + l] = {rows, cols, feats[i][l].data(), nullptr};
    }
    const int truth_level = rng.Int(levels);
    const PoseLevel& at = level_list[i * levels + truth_level];
    for (int p = 0; p < P; ++p) {
      tx[i * P + p] = rng.Int(at.cols);
      ty[i * P + p] = rng.Int(at.rows);
    }
    images[i] = {&level_list[i * levels], &tx[i * P], &ty[i * P], 0.5 + rng.Next() * 2, truth_level};
  }
  const PoseBatch batch{n, images.data(), levels, level_scales.data(), dim, k, joints};
  const std::vector<int32_t> items{7, 2, 11, 0, 5, 3, 9};  // a subset, shuffled
  for (const bool augmented : {false, true}) {
    std::vector<int32_t> bx(n * P, -1), by(n * P, -1), bt(n * P, -1), bl(n, -1);
    DecodeBatch(batch, q.tree(), w.data(), augmented, BatchItems{items.data(), static_cast<int64_t>(items.size())}, PoseLabels{bx.data(), by.data(), bt.data(), bl.data()}, 2);
    TreeWorkspace ws;
    for (int i = 0; i < n; ++i) {
      const bool chosen = std::find(items.begin(), items.end(), i) != items.end();
      if (!chosen) {
        Check(bl[i] == -1 && bx[i * P] == -1, "image " + std::to_string(i) + ": written although not among the items");
        continue;
      }
      double best = -INFINITY;
      std::vector<int32_t> x(P), y(P), t(P), wx(P), wy(P), wt(P);
      int wl = -1;
      for (int l = 0; l < levels; ++l) {
        const PoseLevel& lv = level_list[i * levels + l];
        const size_t cells = static_cast<size_t>(lv.rows) * lv.cols;
        std::vector<double> maps(q.states * cells);
        gapbcfw::hog::FilterResponses(lv.features, lv.rows, lv.cols, dim, w.data(), q.states, k, maps.data());
        if (augmented) {
          const PoseImage& im = images[i];
          const double r = level_scales[l] / level_scales[im.truth_level];
          for (int p = 0; p < joints; ++p) {
            for (int s = q.first[p]; s < q.first[p] + q.types[p]; ++s) {
              for (int row = 0; row < lv.rows; ++row) {
                for (int c = 0; c < lv.cols; ++c) {
                  const double dx = c - ((im.truth_x[p] + kCellCentre) * r - kCellCentre), dy = row - ((im.truth_y[p] + kCellCentre) * r - kCellCentre);
                  maps[s * cells + row * lv.cols + c] += std::min((dx * dx + dy * dy) / (im.truth_scale * r * im.truth_scale * r), 1.0) / joints;
                }
              }
            }
          }
        }
        const double value = TreeMaxSum(maps.data(), lv.rows, lv.cols, q.tree(), x.data(), y.data(), t.data(), ws);
        if (value > best) {
          best = value;
          wx = x, wy = y, wt = t, wl = l;
        }
      }
      bool same = bl[i] == wl;
      for (int p = 0; p < P; ++p) same = same && wx[p] == bx[i * P + p] && wy[p] == by[i * P + p] && wt[p] == bt[i * P + p];
      Check(same, "image " + std::to_string(i) + " (" + std::to_string(levels) + " levels, up to " + std::to_string(max_types) + " types" +
                      (augmented ? ", loss-augmented" : "") + "): batch differs from sequential");
    }
  }
}

// Non-finite scores end in an exception, not a crash or a label outside the grid.
void TestOverflowThrows() {
  Rng rng(3);
  Problem q = RandomTree(rng, false, 3, 2);
  q.H = 2;
  q.W = 3;
  RandomMaps(rng, false, q);
  for (double& v : q.maps) v = -INFINITY;
  std::vector<int32_t> x(q.P), y(q.P), t(q.P);
  TreeWorkspace ws;
  bool threw = false;
  try {
    TreeMaxSum(q.maps.data(), q.H, q.W, q.tree(), x.data(), y.data(), t.data(), ws);
  } catch (const std::domain_error&) {
    threw = true;
  }
  Check(threw, "scores of -inf everywhere: TreeMaxSum must throw std::domain_error");
}

}  // namespace

int main() {
  TestAgainstBruteForce(1, 400);  // one type per part: the plain pictorial-structures tree
  TestAgainstBruteForce(3, 300);
  for (const int max_types : {1, 3}) {
    for (const int levels : {1, 3}) TestBatchEqualsSequential(max_types, levels);
  }
  TestOverflowThrows();
  if (g_failures > 0) {
    std::fprintf(stderr, "pose tree tests: %d of %d checks failed\n", g_failures, g_checks);
    return 1;
  }
  std::printf("pose tree tests: all %d checks passed\n", g_checks);
  return 0;
}
