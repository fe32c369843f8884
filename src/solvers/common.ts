import { performance } from 'node:perf_hooks';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { check, InputError } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import type { OracleCounters, PassProgress } from '../core/batch.js';
import { dot, dotSparse, type SparseVector } from '../core/vector.js';
import { gapStatus, oracleSlack, passGap, type GapStatus } from '../core/approximate.js';
import { subtractCounters, zeroCounters } from '../engine/counters.js';
import { threads } from '../native/threads.js';
import { validateSettings, type SolverName, type TrainSettings } from './settings.js';

/** One record of a training trace (a JSONL line of `--trace`). Certificates refer to the returned iterate. */
export interface ProgressEvent {
  solver: string;
  /** Block-coordinate passes done (for batch FW: iterations). */
  pass: number;
  /** Oracle calls / n: the papers' "effective passes" (exact-gap passes included). */
  effectivePasses: number;
  oracleCalls: number;
  /** Training seconds so far (evaluation of train/test error excluded). */
  seconds: number;
  /** SSVM dual objective l - (lambda/2)||w||^2 (absent for SSG, which has no dual). */
  dual?: number;
  /** Primal objective (lambda/2)||w||^2 + (1/n) sum_i H_i(w), known after a full oracle pass. */
  primal?: number;
  /** Duality gap primal - dual. */
  gap?: number;
  /**
   * True when `gap` comes from a full oracle pass at the returned iterate with an exact oracle (a certificate); false
   * for estimates and for passes where an approximate oracle ran (src/core/approximate.ts).
   */
  gapIsExact: boolean;
  /** 'approximate' when an oracle call of the pass was not proven exact: `gap` and `primal` are then estimates from below. */
  oracle?: 'approximate';
  /** With an approximate oracle whose every call had a bound: an upper bound on the true gap of the iterate. */
  gapUpperBound?: number;
  /** With an approximate oracle whose every call had a bound: an upper bound on the true primal of the iterate. */
  primalUpperBound?: number;
  trainError?: number;
  testError?: number;
  /** Further metrics returned by `evaluate`. */
  [metric: string]: number | string | boolean | undefined;
}

/** The fields of a ProgressEvent that a solver supplies (the counters are added by PassSolver). */
export type EventBody = { seconds: number; gapIsExact: boolean } & Record<string, number | string | boolean | undefined>;

/** Why a run stopped: exact gap below `gapThreshold`, `maxPasses` reached, `timeBudget` spent, or an AbortSignal. */
export type StopReason = 'gap' | 'maxPasses' | 'timeBudget' | 'aborted';

/**
 * The callbacks of a run, kept apart from its settings (which are plain data: see src/solvers/settings.ts): metrics,
 * progress, and the signals that stop it.
 */
export interface SolverHooks {
  /** Extra metrics at the exact checks (see evaluateEvery), e.g. `{ testError }` on a held-out set; not counted in `seconds`. */
  evaluate?: (w: Float64Array) => Record<string, number>;
  /**
   * Which exact checks run `evaluate` and the training error (not training time, but with a large test set they can
   * take most of the wall time): a check at least `passes` passes and `oracleCalls` oracle calls after the previous
   * evaluation (or the start). `{ oracleCalls: 10 * testSize }` keeps evaluation near a tenth of the oracle work.
   * Passes and oracle calls rather than seconds, so that the trace is the same on any machine. The result's metrics
   * are always those of the returned iterate (one more evaluation at the end when the last check had none).
   * Default: every check.
   */
  evaluateEvery?: { passes?: number; oracleCalls?: number };
  /** Receives a ProgressEvent after every pass and every exact check. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Receives the progress of every exact pass after each chunk (examples done of the total and the pass's
   * oracle counters: scoring, decoding, checking and reading milliseconds). Timings are kept out of the
   * trace, which stays the reproducible record of a run (same seed, same trace).
   */
  onPassProgress?: (progress: SolverPassProgress) => void;
  /**
   * Stops training at the next block step (trainAsync also sees it during a long pass of block steps); the
   * run then ends with an exact certificate of its returned iterate, one more exact pass when needed
   * (stopReason 'aborted'). An exact pass in progress when it fires is finished: it is that certificate.
   */
  signal?: AbortSignal;
  /**
   * Cancels exact passes (trainAsync only: between chunks of the pass). Once aborted, an exact pass in
   * progress stops at the next chunk and none is started, so the run ends at once: its result then has no
   * certificate of the returned iterate (gapIsExact false; no primal or exact gap) and stopReason
   * 'aborted'. E.g. a second Ctrl-C while a stopped run certifies.
   */
  passSignal?: AbortSignal;
  /**
   * A stop (`signal` or `timeBudget`) inside a pass of block steps finishes the pass when the rest of it, at the
   * pace of its steps so far, takes at most this many seconds; otherwise the run stops at that step, and its
   * checkpoint records where (a resumed run continues there, as if never stopped). Default 1; 0 stops at once.
   * How a stop ends, not a setting of the run's path: the results of a resumed run do not depend on it.
   */
  finishPass?: number;
}

