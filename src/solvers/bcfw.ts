import { performance } from 'node:perf_hooks';
import { check, OptionError } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { Rng } from '../core/rng.js';
import { BlockAtoms } from '../cache/atoms.js';
import type { NativeMulticlassBatch } from '../native/addon.js';
import { GapSampler } from '../sampling/gap-sampler.js';
import { threads } from '../native/threads.js';
import { ClassDualBlocks, DenseBlocks, SparseBlocks, type BlockStorage } from './blocks.js';
import { BlockStepper, type ResolvedCache } from './block-step.js';
import { resolveBounds } from './bounds.js';
import {
  blockGaps,
  fullOraclePass,
  passCertificate,
  PassSolver,
  resolveCommon,
  runSteps,
  type PassCertificate,
  type PassStep,
  type ResolvedCommon,
  type SolverCheckpoint,
} from './common.js';
import { DualState, SKIPPED_BLOCKS } from './dual-state.js';
import { MiniBatchScheduler } from './minibatch.js';
import { NativeSteps, nativeStepModel } from './native-steps.js';
import { StateCodec } from './state-codec.js';
import type { BcfwHooks, BcfwResult } from './bcfw-options.js';
import type { CacheSettings, Sampling, StepType, TrainSettings } from './settings.js';

export type { BcfwCounters, BcfwHooks, BcfwResult, BlockStepInfo, WarmStart } from './bcfw-options.js';

/** The resolved settings of a BCFW run (see TrainSettings). */
interface BcfwSettings {
  sampling: Sampling;
  gapDegree: number;
  step: StepType;
  cache: ResolvedCache | undefined;
  lineSearch: boolean;
  averaging: boolean;
  blockStorage: 'dense' | 'sparse' | 'classes';
  heuristicExit: number | false;
  batch: number;
  overlap: boolean;
  /** Permutation sampling skips the blocks whose gap estimate is 0 (TrainSettings.shrinking). */
  shrinking: boolean;
  /** The native step model the steps run on, when they run natively. */
  nativeModel: unknown;
}

/** The settings a resumed run must share with its checkpoint. */
const RESUMED_SETTINGS = ['sampling', 'gapDegree', 'step', 'cache', 'lineSearch', 'averaging', 'heuristicExit', 'blockStorage', 'batch', 'overlap', 'shrinking'] as const;

/**
 * Block-coordinate Frank-Wolfe for the structural SVM dual (Lacoste-Julien et al. 2013, Algorithm 4) with the
 * switches of "Minding the Gaps" (Osokin et al. 2016): gap sampling (Alg. 2), pairwise and away steps (Alg. 3-4, and
 * the hybrid that takes the move with the largest dual improvement), gap-based caching (Alg. 5), and exact block
 * solves over few corners. One engine; every combination of sampling x step x cache x averaging runs.
 *
 * This class drives passes, exact checks, events and checkpoints. Its collaborators: the dual point (DualState), the
 * gap sampler (estimates and sum tree), the block step (BlockStepper in TypeScript; the native step loop,
 * NativeSteps, for built-in models with native oracles: the same algorithm and arithmetic), the mini-batch scheduler
 * and the state codec (checkpoints, warm starts). The block gap towards a corner y is
 * g_i(y) = lambda w_i^T w - l_i + s_i(y)/n with s_i(y) = L_i(y) - <w, psi_i(y)> (2016 eq. 10). Gap estimates g_i are
 * set by oracle calls (clipped at 0) and refreshed by the exact pass every `gapCheck` passes, whose total is the
 * stopping certificate; the run always ends with an exact gap.
 */
export class BcfwSolver extends PassSolver {
  private readonly s: BcfwSettings;
  private readonly dual: DualState;
  private readonly sampler: GapSampler;
  private readonly rng: Rng;
  private readonly order: Int32Array;
  private readonly codec: StateCodec;
  private readonly stepper: BlockStepper | undefined;
  private readonly scheduler: MiniBatchScheduler | undefined;
  private readonly native: NativeSteps | undefined;
  private last: PassCertificate | undefined;
  private checkedAt = -1;
  private passesSinceCheck = 0;
  private lastBlockGaps: Float64Array | undefined;
  private finished = false;
  /** Steps per call of the native loop (grows while a call takes under a few milliseconds). */
  private runLength = 64;
  private stepCosts: Float64Array | undefined;

