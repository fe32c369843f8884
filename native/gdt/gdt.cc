// Generalized distance transforms (Felzenszwalb & Huttenlocher, "Distance Transforms of Sampled
// Functions", Theory of Computing 2012). See gdt.h for the contract.
#include "gdt/gdt.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gapbcfw {
namespace gdt {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void CheckCoefficients(double a, double b, const char* what) {
  // Written so that NaN fails both tests.
  if (!(a >= 0.0) || !(a < kInf)) {
    throw std::invalid_argument(std::string(what) + ": quadratic coefficient must be finite and >= 0, got " +
                                std::to_string(a));
  }
  if (!(b > -kInf) || !(b < kInf)) {
    throw std::invalid_argument(std::string(what) + ": linear coefficient must be finite, got " +
                                std::to_string(b));
  }
}

// An entry that can be selected: finite (NaN and -inf are skipped; +inf is invalid input).
inline bool Selectable(double x) { return x > -kInf; }

// Degenerate case a == 0 (exact, no division by a):
//   D(p) = max_q f(q) - b (p - q) = max_q [f(q) + b q] - b p.
// The bracket does not depend on p, so one scan finds a single maximiser q* = the smallest q
// maximising g(q) = f(q) + b q, and it is the argmax for every p.
void LinearCase(const double* f, std::size_t n, double b, double* out, std::int32_t* argmax) {
  std::size_t best = n;  // n = none yet
  double bestG = -kInf;
  for (std::size_t q = 0; q < n; ++q) {
    const double fq = f[q];
    if (!Selectable(fq)) continue;
    const double g = fq + b * static_cast<double>(q);
    if (best == n || g > bestG) {  // strict: keep the smallest q on ties
      best = q;
      bestG = g;
    }
  }
  if (best == n) {
    std::fill(out, out + n, -kInf);
    std::fill(argmax, argmax + n, kNoArgmax);
    return;
  }
  const double fq = f[best];  // read before writing: out may alias f
  const double qd = static_cast<double>(best);
  const auto qi = static_cast<std::int32_t>(best);
  for (std::size_t p = 0; p < n; ++p) {
    const double d = static_cast<double>(p) - qd;
    out[p] = fq - b * d;  // = the general expression f - a*d*d - b*d with a = 0, exactly
    argmax[p] = qi;
  }
}

}  // namespace

void Workspace1d::Reserve(std::size_t n) {
  if (n <= capacity) return;
  // new T[n] without () leaves the memory uninitialised: no O(n) zero-fill per call.
  v.reset(new std::int32_t[n]);
  z.reset(new double[n + 1]);
  fv.reset(new double[n]);
  capacity = n;
}

void Workspace2d::Reserve(std::size_t height, std::size_t width) {
  line.Reserve(std::max(height, width));
  const std::size_t block = kColumnBlock * height;
  if (block <= colCapacity) return;
  col.reset(new double[block]);
  colArgY.reset(new std::int32_t[block]);
  colArgX.reset(new std::int32_t[block]);
  colCapacity = block;
}

void Transform1d(const double* f, std::size_t n, double a, double b, double* out,
                 std::int32_t* argmax, Workspace1d& ws) {
  CheckCoefficients(a, b, "gdt::Transform1d");
  if (n > kMaxCells) throw std::invalid_argument("gdt::Transform1d: length exceeds INT32_MAX");
  if (n == 0) return;
  if (f == nullptr || out == nullptr || argmax == nullptr) {
    throw std::invalid_argument("gdt::Transform1d: null pointer");
  }
  if (a == 0.0) {
    LinearCase(f, n, b, out, argmax);
    return;
  }
  ws.Reserve(n);
  std::int32_t* const v = ws.v.get();
  double* const z = ws.z.get();
  double* const fv = ws.fv.get();
  const double twoA = 2.0 * a;

  // Phase 1 (paper, Algorithm DT(f), first loop): build the upper envelope of the parabolas
  //   P_q(p) = f(q) - a (p-q)^2 - b (p-q),  q = 0..n-1 (skipping -inf entries).
  // For v < q, P_q(p) - P_v(p) = g(q) - g(v) + a (q-v)(2p - q - v) with g(q) = f(q) + b q, which
  // increases with p and vanishes at
  //   s = (g(v) - g(q)) / (2a (q - v)) + (q + v) / 2          (paper: eq. for s, generalised).
  // This form has no cancellation between large a q^2 terms and never divides by zero (a > 0).
  // For a tiny a, s may overflow to +-inf, which the comparisons below handle: -inf pops every
  // parabola (q dominates on the whole line), +inf gives q an empty interval.
  // Parabola v[k] is on the envelope for p in (z[k], z[k+1]].
  std::ptrdiff_t k = -1;
  for (std::size_t q = 0; q < n; ++q) {
    const double fq = f[q];
    if (!Selectable(fq)) continue;
    const double qd = static_cast<double>(q);
    const double gq = fq + b * qd;
    double s = -kInf;
    while (k >= 0) {
      const double vd = static_cast<double>(v[k]);
      const double gv = fv[k] + b * vd;  // g(v[k]), recomputed: the same value as when it was pushed
      s = (gv - gq) / (twoA * (qd - vd)) + 0.5 * (qd + vd);
      if (s > z[k]) break;  // v[k] keeps (z[k], s]; on s <= z[k] it is hidden by q: pop it
      --k;
    }
    if (k < 0) s = -kInf;
    ++k;
    v[k] = static_cast<std::int32_t>(q);
    fv[k] = fq;
    z[k] = s;
  }
  const std::ptrdiff_t count = k + 1;
  if (count == 0) {  // every entry is -inf
    std::fill(out, out + n, -kInf);
    std::fill(argmax, argmax + n, kNoArgmax);
    return;
  }
  z[count] = kInf;  // sentinel

  // Phase 2 (second loop of DT(f)): read the envelope left to right. At a boundary p == z[k+1]
  // both parabolas tie and the left one (smaller q) is kept.
  k = 0;
  for (std::size_t p = 0; p < n; ++p) {
    const double pd = static_cast<double>(p);
    while (z[k + 1] < pd) ++k;
    const double d = pd - static_cast<double>(v[k]);
    out[p] = fv[k] - a * d * d - b * d;
    argmax[p] = v[k];
  }
}

