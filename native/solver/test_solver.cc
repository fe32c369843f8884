// Standalone test of the native step loop's plain C++ pieces (no Node headers): the PRNG against values of
// src/core/rng.ts, the sum tree's draws, the simplex projection and the exact multiclass block solve against brute
// force, the sparse block store against dense arithmetic, and chains' partial node scores against full ones.
// link: native/scoring/batch.cc native/scoring/chain.cc native/scoring/chain_decode.cc native/scoring/rows.cc
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "solver/block_store.h"
#include "solver/models.h"
#include "solver/rng.h"
#include "solver/simplex.h"
#include "solver/sum_tree.h"

using namespace gapbcfw;

static int checks = 0, failures = 0;

static void expect(bool ok, const char* what) {
  ++checks;
  if (!ok) {
    ++failures;
    std::printf("FAILED: %s\n", what);
  }
}

// Rng(42) of src/core/rng.ts: its state, two words, a double, two bounded integers, a permutation of 6, the state after.
static void test_rng() {
  uint32_t s[4] = {939911724u, 3948730756u, 321366731u, 3317318717u};
  Xoshiro128 r(s);
  expect(r.next_u32() == 2837322924u && r.next_u32() == 544945897u, "rng words equal Rng's");
  expect(r.next() == 0.1117019639532224, "rng double equals Rng.next");
  expect(r.below(7) == 1 && r.below(1000003) == 172951, "rng integers equal Rng.int");
  int32_t p[6];
  r.permutation(p, 6);
  const int32_t want[6] = {0, 1, 5, 2, 3, 4};
  bool same = true;
  for (int k = 0; k < 6; ++k) same = same && p[k] == want[k];
  expect(same, "rng permutation equals Rng.permutation");
  expect(s[0] == 3146089651u && s[1] == 1198619942u && s[2] == 2038687047u && s[3] == 2536583843u, "rng state after equals Rng's");
  // below() in 32-bit arithmetic against the rejection bound of Rng.int in 64 bits (limit = 2^32 - 2^32 mod n), on the
  // same draws, for bounds where the rejected range is empty, tiny and almost half of the words.
  const uint32_t bounds[] = {1u, 2u, 3u, 7u, 1000003u, 0x7FFFFFFFu, 0x80000000u, 0x80000001u, 0xC0000000u, 0xFFFFFFFFu};
  bool equal = true;
  for (uint32_t n : bounds) {
    for (int k = 0; k < 200; ++k) {
      uint32_t a[4] = {s[0], s[1], s[2], s[3]}, b[4] = {s[0], s[1], s[2], s[3]};
      Xoshiro128 fast(a), words(b);
      const uint64_t limit = (uint64_t{1} << 32) - (uint64_t{1} << 32) % n;
      uint32_t x;
      do x = words.next_u32();
      while (x >= limit);
      equal = equal && fast.below(n) == x % n && a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
      r.next_u32();
    }
  }
  expect(equal, "rng below() equals the 64-bit rejection bound, draw for draw");
}

// Draws follow the weights; a zero weight is never drawn; an empty tree draws -1.
static void test_sum_tree() {
  const int n = 5;
  std::vector<double> nodes(16, 0.0);
  SumTreeView tree(nodes.data(), 8);
  expect(tree.sample(0.5) == -1, "empty tree draws -1");
  const double w[n] = {1, 0, 2, 3, 4};
  for (int i = 0; i < n; ++i) tree.set(i, w[i]);
  expect(tree.total() == 10, "tree total");
  std::vector<int> counts(n, 0);
  for (int k = 0; k < 10000; ++k) ++counts[static_cast<size_t>(tree.sample((k + 0.5) / 10000))];
  expect(counts[1] == 0, "zero weight never drawn");
  bool close = true;
  for (int i = 0; i < n; ++i) close = close && std::abs(counts[static_cast<size_t>(i)] - 1000 * w[i]) <= 1;
  expect(close, "stratified draws follow the weights");
}

