import type { Problem } from '../core/problem.js';
import { dotSparse, normSqSparse, type SparseVector } from '../core/vector.js';
import type { BlockAtoms } from '../cache/atoms.js';
import type { GapSampler } from '../sampling/gap-sampler.js';
import { checkedHinge } from './common.js';
import type { DualState } from './dual-state.js';
import type { BlockStepInfo } from './bcfw-options.js';
import type { StepType } from './settings.js';

/** The resolved cache settings (2016 Alg. 5). */
export interface ResolvedCache {
  factor: number;
  nu: number;
  maxSize: number;
  initialGap: number;
  adaptive: boolean;
}

/** What a block step needs to know of the run's settings. */
export interface StepSettings {
  step: StepType;
  cache: ResolvedCache | undefined;
  lineSearch: boolean;
  averaging: boolean;
  checkConsistency: boolean;
  onStep: ((step: BlockStepInfo) => void) | undefined;
  /**
   * The adaptive cache's costs of each block's steps in counted operations, 3 per block: what every step does (the
   * potentials and the dense block sweep), what an oracle call adds, and scoring one stored label; undefined without
   * an adaptive cache or a model's costs.
   */
  costs: Float64Array | undefined;
}

/** A corner of block i's polytope: a label with its psi (copied into a step-owned buffer), loss and score. */
interface Corner {
  psi: SparseVector;
  loss: number;
  /** L_i(y) - <w, psi_i(y)> at the current w. */
  score: number;
}

/** A label decoded for the step ahead of it (a mini-batch's): the label, its exact gap at the batch's w, its psi if computed. */
export interface Decoded {
  label: unknown;
  startGap: number;
  psi: SparseVector | undefined;
}

/** One step's quantities (2016 eq. 10: g_i(y) = base + s_i(y)/n with base = lambda <w_i, w> - l_i). */
interface Step {
  i: number;
  li: number;
  A: BlockAtoms<unknown> | undefined;
  sIndex: number;
  aIndex: number;
  cacheHit: boolean;
  base: number;
  wiSq: number;
  /** <w_i, psi_s>. */
  dp: number;
  gFW: number;
  kind: BlockStepInfo['kind'];
  gamma: number;
  best: number;
  drop: boolean;
}

/** The empty sparse vector (stats without a corner, averaging-only updates). */
export const EMPTY: SparseVector = { indices: new Int32Array(0), values: new Float64Array(0), nnz: 0 };

/**
 * The block step of the TypeScript engine (2013 Alg. 4; 2016 Alg. 3-5), for models written in TypeScript: the FW
 * corner from the cache (Alg. 5) or the max-oracle, the gap estimate of gap sampling (Alg. 2), the FW, away (Alg. 4)
 * and pairwise (Alg. 3) moves with line search (hybrid: the one that improves the dual most), the update with
 * averaging and box constraints (App. H), and the dual variables' bookkeeping. The native step loop
 * (native/solver/bcfw_loop.cc) is the same algorithm with the same arithmetic for built-in models.
 */
export class BlockStepper {
  private readonly stats = new Float64Array(3);
  private scores = new Float64Array(64);
  private readonly fw: Corner = { psi: emptySparse(), loss: 0, score: 0 };
  private readonly away: Corner = { psi: emptySparse(), loss: 0, score: 0 };
  private readonly pairScratch: Float64Array;
  /** Exact moves: the working set's psi, Gram matrix, scores and new weights. */
  private psis: SparseVector[] = [];
  private gram = new Float64Array(0);
  private exactScores = new Float64Array(0);
  private exactAlpha = new Float64Array(0);

  constructor(
    private readonly problem: Problem,
    private readonly s: StepSettings,
    private readonly state: DualState,
    private readonly sampler: GapSampler,
    /** Counts an oracle call of a step. */
    private readonly countOracle: () => void,
  ) {
    this.pairScratch = new Float64Array(s.step === 'fw' ? 0 : problem.dim);
  }

