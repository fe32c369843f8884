/**
 * Pictorial-structures pose model with mixtures of parts (Felzenszwalb & Huttenlocher 2005; Yang & Ramanan,
 * "Articulated human detection with flexible mixtures of parts", TPAMI 2013; the LSP model of the 2016 paper,
 * App. I.4 after Chen & Yuille 2014, with appearance learned by the SSVM instead of CNN maps).
 *
 * Input: a grid of HOG cells (rows x cols x D, row-major, cell-major), or a small pyramid of them (one grid
 * per level of `scales`). Label: a pyramid level, and per part a cell of that level's grid and a type
 * (1..K_p types per part; one type and one level give the plain pictorial-structures model).
 * Joint feature map phi(x, y), w = [filters | deformations | co-occurrence biases]:
 *  - state (p, t) (part p with type t): the k x k x D HOG patch centred on the part's cell (zero outside
 *    the grid), so <w_{p,t}, phi_p> is the response of a linear filter at that cell;
 *  - arc (child c, parent q), one deformation per child type t_c (Yang & Ramanan's choice): -[dx^2, dx,
 *    dy^2, dy] / [s^2, s, s^2, s] with dx = x_c - x_q - mx_{c,t_c}, dy likewise (the integer anchor m of
 *    the type, normaliser s = `defScale` cells). The pairwise score is then -(ax dx^2 + bx dx + ay dy^2 +
 *    by dy) with ax = w0/s^2, bx = w1/s, ay = w2/s^2, by = w3/s: concave when w0, w2 >= 0, which
 *    {@link PoseModel.bounds} declares (App. H positivity), so max-sum messages are 2-D generalized
 *    distance transforms;
 *  - arc (c, q) with more than one type pair: an indicator of the pair (t_c, t_q), whose weight is the
 *    co-occurrence bias b(c, t_c, t_q).
 * Loss: mean over the first `joints` parts of min(|z_p - z*_p|^2 / s*^2, 1) with s* = the truth's `scale`
 * (the ground-truth |L shoulder - R hip| in cells), the truth mapped onto the label's level; types and the
 * parts after the joints (midpoints) do not enter it. It is a sum over parts, so loss augmentation adds a
 * score map per part and level.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import { check, InputError } from '../core/errors.js';
import { availableParallelism } from 'node:os';
import type { FeatureRows, ScoringBackend } from '../core/scoring.js';
import type { Bounds, StructuredModel } from '../core/problem.js';
import type { BatchDecoder, Items, OracleCounters } from '../core/batch.js';
import { dotSparse, type SparseVector } from '../core/vector.js';
import { native, type NativePoseBatch, type NativePoseImage } from '../native/addon.js';
import { distanceTransform2d, type GdtImpl } from '../native/gdt.js';
import { filterResponses } from '../native/hog.js';
import { JsBackend } from '../../kernels/js.js';

/** HOG (or any cell-feature) grid: feature d of cell (r, c) at `data[(r*cols + c)*dim + d]`. */
export interface PoseGrid {
  rows: number;
  cols: number;
  dim: number;
  data: Float32Array | Float64Array;
}

/**
 * The input of the pose model: its grid is pyramid level 0; `levels` holds the grids of the further levels
 * (`scales[1..]` of the model), absent for a one-level model.
 */
export interface PoseInput extends PoseGrid {
  levels?: readonly PoseGrid[];
}

/**
 * A pose: per part a cell of the grid of pyramid level `level` (0 when absent) and a type (`types`, all 0 when
 * absent). `scale` (> 0, in cells of its level) is required on ground-truth labels (it sets the loss).
 */
