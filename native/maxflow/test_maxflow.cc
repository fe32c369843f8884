// Standalone tests for native/maxflow (no Node): FlowGraph against an independent Edmonds-Karp on
// an adjacency matrix, cut validity, reuse (dynamic graph cuts) against from-scratch solves, DIMACS
// round trips and error reporting, input validation. Exit status 0 iff every check passed.
//
//   g++ -std=c++17 -O2 -Inative native/maxflow/test_maxflow.cc native/maxflow/flow_graph.cc
//       native/maxflow/dimacs.cc -o test_maxflow && ./test_maxflow
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

#include "maxflow/dimacs.h"
#include "maxflow/flow_graph.h"

using gapbcfw::maxflow::DimacsError;
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

template <class Cap>
FlowGraph<Cap> build(const Spec<Cap>& s) {
  FlowGraph<Cap> g(s.n);
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
  dimacs_cases();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("maxflow tests: %lld checks, %lld failures, %.2f s\n", (long long)g_checks,
              (long long)g_failures, secs);
  return g_failures == 0 ? 0 : 1;
}
