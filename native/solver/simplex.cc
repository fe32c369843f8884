#include "solver/simplex.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace gapbcfw {

void project_simplex(const double* v, int32_t k, double* out, std::vector<double>& work) {
  work.assign(v, v + k);
  std::sort(work.begin(), work.end(), std::greater<double>());
  double sum = 0.0, theta = 0.0;
  for (int32_t j = 0; j < k; ++j) {
    sum += work[static_cast<size_t>(j)];
    const double t = (sum - 1.0) / (j + 1);
    if (work[static_cast<size_t>(j)] > t) theta = t;
  }
  for (int32_t j = 0; j < k; ++j) out[j] = std::max(v[j] - theta, 0.0);
}

bool multiclass_block_solve(const double* alpha_old, const double* scores, int32_t K, int32_t yi, double a, double* alpha_new,
                            std::vector<double>& target, std::vector<double>& sorted) {
  if (!(a > 0)) {
    // x_i = 0: w_i is 0 whatever alpha, and l_i = (1 - alpha_{y_i})/n is largest with no weight on y_i.
    for (int32_t k = 0; k < K; ++k) alpha_new[k] = 0.0;
    alpha_new[yi == 0 ? 1 : 0] = 1.0;
    return true;
  }
  // alpha_old + (L + S)/a, shifted by -S_{y_i}/a (projections ignore shifts): smaller numbers, the same point.
  target.resize(static_cast<size_t>(K));
  for (int32_t k = 0; k < K; ++k) {
    const double t = alpha_old[k] + ((k != yi ? 1.0 : 0.0) + scores[k] - scores[yi]) / a;
    if (!std::isfinite(t)) return false;
    target[static_cast<size_t>(k)] = t;
  }
  project_simplex(target.data(), K, alpha_new, sorted);
  return true;
}

}  // namespace gapbcfw
