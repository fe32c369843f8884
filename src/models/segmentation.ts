import { performance } from 'node:perf_hooks';
import { availableParallelism } from 'node:os';
import { check, InputError } from '../core/errors.js';
import type { Bounds, StructuredModel } from '../core/problem.js';
import type { BatchDecoder, OracleCounters } from '../core/batch.js';
import type { ScoringBackend } from '../core/scoring.js';
import { SparseAccumulator, type SparseVector } from '../core/vector.js';
import { itemsOption } from '../engine/items.js';
import type { Items } from '../core/batch.js';
import { maxflow, MaxflowBatch, MaxflowGraph, type MaxflowGraphSpec } from '../native/maxflow.js';
import { native } from '../native/addon.js';

/**
 * Binary figure-ground segmentation on a superpixel graph: the HorseSeg model of the gapBCFW paper
 * (Osokin et al. 2016, Sec. 5 / App. E; Kolesnikov et al. 2014), as the authors' MATLAB code does it
 * (`applications/binary_segmentation/`):
 *
 *   E(y) = sum_i (2 y_i - 1) f_i^T w_U  +  sum_(ij) [y_i != y_j] f_ij^T w_P,      y_i in {0 = background, 1 = horse}
 *   phi(x, y) = -( sum_i (2 y_i - 1) f_i ; sum_(ij) [y_i != y_j] f_ij ),          so <w, phi(x, y)> = -E(y).
 *
 * w = [w_U (dUnary) ; w_P (dPairwise)], d = 1969 + 100 = 2069 for HorseSeg's features. The Potts weight
 * of an edge is f_ij^T w_P; with the lower bound 0 on the pairwise weights ({@link SegmentationModel.bounds},
 * 2016 App. H) and non-negative edge features the energy is submodular and the max-oracle is one s-t
 * minimum cut (native Boykov-Kolmogorov, src/native/maxflow.ts). A negative Potts weight (possible only when
 * the solver runs without the bounds or the features are negative) is clipped at 0 inside the oracle,
 * as the reference does, and counted in {@link SegmentationModel.stats}.
 *
 * Loss "hammingBalanced" (default): area-weighted, class-normalised Hamming,
 *   L(y*, y) = ( FN area / FG area + FP area / BG area ) / 2,
 * and when y* has one class only, the error rate of that class alone. "hamming": the wrong area over
 * the total area. Both are sums of per-node terms [y_i != y*_i] a_i, so the loss augmentation is exact:
 * a_i is subtracted from the energy of the wrong label of node i (the reference's
 * `getLossAugmentedUpdate_hammingBalanced.m`).
 */

/** One image: a superpixel graph with features (the per-image record of the horse data format). */
export interface SegmentationGraph {
  /** Number of superpixels (nodes) N >= 1. */
  numNodes: number;
  /** Unary features, N x dUnary row-major (f_i). */
  unary: Float32Array;
  /** Edge tails, length E; each edge is undirected, listed once, a != b. */
  edgeFrom: Int32Array;
  /** Edge heads, length E. */
  edgeTo: Int32Array;
  /** Edge features, E x dPairwise row-major (f_ij); should be >= 0 for positivity to imply submodularity. */
  pairwise: Float32Array;
  /** Superpixel areas (pixel counts), N entries > 0. */
  areas: Float64Array;
}

/** A labelling: one byte per superpixel, 0 = background, 1 = foreground. */
export type SegmentationLabel = Uint8Array;

export type SegmentationLoss = 'hammingBalanced' | 'hamming';

/** Feature dimensions and loss of a {@link SegmentationModel}. */
export interface SegmentationModelOptions {
  /** Unary feature dimension (HorseSeg: 1969). */
  dUnary: number;
  /** Pairwise feature dimension (HorseSeg: 100). */
  dPairwise: number;
  /** Task loss; default 'hammingBalanced'. */
  loss?: SegmentationLoss;
  /** Lower bound 0 on the pairwise weights (default true). */
  positivity?: boolean;
  /**
   * Keep one native graph per image and re-solve it with Kohli-Torr tree reuse (default false: a fresh
   * one-shot solve per call, which measured faster on ~150-node superpixel graphs, whose capacities all
   * change between calls).
   */
  reuseGraphs?: boolean;
}

