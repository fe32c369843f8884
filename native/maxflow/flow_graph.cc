// Boykov-Kolmogorov max-flow with Kohli-Torr reuse; see flow_graph.h for the contract and the
// references (BK04, KT07). Written from the papers.
#include "maxflow/flow_graph.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace gapbcfw {
namespace maxflow {

namespace {

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
  const int32_t a = arc_of_[2 * i], b = arc_of_[2 * i + 1];
  const NodeId u = edge_u_[i], v = edge_v_[i];
  const Cap g = static_cast<Cap>(edge_cap_[2 * i] - res_[a]);
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
  res_[a] = static_cast<Cap>(cap_uv - g_new);
  res_[b] = static_cast<Cap>(cap_vu + g_new);
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
  return res_[arc_of_[edge_arc]];
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
  // Residual CSR: out-arcs of each node contiguous. Edges already in the residual graph keep their
  // residuals (the flow survives structural changes), new edges start at their capacities.
  const size_t n = tr_.size(), m = edge_u_.size();
  std::vector<Cap> r(edge_cap_);
  for (size_t k = 0; k < 2 * static_cast<size_t>(arcs_built_for_); ++k) r[k] = res_[arc_of_[k]];
  first_.assign(n + 1, 0);
  for (size_t e = 0; e < m; ++e) {
    ++first_[edge_u_[e] + 1];
    ++first_[edge_v_[e] + 1];
  }
  for (size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
  std::vector<int32_t> fill(first_.begin(), first_.end() - 1);
  arc_of_.resize(2 * m);
  head_.resize(2 * m);
  sister_.resize(2 * m);
  res_.resize(2 * m);
  for (size_t e = 0; e < m; ++e) {
    const NodeId u = edge_u_[e], v = edge_v_[e];
    const int32_t a = fill[u]++, b = fill[v]++;
    arc_of_[2 * e] = a;
    arc_of_[2 * e + 1] = b;
    head_[a] = v;
    head_[b] = u;
    sister_[a] = b;
    sister_[b] = a;
    res_[a] = r[2 * e];
    res_[b] = r[2 * e + 1];
  }
  arcs_built_for_ = static_cast<EdgeId>(m);
  structure_dirty_ = false;
  trees_valid_ = false;  // parent arcs refer to the old arc numbering
  queue_.assign(n, 0);
}

template <class Cap>
void FlowGraph<Cap>::init_trees() {
  // BK04 §3.1 initialisation: S = {s}, T = {t}; with terminal capacities folded into the nodes,
  // every node with source (sink) residual is a root of S (T), active; the rest are free.
  q_head_ = q_size_ = 0;
  orphans_.clear();
  changed_.clear();
  time_ = 1;
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
bool FlowGraph<Cap>::link_ok(NodeId c) const {
  // A tree link child -> parent needs both ends in the same tree and residual capacity in the
  // tree's direction: parent->child in S, child->parent in T (BK04 §3.1).
  const int32_t pa = st_[c].parent;
  const uint8_t tree = st_[c].tree;
  if (st_[head_[pa]].tree != tree) return false;
  return open(tree == kInS ? sister_[pa] : pa);
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
      const NodeId q = head_[a];
      if (st_[q].tree != kFree && st_[q].parent == sister_[a] && !link_ok(q)) make_orphan(q);
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
    st_[n].queued = 0;
    if (st_[n].tree != kFree) return n;
  }
  return -1;
}

template <class Cap>
int32_t FlowGraph<Cap>::grow(NodeId p) {
  // BK04 §3.2 growth stage: the active node p acquires free neighbours reachable through
  // non-saturated arcs (p->q for S, q->p for T); meeting the other tree gives a path, returned as
  // the bridging arc oriented S -> T. Returns -1 when p has nothing left to explore.
  const NodeState& sp = st_[p];
  const int32_t end = first_[p + 1];
  if (sp.tree == kInS) {
    for (int32_t a = first_[p]; a < end; ++a) {
      if (!open(a)) continue;
      NodeState& sq = st_[head_[a]];
      if (sq.tree == kFree) {
        sq.tree = kInS;
        sq.parent = sister_[a];
        sq.dist = sp.dist + 1;
        sq.stamp = sp.stamp;
        activate(head_[a]);
      } else if (sq.tree == kInT) {
        return a;
      }
    }
  } else {
    for (int32_t a = first_[p]; a < end; ++a) {
      const int32_t in = sister_[a];
      if (!open(in)) continue;
      NodeState& sq = st_[head_[a]];
      if (sq.tree == kFree) {
        sq.tree = kInT;
        sq.parent = in;
        sq.dist = sp.dist + 1;
        sq.stamp = sp.stamp;
        activate(head_[a]);
      } else if (sq.tree == kInS) {
        return in;
      }
    }
  }
  return -1;
}

template <class Cap>
void FlowGraph<Cap>::augment(int32_t bridge) {
  // BK04 §3.2 augmentation stage: push the bottleneck capacity along
  // s -> ... -> u -> v -> ... -> t; every tree link (or terminal arc) it saturates turns its child
  // (or root) into an orphan.
  const NodeId u = head_[sister_[bridge]], v = head_[bridge];
  Cap b = res_[bridge];
  NodeId n = u;
  for (; st_[n].parent != kTerminal; n = head_[st_[n].parent])
    b = std::min(b, res_[sister_[st_[n].parent]]);
  b = std::min(b, tr_[n]);
  for (n = v; st_[n].parent != kTerminal; n = head_[st_[n].parent])
    b = std::min(b, res_[st_[n].parent]);
  b = std::min<Cap>(b, -tr_[n]);

  res_[bridge] -= b;
  res_[sister_[bridge]] += b;
  if (!open(bridge)) res_[bridge] = 0;
  for (n = u;;) {
    const int32_t pa = st_[n].parent;
    if (pa == kTerminal) {
      tr_[n] -= b;
      if (tr_[n] <= node_tol(n)) {
        tr_[n] = 0;
        make_orphan(n);
      }
      break;
    }
    const int32_t down = sister_[pa];  // parent -> n
    res_[down] -= b;
    res_[pa] += b;
    const NodeId next = head_[pa];
    if (!open(down)) {
      res_[down] = 0;
      make_orphan(n);
    }
    n = next;
  }
  for (n = v;;) {
    const int32_t pa = st_[n].parent;  // n -> parent
    if (pa == kTerminal) {
      tr_[n] += b;
      if (tr_[n] >= -node_tol(n)) {
        tr_[n] = 0;
        make_orphan(n);
      }
      break;
    }
    res_[pa] -= b;
    res_[sister_[pa]] += b;
    const NodeId next = head_[pa];
    if (!open(pa)) {
      res_[pa] = 0;
      make_orphan(n);
    }
    n = next;
  }
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
    if (st_[o].parent != kOrphan) continue;  // re-rooted meanwhile (repair_trees)
    const uint8_t tree = st_[o].tree;
    const int32_t end = first_[o + 1];
    int32_t best = -1;
    int32_t best_d = std::numeric_limits<int32_t>::max();
    for (int32_t a = first_[o]; a < end; ++a) {
      const NodeId q = head_[a];
      if (st_[q].tree != tree) continue;
      if (!open(tree == kInS ? sister_[a] : a)) continue;
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
        x = head_[sx.parent];
      }
      if (!valid) continue;
      if (d < best_d) {
        best_d = d;
        best = a;
      }
      int32_t dd = d;
      for (x = q; st_[x].stamp != time_; x = head_[st_[x].parent]) {
        st_[x].stamp = time_;
        st_[x].dist = dd--;
        if (st_[x].parent == kTerminal) break;
      }
    }
    NodeState& so = st_[o];
    if (best >= 0) {
      so.parent = best;
      so.stamp = time_;
      so.dist = best_d + 1;
      continue;
    }
    for (int32_t a = first_[o]; a < end; ++a) {
      const NodeId q = head_[a];
      const uint8_t tq = st_[q].tree;
      if (tq == kFree) continue;
      if (open(tq == kInS ? sister_[a] : a)) activate(q);
      if (tq == tree && st_[q].parent == sister_[a]) make_orphan(q);
    }
    so.tree = kFree;
    so.parent = kNoParent;
  }
  orphans_.clear();
}

template <class Cap>
void FlowGraph<Cap>::advance_time() {
  if (++time_ == 0) {  // wrapped: forget all stamps so none is mistaken for current
    for (NodeState& s : st_) s.stamp = 0;
    time_ = 1;
  }
}

template class FlowGraph<int32_t>;
template class FlowGraph<int64_t>;
template class FlowGraph<double>;

}  // namespace maxflow
}  // namespace gapbcfw
