// DIMACS max-flow format reader and writer for FlowGraph (plain C++17, no Node headers).
//
// Format (one item per line, fields separated by blanks; a trailing '\r' is ignored):
//   c <text>          comment (blank lines are ignored too)
//   p max N M         problem line, exactly once and before any n/a line; N >= 2 nodes, M >= 0 arcs;
//                     N <= max(kMaxNodes, file bytes / 2), so that memory follows the file, not its header
//   n ID s / n ID t   the source and the sink (once each, distinct, 1 <= ID <= N), before any a line
//   a U V CAP         arc U -> V with capacity CAP >= 0 (an integer for integer Cap; a finite
//                     decimal for double); exactly M of them
//
// Mapping to the terminal-capacity graph: DIMACS node i becomes FlowGraph node i-1 (the source and
// the sink stay as isolated placeholder nodes, so ids are preserved). Arcs s->v add to the source
// capacity of v, arcs u->t to the sink capacity of u, arcs s->t to `constant` (flow that every
// cut pays). Every other arc U->V joins the edge of the pair {U, V}: with merge_arcs (the default)
// all arcs between the same two nodes form one edge, oriented as the first of them in the file
// (its capacities are the sums of the arcs in each direction), and the edges are in the order of
// their first arcs; without it each arc is its own edge (U-1, V-1, CAP, 0). Merging halves the
// edges of files that list both directions of each pair (as writers of undirected graphs do) and
// never changes a cut's capacity. Arcs into s or out of t (including t->s) cannot carry s-t flow in
// a maximum flow and do not change the min-cut value; they are dropped and counted in
// `ignored_arcs`. The max-flow value of the file is constant + graph.maxflow().
//
// Capacity types: read_dimacs<Cap> reads into one type (a capacity, or a node's or an edge's sum,
// that does not fit is an error on the line of the arc that overflows it); read_dimacs_any with
// CapChoice::kAuto picks int32 when the file's capacities are integers and every node's and edge's
// sums fit in int32, else int64 for integers, else float64.
//
// Errors: DimacsError (a std::runtime_error) whose message starts with "dimacs line L:" (L is
// 1-based; errors found at end of file name the p line, or line 1 if there is none). The writer
// throws std::invalid_argument for problems it cannot express.
#ifndef GAPBCFW_MAXFLOW_DIMACS_H_
#define GAPBCFW_MAXFLOW_DIMACS_H_

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "maxflow/any_graph.h"
#include "maxflow/flow_graph.h"

namespace gapbcfw {
namespace maxflow {

/// Node counts up to this are read from any file; a larger N must come with a file of at least 2 N bytes (the reader
/// allocates the N nodes of the p line: a 4-line file declaring 2e9 nodes is refused, not 18 GB allocated).
constexpr int64_t kMaxNodes = int64_t{1} << 20;

class DimacsError : public std::runtime_error {
 public:
  DimacsError(int64_t line, const std::string& what);
  int64_t line() const { return line_; }

 private:
  int64_t line_;
};

template <class Cap>
struct DimacsProblem {
  FlowGraph<Cap> graph;
  NodeId source = -1;  // 0-based placeholder ids in graph
  NodeId sink = -1;
  typename FlowGraph<Cap>::Flow constant = 0;  // total capacity of s->t arcs
  int64_t ignored_arcs = 0;                    // arcs into s or out of t
};

template <class Cap>
DimacsProblem<Cap> read_dimacs(std::string_view text, bool merge_arcs = true);
template <class Cap>
DimacsProblem<Cap> read_dimacs(std::istream& in, bool merge_arcs = true);

/// The capacity type asked of read_dimacs_any (the binding relies on this order).
enum class CapChoice { kAuto, kInt32, kInt64, kFloat64 };

/// A DIMACS problem in the capacity type read_dimacs_any chose.
struct AnyDimacsProblem {
  std::unique_ptr<AnyGraph> graph;
  NodeId source = -1;
  NodeId sink = -1;
  double constant = 0;  // exact up to 2^53
  int64_t ignored_arcs = 0;
};

AnyDimacsProblem read_dimacs_any(std::string_view text, CapChoice choice, bool merge_arcs = true);

// Writes the problem back with the same node ids (source/sink must be distinct isolated nodes of
// problem.graph). Lines: p, n s, n t, then a s->t arc if constant > 0, then per node its s->n arc
// (if > 0) and n->t arc (if > 0), then per edge its u->v arc (always) and v->u arc (if > 0).
// Reading the file back (merging arcs) gives a problem whose second write is byte-identical.
template <class Cap>
void write_dimacs(std::ostream& out, const DimacsProblem<Cap>& problem);

// Writes a graph without placeholder nodes: graph nodes are 1..N, the source is N+1, the sink N+2.
template <class Cap>
void write_dimacs(std::ostream& out, const FlowGraph<Cap>& graph,
                  typename FlowGraph<Cap>::Flow constant = 0);

}  // namespace maxflow
}  // namespace gapbcfw

#endif  // GAPBCFW_MAXFLOW_DIMACS_H_
