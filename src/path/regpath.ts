import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { check, InputError } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { dot, dotSparse } from '../core/vector.js';
import { BcfwSolver } from '../solvers/bcfw.js';
import { validateSettings, type TrainSettings } from '../solvers/settings.js';
import { fullOraclePass, passCertificate } from '../solvers/common.js';

/** BCFW settings used at every lambda (lambda, gapThreshold, certify and the time budget are set by the driver). */
export type PathSolverSettings = Omit<TrainSettings, 'solver' | 'lambda' | 'gapThreshold' | 'certify' | 'timeBudget'>;

/** Settings of {@link regularizationPath} (2016 paper, Alg. 6-7 and App. K). */
export interface PathOptions {
  /** Every returned w is epsilon-approximate on its piece. Default 0.1. */
  epsilon?: number;
  /** Each breakpoint is solved to kappa * epsilon. Default 0.9 (exact path), 0.7 (heuristic path). */
  kappa?: number;
  /**
   * The heuristic path (2016 App. K): solves stop on stale gap estimates, with no exact pass, once their sum is
   * <= 0.8 x kappa x epsilon (`heuristicExit`; the authors' quit_passes_heuristic_gap_eps_multiplyer), so the guarantee is lost;
   * `trueGaps` measures what it really achieved. Default false.
   */
  heuristic?: boolean;
  /** The heuristic path's exit factor: a solve ends at an estimated gap <= heuristicExit x kappa x epsilon. Default 0.8. */
  heuristicExit?: number;
  /** Stop the path below this lambda. Default 1e-5. */
  minLambda?: number;
  /** BCFW settings at every lambda (maxPasses per lambda defaults to 10000). Default: BCPFW with gap sampling and caching, the paper's choice. */
  solver?: PathSolverSettings;
  /** Wall-clock budget for the whole path, seconds. Default Infinity. */
  timeBudget?: number;
  /** Compute the exact gap at every breakpoint for the record (not counted in time or passes). Default: heuristic. */
  trueGaps?: boolean;
  /** Called after every breakpoint. */
  onBreakpoint?: (b: Breakpoint) => void;
  signal?: AbortSignal;
}

/** One solved lambda of the path: w is epsilon-approximate for lambda' in [nextLambda, lambda]. */
export interface Breakpoint {
  lambda: number;
  w: Float64Array;
  /** Gap the solver certified (exact path) or estimated (heuristic path) at lambda; <= kappa * epsilon. */
  gap: number;
  gapIsExact: boolean;
  /** The exact gap at lambda when measured (`trueGaps`). */
  trueGap?: number;
  /** Passes of the solve at this lambda. */
  passes: number;
  /** Cumulative effective passes (oracle calls / n) and seconds from the start of the path. */
  effectivePasses: number;
  seconds: number;
}

/** An epsilon-approximate regularization path: lambda_inf and w_inf, then the breakpoints in decreasing lambda, each w valid on its piece. */
export interface RegularizationPath {
  epsilon: number;
  kappa: number;
  heuristic: boolean;
  /** lambda_infinity of Alg. 6: for lambda >= it, (lambdaInf / lambda) * wInf is epsilon-approximate. */
  lambdaInf: number;
  wInf: Float64Array;
  /** Gap bound at lambdaInf (<= kappa * epsilon by construction). */
  gapInf: number;
  /** Breakpoints in decreasing lambda. */
  breakpoints: Breakpoint[];
  /** True when the path reached rho <= 0: the last w is epsilon-approximate down to lambda = 0. */
  complete: boolean;
  /** The smallest lambda the path covers (0 when complete): the last w is valid down to it by eq. (12). */
  validDownTo: number;
  /** Why the path stopped: 'complete', 'minLambda', 'timeBudget', 'aborted' or 'solver' (a solve missed kappa*epsilon). */
  stopReason: 'complete' | 'minLambda' | 'timeBudget' | 'aborted' | 'solver';
  effectivePasses: number;
  seconds: number;
}

