// The one thread pool of the native code: a persistent, lazily grown set of worker threads behind
// gapbcfw::parallel_for (no Node headers, no OpenMP runtime). Header-only, so that every core and its
// standalone test use it without a build change; the pool is one object per shared library.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gapbcfw {

namespace detail {

// One parallel_for call: indices [0, n) handed out by an atomic counter to the caller and to the pool
// threads that join it. Lives on the caller's stack until every helper has left it.
struct ParallelJob {
  void (*call)(void* body, int64_t i);
  void* body;
  int64_t n;
  std::atomic<int64_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  int wanted = 0;  // helpers that may still join (guarded by the pool's mutex)
  int active = 0;  // helpers inside work() (guarded by the pool's mutex)

  // Runs indices until none is left; the first exception stops the hand-out and is kept. Never throws.
  void work() noexcept {
    try {
      for (int64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) call(body, i);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
      next.store(n);
    }
  }
};

// Worker threads started on first need (never more than the largest helper count asked for, at most
// kMaxHelpers) and kept for the life of the process. Any thread may submit, concurrently: a job is worked
// by its caller plus whichever workers are free, so nested and concurrent calls cannot deadlock (the
// caller alone finishes its own job if no worker comes). An idle worker spins briefly before it sleeps,
// so that back-to-back short jobs (a mini-batch of decodes) do not pay a wake-up each.
class ThreadPool {
 public:
  static constexpr int kMaxHelpers = 255;

  static ThreadPool& instance() {
    static ThreadPool pool;
    return pool;
  }

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  // Works `job` with the calling thread and up to `helpers` workers; returns when every index ran and
  // every helper has left the job (the job may then be destroyed).
  void run(ParallelJob& job, int helpers) {
    helpers = std::min(helpers, kMaxHelpers);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // A worker that cannot start (resource limits) only means fewer helpers: the caller still does all.
      try {
        while (static_cast<int>(workers_.size()) < helpers) workers_.emplace_back([this] { loop(); });
      } catch (...) {
      }
      job.wanted = helpers;
      queue_.push_back(&job);
      pending_.fetch_add(1, std::memory_order_release);
    }
    if (helpers == 1) work_cv_.notify_one();
    else work_cv_.notify_all();
    job.work();
    std::unique_lock<std::mutex> lock(mutex_);
    withdraw(job);
    done_cv_.wait(lock, [&] { return job.active == 0; });
  }

  // Number of worker threads started so far (tests).
  int workers() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(workers_.size());
  }

 private:
  ThreadPool() = default;

  // Removes `job` from the queue if it is still there (mutex held).
  void withdraw(ParallelJob& job) {
    const auto it = std::find(queue_.begin(), queue_.end(), &job);
    if (it != queue_.end()) {
      queue_.erase(it);
      pending_.fetch_sub(1, std::memory_order_relaxed);
    }
  }

  void loop() {
    for (;;) {
      // Spin a little (yielding) while nothing is queued, then sleep on the condition variable.
      const auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
      while (pending_.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < spin_until) std::this_thread::yield();
      ParallelJob* job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping
        job = queue_.front();
        ++job->active;
        if (--job->wanted == 0) withdraw(*job);
      }
      job->work();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --job->active;
      }
      done_cv_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<ParallelJob*> queue_;
  std::atomic<int64_t> pending_{0};
  std::vector<std::thread> workers_;
  bool stop_ = false;
};

}  // namespace detail

// The process-wide cap on the threads of one parallel_for call, the caller included (0: none). The addon's
// setThreads (the CLI's --threads) sets it, so every native call of the process follows one setting.
inline std::atomic<int32_t>& thread_cap() {
  static std::atomic<int32_t> cap{0};
  return cap;
}

// Runs body(i) for every i in [0, n) on up to `threads` threads (the caller and threads-1 pool workers;
// fewer when thread_cap() is set);
// an atomic counter hands out indices, so uneven items balance. Each i runs exactly once, so results
// written per i do not depend on the thread count. The first exception stops the hand-out and is
// rethrown on the calling thread. Callable from any thread (the JS thread, AsyncWorkers, a body).
template <class Body>
void parallel_for(int64_t n, int32_t threads, Body body) {
  const int32_t cap = thread_cap().load(std::memory_order_relaxed);
  if (cap > 0) threads = std::min(threads, cap);
  const int64_t nt = std::max<int64_t>(1, std::min<int64_t>(threads, n));
  if (nt == 1) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  detail::ParallelJob job;
  job.call = [](void* b, int64_t i) { (*static_cast<Body*>(b))(i); };
  job.body = &body;
  job.n = n;
  detail::ThreadPool::instance().run(job, static_cast<int>(nt - 1));
  if (job.error) std::rethrow_exception(job.error);
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
