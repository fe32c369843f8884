#!/usr/bin/env node
import { closeSync, openSync, readFileSync, realpathSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { ParseArgsConfig } from 'node:util';
import { GapbcfwError, InputError } from '../core/errors.js';
import { meanLoss, modelProblem } from '../core/problem.js';
import { buildModel, loadTask, type LabelledSet, type TaskData } from '../data/datasets.js';
import { fingerprint, loadModel, saveModel } from '../io/model.js';
import { readModelFile, writeModelFile } from '../io/model-file.js';
import type { DecodeBackend } from '../models/chain.js';
import { fullOraclePass, type SolverCheckpoint, type SolverResult } from '../solvers/common.js';
import { SOLVERS, trainAsync, type SolverName, type TrainOptions } from '../solvers/index.js';
import type { BcfwResult, StepType } from '../solvers/bcfw.js';
import { ProgressPrinter, describeEvent } from './progress.js';
import { runPlot } from './plot.js';
import { UsageError, integer, nonNegative, number, parse, positive, report, type Io } from './common.js';

/** CLI solver names: the block-coordinate variants are one engine with a step type. */
const STEP_OF: Record<string, StepType> = { bcfw: 'fw', bcpfw: 'pairwise', bcafw: 'away', hybrid: 'hybrid' };
const CLI_SOLVERS = ['bcfw', 'bcpfw', 'bcafw', 'hybrid', ...SOLVERS.filter((s) => s !== 'bcfw')];

const USAGE = `gapbcfw: structured SVMs trained with block-coordinate Frank-Wolfe

Usage: gapbcfw <command> [arguments] [options]

Commands:
  demo                     train a chain model on built-in synthetic data (no files needed)
  train DATA               train a model; DATA is KIND:PATH (ocr:FILE, libsvm:FILE, synthetic:)
  eval MODEL DATA          error (and, on the training set, the exact duality gap) of a saved model
  plot TRACE...            SVG/PNG figures from JSONL traces (gap against effective passes or time, ...)
  help [COMMAND]           this text, or the options of a command

Data:
  ocr:letter.data(.gz)     Taskar's OCR words; --split small (default: fold 0 trains) | large | all | fold:K
  libsvm:FILE              multiclass LIBSVM/SVMlight file (Crammer-Singer SSVM); --test libsvm:FILE.t
  synthetic:               300 + 100 generated chain sequences (the demo data)

Training options (train, demo):
  --lambda X               regularisation (default 1/n; demo 0.01)
  --solver NAME            ${CLI_SOLVERS.join(' | ')} (default bcfw)
                           bcpfw = pairwise steps, bcafw = FW + away steps, hybrid = best of FW/away/pairwise
  --sampling S             uniform | perm | gap (default uniform; gap = proportional to block-gap estimates)
  --cache                  gap-based caching of oracle answers (--cache-size 50, --cache-f 0.25, --cache-nu 0.01)
  --averaging, --no-averaging
                           weighted average rho = 2/(k+2) of the iterates (default on for plain bcfw only)
  --no-line-search         use the fixed step 2n/(k+2n) (bcfw) or 2/(k+2) (fw)
  --gap-threshold X        stop when the exact duality gap is <= X (default 0.1; demo 0.01)
  --gap-check N            passes between exact gap passes (default 10)
  --max-passes N           (default 200; ssg 50)
  --time-budget SECONDS    (default unlimited)
  --seed N                 sampling seed (default 1)
  --train-error            also report the training error at every gap check
  --backend native|js      decoder implementation (default native)
  --split S, --test KIND:PATH
  --out MODEL              write the trained model
  --trace FILE.jsonl       write every progress event as a JSON line
  --checkpoint FILE        save the solver state every --checkpoint-every passes (default 10) and at the end
  --resume FILE            continue from a checkpoint (same data, solver and settings)

Eval options: --split S, --part train|test (default test when the data has a test part), --backend

Common: --json (last stdout line is a JSON summary), --quiet (no progress), --help, --version
Exit codes: 0 success, 1 the job failed, 2 bad usage or bad input.`;

const TRAIN_OPTIONS = {
  lambda: { type: 'string' },
  solver: { type: 'string' },
  sampling: { type: 'string' },
  averaging: { type: 'boolean' },
  'no-averaging': { type: 'boolean' },
  cache: { type: 'boolean' },
  'cache-size': { type: 'string' },
  'cache-f': { type: 'string' },
  'cache-nu': { type: 'string' },
  'no-line-search': { type: 'boolean' },
  'gap-threshold': { type: 'string' },
  'gap-check': { type: 'string' },
  'max-passes': { type: 'string' },
  'time-budget': { type: 'string' },
  seed: { type: 'string' },
  'train-error': { type: 'boolean' },
  backend: { type: 'string' },
  split: { type: 'string' },
  test: { type: 'string' },
  out: { type: 'string' },
  trace: { type: 'string' },
  checkpoint: { type: 'string' },
  'checkpoint-every': { type: 'string' },
  resume: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

const EVAL_OPTIONS = {
  split: { type: 'string' },
  part: { type: 'string' },
  backend: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

function backendOf(value: string | undefined): DecodeBackend {
  if (value === undefined || value === 'native' || value === 'js') return value ?? 'native';
  throw new UsageError(`--backend must be native or js, got '${value}'`);
}

type TrainValues = ReturnType<typeof parse<typeof TRAIN_OPTIONS>>['values'];

function trainOptions(v: TrainValues, defaults: { lambda?: number; gapThreshold?: number }): TrainOptions {
  const name = v.solver ?? 'bcfw';
  if (!CLI_SOLVERS.includes(name)) throw new UsageError(`--solver must be one of ${CLI_SOLVERS.join(', ')}, got '${name}'`);
  const step = STEP_OF[name];
  const solver = (step ? 'bcfw' : name) as SolverName;
  if (v.sampling !== undefined && !['uniform', 'perm', 'gap'].includes(v.sampling)) throw new UsageError(`--sampling must be uniform, perm or gap, got '${v.sampling}'`);
  if (solver === 'fw' && v.sampling !== undefined) throw new UsageError('--sampling does not apply to batch FW');
  if (solver === 'ssg' && v.sampling === 'gap') throw new UsageError('--sampling gap needs a dual: use a block-coordinate solver');
  if (v.averaging && v['no-averaging']) throw new UsageError('--averaging and --no-averaging contradict each other');
  const cacheSet = v['cache-size'] !== undefined || v['cache-f'] !== undefined || v['cache-nu'] !== undefined;
  if ((v.cache || cacheSet) && !step) throw new UsageError('--cache applies to the block-coordinate solvers (bcfw, bcpfw, bcafw, hybrid)');
  if (cacheSet && !v.cache) throw new UsageError('--cache-size, --cache-f and --cache-nu need --cache');
  const o: Record<string, unknown> = {
    solver,
    lambda: number(v.lambda, 'lambda', positive, 'a positive number') ?? defaults.lambda,
    gapThreshold: number(v['gap-threshold'], 'gap-threshold', nonNegative, 'a number >= 0') ?? defaults.gapThreshold,
    gapCheck: number(v['gap-check'], 'gap-check', integer(1), 'a positive integer'),
    maxPasses: number(v['max-passes'], 'max-passes', integer(0), 'a non-negative integer'),
    timeBudget: number(v['time-budget'], 'time-budget', positive, 'a positive number of seconds'),
    seed: number(v.seed, 'seed', integer(0), 'a non-negative integer'),
    trainError: v['train-error'] ?? false,
  };
  if (solver !== 'fw') o.sampling = v.sampling;
  if (solver !== 'ssg') o.lineSearch = !v['no-line-search'];
  if (solver !== 'fw') o.averaging = v.averaging ? true : v['no-averaging'] ? false : undefined;
  if (step) {
    o.step = step;
    if (v.cache) {
      o.cache = {
        maxSize: number(v['cache-size'], 'cache-size', integer(1), 'a positive integer') ?? 50,
        factor: number(v['cache-f'], 'cache-f', nonNegative, 'a number >= 0') ?? 0.25,
        nu: number(v['cache-nu'], 'cache-nu', nonNegative, 'a number >= 0') ?? 0.01,
      };
    }
  }
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o as TrainOptions;
}

async function runTrain(task: TaskData, v: TrainValues, io: Io, defaults: { lambda?: number; gapThreshold?: number; command: string }): Promise<number> {
  const backend = backendOf(v.backend);
  const model = buildModel(task.spec, backend);
  const problem = modelProblem(model, task.train.xs, task.train.ys);
  const options = trainOptions(v, defaults);
  const test = task.test;
  if (test) options.evaluate = (w) => ({ testError: meanLoss(model, w, test.xs, test.ys) });
  const printer = new ProgressPrinter(io.stderr, options.maxPasses ?? (options.solver === 'ssg' ? 50 : 200), v.quiet ?? false);
  let traceFd: number | undefined;
  const resume = v.resume === undefined ? undefined : readCheckpoint(v.resume);
  if (v.trace !== undefined) traceFd = openSync(v.trace, resume ? 'a' : 'w');
  let announced = Boolean(v.quiet);
  options.onProgress = (e) => {
    if (!announced) {
      announced = true;
      io.stderr.write(`${task.description}; ${problem.n} blocks, d = ${problem.dim}\n`);
    }
    printer.onProgress(e);
    if (traceFd !== undefined) writeSync(traceFd, `${JSON.stringify(e)}\n`);
  };
  const controller = new AbortController();
  options.signal = controller.signal;
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(130);
    io.stderr.write('\ninterrupted: finishing the current pass and certifying the gap (Ctrl-C again to quit at once)\n');
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  const checkpointPath = v.checkpoint;
  const every = number(v['checkpoint-every'], 'checkpoint-every', integer(1), 'a positive integer');
  let result: SolverResult;
  try {
    result = await trainAsync(problem, options, {
      resume,
      checkpointEvery: every,
      onCheckpoint: checkpointPath === undefined ? undefined : (c) => writeModelFile(checkpointPath, { meta: { format: 'gapbcfw-checkpoint', ...c.meta }, arrays: c.arrays }),
    });
  } finally {
    process.off('SIGINT', onSigint);
    printer.finish();
    if (traceFd !== undefined) closeSync(traceFd);
  }
  if (v.out !== undefined) {
    saveModel(v.out, {
      spec: task.spec,
      w: result.w,
      lambda: result.lambda,
      training: { solver: result.solver, passes: result.passes, stopReason: result.stopReason, ...stripFunctions(options) },
      dual: result.dual,
      trainFingerprint: fingerprint(task.train),
    });
  }
  const summary = {
    command: defaults.command,
    solver: v.solver ?? 'bcfw',
    sampling: 'step' in options || options.solver === 'ssg' ? ((options as { sampling?: string }).sampling ?? 'uniform') : undefined,
    lambda: result.lambda,
    n: problem.n,
    dim: problem.dim,
    passes: result.passes,
    effectivePasses: result.effectivePasses,
    oracleCalls: result.oracleCalls,
    seconds: result.seconds,
    primal: result.primal,
    dual: result.dual,
    gap: result.gap,
    gapIsExact: result.gapIsExact,
    ...('counters' in result ? { cacheHits: (result as BcfwResult).counters.cacheHits, storedLabels: (result as BcfwResult).storedLabels } : {}),
    trainError: result.trainError,
    testError: result.metrics.testError,
    ...(task.spec.kind === 'multiclass' && result.metrics.testError !== undefined ? { accuracy: 1 - result.metrics.testError } : {}),
    stopReason: result.stopReason,
    model: v.out,
  };
  report(summary, v.json ?? false, io, `${v.solver ?? 'bcfw'} stopped (${result.stopReason}) after ${describeEvent(result.trace.at(-1)!)}`);
  return result.stopReason === 'aborted' ? 130 : 0;
}

function stripFunctions(o: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, x]) => typeof x !== 'function' && !(x instanceof AbortSignal)));
}

