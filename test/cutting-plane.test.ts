// The 1-slack cutting plane (src/solvers/cutting-plane.ts) and its working-set QP (src/solvers/working-set.ts):
// the QP against enumerated optima, the solver against enumeration and BCPFW on tiny problems, box constraints,
// the working set's certificate through checkpoints, resume and warm start, options, the CLI, and real data.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../src/core/errors.js';
import { type Problem } from '../src/core/problem.js';
import { modelProblem } from '../src/engine/problem.js';
import { Rng } from '../src/core/rng.js';
import { dot } from '../src/core/vector.js';
import { dataPath } from '../src/data/paths.js';
import { decodeModelFile, encodeModelFile } from '../src/io/model-file.js';
import { bcfw } from '../src/solvers/bcfw.js';
import { fullOraclePass, type SolverCheckpoint, type SolverPassProgress } from '../src/solvers/common.js';
import { cuttingPlane, CuttingPlaneSolver, type CuttingPlaneResult } from '../src/solvers/cutting-plane.js';
import { fw } from '../src/solvers/fw.js';
import { createSolver, trainAsync } from '../src/solvers/index.js';
import { WorkingSet } from '../src/solvers/working-set.js';
import { loadTask } from '../src/tasks/index.js';
import { buildModel } from '../src/tasks/model-kinds.js';
import { cli } from './helpers/capture.js';
import { boxedTinyChain, brutePrimal, tinyChain } from './helpers/tiny.js';
import { writeTinyConll, writeTinyHansards, writeTinyHorse, writeTinyLibsvm, writeTinyLsp, writeTinyOcr } from './helpers/tiny-data.js';
import { needsData } from './helpers/skips.js';

const strip = (trace: { seconds: number }[]) => trace.map(({ seconds: _s, ...rest }) => rest);
const roundTrip = (c: SolverCheckpoint): SolverCheckpoint => {
  const back = decodeModelFile(encodeModelFile({ meta: c.meta, arrays: c.arrays }));
  return { meta: back.meta as SolverCheckpoint['meta'], arrays: back.arrays as SolverCheckpoint['arrays'] };
};
const distance = (a: Float64Array, b: Float64Array) => Math.sqrt(a.reduce((s, x, j) => s + (x - b[j]!) ** 2, 0));
/** ||w - w*|| <= sqrt(2 gap / lambda) by the lambda-strong convexity of the primal. */
const radius = (gap: number, lambda: number) => Math.sqrt((2 * Math.max(gap, 0)) / lambda);

/** Random constraints: K dense vectors in R^d (the first is 0, the ground truth) and losses b >= 0. */
function randomConstraints(seed: number, K: number, d: number): { a: Float64Array[]; b: number[] } {
  const rng = new Rng(seed);
  const a = [new Float64Array(d), ...Array.from({ length: K - 1 }, () => Float64Array.from({ length: d }, () => rng.next() * 2 - 1))];
  const b = [0, ...Array.from({ length: K - 1 }, () => rng.next())];
  return { a, b };
}

/** D(beta) = b.beta - lambda (<v, w> - ||w||^2/2), v = sum beta a / lambda, w = clip(v), computed densely. */
function denseDual(a: Float64Array[], b: number[], beta: ArrayLike<number>, lambda: number, lower?: Float64Array, upper?: Float64Array) {
  const d = a[0]!.length;
  const v = new Float64Array(d);
  let l = 0;
  a.forEach((ac, c) => {
    for (let j = 0; j < d; j++) v[j]! += (beta[c]! * ac[j]!) / lambda;
    l += beta[c]! * b[c]!;
  });
  const w = Float64Array.from(v, (x, j) => Math.min(Math.max(x, lower?.[j] ?? -Infinity), upper?.[j] ?? Infinity));
  const grad = a.map((ac, c) => b[c]! - dot(ac, w));
  const mean = grad.reduce((s, g, c) => s + beta[c]! * g, 0);
  return { value: l - lambda * (dot(v, w) - 0.5 * dot(w, w)), fwGap: Math.max(...grad) - mean };
}

