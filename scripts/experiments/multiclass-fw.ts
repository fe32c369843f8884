/**
 * Figures for approximate Frank-Wolfe (Liu & Tsang, AAAI 2017) against full FW, SFW and SVRF (Hazan & Luo
 * 2016) on nuclear-norm constrained multinomial logistic regression, on the small LIBSVM / IDX multiclass
 * sets in ../shared/data/multiclass/:
 *
 *   npx tsx scripts/experiments/multiclass-fw.ts --out runs/multiclass-fw > multiclass-fw.json
 *   npx tsx scripts/experiments/multiclass-fw.ts --datasets dna,usps --budget-scale 0.5   # quicker
 *
 * Per data set: (1) the optimum F* from a long full-FW run with exact line search (its last Frank-Wolfe
 * gap is a certified bound on how far it is from the true optimum; F* is finally the best objective any
 * run reached); (2) every solver for the same CPU-time budget (process CPU seconds of the solver work,
 * robust to a shared machine; evaluations excluded; AFW's hashing included): afw (k0 = 100, delta = 10,
 * nu = 50, the paper's defaults), fw (step 2/(t+1)), fw with line search, sfw (batch t^2), svrf (batch k,
 * step restarted every epoch as in Hazan & Luo's Algorithm 1), the randomised ones (afw's hash and
 * surrogates are random) over --seeds seeds (default 2); and, one seed each, three sensitivity variants:
 * afw with k0 = 10, afw with delta = 1 (bins split down to single points) and svrf with a global step.
 * Reported: the relative residual (F - F*)/F* against CPU time and iterations, the first time each run is
 * within 1% of F* and whether it stays there, test accuracy, and whether AFW gets within 1% before SFW and
 * SVRF (also at 10% and 5%). Each run's trace (with `method`, `seed`, `data`, `residual`) goes to
 * --out/<data>/<method>-s<seed>.jsonl for `gapbcfw plot`, the optimum run's figures to --out/<data>/optimum.json;
 * `--rescore DIR` recomputes the summary from such a folder without training. The JSON summary goes to
 * stdout, progress to stderr.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MulticlassDataset } from '../../src/core/data.js';
import { Rng } from '../../src/core/rng.js';
import { loadIdxDataset } from '../../src/data/idx.js';
import { loadLibsvm } from '../../src/data/libsvm.js';
import { dataPath, hasData } from '../../src/data/paths.js';
import { holdoutSplit } from '../../src/data/multiclass.js';
import { MulticlassLogistic } from '../../src/multiclass-fw/problem.js';
import { trainMulticlassFw, type McfwEvent } from '../../src/multiclass-fw/solvers.js';
import type { McfwSettings } from '../../src/multiclass-fw/settings.js';

const { values } = parseArgs({
  options: {
    datasets: { type: 'string', default: 'dna,usps,pendigits,fashion' },
    seeds: { type: 'string', default: '2' },
    'budget-scale': { type: 'string', default: '1' },
    out: { type: 'string', default: 'runs/multiclass-fw' },
    'eval-factor': { type: 'string', default: '1.05' },
    rescore: { type: 'string' },
  },
});

interface DatasetSpec {
  name: string;
  present: boolean;
  load: () => { train: MulticlassDataset; test: MulticlassDataset; note: string };
  tau: number;
  /** CPU seconds per solver run. */
  budget: number;
  /** CPU seconds of the optimum run. */
  optimumBudget: number;
  /** Seeds for the randomised solvers (capped by --seeds). */
  seeds: number;
}

const mc = (...p: string[]) => dataPath('multiclass', ...p);
const DATASETS: DatasetSpec[] = [
  {
    name: 'dna',
    present: hasData('multiclass', 'dna', 'dna.scale'),
    load: () => {
      const train = loadLibsvm(mc('dna', 'dna.scale'));
      const test = loadLibsvm(mc('dna', 'dna.scale.t'), { numFeatures: train.X.cols, labelNames: train.labelNames, dropUnknownFeatures: true });
      return { train, test, note: 'dna.scale / dna.scale.t' };
    },
    tau: 10,
    budget: 8,
    optimumBudget: 30,
    seeds: 3,
  },
  {
    name: 'usps',
    present: hasData('multiclass', 'usps_partial', 'usps.t.subset299'),
    load: () => {
      const all = loadLibsvm(mc('usps_partial', 'usps.t.subset299'));
      const { train, test } = holdoutSplit(all, 0.2, new Rng(2017));
      return { train, test, note: '299-row subset of usps.t, seeded 80/20 hold-out' };
    },
    tau: 10,
    budget: 10,
    optimumBudget: 30,
    seeds: 3,
  },
  {
    name: 'pendigits',
    present: hasData('multiclass', 'pendigits', 'pendigits.scale'),
    load: () => {
      const train = loadLibsvm(mc('pendigits', 'pendigits.scale'));
      const test = loadLibsvm(mc('pendigits', 'pendigits.scale.t'), { numFeatures: train.X.cols, labelNames: train.labelNames, dropUnknownFeatures: true });
      return { train, test, note: 'pendigits.scale / pendigits.scale.t' };
    },
    tau: 30,
    budget: 15,
    optimumBudget: 100,
    seeds: 3,
  },
  {
    name: 'fashion',
    present: hasData('multiclass', 'fashion_mnist_test', 't10k-images-idx3-ubyte.gz'),
    load: () => {
      const all = loadIdxDataset(mc('fashion_mnist_test', 't10k-images-idx3-ubyte.gz'));
      const { train, test } = holdoutSplit(all, 0.2, new Rng(2017));
      return { train, test, note: 'Fashion-MNIST test split (10,000 images, pixels / 255), seeded 80/20 hold-out' };
    },
    tau: 10,
    budget: 25,
    optimumBudget: 150,
    seeds: 2,
  },
];

