import { check } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { Rng } from '../core/rng.js';
import { dot, dotSparse, normSqSparse } from '../core/vector.js';
import { native } from '../native.js';
import {
  blockGaps,
  certificate,
  checkedHinge,
  fullOraclePass,
  PassSolver,
  resolveCommon,
  type CommonSolverOptions,
  type SolverCheckpoint,
  type SolverResult,
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
 * rebuilt from the blocks at every scheduled exact check to stop drift). A block step calls the oracle for block i,
 * forms the corner w_s = psi_i(y*)/(lambda n), l_s = L_i(y*)/n and moves w_i towards it with the
 * line-search step gamma = g_i / (lambda ||w_i - w_s||^2) clipped to [0, 1], where
 * g_i = lambda (w_i - w_s)^T w - (l_i - l_s) is the block gap (eq. 10 of the 2016 paper).
 * Every `gapCheck` passes a full oracle pass gives the exact gap of the returned iterate; the run always
 * ends with an exact gap (one more full pass if the last pass was not a check).
 */
export class BcfwSolver extends PassSolver {
  private readonly sampling: Sampling;
  private readonly lineSearch: boolean;
  private readonly averaging: boolean;
  private readonly w: Float64Array;
  private l = 0;
  private readonly wBlocks: Float64Array;
  private readonly lBlocks: Float64Array;
  private readonly wAvg: Float64Array;
  private lAvg = 0;
  /** Block steps done (the k of Alg. 4). */
  private k = 0;
  private rng: Rng;
  private readonly order: Int32Array;
  private readonly stats = new Float64Array(3);
  private last: { primal: number; dual: number; gap: number } | undefined;
  private checkedAt = -1;
  private lastBlockGaps: Float64Array | undefined;
  private finished = false;

  constructor(problem: Problem, private readonly bcfwOptions: BcfwOptions = {}, restored?: SolverCheckpoint) {
    const config = resolveCommon(problem, bcfwOptions, 200);
    super('bcfw', problem, bcfwOptions, config, restored);
    this.sampling = bcfwOptions.sampling ?? 'uniform';
    check(this.sampling === 'uniform' || this.sampling === 'perm', `unknown sampling '${this.sampling}' (uniform | perm)`);
    this.lineSearch = bcfwOptions.lineSearch ?? true;
    this.averaging = bcfwOptions.averaging ?? true;
    const { n, dim: d } = problem;
    this.w = new Float64Array(d);
    this.wBlocks = new Float64Array(n * d);
    this.lBlocks = new Float64Array(n);
    this.wAvg = this.averaging ? new Float64Array(d) : this.w;
    this.order = new Int32Array(n);
    this.rng = new Rng(config.seed);
    if (restored) this.restore(restored);
  }

  private restore(r: SolverCheckpoint): void {
    const m = r.meta;
    for (const key of ['sampling', 'lineSearch', 'averaging'] as const) {
      check(m.options[key] === this[key], `checkpoint was made with ${key} = ${String(m.options[key])}, not ${String(this[key])}`);
    }
    const get = (name: string, length: number) => {
      const a = r.arrays[name];
      check(a instanceof Float64Array && a.length === length, `checkpoint array '${name}' is missing or has the wrong length`);
      return a;
    };
    this.wBlocks.set(get('wBlocks', this.wBlocks.length));
    this.lBlocks.set(get('lBlocks', this.lBlocks.length));
    this.w.set(get('w', this.w.length));
    if (this.averaging) this.wAvg.set(get('wAvg', this.wAvg.length));
    this.l = Number(m.l);
    this.lAvg = Number(m.lAvg);
    this.k = Number(m.k);
    this.checkedAt = Number(m.checkedAt);
    this.last = m.last as typeof this.last;
    this.rng = new Rng(Uint32Array.from(m.rngState ?? []));
  }

  checkpoint(): SolverCheckpoint {
    const arrays: Record<string, Float64Array> = { wBlocks: this.wBlocks, lBlocks: this.lBlocks, w: this.w };
    if (this.averaging) arrays.wAvg = this.wAvg;
    return this.baseCheckpoint(
      { l: this.l, lAvg: this.lAvg, k: this.k, checkedAt: this.checkedAt, last: this.last ?? null, options: { ...this.baseOptions(), sampling: this.sampling, lineSearch: this.lineSearch, averaging: this.averaging } },
      arrays,
      this.rng.state,
    );
  }

  /** The iterate that is certified and returned: the weighted average when averaging is on. */
  private get returned(): { w: Float64Array; l: number } {
    return this.averaging ? { w: this.wAvg, l: this.lAvg } : { w: this.w, l: this.l };
  }

