// FlowGraph behind one interface for the three capacity types, built from arrays of outside values
// (the typed arrays of the Node binding) with every value checked (plain C++17, no Node headers).
//
// Values arrive as int32 or double entries (or are absent: zeros) and are converted to the graph's
// capacity type. A bad value throws InputError whose message names the array and the index, e.g.
// "MaxflowGraph: capFwd[3] = -1 is negative (capacities must be >= 0)": negative, NaN and infinite
// values, non-integers and values above 2^31-1 (int32) or 2^53 (int64) for the integer types, node
// ids out of range, self-loops, and capFwd[e] + capRev[e] beyond an integer type.
#ifndef GAPBCFW_MAXFLOW_ANY_GRAPH_H_
#define GAPBCFW_MAXFLOW_ANY_GRAPH_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "maxflow/flow_graph.h"

namespace gapbcfw {
namespace maxflow {

enum class CapType { kInt32 = 0, kInt64 = 1, kFloat64 = 2 };

const char* cap_type_name(CapType t);

/// A bad value in the caller's arrays (the message names the array and the index).
class InputError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// An exception turned into what a caller reports: `label: reason`, and whether the input was at
/// fault (bad values, sizes or overflow) rather than the machine (out of memory, ...).
struct Failure {
  std::string message;
  bool bad_input = false;
};
/// A DescribedError (already labelled, e.g. by the graph of a batch that failed) comes back unchanged.
Failure describe_failure(const std::exception& e, const std::string& label);

/// An exception that carries its Failure.
class DescribedError : public std::runtime_error {
 public:
  explicit DescribedError(const Failure& f) : std::runtime_error(f.message), bad_input_(f.bad_input) {}
  bool bad_input() const { return bad_input_; }

 private:
  bool bad_input_;
};

/// Capacities from outside: int32 or double entries, or absent (all zeros).
struct CapArray {
  const int32_t* i32 = nullptr;
  const double* f64 = nullptr;
  bool present() const { return i32 != nullptr || f64 != nullptr; }
};

/// A graph described by arrays (read during the call, not kept). `label` prefixes error messages
/// ("MaxflowGraph", "maxflowBatch: graphs[3]").
struct GraphArrays {
  int32_t num_nodes = 0;
  size_t num_edges = 0;
  const int32_t* from = nullptr;
  const int32_t* to = nullptr;
  CapArray fwd, rev, source, sink;
  CapType type = CapType::kFloat64;
  std::string label;
};

/// A FlowGraph of some capacity type. Flows and residuals come back as doubles (exact for integer
/// types up to 2^53).
class AnyGraph {
 public:
  static std::unique_ptr<AnyGraph> create(CapType type);
  template <class Cap>
  static std::unique_ptr<AnyGraph> adopt(FlowGraph<Cap>&& graph);

  virtual ~AnyGraph() = default;
  virtual CapType type() const = 0;
  virtual std::unique_ptr<AnyGraph> clone() const = 0;

  /// Becomes the graph of `in` (structure and capacities, checked), ready for a from-scratch solve.
  /// Reuses the memory already held and, when the structure is the current one, its arc layout
  /// (FlowGraph::assign). On a bad value it throws and the graph is left empty.
  virtual void load(const GraphArrays& in) = 0;
  virtual double solve() = 0;
  virtual double flow() const = 0;
  virtual bool solved() const = 0;
  virtual int32_t num_nodes() const = 0;
  virtual int32_t num_edges() const = 0;
  /// 0 (source side) or 1 (sink side) per node; needs a solve after the last change.
  virtual void segments(uint8_t* out) const = 0;
  /// Sets (or adds to) the terminal capacities of nodes[k] (k < count), or of every node in order when
  /// nodes is null. Every entry is checked before anything changes; `label` names the caller.
  virtual void terminal_caps(const int32_t* nodes, size_t count, const CapArray& source, const CapArray& sink,
                             bool add, const std::string& label) = 0;
  /// Sets both capacities of edges[k], or of every edge in order when edges is null.
  virtual void edge_caps(const int32_t* edges, size_t count, const CapArray& fwd, const CapArray& rev,
                         const std::string& label) = 0;
  /// Residuals of the current flow into any of the non-null outputs (n, n, m, m entries).
  virtual void residuals(double* source, double* sink, double* fwd, double* rev) const = 0;
  virtual double tolerance() const = 0;
  /// Float64 graphs only (InputError otherwise).
  virtual void set_tolerance(double t) = 0;
  virtual SolveCounters counters() const = 0;
  /// DIMACS text (see dimacs.h); source and sink -1 for the layout without placeholders.
  virtual std::string to_dimacs(double constant, int32_t source, int32_t sink) const = 0;
  virtual size_t memory_bytes() const = 0;
};

}  // namespace maxflow
}  // namespace gapbcfw

#endif  // GAPBCFW_MAXFLOW_ANY_GRAPH_H_