interface Method {
  name: string;
  options: Omit<McfwSettings, 'tau'>;
  randomised: boolean;
}
const METHODS: Method[] = [
  { name: 'afw', options: { solver: 'afw' }, randomised: true },
  { name: 'afw-k0-10', options: { solver: 'afw', k0: 10 }, randomised: true },
  { name: 'afw-delta-1', options: { solver: 'afw', delta: 1 }, randomised: true },
  { name: 'fw', options: { solver: 'fw' }, randomised: false },
  { name: 'fw-ls', options: { solver: 'fw', step: 'line-search' }, randomised: false },
  { name: 'sfw', options: { solver: 'sfw' }, randomised: true },
  { name: 'svrf', options: { solver: 'svrf' }, randomised: true },
  { name: 'svrf-global-step', options: { solver: 'svrf', svrfGlobalStep: true }, randomised: true },
];
/** Variants run with one seed only (sensitivity checks, not the four solvers). */
const ONE_SEED = new Set(['afw-k0-10', 'afw-delta-1', 'svrf-global-step']);

const CHECKPOINTS = [10, 30, 100, 300, 1000, 3000, 10000];
const budgetScale = Number(values['budget-scale']);
const maxSeeds = Number(values.seeds);
const evalFactor = Number(values['eval-factor']);
const wanted = values.datasets.split(',');
const log = (s: string) => process.stderr.write(`${s}\n`);

interface RunRecord {
  method: string;
  seed: number;
  events: McfwEvent[];
  iterations: number;
  cpuSeconds: number;
  wallSeconds: number;
  effectivePasses: number;
  finalObjective: number;
  bestObjective: number;
  finalTestAccuracy: number;
  surrogates?: number;
  hashSeconds?: number;
  powerIterations?: number;
  lmoCalls: number;
  lmoDenseFallbacks?: number;
}

/** What optimum.json holds: the data set and its optimum run. */
interface DatasetMeta {
  data: string;
  note: string;
  n: number;
  features: number;
  classes: number;
  testRows: number;
  tau: number;
  budgetCpuSeconds: number;
  optimumRun: {
    objective: number;
    iterations: number;
    cpuSeconds: number;
    lastGap: number;
    certifiedLowerBound: number;
    objectiveAtHalfIterations: number;
    testAccuracy: number;
  };
}

const THRESHOLDS = [0.1, 0.05, 0.01];
const pct = (t: number) => `${Math.round(t * 100)}%`;

/**
 * The summary of one data set: F* = the best objective seen anywhere (normally the optimum run's), per run
 * the first evaluation within 10%, 5% and 1% of F* (relative residual (F - F*)/F*), whether it stays
 * within 1%, final residual and test accuracy, a compact curve; per method the median time to each
 * threshold; and whether AFW gets there before SFW and SVRF.
 */
