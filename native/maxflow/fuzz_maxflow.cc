// Fuzz target for native/maxflow (plain C++17, no Node headers): LLVMFuzzerTestOneInput.
//
// The first byte picks the mode:
//   even: the rest is DIMACS text, read as int32, int64 and double capacities. A rejected file must
//         fail with a DimacsError; an accepted one is solved, written back and read again, and the
//         copy must have the same flow (exactly for integers) and, when small, the flow of an
//         independent Edmonds-Karp.
//         The file read without merging arcs, and read with the automatic capacity type, must give the
//         same flow.
//   odd:  the rest encodes a graph (capacity type, refinements, <= 40 nodes, <= 120 edges,
//         capacities from tiny to near the type's limit) followed by a script of solves and capacity
//         changes (set/add terminal capacities, set edge capacities, bad ids, negative values, restarts
//         from the zero flow). After each solve: flow == a fresh FlowGraph's == a bulk-assigned one's ==
//         Edmonds-Karp's, the reported cut's capacity == the flow, and (integers) the cut equals the
//         fresh solve's.
// Expected exceptions (std::invalid_argument, std::overflow_error, DimacsError) are part of the
// contract; a violated invariant calls __builtin_trap(), so the fuzzer reports it with the input.
//
// libFuzzer (clang):
//   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -Inative native/maxflow/fuzz_maxflow.cc
//     native/maxflow/flow_graph.cc native/maxflow/any_graph.cc native/maxflow/batch.cc native/maxflow/dimacs.cc
// Without libFuzzer (e.g. g++), -DGAPBCFW_FUZZ_MAIN adds a main() that replays the files given as
// arguments, or else runs random and mutated inputs for a time budget: ./fuzz [--seconds S] [--seed N].
// scripts/fuzz-maxflow.sh picks whichever is available and runs it for a fixed budget.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
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

#define FUZZ_CHECK(cond)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      std::fprintf(stderr, "fuzz_maxflow: check failed at line %d: %s\n", __LINE__, #cond); \
      __builtin_trap();                                                                       \
    }                                                                                         \
  } while (0)

/// Byte cursor: 0 once exhausted.
struct Bytes {
  const uint8_t* p;
  size_t n;
  size_t i = 0;
  bool empty() const { return i >= n; }
  uint8_t next() { return i < n ? p[i++] : 0; }
};

/// Independent reference: Edmonds-Karp on a dense residual matrix (terminals are nodes n, n+1).
template <class V>
V edmonds_karp(int n, const std::vector<V>& cs, const std::vector<V>& ct, const std::vector<int>& eu,
               const std::vector<int>& ev, const std::vector<V>& cuv, const std::vector<V>& cvu, V tol) {
  const int N = n + 2, s = n, t = n + 1;
  std::vector<V> r(size_t(N) * N, 0);
  auto at = [&](int a, int b) -> V& { return r[size_t(a) * N + b]; };
  for (int i = 0; i < n; ++i) {
    at(s, i) += cs[i];
    at(i, t) += ct[i];
  }
  for (size_t e = 0; e < eu.size(); ++e) {
    if (eu[e] == ev[e]) continue;
    at(eu[e], ev[e]) += cuv[e];
    at(ev[e], eu[e]) += cvu[e];
  }
  V flow = 0;
  std::vector<int> prev(N);
  for (;;) {
    std::fill(prev.begin(), prev.end(), -1);
    prev[s] = s;
    std::queue<int> q;
    q.push(s);
    while (!q.empty() && prev[t] < 0) {
      const int a = q.front();
      q.pop();
      for (int b = 0; b < N; ++b) {
        if (prev[b] < 0 && at(a, b) > tol) {
          prev[b] = a;
          q.push(b);
        }
      }
    }
    if (prev[t] < 0) return flow;
    V f = std::numeric_limits<V>::max();
    for (int x = t; x != s; x = prev[x]) f = std::min(f, at(prev[x], x));
    for (int x = t; x != s; x = prev[x]) {
      at(prev[x], x) -= f;
      at(x, prev[x]) += f;
    }
    flow += f;
  }
}

