// Fuzz target for native/gdt (plain C++17, no Node headers): LLVMFuzzerTestOneInput.
//
// The input bytes encode one transform: 1-D or 2-D, its size (1-D n <= 64, 2-D H, W <= 12), the
// coefficients a, b (ay, by, ax, bx) and the entries of f. Coefficients and entries are drawn from
// small integers (exact arithmetic: bit-exact comparison with brute force, argmax ties included)
// or from special values: a = 0 (the linear-scan branch), subnormal and huge a, -infinity entries
// (impossible states, a whole grid of them included), huge and tiny magnitudes. Every result is
// compared with an O(n^2) (2-D: O((HW)^2)) brute force evaluating the same floating-point
// expression; inexact cases are checked within a relative tolerance, and the value at the returned
// argmax must always reproduce out[p] bit for bit. The transform runs three ways: with a reused
// workspace, allocating, and in place (out aliasing f). A violated invariant calls __builtin_trap().
//
// libFuzzer (clang):
//   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -Inative native/gdt/fuzz_gdt.cc native/gdt/gdt.cc
// Without libFuzzer (g++), -DGAPBCFW_FUZZ_MAIN adds a main() running random inputs for a time budget
// (./fuzz_gdt [--seconds S] [--seed N]) or replaying the files given as arguments. scripts/sanitize.sh runs it.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gdt/gdt.h"
#ifdef GAPBCFW_FUZZ_MAIN
#include "fuzz_main.h"
#endif

namespace {

using gapbcfw::gdt::kNoArgmax;
using gapbcfw::gdt::Transform1d;
using gapbcfw::gdt::Transform2d;
using gapbcfw::gdt::Workspace1d;
using gapbcfw::gdt::Workspace2d;

constexpr double kInf = std::numeric_limits<double>::infinity();

#define GDT_CHECK(cond)                                                                   \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "fuzz_gdt: check failed at line %d: %s\n", __LINE__, #cond); \
      __builtin_trap();                                                                   \
    }                                                                                     \
  } while (0)

/// Byte cursor over the input: 0 once exhausted.
struct Bytes {
  const uint8_t* p;
  size_t n;
  uint8_t Next() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
};

/// A coefficient (a >= 0 when nonNegative). Sets *exact = false for values whose products round.
double Coefficient(Bytes& in, bool nonNegative, bool* exact) {
  const uint8_t k = in.Next();
  const uint8_t v = in.Next();
  switch (k % 8) {
    case 0:
      return 0.0;  // a == 0: the exact linear scan
    case 1:
    case 2:
    case 3: {  // small integers or halves: exact
      const double x = (k % 8 == 3 ? 0.5 : 1.0) * static_cast<double>(v % 16);
      return nonNegative ? x : ((v & 0x80) ? -x : x);
    }
    case 4:
      *exact = false;
      return nonNegative ? std::numeric_limits<double>::denorm_min() * (1 + v) : -(v + 1) * 1e-300;
    case 5:
      *exact = false;
      return (nonNegative ? 1.0 : ((v & 1) ? -1.0 : 1.0)) * std::ldexp(1.0 + v / 256.0, 200 + (v % 600));
    case 6:
      *exact = false;
      return (nonNegative ? 1.0 : ((v & 1) ? -1.0 : 1.0)) * (0.1 + v / 37.0);
    default:
      return nonNegative ? 1.0 : -1.0;
  }
}

/// One entry of f: finite or -inf (never NaN or +inf, which the contract excludes).
double Entry(Bytes& in, bool* exact) {
  const uint8_t k = in.Next();
  switch (k % 8) {
    case 0:
    case 1:
      return -kInf;
    case 2:
      *exact = false;
      return std::ldexp(static_cast<double>(in.Next()) - 128.0, 300 + (k >> 4));  // huge
    case 3:
      *exact = false;
      return (static_cast<double>(in.Next()) - 128.0) * 1e-310;  // subnormal
    case 4:
      *exact = false;
      return (static_cast<double>(in.Next()) - 128.0) / 7.0;
    default:
      return static_cast<double>(static_cast<int>(in.Next()) - 128);
  }
}

/// Equal up to rounding: |x - y| small against `scale`, the magnitude of the largest term summed
/// (cancellation between huge terms can leave a small result with a large absolute error).
bool Close(double x, double y, double scale) {
  if (x == y) return true;
  if (std::isinf(x) || std::isinf(y)) return false;
  return std::fabs(x - y) <= 1e-9 * std::fmax(1.0, scale);
}

/// Largest |f| over finite entries plus the largest deformation cost on a side of length `len`.
double TermScale(const std::vector<double>& f, double a, double b, size_t len) {
  double m = 0;
  for (double x : f)
    if (std::isfinite(x)) m = std::fmax(m, std::fabs(x));
  const double d = static_cast<double>(len);
  return m + a * d * d + std::fabs(b) * d;
}

