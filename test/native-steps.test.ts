// The native step loop (issue 36: native/solver/bcfw_loop.h, src/solvers/native-steps.ts) against the TypeScript
// engine on tiny problems of the three built-in models it runs on (dense chains, sparse chains, multiclass): for every
// switch combination the traces and weights are the same bit for bit, and both reach the enumerated optimum; box
// constraints, the heuristic exit, averaging and the fixed step; checkpoints taken in the middle of a native run are
// byte for byte the TypeScript engine's and resume exactly; threads never change a trace; exact steps (native
// multiclass projection, TypeScript working-set solve) reach the optimum; bad input to the native loop is an error,
// never a crash.
import { describe, expect, it } from 'vitest';
import type { Problem } from '../src/core/problem.js';
import { modelProblem } from '../src/engine/problem.js';
import { Rng } from '../src/core/rng.js';
import { dotSparse, type SparseVector } from '../src/core/vector.js';
import { MulticlassModel } from '../src/models/multiclass.js';
import { SparseChainModel, type SparseSequence } from '../src/models/sparse-chain.js';
import { native } from '../src/native/addon.js';
import { bcfw, type BcfwResult } from '../src/solvers/bcfw.js';
import type { Sampling, StepType, TrainSettings } from '../src/solvers/settings.js';
import type { ProgressEvent, SolverCheckpoint } from '../src/solvers/common.js';
import { createSolver } from '../src/solvers/index.js';
import { encodeModelFile } from '../src/io/model-file.js';
import { setThreads, threadCap } from '../src/native/threads.js';
import { allLabellings, boxedTinyChain, tinyChain } from './helpers/tiny.js';
import { cli } from './helpers/capture.js';
import { documentedCommand, runnable } from './helpers/docs.js';
import { needsData } from './helpers/skips.js';
import { writeTinyLibsvm } from './helpers/tiny-data.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function bits(x: number): string {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  return v.getBigUint64(0).toString(16);
}
/** Every field of every event but the wall-clock seconds, numbers as their bits. */
const traceBits = (trace: readonly ProgressEvent[]) => trace.map(({ seconds: _s, ...e }) => Object.entries(e).map(([k, v]) => [k, typeof v === 'number' ? bits(v) : v]));
const same = (a: BcfwResult, b: BcfwResult) => {
  expect(traceBits(b.trace)).toEqual(traceBits(a.trace));
  expect(Array.from(b.w, bits)).toEqual(Array.from(a.w, bits));
  expect(b.counters).toEqual(a.counters);
};

/** A tiny sparse chain problem (SparseChainModel with the native decoder): n sequences, F attributes, K states. */
function tinySparseChain(seed: number, n = 6, F = 7, K = 3): Problem<Int32Array> {
  const rng = new Rng(seed);
  const xs: SparseSequence[] = [];
  const ys: Int32Array[] = [];
  for (let i = 0; i < n; i++) {
    const T = 1 + rng.int(4);
    const offsets = new Int32Array(T + 1);
    const ids: number[] = [];
    const values: number[] = [];
    for (let t = 0; t < T; t++) {
      for (let f = 0; f < F; f++) {
        if (rng.next() < 0.4) {
          ids.push(f);
          values.push(rng.next() * 2 - 1);
        }
      }
      offsets[t + 1] = ids.length;
    }
    xs.push({ offsets, ids: Int32Array.from(ids), values: Float64Array.from(values) });
    ys.push(Int32Array.from({ length: T }, () => rng.int(K)));
  }
  return modelProblem(new SparseChainModel({ numFeatures: F, numLabels: K }), xs, ys);
}

/** A tiny multiclass problem: n rows of F features (some zero, some repeated ids), K classes. */
function tinyMulticlass(seed: number, n = 9, F = 4, K = 3): Problem<number> {
  const rng = new Rng(seed);
  const xs: SparseVector[] = [];
  const ys: number[] = [];
  for (let i = 0; i < n; i++) {
    const y = rng.int(K);
    const ids: number[] = [];
    const values: number[] = [];
    for (let f = 0; f < F; f++) {
      if (rng.next() < 0.7) {
        ids.push(f);
        values.push((f === y ? 1 : 0) + rng.next() - 0.5);
      }
    }
    xs.push({ indices: Int32Array.from(ids), values: Float64Array.from(values), nnz: ids.length });
    ys.push(y);
  }
  return modelProblem(new MulticlassModel(F, K), xs, ys);
}

