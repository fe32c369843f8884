// Standalone test of native/gdt against O(n^2) brute force. No Node headers:
//   g++ -std=c++17 -O2 -Inative native/gdt/test_gdt.cc native/gdt/gdt.cc -o test_gdt && ./test_gdt
// Exit code 0 on success, 1 on any failure (each failure is printed).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "gdt/gdt.h"

namespace {

using gapbcfw::gdt::kNoArgmax;
using gapbcfw::gdt::Transform1d;
using gapbcfw::gdt::Transform2d;
using gapbcfw::gdt::Workspace1d;
using gapbcfw::gdt::Workspace2d;

constexpr double kInf = std::numeric_limits<double>::infinity();
int g_failures = 0;
int g_checks = 0;

void Fail(const std::string& msg) {
  if (g_failures < 30) std::fprintf(stderr, "FAIL: %s\n", msg.c_str());
  ++g_failures;
}

// mulberry32, as in the TypeScript tests.
struct Rng {
  std::uint32_t s;
  explicit Rng(std::uint32_t seed) : s(seed) {}
  double Next() {
    s += 0x6D2B79F5u;
    std::uint32_t t = s;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }
  int Int(int lo, int hi) { return lo + static_cast<int>(Next() * (hi - lo + 1)); }  // [lo, hi]
};

// Brute force, same floating-point expression as the library; smallest q wins ties.
void Brute1d(const std::vector<double>& f, double a, double b, std::vector<double>& out,
             std::vector<std::int32_t>& arg) {
  const std::size_t n = f.size();
  out.assign(n, -kInf);
  arg.assign(n, kNoArgmax);
  for (std::size_t p = 0; p < n; ++p) {
    for (std::size_t q = 0; q < n; ++q) {
      if (f[q] == -kInf) continue;
      const double d = static_cast<double>(p) - static_cast<double>(q);
      const double val = f[q] - a * d * d - b * d;
      if (arg[p] == kNoArgmax || val > out[p]) {
        out[p] = val;
        arg[p] = static_cast<std::int32_t>(q);
      }
    }
  }
}

void Brute2d(const std::vector<double>& f, std::size_t h, std::size_t w, double ay, double by,
             double ax, double bx, std::vector<double>& out, std::vector<std::int32_t>& arg) {
  out.assign(h * w, -kInf);
  arg.assign(h * w, kNoArgmax);
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t x = 0; x < w; ++x)
      for (std::size_t yq = 0; yq < h; ++yq)
        for (std::size_t xq = 0; xq < w; ++xq) {
          const double fq = f[yq * w + xq];
          if (fq == -kInf) continue;
          const double dy = static_cast<double>(y) - static_cast<double>(yq);
          const double dx = static_cast<double>(x) - static_cast<double>(xq);
          const double val = fq - ax * dx * dx - bx * dx - ay * dy * dy - by * dy;
          const std::size_t i = y * w + x;
          if (arg[i] == kNoArgmax || val > out[i]) {
            out[i] = val;
            arg[i] = static_cast<std::int32_t>(yq * w + xq);
          }
        }
}

std::string Ctx(const char* what, std::size_t n, double a, double b, std::uint32_t seed) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s n=%zu a=%.17g b=%.17g seed=%u", what, n, a, b, seed);
  return buf;
}

