// The SparseBlocks object (binding/blocks.cc): sparse block storage shared by the TypeScript engine and the native
// step loop (binding/steps.cc takes it).
#pragma once
#include <napi.h>

#include <cstddef>
#include <memory>
#include <string>

#include "binding/prepared.h"
#include "solver/block_store.h"

namespace gapbcfw::binding {

constexpr napi_type_tag kSparseBlocksTag = {0x6761706263667731ULL, 0x7370626c6f636b31ULL};

class SparseBlocksWrap : public Napi::ObjectWrap<SparseBlocksWrap> {
 public:
  static Napi::Function Define(Napi::Env env);
  explicit SparseBlocksWrap(const Napi::CallbackInfo& info);
  SparseBlockStore* store() const { return store_.get(); }

 private:
  int32_t Block(const Napi::CallbackInfo& info, std::size_t k, const std::string& fn) const;
  double* Dense(const Napi::CallbackInfo& info, std::size_t k, const std::string& fn) const;
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value Update(const Napi::CallbackInfo& info);
  Napi::Value AddSparse(const Napi::CallbackInfo& info);
  Napi::Value Dot(const Napi::CallbackInfo& info);
  Napi::Value Replace(const Napi::CallbackInfo& info);
  Napi::Value Read(const Napi::CallbackInfo& info);
  Napi::Value SumInto(const Napi::CallbackInfo& info);
  Napi::Value ScaleAll(const Napi::CallbackInfo& info);
  Napi::Value Stored(const Napi::CallbackInfo& info);
  Napi::Value Save(const Napi::CallbackInfo& info);
  Napi::Value Load(const Napi::CallbackInfo& info);

  std::unique_ptr<SparseBlockStore> store_;
  int64_t d_ = 0;
};

// The store of a SparseBlocks object, null when v is none.
SparseBlockStore* SparseBlocksOf(Napi::Env env, Napi::Value v);

}  // namespace gapbcfw::binding
