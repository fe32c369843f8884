// s-t min-cut / max-flow on graphs with terminal capacities (plain C++17, no Node headers).
//
// Algorithm: Y. Boykov and V. Kolmogorov, "An Experimental Comparison of Min-Cut/Max-Flow
// Algorithms for Energy Minimization in Vision", IEEE TPAMI 26(9), 2004 (cited as BK04):
// two search trees S (rooted at the source) and T (rooted at the sink) grown from a FIFO queue of
// active nodes (§3.2 growth stage), augmentation along the S-T path found (§3.2 augmentation
// stage), re-attachment of orphans (§3.2 adoption stage) with the paper's distance-to-terminal +
// timestamp heuristic for choosing the parent closest to the terminal. Two refinements keep the
// trees shallow (see "Tree depth" below): the orphans of an augmenting path are adopted nearest
// to the terminal first, and growth re-attaches a same-tree neighbour to a shallower parent.
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
// Building. Either incrementally (add_nodes, add_edge, set/add_terminal_caps: the residual arcs are
// then laid out by the next maxflow()), or in bulk: assign() lays out nodes, edges and residual arcs
// at once, the capacities are written through source_caps() / sink_caps() / edge_caps() and
// reset_flow() checks them and starts from the zero flow. A graph assigned again with the same
// sizes reuses its memory (no allocation), and with the same edge list also its arc layout: the
// case of a solver that rebuilds the same graph with new capacities many times.
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
// Tree depth. Each tree node carries a distance to its terminal and the time (a counter advanced
// at every augmentation) at which that distance was last set. BK04 uses them when adopting
// orphans; here they also order tree links: a parent's (time, -distance) is always
// lexicographically above its child's. Growth from an active node p may therefore move a
// same-tree neighbour q under p when q's time is not later than p's and q's distance exceeds p's
// by more than one (q cannot be an ancestor of p, so no cycle can form), which keeps augmenting
// paths short. Adopting the orphans of a path from the terminal's end first lets the
// deeper ones find intact parents instead of failing on the not yet re-attached ones above them.
//
// Short paths. Before a fresh search (not when reusing trees) of a graph that fits in the caches
// (below kPrefetchBytes), one scan of the arcs saturates the paths s -> u -> v -> t through a single
// inner arc, node by node. On the superpixel cuts of the segmentation oracle they are half the
// augmenting paths, each found for a few comparisons instead of a growth, an augmentation and an
// adoption (solves 1.2x faster). On large grids the growth finds them as cheaply, and the extra pass
// over memory made weak 1024^2 grids 8% slower, so they skip it.
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
#include <utility>
#include <vector>

namespace gapbcfw {
namespace maxflow {

using NodeId = int32_t;
using EdgeId = int32_t;

enum class Side : uint8_t { kSource = 0, kSink = 1 };

/// Work done by maxflow() calls, summed since the graph was built or reset_flow() was called.
struct SolveCounters {
  int64_t augmentations = 0;  // augmenting paths pushed
  int64_t orphans = 0;        // orphans processed by the adoption stage (BK04 §3.2)
  int64_t adoptions = 0;      // orphans that found a new parent (the others became free)
};

/// Refinements of BK04, all on by default: the two of the tree depth (see "Tree depth") and the
/// short paths pushed before a fresh search (push_short_paths). Switching them off gives plain BK04
/// (FIFO adoption, growth that never re-attaches, every path found by the search); benchmarks measure
/// each one alone so.
struct Refinements {
  bool nearest_orphans_first = true;
  bool shallow_growth = true;
  bool short_paths_first = true;
};

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

