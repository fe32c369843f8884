/**
 * The settings of the structural-SVM solvers, declared once ({@link SETTINGS}): name, type, range, default, which
 * solvers take each, CLI flag, help and the paper's equation. {@link validateSettings} runs in every solver (so in
 * `train`, `trainAsync`, `createSolver`, the regularization path and the grid) and carries every rule the CLI
 * applies, in the same words; the CLI's solver flags and the tables of docs/options.md are generated from it.
 *
 * Settings are plain and serialisable (what model files and checkpoints store and compare); callbacks, signals and
 * starting points are hooks ({@link SolverHooks}), passed separately.
 * @module
 */
import { OptionError } from '../core/errors.js';
import { checkSettings, settingName, settingValue, type SettingSpec } from '../core/settings.js';

/** Solvers: block-coordinate FW (with every 2016 switch), batch FW, stochastic subgradient, the 1-slack cutting plane. */
export type SolverName = 'bcfw' | 'fw' | 'ssg' | 'cutting-plane';
/** The values of {@link SolverName}, in order. */
export const SOLVERS: readonly SolverName[] = ['bcfw', 'fw', 'ssg', 'cutting-plane'];
/**
 * Which moves a block step may take: FW only (BCFW), pairwise only (BCPFW), FW or away (BCAFW), the best of all three,
 * or 'exact': the block's subproblem solved exactly over its few corners (multiclass: its K classes, Keerthi et al.
 * 2008, i.e. LIBLINEAR -s 4) or its working set (the stored labels and the oracle's corner; MP-BCFW's approximate
 * passes, Shah et al. 2015).
 */
export type StepType = 'fw' | 'pairwise' | 'away' | 'hybrid' | 'exact';
/** The values of {@link StepType}, in order. */
export const STEPS: readonly StepType[] = ['fw', 'pairwise', 'away', 'hybrid', 'exact'];
/** Block order: uniform with replacement, a fresh permutation per pass, or proportional to gap estimates. */
export type Sampling = 'uniform' | 'perm' | 'gap';

/** Gap-based caching (2016 paper, Alg. 5). */
export interface CacheSettings {
  /** F of the local criterion: hit iff the cached corner's block gap >= F * g_i. Default 0.25. */
  factor?: number;
  /** nu of the global criterion: hit iff the cached corner's block gap >= nu * G / n. Default 0.01. */
  nu?: number;
  /** Labels kept per block (active atoms are never evicted with away/pairwise steps). Default 50. */
  maxSize?: number;
  /** G before the first exact pass (1 is valid for losses <= 1; Infinity disables the global part). Default 1. */
  initialGap?: number;
  /**
   * Serve cached corners only while they pay: while the recent cache hits gain at least as much dual per unit of work
   * as the recent oracle steps, work counted in the model's operations (StructuredModel.stepCost; deterministic, so a
   * seed still gives one trace on any machine), as MP-BCFW's rule does with time (Shah et al. 2015). While the cache is
   * open a chain's step scores only the node states its ground truth and stored labels use. Models without costs count
   * their oracle as costly (Alg. 5 unchanged). false: Alg. 5 alone. Default true (a resumed run: the
   * checkpoint's; checkpoints before it: false).
   */
  adaptive?: boolean;
}

/**
 * Settings of every solver; each solver takes the ones {@link SETTINGS} lists for it and refuses the others (a
 * setting that would have no effect is an error, not a silent no-op). Defaults follow the authors' code.
 */
