// A minimal dynamic parallel-for on std::threads (no Node headers, no OpenMP runtime).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace gapbcfw {

// Runs body(i) for every i in [0, n) on up to `threads` threads; an atomic counter hands out indices, so
// uneven items balance. Each i runs exactly once, so results written per i do not depend on the thread
// count. The first exception stops the hand-out and is rethrown on the calling thread.
template <class Body>
void parallel_for(int64_t n, int32_t threads, Body body) {
  const int64_t nt = std::max<int64_t>(1, std::min<int64_t>(threads, n));
  if (nt == 1) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto work = [&]() {
    try {
      for (int64_t i; (i = next.fetch_add(1)) < n;) body(i);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
      next.store(n);
    }
  };
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < nt; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

// parallel_for over [0, n) handed out in blocks of `block` consecutive indices (less counter traffic for
// cheap bodies, such as one row of scores).
template <class Body>
void parallel_for_blocked(int64_t n, int64_t block, int32_t threads, Body body) {
  parallel_for((n + block - 1) / block, threads, [&](int64_t b) {
    const int64_t end = std::min<int64_t>(n, (b + 1) * block);
    for (int64_t i = b * block; i < end; ++i) body(i);
  });
}

}  // namespace gapbcfw