/** Cumulative oracle statistics (reset with {@link SegmentationModel.resetStats}). */
export interface SegmentationStats {
  /** Oracle / decode calls. */
  calls: number;
  /** Milliseconds computing potentials f_i^T w_U, f_ij^T w_P and the loss augmentation. */
  scoringMs: number;
  /** Milliseconds in the max-flow (building the graph, solving, reading the cut). */
  maxflowMs: number;
  /** Negative Potts weights clipped at 0 by the oracle. */
  clippedEdges: number;
}

/** The s-t cut form of a (loss-augmented) energy: E(y) = sum_i cost_i(y_i) + sum_e [y_a != y_b] potts_e. */
export interface CutPotentials {
  /** cost of label 0 per node. */
  cost0: Float64Array;
  /** cost of label 1 per node. */
  cost1: Float64Array;
  /** Potts weight per edge (clipped at 0). */
  potts: Float64Array;
}

export class SegmentationModel implements StructuredModel<SegmentationGraph, SegmentationLabel> {
  readonly dim: number;
  readonly dUnary: number;
  readonly dPairwise: number;
  readonly lossKind: SegmentationLoss;
  readonly reuseGraphs: boolean;
  readonly bounds?: Bounds;
  /** A graph cut per oracle call (about a millisecond): mini-batches decoded on threads pay off. */
  readonly miniBatches = true;
  /** This model's oracle counters (per-object calls and batched decodes); a Problem's own are in Problem.counters. */
  readonly stats: SegmentationStats = { calls: 0, scoringMs: 0, maxflowMs: 0, clippedEdges: 0 };
  private readonly acc: SparseAccumulator;
  private readonly graphs = new WeakMap<SegmentationGraph, MaxflowGraph>();

  constructor(options: SegmentationModelOptions) {
    const { dUnary, dPairwise } = options;
    check(Number.isInteger(dUnary) && dUnary >= 1, `dUnary must be a positive integer, got ${dUnary}`);
    check(Number.isInteger(dPairwise) && dPairwise >= 1, `dPairwise must be a positive integer, got ${dPairwise}`);
    this.dUnary = dUnary;
    this.dPairwise = dPairwise;
    this.dim = dUnary + dPairwise;
    this.lossKind = options.loss ?? 'hammingBalanced';
    check(this.lossKind === 'hammingBalanced' || this.lossKind === 'hamming', `unknown segmentation loss '${String(this.lossKind)}'`);
    this.reuseGraphs = options.reuseGraphs ?? false;
    if (options.positivity ?? true) {
      const lower = new Float64Array(this.dim).fill(-Infinity);
      lower.fill(0, dUnary);
      this.bounds = { lower, upper: new Float64Array(this.dim).fill(Infinity) };
    }
    this.acc = new SparseAccumulator(this.dim, 4 * this.dim);
  }

  /** Sets the oracle counters of `stats` (calls, scoring and max-flow milliseconds, clipped edges) back to 0. */
  resetStats(): void {
    Object.assign(this.stats, { calls: 0, scoringMs: 0, maxflowMs: 0, clippedEdges: 0 });
  }

  validate(x: SegmentationGraph, y: SegmentationLabel, where: string): void {
    this.validateGraph(x, where);
    if (!(y instanceof Uint8Array)) throw new InputError(`${where}: a label must be a Uint8Array`);
    check(y.length === x.numNodes, () => `${where}: label has ${y.length} entries for ${x.numNodes} superpixels`);
    for (let i = 0; i < y.length; i++) check(y[i]! <= 1, () => `${where}: label of superpixel ${i} is ${y[i]} (must be 0 or 1)`);
    // loss(yTrue, y) has no input: the ground truth carries its areas from here on (see withAreas). A truth that
    // carries them already keeps its own (a streamed set's x is a view into a read buffer).
    if (!AREAS.has(y)) withAreas(y, x.areas);
  }

