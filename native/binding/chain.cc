// Chain bindings (native/scoring/chain.h, batch.h): the per-sequence Viterbi oracle of the linear-chain
// models, and the prepared batches of their batched passes (DenseChainBatch for OCR-type dense features,
// SparseChainBatch for CoNLL-type sparse attributes). A prepared batch holds the sequences, offsets and
// ground truth handed over once (validated once); each method takes an options object and works on any
// subset of the sequences (`items`) at a given w, on the thread pool.
#include <napi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "binding/common.h"
#include "binding/prepared.h"
#include "common/background.h"
#include "binding/register.h"
#include "scoring/batch.h"
#include "scoring/chain.h"
#include "solver/models.h"

namespace gapbcfw::binding {

namespace {

// An Int32Array of `count` labels at `at`, each in 0..K-1 (name[t] in messages).
void RequireStates(const int32_t* y, std::size_t from, std::size_t to, std::size_t K, Napi::Env env, const std::string& name) {
  for (std::size_t t = from; t < to; ++t) {
    if (y[t] < 0 || static_cast<std::size_t>(y[t]) >= K) {
      throw Napi::RangeError::New(env, name + "[" + std::to_string(t) + "] = " + std::to_string(y[t]) + " is outside 0.." + std::to_string(K - 1));
    }
  }
}

Napi::TypedArrayOf<int32_t> RequireLabelArray(const Napi::CallbackInfo& info, std::size_t idx, std::size_t count, std::size_t K, const std::string& name) {
  const auto y = RequireTypedArray<int32_t>(info, idx, name);
  RequireLength(y, count, name);
  RequireStates(y.Data(), 0, count, K, info.Env(), name);
  return y;
}

// ---- per-sequence oracle (positional: a few arguments, called once per block step) -----------------------

// chainDecode(w: Float64Array, D, K, x: Float64Array (T*D), T, yTrue: Int32Array | null, out: Int32Array (T))
// -> score. With yTrue, decodes loss-augmented (normalised Hamming). Synchronous: one call is microseconds.
Napi::Value ChainDecode(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 7, "chainDecode");
  const auto w = RequireTypedArray<double>(info, 0, "chainDecode: w");
  const std::size_t D = RequireSize(info, 1, "chainDecode: D", 1u << 30);
  const std::size_t K = RequireSize(info, 2, "chainDecode: K", 1u << 15);
  const auto x = RequireTypedArray<double>(info, 3, "chainDecode: x");
  const std::size_t T = RequireSize(info, 4, "chainDecode: T", 1u << 30);
  if (D == 0 || K == 0 || T == 0) throw Napi::RangeError::New(info.Env(), "chainDecode: D, K and T must be >= 1");
  RequireLength(w, K * D + 2 * K + K * K, "chainDecode: w");
  RequireLength(x, T * D, "chainDecode: x");
  const int32_t* yTrue = nullptr;
  if (!info[5].IsNull() && !info[5].IsUndefined()) yTrue = RequireLabelArray(info, 5, T, K, "chainDecode: yTrue").Data();
  auto out = RequireTypedArray<int32_t>(info, 6, "chainDecode: out");
  RequireLength(out, T, "chainDecode: out");
  const ChainShape shape{static_cast<int32_t>(D), static_cast<int32_t>(K)};
  return Napi::Number::New(info.Env(), chain_decode(w.Data(), shape, x.Data(), static_cast<int32_t>(T), yTrue, out.Data()));
}

// chainPsi(x, D, K, T, yTrue, y, outIdx: Int32Array, outVal: Float64Array) -> nnz.
// The outputs need room for 2*T*D + 2*T + 4 entries.
Napi::Value ChainPsi(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 8, "chainPsi");
  const auto x = RequireTypedArray<double>(info, 0, "chainPsi: x");
  const std::size_t D = RequireSize(info, 1, "chainPsi: D", 1u << 30);
  const std::size_t K = RequireSize(info, 2, "chainPsi: K", 1u << 15);
  const std::size_t T = RequireSize(info, 3, "chainPsi: T", 1u << 30);
  if (D == 0 || K == 0 || T == 0) throw Napi::RangeError::New(info.Env(), "chainPsi: D, K and T must be >= 1");
  RequireLength(x, T * D, "chainPsi: x");
  const auto yTrue = RequireLabelArray(info, 4, T, K, "chainPsi: yTrue");
  const auto y = RequireLabelArray(info, 5, T, K, "chainPsi: y");
  auto idx = RequireTypedArray<int32_t>(info, 6, "chainPsi: outIdx");
  auto val = RequireTypedArray<double>(info, 7, "chainPsi: outVal");
  const ChainShape shape{static_cast<int32_t>(D), static_cast<int32_t>(K)};
  const auto cap = static_cast<std::size_t>(chain_psi_capacity(shape, static_cast<int32_t>(T)));
  if (idx.ElementLength() < cap || val.ElementLength() < cap) {
    throw Napi::RangeError::New(info.Env(), "chainPsi: outIdx and outVal need room for " + std::to_string(cap) + " entries");
  }
  const int64_t nnz = chain_psi(shape, x.Data(), static_cast<int32_t>(T), yTrue.Data(), y.Data(), idx.Data(), val.Data());
  return Napi::Number::New(info.Env(), static_cast<double>(nnz));
}

