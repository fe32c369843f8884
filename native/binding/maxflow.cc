// Max-flow bindings: a thin layer over native/maxflow (the solver in flow_graph.h, the capacity checks and
// the per-type graph in any_graph.h, batches in batch.h, DIMACS in dimacs.h); src/native/maxflow.ts wraps them.
// A graph is { numNodes, edgeFrom, edgeTo: Int32Array (m), capFwd, capRev?, sourceCap?, sinkCap?: Int32Array
// | Float64Array (m, m, n, n; absent: zeros), capType?: 'int32' | 'int64' | 'float64' (absent: float64 if a
// capacity array is a Float64Array, else int32) }; typed arrays are read in place.
//   new MaxflowGraph(graph): a reusable graph (the arrays are read during the call). solve() -> flow,
//     segments(out), set/addTerminalCaps(nodes | null, src, sink), setEdgeCaps(edges | null, capFwd, capRev),
//     residuals({ source, sink, fwd, rev }), tolerance(), setTolerance(t), counters(), clone(),
//     toDimacs(constant, source, sink), dispose(); numNodes, numEdges, capType, flow, solved.
//   maxflowSolve({ ...graph, segments? }) -> flow: one-shot, in a scratch graph kept between calls.
//   new MaxflowBatch({ graphs: (graph & { segments? })[], flows, retain, name? }): a prepared batch keeping its
//     arrays by reference; solveSync({ items?, count?, threads? }) and solve(same) -> { promise, cancel } read
//     their current values (not to be written while solve() runs; cancel() rejects with code 'ABORT_ERR').
//   maxflowReadDimacs(data: Uint8Array, { capType: 'auto' | ..., mergeArcs }) -> { graph, numNodes, source,
//     sink, constant, ignoredArcs, capType }; a malformed file throws "dimacs line L: ..." with `line`.
// Bad types throw TypeError, bad values RangeError naming the array and the index.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binding/common.h"
#include "binding/register.h"
#include "maxflow/any_graph.h"
#include "maxflow/batch.h"
#include "maxflow/dimacs.h"

