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
import { trainMulticlassFwAsync, type McfwEvent, type McfwHooks } from '../multiclass-fw/solvers.js';
import { MCFW_SETTINGS, MCFW_SOLVERS, validateMcfwSettings, type McfwSettings } from '../multiclass-fw/settings.js';
import { parseDataSpec } from '../tasks/index.js';
import { value, type Args, type Command } from './args.js';
import { UsageError, report, type Io } from './common.js';
import { REPORT_OPTIONS, settingOptions } from './options.js';
import { checkCommandOutputs, withInterrupts } from './session.js';

const fw = 'Frank-Wolfe';
const afw = 'Approximate FW (afw)';
const data = 'Data and output';
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
    ...settingOptions(MCFW_SETTINGS, fw, [...MCFW_SOLVERS]).map((o) => (o.name === 'k0' || o.name === 'delta' || o.name === 'nu' ? { ...o, group: afw } : o)),
    { name: 'line-search', type: 'flag', help: 'exact line search instead of the step 2/(t+1) (fw, afw)', group: fw },
    { name: 'eval-every', type: 'string', value: 'N|log', help: 'full objective + FW gap every N iterations, or 0..10 then x1.1', default: 'log', group: fw },
    { name: 'test', type: 'string', value: 'KIND:PATH', input: true, help: 'test set of the same kind', group: data },
    { name: 'holdout', type: 'number', value: 'F', min: 0, minExclusive: true, max: 0.99, help: 'a seeded random fraction F of DATA tests', group: data },
    { name: 'bias', type: 'flag', help: 'append a constant feature 1', group: data },
    { name: 'trace', type: 'string', value: 'FILE.jsonl', output: 'file', help: 'every evaluation as a JSON line (objective = primal, residual, seconds, iteration, ...)', group: data },
    { name: 'out', type: 'string', value: 'FILE', short: 'o', output: 'file', help: 'write W (feature-major F x K float64) as a gapbcfw model file', group: data },
    ...REPORT_OPTIONS,
  ],
  run: runMulticlassFw,
};

const fmt = (x: number | undefined) => (x === undefined ? '-' : Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : x.toPrecision(5));

/** Runs `gapbcfw multiclass-fw DATA --tau X ...`; returns the exit code. */
async function runMulticlassFw(a: Args, io: Io): Promise<number> {
  const positionals = a.positionals;
  const v = a.values as Record<string, string | number | boolean | undefined> & { test?: string; trace?: string; out?: string; 'eval-every'?: string };
  if (v.test !== undefined && v.holdout !== undefined) throw new UsageError('--test and --holdout exclude each other');
  let evalEvery: number | 'log' | undefined;
  const every = v['eval-every'];
  if (every !== undefined) {
    evalEvery = every === 'log' ? 'log' : Number(every);
    if (evalEvery !== 'log' && !(Number.isSafeInteger(evalEvery) && evalEvery >= 1 && /^\d+$/.test(every))) throw new UsageError(`--eval-every must be a positive integer or 'log', got '${every}'`);
  }
  // The flags of the settings table, by key (the table's validator refuses what does not apply).
  const settings: Record<string, unknown> = { solver: 'afw' };
  for (const o of MCFW_SETTINGS) if (o.flag && a.given.has(o.flag)) settings[o.key] = o.type === 'boolean' ? true : a.values[o.flag];
  if (v['line-search']) settings.step = 'line-search';
  if (evalEvery !== undefined) settings.evalEvery = evalEvery;
  const options = settings as unknown as McfwSettings;
  validateMcfwSettings(options);
  const { solver, tau } = options;
  const seed = options.seed ?? 1;
  const holdout = value.number(a, 'holdout');
  const summaryIo = checkCommandOutputs(a, io);
  const hooks: McfwHooks = {};

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
    hooks.evaluate = (W) => {
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
  hooks.onProgress = (e: McfwEvent) => {
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
    try {
      result = await trainMulticlassFwAsync(problem, options, { ...hooks, signal });
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
