// The only file that includes napi.h: thin Node-API bindings over the plain C++ cores in native/*/.
// Typed arrays cross the boundary zero-copy; every argument is validated here and bad input throws a
// JS TypeError/RangeError instead of reaching the cores.
//
// Layout: (1) shared argument-validation helpers, reusable by every section; (2) one clearly
// delimited section per core (each with its own Register function); (3) Init.
#include <napi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <string>

#include "gdt/gdt.h"
#include "scoring/chain.h"
#include "solver/block_update.h"

namespace {

Napi::Value Version(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), "1");
}

// =====================================================================================================
// (1) Shared argument validation helpers.
//     Convention: a wrong JS type throws Napi::TypeError; a value of the right type but out of range
//     (length mismatch, NaN, negative coefficient...) throws Napi::RangeError. `name` is the full
//     label used in messages, e.g. "gdt1d: f".
// =====================================================================================================

/// Maps a C++ element type to its JS typed-array kind and name.
template <typename T>
struct TypedArrayKind;
template <>
struct TypedArrayKind<double> {
  static constexpr napi_typedarray_type kType = napi_float64_array;
  static constexpr const char* kName = "Float64Array";
};
template <>
struct TypedArrayKind<float> {
  static constexpr napi_typedarray_type kType = napi_float32_array;
  static constexpr const char* kName = "Float32Array";
};
template <>
struct TypedArrayKind<std::int32_t> {
  static constexpr napi_typedarray_type kType = napi_int32_array;
  static constexpr const char* kName = "Int32Array";
};
template <>
struct TypedArrayKind<std::uint32_t> {
  static constexpr napi_typedarray_type kType = napi_uint32_array;
  static constexpr const char* kName = "Uint32Array";
};
template <>
struct TypedArrayKind<std::int16_t> {
  static constexpr napi_typedarray_type kType = napi_int16_array;
  static constexpr const char* kName = "Int16Array";
};
template <>
struct TypedArrayKind<std::uint16_t> {
  static constexpr napi_typedarray_type kType = napi_uint16_array;
  static constexpr const char* kName = "Uint16Array";
};
template <>
struct TypedArrayKind<std::int8_t> {
  static constexpr napi_typedarray_type kType = napi_int8_array;
  static constexpr const char* kName = "Int8Array";
};
template <>
struct TypedArrayKind<std::uint8_t> {  // plain Uint8Array (not Uint8ClampedArray)
  static constexpr napi_typedarray_type kType = napi_uint8_array;
  static constexpr const char* kName = "Uint8Array";
};

const char* TypedArrayTypeName(napi_typedarray_type t) {
  switch (t) {
    case napi_int8_array: return "Int8Array";
    case napi_uint8_array: return "Uint8Array";
    case napi_uint8_clamped_array: return "Uint8ClampedArray";
    case napi_int16_array: return "Int16Array";
    case napi_uint16_array: return "Uint16Array";
    case napi_int32_array: return "Int32Array";
    case napi_uint32_array: return "Uint32Array";
    case napi_float32_array: return "Float32Array";
    case napi_float64_array: return "Float64Array";
    case napi_bigint64_array: return "BigInt64Array";
    case napi_biguint64_array: return "BigUint64Array";
    default: return "typed array";
  }
}

/// Short description of a JS value's type for error messages ("Float32Array", "number", "null"...).
std::string DescribeValue(const Napi::Value& v) {
  if (v.IsUndefined()) return "undefined";
  if (v.IsNull()) return "null";
  if (v.IsBoolean()) return "boolean";
  if (v.IsNumber()) return "number";
  if (v.IsString()) return "string";
  if (v.IsTypedArray()) return TypedArrayTypeName(v.As<Napi::TypedArray>().TypedArrayType());
  if (v.IsArrayBuffer()) return "ArrayBuffer";
  if (v.IsDataView()) return "DataView";
  if (v.IsArray()) return "Array";
  if (v.IsFunction()) return "function";
  if (v.IsObject()) return "object";
  return "value of unknown type";
}