namespace gapbcfw::binding {

namespace {

namespace mf = gapbcfw::maxflow;

/// Runs f, turning C++ exceptions into JS errors: bad input -> RangeError, the rest -> Error.
template <class F>
auto Guarded(Napi::Env env, const std::string& label, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::exception& e) {
    const mf::Failure f = mf::describe_failure(e, label);
    if (f.bad_input) throw Napi::RangeError::New(env, f.message);
    throw Napi::Error::New(env, f.message);
  }
}

/// Per-environment class data: the constructor (for clone() and the DIMACS reader) and the graph handed
/// to the next construction from C++; per capacity type the last disposed graph (up to 64 MiB), whose
/// memory the next construction reuses. Freed by a finalizer on the constructor function.
struct ClassData {
  Napi::FunctionReference ctor;
  std::unique_ptr<mf::AnyGraph> pending;
  std::unique_ptr<mf::AnyGraph> spare[3];
};
constexpr std::size_t kSpareBytes = std::size_t{64} << 20;

/// An Int32Array / Float64Array of `length` entries, or (optional) null or undefined: absent. `pin` (a prepared
/// batch) keeps it referenced.
mf::CapArray CapArrayValue(const Napi::Value& v, std::size_t length, const std::string& label, const char* field, bool optional, PinnedArrays* pin) {
  mf::CapArray out;
  if (optional && (v.IsNull() || v.IsUndefined())) return out;
  const ArrayView a = ViewOf(v);
  if (!a.ok || (a.type != napi_int32_array && a.type != napi_float64_array)) {
    throw Napi::TypeError::New(v.Env(), label + ": " + field + " must be an Int32Array or a Float64Array" + (optional ? " (or null)" : "") + ", got " + DescribeValue(v));
  }
  RequireViewLength(v, a, length, label + ": " + field);
  if (a.type == napi_int32_array) {
    out.i32 = pin != nullptr ? pin->Pin(v.As<Napi::Int32Array>()) : static_cast<const int32_t*>(a.data);
  } else {
    out.f64 = pin != nullptr ? pin->Pin(v.As<Napi::Float64Array>()) : static_cast<const double*>(a.data);
  }
  return out;
}

/// An Int32Array of edge ends; length: expected, or (SIZE_MAX) set from the array.
const int32_t* IdArrayValue(const Napi::Value& v, std::size_t& length, const std::string& label, const char* field, PinnedArrays* pin) {
  const ArrayView a = ViewOf(v);
  if (!a.ok || a.type != napi_int32_array) throw Napi::TypeError::New(v.Env(), label + ": " + field + " must be an Int32Array, got " + DescribeValue(v));
  if (length == SIZE_MAX) length = a.length;
  RequireViewLength(v, a, length, label + ": " + field);
  return pin != nullptr ? pin->Pin(v.As<Napi::Int32Array>()) : static_cast<const int32_t*>(a.data);
}

/// options.capType; when absent, 'float64' if any capacity array is a Float64Array, else 'int32'.
mf::CapType CapTypeValue(const Napi::Value& v, const mf::GraphArrays& in) {
  if (v.IsUndefined()) {
    const bool f64 = in.fwd.f64 != nullptr || in.rev.f64 != nullptr || in.source.f64 != nullptr || in.sink.f64 != nullptr;
    return f64 ? mf::CapType::kFloat64 : mf::CapType::kInt32;
  }
  const std::string s = v.IsString() ? v.As<Napi::String>().Utf8Value() : "";
  if (s == "int32") return mf::CapType::kInt32;
  if (s == "int64") return mf::CapType::kInt64;
  if (s == "float64") return mf::CapType::kFloat64;
  throw Napi::TypeError::New(v.Env(), in.label + ": capType must be 'int32', 'int64' or 'float64', got " + (v.IsString() ? "'" + s + "'" : DescribeValue(v)));
}

/// The graph of an options object (types and lengths checked here, values when it is loaded).
mf::GraphArrays GraphArraysValue(const Napi::Object& o, const std::string& label, PinnedArrays* pin) {
  mf::GraphArrays in;
  in.label = label;
  const Napi::Value nodes = o.Get("numNodes");
  if (!nodes.IsNumber()) throw Napi::TypeError::New(o.Env(), label + ": numNodes must be a number, got " + DescribeValue(nodes));
  const double n = nodes.As<Napi::Number>().DoubleValue();
  if (!(n >= 0) || n != static_cast<double>(static_cast<int64_t>(n)) || n > 2147483647.0) {
    throw Napi::RangeError::New(o.Env(), label + ": numNodes must be an integer in [0, 2147483647], got " + FormatNumber(n));
  }
  in.num_nodes = static_cast<int32_t>(n);
  in.num_edges = SIZE_MAX;
  in.from = IdArrayValue(o.Get("edgeFrom"), in.num_edges, label, "edgeFrom", pin);
  in.to = IdArrayValue(o.Get("edgeTo"), in.num_edges, label, "edgeTo", pin);
  const std::size_t nn = static_cast<std::size_t>(in.num_nodes);
  in.fwd = CapArrayValue(o.Get("capFwd"), in.num_edges, label, "capFwd", false, pin);
  in.rev = CapArrayValue(o.Get("capRev"), in.num_edges, label, "capRev", true, pin);
  in.source = CapArrayValue(o.Get("sourceCap"), nn, label, "sourceCap", true, pin);
  in.sink = CapArrayValue(o.Get("sinkCap"), nn, label, "sinkCap", true, pin);
  in.type = CapTypeValue(o.Get("capType"), in);
  return in;
}

/// options.segments: a Uint8Array of n entries, or null when absent.
uint8_t* SegmentsValue(const Napi::Object& o, std::size_t n, const std::string& label, PinnedArrays* pin) {
  const Napi::Value v = o.Get("segments");
  if (v.IsNull() || v.IsUndefined()) return nullptr;
  auto out = TypedArrayValue<uint8_t>(v, label + ": segments");
  RequireLength(out, n, label + ": segments");
  return pin != nullptr ? pin->PinMutable(out) : out.Data();
}

// ---- the reusable graph ----

class MaxflowGraphWrap : public Napi::ObjectWrap<MaxflowGraphWrap> {
 public:
  static Napi::Function Define(Napi::Env env, ClassData* data) {
    return DefineClass(env, "MaxflowGraph",
                       {InstanceMethod<&MaxflowGraphWrap::Solve>("solve"), InstanceMethod<&MaxflowGraphWrap::Segments>("segments"),
                        InstanceMethod<&MaxflowGraphWrap::SetTerminalCaps>("setTerminalCaps"),
                        InstanceMethod<&MaxflowGraphWrap::AddTerminalCaps>("addTerminalCaps"),
                        InstanceMethod<&MaxflowGraphWrap::SetEdgeCaps>("setEdgeCaps"), InstanceMethod<&MaxflowGraphWrap::Residuals>("residuals"),
                        InstanceMethod<&MaxflowGraphWrap::Tolerance>("tolerance"), InstanceMethod<&MaxflowGraphWrap::SetTolerance>("setTolerance"),
                        InstanceMethod<&MaxflowGraphWrap::Counters>("counters"), InstanceMethod<&MaxflowGraphWrap::Clone>("clone"),
                        InstanceMethod<&MaxflowGraphWrap::ToDimacs>("toDimacs"), InstanceMethod<&MaxflowGraphWrap::Dispose>("dispose"),
                        InstanceAccessor<&MaxflowGraphWrap::NumNodes>("numNodes"), InstanceAccessor<&MaxflowGraphWrap::NumEdges>("numEdges"),
                        InstanceAccessor<&MaxflowGraphWrap::CapType>("capType"), InstanceAccessor<&MaxflowGraphWrap::Flow>("flow"),
                        InstanceAccessor<&MaxflowGraphWrap::Solved>("solved")},
                       data);
  }

