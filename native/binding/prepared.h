// The prepared batches of built-in models that the native step loop runs on (binding/chain.cc, batch.cc): each is
// type-tagged when made, so that a step loop can check what it was handed, and is kept alive by the loop.
#pragma once
#include <napi.h>

#include <memory>
#include <string>

#include "binding/common.h"
#include "solver/block_model.h"

namespace gapbcfw::binding {

struct PreparedModel {
  std::unique_ptr<BlockModel> model;  // over the batch's arrays
  const PinnedArrays* pinned = nullptr;  // the batch's arrays, checked before every use
};

// The step model of a DenseChainBatch or SparseChainBatch (binding/chain.cc); model null when v is neither.
PreparedModel ChainStepModel(Napi::Env env, Napi::Value v);
// The step model of a MulticlassBatch (binding/batch.cc); model null when v is none.
PreparedModel MulticlassStepModel(Napi::Env env, Napi::Value v);

// Type tags of the prepared batches (napi_type_tag_object).
constexpr napi_type_tag kDenseChainTag = {0x6761706263667731ULL, 0x64656e7365636831ULL};
constexpr napi_type_tag kSparseChainTag = {0x6761706263667731ULL, 0x7370617273656368ULL};
constexpr napi_type_tag kMulticlassTag = {0x6761706263667731ULL, 0x6d756c7469636c31ULL};

// True when v is an object carrying `tag`.
inline bool HasTag(Napi::Env env, Napi::Value v, const napi_type_tag& tag) {
  if (!v.IsObject()) return false;
  bool result = false;
  return napi_check_object_type_tag(env, v, &tag, &result) == napi_ok && result;
}

}  // namespace gapbcfw::binding
