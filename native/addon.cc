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
// max-flow section
#include <atomic>
#include <istream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <streambuf>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "gdt/gdt.h"
#include "maxflow/dimacs.h"
#include "maxflow/flow_graph.h"
#include "scoring/chain.h"
#include "scoring/rows.h"
#include "scoring/segmentation.h"
#include "slic/slic.h"
#include "hog/hog.h"
#include "pose/tree.h"
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

/// Returns v as a typed array of element type T (zero-copy), or throws a TypeError naming the expected
/// and the actual type. `.As<>()` alone is an unchecked cast, hence this helper.
template <typename T>
Napi::TypedArrayOf<T> TypedArrayValue(const Napi::Value& v, const std::string& name) {
  if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != TypedArrayKind<T>::kType) {
    const char* kind = TypedArrayKind<T>::kName;
    throw Napi::TypeError::New(v.Env(), name + (kind[0] == 'I' ? " must be an " : " must be a ") + kind + ", got " +
                                            DescribeValue(v));
  }
  return v.As<Napi::TypedArrayOf<T>>();
}

/// info[idx] as a typed array of element type T (see TypedArrayValue).
template <typename T>
Napi::TypedArrayOf<T> RequireTypedArray(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name) {
  return TypedArrayValue<T>(info[idx], name);
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

// offsets (Int32Array, n+1 entries) of n sequences packed end to end: 0 first, never decreasing. Returns n.
std::size_t RequireOffsets(const Napi::TypedArrayOf<int32_t>& offsets, const std::string& name) {
  if (offsets.ElementLength() < 1) throw Napi::RangeError::New(offsets.Env(), name + " needs n+1 entries");
  const std::size_t n = offsets.ElementLength() - 1;
  if (offsets[0] != 0) throw Napi::RangeError::New(offsets.Env(), name + "[0] must be 0");
  for (std::size_t q = 0; q < n; ++q) {
    if (offsets[q + 1] < offsets[q]) throw Napi::RangeError::New(offsets.Env(), name + " must not decrease");
  }
  return n;
}

// info[idx]: an Int32Array of `count` labels, each in 0..K-1.
Napi::TypedArrayOf<int32_t> RequireLabels(const Napi::CallbackInfo& info, std::size_t idx, std::size_t count, std::size_t K,
                                          const std::string& name) {
  const auto y = RequireTypedArray<int32_t>(info, idx, name);
  RequireLength(y, count, name);
  for (std::size_t t = 0; t < count; ++t) {
    if (y[t] < 0 || static_cast<std::size_t>(y[t]) >= K) {
      throw Napi::RangeError::New(info.Env(), name + "[" + std::to_string(t) + "] = " + std::to_string(y[t]) + " is outside 0.." +
                                                  std::to_string(K - 1));
    }
  }
  return y;
}

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

// chainViterbiBatch(theta: Float64Array (tokens*K), offsets: Int32Array (n+1), trans: Float64Array (K*K), K,
// outY: Int32Array (tokens), threads): Viterbi of n sequences over precomputed node scores on native threads.
Napi::Value ChainViterbiBatch(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 6, "chainViterbiBatch");
  const auto theta = RequireTypedArray<double>(info, 0, "chainViterbiBatch: theta");
  const auto offsets = RequireTypedArray<int32_t>(info, 1, "chainViterbiBatch: offsets");
  const std::size_t n = RequireOffsets(offsets, "chainViterbiBatch: offsets");
  const std::size_t tokens = static_cast<std::size_t>(offsets[n]);
  const auto trans = RequireTypedArray<double>(info, 2, "chainViterbiBatch: trans");
  const std::size_t K = RequireSize(info, 3, "chainViterbiBatch: K", 1u << 15);
  if (K == 0) throw Napi::RangeError::New(info.Env(), "chainViterbiBatch: K must be >= 1");
  RequireLength(trans, K * K, "chainViterbiBatch: trans");
  RequireLength(theta, tokens * K, "chainViterbiBatch: theta");
  RequireNoNaN(info.Env(), theta.Data(), tokens * K, "chainViterbiBatch: theta", false, false);
  auto outY = RequireTypedArray<int32_t>(info, 4, "chainViterbiBatch: outY");
  RequireLength(outY, tokens, "chainViterbiBatch: outY");
  const std::size_t threads = RequireSize(info, 5, "chainViterbiBatch: threads", 256);
  gapbcfw::chain_viterbi_batch(trans.Data(), static_cast<int32_t>(K), theta.Data(), offsets.Data(), static_cast<int32_t>(n),
                               outY.Data(), static_cast<int32_t>(std::max<std::size_t>(threads, 1)));
  return info.Env().Undefined();
}