  explicit MaxflowGraphWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MaxflowGraphWrap>(info) {
    data_ = static_cast<ClassData*>(info.Data());
    if (info.Length() == 0 && data_ != nullptr && data_->pending) {  // clone() / maxflowReadDimacs
      impl_ = std::move(data_->pending);
    } else {
      const mf::GraphArrays in = GraphArraysValue(RequireOptions(info, 0, "MaxflowGraph"), "MaxflowGraph", nullptr);
      impl_ = Guarded(info.Env(), in.label, [&] {
        std::unique_ptr<mf::AnyGraph>& spare = data_->spare[static_cast<int>(in.type)];
        auto g = spare ? std::move(spare) : mf::AnyGraph::create(in.type);
        g->load(in);
        return g;
      });
    }
    external_ = static_cast<int64_t>(impl_->memory_bytes());
    Napi::MemoryManagement::AdjustExternalMemory(info.Env(), external_);
  }

  // Basic finalizer (no JS may run here): gives back the memory reported to V8.
  void Finalize(Napi::BasicEnv env) override {
    if (external_ != 0) Napi::MemoryManagement::AdjustExternalMemory(env, -external_);
    external_ = 0;
  }

  /// Wraps a graph built in C++ into a new JS MaxflowGraph.
  static Napi::Object Adopt(ClassData* data, std::unique_ptr<mf::AnyGraph> impl) {
    data->pending = std::move(impl);
    Napi::Object obj = data->ctor.Value().New({});
    data->pending.reset();
    return obj;
  }

