#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ParseArgsConfig } from 'node:util';
import { packageRoot } from '../package-root.js';
import { meanLoss, modelProblem } from '../core/problem.js';
import { buildModel, loadTask, type TaskData } from '../data/datasets.js';
import type { Dataset } from '../data/dataset.js';
import { loadModel, saveModel, type TrainedModel } from '../io/model.js';
import { readModelFile } from '../io/model-file.js';
import { CheckpointWriter, readCheckpoint as readCheckpointFile } from '../io/checkpoint.js';
import { StreamedOutput } from '../io/output.js';
import { methodName, type TraceContext } from '../plot/traces.js';
import { fullOraclePass, type SolverCheckpoint, type SolverResult } from '../solvers/common.js';
import { trainAsync } from '../solvers/index.js';
import type { BcfwResult } from '../solvers/bcfw.js';
import { ProgressPrinter, countProgress, describeEvent } from './progress.js';
import { conllMetrics, runTag, type ConllSet } from './conll.js';
import type { SparseChainModel } from '../models/sparse-chain.js';
import { runPlot } from './plot.js';
import { runAlign } from './align.js';
import { runMaxflow } from './maxflow.js';
import { runGap, runGapMerge } from './gap.js';
import { runMulticlassFw } from './multiclass-fw.js';
import { runPose } from './pose.js';
import { runPrepareHorse, runTrainHorse, runPredict } from './horse.js';
import { runPath } from './path.js';
import { loadPath } from '../io/path-file.js';
import { pathWeights } from '../path/regpath.js';
import { UsageError, integer, number, parse, positive, report, reportFailure, solverSummary, stopDescription, streamOption, type Io } from './common.js';
import { CLI_SOLVERS, TRAIN_OPTIONS, backendOf, scoringOf, trainOptions, type TrainValues } from './train-options.js';
import { describeBackend } from '../../kernels/index.js';

const USAGE = `gapbcfw: structured SVMs trained with block-coordinate Frank-Wolfe

Usage: gapbcfw <command> [arguments] [options]

Commands:
  demo                     train a chain model on built-in synthetic data (no files needed)
  train DATA               train a model; DATA is KIND:PATH (ocr:FILE, libsvm:FILE, synthetic:)
  eval MODEL DATA          error (and, on the training set, the exact duality gap) of a saved model
  tag MODEL [FILE|-]       chunk a CoNLL file (WORD POS columns) with a conll model; writes the chunk column
  align ...                word alignment as bipartite matching: align train alignment:DIR | align eval MODEL DATA |
                           align MODEL [PAIRS] (gapbcfw align --help)
  gap MODEL DATA           exact duality gap / primal / error of a saved model over a data set, optionally
                           one --shard I/N of it; gap-merge PART... combines shards (gapbcfw gap --help)
  path DATA                epsilon-approximate regularization path, or --grid search (gapbcfw path --help)
  pose ...                 LSP pose estimation (tree of parts, HOG filters, GDT messages): pose train lsp:DIR |
                           pose eval MODEL lsp:DIR (gapbcfw pose --help)
  prepare-horse DIR        Weizmann horses -> superpixels (SLIC), HorseSeg-style features, on-disk set
  train-horse DIR          train the graph-cut segmentation model (positivity on the Potts weights)
  predict MODEL DIR        segment the test images: error, pixel accuracy, PNG overlays
  multiclass-fw DATA --tau X
                           nuclear-norm multinomial logistic regression: afw | fw | sfw | svrf (Liu & Tsang 2017)
  maxflow FILE.max         Boykov-Kolmogorov max-flow of a DIMACS file (--json with timings)
  plot TRACE...            SVG/PNG figures from JSONL traces (gap against effective passes or time, ...)
  help [COMMAND]           this text, or the options of a command

Data:
  ocr:letter.data(.gz)     Taskar's OCR words; --split small (default: fold 0 trains) | large | all | fold:K
  libsvm:FILE              multiclass LIBSVM/SVMlight file (Crammer-Singer SSVM); --test libsvm:FILE.t
  synthetic:               300 + 100 generated chain sequences (the demo data)
  horse:DIR                a folder written by prepare-horse (superpixel graphs; positivity on the Potts weights)
  alignment:DIR            Hansards gold alignments (word_alignment_hansards/), for gapbcfw align train
  conll:FILE|DIR           CoNLL-2000 chunking (WORD POS CHUNK); DIR = train.txt + test.txt, or --test conll:FILE;
                           --min-frequency N (default 3) attribute cutoff, --limit N first N training sentences

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
  --backend auto|native|gpujs|js
                           scoring backend of batched full passes (default auto: a short calibration,
                           cached per machine, picks the fastest correct one); js also decodes in TypeScript
  --gpu-mode MODE          gpu.js mode for --backend gpujs: gpu (default: best found) | webgl | webgl2 |
                           headlessgl | webasm | cpu
  --split S, --test KIND:PATH
  --out MODEL              write the trained model
  --trace FILE.jsonl       write every progress event as a JSON line
  --checkpoint FILE        save the solver state every --checkpoint-every passes (default 10) and at the end
  --resume FILE            continue from a checkpoint (same data, solver and settings)

Eval options: --split S, --part train|test (default test when the data has a test part), --backend, --gpu-mode,
  --lambda X (MODEL is a path file from gapbcfw path: evaluate its epsilon-approximate w at X)

Common: --json (last stdout line is a JSON summary), --quiet (no progress), --help, --version
Exit codes: 0 success, 1 the job failed, 2 bad usage or bad input.`;

