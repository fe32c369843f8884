#include <napi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <istream>
#include <limits>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "binding/common.h"
#include "binding/register.h"
#include "maxflow/dimacs.h"
#include "maxflow/flow_graph.h"

namespace gapbcfw::binding {

// =====================================================================================================
// (2d) Max-flow section: Boykov-Kolmogorov min-cut / max-flow with Kohli-Torr tree reuse
//      (native/maxflow/flow_graph.h) and the DIMACS reader/writer (native/maxflow/dimacs.h).
//
//   class MaxflowGraph(numNodes, edgeFrom, edgeTo, capFwd, capRev, sourceCap, sinkCap, capType)
//     A reusable graph (Napi::ObjectWrap owning a FlowGraph<Cap>). edgeFrom/edgeTo: Int32Array (m);
//     capFwd/capRev: Int32Array or Float64Array (m); sourceCap/sinkCap: Int32Array or Float64Array (n);
//     capRev, sourceCap and sinkCap may be null (zeros). capType 'int32' | 'int64' | 'float64' picks
//     the solver's capacity type; every entry is converted to it with checks (negative, NaN,
//     Infinity, non-integer for the integer types, too large, self-loops, bad node ids throw a
//     RangeError naming the array and the index). The arrays are read during the call and not kept.
//     Methods (all synchronous, on the JS thread):
//       solve() -> flow                    max flow of the current capacities; reuses the previous
//                                          solve's flow and search trees (KT07) when there is one
//       segments(out: Uint8Array(n))       0 = source side, 1 = sink side (inclusion-minimal cut)
//       setTerminalCaps(nodes: Int32Array | null, src, sink)   nodes null = all nodes in order
//       addTerminalCaps(nodes | null, src, sink)
//       setEdgeCaps(edges: Int32Array | null, capFwd, capRev)  edges null = all edges in order
//       residuals(src | null, sink | null, fwd | null, rev | null)   Float64Array outputs (n, n, m, m)
//       setTolerance(t) / tolerance()      saturation tolerance (float64 graphs; 0 for integers)
//       clone() -> MaxflowGraph            deep copy including flow and search trees
//       dispose()                          frees the native memory now (later calls throw); the
//                                          memory is otherwise freed by GC, and reported to V8
//       toDimacs(constant, source, sink) -> string   source/sink -1: graph-only layout (see dimacs.h)
//       getters numNodes, numEdges, capType, flow (last solve), solved
//   maxflowSolve(numNodes, edgeFrom, edgeTo, capFwd, capRev, sourceCap, sinkCap, capType,
//                segments: Uint8Array | null) -> flow                    one-shot, synchronous
//   maxflowBatch(graphs: object[], threads) -> { promise: Promise<Float64Array>, cancel(): void }
//     Each graph is { numNodes, edgeFrom, edgeTo, capFwd, capRev?, sourceCap?, sinkCap?, capType,
//     segments?: Uint8Array(n) }. Types and lengths are checked synchronously (throws); the graphs
//     are then built (with the value checks above) and solved on `threads` std::threads inside one
//     AsyncWorker. The promise resolves to the flows (segments written in place), or rejects with a
//     RangeError naming the graph (bad values), or with an Error whose code is 'ABORT_ERR' once
//     cancel() was called and some graph was skipped (the flag is checked between graphs).
//     Async contract: every array of every graph is referenced until the promise settles, but must
//     not be written, transferred, detached or resized before then (the threads read them directly).
//   maxflowReadDimacs(data: Uint8Array, capType: 'auto' | 'int32' | 'int64' | 'float64')
//     -> { graph, numNodes, numArcs, source, sink, constant, ignoredArcs, capType }
//     Parses a DIMACS max-flow file held in memory (no copy). 'auto' reads integer capacities as
//     int64 and falls back to float64 when a capacity is not an integer. A malformed file throws an
//     Error "dimacs line L: ..." with a numeric `line` property.
// =====================================================================================================
namespace maxflowsec {

namespace mf = gapbcfw::maxflow;

enum class CapType { kInt32, kInt64, kFloat64 };

const char* CapTypeName(CapType t) {
  switch (t) {
    case CapType::kInt32: return "int32";
    case CapType::kInt64: return "int64";
    default: return "float64";
  }
}

/// A value error found while building or changing a graph; becomes a JS RangeError.
class InputFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A capacity array: Int32Array or Float64Array (zero-copy), or absent (all zeros).
struct CapView {
  const int32_t* i32 = nullptr;
  const double* f64 = nullptr;
};

/// Largest integer capacity accepted from JS for each integer type (int64: 2^53, exact in a double).
template <class Cap>
constexpr double MaxIntCap() {
  if constexpr (std::is_same_v<Cap, int32_t>) {
    return 2147483647.0;
  } else {
    return 9007199254740992.0;
  }
}

/// Entry k of `v` converted to Cap with checks; `what` names the array ("MaxflowGraph: capFwd").
template <class Cap>
Cap ToCap(const CapView& v, std::size_t k, const std::string& what) {
  auto fault = [&](const std::string& why) -> InputFault {
    return InputFault(what + "[" + std::to_string(k) + "] " + why);
  };
  if (v.i32 != nullptr) {
    const int32_t x = v.i32[k];
    if (x < 0) throw fault("= " + std::to_string(x) + " is negative (capacities must be >= 0)");
    return static_cast<Cap>(x);
  }
  if (v.f64 == nullptr) return Cap{0};
  const double x = v.f64[k];
  if (std::isnan(x)) throw fault("is NaN (capacities must be finite numbers >= 0)");
  if (x < 0) throw fault("= " + FormatNumber(x) + " is negative (capacities must be >= 0)");
  if (std::isinf(x)) throw fault("is Infinity (capacities must be finite)");
  if constexpr (std::is_integral_v<Cap>) {
    if (x != std::floor(x)) {
      throw fault("= " + FormatNumber(x) + " is not an integer (capType '" +
                  (std::is_same_v<Cap, int32_t> ? "int32" : "int64") + "'; use 'float64')");
    }
    if (x > MaxIntCap<Cap>()) {
      throw fault("= " + FormatNumber(x) + " exceeds " + FormatNumber(MaxIntCap<Cap>()) +
                  (std::is_same_v<Cap, int32_t> ? " (use capType 'int64' or 'float64')" : " (use capType 'float64')"));
    }
    return static_cast<Cap>(x);
  } else {
    return x + 0.0;  // -0 -> +0
  }
}

/// Strips the core's "maxflow: " prefix from an exception message.
std::string CoreMessage(const std::exception& e) {
  std::string m = e.what();
  const std::string prefix = "maxflow: ";
  if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
  return m;
}

/// Runs f and turns C++ exceptions into JS errors: value problems -> RangeError, the rest -> Error.
template <class F>
auto Guarded(Napi::Env env, const std::string& fn, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Napi::Error&) {
    throw;
  } catch (const InputFault& e) {
    throw Napi::RangeError::New(env, e.what());
  } catch (const std::overflow_error& e) {
    throw Napi::RangeError::New(env, fn + ": " + CoreMessage(e) +
                                         " (the capacities do not fit the integer capacity type; use capType 'int64' or 'float64')");
  } catch (const std::invalid_argument& e) {
    throw Napi::RangeError::New(env, fn + ": " + CoreMessage(e));
  } catch (const std::length_error& e) {
    throw Napi::RangeError::New(env, fn + ": " + CoreMessage(e));
  } catch (const std::bad_alloc&) {
    throw Napi::Error::New(env, fn + ": out of memory");
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, fn + ": " + CoreMessage(e));
  }
}