// chainHingeOfLabels(w, D, K, xAll, offsets, yAll, yHat, hinge: Float64Array (n), threads): hinge[s] =
// L(y_s, yHat_s) + <w, phi(yHat_s)> - <w, phi(y_s)> in float64 (certifies labels proposed by float32 scores).
Napi::Value ChainHingeOfLabels(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 9, "chainHingeOfLabels");
  const auto w = RequireTypedArray<double>(info, 0, "chainHingeOfLabels: w");
  const std::size_t D = RequireSize(info, 1, "chainHingeOfLabels: D", 1u << 30);
  const std::size_t K = RequireSize(info, 2, "chainHingeOfLabels: K", 1u << 15);
  if (D == 0 || K == 0) throw Napi::RangeError::New(info.Env(), "chainHingeOfLabels: D and K must be >= 1");
  RequireLength(w, K * D + 2 * K + K * K, "chainHingeOfLabels: w");
  const auto x = RequireTypedArray<double>(info, 3, "chainHingeOfLabels: xAll");
  const auto offsets = RequireTypedArray<int32_t>(info, 4, "chainHingeOfLabels: offsets");
  const std::size_t n = RequireOffsets(offsets, "chainHingeOfLabels: offsets");
  const std::size_t tokens = static_cast<std::size_t>(offsets[n]);
  RequireLength(x, tokens * D, "chainHingeOfLabels: xAll");
  const auto y = RequireLabels(info, 5, tokens, K, "chainHingeOfLabels: yAll");
  const auto yHat = RequireLabels(info, 6, tokens, K, "chainHingeOfLabels: yHat");
  auto hinge = RequireTypedArray<double>(info, 7, "chainHingeOfLabels: hinge");
  RequireLength(hinge, n, "chainHingeOfLabels: hinge");
  const std::size_t threads = RequireSize(info, 8, "chainHingeOfLabels: threads", 256);
  const gapbcfw::ChainShape shape{static_cast<int32_t>(D), static_cast<int32_t>(K)};
  gapbcfw::chain_hinge_of_labels(w.Data(), shape, x.Data(), offsets.Data(), static_cast<int32_t>(n), y.Data(), yHat.Data(),
                                 hinge.Data(), static_cast<int32_t>(std::max<std::size_t>(threads, 1)));
  return info.Env().Undefined();
}

// scoreRows(X: Float64Array | Float32Array (N*D), N, D, W: Float64Array (K*D), K, augLabels: Int32Array (N) | null,
// augWeight: Float64Array (N) | null, out: Float64Array (N*K), threads): out[n*K+k] = <W_k, X_n>, plus
// augWeight[n] on every k != augLabels[n]. The native scoring backend of kernels/ (SIMD rows on threads).
Napi::Value ScoreRows(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 9, "scoreRows");
  const bool f32 = info[0].IsTypedArray() && info[0].As<Napi::TypedArray>().TypedArrayType() == napi_float32_array;
  const std::size_t N = RequireSize(info, 1, "scoreRows: N", std::size_t{1} << 40);
  const std::size_t D = RequireSize(info, 2, "scoreRows: D", 1u << 30);
  const auto W = RequireTypedArray<double>(info, 3, "scoreRows: W");
  const std::size_t K = RequireSize(info, 4, "scoreRows: K", 1u << 20);
  if (D == 0 || K == 0) throw Napi::RangeError::New(info.Env(), "scoreRows: D and K must be >= 1");
  RequireLength(W, K * D, "scoreRows: W");
  const bool augmented = !info[5].IsNull() && !info[5].IsUndefined();
  const int32_t* labels = nullptr;
  const double* weight = nullptr;
  if (augmented) {
    labels = RequireLabels(info, 5, N, K, "scoreRows: augLabels").Data();
    const auto a = RequireTypedArray<double>(info, 6, "scoreRows: augWeight");
    RequireLength(a, N, "scoreRows: augWeight");
    weight = a.Data();
  }
  auto out = RequireTypedArray<double>(info, 7, "scoreRows: out");
  RequireLength(out, N * K, "scoreRows: out");
  const int32_t threads = static_cast<int32_t>(std::max<std::size_t>(RequireSize(info, 8, "scoreRows: threads", 256), 1));
  if (f32) {
    const auto X = RequireTypedArray<float>(info, 0, "scoreRows: X");
    RequireLength(X, N * D, "scoreRows: X");
    gapbcfw::score_rows(X.Data(), static_cast<int64_t>(N), static_cast<int32_t>(D), W.Data(), static_cast<int32_t>(K), labels, weight,
                        out.Data(), threads);
  } else {
    const auto X = RequireTypedArray<double>(info, 0, "scoreRows: X");
    RequireLength(X, N * D, "scoreRows: X");
    gapbcfw::score_rows(X.Data(), static_cast<int64_t>(N), static_cast<int32_t>(D), W.Data(), static_cast<int32_t>(K), labels, weight,
                        out.Data(), threads);
  }
  return info.Env().Undefined();
}

