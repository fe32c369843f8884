/**
 * The graph-labelling model (src/models/graph.ts) against enumeration, and the honest certificates of approximate
 * oracles (src/core/approximate.ts): an exact pass with an approximate oracle reports gapIsExact false, oracle
 * 'approximate' and, where the oracle has bounds, an upper bound that holds against brute force; with exact oracles
 * everything stays exact. Training tiny exact problems reaches the enumerated optimum with every solver switch.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../src/core/rng.js';
import { dotSparse, type SparseVector } from '../src/core/vector.js';
import { markApproximate, oracleSlack } from '../src/core/approximate.js';
import type { StructuredModel } from '../src/core/problem.js';
import type { BatchDecoder } from '../src/core/batch.js';
import { modelProblem } from '../src/engine/problem.js';
import { GraphModel, withNodeWeights, type GraphInput, type GraphLabel, type GraphModelOptions } from '../src/models/graph.js';
import { fullOraclePass, type SolverResult } from '../src/solvers/common.js';
import { train, type TrainSettings } from '../src/solvers/index.js';
import { combineGapPartials, gapPartial } from '../src/engine/gap-shards.js';
import { labellings, randomForest, randomLoopy } from './helpers/mrf.js';

/** A random graph with F dense node features (and Fe edge features) and random labels. */
function randomGraph(rng: Rng, N: number, edges: [number, number][], F: number, K: number, Fe = 0): { x: GraphInput; y: GraphLabel } {
  const rowStart = Int32Array.from({ length: N + 1 }, (_, i) => i * F);
  const x: GraphInput = {
    numNodes: N,
    rowStart,
    indices: Int32Array.from({ length: N * F }, (_, p) => p % F),
    values: Float32Array.from({ length: N * F }, () => rng.next() * 2 - 1),
    edgeFrom: Int32Array.from(edges, (e) => e[0]),
    edgeTo: Int32Array.from(edges, (e) => e[1]),
  };
  if (Fe > 0) x.edgeFeatures = Float32Array.from({ length: edges.length * Fe }, () => rng.next());
  return { x, y: Int32Array.from({ length: N }, () => rng.int(K)) };
}

/** H(w) = max_y L(y*, y) - <w, psi(y)> by enumeration. */
function bruteHinge(model: GraphModel, x: GraphInput, yTrue: GraphLabel, w: Float64Array): number {
  let best = -Infinity;
  for (const y of labellings(x.numNodes, model.numLabels)) best = Math.max(best, model.loss(yTrue, y) - dotSparse(w, model.psi(x, yTrue, y)));
  return best;
}

function randomW(rng: Rng, dim: number, scale = 1): Float64Array {
  return Float64Array.from({ length: dim }, () => (rng.next() * 2 - 1) * scale);
}

const SHAPES: [string, Partial<GraphModelOptions>][] = [
  ['potts', { pairwise: 'potts' }],
  ['full', { pairwise: 'full' }],
  ['potts, 2 edge features', { pairwise: 'potts', numEdgeFeatures: 2 }],
  ['full, 2 edge features, balanced loss', { pairwise: 'full', numEdgeFeatures: 2, loss: 'balanced' }],
];

describe.each(SHAPES)('graph model (%s)', (_name, shape) => {
  const F = 3;
  const K = 3;
  const model = new GraphModel({ numFeatures: F, numLabels: K, ...shape, positivity: false });
  const rng = new Rng(23);

  it('labelScores = L - <w, psi> for every labelling, psi of the truth is 0, and the loss is its node-weighted formula', () => {
    for (let trial = 0; trial < 8; trial++) {
      const N = 2 + rng.int(3);
      const { x, y } = randomGraph(rng, N, randomLoopy(rng, N, 1), F, K, model.numEdgeFeatures);
      if (trial % 2) withNodeWeights(y, Float64Array.from({ length: N }, () => 0.5 + rng.next()));
      model.validate(x, y, 'example');
      const w = randomW(rng, model.dim);
      const all = [...labellings(N, K)];
      const out = new Float64Array(all.length);
      model.labelScores(w, x, y, all, out);
      all.forEach((z, k) => expect(out[k]).toBeCloseTo(model.loss(y, z) - dotSparse(w, model.psi(x, y, z)), 10));
      expect(model.psi(x, y, y).nnz).toBe(0);
      expect(model.loss(y, y)).toBe(0);
      // Every node wrong: the loss is 1 for both kinds (hamming: all the weight; balanced: every class all wrong).
      expect(model.loss(y, y.map((k) => (k + 1) % K))).toBeCloseTo(1, 12);
    }
  });

  it('the loss-augmented oracle is exact on trees (unmarked) and matches enumeration', () => {
    for (let trial = 0; trial < 10; trial++) {
      const N = 2 + rng.int(4);
      const { x, y } = randomGraph(rng, N, randomForest(rng, N), F, K, model.numEdgeFeatures);
      const w = randomW(rng, model.dim, 2);
      const label = model.lossAugmentedDecode(w, x, y);
      expect(oracleSlack(label)).toBe(0);
      expect(model.loss(y, label) - dotSparse(w, model.psi(x, y, label))).toBeCloseTo(bruteHinge(model, x, y, w), 10);
    }
  });
});

