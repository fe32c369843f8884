import { check, InputError } from '../core/errors.js';
import type { SparseAccumulator } from '../core/vector.js';
import { native } from '../native/addon.js';
import type { ChainRules } from './chain-rules.js';

/** Which implementation decodes: the C++ addon (default) or the TypeScript reference. */
export type DecodeBackend = 'native' | 'js';

/** One of the K best labellings of a sequence: its states and its score <w, phi(x, y)>. */
export interface ScoredLabelling {
  labels: Int32Array;
  score: number;
}

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
  /** Forbidden transitions and end states (every decode obeys them) and the class weights of the loss. */
  readonly rules: Readonly<ChainRules>;
  private delta = new Float64Array(0);
  private back = new Int32Array(0);
  private penalised = new Float64Array(0);

  constructor(rules: ChainRules = {}, numLabels: number) {
    const K = numLabels;
    const mask = (m: Uint8Array | undefined, n: number, name: string) =>
      check(m === undefined || (m instanceof Uint8Array && m.length === n), `${name} must be a Uint8Array of ${n} entries`);
    mask(rules.allowed, K * K, 'rules.allowed');
    mask(rules.allowedFirst, K, 'rules.allowedFirst');
    mask(rules.allowedLast, K, 'rules.allowedLast');
    const c = rules.labelWeights;
    check(c === undefined || (c instanceof Float64Array && c.length === K && c.every((x) => x >= 0 && Number.isFinite(x))), `rules.labelWeights must be a Float64Array of ${K} finite weights >= 0`);
    this.rules = rules;
  }

  /**
   * The class-weighted normalised Hamming loss (1/T) sum_t c_{y_t} [y_t != yhat_t] (c = 1 without label weights:
   * mismatches / T). A true state outside 0..K-1 (a label the model does not know) weighs 1.
   */
  loss(yTrue: Int32Array, y: Int32Array): number {
    const c = this.rules.labelWeights;
    let m = 0;
    for (let t = 0; t < yTrue.length; t++) if (yTrue[t] !== y[t]) m += c?.[yTrue[t]!] ?? 1;
    return m / yTrue.length;
  }

  /** The plain normalised Hamming loss mismatches / T, whatever the label weights (reported next to the loss). */
  hammingLoss(yTrue: Int32Array, y: Int32Array): number {
    let m = 0;
    for (let t = 0; t < yTrue.length; t++) if (yTrue[t] !== y[t]) m++;
    return m / yTrue.length;
  }

  /** The options of the native batches that carry the rules (class weights and masks). */
  protected batchRules(): { labelWeights?: Float64Array; allowed?: Uint8Array; allowedFirst?: Uint8Array; allowedLast?: Uint8Array } {
    const { labelWeights, allowed, allowedFirst, allowedLast } = this.rules;
    return { labelWeights, allowed, allowedFirst, allowedLast };
  }

  /** Whether the rules change anything (weights or masks). */
  protected hasRules(): boolean {
    const r = this.rules;
    return r.labelWeights !== undefined || r.allowed !== undefined || r.allowedFirst !== undefined || r.allowedLast !== undefined;
  }

  /** Node scores theta (T x K, biases included, no loss) of an input, in scratch valid until the next call. */
  protected abstract plainNodeScores(w: Float64Array, x: unknown): { theta: Float64Array; T: number };

  /**
   * The transitions of w with the forbidden ones at -Infinity, and theta's forbidden first and last states at
   * -Infinity (in place).
   */
  private applyRules(w: Float64Array, theta: Float64Array, T: number): Float64Array {
    const K = this.numLabels;
    const tr = this.offsets.transitions;
    const { allowed, allowedFirst, allowedLast } = this.rules;
    for (let k = 0; k < K; k++) {
      if (allowedFirst?.[k] === 0) theta[k] = -Infinity;
      if (allowedLast?.[k] === 0) theta[(T - 1) * K + k] = -Infinity;
    }
    if (!allowed) return w.subarray(tr, tr + K * K);
    if (this.penalised.length !== K * K) this.penalised = new Float64Array(K * K);
    for (let j = 0; j < K * K; j++) this.penalised[j] = allowed[j] === 0 ? -Infinity : w[tr + j]!;
    return this.penalised;
  }

  /**
   * The `count` best labellings of x with their scores <w, phi(x, y)>, best first (exact list Viterbi, native;
   * fewer when fewer labellings obey the rules). Ties: the labelling with the smaller last state first, then the
   * smaller second-to-last, ... (so the first is {@link decode}'s).
   */
  nbest(w: Float64Array, x: unknown, count: number): ScoredLabelling[] {
    check(Number.isInteger(count) && count >= 1, `nbest: count must be a positive integer, got ${count}`);
    const { theta, T } = this.plainNodeScores(w, x);
    const trans = this.applyRules(w, theta, T);
    const ys = new Int32Array(count * T);
    const scores = new Float64Array(count);
    const found = native.chainKbest(theta, T, this.numLabels, trans, count, ys, scores);
    return Array.from({ length: found }, (_, r) => ({ labels: ys.slice(r * T, (r + 1) * T), score: scores[r]! }));
  }

  /**
   * Max-marginals m[t*K + k] = the best score <w, phi(x, y)> of a labelling with state k at position t (max-product
   * forward-backward, native; -Infinity where the rules allow none).
   */
  maxMarginals(w: Float64Array, x: unknown): Float64Array {
    const { theta, T } = this.plainNodeScores(w, x);
    const trans = this.applyRules(w, theta, T);
    const out = new Float64Array(T * this.numLabels);
    native.chainMaxMarginals(theta, T, this.numLabels, trans, out);
    return out;
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

  /** Adds the c_{y_t}/T loss augmentation to every wrong state of theta (exact for the weighted normalised Hamming loss). */
  protected augmentLoss(theta: Float64Array, yTrue: Int32Array): void {
    const K = this.numLabels;
    const T = yTrue.length;
    const c = this.rules.labelWeights;
    for (let t = 0; t < T; t++) {
      const unit = (c?.[yTrue[t]!] ?? 1) / T;
      for (let k = 0; k < K; k++) if (k !== yTrue[t]) theta[t * K + k]! += unit;
    }
  }

  /**
   * Max-sum over node scores theta (changed in place where the rules forbid first or last states) and the
   * transitions of w; ties go to the smallest state (as native).
   * @throws InputError when the rules allow no labelling of length T.
   */
  protected viterbi(w: Float64Array, theta: Float64Array, T: number): Int32Array {
    const K = this.numLabels;
    const out = new Int32Array(T);
    const trans = this.applyRules(w, theta, T);
    if (this.backend === 'native') {
      const score = native.chainViterbi(theta, T, K, trans, out);
      if (score === -Infinity) throw new InputError(`the chain's constraints allow no labelling of ${T} tokens`);
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
        let best = delta[p]! + trans[K * k]!;
        let arg = 0;
        for (let j = 1; j < K; j++) {
          const v = delta[p + j]! + trans[j + K * k]!;
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
    if (delta[last + arg] === -Infinity) throw new InputError(`the chain's constraints allow no labelling of ${T} tokens`);
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