export interface TrainSettings {
  /** Default 'bcfw'. */
  solver?: SolverName;
  /** Regularisation lambda of (lambda/2)||w||^2 + (1/n) sum H_i(w). Default 1/n. */
  lambda?: number;
  /** Stop when the exact duality gap is <= this. Default 0.1. */
  gapThreshold?: number;
  /** Passes between exact gap (SSG: primal) evaluations. Default 10. */
  gapCheck?: number;
  /**
   * Cap on passes. Default 200 (SSG: 50; cutting plane: 1000). With a cache (BCFW) it counts the block steps that
   * called the oracle, over n: steps the cache answered are free, so the cap means the same oracle work either way.
   */
  maxPasses?: number;
  /** Wall-clock budget in seconds. Default Infinity. */
  timeBudget?: number;
  /** Seed of the sampling PRNG. Default 1. */
  seed?: number;
  /** Compute the training error (one extra decoding pass) at every exact check. Default false. */
  trainError?: boolean;
  /** BCFW and SSG: log the exact gap (SSG: the primal) every this many passes for plots only (events carry `monitor: true`). */
  monitorEvery?: number;
  /** BCFW and SSG: block sampling. Default 'uniform'. */
  sampling?: Sampling;
  /** Exponent p of gap sampling: block i with probability proportional to g_i^p. Default 1. */
  gapDegree?: number;
  /**
   * BCFW with permutation sampling, one block per step: skip a block whose gap estimate is 0 (it was block-optimal at
   * its last visit) until an exact pass gives it a positive gap again, as LIBLINEAR's shrinking skips settled rows.
   * Default: on for exact steps with 'perm' sampling (a resumed run: the checkpoint's), else off.
   */
  shrinking?: boolean;
  /** BCFW: the moves of a block step. Default 'fw'. Anything else keeps explicit dual variables per block. */
  step?: StepType;
  /** BCFW: caching of oracle answers; `true` for the defaults. Default off. */
  cache?: boolean | CacheSettings;
  /**
   * BCFW: blocks per step (tau; mini-batches as in AP-BCFW). 1 is the sequential algorithm. Default: see
   * {@link defaultBatch}; a resumed run: its checkpoint's. Results depend on tau, not on threads.
   */
  batch?: number;
  /** BCFW with tau > 1: decode the next mini-batch while this one is applied. Default: see the table. */
  overlap?: boolean;
  /** BCFW and FW: optimal step sizes; otherwise gamma = 2n/(k + 2n) (BCFW) or 2/(k + 2) (FW). Default true. */
  lineSearch?: boolean;
  /** BCFW and SSG: weighted averaging rho = 2/(k+2) of the iterates (gaps certified at the average). */
  averaging?: boolean;
  /** BCFW: leave a block of passes early when the gap estimates sum below this multiple of gapThreshold; false: never. */
  heuristicExit?: number | false;
  /** BCFW: confirm a heuristic exit and the result with an exact pass. Default true. */
  certify?: boolean;
  /**
   * BCFW: storage of the per-block vectors w_i: 'dense' (n x d doubles), 'sparse' (the coordinates each block touched)
   * or 'classes' (native exact steps on multiclass rows: each row's dual weights over its K classes, w_i implied).
   * Default: classes for native exact multiclass steps, else dense up to 1 GiB, else sparse.
   */
  blockStorage?: 'dense' | 'sparse' | 'classes';
  /** BCFW: verify the dual invariants after every step (slow; tests; TypeScript steps). */
  checkConsistency?: boolean;
  /**
   * BCFW: run the block steps in native code where the model's oracle, psi and scores are native (dense and sparse
   * chains, multiclass; an in-memory set; batch 1): the same algorithm with the same arithmetic as the TypeScript
   * steps, so the same trace. false: the TypeScript steps. Default true.
   */
  native?: boolean;
  /** Cutting plane: solve the working-set QP to this fraction of the last exact gap. Default 0.1. */
  qpTolerance?: number;
  /** Cutting plane: drop a constraint whose dual weight stayed 0 for this many iterations. Default 50. */
  inactiveWindow?: number;
}

/** What refers to a solver in messages. */
const SOLVER_WORDS: Record<SolverName, string> = { bcfw: 'the block-coordinate solvers (bcfw, bcpfw, bcafw, hybrid)', fw: 'batch FW', ssg: 'SSG', 'cutting-plane': '--solver cutting-plane' };

/** Smallest and largest lambda: outside, w = -(1/lambda) sum psi / n under- or overflows in its squares. */
export const LAMBDA_RANGE = { min: 1e-12, max: 1e12 } as const;
/** Seeds of the sampling PRNG: 32-bit (a larger seed would wrap and repeat another run). */
export const SEED_MAX = 2 ** 32 - 1;