/**
 * The epsilon-approximate regularization path of "Minding the Gaps" (Sec. 4, Alg. 6-7).
 *
 * Initialisation (Alg. 6): at w = 0 the oracle returns the max-loss labellings y~_i; alpha_i = delta(y~_i)
 * gives w = psi~/lambda with psi~ = mean_i psi_i(y~_i), and the gap is bounded by
 * (||psi~||^2 + mean_i theta_i)/lambda with theta_i = max_y -<psi~, psi_i(y)> (a plain decode at psi~),
 * so lambda_inf = (||psi~||^2 + mean theta)/(kappa epsilon).
 * Induction (Alg. 7): keep w, scale the non-ground-truth weights by rho (Prop. 1): the gap grows to
 * g + (1 - rho) Delta, so rho = 1 - (epsilon - g)/Delta (eq. 12) keeps it <= epsilon on [rho lambda, lambda];
 * then solve at rho lambda to kappa epsilon from that warm start. Ends when rho <= 0.
 */
export function regularizationPath(problem: Problem, options: PathOptions = {}): RegularizationPath {
  return runSteps(pathSteps(problem, options));
}

/**
 * {@link regularizationPath} yielding to the event loop after every solver pass, so that progress is drawn and
 * signals get through; `options.signal` then stops it after the current pass (stopReason 'aborted').
 */
export function regularizationPathAsync(problem: Problem, options: PathOptions = {}): Promise<RegularizationPath> {
  return runStepsAsync(pathSteps(problem, options));
}

/** Runs a computation written as a generator that yields between passes, synchronously. */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Runs such a generator, yielding to the event loop at each of its steps. */
export async function runStepsAsync<T>(steps: Generator<void, T>): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await yieldToEventLoop();
  }
}

