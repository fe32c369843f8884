import { check } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { gapStatus, passGap } from '../core/approximate.js';
import type { TrainSettings } from './settings.js';
import { clipInto, resolveBounds, type ClipBounds } from './bounds.js';
import {
  certificate,
  dualObjective,
  checkSameObjective,
  PassSolver,
  resolveCommon,
  runSteps,
  type SolverHooks,
  type PassStep,
  type SolverCheckpoint,
  type SolverResult,
} from './common.js';
import { WorkingSet } from './working-set.js';

/** The hooks of a cutting-plane run: {@link SolverHooks} and a warm start. */
export interface CuttingPlaneHooks extends SolverHooks {
  /**
   * Start from the dual point of another run, at any lambda: a cutting-plane checkpoint gives its whole working
   * set (its constraints do not depend on lambda) and its dual variables; a BCFW or FW checkpoint gives its dual
   * point as one constraint (lambda_old v, l), a convex combination of joint constraints. Counters and trace start afresh.
   */
  warmStart?: { from: SolverCheckpoint; mode?: string };
}

/** Cutting-plane result: the working set's size and the QP's work. */
export interface CuttingPlaneResult extends SolverResult {
  /** Constraints in the working set at the end (the ground truth included). */
  workingSet: number;
  /** Pairwise steps of the QP solver over the run (a resumed run: since it resumed). */
  qpIterations: number;
}

/**
 * The default cap on iterations: more than FW's 200, since an iteration adds a single cut and SVMstruct runs
 * until converged (OCR-small at lambda = 1/n needs about 250 iterations to a gap of 0.1, 1,350 to 0.001).
 */
export const CUTTING_PLANE_MAX_PASSES = 1000;

/** Steps of one QP solve at most (a safety net: the QP normally stops on its gap long before). */
const MAX_QP_STEPS = 100_000;

/**
 * The 1-slack cutting-plane method of SVMstruct (Joachims, Finley & Yu 2009, Alg. 4), i.e. fully corrective
 * Frank-Wolfe on the structural SVM dual (2013 paper, Sec. 3, "Relationship with cutting plane algorithms").
 * Each iteration runs the exact oracle pass at w (batched on native threads where the model has it); the pass
 * gives the exact duality gap of w - the primal from its hinges, the dual from the working set's QP (see
 * WorkingSet: it is the n-slack dual value) - and the most violated joint constraint, which joins the working
 * set; the dual QP over the working set is then re-solved from the previous solution, and constraints idle for
 * `inactiveWindow` iterations are removed. A "pass" is one iteration; `gapCheck` is not used.
 */
export class CuttingPlaneSolver extends PassSolver {
  private readonly qpTolerance: number;
  private readonly inactiveWindow: number;
  private readonly bounds: ClipBounds | undefined;
  private readonly set: WorkingSet;
  /** v = (1/lambda) sum beta_c a_c and w = clip(v) (the same array without bounds); l = sum beta_c b_c. */
  private readonly v: Float64Array;
  private readonly w: Float64Array;
  private l = 0;
  /** The iterate of the smallest primal so far (returned and certified) and that primal. */
  private readonly best: Float64Array;
  private bestPrimal = Infinity;
  /** The oracle pass behind bestPrimal: exact, or approximate with its slack (src/core/approximate.ts). */
  private bestPass = { exact: true, slack: 0 };
  private readonly psiSum: { dense: Float64Array; loss: number };
  private qpIterations = 0;
  /** Pairwise steps of the last QP solve. */
  private lastQpSteps = 0;
  private finished = false;

  constructor(problem: Problem, settings: TrainSettings = {}, hooks: CuttingPlaneHooks = {}, restored?: SolverCheckpoint) {
    super('cutting-plane', problem, settings, hooks, resolveCommon(problem, 'cutting-plane', settings, CUTTING_PLANE_MAX_PASSES), restored);
    this.qpTolerance = settings.qpTolerance ?? 0.1;
    this.inactiveWindow = settings.inactiveWindow ?? 50;
    check(!(restored && hooks.warmStart), 'resume and warmStart exclude each other');
    check(hooks.warmStart?.mode === undefined, 'the cutting plane warm-starts from { from } only (its constraints do not depend on lambda): no mode');
    this.bounds = resolveBounds(problem);
    const d = problem.dim;
    this.set = new WorkingSet(d, this.bounds);
    this.v = new Float64Array(d);
    this.w = this.bounds ? new Float64Array(d) : this.v;
    this.best = new Float64Array(d);
    this.psiSum = { dense: new Float64Array(d), loss: 0 };
    if (restored) {
      const m = restored.meta;
      for (const key of ['qpTolerance', 'inactiveWindow'] as const) {
        check(m.options[key] === this[key], `checkpoint was made with ${key} = ${m.options[key]}, not ${this[key]}`);
      }
      this.set.load(restored.arrays);
      const best = restored.arrays.best;
      check(best instanceof Float64Array && best.length === d, "checkpoint array 'best' is missing or has the wrong length");
      this.best.set(best);
      this.bestPrimal = m.bestPrimal === null ? Infinity : Number(m.bestPrimal);
      if (m.bestSlack !== undefined) this.bestPass = { exact: false, slack: m.bestSlack === null ? Infinity : Number(m.bestSlack) };
      this.lastQpSteps = Number(m.lastQpSteps);
    } else if (hooks.warmStart) {
      this.warmStartFrom(hooks.warmStart.from);
    }
    this.updateDualPoint();
  }

  /** v, w and l from the working set's beta. */
  private updateDualPoint(): void {
    this.l = this.set.dualPoint(this.config.lambda, this.v);
    if (this.bounds) clipInto(this.v, this.bounds, this.w);
  }

