/**
 * `gapbcfw train DATA` and `gapbcfw demo`: one training path for every task (src/tasks/) with every solver switch,
 * progress, traces, checkpoints and resume, signals, and the one model file.
 * @module
 */
import { describeBackend } from '../../kernels/index.js';
import { modelProblem } from '../engine/problem.js';
import { CheckpointWriter, readCheckpoint } from '../solvers/checkpoint.js';
import { saveModel } from '../tasks/model.js';
import { statSync, truncateSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import { cutAfterLastLine, resolveOutput, StreamedOutput } from '../io/output.js';
import { methodName, type TraceContext } from '../plot/traces.js';
import type { BcfwResult } from '../solvers/bcfw.js';
import type { ProgressEvent, SolverCheckpoint, SolverResult } from '../solvers/common.js';
import { CUTTING_PLANE_MAX_PASSES, type CuttingPlaneResult } from '../solvers/cutting-plane.js';
import { trainAsync } from '../solvers/index.js';
import { evaluatePart, loadTask, parseDataSpec, taskOf } from '../tasks/index.js';
import { buildModel } from '../tasks/model-kinds.js';
import type { DataKind, TaskData } from '../tasks/types.js';
import { positional, value, type Args, type Command, type CommandOption } from './args.js';
import { UsageError, report, solverSummary, stopDescription, type Io } from './common.js';
import { chooseLambda, LAMBDA_AUTO_OPTIONS, type LambdaChoice } from './lambda-auto.js';
import { BACKEND_OPTIONS, DATA_OPTIONS, EVALUATION_OPTIONS, REPORT_OPTIONS, SOLVER_OPTIONS, decodeBackend, evaluationCadence, loadOptions, scoringOf, solverName as solverNameOf, taskOptionTable, trainSettings, type TrainDefaults } from './options.js';
import { ProgressPrinter, describeEvent } from './progress.js';
import { checkCommandOutputs, withInterrupts } from './session.js';

const files = 'Files';
/** Outputs and resuming of a training run. */
export const RUN_OPTIONS: readonly CommandOption[] = [
  { name: 'out', type: 'string', value: 'MODEL', short: 'o', output: 'file', help: 'write the trained model (one model-file format for every task)', group: files },
  { name: 'trace', type: 'string', value: 'FILE.jsonl', output: 'file', help: 'every progress event as a JSON line (appended when resuming)', group: files },
  { name: 'checkpoint', type: 'string', value: 'FILE', output: 'file', updates: 'resume', streamable: false, help: 'save the solver state every --checkpoint-every passes and at the end', group: files },
  { name: 'checkpoint-every', type: 'integer', value: 'N', min: 1, max: 1e9, help: 'passes between checkpoints', default: '10', group: files },
  { name: 'resume', type: 'string', value: 'FILE', input: true, help: 'continue from a checkpoint (same data, solver and settings): the same trace as one run', group: files },
  { name: 'finish-pass', type: 'number', value: 'SECONDS', min: 0, max: 1e9, help: 'a signal or the time budget inside a pass finishes the pass when that takes at most this long, else stops at once (the checkpoint records the step: --resume continues there)', default: '1', group: files },
];

export const trainCommand: Command = {
  name: 'train',
  summary: 'train a model on a data set with any solver; the data kind decides the model (gapbcfw help lists them)',
  description:
    'DATA is KIND:PATH: ocr:FILE, synthetic:, libsvm:FILE, idx:DIR, conll:FILE|DIR, horse:DIR, lsp:DIR or alignment:DIR.\n' +
    'Progress goes to stderr; with a test part, the test error and the task\'s metrics (chunk F1, PCP, AER, ...) are\n' +
    'measured at the gap checks --eval-every picks (by default about a tenth of the oracle work) and for the final\n' +
    'model. The summary gives the training seconds (seconds: evaluation left out) and the wall seconds (wallSeconds).\n' +
    'SIGINT, SIGTERM and SIGHUP stop the run (at the end of the pass when it is nearly done: --finish-pass), certify\n' +
    'the gap, write the model and checkpoint and exit 130, 143 or 129.',
  positionals: [{ name: 'DATA', help: 'the training data, KIND:PATH', input: 'data' }],
  options: [...SOLVER_OPTIONS, ...LAMBDA_AUTO_OPTIONS, ...EVALUATION_OPTIONS, ...DATA_OPTIONS, ...taskOptionTable('train'), ...BACKEND_OPTIONS, ...RUN_OPTIONS, ...REPORT_OPTIONS],
  run: async (a, io) => {
    const spec = positional(a, 0);
    const { kind } = parseDataSpec(spec);
    const load = loadOptions(a, kind);
    const auto = a.values.lambda === 'auto';
    for (const flag of ['dev', 'dev-fraction', 'lambda-search', 'min-lambda']) {
      if (!auto && a.given.has(flag)) throw new UsageError(`--${flag} applies to --lambda auto`);
    }
    if (auto && a.given.has('resume')) throw new UsageError('--lambda auto cannot --resume (give the lambda it chose)');
    return withRunFiles(a, io, async (runFiles) => train(a, io, runFiles, await loadTask(spec, load), { command: 'train', data: load.split === undefined ? spec : `${spec} --split ${load.split}`, ...taskOf(kind).defaults, kind }));
  },
};

export const demoCommand: Command = {
  name: 'demo',
  summary: 'train a chain model on built-in synthetic data (no files needed): lambda 0.01 to an exact gap of 0.01',
  positionals: [],
  options: [...SOLVER_OPTIONS, ...EVALUATION_OPTIONS, ...BACKEND_OPTIONS, ...RUN_OPTIONS, ...REPORT_OPTIONS],
  run: async (a, io) => {
    if (a.values.lambda === 'auto') throw new UsageError('--lambda auto applies to train (with --dev or --dev-fraction)');
    return withRunFiles(a, io, async (runFiles) => train(a, io, runFiles, await loadTask('synthetic:'), { command: 'demo', data: 'synthetic:', lambda: 0.01, gapThreshold: 0.01 }));
  },
};

/** What a training run reads and writes besides its data, checked and opened before the data is read. */
interface RunFiles {
  /** Where the summary goes (stderr when an output takes stdout). */
  summaryIo: Io;
  /** The checkpoint to resume from. */
  resume?: SolverCheckpoint;
  /** The checkpoint writer, holding the file's lock. */
  checkpoints?: CheckpointWriter;
}

/**
 * Runs `body` with the run's files open: the outputs checked, the --resume checkpoint read and the --checkpoint lock
 * taken (so that every refusal comes before the data is read); the lock is released however the run ends.
 */
async function withRunFiles(a: Args, io: Io, body: (runFiles: RunFiles) => Promise<number>): Promise<number> {
  if (a.given.has('checkpoint-every') && !a.given.has('checkpoint')) throw new UsageError('--checkpoint-every applies to --checkpoint FILE');
  const summaryIo = checkCommandOutputs(a, io);
  const resumeFile = value.string(a, 'resume');
  const checkpointFile = value.string(a, 'checkpoint');
  const runFiles: RunFiles = { summaryIo, ...(resumeFile === undefined ? {} : { resume: readCheckpoint(resumeFile) }) };
  if (checkpointFile !== undefined) runFiles.checkpoints = new CheckpointWriter(checkpointFile);
  const traceFile = value.string(a, 'trace');
  if (runFiles.resume && traceFile !== undefined) cutTrace(traceFile, runFiles.resume);
  try {
    return await body(runFiles);
  } finally {
    runFiles.checkpoints?.close();
  }
}

/**
 * A resumed run's trace file keeps the lines up to the checkpoint's last event, which the resumed run's lines then
 * follow as one run's would (a run killed after its checkpoint wrote more). A new or empty file, a device or a FIFO
 * is written as it is. @throws InputError when the file holds lines but not that event (another run's trace).
 */
function cutTrace(path: string, resume: SolverCheckpoint): void {
  const target = resolveOutput(path);
  if (target.kind !== 'file' || !(statSync(target.path, { throwIfNoEntry: false })?.size ?? 0)) return;
  const last = resume.meta.trace.at(-1);
  const isLast = (line: string) => {
    if (last === undefined) return false;
    try {
      const e = JSON.parse(line) as Record<string, unknown>;
      return Object.entries(last).every(([k, v]) => JSON.stringify(e[k]) === JSON.stringify(v));
    } catch {
      return false;
    }
  };
  if (last === undefined) truncateSync(target.path, 0);
  else if (!cutAfterLastLine(target.path, isLast)) {
    throw new InputError(`--trace ${path} does not hold the last event of the checkpoint (pass ${last.pass}): resume with that run's trace or a new file`);
  }
}

/** The training run shared by `train` and `demo`. */
async function train(a: Args, io: Io, runFiles: RunFiles, data: TaskData, defaults: TrainDefaults & { command: string; data: string; kind?: DataKind }): Promise<number> {
  const model = buildModel(data.spec, decodeBackend(a));
  const { scoring, report: scoringReport } = scoringOf(model, a);
  const problem = modelProblem(model, data.train, { scoring, objective: data.spec });
  const auto = a.values.lambda === 'auto';
  // --lambda auto: the settings without a lambda, which the search on held-out data chooses.
  const settings = trainSettings(auto ? { ...a, values: { ...a.values, lambda: undefined }, given: new Set([...a.given].filter((f) => f !== 'lambda')) } : a, defaults);
  let choice: LambdaChoice | undefined;
  if (auto) {
    const { solver, lambda: _l, gapThreshold, maxPasses: _m, timeBudget: _t, trainError: _te, ...rest } = settings;
    if (solver !== undefined && solver !== 'bcfw') throw new UsageError('--lambda auto walks the grid or the path with a block-coordinate solver (bcfw, bcpfw, bcafw, hybrid)');
    const code = await withInterrupts(io, 'stopping the lambda search after the current pass', async (signal) => {
      choice = await chooseLambda(a, io, data, defaults.kind!, model, { solver: rest, epsilon: gapThreshold ?? 0.1, scoring, signal });
      return 0;
    });
    if (code !== 0) return code;
    settings.lambda = choice!.lambda;
    if (!value.flag(a, 'quiet')) io.stderr.write(`--lambda auto: lambda ${choice!.lambda.toExponential(3)} (best dev ${choice!.metric} of ${choice!.curve.length} lambdas, ${choice!.searchSeconds.toFixed(1)} s)\n`);
  }
  const test = data.test;
  if (!test && a.given.has('test-limit')) throw new UsageError(`--test-limit applies to a test part, and ${defaults.data} has none (add --test KIND:PATH${data.task === 'ocr' ? ' or a --split with one' : ''})`);
  const quiet = value.flag(a, 'quiet');
  const printer = new ProgressPrinter(io.stderr, settings.maxPasses ?? (settings.solver === 'ssg' ? 50 : settings.solver === 'cutting-plane' ? CUTTING_PLANE_MAX_PASSES : 200), quiet, problem.n);
  const { resume, checkpoints, summaryIo } = runFiles;
  const sampling = settings.solver === undefined || settings.solver === 'bcfw' || settings.solver === 'ssg' ? (settings.sampling ?? 'uniform') : undefined;
  const solverName = solverNameOf(settings);
  // Every trace line says which method, seed, lambda and data it belongs to (gapbcfw plot's legend and title).
  const context: TraceContext = { method: methodName({ solver: solverName, sampling, cache: value.flag(a, 'cache') }), seed: settings.seed ?? 1, lambda: settings.lambda ?? 1 / problem.n, data: defaults.data };
  const traceFile = value.string(a, 'trace');
  const trace = traceFile === undefined ? undefined : StreamedOutput.open(traceFile, { append: resume !== undefined, stdout: io.stdout, warn: (m) => io.stderr.write(`gapbcfw: ${m}\n`) });
  let announced = quiet;
  const onProgress = (e: ProgressEvent) => {
    if (!announced) {
      announced = true;
      io.stderr.write(`${data.description}; ${problem.n} blocks, d = ${problem.dim}\n`);
      if (scoringReport) io.stderr.write(`exact passes score on ${describeBackend(scoringReport)}\n`);
    }
    printer.onProgress(e);
    trace?.write(`${JSON.stringify({ ...e, ...context })}\n`);
  };
  let result: SolverResult | undefined;
  const started = performance.now();
  const code = await withInterrupts(io, 'stopping at the next block step (or the end of the pass when it is nearly done), certifying the gap and writing the model', async (signal, urgent) => {
    try {
      result = await trainAsync(problem, settings, {
        ...(test ? { evaluate: (w: Float64Array) => evaluatePart(data, model, w, 'test'), evaluateEvery: evaluationCadence(a, settings.gapCheck ?? 10, test.length) } : {}),
        onProgress,
        signal,
        passSignal: urgent,
        ...(a.given.has('finish-pass') ? { finishPass: value.number(a, 'finish-pass') } : {}),
        resume,
        checkpointEvery: value.number(a, 'checkpoint-every'),
        onCheckpoint: checkpoints && ((c) => checkpoints.write(c)),
      });
    } finally {
      printer.finish();
      checkpoints?.close();
      trace?.close();
    }
    return 0;
  });
  const r = result!;
  // Training seconds leave out the evaluations (and the data loading before them); the wall clock counts everything.
  const wallSeconds = (performance.now() - started) / 1000;
  const out = value.string(a, 'out');
  if (out !== undefined) {
    saveModel(out, {
      task: data.task,
      spec: data.spec,
      fields: data.fields,
      w: r.w,
      lambda: r.lambda,
      training: { ...settings, solver: r.solver, passes: r.passes, stopReason: r.stopReason },
      dual: r.dual,
      trainFingerprint: data.train.fingerprint(),
    }, { stdout: io.stdout });
  }
  const bcfw = r as BcfwResult;
  const summary = {
    command: defaults.command,
    task: data.task,
    solver: solverName,
    method: context.method, // as in the trace; with lambda, seconds, effectivePasses, gap and testError: a row of `plot --x lambda`
    scoringBackend: scoringReport ? { backend: scoringReport.backend, mode: scoringReport.mode, how: scoringReport.how } : undefined,
    sampling,
    lambda: r.lambda,
    n: problem.n,
    nTest: test?.length,
    dim: problem.dim,
    ...solverSummary(r),
    wallSeconds,
    ...(bcfw.storedLabels !== undefined ? { cacheHits: bcfw.counters.cacheHits, storedLabels: bcfw.storedLabels } : {}),
    ...('workingSet' in r ? { workingSet: (r as CuttingPlaneResult).workingSet } : {}),
    trainError: r.trainError,
    ...r.metrics,
    ...(test ? data.baseline?.('test') : {}),
    stopReason: r.stopReason,
    ...(choice ? { lambdaAuto: { metric: choice.metric, searchSeconds: choice.searchSeconds, curve: choice.curve } } : {}),
    model: out,
    ...model.oracleReport?.(), // e.g. the inference routine each example got (graph, multilabel)
    oracleCounters: r.oracle, // this run's oracle counters: examples, scoring/decoding/checking/reading ms, records and bytes read
  };
  report(summary, value.flag(a, 'json'), summaryIo, `${solverName} ${stopDescription(r)} after ${describeEvent(r.trace.at(-1)!)}`);
  return code;
}
