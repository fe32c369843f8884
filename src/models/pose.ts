/**
 * Pictorial-structures pose model (Felzenszwalb & Huttenlocher 2005; the LSP model of the 2016 paper,
 * App. / reference section 11.4, with appearance learned by the SSVM instead of CNN maps).
 *
 * Input: a grid of HOG cells (rows x cols x D, row-major, cell-major). Label: one grid cell per part.
 * Joint feature map phi(x, y), w = [filters | deformations]:
 *  - part p: the k x k x D HOG patch centred on its cell (zero outside the grid), so <w_p, phi_p> is the
 *    response of a linear filter at that cell;
 *  - tree edge (child c, parent q), one per non-root part: -[dx^2, dx, dy^2, dy] / [s^2, s, s^2, s] with
 *    dx = x_c - x_q - mx_c, dy = y_c - y_q - my_c (integer mean displacement m_c, normaliser s =
 *    `defScale` cells). The pairwise score is then -(ax dx^2 + bx dx + ay dy^2 + by dy) with ax = w0/s^2,
 *    bx = w1/s, ay = w2/s^2, by = w3/s: concave when w0, w2 >= 0, which {@link PoseModel.bounds} declares
 *    (App. H positivity), so max-sum messages are 2-D generalized distance transforms.
 * Loss: mean over parts of min(|z_p - z*_p|^2 / s*^2, 1) with s* = the label's `scale` (the ground-truth
 * |L shoulder - R hip| in cells); it is a sum over parts, so loss augmentation adds a score map per part.
 *
 * @module
 */
import { check, InputError } from '../core/errors.js';
import { availableParallelism } from 'node:os';
import type { FeatureRows, ScoringBackend } from '../../kernels/backend.js';
import type { BatchPass, Bounds, StructuredModel } from '../core/problem.js';
import { SparseAccumulator, dotSparse, type SparseVector } from '../core/vector.js';
import { native } from '../native.js';
import { distanceTransform2d, type GdtImpl } from '../gdt.js';
import { filterResponses } from '../hog.js';
import { JsBackend } from '../../kernels/js.js';
import { NativeBackend } from '../../kernels/native.js';

/** HOG (or any cell-feature) grid: feature d of cell (r, c) at `data[(r*cols + c)*dim + d]`. */
export interface PoseInput {
  rows: number;
  cols: number;
  dim: number;
  data: Float32Array | Float64Array;
}

/** One grid cell per part; `scale` (> 0, in cells) is required on ground-truth labels (it sets the loss). */
export interface PoseLabel {
  x: Int32Array;
  y: Int32Array;
  scale?: number;
}

/** Quadratic deformation of one tree edge: pairwise score -(ax dx^2 + bx dx + ay dy^2 + by dy), dx = x_c - x_q - mx. */
export interface EdgeCost {
  ax: number;
  bx: number;
  ay: number;
  by: number;
  mx: number;
  my: number;
}

/** Result of {@link treeMaxSum}. */
export interface TreeMaxSumResult {
  x: Int32Array;
  y: Int32Array;
  /** The maximal total score. */
  value: number;
}

/** Parts ordered so that every part comes after its parent (root first). Validates a single-rooted tree. */
export function topologicalOrder(parents: ArrayLike<number>): number[] {
  const P = parents.length;
  const children: number[][] = Array.from({ length: P }, () => []);
  let root = -1;
  for (let p = 0; p < P; p++) {
    const q = parents[p]!;
    if (q === -1) {
      check(root === -1, `the tree has two roots (${root} and ${p})`);
      root = p;
    } else {
      check(Number.isInteger(q) && q >= 0 && q < P && q !== p, `parent of part ${p} is ${q}: must be -1 (root) or another part`);
      children[q]!.push(p);
    }
  }
  check(root >= 0, 'the tree has no root (parent -1)');
  const order = [root];
  for (let k = 0; k < order.length; k++) order.push(...children[order[k]!]!);
  check(order.length === P, 'the parent array contains a cycle');
  return order;
}