function* pathSteps(problem: Problem, options: PathOptions): Generator<void, RegularizationPath> {
  const heuristic = options.heuristic ?? false;
  const epsilon = options.epsilon ?? 0.1;
  const kappa = options.kappa ?? (heuristic ? 0.7 : 0.9);
  const heuristicExit = options.heuristicExit ?? 0.8;
  const minLambda = options.minLambda ?? 1e-5;
  const timeBudget = options.timeBudget ?? Infinity;
  const trueGaps = options.trueGaps ?? heuristic;
  check(epsilon > 0 && Number.isFinite(epsilon), `epsilon must be a positive number, got ${epsilon}`);
  check(kappa > 0 && kappa < 1, `kappa must be in (0, 1), got ${kappa}`);
  check(heuristicExit > 0 && heuristicExit <= 1, `heuristicExit must be in (0, 1], got ${heuristicExit}`);
  check(minLambda > 0, `minLambda must be > 0, got ${minLambda}`);
  check(timeBudget > 0, `timeBudget must be > 0, got ${timeBudget}`);
  const solverSettings: PathSolverSettings = options.solver ?? { step: 'pairwise', sampling: 'gap', cache: true };
  const { n, dim: d } = problem;
  const t0 = performance.now();
  let excluded = 0; // milliseconds spent measuring true gaps
  const seconds = () => (performance.now() - t0 - excluded) / 1000;
  let oracleCalls = 0;

  // Alg. 6: max-loss labels, psi~, theta_i, lambda_inf and per-block gap bounds.
  const zero = new Float64Array(d);
  const ytilde: unknown[] = [];
  const psiTilde = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    const y = problem.oracle(i, zero);
    check(problem.loss(i, problem.groundTruth(i)) === 0, 'the regularization path needs L_i(y_i) = 0 (Prop. 1)');
    ytilde.push(y);
    const psi = problem.psi(i, y);
    for (let q = 0; q < psi.nnz; q++) psiTilde[psi.indices[q]!]! += psi.values[q]! / n;
  }
  const theta = new Float64Array(n);
  const psiDot = new Float64Array(n); // <psi_i(y~_i), psi~>
  for (let i = 0; i < n; i++) {
    theta[i] = Math.max(-dotSparse(psiTilde, problem.psi(i, problem.predict(i, psiTilde))), 0);
    psiDot[i] = dotSparse(psiTilde, problem.psi(i, ytilde[i]));
  }
  oracleCalls += 2 * n;
  const boundTotal = dot(psiTilde, psiTilde) + theta.reduce((a, b) => a + b, 0) / n;
  if (!(boundTotal > 0)) throw new InputError('the regularization path is degenerate: w = 0 is optimal for every lambda (all losses are 0?)');
  const lambdaInf = boundTotal / (kappa * epsilon);
  // g_i <= theta_i/(lambda n) + lambda <w_i, w> with w_i = psi_i(y~_i)/(lambda n), w = psi~/lambda.
  const bounds = Float64Array.from(theta, (t, i) => (t + psiDot[i]!) / (lambdaInf * n));
  validateSettings({ ...solverSettings, solver: 'bcfw' });
  let solver = new BcfwSolver(problem, { ...solverSettings, lambda: lambdaInf }, { start: { labels: ytilde, gapEstimates: bounds } });
  const wInf = Float64Array.from(solver.state.w);
  let lambda = lambdaInf;
  let gap = boundTotal / lambdaInf;
  const breakpoints: Breakpoint[] = [];
  let stopReason: RegularizationPath['stopReason'] = 'complete';
  let validDownTo = 0;

  for (;;) {
    // eq. (12): the largest step that keeps the (predicted) gap <= epsilon.
    const delta = solver.pathDelta();
    const rho = delta > 0 ? 1 - (epsilon - gap) / delta : 0;
    if (rho <= 0) {
      validDownTo = 0; // Delta <= epsilon - gap: the current w is epsilon-approximate for every smaller lambda
      break;
    }
    const next = rho * lambda;
    validDownTo = next; // the current w covers [next, lambda] whatever happens below
    if (next < minLambda) {
      stopReason = 'minLambda';
      break;
    }
    if (options.signal?.aborted) {
      stopReason = 'aborted';
      break;
    }
    const left = timeBudget - seconds();
    if (left <= 0) {
      stopReason = 'timeBudget';
      break;
    }
    const from = solver.checkpoint();
    // The heuristic path never runs an exact pass (its gap checks are spaced beyond any run): a solve ends when the
    // estimated gap is <= heuristicExit x kappa x epsilon (0.8: the authors' margin for the estimates' staleness).
    const heuristicSettings: TrainSettings = heuristic ? { certify: false, gapCheck: 1e9, heuristicExit } : {};
    solver = new BcfwSolver(
      problem,
      { maxPasses: 10000, ...solverSettings, lambda: next, gapThreshold: kappa * epsilon, timeBudget: left, ...heuristicSettings },
      { warmStart: { from, mode: 'keep-primal' }, signal: options.signal },
    );
    while (solver.runPass()) yield;
    const r = solver.result();
    oracleCalls += r.oracleCalls;
    if (r.stopReason !== 'gap') {
      // Not solved to kappa * epsilon: this lambda is not a breakpoint; the previous w still covers down to it.
      stopReason = r.stopReason === 'aborted' ? 'aborted' : r.stopReason === 'timeBudget' ? 'timeBudget' : 'solver';
      break;
    }
    lambda = next;
    gap = r.gap!;
    const b: Breakpoint = {
      lambda, w: r.w, gap, gapIsExact: r.gapIsExact, passes: r.passes, effectivePasses: oracleCalls / n, seconds: seconds(),
    };
    if (trueGaps) {
      const m0 = performance.now();
      const st = solver.state;
      b.trueGap = passCertificate(lambda, n, st.w, st.l, fullOraclePass(problem, st.w), st.v).gap;
      excluded += performance.now() - m0;
    }
    breakpoints.push(b);
    options.onBreakpoint?.(b);
  }
  return {
    epsilon, kappa, heuristic, lambdaInf, wInf, gapInf: boundTotal / lambdaInf, breakpoints,
    complete: stopReason === 'complete', validDownTo, stopReason, effectivePasses: oracleCalls / n, seconds: seconds(),
  };
}

/**
 * An epsilon-approximate w for any lambda covered by the path: (lambdaInf/lambda) wInf above lambdaInf,
 * the w of breakpoint j on [lambda_{j+1}, lambda_j], and the last w down to 0 when the path is complete.
 */
export function pathWeights(path: Pick<RegularizationPath, 'lambdaInf' | 'wInf' | 'breakpoints' | 'validDownTo'>, lambda: number): Float64Array {
  check(lambda > 0 && Number.isFinite(lambda), `lambda must be a positive number, got ${lambda}`);
  if (lambda < path.validDownTo) throw new InputError(`lambda ${lambda} is below the path's range (it covers lambda >= ${path.validDownTo})`);
  if (lambda >= path.lambdaInf) return Float64Array.from(path.wInf, (v) => (v * path.lambdaInf) / lambda);
  // Piece j covers [lambda_{j+1}, lambda_j]; the piece of wInf covers [lambda_1, lambdaInf]. Exactly at a
  // breakpoint both neighbours qualify; its own solution (gap <= kappa epsilon there) is returned.
  const bps = path.breakpoints;
  let w = path.wInf;
  for (const b of bps) {
    if (lambda > b.lambda) break;
    w = b.w;
  }
  return Float64Array.from(w);
}
