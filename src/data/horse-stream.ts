/**
 * Out-of-core training on a prepared horse folder (issue 6): the records stay in horse.bin (or the part
 * files of a parallel prepare) and every oracle call reads the one it needs with a positional read
 * (fs.readSync on an fd kept open) into a reusable buffer. The typed arrays of the graph handed to the
 * model are views into that buffer (the record is read at byte offset 4 of the buffer, which makes every
 * section of the layout naturally aligned: see src/data/horse.ts), so an oracle call allocates no
 * feature-sized array. What stays in memory per image is its index entry, its ground-truth labels and
 * superpixel areas (about 1.4 KB for 150 superpixels), beside the solver's own per-block state.
 *
 * The streamed problem computes exactly what the in-memory one (modelProblem over HorseDataset.load)
 * computes: the model sees the same numbers in the same order, so a run with the same seed gives the same
 * trace and weights bit for bit (test/horse-stream.test.ts).
 * @module
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { check, FormatError, InputError } from '../core/errors.js';
import { checkSegmentationGraph, withAreas, type SegmentationGraph, type SegmentationLabel } from '../models/segmentation.js';
import type { Dataset, DatasetChunk, ReadStats } from '../core/dataset.js';
import { crc32 } from '../io/model-file.js';
import { horseFingerprint, RECORD_HEADER_BYTES as HEADER, trainingBytes, type HorseDataset, type HorseImageEntry } from './horse.js';

const MAGIC = 0x31525348; // 'HSR1' read as a little-endian u32
const pad4 = (n: number) => (n + 3) & ~3;
/** Byte offset of the record inside a slot buffer: 28 + 4 = 32 puts edges at 4k, areas at 8k, features at 4k. */
const SHIFT = 4;

/** Read statistics of a {@link HorseRecordReader} (cumulative). */
export interface RecordReadStats {
  /** Records read from disk. */
  reads: number;
  /** Requests served by a slot that already held the record. */
  hits: number;
  /** Bytes read (the superpixel map is skipped where not needed). */
  bytes: number;
  /** Milliseconds in readSync (plus building the views). */
  ms: number;
}

interface Slot {
  record: number;
  buf: Buffer;
  graph: SegmentationGraph | undefined;
  labels: Uint8Array | undefined;
  superpixels: Uint16Array | undefined;
  used: number;
}

/**
 * Positional reader of the records of a prepared folder into a few reusable buffers (an LRU of `slots`
 * decoded records, default 2). Graphs it returns are views: valid until `slots` other records were read.
 */
export class HorseRecordReader {
  readonly stats: RecordReadStats = { reads: 0, hits: 0, bytes: 0, ms: 0 };
  private readonly fds = new Map<string, number>();
  private readonly slots: Slot[];
  private clock = 0;
  private readonly maxBytes: number;
  /** CRC-32 of each record's training bytes, taken on its first read (see {@link checksum}). */
  private readonly checksums: Uint32Array;
  private readonly summed: Uint8Array;

  constructor(
    readonly ds: HorseDataset,
    slots = 2,
  ) {
    check(Number.isInteger(slots) && slots >= 1, `slots must be a positive integer, got ${slots}`);
    if (endianness() !== 'LE') throw new InputError('streamed horse records need a little-endian machine (the format is little-endian)');
    let max = HEADER;
    for (const im of ds.meta.images) max = Math.max(max, im.bytes);
    this.maxBytes = max;
    this.checksums = new Uint32Array(ds.meta.images.length);
    this.summed = new Uint8Array(ds.meta.images.length);
    // allocUnsafeSlow: a buffer of its own ArrayBuffer at byte offset 0, so views at SHIFT + k are aligned.
    this.slots = Array.from({ length: slots }, () => ({ record: -1, buf: Buffer.allocUnsafeSlow(max + SHIFT), graph: undefined, labels: undefined, superpixels: undefined, used: 0 }));
  }

