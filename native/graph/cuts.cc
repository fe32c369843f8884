// Graph cuts for the MRF (see mrf.h): the exact binary cut (K = 2, submodular tables) and alpha-expansion (K > 2),
// whose moves are binary cuts. Both minimise the energy E(y) = -score(y), solved as an s-t minimum cut with the
// project's Boykov-Kolmogorov max-flow (native/maxflow).
#include <algorithm>
#include <cmath>

#include "graph/mrf.h"

namespace gapbcfw {
namespace graph {

namespace {

/// Rounding allowance of a submodularity test on four energies.
inline double rounding(double a, double b, double c, double d) { return 1e-12 * (std::fabs(a) + std::fabs(b) + std::fabs(c) + std::fabs(d)); }

/**
 * A binary energy sum_i E_i(t_i) + sum_e E_e(t_u, t_v), t in {0, 1}, as an s-t cut (Kolmogorov & Zabih 2004,
 * Sec. 4): source side = 0, sink side = 1. An edge with energies A = E(0,0), B = E(0,1), C = E(1,0), D = E(1,1) is
 *   A + (C - A) t_u + (D - C) t_v + (B + C - A - D) (1 - t_u) t_v,
 * so (C - A) and (D - C) go to the nodes' energies of 1 and the last term is the arc u -> v, cut when u is on the
 * source side and v on the sink side; it needs B + C - A - D >= 0 (submodularity).
 */
class BinaryCut {
 public:
  BinaryCut(const Mrf& m, Workspace& ws) : m_(m), ws_(ws) {
    ws.energy0.resize(m.num_nodes);
    ws.energy1.resize(m.num_nodes);
    ws.arcs.resize(m.num_edges);
  }
  void node(int32_t i, double e0, double e1) {
    ws_.energy0[i] = e0;
    ws_.energy1[i] = e1;
  }
  /// Edge e's four energies; false when they are not submodular (beyond rounding).
  bool edge(int32_t e, double A, double B, double C, double D) {
    const double pair = B + C - A - D;
    if (pair < -rounding(A, B, C, D)) return false;
    ws_.energy1[m_.edge_u[e]] += C - A;
    ws_.energy1[m_.edge_v[e]] += D - C;
    ws_.arcs[e] = std::max(pair, 0.0);
    return true;
  }
  /// The minimum-energy t into t[0 .. N) (1 = sink side).
  void solve(int32_t* t) {
    const int32_t N = m_.num_nodes, E = m_.num_edges;
    maxflow::FlowGraph<double>& g = ws_.flow;
    g.assign(N, E, m_.edge_u, m_.edge_v);
    double* source = g.source_caps();
    double* sink = g.sink_caps();
    double* arcs = g.edge_caps();
    for (int32_t i = 0; i < N; ++i) {
      // Cutting s -> i puts i on the sink side (t = 1): it pays E_i(1); i -> t pays E_i(0); their minimum is a constant.
      const double low = std::min(ws_.energy0[i], ws_.energy1[i]);
      source[i] = ws_.energy1[i] - low;
      sink[i] = ws_.energy0[i] - low;
    }
    for (int32_t e = 0; e < E; ++e) {
      arcs[2 * static_cast<size_t>(e)] = ws_.arcs[e];
      arcs[2 * static_cast<size_t>(e) + 1] = 0;
    }
    g.reset_flow();
    g.maxflow();
    for (int32_t i = 0; i < N; ++i) t[i] = g.segment(i) == maxflow::Side::kSink ? 1 : 0;
  }

 private:
  const Mrf& m_;
  Workspace& ws_;
};

}  // namespace

bool binary_cut_max(const Mrf& m, int32_t* labels, Workspace& ws) {
  if (m.num_labels != 2) return false;
  BinaryCut cut(m, ws);
  for (int32_t i = 0; i < m.num_nodes; ++i) cut.node(i, -m.unary[2 * static_cast<int64_t>(i)], -m.unary[2 * static_cast<int64_t>(i) + 1]);
  for (int32_t e = 0; e < m.num_edges; ++e) {
    const double* t = m.table(e);
    if (!cut.edge(e, -t[0], -t[1], -t[2], -t[3])) return false;
  }
  cut.solve(labels);
  return true;
}

bool expansion_applies(const Mrf& m) {
  const int32_t K = m.num_labels;
  const int32_t tables = m.shared_table ? 1 : m.num_edges;
  // Every expansion move is submodular: V(b, c) + V(a, a) <= V(b, a) + V(a, c) for all labels a, b, c (Boykov et
  // al. 2001, Sec. 3; Kolmogorov & Zabih 2004, Sec. 5), in energies V = -table.
  for (int32_t e = 0; e < tables; ++e) {
    const double* t = m.shared_table ? m.tables : m.table(e);
    for (int32_t a = 0; a < K; ++a) {
      for (int32_t b = 0; b < K; ++b) {
        for (int32_t c = 0; c < K; ++c) {
          const double A = -t[b * K + c], B = -t[b * K + a], C = -t[a * K + c], D = -t[a * K + a];
          if (B + C - A - D < -rounding(A, B, C, D)) return false;
        }
      }
    }
  }
  return true;
}

int32_t expansion_max(const Mrf& m, int32_t* labels, Workspace& ws) {
  const int32_t N = m.num_nodes, K = m.num_labels, E = m.num_edges;
  for (int32_t i = 0; i < N; ++i) {
    const double* u = m.unary + static_cast<int64_t>(i) * K;
    labels[i] = static_cast<int32_t>(std::max_element(u, u + K) - u);
  }
  double current = score_of(m, labels);
  std::vector<int32_t>& move = ws.label;
  std::vector<int32_t>& candidate = ws.best;
  move.resize(N);
  candidate.resize(N);
  int32_t cycles = 0;
  for (bool changed = true; changed && cycles < 1000;) {
    changed = false;
    ++cycles;
    for (int32_t alpha = 0; alpha < K; ++alpha) {
      // The expansion move of alpha: t_i = 1 switches node i to alpha, t_i = 0 keeps its label.
      BinaryCut cut(m, ws);
      for (int32_t i = 0; i < N; ++i) cut.node(i, -m.unary[static_cast<int64_t>(i) * K + labels[i]], -m.unary[static_cast<int64_t>(i) * K + alpha]);
      bool submodular = true;
      for (int32_t e = 0; e < E && submodular; ++e) {
        const double* t = m.table(e);
        const int32_t yu = labels[m.edge_u[e]], yv = labels[m.edge_v[e]];
        submodular = cut.edge(e, -t[yu * K + yv], -t[yu * K + alpha], -t[alpha * K + yv], -t[alpha * K + alpha]);
      }
      if (!submodular) continue;  // expansion_applies rules this out; a caller that skipped it gets no move
      cut.solve(move.data());
      for (int32_t i = 0; i < N; ++i) candidate[i] = move[i] ? alpha : labels[i];
      const double s = score_of(m, candidate.data());
      // Only a strict improvement beyond rounding is taken: the loop ends at a labelling no expansion move improves.
      if (s > current + 1e-12 * std::max(1.0, std::fabs(current))) {
        current = s;
        std::copy(candidate.begin(), candidate.end(), labels);
        changed = true;
      }
    }
  }
  return cycles;
}

}  // namespace graph
}  // namespace gapbcfw
