// DIMACS max-flow reader/writer; see dimacs.h for the format and the mapping.
#include "maxflow/dimacs.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <istream>
#include <limits>
#include <ostream>
#include <vector>

namespace gapbcfw {
namespace maxflow {

DimacsError::DimacsError(int64_t line, const std::string& what)
    : std::runtime_error("dimacs line " + std::to_string(line) + ": " + what), line_(line) {}

namespace {

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

// Whole-token integer; false when the token is not an integer or does not fit in int64.
bool parse_int(const std::string& s, int64_t& value) {
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, value);
  return r.ec == std::errc() && r.ptr == end;
}

template <class Cap>
Cap parse_cap(const std::string& s, int64_t line) {
  if constexpr (std::is_integral_v<Cap>) {
    int64_t v = 0;
    if (!parse_int(s, v)) {
      const bool digits = s.find_first_not_of("-0123456789") == std::string::npos && s != "-";
      throw DimacsError(line, (digits ? "capacity out of range: '" : "bad capacity '") + s + "'");
    }
    if (v < 0) throw DimacsError(line, "negative capacity " + s);
    if (v > std::numeric_limits<Cap>::max())
      throw DimacsError(line, "capacity out of range: '" + s + "'");
    return static_cast<Cap>(v);
  } else {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || s.empty() || std::isnan(v))
      throw DimacsError(line, "bad capacity '" + s + "'");
    if (v < 0) throw DimacsError(line, "negative capacity " + s);
    if (!std::isfinite(v)) throw DimacsError(line, "capacity out of range: '" + s + "'");
    return v + 0.0;  // -0 -> +0
  }
}

NodeId parse_node(const std::string& s, int64_t n, int64_t line, const char* what) {
  int64_t v = 0;
  if (!parse_int(s, v)) throw DimacsError(line, std::string("bad ") + what + " '" + s + "'");
  if (v < 1 || v > n)
    throw DimacsError(line, std::string(what) + " " + s + " out of range 1.." + std::to_string(n));
  return static_cast<NodeId>(v - 1);
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
DimacsProblem<Cap> read_dimacs(std::istream& in) {
  DimacsProblem<Cap> prob;
  std::string line;
  int64_t lineno = 0, p_line = 0, n = 0, declared_arcs = 0, arcs = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::vector<std::string> f = split_fields(line);
    if (f.empty() || f[0] == "c") continue;
    if (f[0] == "p") {
      if (p_line) throw DimacsError(lineno, "duplicate p line (first on line " + std::to_string(p_line) + ")");
      if (f.size() != 4 || f[1] != "max") throw DimacsError(lineno, "expected 'p max N M'");
      if (!parse_int(f[2], n) || n < 2 || n > std::numeric_limits<NodeId>::max())
        throw DimacsError(lineno, "bad node count '" + f[2] + "' (need 2.." +
                                      std::to_string(std::numeric_limits<NodeId>::max()) + ")");
      if (!parse_int(f[3], declared_arcs) || declared_arcs < 0)
        throw DimacsError(lineno, "bad arc count '" + f[3] + "'");
      p_line = lineno;
      prob.graph.add_nodes(static_cast<NodeId>(n));
    } else if (f[0] == "n") {
      if (!p_line) throw DimacsError(lineno, "node line before the p line");
      if (f.size() != 3 || (f[2] != "s" && f[2] != "t"))
        throw DimacsError(lineno, "expected 'n ID s' or 'n ID t'");
      const NodeId id = parse_node(f[1], n, lineno, "node id");
      const bool is_source = f[2] == "s";
      NodeId& slot = is_source ? prob.source : prob.sink;
      if (slot >= 0) throw DimacsError(lineno, is_source ? "duplicate source" : "duplicate sink");
      if (id == (is_source ? prob.sink : prob.source))
        throw DimacsError(lineno, "node " + f[1] + " is both source and sink");
      slot = id;
    } else if (f[0] == "a") {
      if (!p_line) throw DimacsError(lineno, "arc line before the p line");
      if (prob.source < 0 || prob.sink < 0)
        throw DimacsError(lineno, "arc line before the source and sink lines");
      if (f.size() != 4) throw DimacsError(lineno, "expected 'a U V CAP'");
      const NodeId u = parse_node(f[1], n, lineno, "arc tail");
      const NodeId v = parse_node(f[2], n, lineno, "arc head");
      const Cap c = parse_cap<Cap>(f[3], lineno);
      if (++arcs > declared_arcs)
        throw DimacsError(lineno, "more arcs than the " + std::to_string(declared_arcs) +
                                      " declared on line " + std::to_string(p_line));
      try {
        if (v == prob.source || u == prob.sink) {
          ++prob.ignored_arcs;
        } else if (u == prob.source && v == prob.sink) {
          if constexpr (std::is_integral_v<Cap>) {
            if (c > std::numeric_limits<int64_t>::max() - prob.constant)
              throw std::overflow_error("s->t capacity overflow");
          }
          prob.constant += c;
        } else if (u == prob.source) {
          prob.graph.add_terminal_caps(v, c, 0);
        } else if (v == prob.sink) {
          prob.graph.add_terminal_caps(u, 0, c);
        } else {
          prob.graph.add_edge(u, v, c, 0);
        }
      } catch (const std::exception& e) {
        throw DimacsError(lineno, e.what());
      }
    } else {
      throw DimacsError(lineno, "unknown line type '" + f[0] + "'");
    }
  }
  if (in.bad()) throw DimacsError(lineno, "read error");
  if (!p_line) throw DimacsError(1, "missing p line");
  if (prob.source < 0) throw DimacsError(p_line, "no source line ('n ID s')");
  if (prob.sink < 0) throw DimacsError(p_line, "no sink line ('n ID t')");
  if (arcs != declared_arcs)
    throw DimacsError(p_line, "p line declares " + std::to_string(declared_arcs) +
                                  " arcs but the file has " + std::to_string(arcs));
  return prob;
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
  template DimacsProblem<Cap> read_dimacs<Cap>(std::istream&);                          \
  template void write_dimacs<Cap>(std::ostream&, const DimacsProblem<Cap>&);            \
  template void write_dimacs<Cap>(std::ostream&, const FlowGraph<Cap>&,                 \
                                  typename FlowGraph<Cap>::Flow);
GAPBCFW_DIMACS_INSTANTIATE(int32_t)
GAPBCFW_DIMACS_INSTANTIATE(int64_t)
GAPBCFW_DIMACS_INSTANTIATE(double)
#undef GAPBCFW_DIMACS_INSTANTIATE

}  // namespace maxflow
}  // namespace gapbcfw
