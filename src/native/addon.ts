import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { GapbcfwError } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';

/**
 * Raw bindings of the C++ addon (native/binding/*.cc). Prefer the typed wrappers exported from the package;
 * the max-flow, HOG and SLIC sections declare their functions next to their wrappers (src/native/maxflow.ts, hog.ts,
 * slic.ts), which add them to this interface (declaration merging, so this file imports none of them).
 */
export interface NativeBinding {
  version(): string;
  /** Sets the process-wide cap on the threads of every native call (0: none); see src/native/threads.ts. */
  setThreads(n: number): void;
  /** The cap set by setThreads, 0 when none. */
  getThreads(): number;

  // --- generalized distance transforms (native/gdt; wrapped by src/native/gdt.ts) ---
  /**
   * 1-D max-sum distance transform, in place into `out`/`argmax` (zero-copy):
   * `out[p] = max_q f[q] - a (p-q)^2 - b (p-q)`, `argmax[p]` = the smallest maximising q, or -1 when
   * every `f[q]` is -Infinity. `f`, `out`, `argmax` have the same length; `out` may be `f`.
   * Throws TypeError/RangeError on bad arguments (NaN or +Infinity in `f`, `a < 0`, ...).
   */
  gdt1d(f: Float64Array, a: number, b: number, out: Float64Array, argmax: Int32Array): void;
  /**
   * 2-D separable transform on a row-major H x W grid; `argmax` holds flat indices `y'*W + x'`.
   * `out[y*W+x] = max f[y'*W+x'] - ay (y-y')^2 - by (y-y') - ax (x-x')^2 - bx (x-x')`.
   */
  gdt2d(
    f: Float64Array, H: number, W: number, ay: number, by: number, ax: number, bx: number,
    out: Float64Array, argmax: Int32Array,
  ): void;
  /**
   * {@link NativeBinding.gdt2d} on the libuv thread pool. Arguments are validated synchronously (throws).
   * `f`, `out` and `argmax` must not be written, transferred or resized until the Promise settles.
   */
  gdt2dAsync(
    f: Float64Array, H: number, W: number, ay: number, by: number, ax: number, bx: number,
    out: Float64Array, argmax: Int32Array,
  ): Promise<void>;

  // --- linear-chain max-oracle (native/scoring/chain; wrapped by src/models/chain.ts) ---
  /**
   * Viterbi for the chain model layout (K*D unary, K first, K last, K*K transitions prev + K*next).
   * With `yTrue`, decodes loss-augmented with the normalised Hamming loss. Writes the labelling to `out`
   * (length T) and returns its score. Ties go to the smallest state.
   */
  chainDecode(w: Float64Array, D: number, K: number, x: Float64Array, T: number, yTrue: Int32Array | null, out: Int32Array): number;
  /**
   * Max-sum over given node scores theta (T x K, row-major) and transitions trans[prev + K*next]; writes the
   * labelling to `out` and returns its score. Ties go to the smallest state. For chain models with their own
   * feature layout (e.g. sparse CoNLL features).
   */
  chainViterbi(theta: Float64Array, T: number, K: number, trans: Float64Array, out: Int32Array): number;
  /** Node scores out[t*K + k] = <w_k, x_t> plus the first/last-label biases at t = 0 and T-1 (no loss term). */
  chainNodeScores(w: Float64Array, D: number, K: number, x: Float64Array, T: number, out: Float64Array): void;
  /** psi = phi(x, yTrue) - phi(x, y) into (outIdx, outVal), which need 2*T*D + 2*T + 4 entries; returns nnz. */
  chainPsi(x: Float64Array, D: number, K: number, T: number, yTrue: Int32Array, y: Int32Array, outIdx: Int32Array, outVal: Float64Array): number;
  /**
   * The N best labellings over node scores theta (T x K) and transitions trans[prev + K*next] (numbers or -Infinity,
   * which forbids), best first, into outY (N x T) and outScore (N); returns how many have a finite score (<= N).
   * Ties: the smaller last state first, then the smaller second-to-last, ... (the first is chainViterbi's).
   */
  chainKbest(theta: Float64Array, T: number, K: number, trans: Float64Array, N: number, outY: Int32Array, outScore: Float64Array): number;
  /** Max-marginals out[t*K + k] = max over labellings with state k at t of their score (max-product forward-backward). */
  chainMaxMarginals(theta: Float64Array, T: number, K: number, trans: Float64Array, out: Float64Array): void;

