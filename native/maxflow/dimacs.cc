// DIMACS max-flow reader/writer; see dimacs.h for the format and the mapping.
#include "maxflow/dimacs.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <iterator>
#include <limits>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace gapbcfw {
namespace maxflow {

DimacsError::DimacsError(int64_t line, const std::string& what)
    : std::runtime_error("dimacs line " + std::to_string(line) + ": " + what), line_(line) {}

namespace {

// The blank-separated fields of one line (views into the text); `count` may exceed the 5 kept.
struct Fields {
  std::string_view f[5];
  int count = 0;
};

Fields split_fields(std::string_view line) {
  Fields out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) {
      if (out.count < 5) out.f[out.count] = line.substr(start, i - start);
      ++out.count;
    }
  }
  return out;
}

// A token as it may be shown in a message: at most 20 characters, and a binary one (a control or non-ASCII byte:
// a compressed or foreign file) as a description, never its bytes.
std::string printable(std::string_view s) {
  const bool binary = std::any_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f; });
  if (binary) return "<binary bytes: not DIMACS text>";
  return s.size() <= 20 ? std::string(s) : std::string(s.substr(0, 20)) + "...";
}

// Whole-token integer; false when the token is not an integer or does not fit in int64.
bool parse_int(std::string_view s, int64_t& value) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, value);
  return r.ec == std::errc() && r.ptr == end;
}

// Thrown by the integer reading of a capacity that is not an integer when the type is automatic:
// the file is then read again with double capacities.
struct NotInteger {};

// One capacity token as N (int64_t or double), at most `limit`.
template <class N>
N parse_cap(std::string_view s, int64_t line, N limit, bool fall_back) {
  auto token = [&] { return std::string(s); };
  if constexpr (std::is_integral_v<N>) {
    int64_t v = 0;
    if (!parse_int(s, v)) {
      const bool digits = s.find_first_not_of("-0123456789") == std::string_view::npos && s != "-";
      if (!digits && fall_back) throw NotInteger{};
      throw DimacsError(line, (digits ? "capacity out of range: '" : "bad capacity '") + token() + "'");
    }
    if (v < 0) throw DimacsError(line, "negative capacity " + token());
    if (v > limit) throw DimacsError(line, "capacity out of range: '" + token() + "'");
    return v;
  } else {
    (void)fall_back;
    std::string_view t = s;
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);
    double v = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec == std::errc::result_out_of_range && r.ptr == t.data() + t.size()) {
      v = std::strtod(token().c_str(), nullptr);  // overflow (+-inf) or underflow (0 or subnormal)
    } else if (r.ec != std::errc() || r.ptr != t.data() + t.size() || t.empty() || std::isnan(v)) {
      throw DimacsError(line, "bad capacity '" + token() + "'");
    }
    if (v < 0) throw DimacsError(line, "negative capacity " + token());
    if (!std::isfinite(v) || v > limit) throw DimacsError(line, "capacity out of range: '" + token() + "'");
    return v + 0.0;  // -0 -> +0
  }
}

NodeId parse_node(std::string_view s, int64_t n, int64_t line, const char* what) {
  int64_t v = 0;
  if (!parse_int(s, v)) throw DimacsError(line, std::string("bad ") + what + " '" + std::string(s) + "'");
  if (v < 1 || v > n)
    throw DimacsError(line, std::string(what) + " " + std::string(s) + " out of range 1.." + std::to_string(n));
  return static_cast<NodeId>(v - 1);
}

// a + b within [0, limit], else throws the DimacsError `what` on `line`.
template <class N>
N add_capped(N a, N b, N limit, int64_t line, const char* what) {
  if (a > limit - b) throw DimacsError(line, what);
  return a + b;
}

