import { check, InputError } from '../core/errors.js';
import type { SparseVector } from '../core/vector.js';
import { native, type NativeMulticlassBatch, type NativeSparseBlocks } from '../native/addon.js';
import { threads } from '../native/threads.js';

/**
 * Storage of the per-block primal vectors w_i of block-coordinate Frank-Wolfe, with the few operations a
 * block step needs. Dense storage (n x d, native SIMD kernels) suits OCR-sized problems; sparse storage keeps
 * only the coordinates each block has touched, for huge sparse feature maps (CoNLL: d = 1.6M, n = 8,936),
 * where every w_i is a combination of a few sparse psi vectors.
 */
export interface BlockStorage {
  readonly kind: 'dense' | 'sparse' | 'classes';
  /** out[0] = <w_i, w>, out[1] = ||w_i||^2, out[2] = <w_i, psi> (psi may be empty). */
  stats(i: number, w: Float64Array, psi: SparseVector, out: Float64Array): void;
  /** w_i <- (1 - gamma) w_i + gamma * scale * psi, w moves by the same difference; wAvg <- (1-rho) wAvg + rho w if given. */
  update(i: number, w: Float64Array, wAvg: Float64Array | null, psi: SparseVector, gamma: number, scale: number, rho: number): void;
  /** w_i += scale * v and w += scale * v. */
  addSparse(i: number, w: Float64Array, v: SparseVector, scale: number): void;
  /** <w_i, v> for a dense v. */
  dot(i: number, v: Float64Array): number;
  /** out[q] = <w_{blocks[q]}, v> for q < count (dense storage: on native threads, the same on any number of them). */
  dots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): void;
  /**
   * `dots` at v as it is now, taken in the background where the storage can (dense: on the native background
   * queue, which also brings the blocks into the shared cache for their steps); call the returned function
   * before reading out. Until then those blocks must not change (v may).
   */
  startDots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): () => void;
  /** Replaces w_i by `values` (a dense d-vector) and moves w by the difference. */
  replace(i: number, w: Float64Array, values: Float64Array): void;
  /** Writes w_i densely into out (length d). */
  read(i: number, out: Float64Array): void;
  /** w = sum_i w_i. */
  sumInto(w: Float64Array): void;
  /** Multiplies every w_i by s. */
  scaleAll(s: number): void;
  /** Stored numbers (for memory reports). */
  readonly storedValues: number;
  /** Checkpoint arrays, and back. */
  save(): Record<string, Float64Array | Int32Array>;
  load(arrays: Record<string, Float64Array | Int32Array | undefined>): void;
}

/**
 * Dense n x d storage with the native kernels of native/solver/block_update: long blocks are swept in chunks on
 * up to `threads` threads. `chunkedStats` takes the dot products per chunk (the same on any number of threads;
 * mini-batch runs), otherwise in one sweep (the sequential engine's arithmetic).
 */
export class DenseBlocks implements BlockStorage {
  readonly kind = 'dense';
  /** The n x d rows (the native step loop works on this array). */
  readonly data: Float64Array;

  constructor(
    private readonly n: number,
    private readonly d: number,
    private readonly sweeps: { chunkedStats: boolean; threads: number } = { chunkedStats: false, threads: 1 },
  ) {
    this.data = new Float64Array(n * d);
  }

  private block(i: number): Float64Array {
    return this.data.subarray(i * this.d, (i + 1) * this.d);
  }

  stats(i: number, w: Float64Array, psi: SparseVector, out: Float64Array): void {
    native.blockStats(this.block(i), w, psi.indices, psi.values, psi.nnz, out, this.sweeps.chunkedStats, this.sweeps.threads);
  }

  update(i: number, w: Float64Array, wAvg: Float64Array | null, psi: SparseVector, gamma: number, scale: number, rho: number): void {
    native.blockUpdate(this.block(i), w, wAvg, psi.indices, psi.values, psi.nnz, gamma, scale, rho, this.sweeps.threads);
  }

