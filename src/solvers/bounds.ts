import { check } from '../core/errors.js';
import type { Problem } from '../core/problem.js';

/** Box constraints as dense arrays with +-Infinity for free coordinates. */
export interface ClipBounds {
  lower: Float64Array;
  upper: Float64Array;
}

export function resolveBounds(problem: Problem): ClipBounds | undefined {
  const b = problem.bounds;
  if (!b || (!b.lower && !b.upper)) return undefined;
  const d = problem.dim;
  const lower = b.lower ?? new Float64Array(d).fill(-Infinity);
  const upper = b.upper ?? new Float64Array(d).fill(Infinity);
  check(lower.length === d && upper.length === d, `bounds must have length ${d}`);
  for (let j = 0; j < d; j++) {
    check(!Number.isNaN(lower[j]) && !Number.isNaN(upper[j]) && lower[j]! <= upper[j]!, () => `bounds of coordinate ${j} are [${lower[j]}, ${upper[j]}]`);
    check(lower[j]! <= 0 && upper[j]! >= 0, () => `bounds of coordinate ${j} must contain 0 (w = 0 starts the solver), got [${lower[j]}, ${upper[j]}]`);
  }
  return { lower, upper };
}

/** out = clip(v) coordinatewise to [lower, upper]. */
export function clipInto(v: Float64Array, b: ClipBounds, out: Float64Array): Float64Array {
  const { lower, upper } = b;
  for (let j = 0; j < v.length; j++) {
    const x = v[j]!;
    out[j] = x < lower[j]! ? lower[j]! : x > upper[j]! ? upper[j]! : x;
  }
  return out;
}

/**
 * v (unclipped) and w = clip(v) of box-constrained block-coordinate FW (2016 App. H) in one array plus v's values at
 * the bounded coordinates: free coordinates have w = v, so only the bounded ones (a few hundred of pose's 118,435)
 * need keeping twice. Between updates the array `w` holds w; `unclip()` puts v back into it for an update of v, and
 * `reclip()` then saves v's bounded values and clips them: O(bounded coordinates) per step instead of O(d), with
 * the arithmetic of `clipInto` on separate arrays. Without bounds both are no-ops and v is w.
 */
export class ClippedIterate {
  readonly w: Float64Array;
  /** The bounded coordinates, their bounds, and v there. */
  private readonly at: Int32Array;
  private readonly lower: Float64Array;
  private readonly upper: Float64Array;
  private readonly vAt: Float64Array;
  private readonly vFull: Float64Array;

  constructor(d: number, bounds: ClipBounds | undefined) {
    this.w = new Float64Array(d);
    const at: number[] = [];
    if (bounds) for (let j = 0; j < d; j++) if (bounds.lower[j]! > -Infinity || bounds.upper[j]! < Infinity) at.push(j);
    this.at = Int32Array.from(at);
    this.lower = Float64Array.from(at, (j) => bounds!.lower[j]!);
    this.upper = Float64Array.from(at, (j) => bounds!.upper[j]!);
    this.vAt = new Float64Array(at.length);
    this.vFull = at.length > 0 ? new Float64Array(d) : this.w;
  }

  /** The array `w`, now holding v: update it as v, then call `reclip()`. */
  unclip(): Float64Array {
    for (let k = 0; k < this.at.length; k++) this.w[this.at[k]!] = this.vAt[k]!;
    return this.w;
  }

  /** w = clip(v) again after an update of v through `unclip()`. */
  reclip(): void {
    const { w, at, lower, upper, vAt } = this;
    for (let k = 0; k < at.length; k++) {
      const x = w[at[k]!]!;
      vAt[k] = x;
      w[at[k]!] = x < lower[k]! ? lower[k]! : x > upper[k]! ? upper[k]! : x;
    }
  }

  /** The bounded coordinates, their bounds and v there (live arrays: the native step loop clips with them). */
  bounded(): { at: Int32Array; lower: Float64Array; upper: Float64Array; vAt: Float64Array } {
    return { at: this.at, lower: this.lower, upper: this.upper, vAt: this.vAt };
  }

  /** v as a full array: `w` itself without bounds, else a copy (one array, rewritten by every call). */
  v(): Float64Array {
    if (this.vFull === this.w) return this.w;
    this.vFull.set(this.w);
    for (let k = 0; k < this.at.length; k++) this.vFull[this.at[k]!] = this.vAt[k]!;
    return this.vFull;
  }
}
