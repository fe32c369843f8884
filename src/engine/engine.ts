/**
 * The batched-pass skeleton (DESIGN seam 4): score -> decode on native threads -> float64 recheck, the same
 * protocol for every model, which plugs in its scorer and decoder as a {@link BatchDecoder}. The engine
 * prepares a data set once (an in-memory set), or one chunk of records at a time (a set streamed from disk),
 * runs exact passes chunk by chunk as generators (progress per chunk, a caller may stop between chunks),
 * decodes any subset of blocks together, and counts its work in {@link OracleCounters}.
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { ScoringBackend } from '../core/scoring.js';
import { check, InputError } from '../core/errors.js';
import { arrayDataset, chunksOf, toArrays, type Dataset } from '../core/dataset.js';
import type { SparseVector } from '../core/vector.js';
import { threads } from '../native/threads.js';
import { addCounters, readCounters, subtractCounters, zeroCounters } from './counters.js';
import type { BatchDecoder, BatchOracle, BatchPass, Items, OracleCounters, PassOutput, PassProgress } from '../core/batch.js';

/** psi of the ground truth: 0. */
const NO_PSI: SparseVector = { indices: new Int32Array(0), values: new Float64Array(0), nnz: 0 };

/** What the engine needs of a model ({@link StructuredModel} has it). */
export interface BatchModel<X, Y> {
  readonly dim: number;
  /** Prepares examples once: a staged {@link BatchDecoder}, or the older whole-pass {@link BatchPass} (adapted). */
  prepareBatch?(xs: readonly X[], ys: readonly Y[], scoring?: ScoringBackend): BatchDecoder<Y> | BatchPass<Y>;
}

/** Settings of a {@link BatchEngine}. */
export interface EngineOptions {
  /** Scoring backend handed to the model's prepareBatch (the model's native scorer when omitted). */
  scoring?: ScoringBackend;
  /**
   * Examples per chunk of a pass: records read and prepared at once for a streamed set (default 128: about
   * 190 MB of HorseSeg-size features), examples between two progress reports for an in-memory set
   * (default 4096; one chunk with a non-native scoring backend or a whole-pass decoder). Results do not
   * depend on it.
   */
  passChunk?: number;
  /** Where the engine adds its counters as it works (besides each pass's own). */
  counters?: OracleCounters;
}

/**
 * The batched oracle of a model over a data set. An in-memory set is prepared on first use and kept; a
 * streamed set is prepared chunk by chunk in every pass (memory holds one chunk of inputs whatever the set's
 * size), and its subsets are read first. Results equal the per-object path's H bit for bit whenever the
 * labels agree, and do not depend on chunking or threads: every example is decoded on its own.
 */
export class BatchEngine<X, Y> implements BatchOracle<Y> {
  private readonly chunk: number;
  private prepared: { decoder: BatchDecoder<Y>; chunks: Items[] | null } | undefined;
  private readonly scratch: Float64Array;
  private readonly subset: { indices: Int32Array; count: number } = { indices: new Int32Array(0), count: 0 };
  private readonly subsetOut: { hinge: Float64Array; labels: Y[] };
  /** The subset between startSubset and finishSubset: its blocks, and its results when decoded at once. */
  private started: { items: Items; background: boolean; labels: Y[]; hinge: Float64Array } | undefined;

  constructor(
    private readonly model: BatchModel<X, Y> & { prepareBatch: NonNullable<BatchModel<X, Y>['prepareBatch']> },
    private readonly data: Dataset<X, Y>,
    private readonly options: EngineOptions = {},
  ) {
    this.chunk = options.passChunk ?? (data.streamed ? 128 : 4096);
    check(Number.isInteger(this.chunk) && this.chunk >= 1, `passChunk must be a positive integer, got ${this.chunk}`);
    this.scratch = new Float64Array(data.streamed ? 0 : data.length);
    this.subsetOut = { hinge: this.scratch, labels: new Array<Y>(this.scratch.length) };
  }

