/**
 * The max-oracle shared by the models whose inputs are pairwise Markov random fields (graph labelling, multi-label):
 * the potentials a model computes from w go to the native routines (src/native/graph.ts, native/graph/), and the
 * answer is made honest for the solvers. Loss-augmented, an approximate routine's label is compared with the ground
 * truth (whose H is 0, so the oracle never answers worse than it) and marked with its slack, the routine's bound
 * minus the label's score (src/core/approximate.ts). Calls are counted per routine with their milliseconds.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { markApproximate } from '../core/approximate.js';
import { check, InputError } from '../core/errors.js';
import { GRAPH_ROUTINES, inferGraph, type GraphInferOptions, type GraphPotentials, type GraphRoutine } from '../native/graph.js';

/** Oracle calls of one routine: how many, how many proven exact, and their milliseconds. */
export interface RoutineStats {
  calls: number;
  /** Calls whose label is proven the maximiser (every call of the exact routines; LP calls whose bound met the label). */
  exact: number;
  /** Milliseconds in the native routine. */
  ms: number;
}

/** Relative tolerance below which a bound meets a score (rounding), as native/graph/mrf.h's kProofTolerance. */
const PROOF_TOLERANCE = 1e-9;

/** score(y) = sum_i unary[i][y_i] + sum_e table_e[y_u][y_v] of a labelling, in TypeScript. */
export function mrfScore(p: GraphPotentials, y: ArrayLike<number>): number {
  const K = p.numLabels;
  const shared = p.tables.length === K * K;
  let s = 0;
  for (let i = 0; i < y.length; i++) s += p.unary[i * K + y[i]!]!;
  for (let e = 0; e < p.edgeFrom.length; e++) s += p.tables[(shared ? 0 : e * K * K) + y[p.edgeFrom[e]!]! * K + y[p.edgeTo[e]!]!]!;
  return s;
}

/** The MRF max-oracle of a model, with its per-routine counters. */
export class MrfOracle {
  /** Calls per routine since the model was built (or {@link resetStats}). */
  readonly stats: Record<GraphRoutine, RoutineStats>;

  constructor(readonly options: GraphInferOptions = {}) {
    this.stats = Object.fromEntries(GRAPH_ROUTINES.map((r) => [r, { calls: 0, exact: 0, ms: 0 }])) as Record<GraphRoutine, RoutineStats>;
  }

  /** Sets every routine's counters back to 0. */
  resetStats(): void {
    for (const r of GRAPH_ROUTINES) Object.assign(this.stats[r], { calls: 0, exact: 0, ms: 0 });
  }

  /**
   * The maximum-score labelling of the potentials. With `truth` (loss-augmented potentials, where the truth's loss
   * is 0): a label not proven the maximiser is replaced by a copy of the truth when that scores at least as much,
   * and marked approximate with the slack bound - its score (Infinity without a bound), unless the bound proves it.
   */
  solve(p: GraphPotentials, truth?: Int32Array): Int32Array {
    const labels = new Int32Array(p.unary.length / p.numLabels);
    const t0 = performance.now();
    const r = inferGraph(p, labels, this.options);
    const s = this.stats[r.routine];
    s.calls++;
    s.ms += performance.now() - t0;
    if (r.exact) {
      s.exact++;
      return labels;
    }
    if (!truth) return labels;
    const truthScore = mrfScore(p, truth);
    const [label, value] = truthScore >= r.score ? [truth.slice(), truthScore] : [labels, r.score];
    const slack = r.bound - value;
    if (Number.isFinite(r.bound) && slack <= PROOF_TOLERANCE * Math.max(1, Math.abs(r.bound))) {
      s.exact++;
      return label;
    }
    return markApproximate(label, slack);
  }