// Element i of the array argument info[idx], a typed array of element type T (name[i] in messages).
template <class T>
Napi::TypedArrayOf<T> RequireListElement(const Napi::CallbackInfo& info, std::size_t idx, std::size_t i, const std::string& name) {
  return TypedArrayValue<T>(info[idx].As<Napi::Array>()[static_cast<uint32_t>(i)], name + "[" + std::to_string(i) + "]");
}

// segmentationPsiDots(unary: Float32Array[], pairwise: Float32Array[], edgeFrom: Int32Array[], edgeTo: Int32Array[],
// yTrue: Uint8Array[], y: Uint8Array[], dU, dP, w: Float64Array (dU+dP), dots: Float64Array (n), threads):
// dots[i] = <w, psi_i> of n superpixel images with the per-object arithmetic (segmentation_psi_dots).
Napi::Value SegmentationPsiDots(const Napi::CallbackInfo& info) {
  const std::string fn = "segmentationPsiDots";
  RequireArgCount(info, 11, fn.c_str());
  const char* names[6] = {"unary", "pairwise", "edgeFrom", "edgeTo", "yTrue", "y"};
  for (int a = 0; a < 6; ++a)
    if (!info[a].IsArray()) throw Napi::TypeError::New(info.Env(), fn + ": " + names[a] + " must be an array of typed arrays");
  const std::size_t n = info[0].As<Napi::Array>().Length();
  for (int a = 1; a < 6; ++a) {
    if (info[a].As<Napi::Array>().Length() != n) throw Napi::RangeError::New(info.Env(), fn + ": " + names[a] + " must hold " + std::to_string(n) + " arrays");
  }
  const std::size_t dU = RequireSize(info, 6, fn + ": dU", 1u << 24);
  const std::size_t dP = RequireSize(info, 7, fn + ": dP", 1u << 24);
  const auto w = RequireTypedArray<double>(info, 8, fn + ": w");
  RequireLength(w, dU + dP, fn + ": w");
  auto dots = RequireTypedArray<double>(info, 9, fn + ": dots");
  RequireLength(dots, n, fn + ": dots");
  const std::size_t threads = RequireSize(info, 10, fn + ": threads", 256);
  std::vector<gapbcfw::SegmentationImage> images(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto unary = RequireListElement<float>(info, 0, i, fn + ": unary");
    const auto pairwise = RequireListElement<float>(info, 1, i, fn + ": pairwise");
    const auto from = RequireListElement<int32_t>(info, 2, i, fn + ": edgeFrom");
    const auto to = RequireListElement<int32_t>(info, 3, i, fn + ": edgeTo");
    const auto yTrue = RequireListElement<uint8_t>(info, 4, i, fn + ": yTrue");
    const auto y = RequireListElement<uint8_t>(info, 5, i, fn + ": y");
    const std::string image = fn + ": image " + std::to_string(i);
    const std::size_t N = yTrue.ElementLength(), E = from.ElementLength();
    if (y.ElementLength() != N || unary.ElementLength() != N * dU || to.ElementLength() != E || pairwise.ElementLength() != E * dP) {
      throw Napi::RangeError::New(info.Env(), image + ": lengths disagree (labels, N*dU unary and E*dP pairwise features, E edge ends)");
    }
    for (std::size_t k = 0; k < N; ++k) {
      if (yTrue[k] > 1 || y[k] > 1) throw Napi::RangeError::New(info.Env(), image + ": labels must be 0 or 1");
    }
    for (std::size_t e = 0; e < E; ++e) {
      if (from[e] < 0 || to[e] < 0 || static_cast<std::size_t>(from[e]) >= N || static_cast<std::size_t>(to[e]) >= N) {
        throw Napi::RangeError::New(info.Env(), image + ": edge " + std::to_string(e) + " has an end outside 0.." + std::to_string(N - 1));
      }
    }
    images[i] = {static_cast<int32_t>(N), static_cast<int32_t>(E), unary.Data(), pairwise.Data(), from.Data(), to.Data(), yTrue.Data(), y.Data()};
  }
  gapbcfw::segmentation_psi_dots(images.data(), static_cast<int32_t>(n), static_cast<int32_t>(dU), static_cast<int32_t>(dP), w.Data(), dots.Data(),
                                 static_cast<int32_t>(std::max<std::size_t>(threads, 1)));
  return info.Env().Undefined();
}