  *pass(w: Float64Array, out: PassOutput<Y>): Generator<PassProgress, void, void> {
    this.checkW(w);
    this.checkIdle();
    const n = this.data.length;
    check(out.hinge instanceof Float64Array && out.hinge.length === n, `hinge must be a Float64Array of length ${n}`);
    const counted = zeroCounters();
    const progress = (done: number): PassProgress => ({ done, total: n, ...counted });
    if (!this.data.streamed) {
      const { decoder, chunks } = this.inMemory();
      for (const items of chunks ?? [null]) {
        this.run(decoder, w, items, out.hinge, out, 0, counted);
        yield progress(items ? items.indices[items.count - 1]! + 1 : n);
      }
      return;
    }
    const stats = this.data.readStats;
    let before = readCounters(stats?.call(this.data));
    const iterator = chunksOf(this.data, this.chunk)[Symbol.iterator]();
    for (;;) {
      const next = iterator.next();
      const after = readCounters(stats?.call(this.data));
      addCounters(counted, subtractCounters(after, before));
      if (next.done) break;
      const { start, inputs, labels } = next.value;
      const decoder = this.decoderOf(inputs, labels);
      try {
        this.run(decoder, w, null, out.hinge.subarray(start, start + inputs.length), out, start, counted);
      } finally {
        decoder.release?.();
      }
      yield progress(start + inputs.length);
      before = readCounters(stats?.call(this.data));
    }
  }

  decodeSubset(w: Float64Array, blocks: Int32Array, count: number, labels: Y[], hinge: Float64Array): void {
    this.checkW(w);
    this.checkIdle();
    check(hinge.length >= count, `hinge needs ${count} entries`);
    this.checkBlocks(blocks, count);
    if (count === 0) return;
    const counted = zeroCounters();
    if (!this.data.streamed) {
      const { decoder } = this.inMemory();
      this.subset.indices = blocks;
      this.subset.count = count;
      const out = this.subsetOut;
      this.run(decoder, w, this.subset, this.scratch, out, 0, counted);
      for (let q = 0; q < count; q++) {
        const i = blocks[q]!;
        labels[q] = out.labels[i]!;
        hinge[q] = this.scratch[i]!;
      }
      return;
    }
    // A streamed set: read the blocks (fresh copies), prepare them together, decode them together.
    const xs: X[] = [];
    const ys: Y[] = [];
    for (let q = 0; q < count; q++) {
      for (const c of chunksOf(this.data, 1, blocks[q]!, blocks[q]! + 1)) {
        xs.push(c.inputs[0]!);
        ys.push(c.labels[0]!);
      }
    }
    const part = new Float64Array(count);
    const out = { hinge: part, labels: [] as Y[] };
    const decoder = this.decoderOf(xs, ys);
    try {
      this.run(decoder, w, null, part, out, 0, counted);
    } finally {
      decoder.release?.();
    }
    for (let q = 0; q < count; q++) {
      labels[q] = out.labels[q]!;
      hinge[q] = part[q]!;
    }
  }

  /** The decoder's native step model (an in-memory set only: a streamed one is prepared a chunk at a time). */
  stepModel(): unknown {
    return this.data.streamed ? undefined : this.inMemory().decoder.stepModel;
  }

  /** Whether startSubset decodes in the background (given more than one thread). */
  decodesInBackground(): boolean {
    if (this.data.streamed) return false;
    const { decoder } = this.inMemory();
    return decoder.decodeInBackground !== undefined && decoder.finishBackground !== undefined;
  }

  /** Starts decoding blocks[0 .. count) at w: in the background where the decoder can, else at once (BatchOracle.startSubset). */
  startSubset(w: Float64Array, blocks: Int32Array, count: number): void {
    this.checkIdle();
    this.checkW(w);
    this.checkBlocks(blocks, count);
    const indices = Int32Array.from(blocks.subarray(0, count));
    const started = { items: { indices, count }, background: false, labels: new Array<Y>(count), hinge: new Float64Array(count) };
    // The JavaScript thread goes on with its own work meanwhile; the decoder picks how many of the threads to take.
    const allowed = threads();
    if (count > 0 && allowed > 1 && this.decodesInBackground()) {
      this.inMemory().decoder.decodeInBackground!(w, started.items, allowed);
      started.background = true;
    } else this.decodeSubset(w, indices, count, started.labels, started.hinge);
    this.started = started;
  }

