/**
 * Multinomial logistic regression constrained to a nuclear-norm ball (Liu & Tsang, AAAI 2017, eq. 1-2;
 * Hazan & Luo, ICML 2016, Sec. 5):
 *
 *   min_{W : ||W||_* <= tau}  F(W) = (1/n) sum_i f_i(W),
 *   f_i(W) = log(1 + sum_{l != y_i} exp(w_l^T x_i - w_{y_i}^T x_i)) = logsumexp_k(w_k^T x_i) - w_{y_i}^T x_i,
 *
 * with W holding one weight vector w_k per class. The gradient of one term is
 * grad f_i(W) = (p_i - e_{y_i}) x_i^T where p_i = softmax(W x_i).
 *
 * Layout: W is a dense Float64Array of F x K numbers stored feature-major, `W[j * K + k]` = weight of
 * class k on feature j (the transpose of the K x F matrix of the paper). A sparse row x_i then reads
 * and writes K contiguous numbers per non-zero, which is what the hot loops below need. Gradients use
 * the same layout.
 *
 * Objectives and gradients are available over the whole data set and over weighted subsets
 * `(1 / sum_r c_r) sum_r c_r f_{i_r}(W)` (the surrogates of approximate FW, the mini-batches of SFW).
 */
import { check, checkFinite, InputError } from '../core/errors.js';
import type { CsrMatrix, MulticlassDataset } from '../core/data.js';

/** A weighted subset of the data: rows `index[0..count)` with weights `weight[0..count)` (null = all 1). */
export interface WeightedSubset {
  index: Int32Array;
  /** Per-row weights (null: every row weighs 1). */
  weight: Float64Array | null;
  /** Number of rows used (index may be longer: a reusable buffer). */
  count: number;
}

/** The nuclear-norm constrained multinomial logistic problem over one data set. */
export class MulticlassLogistic {
  /** Number of examples. */
  readonly n: number;
  /** Number of classes K. */
  readonly numClasses: number;
  /** Number of features F. */
  readonly numFeatures: number;
  /** Length of W: F * K. */
  readonly size: number;
  readonly X: CsrMatrix;
  readonly y: Int32Array;
  /** Scratch: softmax of one row (length K). */
  private readonly p: Float64Array;
  /** Class-count-specialised hot loop, or null for the generic one. */
  private readonly kernel: Kernel | null;

  /**
   * @param data features (CSR) and labels in 0..numLabels-1.
   * @param options `kernel`: 'unrolled' (default; for K <= 32 classes, a loop generated with the K
   *   per-class accumulators in local variables, about 3x faster) or 'generic' (plain loops; the reference).
   * @throws InputError on inconsistent shapes, labels out of range, NaN/Inf features, fewer than 2 classes.
   */
  constructor(data: MulticlassDataset, options: { kernel?: 'unrolled' | 'generic' } = {}) {
    const { X, y, numLabels } = data;
    check(Number.isInteger(numLabels) && numLabels >= 2, `a multiclass problem needs at least 2 classes, got ${numLabels}`);
    check(X.rows >= 1, 'the data set has no examples');
    check(y.length === X.rows, `${y.length} labels for ${X.rows} rows`);
    check(X.indptr.length === X.rows + 1 && X.indptr[0] === 0 && X.indptr[X.rows] === X.indices.length, 'malformed CSR indptr');
    check(X.values.length === X.indices.length, 'CSR indices and values differ in length');
    for (let r = 0; r < X.rows; r++) {
      if (X.indptr[r + 1]! < X.indptr[r]!) throw new InputError(`malformed CSR: indptr decreases at row ${r}`);
      const label = y[r]!;
      if (!(label >= 0 && label < numLabels)) throw new InputError(`label of row ${r} is ${label}, outside 0..${numLabels - 1}`);
    }
    for (let q = 0; q < X.indices.length; q++) {
      const j = X.indices[q]!;
      if (!(j >= 0 && j < X.cols)) throw new InputError(`CSR column index ${j} outside 0..${X.cols - 1}`);
    }
    checkFinite(X.values, 'feature value');
    this.X = X;
    this.y = y;
    this.n = X.rows;
    this.numClasses = numLabels;
    this.numFeatures = X.cols;
    this.size = X.cols * numLabels;
    this.p = new Float64Array(numLabels);
    const kind = options.kernel ?? 'unrolled';
    check(kind === 'unrolled' || kind === 'generic', `kernel must be 'unrolled' or 'generic', got '${kind}'`);
    this.kernel = kind === 'unrolled' && numLabels <= MAX_UNROLLED ? unrolledKernel(numLabels) : null;
  }

  /** A zero iterate (the centre of the ball). */
  zeros(): Float64Array {
    return new Float64Array(this.size);
  }

