import { check } from '../core/errors.js';
import { clipInto, resolveBounds, type ClipBounds } from './bounds.js';
import type { Problem } from '../core/problem.js';
import { Rng } from '../core/rng.js';
import { dotSparse } from '../core/vector.js';
import {
  certificate,
  checkedHinge,
  fullOraclePass,
  PassSolver,
  resolveCommon,
  runSteps,
  type PassStep,
  type SolverHooks,
  type SolverCheckpoint,
  type SolverResult,
} from './common.js';
import type { Sampling, TrainSettings } from './settings.js';

/**
 * Stochastic subgradient baseline (Pegasos-type; 2013 paper, Sec. 6 and [B] solverSSG.m):
 * w_{k+1} = (1 - gamma) w_k + gamma psi_i(y*)/lambda with gamma = 1/(k+1). There is no dual, so every
 * `gapCheck` passes only the primal is evaluated (one full oracle pass); it stops on `maxPasses`
 * (default 50) or the time budget. `gap` and `dual` stay undefined.
 */
export class SsgSolver extends PassSolver {
  private readonly sampling: Sampling;
  private readonly averaging: boolean;
  private readonly monitorEvery: number | undefined;
  private readonly w: Float64Array;
  private readonly wAvg: Float64Array;
  private readonly bounds: ClipBounds | undefined;
  private k = 0;
  private rng: Rng;
  private readonly order: Int32Array;
  private primal: number | undefined;
  private checkedAt = -1;
  private finished = false;

  constructor(problem: Problem, settings: TrainSettings = {}, hooks: SolverHooks = {}, restored?: SolverCheckpoint) {
    const config = resolveCommon(problem, 'ssg', settings, 50);
    super('ssg', problem, settings, hooks, config, restored);
    this.sampling = settings.sampling ?? 'uniform';
    this.averaging = settings.averaging ?? true;
    this.monitorEvery = settings.monitorEvery;
    this.bounds = resolveBounds(problem);
    this.w = new Float64Array(problem.dim);
    this.wAvg = this.averaging ? new Float64Array(problem.dim) : this.w;
    this.order = new Int32Array(problem.n);
    this.rng = new Rng(config.seed);
    if (restored) {
      const m = restored.meta;
      check(m.options.sampling === this.sampling && m.options.averaging === this.averaging, 'checkpoint was made with other sampling/averaging settings');
      for (const [name, target] of [['w', this.w], ['wAvg', this.wAvg]] as const) {
        const a = restored.arrays[name];
        check(a instanceof Float64Array && a.length === problem.dim, `checkpoint array '${name}' is missing or has the wrong length`);
        target.set(a);
      }
      if (this.passStep > 0 && this.sampling === 'perm') {
        const order = restored.arrays.order;
        check(order instanceof Int32Array && order.length === problem.n, "checkpoint array 'order' (of the interrupted pass) is missing or has the wrong length");
        this.order.set(order);
      }
      this.k = Number(m.k);
      this.checkedAt = Number(m.checkedAt);
      this.primal = typeof m.primal === 'number' ? m.primal : undefined;
      this.rng = new Rng(Uint32Array.from(m.rngState ?? []));
    }
  }

  checkpoint(): SolverCheckpoint {
    return this.baseCheckpoint(
      { k: this.k, checkedAt: this.checkedAt, primal: this.primal ?? null, options: { ...this.baseOptions(), sampling: this.sampling, averaging: this.averaging } },
      { w: this.w, wAvg: this.wAvg, ...(this.passStep > 0 && this.sampling === 'perm' ? { order: this.order } : {}) },
      this.rng.state,
    );
  }

  private step(i: number): void {
    const { problem, w, wAvg } = this;
    const d = w.length;
    const y = problem.oracle(i, w);
    this.oracleCalls++;
    const psi = problem.psi(i, y);
    const valid = checkedHinge(problem.loss(i, y) - dotSparse(w, psi), i) > 0;
    const gamma = 1 / (this.k + 1);
    for (let j = 0; j < d; j++) w[j]! *= 1 - gamma;
    if (valid) {
      const scale = gamma / this.config.lambda;
      for (let q = 0; q < psi.nnz; q++) w[psi.indices[q]!]! += scale * psi.values[q]!;
    }
    if (this.bounds) clipInto(w, this.bounds, w); // projected subgradient step
    if (this.averaging) {
      const rho = 2 / (this.k + 2);
      for (let j = 0; j < d; j++) wAvg[j] = (1 - rho) * wAvg[j]! + rho * w[j]!;
    }
    this.k++;
  }

  private *primalCheck(): Generator<PassStep, void, void> {
    const { n } = this.problem;
    const pass = yield* this.exactPass(this.wAvg);
    this.oracleCalls += n;
    this.primal = certificate(this.config.lambda, n, this.wAvg, 0, pass.hingeSum).primal;
    this.checkedAt = this.at();
    const seconds = this.clock.seconds;
    this.emit({ seconds, primal: this.primal, gapIsExact: false, ...(pass.exact ? {} : { oracle: 'approximate' as const }), ...this.evaluate(this.wAvg) });
  }

  /** The primal for the trace only: neither counted nor timed. */
  private monitor(): void {
    const { n } = this.problem;
    const primal = this.clock.excluded(() => certificate(this.config.lambda, n, this.wAvg, 0, fullOraclePass(this.problem, this.wAvg).hingeSum).primal);
    this.emit({ seconds: this.clock.seconds, primal, gapIsExact: false, monitor: true, ...this.evaluate(this.wAvg) });
  }

  runPass(): boolean {
    return runSteps(this.passSteps());
  }

  protected override *passSteps(): Generator<PassStep, boolean, void> {
    if (this.finished || this.exactPassCancelled) return false;
    if (this.passes < this.config.maxPasses && !this.mustStop()) {
      const { n } = this.problem;
      if (this.sampling === 'perm' && this.passStep === 0) this.rng.permutation(this.order); // not when resuming inside a pass
      const interrupted = (yield* this.sweep((s) => (this.step(this.sampling === 'perm' ? this.order[s]! : this.rng.int(n)), 1))) === 'interrupted';
      if (interrupted) return yield* this.finish(); // not a pass: passStep says where it stopped
      this.passes++;
      if (this.passes % this.config.gapCheck === 0) yield* this.primalCheck();
      else this.emit({ seconds: this.clock.seconds, gapIsExact: false });
      if (this.monitorEvery && this.passes % this.monitorEvery === 0) this.monitor();
      if (this.passes < this.config.maxPasses) return true;
    }
    return yield* this.finish();
  }

  /** Ends the run with the primal of its returned iterate: one more full pass if the last check was of another. */
  private *finish(): Generator<PassStep, false, void> {
    if (this.checkedAt !== this.at()) {
      this.recordStop();
      yield* this.primalCheck();
    }
    this.finished = true;
    return false;
  }

  result(): SolverResult {
    check(this.finished || this.exactPassCancelled, 'SSG has not finished: call runPass() until it returns false');
    // A cancelled primal check (passSignal) leaves no primal of the returned iterate.
    return this.baseResult(this.wAvg, this.exactPassCancelled || this.checkedAt !== this.at() ? {} : { primal: this.primal }, false);
  }
}

/** Runs SSG to completion (see SsgSolver). */
export function ssg(problem: Problem, settings: TrainSettings = {}, hooks: SolverHooks = {}): SolverResult {
  const s = new SsgSolver(problem, settings, hooks);
  while (s.runPass());
  return s.result();
}