/// Everything needed to build a graph, as raw pointers (read on any thread).
struct GraphInput {
  int32_t numNodes = 0;
  std::size_t numEdges = 0;
  const int32_t* from = nullptr;
  const int32_t* to = nullptr;
  CapView fwd, rev, src, snk;
  CapType type = CapType::kFloat64;
  std::string fn;  // label for messages, e.g. "MaxflowGraph" or "maxflowBatch: graphs[3]"
};

/// Interface over FlowGraph<Cap> for the three capacity types.
class GraphImplBase {
 public:
  virtual ~GraphImplBase() = default;
  virtual CapType Type() const = 0;
  virtual std::unique_ptr<GraphImplBase> Clone() const = 0;
  virtual double Solve() = 0;
  virtual double Flow() const = 0;
  virtual bool Solved() const = 0;
  virtual int32_t NumNodes() const = 0;
  virtual int32_t NumEdges() const = 0;
  virtual void Segments(uint8_t* out) const = 0;
  // nodes == nullptr: all nodes in order (count == NumNodes()). Every entry is checked before any
  // change is made; an integer overflow while applying (std::overflow_error) leaves the earlier
  // nodes changed and the graph consistent.
  virtual void TerminalCaps(const int32_t* nodes, std::size_t count, const CapView& src, const CapView& snk,
                            bool add, const std::string& fn) = 0;
  virtual void EdgeCaps(const int32_t* edges, std::size_t count, const CapView& fwd, const CapView& rev,
                        const std::string& fn) = 0;
  virtual void Residuals(double* src, double* snk, double* fwd, double* rev) const = 0;
  virtual double Tolerance() const = 0;
  virtual void SetTolerance(double t) = 0;
  virtual std::string ToDimacs(double constant, int32_t source, int32_t sink) const = 0;
  // Approximate native memory of the graph (reported to V8 so that it collects unused graphs).
  virtual int64_t MemoryBytes() const = 0;
};

template <class Cap>
class GraphImpl final : public GraphImplBase {
 public:
  using Graph = mf::FlowGraph<Cap>;

  GraphImpl() = default;
  explicit GraphImpl(Graph&& g) : g_(std::move(g)) { RecomputeSums(); }

  /// Builds the graph from raw arrays, checking every value (InputFault / core exceptions).
  void Build(const GraphInput& in) {
    const int32_t n = in.numNodes;
    g_.add_nodes(n);
    if (in.numEdges > static_cast<std::size_t>((int32_t{1} << 30) - 1)) {
      throw InputFault(in.fn + ": too many edges (" + std::to_string(in.numEdges) + ", at most 2^30-1)");
    }
    g_.reserve_edges(static_cast<mf::EdgeId>(in.numEdges));
    const std::string fwdName = in.fn + ": capFwd", revName = in.fn + ": capRev";
    for (std::size_t e = 0; e < in.numEdges; ++e) {
      const int32_t u = in.from[e], v = in.to[e];
      if (u < 0 || u >= n) {
        throw InputFault(in.fn + ": edgeFrom[" + std::to_string(e) + "] = " + std::to_string(u) + " is not a node id in 0.." +
                         std::to_string(int64_t{n} - 1));
      }
      if (v < 0 || v >= n) {
        throw InputFault(in.fn + ": edgeTo[" + std::to_string(e) + "] = " + std::to_string(v) + " is not a node id in 0.." +
                         std::to_string(int64_t{n} - 1));
      }
      if (u == v) {
        throw InputFault(in.fn + ": edge " + std::to_string(e) + " is a self-loop (edgeFrom = edgeTo = " + std::to_string(u) + ")");
      }
      const Cap cf = ToCap<Cap>(in.fwd, e, fwdName), cr = ToCap<Cap>(in.rev, e, revName);
      try {
        g_.add_edge(u, v, cf, cr);
      } catch (const std::overflow_error&) {
        throw InputFault(in.fn + ": capFwd[" + std::to_string(e) + "] + capRev[" + std::to_string(e) +
                         "] overflows the capacity type '" + CapTypeName(Type()) + "' (use 'int64' or 'float64')");
      }
    }
    if (in.src.i32 != nullptr || in.src.f64 != nullptr || in.snk.i32 != nullptr || in.snk.f64 != nullptr) {
      const std::string srcName = in.fn + ": sourceCap", snkName = in.fn + ": sinkCap";
      for (int32_t i = 0; i < n; ++i) {
        const Cap cs = ToCap<Cap>(in.src, i, srcName), ct = ToCap<Cap>(in.snk, i, snkName);
        if (cs != 0 || ct != 0) g_.set_terminal_caps(i, cs, ct);
      }
    }
    RecomputeSums();
  }

  CapType Type() const override {
    if constexpr (std::is_same_v<Cap, int32_t>) {
      return CapType::kInt32;
    } else if constexpr (std::is_same_v<Cap, int64_t>) {
      return CapType::kInt64;
    } else {
      return CapType::kFloat64;
    }
  }
  std::unique_ptr<GraphImplBase> Clone() const override { return std::make_unique<GraphImpl<Cap>>(*this); }

