/**
 * HorseSeg-style segmentation on the Weizmann horses (issue 6): class-normalised test error at a few
 * lambdas, and milliseconds per oracle call split into feature scoring and max-flow.
 *
 *   npx tsx src/cli/main.ts prepare-horse /work/shared/data/weizmann_horse --out horse-prepared   (or the runner in src/cli/horse.ts)
 *   npx tsx scripts/experiments/horse.ts --data horse-prepared --lambdas 1000,100,10,1,0.1 --max-passes 50 > horse.json
 *
 * Trains BCFW (modelProblem(SegmentationModel, ...), positivity on the 100 pairwise weights through the
 * engine's box constraints) on the 147 training images, evaluates the mean class-normalised
 * area-weighted Hamming loss ((FN/FG + FP/BG)/2 per image, the paper's "test error") and the
 * area-weighted superpixel accuracy on the test images. Progress to stderr, one JSON object to stdout.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { modelProblem } from '../../src/core/problem.js';
import { HorseDataset } from '../../src/data/horse.js';
import { SegmentationModel, segmentationLoss } from '../../src/models/segmentation.js';
import { train, type TrainOptions } from '../../src/solvers/index.js';
import type { StepType } from '../../src/solvers/bcfw.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: 'horse-prepared' },
    lambdas: { type: 'string', default: '1000,100,10,1,0.1' },
    'max-passes': { type: 'string', default: '30' },
    'gap-threshold': { type: 'string', default: '0.01' },
    'time-budget': { type: 'string' },
    sampling: { type: 'string', default: 'uniform' },
    step: { type: 'string', default: 'fw' },
    cache: { type: 'boolean', default: false },
    'train-limit': { type: 'string' },
    seed: { type: 'string', default: '1' },
  },
});

const ds = new HorseDataset(values.data!);
const limit = values['train-limit'] ? Number(values['train-limit']) : Infinity;
const train_ = ds.load('train', limit);
const test = ds.load('test');
const model = new SegmentationModel({ dUnary: ds.meta.dUnary, dPairwise: ds.meta.dPairwise });
test.xs.forEach((x, i) => model.validate(x, test.ys[i]!, `test ${i}`)); // attaches the areas to the truths
const problem = modelProblem(model, train_.xs, train_.ys);
process.stderr.write(`horse: ${train_.xs.length} train, ${test.xs.length} test images, d = ${model.dim}\n`);

function evaluate(w: Float64Array, xs: typeof test.xs, ys: typeof test.ys): { error: number; accuracy: number } {
  let err = 0;
  let acc = 0;
  for (let i = 0; i < xs.length; i++) {
    const y = model.decode(w, xs[i]!);
    err += segmentationLoss(ys[i]!, y, xs[i]!.areas);
    acc += 1 - segmentationLoss(ys[i]!, y, xs[i]!.areas, 'hamming');
  }
  return { error: err / xs.length, accuracy: acc / xs.length };
}

// oracle timing: one full pass of loss-augmented oracles at a fixed w (fresh solves vs tree reuse)
function oracleTiming(w: Float64Array, reuseGraphs: boolean) {
  const m = new SegmentationModel({ dUnary: ds.meta.dUnary, dPairwise: ds.meta.dPairwise, reuseGraphs });
  for (let rep = 0; rep < 3; rep++) for (let i = 0; i < train_.xs.length; i++) m.lossAugmentedDecode(w, train_.xs[i]!, train_.ys[i]!);
  const s = m.stats;
  return { reuseGraphs, calls: s.calls, scoringMs: s.scoringMs / s.calls, maxflowMs: s.maxflowMs / s.calls, totalMs: (s.scoringMs + s.maxflowMs) / s.calls };
}

const runs = [];
let bestW: Float64Array | undefined;
for (const lambda of values.lambdas!.split(',').map(Number)) {
  model.resetStats();
  const opts = {
    solver: 'bcfw',
    lambda,
    maxPasses: Number(values['max-passes']),
    gapThreshold: Number(values['gap-threshold']),
    ...(values['time-budget'] ? { timeBudget: Number(values['time-budget']) } : {}),
    sampling: values.sampling as 'uniform',
    step: values.step as StepType,
    cache: values.cache,
    seed: Number(values.seed),
  } as TrainOptions;
  const t0 = performance.now();
  const r = train(problem, opts);
  const trainMs = performance.now() - t0;
  const s = { ...model.stats };
  const te = evaluate(r.w, test.xs, test.ys);
  const tr = evaluate(r.w, train_.xs, train_.ys);
  let minPairwise = Infinity;
  let positivePairwise = 0;
  for (let j = model.dUnary; j < model.dim; j++) {
    minPairwise = Math.min(minPairwise, r.w[j]!);
    if (r.w[j]! > 0) positivePairwise++;
  }
  const run = {
    lambda, passes: r.passes, effectivePasses: r.effectivePasses, oracleCalls: r.oracleCalls, seconds: trainMs / 1000,
    primal: r.primal, dual: r.dual, gap: r.gap, gapIsExact: r.gapIsExact, stopReason: r.stopReason,
    trainError: tr.error, testError: te.error, testAccuracy: te.accuracy, minPairwiseWeight: minPairwise, positivePairwiseWeights: positivePairwise,
    oracleMs: { calls: s.calls, scoring: s.scoringMs / s.calls, maxflow: s.maxflowMs / s.calls }, clippedEdges: s.clippedEdges,
  };
  process.stderr.write(`${JSON.stringify(run)}\n`);
  runs.push(run);
  if (runs.every((x) => x.testError >= run.testError)) bestW = r.w;
}
const best = runs.reduce((a, b) => (b.testError < a.testError ? b : a));
const timing = bestW ? [oracleTiming(bestW, false), oracleTiming(bestW, true)] : [];
const allBackground = test.ys.reduce((s, y, i) => s + segmentationLoss(y, new Uint8Array(y.length), test.xs[i]!.areas), 0) / test.ys.length;
process.stdout.write(`${JSON.stringify({ train: train_.xs.length, test: test.xs.length, dim: model.dim, allBackgroundTestError: allBackground, bestLambda: best.lambda, bestTestError: best.testError, runs, oracleTiming: timing })}\n`);
