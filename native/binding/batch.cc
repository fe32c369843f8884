// Prepared batches of the multiclass and segmentation models (native/scoring/batch.h, segmentation.h): the
// examples are handed over once (validated once, kept by reference); each method takes an options object
// and works on any subset of the examples (`items`) at a given w, on the thread pool. Chain batches live in
// binding/chain.cc.
#include <napi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "binding/common.h"
#include "binding/prepared.h"
#include "binding/register.h"
#include "scoring/batch.h"
#include "scoring/segmentation.h"
#include "solver/models.h"

namespace gapbcfw::binding {

namespace {

// new MulticlassBatch({ rowOffsets: Int32Array (rows+1), ids: Int32Array (in 0..F-1), values: Float64Array
// (finite), truth: Int32Array (rows, in 0..K-1), numFeatures: F, numLabels: K }).
// scores({ w, scores: Float64Array (rows x K), augmented, items?, count?, threads });
// argmax({ scores, labels: Int32Array (rows), items?, count? }); hinges({ w, labels, hinge, items?, count?, threads }).
// w is class-major (K x F).
class MulticlassBatchWrap : public Napi::ObjectWrap<MulticlassBatchWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "MulticlassBatch",
                       {InstanceMethod<&MulticlassBatchWrap::Scores>("scores"), InstanceMethod<&MulticlassBatchWrap::Argmax>("argmax"),
                        InstanceMethod<&MulticlassBatchWrap::Hinges>("hinges"), InstanceMethod<&MulticlassBatchWrap::DualDots>("dualDots"),
                        InstanceMethod<&MulticlassBatchWrap::DualSum>("dualSum"), InstanceAccessor<&MulticlassBatchWrap::Size>("size"),
                        InstanceAccessor<&MulticlassBatchWrap::NumLabels>("numLabels")});
  }

  explicit MulticlassBatchWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MulticlassBatchWrap>(info) {
    const std::string fn = "MulticlassBatch";
    const Napi::Object o = RequireOptions(info, 0, fn);
    const std::size_t F = OptionSize(o, "numFeatures", fn, 1, std::size_t{1} << 31);
    const std::size_t K = OptionSize(o, "numLabels", fn, 2, 1u << 15);
    if (F * K > (std::size_t{1} << 31) - 1) throw Napi::RangeError::New(info.Env(), fn + ": numFeatures x numLabels exceeds the int32 index range");
    const auto offsets = OptionTypedArray<int32_t>(o, "rowOffsets", fn);
    if (offsets.ElementLength() < 1 || offsets[0] != 0) throw Napi::RangeError::New(info.Env(), fn + ": rowOffsets needs rows+1 entries, the first 0");
    const std::size_t rows = offsets.ElementLength() - 1;
    const auto ids = OptionTypedArray<int32_t>(o, "ids", fn);
    const auto values = OptionTypedArray<double>(o, "values", fn);
    if (static_cast<std::size_t>(offsets[rows]) != ids.ElementLength()) throw Napi::RangeError::New(info.Env(), fn + ": rowOffsets must end at ids.length");
    RequireLength(values, ids.ElementLength(), fn + ": values");
    RequireNoNaN(info.Env(), values.Data(), values.ElementLength(), fn + ": values", false, false);
    const auto truth = OptionTypedArray<int32_t>(o, "truth", fn);
    RequireLength(truth, rows, fn + ": truth");
    // Ranges, and whether every row lists distinct features (a stamp per feature: the last row that used it).
    std::vector<int64_t> stamp(F, -1);
    bool distinct = true;
    for (std::size_t r = 0; r < rows; ++r) {
      if (offsets[r + 1] < offsets[r]) throw Napi::RangeError::New(info.Env(), fn + ": rowOffsets must not decrease");
      if (truth[r] < 0 || static_cast<std::size_t>(truth[r]) >= K) {
        throw Napi::RangeError::New(info.Env(), fn + ": truth[" + std::to_string(r) + "] = " + std::to_string(truth[r]) + " is outside 0.." + std::to_string(K - 1));
      }
      for (int32_t j = offsets[r]; j < offsets[r + 1]; ++j) {
        if (ids[j] < 0 || static_cast<std::size_t>(ids[j]) >= F) {
          throw Napi::RangeError::New(info.Env(), fn + ": ids[" + std::to_string(j) + "] = " + std::to_string(ids[j]) + " is outside 0.." + std::to_string(F - 1));
        }
        distinct = distinct && stamp[ids[j]] != static_cast<int64_t>(r);
        stamp[ids[j]] = static_cast<int64_t>(r);
      }
    }
    batch_ = {static_cast<int32_t>(rows), static_cast<int32_t>(F), static_cast<int32_t>(K), pinned_.Pin(offsets), pinned_.Pin(ids),
              pinned_.Pin(values), pinned_.Pin(truth), distinct};
    napi_type_tag_object(info.Env(), info.This(), &kMulticlassTag);
  }

  // The native step loop's model over this batch (binding/steps.cc).
  PreparedModel StepModel() const { return {std::make_unique<MulticlassBlocks>(batch_), &pinned_}; }

  // dualDots({ alpha: Float64Array (rows x K), scale, w, out: Float64Array (rows), items?, count?, threads }): out[r] =
  // <w_r, w> for the items' rows and the blocks w_r = (e_{y_r} - alpha_r) (x) x_r * scale of exact steps;
  // dualSum({ alpha, scale, w }): w = sum_r w_r.
  Napi::Value DualDots(const Napi::CallbackInfo& info) {
    const std::string fn = "MulticlassBatch.dualDots";
    const Call c = Begin(info, fn, true);
    const auto alpha = OptionTypedArray<double>(c.o, "alpha", fn);
    RequireLength(alpha, Rows() * batch_.K, fn + ": alpha");
    auto out = OptionTypedArray<double>(c.o, "out", fn);
    RequireLength(out, Rows(), fn + ": out");
    batch_.dual_dots(alpha.Data(), OptionFinite(c.o, "scale", fn), c.w, out.Data(), c.items, c.threads);
    return info.Env().Undefined();
  }

  Napi::Value DualSum(const Napi::CallbackInfo& info) {
    const std::string fn = "MulticlassBatch.dualSum";
    pinned_.Check(info.Env(), fn);
    const Napi::Object o = RequireOptions(info, 0, fn);
    const auto alpha = OptionTypedArray<double>(o, "alpha", fn);
    RequireLength(alpha, Rows() * batch_.K, fn + ": alpha");
    auto w = OptionTypedArray<double>(o, "w", fn);
    RequireLength(w, static_cast<std::size_t>(batch_.F) * batch_.K, fn + ": w");
    RequireDisjoint(alpha, fn + ": alpha", w, fn + ": w");
    batch_.dual_sum(alpha.Data(), OptionFinite(o, "scale", fn), w.Data());
    return info.Env().Undefined();
  }

  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), batch_.rows); }
  Napi::Value NumLabels(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), batch_.K); }

  Napi::Value Scores(const Napi::CallbackInfo& info) {
    const std::string fn = "MulticlassBatch.scores";
    const Call c = Begin(info, fn, true);
    auto scores = OptionTypedArray<double>(c.o, "scores", fn);
    RequireLength(scores, Rows() * batch_.K, fn + ": scores");
    batch_.scores(c.w, OptionBool(c.o, "augmented", fn, false), scores.Data(), c.items, c.threads);
    return info.Env().Undefined();
  }

  Napi::Value Argmax(const Napi::CallbackInfo& info) {
    const std::string fn = "MulticlassBatch.argmax";
    const Call c = Begin(info, fn, false);
    const auto scores = OptionTypedArray<double>(c.o, "scores", fn);
    RequireLength(scores, Rows() * batch_.K, fn + ": scores");
    auto labels = OptionTypedArray<int32_t>(c.o, "labels", fn);
    RequireLength(labels, Rows(), fn + ": labels");
    batch_.argmax(scores.Data(), labels.Data(), c.items);
    return info.Env().Undefined();
  }

  Napi::Value Hinges(const Napi::CallbackInfo& info) {
    const std::string fn = "MulticlassBatch.hinges";
    const Call c = Begin(info, fn, true);
    const auto labels = OptionTypedArray<int32_t>(c.o, "labels", fn);
    RequireLength(labels, Rows(), fn + ": labels");
    for (int64_t q = 0; q < c.items.count; ++q) {
      const int32_t y = labels[static_cast<std::size_t>(c.items[q])];
      if (y < 0 || y >= batch_.K) {
        throw Napi::RangeError::New(info.Env(), fn + ": labels[" + std::to_string(c.items[q]) + "] = " + std::to_string(y) + " is outside 0.." + std::to_string(batch_.K - 1));
      }
    }
    auto hinge = OptionTypedArray<double>(c.o, "hinge", fn);
    RequireLength(hinge, Rows(), fn + ": hinge");
    batch_.hinges(c.w, labels.Data(), hinge.Data(), c.items, c.threads);
    return info.Env().Undefined();
  }

 private:
  struct Call {
    Napi::Object o;
    const double* w;
    BatchItems items;
    int32_t threads;
  };

  Call Begin(const Napi::CallbackInfo& info, const std::string& fn, bool needsW) {
    pinned_.Check(info.Env(), fn);
    const Napi::Object o = RequireOptions(info, 0, fn);
    const double* w = nullptr;
    if (needsW) {
      const auto wa = OptionTypedArray<double>(o, "w", fn);
      RequireLength(wa, static_cast<std::size_t>(batch_.F) * batch_.K, fn + ": w");
      w = wa.Data();
    }
    const auto [index, count] = OptionItems(o, Rows(), fn);
    return {o, w, {index, count}, OptionThreads(o, fn)};
  }

  std::size_t Rows() const { return static_cast<std::size_t>(batch_.rows); }

  MulticlassBatch batch_{};
  PinnedArrays pinned_;
};