  private fd(file: string): number {
    let fd = this.fds.get(file);
    if (fd === undefined) {
      const path = join(this.ds.dir, file);
      fd = openSync(path, 'r');
      // Every record the index places in this file must lie inside it (a truncated file fails here, not mid-run).
      const size = fstatSync(fd).size;
      this.ds.meta.images.forEach((im, k) => {
        if ((im.file ?? 'horse.bin') === file && im.offset + im.bytes > size) {
          closeSync(fd!);
          throw new FormatError(`truncated: record ${k} (${im.name}) ends at byte ${im.offset + im.bytes}, the file has ${size}`, path);
        }
      });
      this.fds.set(file, fd);
    }
    return fd;
  }

  private entry(k: number): HorseImageEntry {
    const im = this.ds.meta.images[k];
    check(im !== undefined, `image index ${k} is outside 0..${this.ds.meta.images.length - 1}`);
    check(Number.isSafeInteger(im.offset) && im.offset >= 0 && Number.isInteger(im.bytes) && im.bytes >= HEADER && im.bytes <= this.maxBytes, `${this.ds.dir}: index entry ${k} (${im.name}) has a bad offset or size`);
    return im;
  }

  /** Reads `bytes` bytes of record k (from its start) into buf at SHIFT; checks the header against the index. */
  private readInto(k: number, buf: Buffer, bytes: number): { N: number; E: number; dU: number; dP: number; H: number; W: number } {
    const im = this.entry(k);
    const file = im.file ?? 'horse.bin';
    const where = `${join(this.ds.dir, file)} record ${k} (${im.name})`;
    const got = readSync(this.fd(file), buf, SHIFT, bytes, im.offset);
    if (got !== bytes) throw new FormatError(`${where}: truncated (read ${got} of ${bytes} bytes)`);
    if (buf.readUInt32LE(SHIFT) !== MAGIC) throw new FormatError(`${where}: not a horse record (bad magic)`);
    const h = (q: number) => buf.readUInt32LE(SHIFT + 4 + 4 * q);
    const [N, E, dU, dP, H, W] = [h(0), h(1), h(2), h(3), h(4), h(5)];
    const total = HEADER + 8 * E + 8 * N + pad4(N) + 4 * N * dU + 4 * E * dP + pad4(2 * H * W);
    if (total !== im.bytes) throw new FormatError(`${where}: the index says ${im.bytes} bytes, the header implies ${total}`);
    if (N !== im.numNodes || E !== im.numEdges || H !== im.height || W !== im.width) throw new FormatError(`${where}: does not match the index (${N} nodes, ${E} edges, ${W}x${H})`);
    if (dU !== this.ds.meta.dUnary || (E > 0 && dP !== this.ds.meta.dPairwise)) throw new FormatError(`${where}: feature dimensions ${dU}+${dP} differ from the index's ${this.ds.meta.dUnary}+${this.ds.meta.dPairwise}`);
    return { N, E, dU, dP, H, W };
  }

  /**
   * The slot holding record k (read if needed). With `withMap` false the superpixel map at the end of the
   * record (about a sixth of it, only needed for overlays) is not read; `superpixels` is then undefined.
   */
  private slotOf(k: number, withMap: boolean): Slot {
    let victim = this.slots[0]!;
    for (const s of this.slots) {
      if (s.record === k && (s.superpixels !== undefined || !withMap)) {
        s.used = ++this.clock;
        this.stats.hits++;
        return s;
      }
      if (s.used < victim.used) victim = s;
    }
    const t0 = performance.now();
    const im = this.entry(k);
    victim.record = -1;
    const mapBytes = pad4(2 * im.height * im.width);
    const bytes = withMap || mapBytes > im.bytes - HEADER ? im.bytes : im.bytes - mapBytes;
    const { N, E, dU, dP, H, W } = this.readInto(k, victim.buf, bytes);
    if (!this.summed[k]) {
      this.checksums[k] = crc32(victim.buf.subarray(SHIFT, SHIFT + trainingBytes(im)));
      this.summed[k] = 1;
    }
    const ab = victim.buf.buffer;
    let off = victim.buf.byteOffset + SHIFT + HEADER;
    const view = <T>(C: { new (b: ArrayBufferLike, o: number, n: number): T }, n: number, bytes: number): T => {
      const v = new C(ab, off, n);
      off += bytes;
      return v;
    };
    const edgeFrom = view(Int32Array, E, 4 * E);
    const edgeTo = view(Int32Array, E, 4 * E);
    const areas = view(Float64Array, N, 8 * N);
    victim.labels = view(Uint8Array, N, pad4(N));
    const unary = view(Float32Array, N * dU, 4 * N * dU);
    const pairwise = view(Float32Array, E * dP, 4 * E * dP);
    victim.superpixels = withMap ? view(Uint16Array, H * W, pad4(2 * H * W)) : undefined;
    victim.graph = { numNodes: N, unary, edgeFrom, edgeTo, pairwise, areas };
    victim.record = k;
    victim.used = ++this.clock;
    this.stats.reads++;
    this.stats.bytes += bytes;
    this.stats.ms += performance.now() - t0;
    return victim;
  }

