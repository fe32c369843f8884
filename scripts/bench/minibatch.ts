/**
 * Multi-core training (issue 19): BCFW with mini-batches of tau blocks per step, the cache misses decoded
 * together on native threads, against the sequential engine, side by side in one run.
 *
 *   npx tsx scripts/bench/minibatch.ts [--data ocr,conll,horse,lsp] [--horse DIR] [--threads 1,2] [--taus 1,2,4,8,16,32]
 *       [--repeats 3] [--gaps 0.1,0.01] [--gaps-of horse=0.1,0.03 ...] [--lambda-of lsp=0.1 ...] [--throughput-only lsp]
 *       [--method bcfw|bcpfw-gap-cache] [--overlap off|on|both] [--time-budget SECONDS] [--plot docs/figures/minibatch]
 *
 * Two measurements per data set, for every thread count (setThreads: the mini-batch decodes and the exact
 * passes alike) and every tau, with overlapped mini-batches (TrainSettings.overlap) for tau > 1 as --overlap says:
 *  - throughput: oracle calls per second of the block steps (the first pass and the final certifying pass left
 *    out), over a few passes with no exact check in between; configurations run round-robin, --repeats times, medians;
 *  - convergence: one run per target gap to an exact (certified) gap <= it, with the run's seconds (exact
 *    passes included: the time a user waits for the certificate), effective passes and oracle calls per second
 *    over the run.
 * Each row also gives the ratios against (1 thread, tau 1), today's sequential engine on one core.
 * Data: OCR-large (lambda 1e-3), CoNLL-2000 train, a prepared horse set (--horse DIR, from gapbcfw
 * prepare-horse; --horse-stream reads it from disk per call), LSP-small (100 images); from ../shared/data
 * or $GAPBCFW_DATA. The machine should be otherwise idle. Prints one JSON object; --plot writes two figures
 * (speed-up against threads and tau; effective passes to the last gap against tau) as SVG and PNG.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { parseArgs } from 'node:util';
import type { TopLevelSpec } from 'vega-lite';
import { type Problem } from '../../src/core/problem.js';
import { modelProblem } from '../../src/engine/problem.js';
import { dataPath } from '../../src/data/paths.js';
import { renderPng, renderSvg } from '../../src/plot/figures.js';
import { bcfw } from '../../src/solvers/bcfw.js';
import type { TrainSettings } from '../../src/solvers/settings.js';
import { loadTask, taskOf, parseDataSpec } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';
import { setThreads } from '../../src/native/threads.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: 'ocr,conll,lsp' },
    horse: { type: 'string' },
    'horse-stream': { type: 'boolean', default: false },
    threads: { type: 'string', default: [...new Set([1, 2, availableParallelism()])].join(',') },
    taus: { type: 'string', default: '1,2,4,8,16,32' },
    repeats: { type: 'string', default: '3' },
    gaps: { type: 'string', default: '0.1,0.01' },
    method: { type: 'string', default: 'bcfw' },
    overlap: { type: 'string', default: 'off' },
    'time-budget': { type: 'string', default: '900' },
    'gaps-of': { type: 'string', multiple: true, default: [] },
    'lambda-of': { type: 'string', multiple: true, default: [] },
    'throughput-only': { type: 'string', default: '' },
    plot: { type: 'string' },
  },
});
const threadCounts = values.threads.split(',').map(Number);
const taus = values.taus.split(',').map(Number);
const gaps = values.gaps.split(',').map(Number);
/** Per data set targets (--gaps-of NAME=G,G), for sets where --gaps is out of reach within the time budget. */
const gapsOf = new Map(values['gaps-of'].map((s) => { const [name, list] = s.split('='); return [name!, list!.split(',').map(Number)]; }));
/** Per data set lambda (--lambda-of NAME=L) instead of the set's default below. */
const lambdaOf = new Map(values['lambda-of'].map((s) => { const [name, value] = s.split('='); return [name!, Number(value)]; }));
const repeats = Number(values.repeats);
const throughputOnly = new Set(values['throughput-only'].split(',').filter(Boolean));
const METHODS: Record<string, TrainSettings> = {
  bcfw: { step: 'fw', sampling: 'uniform', averaging: false },
  'bcpfw-gap-cache': { step: 'pairwise', sampling: 'gap', cache: true },
};
const method = METHODS[values.method];
if (!method) throw new Error(`--method: one of ${Object.keys(METHODS).join(', ')}`);

