import type { SparseVector } from './vector.js';
import { check } from './errors.js';
import type { ScoringBackend } from '../../kernels/backend.js';

/**
 * A structured prediction model: a joint feature map phi(x, y) in R^dim, a task loss and its
 * max-oracles. Labels are opaque to the solvers.
 *
 * Sign convention (2013 paper, eq. 2-3): psi(x, yTrue, y) = phi(x, yTrue) - phi(x, y), and the
 * loss-augmented oracle maximises  L(yTrue, y) - <w, psi(x, yTrue, y)>, i.e. L(yTrue, y) + <w, phi(x, y)>.
 */
export interface StructuredModel<X, Y> {
  /** Dimension of w. */
  readonly dim: number;
  /** argmax_y  L(yTrue, y) + <w, phi(x, y)>  (the loss-augmented max-oracle). */
  lossAugmentedDecode(w: Float64Array, x: X, yTrue: Y): Y;
  /** argmax_y  <w, phi(x, y)>  (prediction). */
  decode(w: Float64Array, x: X): Y;
  /** phi(x, yTrue) - phi(x, y). The result may be a view valid until the next call (see SparseAccumulator). */
  psi(x: X, yTrue: Y, y: Y): SparseVector;
  /** Task loss L(yTrue, y) >= 0 with L(y, y) = 0. */
  loss(yTrue: Y, y: Y): number;
  /** A string that identifies a label (for caches and tests). */
  labelKey(y: Y): string;
  /** Throws InputError if (x, y) does not fit the model (shape, label range, NaN). */
  validate(x: X, y: Y, where: string): void;
  /**
   * Loss-augmented scores of many labels at once: out[k] = L(yTrue, y_k) - <w, psi(x, yTrue, y_k)>
   * (the quantity the oracle maximises; 0 for yTrue). Caches and away steps score their stored labels
   * with it (DESIGN seam 5); a model can compute its potentials once and score each label cheaply.
   */
  labelScores(w: Float64Array, x: X, yTrue: Y, labels: readonly Y[], out: Float64Array): void;
  /** JSON form of a label (for checkpoints), and back. */
  labelToJSON(y: Y): unknown;
  /** Inverse of `labelToJSON`; throws InputError on a value that is not a valid label of this model. */
  labelFromJSON(value: unknown): Y;
  /**
   * Optional box constraints on w (2016 paper, App. H): lower[j] <= w_j <= upper[j] (use -Infinity/Infinity
   * for free coordinates). The solvers keep the unconstrained sum v of the blocks and use the clipped
   * w = clip(v) for oracles, gaps and objectives; the positivity of HorseSeg's Potts weights and of LSP's
   * quadratic deformation coefficients are lower bounds of 0.
   */
  readonly bounds?: Bounds;
  /**
   * Optional batched exact pass (DESIGN seam 4): prepares a data set once and returns a `BatchPass`.
   * `scoring` computes the loss-augmented potentials of all examples at once (kernels/: native SIMD threads,
   * gpu.js or plain TypeScript; the model's own native path when omitted); decoding runs on native threads
   * and every hinge is recomputed in float64 from the decoded labels, so a float32 backend only proposes labels.
   */
  prepareBatch?(xs: readonly X[], ys: readonly Y[], scoring?: ScoringBackend): BatchPass<Y>;
}

/**
 * A prepared batched pass at a given w: writes hinge[i] = H_i(w) = max_y L(y_i, y) - <w, psi_i(y)> for every
 * example (in float64, from the decoded labels) and, when `labels` is given, the decoded argmax labels.
 * When `predictions` is given, a model may also write the plain argmax of every example (no loss term: the
 * test-time prediction) from the same pass, sparing a second read of the data; entries it leaves
 * undefined are the caller's to fill (fullOraclePass does, with Problem.predict). Predictions are the
 * argmax of the backend's scores: with a float32 backend they may differ from the float64 decode on near-ties.
 */
export type BatchPass<Y> = (w: Float64Array, hinge: Float64Array, labels?: Y[], predictions?: Y[]) => void;

/** Per-coordinate box constraints on w; arrays of length dim (either may be omitted). */
export interface Bounds {
  lower?: Float64Array;
  upper?: Float64Array;
}

/**
 * The training problem as the solvers see it (DESIGN.md seam 1): n blocks, dimension, and per-block
 * oracle / psi / loss. Built from a model and data by `modelProblem`.
 */