template <class Cap>
Cap decode_cap(Bytes& in) {
  const uint8_t b = in.next();
  if constexpr (std::is_same_v<Cap, double>) {
    if (b < 180) return (b % 40) * 0.25;
    if (b < 200) return 1e-13 * (b - 179);  // below the default tolerance of large graphs
    if (b < 250) return (b - 199) * 1000.5;
    return 1e12 * (b - 249);
  } else {
    if (b < 200) return static_cast<Cap>(b % 32);
    if (b < 250) return static_cast<Cap>((b - 199) * 100000);
    // int32: at the type's limit (sums overflow and must be refused). int64: large, but sums of a
    // few hundred stay below 2^63 (the core accumulates int64 flow values without checks).
    if constexpr (std::is_same_v<Cap, int32_t>) return std::numeric_limits<Cap>::max() - static_cast<Cap>(b - 250);
    return static_cast<Cap>(b - 249) * 1000000000000000LL;
  }
}

/// Mirror of the user-level capacities, for the fresh solve and the reference.
template <class Cap>
struct Model {
  int n = 0;
  std::vector<Cap> cs, ct, cuv, cvu;
  std::vector<int> eu, ev;
};

template <class Cap>
FlowGraph<Cap> build(const Model<Cap>& m) {
  FlowGraph<Cap> g(m.n);
  for (size_t e = 0; e < m.eu.size(); ++e) g.add_edge(m.eu[e], m.ev[e], m.cuv[e], m.cvu[e]);
  for (int i = 0; i < m.n; ++i) g.set_terminal_caps(i, m.cs[i], m.ct[i]);
  return g;
}

template <class Cap>
using Flow = typename FlowGraph<Cap>::Flow;

/// Cut capacity of g's segmentation under the model's capacities (in the flow type).
template <class Cap>
Flow<Cap> cut_of(const FlowGraph<Cap>& g, const Model<Cap>& m) {
  Flow<Cap> c = 0;
  for (int i = 0; i < m.n; ++i) c += g.segment(i) == Side::kSource ? Flow<Cap>(m.ct[i]) : Flow<Cap>(m.cs[i]);
  for (size_t e = 0; e < m.eu.size(); ++e) {
    const bool su = g.segment(m.eu[e]) == Side::kSource, sv = g.segment(m.ev[e]) == Side::kSource;
    if (su && !sv) c += m.cuv[e];
    if (!su && sv) c += m.cvu[e];
  }
  return c;
}

// The model's graph built in bulk (FlowGraph::assign + reset_flow).
template <class Cap>
FlowGraph<Cap> build_bulk(const Model<Cap>& m) {
  FlowGraph<Cap> g;
  g.assign(m.n, static_cast<int32_t>(m.eu.size()), m.eu.data(), m.ev.data());
  for (int i = 0; i < m.n; ++i) g.source_caps()[i] = m.cs[i], g.sink_caps()[i] = m.ct[i];
  for (size_t e = 0; e < m.eu.size(); ++e) g.edge_caps()[2 * e] = m.cuv[e], g.edge_caps()[2 * e + 1] = m.cvu[e];
  g.reset_flow();
  return g;
}

template <class Cap>
void check_solve(FlowGraph<Cap>& g, const Model<Cap>& m) {
  const Flow<Cap> f = g.maxflow();
  const double tol = static_cast<double>(g.tolerance());
  FlowGraph<Cap> fresh = build(m);
  const Flow<Cap> ff = fresh.maxflow();
  FlowGraph<Cap> bulk = build_bulk(m);
  const Flow<Cap> fb = bulk.maxflow();
  std::vector<Flow<Cap>> cs(m.cs.begin(), m.cs.end()), ct(m.ct.begin(), m.ct.end()), cuv(m.cuv.begin(), m.cuv.end()),
      cvu(m.cvu.begin(), m.cvu.end());
  if constexpr (std::is_integral_v<Cap>) {
    const Flow<Cap> ref = edmonds_karp<Flow<Cap>>(m.n, cs, ct, m.eu, m.ev, cuv, cvu, 0);
    FUZZ_CHECK(f == ff);
    FUZZ_CHECK(f == fb);
    FUZZ_CHECK(f == ref);
    FUZZ_CHECK(cut_of(g, m) == f);
    for (int i = 0; i < m.n; ++i) FUZZ_CHECK(g.segment(i) == fresh.segment(i));
  } else {
    double total = 1;
    for (double x : cs) total += x;
    for (double x : cuv) total += x;
    for (double x : cvu) total += x;
    // Residuals at or below their threshold count as saturated, and tol bounds every threshold
    // (2e-12 x the largest capacity ever given): each of the <= 2n + 2m arcs of a cut may differ by tol.
    const double slack = 1e-9 * total + (2.0 * m.n + 2.0 * m.eu.size() + 2) * tol;
    const double ref = edmonds_karp<double>(m.n, cs, ct, m.eu, m.ev, cuv, cvu, 1e-12 * total);
    FUZZ_CHECK(std::fabs(f - ff) <= slack);
    FUZZ_CHECK(std::fabs(f - fb) <= slack);
    FUZZ_CHECK(std::fabs(f - ref) <= slack);
    FUZZ_CHECK(std::fabs(cut_of(g, m) - f) <= slack);
  }
}

