import { check, InputError } from '../core/errors.js';
import type { StepCost, StructuredModel } from '../core/problem.js';
import type { BatchDecoder } from '../core/batch.js';
import { itemsOption } from '../engine/items.js';
import type { Items } from '../core/batch.js';
import type { ScoringBackend } from '../core/scoring.js';
import { JsBackend } from '../../kernels/js.js';
import { NativeBackend } from '../../kernels/native.js';
import type { SequenceExample } from '../core/data.js';
import { SparseAccumulator, type SparseVector } from '../core/vector.js';
import { availableParallelism } from 'node:os';
import { native } from '../native/addon.js';
import { ChainStructure, type DecodeBackend } from './chain-base.js';
import { checkLabelling, type ChainRules } from './chain-rules.js';

export type { DecodeBackend } from './chain-base.js';


/** Shape and decoder settings of a {@link ChainModel}. */
export interface ChainModelOptions {
  /** Features per position (D). */
  numFeatures: number;
  /** Number of states (K). */
  numLabels: number;
  /** Decoder implementation; 'native' by default. Both give the same labels up to floating-point ties. */
  backend?: DecodeBackend;
  /** Native threads of batched exact passes. Default: os.availableParallelism(). */
  threads?: number;
  /** Forbidden transitions and end states, and class weights of the loss (src/models/chain-rules.ts). Default none. */
  rules?: ChainRules;
}

/**
 * Linear-chain model of the BCFW papers' OCR experiments (Lacoste-Julien et al. 2013, Sec. 6;
 * Osokin et al. 2016, App. D): unary weights per state, first- and last-label biases and K x K
 * transitions, d = K*D + 2K + K^2 (= 4082 for OCR with D = 129, K = 26). Loss: per-sequence
 * normalised Hamming distance, whose loss augmentation adds 1/T to every wrong state (exact).
 * An input x is a T x D row-major Float64Array; a label is an Int32Array of T states.
 */
export class ChainModel extends ChainStructure implements StructuredModel<Float64Array, Int32Array> {
  readonly dim: number;
  readonly numFeatures: number;
  readonly numLabels: number;
  readonly backend: DecodeBackend;
  readonly threads: number;
  /** Offsets of the parameter blocks in w. */
  readonly offsets: { first: number; last: number; transitions: number };
  private readonly acc: SparseAccumulator;
  private theta = new Float64Array(0);
  private psiIndices = new Int32Array(0);
  private psiValues = new Float64Array(0);

  constructor(options: ChainModelOptions) {
    super(options.rules, options.numLabels);
    const { numFeatures: D, numLabels: K } = options;
    check(Number.isInteger(D) && D >= 1, `numFeatures must be a positive integer, got ${D}`);
    check(Number.isInteger(K) && K >= 1, `numLabels must be a positive integer, got ${K}`);
    this.numFeatures = D;
    this.numLabels = K;
    this.backend = options.backend ?? 'native';
    check(this.backend === 'native' || this.backend === 'js', `unknown decode backend '${this.backend}'`);
    this.offsets = { first: K * D, last: K * D + K, transitions: K * D + 2 * K };
    this.dim = K * D + 2 * K + K * K;
    this.threads = options.threads ?? availableParallelism();
    check(Number.isInteger(this.threads) && this.threads >= 1, `threads must be a positive integer, got ${this.threads}`);
    this.acc = new SparseAccumulator(this.dim, 4 * D + 16);
  }

  validate(x: Float64Array, y: Int32Array, where: string): void {
    if (!(x instanceof Float64Array)) throw new InputError(`${where}: x must be a Float64Array`);
    if (!(y instanceof Int32Array)) throw new InputError(`${where}: y must be an Int32Array`);
    check(y.length >= 1, `${where}: empty sequence`);
    check(x.length === y.length * this.numFeatures, () => `${where}: x has ${x.length} values, expected T*D = ${y.length}*${this.numFeatures}`);
    for (let t = 0; t < y.length; t++) {
      const k = y[t]!;
      check(k >= 0 && k < this.numLabels, () => `${where}: label ${k} at position ${t} is outside 0..${this.numLabels - 1}`);
    }
    for (let j = 0; j < x.length; j++) {
      if (!Number.isFinite(x[j])) throw new InputError(`${where}: feature ${j % this.numFeatures} at position ${Math.floor(j / this.numFeatures)} is ${x[j]}`);
    }
    const broken = checkLabelling(this.rules, y, []);
    if (broken) throw new InputError(`${where}: the true labelling breaks the chain's constraints at position ${broken.position} (${broken.why})`);
  }