  /** Waits for the subset of {@link startSubset} and writes what decodeSubset would have at its w. */
  finishSubset(labels: Y[], hinge: Float64Array, psis: (SparseVector | undefined)[]): void {
    const started = this.started;
    check(started !== undefined, 'no subset is being decoded (startSubset first)');
    this.started = undefined;
    const { indices, count } = started.items;
    if (!started.background) {
      for (let q = 0; q < count; q++) {
        labels[q] = started.labels[q]!;
        hinge[q] = started.hinge[q]!;
        psis[q] = undefined;
      }
      return;
    }
    const { decoder } = this.inMemory();
    const [scoringMs, decodingMs, checkingMs] = decoder.finishBackground!(this.scratch);
    // A label collect replaces by the ground truth (H < 0) has psi 0.
    for (let q = 0; q < count; q++) psis[q] = this.scratch[indices[q]!]! < 0 ? NO_PSI : decoder.backgroundPsi?.(q);
    const out = this.subsetOut;
    this.collect(decoder, started.items, this.scratch, out, 0);
    for (let q = 0; q < count; q++) {
      labels[q] = out.labels[indices[q]!]!;
      hinge[q] = this.scratch[indices[q]!]!;
    }
    this.count({ ...zeroCounters(), scoringMs, decodingMs, checkingMs, examples: count });
  }

  /**
   * One stage protocol on a prepared decoder: predictions first when asked (plain scores), then the
   * loss-augmented decode and the float64 recheck. `hinge` is in the decoder's layout; labels and
   * predictions go to out at `base + i` (see collect).
   */
  private run(decoder: BatchDecoder<Y>, w: Float64Array, items: Items | null, hinge: Float64Array, out: PassOutput<Y>, base: number, counted: OracleCounters): void {
    const m = items ? items.count : decoder.size;
    const at = (q: number) => (items ? items.indices[q]! : q);
    const c = zeroCounters();
    let t0 = performance.now();
    if (out.predictions) {
      decoder.score(w, items, true);
      const t1 = performance.now();
      decoder.decode(w, items);
      const t2 = performance.now();
      for (let q = 0; q < m; q++) out.predictions[base + at(q)] = decoder.label(at(q));
      c.scoringMs += t1 - t0;
      c.decodingMs += t2 - t1;
      c.predictions += m;
      t0 = performance.now();
    }
    decoder.score(w, items, false);
    const t1 = performance.now();
    decoder.decode(w, items);
    const t2 = performance.now();
    decoder.recheck(w, items, hinge);
    const t3 = performance.now();
    this.collect(decoder, items, hinge, out, base);
    if (out.slack) for (let q = 0; q < m; q++) out.slack[base + at(q)] = decoder.oracleSlack?.(at(q)) ?? 0;
    c.scoringMs += t1 - t0;
    c.decodingMs += t2 - t1;
    c.checkingMs += t3 - t2;
    c.examples += m;
    addCounters(counted, c);
    this.count(c);
  }

  /**
   * The labels of the items after a recheck: a label that rechecks below 0 (a float32 near-tie, or rounding)
   * is replaced by the ground truth, whose H is exactly 0.
   */
  private collect(decoder: BatchDecoder<Y>, items: Items | null, hinge: Float64Array, out: PassOutput<Y>, base: number): void {
    const m = items ? items.count : decoder.size;
    for (let q = 0; q < m; q++) {
      const i = items ? items.indices[q]! : q;
      if (hinge[i]! < 0) {
        hinge[i] = 0;
        if (out.labels) out.labels[base + i] = decoder.truth(i);
      } else if (out.labels) out.labels[base + i] = decoder.label(i);
    }
  }

  private count(c: OracleCounters): void {
    if (this.options.counters) addCounters(this.options.counters, c);
  }

  /** The in-memory set, prepared once, with its chunks (null: one chunk, or a whole-pass decoder). */
  private inMemory(): { decoder: BatchDecoder<Y>; chunks: Items[] | null } {
    if (this.prepared) return this.prepared;
    const { xs, ys } = toArrays(this.data);
    const decoder = this.decoderOf(xs, ys);
    const n = xs.length;
    // Chunks are item lists: a whole-pass decoder takes none, and a non-native scoring backend scores whole
    // passes only (items go to the model's native scorer), so those passes run in one chunk.
    const scoring = this.options.scoring;
    let chunks: Items[] | null = null;
    if (n > this.chunk && !(decoder instanceof WholePassDecoder) && !(scoring && scoring.name !== 'native')) {
      chunks = [];
      for (let s = 0; s < n; s += this.chunk) {
        const indices = Int32Array.from({ length: Math.min(n, s + this.chunk) - s }, (_, k) => s + k);
        chunks.push({ indices, count: indices.length });
      }
    }
    return (this.prepared = { decoder, chunks });
  }

