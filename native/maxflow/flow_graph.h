// s-t min-cut / max-flow on graphs with terminal capacities (plain C++17, no Node headers).
//
// Algorithm: Y. Boykov and V. Kolmogorov, "An Experimental Comparison of Min-Cut/Max-Flow
// Algorithms for Energy Minimization in Vision", IEEE TPAMI 26(9), 2004 (cited as BK04):
// two search trees S (rooted at the source) and T (rooted at the sink) grown from a FIFO queue of
// active nodes (§3.2 growth stage), augmentation along the S-T path found (§3.2 augmentation
// stage), re-attachment of orphans (§3.2 adoption stage) with the paper's distance-to-terminal +
// timestamp heuristic for choosing the parent closest to the terminal.
// Reuse: P. Kohli and P. H. S. Torr, "Dynamic Graph Cuts for Efficient Inference in Markov Random
// Fields", IEEE TPAMI 29(12), 2007 / ICCV 2005 (cited as KT07): capacity changes are applied to the
// residual graph, flow that exceeds a lowered capacity is removed by reparametrisation (a constant
// added to both terminal capacities of a node, which shifts every cut by that constant) and only
// the search-tree parts touched by the changes are repaired ("recycling search trees").
//
// Model. Nodes 0..N-1 plus the two implicit terminals. Each node has a source capacity (s->n) and a
// sink capacity (n->t); each edge e = (u, v) has two directed capacities cap_uv and cap_vu. Only
// the net terminal residual tr(n) = r(s->n) - r(n->t) is stored: whenever both terminal arcs of a
// node have residual, their minimum is pushed along s->n->t at once and added to the flow value.
//
// Cut convention. After maxflow(), segment(n) == Side::kSource exactly for the nodes reachable
// from the source in the final residual graph (the unique inclusion-minimal minimum cut); every
// other node, in particular every node connected to neither terminal ("free"), is Side::kSink.
//
// Reuse. After maxflow() one may call set_terminal_caps / add_terminal_caps / set_edge_caps and
// call maxflow() again: the flow, the residual graph and the search trees are kept and only the
// changed nodes are repaired; the value returned is always the max flow of the graph with the
// *current* capacities (== a from-scratch solve). Adding nodes or edges after a solve keeps the
// flow but rebuilds the search trees. Because of the reparametrisation, the residuals reported by
// source_residual / sink_residual / residual_uv / residual_vu after reuse are those of an
// equivalent graph whose terminal capacities may exceed the user's ones by the same amount on both
// sides of a node; the user's capacities are always returned unchanged by source_cap / sink_cap /
// cap_uv / cap_vu.
//
// Threads: no internal synchronisation; concurrent const calls are safe, anything else needs
// external locking.
//
// Capacities. Cap is int32_t, int64_t or double (explicitly instantiated in flow_graph.cc). Every
// capacity must be >= 0 (and finite for double), ids must be in range; violations throw
// std::invalid_argument and leave the graph unchanged. Integer types: cap_uv + cap_vu and every
// terminal residual must fit in Cap (checked, std::overflow_error); the flow value is accumulated
// in int64_t and must fit there (not checked during augmentation). Sizes: at most INT32_MAX nodes
// and 2^30 - 1 edges (std::length_error).
//
// Tolerance (double only). A residual r is treated as saturated when r <= its threshold. By default
// the threshold is relative to the capacities the residual belongs to: 1e-12 * (r_uv + r_vu) for the
// two arcs of an edge (their sum is invariant under pushes) and 1e-12 * (source cap + sink cap) for a
// node's terminal residual. Capacities of very different scales (a 1e20 hard constraint beside unit
// arcs) thus keep their own resolution. An explicit set_tolerance(t) (t >= 0, t == 0 meaning exact
// comparisons) replaces every threshold by t (the search trees are rebuilt when it changes, the flow
// is kept). After each augmentation a residual that drops to or below its threshold is snapped to
// exactly 0, so no arc is ever used for a path of negligible capacity and the search cannot spin on
// rounding residue. Residuals at or below their threshold are never used by the search (only the
// direct s->n->t push at capacity-setting time ignores them), "reachable" in the cut convention means
// through residuals above it, and the flow value and the cut capacity agree up to (number of cut arcs)
// * tolerance() plus rounding, where tolerance() is the explicit t or the largest default threshold,
// 2e-12 times the largest capacity ever given. For integer types everything is exact.
#ifndef GAPBCFW_MAXFLOW_FLOW_GRAPH_H_
#define GAPBCFW_MAXFLOW_FLOW_GRAPH_H_

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace gapbcfw {
namespace maxflow {

using NodeId = int32_t;
using EdgeId = int32_t;

enum class Side : uint8_t { kSource = 0, kSink = 1 };

template <class Cap>
class FlowGraph {
  static_assert(std::is_same_v<Cap, int32_t> || std::is_same_v<Cap, int64_t> ||
                    std::is_same_v<Cap, double>,
                "FlowGraph is instantiated for int32_t, int64_t and double only");

 public:
  // Flow values: int64_t for integer capacities (no overflow of sums of int32 capacities), double
  // otherwise.
  using Flow = std::conditional_t<std::is_integral_v<Cap>, int64_t, double>;

  FlowGraph() = default;
  explicit FlowGraph(NodeId num_nodes) { add_nodes(num_nodes); }

  // Appends `count` >= 0 nodes with zero terminal capacities; returns the id of the first one.
  NodeId add_nodes(NodeId count);
  // Appends the edge (u, v) with capacities u->v and v->u; returns its id (0, 1, 2, ...). Parallel
  // edges and self-loops are allowed (a self-loop never carries flow).
  EdgeId add_edge(NodeId u, NodeId v, Cap cap_uv, Cap cap_vu);
  // Capacity hint for the edge arrays (no effect on results).
  void reserve_edges(EdgeId count);

  // Adds source_cap to s->n and sink_cap to n->t (both >= 0).
  void add_terminal_caps(NodeId n, Cap source_cap, Cap sink_cap);
  // Sets the capacities of s->n and n->t to the given values (both >= 0); allowed before and after
  // maxflow() (reuse, KT07).
  void set_terminal_caps(NodeId n, Cap source_cap, Cap sink_cap);
  // Sets both directed capacities of edge e (both >= 0); allowed before and after maxflow().
  void set_edge_caps(EdgeId e, Cap cap_uv, Cap cap_vu);

  // Computes the max flow of the graph with its current capacities and returns its value; reuses
  // the previous solve's flow and search trees when there is one.
  Flow maxflow();
  // The value returned by the last maxflow() (0 before any).
  Flow flow() const { return solved_flow_; }

  // Side of node n in the minimum cut of the last maxflow(); throws std::logic_error when the graph
  // was modified since (or never solved).
  Side segment(NodeId n) const;

  NodeId num_nodes() const { return static_cast<NodeId>(tr_.size()); }
  EdgeId num_edges() const { return static_cast<EdgeId>(edge_u_.size()); }
  NodeId edge_u(EdgeId e) const { return edge_u_[check_edge(e)]; }
  NodeId edge_v(EdgeId e) const { return edge_v_[check_edge(e)]; }
  Cap cap_uv(EdgeId e) const { return edge_cap_[2 * size_t(check_edge(e))]; }
  Cap cap_vu(EdgeId e) const { return edge_cap_[2 * size_t(check_edge(e)) + 1]; }
  Cap source_cap(NodeId n) const { return source_cap_[check_node(n)]; }
  Cap sink_cap(NodeId n) const { return sink_cap_[check_node(n)]; }

  // Residual capacities of the current flow (see "Reuse" above for their meaning after reuse).
  Cap source_residual(NodeId n) const;
  Cap sink_residual(NodeId n) const;
  Cap residual_uv(EdgeId e) const { return arc_residual(2 * size_t(check_edge(e))); }
  Cap residual_vu(EdgeId e) const { return arc_residual(2 * size_t(check_edge(e)) + 1); }

  // The explicit saturation tolerance, else an upper bound on the default relative thresholds (2e-12
  // times the largest capacity); 0 for integer capacities.
  Cap tolerance() const;
  template <class C = Cap, std::enable_if_t<std::is_floating_point_v<C>, int> = 0>
  void set_tolerance(Cap tol) {
    if (!(tol >= 0) || tol == std::numeric_limits<Cap>::infinity())
      throw std::invalid_argument("maxflow: tolerance must be finite and >= 0");
    explicit_tol_ = tol;
    has_explicit_tol_ = true;
  }

 private:
  // Tree membership and special parent values (parent otherwise holds the CSR index of the arc
  // from the node to its parent).
  enum : uint8_t { kFree = 0, kInS = 1, kInT = 2 };
  static constexpr int32_t kNoParent = -1;
  static constexpr int32_t kTerminal = -2;
  static constexpr int32_t kOrphan = -3;

  struct NodeState {
    int32_t parent = kNoParent;
    int32_t dist = 0;      // distance to the tree's terminal, valid when stamp == time_ (BK04 §3.2)
    uint32_t stamp = 0;    // time at which dist was last verified
    uint8_t tree = kFree;
    uint8_t queued = 0;    // in the active FIFO
    uint8_t changed = 0;   // in changed_ (KT07 marking)
  };

  size_t check_node(NodeId n) const;
  size_t check_edge(EdgeId e) const;
  Cap arc_residual(size_t edge_arc) const;
  void invalidate_solution() { solved_ = false; }
  void note_cap(Cap c);
  void mark_changed(NodeId n);

  // Saturation thresholds (see "Tolerance"): a residual is usable only above them. By default they are
  // relative: kRelativeTolerance times the capacity of an arc pair (r_uv + r_vu, invariant under
  // pushes) or of a node's terminal arcs, so capacities of very different scales (e.g. 1e20 for a hard
  // constraint beside unit arcs) keep their own resolution; tol_ >= 0 is an explicit absolute tolerance.
  static constexpr double kRelativeTolerance = 1e-12;
  bool open(int32_t a) const {
    if constexpr (std::is_integral_v<Cap>) {
      return res_[a] > 0;
    } else {
      return res_[a] > (tol_ >= 0 ? tol_ : kRelativeTolerance * (res_[a] + res_[sister_[a]]));
    }
  }
  Cap node_tol(size_t i) const {
    if constexpr (std::is_integral_v<Cap>) {
      return 0;
    } else {
      return tol_ >= 0 ? tol_ : kRelativeTolerance * (source_cap_[i] + sink_cap_[i]);
    }
  }

  void build_arcs();
  void init_trees();
  void repair_trees();
  bool link_ok(NodeId c) const;
  void make_orphan(NodeId n);
  void activate(NodeId n);
  NodeId next_active();
  int32_t grow(NodeId p);
  void augment(int32_t bridge);
  void adopt();
  void advance_time();

  // User-facing data.
  std::vector<Cap> source_cap_, sink_cap_;
  std::vector<NodeId> edge_u_, edge_v_;
  std::vector<Cap> edge_cap_;  // [2e] = cap_uv, [2e+1] = cap_vu

  // Residual state: net terminal residual per node; arcs in CSR order (out-arcs of node n are
  // first_[n] .. first_[n+1]-1), arc_of_[2e] / arc_of_[2e+1] locate edge e's two arcs. Edges added
  // since the last build_arcs() (index >= arcs_built_for_) live only in edge_cap_ (untouched).
  std::vector<Cap> tr_;
  std::vector<int32_t> first_, head_, sister_, arc_of_;
  std::vector<Cap> res_;
  EdgeId arcs_built_for_ = 0;
  bool structure_dirty_ = false;

  // Search trees (BK04 §3.1).
  std::vector<NodeState> st_;
  std::vector<NodeId> queue_;  // ring buffer of active nodes, capacity num_nodes()
  size_t q_head_ = 0, q_size_ = 0;
  std::vector<NodeId> orphans_;
  std::vector<NodeId> changed_;
  uint32_t time_ = 0;
  bool trees_valid_ = false;

  Flow flow_ = 0;         // flow value of the current state (after reparametrisation offsets)
  Flow solved_flow_ = 0;  // value returned by the last maxflow()
  bool solved_ = false;
  Cap tol_ = std::is_integral_v<Cap> ? 0 : -1;  // explicit tolerance in use, -1: the relative default
  Cap max_cap_ = 0;
  Cap explicit_tol_ = 0;
  bool has_explicit_tol_ = false;
};

extern template class FlowGraph<int32_t>;
extern template class FlowGraph<int64_t>;
extern template class FlowGraph<double>;

}  // namespace maxflow
}  // namespace gapbcfw

#endif  // GAPBCFW_MAXFLOW_FLOW_GRAPH_H_
