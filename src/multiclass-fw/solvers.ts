/**
 * Frank-Wolfe solvers for nuclear-norm constrained multinomial logistic regression (problem.ts):
 *
 * - `fw`: full Frank-Wolfe. Step 2/(t+1) or exact line search on the full objective.
 * - `sfw`: stochastic Frank-Wolfe (Hazan & Kale 2012; Hazan & Luo 2016, SFW): at round t, the gradient of
 *   a mini-batch of ceil(c t^2) points drawn uniformly with replacement; step 2/(t+1).
 * - `svrf`: stochastic variance-reduced Frank-Wolfe (Hazan & Luo 2016, Algorithm 1): epochs e = 1, 2, ...
 *   take a snapshot W0 = W and its full gradient; then N_e = 2^(e+3) - 2 inner steps k = 1..N_e, each with
 *   the variance-reduced gradient grad F(W0) + (1/m_k) sum_{i in batch} (grad f_i(W) - grad f_i(W0)) over
 *   m_k = ceil(c k) points drawn with replacement, and step 2/(k+1) (k restarts every epoch, as in the
 *   paper; `svrfGlobalStep` uses the global iteration count instead).
 * - `afw`: approximate Frank-Wolfe (Liu & Tsang, AAAI 2017, Algorithm 1): Gaussian random projection hash,
 *   per-class bins sorted by hash value (k0 initial equal-width bins), one uniformly drawn surrogate per bin
 *   weighted by the bin's size, FW steps 2/(t+1) on the weighted surrogate objective, and every nu
 *   iterations each bin with more than delta points is cut in two (bins.ts); surrogates are re-drawn when
 *   the partition changed. The hashing and binning time is counted in `seconds`.
 *
 * All solvers start from W = 0 (or `init`), keep every iterate a convex combination of points of the
 * ball (so ||W||_* <= tau), and emit the same trace records: iteration counters, `seconds` (solver time;
 * the evaluations below are excluded), `primal` = `objective` = F(W) over the full training set,
 * `residual` = F(W) - optimum when an optimum is given, `gap` = the Frank-Wolfe duality gap
 * <grad F(W), W - V> (an exact certificate: F(W) - F* <= gap), data points touched, and per-solver fields.
 * Evaluations run at iterations 0..10 and then at a geometric schedule (factor `evalFactor`, 1.1), or
 * every `evalEvery` iterations, and at the end.
 *
 * The returned iterate is the last one, or (`returned: 'best'`, SVRF's default) the evaluated iterate of
 * lowest objective: SVRF restarts its step at 2/(k+1) = 1 every epoch, so the iterate a run stops on can lie
 * far above the epoch's snapshot (even above the all-zero model's ln K).
 */
import { check, InputError } from '../core/errors.js';
import { Rng } from '../core/rng.js';
import type { ProgressEvent } from '../solvers/common.js';
import { gaussianVector, hashRows, HashBins } from './bins.js';
import { NuclearLmo, nuclearNorm, type LmoAnswer } from './lmo.js';
import { totalWeight, type MulticlassLogistic, type WeightedSubset } from './problem.js';
import { validateMcfwSettings, type McfwSettings, type McfwSolverName } from './settings.js';

/** One trace record: a ProgressEvent (same field names as the SSVM solvers) plus these fields. */
export interface McfwEvent extends ProgressEvent {
  /** Frank-Wolfe iterations (LMO steps) done; equals `pass`. */
  iteration: number;
  /** Full objective F(W) (= `primal`). */
  objective: number;
  /** F(W) - optimum, when an optimum was given. */
  residual?: number;
  /** Per-point gradient evaluations (grad f_i); `oracleCalls` holds the same number. */
  gradientEvaluations: number;
  /** Data rows read: gradient evaluations (an SVRF sample reads its row once for both gradients), hashing, line search. */
  pointsTouched: number;
  lmoCalls: number;
  /** Process CPU seconds (user + system) of the solver work, the counterpart of `seconds` robust to a busy machine. */
  cpuSeconds: number;
}

