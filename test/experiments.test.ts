// The experiment scripts' small modes on the generated data (issue 35): scripts/experiments/variants.ts (the 2016
// variants, --figure1 and --figure2, with --first-seed and --cache-size) and scripts/experiments/path.ts (pinned steps, the
// heuristic exit), each checked against the library call it stands for.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { modelProblem } from '../src/engine/problem.js';
import { regularizationPath } from '../src/path/regpath.js';
import { runCurve } from '../src/plot/figures.js';
import { readTraces } from '../src/plot/traces.js';
import { bcfw } from '../src/solvers/bcfw.js';
import { loadTask } from '../src/tasks/index.js';
import { buildModel } from '../src/tasks/model-kinds.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-experiments-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = (name: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'scripts', 'experiments', name), ...args], { cwd: root, encoding: 'utf8', timeout: 240_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
};

async function syntheticProblem() {
  const task = await loadTask('synthetic:', {});
  return modelProblem(buildModel(task.spec), task.train);
}

describe('scripts/experiments/variants.ts', () => {
  it('runs the chosen variants from --first-seed, with --cache-size, as the library does (sequential steps)', async () => {
    const out = join(dir, 'variants');
    const summary = script('variants.ts', '--data', 'synthetic:', '--lambda', '0.01', '--first-seed', '2', '--seeds', '3', '--max-passes', '20', '--monitor', '2', '--cache-size', '1', '--methods', 'BCFW, gap, cache;BCPFW, uniform', '--out', out);
    expect(readdirSync(out).sort()).toEqual(['BCFW-gap-cache-seed2.jsonl', 'BCFW-gap-cache-seed3.jsonl', 'BCPFW-uniform-seed2.jsonl', 'BCPFW-uniform-seed3.jsonl']);
    const problem = await syntheticProblem();
    const base = { lambda: 0.01, maxPasses: 20, timeBudget: 3600, gapThreshold: 1e-8, monitorEvery: 2, gapCheck: 10, batch: 1 } as const;
    const cached = bcfw(problem, { ...base, seed: 3, sampling: 'gap', step: 'fw', cache: { maxSize: 1 } });
    const pairwise = bcfw(problem, { ...base, seed: 2, sampling: 'uniform', step: 'pairwise' });
    const run = (method: string, seed: number) => summary.runs.find((r: { method: string; seed: number }) => r.method === method && r.seed === seed);
    expect(run('BCFW, gap, cache', 3).gap).toBe(cached.gap);
    expect(run('BCFW, gap, cache', 3).effectivePasses).toBe(cached.effectivePasses);
    expect(run('BCPFW, uniform', 2).gap).toBe(pairwise.gap);
    // a cache of 2 labels is another run
    expect(bcfw(problem, { ...base, seed: 3, sampling: 'gap', step: 'fw', cache: { maxSize: 2 } }).gap).not.toBe(cached.gap);
  });

  it('--figure2: the cache of Alg. 5 over F x nu beside no cache; runs equal library calls; large F or nu shut it', async () => {
    const out = join(dir, 'figure2');
    const summary = script('variants.ts', '--data', 'synthetic:', '--lambda', '0.01', '--figure2', '--seeds', '1', '--max-passes', '10', '--monitor', '5', '--out', out);
    const methods = summary.runs.map((r: { method: string }) => r.method);
    expect(methods).toHaveLength(10);
    expect(methods[0]).toBe('BCFW, gap');
    const hits = (method: string) => summary.runs.find((r: { method: string }) => r.method === method).cacheHits as number;
    // The paper's extremes: both parameters small, the cache serves most steps; either large, it serves (almost) none.
    expect(hits('cache F 0.01, nu 0.001')).toBeGreaterThan(10 * Math.max(1, hits('cache F 4, nu 1')));
    expect(hits('cache F 4, nu 0.001')).toBeLessThan(hits('cache F 0.01, nu 0.001'));
    expect(hits('BCFW, gap')).toBe(0);
    const direct = bcfw(await syntheticProblem(), { lambda: 0.01, seed: 1, maxPasses: 10, timeBudget: 3600, gapThreshold: 1e-8, monitorEvery: 5, gapCheck: 10, batch: 1, sampling: 'gap', step: 'fw', cache: { factor: 0.25, nu: 0.01, adaptive: false } });
    const row = summary.runs.find((r: { method: string }) => r.method === 'cache F 0.25, nu 0.01');
    expect(row.gap).toBe(direct.gap);
    expect(row.cacheHits).toBe(direct.counters.cacheHits);
  });

  it('--figure1: gap sampling with exact passes every 1/5/10/100/never and uniform sampling; Fig. 1b from the traces', () => {
    const out = join(dir, 'figure1');
    script('variants.ts', '--data', 'synthetic:', '--lambda', '0.01', '--figure1', '--seeds', '1', '--max-passes', '12', '--monitor', '2', '--out', out);
    const { runs } = readTraces([out]);
    expect(runs.map((r) => r.method).sort()).toEqual(['BCFW, uniform', 'gap, exact every 1', 'gap, exact every 10', 'gap, exact every 100', 'gap, exact every 5', 'gap, never exact']);
    for (const run of runs) {
      const ratios = runCurve(run, 'passes', 'gapRatio');
      // (a ratio needs a finite estimate: uniform sampling leaves some blocks unvisited in the first passes)
      expect(ratios.length, run.method).toBeGreaterThanOrEqual(3);
      for (const p of ratios) expect(p.y, run.method).toBeGreaterThan(0);
    }
    // an exact pass every pass: one counted exact pass per pass
    const every1 = runs.find((r) => r.method === 'gap, exact every 1')!;
    const last = every1.events.at(-1)!;
    expect(last.effectivePasses).toBeGreaterThanOrEqual(2 * last.pass);
  });
});

describe('scripts/experiments/path.ts', () => {
  it('pins sequential steps and passes the heuristic exit to the heuristic path (the library call, breakpoint for breakpoint)', async () => {
    const problem = await syntheticProblem();
    const solver = { step: 'pairwise', sampling: 'gap', cache: true, batch: 1 } as const;
    for (const exit of ['0.8', '1']) {
      const out = join(dir, `path-${exit}`);
      const summary = script('path.ts', '--data', 'synthetic:', '--min-lambda', '0.05', '--time-budget', '120', '--heuristic-exit', exit, '--out', out);
      const heuristic = regularizationPath(problem, { epsilon: 0.1, heuristic: true, minLambda: 0.05, timeBudget: 120, heuristicExit: Number(exit), solver });
      expect(summary.summary['heuristic path'].breakpoints, exit).toBe(heuristic.breakpoints.length);
      expect(summary.summary['heuristic path'].effectivePasses, exit).toBe(heuristic.effectivePasses);
      const rows = readFileSync(join(out, 'rows.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const gaps = rows.filter((r) => r.method === 'heuristic path').map((r) => r.gap);
      // every heuristic solve ended at an estimated gap <= exit x kappa x epsilon
      for (const g of gaps) expect(g).toBeLessThanOrEqual(Number(exit) * 0.7 * 0.1 + 1e-12);
    }
  }, 240_000);
});
