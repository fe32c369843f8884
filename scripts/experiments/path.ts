/**
 * Regularization path against grid search (the 2016 paper's Sec. 5.2, Fig. 4 and App. K): the exact
 * epsilon-path, the heuristic path, and grid search over 2^15..2^-15 with keep-primal, keep-dual and no
 * warm start. Writes JSON (breakpoints, cumulative seconds and effective passes per lambda, test error,
 * the true gap at every heuristic breakpoint), rows.jsonl (for gapbcfw plot --x lambda) and three figures
 * (PNG and SVG) into --out:
 * cumulative time and effective passes against lambda, and test error against lambda.
 *
 *   npx tsx scripts/experiments/path.ts --data ocr:../shared/data/ocr/letter.data.gz --split small --out runs/path-ocr-small
 *
 * Every solve is the paper's BCPFW with gap sampling and caching, with sequential block steps (--batch 1) unless
 * --batch TAU asks for mini-batches: pinned, so that the figures do not depend on the model's default tau.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadTask } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';
import { meanLoss, modelProblem } from '../../src/engine/problem.js';
import { regularizationPath } from '../../src/path/regpath.js';
import { gridSearch, PAPER_GRID } from '../../src/path/grid.js';
import { renderPng, renderSvg } from '../../src/plot/figures.js';
import { lambdaFigure } from '../../src/plot/path-figure.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: 'synthetic:' },
    split: { type: 'string' },
    epsilon: { type: 'string', default: '0.1' },
    'min-lambda': { type: 'string', default: String(2 ** -15) },
    'time-budget': { type: 'string', default: '1800' },
    batch: { type: 'string', default: '1' },
    // The heuristic path ends a solve at an estimated gap <= this x kappa x epsilon (the authors' 0.8).
    'heuristic-exit': { type: 'string', default: '0.8' },
    out: { type: 'string', default: 'runs/path' },
  },
});
const epsilon = Number(values.epsilon);
const minLambda = Number(values['min-lambda']);
const timeBudget = Number(values['time-budget']);
const solver = { step: 'pairwise', sampling: 'gap', cache: true, batch: Number(values.batch) } as const;
const task = await loadTask(values.data, { split: values.split });
const model = buildModel(task.spec);
const problem = modelProblem(model, task.train);
const test = task.test;
const testError = (w: Float64Array) => (test ? meanLoss(model, w, test) : null);
mkdirSync(values.out, { recursive: true });

type Row = { method: string; lambda: number; seconds: number; effectivePasses: number; gap: number; trueGap?: number; testError: number | null };
const rows: Row[] = [];
const summary: Record<string, unknown> = {};
for (const heuristic of [false, true]) {
  const method = heuristic ? 'heuristic path' : 'exact path';
  const p = regularizationPath(problem, { epsilon, heuristic, heuristicExit: Number(values['heuristic-exit']), minLambda, timeBudget, solver });
  for (const b of p.breakpoints) rows.push({ method, lambda: b.lambda, seconds: b.seconds, effectivePasses: b.effectivePasses, gap: b.gap, trueGap: b.trueGap, testError: testError(b.w) });
  summary[method] = {
    breakpoints: p.breakpoints.length, lambdaInf: p.lambdaInf, seconds: p.seconds, effectivePasses: p.effectivePasses, stopReason: p.stopReason,
    ...(heuristic ? { trueGapMax: Math.max(...p.breakpoints.map((b) => b.trueGap!)), trueGapsAboveEpsilon: p.breakpoints.filter((b) => b.trueGap! > epsilon).length } : {}),
  };
  process.stderr.write(`${method}: ${p.breakpoints.length} breakpoints, ${p.seconds.toFixed(1)} s, ${p.effectivePasses.toFixed(1)} effective passes (${p.stopReason})\n`);
}
for (const warmStart of ['keep-primal', 'keep-dual', 'none'] as const) {
  const method = `grid, ${warmStart === 'none' ? 'no warm start' : warmStart}`;
  const g = gridSearch(problem, { lambdas: PAPER_GRID.filter((l) => l >= minLambda), epsilon, warmStart, timeBudget, solver });
  for (const q of g.points) rows.push({ method, lambda: q.lambda, seconds: q.seconds, effectivePasses: q.effectivePasses, gap: q.gap, testError: testError(q.w) });
  summary[method] = { points: g.points.length, seconds: g.seconds, effectivePasses: g.effectivePasses, unsolved: g.points.filter((q) => q.stopReason !== 'gap').length };
  process.stderr.write(`${method}: ${g.points.length} lambdas, ${g.seconds.toFixed(1)} s, ${g.effectivePasses.toFixed(1)} effective passes\n`);
}
writeFileSync(join(values.out, 'path.json'), JSON.stringify({ data: values.data, split: values.split, epsilon, summary, rows }, null, 1));

writeFileSync(join(values.out, 'rows.jsonl'), `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
const title = `${values.data.replace(/^(\w+):.*\//, '$1:')}${values.split ? ` (${values.split})` : ''}, epsilon = ${epsilon}`;
for (const [name, y] of [['time', 'seconds'], ['passes', 'effectivePasses'], ['test-error', 'testError']] as const) {
  const svg = await renderSvg(lambdaFigure(rows.map((r) => ({ ...r, testError: r.testError ?? undefined })), y, title));
  writeFileSync(join(values.out, `${name}.svg`), svg);
  writeFileSync(join(values.out, `${name}.png`), renderPng(svg));
}
console.log(JSON.stringify({ data: values.data, split: values.split, epsilon, summary }));