std::string FormatNumber(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

/// Throws a TypeError unless at least `count` arguments were passed.
void RequireArgCount(const Napi::CallbackInfo& info, std::size_t count, const char* fn) {
  if (info.Length() < count) {
    throw Napi::TypeError::New(info.Env(), std::string(fn) + ": expected " + std::to_string(count) +
                                               " arguments, got " + std::to_string(info.Length()));
  }
}

/// Returns info[idx] as a typed array of element type T (zero-copy), or throws a TypeError naming the
/// expected and the actual type. `.As<>()` alone is an unchecked cast, hence this helper.
template <typename T>
Napi::TypedArrayOf<T> RequireTypedArray(const Napi::CallbackInfo& info, std::size_t idx,
                                        const std::string& name) {
  const Napi::Value v = info[idx];
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != TypedArrayKind<T>::kType) {
    const char* kind = TypedArrayKind<T>::kName;
    throw Napi::TypeError::New(info.Env(), name + (kind[0] == 'I' ? " must be an " : " must be a ") + kind +
                                               ", got " + DescribeValue(v));
  }
  return v.As<Napi::TypedArrayOf<T>>();
}

/// Throws a RangeError unless `arr` has exactly `expected` elements.
template <typename T>
void RequireLength(const Napi::TypedArrayOf<T>& arr, std::size_t expected, const std::string& name) {
  if (arr.ElementLength() != expected) {
    throw Napi::RangeError::New(arr.Env(), name + " has length " + std::to_string(arr.ElementLength()) +
                                               ", expected " + std::to_string(expected));
  }
}

/// Returns info[idx] as a double; TypeError unless it is a JS number.
double RequireNumber(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name) {
  const Napi::Value v = info[idx];
  if (!v.IsNumber()) throw Napi::TypeError::New(info.Env(), name + " must be a number, got " + DescribeValue(v));
  return v.As<Napi::Number>().DoubleValue();
}

/// A finite number (RangeError on NaN / +-Infinity).
double RequireFinite(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name) {
  const double x = RequireNumber(info, idx, name);
  if (!std::isfinite(x)) throw Napi::RangeError::New(info.Env(), name + " must be finite, got " + FormatNumber(x));
  return x;
}

/// A finite number >= 0.
double RequireNonNegativeFinite(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name) {
  const double x = RequireFinite(info, idx, name);
  if (x < 0) throw Napi::RangeError::New(info.Env(), name + " must be >= 0, got " + FormatNumber(x));
  return x;
}

/// An integer in [0, max] (a count or a dimension).
std::size_t RequireSize(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name,
                        std::size_t max) {
  const double x = RequireNumber(info, idx, name);
  if (!(x >= 0) || x != std::floor(x) || x > static_cast<double>(max)) {
    throw Napi::RangeError::New(info.Env(), name + " must be an integer in [0, " + std::to_string(max) +
                                                "], got " + FormatNumber(x));
  }
  return static_cast<std::size_t>(x);
}

/// Throws a RangeError at the first NaN entry, and at the first +Infinity / -Infinity entry unless
/// allowed. The message names the index, e.g. "gdt1d: f[3] is NaN".
void RequireNoNaN(Napi::Env env, const double* data, std::size_t n, const std::string& name,
                  bool allowNegInf, bool allowPosInf) {
  for (std::size_t i = 0; i < n; ++i) {
    const double x = data[i];
    if (std::isnan(x) || (x == std::numeric_limits<double>::infinity() && !allowPosInf) ||
        (x == -std::numeric_limits<double>::infinity() && !allowNegInf)) {
      const char* allowed = allowNegInf ? (allowPosInf ? "numbers or +-Infinity" : "finite or -Infinity")
                                        : (allowPosInf ? "finite or +Infinity" : "finite");
      throw Napi::RangeError::New(env, name + "[" + std::to_string(i) + "] is " + FormatNumber(x) +
                                           " (entries must be " + allowed + ")");
    }
  }
}

/// True when the byte ranges [a, a+na) and [b, b+nb) intersect (empty ranges never do).
bool BytesOverlap(const void* a, std::size_t na, const void* b, std::size_t nb) {
  if (na == 0 || nb == 0) return false;
  const auto pa = reinterpret_cast<std::uintptr_t>(a);
  const auto pb = reinterpret_cast<std::uintptr_t>(b);
  return pa < pb + nb && pb < pa + na;
}

/// Throws a RangeError when two typed arrays share memory (e.g. views of one ArrayBuffer).
template <typename T, typename U>
void RequireDisjoint(const Napi::TypedArrayOf<T>& x, const std::string& xName, const Napi::TypedArrayOf<U>& y,
                     const std::string& yName) {
  if (BytesOverlap(x.Data(), x.ElementLength() * sizeof(T), y.Data(), y.ElementLength() * sizeof(U))) {
    throw Napi::RangeError::New(x.Env(), xName + " and " + yName + " must not share memory");
  }
}