function summarize(meta: DatasetMeta, runs: RunRecord[]): { fStar: number; result: Record<string, unknown> & { medianCpuSecondsTo: unknown } } {
  const fStar = Math.min(meta.optimumRun.objective, ...runs.map((r) => r.bestObjective));
  const rel = (e: McfwEvent) => (e.objective - fStar) / fStar;
  const perRun = runs.map((r) => {
    const to = Object.fromEntries(
      THRESHOLDS.map((t) => {
        const first = r.events.find((e) => rel(e) <= t);
        return [pct(t), first ? { cpuSeconds: round(first.cpuSeconds, 3), iteration: first.iteration, passes: round(first.effectivePasses, 2) } : null];
      }),
    );
    const first1 = r.events.find((e) => rel(e) <= 0.01);
    const after = first1 ? r.events.filter((e) => e.iteration >= first1.iteration) : [];
    // A compact curve: at most 25 points, log-spaced in the events: [cpu s, iteration, relative residual, test accuracy].
    const pick = new Set<number>();
    for (let q = 0; q < 25; q++) pick.add(Math.round(Math.exp((q / 24) * Math.log(r.events.length)) - 1));
    const curve = [...pick].sort((a, b) => a - b).map((q) => {
      const e = r.events[q]!;
      return [round(e.cpuSeconds, 3), e.iteration, round(rel(e), 5), round(e.testAccuracy as number, 4)];
    });
    return {
      method: r.method,
      seed: r.seed,
      iterations: r.iterations,
      effectivePasses: round(r.effectivePasses, 2),
      cpuSeconds: round(r.cpuSeconds, 2),
      wallSeconds: round(r.wallSeconds, 2),
      finalRelativeResidual: round((r.finalObjective - fStar) / fStar, 5),
      bestRelativeResidual: round((r.bestObjective - fStar) / fStar, 5),
      to,
      staysWithin1pct: first1 ? after.every((e) => rel(e) <= 0.01) : null,
      fractionOfLaterEvalsWithin1pct: first1 ? round(after.filter((e) => rel(e) <= 0.01).length / after.length, 3) : null,
      finalTestAccuracy: round(r.finalTestAccuracy, 4),
      surrogates: r.surrogates,
      hashWallSeconds: r.hashSeconds === undefined ? undefined : round(r.hashSeconds, 4),
      meanPowerIterationsPerLmo: r.powerIterations === undefined ? undefined : round(r.powerIterations / Math.max(r.lmoCalls, 1), 1),
      lmoDenseFallbacks: r.lmoDenseFallbacks,
      curve,
    };
  });
  // Median over seeds; with an even count the upper middle value (conservative: 2 seeds -> the slower).
  const median = (xs: number[]) => {
    const v = [...xs].sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)]! : Infinity;
  };
  const tTo = (method: string, t: number) => median(perRun.filter((r) => r.method === method).map((r) => r.to[pct(t)]?.cpuSeconds ?? Infinity));
  const methods = [...new Set(runs.map((r) => r.method))];
  const medianCpuSecondsTo = Object.fromEntries(THRESHOLDS.map((t) => [pct(t), Object.fromEntries(methods.map((m) => [m, finiteOrNull(tTo(m, t))]))]));
  const afwFirst = Object.fromEntries(
    THRESHOLDS.map((t) => {
      const [a, sf, sv] = [tTo('afw', t), tTo('sfw', t), tTo('svrf', t)];
      return [pct(t), a === Infinity && sf === Infinity && sv === Infinity ? 'none of afw, sfw, svrf reached it' : a < sf && a < sv];
    }),
  );
  // The paper's Figure 2: AFW against full FW per iteration (relative residual at the last evaluation <= i).
  const perIteration = Object.fromEntries(
    ['afw', 'fw'].map((method) => {
      const run = runs.find((r) => r.method === method && r.seed === 1);
      if (!run) return [method, null];
      return [
        method,
        Object.fromEntries(
          CHECKPOINTS.filter((i) => i <= run.iterations).map((i) => {
            const e = [...run.events].reverse().find((x) => x.iteration <= i)!;
            return [i, round(rel(e), 5)];
          }),
        ),
      ];
    }),
  );
  return {
    fStar,
    result: {
      ...meta,
      fStar,
      fStarUncertainty: 'F* is the best objective seen; the true optimum lies in [certifiedLowerBound, fStar] (Frank-Wolfe gap bound)',
      medianCpuSecondsTo,
      afwBeforeSfwAndSvrf: afwFirst,
      perIteration,
      runs: perRun,
    },
  };
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