  /** Checks shapes, node ids, finiteness and areas of one graph. */
  validateGraph(x: SegmentationGraph, where: string): void {
    checkSegmentationGraph(x, this.dUnary, this.dPairwise, where);
  }

  private checkW(w: Float64Array): void {
    if (!(w instanceof Float64Array) || w.length !== this.dim) throw new InputError(`w must be a Float64Array of length ${this.dim}`);
  }

  /** u_i = f_i^T w_U per node and p_e = f_ij^T w_P per edge (unclipped). */
  potentials(w: Float64Array, x: SegmentationGraph): { unary: Float64Array; potts: Float64Array } {
    const dU = this.dUnary;
    const dP = this.dPairwise;
    const N = x.numNodes;
    const E = x.edgeFrom.length;
    const unary = new Float64Array(N);
    const potts = new Float64Array(E);
    const f = x.unary;
    for (let i = 0; i < N; i++) {
      let s = 0;
      const o = i * dU;
      for (let j = 0; j < dU; j++) s += f[o + j]! * w[j]!;
      unary[i] = s;
    }
    const g = x.pairwise;
    for (let e = 0; e < E; e++) {
      let s = 0;
      const o = e * dP;
      for (let j = 0; j < dP; j++) s += g[o + j]! * w[dU + j]!;
      potts[e] = s;
    }
    return { unary, potts };
  }

  /**
   * Per-node loss weights a_i: the loss is sum_i [y_i != y*_i] a_i exactly (see the class comment).
   */
  lossWeights(x: SegmentationGraph, yTrue: SegmentationLabel): Float64Array {
    const N = x.numNodes;
    const a = new Float64Array(N);
    let fg = 0;
    let bg = 0;
    for (let i = 0; i < N; i++) {
      if (yTrue[i]) fg += x.areas[i]!;
      else bg += x.areas[i]!;
    }
    if (this.lossKind === 'hamming') {
      const total = fg + bg;
      for (let i = 0; i < N; i++) a[i] = x.areas[i]! / total;
      return a;
    }
    // (size_i / total) * (total / classArea) / 2, doubled when the class is the only one present.
    const fgScale = bg === 0 ? 1 / fg : 1 / (2 * fg);
    const bgScale = fg === 0 ? 1 / bg : 1 / (2 * bg);
    for (let i = 0; i < N; i++) a[i] = x.areas[i]! * (yTrue[i] ? fgScale : bgScale);
    return a;
  }

  /** The energy E(y) = -<w, phi(x, y)> (no clipping). */
  energy(w: Float64Array, x: SegmentationGraph, y: SegmentationLabel): number {
    this.checkW(w);
    const { unary, potts } = this.potentials(w, x);
    return energyOf(unary, potts, x, y);
  }

  /**
   * The cut form of the energy the oracle minimises: E(y) - L(y*, y) with yTrue (loss-augmented),
   * E(y) without; Potts weights clipped at 0.
   */
  cutPotentials(w: Float64Array, x: SegmentationGraph, yTrue: SegmentationLabel | null): CutPotentials {
    this.checkW(w);
    const { unary, potts } = this.potentials(w, x);
    return this.cutFromPotentials(unary, potts, x, yTrue);
  }

  /** {@link cutPotentials} from given potentials u_i and p_e (p is clipped at 0 in place). */
  cutFromPotentials(unary: Float64Array, potts: Float64Array, x: SegmentationGraph, yTrue: SegmentationLabel | null): CutPotentials {
    const N = x.numNodes;
    const cost0 = new Float64Array(N);
    const cost1 = new Float64Array(N);
    for (let i = 0; i < N; i++) {
      cost0[i] = -unary[i]!;
      cost1[i] = unary[i]!;
    }
    if (yTrue) {
      const a = this.lossWeights(x, yTrue);
      for (let i = 0; i < N; i++) {
        if (yTrue[i]) cost0[i]! -= a[i]!;
        else cost1[i]! -= a[i]!;
      }
    }
    let clipped = 0;
    for (let e = 0; e < potts.length; e++) {
      if (potts[e]! < 0) {
        potts[e] = 0;
        clipped++;
      }
    }
    this.stats.clippedEdges += clipped;
    return { cost0, cost1, potts };
  }

