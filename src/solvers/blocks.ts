import { check } from '../core/errors.js';
import type { SparseVector } from '../core/vector.js';
import { native } from '../native/addon.js';

/**
 * Storage of the per-block primal vectors w_i of block-coordinate Frank-Wolfe, with the few operations a
 * block step needs. Dense storage (n x d, native SIMD kernels) suits OCR-sized problems; sparse storage keeps
 * only the coordinates each block has touched, for huge sparse feature maps (CoNLL: d = 1.6M, n = 8,936),
 * where every w_i is a combination of a few sparse psi vectors.
 */
export interface BlockStorage {
  readonly kind: 'dense' | 'sparse';
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
  private readonly data: Float64Array;

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
 * Sparse storage: block i keeps (indices, values) of the coordinates it has touched, with spare capacity.
 * Operations scatter a block into a shared dense scratch (zeroed again afterwards), so each costs
 * O(nnz(w_i) + nnz(psi)), independent of d. Averaging (O(d) per step) is not supported.
 */
export class SparseBlocks implements BlockStorage {
  readonly kind = 'sparse';
  private idx: Int32Array[];
  private val: Float64Array[];
  private readonly nnz: Int32Array;
  /** Dense scratch of length d holding 1 + position of each coordinate of the block being edited (0 = absent). */
  private readonly slot: Int32Array;

  constructor(
    private readonly n: number,
    private readonly d: number,
  ) {
    this.idx = Array.from({ length: n }, () => new Int32Array(0));
    this.val = Array.from({ length: n }, () => new Float64Array(0));
    this.nnz = new Int32Array(n);
    this.slot = new Int32Array(d);
  }

  /** Marks block i's coordinates in `slot`; call `unmark(i)` after. */
  private mark(i: number): void {
    const idx = this.idx[i]!;
    for (let q = 0; q < this.nnz[i]!; q++) this.slot[idx[q]!] = q + 1;
  }

  private unmark(i: number): void {
    const idx = this.idx[i]!;
    for (let q = 0; q < this.nnz[i]!; q++) this.slot[idx[q]!] = 0;
  }

  /** Appends coordinate j (value 0) to block i, growing its arrays; returns its position. */
  private append(i: number, j: number): number {
    let idx = this.idx[i]!;
    const k = this.nnz[i]!;
    if (k === idx.length) {
      const cap = Math.max(16, 2 * k);
      const bigIdx = new Int32Array(cap);
      const bigVal = new Float64Array(cap);
      bigIdx.set(idx);
      bigVal.set(this.val[i]!);
      this.idx[i] = idx = bigIdx;
      this.val[i] = bigVal;
    }
    idx[k] = j;
    this.val[i]![k] = 0;
    this.nnz[i] = k + 1;
    this.slot[j] = k + 1;
    return k;
  }

  stats(i: number, w: Float64Array, psi: SparseVector, out: Float64Array): void {
    const idx = this.idx[i]!;
    const val = this.val[i]!;
    let dw = 0;
    let sq = 0;
    for (let q = 0; q < this.nnz[i]!; q++) {
      dw += val[q]! * w[idx[q]!]!;
      sq += val[q]! * val[q]!;
    }
    let dp = 0;
    if (psi.nnz > 0) {
      this.mark(i);
      for (let q = 0; q < psi.nnz; q++) {
        const p = this.slot[psi.indices[q]!]!;
        if (p > 0) dp += val[p - 1]! * psi.values[q]!;
      }
      this.unmark(i);
    }
    out[0] = dw;
    out[1] = sq;
    out[2] = dp;
  }

  update(i: number, w: Float64Array, wAvg: Float64Array | null, psi: SparseVector, gamma: number, scale: number, _rho: number): void {
    check(wAvg === null, 'sparse block storage does not support averaging');
    const idx0 = this.idx[i]!;
    const val0 = this.val[i]!;
    for (let q = 0; q < this.nnz[i]!; q++) {
      const delta = -gamma * val0[q]!;
      val0[q]! += delta;
      w[idx0[q]!]! += delta;
    }
    this.addSparse(i, w, psi, gamma * scale);
  }

