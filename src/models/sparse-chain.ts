import { availableParallelism } from 'node:os';
import type { ScoringBackend } from '../core/scoring.js';
import { check, InputError } from '../core/errors.js';
import type { StepCost, StructuredModel } from '../core/problem.js';
import type { BatchDecoder } from '../core/batch.js';
import { itemsOption } from '../engine/items.js';
import { SparseAccumulator, type SparseVector } from '../core/vector.js';
import { native } from '../native/addon.js';
import { ChainStructure, type DecodeBackend } from './chain-base.js';
import { checkLabelling, type ChainRules } from './chain-rules.js';

/**
 * A sequence of T tokens with sparse features: token t has the feature ids
 * `ids[offsets[t] .. offsets[t+1])` (each in 0..F-1) with values `values[...]`, or 1 when `values` is
 * absent (binary attributes, e.g. `FeatureDictionary.encode` of gapbcfw/data). `offsets` has T + 1 entries,
 * `offsets[0] = 0` and `offsets[T] = ids.length`. A repeated id counts as often as it appears.
 */
export interface SparseSequence {
  offsets: Int32Array;
  ids: Int32Array;
  values?: Float64Array;
}

/** Number of tokens of a sparse sequence. */
export function sequenceLength(x: SparseSequence): number {
  return x.offsets.length - 1;
}

/** Dimension of the sparse chain model: F*K unary + K first + K last + K*K transitions. */
export function sparseChainDim(numFeatures: number, numLabels: number): number {
  return numFeatures * numLabels + 2 * numLabels + numLabels * numLabels;
}

/** Shape and decoder settings of a {@link SparseChainModel}. */
export interface SparseChainModelOptions {
  /** F: number of feature ids (the attribute dictionary size). */
  numFeatures: number;
  /** K: number of states. */
  numLabels: number;
  /** Viterbi implementation: 'native' (C++ `chainViterbi`, default) or 'js' (the TypeScript reference). */
  backend?: DecodeBackend;
  /** Forbidden transitions and end states, and class weights of the loss (src/models/chain-rules.ts). Default none. */
  rules?: ChainRules;
}

/**
 * Linear-chain model over sparse token features: the BCFW papers' CoNLL-2000 chunking model
 * (Sha & Pereira 2003 features; authors' `chain_conll_featuremap.m`), for dictionaries of hundreds of
 * thousands of attributes. Nothing dense of size F is built per sequence: node scores are sums of w over
 * each token's feature ids, and psi is sparse.
 *
 * Layout of w (d = F*K + 2K + K^2):
 * - unary weights, **feature-major**: the weight of feature f in state k is `w[f*K + k]`, so the K weights
 *   of one attribute are contiguous and a token's node scores read one short run per attribute. (The
 *   authors' layout is the transpose, f + F*k; {@link SparseChainModel.unaryIndex} is the one place that
 *   decides.)
 * - `w[F*K + k]`: first-state bias; `w[F*K + K + k]`: last-state bias;
 * - `w[F*K + 2K + prev + K*next]`: transitions (the same block as {@link ChainModel}).
 *
 * Loss: per-sequence normalised Hamming distance, class-weighted with `rules.labelWeights`; loss augmentation adds
 * c_{y_t}/T to every wrong state (exact). `rules` also forbid transitions and end states in every decode.
 * Labels are Int32Arrays of T states in 0..K-1.
 */
export class SparseChainModel extends ChainStructure implements StructuredModel<SparseSequence, Int32Array> {
  readonly dim: number;
  /** Sparse scoring and Viterbi per oracle call (about 0.1 ms on CoNLL): mini-batches decoded on threads pay off. */
  readonly miniBatches = true;
  readonly numFeatures: number;
  readonly numLabels: number;
  readonly backend: DecodeBackend;
  /** Offsets of the parameter blocks in w. */
  readonly offsets: { first: number; last: number; transitions: number };
  private acc: SparseAccumulator | null = null;
  private theta = new Float64Array(0);