/** {@link PassProgress} of an exact pass inside a solver run: which solver, after which pass. */
export interface SolverPassProgress extends PassProgress {
  solver: string;
  pass: number;
}

/** What every solver returns: the weights, the last certificate (primal, dual, gap) and the run counters. */
export interface SolverResult {
  /** The returned weights (the averaged iterate when averaging is on). */
  w: Float64Array;
  lambda: number;
  solver: string;
  passes: number;
  effectivePasses: number;
  oracleCalls: number;
  seconds: number;
  primal?: number;
  dual?: number;
  /** Last exact duality gap (undefined for SSG); with an approximate oracle an estimate from below. */
  gap?: number;
  /** Whether `gap` is a certificate: measured at the returned iterate with every oracle call exact. */
  gapIsExact: boolean;
  /** True when an oracle call of the last exact pass was not proven exact (see src/core/approximate.ts). */
  approximateOracle?: true;
  /** With an approximate oracle whose every call had a bound: an upper bound on the true gap of the returned iterate. */
  gapUpperBound?: number;
  /** The matching upper bound on the primal of the returned iterate. */
  primalUpperBound?: number;
  trainError?: number;
  stopReason: StopReason;
  /** The run's `gapThreshold`. */
  gapThreshold: number;
  /**
   * Whether the returned certificate meets `gapThreshold` (an exact gap, or with an approximate oracle the gap's upper
   * bound, <= it); false when the run stopped on the pass cap, the time budget or an abort before that, or when the
   * upper bound is above it; undefined without a certificate (SSG, an approximate oracle without bounds).
   */
  thresholdReached?: boolean;
  trace: ProgressEvent[];
  /** Further metrics of the last `evaluate` call. */
  metrics: Record<string, number>;
  /** Native threads the run's decodes used (see {@link setThreads}); results do not depend on it. */
  threads: number;
  /**
   * Oracle counters of this run (a resumed run: since it resumed): batched passes, timed per-object oracle
   * calls and data reads (see OracleCounters); absent when the problem keeps none.
   */
  oracle?: OracleCounters;
}

/** Resolved common options with defaults applied and validated. */
export interface ResolvedCommon {
  lambda: number;
  gapThreshold: number;
  gapCheck: number;
  maxPasses: number;
  timeBudget: number;
  seed: number;
}

/**
 * The common settings with their defaults, after {@link validateSettings} has checked them for `solver` (a solver
 * named in the settings must be this one).
 */
export function resolveCommon(problem: Problem, solver: SolverName, o: TrainSettings, defaultMaxPasses: number): ResolvedCommon {
  check(o.solver === undefined || o.solver === solver, `settings name solver '${String(o.solver)}', but this is the ${solver} solver`);
  validateSettings({ ...o, solver });
  return {
    lambda: o.lambda ?? 1 / problem.n,
    gapThreshold: o.gapThreshold ?? 0.1,
    gapCheck: o.gapCheck ?? 10,
    maxPasses: o.maxPasses ?? defaultMaxPasses,
    timeBudget: o.timeBudget ?? Infinity,
    seed: o.seed ?? 1,
  };
}

/** Result of one full oracle pass at a fixed w. */
export interface FullPass {
  /**
   * sum_i H_i(w) with H_i(w) = max_y L_i(y) - <w, psi_i(y)> (each clipped at 0: y_i scores 0); from below when an
   * oracle call was approximate.
   */
  hingeSum: number;
  /** Per-block H_i(w). */
  hinge: Float64Array;
  /** Whether every oracle call of the pass was exact (no label marked approximate). */
  exact: boolean;
  /** sum_i of the approximate calls' slacks (src/core/approximate.ts): the true sum_i H_i(w) is <= hingeSum + slack; 0 when exact. */
  slack: number;
}