  /** One block step at the current w; `decoded` is the label a mini-batch decoded for it (at the batch's w). */
  step(i: number, decoded?: Decoded): void {
    const { state } = this;
    state.estimatesExact = false;
    const st: Step = { i, li: state.lBlocks[i]!, A: state.atoms?.[i], sIndex: -1, aIndex: -1, cacheHit: false, base: 0, wiSq: 0, dp: 0, gFW: 0, kind: 'none', gamma: 0, best: 0, drop: false };
    st.sIndex = this.cacheChoice(i);
    this.fwCorner(st, decoded);
    this.chooseMove(st);
    this.applyMove(st);
    if (this.s.costs) this.recordGain(st);
    if (st.A) {
      this.tidyAtoms(st.A, st.sIndex, i);
      if (this.s.checkConsistency) this.checkBlock(i);
    }
    this.s.onStep?.({ k: state.k, block: i, kind: st.kind, gamma: st.gamma, blockGap: st.gFW, cacheHit: st.cacheHit, dual: state.dualOf(state.box.v(), state.w, state.l) });
    state.k++;
  }

  /**
   * Scores block i's stored labels at the current w (into `scores`) and returns the index of the one the cache
   * serves (2016 Alg. 5: its block gap is > 0 and >= max(F g_i, nu G / n)), or -1.
   */
  cacheChoice(i: number): number {
    const { problem, state } = this;
    const A = state.atoms?.[i];
    if (!A) return -1;
    if (this.scores.length < A.size + 1) this.scores = new Float64Array(2 * (A.size + 1));
    const cache = this.s.cache;
    const open = cache !== undefined && this.cacheOpen(i, A.loss);
    // The scores serve the cache test, the away corner and the cache's eviction.
    if (!open && this.s.step === 'fw' && A.size < cache!.maxSize) return -1;
    problem.labelScores(i, state.w, A.labels, this.scores);
    if (!open || A.size === 0) return -1;
    const { n } = problem;
    // g_i(y) = base + s_i(y)/n with base = lambda <w_i, w> - l_i.
    const base = this.base(i, A);
    let c = 0;
    for (let k = 1; k < A.size; k++) if (this.scores[k]! > this.scores[c]!) c = k;
    const gCache = base + this.scores[c]! / n;
    return gCache > 0 && gCache >= Math.max(cache.factor * this.sampler.estimates[i]!, (cache.nu * state.cacheGap) / n) ? c : -1;
  }

  /**
   * base = lambda <w_i, w> - l_i of 2016 eq. 10, so that g_i(y) = base + s_i(y)/n. Pairwise steps (whose moves need no
   * ||w_i||^2) take it from the dual variables: w_i = sum_a alpha_a psi_a/(lambda n) and l_i = sum_a alpha_a L_a/n give
   * base = -sum_a alpha_a s_a(w)/n from the stored labels' scores (no O(d) sweep of w_i); other steps from the block.
   */
  private base(i: number, A: BlockAtoms<unknown>): number {
    const { state } = this;
    if (this.s.step === 'pairwise') {
      let s = 0;
      for (let k = 0; k < A.size; k++) s += A.alpha[k]! * this.scores[k]!;
      return -s / this.problem.n;
    }
    state.blocks.stats(i, state.w, EMPTY, this.stats);
    return state.lambda * this.stats[0]! - state.lBlocks[i]!;
  }

  /**
   * The adaptive cache (issue 36): the cache serves block i only while its recent steps gain at least as much dual per
   * unit of work as the oracle's, gainCache / (shared + perLabel sum_k L_k) >= gainOracle / (shared + oracle) in
   * counted operations (StructuredModel.stepCost; deterministic, unlike seconds), where the stored labels' losses L_k
   * measure how much of them differs from the ground truth (what scoring them adds to its node scores). MP-BCFW's rule
   * does this with time (Shah et al. 2015).
   */
  private cacheOpen(i: number, losses: readonly number[]): boolean {
    const c = this.s.costs;
    if (!c) return true;
    const shared = c[3 * i]!;
    let stored = 0;
    for (const L of losses) stored += L;
    return this.state.gainCache * (shared + c[3 * i + 1]!) >= this.state.gainOracle * (shared + stored * c[3 * i + 2]!);
  }