  constructor(options: SparseChainModelOptions) {
    super(options.rules, options.numLabels);
    const { numFeatures: F, numLabels: K } = options;
    check(Number.isInteger(F) && F >= 1, `numFeatures must be a positive integer, got ${F}`);
    check(Number.isInteger(K) && K >= 1, `numLabels must be a positive integer, got ${K}`);
    this.numFeatures = F;
    this.numLabels = K;
    this.backend = options.backend ?? 'native';
    check(this.backend === 'native' || this.backend === 'js', `unknown decode backend '${this.backend}'`);
    this.dim = sparseChainDim(F, K);
    check(this.dim <= 2 ** 31 - 1, `d = F*K + 2K + K^2 = ${this.dim} exceeds the int32 index range`);
    this.offsets = { first: F * K, last: F * K + K, transitions: F * K + 2 * K };
  }

  /** Index in w of the weight of feature f in state k. */
  unaryIndex(f: number, k: number): number {
    return f * this.numLabels + k;
  }

  validate(x: SparseSequence, y: Int32Array, where: string): void {
    this.checkX(x, where);
    if (!(y instanceof Int32Array)) throw new InputError(`${where}: y must be an Int32Array`);
    const T = sequenceLength(x);
    check(y.length === T, () => `${where}: label has length ${y.length} but the sequence has ${T} tokens`);
    for (let t = 0; t < T; t++) {
      const k = y[t]!;
      check(k >= 0 && k < this.numLabels, () => `${where}: label ${k} at position ${t} is outside 0..${this.numLabels - 1}`);
    }
    const broken = checkLabelling(this.rules, y, []);
    if (broken) throw new InputError(`${where}: the true labelling breaks the chain's constraints at position ${broken.position} (${broken.why})`);
  }

  private checkX(x: SparseSequence, where: string): void {
    if (x === null || typeof x !== 'object' || !(x.offsets instanceof Int32Array) || !(x.ids instanceof Int32Array)) {
      throw new InputError(`${where}: x must be a sparse sequence { offsets: Int32Array, ids: Int32Array, values?: Float64Array }`);
    }
    const { offsets, ids, values } = x;
    const T = offsets.length - 1;
    check(T >= 1, `${where}: empty sequence`);
    check(offsets[0] === 0 && offsets[T] === ids.length, () => `${where}: offsets must start at 0 and end at ids.length = ${ids.length}`);
    for (let t = 0; t < T; t++) check(offsets[t + 1]! >= offsets[t]!, () => `${where}: offsets decrease at token ${t}`);
    const F = this.numFeatures;
    for (let j = 0; j < ids.length; j++) {
      const f = ids[j]!;
      if (!(f >= 0 && f < F)) throw new InputError(`${where}: feature id ${f} is outside 0..${F - 1}`);
    }
    if (values !== undefined) {
      if (!(values instanceof Float64Array) || values.length !== ids.length) throw new InputError(`${where}: values must be a Float64Array as long as ids`);
      for (let j = 0; j < values.length; j++) if (!Number.isFinite(values[j])) throw new InputError(`${where}: feature value ${values[j]} is not finite`);
    }
  }

  private checkW(w: Float64Array): void {
    if (!(w instanceof Float64Array) || w.length !== this.dim) throw new InputError(`w must be a Float64Array of length ${this.dim}`);
  }

  /**
   * Node scores out[t*K + k] = sum over token t's features of value * w[f*K + k], plus the first-state
   * bias at t = 0 and the last-state bias at t = T-1 (no loss term). O(nnz * K), no dense x.
   */
  nodeScores(w: Float64Array, x: SparseSequence, out: Float64Array): void {
    const K = this.numLabels;
    const { offsets, ids, values } = x;
    const T = offsets.length - 1;
    for (let t = 0; t < T; t++) {
      const base = t * K;
      for (let k = 0; k < K; k++) out[base + k] = 0;
      const end = offsets[t + 1]!;
      if (values === undefined) {
        for (let j = offsets[t]!; j < end; j++) {
          const o = ids[j]! * K;
          for (let k = 0; k < K; k++) out[base + k]! += w[o + k]!;
        }
      } else {
        for (let j = offsets[t]!; j < end; j++) {
          const o = ids[j]! * K;
          const v = values[j]!;
          for (let k = 0; k < K; k++) out[base + k]! += v * w[o + k]!;
        }
      }
    }
    const { first, last } = this.offsets;
    const lastBase = (T - 1) * K;
    for (let k = 0; k < K; k++) {
      out[k]! += w[first + k]!;
      out[lastBase + k]! += w[last + k]!;
    }
  }

