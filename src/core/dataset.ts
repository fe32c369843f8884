/**
 * One interface for labelled data (DESIGN: data/ behind one Dataset interface): the solvers, the batched
 * exact pass and the commands see a data set through it, whether it is held in memory or streamed from disk.
 * @module
 */
import { crc32 } from 'node:zlib';
import { check } from './errors.js';

/** Consecutive examples [start, start + inputs.length) of a data set, as one sweep reads them. */
export interface DatasetChunk<X, Y> {
  readonly start: number;
  readonly inputs: readonly X[];
  readonly labels: readonly Y[];
}

/** A labelled data set: inputs X and ground-truth labels Y. */
export interface Dataset<X = unknown, Y = unknown> {
  /** Number of examples. */
  readonly length: number;
  /** Input i. For a streamed set this is a view valid until the next read: copy what you keep. */
  input(i: number): X;
  /** Ground truth i (always in memory). */
  label(i: number): Y;
  /**
   * A sequential sweep over [start, end) in chunks of at most `size` examples (a streamed set reads each record
   * once per sweep; the inputs of a chunk stay valid until the next chunk is requested). Optional: without it,
   * {@link chunksOf} slices `input(i)`.
   */
  chunks?(size: number, start?: number, end?: number): Iterable<DatasetChunk<X, Y>>;
  /** Checksum of the inputs and labels: recognises the training set of a model or checkpoint. */
  fingerprint(): string;
  /** True when inputs are read from disk per access (see `input`). */
  readonly streamed: boolean;
  /** The examples [start, end) as a data set of their own (a view: nothing is copied or read). */
  slice(start: number, end?: number): Dataset<X, Y>;
  /** Read statistics so far (cumulative), for a set streamed from disk: records read, bytes, milliseconds. */
  readStats?(): ReadStats;
}

/** What a streamed data set has read from disk (cumulative). */
export interface ReadStats {
  reads: number;
  bytes: number;
  ms: number;
}

/** Chunks of [start, end) of `data` (its own `chunks` where it has one). */
export function* chunksOf<X, Y>(data: Dataset<X, Y>, size: number, start = 0, end = data.length): Iterable<DatasetChunk<X, Y>> {
  check(Number.isInteger(size) && size >= 1, `chunk size must be a positive integer, got ${size}`);
  if (data.chunks) {
    yield* data.chunks(size, start, end);
    return;
  }
  for (let s = start; s < end; s += size) {
    const e = Math.min(end, s + size);
    const inputs: X[] = [];
    const labels: Y[] = [];
    for (let i = s; i < e; i++) {
      inputs.push(data.input(i));
      labels.push(data.label(i));
    }
    yield { start: s, inputs, labels };
  }
}

/** An in-memory data set over arrays (not copied: do not mutate them while the set is in use). */
export class ArrayDataset<X, Y> implements Dataset<X, Y> {
  readonly streamed = false;
  private memo: string | undefined;

  constructor(
    readonly xs: readonly X[],
    readonly ys: readonly Y[],
  ) {
    check(xs.length === ys.length, `got ${xs.length} inputs but ${ys.length} labels`);
  }

  get length(): number {
    return this.xs.length;
  }

  input(i: number): X {
    return this.xs[i]!;
  }

  label(i: number): Y {
    return this.ys[i]!;
  }

  *chunks(size: number, start = 0, end = this.xs.length): Iterable<DatasetChunk<X, Y>> {
    for (let s = start; s < end; s += size) {
      const e = Math.min(end, s + size);
      yield { start: s, inputs: this.xs.slice(s, e), labels: this.ys.slice(s, e) };
    }
  }

  fingerprint(): string {
    return (this.memo ??= fingerprintExamples(this.xs.length, (i) => this.xs[i], (i) => this.ys[i]));
  }

  slice(start: number, end = this.xs.length): ArrayDataset<X, Y> {
    return new ArrayDataset(this.xs.slice(start, end), this.ys.slice(start, end));
  }
}

/** An in-memory data set over arrays (see {@link ArrayDataset}). */
export function arrayDataset<X, Y>(xs: readonly X[], ys: readonly Y[]): ArrayDataset<X, Y> {
  return new ArrayDataset(xs, ys);
}

/**
 * The inputs and labels of an in-memory data set as arrays (an ArrayDataset's own arrays, else collected from
 * `input`/`label`); a streamed set is refused (its inputs are views into a read buffer).
 */
export function toArrays<X, Y>(data: Dataset<X, Y>): { xs: readonly X[]; ys: readonly Y[] } {
  if (data instanceof ArrayDataset) return data;
  check(!data.streamed, 'a streamed data set cannot be held in memory as arrays: read it in chunks');
  const xs: X[] = [];
  const ys: Y[] = [];
  for (let i = 0; i < data.length; i++) {
    xs.push(data.input(i));
    ys.push(data.label(i));
  }
  return { xs, ys };
}

/**
 * The checksum of in-memory examples: a CRC-32 of every input and label, fed in order. Inputs are typed arrays
 * or plain objects of typed arrays and numbers (sparse rows, sparse sequences, superpixel graphs), fed field by
 * field in key order. Written as `n:crc` (8 hex digits); model files of earlier versions store the same value.
 */
export function fingerprintExamples(n: number, input: (i: number) => unknown, label: (i: number) => unknown): string {
  // Small arrays are staged and fed together: CRC-32 over concatenated pieces equals the chained CRC of each piece,
  // so the value is that of feeding every array on its own, at a fraction of the calls.
  let crc = 0;
  const stage = new Uint8Array(1 << 16);
  let staged = 0;
  const flush = () => {
    crc = crc32(stage.subarray(0, staged), crc) >>> 0;
    staged = 0;
  };
  const feed = (a: ArrayBufferView) => {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    // Large arrays go straight in, and so do empty ones: zlib gives 0 for a view of an empty buffer, whatever the
    // running value, and earlier fingerprints kept that.
    const alone = bytes.length > 1024 || bytes.length === 0;
    if (alone || staged + bytes.length > stage.length) flush();
    if (alone) crc = crc32(bytes, crc) >>> 0;
    else {
      stage.set(bytes, staged);
      staged += bytes.length;
    }
  };
  const number = new Float64Array(1);
  const feedValue = (v: unknown) => {
    if (ArrayBuffer.isView(v)) feed(v);
    else if (typeof v === 'number') {
      number[0] = v;
      feed(number);
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v).sort()) {
        const field = (v as Record<string, unknown>)[key];
        if (ArrayBuffer.isView(field) || typeof field === 'number') feedValue(field);
      }
    }
  };
  for (let i = 0; i < n; i++) {
    feedValue(input(i));
    feedValue(label(i));
  }
  flush();
  return `${n}:${(crc >>> 0).toString(16).padStart(8, '0')}`;
}
