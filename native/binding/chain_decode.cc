// Bindings of native/scoring/chain_decode.h: the K best labellings and the max-marginals of one chain over
// given node scores and transitions (forbidden entries at -Infinity). Synchronous: one call is microseconds.
#include <napi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "binding/common.h"
#include "binding/register.h"
#include "scoring/chain_decode.h"

namespace gapbcfw::binding {

namespace {

// theta (Float64Array T*K) and trans (Float64Array K*K): numbers or -Infinity, never NaN or +Infinity.
void RequireScores(const Napi::CallbackInfo& info, const Napi::TypedArrayOf<double>& a, std::size_t length, const std::string& name) {
  if (a.ElementLength() < length) throw Napi::RangeError::New(info.Env(), name + " needs " + std::to_string(length) + " entries");
  RequireNoNaN(info.Env(), a.Data(), length, name, true, false);
}

struct ChainArgs {
  Napi::TypedArrayOf<double> theta;
  std::size_t T, K;
  Napi::TypedArrayOf<double> trans;
};

ChainArgs ReadChain(const Napi::CallbackInfo& info, const std::string& fn) {
  const auto theta = RequireTypedArray<double>(info, 0, fn + ": theta");
  const std::size_t T = RequireSize(info, 1, fn + ": T", 1u << 30);
  const std::size_t K = RequireSize(info, 2, fn + ": K", 1u << 15);
  if (K == 0 || T == 0) throw Napi::RangeError::New(info.Env(), fn + ": K and T must be >= 1");
  RequireScores(info, theta, T * K, fn + ": theta");
  const auto trans = RequireTypedArray<double>(info, 3, fn + ": trans");
  RequireScores(info, trans, K * K, fn + ": trans");
  return {theta, T, K, trans};
}

// chainKbest(theta, T, K, trans, N, outY: Int32Array (N*T), outScore: Float64Array (N)) -> count found.
Napi::Value ChainKbest(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 7, "chainKbest");
  const ChainArgs c = ReadChain(info, "chainKbest");
  const std::size_t N = RequireSize(info, 4, "chainKbest: N", 1u << 20);
  if (N == 0) throw Napi::RangeError::New(info.Env(), "chainKbest: N must be >= 1");
  auto outY = RequireTypedArray<int32_t>(info, 5, "chainKbest: outY");
  RequireLength(outY, N * c.T, "chainKbest: outY");
  auto outScore = RequireTypedArray<double>(info, 6, "chainKbest: outScore");
  RequireLength(outScore, N, "chainKbest: outScore");
  thread_local KbestWork work;
  const int32_t found = chain_kbest(c.trans.Data(), static_cast<int32_t>(c.K), c.theta.Data(), static_cast<int32_t>(c.T), static_cast<int32_t>(N),
                                    outY.Data(), outScore.Data(), work);
  return Napi::Number::New(info.Env(), found);
}

// chainMaxMarginals(theta, T, K, trans, out: Float64Array (T*K)).
Napi::Value ChainMaxMarginals(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 5, "chainMaxMarginals");
  const ChainArgs c = ReadChain(info, "chainMaxMarginals");
  auto out = RequireTypedArray<double>(info, 4, "chainMaxMarginals: out");
  RequireLength(out, c.T * c.K, "chainMaxMarginals: out");
  thread_local std::vector<double> work;
  chain_max_marginals(c.trans.Data(), static_cast<int32_t>(c.K), c.theta.Data(), static_cast<int32_t>(c.T), out.Data(), work);
  return info.Env().Undefined();
}

}  // namespace

void RegisterChainDecode(Napi::Env env, Napi::Object exports) {
  exports.Set("chainKbest", Napi::Function::New(env, ChainKbest, "chainKbest"));
  exports.Set("chainMaxMarginals", Napi::Function::New(env, ChainMaxMarginals, "chainMaxMarginals"));
}

}  // namespace gapbcfw::binding
