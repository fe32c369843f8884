// FlowGraph behind one interface for int32, int64 and double capacities; see any_graph.h.
#include "maxflow/any_graph.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <new>
#include <sstream>
#include <type_traits>
#include <vector>

#include "maxflow/dimacs.h"

namespace gapbcfw {
namespace maxflow {

const char* cap_type_name(CapType t) {
  switch (t) {
    case CapType::kInt32: return "int32";
    case CapType::kInt64: return "int64";
    default: return "float64";
  }
}

namespace {

std::string format_number(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// Strips the core's "maxflow: " prefix from an exception message.
std::string core_message(const std::exception& e) {
  std::string m = e.what();
  const std::string prefix = "maxflow: ";
  if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
  return m;
}

template <class Cap>
constexpr CapType type_of() {
  if constexpr (std::is_same_v<Cap, int32_t>) {
    return CapType::kInt32;
  } else if constexpr (std::is_same_v<Cap, int64_t>) {
    return CapType::kInt64;
  } else {
    return CapType::kFloat64;
  }
}

// Largest integer capacity accepted from outside for each integer type (int64: 2^53, exact in a double).
template <class Cap>
constexpr double max_int_cap() {
  return std::is_same_v<Cap, int32_t> ? 2147483647.0 : 9007199254740992.0;
}

// Entry k of `v` as a Cap, checked; `label` and `array` name it in messages ("MaxflowGraph", "capFwd").
template <class Cap>
Cap to_cap(const CapArray& v, size_t k, const std::string& label, const char* array) {
  auto fault = [&](const std::string& why) {
    return InputError(label + ": " + array + "[" + std::to_string(k) + "] " + why);
  };
  if (v.i32 != nullptr) {
    const int32_t x = v.i32[k];
    if (x < 0) throw fault("= " + std::to_string(x) + " is negative (capacities must be >= 0)");
    return static_cast<Cap>(x);
  }
  if (v.f64 == nullptr) return Cap{0};
  const double x = v.f64[k];
  if constexpr (std::is_floating_point_v<Cap>) {
    if (x >= 0 && x <= std::numeric_limits<double>::max()) return x + 0.0;  // -0 -> +0
  } else {
    if (x >= 0 && x <= max_int_cap<Cap>() && x == std::floor(x)) return static_cast<Cap>(x);
  }
  if (std::isnan(x)) throw fault("is NaN (capacities must be finite numbers >= 0)");
  if (x < 0) throw fault("= " + format_number(x) + " is negative (capacities must be >= 0)");
  if (std::isinf(x)) throw fault("is Infinity (capacities must be finite)");
  if constexpr (std::is_integral_v<Cap>) {
    const char* type = std::is_same_v<Cap, int32_t> ? "int32" : "int64";
    if (x != std::floor(x)) throw fault("= " + format_number(x) + " is not an integer (capType '" + type + "'; use 'float64')");
    throw fault("= " + format_number(x) + " exceeds " + format_number(max_int_cap<Cap>()) +
                (std::is_same_v<Cap, int32_t> ? " (use capType 'int64' or 'float64')" : " (use capType 'float64')"));
  } else {
    throw fault("is not a finite number >= 0");  // not reached: every other double passed above
  }
}

// Entry k of v as a Cap; an invalid entry sets `bad` and reads as 0 (to_cap then finds it, for the message).
template <class Cap>
inline Cap read_cap(const CapArray& v, size_t k, unsigned& bad) {
  if (v.i32 != nullptr) {
    const int32_t x = v.i32[k];
    bad |= x < 0;
    return x < 0 ? Cap{0} : static_cast<Cap>(x);
  }
  if (v.f64 == nullptr) return Cap{0};
  const double x = v.f64[k];
  if constexpr (std::is_floating_point_v<Cap>) {
    const bool ok = (x >= 0) & (x <= std::numeric_limits<double>::max());
    bad |= !ok;
    return ok ? x + 0.0 : 0.0;  // -0 -> +0
  } else {
    const bool ok = (x >= 0) & (x <= max_int_cap<Cap>()) & (x == std::floor(x));
    bad |= !ok;
    return ok ? static_cast<Cap>(x) : Cap{0};
  }
}

// Throws unless cap_uv + cap_vu fits the integer type.
template <class Cap>
void check_pair(Cap a, Cap b, size_t k, const std::string& label, const char* fwd, const char* rev) {
  if constexpr (std::is_integral_v<Cap>) {
    if (a > std::numeric_limits<Cap>::max() - b) {
      throw InputError(label + ": " + fwd + "[" + std::to_string(k) + "] + " + rev + "[" + std::to_string(k) +
                       "] overflows the capacity type '" + cap_type_name(type_of<Cap>()) + "' (use 'int64' or 'float64')");
    }
  } else {
    (void)a, (void)b, (void)k, (void)label, (void)fwd, (void)rev;
  }
}

std::string id_range(int64_t count) { return "0.." + std::to_string(count - 1); }

template <class Cap>
class TypedGraph final : public AnyGraph {
 public:
  using Graph = FlowGraph<Cap>;

  TypedGraph() = default;
  explicit TypedGraph(Graph&& g) : g_(std::move(g)) { recompute_sums(); }

  CapType type() const override { return type_of<Cap>(); }
  std::unique_ptr<AnyGraph> clone() const override { return std::make_unique<TypedGraph<Cap>>(*this); }

  void load(const GraphArrays& in) override {
    const int32_t n = in.num_nodes;
    if (in.num_edges > static_cast<size_t>((int32_t{1} << 30) - 1)) {
      throw InputError(in.label + ": too many edges (" + std::to_string(in.num_edges) + ", at most 2^30-1)");
    }
    const size_t m = in.num_edges;
    unsigned bad_ids = 0;
    for (size_t e = 0; e < m; ++e) {
      const int32_t u = in.from[e], v = in.to[e];
      bad_ids |= (u < 0) | (u >= n) | (v < 0) | (v >= n) | (u == v);
    }
    if (bad_ids != 0) report_bad_id(in);
    g_.assign(n, static_cast<EdgeId>(m), in.from, in.to);
    // One pass over the nodes and one over the edges; a bad value is flagged (and read as 0), then
    // report_bad_cap names the first one.
    unsigned bad = 0;
    double src_sum = 0, snk_sum = 0;
    g_.load_capacities(
        [&](size_t i) {
          const Cap s = read_cap<Cap>(in.source, i, bad), t = read_cap<Cap>(in.sink, i, bad);
          src_sum += static_cast<double>(s);
          snk_sum += static_cast<double>(t);
          return std::pair<Cap, Cap>(s, t);
        },
        [&](size_t e) {
          Cap uv = read_cap<Cap>(in.fwd, e, bad), vu = read_cap<Cap>(in.rev, e, bad);
          if constexpr (std::is_integral_v<Cap>) {
            const bool over = static_cast<uint64_t>(uv) + static_cast<uint64_t>(vu) > static_cast<uint64_t>(std::numeric_limits<Cap>::max());
            bad |= over;
            vu = over ? Cap{0} : vu;
          }
          return std::pair<Cap, Cap>(uv, vu);
        });
    if (bad != 0) {
      g_.assign(0, 0, nullptr, nullptr);
      src_sum_ = snk_sum_ = 0;
      report_bad_cap(in);
    }
    src_sum_ = src_sum;
    snk_sum_ = snk_sum;
  }

  double solve() override {
    if constexpr (std::is_same_v<Cap, int64_t>) {
      // The core accumulates the flow in int64 without checks: keep the max flow (<= both sums of
      // terminal capacities) far from 2^63.
      if (std::min(src_sum_, snk_sum_) > 4.611686018427388e18) {
        throw InputError("the total source and sink capacities both exceed 2^62: the flow could overflow int64 (use capType 'float64')");
      }
    }
    const double r = static_cast<double>(g_.maxflow());
    if (!std::isfinite(r)) throw InputError("the flow value overflows a double");
    return r;
  }
  double flow() const override { return static_cast<double>(g_.flow()); }
  bool solved() const override { return g_.solved() || g_.num_nodes() == 0; }
  int32_t num_nodes() const override { return g_.num_nodes(); }
  int32_t num_edges() const override { return g_.num_edges(); }

  void segments(uint8_t* out) const override {
    const int32_t n = g_.num_nodes();
    for (int32_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(g_.segment(i));
  }

  void terminal_caps(const int32_t* nodes, size_t count, const CapArray& source, const CapArray& sink, bool add,
                     const std::string& label) override {
    const int32_t n = g_.num_nodes();
    std::vector<Cap> cs(count), ct(count);
    for (size_t k = 0; k < count; ++k) {
      if (nodes != nullptr && (nodes[k] < 0 || nodes[k] >= n)) {
        throw InputError(label + ": nodes[" + std::to_string(k) + "] = " + std::to_string(nodes[k]) + " is not a node id in " + id_range(n));
      }
      cs[k] = to_cap<Cap>(source, k, label, "src");
      ct[k] = to_cap<Cap>(sink, k, label, "sink");
    }
    for (size_t k = 0; k < count; ++k) {
      const int32_t i = nodes != nullptr ? nodes[k] : static_cast<int32_t>(k);
      const double old_s = static_cast<double>(g_.source_cap(i)), old_t = static_cast<double>(g_.sink_cap(i));
      if (add) {
        g_.add_terminal_caps(i, cs[k], ct[k]);
      } else {
        g_.set_terminal_caps(i, cs[k], ct[k]);
      }
      src_sum_ += static_cast<double>(g_.source_cap(i)) - old_s;
      snk_sum_ += static_cast<double>(g_.sink_cap(i)) - old_t;
    }
  }

  void edge_caps(const int32_t* edges, size_t count, const CapArray& fwd, const CapArray& rev, const std::string& label) override {
    const int32_t m = g_.num_edges();
    std::vector<Cap> cf(count), cr(count);
    for (size_t k = 0; k < count; ++k) {
      if (edges != nullptr && (edges[k] < 0 || edges[k] >= m)) {
        throw InputError(label + ": edges[" + std::to_string(k) + "] = " + std::to_string(edges[k]) + " is not an edge id in " + id_range(m));
      }
      cf[k] = to_cap<Cap>(fwd, k, label, "capFwd");
      cr[k] = to_cap<Cap>(rev, k, label, "capRev");
      check_pair(cf[k], cr[k], k, label, "capFwd", "capRev");
    }
    for (size_t k = 0; k < count; ++k) g_.set_edge_caps(edges != nullptr ? edges[k] : static_cast<int32_t>(k), cf[k], cr[k]);
  }

  void residuals(double* source, double* sink, double* fwd, double* rev) const override {
    for (int32_t i = 0; i < g_.num_nodes(); ++i) {
      if (source != nullptr) source[i] = static_cast<double>(g_.source_residual(i));
      if (sink != nullptr) sink[i] = static_cast<double>(g_.sink_residual(i));
    }
    for (int32_t e = 0; e < g_.num_edges(); ++e) {
      if (fwd != nullptr) fwd[e] = static_cast<double>(g_.residual_uv(e));
      if (rev != nullptr) rev[e] = static_cast<double>(g_.residual_vu(e));
    }
  }

  double tolerance() const override { return static_cast<double>(g_.tolerance()); }
  void set_tolerance(double t) override {
    if constexpr (std::is_floating_point_v<Cap>) {
      g_.set_tolerance(t);
    } else {
      (void)t;
      throw InputError("setTolerance: only float64 graphs have a tolerance (integer graphs are exact)");
    }
  }

  SolveCounters counters() const override { return g_.counters(); }
  size_t memory_bytes() const override { return sizeof(*this) + g_.memory_bytes(); }

  std::string to_dimacs(double constant, int32_t source, int32_t sink) const override {
    typename Graph::Flow c = 0;
    if constexpr (std::is_integral_v<Cap>) {
      if (!(constant >= 0) || constant != std::floor(constant) || constant > 9007199254740992.0) {
        throw InputError("toDimacs: constant must be an integer in [0, 2^53] for integer graphs, got " + format_number(constant));
      }
      c = static_cast<typename Graph::Flow>(constant);
    } else {
      if (!(constant >= 0) || !std::isfinite(constant)) throw InputError("toDimacs: constant must be finite and >= 0, got " + format_number(constant));
      c = constant;
    }
    std::ostringstream out;
    if (source < 0 && sink < 0) {
      write_dimacs(out, g_, c);
    } else {
      DimacsProblem<Cap> p;
      p.graph = g_;
      p.source = source;
      p.sink = sink;
      p.constant = c;
      write_dimacs(out, p);
    }
    return out.str();
  }

 private:
  // Throws the InputError of the first bad node id or self-loop of `in`.
  [[noreturn]] static void report_bad_id(const GraphArrays& in) {
    const int32_t n = in.num_nodes;
    for (size_t e = 0; e < in.num_edges; ++e) {
      const int32_t u = in.from[e], v = in.to[e];
      if (u < 0 || u >= n) throw InputError(in.label + ": edgeFrom[" + std::to_string(e) + "] = " + std::to_string(u) + " is not a node id in " + id_range(n));
      if (v < 0 || v >= n) throw InputError(in.label + ": edgeTo[" + std::to_string(e) + "] = " + std::to_string(v) + " is not a node id in " + id_range(n));
      if (u == v) throw InputError(in.label + ": edge " + std::to_string(e) + " is a self-loop (edgeFrom = edgeTo = " + std::to_string(u) + ")");
    }
    throw InputError(in.label + ": bad node ids");
  }

  // Throws the InputError of the first bad capacity of `in` (edges first, then nodes).
  [[noreturn]] static void report_bad_cap(const GraphArrays& in) {
    for (size_t e = 0; e < in.num_edges; ++e) {
      const Cap cf = to_cap<Cap>(in.fwd, e, in.label, "capFwd");
      const Cap cr = to_cap<Cap>(in.rev, e, in.label, "capRev");
      check_pair(cf, cr, e, in.label, "capFwd", "capRev");
    }
    for (size_t i = 0; i < static_cast<size_t>(in.num_nodes); ++i) {
      to_cap<Cap>(in.source, i, in.label, "sourceCap");
      to_cap<Cap>(in.sink, i, in.label, "sinkCap");
    }
    throw InputError(in.label + ": bad capacities");
  }

  void recompute_sums() {
    src_sum_ = snk_sum_ = 0;
    for (int32_t i = 0; i < g_.num_nodes(); ++i) {
      src_sum_ += static_cast<double>(g_.source_cap(i));
      snk_sum_ += static_cast<double>(g_.sink_cap(i));
    }
  }

  Graph g_;
  double src_sum_ = 0, snk_sum_ = 0;  // for the int64 overflow guard of solve()
};

}  // namespace

Failure describe_failure(const std::exception& e, const std::string& label) {
  if (const auto* d = dynamic_cast<const DescribedError*>(&e)) return {d->what(), d->bad_input()};
  if (dynamic_cast<const InputError*>(&e) != nullptr) {
    const std::string m = e.what();
    // InputErrors from load() and the setters carry their label; the others get it here.
    return {m.compare(0, label.size(), label) == 0 ? m : label + ": " + m, true};
  }
  if (dynamic_cast<const std::overflow_error*>(&e) != nullptr) {
    return {label + ": " + core_message(e) + " (the capacities do not fit the integer capacity type; use capType 'int64' or 'float64')", true};
  }
  if (dynamic_cast<const std::invalid_argument*>(&e) != nullptr || dynamic_cast<const std::length_error*>(&e) != nullptr) {
    return {label + ": " + core_message(e), true};
  }
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) return {label + ": out of memory", false};
  return {label + ": " + core_message(e), false};
}

std::unique_ptr<AnyGraph> AnyGraph::create(CapType type) {
  switch (type) {
    case CapType::kInt32: return std::make_unique<TypedGraph<int32_t>>();
    case CapType::kInt64: return std::make_unique<TypedGraph<int64_t>>();
    default: return std::make_unique<TypedGraph<double>>();
  }
}

template <class Cap>
std::unique_ptr<AnyGraph> AnyGraph::adopt(FlowGraph<Cap>&& graph) {
  return std::make_unique<TypedGraph<Cap>>(std::move(graph));
}

template std::unique_ptr<AnyGraph> AnyGraph::adopt(FlowGraph<int32_t>&&);
template std::unique_ptr<AnyGraph> AnyGraph::adopt(FlowGraph<int64_t>&&);
template std::unique_ptr<AnyGraph> AnyGraph::adopt(FlowGraph<double>&&);

}  // namespace maxflow
}  // namespace gapbcfw