// exact: values and argmax must match brute force bit for bit (integer data, dyadic a, b).
// otherwise: values within a relative tolerance, and the value at the returned argmax must equal
// the returned value exactly and be within tolerance of the brute-force maximum.
void Check1d(const std::vector<double>& f, double a, double b, bool exact, const std::string& ctx,
             Workspace1d& ws) {
  const std::size_t n = f.size();
  std::vector<double> bo, out(n);
  std::vector<std::int32_t> ba, arg(n);
  Brute1d(f, a, b, bo, ba);
  Transform1d(f.data(), n, a, b, out.data(), arg.data(), ws);
  for (std::size_t p = 0; p < n; ++p) {
    ++g_checks;
    if (ba[p] == kNoArgmax) {
      if (arg[p] != kNoArgmax || out[p] != -kInf) Fail(ctx + ": all -inf expected at p=" + std::to_string(p));
      continue;
    }
    if (arg[p] < 0 || static_cast<std::size_t>(arg[p]) >= n || f[arg[p]] == -kInf) {
      Fail(ctx + ": bad argmax " + std::to_string(arg[p]) + " at p=" + std::to_string(p));
      continue;
    }
    const double d = static_cast<double>(p) - static_cast<double>(arg[p]);
    const double atArg = f[arg[p]] - a * d * d - b * d;
    if (atArg != out[p]) Fail(ctx + ": value at argmax differs at p=" + std::to_string(p));
    if (exact) {
      if (out[p] != bo[p] || arg[p] != ba[p]) {
        char buf[200];
        std::snprintf(buf, sizeof buf, ": p=%zu got (%.17g, %d) want (%.17g, %d)", p, out[p], arg[p], bo[p], ba[p]);
        Fail(ctx + buf);
      }
    } else {
      const double tol = 1e-9 * (1.0 + std::fabs(bo[p]));
      if (!(std::fabs(out[p] - bo[p]) <= tol)) {
        char buf[200];
        std::snprintf(buf, sizeof buf, ": p=%zu got %.17g want %.17g", p, out[p], bo[p]);
        Fail(ctx + buf);
      }
    }
  }
  // In-place (out aliases f) must give the same result.
  std::vector<double> inplace = f;
  std::vector<std::int32_t> arg2(n);
  Transform1d(inplace.data(), n, a, b, inplace.data(), arg2.data(), ws);
  for (std::size_t p = 0; p < n; ++p) {
    ++g_checks;
    if (!(inplace[p] == out[p] || (std::isnan(inplace[p]) && std::isnan(out[p]))) || arg2[p] != arg[p]) {
      Fail(ctx + ": in-place result differs at p=" + std::to_string(p));
      break;
    }
  }
}

void Check2d(const std::vector<double>& f, std::size_t h, std::size_t w, double ay, double by, double ax,
             double bx, bool exact, const std::string& ctx, Workspace2d& ws) {
  std::vector<double> bo, out(h * w);
  std::vector<std::int32_t> ba, arg(h * w);
  Brute2d(f, h, w, ay, by, ax, bx, bo, ba);
  Transform2d(f.data(), h, w, ay, by, ax, bx, out.data(), arg.data(), ws);
  for (std::size_t i = 0; i < h * w; ++i) {
    ++g_checks;
    if (ba[i] == kNoArgmax) {
      if (arg[i] != kNoArgmax || out[i] != -kInf) Fail(ctx + ": all -inf expected at i=" + std::to_string(i));
      continue;
    }
    if (arg[i] < 0 || static_cast<std::size_t>(arg[i]) >= h * w || f[arg[i]] == -kInf) {
      Fail(ctx + ": bad argmax at i=" + std::to_string(i));
      continue;
    }
    const double dy = static_cast<double>(i / w) - static_cast<double>(arg[i] / static_cast<std::int32_t>(w));
    const double dx = static_cast<double>(i % w) - static_cast<double>(arg[i] % static_cast<std::int32_t>(w));
    const double atArg = f[arg[i]] - ax * dx * dx - bx * dx - ay * dy * dy - by * dy;
    if (atArg != out[i]) Fail(ctx + ": value at argmax differs at i=" + std::to_string(i));
    if (exact) {
      if (out[i] != bo[i] || arg[i] != ba[i]) {
        char buf[200];
        std::snprintf(buf, sizeof buf, ": i=%zu got (%.17g, %d) want (%.17g, %d)", i, out[i], arg[i], bo[i], ba[i]);
        Fail(ctx + buf);
      }
    } else if (!(std::fabs(out[i] - bo[i]) <= 1e-9 * (1.0 + std::fabs(bo[i])))) {
      Fail(ctx + ": value differs at i=" + std::to_string(i));
    }
  }
  std::vector<double> inplace = f;
  std::vector<std::int32_t> arg2(h * w);
  Transform2d(inplace.data(), h, w, ay, by, ax, bx, inplace.data(), arg2.data(), ws);
  for (std::size_t i = 0; i < h * w; ++i) {
    ++g_checks;
    if (inplace[i] != out[i] || arg2[i] != arg[i]) {
      Fail(ctx + ": in-place 2-D result differs at i=" + std::to_string(i));
      break;
    }
  }
}

const double kDyadicA[] = {0.0, 0.25, 0.5, 1.0, 2.0, 3.0};
const double kDyadicB[] = {0.0, 0.5, -0.5, 1.0, -2.0, 3.0};