// The file's content before the capacity type is fixed: capacities as N (int64_t or double).
template <class N>
struct Parsed {
  int64_t n = 0, p_line = 0;
  NodeId source = -1, sink = -1;
  std::vector<NodeId> tail, head;  // the arcs between non-terminal nodes, in file order
  std::vector<N> cap;
  std::vector<N> src, snk;  // terminal capacities per node: sums of the s->v and u->t arcs
  N constant = 0;           // sum of the s->t arcs
  int64_t ignored = 0;
};

// Calls f(line number, fields) for every line that is not blank or a comment.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  int64_t lineno = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const Fields fields = split_fields(line);
    if (fields.count == 0 || fields.f[0] == "c") continue;
    f(lineno, fields);
  }
}

// Reads every line (checks as in dimacs.h); single capacities and the terminal and s->t sums must
// stay within `limit`.
template <class N>
Parsed<N> parse(std::string_view text, N limit, bool fall_back) {
  const auto max_nodes = [](size_t bytes) { return std::max<int64_t>(kMaxNodes, static_cast<int64_t>(bytes / 2)); };
  Parsed<N> p;
  int64_t declared_arcs = 0, arcs = 0;
  for_each_line(text, [&](int64_t lineno, const Fields& fl) {
    const std::string_view* f = fl.f;
    if (f[0] == "p") {
      if (p.p_line) throw DimacsError(lineno, "duplicate p line (first on line " + std::to_string(p.p_line) + ")");
      if (fl.count != 4 || f[1] != "max") throw DimacsError(lineno, "expected 'p max N M'");
      if (!parse_int(f[2], p.n) || p.n < 2 || p.n > std::numeric_limits<NodeId>::max())
        throw DimacsError(lineno, "bad node count '" + std::string(f[2]) + "' (need 2.." +
                                      std::to_string(std::numeric_limits<NodeId>::max()) + ")");
      if (!parse_int(f[3], declared_arcs) || declared_arcs < 0)
        throw DimacsError(lineno, "bad arc count '" + std::string(f[3]) + "'");
      // Memory follows the file, not its header: N nodes are allocated here, so N is bounded by the file's size
      // (kMaxNodes in dimacs.h); the arcs are reserved for at most the arc lines the file can hold (8 bytes each).
      if (p.n > max_nodes(text.size()))
        throw DimacsError(lineno, "node count " + std::string(f[2]) + " is more than a file of " + std::to_string(text.size()) +
                                      " bytes may declare (at most " + std::to_string(max_nodes(text.size())) +
                                      ": 2^20, or one node per 2 bytes of the file)");
      p.p_line = lineno;
      p.src.assign(static_cast<size_t>(p.n), N{0});
      p.snk.assign(static_cast<size_t>(p.n), N{0});
      const size_t hint = static_cast<size_t>(std::min<int64_t>(declared_arcs, static_cast<int64_t>(text.size() / 8)));
      p.tail.reserve(hint);
      p.head.reserve(hint);
      p.cap.reserve(hint);
    } else if (f[0] == "n") {
      if (!p.p_line) throw DimacsError(lineno, "node line before the p line");
      if (fl.count != 3 || (f[2] != "s" && f[2] != "t")) throw DimacsError(lineno, "expected 'n ID s' or 'n ID t'");
      const NodeId id = parse_node(f[1], p.n, lineno, "node id");
      const bool is_source = f[2] == "s";
      NodeId& slot = is_source ? p.source : p.sink;
      if (slot >= 0) throw DimacsError(lineno, is_source ? "duplicate source" : "duplicate sink");
      if (id == (is_source ? p.sink : p.source))
        throw DimacsError(lineno, "node " + std::string(f[1]) + " is both source and sink");
      slot = id;
    } else if (f[0] == "a") {
      if (!p.p_line) throw DimacsError(lineno, "arc line before the p line");
      if (p.source < 0 || p.sink < 0) throw DimacsError(lineno, "arc line before the source and sink lines");
      if (fl.count != 4) throw DimacsError(lineno, "expected 'a U V CAP'");
      const NodeId u = parse_node(f[1], p.n, lineno, "arc tail");
      const NodeId v = parse_node(f[2], p.n, lineno, "arc head");
      const N c = parse_cap<N>(f[3], lineno, limit, fall_back);
      if (++arcs > declared_arcs)
        throw DimacsError(lineno, "more arcs than the " + std::to_string(declared_arcs) + " declared on line " +
                                      std::to_string(p.p_line));
      if (v == p.source || u == p.sink) {
        ++p.ignored;
      } else if (u == p.source && v == p.sink) {
        p.constant = add_capped<N>(p.constant, c, std::is_integral_v<N> ? std::numeric_limits<N>::max() : limit, lineno,
                                   "s->t capacity overflow");
      } else if (u == p.source) {
        p.src[v] = add_capped<N>(p.src[v], c, limit, lineno, "capacity overflow: the s->V arcs of this V sum beyond the capacity type");
      } else if (v == p.sink) {
        p.snk[u] = add_capped<N>(p.snk[u], c, limit, lineno, "capacity overflow: the U->t arcs of this U sum beyond the capacity type");
      } else {
        p.tail.push_back(u);
        p.head.push_back(v);
        p.cap.push_back(c);
      }
    } else {
      throw DimacsError(lineno, "unknown line type '" + printable(f[0]) + "'");
    }
  });
  if (!p.p_line) throw DimacsError(1, "missing p line");
  if (p.source < 0) throw DimacsError(p.p_line, "no source line ('n ID s')");
  if (p.sink < 0) throw DimacsError(p.p_line, "no sink line ('n ID t')");
  if (arcs != declared_arcs)
    throw DimacsError(p.p_line, "p line declares " + std::to_string(declared_arcs) + " arcs but the file has " + std::to_string(arcs));
  return p;
}

