import { check, OptionError } from '../core/errors.js';
import type { Problem } from '../core/problem.js';
import { Rng } from '../core/rng.js';
import { dot, dotSparse, normSqSparse, type SparseVector } from '../core/vector.js';
import { BlockAtoms } from '../cache/atoms.js';
import { SumTree } from '../sampling/sumtree.js';
import { threads } from '../native/threads.js';
import { DenseBlocks, SparseBlocks, type BlockStorage } from './blocks.js';
import type { CacheSettings, Sampling, StepType, TrainSettings } from './settings.js';
import { ClippedIterate, clipInto, resolveBounds, type ClipBounds } from './bounds.js';
import {
  blockGaps,
  checkedHinge,
  checkSameObjective,
  fullOraclePass,
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
 * The hooks and starting points of a BCFW run (besides {@link SolverHooks}): a warm start from another run's
 * checkpoint, a start at given corners (the regularization path), and a per-step observer.
 */
export interface BcfwHooks extends SolverHooks {
  /**
   * Start from the dual point of another run (a checkpoint of BCFW on the same problem, usually at another
   * lambda): 'keep-primal' keeps every w_i and rescales the weights of the non-ground-truth labels by
   * rho = lambda_new / lambda_old, so block gaps change by the known amount (1 - rho)(l_i - lambda w_i^T w)
   * (2016 paper, Prop. 1); 'keep-dual' keeps the weights and rescales w (gap estimates restart). Counters,
   * trace and averaging start afresh.
   */
  warmStart?: WarmStart;
  /**
   * Start from the dual point alpha_i = delta(labels[i]) (every block on one corner) instead of the ground
   * truth, with the given gap estimates (upper bounds; not exact). Used by the regularization path (Alg. 6).
   */
  start?: { labels: readonly unknown[]; gapEstimates?: Float64Array };
  /** Debugging hook called after every block step with the dual of the current (not averaged) iterate; costs O(d) per step. */
  onStep?: (step: BlockStepInfo) => void;
}

/** Start a run at a new lambda from a checkpoint taken at another (2016 paper, Prop. 1 / App. I): keep the primal w (rescaling the dual) or keep the dual variables. */
export interface WarmStart {
  from: SolverCheckpoint;
  /** Default 'keep-primal'. */
  mode?: 'keep-primal' | 'keep-dual';
}

/** One block step of BCFW, reported to `BcfwOptions.onBlockStep` (for tests and diagnostics). */
export interface BlockStepInfo {
  /** Steps done before this one. */
  k: number;
  block: number;
  /** 'none' when no move improved the dual. */
  kind: 'fw' | 'away' | 'pairwise' | 'none';
  gamma: number;
  /** FW block gap g_i at the start of the step. */
  blockGap: number;
  cacheHit: boolean;
  /** Dual objective l - (lambda/2)||w||^2 after the step. */
  dual: number;
}

/** Counters of a BCFW run (cumulative). */
export interface BcfwCounters {
  cacheHits: number;
  fwSteps: number;
  awaySteps: number;
  pairwiseSteps: number;
  dropSteps: number;
  /** Steps where no move improved the dual. */
  nullSteps: number;
}

/** BCFW result: per-block exact gaps are known when averaging is off (the blocks belong to the returned iterate). */
export interface BcfwResult extends SolverResult {
  blockGaps?: Float64Array;
  /** Blocks per step (tau). */
  batch: number;
  /** Whether mini-batches overlapped (BcfwOptions.overlap). */
  overlap: boolean;
  counters: BcfwCounters;
  /** Labels stored over all blocks (dual variables and cache), when kept. */
  storedLabels?: number;
}

interface ResolvedCache {
  factor: number;
  nu: number;
  maxSize: number;
  initialGap: number;
}

/** A corner of block i's polytope: a label with its psi (copied into an engine-owned buffer) and loss. */
interface Corner {
  psi: SparseVector;
  loss: number;
  /** L_i(y) - <w, psi_i(y)> at the current w. */
  score: number;
}

/**
 * Block-coordinate Frank-Wolfe for the structural SVM dual (Lacoste-Julien et al. 2013, Algorithm 4) with
 * the switches of "Minding the Gaps" (Osokin et al. 2016): gap sampling (Alg. 2), pairwise and away steps
 * (Alg. 3-4, and the hybrid that takes the move with the largest dual improvement), gap-based caching
 * (Alg. 5). One engine; every combination of sampling x step x cache x averaging runs.
 *
 * State: per-block w_i (dense, n x d) and l_i with w = sum_i w_i, l = sum_i l_i, kept incrementally and
 * rebuilt from the blocks at every scheduled exact check. The block gap towards a corner y is
 * g_i(y) = lambda w_i^T w - l_i + s_i(y)/n with s_i(y) = L_i(y) - <w, psi_i(y)> (2016 eq. 10).
 * Gap estimates g_i are set by oracle calls (clipped at 0) and refreshed by the exact pass every `gapCheck`
 * passes, whose total is the stopping certificate; the run always ends with an exact gap.
 */
export class BcfwSolver extends PassSolver {
  private readonly sampling: Sampling;
  private readonly gapDegree: number;
  private readonly step: StepType;
  private readonly cache: ResolvedCache | undefined;
  private readonly lineSearch: boolean;
  private readonly averaging: boolean;
  private readonly blockKind: 'dense' | 'sparse';
  private readonly heuristicExit: number | false;
  /**
   * Blocks per step (tau), whether mini-batches overlap, and their buffers: two when they do (one applied, the
   * next decoded), and the mini-batch being decoded while the current one is applied. While a mini-batch is
   * sampled, `taken` marks its blocks and those of the mini-batch it overlaps (distinct blocks, none shared),
   * and `batchWeights` and `excludedWeights` keep their sum-tree weights (out of the tree meanwhile).
   */
  private readonly batch: number;
  private readonly overlap: boolean;
  private readonly batches: MiniBatch[];
  private inFlight: MiniBatch | undefined;
  private readonly batchWeights: Float64Array;
  private readonly excludedWeights: Float64Array;
  private readonly taken: Uint8Array;
  /** v = sum_i w_i, kept unclipped (2016 App. H), and the w = clip(v) every oracle, gap and objective sees (box.w). */
  private readonly box: ClippedIterate;
  private readonly w: Float64Array;
  private readonly bounds: ClipBounds | undefined;
  private l = 0;
  private readonly blocks: BlockStorage;
  private readonly lBlocks: Float64Array;
  private readonly wAvg: Float64Array;
  private lAvg = 0;
  /** Block steps done (the k of Alg. 4). */
  private k = 0;
  private rng: Rng;
  private readonly order: Int32Array;
  /** Gap estimates g_i (+Infinity until block i is visited) and their p-th powers in a sum tree. */
  private readonly gapEst: Float64Array;
  private readonly tree: SumTree;
  private estSum = 0;
  private unvisited: number;
  /** Blocks in the random order of their first visit (gap sampling draws unvisited blocks from here). */
  private readonly firstVisitOrder: Int32Array;
  /** Total exact gap of the last exact pass: the G of the global cache criterion. */
  private lastExactTotal: number;
  private readonly atoms: BlockAtoms<unknown>[] | undefined;
  private readonly counters: BcfwCounters = { cacheHits: 0, fwSteps: 0, awaySteps: 0, pairwiseSteps: 0, dropSteps: 0, nullSteps: 0 };
  private readonly stats = new Float64Array(3);
  private scores = new Float64Array(64);
  private readonly fwCorner: Corner = { psi: emptySparse(), loss: 0, score: 0 };
  private readonly awayCorner: Corner = { psi: emptySparse(), loss: 0, score: 0 };
  private readonly pairScratch: Float64Array;
  private last: PassCertificate | undefined;
  private checkedAt = -1;
  private passesSinceCheck = 0;
  private lastBlockGaps: Float64Array | undefined;
  /** True while the gap estimates are the exact block gaps of the current iterate (no step since the last exact pass). */
  private estimatesExact = false;
  private finished = false;

  constructor(problem: Problem, settings: TrainSettings = {}, private readonly bcfwHooks: BcfwHooks = {}, restored?: SolverCheckpoint) {
    const config = resolveCommon(problem, 'bcfw', settings, 200);
    super('bcfw', problem, settings, bcfwHooks, config, restored);
    const o = settings;
    this.sampling = o.sampling ?? 'uniform';
    this.gapDegree = o.gapDegree ?? 1;
    this.step = o.step ?? 'fw';
    this.cache = resolveCache(o.cache);
    this.lineSearch = o.lineSearch ?? true;
    this.blockKind = o.blockStorage ?? (problem.n * problem.dim * 8 <= 2 ** 30 ? 'dense' : 'sparse');
    const plain = this.sampling !== 'gap' && this.step === 'fw' && !this.cache && this.blockKind === 'dense';
    this.averaging = o.averaging ?? plain;
    if (this.averaging && this.blockKind === 'sparse') throw new OptionError('--averaging costs O(d) per step: it needs dense block storage (this problem takes sparse block storage)');
    this.heuristicExit = o.heuristicExit ?? (this.averaging ? false : 0.8);
    const { n, dim: d } = problem;
    // A resumed run keeps the batch it was made with (checkpoints before mini-batches: 1) unless told otherwise.
    // Mini-batches pay off by default where the oracle is costly (Problem.miniBatches; docs/results.md, multi-core
    // training); the default never depends on the threads.
    const background = problem.batch?.decodesInBackground?.() === true;
    const batch = o.batch ?? (restored ? Number(restored.meta.options.batch ?? 1) : defaultBatch(n, problem.batch !== undefined && problem.miniBatches === true));
    this.batch = Math.min(batch, n);
    // Overlap by default where the updates are the larger part of a step (a cheap oracle that decodes in the
    // background: OCR's dense chains). A costly oracle (miniBatches: pose) already keeps the threads busy with
    // plain mini-batches, and the extra mini-batch of staleness cost it more passes than the overlap saved time.
    this.overlap = o.overlap ?? (restored ? restored.meta.options.overlap === true : this.batch > 1 && background && problem.miniBatches !== true);
    if (o.overlap === true && this.batch === 1) throw new OptionError('--overlap needs --batch > 1: there is no next mini-batch to decode while one block is applied');
    this.batches = Array.from({ length: this.batch > 1 && this.overlap ? 2 : 1 }, () => new MiniBatch(this.batch));
    this.batchWeights = new Float64Array(this.batch);
    this.excludedWeights = new Float64Array(this.batch);
    this.taken = new Uint8Array(this.batch > 1 ? n : 0);
    this.bounds = resolveBounds(problem);
    this.box = new ClippedIterate(d, this.bounds);
    this.w = this.box.w;
    // Mini-batch runs take the dense dot products chunk by chunk (on threads, the same on any number of them).
    this.blocks = this.blockKind === 'dense' ? new DenseBlocks(n, d, { chunkedStats: this.batch > 1, threads: Math.min(threads(), 256) }) : new SparseBlocks(n, d);
    this.lBlocks = new Float64Array(n);
    this.wAvg = new Float64Array(this.averaging ? d : 0);
    this.order = new Int32Array(n);
    this.rng = new Rng(config.seed);
    this.gapEst = new Float64Array(n).fill(Infinity);
    this.tree = new SumTree(n);
    this.unvisited = n;
    this.firstVisitOrder = this.rng.permutation(new Int32Array(n));
    this.lastExactTotal = this.cache?.initialGap ?? Infinity;
    this.pairScratch = new Float64Array(this.step === 'fw' ? 0 : d);
    if (this.step !== 'fw' || this.cache) {
      this.atoms = Array.from({ length: n }, (_, i) => {
        const a = new BlockAtoms<unknown>();
        const gt = problem.groundTruth(i);
        a.add(gt, problem.labelKey(gt), 0, 1);
        return a;
      });
    }
    const { start, warmStart } = bcfwHooks;
    check(!(start && warmStart), 'start and warmStart exclude each other');
    if (restored) this.restore(restored);
    else if (warmStart) this.warmStartFrom(warmStart);
    else if (start) this.startAtCorners(start);
  }

  // ---------------------------------------------------------------------------------------------
  // Sampling (2016 Alg. 2)

  private setEstimate(i: number, g: number): void {
    const old = this.gapEst[i]!;
    if (old === Infinity) this.unvisited--;
    else this.estSum -= old;
    this.gapEst[i] = g;
    this.estSum += g;
    this.tree.set(i, this.gapDegree === 1 ? g : g ** this.gapDegree);
  }

  /** Sum of the gap estimates (Infinity while a block is unvisited). */
  get gapEstimate(): number {
    return this.unvisited > 0 ? Infinity : Math.max(this.estSum, 0);
  }

  /**
   * A block drawn with probability proportional to its gap estimate^p, unvisited blocks first. While a
   * mini-batch is sampled, its blocks are `taken` and out of the tree (drawn without replacement). When every
   * estimate left is 0, any block; or -1 with `orNone` (a mini-batch then ends: such blocks are not worth
   * a step unless nothing else is).
   */
  private drawGapBlock(orNone = false): number {
    // Unvisited blocks count as +inf: they come first, in a random order.
    for (let p = this.firstVisitOrder.length - this.unvisited; this.unvisited > 0 && p < this.firstVisitOrder.length; p++) {
      const i = this.firstVisitOrder[p]!;
      if (this.gapEst[i] === Infinity && this.taken[i] !== 1) return i;
    }
    const i = this.tree.sample(this.rng.next());
    return i >= 0 ? i : orNone ? -1 : this.uniformBlock();
  }

  /** A uniform block, not one already taken by the mini-batch being sampled. */
  private uniformBlock(): number {
    let i: number;
    do i = this.rng.int(this.problem.n);
    while (this.taken[i] === 1);
    return i;
  }

  // ---------------------------------------------------------------------------------------------
  // One block step

  private corner(target: Corner, i: number, label: unknown, psi?: SparseVector): void {
    copySparseInto(psi ?? this.problem.psi(i, label), target.psi);
    target.loss = this.problem.loss(i, label);
    target.score = target.loss - dotSparse(this.w, target.psi);
  }

  /**
   * Scores block i's stored labels at the current w (into `scores`) and returns the index of the one the
   * cache serves (2016 Alg. 5: its block gap is > 0 and >= max(F g_i, nu G / n)), or -1.
   */
  private cacheChoice(i: number): number {
    const { problem, w, stats } = this;
    const A = this.atoms?.[i];
    if (!A) return -1;
    if (this.scores.length < A.size + 1) this.scores = new Float64Array(2 * (A.size + 1));
    problem.labelScores(i, w, A.labels, this.scores);
    if (!this.cache || A.size === 0) return -1;
    const { n } = problem;
    // g_i(y) = base + s_i(y)/n with base = lambda <w_i, w> - l_i.
    this.blocks.stats(i, w, EMPTY, stats);
    const base = this.config.lambda * stats[0]! - this.lBlocks[i]!;
    let c = 0;
    for (let k = 1; k < A.size; k++) if (this.scores[k]! > this.scores[c]!) c = k;
    const gCache = base + this.scores[c]! / n;
    return gCache > 0 && gCache >= Math.max(this.cache.factor * this.gapEst[i]!, (this.cache.nu * this.lastExactTotal) / n) ? c : -1;
  }

  /**
   * One block step at the current w (2013 Alg. 4; 2016 Alg. 3-5). The FW corner is the cache's label, else
   * `label` when the mini-batch `decoded` it (at the batch's w: its score is re-evaluated here), else the
   * max-oracle's (with its psi when the background decode computed it). A decoded block's gap estimate is the
   * larger of its exact gap at the batch's w (`startGap`)
   * and its gap towards that corner here (a lower bound on its gap here), so that stale corners do not make
   * estimates that starve gap sampling or end a pass of steps early.
   */
  private blockStep(i: number, decoded = false, label?: unknown, startGap = 0, decodedPsi?: SparseVector): void {
    const { problem, w, stats, atoms } = this;
    this.estimatesExact = false;
    const { n } = problem;
    const lambda = this.config.lambda;
    const lambdaN = lambda * n;
    const { blocks } = this;
    const li = this.lBlocks[i]!;
    const A = atoms?.[i];
    // FW corner: the cache (Alg. 5) or the max-oracle; the stored labels' scores at w are left in `scores`.
    let sIndex = this.cacheChoice(i);
    const cacheHit = sIndex >= 0;
    const s = this.fwCorner;
    if (cacheHit) {
      this.counters.cacheHits++;
      this.corner(s, i, A!.labels[sIndex]);
    }
    let oracleLabel: unknown;
    if (!cacheHit) {
      oracleLabel = decoded ? label : problem.oracle(i, w);
      if (!decoded) this.oracleCalls++;
      this.corner(s, i, oracleLabel, decodedPsi);
      // The ground truth scores 0. When the label does not beat it (the oracle's, up to rounding: checked; one
      // decoded at the mini-batch's older w: legitimately), the ground truth is the corner: w_s = 0, l_s = 0.
      if (!((decoded ? s.score : checkedHinge(s.score, i)) > 0)) {
        oracleLabel = problem.groundTruth(i);
        s.psi.nnz = 0;
        s.loss = 0;
        s.score = 0;
      }
    }
    blocks.stats(i, w, s.psi, stats);
    // g_i(y) = base + s_i(y)/n with base = lambda <w_i, w> - l_i (2016 eq. 10).
    const base = lambda * stats[0]! - li;
    const wiSq = stats[1]!;
    const gFW = base + s.score / n;
    if (!cacheHit) {
      this.setEstimate(i, Math.max(gFW, decoded ? startGap : 0, 0));
      if (A) {
        const key = problem.labelKey(oracleLabel);
        sIndex = A.indexOf(key);
        if (sIndex < 0) {
          sIndex = A.add(oracleLabel, key, s.loss);
          this.scores[sIndex] = s.score;
        }
      }
    }
    // ||w_i - w_s||^2 = ||w_i||^2 - 2 <w_i, psi_s>/(lambda n) + ||psi_s||^2/(lambda n)^2
    const fwDistSq = Math.max(wiSq - (2 * stats[2]!) / lambdaN + normSqSparse(s.psi) / (lambdaN * lambdaN), 0);

    let kind: BlockStepInfo['kind'] = 'none';
    let gamma = 0;
    let best = 0;
    let drop = false;
    const consider = (k: BlockStepInfo['kind'], gap: number, distSq: number, gammaMax: number) => {
      const g = Math.min(Math.max(gap / (lambda * distSq + Number.EPSILON), 0), gammaMax);
      const improvement = g * gap - 0.5 * g * g * lambda * distSq; // dual decrease of the move (exact: quadratic)
      if (improvement > best) {
        best = improvement;
        kind = k;
        gamma = g;
        drop = g === gammaMax;
      }
    };
    if (this.step === 'fw' || this.step === 'away' || this.step === 'hybrid') {
      if (this.lineSearch) consider('fw', gFW, fwDistSq, 1);
      else {
        kind = 'fw';
        gamma = (2 * n) / (this.k + 2 * n);
        drop = gamma === 1;
      }
    }
    // Away corner: the active atom with the smallest score (2016 Sec. 3.3).
    let aIndex = -1;
    if (A && this.step !== 'fw') {
      for (let k = 0; k < A.size; k++) if (A.alpha[k]! > 0 && (aIndex < 0 || this.scores[k]! < this.scores[aIndex]!)) aIndex = k;
      const alphaA = A.alpha[aIndex]!;
      const a = this.awayCorner;
      if (aIndex !== sIndex || this.step !== 'pairwise') this.corner(a, i, A.labels[aIndex]);
      // Away gap g^A = lambda w^T (w_a - w_i) + l_i - l_a = -(base + s_a/n).
      const gA = -(base + a.score / n);
      if ((this.step === 'away' || this.step === 'hybrid') && alphaA < 1) {
        blocks.stats(i, w, a.psi, stats);
        const awayDistSq = Math.max(wiSq - (2 * stats[2]!) / lambdaN + normSqSparse(a.psi) / (lambdaN * lambdaN), 0);
        consider('away', gA, awayDistSq, alphaA / (1 - alphaA));
      }
      if ((this.step === 'pairwise' || this.step === 'hybrid') && aIndex !== sIndex) {
        // ||w_s - w_a||^2 = ||psi_s - psi_a||^2 / (lambda n)^2
        const pairDistSq = sparseDistSq(s.psi, a.psi, this.pairScratch) / (lambdaN * lambdaN);
        consider('pairwise', gFW + gA, pairDistSq, alphaA);
      }
    }

    const rho = 2 / (this.k + 2);
    const avg = this.averaging ? this.wAvg : null;
    let liNew = li;
    const v = this.box.unclip(); // w holds v until reclip() below
    switch (kind as BlockStepInfo['kind']) {
      case 'fw':
        // w_i <- (1 - gamma) w_i + gamma w_s (Alg. 4 line 7)
        blocks.update(i, v, avg, s.psi, gamma, 1 / lambdaN, rho);
        liNew = (1 - gamma) * li + (gamma * s.loss) / n;
        this.counters.fwSteps++;
        if (A) {
          for (let k = 0; k < A.size; k++) A.alpha[k] = drop ? 0 : (1 - gamma) * A.alpha[k]!;
          A.alpha[sIndex] = drop ? 1 : A.alpha[sIndex]! + gamma;
        }
        break;
      case 'away': {
        // w_i <- (1 + gamma) w_i - gamma w_a (Alg. 4 of 2016): blockUpdate with -gamma towards w_a.
        const a = this.awayCorner;
        blocks.update(i, v, avg, a.psi, -gamma, 1 / lambdaN, rho);
        liNew = (1 + gamma) * li - (gamma * a.loss) / n;
        this.counters.awaySteps++;
        for (let k = 0; k < A!.size; k++) A!.alpha[k] = (1 + gamma) * A!.alpha[k]!;
        A!.alpha[aIndex] = drop ? 0 : A!.alpha[aIndex]! - gamma;
        break;
      }
      case 'pairwise': {
        // w_i <- w_i + gamma (w_s - w_a) (Alg. 3 of 2016)
        const a = this.awayCorner;
        const scale = gamma / lambdaN;
        blocks.addSparse(i, v, s.psi, scale);
        blocks.addSparse(i, v, a.psi, -scale);
        if (avg) blocks.update(i, v, avg, EMPTY, 0, 0, rho);
        liNew = li + (gamma * (s.loss - a.loss)) / n;
        this.counters.pairwiseSteps++;
        A!.alpha[sIndex] = A!.alpha[sIndex]! + gamma;
        A!.alpha[aIndex] = drop ? 0 : A!.alpha[aIndex]! - gamma;
        break;
      }
      case 'none':
        this.counters.nullSteps++;
        if (avg) blocks.update(i, v, avg, EMPTY, 0, 0, rho);
        break;
    }
    if (drop && kind !== 'none') this.counters.dropSteps++;
    this.box.reclip();
    this.lBlocks[i] = liNew;
    this.l += liNew - li;
    if (this.averaging) this.lAvg = (1 - rho) * this.lAvg + rho * this.l;
    if (A) {
      this.tidyAtoms(A, sIndex, i);
      if (this.settings.checkConsistency) this.checkBlock(i);
    }
    this.bcfwHooks.onStep?.({ k: this.k, block: i, kind, gamma, blockGap: gFW, cacheHit, dual: this.dualOf(this.box.v(), w, this.l) });
    this.k++;
  }

  /**
   * After a step: renormalise drifted weights, drop inactive labels when there is no cache, and evict
   * down to maxSize with the authors' rule ([G]): the inactive label with the lowest score goes first;
   * active labels are never evicted with away/pairwise steps (the store grows instead); with FW steps
   * only, the lowest-scoring active label goes and the block's weights become approximate.
   */
  private tidyAtoms(A: BlockAtoms<unknown>, sIndex: number, i: number): void {
    let sum = 0;
    for (const a of A.alpha) sum += a;
    if (A.exact && Math.abs(sum - 1) > 1e-12) {
      for (let k = 0; k < A.size; k++) A.alpha[k] = A.alpha[k]! / sum;
      this.rebuildBlock(i);
    }
    if (!this.cache) {
      for (let k = A.size - 1; k >= 0; k--) if (A.alpha[k] === 0) A.remove(k);
      return;
    }
    while (A.size > this.cache.maxSize) {
      let victim = -1;
      for (let k = 0; k < A.size; k++) {
        if (k !== sIndex && A.alpha[k] === 0 && (victim < 0 || this.scores[k]! < this.scores[victim]!)) victim = k;
      }
      if (victim < 0) {
        if (this.step !== 'fw') return; // active atoms stay: the store grows
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
    const { problem } = this;
    const { n, dim: d } = problem;
    const lambdaN = this.config.lambda * n;
    const A = this.atoms![i]!;
    const wi = new Float64Array(d);
    let li = 0;
    for (let k = 0; k < A.size; k++) {
      if (A.alpha[k] === 0) continue;
      const psi = problem.psi(i, A.labels[k]);
      for (let q = 0; q < psi.nnz; q++) wi[psi.indices[q]!]! += (A.alpha[k]! * psi.values[q]!) / lambdaN;
      li += (A.alpha[k]! * A.loss[k]!) / n;
    }
    this.blocks.replace(i, this.box.unclip(), wi);
    this.box.reclip();
    this.l += li - this.lBlocks[i]!;
    this.lBlocks[i] = li;
  }

  /** The active-set invariants of block i (2016 App. B; [G] cache consistency checks). */
  private checkBlock(i: number): void {
    const { problem } = this;
    const { n, dim: d } = problem;
    const lambdaN = this.config.lambda * n;
    const A = this.atoms![i]!;
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
    if (Math.abs(li - this.lBlocks[i]!) > 1e-9) throw new Error(`consistency: block ${i} has l_i ${this.lBlocks[i]} but the weights give ${li}`);
    const stored = new Float64Array(d);
    this.blocks.read(i, stored);
    let err = 0;
    let scale = 1 / lambdaN; // entries are alpha-weighted psi / (lambda n): rounding is relative to that
    for (let j = 0; j < d; j++) {
      err = Math.max(err, Math.abs(wi[j]! - stored[j]!));
      scale = Math.max(scale, Math.abs(wi[j]!));
    }
    if (err > 1e-9 * scale) throw new Error(`consistency: block ${i} has w_i off by ${err} from sum alpha psi/(lambda n)`);
  }

  // ---------------------------------------------------------------------------------------------
  // Passes, exact checks, results

  /** Dual objective l - lambda (<v, w> - ||w||^2/2) with w = clip(v) (= l - lambda/2 ||w||^2 without bounds). */
  private dualOf(v: Float64Array, w: Float64Array, l: number): number {
    return v === w ? l - 0.5 * this.config.lambda * dot(w, w) : l - this.config.lambda * (dot(v, w) - 0.5 * dot(w, w));
  }

  /** Rebuilds w and l from the blocks (removes incremental drift). */
  private resync(): void {
    this.blocks.sumInto(this.box.unclip());
    this.box.reclip();
    this.l = this.lBlocks.reduce((a, b) => a + b, 0);
  }

  /** The iterate that is certified and returned: the weighted average when averaging is on. */
  private get returned(): { w: Float64Array; v: Float64Array; l: number } {
    if (!this.averaging) return { w: this.w, v: this.box.v(), l: this.l };
    return { w: this.bounds ? clipInto(this.wAvg, this.bounds, new Float64Array(this.wAvg.length)) : this.wAvg, v: this.wAvg, l: this.lAvg };
  }

  /**
   * Full oracle pass at the returned iterate: the exact gap (2013 Sec. 3). Without averaging it also gives
   * the exact block gaps; a scheduled check lets them replace every estimate (2016 Sec. 3.2) and set G for
   * the cache. The final check of a stopped run leaves that state alone, so a resumed run goes on exactly
   * as an uninterrupted one would.
   */
  private *exactCheck(scheduled: boolean): Generator<PassStep, number, void> {
    const it = this.returned;
    const { n } = this.problem;
    const pass = yield* this.exactPass(it.w);
    this.oracleCalls += n;
    this.last = passCertificate(this.config.lambda, n, it.w, it.l, pass, it.v);
    if (!this.averaging) {
      const g = blockGaps(this.config.lambda, (i) => this.blocks.dot(i, this.w), this.lBlocks, pass.hinge);
      this.lastBlockGaps = g;
      if (scheduled) {
        const clipped = g.map((x) => Math.max(x, 0));
        this.gapEst.set(clipped);
        this.tree.setAll(this.gapDegree === 1 ? clipped : clipped.map((x) => x ** this.gapDegree));
        this.estSum = clipped.reduce((a, b) => a + b, 0);
        this.unvisited = 0;
        this.lastExactTotal = this.last.gap;
        this.estimatesExact = true;
      }
    }
    this.checkedAt = this.at();
    if (scheduled) this.passesSinceCheck = 0;
    const seconds = this.clock.seconds;
    this.emit({ seconds, ...this.last, ...this.counterFields(), ...this.evaluate(it.w) });
    return this.last.gap;
  }

  private counterFields(): Record<string, number> {
    const stored = this.storedLabels;
    return stored === undefined ? {} : { cacheHits: this.counters.cacheHits, storedLabels: stored };
  }

  private get storedLabels(): number | undefined {
    return this.atoms?.reduce((s, a) => s + a.size, 0);
  }

  /** Exact gap for the trace only: neither counted nor used by the solver. */
  private monitor(): void {
    const it = this.returned;
    const cert = this.clock.excluded(() => passCertificate(this.config.lambda, this.problem.n, it.w, it.l, fullOraclePass(this.problem, it.w), it.v));
    this.emit({ seconds: this.clock.seconds, ...cert, monitor: true, ...this.evaluate(it.w) });
  }

  /** True when the estimated gap says the threshold is probably reached ([G] heuristic exit). */
  private heuristicallyConverged(): boolean {
    return this.heuristicExit !== false && this.gapEstimate <= this.heuristicExit * this.config.gapThreshold;
  }

  private nextBlock(s: number, orNone = false): number {
    switch (this.sampling) {
      case 'perm':
        return this.order[s]!;
      case 'gap':
        return this.drawGapBlock(orNone);
      default:
        return this.uniformBlock();
    }
  }

  /**
   * Steps s .. s+m-1 of the pass as one mini-batch (m <= min(tau, n - s)); returns m. Its blocks were sampled
   * and their cache misses decoded together (startBatch) now, or while the previous mini-batch was applied
   * (overlap); the m block steps then run in sampled order at their own iterates.
   */
  private miniBatchStep(s: number): number {
    const b = this.inFlight ?? this.startBatch(this.batches[0]!, s);
    this.inFlight = undefined;
    this.finishBatch(b);
    // Overlapped: the pass's next mini-batch (other blocks) is decoded at this w while b is applied.
    if (this.overlap && s + b.m < this.problem.n) this.inFlight = this.startBatch(this.batches[b === this.batches[0] ? 1 : 0]!, s + b.m, b);
    for (let q = 0; q < b.m; q++) {
      const d = b.decoded[q]!;
      this.blockStep(b.blocks[q]!, d >= 0, d >= 0 ? b.labels[d] : undefined, d >= 0 ? b.hinge[d]! : 0, d >= 0 ? b.psis[d] : undefined);
    }
    return b.m;
  }

  /**
   * Samples the mini-batch of pass positions s, s+1, ... into b: distinct blocks (gap sampling without
   * replacement through the sum tree, ending the batch early when the blocks left all have zero estimates),
   * none of `exclude`'s (the mini-batch to be applied while b is decoded); the blocks the cache would not serve
   * at the current w start decoding together at it (on native threads when the problem batches), and so do the
   * products <w_i, w> of their exact gaps: in the background when b overlaps `exclude`.
   */
  private startBatch(b: MiniBatch, s: number, exclude?: MiniBatch): MiniBatch {
    const { problem, tree, taken } = this;
    const excluded = exclude?.m ?? 0;
    for (let q = 0; q < excluded; q++) {
      const i = exclude!.blocks[q]!;
      taken[i] = 1;
      if (this.sampling === 'gap') {
        this.excludedWeights[q] = tree.get(i);
        if (this.excludedWeights[q]! > 0) tree.set(i, 0);
      }
    }
    let m = Math.min(this.batch, problem.n - s, problem.n - excluded);
    for (let q = 0; q < m; q++) {
      const i = this.nextBlock(s + q, q > 0);
      if (i < 0) {
        m = q;
        break;
      }
      b.blocks[q] = i;
      taken[i] = 1;
      // Out of the tree until the batch is sampled (drawn without replacement).
      if (this.sampling === 'gap') {
        this.batchWeights[q] = tree.get(i);
        if (this.batchWeights[q]! > 0) tree.set(i, 0);
      }
    }
    for (let q = 0; q < m; q++) {
      const i = b.blocks[q]!;
      taken[i] = 0;
      if (this.sampling === 'gap' && this.batchWeights[q]! > 0) tree.set(i, this.batchWeights[q]!);
    }
    for (let q = 0; q < excluded; q++) {
      const i = exclude!.blocks[q]!;
      taken[i] = 0;
      if (this.sampling === 'gap' && this.excludedWeights[q]! > 0) tree.set(i, this.excludedWeights[q]!);
    }
    b.m = m;
    let misses = 0;
    for (let q = 0; q < m; q++) {
      const i = b.blocks[q]!;
      if (this.cacheChoice(i) >= 0) b.decoded[q] = -1;
      else {
        b.decoded[q] = misses;
        b.missed[misses++] = i;
      }
    }
    b.misses = misses;
    b.decoding = false;
    b.psis.fill(undefined);
    if (misses === 0) return b;
    // Decoded ahead (in the background where it can) when b overlaps `exclude`, else at once on every thread.
    const batch = problem.batch;
    if (exclude && batch?.startSubset) {
      batch.startSubset(this.w, b.missed, misses);
      b.decoding = true;
    } else if (batch) batch.decodeSubset(this.w, b.missed, misses, b.labels, b.hinge);
    else {
      for (let q = 0; q < misses; q++) {
        const i = b.missed[q]!;
        b.labels[q] = problem.oracle(i, this.w);
        this.corner(this.awayCorner, i, b.labels[q]);
        b.hinge[q] = checkedHinge(this.awayCorner.score, i);
      }
    }
    if (exclude) b.waitDots = this.blocks.startDots(b.missed, misses, this.w, b.dots);
    else this.blocks.dots(b.missed, misses, this.w, b.dots);
    return b;
  }

  /**
   * Waits for b's decode and dot products, and turns its H_i into the blocks' exact gaps at the decode's w
   * (2016 eq. 10): g_i = lambda <w_i, w> - l_i + H_i/n (neither w_i nor l_i has changed since: b's blocks were
   * not in the mini-batch applied meanwhile).
   */
  private finishBatch(b: MiniBatch): void {
    this.wait(b);
    this.oracleCalls += b.misses;
    for (let q = 0; q < b.misses; q++) b.hinge[q] = this.config.lambda * b.dots[q]! - this.lBlocks[b.missed[q]!]! + b.hinge[q]! / this.problem.n;
  }

  private wait(b: MiniBatch): void {
    if (b.decoding) this.problem.batch!.finishSubset!(b.labels, b.hinge, b.psis);
    b.decoding = false;
    b.waitDots?.();
    b.waitDots = undefined;
  }

  /** Drops the mini-batch being decoded when the pass ends before its turn (waited for, unused). */
  private dropInFlight(): void {
    if (this.inFlight) this.wait(this.inFlight);
    this.inFlight = undefined;
  }

  /**
   * Passes as `maxPasses` counts them: block steps that called the oracle, over n. Steps the cache answered
   * (2016 Alg. 5) cost no oracle call and do not use up the cap, so a cached run gets as much oracle work as
   * an uncached one; without a cache this is `passes`.
   */
  private get cappedPasses(): number {
    return this.passes - this.counters.cacheHits / this.problem.n;
  }

  runPass(): boolean {
    return runSteps(this.passSteps());
  }

  protected override *passSteps(): Generator<PassStep, boolean, void> {
    if (this.finished || this.exactPassCancelled) return false;
    if (this.cappedPasses < this.config.maxPasses && !this.mustStop()) {
      // A pass that a stop interrupted (passStep > 0) goes on where it stopped: its start was done.
      if (this.passStep === 0 && this.passesSinceCheck >= this.config.gapCheck && this.checkedAt !== this.passes) {
        // A scheduled check that was cancelled (passSignal) before a checkpoint: run it first, as the
        // uninterrupted run did, so that a resumed run goes on alike.
        this.resync();
        if ((yield* this.exactCheck(true)) <= this.config.gapThreshold) {
          this.stopReason = 'gap';
          return yield* this.finish();
        }
      }
      if (this.sampling === 'perm' && this.passStep === 0) this.rng.permutation(this.order);
      let ended: 'complete' | 'interrupted' | 'converged' | undefined;
      try {
        ended = yield* this.sweep((s) => (this.batch === 1 ? (this.blockStep(this.nextBlock(s)), 1) : this.miniBatchStep(s)), () => this.heuristicallyConverged());
      } finally {
        // Stopped inside the pass: the overlapped mini-batch decoded for the next step is kept (the checkpoint
        // carries it, so that a resumed run applies it as this one would have); otherwise it goes unused.
        if (ended === 'interrupted' && this.inFlight) this.wait(this.inFlight);
        else this.dropInFlight();
      }
      if (ended === 'interrupted') return yield* this.finish(); // not a pass: passStep says where it stopped
      const converged = ended === 'converged';
      this.passes++;
      this.passesSinceCheck++;
      const it = this.returned;
      const estimate = this.gapEstimate;
      this.emit({
        seconds: this.clock.seconds,
        dual: this.dualOf(it.v, it.w, it.l),
        ...(Number.isFinite(estimate) && !this.averaging ? { gapEstimate: estimate } : {}),
        gapIsExact: false,
        ...this.counterFields(),
      });
      const monitorEvery = this.settings.monitorEvery;
      if (monitorEvery && this.passes % monitorEvery === 0) this.monitor();
      if ((converged || this.heuristicallyConverged()) && this.settings.certify === false) {
        this.stopReason = 'gap';
        this.finished = true;
        return false;
      }
      if (converged || this.heuristicallyConverged() || this.passesSinceCheck >= this.config.gapCheck) {
        // On the schedule (or the heuristic exit) only, so that a run stopped early and resumed follows the same path.
        this.resync();
        if ((yield* this.exactCheck(true)) <= this.config.gapThreshold) {
          this.stopReason = 'gap';
          return yield* this.finish();
        }
      }
      if (this.cappedPasses < this.config.maxPasses) return true;
    }
    return yield* this.finish();
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
    const cert = certified ? this.last! : { dual: this.dualOf(it.v, it.w, it.l), gap: this.gapEstimate };
    return {
      ...this.baseResult(it.w, cert, certified),
      blockGaps: this.lastBlockGaps,
      batch: this.batch,
      overlap: this.overlap,
      counters: { ...this.counters },
      storedLabels: this.storedLabels,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Checkpoints

  checkpoint(): SolverCheckpoint {
    const arrays: Record<string, Float64Array | Int32Array> = { ...this.blocks.save(), lBlocks: this.lBlocks, w: this.box.v(), gapEst: this.gapEst };
    if (this.averaging) arrays.wAvg = this.wAvg;
    if (this.passStep > 0 && this.sampling === 'perm') arrays.order = this.order; // the interrupted pass's order
    const atoms = this.atoms?.map((A) => ({ labels: A.labels.map((y) => this.problem.labelToJSON(y)), alpha: A.alpha, loss: A.loss, exact: A.exact }));
    return this.baseCheckpoint(
      {
        l: this.l, lAvg: this.lAvg, k: this.k, estSum: this.estSum, estimatesExact: this.estimatesExact, checkedAt: this.checkedAt, passesSinceCheck: this.passesSinceCheck,
        last: this.last ?? null, lastExactTotal: Number.isFinite(this.lastExactTotal) ? this.lastExactTotal : null,
        counters: this.counters, firstVisitOrder: Array.from(this.firstVisitOrder), atoms: atoms ?? null,
        ...(this.inFlight ? { inFlight: this.inFlight.save(this.problem) } : {}),
        options: {
          ...this.baseOptions(), sampling: this.sampling, gapDegree: this.gapDegree, step: this.step, cache: this.cache ?? null,
          lineSearch: this.lineSearch, averaging: this.averaging, heuristicExit: this.heuristicExit, blockStorage: this.blockKind, batch: this.batch,
          overlap: this.overlap,
        },
      },
      arrays,
      this.rng.state,
    );
  }

  private restore(r: SolverCheckpoint): void {
    const m = r.meta;
    const mine = this.checkpoint().meta.options;
    // Checkpoints made before mini-batches stepped one block at a time.
    const made: Record<string, unknown> = { ...m.options, batch: m.options.batch ?? 1, overlap: m.options.overlap ?? false };
    for (const key of ['sampling', 'gapDegree', 'step', 'cache', 'lineSearch', 'averaging', 'heuristicExit', 'blockStorage', 'batch', 'overlap']) {
      check(JSON.stringify(made[key]) === JSON.stringify(mine[key]), `checkpoint was made with ${key} = ${JSON.stringify(made[key])}, not ${JSON.stringify(mine[key])}`);
    }
    this.loadDualPoint(r);
    if (this.averaging) this.wAvg.set(checkpointArray(r, 'wAvg', this.wAvg.length));
    this.estSum = Number(m.estSum);
    this.estimatesExact = Boolean(m.estimatesExact);
    this.lAvg = Number(m.lAvg);
    this.k = Number(m.k);
    this.checkedAt = Number(m.checkedAt);
    this.passesSinceCheck = Number(m.passesSinceCheck);
    this.last = (m.last ?? undefined) as typeof this.last;
    this.lastExactTotal = m.lastExactTotal === null ? Infinity : Number(m.lastExactTotal);
    Object.assign(this.counters, m.counters);
    if (this.passStep > 0 && this.sampling === 'perm') {
      const order = r.arrays.order;
      check(order instanceof Int32Array && order.length === this.order.length, "checkpoint array 'order' (of the interrupted pass) is missing or has the wrong length");
      this.order.set(order);
    }
    if (m.inFlight !== undefined) this.inFlight = this.batches[0]!.load(m.inFlight, this.problem);
    this.firstVisitOrder.set(m.firstVisitOrder as number[]);
    this.rng = new Rng(Uint32Array.from(m.rngState ?? []));
  }

  /** Blocks, w, l, gap estimates (with the sum tree) and dual variables of a checkpoint. */
  private loadDualPoint(r: SolverCheckpoint): void {
    this.blocks.load(r.arrays);
    this.lBlocks.set(checkpointArray(r, 'lBlocks', this.lBlocks.length));
    this.box.unclip().set(checkpointArray(r, 'w', this.w.length));
    this.box.reclip();
    this.l = Number(r.meta.l);
    // The tree's inner nodes are always the exact sums of their children, so rebuilding it from the
    // leaves reproduces it bit for bit (the running sum of estimates is set by the caller).
    const est = checkpointArray(r, 'gapEst', this.gapEst.length);
    this.gapEst.set(est);
    this.tree.setAll(est.map((g) => (g === Infinity ? 0 : this.gapDegree === 1 ? g : g ** this.gapDegree)));
    this.unvisited = est.reduce((c, g) => c + (g === Infinity ? 1 : 0), 0);
    if (this.atoms) {
      const saved = r.meta.atoms as { labels: unknown[]; alpha: number[]; loss: number[]; exact: boolean }[] | null;
      check(Array.isArray(saved) && saved.length === this.atoms.length, 'the checkpoint has no dual variables (it was made with FW steps and no cache)');
      this.atoms.forEach((A, i) => {
        A.remove(0);
        const b = saved[i]!;
        b.labels.forEach((v, k) => {
          const y = this.problem.labelFromJSON(v);
          A.add(y, this.problem.labelKey(y), b.loss[k]!, b.alpha[k]!);
        });
        A.exact = b.exact;
      });
    }
  }

  /** See BcfwOptions.start: alpha_i = delta(y_i~), w_i = psi_i(y_i~)/(lambda n), l_i = L_i(y_i~)/n. */
  private startAtCorners(start: NonNullable<BcfwHooks['start']>): void {
    const { problem, w } = this;
    const { n, dim: d } = problem;
    check(start.labels.length === n, `start needs ${n} labels, got ${start.labels.length}`);
    const lambdaN = this.config.lambda * n;
    const wi = new Float64Array(d);
    const v = this.box.unclip();
    for (let i = 0; i < n; i++) {
      const y = start.labels[i];
      const psi = problem.psi(i, y);
      const L = problem.loss(i, y);
      wi.fill(0);
      for (let q = 0; q < psi.nnz; q++) wi[psi.indices[q]!] = psi.values[q]! / lambdaN;
      this.blocks.replace(i, v, wi);
      this.lBlocks[i] = L / n;
      this.l += L / n;
      const A = this.atoms?.[i];
      if (A) {
        const key = problem.labelKey(y);
        if (A.indexOf(key) < 0) A.add(y, key, L, 0);
        for (let k = 0; k < A.size; k++) A.alpha[k] = A.keys[k] === key ? 1 : 0;
        if (!this.cache) for (let k = A.size - 1; k >= 0; k--) if (A.alpha[k] === 0) A.remove(k);
      }
    }
    if (start.gapEstimates) {
      check(start.gapEstimates.length === n, `start.gapEstimates needs ${n} values`);
      start.gapEstimates.forEach((g, i) => this.setEstimate(i, Math.max(g, 0)));
    }
    this.box.reclip();
    // The estimates are bounds, not exact gaps: the global cache criterion stays off ([G]).
    this.lastExactTotal = 0;
    if (this.averaging) {
      this.wAvg.set(w);
      this.lAvg = this.l;
    }
  }

  /**
   * Delta of Prop. 1 (2016 paper, eq. 11) for lowering lambda: sum_i u_i with u_i = l_i - lambda w_i^T w,
   * the rate at which the gap grows as rho = lambda_new / lambda decreases. When the gap estimates are not
   * exact, negative u_i are clipped to 0 (conservative, as the keep-primal warm start does).
   */
  pathDelta(): number {
    let U = 0;
    for (let i = 0; i < this.problem.n; i++) {
      const u = this.lBlocks[i]! - this.config.lambda * this.blocks.dot(i, this.w);
      U += this.estimatesExact ? u : Math.max(u, 0);
    }
    return U;
  }

  /** The current (not averaged) dual point: w, v (under bounds a copy, valid until the next call), l and whether the gap estimates are exact block gaps. */
  get state(): { w: Float64Array; v: Float64Array; l: number; gapEstimate: number; estimatesExact: boolean } {
    return { w: this.w, v: this.box.v(), l: this.l, gapEstimate: this.gapEstimate, estimatesExact: this.estimatesExact };
  }

  /** See BcfwOptions.warmStart. */
  private warmStartFrom(ws: WarmStart): void {
    const m = ws.from.meta;
    const { n, dim: d } = this.problem;
    check(m.solver === 'bcfw' && m.n === n && m.dim === d, `warm start needs a BCFW checkpoint of this problem (n = ${n}, dim = ${d})`);
    checkSameObjective(m, this.problem, 'warm start'); // every setting but lambda
    const oldLambda = Number(m.options.lambda);
    const lambda = this.config.lambda;
    const rho = lambda / oldLambda;
    this.loadDualPoint(ws.from);
    const mode = ws.mode ?? 'keep-primal';
    check(mode === 'keep-primal' || mode === 'keep-dual', `unknown warm start mode '${mode}'`);
    // Keeping w_i at a larger lambda puts weight rho alpha_i(y) on every other label: feasible only when the
    // ground truth had weight >= 1 - 1/rho, which the dual variables show (checked per block below) and the
    // bare blocks of plain BCFW (FW steps, no cache) do not.
    check(mode !== 'keep-primal' || rho <= 1 || this.atoms, `keep-primal cannot raise lambda (by ${rho.toPrecision(4)}x) without dual variables to check that the point stays feasible (FW steps without a cache keep none): use keep-dual`);
    if (mode === 'keep-primal') {
      const exact = Boolean(m.estimatesExact);
      for (let i = 0; i < n; i++) {
        const A = this.atoms?.[i];
        if (A) {
          check(A.exact, `block ${i} has approximate dual variables (FW steps evicted active labels): use keep-dual`);
          const gt = A.indexOf(this.problem.labelKey(this.problem.groundTruth(i)));
          let rest = 0;
          for (let k = 0; k < A.size; k++) if (k !== gt) rest += (A.alpha[k] = rho * A.alpha[k]!);
          check(rest <= 1 + 1e-12, `keep-primal cannot raise lambda by ${rho.toPrecision(4)}x here (block ${i} would need negative weight on its ground truth): use keep-dual`);
          if (gt >= 0) A.alpha[gt] = Math.max(1 - rest, 0);
          else if (rest < 1) A.add(this.problem.groundTruth(i), this.problem.labelKey(this.problem.groundTruth(i)), 0, 1 - rest);
        }
        // g_i(lambda') = g_i(lambda) + (1 - rho) u_i with u_i = l_i - lambda w_i^T w at the old lambda and l_i.
        let u = this.lBlocks[i]! - oldLambda * this.blocks.dot(i, this.w);
        if (!exact && u < 0) u = 0; // stale estimates: stay conservative
        const g = this.gapEst[i]!;
        if (g !== Infinity) this.gapEst[i] = Math.max(g + (1 - rho) * u, 0);
        this.lBlocks[i] = rho * this.lBlocks[i]!;
      }
      this.l *= rho;
      const est = this.gapEst;
      this.tree.setAll(est.map((g) => (g === Infinity ? 0 : this.gapDegree === 1 ? g : g ** this.gapDegree)));
      this.estSum = est.reduce((s, g) => (g === Infinity ? s : s + g), 0);
      this.estimatesExact = exact;
      // G of the global cache criterion: the new total if the estimates are exact, else the global part is off.
      this.lastExactTotal = exact && this.unvisited === 0 ? this.estSum : 0;
    } else {
      const scale = oldLambda / lambda;
      this.blocks.scaleAll(scale);
      const v = this.box.unclip();
      for (let j = 0; j < d; j++) v[j] = scale * v[j]!;
      this.box.reclip();
      this.gapEst.fill(Infinity);
      this.tree.setAll(new Float64Array(n));
      this.unvisited = n;
      this.estSum = 0;
    }
    if (this.averaging) {
      this.wAvg.set(this.box.v());
      this.lAvg = this.l;
    }
  }
}

/**
 * The default blocks per step (tau) for n blocks: it depends on the problem and n, never on the machine's threads,
 * so that a seed and a command give the same trace and model on 1 or 64 cores (threads change only the speed).
 * Mini-batches where the oracle is costly enough for them to pay off (`costly`: a batched oracle and
 * StructuredModel.miniBatches: CoNLL chunking, segmentation, pose): 8 blocks, at most n/32 (at least 1), so that
 * one step's blocks stay a small part of the data and their updates close to sequential ones; 1 (the sequential
 * algorithm) everywhere else. A cheap oracle (OCR's dense chains, multiclass) gains nothing from mini-batches: on
 * OCR-large, tau 8 overlapped on 2 threads took 1.2x the time of tau 1 to the gap 0.01. See docs/results.md
 * (multi-core training) for the measurements.
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

/**
 * The buffers of one mini-batch: its m blocks in sampled order, for each position
 * its decoded label's index (-1: served by the cache), the blocks decoded together (`missed`) with their
 * labels, H_i (then their exact gaps) and <w_i, w>, and what is still running in the background.
 */
class MiniBatch {
  m = 0;
  misses = 0;
  decoding = false;
  waitDots: (() => void) | undefined;
  readonly blocks: Int32Array;
  readonly decoded: Int32Array;
  readonly missed: Int32Array;
  readonly labels: unknown[];
  /** The decoded labels' psi, where the background decode computed them. */
  readonly psis: (SparseVector | undefined)[];
  readonly hinge: Float64Array;
  readonly dots: Float64Array;

  constructor(tau: number) {
    this.blocks = new Int32Array(tau);
    this.decoded = new Int32Array(tau);
    this.missed = new Int32Array(tau);
    this.labels = new Array<unknown>(tau);
    this.psis = new Array<SparseVector | undefined>(tau);
    this.hinge = new Float64Array(tau);
    this.dots = new Float64Array(tau);
  }

  /** The decoded mini-batch as JSON (a run stopped inside a pass with it in flight; the decode has finished). */
  save(problem: Problem): SavedBatch {
    const { m, misses } = this;
    return {
      blocks: Array.from(this.blocks.subarray(0, m)), decoded: Array.from(this.decoded.subarray(0, m)), missed: Array.from(this.missed.subarray(0, misses)),
      labels: this.labels.slice(0, misses).map((y) => problem.labelToJSON(y)), hinge: Array.from(this.hinge.subarray(0, misses)), dots: Array.from(this.dots.subarray(0, misses)),
    };
  }

  /** Loads a saved mini-batch (its psi is rebuilt by the block steps from the labels, as the model computes it). */
  load(saved: unknown, problem: Problem): MiniBatch {
    const b = saved as SavedBatch;
    const m = b?.blocks?.length ?? -1;
    const misses = b?.missed?.length ?? -1;
    const ints = (a: unknown, length: number, min: number, max: number) => Array.isArray(a) && a.length === length && a.every((x) => Number.isInteger(x) && x >= min && x < max);
    check(
      m >= 1 && m <= this.blocks.length && ints(b.blocks, m, 0, problem.n) && ints(b.decoded, m, -1, misses) && ints(b.missed, misses, 0, problem.n) &&
        [b.labels, b.hinge, b.dots].every((a) => Array.isArray(a) && a.length === misses) && [...b.hinge, ...b.dots].every(Number.isFinite),
      'checkpoint: the mini-batch in flight (inFlight) is malformed',
    );
    this.m = m;
    this.misses = misses;
    this.blocks.set(b.blocks);
    this.decoded.set(b.decoded);
    this.missed.set(b.missed);
    b.labels.forEach((y, q) => (this.labels[q] = problem.labelFromJSON(y)));
    this.hinge.set(b.hinge);
    this.dots.set(b.dots);
    this.psis.fill(undefined);
    this.decoding = false;
    this.waitDots = undefined;
    return this;
  }
}

/** A {@link MiniBatch} in a checkpoint: positions' blocks and decoded indices, the decoded blocks' labels, H_i and <w_i, w>. */
interface SavedBatch {
  blocks: number[];
  decoded: number[];
  missed: number[];
  labels: unknown[];
  hinge: number[];
  dots: number[];
}

function checkpointArray(r: SolverCheckpoint, name: string, length: number): Float64Array {
  const a = r.arrays[name];
  check(a instanceof Float64Array && a.length === length, `checkpoint array '${name}' is missing or has the wrong length`);
  return a;
}

function resolveCache(c: boolean | CacheSettings | undefined): ResolvedCache | undefined {
  if (c === undefined || c === false) return undefined;
  const o = c === true ? {} : c;
  const r = { factor: o.factor ?? 0.25, nu: o.nu ?? 0.01, maxSize: o.maxSize ?? 50, initialGap: o.initialGap ?? 1 };
  check(r.factor >= 0 && Number.isFinite(r.factor), `cache factor F must be >= 0, got ${r.factor}`);
  check(r.nu >= 0 && Number.isFinite(r.nu), `cache nu must be >= 0, got ${r.nu}`);
  check(Number.isInteger(r.maxSize) && r.maxSize >= 1, `cache maxSize must be a positive integer, got ${r.maxSize}`);
  check(r.initialGap >= 0, `cache initialGap must be >= 0, got ${r.initialGap}`);
  return r;
}

/** The empty sparse vector (stats without a corner, averaging-only updates). */
const EMPTY: SparseVector = { indices: new Int32Array(0), values: new Float64Array(0), nnz: 0 };

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
