/**
 * Time to exact duality gaps for the 8 block-coordinate variants of the 2016 paper (BCFW and BCPFW, uniform and gap
 * sampling, without and with the cache) and the 1-slack cutting plane, on OCR-small at lambda = 1/n and OCR-large at
 * lambda = 1e-3 (the paper's settings), one thread: the CPU seconds of training (process.cpuUsage, read when each exact
 * check arrives) and the passes and effective passes at which the exact gap first falls to each threshold.
 *
 *   npx tsx scripts/bench/variants.ts [--sets small:1/n,large:1e-3] [--gaps 0.1,0.01] [--time-budget 900]
 *                                     [--variants bcfw,bcfw-gap,bcfw-cache,bcfw-gap-cache,bcpfw,bcpfw-gap,bcpfw-cache,bcpfw-gap-cache,cutting-plane]
 *                                     [--quick]
 *
 * --quick: OCR-small at 1/n to the gap 0.1, BCPFW with gap sampling (with and without the cache) and the cutting plane.
 * One JSON object on stdout; progress on stderr. Data from $GAPBCFW_DATA or ../shared/data.
 */
import { parseArgs } from 'node:util';
import { dataPath } from '../../src/data/paths.js';
import { modelProblem } from '../../src/engine/problem.js';
import { train } from '../../src/solvers/index.js';
import type { TrainSettings } from '../../src/solvers/settings.js';
import { setThreads } from '../../src/native/threads.js';
import { loadTask } from '../../src/tasks/index.js';
import { buildModel } from '../../src/tasks/model-kinds.js';

const VARIANTS: Record<string, TrainSettings> = {
  bcfw: { solver: 'bcfw' },
  'bcfw-gap': { solver: 'bcfw', sampling: 'gap' },
  'bcfw-cache': { solver: 'bcfw', cache: true },
  'bcfw-gap-cache': { solver: 'bcfw', sampling: 'gap', cache: true },
  bcpfw: { solver: 'bcfw', step: 'pairwise' },
  'bcpfw-gap': { solver: 'bcfw', step: 'pairwise', sampling: 'gap' },
  'bcpfw-cache': { solver: 'bcfw', step: 'pairwise', cache: true },
  'bcpfw-gap-cache': { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: true },
  'cutting-plane': { solver: 'cutting-plane' },
};
const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'small:1/n,large:1e-3' },
    gaps: { type: 'string', default: '0.1,0.01' },
    'time-budget': { type: 'string', default: '900' },
    variants: { type: 'string', default: Object.keys(VARIANTS).join(',') },
    quick: { type: 'boolean', default: false },
  },
});
if (values.quick) Object.assign(values, { sets: 'small:1/n', gaps: '0.1', variants: 'bcpfw-gap,bcpfw-gap-cache,cutting-plane' });
const gaps = values.gaps.split(',').map(Number);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
const round = (x: number, digits = 4) => Number(x.toPrecision(digits));

setThreads(1);
const results: unknown[] = [];
for (const set of values.sets.split(',')) {
  const [split, lambdaSpec] = set.split(':') as [string, string];
  const data = await loadTask(`ocr:${dataPath('ocr', 'letter.data.gz')}`, { split });
  const problem = modelProblem(buildModel(data.spec, 'native'), data.train);
  const lambda = lambdaSpec === '1/n' ? 1 / problem.n : Number(lambdaSpec);
  for (const variant of values.variants.split(',')) {
    const reached: Record<string, { cpu: number; passes: number; effectivePasses: number }> = {};
    const c0 = cpu();
    const r = train(problem, {
      ...VARIANTS[variant], lambda, gapThreshold: Math.min(...gaps), maxPasses: 1e6, timeBudget: Number(values['time-budget']),
    }, {
      onProgress: (e) => {
        if (!e.gapIsExact || e.gap === undefined) return;
        for (const g of gaps) if (e.gap <= g && reached[g] === undefined) reached[g] = { cpu: round(cpu() - c0), passes: e.pass, effectivePasses: round(e.effectivePasses) };
      },
    });
    const out = { set: `ocr-${split}`, lambda: lambdaSpec, variant, toGap: reached, finalGap: round(r.gap!), cpu: round(cpu() - c0), stopReason: r.stopReason };
    process.stderr.write(`${JSON.stringify(out)}\n`);
    results.push(out);
  }
}
console.log(JSON.stringify({ bench: 'variants', threads: 1, results }, null, 1));
