import { describe, expect, it } from 'vitest';
import { bruteForceMin, segmentationLoss, SegmentationModel, withAreas, type SegmentationGraph } from '../src/models/segmentation.js';
import { Rng } from '../src/core/rng.js';
import { dotSparse } from '../src/core/vector.js';
import { InputError } from '../src/core/errors.js';
import { modelProblem } from '../src/engine/problem.js';
import { train } from '../src/solvers/index.js';

const DU = 3;
const DP = 2;

function randomGraph(rng: Rng, N: number, edgeProb: number): SegmentationGraph {
  const from: number[] = [];
  const to: number[] = [];
  for (let a = 0; a < N; a++) for (let b = a + 1; b < N; b++) if (rng.next() < edgeProb) (rng.next() < 0.5 ? (from.push(a), to.push(b)) : (from.push(b), to.push(a)));
  const E = from.length;
  const unary = new Float32Array(N * DU);
  for (let i = 0; i < N; i++) {
    unary[i * DU] = 1;
    for (let j = 1; j < DU; j++) unary[i * DU + j] = Math.fround(rng.next() * 2 - 1);
  }
  const pairwise = new Float32Array(E * DP);
  for (let k = 0; k < pairwise.length; k++) pairwise[k] = Math.fround(rng.next());
  const areas = new Float64Array(N);
  for (let i = 0; i < N; i++) areas[i] = 1 + rng.int(50);
  return { numNodes: N, unary, edgeFrom: Int32Array.from(from), edgeTo: Int32Array.from(to), pairwise, areas };
}

function randomW(rng: Rng, scale: number): Float64Array {
  const w = new Float64Array(DU + DP);
  for (let j = 0; j < DU; j++) w[j] = (rng.next() * 2 - 1) * scale;
  for (let j = DU; j < DU + DP; j++) w[j] = rng.next() * scale;
  return w;
}

function randomLabel(rng: Rng, N: number, mode: 'mixed' | 'fg' | 'bg'): Uint8Array {
  const y = new Uint8Array(N);
  for (let i = 0; i < N; i++) y[i] = mode === 'fg' ? 1 : mode === 'bg' ? 0 : rng.int(2);
  return y;
}

function* labellings(N: number): Generator<Uint8Array> {
  for (let m = 0; m < 1 << N; m++) {
    const y = new Uint8Array(N);
    for (let i = 0; i < N; i++) y[i] = (m >> i) & 1;
    yield y;
  }
}

function cutEnergy(c: { cost0: Float64Array; cost1: Float64Array; potts: Float64Array }, x: SegmentationGraph, y: Uint8Array): number {
  let e = 0;
  for (let i = 0; i < y.length; i++) e += y[i] ? c.cost1[i]! : c.cost0[i]!;
  for (let k = 0; k < c.potts.length; k++) if (y[x.edgeFrom[k]!] !== y[x.edgeTo[k]!]) e += c.potts[k]!;
  return e;
}

