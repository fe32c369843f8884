// Cancellation and determinism of the solvers (complements test/checkpoint.test.ts, which covers resuming
// and an abort between two passes):
//  - an AbortSignal fired in the middle of a pass stops at the next block step and returns the current
//    iterate with an exact certificate (one full oracle pass, nothing more);
//  - the same seed and options give bit-identical traces and weights, run after run, on the per-object
//    (sync) exact pass and on the batched one (Problem.batch);
//  - the sync and batched exact passes give bit-identical traces and weights: the batched pass decodes the
//    same labels and computes every H_i(w) = L - <w, psi_i(y)> with the per-object path's arithmetic.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Problem } from '../src/core/problem.js';
import { modelProblem } from '../src/engine/problem.js';
import { loadTask } from '../src/tasks/index.js';
import { buildModel } from '../src/tasks/model-kinds.js';
import { fullOraclePass, type ProgressEvent, type SolverResult } from '../src/solvers/common.js';
import { train, trainAsync } from '../src/solvers/index.js';
import type { TrainSettings } from '../src/solvers/settings.js';
import { loadModel } from '../src/tasks/model.js';
import { cli } from './helpers/capture.js';
import { documentedCommands, runnable } from './helpers/docs.js';
import { needsData } from './helpers/skips.js';

const task = await loadTask('synthetic:');
/** The synthetic chain data (300 sequences) with the batched exact pass (native scoring, Viterbi and hinge kernels). */
const batched: Problem = modelProblem(buildModel(task.spec), task.train);
/** The same problem without its batched oracle: every exact pass decodes object by object and builds psi. */
const sync: Problem = (({ batch: _b, ...rest }) => rest)(batched);

/** The 64 bits of a double, so that comparisons are bit for bit (-0 vs 0, NaN payloads). */
function bits(x: number): string {
  const v = new DataView(new ArrayBuffer(8));
  v.setFloat64(0, x);
  return v.getBigUint64(0).toString(16).padStart(16, '0');
}
/** Every field of every event except the wall-clock `seconds`, numbers as their bits. */
const traceBits = (trace: readonly ProgressEvent[]) =>
  trace.map(({ seconds: _s, ...e }) => Object.fromEntries(Object.entries(e).map(([k, v]) => [k, typeof v === 'number' ? bits(v) : v])));
const wBits = (w: Float64Array) => Array.from(w, bits);

const CONFIGS: [string, TrainSettings][] = [
  ['bcfw uniform, averaging', { solver: 'bcfw' }],
  ['bcfw gap sampling', { solver: 'bcfw', sampling: 'gap', averaging: false }],
  ['bcpfw gap sampling + cache', { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: true }],
  ['hybrid steps, permutations', { solver: 'bcfw', step: 'hybrid', sampling: 'perm' }],
  ['batch fw', { solver: 'fw' }],
  ['ssg', { solver: 'ssg' }],
  ['cutting plane', { solver: 'cutting-plane' }],
];
// One block per step: the two problems' block steps then call the same per-object oracle, and only their exact
// passes differ (mini-batches decode through Problem.batch.decodeSubset, whose native row scoring sums in
// another order than the per-object oracle and may break near-ties at rounding level differently).
const run = (problem: Problem, o: TrainSettings, seed = 5): SolverResult =>
  train(problem, { lambda: 0.01, maxPasses: 12, gapThreshold: 0, seed, ...(o.solver === 'bcfw' || o.solver === 'ssg' ? { gapCheck: 4 } : {}), ...(o.solver === 'bcfw' ? { batch: 1 } : {}), ...o });

describe('determinism', () => {
  it.each(CONFIGS)('%s: the same seed gives bit-identical traces and weights (sync and batched passes)', (_name, o) => {
    for (const problem of [batched, sync]) {
      const a = run(problem, o);
      const b = run(problem, o);
      expect(traceBits(b.trace)).toEqual(traceBits(a.trace));
      expect(wBits(b.w)).toEqual(wBits(a.w));
      expect(b.oracleCalls).toBe(a.oracleCalls);
    }
  });

  it('another seed gives another trace (the comparison above can fail)', () => {
    const a = run(batched, { solver: 'bcfw', sampling: 'gap', averaging: false }, 5);
    const b = run(batched, { solver: 'bcfw', sampling: 'gap', averaging: false }, 6);
    expect(traceBits(b.trace)).not.toEqual(traceBits(a.trace));
  });

  it.each(CONFIGS)('%s: the sync and batched exact passes give bit-identical traces and weights', (_name, o) => {
    const a = run(batched, o);
    const b = run(sync, o);
    expect(traceBits(b.trace)).toEqual(traceBits(a.trace));
    expect(wBits(b.w)).toEqual(wBits(a.w));
    expect(b.oracleCalls).toBe(a.oracleCalls);
  });

  it('the batched and per-object exact passes return bit-identical hinges per block', () => {
    const w = run(batched, { solver: 'bcfw', averaging: false }).w;
    expect(Array.from(fullOraclePass(batched, w).hinge, bits)).toEqual(Array.from(fullOraclePass(sync, w).hinge, bits));
  });
});