// chainNodeScores(w, D, K, x, T, out: Float64Array (T*K)): out[t*K+k] = <w_k, x_t> (+ first/last biases).
Napi::Value ChainNodeScores(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 6, "chainNodeScores");
  const auto w = RequireTypedArray<double>(info, 0, "chainNodeScores: w");
  const std::size_t D = RequireSize(info, 1, "chainNodeScores: D", 1u << 30);
  const std::size_t K = RequireSize(info, 2, "chainNodeScores: K", 1u << 15);
  const auto x = RequireTypedArray<double>(info, 3, "chainNodeScores: x");
  const std::size_t T = RequireSize(info, 4, "chainNodeScores: T", 1u << 30);
  if (D == 0 || K == 0 || T == 0) throw Napi::RangeError::New(info.Env(), "chainNodeScores: D, K and T must be >= 1");
  RequireLength(w, K * D + 2 * K + K * K, "chainNodeScores: w");
  RequireLength(x, T * D, "chainNodeScores: x");
  auto out = RequireTypedArray<double>(info, 5, "chainNodeScores: out");
  if (out.ElementLength() < T * K) throw Napi::RangeError::New(info.Env(), "chainNodeScores: out needs T*K entries");
  const ChainShape shape{static_cast<int32_t>(D), static_cast<int32_t>(K)};
  chain_node_scores(w.Data(), shape, x.Data(), static_cast<int32_t>(T), nullptr, out.Data());
  return info.Env().Undefined();
}

// chainViterbi(theta: Float64Array (T*K), T, K, trans: Float64Array (K*K, prev + K*next), out: Int32Array (T))
// -> score: max-sum over given node scores (numbers or -Infinity), for chain models with their own feature layout.
Napi::Value ChainViterbi(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 5, "chainViterbi");
  const auto theta = RequireTypedArray<double>(info, 0, "chainViterbi: theta");
  const std::size_t T = RequireSize(info, 1, "chainViterbi: T", 1u << 30);
  const std::size_t K = RequireSize(info, 2, "chainViterbi: K", 1u << 15);
  if (K == 0 || T == 0) throw Napi::RangeError::New(info.Env(), "chainViterbi: K and T must be >= 1");
  if (theta.ElementLength() < T * K) throw Napi::RangeError::New(info.Env(), "chainViterbi: theta needs T*K entries");
  const auto trans = RequireTypedArray<double>(info, 3, "chainViterbi: trans");
  RequireLength(trans, K * K, "chainViterbi: trans");
  // -Infinity forbids a state or a transition (constrained chains).
  RequireNoNaN(info.Env(), theta.Data(), T * K, "chainViterbi: theta", true, false);
  RequireNoNaN(info.Env(), trans.Data(), K * K, "chainViterbi: trans", true, false);
  auto out = RequireTypedArray<int32_t>(info, 4, "chainViterbi: out");
  RequireLength(out, T, "chainViterbi: out");
  thread_local std::vector<double> work;
  return Napi::Number::New(info.Env(), chain_viterbi(trans.Data(), static_cast<int32_t>(K), theta.Data(), static_cast<int32_t>(T), out.Data(), work));
}

// ---- prepared batches ---------------------------------------------------------------------------------------

