#include <limits>

#include "solver/models.h"

namespace gapbcfw {

// MulticlassModel.classScore of every class: sum over the row's features, in order, of w[k*F + id] * x.
void MulticlassBlocks::prepare(int32_t i, const double* w) {
  const int32_t F = batch_.F, K = batch_.K;
  i_ = i;
  const int32_t b = batch_.row_offsets[i], e = batch_.row_offsets[i + 1];
  for (int32_t k = 0; k < K; ++k) {
    const double* wk = w + static_cast<int64_t>(k) * F;
    double s = 0.0;
    for (int32_t j = b; j < e; ++j) s += wk[batch_.ids[j]] * batch_.values[j];
    scores_[static_cast<size_t>(k)] = s;
  }
}

void MulticlassBlocks::begin_run(const double* w) {
  const int32_t F = batch_.F, K = batch_.K;
  wt_.resize(static_cast<size_t>(F) * K);
  for (int32_t k = 0; k < K; ++k)
    for (int32_t f = 0; f < F; ++f) wt_[static_cast<size_t>(f) * K + k] = w[static_cast<size_t>(k) * F + f];
}

void MulticlassBlocks::end_run(double* w) const {
  const int32_t F = batch_.F, K = batch_.K;
  for (int32_t k = 0; k < K; ++k)
    for (int32_t f = 0; f < F; ++f) w[static_cast<size_t>(k) * F + f] = wt_[static_cast<size_t>(f) * K + k];
}

// The K class scores of row i summed over its features in order (classScore's sums, in a K-wide axpy per feature).
const double* MulticlassBlocks::class_scores(int32_t i) {
  i_ = i;
  const int32_t K = batch_.K;
  double* s = scores_.data();
  for (int32_t k = 0; k < K; ++k) s[k] = 0.0;
  for (int32_t j = batch_.row_offsets[i]; j < batch_.row_offsets[i + 1]; ++j) {
    const double v = batch_.values[j];
    const double* wt = wt_.data() + static_cast<size_t>(batch_.ids[j]) * K;
    for (int32_t k = 0; k < K; ++k) s[k] += wt[k] * v;
  }
  return s;
}

void MulticlassBlocks::add_row(int32_t i, const double* change) {
  const int32_t K = batch_.K;
  for (int32_t j = batch_.row_offsets[i]; j < batch_.row_offsets[i + 1]; ++j) {
    const double v = batch_.values[j];
    double* wt = wt_.data() + static_cast<size_t>(batch_.ids[j]) * K;
    for (int32_t k = 0; k < K; ++k) wt[k] += change[k] * v;
  }
}

double MulticlassBlocks::score(const int32_t* y) const {
  const int32_t yt = batch_.truth[i_];
  return ((*y == yt ? 0.0 : 1.0) + scores_[static_cast<size_t>(*y)]) - scores_[static_cast<size_t>(yt)];
}

// The loss-augmented argmax, ties to the smallest class.
void MulticlassBlocks::oracle(const double*, int32_t* y) {
  const int32_t yt = batch_.truth[i_];
  double best = -std::numeric_limits<double>::infinity();
  int32_t arg = 0;
  for (int32_t k = 0; k < batch_.K; ++k) {
    const double s = scores_[static_cast<size_t>(k)] + (k != yt ? 1.0 : 0.0);
    if (s > best) {
      best = s;
      arg = k;
    }
  }
  *y = arg;
}

void MulticlassBlocks::decode(const double* w, BatchItems items, int32_t* labels, double* hinge, int32_t threads) {
  const size_t size = static_cast<size_t>(batch_.rows) * batch_.K;
  if (batch_scores_.size() < size) batch_scores_.resize(size);
  batch_.scores(w, true, batch_scores_.data(), items, threads);
  batch_.argmax(batch_scores_.data(), labels, items);
  batch_.hinges(w, labels, hinge, items, threads);
  for (int64_t q = 0; q < items.count; ++q) {
    const int64_t r = items[q];
    if (!(hinge[r] < 0)) continue;
    hinge[r] = 0.0;
    labels[r] = batch_.truth[r];
  }
}

}  // namespace gapbcfw