  /** The step's dual gain into the average of its kind (cache hits, oracle steps). */
  private recordGain(st: Step): void {
    const { state } = this;
    const gain = st.kind === 'none' ? 0 : st.best;
    if (st.cacheHit) state.gainCache = averageGain(state.gainCache, gain);
    else state.gainOracle = averageGain(state.gainOracle, gain);
  }

  private corner(target: Corner, i: number, label: unknown, psi?: SparseVector): void {
    copySparseInto(psi ?? this.problem.psi(i, label), target.psi);
    target.loss = this.problem.loss(i, label);
    target.score = target.loss - dotSparse(this.state.w, target.psi);
  }

  /**
   * The FW corner: the cache's label, else `decoded` (a mini-batch's label at the batch's w: its score is
   * re-evaluated here), else the max-oracle's; the ground truth when the label does not beat it (the oracle's, up to
   * rounding: checked; one decoded at an older w: legitimately). A miss sets the block's gap estimate (Alg. 2): with a
   * decoded label, the larger of its exact gap at the batch's w and its gap towards the corner here (a lower bound
   * on its gap here), so that stale corners do not starve gap sampling or end a pass early; and stores the label.
   */
  private fwCorner(st: Step, decoded: Decoded | undefined): void {
    const { problem, state } = this;
    const { i, A } = st;
    const s = this.fw;
    let label: unknown;
    if (st.sIndex >= 0) {
      st.cacheHit = true;
      state.counters[0]!++;
      this.corner(s, i, A!.labels[st.sIndex]);
    } else {
      label = decoded ? decoded.label : problem.oracle(i, state.w);
      if (!decoded) this.countOracle();
      this.corner(s, i, label, decoded?.psi);
      if (!((decoded ? s.score : checkedHinge(s.score, i)) > 0)) {
        label = problem.groundTruth(i);
        s.psi.nnz = 0;
        s.loss = 0;
        s.score = 0;
      }
    }
    if (this.s.step === 'pairwise') st.base = this.base(i, A!);
    else {
      state.blocks.stats(i, state.w, s.psi, this.stats);
      st.base = state.lambda * this.stats[0]! - st.li;
      st.wiSq = this.stats[1]!;
      st.dp = this.stats[2]!;
    }
    st.gFW = st.base + s.score / problem.n;
    if (st.cacheHit) return;
    this.sampler.set(i, Math.max(st.gFW, decoded ? decoded.startGap : 0, 0));
    if (!A) return;
    const key = problem.labelKey(label);
    st.sIndex = A.indexOf(key);
    if (st.sIndex < 0) {
      st.sIndex = A.add(label, key, s.loss);
      this.scores[st.sIndex] = s.score;
    }
  }

  /** A move with its optimal step (gap / (lambda ||d||^2), clipped to [0, gammaMax]) if it improves the dual most. */
  private consider(st: Step, kind: BlockStepInfo['kind'], gap: number, distSq: number, gammaMax: number): void {
    const lambda = this.state.lambda;
    const g = Math.min(Math.max(gap / (lambda * distSq + Number.EPSILON), 0), gammaMax);
    const improvement = g * gap - 0.5 * g * g * lambda * distSq; // dual increase of the move (exact: quadratic)
    if (improvement > st.best) {
      st.best = improvement;
      st.kind = kind;
      st.gamma = g;
      st.drop = g === gammaMax;
    }
  }

