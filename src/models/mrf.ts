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
