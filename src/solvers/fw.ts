import { check } from '../core/errors.js';
import { clipInto, resolveBounds, type ClipBounds } from './bounds.js';
import type { Problem } from '../core/problem.js';
import type { TrainSettings } from './settings.js';
import {
  dualObjective,
  passCertificate,
  PassSolver,
  resolveCommon,
  runSteps,
  type PassCertificate,
  type PassStep,
  type SolverHooks,
  type SolverCheckpoint,
  type SolverResult,
} from './common.js';

/**
 * Batch Frank-Wolfe on the structural SVM dual (2013 paper, Algorithm 2). Every iteration is one full
 * oracle pass, which also yields the exact duality gap of the current iterate (eq. 5), so the stopping
 * test runs every iteration (it takes no `gapCheck`). A "pass" is one iteration.
 */
export class FwSolver extends PassSolver {
  private readonly lineSearch: boolean;
  /** w = clip(v) under box constraints (2016 App. H, [G] onePass_FW), else v itself. */
  private readonly w: Float64Array;
  private readonly v: Float64Array;
  private readonly bounds: ClipBounds | undefined;
  private l = 0;
  private readonly psiSum: { dense: Float64Array; loss: number };
  private last: PassCertificate | undefined;
  private finished = false;

  constructor(problem: Problem, settings: TrainSettings = {}, hooks: SolverHooks = {}, restored?: SolverCheckpoint) {
    super('fw', problem, settings, hooks, resolveCommon(problem, 'fw', settings, 200), restored);
    this.lineSearch = settings.lineSearch ?? true;
    this.bounds = resolveBounds(problem);
    this.v = new Float64Array(problem.dim);
    this.w = this.bounds ? new Float64Array(problem.dim) : this.v;
    this.psiSum = { dense: new Float64Array(problem.dim), loss: 0 };
    if (restored) {
      check(restored.meta.options.lineSearch === this.lineSearch, 'checkpoint was made with another lineSearch setting');
      const w = restored.arrays.w;
      check(w instanceof Float64Array && w.length === problem.dim, "checkpoint array 'w' is missing or has the wrong length");
      this.v.set(w);
      if (this.bounds) clipInto(this.v, this.bounds, this.w);
      this.l = Number(restored.meta.l);
    }
  }

  checkpoint(): SolverCheckpoint {
    return this.baseCheckpoint({ l: this.l, options: { ...this.baseOptions(), lineSearch: this.lineSearch } }, { w: this.v });
  }

  runPass(): boolean {
    return runSteps(this.passSteps());
  }

  protected override *passSteps(): Generator<PassStep, boolean, void> {
    if (this.finished || this.exactPassCancelled) return false;
    const { problem, w, v, psiSum } = this;
    const { n, dim: d } = problem;
    const lambda = this.config.lambda;
    psiSum.dense.fill(0);
    psiSum.loss = 0;
    // The state before this iteration's exact pass: where a run that stops after it resumes (the pass certifies the
    // returned w and, when the run goes on, gives the step's corner; w and l change only then).
    const atStart = this.checkpoint();
    const pass = yield* this.exactPass(w, psiSum);
    this.oracleCalls += n;
    this.last = passCertificate(lambda, n, w, this.l, pass, v);
    const seconds = this.clock.seconds;
    this.emit({ seconds, ...this.last, ...this.evaluate(w) });
    if (this.last.gap <= this.config.gapThreshold) this.stopReason = 'gap';
    else if (this.passes >= this.config.maxPasses) this.stopReason = 'maxPasses';
    else if (!this.mustStop()) {
      // Corner v_s = sum_i psi_i / (lambda n), l_s = sum_i L_i / n; gap = lambda w^T(v - v_s) - l + l_s.
      const lambdaN = lambda * n;
      let gamma: number;
      if (this.lineSearch) {
        let distSq = 0;
        for (let j = 0; j < d; j++) {
          const diff = v[j]! - psiSum.dense[j]! / lambdaN;
          distSq += diff * diff;
        }
        gamma = Math.min(Math.max(this.last.gap / (lambda * distSq + Number.EPSILON), 0), 1);
      } else {
        gamma = 2 / (this.passes + 2);
      }
      for (let j = 0; j < d; j++) v[j] = (1 - gamma) * v[j]! + (gamma * psiSum.dense[j]!) / lambdaN;
      if (this.bounds) clipInto(v, this.bounds, w);
      this.l = (1 - gamma) * this.l + (gamma * psiSum.loss) / n;
      this.passes++;
      return true;
    }
    this.recordStop(atStart);
    this.finished = true;
    return false;
  }

  result(): SolverResult {
    check(this.finished || this.exactPassCancelled, 'FW has not finished: call runPass() until it returns false');
    // A cancelled pass (passSignal) leaves no certificate of the current iterate: its dual only.
    if (this.exactPassCancelled || !this.last) return this.baseResult(this.w, { dual: dualObjective(this.config.lambda, this.w, this.l, this.v) }, false);
    return this.baseResult(this.w, this.last, true);
  }
}

/** Runs batch FW to completion (see FwSolver). */
export function fw(problem: Problem, settings: TrainSettings = {}, hooks: SolverHooks = {}): SolverResult {
  const s = new FwSolver(problem, settings, hooks);
  while (s.runPass());
  return s.result();
}