/** Every label of block i: all labellings of a chain, all classes. */
function labelsOf(problem: Problem, i: number, K: number): unknown[] {
  const y = problem.groundTruth(i);
  if (typeof y === 'number') return Array.from({ length: K }, (_, k) => k);
  return allLabellings((y as Int32Array).length, K);
}

/** Primal objective by enumeration of every block's labels. */
function brutePrimal(problem: Problem, K: number, lambda: number, w: Float64Array): number {
  let s = 0;
  for (let i = 0; i < problem.n; i++) {
    let best = -Infinity;
    for (const y of labelsOf(problem, i, K)) best = Math.max(best, problem.loss(i, y) - dotSparse(w, problem.psi(i, y)));
    s += best;
  }
  let wSq = 0;
  for (const v of w) wSq += v * v;
  return 0.5 * lambda * wSq + s / problem.n;
}

/** A reference solution certified to 1e-9 by other means: the TypeScript pairwise steps (linear convergence). */
function reference(problem: Problem, lambda: number): BcfwResult {
  const ref = bcfw(problem, { lambda, step: 'pairwise', sampling: 'gap', gapThreshold: 1e-9, maxPasses: 1e6, native: false });
  expect(ref.gap!).toBeLessThanOrEqual(1e-9);
  return ref;
}

/** A certified run next to a reference: its primal is the enumerated one, and both lie within their certified radii. */
function expectOptimum(problem: Problem, K: number, lambda: number, r: BcfwResult, ref: BcfwResult): void {
  expect(r.gapIsExact).toBe(true);
  expect(r.primal).toBeCloseTo(brutePrimal(problem, K, lambda, r.w), 10);
  expect(Math.abs(r.primal! - ref.primal!)).toBeLessThanOrEqual(r.gap! + ref.gap! + 1e-12);
  const radius = (gap: number) => Math.sqrt((2 * Math.max(gap, 0)) / lambda);
  let distSq = 0;
  for (let j = 0; j < r.w.length; j++) distSq += (r.w[j]! - ref.w[j]!) ** 2;
  expect(Math.sqrt(distSq)).toBeLessThanOrEqual(radius(r.gap!) + radius(ref.gap!) + 1e-9);
}

const MODELS: [string, () => Problem, number][] = [
  ['dense chain', () => tinyChain(31, { n: 6, K: 3, D: 2, maxT: 3, backend: 'native' }).problem, 3],
  ['sparse chain', () => tinySparseChain(5), 3],
  ['multiclass', () => tinyMulticlass(8), 3],
];
const samplings: Sampling[] = ['uniform', 'perm', 'gap'];
const steps: StepType[] = ['fw', 'pairwise', 'away', 'hybrid'];
const combos = samplings.flatMap((sampling) => steps.flatMap((step) => [false, true].map((cache) => ({ sampling, step, cache }))));

describe.each(MODELS)('%s: the native loop is the TypeScript engine', (_name, make, K) => {
  const problem = make();
  const lambda = 0.1;
  const ref = reference(problem, lambda);

  it.each(combos)('%o: the same trace and weights bit for bit, and the enumerated optimum', ({ sampling, step, cache }) => {
    // FW steps converge sublinearly: a looser threshold (the certificate still bounds the distance to the optimum).
    const o: TrainSettings = { lambda, sampling, step, cache: cache ? { maxSize: 2 } : false, gapThreshold: step === 'fw' ? 3e-3 : 1e-5, gapCheck: 3, maxPasses: 20000, seed: 3 };
    const ts = bcfw(problem, { ...o, native: false });
    const nat = bcfw(problem, o);
    expect(ts.native).toBe(false);
    expect(nat.native).toBe(true);
    same(ts, nat);
    expect(nat.stopReason).toBe('gap');
    expectOptimum(problem, K, lambda, nat, ref);
  });

  it('averaging, the fixed step, gap degree 2 and the heuristic exit off: the same bits', () => {
    for (const o of [{ averaging: true }, { lineSearch: false }, { sampling: 'gap', gapDegree: 2 }, { sampling: 'perm', heuristicExit: false }, { step: 'hybrid', cache: { maxSize: 1, nu: 0, factor: 0 } }] as TrainSettings[]) {
      const run = (native: boolean) => bcfw(problem, { lambda, gapThreshold: 0, gapCheck: 4, maxPasses: 30, seed: 7, native, ...o });
      same(run(false), run(true));
    }
  });
});