/** The maximum of the (strictly concave) QP by enumerating supports: KKT on each support, solved by elimination. */
function enumeratedOptimum(a: Float64Array[], b: number[], lambda: number): number {
  const K = a.length;
  const G = a.map((x) => a.map((y) => dot(x, y)));
  let best = -Infinity;
  for (let mask = 1; mask < 1 << K; mask++) {
    const S = [...Array(K).keys()].filter((c) => mask & (1 << c));
    // Unknowns beta_S and mu: b_c - (G beta)_c / lambda = mu (c in S), sum beta_S = 1.
    const m = S.length + 1;
    const M = Array.from({ length: m }, () => new Array<number>(m + 1).fill(0));
    S.forEach((c, r) => {
      S.forEach((e, k) => (M[r]![k] = G[c]![e]! / lambda));
      M[r]![m - 1] = 1;
      M[r]![m] = b[c]!;
    });
    S.forEach((_, k) => (M[m - 1]![k] = 1));
    M[m - 1]![m] = 1;
    let singular = false;
    for (let col = 0; col < m && !singular; col++) {
      let piv = col;
      for (let r = col + 1; r < m; r++) if (Math.abs(M[r]![col]!) > Math.abs(M[piv]![col]!)) piv = r;
      if (Math.abs(M[piv]![col]!) < 1e-12) singular = true;
      [M[col], M[piv]] = [M[piv]!, M[col]!];
      for (let r = 0; r < m && !singular; r++) {
        if (r === col) continue;
        const f = M[r]![col]! / M[col]![col]!;
        for (let k = col; k <= m; k++) M[r]![k]! -= f * M[col]![k]!;
      }
    }
    if (singular) continue;
    const beta = new Array<number>(K).fill(0);
    S.forEach((c, k) => (beta[c] = M[k]![m]! / M[k]![k]!));
    if (beta.some((x) => x < -1e-12)) continue;
    const mu = M[m - 1]![m]! / M[m - 1]![m - 1]!;
    const gBeta = G.map((row) => row.reduce((s, g, e) => s + g * beta[e]!, 0));
    if (b.some((bc, c) => !S.includes(c) && bc - gBeta[c]! / lambda > mu + 1e-9)) continue;
    best = Math.max(best, denseDual(a, b, beta, lambda).value);
  }
  return best;
}