describe('approximate oracles: honest certificates', () => {
  const F = 3;
  const K = 3;
  /** Loopy graphs with frustrated full tables, where the LP relaxation is not always tight. */
  function loopyData(seed: number, n: number) {
    const rng = new Rng(seed);
    const xs: GraphInput[] = [];
    const ys: GraphLabel[] = [];
    for (let i = 0; i < n; i++) {
      const N = 4 + rng.int(3);
      const { x, y } = randomGraph(rng, N, randomLoopy(rng, N, 3), F, K);
      xs.push(x);
      ys.push(y);
    }
    return { xs, ys };
  }

  it('the LP oracle: H from its labels <= the true H <= H + slack, per example and summed by the exact pass', () => {
    const { xs, ys } = loopyData(29, 30);
    const model = new GraphModel({ numFeatures: F, numLabels: K, pairwise: 'full', inference: { routine: 'lp', lpIterations: 50 } });
    const problem = modelProblem(model, xs, ys);
    const rng = new Rng(31);
    let approximate = 0;
    for (let trial = 0; trial < 4; trial++) {
      const w = randomW(rng, model.dim, 3);
      const pass = fullOraclePass(problem, w);
      let trueSum = 0;
      let slackSum = 0;
      xs.forEach((x, i) => {
        const truth = bruteHinge(model, x, ys[i]!, w);
        const label = model.lossAugmentedDecode(w, x, ys[i]!);
        const h = model.loss(ys[i]!, label) - dotSparse(w, model.psi(x, ys[i]!, label));
        expect(h).toBeLessThanOrEqual(truth + 1e-9);
        expect(truth).toBeLessThanOrEqual(h + oracleSlack(label) + 1e-9);
        expect(pass.hinge[i]).toBeCloseTo(Math.max(h, 0), 10);
        trueSum += truth;
        slackSum += oracleSlack(label);
        if (oracleSlack(label) > 0) approximate++;
      });
      expect(pass.exact).toBe(slackSum === 0);
      expect(pass.slack).toBeCloseTo(slackSum, 9);
      expect(pass.hingeSum).toBeLessThanOrEqual(trueSum + 1e-9);
      expect(trueSum).toBeLessThanOrEqual(pass.hingeSum + pass.slack + 1e-9);
    }
    expect(approximate).toBeGreaterThan(0); // the test saw approximate calls
  });

  it('training with the LP oracle: gapIsExact false and an upper bound that holds (true gap by enumeration) when a call was approximate', () => {
    const { xs, ys } = loopyData(37, 12);
    const model = new GraphModel({ numFeatures: F, numLabels: K, pairwise: 'full', inference: { routine: 'lp', lpIterations: 3 } });
    const problem = modelProblem(model, xs, ys);
    const lambda = 0.01;
    let approximateRuns = 0;
    // An exact pass after every pass of BCFW (batch FW and the cutting plane make one per iteration).
    for (const options of [{ solver: 'bcfw', gapCheck: 1 }, { solver: 'fw' }, { solver: 'cutting-plane' }] as TrainSettings[]) {
      const r = train(problem, { ...options, lambda, maxPasses: 3, gapThreshold: 0 });
      const pass = fullOraclePass(problem, r.w);
      const trueGap = r.gap! + xs.reduce((s, x, i) => s + bruteHinge(model, x, ys[i]!, r.w), 0) / xs.length - pass.hingeSum / xs.length;
      if (pass.exact) {
        expect(r.gapIsExact).toBe(true);
        continue;
      }
      approximateRuns++;
      expect(r.gapIsExact).toBe(false);
      expect(r.approximateOracle).toBe(true);
      expect(r.trace.at(-1)!.oracle).toBe('approximate');
      expect(r.gap!).toBeLessThanOrEqual(trueGap + 1e-9);
      expect(trueGap).toBeLessThanOrEqual(r.gapUpperBound! + 1e-9);
      expect(r.thresholdReached).toBe(false); // threshold 0: the bound is above it
    }
    expect(approximateRuns).toBeGreaterThan(0);
  });

  it('alpha-expansion has no bound: approximate, without gapUpperBound; trees stay exact whatever routine is named', () => {
    const rng = new Rng(41);
    const loopy = Array.from({ length: 8 }, () => randomGraph(rng, 6, randomLoopy(rng, 6, 3), F, K));
    const expansion = new GraphModel({ numFeatures: F, numLabels: K, pairwise: 'potts', inference: { routine: 'expansion' } });
    const r = train(modelProblem(expansion, loopy.map((g) => g.x), loopy.map((g) => g.y)), { lambda: 0.1, maxPasses: 20 });
    expect(r.gapIsExact).toBe(false);
    expect(r.approximateOracle).toBe(true);
    expect(r.gapUpperBound).toBeUndefined();
    expect(r.thresholdReached).toBeUndefined();
    expect(r.trace.filter((e) => e.primal !== undefined).every((e) => e.gapIsExact === false && e.oracle === 'approximate')).toBe(true);
    const trees = Array.from({ length: 8 }, () => randomGraph(rng, 6, randomForest(rng, 6, 1), F, K));
    for (const routine of ['auto', 'lp', 'expansion'] as const) {
      const model = new GraphModel({ numFeatures: F, numLabels: K, pairwise: 'full', inference: { routine, lpIterations: 2000 } });
      const t = train(modelProblem(model, trees.map((g) => g.x), trees.map((g) => g.y)), { lambda: 0.1, maxPasses: 20 });
      // DP by default; the LP is tight on trees, its bound proves every label; expansion does not apply to full tables.
      expect(t.gapIsExact, routine).toBe(true);
      expect(t.approximateOracle).toBeUndefined();
      expect(t.trace.every((e) => e.oracle === undefined)).toBe(true);
    }
  });
});