  private warmStartFrom(from: SolverCheckpoint): void {
    const m = from.meta;
    const { n, dim: d } = this.problem;
    check(m.n === n && m.dim === d, `warm start needs a checkpoint of this problem (n = ${n}, dim = ${d}), got n = ${m.n}, dim = ${m.dim}`);
    // Constraints are sums over the training data and the model's losses and features: those of other data or
    // other settings would not be valid cuts here.
    checkSameObjective(m, this.problem, 'warm start');
    if (m.solver === 'cutting-plane') {
      this.set.load(from.arrays);
      this.set.resetIdle();
      return;
    }
    check(m.solver === 'bcfw' || m.solver === 'fw', `warm start needs a checkpoint of cutting-plane, bcfw or fw, not '${m.solver}'`);
    const v = from.arrays.w;
    const l = Number(m.l);
    check(v instanceof Float64Array && v.length === d && Number.isFinite(l), "the warm start's checkpoint has no dual point (array 'w' and 'l')");
    // Its dual point (v, l) at lambda_old is sum_i alpha_i(y) (psi_i(y) / (lambda_old n), L_i(y) / n): the
    // constraint a = lambda_old v, b = l is a convex combination of joint constraints, hence a valid cut.
    const oldLambda = Number(m.options.lambda);
    this.set.add(Float64Array.from(v, (x) => oldLambda * x), l);
    this.set.beta[0] = 0;
    this.set.beta[1] = 1;
  }

  checkpoint(): SolverCheckpoint {
    return this.baseCheckpoint(
      {
        bestPrimal: Number.isFinite(this.bestPrimal) ? this.bestPrimal : null,
        ...(this.bestPass.exact ? {} : { bestSlack: Number.isFinite(this.bestPass.slack) ? this.bestPass.slack : null }),
        lastQpSteps: this.lastQpSteps,
        options: { ...this.baseOptions(), qpTolerance: this.qpTolerance, inactiveWindow: this.inactiveWindow },
      },
      { ...this.set.save(), best: this.best },
    );
  }

  runPass(): boolean {
    return runSteps(this.passSteps());
  }

  protected override *passSteps(): Generator<PassStep, boolean, void> {
    if (this.finished || this.exactPassCancelled) return false;
    const { problem, w, v, psiSum } = this;
    const { n } = problem;
    const lambda = this.config.lambda;
    psiSum.dense.fill(0);
    psiSum.loss = 0;
    // The exact pass at w: H_i(w) for the primal, and sum_i psi_i(y*_i), sum_i L_i(y*_i) of the most violated
    // joint constraint (Alg. 4, line 5).
    const pass = yield* this.exactPass(w, psiSum);
    this.oracleCalls += n;
    // The primal of w is not monotone in the iterations; the dual is. The run returns the best iterate so far,
    // certified against the current dual (a valid lower bound): its gap never increases.
    const { primal, dual } = certificate(lambda, n, w, this.l, pass.hingeSum, v);
    if (primal < this.bestPrimal) {
      this.bestPrimal = primal;
      this.best.set(w);
      this.bestPass = { exact: pass.exact, slack: pass.slack };
    }
    const gap = passGap(this.bestPrimal, dual, this.bestPass);
    this.emit({
      seconds: this.clock.seconds,
      primal: this.bestPrimal,
      dual,
      gap,
      ...gapStatus(this.bestPrimal, gap, this.bestPass, n),
      iteratePrimal: primal,
      workingSet: this.set.size,
      qpIterations: this.lastQpSteps,
      ...this.evaluate(this.best),
    });
    if (gap <= this.config.gapThreshold) this.stopReason = 'gap';
    else if (this.passes >= this.config.maxPasses) this.stopReason = 'maxPasses';
    else if (!this.mustStop()) {
      // a = (1/n) sum_i psi_i(y*_i), b = (1/n) sum_i L_i(y*_i); then the QP from the previous beta, whose QP
      // gap on the enlarged set is the exact gap just measured (Alg. 4, lines 6-7).
      const dense = psiSum.dense;
      for (let j = 0; j < dense.length; j++) dense[j] = dense[j]! / n;
      this.set.add(dense, psiSum.loss / n);
      this.lastQpSteps = this.set.solve(lambda, this.qpTolerance * (primal - dual), MAX_QP_STEPS).iterations;
      this.qpIterations += this.lastQpSteps;
      this.set.prune(this.inactiveWindow);
      this.updateDualPoint();
      this.passes++;
      return true;
    }
    this.finished = true;
    return false;
  }

  result(): CuttingPlaneResult {
    check(this.finished || this.exactPassCancelled, 'the cutting plane has not finished: call runPass() until it returns false');
    const extra = { workingSet: this.set.size, qpIterations: this.qpIterations };
    const dual = dualObjective(this.config.lambda, this.w, this.l, this.v);
    // Before any completed pass (passSignal cancelled the first) there is no primal: the dual only.
    if (!Number.isFinite(this.bestPrimal)) return { ...this.baseResult(this.w, { dual }, false), ...extra };
    // The best iterate against the current dual: still a certificate when a later pass was cancelled.
    const gap = passGap(this.bestPrimal, dual, this.bestPass);
    return { ...this.baseResult(this.best, { primal: this.bestPrimal, dual, gap, ...gapStatus(this.bestPrimal, gap, this.bestPass, this.problem.n) }, true), ...extra };
  }
}

/** Runs the cutting-plane method to completion (see CuttingPlaneSolver). */
export function cuttingPlane(problem: Problem, settings: TrainSettings = {}, hooks: CuttingPlaneHooks = {}): CuttingPlaneResult {
  const s = new CuttingPlaneSolver(problem, settings, hooks);
  while (s.runPass());
  return s.result();
}