describe('the working-set QP', () => {
  it('reaches the enumerated optimum of random simplex QPs', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const K = 2 + (seed % 6);
      const { a, b } = randomConstraints(seed, K, K + 2);
      const lambda = [1, 0.1, 0.01][seed % 3]!;
      const set = new WorkingSet(K + 2);
      for (let c = 1; c < K; c++) set.add(a[c]!, b[c]!);
      const r = set.solve(lambda, 1e-13, 1e6);
      expect(r.gap).toBeLessThanOrEqual(1e-13);
      const beta = set.beta.slice(0, K);
      expect(beta.every((x) => x >= 0)).toBe(true);
      expect(beta.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 14);
      const opt = enumeratedOptimum(a, b, lambda);
      expect(denseDual(a, b, beta, lambda).value).toBeCloseTo(opt, 10);
      // dualPoint gives the same v and l.
      const v = new Float64Array(K + 2);
      const l = set.dualPoint(lambda, v);
      expect(l - 0.5 * lambda * dot(v, v)).toBeCloseTo(opt, 10);
    }
  });

  it('with box constraints: ascends to a point whose QP gap, recomputed densely, is within the tolerance', () => {
    for (let seed = 1; seed <= 8; seed++) {
      const d = 6;
      const { a, b } = randomConstraints(100 + seed, 9, d);
      const lower = Float64Array.from({ length: d }, (_, j) => (j % 3 === 0 ? 0 : -Infinity));
      const upper = Float64Array.from({ length: d }, (_, j) => (j % 3 === 1 ? 0.5 : Infinity));
      const lambda = 0.05;
      const set = new WorkingSet(d, { lower, upper });
      let previous = 0; // D at beta = ground truth
      for (let c = 1; c < a.length; c++) {
        set.add(a[c]!, b[c]!);
        set.solve(lambda, 1e-10, 1e6);
        const { value, fwGap } = denseDual(a.slice(0, c + 1), b.slice(0, c + 1), set.beta, lambda, lower, upper);
        expect(value).toBeGreaterThanOrEqual(previous - 1e-12);
        expect(fwGap).toBeLessThanOrEqual(1e-9);
        previous = value;
      }
      // The box binds somewhere: the unconstrained v leaves it.
      const v = new Float64Array(d);
      set.dualPoint(lambda, v);
      expect(v.some((x, j) => x < lower[j]! - 1e-9 || x > upper[j]! + 1e-9)).toBe(true);
    }
  });

  it('pruning removes only idle constraints (beta = 0), after the window, and keeps the dual point', () => {
    const { a, b } = randomConstraints(7, 12, 4);
    const set = new WorkingSet(4);
    for (let c = 1; c < a.length; c++) set.add(a[c]!, b[c]!);
    set.solve(0.1, 1e-13, 1e6);
    const before = new Float64Array(4);
    const l = set.dualPoint(0.1, before);
    const active = Array.from(set.beta.slice(0, set.size)).filter((x) => x > 0).length;
    expect(active).toBeLessThan(set.size); // some constraints are idle
    expect(set.prune(2)).toBe(0); // idle for 1 iteration only
    expect(set.prune(2)).toBe(12 - active - (set.beta[0]! > 0 ? 0 : 1));
    expect(set.size).toBe(active + (set.beta[0]! > 0 ? 0 : 1));
    const after = new Float64Array(4);
    expect(set.dualPoint(0.1, after)).toBe(l);
    expect(Array.from(after)).toEqual(Array.from(before));
    // The QP on the pruned set is still at its optimum.
    expect(set.solve(0.1, 1e-12, 10).iterations).toBe(0);
  });

  it('saves and loads exactly', () => {
    const { a, b } = randomConstraints(3, 6, 5);
    const set = new WorkingSet(5);
    for (let c = 1; c < a.length; c++) set.add(a[c]!, b[c]!);
    set.solve(0.3, 1e-12, 1e6);
    const copy = new WorkingSet(5);
    copy.load(set.save());
    expect(copy.save()).toEqual(set.save());
    expect(() => copy.load({ ...set.save(), beta: new Float64Array(6).fill(0.5) })).toThrow(/simplex/);
    expect(() => copy.load({ ...set.save(), gram: new Float64Array(3) })).toThrow(/lengths/);
  });
});