  /** The FW move (2013 Alg. 4), then the away and pairwise moves of the active set (2016 Alg. 3-4). */
  private chooseMove(st: Step): void {
    const { step } = this.s;
    const lambdaN = this.state.lambda * this.problem.n;
    // ||w_i - w_s||^2 = ||w_i||^2 - 2 <w_i, psi_s>/(lambda n) + ||psi_s||^2/(lambda n)^2
    const fwDistSq = Math.max(st.wiSq - (2 * st.dp) / lambdaN + normSqSparse(this.fw.psi) / (lambdaN * lambdaN), 0);
    if (step === 'fw' || step === 'away' || step === 'hybrid') {
      if (this.s.lineSearch) this.consider(st, 'fw', st.gFW, fwDistSq, 1);
      else {
        st.kind = 'fw';
        st.gamma = (2 * this.problem.n) / (this.state.k + 2 * this.problem.n);
        st.drop = st.gamma === 1;
        st.best = st.gamma * st.gFW - 0.5 * st.gamma * st.gamma * this.state.lambda * fwDistSq;
      }
    }
    if (step === 'exact') this.exactMove(st, st.A!);
    else if (st.A && step !== 'fw') this.awayMoves(st, st.A);
  }

  /**
   * The block's subproblem over its working set (its stored labels, the FW corner among them) solved exactly: with
   * Psi the atoms' psi, G = Psi^T Psi and alpha on the simplex, min_alpha lambda/2 ||w_{-i} + Psi alpha/(lambda n)||^2 -
   * L^T alpha/n, whose gradient is minus the atoms' scores s(alpha) at the moved point (s = s(w) + G (alpha - alpha_old)
   * /(lambda n) ... updated in O(m) per move). Pairwise moves between the best atom and the worst active one, each with
   * its exact line search, until the subproblem's gap max_a s_a - min_{active a} s_a is at rounding level (linear
   * convergence: Lacoste-Julien & Jaggi 2015): the block-coordinate minimisation of MP-BCFW's approximate passes
   * (Shah et al. 2015) and, over all of a block's corners, of Keerthi et al. (2008).
   */
  private exactMove(st: Step, A: BlockAtoms<unknown>): void {
    const m = A.size;
    const lambdaN = this.state.lambda * this.problem.n;
    this.workingSet(st.i, A);
    const G = this.gram;
    const s = this.exactScores;
    const alpha = this.exactAlpha;
    for (let k = 0; k < m; k++) {
      s[k] = this.scores[k]!;
      alpha[k] = A.alpha[k]!;
    }
    for (let iter = 0; iter < 100 * m + 100; iter++) {
      let t = 0;
      let a = -1;
      for (let k = 0; k < m; k++) {
        if (s[k]! > s[t]!) t = k;
        if (alpha[k]! > 0 && (a < 0 || s[k]! < s[a]!)) a = k;
      }
      const gap = s[t]! - s[a]!;
      if (!(gap > 1e-15 * (1 + Math.abs(s[t]!))) || t === a) break;
      const curvature = (G[t * m + t]! + G[a * m + a]! - 2 * G[t * m + a]!) / lambdaN;
      const gamma = curvature > 0 ? Math.min(alpha[a]!, gap / curvature) : alpha[a]!;
      alpha[t]! += gamma;
      alpha[a] = gamma === alpha[a] ? 0 : alpha[a]! - gamma;
      for (let k = 0; k < m; k++) s[k]! -= (gamma * (G[k * m + t]! - G[k * m + a]!)) / lambdaN;
    }
    st.kind = 'exact';
    st.gamma = 1;
  }

  /** psi of every atom of block i (copied: psi views are valid until the next call) and their Gram matrix. */
  private workingSet(i: number, A: BlockAtoms<unknown>): void {
    const m = A.size;
    while (this.psis.length < m) this.psis.push(emptySparse());
    if (this.gram.length < m * m) {
      this.gram = new Float64Array(2 * m * m);
      this.exactScores = new Float64Array(2 * m);
      this.exactAlpha = new Float64Array(2 * m);
    }
    for (let k = 0; k < m; k++) copySparseInto(this.problem.psi(i, A.labels[k]), this.psis[k]!);
    const x = this.pairScratch;
    for (let a = 0; a < m; a++) {
      const pa = this.psis[a]!;
      for (let q = 0; q < pa.nnz; q++) x[pa.indices[q]!] = pa.values[q]!;
      for (let b = a; b < m; b++) this.gram[a * m + b] = this.gram[b * m + a] = dotSparse(x, this.psis[b]!);
      for (let q = 0; q < pa.nnz; q++) x[pa.indices[q]!] = 0;
    }
  }

