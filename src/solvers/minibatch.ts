import { check } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import type { SparseVector } from '../core/vector.js';
import type { GapSampler } from '../sampling/gap-sampler.js';
import type { BlockStepper } from './block-step.js';
import { checkedHinge } from './common.js';
import type { DualState } from './dual-state.js';

/**
 * The buffers of one mini-batch: its m blocks in sampled order, for each position its decoded label's index (-1:
 * served by the cache), the blocks decoded together (`missed`) with their labels, H_i (then their exact gaps) and
 * <w_i, w>, and what is still running in the background.
 */
class MiniBatch {
  m = 0;
  misses = 0;
  decoding = false;
  waitDots: (() => void) | undefined;
  readonly blocks: Int32Array;
  readonly decoded: Int32Array;
  readonly missed: Int32Array;
  readonly labels: unknown[];
  /** The decoded labels' psi, where the background decode computed them. */
  readonly psis: (SparseVector | undefined)[];
  readonly hinge: Float64Array;
  readonly dots: Float64Array;

  constructor(tau: number) {
    this.blocks = new Int32Array(tau);
    this.decoded = new Int32Array(tau);
    this.missed = new Int32Array(tau);
    this.labels = new Array<unknown>(tau);
    this.psis = new Array<SparseVector | undefined>(tau);
    this.hinge = new Float64Array(tau);
    this.dots = new Float64Array(tau);
  }

  /** The decoded mini-batch as JSON (a run stopped inside a pass with it in flight; the decode has finished). */
  save(problem: Problem): SavedBatch {
    const { m, misses } = this;
    return {
      blocks: Array.from(this.blocks.subarray(0, m)), decoded: Array.from(this.decoded.subarray(0, m)), missed: Array.from(this.missed.subarray(0, misses)),
      labels: this.labels.slice(0, misses).map((y) => problem.labelToJSON(y)), hinge: Array.from(this.hinge.subarray(0, misses)), dots: Array.from(this.dots.subarray(0, misses)),
    };
  }

  /** Loads a saved mini-batch (its psi is rebuilt by the block steps from the labels, as the model computes it). */
  load(saved: unknown, problem: Problem): MiniBatch {
    const b = saved as SavedBatch;
    const m = b?.blocks?.length ?? -1;
    const misses = b?.missed?.length ?? -1;
    const ints = (a: unknown, length: number, min: number, max: number) => Array.isArray(a) && a.length === length && a.every((x) => Number.isInteger(x) && x >= min && x < max);
    check(
      m >= 1 && m <= this.blocks.length && ints(b.blocks, m, 0, problem.n) && ints(b.decoded, m, -1, misses) && ints(b.missed, misses, 0, problem.n) &&
        [b.labels, b.hinge, b.dots].every((a) => Array.isArray(a) && a.length === misses) && [...b.hinge, ...b.dots].every(Number.isFinite),
      'checkpoint: the mini-batch in flight (inFlight) is malformed',
    );
    this.m = m;
    this.misses = misses;
    this.blocks.set(b.blocks);
    this.decoded.set(b.decoded);
    this.missed.set(b.missed);
    b.labels.forEach((y, q) => (this.labels[q] = problem.labelFromJSON(y)));
    this.hinge.set(b.hinge);
    this.dots.set(b.dots);
    this.psis.fill(undefined);
    this.decoding = false;
    this.waitDots = undefined;
    return this;
  }
}

/** A {@link MiniBatch} in a checkpoint: positions' blocks and decoded indices, the decoded blocks' labels, H_i and <w_i, w>. */
interface SavedBatch {
  blocks: number[];
  decoded: number[];
  missed: number[];
  labels: unknown[];
  hinge: number[];
  dots: number[];
}

/**
 * Mini-batches of block steps (tau > 1; Wang et al. 2016, AP-BCFW): a step samples tau distinct blocks, serves the
 * cache hits, decodes the misses together at the current w (Problem.batch.decodeSubset, on native threads), then
 * applies the tau updates one after another in sampled order, each with line search at the iterate it is applied
 * to. Overlapped: the pass's next mini-batch is sampled and decoded at the current w while this one is applied (in
 * the background where the decoder allows it), so each corner is one mini-batch older. While a mini-batch is
 * sampled, `taken` marks its blocks and those of the mini-batch it overlaps (distinct blocks, none shared), and their
 * sum-tree weights are kept aside (out of the tree meanwhile).
 */
export class MiniBatchScheduler {
  /** Blocks of the mini-batch being sampled and of the one it overlaps. */
  readonly taken: Uint8Array;
  private readonly batches: MiniBatch[];
  private inFlight: MiniBatch | undefined;
  private readonly batchWeights: Float64Array;
  private readonly excludedWeights: Float64Array;

  constructor(
    private readonly problem: Problem,
    private readonly tau: number,
    private readonly overlap: boolean,
    private readonly gapSampling: boolean,
    private readonly state: DualState,
    private readonly sampler: GapSampler,
    private readonly stepper: BlockStepper,
    /** The block at pass position s (orNone: -1 when only zero-estimate blocks are left). */
    private readonly nextBlock: (s: number, orNone: boolean) => number,
    /** Counts oracle calls. */
    private readonly countOracle: (calls: number) => void,
  ) {
    this.batches = Array.from({ length: overlap ? 2 : 1 }, () => new MiniBatch(tau));
    this.batchWeights = new Float64Array(tau);
    this.excludedWeights = new Float64Array(tau);
    this.taken = new Uint8Array(problem.n);
  }

