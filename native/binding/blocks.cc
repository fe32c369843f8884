// Sparse block storage of block-coordinate Frank-Wolfe (native/solver/block_store.h): the per-block vectors w_i of
// both engines on huge sparse feature maps (src/solvers/blocks.ts SparseBlocks, and the native step loop, which takes
// this object). Hot per-step methods take positional arguments, as blockStats does; indices are checked against d.
#include <napi.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "binding/blocks.h"
#include "binding/common.h"
#include "binding/register.h"

namespace gapbcfw::binding {

namespace {

// A sparse vector argument (idx: Int32Array, val: Float64Array, nnz) at info[k..k+2], indices in [0, d).
SparseRef SparseArg(const Napi::CallbackInfo& info, std::size_t k, int64_t d, const std::string& fn) {
  const auto idx = RequireTypedArray<int32_t>(info, k, fn + ": idx");
  const auto val = RequireTypedArray<double>(info, k + 1, fn + ": val");
  const std::size_t nnz = RequireSize(info, k + 2, fn + ": nnz", std::min(idx.ElementLength(), val.ElementLength()));
  for (std::size_t q = 0; q < nnz; ++q) {
    if (idx[q] < 0 || idx[q] >= d) throw Napi::RangeError::New(info.Env(), fn + ": idx[" + std::to_string(q) + "] = " + std::to_string(idx[q]) + " is outside 0.." + std::to_string(d - 1));
  }
  return {idx.Data(), val.Data(), static_cast<int64_t>(nnz)};
}

}  // namespace

Napi::Function SparseBlocksWrap::Define(Napi::Env env) {
  return DefineClass(env, "SparseBlocks",
                     {InstanceMethod<&SparseBlocksWrap::Stats>("stats"), InstanceMethod<&SparseBlocksWrap::Update>("update"),
                      InstanceMethod<&SparseBlocksWrap::AddSparse>("addSparse"), InstanceMethod<&SparseBlocksWrap::Dot>("dot"),
                      InstanceMethod<&SparseBlocksWrap::Replace>("replace"), InstanceMethod<&SparseBlocksWrap::Read>("read"),
                      InstanceMethod<&SparseBlocksWrap::SumInto>("sumInto"), InstanceMethod<&SparseBlocksWrap::ScaleAll>("scaleAll"),
                      InstanceMethod<&SparseBlocksWrap::Save>("save"), InstanceMethod<&SparseBlocksWrap::Load>("load"),
                      InstanceAccessor<&SparseBlocksWrap::Stored>("stored")});
}

// new SparseBlocks({ n, d })
SparseBlocksWrap::SparseBlocksWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SparseBlocksWrap>(info) {
  const Napi::Object o = RequireOptions(info, 0, "SparseBlocks");
  const auto n = static_cast<int32_t>(OptionSize(o, "n", "SparseBlocks", 1, (std::size_t{1} << 31) - 1));
  const auto d = static_cast<int64_t>(OptionSize(o, "d", "SparseBlocks", 1, (std::size_t{1} << 31) - 1));
  store_ = std::make_unique<SparseBlockStore>(n, d);
  d_ = d;
  napi_type_tag_object(info.Env(), info.This(), &kSparseBlocksTag);
}

int32_t SparseBlocksWrap::Block(const Napi::CallbackInfo& info, std::size_t k, const std::string& fn) const {
  return static_cast<int32_t>(RequireSize(info, k, fn + ": block", static_cast<std::size_t>(store_->n()) - 1));
}

double* SparseBlocksWrap::Dense(const Napi::CallbackInfo& info, std::size_t k, const std::string& fn) const {
  auto a = RequireTypedArray<double>(info, k, fn);
  RequireLength(a, static_cast<std::size_t>(d_), fn);
  return a.Data();
}

// stats(i, w, idx, val, nnz, out: Float64Array(3)): out = [<w_i, w>, ||w_i||^2, <w_i, psi>].
Napi::Value SparseBlocksWrap::Stats(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 6, "SparseBlocks.stats");
  const int32_t i = Block(info, 0, "SparseBlocks.stats");
  const double* w = Dense(info, 1, "SparseBlocks.stats: w");
  const SparseRef psi = SparseArg(info, 2, d_, "SparseBlocks.stats");
  auto out = RequireTypedArray<double>(info, 5, "SparseBlocks.stats: out");
  RequireLength(out, 3, "SparseBlocks.stats: out");
  double dw, sq;
  store_->sums(i, w, dw, sq);
  out[0] = dw;
  out[1] = sq;
  out[2] = store_->dot_sparse(i, psi);
  return info.Env().Undefined();
}