  /**
   * Scores s_k = w_k^T x_i of row i into `s[off .. off + K)`. No allocation.
   */
  scoresOf(W: Float64Array, i: number, s: Float64Array, off = 0): void {
    const K = this.numClasses;
    const { indptr, indices, values } = this.X;
    for (let k = 0; k < K; k++) s[off + k] = 0;
    for (let q = indptr[i]!, e = indptr[i + 1]!; q < e; q++) {
      const v = values[q]!;
      const base = indices[q]! * K;
      for (let k = 0; k < K; k++) s[off + k]! += W[base + k]! * v;
    }
  }

  /**
   * The hot loop: adds `scale * c_r * grad f_{i_r}(W)` to `G` for the rows of `subset` (all rows when
   * null, each with c = 1) and returns `scale * sum_r c_r f_{i_r}(W)`. `G` is not cleared. When `scores`
   * is given, row r's scores W x_{i_r} are left in `scores[r*K .. r*K + K)` (for the line search).
   * Allocates nothing. Runs the class-count-specialised kernel (see `unrolledKernel`) when there is
   * one, else {@link accumulateGeneric}.
   */
  accumulate(W: Float64Array, subset: WeightedSubset | null, scale: number, G: Float64Array | null, scores: Float64Array | null = null): number {
    if (this.kernel === null) return this.accumulateGeneric(W, subset, scale, G, scores);
    const { indptr, indices, values } = this.X;
    return subset === null
      ? this.kernel(W, indptr, indices, values, this.y, this.n, null, null, scale, G, scores, this.p)
      : this.kernel(W, indptr, indices, values, this.y, subset.count, subset.index, subset.weight, scale, G, scores, this.p);
  }

  /** The reference implementation of {@link accumulate}: plain loops over the K classes. */
  accumulateGeneric(W: Float64Array, subset: WeightedSubset | null, scale: number, G: Float64Array | null, scores: Float64Array | null = null): number {
    const K = this.numClasses;
    const { indptr, indices, values } = this.X;
    const y = this.y;
    const p = this.p;
    const count = subset === null ? this.n : subset.count;
    let loss = 0;
    for (let r = 0; r < count; r++) {
      const i = subset === null ? r : subset.index[r]!;
      const c = subset === null || subset.weight === null ? scale : scale * subset.weight[r]!;
      const start = indptr[i]!;
      const end = indptr[i + 1]!;
      // p <- W x_i
      for (let k = 0; k < K; k++) p[k] = 0;
      for (let q = start; q < end; q++) {
        const v = values[q]!;
        const base = indices[q]! * K;
        for (let k = 0; k < K; k++) p[k]! += W[base + k]! * v;
      }
      if (scores !== null) for (let k = 0, o = r * K; k < K; k++) scores[o + k] = p[k]!;
      const yi = y[i]!;
      const sy = p[yi]!;
      let m = p[0]!;
      for (let k = 1; k < K; k++) if (p[k]! > m) m = p[k]!;
      let z = 0;
      for (let k = 0; k < K; k++) {
        const e = Math.exp(p[k]! - m);
        p[k] = e;
        z += e;
      }
      // f_i = logsumexp(s) - s_y = m + log z - s_y (stable: z >= 1).
      loss += c * (m + Math.log(z) - sy);
      if (G === null) continue;
      // residual r_k = c (softmax_k - [k == y_i])
      const inv = c / z;
      for (let k = 0; k < K; k++) p[k] = p[k]! * inv;
      p[yi] = p[yi]! - c;
      for (let q = start; q < end; q++) {
        const v = values[q]!;
        const base = indices[q]! * K;
        for (let k = 0; k < K; k++) G[base + k]! += p[k]! * v;
      }
    }
    return loss;
  }

  /** F(W) over all rows, or the weighted mean over `subset`. */
  objective(W: Float64Array, subset: WeightedSubset | null = null): number {
    this.checkIterate(W);
    return this.accumulate(W, subset, 1 / totalWeight(subset, this.n), null);
  }

  /**
   * Writes grad F(W) (all rows) or the gradient of the weighted mean over `subset` into `G` and returns
   * the objective at W. `scores` (length >= rows x K) receives the scores of the rows, as in
   * {@link accumulate}.
   */
  lossAndGradient(W: Float64Array, G: Float64Array, subset: WeightedSubset | null = null, scores: Float64Array | null = null): number {
    G.fill(0);
    return this.accumulate(W, subset, 1 / totalWeight(subset, this.n), G, scores);
  }

  /** Predicted classes argmax_k w_k^T x of the rows of `X` (same feature count or fewer columns). */
  predict(W: Float64Array, X: CsrMatrix = this.X): Int32Array {
    this.checkIterate(W);
    const K = this.numClasses;
    const out = new Int32Array(X.rows);
    const F = this.numFeatures;
    for (let i = 0; i < X.rows; i++) {
      const s = this.p;
      for (let k = 0; k < K; k++) s[k] = 0;
      for (let q = X.indptr[i]!, e = X.indptr[i + 1]!; q < e; q++) {
        const j = X.indices[q]!;
        if (j >= F) continue; // features unseen in training carry no weight
        const v = X.values[q]!;
        for (let k = 0; k < K; k++) s[k]! += W[j * K + k]! * v;
      }
      let best = 0;
      for (let k = 1; k < K; k++) if (s[k]! > s[best]!) best = k;
      out[i] = best;
    }
    return out;
  }