  private decoderOf(xs: readonly X[], ys: readonly Y[]): BatchDecoder<Y> {
    const prepared = this.model.prepareBatch(xs, ys, this.options.scoring);
    return typeof prepared === 'function' ? new WholePassDecoder(this.model, xs, ys, this.options.scoring, prepared) : prepared;
  }

  private checkIdle(): void {
    check(this.started === undefined, 'a subset is being decoded (finishSubset first)');
  }

  private checkBlocks(blocks: Int32Array, count: number): void {
    const n = this.data.length;
    check(Number.isInteger(count) && count >= 0 && count <= blocks.length, `count must be an integer in 0..${blocks.length}, got ${count}`);
    for (let q = 0; q < count; q++) {
      const i = blocks[q]!;
      if (!(Number.isInteger(i) && i >= 0 && i < n)) throw new InputError(`block ${i} is outside 0..${n - 1}`);
    }
  }

  private checkW(w: Float64Array): void {
    if (!(w instanceof Float64Array) || w.length !== this.model.dim) throw new InputError(`w must be a Float64Array of length ${this.model.dim}`);
  }
}

/**
 * A {@link BatchDecoder} over a model's older whole-pass {@link BatchPass}: `decode` runs the pass (which
 * scores, decodes and rechecks at once), `recheck` hands out its hinges. A plain decode runs the pass with
 * predictions, which also leaves the loss-augmented answers for the decode that follows at the same w.
 * A subset is prepared afresh per call.
 */
class WholePassDecoder<X, Y> implements BatchDecoder<Y> {
  readonly size: number;
  private readonly hinge: Float64Array;
  private readonly labels: Y[] = [];
  private readonly predictions: Y[] = [];
  private plain = false;
  private ready: Float64Array | undefined;

  constructor(
    private readonly model: { prepareBatch: NonNullable<BatchModel<X, Y>['prepareBatch']> },
    private readonly xs: readonly X[],
    private readonly ys: readonly Y[],
    private readonly scoring: ScoringBackend | undefined,
    private readonly whole: BatchPass<Y>,
  ) {
    this.size = xs.length;
    this.hinge = new Float64Array(xs.length);
  }

  score(_w: Float64Array, _items: Items | null, plain: boolean): void {
    this.plain = plain;
  }

  decode(w: Float64Array, items: Items | null): void {
    if (items === null) {
      if (this.plain) this.whole(w, this.hinge, this.labels, this.predictions);
      else if (this.ready !== w) this.whole(w, this.hinge, this.labels);
      this.ready = this.plain ? w : undefined;
      return;
    }
    const at = Array.from({ length: items.count }, (_, q) => items.indices[q]!);
    const pass = this.model.prepareBatch(at.map((i) => this.xs[i]!), at.map((i) => this.ys[i]!), this.scoring) as BatchPass<Y>;
    const hinge = new Float64Array(at.length);
    const labels: Y[] = [];
    const predictions: Y[] = [];
    pass(w, hinge, labels, this.plain ? predictions : undefined);
    at.forEach((i, q) => {
      this.hinge[i] = hinge[q]!;
      this.labels[i] = labels[q]!;
      if (this.plain) this.predictions[i] = predictions[q]!;
    });
  }

  recheck(_w: Float64Array, items: Items | null, hinge: Float64Array): void {
    if (items === null) hinge.set(this.hinge);
    else for (let q = 0; q < items.count; q++) hinge[items.indices[q]!] = this.hinge[items.indices[q]!]!;
  }

  label(i: number): Y {
    return (this.plain ? this.predictions : this.labels)[i]!;
  }

  truth(i: number): Y {
    return this.ys[i]!;
  }
}

/**
 * A model's batched pass over arrays as one function (the {@link BatchPass} form): prepared once, then each
 * call writes hinge[i] = H_i(w) and, when given, the argmax labels and the plain predictions.
 */
export function preparedPass<X, Y>(model: BatchModel<X, Y> & { prepareBatch: NonNullable<BatchModel<X, Y>['prepareBatch']> }, xs: readonly X[], ys: readonly Y[], scoring?: ScoringBackend): BatchPass<Y> {
  const engine = new BatchEngine(model, arrayDataset(xs, ys), scoring ? { scoring } : {});
  return (w, hinge, labels, predictions) => {
    for (const _ of engine.pass(w, { hinge, ...(labels ? { labels } : {}), ...(predictions ? { predictions } : {}) }));
  };
}