void Transform1d(const double* f, std::size_t n, double a, double b, double* out,
                 std::int32_t* argmax) {
  Workspace1d ws;
  Transform1d(f, n, a, b, out, argmax, ws);
}

void Transform2d(const double* f, std::size_t height, std::size_t width, double ay, double by,
                 double ax, double bx, double* out, std::int32_t* argmax, Workspace2d& ws) {
  CheckCoefficients(ay, by, "gdt::Transform2d (y)");
  CheckCoefficients(ax, bx, "gdt::Transform2d (x)");
  if (height != 0 && width > kMaxCells / height) {
    throw std::invalid_argument("gdt::Transform2d: height*width exceeds INT32_MAX");
  }
  const std::size_t cells = height * width;
  if (cells == 0) return;
  if (f == nullptr || out == nullptr || argmax == nullptr) {
    throw std::invalid_argument("gdt::Transform2d: null pointer");
  }
  ws.Reserve(height, width);

  // Pass 1 (paper, Sec. 4): along x for every row y',
  //   T(y', x) = max_{x'} f(y', x') - ax (x-x')^2 - bx (x-x'),  argmax x'(y', x).
  // Written into out/argmax (row by row, so out may alias f).
  for (std::size_t y = 0; y < height; ++y) {
    Transform1d(f + y * width, width, ax, bx, out + y * width, argmax + y * width, ws.line);
  }

  // Pass 2: along y for every column x,
  //   D(y, x) = max_{y'} T(y', x) - ay (y-y')^2 - by (y-y'),  argmax y'(y, x),
  // and the 2-D maximiser is (y', x'(y', x)). Columns are gathered kColumnBlock at a time.
  double* const col = ws.col.get();
  std::int32_t* const colArgY = ws.colArgY.get();
  std::int32_t* const colArgX = ws.colArgX.get();
  const auto w32 = static_cast<std::int32_t>(width);
  for (std::size_t x0 = 0; x0 < width; x0 += kColumnBlock) {
    const std::size_t nb = std::min(kColumnBlock, width - x0);
    for (std::size_t y = 0; y < height; ++y) {
      const double* rowT = out + y * width + x0;
      const std::int32_t* rowX = argmax + y * width + x0;
      for (std::size_t j = 0; j < nb; ++j) {
        col[j * height + y] = rowT[j];
        colArgX[j * height + y] = rowX[j];
      }
    }
    for (std::size_t j = 0; j < nb; ++j) {
      Transform1d(col + j * height, height, ay, by, col + j * height, colArgY + j * height, ws.line);
    }
    for (std::size_t y = 0; y < height; ++y) {
      double* rowD = out + y * width + x0;
      std::int32_t* rowA = argmax + y * width + x0;
      for (std::size_t j = 0; j < nb; ++j) {
        const std::int32_t ys = colArgY[j * height + y];
        rowD[j] = col[j * height + y];
        // T(ys, x) is finite whenever ys >= 0, so its x-argmax is >= 0 too.
        rowA[j] = ys < 0 ? kNoArgmax : ys * w32 + colArgX[j * height + static_cast<std::size_t>(ys)];
      }
    }
  }
}

void Transform2d(const double* f, std::size_t height, std::size_t width, double ay, double by,
                 double ax, double bx, double* out, std::int32_t* argmax) {
  Workspace2d ws;
  Transform2d(f, height, width, ay, by, ax, bx, out, argmax, ws);
}

}  // namespace gdt
}  // namespace gapbcfw
