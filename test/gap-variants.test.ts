import { describe, expect, it } from 'vitest';
import { bcfw } from '../src/solvers/bcfw.js';
import type { TrainSettings, Sampling, StepType } from '../src/solvers/settings.js';
import { fw } from '../src/solvers/fw.js';
import { createSolver } from '../src/solvers/index.js';
import type { SolverCheckpoint } from '../src/solvers/common.js';
import { SumTree } from '../src/sampling/sumtree.js';
import { Rng } from '../src/core/rng.js';
import type { Problem } from '../src/core/problem.js';
import type { SparseVector } from '../src/core/vector.js';
import { decodeModelFile, encodeModelFile } from '../src/io/model-file.js';
import { brutePrimal, expectCertifiedNear, tinyChain } from './helpers/tiny.js';

const samplings: Sampling[] = ['uniform', 'perm', 'gap'];
const steps: StepType[] = ['fw', 'pairwise', 'away', 'hybrid'];

describe('SumTree', () => {
  it('draws with the target frequencies (chi-square)', () => {
    const rng = new Rng(5);
    const weights = [0, 3, 1, 0.5, 7, 0, 2.5, 1e-3, 4, 1];
    const tree = new SumTree(weights.length);
    tree.setAll(weights);
    tree.set(2, 1.5); // an update after the bulk build
    weights[2] = 1.5;
    const total = weights.reduce((a, b) => a + b, 0);
    expect(tree.total).toBeCloseTo(total, 12);
    const draws = 200000;
    const counts = new Array<number>(weights.length).fill(0);
    for (let t = 0; t < draws; t++) counts[tree.sample(rng.next())]!++;
    let chi2 = 0;
    let dof = -1;
    weights.forEach((w, i) => {
      if (w === 0) {
        expect(counts[i]).toBe(0); // zero-weight blocks are never drawn
        return;
      }
      const expected = (draws * w) / total;
      chi2 += (counts[i]! - expected) ** 2 / expected;
      dof++;
    });
    // 99.9% quantile of chi-square with 7 degrees of freedom is 24.32.
    expect(dof).toBe(7);
    expect(chi2).toBeLessThan(24.32);
  });

  it('handles the all-zero case and sizes that are not powers of two', () => {
    const tree = new SumTree(5);
    expect(tree.sample(0.3)).toBe(-1);
    tree.set(4, 2);
    for (const u of [0, 0.5, 0.999999]) expect(tree.sample(u)).toBe(4);
    expect(() => tree.set(1, -1)).toThrow(/>= 0/);
    expect(() => tree.set(1, Infinity)).toThrow(/finite/);
  });
});

describe('every combination of sampling x step x cache', () => {
  const t = tinyChain(31, { n: 6, K: 3, D: 2, maxT: 3 });
  const lambda = 0.1;
  const threshold = 1e-4;
  const ref = fw(t.problem, { lambda, gapThreshold: threshold, maxPasses: 200000 });
  const combos = samplings.flatMap((sampling) => steps.flatMap((step) => [false, true].map((cache) => ({ sampling, step, cache }))));

  it.each(combos)('%o converges to the optimum with consistent dual variables', ({ sampling, step, cache }) => {
    const r = bcfw(t.problem, { lambda, sampling, step, cache, gapThreshold: threshold, maxPasses: 100000, checkConsistency: true, seed: 3 });
    expect(r.stopReason).toBe('gap');
    expect(r.gap!).toBeLessThanOrEqual(threshold);
    expectCertifiedNear(t, lambda, r, ref);
    if (step !== 'fw') expect(r.counters[step === 'pairwise' ? 'pairwiseSteps' : 'fwSteps'] + r.counters.awaySteps + r.counters.pairwiseSteps).toBeGreaterThan(0);
    if (cache) expect(r.counters.cacheHits).toBeGreaterThan(0);
  });

  it('the dual never gets worse, whatever the move', () => {
    for (const step of steps) {
      let prev = -Infinity;
      bcfw(t.problem, { lambda, step, cache: true, sampling: 'gap', maxPasses: 200, gapThreshold: 0 }, { onStep: (s) => {
          expect(s.dual).toBeGreaterThanOrEqual(prev - 1e-12);
          prev = s.dual;
        } });
    }
  });
});