// multiclassHinges(rowOffsets: Int32Array (rows+1), ids: Int32Array (distinct per row, in 0..F-1), values: Float64Array,
// w: Float64Array (K*F, class-major), F, K, y: Int32Array (rows), yHat: Int32Array (rows), hinge: Float64Array (rows),
// threads): Crammer-Singer hinges of given labels with the per-object arithmetic (multiclass_hinges).
Napi::Value MulticlassHinges(const Napi::CallbackInfo& info) {
  const std::string fn = "multiclassHinges";
  RequireArgCount(info, 10, fn.c_str());
  const auto offsets = RequireTypedArray<int32_t>(info, 0, fn + ": rowOffsets");
  const std::size_t rows = RequireOffsets(offsets, fn + ": rowOffsets");
  const std::size_t nnz = static_cast<std::size_t>(offsets[rows]);
  const auto ids = RequireTypedArray<int32_t>(info, 1, fn + ": ids");
  const auto values = RequireTypedArray<double>(info, 2, fn + ": values");
  RequireLength(ids, nnz, fn + ": ids");
  RequireLength(values, nnz, fn + ": values");
  const auto w = RequireTypedArray<double>(info, 3, fn + ": w");
  const std::size_t F = RequireSize(info, 4, fn + ": F", std::size_t{1} << 31);
  const std::size_t K = RequireSize(info, 5, fn + ": K", 1u << 15);
  if (F == 0 || K == 0) throw Napi::RangeError::New(info.Env(), fn + ": F and K must be >= 1");
  RequireLength(w, F * K, fn + ": w");
  for (std::size_t j = 0; j < nnz; ++j) {
    if (ids[j] < 0 || static_cast<std::size_t>(ids[j]) >= F) {
      throw Napi::RangeError::New(info.Env(), fn + ": ids[" + std::to_string(j) + "] = " + std::to_string(ids[j]) + " is outside 0.." +
                                                  std::to_string(F - 1));
    }
  }
  const auto y = RequireLabels(info, 6, rows, K, fn + ": y");
  const auto yHat = RequireLabels(info, 7, rows, K, fn + ": yHat");
  auto hinge = RequireTypedArray<double>(info, 8, fn + ": hinge");
  RequireLength(hinge, rows, fn + ": hinge");
  const std::size_t threads = RequireSize(info, 9, fn + ": threads", 256);
  gapbcfw::multiclass_hinges(offsets.Data(), static_cast<int64_t>(rows), ids.Data(), values.Data(), w.Data(), static_cast<int32_t>(F),
                             y.Data(), yHat.Data(), hinge.Data(), static_cast<int32_t>(std::max<std::size_t>(threads, 1)));
  return info.Env().Undefined();
}

// scoreSparseRows(rowOffsets: Int32Array (rows+1), ids: Int32Array, values: Float64Array | null, W: Float64Array
// (F*K, feature-major), F, K, out: Float64Array (rows*K), threads): node scores of sparse rows on native threads.
Napi::Value ScoreSparseRows(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 8, "scoreSparseRows");
  const auto offsets = RequireTypedArray<int32_t>(info, 0, "scoreSparseRows: rowOffsets");
  const std::size_t rows = RequireOffsets(offsets, "scoreSparseRows: rowOffsets");
  const std::size_t nnz = static_cast<std::size_t>(offsets[rows]);
  const auto ids = RequireTypedArray<int32_t>(info, 1, "scoreSparseRows: ids");
  RequireLength(ids, nnz, "scoreSparseRows: ids");
  const double* values = nullptr;
  if (!info[2].IsNull() && !info[2].IsUndefined()) {
    const auto v = RequireTypedArray<double>(info, 2, "scoreSparseRows: values");
    RequireLength(v, nnz, "scoreSparseRows: values");
    values = v.Data();
  }
  const auto W = RequireTypedArray<double>(info, 3, "scoreSparseRows: W");
  const std::size_t F = RequireSize(info, 4, "scoreSparseRows: F", std::size_t{1} << 31);
  const std::size_t K = RequireSize(info, 5, "scoreSparseRows: K", 1u << 15);
  if (F == 0 || K == 0) throw Napi::RangeError::New(info.Env(), "scoreSparseRows: F and K must be >= 1");
  RequireLength(W, F * K, "scoreSparseRows: W");
  for (std::size_t j = 0; j < nnz; ++j) {
    if (ids[j] < 0 || static_cast<std::size_t>(ids[j]) >= F) {
      throw Napi::RangeError::New(info.Env(), "scoreSparseRows: ids[" + std::to_string(j) + "] = " + std::to_string(ids[j]) +
                                                  " is outside 0.." + std::to_string(F - 1));
    }
  }
  auto out = RequireTypedArray<double>(info, 6, "scoreSparseRows: out");
  RequireLength(out, rows * K, "scoreSparseRows: out");
  const std::size_t threads = RequireSize(info, 7, "scoreSparseRows: threads", 256);
  gapbcfw::score_sparse_rows(offsets.Data(), static_cast<int64_t>(rows), ids.Data(), values, W.Data(), static_cast<int32_t>(K), out.Data(),
                             static_cast<int32_t>(std::max<std::size_t>(threads, 1)));
  return info.Env().Undefined();
}