  addSparse(i: number, w: Float64Array, v: SparseVector, scale: number): void {
    const wi = this.block(i);
    for (let q = 0; q < v.nnz; q++) {
      const j = v.indices[q]!;
      const delta = scale * v.values[q]!;
      wi[j]! += delta;
      w[j]! += delta;
    }
  }

  dot(i: number, v: Float64Array): number {
    const o = i * this.d;
    let s = 0;
    for (let j = 0; j < this.d; j++) s += this.data[o + j]! * v[j]!;
    return s;
  }

  dots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): void {
    native.blockDots(this.data, blocks, count, v, out, this.sweeps.threads);
  }

  startDots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): () => void {
    const ticket = native.blockDots(this.data, blocks, count, v, out, 1, true);
    return () => native.waitBackground(ticket);
  }

  replace(i: number, w: Float64Array, values: Float64Array): void {
    const wi = this.block(i);
    for (let j = 0; j < this.d; j++) {
      w[j]! += values[j]! - wi[j]!;
      wi[j] = values[j]!;
    }
  }

  read(i: number, out: Float64Array): void {
    out.set(this.block(i));
  }

  sumInto(w: Float64Array): void {
    w.fill(0);
    for (let i = 0; i < this.n; i++) for (let j = 0, o = i * this.d; j < this.d; j++) w[j]! += this.data[o + j]!;
  }

  scaleAll(s: number): void {
    for (let j = 0; j < this.data.length; j++) this.data[j] = s * this.data[j]!;
  }

  get storedValues(): number {
    return this.data.length;
  }

  save(): Record<string, Float64Array> {
    return { wBlocks: this.data };
  }

  load(arrays: Record<string, Float64Array | Int32Array | undefined>): void {
    const a = arrays.wBlocks;
    check(a instanceof Float64Array && a.length === this.data.length, "checkpoint array 'wBlocks' is missing or has the wrong length");
    this.data.set(a);
  }
}

/**
 * Sparse storage: block i keeps (indices, values) of the coordinates it has touched, in the order first touched, in
 * native memory (native/solver/block_store.h: the native step loop works on the same object). Each operation costs
 * O(nnz(w_i) + nnz(psi)), independent of d. Averaging (O(d) per step) is not supported.
 */
export class SparseBlocks implements BlockStorage {
  readonly kind = 'sparse';
  /** The native store. */
  readonly store: NativeSparseBlocks;

  constructor(
    private readonly n: number,
    d: number,
  ) {
    this.store = new native.SparseBlocks({ n, d });
  }

  stats(i: number, w: Float64Array, psi: SparseVector, out: Float64Array): void {
    this.store.stats(i, w, psi.indices, psi.values, psi.nnz, out);
  }

  update(i: number, w: Float64Array, wAvg: Float64Array | null, psi: SparseVector, gamma: number, scale: number, _rho: number): void {
    check(wAvg === null, 'sparse block storage does not support averaging');
    this.store.update(i, w, psi.indices, psi.values, psi.nnz, gamma, scale);
  }

  addSparse(i: number, w: Float64Array, v: SparseVector, scale: number): void {
    this.store.addSparse(i, w, v.indices, v.values, v.nnz, scale);
  }

  dot(i: number, v: Float64Array): number {
    return this.store.dot(i, v);
  }

  dots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): void {
    for (let q = 0; q < count; q++) out[q] = this.dot(blocks[q]!, v);
  }

  startDots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): () => void {
    this.dots(blocks, count, v, out);
    return () => {};
  }

  replace(i: number, w: Float64Array, values: Float64Array): void {
    this.store.replace(i, w, values);
  }

  read(i: number, out: Float64Array): void {
    this.store.read(i, out);
  }

  sumInto(w: Float64Array): void {
    this.store.sumInto(w);
  }

  scaleAll(s: number): void {
    this.store.scaleAll(s);
  }

  get storedValues(): number {
    return this.store.stored;
  }

  save(): Record<string, Float64Array | Int32Array> {
    return this.store.save();
  }

  load(arrays: Record<string, Float64Array | Int32Array | undefined>): void {
    const { blockPtr, blockIdx, blockVal } = arrays;
    check(blockPtr instanceof Int32Array && blockPtr.length === this.n + 1 && blockIdx instanceof Int32Array && blockVal instanceof Float64Array && blockIdx.length === blockVal.length,
      'checkpoint has no valid sparse blocks (blockPtr, blockIdx, blockVal)');
    try {
      this.store.load({ blockPtr, blockIdx, blockVal });
    } catch (e) {
      throw new InputError(`checkpoint has no valid sparse blocks: ${(e as Error).message}`);
    }
  }
}