/** The callbacks and starting points of a multiclass-FW run (kept apart from its plain {@link McfwSettings}). */
export interface McfwHooks {
  /** Extra metrics at every evaluation (e.g. test accuracy); not timed. */
  evaluate?: (W: Float64Array) => Record<string, number>;
  /** Receives one McfwEvent per evaluation (the trace records). */
  onProgress?: (event: McfwEvent) => void;
  /** Called after every update with the new iterate (not timed; for tests and diagnostics). */
  onIterate?: (iteration: number, W: Float64Array) => void;
  /** Stops at the next iteration (stopReason 'aborted'). */
  signal?: AbortSignal;
  /** Starting point (F x K feature-major, inside the ball). Default 0. */
  init?: Float64Array;
  /** AFW: start from this partition instead of hashing (tests; e.g. one point per bin). */
  bins?: HashBins;
}

/** Why a multiclass FW run stopped. */
export type McfwStopReason = 'maxIterations' | 'maxPasses' | 'timeBudget' | 'gap' | 'target' | 'aborted';

/** Result of {@link trainMulticlassFw}: the K x D iterate W, counters, the last residual and the trace. */
export interface McfwResult {
  W: Float64Array;
  solver: McfwSolverName;
  tau: number;
  iterations: number;
  effectivePasses: number;
  gradientEvaluations: number;
  pointsTouched: number;
  lmoCalls: number;
  powerIterations: number;
  /** LMO calls answered by the dense Jacobi fallback (power iteration did not converge). */
  lmoDenseFallbacks: number;
  /** Solver time (evaluations excluded; AFW hashing included). */
  seconds: number;
  /** Process CPU time of the same work. */
  cpuSeconds: number;
  /** Full objective at the returned W. */
  objective: number;
  /** FW duality gap at the returned W. */
  gap: number;
  residual?: number;
  stopReason: McfwStopReason;
  trace: McfwEvent[];
  metrics: Record<string, number>;
  /** AFW: seconds spent hashing and building the initial bins. */
  hashSeconds?: number;
  /** AFW: surrogates (bins) at the end. */
  surrogates?: number;
  /** SVRF: epochs started. */
  epochs?: number;
  /** Which iterate W is: the `last`, or the `best` evaluated one (see McfwSettings.returned). */
  returned: 'best' | 'last';
  /** The iteration W comes from (below `iterations` when the best evaluated iterate is an earlier one). */
  returnedIteration: number;
}

/** Full objective and FW gap at W (one pass over the data + one LMO). */
export interface FullEvaluation {
  objective: number;
  gap: number;
  sigma: number;
}

/**
 * F(W) and the Frank-Wolfe gap g(W) = <grad F(W), W> + tau sigma_1(grad F(W)) >= F(W) - F*.
 * `G` is a scratch buffer of length F x K; `lmo` should be a dedicated instance (it keeps warm starts).
 */
export function evaluateFull(problem: MulticlassLogistic, W: Float64Array, lmo: NuclearLmo, G: Float64Array, V: Float64Array): FullEvaluation {
  const objective = problem.lossAndGradient(W, G);
  const ans = lmo.solve(G, V);
  let gw = 0;
  for (let q = 0; q < W.length; q++) gw += G[q]! * W[q]!;
  return { objective, gap: gw + lmo.tau * ans.sigma, sigma: ans.sigma };
}

/** Trains with one of the four solvers (synchronously); see the module comment. */
export function trainMulticlassFw(problem: MulticlassLogistic, settings: McfwSettings, hooks: McfwHooks = {}): McfwResult {
  const run = iterate(problem, settings, hooks);
  for (;;) {
    const r = run.next();
    if (r.done) return r.value;
  }
}

/**
 * As {@link trainMulticlassFw}, but yields to the event loop about every 50 ms (not counted in `seconds`),
 * so that an AbortSignal fired by a signal handler or timer can stop it.
 */