const EVAL_OPTIONS = {
  split: { type: 'string' },
  lambda: { type: 'string' },
  part: { type: 'string' },
  stream: { type: 'boolean' },
  'in-memory': { type: 'boolean' },
  backend: { type: 'string' },
  'gpu-mode': { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

async function runTrain(task: TaskData, v: TrainValues, io: Io, defaults: { lambda?: number; gapThreshold?: number; command: string; data: string }): Promise<number> {
  const model = buildModel(task.spec, backendOf(v.backend));
  const { scoring, report: scoringReport } = scoringOf(model, v.backend, v['gpu-mode']);
  const problem = modelProblem(model, task.train, { scoring });
  const options = trainOptions(v, defaults);
  const test = task.test;
  const spec = task.spec;
  if (test && spec.kind === 'sparse-chain') {
    options.evaluate = (w) => {
      const m = conllMetrics(model as unknown as SparseChainModel, w, test as unknown as ConllSet, spec.labelNames);
      return { testError: m.testError, f1: m.f1 };
    };
  } else if (test) options.evaluate = (w) => ({ testError: meanLoss(model, w, test) });
  const printer = new ProgressPrinter(io.stderr, options.maxPasses ?? (options.solver === 'ssg' ? 50 : 200), v.quiet ?? false);
  const resume = v.resume === undefined ? undefined : readCheckpoint(v.resume);
  const checkpoints = v.checkpoint === undefined ? undefined : new CheckpointWriter(v.checkpoint);
  const sampling = 'step' in options || options.solver === 'ssg' ? ((options as { sampling?: string }).sampling ?? 'uniform') : undefined;
  // Every trace line says which method, seed, lambda and data it belongs to (gapbcfw plot's legend and title).
  const context: TraceContext = { method: methodName({ solver: v.solver ?? 'bcfw', sampling, cache: v.cache }), seed: options.seed ?? 1, lambda: options.lambda ?? 1 / problem.n, data: defaults.data };
  const trace = v.trace === undefined ? undefined : StreamedOutput.open(v.trace, { append: resume !== undefined, stdout: io.stdout, warn: (m) => io.stderr.write(`gapbcfw: ${m}\n`) });
  let announced = Boolean(v.quiet);
  options.onProgress = (e) => {
    if (!announced) {
      announced = true;
      io.stderr.write(`${task.description}; ${problem.n} blocks, d = ${problem.dim}\n`);
      if (scoringReport) io.stderr.write(`exact passes score on ${describeBackend(scoringReport)}\n`);
    }
    printer.onProgress(e);
    trace?.write(`${JSON.stringify({ ...e, ...context })}\n`);
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
  const every = number(v['checkpoint-every'], 'checkpoint-every', integer(1), 'a positive integer');
  let result: SolverResult;
  try {
    result = await trainAsync(problem, options, {
      resume,
      checkpointEvery: every,
      onCheckpoint: checkpoints && ((c) => checkpoints.write(c)),
    });
  } finally {
    process.off('SIGINT', onSigint);
    printer.finish();
    checkpoints?.close();
    trace?.close();
  }
  if (v.out !== undefined) {
    saveModel(v.out, {
      spec: task.spec,
      w: result.w,
      lambda: result.lambda,
      training: { solver: result.solver, passes: result.passes, stopReason: result.stopReason, ...stripFunctions(options) },
      dual: result.dual,
      trainFingerprint: task.train.fingerprint(),
    });
  }
  const summary = {
    command: defaults.command,
    solver: v.solver ?? 'bcfw',
    scoringBackend: scoringReport ? { backend: scoringReport.backend, mode: scoringReport.mode, how: scoringReport.how } : undefined,
    sampling,
    lambda: result.lambda,
    n: problem.n,
    dim: problem.dim,
    ...solverSummary(result),
    ...('counters' in result && (result as BcfwResult).storedLabels !== undefined
      ? { cacheHits: (result as BcfwResult).counters.cacheHits, storedLabels: (result as BcfwResult).storedLabels }
      : {}),
    trainError: result.trainError,
    testError: result.metrics.testError,
    f1: result.metrics.f1,
    ...(task.spec.kind === 'multiclass' && result.metrics.testError !== undefined ? { accuracy: 1 - result.metrics.testError } : {}),
    stopReason: result.stopReason,
    model: v.out,
  };
  report(summary, v.json ?? false, io, `${v.solver ?? 'bcfw'} ${stopDescription(result)} after ${describeEvent(result.trace.at(-1)!)}`);
  return result.stopReason === 'aborted' ? 130 : 0;
}

function stripFunctions(o: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, x]) => typeof x !== 'function' && !(x instanceof AbortSignal)));
}