/** A point where a pass generator pauses: the progress of an exact pass after a chunk, or null between block steps. */
export type PassStep = PassProgress | null;

/** Blocks of the per-object exact pass between two progress reports. */
const PER_OBJECT_CHUNK = 256;

/**
 * Calls the oracle on every block at w (DESIGN seam 3: the exact pass), as a generator that yields the
 * pass's progress after each chunk and returns the result: batched through Problem.batch when the problem
 * has it, else block by block. If `psiSum` is given, sum_i psi_i(y*_i) and sum_i L_i(y*_i) are accumulated
 * into it (batch FW needs them), block by block. If `predictions` is given, it receives the plain
 * prediction of every block (from the batched pass where the model provides them, else Problem.predict).
 * Drive it with {@link fullOraclePass} (synchronous) or {@link fullOraclePassAsync} (cancellable).
 */
export function* exactPass(problem: Problem, w: Float64Array, psiSum?: { dense: Float64Array; loss: number }, predictions?: unknown[]): Generator<PassProgress, FullPass, void> {
  const n = problem.n;
  const hinge = new Float64Array(n);
  let hingeSum = 0;
  let slack = 0;
  let exact = true;
  if (problem.batch) {
    // Batched: all n loss-augmented decodings at once; psi is built only where batch FW needs it.
    const labels: unknown[] | undefined = psiSum ? new Array<unknown>(n) : undefined;
    const slacks = new Float64Array(n);
    yield* problem.batch.pass(w, { hinge, slack: slacks, ...(labels ? { labels } : {}), ...(predictions ? { predictions } : {}) });
    for (let i = 0; i < n; i++) {
      const h = (hinge[i] = checkedHinge(hinge[i]!, i));
      hingeSum += h;
      slack += slacks[i]!;
      if (psiSum && h > 0) addPsi(psiSum, problem.psi(i, labels![i]), problem.loss(i, labels![i]));
      if (predictions && predictions[i] === undefined) predictions[i] = problem.predict(i, w);
    }
    return { hingeSum, hinge, exact: slacks.every((x) => x === 0), slack };
  }
  for (let i = 0; i < n; i++) {
    if (predictions) predictions[i] = problem.predict(i, w);
    const y = problem.oracle(i, w);
    const s = oracleSlack(y);
    if (s > 0) {
      exact = false;
      slack += s;
    }
    const psi = problem.psi(i, y);
    const L = problem.loss(i, y);
    const h = checkedHinge(L - dotSparse(w, psi), i);
    hinge[i] = h;
    hingeSum += h;
    if (psiSum && h > 0) addPsi(psiSum, psi, L);
    if ((i + 1) % PER_OBJECT_CHUNK === 0 || i + 1 === n) yield { done: i + 1, total: n, ...zeroCounters() };
  }
  return { hingeSum, hinge, exact, slack };
}

/** Runs a pass generator to its end without pausing (the synchronous drive). */
export function runSteps<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** The exact pass, synchronously (see {@link exactPass}). */
export function fullOraclePass(problem: Problem, w: Float64Array, psiSum?: { dense: Float64Array; loss: number }, predictions?: unknown[]): FullPass {
  return runSteps(exactPass(problem, w, psiSum, predictions));
}

/** Options of {@link fullOraclePassAsync}. */
export interface AsyncPassOptions {
  /** See {@link exactPass}. */
  psiSum?: { dense: Float64Array; loss: number };
  /** See {@link exactPass}. */
  predictions?: unknown[];
  /** Stops the pass between chunks: the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called after every chunk. */
  onProgress?: (progress: PassProgress) => void;
}

/**
 * The exact pass, yielding to the event loop after every chunk: progress can be drawn and signals handled
 * while it runs, and an AbortSignal stops it between chunks (the promise rejects with the signal's reason;
 * an already aborted signal rejects before any work). Same results as {@link fullOraclePass}.
 */
export async function fullOraclePassAsync(problem: Problem, w: Float64Array, options: AsyncPassOptions = {}): Promise<FullPass> {
  const { signal } = options;
  signal?.throwIfAborted();
  const steps = exactPass(problem, w, options.psiSum, options.predictions);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    options.onProgress?.(r.value);
    await yieldToEventLoop();
    signal?.throwIfAborted();
  }
}

