/**
 * `gapbcfw multiclass-fw`: nuclear-norm constrained multinomial logistic regression trained with approximate
 * Frank-Wolfe (Liu & Tsang, AAAI 2017) or the full / stochastic / variance-reduced FW baselines.
 */
import { StreamedOutput } from '../io/output.js';
import type { ParseArgsConfig } from 'node:util';
import type { MulticlassDataset } from '../core/data.js';
import { Rng } from '../core/rng.js';
import { writeModelFile } from '../io/model-file.js';
import { holdoutSplit, loadMulticlassData, withBias } from '../multiclass-fw/data.js';
import { nuclearNorm } from '../multiclass-fw/lmo.js';
import { MulticlassLogistic } from '../multiclass-fw/problem.js';
import { MCFW_SOLVERS, trainMulticlassFwAsync, type McfwEvent, type McfwOptions, type McfwSolverName } from '../multiclass-fw/solvers.js';
import { UsageError, integer, nonNegative, number, parse, positive, report, type Io } from './common.js';

export const MULTICLASS_FW_USAGE = `Usage: gapbcfw multiclass-fw DATA --tau X [options]

Multinomial logistic regression over W (classes x features) in the nuclear-norm ball ||W||_* <= tau,
trained with Frank-Wolfe variants. The LMO is the top singular pair of the gradient (power iteration).

Data:
  libsvm:FILE              LIBSVM/SVMlight multiclass file (plain or gzip)
  idx:IMAGES[,LABELS]      IDX (MNIST-style) images and labels; idx:DIR finds *images-idx3-ubyte[.gz]

Options:
  --tau X                  radius of the nuclear-norm ball (required)
  --solver NAME            afw (approximate FW, default) | fw (full) | sfw (stochastic, batch t^2) | svrf (batch t)
  --line-search            exact line search instead of the step 2/(t+1) (fw, afw)
  --test DATA              test set (same kind); or --holdout F: a seeded random fraction F of DATA tests
  --bias                   append a constant feature 1
  --max-iterations N       (default 500 unless --max-passes or --time-budget is given)
  --max-passes P           cap on effective passes (per-point gradient evaluations / n)
  --time-budget SECONDS    cap on solver time (evaluations excluded; AFW hashing included)
  --clock wall|cpu         clock of --time-budget: wall time (default) or process CPU time
  --seed N                 seed of sampling, hashing and the LMO start vectors (default 1)
  --batch-scale C          SFW batch ceil(C t^2), SVRF batch ceil(C k) (default 1)
  --svrf-global-step       SVRF step 2/(t+1) over all iterations instead of restarting 2/(k+1) each epoch
  --k0 N, --delta N, --nu N  AFW: initial bins per class (100), split bins above delta points (10) every nu iterations (50)
  --lmo-tol X              power-iteration tolerance (relative eigen-residual, default 1e-9)
  --lmo-max-iterations N   power iterations per LMO call, then a dense fallback (default 500)
  --eval-every N|log       full objective + FW gap every N iterations, or 0..10 then x1.1 (default log)
  --optimum X              known optimum: traces get residual = objective - X
  --target X               stop when the full objective is <= X (checked at evaluations)
  --gap-threshold X        stop when the Frank-Wolfe gap is <= X (checked at evaluations)
  --trace FILE.jsonl       every evaluation as a JSON line (objective = primal, residual, seconds, iteration, ...)
  --out FILE               write W (feature-major F x K float64) as a gapbcfw model file
  --json                   last stdout line is a JSON summary
  --quiet                  no progress on stderr`;

