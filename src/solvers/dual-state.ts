import { dot } from '../core/vector.js';
import type { BlockAtoms } from '../cache/atoms.js';
import type { BlockStorage } from './blocks.js';
import { ClippedIterate, clipInto, type ClipBounds } from './bounds.js';
import type { BcfwCounters } from './bcfw-options.js';

/** Slots of {@link DualState.scalars} (the native step loop's Scalar enum, native/solver/bcfw_loop.h). */
const L = 0;
const L_AVG = 1;
const STEPS = 2;
const CACHE_GAP = 3;
const ESTIMATES_EXACT = 4;
const GAIN_ORACLE = 5;
const GAIN_CACHE = 6;

/** Names of {@link DualState.counters}' slots, in order (the native loop's Counter enum). */
export const COUNTER_NAMES = ['cacheHits', 'fwSteps', 'awaySteps', 'pairwiseSteps', 'dropSteps', 'nullSteps', 'exactSteps', 'skippedBlocks'] as const;
/** The slot of the blocks that shrinking skipped (TrainSettings.shrinking). */
export const SKIPPED_BLOCKS = COUNTER_NAMES.indexOf('skippedBlocks');
/** The slot where the native loop counts its oracle calls (after the counters above). */
export const NATIVE_ORACLE_CALLS = COUNTER_NAMES.length;

/**
 * The dual point of block-coordinate Frank-Wolfe as both engines see it (the TypeScript steps and the native step
 * loop work on these very arrays): per-block w_i (`blocks`) and l_i with w = sum_i w_i kept unclipped in `box`
 * (w = clip(v) under box constraints, 2016 App. H), l = sum_i l_i, the weighted average (wAvg, lAvg), the step count
 * k of Alg. 4, G of the global cache criterion (the last exact total gap), whether the gap estimates are the exact
 * block gaps of this point, the run's counters, and the per-block label stores (dual variables and cache).
 */
export class DualState {
  readonly box: ClippedIterate;
  /** clip(v) between steps (box.w). */
  readonly w: Float64Array;
  readonly lBlocks: Float64Array;
  readonly wAvg: Float64Array;
  /** [l, lAvg, k, G, estimatesExact, gainOracle, gainCache]. */
  readonly scalars = Float64Array.of(0, 0, 0, 0, 0, Infinity, Infinity);
  /** The counters of {@link COUNTER_NAMES}, then the native loop's oracle calls. */
  readonly counters = new Float64Array(COUNTER_NAMES.length + 1);

  constructor(
    readonly lambda: number,
    n: number,
    d: number,
    readonly blocks: BlockStorage,
    readonly bounds: ClipBounds | undefined,
    averaging: boolean,
    /** Dual variables and cache per block (kept when the steps are not FW-only or the cache is on). */
    readonly atoms: BlockAtoms<unknown>[] | undefined,
  ) {
    this.box = new ClippedIterate(d, bounds);
    this.w = this.box.w;
    this.lBlocks = new Float64Array(n);
    this.wAvg = new Float64Array(averaging ? d : 0);
  }

  get l(): number {
    return this.scalars[L]!;
  }
  set l(x: number) {
    this.scalars[L] = x;
  }
  get lAvg(): number {
    return this.scalars[L_AVG]!;
  }
  set lAvg(x: number) {
    this.scalars[L_AVG] = x;
  }
  /** Block steps done (the k of Alg. 4). */
  get k(): number {
    return this.scalars[STEPS]!;
  }
  set k(x: number) {
    this.scalars[STEPS] = x;
  }
  /** G of the global cache criterion: the total exact gap of the last exact pass. */
  get cacheGap(): number {
    return this.scalars[CACHE_GAP]!;
  }
  set cacheGap(x: number) {
    this.scalars[CACHE_GAP] = x;
  }
  /** True while the gap estimates are the exact block gaps of the current iterate (no step since the last exact pass). */
  get estimatesExact(): boolean {
    return this.scalars[ESTIMATES_EXACT] === 1;
  }
  set estimatesExact(x: boolean) {
    this.scalars[ESTIMATES_EXACT] = x ? 1 : 0;
  }

  /**
   * The recent dual gain per step of oracle steps and of cache hits (exponential averages; the cache's adaptive rule,
   * BlockStepper.cacheOpen); +Infinity until the first step of its kind, so the cache is tried first.
   */
  get gainOracle(): number {
    return this.scalars[GAIN_ORACLE]!;
  }
  set gainOracle(x: number) {
    this.scalars[GAIN_ORACLE] = x;
  }
  get gainCache(): number {
    return this.scalars[GAIN_CACHE]!;
  }
  set gainCache(x: number) {
    this.scalars[GAIN_CACHE] = x;
  }

  get counterValues(): BcfwCounters {
    return Object.fromEntries(COUNTER_NAMES.map((name, k) => [name, this.counters[k]!])) as unknown as BcfwCounters;
  }

  set counterValues(c: Partial<BcfwCounters>) {
    COUNTER_NAMES.forEach((name, k) => (this.counters[k] = c[name] ?? 0));
  }

  /** Labels stored over all blocks, when kept. */
  get storedLabels(): number | undefined {
    return this.atoms?.reduce((s, a) => s + a.size, 0);
  }

  /** Dual objective l - lambda (<v, w> - ||w||^2/2) with w = clip(v) (= l - lambda/2 ||w||^2 without bounds). */
  dualOf(v: Float64Array, w: Float64Array, l: number): number {
    return v === w ? l - 0.5 * this.lambda * dot(w, w) : l - this.lambda * (dot(v, w) - 0.5 * dot(w, w));
  }

  /** Rebuilds w and l from the blocks (removes incremental drift). */
  resync(): void {
    this.blocks.sumInto(this.box.unclip());
    this.box.reclip();
    this.l = this.lBlocks.reduce((a, b) => a + b, 0);
  }

  /** The current iterate, or with averaging the weighted average: the one certified and returned. */
  iterate(averaging: boolean): { w: Float64Array; v: Float64Array; l: number } {
    if (!averaging) return { w: this.w, v: this.box.v(), l: this.l };
    return { w: this.bounds ? clipInto(this.wAvg, this.bounds, new Float64Array(this.wAvg.length)) : this.wAvg, v: this.wAvg, l: this.lAvg };
  }
}