// The minimiser of a/2 ||alpha - t||^2 (any t) over the simplex by brute force: every face (support S), the
// unconstrained minimiser on its affine hull, kept when feasible; the best objective wins.
static std::vector<double> brute_projection(const std::vector<double>& t) {
  const int K = static_cast<int>(t.size());
  std::vector<double> best;
  double best_f = INFINITY;
  for (int mask = 1; mask < (1 << K); ++mask) {
    int m = 0;
    double sum = 0;
    for (int k = 0; k < K; ++k)
      if (mask >> k & 1) {
        ++m;
        sum += t[static_cast<size_t>(k)];
      }
    const double shift = (sum - 1) / m;
    std::vector<double> a(static_cast<size_t>(K), 0.0);
    bool ok = true;
    for (int k = 0; k < K; ++k)
      if (mask >> k & 1) ok = ok && (a[static_cast<size_t>(k)] = t[static_cast<size_t>(k)] - shift) >= -1e-15;
    if (!ok) continue;
    double f = 0;
    for (int k = 0; k < K; ++k) f += (a[static_cast<size_t>(k)] - t[static_cast<size_t>(k)]) * (a[static_cast<size_t>(k)] - t[static_cast<size_t>(k)]);
    if (f < best_f) {
      best_f = f;
      best = a;
    }
  }
  return best;
}

// The block subproblem of the Crammer-Singer SSVM, min_alpha a/2 ||e_y - alpha||^2 - sum_k alpha_k (L_k + B_k) over the
// simplex with B_k = S_k - a beta_k (the scores without block i), is solved by multiclass_block_solve: its value is the
// brute-force minimum's (projection of alpha_old + (L + S)/a).
static void test_block_solve() {
  std::mt19937 g(3);
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> target, sorted, alpha_new(4), v(4);
  bool all = true;
  for (int trial = 0; trial < 2000; ++trial) {
    const int K = 2 + trial % 3;
    const int y = trial % K;
    std::vector<double> alpha(static_cast<size_t>(K)), S(static_cast<size_t>(K));
    double sum = 0;
    for (auto& x : alpha) sum += (x = std::abs(u(g)) * (trial % 5 == 0 ? 0 : 1) + (trial % 5 == 0 ? 1 : 0));
    for (auto& x : alpha) x /= sum;
    for (auto& x : S) x = u(g);
    const double a = std::abs(u(g)) + 0.01;
    multiclass_block_solve(alpha.data(), S.data(), K, y, a, alpha_new.data(), target, sorted);
    // the objective in alpha: a/2 ||e_y - alpha||^2 - sum_k alpha_k (L_k + S_k - a beta_k)
    auto objective = [&](const double* al) {
      double f = 0;
      for (int k = 0; k < K; ++k) {
        const double beta_old = (k == y ? 1.0 : 0.0) - alpha[static_cast<size_t>(k)];
        const double e = (k == y ? 1.0 : 0.0) - al[k];
        f += 0.5 * a * e * e - al[k] * ((k != y ? 1.0 : 0.0) + S[static_cast<size_t>(k)] - a * beta_old);
      }
      return f;
    };
    std::vector<double> t(static_cast<size_t>(K));
    for (int k = 0; k < K; ++k) t[static_cast<size_t>(k)] = alpha[static_cast<size_t>(k)] + ((k != y ? 1.0 : 0.0) + S[static_cast<size_t>(k)]) / a;
    const std::vector<double> best = brute_projection(t);
    double s = 0;
    for (int k = 0; k < K; ++k) s += alpha_new[static_cast<size_t>(k)];
    all = all && std::abs(s - 1) < 1e-12 && std::abs(objective(alpha_new.data()) - objective(best.data())) <= 1e-12 * (1 + std::abs(objective(best.data())));
  }
  expect(all, "exact multiclass block solve equals the brute-force minimum");
}

