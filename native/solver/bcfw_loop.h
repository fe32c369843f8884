// The native step loop of block-coordinate Frank-Wolfe (Lacoste-Julien et al. 2013, Alg. 4) with the switches of
// "Minding the Gaps" (Osokin et al. 2016): gap sampling (Alg. 2), pairwise and away steps (Alg. 3-4, and the hybrid
// that takes the move with the largest dual improvement), gap-based caching (Alg. 5), weighted averaging, box
// constraints (App. H), and exact block solves over a block's few corners (Keerthi et al. 2008). It runs the block
// steps of built-in models whose oracle, psi and scores are native, on the TypeScript engine's own state (its
// arrays, by pointer) with its arithmetic, so that both engines give the same traces; TypeScript keeps the passes,
// exact gap checks, events and checkpoints (src/solvers/native-steps.ts). Plain C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "solver/atoms.h"
#include "solver/block_model.h"
#include "solver/block_store.h"
#include "solver/models.h"
#include "solver/rng.h"
#include "solver/sum_tree.h"

namespace gapbcfw {

enum class Sampling { kUniform, kPerm, kGap };
enum class StepType { kFw, kPairwise, kAway, kHybrid, kExact };

struct LoopSettings {
  double lambda = 0;
  StepType step = StepType::kFw;
  Sampling sampling = Sampling::kUniform;
  double gap_degree = 1;
  bool line_search = true;
  bool averaging = false;
  bool cache = false;
  double cache_factor = 0.25, cache_nu = 0.01;
  int32_t cache_max = 50;
  // Shrinking (permutation sampling): a block whose gap estimate is 0 (block-optimal at its last visit) is skipped until
  // an exact pass gives it a positive gap again.
  bool shrinking = false;
  // Heuristic exit ([G] quit_passes_heuristic_gap): a run of steps ends when the estimated gap is <= this.
  double exit_below = -std::numeric_limits<double>::infinity();
  // Dense block sums per chunk on threads (mini-batch runs, as DenseBlocks' chunkedStats).
  int32_t threads = 1;
};

// Slots of the shared scalar array (BcfwState in TypeScript).
enum Scalar { kL = 0, kLAvg, kSteps, kCacheGap, kEstimatesExact, kGainOracle, kGainCache, kScalars };
// Slots of the shared counter array.
enum Counter { kCacheHits = 0, kFwSteps, kAwaySteps, kPairwiseSteps, kDropSteps, kNullSteps, kExactSteps, kSkippedBlocks, kOracleCalls, kCounters };

// Slots of the gap sampler's totals: the sum of the finite estimates, the blocks not visited yet.
enum EstimateTotal { kEstSum = 0, kUnvisited, kEstimateTotals };

// The TypeScript engine's state, by pointer: w (holding w = clip(v) between steps), the averaged w, l_i, scalars and
// counters, the gap estimates with their totals, sum tree and first-visit order, the pass order (perm sampling), the PRNG's
// 4 words, and the box constraints (ClippedIterate: bounded coordinates, their bounds, v there).
struct LoopArrays {
  double* w = nullptr;
  double* w_avg = nullptr;
  double* l_blocks = nullptr;
  double* scalars = nullptr;
  double* counters = nullptr;
  double* gap_est = nullptr;
  double* est_totals = nullptr;
  double* tree = nullptr;
  int64_t tree_size = 0;
  const int32_t* first_visit = nullptr;
  int32_t* order = nullptr;  // written by permute()
  uint32_t* rng = nullptr;
  const int32_t* bounded = nullptr;
  const double* lower = nullptr;
  const double* upper = nullptr;
  double* v_bounded = nullptr;
  int64_t bounded_count = 0;
  // Step 'exact' on multiclass rows: the dual weights alpha_i of every class (n x K); w_i is implied.
  double* class_alpha = nullptr;
  // The adaptive cache's costs per block (3 each: every step's work, an oracle call's, scoring one stored label), or
  // null (the cache test of Alg. 5 alone).
  const double* step_costs = nullptr;
};

// A failure of a step: an oracle that is not exact, a non-finite gap estimate (the TypeScript engine throws the
// same messages). The state is left as the failed step left it.
struct StepError : std::runtime_error {
  explicit StepError(const std::string& what) : std::runtime_error(what) {}
};

struct RunResult {
  int32_t steps;
  bool converged;
};

class StepLoop {
 public:
  // blocks: null only for exact multiclass steps (their blocks are the classes' dual weights, LoopArrays::class_alpha).
  StepLoop(BlockModel& model, BlockStore* blocks, const LoopSettings& settings, const LoopArrays& arrays);