  private checkW(w: Float64Array): void {
    if (!(w instanceof Float64Array) || w.length !== this.dim) throw new InputError(`w must be a Float64Array of length ${this.dim}`);
  }

  lossAugmentedDecode(w: Float64Array, x: Float64Array, yTrue: Int32Array): Int32Array {
    return this.run(w, x, yTrue.length, yTrue);
  }

  decode(w: Float64Array, x: Float64Array): Int32Array {
    const T = x.length / this.numFeatures;
    check(Number.isInteger(T) && T >= 1, `x has ${x.length} values, not a multiple of D = ${this.numFeatures}`);
    return this.run(w, x, T, null);
  }

  protected plainNodeScores(w: Float64Array, x: Float64Array): { theta: Float64Array; T: number } {
    this.checkW(w);
    const T = x.length / this.numFeatures;
    check(Number.isInteger(T) && T >= 1, `x has ${x.length} values, not a multiple of D = ${this.numFeatures}`);
    return { theta: this.nodeScores(w, x, T), T };
  }

  private run(w: Float64Array, x: Float64Array, T: number, yTrue: Int32Array | null): Int32Array {
    this.checkW(w);
    // chainDecode knows the plain loss and no constraints: with rules, the node scores then Viterbi.
    if (this.backend === 'native' && !this.hasRules()) {
      const out = new Int32Array(T);
      native.chainDecode(w, this.numFeatures, this.numLabels, x, T, yTrue, out);
      return out;
    }
    return this.viterbi(w, this.nodeScores(w, x, T, yTrue), T);
  }

