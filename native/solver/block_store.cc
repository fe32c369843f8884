#include "solver/block_store.h"

#include "solver/block_update.h"

namespace gapbcfw {

void DenseBlockStore::sums(int32_t i, const double* w, double& dw, double& sq) { block_dense_sums(row(i), w, d_, chunked_, threads_, dw, sq); }

double DenseBlockStore::dot_sparse(int32_t i, SparseRef psi) { return block_dot_sparse(row(i), psi.idx, psi.val, psi.nnz); }

void DenseBlockStore::update(int32_t i, double* w, double* w_avg, SparseRef psi, double gamma, double scale, double rho) {
  block_update(row(i), w, w_avg, d_, psi.idx, psi.val, psi.nnz, gamma, scale, rho, threads_);
}

void DenseBlockStore::add_sparse(int32_t i, double* w, SparseRef v, double scale) {
  double* wi = row(i);
  for (int64_t q = 0; q < v.nnz; ++q) {
    const int32_t j = v.idx[q];
    const double delta = scale * v.val[q];
    wi[j] += delta;
    w[j] += delta;
  }
}

void DenseBlockStore::replace(int32_t i, double* w, const double* values) {
  double* wi = row(i);
  for (int64_t j = 0; j < d_; ++j) {
    w[j] += values[j] - wi[j];
    wi[j] = values[j];
  }
}

double DenseBlockStore::dot(int32_t i, const double* v) const {
  const double* wi = row(i);
  double s = 0.0;
  for (int64_t j = 0; j < d_; ++j) s += wi[j] * v[j];
  return s;
}

void DenseBlockStore::prefetch(int32_t i) const {
  const char* p = reinterpret_cast<const char*>(row(i));
  const int64_t bytes = d_ * static_cast<int64_t>(sizeof(double));
  for (int64_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b, 1, 3);
}

void SparseBlockStore::mark(int32_t i) {
  const auto& idx = idx_[static_cast<size_t>(i)];
  for (size_t q = 0; q < idx.size(); ++q) slot_[static_cast<size_t>(idx[q])] = static_cast<int32_t>(q) + 1;
}

void SparseBlockStore::unmark(int32_t i) {
  for (const int32_t j : idx_[static_cast<size_t>(i)]) slot_[static_cast<size_t>(j)] = 0;
}

void SparseBlockStore::sums(int32_t i, const double* w, double& dw, double& sq) {
  const auto& idx = idx_[static_cast<size_t>(i)];
  const auto& val = val_[static_cast<size_t>(i)];
  dw = 0.0;
  sq = 0.0;
  for (size_t q = 0; q < idx.size(); ++q) {
    dw += val[q] * w[idx[q]];
    sq += val[q] * val[q];
  }
}

double SparseBlockStore::dot_sparse(int32_t i, SparseRef psi) {
  if (psi.nnz == 0) return 0.0;
  const auto& val = val_[static_cast<size_t>(i)];
  mark(i);
  double dp = 0.0;
  for (int64_t q = 0; q < psi.nnz; ++q) {
    const int32_t p = slot_[static_cast<size_t>(psi.idx[q])];
    if (p > 0) dp += val[static_cast<size_t>(p - 1)] * psi.val[q];
  }
  unmark(i);
  return dp;
}

void SparseBlockStore::update(int32_t i, double* w, double*, SparseRef psi, double gamma, double scale, double) {
  const auto& idx = idx_[static_cast<size_t>(i)];
  auto& val = val_[static_cast<size_t>(i)];
  for (size_t q = 0; q < idx.size(); ++q) {
    const double delta = -gamma * val[q];
    val[q] += delta;
    w[idx[q]] += delta;
  }
  add_sparse(i, w, psi, gamma * scale);
}

void SparseBlockStore::add_sparse(int32_t i, double* w, SparseRef v, double scale) {
  if (v.nnz == 0 || scale == 0.0) return;
  auto& idx = idx_[static_cast<size_t>(i)];
  auto& val = val_[static_cast<size_t>(i)];
  mark(i);
  for (int64_t q = 0; q < v.nnz; ++q) {
    const int32_t j = v.idx[q];
    int32_t p = slot_[static_cast<size_t>(j)] - 1;
    if (p < 0) {
      p = static_cast<int32_t>(idx.size());
      idx.push_back(j);
      val.push_back(0.0);
      slot_[static_cast<size_t>(j)] = p + 1;
    }
    const double delta = scale * v.val[q];
    val[static_cast<size_t>(p)] += delta;
    w[j] += delta;
  }
  unmark(i);
}

void SparseBlockStore::replace(int32_t i, double* w, const double* values) {
  auto& idx = idx_[static_cast<size_t>(i)];
  auto& val = val_[static_cast<size_t>(i)];
  for (size_t q = 0; q < idx.size(); ++q) w[idx[q]] -= val[q];
  idx.clear();
  val.clear();
  for (int64_t j = 0; j < d_; ++j) {
    if (values[j] != 0.0) {
      idx.push_back(static_cast<int32_t>(j));
      val.push_back(values[j]);
      w[j] += values[j];
    }
  }
}

double SparseBlockStore::dot(int32_t i, const double* v) const {
  const auto& idx = idx_[static_cast<size_t>(i)];
  const auto& val = val_[static_cast<size_t>(i)];
  double s = 0.0;
  for (size_t q = 0; q < idx.size(); ++q) s += val[q] * v[idx[q]];
  return s;
}

int64_t SparseBlockStore::stored() const {
  int64_t s = 0;
  for (const auto& idx : idx_) s += static_cast<int64_t>(idx.size());
  return s;
}

void SparseBlockStore::load(int32_t i, const int32_t* idx, const double* val, int64_t nnz) {
  idx_[static_cast<size_t>(i)].assign(idx, idx + nnz);
  val_[static_cast<size_t>(i)].assign(val, val + nnz);
}

void SparseBlockStore::sum_into(double* w) const {
  for (int64_t j = 0; j < d_; ++j) w[j] = 0.0;
  for (size_t i = 0; i < idx_.size(); ++i) {
    for (size_t q = 0; q < idx_[i].size(); ++q) w[idx_[i][q]] += val_[i][q];
  }
}

void SparseBlockStore::scale_all(double s) {
  for (auto& val : val_)
    for (double& v : val) v = s * v;
}

}  // namespace gapbcfw
