import { check } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { BcfwSolver, type BcfwHooks } from '../solvers/bcfw.js';
import type { SolverCheckpoint } from '../solvers/common.js';
import { validateSettings } from '../solvers/settings.js';
import { runSteps, runStepsAsync, type PathSolverSettings } from './regpath.js';

/** Settings of {@link gridSearch}. */
export interface GridOptions {
  /** Values of lambda, solved in decreasing order. Default 2^15, 2^14, ..., 2^-15 (the paper's grid). */
  lambdas?: number[];
  /** Gap threshold at every lambda. Default 0.1. */
  epsilon?: number;
  /** How each solve starts: from the previous lambda's solution ('keep-primal', 'keep-dual') or cold ('none'). Default 'keep-primal'. */
  warmStart?: 'keep-primal' | 'keep-dual' | 'none';
  /** BCFW settings. Default: BCPFW with gap sampling and caching. */
  solver?: PathSolverSettings;
  /** Passes allowed per lambda. Default 1000. */
  maxPasses?: number;
  /** Wall-clock budget for the whole grid, seconds. Default Infinity. */
  timeBudget?: number;
  /** Called after every lambda of the grid is solved. */
  onPoint?: (p: GridPoint) => void;
  /** Stops the grid after the current pass (the lambda being solved is reported with stopReason 'aborted'). */
  signal?: AbortSignal;
}

/** The solution at one lambda of a grid search, with its certificate and cost. */
export interface GridPoint {
  lambda: number;
  w: Float64Array;
  gap: number;
  gapIsExact: boolean;
  stopReason: string;
  passes: number;
  /** Cumulative over the grid so far. */
  effectivePasses: number;
  seconds: number;
}

/** The paper's grid 2^15, ..., 2^-15. */
export const PAPER_GRID: readonly number[] = Array.from({ length: 31 }, (_, k) => 2 ** (15 - k));

/** Grid search over lambda with or without warm start (the baseline of the 2016 paper's Fig. 4 and App. K). */
export function gridSearch(problem: Problem, options: GridOptions = {}): GridResult {
  return runSteps(gridSteps(problem, options));
}

/** {@link gridSearch} yielding to the event loop after every solver pass (signals and progress get through; `options.signal` stops it). */
export function gridSearchAsync(problem: Problem, options: GridOptions = {}): Promise<GridResult> {
  return runStepsAsync(gridSteps(problem, options));
}

/** The points of a grid search and its total cost. */
export interface GridResult {
  points: GridPoint[];
  effectivePasses: number;
  seconds: number;
}

function* gridSteps(problem: Problem, options: GridOptions): Generator<void, GridResult> {
  const lambdas = [...(options.lambdas ?? PAPER_GRID)].sort((a, b) => b - a);
  check(lambdas.length > 0 && lambdas.every((l) => l > 0 && Number.isFinite(l)), 'lambdas must be positive numbers');
  const epsilon = options.epsilon ?? 0.1;
  const mode = options.warmStart ?? 'keep-primal';
  check(['keep-primal', 'keep-dual', 'none'].includes(mode), `unknown warm start '${mode}'`);
  const solverSettings: PathSolverSettings = options.solver ?? { step: 'pairwise', sampling: 'gap', cache: true };
  validateSettings({ ...solverSettings, solver: 'bcfw' });
  const timeBudget = options.timeBudget ?? Infinity;
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  let oracleCalls = 0;
  let from: SolverCheckpoint | undefined;
  const points: GridPoint[] = [];
  for (const lambda of lambdas) {
    const left = timeBudget - seconds();
    if (left <= 0 || options.signal?.aborted) break;
    const hooks: BcfwHooks = { signal: options.signal, ...(from && mode !== 'none' ? { warmStart: { from, mode } } : {}) };
    const solver = new BcfwSolver(problem, { ...solverSettings, lambda, gapThreshold: epsilon, maxPasses: options.maxPasses ?? solverSettings.maxPasses ?? 1000, timeBudget: left }, hooks);
    while (solver.runPass()) yield;
    const r = solver.result();
    oracleCalls += r.oracleCalls;
    const p: GridPoint = {
      lambda, w: r.w, gap: r.gap!, gapIsExact: r.gapIsExact, stopReason: r.stopReason, passes: r.passes,
      effectivePasses: oracleCalls / problem.n, seconds: seconds(),
    };
    points.push(p);
    options.onPoint?.(p);
    if (mode !== 'none') from = solver.checkpoint();
  }
  return { points, effectivePasses: oracleCalls / problem.n, seconds: seconds() };
}