function readCheckpoint(path: string): SolverCheckpoint {
  return readCheckpointFile(path);
}

async function runEval(args: string[], io: Io): Promise<number> {
  const { values: v, positionals } = parse(args, EVAL_OPTIONS);
  if (v.help) return help(io, 'eval');
  if (positionals.length !== 2) throw new UsageError('eval takes MODEL DATA, e.g. gapbcfw eval model.gbm ocr:letter.data.gz --split small');
  const trained = readModelFile(positionals[0]!).meta.format === 'gapbcfw-path' ? modelFromPath(positionals[0]!, v.lambda) : loadModel(positionals[0]!);
  if (v.lambda !== undefined && trained.training.source !== 'path') throw new UsageError('--lambda applies to path files (from gapbcfw path)');
  const task = loadTask(positionals[1]!, { split: v.split, model: trained.spec, stream: streamOption(v) });
  const part = v.part ?? (task.test ? 'test' : 'train');
  if (part !== 'train' && part !== 'test') throw new UsageError(`--part must be train or test, got '${part}'`);
  const set: Dataset | undefined = part === 'test' ? task.test : task.train;
  if (!set) throw new UsageError(`${positionals[1]} has no test part (use --split or --part train)`);
  const model = buildModel(trained.spec, backendOf(v.backend));
  const t0 = performance.now();
  const spec = trained.spec;
  const chunking = spec.kind === 'sparse-chain' ? conllMetrics(model as unknown as SparseChainModel, trained.w, set as unknown as ConllSet, spec.labelNames) : undefined;
  const error = chunking ? chunking.testError : meanLoss(model, trained.w, set);
  const summary: Record<string, unknown> = { command: 'eval', n: set.length, [part === 'test' ? 'testError' : 'trainError']: error };
  if (trained.spec.kind === 'multiclass') summary.accuracy = 1 - error;
  if (chunking) Object.assign(summary, { f1: chunking.f1, precision: chunking.precision, recall: chunking.recall, accuracy: chunking.accuracy });
  if (trained.dual !== undefined && trained.trainFingerprint === set.fingerprint()) {
    // The training set: primal by a full oracle pass, the dual from the saved iterate.
    const { scoring, report: scoringReport } = scoringOf(model, v.backend, v['gpu-mode']);
    const problem = modelProblem(model, set, { scoring, onPassProgress: countProgress(io.stderr, 'exact pass', v.quiet ?? false) });
    const pass = fullOraclePass(problem, trained.w);
    if (scoringReport) summary.scoringBackend = { backend: scoringReport.backend, mode: scoringReport.mode, how: scoringReport.how };
    let wSq = 0;
    for (const x of trained.w) wSq += x * x;
    const primal = 0.5 * trained.lambda * wSq + pass.hingeSum / problem.n;
    Object.assign(summary, { lambda: trained.lambda, primal, dual: trained.dual, gap: primal - trained.dual, gapIsExact: true });
  }
  summary.seconds = (performance.now() - t0) / 1000;
  report(summary, v.json ?? false, io, `evaluated ${positionals[0]} on ${positionals[1]} (${part})`);
  return 0;
}

