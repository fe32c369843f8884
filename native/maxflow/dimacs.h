// DIMACS max-flow format reader and writer for FlowGraph (plain C++17, no Node headers).
//
// Format (one item per line, fields separated by blanks; a trailing '\r' is ignored):
//   c <text>          comment (blank lines are ignored too)
//   p max N M         problem line, exactly once and before any n/a line; N >= 2 nodes, M >= 0 arcs
//   n ID s / n ID t   the source and the sink (once each, distinct, 1 <= ID <= N), before any a line
//   a U V CAP         arc U -> V with capacity CAP >= 0 (an integer for integer Cap; a finite
//                     decimal for double); exactly M of them
//
// Mapping to the terminal-capacity graph: DIMACS node i becomes FlowGraph node i-1 (the source and
// the sink stay as isolated placeholder nodes, so ids are preserved). Arcs s->v add to the source
// capacity of v, arcs u->t to the sink capacity of u, arcs s->t to `constant` (flow that every
// cut pays), every other arc U->V becomes an edge (U-1, V-1, CAP, 0) (parallel arcs and self-loops
// are kept as separate edges). Arcs into s or out of t (including t->s) cannot carry s-t flow in
// a maximum flow and do not change the min-cut value; they are dropped and counted in
// `ignored_arcs`. The max-flow value of the file is constant + graph.maxflow().
//
// Errors: DimacsError (a std::runtime_error) whose message starts with "dimacs line L:" (L is
// 1-based; errors found at end of file name the p line, or line 1 if there is none). The writer
// throws std::invalid_argument for problems it cannot express.
#ifndef GAPBCFW_MAXFLOW_DIMACS_H_
#define GAPBCFW_MAXFLOW_DIMACS_H_

#include <cstdint>
#include <iosfwd>
#include <stdexcept>
#include <string>

#include "maxflow/flow_graph.h"

namespace gapbcfw {
namespace maxflow {

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
DimacsProblem<Cap> read_dimacs(std::istream& in);

// Writes the problem back with the same node ids (source/sink must be distinct isolated nodes of
// problem.graph). Lines: p, n s, n t, then a s->t arc if constant > 0, then per node its s->n arc
// (if > 0) and n->t arc (if > 0), then per edge its u->v arc (always) and v->u arc (if > 0).
// read_dimacs(write_dimacs(p)) reproduces the capacities, so a second write is byte-identical.
template <class Cap>
void write_dimacs(std::ostream& out, const DimacsProblem<Cap>& problem);

// Writes a graph without placeholder nodes: graph nodes are 1..N, the source is N+1, the sink N+2.
template <class Cap>
void write_dimacs(std::ostream& out, const FlowGraph<Cap>& graph,
                  typename FlowGraph<Cap>::Flow constant = 0);

}  // namespace maxflow
}  // namespace gapbcfw

#endif  // GAPBCFW_MAXFLOW_DIMACS_H_
