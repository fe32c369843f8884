import { check } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { Rng } from '../core/rng.js';
import { dot, dotSparse, normSqSparse } from '../core/vector.js';
import { native } from '../native.js';
import {
  blockGaps,
  certificate,
  checkedHinge,
  evaluateAt,
  fullOraclePass,
  resolveCommon,
  TrainingClock,
  type CommonSolverOptions,
  type ProgressEvent,
  type SolverResult,
  type StopReason,
} from './common.js';

export type Sampling = 'uniform' | 'perm';

export interface BcfwOptions extends CommonSolverOptions {
  /** Block order: 'uniform' draws n blocks with replacement per pass, 'perm' a fresh permutation. Default 'uniform'. */
  sampling?: Sampling;
  /** Optimal step size (Alg. 4, line 6 with line search); otherwise gamma = 2n/(k + 2n). Default true. */
  lineSearch?: boolean;
  /** Weighted averaging rho = 2/(k+2) of (w, l) (BCFW-wavg, Sec. 4); gaps are certified at the average. Default true. */
  averaging?: boolean;
  /** Debugging hook called after every block step with the dual of the current (not averaged) iterate; costs O(d) per step. */
  onStep?: (step: BlockStepInfo) => void;
}

export interface BlockStepInfo {
  /** Steps done before this one. */
  k: number;
  block: number;
  gamma: number;
  /** Block gap g_i at the start of the step. */
  blockGap: number;
  /** Dual objective l - (lambda/2)||w||^2 after the step. */
  dual: number;
}

/** BCFW result: per-block exact gaps are known when averaging is off (the blocks belong to the returned iterate). */
export interface BcfwResult extends SolverResult {
  blockGaps?: Float64Array;
}

/**
 * Block-coordinate Frank-Wolfe for the structural SVM dual (Lacoste-Julien et al. 2013, Algorithm 4).
 *
 * State: per-block w_i (dense, n x d) and l_i with w = sum_i w_i, l = sum_i l_i (kept incrementally,
 * rebuilt from the blocks at every exact check to stop drift). A block step calls the oracle for block i,
 * forms the corner w_s = psi_i(y*)/(lambda n), l_s = L_i(y*)/n and moves w_i towards it with the
 * line-search step gamma = g_i / (lambda ||w_i - w_s||^2) clipped to [0, 1], where
 * g_i = lambda (w_i - w_s)^T w - (l_i - l_s) is the block gap (eq. 10 of the 2016 paper).
 * Every `gapCheck` passes a full oracle pass gives the exact gap of the returned iterate.
 */
