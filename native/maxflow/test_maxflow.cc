// Standalone tests for native/maxflow (no Node): FlowGraph against an independent Edmonds-Karp on
// an adjacency matrix (and a Dinic on adjacency lists for larger grids), with every combination of
// the tree-depth refinements; cut validity; reuse (dynamic graph cuts) against from-scratch solves;
// bulk assignment and same-structure rebuilds against fresh graphs, with a count of heap allocations
// (none in steady state); the time-counter wrap-around; AnyGraph's checks and batches; DIMACS round
// trips, arc merging, the automatic int32 choice and error reporting; input validation. Exit status 0
// iff every check passed.
//
//   g++ -std=c++17 -O2 -Inative native/maxflow/test_maxflow.cc native/maxflow/flow_graph.cc
//       native/maxflow/any_graph.cc native/maxflow/batch.cc native/maxflow/dimacs.cc -o test_maxflow
//   ./test_maxflow
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <atomic>
#include <cstdlib>
#include <new>

#include "maxflow/any_graph.h"
#include "maxflow/batch.h"
#include "maxflow/dimacs.h"
#include "maxflow/flow_graph.h"

// Heap allocations of this program (every operator new), to check that steady-state solves allocate nothing.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"  // malloc/free behind the replaced operators
#endif
static std::atomic<int64_t> g_allocations{0};
void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace gapbcfw::maxflow {
// Test access to FlowGraph's time counter (see "Tree depth" in flow_graph.h).
struct FlowGraphTestAccess {
  template <class Cap>
  static void set_time(FlowGraph<Cap>& g, uint32_t t) {
    g.time_ = t;
  }
};
}  // namespace gapbcfw::maxflow

using gapbcfw::maxflow::AnyGraph;
using gapbcfw::maxflow::CapArray;
using gapbcfw::maxflow::CapChoice;
using gapbcfw::maxflow::CapType;
using gapbcfw::maxflow::DimacsError;
using gapbcfw::maxflow::FlowGraphTestAccess;
using gapbcfw::maxflow::GraphArrays;
using gapbcfw::maxflow::GraphBatch;
using gapbcfw::maxflow::DimacsProblem;
using gapbcfw::maxflow::FlowGraph;
using gapbcfw::maxflow::read_dimacs;
using gapbcfw::maxflow::Side;
using gapbcfw::maxflow::write_dimacs;