/// Throws a RangeError when two arrays partially overlap; identical views (in-place) are allowed.
template <typename T>
void RequireSameOrDisjoint(const Napi::TypedArrayOf<T>& x, const std::string& xName,
                           const Napi::TypedArrayOf<T>& y, const std::string& yName) {
  if (x.Data() == y.Data() && x.ElementLength() == y.ElementLength()) return;
  if (BytesOverlap(x.Data(), x.ElementLength() * sizeof(T), y.Data(), y.ElementLength() * sizeof(T))) {
    throw Napi::RangeError::New(x.Env(), xName + " and " + yName +
                                             " must be the same array (in-place) or not share memory");
  }
}

// =====================================================================================================
// (2) Section: generalized distance transforms (native/gdt, Felzenszwalb & Huttenlocher).
//     gdt1d(f, a, b, out, argmax)                      sync, zero-copy
//     gdt2d(f, H, W, ay, by, ax, bx, out, argmax)       sync, zero-copy
//     gdt2dAsync(f, H, W, ay, by, ax, bx, out, argmax)  Promise<void>, runs on the libuv pool.
//     f: Float64Array (finite or -Infinity entries), out: Float64Array, argmax: Int32Array, all of the
//     same length; a, ay, ax finite >= 0; b, by, bx finite. out may be f itself (in-place).
//     Async contract: f, out and argmax are referenced until the Promise settles, but they must not be
//     written, transferred, detached or resized before then (the worker reads/writes them directly).
// =====================================================================================================

namespace gdtsec {

constexpr std::size_t kMaxDim = gapbcfw::gdt::kMaxCells;

// gdt1d(f: Float64Array, a: number, b: number, out: Float64Array, argmax: Int32Array): undefined
Napi::Value Gdt1d(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 5, "gdt1d");
  auto f = RequireTypedArray<double>(info, 0, "gdt1d: f");
  const double a = RequireNonNegativeFinite(info, 1, "gdt1d: a");
  const double b = RequireFinite(info, 2, "gdt1d: b");
  auto out = RequireTypedArray<double>(info, 3, "gdt1d: out");
  auto argmax = RequireTypedArray<std::int32_t>(info, 4, "gdt1d: argmax");
  const std::size_t n = f.ElementLength();
  if (n > kMaxDim) throw Napi::RangeError::New(info.Env(), "gdt1d: f is longer than 2^31-1");
  RequireLength(out, n, "gdt1d: out");
  RequireLength(argmax, n, "gdt1d: argmax");
  RequireDisjoint(argmax, "gdt1d: argmax", f, "f");
  RequireDisjoint(argmax, "gdt1d: argmax", out, "out");  // out may overlap f in 1-D
  RequireNoNaN(info.Env(), f.Data(), n, "gdt1d: f", /*allowNegInf=*/true, /*allowPosInf=*/false);
  gapbcfw::gdt::Transform1d(f.Data(), n, a, b, out.Data(), argmax.Data());
  return info.Env().Undefined();
}

struct Gdt2dArgs {
  Napi::Float64Array f, out;
  Napi::Int32Array argmax;
  std::size_t height = 0, width = 0;
  double ay = 0, by = 0, ax = 0, bx = 0;
};

Gdt2dArgs ParseGdt2d(const Napi::CallbackInfo& info, const char* fn) {
  const std::string p = std::string(fn) + ": ";
  RequireArgCount(info, 9, fn);
  Gdt2dArgs r;
  r.f = RequireTypedArray<double>(info, 0, p + "f");
  r.height = RequireSize(info, 1, p + "H", kMaxDim);
  r.width = RequireSize(info, 2, p + "W", kMaxDim);
  r.ay = RequireNonNegativeFinite(info, 3, p + "ay");
  r.by = RequireFinite(info, 4, p + "by");
  r.ax = RequireNonNegativeFinite(info, 5, p + "ax");
  r.bx = RequireFinite(info, 6, p + "bx");
  r.out = RequireTypedArray<double>(info, 7, p + "out");
  r.argmax = RequireTypedArray<std::int32_t>(info, 8, p + "argmax");
  if (r.height != 0 && r.width > kMaxDim / r.height) {
    throw Napi::RangeError::New(info.Env(), p + "H*W = " + std::to_string(r.height) + "*" +
                                                std::to_string(r.width) + " exceeds 2^31-1");
  }
  const std::size_t cells = r.height * r.width;
  if (r.f.ElementLength() != cells) {
    throw Napi::RangeError::New(info.Env(), p + "f has length " + std::to_string(r.f.ElementLength()) +
                                                ", expected H*W = " + std::to_string(cells));
  }
  RequireLength(r.out, cells, p + "out");
  RequireLength(r.argmax, cells, p + "argmax");
  RequireSameOrDisjoint(r.out, p + "out", r.f, "f");
  RequireDisjoint(r.argmax, p + "argmax", r.f, "f");
  RequireDisjoint(r.argmax, p + "argmax", r.out, "out");
  RequireNoNaN(info.Env(), r.f.Data(), cells, p + "f", /*allowNegInf=*/true, /*allowPosInf=*/false);
  return r;
}

