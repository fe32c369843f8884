/**
 * The option groups the commands share (solver, data, scoring backend, output), declared once, and their
 * translation into library options (TrainOptions, load options).
 * @module
 */
import { BACKEND_CHOICES, GPUJS_MODES, chooseBackend, type BackendChoice, type BackendReport, type GpuJsMode, type ScoringBackend } from '../../kernels/index.js';
import type { DecodeBackend } from '../models/chain.js';
import { SETTINGS, SOLVERS, validateSettings, type StepType, type TrainSettings } from '../solvers/settings.js';
import { settingName, type SettingSpec } from '../core/settings.js';
import { MAX_THREADS } from '../native/threads.js';
import { taskOf, taskOptions } from '../tasks/index.js';
import type { DataKind, LoadOptions, OptionValues } from '../tasks/types.js';
import { value, type Args, type CommandOption } from './args.js';
import { UsageError } from './common.js';

/** CLI solver names: the block-coordinate variants are one engine with a step type (`bcpfw` = `bcfw --step pairwise`). */
export const STEP_OF: Readonly<Record<string, StepType>> = { bcfw: 'fw', bcpfw: 'pairwise', bcafw: 'away', hybrid: 'hybrid', exact: 'exact' };
export const CLI_SOLVERS = [...Object.keys(STEP_OF), ...SOLVERS.filter((s) => s !== 'bcfw')];

/** Help of the flags that turn a setting off. */
const NEGATION_HELP: Readonly<Record<string, string>> = {
  'no-line-search': 'the fixed step 2n/(k+2n) (bcfw) or 2/(k+2) (fw) instead of line search',
  'no-averaging': 'return the last iterate',
  'no-overlap': 'decode each mini-batch before its updates',
  'no-shrinking': 'visit every block of each pass\'s permutation',
};

/**
 * The CLI rows of the settings that have a flag (src/solvers/settings.ts): a boolean is a flag (and its negation,
 * when it has one), a choice or number takes a value with the table's range; `--solver` also takes the
 * block-coordinate variants' names.
 */
export function settingOptions(table: readonly SettingSpec[], group: string, solvers: readonly string[] = CLI_SOLVERS): CommandOption[] {
  return table.flatMap((o): CommandOption[] => {
    const rows: CommandOption[] = [];
    if (o.flag && o.type === 'boolean') rows.push({ name: o.flag, type: 'flag', help: o.help, default: o.default === 'off' ? undefined : o.default, group });
    else if (o.flag && o.type === 'choice') rows.push({ name: o.flag, type: 'choice', value: o.value, choices: o.key === 'solver' ? solvers : o.choices!, help: o.help, default: o.default, group });
    else if (o.flag) rows.push({ name: o.flag, type: o.type as 'number' | 'integer', value: o.value, min: o.min, max: o.max, minExclusive: o.minExclusive, help: o.help, default: o.default, group });
    if (o.negation) rows.push({ name: o.negation, type: 'flag', help: NEGATION_HELP[o.negation] ?? `turns ${settingName(o)} off`, group });
    return rows;
  });
}

/**
 * The solver options of every training command (train, demo, path), generated from the settings table; `--lambda`
 * also takes `auto` on the command line (train: chosen on held-out data, src/cli/lambda-auto.ts).
 */
export const SOLVER_OPTIONS: readonly CommandOption[] = settingOptions(SETTINGS, 'Solver').map((o) =>
  o.name === 'lambda' ? { ...o, value: 'X|auto', words: ['auto'], help: `${o.help}; train: auto = the best on --dev or --dev-fraction (--lambda-search)` } : o,
);

/** By default, evaluations are at least this many test sets' worth of oracle calls apart (about a tenth of the oracle work). */
const EVALUATION_SHARE_INVERSE = 10;

/** When training evaluates its test set (a hook's cadence, SolverHooks.evaluateEvery: not a solver setting). */
export const EVALUATION_OPTIONS: readonly CommandOption[] = [
  {
    name: 'eval-every', type: 'integer', value: 'N', min: 1, max: 1e9, group: 'Solver',
    help: 'evaluate the test set (and --train-error) at the gap checks at least N passes apart (1: every check); the final model is always evaluated',
    default: `auto: at least --gap-check passes and ${EVALUATION_SHARE_INVERSE} x the test set's size in oracle calls apart, so that evaluation costs about a tenth of the training oracle work`,
  },
];

/**
 * Which gap checks evaluate the test set (SolverHooks.evaluateEvery): `--eval-every N` passes apart, or by default at
 * least `gapCheck` passes and 10 test sets' worth of oracle calls apart.
 */
export function evaluationCadence(a: Args, gapCheck: number, testSize: number): { passes: number; oracleCalls?: number } {
  const every = value.number(a, 'eval-every');
  return every !== undefined ? { passes: every } : { passes: gapCheck, oracleCalls: EVALUATION_SHARE_INVERSE * testSize };
}

