// Standalone test of native/graph (no Node headers): on random tiny MRFs, the exact routines (tree DP on forests,
// the binary cut on submodular tables, exhaustive search) match brute-force enumeration, alpha-expansion ends where
// no expansion move improves, and the LP routine's bound is never below the optimum nor its labelling above it.
// Build: g++ -std=c++17 -O2 -I native native/graph/test_graph.cc native/graph/mrf.cc native/graph/cuts.cc
// native/graph/lp.cc native/maxflow/flow_graph.cc; prints "all N checks passed" (test/native-core.test.ts runs it).
// link: native/maxflow/flow_graph.cc
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "graph/mrf.h"

namespace g = gapbcfw::graph;

namespace {

int checks = 0, failures = 0;

void expect(bool ok, const char* what, int trial) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAILED (trial %d): %s\n", trial, what);
  }
}

struct Instance {
  int N, K;
  std::vector<int32_t> u, v;
  std::vector<double> unary, tables;
  g::Mrf mrf() const {
    g::Mrf m;
    m.num_nodes = N;
    m.num_labels = K;
    m.num_edges = static_cast<int32_t>(u.size());
    m.edge_u = u.data();
    m.edge_v = v.data();
    m.unary = unary.data();
    m.tables = tables.data();
    return m;
  }
};

double brute_max(const g::Mrf& m) {
  std::vector<int32_t> y(m.num_nodes, 0);
  double best = -INFINITY;
  for (;;) {
    best = std::max(best, g::score_of(m, y.data()));
    int i = 0;
    while (i < m.num_nodes && ++y[i] == m.num_labels) y[i++] = 0;
    if (i == m.num_nodes) return best;
  }
}

Instance random_instance(std::mt19937& rng, bool tree, int K, bool submodular) {
  std::uniform_real_distribution<double> U(-1, 1);
  Instance a;
  a.N = 2 + static_cast<int>(rng() % 6);
  a.K = K;
  for (int i = 1; i < a.N; ++i) {
    a.u.push_back(static_cast<int32_t>(rng() % i));
    a.v.push_back(i);
  }
  if (!tree) {
    for (int extra = 0; extra < 3; ++extra) {
      const int32_t p = static_cast<int32_t>(rng() % a.N), q = static_cast<int32_t>(rng() % a.N);
      bool seen = p == q;
      for (size_t e = 0; e < a.u.size(); ++e) seen = seen || (a.u[e] == p && a.v[e] == q) || (a.u[e] == q && a.v[e] == p);
      if (!seen) {
        a.u.push_back(p);
        a.v.push_back(q);
      }
    }
  }
  for (int k = 0; k < a.N * K; ++k) a.unary.push_back(U(rng));
  for (size_t e = 0; e < a.u.size(); ++e) {
    for (int k = 0; k < K * K; ++k) a.tables.push_back(U(rng));
    if (submodular) {  // K = 2: raise agreement until t00 + t11 >= t01 + t10
      double* t = &a.tables[a.tables.size() - 4];
      const double excess = t[0] + t[3] - t[1] - t[2];
      if (excess < 0) t[0] -= excess;
    }
  }
  return a;
}

}  // namespace

int main() {
  std::mt19937 rng(7);
  g::Workspace ws;
  for (int trial = 0; trial < 200; ++trial) {
    const int K = 2 + static_cast<int>(rng() % 3);
    const Instance forest = random_instance(rng, true, K, false);
    std::vector<int32_t> y(forest.N);
    const g::Mrf tm = forest.mrf();
    expect(g::tree_max(tm, y.data(), ws) && std::fabs(g::score_of(tm, y.data()) - brute_max(tm)) < 1e-9, "tree DP is exact on a forest", trial);

    const Instance loopy = random_instance(rng, false, K, false);
    const g::Mrf lm = loopy.mrf();
    y.assign(loopy.N, 0);
    const double best = brute_max(lm);
    expect(g::exhaustive_max(lm, 1 << 20, y.data(), ws) && std::fabs(g::score_of(lm, y.data()) - best) < 1e-9, "exhaustive search is exact", trial);
    double bound = 0;
    g::lp_max(lm, 500, y.data(), &bound, ws);
    expect(bound >= best - 1e-9 && g::score_of(lm, y.data()) <= best + 1e-12, "LP bound >= optimum >= LP labelling", trial);

    const Instance binary = random_instance(rng, false, 2, true);
    const g::Mrf bm = binary.mrf();
    y.assign(binary.N, 0);
    expect(g::binary_cut_max(bm, y.data(), ws) && std::fabs(g::score_of(bm, y.data()) - brute_max(bm)) < 1e-9, "the cut is exact on submodular tables", trial);
  }
  // Alpha-expansion on Potts tables (weights >= 0): no expansion move improves its labelling.
  for (int trial = 0; trial < 50; ++trial) {
    Instance a = random_instance(rng, false, 3, false);
    for (size_t e = 0; e < a.u.size(); ++e) {
      const double w = std::uniform_real_distribution<double>(0, 1)(rng);
      for (int k = 0; k < 9; ++k) a.tables[9 * e + k] = k % 4 == 0 ? w : 0;
    }
    const g::Mrf m = a.mrf();
    std::vector<int32_t> y(a.N), z(a.N);
    expect(g::expansion_applies(m), "Potts tables with weights >= 0 allow expansion", trial);
    g::expansion_max(m, y.data(), ws);
    const double s = g::score_of(m, y.data());
    bool improved = false;
    for (int alpha = 0; alpha < 3; ++alpha) {
      for (int mask = 0; mask < (1 << a.N); ++mask) {
        for (int i = 0; i < a.N; ++i) z[i] = (mask >> i) & 1 ? alpha : y[i];
        improved = improved || g::score_of(m, z.data()) > s + 1e-9;
      }
    }
    expect(!improved, "no expansion move improves the expansion labelling", trial);
  }
  if (failures > 0) {
    std::printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  std::printf("all %d checks passed\n", checks);
  return 0;
}
