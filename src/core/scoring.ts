/**
 * The scoring-backend seam (DESIGN seam 4): the interface the batched passes score through. With w fixed, the
 * loss-augmented potentials of many examples are rows of one product: scores[n, k] = <W_k, X_n> (+ a loss term),
 * where the rows X_n are chain positions, multiclass examples, superpixels or edges. The implementations (C++
 * SIMD rows on native threads, gpu.js kernels, plain TypeScript) live in kernels/.
 * @module
 */
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