const STEP = 'Solver and step';
const SAMPLING = 'Sampling and caching';
const STOPPING = 'Stopping, certificates, budget';
const STORAGE = 'Storage and checks';

/** Every solver setting. */
export const SETTINGS: readonly SettingSpec<SolverName>[] = [
  {
    key: 'solver', flag: 'solver', type: 'choice', choices: SOLVERS, value: 'NAME', default: 'bcfw; exact for multiclass (libsvm, idx)', section: STEP,
    help: 'bcpfw = pairwise steps, bcafw = FW + away steps, hybrid = the best of FW/away/pairwise, exact = each block solved exactly over its few corners (multiclass: LIBLINEAR -s 4\'s method), cutting-plane = 1-slack (SVMstruct)',
    doc: '`bcfw`: block-coordinate Frank-Wolfe (one block per step); `fw`: batch Frank-Wolfe (one full oracle pass per iteration, exact gap every iteration); `ssg`: stochastic subgradient baseline (no dual, no gap; primal only); `cutting-plane`: the 1-slack cutting plane of SVMstruct (one batched exact pass per iteration adds the most violated joint constraint to a working set whose dual QP is re-solved; it returns the best iterate so far, certified every iteration against the QP\'s dual mapped onto the dual the other solvers report). The CLI also accepts `bcpfw`, `bcafw`, `hybrid`, `exact`: `solver: \'bcfw\'` with `step` `pairwise`, `away`, `hybrid`, `exact`. Multiclass data (`libsvm:`, `idx:`) defaults to `exact` with `--sampling perm` (and shrinking).',
    paper: 'BCFW [2013] Alg. 4 = [2016] Alg. 1; FW [2013] Alg. 2; SSG [2013] Sec. 6; cutting plane: Joachims, Finley & Yu 2009, Alg. 4 ([2013] Sec. 3: fully corrective FW)',
  },
  {
    key: 'step', flag: 'step', type: 'choice', choices: STEPS, value: 'STEP', default: 'fw (bcpfw: pairwise, bcafw: away, hybrid: hybrid, exact: exact)', section: STEP, solvers: ['bcfw'],
    help: 'moves of a block step: fw, pairwise, away (FW or away), hybrid (the best of the three), exact (the block solved over its few corners)',
    doc: 'moves allowed in a block step: `fw` (towards the oracle\'s corner), `pairwise` (mass from the away corner to the FW corner), `away` (FW step or away step, whichever is steeper), `hybrid` (of FW, away and pairwise the one that decreases the dual most), `exact` (the block\'s subproblem solved exactly: over a multiclass row\'s K classes, a projection onto the simplex, as LIBLINEAR `-s 4` does; over a chain\'s working set, its stored labels and the oracle\'s corner, by pairwise moves with exact line search until the subproblem\'s gap is at rounding level). Anything but `fw` keeps explicit per-block dual variables (active sets; drop steps are exact). `exact` takes no cache and no box constraints. `--solver bcpfw` is `--solver bcfw --step pairwise`, `--solver exact` is `--solver bcfw --step exact`; multiclass data (`libsvm:`, `idx:`) defaults to `exact` with `--sampling perm` and shrinking (the fastest there: [benchmarks](benchmarks.md#multiclass-against-liblinear--s-4)).',
    paper: 'BCPFW [2016] Alg. 3, BCAFW Alg. 4 (App. D, G); exact: Keerthi et al. (KDD 2008), MP-BCFW\'s approximate passes (Shah, Kolmogorov & Lampert, CVPR 2015)',
  },
  {
    key: 'lineSearch', negation: 'no-line-search', type: 'boolean', default: 'on', section: STEP, solvers: ['bcfw', 'fw'],
    help: 'optimal step sizes; --no-line-search: the fixed step 2n/(k+2n) (bcfw) or 2/(k+2) (fw)',
    doc: 'optimal step gamma = g_i / (lambda ||w_i - w_s||^2), clipped to [0, 1]; off: the fixed step 2n/(k + 2n) (BCFW) or 2/(k + 2) (FW). Steps other than `fw` need line search (turning it off with them is refused).',
    paper: '[2013] Alg. 4 line 6 / [2016] Alg. 1 line 7',
  },
  {
    key: 'qpTolerance', flag: 'qp-tolerance', type: 'number', value: 'X', min: 0, max: 0.999999, default: '0.1', section: STEP, solvers: ['cutting-plane'],
    help: 'cutting-plane: solve the working-set QP to X times the last exact gap',
    doc: 'cutting plane: the QP over the working set (pairwise FW steps on its simplex) is solved until its own duality gap is <= X times the exact gap of the pass that added the last constraint; values in [0, 1). On OCR a loose solve (0.1-0.3) reached small gaps in fewer iterations than 0.01 or 0.001 ([results](results.md#the-2013-comparison-bcfw-fw-ssg-and-the-cutting-plane))',
  },
  {
    key: 'inactiveWindow', flag: 'inactive-window', type: 'integer', value: 'N', min: 1, max: 1e9, default: '50', section: STEP, solvers: ['cutting-plane'],
    help: 'cutting-plane: drop a constraint whose dual weight stayed 0 for N iterations',
    doc: 'cutting plane: drop a constraint whose dual weight has been 0 for N iterations (SVMstruct\'s rule); constraints with weight are never dropped, so the reported dual stays certified',
  },
  {
    key: 'averaging', flag: 'averaging', negation: 'no-averaging', type: 'boolean', default: 'on for plain bcfw (fw steps, no cache, not gap sampling) and ssg', section: STEP, solvers: ['bcfw', 'ssg'],
    help: 'weighted average rho = 2/(k+2) of the iterates; --no-averaging returns the last iterate',
    doc: 'weighted average rho = 2/(k + 2) of (w, l); the gap is then certified at the averaged iterate. Refused together with gap sampling (gap sampling needs the gaps of the current iterate).',
    paper: 'BCFW-wavg, [2013] Sec. 4',
  },
  {
    key: 'batch', flag: 'batch', type: 'integer', value: 'TAU', min: 1, max: 1e9, section: STEP, solvers: ['bcfw'],
    default: '1 where the block steps run natively (native: OCR, CoNLL, multiclass); 8, at most n/32, for the other costly oracles (segmentation, pose); 1 for the others (word alignment); never depends on the threads',
    help: 'blocks per step, decoded together on native threads; 1 = sequential BCFW',
    doc: 'blocks per step: a step samples tau distinct blocks (uniform, per-pass permutation, or gap sampling without replacement through the sum tree), serves the cache hits, decodes the misses together at the current w on native threads, and applies the tau updates one after another in sampled order, each with line search at the iterate it is applied to (a corner found at a slightly older w is still a feasible direction; the dual never decreases). A decoded block\'s gap estimate is the larger of its exact gap at the step\'s w and its gap towards the decoded corner where the update meets it. `1` is the sequential algorithm, bit for bit. The default depends on the model and n, never on the thread count, so that results are the same on any machine: 1 where the block steps run natively (OCR\'s dense chains, CoNLL and sequence chains without rules, multiclass: one native thread beats mini-batches there), 8 (at most n/32) for the other models whose oracle is costly enough for mini-batches to pay off (models with `miniBatches`: segmentation, pose, chains with rules), 1 for the rest (word alignment: no batched form). Traces depend on tau, never on the threads. A resumed run keeps its checkpoint\'s.',
    paper: 'mini-batches as in AP-BCFW (Wang et al., ICML 2016)',
  },
  {
    key: 'overlap', flag: 'overlap', negation: 'no-overlap', type: 'boolean', section: STEP, solvers: ['bcfw'],
    default: 'on with --batch > 1 where the decoder works in the background and the oracle is cheap (OCR chains)',
    help: 'with --batch > 1: the next mini-batch is decoded in the background while this one is applied (its corners are one mini-batch older)',
    doc: 'overlapped mini-batches (tau > 1): the next mini-batch (other blocks than the current one\'s) is sampled and decoded at the current w on the native background thread, with the dot products of its exact block gaps, while the current one\'s updates are applied; its corners are then one mini-batch older (still feasible directions). A model without background decoding decodes it at once, with the same results. Refused with tau = 1 (nothing to overlap). A resumed run keeps its checkpoint\'s.',
    paper: 'the delayed updates of AP-BCFW (Wang et al., ICML 2016), with a staleness of one mini-batch',
  },
  {
    key: 'sampling', flag: 'sampling', type: 'choice', choices: ['uniform', 'perm', 'gap'], value: 'S', default: 'uniform; perm for multiclass (libsvm, idx)', section: SAMPLING, solvers: ['bcfw', 'ssg'],
    help: 'block sampling; gap = proportional to the block-gap estimates (2016, Alg. 2)',
    doc: 'block order: `uniform` (with replacement), `perm` (a fresh random permutation every pass), `gap` (block i with probability proportional to its gap estimate, drawn from a sum tree in O(log n); blocks never visited come first). `gap` not for `ssg` (no dual, no gaps).',
    paper: 'gap sampling [2016] Alg. 2, Sec. 3.1, eq. 10',
  },
  {
    key: 'gapDegree', flag: 'gap-degree', type: 'number', value: 'P', min: 0, minExclusive: true, max: 100, default: '1', section: SAMPLING, solvers: ['bcfw'],
    help: 'gap sampling draws block i with probability proportional to g_i^P',
    paper: '[2016] Sec. 3.1',
  },
  {
    key: 'shrinking', flag: 'shrinking', negation: 'no-shrinking', type: 'boolean', default: 'on for exact steps with --sampling perm (one block per step)', section: SAMPLING, solvers: ['bcfw'],
    help: 'with --sampling perm: skip blocks whose gap estimate is 0 until an exact pass finds a gap there again',
    doc: 'with `--sampling perm` and one block per step: a block whose gap estimate is 0 (block-optimal when last visited: a multiclass row at its true class with no margin violation) is skipped until the next exact pass (`--gap-check`) gives it a positive gap again. Skipped blocks cost no oracle call and, like cache hits, do not count towards `--max-passes`; the exact passes and the final certificate still cover every block. Gap sampling never draws such a block anyway (its weight is 0); uniform sampling has no pass to skip in. A resumed run keeps its checkpoint\'s.',
    paper: 'the shrinking of LIBLINEAR -s 4 (Keerthi et al., KDD 2008), on the block gaps of [2016] eq. 10',
  },
  {
    key: 'cache', flag: 'cache', type: 'boolean', default: 'off', section: SAMPLING, solvers: ['bcfw'],
    alsoAccepts: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
    help: 'gap-based caching of oracle answers (2016, Alg. 3)',
    doc: 'gap-based caching of oracle answers: the cached label with the largest block gap is used instead of calling the oracle when its gap >= max(F g_i, nu G / n) (local and global criteria; G the last exact gap); caches store labels, not feature vectors. `true` or a `CacheSettings` object.',
    paper: '[2016] Alg. 5, Sec. 3.3, Thm. 3',
  },
  { key: 'cache.maxSize', flag: 'cache-size', type: 'integer', value: 'N', min: 1, max: 1e6, default: '50', section: SAMPLING, solvers: ['bcfw'], help: 'labels kept per block', doc: 'labels kept per block (active atoms of pairwise/away steps are never evicted)', paper: '[2016] App. J (maxCacheSize 50)' },
  { key: 'cache.factor', flag: 'cache-f', type: 'number', value: 'F', min: 0, max: 1e6, default: '0.25', section: SAMPLING, solvers: ['bcfw'], help: "cache hit when its gap >= F x the block's estimated gap", doc: 'F of the local criterion', paper: '[2016] Alg. 5' },
  { key: 'cache.nu', flag: 'cache-nu', type: 'number', value: 'NU', min: 0, max: 1e6, default: '0.01', section: SAMPLING, solvers: ['bcfw'], help: 'or when its gap >= nu x the global gap estimate / n', doc: 'nu of the global criterion', paper: '[2016] Alg. 5, Thm. 3' },
  {
    key: 'cache.initialGap', type: 'number', min: 0, max: Infinity, default: '1', section: SAMPLING, solvers: ['bcfw'], alsoAccepts: (v) => v === Infinity,
    help: 'G used before the first exact pass (valid for losses <= 1; Infinity disables the global criterion)',
  },
  {
    key: 'cache.adaptive', type: 'boolean', default: 'true (a resumed run: its checkpoint\'s)', section: SAMPLING, solvers: ['bcfw'],
    help: 'serve cached corners only while they pay: while the recent cache hits gain at least as much dual per unit of work as the recent oracle steps',
    doc: 'the cache serves a block only while the recent cache hits gain at least as much dual per unit of work as the recent oracle steps (exponential averages over about 32 steps), the work counted in the model\'s operations (`StructuredModel.stepCost`: the node scores a step needs, Viterbi, psi, the block sweep): deterministic, unlike seconds, so a seed still gives one trace on any machine. While the cache is open a chain\'s step scores only the node states its ground truth and stored labels use, so a hit costs a fraction of an oracle call even where the oracle is cheap (OCR); a model without costs counts its oracle as costly (Alg. 5 unchanged). `false`: Alg. 5 alone',
    paper: 'the time rule of MP-BCFW (Shah, Kolmogorov & Lampert, CVPR 2015), in counted work',
  },
  {
    key: 'lambda', flag: 'lambda', type: 'number', value: 'X', ...LAMBDA_RANGE, default: '1/n; a task may set its own', section: STOPPING,
    help: 'regularisation lambda of (lambda/2)||w||^2 + (1/n) sum_i H_i(w)',
    doc: 'regularization weight lambda of the primal (beyond its range, the squares of w = -(1/lambda) mean psi under- or overflow); `demo` and `lsp:` data default to 0.01; `path` picks its own lambdas and refuses the flag; `train --lambda auto` chooses it on held-out data (see the data flags below)',
    paper: '[2016] eq. 1, [2013] eq. 3',
  },
  { key: 'gapThreshold', flag: 'gap-threshold', type: 'number', value: 'X', min: 0, max: 1e300, default: '0.1; seq and conll-columns 0.01', section: STOPPING, help: 'stop when the exact duality gap is <= X', doc: 'stop as soon as an exact duality gap is <= X (`demo`: 0.01; `lsp:` data: 0.001; `seq:` and `conll-columns:` data: 0.01)', paper: '[2016] eq. 5' },
  {
    key: 'gapCheck', flag: 'gap-check', type: 'integer', value: 'N', min: 1, max: 1e9, default: '10', section: STOPPING, solvers: ['bcfw', 'ssg'],
    help: 'passes between exact gap passes',
    doc: 'passes between exact gap passes; each exact pass is one full oracle pass (counted in effective passes) and refreshes every block-gap estimate. For `ssg` the primal is evaluated instead; `fw` and `cutting-plane` certify every iteration and refuse it.',
    paper: '[2016] Sec. 3.2, App. D',
  },
  {
    key: 'maxPasses', flag: 'max-passes', type: 'integer', value: 'N', min: 0, max: 1e9, default: '200; ssg 50; cutting-plane 1000', section: STOPPING,
    help: 'cap on passes',
    doc: 'cap on passes (n block steps each; an iteration of `fw` and `cutting-plane`; `lsp:` data default to 30). With `--cache` or shrinking it counts the block steps that called the oracle, over n: cache hits and skipped blocks are free, so such a run gets the oracle work of a plain one. A run that stops on the cap (or the time budget) above its threshold says so: `stopReason: "maxPasses"`, `thresholdReached: false`',
    paper: '[2016] Alg. 5',
  },
  { key: 'timeBudget', flag: 'time-budget', type: 'number', value: 'SECONDS', min: 0, minExclusive: true, max: 1e9, default: 'unlimited', section: STOPPING, help: 'wall-clock budget', doc: 'wall-clock budget; when it runs out the last gap is still certified by an exact pass', alsoAccepts: (v) => v === Infinity },
  { key: 'seed', flag: 'seed', type: 'integer', value: 'N', min: 0, max: SEED_MAX, default: '1', section: STOPPING, help: 'seed of the sampling PRNG', doc: 'seed of the sampling PRNG (xoshiro128**); same seed and settings, same trace on any machine' },
  { key: 'trainError', flag: 'train-error', type: 'boolean', default: 'off', section: STOPPING, help: 'also report the training error at the gap checks that evaluate (--eval-every)', doc: 'training error (one extra decoding pass) at the exact checks that evaluate (the `evaluateEvery` hook; the CLI\'s `--eval-every`); not counted in `seconds`' },
  {
    key: 'heuristicExit', type: 'number', min: 0, minExclusive: true, max: 1e6, default: '0.8 (off with averaging)', section: STOPPING, solvers: ['bcfw'], alsoAccepts: (v) => v === false,
    help: 'leave a block of passes early once the sum of gap estimates drops below this multiple of gapThreshold, then confirm with an exact pass; false disables',
    paper: "[2016] App. D (authors' quit_passes_heuristic_gap)",
  },
  { key: 'certify', type: 'boolean', default: 'true', section: STOPPING, solvers: ['bcfw'], help: 'confirm a heuristic exit and the final result with an exact pass; false stops on the estimate (gapIsExact false, the heuristic path)', paper: '[2016] App. K' },
  { key: 'monitorEvery', type: 'integer', min: 1, max: 1e9, default: 'off', section: STOPPING, solvers: ['bcfw', 'ssg'], help: 'log the exact gap (SSG: the primal) and the evaluate metrics every N passes for plots only (oracle calls and time not counted; events carry monitor: true)' },
  {
    key: 'blockStorage', type: 'choice', choices: ['dense', 'sparse', 'classes'], default: 'classes for native exact steps on multiclass rows; else dense up to 1 GiB, else sparse', section: STORAGE, solvers: ['bcfw'],
    help: 'per-block vectors w_i as dense n x d doubles (SIMD kernels), sparse (only the coordinates each block touched, in native memory; CoNLL), or classes (each row\'s dual weights over its K classes, n x K; w_i implied)',
  },
  { key: 'checkConsistency', type: 'boolean', default: 'off', section: STORAGE, solvers: ['bcfw'], help: 'verify the dual invariants (alpha >= 0, sum alpha = 1, w_i and l_i from alpha) after every step (slow; tests; runs the TypeScript steps)' },
  {
    key: 'native', type: 'boolean', default: 'true', section: STORAGE, solvers: ['bcfw'],
    help: 'run the block steps in native code where the model\'s oracle, psi and scores are native (dense chains, sparse chains, multiclass; an in-memory set; batch 1)',
    doc: 'run the block steps in native code where the model\'s oracle, psi and scores are native (dense chains, sparse chains, multiclass; an in-memory set; batch 1): the whole step (sampling, cache test, oracle, psi, line search, update, away and pairwise atoms, averaging, box constraints, gap estimates) in one C++ loop on the solver\'s own state, with the TypeScript steps\' arithmetic, so the same trace bit for bit, 2-8x faster. `false`: the TypeScript steps. The `onStep` hook, `checkConsistency` and mini-batches take the TypeScript steps; `result.native` says which ran ([README](../README.md#native-block-steps))',
  },
];

