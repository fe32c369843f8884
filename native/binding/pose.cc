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
#include "pose/tree.h"
#include "hog/hog.h"

namespace gapbcfw::binding {

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
    const bool offsetsOk = v[4] == std::floor(v[4]) && v[5] == std::floor(v[5]) && std::fabs(v[4]) <= kMaxImageSide &&
                           std::fabs(v[5]) <= kMaxImageSide;
    if (!offsetsOk) throw rangeError("mean offsets must be integers of at most 2^15 cells" + part);
    springs[p] = {v[0], v[1], v[2], v[3], static_cast<int32_t>(v[4]), static_cast<int32_t>(v[5])};
  }
  // Pointers into the images' arrays (read on the worker threads during this synchronous call).
  std::vector<const float*> features(fromMaps ? 0 : n);
  std::vector<const double*> maps(fromMaps ? n : 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = fn + (fromMaps ? ": maps[" : ": features[") + std::to_string(i) + "]";
    const std::size_t r = static_cast<std::size_t>(rows[i]), c = static_cast<std::size_t>(cols[i]);
    if (rows[i] < 1 || cols[i] < 1 || r > kMaxImageSide || c > kMaxImageSide) {
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

void RegisterPose(Napi::Env env, Napi::Object exports) { posesec::Register(env, exports); }

}  // namespace gapbcfw::binding
