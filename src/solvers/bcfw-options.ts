/**
 * The options, results and counters of block-coordinate Frank-Wolfe (src/solvers/bcfw.ts), in a file of their own so that
 * the solver's collaborators (block steps, state codec, native steps) share them without an import cycle.
 * @module
 */
import type { CommonSolverOptions, SolverCheckpoint, SolverResult } from './common.js';

/** Block order: uniform with replacement, a fresh permutation per pass, or proportional to gap estimates. */
export type Sampling = 'uniform' | 'perm' | 'gap';
/**
 * Which moves a block step may take: FW only (BCFW), pairwise only (BCPFW), FW or away (BCAFW), the best of all three,
 * or 'exact': the block's subproblem solved exactly over its few corners (multiclass: its K classes, Keerthi et al.
 * 2008, i.e. LIBLINEAR -s 4) or its working set (the stored labels and the oracle's corner; MP-BCFW's approximate
 * passes, Shah et al. 2015).
 */
export type StepType = 'fw' | 'pairwise' | 'away' | 'hybrid' | 'exact';

/** Gap-based caching (2016 paper, Alg. 5). */
export interface CacheOptions {
  /** F of the local criterion: hit iff the cached corner's block gap >= F * g_i. Default 0.25. */
  factor?: number;
  /** nu of the global criterion: hit iff the cached corner's block gap >= nu * G / n. Default 0.01. */
  nu?: number;
  /** Labels kept per block (active atoms are never evicted with away/pairwise steps). Default 50. */
  maxSize?: number;
  /** G before the first exact pass (1 is valid for losses <= 1; Infinity disables the global part). Default 1. */
  initialGap?: number;
  /**
   * Serve cached corners only while they pay: while the recent cache hits gain at least as much dual per unit of work
   * as the recent oracle steps, work counted in the model's operations (StructuredModel.stepCost; deterministic, so a
   * seed still gives one trace on any machine). A cheap oracle (OCR's dense chains) then keeps the cache mostly shut, a
   * costly one (CoNLL's sparse chains) open, as MP-BCFW's rule does with time (Shah et al. 2015). Models without
   * costs count their oracle as costly (Alg. 5 unchanged). false: Alg. 5 alone. Default true (a resumed run: the
   * checkpoint's; checkpoints before it: false).
   */
  adaptive?: boolean;
}