  // --- BCFW block-step kernels (native/solver; used by src/solvers/bcfw.ts) ---
  /**
   * out = [<wi, w>, ||wi||^2, <wi, psi>] for the sparse psi (idx, val, nnz). `chunked`: the dense sums per chunk
   * of 2,048+ coordinates, on up to `threads` threads, the same result on any number; otherwise one sweep.
   */
  blockStats(wi: Float64Array, w: Float64Array, idx: Int32Array, val: Float64Array, nnz: number, out: Float64Array, chunked: boolean, threads: number): void;
  /**
   * wi <- (1-gamma) wi + gamma*psiScale*psi; w moves by the same difference; if wAvg is given,
   * wAvg <- (1-rho) wAvg + rho w. Chunks of 2,048 coordinates on up to `threads` threads (the same result).
   */
  blockUpdate(wi: Float64Array, w: Float64Array, wAvg: Float64Array | null, idx: Int32Array, val: Float64Array, nnz: number, gamma: number, psiScale: number, rho: number, threads: number): void;
  /**
   * out[q] = <row which[q] of `blocks` (rows of w's length), w> for q < count, each sum with four interleaved partial
   * sums in a fixed order (the same on any number of threads); the rows on up to `threads` threads. With
   * `background`, at a copy of w on the background queue's thread (native/common/background.h): returns a ticket
   * for waitBackground, and until then the caller must not write the rows it reads, nor which and out.
   */
  blockDots(blocks: Float64Array, which: Int32Array, count: number, w: Float64Array, out: Float64Array, threads: number): void;
  blockDots(blocks: Float64Array, which: Int32Array, count: number, w: Float64Array, out: Float64Array, threads: number, background: true): number;
  /** Waits for the background blockDots of this ticket. */
  waitBackground(ticket: number): void;

  // --- prepared objects: data handed over once (checked once, kept by reference: do not transfer or resize
  // its arrays while the object is in use), then any W / w and any subset of the examples per call ---
  /** Feature rows of the native scoring backend (kernels/native.ts). */
  ScoringRows: new (options: { X: Float64Array | Float32Array; rows: number; cols: number }) => NativeScoringRows;
  /** Dense linear chains (the OCR model's layout) of a batched pass (src/models/chain.ts). */
  DenseChainBatch: new (options: ChainBatchOptions & { features: Float64Array }) => NativeDenseChainBatch;
  /** Sparse linear chains (the CoNLL model's feature-major layout) of a batched pass (src/models/sparse-chain.ts). */
  SparseChainBatch: new (options: ChainBatchOptions & { rowOffsets: Int32Array; ids: Int32Array; values?: Float64Array | null }) => NativeChainBatch;
  /** Crammer-Singer multiclass rows of a batched pass (src/models/multiclass.ts). */
  MulticlassBatch: new (options: { rowOffsets: Int32Array; ids: Int32Array; values: Float64Array; truth: Int32Array; numFeatures: number; numLabels: number }) => NativeMulticlassBatch;
  /** Sparse block storage of block-coordinate FW (src/solvers/blocks.ts SparseBlocks; the native step loop takes it). */
  SparseBlocks: new (options: { n: number; d: number }) => NativeSparseBlocks;
  /**
   * The native step loop of BCFW (native/solver/bcfw_loop.h; src/solvers/native-steps.ts) over a built-in model's
   * prepared batch (DenseChainBatch, SparseChainBatch or MulticlassBatch) and the solver's own state arrays.
   */
  BcfwSteps: new (options: NativeBcfwStepsOptions) => NativeBcfwSteps;
  /** Superpixel graphs of a batched segmentation pass (src/models/segmentation.ts, segmentationBatch). */
  SegmentationBatch: new (options: { dUnary: number; dPairwise: number; images: SegmentationBatchImage[] }) => NativeSegmentationBatch;
  /**
   * Images of the pose model (native/pose/tree.h; src/models/pose.ts): the tree (parents, order: every part after
   * its parent, root first; types per part; joints: the leading parts that carry the loss), the pyramid's level
   * factors, and per image its levels and ground truth.
   */
  PoseBatch: new (options: NativePoseTree & { images: NativePoseImage[] }) => NativePoseBatch;
}

/** The tree and grids of a {@link NativeBinding.PoseBatch}. */
export interface NativePoseTree {
  parents: Int32Array;
  order: Int32Array;
  types: Int32Array;
  joints: number;
  levelScales: Float64Array;
  featureDim: number;
  filterSize: number;
}

