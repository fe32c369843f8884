/**
 * The maximum-score labelling of a pairwise Markov random field in C++ (native/graph/mrf.h): the max-oracle of the
 * general graph-labelling and multi-label models.
 *
 *   score(y) = sum_i unary[i][y_i] + sum_e table_e[y_u][y_v],   e = (u, v), y_i in 0..K-1.
 *
 * Routines: `tree` (exact dynamic programming on forests), `cut` (exact s-t minimum cut for K = 2 with submodular
 * tables, Boykov-Kolmogorov max-flow), `exhaustive` (exact enumeration of K^N <= exhaustiveLimit labellings),
 * `expansion` (alpha-expansion for tables that keep every move submodular: a local optimum, no bound) and `lp`
 * (max-product on the LP relaxation, edge-based MPLP of Globerson & Jaakkola 2007: an upper bound on the maximum by
 * weak duality, exact when the labelling meets it). `auto` takes the first that applies in that order.
 *
 * @example
 * ```ts
 * const labels = new Int32Array(3);
 * const r = inferGraph({ unary, numLabels: 2, edgeFrom, edgeTo, tables }, labels);
 * console.log(r.routine, r.exact, r.score, r.bound);
 * ```
 * @module
 */
import { GapbcfwError, InputError } from '../core/errors.js';
import { native } from './addon.js';

/** The inference routines, in the order `auto` tries them. */
export const GRAPH_ROUTINES = ['tree', 'cut', 'exhaustive', 'expansion', 'lp'] as const;
/** An inference routine of {@link inferGraph}. */
export type GraphRoutine = (typeof GRAPH_ROUTINES)[number];

/** A pairwise MRF to maximise. */
export interface GraphPotentials {
  /** N x K node scores, row-major (N >= 1). */
  unary: Float64Array;
  /** K >= 1. */
  numLabels: number;
  /** Edge tails and heads (E each; no self-loops). */
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  /** Edge scores table_e[a * K + b] of (y_u, y_v) = (a, b): K x K shared by every edge, or E x K x K. */
  tables: Float64Array;
}

/** How {@link inferGraph} chooses its routine. */
export interface GraphInferOptions {
  /** A routine to use where it applies (else the automatic choice), or 'auto' (default). */
  routine?: GraphRoutine | 'auto';
  /** Largest K^N the exhaustive routine enumerates (default 65,536). */
  exhaustiveLimit?: number;
  /** Sweeps of the LP routine at most (default 500; it stops once its bound meets the labelling, or stalls). */
  lpIterations?: number;
}

/** What {@link inferGraph} did. */
export interface GraphInference {
  routine: GraphRoutine;
  /** The labelling is proven a maximiser. */
  exact: boolean;
  /** Its score. */
  score: number;
  /** An upper bound on the maximum score: `score` when exact, Infinity when the routine has none (expansion). */
  bound: number;
  /** Alpha-expansion cycles or LP sweeps (0 otherwise). */
  iterations: number;
}

// The section's functions on the addon object (src/native/addon.ts).
declare module './addon.js' {
  interface NativeBinding extends GraphBinding {}
}

/** The raw binding of native/binding/graph.cc. */
export interface GraphBinding {
  /** The labelling into options.labels (N entries), by the routine the options choose. */
  graphInfer(options: GraphPotentials & GraphInferOptions & { labels: Int32Array }): GraphInference;
}

/**
 * The maximum-score labelling of an MRF into `labels` (length N), by the routine the options choose.
 * @throws {@link InputError} on bad shapes, edge ids or non-finite scores.
 */
export function inferGraph(potentials: GraphPotentials, labels: Int32Array, options: GraphInferOptions = {}): GraphInference {
  try {
    return native.graphInfer({ ...potentials, ...options, labels });
  } catch (e) {
    if (e instanceof TypeError || e instanceof RangeError) throw new InputError(e.message);
    if (e instanceof Error && !(e instanceof GapbcfwError)) throw new GapbcfwError(e.message);
    throw e;
  }
}
