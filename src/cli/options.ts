/**
 * The option groups the commands share (solver, data, scoring backend, output), declared once, and their
 * translation into library options (TrainOptions, load options).
 * @module
 */
import { BACKEND_CHOICES, GPUJS_MODES, chooseBackend, type BackendChoice, type BackendReport, type GpuJsMode, type ScoringBackend } from '../../kernels/index.js';
import type { DecodeBackend } from '../models/chain.js';
import type { StepType } from '../solvers/bcfw.js';
import { SOLVERS, type SolverName, type TrainOptions } from '../solvers/index.js';
import { MAX_THREADS } from '../native/threads.js';
import { taskOf, taskOptions } from '../tasks/index.js';
import type { DataKind, LoadOptions, OptionValues } from '../tasks/types.js';
import { value, type Args, type CommandOption } from './args.js';
import { UsageError } from './common.js';

/** CLI solver names: the block-coordinate variants are one engine with a step type. */
export const STEP_OF: Record<string, StepType> = { bcfw: 'fw', bcpfw: 'pairwise', bcafw: 'away', hybrid: 'hybrid' };
export const CLI_SOLVERS = ['bcfw', 'bcpfw', 'bcafw', 'hybrid', ...SOLVERS.filter((s) => s !== 'bcfw')];

/** Smallest and largest lambda: outside, w = -(1/lambda) sum psi / n under- or overflows in its squares. */
export const LAMBDA_RANGE = { min: 1e-12, max: 1e12 } as const;
/** Seeds of the sampling PRNG: 32-bit (a larger seed would wrap and repeat another run). */
export const SEED_MAX = 2 ** 32 - 1;

const solver = 'Solver';
/** The solver options of every training command (train, demo, path). */
export const SOLVER_OPTIONS: readonly CommandOption[] = [
  { name: 'lambda', type: 'number', value: 'X', ...LAMBDA_RANGE, help: 'regularisation lambda of (lambda/2)||w||^2 + (1/n) sum_i H_i(w)', default: '1/n; a task may set its own', group: solver },
  { name: 'solver', type: 'choice', value: 'NAME', choices: CLI_SOLVERS, help: 'bcpfw = pairwise steps, bcafw = FW + away steps, hybrid = the best of FW/away/pairwise, cutting-plane = 1-slack (SVMstruct)', default: 'bcfw', group: solver },
  { name: 'sampling', type: 'choice', value: 'S', choices: ['uniform', 'perm', 'gap'], help: 'block sampling; gap = proportional to the block-gap estimates (2016, Alg. 2)', default: 'uniform', group: solver },
  { name: 'cache', type: 'flag', help: 'gap-based caching of oracle answers (2016, Alg. 3)', group: solver },
  { name: 'cache-size', type: 'integer', value: 'N', min: 1, max: 1e6, help: 'labels kept per block', default: '50', group: solver },
  { name: 'cache-f', type: 'number', value: 'X', min: 0, max: 1e6, help: 'cache hit when its gap >= F x the block\'s estimated gap', default: '0.25', group: solver },
  { name: 'cache-nu', type: 'number', value: 'X', min: 0, max: 1e6, help: 'or when its gap >= nu x the global gap estimate / n', default: '0.01', group: solver },
  { name: 'batch', type: 'integer', value: 'TAU', min: 1, max: 1e9, help: 'blocks per step, decoded together on native threads; 1 = sequential BCFW', default: '4 x threads, at most n/32, for CoNLL, segmentation, pose and OCR (overlapped); 1 on one thread and for multiclass and word alignment', group: solver },
  { name: 'overlap', type: 'flag', help: 'with --batch > 1: the next mini-batch is decoded in the background while this one is applied (its corners are one mini-batch older)', default: 'on where the decoder works in the background (OCR chains)', group: solver },
  { name: 'no-overlap', type: 'flag', help: 'decode each mini-batch before its updates', group: solver },
  { name: 'averaging', type: 'flag', help: 'weighted average rho = 2/(k+2) of the iterates', default: 'on for plain bcfw only', group: solver },
  { name: 'no-averaging', type: 'flag', help: 'return the last iterate', group: solver },
  { name: 'no-line-search', type: 'flag', help: 'the fixed step 2n/(k+2n) (bcfw) or 2/(k+2) (fw)', group: solver },
  { name: 'gap-threshold', type: 'number', value: 'X', min: 0, max: 1e300, help: 'stop when the exact duality gap is <= X', default: '0.1', group: solver },
  { name: 'gap-check', type: 'integer', value: 'N', min: 1, max: 1e9, help: 'passes between exact gap passes', default: '10', group: solver },
  { name: 'max-passes', type: 'integer', value: 'N', min: 0, max: 1e9, help: 'cap on passes', default: '200; ssg 50; cutting-plane 1000', group: solver },
  { name: 'time-budget', type: 'number', value: 'SECONDS', min: 0, minExclusive: true, max: 1e9, help: 'wall-clock budget', default: 'unlimited', group: solver },
  { name: 'seed', type: 'integer', value: 'N', min: 0, max: SEED_MAX, help: 'seed of the sampling PRNG', default: '1', group: solver },
  { name: 'train-error', type: 'flag', help: 'also report the training error at every gap check', group: solver },
  { name: 'qp-tolerance', type: 'number', value: 'X', min: 0, max: 0.999999, help: 'cutting-plane: solve the working-set QP to X times the last exact gap', default: '0.1', group: solver },
  { name: 'inactive-window', type: 'integer', value: 'N', min: 1, max: 1e9, help: 'cutting-plane: drop a constraint whose dual weight stayed 0 for N iterations', default: '50', group: solver },
];

