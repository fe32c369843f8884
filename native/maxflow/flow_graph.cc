// Boykov-Kolmogorov max-flow with Kohli-Torr reuse; see flow_graph.h for the contract and the
// references (BK04, KT07). Written from the papers.
#include "maxflow/flow_graph.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace gapbcfw {
namespace maxflow {

namespace {

// A hint that *p will be read soon (the search jumps all over large graphs; asking one or two steps
// ahead overlaps the memory latency with the current node's work).
inline void prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

template <class Cap>
void check_cap(Cap c, const char* what) {
  if constexpr (std::is_floating_point_v<Cap>) {
    if (!std::isfinite(c))
      throw std::invalid_argument(std::string("maxflow: ") + what + " must be finite");
  }
  if (c < 0) throw std::invalid_argument(std::string("maxflow: ") + what + " must be >= 0");
}

// a + b, required to stay within [-max, max] (integers) or finite (double).
template <class Cap>
Cap checked_add(Cap a, Cap b) {
  if constexpr (std::is_integral_v<Cap>) {
    constexpr Cap kMax = std::numeric_limits<Cap>::max();
    if ((b > 0 && a > kMax - b) || (b < 0 && a < -kMax - b))
      throw std::overflow_error("maxflow: capacity overflow");
    return a + b;
  } else {
    const Cap r = a + b;
    if (!std::isfinite(r)) throw std::overflow_error("maxflow: capacity overflow");
    return r;
  }
}

// Changes the capacity of s->n by delta (any sign) for a node whose net terminal residual is tr.
// Growth: the part that meets residual on n->t is pushed along s->n->t at once. Shrinkage below the
// residual: the missing amount e is added to both terminal capacities (KT07 reparametrisation: every
// cut grows by e, so the flow value bookkeeping drops by e), which leaves r(s->n) = 0.
template <class Cap, class Flow>
void shift_source(Cap& tr, Flow& flow, Cap delta) {
  if (delta >= 0) {
    if (tr < 0) flow += std::min<Cap>(delta, -tr);
  } else {
    const Cap avail = tr > 0 ? tr : 0;
    if (-delta > avail) flow -= -delta - avail;
  }
  tr = checked_add(tr, delta);
}

// Same for n->t (mirror image: the sink residual is -tr).
template <class Cap, class Flow>
void shift_sink(Cap& tr, Flow& flow, Cap delta) {
  Cap mirrored = -tr;
  shift_source(mirrored, flow, delta);
  tr = -mirrored;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Construction and capacity changes.

template <class Cap>
size_t FlowGraph<Cap>::check_node(NodeId n) const {
  if (n < 0 || n >= num_nodes())
    throw std::invalid_argument("maxflow: node id " + std::to_string(n) + " out of range [0, " +
                                std::to_string(num_nodes()) + ")");
  return static_cast<size_t>(n);
}

template <class Cap>
size_t FlowGraph<Cap>::check_edge(EdgeId e) const {
  if (e < 0 || e >= num_edges())
    throw std::invalid_argument("maxflow: edge id " + std::to_string(e) + " out of range [0, " +
                                std::to_string(num_edges()) + ")");
  return static_cast<size_t>(e);
}

template <class Cap>
void FlowGraph<Cap>::note_cap(Cap c) {
  if constexpr (std::is_floating_point_v<Cap>) max_cap_ = std::max(max_cap_, c);
}

template <class Cap>
void FlowGraph<Cap>::mark_changed(NodeId n) {
  // Without valid trees the next maxflow() rebuilds them all, so nothing needs marking.
  if (trees_valid_ && !st_[n].changed) {
    st_[n].changed = 1;
    changed_.push_back(n);
  }
}

template <class Cap>
NodeId FlowGraph<Cap>::add_nodes(NodeId count) {
  if (count < 0) throw std::invalid_argument("maxflow: node count must be >= 0");
  const NodeId first = num_nodes();
  if (count > std::numeric_limits<NodeId>::max() - first)
    throw std::length_error("maxflow: too many nodes");
  if (count == 0) return first;
  const size_t n = static_cast<size_t>(first) + static_cast<size_t>(count);
  source_cap_.resize(n, 0);
  sink_cap_.resize(n, 0);
  tr_.resize(n, 0);
  st_.resize(n);
  structure_dirty_ = true;
  invalidate_solution();
  return first;
}

template <class Cap>
EdgeId FlowGraph<Cap>::add_edge(NodeId u, NodeId v, Cap cap_uv, Cap cap_vu) {
  check_node(u);
  check_node(v);
  check_cap(cap_uv, "edge capacity");
  check_cap(cap_vu, "edge capacity");
  checked_add(cap_uv, cap_vu);  // r_uv + r_vu == cap_uv + cap_vu must be representable
  if (num_edges() >= (EdgeId{1} << 30) - 1) throw std::length_error("maxflow: too many edges");
  edge_u_.push_back(u);
  edge_v_.push_back(v);
  edge_cap_.push_back(cap_uv);
  edge_cap_.push_back(cap_vu);
  note_cap(cap_uv);
  note_cap(cap_vu);
  structure_dirty_ = true;
  invalidate_solution();
  return num_edges() - 1;
}

template <class Cap>
void FlowGraph<Cap>::reserve_edges(EdgeId count) {
  if (count < 0) throw std::invalid_argument("maxflow: edge count must be >= 0");
  edge_u_.reserve(static_cast<size_t>(count));
  edge_v_.reserve(static_cast<size_t>(count));
  edge_cap_.reserve(2 * static_cast<size_t>(count));
}

template <class Cap>
void FlowGraph<Cap>::assign(NodeId num_nodes, EdgeId num_edges, const NodeId* from, const NodeId* to) {
  if (num_nodes < 0) throw std::invalid_argument("maxflow: node count must be >= 0");
  if (num_edges < 0) throw std::invalid_argument("maxflow: edge count must be >= 0");
  if (num_edges > (EdgeId{1} << 30) - 1) throw std::length_error("maxflow: too many edges");
  const size_t n = static_cast<size_t>(num_nodes), m = static_cast<size_t>(num_edges);
  unsigned bad = 0;
  for (size_t e = 0; e < m; ++e) bad |= (from[e] < 0) | (from[e] >= num_nodes) | (to[e] < 0) | (to[e] >= num_nodes);
  for (size_t e = 0; bad != 0 && e < m; ++e) {
    for (const NodeId x : {from[e], to[e]}) {
      if (x < 0 || x >= num_nodes) {
        *this = FlowGraph();
        throw std::invalid_argument("maxflow: edge " + std::to_string(e) + ": node id " + std::to_string(x) +
                                    " out of range [0, " + std::to_string(num_nodes) + ")");
      }
    }
  }
  // The arc layout depends only on the node count and the edge list: keep it when they are unchanged.
  const bool same_layout = !structure_dirty_ && tr_.size() == n && arcs_built_for_ == num_edges &&
                           edge_u_.size() == m && std::equal(edge_u_.begin(), edge_u_.end(), from) &&
                           std::equal(edge_v_.begin(), edge_v_.end(), to);
  source_cap_.assign(n, 0);
  sink_cap_.assign(n, 0);
  tr_.assign(n, 0);
  st_.resize(n);  // reset by init_trees before the first solve
  edge_cap_.assign(2 * m, 0);
  changed_.clear();
  flow_ = solved_flow_ = 0;
  solved_ = false;
  trees_valid_ = false;
  counters_ = SolveCounters{};
  max_cap_ = 0;
  if (same_layout) {
    for (Arc& a : arcs_) a.res = a.rev = 0;
    return;
  }
  edge_u_.assign(from, from + m);
  edge_v_.assign(to, to + m);
  arcs_built_for_ = 0;  // no residuals to keep
  build_arcs();
}

template <class Cap>
void FlowGraph<Cap>::reset_flow() {
  load_capacities([this](size_t i) { return std::pair<Cap, Cap>(source_cap_[i], sink_cap_[i]); },
                  [this](size_t e) { return std::pair<Cap, Cap>(edge_cap_[2 * e], edge_cap_[2 * e + 1]); });
}

template <class Cap>
void FlowGraph<Cap>::report_bad_capacities() {
  try {
    for (size_t i = 0; i < source_cap_.size(); ++i) {
      check_cap(source_cap_[i], "source capacity");
      check_cap(sink_cap_[i], "sink capacity");
    }
    for (size_t k = 0; k < edge_cap_.size(); k += 2) {
      check_cap(edge_cap_[k], "edge capacity");
      check_cap(edge_cap_[k + 1], "edge capacity");
      checked_add(edge_cap_[k], edge_cap_[k + 1]);
    }
    throw std::invalid_argument("maxflow: invalid capacity");
  } catch (...) {
    std::fill(source_cap_.begin(), source_cap_.end(), Cap{0});
    std::fill(sink_cap_.begin(), sink_cap_.end(), Cap{0});
    std::fill(edge_cap_.begin(), edge_cap_.end(), Cap{0});
    reset_flow();
    throw;
  }
}

template <class Cap>
void FlowGraph<Cap>::add_terminal_caps(NodeId n, Cap source_cap, Cap sink_cap) {
  const size_t i = check_node(n);
  check_cap(source_cap, "source capacity");
  check_cap(sink_cap, "sink capacity");
  set_terminal_caps(n, checked_add(source_cap_[i], source_cap), checked_add(sink_cap_[i], sink_cap));
}

template <class Cap>
void FlowGraph<Cap>::set_terminal_caps(NodeId n, Cap source_cap, Cap sink_cap) {
  const size_t i = check_node(n);
  check_cap(source_cap, "source capacity");
  check_cap(sink_cap, "sink capacity");
  // KT07, updating the residual graph: apply the capacity deltas to the residuals (locals first so
  // that an overflow leaves the graph unchanged).
  Cap tr = tr_[i];
  Flow flow = flow_;
  shift_source(tr, flow, static_cast<Cap>(source_cap - source_cap_[i]));
  shift_sink(tr, flow, static_cast<Cap>(sink_cap - sink_cap_[i]));
  tr_[i] = tr;
  flow_ = flow;
  source_cap_[i] = source_cap;
  sink_cap_[i] = sink_cap;
  note_cap(source_cap);
  note_cap(sink_cap);
  mark_changed(n);
  invalidate_solution();
}

template <class Cap>
void FlowGraph<Cap>::set_edge_caps(EdgeId e, Cap cap_uv, Cap cap_vu) {
  const size_t i = check_edge(e);
  check_cap(cap_uv, "edge capacity");
  check_cap(cap_vu, "edge capacity");
  checked_add(cap_uv, cap_vu);
  invalidate_solution();
  note_cap(cap_uv);
  note_cap(cap_vu);
  if (e >= arcs_built_for_) {  // not in the residual graph yet: its residuals are its capacities
    edge_cap_[2 * i] = cap_uv;
    edge_cap_[2 * i + 1] = cap_vu;
    return;
  }
  // KT07, updating the residual graph for an edge: keep the net flow g (u->v) if it still fits in
  // [-cap_vu, cap_uv], else clamp it. Clamping leaves e units of excess at one endpoint and a
  // deficit of e at the other; they are absorbed by adding e to both terminal capacities of both
  // endpoints (every cut grows by 2e) and routing the excess to t and the deficit from s (the flow
  // value grows by e): net bookkeeping -e, residual +e on s->excess node and on deficit node->t.
  const int32_t a = arc_of_[2 * i];
  const NodeId u = edge_u_[i], v = edge_v_[i];
  const Cap g = static_cast<Cap>(edge_cap_[2 * i] - arcs_[a].res);
  const Cap g_new = std::clamp<Cap>(g, static_cast<Cap>(-cap_vu), cap_uv);
  Cap tr_u = tr_[u], tr_v = tr_[v];
  Flow flow = flow_;
  if (u != v && g != g_new) {
    const bool u_excess = g > g_new;
    const Cap excess = u_excess ? static_cast<Cap>(g - g_new) : static_cast<Cap>(g_new - g);
    flow -= excess;
    shift_source(u_excess ? tr_u : tr_v, flow, excess);
    shift_sink(u_excess ? tr_v : tr_u, flow, excess);
  }
  set_arc_pair(a, static_cast<Cap>(cap_uv - g_new), static_cast<Cap>(cap_vu + g_new));
  tr_[u] = tr_u;
  tr_[v] = tr_v;
  flow_ = flow;
  edge_cap_[2 * i] = cap_uv;
  edge_cap_[2 * i + 1] = cap_vu;
  mark_changed(u);
  mark_changed(v);
}

// ---------------------------------------------------------------------------------------------
// Queries.

template <class Cap>
Cap FlowGraph<Cap>::arc_residual(size_t edge_arc) const {
  if (edge_arc / 2 >= static_cast<size_t>(arcs_built_for_)) return edge_cap_[edge_arc];
  return arcs_[arc_of_[edge_arc]].res;
}

template <class Cap>
Cap FlowGraph<Cap>::source_residual(NodeId n) const {
  const Cap t = tr_[check_node(n)];
  return t > 0 ? t : 0;
}

template <class Cap>
Cap FlowGraph<Cap>::sink_residual(NodeId n) const {
  const Cap t = tr_[check_node(n)];
  return t < 0 ? static_cast<Cap>(-t) : 0;
}

template <class Cap>
Cap FlowGraph<Cap>::tolerance() const {
  if constexpr (std::is_integral_v<Cap>) {
    return 0;
  } else {
    // The default thresholds are relative (kRelativeTolerance times an arc pair's or a node's terminal
    // capacities), so none exceeds kRelativeTolerance times twice the largest capacity.
    return has_explicit_tol_ ? explicit_tol_ : 2 * kRelativeTolerance * max_cap_;
  }
}

template <class Cap>
Side FlowGraph<Cap>::segment(NodeId n) const {
  const size_t i = check_node(n);
  if (!solved_) throw std::logic_error("maxflow: segment() needs maxflow() after the last change");
  return st_[i].tree == kInS ? Side::kSource : Side::kSink;
}

template <class Cap>
size_t FlowGraph<Cap>::memory_bytes() const {
  return sizeof(*this) + (source_cap_.capacity() + sink_cap_.capacity() + edge_cap_.capacity() + tr_.capacity()) * sizeof(Cap) +
         (edge_u_.capacity() + edge_v_.capacity() + first_.capacity() + arc_of_.capacity() + queue_.capacity() +
          orphans_.capacity() + changed_.capacity()) * sizeof(int32_t) +
         arcs_.capacity() * sizeof(Arc) + st_.capacity() * sizeof(NodeState);
}

// ---------------------------------------------------------------------------------------------
// The algorithm.

template <class Cap>
typename FlowGraph<Cap>::Flow FlowGraph<Cap>::maxflow() {
  if (structure_dirty_) build_arcs();
  // tol_: the explicit tolerance, or -1 for the default relative thresholds (0 for integers).
  const Cap mode = has_explicit_tol_ ? explicit_tol_ : (std::is_integral_v<Cap> ? 0 : -1);
  if (mode != tol_) {  // tree links were validated against the old thresholds: rebuild the trees
    tol_ = mode;
    trees_valid_ = false;
  }
  if (trees_valid_) {
    repair_trees();
  } else {
    init_trees();
    trees_valid_ = true;
  }
  adopt();
  // BK04 §3.1: alternate growth, augmentation and adoption until no active node is left. The node
  // whose growth found a path stays current (it may touch further paths) unless it left its tree.
  NodeId cur = -1;
  for (;;) {
    if (cur < 0 || st_[cur].tree == kFree) {
      cur = next_active();
      if (cur < 0) break;
    }
    const int32_t bridge = grow(cur);
    if (bridge < 0) {
      cur = -1;
      continue;
    }
    advance_time();
    augment(bridge);
    adopt();
  }
  solved_flow_ = flow_;
  solved_ = true;
  return flow_;
}

template <class Cap>
void FlowGraph<Cap>::build_arcs() {
  // Residual arcs in CSR order (out-arcs of each node contiguous). Edges already in the residual
  // graph keep their residuals (the flow survives structural changes), new edges start at their
  // capacities.
  const size_t n = tr_.size(), m = edge_u_.size();
  std::vector<Cap> kept(2 * static_cast<size_t>(arcs_built_for_));
  for (size_t k = 0; k < kept.size(); ++k) kept[k] = arcs_[arc_of_[k]].res;
  first_.assign(n + 1, 0);
  for (size_t e = 0; e < m; ++e) {
    ++first_[edge_u_[e] + 1];
    ++first_[edge_v_[e] + 1];
  }
  for (size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
  queue_.assign(first_.begin(), first_.end() - 1);  // fill positions (the queue is reset by init_trees)
  arc_of_.resize(2 * m);
  arcs_.resize(2 * m);
  for (size_t e = 0; e < m; ++e) {
    const NodeId u = edge_u_[e], v = edge_v_[e];
    const int32_t a = queue_[u]++, b = queue_[v]++;
    const Cap r_uv = 2 * e < kept.size() ? kept[2 * e] : edge_cap_[2 * e];
    const Cap r_vu = 2 * e < kept.size() ? kept[2 * e + 1] : edge_cap_[2 * e + 1];
    arc_of_[2 * e] = a;
    arc_of_[2 * e + 1] = b;
    arcs_[a] = Arc{v, b, r_uv, r_vu};
    arcs_[b] = Arc{u, a, r_vu, r_uv};
  }
  arcs_built_for_ = static_cast<EdgeId>(m);
  structure_dirty_ = false;
  trees_valid_ = false;  // parent arcs refer to the old arc numbering
  orphans_.reserve(n);   // adoption rounds hold each node at most once: never reallocates later
  prefetch_ = arcs_.size() * sizeof(Arc) + n * sizeof(NodeState) > kPrefetchBytes;
}

template <class Cap>
void FlowGraph<Cap>::init_trees() {
  // BK04 §3.1 initialisation: S = {s}, T = {t}; with terminal capacities folded into the nodes,
  // every node with source (sink) residual is a root of S (T), active; the rest are free.
  q_head_ = q_size_ = 0;
  orphans_.clear();
  changed_.clear();
  time_ = 1;
  if (refinements_.short_paths_first && !prefetch_) push_short_paths();
  for (size_t i = 0; i < st_.size(); ++i) {
    NodeState& s = st_[i];
    s = NodeState{};
    const Cap t = tr_[i];
    if (t > node_tol(i) || t < -node_tol(i)) {
      s.tree = t > 0 ? kInS : kInT;
      s.parent = kTerminal;
      s.dist = 1;
      s.stamp = time_;
      activate(static_cast<NodeId>(i));
    }
  }
}

template <class Cap>
void FlowGraph<Cap>::push_short_paths() {
  // "Short paths" in flow_graph.h: augmenting paths like any other (the max flow and the minimal cut
  // stay the same), pushed with the same saturation snapping as augment().
  const size_t n = tr_.size();
  Flow pushed = 0;
  int64_t paths = 0;
  for (size_t u = 0; u < n; ++u) {
    Cap excess = tr_[u];
    if (excess <= node_tol(u)) continue;
    for (int32_t a = first_[u]; a < first_[u + 1]; ++a) {
      Arc& x = arcs_[a];
      const NodeId v = x.head;
      const Cap deficit = -tr_[v];
      if (deficit <= node_tol(v) || !open(x)) continue;
      const Cap b = std::min(std::min(excess, deficit), x.res);
      push(a, b);
      if (!open(x)) {  // snap a negligible residue to 0 (see "Tolerance")
        x.res = 0;
        arcs_[x.sister].rev = 0;
      }
      tr_[v] = b - deficit >= -node_tol(v) ? Cap{0} : static_cast<Cap>(b - deficit);
      pushed += b;
      ++paths;
      excess -= b;
      if (excess <= node_tol(u)) {
        excess = 0;
        break;
      }
    }
    tr_[u] = excess;
  }
  flow_ += pushed;
  counters_.augmentations += paths;
}

template <class Cap>
bool FlowGraph<Cap>::link_ok(NodeId c) const {
  // A tree link child -> parent needs both ends in the same tree and residual capacity in the
  // tree's direction: parent->child in S, child->parent in T (BK04 §3.1).
  const Arc& up = arcs_[st_[c].parent];
  const uint8_t tree = st_[c].tree;
  if (st_[up.head].tree != tree) return false;
  return tree == kInS ? open_rev(up) : open(up);
}

template <class Cap>
void FlowGraph<Cap>::repair_trees() {
  // KT07, recycling search trees: only nodes whose terminal or edge capacities changed are looked
  // at. A node with (net) terminal residual becomes a root of the matching tree; a former root that
  // lost it, and every tree link through a changed node that is no longer valid, yields an orphan
  // for the adoption stage. Changed nodes in a tree become active so the growth stage sees the
  // new residual capacities.
  advance_time();
  for (const NodeId n : changed_) {
    NodeState& s = st_[n];
    s.changed = 0;
    const Cap t = tr_[n];
    if (t > node_tol(n) || t < -node_tol(n)) {
      s.tree = t > 0 ? kInS : kInT;
      s.parent = kTerminal;
      s.dist = 1;
      s.stamp = time_;
    } else if (s.tree != kFree && s.parent == kTerminal) {
      make_orphan(n);
    }
    if (s.tree != kFree && s.parent >= 0 && !link_ok(n)) make_orphan(n);
    for (int32_t a = first_[n]; a < first_[n + 1]; ++a) {
      const NodeId q = arcs_[a].head;
      if (st_[q].tree != kFree && st_[q].parent == arcs_[a].sister && !link_ok(q)) make_orphan(q);
    }
    if (s.tree != kFree) activate(n);
  }
  changed_.clear();
}

template <class Cap>
void FlowGraph<Cap>::make_orphan(NodeId n) {
  st_[n].parent = kOrphan;
  orphans_.push_back(n);
}

template <class Cap>
void FlowGraph<Cap>::activate(NodeId n) {
  NodeState& s = st_[n];
  if (s.queued) return;
  s.queued = 1;
  size_t pos = q_head_ + q_size_;
  if (pos >= queue_.size()) pos -= queue_.size();
  queue_[pos] = n;
  ++q_size_;
}

template <class Cap>
NodeId FlowGraph<Cap>::next_active() {
  // FIFO order (BK04 §3.2); nodes freed while queued are skipped here.
  while (q_size_ > 0) {
    const NodeId n = queue_[q_head_];
    if (++q_head_ == queue_.size()) q_head_ = 0;
    --q_size_;
    if (prefetch_ && q_size_ > 1) {  // the next node's arcs, and the state of the one after
      const NodeId n1 = queue_[q_head_];
      const NodeId n2 = queue_[q_head_ + 1 == queue_.size() ? 0 : q_head_ + 1];
      prefetch(arcs_.data() + first_[n1]);
      prefetch(&st_[n2]);
      prefetch(&first_[n2]);
    }
    st_[n].queued = 0;
    if (st_[n].tree != kFree) return n;
  }
  return -1;
}

template <class Cap>
int32_t FlowGraph<Cap>::grow(NodeId p) {
  // BK04 §3.2 growth stage: the active node p acquires free neighbours reachable through
  // non-saturated arcs (p->q for S, q->p for T); meeting the other tree gives a path, returned as
  // the bridging arc oriented S -> T. Returns -1 when p has nothing left to explore. A same-tree
  // neighbour q that p reaches and that would be closer to the terminal as p's child moves under p
  // when its time is not later than p's (see "Tree depth" in flow_graph.h: its (time, -distance) is
  // then below p's, so it is no ancestor of p).
  // Either way q's link to its new parent p is the arc q -> p, the sister of p's arc.
  const NodeState& sp = st_[p];
  const bool in_s = sp.tree == kInS;
  const bool shallow = refinements_.shallow_growth;
  const int32_t end = first_[p + 1];
  for (int32_t a = first_[p]; a < end; ++a) {
    const Arc& arc = arcs_[a];
    if (!(in_s ? open(arc) : open_rev(arc))) continue;
    NodeState& sq = st_[arc.head];
    if (sq.tree == kFree) {
      sq.tree = sp.tree;
      sq.parent = arc.sister;
      sq.dist = sp.dist + 1;
      sq.stamp = sp.stamp;
      activate(arc.head);
    } else if (sq.tree != sp.tree) {
      return in_s ? a : arc.sister;
    } else if (shallow && sq.stamp <= sp.stamp && sq.dist > sp.dist + 1) {
      sq.parent = arc.sister;
      sq.dist = sp.dist + 1;
      sq.stamp = sp.stamp;
    }
  }
  return -1;
}

template <class Cap>
void FlowGraph<Cap>::augment(int32_t bridge) {
  // BK04 §3.2 augmentation stage: push the bottleneck capacity along
  // s -> ... -> u -> v -> ... -> t; every tree link (or terminal arc) it saturates turns its child
  // (or root) into an orphan. Each half of the path is walked from the bridge towards its terminal,
  // so its orphans are listed deepest first; with nearest_orphans_first the list is reversed, and
  // the adoption stage meets every orphan after the orphans above it have been re-attached.
  ++counters_.augmentations;
  const NodeId u = arcs_[arcs_[bridge].sister].head, v = arcs_[bridge].head;
  Cap b = arcs_[bridge].res;
  NodeId n = u;
  for (; st_[n].parent != kTerminal; n = arcs_[st_[n].parent].head) b = std::min(b, arcs_[st_[n].parent].rev);
  b = std::min(b, tr_[n]);
  for (n = v; st_[n].parent != kTerminal; n = arcs_[st_[n].parent].head) b = std::min(b, arcs_[st_[n].parent].res);
  b = std::min<Cap>(b, -tr_[n]);

  push(bridge, b);
  if (!open(arcs_[bridge])) {  // snap a negligible residue to 0 (see "Tolerance")
    arcs_[bridge].res = 0;
    arcs_[arcs_[bridge].sister].rev = 0;
  }
  const bool reverse = refinements_.nearest_orphans_first;
  size_t mark = orphans_.size();
  for (n = u;;) {  // source half: each link parent -> n loses b
    const int32_t pa = st_[n].parent;
    if (pa == kTerminal) {
      tr_[n] -= b;
      if (tr_[n] <= node_tol(n)) {
        tr_[n] = 0;
        make_orphan(n);
      }
      break;
    }
    const int32_t down = arcs_[pa].sister;
    push(down, b);
    if (!open(arcs_[down])) {
      arcs_[down].res = 0;
      arcs_[pa].rev = 0;
      make_orphan(n);
    }
    n = arcs_[pa].head;
  }
  if (reverse) std::reverse(orphans_.begin() + static_cast<std::ptrdiff_t>(mark), orphans_.end());
  mark = orphans_.size();
  for (n = v;;) {  // sink half: each link n -> parent loses b
    const int32_t pa = st_[n].parent;
    if (pa == kTerminal) {
      tr_[n] += b;
      if (tr_[n] >= -node_tol(n)) {
        tr_[n] = 0;
        make_orphan(n);
      }
      break;
    }
    push(pa, b);
    if (!open(arcs_[pa])) {
      arcs_[pa].res = 0;
      arcs_[arcs_[pa].sister].rev = 0;
      make_orphan(n);
    }
    n = arcs_[pa].head;
  }
  if (reverse) std::reverse(orphans_.begin() + static_cast<std::ptrdiff_t>(mark), orphans_.end());
  flow_ += b;
}

template <class Cap>
void FlowGraph<Cap>::adopt() {
  // BK04 §3.2 adoption stage. An orphan looks for a new parent among its same-tree neighbours
  // linked by a non-saturated arc whose path to the terminal does not pass through an orphan; of
  // those it takes the one closest to the terminal (distance heuristic). Distances verified in the
  // current round carry stamp == time_, so each walk towards the terminal stops at the first
  // already verified node. Without a parent the orphan becomes free: its children become orphans
  // and the neighbours that could grow into it become active. The paper needs this only for
  // same-tree neighbours; after a reuse repair (a node switched trees) a passive node of the other
  // tree may also have residual towards it, so both trees are checked.
  for (size_t i = 0; i < orphans_.size(); ++i) {
    const NodeId o = orphans_[i];
    if (prefetch_ && i + 1 < orphans_.size()) {  // the next orphan's arcs, and the state of the one after
      prefetch(arcs_.data() + first_[orphans_[i + 1]]);
      if (i + 2 < orphans_.size()) {
        prefetch(&st_[orphans_[i + 2]]);
        prefetch(&first_[orphans_[i + 2]]);
      }
    }
    if (st_[o].parent != kOrphan) continue;  // re-rooted meanwhile (repair_trees)
    ++counters_.orphans;
    const uint8_t tree = st_[o].tree;
    const int32_t end = first_[o + 1];
    int32_t best = -1;
    int32_t best_d = std::numeric_limits<int32_t>::max();
    for (int32_t a = first_[o]; a < end; ++a) {
      const Arc& arc = arcs_[a];
      const NodeId q = arc.head;
      if (st_[q].tree != tree || st_[q].parent == arc.sister) continue;  // other tree, or a child of o
      if (!(tree == kInS ? open_rev(arc) : open(arc))) continue;
      int32_t d = 0;
      NodeId x = q;
      bool valid = true;
      for (;;) {
        const NodeState& sx = st_[x];
        if (sx.stamp == time_) {
          d += sx.dist;
          break;
        }
        if (sx.parent == kOrphan) {
          valid = false;
          break;
        }
        ++d;
        if (sx.parent == kTerminal) break;
        x = arcs_[sx.parent].head;
      }
      if (!valid) continue;
      if (d < best_d) {
        best_d = d;
        best = a;
      }
      int32_t dd = d;
      for (x = q; st_[x].stamp != time_; x = arcs_[st_[x].parent].head) {
        st_[x].stamp = time_;
        st_[x].dist = dd--;
        if (st_[x].parent == kTerminal) break;
      }
    }
    NodeState& so = st_[o];
    if (best >= 0) {
      ++counters_.adoptions;
      so.parent = best;
      so.stamp = time_;
      so.dist = best_d + 1;
      continue;
    }
    for (int32_t a = first_[o]; a < end; ++a) {
      const Arc& arc = arcs_[a];
      const NodeId q = arc.head;
      const uint8_t tq = st_[q].tree;
      if (tq == kFree) continue;
      if (tq == kInS ? open_rev(arc) : open(arc)) activate(q);
      if (tq == tree && st_[q].parent == arc.sister) make_orphan(q);
    }
    so.tree = kFree;
    so.parent = kNoParent;
  }
  orphans_.clear();
}

template <class Cap>
void FlowGraph<Cap>::advance_time() {
  if (++time_ == 0) restamp();
}

template <class Cap>
void FlowGraph<Cap>::restamp() {
  // The time counter wrapped (after 2^32 - 1 augmentations): give every tree node its exact
  // distance at time 1 and continue at time 2. Exact distances keep the (time, -distance) order
  // of every tree link (see "Tree depth"). Called when no orphan is pending.
  for (NodeState& s : st_) s.stamp = 0;
  std::vector<NodeId> path;
  for (size_t i = 0; i < st_.size(); ++i) {
    if (st_[i].tree == kFree || st_[i].stamp != 0) continue;
    path.clear();
    int32_t d = 0;
    for (NodeId x = static_cast<NodeId>(i);;) {
      const NodeState& s = st_[x];
      if (s.stamp == 1) {
        d = s.dist;
        break;
      }
      path.push_back(x);
      if (s.parent == kTerminal) break;
      x = arcs_[s.parent].head;
    }
    for (size_t k = path.size(); k-- > 0;) {
      st_[path[k]].dist = ++d;
      st_[path[k]].stamp = 1;
    }
  }
  time_ = 2;
}

template class FlowGraph<int32_t>;
template class FlowGraph<int64_t>;
template class FlowGraph<double>;

}  // namespace maxflow
}  // namespace gapbcfw
