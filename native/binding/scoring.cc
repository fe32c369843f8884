// Scoring bindings (native/scoring/rows.h): feature rows prepared once for the native scoring backend of
// kernels/ (NativeBackend), then scored against any W on the thread pool.
#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "binding/common.h"
#include "binding/register.h"
#include "scoring/rows.h"

namespace gapbcfw::binding {

namespace {

// new ScoringRows({ X: Float64Array | Float32Array (rows x cols), rows, cols }): the rows, checked once and
// kept (X must not be transferred while the object is in use). Values are not scanned (the models validate
// their features; a non-finite value gives non-finite scores, never a crash).
// score({ W: Float64Array (K x cols), K, out: Float64Array (rows x K), augLabels?: Int32Array (rows, in
// 0..K-1), augWeight?: Float64Array (rows), threads }): out[n*K + k] = <W_k, X_n>, plus augWeight[n] on every
// k != augLabels[n].
class ScoringRowsWrap : public Napi::ObjectWrap<ScoringRowsWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "ScoringRows", {InstanceMethod<&ScoringRowsWrap::Score>("score")});
  }

  explicit ScoringRowsWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ScoringRowsWrap>(info) {
    const std::string fn = "ScoringRows";
    const Napi::Object o = RequireOptions(info, 0, fn);
    rows_ = OptionSize(o, "rows", fn, 0, std::size_t{1} << 40);
    cols_ = OptionSize(o, "cols", fn, 1, 1u << 30);
    const Napi::Value X = o.Get("X");
    if (X.IsTypedArray() && X.As<Napi::TypedArray>().TypedArrayType() == napi_float32_array) {
      const auto x = TypedArrayValue<float>(X, fn + ": X");
      RequireLength(x, rows_ * cols_, fn + ": X");
      x32_ = pinned_.Pin(x);
    } else {
      const auto x = TypedArrayValue<double>(X, fn + ": X (Float64Array or Float32Array)");
      RequireLength(x, rows_ * cols_, fn + ": X");
      x64_ = pinned_.Pin(x);
    }
  }

  Napi::Value Score(const Napi::CallbackInfo& info) {
    const std::string fn = "ScoringRows.score";
    pinned_.Check(info.Env(), fn);
    const Napi::Object o = RequireOptions(info, 0, fn);
    const std::size_t K = OptionSize(o, "K", fn, 1, 1u << 20);
    const auto W = OptionTypedArray<double>(o, "W", fn);
    RequireLength(W, K * cols_, fn + ": W");
    auto out = OptionTypedArray<double>(o, "out", fn);
    RequireLength(out, rows_ * K, fn + ": out");
    const int32_t* labels = nullptr;
    const double* weight = nullptr;
    if (!OptionAbsent(o, "augLabels")) {
      const auto y = OptionTypedArray<int32_t>(o, "augLabels", fn);
      RequireLength(y, rows_, fn + ": augLabels");
      for (std::size_t n = 0; n < rows_; ++n) {
        if (y[n] < 0 || static_cast<std::size_t>(y[n]) >= K) {
          throw Napi::RangeError::New(info.Env(), fn + ": augLabels[" + std::to_string(n) + "] = " + std::to_string(y[n]) + " is outside 0.." + std::to_string(K - 1));
        }
      }
      const auto a = OptionTypedArray<double>(o, "augWeight", fn);
      RequireLength(a, rows_, fn + ": augWeight");
      labels = y.Data();
      weight = a.Data();
    }
    const int32_t threads = OptionThreads(o, fn);
    const auto N = static_cast<int64_t>(rows_);
    const auto D = static_cast<int32_t>(cols_);
    if (x32_ != nullptr) score_rows(x32_, N, D, W.Data(), static_cast<int32_t>(K), labels, weight, out.Data(), threads);
    else score_rows(x64_, N, D, W.Data(), static_cast<int32_t>(K), labels, weight, out.Data(), threads);
    return info.Env().Undefined();
  }

 private:
  std::size_t rows_ = 0, cols_ = 0;
  const float* x32_ = nullptr;
  const double* x64_ = nullptr;
  PinnedArrays pinned_;
};

}  // namespace

void RegisterScoring(Napi::Env env, Napi::Object exports) { exports.Set("ScoringRows", ScoringRowsWrap::Define(env)); }

}  // namespace gapbcfw::binding
