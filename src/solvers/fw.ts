import type { Problem } from '../core/problem.js';
import {
  certificate,
  evaluateAt,
  fullOraclePass,
  resolveCommon,
  TrainingClock,
  type CommonSolverOptions,
  type ProgressEvent,
  type SolverResult,
  type StopReason,
} from './common.js';

export interface FwOptions extends CommonSolverOptions {
  /** Optimal step size; otherwise gamma = 2/(k+2). Default true. */
  lineSearch?: boolean;
}

/**
 * Batch Frank-Wolfe on the structural SVM dual (2013 paper, Algorithm 2). Every iteration is one full
 * oracle pass, which also yields the exact duality gap of the current iterate (eq. 5), so the stopping
 * test runs every iteration. `gapCheck` is not used.
 */
export function fw(problem: Problem, options: FwOptions = {}): SolverResult {
  const c = resolveCommon(problem, options, 200);
  const lineSearch = options.lineSearch ?? true;
  const { n, dim: d } = problem;
  const { lambda } = c;
  const lambdaN = lambda * n;
  const w = new Float64Array(d);
  let l = 0;
  const psiSum = { dense: new Float64Array(d), loss: 0 };
  const clock = new TrainingClock();
  const trace: ProgressEvent[] = [];
  let oracleCalls = 0;
  let passes = 0;
  let stopReason: StopReason = 'maxPasses';
  let last!: { primal: number; dual: number; gap: number };
  let lastMetrics: Record<string, number> = {};

  for (;;) {
    psiSum.dense.fill(0);
    psiSum.loss = 0;
    const pass = fullOraclePass(problem, w, psiSum);
    oracleCalls += n;
    last = certificate(lambda, n, w, l, pass.hingeSum);
    const seconds = clock.seconds;
    lastMetrics = evaluateAt(problem, w, options, clock);
    const event: ProgressEvent = { solver: 'fw', pass: passes, effectivePasses: oracleCalls / n, oracleCalls, seconds, ...last, gapIsExact: true, ...lastMetrics };
    trace.push(event);
    options.onProgress?.(event);
    if (last.gap <= c.gapThreshold) {
      stopReason = 'gap';
      break;
    }
    if (passes >= c.maxPasses) break;
    if (options.signal?.aborted) {
      stopReason = 'aborted';
      break;
    }
    if (clock.seconds > c.timeBudget) {
      stopReason = 'timeBudget';
      break;
    }
    // Corner w_s = sum_i psi_i / (lambda n), l_s = sum_i L_i / n; the gap equals lambda w^T(w - w_s) - l + l_s.
    const ls = psiSum.loss / n;
    let gamma: number;
    if (lineSearch) {
      let distSq = 0;
      for (let j = 0; j < d; j++) {
        const diff = w[j]! - psiSum.dense[j]! / lambdaN;
        distSq += diff * diff;
      }
      gamma = Math.min(Math.max(last.gap / (lambda * distSq + Number.EPSILON), 0), 1);
    } else {
      gamma = 2 / (passes + 2);
    }
    for (let j = 0; j < d; j++) w[j] = (1 - gamma) * w[j]! + (gamma * psiSum.dense[j]!) / lambdaN;
    l = (1 - gamma) * l + gamma * ls;
    passes++;
  }
  return {
    w: Float64Array.from(w),
    lambda,
    solver: 'fw',
    passes,
    effectivePasses: oracleCalls / n,
    oracleCalls,
    seconds: clock.seconds,
    ...last,
    gapIsExact: true,
    trainError: lastMetrics.trainError,
    stopReason,
    trace,
    metrics: lastMetrics,
  };
}