describe('cutting plane on tiny problems', () => {
  const t = tinyChain(21, { n: 6, K: 3, D: 2, maxT: 3 });
  const lambda = 0.1;
  const ref = bcfw(t.problem, { lambda, step: 'pairwise', gapThreshold: 1e-10, maxPasses: 100000 });
  const r = cuttingPlane(t.problem, { lambda, gapThreshold: 1e-9, maxPasses: 1000 });

  it('reaches the optimum: a certified gap <= 1e-9, its primal by enumeration, BCPFW within the certified radius', () => {
    expect(ref.stopReason).toBe('gap');
    expect(r.stopReason).toBe('gap');
    expect(r.gapIsExact).toBe(true);
    expect(r.gap!).toBeLessThanOrEqual(1e-9);
    expect(r.primal).toBeCloseTo(brutePrimal(t, lambda, r.w), 12);
    expect(Math.abs(r.primal! - ref.primal!)).toBeLessThanOrEqual(r.gap! + ref.gap! + 1e-14);
    expect(distance(r.w, ref.w)).toBeLessThanOrEqual(radius(r.gap!, lambda) + radius(ref.gap!, lambda));
    // A finite set of joint constraints: the method ends in few iterations.
    expect(r.passes).toBeLessThan(100);
  });

  it('its dual is a valid lower bound: no w has a smaller enumerated primal (weak duality)', () => {
    const rng = new Rng(9);
    for (let trial = 0; trial < 200; trial++) {
      const w = Float64Array.from(r.w, (x) => x + (rng.next() - 0.5) * (trial < 100 ? 0.1 : 2));
      expect(brutePrimal(t, lambda, w)).toBeGreaterThanOrEqual(r.dual! - 1e-12);
    }
  });

  it('every event certifies the returned iterate: gaps never increase, duals never decrease, primals by enumeration', () => {
    const run = cuttingPlane(t.problem, { lambda, gapThreshold: 0, maxPasses: 15 });
    let prev = run.trace[0]!;
    for (const e of run.trace) {
      expect(e.gapIsExact).toBe(true);
      expect(e.gap!).toBeLessThanOrEqual(prev.gap! + 1e-15);
      expect(e.dual!).toBeGreaterThanOrEqual(prev.dual! - 1e-15);
      expect(e.primal!).toBeLessThanOrEqual(e.iteratePrimal as number);
      prev = e;
    }
    expect(run.primal).toBeCloseTo(brutePrimal(t, lambda, run.w), 12);
    expect(run.trace.length).toBe(16);
    expect(run.oracleCalls).toBe(16 * t.problem.n);
  });

  it('the same run on the batched and the per-object exact pass gives the same trace and weights', async () => {
    const task = await loadTask('synthetic:');
    const batched: Problem = modelProblem(buildModel(task.spec), task.train);
    const sync: Problem = (({ batch: _b, ...rest }) => rest)(batched);
    const a = cuttingPlane(batched, { lambda: 0.01, maxPasses: 8, gapThreshold: 0 });
    const b = cuttingPlane(sync, { lambda: 0.01, maxPasses: 8, gapThreshold: 0 });
    expect(strip(b.trace)).toEqual(strip(a.trace));
    expect(Array.from(b.w)).toEqual(Array.from(a.w));
  });
});

describe('cutting plane with box constraints', () => {
  const { t, lower, upper, boxed } = boxedTinyChain();
  const lambda = 0.05;

  it('returns a w in the box, certified, at the optimum BCPFW finds', () => {
    const r = cuttingPlane(boxed, { lambda, gapThreshold: 1e-8, maxPasses: 2000 });
    const ref = bcfw(boxed, { lambda, step: 'pairwise', gapThreshold: 1e-8, maxPasses: 100000 });
    const free = cuttingPlane(t.problem, { lambda, gapThreshold: 1e-8, maxPasses: 2000 });
    expect(r.stopReason).toBe('gap');
    expect(r.w.every((x, j) => x >= lower[j]! && x <= upper[j]!)).toBe(true);
    expect(free.w.every((x, j) => x >= lower[j]! && x <= upper[j]!)).toBe(false); // the box binds
    expect(r.primal).toBeCloseTo(brutePrimal(t, lambda, r.w), 12);
    expect(Math.abs(r.primal! - ref.primal!)).toBeLessThanOrEqual(r.gap! + ref.gap! + 1e-14);
    expect(distance(r.w, ref.w)).toBeLessThanOrEqual(radius(r.gap!, lambda) + radius(ref.gap!, lambda));
    // Weak duality within the box.
    const rng = new Rng(5);
    for (let trial = 0; trial < 100; trial++) {
      const w = Float64Array.from(r.w, (x, j) => Math.min(Math.max(x + (rng.next() - 0.5) * 0.5, lower[j]!), upper[j]!));
      expect(brutePrimal(t, lambda, w)).toBeGreaterThanOrEqual(r.dual! - 1e-12);
    }
  });
});