  /** One block step on block i (Alg. 4 lines 4-9). */
  private blockStep(i: number): void {
    const { problem, w, stats } = this;
    const { n, dim: d } = problem;
    const lambda = this.config.lambda;
    const lambdaN = lambda * n;
    const y = problem.oracle(i, w);
    this.oracleCalls++;
    const psi = problem.psi(i, y);
    const L = problem.loss(i, y);
    const wDotPsi = dotSparse(w, psi);
    // If the ground truth is a maximiser the corner is w_s = 0, l_s = 0.
    const valid = checkedHinge(L - wDotPsi, i) > 0;
    const nnz = valid ? psi.nnz : 0;
    const wi = this.wBlocks.subarray(i * d, (i + 1) * d);
    const li = this.lBlocks[i]!;
    native.blockStats(wi, w, psi.indices, psi.values, nnz, stats);
    const ls = valid ? L / n : 0;
    const blockGap = lambda * stats[0]! - (valid ? wDotPsi / n : 0) - li + ls;
    let gamma: number;
    if (this.lineSearch) {
      // ||w_i - w_s||^2 = ||w_i||^2 - 2 <w_i, psi>/(lambda n) + ||psi||^2/(lambda n)^2
      const distSq = Math.max(stats[1]! - (2 * stats[2]!) / lambdaN + (valid ? normSqSparse(psi) : 0) / (lambdaN * lambdaN), 0);
      gamma = Math.min(Math.max(blockGap / (lambda * distSq + Number.EPSILON), 0), 1);
    } else {
      gamma = (2 * n) / (this.k + 2 * n);
    }
    const rho = 2 / (this.k + 2);
    if (gamma > 0 || this.averaging) {
      native.blockUpdate(wi, w, this.averaging ? this.wAvg : null, psi.indices, psi.values, nnz, gamma, 1 / lambdaN, rho);
      const liNew = (1 - gamma) * li + gamma * ls;
      this.lBlocks[i] = liNew;
      this.l += liNew - li;
      if (this.averaging) this.lAvg = (1 - rho) * this.lAvg + rho * this.l;
    }
    this.bcfwOptions.onStep?.({ k: this.k, block: i, gamma, blockGap, dual: this.l - 0.5 * lambda * dot(w, w) });
    this.k++;
  }

  /** Rebuilds w and l from the blocks (removes incremental drift). */
  private resync(): void {
    const { w, wBlocks, lBlocks } = this;
    const d = w.length;
    w.fill(0);
    this.l = 0;
    for (let i = 0; i < lBlocks.length; i++) {
      for (let j = 0, o = i * d; j < d; j++) w[j]! += wBlocks[o + j]!;
      this.l += lBlocks[i]!;
    }
  }

  /** Full oracle pass at the returned iterate: the exact gap (2013 paper, Sec. 3). */
  private exactCheck(): number {
    const it = this.returned;
    const { n } = this.problem;
    const pass = fullOraclePass(this.problem, it.w);
    this.oracleCalls += n;
    this.last = certificate(this.config.lambda, n, it.w, it.l, pass.hingeSum);
    if (!this.averaging) this.lastBlockGaps = blockGaps(this.config.lambda, this.w, this.wBlocks, this.lBlocks, pass.hinge);
    this.checkedAt = this.passes;
    const seconds = this.clock.seconds;
    this.emit({ seconds, ...this.last, gapIsExact: true, ...this.evaluate(it.w) });
    return this.last.gap;
  }

  runPass(): boolean {
    if (this.finished) return false;
    if (this.passes < this.config.maxPasses && !this.mustStop()) {
      const { n } = this.problem;
      if (this.sampling === 'perm') this.rng.permutation(this.order);
      let interrupted = false;
      for (let s = 0; s < n; s++) {
        this.blockStep(this.sampling === 'perm' ? this.order[s]! : this.rng.int(n));
        if (s + 1 < n && this.mustStop()) {
          interrupted = true;
          break;
        }
      }
      this.passes++;
      const it = this.returned;
      this.emit({ seconds: this.clock.seconds, dual: it.l - 0.5 * this.config.lambda * dot(it.w, it.w), gapIsExact: false });
      if (this.passes % this.config.gapCheck === 0) {
        // On the fixed schedule only, so that a run stopped early (and resumed) follows the same trajectory.
        this.resync();
        if (this.exactCheck() <= this.config.gapThreshold) {
          this.stopReason = 'gap';
          return this.finish();
        }
      }
      if (!interrupted && this.passes < this.config.maxPasses) return true;
    }
    return this.finish();
  }

  /** The result always carries an exact certificate: one more full pass if the last pass was not checked. */
  private finish(): false {
    if (!this.finished && (this.checkedAt !== this.passes || this.last === undefined)) this.exactCheck();
    this.finished = true;
    return false;
  }

  result(): BcfwResult {
    check(this.finished, 'BCFW has not finished: call runPass() until it returns false');
    return { ...this.baseResult(this.returned.w, this.last!, true), blockGaps: this.lastBlockGaps };
  }
}

/** Runs BCFW to completion (see BcfwSolver). */
export function bcfw(problem: Problem, options: BcfwOptions = {}): BcfwResult {
  const s = new BcfwSolver(problem, options);
  while (s.runPass());
  return s.result();
}
