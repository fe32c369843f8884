/**
 * The settings of the multiclass Frank-Wolfe solvers (Liu & Tsang 2017), declared once like the SSVM solvers'
 * (src/solvers/settings.ts): {@link validateMcfwSettings} runs in `trainMulticlassFw` and the `multiclass-fw`
 * command's flags are generated from {@link MCFW_SETTINGS}, so both refuse the same things in the same words.
 * @module
 */
import { OptionError } from '../core/errors.js';
import { checkSettings, settingName, type SettingSpec } from '../core/settings.js';
import { SEED_MAX } from '../solvers/settings.js';

/** Solvers of `trainMulticlassFw`: approximate FW (Liu & Tsang 2017), batch FW, stochastic FW, SVRF. */
export const MCFW_SOLVERS = ['afw', 'fw', 'sfw', 'svrf'] as const;
/** One of {@link MCFW_SOLVERS}. */
export type McfwSolverName = (typeof MCFW_SOLVERS)[number];

/** Settings of `trainMulticlassFw` (plain data; callbacks and starting points are {@link McfwHooks}). */
export interface McfwSettings {
  solver: McfwSolverName;
  /** Radius of the nuclear-norm ball. */
  tau: number;
  /** `default`: 2/(t+1); `line-search`: exact line search on the (surrogate) objective (fw and afw only). */
  step?: 'default' | 'line-search';
  /** Cap on FW iterations. Default 500 when neither maxPasses nor timeBudget is given, else unlimited. */
  maxIterations?: number;
  /** Cap on effective passes (gradient evaluations / n). Default unlimited. */
  maxPasses?: number;
  /** Solver-time budget in seconds (evaluations excluded), on the `clock`. Default unlimited. */
  timeBudget?: number;
  /** Clock of `timeBudget`: 'wall' (`seconds`, default) or 'cpu' (`cpuSeconds`, robust to a busy machine). */
  clock?: 'wall' | 'cpu';
  /** Seed of every random choice (samples, hash projection, LMO start vectors). Default 1. */
  seed?: number;
  /** Mini-batch scale c: SFW draws ceil(c t^2) points at round t, SVRF ceil(c k) at inner step k. Default 1. */
  batchScale?: number;
  /** SVRF: step 2/(t+1) with the global iteration count instead of restarting k each epoch. Default false. */
  svrfGlobalStep?: boolean;
  /** AFW: initial bins per class. Default 100. */
  k0?: number;
  /** AFW: bins with more than delta points are split. Default 10. */
  delta?: number;
  /** AFW: split every nu iterations. Default 50. */
  nu?: number;
  /** Power-iteration tolerance of the LMO (relative eigen-residual). Default 1e-9. */
  lmoTolerance?: number;
  /** Power-iteration cap per LMO call (then the dense Jacobi fallback for K <= 256). Default 500. */
  lmoMaxIterations?: number;
  /** Evaluate the full objective and gap every this many iterations, or 'log' (0..10, then x evalFactor). Default 'log'. */
  evalEvery?: number | 'log';
  /** Growth factor of the 'log' evaluation schedule (> 1). Default 1.1. */
  evalFactor?: number;
  /** Known optimum F*: events get `residual` = F(W) - F*. */
  optimum?: number;
  /** Stop at an evaluation where F(W) <= targetObjective. */
  targetObjective?: number;
  /** Stop at an evaluation where the FW gap is <= gapThreshold. Default 0 (never). */
  gapThreshold?: number;
  /**
   * Which iterate to return: `last`, or `best` = the evaluated iterate of lowest objective (the trace is the
   * same either way). Default `best` for svrf (see src/multiclass-fw/solvers.ts), `last` for the others.
   */
  returned?: 'best' | 'last';
}

const FW = 'Frank-Wolfe';
const AFW = 'Approximate FW (afw)';

