/**
 * The hooks, results and counters of block-coordinate Frank-Wolfe (src/solvers/bcfw.ts), in a file of their own so that
 * the solver's collaborators (block steps, state codec, native steps) share them without an import cycle.
 * @module
 */
import type { SolverCheckpoint, SolverHooks, SolverResult } from './common.js';

/**
 * The hooks and starting points of a BCFW run (besides {@link SolverHooks}): a warm start from another run's
 * checkpoint, a start at given corners (the regularization path), and a per-step observer.
 */
export interface BcfwHooks extends SolverHooks {
  /**
   * Start from the dual point of another run (a checkpoint of BCFW on the same problem, usually at another
   * lambda): 'keep-primal' keeps every w_i and rescales the weights of the non-ground-truth labels by
   * rho = lambda_new / lambda_old, so block gaps change by the known amount (1 - rho)(l_i - lambda w_i^T w)
   * (2016 paper, Prop. 1); 'keep-dual' keeps the weights and rescales w (gap estimates restart). Counters,
   * trace and averaging start afresh.
   */
  warmStart?: WarmStart;
  /**
   * Start from the dual point alpha_i = delta(labels[i]) (every block on one corner) instead of the ground
   * truth, with the given gap estimates (upper bounds; not exact). Used by the regularization path (Alg. 6).
   */
  start?: { labels: readonly unknown[]; gapEstimates?: Float64Array };
  /** Debugging hook called after every block step with the dual of the current (not averaged) iterate; costs O(d) per step (runs the TypeScript steps). */
  onStep?: (step: BlockStepInfo) => void;
}

/** Start a run at a new lambda from a checkpoint taken at another (2016 paper, Prop. 1 / App. I): keep the primal w (rescaling the dual) or keep the dual variables. */
export interface WarmStart {
  from: SolverCheckpoint;
  /** Default 'keep-primal'. */
  mode?: 'keep-primal' | 'keep-dual';
}

/** One block step of BCFW, reported to `BcfwHooks.onStep` (for tests and diagnostics). */
export interface BlockStepInfo {
  /** Steps done before this one. */
  k: number;
  block: number;
  /** 'none' when no move improved the dual; 'exact' for an exact block solve. */
  kind: 'fw' | 'away' | 'pairwise' | 'exact' | 'none';
  gamma: number;
  /** FW block gap g_i at the start of the step. */
  blockGap: number;
  cacheHit: boolean;
  /** Dual objective l - (lambda/2)||w||^2 after the step. */
  dual: number;
}

/** Counters of a BCFW run (cumulative). */
export interface BcfwCounters {
  cacheHits: number;
  fwSteps: number;
  awaySteps: number;
  pairwiseSteps: number;
  dropSteps: number;
  /** Steps where no move improved the dual. */
  nullSteps: number;
  /** Exact block solves (step 'exact'). */
  exactSteps: number;
  /** Blocks of a pass's permutation skipped by shrinking (no oracle call). */
  skippedBlocks: number;
}

/** BCFW result: per-block exact gaps are known when averaging is off (the blocks belong to the returned iterate). */
export interface BcfwResult extends SolverResult {
  blockGaps?: Float64Array;
  /** Blocks per step (tau). */
  batch: number;
  /** Whether mini-batches overlapped (TrainSettings.overlap). */
  overlap: boolean;
  /** Whether permutation passes skipped blocks whose gap estimate was 0 (TrainSettings.shrinking). */
  shrinking: boolean;
  counters: BcfwCounters;
  /** Labels stored over all blocks (dual variables and cache), when kept. */
  storedLabels?: number;
  /** Whether the block steps ran in native code (TrainSettings.native). */
  native: boolean;
}