/**
 * Exact max-sum on a tree of parts over an H x W grid:
 *   max_{z_1..z_P} sum_p score_p(z_p) - sum_{c != root} (ax dx^2 + bx dx + ay dy^2 + by dy),
 *   dx = x_c - x_{parent(c)} - mx_c, dy likewise,
 * by messages from the leaves to the root, each a 2-D generalized distance transform (native GDT) on a
 * grid padded by |m| with -Infinity so that shifted parents outside the grid stay exact; then argmax at
 * the root and backtracking. Requires ax, ay >= 0. O(P (H + |my|)(W + |mx|)).
 *
 * @param scores - one row-major H*W map per part (finite).
 * @param edges - per part (the root's entry is ignored).
 */
export function treeMaxSum(
  scores: readonly Float64Array[],
  H: number,
  W: number,
  parents: ArrayLike<number>,
  edges: readonly EdgeCost[],
  order: readonly number[] = topologicalOrder(parents),
  impl: GdtImpl = 'native',
): TreeMaxSumResult {
  const P = parents.length;
  check(scores.length === P && edges.length === P, `need ${P} score maps and edge costs`);
  const n = H * W;
  const total = scores.map((s) => {
    check(s.length === n, `a score map has length ${s.length}, expected ${n}`);
    return Float64Array.from(s);
  });
  // argmax maps: for child c, best child cell (flat index in H x W) for every parent cell.
  const back: (Int32Array | undefined)[] = new Array(P);
  for (let k = P - 1; k >= 1; k--) {
    const c = order[k]!;
    const q = parents[c]!;
    const e = edges[c]!;
    check(Number.isInteger(e.mx) && Number.isInteger(e.my), `edge of part ${c}: mean offsets must be integers`);
    const loX = Math.min(0, e.mx);
    const loY = Math.min(0, e.my);
    const We = W + Math.abs(e.mx);
    const He = H + Math.abs(e.my);
    const f = new Float64Array(He * We).fill(-Infinity);
    const src = total[c]!;
    for (let r = 0; r < H; r++) f.set(src.subarray(r * W, r * W + W), (r - loY) * We - loX);
    // D(u) = max_z f(z) - a (u - z)^2 - b (u - z), u = parent + m; cost a dz^2 + b' dz with dz = z - u = -(u - z).
    const { values, argmax } = distanceTransform2d(f, { height: He, width: We }, { ay: e.ay, by: -e.by, ax: e.ax, bx: -e.bx }, { impl, values: f });
    const arg = new Int32Array(n);
    const tq = total[q]!;
    for (let py = 0; py < H; py++) {
      const ey = py + e.my - loY;
      for (let px = 0; px < W; px++) {
        const ex = px + e.mx - loX;
        const j = ey * We + ex;
        tq[py * W + px] = tq[py * W + px]! + values[j]!;
        const a = argmax[j]!;
        const zy = Math.floor(a / We) + loY;
        const zx = (a % We) + loX;
        arg[py * W + px] = zy * W + zx;
      }
    }
    back[c] = arg;
  }
  const root = order[0]!;
  const tr = total[root]!;
  let best = 0;
  for (let j = 1; j < n; j++) if (tr[j]! > tr[best]!) best = j;
  const cell = new Int32Array(P);
  cell[root] = best;
  for (let k = 1; k < P; k++) {
    const c = order[k]!;
    cell[c] = back[c]![cell[parents[c]!]!]!;
  }
  const x = new Int32Array(P);
  const y = new Int32Array(P);
  for (let p = 0; p < P; p++) {
    x[p] = cell[p]! % W;
    y[p] = Math.floor(cell[p]! / W);
  }
  return { x, y, value: tr[best]! };
}

/** Score of a labelling under {@link treeMaxSum}'s objective (for tests and checks). */
export function treeScore(scores: readonly Float64Array[], W: number, parents: ArrayLike<number>, edges: readonly EdgeCost[], x: ArrayLike<number>, y: ArrayLike<number>): number {
  let s = 0;
  for (let p = 0; p < parents.length; p++) {
    s += scores[p]![y[p]! * W + x[p]!]!;
    const q = parents[p]!;
    if (q < 0) continue;
    const e = edges[p]!;
    const dx = x[p]! - x[q]! - e.mx;
    const dy = y[p]! - y[q]! - e.my;
    s -= e.ax * dx * dx + e.bx * dx + e.ay * dy * dy + e.by * dy;
  }
  return s;
}

