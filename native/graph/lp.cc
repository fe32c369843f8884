// Max-product on the LP relaxation (see mrf.h): edge-based MPLP, A. Globerson and T. Jaakkola, "Fixing
// max-product: convergent message passing algorithms for MAP LP-relaxations", NIPS 2007, Sec. 4.
//
// Each edge e = (u, v) sends a message to either end, lambda_eu(y_u) and lambda_ev(y_v); the belief of node i is
// b_i = unary_i + sum_{e at i} lambda_ei. For any messages,
//
//   max_y score(y) <= sum_i max b_i + sum_e max_{a,b} [table_e(a, b) - lambda_eu(a) - lambda_ev(b)]        (1)
//
// since score(y) = sum_i b_i(y_i) + sum_e [table_e - lambda_eu - lambda_ev](y_u, y_v) for every y (weak duality of
// the local-polytope LP). MPLP's edge update (their eq. for EMPLP), with a = b_u - lambda_eu and c = b_v - lambda_ev,
//
//   lambda_eu(y_u) = ( max_{y_v} [table_e(y_u, y_v) + c(y_v)] - a(y_u) ) / 2,
//   lambda_ev(y_v) = ( max_{y_u} [table_e(y_u, y_v) + a(y_u)] - c(y_v) ) / 2,                          (2)
//
// makes lambda_eu(a) + lambda_ev(b) >= table_e(a, b), so after a sweep the edge terms of (1) are <= 0 and
// sum_i max b_i is the bound; it never increases from sweep to sweep (block coordinate descent on the dual).
// The bound reported is (1) in full, valid whatever rounding did to (2).
#include <algorithm>
#include <cmath>

#include "graph/mrf.h"

namespace gapbcfw {
namespace graph {

namespace {

double max_of(const double* x, int32_t K) { return *std::max_element(x, x + K); }

/// The sweeps stop when ten of them lowered the bound by less than this, relative.
constexpr double kStallTolerance = 1e-7;

}  // namespace

int32_t lp_max(const Mrf& m, int32_t max_sweeps, int32_t* labels, double* bound, Workspace& ws) {
  const int32_t N = m.num_nodes, K = m.num_labels, E = m.num_edges;
  const size_t NK = static_cast<size_t>(N) * K;
  ws.belief.assign(m.unary, m.unary + NK);
  ws.message.assign(2 * static_cast<size_t>(E) * K, 0.0);
  ws.energy0.resize(K);
  ws.energy1.resize(K);
  ws.label.resize(N);
  double* a = ws.energy0.data();
  double* c = ws.energy1.data();
  double best = -std::numeric_limits<double>::infinity();
  // The node-wise argmax of the beliefs, kept in labels when it scores best so far.
  auto decode = [&]() {
    for (int32_t i = 0; i < N; ++i) {
      const double* b = &ws.belief[static_cast<size_t>(i) * K];
      ws.label[i] = static_cast<int32_t>(std::max_element(b, b + K) - b);
    }
    const double s = score_of(m, ws.label.data());
    if (s > best) {
      best = s;
      std::copy(ws.label.begin(), ws.label.end(), labels);
    }
  };
  decode();
  double dual = 0;
  double dual_ten_ago = std::numeric_limits<double>::infinity();
  int32_t sweep = 0;
  while (sweep < max_sweeps) {
    ++sweep;
    // Forward and backward sweeps in turn (the order only changes the speed).
    for (int32_t q = 0; q < E; ++q) {
      const int32_t e = sweep % 2 == 1 ? q : E - 1 - q;
      const double* t = m.table(e);
      double* lu = &ws.message[2 * static_cast<size_t>(e) * K];
      double* lv = lu + K;
      double* bu = &ws.belief[static_cast<size_t>(m.edge_u[e]) * K];
      double* bv = &ws.belief[static_cast<size_t>(m.edge_v[e]) * K];
      for (int32_t y = 0; y < K; ++y) {
        a[y] = bu[y] - lu[y];
        c[y] = bv[y] - lv[y];
      }
      for (int32_t yu = 0; yu < K; ++yu) {
        double mu = -std::numeric_limits<double>::infinity();
        for (int32_t yv = 0; yv < K; ++yv) mu = std::max(mu, t[yu * K + yv] + c[yv]);
        lu[yu] = 0.5 * (mu - a[yu]);
      }
      for (int32_t yv = 0; yv < K; ++yv) {
        double mv = -std::numeric_limits<double>::infinity();
        for (int32_t yu = 0; yu < K; ++yu) mv = std::max(mv, t[yu * K + yv] + a[yu]);
        lv[yv] = 0.5 * (mv - c[yv]);
      }
      for (int32_t y = 0; y < K; ++y) {
        bu[y] = a[y] + lu[y];
        bv[y] = c[y] + lv[y];
      }
    }
    dual = 0;
    for (int32_t i = 0; i < N; ++i) dual += max_of(&ws.belief[static_cast<size_t>(i) * K], K);
    decode();
    const double tolerance = kProofTolerance * std::max(1.0, std::fabs(dual));
    if (dual - best <= tolerance) break;  // the labelling meets the bound: proven
    if (sweep % 10 == 0) {
      if (dual_ten_ago - dual <= kStallTolerance * std::max(1.0, std::fabs(dual))) break;  // stalled
      dual_ten_ago = dual;
    }
  }
  // The bound (1) in full.
  double value = 0;
  for (int32_t i = 0; i < N; ++i) value += max_of(&ws.belief[static_cast<size_t>(i) * K], K);
  for (int32_t e = 0; e < E; ++e) {
    const double* t = m.table(e);
    const double* lu = &ws.message[2 * static_cast<size_t>(e) * K];
    const double* lv = lu + K;
    double top = -std::numeric_limits<double>::infinity();
    for (int32_t yu = 0; yu < K; ++yu) {
      for (int32_t yv = 0; yv < K; ++yv) top = std::max(top, t[yu * K + yv] - lu[yu] - lv[yv]);
    }
    value += top;
  }
  *bound = value;
  return sweep;
}

}  // namespace graph
}  // namespace gapbcfw