/** The epsilon-approximate w of a stored path at lambda, as a model (no dual: the path certifies it). */
function modelFromPath(file: string, lambdaFlag: string | undefined): TrainedModel {
  const lambda = number(lambdaFlag, 'lambda', positive, 'a positive number');
  if (lambda === undefined) throw new UsageError(`${file} is a regularization path: give --lambda X`);
  const p = loadPath(file);
  return { spec: p.spec, w: pathWeights(p, lambda), lambda, training: { source: 'path', epsilon: p.epsilon } };
}

function help(io: Io, _command?: string): number {
  io.stdout.write(`${USAGE}\n`);
  return 0;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
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
        return await runTrain(loadTask('synthetic:'), values, io, { lambda: 0.01, gapThreshold: 0.01, command: 'demo', data: 'synthetic:' });
      }
      case 'train': {
        const { values, positionals } = parse(rest, TRAIN_OPTIONS);
        if (values.help) return help(io, 'train');
        if (positionals.length !== 1) throw new UsageError('train takes one data set KIND:PATH, e.g. gapbcfw train ocr:letter.data.gz --split small');
        const minFrequency = number(values['min-frequency'], 'min-frequency', integer(1), 'a positive integer');
        const limit = number(values.limit, 'limit', integer(1), 'a positive integer');
        const stream = streamOption(values);
        return await runTrain(loadTask(positionals[0]!, { split: values.split, test: values.test, minFrequency, limit, stream }), values, io, { command: 'train', data: values.split === undefined ? positionals[0]! : `${positionals[0]!} --split ${values.split}` });
      }
      case 'eval':
        return await runEval(rest, io);
      case 'tag':
        return await runTag(rest, io);
      case 'align':
        return await runAlign(rest, io);
      case 'maxflow':
        return await runMaxflow(rest, io);
      case 'multiclass-fw':
        return await runMulticlassFw(rest, io);
      case 'gap':
        return await runGap(rest, io);
      case 'gap-merge':
        return await runGapMerge(rest, io);
      case 'pose':
        return await runPose(rest, io);
      case 'prepare-horse':
        return await runPrepareHorse(rest, io);
      case 'train-horse':
        return await runTrainHorse(rest, io);
      case 'predict':
        return await runPredict(rest, io);
      case 'plot':
        return await runPlot(rest, io);
      case 'path':
        return await runPath(rest, io);
      default:
        throw new UsageError(`unknown command '${command}' (try gapbcfw help)`);
    }
  } catch (e) {
    return reportFailure(e, io);
  }
}

// Run when executed directly (node dist/src/cli/main.js, the `gapbcfw` bin, or tsx src/cli/main.ts).
const invoked = process.argv[1];
if (invoked !== undefined && import.meta.url === pathToFileURL(realpathSync(invoked)).href) {
  process.exitCode = await main(process.argv.slice(2));
}