  // The steps at pass positions from, from + 1, ... < to, testing the heuristic exit before each (PassSolver.sweep):
  // how many ran, and whether the exit ended them.
  RunResult run(int32_t from, int32_t to);

  // A fresh pass order (Rng.permutation on the shared PRNG state) into the order array.
  void permute() { rng_.permutation(a_.order, n_); }

  // The per-block label stores (kept when the steps are not FW-only or the cache is on), for the state codec.
  bool keeps_atoms() const { return !atoms_.empty(); }
  std::vector<BlockAtoms>& atoms() { return atoms_; }

 private:
  struct Corner {
    std::vector<int32_t> idx;
    std::vector<double> val;
    int64_t nnz = 0;
    double loss = 0, score = 0;
    SparseRef ref() const { return {idx.data(), val.data(), nnz}; }
  };
  // One step's quantities (2016 eq. 10: g_i(y) = base + s_i(y)/n with base = lambda <w_i, w> - l_i).
  struct Step {
    int32_t i = 0;
    double li = 0, base = 0, wi_sq = 0, g_fw = 0;
    int32_t s_index = -1, a_index = -1;
    bool cache_hit = false;
    int kind = 0;  // 0 none, 1 fw, 2 away, 3 pairwise
    double gamma = 0, best = 0;
    bool drop = false;
  };

  bool converged() const;
  int32_t next_block(int32_t s);
  void draw_ahead();
  int32_t draw_gap_block();
  void set_estimate(int32_t i, double g);
  void step(int32_t i);
  void dense_stats(Step& st);
  int32_t cache_choice(Step& st, BlockAtoms* A, bool open);
  bool cache_open(int32_t i, const BlockAtoms& A) const;
  void record_gain(const Step& st);
  void corner(Corner& c, int32_t i, const int32_t* y);
  void fw_corner(Step& st, BlockAtoms* A);
  void consider(Step& st, int kind, double gap, double dist_sq, double gamma_max);
  void choose_move(Step& st, BlockAtoms* A);
  void away_moves(Step& st, BlockAtoms* A);
  void apply_move(Step& st, BlockAtoms* A, double* v);
  void tidy_atoms(BlockAtoms& A, int32_t s_index, int32_t i);
  void rebuild_block(int32_t i);
  double* unclip();
  void reclip();
  double pair_dist_sq(const Corner& a, const Corner& b);
  void init_exact();
  void exact_step(int32_t i);

  BlockModel& model_;
  BlockStore* blocks_;
  LoopSettings s_;
  LoopArrays a_;
  int32_t n_;
  int64_t d_;
  double lambda_n_;
  Xoshiro128 rng_;
  SumTreeView tree_;
  std::vector<BlockAtoms> atoms_;
  std::vector<double> scores_;
  Corner fw_, away_;
  std::vector<int32_t> label_;
  std::vector<double> pair_scratch_, rebuild_scratch_;
  bool dense_ready_ = false;
  double dw_ = 0, sq_ = 0;
  // The next step's pass position within the run (-1: none), and its block when drawn ahead (-1: not yet).
  int32_t next_position_ = -1, drawn_ = -1;
  // Step 'exact' (multiclass): the model, ||x_i||^2 per row, and scratch.
  MulticlassBlocks* multiclass_ = nullptr;
  std::vector<double> row_sq_, alpha_new_, change_, exact_target_, exact_sorted_;
};

}  // namespace gapbcfw