  double Solve() override {
    if constexpr (std::is_same_v<Cap, int64_t>) {
      // The core accumulates the flow in int64 without checks: keep the max flow (<= both sums of
      // terminal capacities) far from 2^63.
      if (std::min(srcSum_, snkSum_) > 4.611686018427388e18) {
        throw InputFault("the total source and sink capacities both exceed 2^62: the flow could overflow int64 (use capType 'float64')");
      }
    }
    const auto f = g_.maxflow();
    const double r = static_cast<double>(f);
    if (!std::isfinite(r)) throw InputFault("the flow value overflows a double");
    return r;
  }
  double Flow() const override { return static_cast<double>(g_.flow()); }
  bool Solved() const override { return solved_probe(); }
  int32_t NumNodes() const override { return g_.num_nodes(); }
  int32_t NumEdges() const override { return g_.num_edges(); }

  void Segments(uint8_t* out) const override {
    const int32_t n = g_.num_nodes();
    for (int32_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(g_.segment(i));
  }

  void TerminalCaps(const int32_t* nodes, std::size_t count, const CapView& src, const CapView& snk, bool add,
                    const std::string& fn) override {
    const int32_t n = g_.num_nodes();
    std::vector<Cap> cs(count), ct(count);
    const std::string srcName = fn + ": src", snkName = fn + ": sink";
    for (std::size_t k = 0; k < count; ++k) {
      if (nodes != nullptr && (nodes[k] < 0 || nodes[k] >= n)) {
        throw InputFault(fn + ": nodes[" + std::to_string(k) + "] = " + std::to_string(nodes[k]) + " is not a node id in 0.." +
                         std::to_string(int64_t{n} - 1));
      }
      cs[k] = ToCap<Cap>(src, k, srcName);
      ct[k] = ToCap<Cap>(snk, k, snkName);
    }
    for (std::size_t k = 0; k < count; ++k) {
      const int32_t i = nodes != nullptr ? nodes[k] : static_cast<int32_t>(k);
      const double oldS = static_cast<double>(g_.source_cap(i)), oldT = static_cast<double>(g_.sink_cap(i));
      if (add) {
        g_.add_terminal_caps(i, cs[k], ct[k]);
      } else {
        g_.set_terminal_caps(i, cs[k], ct[k]);
      }
      srcSum_ += static_cast<double>(g_.source_cap(i)) - oldS;
      snkSum_ += static_cast<double>(g_.sink_cap(i)) - oldT;
    }
  }

  void EdgeCaps(const int32_t* edges, std::size_t count, const CapView& fwd, const CapView& rev,
                const std::string& fn) override {
    const int32_t m = g_.num_edges();
    std::vector<Cap> cf(count), cr(count);
    const std::string fwdName = fn + ": capFwd", revName = fn + ": capRev";
    for (std::size_t k = 0; k < count; ++k) {
      if (edges != nullptr && (edges[k] < 0 || edges[k] >= m)) {
        throw InputFault(fn + ": edges[" + std::to_string(k) + "] = " + std::to_string(edges[k]) + " is not an edge id in 0.." +
                         std::to_string(int64_t{m} - 1));
      }
      cf[k] = ToCap<Cap>(fwd, k, fwdName);
      cr[k] = ToCap<Cap>(rev, k, revName);
      if constexpr (std::is_integral_v<Cap>) {
        if (cf[k] > std::numeric_limits<Cap>::max() - cr[k]) {
          throw InputFault(fn + ": capFwd[" + std::to_string(k) + "] + capRev[" + std::to_string(k) +
                           "] overflows the capacity type '" + CapTypeName(Type()) + "' (use 'int64' or 'float64')");
        }
      }
    }
    for (std::size_t k = 0; k < count; ++k) {
      g_.set_edge_caps(edges != nullptr ? edges[k] : static_cast<int32_t>(k), cf[k], cr[k]);
    }
  }

  void Residuals(double* src, double* snk, double* fwd, double* rev) const override {
    for (int32_t i = 0; i < g_.num_nodes(); ++i) {
      if (src != nullptr) src[i] = static_cast<double>(g_.source_residual(i));
      if (snk != nullptr) snk[i] = static_cast<double>(g_.sink_residual(i));
    }
    for (int32_t e = 0; e < g_.num_edges(); ++e) {
      if (fwd != nullptr) fwd[e] = static_cast<double>(g_.residual_uv(e));
      if (rev != nullptr) rev[e] = static_cast<double>(g_.residual_vu(e));
    }
  }

  double Tolerance() const override { return static_cast<double>(g_.tolerance()); }
  void SetTolerance(double t) override {
    if constexpr (std::is_floating_point_v<Cap>) {
      g_.set_tolerance(t);
    } else {
      (void)t;
      throw InputFault("setTolerance: only float64 graphs have a tolerance (integer graphs are exact)");
    }
  }

  int64_t MemoryBytes() const override {
    const int64_t n = g_.num_nodes(), m = g_.num_edges(), c = static_cast<int64_t>(sizeof(Cap));
    return static_cast<int64_t>(sizeof(*this)) + n * (24 + 3 * c) + m * (8 + 2 * c + 2 * (12 + c));
  }

  std::string ToDimacs(double constant, int32_t source, int32_t sink) const override {
    using Flow = typename Graph::Flow;
    Flow c = 0;
    if constexpr (std::is_integral_v<Cap>) {
      if (!(constant >= 0) || constant != std::floor(constant) || constant > 9007199254740992.0) {
        throw InputFault("toDimacs: constant must be an integer in [0, 2^53] for integer graphs, got " + FormatNumber(constant));
      }
      c = static_cast<Flow>(constant);
    } else {
      if (!(constant >= 0) || !std::isfinite(constant)) {
        throw InputFault("toDimacs: constant must be finite and >= 0, got " + FormatNumber(constant));
      }
      c = constant;
    }
    std::ostringstream out;
    if (source < 0 && sink < 0) {
      mf::write_dimacs(out, g_, c);
    } else {
      mf::DimacsProblem<Cap> p;
      p.graph = g_;
      p.source = source;
      p.sink = sink;
      p.constant = c;
      mf::write_dimacs(out, p);
    }
    return out.str();
  }

 private:
  bool solved_probe() const {
    if (g_.num_nodes() == 0) return solvedEmpty_;
    try {
      (void)g_.segment(0);
      return true;
    } catch (const std::logic_error&) {
      return false;
    }
  }
  void RecomputeSums() {
    srcSum_ = snkSum_ = 0;
    for (int32_t i = 0; i < g_.num_nodes(); ++i) {
      srcSum_ += static_cast<double>(g_.source_cap(i));
      snkSum_ += static_cast<double>(g_.sink_cap(i));
    }
  }

  Graph g_;
  double srcSum_ = 0, snkSum_ = 0;
  bool solvedEmpty_ = true;  // a graph without nodes is trivially solved (flow 0)
};

/// Builds a graph of the input's capacity type (any thread; throws InputFault / core exceptions).
std::unique_ptr<GraphImplBase> BuildGraph(const GraphInput& in) {
  switch (in.type) {
    case CapType::kInt32: {
      auto g = std::make_unique<GraphImpl<int32_t>>();
      g->Build(in);
      return g;
    }
    case CapType::kInt64: {
      auto g = std::make_unique<GraphImpl<int64_t>>();
      g->Build(in);
      return g;
    }
    default: {
      auto g = std::make_unique<GraphImpl<double>>();
      g->Build(in);
      return g;
    }
  }
}

// ---- argument parsing on the JS thread (types and lengths; values are checked while building) ----

/// An Int32Array or Float64Array of `length` entries, or (when optional) null/undefined = zeros.
/// `keep` collects the arrays that async work must reference.
CapView CapArrayValue(const Napi::Value& v, std::size_t length, const std::string& name, bool optional, Napi::Array* keep) {
  CapView view;
  if (optional && (v.IsNull() || v.IsUndefined())) return view;
  const bool isI32 = v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_int32_array;
  const bool isF64 = v.IsTypedArray() && v.As<Napi::TypedArray>().TypedArrayType() == napi_float64_array;
  if (!isI32 && !isF64) {
    throw Napi::TypeError::New(v.Env(), name + " must be an Int32Array or a Float64Array" + (optional ? " (or null)" : "") +
                                            ", got " + DescribeValue(v));
  }
  const Napi::TypedArray arr = v.As<Napi::TypedArray>();
  if (arr.ElementLength() != length) {
    throw Napi::RangeError::New(v.Env(), name + " has length " + std::to_string(arr.ElementLength()) + ", expected " +
                                             std::to_string(length));
  }
  if (isI32) {
    view.i32 = v.As<Napi::Int32Array>().Data();
  } else {
    view.f64 = v.As<Napi::Float64Array>().Data();
  }
  if (keep != nullptr) keep->Set(keep->Length(), v);
  return view;
}

CapType CapTypeValue(const Napi::Value& v, const std::string& name) {
  if (v.IsString()) {
    const std::string s = v.As<Napi::String>().Utf8Value();
    if (s == "int32") return CapType::kInt32;
    if (s == "int64") return CapType::kInt64;
    if (s == "float64") return CapType::kFloat64;
  }
  throw Napi::TypeError::New(v.Env(), name + " must be 'int32', 'int64' or 'float64', got " +
                                          (v.IsString() ? "'" + v.As<Napi::String>().Utf8Value() + "'" : DescribeValue(v)));
}

int32_t NodeCountValue(const Napi::Value& v, const std::string& name) {
  if (!v.IsNumber()) throw Napi::TypeError::New(v.Env(), name + " must be a number, got " + DescribeValue(v));
  const double x = v.As<Napi::Number>().DoubleValue();
  if (!(x >= 0) || x != std::floor(x) || x > 2147483647.0) {
    throw Napi::RangeError::New(v.Env(), name + " must be an integer in [0, 2147483647], got " + FormatNumber(x));
  }
  return static_cast<int32_t>(x);
}

/// Parses (numNodes, edgeFrom, edgeTo, capFwd, capRev, sourceCap, sinkCap, capType).
GraphInput ParseGraphInput(const Napi::Value& numNodes, const Napi::Value& from, const Napi::Value& to,
                           const Napi::Value& fwd, const Napi::Value& rev, const Napi::Value& src, const Napi::Value& snk,
                           const Napi::Value& capType, const std::string& fn, Napi::Array* keep) {
  GraphInput in;
  in.fn = fn;
  in.numNodes = NodeCountValue(numNodes, fn + ": numNodes");
  const auto f = TypedArrayValue<int32_t>(from, fn + ": edgeFrom");
  const auto t = TypedArrayValue<int32_t>(to, fn + ": edgeTo");
  in.numEdges = f.ElementLength();
  RequireLength(t, in.numEdges, fn + ": edgeTo");
  in.from = f.Data();
  in.to = t.Data();
  if (keep != nullptr) {
    keep->Set(keep->Length(), from);
    keep->Set(keep->Length(), to);
  }
  const std::size_t n = static_cast<std::size_t>(in.numNodes);
  in.fwd = CapArrayValue(fwd, in.numEdges, fn + ": capFwd", false, keep);
  in.rev = CapArrayValue(rev, in.numEdges, fn + ": capRev", true, keep);
  in.src = CapArrayValue(src, n, fn + ": sourceCap", true, keep);
  in.snk = CapArrayValue(snk, n, fn + ": sinkCap", true, keep);
  in.type = CapTypeValue(capType, fn + ": capType");
  return in;
}

// ---- the reusable graph object ----

class MaxflowGraphWrap;

/// Per-environment class data: a weak reference to the constructor (for clone() and the DIMACS
/// reader) and the implementation handed to the next construction from C++. Freed by a finalizer
/// on the constructor function.
struct ClassData {
  Napi::FunctionReference ctor;
  std::unique_ptr<GraphImplBase> pending;
};

class MaxflowGraphWrap : public Napi::ObjectWrap<MaxflowGraphWrap> {
 public:
  static Napi::Function Define(Napi::Env env, ClassData* data) {
    return DefineClass(
        env, "MaxflowGraph",
        {
            InstanceMethod<&MaxflowGraphWrap::Solve>("solve"),
            InstanceMethod<&MaxflowGraphWrap::Segments>("segments"),
            InstanceMethod<&MaxflowGraphWrap::SetTerminalCaps>("setTerminalCaps"),
            InstanceMethod<&MaxflowGraphWrap::AddTerminalCaps>("addTerminalCaps"),
            InstanceMethod<&MaxflowGraphWrap::SetEdgeCaps>("setEdgeCaps"),
            InstanceMethod<&MaxflowGraphWrap::Residuals>("residuals"),
            InstanceMethod<&MaxflowGraphWrap::Tolerance>("tolerance"),
            InstanceMethod<&MaxflowGraphWrap::SetTolerance>("setTolerance"),
            InstanceMethod<&MaxflowGraphWrap::Clone>("clone"),
            InstanceMethod<&MaxflowGraphWrap::ToDimacs>("toDimacs"),
            InstanceMethod<&MaxflowGraphWrap::Dispose>("dispose"),
            InstanceAccessor<&MaxflowGraphWrap::NumNodes>("numNodes"),
            InstanceAccessor<&MaxflowGraphWrap::NumEdges>("numEdges"),
            InstanceAccessor<&MaxflowGraphWrap::CapTypeGetter>("capType"),
            InstanceAccessor<&MaxflowGraphWrap::FlowGetter>("flow"),
            InstanceAccessor<&MaxflowGraphWrap::SolvedGetter>("solved"),
        },
        data);
  }