// The line of the k-th arc between non-terminal nodes (for errors found after reading).
int64_t line_of_inner_arc(std::string_view text, NodeId source, NodeId sink, size_t k) {
  int64_t found = 0;
  size_t seen = 0;
  for_each_line(text, [&](int64_t lineno, const Fields& fl) {
    if (found || fl.f[0] != "a") return;
    int64_t u = 0, v = 0;
    parse_int(fl.f[1], u);
    parse_int(fl.f[2], v);
    if (u - 1 == source || u - 1 == sink || v - 1 == source || v - 1 == sink) return;
    if (seen++ == k) found = lineno;
  });
  return found;
}

// The edges of the graph: one per arc, or one per pair of nodes joined by arcs (see dimacs.h).
template <class N>
struct Edges {
  std::vector<NodeId> u, v;
  std::vector<N> uv, vu;
};

// A pair's capacity sum beyond `limit` at the k-th inner arc.
struct SumOverflow {
  size_t arc;
};

template <class N>
Edges<N> make_edges(Parsed<N>& p, bool merge, N limit) {
  Edges<N> out;
  const size_t a = p.tail.size();
  if (!merge) {
    out.u = std::move(p.tail);
    out.v = std::move(p.head);
    out.uv = std::move(p.cap);
    out.vu.assign(a, N{0});
    return out;
  }
  // The arcs bucketed by their smaller endpoint (file order within a bucket), then each arc's
  // representative: the first arc of the file between the same two nodes.
  const size_t n = static_cast<size_t>(p.n);
  std::vector<int32_t> start(n + 1, 0);
  for (size_t k = 0; k < a; ++k) ++start[std::min(p.tail[k], p.head[k]) + 1];
  for (size_t i = 0; i < n; ++i) start[i + 1] += start[i];
  std::vector<int32_t> order(a), rep(a);
  {
    std::vector<int32_t> cursor(start.begin(), start.end() - 1);
    for (size_t k = 0; k < a; ++k) order[cursor[std::min(p.tail[k], p.head[k])]++] = static_cast<int32_t>(k);
  }
  auto other = [&](int32_t k) { return std::max(p.tail[k], p.head[k]); };
  std::vector<std::pair<NodeId, int32_t>> sorted;
  for (size_t lo = 0; lo < n; ++lo) {
    const int32_t b = start[lo], e = start[lo + 1];
    if (e - b <= 16) {  // few arcs: compare each with the earlier ones
      for (int32_t i = b; i < e; ++i) {
        const int32_t k = order[i];
        rep[k] = k;
        for (int32_t j = b; j < i; ++j) {
          if (other(order[j]) == other(k)) {
            rep[k] = rep[order[j]];
            break;
          }
        }
      }
    } else {  // many: sort by the other endpoint, then file order
      sorted.clear();
      for (int32_t i = b; i < e; ++i) sorted.emplace_back(other(order[i]), order[i]);
      std::sort(sorted.begin(), sorted.end());
      for (size_t i = 0; i < sorted.size(); ++i) {
        rep[sorted[i].second] = i > 0 && sorted[i].first == sorted[i - 1].first ? rep[sorted[i - 1].second] : sorted[i].second;
      }
    }
  }
  // Edges in the order of their first arcs, oriented as those (order[] now holds arc -> edge).
  size_t m = 0;
  for (size_t k = 0; k < a; ++k) order[k] = rep[k] == static_cast<int32_t>(k) ? static_cast<int32_t>(m++) : order[rep[k]];
  out.u.resize(m);
  out.v.resize(m);
  out.uv.assign(m, N{0});
  out.vu.assign(m, N{0});
  for (size_t k = 0; k < a; ++k) {
    const int32_t e = order[k];
    if (rep[k] == static_cast<int32_t>(k)) {
      out.u[e] = p.tail[k];
      out.v[e] = p.head[k];
    }
    N& side = p.tail[k] == out.u[e] ? out.uv[e] : out.vu[e];
    const N other_side = p.tail[k] == out.u[e] ? out.vu[e] : out.uv[e];
    if (p.cap[k] > limit - side - other_side) throw SumOverflow{k};
    side += p.cap[k];
  }
  return out;
}

