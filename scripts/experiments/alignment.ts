/**
 * Word-alignment figures (issue 11): cross-validated alignment error rate on the 484 hand-aligned Hansards
 * pairs for BCFW, gap-BCFW variants and SSG at a few lambdas, against the identical-or-Dice baseline, and the
 * oracle time per sentence pair.
 *
 *   npx tsx scripts/experiments/alignment.ts --folds 5 --lambdas 1e-2,1e-3,1e-4 --max-passes 100 > alignment.json
 *   npx tsx scripts/experiments/alignment.ts --timing-only
 *
 * For every fold k of --folds (contiguous, src/data/alignment.ts), the Dice statistics are counted over the
 * unlabelled sample plus the training pairs of that fold, the models are trained on the other folds and
 * predict the held-out fold; AER / precision / recall are pooled over the held-out predictions of all folds
 * (the link counts are summed, as AER is defined on a corpus), and the per-fold AERs are listed too. The
 * baseline's threshold is tuned on each fold's training pairs. Progress goes to stderr, one JSON object to stdout.
 */
import { parseArgs } from 'node:util';
import { cpus } from 'node:os';
import { modelProblem } from '../../src/engine/problem.js';
import { Rng } from '../../src/core/rng.js';
import {
  alignmentCounts,
  alignmentMetrics,
  foldSplit,
  foldStats,
  matchingData,
  readHansards,
  readParallelSample,
  sumCounts,
  tunedBaseline,
  type AlignmentCounts,
} from '../../src/data/alignment.js';
import { dataPath } from '../../src/data/paths.js';
import { Hungarian } from '../../src/models/hungarian.js';
import { AlignmentFeaturizer, MatchingModel, diceBaseline } from '../../src/models/matching.js';
import { train } from '../../src/solvers/index.js';
import type { TrainSettings } from '../../src/solvers/settings.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: dataPath('word_alignment_hansards') },
    folds: { type: 'string', default: '5' },
    lambdas: { type: 'string', default: '1e-2,1e-3,1e-4' },
    methods: { type: 'string' },
    'max-passes': { type: 'string', default: '100' },
    'gap-threshold': { type: 'string', default: '1e-3' },
    seed: { type: 'string', default: '1' },
    'timing-only': { type: 'boolean', default: false },
  },
});

const METHODS: Record<string, TrainSettings> = {
  BCFW: { solver: 'bcfw', step: 'fw', sampling: 'uniform' }, // with weighted averaging (default for plain BCFW)
  'BCFW, gap': { solver: 'bcfw', step: 'fw', sampling: 'gap' },
  'BCFW, gap, cache': { solver: 'bcfw', step: 'fw', sampling: 'gap', cache: true },
  'BCPFW, gap': { solver: 'bcfw', step: 'pairwise', sampling: 'gap' },
  'BCPFW, gap, cache': { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: true },
  SSG: { solver: 'ssg', sampling: 'uniform' }, // with weighted averaging
};

const log = (s: string) => process.stderr.write(`${s}\n`);
const K = Number(values.folds);
const lambdas = values.lambdas.split(',').map(Number);
const methodNames = values.methods ? values.methods.split(';') : Object.keys(METHODS);
const maxPasses = Number(values['max-passes']);
const gapThreshold = Number(values['gap-threshold']);
const seed = Number(values.seed);

const t0 = performance.now();
const pairs = readHansards(values.data);
const sample = readParallelSample(values.data);
log(`${pairs.length} labelled pairs, ${sample.length} unlabelled sample pairs (${((performance.now() - t0) / 1000).toFixed(2)} s)`);

interface FoldData {
  split: ReturnType<typeof foldSplit<(typeof pairs)[number]>>;
  stats: ReturnType<typeof foldStats>;
  train: ReturnType<typeof matchingData>;
  test: ReturnType<typeof matchingData>;
  featureSeconds: number;
}

