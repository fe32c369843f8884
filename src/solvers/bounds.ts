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