/** Settings of a {@link PoseModel}. */
export interface PoseModelOptions {
  /** parent of every part (-1 for the root). */
  parents: readonly number[];
  /** Integer mean displacement child - parent per part, in cells (root entries ignored). */
  meanOffsets: readonly { dx: number; dy: number }[];
  /** Filter side in cells (odd). Default 5. */
  filterSize?: number;
  /** Features per cell. Default 31 (Felzenszwalb HOG). */
  featureDim?: number;
  /** Displacement normaliser s in cells. Default 4. */
  defScale?: number;
  /** GDT implementation. Default 'native'. */
  gdt?: GdtImpl;
  /** Filter responses: 'native' (C++, for Float32Array features) or 'ts'. Default 'native'. */
  scoring?: 'native' | 'ts';
  /** Native threads of batched exact passes. Default: os.availableParallelism(). */
  threads?: number;
}

/** Time spent by the per-image oracles of a model (accumulated; reset at will; batched passes not included). */
export interface PoseTiming {
  calls: number;
  scoringMs: number;
  messagesMs: number;
}

export class PoseModel implements StructuredModel<PoseInput, PoseLabel> {
  readonly dim: number;
  readonly numParts: number;
  readonly parents: Int32Array;
  readonly filterSize: number;
  readonly featureDim: number;
  readonly defScale: number;
  readonly meanOffsets: { dx: number; dy: number }[];
  /** Offset of part p's filter in w is p * filterLength; deformation blocks start at defOffset. */
  readonly filterLength: number;
  readonly defOffset: number;
  /** Deformation block index of each part (-1 for the root). */
  readonly edgeIndex: Int32Array;
  readonly bounds: Bounds;
  readonly timing: PoseTiming = { calls: 0, scoringMs: 0, messagesMs: 0 };
  private readonly order: number[];
  private readonly acc: SparseAccumulator;
  private readonly gdt: GdtImpl;
  private readonly scoring: 'native' | 'ts';
  private readonly threads: number;

  constructor(opts: PoseModelOptions) {
    const P = opts.parents.length;
    check(P >= 1, 'a pose model needs at least one part');
    this.order = topologicalOrder(opts.parents);
    this.numParts = P;
    this.parents = Int32Array.from(opts.parents);
    this.filterSize = opts.filterSize ?? 5;
    this.featureDim = opts.featureDim ?? 31;
    this.defScale = opts.defScale ?? 4;
    this.gdt = opts.gdt ?? 'native';
    this.scoring = opts.scoring ?? 'native';
    this.threads = opts.threads ?? availableParallelism();
    check(Number.isInteger(this.threads) && this.threads >= 1, `threads must be a positive integer, got ${this.threads}`);
    check(Number.isInteger(this.filterSize) && this.filterSize >= 1 && this.filterSize % 2 === 1, `filterSize must be an odd positive integer, got ${this.filterSize}`);
    check(Number.isInteger(this.featureDim) && this.featureDim >= 1, `featureDim must be a positive integer, got ${this.featureDim}`);
    check(this.defScale > 0 && Number.isFinite(this.defScale), `defScale must be positive, got ${this.defScale}`);
    check(opts.meanOffsets.length === P, `meanOffsets needs ${P} entries, got ${opts.meanOffsets.length}`);
    this.meanOffsets = opts.meanOffsets.map((m, p) => {
      const dx = this.parents[p]! < 0 ? 0 : m.dx;
      const dy = this.parents[p]! < 0 ? 0 : m.dy;
      check(Number.isInteger(dx) && Number.isInteger(dy), `meanOffsets[${p}] must be integers (cells), got ${m.dx}, ${m.dy}`);
      return { dx, dy };
    });
    this.filterLength = this.filterSize * this.filterSize * this.featureDim;
    this.defOffset = P * this.filterLength;
    this.edgeIndex = new Int32Array(P).fill(-1);
    let e = 0;
    for (let p = 0; p < P; p++) if (this.parents[p]! >= 0) this.edgeIndex[p] = e++;
    this.dim = this.defOffset + 4 * e;
    const lower = new Float64Array(this.dim).fill(-Infinity);
    for (let p = 0; p < P; p++) {
      const k = this.edgeIndex[p]!;
      if (k < 0) continue;
      lower[this.defOffset + 4 * k] = 0; // dx^2 coefficient
      lower[this.defOffset + 4 * k + 2] = 0; // dy^2 coefficient
    }
    this.bounds = { lower };
    this.acc = new SparseAccumulator(this.dim, 2 * this.defOffset + 16);
  }