// Sparse blocks against dense arithmetic: sums, products, updates and replace.
static void test_sparse_store() {
  const int64_t d = 10;
  SparseBlockStore store(2, d);
  std::vector<double> w(d, 0.0), dense(d, 0.0);
  const int32_t idx[3] = {7, 2, 5};
  const double val[3] = {1.5, -2, 0.25};
  store.add_sparse(1, w.data(), {idx, val, 3}, 2.0);
  store.update(1, w.data(), nullptr, {idx, val, 2}, 0.5, 4.0, 0.0);
  // dense twin: w_1 = 2 psi, then (1 - 0.5) w_1 + 0.5 * 4 * psi[0..2)
  for (int q = 0; q < 3; ++q) dense[static_cast<size_t>(idx[q])] = 2 * val[q] * 0.5;
  for (int q = 0; q < 2; ++q) dense[static_cast<size_t>(idx[q])] += 0.5 * 4 * val[q];
  bool same = true;
  for (int64_t j = 0; j < d; ++j) same = same && w[static_cast<size_t>(j)] == dense[static_cast<size_t>(j)];
  expect(same, "sparse update equals the dense arithmetic");
  double dw, sq;
  store.sums(1, w.data(), dw, sq);
  double want = 0;
  for (const double x : dense) want += x * x;
  expect(dw == sq && std::abs(sq - want) < 1e-12, "sparse sums");
  std::vector<double> values(d, 0.0);
  values[3] = 1;
  store.replace(1, w.data(), values.data());
  expect(store.indices(1).size() == 1 && w[3] == 1 && w[7] == 0, "sparse replace");
}

// prepare_labels (the states the labels use) then score() against prepare (all states) then score(), bit for bit, and
// complete() + oracle() against prepare + oracle(); for dense chains (D = 7: a tail of 3 beyond the lanes of four)
// and sparse chains, sequences of 1-4 tokens (T = 1: both biases on one token).
static void test_partial_scores() {
  const int32_t K = 5, D = 7, F = 6;
  const int32_t offsets[5] = {0, 1, 3, 6, 10};
  const int32_t truth[10] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4};
  const int32_t T_total = 10;
  std::mt19937 g(7);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  std::vector<double> x(static_cast<size_t>(T_total) * D);
  for (double& v : x) v = u(g) * (g() % 3 == 0 ? 1e-3 : 1.0);
  std::vector<int32_t> rows(T_total + 1), ids;
  std::vector<double> vals;
  for (int32_t t = 0; t < T_total; ++t) {
    rows[static_cast<size_t>(t)] = static_cast<int32_t>(ids.size());
    for (int32_t f = 0; f < F; ++f)
      if (g() % 2 == 0) {
        ids.push_back(f);
        vals.push_back(u(g));
      }
  }
  rows[T_total] = static_cast<int32_t>(ids.size());
  const ChainLayout chain{4, K, offsets, truth};
  DenseChainBatch dense_batch{chain, D, x.data(), nullptr};
  SparseChainBatch sparse_batch{chain, F, rows.data(), ids.data(), vals.data()};
  DenseChainBlocks dense(dense_batch);
  SparseChainBlocks sparse(sparse_batch);
  bool same = true, same_oracle = true;
  for (BlockModel* m : {static_cast<BlockModel*>(&dense), static_cast<BlockModel*>(&sparse)}) {
    std::vector<double> w(static_cast<size_t>(m->dim()));
    for (double& v : w) v = u(g);
    for (int32_t i = 0; i < 4; ++i) {
      const int32_t T = m->label_length(i);
      std::vector<int32_t> labels(static_cast<size_t>(3 * T));
      for (int32_t& y : labels) y = static_cast<int32_t>(g() % K);
      m->prepare(i, w.data());
      double full[3], part[3];
      for (int c = 0; c < 3; ++c) full[c] = m->score(labels.data() + c * T);
      std::vector<int32_t> y_full(static_cast<size_t>(T)), y_part(static_cast<size_t>(T));
      m->oracle(w.data(), y_full.data());
      m->prepare_labels(i, w.data(), labels.data(), 3);
      for (int c = 0; c < 3; ++c) part[c] = m->score(labels.data() + c * T);
      m->complete();
      m->oracle(w.data(), y_part.data());
      for (int c = 0; c < 3; ++c) same = same && std::memcmp(&full[c], &part[c], sizeof(double)) == 0;
      same_oracle = same_oracle && y_full == y_part;
    }
  }
  expect(same, "partial node scores give score() the bits of full ones (dense and sparse chains)");
  expect(same_oracle, "complete() after partial node scores gives the oracle's label");
}

int main() {
  test_rng();
  test_sum_tree();
  test_block_solve();
  test_sparse_store();
  test_partial_scores();
  if (failures > 0) {
    std::printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  std::printf("all %d checks passed\n", checks);
  return 0;
}