  private scratch(T: number): Float64Array {
    const TK = T * this.numLabels;
    if (this.theta.length < TK) this.theta = new Float64Array(Math.max(TK, 2 * this.theta.length));
    return this.theta;
  }

  lossAugmentedDecode(w: Float64Array, x: SparseSequence, yTrue: Int32Array): Int32Array {
    this.checkW(w);
    const T = sequenceLength(x);
    check(yTrue.length === T, () => `label has length ${yTrue.length} but the sequence has ${T} tokens`);
    const theta = this.scratch(T);
    this.nodeScores(w, x, theta);
    this.augmentLoss(theta, yTrue);
    return this.viterbi(w, theta, T);
  }

  decode(w: Float64Array, x: SparseSequence): Int32Array {
    this.checkW(w);
    const T = sequenceLength(x);
    check(T >= 1, 'empty sequence');
    const theta = this.scratch(T);
    this.nodeScores(w, x, theta);
    return this.viterbi(w, theta, T);
  }

  /**
   * The ground truth's node scores nnz; an oracle call adds the other states' nnz (K - 1), Viterbi T K^2 and psi
   * 2 nnz; a stored label nnz per unit of its loss (as for dense chains) (StructuredModel.stepCost).
   */
  stepCost(x: SparseSequence, y: Int32Array): StepCost {
    const T = y.length;
    const K = this.numLabels;
    const nnz = x.ids.length;
    return { potentials: nnz, oracle: nnz * (K - 1) + T * K * K + 2 * nnz, perLabel: nnz };
  }

  protected plainNodeScores(w: Float64Array, x: SparseSequence): { theta: Float64Array; T: number } {
    this.checkW(w);
    const T = sequenceLength(x);
    check(T >= 1, 'empty sequence');
    const theta = this.scratch(T);
    this.nodeScores(w, x, theta);
    return { theta, T };
  }

  /** Score <w, phi(x, y)> of a labelling, straight from the definition (tests and certificates). */
  score(w: Float64Array, x: SparseSequence, y: Int32Array): number {
    const K = this.numLabels;
    const { offsets, ids, values } = x;
    const T = y.length;
    const { first, last, transitions } = this.offsets;
    let s = w[first + y[0]!]! + w[last + y[T - 1]!]!;
    for (let t = 0; t < T; t++) {
      const k = y[t]!;
      for (let j = offsets[t]!; j < offsets[t + 1]!; j++) s += (values === undefined ? 1 : values[j]!) * w[ids[j]! * K + k]!;
      if (t > 0) s += w[transitions + y[t - 1]! + K * k]!;
    }
    return s;
  }

  /**
   * psi = phi(x, yTrue) - phi(x, y), sparse: unary entries only at positions where the labels differ,
   * plus transitions and first/last biases. A view valid until the next psi call.
   */
  psi(x: SparseSequence, yTrue: Int32Array, y: Int32Array): SparseVector {
    const K = this.numLabels;
    const T = yTrue.length;
    check(y.length === T, () => `label has length ${y.length}, expected ${T}`);
    const acc = (this.acc ??= new SparseAccumulator(this.dim, 256));
    const { offsets, ids, values } = x;
    for (let t = 0; t < T; t++) {
      const a = yTrue[t]!;
      const b = y[t]!;
      if (a !== b) {
        for (let j = offsets[t]!; j < offsets[t + 1]!; j++) {
          const o = ids[j]! * K;
          const v = values === undefined ? 1 : values[j]!;
          acc.add(o + a, v);
          acc.add(o + b, -v);
        }
      }
    }
    this.addStructurePsi(acc, yTrue, y);
    return acc.take();
  }

