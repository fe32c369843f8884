// Exact block solves over a block's few corners (step 'exact'), plain C++.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gapbcfw {

// out = the Euclidean projection of v (k entries) onto the probability simplex {a >= 0, sum a = 1}: the sort-based
// algorithm (Held, Wolfe & Crowder 1974; Duchi et al. 2008): with u = v sorted decreasingly and rho the largest j with
// u_j > (sum_{r <= j} u_r - 1) / j, a = max(v - theta, 0), theta = (sum_{r <= rho} u_r - 1) / rho. `work` is scratch.
void project_simplex(const double* v, int32_t k, double* out, std::vector<double>& work);

// The exact block step of the Crammer-Singer SSVM (Keerthi et al., KDD 2008; LIBLINEAR -s 4): with block i's dual
// weights alpha (K classes, simplex), beta = e_{y_i} - alpha, w_i = beta (x) x_i / (lambda n), and the class scores
// S_k = <w_k, x_i> at the current w, the block's subproblem min_alpha lambda/2 ||w_{-i} + w_i(alpha)||^2 - l_i(alpha)
// is, with a = ||x_i||^2 / (lambda n) and L_k = [k != y_i], min a/2 ||alpha - (alpha_old + (L + S)/a)||^2 over the
// simplex: a projection. Writes the new weights into alpha_new (alpha_new = alpha_old when a = 0 and no wrong class
// gains: then the loss alone decides, and every weight goes to the first wrong class).
// `target` and `sorted` are scratch. Returns false (alpha_new unset) when a score or weight is not finite.
bool multiclass_block_solve(const double* alpha_old, const double* scores, int32_t K, int32_t yi, double a, double* alpha_new,
                            std::vector<double>& target, std::vector<double>& sorted);

}  // namespace gapbcfw
