// Decoding beyond the single best labelling of a linear chain, plain C++ (no Node headers): the exact K best
// labellings (list Viterbi) and max-marginals (max-product forward-backward), over node scores theta
// (T x K, row-major, biases included) and transitions trans[prev + K*next]. Forbidden transitions, first
// and last states are -infinity entries of trans and theta (chain_apply_penalties); a labelling whose score
// is -infinity is never returned.
#pragma once
#include <cstdint>
#include <vector>

namespace gapbcfw {

// Allowed transitions and end states of a chain (1 allowed, 0 forbidden); a null pointer allows all.
struct ChainPenalties {
  const uint8_t* transitions;  // K*K, index prev + K*next
  const uint8_t* first;        // K: states allowed at t = 0
  const uint8_t* last;         // K: states allowed at t = T-1
  bool any() const { return transitions != nullptr || first != nullptr || last != nullptr; }
};

// trans_out = trans with forbidden transitions at -infinity (K*K).
void chain_penalise_transitions(const ChainPenalties& p, const double* trans, int32_t K, double* trans_out);

// Forbidden first states of theta's row 0 and last states of row T-1 set to -infinity, in place.
void chain_penalise_ends(const ChainPenalties& p, int32_t K, int32_t T, double* theta);

// Scratch of chain_kbest, reused between calls.
struct KbestWork {
  std::vector<double> score;    // T*K*N: the n-th best prefix score ending in state k at t
  std::vector<int32_t> back;    // T*K*N: its previous state * N + previous rank
  std::vector<int32_t> count;   // T*K: how many prefixes (t, k) holds (<= N)
  std::vector<int32_t> cursor;  // K: merge position per previous state
};

// The N best labellings, best first, into out_y (N*T) and out_score (N); returns how many were found (fewer
// than N when fewer labellings have a finite score). Exact: equals sorting every labelling by its score,
// summed as ((theta_0 + trans) + theta_1 + trans) + ..., the Viterbi order. Ties: the labelling whose last
// state is smaller comes first, then the one whose second-to-last is smaller, and so on (so the first
// labelling is chain_viterbi's). O(T K (K + N log K)) time, O(T K N) memory.
int32_t chain_kbest(const double* trans, int32_t K, const double* theta, int32_t T, int32_t N, int32_t* out_y,
                    double* out_score, KbestWork& work);

// Max-marginals out[t*K + k] = max over labellings y with y_t = k of score(y) (-infinity when none is
// allowed): forward max-sum alpha (theta included) plus backward max-sum beta (theta excluded).
void chain_max_marginals(const double* trans, int32_t K, const double* theta, int32_t T, double* out,
                         std::vector<double>& work);

}  // namespace gapbcfw