  // new MaxflowGraph(numNodes, edgeFrom, edgeTo, capFwd, capRev, sourceCap, sinkCap, capType)
  explicit MaxflowGraphWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MaxflowGraphWrap>(info) {
    data_ = static_cast<ClassData*>(info.Data());
    if (info.Length() == 0 && data_ != nullptr && data_->pending) {  // clone() / maxflowReadDimacs
      impl_ = std::move(data_->pending);
      TrackMemory(info.Env());
      return;
    }
    RequireArgCount(info, 8, "MaxflowGraph");
    const GraphInput in = ParseGraphInput(info[0], info[1], info[2], info[3], info[4], info[5], info[6], info[7],
                                          "MaxflowGraph", nullptr);
    impl_ = Guarded(info.Env(), "MaxflowGraph", [&] { return BuildGraph(in); });
    TrackMemory(info.Env());
  }

  // Basic finalizer (no JS may run here): gives back the memory reported to V8.
  void Finalize(Napi::BasicEnv env) override {
    if (external_ != 0) Napi::MemoryManagement::AdjustExternalMemory(env, -external_);
    external_ = 0;
  }

  /// Wraps an implementation built in C++ into a new JS MaxflowGraph.
  static Napi::Object Adopt(Napi::Env env, ClassData* data, std::unique_ptr<GraphImplBase> impl) {
    if (data == nullptr || data->ctor.IsEmpty()) throw Napi::Error::New(env, "MaxflowGraph: class data missing");
    data->pending = std::move(impl);
    Napi::Object obj = data->ctor.Value().New({});
    data->pending.reset();  // in case the constructor did not take it
    return obj;
  }