template <class Cap>
void run_graph(Bytes& in) {
  Model<Cap> m;
  m.n = 1 + in.next() % 40;
  const int edges = in.next() % 121;
  m.cs.resize(m.n);
  m.ct.resize(m.n);
  FlowGraph<Cap> g(m.n);
  const uint8_t r = in.next();
  g.set_refinements({(r & 1) != 0, (r & 2) != 0, (r & 4) != 0});
  for (int e = 0; e < edges; ++e) {
    const int u = in.next() % m.n, v = in.next() % m.n;
    const Cap a = decode_cap<Cap>(in), b = decode_cap<Cap>(in);
    try {
      g.add_edge(u, v, a, b);
    } catch (const std::overflow_error&) {
      continue;  // cap_uv + cap_vu does not fit: refused, graph unchanged
    }
    m.eu.push_back(u);
    m.ev.push_back(v);
    m.cuv.push_back(a);
    m.cvu.push_back(b);
  }
  for (int i = 0; i < m.n; ++i) {
    const Cap a = decode_cap<Cap>(in), b = decode_cap<Cap>(in);
    try {
      g.set_terminal_caps(i, a, b);
      m.cs[i] = a;
      m.ct[i] = b;
    } catch (const std::overflow_error&) {
    }
  }
  bool solved = false;
  for (int ops = 0; !in.empty() && ops < 64; ++ops) {
    const uint8_t op = in.next() % 7;
    if (op == 0) {
      check_solve(g, m);
      solved = true;
      continue;
    }
    try {
      if (op == 1 || op == 2) {
        const int i = in.next() % (m.n + 1);  // m.n is out of range on purpose
        const Cap a = decode_cap<Cap>(in), b = decode_cap<Cap>(in);
        if (op == 1) {
          g.set_terminal_caps(i, a, b);
          m.cs[i] = a;
          m.ct[i] = b;
        } else {
          g.add_terminal_caps(i, a, b);
          m.cs[i] += a;
          m.ct[i] += b;
        }
      } else if (op == 3 && !m.eu.empty()) {
        const int e = in.next() % (m.eu.size() + 1);
        const Cap a = decode_cap<Cap>(in), b = decode_cap<Cap>(in);
        g.set_edge_caps(e, a, b);
        m.cuv[e] = a;
        m.cvu[e] = b;
      } else if (op == 4) {
        // Invalid values must be refused without changing anything.
        const Cap bad = std::is_same_v<Cap, double> && (in.next() & 1) ? std::numeric_limits<Cap>::quiet_NaN() : Cap(-1);
        bool threw = false;
        try {
          g.set_terminal_caps(in.next() % m.n, bad, 0);
        } catch (const std::invalid_argument&) {
          threw = true;
        }
        FUZZ_CHECK(threw);
      } else if (op == 5 && solved) {
        // Segments of a graph changed since the last solve must be refused.
        g.set_terminal_caps(0, m.cs[0], m.ct[0]);
        bool threw = false;
        try {
          (void)g.segment(0);
        } catch (const std::logic_error&) {
          threw = true;
        }
        FUZZ_CHECK(threw);
        solved = false;
      } else if (op == 6) {
        g.reset_flow();  // same capacities, from the zero flow
        solved = false;
      }
    } catch (const std::invalid_argument&) {  // out-of-range id: refused, graph unchanged
    } catch (const std::overflow_error&) {    // sum does not fit the integer type: refused
    }
  }
  check_solve(g, m);
}