describe('active-set invariants under stress', () => {
  it('hold after thousands of steps with a tiny cache (active atoms are never evicted)', () => {
    const t = tinyChain(77, { n: 10, K: 4, D: 3, maxT: 4 });
    for (const step of ['pairwise', 'away', 'hybrid'] as const) {
      let maxStored = 0;
      const r = bcfw(t.problem, { lambda: 0.01, step, sampling: 'gap', cache: { maxSize: 2 }, maxPasses: 400, gapThreshold: 0, gapCheck: 7, checkConsistency: true }, { onStep: () => undefined, onProgress: (e) => { maxStored = Math.max(maxStored, Number(e.storedLabels ?? 0)); } });
      expect(r.counters.fwSteps + r.counters.awaySteps + r.counters.pairwiseSteps).toBeGreaterThan(1000);
      expect(r.counters.dropSteps).toBeGreaterThan(0);
      // With pairwise/away steps active atoms stay: the store may grow beyond maxSize per block.
      expect(maxStored).toBeGreaterThan(2 * t.problem.n);
    }
  });

  it('FW steps with a tiny cache evict active atoms but keep w_i authoritative', () => {
    const t = tinyChain(78, { n: 8, K: 4, D: 3, maxT: 4 });
    const r = bcfw(t.problem, { lambda: 0.05, step: 'fw', cache: { maxSize: 2 }, gapThreshold: 1e-3, maxPasses: 50000 });
    expect(r.stopReason).toBe('gap');
    expect(r.storedLabels!).toBeLessThanOrEqual(2 * t.problem.n);
  });
});