export interface PoseLabel {
  x: Int32Array;
  y: Int32Array;
  scale?: number;
  types?: Int32Array;
  level?: number;
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


/** Integer displacement child - parent, in cells. */
export interface CellOffset {
  dx: number;
  dy: number;
}

/** Settings of a {@link PoseModel}. */
export interface PoseModelOptions {
  /** parent of every part (-1 for the root). */
  parents: readonly number[];
  /** One type per part: the integer mean displacement child - parent of every part, in cells (root entries ignored). Give this or `typeOffsets`. */
  meanOffsets?: readonly CellOffset[];
  /**
   * Mixtures of parts: per part the anchors (integer mean displacements child - parent, in cells) of its types;
   * their number is the part's number of types (the root's entries only count its types). Replaces `meanOffsets`.
   */
  typeOffsets?: readonly (readonly CellOffset[])[];
  /** The leading parts that carry the loss (joints; later parts, such as midpoints, carry appearance only). Default: every part. */
  joints?: number;
  /** Pyramid level factors (relative image sizes): the input has one grid per level. Default [1]. */
  scales?: readonly number[];
  /** Filter side in cells (odd). Default 5. */
  filterSize?: number;
  /** Features per cell. Default 31 (Felzenszwalb HOG). */
  featureDim?: number;
  /** Displacement normaliser s in cells. Default 4. */
  defScale?: number;
  /** Filter responses: 'native' (C++, for Float32Array features) or 'ts'. Default 'native'. */
  scoring?: 'native' | 'ts';
  /** Native threads of batched exact passes. Default: os.availableParallelism(). */
  threads?: number;
}

/** The cell-centre offset of the HOG grids (native/hog/hog.h; kCellCentre in native/pose/tree.h): cell c of a level of factor f lies at (c + 1.5) / f cells of factor 1. */
const CELL_CENTRE = 1.5;

export class PoseModel implements StructuredModel<PoseInput, PoseLabel> {
  readonly dim: number;
  readonly numParts: number;
  readonly parents: Int32Array;
  /** Types of every part, and the first state of each: states (p, t) are numbered part by part, first[p] + t. */
  readonly types: Int32Array;
  readonly firstState: Int32Array;
  readonly numStates: number;
  /** The leading parts that carry the loss. */
  readonly joints: number;
  /** Pyramid level factors. */
  readonly scales: readonly number[];
  readonly filterSize: number;
  readonly featureDim: number;
  readonly defScale: number;
  /** Anchor of every state (zero for the root's). */
  readonly anchors: readonly CellOffset[];
  /** Offset of state s's filter in w is s * filterLength; deformation blocks start at defOffset, co-occurrence biases at biasOffset. */
  readonly filterLength: number;
  readonly defOffset: number;
  readonly biasOffset: number;
  /** Deformation block of every state (-1 for the root's). */
  readonly defIndex: Int32Array;
  /** Where the co-occurrence biases b(c, t_c, t_q) of part c start in w (at + t_c K_q + t_q); -1 for the root and single-pair arcs. */
  readonly biasIndex: Int32Array;
  readonly bounds: Bounds;
  /** Filter responses and tree max-sum per oracle call (5-30 ms): mini-batches decoded on threads pay off. */
  readonly miniBatches = true;
  private readonly maxTypes: number;
  private readonly order: number[];
  /** featureDiff's output buffers (phi(yTrue) and phi(y) have at most P (F + 5) entries each). */
  private readonly diffIdx: Int32Array;
  private readonly diffVal: Float64Array;
  private diffNnz = 0;
  private readonly scoring: 'native' | 'ts';
  private readonly threads: number;
  private readonly tree: { parents: Int32Array; order: Int32Array; types: Int32Array; joints: number; levelScales: Float64Array; featureDim: number; filterSize: number };

  constructor(opts: PoseModelOptions) {
    const P = opts.parents.length;
    check(P >= 1, 'a pose model needs at least one part');
    this.order = topologicalOrder(opts.parents);
    this.numParts = P;
    this.parents = Int32Array.from(opts.parents);
    this.filterSize = opts.filterSize ?? 5;
    this.featureDim = opts.featureDim ?? 31;
    this.defScale = opts.defScale ?? 4;
    this.scoring = opts.scoring ?? 'native';
    this.threads = opts.threads ?? availableParallelism();
    this.joints = opts.joints ?? P;
    this.scales = [...(opts.scales ?? [1])];
    check(Number.isInteger(this.threads) && this.threads >= 1, `threads must be a positive integer, got ${this.threads}`);
    check(Number.isInteger(this.filterSize) && this.filterSize >= 1 && this.filterSize % 2 === 1, `filterSize must be an odd positive integer, got ${this.filterSize}`);
    check(Number.isInteger(this.featureDim) && this.featureDim >= 1, `featureDim must be a positive integer, got ${this.featureDim}`);
    check(this.defScale > 0 && Number.isFinite(this.defScale), `defScale must be positive, got ${this.defScale}`);
    check(Number.isInteger(this.joints) && this.joints >= 1 && this.joints <= P, `joints must be an integer in 1..${P}, got ${this.joints}`);
    check(this.scales.length >= 1 && this.scales.length <= 64, `scales needs 1 to 64 pyramid levels, got ${this.scales.length}`);
    for (const f of this.scales) check(f > 0 && Number.isFinite(f), `pyramid scales must be positive and finite, got ${f}`);
    check((opts.meanOffsets === undefined) !== (opts.typeOffsets === undefined), 'give exactly one of meanOffsets (one type per part) and typeOffsets');
    const perPart: readonly (readonly CellOffset[])[] = opts.typeOffsets ?? opts.meanOffsets!.map((m) => [m]);
    check(perPart.length === P, `${opts.typeOffsets ? 'typeOffsets' : 'meanOffsets'} needs ${P} entries, got ${perPart.length}`);
    this.types = Int32Array.from(perPart, (a, p) => {
      check(Array.isArray(a) && a.length >= 1 && a.length <= 256, `part ${p} needs 1 to 256 types, got ${Array.isArray(a) ? a.length : String(a)}`);
      return a.length;
    });
    this.firstState = new Int32Array(P);
    const anchors: CellOffset[] = [];
    perPart.forEach((a, p) => {
      this.firstState[p] = anchors.length;
      a.forEach((m, t) => {
        const root = this.parents[p]! < 0;
        check(root || (Number.isInteger(m?.dx) && Number.isInteger(m?.dy)), () => `the anchor of part ${p}, type ${t} must be integers (cells), got ${m?.dx}, ${m?.dy}`);
        anchors.push(root ? { dx: 0, dy: 0 } : { dx: m.dx, dy: m.dy });
      });
    });
    this.anchors = anchors;
    this.numStates = anchors.length;
    this.maxTypes = Math.max(...this.types);
    this.filterLength = this.filterSize * this.filterSize * this.featureDim;
    this.defOffset = this.numStates * this.filterLength;
    this.defIndex = new Int32Array(this.numStates).fill(-1);
    let blocks = 0;
    for (let s = 0, p = 0; p < P; p++) for (let t = 0; t < this.types[p]!; t++, s++) if (this.parents[p]! >= 0) this.defIndex[s] = blocks++;
    this.biasOffset = this.defOffset + 4 * blocks;
    this.biasIndex = new Int32Array(P).fill(-1);
    let biases = 0;
    for (let p = 0; p < P; p++) {
      const q = this.parents[p]!;
      if (q < 0 || this.types[p]! * this.types[q]! === 1) continue; // one type pair: a constant, no weight
      this.biasIndex[p] = this.biasOffset + biases;
      biases += this.types[p]! * this.types[q]!;
    }
    this.dim = this.biasOffset + biases;
    const lower = new Float64Array(this.dim).fill(-Infinity);
    for (const j of this.quadraticIndices()) lower[j] = 0;
    this.bounds = { lower };
    this.diffIdx = new Int32Array(2 * P * (this.filterLength + 5));
    this.diffVal = new Float64Array(2 * P * (this.filterLength + 5));
    this.tree = { parents: this.parents, order: Int32Array.from(this.order), types: this.types, joints: this.joints, levelScales: Float64Array.from(this.scales), featureDim: this.featureDim, filterSize: this.filterSize };
  }