  /**
   * The s-t graph of a cut form: source side = label 0, so cutting s->i (node i on the sink side, label 1)
   * pays cost1 and i->t pays cost0; the per-node minimum is a constant and is dropped.
   */
  cutGraph(cut: CutPotentials, x: SegmentationGraph): MaxflowGraphSpec & { capRev: Float64Array; sourceCap: Float64Array; sinkCap: Float64Array } {
    const N = x.numNodes;
    const src = new Float64Array(N);
    const sink = new Float64Array(N);
    for (let i = 0; i < N; i++) {
      const m = Math.min(cut.cost0[i]!, cut.cost1[i]!);
      src[i] = cut.cost1[i]! - m;
      sink[i] = cut.cost0[i]! - m;
    }
    return { numNodes: N, edgeFrom: x.edgeFrom, edgeTo: x.edgeTo, capFwd: cut.potts, capRev: cut.potts, sourceCap: src, sinkCap: sink, capType: 'float64' };
  }

  /** Adds oracle calls and their milliseconds to {@link stats} (and to `counters` when given). */
  countCall(scoringMs: number, maxflowMs: number, calls = 1, counters?: OracleCounters): void {
    this.stats.calls += calls;
    this.stats.scoringMs += scoringMs;
    this.stats.maxflowMs += maxflowMs;
    if (counters) {
      counters.examples += calls;
      counters.scoringMs += scoringMs;
      counters.decodingMs += maxflowMs;
    }
  }

  private minCut(w: Float64Array, x: SegmentationGraph, yTrue: SegmentationLabel | null, counters?: OracleCounters): SegmentationLabel {
    const t0 = performance.now();
    const spec = this.cutGraph(this.cutPotentials(w, x, yTrue), x);
    const t1 = performance.now();
    let labels: Uint8Array;
    if (this.reuseGraphs) {
      let g = this.graphs.get(x);
      if (!g) {
        g = new MaxflowGraph(spec);
        this.graphs.set(x, g);
      } else {
        g.setEdgeCaps(null, spec.capFwd, spec.capRev).setTerminalCaps(null, spec.sourceCap, spec.sinkCap);
      }
      g.solve();
      labels = g.segments();
    } else {
      labels = maxflow(spec).segments;
    }
    this.countCall(t1 - t0, performance.now() - t1, 1, counters);
    return labels; // SOURCE_SIDE = 0 = background, SINK_SIDE = 1 = foreground
  }

  /** The batched oracle: cut capacities natively or from a scoring backend, all cuts on native threads (segmentationBatch below). */
  prepareBatch(xs: readonly SegmentationGraph[], ys: readonly SegmentationLabel[], scoring?: ScoringBackend): BatchDecoder<SegmentationLabel> {
    return segmentationBatch(this, xs, ys, scoring);
  }

  lossAugmentedDecode(w: Float64Array, x: SegmentationGraph, yTrue: SegmentationLabel, counters?: OracleCounters): SegmentationLabel {
    return this.minCut(w, x, yTrue, counters);
  }

  decode(w: Float64Array, x: SegmentationGraph): SegmentationLabel {
    return this.minCut(w, x, null);
  }

  psi(x: SegmentationGraph, yTrue: SegmentationLabel, y: SegmentationLabel): SparseVector {
    const dU = this.dUnary;
    const dP = this.dPairwise;
    const acc = this.acc;
    // phi(y*) - phi(y) = sum_i 2 (y_i - y*_i) f_i ; sum_e ([y_a != y_b] - [y*_a != y*_b]) f_e
    for (let i = 0; i < x.numNodes; i++) {
      const d = y[i]! - yTrue[i]!;
      if (d === 0) continue;
      const o = i * dU;
      for (let j = 0; j < dU; j++) {
        const v = x.unary[o + j]!;
        if (v !== 0) acc.add(j, 2 * d * v);
      }
    }
    for (let e = 0; e < x.edgeFrom.length; e++) {
      const a = x.edgeFrom[e]!;
      const b = x.edgeTo[e]!;
      const d = (y[a] !== y[b] ? 1 : 0) - (yTrue[a] !== yTrue[b] ? 1 : 0);
      if (d === 0) continue;
      const o = e * dP;
      for (let j = 0; j < dP; j++) {
        const v = x.pairwise[o + j]!;
        if (v !== 0) acc.add(dU + j, d * v);
      }
    }
    return acc.take();
  }

