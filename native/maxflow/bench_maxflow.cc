// Grid benchmark for native/maxflow: a W x H 4-connected segmentation-like graph (noisy synthetic
// image, squared-difference unaries, contrast-sensitive Potts pairwise terms), solved from scratch
// (int32 and double capacities), then 100 local perturbations (a random 32x32 patch gets new image
// noise) and 20 global ones (every pixel's noise changes slightly, as between video frames)
// solved with reuse (KT07) and from scratch. Prints one JSON line.
//
//   g++ -std=c++17 -O2 -Inative native/maxflow/bench_maxflow.cc native/maxflow/flow_graph.cc
//       -o bench_maxflow && ./bench_maxflow [W H]
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "maxflow/flow_graph.h"

using gapbcfw::maxflow::FlowGraph;

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Instance {
  int w = 0, h = 0;
  std::vector<double> clean, image;
};

template <class Cap>
Cap to_cap(double x) {
  if constexpr (std::is_integral_v<Cap>) {
    return static_cast<Cap>(std::lround(x));
  } else {
    return x;
  }
}

// Unaries of pixel i: source capacity = cost of the background label, sink capacity = cost of
// the foreground label (foreground = source side).
template <class Cap>
void unaries(const Instance& in, int i, Cap& cs, Cap& ct) {
  const double v = in.image[i];
  cs = to_cap<Cap>(100.0 * (v - 0.2) * (v - 0.2));
  ct = to_cap<Cap>(100.0 * (v - 0.8) * (v - 0.8));
}

template <class Cap>
Cap pairwise(const Instance& in, int i, int j) {
  const double d = in.clean[i] - in.clean[j];
  return to_cap<Cap>(1.0 + 12.0 * std::exp(-d * d / 0.02));
}

template <class Cap>
FlowGraph<Cap> build(const Instance& in) {
  FlowGraph<Cap> g(in.w * in.h);
  g.reserve_edges((in.w - 1) * in.h + in.w * (in.h - 1));
  for (int i = 0; i < in.w * in.h; ++i) {
    Cap cs, ct;
    unaries(in, i, cs, ct);
    g.add_terminal_caps(i, cs, ct);
  }
  for (int y = 0; y < in.h; ++y)
    for (int x = 0; x < in.w; ++x) {
      const int i = y * in.w + x;
      if (x + 1 < in.w) {
        const Cap c = pairwise<Cap>(in, i, i + 1);
        g.add_edge(i, i + 1, c, c);
      }
      if (y + 1 < in.h) {
        const Cap c = pairwise<Cap>(in, i, i + in.w);
        g.add_edge(i, i + in.w, c, c);
      }
    }
  return g;
}

struct ReuseStats {
  double reuse_ms = 0, scratch_build_ms = 0, scratch_solve_ms = 0;
  bool all_equal = true;
};

// Applies `perturb` (which edits in.image and returns the changed pixels) `rounds` times; each time
// the reused graph gets the new unaries and is re-solved, and a fresh graph is built and solved.
template <class Perturb>
ReuseStats reuse_run(Instance& in, FlowGraph<int32_t>& g, int rounds, Perturb perturb) {
  ReuseStats st;
  for (int r = 0; r < rounds; ++r) {
    const std::vector<int> changed = perturb(in);
    auto t0 = Clock::now();
    for (const int i : changed) {
      int32_t cs, ct;
      unaries(in, i, cs, ct);
      g.set_terminal_caps(i, cs, ct);
    }
    const int64_t f_reuse = g.maxflow();
    st.reuse_ms += ms_since(t0);
    t0 = Clock::now();
    FlowGraph<int32_t> fresh = build<int32_t>(in);
    st.scratch_build_ms += ms_since(t0);
    t0 = Clock::now();
    const int64_t f_scratch = fresh.maxflow();
    st.scratch_solve_ms += ms_since(t0);
    st.all_equal = st.all_equal && f_reuse == f_scratch;
  }
  return st;
}