  /** Indices of the quadratic deformation coefficients in w (the positivity-constrained coordinates). */
  quadraticIndices(): number[] {
    const out: number[] = [];
    for (let k = 0; k < (this.biasOffset - this.defOffset) / 4; k++) out.push(this.defOffset + 4 * k, this.defOffset + 4 * k + 2);
    return out;
  }

  /** The state (p, t) of part p in a label. */
  private state(y: PoseLabel, p: number): number {
    return this.firstState[p]! + (y.types?.[p] ?? 0);
  }

  /** The grid of pyramid level l of an input. */
  private grid(x: PoseInput, l: number): PoseGrid {
    return l === 0 ? x : x.levels![l - 1]!;
  }

  validate(x: PoseInput, y: PoseLabel, where: string): void {
    this.validateInput(x, where);
    this.validateLabel(x, y, where);
    check(y.scale !== undefined && y.scale > 0 && Number.isFinite(y.scale), () => `${where}: a ground-truth pose needs a positive finite scale, got ${y.scale}`);
    check(y.types !== undefined || this.maxTypes === 1, () => `${where}: a ground-truth pose of a model with types needs its types`);
  }

  private validateInput(x: PoseInput, where: string): void {
    const extra = x.levels?.length ?? 0;
    check(extra === this.scales.length - 1, () => `${where}: the input has ${extra + 1} pyramid level(s), the model expects ${this.scales.length}`);
    for (let l = 0; l < this.scales.length; l++) {
      const g = this.grid(x, l);
      const at = l === 0 ? where : `${where}, level ${l}`;
      check(g.dim === this.featureDim, () => `${at}: cells have ${g.dim} features, the model expects ${this.featureDim}`);
      check(Number.isInteger(g.rows) && Number.isInteger(g.cols) && g.rows >= 1 && g.cols >= 1, () => `${at}: grid must be at least 1 x 1, got ${g.rows} x ${g.cols}`);
      check(g.data.length === g.rows * g.cols * g.dim, () => `${at}: feature array has length ${g.data.length}, expected ${g.rows * g.cols * g.dim}`);
      for (let i = 0; i < g.data.length; i++) if (!Number.isFinite(g.data[i])) throw new InputError(`${at}: feature ${i} is ${g.data[i]}`);
    }
  }

  private validateLabel(x: PoseInput, y: PoseLabel, where: string): void {
    check(y.x.length === this.numParts && y.y.length === this.numParts, () => `${where}: a pose needs ${this.numParts} parts`);
    const level = y.level ?? 0;
    check(Number.isInteger(level) && level >= 0 && level < this.scales.length, () => `${where}: level ${level} is outside the model's ${this.scales.length} pyramid level(s)`);
    const g = this.grid(x, level);
    for (let p = 0; p < this.numParts; p++) {
      check(y.x[p]! >= 0 && y.x[p]! < g.cols && y.y[p]! >= 0 && y.y[p]! < g.rows, () => `${where}: part ${p} at (${y.x[p]}, ${y.y[p]}) is outside the ${g.rows} x ${g.cols} grid`);
      const t = y.types?.[p] ?? 0;
      check(Number.isInteger(t) && t >= 0 && t < this.types[p]!, () => `${where}: part ${p} has type ${t}, outside 0..${this.types[p]! - 1}`);
    }
  }

  private checkW(w: Float64Array): void {
    if (w.length !== this.dim) throw new InputError(`w must have length ${this.dim}, got ${w.length}`);
  }

