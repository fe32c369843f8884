/**
 * Dense and sparse vector kernels used by the solvers. Dense vectors are Float64Array; a sparse vector
 * holds `nnz` (index, value) pairs with distinct indices in no particular order.
 */

/** A sparse vector: entries (indices[k], values[k]) for k < nnz; indices are distinct. */
export interface SparseVector {
  indices: Int32Array;
  values: Float64Array;
  nnz: number;
}

/** <a, b> for dense a, b of equal length. */
export function dot(a: Float64Array, b: Float64Array): number {
  let s0 = 0;
  let s1 = 0;
  const n = a.length;
  let j = 0;
  for (; j + 1 < n; j += 2) {
    s0 += a[j]! * b[j]!;
    s1 += a[j + 1]! * b[j + 1]!;
  }
  if (j < n) s0 += a[j]! * b[j]!;
  return s0 + s1;
}

/** <w, s> for dense w and sparse s. */
export function dotSparse(w: Float64Array, s: SparseVector): number {
  let acc = 0;
  const { indices, values, nnz } = s;
  for (let k = 0; k < nnz; k++) acc += w[indices[k]!]! * values[k]!;
  return acc;
}

/** ||s||^2 of a sparse vector (indices distinct). */
export function normSqSparse(s: SparseVector): number {
  let acc = 0;
  for (let k = 0; k < s.nnz; k++) acc += s.values[k]! * s.values[k]!;
  return acc;
}

/** y += alpha * s (dense y, sparse s). */
export function axpySparse(alpha: number, s: SparseVector, y: Float64Array): void {
  const { indices, values, nnz } = s;
  for (let k = 0; k < nnz; k++) y[indices[k]!]! += alpha * values[k]!;
}

/** y = a*y + b*x, elementwise, for dense x, y of equal length. */
export function scaleAdd(a: number, y: Float64Array, b: number, x: Float64Array): void {
  for (let j = 0; j < y.length; j++) y[j] = a * y[j]! + b * x[j]!;
}

/**
 * Accumulates a sparse vector with repeated indices into distinct entries, in O(touched) per vector:
 * a dense scratch of the full dimension plus the list of touched coordinates. Reuse one instance.
 */
export class SparseAccumulator {
  private readonly dense: Float64Array;
  private readonly touched: Uint8Array;
  private indices: Int32Array;
  private count = 0;
  private outIndices = new Int32Array(0);
  private outValues = new Float64Array(0);

  constructor(readonly dim: number, initialCapacity = 64) {
    this.dense = new Float64Array(dim);
    this.touched = new Uint8Array(dim);
    this.indices = new Int32Array(Math.max(1, initialCapacity));
  }

  /** Adds `value` to coordinate `index` (0 <= index < dim); the first touch records the index. */
  add(index: number, value: number): void {
    if (!this.touched[index]) {
      this.touched[index] = 1;
      if (this.count === this.indices.length) {
        const bigger = new Int32Array(this.indices.length * 2);
        bigger.set(this.indices);
        this.indices = bigger;
      }
      this.indices[this.count++] = index;
    }
    this.dense[index]! += value;
  }

  /** Adds scale * x into the coordinates offset..offset+x.length-1, skipping zeros of x. */
  addDense(offset: number, x: Float64Array, xStart: number, length: number, scale: number): void {
    for (let j = 0; j < length; j++) {
      const v = x[xStart + j]!;
      if (v !== 0) this.add(offset + j, scale * v);
    }
  }

  /**
   * Returns the accumulated vector (exact zeros dropped) and resets the accumulator. The result is a view
   * of buffers owned by the accumulator: it stays valid until the next `take()` (use `copySparse` to keep it).
   */
  take(): SparseVector {
    if (this.outIndices.length < this.count) {
      this.outIndices = new Int32Array(this.indices.length);
      this.outValues = new Float64Array(this.indices.length);
    }
    let nnz = 0;
    for (let k = 0; k < this.count; k++) {
      const j = this.indices[k]!;
      const v = this.dense[j]!;
      if (v !== 0) {
        this.outIndices[nnz] = j;
        this.outValues[nnz++] = v;
      }
      this.dense[j] = 0;
      this.touched[j] = 0;
    }
    this.count = 0;
    return { indices: this.outIndices, values: this.outValues, nnz };
  }
}

/** An independent copy of a sparse vector (trimmed to nnz). */
export function copySparse(s: SparseVector): SparseVector {
  return { indices: s.indices.slice(0, s.nnz), values: s.values.slice(0, s.nnz), nnz: s.nnz };
}

/** The dense form of a sparse vector. */
export function toDense(s: SparseVector, dim: number): Float64Array {
  const out = new Float64Array(dim);
  axpySparse(1, s, out);
  return out;
}
