import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { InputError } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { BcfwSolver, type BcfwOptions } from './bcfw.js';
import { CuttingPlaneSolver, type CuttingPlaneOptions } from './cutting-plane.js';
import { FwSolver, type FwOptions } from './fw.js';
import { SsgSolver, type SsgOptions } from './ssg.js';
import type { PassSolver, SolverCheckpoint, SolverResult } from './common.js';

/**
 * Solvers selectable with `TrainOptions.solver`: block-coordinate FW (with every 2016 switch), batch FW, stochastic
 * subgradient, the 1-slack cutting plane.
 */
export type SolverName = 'bcfw' | 'fw' | 'ssg' | 'cutting-plane';
/** The values of {@link SolverName}, in order (for CLI validation and help). */
export const SOLVERS: readonly SolverName[] = ['bcfw', 'fw', 'ssg', 'cutting-plane'];

/** Options of `train`: the solver's name plus that solver's options. */
export type TrainOptions = ({ solver?: 'bcfw' } & BcfwOptions) | ({ solver: 'fw' } & FwOptions) | ({ solver: 'ssg' } & SsgOptions)
  | ({ solver: 'cutting-plane' } & CuttingPlaneOptions);

/** A solver instance, optionally resumed from a checkpoint of the same solver and settings. */
export function createSolver(problem: Problem, options: TrainOptions = {}, resume?: SolverCheckpoint): PassSolver {
  switch (options.solver ?? 'bcfw') {
    case 'bcfw':
      return new BcfwSolver(problem, options as BcfwOptions, resume);
    case 'fw':
      return new FwSolver(problem, options as FwOptions, resume);
    case 'ssg':
      return new SsgSolver(problem, options as SsgOptions, resume);
    case 'cutting-plane':
      return new CuttingPlaneSolver(problem, options as CuttingPlaneOptions, resume);
    default:
      throw new InputError(`unknown solver '${String(options.solver)}' (one of ${SOLVERS.join(', ')})`);
  }
}

/** Trains a structural SVM on `problem` with the chosen solver (default BCFW with line search and averaging). */
export function train(problem: Problem, options: TrainOptions = {}): SolverResult {
  const solver = createSolver(problem, options);
  while (solver.runPass());
  return solver.result();
}

/** Extra settings of {@link trainAsync}: resuming and periodic checkpoints. */
export interface AsyncTrainOptions {
  /** Continue a run from this checkpoint (same solver and settings). */
  resume?: SolverCheckpoint;
  /**
   * Called with a checkpoint every `checkpointEvery` passes and when the run stops (then the state where it stopped,
   * inside a pass if a stop interrupted one, before the exact pass that certified the result: see PassSolver.resumePoint).
   */
  onCheckpoint?: (checkpoint: SolverCheckpoint) => void | Promise<void>;
  /** Passes between checkpoints. Default 10. */
  checkpointEvery?: number;
}

/**
 * `train` that yields to the event loop after every pass, between the chunks of every exact pass and every
 * few tens of milliseconds of block steps, so progress can be drawn and an AbortSignal (e.g. from Ctrl-C)
 * stops the run promptly (`signal`: stop and certify; `passSignal`: abandon an exact pass, no certificate);
 * checkpoints can be taken between passes and a run resumed exactly (same seed, same trace).
 */
export async function trainAsync(problem: Problem, options: TrainOptions = {}, extra: AsyncTrainOptions = {}): Promise<SolverResult> {
  const solver = createSolver(problem, options, extra.resume);
  const every = extra.checkpointEvery ?? 10;
  if (!(Number.isInteger(every) && every >= 1)) throw new InputError(`checkpointEvery must be a positive integer, got ${every}`);
  let sinceCheckpoint = 0;
  while (await solver.runPassAsync()) {
    if (extra.onCheckpoint && ++sinceCheckpoint >= every) {
      sinceCheckpoint = 0;
      await extra.onCheckpoint(solver.checkpoint());
    }
    await yieldToEventLoop();
  }
  // Where the run stopped, before the certificate of its returned iterate: a resumed run goes on as one that never stopped.
  await extra.onCheckpoint?.(solver.resumePoint());
  return solver.result();
}