/** psiSum += psi_i(y) and its loss += L_i(y). */
function addPsi(psiSum: { dense: Float64Array; loss: number }, psi: SparseVector, L: number): void {
  for (let k = 0; k < psi.nnz; k++) psiSum.dense[psi.indices[k]!]! += psi.values[k]!;
  psiSum.loss += L;
}

/**
 * The oracle must beat the ground truth, whose value is 0 ([B] sanity check). A tiny negative value is
 * rounding and is treated as 0 (the ground truth is the maximiser); a clearly negative one is a bug in
 * the oracle and fails loudly.
 */
export function checkedHinge(h: number, i: number): number {
  if (h >= 0) return h;
  if (h > -1e-9) return 0;
  throw new InputError(`oracle of block ${i} returned a label scoring ${h} < 0 = the ground truth's score: the max-oracle is not exact`);
}

/**
 * Exact block gaps g_i = lambda w_i^T w - l_i + H_i(w)/n at a dual point given by its blocks (w_i, l_i),
 * w = sum_i w_i (2016 paper, eq. 10 with the oracle's corner). They are >= 0 and sum to primal - dual.
 * `blockDotW(i)` returns <w_i, w>; `hinge` is the per-block H_i(w) of a full oracle pass at w.
 */
export function blockGaps(lambda: number, blockDotW: (i: number) => number, lBlocks: Float64Array, hinge: Float64Array): Float64Array {
  const n = lBlocks.length;
  const g = new Float64Array(n);
  for (let i = 0; i < n; i++) g[i] = lambda * blockDotW(i) - lBlocks[i]! + hinge[i]! / n;
  return g;
}

/**
 * Primal and dual of the pair (w, l) given sum_i H_i(w) (2013 paper, eq. 4 and Sec. 3). Under box constraints (2016
 * App. H) pass the unclipped v with w = clip(v): the dual is then l - lambda (<v, w> - ||w||^2 / 2), which is
 * l - lambda/2 ||w||^2 for positivity constraints. Their gap is {@link passGap}'s.
 */
export function certificate(lambda: number, n: number, w: Float64Array, l: number, hingeSum: number, v: Float64Array = w) {
  return { primal: 0.5 * lambda * dot(w, w) + hingeSum / n, dual: dualObjective(lambda, w, l, v) };
}


/** {@link certificate} from an exact pass, with its gapStatus (src/core/approximate.ts). */
export function passCertificate(lambda: number, n: number, w: Float64Array, l: number, pass: FullPass, v: Float64Array = w) {
  const { primal, dual } = certificate(lambda, n, w, l, pass.hingeSum, v);
  const gap = passGap(primal, dual, pass);
  return { primal, dual, gap, ...gapStatus(primal, gap, pass, n) };
}

/** The certificate of an exact pass (see {@link passCertificate}). */
export type PassCertificate = ReturnType<typeof passCertificate>;

/** The dual objective of (w, l) alone (see {@link certificate}): l - lambda (<v, w> - ||w||^2 / 2) with w = clip(v). */
export function dualObjective(lambda: number, w: Float64Array, l: number, v: Float64Array = w): number {
  const wSq = dot(w, w);
  return v === w ? l - 0.5 * lambda * wSq : l - lambda * (dot(v, w) - 0.5 * wSq);
}


/** A setting of the objective as checkpoints record it (see {@link objectiveSettings}). */
export type ObjectiveSetting = string | number | boolean | null;

/** Lists up to this many plain entries are recorded as they are; longer ones by their CRC-32. */
const LISTED_ENTRIES = 8;

/**
 * The settings that define a problem's objective besides lambda and the data: the model's (Problem.objective:
 * losses, costs, normalisers, feature scalings, types) and the box bounds, flattened to dotted names
 * (`options.defScale`, `bounds.lower`); long lists and typed arrays are recorded by their length and CRC-32.
 */
