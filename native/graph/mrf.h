// Maximum-score labelling of a pairwise Markov random field (plain C++17, no Node headers): the max-oracle of
// the general graph-labelling and multi-label models (src/models/graph.ts, src/models/multilabel.ts).
//
//   score(y) = sum_i unary[i][y_i] + sum_e table_e[y_u][y_v],   e = (u, v), y_i in 0..K-1,
//
// maximised over all K^N labellings. One routine is chosen per call (or forced where it applies) and the
// result says which ran and whether its labelling is proven the maximiser:
//
//   kTree        exact max-sum dynamic programming on a forest (one upward pass, one backtrack);
//   kCut         exact s-t minimum cut for K = 2 when every edge is submodular
//                (table(0,0) + table(1,1) >= table(0,1) + table(1,0); Kolmogorov & Zabih, TPAMI 2004), solved
//                with the project's Boykov-Kolmogorov max-flow (native/maxflow);
//   kExhaustive  exact enumeration of the K^N labellings (small N only; incremental scores);
//   kExpansion   alpha-expansion (Boykov, Veksler & Zabih, TPAMI 2001): each move is a binary cut, valid when
//                every table makes every expansion move submodular (a metric up to per-edge constants). A local
//                optimum under expansion moves, within 2c of the optimum for metrics with non-negative
//                energies (their Theorem 6.1); approximate, with no bound;
//   kLp          max-product on the LP relaxation: edge-based MPLP (Globerson & Jaakkola, NIPS 2007), block
//                coordinate descent on the dual of the local-polytope relaxation. Its dual value is an upper
//                bound on the maximum score for any messages (weak duality); the labelling is the best of
//                the node-wise argmaxes of the beliefs met during the sweeps. Exact when the bound meets the
//                labelling's score (up to rounding: kProofTolerance).
#ifndef GAPBCFW_GRAPH_MRF_H_
#define GAPBCFW_GRAPH_MRF_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "maxflow/flow_graph.h"

namespace gapbcfw {
namespace graph {

/// A pairwise MRF to maximise. Arrays are borrowed (not copied) and must outlive the call.
struct Mrf {
  int32_t num_nodes = 0;        // N >= 1
  int32_t num_labels = 0;       // K >= 1
  int32_t num_edges = 0;        // E >= 0
  const int32_t* edge_u = nullptr;  // E tails
  const int32_t* edge_v = nullptr;  // E heads, edge_u[e] != edge_v[e]
  const double* unary = nullptr;    // N x K, row-major: unary[i * K + k]
  const double* tables = nullptr;   // K x K when shared_table, else E x K x K: table_e[a * K + b] = score of (y_u, y_v) = (a, b)
  bool shared_table = false;

  const double* table(int32_t e) const { return shared_table ? tables : tables + static_cast<int64_t>(e) * num_labels * num_labels; }
};

enum class Routine : int32_t { kTree = 0, kCut = 1, kExhaustive = 2, kExpansion = 3, kLp = 4 };
constexpr int32_t kRoutines = 5;

/// How a call chooses its routine.
struct InferOptions {
  // automatic: the first that applies of tree, cut, exhaustive (K^N <= exhaustive_limit), expansion, LP; otherwise
  // `preferred` where it applies, else the automatic choice.
  bool automatic = true;
  Routine preferred = Routine::kLp;
  // Largest K^N enumerated by kExhaustive.
  int64_t exhaustive_limit = int64_t{1} << 16;
  // Sweeps over the edges of kLp at most (it stops earlier once the bound meets the labelling or stalls).
  int32_t lp_iterations = 500;
};

/// Relative tolerance of "the bound meets the score": bound - score <= kProofTolerance * max(1, |bound|).
constexpr double kProofTolerance = 1e-9;

struct InferResult {
  Routine routine = Routine::kTree;
  bool exact = false;   // the labelling is proven a maximiser
  double score = 0;     // score of the labelling
  double bound = std::numeric_limits<double>::infinity();  // an upper bound on the maximum score (score when exact; +inf: none)
  int32_t iterations = 0;  // expansion cycles or LP sweeps
};

/// Scratch memory reused from call to call (one per thread): no allocation once it has grown.
struct Workspace {
  std::vector<int32_t> first, adjacent, order, parent_edge, parent, label, best;
  std::vector<double> belief, message, energy0, energy1, arcs;
  std::vector<int32_t> argmax;
  maxflow::FlowGraph<double> flow;
};

/// Checks the sizes and edge ids of an MRF and that every number is finite; returns an empty string when valid,
/// else what is wrong (the binding turns it into a RangeError).
std::string check_mrf(const Mrf& m);

/// The maximum-score labelling into labels[0 .. N) by the routine the options choose.
InferResult infer(const Mrf& m, const InferOptions& options, int32_t* labels, Workspace& ws);

/// score(y) of a labelling.
double score_of(const Mrf& m, const int32_t* labels);

// The routines, each on its own (tests; `infer` chooses among them). Each returns false, leaving labels
// untouched, when it does not apply to the MRF.
bool is_forest(const Mrf& m, Workspace& ws);
bool tree_max(const Mrf& m, int32_t* labels, Workspace& ws);
bool binary_cut_max(const Mrf& m, int32_t* labels, Workspace& ws);
bool exhaustive_max(const Mrf& m, int64_t limit, int32_t* labels, Workspace& ws);
bool expansion_applies(const Mrf& m);
/// Alpha-expansion from the node-wise argmax of the unaries until a cycle over the labels changes nothing; returns the cycles.
int32_t expansion_max(const Mrf& m, int32_t* labels, Workspace& ws);
/// MPLP: the best labelling met into labels, the dual bound into *bound; returns the sweeps.
int32_t lp_max(const Mrf& m, int32_t max_sweeps, int32_t* labels, double* bound, Workspace& ws);

}  // namespace graph
}  // namespace gapbcfw

#endif  // GAPBCFW_GRAPH_MRF_H_