describe('AbortSignal', () => {
  /** The problem with an oracle that aborts the signal at its `at`-th call (a deterministic point mid-pass). */
  function abortingAt(problem: Problem, at: number, controller: AbortController): { problem: Problem; calls: () => number } {
    let calls = 0;
    return {
      problem: {
        ...problem,
        oracle: (i, w) => {
          if (++calls === at) controller.abort();
          return problem.oracle(i, w);
        },
      },
      calls: () => calls,
    };
  }

  it.each([
    ['sync exact pass', sync],
    ['batched exact pass', batched],
  ])('an abort mid-pass stops at the next block step with an exact certificate of the returned w (%s)', async (_name, base) => {
    const n = base.n;
    const controller = new AbortController();
    // 17 steps into the 4th pass; the per-object path also calls the oracle in the exact pass after pass 2.
    const at = (base.batch ? 3 * n : 4 * n) + 17;
    const { problem, calls } = abortingAt(base, at, controller);
    const options: TrainSettings = { solver: 'bcfw', batch: 1, averaging: false, lambda: 0.01, maxPasses: 1000, gapCheck: 2, gapThreshold: 0, seed: 3 };
    // finishPass 0: the stop does not finish the pass (its steps take microseconds here).
    const r = await trainAsync(problem, options, { signal: controller.signal, finishPass: 0 });
    expect(r.stopReason).toBe('aborted');
    expect(r.passes).toBe(3); // the interrupted pass does not count: its events say where it stopped (passStep)
    // Promptly: after the aborting call, no block step, only the certifying full pass (n oracle calls,
    // through the batched pass when the problem has it).
    expect(calls()).toBe(base.batch ? at : at + n);
    expect(r.oracleCalls).toBe(3 * n + 17 + n + n); // block steps + the scheduled exact pass after pass 2 + the certifying one
    expect(r.gapIsExact).toBe(true);
    const last = r.trace.at(-1)!;
    expect(last.gapIsExact).toBe(true);
    expect(last.pass).toBe(3);
    expect(last.passStep).toBe(17);
    // The certificate is the returned iterate's: the primal recomputed from r.w matches, the gap >= 0.
    const pass = fullOraclePass(base, r.w);
    let wSq = 0;
    for (const x of r.w) wSq += x * x;
    const primal = 0.5 * 0.01 * wSq + pass.hingeSum / n;
    expect(r.primal).toBe(primal);
    expect(r.gap).toBe(r.primal! - r.dual!);
    expect(r.gap!).toBeGreaterThanOrEqual(0);
    // The best dual so far (line-search BCFW is a dual ascent): no event of the run had a larger dual.
    for (const e of r.trace) if (e.dual !== undefined) expect(e.dual).toBeLessThanOrEqual(r.dual! + 1e-15);
    // And it is where the uninterrupted run was at that point: same trace up to the abort.
    const full = train(base, { ...options, maxPasses: 3 }, { signal: undefined });
    expect(traceBits(r.trace.slice(0, full.trace.length - 1))).toEqual(traceBits(full.trace.slice(0, -1)));
  });

  it('an already aborted signal returns the starting point, certified, without a block step', async () => {
    const controller = new AbortController();
    controller.abort();
    let steps = 0;
    const problem: Problem = { ...batched, oracle: (i, w) => (steps++, batched.oracle(i, w)) };
    const r = await trainAsync(problem, { lambda: 0.01, maxPasses: 100 }, { signal: controller.signal });
    expect(r.stopReason).toBe('aborted');
    expect(r.passes).toBe(0);
    expect(steps).toBe(0);
    expect(r.gapIsExact).toBe(true);
    expect(Array.from(r.w).every((x) => x === 0)).toBe(true);
  });

  it.each([
    ['fw', { solver: 'fw' }],
    ['ssg', { solver: 'ssg' }],
    ['cutting-plane', { solver: 'cutting-plane' }],
  ] as [string, TrainSettings][])('%s: an abort from a progress event stops the run', async (_name, o) => {
    const controller = new AbortController();
    const r = await trainAsync(batched, { ...o, lambda: 0.01, maxPasses: 1000, gapThreshold: 0, seed: 2 }, { signal: controller.signal, onProgress: (e) => { if (e.pass === 5) controller.abort(); } });
    expect(r.stopReason).toBe('aborted');
    expect(r.passes).toBeLessThanOrEqual(6);
    if (o.solver === 'fw' || o.solver === 'cutting-plane') expect(r.gapIsExact).toBe(true);
    expect(r.w.every(Number.isFinite)).toBe(true);
  });
});

describe('the same command gives the same result on any number of cores', () => {
  it("the README quick start's training: the same trace and model with --threads 1 and --threads 2", needsData('ocr', 'letter.data.gz'), async () => {
    const train = documentedCommands('README.md').find((c) => c.argv[0] === 'train')!.argv;
    expect(train.join(' ')).toBe('train ocr:letter.data.gz --split small --lambda 0.01 --out ocr.gbm --trace ocr.jsonl');
    const runs = [];
    for (const threads of ['1', '2']) {
      const dir = mkdtempSync(join(tmpdir(), `gapbcfw-threads-${threads}-`));
      const r = await cli(...runnable(train, dir), '--threads', threads, '--json', '--quiet');
      expect(r.code, r.stderr).toBe(0);
      expect(r.json!.threads).toBe(Number(threads));
      const trace = readFileSync(join(dir, 'ocr.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ProgressEvent);
      runs.push({ summary: r.json!, trace, w: loadModel(join(dir, 'ocr.gbm')).w });
    }
    const [one, two] = runs as [(typeof runs)[0], (typeof runs)[0]];
    expect(one.trace.length).toBeGreaterThan(5);
    expect(traceBits(two.trace)).toEqual(traceBits(one.trace));
    expect(wBits(two.w)).toEqual(wBits(one.w));
    for (const key of ['passes', 'batch', 'gap', 'primal', 'dual', 'testError']) expect(two.summary[key], key).toBe(one.summary[key]);
  }, 300_000);
});