  /** CRC-32 of record k's training bytes (as HorseDataset.read computes it): taken on its first read, else read now. */
  checksum(k: number): number {
    if (!this.summed[k]) this.slotOf(k, false);
    return this.checksums[k]!;
  }

  /** The graph of record k: views into a slot buffer, valid until `slots` other records were read. */
  graph(k: number): SegmentationGraph {
    return this.slotOf(k, false).graph!;
  }

  /** Ground truth, superpixel map and graph of record k (views, as for {@link graph}). */
  record(k: number): { graph: SegmentationGraph; labels: Uint8Array; superpixels: Uint16Array } {
    const s = this.slotOf(k, true);
    return { graph: s.graph!, labels: s.labels!, superpixels: s.superpixels! };
  }

  /**
   * Labels and areas of record k as fresh arrays (a short read of the record's head: header, edges,
   * areas, labels; the features are not read).
   */
  groundTruth(k: number, scratch: Uint8Array): { labels: Uint8Array; areas: Float64Array } {
    const im = this.entry(k);
    const N = im.numNodes;
    const E = im.numEdges;
    const head = HEADER + 8 * E + 8 * N + N;
    const buf = scratch.length >= head + SHIFT ? Buffer.from(scratch.buffer, scratch.byteOffset, scratch.byteLength) : Buffer.allocUnsafeSlow(head + SHIFT);
    this.readInto(k, buf, head);
    const at = buf.byteOffset + SHIFT + HEADER + 8 * E;
    const areas = new Float64Array(N);
    areas.set(new Float64Array(buf.buffer, at, N));
    const labels = new Uint8Array(N);
    labels.set(new Uint8Array(buf.buffer, at + 8 * N, N));
    return { labels, areas };
  }

