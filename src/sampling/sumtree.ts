import { check } from '../core/errors.js';

/**
 * A complete binary tree of non-negative weights whose internal nodes hold the sums of their children:
 * O(log n) update and O(log n) draw of index i with probability w_i / sum(w), O(1) total. Gap sampling
 * (2016 paper, Alg. 2) keeps the block-gap estimates g_i^p in one. Leaves live at [size, 2 size).
 */
export class SumTree {
  readonly n: number;
  /** Leaves (n rounded up to a power of two). */
  readonly size: number;
  /** The nodes: sums at [1, size), leaves at [size, 2 size) (the native step loop works on this array). */
  readonly nodes: Float64Array;

  constructor(n: number) {
    check(Number.isInteger(n) && n >= 1, `SumTree needs n >= 1, got ${n}`);
    this.n = n;
    let size = 1;
    while (size < n) size *= 2;
    this.size = size;
    this.nodes = new Float64Array(2 * size);
  }

  get total(): number {
    return this.nodes[1]!;
  }

  /** Current weight of item i. */
  get(i: number): number {
    return this.nodes[this.size + i]!;
  }

  /** Sets weight i (finite, >= 0) and updates the sums on the path to the root. */
  set(i: number, weight: number): void {
    check(weight >= 0 && Number.isFinite(weight), () => `SumTree weight must be finite and >= 0, got ${weight}`);
    const t = this.nodes;
    let k = this.size + i;
    t[k] = weight;
    for (k >>= 1; k >= 1; k >>= 1) t[k] = t[2 * k]! + t[2 * k + 1]!;
  }

  /** Sets all weights at once and rebuilds the sums in O(n) (also clears accumulated rounding). */
  setAll(weights: ArrayLike<number>): void {
    check(weights.length === this.n, `SumTree.setAll needs ${this.n} weights`);
    const { size, nodes: tree } = this;
    tree.fill(0);
    for (let i = 0; i < this.n; i++) {
      const w = weights[i]!;
      if (!(w >= 0 && Number.isFinite(w))) check(false, `SumTree weight ${i} must be finite and >= 0, got ${w}`);
      tree[size + i] = w;
    }
    for (let k = size - 1; k >= 1; k--) tree[k] = tree[2 * k]! + tree[2 * k + 1]!;
  }

  /**
   * The index whose cumulative weight interval contains u * total, for u in [0, 1); -1 when the total is 0.
   * Descends towards a child with positive weight, so rounding never returns a zero-weight leaf.
   */
  sample(u: number): number {
    const { nodes: tree, size } = this;
    if (!(tree[1]! > 0)) return -1;
    let target = u * tree[1]!;
    let k = 1;
    while (k < size) {
      const left = tree[2 * k]!;
      if ((target < left && left > 0) || !(tree[2 * k + 1]! > 0)) k = 2 * k;
      else {
        target -= left;
        k = 2 * k + 1;
      }
    }
    return k - size;
  }
}