  // Bulk construction: the graph becomes `num_nodes` nodes and the edges (from[e], to[e]),
  // e < num_edges, with all capacities zero, no flow, and its residual arcs laid out. Reuses the
  // memory already allocated, and keeps the arc layout when the node count and the edge list are
  // those of the current graph. Throws (leaving the graph empty) on a bad size or node id.
  void assign(NodeId num_nodes, EdgeId num_edges, const NodeId* from, const NodeId* to);
  // The user capacities in bulk: source_caps()[n], sink_caps()[n], edge_caps()[2e] = cap_uv,
  // edge_caps()[2e + 1] = cap_vu. Values written here take effect at reset_flow().
  Cap* source_caps() { return source_cap_.data(); }
  Cap* sink_caps() { return sink_cap_.data(); }
  Cap* edge_caps() { return edge_cap_.data(); }
  // Checks every capacity (as the setters do) and restarts from the zero flow: the next maxflow()
  // solves from scratch. The counters restart too. On a bad capacity it throws and the graph is
  // left with zero capacities.
  void reset_flow();
  // reset_flow() with the capacities read from node(i) -> std::pair<Cap, Cap> (source, sink) and
  // edge(e) -> std::pair<Cap, Cap> (cap_uv, cap_vu) as they are stored: one pass over the nodes and
  // one over the edges, for loading from another representation.
  template <class NodeCaps, class EdgeCaps>
  void load_capacities(NodeCaps&& node, EdgeCaps&& edge);

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
  // True when maxflow() ran after the last change.
  bool solved() const { return solved_; }
  const SolveCounters& counters() const { return counters_; }
  void set_refinements(Refinements r) { refinements_ = r; }

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

  // Approximate heap memory held by the graph, in bytes.
  size_t memory_bytes() const;

 private:
  friend struct FlowGraphTestAccess;  // test_maxflow.cc: drives the time counter to its wrap-around

  // Tree membership and special parent values (parent otherwise holds the index of the arc from
  // the node to its parent).
  enum : uint8_t { kFree = 0, kInS = 1, kInT = 2 };
  static constexpr int32_t kNoParent = -1;
  static constexpr int32_t kTerminal = -2;
  static constexpr int32_t kOrphan = -3;

  struct NodeState {
    int32_t parent = kNoParent;
    int32_t dist = 0;      // distance to the tree's terminal when it was last set (at time stamp)
    uint32_t stamp = 0;    // time at which dist was last set (BK04 §3.2; see "Tree depth")
    uint8_t tree = kFree;
    uint8_t queued = 0;    // in the active FIFO
    uint8_t changed = 0;   // in changed_ (KT07 marking)
  };

  // A residual arc. The out-arcs of node n are arcs_[first_[n] .. first_[n+1]-1]; `sister` is the
  // reverse arc. `rev` mirrors the sister's residual, so that every test of either direction of an
  // arc pair reads one place (both copies change together in push()).
  struct Arc {
    NodeId head;
    int32_t sister;
    Cap res;
    Cap rev;
  };

  // The tests of the setters' checks for one capacity and for a pair's sum, without branches or throws.
  static bool valid_cap(Cap c) {
    if constexpr (std::is_floating_point_v<Cap>) {
      return c >= 0 && c <= std::numeric_limits<Cap>::max();
    } else {
      return c >= 0;
    }
  }
  static bool valid_pair(Cap a, Cap b) {
    if constexpr (std::is_floating_point_v<Cap>) {
      return a + b <= std::numeric_limits<Cap>::max();
    } else {  // unsigned arithmetic: no overflow whatever a and b are (negative ones fail valid_cap)
      return static_cast<uint64_t>(a) + static_cast<uint64_t>(b) <= static_cast<uint64_t>(std::numeric_limits<Cap>::max());
    }
  }
  // Throws the setters' exception for the first bad stored capacity and leaves zero capacities.
  [[noreturn]] void report_bad_capacities();

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
  bool usable(Cap r, Cap pair_sum) const {
    if constexpr (std::is_integral_v<Cap>) {
      (void)pair_sum;
      return r > 0;
    } else {
      return r > (tol_ >= 0 ? tol_ : kRelativeTolerance * pair_sum);
    }
  }
  bool open(const Arc& a) const { return usable(a.res, a.res + a.rev); }      // the arc itself
  bool open_rev(const Arc& a) const { return usable(a.rev, a.res + a.rev); }  // its sister
  Cap node_tol(size_t i) const {
    if constexpr (std::is_integral_v<Cap>) {
      return 0;
    } else {
      return tol_ >= 0 ? tol_ : kRelativeTolerance * (source_cap_[i] + sink_cap_[i]);
    }
  }
  // Moves `b` units of flow along arc a (a.res -= b, its sister's += b) in both copies.
  void push(int32_t a, Cap b) {
    Arc& x = arcs_[a];
    Arc& y = arcs_[x.sister];
    x.res -= b;
    x.rev += b;
    y.res += b;
    y.rev -= b;
  }
  void set_arc_pair(int32_t a, Cap res, Cap rev) {
    arcs_[a].res = res;
    arcs_[a].rev = rev;
    arcs_[arcs_[a].sister].res = rev;
    arcs_[arcs_[a].sister].rev = res;
  }

