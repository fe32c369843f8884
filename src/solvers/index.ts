import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { InputError } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { BcfwSolver, type BcfwHooks } from './bcfw.js';
import { CuttingPlaneSolver } from './cutting-plane.js';
import { FwSolver } from './fw.js';
import { SsgSolver } from './ssg.js';
import type { PassSolver, SolverCheckpoint, SolverResult } from './common.js';
import { validateSettings, type TrainSettings } from './settings.js';

/**
 * The hooks and starting points of a run (callbacks, signals, warm start; not settings): those of the solvers, plus
 * resuming from a checkpoint and periodic checkpoints (trainAsync).
 */
export interface TrainHooks extends BcfwHooks {
  /** Continue a run from this checkpoint (same data, solver and settings): the same trace as one run. */
  resume?: SolverCheckpoint;
  /**
   * trainAsync: called with a checkpoint every `checkpointEvery` passes and when the run stops (then the state where
   * it stopped, inside a pass if a stop interrupted one, before the exact pass that certified the result: see
   * PassSolver.resumePoint).
   */
  onCheckpoint?: (checkpoint: SolverCheckpoint) => void | Promise<void>;
  /** trainAsync: passes between checkpoints. Default 10. */
  checkpointEvery?: number;
}

/** A solver instance for the settings (validated first), optionally resumed from `hooks.resume`. */
export function createSolver(problem: Problem, settings: TrainSettings = {}, hooks: TrainHooks = {}): PassSolver {
  validateSettings(settings);
  const { resume } = hooks;
  switch (settings.solver ?? 'bcfw') {
    case 'bcfw':
      return new BcfwSolver(problem, settings, hooks, resume);
    case 'fw':
      return new FwSolver(problem, settings, hooks, resume);
    case 'ssg':
      return new SsgSolver(problem, settings, hooks, resume);
    case 'cutting-plane':
      return new CuttingPlaneSolver(problem, settings, hooks, resume);
  }
}

/** Trains a structural SVM on `problem` with the chosen solver (default BCFW with line search and averaging). */
export function train(problem: Problem, settings: TrainSettings = {}, hooks: TrainHooks = {}): SolverResult {
  const solver = createSolver(problem, settings, hooks);
  while (solver.runPass());
  return solver.result();
}

/**
 * `train` that yields to the event loop after every pass, between the chunks of every exact pass and every
 * few tens of milliseconds of block steps, so progress can be drawn and an AbortSignal (e.g. from Ctrl-C)
 * stops the run promptly (`signal`: stop and certify; `passSignal`: abandon an exact pass, no certificate);
 * checkpoints can be taken between passes and a run resumed exactly (same seed, same trace).
 */
export async function trainAsync(problem: Problem, settings: TrainSettings = {}, hooks: TrainHooks = {}): Promise<SolverResult> {
  const every = hooks.checkpointEvery ?? 10;
  if (!(Number.isInteger(every) && every >= 1)) throw new InputError(`checkpointEvery must be a positive integer, got ${every}`);
  const solver = createSolver(problem, settings, hooks);
  let sinceCheckpoint = 0;
  while (await solver.runPassAsync()) {
    if (hooks.onCheckpoint && ++sinceCheckpoint >= every) {
      sinceCheckpoint = 0;
      await hooks.onCheckpoint(solver.checkpoint());
    }
    await yieldToEventLoop();
  }
  // Where the run stopped, before the certificate of its returned iterate: a resumed run goes on as one that never stopped.
  await hooks.onCheckpoint?.(solver.resumePoint());
  return solver.result();
}