 private:
  Napi::Value Solve(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), Guarded(info.Env(), "MaxflowGraph.solve", [&] { return Impl(info)->solve(); }));
  }

  Napi::Value Segments(const Napi::CallbackInfo& info) {
    const std::string fn = "MaxflowGraph.segments";
    auto out = RequireTypedArray<uint8_t>(info, 0, fn + ": out");
    RequireLength(out, static_cast<std::size_t>(Impl(info)->num_nodes()), fn + ": out");
    if (!Impl(info)->solved()) throw Napi::Error::New(info.Env(), fn + ": the graph changed since the last solve(); call solve() first");
    Impl(info)->segments(out.Data());
    return info.Env().Undefined();
  }

  // (nodes | null, src, sink) or (edges | null, capFwd, capRev): ids (null = all in order) and two arrays.
  Napi::Value CapsCommon(const Napi::CallbackInfo& info, const std::string& fn, bool edges, bool add) {
    RequireArgCount(info, 3, fn.c_str());
    mf::AnyGraph* g = Impl(info);
    const int32_t* ids = nullptr;
    std::size_t count = static_cast<std::size_t>(edges ? g->num_edges() : g->num_nodes());
    if (!info[0].IsNull() && !info[0].IsUndefined()) {
      const auto a = RequireTypedArray<int32_t>(info, 0, fn + (edges ? ": edges" : ": nodes"));
      ids = a.Data();
      count = a.ElementLength();
    }
    const mf::CapArray x = CapArrayValue(info[1], count, fn, edges ? "capFwd" : "src", false, nullptr);
    const mf::CapArray y = CapArrayValue(info[2], count, fn, edges ? "capRev" : "sink", false, nullptr);
    Guarded(info.Env(), fn, [&] { edges ? g->edge_caps(ids, count, x, y, fn) : g->terminal_caps(ids, count, x, y, add, fn); });
    return info.Env().Undefined();
  }
  Napi::Value SetTerminalCaps(const Napi::CallbackInfo& info) { return CapsCommon(info, "MaxflowGraph.setTerminalCaps", false, false); }
  Napi::Value AddTerminalCaps(const Napi::CallbackInfo& info) { return CapsCommon(info, "MaxflowGraph.addTerminalCaps", false, true); }
  Napi::Value SetEdgeCaps(const Napi::CallbackInfo& info) { return CapsCommon(info, "MaxflowGraph.setEdgeCaps", true, false); }

  // residuals({ source, sink, fwd, rev }): Float64Array outputs of n, n, m, m entries.
  Napi::Value Residuals(const Napi::CallbackInfo& info) {
    const std::string fn = "MaxflowGraph.residuals";
    const Napi::Object o = RequireOptions(info, 0, fn);
    double* outs[4];
    const char* names[4] = {"source", "sink", "fwd", "rev"};
    for (int k = 0; k < 4; ++k) {
      auto a = OptionTypedArray<double>(o, names[k], fn);
      RequireLength(a, static_cast<std::size_t>(k < 2 ? Impl(info)->num_nodes() : Impl(info)->num_edges()), fn + ": " + names[k]);
      outs[k] = a.Data();
    }
    Impl(info)->residuals(outs[0], outs[1], outs[2], outs[3]);
    return info.Env().Undefined();
  }

  Napi::Value Tolerance(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Impl(info)->tolerance()); }
  Napi::Value SetTolerance(const Napi::CallbackInfo& info) {
    const double t = RequireNonNegativeFinite(info, 0, "MaxflowGraph.setTolerance: tolerance");
    Guarded(info.Env(), "MaxflowGraph.setTolerance", [&] { Impl(info)->set_tolerance(t); });
    return info.Env().Undefined();
  }

  Napi::Value Counters(const Napi::CallbackInfo& info) {
    const mf::SolveCounters c = Impl(info)->counters();
    Napi::Object o = Napi::Object::New(info.Env());
    for (const auto& [key, value] : {std::pair{"augmentations", c.augmentations}, {"orphans", c.orphans}, {"adoptions", c.adoptions}}) {
      o.Set(key, static_cast<double>(value));
    }
    return o;
  }

  Napi::Value Clone(const Napi::CallbackInfo& info) {
    auto copy = Guarded(info.Env(), "MaxflowGraph.clone", [&] { return Impl(info)->clone(); });
    return Adopt(data_, std::move(copy));
  }

  // toDimacs(constant, source, sink) -> string (source = sink = -1: graph-only layout, see dimacs.h)
  Napi::Value ToDimacs(const Napi::CallbackInfo& info) {
    const std::string fn = "MaxflowGraph.toDimacs";
    RequireArgCount(info, 3, fn.c_str());
    const double constant = RequireNumber(info, 0, fn + ": constant");
    auto id = [&](std::size_t k, const char* name) -> int32_t {  // -1 or a node id
      const double x = RequireNumber(info, k, fn + ": " + name), n = Impl(info)->num_nodes();
      if (x == std::floor(x) && x >= -1 && x < n) return static_cast<int32_t>(x);
      throw Napi::RangeError::New(info.Env(), fn + ": " + name + " must be -1 or a node id in 0.." + FormatNumber(n - 1) + ", got " + FormatNumber(x));
    };
    const int32_t source = id(1, "source"), sink = id(2, "sink");
    if ((source < 0) != (sink < 0)) throw Napi::RangeError::New(info.Env(), fn + ": give both source and sink, or neither");
    return Napi::String::New(info.Env(), Guarded(info.Env(), fn, [&] { return Impl(info)->to_dimacs(constant, source, sink); }));
  }

  Napi::Value NumNodes(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Impl(info)->num_nodes()); }
  Napi::Value NumEdges(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Impl(info)->num_edges()); }
  Napi::Value CapType(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), mf::cap_type_name(Impl(info)->type())); }
  Napi::Value Flow(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), Impl(info)->flow()); }
  Napi::Value Solved(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), Impl(info)->solved()); }

  mf::AnyGraph* Impl(const Napi::CallbackInfo& info) const {
    if (!impl_) throw Napi::Error::New(info.Env(), "MaxflowGraph: the graph was disposed");
    return impl_.get();
  }

  // dispose(): frees the native graph now (later calls throw); idempotent. Its memory may serve the next graph.
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    if (impl_ && data_ != nullptr && impl_->memory_bytes() <= kSpareBytes) data_->spare[static_cast<int>(impl_->type())] = std::move(impl_);
    impl_.reset();
    if (external_ != 0) Napi::MemoryManagement::AdjustExternalMemory(info.Env(), -external_);
    external_ = 0;
    return info.Env().Undefined();
  }

  int64_t external_ = 0;       // bytes reported to V8 by AdjustExternalMemory
  ClassData* data_ = nullptr;  // owned by the constructor function, which outlives every instance
  std::unique_ptr<mf::AnyGraph> impl_;
};