 private:
  Napi::Value Solve(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), Guarded(info.Env(), "MaxflowGraph.solve", [&] { return Impl(info)->Solve(); }));
  }

  // segments(out: Uint8Array(numNodes)): 0 = source side, 1 = sink side.
  Napi::Value Segments(const Napi::CallbackInfo& info) {
    RequireArgCount(info, 1, "MaxflowGraph.segments");
    auto out = RequireTypedArray<uint8_t>(info, 0, "MaxflowGraph.segments: out");
    RequireLength(out, static_cast<std::size_t>(Impl(info)->NumNodes()), "MaxflowGraph.segments: out");
    if (!Impl(info)->Solved()) {
      throw Napi::Error::New(info.Env(), "MaxflowGraph.segments: the graph changed since the last solve(); call solve() first");
    }
    Guarded(info.Env(), "MaxflowGraph.segments", [&] { Impl(info)->Segments(out.Data()); });
    return info.Env().Undefined();
  }

  Napi::Value TerminalCapsCommon(const Napi::CallbackInfo& info, bool add) {
    const std::string fn = add ? "MaxflowGraph.addTerminalCaps" : "MaxflowGraph.setTerminalCaps";
    RequireArgCount(info, 3, fn.c_str());
    const int32_t* nodes = nullptr;
    std::size_t count = static_cast<std::size_t>(Impl(info)->NumNodes());
    if (!info[0].IsNull() && !info[0].IsUndefined()) {
      const auto a = RequireTypedArray<int32_t>(info, 0, fn + ": nodes");
      nodes = a.Data();
      count = a.ElementLength();
    }
    const CapView src = CapArrayValue(info[1], count, fn + ": src", false, nullptr);
    const CapView snk = CapArrayValue(info[2], count, fn + ": sink", false, nullptr);
    Guarded(info.Env(), fn, [&] { Impl(info)->TerminalCaps(nodes, count, src, snk, add, fn); });
    return info.Env().Undefined();
  }
  Napi::Value SetTerminalCaps(const Napi::CallbackInfo& info) { return TerminalCapsCommon(info, false); }
  Napi::Value AddTerminalCaps(const Napi::CallbackInfo& info) { return TerminalCapsCommon(info, true); }

  Napi::Value SetEdgeCaps(const Napi::CallbackInfo& info) {
    const std::string fn = "MaxflowGraph.setEdgeCaps";
    RequireArgCount(info, 3, fn.c_str());
    const int32_t* edges = nullptr;
    std::size_t count = static_cast<std::size_t>(Impl(info)->NumEdges());
    if (!info[0].IsNull() && !info[0].IsUndefined()) {
      const auto a = RequireTypedArray<int32_t>(info, 0, fn + ": edges");
      edges = a.Data();
      count = a.ElementLength();
    }
    const CapView fwd = CapArrayValue(info[1], count, fn + ": capFwd", false, nullptr);
    const CapView rev = CapArrayValue(info[2], count, fn + ": capRev", false, nullptr);
    Guarded(info.Env(), fn, [&] { Impl(info)->EdgeCaps(edges, count, fwd, rev, fn); });
    return info.Env().Undefined();
  }

  // residuals(src | null, sink | null, fwd | null, rev | null): Float64Array outputs.
  Napi::Value Residuals(const Napi::CallbackInfo& info) {
    const std::string fn = "MaxflowGraph.residuals";
    RequireArgCount(info, 4, fn.c_str());
    double* outs[4] = {nullptr, nullptr, nullptr, nullptr};
    const char* names[4] = {"src", "sink", "fwd", "rev"};
    for (std::size_t k = 0; k < 4; ++k) {
      if (info[k].IsNull() || info[k].IsUndefined()) continue;
      auto a = RequireTypedArray<double>(info, k, fn + ": " + names[k]);
      RequireLength(a, static_cast<std::size_t>(k < 2 ? Impl(info)->NumNodes() : Impl(info)->NumEdges()), fn + ": " + names[k]);
      outs[k] = a.Data();
    }
    Guarded(info.Env(), fn, [&] { Impl(info)->Residuals(outs[0], outs[1], outs[2], outs[3]); });
    return info.Env().Undefined();
  }

  Napi::Value Tolerance(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Impl(info)->Tolerance()); }
  Napi::Value SetTolerance(const Napi::CallbackInfo& info) {
    RequireArgCount(info, 1, "MaxflowGraph.setTolerance");
    const double t = RequireNonNegativeFinite(info, 0, "MaxflowGraph.setTolerance: tolerance");
    Guarded(info.Env(), "MaxflowGraph.setTolerance", [&] { Impl(info)->SetTolerance(t); });
    return info.Env().Undefined();
  }

  Napi::Value Clone(const Napi::CallbackInfo& info) {
    auto copy = Guarded(info.Env(), "MaxflowGraph.clone", [&] { return Impl(info)->Clone(); });
    return Adopt(info.Env(), data_, std::move(copy));
  }

  // toDimacs(constant = 0, source = -1, sink = -1) -> string
  Napi::Value ToDimacs(const Napi::CallbackInfo& info) {
    const std::string fn = "MaxflowGraph.toDimacs";
    const double constant = info.Length() > 0 && !info[0].IsUndefined() ? RequireNumber(info, 0, fn + ": constant") : 0.0;
    auto id = [&](std::size_t k, const char* name) -> int32_t {
      if (info.Length() <= k || info[k].IsUndefined()) return -1;
      const double x = RequireNumber(info, k, fn + ": " + name);
      if (x != std::floor(x) || x < -1 || x >= Impl(info)->NumNodes()) {
        throw Napi::RangeError::New(info.Env(), fn + ": " + name + " must be -1 or a node id in 0.." +
                                                    std::to_string(int64_t{Impl(info)->NumNodes()} - 1) + ", got " + FormatNumber(x));
      }
      return static_cast<int32_t>(x);
    };
    const int32_t source = id(1, "source"), sink = id(2, "sink");
    if ((source < 0) != (sink < 0)) throw Napi::RangeError::New(info.Env(), fn + ": give both source and sink, or neither");
    const std::string text = Guarded(info.Env(), fn, [&] { return Impl(info)->ToDimacs(constant, source, sink); });
    return Napi::String::New(info.Env(), text);
  }

  Napi::Value NumNodes(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Impl(info)->NumNodes()); }
  Napi::Value NumEdges(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Impl(info)->NumEdges()); }
  Napi::Value CapTypeGetter(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), CapTypeName(Impl(info)->Type()));
  }
  Napi::Value FlowGetter(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Impl(info)->Flow()); }
  Napi::Value SolvedGetter(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), Impl(info)->Solved()); }

  GraphImplBase* Impl(const Napi::CallbackInfo& info) const {
    if (!impl_) throw Napi::Error::New(info.Env(), "MaxflowGraph: the graph was disposed");
    return impl_.get();
  }

  void TrackMemory(Napi::Env env) {
    external_ = impl_->MemoryBytes();
    Napi::MemoryManagement::AdjustExternalMemory(env, external_);
  }

  // dispose(): frees the native graph now (later calls throw); idempotent.
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    impl_.reset();
    if (external_ != 0) Napi::MemoryManagement::AdjustExternalMemory(info.Env(), -external_);
    external_ = 0;
    return info.Env().Undefined();
  }

  int64_t external_ = 0;       // bytes reported to V8 by AdjustExternalMemory
  ClassData* data_ = nullptr;  // owned by the constructor function, which outlives every instance
  std::unique_ptr<GraphImplBase> impl_;
};