const data = 'Data';
/** Options of commands that read a `KIND:PATH` data set. */
export const DATA_OPTIONS: readonly CommandOption[] = [
  { name: 'split', type: 'string', value: 'S', help: 'a standard split: ocr small | large | all | fold:K, lsp small | full', default: 'small', group: data },
  { name: 'test', type: 'string', value: 'KIND:PATH', input: true, help: 'a separate test set of the same kind (ocr, libsvm, idx, conll, graph, multilabel)', group: data },
  { name: 'limit', type: 'integer', value: 'N', min: 1, max: 1e12, help: 'use only the first N training examples', group: data },
  { name: 'test-limit', type: 'integer', value: 'N', min: 1, max: 1e12, help: 'use only the first N test examples', group: data },
  { name: 'stream', type: 'flag', help: 'read horse records from disk per oracle call (default: when the set exceeds 1 GiB)', group: data },
  { name: 'in-memory', type: 'flag', help: 'load every horse record into memory', group: data },
];

const scoring = 'Scoring backend and threads of the batched decodes';
export const BACKEND_OPTIONS: readonly CommandOption[] = [
  { name: 'threads', type: 'integer', value: 'N', min: 1, max: MAX_THREADS, help: 'native threads of exact passes and mini-batch decodes; they change only the speed: a seed and a command give the same trace and model on 1 or 64 cores', default: 'every core', group: scoring },
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

/** `a`, `a and b`, `a, b and c`. */
function inWords(items: readonly string[]): string {
  return items.length <= 2 ? items.join(' and ') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
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
    if (!own.has(o.name)) throw new UsageError(`--${o.name} applies to ${o.tasks ? inWords(o.tasks) : 'other'} data, not ${kind}`);
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

/** The defaults of a command and its task under the user's flags (Task.defaults). */
export interface TrainDefaults {
  lambda?: number;
  gapThreshold?: number;
  maxPasses?: number;
  /** A CLI solver name (STEP_OF's aliases included), taken when neither --solver nor --step is given. */
  solver?: string;
  /** Taken with the task's default solver only. */
  sampling?: 'uniform' | 'perm' | 'gap';
}

/** The CLI name of the settings' solver: the block-coordinate step's alias (bcpfw, exact, ...), else the solver. */
export function solverName(settings: TrainSettings): string {
  const solver = settings.solver ?? 'bcfw';
  if (solver !== 'bcfw') return solver;
  const step = settings.step ?? 'fw';
  return Object.keys(STEP_OF).find((name) => STEP_OF[name] === step)!;
}

/**
 * The solver settings of the flags, with the command's and the task's defaults under the user's choices, checked by
 * the library's validator (so the CLI and the library refuse the same things in the same words). Only the rules that
 * are about flags themselves live here: a flag and its negation together, cache parameters without `--cache`, and
 * `--solver bcpfw` (a step) with another `--step`.
 */
export function trainSettings(a: Args, defaults: TrainDefaults): TrainSettings {
  for (const o of SETTINGS) {
    if (o.flag && o.negation && a.given.has(o.flag) && a.given.has(o.negation)) throw new UsageError(`--${o.flag} and --${o.negation} contradict each other`);
  }
  const cacheFlags = SETTINGS.filter((o) => o.key.startsWith('cache.') && o.flag !== undefined);
  if (cacheFlags.some((o) => a.given.has(o.flag!)) && !a.given.has('cache')) throw new UsageError(`${cacheFlags.map((o) => `--${o.flag}`).join(', ')} need --cache`);
  const s: Record<string, unknown> = {};
  const cache: Record<string, unknown> = {};
  for (const o of SETTINGS) {
    let v: unknown;
    if (o.flag && a.given.has(o.flag)) v = o.type === 'boolean' ? true : a.values[o.flag];
    else if (o.negation && a.given.has(o.negation)) v = false;
    if (v === undefined) continue;
    if (o.key.startsWith('cache.')) cache[o.key.slice('cache.'.length)] = v;
    else s[o.key] = v;
  }
  if (s.cache === true && Object.keys(cache).length > 0) s.cache = cache;
  // The task's solver (multiclass: exact steps with perm sampling and shrinking) unless the flags choose one.
  if (s.solver === undefined && s.step === undefined && defaults.solver !== undefined) {
    s.solver = defaults.solver;
    s.sampling ??= defaults.sampling;
  }
  const name = (s.solver as string | undefined) ?? 'bcfw';
  const aliasStep = STEP_OF[name];
  if (aliasStep !== undefined) {
    s.solver = 'bcfw';
    if (name !== 'bcfw') {
      if (s.step !== undefined && s.step !== aliasStep) throw new UsageError(`--solver ${name} is --step ${aliasStep}: it contradicts --step ${String(s.step)}`);
      s.step = aliasStep;
    }
  }
  s.lambda ??= defaults.lambda;
  s.gapThreshold ??= defaults.gapThreshold;
  s.maxPasses ??= defaults.maxPasses;
  for (const k of Object.keys(s)) if (s[k] === undefined) delete s[k];
  validateSettings(s as TrainSettings);
  return s as TrainSettings;
}