  /** Indices of the quadratic deformation coefficients in w (the positivity-constrained coordinates). */
  quadraticIndices(): number[] {
    const out: number[] = [];
    for (let k = 0; k < this.numParts - 1; k++) out.push(this.defOffset + 4 * k, this.defOffset + 4 * k + 2);
    return out;
  }

  validate(x: PoseInput, y: PoseLabel, where: string): void {
    this.validateInput(x, where);
    this.validateLabel(x, y, where);
    check(y.scale !== undefined && y.scale > 0 && Number.isFinite(y.scale), () => `${where}: a ground-truth pose needs a positive finite scale, got ${y.scale}`);
  }

  private validateInput(x: PoseInput, where: string): void {
    check(x.dim === this.featureDim, () => `${where}: cells have ${x.dim} features, the model expects ${this.featureDim}`);
    check(Number.isInteger(x.rows) && Number.isInteger(x.cols) && x.rows >= 1 && x.cols >= 1, () => `${where}: grid must be at least 1 x 1, got ${x.rows} x ${x.cols}`);
    check(x.data.length === x.rows * x.cols * x.dim, () => `${where}: feature array has length ${x.data.length}, expected ${x.rows * x.cols * x.dim}`);
    for (let i = 0; i < x.data.length; i++) if (!Number.isFinite(x.data[i])) throw new InputError(`${where}: feature ${i} is ${x.data[i]}`);
  }

  private validateLabel(x: PoseInput, y: PoseLabel, where: string): void {
    check(y.x.length === this.numParts && y.y.length === this.numParts, () => `${where}: a pose needs ${this.numParts} parts`);
    for (let p = 0; p < this.numParts; p++) {
      check(y.x[p]! >= 0 && y.x[p]! < x.cols && y.y[p]! >= 0 && y.y[p]! < x.rows, () => `${where}: part ${p} at (${y.x[p]}, ${y.y[p]}) is outside the ${x.rows} x ${x.cols} grid`);
    }
  }

  private checkW(w: Float64Array): void {
    if (w.length !== this.dim) throw new InputError(`w must have length ${this.dim}, got ${w.length}`);
  }

  /**
   * Filter responses: out[p][r*cols + c] = <w_p, patch(x, r, c)> (the part score maps without loss).
   */
  partScores(w: Float64Array, x: PoseInput): Float64Array[] {
    this.checkW(w);
    const { rows, cols, dim, data } = x;
    const k = this.filterSize;
    if (this.scoring === 'native' && data instanceof Float32Array) return filterResponses({ rows, cols, dim, data }, w, this.numParts, k);
    const rad = (k - 1) / 2;
    const out: Float64Array[] = [];
    for (let p = 0; p < this.numParts; p++) {
      const map = new Float64Array(rows * cols);
      const base = p * this.filterLength;
      for (let i = 0; i < k; i++) {
        const di = i - rad;
        const r0 = Math.max(0, -di);
        const r1 = Math.min(rows, rows - di);
        for (let j = 0; j < k; j++) {
          const dj = j - rad;
          const c0 = Math.max(0, -dj);
          const c1 = Math.min(cols, cols - dj);
          const wb = base + (i * k + j) * dim;
          for (let r = r0; r < r1; r++) {
            for (let c = c0; c < c1; c++) {
              const fb = ((r + di) * cols + (c + dj)) * dim;
              let s = 0;
              for (let d = 0; d < dim; d++) s += w[wb + d]! * data[fb + d]!;
              map[r * cols + c] = map[r * cols + c]! + s;
            }
          }
        }
      }
      out.push(map);
    }
    return out;
  }

  /** Edge costs of w (quadratic coefficients clipped at 0: exact for w within the bounds). */
  edgeCosts(w: Float64Array): EdgeCost[] {
    const s = this.defScale;
    const out: EdgeCost[] = [];
    for (let p = 0; p < this.numParts; p++) {
      const k = this.edgeIndex[p]!;
      if (k < 0) {
        out.push({ ax: 0, bx: 0, ay: 0, by: 0, mx: 0, my: 0 });
        continue;
      }
      const o = this.defOffset + 4 * k;
      out.push({
        ax: Math.max(0, w[o]!) / (s * s),
        bx: w[o + 1]! / s,
        ay: Math.max(0, w[o + 2]!) / (s * s),
        by: w[o + 3]! / s,
        mx: this.meanOffsets[p]!.dx,
        my: this.meanOffsets[p]!.dy,
      });
    }
    return out;
  }