// maxflowSolve({ ...graph, segments? }) -> flow
Napi::Value MaxflowSolve(const Napi::CallbackInfo& info) {
  const std::string fn = "maxflowSolve";
  const Napi::Object o = RequireOptions(info, 0, fn);
  const mf::GraphArrays in = GraphArraysValue(o, fn, nullptr);
  uint8_t* seg = SegmentsValue(o, static_cast<std::size_t>(in.num_nodes), fn, nullptr);
  return Napi::Number::New(info.Env(), Guarded(info.Env(), fn, [&] { return mf::solve_once(in, seg); }));
}

// ---- the prepared batch ----

class MaxflowBatchWrap : public Napi::ObjectWrap<MaxflowBatchWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "MaxflowBatch",
                       {InstanceMethod<&MaxflowBatchWrap::SolveSync>("solveSync"), InstanceMethod<&MaxflowBatchWrap::Solve>("solve"),
                        InstanceMethod<&MaxflowBatchWrap::Dispose>("dispose"), InstanceAccessor<&MaxflowBatchWrap::Size>("size")});
  }

  explicit MaxflowBatchWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MaxflowBatchWrap>(info) {
    const std::string fn = "MaxflowBatch";
    const Napi::Object o = RequireOptions(info, 0, fn);
    const Napi::Value list = o.Get("graphs");
    if (!list.IsArray()) throw Napi::TypeError::New(info.Env(), fn + ": graphs must be an Array, got " + DescribeValue(list));
    const Napi::Array graphs = list.As<Napi::Array>();
    const Napi::Value name = o.Get("name");  // the caller's name in messages (default "MaxflowBatch")
    const std::string prefix = name.IsString() ? name.As<Napi::String>().Utf8Value() : fn;
    std::vector<mf::BatchGraph> items(graphs.Length());
    for (uint32_t i = 0; i < graphs.Length(); ++i) {
      const std::string label = prefix + ": graphs[" + std::to_string(i) + "]";
      const Napi::Value gv = graphs.Get(i);
      if (!gv.IsObject() || gv.IsArray() || gv.IsTypedArray()) {
        throw Napi::TypeError::New(info.Env(), label + " must be an object {numNodes, edgeFrom, edgeTo, capFwd, ...}, got " + DescribeValue(gv));
      }
      items[i].arrays = GraphArraysValue(gv.As<Napi::Object>(), label, &pinned_);
      items[i].segments = SegmentsValue(gv.As<Napi::Object>(), static_cast<std::size_t>(items[i].arrays.num_nodes), label, &pinned_);
    }
    auto flows = OptionTypedArray<double>(o, "flows", fn);
    RequireLength(flows, items.size(), fn + ": flows");
    flows_ = pinned_.PinMutable(flows);
    const bool retain = OptionBool(o, "retain", fn, true);
    batch_ = Guarded(info.Env(), fn, [&] { return std::make_unique<mf::GraphBatch>(std::move(items), retain); });
  }

 private:
  struct Call {
    std::vector<int32_t> items;  // copied: an async solve must not read the caller's array later
    bool all = true;
    int32_t threads = 1;
  };

  Call Begin(const Napi::CallbackInfo& info, const std::string& fn) {
    if (!batch_) throw Napi::Error::New(info.Env(), fn + ": the batch was disposed");
    if (busy_) throw Napi::Error::New(info.Env(), fn + ": a solve of this batch is still running");
    pinned_.Check(info.Env(), fn);
    const Napi::Object o = info.Length() > 0 && !info[0].IsUndefined() ? RequireOptions(info, 0, fn) : Napi::Object::New(info.Env());
    const auto [index, count] = OptionItems(o, batch_->size(), fn);
    Call c;
    c.all = index == nullptr;
    if (index != nullptr) c.items.assign(index, index + count);
    c.threads = OptionThreads(o, fn);
    return c;
  }

  mf::BatchProgress Run(const Call& c, const std::atomic<bool>* cancel) {
    return batch_->solve(c.all ? nullptr : c.items.data(), c.all ? batch_->size() : c.items.size(), c.threads, cancel, flows_);
  }

  // solveSync({ items?, count?, threads? })
  Napi::Value SolveSync(const Napi::CallbackInfo& info) {
    const Call c = Begin(info, "MaxflowBatch.solveSync");
    Guarded(info.Env(), "MaxflowBatch.solveSync", [&] { Run(c, nullptr); });
    return info.Env().Undefined();
  }

  class Worker : public Napi::AsyncWorker {
   public:
    Worker(Napi::Env env, MaxflowBatchWrap* owner, Call call, std::shared_ptr<std::atomic<bool>> cancel)
        : Napi::AsyncWorker(env, "gapbcfw.maxflowBatch"), deferred_(Napi::Promise::Deferred::New(env)), owner_(owner),
          keep_(Napi::Persistent(owner->Value())), call_(std::move(call)), cancel_(std::move(cancel)) {
      owner_->busy_ = true;
    }
    Napi::Promise Promise() const { return deferred_.Promise(); }

   protected:
    void Execute() override {
      try {
        const mf::BatchProgress done = owner_->Run(call_, cancel_.get());
        if (done.solved < done.wanted) {
          cancelled_ = true;
          SetError("maxflowBatch: cancelled after " + std::to_string(done.solved) + " of " + std::to_string(done.wanted) + " graphs");
        }
      } catch (const std::exception& e) {
        const mf::Failure f = mf::describe_failure(e, "MaxflowBatch.solve");
        range_ = f.bad_input;
        SetError(f.message);
      }
    }
    void OnOK() override {
      owner_->busy_ = false;
      deferred_.Resolve(Env().Undefined());
    }
    void OnError(const Napi::Error& e) override {
      owner_->busy_ = false;
      Napi::Error err = range_ ? Napi::RangeError::New(Env(), e.Message()) : Napi::Error::New(Env(), e.Message());
      if (cancelled_) {
        err.Set("name", Napi::String::New(Env(), "AbortError"));
        err.Set("code", Napi::String::New(Env(), "ABORT_ERR"));
      }
      deferred_.Reject(err.Value());
    }

   private:
    Napi::Promise::Deferred deferred_;
    MaxflowBatchWrap* owner_;
    Napi::ObjectReference keep_;  // keeps the batch (and through it every array) alive until settled
    Call call_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    bool range_ = false, cancelled_ = false;
  };

  // solve({ items?, count?, threads? }) -> { promise, cancel }
  Napi::Value Solve(const Napi::CallbackInfo& info) {
    Call c = Begin(info, "MaxflowBatch.solve");
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    auto* worker = new Worker(info.Env(), this, std::move(c), cancel);  // deletes itself
    Napi::Object result = Napi::Object::New(info.Env());
    result.Set("promise", worker->Promise());
    const auto stop = [cancel](const Napi::CallbackInfo& ci) -> Napi::Value { return cancel->store(true), ci.Env().Undefined(); };
    result.Set("cancel", Napi::Function::New(info.Env(), stop, "cancel"));
    worker->Queue();
    return result;
  }

  // dispose(): frees the native graphs and lets go of the pinned arrays now (later calls throw); idempotent.
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    if (busy_) throw Napi::Error::New(info.Env(), "MaxflowBatch.dispose: a solve of this batch is still running");
    batch_.reset();
    pinned_.Release();
    flows_ = nullptr;
    return info.Env().Undefined();
  }

  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), batch_ ? static_cast<double>(batch_->size()) : 0); }

  PinnedArrays pinned_;
  double* flows_ = nullptr;
  std::unique_ptr<mf::GraphBatch> batch_;
  bool busy_ = false;
};