export async function trainMulticlassFwAsync(problem: MulticlassLogistic, settings: McfwSettings, hooks: McfwHooks = {}): Promise<McfwResult> {
  const run = iterate(problem, settings, hooks);
  let last = performance.now();
  for (;;) {
    const r = run.next();
    if (r.done) return r.value;
    if (performance.now() - last > 50) {
      await new Promise<void>((done) => setImmediate(done));
      last = performance.now();
    }
  }
}

/** The solver loop; yields after every iteration. */
function* iterate(problem: MulticlassLogistic, settings: McfwSettings, hooks: McfwHooks): Generator<void, McfwResult> {
  const o = resolve(settings);
  const { n, numFeatures: F, numClasses: K, size } = problem;
  const rng = new Rng(o.seed);
  const lmo = new NuclearLmo(o.tau, F, K, { tol: o.lmoTolerance, maxIterations: o.lmoMaxIterations, seed: o.seed + 7919 });
  const evalLmo = new NuclearLmo(o.tau, F, K, { tol: o.lmoTolerance, maxIterations: o.lmoMaxIterations, seed: o.seed + 104729 });
  const W = hooks.init ? Float64Array.from(hooks.init) : problem.zeros();
  problem.checkIterate(W);
  if (hooks.init) {
    const nn = nuclearNorm(W, F, K);
    if (!(nn <= o.tau * (1 + 1e-9))) throw new InputError(`init has nuclear norm ${nn} > tau = ${o.tau}`);
  }
  const G = new Float64Array(size);
  const V = new Float64Array(size);
  const Geval = new Float64Array(size);
  const Veval = new Float64Array(size);

  // Counters.
  let t = 0;
  let gradEvals = 0;
  let touched = 0;
  let seconds = 0;
  let cpuSeconds = 0;
  let lastStep: number | undefined;
  const trace: McfwEvent[] = [];
  let metrics: Record<string, number> = {};
  let lastEval: (FullEvaluation & { iteration: number }) | undefined;
  // The evaluated iterate of lowest objective, kept when `returned` is 'best'.
  const bestW = o.returned === 'best' ? new Float64Array(size) : undefined;
  let best: (FullEvaluation & { iteration: number; metrics: Record<string, number> }) | undefined;
  const extra: Record<string, number | string | boolean | undefined> = {};
  let stopReason: McfwStopReason | undefined;

  const evaluateNow = (): void => {
    const ev = evaluateFull(problem, W, evalLmo, Geval, Veval);
    lastEval = { ...ev, iteration: t };
    metrics = hooks.evaluate ? hooks.evaluate(W) : {};
    if (bestW && !(best && best.objective <= ev.objective)) {
      bestW.set(W);
      best = { ...lastEval, metrics };
    }
    const e: McfwEvent = {
      solver: o.solver,
      pass: t,
      iteration: t,
      effectivePasses: gradEvals / n,
      oracleCalls: gradEvals,
      gradientEvaluations: gradEvals,
      pointsTouched: touched,
      lmoCalls: lmo.calls,
      seconds,
      cpuSeconds,
      primal: ev.objective,
      objective: ev.objective,
      gap: ev.gap,
      gapIsExact: true,
      stepSize: lastStep,
      ...extra,
      ...metrics,
    };
    if (o.optimum !== undefined) e.residual = ev.objective - o.optimum;
    for (const k of Object.keys(e)) if (e[k] === undefined) delete e[k];
    trace.push(e);
    hooks.onProgress?.(e);
    if (o.gapThreshold > 0 && ev.gap <= o.gapThreshold) stopReason ??= 'gap';
    if (o.targetObjective !== undefined && ev.objective <= o.targetObjective) stopReason ??= 'target';
  };
  let nextLog = 11;
  const due = (): boolean => {
    if (o.evalEvery !== 'log') return t % o.evalEvery === 0;
    if (t <= 10) return true;
    if (t >= nextLog) {
      nextLog = Math.max(t + 1, Math.ceil(t * o.evalFactor));
      return true;
    }
    return false;
  };

  // Per-solver state and one iteration.
  const scores = o.step === 'line-search' ? new Float64Array(n * K) : null;
  const dirScores = o.step === 'line-search' ? new Float64Array(n * K) : null;
  const update = (gamma: number): void => {
    const g1 = 1 - gamma;
    for (let q = 0; q < size; q++) W[q] = g1 * W[q]! + gamma * V[q]!;
    lastStep = gamma;
  };
  const lineSearch = (subset: WeightedSubset | null, ans: LmoAnswer): number => {
    touched += subset === null ? n : subset.count;
    return exactLineSearch(problem, subset, scores!, dirScores!, ans, o.tau);
  };

  let step: () => void;
  let hashSeconds: number | undefined;
  let bins: HashBins | undefined;
  let epoch = 0;
  switch (o.solver) {
    case 'fw': {
      step = () => {
        t++;
        problem.lossAndGradient(W, G, null, scores);
        gradEvals += n;
        touched += n;
        const ans = lmo.solve(G, V);
        update(o.step === 'line-search' ? lineSearch(null, ans) : 2 / (t + 1));
      };
      break;
    }
    case 'sfw': {
      const subset: WeightedSubset = { index: new Int32Array(1024), weight: null, count: 0 };
      step = () => {
        t++;
        const m = Math.ceil(o.batchScale * t * t);
        if (subset.index.length < m) subset.index = new Int32Array(Math.max(m, 2 * subset.index.length));
        for (let r = 0; r < m; r++) subset.index[r] = rng.int(n);
        subset.count = m;
        problem.lossAndGradient(W, G, subset);
        gradEvals += m;
        touched += m;
        lmo.solve(G, V);
        extra.batchSize = m;
        update(2 / (t + 1));
      };
      break;
    }
    case 'svrf': {
      const W0 = new Float64Array(size);
      const G0 = new Float64Array(size);
      const subset: WeightedSubset = { index: new Int32Array(1024), weight: null, count: 0 };
      let k = 0;
      let Ne = 0;
      step = () => {
        if (k >= Ne) {
          // New epoch: snapshot and its full gradient.
          epoch++;
          Ne = 2 ** (epoch + 3) - 2;
          k = 0;
          W0.set(W);
          problem.lossAndGradient(W0, G0);
          gradEvals += n;
          touched += n;
          extra.epoch = epoch;
        }
        t++;
        k++;
        const m = Math.ceil(o.batchScale * k);
        if (subset.index.length < m) subset.index = new Int32Array(2 * m);
        for (let r = 0; r < m; r++) subset.index[r] = rng.int(n);
        subset.count = m;
        G.set(G0);
        problem.accumulate(W, subset, 1 / m, G);
        problem.accumulate(W0, subset, -1 / m, G);
        gradEvals += 2 * m;
        touched += m;
        lmo.solve(G, V);
        extra.batchSize = m;
        extra.innerStep = k;
        update(o.svrfGlobalStep ? 2 / (t + 1) : 2 / (k + 1));
      };
      break;
    }
    case 'afw': {
      const t0 = performance.now();
      const c0 = cpuNow();
      if (hooks.bins) {
        check(hooks.bins.order.length === n, `the given bins cover ${hooks.bins.order.length} points, the data has ${n}`);
        bins = hooks.bins;
      } else {
        const rho = gaussianVector(F, rng);
        bins = HashBins.fromHash(hashRows(problem.X, rho), problem.y, K, o.k0);
        touched += n;
      }
      const subset: WeightedSubset = { index: new Int32Array(n), weight: new Float64Array(n), count: 0 };
      subset.count = bins.sample(rng, subset.index, subset.weight!);
      hashSeconds = (performance.now() - t0) / 1000;
      seconds += hashSeconds;
      cpuSeconds += cpuNow() - c0;
      extra.hashSeconds = hashSeconds;
      extra.surrogates = subset.count;
      const theBins = bins;
      step = () => {
        t++;
        const surrogate = problem.lossAndGradient(W, G, subset, scores);
        gradEvals += subset.count;
        touched += subset.count;
        const ans = lmo.solve(G, V);
        extra.surrogateObjective = surrogate;
        update(o.step === 'line-search' ? lineSearch(subset, ans) : 2 / (t + 1));
        if (t % o.nu === 0 && theBins.split(o.delta) > 0) {
          subset.count = theBins.sample(rng, subset.index, subset.weight!);
          extra.surrogates = subset.count;
          extra.splits = ((extra.splits as number | undefined) ?? 0) + 1;
        }
      };
      break;
    }
  }

  evaluateNow();
  while (stopReason === undefined) {
    if (hooks.signal?.aborted) {
      stopReason = 'aborted';
      break;
    }
    if (t >= o.maxIterations) {
      stopReason = 'maxIterations';
      break;
    }
    if (gradEvals / n >= o.maxPasses) {
      stopReason = 'maxPasses';
      break;
    }
    if ((o.clock === 'cpu' ? cpuSeconds : seconds) >= o.timeBudget) {
      stopReason = 'timeBudget';
      break;
    }
    const start = performance.now();
    const cpuStart = cpuNow();
    step();
    seconds += (performance.now() - start) / 1000;
    cpuSeconds += cpuNow() - cpuStart;
    hooks.onIterate?.(t, W);
    if (due()) evaluateNow();
    yield;
  }
  if (lastEval === undefined || lastEval.iteration !== t) evaluateNow();
  const last = best ?? { ...lastEval!, metrics };
  if (best) W.set(bestW!);
  return {
    W,
    solver: o.solver,
    tau: o.tau,
    iterations: t,
    effectivePasses: gradEvals / n,
    gradientEvaluations: gradEvals,
    pointsTouched: touched,
    lmoCalls: lmo.calls,
    powerIterations: lmo.powerIterations,
    lmoDenseFallbacks: lmo.denseFallbacks,
    seconds,
    cpuSeconds,
    objective: last.objective,
    gap: last.gap,
    residual: o.optimum === undefined ? undefined : last.objective - o.optimum,
    stopReason: stopReason ?? 'maxIterations',
    trace,
    metrics: last.metrics,
    returned: o.returned,
    returnedIteration: last.iteration,
    hashSeconds,
    surrogates: bins?.count,
    epochs: o.solver === 'svrf' ? epoch : undefined,
  };
}