/**
 * A multiclass toy whose oracle is approximate on purpose: it answers the second-best class of examples listed in
 * `approximate` and marks it (a wrapped label) with the gap to the best. Its batched decoder does the same through
 * BatchDecoder.oracleSlack.
 */
function toyModel(approximate: Set<number>, batched: boolean): StructuredModel<{ i: number; x: Float64Array }, Int32Array> {
  const K = 3;
  const D = 2;
  const scores = (w: Float64Array, x: { x: Float64Array }, yTrue: Int32Array | null) =>
    Array.from({ length: K }, (_, k) => (yTrue && k !== yTrue[0] ? 1 : 0) + x.x[0]! * w[k * D]! + x.x[1]! * w[k * D + 1]!);
  const phiDiff = (x: { x: Float64Array }, a: number, b: number): SparseVector => {
    const m = new Map<number, number>();
    for (let j = 0; j < D; j++) {
      m.set(a * D + j, (m.get(a * D + j) ?? 0) + x.x[j]!);
      m.set(b * D + j, (m.get(b * D + j) ?? 0) - x.x[j]!);
    }
    const keys = [...m.keys()].filter((k) => m.get(k) !== 0).sort((p, q) => p - q);
    return { indices: Int32Array.from(keys), values: Float64Array.from(keys, (k) => m.get(k)!), nnz: keys.length };
  };
  const oracle = (w: Float64Array, x: { i: number; x: Float64Array }, yTrue: Int32Array): [Int32Array, number] => {
    const s = scores(w, x, yTrue);
    const order = [0, 1, 2].sort((a, b) => s[b]! - s[a]! || a - b);
    if (!approximate.has(x.i)) return [Int32Array.of(order[0]!), 0];
    // The second best, unless the truth is (the oracle never answers worse than the truth).
    const pick = order[1] === yTrue[0] || order[0] === yTrue[0] ? yTrue[0]! : order[1]!;
    return [Int32Array.of(pick), s[order[0]!]! - s[pick]! + 0.25];
  };
  const model: StructuredModel<{ i: number; x: Float64Array }, Int32Array> = {
    dim: K * D,
    lossAugmentedDecode: (w, x, yTrue) => {
      const [y, slack] = oracle(w, x, yTrue);
      return slack > 0 ? markApproximate(y, slack) : y;
    },
    decode: (w, x) => Int32Array.of([0, 1, 2].reduce((b, k) => (scores(w, x, null)[k]! > scores(w, x, null)[b]! ? k : b), 0)),
    psi: (x, yTrue, y) => phiDiff(x, yTrue[0]!, y[0]!),
    loss: (yTrue, y) => (yTrue[0] === y[0] ? 0 : 1),
    labelKey: (y) => String(y[0]),
    validate: () => {},
    labelScores: (w, x, yTrue, labels, out) => labels.forEach((y, k) => (out[k] = model.loss(yTrue, y) - dotSparse(w, model.psi(x, yTrue, y)))),
    labelToJSON: (y) => y[0],
    labelFromJSON: (v) => Int32Array.of(v as number),
  };
  if (!batched) return model;
  return {
    ...model,
    prepareBatch: (xs, ys): BatchDecoder<Int32Array> => {
      const labels: Int32Array[] = [];
      const slacks = new Float64Array(xs.length);
      let at = new Float64Array(0);
      const each = (items: { indices: Int32Array; count: number } | null, f: (i: number) => void) => {
        if (items) for (let q = 0; q < items.count; q++) f(items.indices[q]!);
        else for (let i = 0; i < xs.length; i++) f(i);
      };
      return {
        size: xs.length,
        score: (w) => (at = w.slice()),
        decode: (_w, items) => each(items, (i) => ([labels[i], slacks[i]] = oracle(at, xs[i]!, ys[i]!))),
        recheck: (w, items, hinge) => each(items, (i) => (hinge[i] = model.loss(ys[i]!, labels[i]!) - dotSparse(w, model.psi(xs[i]!, ys[i]!, labels[i]!)))),
        oracleSlack: (i) => slacks[i]!,
        label: (i) => labels[i]!.slice(),
        truth: (i) => ys[i]!.slice(),
      };
    },
  };
}