/**
 * The blocks of exact multiclass steps (step 'exact' in the native loop): the classes' dual weights alpha_i (n x K,
 * each row on the simplex, starting at the ground truth); w_i = (e_{y_i} - alpha_i) (x) x_i / (lambda n) is implied,
 * so nothing of size n x d is kept. Products and sums run natively over the rows (MulticlassBatch.dualDots/dualSum).
 * Only the native loop steps on them.
 */
export class ClassDualBlocks implements BlockStorage {
  readonly kind = 'classes';
  readonly alpha: Float64Array;
  private readonly one = new Int32Array(1);
  private readonly allOut: Float64Array;

  constructor(
    n: number,
    private readonly K: number,
    truth: (i: number) => number,
    private readonly batch: NativeMulticlassBatch,
    /** 1 / (lambda n). */
    private readonly scale: number,
  ) {
    this.alpha = new Float64Array(n * K);
    for (let i = 0; i < n; i++) this.alpha[i * K + truth(i)] = 1;
    this.allOut = new Float64Array(n);
  }

  stats(): void {
    throw new InputError('exact multiclass blocks take no FW steps');
  }

  update(): void {
    throw new InputError('exact multiclass blocks take no FW steps');
  }

  addSparse(): void {
    throw new InputError('exact multiclass blocks take no FW steps');
  }

  dot(i: number, v: Float64Array): number {
    this.one[0] = i;
    this.batch.dualDots({ alpha: this.alpha, scale: this.scale, w: v, out: this.allOut, items: this.one, threads: 1 });
    return this.allOut[i]!;
  }

  dots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): void {
    this.batch.dualDots({ alpha: this.alpha, scale: this.scale, w: v, out: this.allOut, items: blocks, count, threads: threads() });
    for (let q = 0; q < count; q++) out[q] = this.allOut[blocks[q]!]!;
  }

  startDots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): () => void {
    this.dots(blocks, count, v, out);
    return () => {};
  }

  /** <w_i, v> of every block at once. */
  dotsAll(v: Float64Array, out: Float64Array): void {
    this.batch.dualDots({ alpha: this.alpha, scale: this.scale, w: v, out, threads: threads() });
  }

  /** alpha_i = delta(label): w_i = psi_i(label)/(lambda n). */
  setCorner(i: number, label: number): void {
    this.alpha.fill(0, i * this.K, (i + 1) * this.K);
    this.alpha[i * this.K + label] = 1;
  }

  replace(): void {
    throw new InputError('exact multiclass blocks are set by their class weights (setCorner)');
  }

  read(): void {
    throw new InputError('exact multiclass blocks are read through their class weights');
  }

  sumInto(w: Float64Array): void {
    this.batch.dualSum({ alpha: this.alpha, scale: this.scale, w });
  }

  scaleAll(): void {
    throw new InputError('exact multiclass blocks depend on lambda only through w_i = (e_y - alpha_i) x_i / (lambda n)');
  }

  get storedValues(): number {
    return this.alpha.length;
  }

  save(): Record<string, Float64Array> {
    return { classAlpha: this.alpha };
  }

  load(arrays: Record<string, Float64Array | Int32Array | undefined>): void {
    const a = arrays.classAlpha;
    check(a instanceof Float64Array && a.length === this.alpha.length, "checkpoint array 'classAlpha' is missing or has the wrong length");
    this.alpha.set(a);
  }
}
