import { check } from '../core/errors.js';
import type { Rng } from '../core/rng.js';
import { SumTree } from './sumtree.js';

/**
 * Gap sampling (2016 paper, Alg. 2): the block-gap estimates g_i with their p-th powers in a sum tree, so that a block
 * is drawn with probability proportional to g_i^p in O(log n). Estimates are +Infinity until a block is first visited:
 * unvisited blocks come first, in a random order drawn when the sampler is made. The estimates are set by oracle calls
 * (`set`) and replaced all at once by exact passes, checkpoints and warm starts (`setAll`). The arrays are shared with
 * the native step loop, which updates them with the same arithmetic.
 */
export class GapSampler {
  /** g_i, +Infinity while block i is unvisited. */
  readonly estimates: Float64Array;
  /** [sum of the finite estimates, number of unvisited blocks]. */
  readonly totals = new Float64Array(2);
  readonly tree: SumTree;
  /** The blocks in the random order of their first visit. */
  readonly firstVisitOrder: Int32Array;

  constructor(
    readonly n: number,
    readonly degree: number,
    rng: Rng,
  ) {
    check(Number.isFinite(degree) && degree > 0, `gapDegree must be > 0, got ${degree}`);
    this.estimates = new Float64Array(n).fill(Infinity);
    this.tree = new SumTree(n);
    this.totals[1] = n;
    this.firstVisitOrder = rng.permutation(new Int32Array(n));
  }

  get estSum(): number {
    return this.totals[0]!;
  }

  get unvisited(): number {
    return this.totals[1]!;
  }

  /** Sum of the gap estimates (Infinity while a block is unvisited). */
  get estimate(): number {
    return this.unvisited > 0 ? Infinity : Math.max(this.estSum, 0);
  }

  private weight(g: number): number {
    return g === Infinity ? 0 : this.degree === 1 ? g : g ** this.degree;
  }

  /** g_i = g (finite, >= 0). */
  set(i: number, g: number): void {
    const old = this.estimates[i]!;
    if (old === Infinity) this.totals[1]!--;
    else this.totals[0]! -= old;
    this.estimates[i] = g;
    this.totals[0]! += g;
    this.tree.set(i, this.weight(g));
  }

  /**
   * Replaces every estimate (+Infinity: unvisited) and rebuilds the tree; the sum of the finite ones is `estSum`
   * when given (a checkpoint's running sum), else summed in index order.
   */
  setAll(estimates: ArrayLike<number>, estSum?: number): void {
    check(estimates.length === this.n, `gap estimates need ${this.n} values`);
    this.estimates.set(estimates);
    const weights = new Float64Array(this.n);
    let sum = 0;
    let unvisited = 0;
    for (let i = 0; i < this.n; i++) {
      const g = this.estimates[i]!;
      weights[i] = this.weight(g);
      if (g === Infinity) unvisited++;
      else sum += g;
    }
    this.tree.setAll(weights);
    this.totals[0] = estSum ?? sum;
    this.totals[1] = unvisited;
  }

  /**
   * A block drawn with probability proportional to its estimate^p, unvisited blocks first; `taken` blocks (a
   * mini-batch being sampled, out of the tree meanwhile) are skipped. When every estimate left is 0: `fallback()`,
   * or -1 with `orNone`.
   */
  draw(rng: Rng, taken: Uint8Array, orNone: boolean, fallback: () => number): number {
    const order = this.firstVisitOrder;
    for (let p = order.length - this.unvisited; this.unvisited > 0 && p < order.length; p++) {
      const i = order[p]!;
      if (this.estimates[i] === Infinity && taken[i] !== 1) return i;
    }
    const i = this.tree.sample(rng.next());
    return i >= 0 ? i : orNone ? -1 : fallback();
  }
}