export function objectiveSettings(problem: Problem): Record<string, ObjectiveSetting> {
  const out: Record<string, ObjectiveSetting> = {};
  const add = (name: string, v: unknown): void => {
    if (v === undefined || typeof v === 'function') return;
    if (v === null || typeof v === 'boolean' || typeof v === 'string') out[name] = v;
    else if (typeof v === 'number') out[name] = Number.isFinite(v) ? v : String(v);
    else if (ArrayBuffer.isView(v)) out[name] = digest(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), (v as unknown as ArrayLike<number>).length);
    else if (Array.isArray(v) && v.length <= LISTED_ENTRIES && v.every((x) => x === null || typeof x !== 'object')) out[name] = JSON.stringify(v);
    else if (Array.isArray(v)) out[name] = digest(Buffer.from(JSON.stringify(v)), v.length);
    else for (const key of Object.keys(v as object).sort()) add(name === '' ? key : `${name}.${key}`, (v as Record<string, unknown>)[key]);
  };
  add('', problem.objective?.() ?? {});
  add('bounds.lower', problem.bounds?.lower);
  add('bounds.upper', problem.bounds?.upper);
  return out;
}

function digest(bytes: Uint8Array, length: number): string {
  return `${length} entries, CRC-32 ${(crc32(bytes) >>> 0).toString(16).padStart(8, '0')}`;
}

/**
 * Refuses a checkpoint made on other training data or under other settings of the objective (`what`: 'checkpoint'
 * for a resume, 'warm start' for a start at another lambda), naming every setting that differs.
 * @throws InputError
 */
export function checkSameObjective(meta: SolverCheckpoint['meta'], problem: Problem, what: string): void {
  const data = problem.fingerprint?.();
  check(
    meta.dataFingerprint === undefined || data === undefined || meta.dataFingerprint === data,
    () => `${what} was made on other training data (data fingerprint ${meta.dataFingerprint}, this data ${data}): use the data it was made on`,
  );
  const made = meta.objective;
  check(made !== undefined && made !== null && typeof made === 'object', `${what} does not record the settings of its objective (made by an earlier gapbcfw): start a new run`);
  const mine = objectiveSettings(problem);
  const differ = [...new Set([...Object.keys(made), ...Object.keys(mine)])]
    .filter((k) => made[k] !== mine[k])
    .map((k) => `${k} = ${show(made[k])}, not ${show(mine[k])}`);
  check(differ.length === 0, () => `${what} was made under other settings of the objective: ${differ.join('; ')} (its dual point and certificate belong to that objective)`);
}

const show = (v: ObjectiveSetting | undefined) => (v === undefined ? '(unset)' : typeof v === 'string' ? v : JSON.stringify(v));

/** Mean training loss of plain predictions. */
export function trainingError(problem: Problem, w: Float64Array): number {
  let s = 0;
  for (let i = 0; i < problem.n; i++) s += problem.loss(i, problem.predict(i, w));
  return s / problem.n;
}

/**
 * A snapshot of a solver between two passes: scalars and the trace in `meta` (JSON), vectors in `arrays`.
 * It maps one-to-one onto a model file (src/io/model-file.ts), so a run can be saved and resumed exactly.
 */
export interface SolverCheckpoint {
  meta: {
    solver: string;
    n: number;
    dim: number;
    /** Settings of the run (timeBudget null when unlimited). */
    options: Omit<ResolvedCommon, 'timeBudget'> & { timeBudget: number | null } & Record<string, unknown>;
    passes: number;
    /** Block steps taken in the pass that a stop interrupted (0: the run stopped between passes). */
    passStep?: number;
    oracleCalls: number;
    seconds: number;
    rngState?: number[];
    trace: ProgressEvent[];
    /** Problem.fingerprint() of the training data: a resume on other data is refused. */
    dataFingerprint?: string;
    /** {@link objectiveSettings} of the problem: a resume or warm start under other settings is refused. */
    objective?: Record<string, ObjectiveSetting>;
    [key: string]: unknown;
  };
  arrays: Record<string, Float64Array | Int32Array>;
}

/**
 * Common skeleton of the iterative solvers: counters, clock, trace and stopping tests. A subclass
 * implements `runPass` (one pass; false when finished), `result` and `checkpoint`.
 */
