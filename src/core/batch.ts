/**
 * The types of the batched oracle (DESIGN seam 4): what a model plugs into the batched pass, what the pass
 * returns, and the counters it keeps. No runtime code: src/core and the models import these without a cycle.
 * @module
 */
import type { SparseVector } from './vector.js';

/**
 * The examples a call works on: `indices[0 .. count)`, positions in the prepared batch (any order, repeats
 * allowed). `null` in a call means every example of the batch.
 */
export interface Items {
  readonly indices: Int32Array;
  readonly count: number;
}

/**
 * A model's batched oracle over a prepared set of examples, in three stages that the engine
 * (src/engine/engine.ts) times and drives: `score` the potentials at w, `decode` them on native threads,
 * and `recheck` every H_i in float64 from the decoded labels. Data that is the same every pass (features,
 * ground truth, offsets) is prepared once when the decoder is made (`StructuredModel.prepareBatch`); a call
 * allocates nothing in steady state. Per-example outputs use the batch's own layout (`hinge[i]` for example
 * i), so a call on a subset writes only its items' entries.
 *
 * The engine checks w (a Float64Array of the model's dimension) before it calls a stage, and calls them in
 * order: score, decode, then recheck (loss-augmented) or label (either).
 */
export interface BatchDecoder<Y> {
  /** Number of prepared examples. */
  readonly size: number;
  /**
   * Potentials of the items at w into the decoder's buffers: loss-augmented (2013 paper, eq. 4: the oracle's
   * L(y_i, y) + <w, phi(x_i, y)>) unless `plain` (the prediction's <w, phi(x_i, y)>). A whole pass (items
   * null) scores with the backend the decoder was prepared with (float32 on gpu.js), or the model's native
   * scorer; items always score with the native scorer (float64), which scores any subset without touching
   * the rest.
   */
  score(w: Float64Array, items: Items | null, plain: boolean): void;
  /** The argmax labels of what `score` left, on native threads. */
  decode(w: Float64Array, items: Items | null): void;
  /**
   * hinge[i] = L(y_i, y) - <w, psi_i(y)> of every item's decoded label y, in float64 with the per-object
   * path's arithmetic (so the batched and per-object H are bit-identical for the same label). A float32
   * backend only proposes labels: the engine replaces a label that rechecks below 0 by the ground truth.
   */
  recheck(w: Float64Array, items: Items | null, hinge: Float64Array): void;
  /**
   * Optional: the loss-augmented score, decode and recheck of the items at (a copy of) w on a native thread of
   * their own; returns at once, so that the caller can go on (and change w) while it runs. `threads` is every
   * thread allowed, the caller's included: a decode that is short next to the caller's work leaves it one.
   * `finishBackground` waits for it, writes the items' hinges as `recheck` would, and returns the milliseconds
   * [scoring, decoding, checking]; no other stage may be called in between. The results equal the three
   * stages' at that w.
   */
  decodeInBackground?(w: Float64Array, items: Items, threads: number): void;
  /** The second half of {@link decodeInBackground}: waits; the items' hinges, and milliseconds [scoring, decoding, checking]. */
  finishBackground?(hinge: Float64Array): [number, number, number];
  /**
   * psi = phi(x_i, y_i) - phi(x_i, y) of the q-th item of the last background decode and its label y, as
   * StructuredModel.psi gives it (the same entries in the same order), computed in the background too; a view
   * valid until the next finishBackground.
   */
  backgroundPsi?(q: number): SparseVector;
  /**
   * Optional: frees the decoder's native memory and lets go of the arrays it holds at once (later calls throw). The
   * engine releases the decoder of each chunk of a streamed set when the chunk is done: the garbage collector would
   * free it only once the event loop turns, which a synchronous run does not let happen until it returns.
   */
  release?(): void;
  /**
   * Optional: the prepared native batch of a built-in model (DenseChainBatch, SparseChainBatch, MulticlassBatch) on
   * which the native step loop runs whole block steps (src/solvers/native-steps.ts); absent for models decoded in
   * TypeScript.
   */
  readonly stepModel?: unknown;
  /** The decoded label of example i (a fresh object the caller may keep). */
  label(i: number): Y;
  /**
   * Optional, for approximate decoders: the slack of example i's last loss-augmented decode (src/core/approximate.ts):
   * 0 when its label is proven the maximiser, else how far the maximum may lie above it (Infinity: no bound).
   * Absent: every decode is exact.
   */
  oracleSlack?(i: number): number;
  /** The ground truth of example i (a fresh object the caller may keep). */
  truth(i: number): Y;
}

