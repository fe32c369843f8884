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
#include "slic/slic.h"

namespace gapbcfw::binding {

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

void RegisterSlic(Napi::Env env, Napi::Object exports) { slicsec::Register(env, exports); }

}  // namespace gapbcfw::binding