void TestRandomReal() {
  Workspace1d ws;
  const double as[] = {0.0, 5e-324, 1e-300, 1e-12, 1e-6, 0.01, 0.37, 1.0, 7.5, 1e6};
  for (std::uint32_t seed = 1; seed <= 400; ++seed) {
    Rng r(seed);
    const std::size_t n = static_cast<std::size_t>(r.Int(1, 60));
    const double a = as[seed % 10];
    const double b = (seed % 3 == 0) ? 0.0 : (r.Next() - 0.5) * 20.0;
    const double pInf = (seed % 4 == 0) ? 0.3 : (seed % 4 == 1 ? 0.9 : 0.0);
    std::vector<double> f(n);
    for (auto& x : f) x = r.Next() < pInf ? -kInf : (r.Next() - 0.5) * 100.0;
    Check1d(f, a, b, false, Ctx("real", n, a, b, seed), ws);
  }
}

void TestIntegerTies() {
  Workspace1d ws;
  for (std::uint32_t seed = 1; seed <= 600; ++seed) {
    Rng r(seed * 7919u);
    const std::size_t n = static_cast<std::size_t>(r.Int(1, 60));
    const double a = kDyadicA[seed % 6];
    const double b = kDyadicB[(seed / 6) % 6];
    const int range = (seed % 5 == 0) ? 0 : r.Int(1, 6);  // range 0: constant f, all ties
    std::vector<double> f(n);
    for (auto& x : f) x = (seed % 3 == 0 && r.Next() < 0.25) ? -kInf : static_cast<double>(r.Int(-range, range));
    Check1d(f, a, b, true, Ctx("int", n, a, b, seed), ws);
  }
}

void TestSpecial() {
  Workspace1d ws;
  // n = 1
  for (double a : {0.0, 1.0, 1e-300}) {
    Check1d({3.5}, a, 2.0, true, Ctx("n=1", 1, a, 2.0, 0), ws);
    Check1d({-kInf}, a, 2.0, true, Ctx("n=1 -inf", 1, a, 2.0, 0), ws);
  }
  // all -inf
  Check1d(std::vector<double>(17, -kInf), 1.0, 0.0, true, "all -inf a=1", ws);
  Check1d(std::vector<double>(17, -kInf), 0.0, 1.0, true, "all -inf a=0", ws);
  // one finite entry among -inf
  {
    std::vector<double> f(30, -kInf);
    f[11] = -4.0;
    for (double a : {0.0, 0.5, 1e-300}) Check1d(f, a, -1.0, true, Ctx("single finite", 30, a, -1.0, 0), ws);
  }
  // constant f, a = 0: one maximiser everywhere (smallest q with b = 0, largest q for b > 0 since
  // f(q) + b q increases)
  {
    std::vector<double> f(10, 1.0), out(10);
    std::vector<std::int32_t> arg(10);
    Transform1d(f.data(), 10, 0.0, 0.0, out.data(), arg.data(), ws);
    for (int p = 0; p < 10; ++p) {
      ++g_checks;
      if (arg[p] != 0 || out[p] != 1.0) Fail("a=0 b=0 constant: expected argmax 0");
    }
    Transform1d(f.data(), 10, 0.0, 1.0, out.data(), arg.data(), ws);
    for (int p = 0; p < 10; ++p) {
      ++g_checks;
      if (arg[p] != 9 || out[p] != 1.0 - (p - 9)) Fail("a=0 b=1 constant: expected argmax 9");
    }
  }
  // a tiny: argmax may differ from brute force only among (numerically) tied candidates
  {
    Rng r(99);
    std::vector<double> f(50);
    for (auto& x : f) x = static_cast<double>(r.Int(-3, 3));
    Check1d(f, 1e-300, 0.0, false, "tiny a integer f", ws);
    Check1d(f, 1e-300, 1.0, false, "tiny a integer f, b=1", ws);
  }
  // n = 0 is a no-op
  {
    Transform1d(nullptr, 0, 1.0, 0.0, nullptr, nullptr, ws);
    ++g_checks;
  }
}

void TestLarge() {
  // Large n against brute force at sampled p (O(n) each).
  Rng r(4242);
  const std::size_t n = 200000;
  std::vector<double> f(n), out(n);
  std::vector<std::int32_t> arg(n);
  for (auto& x : f) x = r.Next() < 0.1 ? -kInf : (r.Next() - 0.5) * 1e4;
  for (double a : {0.0, 1e-4, 1.0}) {
    const double b = 0.3;
    Transform1d(f.data(), n, a, b, out.data(), arg.data());
    for (int t = 0; t < 200; ++t) {
      const std::size_t p = static_cast<std::size_t>(r.Next() * n);
      double best = -kInf;
      for (std::size_t q = 0; q < n; ++q) {
        if (f[q] == -kInf) continue;
        const double d = static_cast<double>(p) - static_cast<double>(q);
        const double val = f[q] - a * d * d - b * d;
        if (val > best) best = val;
      }
      ++g_checks;
      if (!(std::fabs(best - out[p]) <= 1e-9 * (1.0 + std::fabs(best)))) {
        Fail(Ctx("large", n, a, b, 4242) + " p=" + std::to_string(p));
      }
    }
  }
}