void Register(Napi::Env env, Napi::Object exports) {
  exports.Set("chainDecode", Napi::Function::New(env, ChainDecode, "chainDecode"));
  exports.Set("chainViterbi", Napi::Function::New(env, ChainViterbi, "chainViterbi"));
  exports.Set("chainViterbiBatch", Napi::Function::New(env, ChainViterbiBatch, "chainViterbiBatch"));
  exports.Set("chainHingeOfLabels", Napi::Function::New(env, ChainHingeOfLabels, "chainHingeOfLabels"));
  exports.Set("scoreRows", Napi::Function::New(env, ScoreRows, "scoreRows"));
  exports.Set("scoreSparseRows", Napi::Function::New(env, ScoreSparseRows, "scoreSparseRows"));
  exports.Set("multiclassHinges", Napi::Function::New(env, MulticlassHinges, "multiclassHinges"));
  exports.Set("segmentationPsiDots", Napi::Function::New(env, SegmentationPsiDots, "segmentationPsiDots"));
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

// =====================================================================================================
// (2e) SLIC section: superpixels for the segmentation pipeline (native/slic/slic.h).
//     slic(pixels: Uint8Array (H*W*channels), H, W, channels (1|3|4), numSuperpixels, compactness,
//          iterations, out: Int32Array (H*W)) -> count. Synchronous (a 300 x 200 image takes ~10 ms).
// =====================================================================================================
namespace slicsec {

Napi::Value Slic(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 8, "slic");
  const auto pixels = RequireTypedArray<uint8_t>(info, 0, "slic: pixels");
  const std::size_t H = RequireSize(info, 1, "slic: H", 1u << 15);
  const std::size_t W = RequireSize(info, 2, "slic: W", 1u << 15);
  const std::size_t C = RequireSize(info, 3, "slic: channels", 4);
  const std::size_t K = RequireSize(info, 4, "slic: numSuperpixels", 1u << 24);
  const double m = RequireFinite(info, 5, "slic: compactness");
  const std::size_t iters = RequireSize(info, 6, "slic: iterations", 1000);
  auto out = RequireTypedArray<int32_t>(info, 7, "slic: out");
  if (H == 0 || W == 0) throw Napi::RangeError::New(info.Env(), "slic: H and W must be >= 1");
  if (C != 1 && C != 3 && C != 4) throw Napi::RangeError::New(info.Env(), "slic: channels must be 1, 3 or 4, got " + std::to_string(C));
  if (K == 0 || iters == 0) throw Napi::RangeError::New(info.Env(), "slic: numSuperpixels and iterations must be >= 1");
  if (!(m > 0)) throw Napi::RangeError::New(info.Env(), "slic: compactness must be > 0, got " + FormatNumber(m));
  RequireLength(pixels, H * W * C, "slic: pixels");
  RequireLength(out, H * W, "slic: out");
  gapbcfw::slic::Params params;
  params.numSuperpixels = static_cast<int32_t>(K);
  params.compactness = m;
  params.iterations = static_cast<int32_t>(iters);
  const int32_t count = gapbcfw::slic::Segment(pixels.Data(), static_cast<int32_t>(H), static_cast<int32_t>(W),
                                               static_cast<int32_t>(C), params, out.Data());
  return Napi::Number::New(info.Env(), count);
}

void Register(Napi::Env env, Napi::Object exports) {
  exports.Set("slic", Napi::Function::New(env, Slic, "slic"));
}

}  // namespace slicsec

// ============================================ end of SLIC section ====================================