// What both chain batches share: n sequences packed end to end (offsets, n+1 entries, strictly increasing
// from 0), K states, the ground truth of every token, and a w of `dim` entries whose last K*K are the
// transitions. Subclasses add the features and the scoring.
template <class Self>
class ChainBatchWrap : public Napi::ObjectWrap<Self> {
 public:
  explicit ChainBatchWrap(const Napi::CallbackInfo& info, const char* name) : Napi::ObjectWrap<Self>(info), name_(name) {
    const Napi::Object o = RequireOptions(info, 0, name_);
    K_ = OptionSize(o, "numLabels", name_, 1, 1u << 15);
    F_ = OptionSize(o, "numFeatures", name_, 1, std::size_t{1} << 31);
    const auto offsets = OptionTypedArray<int32_t>(o, "offsets", name_);
    if (offsets.ElementLength() < 2 || offsets[0] != 0) throw Napi::RangeError::New(info.Env(), name_ + ": offsets needs n+1 >= 2 entries, the first 0");
    n_ = offsets.ElementLength() - 1;
    for (std::size_t i = 0; i < n_; ++i) {
      if (offsets[i + 1] <= offsets[i]) throw Napi::RangeError::New(info.Env(), name_ + ": offsets must increase (sequence " + std::to_string(i) + " is empty)");
    }
    tokens_ = static_cast<std::size_t>(offsets[n_]);
    const auto truth = OptionTypedArray<int32_t>(o, "truth", name_);
    RequireLength(truth, tokens_, name_ + ": truth");
    RequireStates(truth.Data(), 0, tokens_, K_, info.Env(), name_ + ": truth");
    layout_ = {static_cast<int32_t>(n_), static_cast<int32_t>(K_), pinned_.Pin(offsets), pinned_.Pin(truth)};
    ReadLoss(o, truth.Data());
  }