  /** The away corner: the active atom with the smallest score (2016 Sec. 3.3). */
  private awayMoves(st: Step, A: BlockAtoms<unknown>): void {
    const { step } = this.s;
    const { state } = this;
    const lambdaN = state.lambda * this.problem.n;
    for (let k = 0; k < A.size; k++) if (A.alpha[k]! > 0 && (st.aIndex < 0 || this.scores[k]! < this.scores[st.aIndex]!)) st.aIndex = k;
    const alphaA = A.alpha[st.aIndex]!;
    const a = this.away;
    if (st.aIndex !== st.sIndex || step !== 'pairwise') this.corner(a, st.i, A.labels[st.aIndex]);
    // Away gap g^A = lambda w^T (w_a - w_i) + l_i - l_a = -(base + s_a/n).
    const gA = -(st.base + a.score / this.problem.n);
    if ((step === 'away' || step === 'hybrid') && alphaA < 1) {
      state.blocks.stats(st.i, state.w, a.psi, this.stats);
      const awayDistSq = Math.max(st.wiSq - (2 * this.stats[2]!) / lambdaN + normSqSparse(a.psi) / (lambdaN * lambdaN), 0);
      this.consider(st, 'away', gA, awayDistSq, alphaA / (1 - alphaA));
    }
    if ((step === 'pairwise' || step === 'hybrid') && st.aIndex !== st.sIndex) {
      // ||w_s - w_a||^2 = ||psi_s - psi_a||^2 / (lambda n)^2
      const pairDistSq = sparseDistSq(this.fw.psi, a.psi, this.pairScratch) / (lambdaN * lambdaN);
      this.consider(st, 'pairwise', st.gFW + gA, pairDistSq, alphaA);
    }
  }

