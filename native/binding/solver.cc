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
#include <unordered_map>
#include <utility>
#include <vector>

#include "binding/common.h"
#include "binding/register.h"
#include "common/background.h"
#include "solver/block_update.h"

namespace gapbcfw::binding {

// =====================================================================================================
// (2c) Solver section: dense kernels of a BCFW block step (native/solver/block_update.h).
// =====================================================================================================
namespace solversec {

struct SparseArgs {
  const int32_t* idx;
  const double* val;
  int64_t nnz;
};

// Reads (idx: Int32Array, val: Float64Array, nnz) at info[i..i+2] and checks every index is in [0, d).
SparseArgs RequireSparse(const Napi::CallbackInfo& info, std::size_t i, std::size_t d, const char* fn) {
  const auto idx = RequireTypedArray<int32_t>(info, i, std::string(fn) + ": idx");
  const auto val = RequireTypedArray<double>(info, i + 1, std::string(fn) + ": val");
  const std::size_t nnz = RequireSize(info, i + 2, std::string(fn) + ": nnz", std::min(idx.ElementLength(), val.ElementLength()));
  for (std::size_t q = 0; q < nnz; ++q) {
    if (idx[q] < 0 || static_cast<std::size_t>(idx[q]) >= d) {
      throw Napi::RangeError::New(info.Env(), std::string(fn) + ": idx[" + std::to_string(q) + "] = " + std::to_string(idx[q]) +
                                                  " is outside 0.." + std::to_string(d - 1));
    }
  }
  return {idx.Data(), val.Data(), static_cast<int64_t>(nnz)};
}

// Threads of a dense sweep: info[i], an integer in 1..256.
int32_t RequireThreads(const Napi::CallbackInfo& info, std::size_t i, const char* fn) {
  const double t = RequireFinite(info, i, std::string(fn) + ": threads");
  if (!(t >= 1 && t <= 256 && std::floor(t) == t)) throw Napi::RangeError::New(info.Env(), std::string(fn) + ": threads must be an integer in 1..256");
  return static_cast<int32_t>(t);
}

// blockStats(wi, w, idx, val, nnz, out: Float64Array(3), chunked, threads) -> out = [<wi,w>, ||wi||^2, <wi,psi>]
// (chunked: per-chunk dense sums, the same on any number of threads; see block_update.h).
Napi::Value BlockStats(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 8, "blockStats");
  const auto wi = RequireTypedArray<double>(info, 0, "blockStats: wi");
  const auto w = RequireTypedArray<double>(info, 1, "blockStats: w");
  RequireLength(w, wi.ElementLength(), "blockStats: w");
  const SparseArgs s = RequireSparse(info, 2, wi.ElementLength(), "blockStats");
  auto out = RequireTypedArray<double>(info, 5, "blockStats: out");
  RequireLength(out, 3, "blockStats: out");
  if (!info[6].IsBoolean()) throw Napi::TypeError::New(info.Env(), "blockStats: chunked must be a boolean");
  const bool chunked = info[6].As<Napi::Boolean>().Value();
  const int32_t threads = RequireThreads(info, 7, "blockStats");
  const gapbcfw::BlockStats r = gapbcfw::block_stats(wi.Data(), w.Data(), static_cast<int64_t>(wi.ElementLength()), s.idx, s.val, s.nnz, chunked, threads);
  out[0] = r.wi_dot_w;
  out[1] = r.wi_sq;
  out[2] = r.wi_dot_psi;
  return info.Env().Undefined();
}

// A background blockDots: its copy of w, and references that keep the arrays it reads and writes alive.
struct DotsJob {
  std::vector<double> w;
  std::vector<Napi::ObjectReference> refs;
};

// Background blockDots by ticket, until waited for (the JavaScript thread only).
std::unordered_map<uint64_t, std::unique_ptr<DotsJob>>& dotsJobs() {
  static std::unordered_map<uint64_t, std::unique_ptr<DotsJob>> jobs;
  return jobs;
}

// blockDots(blocks, which, count, w, out, threads, background?): out[q] = <row which[q] of blocks, w>, rows of
// w's length (see block_update.h). With `background`, the sums are taken at a copy of w on the background
// queue's thread and the call returns a ticket for waitBackground; until then the caller must not write the
// rows it reads, nor which and out.
Napi::Value BlockDots(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 6, "blockDots");
  const auto blocks = RequireTypedArray<double>(info, 0, "blockDots: blocks");
  const auto which = RequireTypedArray<int32_t>(info, 1, "blockDots: which");
  const std::size_t count = RequireSize(info, 2, "blockDots: count", which.ElementLength());
  const auto w = RequireTypedArray<double>(info, 3, "blockDots: w");
  auto out = RequireTypedArray<double>(info, 4, "blockDots: out");
  const int32_t threads = RequireThreads(info, 5, "blockDots");
  const std::size_t d = w.ElementLength();
  if (d == 0 || blocks.ElementLength() % d != 0) throw Napi::RangeError::New(info.Env(), "blockDots: blocks must be whole rows of w's length");
  if (out.ElementLength() < count) throw Napi::RangeError::New(info.Env(), "blockDots: out needs count entries");
  const std::size_t n = blocks.ElementLength() / d;
  for (std::size_t q = 0; q < count; ++q) {
    if (which[q] < 0 || static_cast<std::size_t>(which[q]) >= n) {
      throw Napi::RangeError::New(info.Env(), "blockDots: which[" + std::to_string(q) + "] is outside 0.." + std::to_string(n - 1));
    }
  }
  if (info.Length() < 7 || !info[6].ToBoolean()) {
    gapbcfw::block_dots(blocks.Data(), static_cast<int64_t>(d), which.Data(), static_cast<int64_t>(count), w.Data(), out.Data(), threads);
    return info.Env().Undefined();
  }
  // In the background: a copy of w; blocks, which and out stay referenced until waitBackground.
  auto job = std::make_unique<DotsJob>();
  job->w.assign(w.Data(), w.Data() + d);
  for (std::size_t k : {0, 1, 4}) job->refs.push_back(Napi::Persistent(info[k].As<Napi::Object>()));
  const double* data = blocks.Data();
  const int32_t* rows = which.Data();
  double* result = out.Data();
  // The job holds no reference (they are N-API objects, released on this thread by waitBackground).
  const double* wcopy = job->w.data();
  const uint64_t ticket = BackgroundQueue::instance().submit([wcopy, data, rows, result, d, count, threads] {
    gapbcfw::block_dots(data, static_cast<int64_t>(d), rows, static_cast<int64_t>(count), wcopy, result, threads);
  });
  dotsJobs()[ticket] = std::move(job);
  return Napi::Number::New(info.Env(), static_cast<double>(ticket));
}