  static std::vector<typename Napi::ObjectWrap<Self>::PropertyDescriptor> Methods() {
    using Method = Napi::Value (Self::*)(const Napi::CallbackInfo&);
    using W = Napi::ObjectWrap<Self>;
    return {W::InstanceMethod("scores", static_cast<Method>(&Self::Scores)), W::InstanceMethod("viterbi", static_cast<Method>(&Self::Viterbi)),
            W::InstanceMethod("hinges", static_cast<Method>(&Self::Hinges)), W::InstanceAccessor("size", static_cast<Method>(&Self::Size), nullptr)};
  }


  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(n_)); }

  // scores({ w, theta, augmented, items?, count?, threads }): the items' node scores into theta (tokens x K).
  Napi::Value Scores(const Napi::CallbackInfo& info) {
    const std::string fn = name_ + ".scores";
    const Call c = Begin(info, fn);
    auto theta = OptionTypedArray<double>(c.o, "theta", fn);
    RequireLength(theta, tokens_ * K_, fn + ": theta");
    static_cast<Self*>(this)->ScoresOf(c.w, OptionBool(c.o, "augmented", fn, false), theta.Data(), c.items, c.threads);
    return info.Env().Undefined();
  }

  // viterbi({ w, theta, labels, items?, count?, threads }): Viterbi of the items over theta (tokens x K) and
  // w's transitions; labels (Int32Array, tokens) receives the items' states.
  Napi::Value Viterbi(const Napi::CallbackInfo& info) {
    const std::string fn = name_ + ".viterbi";
    const Call c = Begin(info, fn);
    const auto theta = OptionTypedArray<double>(c.o, "theta", fn);
    RequireLength(theta, tokens_ * K_, fn + ": theta");
    auto labels = OptionTypedArray<int32_t>(c.o, "labels", fn);
    RequireLength(labels, tokens_, fn + ": labels");
    chain_viterbi_items(layout_, c.w + Dim() - K_ * K_, theta.Data(), c.items, labels.Data(), c.threads);
    return info.Env().Undefined();
  }

  // hinges({ w, labels, hinge, items?, count?, threads }): hinge[i] = L(y_i, labels_i) - <w, psi_i(labels_i)>
  // in float64 for every item i (the per-object path's arithmetic).
  Napi::Value Hinges(const Napi::CallbackInfo& info) {
    const std::string fn = name_ + ".hinges";
    const Call c = Begin(info, fn);
    const auto labels = OptionTypedArray<int32_t>(c.o, "labels", fn);
    RequireLength(labels, tokens_, fn + ": labels");
    for (int64_t q = 0; q < c.items.count; ++q) {
      const int64_t i = c.items[q];
      RequireStates(labels.Data(), layout_.offsets[i], layout_.offsets[i + 1], K_, info.Env(), fn + ": labels");
    }
    auto hinge = OptionTypedArray<double>(c.o, "hinge", fn);
    RequireLength(hinge, n_, fn + ": hinge");
    static_cast<Self*>(this)->HingesOf(c.w, labels.Data(), hinge.Data(), c.items, c.threads);
    return info.Env().Undefined();
  }

 protected:
  struct Call {
    Napi::Object o;
    const double* w;
    BatchItems items;
    int32_t threads;
  };

  // The options of a call: w (Float64Array of the model's dimension), items/count, threads.
  Call Begin(const Napi::CallbackInfo& info, const std::string& fn) {
    if (ticket_ != 0) throw Napi::Error::New(info.Env(), fn + ": a background decode is in flight (finishBackground first)");
    pinned_.Check(info.Env(), fn);
    const Napi::Object o = RequireOptions(info, 0, fn);
    const auto w = OptionTypedArray<double>(o, "w", fn);
    RequireLength(w, Dim(), fn + ": w");
    const auto [index, count] = OptionItems(o, n_, fn);
    return {o, w.Data(), {index, count}, OptionThreads(o, fn)};
  }

  std::size_t Dim() const { return F_ * K_ + 2 * K_ + K_ * K_; }

  // The options of the loss and the decodes: labelWeights (Float64Array K, finite >= 0: the class weights c_k of
  // the weighted Hamming loss), allowed (Uint8Array K*K, prev + K*next), allowedFirst and allowedLast (Uint8Array
  // K): 0 forbids. Each may be absent.
  void ReadLoss(const Napi::Object& o, const int32_t* truth) {
    if (!OptionAbsent(o, "labelWeights")) {
      const auto c = OptionTypedArray<double>(o, "labelWeights", name_);
      RequireLength(c, K_, name_ + ": labelWeights");
      for (std::size_t k = 0; k < K_; ++k) {
        if (!(c[k] >= 0 && std::isfinite(c[k]))) throw Napi::RangeError::New(o.Env(), name_ + ": labelWeights[" + std::to_string(k) + "] must be finite and >= 0");
      }
      token_weight_.resize(tokens_);
      for (std::size_t t = 0; t < tokens_; ++t) token_weight_[t] = c[static_cast<std::size_t>(truth[t])];
      layout_.weight = token_weight_.data();
    }
    const auto mask = [&](const char* key, std::size_t length, std::vector<uint8_t>& into) -> const uint8_t* {
      if (OptionAbsent(o, key)) return nullptr;
      const auto m = OptionTypedArray<uint8_t>(o, key, name_);
      RequireLength(m, length, name_ + ": " + key);
      into.assign(m.Data(), m.Data() + length);
      return into.data();
    };
    layout_.penalties = {mask("allowed", K_ * K_, allowed_), mask("allowedFirst", K_, allowed_first_), mask("allowedLast", K_, allowed_last_)};
  }


  std::string name_;
  std::size_t n_ = 0, K_ = 0, F_ = 0, tokens_ = 0;
  ChainLayout layout_{};
  std::vector<double> token_weight_;
  std::vector<uint8_t> allowed_, allowed_first_, allowed_last_;
  PinnedArrays pinned_;
  uint64_t ticket_ = 0;  // a subclass's background decode, 0 when none is running (no other call meanwhile)
};