  constructor(problem: Problem, settings: TrainSettings = {}, private readonly bcfwHooks: BcfwHooks = {}, restored?: SolverCheckpoint) {
    const config = resolveCommon(problem, 'bcfw', settings, 200);
    super('bcfw', problem, settings, bcfwHooks, config, restored);
    this.s = resolveSettings(problem, settings, bcfwHooks, restored);
    const { n } = problem;
    this.dual = new DualState(config.lambda, n, problem.dim, this.makeBlocks(config), resolveBounds(problem), this.s.averaging, this.makeAtoms());
    this.dual.cacheGap = this.s.cache?.initialGap ?? Infinity;
    this.order = new Int32Array(n);
    this.rng = new Rng(config.seed);
    this.sampler = new GapSampler(n, this.s.gapDegree, this.rng);
    this.codec = new StateCodec(problem, this.dual, this.sampler, this.rng, this.s.averaging);
    const { start, warmStart } = bcfwHooks;
    check(!(start && warmStart), 'start and warmStart exclude each other');
    if (restored) this.restore(restored);
    else if (warmStart) this.codec.warmStart(warmStart);
    else if (start) this.codec.startAtCorners(start, this.s.cache !== undefined);
    if (this.s.nativeModel !== undefined) this.native = this.makeNative();
    else {
      this.stepper = this.makeStepper();
      if (this.s.batch > 1) this.scheduler = this.makeScheduler(this.stepper);
    }
    const inFlight = restored?.meta.inFlight;
    if (inFlight !== undefined) {
      check(this.scheduler !== undefined, 'checkpoint: a mini-batch in flight (inFlight) without mini-batches');
      this.scheduler.loadInFlight(inFlight);
    }
  }

  private makeBlocks(config: ResolvedCommon): BlockStorage {
    const { n, dim: d } = this.problem;
    if (this.s.blockStorage === 'classes') {
      const batch = this.s.nativeModel as NativeMulticlassBatch;
      return new ClassDualBlocks(n, batch.numLabels, (i) => this.problem.groundTruth(i) as number, batch, 1 / (config.lambda * n));
    }
    // Mini-batch runs take the dense dot products chunk by chunk (on threads, the same on any number of them).
    if (this.s.blockStorage === 'dense') return new DenseBlocks(n, d, { chunkedStats: this.s.batch > 1, threads: Math.min(threads(), 256) });
    return new SparseBlocks(n, d);
  }

  /** The dual variables and cache: every block starts with its ground truth at weight 1. */
  private makeAtoms(): BlockAtoms<unknown>[] | undefined {
    if ((this.s.step === 'fw' && !this.s.cache) || this.s.blockStorage === 'classes') return undefined;
    const { problem } = this;
    return Array.from({ length: problem.n }, (_, i) => {
      const a = new BlockAtoms<unknown>();
      const gt = problem.groundTruth(i);
      a.add(gt, problem.labelKey(gt), 0, 1);
      return a;
    });
  }

  private stepSettings() {
    const { s } = this;
    return { step: s.step, cache: s.cache, lineSearch: s.lineSearch, averaging: s.averaging, checkConsistency: this.settings.checkConsistency === true, onStep: this.bcfwHooks.onStep, costs: this.costs };
  }

  /**
   * The adaptive cache's step costs (StepSettings.costs): the model's counted operations per block, the dense block
   * sweep added to what every step does.
   */
  private get costs(): Float64Array | undefined {
    const { problem } = this;
    if (!this.s.cache?.adaptive || !problem.stepCost) return undefined;
    if (this.stepCosts) return this.stepCosts;
    const sweep = this.s.blockStorage === 'dense' ? problem.dim : 0;
    const c = new Float64Array(3 * problem.n);
    for (let i = 0; i < problem.n; i++) {
      const { potentials, oracle, perLabel } = problem.stepCost(i);
      c.set([potentials + sweep, oracle, perLabel], 3 * i);
    }
    return (this.stepCosts = c);
  }

  private makeStepper(): BlockStepper {
    return new BlockStepper(this.problem, this.stepSettings(), this.dual, this.sampler, () => this.oracleCalls++);
  }