describe('shrinking (perm sampling skips blocks whose gap estimate is 0)', () => {
  it.each(MODELS)('%s: the native loop is the TypeScript engine bit for bit, with no more oracle calls per pass than without, at the enumerated optimum', (_name, make, K) => {
    const problem = make();
    const lambda = 0.1;
    const ref = reference(problem, lambda);
    for (const step of steps) {
      const o: TrainSettings = { lambda, sampling: 'perm', step, gapThreshold: step === 'fw' ? 3e-3 : 1e-5, gapCheck: 3, maxPasses: 20000, seed: 3 };
      const ts = bcfw(problem, { ...o, shrinking: true, native: false });
      const nat = bcfw(problem, { ...o, shrinking: true });
      same(ts, nat);
      expectOptimum(problem, K, lambda, nat, ref);
      // Per pass a shrunk run makes at most the calls of a plain one, fewer once blocks settle at a gap of exactly 0.
      const plain = bcfw(problem, { ...o, shrinking: false });
      const callsPerPass = (r: BcfwResult) => r.oracleCalls / r.passes;
      expect(callsPerPass(nat)).toBeLessThanOrEqual(callsPerPass(plain));
    }
  });

  it('is on by default for exact steps with perm sampling: the same optimum as without in fewer oracle calls; a checkpoint resumes it exactly', () => {
    const problem = tinyMulticlass(21, 40, 4, 4);
    const lambda = 0.05;
    const ref = reference(problem, lambda);
    const o: TrainSettings = { lambda, step: 'exact', sampling: 'perm', gapThreshold: 1e-8, gapCheck: 5, maxPasses: 10000, seed: 4 };
    const shrunk = bcfw(problem, o);
    const plain = bcfw(problem, { ...o, shrinking: false });
    expectOptimum(problem, 4, lambda, shrunk, ref);
    expectOptimum(problem, 4, lambda, plain, ref);
    expect(shrunk.oracleCalls).toBeLessThan(plain.oracleCalls);
    // maxPasses counts the block steps that called the oracle: skipped blocks are free, as cache hits are.
    const capped = bcfw(problem, { ...o, gapThreshold: 0, maxPasses: 5 });
    const counted = capped.passes - capped.counters.skippedBlocks / problem.n;
    expect(capped.passes).toBeGreaterThan(5);
    expect(counted).toBeGreaterThanOrEqual(5);
    expect(counted).toBeLessThan(6);
    const whole = createSolver(problem, { ...o, gapThreshold: 0, maxPasses: 40 });
    while (whole.runPass());
    const first = createSolver(problem, { ...o, gapThreshold: 0, maxPasses: 40 });
    for (let p = 0; p < 12; p++) first.runPass();
    const at = first.checkpoint();
    expect(at.meta.options.shrinking).toBe(true);
    const resumed = createSolver(problem, { ...o, gapThreshold: 0, maxPasses: 40 }, { resume: at });
    while (resumed.runPass());
    expect(checkpointBytes(resumed.checkpoint())).toBe(checkpointBytes(whole.checkpoint()));
    expect(() => createSolver(problem, { ...o, shrinking: false }, { resume: at })).toThrow(/checkpoint was made with shrinking = true, not false/);
  });

  it('is refused where it cannot apply', () => {
    const problem = tinyMulticlass(8);
    expect(() => bcfw(problem, { sampling: 'gap', shrinking: true })).toThrow(/--shrinking .* needs --sampling perm/);
    expect(() => bcfw(problem, { sampling: 'uniform', step: 'exact', shrinking: true })).toThrow(/needs --sampling perm/);
    expect(() => bcfw(problem, { sampling: 'perm', batch: 2, shrinking: true })).toThrow(/cannot be combined with --batch > 1/);
  });
});

