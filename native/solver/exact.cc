// Step 'exact' of the native loop: block-coordinate minimisation over a block's few corners (multiclass: Keerthi et
// al., KDD 2008, the sequential dual method of LIBLINEAR -s 4), with the gap estimates of gap sampling.
#include <algorithm>

#include "solver/bcfw_loop.h"
#include "solver/simplex.h"

namespace gapbcfw {

void StepLoop::init_exact() {
  multiclass_ = dynamic_cast<MulticlassBlocks*>(&model_);
  if (multiclass_ == nullptr || a_.class_alpha == nullptr) throw StepError("step 'exact' runs natively on multiclass rows only");
  if (s_.cache || s_.averaging || a_.bounded_count > 0) throw StepError("step 'exact' takes no cache, averaging or box constraints");
  const MulticlassBatch& b = multiclass_->batch();
  row_sq_.resize(static_cast<size_t>(n_));
  for (int32_t i = 0; i < n_; ++i) {
    double s = 0.0;
    for (int32_t j = b.row_offsets[i]; j < b.row_offsets[i + 1]; ++j) s += b.values[j] * b.values[j];
    row_sq_[static_cast<size_t>(i)] = s;
  }
  alpha_new_.resize(static_cast<size_t>(b.K));
  change_.resize(static_cast<size_t>(b.K));
}

// One exact block step: the class scores S at w give the block's gap (its estimate, 2016 eq. 10: g_i = lambda <w_i, w>
// - l_i + H_i/n with lambda <w_i, w> = sum_k beta_k S_k / n) and the subproblem's solution (a projection, simplex.h);
// w moves by (alpha_old - alpha_new)_k x_i / (lambda n) in each class k that changed.
void StepLoop::exact_step(int32_t i) {
  const MulticlassBatch& b = multiclass_->batch();
  const int32_t K = b.K, yi = b.truth[i];
  a_.scalars[kEstimatesExact] = 0;
  const double* S = multiclass_->class_scores(i);
  double* alpha = a_.class_alpha + static_cast<int64_t>(i) * K;
  double hinge = 0.0, dot = 0.0;
  for (int32_t k = 0; k < K; ++k) {
    hinge = std::max(hinge, (k != yi ? 1.0 : 0.0) + S[k] - S[yi]);
    dot += ((k == yi ? 1.0 : 0.0) - alpha[k]) * S[k];
  }
  a_.counters[kOracleCalls] += 1;
  set_estimate(i, std::max(dot / n_ - a_.l_blocks[i] + hinge / n_, 0.0));
  draw_ahead();
  if (!multiclass_block_solve(alpha, S, K, yi, row_sq_[static_cast<size_t>(i)] / lambda_n_, alpha_new_.data(), exact_target_, exact_sorted_)) {
    throw StepError("block " + std::to_string(i) + " has a class score or dual weight that is not finite");
  }
  bool moved = false;
  for (int32_t k = 0; k < K; ++k) {
    change_[static_cast<size_t>(k)] = (alpha[k] - alpha_new_[static_cast<size_t>(k)]) / lambda_n_;  // the change of beta_k / (lambda n)
    moved = moved || change_[static_cast<size_t>(k)] != 0.0;
    alpha[k] = alpha_new_[static_cast<size_t>(k)];
  }
  if (moved) multiclass_->add_row(i, change_.data());
  const double li = (1.0 - alpha[yi]) / n_;
  a_.scalars[kL] += li - a_.l_blocks[i];
  a_.l_blocks[i] = li;
  a_.counters[kExactSteps] += 1;
  a_.scalars[kSteps] += 1;
}

}  // namespace gapbcfw