  private makeScheduler(stepper: BlockStepper): MiniBatchScheduler {
    const scheduler: MiniBatchScheduler = new MiniBatchScheduler(this.problem, this.s.batch, this.s.overlap, this.s.sampling === 'gap', this.dual, this.sampler, stepper,
      (s: number, orNone: boolean): number => this.nextBlock(s, orNone, scheduler.taken), (calls) => (this.oracleCalls += calls));
    return scheduler;
  }

  private makeNative(): NativeSteps {
    const { s, config } = this;
    const exitBelow = s.heuristicExit === false ? -Infinity : s.heuristicExit * config.gapThreshold;
    return new NativeSteps(s.nativeModel, this.problem, {
      step: s.step, sampling: s.sampling, gapDegree: s.gapDegree, lineSearch: s.lineSearch, averaging: s.averaging, shrinking: s.shrinking, cache: s.cache, exitBelow,
      threads: Math.min(threads(), 256), chunked: s.batch > 1, costs: this.costs,
    }, this.dual, this.sampler, this.rng, this.order);
  }

  // ---------------------------------------------------------------------------------------------
  // Sampling (2016 Alg. 2)

  /** The block at pass position s: the permutation's, a gap-sampled one (-1 with orNone when only zero estimates are left), or uniform. */
  private nextBlock(s: number, orNone: boolean, taken: Uint8Array): number {
    const uniform = () => {
      let i: number;
      do i = this.rng.int(this.problem.n);
      while (taken[i] === 1);
      return i;
    };
    switch (this.s.sampling) {
      case 'perm':
        return this.order[s]!;
      case 'gap':
        return this.sampler.draw(this.rng, taken, orNone, uniform);
      default:
        return uniform();
    }
  }

  /** Sum of the gap estimates (Infinity while a block is unvisited). */
  get gapEstimate(): number {
    return this.sampler.estimate;
  }

  // ---------------------------------------------------------------------------------------------
  // Passes, exact checks, results

  /** The iterate that is certified and returned: the weighted average when averaging is on. */
  private get returned(): { w: Float64Array; v: Float64Array; l: number } {
    return this.dual.iterate(this.s.averaging);
  }

  /**
   * Full oracle pass at the returned iterate: the exact gap (2013 Sec. 3). Without averaging it also gives the exact
   * block gaps; a scheduled check lets them replace every estimate (2016 Sec. 3.2) and set G for the cache. The final
   * check of a stopped run leaves that state alone, so a resumed run goes on exactly as an uninterrupted one would.
   */
  private *exactCheck(scheduled: boolean): Generator<PassStep, number, void> {
    const it = this.returned;
    const { n } = this.problem;
    const pass = yield* this.exactPass(it.w);
    this.oracleCalls += n;
    this.last = passCertificate(this.config.lambda, n, it.w, it.l, pass, it.v);
    if (!this.s.averaging) {
      const g = blockGaps(this.config.lambda, this.blockDots(), this.dual.lBlocks, pass.hinge);
      this.lastBlockGaps = g;
      if (scheduled) {
        this.sampler.setAll(g.map((x) => Math.max(x, 0)));
        this.dual.cacheGap = this.last.gap;
        this.dual.estimatesExact = true;
      }
    }
    this.checkedAt = this.at();
    if (scheduled) this.passesSinceCheck = 0;
    this.emit({ seconds: this.clock.seconds, ...this.last, ...this.counterFields(), ...this.evaluate(it.w) });
    return this.last.gap;
  }

  /** <w_i, w> of block i (of every block at once where the storage has it). */
  private blockDots(): (i: number) => number {
    const { blocks, w } = this.dual;
    if (!(blocks instanceof ClassDualBlocks)) return (i) => blocks.dot(i, w);
    const all = new Float64Array(this.problem.n);
    blocks.dotsAll(w, all);
    return (i) => all[i]!;
  }

  private counterFields(): Record<string, number> {
    const stored = this.storedLabels;
    return stored === undefined ? {} : { cacheHits: this.dual.counters[0]!, storedLabels: stored };
  }

