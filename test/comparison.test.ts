// The 2013 comparison script (scripts/experiments/comparison.ts) and summarize.ts end to end on the synthetic
// data: the traces it writes (methods, seeds, CPU seconds), the reference it reports (the best dual seen), its
// crossing tables against the traces, and its figures.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { modelProblem } from '../src/engine/problem.js';
import { readTraces } from '../src/plot/traces.js';
import { createSolver } from '../src/solvers/index.js';
import type { TrainSettings } from '../src/solvers/settings.js';
import { loadTask } from '../src/tasks/index.js';
import { buildModel } from '../src/tasks/model-kinds.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-comparison-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = (name: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'scripts', 'experiments', name), ...args], { cwd: root, encoding: 'utf8', timeout: 240_000 });
  expect(r.status, r.stderr).toBe(0);
  return { out: r.stdout, err: r.stderr };
};

describe('scripts/experiments/comparison.ts', () => {
  it('runs every method over seeds, reports the best dual seen, the crossings and the figures', { timeout: 300_000 }, () => {
    const runs = join(dir, 'runs');
    script('comparison.ts', 'run', '--data', 'synthetic:', '--lambda', '0.01', '--seeds', '2', '--max-passes', '6', '--batch-passes', '12', '--methods', 'BCFW;BCFW-wavg;SSG;SSG-wavg;FW;cutting plane;BCPFW, gap, cache=1:4', '--out', runs);
    const files = readdirSync(runs).sort();
    expect(files).toEqual([
      'BCFW-seed1.jsonl', 'BCFW-seed2.jsonl', 'BCFW-wavg-seed1.jsonl', 'BCFW-wavg-seed2.jsonl', 'BCPFW-gap-cache-seed1.jsonl', 'FW-seed1.jsonl',
      'SSG-seed1.jsonl', 'SSG-seed2.jsonl', 'SSG-wavg-seed1.jsonl', 'SSG-wavg-seed2.jsonl', 'cutting-plane-seed1.jsonl',
    ]);
    const { runs: traces } = readTraces([runs]);
    for (const run of traces) {
      // CPU seconds never decrease along a run; stochastic runs log their primal every pass (monitor events).
      const cpu = run.events.map((e) => Number(e.cpuSeconds));
      expect(cpu.every((c, k) => c >= 0 && (k === 0 || c >= cpu[k - 1]! - 1e-9)), run.method).toBe(true);
      if (!['FW', 'cutting plane'].includes(run.method)) expect(run.events.filter((e) => e.monitor && typeof e.primal === 'number').length, run.method).toBeGreaterThanOrEqual(4);
      expect(run.events.some((e) => typeof e.testError === 'number'), run.method).toBe(true);
    }
    const bestDual = Math.max(...traces.flatMap((r) => r.events.map((e) => e.dual ?? -Infinity)));
    const figures = join(dir, 'fig', 'synthetic');
    const { out, err } = script('comparison.ts', 'report', runs, '--figures', figures, '--title', 'synthetic');
    const report = JSON.parse(out) as { bestDual: number; toGap: Record<string, unknown>[]; toSubopt: Record<string, unknown>[] };
    expect(report.bestDual).toBe(bestDual);
    // Every primal is above the best dual (weak duality across methods).
    for (const run of traces) for (const e of run.events) if (typeof e.primal === 'number') expect(e.primal).toBeGreaterThanOrEqual(bestDual - 1e-12);
    // The cutting plane's own crossing of gap 0.1 is its first event with an exact gap <= 0.1.
    const cp = traces.find((r) => r.method === 'cutting plane')!;
    const first = cp.events.find((e) => e.gap! <= 0.1);
    const row = report.toGap.find((r) => r.method === 'cutting plane')!;
    expect(row['effectivePassesTo0.1']).toBe(first ? first.effectivePasses : null);
    // SSG has no dual: no gap crossing, but a suboptimality against the best dual seen.
    expect(report.toGap.find((r) => r.method === 'SSG')!.final).toBeNull();
    expect(report.toSubopt.find((r) => r.method === 'SSG')!.final).toBeGreaterThan(0);
    expect(err).toMatch(/^\| method \| seeds \| gap 0.1 \|/m);
    for (const suffix of ['subopt-passes', 'subopt-cpu', 'test-passes', 'test-cpu']) expect(existsSync(`${figures}-${suffix}.png`), suffix).toBe(true);
    // summarize.ts reads the same traces.
    const summary = JSON.parse(script('summarize.ts', runs, '--thresholds', '0.1').out) as Record<string, unknown>[];
    expect(summary.find((r) => r.method === 'cutting plane')!['effectivePassesTo0.1']).toBe(row['effectivePassesTo0.1']);
  });

  it('the 2013 App. F Fig. 2 methods: predefined steps, the same iterates as the library with lineSearch off', { timeout: 300_000 }, async () => {
    const runs = join(dir, 'predefined');
    script('comparison.ts', 'run', '--data', 'synthetic:', '--lambda', '0.01', '--seeds', '1', '--max-passes', '6', '--batch-passes', '12', '--methods', 'BCFW;BCFW-predefined;FW;FW-predefined', '--out', runs);
    const { runs: traces } = readTraces([runs]);
    const lastDual = (method: string) => traces.find((r) => r.method === method)!.events.filter((e) => typeof e.dual === 'number').at(-1)!.dual;
    // The same run through the library: the traces' last duals are those of the fixed-step solvers.
    const task = await loadTask('synthetic:', {});
    const problem = modelProblem(buildModel(task.spec), task.train);
    const base = { lambda: 0.01, seed: 1, gapThreshold: 0, timeBudget: 600 };
    const solve = (settings: TrainSettings) => {
      const solver = createSolver(problem, { ...base, ...settings });
      while (solver.runPass());
      return solver.result().dual;
    };
    expect(lastDual('BCFW-predefined')).toBe(solve({ solver: 'bcfw', batch: 1, averaging: false, lineSearch: false, gapCheck: 10, maxPasses: 6 }));
    expect(lastDual('FW-predefined')).toBe(solve({ solver: 'fw', lineSearch: false, maxPasses: 12 }));
    // and line search, which maximises the dual along each direction, ends elsewhere
    expect(lastDual('BCFW-predefined')).not.toBe(lastDual('BCFW'));
    expect(lastDual('FW-predefined')).not.toBe(lastDual('FW'));
  });
});