describe('the certificate mechanism is general: any model, every solver, per-object and batched passes', () => {
  const rng = new Rng(43);
  const n = 10;
  const xs = Array.from({ length: n }, (_, i) => ({ i, x: Float64Array.from({ length: 2 }, () => rng.next() * 2 - 1) }));
  const ys = Array.from({ length: n }, () => Int32Array.of(rng.int(3)));
  const runs: [string, TrainSettings][] = [
    ['bcfw', { solver: 'bcfw' }],
    ['bcpfw + gap sampling + cache', { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: { maxSize: 10, factor: 0.25, nu: 0.01 } }],
    ['fw', { solver: 'fw' }],
    ['cutting-plane', { solver: 'cutting-plane' }],
  ];
  const check = (r: SolverResult, approximate: boolean) => {
    expect(r.gapIsExact).toBe(!approximate);
    expect(r.approximateOracle).toBe(approximate ? true : undefined);
    if (approximate) expect(r.gapUpperBound!).toBeGreaterThan(r.gap!);
    else expect(r.gapUpperBound).toBeUndefined();
  };
  for (const batched of [false, true]) {
    it.each(runs)(`%s, ${batched ? 'batched' : 'per-object'} passes: approximate calls make the gap inexact; none keeps it exact`, (_name, options) => {
      for (const approximate of [new Set<number>(), new Set([3, 7])]) {
        const problem = modelProblem(toyModel(approximate, batched), xs, ys);
        expect(problem.batch !== undefined).toBe(batched);
        check(train(problem, { ...options, lambda: 0.1, maxPasses: 30 }), approximate.size > 0);
      }
    });
  }
});