/**
 * One image of a PoseBatch: per pyramid level its grid and either its float32 cell features (rows x cols x
 * featureDim; the decoder computes the filter responses) or a buffer of score maps (states x rows x cols) that
 * the caller fills before each decode; the truth (cells of its level, loss scale) for loss-augmented decodes.
 */
export interface NativePoseImage {
  levels: { rows: number; cols: number; features?: Float32Array; maps?: Float64Array }[];
  truth?: { x: Int32Array; y: Int32Array; scale: number; level: number };
}

/** A prepared pose batch. */
export interface NativePoseBatch {
  readonly size: number;
  /**
   * The (loss-augmented when `augmented`) argmax of the items over every level, part cell and type: w's state
   * filters (when features are given), springs (ax, bx, ay, by, mx, my per state; ax, ay >= 0, integer anchors)
   * and co-occurrence biases (states x max types). Writes x, y, types (n x parts) and levels (n).
   */
  decode(options: NativeCall & { w: Float64Array; springs: Float64Array; biases: Float64Array; augmented?: boolean; x: Int32Array; y: Int32Array; types: Int32Array; levels: Int32Array }): void;
  /**
   * decode's argmax of the items at copies of w's filters, the springs and the biases, on the background
   * queue's thread (images with features only); returns at once. finishBackground waits, writes the items'
   * x, y, types and levels where decode would, and returns the decode's milliseconds. No other call in between.
   */
  decodeInBackground(options: NativeCall & { w: Float64Array; springs: Float64Array; biases: Float64Array; augmented?: boolean }): void;
  finishBackground(options: { x: Int32Array; y: Int32Array; types: Int32Array; levels: Int32Array }): number;
}

/**
 * Which examples a prepared object's call works on: `items[0 .. count)` (indices into the batch; count
 * defaults to items.length), or every example when items is absent. Outputs use the batch's layout, so a
 * subset writes only its own entries. `threads`: native threads of the call (default 1).
 */
export interface NativeCall {
  items?: Int32Array;
  count?: number;
  threads?: number;
}

/** See NativeBinding.ScoringRows: score({ W (K x cols), K, out (rows x K) }) = <W_k, X_n>, + augWeight[n] on k != augLabels[n]. */
export interface NativeScoringRows {
  score(options: { W: Float64Array; K: number; out: Float64Array; augLabels?: Int32Array; augWeight?: Float64Array; threads?: number }): void;
}

/** n sequences packed end to end (offsets: n+1, strictly increasing from 0), their tokens' truth (0..K-1) and shape. */
export interface ChainBatchOptions {
  offsets: Int32Array;
  truth: Int32Array;
  numLabels: number;
  numFeatures: number;
  /** Class weights c_k (K, finite >= 0) of the weighted Hamming loss: augmentation c_{y_t}/T, loss sum c_{y_t} [miss] / T. */
  labelWeights?: Float64Array;
  /** allowed[prev + K*next] = 0 forbids a transition in every Viterbi of the batch. */
  allowed?: Uint8Array;
  /** allowedFirst[k] / allowedLast[k] = 0 forbid state k at the first / last position. */
  allowedFirst?: Uint8Array;
  allowedLast?: Uint8Array;
}

/** A prepared chain batch; theta is tokens x K, labels tokens, hinge n (see native/scoring/batch.h). */
export interface NativeChainBatch {
  readonly size: number;
  /** theta rows of the items' tokens: node scores + first/last biases (+ the 1/T loss augmentation when augmented). */
  scores(options: NativeCall & { w: Float64Array; theta: Float64Array; augmented?: boolean }): void;
  /** Viterbi of the items over theta and w's transitions into labels. */
  viterbi(options: NativeCall & { w: Float64Array; theta: Float64Array; labels: Int32Array }): void;
  /** hinge[i] = L(y_i, labels_i) - <w, psi_i(labels_i)> in float64 with the per-object path's arithmetic. */
  hinges(options: NativeCall & { w: Float64Array; labels: Int32Array; hinge: Float64Array }): void;
}

/**
 * A dense chain batch also adds the first/last biases to theta scored elsewhere (a scoring backend), and decodes
 * in the background: scores (loss-augmented), viterbi, hinges and chainPsi of the items at a copy of w on the
 * background queue's thread; returns at once. finishBackground waits, writes the items' labels and hinges, their
 * psi one after another (psiCounts[q] entries for item q; room for 2 T D + 2 T + 4 per item), and returns the
 * milliseconds [scoring, decoding, checking]. No other method may be called in between.
 */