// ---- one-shot solve ----

// maxflowSolve(numNodes, edgeFrom, edgeTo, capFwd, capRev, sourceCap, sinkCap, capType, segments | null) -> flow
Napi::Value MaxflowSolve(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 9, "maxflowSolve");
  const GraphInput in =
      ParseGraphInput(info[0], info[1], info[2], info[3], info[4], info[5], info[6], info[7], "maxflowSolve", nullptr);
  uint8_t* seg = nullptr;
  if (!info[8].IsNull() && !info[8].IsUndefined()) {
    auto out = RequireTypedArray<uint8_t>(info, 8, "maxflowSolve: segments");
    RequireLength(out, static_cast<std::size_t>(in.numNodes), "maxflowSolve: segments");
    seg = out.Data();
  }
  const double flow = Guarded(info.Env(), "maxflowSolve", [&] {
    auto g = BuildGraph(in);
    const double f = g->Solve();
    if (seg != nullptr) g->Segments(seg);
    return f;
  });
  return Napi::Number::New(info.Env(), flow);
}

// ---- batch on a thread pool ----

struct BatchJob {
  GraphInput in;
  uint8_t* segments = nullptr;
};

// How a batch ended: the first failure's message (and whether it was bad input), graphs solved.
struct BatchOutcome {
  std::string error;
  bool errorIsRange = false;
  bool failed = false;
  std::size_t done = 0;
};

// Records the first failure of a batch; never throws (it runs inside std::thread bodies).
void RecordBatchFailure(std::mutex& mu, std::atomic<bool>& failed, BatchOutcome& out, const std::string& fn,
                        const std::exception& e) noexcept {
  try {
    std::lock_guard<std::mutex> lock(mu);
    if (failed.load()) return;
    const bool range = dynamic_cast<const InputFault*>(&e) != nullptr || dynamic_cast<const std::invalid_argument*>(&e) != nullptr ||
                       dynamic_cast<const std::overflow_error*>(&e) != nullptr || dynamic_cast<const std::length_error*>(&e) != nullptr;
    std::string msg = dynamic_cast<const InputFault*>(&e) != nullptr ? std::string(e.what()) : fn + ": " + CoreMessage(e);
    if (dynamic_cast<const std::overflow_error*>(&e) != nullptr) msg += " (use capType 'int64' or 'float64')";
    if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr) msg = fn + ": out of memory";
    out.error = std::move(msg);
    out.errorIsRange = range;
    out.failed = true;
    failed.store(true);
  } catch (...) {
    out.failed = true;
    failed.store(true);
  }
}