  /**
   * The batched oracle (DESIGN seam 4, run by src/engine). The sequences are packed end to end once into a
   * prepared native batch (native/scoring/batch.h). Per call, the node scores of the items' tokens come from
   * the model's native scorer (SIMD rows on the thread pool), or for a whole pass from a non-native scoring
   * backend (gpu.js, TypeScript; the TypeScript one for a model with the 'js' decoder); Viterbi runs over the
   * items on native threads, and every H_i(w) is recomputed in float64 from the decoded labels with the
   * per-object path's arithmetic, so all backends give bit-identical hinges whenever they decode the same labels.
   */
  prepareBatch(xs: readonly Float64Array[], ys: readonly Int32Array[], scoring?: ScoringBackend): BatchDecoder<Int32Array> {
    const { numFeatures: D, numLabels: K } = this;
    const n = ys.length;
    const { offsets, xAll, yAll } = packSequences(xs, ys, D);
    const tokens = offsets[n]!;
    const batch = new native.DenseChainBatch({ offsets, truth: yAll, numLabels: K, numFeatures: D, features: xAll, ...this.batchRules() });
    const backend = scoring && scoring.name !== 'native' ? scoring : this.backend === 'js' ? new JsBackend() : undefined;
    const threads = Math.min(scoring instanceof NativeBackend ? scoring.threads : this.threads, 256);
    const rows = backend?.prepare(xAll, tokens, D);
    const unit = new Float64Array(tokens);
    const c = this.rules.labelWeights;
    for (let s = 0; s < n; s++) for (let t = offsets[s]!; t < offsets[s + 1]!; t++) unit[t] = (c?.[yAll[t]!] ?? 1) / (offsets[s + 1]! - offsets[s]!);
    const aug = { labels: yAll, weight: unit };
    const theta = new Float64Array(tokens * K);
    const labels = new Int32Array(tokens);
    // The background decode's psi: item q's are entries psiStart[q] .. psiStart[q] + psiCounts[q].
    const background = { items: null as Items | null, psiIndices: new Int32Array(0), psiValues: new Float64Array(0), psiCounts: new Int32Array(0), psiStart: new Int32Array(1) };
    return {
      size: n,
      score: (w, items, plain) => {
        if (rows && items === null) {
          // theta = <w_k, x_t> (+ 1/T [k != y_t], 2013 paper eq. 4), then the first/last biases
          backend!.score(rows, w.subarray(0, K * D), K, theta, plain ? undefined : aug);
          batch.addBiases({ w, theta });
        } else batch.scores({ w, theta, augmented: !plain, ...itemsOption(items), threads });
      },
      decode: (w, items) => batch.viterbi({ w, theta, labels, ...itemsOption(items), threads }),
      recheck: (w, items, hinge) => batch.hinges({ w, labels, hinge, ...itemsOption(items), threads }),
      // Items always score with the native scorer, so the background decode computes what the stages would,
      // and its psi is chainPsi's (this.psi's with the native backend).
      ...(this.backend === 'native'
        ? {
            decodeInBackground: (w: Float64Array, items: Items, threads: number) => {
              // A mini-batch's chains decode faster than its steps apply: the JavaScript thread keeps a core.
              batch.decodeInBackground({ w, ...itemsOption(items), threads: Math.max(1, threads - 1) });
              background.items = items;
            },
            finishBackground: (hinge: Float64Array) => {
              const items = background.items!;
              let capacity = 0;
              for (let q = 0; q < items.count; q++) {
                const T = offsets[items.indices[q]! + 1]! - offsets[items.indices[q]!]!;
                capacity += 2 * T * D + 2 * T + 4;
              }
              if (background.psiIndices.length < capacity) {
                background.psiIndices = new Int32Array(2 * capacity);
                background.psiValues = new Float64Array(2 * capacity);
              }
              if (background.psiCounts.length < items.count) {
                background.psiCounts = new Int32Array(items.count);
                background.psiStart = new Int32Array(items.count + 1);
              }
              const ms = batch.finishBackground({ labels, hinge, psiIndices: background.psiIndices, psiValues: background.psiValues, psiCounts: background.psiCounts });
              for (let q = 0; q < items.count; q++) background.psiStart[q + 1] = background.psiStart[q]! + background.psiCounts[q]!;
              return ms;
            },
            backgroundPsi: (q: number): SparseVector => {
              const at = background.psiStart[q]!;
              const nnz = background.psiCounts[q]!;
              return { indices: background.psiIndices.subarray(at, at + nnz), values: background.psiValues.subarray(at, at + nnz), nnz };
            },
          }
        : {}),
      // The native step loop knows the plain loss and no constraints: with rules, the TypeScript steps.
      ...(this.backend === 'native' && !this.hasRules() ? { stepModel: batch } : {}),
      label: (i) => labels.slice(offsets[i]!, offsets[i + 1]!),
      truth: (i) => yAll.slice(offsets[i]!, offsets[i + 1]!),
    };
  }

  /**
   * The ground truth's node scores T D; an oracle call adds the other states' T (K - 1) D, Viterbi T K^2 and psi
   * 2 T D; a stored label T D per unit of its loss (the node scores of the T L positions where it differs from the
   * ground truth: the native steps score only those while the cache is open) (StructuredModel.stepCost).
   */
  stepCost(_x: Float64Array, y: Int32Array): StepCost {
    const T = y.length;
    const { numFeatures: D, numLabels: K } = this;
    return { potentials: T * D, oracle: T * (K - 1) * D + T * K * K + 2 * T * D, perLabel: T * D };
  }

  /** Score <w, phi(x, y)> of a labelling (independent of the decoder; used by tests and certificates). */
  score(w: Float64Array, x: Float64Array, y: Int32Array): number {
    const { numFeatures: D, numLabels: K, offsets } = this;
    const T = y.length;
    let s = w[offsets.first + y[0]!]! + w[offsets.last + y[T - 1]!]!;
    for (let t = 0; t < T; t++) {
      const base = y[t]! * D;
      for (let j = 0; j < D; j++) s += w[base + j]! * x[t * D + j]!;
      if (t > 0) s += w[offsets.transitions + y[t - 1]! + K * y[t]!]!;
    }
    return s;
  }