// waitBackground(ticket): waits for a background blockDots and releases what it held.
Napi::Value WaitBackground(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 1, "waitBackground");
  const double t = RequireFinite(info, 0, "waitBackground: ticket");
  const auto it = dotsJobs().find(static_cast<uint64_t>(t));
  if (!(t >= 1 && std::floor(t) == t) || it == dotsJobs().end()) throw Napi::RangeError::New(info.Env(), "waitBackground: no background job has this ticket");
  try {
    BackgroundQueue::instance().wait(it->first);
  } catch (const std::exception& e) {
    dotsJobs().erase(it);
    throw Napi::Error::New(info.Env(), std::string("waitBackground: ") + e.what());
  }
  dotsJobs().erase(it);
  return info.Env().Undefined();
}

// blockUpdate(wi, w, wAvg | null, idx, val, nnz, gamma, psiScale, rho, threads): see block_update.h.
Napi::Value BlockUpdate(const Napi::CallbackInfo& info) {
  RequireArgCount(info, 10, "blockUpdate");
  auto wi = RequireTypedArray<double>(info, 0, "blockUpdate: wi");
  auto w = RequireTypedArray<double>(info, 1, "blockUpdate: w");
  const std::size_t d = wi.ElementLength();
  RequireLength(w, d, "blockUpdate: w");
  double* wAvg = nullptr;
  if (!info[2].IsNull()) {
    auto avg = RequireTypedArray<double>(info, 2, "blockUpdate: wAvg");
    RequireLength(avg, d, "blockUpdate: wAvg");
    wAvg = avg.Data();
  }
  const SparseArgs s = RequireSparse(info, 3, d, "blockUpdate");
  const double gamma = RequireFinite(info, 6, "blockUpdate: gamma");
  const double psiScale = RequireFinite(info, 7, "blockUpdate: psiScale");
  const double rho = RequireFinite(info, 8, "blockUpdate: rho");
  const int32_t threads = RequireThreads(info, 9, "blockUpdate");
  gapbcfw::block_update(wi.Data(), w.Data(), wAvg, static_cast<int64_t>(d), s.idx, s.val, s.nnz, gamma, psiScale, rho, threads);
  return info.Env().Undefined();
}

void Register(Napi::Env env, Napi::Object exports) {
  exports.Set("blockStats", Napi::Function::New(env, BlockStats, "blockStats"));
  exports.Set("blockUpdate", Napi::Function::New(env, BlockUpdate, "blockUpdate"));
  exports.Set("blockDots", Napi::Function::New(env, BlockDots, "blockDots"));
  exports.Set("waitBackground", Napi::Function::New(env, WaitBackground, "waitBackground"));
}

}  // namespace solversec

// ============================================ end of solver section ==================================

void RegisterSolver(Napi::Env env, Napi::Object exports) { solversec::Register(env, exports); }

}  // namespace gapbcfw::binding