function foldData(k: number): FoldData {
  const t = performance.now();
  const split = foldSplit(pairs, K, k);
  const stats = foldStats(sample, split.train);
  const fz = new AlignmentFeaturizer(stats);
  const trainData = matchingData(split.train, fz);
  const testData = matchingData(split.test, fz);
  return { split, stats, train: trainData, test: testData, featureSeconds: (performance.now() - t) / 1000 };
}

/** Oracle time per sentence pair: edge scoring (E F D multiply-adds) and the Hungarian algorithm separately. */
function oracleTiming(fd: FoldData, w: Float64Array) {
  const model = new MatchingModel({ numFeatures: w.length });
  const { xs, ys } = fd.train;
  const hung = new Hungarian();
  const scores = xs.map((x) => new Float64Array(x.rows * x.cols));
  // Each figure is the best of 5 passes over the training pairs (the machine may be shared).
  const bestOf = (pass: () => void) => {
    pass(); // JIT warm-up
    let best = Infinity;
    for (let r = 0; r < 5; r++) {
      const t = performance.now();
      pass();
      best = Math.min(best, (performance.now() - t) / xs.length);
    }
    return best;
  };
  const oracle = bestOf(() => {
    for (let i = 0; i < xs.length; i++) model.lossAugmentedDecode(w, xs[i]!, ys[i]!);
  });
  const scoring = bestOf(() => {
    for (let i = 0; i < xs.length; i++) model.edgeScores(w, xs[i]!, scores[i]!);
  });
  const out = new Int32Array(64);
  const hungarian = bestOf(() => {
    for (let i = 0; i < xs.length; i++) hung.maxWeightMatching(scores[i]!, xs[i]!.rows, xs[i]!.cols, out);
  });
  const sizes = xs.map((x) => Math.max(x.rows, x.cols));
  // Scaling of the Hungarian algorithm alone on random square matrices (padded to n x 2n).
  const rng = new Rng(1);
  const scaling: { n: number; microseconds: number }[] = [];
  for (const n of [8, 16, 32, 64, 128]) {
    const s = Float64Array.from({ length: n * n }, () => rng.next() * 2 - 1);
    const o = new Int32Array(n);
    const rounds = Math.max(5, Math.round(200000 / (n * n)));
    let best = Infinity; // best of 5 repetitions (the machine is shared)
    for (let rep = 0; rep < 5; rep++) {
      const tt = performance.now();
      for (let r = 0; r < rounds; r++) hung.maxWeightMatching(s, n, n, o);
      best = Math.min(best, (1000 * (performance.now() - tt)) / rounds);
    }
    scaling.push({ n, microseconds: best });
  }
  return {
    pairs: xs.length,
    meanSize: sizes.reduce((a, b) => a + b, 0) / sizes.length,
    maxSize: Math.max(...sizes),
    dim: w.length,
    oracleMicroseconds: 1000 * oracle,
    scoringMicroseconds: 1000 * scoring,
    hungarianMicroseconds: 1000 * hungarian,
    hungarianScaling: scaling,
  };
}

const folds: FoldData[] = [];
for (let k = 0; k < K; k++) {
  folds.push(foldData(k));
  log(`fold ${k}: ${folds[k]!.split.train.length} train / ${folds[k]!.split.test.length} test pairs, features in ${folds[k]!.featureSeconds.toFixed(2)} s`);
}

// Baseline.
const baselineCounts: AlignmentCounts[] = [];
const baselineFolds: { fold: number; threshold: number; aer: number }[] = [];
for (let k = 0; k < K; k++) {
  const fd = folds[k]!;
  const { threshold } = tunedBaseline(fd.stats, fd.split.train);
  const c = sumCounts(fd.split.test.map((p) => alignmentCounts(diceBaseline(fd.stats, p.e, p.f, threshold), p)));
  baselineCounts.push(c);
  baselineFolds.push({ fold: k, threshold, aer: alignmentMetrics(c).aer });
}
const baseline = { ...alignmentMetrics(sumCounts(baselineCounts)), folds: baselineFolds };
log(`baseline (identical or most Dice-similar, threshold tuned per fold): AER ${baseline.aer.toFixed(4)}`);

