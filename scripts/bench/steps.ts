/**
 * Block steps per second on one thread: the native step loop against the TypeScript steps on the same problem and
 * settings (the same trace: both engines compute the same steps), per data set and solver configuration. Steps per
 * second = the steps of passes 2..P over the CPU seconds (process.cpuUsage) between the ends of pass 1 and pass P, so
 * no set-up and no exact pass; P is --passes or enough passes for 30,000 steps; rounds alternate the engines.
 *
 *   npx tsx scripts/bench/steps.ts [--sets ocr-large,ocr-small,conll,dna] [--passes 6] [--rounds 2]
 *                                  [--configs bcfw,bcpfw-gap-cache] [--quick]
 *
 * --quick: OCR-small, 4 passes, one round. One JSON object on stdout; progress on stderr. Data from $GAPBCFW_DATA or
 * ../shared/data (sets without data are skipped).
 */
import { parseArgs } from 'node:util';
import type { Problem } from '../../src/core/problem.js';
import { dataPath, hasData } from '../../src/data/paths.js';
import { modelProblem } from '../../src/engine/problem.js';
import { setThreads } from '../../src/native/threads.js';
import { train } from '../../src/solvers/index.js';
import type { TrainSettings } from '../../src/solvers/settings.js';
import { loadTask } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';

const SETS: Record<string, { data: string[]; spec: () => string; split?: string; lambda: number }> = {
  'ocr-large': { data: ['ocr', 'letter.data.gz'], spec: () => `ocr:${dataPath('ocr', 'letter.data.gz')}`, split: 'large', lambda: 1e-3 },
  'ocr-small': { data: ['ocr', 'letter.data.gz'], spec: () => `ocr:${dataPath('ocr', 'letter.data.gz')}`, split: 'small', lambda: 1e-3 },
  conll: { data: ['conll2000'], spec: () => `conll:${dataPath('conll2000')}`, lambda: 1e-3 },
  dna: { data: ['multiclass', 'dna', 'dna.scale'], spec: () => `libsvm:${dataPath('multiclass', 'dna', 'dna.scale')}`, lambda: 1e-2 },
};
const CONFIGS: Record<string, TrainSettings> = {
  bcfw: { solver: 'bcfw' },
  'bcpfw-gap-cache': { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: true },
  exact: { solver: 'bcfw', step: 'exact', sampling: 'gap' },
};
const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'ocr-large,ocr-small,conll,dna' },
    passes: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '2' },
    configs: { type: 'string', default: 'bcfw,bcpfw-gap-cache' },
    quick: { type: 'boolean', default: false },
  },
});
if (values.quick) Object.assign(values, { sets: 'ocr-small', passes: '4', rounds: '1' });
const passes = Number(values.passes);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const round = (x: number, digits = 4) => Number(x.toPrecision(digits));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Block steps per CPU second of a run of P passes (at least 30,000 steps; exact gaps only at the end): the steps of
 * passes 2..P over the CPU seconds between the ends of pass 1 and pass P (no set-up, no exact pass).
 */
function rate(problem: Problem, o: TrainSettings, native: boolean): number {
  const maxPasses = Math.max(passes, Math.ceil(30000 / problem.n));
  let first = NaN;
  let last = { pass: 0, cpu: NaN };
  train(problem, { ...o, gapThreshold: 0, gapCheck: 1e6, maxPasses, native }, {
    onProgress: (e) => {
      if (e.gapIsExact) return;
      if (e.pass === 1) first = cpu();
      last = { pass: e.pass, cpu: cpu() };
    },
  });
  return ((last.pass - 1) * problem.n) / (last.cpu - first);
}

setThreads(1);
const results: unknown[] = [];
for (const set of values.sets.split(',')) {
  const s = SETS[set]!;
  if (!hasData(...s.data)) {
    process.stderr.write(`${set}: no data, skipped\n`);
    continue;
  }
  const data = await loadTask(s.spec(), s.split ? { split: s.split } : {});
  const problem = modelProblem(buildModel(data.spec, 'native'), data.train);
  for (const config of values.configs.split(',')) {
    const o = { ...CONFIGS[config], lambda: s.lambda } as TrainSettings;
    const rates: Record<string, number[]> = { native: [], typescript: [] };
    for (let r = 0; r < Number(values.rounds); r++) {
      for (const native of [true, false]) {
        rates[native ? 'native' : 'typescript']!.push(rate(problem, o, native));
      }
    }
    const out = { set, n: problem.n, lambda: s.lambda, config, stepsPerSecond: { native: round(median(rates.native!)), typescript: round(median(rates.typescript!)) }, ratioNativeOverTypescript: round(median(rates.native!) / median(rates.typescript!)) };
    process.stderr.write(`${JSON.stringify(out)}\n`);
    results.push(out);
  }
}
console.log(JSON.stringify({ bench: 'steps', threads: 1, passes, results }, null, 1));