// update(i, w, idx, val, nnz, gamma, scale): w_i <- (1 - gamma) w_i + gamma * scale * psi, w by the same difference.
Napi::Value SparseBlocksWrap::Update(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 7, "SparseBlocks.update");
  const int32_t i = Block(info, 0, "SparseBlocks.update");
  double* w = Dense(info, 1, "SparseBlocks.update: w");
  const SparseRef psi = SparseArg(info, 2, d_, "SparseBlocks.update");
  store_->update(i, w, nullptr, psi, RequireFinite(info, 5, "SparseBlocks.update: gamma"), RequireFinite(info, 6, "SparseBlocks.update: scale"), 0);
  return info.Env().Undefined();
}

// addSparse(i, w, idx, val, nnz, scale): w_i += scale * v, w += scale * v.
Napi::Value SparseBlocksWrap::AddSparse(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 6, "SparseBlocks.addSparse");
  const int32_t i = Block(info, 0, "SparseBlocks.addSparse");
  double* w = Dense(info, 1, "SparseBlocks.addSparse: w");
  const SparseRef v = SparseArg(info, 2, d_, "SparseBlocks.addSparse");
  store_->add_sparse(i, w, v, RequireFinite(info, 5, "SparseBlocks.addSparse: scale"));
  return info.Env().Undefined();
}

// dot(i, v) = <w_i, v>.
Napi::Value SparseBlocksWrap::Dot(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 2, "SparseBlocks.dot");
  const int32_t i = Block(info, 0, "SparseBlocks.dot");
  return Napi::Number::New(info.Env(), store_->dot(i, Dense(info, 1, "SparseBlocks.dot: v")));
}

// replace(i, w, values: Float64Array(d)): w_i <- values, w by the difference.
Napi::Value SparseBlocksWrap::Replace(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 3, "SparseBlocks.replace");
  const int32_t i = Block(info, 0, "SparseBlocks.replace");
  store_->replace(i, Dense(info, 1, "SparseBlocks.replace: w"), Dense(info, 2, "SparseBlocks.replace: values"));
  return info.Env().Undefined();
}

// read(i, out: Float64Array(d)): w_i densely.
Napi::Value SparseBlocksWrap::Read(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 2, "SparseBlocks.read");
  const int32_t i = Block(info, 0, "SparseBlocks.read");
  double* out = Dense(info, 1, "SparseBlocks.read: out");
  std::fill(out, out + d_, 0.0);
  const auto& idx = store_->indices(i);
  const auto& val = store_->values(i);
  for (std::size_t q = 0; q < idx.size(); ++q) out[idx[q]] = val[q];
  return info.Env().Undefined();
}

Napi::Value SparseBlocksWrap::SumInto(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 1, "SparseBlocks.sumInto");
  store_->sum_into(Dense(info, 0, "SparseBlocks.sumInto: w"));
  return info.Env().Undefined();
}

Napi::Value SparseBlocksWrap::ScaleAll(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 1, "SparseBlocks.scaleAll");
  store_->scale_all(RequireFinite(info, 0, "SparseBlocks.scaleAll: s"));
  return info.Env().Undefined();
}

Napi::Value SparseBlocksWrap::Stored(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), static_cast<double>(store_->stored())); }