const OPTIONS = {
  tau: { type: 'string' },
  solver: { type: 'string' },
  'line-search': { type: 'boolean' },
  test: { type: 'string' },
  holdout: { type: 'string' },
  bias: { type: 'boolean' },
  'max-iterations': { type: 'string' },
  'max-passes': { type: 'string' },
  'time-budget': { type: 'string' },
  clock: { type: 'string' },
  seed: { type: 'string' },
  'batch-scale': { type: 'string' },
  'svrf-global-step': { type: 'boolean' },
  k0: { type: 'string' },
  delta: { type: 'string' },
  nu: { type: 'string' },
  'lmo-tol': { type: 'string' },
  'lmo-max-iterations': { type: 'string' },
  'eval-every': { type: 'string' },
  optimum: { type: 'string' },
  target: { type: 'string' },
  'gap-threshold': { type: 'string' },
  trace: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

const finite = (x: number) => Number.isFinite(x);
const fmt = (x: number | undefined) => (x === undefined ? '-' : Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(3) : x.toPrecision(5));

/** Runs `gapbcfw multiclass-fw ARGS`; returns the exit code. Input errors are thrown (main turns them into exit 2). */
export async function runMulticlassFw(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, OPTIONS);
  if (v.help) {
    io.stdout.write(`${MULTICLASS_FW_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('multiclass-fw takes one data set KIND:PATH, e.g. gapbcfw multiclass-fw libsvm:dna.scale --tau 10');
  if (v.tau === undefined) throw new UsageError('multiclass-fw needs --tau (radius of the nuclear-norm ball)');
  const tau = number(v.tau, 'tau', positive, 'a positive number')!;
  const solver = (v.solver ?? 'afw') as McfwSolverName;
  if (!(MCFW_SOLVERS as readonly string[]).includes(solver)) throw new UsageError(`--solver must be one of ${MCFW_SOLVERS.join(', ')}, got '${solver}'`);
  if (v['line-search'] && solver !== 'fw' && solver !== 'afw') throw new UsageError('--line-search applies to fw and afw');
  if (v.test !== undefined && v.holdout !== undefined) throw new UsageError('--test and --holdout exclude each other');
  const afwOnly = ['k0', 'delta', 'nu'] as const;
  for (const k of afwOnly) if (v[k] !== undefined && solver !== 'afw') throw new UsageError(`--${k} applies to afw`);
  if (v['batch-scale'] !== undefined && solver !== 'sfw' && solver !== 'svrf') throw new UsageError('--batch-scale applies to sfw and svrf');
  if (v['svrf-global-step'] && solver !== 'svrf') throw new UsageError('--svrf-global-step applies to svrf');
  if (v.clock !== undefined && v.clock !== 'wall' && v.clock !== 'cpu') throw new UsageError(`--clock must be wall or cpu, got '${v.clock}'`);
  const seed = number(v.seed, 'seed', integer(0), 'a non-negative integer') ?? 1;
  const holdout = number(v.holdout, 'holdout', (x) => x > 0 && x < 1, 'a fraction in (0, 1)');
  let evalEvery: number | 'log' | undefined;
  if (v['eval-every'] !== undefined) evalEvery = v['eval-every'] === 'log' ? 'log' : number(v['eval-every'], 'eval-every', integer(1), "a positive integer or 'log'");

  const options: McfwOptions = {
    solver,
    tau,
    step: v['line-search'] ? 'line-search' : 'default',
    maxIterations: number(v['max-iterations'], 'max-iterations', integer(0), 'a non-negative integer'),
    maxPasses: number(v['max-passes'], 'max-passes', positive, 'a positive number'),
    timeBudget: number(v['time-budget'], 'time-budget', positive, 'a positive number of seconds'),
    clock: v.clock as 'wall' | 'cpu' | undefined,
    seed,
    batchScale: number(v['batch-scale'], 'batch-scale', positive, 'a positive number'),
    svrfGlobalStep: v['svrf-global-step'] ?? false,
    k0: number(v.k0, 'k0', integer(1), 'a positive integer'),
    delta: number(v.delta, 'delta', integer(0), 'a non-negative integer'),
    nu: number(v.nu, 'nu', integer(1), 'a positive integer'),
    lmoTolerance: number(v['lmo-tol'], 'lmo-tol', positive, 'a positive number'),
    lmoMaxIterations: number(v['lmo-max-iterations'], 'lmo-max-iterations', integer(1), 'a positive integer'),
    evalEvery,
    optimum: number(v.optimum, 'optimum', finite, 'a finite number'),
    targetObjective: number(v.target, 'target', finite, 'a finite number'),
    gapThreshold: number(v['gap-threshold'], 'gap-threshold', nonNegative, 'a number >= 0'),
  };

  // Data.
  let train: MulticlassDataset = loadMulticlassData(positionals[0]!);
  let test: MulticlassDataset | undefined;
  if (v.test !== undefined) {
    const kind = (s: string) => s.slice(0, Math.max(s.indexOf(':'), 0));
    if (kind(v.test) !== kind(positionals[0]!)) throw new UsageError(`--test must be of kind '${kind(positionals[0]!)}', got '${v.test}'`);
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

  const quiet = v.quiet ?? false;
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
  const controller = new AbortController();
  options.signal = controller.signal;
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(130);
    io.stderr.write('\ninterrupted: stopping after the current iteration (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  let result;
  try {
    result = await trainMulticlassFwAsync(problem, options);
  } finally {
    process.off('SIGINT', onSigint);
    trace?.close();
  }

  if (v.out !== undefined) {
    writeModelFile(v.out, {
      meta: {
        format: 'gapbcfw-multiclass-fw',
        layout: 'feature-major: W[j * numClasses + k] = weight of class k on feature j',
        solver,
        tau,
        numFeatures: problem.numFeatures,
        numClasses: problem.numClasses,
        labelNames: train.labelNames,
        bias: v.bias ?? false,
        iterations: result.iterations,
        objective: result.objective,
      },
      arrays: { W: result.W },
    });
  }
  const trainAccuracy = problem.accuracy(result.W);
  const testAccuracy = result.metrics.testAccuracy;
  const summary = {
    command: 'multiclass-fw',
    solver,
    tau,
    n: problem.n,
    features: problem.numFeatures,
    classes: problem.numClasses,
    iterations: result.iterations,
    passes: result.iterations,
    effectivePasses: result.effectivePasses,
    oracleCalls: result.gradientEvaluations,
    pointsTouched: result.pointsTouched,
    lmoCalls: result.lmoCalls,
    powerIterations: result.powerIterations,
    lmoDenseFallbacks: result.lmoDenseFallbacks,
    seconds: result.seconds,
    cpuSeconds: result.cpuSeconds,
    hashSeconds: result.hashSeconds,
    surrogates: result.surrogates,
    epochs: result.epochs,
    returned: result.returned === 'best' ? `best evaluated iterate (iteration ${result.returnedIteration})` : 'last iterate',
    returnedIteration: result.returnedIteration,
    primal: result.objective,
    objective: result.objective,
    gap: result.gap,
    gapIsExact: true,
    residual: result.residual,
    nuclearNorm: nuclearNorm(result.W, problem.numFeatures, problem.numClasses),
    trainAccuracy,
    trainError: 1 - trainAccuracy,
    testAccuracy,
    testError: testAccuracy === undefined ? undefined : 1 - testAccuracy,
    accuracy: testAccuracy ?? trainAccuracy,
    stopReason: result.stopReason,
    model: v.out,
  };
  report(summary, v.json ?? false, io, `${solver} stopped (${result.stopReason}) after ${result.iterations} iterations, ${result.seconds.toFixed(2)}s: ${result.returned === 'best' && result.returnedIteration !== result.iterations ? `returned the best evaluated iterate (iteration ${result.returnedIteration}), ` : ''}objective ${fmt(result.objective)}, gap ${fmt(result.gap)}`);
  return result.stopReason === 'aborted' ? 130 : 0;
}