// =====================================================================================================
// (2f) HOG section: Felzenszwalb 31-dim HOG cells and linear filter responses (native/hog/hog.h).
//     hog(image: Float64Array (H*W*C), H, W, C (1..4), sbin, out: Float32Array (rows*cols*31))
//       with rows = max(round(H/sbin)-2, 0), cols likewise (see hogShape).
//     hogShape(H, W, sbin) -> [rows, cols]
//     filterResponses(feat: Float32Array (rows*cols*dim), rows, cols, dim, w: Float64Array
//       (numFilters*k*k*dim), numFilters, k (odd), out: Float64Array (numFilters*rows*cols))
// =====================================================================================================
namespace hogsec {

constexpr std::size_t kMaxSide = 1u << 15;

Napi::Value HogShape(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 3, "hogShape");
  const std::size_t H = RequireSize(info, 0, "hogShape: H", kMaxSide);
  const std::size_t W = RequireSize(info, 1, "hogShape: W", kMaxSide);
  const std::size_t sbin = RequireSize(info, 2, "hogShape: sbin", 1024);
  if (sbin == 0) throw Napi::RangeError::New(info.Env(), "hogShape: sbin must be >= 1");
  std::size_t rows, cols;
  gapbcfw::hog::OutputShape(H, W, sbin, &rows, &cols);
  Napi::Array out = Napi::Array::New(info.Env(), 2);
  out.Set(0u, Napi::Number::New(info.Env(), static_cast<double>(rows)));
  out.Set(1u, Napi::Number::New(info.Env(), static_cast<double>(cols)));
  return out;
}

Napi::Value Hog(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 6, "hog");
  const auto image = RequireTypedArray<double>(info, 0, "hog: image");
  const std::size_t H = RequireSize(info, 1, "hog: H", kMaxSide);
  const std::size_t W = RequireSize(info, 2, "hog: W", kMaxSide);
  const std::size_t C = RequireSize(info, 3, "hog: channels", 4);
  const std::size_t sbin = RequireSize(info, 4, "hog: sbin", 1024);
  auto out = RequireTypedArray<float>(info, 5, "hog: out");
  if (C == 0) throw Napi::RangeError::New(info.Env(), "hog: channels must be 1..4");
  if (sbin == 0) throw Napi::RangeError::New(info.Env(), "hog: sbin must be >= 1");
  RequireLength(image, H * W * C, "hog: image");
  RequireNoNaN(info.Env(), image.Data(), image.ElementLength(), "hog: image", false, false);
  std::size_t rows, cols;
  gapbcfw::hog::OutputShape(H, W, sbin, &rows, &cols);
  RequireLength(out, rows * cols * gapbcfw::hog::kFeatures, "hog: out");
  gapbcfw::hog::Compute(image.Data(), H, W, C, sbin, out.Data());
  return info.Env().Undefined();
}

Napi::Value FilterResponses(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 8, "filterResponses");
  const auto feat = RequireTypedArray<float>(info, 0, "filterResponses: feat");
  const std::size_t rows = RequireSize(info, 1, "filterResponses: rows", kMaxSide);
  const std::size_t cols = RequireSize(info, 2, "filterResponses: cols", kMaxSide);
  const std::size_t dim = RequireSize(info, 3, "filterResponses: dim", 4096);
  const auto w = RequireTypedArray<double>(info, 4, "filterResponses: w");
  const std::size_t nf = RequireSize(info, 5, "filterResponses: numFilters", 4096);
  const std::size_t k = RequireSize(info, 6, "filterResponses: k", 255);
  auto out = RequireTypedArray<double>(info, 7, "filterResponses: out");
  if (k % 2 == 0) throw Napi::RangeError::New(info.Env(), "filterResponses: k must be odd");
  RequireLength(feat, rows * cols * dim, "filterResponses: feat");
  if (w.ElementLength() < nf * k * k * dim) {
    throw Napi::RangeError::New(info.Env(), "filterResponses: w has length " + std::to_string(w.ElementLength()) +
                                                ", needs at least " + std::to_string(nf * k * k * dim));
  }
  RequireLength(out, nf * rows * cols, "filterResponses: out");
  gapbcfw::hog::FilterResponses(feat.Data(), rows, cols, dim, w.Data(), nf, k, out.Data());
  return info.Env().Undefined();
}

void Register(Napi::Env env, Napi::Object exports) {
  exports.Set("hog", Napi::Function::New(env, Hog, "hog"));
  exports.Set("hogShape", Napi::Function::New(env, HogShape, "hogShape"));
  exports.Set("filterResponses", Napi::Function::New(env, FilterResponses, "filterResponses"));
}

}  // namespace hogsec

// ============================================ end of HOG section =====================================

