// Tiny problems and brute-force references shared by the tests.
import { ChainModel, type DecodeBackend } from '../../src/models/chain.js';
import { type Problem } from '../../src/core/problem.js';
import { modelProblem } from '../../src/engine/problem.js';
import { Rng } from '../../src/core/rng.js';
import { dotSparse } from '../../src/core/vector.js';
import type { SolverResult } from '../../src/solvers/common.js';
import { expect } from 'vitest';

/** All K^T labellings of a chain of length T. */
export function allLabellings(T: number, K: number): Int32Array[] {
  const out: Int32Array[] = [];
  const y = new Int32Array(T);
  const rec = (t: number) => {
    if (t === T) {
      out.push(Int32Array.from(y));
      return;
    }
    for (let k = 0; k < K; k++) {
      y[t] = k;
      rec(t + 1);
    }
  };
  rec(0);
  return out;
}

export interface TinyChain {
  model: ChainModel;
  xs: Float64Array[];
  ys: Int32Array[];
  problem: Problem<Int32Array>;
}

/** A random chain problem small enough to enumerate (n sequences of length <= maxT, K states, D features). */
export function tinyChain(seed: number, opts: { n?: number; K?: number; D?: number; maxT?: number; backend?: DecodeBackend } = {}): TinyChain {
  const rng = new Rng(seed);
  const n = opts.n ?? 5;
  const K = opts.K ?? 3;
  const D = opts.D ?? 3;
  const maxT = opts.maxT ?? 4;
  const model = new ChainModel({ numFeatures: D, numLabels: K, backend: opts.backend ?? 'js' });
  const xs: Float64Array[] = [];
  const ys: Int32Array[] = [];
  for (let i = 0; i < n; i++) {
    const T = 1 + rng.int(maxT);
    xs.push(Float64Array.from({ length: T * D }, () => rng.next() * 2 - 1));
    ys.push(Int32Array.from({ length: T }, () => rng.int(K)));
  }
  return { model, xs, ys, problem: modelProblem(model, xs, ys) };
}

export function randomW(dim: number, seed: number, scale = 1): Float64Array {
  const rng = new Rng(seed);
  return Float64Array.from({ length: dim }, () => (rng.next() * 2 - 1) * scale);
}

/** H_i(w) = max_y L_i(y) - <w, psi_i(y)> by enumeration. */
export function bruteHinge(t: TinyChain, i: number, w: Float64Array): number {
  let best = -Infinity;
  for (const y of allLabellings(t.ys[i]!.length, t.model.numLabels)) {
    const v = t.model.loss(t.ys[i]!, y) - dotSparse(w, t.model.psi(t.xs[i]!, t.ys[i]!, y));
    if (v > best) best = v;
  }
  return best;
}

/**
 * The boxed tiny chain of the box-constraint tests (2016 App. H): positivity on the transition weights and the
 * box [-0.3, 0.3] on the first-label biases.
 */
export function boxedTinyChain(): { t: TinyChain; lower: Float64Array; upper: Float64Array; boxed: Problem<Int32Array> } {
  const t = tinyChain(71, { n: 7, K: 3, D: 2, maxT: 4 });
  const d = t.model.dim;
  const lower = new Float64Array(d).fill(-Infinity);
  const upper = new Float64Array(d).fill(Infinity);
  for (let j = t.model.offsets.transitions; j < d; j++) lower[j] = 0;
  for (let j = t.model.offsets.first; j < t.model.offsets.last; j++) {
    lower[j] = -0.3;
    upper[j] = 0.3;
  }
  return { t, lower, upper, boxed: { ...t.problem, bounds: { lower, upper } } };
}

/** Primal objective by enumeration. */
export function brutePrimal(t: TinyChain, lambda: number, w: Float64Array): number {
  let s = 0;
  for (let i = 0; i < t.xs.length; i++) s += bruteHinge(t, i, w);
  let wSq = 0;
  for (const v of w) wSq += v * v;
  return 0.5 * lambda * wSq + s / t.xs.length;
}

/**
 * Checks that a run `r` is certified next to a reference solution `ref` of the same tiny problem: its primal
 * equals the enumerated one, the two primals differ by at most the sum of their gaps, and the two weights lie
 * within the certified radii sqrt(2 gap / lambda) of the optimum (strong convexity).
 */
export function expectCertifiedNear(t: TinyChain, lambda: number, r: SolverResult, ref: SolverResult): void {
  const radius = (gap: number) => Math.sqrt((2 * Math.max(gap, 0)) / lambda);
  expect(r.primal).toBeCloseTo(brutePrimal(t, lambda, r.w), 10);
  expect(Math.abs(r.primal! - ref.primal!)).toBeLessThanOrEqual(r.gap! + ref.gap!);
  let distSq = 0;
  for (let j = 0; j < r.w.length; j++) distSq += (r.w[j]! - ref.w[j]!) ** 2;
  expect(Math.sqrt(distSq)).toBeLessThanOrEqual(radius(r.gap!) + radius(ref.gap!));
}