  loss(yTrue: SegmentationLabel, y: SegmentationLabel, areas?: Float64Array): number {
    return segmentationLoss(yTrue, y, areas, this.lossKind);
  }

  labelKey(y: SegmentationLabel): string {
    let s = '';
    for (let i = 0; i < y.length; i++) s += y[i] ? '1' : '0';
    return s;
  }

  labelToJSON(y: SegmentationLabel): string {
    return this.labelKey(y);
  }

  labelFromJSON(value: unknown): SegmentationLabel {
    check(typeof value === 'string' && /^[01]*$/.test(value), 'a segmentation label must be a string of 0s and 1s');
    const y = new Uint8Array(value.length);
    for (let i = 0; i < value.length; i++) y[i] = value.charCodeAt(i) - 48;
    return y;
  }

  labelScores(w: Float64Array, x: SegmentationGraph, yTrue: SegmentationLabel, labels: readonly SegmentationLabel[], out: Float64Array): void {
    this.checkW(w);
    const { unary, potts } = this.potentials(w, x);
    const eTrue = energyOf(unary, potts, x, yTrue);
    const a = this.lossWeights(x, yTrue);
    for (let k = 0; k < labels.length; k++) {
      const y = labels[k]!;
      let loss = 0;
      for (let i = 0; i < y.length; i++) if (y[i] !== yTrue[i]) loss += a[i]!;
      out[k] = loss - energyOf(unary, potts, x, y) + eTrue;
    }
  }
}

function energyOf(unary: Float64Array, potts: Float64Array, x: SegmentationGraph, y: SegmentationLabel): number {
  let e = 0;
  for (let i = 0; i < unary.length; i++) e += y[i] ? unary[i]! : -unary[i]!;
  for (let k = 0; k < potts.length; k++) if (y[x.edgeFrom[k]!] !== y[x.edgeTo[k]!]) e += potts[k]!;
  return e;
}

/**
 * The segmentation loss. StructuredModel.loss receives no input, so the areas travel with the ground
 * truth: {@link SegmentationModel.validate} (called by modelProblem on every example) and {@link withAreas}
 * attach them; `areas` overrides; a ground truth without areas weighs every node 1.
 */
export function segmentationLoss(yTrue: SegmentationLabel, y: SegmentationLabel, areas: Float64Array | undefined, kind: SegmentationLoss = 'hammingBalanced'): number {
  check(yTrue.length === y.length, () => `labels have ${yTrue.length} and ${y.length} entries`);
  const ar = areas ?? areasOf(yTrue);
  let fg = 0;
  let bg = 0;
  let fn = 0;
  let fp = 0;
  for (let i = 0; i < y.length; i++) {
    const s = ar ? ar[i]! : 1;
    if (yTrue[i]) {
      fg += s;
      if (!y[i]) fn += s;
    } else {
      bg += s;
      if (y[i]) fp += s;
    }
  }
  if (kind === 'hamming') return (fn + fp) / (fg + bg);
  if (fg === 0) return fp / bg;
  if (bg === 0) return fn / fg;
  return (fn / fg + fp / bg) / 2;
}

const AREAS = new WeakMap<SegmentationLabel, Float64Array>();

/** Attaches superpixel areas to a ground-truth label so that `loss(yTrue, y)` is area-weighted. */
export function withAreas(y: SegmentationLabel, areas: Float64Array): SegmentationLabel {
  check(areas.length === y.length, () => `areas have ${areas.length} entries for ${y.length} superpixels`);
  AREAS.set(y, areas);
  return y;
}