void print_reuse(const char* name, const ReuseStats& s, int rounds, bool last) {
  const double scratch = s.scratch_build_ms + s.scratch_solve_ms;
  std::printf(
      "\"%s\":{\"rounds\":%d,\"reuse_ms_mean\":%.3f,\"scratch_build_ms_mean\":%.3f,"
      "\"scratch_solve_ms_mean\":%.3f,\"speedup_vs_build_and_solve\":%.2f,"
      "\"speedup_vs_solve\":%.2f,\"all_equal\":%s}%s",
      name, rounds, s.reuse_ms / rounds, s.scratch_build_ms / rounds, s.scratch_solve_ms / rounds,
      scratch / s.reuse_ms, s.scratch_solve_ms / s.reuse_ms, s.all_equal ? "true" : "false",
      last ? "" : ",");
}

}  // namespace

int main(int argc, char** argv) {
  Instance in;
  in.w = argc > 2 ? std::atoi(argv[1]) : 512;
  in.h = argc > 2 ? std::atoi(argv[2]) : 512;
  if (in.w < 32 || in.h < 32) {
    std::fprintf(stderr, "usage: bench_maxflow [W H] with W, H >= 32\n");
    return 2;
  }
  const int n = in.w * in.h;
  std::mt19937_64 rng(12345);
  std::normal_distribution<double> noise(0.0, 0.25);
  in.clean.resize(n);
  in.image.resize(n);
  for (int y = 0; y < in.h; ++y)
    for (int x = 0; x < in.w; ++x) {
      // A few discs and a bar on a dark background.
      const double dx = x - 0.5 * in.w, dy = y - 0.45 * in.h, ex = x - 0.2 * in.w, ey = y - 0.75 * in.h;
      const bool fg = dx * dx + dy * dy < 0.06 * in.w * in.h || ex * ex + ey * ey < 0.01 * in.w * in.h ||
                      (y > 0.1 * in.h && y < 0.15 * in.h && x > 0.1 * in.w && x < 0.9 * in.w);
      in.clean[y * in.w + x] = fg ? 0.8 : 0.2;
      in.image[y * in.w + x] = in.clean[y * in.w + x] + noise(rng);
    }

  auto t0 = Clock::now();
  FlowGraph<int32_t> g = build<int32_t>(in);
  const double build_ms = ms_since(t0);
  t0 = Clock::now();
  const int64_t flow = g.maxflow();
  const double solve_ms = ms_since(t0);
  int64_t fg_pixels = 0;
  for (int i = 0; i < n; ++i) fg_pixels += g.segment(i) == gapbcfw::maxflow::Side::kSource;

  FlowGraph<double> gd = build<double>(in);
  t0 = Clock::now();
  const double flow_d = gd.maxflow();
  const double solve_d_ms = ms_since(t0);

  const int patch = 32;
  const ReuseStats local = reuse_run(in, g, 100, [&](Instance& im) {
    const int x0 = int(rng() % (im.w - patch + 1)), y0 = int(rng() % (im.h - patch + 1));
    std::vector<int> changed;
    for (int y = y0; y < y0 + patch; ++y)
      for (int x = x0; x < x0 + patch; ++x) {
        const int i = y * im.w + x;
        im.image[i] = im.clean[i] + noise(rng);
        changed.push_back(i);
      }
    return changed;
  });
  std::normal_distribution<double> drift(0.0, 0.03);
  const ReuseStats global = reuse_run(in, g, 20, [&](Instance& im) {
    std::vector<int> changed(n);
    for (int i = 0; i < n; ++i) {
      im.image[i] += drift(rng);
      changed[i] = i;
    }
    return changed;
  });

  std::printf(
      "{\"bench\":\"maxflow_grid\",\"width\":%d,\"height\":%d,\"nodes\":%d,\"edges\":%d,"
      "\"build_ms\":%.2f,\"solve_ms\":%.2f,\"flow\":%lld,\"source_side\":%lld,"
      "\"double_solve_ms\":%.2f,\"double_flow\":%.6f,",
      in.w, in.h, g.num_nodes(), g.num_edges(), build_ms, solve_ms, (long long)flow,
      (long long)fg_pixels, solve_d_ms, flow_d);
  print_reuse("reuse_local_32x32", local, 100, false);
  print_reuse("reuse_global_drift", global, 20, true);
  std::printf("}\n");
  return local.all_equal && global.all_equal ? 0 : 1;
}