const results: Record<string, unknown>[] = [];
if (values.rescore !== undefined) {
  // Recompute the summary from the traces and optimum.json files of an earlier run (no training).
  for (const name of wanted) {
    const dir = join(values.rescore, name);
    if (!existsSync(join(dir, 'optimum.json'))) continue;
    const meta = JSON.parse(readFileSync(join(dir, 'optimum.json'), 'utf8')) as DatasetMeta;
    const runs: RunRecord[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
      const events = readFileSync(join(dir, file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as McfwEvent & { method: string; seed: number });
      const last = events.at(-1)!;
      runs.push({
        method: last.method,
        seed: last.seed,
        events,
        iterations: last.iteration,
        cpuSeconds: last.cpuSeconds,
        wallSeconds: last.seconds,
        effectivePasses: last.effectivePasses,
        finalObjective: last.objective,
        bestObjective: Math.min(...events.map((e) => e.objective)),
        finalTestAccuracy: last.testAccuracy as number,
        surrogates: last.surrogates as number | undefined,
        hashSeconds: last.hashSeconds as number | undefined,
        lmoCalls: last.lmoCalls,
      });
    }
    runs.sort((a, b) => METHODS.findIndex((m) => m.name === a.method) - METHODS.findIndex((m) => m.name === b.method) || a.seed - b.seed);
    results.push(summarize(meta, runs).result);
  }
} else {
  for (const spec of DATASETS) {
    if (!wanted.includes(spec.name)) continue;
    if (!spec.present) {
      log(`${spec.name}: data not found, skipped`);
      results.push({ data: spec.name, skipped: 'data not found' });
      continue;
    }
    const { train, test, note } = spec.load();
    const problem = new MulticlassLogistic(train);
    const evaluate = (W: Float64Array) => ({ testAccuracy: problem.accuracy(W, test) });
    const tau = spec.tau;
    log(`${spec.name}: n = ${problem.n}, F = ${problem.numFeatures}, K = ${problem.numClasses}, test ${test.X.rows}, tau = ${tau}`);

    // (1) The optimum: a long full-FW run with line search.
    const opt = trainMulticlassFw(problem, { solver: 'fw', step: 'line-search', tau, timeBudget: spec.optimumBudget * budgetScale, clock: 'cpu', evalEvery: 50 }, { evaluate });
    let lowerBound = -Infinity;
    for (const e of opt.trace) lowerBound = Math.max(lowerBound, e.objective - e.gap!);
    const half = opt.trace.find((e) => e.iteration >= opt.iterations / 2)!;
    log(`  optimum run: ${opt.iterations} iterations, ${opt.cpuSeconds.toFixed(1)} cpu s, F = ${opt.objective}, gap ${opt.gap.toExponential(3)}, F at half the iterations ${half.objective}`);

    // (2) The solvers, same CPU budget.
    const runs: RunRecord[] = [];
    for (const m of METHODS) {
      const seeds = m.randomised ? (ONE_SEED.has(m.name) ? 1 : Math.min(spec.seeds, maxSeeds)) : 1;
      for (let seed = 1; seed <= seeds; seed++) {
        const r = trainMulticlassFw(problem, { ...m.options, tau, seed, timeBudget: spec.budget * budgetScale, clock: 'cpu', evalFactor }, { evaluate });
        let best = Infinity;
        for (const e of r.trace) best = Math.min(best, e.objective);
        runs.push({
          method: m.name,
          seed,
          events: r.trace,
          iterations: r.iterations,
          cpuSeconds: r.cpuSeconds,
          wallSeconds: r.seconds,
          effectivePasses: r.effectivePasses,
          finalObjective: r.objective,
          bestObjective: best,
          finalTestAccuracy: r.metrics.testAccuracy!,
          surrogates: r.surrogates,
          hashSeconds: r.hashSeconds,
          powerIterations: r.powerIterations,
          lmoCalls: r.lmoCalls,
          lmoDenseFallbacks: r.lmoDenseFallbacks,
        });
        log(`  ${m.name} seed ${seed}: ${r.iterations} it, ${r.effectivePasses.toFixed(1)} passes, ${r.cpuSeconds.toFixed(1)} cpu s, F = ${r.objective.toFixed(6)}, best ${best.toFixed(6)}, test acc ${r.metrics.testAccuracy!.toFixed(4)}`);
      }
    }

    const dir = join(values.out, spec.name);
    mkdirSync(dir, { recursive: true });
    const meta: DatasetMeta = {
      data: spec.name,
      note,
      n: problem.n,
      features: problem.numFeatures,
      classes: problem.numClasses,
      testRows: test.X.rows,
      tau,
      budgetCpuSeconds: spec.budget * budgetScale,
      optimumRun: {
        objective: opt.objective,
        iterations: opt.iterations,
        cpuSeconds: round(opt.cpuSeconds, 1),
        lastGap: opt.gap,
        certifiedLowerBound: lowerBound,
        objectiveAtHalfIterations: half.objective,
        testAccuracy: round(opt.metrics.testAccuracy!, 4),
      },
    };
    writeFileSync(join(dir, 'optimum.json'), `${JSON.stringify(meta, null, 2)}\n`);
    const summary = summarize(meta, runs);
    for (const r of runs) {
      writeFileSync(
        join(dir, `${r.method}-s${r.seed}.jsonl`),
        r.events.map((e) => JSON.stringify({ ...e, method: r.method, seed: r.seed, data: spec.name, tau, residual: e.objective - summary.fStar, relativeResidual: (e.objective - summary.fStar) / summary.fStar })).join('\n') + '\n',
      );
    }
    results.push(summary.result);
    log(`  F* = ${summary.fStar}; median cpu s to 10% / 5% / 1%: ${JSON.stringify(summary.result.medianCpuSecondsTo)}`);
  }
}

process.stdout.write(`${JSON.stringify({ experiment: 'multiclass-fw', evalFactor, budgetScale, results })}\n`);

function round(x: number, digits: number): number {
  return Number.isFinite(x) ? Number(x.toFixed(digits)) : x;
}
