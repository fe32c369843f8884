// Standalone test of the thread pool behind gapbcfw::parallel_for (native/common/parallel.h) and of the
// background queue (native/common/background.h). No Node headers:
//   g++ -std=c++17 -O2 -Inative native/common/test_parallel.cc -o test_parallel
// Exit code 0 on success, 1 on any failure (each failure is printed).
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <memory>

#include "common/background.h"
#include "common/parallel.h"

namespace {

int failures = 0;
int checks = 0;

void expect(bool ok, const std::string& what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAIL: %s\n", what.c_str());
  }
}

// Every index runs exactly once, whatever the thread count, and per-index results are the same.
void every_index_once() {
  for (int threads : {1, 2, 3, 8, 64}) {
    for (int64_t n : {0, 1, 2, 7, 1000, 100000}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      std::vector<double> out(static_cast<size_t>(n));
      gapbcfw::parallel_for(n, threads, [&](int64_t i) {
        hits[static_cast<size_t>(i)].fetch_add(1);
        double s = 0;
        for (int k = 0; k < 50; ++k) s += static_cast<double>(i * k) / (k + 1);
        out[static_cast<size_t>(i)] = s;
      });
      bool once = true, same = true;
      for (int64_t i = 0; i < n; ++i) {
        once = once && hits[static_cast<size_t>(i)].load() == 1;
        double s = 0;
        for (int k = 0; k < 50; ++k) s += static_cast<double>(i * k) / (k + 1);
        same = same && out[static_cast<size_t>(i)] == s;
      }
      expect(once, "every index once, n = " + std::to_string(n) + ", threads = " + std::to_string(threads));
      expect(same, "per-index results, n = " + std::to_string(n) + ", threads = " + std::to_string(threads));
    }
  }
}

// The first exception reaches the caller; the pool keeps working afterwards.
void exceptions() {
  for (int threads : {1, 4}) {
    bool caught = false;
    try {
      gapbcfw::parallel_for(10000, threads, [&](int64_t i) {
        if (i == 777) throw std::runtime_error("boom at 777");
      });
    } catch (const std::runtime_error& e) {
      caught = std::string(e.what()) == "boom at 777";
    }
    expect(caught, "exception rethrown on the caller, threads = " + std::to_string(threads));
    std::atomic<int64_t> sum{0};
    gapbcfw::parallel_for(1000, threads, [&](int64_t i) { sum += i; });
    expect(sum.load() == 999 * 1000 / 2, "pool usable after an exception");
  }
}

// A body may call parallel_for itself (the caller of the inner job works it if no worker is free).
void nested() {
  std::atomic<int64_t> sum{0};
  gapbcfw::parallel_for(16, 4, [&](int64_t i) {
    gapbcfw::parallel_for(100, 4, [&](int64_t j) { sum += i * 100 + j; });
  });
  expect(sum.load() == 1600 * 1599 / 2, "nested parallel_for");
}

// Several threads submit at once (as the JS thread and AsyncWorkers may).
void concurrent_callers() {
  std::vector<std::thread> callers;
  std::vector<int64_t> sums(6, 0);
  for (int c = 0; c < 6; ++c) {
    callers.emplace_back([c, &sums] {
      for (int round = 0; round < 50; ++round) {
        std::atomic<int64_t> s{0};
        gapbcfw::parallel_for(500, 3, [&](int64_t i) { s += i + c; });
        sums[static_cast<size_t>(c)] += s.load();
      }
    });
  }
  for (std::thread& t : callers) t.join();
  bool ok = true;
  for (int c = 0; c < 6; ++c) ok = ok && sums[static_cast<size_t>(c)] == 50 * (499 * 500 / 2 + 500 * c);
  expect(ok, "concurrent callers");
}

// Persistent: many calls start no new threads beyond the largest helper count asked for.
void persistent() {
  for (int k = 0; k < 2000; ++k) gapbcfw::parallel_for(8, 3, [](int64_t) {});
  const int before = gapbcfw::detail::ThreadPool::instance().workers();
  for (int k = 0; k < 2000; ++k) gapbcfw::parallel_for(8, 3, [](int64_t) {});
  const int after = gapbcfw::detail::ThreadPool::instance().workers();
  expect(before == after, "no thread started per call (" + std::to_string(before) + " -> " + std::to_string(after) + ")");
  expect(after <= 63, "workers bounded by the largest helper count asked for");
}

}  // namespace

// The background queue runs its jobs in order, one at a time, while the caller goes on (with parallel_for
// of its own); wait(ticket) returns after that job, with what it holds released, and rethrows what it threw.
void background_queue() {
  auto& queue = gapbcfw::BackgroundQueue::instance();
  std::vector<int> order;
  std::vector<uint64_t> tickets;
  std::atomic<int> released{0};
  for (int k = 0; k < 20; ++k) {
    auto held = std::shared_ptr<int>(new int(k), [&](int* p) {
      delete p;
      ++released;
    });
    tickets.push_back(queue.submit([&order, held, k] {
      std::vector<double> out(1000);
      gapbcfw::parallel_for(1000, 2, [&](int64_t i) { out[static_cast<size_t>(i)] = static_cast<double>(i * k); });
      order.push_back(*held + static_cast<int>(out[1]) * 0);
    }));
  }
  std::vector<double> mine(10000);
  gapbcfw::parallel_for(10000, 2, [&](int64_t i) { mine[static_cast<size_t>(i)] = static_cast<double>(i); });
  queue.wait(tickets.back());
  expect(released.load() == 20, "a job's captures are released before its wait returns");
  bool in_order = order.size() == 20;
  for (int k = 0; in_order && k < 20; ++k) in_order = order[static_cast<size_t>(k)] == k;
  expect(in_order, "background jobs run in submission order");
  expect(mine[9999] == 9999.0, "the caller's own parallel_for meanwhile");
  const uint64_t bad = queue.submit([] { throw std::runtime_error("background failure"); });
  const uint64_t good = queue.submit([] {});
  bool thrown = false;
  try {
    queue.wait(bad);
  } catch (const std::runtime_error& e) {
    thrown = std::string(e.what()) == "background failure";
  }
  expect(thrown, "wait rethrows the job's exception");
  bool clean = true;
  try {
    queue.wait(good);
    queue.wait(bad);  // its exception was taken by the first wait
  } catch (...) {
    clean = false;
  }
  expect(clean, "later tickets and a second wait do not throw");
}

int main() {
  every_index_once();
  background_queue();
  exceptions();
  nested();
  concurrent_callers();
  persistent();
  if (failures > 0) {
    std::printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  std::printf("all %d checks passed\n", checks);
  return 0;
}