describe('SegmentationModel: energy, loss and its exact augmentation', () => {
  for (const lossKind of ['hammingBalanced', 'hamming'] as const) {
    it(`augmented energy = energy - loss for every labelling (${lossKind}, N <= 6, one-class truths included)`, () => {
      const rng = new Rng(7);
      const model = new SegmentationModel({ dUnary: DU, dPairwise: DP, loss: lossKind });
      let checked = 0;
      for (let trial = 0; trial < 30; trial++) {
        const N = 1 + (trial % 6);
        const x = randomGraph(rng, N, 0.6);
        const yTrue = randomLabel(rng, N, (['mixed', 'fg', 'bg'] as const)[trial % 3]!);
        model.validate(x, yTrue, 'test');
        const w = randomW(rng, 2);
        const aug = model.cutPotentials(w, x, yTrue);
        const plain = model.cutPotentials(w, x, null);
        const eTrue = model.energy(w, x, yTrue);
        const labels = [...labellings(N)];
        const scores = new Float64Array(labels.length);
        model.labelScores(w, x, yTrue, labels, scores);
        labels.forEach((y, k) => {
          const E = model.energy(w, x, y);
          const L = model.loss(yTrue, y);
          expect(L).toBeCloseTo(segmentationLoss(yTrue, y, x.areas, lossKind), 12);
          expect(cutEnergy(plain, x, y)).toBeCloseTo(E, 10);
          expect(cutEnergy(aug, x, y)).toBeCloseTo(E - L, 10);
          // <w, psi(y*, y)> = <w, phi(y*)> - <w, phi(y)> = E(y) - E(y*), and the score is L - <w, psi>.
          expect(dotSparse(w, model.psi(x, yTrue, y))).toBeCloseTo(E - eTrue, 9);
          expect(scores[k]).toBeCloseTo(L - E + eTrue, 9);
          checked++;
        });
        expect(model.loss(yTrue, yTrue)).toBe(0);
      }
      expect(checked).toBeGreaterThan(300);
    });
  }

  it('the class-normalised loss by hand, with the single-class cases', () => {
    const areas = Float64Array.of(10, 30, 20, 40);
    const yTrue = Uint8Array.of(1, 1, 0, 0); // FG 40, BG 60
    // FN area 10 (node 0), FP area 40 (node 3): (10/40 + 40/60) / 2
    expect(segmentationLoss(yTrue, Uint8Array.of(0, 1, 0, 1), areas)).toBeCloseTo((10 / 40 + 40 / 60) / 2, 14);
    expect(segmentationLoss(yTrue, Uint8Array.of(0, 1, 0, 1), areas, 'hamming')).toBeCloseTo(50 / 100, 14);
    expect(segmentationLoss(Uint8Array.of(1, 1, 1, 1), Uint8Array.of(0, 1, 0, 1), areas)).toBeCloseTo(30 / 100, 14);
    expect(segmentationLoss(Uint8Array.of(0, 0, 0, 0), Uint8Array.of(0, 1, 0, 1), areas)).toBeCloseTo(70 / 100, 14);
    // the ground truth carries its areas after withAreas / validate
    const model = new SegmentationModel({ dUnary: 1, dPairwise: 1 });
    const yt = withAreas(Uint8Array.of(1, 1, 0, 0), areas);
    expect(model.loss(yt, Uint8Array.of(0, 0, 1, 1))).toBe(1);
    expect(model.loss(yt, Uint8Array.of(0, 1, 0, 1))).toBeCloseTo((10 / 40 + 40 / 60) / 2, 14);
  });
});

describe('SegmentationModel: graph-cut oracle = brute force', () => {
  for (const reuseGraphs of [false, true]) {
    it(`loss-augmented and plain decoding on graphs of up to 12 nodes (reuseGraphs=${reuseGraphs})`, () => {
      const rng = new Rng(11);
      const model = new SegmentationModel({ dUnary: DU, dPairwise: DP, reuseGraphs });
      const graphs = Array.from({ length: 40 }, (_, t) => randomGraph(rng, 1 + (t % 12), t % 4 === 0 ? 0.9 : 0.35));
      for (let round = 0; round < 3; round++) {
        graphs.forEach((x, t) => {
          const N = x.numNodes;
          const yTrue = randomLabel(rng, N, (['mixed', 'mixed', 'fg', 'bg'] as const)[t % 4]!);
          model.validate(x, yTrue, 'test');
          const w = randomW(rng, [0.05, 1, 5][round]!);
          for (const truth of [yTrue, null]) {
            const c = model.cutPotentials(w, x, truth);
            const best = bruteForceMin(c.cost0, c.cost1, c.potts, x.edgeFrom, x.edgeTo);
            const y = truth ? model.lossAugmentedDecode(w, x, truth) : model.decode(w, x);
            expect(y.length).toBe(N);
            const got = truth ? model.energy(w, x, y) - model.loss(truth, y) : model.energy(w, x, y);
            expect(got).toBeCloseTo(best.energy, 9);
          }
        });
      }
      expect(model.stats.calls).toBe(240);
      expect(model.stats.clippedEdges).toBe(0);
    });
  }

  it('clips negative Potts weights at 0 (and counts them)', () => {
    const model = new SegmentationModel({ dUnary: 1, dPairwise: 1, positivity: false });
    expect(model.bounds).toBeUndefined();
    // two nodes that both prefer label 1, joined by a negative Potts weight: the clipped energy keeps them equal.
    const x: SegmentationGraph = { numNodes: 2, unary: Float32Array.of(1, 1), edgeFrom: Int32Array.of(0), edgeTo: Int32Array.of(1), pairwise: Float32Array.of(1), areas: Float64Array.of(1, 1) };
    const y = model.decode(Float64Array.of(-1, -5), x);
    expect([...y]).toEqual([1, 1]);
    expect(model.stats.clippedEdges).toBe(1);
  });
});