// The problem in capacity type Cap (every value is known to fit).
template <class Cap, class N>
DimacsProblem<Cap> build_problem(const Parsed<N>& p, const Edges<N>& edges) {
  DimacsProblem<Cap> prob;
  const size_t n = static_cast<size_t>(p.n), m = edges.u.size();
  prob.graph.assign(static_cast<NodeId>(n), static_cast<EdgeId>(m), edges.u.data(), edges.v.data());
  Cap* src = prob.graph.source_caps();
  Cap* snk = prob.graph.sink_caps();
  for (size_t i = 0; i < n; ++i) {
    src[i] = static_cast<Cap>(p.src[i]);
    snk[i] = static_cast<Cap>(p.snk[i]);
  }
  Cap* caps = prob.graph.edge_caps();
  for (size_t e = 0; e < m; ++e) {
    caps[2 * e] = static_cast<Cap>(edges.uv[e]);
    caps[2 * e + 1] = static_cast<Cap>(edges.vu[e]);
  }
  prob.graph.reset_flow();
  prob.source = p.source;
  prob.sink = p.sink;
  prob.constant = static_cast<typename FlowGraph<Cap>::Flow>(p.constant);
  prob.ignored_arcs = p.ignored;
  return prob;
}

// Reads the file with capacities as N within `limit`, merges the arcs and builds it as Cap.
template <class Cap, class N>
DimacsProblem<Cap> read_as(std::string_view text, N limit, bool merge) {
  Parsed<N> p = parse<N>(text, limit, false);
  try {
    return build_problem<Cap>(p, make_edges(p, merge, limit));
  } catch (const SumOverflow& o) {
    throw DimacsError(line_of_inner_arc(text, p.source, p.sink, o.arc),
                      "capacity overflow: the arcs between this arc's two nodes sum beyond the capacity type");
  }
}

template <class Cap>
constexpr Cap cap_limit() {
  return std::numeric_limits<Cap>::max();
}