describe('box constraints (2016 App. H) in the native loop', () => {
  it('give the TypeScript engine\'s trace bit for bit and a feasible certified optimum', () => {
    const { t, lower, upper } = boxedTinyChain();
    const nativeChain = tinyChain(71, { n: 7, K: 3, D: 2, maxT: 4, backend: 'native' });
    const boxed: Problem = { ...nativeChain.problem, bounds: { lower, upper } };
    expect(nativeChain.xs).toEqual(t.xs);
    for (const step of steps) {
      const o: TrainSettings = { lambda: 0.05, step, sampling: 'gap', gapThreshold: 1e-6, maxPasses: 20000, seed: 2 };
      const ts = bcfw(boxed, { ...o, native: false });
      const nat = bcfw(boxed, o);
      expect(nat.native).toBe(true);
      same(ts, nat);
      for (let j = 0; j < lower.length; j++) expect(nat.w[j]! >= lower[j]! && nat.w[j]! <= upper[j]!).toBe(true);
    }
  });
});

/** A checkpoint's bytes with the wall-clock fields zeroed. */
function checkpointBytes(c: SolverCheckpoint): string {
  const meta = { ...c.meta, seconds: 0, trace: c.meta.trace.map((e) => ({ ...e, seconds: 0 })) };
  return Buffer.from(encodeModelFile({ meta, arrays: c.arrays })).toString('hex');
}

describe('checkpoints in the middle of a native run', () => {
  const problem = tinyChain(40, { n: 12, K: 3, D: 3, maxT: 4, backend: 'native' }).problem;
  const options: TrainSettings = { lambda: 0.05, sampling: 'gap', step: 'hybrid', cache: { maxSize: 3 }, maxPasses: 25, gapCheck: 4, gapThreshold: 0, seed: 9 };

  it('are byte for byte the TypeScript engine\'s, and resume to the uninterrupted run\'s final state', () => {
    const whole = createSolver(problem, options);
    while (whole.runPass());
    for (const stopAfter of [1, 6, 13]) {
      const solvers = [false, true].map((native) => createSolver(problem, { ...options, native }));
      for (const s of solvers) for (let p = 0; p < stopAfter; p++) s.runPass();
      const [ts, nat] = solvers.map((s) => s!.checkpoint());
      expect(checkpointBytes(nat!)).toBe(checkpointBytes(ts!));
      const resumed = createSolver(problem, options, { resume: nat });
      while (resumed.runPass());
      expect(checkpointBytes(resumed.checkpoint())).toBe(checkpointBytes(whole.checkpoint()));
    }
  });

  it('of a TypeScript run resume natively alike (and the other way round)', () => {
    const full = bcfw(problem, { ...options, native: false });
    for (const [from, to] of [[false, true], [true, false]]) {
      const first = createSolver(problem, { ...options, native: from });
      for (let p = 0; p < 7; p++) first.runPass();
      const resumed = createSolver(problem, { ...options, native: to }, { resume: first.checkpoint() });
      while (resumed.runPass());
      expect(traceBits(resumed.result().trace)).toEqual(traceBits(full.trace));
    }
  });
});

describe('threads', () => {
  it('never change a native trace', () => {
    const before = threadCap();
    try {
      const problem = tinySparseChain(12, 20);
      const run = () => bcfw(problem, { lambda: 0.02, step: 'pairwise', sampling: 'gap', cache: true, maxPasses: 15, gapCheck: 3, gapThreshold: 0, seed: 5 });
      setThreads(1);
      const one = run();
      setThreads(2);
      same(one, run());
      setThreads(undefined);
      same(one, run());
    } finally {
      setThreads(before);
    }
  });
});

describe('exact steps', () => {
  it.each(samplings)('multiclass (%s sampling): the native projection and the TypeScript working-set solve reach the enumerated optimum', (sampling) => {
    const problem = tinyMulticlass(21, 12, 4, 4);
    const lambda = 0.05;
    const ref = reference(problem, lambda);
    const nat = bcfw(problem, { lambda, step: 'exact', sampling, gapThreshold: 1e-8, maxPasses: 10000, seed: 4 });
    const ts = bcfw(problem, { lambda, step: 'exact', sampling, gapThreshold: 1e-8, maxPasses: 10000, seed: 4, native: false });
    expect(nat.native).toBe(true);
    expect(ts.native).toBe(false);
    expect(nat.counters.exactSteps).toBeGreaterThan(0);
    expectOptimum(problem, 4, lambda, nat, ref);
    expectOptimum(problem, 4, lambda, ts, ref);
  });

  it('chains: the working-set solve reaches the enumerated optimum', () => {
    const t = tinyChain(31, { n: 6, K: 3, D: 2, maxT: 3, backend: 'native' });
    const lambda = 0.1;
    const ref = reference(t.problem, lambda);
    const r = bcfw(t.problem, { lambda, step: 'exact', sampling: 'gap', gapThreshold: 1e-6, maxPasses: 10000, seed: 1 });
    expect(r.native).toBe(false);
    expectOptimum(t.problem, 3, lambda, r, ref);
  });
});