/** The row of a setting. */
export function settingSpec(key: string): SettingSpec<SolverName> {
  const o = SETTINGS.find((s) => s.key === key);
  if (!o) throw new Error(`no setting '${key}'`);
  return o;
}

/** "--sampling does not apply to the cutting plane", "--batch applies to the block-coordinate solvers (...)". */
function refusal(o: SettingSpec<SolverName>, value: unknown, solver: SolverName): string {
  const name = settingName(o, value);
  if (o.key === 'averaging' && solver === 'fw') return `${name} does not apply to batch FW (it returns its last iterate)`;
  if (solver === 'cutting-plane' && o.solvers!.length > 1) return `${name} does not apply to the cutting plane`;
  if (solver === 'fw' && o.solvers!.length > 1) return `${name} does not apply to batch FW`;
  const takers = o.solvers!.map((s) => SOLVER_WORDS[s]);
  return `${name} applies to ${takers.join(' and ')}${o.solvers!.length === 1 && o.solvers![0] === 'cutting-plane' ? ' only' : ''}`;
}

/** Hooks and starting points (TrainHooks): refused among settings with a pointer to where they go. */
const HOOK_KEYS = ['evaluate', 'onProgress', 'onPassProgress', 'onStep', 'signal', 'passSignal', 'warmStart', 'start', 'resume', 'onCheckpoint', 'checkpointEvery', 'threads'];