  /** Fraction of rows of `data` (default: the training data) whose predicted class is the label. */
  accuracy(W: Float64Array, data: { X: CsrMatrix; y: Int32Array } = { X: this.X, y: this.y }): number {
    const pred = this.predict(W, data.X);
    let ok = 0;
    for (let i = 0; i < pred.length; i++) if (pred[i] === data.y[i]) ok++;
    return ok / Math.max(pred.length, 1);
  }

  /** Throws unless W has the right length. */
  checkIterate(W: Float64Array): void {
    check(W.length === this.size, `W has ${W.length} entries, expected F x K = ${this.numFeatures} x ${this.numClasses} = ${this.size}`);
  }
}

/** Sum of the weights of a subset (n for the whole data set). */
export function totalWeight(subset: WeightedSubset | null, n: number): number {
  if (subset === null) return n;
  if (subset.weight === null) return subset.count;
  let s = 0;
  for (let r = 0; r < subset.count; r++) s += subset.weight[r]!;
  return s;
}

/** Converts a feature-major F x K iterate to the class-major K x F layout of the papers (row k = w_k). */
export function toClassMajor(W: Float64Array, numFeatures: number, numClasses: number): Float64Array {
  const out = new Float64Array(W.length);
  for (let j = 0; j < numFeatures; j++) for (let k = 0; k < numClasses; k++) out[k * numFeatures + j] = W[j * numClasses + k]!;
  return out;
}

/** Signature of the specialised hot loop (see {@link MulticlassLogistic.accumulate}). */
type Kernel = (
  W: Float64Array,
  indptr: Int32Array,
  indices: Int32Array,
  values: Float64Array,
  y: Int32Array,
  count: number,
  index: Int32Array | null,
  weight: Float64Array | null,
  scale: number,
  G: Float64Array | null,
  scores: Float64Array | null,
  scratch: Float64Array,
) => number;

/** Largest class count with a generated kernel. */
const MAX_UNROLLED = 32;
const kernels = new Map<number, Kernel>();

/**
 * The hot loop of {@link MulticlassLogistic.accumulateGeneric} generated for a fixed class count K, with
 * the K scores and residuals in local variables (registers) instead of a scratch array: per non-zero x_ij
 * it reads W[j*K .. j*K+K) once for the scores and updates G[j*K .. j*K+K) once for the gradient. The
 * generated source is built only from the integer K; tests compare it with the generic loop.
 */
export function unrolledKernel(K: number): Kernel {
  check(Number.isInteger(K) && K >= 1 && K <= MAX_UNROLLED, `no unrolled kernel for ${K} classes`);
  const cached = kernels.get(K);
  if (cached) return cached;
  const ks = Array.from({ length: K }, (_, k) => k);
  const src = `"use strict";
return function accumulate${K}(W, indptr, indices, values, y, count, index, weight, scale, G, scores, p) {
  let loss = 0;
  for (let r = 0; r < count; r++) {
    const i = index === null ? r : index[r];
    const c = weight === null ? scale : scale * weight[r];
    const start = indptr[i];
    const end = indptr[i + 1];
    ${ks.map((k) => `let s${k} = 0;`).join(' ')}
    for (let q = start; q < end; q++) {
      const v = values[q];
      const b = indices[q] * ${K};
      ${ks.map((k) => `s${k} += W[b + ${k}] * v;`).join(' ')}
    }
    if (scores !== null) {
      const o = r * ${K};
      ${ks.map((k) => `scores[o + ${k}] = s${k};`).join(' ')}
    }
    ${ks.map((k) => `p[${k}] = s${k};`).join(' ')}
    const yi = y[i];
    const sy = p[yi];
    let m = s0;
    ${ks.slice(1).map((k) => `if (s${k} > m) m = s${k};`).join(' ')}
    ${ks.map((k) => `const e${k} = Math.exp(s${k} - m);`).join(' ')}
    const z = ${ks.map((k) => `e${k}`).join(' + ')};
    loss += c * (m + Math.log(z) - sy);
    if (G === null) continue;
    const inv = c / z;
    ${ks.map((k) => `const r${k} = e${k} * inv - (yi === ${k} ? c : 0);`).join(' ')}
    for (let q = start; q < end; q++) {
      const v = values[q];
      const b = indices[q] * ${K};
      ${ks.map((k) => `G[b + ${k}] += r${k} * v;`).join(' ')}
    }
  }
  return loss;
};`;
  const kernel = new Function(src)() as Kernel;
  kernels.set(K, kernel);
  return kernel;
}
