// One Register function per binding file (native/binding/*.cc); addon.cc calls them all.
#pragma once
#include <napi.h>

namespace gapbcfw::binding {

void RegisterGdt(Napi::Env env, Napi::Object exports);
void RegisterScoring(Napi::Env env, Napi::Object exports);
void RegisterChain(Napi::Env env, Napi::Object exports);
void RegisterChainDecode(Napi::Env env, Napi::Object exports);
void RegisterBatch(Napi::Env env, Napi::Object exports);
void RegisterSolver(Napi::Env env, Napi::Object exports);
void RegisterBlocks(Napi::Env env, Napi::Object exports);
void RegisterSteps(Napi::Env env, Napi::Object exports);
void RegisterMaxflow(Napi::Env env, Napi::Object exports);
void RegisterSlic(Napi::Env env, Napi::Object exports);
void RegisterHog(Napi::Env env, Napi::Object exports);
void RegisterPose(Napi::Env env, Napi::Object exports);
void RegisterGraph(Napi::Env env, Napi::Object exports);

}  // namespace gapbcfw::binding