  private get storedLabels(): number | undefined {
    if (!this.dual.atoms) return undefined;
    return this.native ? this.native.storedLabels : this.dual.storedLabels;
  }

  /** Exact gap for the trace only: neither counted nor used by the solver. */
  private monitor(): void {
    const it = this.returned;
    const cert = this.clock.excluded(() => passCertificate(this.config.lambda, this.problem.n, it.w, it.l, fullOraclePass(this.problem, it.w), it.v));
    this.emit({ seconds: this.clock.seconds, ...cert, monitor: true, ...this.evaluate(it.w) });
  }

  /** True when the estimated gap says the threshold is probably reached ([G] heuristic exit). */
  private heuristicallyConverged(): boolean {
    return this.s.heuristicExit !== false && this.gapEstimate <= this.s.heuristicExit * this.config.gapThreshold;
  }

  /**
   * Passes as `maxPasses` counts them: block steps that called the oracle, over n. Steps the cache answered (2016
   * Alg. 5) and the blocks shrinking skipped cost no oracle call and do not use up the cap, so a cached or shrunk run
   * gets as much oracle work as a plain one; without either this is `passes`.
   */
  private get cappedPasses(): number {
    return this.passes - (this.dual.counters[0]! + this.dual.counters[SKIPPED_BLOCKS]!) / this.problem.n;
  }

  runPass(): boolean {
    return runSteps(this.passSteps());
  }

  /** One pass of block steps: natively in runs of steps, or by the TypeScript steps (one block or one mini-batch at a time). */
  private *blockSteps(): Generator<PassStep, 'complete' | 'interrupted' | 'converged', void> {
    if (this.native) return yield* this.nativeSweep(this.native);
    let ended: 'complete' | 'interrupted' | 'converged' | undefined;
    try {
      const { stepper, scheduler } = this;
      const one = (s: number) => {
        const i = this.nextBlock(s, false, NO_BLOCKS);
        if (this.s.shrinking && this.sampler.estimates[i] === 0) this.dual.counters[SKIPPED_BLOCKS]!++; // settled
        else stepper!.step(i);
        return 1;
      };
      return (ended = yield* this.sweep(scheduler ? (s) => scheduler.step(s) : one, () => this.heuristicallyConverged()));
    } finally {
      // Stopped inside the pass: the overlapped mini-batch decoded for the next step is kept (the checkpoint carries
      // it, so that a resumed run applies it as this one would have); otherwise it goes unused.
      if (ended === 'interrupted') this.scheduler?.waitInFlight();
      else this.scheduler?.dropInFlight();
    }
  }

  /**
   * PassSolver.sweep for the native loop: runs of steps (the heuristic exit tested natively before each step), the stop
   * conditions (abort, time budget) between runs, whose length grows (across passes) to a few milliseconds each.
   */
  private *nativeSweep(native: NativeSteps): Generator<PassStep, 'complete' | 'interrupted' | 'converged', void> {
    const { n } = this.problem;
    const start = this.passStep;
    const started = this.clock.seconds;
    let finishing = false;
    let paused = performance.now();
    this.passStep = 0;
    for (let s = start; s < n; ) {
      const t0 = performance.now();
      const r = native.run(s, Math.min(n, s + this.runLength));
      this.oracleCalls += r.oracleCalls;
      s += r.steps;
      if (r.converged) return 'converged';
      if (s < n && !finishing && this.mustStop() && !(finishing = this.finishesPass(s, start, started))) return 'interrupted';
      const now = performance.now();
      if (now - t0 < 4 && this.runLength < n) this.runLength *= 2;
      if (now - paused > 25) {
        yield null;
        paused = performance.now();
      }
    }
    return 'complete';
  }

