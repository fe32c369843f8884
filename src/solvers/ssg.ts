import { check } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { Rng } from '../core/rng.js';
import { dotSparse } from '../core/vector.js';
import {
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
import type { Sampling } from './bcfw.js';

export interface SsgOptions extends CommonSolverOptions {
  /** Default 'uniform'. */
  sampling?: Sampling;
  /** Weighted averaging rho = 2/(k+2) of w (as in BCFW-wavg). Default true. */
  averaging?: boolean;
}

/**
 * Stochastic subgradient baseline (Pegasos-type; 2013 paper, Sec. 6 and [B] solverSSG.m):
 * w_{k+1} = (1 - gamma) w_k + gamma psi_i(y*)/lambda with gamma = 1/(k+1). There is no dual, so every
 * `gapCheck` passes only the primal is evaluated (one full oracle pass); it stops on `maxPasses`
 * (default 50) or the time budget. `gap` and `dual` stay undefined.
 */
export function ssg(problem: Problem, options: SsgOptions = {}): SolverResult {
  const c = resolveCommon(problem, options, 50);
  const sampling = options.sampling ?? 'uniform';
  check(sampling === 'uniform' || sampling === 'perm', `unknown sampling '${sampling}' (uniform | perm)`);
  const averaging = options.averaging ?? true;
  const { n, dim: d } = problem;
  const { lambda } = c;
  const w = new Float64Array(d);
  const wAvg = averaging ? new Float64Array(d) : w;
  const rng = new Rng(c.seed);
  const order = new Int32Array(n);
  const clock = new TrainingClock();
  const trace: ProgressEvent[] = [];
  let k = 0;
  let oracleCalls = 0;
  let passes = 0;
  let stopReason: StopReason = 'maxPasses';
  let primal: number | undefined;
  let lastMetrics: Record<string, number> = {};

  const step = (i: number) => {
    const y = problem.oracle(i, w);
    oracleCalls++;
    const psi = problem.psi(i, y);
    const valid = checkedHinge(problem.loss(i, y) - dotSparse(w, psi), i) > 0;
    const gamma = 1 / (k + 1);
    for (let j = 0; j < d; j++) w[j]! *= 1 - gamma;
    if (valid) {
      const scale = gamma / lambda;
      for (let q = 0; q < psi.nnz; q++) w[psi.indices[q]!]! += scale * psi.values[q]!;
    }
    if (averaging) {
      const rho = 2 / (k + 2);
      for (let j = 0; j < d; j++) wAvg[j] = (1 - rho) * wAvg[j]! + rho * w[j]!;
    }
    k++;
  };

  const primalCheck = () => {
    const pass = fullOraclePass(problem, wAvg);
    oracleCalls += n;
    primal = certificate(lambda, n, wAvg, 0, pass.hingeSum).primal;
    const seconds = clock.seconds;
    lastMetrics = evaluateAt(problem, wAvg, options, clock);
    const e: ProgressEvent = { solver: 'ssg', pass: passes, effectivePasses: oracleCalls / n, oracleCalls, seconds, primal, gapIsExact: false, ...lastMetrics };
    trace.push(e);
    options.onProgress?.(e);
  };

  let checkedAt = -1;
  outer: while (passes < c.maxPasses) {
    if (sampling === 'perm') rng.permutation(order);
    for (let s = 0; s < n; s++) {
      if (options.signal?.aborted) {
        stopReason = 'aborted';
        break outer;
      }
      step(sampling === 'perm' ? order[s]! : rng.int(n));
      if (clock.seconds > c.timeBudget) {
        stopReason = 'timeBudget';
        passes++;
        break outer;
      }
    }
    passes++;
    if (passes % c.gapCheck === 0) {
      checkedAt = passes;
      primalCheck();
    } else {
      const e: ProgressEvent = { solver: 'ssg', pass: passes, effectivePasses: oracleCalls / n, oracleCalls, seconds: clock.seconds, gapIsExact: false };
      trace.push(e);
      options.onProgress?.(e);
    }
  }
  if (checkedAt !== passes) primalCheck();
  return {
    w: Float64Array.from(wAvg),
    lambda,
    solver: 'ssg',
    passes,
    effectivePasses: oracleCalls / n,
    oracleCalls,
    seconds: clock.seconds,
    primal,
    gapIsExact: false,
    trainError: lastMetrics.trainError,
    stopReason,
    trace,
    metrics: lastMetrics,
  };
}