describe('the working set certifies the reported dual', () => {
  it('at every checkpoint, the dual rebuilt from its constraints is the dual the next pass reports, with pruning at work', async () => {
    const t = tinyChain(5, { n: 10, K: 3, D: 3, maxT: 5 });
    const lambda = 0.01;
    const saved: SolverCheckpoint[] = [];
    const r = await trainAsync(t.problem, { solver: 'cutting-plane', lambda, gapThreshold: 0, maxPasses: 60, inactiveWindow: 2 }, { checkpointEvery: 1, onCheckpoint: (c) => void saved.push(roundTrip(c)) });
    expect(saved.length).toBe(61);
    const sizes = saved.map((c) => c.arrays.beta!.length);
    expect(sizes.some((k, i) => i > 0 && k < sizes[i - 1]!)).toBe(true); // constraints were removed
    saved.forEach((c, i) => {
      const { beta, b, values } = c.arrays as Record<string, Float64Array>;
      const { offsets, indices } = c.arrays as Record<string, Int32Array>;
      // v = sum beta a / lambda and l = sum beta b from the stored constraints alone.
      const v = new Float64Array(t.problem.dim);
      let l = 0;
      for (let k = 0; k < beta!.length; k++) {
        for (let q = offsets![k]!; q < offsets![k + 1]!; q++) v[indices![q]!]! += (beta![k]! * values![q]!) / lambda;
        l += beta![k]! * b![k]!;
      }
      const dual = l - 0.5 * lambda * dot(v, v);
      // beta stays a point of the simplex: the pruned constraints had no weight.
      expect(beta!.every((x) => x >= 0)).toBe(true);
      expect(beta!.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 14);
      const next = r.trace[i + 1] ?? r.trace.at(-1)!;
      expect(dual).toBeCloseTo(next.dual!, 12);
      // And it bounds the primal optimum: below the enumerated primal of the returned w.
      expect(dual).toBeLessThanOrEqual(brutePrimal(t, lambda, r.w) + 1e-12);
    });
    // No constraint that carried weight was lost: the QP only raises the dual, so the reported duals never decrease.
    r.trace.forEach((e, i) => i > 0 && expect(e.dual!).toBeGreaterThanOrEqual(r.trace[i - 1]!.dual! - 1e-15));
  });
});

describe('resume and warm start', () => {
  const t = tinyChain(8, { n: 12 });

  it('refuses a checkpoint made with other settings', () => {
    const c = createSolver(t.problem, { solver: 'cutting-plane', lambda: 0.1 }).checkpoint();
    expect(() => createSolver(t.problem, { solver: 'cutting-plane', lambda: 0.1, qpTolerance: 0.5 }, { resume: c })).toThrow(/qpTolerance/);
    expect(() => createSolver(t.problem, { solver: 'cutting-plane', lambda: 0.1, inactiveWindow: 7 }, { resume: c })).toThrow(/inactiveWindow/);
    expect(() => createSolver(t.problem, { solver: 'fw', lambda: 0.1 }, { resume: c })).toThrow(/solver 'cutting-plane'/);
  });

  it('warm starts from a cutting-plane checkpoint at another lambda: a valid dual at once, and fewer passes', () => {
    const a = new CuttingPlaneSolver(t.problem, { lambda: 0.1, gapThreshold: 1e-6, maxPasses: 500 });
    while (a.runPass());
    const from = roundTrip(a.checkpoint());
    const cold = cuttingPlane(t.problem, { lambda: 0.05, gapThreshold: 1e-6, maxPasses: 500 });
    const warm = cuttingPlane(t.problem, { lambda: 0.05, gapThreshold: 1e-6, maxPasses: 500 }, { warmStart: { from } });
    expect(warm.stopReason).toBe('gap');
    expect(warm.passes).toBeLessThan(cold.passes);
    expect(Math.abs(warm.primal! - cold.primal!)).toBeLessThanOrEqual(warm.gap! + cold.gap!);
    expect(warm.trace[0]!.dual!).toBeGreaterThan(0); // cold starts at D = 0 (w = 0)
    expect(warm.trace[0]!.dual!).toBeLessThanOrEqual(cold.primal! + 1e-12);
    expect(warm.trace[0]!.pass).toBe(0);
  });

  it('warm starts from a BCFW or FW checkpoint: its dual point is one constraint', () => {
    for (const solver of ['bcfw', 'fw'] as const) {
      const s = createSolver(t.problem, { solver, lambda: 0.1, maxPasses: 5, gapThreshold: 0 });
      while (s.runPass());
      const from = roundTrip(s.checkpoint());
      const v = from.arrays.w as Float64Array;
      const l = Number(from.meta.l);
      // At lambda' the point keeps its alpha: w' = (0.1 / lambda') v, D' = l - lambda'/2 ||w'||^2.
      const warm = cuttingPlane(t.problem, { lambda: 0.04, gapThreshold: 1e-6, maxPasses: 500 }, { warmStart: { from } });
      const expected = l - 0.02 * (0.1 / 0.04) ** 2 * dot(v, v);
      expect(warm.trace[0]!.dual!).toBeCloseTo(expected, 12);
      expect(warm.stopReason).toBe('gap');
      const ref = fw(t.problem, { lambda: 0.04, gapThreshold: 1e-4, maxPasses: 100000 });
      expect(Math.abs(warm.primal! - ref.primal!)).toBeLessThanOrEqual(warm.gap! + ref.gap!);
    }
  });
});