/// Largest N on any "p" line (to keep the fuzzer away from multi-gigabyte allocations).
int64_t declared_nodes(const std::string& text) {
  int64_t best = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string p, kind;
    long long n = 0;
    if (f >> p >> kind >> n && p == "p") best = std::max<int64_t>(best, n);
  }
  return best;
}

template <class Cap>
void run_dimacs(const std::string& text) {
  DimacsProblem<Cap> p;
  try {
    std::istringstream in(text);
    p = read_dimacs<Cap>(in);
  } catch (const DimacsError& e) {
    FUZZ_CHECK(e.line() >= 1);
    FUZZ_CHECK(std::strncmp(e.what(), "dimacs line ", 12) == 0);
    return;
  }
  FUZZ_CHECK(p.source >= 0 && p.sink >= 0 && p.source != p.sink);
  // Keep the reference and the solve cheap.
  if (p.graph.num_nodes() > 3000 || p.graph.num_edges() > 20000) return;
  // The core accumulates flow values without overflow checks (flow_graph.h): skip problems whose
  // flow could leave int64 / be infinite (the addon refuses them the same way).
  long double src = 0, snk = 0, total = 0;
  for (int i = 0; i < p.graph.num_nodes(); ++i) {
    src += p.graph.source_cap(i);
    snk += p.graph.sink_cap(i);
  }
  for (int e = 0; e < p.graph.num_edges(); ++e) total += p.graph.cap_uv(e);
  if (std::min(src, snk) > 4.6e18L || src + snk + total > 1e300L) return;
  if constexpr (!std::is_integral_v<Cap>) {
    // Double capacities spanning more than 2^52 lose the small ones when added to the large (a merged pair's sum,
    // a residual): flows then depend on the order of the sums, and no two ways of solving can be compared.
    double lo = HUGE_VAL, hi = 0;
    const auto see = [&](double c) {
      if (c > 0) lo = std::min(lo, c), hi = std::max(hi, c);
    };
    for (int i = 0; i < p.graph.num_nodes(); ++i) see(p.graph.source_cap(i)), see(p.graph.sink_cap(i));
    for (int e = 0; e < p.graph.num_edges(); ++e) see(p.graph.cap_uv(e)), see(p.graph.cap_vu(e));
    if (hi > 0x1p52 * lo) return;
  }
  std::ostringstream out;
  write_dimacs(out, p);  // a problem the reader accepted can always be written
  std::istringstream back(out.str());
  DimacsProblem<Cap> q = read_dimacs<Cap>(back);
  const Flow<Cap> f = p.graph.maxflow(), g = q.graph.maxflow();
  FUZZ_CHECK(p.constant == q.constant);
  // One edge per arc, and the automatic capacity type: the same flow.
  DimacsProblem<Cap> unmerged = read_dimacs<Cap>(std::string_view(text), false);
  const Flow<Cap> fu = unmerged.graph.maxflow();
  gapbcfw::maxflow::AnyDimacsProblem any;
  try {
    any = gapbcfw::maxflow::read_dimacs_any(text, gapbcfw::maxflow::CapChoice::kAuto);
  } catch (const DimacsError& e) {
    // The automatic type reads integer files as integers: capacities (or sums) past int64 that the double
    // reader accepts are refused there.
    FUZZ_CHECK(!std::is_integral_v<Cap> && (std::strstr(e.what(), "out of range") || std::strstr(e.what(), "overflow")));
    return;
  }
  const double fa = any.graph->solve();
  if constexpr (std::is_integral_v<Cap>) {
    FUZZ_CHECK(fu == f);
    if (any.graph->type() != gapbcfw::maxflow::CapType::kFloat64) FUZZ_CHECK(fa == static_cast<double>(f));
  } else {
    FUZZ_CHECK(std::fabs(fu - f) <= 1e-9 * (1 + std::fabs(f)));
  }
  if constexpr (std::is_integral_v<Cap>) {
    FUZZ_CHECK(f == g);
  } else {
    FUZZ_CHECK(std::fabs(f - g) <= 1e-9 * (1 + std::fabs(f)));
  }
  const int n = p.graph.num_nodes();
  if (n <= 60) {
    std::vector<Flow<Cap>> cs(n), ct(n), cuv, cvu;
    std::vector<int> eu, ev;
    for (int i = 0; i < n; ++i) {
      cs[i] = p.graph.source_cap(i);
      ct[i] = p.graph.sink_cap(i);
    }
    double total = 1;
    for (int e = 0; e < p.graph.num_edges(); ++e) {
      eu.push_back(p.graph.edge_u(e));
      ev.push_back(p.graph.edge_v(e));
      cuv.push_back(p.graph.cap_uv(e));
      cvu.push_back(p.graph.cap_vu(e));
      total += static_cast<double>(p.graph.cap_uv(e));
    }
    for (int i = 0; i < n; ++i) total += static_cast<double>(cs[i]);
    if constexpr (std::is_integral_v<Cap>) {
      FUZZ_CHECK(edmonds_karp<Flow<Cap>>(n, cs, ct, eu, ev, cuv, cvu, 0) == f);
    } else {
      FUZZ_CHECK(std::fabs(edmonds_karp<double>(n, cs, ct, eu, ev, cuv, cvu, 1e-12 * total) - f) <= 1e-9 * total);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  if ((data[0] & 1) == 0) {
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    if (declared_nodes(text) > 100000) return 0;
    run_dimacs<int32_t>(text);
    run_dimacs<int64_t>(text);
    run_dimacs<double>(text);
  } else {
    Bytes in{data + 1, size - 1};
    switch (in.next() % 3) {
      case 0: run_graph<int32_t>(in); break;
      case 1: run_graph<int64_t>(in); break;
      default: run_graph<double>(in); break;
    }
  }
  return 0;
}

#ifdef GAPBCFW_FUZZ_MAIN
#include "fuzz_main.h"
// Stand-alone driver for compilers without libFuzzer: random graph scripts and mutated DIMACS
// files for a time budget (no coverage feedback), or replay of the files given as arguments.
namespace {

const char* const kSeeds[] = {
    "p max 6 10\nn 1 s\nn 6 t\na 1 2 16\na 1 3 13\na 2 3 10\na 3 2 4\na 2 4 12\na 4 3 9\na 3 5 14\na 5 4 7\na 4 6 20\na 5 6 4\n",
    "c comment\np max 4 6\nn 1 s\nn 4 t\na 1 2 3\na 1 3 2.5\na 2 3 1\na 3 2 1\na 2 4 2\na 3 4 3\n",
    "p max 5 7\nn 5 t\nn 2 s\na 2 1 4\na 1 5 3\na 2 5 1\na 5 2 9\na 2 2 1\na 3 4 1\na 1 1 0\n",
    // A header far beyond the file (refused before its nodes are allocated; mutations vary N and M).
    "p max 2000000000 2000000000\nn 1 s\nn 2 t\na 1 2 1\n",
};
const char* const kTokens[] = {"-1", "0", "1", "2147483647", "2147483648", "99999999999999999999", "1.5", "nan",
                               "inf", "1e308", "s", "t", "p", "a", "n", "c", "max", "\n", " ", "\r\n", "3"};

std::string mutate(std::mt19937_64& rng, std::string s) {
  const int edits = 1 + int(rng() % 4);
  for (int k = 0; k < edits; ++k) {
    const size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 4) {
      case 0: if (!s.empty() && pos < s.size()) s[pos] = char(rng() % 128); break;
      case 1: if (!s.empty() && pos < s.size()) s.erase(pos, 1 + rng() % 4); break;
      case 2: s.insert(pos, kTokens[rng() % (sizeof kTokens / sizeof *kTokens)]); break;
      default: {  // duplicate a line
        const size_t a = s.rfind('\n', pos == 0 ? 0 : pos - 1), b = s.find('\n', pos);
        if (a != std::string::npos && b != std::string::npos && b > a) s.insert(b + 1, s.substr(a + 1, b - a));
      }
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  return gapbcfw::RunFuzzMain(argc, argv, "fuzz_maxflow", 60, [](std::mt19937_64& rng, std::string& buf) {
    if (rng() % 2) {
      buf.assign(1, char(1));
      const size_t len = rng() % 700;
      for (size_t k = 0; k < len; ++k) buf.push_back(char(rng() % 256));
    } else {
      buf = std::string(1, char(0)) + mutate(rng, kSeeds[rng() % (sizeof kSeeds / sizeof *kSeeds)]);
    }
  });
}
#endif
