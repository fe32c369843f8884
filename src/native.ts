import { createRequire } from 'node:module';
import { packageRoot } from './package-root.js';
import type { HogBinding } from './hog.js';
import type { MaxflowBinding } from './maxflow.js';
import type { SlicBinding } from './slic.js';

/**
 * Raw bindings of the C++ addon (see native/addon.cc). Prefer the typed wrappers exported from the package;
 * the max-flow, HOG and SLIC sections declare their functions next to their wrappers.
 */
export interface NativeBinding extends MaxflowBinding, HogBinding, SlicBinding {
  version(): string;

  // --- generalized distance transforms (native/gdt; wrapped by src/gdt.ts) ---
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
  /** Viterbi of n sequences over precomputed node scores theta (tokens x K; offsets n+1) on native threads. */
  chainViterbiBatch(theta: Float64Array, offsets: Int32Array, trans: Float64Array, K: number, outY: Int32Array, threads: number): void;
  /** hinge[s] = L(y_s, yHat_s) + <w, phi(yHat_s)> - <w, phi(y_s)> in float64, for given labellings yHat. */
  chainHingeOfLabels(w: Float64Array, D: number, K: number, xAll: Float64Array, offsets: Int32Array, yAll: Int32Array, yHat: Int32Array, hinge: Float64Array, threads: number): void;
  /** out[n*K+k] = <W_k, X_n> (+ augWeight[n] on k != augLabels[n]) for N rows of D features; native threads. */
  scoreRows(X: Float64Array | Float32Array, N: number, D: number, W: Float64Array, K: number, augLabels: Int32Array | null, augWeight: Float64Array | null, out: Float64Array, threads: number): void;
  /** out[t*K+k] = sum_j values[j] * W[ids[j]*K + k] over the nonzeros of sparse row t (values null: 1); native threads. */
  scoreSparseRows(rowOffsets: Int32Array, ids: Int32Array, values: Float64Array | null, W: Float64Array, F: number, K: number, out: Float64Array, threads: number): void;
  /**
   * Pose (native/pose/tree.h): the argmax pose of n images on native threads. Part p's map is either given
   * (maps[i]: P x cells, e.g. from a scoring backend) or the response of w's p-th filterSize^2 x dim filter
   * on the image's float32 cell features (exactly one of features/maps is non-null); plus the loss map of the
   * truth (truthX/truthY n x P, truthScale n) unless those are null; then exact tree max-sum with GDT
   * messages (springs: ax, bx, ay, by, mx, my per part). Writes the parts' cells to outX/outY (n x P).
   */
  poseDecodeBatch(features: Float32Array[] | null, maps: Float64Array[] | null, rows: Int32Array, cols: Int32Array, dim: number, w: Float64Array, filterSize: number, parents: Int32Array, order: Int32Array, springs: Float64Array, truthX: Int32Array | null, truthY: Int32Array | null, truthScale: Float64Array | null, outX: Int32Array, outY: Int32Array, threads: number): void;
  /**
   * Crammer-Singer hinges of given labels yHat for sparse rows (ids distinct per row; w class-major, K x F):
   * 0 where yHat = y, else 1 - <w, psi> summed in the per-object path's order. Native threads.
   */
  multiclassHinges(rowOffsets: Int32Array, ids: Int32Array, values: Float64Array, w: Float64Array, F: number, K: number, y: Int32Array, yHat: Int32Array, hinge: Float64Array, threads: number): void;
  /**
   * dots[i] = <w, psi_i> of n superpixel images (unary N x dU and pairwise E x dP float32 features, edge ends,
   * ground truth and labelling 0/1), accumulated as SegmentationModel.psi does; native threads.
   */
  segmentationPsiDots(unary: Float32Array[], pairwise: Float32Array[], edgeFrom: Int32Array[], edgeTo: Int32Array[], yTrue: Uint8Array[], y: Uint8Array[], dU: number, dP: number, w: Float64Array, dots: Float64Array, threads: number): void;
  /** Node scores out[t*K + k] = <w_k, x_t> plus the first/last-label biases at t = 0 and T-1 (no loss term). */
  chainNodeScores(w: Float64Array, D: number, K: number, x: Float64Array, T: number, out: Float64Array): void;
  /** psi = phi(x, yTrue) - phi(x, y) into (outIdx, outVal), which need 2*T*D + 2*T + 4 entries; returns nnz. */
  chainPsi(x: Float64Array, D: number, K: number, T: number, yTrue: Int32Array, y: Int32Array, outIdx: Int32Array, outVal: Float64Array): number;

  // --- BCFW block-step kernels (native/solver; used by src/solvers/bcfw.ts) ---
  /** out = [<wi, w>, ||wi||^2, <wi, psi>] for the sparse psi (idx, val, nnz). */
  blockStats(wi: Float64Array, w: Float64Array, idx: Int32Array, val: Float64Array, nnz: number, out: Float64Array): void;
  /**
   * wi <- (1-gamma) wi + gamma*psiScale*psi; w moves by the same difference; if wAvg is given,
   * wAvg <- (1-rho) wAvg + rho w.
   */
  blockUpdate(wi: Float64Array, w: Float64Array, wAvg: Float64Array | null, idx: Int32Array, val: Float64Array, nnz: number, gamma: number, psiScale: number, rho: number): void;
}

const require = createRequire(import.meta.url);

/**
 * The loaded addon: build/Release first (fresh dev build), then prebuilds/<platform>-<arch>. When the
 * environment variable `GAPBCFW_ADDON` is set (non-empty), that `.node` file is loaded instead: for test
 * builds such as the ASan/UBSan addon of scripts/sanitize.sh.
 */
export const native: NativeBinding = process.env.GAPBCFW_ADDON ? require(process.env.GAPBCFW_ADDON) : require('node-gyp-build')(packageRoot);
