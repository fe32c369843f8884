import { check } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { Rng } from '../core/rng.js';
import type { GapSampler } from '../sampling/gap-sampler.js';
import { ClassDualBlocks } from './blocks.js';
import { checkSameObjective, type SolverCheckpoint } from './common.js';
import type { DualState } from './dual-state.js';
import type { BcfwHooks, WarmStart } from './bcfw-options.js';

/** The saved labels of one block (dual variables and cache). */
interface SavedAtoms {
  labels: unknown[];
  alpha: number[];
  loss: number[];
  exact: boolean;
}

/**
 * The state codec of block-coordinate FW: the dual point (blocks, w, l, the average), the gap estimates with their sum
 * tree, the dual variables and the PRNG in a checkpoint and back (a resumed run goes on exactly as the uninterrupted
 * one), and the starts that are not the ground truth: another run's dual point at another lambda (2016 Prop. 1 /
 * App. I) and given corners (the regularization path, Alg. 6).
 */
export class StateCodec {
  constructor(
    private readonly problem: Problem,
    private readonly state: DualState,
    private readonly sampler: GapSampler,
    private readonly rng: Rng,
    private readonly averaging: boolean,
  ) {}

  /** The dual point's part of a checkpoint: meta fields (in the checkpoint's order around the solver's) and arrays. */
  save(): { meta: Record<string, unknown>; arrays: Record<string, Float64Array | Int32Array> } {
    const { state, sampler } = this;
    const arrays: Record<string, Float64Array | Int32Array> = { ...state.blocks.save(), lBlocks: state.lBlocks, w: state.box.v(), gapEst: sampler.estimates };
    if (this.averaging) arrays.wAvg = state.wAvg;
    const atoms = state.atoms?.map((A) => ({ labels: A.labels.map((y) => this.problem.labelToJSON(y)), alpha: A.alpha, loss: A.loss, exact: A.exact }));
    const G = state.cacheGap;
    return {
      meta: {
        l: state.l, lAvg: state.lAvg, k: state.k, estSum: sampler.estSum, estimatesExact: state.estimatesExact,
        lastExactTotal: Number.isFinite(G) ? G : null, counters: state.counterValues, firstVisitOrder: Array.from(sampler.firstVisitOrder), atoms: atoms ?? null,
        cacheGains: [state.gainOracle, state.gainCache].map((g) => (Number.isFinite(g) ? g : null)),
      },
      arrays,
    };
  }

  /** Restores save()'s state (the caller checked the settings). */
  restore(r: SolverCheckpoint): void {
    const m = r.meta;
    const { state } = this;
    this.loadDualPoint(r, Number(m.estSum));
    if (this.averaging) state.wAvg.set(checkpointArray(r, 'wAvg', state.wAvg.length));
    state.estimatesExact = Boolean(m.estimatesExact);
    state.lAvg = Number(m.lAvg);
    state.k = Number(m.k);
    state.cacheGap = m.lastExactTotal === null ? Infinity : Number(m.lastExactTotal);
    state.counterValues = m.counters as Record<string, number>;
    const gains = (m.cacheGains ?? [null, null]) as (number | null)[];
    state.gainOracle = gains[0] ?? Infinity;
    state.gainCache = gains[1] ?? Infinity;
    this.sampler.firstVisitOrder.set(m.firstVisitOrder as number[]);
    this.rng.words.set(new Rng(Uint32Array.from(m.rngState ?? [])).words);
  }

  /** Blocks, w, l, gap estimates (with the sum tree; their running sum estSum when given) and dual variables. */
  private loadDualPoint(r: SolverCheckpoint, estSum?: number): void {
    const { state, problem } = this;
    state.blocks.load(r.arrays);
    state.lBlocks.set(checkpointArray(r, 'lBlocks', state.lBlocks.length));
    state.box.unclip().set(checkpointArray(r, 'w', state.w.length));
    state.box.reclip();
    state.l = Number(r.meta.l);
    // The tree's inner nodes are always the exact sums of their children, so rebuilding it from the leaves
    // reproduces it bit for bit.
    this.sampler.setAll(checkpointArray(r, 'gapEst', problem.n), estSum);
    if (!state.atoms) return;
    const saved = r.meta.atoms as SavedAtoms[] | null;
    check(Array.isArray(saved) && saved.length === state.atoms.length, 'the checkpoint has no dual variables (it was made with FW steps and no cache)');
    state.atoms.forEach((A, i) => {
      A.clear();
      const b = saved[i]!;
      b.labels.forEach((v, k) => {
        const y = problem.labelFromJSON(v);
        A.add(y, problem.labelKey(y), b.loss[k]!, b.alpha[k]!);
      });
      A.exact = b.exact;
    });
  }