interface DataSet {
  name: string;
  problem: Problem;
  lambda: number;
  /** Passes per throughput run. */
  passes: number;
}

async function dataSet(name: string): Promise<DataSet> {
  const spec: Record<string, [string, { split?: string; stream?: boolean }, number | undefined, number]> = {
    ocr: [`ocr:${dataPath('ocr', 'letter.data.gz')}`, { split: 'large' }, 1e-3, 2],
    conll: [`conll:${dataPath('conll2000')}`, {}, undefined, 2],
    horse: [`horse:${values.horse}`, { stream: values['horse-stream'] }, undefined, 6],
    lsp: [`lsp:${dataPath('lsp')}`, { split: 'small' }, undefined, 3],
  };
  const entry = spec[name];
  if (!entry) throw new Error(`unknown data set '${name}' (ocr, conll, horse, lsp)`);
  if (name === 'horse' && values.horse === undefined) throw new Error('--data horse needs --horse DIR (gapbcfw prepare-horse)');
  const [data, load, lambda, passes] = entry;
  const task = await loadTask(data, load);
  const problem = modelProblem(buildModel(task.spec), task.train);
  return { name, problem, lambda: lambdaOf.get(name) ?? lambda ?? taskOf(parseDataSpec(data).kind).defaults?.lambda ?? 1 / problem.n, passes };
}

