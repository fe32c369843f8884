// Many independent max-flow problems solved on the shared thread pool (native/common/parallel.h),
// and one-shot solves that reuse a per-thread graph (plain C++17, no Node headers).
#ifndef GAPBCFW_MAXFLOW_BATCH_H_
#define GAPBCFW_MAXFLOW_BATCH_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "maxflow/any_graph.h"

namespace gapbcfw {
namespace maxflow {

/// Builds the graph of `in` in this thread's scratch graph of its capacity type (memory kept from
/// call to call, so repeated one-shot solves allocate nothing once the largest graph was seen; a
/// scratch graph above 64 MiB is freed after use), solves it from scratch and writes its cut to
/// `segments` (n entries) unless null. Returns the flow; throws as AnyGraph::load / solve do.
double solve_once(const GraphArrays& in, uint8_t* segments);

/// One graph of a batch: its arrays and where its cut goes (null: not wanted).
struct BatchGraph {
  GraphArrays arrays;
  uint8_t* segments = nullptr;
};

/// How far a batch solve got: graphs solved out of the distinct graphs asked for.
struct BatchProgress {
  size_t solved = 0;
  size_t wanted = 0;
};

/// A list of graphs solved together, again and again: each solve reads the capacities the arrays
/// hold at that moment (the structure must not change) and solves from scratch, so every result
/// equals a one-shot solve of the same arrays. With `retain`, each graph keeps its native memory and
/// arc layout between solves (no allocation after the first); without, graphs are solved in the
/// threads' scratch graphs (solve_once) and nothing stays allocated per graph.
class GraphBatch {
 public:
  /// Throws std::invalid_argument when two segments outputs share memory.
  GraphBatch(std::vector<BatchGraph> graphs, bool retain);

  size_t size() const { return graphs_.size(); }
  const BatchGraph& graph(size_t i) const { return graphs_[i]; }

  /// Solves graphs items[0..count) (all graphs when items is null; ids < size(), a repeated id is solved
  /// once) on up to `threads` threads, writing flows[i] (flows has size() entries) and graph i's segments.
  /// Stops handing out graphs once `cancel` (may be null) is set. Throws a DescribedError (message with the graph's label) for the first graph
  /// that failed (the others may or may not have run), and std::invalid_argument for bad items. Not to be
  /// called again (or released) before it returns.
  BatchProgress solve(const int32_t* items, size_t count, int32_t threads, const std::atomic<bool>* cancel, double* flows);

  /// Frees the retained graphs (they are rebuilt by the next solve).
  void release();

 private:
  std::vector<BatchGraph> graphs_;
  std::vector<std::unique_ptr<AnyGraph>> retained_;  // per graph when retaining, else empty
  std::vector<int32_t> todo_;                        // the distinct graphs of the current solve
  std::vector<uint32_t> marks_;                      // marks_[i] == generation_: graph i is in todo_
  uint32_t generation_ = 0;
};

}  // namespace maxflow
}  // namespace gapbcfw

#endif  // GAPBCFW_MAXFLOW_BATCH_H_