const data = 'Data';
/** Options of commands that read a `KIND:PATH` data set. */
export const DATA_OPTIONS: readonly CommandOption[] = [
  { name: 'split', type: 'string', value: 'S', help: 'a standard split: ocr small | large | all | fold:K, lsp small | full', default: 'small', group: data },
  { name: 'test', type: 'string', value: 'KIND:PATH', input: true, help: 'a separate test set of the same kind (ocr, libsvm, idx, conll)', group: data },
  { name: 'limit', type: 'integer', value: 'N', min: 1, max: 1e12, help: 'use only the first N training examples', group: data },
  { name: 'test-limit', type: 'integer', value: 'N', min: 1, max: 1e12, help: 'use only the first N test examples', group: data },
  { name: 'stream', type: 'flag', help: 'read horse records from disk per oracle call (default: when the set exceeds 1 GiB)', group: data },
  { name: 'in-memory', type: 'flag', help: 'load every horse record into memory', group: data },
];

const scoring = 'Scoring backend and threads of the batched decodes';
export const BACKEND_OPTIONS: readonly CommandOption[] = [
  { name: 'threads', type: 'integer', value: 'N', min: 1, max: MAX_THREADS, help: 'native threads of exact passes and mini-batch decodes (results do not depend on it)', default: 'every core', group: scoring },
  { name: 'backend', type: 'choice', value: 'B', choices: [...BACKEND_CHOICES], help: 'auto calibrates once per machine and caches the fastest correct one; js also decodes in TypeScript', default: 'auto', group: scoring },
  { name: 'gpu-mode', type: 'choice', value: 'MODE', choices: [...GPUJS_MODES], help: 'gpu.js mode for --backend gpujs', default: 'gpu (the best found)', group: scoring },
];

const output = 'Output';
/** --json and --quiet, shared by every command. */
export const REPORT_OPTIONS: readonly CommandOption[] = [
  { name: 'json', type: 'flag', help: 'the last line of stdout is one JSON object (camelCase keys)', group: output },
  { name: 'quiet', type: 'flag', help: 'no progress on stderr', group: output },
  { name: 'help', type: 'flag', short: 'h', help: "this command's options", group: output },
];

/**
 * The tasks' own options that a command takes, each listed under its data kinds: `train` (building a model: train,
 * path), `model` (reading data for a trained model: eval, gap) or `predict`.
 */
export function taskOptionTable(command: 'train' | 'model' | 'predict'): CommandOption[] {
  return taskOptions()
    .filter((o) => o.use === undefined || o.use === command)
    .map((o) => ({ ...o, group: `${o.tasks?.join(', ') ?? 'task'} data` }));
}

/**
 * Load options of a data set from the parsed flags: the generic data flags and the task's own options (an option
 * of another task is refused, naming it).
 */
export function loadOptions(a: Args, kind: DataKind): LoadOptions {
  const task = taskOf(kind);
  const own = new Set(task.options.map((o) => o.name));
  const values: Record<string, string | number | boolean | undefined> = {};
  for (const o of taskOptions()) {
    if (!a.given.has(o.name) || !a.command.options.some((c) => c.name === o.name)) continue;
    if (!own.has(o.name)) throw new UsageError(`--${o.name} applies to ${o.tasks?.join(' and ') ?? 'other'} data, not ${kind}`);
    values[o.name] = a.values[o.name];
  }
  if (value.flag(a, 'stream') && value.flag(a, 'in-memory')) throw new UsageError('--stream and --in-memory contradict each other');
  if ((a.given.has('stream') || a.given.has('in-memory')) && kind !== 'horse') throw new UsageError(`--stream and --in-memory apply to horse data, not ${kind}`);
  return {
    split: value.string(a, 'split'),
    test: value.string(a, 'test'),
    limit: value.number(a, 'limit'),
    testLimit: value.number(a, 'test-limit'),
    stream: value.flag(a, 'stream') ? true : value.flag(a, 'in-memory') ? false : undefined,
    values: values as OptionValues,
  };
}

