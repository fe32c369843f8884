/**
 * The two seams between models, data and solvers (DESIGN seam 1): a {@link StructuredModel} (phi, psi, loss,
 * oracles) and the {@link Problem} the solvers see. `modelProblem` (src/engine/problem.ts) pairs a model with data.
 * @module
 */
import type { SparseVector } from './vector.js';
import type { ScoringBackend } from './scoring.js';
import type { BatchDecoder, BatchOracle, BatchPass, OracleCounters } from './batch.js';

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
  /**
   * argmax_y  L(yTrue, y) + <w, phi(x, y)>  (the loss-augmented max-oracle). A model that times its oracle
   * (segmentation: potentials vs graph cut) adds the call to `counters` when given.
   */
  lossAugmentedDecode(w: Float64Array, x: X, yTrue: Y, counters?: OracleCounters): Y;
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
   * Whether mini-batches of block steps pay off with this model's oracle by default: true when an oracle call
   * costs far more than a block update (sparse Viterbi over CoNLL's features, graph cuts, pose max-sum), so
   * that decoding several blocks on native threads wins; a cheap one (dense chains such as OCR, multiclass)
   * loses more to the mini-batch's overhead and staler corners than the threads give, unless its decoder works
   * in the background (BatchDecoder.decodeInBackground: OCR's dense chains), where overlapped mini-batches pay;
   * a costly one's mini-batches are not overlapped by default (their staler corners cost pose more passes than
   * the overlap saved time; docs/results.md, multi-core training). Only the defaults of batch and overlap depend on it.
   */
  readonly miniBatches?: boolean;
  /**
   * Optional: the work of a block step on (x, y) in counted operations (multiply-adds, comparisons): `potentials`, what
   * every step computes (a chain: the ground truth's node scores; multiclass: the class scores), `oracle`, what an
   * oracle call adds (the other node scores, Viterbi, argmax, psi), and `perLabel`, scoring a stored label per unit
   * of its loss (a chain: the node scores where it differs from the ground truth). The cache weighs its steps' dual gains by these
   * (TrainSettings.cache, adaptive): deterministic, unlike seconds. Without it, the oracle counts as costly.
   */
  stepCost?(x: X, y: Y): StepCost;
  /**
   * Optional batched oracle (DESIGN seam 4, run by src/engine): prepares examples once and returns their
   * {@link BatchDecoder} (score, decode on native threads, float64 recheck; any subset of them at a time), or
   * the older whole-pass {@link BatchPass} function, which the engine adapts. `scoring` computes the
   * potentials of many examples at once (kernels/: native SIMD threads, gpu.js or plain TypeScript; the
   * model's own native scorer when omitted or native); every hinge is recomputed in float64 from the decoded
   * labels, so a float32 backend only proposes labels.
   */
  prepareBatch?(xs: readonly X[], ys: readonly Y[], scoring?: ScoringBackend): BatchDecoder<Y> | BatchPass<Y>;
  /**
   * Optional: what the model's oracle did since the model was built, as plain JSON (e.g. the inference routine each
   * example got, with calls and milliseconds); `train`, `eval` and `gap` add it to their reports.
   */
  oracleReport?(): Record<string, unknown>;
}

/** The work of a block step in counted operations (see StructuredModel.stepCost). */
export interface StepCost {
  /** Operations every step pays for the block (a chain: the ground truth's node scores; multiclass: all class scores). */
  potentials: number;
  /** Operations an oracle call adds (the other node scores, Viterbi, argmax, psi). */
  oracle: number;
  /**
   * Operations to score a cached label, per unit of its loss (a chain: T D, the node scores of the T L positions where it
   * differs from the ground truth; multiclass: a lookup).
   */
  perLabel: number;
}

/** Per-coordinate box constraints on w; arrays of length dim (either may be omitted). */
export interface Bounds {
  lower?: Float64Array;
  upper?: Float64Array;
}

/**
 * The training problem as the solvers see it (DESIGN.md seam 1): n blocks, dimension, and per-block
 * oracle / psi / loss. Built from a model and data by `modelProblem` (src/engine/problem.ts).
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
  /** Whether mini-batches of block steps pay off by default (see StructuredModel.miniBatches). */
  readonly miniBatches?: boolean;
  /** The work of block i's steps in counted operations (see StructuredModel.stepCost). */
  stepCost?(i: number): StepCost;
  /**
   * Optional batched oracle (src/engine): the exact pass chunk by chunk without building psi (with the argmax
   * labels and predictions when asked), and any subset of blocks decoded together on native threads.
   */
  readonly batch?: BatchOracle<Y>;
  /**
   * Oracle counters since the problem was built: batched passes (examples, scoring, decoding and checking
   * milliseconds), per-object oracle calls of models that time them, and the reads of a streamed data set.
   */
  counters?(): OracleCounters;
  /** out[k] = L_i(y_k) - <w, psi_i(y_k)> for the given labels of block i. */
  labelScores(i: number, w: Float64Array, labels: readonly Y[], out: Float64Array): void;
  /** JSON form of a label (for checkpoints). */
  labelToJSON(y: Y): unknown;
  /** Inverse of `labelToJSON`; throws InputError on a value that is not a valid label. */
  labelFromJSON(value: unknown): Y;
  /** Checksum of the training data (see Dataset.fingerprint): recognises the data a model or checkpoint was trained on. */
  fingerprint?(): string;
  /**
   * Optional: the prepared native batch on which the native step loop runs whole block steps (a built-in model with
   * native oracle, psi and scores, in memory; see BatchDecoder.stepModel); undefined when the problem's per-object
   * functions or batched oracle are not the model's own (a problem spread with a replaced oracle keeps the
   * TypeScript steps, which call it).
   */
  stepModel?(): unknown;
  /**
   * The settings that define the objective besides the data, lambda and the bounds: the model's (losses, costs,
   * normalisers, feature scalings, types; the CLI gives a task's model spec). Checkpoints record them, and a
   * resume or warm start under other settings is refused (its certificate would belong to another objective).
   */
  objective?(): object;
}
