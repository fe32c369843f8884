#include "scoring/chain_decode.h"

#include <algorithm>
#include <limits>

namespace gapbcfw {

namespace {
constexpr double kMinusInf = -std::numeric_limits<double>::infinity();
}  // namespace

void chain_penalise_transitions(const ChainPenalties& p, const double* trans, int32_t K, double* trans_out) {
  const size_t KK = static_cast<size_t>(K) * K;
  for (size_t j = 0; j < KK; ++j) trans_out[j] = p.transitions != nullptr && p.transitions[j] == 0 ? kMinusInf : trans[j];
}

void chain_penalise_ends(const ChainPenalties& p, int32_t K, int32_t T, double* theta) {
  double* last = theta + static_cast<size_t>(T - 1) * K;
  for (int32_t k = 0; k < K; ++k) {
    if (p.first != nullptr && p.first[k] == 0) theta[k] = kMinusInf;
    if (p.last != nullptr && p.last[k] == 0) last[k] = kMinusInf;
  }
}

int32_t chain_kbest(const double* trans, int32_t K, const double* theta, int32_t T, int32_t N, int32_t* out_y,
                    double* out_score, KbestWork& work) {
  if (T <= 0 || N <= 0) return 0;
  const size_t cells = static_cast<size_t>(T) * K;
  if (work.score.size() < cells * N) {
    work.score.resize(cells * N);
    work.back.resize(cells * N);
  }
  if (work.count.size() < cells) work.count.resize(cells);
  if (work.cursor.size() < static_cast<size_t>(K)) work.cursor.resize(K);
  double* score = work.score.data();
  int32_t* back = work.back.data();
  int32_t* count = work.count.data();
  int32_t* cursor = work.cursor.data();
  for (int32_t k = 0; k < K; ++k) {
    const bool finite = theta[k] > kMinusInf;
    count[k] = finite ? 1 : 0;
    score[static_cast<size_t>(k) * N] = theta[k];
    back[static_cast<size_t>(k) * N] = -1;
  }
  // The prefixes ending in (t, k): a merge of the K sorted lists of (t-1, j), each shifted by trans[j, k] and
  // theta[t][k] (the Viterbi sums' association). Picks are in (score desc, j asc, rank asc) order.
  for (int32_t t = 1; t < T; ++t) {
    const size_t prevCell = static_cast<size_t>(t - 1) * K;
    for (int32_t k = 0; k < K; ++k) {
      const size_t cell = static_cast<size_t>(t) * K + k;
      const double th = theta[cell];
      std::fill(cursor, cursor + K, 0);
      int32_t found = 0;
      while (found < N && th > kMinusInf) {
        int32_t bestJ = -1;
        double best = kMinusInf;
        for (int32_t j = 0; j < K; ++j) {
          if (cursor[j] >= count[prevCell + j]) continue;
          const double v = (score[(prevCell + j) * N + cursor[j]] + trans[j + static_cast<size_t>(K) * k]) + th;
          if (v > best) {
            best = v;
            bestJ = j;
          }
        }
        if (bestJ < 0) break;  // every remaining prefix scores -infinity
        score[cell * N + found] = best;
        back[cell * N + found] = bestJ * N + cursor[bestJ];
        ++cursor[bestJ];
        ++found;
      }
      count[cell] = found;
    }
  }
  // The N best over the last position's lists, (score desc, state asc, rank asc), backtracked.
  const size_t lastCell = static_cast<size_t>(T - 1) * K;
  std::fill(cursor, cursor + K, 0);
  int32_t produced = 0;
  while (produced < N) {
    int32_t bestK = -1;
    double best = kMinusInf;
    for (int32_t k = 0; k < K; ++k) {
      if (cursor[k] >= count[lastCell + k]) continue;
      const double v = score[(lastCell + k) * N + cursor[k]];
      if (v > best) {
        best = v;
        bestK = k;
      }
    }
    if (bestK < 0) break;
    int32_t* y = out_y + static_cast<size_t>(produced) * T;
    out_score[produced] = best;
    int32_t state = bestK, rank = cursor[bestK];
    ++cursor[bestK];
    for (int32_t t = T - 1; t >= 0; --t) {
      y[t] = state;
      const int32_t b = back[(static_cast<size_t>(t) * K + state) * N + rank];
      if (t > 0) {
        state = b / N;
        rank = b % N;
      }
    }
    ++produced;
  }
  return produced;
}

void chain_max_marginals(const double* trans, int32_t K, const double* theta, int32_t T, double* out,
                         std::vector<double>& work) {
  if (T <= 0) return;
  const size_t TK = static_cast<size_t>(T) * K;
  if (work.size() < TK) work.resize(TK);
  double* beta = work.data();
  // alpha (forward max-sum, theta included) straight into out.
  std::copy(theta, theta + K, out);
  for (int32_t t = 1; t < T; ++t) {
    const double* prev = out + static_cast<size_t>(t - 1) * K;
    double* cur = out + static_cast<size_t>(t) * K;
    for (int32_t k = 0; k < K; ++k) {
      double best = kMinusInf;
      for (int32_t j = 0; j < K; ++j) best = std::max(best, prev[j] + trans[j + static_cast<size_t>(K) * k]);
      cur[k] = best + theta[static_cast<size_t>(t) * K + k];
    }
  }
  // beta[t][k] = max_j trans[k, j] + theta[t+1][j] + beta[t+1][j] (theta of t excluded), beta[T-1] = 0.
  std::fill(beta + static_cast<size_t>(T - 1) * K, beta + TK, 0.0);
  for (int32_t t = T - 2; t >= 0; --t) {
    const double* next = beta + static_cast<size_t>(t + 1) * K;
    const double* th = theta + static_cast<size_t>(t + 1) * K;
    double* cur = beta + static_cast<size_t>(t) * K;
    for (int32_t k = 0; k < K; ++k) {
      double best = kMinusInf;
      for (int32_t j = 0; j < K; ++j) best = std::max(best, trans[k + static_cast<size_t>(K) * j] + th[j] + next[j]);
      cur[k] = best;
    }
  }
  for (size_t c = 0; c < TK; ++c) out[c] += beta[c];
}

}  // namespace gapbcfw