function areasOf(y: SegmentationLabel): Float64Array | undefined {
  return AREAS.get(y);
}

/** Checks shapes (dUnary unary and dPairwise pairwise features), node ids, finiteness and areas of one graph; InputError naming `where`. */
export function checkSegmentationGraph(x: SegmentationGraph, dUnary: number, dPairwise: number, where: string): void {
  if (typeof x !== 'object' || x === null) throw new InputError(`${where}: a segmentation input must be an object`);
  const N = x.numNodes;
  check(Number.isInteger(N) && N >= 1, `${where}: numNodes must be a positive integer, got ${N}`);
  check(x.unary instanceof Float32Array && x.unary.length === N * dUnary, () => `${where}: unary must be a Float32Array of N*dUnary = ${N}*${dUnary} values`);
  check(x.edgeFrom instanceof Int32Array && x.edgeTo instanceof Int32Array && x.edgeFrom.length === x.edgeTo.length, `${where}: edgeFrom and edgeTo must be Int32Arrays of one length`);
  const E = x.edgeFrom.length;
  check(x.pairwise instanceof Float32Array && x.pairwise.length === E * dPairwise, () => `${where}: pairwise must be a Float32Array of E*dPairwise = ${E}*${dPairwise} values`);
  check(x.areas instanceof Float64Array && x.areas.length === N, `${where}: areas must be a Float64Array of ${N} values`);
  for (let e = 0; e < E; e++) {
    const a = x.edgeFrom[e]!;
    const b = x.edgeTo[e]!;
    check(a >= 0 && a < N && b >= 0 && b < N && a !== b, () => `${where}: edge ${e} joins ${a} and ${b} (nodes are 0..${N - 1}, no self-loops)`);
  }
  for (let i = 0; i < N; i++) check(x.areas[i]! > 0 && Number.isFinite(x.areas[i]), () => `${where}: area of superpixel ${i} is ${x.areas[i]} (must be > 0)`);
  for (const [name, a] of [['unary', x.unary], ['pairwise', x.pairwise]] as const) {
    for (let j = 0; j < a.length; j++) if (!Number.isFinite(a[j])) throw new InputError(`${where}: ${name}[${j}] is ${a[j]}`);
  }
}

/** Every labelling's energy, by enumeration (tests; N <= 20). */
export function bruteForceMin(cost0: Float64Array, cost1: Float64Array, potts: Float64Array, edgeFrom: Int32Array, edgeTo: Int32Array): { energy: number; label: Uint8Array } {
  const N = cost0.length;
  check(N <= 20, 'brute force is for at most 20 nodes');
  let best = Infinity;
  let arg = 0;
  for (let m = 0; m < 1 << N; m++) {
    let e = 0;
    for (let i = 0; i < N; i++) e += (m >> i) & 1 ? cost1[i]! : cost0[i]!;
    for (let k = 0; k < potts.length; k++) if (((m >> edgeFrom[k]!) & 1) !== ((m >> edgeTo[k]!) & 1)) e += potts[k]!;
    if (e < best) {
      best = e;
      arg = m;
    }
  }
  const label = new Uint8Array(N);
  for (let i = 0; i < N; i++) label[i] = (arg >> i) & 1;
  return { energy: best, label };
}

/**
 * The batched oracle of the segmentation model (DESIGN seam 4, run by src/engine): the images are handed to a
 * prepared native batch once (features, graphs, ground truth and the loss weights a_i; native/scoring/
 * segmentation.h), with one set of cut-capacity arrays per image that the max-flow specs point at. Per call,
 * the items' s-t cut capacities come from the native scorer (u_i = f_i^T w_U and p_e = f_ij^T w_P with
 * score_rows' arithmetic, the loss augmentation, Potts weights clipped at 0), or for a whole pass from a
 * non-native scoring backend (gpu.js, TypeScript) through the model's own cut construction; the cuts of all
 * items are solved at once on native threads (a prepared MaxflowBatch: each image's graph keeps its native memory
 * and arc layout from pass to pass); and each H_i(w) = L(y_i, y) - <w, psi_i(y)> is
 * recomputed in float64 from the decoded labelling, <w, psi> natively with the arithmetic of the model's psi,
 * so exactly as the per-object path computes it.
 */
