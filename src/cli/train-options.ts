import type { ParseArgsConfig } from 'node:util';
import type { DecodeBackend } from '../models/chain.js';
import { BACKEND_CHOICES, GPUJS_MODES, chooseBackend, type BackendChoice, type BackendReport, type GpuJsMode, type ScoringBackend } from '../../kernels/index.js';
import { SOLVERS, type SolverName, type TrainOptions } from '../solvers/index.js';
import type { StepType } from '../solvers/bcfw.js';
import { UsageError, integer, nonNegative, number, positive, type ParsedArgs } from './common.js';

/** Training flags shared by `train`, `demo` and `path`, and their translation into solver options. */

/** CLI solver names: the block-coordinate variants are one engine with a step type. */
export const STEP_OF: Record<string, StepType> = { bcfw: 'fw', bcpfw: 'pairwise', bcafw: 'away', hybrid: 'hybrid' };
export const CLI_SOLVERS = ['bcfw', 'bcpfw', 'bcafw', 'hybrid', ...SOLVERS.filter((s) => s !== 'bcfw')];

/** The solver flags, shared by every command that trains (train, demo, path, align train). */
export const SOLVER_OPTIONS = {
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
} as const satisfies ParseArgsConfig['options'];

export const TRAIN_OPTIONS = {
  ...SOLVER_OPTIONS,
  'train-error': { type: 'boolean' },
  backend: { type: 'string' },
  'gpu-mode': { type: 'string' },
  split: { type: 'string' },
  test: { type: 'string' },
  'min-frequency': { type: 'string' },
  limit: { type: 'string' },
  stream: { type: 'boolean' },
  'in-memory': { type: 'boolean' },
  out: { type: 'string' },
  trace: { type: 'string' },
  checkpoint: { type: 'string' },
  'checkpoint-every': { type: 'string' },
  resume: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/**
 * `--backend auto|native|gpujs|js` (default auto): `js` runs the TypeScript decoders and scoring, the others
 * the native decoders. Throws a UsageError on an unknown name.
 */
export function backendOf(value: string | undefined): DecodeBackend {
  if (value !== undefined && !(BACKEND_CHOICES as readonly string[]).includes(value)) {
    throw new UsageError(`--backend must be one of ${BACKEND_CHOICES.join(', ')}, got '${value}'`);
  }
  return value === 'js' ? 'js' : 'native';
}

/**
 * The scoring backend of batched full passes for a model that has them (kernels/: `auto` calibrates once
 * per machine and caches the choice), with a report of what it runs on; nothing for other models.
 */
export function scoringOf(
  model: { prepareBatch?: unknown },
  value: string | undefined,
  gpuMode: string | undefined,
): { scoring?: ScoringBackend; report?: BackendReport } {
  backendOf(value);
  if (gpuMode !== undefined && !(GPUJS_MODES as readonly string[]).includes(gpuMode)) {
    throw new UsageError(`--gpu-mode must be one of ${GPUJS_MODES.join(', ')}, got '${gpuMode}'`);
  }
  if (typeof model.prepareBatch !== 'function') return {};
  const { backend, report } = chooseBackend((value ?? 'auto') as BackendChoice, gpuMode === undefined ? {} : { gpuMode: gpuMode as GpuJsMode });
  return { scoring: backend, report };
}

export type TrainValues = ParsedArgs<typeof TRAIN_OPTIONS>['values'];

export function trainOptions(v: TrainValues, defaults: { lambda?: number; gapThreshold?: number }): TrainOptions {
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