describe('signals', () => {
  it('passSignal abandons the pass in progress: the result is the best iterate so far, still certified', async () => {
    const task = await loadTask('synthetic:');
    const problem = modelProblem(buildModel(task.spec), task.train, { passChunk: 10 });
    const passSignal = new AbortController();
    const chunks: SolverPassProgress[] = [];
    const lambda = 0.01;
    const r = await trainAsync(problem, { solver: 'cutting-plane', lambda, maxPasses: 50, gapThreshold: 0 }, { passSignal: passSignal.signal, onPassProgress: (p) => {
        chunks.push(p);
        if (p.pass === 4 && p.done === 30) passSignal.abort();
      } });
    expect(r.stopReason).toBe('aborted');
    expect(r.passes).toBe(4);
    expect(chunks.at(-1)).toMatchObject({ solver: 'cutting-plane', pass: 4, done: 30 }); // no chunk after the abort
    expect(r.gapIsExact).toBe(true);
    const pass = fullOraclePass(problem, r.w);
    expect(r.primal).toBeCloseTo(0.5 * lambda * dot(r.w, r.w) + pass.hingeSum / problem.n, 12);
    expect(r.primal).toBe(Math.min(...r.trace.map((e) => e.iteratePrimal as number)));
    expect(r.dual!).toBeGreaterThanOrEqual(r.trace.at(-1)!.dual!); // the QP after the last pass raised it
  });
});

describe('options', () => {
  const t = tinyChain(1, { n: 3 });
  it('bad values are refused with clear InputErrors', () => {
    expect(() => cuttingPlane(t.problem, { qpTolerance: 1 })).toThrow(/--qp-tolerance must be a number from 0 to 0.999999, got 1/);
    expect(() => cuttingPlane(t.problem, { qpTolerance: -0.1 })).toThrow(InputError);
    expect(() => cuttingPlane(t.problem, { qpTolerance: NaN })).toThrow(/--qp-tolerance/);
    expect(() => cuttingPlane(t.problem, { inactiveWindow: 0 })).toThrow(/--inactive-window must be an integer from 1 to 1e9, got 0/);
    expect(() => cuttingPlane(t.problem, { inactiveWindow: 1.5 })).toThrow(/--inactive-window/);
    expect(() => cuttingPlane(t.problem, { lambda: -1 })).toThrow(/lambda/);
    const ssgCheckpoint = createSolver(t.problem, { solver: 'ssg' }).checkpoint();
    expect(() => cuttingPlane(t.problem, {}, { warmStart: { from: ssgCheckpoint } })).toThrow(/warm start needs a checkpoint of cutting-plane, bcfw or fw/);
    const other = createSolver(tinyChain(1, { n: 4 }).problem, { solver: 'cutting-plane' }).checkpoint();
    expect(() => cuttingPlane(t.problem, {}, { warmStart: { from: other } })).toThrow(/n = 3/);
    const relabelled = tinyChain(1, { n: 3 });
    relabelled.ys[0]![0] = (relabelled.ys[0]![0]! + 1) % 3;
    const foreign = createSolver(modelProblem(relabelled.model, relabelled.xs, relabelled.ys), { solver: 'cutting-plane' }).checkpoint();
    expect(() => cuttingPlane(t.problem, {}, { warmStart: { from: foreign } })).toThrow(/warm start was made on other training data/);
    const own = createSolver(t.problem, { solver: 'cutting-plane' }).checkpoint();
    expect(() => new CuttingPlaneSolver(t.problem, {}, { warmStart: { from: own } }, own)).toThrow(/exclude/);
    expect(() => new CuttingPlaneSolver(t.problem).result()).toThrow(/not finished/);
  });
});

