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
#include "scoring/chain.h"
#include "scoring/rows.h"
#include "scoring/segmentation.h"

namespace gapbcfw::binding {

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

void RegisterScoring(Napi::Env env, Napi::Object exports) { chainsec::Register(env, exports); }

}  // namespace gapbcfw::binding