// new DenseChainBatch({ offsets, truth, numLabels, numFeatures: D, features: Float64Array (tokens x D, finite) }).
// scores({ w, theta, augmented, items?, count?, threads }); addBiases({ w, theta, items?, count? });
// viterbi(...); hinges(...). w: the chain model's layout (K*D unary, K first, K last, K*K transitions).
class DenseChainBatchWrap : public ChainBatchWrap<DenseChainBatchWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    auto methods = Methods();
    methods.push_back(InstanceMethod<&DenseChainBatchWrap::AddBiases>("addBiases"));
    methods.push_back(InstanceMethod<&DenseChainBatchWrap::DecodeInBackground>("decodeInBackground"));
    methods.push_back(InstanceMethod<&DenseChainBatchWrap::FinishBackground>("finishBackground"));
    return DefineClass(env, "DenseChainBatch", methods);
  }

  explicit DenseChainBatchWrap(const Napi::CallbackInfo& info) : ChainBatchWrap(info, "DenseChainBatch") {
    const Napi::Object o = info[0].As<Napi::Object>();
    const auto x = OptionTypedArray<double>(o, "features", name_);
    RequireLength(x, tokens_ * F_, name_ + ": features");
    RequireNoNaN(info.Env(), x.Data(), x.ElementLength(), name_ + ": features", false, false);
    unit_.resize(tokens_);
    for (std::size_t i = 0; i < n_; ++i) {
      const int32_t a = layout_.offsets[i], b = layout_.offsets[i + 1];
      for (int32_t t = a; t < b; ++t) unit_[static_cast<std::size_t>(t)] = layout_.token_weight(t) / (b - a);
    }
    batch_ = {layout_, static_cast<int32_t>(F_), pinned_.Pin(x), unit_.data()};
    napi_type_tag_object(info.Env(), info.This(), &kDenseChainTag);
  }

  // The native step loop's model over this batch (binding/steps.cc).
  PreparedModel StepModel() const { return {std::make_unique<DenseChainBlocks>(batch_), &pinned_}; }
  // A background decode never finished is waited for: it reads this object.
  ~DenseChainBatchWrap() override {
    try {
      if (ticket_ != 0) BackgroundQueue::instance().wait(ticket_);
    } catch (...) {
    }
  }

  Napi::Value AddBiases(const Napi::CallbackInfo& info) {
    const std::string fn = name_ + ".addBiases";
    const Call c = Begin(info, fn);
    auto theta = OptionTypedArray<double>(c.o, "theta", fn);
    RequireLength(theta, tokens_ * K_, fn + ": theta");
    batch_.add_biases(c.w, theta.Data(), c.items);
    return info.Env().Undefined();
  }

  void ScoresOf(const double* w, bool augmented, double* theta, BatchItems items, int32_t threads) const {
    batch_.scores(w, augmented, theta, items, threads);
  }

  void HingesOf(const double* w, const int32_t* labels, double* hinge, BatchItems items, int32_t threads) const {
    batch_.hinges(w, labels, hinge, items, threads);
  }

  // decodeInBackground({ w, items?, count?, threads }): the loss-augmented scores, the Viterbi labels, the hinges
  // and the psi = phi(x, y) - phi(x, yhat) of the items at a copy of w, as scores/viterbi/hinges and chainPsi
  // would compute them, on the background queue's thread (up to `threads` threads with the pool's) into
  // buffers of the batch; returns at once, and w may change meanwhile. finishBackground({ labels, hinge,
  // psiIndices, psiValues, psiCounts }) waits, writes the items' labels (tokens) and hinges (n) where hinges
  // and viterbi would, the items' psi one after another (psiCounts[q] entries for item q; the arrays must hold
  // the sum of their chain_psi capacities, 2 T D + 2 T + 4 per item), and returns the milliseconds
  // [scoring, decoding, checking]. No other method may be called in between.
  Napi::Value DecodeInBackground(const Napi::CallbackInfo& info) {
    const std::string fn = name_ + ".decodeInBackground";
    const Call c = Begin(info, fn);
    snapshot_.assign(c.w, c.w + Dim());
    job_items_.resize(static_cast<std::size_t>(c.items.count));
    job_psi_start_.resize(static_cast<std::size_t>(c.items.count) + 1);
    job_psi_nnz_.resize(static_cast<std::size_t>(c.items.count));
    const ChainShape shape{static_cast<int32_t>(F_), static_cast<int32_t>(K_)};
    int64_t capacity = 0;
    for (int64_t q = 0; q < c.items.count; ++q) {
      const int32_t i = static_cast<int32_t>(c.items[q]);
      job_items_[static_cast<std::size_t>(q)] = i;
      job_psi_start_[static_cast<std::size_t>(q)] = capacity;
      capacity += chain_psi_capacity(shape, layout_.offsets[i + 1] - layout_.offsets[i]);
    }
    job_psi_start_.back() = capacity;
    job_psi_idx_.resize(static_cast<std::size_t>(capacity));
    job_psi_val_.resize(static_cast<std::size_t>(capacity));
    job_theta_.resize(tokens_ * K_);
    job_labels_.resize(tokens_);
    job_hinge_.resize(n_);
    const BatchItems items{job_items_.data(), c.items.count};
    const int32_t threads = c.threads;
    ticket_ = BackgroundQueue::instance().submit([this, items, threads, shape] {
      using Clock = std::chrono::steady_clock;
      const double* w = snapshot_.data();
      const auto t0 = Clock::now();
      batch_.scores(w, true, job_theta_.data(), items, threads);
      const auto t1 = Clock::now();
      chain_viterbi_items(layout_, w + Dim() - K_ * K_, job_theta_.data(), items, job_labels_.data(), threads);
      const auto t2 = Clock::now();
      batch_.hinges(w, job_labels_.data(), job_hinge_.data(), items, threads);
      for (int64_t q = 0; q < items.count; ++q) {
        const int32_t first = layout_.offsets[items.index[q]], T = layout_.offsets[items.index[q] + 1] - first;
        const auto at = static_cast<std::size_t>(job_psi_start_[static_cast<std::size_t>(q)]);
        job_psi_nnz_[static_cast<std::size_t>(q)] = chain_psi(shape, batch_.x + static_cast<std::size_t>(first) * F_, T, layout_.truth + first,
                                                              job_labels_.data() + first, job_psi_idx_.data() + at, job_psi_val_.data() + at);
      }
      const auto t3 = Clock::now();
      const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
      job_ms_[0] = ms(t0, t1);
      job_ms_[1] = ms(t1, t2);
      job_ms_[2] = ms(t2, t3);
    });
    return info.Env().Undefined();
  }

  Napi::Value FinishBackground(const Napi::CallbackInfo& info) {
    const std::string fn = name_ + ".finishBackground";
    if (ticket_ == 0) throw Napi::Error::New(info.Env(), fn + ": no background decode was started");
    const Napi::Object o = RequireOptions(info, 0, fn);
    auto labels = OptionTypedArray<int32_t>(o, "labels", fn);
    RequireLength(labels, tokens_, fn + ": labels");
    auto hinge = OptionTypedArray<double>(o, "hinge", fn);
    RequireLength(hinge, n_, fn + ": hinge");
    auto psiIndices = OptionTypedArray<int32_t>(o, "psiIndices", fn);
    auto psiValues = OptionTypedArray<double>(o, "psiValues", fn);
    auto psiCounts = OptionTypedArray<int32_t>(o, "psiCounts", fn);
    const auto capacity = static_cast<std::size_t>(job_psi_start_.back());
    if (psiIndices.ElementLength() < capacity || psiValues.ElementLength() < capacity) {
      throw Napi::RangeError::New(info.Env(), fn + ": psiIndices and psiValues need " + std::to_string(capacity) + " entries");
    }
    if (psiCounts.ElementLength() < job_items_.size()) throw Napi::RangeError::New(info.Env(), fn + ": psiCounts needs an entry per item");
    const uint64_t ticket = std::exchange(ticket_, 0);
    try {
      BackgroundQueue::instance().wait(ticket);
    } catch (const std::exception& e) {
      throw Napi::Error::New(info.Env(), fn + ": " + e.what());
    }
    std::size_t out = 0;
    for (std::size_t q = 0; q < job_items_.size(); ++q) {
      const int32_t i = job_items_[q];
      for (int32_t t = layout_.offsets[i]; t < layout_.offsets[i + 1]; ++t) labels[static_cast<std::size_t>(t)] = job_labels_[static_cast<std::size_t>(t)];
      hinge[static_cast<std::size_t>(i)] = job_hinge_[static_cast<std::size_t>(i)];
      const auto at = static_cast<std::size_t>(job_psi_start_[q]);
      const auto nnz = static_cast<std::size_t>(job_psi_nnz_[q]);
      std::copy(job_psi_idx_.begin() + at, job_psi_idx_.begin() + at + nnz, psiIndices.Data() + out);
      std::copy(job_psi_val_.begin() + at, job_psi_val_.begin() + at + nnz, psiValues.Data() + out);
      psiCounts[q] = static_cast<int32_t>(nnz);
      out += nnz;
    }
    Napi::Array ms = Napi::Array::New(info.Env(), 3);
    for (uint32_t k = 0; k < 3; ++k) ms.Set(k, Napi::Number::New(info.Env(), job_ms_[k]));
    return ms;
  }
 private:
  std::vector<double> unit_;
  DenseChainBatch batch_{};
  // The background decode: its copy of w, its items, the buffers it writes (the batch's layout) and its psi
  // (item q's at job_psi_start_[q], job_psi_nnz_[q] entries).
  std::vector<double> snapshot_, job_theta_, job_hinge_, job_psi_val_;
  std::vector<int32_t> job_items_, job_labels_, job_psi_idx_;
  std::vector<int64_t> job_psi_start_, job_psi_nnz_;
  double job_ms_[3] = {0, 0, 0};
};