  /** Closes the files. */
  close(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

export interface StreamedHorseOptions {
  /** Decoded records kept (LRU); default 2. One suffices for the solvers, which finish a block before the next. */
  slots?: number;
}

/**
 * The labelled images `indices` of a prepared folder as a streamed {@link Dataset}: ground truths (with their
 * areas) are read once into memory, graphs per access. Everything is validated: labels and areas when the set
 * is opened, features (finite, shapes, node ids) the first time each record is read.
 */
export class StreamedHorseSet implements Dataset<SegmentationGraph, SegmentationLabel> {
  readonly streamed = true;
  readonly reader: HorseRecordReader;
  /** Ground truths, areas attached (the loss is area-weighted). */
  readonly ys: SegmentationLabel[];
  private readonly checked: Uint8Array;

  constructor(
    readonly ds: HorseDataset,
    readonly indices: readonly number[],
    options: StreamedHorseOptions = {},
  ) {
    this.reader = new HorseRecordReader(ds, options.slots ?? 2);
    this.checked = new Uint8Array(indices.length);
    const scratch = Buffer.allocUnsafeSlow(1 << 16);
    this.ys = indices.map((k) => {
      const { labels, areas } = this.reader.groundTruth(k, scratch);
      const name = ds.meta.images[k]!.name;
      for (let i = 0; i < labels.length; i++) check(labels[i]! <= 1, () => `${ds.dir} ${name}: label of superpixel ${i} is ${labels[i]} (must be 0 or 1)`);
      for (let i = 0; i < areas.length; i++) check(areas[i]! > 0 && Number.isFinite(areas[i]), () => `${ds.dir} ${name}: area of superpixel ${i} is ${areas[i]} (must be > 0)`);
      return withAreas(labels, areas);
    });
  }

  get length(): number {
    return this.indices.length;
  }

  /** Graph of example i: views into the reader's buffers (see {@link HorseRecordReader.graph}), validated on its first read. */
  input(i: number): SegmentationGraph {
    const k = this.indices[i];
    check(k !== undefined, `example ${i} is outside 0..${this.indices.length - 1}`);
    const g = this.reader.graph(k);
    if (!this.checked[i]) {
      checkSegmentationGraph(g, this.ds.meta.dUnary, this.ds.meta.dPairwise, `${this.ds.dir} ${this.ds.meta.images[k]!.name}`);
      this.checked[i] = 1;
    }
    return g;
  }

  label(i: number): SegmentationLabel {
    return this.ys[i]!;
  }

  /** Chunks of fresh copies of the graphs (read once each, in order; a chunk's inputs outlive the reader's buffers). */
  *chunks(size: number, start = 0, end = this.length): Iterable<DatasetChunk<SegmentationGraph, SegmentationLabel>> {
    for (let s = start; s < end; s += size) {
      const e = Math.min(end, s + size);
      const inputs: SegmentationGraph[] = [];
      for (let i = s; i < e; i++) {
        const g = this.input(i);
        inputs.push({ numNodes: g.numNodes, unary: g.unary.slice(), edgeFrom: g.edgeFrom.slice(), edgeTo: g.edgeTo.slice(), pairwise: g.pairwise.slice(), areas: g.areas.slice() });
      }
      yield { start: s, inputs, labels: this.ys.slice(s, e) };
    }
  }

  /** The reader's statistics so far (shared by the slices of this set): records read, bytes, milliseconds. */
  readStats(): ReadStats {
    const { reads, bytes, ms } = this.reader.stats;
    return { reads, bytes, ms };
  }

  /** The set's fingerprint, the CRC of its records' CRCs (equal to the in-memory one; free for records a pass has read). */
  fingerprint(): string {
    return horseFingerprint(this.indices.map((k) => this.reader.checksum(k)));
  }

  /** A set of the examples [start, end) of this one (sharing the reader). */
  slice(start = 0, end = this.length): StreamedHorseSet {
    const sub = Object.create(StreamedHorseSet.prototype) as StreamedHorseSet;
    const s = Math.max(0, start < 0 ? this.length + start : start);
    const e = Math.min(this.length, end < 0 ? this.length + end : end);
    Object.assign(sub, { streamed: true, ds: this.ds, indices: this.indices.slice(s, e), reader: this.reader, ys: this.ys.slice(s, e), checked: this.checked.slice(s, e) });
    return sub;
  }

  /** Closes the record files of the underlying reader; the set cannot be read afterwards. */
  close(): void {
    this.reader.close();
  }
}

/** Streaming kicks in above this many bytes of records (train + test) unless told otherwise. */
export const STREAM_THRESHOLD_BYTES = 2 ** 30;

/**
 * Whether `horse:DIR` is read out of core: `force` if given (`--stream` / `--in-memory`), else when the records of
 * the images used exceed `STREAM_THRESHOLD_BYTES` (about 700 images of 150 superpixels: HorseSeg-small's 147 stay
 * in memory, the augmented sets stream).
 */
export function shouldStream(ds: HorseDataset, indices: readonly number[], force?: boolean): boolean {
  if (force !== undefined) return force;
  let bytes = 0;
  for (const k of indices) bytes += ds.meta.images[k]!.bytes;
  return bytes > STREAM_THRESHOLD_BYTES;
}
