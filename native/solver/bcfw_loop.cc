#include "solver/bcfw_loop.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

namespace gapbcfw {

namespace {

// Math.max and Math.min of JavaScript (NaN wins; +0 is above -0), so that stored values keep the TypeScript bits.
double js_max(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double js_min(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::nan("");
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

double norm_sq(const int32_t*, const double* val, int64_t nnz) {
  double s = 0.0;
  for (int64_t q = 0; q < nnz; ++q) s += val[q] * val[q];
  return s;
}

constexpr SparseRef kEmpty{nullptr, nullptr, 0};

enum Move { kNone = 0, kFwMove, kAwayMove, kPairwiseMove };

}  // namespace

StepLoop::StepLoop(BlockModel& model, BlockStore* blocks, const LoopSettings& settings, const LoopArrays& arrays)
    : model_(model),
      blocks_(blocks),
      s_(settings),
      a_(arrays),
      n_(model.n()),
      d_(model.dim()),
      lambda_n_(settings.lambda * model.n()),
      rng_(arrays.rng),
      tree_(arrays.tree, arrays.tree_size) {
  const bool dual = (s_.step != StepType::kFw && s_.step != StepType::kExact) || s_.cache;
  if (dual) {
    atoms_.reserve(static_cast<size_t>(n_));
    for (int32_t i = 0; i < n_; ++i) {
      atoms_.emplace_back(model.label_length(i));
      atoms_.back().add(model.truth(i), 0.0, 1.0);
    }
  }
  int64_t cap = 0;
  for (int32_t i = 0; i < n_; ++i) cap = std::max(cap, model.psi_capacity(i));
  for (Corner* c : {&fw_, &away_}) {
    c->idx.resize(static_cast<size_t>(cap));
    c->val.resize(static_cast<size_t>(cap));
  }
  label_.resize(static_cast<size_t>(model.max_label_length()));
  if (s_.shrinking && s_.sampling != Sampling::kPerm) throw StepError("shrinking skips blocks of a permutation: it needs perm sampling");
  if (s_.step == StepType::kExact) {
    init_exact();
    return;
  }
  if (blocks_ == nullptr) throw StepError("the block storage is missing");
  if (s_.step != StepType::kFw) pair_scratch_.assign(static_cast<size_t>(d_), 0.0);
}

RunResult StepLoop::run(int32_t from, int32_t to) {
  // Exact multiclass steps work on a feature-major copy of w, written back however the run ends.
  struct Run {
    MulticlassBlocks* m;
    double* w;
    Run(MulticlassBlocks* mc, double* wv) : m(mc), w(wv) {
      if (m != nullptr) m->begin_run(w);
    }
    ~Run() {
      if (m != nullptr) m->end_run(w);
    }
  } scope(multiclass_, a_.w);
  drawn_ = -1;
  for (int32_t s = from; s < to; ++s) {
    int32_t i = drawn_;
    drawn_ = -1;
    if (i < 0) {
      if (converged()) return {s - from, true};
      i = next_block(s);
    }
    next_position_ = s + 1 < to ? s + 1 : -1;
    if (s_.shrinking && a_.gap_est[i] == 0) {  // settled (LoopSettings::shrinking)
      a_.counters[kSkippedBlocks] += 1;
      continue;
    }
    step(i);
  }
  return {to - from, false};
}

// Once a step has set its gap estimate (the sampler's state is final for it), the next step's exit test and block draw
// can run: the same draws in the same order as after the step, and the next block's row is requested from memory while
// this step's updates sweep.
void StepLoop::draw_ahead() {
  if (next_position_ < 0 || converged()) return;
  drawn_ = next_block(next_position_);
  next_position_ = -1;
  model_.prefetch(drawn_);
  if (blocks_ != nullptr) blocks_->prefetch(drawn_);
}

// ---- sampling (2016 Alg. 2) -------------------------------------------------------------------------------

// The estimated gap (+inf while a block is unvisited) at most exit_below.
bool StepLoop::converged() const {
  const double estimate = a_.est_totals[kUnvisited] > 0 ? INFINITY : js_max(a_.est_totals[kEstSum], 0.0);
  return estimate <= s_.exit_below;
}

int32_t StepLoop::next_block(int32_t s) {
  int32_t i;
  switch (s_.sampling) {
    case Sampling::kPerm: i = a_.order[s]; break;
    case Sampling::kGap: i = draw_gap_block(); break;
    default: i = static_cast<int32_t>(rng_.below(static_cast<uint32_t>(n_)));
  }
  // The order, first-visit order and sum tree are the caller's arrays: a block outside 0..n-1 is an error.
  if (i < 0 || i >= n_) throw StepError("the sampling state gave block " + std::to_string(i) + ", outside 0.." + std::to_string(n_ - 1));
  return i;
}

// Unvisited blocks (estimate +inf) first, in their random first-visit order; then proportional to the estimates^p;
// a uniform block when every estimate is 0.
int32_t StepLoop::draw_gap_block() {
  const double unvisited = a_.est_totals[kUnvisited];
  for (auto p = static_cast<int32_t>(std::max(n_ - unvisited, 0.0)); unvisited > 0 && p < n_; ++p) {
    const int32_t i = a_.first_visit[p];
    if (i < 0 || i >= n_ || a_.gap_est[i] == INFINITY) return i;
  }
  const int64_t i = tree_.sample(rng_.next());
  return i >= 0 ? static_cast<int32_t>(i) : static_cast<int32_t>(rng_.below(static_cast<uint32_t>(n_)));
}

void StepLoop::set_estimate(int32_t i, double g) {
  const double old = a_.gap_est[i];
  if (old == INFINITY) a_.est_totals[kUnvisited] -= 1;
  else a_.est_totals[kEstSum] -= old;
  a_.gap_est[i] = g;
  a_.est_totals[kEstSum] += g;
  const double weight = s_.gap_degree == 1 ? g : std::pow(g, s_.gap_degree);
  if (!(weight >= 0 && std::isfinite(weight))) throw StepError("SumTree weight must be finite and >= 0, got " + number(weight));
  tree_.set(i, weight);
}

// ---- one block step (2013 Alg. 4; 2016 Alg. 3-5) ---------------------------------------------------------

void StepLoop::step(int32_t i) {
  if (s_.step == StepType::kExact) {
    exact_step(i);
    return;
  }
  a_.scalars[kEstimatesExact] = 0;
  Step st;
  st.i = i;
  st.li = a_.l_blocks[i];
  BlockAtoms* A = atoms_.empty() ? nullptr : &atoms_[static_cast<size_t>(i)];
  dense_ready_ = false;
  // While the cache is open a hit is likely: score only the states the stored labels use (the oracle completes them).
  const bool open = A != nullptr && s_.cache && cache_open(i, *A);
  if (open) model_.prepare_labels(i, a_.w, A->labels(), A->size());
  else model_.prepare(i, a_.w);
  st.s_index = cache_choice(st, A, open);
  fw_corner(st, A);
  draw_ahead();
  choose_move(st, A);
  apply_move(st, A, unclip());
  if (a_.step_costs != nullptr) record_gain(st);
  if (st.drop && st.kind != kNone) a_.counters[kDropSteps] += 1;
  reclip();
  if (A != nullptr) tidy_atoms(*A, st.s_index, i);
  a_.scalars[kSteps] += 1;
}

// base = lambda <w_i, w> - l_i (2016 eq. 10). Pairwise steps take it from the dual variables, base = -sum_a alpha_a s_a/n
// (no sweep of w_i: their moves need no ||w_i||^2); others from <w_i, w> and ||w_i||^2, swept once per step.
void StepLoop::dense_stats(Step& st) {
  if (s_.step == StepType::kPairwise) {
    const BlockAtoms& A = atoms_[static_cast<size_t>(st.i)];
    double s = 0;
    for (int32_t k = 0; k < A.size(); ++k) s += A.alpha[static_cast<size_t>(k)] * scores_[static_cast<size_t>(k)];
    st.base = -s / n_;
    return;
  }
  if (!dense_ready_) {
    blocks_->sums(st.i, a_.w, dw_, sq_);
    dense_ready_ = true;
  }
  st.base = s_.lambda * dw_ - st.li;
  st.wi_sq = sq_;
}

// Scores the block's stored labels at w (into scores_) and returns the index of the one the cache serves (2016
// Alg. 5: its block gap is > 0 and >= max(F g_i, nu G / n)), or -1.
int32_t StepLoop::cache_choice(Step& st, BlockAtoms* A, bool open) {
  if (A == nullptr) return -1;
  if (scores_.size() < static_cast<size_t>(A->size()) + 1) scores_.resize(2 * (static_cast<size_t>(A->size()) + 1));
  // The scores serve the cache test, the away corner and the cache's eviction.
  if (!open && s_.step == StepType::kFw && A->size() < s_.cache_max) return -1;
  for (int32_t k = 0; k < A->size(); ++k) scores_[static_cast<size_t>(k)] = model_.score(A->label(k));
  if (!open || A->size() == 0) return -1;
  dense_stats(st);
  int32_t c = 0;
  for (int32_t k = 1; k < A->size(); ++k)
    if (scores_[static_cast<size_t>(k)] > scores_[static_cast<size_t>(c)]) c = k;
  const double g_cache = st.base + scores_[static_cast<size_t>(c)] / n_;
  const double bar = js_max(s_.cache_factor * a_.gap_est[st.i], (s_.cache_nu * a_.scalars[kCacheGap]) / n_);
  return g_cache > 0 && g_cache >= bar ? c : -1;
}

// The adaptive cache: open while the recent cache hits gain at least as much dual per unit of work as the recent oracle
// steps, gainCache / (shared + perLabel sum_k L_k) >= gainOracle / (shared + oracle) in counted operations (the stored
// labels' losses: how much of them differs from the ground truth).
bool StepLoop::cache_open(int32_t i, const BlockAtoms& A) const {
  const double* c = a_.step_costs;
  if (c == nullptr) return true;
  const double shared = c[3 * static_cast<int64_t>(i)];
  double stored = 0;
  for (const double L : A.loss) stored += L;
  return a_.scalars[kGainCache] * (shared + c[3 * static_cast<int64_t>(i) + 1]) >= a_.scalars[kGainOracle] * (shared + stored * c[3 * static_cast<int64_t>(i) + 2]);
}

// The step's dual gain into the exponential average (about 32 steps; the first value: the first step's) of its kind.
void StepLoop::record_gain(const Step& st) {
  const double gain = st.kind == 0 ? 0.0 : st.best;
  double& average = a_.scalars[st.cache_hit ? kGainCache : kGainOracle];
  average = std::isfinite(average) ? average + (gain - average) / 32 : gain;
}

// A corner's psi, loss and score L_i(y) - <w, psi_i(y)> (dotSparse's order).
void StepLoop::corner(Corner& c, int32_t i, const int32_t* y) {
  c.nnz = model_.psi(i, y, c.idx.data(), c.val.data());
  c.loss = model_.loss(i, y);
  double dot = 0.0;
  for (int64_t q = 0; q < c.nnz; ++q) dot += a_.w[c.idx[static_cast<size_t>(q)]] * c.val[static_cast<size_t>(q)];
  c.score = c.loss - dot;
}

// The FW corner: the cache's label, else the max-oracle's (the ground truth when it does not beat it); a miss sets
// the block's gap estimate and stores the label.
void StepLoop::fw_corner(Step& st, BlockAtoms* A) {
  const int32_t i = st.i;
  const int32_t* y;
  if (st.s_index >= 0) {
    st.cache_hit = true;
    a_.counters[kCacheHits] += 1;
    y = A->label(st.s_index);
    corner(fw_, i, y);
  } else {
    model_.complete();
    model_.oracle(a_.w, label_.data());
    a_.counters[kOracleCalls] += 1;
    corner(fw_, i, label_.data());
    double h = fw_.score;  // checkedHinge: rounding below 0 is 0; clearly below is an inexact oracle
    if (!(h >= 0)) {
      if (!(h > -1e-9)) throw StepError("oracle of block " + std::to_string(i) + " returned a label scoring " + number(h) + " < 0 = the ground truth's score: the max-oracle is not exact");
      h = 0;
    }
    if (!(h > 0)) {
      const int32_t* truth = model_.truth(i);
      std::copy(truth, truth + model_.label_length(i), label_.begin());
      fw_.nnz = 0;
      fw_.loss = 0;
      fw_.score = 0;
    }
    y = label_.data();
  }
  dense_stats(st);
  st.g_fw = st.base + fw_.score / n_;
  if (st.cache_hit) return;
  set_estimate(i, js_max(js_max(st.g_fw, 0.0), 0.0));
  if (A == nullptr) return;
  st.s_index = A->find(y);
  if (st.s_index < 0) {
    st.s_index = A->add(y, fw_.loss, 0.0);
    scores_[static_cast<size_t>(st.s_index)] = fw_.score;
  }
}

// A move with its optimal step (gap / (lambda ||d||^2), clipped to [0, gamma_max]) if it improves the dual most.
void StepLoop::consider(Step& st, int kind, double gap, double dist_sq, double gamma_max) {
  const double g = js_min(js_max(gap / (s_.lambda * dist_sq + DBL_EPSILON), 0.0), gamma_max);
  const double improvement = g * gap - 0.5 * g * g * s_.lambda * dist_sq;  // the dual's increase (exact: quadratic)
  if (improvement > st.best) {
    st.best = improvement;
    st.kind = kind;
    st.gamma = g;
    st.drop = g == gamma_max;
  }
}

void StepLoop::choose_move(Step& st, BlockAtoms* A) {
  if (s_.step == StepType::kFw || s_.step == StepType::kAway || s_.step == StepType::kHybrid) {
    // ||w_i - w_s||^2 = ||w_i||^2 - 2 <w_i, psi_s>/(lambda n) + ||psi_s||^2/(lambda n)^2
    const double dp = blocks_->dot_sparse(st.i, fw_.ref());
    const double dist = js_max(st.wi_sq - (2 * dp) / lambda_n_ + norm_sq(fw_.idx.data(), fw_.val.data(), fw_.nnz) / (lambda_n_ * lambda_n_), 0.0);
    if (s_.line_search) {
      consider(st, kFwMove, st.g_fw, dist, 1);
    } else {
      st.kind = kFwMove;
      st.gamma = (2.0 * n_) / (a_.scalars[kSteps] + 2.0 * n_);
      st.drop = st.gamma == 1;
      st.best = st.gamma * st.g_fw - 0.5 * st.gamma * st.gamma * s_.lambda * dist;
    }
  }
  if (A != nullptr && s_.step != StepType::kFw) away_moves(st, A);
}

// The away corner: the active atom with the smallest score (2016 Sec. 3.3); away (Alg. 4) and pairwise (Alg. 3) moves.
void StepLoop::away_moves(Step& st, BlockAtoms* A) {
  int32_t a = -1;
  for (int32_t k = 0; k < A->size(); ++k)
    if (A->alpha[static_cast<size_t>(k)] > 0 && (a < 0 || scores_[static_cast<size_t>(k)] < scores_[static_cast<size_t>(a)])) a = k;
  if (a < 0) return;
  st.a_index = a;
  const double alpha_a = A->alpha[static_cast<size_t>(a)];
  if (a != st.s_index || s_.step != StepType::kPairwise) corner(away_, st.i, A->label(a));
  // Away gap g^A = lambda w^T (w_a - w_i) + l_i - l_a = -(base + s_a/n).
  const double g_a = -(st.base + away_.score / n_);
  if ((s_.step == StepType::kAway || s_.step == StepType::kHybrid) && alpha_a < 1) {
    const double dp = blocks_->dot_sparse(st.i, away_.ref());
    const double dist = js_max(st.wi_sq - (2 * dp) / lambda_n_ + norm_sq(away_.idx.data(), away_.val.data(), away_.nnz) / (lambda_n_ * lambda_n_), 0.0);
    consider(st, kAwayMove, g_a, dist, alpha_a / (1 - alpha_a));
  }
  if ((s_.step == StepType::kPairwise || s_.step == StepType::kHybrid) && a != st.s_index) {
    // ||w_s - w_a||^2 = ||psi_s - psi_a||^2 / (lambda n)^2
    consider(st, kPairwiseMove, st.g_fw + g_a, pair_dist_sq(fw_, away_) / (lambda_n_ * lambda_n_), alpha_a);
  }
}

// ||a - b||^2 through the zeroed dense scratch (left zeroed), in sparseDistSq's order.
double StepLoop::pair_dist_sq(const Corner& a, const Corner& b) {
  double* x = pair_scratch_.data();
  for (int64_t q = 0; q < a.nnz; ++q) x[a.idx[static_cast<size_t>(q)]] = a.val[static_cast<size_t>(q)];
  for (int64_t q = 0; q < b.nnz; ++q) x[b.idx[static_cast<size_t>(q)]] -= b.val[static_cast<size_t>(q)];
  double s = 0.0;
  for (const Corner* c : {&a, &b}) {
    for (int64_t q = 0; q < c->nnz; ++q) {
      const int32_t j = c->idx[static_cast<size_t>(q)];
      s += x[j] * x[j];
      x[j] = 0.0;
    }
  }
  return s;
}

void StepLoop::apply_move(Step& st, BlockAtoms* A, double* v) {
  const int32_t i = st.i;
  const double gamma = st.gamma, li = st.li;
  const double rho = 2 / (a_.scalars[kSteps] + 2);
  double* avg = s_.averaging ? a_.w_avg : nullptr;
  double li_new = li;
  switch (st.kind) {
    case kFwMove: {  // w_i <- (1 - gamma) w_i + gamma w_s (2013 Alg. 4, line 7)
      blocks_->update(i, v, avg, fw_.ref(), gamma, 1 / lambda_n_, rho);
      li_new = (1 - gamma) * li + (gamma * fw_.loss) / n_;
      a_.counters[kFwSteps] += 1;
      if (A == nullptr) break;
      for (double& x : A->alpha) x = st.drop ? 0 : (1 - gamma) * x;
      A->alpha[static_cast<size_t>(st.s_index)] = st.drop ? 1 : A->alpha[static_cast<size_t>(st.s_index)] + gamma;
      break;
    }
    case kAwayMove: {  // w_i <- (1 + gamma) w_i - gamma w_a (2016 Alg. 4)
      blocks_->update(i, v, avg, away_.ref(), -gamma, 1 / lambda_n_, rho);
      li_new = (1 + gamma) * li - (gamma * away_.loss) / n_;
      a_.counters[kAwaySteps] += 1;
      for (double& x : A->alpha) x = (1 + gamma) * x;
      A->alpha[static_cast<size_t>(st.a_index)] = st.drop ? 0 : A->alpha[static_cast<size_t>(st.a_index)] - gamma;
      break;
    }
    case kPairwiseMove: {  // w_i <- w_i + gamma (w_s - w_a) (2016 Alg. 3)
      const double scale = gamma / lambda_n_;
      blocks_->add_sparse(i, v, fw_.ref(), scale);
      blocks_->add_sparse(i, v, away_.ref(), -scale);
      if (avg != nullptr) blocks_->update(i, v, avg, kEmpty, 0, 0, rho);
      li_new = li + (gamma * (fw_.loss - away_.loss)) / n_;
      a_.counters[kPairwiseSteps] += 1;
      A->alpha[static_cast<size_t>(st.s_index)] = A->alpha[static_cast<size_t>(st.s_index)] + gamma;
      A->alpha[static_cast<size_t>(st.a_index)] = st.drop ? 0 : A->alpha[static_cast<size_t>(st.a_index)] - gamma;
      break;
    }
    default:
      a_.counters[kNullSteps] += 1;
      if (avg != nullptr) blocks_->update(i, v, avg, kEmpty, 0, 0, rho);
  }
  a_.l_blocks[i] = li_new;
  a_.scalars[kL] += li_new - li;
  if (s_.averaging) a_.scalars[kLAvg] = (1 - rho) * a_.scalars[kLAvg] + rho * a_.scalars[kL];
}

// After a step: renormalise drifted weights, drop inactive labels without a cache, and evict down to the cache's size
// with the authors' rule ([G]): the inactive label with the lowest score first; active labels are never evicted with
// away/pairwise steps (the store grows instead); with FW steps only, the lowest-scoring one goes and the block's
// weights become approximate.
void StepLoop::tidy_atoms(BlockAtoms& A, int32_t s_index, int32_t i) {
  double sum = 0;
  for (const double x : A.alpha) sum += x;
  if (A.exact && std::fabs(sum - 1) > 1e-12) {
    for (double& x : A.alpha) x = x / sum;
    rebuild_block(i);
  }
  if (!s_.cache) {
    for (int32_t k = A.size() - 1; k >= 0; --k)
      if (A.alpha[static_cast<size_t>(k)] == 0) A.remove(k);
    return;
  }
  while (A.size() > s_.cache_max) {
    const auto lower = [&](int32_t k, int32_t victim) { return victim < 0 || scores_[static_cast<size_t>(k)] < scores_[static_cast<size_t>(victim)]; };
    int32_t victim = -1;
    for (int32_t k = 0; k < A.size(); ++k)
      if (k != s_index && A.alpha[static_cast<size_t>(k)] == 0 && lower(k, victim)) victim = k;
    if (victim < 0) {
      if (s_.step != StepType::kFw) return;  // active atoms stay: the store grows
      for (int32_t k = 0; k < A.size(); ++k)
        if (k != s_index && lower(k, victim)) victim = k;
      if (victim < 0) return;
      A.exact = false;
    }
    // Keep indices valid: move the last atom's score with it.
    scores_[static_cast<size_t>(victim)] = scores_[static_cast<size_t>(A.size() - 1)];
    if (s_index == A.size() - 1) s_index = victim;
    A.remove(victim);
  }
}

// w_i = sum_y alpha(y) psi_i(y)/(lambda n) and l_i from the block's atoms; w and l move accordingly.
void StepLoop::rebuild_block(int32_t i) {
  BlockAtoms& A = atoms_[static_cast<size_t>(i)];
  rebuild_scratch_.assign(static_cast<size_t>(d_), 0.0);
  double li = 0;
  for (int32_t k = 0; k < A.size(); ++k) {
    const double alpha = A.alpha[static_cast<size_t>(k)];
    if (alpha == 0) continue;
    const int64_t nnz = model_.psi(i, A.label(k), away_.idx.data(), away_.val.data());
    for (int64_t q = 0; q < nnz; ++q) rebuild_scratch_[static_cast<size_t>(away_.idx[static_cast<size_t>(q)])] += (alpha * away_.val[static_cast<size_t>(q)]) / lambda_n_;
    li += (alpha * A.loss[static_cast<size_t>(k)]) / n_;
  }
  blocks_->replace(i, unclip(), rebuild_scratch_.data());
  reclip();
  a_.scalars[kL] += li - a_.l_blocks[i];
  a_.l_blocks[i] = li;
}

// ---- box constraints (2016 App. H): w holds clip(v) between steps, v at the bounded coordinates is kept aside ----

double* StepLoop::unclip() {
  for (int64_t k = 0; k < a_.bounded_count; ++k) a_.w[a_.bounded[k]] = a_.v_bounded[k];
  return a_.w;
}

void StepLoop::reclip() {
  for (int64_t k = 0; k < a_.bounded_count; ++k) {
    const double x = a_.w[a_.bounded[k]];
    a_.v_bounded[k] = x;
    a_.w[a_.bounded[k]] = x < a_.lower[k] ? a_.lower[k] : x > a_.upper[k] ? a_.upper[k] : x;
  }
}

}  // namespace gapbcfw
