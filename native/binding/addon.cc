// The Node-API module: a short registration file. Each area's bindings live in native/binding/<area>.cc
// (thin layers over the plain C++ cores in native/<area>/); shared argument checks in binding/common.h.
// Typed arrays cross the boundary zero-copy; every argument is validated in the binding and bad input
// throws a JS TypeError/RangeError instead of reaching the cores.
#include <napi.h>

#include <cmath>
#include <cstdint>

#include "binding/register.h"
#include "common/parallel.h"

namespace {

Napi::Value Version(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), "1"); }

// setThreads(n): the process-wide cap on the threads of every native call (the thread pool's thread_cap);
// 0 removes it. getThreads(): the cap, 0 when none is set.
Napi::Value SetThreads(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "setThreads: expected one number");
  const double n = info[0].As<Napi::Number>().DoubleValue();
  if (!(n >= 0 && n <= 256 && std::floor(n) == n)) throw Napi::RangeError::New(env, "setThreads: threads must be an integer in 0..256 (0: no cap)");
  gapbcfw::thread_cap().store(static_cast<int32_t>(n));
  return env.Undefined();
}

Napi::Value GetThreads(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), gapbcfw::thread_cap().load()); }

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  using namespace gapbcfw::binding;
  exports.Set("version", Napi::Function::New(env, Version));
  exports.Set("setThreads", Napi::Function::New(env, SetThreads));
  exports.Set("getThreads", Napi::Function::New(env, GetThreads));
  RegisterGdt(env, exports);
  RegisterScoring(env, exports);
  RegisterChain(env, exports);
  RegisterChainDecode(env, exports);
  RegisterBatch(env, exports);
  RegisterSolver(env, exports);
  RegisterBlocks(env, exports);
  RegisterSteps(env, exports);
  RegisterMaxflow(env, exports);
  RegisterSlic(env, exports);
  RegisterHog(env, exports);
  RegisterPose(env, exports);
  RegisterGraph(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(gapbcfw, Init)
