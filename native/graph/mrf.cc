// The choice of routine, the checks, and the exact routines on forests and by enumeration (see mrf.h).
#include "graph/mrf.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gapbcfw {
namespace graph {

namespace {

/// The edges at each node in CSR form: ws.adjacent[ws.first[i] .. ws.first[i + 1]) are the ids of i's edges.
void build_adjacency(const Mrf& m, Workspace& ws) {
  const int32_t N = m.num_nodes, E = m.num_edges;
  ws.first.assign(static_cast<size_t>(N) + 1, 0);
  for (int32_t e = 0; e < E; ++e) {
    ++ws.first[m.edge_u[e] + 1];
    ++ws.first[m.edge_v[e] + 1];
  }
  for (int32_t i = 0; i < N; ++i) ws.first[i + 1] += ws.first[i];
  ws.adjacent.resize(2 * static_cast<size_t>(E));
  ws.order.assign(ws.first.begin(), ws.first.end() - 1);  // fill positions
  for (int32_t e = 0; e < E; ++e) {
    ws.adjacent[ws.order[m.edge_u[e]]++] = e;
    ws.adjacent[ws.order[m.edge_v[e]]++] = e;
  }
}

/// table_e(y_u, y_v) with node `self` at label `mine` and the edge's other end at label `theirs`.
inline double oriented(const Mrf& m, int32_t e, int32_t self, int32_t mine, int32_t theirs) {
  const int32_t K = m.num_labels;
  return m.edge_u[e] == self ? m.table(e)[mine * K + theirs] : m.table(e)[theirs * K + mine];
}

inline int32_t other_end(const Mrf& m, int32_t e, int32_t self) { return m.edge_u[e] == self ? m.edge_v[e] : m.edge_u[e]; }

/// K^N, or limit + 1 when it exceeds limit.
int64_t states(const Mrf& m, int64_t limit) {
  int64_t s = 1;
  for (int32_t i = 0; i < m.num_nodes; ++i) {
    if (s > limit / m.num_labels) return limit + 1;
    s *= m.num_labels;
  }
  return s;
}

}  // namespace

std::string check_mrf(const Mrf& m) {
  const int32_t N = m.num_nodes, K = m.num_labels, E = m.num_edges;
  if (N < 1 || K < 1 || E < 0) return "the graph needs at least one node and one label";
  for (int32_t e = 0; e < E; ++e) {
    const int32_t u = m.edge_u[e], v = m.edge_v[e];
    if (u < 0 || u >= N || v < 0 || v >= N || u == v) {
      return "edge " + std::to_string(e) + " joins " + std::to_string(u) + " and " + std::to_string(v) + " (nodes are 0.." + std::to_string(N - 1) + ", no self-loops)";
    }
  }
  const int64_t nu = static_cast<int64_t>(N) * K;
  for (int64_t k = 0; k < nu; ++k) {
    if (!std::isfinite(m.unary[k])) return "unary[" + std::to_string(k) + "] is not finite";
  }
  const int64_t nt = (m.shared_table ? 1 : static_cast<int64_t>(E)) * K * K;
  for (int64_t k = 0; k < nt; ++k) {
    if (!std::isfinite(m.tables[k])) return "tables[" + std::to_string(k) + "] is not finite";
  }
  return "";
}

double score_of(const Mrf& m, const int32_t* labels) {
  const int32_t K = m.num_labels;
  double s = 0;
  for (int32_t i = 0; i < m.num_nodes; ++i) s += m.unary[static_cast<int64_t>(i) * K + labels[i]];
  for (int32_t e = 0; e < m.num_edges; ++e) s += m.table(e)[labels[m.edge_u[e]] * K + labels[m.edge_v[e]]];
  return s;
}

bool is_forest(const Mrf& m, Workspace& ws) {
  const int32_t N = m.num_nodes, E = m.num_edges;
  if (E >= N) return false;
  // Union-find with path halving: an edge inside one component closes a cycle.
  std::vector<int32_t>& root = ws.parent;
  root.resize(N);
  for (int32_t i = 0; i < N; ++i) root[i] = i;
  auto find = [&root](int32_t i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  for (int32_t e = 0; e < E; ++e) {
    const int32_t a = find(m.edge_u[e]), b = find(m.edge_v[e]);
    if (a == b) return false;
    root[a] = b;
  }
  return true;
}

bool tree_max(const Mrf& m, int32_t* labels, Workspace& ws) {
  if (!is_forest(m, ws)) return false;
  const int32_t N = m.num_nodes, K = m.num_labels;
  build_adjacency(m, ws);
  // Breadth-first order from the lowest node of each component; parent_edge[root] = -1.
  ws.order.clear();
  ws.parent_edge.assign(N, -2);
  for (int32_t r = 0; r < N; ++r) {
    if (ws.parent_edge[r] != -2) continue;
    ws.parent_edge[r] = -1;
    ws.order.push_back(r);
    for (size_t q = ws.order.size() - 1; q < ws.order.size(); ++q) {
      const int32_t i = ws.order[q];
      for (int32_t k = ws.first[i]; k < ws.first[i + 1]; ++k) {
        const int32_t e = ws.adjacent[k], j = other_end(m, e, i);
        if (ws.parent_edge[j] != -2) continue;
        ws.parent_edge[j] = e;
        ws.order.push_back(j);
      }
    }
  }
  // Upward pass (max-sum): belief(c) = unary(c) + the messages of c's children; the message of c to its parent p
  // is max over y_c of belief(c)(y_c) + table(y_p, y_c), its argmax kept for the backtrack.
  ws.belief.assign(m.unary, m.unary + static_cast<int64_t>(N) * K);
  ws.argmax.resize(static_cast<size_t>(N) * K);
  for (int32_t q = N - 1; q >= 0; --q) {
    const int32_t c = ws.order[q], e = ws.parent_edge[c];
    if (e < 0) continue;
    const int32_t p = other_end(m, e, c);
    const double* bc = &ws.belief[static_cast<size_t>(c) * K];
    for (int32_t yp = 0; yp < K; ++yp) {
      double best = -std::numeric_limits<double>::infinity();
      int32_t arg = 0;
      for (int32_t yc = 0; yc < K; ++yc) {
        const double s = bc[yc] + oriented(m, e, p, yp, yc);
        if (s > best) {
          best = s;
          arg = yc;
        }
      }
      ws.belief[static_cast<size_t>(p) * K + yp] += best;
      ws.argmax[static_cast<size_t>(c) * K + yp] = arg;
    }
  }
  // Backtrack: a root takes its best label, every other node the argmax given its parent's.
  for (int32_t q = 0; q < N; ++q) {
    const int32_t i = ws.order[q], e = ws.parent_edge[i];
    if (e < 0) {
      const double* b = &ws.belief[static_cast<size_t>(i) * K];
      labels[i] = static_cast<int32_t>(std::max_element(b, b + K) - b);
    } else {
      labels[i] = ws.argmax[static_cast<size_t>(i) * K + labels[other_end(m, e, i)]];
    }
  }
  return true;
}

bool exhaustive_max(const Mrf& m, int64_t limit, int32_t* labels, Workspace& ws) {
  if (states(m, limit) > limit) return false;
  const int32_t N = m.num_nodes, K = m.num_labels;
  build_adjacency(m, ws);
  std::vector<int32_t>& y = ws.label;
  y.assign(N, 0);
  double current = score_of(m, y.data());
  double best = current;
  std::copy(y.begin(), y.end(), labels);
  // Odometer over the labellings; a change of node i updates the score by its unary and its edges only.
  for (;;) {
    int32_t i = 0;
    for (; i < N; ++i) {
      const int32_t from = y[i], to = from + 1 == K ? 0 : from + 1;
      double delta = m.unary[static_cast<int64_t>(i) * K + to] - m.unary[static_cast<int64_t>(i) * K + from];
      for (int32_t k = ws.first[i]; k < ws.first[i + 1]; ++k) {
        const int32_t e = ws.adjacent[k], yj = y[other_end(m, e, i)];
        delta += oriented(m, e, i, to, yj) - oriented(m, e, i, from, yj);
      }
      y[i] = to;
      current += delta;
      if (to != 0) break;  // no carry
    }
    if (i == N) break;  // wrapped around: every labelling was seen
    if (current > best) {
      best = current;
      std::copy(y.begin(), y.end(), labels);
    }
  }
  return true;
}

InferResult infer(const Mrf& m, const InferOptions& options, int32_t* labels, Workspace& ws) {
  InferResult r;
  auto exact = [&](Routine routine) {
    r.routine = routine;
    r.exact = true;
    r.score = score_of(m, labels);
    r.bound = r.score;
    return true;
  };
  auto run = [&](Routine routine) -> bool {
    switch (routine) {
      case Routine::kTree:
        return tree_max(m, labels, ws) && exact(routine);
      case Routine::kCut:
        return binary_cut_max(m, labels, ws) && exact(routine);
      case Routine::kExhaustive:
        return exhaustive_max(m, options.exhaustive_limit, labels, ws) && exact(routine);
      case Routine::kExpansion:
        if (!expansion_applies(m)) return false;
        r.routine = routine;
        r.iterations = expansion_max(m, labels, ws);
        r.score = score_of(m, labels);
        return true;
      case Routine::kLp: {
        r.routine = routine;
        r.iterations = lp_max(m, options.lp_iterations, labels, &r.bound, ws);
        r.score = score_of(m, labels);
        r.exact = r.bound - r.score <= kProofTolerance * std::max(1.0, std::fabs(r.bound));
        return true;
      }
    }
    return false;
  };
  if (!options.automatic && run(options.preferred)) return r;
  for (const Routine routine : {Routine::kTree, Routine::kCut, Routine::kExhaustive, Routine::kExpansion, Routine::kLp}) {
    if (run(routine)) return r;
  }
  return r;  // not reached: LP always applies
}

}  // namespace graph
}  // namespace gapbcfw