  void build_arcs();
  void init_trees();
  void push_short_paths();  // s -> u -> v -> t paths before a fresh search (see the definition)
  void repair_trees();
  bool link_ok(NodeId c) const;
  void make_orphan(NodeId n);
  void activate(NodeId n);
  NodeId next_active();
  int32_t grow(NodeId p);
  void augment(int32_t bridge);
  void adopt();
  void advance_time();
  void restamp();

  // User-facing data.
  std::vector<Cap> source_cap_, sink_cap_;
  std::vector<NodeId> edge_u_, edge_v_;
  std::vector<Cap> edge_cap_;  // [2e] = cap_uv, [2e+1] = cap_vu

  // Residual state: net terminal residual per node; the arcs in CSR order; arc_of_[2e] / arc_of_[2e+1]
  // locate edge e's two arcs. Edges added since the last build_arcs() (index >= arcs_built_for_) live
  // only in edge_cap_ (untouched).
  std::vector<Cap> tr_;
  std::vector<int32_t> first_, arc_of_;
  std::vector<Arc> arcs_;
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
  // Prefetch ahead in the search only when the graph outgrows the caches (on small graphs it only costs).
  static constexpr size_t kPrefetchBytes = size_t{1} << 20;
  bool prefetch_ = false;

  Flow flow_ = 0;         // flow value of the current state (after reparametrisation offsets)
  Flow solved_flow_ = 0;  // value returned by the last maxflow()
  bool solved_ = false;
  SolveCounters counters_;
  Refinements refinements_;
  Cap tol_ = std::is_integral_v<Cap> ? 0 : -1;  // explicit tolerance in use, -1: the relative default
  Cap max_cap_ = 0;
  Cap explicit_tol_ = 0;
  bool has_explicit_tol_ = false;
};

template <class Cap>
template <class NodeCaps, class EdgeCaps>
void FlowGraph<Cap>::load_capacities(NodeCaps&& node, EdgeCaps&& edge) {
  if (structure_dirty_) {
    arcs_built_for_ = 0;  // every residual is set below
    build_arcs();
  }
  const size_t n = tr_.size(), m = edge_u_.size();
  // The zero flow, except that a node with both terminal capacities sends their minimum along
  // s->n->t at once (see "Model"). Bad values are flagged without branches (and replaced by 0 in
  // the arithmetic), then reported.
  unsigned bad = 0;
  Flow flow = 0;
  Cap largest = 0;
  for (size_t i = 0; i < n; ++i) {
    const std::pair<Cap, Cap> c = node(i);
    source_cap_[i] = c.first;
    sink_cap_[i] = c.second;
    const bool ok = valid_cap(c.first) && valid_cap(c.second);
    bad |= !ok;
    const Cap s = ok ? c.first : Cap{0}, t = ok ? c.second : Cap{0};
    tr_[i] = static_cast<Cap>(s - t);
    flow += s < t ? s : t;
    largest = std::max(largest, s > t ? s : t);
  }
  for (size_t e = 0; e < m; ++e) {
    const std::pair<Cap, Cap> c = edge(e);
    edge_cap_[2 * e] = c.first;
    edge_cap_[2 * e + 1] = c.second;
    const bool ok = valid_cap(c.first) && valid_cap(c.second) && valid_pair(c.first, c.second);
    bad |= !ok;
    const Cap uv = ok ? c.first : Cap{0}, vu = ok ? c.second : Cap{0};
    set_arc_pair(arc_of_[2 * e], uv, vu);
    largest = std::max(largest, uv > vu ? uv : vu);
  }
  if (bad != 0) report_bad_capacities();
  max_cap_ = 0;
  note_cap(largest);
  flow_ = flow;
  solved_flow_ = 0;
  solved_ = false;
  trees_valid_ = false;
  changed_.clear();
  counters_ = SolveCounters{};
}

extern template class FlowGraph<int32_t>;
extern template class FlowGraph<int64_t>;
extern template class FlowGraph<double>;

}  // namespace maxflow
}  // namespace gapbcfw

#endif  // GAPBCFW_MAXFLOW_FLOW_GRAPH_H_
