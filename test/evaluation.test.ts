// Bounded evaluation during training (CommonSolverOptions.evaluateEvery, `--eval-every`): test metrics at the exact
// checks at least so many passes and oracle calls apart, the result's metrics always those of the returned
// iterate, the same trace when resumed, and `train --json` reporting training and wall seconds apart.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { modelProblem } from '../src/engine/problem.js';
import type { ProgressEvent } from '../src/solvers/common.js';
import { createSolver, train, type TrainHooks } from '../src/solvers/index.js';
import type { TrainSettings } from '../src/solvers/settings.js';
import { evaluatePart, loadTask } from '../src/tasks/index.js';
import { buildModel } from '../src/tasks/model-kinds.js';
import { cli } from './helpers/capture.js';

const task = await loadTask('synthetic:');
const model = buildModel(task.spec);
const problem = modelProblem(model, task.train);
const testError = (w: Float64Array) => evaluatePart(task, model, w, 'test').testError!;
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-eval-'));

/** Hooks with a counting evaluate on the test part (and the given cadence). */
function counted(evaluateEvery?: TrainHooks['evaluateEvery']): { hooks: TrainHooks; calls: () => number } {
  let calls = 0;
  return { hooks: { evaluate: (w) => (calls++, { testError: testError(w) }), ...(evaluateEvery ? { evaluateEvery } : {}) }, calls: () => calls };
}
const evaluated = (trace: readonly ProgressEvent[]) => trace.filter((e) => e.testError !== undefined);
const base: TrainSettings = { solver: 'bcfw', lambda: 0.01, gapCheck: 2, maxPasses: 20, gapThreshold: 0, seed: 3, batch: 1 };

describe('evaluation cadence', () => {
  it('by default every exact check evaluates', () => {
    const { hooks, calls } = counted();
    const r = train(problem, base, hooks);
    const checks = r.trace.filter((e) => e.gapIsExact);
    expect(evaluated(r.trace)).toEqual(checks);
    expect(calls()).toBe(checks.length);
  });

  it('{ passes: 6 }: the checks at least 6 passes after the last evaluation; the result is evaluated at its own w', () => {
    const { hooks, calls } = counted({ passes: 6 });
    const r = train(problem, base, hooks);
    expect(r.trace.filter((e) => e.gapIsExact).map((e) => e.pass)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    expect(evaluated(r.trace).map((e) => e.pass)).toEqual([6, 12, 18]);
    // The last check (pass 20) had none: the result's metrics come from one more evaluation, at the returned w.
    expect(calls()).toBe(4);
    expect(r.metrics.testError).toBe(testError(r.w));
  });

  it('{ oracleCalls }: evaluations at least that many oracle calls apart (a tenth of the oracle work for 10 x the test size)', () => {
    const every = 10 * task.test!.length;
    const { hooks } = counted({ passes: 1, oracleCalls: every });
    const { gapCheck: _g, batch: _b, ...rest } = base;
    const r = train(problem, { ...rest, solver: 'cutting-plane', maxPasses: 30 }, hooks);
    const at = evaluated(r.trace).map((e) => e.oracleCalls);
    expect(at.length).toBeGreaterThanOrEqual(2);
    expect(r.trace.filter((e) => e.gapIsExact).length).toBeGreaterThan(2 * at.length); // so that the rule can fail
    [0, ...at].slice(1).forEach((calls, k) => expect(calls - [0, ...at][k]!).toBeGreaterThanOrEqual(every));
    expect(r.metrics.testError).toBe(testError(r.w));
  });

  it('a resumed run evaluates at the same checks as the uninterrupted one (the same trace)', () => {
    const full = train(problem, base, counted({ passes: 6 }).hooks);
    const first = createSolver(problem, base, counted({ passes: 6 }).hooks);
    for (let p = 0; p < 9; p++) first.runPass();
    const resumed = createSolver(problem, base, { ...counted({ passes: 6 }).hooks, resume: first.checkpoint() });
    while (resumed.runPass());
    const strip = (t: readonly ProgressEvent[]) => t.map(({ seconds: _s, ...e }) => e);
    expect(strip(resumed.result().trace)).toEqual(strip(full.trace));
    expect(resumed.result().metrics).toEqual(full.metrics);
  });

  it('refuses a negative cadence', () => {
    expect(() => train(problem, base, { evaluateEvery: { passes: -1 } })).toThrow(/evaluateEvery.passes must be a number >= 0/);
  });
});

describe('gapbcfw train: --eval-every and the two clocks', () => {
  it('by default the test set is evaluated at checks 10 test sets of oracle calls apart; the summary is of the final model, with training and wall seconds', async () => {
    const trace = join(dir, 'cp.jsonl');
    const r = await cli('train', 'synthetic:', '--solver', 'cutting-plane', '--max-passes', '40', '--gap-threshold', '0', '--trace', trace, '--out', join(dir, 'cp.gbm'), '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    const events = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ProgressEvent);
    const at = events.filter((e) => e.testError !== undefined).map((e) => e.oracleCalls);
    expect(events.filter((e) => e.gapIsExact).length).toBeGreaterThanOrEqual(40);
    expect(at.length).toBeGreaterThan(0);
    expect(at.length).toBeLessThan(40 / 3);
    [0, ...at].slice(1).forEach((calls, k) => expect(calls - [0, ...at][k]!).toBeGreaterThanOrEqual(10 * 100));
    const ev = await cli('eval', join(dir, 'cp.gbm'), 'synthetic:', '--json');
    expect(r.json!.testError).toBe(ev.json!.testError);
    expect(r.json!.wallSeconds as number).toBeGreaterThanOrEqual(r.json!.seconds as number);
  });

  it('--eval-every 1 evaluates at every check; --eval-every 0 is refused', async () => {
    const trace = join(dir, 'every.jsonl');
    const r = await cli('train', 'synthetic:', '--gap-check', '5', '--max-passes', '20', '--gap-threshold', '0', '--eval-every', '1', '--trace', trace, '--quiet');
    expect(r.code, r.stderr).toBe(0);
    const events = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ProgressEvent);
    expect(events.filter((e) => e.gapIsExact).every((e) => e.testError !== undefined)).toBe(true);
    const bad = await cli('train', 'synthetic:', '--eval-every', '0');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--eval-every must be an integer from 1 to 1e9, got '0'/);
  });
});
