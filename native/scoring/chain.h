// Max-sum decoding of a linear-chain model (Viterbi), plain C++ (no Node headers).
//
// Feature layout of w (the OCR model of the BCFW papers, d = K*D + 2K + K*K):
//   [0, K*D)               unary weights, state-major: state k owns w[k*D .. k*D+D)
//   [K*D, K*D+K)           first-label bias
//   [K*D+K, K*D+2K)        last-label bias
//   [K*D+2K, K*D+2K+K*K)   transitions, index prev + K*next
#pragma once
#include <cstdint>
#include <vector>

namespace gapbcfw {

struct ChainShape {
  int32_t D;  // features per position
  int32_t K;  // number of states
};

// The unary part of the node scores: out[t*K + k] = <w_k, x_t>.
void chain_unary_scores(const double* w, ChainShape s, const double* x, int32_t T, double* out);

// Some entries of the unary part: out[q] = <w_k, x_t> for entries[q] = t*K + k (sorted by t), bit for bit the
// values chain_unary_scores gives them.
void chain_unary_entries(const double* w, ChainShape s, const double* x, const int32_t* entries, int64_t count, double* out);

// Node scores theta[t*K + k] = <w_k, x_t> (+ 1/T for k != y_true[t] when y_true is not null: the
// normalised-Hamming loss augmentation) (+ first/last biases at t = 0 / T-1, added last).
void chain_node_scores(const double* w, ChainShape s, const double* x, int32_t T, const int32_t* y_true,
                       double* theta);

// Viterbi over node scores theta (T x K) and transitions trans[prev + K*next]. Writes the argmax labelling
// to out_y and returns its score. Ties go to the smallest state index. `work` is resized as needed.
double chain_viterbi(const double* trans, int32_t K, const double* theta, int32_t T, int32_t* out_y,
                     std::vector<double>& work);

// chain_node_scores + chain_viterbi with thread-local scratch.
double chain_decode(const double* w, ChainShape s, const double* x, int32_t T, const int32_t* y_true,
                    int32_t* out_y);

// psi = phi(x, y_true) - phi(x, y) as distinct (index, value) pairs, exact zeros dropped; returns nnz.
// idx/val must hold chain_psi_capacity(s, T) entries.
int64_t chain_psi(ChainShape s, const double* x, int32_t T, const int32_t* y_true, const int32_t* y, int32_t* idx,
                  double* val);

inline int64_t chain_psi_capacity(ChainShape s, int32_t T) {
  return 2 * static_cast<int64_t>(T) * s.D + 2 * static_cast<int64_t>(T) + 4;
}

}  // namespace gapbcfw