namespace {

int64_t g_checks = 0, g_failures = 0;

void check(bool ok, const std::string& what) {
  ++g_checks;
  if (ok) return;
  if (++g_failures <= 30) std::fprintf(stderr, "FAIL: %s\n", what.c_str());
}

template <class F>
bool throws_with(F&& f, const std::function<bool(const std::exception&)>& pred) {
  try {
    f();
  } catch (const std::exception& e) {
    return pred(e);
  }
  return false;
}

template <class E, class F>
bool throws_type(F&& f) {
  return throws_with(f, [](const std::exception& e) { return dynamic_cast<const E*>(&e) != nullptr; });
}

// ---------------------------------------------------------------------------------------------
// Problem description shared by FlowGraph and the reference.

template <class Cap>
struct Spec {
  struct Edge {
    int u, v;
    Cap uv, vu;
  };
  int n = 0;
  std::vector<Cap> cs, ct;
  std::vector<Edge> edges;
};

template <class Cap>
using FlowOf = typename FlowGraph<Cap>::Flow;

// The refinements every graph built by build() uses (see refinement_tests for the combinations).
gapbcfw::maxflow::Refinements g_refinements;

template <class Cap>
FlowGraph<Cap> build(const Spec<Cap>& s) {
  FlowGraph<Cap> g(s.n);
  g.set_refinements(g_refinements);
  for (int i = 0; i < s.n; ++i) {
    if (i % 2) {
      g.add_terminal_caps(i, s.cs[i], s.ct[i]);
    } else {
      g.set_terminal_caps(i, s.cs[i], s.ct[i]);
    }
  }
  for (const auto& e : s.edges) g.add_edge(e.u, e.v, e.uv, e.vu);
  return g;
}

template <class Cap>
FlowOf<Cap> total_capacity(const Spec<Cap>& s) {
  FlowOf<Cap> t = 0;
  for (int i = 0; i < s.n; ++i) t += FlowOf<Cap>(s.cs[i]) + s.ct[i];
  for (const auto& e : s.edges) t += FlowOf<Cap>(e.uv) + e.vu;
  return t;
}

// Independent reference: Edmonds-Karp (BFS shortest augmenting paths) on a dense (n+2)^2 matrix;
// source_side = nodes reachable from s in the final residual graph.
template <class V>
struct RefResult {
  V flow = 0;
  std::vector<char> source_side;
};

template <class Cap>
RefResult<FlowOf<Cap>> reference(const Spec<Cap>& s, FlowOf<Cap> eps) {
  using V = FlowOf<Cap>;
  const int n = s.n, N = n + 2, src = n, snk = n + 1;
  std::vector<V> r(size_t(N) * N, 0);
  auto at = [&](int a, int b) -> V& { return r[size_t(a) * N + b]; };
  for (int i = 0; i < n; ++i) {
    at(src, i) += s.cs[i];
    at(i, snk) += s.ct[i];
  }
  for (const auto& e : s.edges) {
    if (e.u == e.v) continue;
    at(e.u, e.v) += e.uv;
    at(e.v, e.u) += e.vu;
  }
  RefResult<V> out;
  std::vector<int> prev(N);
  for (;;) {
    std::fill(prev.begin(), prev.end(), -1);
    prev[src] = src;
    std::queue<int> q;
    q.push(src);
    while (!q.empty() && prev[snk] < 0) {
      const int a = q.front();
      q.pop();
      for (int b = 0; b < N; ++b)
        if (prev[b] < 0 && at(a, b) > eps) {
          prev[b] = a;
          q.push(b);
        }
    }
    if (prev[snk] < 0) break;
    V b = std::numeric_limits<V>::max();
    for (int x = snk; x != src; x = prev[x]) b = std::min(b, at(prev[x], x));
    for (int x = snk; x != src; x = prev[x]) {
      at(prev[x], x) -= b;
      at(x, prev[x]) += b;
    }
    out.flow += b;
  }
  out.source_side.assign(n, 0);
  for (int i = 0; i < n; ++i) out.source_side[i] = prev[i] >= 0;
  return out;
}

// Absolute slack allowed between quantities that are equal in exact arithmetic.
template <class Cap>
FlowOf<Cap> slack(const Spec<Cap>& s, const FlowGraph<Cap>& g) {
  if constexpr (std::is_integral_v<Cap>) {
    return 0;
  } else {
    const double arcs = 2.0 * s.edges.size() + 2.0 * s.n + 1;
    return arcs * g.tolerance() + 1e-9 * (1 + total_capacity(s));
  }
}

template <class V>
bool close(V a, V b, V tol) {
  return a > b ? a - b <= tol : b - a <= tol;
}

// Full verification of a solved graph against its spec (the user's current capacities).
template <class Cap>
void verify(const FlowGraph<Cap>& g, const Spec<Cap>& s, const std::string& label, bool with_reference) {
  using V = FlowOf<Cap>;
  const V tol = slack(s, g);
  const V flow = g.flow();
  // Saturation thresholds of the default tolerance (flow_graph.h, "Tolerance"): relative to an edge's
  // pair of residuals and to a node's terminal capacities; 0 for integers.
  auto arc_sat = [&](int e) -> Cap {
    if constexpr (std::is_integral_v<Cap>) return 0;
    else return 1e-12 * (g.residual_uv(e) + g.residual_vu(e));
  };
  auto node_sat = [&](int i) -> Cap {
    if constexpr (std::is_integral_v<Cap>) return 0;
    else return 1e-12 * (s.cs[i] + s.ct[i]);
  };
  std::vector<char> S(s.n);
  for (int i = 0; i < s.n; ++i) S[i] = g.segment(i) == Side::kSource;

  // Cut capacity of the reported segmentation == flow value (max-flow/min-cut certificate).
  V cut = 0;
  for (int i = 0; i < s.n; ++i) cut += S[i] ? V(s.ct[i]) : V(s.cs[i]);
  for (const auto& e : s.edges) {
    if (S[e.u] && !S[e.v]) cut += e.uv;
    if (S[e.v] && !S[e.u]) cut += e.vu;
  }
  check(close(cut, flow, tol), label + ": cut capacity " + std::to_string(cut) + " != flow " + std::to_string(flow));

  // Every arc leaving the source side is saturated; the source side is exactly the residual
  // reachability set from s (documented convention, free nodes on the sink side).
  bool saturated = true;
  for (int i = 0; i < s.n; ++i) {
    if (!S[i] && g.source_residual(i) > node_sat(i)) saturated = false;
    if (S[i] && g.sink_residual(i) > node_sat(i)) saturated = false;
  }
  for (int e = 0; e < int(s.edges.size()); ++e) {
    const auto& ed = s.edges[e];
    if (S[ed.u] && !S[ed.v] && g.residual_uv(e) > arc_sat(e)) saturated = false;
    if (S[ed.v] && !S[ed.u] && g.residual_vu(e) > arc_sat(e)) saturated = false;
  }
  check(saturated, label + ": unsaturated arc leaves the source side");
  {
    std::vector<std::vector<int>> adj(s.n);  // heads reachable through a residual above its threshold
    for (int e = 0; e < int(s.edges.size()); ++e) {
      if (g.residual_uv(e) > arc_sat(e)) adj[s.edges[e].u].push_back(s.edges[e].v);
      if (g.residual_vu(e) > arc_sat(e)) adj[s.edges[e].v].push_back(s.edges[e].u);
    }
    std::vector<char> reach(s.n, 0);
    std::vector<int> stack;
    for (int i = 0; i < s.n; ++i)
      if (g.source_residual(i) > node_sat(i)) {
        reach[i] = 1;
        stack.push_back(i);
      }
    while (!stack.empty()) {
      const int a = stack.back();
      stack.pop_back();
      for (const int b : adj[a])
        if (!reach[b]) {
          reach[b] = 1;
          stack.push_back(b);
        }
    }
    check(reach == S, label + ": source side != residual reachability from s");
  }

  // Residuals describe a feasible flow for the user's capacities (up to the reparametrisation,
  // which adds equal amounts to both terminal capacities and so keeps cs - ct): conservation at
  // every node and 0 <= r_uv, r_uv + r_vu == cap_uv + cap_vu.
  std::vector<V> balance(s.n, 0);
  bool bounds = true;
  for (int i = 0; i < s.n; ++i)
    balance[i] = V(s.cs[i]) - V(s.ct[i]) - (V(g.source_residual(i)) - V(g.sink_residual(i)));
  for (int e = 0; e < int(s.edges.size()); ++e) {
    const auto& ed = s.edges[e];
    const Cap ruv = g.residual_uv(e), rvu = g.residual_vu(e);
    if (ruv < 0 || rvu < 0 || !close<V>(V(ruv) + rvu, V(ed.uv) + ed.vu, tol)) bounds = false;
    const V f = V(ed.uv) - ruv;
    balance[ed.u] -= f;
    balance[ed.v] += f;
  }
  check(bounds, label + ": edge residuals out of bounds");
  bool conserved = true;
  for (int i = 0; i < s.n; ++i) conserved = conserved && close<V>(balance[i], 0, tol);
  check(conserved, label + ": flow conservation violated");

  if (with_reference) {
    const auto ref = reference(s, std::is_integral_v<Cap> ? V(0) : V(g.tolerance()));
    check(close(flow, ref.flow, tol), label + ": flow " + std::to_string(flow) + " != reference " + std::to_string(ref.flow));
    if constexpr (std::is_integral_v<Cap>) {
      // The inclusion-minimal min cut is unique, so the sides must match the reference exactly.
      std::vector<char> rs(ref.source_side.begin(), ref.source_side.end());
      check(rs == S, label + ": source side differs from the reference's");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Random problems.

template <class Cap>
Cap random_cap(std::mt19937_64& rng, double max_value, double p_zero) {
  std::uniform_real_distribution<double> u(0, 1);
  if (u(rng) < p_zero) return 0;
  if constexpr (std::is_integral_v<Cap>) {
    return static_cast<Cap>(std::uniform_int_distribution<int64_t>(1, int64_t(max_value))(rng));
  } else {
    // Mix of integers-as-doubles (many ties) and arbitrary fractions.
    return u(rng) < 0.3 ? std::floor(u(rng) * max_value) + 1 : u(rng) * max_value;
  }
}

// kTiny: up to 5 nodes with capacities 0..3 (ties and zeros everywhere: the corner cases).
enum class Family { kDense, kSparse, kGrid, kTiny };
constexpr int kFamilies = 4;

template <class Cap>
Spec<Cap> random_spec(std::mt19937_64& rng, Family fam, double max_cap) {
  std::uniform_real_distribution<double> u(0, 1);
  Spec<Cap> s;
  if (fam == Family::kTiny) max_cap = 3;
  const double p_zero = u(rng) * 0.6;
  const double p_term = 0.2 + 0.8 * u(rng);  // fraction of nodes with terminal capacities
  int h = 0, w = 0;
  if (fam == Family::kDense) {
    s.n = int(rng() % 13);
  } else if (fam == Family::kSparse) {
    s.n = int(rng() % 41);
  } else if (fam == Family::kTiny) {
    s.n = 1 + int(rng() % 5);
  } else {
    h = 1 + int(rng() % 8);
    w = 1 + int(rng() % 8);
    s.n = h * w;
  }
  for (int i = 0; i < s.n; ++i) {
    const bool term = u(rng) < p_term;
    s.cs.push_back(term ? random_cap<Cap>(rng, max_cap, p_zero) : Cap(0));
    s.ct.push_back(term ? random_cap<Cap>(rng, max_cap, p_zero) : Cap(0));
  }
  auto edge = [&](int a, int b, bool symmetric) {
    const Cap uv = random_cap<Cap>(rng, max_cap, p_zero);
    s.edges.push_back({a, b, uv, symmetric ? uv : random_cap<Cap>(rng, max_cap, p_zero)});
  };
  if (fam == Family::kDense) {
    const double p = u(rng);
    for (int a = 0; a < s.n; ++a)
      for (int b = a + 1; b < s.n; ++b)
        if (u(rng) < p) edge(a, b, false);
  } else if (fam == Family::kSparse || fam == Family::kTiny) {
    const int m = s.n ? int(rng() % (2 * s.n + 1)) : 0;
    for (int k = 0; k < m; ++k) edge(int(rng() % s.n), int(rng() % s.n), false);  // loops, parallels
  } else {
    const bool symmetric = u(rng) < 0.7;  // Potts-like segmentation pairwise terms
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        if (x + 1 < w) edge(y * w + x, y * w + x + 1, symmetric);
        if (y + 1 < h) edge(y * w + x, (y + 1) * w + x, symmetric);
      }
  }
  return s;
}

template <class Cap>
void random_static_tests(const char* type, double max_cap, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int it = 0; it < count; ++it) {
    const Family fam = Family(it % kFamilies);
    const Spec<Cap> s = random_spec<Cap>(rng, fam, max_cap);
    FlowGraph<Cap> g = build(s);
    const auto f = g.maxflow();
    const std::string label = std::string(type) + " static #" + std::to_string(it);
    verify(g, s, label, true);
    check(g.maxflow() == f, label + ": second maxflow() without changes differs");
  }
}

// Reuse: after each solve change some terminal and edge capacities (up, down, to zero), solve
// again with reuse and compare with a fresh graph and the reference.
template <class Cap>
void random_reuse_tests(const char* type, double max_cap, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int it = 0; it < count; ++it) {
    Spec<Cap> s = random_spec<Cap>(rng, Family(it % kFamilies), max_cap);
    if (s.n == 0) continue;
    FlowGraph<Cap> g = build(s);
    g.maxflow();
    const int rounds = 1 + int(rng() % 6);
    for (int r = 0; r < rounds; ++r) {
      const int k = 1 + int(rng() % std::max(1, s.n / 3));
      for (int j = 0; j < k; ++j) {
        const int i = int(rng() % s.n);
        const double pick = u(rng);
        if (pick < 0.15) {
          s.cs[i] = 0;  // large decreases: exercise the reparametrisation
          s.ct[i] = random_cap<Cap>(rng, max_cap, 0.3);
          g.set_terminal_caps(i, s.cs[i], s.ct[i]);
        } else if (pick < 0.3) {
          const Cap a = random_cap<Cap>(rng, max_cap / 4, 0.3), b = random_cap<Cap>(rng, max_cap / 4, 0.3);
          s.cs[i] += a;
          s.ct[i] += b;
          g.add_terminal_caps(i, a, b);
        } else {
          s.cs[i] = random_cap<Cap>(rng, max_cap, 0.3);
          s.ct[i] = random_cap<Cap>(rng, max_cap, 0.3);
          g.set_terminal_caps(i, s.cs[i], s.ct[i]);
        }
      }
      if (!s.edges.empty()) {
        const int ke = int(rng() % (1 + s.edges.size() / 4));
        for (int j = 0; j < ke; ++j) {
          const int e = int(rng() % s.edges.size());
          s.edges[e].uv = random_cap<Cap>(rng, max_cap, 0.3);
          s.edges[e].vu = random_cap<Cap>(rng, max_cap, 0.3);
          g.set_edge_caps(e, s.edges[e].uv, s.edges[e].vu);
        }
      }
      if (u(rng) < 0.1) {  // structural change between solves: flow kept, trees rebuilt
        const int a = int(rng() % s.n), b = int(rng() % s.n);
        const Cap c = random_cap<Cap>(rng, max_cap, 0.2);
        s.edges.push_back({a, b, c, 0});
        g.add_edge(a, b, c, 0);
      }
      const auto f = g.maxflow();
      const std::string label = std::string(type) + " reuse #" + std::to_string(it) + "." + std::to_string(r);
      verify(g, s, label, true);
      FlowGraph<Cap> fresh = build(s);
      const auto f0 = fresh.maxflow();
      check(close<FlowOf<Cap>>(f, f0, slack(s, g)), label + ": reuse " + std::to_string(f) + " != scratch " + std::to_string(f0));
      if constexpr (std::is_integral_v<Cap>) {
        bool same = true;
        for (int i = 0; i < s.n; ++i) same = same && g.segment(i) == fresh.segment(i);
        check(same, label + ": reuse segmentation != scratch segmentation");
      }
    }
  }
}

// Long reuse sequences on segmentation grids (many small perturbations, as in the paper's video
// setting), compared with from-scratch solves only (the reference is too slow at this size).
void grid_reuse_sequence() {
  std::mt19937_64 rng(77);
  const int h = 24, w = 24, n = h * w;
  Spec<int32_t> s;
  s.n = n;
  for (int i = 0; i < n; ++i) {
    s.cs.push_back(int32_t(rng() % 100));
    s.ct.push_back(int32_t(rng() % 100));
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int32_t c = int32_t(rng() % 60);
      if (x + 1 < w) s.edges.push_back({y * w + x, y * w + x + 1, c, c});
      if (y + 1 < h) s.edges.push_back({y * w + x, (y + 1) * w + x, c, c});
    }
  FlowGraph<int32_t> g = build(s);
  g.maxflow();
  for (int r = 0; r < 150; ++r) {
    const int x0 = int(rng() % w), y0 = int(rng() % h), rad = 1 + int(rng() % 4);
    for (int y = std::max(0, y0 - rad); y < std::min(h, y0 + rad); ++y)
      for (int x = std::max(0, x0 - rad); x < std::min(w, x0 + rad); ++x) {
        const int i = y * w + x;
        s.cs[i] = int32_t(rng() % 100);
        s.ct[i] = int32_t(rng() % 100);
        g.set_terminal_caps(i, s.cs[i], s.ct[i]);
      }
    if (r % 10 == 0) {
      const int e = int(rng() % s.edges.size());
      s.edges[e].uv = s.edges[e].vu = int32_t(rng() % 200);
      g.set_edge_caps(e, s.edges[e].uv, s.edges[e].vu);
    }
    const auto f = g.maxflow();
    FlowGraph<int32_t> fresh = build(s);
    check(f == fresh.maxflow(), "grid reuse sequence round " + std::to_string(r));
    if (r % 25 == 0) verify(g, s, "grid reuse sequence round " + std::to_string(r), true);
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-made cases.

void edge_cases() {
  {
    FlowGraph<int32_t> g;
    check(g.maxflow() == 0, "empty graph has flow 0");
    check(g.num_nodes() == 0 && g.num_edges() == 0, "empty graph sizes");
  }
  {
    FlowGraph<int64_t> g(3);  // isolated nodes and free nodes default to the sink side
    g.add_terminal_caps(0, 5, 0);
    g.add_terminal_caps(2, 0, 0);
    check(g.maxflow() == 0, "no sink capacity -> flow 0");
    check(g.segment(0) == Side::kSource && g.segment(1) == Side::kSink && g.segment(2) == Side::kSink,
          "segment convention: reachable from s on the source side, free nodes on the sink side");
  }
  {
    FlowGraph<int32_t> g(2);  // both terminals on one node: flow goes straight through
    g.add_terminal_caps(0, 7, 3);
    g.add_terminal_caps(1, 0, 10);
    g.add_edge(0, 1, 2, 0);
    check(g.maxflow() == 5, "direct terminal flow + edge");
    check(g.source_residual(0) == 2 && g.sink_residual(0) == 0 && g.residual_uv(0) == 0 && g.residual_vu(0) == 2,
          "residuals of a tiny graph");
    check(g.segment(0) == Side::kSource && g.segment(1) == Side::kSink, "tiny graph cut");
  }
  {
    // Reparametrisation example: s->0 (5), 0->1 (5), 1->t (5); lowering the edge to 2 must give 2.
    FlowGraph<int32_t> g(2);
    g.add_terminal_caps(0, 5, 0);
    g.add_terminal_caps(1, 0, 5);
    const auto e = g.add_edge(0, 1, 5, 0);
    check(g.maxflow() == 5, "chain flow");
    g.set_edge_caps(e, 2, 0);
    check(g.maxflow() == 2, "chain flow after lowering the edge (reuse)");
    g.set_terminal_caps(0, 1, 0);
    check(g.maxflow() == 1, "chain flow after lowering the source (reuse)");
    g.set_terminal_caps(0, 9, 0);
    g.set_edge_caps(e, 9, 0);
    check(g.maxflow() == 5, "chain flow after raising (reuse)");
    check(g.source_cap(0) == 9 && g.sink_cap(1) == 5 && g.cap_uv(e) == 9, "user capacities are reported unchanged");
  }
  {
    // Adding nodes and edges after a solve keeps the flow and gives the from-scratch answer.
    FlowGraph<int32_t> g(2);
    g.add_terminal_caps(0, 4, 0);
    g.add_terminal_caps(1, 0, 4);
    g.add_edge(0, 1, 1, 0);
    check(g.maxflow() == 1, "before growth");
    const auto x = g.add_nodes(1);
    g.add_edge(0, x, 3, 0);
    g.add_edge(x, 1, 2, 0);
    check(g.maxflow() == 3, "after adding a node and edges");
  }
  {
    // Segment needs a current solve.
    FlowGraph<int32_t> g(1);
    check(throws_type<std::logic_error>([&] { g.segment(0); }), "segment before maxflow throws");
    g.maxflow();
    g.set_terminal_caps(0, 1, 0);
    check(throws_type<std::logic_error>([&] { g.segment(0); }), "segment after a change throws");
  }
  {
    // Hard constraints: a 5e20 arc beside unit-scale arcs (the CLRS network) gives the exact flow and
    // cut of the same network in int64 with the huge arc at 1e15 (also never saturated).
    auto clrs = [](auto& g, auto huge) {
      g.add_terminal_caps(1, 16, 0);
      g.add_terminal_caps(2, 13, 0);
      g.add_terminal_caps(3, 0, 20);
      g.add_terminal_caps(4, 0, huge);
      g.add_edge(1, 2, 10, 4);
      g.add_edge(1, 3, 12, 0);
      g.add_edge(3, 2, 9, 0);
      g.add_edge(2, 4, 14, 0);
      g.add_edge(4, 3, 7, 0);
    };
    FlowGraph<double> hd(5);
    FlowGraph<int64_t> hi(5);
    clrs(hd, 5e20);
    clrs(hi, int64_t{1000000000000000});
    check(hd.maxflow() == 26.0 && hi.maxflow() == 26, "a 5e20 hard constraint keeps the unit arcs' flow (26)");
    bool same = true;
    for (int i = 0; i < 5; ++i) same = same && hd.segment(i) == hi.segment(i);
    check(same, "a 5e20 hard constraint keeps the exact minimum cut");
  }
  {
    // Double tolerance: the default thresholds are relative to each arc's own capacities, so a
    // 1e-20 path beside unit arcs is used, and unit arcs beside a 1e20 one keep their resolution;
    // an explicit tolerance is absolute (0: exact comparisons).
    FlowGraph<double> g(3);
    g.add_terminal_caps(0, 1e-20, 0);
    g.add_terminal_caps(1, 0, 1.0);
    g.add_terminal_caps(2, 0.5, 0);
    g.add_edge(0, 1, 1.0, 0);
    check(g.maxflow() == 1e-20, "double default tolerance keeps a 1e-20 path (relative thresholds)");
    check(g.tolerance() == 2e-12, "tolerance() bounds the default thresholds: 2e-12 x largest capacity");
    g.set_tolerance(1e-15);
    check(g.maxflow() == 1e-20, "an explicit tolerance does not undo pushed flow");
    FlowGraph<double> abs(3);
    abs.set_tolerance(1e-15);
    abs.add_terminal_caps(0, 1e-20, 0);
    abs.add_terminal_caps(1, 0, 1.0);
    abs.add_edge(0, 1, 1.0, 0);
    check(abs.maxflow() == 0, "an explicit absolute tolerance ignores a path below it");
    g.set_tolerance(0);
    check(g.maxflow() == 1e-20 && g.tolerance() == 0, "tolerance 0 keeps tiny capacities");
    g.add_edge(2, 1, 0.25, 0);
    check(g.maxflow() == 0.25 + 1e-20, "tolerance 0 after adding an edge");
    check(throws_type<std::invalid_argument>([&] { g.set_tolerance(-1); }), "negative tolerance rejected");
  }
  {
    // 0.1 + 0.2 style rounding: many paths of inexact capacities terminate and match.
    FlowGraph<double> g(30);
    for (int i = 0; i < 30; ++i) g.add_terminal_caps(i, 0.1 * (i % 7), 0.3 - 0.1 * (i % 3));
    for (int i = 0; i + 1 < 30; ++i) g.add_edge(i, i + 1, 0.1, 0.2);
    const double f = g.maxflow();
    FlowGraph<double> h(30);
    h.set_tolerance(0);
    for (int i = 0; i < 30; ++i) h.add_terminal_caps(i, 0.1 * (i % 7), 0.3 - 0.1 * (i % 3));
    for (int i = 0; i + 1 < 30; ++i) h.add_edge(i, i + 1, 0.1, 0.2);
    check(std::fabs(f - h.maxflow()) < 1e-9, "double rounding chain");
  }
}

void validation_cases() {
  using std::invalid_argument;
  FlowGraph<int32_t> g(2);
  g.add_terminal_caps(0, 3, 0);
  g.add_terminal_caps(1, 0, 3);
  g.add_edge(0, 1, 2, 0);
  check(throws_type<invalid_argument>([&] { g.add_edge(0, 2, 1, 1); }), "edge endpoint out of range");
  check(throws_type<invalid_argument>([&] { g.add_edge(-1, 0, 1, 1); }), "negative node id");
  check(throws_type<invalid_argument>([&] { g.add_edge(0, 1, -1, 0); }), "negative edge capacity");
  check(throws_type<invalid_argument>([&] { g.add_terminal_caps(0, 0, -2); }), "negative sink capacity");
  check(throws_type<invalid_argument>([&] { g.set_terminal_caps(5, 0, 0); }), "terminal node out of range");
  check(throws_type<invalid_argument>([&] { g.set_edge_caps(1, 0, 0); }), "edge id out of range");
  check(throws_type<invalid_argument>([&] { g.set_edge_caps(0, -1, 0); }), "negative edge capacity (set)");
  check(throws_type<invalid_argument>([&] { g.add_nodes(-1); }), "negative node count");
  check(throws_type<invalid_argument>([&] { g.reserve_edges(-1); }), "negative edge reserve");
  check(throws_type<invalid_argument>([&] { g.source_residual(2); }), "residual query out of range");
  const int32_t big = std::numeric_limits<int32_t>::max();
  check(throws_type<std::overflow_error>([&] { g.add_edge(0, 1, big, 1); }), "int32 edge overflow");
  check(throws_type<std::overflow_error>([&] { g.add_terminal_caps(0, big, 0); }), "int32 terminal overflow");
  check(g.num_edges() == 1 && g.source_cap(0) == 3, "failed calls leave the graph unchanged");
  check(g.maxflow() == 2, "graph still solves after rejected input");

  FlowGraph<double> d(2);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  check(throws_type<invalid_argument>([&] { d.add_terminal_caps(0, nan, 0); }), "NaN source capacity");
  check(throws_type<invalid_argument>([&] { d.add_terminal_caps(0, 0, inf); }), "Inf sink capacity");
  check(throws_type<invalid_argument>([&] { d.add_edge(0, 1, 1, nan); }), "NaN edge capacity");
  check(throws_type<invalid_argument>([&] { d.add_edge(0, 1, inf, 0); }), "Inf edge capacity");
  check(throws_type<invalid_argument>([&] { d.add_edge(0, 1, -0.5, 0); }), "negative double capacity");
  check(throws_type<invalid_argument>([&] { d.set_tolerance(nan); }), "NaN tolerance");
  check(throws_type<std::overflow_error>([&] { d.add_edge(0, 1, 1.7e308, 1.7e308); }), "double overflow to inf");
  check(d.num_edges() == 0 && d.maxflow() == 0, "double graph unchanged after rejected input");
}

// ---------------------------------------------------------------------------------------------
// DIMACS.

template <class Cap>
DimacsProblem<Cap> read_text(const std::string& text) {
  std::istringstream in(text);
  return read_dimacs<Cap>(in);
}

void dimacs_cases() {
  // Textbook network (max flow 23) plus an s->t arc (5) and arcs into s / out of t (ignored).
  const std::string text =
      "c example\n"
      "p max 6 12\r\n"
      "n 1 s\n"
      "n 6 t\n"
      "a 1 2 16\na 1 3 13\na 2 4 12\na 3 2 4\na 3 5 14\na 4 3 9\n"
      "a 4 6 20\na 5 4 7\na 5 6 4\n"
      "\n"
      "a 1 6 5\n"
      "a 2 1 8\n"
      "a 6 3 2\n";
  {
    auto p = read_text<int32_t>(text);
    check(p.source == 0 && p.sink == 5 && p.constant == 5 && p.ignored_arcs == 2, "dimacs mapping fields");
    check(p.constant + p.graph.maxflow() == 28, "dimacs textbook max flow");
    auto pd = read_text<double>(text);
    check(pd.constant + pd.graph.maxflow() == 28.0, "dimacs textbook max flow (double)");
    // Round trip of the problem with placeholders: second write is byte-identical.
    std::ostringstream o1, o2;
    write_dimacs(o1, p);
    auto q = read_text<int32_t>(o1.str());
    write_dimacs(o2, q);
    check(o1.str() == o2.str(), "dimacs problem round trip is byte-identical");
    check(q.constant + q.graph.maxflow() == 28, "dimacs round trip keeps the flow");
  }
  {
    // Random graphs: write graph (s = N+1, t = N+2) -> read -> same flow and capacities.
    std::mt19937_64 rng(99);
    for (int it = 0; it < 200; ++it) {
      auto si = random_spec<int64_t>(rng, Family(it % kFamilies), 1e12);
      auto sd = random_spec<double>(rng, Family(it % kFamilies), 50);
      FlowGraph<int64_t> gi = build(si);
      FlowGraph<double> gd = build(sd);
      std::ostringstream oi, od;
      write_dimacs(oi, gi, int64_t(it));
      write_dimacs(od, gd, 0.25 * it);
      auto pi = read_text<int64_t>(oi.str());
      auto pd = read_text<double>(od.str());
      check(pi.graph.num_nodes() == si.n + 2 && pi.source == si.n && pi.sink == si.n + 1, "dimacs ids");
      bool caps = true;
      for (int i = 0; i < si.n; ++i) caps = caps && pi.graph.source_cap(i) == si.cs[i] && pi.graph.sink_cap(i) == si.ct[i];
      for (int i = 0; i < sd.n; ++i) caps = caps && pd.graph.source_cap(i) == sd.cs[i] && pd.graph.sink_cap(i) == sd.ct[i];
      check(caps, "dimacs round trip keeps terminal capacities exactly");
      const auto fi = gi.maxflow() + it;
      check(pi.constant + pi.graph.maxflow() == fi, "dimacs int64 round trip flow");
      const double fd = gd.maxflow() + 0.25 * it;
      check(std::fabs(pd.constant + pd.graph.maxflow() - fd) <= 1e-9 * (1 + fd), "dimacs double round trip flow");
      std::ostringstream oi2;
      write_dimacs(oi2, pi);
      std::ostringstream oi3;
      write_dimacs(oi3, read_text<int64_t>(oi2.str()));
      check(oi2.str() == oi3.str(), "dimacs graph round trip is stable");
    }
    // An int32 constant above INT32_MAX is split into several s->t arcs.
    FlowGraph<int32_t> g(1);
    std::ostringstream o;
    write_dimacs(o, g, int64_t(5'000'000'000));
    auto p = read_text<int32_t>(o.str());
    check(p.constant == 5'000'000'000 && p.graph.maxflow() == 0, "large int32 constant round trip");
  }
  {
    // Bad files: the error names the 1-based offending line.
    struct Bad {
      const char* text;
      int64_t line;
      const char* words;
    };
    const Bad bad[] = {
        {"", 1, "missing p line"},
        {"c only comments\n", 1, "missing p line"},
        {"n 1 s\n", 1, "before the p line"},
        {"c x\na 1 2 3\n", 2, "before the p line"},
        {"p max 3 1\np max 3 1\n", 2, "duplicate p line"},
        {"p min 3 1\n", 1, "expected 'p max N M'"},
        {"p max 1 0\n", 1, "bad node count"},
        {"p max x 0\n", 1, "bad node count"},
        {"p max 3 -1\n", 1, "bad arc count"},
        {"p max 3 1\nn 1 s\nn 1 s\n", 3, "duplicate source"},
        {"p max 3 1\nn 1 t\nn 2 t\n", 3, "duplicate sink"},
        {"p max 3 1\nn 1 s\nn 1 t\n", 3, "both source and sink"},
        {"p max 3 1\nn 4 s\n", 2, "out of range"},
        {"p max 3 1\nn 1 x\n", 2, "expected 'n ID s'"},
        {"p max 3 1\nn 1 s\na 1 2 3\n", 3, "before the source and sink"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 4 3\n", 4, "arc head 4 out of range"},
        {"p max 3 1\nn 1 s\nn 3 t\na 0 2 3\n", 4, "arc tail 0 out of range"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2 -3\n", 4, "negative capacity"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2 3.5\n", 4, "bad capacity"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2 99999999999\n", 4, "out of range"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2\n", 4, "expected 'a U V CAP'"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2 3\na 2 3 1\n", 5, "more arcs than the 1 declared on line 1"},
        {"c\np max 3 2\nn 1 s\nn 3 t\na 1 2 3\n", 2, "declares 2 arcs but the file has 1"},
        {"p max 3 0\nn 1 s\n", 1, "no sink line"},
        {"p max 3 0\nn 3 t\n", 1, "no source line"},
        {"p max 3 0\nn 1 s\nn 3 t\nx 1 2\n", 4, "unknown line type"},
        {"p max 3 2\nn 1 s\nn 3 t\na 1 2 2000000000\na 1 2 2000000000\n", 5, "overflow"},
    };
    for (const Bad& b : bad) {
      const bool ok = throws_with([&] { read_text<int32_t>(b.text); }, [&](const std::exception& e) {
        const auto* d = dynamic_cast<const DimacsError*>(&e);
        const std::string msg = e.what();
        return d && d->line() == b.line &&
               msg.rfind("dimacs line " + std::to_string(b.line) + ":", 0) == 0 &&
               msg.find(b.words) != std::string::npos;
      });
      check(ok, std::string("dimacs error for: ") + b.text);
    }
    const Bad bad_double[] = {
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2 nan\n", 4, "bad capacity"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2 1e999\n", 4, "out of range"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2 -0.5\n", 4, "negative capacity"},
        {"p max 3 1\nn 1 s\nn 3 t\na 1 2 1.5x\n", 4, "bad capacity"},
    };
    for (const Bad& b : bad_double) {
      const bool ok = throws_with([&] { read_text<double>(b.text); }, [&](const std::exception& e) {
        const auto* d = dynamic_cast<const DimacsError*>(&e);
        return d && d->line() == b.line && std::string(e.what()).find(b.words) != std::string::npos;
      });
      check(ok, std::string("dimacs double error for: ") + b.text);
    }
  }
  {
    // Writer refuses placeholders that carry capacity.
    DimacsProblem<int32_t> p;
    p.graph.add_nodes(3);
    p.source = 0;
    p.sink = 2;
    p.graph.add_edge(0, 1, 1, 0);
    std::ostringstream o;
    check(throws_type<std::invalid_argument>([&] { write_dimacs(o, p); }), "writer rejects edges at the source placeholder");
    p.source = 1;
    p.sink = 1;
    check(throws_type<std::invalid_argument>([&] { write_dimacs(o, p); }), "writer rejects source == sink");
  }
}

// ---------------------------------------------------------------------------------------------
// Tree-depth refinements, bulk building and same-structure rebuilds, steady-state allocations.

// Dinic (BFS levels, blocking flows by DFS) on adjacency lists: an independent reference for integer
// graphs too large for the dense Edmonds-Karp. source_side = reachable from s in the final residual.
template <class Cap>
RefResult<int64_t> dinic(const Spec<Cap>& s) {
  const int n = s.n + 2, src = s.n, snk = s.n + 1;
  struct Arc {
    int to;
    int64_t cap;
  };
  std::vector<Arc> arcs;
  std::vector<std::vector<int>> adj(n);
  auto add = [&](int a, int b, int64_t ab, int64_t ba) {
    adj[a].push_back(int(arcs.size()));
    arcs.push_back({b, ab});
    adj[b].push_back(int(arcs.size()));
    arcs.push_back({a, ba});
  };
  for (int i = 0; i < s.n; ++i) {
    if (s.cs[i] > 0) add(src, i, s.cs[i], 0);
    if (s.ct[i] > 0) add(i, snk, s.ct[i], 0);
  }
  for (const auto& e : s.edges)
    if (e.u != e.v) add(e.u, e.v, e.uv, e.vu);
  std::vector<int> level(n), next(n);
  auto bfs = [&] {
    std::fill(level.begin(), level.end(), -1);
    std::queue<int> q;
    level[src] = 0;
    q.push(src);
    while (!q.empty()) {
      const int x = q.front();
      q.pop();
      for (const int a : adj[x])
        if (arcs[a].cap > 0 && level[arcs[a].to] < 0) {
          level[arcs[a].to] = level[x] + 1;
          q.push(arcs[a].to);
        }
    }
    return level[snk] >= 0;
  };
  std::function<int64_t(int, int64_t)> dfs = [&](int x, int64_t f) -> int64_t {
    if (x == snk) return f;
    for (int& k = next[x]; k < int(adj[x].size()); ++k) {
      const int a = adj[x][k];
      if (arcs[a].cap > 0 && level[arcs[a].to] == level[x] + 1) {
        const int64_t d = dfs(arcs[a].to, std::min(f, arcs[a].cap));
        if (d > 0) {
          arcs[a].cap -= d;
          arcs[a ^ 1].cap += d;
          return d;
        }
      }
    }
    return 0;
  };
  RefResult<int64_t> out;
  while (bfs()) {
    std::fill(next.begin(), next.end(), 0);
    while (const int64_t f = dfs(src, std::numeric_limits<int64_t>::max())) out.flow += f;
  }
  out.source_side.assign(s.n, 0);
  for (int i = 0; i < s.n; ++i) out.source_side[i] = level[i] >= 0;
  return out;
}

// A w x h 4-connected grid like the benchmark's: unaries 100 (v-0.2)^2 / 100 (v-0.8)^2 of a uniform v,
// pairwise `smooth` both ways (a random 0..2*smooth per edge when smooth < 0).
Spec<int32_t> grid_spec(std::mt19937_64& rng, int w, int h, int smooth) {
  std::uniform_real_distribution<double> u(0, 1);
  Spec<int32_t> s;
  s.n = w * h;
  for (int i = 0; i < s.n; ++i) {
    const double v = u(rng);
    s.cs.push_back(int32_t(std::lround(100 * (v - 0.2) * (v - 0.2))));
    s.ct.push_back(int32_t(std::lround(100 * (v - 0.8) * (v - 0.8))));
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int i = y * w + x;
      const int32_t c = smooth >= 0 ? smooth : int32_t(rng() % (1 - 2 * smooth));
      if (x + 1 < w) s.edges.push_back({i, i + 1, c, c});
      if (y + 1 < h) s.edges.push_back({i, i + w, c, c});
    }
  return s;
}

std::string refinement_name(const gapbcfw::maxflow::Refinements& r) {
  return std::string(r.nearest_orphans_first ? "nearest-first" : "fifo-orphans") + "/" + (r.shallow_growth ? "shallow-growth" : "plain-growth") +
         "/" + (r.short_paths_first ? "short-paths" : "search-only");
}

// Every combination of the refinements tested (none, each alone, the two of the trees, all three) gives the
// reference's flow and (integers) its cut, on random graphs, with reuse, and on grids up to 64 x 64 (against
// Dinic).
void refinement_tests() {
  const gapbcfw::maxflow::Refinements combos[] = {{false, false, false}, {true, false, false}, {false, true, false},
                                                  {true, true, false}, {false, false, true}, {true, true, true}};
  uint64_t seed = 100;
  for (const auto& combo : combos) {
    g_refinements = combo;
    const std::string name = refinement_name(combo);
    if (!(combo.nearest_orphans_first && combo.shallow_growth && combo.short_paths_first)) {  // the default runs in main()
      random_static_tests<int32_t>(("int32 " + name).c_str(), 20, 1500, ++seed);
      random_static_tests<double>(("double " + name).c_str(), 10, 1000, ++seed);
      random_reuse_tests<int32_t>(("int32 " + name).c_str(), 20, 1200, ++seed);
      random_reuse_tests<double>(("double " + name).c_str(), 10, 800, ++seed);
    }
    std::mt19937_64 rng(++seed);
    for (int it = 0; it < 24; ++it) {
      const int w = 8 + int(rng() % 57), h = 8 + int(rng() % 57);
      const int smooth = it % 3 == 0 ? 5 : it % 3 == 1 ? 50 : -30;
      Spec<int32_t> s = grid_spec(rng, w, h, smooth);
      FlowGraph<int32_t> g = build(s);
      const int64_t f = g.maxflow();
      const auto ref = dinic(s);
      const std::string label = "grid " + std::to_string(w) + "x" + std::to_string(h) + " smooth " + std::to_string(smooth) + " " + name;
      check(f == ref.flow, label + ": flow " + std::to_string(f) + " != Dinic " + std::to_string(ref.flow));
      bool same = true;
      for (int i = 0; i < s.n; ++i) same = same && (g.segment(i) == Side::kSource) == bool(ref.source_side[i]);
      check(same, label + ": cut differs from Dinic's");
      // Reuse: a few patches of new unaries, each solve against Dinic.
      for (int r = 0; r < 4; ++r) {
        const int x0 = int(rng() % w), y0 = int(rng() % h);
        for (int y = y0; y < std::min(h, y0 + 6); ++y)
          for (int x = x0; x < std::min(w, x0 + 6); ++x) {
            const int i = y * w + x;
            s.cs[i] = int32_t(rng() % 65);
            s.ct[i] = int32_t(rng() % 65);
            g.set_terminal_caps(i, s.cs[i], s.ct[i]);
          }
        check(g.maxflow() == dinic(s).flow, label + ": reuse round " + std::to_string(r));
      }
    }
  }
  g_refinements = {};
}

// Counters on two hand-traced graphs (BK04: roots are the nodes with terminal residual).
void counter_cases() {
  {  // s->0 (5), 0->1 (3), 1->t (5): one path, saturating the bridge only.
    FlowGraph<int32_t> g(2);
    g.set_terminal_caps(0, 5, 0);
    g.set_terminal_caps(1, 0, 5);
    g.add_edge(0, 1, 3, 0);
    check(g.maxflow() == 3, "counter case 1 flow");
    const auto c = g.counters();
    check(c.augmentations == 1 && c.orphans == 0 && c.adoptions == 0, "counter case 1: 1 augmentation, no orphan");
  }
  {  // s->0 (3), 0->1->2 (5), 2->t (5): the path saturates s->0; 0 and then its child 1 are freed.
    FlowGraph<int32_t> g(3);
    g.set_terminal_caps(0, 3, 0);
    g.set_terminal_caps(2, 0, 5);
    g.add_edge(0, 1, 5, 0);
    g.add_edge(1, 2, 5, 0);
    check(g.maxflow() == 3, "counter case 2 flow");
    const auto c = g.counters();
    check(c.augmentations == 1 && c.orphans == 2 && c.adoptions == 0, "counter case 2: 1 augmentation, 2 orphans freed");
    g.set_terminal_caps(0, 4, 0);
    g.maxflow();
    check(g.counters().augmentations == 2, "counters add up over reusing solves");
  }
}

template <class Cap>
void fill_caps(FlowGraph<Cap>& g, const Spec<Cap>& s) {
  for (int i = 0; i < s.n; ++i) {
    g.source_caps()[i] = s.cs[i];
    g.sink_caps()[i] = s.ct[i];
  }
  for (size_t e = 0; e < s.edges.size(); ++e) {
    g.edge_caps()[2 * e] = s.edges[e].uv;
    g.edge_caps()[2 * e + 1] = s.edges[e].vu;
  }
}

template <class Cap>
void assign_structure(FlowGraph<Cap>& g, const Spec<Cap>& s) {
  std::vector<int32_t> u, v;
  for (const auto& e : s.edges) {
    u.push_back(e.u);
    v.push_back(e.v);
  }
  g.assign(s.n, int32_t(s.edges.size()), u.data(), v.data());
}

// Bulk assignment equals incremental building; a rebuild with the same structure and new capacities, a
// rebuild with another structure, and reset_flow() after a solve all equal fresh graphs.
template <class Cap>
void bulk_tests(const char* type, double max_cap, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  FlowGraph<Cap> h;  // reused throughout
  for (int it = 0; it < count; ++it) {
    Spec<Cap> s = random_spec<Cap>(rng, Family(it % kFamilies), max_cap);
    const std::string label = std::string(type) + " bulk #" + std::to_string(it);
    assign_structure(h, s);
    fill_caps(h, s);
    h.reset_flow();
    FlowGraph<Cap> g = build(s);
    const auto f = h.maxflow();
    check(close<FlowOf<Cap>>(f, g.maxflow(), slack(s, h)), label + ": bulk != incremental");
    verify(h, s, label, true);
    // Same structure, new capacities (the arc layout is kept).
    for (int i = 0; i < s.n; ++i) {
      s.cs[i] = random_cap<Cap>(rng, max_cap, 0.3);
      s.ct[i] = random_cap<Cap>(rng, max_cap, 0.3);
    }
    for (auto& e : s.edges) e.uv = random_cap<Cap>(rng, max_cap, 0.3), e.vu = random_cap<Cap>(rng, max_cap, 0.3);
    assign_structure(h, s);
    fill_caps(h, s);
    h.reset_flow();
    FlowGraph<Cap> fresh = build(s);
    check(close<FlowOf<Cap>>(h.maxflow(), fresh.maxflow(), slack(s, h)), label + ": same-structure rebuild != fresh");
    verify(h, s, label + " (rebuilt)", true);
    if constexpr (std::is_integral_v<Cap>) {
      bool same = true;
      for (int i = 0; i < s.n; ++i) same = same && h.segment(i) == fresh.segment(i);
      check(same, label + ": same-structure rebuild cut != fresh cut");
    }
    // reset_flow() after a solve: from scratch again, same answer.
    h.reset_flow();
    check(!h.solved() && close<FlowOf<Cap>>(h.maxflow(), fresh.flow(), slack(s, h)), label + ": reset_flow + solve != fresh");
  }
  // reset_flow on an incrementally built graph lays out its arcs.
  Spec<Cap> s = random_spec<Cap>(rng, Family::kSparse, max_cap);
  FlowGraph<Cap> g(s.n);
  for (const auto& e : s.edges) g.add_edge(e.u, e.v, 0, 0);
  fill_caps(g, s);
  g.reset_flow();
  g.maxflow();
  verify(g, s, std::string(type) + " reset_flow of an incremental graph", true);
}

void bulk_validation_cases() {
  FlowGraph<int32_t> g;
  const int32_t u[] = {0, 1}, v[] = {1, 3};
  check(throws_type<std::invalid_argument>([&] { g.assign(3, 2, u, v); }), "assign: node id out of range");
  check(g.num_nodes() == 0 && g.num_edges() == 0, "assign: a bad id leaves the graph empty");
  const int32_t v2[] = {1, 2};
  g.assign(3, 2, u, v2);
  g.edge_caps()[0] = -1;
  check(throws_type<std::invalid_argument>([&] { g.reset_flow(); }), "reset_flow: negative capacity");
  check(g.cap_uv(0) == 0 && g.maxflow() == 0, "reset_flow: a bad capacity leaves zero capacities");
  g.edge_caps()[2] = std::numeric_limits<int32_t>::max();
  g.edge_caps()[3] = 1;
  check(throws_type<std::overflow_error>([&] { g.reset_flow(); }), "reset_flow: int32 pair overflow");
  check(throws_type<std::invalid_argument>([&] { g.assign(-1, 0, u, v); }), "assign: negative node count");
}

// The time counter wraps around after 2^32 - 1 augmentations: reusing solves across the wrap (the trees
// are re-stamped with exact distances) still equal fresh solves.
void time_wrap_test() {
  std::mt19937_64 rng(5);
  Spec<int32_t> s = grid_spec(rng, 24, 24, 50);
  FlowGraph<int32_t> g = build(s);
  g.maxflow();
  FlowGraphTestAccess::set_time(g, std::numeric_limits<uint32_t>::max() - 2);
  for (int r = 0; r < 20; ++r) {
    const int x0 = int(rng() % 20), y0 = int(rng() % 20);
    for (int y = y0; y < y0 + 4; ++y)
      for (int x = x0; x < x0 + 4; ++x) {
        const int i = y * 24 + x;
        s.cs[i] = int32_t(rng() % 65);
        s.ct[i] = int32_t(rng() % 65);
        g.set_terminal_caps(i, s.cs[i], s.ct[i]);
      }
    const int64_t f = g.maxflow();
    check(f == dinic(s).flow, "time wrap-around: round " + std::to_string(r));
    if (r % 5 == 0) verify(g, s, "time wrap-around round " + std::to_string(r), false);
  }
}

// Arrays for AnyGraph from a spec (int32 or double entries).
struct ArraySpec {
  std::vector<int32_t> from, to, i_fwd, i_rev, i_src, i_snk;
  std::vector<double> d_fwd, d_rev, d_src, d_snk;
  GraphArrays arrays(CapType type, bool as_double) const {
    GraphArrays in;
    in.num_nodes = int32_t(i_src.size() + d_src.size()) / (as_double ? 1 : 1);
    in.num_nodes = int32_t(as_double ? d_src.size() : i_src.size());
    in.num_edges = from.size();
    in.from = from.data();
    in.to = to.data();
    if (as_double) {
      in.fwd.f64 = d_fwd.data(), in.rev.f64 = d_rev.data(), in.source.f64 = d_src.data(), in.sink.f64 = d_snk.data();
    } else {
      in.fwd.i32 = i_fwd.data(), in.rev.i32 = i_rev.data(), in.source.i32 = i_src.data(), in.sink.i32 = i_snk.data();
    }
    in.type = type;
    in.label = "test";
    return in;
  }
  void set(const Spec<int32_t>& s) {
    from.clear(), to.clear(), i_fwd.clear(), i_rev.clear(), d_fwd.clear(), d_rev.clear();
    for (const auto& e : s.edges) {
      from.push_back(e.u), to.push_back(e.v), i_fwd.push_back(e.uv), i_rev.push_back(e.vu);
      d_fwd.push_back(e.uv * 0.5), d_rev.push_back(e.vu * 0.5);
    }
    i_src = s.cs, i_snk = s.ct;
    d_src.assign(s.cs.begin(), s.cs.end());
    d_snk.assign(s.ct.begin(), s.ct.end());
    for (double& x : d_src) x *= 0.5;
    for (double& x : d_snk) x *= 0.5;
  }
};

// Same-structure reloads, one-shot solves and retained batches allocate nothing once warm, and give the
// answers of fresh graphs; so do reusing solves that change the same nodes each round.
void steady_state_tests() {
  std::mt19937_64 rng(8);
  Spec<int32_t> s = grid_spec(rng, 40, 30, -30);
  ArraySpec a;
  a.set(s);
  std::vector<uint8_t> seg(s.n), seg2(s.n);
  for (const CapType type : {CapType::kInt32, CapType::kFloat64}) {
    const bool dbl = type == CapType::kFloat64;
    const std::string name = gapbcfw::maxflow::cap_type_name(type);
    auto g = AnyGraph::create(type);
    const int64_t first = g_allocations.load();
    g->load(a.arrays(type, dbl));
    check(g_allocations.load() > first, name + ": the first load allocates (the allocation counter works)");
    g->solve();
    // New unaries in place (same structure), then a reload: compare with a fresh graph, count allocations.
    for (int i = 0; i < s.n; ++i) s.cs[i] = int32_t(rng() % 65), s.ct[i] = int32_t(rng() % 65);
    a.set(s);
    const GraphArrays in = a.arrays(type, dbl);
    auto fresh = AnyGraph::create(type);
    fresh->load(in);
    const double f0 = fresh->solve();
    fresh->segments(seg2.data());
    int64_t before = g_allocations.load();
    g->load(in);
    const double f1 = g->solve();
    g->segments(seg.data());
    int64_t allocated = g_allocations.load() - before;
    check(allocated == 0, name + ": same-structure reload + solve allocated " + std::to_string(allocated) + " times");
    check(f1 == f0 && seg == seg2, name + ": same-structure reload != fresh graph");
    check(f0 == (dbl ? 0.5 : 1.0) * double(dinic(s).flow), name + ": reload flow != Dinic");
    // One-shot solves in the thread's scratch graph.
    gapbcfw::maxflow::solve_once(in, seg.data());
    before = g_allocations.load();
    const double f2 = gapbcfw::maxflow::solve_once(in, seg.data());
    allocated = g_allocations.load() - before;
    check(allocated == 0 && f2 == f0 && seg == seg2, name + ": repeated one-shot solve allocated " + std::to_string(allocated) + " times or differs");
    // A retained batch of two graphs, solved twice on one thread.
    std::vector<uint8_t> b0(s.n), b1(s.n);
    std::vector<gapbcfw::maxflow::BatchGraph> graphs = {{in, b0.data()}, {in, b1.data()}};
    GraphBatch batch(graphs, true);
    double flows[2] = {0, 0};
    batch.solve(nullptr, 2, 1, nullptr, flows);
    before = g_allocations.load();
    const size_t done = batch.solve(nullptr, 2, 1, nullptr, flows).solved;
    allocated = g_allocations.load() - before;
    check(allocated == 0 && done == 2 && flows[0] == f0 && flows[1] == f0 && b0 == seg2 && b1 == seg2,
          name + ": second solve of a retained batch allocated " + std::to_string(allocated) + " times or differs");
  }
  // Reusing solves (KT07) that change the same patch each round.
  FlowGraph<int32_t> g = build(s);
  g.maxflow();
  int64_t allocated = 0;
  for (int r = 0; r < 6; ++r) {
    const int64_t before = g_allocations.load();
    for (int i = 0; i < 200; ++i) g.set_terminal_caps(i, int32_t(rng() % 65), int32_t(rng() % 65));
    g.maxflow();
    if (r > 0) allocated += g_allocations.load() - before;
  }
  check(allocated == 0, "reusing solves allocated " + std::to_string(allocated) + " times after the first round");
}

// AnyGraph's checks and batches.
void any_graph_cases() {
  ArraySpec a;
  Spec<int32_t> s;
  s.n = 3;
  s.cs = {5, 0, 0};
  s.ct = {0, 0, 5};
  s.edges = {{0, 1, 1, 0}, {1, 2, 2, 0}};
  a.set(s);
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const std::exception& e) {
      return gapbcfw::maxflow::describe_failure(e, "test").message;
    }
    return "";
  };
  auto g = AnyGraph::create(CapType::kInt32);
  GraphArrays in = a.arrays(CapType::kInt32, false);
  a.to[1] = 1;
  check(message([&] { g->load(in); }) == "test: edge 1 is a self-loop (edgeFrom = edgeTo = 1)", "load: self-loop message");
  a.to[1] = 3;
  check(message([&] { g->load(in); }) == "test: edgeTo[1] = 3 is not a node id in 0..2", "load: node id message");
  a.to[1] = 2;
  a.i_fwd[0] = -4;
  check(message([&] { g->load(in); }) == "test: capFwd[0] = -4 is negative (capacities must be >= 0)", "load: negative message");
  check(g->num_nodes() == 0, "load: a bad value leaves the graph empty");
  a.i_fwd[0] = std::numeric_limits<int32_t>::max();
  a.i_rev[0] = 1;
  check(message([&] { g->load(in); }).find("capFwd[0] + capRev[0] overflows the capacity type 'int32'") != std::string::npos, "load: int32 pair overflow");
  a.i_fwd[0] = 1;
  a.i_rev[0] = 0;
  g->load(in);
  check(g->solve() == 1, "load after errors works");
  GraphArrays d = a.arrays(CapType::kInt64, true);
  a.d_fwd[0] = 1, a.d_src[0] = 5, a.d_snk[2] = 5;  // integers, apart from the entries changed below
  {
    auto x = AnyGraph::create(CapType::kInt64);
    x->load(d);
    check(x->solve() == 1, "load: int64 from integral doubles");
  }
  a.d_fwd[1] = 0.25;
  check(message([&] { AnyGraph::create(CapType::kInt64)->load(d); }).find("capFwd[1] = 0.25 is not an integer") != std::string::npos, "load: non-integer for int64");
  a.d_fwd[1] = 1e17;
  check(message([&] { AnyGraph::create(CapType::kInt64)->load(d); }).find("exceeds 9007199254740992") != std::string::npos, "load: beyond 2^53 for int64");
  a.d_fwd[1] = std::nan("");
  check(message([&] { AnyGraph::create(CapType::kFloat64)->load(d); }) == "test: capFwd[1] is NaN (capacities must be finite numbers >= 0)", "load: NaN");
  a.d_fwd[1] = 1;
  // Batches: overlapping outputs, repeated items, a failing graph, cancellation.
  std::vector<uint8_t> seg(4);
  GraphArrays ok = a.arrays(CapType::kInt32, false);
  check(throws_type<std::invalid_argument>([&] { GraphBatch({{ok, seg.data()}, {ok, seg.data() + 1}}, true); }), "batch: overlapping segments rejected");
  GraphBatch batch({{ok, nullptr}, {ok, nullptr}}, false);
  double flows[2];
  const int32_t twice[] = {1, 1}, outside[] = {2};
  const auto progress = batch.solve(twice, 2, 2, nullptr, flows);
  check(progress.solved == 1 && progress.wanted == 1 && flows[1] == 1, "batch: an item listed twice is solved once");
  check(throws_type<std::invalid_argument>([&] { batch.solve(outside, 1, 1, nullptr, flows); }), "batch: an item outside the batch is rejected");
  const std::atomic<bool> stop{true};
  check(batch.solve(nullptr, 2, 2, &stop, flows).solved == 0, "batch: a set cancel flag solves nothing");
  GraphArrays bad = ok;
  bad.label = "graphs[1]";
  bad.type = CapType::kInt64;
  a.i_src[0] = -1;
  GraphBatch failing({{ok, nullptr}, {bad, nullptr}}, true);
  const bool labelled = throws_with([&] { failing.solve(nullptr, 2, 2, nullptr, flows); }, [](const std::exception& e) {
    const auto* b = dynamic_cast<const gapbcfw::maxflow::DescribedError*>(&e);
    return b != nullptr && b->bad_input() && std::string(e.what()).find("sourceCap[0] = -1 is negative") != std::string::npos;
  });
  check(labelled, "batch: a bad value fails with a labelled DescribedError");
}

// DIMACS arc merging (same flows as unmerged, fewer edges, file order and orientation) and the
// automatic int32 / int64 / float64 choice.
void dimacs_merge_cases() {
  using gapbcfw::maxflow::read_dimacs_any;
  std::mt19937_64 rng(31);
  for (int it = 0; it < 300; ++it) {
    auto si = random_spec<int64_t>(rng, Family(it % kFamilies), it % 2 ? 1e12 : 50);
    FlowGraph<int64_t> gi = build(si);
    std::ostringstream o;
    write_dimacs(o, gi, int64_t(0));
    const std::string text = o.str();
    auto merged = gapbcfw::maxflow::read_dimacs<int64_t>(std::string_view(text), true);
    auto plain = gapbcfw::maxflow::read_dimacs<int64_t>(std::string_view(text), false);
    const auto fm = merged.graph.maxflow(), fp = plain.graph.maxflow();
    check(fm == fp && fm == gi.maxflow(), "dimacs merge #" + std::to_string(it) + ": merged flow " + std::to_string(fm) + " != unmerged " + std::to_string(fp));
    check(merged.graph.num_edges() <= plain.graph.num_edges(), "dimacs merge never adds edges");
    bool same_cut = true;
    for (int i = 0; i < merged.graph.num_nodes(); ++i) same_cut = same_cut && merged.graph.segment(i) == plain.graph.segment(i);
    check(same_cut, "dimacs merge #" + std::to_string(it) + ": cut differs");
    auto any = read_dimacs_any(text, CapChoice::kAuto);
    check(any.graph->solve() == double(fm), "dimacs auto type: same flow");
  }
  {
    // Both directions of each grid edge: half the edges when merged.
    std::mt19937_64 g(3);
    Spec<int32_t> s = grid_spec(g, 12, 10, 7);
    std::ostringstream o;
    write_dimacs(o, build(s), int64_t(0));
    auto merged = gapbcfw::maxflow::read_dimacs<int32_t>(std::string_view(o.str()));
    auto plain = gapbcfw::maxflow::read_dimacs<int32_t>(std::string_view(o.str()), false);
    check(merged.graph.num_edges() == int(s.edges.size()) && plain.graph.num_edges() == 2 * int(s.edges.size()), "grid file: merged edges = grid edges");
    check(merged.graph.maxflow() == dinic(s).flow && plain.graph.maxflow() == dinic(s).flow, "grid file: flow");
  }
  {
    // First-arc order and orientation; sums per direction; self-loops kept apart.
    auto p = gapbcfw::maxflow::read_dimacs<int32_t>(std::string_view("p max 6 6\nn 1 s\nn 6 t\na 2 3 5\na 4 2 1\na 3 2 7\na 2 3 2\na 5 5 4\na 2 4 3\n"));
    const auto& g = p.graph;
    check(g.num_edges() == 3 && g.edge_u(0) == 1 && g.edge_v(0) == 2 && g.cap_uv(0) == 7 && g.cap_vu(0) == 7 && g.edge_u(1) == 3 &&
              g.edge_v(1) == 1 && g.cap_uv(1) == 1 && g.cap_vu(1) == 3 && g.edge_u(2) == 4 && g.edge_v(2) == 4 && g.cap_uv(2) == 4,
          "dimacs merge: order, orientation and sums");
  }
  auto type_of = [](const std::string& text) { return read_dimacs_any(text, CapChoice::kAuto).graph->type(); };
  const std::string head = "p max 4 3\nn 1 s\nn 4 t\n";
  check(type_of(head + "a 1 2 5\na 2 3 7\na 3 4 2\n") == CapType::kInt32, "auto: small integers -> int32");
  check(type_of(head + "a 1 2 5\na 2 3 3000000000\na 3 4 2\n") == CapType::kInt64, "auto: an arc beyond int32 -> int64");
  check(type_of(head + "a 1 2 5\na 2 3 2000000000\na 3 2 2000000000\n") == CapType::kInt64, "auto: a merged pair beyond int32 -> int64");
  check(type_of("p max 4 3\nn 1 s\nn 4 t\na 1 2 2000000000\na 1 2 2000000000\na 2 4 1\n") == CapType::kInt64, "auto: a terminal sum beyond int32 -> int64");
  check(type_of(head + "a 1 2 5\na 2 3 0.5\na 3 4 2\n") == CapType::kFloat64, "auto: a fraction -> float64");
  check(read_dimacs_any(head + "a 1 2 5\na 2 3 2000000000\na 3 2 2000000000\n", CapChoice::kAuto, false).graph->type() == CapType::kInt32,
        "auto without merging: single arcs fit int32");
  const bool line3 = throws_with([&] { gapbcfw::maxflow::read_dimacs<int32_t>(std::string_view("p max 4 2\nn 1 s\nn 4 t\na 2 3 2000000000\na 3 2 2000000000\n")); },
                                 [](const std::exception& e) {
                                   const auto* d = dynamic_cast<const DimacsError*>(&e);
                                   return d != nullptr && d->line() == 5 && std::string(e.what()).find("overflow") != std::string::npos;
                                 });
  check(line3, "int32: a merged pair beyond int32 names the line of the arc that overflows it");
  auto p = read_dimacs_any(head + "a 1 2 5\na 2 3 3000000000\na 3 4 2\n", CapChoice::kAuto);
  check(p.graph->solve() == 2 && p.source == 0 && p.sink == 3, "auto int64 fallback solves");
}

}  // namespace

int main() {
  const auto t0 = std::chrono::steady_clock::now();
  edge_cases();
  validation_cases();
  random_static_tests<int32_t>("int32", 20, 8000, 1);
  random_static_tests<int64_t>("int64", 1e12, 3000, 2);
  random_static_tests<double>("double", 10, 6000, 3);
  random_reuse_tests<int32_t>("int32", 20, 6000, 4);
  random_reuse_tests<int64_t>("int64", 1000, 1500, 5);
  random_reuse_tests<double>("double", 10, 4000, 6);
  grid_reuse_sequence();
  refinement_tests();
  counter_cases();
  bulk_tests<int32_t>("int32", 20, 1500, 11);
  bulk_tests<double>("double", 10, 1000, 12);
  bulk_validation_cases();
  time_wrap_test();
  steady_state_tests();
  any_graph_cases();
  dimacs_cases();
  dimacs_merge_cases();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("maxflow tests: %lld checks, %lld failures, %.2f s\n", (long long)g_checks,
              (long long)g_failures, secs);
  return g_failures == 0 ? 0 : 1;
}