  /**
   * The batched oracle (DESIGN seam 4, run by src/engine). All tokens' sparse rows are packed once into a
   * prepared native batch (native/scoring/batch.h); per call the items' node scores, biases and c/T loss
   * augmentation are computed on native threads (the TypeScript nodeScores for the 'js' decoder), Viterbi
   * runs over the items on native threads, and H_i = L - <w, psi_i(y)> is recomputed natively with psi's
   * accumulation and dotSparse's order, i.e. bit-identical to the per-object path. Sparse rows have no
   * gpu.js kernel, so a dense scoring backend passed here is not used.
   */
  prepareBatch(xs: readonly SparseSequence[], ys: readonly Int32Array[], _scoring?: ScoringBackend): BatchDecoder<Int32Array> {
    const K = this.numLabels;
    const F = this.numFeatures;
    const n = xs.length;
    const seq = new Int32Array(n + 1);
    xs.forEach((x, s) => (seq[s + 1] = seq[s]! + sequenceLength(x)));
    const tokens = seq[n]!;
    const rowOffsets = new Int32Array(tokens + 1);
    const nnz = xs.reduce((a, x) => a + x.ids.length, 0);
    const ids = new Int32Array(nnz);
    const binary = xs.every((x) => x.values === undefined);
    const values = binary ? null : new Float64Array(nnz).fill(1);
    const yAll = new Int32Array(tokens);
    xs.forEach((x, s) => {
      const base = rowOffsets[seq[s]!]!;
      ids.set(x.ids, base);
      if (values && x.values) values.set(x.values, base);
      for (let t = 0; t < sequenceLength(x); t++) rowOffsets[seq[s]! + t + 1] = base + x.offsets[t + 1]!;
      yAll.set(ys[s]!, seq[s]!);
    });
    const batch = new native.SparseChainBatch({ offsets: seq, truth: yAll, numLabels: K, numFeatures: F, rowOffsets, ids, values, ...this.batchRules() });
    const theta = new Float64Array(tokens * K);
    const labels = new Int32Array(tokens);
    const threads = Math.min(availableParallelism(), 256);
    return {
      size: n,
      score: (w, items, plain) => {
        if (this.backend === 'native') {
          batch.scores({ w, theta, augmented: !plain, ...itemsOption(items), threads });
          return;
        }
        const each = (s: number) => {
          const part = theta.subarray(seq[s]! * K, seq[s + 1]! * K);
          this.nodeScores(w, xs[s]!, part);
          if (!plain) this.augmentLoss(part, ys[s]!);
        };
        if (items) for (let q = 0; q < items.count; q++) each(items.indices[q]!);
        else for (let s = 0; s < n; s++) each(s);
      },
      decode: (w, items) => batch.viterbi({ w, theta, labels, ...itemsOption(items), threads }),
      recheck: (w, items, hinge) => batch.hinges({ w, labels, hinge, ...itemsOption(items), threads }),
      // The native step loop knows the plain loss and no constraints: with rules, the TypeScript steps.
      ...(this.backend === 'native' && !this.hasRules() ? { stepModel: batch } : {}),
      label: (i) => labels.slice(seq[i]!, seq[i + 1]!),
      truth: (i) => yAll.slice(seq[i]!, seq[i + 1]!),
    };
  }

  /** Node scores once, then O(T) per label: out[k] = L(yTrue, y_k) + s(y_k) - s(yTrue). */
  labelScores(w: Float64Array, x: SparseSequence, yTrue: Int32Array, labels: readonly Int32Array[], out: Float64Array): void {
    this.checkW(w);
    const theta = this.scratch(yTrue.length);
    this.nodeScores(w, x, theta);
    this.scoreLabels(w, theta, yTrue, labels, out);
  }
}