  /**
   * Filter responses of pyramid level `level` (default 0): out[s][r*cols + c] = <w_s, patch(x, r, c)>, one map per
   * state (part and type; the part score maps without loss).
   */
  partScores(w: Float64Array, x: PoseInput, level = 0): Float64Array[] {
    this.checkW(w);
    const { rows, cols, dim, data } = this.grid(x, level);
    const k = this.filterSize;
    const S = this.numStates;
    if (this.scoring === 'native' && data instanceof Float32Array) return filterResponses({ rows, cols, dim, data }, w, S, k);
    const rad = (k - 1) / 2;
    const out: Float64Array[] = [];
    for (let s = 0; s < S; s++) {
      const map = new Float64Array(rows * cols);
      const base = s * this.filterLength;
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
              let v = 0;
              for (let d = 0; d < dim; d++) v += w[wb + d]! * data[fb + d]!;
              map[r * cols + c] = map[r * cols + c]! + v;
            }
          }
        }
      }
      out.push(map);
    }
    return out;
  }

  /** Edge costs of w, one per state (quadratic coefficients clipped at 0: exact for w within the bounds; zero for root states). */
  edgeCosts(w: Float64Array): EdgeCost[] {
    const s = this.defScale;
    return this.anchors.map((m, st) => {
      const k = this.defIndex[st]!;
      if (k < 0) return { ax: 0, bx: 0, ay: 0, by: 0, mx: 0, my: 0 };
      const o = this.defOffset + 4 * k;
      return { ax: Math.max(0, w[o]!) / (s * s), bx: w[o + 1]! / s, ay: Math.max(0, w[o + 2]!) / (s * s), by: w[o + 3]! / s, mx: m.dx, my: m.dy };
    });
  }

  /** The native decoder's springs (6 per state) and biases (states x max types) of w. */
  private springsAndBiases(w: Float64Array): { springs: Float64Array; biases: Float64Array } {
    const springs = new Float64Array(6 * this.numStates);
    this.edgeCosts(w).forEach((e, st) => springs.set([e.ax, e.bx, e.ay, e.by, e.mx, e.my], 6 * st));
    const biases = new Float64Array(this.numStates * this.maxTypes);
    for (let c = 0; c < this.numParts; c++) {
      const at = this.biasIndex[c]!;
      if (at < 0) continue;
      const Kq = this.types[this.parents[c]!]!;
      for (let tc = 0; tc < this.types[c]!; tc++) for (let tq = 0; tq < Kq; tq++) biases[(this.firstState[c]! + tc) * this.maxTypes + tq] = w[at + tc * Kq + tq]!;
    }
    return { springs, biases };
  }

  /** Whether the native decoder needs score maps from TypeScript (TypeScript scoring, float64 features). */
  private needsMaps(x: PoseInput): boolean {
    if (this.scoring === 'ts') return true;
    for (let l = 0; l < this.scales.length; l++) if (!(this.grid(x, l).data instanceof Float32Array)) return true;
    return false;
  }

  /** An image for the native decoder: its levels (features, or map buffers of `mapsOf`) and ground truth. */
  private nativeImage(x: PoseInput, yTrue: PoseLabel | undefined, maps: Float64Array[] | null): NativePoseImage {
    const levels = this.scales.map((_, l) => {
      const g = this.grid(x, l);
      return maps ? { rows: g.rows, cols: g.cols, maps: maps[l]! } : { rows: g.rows, cols: g.cols, features: g.data as Float32Array };
    });
    return { levels, ...(yTrue ? { truth: { x: yTrue.x, y: yTrue.y, scale: yTrue.scale!, level: yTrue.level ?? 0 } } : {}) };
  }

  /** All state maps of level l into `out` (states x cells): the model's filter responses. */
  private fillMaps(w: Float64Array, x: PoseInput, l: number, out: Float64Array): void {
    const cells = this.grid(x, l).rows * this.grid(x, l).cols;
    this.partScores(w, x, l).forEach((m, s) => out.set(m, s * cells));
  }

  private newBatch(images: NativePoseImage[]): NativePoseBatch {
    return new native.PoseBatch({ ...this.tree, images });
  }

  /** Label i of the decoder's outputs (types and level only when the model has them). */
  private labelOf(out: { x: Int32Array; y: Int32Array; types: Int32Array; levels: Int32Array }, i: number): PoseLabel {
    const P = this.numParts;
    const y: PoseLabel = { x: out.x.slice(i * P, (i + 1) * P), y: out.y.slice(i * P, (i + 1) * P) };
    if (this.maxTypes > 1) y.types = out.types.slice(i * P, (i + 1) * P);
    if (this.scales.length > 1) y.level = out.levels[i]!;
    return y;
  }

  /** Exact (loss-augmented when yTrue is given) max-sum over every level, part cell and type: the native decoder on one image. */
  private solve(w: Float64Array, x: PoseInput, yTrue: PoseLabel | undefined, counters?: OracleCounters): PoseLabel {
    this.checkW(w);
    const t0 = performance.now();
    let maps: Float64Array[] | null = null;
    if (this.needsMaps(x)) {
      maps = this.scales.map((_, l) => new Float64Array(this.numStates * this.grid(x, l).rows * this.grid(x, l).cols));
      maps.forEach((m, l) => this.fillMaps(w, x, l, m));
    }
    const P = this.numParts;
    const out = { x: new Int32Array(P), y: new Int32Array(P), types: new Int32Array(P), levels: new Int32Array(1) };
    this.newBatch([this.nativeImage(x, yTrue, maps)]).decode({ w, ...this.springsAndBiases(w), augmented: yTrue !== undefined, threads: 1, ...out });
    if (counters && yTrue) {
      counters.examples++;
      counters.decodingMs += performance.now() - t0;
    }
    return this.labelOf(out, 0);
  }

  lossAugmentedDecode(w: Float64Array, x: PoseInput, yTrue: PoseLabel, counters?: OracleCounters): PoseLabel {
    return this.solve(w, x, yTrue, counters);
  }

  decode(w: Float64Array, x: PoseInput): PoseLabel {
    return this.solve(w, x, undefined);
  }

  /**
   * The batched exact pass (DESIGN seam 4): every image's loss-augmented pose at once, decoded on native
   * threads by the same native decoder as the per-image oracle (native/pose/tree.cc: filter responses of every
   * state, loss maps and tree max-sum over cells and types with GDT messages, on every pyramid level). With a
   * non-native scoring backend (gpu.js, TypeScript), the filter responses of a whole pass are its product
   * instead: each cell's k x k x D patch is one feature row (im2col, zero outside the grid; prepared once when
   * the rows fit in 2^25 values, else per chunk and pass) and the state filters are W; subsets score natively. Every H_i = L - <w, psi> is then computed
   * from the decoded pose with the per-image path's arithmetic (bit-identical H).
   */
  prepareBatch(xs: readonly PoseInput[], ys: readonly PoseLabel[], scoring?: ScoringBackend): BatchDecoder<PoseLabel> {
    const P = this.numParts;
    const n = xs.length;
    check(ys.length === n, `got ${n} images but ${ys.length} poses`);
    const backend = scoring && scoring.name !== 'native' ? scoring : this.scoring === 'ts' ? new JsBackend() : undefined;
    const useMaps = backend !== undefined || xs.some((x) => this.needsMaps(x));
    const maps = useMaps ? xs.map((x) => this.scales.map((_, l) => new Float64Array(this.numStates * this.grid(x, l).rows * this.grid(x, l).cols))) : null;
    const batch = this.newBatch(xs.map((x, i) => this.nativeImage(x, ys[i], maps?.[i] ?? null)));
    const responses = maps && backend ? this.batchResponses(xs, backend, maps) : null;
    const out = { x: new Int32Array(n * P), y: new Int32Array(n * P), types: new Int32Array(n * P), levels: new Int32Array(n) };
    let plain = false;
    const each = (items: Items | null, f: (i: number) => void) => {
      for (let q = 0; q < (items ? items.count : n); q++) f(items ? items.indices[q]! : q);
    };
    return {
      size: n,
      score: (w, items, isPlain) => {
        plain = isPlain;
        if (!maps) return; // the decoder computes the filter responses itself
        if (items === null && responses) responses(w);
        else each(items, (i) => this.scales.forEach((_, l) => this.fillMaps(w, xs[i]!, l, maps[i]![l]!)));
      },
      decode: (w, items) => {
        batch.decode({ w, ...this.springsAndBiases(w), augmented: !plain, threads: this.threads, ...(items ? { items: items.indices, count: items.count } : {}), ...out });
      },
      recheck: (w, items, hinge) =>
        each(items, (i) => {
          const y = this.labelOf(out, i);
          hinge[i] = this.loss(ys[i]!, y) - dotSparse(w, this.psi(xs[i]!, ys[i]!, y));
        }),
      // Images with features only (the decoder computes their responses): maps are written by score.
      ...(maps ? {} : this.backgroundDecode(batch, xs, ys, out)),
      label: (i) => this.labelOf(out, i),
      truth: (i) => copyLabel(ys[i]!),
    };
  }

  /**
   * The background half of prepareBatch's decoder: the native decode at copies of w's filters, springs and
   * biases on the background queue (on every thread: the decode takes far longer than the steps the JavaScript
   * thread applies meanwhile), then on the JavaScript thread the recheck at the copy of w it kept, whose psi the
   * block steps reuse (one psi per decoded block instead of two).
   */
  private backgroundDecode(batch: NativePoseBatch, xs: readonly PoseInput[], ys: readonly PoseLabel[], out: { x: Int32Array; y: Int32Array; types: Int32Array; levels: Int32Array }): Pick<BatchDecoder<PoseLabel>, 'decodeInBackground' | 'finishBackground' | 'backgroundPsi'> {
    const wAtDecode = new Float64Array(this.dim);
    let started: Items | null = null;
    // psi of item q: its own growing buffers, so that every item's stays valid until the next finish.
    const psis: { indices: Int32Array; values: Float64Array; nnz: number }[] = [];
    return {
      decodeInBackground: (w, items, threads) => {
        wAtDecode.set(w);
        batch.decodeInBackground({ w, ...this.springsAndBiases(w), augmented: true, items: items.indices, count: items.count, threads: Math.min(threads, this.threads) });
        started = items;
      },
      finishBackground: (hinge) => {
        const items = started!;
        started = null;
        const decodingMs = batch.finishBackground(out);
        const t0 = performance.now();
        for (let q = 0; q < items.count; q++) {
          const i = items.indices[q]!;
          const y = this.labelOf(out, i);
          const psi = this.psi(xs[i]!, ys[i]!, y);
          if (psis.length <= q) psis.push({ indices: new Int32Array(0), values: new Float64Array(0), nnz: 0 });
          const kept = psis[q]!;
          if (kept.indices.length < psi.nnz) {
            kept.indices = new Int32Array(psi.nnz);
            kept.values = new Float64Array(psi.nnz);
          }
          kept.indices.set(psi.indices.subarray(0, psi.nnz));
          kept.values.set(psi.values.subarray(0, psi.nnz));
          kept.nnz = psi.nnz;
          hinge[i] = this.loss(ys[i]!, y) - dotSparse(wAtDecode, psi);
        }
        return [0, decodingMs, performance.now() - t0];
      },
      backgroundPsi: (q) => psis[q]!,
    };
  }

  /**
   * Filter responses of every level of every image from a non-native scoring backend (gpu.js, or TypeScript
   * for a model with TypeScript scoring) into `maps` (per image and level: states x cells). The rows are im2col
   * patches of the grids, in chunks of at most 2^24 values.
   */
  private batchResponses(xs: readonly PoseInput[], backend: ScoringBackend, maps: Float64Array[][]): (w: Float64Array) => void {
    const S = this.numStates;
    const F = this.filterLength;
    const grids = xs.flatMap((x, i) => this.scales.map((_, l) => ({ grid: this.grid(x, l), map: maps[i]![l]! })));
    const chunks: { start: number; end: number; cells: number; prepared: FeatureRows | null }[] = [];
    let total = 0;
    for (let start = 0; start < grids.length; ) {
      let end = start;
      let cells = 0;
      while (end < grids.length && (end === start || (cells + grids[end]!.grid.rows * grids[end]!.grid.cols) * F <= 2 ** 24)) cells += grids[end]!.grid.rows * grids[end++]!.grid.cols;
      chunks.push({ start, end, cells, prepared: null });
      total += cells;
      start = end;
    }
    const keep = total * F <= 2 ** 25;
    const patches = (c: (typeof chunks)[number]): FeatureRows => backend.prepare(this.im2col(grids.slice(c.start, c.end).map((g) => g.grid), c.cells), c.cells, F);
    if (keep) for (const c of chunks) c.prepared = patches(c);
    let scores = new Float64Array(0);
    return (w) => {
      for (const c of chunks) {
        if (scores.length < c.cells * S) scores = new Float64Array(c.cells * S);
        backend.score(c.prepared ?? patches(c), w.subarray(0, S * F), S, scores.subarray(0, c.cells * S));
        // cell-major scores -> one state-major map per grid
        let row = 0;
        for (let g = c.start; g < c.end; g++) {
          const cells = grids[g]!.grid.rows * grids[g]!.grid.cols;
          const map = grids[g]!.map;
          for (let q = 0; q < cells; q++, row++) for (let s = 0; s < S; s++) map[s * cells + q] = scores[row * S + s]!;
        }
      }
    };
  }

  /** Rows of k x k x D patches (the filter layout: (i*k + j)*D + d), one per cell, zero outside the grid. */
  private im2col(grids: readonly PoseGrid[], cells: number): Float32Array | Float64Array {
    const k = this.filterSize;
    const rad = (k - 1) / 2;
    const D = this.featureDim;
    const F = this.filterLength;
    const out = grids.every((g) => g.data instanceof Float32Array) ? new Float32Array(cells * F) : new Float64Array(cells * F);
    let row = 0;
    for (const { rows, cols, data } of grids) {
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

  /**
   * phi(x, yTrue) - phi(x, y) (phi(x, yTrue) when y is null), a view of reused buffers valid until the next call.
   * Entries come in this order (sums depend on it): phi(yTrue)'s own, part by part (filter taps with a non-zero
   * feature, the 4 deformation terms, the co-occurrence bias), each less phi(y) there; then -phi(y) outside that
   * support; exact zeros dropped. A coordinate of both can only be in a part's own state's blocks, so parts with
   * different states in yTrue and y never merge: no dense accumulator is needed.
   */
  private featureDiff(x: PoseInput, yTrue: PoseLabel, y: PoseLabel | null): SparseVector {
    this.diffNnz = 0;
    const gt = this.grid(x, yTrue.level ?? 0);
    const gy = y ? this.grid(x, y.level ?? 0) : gt;
    const { data: featT, dim: D } = gt;
    const featY = gy.data;
    const k = this.filterSize;
    for (let p = 0; p < this.numParts; p++) {
      const st = this.state(yTrue, p);
      const same = y !== null && this.state(y, p) === st;
      for (let i = 0; i < k; i++) {
        for (let j = 0; j < k; j++) {
          const ft = this.tap(gt, yTrue, p, i, j);
          if (ft < 0) continue;
          const fy = same ? this.tap(gy, y, p, i, j) : -1;
          const wb = st * this.filterLength + (i * k + j) * D;
          if (fy < 0) {
            for (let d = 0; d < D; d++) if (featT[ft + d] !== 0) this.put(wb + d, featT[ft + d]!);
          } else {
            for (let d = 0; d < D; d++) if (featT[ft + d] !== 0) this.put(wb + d, featT[ft + d]! - featY[fy + d]!);
          }
        }
      }
      const e = this.defIndex[st]!;
      if (e < 0) continue;
      const o = this.defOffset + 4 * e;
      const dx = this.defDx(yTrue, p, st);
      const dy = this.defDy(yTrue, p, st);
      const ex = same ? this.defDx(y, p, st) : 0;
      const ey = same ? this.defDy(y, p, st) : 0;
      this.put(o, same ? -dx * dx + ex * ex : -dx * dx);
      this.put(o + 1, same ? -dx + ex : -dx);
      this.put(o + 2, same ? -dy * dy + ey * ey : -dy * dy);
      this.put(o + 3, same ? -dy + ey : -dy);
      const b = this.biasAt(yTrue, p, st);
      if (b >= 0 && !(y && this.biasAt(y, p, this.state(y, p)) === b)) this.put(b, 1);
    }
    if (y) {
      for (let p = 0; p < this.numParts; p++) {
        const st = this.state(y, p);
        const same = this.state(yTrue, p) === st;
        for (let i = 0; i < k; i++) {
          for (let j = 0; j < k; j++) {
            const fy = this.tap(gy, y, p, i, j);
            if (fy < 0) continue;
            const ft = same ? this.tap(gt, yTrue, p, i, j) : -1;
            const wb = st * this.filterLength + (i * k + j) * D;
            for (let d = 0; d < D; d++) if (featY[fy + d] !== 0 && (ft < 0 || featT[ft + d] === 0)) this.put(wb + d, -featY[fy + d]!);
          }
        }
        const e = this.defIndex[st]!;
        if (e < 0) continue;
        if (!same) {
          const o = this.defOffset + 4 * e;
          const dx = this.defDx(y, p, st);
          const dy = this.defDy(y, p, st);
          this.put(o, dx * dx);
          this.put(o + 1, dx);
          this.put(o + 2, dy * dy);
          this.put(o + 3, dy);
        }
        const b = this.biasAt(y, p, st);
        if (b >= 0 && b !== this.biasAt(yTrue, p, this.state(yTrue, p))) this.put(b, -1);
      }
    }
    return { indices: this.diffIdx, values: this.diffVal, nnz: this.diffNnz };
  }

  /** Appends a non-zero entry to featureDiff's buffers. */
  private put(j: number, v: number): void {
    if (v === 0) return;
    this.diffIdx[this.diffNnz] = j;
    this.diffVal[this.diffNnz++] = v;
  }

  /** Offset in g.data of the features under tap (i, j) of part p's filter at pose y, or -1 outside the grid. */
  private tap(g: PoseGrid, y: PoseLabel, p: number, i: number, j: number): number {
    const rad = (this.filterSize - 1) / 2;
    const r = y.y[p]! + i - rad;
    const c = y.x[p]! + j - rad;
    return r < 0 || r >= g.rows || c < 0 || c >= g.cols ? -1 : (r * g.cols + c) * g.dim;
  }

  /** The scaled displacement of part p (state st, not a root) from its parent and anchor, in x and in y. */
  private defDx(y: PoseLabel, p: number, st: number): number {
    return (y.x[p]! - y.x[this.parents[p]!]! - this.anchors[st]!.dx) / this.defScale;
  }

  private defDy(y: PoseLabel, p: number, st: number): number {
    return (y.y[p]! - y.y[this.parents[p]!]! - this.anchors[st]!.dy) / this.defScale;
  }

  /** Coordinate of part p's co-occurrence bias at pose y (state st), or -1 when the part has none. */
  private biasAt(y: PoseLabel, p: number, st: number): number {
    const b = this.biasIndex[p]!;
    return b < 0 ? -1 : b + (st - this.firstState[p]!) * this.types[this.parents[p]!]! + (y.types?.[this.parents[p]!] ?? 0);
  }

  /** phi(x, y) as a sparse vector (a view valid until the next call). */
  phi(x: PoseInput, y: PoseLabel): SparseVector {
    return this.featureDiff(x, y, null);
  }

  psi(x: PoseInput, yTrue: PoseLabel, y: PoseLabel): SparseVector {
    return this.featureDiff(x, yTrue, y);
  }

  /** The joint loss, the truth mapped onto the label's level: cell z* of level l* is at (z* + 1.5) r - 1.5 on level l, r = scales[l] / scales[l*]. */
  loss(yTrue: PoseLabel, y: PoseLabel): number {
    const r = this.scales[y.level ?? 0]! / this.scales[yTrue.level ?? 0]!;
    const s = yTrue.scale! * r;
    const s2 = s * s;
    let l = 0;
    for (let p = 0; p < this.joints; p++) {
      const dx = y.x[p]! - ((yTrue.x[p]! + CELL_CENTRE) * r - CELL_CENTRE);
      const dy = y.y[p]! - ((yTrue.y[p]! + CELL_CENTRE) * r - CELL_CENTRE);
      l += Math.min((dx * dx + dy * dy) / s2, 1);
    }
    return l / this.joints;
  }

  /**
   * <w_s, phi> of state s at cell (cx, cy) of a grid: the filter response at that one cell, summed over the taps
   * (i, j) and features d in the order of the native responses (native/hog: taps outside the grid add zeros),
   * so for float32 features it equals their map entry bit for bit.
   */
  private cellResponse(w: Float64Array, g: PoseGrid, s: number, cx: number, cy: number): number {
    const k = this.filterSize;
    const rad = (k - 1) / 2;
    const { rows, cols, dim, data } = g;
    const base = s * this.filterLength;
    let v = 0;
    for (let i = 0; i < k; i++) {
      const r = cy + i - rad;
      if (r < 0 || r >= rows) continue;
      for (let j = 0; j < k; j++) {
        const c = cx + j - rad;
        if (c < 0 || c >= cols) continue;
        const fb = (r * cols + c) * dim;
        const wb = base + (i * k + j) * dim;
        for (let d = 0; d < dim; d++) v += w[wb + d]! * data[fb + d]!;
      }
    }
    return v;
  }

  /** <w, phi(x, y)> (no loss), from the filter responses at y's cells only. */
  private scoreWith(w: Float64Array, x: PoseInput, edges: EdgeCost[], y: PoseLabel): number {
    const g = this.grid(x, y.level ?? 0);
    let s = 0;
    for (let p = 0; p < this.numParts; p++) {
      const st = this.state(y, p);
      s += this.cellResponse(w, g, st, y.x[p]!, y.y[p]!);
      const q = this.parents[p]!;
      if (q < 0) continue;
      const e = edges[st]!;
      const dx = y.x[p]! - y.x[q]! - e.mx;
      const dy = y.y[p]! - y.y[q]! - e.my;
      s -= e.ax * dx * dx + e.bx * dx + e.ay * dy * dy + e.by * dy;
      const b = this.biasIndex[p]!;
      if (b >= 0) s += w[b + (st - this.firstState[p]!) * this.types[q]! + (y.types?.[q] ?? 0)]!;
    }
    return s;
  }

  /** L - <w, psi> of every label, O(parts x filter) each (a cache scores its labels without the oracle's maps). */
  labelScores(w: Float64Array, x: PoseInput, yTrue: PoseLabel, labels: readonly PoseLabel[], out: Float64Array): void {
    this.checkW(w);
    const edges = this.edgeCosts(w);
    const truth = this.scoreWith(w, x, edges, yTrue);
    for (let k = 0; k < labels.length; k++) out[k] = this.loss(yTrue, labels[k]!) + this.scoreWith(w, x, edges, labels[k]!) - truth;
  }

  labelKey(y: PoseLabel): string {
    let s = '';
    for (let p = 0; p < this.numParts; p++) s += `${y.x[p]},${y.y[p]};`;
    if (y.types) s += `t${y.types.join(',')}`;
    if (y.level !== undefined) s += `@${y.level}`;
    return s;
  }

  labelToJSON(y: PoseLabel): unknown {
    return { x: [...y.x], y: [...y.y], ...(y.scale !== undefined ? { scale: y.scale } : {}), ...(y.types ? { types: [...y.types] } : {}), ...(y.level !== undefined ? { level: y.level } : {}) };
  }

  labelFromJSON(value: unknown): PoseLabel {
    const v = value as { x?: unknown; y?: unknown; scale?: unknown; types?: unknown; level?: unknown };
    check(typeof v === 'object' && v !== null && Array.isArray(v.x) && Array.isArray(v.y), 'a pose label must be {x: number[], y: number[]}');
    check(v.x.length === this.numParts && v.y.length === this.numParts, `a pose label needs ${this.numParts} parts`);
    for (const t of [...v.x, ...v.y]) check(Number.isInteger(t) && (t as number) >= 0, `pose coordinates must be non-negative integers, got ${String(t)}`);
    const y: PoseLabel = { x: Int32Array.from(v.x as number[]), y: Int32Array.from(v.y as number[]), ...(typeof v.scale === 'number' ? { scale: v.scale } : {}) };
    if (v.types !== undefined) {
      check(Array.isArray(v.types) && v.types.length === this.numParts, `pose label types need ${this.numParts} entries`);
      (v.types as unknown[]).forEach((t, p) => check(Number.isInteger(t) && (t as number) >= 0 && (t as number) < this.types[p]!, `part ${p} has type ${String(t)}, outside 0..${this.types[p]! - 1}`));
      y.types = Int32Array.from(v.types as number[]);
    }
    if (v.level !== undefined) {
      check(Number.isInteger(v.level) && (v.level as number) >= 0 && (v.level as number) < this.scales.length, `pose label level ${String(v.level)} is outside 0..${this.scales.length - 1}`);
      y.level = v.level as number;
    }
    return y;
  }
}

/** A fresh copy of a label. */
function copyLabel(y: PoseLabel): PoseLabel {
  return { x: Int32Array.from(y.x), y: Int32Array.from(y.y), ...(y.scale !== undefined ? { scale: y.scale } : {}), ...(y.types ? { types: Int32Array.from(y.types) } : {}), ...(y.level !== undefined ? { level: y.level } : {}) };
}
