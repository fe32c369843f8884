// Batches of max-flow problems on the shared thread pool; see batch.h.
#include "maxflow/batch.h"

#include <algorithm>
#include <utility>

#include "common/parallel.h"

namespace gapbcfw {
namespace maxflow {

namespace {

constexpr size_t kScratchKeepBytes = size_t{64} << 20;

// Solves `g` after loading `in`, writes the cut, returns the flow.
double load_and_solve(AnyGraph& g, const GraphArrays& in, uint8_t* segments) {
  g.load(in);
  const double flow = g.solve();
  if (segments != nullptr) g.segments(segments);
  return flow;
}

}  // namespace

double solve_once(const GraphArrays& in, uint8_t* segments) {
  thread_local std::unique_ptr<AnyGraph> scratch[3];
  std::unique_ptr<AnyGraph>& g = scratch[static_cast<int>(in.type)];
  if (!g) g = AnyGraph::create(in.type);
  try {
    const double flow = load_and_solve(*g, in, segments);
    if (g->memory_bytes() > kScratchKeepBytes) g.reset();
    return flow;
  } catch (...) {
    g.reset();
    throw;
  }
}

GraphBatch::GraphBatch(std::vector<BatchGraph> graphs, bool retain) : graphs_(std::move(graphs)) {
  // Outputs must not overlap (two threads would write the same bytes).
  std::vector<std::pair<const uint8_t*, size_t>> outs;
  for (size_t i = 0; i < graphs_.size(); ++i) {
    if (graphs_[i].segments != nullptr && graphs_[i].arrays.num_nodes > 0) outs.emplace_back(graphs_[i].segments, i);
  }
  std::sort(outs.begin(), outs.end());
  for (size_t q = 1; q < outs.size(); ++q) {
    const size_t prev = outs[q - 1].second;
    if (outs[q - 1].first + graphs_[prev].arrays.num_nodes > outs[q].first) {
      throw std::invalid_argument("graphs[" + std::to_string(prev) + "].segments and graphs[" + std::to_string(outs[q].second) +
                                  "].segments share memory");
    }
  }
  if (retain) retained_.resize(graphs_.size());
  todo_.reserve(graphs_.size());
}

BatchProgress GraphBatch::solve(const int32_t* items, size_t count, int32_t threads, const std::atomic<bool>* cancel, double* flows) {
  // The distinct graphs to solve (a graph listed twice is solved once: its arrays do not change meanwhile).
  todo_.clear();
  if (items == nullptr) {
    for (size_t i = 0; i < graphs_.size(); ++i) todo_.push_back(static_cast<int32_t>(i));
  } else {
    if (marks_.size() != graphs_.size()) marks_.assign(graphs_.size(), 0);
    if (++generation_ == 0) {
      std::fill(marks_.begin(), marks_.end(), 0);
      generation_ = 1;
    }
    for (size_t q = 0; q < count; ++q) {
      if (items[q] < 0 || static_cast<size_t>(items[q]) >= graphs_.size()) {
        throw std::invalid_argument("items[" + std::to_string(q) + "] = " + std::to_string(items[q]) + " is not a graph index");
      }
      if (marks_[items[q]] == generation_) continue;
      marks_[items[q]] = generation_;
      todo_.push_back(items[q]);
    }
  }
  std::atomic<size_t> done{0};
  parallel_for(static_cast<int64_t>(todo_.size()), threads, [&](int64_t q) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return;
    const size_t i = static_cast<size_t>(todo_[q]);
    const BatchGraph& b = graphs_[i];
    try {
      if (retained_.empty()) {
        flows[i] = solve_once(b.arrays, b.segments);
      } else {
        std::unique_ptr<AnyGraph>& g = retained_[i];
        if (!g) g = AnyGraph::create(b.arrays.type);
        flows[i] = load_and_solve(*g, b.arrays, b.segments);
      }
    } catch (const std::exception& e) {
      throw DescribedError(describe_failure(e, b.arrays.label));
    } catch (...) {
      throw DescribedError({b.arrays.label + ": unknown native error", false});
    }
    done.fetch_add(1, std::memory_order_relaxed);
  });
  return {done.load(), todo_.size()};
}

void GraphBatch::release() {
  for (std::unique_ptr<AnyGraph>& g : retained_) g.reset();
}

}  // namespace maxflow
}  // namespace gapbcfw