describe('bad input to the native loop', () => {
  const problem = tinyMulticlass(3);
  const model = problem.batch!.stepModel!() as object;
  const n = problem.n;
  const d = problem.dim;
  const good = () => ({
    model, lambda: 0.1, step: 'fw' as const, sampling: 'uniform' as const, gapDegree: 1, lineSearch: true, averaging: false, cache: null, exitBelow: -Infinity, threads: 1, chunked: false,
    w: new Float64Array(d), wAvg: null, lBlocks: new Float64Array(n), scalars: new Float64Array(7), counters: new Float64Array(9), gapEst: new Float64Array(n).fill(Infinity),
    estTotals: Float64Array.of(0, n), tree: new Float64Array(32), firstVisit: Int32Array.from({ length: n }, (_, i) => i), order: Int32Array.from({ length: n }, (_, i) => i),
    rng: Uint32Array.of(1, 2, 3, 4), bounds: null, blocks: new Float64Array(n * d) as Float64Array | null, classAlpha: null as Float64Array | null, stepCosts: null,
  });

  it('is a TypeError or RangeError, never a crash', () => {
    expect(() => new native.BcfwSteps({ ...good(), model: {} })).toThrow(TypeError);
    expect(() => new native.BcfwSteps({ ...good(), lambda: -1 })).toThrow(RangeError);
    expect(() => new native.BcfwSteps({ ...good(), w: new Float64Array(3) })).toThrow(RangeError);
    expect(() => new native.BcfwSteps({ ...good(), step: 'bogus' as 'fw' })).toThrow(TypeError);
    expect(() => new native.BcfwSteps({ ...good(), blocks: new Float64Array(2) })).toThrow(RangeError);
    expect(() => new native.BcfwSteps({ ...good(), step: 'exact', blocks: null })).toThrow(TypeError);
    expect(() => new native.BcfwSteps({ ...good(), bounds: { at: Int32Array.of(d), lower: Float64Array.of(0), upper: Float64Array.of(1), vAt: Float64Array.of(0) } })).toThrow(RangeError);
    const loop = new native.BcfwSteps({ ...good(), step: 'pairwise' });
    expect(() => loop.run(0, n + 1)).toThrow(RangeError);
    expect(() => loop.run(2, 1)).toThrow(RangeError);
    expect(() => loop.setAtoms({ sizes: new Int32Array(n).fill(1), labels: new Int32Array(n).fill(7), alpha: new Float64Array(n).fill(1), loss: new Float64Array(n), exact: new Uint8Array(n) })).toThrow(RangeError);
    expect(() => loop.setAtoms({ sizes: new Int32Array(n).fill(1), labels: new Int32Array(n), alpha: new Float64Array(n).fill(NaN), loss: new Float64Array(n), exact: new Uint8Array(n) })).toThrow(RangeError);
  });

  it('a corrupt sampling state or a non-finite iterate is an Error from the step, not a crash', () => {
    const order = good();
    order.order[0] = 99;
    expect(() => new native.BcfwSteps({ ...order, sampling: 'perm' }).run(0, 1)).toThrow(/outside 0\.\./);
    const nan = good();
    nan.w.fill(NaN);
    expect(() => new native.BcfwSteps(nan).run(0, 1)).toThrow(/max-oracle is not exact|SumTree weight/);
    const exact = { ...good(), step: 'exact' as const, blocks: null, classAlpha: new Float64Array(n * 3) };
    exact.w.fill(NaN);
    expect(() => new native.BcfwSteps(exact).run(0, 1)).toThrow(/not finite|SumTree weight/);
  });

  it('a detached array is a RangeError', () => {
    const o = good();
    const loop = new native.BcfwSteps(o);
    structuredClone(o.lBlocks.buffer, { transfer: [o.lBlocks.buffer] });
    expect(() => loop.run(0, 1)).toThrow(/detached/);
  });
});

