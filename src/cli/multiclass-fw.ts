/**
 * `gapbcfw multiclass-fw`: nuclear-norm constrained multinomial logistic regression trained with approximate
 * Frank-Wolfe (Liu & Tsang, AAAI 2017) or the full / stochastic / variance-reduced FW baselines.
 */
import { StreamedOutput } from '../io/output.js';
import type { MulticlassDataset } from '../core/data.js';
import { Rng } from '../core/rng.js';
import { holdoutSplit, loadMulticlassData, withBias } from '../data/multiclass.js';
import { nuclearNorm } from '../multiclass-fw/lmo.js';
import { saveMulticlassFwWeights } from '../multiclass-fw/weights-file.js';
import { MulticlassLogistic } from '../multiclass-fw/problem.js';
import { MCFW_SOLVERS, trainMulticlassFwAsync, type McfwEvent, type McfwOptions, type McfwSolverName } from '../multiclass-fw/solvers.js';
import { parseDataSpec } from '../tasks/index.js';
import { value, type Args, type Command } from './args.js';
import { UsageError, report, type Io } from './common.js';
import { REPORT_OPTIONS } from './options.js';
import { SEED_MAX } from '../solvers/settings.js';
import { checkCommandOutputs, withInterrupts } from './session.js';

const fw = 'Frank-Wolfe';
const afw = 'Approximate FW (afw)';
export const multiclassFwCommand: Command = {
  name: 'multiclass-fw',
  summary: 'nuclear-norm multinomial logistic regression with approximate FW (Liu & Tsang 2017), fw, sfw or svrf',
  description:
    'Multinomial logistic regression over W (classes x features) in the nuclear-norm ball ||W||_* <= tau, trained with\n' +
    'Frank-Wolfe variants. The LMO is the top singular pair of the gradient (power iteration). DATA is libsvm:FILE or\n' +
    'idx:IMAGES[,LABELS] | idx:DIR, the data kinds of gapbcfw train. SIGINT, SIGTERM and SIGHUP stop after the current\n' +
    'iteration and write what was reached.',
  positionals: [{ name: 'DATA', help: 'libsvm:FILE or idx:...', input: 'data' }],
  options: [
    { name: 'tau', type: 'number', value: 'X', min: 0, minExclusive: true, max: 1e6, help: 'radius of the nuclear-norm ball (required)', group: fw },
    { name: 'solver', type: 'choice', value: 'NAME', choices: [...MCFW_SOLVERS], help: 'afw (approximate FW) | fw (full) | sfw (stochastic, batch t^2) | svrf (batch t)', default: 'afw', group: fw },
    { name: 'line-search', type: 'flag', help: 'exact line search instead of the step 2/(t+1) (fw, afw)', group: fw },
    { name: 'test', type: 'string', value: 'KIND:PATH', input: true, help: 'test set of the same kind', group: fw },
    { name: 'holdout', type: 'number', value: 'F', min: 0, minExclusive: true, max: 0.99, help: 'a seeded random fraction F of DATA tests', group: fw },
    { name: 'bias', type: 'flag', help: 'append a constant feature 1', group: fw },
    { name: 'max-iterations', type: 'integer', value: 'N', min: 0, max: 1e9, help: 'cap on iterations', default: '500 unless --max-passes or --time-budget', group: fw },
    { name: 'max-passes', type: 'number', value: 'P', min: 0, minExclusive: true, max: 1e9, help: 'cap on effective passes (per-point gradient evaluations / n)', group: fw },
    { name: 'time-budget', type: 'number', value: 'SECONDS', min: 0, minExclusive: true, max: 1e9, help: 'cap on solver time (evaluations excluded; AFW hashing included)', group: fw },
    { name: 'clock', type: 'choice', value: 'C', choices: ['wall', 'cpu'], help: 'clock of --time-budget', default: 'wall', group: fw },
    { name: 'seed', type: 'integer', value: 'N', min: 0, max: SEED_MAX, help: 'seed of sampling, hashing and the LMO start vectors', default: '1', group: fw },
    { name: 'batch-scale', type: 'number', value: 'C', min: 0, minExclusive: true, max: 1e6, help: 'SFW batch ceil(C t^2), SVRF batch ceil(C k)', default: '1', group: fw },
    { name: 'svrf-global-step', type: 'flag', help: 'SVRF step 2/(t+1) over all iterations instead of restarting 2/(k+1) each epoch', group: fw },
    { name: 'k0', type: 'integer', value: 'N', min: 1, max: 1e6, help: 'initial bins per class', default: '100', group: afw },
    { name: 'delta', type: 'integer', value: 'N', min: 0, max: 1e9, help: 'split bins holding more than delta points', default: '10', group: afw },
    { name: 'nu', type: 'integer', value: 'N', min: 1, max: 1e9, help: 'split every nu iterations', default: '50', group: afw },
    { name: 'lmo-tol', type: 'number', value: 'X', min: 0, minExclusive: true, max: 1, help: 'power-iteration tolerance (relative eigen-residual)', default: '1e-9', group: fw },
    { name: 'lmo-max-iterations', type: 'integer', value: 'N', min: 1, max: 1e9, help: 'power iterations per LMO call, then a dense fallback', default: '500', group: fw },
    { name: 'eval-every', type: 'string', value: 'N|log', help: 'full objective + FW gap every N iterations, or 0..10 then x1.1', default: 'log', group: fw },
    { name: 'optimum', type: 'number', value: 'X', min: -1e300, max: 1e300, help: 'known optimum: traces get residual = objective - X', group: fw },
    { name: 'target', type: 'number', value: 'X', min: -1e300, max: 1e300, help: 'stop when the full objective is <= X (checked at evaluations)', group: fw },
    { name: 'gap-threshold', type: 'number', value: 'X', min: 0, max: 1e300, help: 'stop when the Frank-Wolfe gap is <= X (checked at evaluations)', group: fw },
    { name: 'trace', type: 'string', value: 'FILE.jsonl', output: 'file', help: 'every evaluation as a JSON line (objective = primal, residual, seconds, iteration, ...)', group: fw },
    { name: 'out', type: 'string', value: 'FILE', short: 'o', output: 'file', help: 'write W (feature-major F x K float64) as a gapbcfw model file', group: fw },
    ...REPORT_OPTIONS,
  ],
  run: runMulticlassFw,
};

