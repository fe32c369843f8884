import { check } from '../core/errors.js';
import type { SparseAccumulator } from '../core/vector.js';
import { native } from '../native/addon.js';

/** Which implementation decodes: the C++ addon (default) or the TypeScript reference. */
export type DecodeBackend = 'native' | 'js';

/**
 * What every linear-chain model shares, whatever its unary features (dense OCR pixels, sparse CoNLL
 * attributes): labels are Int32Arrays of states, the loss is the per-sequence normalised Hamming distance,
 * and w ends with K first-label biases, K last-label biases and K x K transitions (index prev + K*next)
 * at `offsets`. Node scores theta (T x K, row-major, first/last biases included) come from the subclass.
 */
export abstract class ChainStructure {
  abstract readonly numLabels: number;
  abstract readonly backend: DecodeBackend;
  /** Offsets of the bias and transition blocks in w. */
  abstract readonly offsets: { first: number; last: number; transitions: number };
  private delta = new Float64Array(0);
  private back = new Int32Array(0);

  /** Normalised Hamming distance: mismatches / T. */
  loss(yTrue: Int32Array, y: Int32Array): number {
    let m = 0;
    for (let t = 0; t < yTrue.length; t++) if (yTrue[t] !== y[t]) m++;
    return m / yTrue.length;
  }

  labelKey(y: Int32Array): string {
    return y.join(',');
  }

  labelToJSON(y: Int32Array): number[] {
    return Array.from(y);
  }

  labelFromJSON(value: unknown): Int32Array {
    check(Array.isArray(value) && value.every((k) => Number.isInteger(k) && k >= 0 && k < this.numLabels), 'a chain label must be an array of state ids');
    return Int32Array.from(value as number[]);
  }

  /** Adds the +1/T loss augmentation to every wrong state of theta (exact for the normalised Hamming loss). */
  protected augmentLoss(theta: Float64Array, yTrue: Int32Array): void {
    const K = this.numLabels;
    const T = yTrue.length;
    const unit = 1 / T;
    for (let t = 0; t < T; t++) for (let k = 0; k < K; k++) if (k !== yTrue[t]) theta[t * K + k]! += unit;
  }

  /** Max-sum over node scores theta and the transitions of w; ties go to the smallest state (as native). */
  protected viterbi(w: Float64Array, theta: Float64Array, T: number): Int32Array {
    const K = this.numLabels;
    const tr = this.offsets.transitions;
    const out = new Int32Array(T);
    if (this.backend === 'native') {
      native.chainViterbi(theta, T, K, w.subarray(tr, tr + K * K), out);
      return out;
    }
    const TK = T * K;
    if (this.delta.length < TK) {
      this.delta = new Float64Array(TK);
      this.back = new Int32Array(TK);
    }
    const { delta, back } = this;
    for (let k = 0; k < K; k++) delta[k] = theta[k]!;
    for (let t = 1; t < T; t++) {
      const p = (t - 1) * K;
      for (let k = 0; k < K; k++) {
        let best = delta[p]! + w[tr + K * k]!;
        let arg = 0;
        for (let j = 1; j < K; j++) {
          const v = delta[p + j]! + w[tr + j + K * k]!;
          if (v > best) {
            best = v;
            arg = j;
          }
        }
        delta[t * K + k] = best + theta[t * K + k]!;
        back[t * K + k] = arg;
      }
    }
    let arg = 0;
    const last = (T - 1) * K;
    for (let k = 1; k < K; k++) if (delta[last + k]! > delta[last + arg]!) arg = k;
    out[T - 1] = arg;
    for (let t = T - 1; t > 0; t--) {
      arg = back[t * K + arg]!;
      out[t - 1] = arg;
    }
    return out;
  }

  /** The bias and transition part of psi = phi(yTrue) - phi(y). */
  protected addStructurePsi(acc: SparseAccumulator, yTrue: Int32Array, y: Int32Array): void {
    const K = this.numLabels;
    const T = yTrue.length;
    const { first, last, transitions } = this.offsets;
    for (let t = 1; t < T; t++) {
      acc.add(transitions + yTrue[t - 1]! + K * yTrue[t]!, 1);
      acc.add(transitions + y[t - 1]! + K * y[t]!, -1);
    }
    acc.add(first + yTrue[0]!, 1);
    acc.add(first + y[0]!, -1);
    acc.add(last + yTrue[T - 1]!, 1);
    acc.add(last + y[T - 1]!, -1);
  }

  /** out[k] = L(yTrue, y_k) + s(y_k) - s(yTrue), with s the path score over node scores theta: O(T) per label. */
  protected scoreLabels(w: Float64Array, theta: Float64Array, yTrue: Int32Array, labels: readonly Int32Array[], out: Float64Array): void {
    const K = this.numLabels;
    const T = yTrue.length;
    const tr = this.offsets.transitions;
    const pathScore = (y: Int32Array) => {
      let s = theta[y[0]!]!;
      for (let t = 1; t < T; t++) s += theta[t * K + y[t]!]! + w[tr + y[t - 1]! + K * y[t]!]!;
      return s;
    };
    const truth = pathScore(yTrue);
    for (let k = 0; k < labels.length; k++) {
      const y = labels[k]!;
      check(y.length === T, () => `label ${k} has length ${y.length}, expected ${T}`);
      out[k] = this.loss(yTrue, y) + pathScore(y) - truth;
    }
  }
}