void Test2d() {
  Workspace2d ws;
  for (std::uint32_t seed = 1; seed <= 150; ++seed) {
    Rng r(seed * 31u + 5u);
    const std::size_t h = static_cast<std::size_t>(r.Int(1, 12));
    const std::size_t w = static_cast<std::size_t>(r.Int(1, 20));  // > kColumnBlock sometimes
    const bool exact = seed % 2 == 0;
    std::vector<double> f(h * w);
    double ay, by, ax, bx;
    if (exact) {
      ay = kDyadicA[r.Int(0, 5)];
      ax = kDyadicA[r.Int(0, 5)];
      by = kDyadicB[r.Int(0, 5)];
      bx = kDyadicB[r.Int(0, 5)];
      const int range = r.Int(0, 4);
      for (auto& x : f) x = r.Next() < 0.2 ? -kInf : static_cast<double>(r.Int(-range, range));
    } else {
      ay = r.Next() * 3.0;
      ax = seed % 5 == 0 ? 0.0 : r.Next() * 3.0;
      by = (r.Next() - 0.5) * 4.0;
      bx = (r.Next() - 0.5) * 4.0;
      for (auto& x : f) x = r.Next() < 0.3 ? -kInf : (r.Next() - 0.5) * 50.0;
    }
    if (seed % 17 == 0) std::fill(f.begin(), f.end(), -kInf);
    char ctx[160];
    std::snprintf(ctx, sizeof ctx, "2d %zux%zu ay=%g by=%g ax=%g bx=%g seed=%u", h, w, ay, by, ax, bx, seed);
    Check2d(f, h, w, ay, by, ax, bx, exact, ctx, ws);
  }
  // A grid whose rows are all -inf except one cell.
  std::vector<double> f(6 * 9, -kInf);
  f[4 * 9 + 2] = 1.0;
  Check2d(f, 6, 9, 1.0, 0.5, 0.25, -1.0, true, "2d single finite cell", ws);
}

template <typename Fn>
void ExpectThrow(Fn fn, const char* what) {
  ++g_checks;
  try {
    fn();
    Fail(std::string("expected std::invalid_argument: ") + what);
  } catch (const std::invalid_argument&) {
  }
}

void TestInvalid() {
  double f[3] = {0, 1, 2}, out[3];
  std::int32_t arg[3];
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectThrow([&] { Transform1d(f, 3, -1.0, 0.0, out, arg); }, "a < 0");
  ExpectThrow([&] { Transform1d(f, 3, nan, 0.0, out, arg); }, "a NaN");
  ExpectThrow([&] { Transform1d(f, 3, kInf, 0.0, out, arg); }, "a inf");
  ExpectThrow([&] { Transform1d(f, 3, 1.0, nan, out, arg); }, "b NaN");
  ExpectThrow([&] { Transform1d(f, 3, 1.0, -kInf, out, arg); }, "b -inf");
  ExpectThrow([&] { Transform1d(nullptr, 3, 1.0, 0.0, out, arg); }, "null f");
  ExpectThrow([&] { Transform2d(f, 1, 3, 1.0, 0.0, -2.0, 0.0, out, arg); }, "ax < 0");
  ExpectThrow([&] { Transform2d(f, 70000, 70000, 1.0, 0.0, 1.0, 0.0, out, arg); }, "H*W too large");
  // NaN / +inf entries are invalid input: the result is unspecified, but it must not crash.
  double bad[5] = {1.0, nan, kInf, -kInf, 2.0}, o5[5];
  std::int32_t a5[5];
  Transform1d(bad, 5, 1.0, 0.0, o5, a5);
  Transform1d(bad, 5, 0.0, 0.0, o5, a5);
  for (int p = 0; p < 5; ++p) {
    ++g_checks;
    if (a5[p] < -1 || a5[p] >= 5) Fail("NaN input produced an out-of-range argmax");
  }
}

}  // namespace

int main() {
  try {
    TestRandomReal();
    TestIntegerTies();
    TestSpecial();
    TestLarge();
    Test2d();
    TestInvalid();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAIL: unexpected exception: %s\n", e.what());
    return 1;
  }
  if (g_failures != 0) {
    std::fprintf(stderr, "%d of %d checks failed\n", g_failures, g_checks);
    return 1;
  }
  std::printf("test_gdt: all %d checks passed\n", g_checks);
  return 0;
}