export interface Problem<Y = unknown> {
  readonly n: number;
  readonly dim: number;
  /** Loss-augmented max-oracle for block i at w: argmax_y L_i(y) - <w, psi_i(y)>. */
  oracle(i: number, w: Float64Array): Y;
  /** psi_i(y) = phi(x_i, y_i) - phi(x_i, y) (a view valid until the next psi call). */
  psi(i: number, y: Y): SparseVector;
  /** L_i(y) = L(y_i, y). */
  loss(i: number, y: Y): number;
  /** Plain prediction on training example i (for the training error). */
  predict(i: number, w: Float64Array): Y;
  /** Ground-truth label of block i. */
  groundTruth(i: number): Y;
  /** A string that identifies a label (for caches and tests). */
  labelKey(y: Y): string;
  /** Box constraints on w (see StructuredModel.bounds). */
  readonly bounds?: Bounds;
  /** Optional: H_i(w) of every block at once (the exact pass without building psi), the argmax labels and predictions (see BatchPass). */
  hingeAll?(w: Float64Array, hinge: Float64Array, labels?: Y[], predictions?: Y[]): void;
  /** out[k] = L_i(y_k) - <w, psi_i(y_k)> for the given labels of block i. */
  labelScores(i: number, w: Float64Array, labels: readonly Y[], out: Float64Array): void;
  /** JSON form of a label (for checkpoints). */
  labelToJSON(y: Y): unknown;
  /** Inverse of `labelToJSON`; throws InputError on a value that is not a valid label. */
  labelFromJSON(value: unknown): Y;
}

/**
 * A data set read out of core (src/data/horse-stream.ts) gives its `xs` this property: a function that builds
 * the Problem itself (records read per call), which {@link modelProblem} then returns.
 */
export const PROBLEM_FACTORY: unique symbol = Symbol.for('gapbcfw.problemFactory');

/** Options of {@link modelProblem}. */
export interface ProblemOptions {
  /** Scoring backend of the batched exact pass (see StructuredModel.prepareBatch); the model's native path by default. */
  scoring?: ScoringBackend;
  /** Progress of a batched pass over a set streamed from disk: called per chunk with examples done and total. */
  onPassProgress?: (done: number, total: number) => void;
}

/** The Problem of a model on a labelled data set. Validates every example once. */
export function modelProblem<X, Y>(model: StructuredModel<X, Y>, xs: readonly X[], ys: readonly Y[], options: ProblemOptions = {}): Problem<Y> {
  const streamed = (xs as { [PROBLEM_FACTORY]?: (model: StructuredModel<X, Y>, ys: readonly Y[], options: ProblemOptions) => Problem<Y> })[PROBLEM_FACTORY];
  if (streamed) return streamed(model, ys, options);
  check(xs.length === ys.length, `got ${xs.length} inputs but ${ys.length} labels`);
  check(xs.length > 0, 'the training set is empty');
  for (let i = 0; i < xs.length; i++) model.validate(xs[i]!, ys[i]!, `example ${i}`);
  let batch: BatchPass<Y> | undefined;
  return {
    n: xs.length,
    dim: model.dim,
    oracle: (i, w) => model.lossAugmentedDecode(w, xs[i]!, ys[i]!),
    psi: (i, y) => model.psi(xs[i]!, ys[i]!, y),
    loss: (i, y) => model.loss(ys[i]!, y),
    predict: (i, w) => model.decode(w, xs[i]!),
    groundTruth: (i) => ys[i]!,
    labelKey: (y) => model.labelKey(y),
    labelScores: (i, w, labels, out) => model.labelScores(w, xs[i]!, ys[i]!, labels, out),
    labelToJSON: (y) => model.labelToJSON(y),
    labelFromJSON: (v) => model.labelFromJSON(v),
    ...(model.bounds ? { bounds: model.bounds } : {}),
    ...(model.prepareBatch
      ? { hingeAll: (w: Float64Array, hinge: Float64Array, labels?: Y[], predictions?: Y[]) => (batch ??= model.prepareBatch!(xs, ys, options.scoring))(w, hinge, labels, predictions) }
      : {}),
  };
}

/** Mean task loss of the model's predictions (the papers' "test error"); 0 for an empty set. */
export function meanLoss<X, Y>(model: StructuredModel<X, Y>, w: Float64Array, xs: readonly X[], ys: readonly Y[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += model.loss(ys[i]!, model.decode(w, xs[i]!));
  return s / xs.length;
}