  /** See BcfwHooks.start: alpha_i = delta(y_i~), w_i = psi_i(y_i~)/(lambda n), l_i = L_i(y_i~)/n. */
  startAtCorners(start: NonNullable<BcfwHooks['start']>, cached: boolean): void {
    const { problem, state } = this;
    const { n, dim: d } = problem;
    check(start.labels.length === n, `start needs ${n} labels, got ${start.labels.length}`);
    const lambdaN = state.lambda * n;
    const wi = new Float64Array(d);
    const v = state.box.unclip();
    for (let i = 0; i < n; i++) {
      const y = start.labels[i];
      const L = problem.loss(i, y);
      if (state.blocks instanceof ClassDualBlocks) state.blocks.setCorner(i, y as number);
      else {
        const psi = problem.psi(i, y);
        wi.fill(0);
        for (let q = 0; q < psi.nnz; q++) wi[psi.indices[q]!] = psi.values[q]! / lambdaN;
        state.blocks.replace(i, v, wi);
      }
      state.lBlocks[i] = L / n;
      state.l += L / n;
      const A = state.atoms?.[i];
      if (A) {
        const key = problem.labelKey(y);
        if (A.indexOf(key) < 0) A.add(y, key, L, 0);
        for (let k = 0; k < A.size; k++) A.alpha[k] = A.keys[k] === key ? 1 : 0;
        if (!cached) for (let k = A.size - 1; k >= 0; k--) if (A.alpha[k] === 0) A.remove(k);
      }
    }
    if (state.blocks instanceof ClassDualBlocks) state.blocks.sumInto(v);
    if (start.gapEstimates) {
      check(start.gapEstimates.length === n, `start.gapEstimates needs ${n} values`);
      start.gapEstimates.forEach((g, i) => this.sampler.set(i, Math.max(g, 0)));
    }
    state.box.reclip();
    // The estimates are bounds, not exact gaps: the global cache criterion stays off ([G]).
    state.cacheGap = 0;
    this.restartAverage(state.w);
  }

  /** See BcfwHooks.warmStart. */
  warmStart(ws: WarmStart): void {
    const m = ws.from.meta;
    const { problem, state } = this;
    const { n, dim: d } = problem;
    check(m.solver === 'bcfw' && m.n === n && m.dim === d, `warm start needs a BCFW checkpoint of this problem (n = ${n}, dim = ${d})`);
    checkSameObjective(m, problem, 'warm start'); // every setting but lambda
    const mode = ws.mode ?? 'keep-primal';
    check(mode === 'keep-primal' || mode === 'keep-dual', `unknown warm start mode '${mode}'`);
    // Keeping w_i at a larger lambda puts weight rho alpha_i(y) on every other label: feasible only when the ground
    // truth had weight >= 1 - 1/rho, which the dual variables show (checked per block) and the bare blocks of plain
    // BCFW (FW steps, no cache) do not.
    const rho = state.lambda / Number(m.options.lambda);
    check(mode !== 'keep-primal' || rho <= 1 || state.atoms || state.blocks instanceof ClassDualBlocks,
      `keep-primal cannot raise lambda (by ${rho.toPrecision(4)}x) without dual variables to check that the point stays feasible (FW steps without a cache keep none): use keep-dual`);
    this.loadDualPoint(ws.from);
    if (mode === 'keep-primal') this.keepPrimal(Number(m.options.lambda), Boolean(m.estimatesExact));
    else this.keepDual(Number(m.options.lambda));
    this.restartAverage(state.box.v());
  }