// new SparseChainBatch({ offsets, truth, numLabels, numFeatures: F, rowOffsets: Int32Array (tokens+1),
// ids: Int32Array (each in 0..F-1), values?: Float64Array (finite) | null }). scores/viterbi/hinges as above;
// w: feature-major unary weights w[f*K + k], then K first, K last, K*K transitions.
class SparseChainBatchWrap : public ChainBatchWrap<SparseChainBatchWrap> {
 public:
  static Napi::Function Define(Napi::Env env) { return DefineClass(env, "SparseChainBatch", Methods()); }

  explicit SparseChainBatchWrap(const Napi::CallbackInfo& info) : ChainBatchWrap(info, "SparseChainBatch") {
    const Napi::Object o = info[0].As<Napi::Object>();
    const auto rows = OptionTypedArray<int32_t>(o, "rowOffsets", name_);
    RequireLength(rows, tokens_ + 1, name_ + ": rowOffsets");
    const auto ids = OptionTypedArray<int32_t>(o, "ids", name_);
    if (rows[0] != 0 || static_cast<std::size_t>(rows[tokens_]) != ids.ElementLength()) {
      throw Napi::RangeError::New(info.Env(), name_ + ": rowOffsets must start at 0 and end at ids.length");
    }
    for (std::size_t t = 0; t < tokens_; ++t) {
      if (rows[t + 1] < rows[t]) throw Napi::RangeError::New(info.Env(), name_ + ": rowOffsets must not decrease");
    }
    for (std::size_t j = 0; j < ids.ElementLength(); ++j) {
      if (ids[j] < 0 || static_cast<std::size_t>(ids[j]) >= F_) {
        throw Napi::RangeError::New(info.Env(), name_ + ": ids[" + std::to_string(j) + "] = " + std::to_string(ids[j]) + " is outside 0.." + std::to_string(F_ - 1));
      }
    }
    const double* values = nullptr;
    if (!OptionAbsent(o, "values")) {
      const auto v = OptionTypedArray<double>(o, "values", name_);
      RequireLength(v, ids.ElementLength(), name_ + ": values");
      RequireNoNaN(info.Env(), v.Data(), v.ElementLength(), name_ + ": values", false, false);
      values = pinned_.Pin(v);
    }
    batch_ = {layout_, static_cast<int32_t>(F_), pinned_.Pin(rows), pinned_.Pin(ids), values};
    napi_type_tag_object(info.Env(), info.This(), &kSparseChainTag);
  }