// save() -> { blockPtr: Int32Array(n+1), blockIdx: Int32Array, blockVal: Float64Array }.
Napi::Value SparseBlocksWrap::Save(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const int32_t n = store_->n();
  auto ptr = Napi::Int32Array::New(env, static_cast<std::size_t>(n) + 1);
  const auto total = static_cast<std::size_t>(store_->stored());
  auto idx = Napi::Int32Array::New(env, total);
  auto val = Napi::Float64Array::New(env, total);
  std::size_t o = 0;
  ptr[0] = 0;
  for (int32_t i = 0; i < n; ++i) {
    const auto& bi = store_->indices(i);
    const auto& bv = store_->values(i);
    for (std::size_t q = 0; q < bi.size(); ++q, ++o) {
      idx[o] = bi[q];
      val[o] = bv[q];
    }
    ptr[static_cast<std::size_t>(i) + 1] = static_cast<int32_t>(o);
  }
  Napi::Object out = Napi::Object::New(env);
  out.Set("blockPtr", ptr);
  out.Set("blockIdx", idx);
  out.Set("blockVal", val);
  return out;
}

// load({ blockPtr, blockIdx, blockVal }): checked (increasing pointers, indices in [0, d), distinct per block, finite).
Napi::Value SparseBlocksWrap::Load(const Napi::CallbackInfo& info) {
  const std::string fn = "SparseBlocks.load";
  const Napi::Object o = RequireOptions(info, 0, fn);
  const auto ptr = OptionTypedArray<int32_t>(o, "blockPtr", fn);
  const auto idx = OptionTypedArray<int32_t>(o, "blockIdx", fn);
  const auto val = OptionTypedArray<double>(o, "blockVal", fn);
  const int32_t n = store_->n();
  RequireLength(ptr, static_cast<std::size_t>(n) + 1, fn + ": blockPtr");
  RequireLength(val, idx.ElementLength(), fn + ": blockVal");
  RequireNoNaN(info.Env(), val.Data(), val.ElementLength(), fn + ": blockVal", false, false);
  if (ptr[0] != 0 || static_cast<std::size_t>(ptr[static_cast<std::size_t>(n)]) != idx.ElementLength()) throw Napi::RangeError::New(info.Env(), fn + ": blockPtr must run from 0 to blockIdx.length");
  std::vector<int32_t> seen(static_cast<std::size_t>(d_), -1);
  for (int32_t i = 0; i < n; ++i) {
    const int32_t a = ptr[static_cast<std::size_t>(i)], b = ptr[static_cast<std::size_t>(i) + 1];
    if (b < a) throw Napi::RangeError::New(info.Env(), fn + ": blockPtr is not increasing");
    for (int32_t q = a; q < b; ++q) {
      const int32_t j = idx[static_cast<std::size_t>(q)];
      if (j < 0 || j >= d_ || seen[static_cast<std::size_t>(j)] == i) throw Napi::RangeError::New(info.Env(), fn + ": block " + std::to_string(i) + " has coordinate " + std::to_string(j) + " outside 0.." + std::to_string(d_ - 1) + " or twice");
      seen[static_cast<std::size_t>(j)] = i;
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    const int32_t a = ptr[static_cast<std::size_t>(i)], b = ptr[static_cast<std::size_t>(i) + 1];
    store_->load(i, idx.Data() + a, val.Data() + a, b - a);
  }
  return info.Env().Undefined();
}

SparseBlockStore* SparseBlocksOf(Napi::Env env, Napi::Value v) {
  if (!HasTag(env, v, kSparseBlocksTag)) return nullptr;
  return SparseBlocksWrap::Unwrap(v.As<Napi::Object>())->store();
}

void RegisterBlocks(Napi::Env env, Napi::Object exports) { exports.Set("SparseBlocks", SparseBlocksWrap::Define(env)); }

}  // namespace gapbcfw::binding