// ---- DIMACS ----

// maxflowReadDimacs(data: Uint8Array, { capType, mergeArcs })
Napi::Value MaxflowReadDimacs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string fn = "maxflowReadDimacs";
  const auto bytes = RequireTypedArray<uint8_t>(info, 0, fn + ": data");
  const Napi::Object o = RequireOptions(info, 1, fn);
  const Napi::Value t = o.Get("capType");
  const std::string type = t.IsString() ? t.As<Napi::String>().Utf8Value() : "";
  const char* names[] = {"auto", "int32", "int64", "float64"};  // the order of mf::CapChoice
  const auto at = std::find(std::begin(names), std::end(names), type);
  if (at == std::end(names)) throw Napi::TypeError::New(env, fn + ": capType must be 'auto', 'int32', 'int64' or 'float64'");
  const auto choice = static_cast<mf::CapChoice>(at - std::begin(names));
  const bool merge = OptionBool(o, "mergeArcs", fn, true);
  mf::AnyDimacsProblem p;
  try {
    p = mf::read_dimacs_any(std::string_view(reinterpret_cast<const char*>(bytes.Data()), bytes.ElementLength()), choice, merge);
  } catch (const mf::DimacsError& e) {
    Napi::Error err = Napi::Error::New(env, e.what());
    err.Set("line", Napi::Number::New(env, static_cast<double>(e.line())));
    throw err;
  } catch (const std::exception& e) {
    const mf::Failure f = mf::describe_failure(e, fn);
    throw Napi::Error::New(env, f.message);
  }
  Napi::Object r = Napi::Object::New(env);
  for (const auto& [key, value] : {std::pair{"numNodes", double(p.graph->num_nodes())}, {"source", double(p.source)}, {"sink", double(p.sink)},
                                   {"constant", p.constant}, {"ignoredArcs", double(p.ignored_arcs)}}) {
    r.Set(key, value);
  }
  r.Set("capType", Napi::String::New(env, mf::cap_type_name(p.graph->type())));
  r.Set("graph", MaxflowGraphWrap::Adopt(static_cast<ClassData*>(info.Data()), std::move(p.graph)));
  return r;
}

}  // namespace

void RegisterMaxflow(Napi::Env env, Napi::Object exports) {
  auto* data = new ClassData();
  Napi::Function cls = MaxflowGraphWrap::Define(env, data);
  data->ctor = Napi::Weak(cls);
  cls.AddFinalizer([](Napi::Env, ClassData* d) { delete d; }, data);
  exports.Set("MaxflowGraph", cls);
  exports.Set("MaxflowBatch", MaxflowBatchWrap::Define(env));
  exports.Set("maxflowSolve", Napi::Function::New(env, MaxflowSolve, "maxflowSolve"));
  exports.Set("maxflowReadDimacs", Napi::Function::New(env, MaxflowReadDimacs, "maxflowReadDimacs", data));
}

}  // namespace gapbcfw::binding
