/**
 * Hash bins of approximate Frank-Wolfe (Liu & Tsang, AAAI 2017, Algorithm 1, lines 2-5 and 13-15).
 *
 * Every point gets the hash value h_i = rho^T x_i with rho ~ N(0, I) (a 2-stable random projection,
 * Datar et al. 2004). Points are grouped by class, sorted by hash value, and each class's range
 * [min h, max h] is cut into k0 bins of equal width; empty bins are dropped. Refinement cuts a bin that
 * holds more than delta points into two bins of equal width (the halves of its hash interval); an empty
 * half is dropped, so a bin whose points all lie in one half only narrows. A bin whose points share one
 * hash value cannot be separated and is never split.
 *
 * Representation: `order` lists the points sorted by (class, hash); bin b is the contiguous range
 * order[start[b] .. end[b]) with hash interval [lo[b], hi[b]) (the last bin of a class is closed on the
 * right). Every point lies in exactly one bin by construction (tests check it).
 */
import { check } from '../core/errors.js';
import type { CsrMatrix } from '../core/data.js';
import type { Rng } from '../core/rng.js';

/** Gaussian random projection rho ~ N(0, I_F) (Box-Muller on the seeded PRNG). */
export function gaussianVector(dim: number, rng: Rng): Float64Array {
  const rho = new Float64Array(dim);
  for (let j = 0; j < dim; j += 2) {
    let u = rng.next();
    while (u === 0) u = rng.next();
    const v = rng.next();
    const r = Math.sqrt(-2 * Math.log(u));
    rho[j] = r * Math.cos(2 * Math.PI * v);
    if (j + 1 < dim) rho[j + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return rho;
}

/** Hash values h_i = rho^T x_i of every row. */
export function hashRows(X: CsrMatrix, rho: Float64Array): Float64Array {
  check(rho.length >= X.cols, `projection has ${rho.length} entries for ${X.cols} features`);
  const h = new Float64Array(X.rows);
  for (let i = 0; i < X.rows; i++) {
    let s = 0;
    for (let q = X.indptr[i]!, e = X.indptr[i + 1]!; q < e; q++) s += rho[X.indices[q]!]! * X.values[q]!;
    h[i] = s;
  }
  return h;
}

/** One bin, as listed by {@link HashBins.list}. */
export interface BinInfo {
  cls: number;
  lo: number;
  hi: number;
  /** Points of the bin (indices into the data set). */
  points: number[];
}

/** Per-class hash bins of approximate Frank-Wolfe (see the module comment): random-projection hashing, equal-width bins, refinement of crowded bins. */
export class HashBins {
  /** Points sorted by (class, hash value). */
  readonly order: Int32Array;
  /** Hash values of the points (by point index). */
  readonly hash: Float64Array;
  private start: number[] = [];
  private end: number[] = [];
  private lo: number[] = [];
  private hi: number[] = [];
  private cls: number[] = [];
  /** Whether the bin is the last of its class (its interval is closed on the right). */
  private closed: boolean[] = [];

  private constructor(order: Int32Array, hash: Float64Array) {
    this.order = order;
    this.hash = hash;
  }

  /**
   * Initial partition: per class, k0 equal-width bins over [min h, max h] (empty bins dropped).
   * @param hash h_i per point; @param y class per point in 0..numClasses-1.
   */
  static fromHash(hash: Float64Array, y: Int32Array, numClasses: number, k0: number): HashBins {
    check(hash.length === y.length, `${hash.length} hash values for ${y.length} labels`);
    check(Number.isInteger(k0) && k0 >= 1, `k0 must be a positive integer, got ${k0}`);
    for (let i = 0; i < hash.length; i++) check(Number.isFinite(hash[i]), `hash value of point ${i} is ${hash[i]}`);
    const order = Int32Array.from({ length: y.length }, (_, i) => i);
    order.sort((a, b) => y[a]! - y[b]! || hash[a]! - hash[b]! || a - b);
    const bins = new HashBins(order, hash);
    let s = 0;
    while (s < order.length) {
      const c = y[order[s]!]!;
      check(c >= 0 && c < numClasses, `label ${c} outside 0..${numClasses - 1}`);
      let e = s;
      while (e < order.length && y[order[e]!] === c) e++;
      const hmin = hash[order[s]!]!;
      const hmax = hash[order[e - 1]!]!;
      const width = (hmax - hmin) / k0;
      if (!(width > 0)) {
        bins.push(s, e, hmin, hmax, c, true);
      } else {
        // Points are sorted: walk them, assigning bin floor((h - hmin) / width), capped at k0 - 1.
        let p = s;
        while (p < e) {
          const b = Math.min(k0 - 1, Math.floor((hash[order[p]!]! - hmin) / width));
          let q = p;
          while (q < e && Math.min(k0 - 1, Math.floor((hash[order[q]!]! - hmin) / width)) === b) q++;
          const last = b === k0 - 1;
          bins.push(p, q, hmin + b * width, last ? hmax : hmin + (b + 1) * width, c, last);
          p = q;
        }
      }
      s = e;
    }
    return bins;
  }

  private push(start: number, end: number, lo: number, hi: number, cls: number, closed: boolean): void {
    this.start.push(start);
    this.end.push(end);
    this.lo.push(lo);
    this.hi.push(hi);
    this.cls.push(cls);
    this.closed.push(closed);
  }

  /** Number of (non-empty) bins = number of surrogates. */
  get count(): number {
    return this.start.length;
  }

  /** Number of points in bin b. */
  size(b: number): number {
    return this.end[b]! - this.start[b]!;
  }

  /** Size of the largest bin. */
  maxSize(): number {
    let m = 0;
    for (let b = 0; b < this.count; b++) m = Math.max(m, this.size(b));
    return m;
  }

  /**
   * Refinement (Algorithm 1, line 14): every bin with more than `delta` points is cut into two bins of
   * equal width; empty halves are dropped. Returns the number of bins that were divided (both halves
   * non-empty); a bin whose points all fall in one half only narrows and is not counted.
   */
  split(delta: number): number {
    check(Number.isInteger(delta) && delta >= 0, `delta must be a non-negative integer, got ${delta}`);
    const old = { start: this.start, end: this.end, lo: this.lo, hi: this.hi, cls: this.cls, closed: this.closed };
    this.start = [];
    this.end = [];
    this.lo = [];
    this.hi = [];
    this.cls = [];
    this.closed = [];
    let changed = 0;
    for (let b = 0; b < old.start.length; b++) {
      const s = old.start[b]!;
      const e = old.end[b]!;
      const lo = old.lo[b]!;
      const hi = old.hi[b]!;
      const c = old.cls[b]!;
      const closed = old.closed[b]!;
      const hFirst = this.hash[this.order[s]!]!;
      const hLast = this.hash[this.order[e - 1]!]!;
      const mid = lo + (hi - lo) / 2;
      if (e - s <= delta || hFirst === hLast || !(mid > lo && mid < hi)) {
        this.push(s, e, lo, hi, c, closed);
        continue;
      }
      // Points with h < mid go left (the order is sorted by hash within a class).
      let m = s;
      while (m < e && this.hash[this.order[m]!]! < mid) m++;
      if (m > s) this.push(s, m, lo, mid, c, false);
      if (e > m) this.push(m, e, mid, hi, c, closed);
      if (m > s && e > m) changed++;
    }
    return changed;
  }

  /**
   * Draws one surrogate per bin uniformly (Algorithm 1, line 8) into `index`, with the bin's size as its
   * weight in `weight`; returns the number of bins. Buffers must hold {@link count} entries.
   */
  sample(rng: Rng, index: Int32Array, weight: Float64Array): number {
    const nb = this.count;
    check(index.length >= nb && weight.length >= nb, `sample buffers hold ${Math.min(index.length, weight.length)} < ${nb} bins`);
    for (let b = 0; b < nb; b++) {
      const s = this.start[b]!;
      const size = this.end[b]! - s;
      index[b] = this.order[s + (size === 1 ? 0 : rng.int(size))]!;
      weight[b] = size;
    }
    return nb;
  }

  /** Bin of every point (-1 if none: never happens). */
  binOf(): Int32Array {
    const out = new Int32Array(this.order.length).fill(-1);
    for (let b = 0; b < this.count; b++) for (let p = this.start[b]!; p < this.end[b]!; p++) out[this.order[p]!] = b;
    return out;
  }

  /** All bins with their members (for tests and inspection). */
  list(): BinInfo[] {
    const out: BinInfo[] = [];
    for (let b = 0; b < this.count; b++) {
      const points: number[] = [];
      for (let p = this.start[b]!; p < this.end[b]!; p++) points.push(this.order[p]!);
      out.push({ cls: this.cls[b]!, lo: this.lo[b]!, hi: this.hi[b]!, points });
    }
    return out;
  }
}
