/**
 * The Problem of a model on a data set: `modelProblem` validates the examples and wires the model's per-object
 * oracles and its batched decoder (the engine) into the interface the solvers see.
 * @module
 */
import { check } from '../core/errors.js';
import { arrayDataset, type Dataset } from '../core/dataset.js';
import type { ScoringBackend } from '../core/scoring.js';
import type { BatchOracle, PassProgress } from '../core/batch.js';
import type { Problem, StructuredModel } from '../core/problem.js';
import { BatchEngine } from './engine.js';
import { addCounters, readCounters, subtractCounters, zeroCounters } from './counters.js';

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
  /**
   * The settings that define the model's objective (see Problem.objective), e.g. a task's model spec: recorded in
   * checkpoints, so that a resume or warm start under other settings is refused.
   */
  objective?: object;
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
    ...(options.objective ? { objective: () => options.objective! } : {}),
    counters: () => addCounters(subtractCounters(readCounters(data.readStats?.()), readAtStart), live),
    ...(model.bounds ? { bounds: model.bounds } : {}),
    ...(batch ? { batch } : {}),
    ...(model.miniBatches ? { miniBatches: true } : {}),
    ...(model.stepCost ? { stepCost: (i: number) => model.stepCost!(input(i), y(i)) } : {}),
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