  /** Adds the loss map of part p, (1/P) min(|z - z*_p|^2 / s^2, 1), to `map`. */
  private addLossMap(map: Float64Array, cols: number, yTrue: PoseLabel, p: number): void {
    const s2 = yTrue.scale! * yTrue.scale!;
    const P = this.numParts;
    const tx = yTrue.x[p]!;
    const ty = yTrue.y[p]!;
    const rows = map.length / cols;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const d2 = (c - tx) * (c - tx) + (r - ty) * (r - ty);
        map[r * cols + c] = map[r * cols + c]! + Math.min(d2 / s2, 1) / P;
      }
    }
  }

  private solve(w: Float64Array, x: PoseInput, yTrue: PoseLabel | undefined): PoseLabel {
    const t0 = performance.now();
    const maps = this.partScores(w, x);
    if (yTrue !== undefined) for (let p = 0; p < this.numParts; p++) this.addLossMap(maps[p]!, x.cols, yTrue, p);
    const t1 = performance.now();
    const res = treeMaxSum(maps, x.rows, x.cols, this.parents, this.edgeCosts(w), this.order, this.gdt);
    const t2 = performance.now();
    this.timing.calls++;
    this.timing.scoringMs += t1 - t0;
    this.timing.messagesMs += t2 - t1;
    return { x: res.x, y: res.y };
  }

  lossAugmentedDecode(w: Float64Array, x: PoseInput, yTrue: PoseLabel): PoseLabel {
    return this.solve(w, x, yTrue);
  }

  decode(w: Float64Array, x: PoseInput): PoseLabel {
    return this.solve(w, x, undefined);
  }

  /**
   * The batched exact pass (DESIGN seam 4): every image's loss-augmented pose at once, decoded on native
   * threads (native/pose/tree.cc: the filter responses, loss maps and tree max-sum with GDT messages of
   * {@link treeMaxSum}). With a scoring backend, the filter responses are its product instead: each cell's
   * k x k x D patch is one feature row (im2col, zero outside the grid; prepared once when the rows fit in
   * 2^25 values, else per chunk and pass) and the P part filters are W. Every H_i = L - <w, psi> is then
   * computed from the decoded pose with the per-image path's own arithmetic (bit-identical H). Predictions
   * (plain decoding, no loss maps) reuse the same responses.
   */
  prepareBatch(xs: readonly PoseInput[], ys: readonly PoseLabel[], scoring?: ScoringBackend): BatchPass<PoseLabel> {
    const P = this.numParts;
    const n = xs.length;
    check(ys.length === n, `got ${n} images but ${ys.length} poses`);
    const rows = Int32Array.from(xs, (x) => x.rows);
    const cols = Int32Array.from(xs, (x) => x.cols);
    const truthX = new Int32Array(n * P);
    const truthY = new Int32Array(n * P);
    ys.forEach((y, i) => {
      truthX.set(y.x, i * P);
      truthY.set(y.y, i * P);
    });
    const truthScale = Float64Array.from(ys, (y) => y.scale!);
    const parents = this.parents;
    const order = Int32Array.from(this.order);
    const outX = new Int32Array(n * P);
    const outY = new Int32Array(n * P);
    const springs = new Float64Array(6 * P);
    const allFloat32 = xs.every((x) => x.data instanceof Float32Array);
    const responses = scoring === undefined && this.scoring === 'native' && allFloat32 ? null : this.batchResponses(xs, scoring);
    const features = responses ? null : xs.map((x) => x.data as Float32Array);
    return (w, hinge, labels, predictions) => {
      this.checkW(w);
      this.edgeCosts(w).forEach((e, p) => springs.set([e.ax, e.bx, e.ay, e.by, e.mx, e.my], 6 * p));
      const maps = responses ? responses(w) : null;
      if (predictions) {
        native.poseDecodeBatch(features, maps, rows, cols, this.featureDim, w, this.filterSize, parents, order, springs, null, null, null, outX, outY, this.threads);
        for (let i = 0; i < n; i++) predictions[i] = { x: outX.slice(i * P, (i + 1) * P), y: outY.slice(i * P, (i + 1) * P) };
      }
      native.poseDecodeBatch(features, maps, rows, cols, this.featureDim, w, this.filterSize, parents, order, springs, truthX, truthY, truthScale, outX, outY, this.threads);
      for (let i = 0; i < n; i++) {
        let z: PoseLabel = { x: outX.slice(i * P, (i + 1) * P), y: outY.slice(i * P, (i + 1) * P) };
        // L - <w, psi>: fullOraclePass's per-image arithmetic, so both paths give bit-identical H
        let h = this.loss(ys[i]!, z) - dotSparse(w, this.psi(xs[i]!, ys[i]!, z));
        if (h < 0) {
          // float32 scores proposed a pose below the ground truth, whose H is exactly 0
          h = 0;
          z = { x: Int32Array.from(ys[i]!.x), y: Int32Array.from(ys[i]!.y) };
        }
        hinge[i] = h;
        if (labels) labels[i] = z;
      }
    };
  }

  /**
   * Filter responses of all images from a scoring backend (by default NativeBackend, JsBackend for a model
   * with TypeScript scoring): returns, for a w, one P x cells map per image. The rows are im2col patches,
   * in chunks of at most 2^24 values.
   */
  private batchResponses(xs: readonly PoseInput[], scoring: ScoringBackend | undefined): (w: Float64Array) => Float64Array[] {
    const backend = scoring ?? (this.scoring === 'ts' ? new JsBackend() : new NativeBackend(this.threads));
    const P = this.numParts;
    const F = this.filterLength;
    const chunks: { start: number; end: number; cells: number; prepared: FeatureRows | null }[] = [];
    let total = 0;
    for (let start = 0; start < xs.length; ) {
      let end = start;
      let cells = 0;
      while (end < xs.length && (end === start || (cells + xs[end]!.rows * xs[end]!.cols) * F <= 2 ** 24)) cells += xs[end]!.rows * xs[end++]!.cols;
      chunks.push({ start, end, cells, prepared: null });
      total += cells;
      start = end;
    }
    const keep = total * F <= 2 ** 25;
    const patches = (c: (typeof chunks)[number]): FeatureRows => backend.prepare(this.im2col(xs.slice(c.start, c.end), c.cells), c.cells, F);
    if (keep) for (const c of chunks) c.prepared = patches(c);
    const maps = xs.map((x) => new Float64Array(P * x.rows * x.cols));
    let scores = new Float64Array(0);
    return (w) => {
      for (const c of chunks) {
        if (scores.length < c.cells * P) scores = new Float64Array(c.cells * P);
        backend.score(c.prepared ?? patches(c), w.subarray(0, P * F), P, scores.subarray(0, c.cells * P));
        // cell-major scores -> one part-major map per image
        let row = 0;
        for (let i = c.start; i < c.end; i++) {
          const cells = xs[i]!.rows * xs[i]!.cols;
          const map = maps[i]!;
          for (let q = 0; q < cells; q++, row++) for (let p = 0; p < P; p++) map[p * cells + q] = scores[row * P + p]!;
        }
      }
      return maps;
    };
  }

  /** Rows of k x k x D patches (the filter layout: (i*k + j)*D + d), one per cell, zero outside the grid. */
  private im2col(xs: readonly PoseInput[], cells: number): Float32Array | Float64Array {
    const k = this.filterSize;
    const rad = (k - 1) / 2;
    const D = this.featureDim;
    const F = this.filterLength;
    const out = xs.every((x) => x.data instanceof Float32Array) ? new Float32Array(cells * F) : new Float64Array(cells * F);
    let row = 0;
    for (const { rows, cols, data } of xs) {
      for (let r = 0; r < rows; r++) {
        for (let c = 0; c < cols; c++, row++) {
          for (let i = 0; i < k; i++) {
            const rr = r + i - rad;
            if (rr < 0 || rr >= rows) continue;
            for (let j = 0; j < k; j++) {
              const cc = c + j - rad;
              if (cc < 0 || cc >= cols) continue;
              out.set(data.subarray((rr * cols + cc) * D, (rr * cols + cc + 1) * D), row * F + (i * k + j) * D);
            }
          }
        }
      }
    }
    return out;
  }

  /** Adds sign * phi(x, y) into the accumulator. */
  private addPhi(x: PoseInput, y: PoseLabel, sign: number): void {
    const { rows, cols, dim, data } = x;
    const k = this.filterSize;
    const rad = (k - 1) / 2;
    for (let p = 0; p < this.numParts; p++) {
      const base = p * this.filterLength;
      for (let i = 0; i < k; i++) {
        const r = y.y[p]! + i - rad;
        if (r < 0 || r >= rows) continue;
        for (let j = 0; j < k; j++) {
          const c = y.x[p]! + j - rad;
          if (c < 0 || c >= cols) continue;
          const fb = (r * cols + c) * dim;
          const wb = base + (i * k + j) * dim;
          for (let d = 0; d < dim; d++) {
            const v = data[fb + d]!;
            if (v !== 0) this.acc.add(wb + d, sign * v);
          }
        }
      }
      const e = this.edgeIndex[p]!;
      if (e < 0) continue;
      const q = this.parents[p]!;
      const s = this.defScale;
      const dx = (y.x[p]! - y.x[q]! - this.meanOffsets[p]!.dx) / s;
      const dy = (y.y[p]! - y.y[q]! - this.meanOffsets[p]!.dy) / s;
      const o = this.defOffset + 4 * e;
      this.acc.add(o, -sign * dx * dx);
      this.acc.add(o + 1, -sign * dx);
      this.acc.add(o + 2, -sign * dy * dy);
      this.acc.add(o + 3, -sign * dy);
    }
  }

  /** phi(x, y) as a sparse vector (a view valid until the next call). */
  phi(x: PoseInput, y: PoseLabel): SparseVector {
    this.addPhi(x, y, 1);
    return this.acc.take();
  }

  psi(x: PoseInput, yTrue: PoseLabel, y: PoseLabel): SparseVector {
    this.addPhi(x, yTrue, 1);
    this.addPhi(x, y, -1);
    return this.acc.take();
  }

  loss(yTrue: PoseLabel, y: PoseLabel): number {
    const s2 = yTrue.scale! * yTrue.scale!;
    let l = 0;
    for (let p = 0; p < this.numParts; p++) {
      const dx = y.x[p]! - yTrue.x[p]!;
      const dy = y.y[p]! - yTrue.y[p]!;
      l += Math.min((dx * dx + dy * dy) / s2, 1);
    }
    return l / this.numParts;
  }

  /** <w, phi(x, y)> from precomputed part maps (no loss). */
  private scoreWith(maps: Float64Array[], edges: EdgeCost[], cols: number, y: PoseLabel): number {
    return treeScore(maps, cols, this.parents, edges, y.x, y.y);
  }

  labelScores(w: Float64Array, x: PoseInput, yTrue: PoseLabel, labels: readonly PoseLabel[], out: Float64Array): void {
    const maps = this.partScores(w, x);
    const edges = this.edgeCosts(w);
    const truth = this.scoreWith(maps, edges, x.cols, yTrue);
    for (let k = 0; k < labels.length; k++) out[k] = this.loss(yTrue, labels[k]!) + this.scoreWith(maps, edges, x.cols, labels[k]!) - truth;
  }

  labelKey(y: PoseLabel): string {
    let s = '';
    for (let p = 0; p < this.numParts; p++) s += `${y.x[p]},${y.y[p]};`;
    return s;
  }

  labelToJSON(y: PoseLabel): unknown {
    return { x: [...y.x], y: [...y.y], ...(y.scale !== undefined ? { scale: y.scale } : {}) };
  }

  labelFromJSON(value: unknown): PoseLabel {
    const v = value as { x?: unknown; y?: unknown; scale?: unknown };
    check(typeof v === 'object' && v !== null && Array.isArray(v.x) && Array.isArray(v.y), 'a pose label must be {x: number[], y: number[]}');
    check(v.x.length === this.numParts && v.y.length === this.numParts, `a pose label needs ${this.numParts} parts`);
    for (const t of [...v.x, ...v.y]) check(Number.isInteger(t) && (t as number) >= 0, `pose coordinates must be non-negative integers, got ${String(t)}`);
    return { x: Int32Array.from(v.x as number[]), y: Int32Array.from(v.y as number[]), ...(typeof v.scale === 'number' ? { scale: v.scale } : {}) };
  }
}