/** Process CPU time (user + system) in seconds. */
function cpuNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

type Resolved = Required<Pick<McfwSettings, 'solver' | 'tau' | 'step' | 'returned' | 'maxIterations' | 'maxPasses' | 'timeBudget' | 'seed' | 'batchScale' | 'k0' | 'delta' | 'nu' | 'gapThreshold' | 'evalFactor'>> &
  Omit<McfwSettings, 'evalEvery'> & { evalEvery: number | 'log' };

/** The settings, validated against MCFW_SETTINGS, with their defaults. */
function resolve(o: McfwSettings): Resolved {
  validateMcfwSettings(o);
  const unlimited = o.maxPasses === undefined && o.timeBudget === undefined;
  return {
    ...o,
    step: o.step ?? 'default',
    returned: o.returned ?? (o.solver === 'svrf' ? 'best' : 'last'),
    maxIterations: o.maxIterations ?? (unlimited ? 500 : Infinity),
    maxPasses: o.maxPasses ?? Infinity,
    timeBudget: o.timeBudget ?? Infinity,
    seed: o.seed ?? 1,
    batchScale: o.batchScale ?? 1,
    k0: o.k0 ?? 100,
    delta: o.delta ?? 10,
    nu: o.nu ?? 50,
    evalEvery: o.evalEvery ?? 'log',
    evalFactor: o.evalFactor ?? 1.1,
    gapThreshold: o.gapThreshold ?? 0,
  };
}