// Solves every job on up to `threads` threads (the caller's included); stops early on cancel or failure.
void RunMaxflowJobs(const std::vector<BatchJob>& jobs, std::vector<double>& flows, std::size_t threads,
                    const std::atomic<bool>& cancel, BatchOutcome& out) noexcept {
  const std::size_t k = jobs.size();
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  auto body = [&]() noexcept {
    for (;;) {
      if (cancel.load(std::memory_order_relaxed) || failed.load(std::memory_order_relaxed)) return;
      const std::size_t i = next.fetch_add(1);
      if (i >= k) return;
      const BatchJob& job = jobs[i];
      try {
        auto g = BuildGraph(job.in);
        flows[i] = g->Solve();
        if (job.segments != nullptr) g->Segments(job.segments);
        done.fetch_add(1);
      } catch (const std::exception& e) {
        RecordBatchFailure(mu, failed, out, job.in.fn, e);
      } catch (...) {
        RecordBatchFailure(mu, failed, out, job.in.fn, std::runtime_error("unknown native error"));
      }
    }
  };
  std::vector<std::thread> pool;
  const std::size_t extra = std::min(threads, k) > 0 ? std::min(threads, k) - 1 : 0;
  for (std::size_t t = 0; t < extra; ++t) {
    try {
      pool.emplace_back(body);
    } catch (...) {  // could not start a thread: go on with those that did start
      break;
    }
  }
  body();
  for (std::thread& t : pool) t.join();
  out.done = done.load();
}

class MaxflowBatchWorker : public Napi::AsyncWorker {
 public:
  MaxflowBatchWorker(Napi::Env env, std::vector<BatchJob> jobs, Napi::Array keep, std::size_t threads,
                     std::shared_ptr<std::atomic<bool>> cancel)
      : Napi::AsyncWorker(env, "gapbcfw.maxflowBatch"),
        deferred_(Napi::Promise::Deferred::New(env)),
        keep_(Napi::Persistent(keep)),
        jobs_(std::move(jobs)),
        flows_(jobs_.size(), 0.0),
        threads_(threads),
        cancel_(std::move(cancel)) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    RunMaxflowJobs(jobs_, flows_, threads_, *cancel_, outcome_);
    if (outcome_.failed) {
      SetError(outcome_.error.empty() ? "maxflowBatch: failed" : outcome_.error);
    } else if (outcome_.done < jobs_.size()) {
      cancelled_ = true;
      SetError("maxflowBatch: cancelled after " + std::to_string(outcome_.done) + " of " + std::to_string(jobs_.size()) + " graphs");
    }
  }

  void OnOK() override {
    Napi::Float64Array flows = Napi::Float64Array::New(Env(), flows_.size());
    std::copy(flows_.begin(), flows_.end(), flows.Data());
    deferred_.Resolve(flows);
  }

  void OnError(const Napi::Error& e) override {
    const std::string msg = e.Message();
    Napi::Error err = outcome_.errorIsRange ? Napi::RangeError::New(Env(), msg) : Napi::Error::New(Env(), msg);
    if (cancelled_) {
      err.Set("name", Napi::String::New(Env(), "AbortError"));
      err.Set("code", Napi::String::New(Env(), "ABORT_ERR"));
    }
    deferred_.Reject(err.Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::Reference<Napi::Array> keep_;  // every input/output array, alive until the job settles
  std::vector<BatchJob> jobs_;
  std::vector<double> flows_;
  std::size_t threads_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  BatchOutcome outcome_;
  bool cancelled_ = false;
};

// Parses maxflowBatch's (graphs, threads) arguments into jobs; `keep` collects every array they use.
std::vector<BatchJob> ParseBatchJobs(const Napi::CallbackInfo& info, const char* name, Napi::Array keep, std::size_t& threads) {
  Napi::Env env = info.Env();
  RequireArgCount(info, 2, name);
  if (!info[0].IsArray()) throw Napi::TypeError::New(env, std::string(name) + ": graphs must be an Array, got " + DescribeValue(info[0]));
  const Napi::Array graphs = info[0].As<Napi::Array>();
  threads = RequireSize(info, 1, std::string(name) + ": threads", 1024);
  if (threads == 0) throw Napi::RangeError::New(env, std::string(name) + ": threads must be >= 1");
  std::vector<BatchJob> jobs;
  jobs.reserve(graphs.Length());
  for (uint32_t i = 0; i < graphs.Length(); ++i) {
    const std::string fn = std::string(name) + ": graphs[" + std::to_string(i) + "]";
    const Napi::Value gv = graphs.Get(i);
    if (!gv.IsObject() || gv.IsArray() || gv.IsTypedArray()) {
      throw Napi::TypeError::New(env, fn + " must be an object {numNodes, edgeFrom, edgeTo, capFwd, ...}, got " + DescribeValue(gv));
    }
    const Napi::Object g = gv.As<Napi::Object>();
    BatchJob job;
    job.in = ParseGraphInput(g.Get("numNodes"), g.Get("edgeFrom"), g.Get("edgeTo"), g.Get("capFwd"), g.Get("capRev"),
                             g.Get("sourceCap"), g.Get("sinkCap"), g.Get("capType"), fn, &keep);
    const Napi::Value seg = g.Get("segments");
    if (!seg.IsNull() && !seg.IsUndefined()) {
      auto out = TypedArrayValue<uint8_t>(seg, fn + ": segments");
      RequireLength(out, static_cast<std::size_t>(job.in.numNodes), fn + ": segments");
      job.segments = out.Data();
      keep.Set(keep.Length(), seg);
    }
    jobs.push_back(std::move(job));
  }
  // Outputs must not overlap each other (two threads would write the same bytes).
  std::vector<std::pair<std::uintptr_t, std::size_t>> outs;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].segments != nullptr && jobs[i].in.numNodes > 0) {
      outs.emplace_back(reinterpret_cast<std::uintptr_t>(jobs[i].segments), i);
    }
  }
  std::sort(outs.begin(), outs.end());
  for (std::size_t q = 1; q < outs.size(); ++q) {
    const std::size_t prev = outs[q - 1].second;
    if (outs[q - 1].first + static_cast<std::size_t>(jobs[prev].in.numNodes) > outs[q].first) {
      throw Napi::RangeError::New(env, std::string(name) + ": graphs[" + std::to_string(prev) + "].segments and graphs[" +
                                           std::to_string(outs[q].second) + "].segments share memory");
    }
  }
  return jobs;
}