/** Every multiclass-FW setting. */
export const MCFW_SETTINGS: readonly SettingSpec<McfwSolverName>[] = [
  { key: 'tau', flag: 'tau', type: 'number', value: 'X', min: 0, minExclusive: true, max: 1e6, default: '(required)', section: FW, help: 'radius of the nuclear-norm ball (required)' },
  { key: 'solver', flag: 'solver', type: 'choice', choices: MCFW_SOLVERS, value: 'NAME', default: 'afw', section: FW, help: 'afw (approximate FW) | fw (full) | sfw (stochastic, batch t^2) | svrf (batch t)' },
  { key: 'step', type: 'choice', choices: ['default', 'line-search'], default: 'default', section: FW, solvers: ['fw', 'afw'], help: 'default: 2/(t+1); line-search: exact line search (--line-search)' },
  { key: 'maxIterations', flag: 'max-iterations', type: 'integer', value: 'N', min: 0, max: 1e9, default: '500 unless --max-passes or --time-budget', section: FW, help: 'cap on iterations' },
  { key: 'maxPasses', flag: 'max-passes', type: 'number', value: 'P', min: 0, minExclusive: true, max: 1e9, default: 'unlimited', section: FW, help: 'cap on effective passes (per-point gradient evaluations / n)' },
  { key: 'timeBudget', flag: 'time-budget', type: 'number', value: 'SECONDS', min: 0, minExclusive: true, max: 1e9, default: 'unlimited', section: FW, help: 'cap on solver time (evaluations excluded; AFW hashing included)' },
  { key: 'clock', flag: 'clock', type: 'choice', choices: ['wall', 'cpu'], value: 'C', default: 'wall', section: FW, help: 'clock of --time-budget' },
  { key: 'seed', flag: 'seed', type: 'integer', value: 'N', min: 0, max: SEED_MAX, default: '1', section: FW, help: 'seed of sampling, hashing and the LMO start vectors' },
  { key: 'batchScale', flag: 'batch-scale', type: 'number', value: 'C', min: 0, minExclusive: true, max: 1e6, default: '1', section: FW, solvers: ['sfw', 'svrf'], help: 'SFW batch ceil(C t^2), SVRF batch ceil(C k)' },
  { key: 'svrfGlobalStep', flag: 'svrf-global-step', type: 'boolean', default: 'off', section: FW, solvers: ['svrf'], help: 'SVRF step 2/(t+1) over all iterations instead of restarting 2/(k+1) each epoch' },
  { key: 'k0', flag: 'k0', type: 'integer', value: 'N', min: 1, max: 1e9, default: '100', section: AFW, solvers: ['afw'], help: 'initial bins per class' },
  { key: 'delta', flag: 'delta', type: 'integer', value: 'N', min: 0, max: 1e9, default: '10', section: AFW, solvers: ['afw'], help: 'split bins holding more than delta points' },
  { key: 'nu', flag: 'nu', type: 'integer', value: 'N', min: 1, max: 1e9, default: '50', section: AFW, solvers: ['afw'], help: 'split every nu iterations' },
  { key: 'lmoTolerance', flag: 'lmo-tol', type: 'number', value: 'X', min: 0, minExclusive: true, max: 1, default: '1e-9', section: FW, help: 'power-iteration tolerance (relative eigen-residual)' },
  { key: 'lmoMaxIterations', flag: 'lmo-max-iterations', type: 'integer', value: 'N', min: 1, max: 1e9, default: '500', section: FW, help: 'power iterations per LMO call, then a dense fallback' },
  { key: 'evalEvery', type: 'integer', min: 1, max: 1e9, default: 'log', section: FW, alsoAccepts: (v) => v === 'log', help: 'full objective + FW gap every N iterations, or log: 0..10 then x evalFactor (--eval-every)' },
  { key: 'evalFactor', type: 'number', min: 1, minExclusive: true, max: 1e3, default: '1.1', section: FW, help: 'growth factor of the log evaluation schedule' },
  { key: 'optimum', flag: 'optimum', type: 'number', value: 'X', min: -1e300, max: 1e300, default: 'none', section: FW, help: 'known optimum: traces get residual = objective - X' },
  { key: 'targetObjective', flag: 'target', type: 'number', value: 'X', min: -1e300, max: 1e300, default: 'none', section: FW, help: 'stop when the full objective is <= X (checked at evaluations)' },
  { key: 'gapThreshold', flag: 'gap-threshold', type: 'number', value: 'X', min: 0, max: 1e300, default: '0 (never)', section: FW, help: 'stop when the Frank-Wolfe gap is <= X (checked at evaluations)' },
  { key: 'returned', type: 'choice', choices: ['best', 'last'], default: 'best for svrf, last otherwise', section: FW, help: 'which iterate to return: the last, or the evaluated iterate of lowest objective' },
];

/** Hooks and starting points: refused among settings with a pointer to where they go. */
const HOOK_KEYS = ['evaluate', 'onProgress', 'onIterate', 'signal', 'init', 'bins'];

/** "--k0 applies to afw", "--batch-scale applies to sfw and svrf". */
function refusal(o: SettingSpec<McfwSolverName>, value: unknown): string {
  const name = o.key === 'step' ? '--line-search' : settingName(o, value);
  return `${name} applies to ${o.solvers!.join(' and ')}`;
}

/** Checks multiclass-FW settings against {@link MCFW_SETTINGS}. @throws OptionError naming the setting by its CLI flag. */
export function validateMcfwSettings(settings: McfwSettings): void {
  const hook = Object.keys(settings).find((k) => HOOK_KEYS.includes(k) && (settings as unknown as Record<string, unknown>)[k] !== undefined);
  if (hook !== undefined) throw new OptionError(`${hook} is a hook, not a setting: pass it in the hooks, trainMulticlassFw(problem, settings, { ${hook} })`);
  if (settings.tau === undefined) throw new OptionError('--tau is required (the radius of the nuclear-norm ball)');
  if (!(MCFW_SOLVERS as readonly string[]).includes(settings.solver)) throw new OptionError(`--solver must be one of ${MCFW_SOLVERS.join(', ')}, got ${JSON.stringify(settings.solver)}`);
  checkSettings(MCFW_SETTINGS, settings, settings.solver, refusal);
}