template <class Cap>
std::string format_cap(Cap c) {
  if constexpr (std::is_integral_v<Cap>) {
    return std::to_string(c);
  } else {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", c);
    return buf;
  }
}

// Shared writer body: graph node i is DIMACS node i+1; s1/t1 are the 1-based terminal ids.
template <class Cap>
void write_lines(std::ostream& out, const FlowGraph<Cap>& g, int64_t n_total, int64_t s1, int64_t t1,
                 typename FlowGraph<Cap>::Flow constant) {
  if constexpr (std::is_floating_point_v<Cap>) {
    if (!std::isfinite(constant))
      throw std::invalid_argument("write_dimacs: constant must be finite");
  }
  if (constant < 0) throw std::invalid_argument("write_dimacs: constant must be >= 0");
  // The constant is written as s->t arcs of at most the largest Cap each.
  std::vector<Cap> chunks;
  for (auto rest = constant; rest > 0;) {
    const Cap c = rest > std::numeric_limits<Cap>::max() ? std::numeric_limits<Cap>::max()
                                                          : static_cast<Cap>(rest);
    chunks.push_back(c);
    rest -= c;
  }
  int64_t m = static_cast<int64_t>(chunks.size()) + g.num_edges();
  for (NodeId i = 0; i < g.num_nodes(); ++i) m += (g.source_cap(i) > 0) + (g.sink_cap(i) > 0);
  for (EdgeId e = 0; e < g.num_edges(); ++e) m += g.cap_vu(e) > 0;

  const std::string s = std::to_string(s1), t = std::to_string(t1);
  out << "c max-flow problem written by gapbcfw\n";
  out << "p max " << n_total << ' ' << m << '\n';
  out << "n " << s << " s\nn " << t << " t\n";
  for (const Cap c : chunks) out << "a " << s << ' ' << t << ' ' << format_cap(c) << '\n';
  for (NodeId i = 0; i < g.num_nodes(); ++i) {
    if (g.source_cap(i) > 0) out << "a " << s << ' ' << i + 1 << ' ' << format_cap(g.source_cap(i)) << '\n';
    if (g.sink_cap(i) > 0) out << "a " << i + 1 << ' ' << t << ' ' << format_cap(g.sink_cap(i)) << '\n';
  }
  for (EdgeId e = 0; e < g.num_edges(); ++e) {
    const int64_t u = g.edge_u(e) + 1, v = g.edge_v(e) + 1;
    out << "a " << u << ' ' << v << ' ' << format_cap(g.cap_uv(e)) << '\n';
    if (g.cap_vu(e) > 0) out << "a " << v << ' ' << u << ' ' << format_cap(g.cap_vu(e)) << '\n';
  }
  if (!out) throw std::runtime_error("write_dimacs: stream error");
}

}  // namespace

template <class Cap>
DimacsProblem<Cap> read_dimacs(std::string_view text, bool merge_arcs) {
  if constexpr (std::is_integral_v<Cap>) {
    return read_as<Cap, int64_t>(text, cap_limit<Cap>(), merge_arcs);
  } else {
    return read_as<Cap, double>(text, cap_limit<double>(), merge_arcs);
  }
}

template <class Cap>
DimacsProblem<Cap> read_dimacs(std::istream& in, bool merge_arcs) {
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw DimacsError(1, "read error");
  return read_dimacs<Cap>(text, merge_arcs);
}