  /**
   * Node scores theta[t*K + k] = <w_k, x_t>, plus 1/T for k != yTrue[t] when yTrue is given (eq. 4 of the
   * 2013 paper), plus the first/last biases, in a scratch buffer. The loss goes in before the biases, as in
   * native chain_node_scores and the batched pass, so all decoders break exact ties alike.
   */
  private nodeScores(w: Float64Array, x: Float64Array, T: number, yTrue: Int32Array | null = null): Float64Array {
    const { numFeatures: D, numLabels: K, offsets } = this;
    if (this.theta.length < T * K) this.theta = new Float64Array(T * K);
    const theta = this.theta;
    if (this.backend === 'native' && yTrue === null) {
      native.chainNodeScores(w, D, K, x, T, theta);
      return theta;
    }
    for (let t = 0; t < T; t++) {
      for (let k = 0; k < K; k++) {
        let s = 0;
        for (let j = 0; j < D; j++) s += w[k * D + j]! * x[t * D + j]!;
        theta[t * K + k] = s;
      }
    }
    if (yTrue !== null) this.augmentLoss(theta, yTrue);
    for (let k = 0; k < K; k++) {
      theta[k]! += w[offsets.first + k]!;
      theta[(T - 1) * K + k]! += w[offsets.last + k]!;
    }
    return theta;
  }

  psi(x: Float64Array, yTrue: Int32Array, y: Int32Array): SparseVector {
    const { numFeatures: D, numLabels: K, acc } = this;
    const T = yTrue.length;
    check(y.length === T, () => `label has length ${y.length}, expected ${T}`);
    if (this.backend === 'native') {
      const capacity = 2 * T * D + 2 * T + 4;
      if (this.psiIndices.length < capacity) {
        this.psiIndices = new Int32Array(capacity);
        this.psiValues = new Float64Array(capacity);
      }
      const nnz = native.chainPsi(x, D, K, T, yTrue, y, this.psiIndices, this.psiValues);
      return { indices: this.psiIndices, values: this.psiValues, nnz };
    }
    for (let t = 0; t < T; t++) {
      const a = yTrue[t]!;
      const b = y[t]!;
      if (a !== b) {
        acc.addDense(a * D, x, t * D, D, 1);
        acc.addDense(b * D, x, t * D, D, -1);
      }
    }
    this.addStructurePsi(acc, yTrue, y);
    return acc.take();
  }

  /** Node scores once (native or JS), then O(T) per label: out[k] = L(yTrue, y_k) + s(y_k) - s(yTrue). */
  labelScores(w: Float64Array, x: Float64Array, yTrue: Int32Array, labels: readonly Int32Array[], out: Float64Array): void {
    this.checkW(w);
    this.scoreLabels(w, this.nodeScores(w, x, yTrue.length), yTrue, labels, out);
  }
}

/**
 * Sequences packed end to end: sequence s owns tokens [offsets[s], offsets[s+1]) of xAll (tokens x D) and
 * yAll (its states).
 */
export function packSequences(xs: readonly Float64Array[], ys: readonly Int32Array[], D: number): { offsets: Int32Array; xAll: Float64Array; yAll: Int32Array } {
  const n = ys.length;
  const offsets = new Int32Array(n + 1);
  ys.forEach((y, s) => (offsets[s + 1] = offsets[s]! + y.length));
  const xAll = new Float64Array(offsets[n]! * D);
  const yAll = new Int32Array(offsets[n]!);
  ys.forEach((y, s) => {
    xAll.set(xs[s]!, offsets[s]! * D);
    yAll.set(y, offsets[s]!);
  });
  return { offsets, xAll, yAll };
}

/** Splits a SequenceDataset into the (xs, ys) arrays the models take. */
export function sequencesXY(examples: readonly SequenceExample[]): { xs: Float64Array[]; ys: Int32Array[] } {
  return { xs: examples.map((e) => e.x), ys: examples.map((e) => e.y) };
}
