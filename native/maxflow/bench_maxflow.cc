// Grid benchmark for native/maxflow: the effect of each tree-depth refinement alone (flow_graph.h,
// "Tree depth"). On W x W 4-connected grids of scripts/bench/maxflow.ts's family (unaries 100 (v-0.2)^2 and
// 100 (v-0.8)^2 of a uniform v, pairwise 5 "weak" or 50 "strong", int32), each of the four combinations
// of {FIFO, nearest-first} orphans x {plain, shallow} growth solves the same graph `reps` times,
// round-robin; the arcs are laid out before the clock starts (FlowGraph::assign). Prints one JSON line per
// grid: CPU milliseconds of the solve (min and median; the process's CPU time, steadier than wall time on
// a shared machine), the counters, and the speed-up of each combination over plain BK04. All flows must
// agree (exit status 1 otherwise).
//
//   g++ -std=c++17 -O3 -Inative native/maxflow/bench_maxflow.cc native/maxflow/flow_graph.cc -o bench_maxflow
//   ./bench_maxflow [--reps N] [SIZE...]            (default: 3 repetitions of 256 512 1024)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "maxflow/flow_graph.h"

using gapbcfw::maxflow::FlowGraph;
using gapbcfw::maxflow::Refinements;

namespace {

double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

struct Grid {
  int32_t n = 0;
  std::vector<int32_t> from, to, src, snk;
  int32_t smooth = 0;
};

Grid make_grid(int w, int32_t smooth, uint64_t seed) {
  Grid g;
  g.n = w * w;
  g.smooth = smooth;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < g.n; ++i) {
    const double v = u(rng);
    g.src.push_back(int32_t(std::lround(100 * (v - 0.2) * (v - 0.2))));
    g.snk.push_back(int32_t(std::lround(100 * (v - 0.8) * (v - 0.8))));
  }
  for (int y = 0; y < w; ++y)
    for (int x = 0; x < w; ++x) {
      const int i = y * w + x;
      if (x + 1 < w) g.from.push_back(i), g.to.push_back(i + 1);
      if (y + 1 < w) g.from.push_back(i), g.to.push_back(i + w);
    }
  return g;
}

void load(FlowGraph<int32_t>& g, const Grid& grid, Refinements r) {
  const int32_t m = int32_t(grid.from.size());
  g.assign(grid.n, m, grid.from.data(), grid.to.data());
  std::copy(grid.src.begin(), grid.src.end(), g.source_caps());
  std::copy(grid.snk.begin(), grid.snk.end(), g.sink_caps());
  std::fill(g.edge_caps(), g.edge_caps() + 2 * size_t(m), grid.smooth);
  g.reset_flow();
  g.set_refinements(r);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 3;
  std::vector<int> sizes;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
      reps = std::atoi(argv[++a]);
    } else {
      sizes.push_back(std::atoi(argv[a]));
    }
  }
  if (sizes.empty()) sizes = {256, 512, 1024};
  if (reps < 1 || std::any_of(sizes.begin(), sizes.end(), [](int s) { return s < 2; })) {
    std::fprintf(stderr, "usage: bench_maxflow [--reps N] [SIZE...] with N >= 1, SIZE >= 2\n");
    return 2;
  }
  const Refinements combos[4] = {{false, false}, {true, false}, {false, true}, {true, true}};
  const char* names[4] = {"plain", "nearestOrphansFirst", "shallowGrowth", "both"};
  bool agree = true;
  for (const int w : sizes) {
    for (const int32_t smooth : {5, 50}) {
      const Grid grid = make_grid(w, smooth, uint64_t(w) * 100 + smooth);
      std::vector<double> ms[4];
      gapbcfw::maxflow::SolveCounters counters[4];
      int64_t flow[4] = {0, 0, 0, 0};
      FlowGraph<int32_t> g;
      for (int r = 0; r < reps; ++r) {
        for (int k = 0; k < 4; ++k) {
          const int c = (k + r) % 4;  // rotate the order between repetitions
          load(g, grid, combos[c]);
          const double t0 = cpu_ms();
          flow[c] = g.maxflow();
          ms[c].push_back(cpu_ms() - t0);
          counters[c] = g.counters();
        }
      }
      std::printf("{\"grid\":\"%dx%d\",\"smoothness\":\"%s\",\"reps\":%d", w, w, smooth == 5 ? "weak" : "strong", reps);
      for (int c = 0; c < 4; ++c) {
        agree = agree && flow[c] == flow[0];
        const double mn = *std::min_element(ms[c].begin(), ms[c].end());
        const double mn0 = *std::min_element(ms[0].begin(), ms[0].end());
        std::printf(",\"%s\":{\"cpuMsMin\":%.2f,\"cpuMsMedian\":%.2f,\"speedupOverPlain\":%.3f,\"augmentations\":%lld,\"orphans\":%lld,\"adoptions\":%lld}",
                    names[c], mn, median(ms[c]), mn0 / mn, (long long)counters[c].augmentations, (long long)counters[c].orphans,
                    (long long)counters[c].adoptions);
      }
      std::printf(",\"flow\":%lld}\n", (long long)flow[0]);
      std::fflush(stdout);
    }
  }
  if (!agree) std::fprintf(stderr, "bench_maxflow: the combinations disagree on a flow\n");
  return agree ? 0 : 1;
}