const dim = folds[0]!.train.xs[0]!.numFeatures;
const runs: Record<string, unknown>[] = [];
let timingW: Float64Array | undefined;
if (!values['timing-only']) {
  for (const lambda of lambdas) {
    for (const method of methodNames) {
      const options = METHODS[method];
      if (!options) throw new Error(`unknown method '${method}' (${Object.keys(METHODS).join('; ')})`);
      const counts: AlignmentCounts[] = [];
      const perFold: Record<string, number | string | undefined>[] = [];
      for (let k = 0; k < K; k++) {
        const fd = folds[k]!;
        const model = new MatchingModel({ numFeatures: dim });
        const problem = modelProblem(model, fd.train.xs, fd.train.ys);
        const r = train(problem, { ...options, lambda, maxPasses, gapThreshold, gapCheck: 10, seed } as TrainSettings);
        const c = sumCounts(fd.split.test.map((p, i) => alignmentCounts(model.decode(r.w, fd.test.xs[i]!), p)));
        counts.push(c);
        const m = alignmentMetrics(c);
        perFold.push({ fold: k, aer: m.aer, passes: r.passes, effectivePasses: r.effectivePasses, gap: r.gap, primal: r.primal, seconds: r.seconds, stopReason: r.stopReason });
        if (method === 'BCFW' && k === 0 && timingW === undefined) timingW = r.w;
      }
      const m = alignmentMetrics(sumCounts(counts));
      const aers = perFold.map((f) => f.aer as number);
      const mean = aers.reduce((a, b) => a + b, 0) / K;
      const sd = Math.sqrt(aers.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, K - 1));
      const secs = perFold.reduce((a, f) => a + (f.seconds as number), 0) / K;
      const gaps = perFold.map((f) => f.gap as number | undefined);
      runs.push({ method, lambda, ...m, foldMeanAer: mean, foldSdAer: sd, meanSeconds: secs, folds: perFold });
      log(
        `lambda ${lambda}  ${method.padEnd(18)} AER ${m.aer.toFixed(4)} (folds ${mean.toFixed(4)} +- ${sd.toFixed(4)})  P ${m.precision.toFixed(3)}  R ${m.recall.toFixed(3)}  ` +
          `passes ${perFold.map((f) => f.passes).join('/')}  gap ${gaps.map((g) => (g === undefined ? '-' : g.toExponential(1))).join('/')}  ${secs.toFixed(1)} s/fold`,
      );
    }
  }
}

// Oracle time per pair at a trained w (or a w from a short BCFW run when --timing-only).
if (timingW === undefined) {
  const fd = folds[0]!;
  const model = new MatchingModel({ numFeatures: dim });
  timingW = train(modelProblem(model, fd.train.xs, fd.train.ys), { solver: 'bcfw', lambda: 1e-3, maxPasses: 20, gapThreshold: 0 }).w;
}
const timing = oracleTiming(folds[0]!, timingW);
log(`oracle per pair: ${timing.oracleMicroseconds.toFixed(1)} us (scoring ${timing.scoringMicroseconds.toFixed(1)} us + Hungarian ${timing.hungarianMicroseconds.toFixed(1)} us), mean size ${timing.meanSize.toFixed(1)}, max ${timing.maxSize}`);
log(`Hungarian n x n (padded n x 2n): ${timing.hungarianScaling.map((s) => `n=${s.n}: ${s.microseconds.toFixed(0)} us`).join(', ')}`);

console.log(
  JSON.stringify({
    data: values.data,
    labelledPairs: pairs.length,
    samplePairs: sample.length,
    folds: K,
    dim,
    maxPasses,
    gapThreshold,
    seed,
    node: process.version,
    cpu: cpus()[0]?.model,
    baseline,
    runs,
    oracleTiming: timing,
  }),
);