  protected override *passSteps(): Generator<PassStep, boolean, void> {
    if (this.finished || this.exactPassCancelled) return false;
    if (this.cappedPasses < this.config.maxPasses && !this.mustStop()) {
      // A pass that a stop interrupted (passStep > 0) goes on where it stopped: its start was done.
      if (this.passStep === 0 && this.passesSinceCheck >= this.config.gapCheck && this.checkedAt !== this.passes) {
        // A scheduled check that was cancelled (passSignal) before a checkpoint: run it first, as the uninterrupted
        // run did, so that a resumed run goes on alike.
        if (yield* this.scheduledCheck()) return yield* this.finish();
      }
      if (this.s.sampling === 'perm' && this.passStep === 0) {
        if (this.native) this.native.permute();
        else this.rng.permutation(this.order);
      }
      const ended = yield* this.blockSteps();
      if (ended === 'interrupted') return yield* this.finish(); // not a pass: passStep says where it stopped
      this.passes++;
      this.passesSinceCheck++;
      this.emitPass();
      const converged = ended === 'converged' || this.heuristicallyConverged();
      if (converged && this.settings.certify === false) {
        this.stopReason = 'gap';
        this.finished = true;
        return false;
      }
      // On the schedule (or the heuristic exit) only, so that a run stopped early and resumed follows the same path.
      if ((converged || this.passesSinceCheck >= this.config.gapCheck) && (yield* this.scheduledCheck())) return yield* this.finish();
      if (this.cappedPasses < this.config.maxPasses) return true;
    }
    return yield* this.finish();
  }

  /** The pass's event (the dual of the returned iterate, the estimated gap) and the monitor's exact gap when due. */
  private emitPass(): void {
    const it = this.returned;
    const estimate = this.gapEstimate;
    this.emit({
      seconds: this.clock.seconds,
      dual: this.dual.dualOf(it.v, it.w, it.l),
      ...(Number.isFinite(estimate) && !this.s.averaging ? { gapEstimate: estimate } : {}),
      gapIsExact: false,
      ...this.counterFields(),
    });
    const monitorEvery = this.settings.monitorEvery;
    if (monitorEvery && this.passes % monitorEvery === 0) this.monitor();
  }

  /** w and l rebuilt from the blocks, then the exact check; true when its gap meets the threshold (stopReason 'gap'). */
  private *scheduledCheck(): Generator<PassStep, boolean, void> {
    this.dual.resync();
    if ((yield* this.exactCheck(true)) > this.config.gapThreshold) return false;
    this.stopReason = 'gap';
    return true;
  }

  /** The result always carries an exact certificate: one more full pass if the last pass was not checked. */
  private *finish(): Generator<PassStep, false, void> {
    if (!this.finished && this.settings.certify !== false && (this.checkedAt !== this.at() || this.last === undefined)) {
      this.recordStop();
      yield* this.exactCheck(false);
    }
    this.finished = true;
    return false;
  }