describe('gap sampling details', () => {
  it('visits every block once, in random order, before revisiting any', () => {
    const t = tinyChain(12, { n: 15 });
    const firstVisits: number[] = [];
    bcfw(t.problem, { lambda: 0.1, sampling: 'gap', maxPasses: 1 }, { onStep: (s) => firstVisits.push(s.block) });
    expect([...firstVisits].sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(firstVisits).not.toEqual(Array.from({ length: 15 }, (_, i) => i));
  });

  it('leaves a block of passes early on a small estimated gap and confirms with an exact pass', () => {
    const t = tinyChain(13, { n: 10 });
    const r = bcfw(t.problem, { lambda: 0.5, sampling: 'gap', step: 'pairwise', gapThreshold: 1e-3, gapCheck: 1000, maxPasses: 100000 });
    expect(r.stopReason).toBe('gap');
    const exact = r.trace.filter((e) => e.gapIsExact);
    expect(exact.length).toBeGreaterThanOrEqual(1);
    expect(exact[0]!.pass).toBeLessThan(1000); // the heuristic exit, not the schedule, triggered the check
  });

  it('survives all-zero gap estimates (threshold 0)', () => {
    const t = tinyChain(14, { n: 4 });
    const r = bcfw(t.problem, { lambda: 10, sampling: 'gap', step: 'pairwise', gapThreshold: 0, maxPasses: 300 });
    expect(Number.isFinite(r.gap!)).toBe(true);
  });
});

describe('resume with dual variables, caches and gap estimates', () => {
  it('reproduces the uninterrupted trace exactly', () => {
    const t = tinyChain(40, { n: 12, K: 3, D: 3, maxT: 4 });
    const options: TrainSettings = { lambda: 0.05, sampling: 'gap', step: 'hybrid', cache: { maxSize: 3 }, maxPasses: 25, gapCheck: 4, gapThreshold: 0, seed: 9 };
    const strip = (trace: { seconds: number }[]) => trace.map(({ seconds: _s, ...rest }) => rest);
    const full = bcfw(t.problem, options);
    for (const stopAfter of [1, 6, 13]) {
      const first = createSolver(t.problem, options);
      for (let p = 0; p < stopAfter; p++) first.runPass();
      const c = first.checkpoint();
      const back = decodeModelFile(encodeModelFile({ meta: c.meta, arrays: c.arrays }));
      const resumed = createSolver(t.problem, options, { resume: { meta: back.meta as SolverCheckpoint['meta'], arrays: back.arrays as Record<string, Float64Array> } });
      while (resumed.runPass());
      const r = resumed.result();
      expect(strip(r.trace)).toEqual(strip(full.trace));
      expect(Array.from(r.w)).toEqual(Array.from(full.w));
    }
  });
});

/**
 * The toy problem of the 2016 supplement, App. C: lambda = 1/n, one hard block whose K wrong labels have
 * orthogonal psi = a e_y (a^2 = K, so the optimum spreads mass 1/K over all of them and FW needs about K
 * steps on it), and n - 1 easy blocks whose wrong labels all have psi = e_{K+1}: one visit to any easy
 * block makes every easy block optimal. Gap sampling stops visiting them; uniform sampling keeps paying
 * n - 1 useless oracle calls per hard step, so it needs about n times more oracle calls.
 */
function toyProblem(n: number, K: number): Problem<number> {
  const a = Math.sqrt(K);
  const psiOf = (i: number, y: number): SparseVector =>
    y === 0 ? { indices: new Int32Array(0), values: new Float64Array(0), nnz: 0 }
      : i === 0 ? { indices: Int32Array.of(y - 1), values: Float64Array.of(a), nnz: 1 }
        : { indices: Int32Array.of(K), values: Float64Array.of(1), nnz: 1 };
  const score = (i: number, w: Float64Array, y: number) => (y === 0 ? 0 : 1 - (i === 0 ? a * w[y - 1]! : w[K]!));
  const argmax = (i: number, w: Float64Array) => {
    let best = 0;
    for (let y = 1; y <= K; y++) if (score(i, w, y) > score(i, w, best)) best = y;
    return best;
  };
  return {
    n, dim: K + 1,
    oracle: argmax,
    psi: psiOf,
    loss: (_i, y) => (y === 0 ? 0 : 1),
    predict: argmax,
    groundTruth: () => 0,
    labelKey: (y) => String(y),
    labelScores: (i, w, labels, out) => labels.forEach((y, k) => (out[k] = score(i, w, y))),
    labelToJSON: (y) => y,
    labelFromJSON: (v) => Number(v),
  };
}

describe('App. C toy problem', () => {
  it('gap sampling needs about n times fewer oracle calls than uniform sampling', () => {
    const n = 20;
    const K = 40;
    const problem = toyProblem(n, K);
    const calls = (sampling: Sampling) =>
      bcfw(problem, { lambda: 1 / n, sampling, averaging: false, heuristicExit: false, gapThreshold: 1e-3, maxPasses: 1e6, seed: 1 }).oracleCalls;
    const gap = calls('gap');
    const uniform = calls('uniform');
    // Expected ratio about n * steps / (n + steps) with exact passes included: well above n / 3.
    expect(uniform / gap).toBeGreaterThan(n / 3);
  });
});

describe('warm start from another lambda', () => {
  const t = tinyChain(55, { n: 8, K: 3, D: 3, maxT: 4 });
  const lambda1 = 0.2;
  const lambda2 = 0.05;

  it('keep-primal moves every exact block gap by (1 - rho)(l_i - lambda w_i^T w) (Prop. 1)', () => {
    for (const step of ['fw', 'pairwise'] as const) {
      const first = createSolver(t.problem, { lambda: lambda1, step, sampling: 'gap', gapThreshold: 1e-3, maxPasses: 10000 });
      while (first.runPass());
      expect(first.stopReason).toBe('gap');
      const ckpt = first.checkpoint();
      expect(ckpt.meta.estimatesExact).toBe(true);
      const rho = lambda2 / lambda1;
      const { n, dim: d } = t.problem;
      const wBlocks = ckpt.arrays.wBlocks!;
      const lBlocks = ckpt.arrays.lBlocks!;
      const w = ckpt.arrays.w!;
      const predicted = Array.from(ckpt.arrays.gapEst!, (g, i) => {
        let wiw = 0;
        for (let j = 0; j < d; j++) wiw += wBlocks[i * d + j]! * w[j]!;
        return g + (1 - rho) * (lBlocks[i]! - lambda1 * wiw);
      });
      // maxPasses 0: no step, only the final exact pass at lambda2 with the warm-started blocks.
      const second = bcfw(t.problem, { lambda: lambda2, step, sampling: 'gap', maxPasses: 0, checkConsistency: true }, { warmStart: { from: ckpt } });
      expect(Array.from(second.w)).toEqual(Array.from(w)); // the primal is kept
      for (let i = 0; i < n; i++) expect(second.blockGaps![i]).toBeCloseTo(Math.max(predicted[i]!, 0), 10);
    }
  });

  it('keep-primal and keep-dual runs converge, with consistent dual variables, and warm beats cold', () => {
    const first = createSolver(t.problem, { lambda: lambda1, step: 'pairwise', cache: true, sampling: 'gap', gapThreshold: 1e-3, maxPasses: 10000 });
    while (first.runPass());
    const from = first.checkpoint();
    const common = { lambda: lambda2, step: 'pairwise' as const, cache: true, sampling: 'gap' as const, gapThreshold: 1e-3, maxPasses: 10000, checkConsistency: true };
    const cold = bcfw(t.problem, common);
    for (const mode of ['keep-primal', 'keep-dual'] as const) {
      const warm = bcfw(t.problem, { ...common }, { warmStart: { from, mode } });
      expect(warm.stopReason).toBe('gap');
      expect(Math.abs(warm.primal! - cold.primal!)).toBeLessThanOrEqual(warm.gap! + cold.gap!);
      if (mode === 'keep-primal') expect(warm.oracleCalls).toBeLessThan(cold.oracleCalls);
    }
  });

  it('refuses to raise lambda with keep-primal when a ground-truth weight would go negative', () => {
    const first = createSolver(t.problem, { lambda: 0.01, step: 'pairwise', gapThreshold: 1e-3, maxPasses: 10000 });
    while (first.runPass());
    expect(() => bcfw(t.problem, { lambda: 10, step: 'pairwise' }, { warmStart: { from: first.checkpoint() } })).toThrow(/keep-dual/);
    expect(() => bcfw(t.problem, { lambda: 10, step: 'pairwise', maxPasses: 3 }, { warmStart: { from: first.checkpoint(), mode: 'keep-dual' } })).not.toThrow();
  });
});

describe('sparse block storage', () => {
  const t = tinyChain(61, { n: 9, K: 3, D: 3, maxT: 4 });
  // Trajectories are not bit-identical: summation order differs, and near the optimum many labels tie with
  // the ground truth, so rounding decides ties differently. Both must reach the same certified optimum.
  it.each(steps.flatMap((step) => [false, true].map((cache) => ({ step, cache }))))('reaches the dense optimum (%o)', ({ step, cache }) => {
    const lambda = 0.05;
    const common: TrainSettings = { lambda, step, cache, sampling: 'gap', maxPasses: 100000, gapThreshold: 1e-4, seed: 2, checkConsistency: true };
    const dense = bcfw(t.problem, { ...common, blockStorage: 'dense' });
    const sparse = bcfw(t.problem, { ...common, blockStorage: 'sparse' });
    expect(sparse.stopReason).toBe('gap');
    expect(sparse.primal).toBeCloseTo(brutePrimal(t, lambda, sparse.w), 10);
    expect(Math.abs(sparse.primal! - dense.primal!)).toBeLessThanOrEqual(sparse.gap! + dense.gap!);
  });

  it('equals dense storage step for step while no ties occur (the first pass from w = 0)', () => {
    const common: TrainSettings = { lambda: 0.05, step: 'hybrid', cache: true, sampling: 'perm', maxPasses: 1, gapThreshold: 0, seed: 2 };
    const dense = bcfw(t.problem, { ...common, blockStorage: 'dense' });
    const sparse = bcfw(t.problem, { ...common, blockStorage: 'sparse' });
    expect(sparse.oracleCalls).toBe(dense.oracleCalls);
    for (let j = 0; j < dense.w.length; j++) expect(sparse.w[j]).toBeCloseTo(dense.w[j]!, 12);
  });

  it('checkpoints and resumes exactly, and refuses averaging', () => {
    const options: TrainSettings = { lambda: 0.05, step: 'pairwise', cache: true, sampling: 'gap', maxPasses: 20, gapCheck: 4, gapThreshold: 0, blockStorage: 'sparse' };
    const full = bcfw(t.problem, options);
    const first = createSolver(t.problem, options);
    for (let p = 0; p < 7; p++) first.runPass();
    const c = first.checkpoint();
    const back = decodeModelFile(encodeModelFile({ meta: c.meta, arrays: c.arrays }));
    const resumed = createSolver(t.problem, options, { resume: { meta: back.meta as SolverCheckpoint['meta'], arrays: back.arrays as SolverCheckpoint['arrays'] } });
    while (resumed.runPass());
    expect(Array.from(resumed.result().w)).toEqual(Array.from(full.w));
    expect(() => bcfw(t.problem, { blockStorage: 'sparse', averaging: true })).toThrow(/dense/);
  });
});