describe('cutting plane from the command line, on every model', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-cp-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const svm = writeTinyLibsvm(dir);
  const cells: [string, () => Promise<string>, string[]][] = [
    ['chain', async () => writeTinyOcr(dir), ['--split', 'fold:1']],
    ['multiclass', async () => svm.train, ['--test', svm.test]],
    ['sparse-chain', async () => writeTinyConll(dir), ['--min-frequency', '1']],
    ['segmentation (positivity bounds)', () => writeTinyHorse(join(dir, 'horse')), []],
    ['pose (bounds)', () => writeTinyLsp(dir), ['--split', 'full', '--filter-size', '3']],
    ['matching', async () => writeTinyHansards(dir), ['--folds', '5', '--fold', '1']],
  ];

  it.each(cells)('%s: trains to a certified gap that gap/eval confirm, with a trace and a resumable checkpoint', async (name, data, extra) => {
    const spec = await data();
    const at = (f: string) => join(dir, `${name.split(' ')[0]}-${f}`);
    const args = ['train', spec, ...extra, '--solver', 'cutting-plane', '--lambda', '0.1', '--gap-threshold', '0'];
    const full = await cli(...args, '--max-passes', '6', '--out', at('full.gbm'), '--trace', at('trace.jsonl'), '--json', '--quiet');
    expect(full.code, full.stderr).toBe(0);
    const j = full.json!;
    expect(j).toMatchObject({ solver: 'cutting-plane', passes: 6, gapIsExact: true, stopReason: 'maxPasses' });
    expect(j.workingSet as number).toBeGreaterThan(1);
    expect(j.gap as number).toBeGreaterThanOrEqual(0);
    const first = await cli(...args, '--max-passes', '2', '--checkpoint', at('ck.gbc'), '--json', '--quiet');
    expect(first.code, first.stderr).toBe(0);
    const resumed = await cli(...args, '--max-passes', '6', '--resume', at('ck.gbc'), '--json', '--quiet');
    expect(resumed.code, resumed.stderr).toBe(0);
    for (const key of ['passes', 'primal', 'dual', 'gap']) expect(resumed.json![key], key).toBe(j[key]);
    // gap reads the training part: the options that shape a new model or name the test part have no effect there (refused).
    const evalArgs = extra.filter((a, k, all) => !['--min-frequency', '--filter-size', '--test'].includes(a) && !['--min-frequency', '--filter-size', '--test'].includes(all[k - 1]!));
    const gap = await cli('gap', at('full.gbm'), spec, ...evalArgs, '--json');
    expect(gap.code, gap.stderr).toBe(0);
    expect(gap.json!.gap as number).toBeCloseTo(j.gap as number, 9);
  }, 60_000);

  it('refuses the flags that do not apply, with one-line reasons', async () => {
    const bad = async (args: string[], message: RegExp) => {
      const r = await cli('train', 'synthetic:', ...args, '--quiet');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    };
    await bad(['--solver', 'cutting-plane', '--sampling', 'perm'], /--sampling does not apply to the cutting plane/);
    await bad(['--solver', 'cutting-plane', '--averaging'], /--averaging does not apply to the cutting plane/);
    await bad(['--solver', 'cutting-plane', '--no-line-search'], /--no-line-search does not apply/);
    await bad(['--solver', 'cutting-plane', '--cache'], /--cache applies to the block-coordinate solvers/);
    await bad(['--solver', 'bcfw', '--qp-tolerance', '0.1'], /--qp-tolerance applies to --solver cutting-plane only/);
    await bad(['--inactive-window', '5'], /--inactive-window applies to --solver cutting-plane only/);
    await bad(['--solver', 'cutting-plane', '--qp-tolerance', '1'], /--qp-tolerance/);
    await bad(['--solver', 'cutting-plane', '--inactive-window', '0'], /--inactive-window/);
    const path = await cli('path', 'synthetic:', '--solver', 'cutting-plane', '--quiet');
    expect(path.code).toBe(2);
    expect(path.stderr).toMatch(/--solver must be one of bcfw, bcpfw, bcafw, hybrid, got 'cutting-plane'/);
  });

  it('demo with --qp-tolerance and --inactive-window reaches its gap', async () => {
    const r = await cli('demo', '--solver', 'cutting-plane', '--qp-tolerance', '0.1', '--inactive-window', '20', '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ solver: 'cutting-plane', stopReason: 'gap', thresholdReached: true });
  });
});

