/**
 * Scoring backends for batched full-gap passes (DESIGN seam 4). With w fixed, the loss-augmented
 * potentials of many examples are rows of one product: scores[n, k] = <W_k, X_n> (+ a loss term), where
 * the rows X_n are chain positions, multiclass examples, superpixels or edges. A backend computes that
 * product; models then decode (Viterbi, argmax, graph cut) from the scores and recompute every hinge in
 * float64 from the decoded labels, so a float32 backend only proposes labels.
 */
import { check } from '../src/core/errors.js';

/** The three implementations: C++ SIMD rows on native threads, gpu.js kernels, plain TypeScript. */
export type BackendName = 'native' | 'gpujs' | 'js';

/** The Hamming-type loss augmentation: weight[n] is added to every class k != labels[n] of row n. */
export interface LossAugmentation {
  labels: Int32Array;
  weight: Float64Array;
}

/** Feature rows as stored: float64, or float32 where features are kept compactly (segmentation). */
export type FeatureArray = Float64Array | Float32Array;

/** Feature rows prepared once for a backend (gpu.js keeps float32 chunks); reused across passes. */
export interface FeatureRows {
  readonly rows: number;
  readonly cols: number;
}

/** Rows kept as the caller's array (the CPU backends; each subclasses it to recognise its own rows). */
export class HostRows implements FeatureRows {
  constructor(
    readonly X: FeatureArray,
    readonly rows: number,
    readonly cols: number,
  ) {}
}

/**
 * A scoring backend: prepares feature rows once, then computes batched scores for any W. Create one with
 * {@link createBackend} or {@link chooseBackend}; pass it to `modelProblem(..., { scoring })`.
 */
export interface ScoringBackend {
  readonly name: BackendName;
  /** What it runs on: `simd-threads(T)`, a gpu.js mode (`gpu`, `webgl`, `headlessgl`, `webasm`, `cpu`), or `float64-loops`. */
  readonly mode: string;
  /** Arithmetic of the scores: gpu.js computes in float32. */
  readonly precision: 'float64' | 'float32';
  /** Prepares N = rows feature rows of `cols` values (row-major). X must not change while the rows are in use. */
  prepare(X: FeatureArray, rows: number, cols: number): FeatureRows;
  /** out[n*K + k] = <W_k, X_n> (+ aug.weight[n] for k != aug.labels[n]); W is K x cols, row-major. */
  score(X: FeatureRows, W: Float64Array, K: number, out: Float64Array, aug?: LossAugmentation): void;
  /** Frees what the backend holds (gpu.js contexts and kernels). */
  dispose(): void;
}

/** Checks the shapes of prepare(). */
export function checkRows(X: FeatureArray, rows: number, cols: number): void {
  check(Number.isInteger(rows) && rows >= 0, `rows must be an integer >= 0, got ${rows}`);
  check(Number.isInteger(cols) && cols >= 1, `cols must be a positive integer, got ${cols}`);
  check(X.length === rows * cols, () => `X has ${X.length} values, expected rows x cols = ${rows * cols}`);
}

/** Checks the shapes of score(). */
export function checkScore(X: FeatureRows, W: Float64Array, K: number, out: Float64Array, aug?: LossAugmentation): void {
  check(Number.isInteger(K) && K >= 1, `K must be a positive integer, got ${K}`);
  check(W.length === K * X.cols, () => `W has ${W.length} values, expected K x cols = ${K * X.cols}`);
  check(out.length === X.rows * K, () => `out has ${out.length} values, expected rows x K = ${X.rows * K}`);
  if (aug) {
    check(aug.labels.length === X.rows && aug.weight.length === X.rows, () => `the loss augmentation needs ${X.rows} labels and weights`);
    for (let n = 0; n < X.rows; n++) {
      const y = aug.labels[n]!;
      check(y >= 0 && y < K, () => `aug.labels[${n}] = ${y} is outside 0..${K - 1}`);
    }
  }
}
