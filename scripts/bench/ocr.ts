/**
 * OCR chain benchmark (the foundation issue's figures). For each split and lambda it trains BCFW
 * (line search, weighted averaging, uniform sampling, exact gap every 10 passes) on one core and reports:
 * oracle calls per training second, seconds per effective pass, the passes (and effective passes) at which
 * the exact gap first fell below 0.1 and 0.01, the final gap and the test error (mean per-word normalised
 * Hamming loss). Side by side, it times the loss-augmented oracle alone with the native and TypeScript
 * decoders on the same w (ratio ts/native).
 *
 *   npx tsx scripts/bench/ocr.ts [--split large,small] [--lambda 1e-3,1e-4] [--max-passes 1000] [--time-budget 600]
 *
 * Prints one JSON object to stdout; progress on stderr. Data from $GAPBCFW_DATA or ../shared/data.
 */
import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import { loadOcr, ocrSplit, ocrToSequences } from '../../src/data/ocr.js';
import { dataPath } from '../../src/data/paths.js';
import { ChainModel, sequencesXY } from '../../src/models/chain.js';
import { meanLoss, modelProblem } from '../../src/engine/problem.js';
import { bcfw } from '../../src/solvers/bcfw.js';

const { values } = parseArgs({
  options: {
    split: { type: 'string', default: 'large,small' },
    lambda: { type: 'string', default: '1e-3,1e-4' },
    'max-passes': { type: 'string', default: '1000' },
    'time-budget': { type: 'string', default: '600' },
  },
});
const splits = values.split.split(',');
const lambdas = values.lambda.split(',').map(Number);
const maxPasses = Number(values['max-passes']);
const timeBudget = Number(values['time-budget']);
const round = (x: number | undefined, digits = 4) => (x === undefined ? null : Number(x.toPrecision(digits)));

const data = loadOcr(dataPath('ocr', 'letter.data.gz'));
const runs: unknown[] = [];
const oracleOnly: unknown[] = [];
for (const split of splits) {
  const parts = ocrSplit(data, split);
  const train = sequencesXY(ocrToSequences(parts.train).examples);
  const test = sequencesXY(ocrToSequences(parts.test).examples);
  const model = new ChainModel({ numFeatures: 129, numLabels: 26, backend: 'native' });
  const problem = modelProblem(model, train.xs, train.ys);
  for (const lambda of lambdas) {
    process.stderr.write(`OCR-${split}, lambda ${lambda}: n = ${problem.n}\n`);
    const r = bcfw(problem, { lambda, gapThreshold: 0.01, maxPasses, timeBudget, batch: 1 }, { onProgress: (e) => { if (e.gapIsExact) process.stderr.write(`  pass ${e.pass} gap ${e.gap!.toExponential(3)} ${e.seconds.toFixed(1)}s\n`); } });
    const firstBelow = (thr: number) => r.trace.find((e) => e.gapIsExact && e.gap! <= thr);
    const at01 = firstBelow(0.1);
    const at001 = firstBelow(0.01);
    runs.push({
      split, lambda, n: problem.n,
      oracleCallsPerSecond: round(r.oracleCalls / r.seconds),
      secondsPerEffectivePass: round(r.seconds / r.effectivePasses),
      passesToGap01: at01?.pass ?? null, effectivePassesToGap01: at01?.effectivePasses ?? null,
      passesToGap001: at001?.pass ?? null, effectivePassesToGap001: at001?.effectivePasses ?? null,
      passes: r.passes, seconds: round(r.seconds), finalGap: round(r.gap), stopReason: r.stopReason,
      testError: round(meanLoss(model, r.w, test.xs, test.ys)),
    });
    // The oracle alone, both decoders, on the trained w (3 sweeps over the training set each, interleaved).
    const times: Record<string, number[]> = { native: [], js: [] };
    const decoders = { native: model, js: new ChainModel({ numFeatures: 129, numLabels: 26, backend: 'js' }) };
    for (let rep = 0; rep < 3; rep++) {
      for (const name of ['native', 'js'] as const) {
        const t0 = performance.now();
        for (let i = 0; i < problem.n; i++) decoders[name].lossAugmentedDecode(r.w, train.xs[i]!, train.ys[i]!);
        times[name]!.push((performance.now() - t0) / 1000);
      }
    }
    const best = (xs: number[]) => Math.min(...xs);
    oracleOnly.push({
      split, lambda,
      nativeCallsPerSecond: round(problem.n / best(times.native!)),
      jsCallsPerSecond: round(problem.n / best(times.js!)),
      ratioJsOverNative: round(best(times.js!) / best(times.native!), 3),
    });
  }
}
console.log(JSON.stringify({ cpu: cpus()[0]?.model, node: process.version, runs, oracleOnly }, null, 1));
