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
#include "gdt/gdt.h"

namespace gapbcfw::binding {

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

void RegisterGdt(Napi::Env env, Napi::Object exports) { gdtsec::Register(env, exports); }

}  // namespace gapbcfw::binding