/**
 * Exact line search min_{gamma in [0,1]} phi(gamma) = weighted mean of f_i(W + gamma (V - W)) over
 * `subset` (all rows when null), with V = -tau a b^T. `scores` holds the rows' scores W x_i from the
 * gradient pass; `dir` is scratch for the direction scores D_i = V x_i - W x_i. phi is convex; a
 * safeguarded Newton iteration on phi' over the bracket [0, 1] finds its minimiser.
 */
export function exactLineSearch(
  problem: MulticlassLogistic,
  subset: WeightedSubset | null,
  scores: Float64Array,
  dir: Float64Array,
  ans: LmoAnswer,
  tau: number,
): number {
  const K = problem.numClasses;
  const { indptr, indices, values } = problem.X;
  const count = subset === null ? problem.n : subset.count;
  const a = ans.a;
  const b = ans.b;
  for (let r = 0; r < count; r++) {
    const i = subset === null ? r : subset.index[r]!;
    let z = 0;
    for (let q = indptr[i]!, e = indptr[i + 1]!; q < e; q++) z += a[indices[q]!]! * values[q]!;
    const o = r * K;
    for (let k = 0; k < K; k++) dir[o + k] = -tau * z * b[k]! - scores[o + k]!;
  }
  const wsum = totalWeight(subset, problem.n);
  const y = problem.y;
  // phi'(gamma) and phi''(gamma).
  const derivs = (gamma: number): [number, number] => {
    let d1 = 0;
    let d2 = 0;
    for (let r = 0; r < count; r++) {
      const i = subset === null ? r : subset.index[r]!;
      const c = subset === null || subset.weight === null ? 1 : subset.weight[r]!;
      const o = r * K;
      let m = -Infinity;
      for (let k = 0; k < K; k++) m = Math.max(m, scores[o + k]! + gamma * dir[o + k]!);
      let z = 0;
      let pd = 0;
      let pdd = 0;
      for (let k = 0; k < K; k++) {
        const e = Math.exp(scores[o + k]! + gamma * dir[o + k]! - m);
        const dk = dir[o + k]!;
        z += e;
        pd += e * dk;
        pdd += e * dk * dk;
      }
      pd /= z;
      pdd /= z;
      d1 += c * (pd - dir[o + y[i]!]!);
      d2 += c * Math.max(pdd - pd * pd, 0);
    }
    return [d1 / wsum, d2 / wsum];
  };
  const [g0, h0] = derivs(0);
  if (!(g0 < 0)) return 0;
  let lo = 0;
  let hi = 1;
  // First trial: the Newton step from 0 (clipped to 1); phi'(1) <= 0 means gamma = 1.
  let gamma = h0 > 0 ? Math.min(1, -g0 / h0) : 1;
  if (!(gamma > 0)) gamma = 1;
  let triedOne = gamma === 1;
  const scale = Math.abs(g0);
  // Stop when phi' vanishes to rounding, the bracket is tiny, or the Newton step moves gamma by < 1e-10.
  for (let it = 0; it < 60; it++) {
    const [d1, d2] = derivs(gamma);
    if (gamma === 1 && d1 <= 0) return 1;
    if (Math.abs(d1) <= 1e-12 * scale) break;
    if (d1 > 0) hi = gamma;
    else lo = gamma;
    if (hi - lo <= 1e-12) break;
    const newton = d2 > 0 ? gamma - d1 / d2 : NaN;
    // A Newton step beyond 1 while 1 is untried: try the end point (phi'(1) <= 0 returns 1 above).
    const next = newton > lo && newton < hi ? newton : newton >= 1 && hi === 1 && !triedOne ? 1 : (lo + hi) / 2;
    if (next === 1) triedOne = true;
    const moved = Math.abs(next - gamma);
    gamma = next;
    if (moved <= 1e-10) break;
  }
  return gamma;
}