void Fuzz1d(Bytes& in) {
  const size_t n = 1 + in.Next() % 64;
  bool exact = true;
  const double a = Coefficient(in, true, &exact);
  const double b = Coefficient(in, false, &exact);
  std::vector<double> f(n);
  for (double& x : f) x = Entry(in, &exact);

  // Brute force: same expression as the library, smallest q wins ties.
  std::vector<double> bo(n, -kInf);
  std::vector<int32_t> ba(n, kNoArgmax);
  for (size_t p = 0; p < n; ++p)
    for (size_t q = 0; q < n; ++q) {
      if (f[q] == -kInf) continue;
      const double d = static_cast<double>(p) - static_cast<double>(q);
      const double val = f[q] - a * d * d - b * d;
      if (ba[p] == kNoArgmax || val > bo[p]) {
        bo[p] = val;
        ba[p] = static_cast<int32_t>(q);
      }
    }

  Workspace1d ws;
  std::vector<double> out(n), inPlace = f;
  std::vector<int32_t> arg(n), arg2(n), arg3(n);
  Transform1d(f.data(), n, a, b, out.data(), arg.data(), ws);
  std::vector<double> out2(n);
  Transform1d(f.data(), n, a, b, out2.data(), arg2.data());
  Transform1d(inPlace.data(), n, a, b, inPlace.data(), arg3.data(), ws);
  for (size_t p = 0; p < n; ++p) {
    GDT_CHECK(!std::isnan(out[p]));
    GDT_CHECK(out2[p] == out[p] || (std::isnan(out2[p]) && std::isnan(out[p])));
    GDT_CHECK(arg2[p] == arg[p] && arg3[p] == arg[p]);
    GDT_CHECK(inPlace[p] == out[p]);
    if (ba[p] == kNoArgmax) {
      GDT_CHECK(arg[p] == kNoArgmax && out[p] == -kInf);
      continue;
    }
    GDT_CHECK(arg[p] >= 0 && static_cast<size_t>(arg[p]) < n && f[arg[p]] != -kInf);
    const double d = static_cast<double>(p) - static_cast<double>(arg[p]);
    GDT_CHECK(f[arg[p]] - a * d * d - b * d == out[p]);
    if (exact) {
      GDT_CHECK(out[p] == bo[p] && arg[p] == ba[p]);
    } else {
      GDT_CHECK(Close(out[p], bo[p], TermScale(f, a, b, n)));
    }
  }
}

void Fuzz2d(Bytes& in) {
  const size_t h = 1 + in.Next() % 12, w = 1 + in.Next() % 12;
  bool exact = true;
  const double ay = Coefficient(in, true, &exact);
  const double by = Coefficient(in, false, &exact);
  const double ax = Coefficient(in, true, &exact);
  const double bx = Coefficient(in, false, &exact);
  const bool allMinusInf = (in.Next() % 16) == 0;
  std::vector<double> f(h * w);
  for (double& x : f) x = allMinusInf ? -kInf : Entry(in, &exact);

  std::vector<double> bo(h * w, -kInf);
  std::vector<int32_t> ba(h * w, kNoArgmax);
  for (size_t y = 0; y < h; ++y)
    for (size_t x = 0; x < w; ++x)
      for (size_t yq = 0; yq < h; ++yq)
        for (size_t xq = 0; xq < w; ++xq) {
          const double fq = f[yq * w + xq];
          if (fq == -kInf) continue;
          const double dy = static_cast<double>(y) - static_cast<double>(yq);
          const double dx = static_cast<double>(x) - static_cast<double>(xq);
          const double val = fq - ax * dx * dx - bx * dx - ay * dy * dy - by * dy;
          const size_t i = y * w + x;
          if (ba[i] == kNoArgmax || val > bo[i]) {
            bo[i] = val;
            ba[i] = static_cast<int32_t>(yq * w + xq);
          }
        }

  Workspace2d ws;
  std::vector<double> out(h * w), inPlace = f;
  std::vector<int32_t> arg(h * w), arg3(h * w);
  Transform2d(f.data(), h, w, ay, by, ax, bx, out.data(), arg.data(), ws);
  Transform2d(inPlace.data(), h, w, ay, by, ax, bx, inPlace.data(), arg3.data());
  for (size_t i = 0; i < h * w; ++i) {
    GDT_CHECK(!std::isnan(out[i]));
    GDT_CHECK(arg3[i] == arg[i] && inPlace[i] == out[i]);
    if (ba[i] == kNoArgmax) {
      GDT_CHECK(arg[i] == kNoArgmax && out[i] == -kInf);
      continue;
    }
    GDT_CHECK(arg[i] >= 0 && static_cast<size_t>(arg[i]) < h * w && f[arg[i]] != -kInf);
    if (exact) GDT_CHECK(out[i] == bo[i] && arg[i] == ba[i]);
    else GDT_CHECK(Close(out[i], bo[i], TermScale(f, ay, by, h) + TermScale(f, ax, bx, w)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in{data, size};
  if (in.Next() % 2 == 0) Fuzz1d(in);
  else Fuzz2d(in);
  return 0;
}

#ifdef GAPBCFW_FUZZ_MAIN
int main(int argc, char** argv) {
  return gapbcfw::RunFuzzMain(argc, argv, "fuzz_gdt", 20, [](std::mt19937_64& rng, std::string& buf) {
    buf.resize(rng() % 400);
    for (char& c : buf) c = static_cast<char>(rng() % 256);
  });
}
#endif