/** `--backend`: `js` runs the TypeScript decoders and scoring, the others the native decoders. */
export function decodeBackend(a: Args): DecodeBackend {
  const backend = value.string(a, 'backend');
  if (a.given.has('gpu-mode') && (backend === 'native' || backend === 'js')) throw new UsageError(`--gpu-mode applies to the gpu.js backend (--backend gpujs or auto), not --backend ${backend}`);
  return backend === 'js' ? 'js' : 'native';
}

/**
 * The scoring backend of batched full passes for a model that has them (kernels/: `auto` calibrates once per
 * machine and caches the choice), with a report of what it runs on; nothing for other models.
 */
export function scoringOf(model: { prepareBatch?: unknown }, a: Args): { scoring?: ScoringBackend; report?: BackendReport } {
  if (typeof model.prepareBatch !== 'function') return {};
  const mode = value.string(a, 'gpu-mode');
  const { backend, report } = chooseBackend((value.string(a, 'backend') ?? 'auto') as BackendChoice, mode === undefined ? {} : { gpuMode: mode as GpuJsMode });
  return { scoring: backend, report };
}

/** Solver options from the flags, with the command's and the task's defaults under the user's choices. */
export function trainOptions(a: Args, defaults: { lambda?: number; gapThreshold?: number; maxPasses?: number }): TrainOptions {
  const name = value.string(a, 'solver') ?? 'bcfw';
  const step = STEP_OF[name];
  const solverName = (step ? 'bcfw' : name) as SolverName;
  const sampling = value.string(a, 'sampling');
  const cuttingPlane = solverName === 'cutting-plane';
  for (const flag of cuttingPlane ? ['sampling', 'averaging', 'no-averaging', 'no-line-search'] : []) {
    if (a.given.has(flag)) throw new UsageError(`--${flag} does not apply to the cutting plane`);
  }
  for (const flag of cuttingPlane ? [] : ['qp-tolerance', 'inactive-window']) {
    if (a.given.has(flag)) throw new UsageError(`--${flag} applies to --solver cutting-plane only`);
  }
  if (solverName === 'fw' && sampling !== undefined) throw new UsageError('--sampling does not apply to batch FW');
  for (const flag of solverName === 'fw' ? ['averaging', 'no-averaging'] : []) {
    if (a.given.has(flag)) throw new UsageError(`--${flag} does not apply to batch FW (it returns its last iterate)`);
  }
  if (solverName === 'ssg' && sampling === 'gap') throw new UsageError('--sampling gap needs a dual: use a block-coordinate solver');
  if (value.flag(a, 'averaging') && value.flag(a, 'no-averaging')) throw new UsageError('--averaging and --no-averaging contradict each other');
  if (value.flag(a, 'overlap') && value.flag(a, 'no-overlap')) throw new UsageError('--overlap and --no-overlap contradict each other');
  const cacheSet = ['cache-size', 'cache-f', 'cache-nu'].some((k) => a.given.has(k));
  if ((value.flag(a, 'cache') || cacheSet) && !step) throw new UsageError('--cache applies to the block-coordinate solvers (bcfw, bcpfw, bcafw, hybrid)');
  if (cacheSet && !value.flag(a, 'cache')) throw new UsageError('--cache-size, --cache-f and --cache-nu need --cache');
  for (const flag of ['batch', 'overlap', 'no-overlap']) {
    if (a.given.has(flag) && !step) throw new UsageError(`--${flag} applies to the block-coordinate solvers (bcfw, bcpfw, bcafw, hybrid)`);
  }
  const o: Record<string, unknown> = {
    solver: solverName,
    lambda: value.number(a, 'lambda') ?? defaults.lambda,
    gapThreshold: value.number(a, 'gap-threshold') ?? defaults.gapThreshold,
    gapCheck: value.number(a, 'gap-check'),
    maxPasses: value.number(a, 'max-passes') ?? defaults.maxPasses,
    timeBudget: value.number(a, 'time-budget'),
    seed: value.number(a, 'seed'),
    trainError: value.flag(a, 'train-error'),
  };
  if (solverName !== 'fw' && !cuttingPlane) o.sampling = sampling;
  if (solverName !== 'ssg' && !cuttingPlane) o.lineSearch = !value.flag(a, 'no-line-search');
  if (solverName !== 'fw' && !cuttingPlane) o.averaging = value.flag(a, 'averaging') ? true : value.flag(a, 'no-averaging') ? false : undefined;
  if (cuttingPlane) {
    o.qpTolerance = value.number(a, 'qp-tolerance');
    o.inactiveWindow = value.number(a, 'inactive-window');
  }
  if (step) {
    o.step = step;
    o.batch = value.number(a, 'batch');
    o.overlap = value.flag(a, 'overlap') ? true : value.flag(a, 'no-overlap') ? false : undefined;
    if (value.flag(a, 'cache')) {
      o.cache = { maxSize: value.number(a, 'cache-size') ?? 50, factor: value.number(a, 'cache-f') ?? 0.25, nu: value.number(a, 'cache-nu') ?? 0.01 };
    }
  }
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o as TrainOptions;
}