/**
 * Checks settings against {@link SETTINGS} and the rules between them; the CLI refuses its flags through this one
 * function. @throws OptionError (code ERR_GAPBCFW_BAD_OPTION) naming the setting by its CLI flag.
 */
export function validateSettings(settings: TrainSettings): void {
  const solver = settings.solver ?? 'bcfw';
  if (!SOLVERS.includes(solver)) throw new OptionError(`--solver must be one of ${SOLVERS.join(', ')}, got ${JSON.stringify(solver)}`);
  const hook = Object.keys(settings).find((k) => HOOK_KEYS.includes(k) && (settings as Record<string, unknown>)[k] !== undefined);
  if (hook === 'threads') throw new OptionError('threads is a process-wide setting, not a solver setting: call setThreads(n) (gapbcfw --threads N)');
  if (hook !== undefined) throw new OptionError(`${hook} is a hook, not a setting: pass it in the hooks, train(problem, settings, { ${hook} })`);
  checkSettings(SETTINGS, settings, solver, (o, v) => refusal(o, v, solver));
  const { sampling, step = 'fw', averaging } = settings;
  if (solver === 'ssg' && sampling === 'gap') throw new OptionError('--sampling gap needs a dual: use a block-coordinate solver');
  if (settings.lineSearch === false && step !== 'fw') throw new OptionError(`--no-line-search applies to fw steps only: ${step} steps need line search`);
  if (settings.gapDegree !== undefined && sampling !== 'gap') throw new OptionError('--gap-degree applies to --sampling gap');
  if (settings.shrinking === true && sampling !== 'perm') throw new OptionError('--shrinking skips blocks of a pass\'s permutation: it needs --sampling perm (gap sampling never draws a block whose estimate is 0)');
  if (settings.shrinking === true && settings.batch !== undefined && settings.batch > 1) throw new OptionError('--shrinking steps one block at a time: it cannot be combined with --batch > 1');
  if (averaging === true && sampling === 'gap') throw new OptionError('gap sampling needs the block gaps of the current iterate: it cannot be combined with --averaging');
  if (averaging === true && settings.blockStorage === 'sparse') throw new OptionError('--averaging costs O(d) per step: it needs dense block storage');
  if (averaging === true && settings.heuristicExit !== undefined && settings.heuristicExit !== false) {
    throw new OptionError('heuristicExit uses gap estimates of the current iterate: it cannot be combined with --averaging');
  }
  if (settings.overlap === true && settings.batch === 1) throw new OptionError('--overlap needs --batch > 1: there is no next mini-batch to decode while one block is applied');
  if (step === 'exact' && settings.cache !== undefined && settings.cache !== false) throw new OptionError('--cache does not apply to exact steps: they solve each block over its whole working set');
  if (settings.blockStorage === 'classes' && step !== 'exact') throw new OptionError("blockStorage 'classes' is for exact steps on multiclass rows in native code");
  if (settings.cache !== undefined && typeof settings.cache === 'object') {
    for (const field of Object.keys(settings.cache)) {
      if (!SETTINGS.some((o) => o.key === `cache.${field}`)) throw new OptionError(`unknown cache setting '${field}' (maxSize, factor, nu, initialGap, adaptive)`);
    }
  }
}

/** Settings as a checkpoint or model file stores them: every given setting (timeBudget Infinity as null). */
export function storedSettings(settings: TrainSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of SETTINGS) {
    const key = o.key.split('.')[0]!;
    const v = settingValue(settings, key);
    if (v !== undefined) out[key] = v === Infinity ? null : v;
  }
  return out;
}
