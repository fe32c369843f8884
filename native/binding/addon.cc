// The Node-API module: a short registration file. Each area's bindings live in native/binding/<area>.cc
// (thin layers over the plain C++ cores in native/<area>/); shared argument checks in binding/common.h.
// Typed arrays cross the boundary zero-copy; every argument is validated in the binding and bad input
// throws a JS TypeError/RangeError instead of reaching the cores.
#include <napi.h>

#include "binding/register.h"

namespace {

Napi::Value Version(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), "1"); }

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  using namespace gapbcfw::binding;
  exports.Set("version", Napi::Function::New(env, Version));
  RegisterGdt(env, exports);
  RegisterScoring(env, exports);
  RegisterChain(env, exports);
  RegisterBatch(env, exports);
  RegisterSolver(env, exports);
  RegisterMaxflow(env, exports);
  RegisterSlic(env, exports);
  RegisterHog(env, exports);
  RegisterPose(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(gapbcfw, Init)