export interface NativeDenseChainBatch extends NativeChainBatch {
  addBiases(options: NativeCall & { w: Float64Array; theta: Float64Array }): void;
  decodeInBackground(options: NativeCall & { w: Float64Array }): void;
  finishBackground(options: { labels: Int32Array; hinge: Float64Array; psiIndices: Int32Array; psiValues: Float64Array; psiCounts: Int32Array }): [number, number, number];
}

/** A prepared multiclass batch (w class-major, scores rows x K, labels and hinge rows). */
export interface NativeMulticlassBatch {
  readonly size: number;
  readonly numLabels: number;
  scores(options: NativeCall & { w: Float64Array; scores: Float64Array; augmented?: boolean }): void;
  /** labels[r] = argmax of row r's scores, ties to the smallest class. */
  argmax(options: NativeCall & { scores: Float64Array; labels: Int32Array }): void;
  hinges(options: NativeCall & { w: Float64Array; labels: Int32Array; hinge: Float64Array }): void;
  /** out[r] = <w_r, w> for the items' rows, with w_r = (e_{y_r} - alpha_r) (x) x_r * scale (the blocks of exact steps). */
  dualDots(options: NativeCall & { alpha: Float64Array; scale: number; w: Float64Array; out: Float64Array }): void;
  /** w = sum_r w_r with w_r as in dualDots. */
  dualSum(options: { alpha: Float64Array; scale: number; w: Float64Array }): void;
}

/** Sparse blocks w_i (native/solver/block_store.h), the arithmetic of the dense kernels' callers. */
export interface NativeSparseBlocks {
  /** out = [<w_i, w>, ||w_i||^2, <w_i, psi>]. */
  stats(i: number, w: Float64Array, idx: Int32Array, val: Float64Array, nnz: number, out: Float64Array): void;
  /** w_i <- (1 - gamma) w_i + gamma * scale * psi; w by the same difference. */
  update(i: number, w: Float64Array, idx: Int32Array, val: Float64Array, nnz: number, gamma: number, scale: number): void;
  /** w_i += scale * v, w += scale * v. */
  addSparse(i: number, w: Float64Array, idx: Int32Array, val: Float64Array, nnz: number, scale: number): void;
  dot(i: number, v: Float64Array): number;
  /** w_i <- values (dense), w by the difference. */
  replace(i: number, w: Float64Array, values: Float64Array): void;
  read(i: number, out: Float64Array): void;
  sumInto(w: Float64Array): void;
  scaleAll(s: number): void;
  readonly stored: number;
  save(): { blockPtr: Int32Array; blockIdx: Int32Array; blockVal: Float64Array };
  load(arrays: { blockPtr: Int32Array; blockIdx: Int32Array; blockVal: Float64Array }): void;
}

/** Settings and state arrays of a {@link NativeBinding.BcfwSteps} (see src/solvers/native-steps.ts). */
export interface NativeBcfwStepsOptions {
  model: unknown;
  lambda: number;
  step: 'fw' | 'pairwise' | 'away' | 'hybrid' | 'exact';
  sampling: 'uniform' | 'perm' | 'gap';
  gapDegree: number;
  lineSearch: boolean;
  averaging: boolean;
  /** Permutation sampling: skip the blocks whose gap estimate is 0 (TrainSettings.shrinking). */
  shrinking: boolean;
  cache: { factor: number; nu: number; maxSize: number } | null;
  /** The heuristic exit: a run of steps ends when the estimated gap is <= this (-Infinity: never). */
  exitBelow: number;
  threads: number;
  /** Dense block sums per chunk (mini-batch runs). */
  chunked: boolean;
  w: Float64Array;
  wAvg: Float64Array | null;
  lBlocks: Float64Array;
  scalars: Float64Array;
  counters: Float64Array;
  gapEst: Float64Array;
  estTotals: Float64Array;
  tree: Float64Array;
  firstVisit: Int32Array;
  order: Int32Array;
  rng: Uint32Array;
  bounds: { at: Int32Array; lower: Float64Array; upper: Float64Array; vAt: Float64Array } | null;
  /** Dense rows (n x d) or a SparseBlocks object; null with classAlpha (exact multiclass steps). */
  blocks: Float64Array | NativeSparseBlocks | null;
  classAlpha: Float64Array | null;
  /** The adaptive cache's costs per block (3 each: every step's work, an oracle call's, one stored label's score), or null. */
  stepCosts: Float64Array | null;
}