  addSparse(i: number, w: Float64Array, v: SparseVector, scale: number): void {
    if (v.nnz === 0 || scale === 0) return;
    this.mark(i);
    for (let q = 0; q < v.nnz; q++) {
      const j = v.indices[q]!;
      let p = this.slot[j]! - 1;
      if (p < 0) p = this.append(i, j);
      const delta = scale * v.values[q]!;
      this.val[i]![p]! += delta;
      w[j]! += delta;
    }
    this.unmark(i);
  }

  dot(i: number, v: Float64Array): number {
    const idx = this.idx[i]!;
    const val = this.val[i]!;
    let s = 0;
    for (let q = 0; q < this.nnz[i]!; q++) s += val[q]! * v[idx[q]!]!;
    return s;
  }

  dots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): void {
    for (let q = 0; q < count; q++) out[q] = this.dot(blocks[q]!, v);
  }
  startDots(blocks: Int32Array, count: number, v: Float64Array, out: Float64Array): () => void {
    this.dots(blocks, count, v, out);
    return () => {};
  }


  replace(i: number, w: Float64Array, values: Float64Array): void {
    const idx = this.idx[i]!;
    const val = this.val[i]!;
    for (let q = 0; q < this.nnz[i]!; q++) w[idx[q]!]! -= val[q]!;
    let m = 0;
    for (let j = 0; j < this.d; j++) if (values[j] !== 0) m++;
    const nIdx = new Int32Array(m);
    const nVal = new Float64Array(m);
    m = 0;
    for (let j = 0; j < this.d; j++) {
      if (values[j] !== 0) {
        nIdx[m] = j;
        nVal[m++] = values[j]!;
        w[j]! += values[j]!;
      }
    }
    this.idx[i] = nIdx;
    this.val[i] = nVal;
    this.nnz[i] = m;
  }

  read(i: number, out: Float64Array): void {
    out.fill(0);
    const idx = this.idx[i]!;
    const val = this.val[i]!;
    for (let q = 0; q < this.nnz[i]!; q++) out[idx[q]!] = val[q]!;
  }

  sumInto(w: Float64Array): void {
    w.fill(0);
    for (let i = 0; i < this.n; i++) {
      const idx = this.idx[i]!;
      const val = this.val[i]!;
      for (let q = 0; q < this.nnz[i]!; q++) w[idx[q]!]! += val[q]!;
    }
  }

  scaleAll(s: number): void {
    for (let i = 0; i < this.n; i++) {
      const val = this.val[i]!;
      for (let q = 0; q < this.nnz[i]!; q++) val[q] = s * val[q]!;
    }
  }

  get storedValues(): number {
    let s = 0;
    for (let i = 0; i < this.n; i++) s += this.nnz[i]!;
    return s;
  }

  save(): Record<string, Float64Array | Int32Array> {
    const total = this.storedValues;
    const ptr = new Int32Array(this.n + 1);
    const idx = new Int32Array(total);
    const val = new Float64Array(total);
    for (let i = 0, o = 0; i < this.n; i++) {
      const k = this.nnz[i]!;
      idx.set(this.idx[i]!.subarray(0, k), o);
      val.set(this.val[i]!.subarray(0, k), o);
      o += k;
      ptr[i + 1] = o;
    }
    return { blockPtr: ptr, blockIdx: idx, blockVal: val };
  }

  load(arrays: Record<string, Float64Array | Int32Array | undefined>): void {
    const { blockPtr: ptr, blockIdx: idx, blockVal: val } = arrays;
    check(ptr instanceof Int32Array && ptr.length === this.n + 1 && idx instanceof Int32Array && val instanceof Float64Array && idx.length === val.length && ptr[this.n] === idx.length,
      'checkpoint has no valid sparse blocks (blockPtr, blockIdx, blockVal)');
    for (let i = 0; i < this.n; i++) {
      const a = ptr[i]!;
      const b = ptr[i + 1]!;
      check(a <= b, 'checkpoint blockPtr is not increasing');
      const bi = idx.slice(a, b);
      for (const j of bi) check(j >= 0 && j < this.d, `checkpoint block ${i} has coordinate ${j} outside 0..${this.d - 1}`);
      this.idx[i] = bi;
      this.val[i] = val.slice(a, b);
      this.nnz[i] = b - a;
    }
  }
}