// maxflowBatch(graphs: object[], threads: number) -> { promise, cancel }
Napi::Value MaxflowBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array keep = Napi::Array::New(env);
  std::size_t threads = 1;
  std::vector<BatchJob> jobs = ParseBatchJobs(info, "maxflowBatch", keep, threads);
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  auto* worker = new MaxflowBatchWorker(env, std::move(jobs), keep, threads, cancel);  // deletes itself
  Napi::Object result = Napi::Object::New(env);
  result.Set("promise", worker->Promise());
  result.Set("cancel", Napi::Function::New(
                           env,
                           [cancel](const Napi::CallbackInfo& ci) -> Napi::Value {
                             cancel->store(true);
                             return ci.Env().Undefined();
                           },
                           "cancel"));
  worker->Queue();
  return result;
}

// maxflowBatchSync(graphs: object[], threads: number) -> Float64Array of flows: the same batch, blocking the
// calling thread while `threads` threads solve it (for synchronous full passes of the solvers).
Napi::Value MaxflowBatchSync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array keep = Napi::Array::New(env);
  std::size_t threads = 1;
  const std::vector<BatchJob> jobs = ParseBatchJobs(info, "maxflowBatchSync", keep, threads);
  std::vector<double> flows(jobs.size(), 0.0);
  const std::atomic<bool> never{false};
  BatchOutcome outcome;
  RunMaxflowJobs(jobs, flows, threads, never, outcome);
  if (outcome.failed) {
    const std::string msg = outcome.error.empty() ? "maxflowBatchSync: failed" : outcome.error;
    if (outcome.errorIsRange) throw Napi::RangeError::New(env, msg);
    throw Napi::Error::New(env, msg);
  }
  Napi::Float64Array result = Napi::Float64Array::New(env, flows.size());
  std::copy(flows.begin(), flows.end(), result.Data());
  return result;
}

// ---- DIMACS ----

/// Read-only std::streambuf over bytes owned by JS (no copy).
class MemoryBuf : public std::streambuf {
 public:
  MemoryBuf(const char* data, std::size_t size) {
    char* p = const_cast<char*>(data);  // never written: only the get area is used
    setg(p, p, p + size);
  }
};

template <class Cap>
Napi::Object ReadDimacsAs(Napi::Env env, ClassData* data, const char* bytes, std::size_t size) {
  MemoryBuf buf(bytes, size);
  std::istream in(&buf);
  mf::DimacsProblem<Cap> p = mf::read_dimacs<Cap>(in);
  Napi::Object r = Napi::Object::New(env);
  r.Set("numNodes", Napi::Number::New(env, p.graph.num_nodes()));
  r.Set("source", Napi::Number::New(env, p.source));
  r.Set("sink", Napi::Number::New(env, p.sink));
  r.Set("constant", Napi::Number::New(env, static_cast<double>(p.constant)));
  r.Set("ignoredArcs", Napi::Number::New(env, static_cast<double>(p.ignored_arcs)));
  auto impl = std::make_unique<GraphImpl<Cap>>(std::move(p.graph));
  r.Set("capType", Napi::String::New(env, CapTypeName(impl->Type())));
  r.Set("graph", MaxflowGraphWrap::Adopt(env, data, std::move(impl)));
  return r;
}

// maxflowReadDimacs(data: Uint8Array, capType: 'auto' | 'int32' | 'int64' | 'float64')
Napi::Value MaxflowReadDimacs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  RequireArgCount(info, 2, "maxflowReadDimacs");
  const auto bytes = RequireTypedArray<uint8_t>(info, 0, "maxflowReadDimacs: data");
  std::string type = info[1].IsString() ? info[1].As<Napi::String>().Utf8Value() : "";
  if (type != "auto" && type != "int32" && type != "int64" && type != "float64") {
    throw Napi::TypeError::New(env, "maxflowReadDimacs: capType must be 'auto', 'int32', 'int64' or 'float64'");
  }
  auto* data = static_cast<ClassData*>(info.Data());
  const char* p = reinterpret_cast<const char*>(bytes.Data());
  const std::size_t n = bytes.ElementLength();
  try {
    if (type == "int32") return ReadDimacsAs<int32_t>(env, data, p, n);
    if (type == "float64") return ReadDimacsAs<double>(env, data, p, n);
    try {
      return ReadDimacsAs<int64_t>(env, data, p, n);
    } catch (const mf::DimacsError& e) {
      // A capacity that is not an integer: read the file again with double capacities (a real
      // syntax error is then reported again, with the same line).
      if (type == "auto" && std::string(e.what()).find("bad capacity") != std::string::npos) {
        return ReadDimacsAs<double>(env, data, p, n);
      }
      throw;
    }
  } catch (const Napi::Error&) {
    throw;
  } catch (const mf::DimacsError& e) {
    Napi::Error err = Napi::Error::New(env, e.what());
    err.Set("line", Napi::Number::New(env, static_cast<double>(e.line())));
    throw err;
  } catch (const std::bad_alloc&) {
    throw Napi::Error::New(env, "maxflowReadDimacs: out of memory");
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, std::string("maxflowReadDimacs: ") + e.what());
  }
}

void Register(Napi::Env env, Napi::Object exports) {
  auto* data = new ClassData();
  Napi::Function cls = MaxflowGraphWrap::Define(env, data);
  data->ctor = Napi::Weak(cls);
  cls.AddFinalizer([](Napi::Env, ClassData* d) { delete d; }, data);
  exports.Set("MaxflowGraph", cls);
  exports.Set("maxflowSolve", Napi::Function::New(env, MaxflowSolve, "maxflowSolve"));
  exports.Set("maxflowBatch", Napi::Function::New(env, MaxflowBatch, "maxflowBatch"));
  exports.Set("maxflowBatchSync", Napi::Function::New(env, MaxflowBatchSync, "maxflowBatchSync"));
  exports.Set("maxflowReadDimacs", Napi::Function::New(env, MaxflowReadDimacs, "maxflowReadDimacs", data));
}

}  // namespace maxflowsec

// ============================================ end of max-flow section ================================

void RegisterMaxflow(Napi::Env env, Napi::Object exports) { maxflowsec::Register(env, exports); }

}  // namespace gapbcfw::binding