interface Config {
  threads: number;
  tau: number;
  overlap: boolean;
}
const overlaps = { off: [false], on: [true], both: [false, true] }[values.overlap];
if (!overlaps) throw new Error('--overlap: off, on or both');
const configs: Config[] = [];
for (const threads of threadCounts) {
  for (const tau of taus) {
    if (threads > 1 || tau === 1) for (const overlap of tau > 1 ? overlaps : [false]) configs.push({ threads, tau, overlap });
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/**
 * Oracle calls per second of the block steps of passes 2 to `passes` (no exact check until the final one): the
 * first pass is left out, since it also pays the one-time set-up of the batched decoder (a horse set's graphs).
 */
function throughput(d: DataSet, c: Config): number {
  setThreads(c.threads);
  const r = bcfw(d.problem, { ...method, lambda: d.lambda, batch: c.tau, overlap: c.overlap, maxPasses: d.passes, gapCheck: 1e9, heuristicExit: false, gapThreshold: 0, seed: 1 });
  const steps = r.trace.filter((e) => !e.gapIsExact);
  const first = steps[0]!, last = steps.at(-1)!;
  return (last.oracleCalls - first.oracleCalls) / (last.seconds - first.seconds);
}

/** Seconds and effective passes to a certified gap <= target (null when the time budget ran out first). */
function toGap(d: DataSet, c: Config, target: number): { seconds: number; effectivePasses: number } | null {
  setThreads(c.threads);
  const r = bcfw(d.problem, { ...method, lambda: d.lambda, batch: c.tau, overlap: c.overlap, gapThreshold: target, maxPasses: 100000, timeBudget: Number(values['time-budget']), seed: 1 });
  return r.thresholdReached ? { seconds: r.seconds, effectivePasses: r.effectivePasses } : null;
}

const results: Record<string, unknown>[] = [];
for (const name of values.data.split(',')) {
  const d = await dataSet(name);
  process.stderr.write(`${name}: n = ${d.problem.n}, d = ${d.problem.dim}, lambda ${d.lambda}\n`);
  const rates = configs.map(() => [] as number[]);
  for (let r = 0; r < repeats; r++) configs.forEach((c, k) => rates[k]!.push(throughput(d, c)));
  const base = median(rates[0]!);
  const rows = configs.map((c, k) => {
    const rate = median(rates[k]!);
    const row: Record<string, unknown> = { threads: c.threads, tau: c.tau, overlap: c.overlap, oracleCallsPerSecond: Math.round(rate), speedup: +(rate / base).toFixed(2) };
    process.stderr.write(`  threads ${c.threads} tau ${c.tau}${c.overlap ? ' overlapped' : ''}: ${Math.round(rate)} calls/s\n`);
    for (const target of throughputOnly.has(name) ? [] : (gapsOf.get(name) ?? gaps)) {
      const t = toGap(d, c, target);
      // Oracle calls per second over the whole run (as `train --json` reports them): later passes, whose w makes
      // the oracle work harder than the first passes' near-zero w, and the exact passes included.
      row[`to${target}`] = t && { seconds: +t.seconds.toFixed(2), effectivePasses: +t.effectivePasses.toFixed(1), oracleCallsPerSecond: Math.round((t.effectivePasses * d.problem.n) / t.seconds) };
      process.stderr.write(`  threads ${c.threads} tau ${c.tau}${c.overlap ? ' overlapped' : ''}: gap ${target}: ${t ? `${t.seconds.toFixed(1)} s, ${t.effectivePasses.toFixed(1)} eff. passes` : 'not reached'}\n`);
    }
    return row;
  });
  const first = rows[0]!;
  for (const row of rows) {
    for (const target of gapsOf.get(name) ?? gaps) {
      const mine = row[`to${target}`] as { seconds: number; effectivePasses: number } | null;
      const ref = first[`to${target}`] as { seconds: number; effectivePasses: number } | null;
      if (mine && ref) row[`to${target}`] = { ...mine, timeSpeedup: +(ref.seconds / mine.seconds).toFixed(2), passesRatio: +(mine.effectivePasses / ref.effectivePasses).toFixed(2) };
    }
  }
  results.push({ data: name, n: d.problem.n, dim: d.problem.dim, lambda: d.lambda, rows });
}

const report = { benchmark: 'minibatch', method: values.method, cpu: cpus()[0]?.model, cores: availableParallelism(), repeats, results };
console.log(JSON.stringify(report));

if (values.plot) {
  // The passes plot takes each data set's smallest target gap (its label names it).
  const lastOf = (name: string) => (gapsOf.get(name) ?? gaps).at(-1)!;
  const points = results.flatMap((r) =>
    (r.rows as Record<string, unknown>[]).map((row) => ({
      data: throughputOnly.has(r.data as string) ? (r.data as string) : `${r.data as string} (gap ${lastOf(r.data as string)})`,
      threads: `${row.threads as number} thread${row.threads === 1 ? '' : 's'}${row.overlap ? ', overlapped' : ''}`,
      tau: row.tau as number,
      speedup: row.speedup as number,
      passes: (row[`to${lastOf(r.data as string)}`] as { passesRatio?: number } | null)?.passesRatio ?? null,
    })),
  );
  const chart = (y: 'speedup' | 'passes', title: string): TopLevelSpec => ({
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title,
    width: 360,
    height: 220,
    data: { values: points.filter((p) => p[y] !== null) },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'tau', type: 'quantitative', scale: { type: 'log', base: 2 }, title: 'blocks per step (tau)' },
      y: { field: y, type: 'quantitative', title: y === 'speedup' ? 'oracle calls/s vs 1 thread, tau 1' : 'effective passes to the gap vs tau 1' },
      color: { field: 'data', type: 'nominal' },
      strokeDash: { field: 'threads', type: 'nominal' },
    },
  });
  for (const [suffix, spec] of [
    ['speedup', chart('speedup', `Block-step throughput on ${availableParallelism()} cores`)],
    ['passes', chart('passes', 'Effective passes to an exact gap, against tau 1')],
  ] as const) {
    const svg = await renderSvg(spec);
    writeFileSync(`${values.plot}-${suffix}.svg`, svg);
    writeFileSync(`${values.plot}-${suffix}.png`, renderPng(svg));
  }
}