// gdt2d(f, H, W, ay, by, ax, bx, out, argmax): undefined
Napi::Value Gdt2d(const Napi::CallbackInfo& info) {
  Gdt2dArgs r = ParseGdt2d(info, "gdt2d");
  gapbcfw::gdt::Transform2d(r.f.Data(), r.height, r.width, r.ay, r.by, r.ax, r.bx, r.out.Data(),
                            r.argmax.Data());
  return info.Env().Undefined();
}

/// Runs Transform2d on the libuv thread pool. Everything JS-related (validation, .Data() pointers,
/// references) happens in the constructor on the JS thread; Execute() touches only raw memory.
class Gdt2dWorker : public Napi::AsyncWorker {
 public:
  Gdt2dWorker(Napi::Env env, Gdt2dArgs& r)
      : Napi::AsyncWorker(env, "gapbcfw.gdt2dAsync"),
        deferred_(Napi::Promise::Deferred::New(env)),
        fRef_(Napi::Persistent(r.f)),
        outRef_(Napi::Persistent(r.out)),
        argmaxRef_(Napi::Persistent(r.argmax)),
        f_(r.f.Data()),
        out_(r.out.Data()),
        argmax_(r.argmax.Data()),
        height_(r.height),
        width_(r.width),
        ay_(r.ay),
        by_(r.by),
        ax_(r.ax),
        bx_(r.bx) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      gapbcfw::gdt::Workspace2d ws;
      gapbcfw::gdt::Transform2d(f_, height_, width_, ay_, by_, ax_, bx_, out_, argmax_, ws);
    } catch (const std::exception& e) {
      SetError(std::string("gdt2dAsync: ") + e.what());
    } catch (...) {
      SetError("gdt2dAsync: unknown native error");
    }
  }
  void OnOK() override { deferred_.Resolve(Env().Undefined()); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  // Keep the arrays (and so their buffers) alive until the job completes; released on the JS thread
  // when the worker is destroyed after OnOK/OnError.
  Napi::Reference<Napi::Float64Array> fRef_, outRef_;
  Napi::Reference<Napi::Int32Array> argmaxRef_;
  const double* f_;
  double* out_;
  std::int32_t* argmax_;
  std::size_t height_, width_;
  double ay_, by_, ax_, bx_;
};

// gdt2dAsync(f, H, W, ay, by, ax, bx, out, argmax): Promise<undefined>
// Validation errors are thrown synchronously (TypeError/RangeError) before any job is queued.
Napi::Value Gdt2dAsync(const Napi::CallbackInfo& info) {
  Gdt2dArgs r = ParseGdt2d(info, "gdt2dAsync");
  auto* worker = new Gdt2dWorker(info.Env(), r);  // deletes itself after OnOK/OnError
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

void Register(Napi::Env env, Napi::Object exports) {
  exports.Set("gdt1d", Napi::Function::New(env, Gdt1d, "gdt1d"));
  exports.Set("gdt2d", Napi::Function::New(env, Gdt2d, "gdt2d"));
  exports.Set("gdt2dAsync", Napi::Function::New(env, Gdt2dAsync, "gdt2dAsync"));
}

}  // namespace gdtsec

// ============================================ end of GDT section =====================================