/** The per-block label stores of a native step loop, flattened (labels: each block's in turn). */
export interface NativeAtoms {
  sizes: Int32Array;
  labels: Int32Array;
  alpha: Float64Array;
  loss: Float64Array;
  exact: Uint8Array;
}

/** A native step loop. */
export interface NativeBcfwSteps {
  /** The block steps at pass positions from .. to-1, testing the heuristic exit before each. */
  run(from: number, to: number): { steps: number; converged: boolean };
  /** A fresh pass order into the order array, from the shared PRNG state (the draws of Rng.permutation). */
  permute(): void;
  /** The label stores (null when none are kept). */
  atoms(): NativeAtoms | null;
  setAtoms(atoms: NativeAtoms): void;
  /** Labels stored over all blocks (0 when none are kept). */
  readonly storedLabels: number;
}

/** One image of a SegmentationBatch: features, graph, truth and loss weights (read), cut capacities (written). */
export interface SegmentationBatchImage {
  unary: Float32Array;
  pairwise: Float32Array;
  edgeFrom: Int32Array;
  edgeTo: Int32Array;
  truth: Uint8Array;
  lossWeights: Float64Array;
  source: Float64Array;
  sink: Float64Array;
  potts: Float64Array;
}

/** A prepared segmentation batch. */
export interface NativeSegmentationBatch {
  readonly size: number;
  /** Writes the items' s-t cut capacities (loss-augmented when asked; Potts clipped at 0); returns the clipped count. */
  capacities(options: NativeCall & { w: Float64Array; augmented?: boolean }): number;
  /** dots[i] = <w, psi_i(labels[i])> with SegmentationModel.psi's arithmetic (labels: one entry per image). */
  psiDots(options: NativeCall & { w: Float64Array; labels: (Uint8Array | undefined)[]; dots: Float64Array }): void;
  /** Lets go of the images' arrays at once (later calls throw). */
  release(): void;
}

const require = createRequire(import.meta.url);

/** The addon could not be loaded: the message says which files were looked for, where, and why each failed. */
export class NativeLoadError extends GapbcfwError {
  constructor(message: string) {
    super(message, 'ERR_GAPBCFW_NATIVE_LOAD');
  }
}

/**
 * Loads the addon: `GAPBCFW_ADDON` when set (a test build such as the ASan/UBSan addon of scripts/sanitize.sh), else
 * build/Release (a fresh build of a clone), else prebuilds/<platform>-<arch> (the package's prebuilt binaries), as
 * node-gyp-build resolves them. @throws NativeLoadError with the load diagnostic.
 */
function loadAddon(): NativeBinding {
  const override = process.env.GAPBCFW_ADDON;
  try {
    return override ? (require(override) as NativeBinding) : (require('node-gyp-build') as (dir: string) => NativeBinding)(packageRoot);
  } catch (e) {
    throw new NativeLoadError(loadDiagnostic(override, e));
  }
}

/** What was looked for, where, what is there, why it failed, and how to get a working binary. */
function loadDiagnostic(override: string | undefined, e: unknown): string {
  const platform = `${process.platform}-${process.arch}`;
  const reason = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  const lines = [`gapbcfw could not load its native addon (Node-API 8) on ${platform}, Node ${process.versions.node}: ${reason}`];
  if (override) {
    lines.push(`  GAPBCFW_ADDON=${override} (${existsSync(override) ? 'the file exists but did not load' : 'no such file'}); unset it to load the package's own binary`);
  } else {
    const built = join(packageRoot, 'build', 'Release', 'gapbcfw.node');
    const prebuildDir = join(packageRoot, 'prebuilds');
    const shipped = existsSync(prebuildDir) ? readdirSync(prebuildDir) : [];
    lines.push(`  looked for: ${built} (${existsSync(built) ? 'present' : 'absent'})`);
    lines.push(`  and: ${join(prebuildDir, platform)}/ (${shipped.includes(platform) ? `present: ${readdirSync(join(prebuildDir, platform)).join(', ')}` : 'absent'}; prebuilds shipped: ${shipped.join(', ') || 'none'})`);
    lines.push(
      shipped.includes(platform)
        ? '  the prebuild for this platform failed to load: check the C++ runtime (libstdc++) and glibc versions it needs'
        : '  no prebuild for this platform: build one from a clone with `npm ci` (a C++17 compiler and CMake; the headers come from npm, offline)',
    );
  }
  return lines.join('\n');
}

/** The loaded addon (see {@link loadAddon}). */
export const native: NativeBinding = loadAddon();