export abstract class PassSolver {
  readonly trace: ProgressEvent[];
  passes: number;
  /**
   * Block steps taken in the current pass when a stop interrupted it (see SolverHooks.finishPass): the
   * next pass continues there. 0 between passes.
   */
  protected passStep: number;
  oracleCalls: number;
  stopReason: StopReason = 'maxPasses';
  protected readonly clock: TrainingClock;
  protected lastMetrics: Record<string, number> = {};
  /** Passes and oracle calls of the last evaluation (the start before the first; see evaluateEvery). */
  private lastEvaluation = { passes: 0, oracleCalls: 0 };
  /** False when the last exact check skipped its evaluation: lastMetrics are then of an older iterate. */
  private metricsCurrent = true;
  /**
   * True once an exact pass was cancelled (passSignal): the run has ended (runPass returns false from then
   * on) and its result has no certificate of its iterate.
   */
  protected exactPassCancelled = false;
  private readonly countersAtStart: OracleCounters | undefined;
  /** The state where the run stopped, taken before the certificate of its iterate (see {@link resumePoint}). */
  private stopPoint: SolverCheckpoint | undefined;

  protected constructor(
    readonly name: string,
    protected readonly problem: Problem,
    protected readonly settings: TrainSettings,
    protected readonly hooks: SolverHooks,
    readonly config: ResolvedCommon,
    restored?: SolverCheckpoint,
  ) {
    if (restored) {
      const m = restored.meta;
      check(m.solver === name, `checkpoint is of solver '${m.solver}', not '${name}'`);
      check(m.n === problem.n && m.dim === problem.dim, `checkpoint is for n = ${m.n}, dim = ${m.dim}; this problem has n = ${problem.n}, dim = ${problem.dim}`);
      for (const key of ['lambda', 'seed'] as const) {
        check(m.options[key] === config[key], `checkpoint was made with ${key} = ${m.options[key]}, not ${config[key]}`);
      }
      checkSameObjective(m, problem, 'checkpoint');
    }
    this.trace = restored ? [...restored.meta.trace] : [];
    this.passes = restored?.meta.passes ?? 0;
    this.passStep = restored?.meta.passStep ?? 0;
    check(Number.isInteger(this.passStep) && this.passStep >= 0 && this.passStep < problem.n, `checkpoint: passStep must be an integer in 0..${problem.n - 1}, got ${this.passStep}`);
    this.oracleCalls = restored?.meta.oracleCalls ?? 0;
    this.clock = new TrainingClock(restored?.meta.seconds ?? 0);
    for (const [key, x] of Object.entries(hooks.evaluateEvery ?? {})) check(x === undefined || (Number.isFinite(x) && x >= 0), `evaluateEvery.${key} must be a number >= 0, got ${x}`);
    if (restored) {
      this.lastEvaluation = (restored.meta.lastEvaluation as typeof this.lastEvaluation | undefined) ?? { passes: this.passes, oracleCalls: this.oracleCalls };
      this.metricsCurrent = false; // the checkpoint keeps no metrics
    }
    this.countersAtStart = problem.counters?.();
    const finishPass = hooks.finishPass ?? 1;
    check(finishPass >= 0, `finishPass must be >= 0 seconds, got ${finishPass}`);
  }

  /** Runs one pass; returns true while another pass will follow, false once stopped (see `stopReason`). */
  abstract runPass(): boolean;

  /**
   * One pass as a generator that pauses after each chunk of an exact pass (with its progress) and, during a
   * long run of block steps, every few tens of milliseconds (null); it returns what runPass returns. A solver
   * that does not provide it runs its pass in one go.
   */
  protected *passSteps(): Generator<PassStep, boolean, void> {
    return this.runPass();
  }