export interface BcfwOptions extends CommonSolverOptions {
  /** Default 'uniform'. 'gap' draws block i with probability proportional to its gap estimate^gapDegree (Alg. 2). */
  sampling?: Sampling;
  /** Exponent p of gap sampling. Default 1. */
  gapDegree?: number;
  /** Default 'fw'. Anything else keeps explicit dual variables per block. */
  step?: StepType;
  /** Caching of oracle answers; `true` for the defaults. Default off. */
  cache?: boolean | CacheOptions;
  /**
   * Blocks per step (tau; mini-batches as in Wang et al. 2016, AP-BCFW): a step samples tau distinct blocks,
   * serves the cache hits, decodes the misses together at the current w on native threads
   * (Problem.batch.decodeSubset), then applies the tau updates one after another in sampled order, each with
   * line search at the iterate it is applied to (a corner found at a slightly older w is still a feasible
   * direction, and the dual never decreases). 1 is the sequential algorithm. At most n. Default:
   * {@link defaultBatch} of the threads, n and whether mini-batches pay off on the problem (a batched oracle,
   * and Problem.miniBatches or a decoder that works in the background; a resumed run: the checkpoint's).
   * Results depend on tau, not on threads.
   */
  batch?: number;
  /**
   * Overlapped mini-batches (tau > 1): the next mini-batch of the pass is sampled and decoded at the current w
   * while this one's updates are applied, on a native thread of its own where the model's batched decoder
   * allows it (BatchDecoder.decodeInBackground: dense chains, pose), so the oracle calls and the updates run at
   * the same time; every corner is then one mini-batch older (still feasible, and the line search keeps the
   * dual monotone). Results depend on it, not on threads: on one thread the decode just runs first. Default:
   * on with tau > 1 when the decoder works in the background and the oracle is cheap (not Problem.miniBatches:
   * OCR's dense chains); a resumed run: the checkpoint's.
   */
  overlap?: boolean;
  /** Optimal step size (Alg. 4, line 6 with line search); otherwise gamma = 2n/(k + 2n) (FW steps only). Default true. */
  lineSearch?: boolean;
  /**
   * Weighted averaging rho = 2/(k+2) of (w, l) (BCFW-wavg, 2013 Sec. 4); gaps are certified at the average.
   * Default true for plain BCFW (fw steps, no cache, not gap sampling), false otherwise; gap sampling needs
   * the block gaps of the current iterate and refuses it.
   */
  averaging?: boolean;
  /**
   * Leave a block of passes early when the sum of gap estimates drops below this multiple of gapThreshold,
   * then confirm with an exact pass ([G] quit_passes_heuristic_gap, 0.8). `false` disables it. Default 0.8
   * without averaging; off with averaging (the estimates belong to the current, not the averaged, iterate).
   */
  heuristicExit?: number | false;
  /**
   * Start from the dual point of another run (a checkpoint of BCFW on the same problem, usually at another
   * lambda): 'keep-primal' keeps every w_i and rescales the weights of the non-ground-truth labels by
   * rho = lambda_new / lambda_old, so block gaps change by the known amount (1 - rho)(l_i - lambda w_i^T w)
   * (2016 paper, Prop. 1); 'keep-dual' keeps the weights and rescales w (gap estimates restart). Counters,
   * trace and averaging start afresh.
   */
  warmStart?: WarmStart;
  /**
   * Confirm a heuristic exit, and certify the result, with an exact pass (default true, [G]
   * true_gap_when_converged). With false the run stops as soon as the estimated gap is below the
   * threshold and reports that estimate with gapIsExact false (the heuristic regularization path).
   */
  certify?: boolean;
  /**
   * Start from the dual point alpha_i = delta(labels[i]) (every block on one corner) instead of the ground
   * truth, with the given gap estimates (upper bounds; not exact). Used by the regularization path (Alg. 6).
   */
  start?: { labels: readonly unknown[]; gapEstimates?: Float64Array };
  /**
   * Log the exact gap (and `evaluate`'s metrics) every this many passes for plots only ([G] logging_level 3):
   * the oracle calls and time are not counted and nothing feeds back into the solver. Events carry
   * `monitor: true`. Default off.
   */
  monitorEvery?: number;
  /**
   * Storage of the per-block vectors w_i: 'dense' (n x d doubles, SIMD kernels), 'sparse' (the coordinates each block
   * touched; for large sparse feature maps, no averaging) or 'classes' (exact steps on multiclass rows in native code:
   * the classes' dual weights, n x K, w_i implied). Default: classes for native exact multiclass steps, else dense up to
   * 1 GiB, else sparse.
   */
  blockStorage?: 'dense' | 'sparse' | 'classes';
  /** Verify alpha >= 0, sum alpha = 1, w_i = sum alpha psi/(lambda n), l_i = sum alpha L/n after every step (slow; tests; TypeScript steps). */
  checkConsistency?: boolean;
  /** Debugging hook called after every block step with the dual of the current (not averaged) iterate; costs O(d) per step (TypeScript steps). */
  onStep?: (step: BlockStepInfo) => void;
  /**
   * Run the block steps in native code where the model's oracle, psi and scores are native (dense and sparse chains,
   * multiclass; an in-memory set): the same algorithm with the same arithmetic as the TypeScript steps, so the same
   * trace. false: the TypeScript steps. The native loop steps one block at a time (batch 1); onStep and
   * checkConsistency need the TypeScript steps. Default true.
   */
  native?: boolean;
}

/** Start a run at a new lambda from a checkpoint taken at another (2016 paper, Prop. 1 / App. I): keep the primal w (rescaling the dual) or keep the dual variables. */
export interface WarmStart {
  from: SolverCheckpoint;
  /** Default 'keep-primal'. */
  mode?: 'keep-primal' | 'keep-dual';
}

/** One block step of BCFW, reported to `BcfwOptions.onBlockStep` (for tests and diagnostics). */
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
}

/** BCFW result: per-block exact gaps are known when averaging is off (the blocks belong to the returned iterate). */
export interface BcfwResult extends SolverResult {
  blockGaps?: Float64Array;
  /** Blocks per step (tau). */
  batch: number;
  /** Whether mini-batches overlapped (BcfwOptions.overlap). */
  overlap: boolean;
  counters: BcfwCounters;
  /** Labels stored over all blocks (dual variables and cache), when kept. */
  storedLabels?: number;
  /** Whether the block steps ran in native code (BcfwOptions.native). */
  native: boolean;
}