// new SegmentationBatch({ dUnary, dPairwise, images: [{ unary: Float32Array (N x dU), pairwise: Float32Array
// (E x dP), edgeFrom, edgeTo: Int32Array (E, in 0..N-1), truth: Uint8Array (N, 0/1), lossWeights: Float64Array
// (N), source, sink: Float64Array (N), potts: Float64Array (E) }] }): features finite, checked once.
// capacities({ w, augmented, items?, count?, threads }) -> clipped Potts weights: writes each item's cut
// capacities into its source/sink/potts arrays. psiDots({ w, labels: Uint8Array[] (one per image; the
// items' entries are read), dots: Float64Array (n), items?, count?, threads }): dots[i] = <w, psi_i(labels[i])>.
// release(): lets go of the arrays at once (later calls throw).
class SegmentationBatchWrap : public Napi::ObjectWrap<SegmentationBatchWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "SegmentationBatch",
                       {InstanceMethod<&SegmentationBatchWrap::Capacities>("capacities"), InstanceMethod<&SegmentationBatchWrap::PsiDots>("psiDots"),
                        InstanceMethod<&SegmentationBatchWrap::Release>("release"), InstanceAccessor<&SegmentationBatchWrap::Size>("size")});
  }

  explicit SegmentationBatchWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SegmentationBatchWrap>(info) {
    const std::string fn = "SegmentationBatch";
    const Napi::Object o = RequireOptions(info, 0, fn);
    const std::size_t dU = OptionSize(o, "dUnary", fn, 1, 1u << 24);
    const std::size_t dP = OptionSize(o, "dPairwise", fn, 1, 1u << 24);
    const Napi::Value list = o.Get("images");
    if (!list.IsArray()) throw Napi::TypeError::New(info.Env(), fn + ": images must be an array, got " + DescribeValue(list));
    const auto arr = list.As<Napi::Array>();
    images_.resize(arr.Length());
    for (uint32_t k = 0; k < arr.Length(); ++k) images_[k] = Image(arr.Get(k), dU, dP, fn + ": images[" + std::to_string(k) + "]");
    batch_ = {images_.data(), static_cast<int32_t>(images_.size()), static_cast<int32_t>(dU), static_cast<int32_t>(dP)};
  }

  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(images_.size())); }

  // release(): lets go of the images' arrays now (later calls throw); idempotent.
  Napi::Value Release(const Napi::CallbackInfo& info) {
    released_ = true;
    pinned_.Release();
    images_.clear();
    labels_.clear();
    batch_ = {};
    return info.Env().Undefined();
  }

  Napi::Value Capacities(const Napi::CallbackInfo& info) {
    const std::string fn = "SegmentationBatch.capacities";
    const Call c = Begin(info, fn);
    const int64_t clipped = batch_.capacities(c.w, OptionBool(c.o, "augmented", fn, false), c.items, c.threads);
    return Napi::Number::New(info.Env(), static_cast<double>(clipped));
  }

  Napi::Value PsiDots(const Napi::CallbackInfo& info) {
    const std::string fn = "SegmentationBatch.psiDots";
    const Call c = Begin(info, fn);
    const Napi::Value list = c.o.Get("labels");
    if (!list.IsArray() || list.As<Napi::Array>().Length() != images_.size()) {
      throw Napi::TypeError::New(info.Env(), fn + ": labels must be an array of " + std::to_string(images_.size()) + " Uint8Arrays");
    }
    const auto arr = list.As<Napi::Array>();
    labels_.assign(images_.size(), nullptr);
    for (int64_t q = 0; q < c.items.count; ++q) {
      const auto k = static_cast<uint32_t>(c.items[q]);
      const auto y = TypedArrayValue<uint8_t>(arr.Get(k), fn + ": labels[" + std::to_string(k) + "]");
      RequireLength(y, static_cast<std::size_t>(images_[k].N), fn + ": labels[" + std::to_string(k) + "]");
      for (std::size_t i = 0; i < y.ElementLength(); ++i) {
        if (y[i] > 1) throw Napi::RangeError::New(info.Env(), fn + ": labels[" + std::to_string(k) + "] must be 0 or 1");
      }
      labels_[k] = y.Data();
    }
    auto dots = OptionTypedArray<double>(c.o, "dots", fn);
    RequireLength(dots, images_.size(), fn + ": dots");
    batch_.psi_dots(c.w, labels_.data(), dots.Data(), c.items, c.threads);
    return info.Env().Undefined();
  }

 private:
  struct Call {
    Napi::Object o;
    const double* w;
    BatchItems items;
    int32_t threads;
  };

  Call Begin(const Napi::CallbackInfo& info, const std::string& fn) {
    if (released_) throw Napi::Error::New(info.Env(), fn + ": the batch was released");
    pinned_.Check(info.Env(), fn);
    const Napi::Object o = RequireOptions(info, 0, fn);
    const auto w = OptionTypedArray<double>(o, "w", fn);
    RequireLength(w, static_cast<std::size_t>(batch_.dU + batch_.dP), fn + ": w");
    const auto [index, count] = OptionItems(o, images_.size(), fn);
    return {o, w.Data(), {index, count}, OptionThreads(o, fn)};
  }

  // One image's arrays, checked (shapes, node ids, labels, finite features) and pinned.
  SegmentationBatchImage Image(const Napi::Value& v, std::size_t dU, std::size_t dP, const std::string& where) {
    if (!v.IsObject()) throw Napi::TypeError::New(v.Env(), where + " must be an object, got " + DescribeValue(v));
    const Napi::Object o = v.As<Napi::Object>();
    const auto truth = OptionTypedArray<uint8_t>(o, "truth", where);
    const std::size_t N = truth.ElementLength();
    const auto from = OptionTypedArray<int32_t>(o, "edgeFrom", where);
    const auto to = OptionTypedArray<int32_t>(o, "edgeTo", where);
    const std::size_t E = from.ElementLength();
    RequireLength(to, E, where + ": edgeTo");
    const auto unary = OptionTypedArray<float>(o, "unary", where);
    RequireLength(unary, N * dU, where + ": unary");
    const auto pairwise = OptionTypedArray<float>(o, "pairwise", where);
    RequireLength(pairwise, E * dP, where + ": pairwise");
    const auto lossWeights = OptionTypedArray<double>(o, "lossWeights", where);
    RequireLength(lossWeights, N, where + ": lossWeights");
    RequireNoNaN(v.Env(), lossWeights.Data(), N, where + ": lossWeights", false, false);
    auto source = OptionTypedArray<double>(o, "source", where);
    auto sink = OptionTypedArray<double>(o, "sink", where);
    auto potts = OptionTypedArray<double>(o, "potts", where);
    RequireLength(source, N, where + ": source");
    RequireLength(sink, N, where + ": sink");
    RequireLength(potts, E, where + ": potts");
    for (std::size_t i = 0; i < N; ++i) {
      if (truth[i] > 1) throw Napi::RangeError::New(v.Env(), where + ": truth must be 0 or 1");
    }
    for (std::size_t e = 0; e < E; ++e) {
      if (from[e] < 0 || to[e] < 0 || static_cast<std::size_t>(from[e]) >= N || static_cast<std::size_t>(to[e]) >= N) {
        throw Napi::RangeError::New(v.Env(), where + ": edge " + std::to_string(e) + " has an end outside 0.." + std::to_string(N - 1));
      }
    }
    for (const auto& f : {unary, pairwise}) {
      for (std::size_t j = 0; j < f.ElementLength(); ++j) {
        if (!std::isfinite(f[j])) throw Napi::RangeError::New(v.Env(), where + ": feature " + std::to_string(j) + " is " + FormatNumber(f[j]));
      }
    }
    return {static_cast<int32_t>(N), static_cast<int32_t>(E), pinned_.Pin(unary), pinned_.Pin(pairwise), pinned_.Pin(from), pinned_.Pin(to),
            pinned_.Pin(truth), pinned_.Pin(lossWeights), pinned_.PinMutable(source), pinned_.PinMutable(sink), pinned_.PinMutable(potts)};
  }

  std::vector<SegmentationBatchImage> images_;
  std::vector<const uint8_t*> labels_;
  SegmentationBatch batch_{};
  PinnedArrays pinned_;
  bool released_ = false;
};

}  // namespace

PreparedModel MulticlassStepModel(Napi::Env env, Napi::Value v) {
  if (HasTag(env, v, kMulticlassTag)) return MulticlassBatchWrap::Unwrap(v.As<Napi::Object>())->StepModel();
  return {};
}

void RegisterBatch(Napi::Env env, Napi::Object exports) {
  exports.Set("MulticlassBatch", MulticlassBatchWrap::Define(env));
  exports.Set("SegmentationBatch", SegmentationBatchWrap::Define(env));
}

}  // namespace gapbcfw::binding