const fmt = (x: number | undefined) => (x === undefined ? '-' : Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : x.toPrecision(5));

/** Runs `gapbcfw multiclass-fw DATA --tau X ...`; returns the exit code. */
async function runMulticlassFw(a: Args, io: Io): Promise<number> {
  const positionals = a.positionals;
  const v = a.values as Record<string, string | number | boolean | undefined> & { test?: string; trace?: string; out?: string; 'eval-every'?: string };
  const tau = value.number(a, 'tau');
  if (tau === undefined) throw new UsageError('multiclass-fw needs --tau (radius of the nuclear-norm ball)');
  const solver = (value.string(a, 'solver') ?? 'afw') as McfwSolverName;
  if (v['line-search'] && solver !== 'fw' && solver !== 'afw') throw new UsageError('--line-search applies to fw and afw');
  if (v.test !== undefined && v.holdout !== undefined) throw new UsageError('--test and --holdout exclude each other');
  const afwOnly = ['k0', 'delta', 'nu'] as const;
  for (const k of afwOnly) if (v[k] !== undefined && solver !== 'afw') throw new UsageError(`--${k} applies to afw`);
  if (v['batch-scale'] !== undefined && solver !== 'sfw' && solver !== 'svrf') throw new UsageError('--batch-scale applies to sfw and svrf');
  if (v['svrf-global-step'] && solver !== 'svrf') throw new UsageError('--svrf-global-step applies to svrf');
  const seed = value.number(a, 'seed') ?? 1;
  const holdout = value.number(a, 'holdout');
  let evalEvery: number | 'log' | undefined;
  const every = v['eval-every'];
  if (every !== undefined) {
    evalEvery = every === 'log' ? 'log' : Number(every);
    if (evalEvery !== 'log' && !(Number.isSafeInteger(evalEvery) && evalEvery >= 1 && /^\d+$/.test(every))) throw new UsageError(`--eval-every must be a positive integer or 'log', got '${every}'`);
  }
  const summaryIo = checkCommandOutputs(a, io);

  const options: McfwOptions = {
    solver,
    tau,
    step: v['line-search'] ? 'line-search' : 'default',
    maxIterations: value.number(a, 'max-iterations'),
    maxPasses: value.number(a, 'max-passes'),
    timeBudget: value.number(a, 'time-budget'),
    clock: value.string(a, 'clock') as 'wall' | 'cpu' | undefined,
    seed,
    batchScale: value.number(a, 'batch-scale'),
    svrfGlobalStep: value.flag(a, 'svrf-global-step'),
    k0: value.number(a, 'k0'),
    delta: value.number(a, 'delta'),
    nu: value.number(a, 'nu'),
    lmoTolerance: value.number(a, 'lmo-tol'),
    lmoMaxIterations: value.number(a, 'lmo-max-iterations'),
    evalEvery,
    optimum: value.number(a, 'optimum'),
    targetObjective: value.number(a, 'target'),
    gapThreshold: value.number(a, 'gap-threshold'),
  };

  // Data.
  let train: MulticlassDataset = loadMulticlassData(positionals[0]!);
  let test: MulticlassDataset | undefined;
  if (v.test !== undefined) {
    const kind = parseDataSpec(positionals[0]!).kind;
    if (parseDataSpec(v.test).kind !== kind) throw new UsageError(`--test must be of kind '${kind}', got '${v.test}'`);
    test = loadMulticlassData(v.test, { numFeatures: train.X.cols, labelNames: train.labelNames });
  } else if (holdout !== undefined) {
    ({ train, test } = holdoutSplit(train, holdout, new Rng(seed + 1_000_003)));
  }
  if (v.bias) {
    train = withBias(train);
    if (test) test = withBias(test);
  }
  const problem = new MulticlassLogistic(train);
  const testSet = test;
  if (testSet) {
    options.evaluate = (W) => {
      const acc = problem.accuracy(W, testSet);
      return { testAccuracy: acc, testError: 1 - acc };
    };
  }

  const quiet = value.flag(a, 'quiet');
  if (!quiet) {
    io.stderr.write(
      `${positionals[0]}: ${problem.n} examples, ${problem.numFeatures} features, ${problem.numClasses} classes${testSet ? `; ${testSet.X.rows} test` : ''}; ${solver}, tau = ${tau}\n`,
    );
  }
  // Every trace line names its method, seed and data (gapbcfw plot's legend, title and data check).
  const context = { method: solver, seed, data: `${positionals[0]!}${v.test !== undefined ? ` --test ${v.test}` : holdout !== undefined ? ` --holdout ${holdout}` : ''}` };
  const trace = v.trace === undefined ? undefined : StreamedOutput.open(v.trace, { stdout: io.stdout, warn: (m) => io.stderr.write(`gapbcfw: ${m}\n`) });
  options.onProgress = (e: McfwEvent) => {
    trace?.write(`${JSON.stringify({ ...e, ...context })}\n`);
    if (!quiet) {
      const parts = [`it ${e.iteration}`, `eff ${e.effectivePasses.toFixed(2)}`, `obj ${fmt(e.objective)}`, `gap ${fmt(e.gap)}`];
      if (e.residual !== undefined) parts.push(`res ${fmt(e.residual)}`);
      if (e.testAccuracy !== undefined) parts.push(`test acc ${fmt(e.testAccuracy as number)}`);
      parts.push(`${e.seconds.toFixed(2)}s`);
      io.stderr.write(`${parts.join('  ')}\n`);
    }
  };
  let result: Awaited<ReturnType<typeof trainMulticlassFwAsync>> | undefined;
  const code = await withInterrupts(io, 'stopping after the current iteration and writing what was reached', async (signal) => {
    options.signal = signal;
    try {
      result = await trainMulticlassFwAsync(problem, options);
    } finally {
      trace?.close();
    }
    return 0;
  });
  const r = result!;

  if (v.out !== undefined) {
    saveMulticlassFwWeights(v.out, {
      W: r.W, solver, tau, numFeatures: problem.numFeatures, numClasses: problem.numClasses, labelNames: train.labelNames,
      bias: v.bias === true, iterations: r.iterations, objective: r.objective,
    }, { stdout: io.stdout });
  }
  const trainAccuracy = problem.accuracy(r.W);
  const testAccuracy = r.metrics.testAccuracy;
  const summary = {
    command: 'multiclass-fw',
    solver,
    tau,
    n: problem.n,
    features: problem.numFeatures,
    classes: problem.numClasses,
    iterations: r.iterations,
    passes: r.iterations,
    effectivePasses: r.effectivePasses,
    oracleCalls: r.gradientEvaluations,
    pointsTouched: r.pointsTouched,
    lmoCalls: r.lmoCalls,
    powerIterations: r.powerIterations,
    lmoDenseFallbacks: r.lmoDenseFallbacks,
    seconds: r.seconds,
    cpuSeconds: r.cpuSeconds,
    hashSeconds: r.hashSeconds,
    surrogates: r.surrogates,
    epochs: r.epochs,
    returned: r.returned === 'best' ? `best evaluated iterate (iteration ${r.returnedIteration})` : 'last iterate',
    returnedIteration: r.returnedIteration,
    primal: r.objective,
    objective: r.objective,
    gap: r.gap,
    gapIsExact: true,
    residual: r.residual,
    nuclearNorm: nuclearNorm(r.W, problem.numFeatures, problem.numClasses),
    trainAccuracy,
    trainError: 1 - trainAccuracy,
    testAccuracy,
    testError: testAccuracy === undefined ? undefined : 1 - testAccuracy,
    accuracy: testAccuracy ?? trainAccuracy,
    stopReason: r.stopReason,
    model: v.out,
  };
  report(summary, value.flag(a, 'json'), summaryIo, `${solver} stopped (${r.stopReason}) after ${r.iterations} iterations, ${r.seconds.toFixed(2)}s: ${r.returned === 'best' && r.returnedIteration !== r.iterations ? `returned the best evaluated iterate (iteration ${r.returnedIteration}), ` : ''}objective ${fmt(r.objective)}, gap ${fmt(r.gap)}`);
  return code;
}