describe('SegmentationModel: interface details', () => {
  it('declares lower bound 0 on the pairwise weights only', () => {
    const model = new SegmentationModel({ dUnary: 1969, dPairwise: 100 });
    expect(model.dim).toBe(2069);
    const lo = model.bounds!.lower!;
    expect(lo.slice(0, 1969).every((v) => v === -Infinity)).toBe(true);
    expect(lo.slice(1969).every((v) => v === 0)).toBe(true);
    expect(model.bounds!.upper!.every((v) => v === Infinity)).toBe(true);
  });

  it('labels round-trip through JSON and keys', () => {
    const model = new SegmentationModel({ dUnary: 1, dPairwise: 1 });
    const y = Uint8Array.of(0, 1, 1, 0);
    expect(model.labelKey(y)).toBe('0110');
    expect([...model.labelFromJSON(JSON.parse(JSON.stringify(model.labelToJSON(y))))]).toEqual([0, 1, 1, 0]);
    expect(() => model.labelFromJSON('012')).toThrow(InputError);
  });

  it('rejects malformed inputs with InputError', () => {
    const model = new SegmentationModel({ dUnary: 1, dPairwise: 1 });
    const ok: SegmentationGraph = { numNodes: 2, unary: Float32Array.of(1, 1), edgeFrom: Int32Array.of(0), edgeTo: Int32Array.of(1), pairwise: Float32Array.of(1), areas: Float64Array.of(1, 1) };
    expect(() => model.validate(ok, Uint8Array.of(0, 1), 'x')).not.toThrow();
    expect(() => model.validate(ok, Uint8Array.of(0, 2), 'x')).toThrow(/must be 0 or 1/);
    expect(() => model.validate(ok, Uint8Array.of(0), 'x')).toThrow(InputError);
    expect(() => model.validate({ ...ok, edgeTo: Int32Array.of(0) }, Uint8Array.of(0, 1), 'x')).toThrow(/self-loops/);
    expect(() => model.validate({ ...ok, edgeTo: Int32Array.of(5) }, Uint8Array.of(0, 1), 'x')).toThrow(InputError);
    expect(() => model.validate({ ...ok, areas: Float64Array.of(1, 0) }, Uint8Array.of(0, 1), 'x')).toThrow(/area/);
    expect(() => model.validate({ ...ok, unary: Float32Array.of(1, NaN) }, Uint8Array.of(0, 1), 'x')).toThrow(/NaN/);
    expect(() => model.validate({ ...ok, pairwise: Float32Array.of(1, 1) }, Uint8Array.of(0, 1), 'x')).toThrow(InputError);
    expect(() => model.decode(new Float64Array(3), ok)).toThrow(InputError);
  });
});

describe('SegmentationModel with the BCFW engine', () => {
  it('trains on tiny separable graphs, keeps the pairwise weights >= 0 and reaches zero training loss', () => {
    const rng = new Rng(3);
    const model = new SegmentationModel({ dUnary: DU, dPairwise: DP });
    const xs: SegmentationGraph[] = [];
    const ys: Uint8Array[] = [];
    for (let n = 0; n < 12; n++) {
      const x = randomGraph(rng, 4 + (n % 5), 0.5);
      // the truth follows the sign of feature 1: learnable by the unaries
      const y = new Uint8Array(x.numNodes);
      for (let i = 0; i < x.numNodes; i++) y[i] = x.unary[i * DU + 1]! > 0 ? 1 : 0;
      // pairwise feature 1 repels (pushes weight negative if unconstrained): make it large on disagreeing edges
      for (let e = 0; e < x.edgeFrom.length; e++) x.pairwise[e * DP + 1] = y[x.edgeFrom[e]!] !== y[x.edgeTo[e]!] ? 1 : 0;
      xs.push(x);
      ys.push(y);
    }
    const problem = modelProblem(model, xs, ys);
    const result = train(problem, { lambda: 0.01, maxPasses: 200, gapThreshold: 1e-4, seed: 1 });
    const w = result.w;
    for (let j = DU; j < DU + DP; j++) expect(w[j]).toBeGreaterThanOrEqual(0);
    let err = 0;
    for (let n = 0; n < xs.length; n++) err += model.loss(ys[n]!, model.decode(w, xs[n]!));
    expect(err / xs.length).toBeLessThan(0.05);
  });
});