/**
 * The older whole-pass form of a model's batched pass: writes hinge[i] = H_i(w) for every example and,
 * when asked, the argmax labels and the plain predictions. The engine adapts it (a subset is then prepared
 * afresh per call); new models return a {@link BatchDecoder}.
 */
export type BatchPass<Y> = (w: Float64Array, hinge: Float64Array, labels?: Y[], predictions?: Y[]) => void;

/**
 * Counters of oracle work, cumulative (all numbers; milliseconds of wall time). The batched pass fills the
 * scoring, decoding and checking times; models that time their per-object oracle (segmentation: potentials
 * vs graph cut) add theirs; a data set streamed from disk reports its reads.
 */
export interface OracleCounters {
  /** Loss-augmented decodings: examples of batched passes and subset calls, plus timed per-object oracle calls. */
  examples: number;
  /** Plain decodings (predictions) made by batched passes. */
  predictions: number;
  /** Milliseconds computing potentials (scoring backend or native scorer; the loss augmentation included). */
  scoringMs: number;
  /** Milliseconds decoding (Viterbi, argmax, graph cuts). */
  decodingMs: number;
  /** Milliseconds rechecking H_i in float64 from the decoded labels. */
  checkingMs: number;
  /** Milliseconds reading examples from disk (streamed data sets). */
  readingMs: number;
  /** Records read from disk. */
  recordsRead: number;
  /** Bytes read from disk. */
  bytesRead: number;
}

/** Progress of one exact pass, after each chunk: examples done of the total, and the pass's counters so far. */
export interface PassProgress extends OracleCounters {
  done: number;
  total: number;
}

/** Where an exact pass writes: hinge[i] = H_i(w) (required), the argmax labels and the plain predictions when given. */
export interface PassOutput<Y> {
  hinge: Float64Array;
  /** slack[i] of example i's decode (BatchDecoder.oracleSlack; 0 for exact decoders), when given. */
  slack?: Float64Array;
  labels?: Y[];
  predictions?: Y[];
}

/**
 * The batched oracle of a Problem (src/engine): the exact pass chunk by chunk, and any subset of blocks
 * decoded together.
 */
export interface BatchOracle<Y> {
  /**
   * The exact pass at w over every block, as a generator that yields after each chunk (so a caller can
   * draw progress, yield to the event loop, or stop between chunks by not resuming it). Predictions, when
   * asked, are the argmax of the backend's scores (with float32 scores they may differ from a float64
   * decode on near-ties).
   */
  pass(w: Float64Array, out: PassOutput<Y>): Generator<PassProgress, void, void>;
  /**
   * Loss-augmented decoding of blocks[0 .. count) at w, together on native threads: labels[q] receives
   * block blocks[q]'s argmax label and hinge[q] its H(w) (float64, >= 0). No allocation in steady state
   * beyond the returned labels (in-memory sets; a streamed set reads the blocks first).
   */
  decodeSubset(w: Float64Array, blocks: Int32Array, count: number, labels: Y[], hinge: Float64Array): void;
  /**
   * Optional: decodeSubset in two halves, so that the caller can work (and change w) while the blocks are
   * decoded. `startSubset` begins the decode of blocks[0 .. count) at w, on a native thread of its own when the
   * model's decoder can ({@link BatchDecoder.decodeInBackground}) and more than one thread is allowed, else at
   * once; `finishSubset` waits and writes what decodeSubset would have written at that w. One subset at a time,
   * and no other call in between.
   */
  startSubset?(w: Float64Array, blocks: Int32Array, count: number): void;
  /**
   * The second half of {@link startSubset}: waits, then labels[q] and hinge[q] as decodeSubset writes them, and
   * psis[q] = the model's psi of labels[q] when the decoder computed it in the background (else undefined; a
   * view valid until the next finishSubset).
   */
  finishSubset?(labels: Y[], hinge: Float64Array, psis: (SparseVector | undefined)[]): void;
  /** Optional: whether startSubset decodes in the background (given more than one thread): an in-memory set whose model's decoder can. */
  decodesInBackground?(): boolean;
  /** Optional: the decoder's {@link BatchDecoder.stepModel} for an in-memory set (prepared on first use), else undefined. */
  stepModel?(): unknown;
}