// =====================================================================================================
// (2b) Chain section: Viterbi max-oracle of the linear-chain model (native/scoring/chain.h).
// =====================================================================================================
namespace chainsec {

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
  if (!info[5].IsNull() && !info[5].IsUndefined()) {
    const auto y = RequireTypedArray<int32_t>(info, 5, "chainDecode: yTrue");
    RequireLength(y, T, "chainDecode: yTrue");
    for (std::size_t t = 0; t < T; ++t) {
      if (y[t] < 0 || static_cast<std::size_t>(y[t]) >= K) {
        throw Napi::RangeError::New(info.Env(), "chainDecode: yTrue[" + std::to_string(t) + "] = " +
                                                    std::to_string(y[t]) + " is outside 0.." + std::to_string(K - 1));
      }
    }
    yTrue = y.Data();
  }
  auto out = RequireTypedArray<int32_t>(info, 6, "chainDecode: out");
  RequireLength(out, T, "chainDecode: out");
  const gapbcfw::ChainShape shape{static_cast<int32_t>(D), static_cast<int32_t>(K)};
  const double score = gapbcfw::chain_decode(w.Data(), shape, x.Data(), static_cast<int32_t>(T), yTrue, out.Data());
  return Napi::Number::New(info.Env(), score);
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
  const auto yTrue = RequireTypedArray<int32_t>(info, 4, "chainPsi: yTrue");
  const auto y = RequireTypedArray<int32_t>(info, 5, "chainPsi: y");
  RequireLength(yTrue, T, "chainPsi: yTrue");
  RequireLength(y, T, "chainPsi: y");
  for (std::size_t t = 0; t < T; ++t) {
    if (yTrue[t] < 0 || static_cast<std::size_t>(yTrue[t]) >= K || y[t] < 0 || static_cast<std::size_t>(y[t]) >= K) {
      throw Napi::RangeError::New(info.Env(), "chainPsi: label at position " + std::to_string(t) + " is outside 0.." +
                                                  std::to_string(K - 1));
    }
  }
  auto idx = RequireTypedArray<int32_t>(info, 6, "chainPsi: outIdx");
  auto val = RequireTypedArray<double>(info, 7, "chainPsi: outVal");
  const gapbcfw::ChainShape shape{static_cast<int32_t>(D), static_cast<int32_t>(K)};
  const auto cap = static_cast<std::size_t>(gapbcfw::chain_psi_capacity(shape, static_cast<int32_t>(T)));
  if (idx.ElementLength() < cap || val.ElementLength() < cap) {
    throw Napi::RangeError::New(info.Env(), "chainPsi: outIdx and outVal need room for " + std::to_string(cap) + " entries");
  }
  const int64_t nnz = gapbcfw::chain_psi(shape, x.Data(), static_cast<int32_t>(T), yTrue.Data(), y.Data(), idx.Data(), val.Data());
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
  const gapbcfw::ChainShape shape{static_cast<int32_t>(D), static_cast<int32_t>(K)};
  gapbcfw::chain_node_scores(w.Data(), shape, x.Data(), static_cast<int32_t>(T), nullptr, out.Data());
  return info.Env().Undefined();
}

// chainViterbi(theta: Float64Array (T*K), T, K, trans: Float64Array (K*K, prev + K*next), out: Int32Array (T))
// -> score: max-sum over given node scores, for chain models with their own feature layout.
Napi::Value ChainViterbi(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 5, "chainViterbi");
  const auto theta = RequireTypedArray<double>(info, 0, "chainViterbi: theta");
  const std::size_t T = RequireSize(info, 1, "chainViterbi: T", 1u << 30);
  const std::size_t K = RequireSize(info, 2, "chainViterbi: K", 1u << 15);
  if (K == 0 || T == 0) throw Napi::RangeError::New(info.Env(), "chainViterbi: K and T must be >= 1");
  if (theta.ElementLength() < T * K) throw Napi::RangeError::New(info.Env(), "chainViterbi: theta needs T*K entries");
  const auto trans = RequireTypedArray<double>(info, 3, "chainViterbi: trans");
  RequireLength(trans, K * K, "chainViterbi: trans");
  RequireNoNaN(info.Env(), theta.Data(), T * K, "chainViterbi: theta", false, false);
  auto out = RequireTypedArray<int32_t>(info, 4, "chainViterbi: out");
  RequireLength(out, T, "chainViterbi: out");
  thread_local std::vector<double> work;
  const double score = gapbcfw::chain_viterbi(trans.Data(), static_cast<int32_t>(K), theta.Data(), static_cast<int32_t>(T), out.Data(), work);
  return Napi::Number::New(info.Env(), score);
}

void Register(Napi::Env env, Napi::Object exports) {
  exports.Set("chainDecode", Napi::Function::New(env, ChainDecode, "chainDecode"));
  exports.Set("chainViterbi", Napi::Function::New(env, ChainViterbi, "chainViterbi"));
  exports.Set("chainNodeScores", Napi::Function::New(env, ChainNodeScores, "chainNodeScores"));
  exports.Set("chainPsi", Napi::Function::New(env, ChainPsi, "chainPsi"));
}

}  // namespace chainsec

