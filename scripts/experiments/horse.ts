/**
 * HorseSeg-style segmentation on the Weizmann horses (issue 6): class-normalised test error at a few
 * lambdas, and milliseconds per oracle call split into feature scoring and max-flow.
 *
 *   npx tsx src/cli/main.ts prepare-horse /work/shared/data/weizmann_horse --out horse-prepared
 *   npx tsx scripts/experiments/horse.ts --data horse-prepared --lambdas 1000,100,10,1,0.1 --max-passes 50 > horse.json
 *
 * Trains BCFW (modelProblem(SegmentationModel, ...), positivity on the 100 pairwise weights through the
 * engine's box constraints) on the 147 training images, evaluates the mean class-normalised
 * area-weighted Hamming loss ((FN/FG + FP/BG)/2 per image, the paper's "test error") and the
 * area-weighted superpixel accuracy on the test images. Progress to stderr, one JSON object to stdout.
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { modelProblem } from '../../src/engine/problem.js';
import { HorseDataset } from '../../src/data/horse.js';
import { StreamedHorseSet } from '../../src/data/horse-stream.js';
import { SegmentationModel, segmentationLoss, type SegmentationGraph } from '../../src/models/segmentation.js';
import { train } from '../../src/solvers/index.js';
import type { StepType, TrainSettings } from '../../src/solvers/settings.js';

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
    'cache-size': { type: 'string', default: '50' },
    'train-limit': { type: 'string' },
    seed: { type: 'string', default: '1' },
    /** Read the records from disk per oracle call (src/data/horse-stream.ts) instead of loading them. */
    stream: { type: 'boolean', default: false },
    /** Skip the oracle-timing passes at the end. */
    'no-timing': { type: 'boolean', default: false },
  },
});

const ds = new HorseDataset(values.data!);
const limit = values['train-limit'] ? Number(values['train-limit']) : Infinity;
const model = new SegmentationModel({ dUnary: ds.meta.dUnary, dPairwise: ds.meta.dPairwise });

/** A labelled part: count, graph of example i (a view when streamed), ground truths (areas attached). */
interface Part {
  n: number;
  graph: (i: number) => SegmentationGraph;
  ys: Uint8Array[];
}
function part(split: 'train' | 'test', max: number): { part: Part; problem?: () => ReturnType<typeof modelProblem<SegmentationGraph, Uint8Array>> } {
  const idx = ds.indices(split).slice(0, max);
  if (values.stream) {
    const set = new StreamedHorseSet(ds, idx);
    return { part: { n: set.length, graph: (i) => set.input(i), ys: set.ys }, problem: () => modelProblem(model, set) };
  }
  const mem = ds.load(split, max);
  mem.xs.forEach((x, i) => model.validate(x, mem.ys[i]!, `${split} ${i}`)); // attaches the areas to the truths
  return { part: { n: mem.xs.length, graph: (i) => mem.xs[i]!, ys: mem.ys }, problem: () => modelProblem(model, mem.xs, mem.ys) };
}
const tr = part('train', limit);
const test = part('test', Infinity).part;
const train_ = tr.part;
const problem = tr.problem!();
process.stderr.write(`horse: ${train_.n} train, ${test.n} test images, d = ${model.dim}${values.stream ? ' (streamed)' : ''}\n`);

function evaluate(w: Float64Array, p: Part): { error: number; accuracy: number } {
  let err = 0;
  let acc = 0;
  for (let i = 0; i < p.n; i++) {
    const x = p.graph(i);
    const y = model.decode(w, x);
    err += segmentationLoss(p.ys[i]!, y, x.areas);
    acc += 1 - segmentationLoss(p.ys[i]!, y, x.areas, 'hamming');
  }
  return { error: err / p.n, accuracy: acc / p.n };
}

// oracle timing: passes of loss-augmented oracles at a fixed w (fresh solves vs tree reuse; reuse only in memory)
function oracleTiming(w: Float64Array, reuseGraphs: boolean) {
  const m = new SegmentationModel({ dUnary: ds.meta.dUnary, dPairwise: ds.meta.dPairwise, reuseGraphs });
  const reps = train_.n > 1000 ? 1 : 3;
  const t0 = performance.now();
  for (let rep = 0; rep < reps; rep++) for (let i = 0; i < train_.n; i++) m.lossAugmentedDecode(w, train_.graph(i), train_.ys[i]!);
  const total = performance.now() - t0;
  const s = m.stats;
  return { reuseGraphs, calls: s.calls, scoringMs: s.scoringMs / s.calls, maxflowMs: s.maxflowMs / s.calls, totalMs: (s.scoringMs + s.maxflowMs) / s.calls, wallMsPerCall: total / s.calls };
}

const runs = [];
let bestW: Float64Array | undefined;
for (const lambda of values.lambdas!.split(',').map(Number)) {
  model.resetStats();
  const opts = {
    solver: 'bcfw',
    batch: 1, // the papers' sequential block steps
    lambda,
    maxPasses: Number(values['max-passes']),
    gapThreshold: Number(values['gap-threshold']),
    ...(values['time-budget'] ? { timeBudget: Number(values['time-budget']) } : {}),
    sampling: values.sampling as 'uniform',
    step: values.step as StepType,
    cache: values.cache ? { maxSize: Number(values['cache-size']) } : false,
    seed: Number(values.seed),
  } as TrainSettings;
  const t0 = performance.now();
  const r = train(problem, opts);
  const trainMs = performance.now() - t0;
  const s = { ...model.stats };
  const te = evaluate(r.w, test);
  const trE = evaluate(r.w, train_);
  let minPairwise = Infinity;
  let positivePairwise = 0;
  for (let j = model.dUnary; j < model.dim; j++) {
    minPairwise = Math.min(minPairwise, r.w[j]!);
    if (r.w[j]! > 0) positivePairwise++;
  }
  const run = {
    lambda, passes: r.passes, effectivePasses: r.effectivePasses, oracleCalls: r.oracleCalls, seconds: trainMs / 1000,
    primal: r.primal, dual: r.dual, gap: r.gap, gapIsExact: r.gapIsExact, stopReason: r.stopReason,
    trainError: trE.error, testError: te.error, testAccuracy: te.accuracy, minPairwiseWeight: minPairwise, positivePairwiseWeights: positivePairwise,
    oracleMs: { calls: s.calls, scoring: s.scoringMs / s.calls, maxflow: s.maxflowMs / s.calls }, clippedEdges: s.clippedEdges,
  };
  process.stderr.write(`${JSON.stringify(run)}\n`);
  runs.push(run);
  if (runs.every((x) => x.testError >= run.testError)) bestW = r.w;
}
const best = runs.reduce((a, b) => (b.testError < a.testError ? b : a));
const timing = bestW && !values['no-timing'] ? (values.stream ? [oracleTiming(bestW, false)] : [oracleTiming(bestW, false), oracleTiming(bestW, true)]) : [];
const allBackground = test.ys.reduce((s, y) => s + segmentationLoss(y, new Uint8Array(y.length), undefined), 0) / test.ys.length;
const peakRssMB = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify({ train: train_.n, test: test.n, dim: model.dim, streamed: values.stream, allBackgroundTestError: allBackground, bestLambda: best.lambda, bestTestError: best.testError, runs, oracleTiming: timing, peakRssMB })}\n`);
