import type { SparseVector } from './vector.js';
import { check } from './errors.js';
import type { ScoringBackend } from '../../kernels/backend.js';
import { arrayDataset, type Dataset } from '../data/dataset.js';
import { BatchEngine } from '../engine/engine.js';
import { addCounters, readCounters, subtractCounters, zeroCounters } from '../engine/counters.js';
import type { BatchDecoder, BatchOracle, BatchPass, OracleCounters, PassProgress } from '../engine/types.js';

export type { BatchDecoder, BatchOracle, BatchPass, OracleCounters, PassProgress } from '../engine/types.js';

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
   * Optional batched oracle (DESIGN seam 4, run by src/engine): prepares examples once and returns their
   * {@link BatchDecoder} (score, decode on native threads, float64 recheck; any subset of them at a time), or
   * the older whole-pass {@link BatchPass} function, which the engine adapts. `scoring` computes the
   * potentials of many examples at once (kernels/: native SIMD threads, gpu.js or plain TypeScript; the
   * model's own native scorer when omitted or native); every hinge is recomputed in float64 from the decoded
   * labels, so a float32 backend only proposes labels.
   */
  prepareBatch?(xs: readonly X[], ys: readonly Y[], scoring?: ScoringBackend): BatchDecoder<Y> | BatchPass<Y>;
}

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
  /** Whether mini-batches of block steps pay off by default (see StructuredModel.miniBatches). */
  readonly miniBatches?: boolean;
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
}

/** Options of {@link modelProblem}. */
export interface ProblemOptions {
  /** Scoring backend of the batched exact pass (see StructuredModel.prepareBatch); the model's native path by default. */
  scoring?: ScoringBackend;
  /** Progress of every batched pass: called per chunk with examples done and total. */
  onPassProgress?: (done: number, total: number) => void;
  /**
   * Examples per chunk of the batched pass: read and prepared at once for a streamed set (default 128: about
   * 190 MB of HorseSeg-size features), between progress reports for an in-memory set (default 4096).
   */
  passChunk?: number;
}

/**
 * The Problem of a model on a labelled data set (a {@link Dataset}, or arrays of inputs and labels). An in-memory
 * set is validated example by example up front; a streamed one (inputs read from disk per access) as each
 * example is first read, and its batched exact pass reads the set a chunk at a time.
 */
export function modelProblem<X, Y>(model: StructuredModel<X, Y>, data: Dataset<X, Y>, options?: ProblemOptions): Problem<Y>;
export function modelProblem<X, Y>(model: StructuredModel<X, Y>, xs: readonly X[], ys: readonly Y[], options?: ProblemOptions): Problem<Y>;
export function modelProblem<X, Y>(
  model: StructuredModel<X, Y>,
  dataOrXs: Dataset<X, Y> | readonly X[],
  ysOrOptions?: readonly Y[] | ProblemOptions,
  maybeOptions?: ProblemOptions,
): Problem<Y> {
  const data: Dataset<X, Y> = Array.isArray(dataOrXs) ? arrayDataset(dataOrXs as readonly X[], ysOrOptions as readonly Y[]) : (dataOrXs as Dataset<X, Y>);
  const options = (Array.isArray(dataOrXs) ? maybeOptions : (ysOrOptions as ProblemOptions | undefined)) ?? {};
  check(data.length > 0, 'the training set is empty');
  let input: (i: number) => X;
  if (data.streamed) {
    const validated = new Uint8Array(data.length);
    input = (i) => {
      const x = data.input(i);
      if (!validated[i]) {
        model.validate(x, data.label(i), `example ${i}`);
        validated[i] = 1;
      }
      return x;
    };
  } else {
    for (let i = 0; i < data.length; i++) model.validate(data.input(i), data.label(i), `example ${i}`);
    input = (i) => data.input(i);
  }
  const y = (i: number) => data.label(i);
  const live = zeroCounters();
  const readAtStart = readCounters(data.readStats?.());
  const batch = model.prepareBatch ? progressReported(new BatchEngine(model as Required<Pick<StructuredModel<X, Y>, 'prepareBatch' | 'dim'>>, data, { ...options, counters: live }), options.onPassProgress) : undefined;
  const own: Pick<Problem<Y>, 'oracle' | 'psi' | 'loss' | 'groundTruth' | 'labelScores'> = {
    oracle: (i, w) => model.lossAugmentedDecode(w, input(i), y(i), live),
    psi: (i, label) => model.psi(input(i), y(i), label),
    loss: (i, label) => model.loss(y(i), label),
    groundTruth: y,
    labelScores: (i, w, labels, out) => model.labelScores(w, input(i), y(i), labels, out),
  };
  return {
    n: data.length,
    dim: model.dim,
    ...own,
    predict: (i, w) => model.decode(w, input(i)),
    labelKey: (label) => model.labelKey(label),
    labelToJSON: (label) => model.labelToJSON(label),
    labelFromJSON: (v) => model.labelFromJSON(v),
    fingerprint: () => data.fingerprint(),
    counters: () => addCounters(subtractCounters(readCounters(data.readStats?.()), readAtStart), live),
    ...(model.bounds ? { bounds: model.bounds } : {}),
    ...(batch ? { batch } : {}),
    ...(model.miniBatches ? { miniBatches: true } : {}),
    stepModel(this: Problem<Y>) {
      const mine = this.batch === batch && (Object.keys(own) as (keyof typeof own)[]).every((k) => this[k] === own[k]);
      return mine ? batch?.stepModel?.() : undefined;
    },
  };
}

/** The engine with ProblemOptions.onPassProgress called after every chunk of every pass. */
function progressReported<Y>(engine: BatchOracle<Y>, onProgress: ProblemOptions['onPassProgress']): BatchOracle<Y> {
  if (!onProgress) return engine;
  return {
    *pass(w, out): Generator<PassProgress, void, void> {
      for (const p of engine.pass(w, out)) {
        onProgress(p.done, p.total);
        yield p;
      }
    },
    decodeSubset: (w, blocks, count, labels, hinge) => engine.decodeSubset(w, blocks, count, labels, hinge),
    ...(engine.startSubset && engine.finishSubset
      ? { startSubset: engine.startSubset.bind(engine), finishSubset: engine.finishSubset.bind(engine) }
      : {}),
    ...(engine.decodesInBackground ? { decodesInBackground: engine.decodesInBackground.bind(engine) } : {}),
    ...(engine.stepModel ? { stepModel: engine.stepModel.bind(engine) } : {}),
  };
}

/** Mean task loss of the model's predictions (the papers' "test error"); 0 for an empty set. */
export function meanLoss<X, Y>(model: StructuredModel<X, Y>, w: Float64Array, data: Dataset<X, Y>): number;
export function meanLoss<X, Y>(model: StructuredModel<X, Y>, w: Float64Array, xs: readonly X[], ys: readonly Y[]): number;
export function meanLoss<X, Y>(model: StructuredModel<X, Y>, w: Float64Array, dataOrXs: Dataset<X, Y> | readonly X[], ys?: readonly Y[]): number {
  const data = Array.isArray(dataOrXs) ? arrayDataset(dataOrXs as readonly X[], ys!) : (dataOrXs as Dataset<X, Y>);
  if (data.length === 0) return 0;
  let s = 0;
  for (let i = 0; i < data.length; i++) s += model.loss(data.label(i), model.decode(w, data.input(i)));
  return s / data.length;
}