  /**
   * Keeps every w_i and w, rescales l and the weights of the non-ground-truth labels by rho = lambda / lambda_old; every
   * block gap then moves by (1 - rho)(l_i - lambda_old w_i^T w) (2016 Prop. 1, eq. 11).
   */
  private keepPrimal(oldLambda: number, exact: boolean): void {
    const { problem, state } = this;
    const rho = state.lambda / oldLambda;
    const est = Float64Array.from(this.sampler.estimates);
    for (let i = 0; i < problem.n; i++) {
      this.rescaleWeights(i, rho);
      // g_i(lambda') = g_i(lambda) + (1 - rho) u_i with u_i = l_i - lambda w_i^T w at the old lambda and l_i.
      let u = state.lBlocks[i]! - oldLambda * state.blocks.dot(i, state.w);
      if (!exact && u < 0) u = 0; // stale estimates: stay conservative
      const g = est[i]!;
      if (g !== Infinity) est[i] = Math.max(g + (1 - rho) * u, 0);
      state.lBlocks[i] = rho * state.lBlocks[i]!;
    }
    state.l *= rho;
    this.sampler.setAll(est);
    state.estimatesExact = exact;
    // G of the global cache criterion: the new total if the estimates are exact, else the global part is off.
    state.cacheGap = exact && this.sampler.unvisited === 0 ? this.sampler.estSum : 0;
  }

  /** The weights of block i's non-ground-truth labels times rho; the ground truth takes the rest. */
  private rescaleWeights(i: number, rho: number): void {
    const { problem, state } = this;
    const gt = problem.groundTruth(i);
    if (state.blocks instanceof ClassDualBlocks) {
      const a = state.blocks.alpha;
      const K = a.length / problem.n;
      let rest = 0;
      for (let k = 0; k < K; k++) if (k !== gt) rest += (a[i * K + k] = rho * a[i * K + k]!);
      check(rest <= 1 + 1e-12, `keep-primal cannot raise lambda by ${rho.toPrecision(4)}x here (block ${i} would need negative weight on its ground truth): use keep-dual`);
      a[i * K + (gt as number)] = Math.max(1 - rest, 0);
      return;
    }
    const A = state.atoms?.[i];
    if (!A) return;
    check(A.exact, `block ${i} has approximate dual variables (FW steps evicted active labels): use keep-dual`);
    const key = problem.labelKey(gt);
    const at = A.indexOf(key);
    let rest = 0;
    for (let k = 0; k < A.size; k++) if (k !== at) rest += (A.alpha[k] = rho * A.alpha[k]!);
    check(rest <= 1 + 1e-12, `keep-primal cannot raise lambda by ${rho.toPrecision(4)}x here (block ${i} would need negative weight on its ground truth): use keep-dual`);
    if (at >= 0) A.alpha[at] = Math.max(1 - rest, 0);
    else if (rest < 1) A.add(gt, key, 0, 1 - rest);
  }

  /** Keeps the dual weights: w_i = Psi_i alpha_i/(lambda n) grows by lambda_old/lambda; the gap estimates restart. */
  private keepDual(oldLambda: number): void {
    const { state, problem } = this;
    const v = state.box.unclip();
    if (state.blocks instanceof ClassDualBlocks) state.blocks.sumInto(v);
    else {
      const scale = oldLambda / state.lambda;
      state.blocks.scaleAll(scale);
      for (let j = 0; j < problem.dim; j++) v[j] = scale * v[j]!;
    }
    state.box.reclip();
    this.sampler.setAll(new Float64Array(problem.n).fill(Infinity));
  }

  /** The average starts afresh at this point. */
  private restartAverage(w: Float64Array): void {
    if (!this.averaging) return;
    this.state.wAvg.set(w);
    this.state.lAvg = this.state.l;
  }

  /**
   * Delta of Prop. 1 (2016 paper, eq. 11) for lowering lambda: sum_i u_i with u_i = l_i - lambda w_i^T w, the rate at
   * which the gap grows as rho = lambda_new / lambda decreases. When the gap estimates are not exact, negative u_i are
   * clipped to 0 (conservative, as the keep-primal warm start does).
   */
  pathDelta(): number {
    const { state } = this;
    let U = 0;
    for (let i = 0; i < this.problem.n; i++) {
      const u = state.lBlocks[i]! - state.lambda * state.blocks.dot(i, state.w);
      U += state.estimatesExact ? u : Math.max(u, 0);
    }
    return U;
  }
}

export function checkpointArray(r: SolverCheckpoint, name: string, length: number): Float64Array {
  const a = r.arrays[name];
  check(a instanceof Float64Array && a.length === length, `checkpoint array '${name}' is missing or has the wrong length`);
  return a;
}