  /** The update of w_i, w (as v), l_i, l, the average and the dual weights; counters. */
  private applyMove(st: Step): void {
    const { state } = this;
    const { n } = this.problem;
    const { i, li, gamma, A } = st;
    const lambdaN = state.lambda * n;
    const rho = 2 / (state.k + 2);
    const avg = this.s.averaging ? state.wAvg : null;
    const s = this.fw;
    const a = this.away;
    let liNew = li;
    const v = state.box.unclip(); // w holds v until reclip() below
    switch (st.kind) {
      case 'fw':
        // w_i <- (1 - gamma) w_i + gamma w_s (2013 Alg. 4 line 7)
        state.blocks.update(i, v, avg, s.psi, gamma, 1 / lambdaN, rho);
        liNew = (1 - gamma) * li + (gamma * s.loss) / n;
        state.counters[1]!++;
        if (A) {
          for (let k = 0; k < A.size; k++) A.alpha[k] = st.drop ? 0 : (1 - gamma) * A.alpha[k]!;
          A.alpha[st.sIndex] = st.drop ? 1 : A.alpha[st.sIndex]! + gamma;
        }
        break;
      case 'away':
        // w_i <- (1 + gamma) w_i - gamma w_a (2016 Alg. 4): blockUpdate with -gamma towards w_a.
        state.blocks.update(i, v, avg, a.psi, -gamma, 1 / lambdaN, rho);
        liNew = (1 + gamma) * li - (gamma * a.loss) / n;
        state.counters[2]!++;
        for (let k = 0; k < A!.size; k++) A!.alpha[k] = (1 + gamma) * A!.alpha[k]!;
        A!.alpha[st.aIndex] = st.drop ? 0 : A!.alpha[st.aIndex]! - gamma;
        break;
      case 'pairwise': {
        // w_i <- w_i + gamma (w_s - w_a) (2016 Alg. 3)
        const scale = gamma / lambdaN;
        state.blocks.addSparse(i, v, s.psi, scale);
        state.blocks.addSparse(i, v, a.psi, -scale);
        if (avg) state.blocks.update(i, v, avg, EMPTY, 0, 0, rho);
        liNew = li + (gamma * (s.loss - a.loss)) / n;
        state.counters[3]!++;
        A!.alpha[st.sIndex] = A!.alpha[st.sIndex]! + gamma;
        A!.alpha[st.aIndex] = st.drop ? 0 : A!.alpha[st.aIndex]! - gamma;
        break;
      }
      case 'exact': {
        // w_i moves by sum_a (alpha_new - alpha_old)_a psi_a / (lambda n); l_i = sum_a alpha_a L_a / n.
        liNew = 0;
        for (let k = 0; k < A!.size; k++) {
          const change = this.exactAlpha[k]! - A!.alpha[k]!;
          if (change !== 0) state.blocks.addSparse(i, v, this.psis[k]!, change / lambdaN);
          A!.alpha[k] = this.exactAlpha[k]!;
          liNew += (A!.alpha[k]! * A!.loss[k]!) / n;
        }
        if (avg) state.blocks.update(i, v, avg, EMPTY, 0, 0, rho);
        state.counters[6]!++;
        break;
      }
      case 'none':
        state.counters[5]!++;
        if (avg) state.blocks.update(i, v, avg, EMPTY, 0, 0, rho);
        break;
    }
    if (st.drop && st.kind !== 'none') state.counters[4]!++;
    state.box.reclip();
    state.lBlocks[i] = liNew;
    state.l += liNew - li;
    if (this.s.averaging) state.lAvg = (1 - rho) * state.lAvg + rho * state.l;
  }

  /**
   * After a step: renormalise drifted weights, drop inactive labels when there is no cache, and evict down to
   * maxSize with the authors' rule ([G]): the inactive label with the lowest score goes first; active labels are
   * never evicted with away/pairwise steps (the store grows instead); with FW steps only, the lowest-scoring active
   * label goes and the block's weights become approximate.
   */
  private tidyAtoms(A: BlockAtoms<unknown>, sIndex: number, i: number): void {
    let sum = 0;
    for (const a of A.alpha) sum += a;
    if (A.exact && Math.abs(sum - 1) > 1e-12) {
      for (let k = 0; k < A.size; k++) A.alpha[k] = A.alpha[k]! / sum;
      this.rebuildBlock(i);
    }
    const cache = this.s.cache;
    if (!cache) {
      for (let k = A.size - 1; k >= 0; k--) if (A.alpha[k] === 0) A.remove(k);
      return;
    }
    while (A.size > cache.maxSize) {
      let victim = -1;
      for (let k = 0; k < A.size; k++) {
        if (k !== sIndex && A.alpha[k] === 0 && (victim < 0 || this.scores[k]! < this.scores[victim]!)) victim = k;
      }
      if (victim < 0) {
        if (this.s.step !== 'fw') return; // active atoms stay: the store grows
        for (let k = 0; k < A.size; k++) if (k !== sIndex && (victim < 0 || this.scores[k]! < this.scores[victim]!)) victim = k;
        if (victim < 0) return;
        A.exact = false;
      }
      // Keep indices valid for the loop: move the last atom's score with it.
      this.scores[victim] = this.scores[A.size - 1]!;
      if (sIndex === A.size - 1) sIndex = victim;
      A.remove(victim);
    }
  }

