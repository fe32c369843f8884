// Shared pieces of the Node-API bindings: argument validation helpers used by every binding file.
// Convention: a wrong JS type throws Napi::TypeError; a value of the right type but out of range
// (length mismatch, NaN, negative coefficient...) throws Napi::RangeError. `name` is the full label
// used in messages, e.g. "gdt1d: f".
#pragma once
#include <napi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace gapbcfw::binding {

/// Largest image side (rows or columns) the HOG and pose bindings accept.
constexpr std::size_t kMaxImageSide = 1u << 15;


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

inline const char* TypedArrayTypeName(napi_typedarray_type t) {
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
inline std::string DescribeValue(const Napi::Value& v) {
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

inline std::string FormatNumber(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

/// Throws a TypeError unless at least `count` arguments were passed.
inline void RequireArgCount(const Napi::CallbackInfo& info, std::size_t count, const char* fn) {
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

/// A typed array's kind, data and length in one N-API call (ok false when v is no typed array): for hot
/// entry points that accept several kinds (TypedArrayValue makes a few calls per array).
struct ArrayView {
  napi_typedarray_type type = napi_int8_array;
  void* data = nullptr;
  std::size_t length = 0;
  bool ok = false;
};
inline ArrayView ViewOf(const Napi::Value& v) {
  ArrayView a;
  a.ok = napi_get_typedarray_info(v.Env(), v, &a.type, &a.length, &a.data, nullptr, nullptr) == napi_ok;
  return a;
}

/// Throws a RangeError unless the viewed array has exactly `expected` elements.
inline void RequireViewLength(const Napi::Value& v, const ArrayView& a, std::size_t expected, const std::string& name) {
  if (a.length != expected) {
    throw Napi::RangeError::New(v.Env(), name + " has length " + std::to_string(a.length) + ", expected " + std::to_string(expected));
  }
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
inline double RequireNumber(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name) {
  const Napi::Value v = info[idx];
  if (!v.IsNumber()) throw Napi::TypeError::New(info.Env(), name + " must be a number, got " + DescribeValue(v));
  return v.As<Napi::Number>().DoubleValue();
}

/// A finite number (RangeError on NaN / +-Infinity).
inline double RequireFinite(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name) {
  const double x = RequireNumber(info, idx, name);
  if (!std::isfinite(x)) throw Napi::RangeError::New(info.Env(), name + " must be finite, got " + FormatNumber(x));
  return x;
}

/// A finite number >= 0.
inline double RequireNonNegativeFinite(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name) {
  const double x = RequireFinite(info, idx, name);
  if (x < 0) throw Napi::RangeError::New(info.Env(), name + " must be >= 0, got " + FormatNumber(x));
  return x;
}

/// An integer in [0, max] (a count or a dimension).
inline std::size_t RequireSize(const Napi::CallbackInfo& info, std::size_t idx, const std::string& name,
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
inline void RequireNoNaN(Napi::Env env, const double* data, std::size_t n, const std::string& name,
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
inline bool BytesOverlap(const void* a, std::size_t na, const void* b, std::size_t nb) {
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

// ---- Option objects -------------------------------------------------------------------------------------
// Bindings that take more than a few arguments take one options object; `fn` prefixes every message, e.g.
// "ChainBatch.viterbi: labels must be an Int32Array, got undefined".

/// info[idx] as an options object (TypeError otherwise).
inline Napi::Object RequireOptions(const Napi::CallbackInfo& info, std::size_t idx, const std::string& fn) {
  const Napi::Value v = info[idx];
  if (!v.IsObject() || v.IsArray() || v.IsTypedArray() || v.IsFunction()) {
    throw Napi::TypeError::New(info.Env(), fn + ": expected an options object, got " + DescribeValue(v));
  }
  return v.As<Napi::Object>();
}

/// True when the option is absent (undefined) or null.
inline bool OptionAbsent(const Napi::Object& o, const char* key) {
  const Napi::Value v = o.Get(key);
  return v.IsUndefined() || v.IsNull();
}

/// options[key] as a typed array of element type T.
template <typename T>
Napi::TypedArrayOf<T> OptionTypedArray(const Napi::Object& o, const char* key, const std::string& fn) {
  return TypedArrayValue<T>(o.Get(key), fn + ": " + key);
}

/// options[key] as an integer in [min, max] (RangeError otherwise; TypeError unless a number).
inline std::size_t OptionSize(const Napi::Object& o, const char* key, const std::string& fn, std::size_t min, std::size_t max) {
  const Napi::Value v = o.Get(key);
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), fn + ": " + key + " must be a number, got " + DescribeValue(v));
  const double x = v.As<Napi::Number>().DoubleValue();
  if (!(x >= static_cast<double>(min)) || x != std::floor(x) || x > static_cast<double>(max)) {
    throw Napi::RangeError::New(o.Env(), fn + ": " + key + " must be an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                             "], got " + FormatNumber(x));
  }
  return static_cast<std::size_t>(x);
}

/// options[key] as a finite number (TypeError unless a number, RangeError when NaN or infinite).
inline double OptionFinite(const Napi::Object& o, const char* key, const std::string& fn) {
  const Napi::Value v = o.Get(key);
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), fn + ": " + key + " must be a number, got " + DescribeValue(v));
  const double x = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(x)) throw Napi::RangeError::New(o.Env(), fn + ": " + key + " must be finite, got " + FormatNumber(x));
  return x;
}

/// options[key] as a boolean (`fallback` when absent).
inline bool OptionBool(const Napi::Object& o, const char* key, const std::string& fn, bool fallback) {
  const Napi::Value v = o.Get(key);
  if (v.IsUndefined()) return fallback;
  if (!v.IsBoolean()) throw Napi::TypeError::New(o.Env(), fn + ": " + key + " must be a boolean, got " + DescribeValue(v));
  return v.As<Napi::Boolean>().Value();
}

/// options.threads: native threads of the call, an integer in [1, 256] (1 when absent).
inline int32_t OptionThreads(const Napi::Object& o, const std::string& fn) {
  const Napi::Value v = o.Get("threads");
  if (v.IsUndefined() || v.IsNull()) return 1;
  const double x = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : 0;
  if (!(x >= 1) || x != std::floor(x) || x > 256) {
    throw Napi::RangeError::New(o.Env(), fn + ": threads must be an integer in [1, 256], got " + DescribeValue(v) + (v.IsNumber() ? " " + FormatNumber(x) : ""));
  }
  return static_cast<int32_t>(x);
}

/// Throws a RangeError unless `arr` has at least `expected` elements.
template <typename T>
void RequireMinLength(const Napi::TypedArrayOf<T>& arr, std::size_t expected, const std::string& name) {
  if (arr.ElementLength() < expected) {
    throw Napi::RangeError::New(arr.Env(), name + " has length " + std::to_string(arr.ElementLength()) + ", needs at least " +
                                               std::to_string(expected));
  }
}

/// The examples a call works on: options.items (an Int32Array of distinct-or-not indices in [0, n); its first
/// options.count entries, all of them when count is absent) or, when items is absent, all n examples.
/// Returns {pointer or null, count}.
inline std::pair<const int32_t*, int64_t> OptionItems(const Napi::Object& o, std::size_t n, const std::string& fn) {
  const Napi::Value list = o.Get("items");
  const Napi::Value count = o.Get("count");
  if (list.IsUndefined() || list.IsNull()) {
    if (!count.IsUndefined() && !count.IsNull()) throw Napi::TypeError::New(o.Env(), fn + ": count needs items");
    return {nullptr, static_cast<int64_t>(n)};
  }
  const auto items = TypedArrayValue<int32_t>(list, fn + ": items");
  std::size_t m = items.ElementLength();
  if (!count.IsUndefined() && !count.IsNull()) {
    const double c = count.IsNumber() ? count.As<Napi::Number>().DoubleValue() : -1;
    if (!(c >= 0) || c != std::floor(c) || c > static_cast<double>(m)) {
      throw Napi::RangeError::New(o.Env(), fn + ": count must be an integer in [0, " + std::to_string(m) + "], got " + DescribeValue(count));
    }
    m = static_cast<std::size_t>(c);
  }
  const int32_t* index = items.Data();
  for (std::size_t q = 0; q < m; ++q) {
    if (index[q] < 0 || static_cast<std::size_t>(index[q]) >= n) {
      throw Napi::RangeError::New(o.Env(), fn + ": items[" + std::to_string(q) + "] = " + std::to_string(index[q]) + " is outside 0.." +
                                               std::to_string(n - 1));
    }
  }
  return {index, static_cast<int64_t>(m)};
}

/// Typed arrays a prepared native object keeps (per-pass-constant data handed over once): references that
/// keep them alive, and the pointer and size seen when they were pinned. `Check` (called on every use)
/// throws a RangeError if one was since detached (transferred) or is otherwise no longer where it was, so a
/// prepared object never reads freed memory.
class PinnedArrays {
 public:
  template <typename T>
  const T* Pin(const Napi::TypedArrayOf<T>& a) {
    refs_.push_back(Napi::Persistent(static_cast<Napi::Value>(a)));
    seen_.push_back({a.Data(), a.ElementLength()});
    return a.Data();
  }
  template <typename T>
  T* PinMutable(Napi::TypedArrayOf<T>& a) {
    Pin(a);
    return a.Data();
  }
  void Check(Napi::Env env, const std::string& fn) const {
    // Two raw N-API calls per array (the wrappers would make several): a detached buffer reports no data.
    for (std::size_t k = 0; k < refs_.size(); ++k) {
      napi_value value;
      void* data = nullptr;
      std::size_t length = 0;
      napi_typedarray_type type;
      napi_value buffer;
      std::size_t offset = 0;
      if (napi_get_reference_value(env, refs_[k], &value) != napi_ok ||
          napi_get_typedarray_info(env, value, &type, &length, &data, &buffer, &offset) != napi_ok || data != seen_[k].first ||
          length != seen_[k].second) {
        throw Napi::RangeError::New(env, fn + ": an array handed to the prepared object was detached or moved; prepare it again");
      }
    }
  }
  // Lets go of the arrays now (a finalizer would only run once the event loop turns: never inside a synchronous run).
  void Release() {
    refs_.clear();
    seen_.clear();
  }

 private:
  std::vector<Napi::Reference<Napi::Value>> refs_;
  std::vector<std::pair<const void*, std::size_t>> seen_;
};

}  // namespace gapbcfw::binding