function readCheckpoint(path: string): SolverCheckpoint {
  const { meta, arrays } = readModelFile(path);
  if (meta.format !== 'gapbcfw-checkpoint') throw new InputError(`${path} is not a gapbcfw checkpoint`);
  return { meta: meta as SolverCheckpoint['meta'], arrays: arrays as SolverCheckpoint['arrays'] };
}

async function runEval(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, EVAL_OPTIONS);
  if (v.help) return help(io, 'eval');
  if (positionals.length !== 2) throw new UsageError('eval takes MODEL DATA, e.g. gapbcfw eval model.gbm ocr:letter.data.gz --split small');
  const trained = loadModel(positionals[0]!);
  const task = loadTask(positionals[1]!, { split: v.split, model: trained.spec });
  const part = v.part ?? (task.test ? 'test' : 'train');
  if (part !== 'train' && part !== 'test') throw new UsageError(`--part must be train or test, got '${part}'`);
  const set: LabelledSet | undefined = part === 'test' ? task.test : task.train;
  if (!set) throw new UsageError(`${positionals[1]} has no test part (use --split or --part train)`);
  const model = buildModel(trained.spec, backendOf(v.backend));
  const t0 = performance.now();
  const error = meanLoss(model, trained.w, set.xs, set.ys);
  const summary: Record<string, unknown> = { command: 'eval', n: set.xs.length, [part === 'test' ? 'testError' : 'trainError']: error };
  if (trained.spec.kind === 'multiclass') summary.accuracy = 1 - error;
  if (trained.dual !== undefined && trained.trainFingerprint === fingerprint(set)) {
    // The training set: primal by a full oracle pass, the dual from the saved iterate.
    const problem = modelProblem(model, set.xs, set.ys);
    const pass = fullOraclePass(problem, trained.w);
    let wSq = 0;
    for (const x of trained.w) wSq += x * x;
    const primal = 0.5 * trained.lambda * wSq + pass.hingeSum / problem.n;
    Object.assign(summary, { lambda: trained.lambda, primal, dual: trained.dual, gap: primal - trained.dual, gapIsExact: true });
  }
  summary.seconds = (performance.now() - t0) / 1000;
  report(summary, v.json ?? false, io, `evaluated ${positionals[0]} on ${positionals[1]} (${part})`);
  return 0;
}

