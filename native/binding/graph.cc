// Graph-labelling bindings: the maximum-score labelling of a pairwise MRF (native/graph/mrf.h), the max-oracle of
// src/models/graph.ts and src/models/multilabel.ts.
//   graphInfer({ unary: Float64Array (N x K), numLabels: K, edgeFrom, edgeTo: Int32Array (E), tables: Float64Array
//     (K x K shared by every edge, or E x K x K), routine?: 'auto' | 'tree' | 'cut' | 'exhaustive' | 'expansion' |
//     'lp', exhaustiveLimit?, lpIterations?, labels: Int32Array (N, written) })
//     -> { routine, exact, score, bound, iterations }.
// Synchronous: one call is microseconds to milliseconds. Bad types throw TypeError, bad values RangeError.
#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "binding/common.h"
#include "binding/register.h"
#include "graph/mrf.h"

namespace gapbcfw::binding {

namespace {

namespace g = gapbcfw::graph;

const char* const kRoutineNames[g::kRoutines] = {"tree", "cut", "exhaustive", "expansion", "lp"};

/// options.routine as the InferOptions choice ('auto' when absent).
void ReadRoutine(const Napi::Object& o, const std::string& fn, g::InferOptions& options) {
  if (OptionAbsent(o, "routine")) return;
  const Napi::Value v = o.Get("routine");
  if (!v.IsString()) throw Napi::TypeError::New(o.Env(), fn + ": routine must be a string, got " + DescribeValue(v));
  const std::string name = v.As<Napi::String>().Utf8Value();
  if (name == "auto") return;
  for (int32_t r = 0; r < g::kRoutines; ++r) {
    if (name == kRoutineNames[r]) {
      options.automatic = false;
      options.preferred = static_cast<g::Routine>(r);
      return;
    }
  }
  throw Napi::RangeError::New(o.Env(), fn + ": routine must be auto, tree, cut, exhaustive, expansion or lp, got '" + name + "'");
}

Napi::Value GraphInfer(const Napi::CallbackInfo& info) {
  const std::string fn = "graphInfer";
  const Napi::Env env = info.Env();
  const Napi::Object o = RequireOptions(info, 0, fn);
  const auto unary = OptionTypedArray<double>(o, "unary", fn);
  const std::size_t K = OptionSize(o, "numLabels", fn, 1, 1u << 15);
  const auto from = OptionTypedArray<int32_t>(o, "edgeFrom", fn);
  const auto to = OptionTypedArray<int32_t>(o, "edgeTo", fn);
  const auto tables = OptionTypedArray<double>(o, "tables", fn);
  auto labels = OptionTypedArray<int32_t>(o, "labels", fn);
  const std::size_t N = unary.ElementLength() / K;
  if (N < 1 || N * K != unary.ElementLength() || N > (1u << 30)) throw Napi::RangeError::New(env, fn + ": unary must hold N x numLabels values, N >= 1");
  const std::size_t E = from.ElementLength();
  RequireLength(to, E, fn + ": edgeTo");
  RequireLength(labels, N, fn + ": labels");
  const bool shared = tables.ElementLength() == K * K;
  if (!shared && tables.ElementLength() != E * K * K) {
    throw Napi::RangeError::New(env, fn + ": tables must hold K x K values (one table for every edge) or E x K x K, got " + std::to_string(tables.ElementLength()));
  }
  g::InferOptions options;
  ReadRoutine(o, fn, options);
  if (!OptionAbsent(o, "exhaustiveLimit")) options.exhaustive_limit = static_cast<int64_t>(OptionSize(o, "exhaustiveLimit", fn, 1, std::size_t{1} << 40));
  if (!OptionAbsent(o, "lpIterations")) options.lp_iterations = static_cast<int32_t>(OptionSize(o, "lpIterations", fn, 1, 1u << 30));
  g::Mrf m;
  m.num_nodes = static_cast<int32_t>(N);
  m.num_labels = static_cast<int32_t>(K);
  m.num_edges = static_cast<int32_t>(E);
  m.edge_u = from.Data();
  m.edge_v = to.Data();
  m.unary = unary.Data();
  m.tables = tables.Data();
  m.shared_table = shared;
  const std::string bad = g::check_mrf(m);
  if (!bad.empty()) throw Napi::RangeError::New(env, fn + ": " + bad);
  thread_local g::Workspace workspace;
  g::InferResult r;
  try {
    r = g::infer(m, options, labels.Data(), workspace);
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, fn + ": " + e.what());
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("routine", kRoutineNames[static_cast<int32_t>(r.routine)]);
  out.Set("exact", r.exact);
  out.Set("score", r.score);
  out.Set("bound", r.bound);
  out.Set("iterations", r.iterations);
  return out;
}

}  // namespace

void RegisterGraph(Napi::Env env, Napi::Object exports) { exports.Set("graphInfer", Napi::Function::New(env, GraphInfer)); }

}  // namespace gapbcfw::binding