describe('training tiny exact graph problems reaches the enumerated optimum with every solver switch', () => {
  const rng = new Rng(47);
  // Trees with full K x K tables (exact DP) and loopy K = 2 graphs with Potts weights under positivity (exact cuts).
  const cases = [
    { name: 'trees, K = 3, full tables', model: new GraphModel({ numFeatures: 2, numLabels: 3, pairwise: 'full' }), graphs: Array.from({ length: 6 }, () => randomGraph(rng, 3, randomForest(rng, 3, 1), 2, 3)) },
    { name: 'loopy, K = 2, Potts with positivity', model: new GraphModel({ numFeatures: 2, numLabels: 2, pairwise: 'potts', numEdgeFeatures: 1 }), graphs: Array.from({ length: 6 }, () => randomGraph(rng, 4, randomLoopy(rng, 4, 2), 2, 2, 1)) },
  ];
  const lambda = 0.1;
  const threshold = 1e-4;
  const switches: [string, TrainSettings][] = [
    ['bcfw uniform', { solver: 'bcfw', sampling: 'uniform' }],
    ['bcfw perm, no averaging', { solver: 'bcfw', sampling: 'perm', averaging: false }],
    ['bcpfw + gap sampling + cache', { solver: 'bcfw', step: 'pairwise', sampling: 'gap', cache: { maxSize: 20, factor: 0.25, nu: 0.01 } }],
    ['bcafw', { solver: 'bcfw', step: 'away' }],
    ['hybrid', { solver: 'bcfw', step: 'hybrid', sampling: 'gap' }],
    ['cutting-plane', { solver: 'cutting-plane' }],
  ];
  describe.each(cases)('$name', ({ model, graphs }) => {
    const xs = graphs.map((g) => g.x);
    const ys = graphs.map((g) => g.y);
    const problem = modelProblem(model, xs, ys);
    const brutePrimal = (w: Float64Array) => {
      const clipped = model.bounds ? w.map((v, j) => Math.max(v, model.bounds!.lower![j]!)) : w;
      const wSq = clipped.reduce((s, v) => s + v * v, 0);
      return 0.5 * lambda * wSq + xs.reduce((s, x, i) => s + bruteHinge(model, x, ys[i]!, clipped), 0) / xs.length;
    };
    const ref = train(problem, { solver: 'fw', lambda, gapThreshold: threshold, maxPasses: 200000 });
    it('batch FW certifies its optimum; its primal is the enumerated one', () => {
      expect(ref.stopReason).toBe('gap');
      expect(ref.gapIsExact).toBe(true);
      expect(ref.primal).toBeCloseTo(brutePrimal(ref.w), 10);
    });
    it.each(switches)('%s reaches it within the certified radius', (_name, options) => {
      const r = train(problem, { ...options, lambda, gapThreshold: threshold, maxPasses: 200000 } as TrainSettings);
      expect(r.stopReason).toBe('gap');
      expect(r.gapIsExact).toBe(true);
      expect(r.primal).toBeCloseTo(brutePrimal(r.w), 10);
      expect(Math.abs(r.primal! - ref.primal!)).toBeLessThanOrEqual(r.gap! + ref.gap!);
      const distance = Math.sqrt(r.w.reduce((s, v, j) => s + (v - ref.w[j]!) ** 2, 0));
      expect(distance).toBeLessThanOrEqual(Math.sqrt((2 * r.gap!) / lambda) + Math.sqrt((2 * ref.gap!) / lambda));
    });
  });
});

describe('gap shards carry the oracle status', () => {
  const w = Float64Array.of(1, 2);
  const shard = (i: number, oracle?: { exact: boolean; slack: number }) =>
    gapPartial({ w, lambda: 0.5, dual: 1, data: 'd', part: 'train', n: 4, shard: [i, 2], start: 2 * i, hinge: [0.5, 0.25], loss: [0, 1], ...(oracle ? { oracle } : {}) });
  it('exact shards merge into an exact gap; an approximate one makes it approximate, with the bound when every slack is finite', () => {
    const exact = combineGapPartials([shard(0), shard(1)]);
    expect(exact.gapIsExact).toBe(true);
    expect(exact.oracle).toBeUndefined();
    const approximate = combineGapPartials([shard(0), shard(1, { exact: false, slack: 0.4 })]);
    expect(approximate.gap).toBeCloseTo(exact.gap!, 15);
    expect(approximate.gapIsExact).toBe(false);
    expect(approximate.oracle).toBe('approximate');
    expect(approximate.gapUpperBound).toBeCloseTo(exact.gap! + 0.4 / 4, 15);
    const unbounded = combineGapPartials([shard(0, { exact: false, slack: Infinity }), shard(1, { exact: false, slack: 0.4 })]);
    expect(unbounded.oracle).toBe('approximate');
    expect(unbounded.gapUpperBound).toBeUndefined();
    expect(shard(0, { exact: false, slack: Infinity }).slack).toBeNull(); // JSON has no Infinity
  });
});