  result(): BcfwResult {
    check(this.finished || this.exactPassCancelled, 'BCFW has not finished: call runPass() until it returns false');
    const it = this.returned;
    // Without certification the last exact check may be stale: report the estimate of the current point.
    const certified = this.last !== undefined && this.checkedAt === this.at();
    const cert = certified ? this.last! : { dual: this.dual.dualOf(it.v, it.w, it.l), gap: this.gapEstimate };
    return {
      ...this.baseResult(it.w, cert, certified),
      blockGaps: this.lastBlockGaps,
      batch: this.s.batch,
      overlap: this.s.overlap,
      shrinking: this.s.shrinking,
      counters: this.dual.counterValues,
      storedLabels: this.storedLabels,
      native: this.native !== undefined,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Checkpoints

  checkpoint(): SolverCheckpoint {
    this.native?.pull();
    const { meta, arrays } = this.codec.save();
    const { s } = this;
    const { lastExactTotal, counters, firstVisitOrder, atoms, cacheGains, ...point } = meta;
    if (this.passStep > 0 && s.sampling === 'perm') arrays.order = this.order; // the interrupted pass's order
    const inFlight = this.scheduler?.saveInFlight();
    return this.baseCheckpoint(
      {
        ...point, checkedAt: this.checkedAt, passesSinceCheck: this.passesSinceCheck, last: this.last ?? null, lastExactTotal, counters, firstVisitOrder, atoms, cacheGains,
        ...(inFlight ? { inFlight } : {}),
        options: {
          ...this.baseOptions(), sampling: s.sampling, gapDegree: s.gapDegree, step: s.step, cache: s.cache ?? null, lineSearch: s.lineSearch, averaging: s.averaging,
          heuristicExit: s.heuristicExit, blockStorage: s.blockStorage, batch: s.batch, overlap: s.overlap, shrinking: s.shrinking,
        },
      },
      arrays,
      this.rng.state,
    );
  }

  private restore(r: SolverCheckpoint): void {
    const m = r.meta;
    const mine = this.checkpoint().meta.options;
    // Checkpoints made before mini-batches stepped one block at a time, those before shrinking did not skip.
    const made: Record<string, unknown> = { ...m.options, batch: m.options.batch ?? 1, overlap: m.options.overlap ?? false, shrinking: m.options.shrinking ?? false };
    for (const key of RESUMED_SETTINGS) {
      check(JSON.stringify(made[key]) === JSON.stringify(mine[key]), `checkpoint was made with ${key} = ${JSON.stringify(made[key])}, not ${JSON.stringify(mine[key])}`);
    }
    this.codec.restore(r);
    this.checkedAt = Number(m.checkedAt);
    this.passesSinceCheck = Number(m.passesSinceCheck);
    this.last = (m.last ?? undefined) as typeof this.last;
    if (this.passStep > 0 && this.s.sampling === 'perm') {
      const order = r.arrays.order;
      check(order instanceof Int32Array && order.length === this.order.length, "checkpoint array 'order' (of the interrupted pass) is missing or has the wrong length");
      this.order.set(order);
    }
  }

  /**
   * Delta of Prop. 1 (2016 paper, eq. 11) for lowering lambda: sum_i u_i with u_i = l_i - lambda w_i^T w, the rate at
   * which the gap grows as rho = lambda_new / lambda decreases (see StateCodec.pathDelta).
   */
  pathDelta(): number {
    return this.codec.pathDelta();
  }

  /** The current (not averaged) dual point: w, v (under bounds a copy, valid until the next call), l and whether the gap estimates are exact block gaps. */
  get state(): { w: Float64Array; v: Float64Array; l: number; gapEstimate: number; estimatesExact: boolean } {
    const d = this.dual;
    return { w: d.w, v: d.box.v(), l: d.l, gapEstimate: this.gapEstimate, estimatesExact: d.estimatesExact };
  }
}

/** No block is taken (steps one block at a time). */
const NO_BLOCKS = new Uint8Array(0);


/**
 * The settings of a run with their defaults (validateSettings has checked them on their own), and the rules that
 * depend on the problem: native exact multiclass steps keep class weights, averaging needs dense blocks.
 */
function resolveSettings(problem: Problem, o: TrainSettings, hooks: BcfwHooks, restored: SolverCheckpoint | undefined): BcfwSettings {
  const sampling = o.sampling ?? 'uniform';
  const gapDegree = o.gapDegree ?? 1;
  const step = o.step ?? 'fw';
  const cache = resolveCache(o.cache, restored);
  const lineSearch = o.lineSearch ?? true;
  const { batch, overlap, nativeModel } = resolveBatch(problem, o, hooks, restored, step);
  const exactNative = step === 'exact' && nativeModel !== undefined;
  const blockStorage = o.blockStorage ?? (exactNative ? 'classes' : problem.n * problem.dim * 8 <= 2 ** 30 ? 'dense' : 'sparse');
  if (blockStorage === 'classes' && !exactNative) throw new OptionError("blockStorage 'classes' is for exact steps on multiclass rows in native code");
  if (exactNative && blockStorage !== 'classes') throw new OptionError("native exact steps on multiclass rows keep their blocks as class weights (blockStorage 'classes')");
  if (step === 'exact' && problem.bounds) throw new OptionError('exact steps take no box constraints');
  const plain = sampling !== 'gap' && step === 'fw' && !cache && blockStorage === 'dense';
  const averaging = o.averaging ?? plain;
  if (averaging && blockStorage !== 'dense') throw new OptionError(`--averaging costs O(d) per step: it needs dense block storage (this problem takes ${blockStorage} block storage)`);
  const heuristicExit = o.heuristicExit ?? (averaging ? false : 0.8);
  const shrinking = o.shrinking ?? (restored ? restored.meta.options.shrinking === true : step === 'exact' && sampling === 'perm' && batch === 1);
  if (shrinking && batch > 1) throw new OptionError('--shrinking steps one block at a time: it cannot be combined with --batch > 1');
  return { sampling, gapDegree, step, cache, lineSearch, averaging, blockStorage, heuristicExit, batch, overlap, shrinking, nativeModel };
}

/**
 * Blocks per step, overlap, and the native step model when the steps run natively (batch 1). A resumed run keeps the
 * batch it was made with (checkpoints before mini-batches: 1) unless told otherwise. Mini-batches pay off by default
 * where the oracle is costly (Problem.miniBatches; docs/results.md, multi-core training), except on built-in models
 * with native oracles (dense and sparse chains, multiclass), which step natively one block at a time: faster on a few
 * cores than mini-batches of TypeScript steps, even CoNLL's (docs/benchmarks.md). The default never depends on the
 * threads.
 */
function resolveBatch(problem: Problem, o: TrainSettings, hooks: BcfwHooks, restored: SolverCheckpoint | undefined, step: StepType): { batch: number; overlap: boolean; nativeModel: unknown } {
  const { n } = problem;
  const stepModel = o.native === false || hooks.onStep || o.checkConsistency ? undefined : nativeStepModel(problem);
  // Exact steps run natively on multiclass rows (their K corners), elsewhere in TypeScript over the working set.
  const native = stepModel !== undefined && (step !== 'exact' || typeof problem.groundTruth(0) === 'number') ? stepModel : undefined;
  const background = problem.batch?.decodesInBackground?.() === true;
  const costly = native === undefined && problem.batch !== undefined && problem.miniBatches === true;
  const batch = o.batch ?? (restored ? Number(restored.meta.options.batch ?? 1) : defaultBatch(n, costly));
  const tau = Math.min(batch, n);
  // Overlap by default where the updates are the larger part of a step (a cheap oracle that decodes in the background:
  // OCR's dense chains). A costly oracle (miniBatches: pose) already keeps the threads busy with plain mini-batches, and
  // the extra mini-batch of staleness cost it more passes than the overlap saved time.
  const overlap = o.overlap ?? (restored ? restored.meta.options.overlap === true : tau > 1 && background && problem.miniBatches !== true);
  if (o.overlap === true && tau === 1) throw new OptionError('--overlap needs --batch > 1: there is no next mini-batch to decode while one block is applied');
  return { batch: tau, overlap, nativeModel: tau === 1 ? native : undefined };
}

/**
 * The default blocks per step (tau) for n blocks: it depends on the problem and n, never on the machine's threads,
 * so that a seed and a command give the same trace and model on 1 or 64 cores (threads change only the speed).
 * Mini-batches where the oracle is costly enough for them to pay off (`costly`: a batched oracle and
 * StructuredModel.miniBatches, and no native block steps: segmentation, pose, chains with rules): 8 blocks, at most
 * n/32 (at least 1), so that one step's blocks stay a small part of the data and their updates close to sequential
 * ones; 1 (the sequential algorithm) everywhere else. A cheap oracle (OCR's dense chains, multiclass) gains nothing
 * from mini-batches: on OCR-large, tau 8 overlapped on 2 threads took 1.2x the time of tau 1 to the gap 0.01. See
 * docs/results.md (multi-core training) for the measurements.
 */
export function defaultBatch(n: number, costly: boolean): number {
  return costly ? Math.max(1, Math.min(8, Math.floor(n / 32))) : 1;
}

/** Runs BCFW to completion (see BcfwSolver). */
export function bcfw(problem: Problem, settings: TrainSettings = {}, hooks: BcfwHooks = {}): BcfwResult {
  const s = new BcfwSolver(problem, settings, hooks);
  while (s.runPass());
  return s.result();
}

/** The cache's settings; a resumed run keeps its checkpoint's adaptive rule (checkpoints before it: off). */
function resolveCache(c: boolean | CacheSettings | undefined, restored: SolverCheckpoint | undefined): ResolvedCache | undefined {
  if (c === undefined || c === false) return undefined;
  const o = c === true ? {} : c;
  const made = (restored?.meta.options.cache ?? undefined) as { adaptive?: boolean } | undefined;
  const adaptive = o.adaptive ?? (restored ? made?.adaptive === true : true);
  return { factor: o.factor ?? 0.25, nu: o.nu ?? 0.01, maxSize: o.maxSize ?? 50, initialGap: o.initialGap ?? 1, adaptive };
}
