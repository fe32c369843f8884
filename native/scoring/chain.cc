#include "scoring/chain.h"

#include <algorithm>
#include <cstring>

#include "scoring/accumulator.h"
#include "scoring/simd.h"

namespace gapbcfw {

namespace {

// Forward max-sum: delta[t][k] = theta[t][k] + max_j (delta[t-1][j] + tt[j][k]), all next states k at once
// (an add and a max per pair, vectorised over k).
GAPBCFW_WIDE_SIMD void viterbi_forward(const double* tt, int32_t K, const double* theta, int32_t T, double* delta) {
  std::memcpy(delta, theta, sizeof(double) * K);
  for (int32_t t = 1; t < T; ++t) {
    const double* prev = delta + static_cast<size_t>(t - 1) * K;
    double* cur = delta + static_cast<size_t>(t) * K;
    const double* th = theta + static_cast<size_t>(t) * K;
    for (int32_t k = 0; k < K; ++k) cur[k] = prev[0] + tt[k];
    for (int32_t j = 1; j < K; ++j) {
      const double p = prev[j];
      const double* row = tt + static_cast<size_t>(j) * K;
#pragma omp simd
      for (int32_t k = 0; k < K; ++k) {
        const double v = p + row[k];
        cur[k] = v > cur[k] ? v : cur[k];
      }
    }
    for (int32_t k = 0; k < K; ++k) cur[k] += th[k];
  }
}

// Four lanes of doubles: element-wise arithmetic only, so an AVX2 copy (one register) and the baseline copy (two) of a
// GAPBCFW_WIDE_SIMD function give the same bits.
typedef double Lanes __attribute__((vector_size(32)));

GAPBCFW_INLINE void load_lanes(Lanes& v, const double* p) { __builtin_memcpy(&v, p, sizeof v); }

// The features of x_t padded to a multiple of 4 with zeros (padding adds exact zeros to the sums).
GAPBCFW_INLINE int32_t padded(int32_t D) { return (D + 3) & ~3; }

// xpad = x_t and zeros up to padded(D).
GAPBCFW_INLINE void pad_features(const double* xt, int32_t D, double* xpad) {
  for (int32_t j = 0; j < padded(D); ++j) xpad[j] = j < D ? xt[j] : 0.0;
}

// tails[4 k + r] = the last D mod 4 weights of state k's row, zero-padded to 4.
GAPBCFW_INLINE void row_tails(const double* w, int32_t D, int32_t K, double* tails) {
  const int32_t full = D & ~3;
  for (int32_t k = 0; k < K; ++k)
    for (int32_t r = 0; r < 4; ++r) tails[4 * k + r] = full + r < D ? w[static_cast<size_t>(k) * D + full + r] : 0.0;
}

// <w_k, x_t> of kCount states k0.. at kPositions positions at once (each row of w loaded once for all positions),
// each as four partial sums s_r = sum over j = r (mod 4) of w_kj x_tj in increasing j, returned as
// (s_0 + s_1) + (s_2 + s_3): the order is fixed by the code, not by the vector width or the blocking. x holds the
// positions' padded features (padded(D) entries each, zeros beyond D); the rows' last D mod 4 entries come
// zero-padded from `tails`. out[p * K + s] receives position p's score of state k0 + s.
template <int kCount, int kPositions>
GAPBCFW_INLINE void state_dots(const double* w, int32_t D, int32_t K, int32_t k0, const double* x, const double* tails, double* out) {
  Lanes acc[kPositions][kCount];
  for (int p = 0; p < kPositions; ++p)
    for (int s = 0; s < kCount; ++s) acc[p][s] = Lanes{0.0, 0.0, 0.0, 0.0};
  const int32_t full = D & ~3;
  const size_t stride = static_cast<size_t>(padded(D));
  const double* row = w + static_cast<size_t>(k0) * D;
  Lanes xv[kPositions], wv;
  for (int32_t j = 0; j < full; j += 4) {
    for (int p = 0; p < kPositions; ++p) load_lanes(xv[p], x + p * stride + j);
    for (int s = 0; s < kCount; ++s) {
      load_lanes(wv, row + static_cast<size_t>(s) * D + j);
      for (int p = 0; p < kPositions; ++p) acc[p][s] += wv * xv[p];
    }
  }
  if (full < D) {
    for (int p = 0; p < kPositions; ++p) load_lanes(xv[p], x + p * stride + full);
    for (int s = 0; s < kCount; ++s) {
      load_lanes(wv, tails + 4 * static_cast<size_t>(k0 + s));
      for (int p = 0; p < kPositions; ++p) acc[p][s] += wv * xv[p];
    }
  }
  for (int p = 0; p < kPositions; ++p)
    for (int s = 0; s < kCount; ++s) out[static_cast<size_t>(p) * K + s] = (acc[p][s][0] + acc[p][s][1]) + (acc[p][s][2] + acc[p][s][3]);
}

// The positions [t, t + kPositions) of theta: all K states.
template <int kPositions>
GAPBCFW_INLINE void position_scores(const double* w, int32_t D, int32_t K, const double* xpad, const double* tails, double* th) {
  int32_t k = 0;
  for (; k + 4 <= K; k += 4) state_dots<4, kPositions>(w, D, K, k, xpad, tails, th + k);
  for (; k < K; ++k) state_dots<1, kPositions>(w, D, K, k, xpad, tails, th + k);
}

// Two positions at a time: each row of w is read once per pair (8 accumulators, 2 feature vectors, 1 row in registers).
GAPBCFW_WIDE_SIMD void unary_scores(const double* w, int32_t D, int32_t K, const double* x, int32_t T, double* out, double* xpad, double* tails) {
  row_tails(w, D, K, tails);
  for (int32_t t = 0; t < T; t += 2) {
    const int32_t count = std::min(2, T - t);
    for (int32_t p = 0; p < count; ++p) pad_features(x + static_cast<size_t>(t + p) * D, D, xpad + static_cast<size_t>(p) * padded(D));
    double* th = out + static_cast<size_t>(t) * K;
    if (count == 2) position_scores<2>(w, D, K, xpad, tails, th);
    else position_scores<1>(w, D, K, xpad, tails, th);
  }
}

// unary_scores' sums at the listed entries only (the same state_dots, so the same bits).
GAPBCFW_WIDE_SIMD void unary_entries(const double* w, int32_t D, int32_t K, const double* x, const int32_t* entries, int64_t count, double* out, double* xpad, double* tails) {
  row_tails(w, D, K, tails);
  int32_t loaded = -1;
  for (int64_t q = 0; q < count; ++q) {
    const int32_t t = entries[q] / K, k = entries[q] % K;
    if (t != loaded) {
      pad_features(x + static_cast<size_t>(t) * D, D, xpad);
      loaded = t;
    }
    state_dots<1, 1>(w, D, K, k, xpad, tails, out + q);
  }
}

// Thread-local scratch of both: two padded feature vectors, then the rows' tails.
struct UnaryScratch {
  double* xpad;
  double* tails;
};

UnaryScratch unary_scratch(ChainShape s) {
  thread_local std::vector<double> scratch;
  const size_t pads = 2 * static_cast<size_t>(padded(s.D));
  if (scratch.size() < pads + 4 * static_cast<size_t>(s.K)) scratch.resize(pads + 4 * static_cast<size_t>(s.K));
  return {scratch.data(), scratch.data() + pads};
}

}  // namespace

void chain_unary_entries(const double* w, ChainShape s, const double* x, const int32_t* entries, int64_t count, double* out) {
  const UnaryScratch u = unary_scratch(s);
  unary_entries(w, s.D, s.K, x, entries, count, out, u.xpad, u.tails);
}

void chain_unary_scores(const double* w, ChainShape s, const double* x, int32_t T, double* out) {
  const UnaryScratch u = unary_scratch(s);
  unary_scores(w, s.D, s.K, x, T, out, u.xpad, u.tails);
}

void chain_node_scores(const double* w, ChainShape s, const double* x, int32_t T, const int32_t* y_true,
                       double* theta) {
  const int32_t D = s.D, K = s.K;
  const double* first = w + static_cast<size_t>(K) * D;
  const double* last = first + K;
  const double loss_unit = T > 0 ? 1.0 / T : 0.0;
  chain_unary_scores(w, s, x, T, theta);
  // The loss before the biases, with the same operations as the batched pass and the TypeScript decoder (so that
  // all three break exact ties alike).
  if (y_true != nullptr) {
    for (int32_t t = 0; t < T; ++t) {
      double* th = theta + static_cast<size_t>(t) * K;
      for (int32_t k = 0; k < K; ++k)
        if (k != y_true[t]) th[k] += loss_unit;
    }
  }
  if (T > 0) {
    for (int32_t k = 0; k < K; ++k) theta[k] += first[k];
    double* th = theta + static_cast<size_t>(T - 1) * K;
    for (int32_t k = 0; k < K; ++k) th[k] += last[k];
  }
}

double chain_viterbi(const double* trans, int32_t K, const double* theta, int32_t T, int32_t* out_y,
                     std::vector<double>& work) {
  if (T <= 0) return 0.0;
  // work = [delta (T*K) | transitions transposed to prev-major (K*K)]. No backpointer table: the forward
  // pass only takes maxima (an add and a max per (prev, next) pair, vectorised over next), and the
  // backtrack recomputes the argmax at the T-1 states on the path, K candidates each. Both evaluate the
  // same doubles delta[t-1][j] + trans[j + K*k], so the path equals a stored-backpointer Viterbi's.
  const size_t TK = static_cast<size_t>(T) * K;
  const size_t KK = static_cast<size_t>(K) * K;
  if (work.size() < TK + KK) work.resize(TK + KK);
  double* delta = work.data();
  double* tt = delta + TK;  // tt[j*K + k] = trans[j + K*k]: row j holds prev = j -> every next k, contiguous
  for (int32_t k = 0; k < K; ++k)
    for (int32_t j = 0; j < K; ++j) tt[static_cast<size_t>(j) * K + k] = trans[j + static_cast<size_t>(K) * k];
  viterbi_forward(tt, K, theta, T, delta);
  const double* lastRow = delta + static_cast<size_t>(T - 1) * K;
  int32_t arg = 0;
  for (int32_t k = 1; k < K; ++k)
    if (lastRow[k] > lastRow[arg]) arg = k;
  const double score = lastRow[arg];
  out_y[T - 1] = arg;
  for (int32_t t = T - 1; t > 0; --t) {
    // First j attaining max_j delta[t-1][j] + trans[j + K*arg] (strict >: ties go to the smallest j).
    const double* prev = delta + static_cast<size_t>(t - 1) * K;
    const double* col = trans + static_cast<size_t>(K) * arg;
    int32_t best = 0;
    double bestValue = prev[0] + col[0];
    for (int32_t j = 1; j < K; ++j) {
      const double v = prev[j] + col[j];
      if (v > bestValue) {
        bestValue = v;
        best = j;
      }
    }
    arg = best;
    out_y[t - 1] = arg;
  }
  return score;
}

int64_t chain_psi(ChainShape s, const double* x, int32_t T, const int32_t* y_true, const int32_t* y, int32_t* idx,
                  double* val) {
  const int32_t D = s.D, K = s.K;
  const int64_t dim = static_cast<int64_t>(K) * D + 2 * K + static_cast<int64_t>(K) * K;
  thread_local TouchStorage storage;
  thread_local std::vector<int32_t> nonzero_store;
  TouchAccumulator acc(storage, static_cast<size_t>(dim));
  if (static_cast<int32_t>(nonzero_store.size()) < D) nonzero_store.resize(D);
  int32_t* features = nonzero_store.data();
  const int64_t first = static_cast<int64_t>(K) * D, last = first + K, trans = first + 2 * K;
  for (int32_t t = 0; t < T; ++t) {
    const int32_t a = y_true[t], b = y[t];
    if (a != b) {
      const double* xt = x + static_cast<size_t>(t) * D;
      // Nonzero features listed without branches first (a branch per pixel mispredicts on OCR images).
      int32_t m = 0;
      for (int32_t j = 0; j < D; ++j) {
        features[m] = j;
        m += xt[j] != 0.0 ? 1 : 0;
      }
      for (int32_t q = 0; q < m; ++q) {
        const int32_t j = features[q];
        acc.add(static_cast<int64_t>(a) * D + j, xt[j]);
        acc.add(static_cast<int64_t>(b) * D + j, -xt[j]);
      }
    }
    if (t > 0) {
      acc.add(trans + y_true[t - 1] + static_cast<int64_t>(K) * a, 1.0);
      acc.add(trans + y[t - 1] + static_cast<int64_t>(K) * b, -1.0);
    }
  }
  acc.add(first + y_true[0], 1.0);
  acc.add(first + y[0], -1.0);
  acc.add(last + y_true[T - 1], 1.0);
  acc.add(last + y[T - 1], -1.0);
  int64_t nnz = 0;
  acc.drain([&](int32_t j, double v) {
    idx[nnz] = j;
    val[nnz++] = v;
  });
  return nnz;
}

double chain_decode(const double* w, ChainShape s, const double* x, int32_t T, const int32_t* y_true,
                    int32_t* out_y) {
  thread_local std::vector<double> theta;
  thread_local std::vector<double> work;
  const size_t TK = static_cast<size_t>(T) * s.K;
  if (theta.size() < TK) theta.resize(TK);
  chain_node_scores(w, s, x, T, y_true, theta.data());
  const double* trans = w + static_cast<size_t>(s.K) * s.D + 2 * s.K;
  return chain_viterbi(trans, s.K, theta.data(), T, out_y, work);
}

}  // namespace gapbcfw