  /** The counters as plain JSON: per routine that ran, its calls, exact calls and milliseconds per call. */
  report(): Record<string, { calls: number; exact: number; msPerCall: number }> {
    const out: Record<string, { calls: number; exact: number; msPerCall: number }> = {};
    for (const r of GRAPH_ROUTINES) {
      const s = this.stats[r];
      if (s.calls > 0) out[r] = { calls: s.calls, exact: s.exact, msPerCall: s.ms / s.calls };
    }
    return out;
  }
}

/**
 * What the models over pairwise MRFs share (graph labelling, multi-label): the potentials of an input at w are the
 * model's own; the loss is a weighted Hamming loss sum_i a_i [y_i != y*_i] over the MRF's nodes, so the loss
 * augmentation adds a_i to every wrong label of node i; the oracles, the scores of stored labels and the report go
 * through the {@link MrfOracle}.
 */
export abstract class MrfModel<X> {
  /** Dimension of w. */
  abstract readonly dim: number;
  /** The MRF oracle, with its counters per routine. */
  readonly oracle: MrfOracle;

  protected constructor(inference?: GraphInferOptions) {
    this.oracle = new MrfOracle(inference);
  }

  /** The MRF of x at w (node scores and edge tables). */
  abstract potentials(w: Float64Array, x: X): GraphPotentials;

  /** The loss weights a_i of a ground truth: L(y*, y) = sum_i a_i [y_i != y*_i]. */
  protected abstract lossWeightsOf(yTrue: Int32Array): Float64Array;

  /** Throws an InputError unless w is a Float64Array of the model's dimension. */
  protected checkW(w: Float64Array): void {
    if (!(w instanceof Float64Array) || w.length !== this.dim) throw new InputError(`w must be a Float64Array of length ${this.dim}`);
  }

  /** The loss-augmented potentials: a_i added to every wrong label of node i. */
  protected augmented(w: Float64Array, x: X, yTrue: Int32Array): GraphPotentials {
    const p = this.potentials(w, x);
    const a = this.lossWeightsOf(yTrue);
    const K = p.numLabels;
    for (let i = 0; i < yTrue.length; i++) {
      for (let k = 0; k < K; k++) if (k !== yTrue[i]) p.unary[i * K + k]! += a[i]!;
    }
    return p;
  }

  /** argmax_y L(yTrue, y) + <w, phi(x, y)>; a label not proven the maximiser is marked approximate (see MrfOracle.solve). */
  lossAugmentedDecode(w: Float64Array, x: X, yTrue: Int32Array): Int32Array {
    return this.oracle.solve(this.augmented(w, x, yTrue), yTrue);
  }

  /** argmax_y <w, phi(x, y)> (prediction). */
  decode(w: Float64Array, x: X): Int32Array {
    return this.oracle.solve(this.potentials(w, x));
  }

  /** The weighted Hamming loss sum_i a_i [y_i != y*_i]. */
  loss(yTrue: Int32Array, y: Int32Array): number {
    check(yTrue.length === y.length, () => `labellings have ${yTrue.length} and ${y.length} nodes`);
    const a = this.lossWeightsOf(yTrue);
    let s = 0;
    for (let i = 0; i < y.length; i++) if (y[i] !== yTrue[i]) s += a[i]!;
    return s;
  }

  /** out[k] = L(yTrue, y_k) - <w, psi(x, yTrue, y_k)> of the given labels. */
  labelScores(w: Float64Array, x: X, yTrue: Int32Array, labels: readonly Int32Array[], out: Float64Array): void {
    const p = this.augmented(w, x, yTrue);
    // With the loss in the potentials, L(y*, y) + <w, phi(y)> is y's MRF score; the truth's is <w, phi(y*)>.
    const truth = mrfScore(p, yTrue);
    for (let k = 0; k < labels.length; k++) out[k] = mrfScore(p, labels[k]!) - truth;
  }

  /** The oracle's calls per inference routine (which routine each example got), with exact calls and ms per call. */
  oracleReport(): Record<string, unknown> {
    return { inference: this.oracle.report() };
  }
}