// ============================================ end of chain section ===================================

// =====================================================================================================
// (2c) Solver section: dense kernels of a BCFW block step (native/solver/block_update.h).
// =====================================================================================================
namespace solversec {

struct SparseArgs {
  const int32_t* idx;
  const double* val;
  int64_t nnz;
};

// Reads (idx: Int32Array, val: Float64Array, nnz) at info[i..i+2] and checks every index is in [0, d).
SparseArgs RequireSparse(const Napi::CallbackInfo& info, std::size_t i, std::size_t d, const char* fn) {
  const auto idx = RequireTypedArray<int32_t>(info, i, std::string(fn) + ": idx");
  const auto val = RequireTypedArray<double>(info, i + 1, std::string(fn) + ": val");
  const std::size_t nnz = RequireSize(info, i + 2, std::string(fn) + ": nnz", std::min(idx.ElementLength(), val.ElementLength()));
  for (std::size_t q = 0; q < nnz; ++q) {
    if (idx[q] < 0 || static_cast<std::size_t>(idx[q]) >= d) {
      throw Napi::RangeError::New(info.Env(), std::string(fn) + ": idx[" + std::to_string(q) + "] = " + std::to_string(idx[q]) +
                                                  " is outside 0.." + std::to_string(d - 1));
    }
  }
  return {idx.Data(), val.Data(), static_cast<int64_t>(nnz)};
}

// blockStats(wi, w, idx, val, nnz, out: Float64Array(3)) -> out = [<wi,w>, ||wi||^2, <wi,psi>].
Napi::Value BlockStats(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 6, "blockStats");
  const auto wi = RequireTypedArray<double>(info, 0, "blockStats: wi");
  const auto w = RequireTypedArray<double>(info, 1, "blockStats: w");
  RequireLength(w, wi.ElementLength(), "blockStats: w");
  const SparseArgs s = RequireSparse(info, 2, wi.ElementLength(), "blockStats");
  auto out = RequireTypedArray<double>(info, 5, "blockStats: out");
  RequireLength(out, 3, "blockStats: out");
  const gapbcfw::BlockStats r = gapbcfw::block_stats(wi.Data(), w.Data(), static_cast<int64_t>(wi.ElementLength()), s.idx, s.val, s.nnz);
  out[0] = r.wi_dot_w;
  out[1] = r.wi_sq;
  out[2] = r.wi_dot_psi;
  return info.Env().Undefined();
}

// blockUpdate(wi, w, wAvg | null, idx, val, nnz, gamma, psiScale, rho): see block_update.h.
Napi::Value BlockUpdate(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 9, "blockUpdate");
  auto wi = RequireTypedArray<double>(info, 0, "blockUpdate: wi");
  auto w = RequireTypedArray<double>(info, 1, "blockUpdate: w");
  const std::size_t d = wi.ElementLength();
  RequireLength(w, d, "blockUpdate: w");
  double* wAvg = nullptr;
  if (!info[2].IsNull()) {
    auto avg = RequireTypedArray<double>(info, 2, "blockUpdate: wAvg");
    RequireLength(avg, d, "blockUpdate: wAvg");
    wAvg = avg.Data();
  }
  const SparseArgs s = RequireSparse(info, 3, d, "blockUpdate");
  const double gamma = RequireFinite(info, 6, "blockUpdate: gamma");
  const double psiScale = RequireFinite(info, 7, "blockUpdate: psiScale");
  const double rho = RequireFinite(info, 8, "blockUpdate: rho");
  gapbcfw::block_update(wi.Data(), w.Data(), wAvg, static_cast<int64_t>(d), s.idx, s.val, s.nnz, gamma, psiScale, rho);
  return info.Env().Undefined();
}

void Register(Napi::Env env, Napi::Object exports) {
  exports.Set("blockStats", Napi::Function::New(env, BlockStats, "blockStats"));
  exports.Set("blockUpdate", Napi::Function::New(env, BlockUpdate, "blockUpdate"));
}

}  // namespace solversec

// ============================================ end of solver section ==================================

}  // namespace

// =====================================================================================================
// (3) Module initialisation: one Register call per section.
// =====================================================================================================
Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("version", Napi::Function::New(env, Version));
  gdtsec::Register(env, exports);
  chainsec::Register(env, exports);
  solversec::Register(env, exports);
  return exports;
}

NODE_API_MODULE(gapbcfw, Init)