  /**
   * Steps s .. s+m-1 of the pass as one mini-batch (m <= min(tau, n - s)); returns m. Its blocks were sampled and their
   * cache misses decoded together now, or while the previous mini-batch was applied (overlap); the m block steps then
   * run in sampled order at their own iterates.
   */
  step(s: number): number {
    const b = this.inFlight ?? this.start(this.batches[0]!, s);
    this.inFlight = undefined;
    this.finish(b);
    // Overlapped: the pass's next mini-batch (other blocks) is decoded at this w while b is applied.
    if (this.overlap && s + b.m < this.problem.n) this.inFlight = this.start(this.batches[b === this.batches[0] ? 1 : 0]!, s + b.m, b);
    for (let q = 0; q < b.m; q++) {
      const d = b.decoded[q]!;
      this.stepper.step(b.blocks[q]!, d >= 0 ? { label: b.labels[d], startGap: b.hinge[d]!, psi: b.psis[d] } : undefined);
    }
    return b.m;
  }

  /** Drops the mini-batch being decoded when the pass ends before its turn (waited for, unused). */
  dropInFlight(): void {
    if (this.inFlight) this.wait(this.inFlight);
    this.inFlight = undefined;
  }

  /** Waits for the mini-batch being decoded and keeps it for the next step (a run stopped inside its pass). */
  waitInFlight(): void {
    if (this.inFlight) this.wait(this.inFlight);
  }

  /** The decoded mini-batch kept for the next step (see waitInFlight), as JSON for a checkpoint; undefined if none. */
  saveInFlight(): SavedBatch | undefined {
    return this.inFlight?.save(this.problem);
  }

  /** A checkpoint's mini-batch in flight becomes the next step's. */
  loadInFlight(saved: unknown): void {
    this.inFlight = this.batches[0]!.load(saved, this.problem);
  }

  /**
   * Samples the mini-batch of pass positions s, s+1, ... into b (distinct blocks, none of `exclude`'s: the mini-batch
   * applied while b is decoded), then starts decoding it.
   */
  private start(b: MiniBatch, s: number, exclude?: MiniBatch): MiniBatch {
    const excluded = exclude?.m ?? 0;
    for (let q = 0; q < excluded; q++) this.take(exclude!.blocks[q]!, this.excludedWeights, q);
    let m = Math.min(this.tau, this.problem.n - s, this.problem.n - excluded);
    for (let q = 0; q < m; q++) {
      const i = this.nextBlock(s + q, q > 0);
      if (i < 0) {
        m = q;
        break;
      }
      b.blocks[q] = i;
      this.take(i, this.batchWeights, q);
    }
    for (let q = 0; q < m; q++) this.release(b.blocks[q]!, this.batchWeights, q);
    for (let q = 0; q < excluded; q++) this.release(exclude!.blocks[q]!, this.excludedWeights, q);
    b.m = m;
    this.decode(b, exclude !== undefined);
    return b;
  }

  /** Marks block i taken and keeps its sum-tree weight aside, out of the tree (gap sampling draws without replacement). */
  private take(i: number, weights: Float64Array, q: number): void {
    this.taken[i] = 1;
    if (!this.gapSampling) return;
    weights[q] = this.sampler.tree.get(i);
    if (weights[q]! > 0) this.sampler.tree.set(i, 0);
  }

  private release(i: number, weights: Float64Array, q: number): void {
    this.taken[i] = 0;
    if (this.gapSampling && weights[q]! > 0) this.sampler.tree.set(i, weights[q]!);
  }

  /**
   * The blocks of b that the cache would not serve at the current w start decoding together at it (on native threads
   * when the problem batches), and so do the products <w_i, w> of their exact gaps: in the background when b overlaps
   * the mini-batch being applied.
   */
  private decode(b: MiniBatch, overlapped: boolean): void {
    const { problem, state } = this;
    let misses = 0;
    for (let q = 0; q < b.m; q++) {
      const i = b.blocks[q]!;
      if (this.stepper.cacheChoice(i) >= 0) b.decoded[q] = -1;
      else {
        b.decoded[q] = misses;
        b.missed[misses++] = i;
      }
    }
    b.misses = misses;
    b.decoding = false;
    b.psis.fill(undefined);
    if (misses === 0) return;
    const batch = problem.batch;
    if (overlapped && batch?.startSubset) {
      batch.startSubset(state.w, b.missed, misses);
      b.decoding = true;
    } else if (batch) batch.decodeSubset(state.w, b.missed, misses, b.labels, b.hinge);
    else {
      for (let q = 0; q < misses; q++) {
        const i = b.missed[q]!;
        const label = problem.oracle(i, state.w);
        const psi = problem.psi(i, label);
        let dot = 0;
        for (let k = 0; k < psi.nnz; k++) dot += state.w[psi.indices[k]!]! * psi.values[k]!;
        b.labels[q] = label;
        b.hinge[q] = checkedHinge(problem.loss(i, label) - dot, i);
      }
    }
    if (overlapped) b.waitDots = state.blocks.startDots(b.missed, misses, state.w, b.dots);
    else state.blocks.dots(b.missed, misses, state.w, b.dots);
  }

  /**
   * Waits for b's decode and dot products, and turns its H_i into the blocks' exact gaps at the decode's w (2016
   * eq. 10): g_i = lambda <w_i, w> - l_i + H_i/n (neither w_i nor l_i has changed since: b's blocks were not in the
   * mini-batch applied meanwhile).
   */
  private finish(b: MiniBatch): void {
    this.wait(b);
    this.countOracle(b.misses);
    for (let q = 0; q < b.misses; q++) b.hinge[q] = this.state.lambda * b.dots[q]! - this.state.lBlocks[b.missed[q]!]! + b.hinge[q]! / this.problem.n;
  }

  private wait(b: MiniBatch): void {
    if (b.decoding) this.problem.batch!.finishSubset!(b.labels, b.hinge, b.psis);
    b.decoding = false;
    b.waitDots?.();
    b.waitDots = undefined;
  }
}