namespace {

template <class Cap>
AnyDimacsProblem to_any(DimacsProblem<Cap>&& p) {
  AnyDimacsProblem out;
  out.source = p.source;
  out.sink = p.sink;
  out.constant = static_cast<double>(p.constant);
  out.ignored_arcs = p.ignored_arcs;
  out.graph = AnyGraph::adopt(std::move(p.graph));
  return out;
}

// Automatic type: integers as int32 when every node's and pair's sum fits, else int64; a
// non-integer capacity switches to float64.
AnyDimacsProblem read_auto(std::string_view text, bool merge) {
  Parsed<int64_t> p;
  try {
    p = parse<int64_t>(text, cap_limit<int64_t>(), true);
  } catch (const NotInteger&) {
    return to_any(read_dimacs<double>(text, merge));
  }
  Edges<int64_t> edges;
  try {
    edges = make_edges(p, merge, cap_limit<int64_t>());
  } catch (const SumOverflow& o) {
    throw DimacsError(line_of_inner_arc(text, p.source, p.sink, o.arc),
                      "capacity overflow: the arcs between this arc's two nodes sum beyond the capacity type");
  }
  const int64_t small = cap_limit<int32_t>();
  bool fits = true;
  for (size_t i = 0; i < p.src.size() && fits; ++i) fits = p.src[i] <= small && p.snk[i] <= small;
  for (size_t e = 0; e < edges.uv.size() && fits; ++e) fits = edges.uv[e] + edges.vu[e] <= small;
  if (fits) return to_any(build_problem<int32_t>(p, edges));
  return to_any(build_problem<int64_t>(p, edges));
}

}  // namespace

AnyDimacsProblem read_dimacs_any(std::string_view text, CapChoice choice, bool merge_arcs) {
  switch (choice) {
    case CapChoice::kInt32: return to_any(read_dimacs<int32_t>(text, merge_arcs));
    case CapChoice::kInt64: return to_any(read_dimacs<int64_t>(text, merge_arcs));
    case CapChoice::kFloat64: return to_any(read_dimacs<double>(text, merge_arcs));
    default: return read_auto(text, merge_arcs);
  }
}

template <class Cap>
void write_dimacs(std::ostream& out, const DimacsProblem<Cap>& problem) {
  const FlowGraph<Cap>& g = problem.graph;
  const NodeId s = problem.source, t = problem.sink;
  if (s < 0 || t < 0 || s >= g.num_nodes() || t >= g.num_nodes() || s == t)
    throw std::invalid_argument("write_dimacs: source and sink must be distinct nodes of the graph");
  for (const NodeId x : {s, t}) {
    if (g.source_cap(x) > 0 || g.sink_cap(x) > 0)
      throw std::invalid_argument("write_dimacs: source/sink placeholders must have no terminal capacity");
  }
  for (EdgeId e = 0; e < g.num_edges(); ++e) {
    const NodeId u = g.edge_u(e), v = g.edge_v(e);
    if (u == s || u == t || v == s || v == t)
      throw std::invalid_argument("write_dimacs: source/sink placeholders must have no edges");
  }
  write_lines(out, g, g.num_nodes(), int64_t{s} + 1, int64_t{t} + 1, problem.constant);
}

template <class Cap>
void write_dimacs(std::ostream& out, const FlowGraph<Cap>& graph,
                  typename FlowGraph<Cap>::Flow constant) {
  const int64_t n = graph.num_nodes();
  write_lines(out, graph, n + 2, n + 1, n + 2, constant);
}

#define GAPBCFW_DIMACS_INSTANTIATE(Cap)                                                   \
  template DimacsProblem<Cap> read_dimacs<Cap>(std::string_view, bool);                 \
  template DimacsProblem<Cap> read_dimacs<Cap>(std::istream&, bool);                    \
  template void write_dimacs<Cap>(std::ostream&, const DimacsProblem<Cap>&);            \
  template void write_dimacs<Cap>(std::ostream&, const FlowGraph<Cap>&,                 \
                                  typename FlowGraph<Cap>::Flow);
GAPBCFW_DIMACS_INSTANTIATE(int32_t)
GAPBCFW_DIMACS_INSTANTIATE(int64_t)
GAPBCFW_DIMACS_INSTANTIATE(double)
#undef GAPBCFW_DIMACS_INSTANTIATE

}  // namespace maxflow
}  // namespace gapbcfw
