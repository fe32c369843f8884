// The native step loop of block-coordinate Frank-Wolfe (native/solver/bcfw_loop.h) over a built-in model's prepared
// batch and the TypeScript engine's own state arrays (src/solvers/native-steps.ts): one object per run, made once,
// then runs of block steps (the whole step in C++), and the per-block label stores read and written for checkpoints.
// The arrays are pinned (a detached one is a RangeError, never a read of freed memory); bad settings are TypeErrors or
// RangeErrors; a failing step (an oracle that is not exact, a non-finite gap estimate) is an Error with its reason.
#include <napi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "binding/blocks.h"
#include "binding/common.h"
#include "binding/prepared.h"
#include "binding/register.h"
#include "solver/bcfw_loop.h"

namespace gapbcfw::binding {

namespace {

const char* const kFn = "BcfwSteps";

template <typename T>
T* Shared(Napi::Object o, const char* key, std::size_t length, PinnedArrays& pinned) {
  auto a = OptionTypedArray<T>(o, key, kFn);
  RequireLength(a, length, std::string(kFn) + ": " + key);
  return pinned.PinMutable(a);
}

template <typename T>
T* SharedOptional(Napi::Object o, const char* key, std::size_t length, PinnedArrays& pinned) {
  return OptionAbsent(o, key) ? nullptr : Shared<T>(o, key, length, pinned);
}

int Choice(Napi::Object o, const char* key, std::initializer_list<const char*> names) {
  const Napi::Value v = o.Get(key);
  const std::string s = v.IsString() ? v.As<Napi::String>().Utf8Value() : "";
  int k = 0;
  for (const char* name : names) {
    if (s == name) return k;
    ++k;
  }
  throw Napi::TypeError::New(o.Env(), std::string(kFn) + ": unknown " + key + " '" + s + "'");
}

// The settings of the loop (see LoopSettings), checked.
LoopSettings Settings(Napi::Object o) {
  LoopSettings s;
  s.lambda = OptionFinite(o, "lambda", kFn);
  if (!(s.lambda > 0)) throw Napi::RangeError::New(o.Env(), std::string(kFn) + ": lambda must be > 0");
  s.step = static_cast<StepType>(Choice(o, "step", {"fw", "pairwise", "away", "hybrid", "exact"}));
  s.sampling = static_cast<Sampling>(Choice(o, "sampling", {"uniform", "perm", "gap"}));
  s.gap_degree = OptionFinite(o, "gapDegree", kFn);
  if (!(s.gap_degree > 0)) throw Napi::RangeError::New(o.Env(), std::string(kFn) + ": gapDegree must be > 0");
  s.line_search = OptionBool(o, "lineSearch", kFn, true);
  s.averaging = OptionBool(o, "averaging", kFn, false);
  s.shrinking = OptionBool(o, "shrinking", kFn, false);
  const Napi::Value exit = o.Get("exitBelow");
  if (!exit.IsNumber() || std::isnan(exit.As<Napi::Number>().DoubleValue())) throw Napi::TypeError::New(o.Env(), std::string(kFn) + ": exitBelow must be a number");
  s.exit_below = exit.As<Napi::Number>().DoubleValue();
  s.threads = OptionThreads(o, kFn);
  if (!OptionAbsent(o, "cache")) {
    const Napi::Value c = o.Get("cache");
    if (!c.IsObject()) throw Napi::TypeError::New(o.Env(), std::string(kFn) + ": cache must be an object");
    const Napi::Object co = c.As<Napi::Object>();
    s.cache = true;
    s.cache_factor = OptionFinite(co, "factor", kFn);
    s.cache_nu = OptionFinite(co, "nu", kFn);
    s.cache_max = static_cast<int32_t>(OptionSize(co, "maxSize", kFn, 1, 1u << 30));
  }
  return s;
}

}  // namespace

class BcfwStepsWrap : public Napi::ObjectWrap<BcfwStepsWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "BcfwSteps",
                       {InstanceMethod<&BcfwStepsWrap::Run>("run"), InstanceMethod<&BcfwStepsWrap::Atoms>("atoms"),
                        InstanceMethod<&BcfwStepsWrap::SetAtoms>("setAtoms"),
                        InstanceMethod<&BcfwStepsWrap::Permute>("permute"), InstanceAccessor<&BcfwStepsWrap::StoredLabels>("storedLabels")});
  }

  // new BcfwSteps({ model: a prepared batch, settings (lambda, step, sampling, gapDegree, lineSearch, averaging, cache,
  // exitBelow, threads, chunked), the state arrays (w, wAvg?, lBlocks, scalars, counters, gapEst, estTotals, tree,
  // firstVisit, order, rng, bounds?: { at, lower, upper, vAt }) and the blocks: Float64Array (n x d) | SparseBlocks |
  // classAlpha: Float64Array (n x K) for exact multiclass steps }).
  explicit BcfwStepsWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<BcfwStepsWrap>(info) {
    const Napi::Env env = info.Env();
    const Napi::Object o = RequireOptions(info, 0, kFn);
    const Napi::Value m = o.Get("model");
    prepared_ = ChainStepModel(env, m);
    if (!prepared_.model) prepared_ = MulticlassStepModel(env, m);
    if (!prepared_.model) throw Napi::TypeError::New(env, std::string(kFn) + ": model must be a DenseChainBatch, SparseChainBatch or MulticlassBatch");
    prepared_.pinned->Check(env, kFn);
    refs_.push_back(Napi::Persistent(m.As<Napi::Object>()));
    const LoopSettings settings = Settings(o);
    const LoopArrays arrays = Arrays(o);
    BlockStore* blocks = Blocks(env, o, settings);
    try {
      loop_ = std::make_unique<StepLoop>(*prepared_.model, blocks, settings, arrays);
    } catch (const StepError& e) {
      throw Napi::TypeError::New(env, std::string(kFn) + ": " + e.what());
    }
  }

  // run(from, to) -> { steps, converged }: the steps at pass positions from .. to-1 (see StepLoop::run).
  Napi::Value Run(const Napi::CallbackInfo& info) {
    const Napi::Env env = info.Env();
    RequireArgCount(info, 2, "BcfwSteps.run");
    const auto from = static_cast<int32_t>(RequireSize(info, 0, "BcfwSteps.run: from", static_cast<std::size_t>(n_)));
    const auto to = static_cast<int32_t>(RequireSize(info, 1, "BcfwSteps.run: to", static_cast<std::size_t>(n_)));
    if (to < from) throw Napi::RangeError::New(env, "BcfwSteps.run: to must be >= from");
    prepared_.pinned->Check(env, "BcfwSteps.run");
    pinned_.Check(env, "BcfwSteps.run");
    RunResult r{};
    try {
      r = loop_->run(from, to);
    } catch (const StepError& e) {
      throw Napi::Error::New(env, e.what());
    }
    Napi::Object out = Napi::Object::New(env);
    out.Set("steps", r.steps);
    out.Set("converged", r.converged);
    return out;
  }

  // permute(): a fresh pass order into the order array, from the shared PRNG state (Rng.permutation's draws).
  Napi::Value Permute(const Napi::CallbackInfo& info) {
    pinned_.Check(info.Env(), "BcfwSteps.permute");
    loop_->permute();
    return info.Env().Undefined();
  }

  // atoms() -> { sizes: Int32Array (n), labels: Int32Array (each block's labels in turn, its label length each),
  // alpha, loss: Float64Array, exact: Uint8Array (n) }, or null when the loop keeps no labels.
  Napi::Value Atoms(const Napi::CallbackInfo& info) {
    const Napi::Env env = info.Env();
    if (!loop_->keeps_atoms()) return env.Null();
    const auto& atoms = loop_->atoms();
    std::size_t count = 0, ints = 0;
    for (const auto& A : atoms) {
      count += static_cast<std::size_t>(A.size());
      ints += static_cast<std::size_t>(A.size()) * static_cast<std::size_t>(A.length());
    }
    auto sizes = Napi::Int32Array::New(env, atoms.size());
    auto exact = Napi::Uint8Array::New(env, atoms.size());
    auto labels = Napi::Int32Array::New(env, ints);
    auto alpha = Napi::Float64Array::New(env, count);
    auto loss = Napi::Float64Array::New(env, count);
    std::size_t a = 0, l = 0;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      const BlockAtoms& A = atoms[i];
      sizes[i] = A.size();
      exact[i] = A.exact ? 1 : 0;
      for (int32_t k = 0; k < A.size(); ++k, ++a) {
        for (int32_t t = 0; t < A.length(); ++t) labels[l++] = A.label(k)[t];
        alpha[a] = A.alpha[static_cast<std::size_t>(k)];
        loss[a] = A.loss[static_cast<std::size_t>(k)];
      }
    }
    Napi::Object out = Napi::Object::New(env);
    out.Set("sizes", sizes);
    out.Set("labels", labels);
    out.Set("alpha", alpha);
    out.Set("loss", loss);
    out.Set("exact", exact);
    return out;
  }

  Napi::Value StoredLabels(const Napi::CallbackInfo& info) {
    double s = 0;
    if (loop_->keeps_atoms())
      for (const auto& A : loop_->atoms()) s += A.size();
    return Napi::Number::New(info.Env(), s);
  }

  // setAtoms({ sizes, labels, alpha, loss, exact }) in atoms()'s layout: labels checked against the model's states.
  Napi::Value SetAtoms(const Napi::CallbackInfo& info) {
    const std::string fn = "BcfwSteps.setAtoms";
    const Napi::Object o = RequireOptions(info, 0, fn);
    if (!loop_->keeps_atoms()) throw Napi::Error::New(info.Env(), fn + ": this loop keeps no labels");
    auto& atoms = loop_->atoms();
    const auto sizes = OptionTypedArray<int32_t>(o, "sizes", fn);
    const auto labels = OptionTypedArray<int32_t>(o, "labels", fn);
    const auto alpha = OptionTypedArray<double>(o, "alpha", fn);
    const auto loss = OptionTypedArray<double>(o, "loss", fn);
    const auto exact = OptionTypedArray<uint8_t>(o, "exact", fn);
    RequireLength(sizes, atoms.size(), fn + ": sizes");
    RequireLength(exact, atoms.size(), fn + ": exact");
    std::size_t count = 0, ints = 0;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      if (sizes[i] < 0) throw Napi::RangeError::New(info.Env(), fn + ": sizes must be >= 0");
      count += static_cast<std::size_t>(sizes[i]);
      ints += static_cast<std::size_t>(sizes[i]) * static_cast<std::size_t>(atoms[i].length());
    }
    RequireLength(labels, ints, fn + ": labels");
    RequireLength(alpha, count, fn + ": alpha");
    RequireLength(loss, count, fn + ": loss");
    RequireNoNaN(info.Env(), alpha.Data(), count, fn + ": alpha", false, false);
    RequireNoNaN(info.Env(), loss.Data(), count, fn + ": loss", false, false);
    CheckStates(info.Env(), labels.Data(), ints, fn);
    std::size_t a = 0, l = 0;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      BlockAtoms& A = atoms[i];
      A.clear();
      A.exact = exact[i] != 0;
      for (int32_t k = 0; k < sizes[i]; ++k, ++a, l += static_cast<std::size_t>(A.length())) A.add(labels.Data() + l, loss[a], alpha[a]);
    }
    return info.Env().Undefined();
  }

 private:
  LoopArrays Arrays(Napi::Object o) {
    const BlockModel& model = *prepared_.model;
    n_ = model.n();
    const auto n = static_cast<std::size_t>(n_);
    const auto d = static_cast<std::size_t>(model.dim());
    LoopArrays a;
    a.w = Shared<double>(o, "w", d, pinned_);
    a.w_avg = SharedOptional<double>(o, "wAvg", d, pinned_);
    a.l_blocks = Shared<double>(o, "lBlocks", n, pinned_);
    a.scalars = Shared<double>(o, "scalars", kScalars, pinned_);
    a.counters = Shared<double>(o, "counters", kCounters, pinned_);
    a.gap_est = Shared<double>(o, "gapEst", n, pinned_);
    a.est_totals = Shared<double>(o, "estTotals", kEstimateTotals, pinned_);
    std::size_t size = 1;
    while (size < n) size *= 2;
    a.tree = Shared<double>(o, "tree", 2 * size, pinned_);
    a.tree_size = static_cast<int64_t>(size);
    a.first_visit = Shared<int32_t>(o, "firstVisit", n, pinned_);
    a.order = Shared<int32_t>(o, "order", n, pinned_);
    a.rng = Shared<uint32_t>(o, "rng", 4, pinned_);
    if (!OptionAbsent(o, "bounds")) Bounds(o.Get("bounds"), a, d);
    if (!OptionAbsent(o, "classAlpha")) a.class_alpha = Shared<double>(o, "classAlpha", n * static_cast<std::size_t>(model.states()), pinned_);
    if (!OptionAbsent(o, "stepCosts")) a.step_costs = Shared<double>(o, "stepCosts", 3 * n, pinned_);
    return a;
  }

  void Bounds(Napi::Value v, LoopArrays& a, std::size_t d) {
    if (!v.IsObject()) throw Napi::TypeError::New(v.Env(), std::string(kFn) + ": bounds must be an object");
    const Napi::Object b = v.As<Napi::Object>();
    auto at = OptionTypedArray<int32_t>(b, "at", kFn);
    const std::size_t m = at.ElementLength();
    for (std::size_t k = 0; k < m; ++k) {
      if (at[k] < 0 || static_cast<std::size_t>(at[k]) >= d) throw Napi::RangeError::New(v.Env(), std::string(kFn) + ": bounds.at must hold coordinates of w");
    }
    a.bounded = pinned_.Pin(at);
    a.lower = Shared<double>(b, "lower", m, pinned_);
    a.upper = Shared<double>(b, "upper", m, pinned_);
    a.v_bounded = Shared<double>(b, "vAt", m, pinned_);
    a.bounded_count = static_cast<int64_t>(m);
  }

  // The block storage: dense rows (a Float64Array, n x d) or a SparseBlocks object; none for exact multiclass steps
  // (their blocks are the classes' dual weights, classAlpha).
  BlockStore* Blocks(Napi::Env env, Napi::Object o, const LoopSettings& s) {
    const BlockModel& model = *prepared_.model;
    if (s.step == StepType::kExact) return nullptr;
    const Napi::Value b = o.Get("blocks");
    if (SparseBlockStore* sparse = SparseBlocksOf(env, b)) {
      if (sparse->n() != model.n()) throw Napi::RangeError::New(env, std::string(kFn) + ": the SparseBlocks have another n");
      refs_.push_back(Napi::Persistent(b.As<Napi::Object>()));
      return sparse;
    }
    double* data = Shared<double>(o, "blocks", static_cast<std::size_t>(model.n()) * static_cast<std::size_t>(model.dim()), pinned_);
    dense_ = std::make_unique<DenseBlockStore>(data, model.dim(), OptionBool(o, "chunked", kFn, false), s.threads);
    return dense_.get();
  }

  // Labels hold states of the model.
  void CheckStates(Napi::Env env, const int32_t* labels, std::size_t count, const std::string& fn) const {
    const int32_t K = prepared_.model->states();
    for (std::size_t q = 0; q < count; ++q) {
      if (labels[q] < 0 || labels[q] >= K) throw Napi::RangeError::New(env, fn + ": labels hold states 0.." + std::to_string(K - 1));
    }
  }

  PreparedModel prepared_;
  PinnedArrays pinned_;
  std::vector<Napi::ObjectReference> refs_;
  std::unique_ptr<DenseBlockStore> dense_;
  std::unique_ptr<StepLoop> loop_;
  int32_t n_ = 0;
};

void RegisterSteps(Napi::Env env, Napi::Object exports) { exports.Set("BcfwSteps", BcfwStepsWrap::Define(env)); }

}  // namespace gapbcfw::binding