function help(io: Io, _command?: string): number {
  io.stdout.write(`${USAGE}\n`);
  return 0;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        return help(io, rest[0]);
      case '--version':
      case '-v':
        io.stdout.write(`${version()}\n`);
        return 0;
      case 'demo': {
        const { values, positionals } = parse(rest, TRAIN_OPTIONS);
        if (values.help) return help(io, 'demo');
        if (positionals.length > 0) throw new UsageError(`demo takes no data argument (got '${positionals[0]}')`);
        if (values.split !== undefined || values.test !== undefined) throw new UsageError('demo uses its own data: --split and --test do not apply');
        return await runTrain(loadTask('synthetic:'), values, io, { lambda: 0.01, gapThreshold: 0.01, command: 'demo' });
      }
      case 'train': {
        const { values, positionals } = parse(rest, TRAIN_OPTIONS);
        if (values.help) return help(io, 'train');
        if (positionals.length !== 1) throw new UsageError('train takes one data set KIND:PATH, e.g. gapbcfw train ocr:letter.data.gz --split small');
        return await runTrain(loadTask(positionals[0]!, { split: values.split, test: values.test }), values, io, { command: 'train' });
      }
      case 'eval':
        return await runEval(rest, io);
      case 'plot':
        return await runPlot(rest, io);
      default:
        throw new UsageError(`unknown command '${command}' (try gapbcfw help)`);
    }
  } catch (e) {
    if (e instanceof InputError) {
      io.stderr.write(`gapbcfw: ${e.message}\n`);
      return 2;
    }
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') {
      io.stderr.write(`gapbcfw: ${(e as Error).message}\n`);
      return 2;
    }
    io.stderr.write(`gapbcfw: ${e instanceof GapbcfwError ? e.message : (e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

// Run when executed directly (node dist/cli/main.js, the `gapbcfw` bin, or tsx src/cli/main.ts).
const invoked = process.argv[1];
if (invoked !== undefined && import.meta.url === pathToFileURL(realpathSync(invoked)).href) {
  process.exitCode = await main(process.argv.slice(2));
}