  // The native step loop's model over this batch (binding/steps.cc).
  PreparedModel StepModel() const { return {std::make_unique<SparseChainBlocks>(batch_), &pinned_}; }

  void ScoresOf(const double* w, bool augmented, double* theta, BatchItems items, int32_t threads) const {
    batch_.scores(w, augmented, theta, items, threads);
  }

  void HingesOf(const double* w, const int32_t* labels, double* hinge, BatchItems items, int32_t threads) const {
    batch_.hinges(w, labels, hinge, items, threads);
  }

 private:
  SparseChainBatch batch_{};
};

}  // namespace

PreparedModel ChainStepModel(Napi::Env env, Napi::Value v) {
  if (HasTag(env, v, kDenseChainTag)) return DenseChainBatchWrap::Unwrap(v.As<Napi::Object>())->StepModel();
  if (HasTag(env, v, kSparseChainTag)) return SparseChainBatchWrap::Unwrap(v.As<Napi::Object>())->StepModel();
  return {};
}

void RegisterChain(Napi::Env env, Napi::Object exports) {
  exports.Set("chainDecode", Napi::Function::New(env, ChainDecode, "chainDecode"));
  exports.Set("chainViterbi", Napi::Function::New(env, ChainViterbi, "chainViterbi"));
  exports.Set("chainNodeScores", Napi::Function::New(env, ChainNodeScores, "chainNodeScores"));
  exports.Set("chainPsi", Napi::Function::New(env, ChainPsi, "chainPsi"));
  exports.Set("DenseChainBatch", DenseChainBatchWrap::Define(env));
  exports.Set("SparseChainBatch", SparseChainBatchWrap::Define(env));
}

}  // namespace gapbcfw::binding
