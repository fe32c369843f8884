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
#include "hog/hog.h"

namespace gapbcfw::binding {

// =====================================================================================================
// (2f) HOG section: Felzenszwalb 31-dim HOG cells and linear filter responses (native/hog/hog.h).
//     hog(image: Float64Array (H*W*C), H, W, C (1..4), sbin, out: Float32Array (rows*cols*31))
//       with rows = max(round(H/sbin)-2, 0), cols likewise (see hogShape).
//     hogShape(H, W, sbin) -> [rows, cols]
//     filterResponses(feat: Float32Array (rows*cols*dim), rows, cols, dim, w: Float64Array
//       (numFilters*k*k*dim), numFilters, k (odd), out: Float64Array (numFilters*rows*cols))
// =====================================================================================================
namespace hogsec {

Napi::Value HogShape(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 3, "hogShape");
  const std::size_t H = RequireSize(info, 0, "hogShape: H", kMaxImageSide);
  const std::size_t W = RequireSize(info, 1, "hogShape: W", kMaxImageSide);
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
  const std::size_t H = RequireSize(info, 1, "hog: H", kMaxImageSide);
  const std::size_t W = RequireSize(info, 2, "hog: W", kMaxImageSide);
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
  const std::size_t rows = RequireSize(info, 1, "filterResponses: rows", kMaxImageSide);
  const std::size_t cols = RequireSize(info, 2, "filterResponses: cols", kMaxImageSide);
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

void RegisterHog(Napi::Env env, Napi::Object exports) { hogsec::Register(env, exports); }

}  // namespace gapbcfw::binding