describe('the README cutting-plane example (OCR-small, real data)', needsData('ocr', 'letter.data.gz'), () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-cp-readme-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The README line that starts with `npx gapbcfw WORDS`, as arguments (comment dropped), with its files in `dir`. */
  const readmeCommand = (words: string): string[] => {
    const line = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md'), 'utf8').split('\n').find((l) => l.startsWith(`npx gapbcfw ${words}`))!;
    return line.replace(/#.*$/, '').replace(/^npx gapbcfw /, '').split(/\s+/).filter((a) => a !== '')
      .map((a) => (a === 'ocr:letter.data.gz' ? `ocr:${dataPath('ocr', 'letter.data.gz')}` : /\.(jsonl|png)$/.test(a) ? join(dir, a) : a));
  };

  it('trains to the default gap threshold 0.1, and its trace plots', { timeout: 300_000 }, async () => {
    const trainArgs = readmeCommand('train ocr:letter.data.gz --split small --solver cutting-plane');
    const r = await cli(...trainArgs, '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ solver: 'cutting-plane', stopReason: 'gap', thresholdReached: true, gapIsExact: true });
    expect(r.json!.gap as number).toBeLessThanOrEqual(0.1);
    const plot = await cli(...readmeCommand('plot cp.jsonl'), '--json');
    expect(plot.code, plot.stderr).toBe(0);
    expect(existsSync(join(dir, 'cp-primal.png'))).toBe(true);
  });
});

describe('real data (OCR-small)', needsData('ocr', 'letter.data.gz'), () => {
  it('agrees with BCPFW + gap sampling + cache within the certified radius', { timeout: 300_000 }, async () => {
    const task = await loadTask(`ocr:${dataPath('ocr', 'letter.data.gz')}`, { split: 'small' });
    const problem = modelProblem(buildModel(task.spec), task.train);
    const lambda = 0.01;
    const r = cuttingPlane(problem, { lambda, gapThreshold: 0.01, maxPasses: 2000 });
    const ref = bcfw(problem, { lambda, step: 'pairwise', sampling: 'gap', cache: true, gapThreshold: 0.01, maxPasses: 2000 });
    expect(r.stopReason).toBe('gap');
    expect(ref.stopReason).toBe('gap');
    expect(Math.abs(r.primal! - ref.primal!)).toBeLessThanOrEqual(r.gap! + ref.gap!);
    expect(distance(r.w, ref.w)).toBeLessThanOrEqual(radius(r.gap!, lambda) + radius(ref.gap!, lambda));
    expect((r as CuttingPlaneResult).workingSet).toBeGreaterThan(1);
  });
});