  /** Recomputes w_i = sum_y alpha(y) psi_i(y)/(lambda n) and l_i from block i's atoms and moves w and l accordingly. */
  private rebuildBlock(i: number): void {
    const { problem, state } = this;
    const { n, dim: d } = problem;
    const lambdaN = state.lambda * n;
    const A = state.atoms![i]!;
    const wi = new Float64Array(d);
    let li = 0;
    for (let k = 0; k < A.size; k++) {
      if (A.alpha[k] === 0) continue;
      const psi = problem.psi(i, A.labels[k]);
      for (let q = 0; q < psi.nnz; q++) wi[psi.indices[q]!]! += (A.alpha[k]! * psi.values[q]!) / lambdaN;
      li += (A.alpha[k]! * A.loss[k]!) / n;
    }
    state.blocks.replace(i, state.box.unclip(), wi);
    state.box.reclip();
    state.l += li - state.lBlocks[i]!;
    state.lBlocks[i] = li;
  }

  /** The active-set invariants of block i (2016 App. B; [G] cache consistency checks). */
  checkBlock(i: number): void {
    const { problem, state } = this;
    const { n, dim: d } = problem;
    const lambdaN = state.lambda * n;
    const A = state.atoms![i]!;
    if (!A.exact) return;
    let sum = 0;
    let li = 0;
    const wi = new Float64Array(d);
    for (let k = 0; k < A.size; k++) {
      const a = A.alpha[k]!;
      if (!(a >= 0)) throw new Error(`consistency: block ${i} has alpha ${a} < 0`);
      sum += a;
      li += (a * A.loss[k]!) / n;
      const psi = problem.psi(i, A.labels[k]);
      for (let q = 0; q < psi.nnz; q++) wi[psi.indices[q]!]! += (a * psi.values[q]!) / lambdaN;
    }
    if (Math.abs(sum - 1) > 1e-9) throw new Error(`consistency: block ${i} weights sum to ${sum}`);
    if (Math.abs(li - state.lBlocks[i]!) > 1e-9) throw new Error(`consistency: block ${i} has l_i ${state.lBlocks[i]} but the weights give ${li}`);
    const stored = new Float64Array(d);
    state.blocks.read(i, stored);
    let err = 0;
    let scale = 1 / lambdaN; // entries are alpha-weighted psi / (lambda n): rounding is relative to that
    for (let j = 0; j < d; j++) {
      err = Math.max(err, Math.abs(wi[j]! - stored[j]!));
      scale = Math.max(scale, Math.abs(wi[j]!));
    }
    if (err > 1e-9 * scale) throw new Error(`consistency: block ${i} has w_i off by ${err} from sum alpha psi/(lambda n)`);
  }
}

/** An exponential average over about 32 steps (its first value: the first step's). */
function averageGain(average: number, gain: number): number {
  return Number.isFinite(average) ? average + (gain - average) / 32 : gain;
}

function emptySparse(): SparseVector {
  return { indices: new Int32Array(64), values: new Float64Array(64), nnz: 0 };
}

/** Copies src into dst's buffers (grown when needed): psi views are only valid until the next psi call. */
function copySparseInto(src: SparseVector, dst: SparseVector): void {
  if (dst.indices.length < src.nnz) {
    dst.indices = new Int32Array(2 * src.nnz);
    dst.values = new Float64Array(2 * src.nnz);
  }
  dst.indices.set(src.indices.subarray(0, src.nnz));
  dst.values.set(src.values.subarray(0, src.nnz));
  dst.nnz = src.nnz;
}

/** ||a - b||^2 for sparse a, b with a dense zeroed scratch (left zeroed). */
function sparseDistSq(a: SparseVector, b: SparseVector, scratch: Float64Array): number {
  for (let q = 0; q < a.nnz; q++) scratch[a.indices[q]!] = a.values[q]!;
  for (let q = 0; q < b.nnz; q++) scratch[b.indices[q]!]! -= b.values[q]!;
  let s = 0;
  for (let q = 0; q < a.nnz; q++) {
    const j = a.indices[q]!;
    s += scratch[j]! * scratch[j]!;
    scratch[j] = 0;
  }
  for (let q = 0; q < b.nnz; q++) {
    const j = b.indices[q]!;
    s += scratch[j]! * scratch[j]!;
    scratch[j] = 0;
  }
  return s;
}