  /**
   * runPass that yields to the event loop at every pause of the pass (see passSteps), so that signals,
   * timers and progress drawing run during a long pass; when `passSignal` is aborted at a pause inside an
   * exact pass, the pass is abandoned and the run ends without a certificate of its iterate.
   */
  async runPassAsync(): Promise<boolean> {
    const steps = this.passSteps();
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      await yieldToEventLoop();
      if (r.value !== null && this.hooks.passSignal?.aborted) {
        steps.return(false);
        this.stopReason = 'aborted';
        this.exactPassCancelled = true;
        return false;
      }
    }
  }

  /** The exact pass at w inside a pass generator: forwards its progress to onPassProgress and pauses per chunk. */
  protected *exactPass(w: Float64Array, psiSum?: { dense: Float64Array; loss: number }): Generator<PassStep, FullPass, void> {
    const steps = exactPass(this.problem, w, psiSum);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      this.hooks.onPassProgress?.({ solver: this.name, pass: this.passes, ...r.value });
      yield r.value;
    }
  }
  /** The current result: weights (averaged when averaging is on), counters, the last certificate and the trace. */
  abstract result(): SolverResult;
  /** The full solver state (iterates, caches, counters, PRNG state, trace); pass it as `resume` to continue exactly. */
  abstract checkpoint(): SolverCheckpoint;

  /**
   * The state to resume from: where a stopped run stopped, before the exact pass that certified its returned
   * iterate (that pass and its trace event are the stopped run's, not a step of the path: a resumed run goes on
   * exactly as an uninterrupted one); else the current state.
   */
  resumePoint(): SolverCheckpoint {
    return this.stopPoint ?? this.checkpoint();
  }

  /** Records the state to resume from before the certificate of a stopped run (see {@link resumePoint}). */
  protected recordStop(at: SolverCheckpoint = this.checkpoint()): void {
    this.stopPoint = at;
  }

  /** Passes done, with the steps of an interrupted pass as a fraction: identifies the iterate a certificate belongs to. */
  protected at(): number {
    return this.passes + this.passStep / this.problem.n;
  }

  get effectivePasses(): number {
    return this.oracleCalls / this.problem.n;
  }

  protected emit(e: EventBody): void {
    const step = this.passStep > 0 ? { passStep: this.passStep } : {};
    const event = { solver: this.name, pass: this.passes, ...step, effectivePasses: this.effectivePasses, oracleCalls: this.oracleCalls, ...e } as ProgressEvent;
    this.trace.push(event);
    this.hooks.onProgress?.(event);
  }

  /** Sets stopReason and returns true when the run must stop before the next block step. */
  protected mustStop(): boolean {
    if (this.hooks.signal?.aborted) this.stopReason = 'aborted';
    else if (this.clock.seconds > this.config.timeBudget) this.stopReason = 'timeBudget';
    else return false;
    return true;
  }

  /**
   * One pass of n block steps, from where a stopped run left it (passStep): `step(s)` takes steps s, s+1, ... and
   * returns how many it took (1, or a mini-batch), checking the stop conditions (abort, time budget) between calls
   * and, before each, the optional `converged` test. A stop finishes the pass when the rest of it takes at most
   * `finishPass` seconds at the pace of its steps so far, else ends it there ('interrupted', with passStep set).
   * Pauses (yields null) every few tens of milliseconds, so that trainAsync sees a signal during a long pass.
   */
  protected *sweep(step: (s: number) => number, converged?: () => boolean): Generator<PassStep, 'complete' | 'interrupted' | 'converged', void> {
    const n = this.problem.n;
    const start = this.passStep;
    const t0 = this.clock.seconds;
    let finishing = false;
    let paused = performance.now();
    this.passStep = 0;
    for (let s = start, calls = 1; s < n; calls++) {
      if (converged?.()) return 'converged';
      s += step(s);
      if (s < n && !finishing && this.mustStop() && !(finishing = this.finishesPass(s, start, t0))) return 'interrupted';
      if ((calls & 31) === 0 && performance.now() - paused > 25) {
        yield null;
        paused = performance.now();
      }
    }
    return 'complete';
  }

  /**
   * A stop at step s of a sweep that began at step `start`, `t0` seconds into the run: true to finish the pass (the
   * rest takes at most `finishPass` seconds at the pace of its steps so far), else the pass ends at s (passStep).
   */
  protected finishesPass(s: number, start: number, t0: number): boolean {
    const n = this.problem.n;
    if (((this.clock.seconds - t0) / (s - start)) * (n - s) <= (this.hooks.finishPass ?? 1)) return true;
    this.passStep = s;
    return false;
  }

    /** The resolved settings in JSON-safe form (an unlimited time budget becomes null). */
  protected baseOptions(): SolverCheckpoint['meta']['options'] {
    return { ...this.config, timeBudget: Number.isFinite(this.config.timeBudget) ? this.config.timeBudget : null };
  }

  protected baseCheckpoint(extra: Record<string, unknown>, arrays: SolverCheckpoint["arrays"], rngState?: Uint32Array): SolverCheckpoint {
    const meta: SolverCheckpoint['meta'] = {
      solver: this.name,
      n: this.problem.n,
      dim: this.problem.dim,
      ...(this.problem.fingerprint ? { dataFingerprint: '' } : {}),
      objective: objectiveSettings(this.problem),
      options: this.baseOptions(),
      passes: this.passes,
      ...(this.passStep > 0 ? { passStep: this.passStep } : {}),
      oracleCalls: this.oracleCalls,
      seconds: this.clock.seconds,
      ...(rngState ? { rngState: Array.from(rngState) } : {}),
      trace: [...this.trace],
      lastEvaluation: this.lastEvaluation,
      ...extra,
    };
    // The data's checksum is taken when the checkpoint is read (written, resumed, compared), in its place among the
    // keys: a run that keeps its resume point in memory only does not hash its data set.
    const { fingerprint } = this.problem;
    if (fingerprint) {
      let memo: string | undefined;
      Object.defineProperty(meta, 'dataFingerprint', { enumerable: true, configurable: true, get: () => (memo ??= fingerprint.call(this.problem)) });
    }
    return { meta, arrays };
  }

  /**
   * The result around w and its certificate; `certified` when cert comes from an exact pass at w, whose status
   * (cert.gapIsExact false: an approximate oracle) decides whether the gap is exact.
   */
  protected baseResult(w: Float64Array, cert: Partial<Pick<SolverResult, 'primal' | 'dual' | 'gap' | 'gapUpperBound' | 'primalUpperBound'> & GapStatus>, certified: boolean): SolverResult {
    if (!this.metricsCurrent) {
      this.lastMetrics = evaluateAt(this.problem, w, this.settings.trainError === true, this.hooks.evaluate, this.clock);
      this.metricsCurrent = true;
    }
    const approximate = certified && cert.gapIsExact === false;
    const gapIsExact = certified && !approximate;
    const bound = approximate ? cert.gapUpperBound : cert.gap;
    const { gapIsExact: _exact, oracle: _oracle, gapUpperBound: _gapBound, primalUpperBound: _primalBound, ...numbers } = cert;
    return {
      w: Float64Array.from(w),
      lambda: this.config.lambda,
      solver: this.name,
      passes: this.passes,
      effectivePasses: this.effectivePasses,
      oracleCalls: this.oracleCalls,
      seconds: this.clock.seconds,
      ...numbers,
      gapIsExact,
      ...(approximate ? { approximateOracle: true as const, gapUpperBound: cert.gapUpperBound, primalUpperBound: cert.primalUpperBound } : {}),
      trainError: this.lastMetrics.trainError,
      stopReason: this.stopReason,
      gapThreshold: this.config.gapThreshold,
      ...(certified && bound !== undefined ? { thresholdReached: bound <= this.config.gapThreshold } : {}),
      trace: this.trace,
      metrics: this.lastMetrics,
      threads: threads(),
      ...(this.countersAtStart ? { oracle: subtractCounters(this.problem.counters!(), this.countersAtStart) } : {}),
    };
  }

  /** trainError / user metrics at w, outside the training clock, at the exact checks that evaluateEvery picks. */
  protected evaluate(w: Float64Array): Record<string, number> {
    const every = this.hooks.evaluateEvery ?? {};
    const last = this.lastEvaluation;
    if (this.passes - last.passes < (every.passes ?? 0) || this.oracleCalls - last.oracleCalls < (every.oracleCalls ?? 0)) {
      this.metricsCurrent = false;
      return {};
    }
    this.lastMetrics = evaluateAt(this.problem, w, this.settings.trainError === true, this.hooks.evaluate, this.clock);
    this.lastEvaluation = { passes: this.passes, oracleCalls: this.oracleCalls };
    this.metricsCurrent = true;
    return this.lastMetrics;
  }
}

/** Wall clock of training that can pause while the caller evaluates (evaluation time is not training time). */
export class TrainingClock {
  private start = performance.now();
  private paused = 0;
  constructor(private readonly offset = 0) {}
  get seconds(): number {
    return this.offset + (performance.now() - this.start - this.paused) / 1000;
  }
  /** Runs f without counting its time. */
  excluded<T>(f: () => T): T {
    const t0 = performance.now();
    try {
      return f();
    } finally {
      this.paused += performance.now() - t0;
    }
  }
}

/** Evaluation at an exact check: training error and user metrics, outside the training clock. */
export function evaluateAt(
  problem: Problem,
  w: Float64Array,
  trainError: boolean,
  evaluate: SolverHooks['evaluate'],
  clock: TrainingClock,
): Record<string, number> {
  return clock.excluded(() => {
    const out: Record<string, number> = {};
    if (trainError) out.trainError = trainingError(problem, w);
    if (evaluate) Object.assign(out, evaluate(w));
    return out;
  });
}
