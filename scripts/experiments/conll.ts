/**
 * CoNLL-2000 chunking with the sparse chain model: dictionary size, oracle cost, and for each lambda a
 * training run with chunk F1 on the test set, seconds per effective pass and peak memory. Prints one JSON
 * object on stdout (progress on stderr).
 *
 *   npx tsx scripts/experiments/conll.ts --data ../shared/data/conll2000 --lambda 1e-2,1e-3 --max-passes 50
 *   npx tsx scripts/experiments/conll.ts --limit 300 --min-frequency 2 --lambda 1e-2     # a subset (dense engine)
 *   npx tsx scripts/experiments/conll.ts --min-frequency 1 --no-train                  # F and ms per oracle call only
 *
 * `--solver bcfw|bcpfw|bcafw|hybrid|fw|ssg`, `--sampling uniform|perm|gap`, `--cache`, `--block-storage
 * dense|sparse` pick the variant. "ms per oracle call" is the mean over one pass of loss-augmented Viterbi
 * calls on every training sentence (feature sums + Viterbi + the psi of the answer), at w = 0 and at the
 * trained w. "s per effective pass" = training seconds / effective passes (exact-gap passes included).
 */
import { parseArgs } from 'node:util';
import { loadConllTask } from '../../src/tasks/conll.js';
import { dataPath } from '../../src/data/paths.js';
import { modelProblem } from '../../src/engine/problem.js';
import { SparseChainModel, type SparseSequence } from '../../src/models/sparse-chain.js';
import { conllMetrics } from '../../src/tasks/conll.js';
import { train } from '../../src/solvers/index.js';
import type { TrainSettings } from '../../src/solvers/settings.js';
import { Rng } from '../../src/core/rng.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: dataPath('conll2000') },
    limit: { type: 'string' },
    'test-limit': { type: 'string' },
    'min-frequency': { type: 'string', default: '3' },
    lambda: { type: 'string', default: '1e-2' },
    solver: { type: 'string', default: 'bcfw' },
    sampling: { type: 'string' },
    cache: { type: 'boolean', default: false },
    'block-storage': { type: 'string' },
    'max-passes': { type: 'string', default: '50' },
    'gap-threshold': { type: 'string', default: '1e-3' },
    'gap-check': { type: 'string', default: '10' },
    'time-budget': { type: 'string' },
    seed: { type: 'string', default: '1' },
    'no-train': { type: 'boolean', default: false },
    backend: { type: 'string', default: 'native' },
  },
});

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const peakRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);
const log = (s: string) => process.stderr.write(`${s}\n`);

const t0 = performance.now();
const task = loadConllTask(values.data, {
  minFrequency: Number(values['min-frequency']),
  limit: values.limit === undefined ? undefined : Number(values.limit),
  testLimit: values['test-limit'] === undefined ? undefined : Number(values['test-limit']),
});
const loadSeconds = (performance.now() - t0) / 1000;
log(task.description);
const backend = values.backend === 'js' ? 'js' : 'native';
const model = new SparseChainModel({ numFeatures: task.spec.numFeatures, numLabels: task.spec.numLabels, backend });
const { xs, ys } = task.train;
let tokens = 0;
let nnz = 0;
for (const x of xs) {
  tokens += x.offsets.length - 1;
  nnz += x.ids.length;
}

/** Mean ms per loss-augmented oracle call (+ psi of the answer) over the training set at w. */
function oracleMs(w: Float64Array): { msPerCall: number; msPerCallDecodeOnly: number } {
  let s = performance.now();
  const answers: Int32Array[] = [];
  for (let i = 0; i < xs.length; i++) answers.push(model.lossAugmentedDecode(w, xs[i]!, ys[i]!));
  const decode = performance.now() - s;
  s = performance.now();
  let sink = 0;
  for (let i = 0; i < xs.length; i++) sink += model.psi(xs[i]!, ys[i]!, answers[i]!).nnz;
  const psi = performance.now() - s;
  if (sink < 0) log('');
  return { msPerCall: (decode + psi) / xs.length, msPerCallDecodeOnly: decode / xs.length };
}

const rng = new Rng(7);
const wRandom = Float64Array.from({ length: model.dim }, () => rng.next() - 0.5);
oracleMs(wRandom); // warm-up (JIT)
const oracle = { atZero: oracleMs(new Float64Array(model.dim)), atRandom: oracleMs(wRandom) };
log(`oracle: ${oracle.atRandom.msPerCall.toFixed(3)} ms per call (${oracle.atRandom.msPerCallDecodeOnly.toFixed(3)} ms decode only)`);

const STEP: Record<string, string> = { bcfw: 'fw', bcpfw: 'pairwise', bcafw: 'away', hybrid: 'hybrid' };
const runs: Record<string, unknown>[] = [];
if (!values['no-train']) {
  const problem = modelProblem(model, xs as SparseSequence[], ys);
  for (const lambda of values.lambda.split(',').map(Number)) {
    const step = STEP[values.solver];
    const options: Record<string, unknown> = {
      solver: step ? 'bcfw' : values.solver,
      lambda,
      maxPasses: Number(values['max-passes']),
      gapThreshold: Number(values['gap-threshold']),
      seed: Number(values.seed),
    };
    // Batch FW certifies every iteration: it takes no gap check.
    if (values.solver !== 'fw') options.gapCheck = Number(values['gap-check']);
    if (values['time-budget'] !== undefined) options.timeBudget = Number(values['time-budget']);
    if (step) {
      options.step = step;
      if (values.cache) options.cache = true;
      if (values['block-storage'] !== undefined) options.blockStorage = values['block-storage'];
    }
    if (values.sampling !== undefined && values.solver !== 'fw') options.sampling = values.sampling;
    const r = train(problem, options as TrainSettings, {
      onProgress: (e) => {
        if (e.gapIsExact && e.gap !== undefined) log(`lambda ${lambda}: pass ${e.pass} gap ${e.gap.toExponential(3)} ${e.seconds.toFixed(1)} s`);
      },
    });
    const test = task.test ? conllMetrics(model, r.w, task.test, task.spec.labelNames) : undefined;
    const trainMetrics = conllMetrics(model, r.w, task.train, task.spec.labelNames);
    const run = {
      lambda,
      solver: values.solver,
      passes: r.passes,
      effectivePasses: r.effectivePasses,
      oracleCalls: r.oracleCalls,
      seconds: r.seconds,
      secondsPerEffectivePass: r.effectivePasses > 0 ? r.seconds / r.effectivePasses : undefined,
      gap: r.gap,
      primal: r.primal,
      dual: r.dual,
      stopReason: r.stopReason,
      trainF1: trainMetrics.f1,
      trainError: trainMetrics.testError,
      f1: test?.f1,
      precision: test?.precision,
      recall: test?.recall,
      accuracy: test?.accuracy,
      testError: test?.testError,
      oracleAtSolution: oracleMs(r.w),
      peakRssMB: peakRssMB(),
    };
    log(`lambda ${lambda}: test F1 ${test?.f1.toFixed(4)}, ${run.secondsPerEffectivePass?.toFixed(2)} s per effective pass`);
    runs.push(run);
  }
}

console.log(
  JSON.stringify({
    data: values.data,
    n: xs.length,
    nTest: task.test?.xs.length ?? 0,
    tokens,
    attributesPerToken: nnz / tokens,
    minFrequency: task.dictionary.minFrequency,
    F: task.spec.numFeatures,
    K: task.spec.numLabels,
    d: model.dim,
    loadSeconds,
    oracle,
    runs,
    rssMB: mb(process.memoryUsage().rss),
    peakRssMB: peakRssMB(),
  }),
);
