/**
 * The default blocks per step (defaultBatch, issue 34) against sequential steps (--batch 1), at each thread count,
 * side by side in one run: "a default must never be slower than --batch 1" (issue 36), and the same trace on any
 * number of threads (the default does not depend on them).
 *
 *   npx tsx scripts/bench/default-batch.ts [--data ocr,horse] [--horse DIR] [--threads 1,2] [--gap 0.01]
 *       [--gap-of horse=0.05] [--repeats 1] [--also 8] [--time-budget 600]
 *
 * For every data set, thread count and configuration (the default, tau 1, and each `--also` tau, overlapped where
 * the model's decoder works in the background, as `--batch TAU` gives it), BCFW with the `train` command's defaults
 * (seed 1, exact gap every 10 passes) runs to a certified gap <= the target; configurations are interleaved,
 * --repeats rounds, medians. Rows give seconds, effective passes, the ratio of seconds against tau 1 at the same
 * thread count, and whether the final gap's bits equal those of the same configuration on the first thread count.
 * Data: OCR-large (lambda 1e-3), a prepared horse set (--horse DIR, from gapbcfw prepare-horse; lambda 1/n), CoNLL
 * (lambda 1/n); from ../shared/data or $GAPBCFW_DATA. Prints one JSON object; progress on stderr. Report `uptime`.
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Problem } from '../../src/core/problem.js';
import { dataPath } from '../../src/data/paths.js';
import { modelProblem } from '../../src/engine/problem.js';
import { setThreads } from '../../src/native/threads.js';
import { bcfw } from '../../src/solvers/bcfw.js';
import { loadTask } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: 'ocr,horse' },
    horse: { type: 'string' },
    threads: { type: 'string', default: '1,2' },
    gap: { type: 'string', default: '0.01' },
    'gap-of': { type: 'string', multiple: true, default: [] },
    repeats: { type: 'string', default: '1' },
    also: { type: 'string', default: '' },
    'time-budget': { type: 'string', default: '600' },
  },
});
const threadCounts = values.threads.split(',').map(Number);
const gapOf = new Map(values['gap-of'].map((s) => s.split('=') as [string, string]));
const extraTaus = values.also.split(',').filter(Boolean).map(Number);

async function dataSet(name: string): Promise<{ problem: Problem; lambda: number }> {
  const specs: Record<string, [string, { split?: string }, number | undefined]> = {
    ocr: [`ocr:${dataPath('ocr', 'letter.data.gz')}`, { split: 'large' }, 1e-3],
    horse: [`horse:${values.horse}`, {}, undefined],
    conll: [`conll:${dataPath('conll2000')}`, {}, undefined],
  };
  const entry = specs[name];
  if (!entry) throw new Error(`unknown data set '${name}' (ocr, horse, conll)`);
  if (name === 'horse' && values.horse === undefined) throw new Error('--data horse needs --horse DIR (gapbcfw prepare-horse)');
  const task = await loadTask(entry[0], entry[1]);
  const problem = modelProblem(buildModel(task.spec), task.train);
  return { problem, lambda: entry[2] ?? 1 / problem.n };
}

const bitsOf = (x: number) => Buffer.from(new Float64Array([x]).buffer).toString('hex');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

const results: unknown[] = [];
for (const name of values.data.split(',')) {
  const { problem, lambda } = await dataSet(name);
  const target = Number(gapOf.get(name) ?? values.gap);
  const configs: (number | undefined)[] = [undefined, 1, ...extraTaus];
  type Run = { seconds: number; effectivePasses: number; batch: number; overlap: boolean; gapBits: string; reached: boolean };
  const runs = new Map<string, Run[]>();
  const key = (threads: number, tau: number | undefined) => `${threads}/${tau ?? 'default'}`;
  for (let r = 0; r < Number(values.repeats); r++) {
    for (const threads of threadCounts) {
      for (const tau of configs) {
        setThreads(threads);
        const res = bcfw(problem, { lambda, gapThreshold: target, maxPasses: 100000, timeBudget: Number(values['time-budget']), seed: 1, ...(tau === undefined ? {} : { batch: tau }) });
        const run = { seconds: res.seconds, effectivePasses: res.effectivePasses, batch: res.batch, overlap: res.overlap, gapBits: bitsOf(res.gap!), reached: res.thresholdReached === true };
        runs.set(key(threads, tau), [...(runs.get(key(threads, tau)) ?? []), run]);
        process.stderr.write(`${name} threads ${threads} ${tau === undefined ? `default (tau ${res.batch}${res.overlap ? ', overlapped' : ''})` : `tau ${tau}`}: ${run.seconds.toFixed(1)} s, ${run.effectivePasses.toFixed(1)} eff. passes${run.reached ? '' : ' (not reached)'}\n`);
      }
    }
  }
  const rows = threadCounts.flatMap((threads) =>
    configs.map((tau) => {
      const mine = runs.get(key(threads, tau))!;
      const seconds = median(mine.map((m) => m.seconds));
      const sequential = median(runs.get(key(threads, 1))!.map((m) => m.seconds));
      return {
        threads,
        config: tau === undefined ? 'default' : `tau ${tau}`,
        tau: mine[0]!.batch,
        overlap: mine[0]!.overlap,
        seconds: +seconds.toFixed(2),
        effectivePasses: +mine[0]!.effectivePasses.toFixed(1),
        reached: mine.every((m) => m.reached),
        secondsVsTau1: +(seconds / sequential).toFixed(2),
        sameGapBitsAsFirstThreadCount: mine[0]!.gapBits === runs.get(key(threadCounts[0]!, tau))![0]!.gapBits,
      };
    }),
  );
  results.push({ data: name, n: problem.n, dim: problem.dim, lambda, target, rows });
}
console.log(JSON.stringify({ benchmark: 'default-batch', cpu: cpus()[0]?.model, cores: availableParallelism(), loadAverage: loadavg().map((x) => +x.toFixed(2)), repeats: Number(values.repeats), results }));
