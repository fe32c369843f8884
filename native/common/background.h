// The background queue: native work that overlaps the JavaScript thread's (a mini-batch decoded, and its blocks'
// dot products taken, while the previous mini-batch is applied). One thread of its own, started on first use,
// runs the jobs one at a time in the order they were submitted; submit() returns at once with a ticket, and
// wait(ticket) blocks until that job has run and rethrows what it threw. One queue per shared library, so that
// every background job of the process shares one thread (the pool's workers are the others). Header-only.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

namespace gapbcfw {

class BackgroundQueue {
 public:
  static BackgroundQueue& instance() {
    static BackgroundQueue queue;
    return queue;
  }

  BackgroundQueue(const BackgroundQueue&) = delete;
  BackgroundQueue& operator=(const BackgroundQueue&) = delete;

  ~BackgroundQueue() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    job_cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  // Queues `job` and returns its ticket (> 0). May throw std::system_error when the thread cannot start
  // (nothing is queued then).
  uint64_t submit(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    jobs_.emplace_back(next_, std::move(job));
    job_cv_.notify_one();
    return next_++;
  }

  // Blocks until the job of `ticket` has run (and every job before it); rethrows its exception.
  void wait(uint64_t ticket) {
    std::exception_ptr error;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      done_cv_.wait(lock, [&] { return done_ >= ticket; });
      const auto it = errors_.find(ticket);
      if (it != errors_.end()) {
        error = it->second;
        errors_.erase(it);
      }
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  BackgroundQueue() = default;

  void loop() {
    for (;;) {
      std::pair<uint64_t, std::function<void()>> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        job_cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;  // stopping
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      std::exception_ptr error;
      try {
        job.second();
      } catch (...) {
        error = std::current_exception();
      }
      job.second = nullptr;  // what the job holds goes before its waiter hears that it ran
      {
        std::lock_guard<std::mutex> lock(mutex_);
        if (error) errors_.emplace(job.first, std::move(error));
        done_ = job.first;
      }
      done_cv_.notify_all();
    }
  }

  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable job_cv_, done_cv_;
  std::deque<std::pair<uint64_t, std::function<void()>>> jobs_;
  std::unordered_map<uint64_t, std::exception_ptr> errors_;
  uint64_t next_ = 1;  // the next ticket
  uint64_t done_ = 0;  // the last ticket run
  bool stop_ = false;
};

}  // namespace gapbcfw