describe('the command line', () => {
  const data = writeTinyLibsvm(mkdtempSync(join(tmpdir(), 'gapbcfw-native-steps-')));

  it('trains multiclass data with exact steps, perm sampling and shrinking by default; --solver picks another (with its own sampling default)', async () => {
    const def = await cli('train', data.train, '--test', data.test, '--lambda', '0.01', '--gap-threshold', '1e-6', '--json', '--quiet');
    expect(def.code, def.stderr).toBe(0);
    expect(def.json).toMatchObject({ solver: 'exact', sampling: 'perm', shrinking: true, gapIsExact: true });
    expect(def.json!.gap as number).toBeLessThanOrEqual(1e-6);
    const bcfw = await cli('train', data.train, '--lambda', '0.01', '--solver', 'bcfw', '--max-passes', '3', '--json', '--quiet');
    expect(bcfw.code, bcfw.stderr).toBe(0);
    expect(bcfw.json).toMatchObject({ solver: 'bcfw', sampling: 'uniform' });
    const gap = await cli('train', data.train, '--lambda', '0.01', '--solver', 'exact', '--sampling', 'gap', '--max-passes', '3', '--json', '--quiet');
    expect(gap.json).toMatchObject({ solver: 'exact', sampling: 'gap' });
    expect(gap.json).not.toHaveProperty('shrinking');
    const unshrunk = await cli('train', data.train, '--lambda', '0.01', '--no-shrinking', '--max-passes', '3', '--json', '--quiet');
    expect(unshrunk.json).toMatchObject({ solver: 'exact', sampling: 'perm' });
    expect(unshrunk.json).not.toHaveProperty('shrinking');
    expect((await cli('train', data.train, '--sampling', 'gap', '--shrinking')).stderr).toMatch(/--shrinking skips blocks of a pass's permutation: it needs --sampling perm/);
    // --step chooses too: the task's default then stays out.
    const step = await cli('train', data.train, '--lambda', '0.01', '--step', 'pairwise', '--max-passes', '3', '--json', '--quiet');
    expect(step.json).toMatchObject({ solver: 'bcpfw', sampling: 'uniform' });
    const exact = await cli('train', data.train, '--lambda', '0.01', '--solver', 'bcfw', '--step', 'exact', '--max-passes', '3', '--json', '--quiet');
    expect(exact.json).toMatchObject({ solver: 'exact', sampling: 'uniform' });
  });

  it('refuses a cache with exact steps (usage error), and help lists exact', async () => {
    const r = await cli('train', data.train, '--solver', 'exact', '--cache');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--cache does not apply to exact steps/);
    const help = await cli('help', 'train');
    expect(help.stdout).toMatch(/exact = each block solved exactly/);
  });
});

describe("the README's native block steps, as written", () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-native-readme-'));

  it('BCPFW + gap sampling + cache on OCR-small runs natively to its threshold', needsData('ocr', 'letter.data.gz'), async () => {
    const argv = runnable(documentedCommand('README.md', 'train ocr:letter.data.gz --split small --lambda 0.01 --solver bcpfw --sampling gap --cache'), dir);
    const r = await cli(...argv, '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ solver: 'bcpfw', sampling: 'gap', native: true, batch: 1, gapIsExact: true, thresholdReached: true });
  }, 120_000);

  it('multiclass data trains with native exact steps, perm sampling and shrinking by default', needsData('multiclass', 'pendigits', 'pendigits.scale'), async () => {
    const argv = runnable(documentedCommand('README.md', 'train libsvm:pendigits.scale --test libsvm:pendigits.scale.t --lambda 1e-3 --gap-threshold 1e-3'), dir);
    const r = await cli(...argv, '--quiet');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ solver: 'exact', sampling: 'perm', shrinking: true, native: true, gapIsExact: true, thresholdReached: true });
    expect(r.json!.testError as number).toBeLessThan(0.2);
  }, 120_000);
});