export function bcfw(problem: Problem, options: BcfwOptions = {}): BcfwResult {
  const c = resolveCommon(problem, options, 200);
  const sampling = options.sampling ?? 'uniform';
  check(sampling === 'uniform' || sampling === 'perm', `unknown sampling '${sampling}' (uniform | perm)`);
  const lineSearch = options.lineSearch ?? true;
  const averaging = options.averaging ?? true;
  const { n, dim: d } = problem;
  const { lambda } = c;
  const solverName = 'bcfw';

  const w = new Float64Array(d);
  let l = 0;
  const wBlocks = new Float64Array(n * d);
  const lBlocks = new Float64Array(n);
  const wAvg = averaging ? new Float64Array(d) : w;
  let lAvg = 0;
  let k = 0; // block steps done (the k of Alg. 4)
  const rng = new Rng(c.seed);
  const order = new Int32Array(n);
  const clock = new TrainingClock();
  const trace: ProgressEvent[] = [];
  let oracleCalls = 0;
  let passes = 0;
  let stopReason: StopReason = 'maxPasses';
  let last: { primal: number; dual: number; gap: number } | undefined;
  let lastMetrics: Record<string, number> = {};
  let lastBlockGaps: Float64Array | undefined;
  const lambdaN = lambda * n;
  const stats = new Float64Array(3);

  const returned = () => (averaging ? { w: wAvg, l: lAvg } : { w, l });
  const emit = (e: ProgressEvent) => {
    trace.push(e);
    options.onProgress?.(e);
  };

  /** One block step on block i (Alg. 4 lines 4-9). */
  const blockStep = (i: number) => {
    const y = problem.oracle(i, w);
    oracleCalls++;
    const psi = problem.psi(i, y);
    const L = problem.loss(i, y);
    const wDotPsi = dotSparse(w, psi);
    const valid = checkedHinge(L - wDotPsi, i) > 0; // else the ground truth is a maximiser: w_s = 0, l_s = 0
    const wi = wBlocks.subarray(i * d, (i + 1) * d);
    const li = lBlocks[i]!;
    native.blockStats(wi, w, psi.indices, psi.values, valid ? psi.nnz : 0, stats);
    const wiDotW = stats[0]!;
    const wiSq = stats[1]!;
    const wiDotPsi = stats[2]!;
    const ls = valid ? L / n : 0;
    const wsDotW = valid ? wDotPsi / lambdaN : 0;
    const blockGap = lambda * (wiDotW - wsDotW) - li + ls;
    let gamma: number;
    if (lineSearch) {
      // ||w_i - w_s||^2 with w_s = psi / (lambda n)
      const wsSq = valid ? normSqSparse(psi) / (lambdaN * lambdaN) : 0;
      const distSq = Math.max(wiSq - (2 * wiDotPsi) / lambdaN + wsSq, 0);
      gamma = Math.min(Math.max(blockGap / (lambda * distSq + Number.EPSILON), 0), 1);
    } else {
      gamma = (2 * n) / (k + 2 * n);
    }
    const rho = 2 / (k + 2);
    if (gamma > 0 || averaging) {
      native.blockUpdate(wi, w, averaging ? wAvg : null, psi.indices, psi.values, valid ? psi.nnz : 0, gamma, 1 / lambdaN, rho);
      const liNew = (1 - gamma) * li + gamma * ls;
      lBlocks[i] = liNew;
      l += liNew - li;
      if (averaging) lAvg = (1 - rho) * lAvg + rho * l;
    }
    options.onStep?.({ k, block: i, gamma, blockGap, dual: l - 0.5 * lambda * dot(w, w) });
    k++;
  };

  /** Rebuilds w and l from the blocks (removes incremental drift). */
  const resync = () => {
    w.fill(0);
    l = 0;
    for (let i = 0; i < n; i++) {
      const wi = wBlocks.subarray(i * d, (i + 1) * d);
      for (let j = 0; j < d; j++) w[j]! += wi[j]!;
      l += lBlocks[i]!;
    }
  };

  const exactCheck = () => {
    resync();
    const it = returned();
    const pass = fullOraclePass(problem, it.w);
    oracleCalls += n;
    last = certificate(lambda, n, it.w, it.l, pass.hingeSum);
    if (!averaging) lastBlockGaps = blockGaps(lambda, w, wBlocks, lBlocks, pass.hinge);
    const seconds = clock.seconds;
    lastMetrics = evaluateAt(problem, it.w, options, clock);
    emit({ solver: solverName, pass: passes, effectivePasses: oracleCalls / n, oracleCalls, seconds, ...last, gapIsExact: true, ...lastMetrics });
    return last.gap;
  };

  let checkedAt = -1;
  outer: while (passes < c.maxPasses) {
    if (sampling === 'perm') rng.permutation(order);
    for (let s = 0; s < n; s++) {
      if (options.signal?.aborted) {
        stopReason = 'aborted';
        break outer;
      }
      blockStep(sampling === 'perm' ? order[s]! : rng.int(n));
      if (clock.seconds > c.timeBudget) {
        stopReason = 'timeBudget';
        passes++;
        break outer;
      }
    }
    passes++;
    const it = returned();
    emit({ solver: solverName, pass: passes, effectivePasses: oracleCalls / n, oracleCalls, seconds: clock.seconds, dual: it.l - 0.5 * lambda * dot(it.w, it.w), gapIsExact: false });
    if (passes % c.gapCheck === 0) {
      checkedAt = passes;
      if (exactCheck() <= c.gapThreshold) {
        stopReason = 'gap';
        break;
      }
    }
  }
  // The result always carries an exact certificate: one more full pass if the last pass was not checked.
  if (checkedAt !== passes || last === undefined) exactCheck();
  const it = returned();
  return {
    w: Float64Array.from(it.w),
    lambda,
    solver: solverName,
    passes,
    effectivePasses: oracleCalls / n,
    oracleCalls,
    seconds: clock.seconds,
    ...last!,
    gapIsExact: true,
    trainError: lastMetrics.trainError,
    stopReason,
    trace,
    metrics: lastMetrics,
    blockGaps: lastBlockGaps,
  };
}