function segmentationBatch(
  model: SegmentationModel,
  xs: readonly SegmentationGraph[],
  ys: readonly SegmentationLabel[],
  scoring?: ScoringBackend,
  threads: number = Math.min(availableParallelism(), 256),
): BatchDecoder<SegmentationLabel> {
  const { dUnary: dU, dPairwise: dP } = model;
  const n = xs.length;
  const images = xs.map((x, i) => ({
    unary: x.unary,
    pairwise: x.pairwise,
    edgeFrom: x.edgeFrom,
    edgeTo: x.edgeTo,
    truth: ys[i]!,
    lossWeights: model.lossWeights(x, ys[i]!),
    source: new Float64Array(x.numNodes),
    sink: new Float64Array(x.numNodes),
    potts: new Float64Array(x.edgeFrom.length),
  }));
  const batch = new native.SegmentationBatch({ dUnary: dU, dPairwise: dP, images });
  // The cut of image i: source side = label 0 (background); its capacities are rewritten in place per call.
  const specs: MaxflowGraphSpec[] = images.map((im, i) => ({ numNodes: xs[i]!.numNodes, edgeFrom: im.edgeFrom, edgeTo: im.edgeTo, capFwd: im.potts, capRev: im.potts, sourceCap: im.source, sinkCap: im.sink, capType: 'float64' }));
  const cuts = new MaxflowBatch(specs);
  const backend = scoring && scoring.name !== 'native' ? scoring : undefined;
  const rows = backend && xs.map((x) => ({ unary: backend.prepare(x.unary, x.numNodes, dU), pairwise: backend.prepare(x.pairwise, x.edgeFrom.length, dP) }));
  const segments: (SegmentationLabel | undefined)[] = new Array(n);
  const dots = new Float64Array(n);
  const each = (items: Items | null, f: (i: number) => void) => {
    if (items) for (let q = 0; q < items.count; q++) f(items.indices[q]!);
    else for (let i = 0; i < n; i++) f(i);
  };
  let scoringMs = 0;
  return {
    size: n,
    score: (w, items, plain) => {
      const t0 = performance.now();
      if (rows && items === null) {
        const wU = w.subarray(0, dU);
        const wP = w.subarray(dU);
        for (let i = 0; i < n; i++) {
          const x = xs[i]!;
          const unary = new Float64Array(x.numNodes);
          const potts = new Float64Array(x.edgeFrom.length);
          backend!.score(rows[i]!.unary, wU, 1, unary);
          backend!.score(rows[i]!.pairwise, wP, 1, potts);
          const graph = model.cutGraph(model.cutFromPotentials(unary, potts, x, plain ? null : ys[i]!), x);
          images[i]!.source.set(graph.sourceCap);
          images[i]!.sink.set(graph.sinkCap);
          images[i]!.potts.set(graph.capFwd as Float64Array);
        }
      } else {
        model.stats.clippedEdges += batch.capacities({ w, augmented: !plain, ...itemsOption(items), threads });
      }
      scoringMs = performance.now() - t0;
    },
    decode: (_w, items) => {
      const t0 = performance.now();
      cuts.solveSync({ ...itemsOption(items), threads });
      // SOURCE_SIDE = 0 = background, SINK_SIDE = 1 = foreground; a copy, since the batch's array is rewritten by the next call.
      each(items, (i) => (segments[i] = cuts.segments(i).slice()));
      model.countCall(scoringMs, performance.now() - t0, items ? items.count : n);
    },
    recheck: (w, items, hinge) => {
      batch.psiDots({ w, labels: segments, dots, ...itemsOption(items), threads });
      each(items, (i) => (hinge[i] = model.loss(ys[i]!, segments[i]!) - dots[i]!));
    },
    label: (i) => segments[i]!,
    truth: (i) => ys[i]!.slice(),
    release: () => {
      batch.release();
      cuts.dispose();
    },
  };
}