// =====================================================================================================
// Pose: batched loss-augmented decoding (filter responses + tree max-sum with GDT messages) on threads.
// =====================================================================================================
namespace posesec {

// poseDecodeBatch(features: Float32Array[] | null (image i: rows[i]*cols[i]*dim), maps: Float64Array[] | null
// (image i: P*rows[i]*cols[i] part score maps), rows: Int32Array (n), cols: Int32Array (n), dim, w: Float64Array,
// filterSize, parents: Int32Array (P), order: Int32Array (P), springs: Float64Array (6P: ax, bx, ay, by, mx, my
// per part), truthX: Int32Array (n*P) | null, truthY: Int32Array (n*P) | null, truthScale: Float64Array (n) |
// null, outX: Int32Array (n*P), outY: Int32Array (n*P), threads): the loss-augmented (or, with null truths,
// plain) argmax pose of every image (pose::DecodeBatch); exactly one of features/maps is given.
Napi::Value PoseDecodeBatch(const Napi::CallbackInfo& info) {
  const std::string fn = "poseDecodeBatch";
  const Napi::Env env = info.Env();
  auto rangeError = [&](const std::string& what) { return Napi::RangeError::New(env, fn + ": " + what); };
  auto typeError = [&](const std::string& what) { return Napi::TypeError::New(env, fn + ": " + what); };
  RequireArgCount(info, 16, fn.c_str());
  const bool fromMaps = info[0].IsNull();
  if (fromMaps == info[1].IsNull()) throw typeError("give exactly one of features and maps");
  const Napi::Value given = fromMaps ? info[1] : info[0];
  if (!given.IsArray()) throw typeError(fromMaps ? "maps must be an array of Float64Array" : "features must be an array of Float32Array");
  const Napi::Array list = given.As<Napi::Array>();
  const std::size_t n = list.Length();
  const auto rows = RequireTypedArray<int32_t>(info, 2, fn + ": rows");
  const auto cols = RequireTypedArray<int32_t>(info, 3, fn + ": cols");
  RequireLength(rows, n, fn + ": rows");
  RequireLength(cols, n, fn + ": cols");
  const std::size_t dim = RequireSize(info, 4, fn + ": dim", 4096);
  const auto w = RequireTypedArray<double>(info, 5, fn + ": w");
  const std::size_t k = RequireSize(info, 6, fn + ": filterSize", 255);
  const auto parents = RequireTypedArray<int32_t>(info, 7, fn + ": parents");
  const auto order = RequireTypedArray<int32_t>(info, 8, fn + ": order");
  const auto springValues = RequireTypedArray<double>(info, 9, fn + ": springs");
  const std::size_t P = parents.ElementLength();
  if (dim == 0 || k % 2 == 0 || P == 0) throw rangeError("need dim >= 1, an odd filterSize and >= 1 part");
  RequireLength(order, P, fn + ": order");
  RequireLength(springValues, 6 * P, fn + ": springs");
  const std::size_t filters = P * k * k * dim;
  if (w.ElementLength() < filters) {
    throw rangeError("w has length " + std::to_string(w.ElementLength()) + ", needs at least " + std::to_string(filters));
  }
  RequireNoNaN(env, w.Data(), filters, fn + ": w", false, false);
  // The order must list every part once, each after its parent, the root (parent -1) first.
  std::vector<char> placed(P, 0);
  for (std::size_t q = 0; q < P; ++q) {
    const int32_t p = order[q];
    if (p < 0 || static_cast<std::size_t>(p) >= P || placed[p]) throw rangeError("order must be a permutation of the parts");
    const int32_t parent = parents[p];
    const bool ok = q == 0 ? parent == -1 : parent >= 0 && static_cast<std::size_t>(parent) < P && placed[parent];
    if (!ok) throw rangeError("order[" + std::to_string(q) + "] = " + std::to_string(p) + " does not follow its parent (root first)");
    placed[p] = 1;
  }
  std::vector<gapbcfw::pose::Spring> springs(P);
  for (std::size_t p = 0; p < P; ++p) {
    const double* v = springValues.Data() + 6 * p;
    const std::string part = " (part " + std::to_string(p) + ")";
    RequireNoNaN(env, v, 6, fn + ": springs" + part, false, false);
    if (v[0] < 0 || v[2] < 0) throw rangeError("quadratic spring coefficients must be >= 0" + part);
    const bool offsetsOk = v[4] == std::floor(v[4]) && v[5] == std::floor(v[5]) && std::fabs(v[4]) <= hogsec::kMaxSide &&
                           std::fabs(v[5]) <= hogsec::kMaxSide;
    if (!offsetsOk) throw rangeError("mean offsets must be integers of at most 2^15 cells" + part);
    springs[p] = {v[0], v[1], v[2], v[3], static_cast<int32_t>(v[4]), static_cast<int32_t>(v[5])};
  }
  // Pointers into the images' arrays (read on the worker threads during this synchronous call).
  std::vector<const float*> features(fromMaps ? 0 : n);
  std::vector<const double*> maps(fromMaps ? n : 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = fn + (fromMaps ? ": maps[" : ": features[") + std::to_string(i) + "]";
    const std::size_t r = static_cast<std::size_t>(rows[i]), c = static_cast<std::size_t>(cols[i]);
    if (rows[i] < 1 || cols[i] < 1 || r > hogsec::kMaxSide || c > hogsec::kMaxSide) {
      throw rangeError("image " + std::to_string(i) + " needs a grid of 1 to 2^15 cells per side");
    }
    const Napi::Value v = list[i];
    const napi_typedarray_type type = fromMaps ? napi_float64_array : napi_float32_array;
    if (!v.IsTypedArray() || v.As<Napi::TypedArray>().TypedArrayType() != type) {
      throw Napi::TypeError::New(env, name + (fromMaps ? " must be a Float64Array" : " must be a Float32Array"));
    }
    if (fromMaps) {
      const auto m = v.As<Napi::Float64Array>();
      RequireLength(m, P * r * c, name);
      RequireNoNaN(env, m.Data(), P * r * c, name, false, false);
      maps[i] = m.Data();
    } else {
      const auto f = v.As<Napi::Float32Array>();
      RequireLength(f, r * c * dim, name);
      for (std::size_t q = 0; q < r * c * dim; ++q) {
        if (!std::isfinite(f[q])) throw Napi::RangeError::New(env, name + "[" + std::to_string(q) + "] is not finite");
      }
      features[i] = f.Data();
    }
  }
  const bool augmented = !info[10].IsNull();
  Napi::TypedArrayOf<int32_t> truthX, truthY;
  Napi::TypedArrayOf<double> truthScale;
  if (augmented) {
    truthX = RequireTypedArray<int32_t>(info, 10, fn + ": truthX");
    truthY = RequireTypedArray<int32_t>(info, 11, fn + ": truthY");
    truthScale = RequireTypedArray<double>(info, 12, fn + ": truthScale");
    RequireLength(truthX, n * P, fn + ": truthX");
    RequireLength(truthY, n * P, fn + ": truthY");
    RequireLength(truthScale, n, fn + ": truthScale");
    for (std::size_t i = 0; i < n; ++i) {
      const std::string image = "image " + std::to_string(i);
      if (!(truthScale[i] > 0) || !std::isfinite(truthScale[i])) throw rangeError("truthScale of " + image + " must be positive and finite");
      for (std::size_t p = 0; p < P; ++p) {
        const int32_t x = truthX[i * P + p], y = truthY[i * P + p];
        if (x < 0 || x >= cols[i] || y < 0 || y >= rows[i]) throw rangeError("truth of " + image + ", part " + std::to_string(p) + " lies outside its grid");
      }
    }
  }
  auto outX = RequireTypedArray<int32_t>(info, 13, fn + ": outX");
  auto outY = RequireTypedArray<int32_t>(info, 14, fn + ": outY");
  RequireLength(outX, n * P, fn + ": outX");
  RequireLength(outY, n * P, fn + ": outY");
  const int32_t threads = static_cast<int32_t>(std::max<std::size_t>(RequireSize(info, 15, fn + ": threads", 256), 1));
  const gapbcfw::pose::Tree tree{static_cast<int32_t>(P), parents.Data(), order.Data(), springs.data()};
  gapbcfw::pose::PoseBatch batch{};
  batch.n = static_cast<int32_t>(n);
  batch.maps = fromMaps ? maps.data() : nullptr;
  batch.features = fromMaps ? nullptr : features.data();
  batch.rows = rows.Data();
  batch.cols = cols.Data();
  batch.dim = static_cast<int32_t>(dim);
  batch.w = w.Data();
  batch.filter_size = static_cast<int32_t>(k);
  if (augmented) {
    batch.truth_x = truthX.Data();
    batch.truth_y = truthY.Data();
    batch.truth_scale = truthScale.Data();
  }
  try {
    gapbcfw::pose::DecodeBatch(batch, tree, outX.Data(), outY.Data(), threads);
  } catch (const std::bad_alloc&) {
    throw Napi::Error::New(env, fn + ": out of memory");
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, fn + ": " + e.what());
  }
  return env.Undefined();
}

void Register(Napi::Env env, Napi::Object exports) {
  exports.Set("poseDecodeBatch", Napi::Function::New(env, PoseDecodeBatch, "poseDecodeBatch"));
}

}  // namespace posesec

}  // namespace

// =====================================================================================================
// (3) Module initialisation: one Register call per section.
// =====================================================================================================
Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("version", Napi::Function::New(env, Version));
  gdtsec::Register(env, exports);
  chainsec::Register(env, exports);
  solversec::Register(env, exports);
  maxflowsec::Register(env, exports);
  slicsec::Register(env, exports);
  hogsec::Register(env, exports);
  posesec::Register(env, exports);
  return exports;
}

NODE_API_MODULE(gapbcfw, Init)
