/**
 * Issue 21: the pose model with types (mixtures of parts), midpoints and a pyramid. The one-type, one-level model
 * is the model of commit 9a1af41: it reproduces that code's traces (to 1e-9 relative: the block sums have since been
 * reordered into lanes, which moves last bits) and reads its model files (test/fixtures/pose).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modelProblem } from '../src/engine/problem.js';
import { Rng } from '../src/core/rng.js';
import { dotSparse, toDense, type SparseVector } from '../src/core/vector.js';
import { cellToPixel } from '../src/data/lsp.js';
import { preparedPass } from '../src/engine/engine.js';
import { loadModel } from '../src/tasks/model.js';
import { LSP_TREE_PARENTS, lspTree } from '../src/models/pose-eval.js';
import { assignPoseTypes, kmeans2d, poseTypeAnchors } from '../src/models/pose-types.js';
import { PoseModel, topologicalOrder, type CellOffset, type PoseGrid, type PoseInput, type PoseLabel } from '../src/models/pose.js';
import { train } from '../src/solvers/index.js';
import { setThreads, threadCap } from '../src/native/threads.js';
import { buildModel } from '../src/tasks/model-kinds.js';
import { cli } from './helpers/capture.js';
import { expectDeepClose } from './helpers/close.js';
import { lspTraceRuns, poseTraceRuns } from './helpers/pose-traces.js';
import { uniform } from './helpers/random.js';
import { writeTinyLsp } from './helpers/tiny-data.js';
import { allOf, needsData, releaseAddonOnly, unless } from './helpers/skips.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/pose/', import.meta.url));
const k1 = JSON.parse(readFileSync(join(FIXTURES, 'k1-traces.json'), 'utf8')) as { synthetic: Record<string, unknown>; lsp: Record<string, unknown> | null };


describe('the one-type, no-midpoint, one-scale model is the model of commit 9a1af41', () => {
  it('reproduces its traces and weights on synthetic data (BCFW, BCPFW + gap sampling + cache, BCAFW)', releaseAddonOnly, () => {
    const runs = poseTraceRuns();
    const expected = k1.synthetic as typeof runs;
    // The cached pairwise run follows 9a1af41's to 1e-14 through pass 10; in its last two passes one discrete choice
    // (a cached corner or an away atom) goes the other way since issue 36 reordered the step's sums, and the runs part:
    // its exact checks are compared through pass 10, and the last one only for a valid certificate near the old.
    const cached = 'bcpfw-gap-cache';
    const through10 = (r: { checks: number[][] }) => r.checks.filter(([pass]) => pass! <= 10);
    expectDeepClose(through10(runs[cached]!), through10(expected[cached]!));
    const [last, old] = [runs[cached]!.checks.at(-1)!, expected[cached]!.checks.at(-1)!];
    expect(last[0]).toBe(old[0]);
    expect(last[3]).toBeGreaterThanOrEqual(0);
    expect(Math.abs(last[2]! - old[2]!)).toBeLessThanOrEqual(1e-3 * old[2]!); // the dual
    const { [cached]: _new, ...rest } = runs;
    const { [cached]: _old, ...restExpected } = expected;
    expectDeepClose(rest, restExpected);
  });

  it('reproduces its `train lsp:` summaries and exact-gap checkpoints on 12 LSP-small images', allOf(unless(k1.lsp !== null, 'test/fixtures/pose/k1-traces.json has no LSP runs'), releaseAddonOnly, needsData('lsp', 'joints.mat')), async () => {
    expectDeepClose(await lspTraceRuns(), k1.lsp);
  }, 120_000);
});

/** Every (level, cells, types) labelling of a model's parts on the input's grids. */
function* allLabellings(model: PoseModel, x: PoseInput): Generator<PoseLabel> {
  const P = model.numParts;
  for (let level = 0; level < model.scales.length; level++) {
    const g = level === 0 ? x : x.levels![level - 1]!;
    const cells = g.rows * g.cols;
    const idx = new Array<number>(P).fill(0);
    const types = new Array<number>(P).fill(0);
    for (;;) {
      yield { x: Int32Array.from(idx, (j) => j % g.cols), y: Int32Array.from(idx, (j) => Math.floor(j / g.cols)), types: Int32Array.from(types), ...(model.scales.length > 1 ? { level } : {}) };
      let p = 0;
      for (; p < P; p++) {
        if (++idx[p]! < cells) break;
        idx[p] = 0;
        if (++types[p]! < model.types[p]!) break;
        types[p] = 0;
      }
      if (p === P) break;
    }
  }
}

/**
 * A tiny mixtures-of-parts model: 3 parts (the root in the middle) with 1, 2 and 3 types, 2 joints (part 2 is a
 * "midpoint" without loss), one or two pyramid levels; random features (float32 or float64), truth and w within
 * the bounds (integer values when `integer`: many exact ties).
 */
function typedCase(seed: number, opts: { levels: 1 | 2; float32: boolean; integer?: boolean; images?: number }) {
  const rnd = uniform(seed);
  const value = () => (opts.integer ? Math.floor(rnd() * 3) - 1 : rnd() * 2 - 1);
  const typeOffsets: CellOffset[][] = [[{ dx: -1, dy: 1 }, { dx: 1, dy: 0 }], [{ dx: 0, dy: 0 }], [{ dx: 0, dy: 1 }, { dx: 1, dy: 1 }, { dx: -1, dy: -1 }]];
  const model = new PoseModel({ parents: [1, -1, 1], typeOffsets, joints: 2, ...(opts.levels === 2 ? { scales: [1, 0.75] } : {}), filterSize: 3, featureDim: 2, defScale: 2, threads: 2 });
  const grid = (rows: number, cols: number): PoseGrid => {
    const data = Array.from({ length: rows * cols * 2 }, value);
    return { rows, cols, dim: 2, data: opts.float32 ? Float32Array.from(data) : Float64Array.from(data) };
  };
  const xs: PoseInput[] = [];
  const ys: PoseLabel[] = [];
  for (let i = 0; i < (opts.images ?? 1); i++) {
    const x: PoseInput = { ...grid(3, 3), ...(opts.levels === 2 ? { levels: [grid(2, 3)] } : {}) };
    const level = opts.levels === 2 ? Math.floor(rnd() * 2) : 0;
    const g = level === 0 ? x : x.levels![0]!;
    xs.push(x);
    ys.push({
      x: Int32Array.from({ length: 3 }, () => Math.floor(rnd() * g.cols)),
      y: Int32Array.from({ length: 3 }, () => Math.floor(rnd() * g.rows)),
      types: Int32Array.from([2, 1, 3], (K) => Math.floor(rnd() * K)),
      scale: opts.integer ? 1 : 1 + rnd(),
      ...(opts.levels === 2 ? { level } : {}),
    });
  }
  const w = Float64Array.from({ length: model.dim }, value);
  for (const j of model.quadraticIndices()) w[j] = Math.abs(w[j]!) * (opts.integer ? 1 : 0.5);
  return { model, xs, ys, w };
}

const plain = (y: PoseLabel) => ({ x: [...y.x], y: [...y.y], types: y.types ? [...y.types] : undefined, level: y.level });

describe('PoseModel with types, joints and a pyramid', () => {
  it('lays out w as filters per (part, type), a deformation per (arc, child type) and biases per (arc, type pair), positivity on the quadratics', () => {
    const { model } = typedCase(1, { levels: 2, float32: true });
    expect(model.numStates).toBe(6);
    expect([...model.types]).toEqual([2, 1, 3]);
    const F = 3 * 3 * 2;
    // the arcs 0 -> 1 (2 x 1 type pairs) and 2 -> 1 (3 x 1): 5 non-root states, 2 + 3 biases
    expect(model.dim).toBe(6 * F + 5 * 4 + 2 + 3);
    const lower = model.bounds.lower!;
    const zeros = [...lower.keys()].filter((j) => lower[j] === 0);
    expect(zeros).toEqual(model.quadraticIndices());
    expect(zeros.length).toBe(10);
    // one type and one level: the plain pictorial-structures layout (no bias)
    const plainModel = new PoseModel({ parents: LSP_TREE_PARENTS, meanOffsets: LSP_TREE_PARENTS.map(() => ({ dx: 0, dy: 0 })) });
    expect(plainModel.dim).toBe(14 * 5 * 5 * 31 + 13 * 4);
  });

  for (const levels of [1, 2] as const) {
    for (const float32 of [true, false]) {
      it(`oracle and prediction = brute force over every (level, cells, types) labelling; psi, loss and labelScores agree (${levels} level(s), ${float32 ? 'native' : 'TypeScript'} filter responses)`, () => {
        for (let seed = 1; seed <= 3; seed++) {
          const { model, xs, ys, w } = typedCase(seed * 10 + levels, { levels, float32 });
          const [x, yTrue] = [xs[0]!, ys[0]!];
          let best = -Infinity;
          let bestPlain = -Infinity;
          const labels: PoseLabel[] = [];
          for (const y of allLabellings(model, x)) {
            best = Math.max(best, model.loss(yTrue, y) - dotSparse(w, model.psi(x, yTrue, y)));
            bestPlain = Math.max(bestPlain, dotSparse(w, model.phi(x, y)));
            if (labels.length < 400) labels.push(y);
            // psi (built without a dense accumulator) is phi(yTrue) - phi(y) exactly, zeros left out.
            if (labels.length % 50 === 1) {
              const phiTrue = toDense(model.phi(x, yTrue), model.dim);
              const phiY = toDense(model.phi(x, y), model.dim);
              const psi = model.psi(x, yTrue, y);
              expect(psi.values.subarray(0, psi.nnz).every((v) => v !== 0)).toBe(true);
              expect([...toDense(psi, model.dim)]).toEqual([...phiTrue.map((v, j) => v - phiY[j]!)]);
            }
          }
          const yHat = model.lossAugmentedDecode(w, x, yTrue);
          expect(model.loss(yTrue, yHat) - dotSparse(w, model.psi(x, yTrue, yHat))).toBeCloseTo(best, 9);
          expect(dotSparse(w, model.phi(x, model.decode(w, x)))).toBeCloseTo(bestPlain, 9);
          const out = new Float64Array(labels.length);
          model.labelScores(w, x, yTrue, labels, out);
          labels.forEach((y, k) => expect(out[k]).toBeCloseTo(model.loss(yTrue, y) - dotSparse(w, model.psi(x, yTrue, y)), 9));
          expect(model.loss(yTrue, yTrue)).toBe(0);
        }
      });
    }
  }

  for (const integer of [false, true]) {
    it(`batched and per-image decoders agree: labels and bit-identical hinges, whole passes and subsets (${integer ? 'integer scores, many exact ties' : 'random scores'})`, async () => {
      const { JsBackend } = await import('../kernels/index.js');
      for (const levels of [1, 2] as const) {
        const { model, xs, ys, w } = typedCase(integer ? 7 : 8, { levels, float32: true, integer, images: 7 });
        const expected = xs.map((x, i) => model.lossAugmentedDecode(w, x, ys[i]!));
        const predicted = xs.map((x) => model.decode(w, x));
        const expectedHinge = expected.map((z, i) => Math.max(0, model.loss(ys[i]!, z) - dotSparse(w, model.psi(xs[i]!, ys[i]!, z))));
        // the model's native decoder computing the responses, and TypeScript im2col rows (a non-native backend)
        for (const scoring of [undefined, new JsBackend()]) {
          const hinge = new Float64Array(xs.length);
          const labels: PoseLabel[] = [];
          const predictions: PoseLabel[] = [];
          preparedPass(model, xs, ys, scoring)(w, hinge, labels, predictions);
          expect([...hinge]).toEqual(expectedHinge);
          // im2col sums a patch in another order: labels may differ only where scores tie exactly
          if (scoring === undefined || integer) {
            // (a label that rechecks below 0 by rounding is replaced by the truth, whose H is exactly 0)
            const want = expected.map((z, i) => (model.loss(ys[i]!, z) - dotSparse(w, model.psi(xs[i]!, ys[i]!, z)) < 0 ? ys[i]! : z));
            expect(labels.map(plain)).toEqual(want.map(plain));
            expect(predictions.map(plain)).toEqual(predicted.map(plain));
          }
        }
        // a subset, in a shuffled order with a repeat, decoded together on native threads
        const problem = modelProblem(model, xs, ys);
        const blocks = Int32Array.of(5, 1, 5, 3);
        const got: PoseLabel[] = [];
        const hinge = new Float64Array(4);
        problem.batch!.decodeSubset(w, blocks, 4, got, hinge);
        blocks.forEach((i, q) => {
          expect(hinge[q]).toBe(expectedHinge[i]);
          if (expectedHinge[i]! > 0) expect(plain(got[q]!)).toEqual(plain(expected[i]!));
        });
      }
    });
  }

  it('decodes a subset in the background: the labels, hinges and psi of decodeSubset at the w it started from, whatever w does meanwhile', () => {
    const { model, xs, ys, w } = typedCase(8, { levels: 2, float32: true, images: 7 });
    const problem = modelProblem(model, xs, ys);
    const batch = problem.batch!;
    expect(batch.decodesInBackground!()).toBe(true);
    const blocks = Int32Array.of(5, 1, 6, 3);
    const want: PoseLabel[] = [];
    const wantHinge = new Float64Array(4);
    batch.decodeSubset(w, blocks, 4, want, wantHinge);
    const cap = threadCap();
    try {
      for (const n of [2, 1]) {
        setThreads(n);
        const moving = Float64Array.from(w);
        batch.startSubset!(moving, blocks, 4);
        expect(() => batch.decodeSubset(w, blocks, 4, [], new Float64Array(4))).toThrow(/a subset is being decoded/);
        moving.fill(0); // the decode reads its own copy
        const got: PoseLabel[] = [];
        const hinge = new Float64Array(4);
        const psis: (SparseVector | undefined)[] = [];
        batch.finishSubset!(got, hinge, psis);
        expect([...hinge]).toEqual([...wantHinge]);
        expect(got.map(plain)).toEqual(want.map(plain));
        blocks.forEach((i, q) => {
          if (n === 1) expect(psis[q]).toBeUndefined(); // decoded at once: the step builds its psi
          else if (hinge[q]! > 0) {
            const psi = model.psi(xs[i]!, ys[i]!, got[q]!);
            expect([...psis[q]!.indices.subarray(0, psis[q]!.nnz)]).toEqual([...psi.indices.subarray(0, psi.nnz)]);
            expect([...psis[q]!.values.subarray(0, psis[q]!.nnz)]).toEqual([...psi.values.subarray(0, psi.nnz)]);
          }
        });
      }
      // Score maps (float64 features: TypeScript scores them) are written by the JavaScript thread: no background decode.
      const f64 = typedCase(8, { levels: 2, float32: false, images: 2 });
      expect(modelProblem(f64.model, f64.xs, f64.ys).batch!.decodesInBackground!()).toBe(false);
    } finally {
      setThreads(cap);
    }
  });

  it('overlapped mini-batches (--overlap): the same trace and model on 1 and on 2 threads, and the optimum of sequential steps', () => {
    const { model, xs, ys } = typedCase(11, { levels: 2, float32: true, images: 12 });
    const problem = modelProblem(model, xs, ys);
    const cap = threadCap();
    const run = (n: number, batch: number) => {
      setThreads(n);
      return train(problem, { lambda: 0.1, batch, overlap: batch > 1, maxPasses: 400, gapCheck: 5, gapThreshold: 0.05, seed: 2, averaging: false });
    };
    try {
      const two = run(2, 4);
      const one = run(1, 4);
      expect(two.batch).toBe(4);
      expect(two.overlap).toBe(true);
      expect(one.overlap).toBe(true);
      expect(two.trace.map((t) => [t.gap, t.primal])).toEqual(one.trace.map((t) => [t.gap, t.primal]));
      expect([...two.w]).toEqual([...one.w]);
      const sequential = run(2, 1);
      // Both certify their gap, so their primal values lie within it of the optimum; stale corners cost passes.
      for (const r of [two, sequential]) expect(r.stopReason).toBe('gap');
      expect(Math.abs(two.primal - sequential.primal)).toBeLessThanOrEqual(Math.max(two.gap, sequential.gap));
      expect(two.passes).toBeLessThanOrEqual(1.5 * sequential.passes);
    } finally {
      setThreads(cap);
    }
  });

  it('maps the truth onto every level: the loss of a label on another level is the loss in pixels', () => {
    const model = new PoseModel({ parents: [-1, 0], meanOffsets: [{ dx: 0, dy: 0 }, { dx: 0, dy: 2 }], scales: [1, 0.8, 1.25], filterSize: 1, featureDim: 1 });
    const sbin = 4;
    const truth: PoseLabel = { x: Int32Array.of(10, 12), y: Int32Array.of(7, 15), scale: 6.5, level: 1 };
    const personPixels = (truth.scale! * sbin) / 0.8; // the loss scale in pixels of factor 1
    const pixels = (y: PoseLabel, p: number): [number, number] => {
      const f = model.scales[y.level ?? 0]!;
      return [cellToPixel(y.x[p]!, sbin, f), cellToPixel(y.y[p]!, sbin, f)];
    };
    const rnd = uniform(4);
    for (let k = 0; k < 50; k++) {
      const y: PoseLabel = { x: Int32Array.from({ length: 2 }, () => Math.floor(rnd() * 25)), y: Int32Array.from({ length: 2 }, () => Math.floor(rnd() * 25)), level: Math.floor(rnd() * 3) };
      let want = 0;
      for (let p = 0; p < 2; p++) {
        const [a, b] = [pixels(y, p), pixels(truth, p)];
        want += Math.min(((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) / personPixels ** 2, 1) / 2;
      }
      expect(model.loss(truth, y)).toBeCloseTo(want, 12);
    }
    expect(model.loss(truth, { ...truth })).toBe(0);
  });

  it('learns two spatial relationships with their own appearance, which one type cannot tell from decoys (BCFW, synthetic)', () => {
    // The child sits 3 cells left of its parent looking like channel 1, or right looking like channel 2 (a type
    // couples where a part is with how it looks). A decoy of the same look sits on the other side. With one type
    // (one filter, one spring) the two kinds of images ask for opposite choices; with two types (a filter and an
    // anchor each) the decoy fits neither.
    const rng = new Rng(5);
    const xs: PoseInput[] = [];
    const ys: PoseLabel[] = [];
    for (let i = 0; i < 16; i++) {
      const rows = 6;
      const cols = 11;
      const data = Float32Array.from({ length: rows * cols * 3 }, () => 0.1 * rng.next());
      const px = 4 + Math.floor(rng.next() * 3);
      const py = 1 + Math.floor(rng.next() * 3);
      const side = i % 2 === 0 ? -3 : 3;
      const look = side < 0 ? 1 : 2;
      data[(py * cols + px) * 3]! += 1;
      data[(py * cols + px + side) * 3 + look]! += 1;
      data[(py * cols + px - side) * 3 + look]! += 1; // the decoy
      xs.push({ rows, cols, dim: 3, data });
      ys.push({ x: Int32Array.of(px, px + side), y: Int32Array.of(py, py), scale: 1.5 });
    }
    const trainLoss = (K: number) => {
      const anchors = poseTypeAnchors(ys, [-1, 0], K, 3);
      const model = new PoseModel({ parents: [-1, 0], typeOffsets: anchors, filterSize: 1, featureDim: 3, defScale: 2 });
      const truths = ys.map((y) => ({ ...y, types: assignPoseTypes(y, [-1, 0], anchors) }));
      const res = train(modelProblem(model, xs, truths), { lambda: 0.01, maxPasses: 40, gapThreshold: 1e-4, seed: 1 });
      return xs.reduce((a, x, i) => a + model.loss(truths[i]!, model.decode(res.w, x)), 0) / xs.length;
    };
    const one = trainLoss(1);
    const two = trainLoss(2);
    expect(two).toBeLessThan(0.05);
    expect(one).toBeGreaterThan(two + 0.2);
  });

  it('rejects bad options, inputs and labels with clear errors', () => {
    const { model, xs, ys } = typedCase(2, { levels: 2, float32: true });
    const parents = [1, -1, 1];
    expect(() => new PoseModel({ parents })).toThrow(/exactly one of meanOffsets .* and typeOffsets/);
    expect(() => new PoseModel({ parents, typeOffsets: [[{ dx: 0, dy: 0 }], [], [{ dx: 0, dy: 0 }]] })).toThrow(/part 1 needs 1 to 256 types, got 0/);
    expect(() => new PoseModel({ parents, typeOffsets: [[{ dx: 0.5, dy: 0 }], [{ dx: 0, dy: 0 }], [{ dx: 0, dy: 0 }]] })).toThrow(/anchor of part 0, type 0 must be integers/);
    expect(() => new PoseModel({ parents, meanOffsets: parents.map(() => ({ dx: 0, dy: 0 })), joints: 4 })).toThrow(/joints must be an integer in 1..3/);
    expect(() => new PoseModel({ parents, meanOffsets: parents.map(() => ({ dx: 0, dy: 0 })), scales: [1, -2] })).toThrow(/pyramid scales must be positive/);
    expect(() => model.validate({ ...xs[0]!, levels: undefined }, ys[0]!, 'ex')).toThrow(/ex: the input has 1 pyramid level\(s\), the model expects 2/);
    expect(() => model.validate(xs[0]!, { ...ys[0]!, level: 2 }, 'ex')).toThrow(/level 2 is outside the model's 2 pyramid level\(s\)/);
    expect(() => model.validate(xs[0]!, { ...ys[0]!, types: Int32Array.of(0, 1, 0) }, 'ex')).toThrow(/part 1 has type 1, outside 0..0/);
    expect(() => model.validate(xs[0]!, { ...ys[0]!, types: undefined }, 'ex')).toThrow(/needs its types/);
    expect(() => model.labelFromJSON({ x: [0, 0, 0], y: [0, 0, 0], types: [0, 0, 5] })).toThrow(/part 2 has type 5/);
    expect(() => model.labelFromJSON({ x: [0, 0, 0], y: [0, 0, 0], level: 3 })).toThrow(/level 3 is outside 0..1/);
    const y = ys[0]!;
    expect(plain(model.labelFromJSON(model.labelToJSON(y)))).toEqual(plain(y));
    expect(model.labelKey(y)).not.toBe(model.labelKey({ ...y, types: Int32Array.of(1, 0, 0) }));
  });
});

describe('part types: k-means of the displacements from the parent', () => {
  /** Three blobs of integer displacements around (-6, 0), (0, 6) and (5, 5). */
  const blobs = (seed: number): CellOffset[] => {
    const rnd = uniform(seed);
    return Array.from({ length: 90 }, (_, i) => {
      const [cx, cy] = [[-6, 0], [0, 6], [5, 5]][i % 3]!;
      return { dx: cx! + Math.round(rnd() * 2 - 1), dy: cy! + Math.round(rnd() * 2 - 1) };
    });
  };

  it('is deterministic for a seed, finds well-separated clusters whatever the seed, and stops at a Lloyd fixed point', () => {
    const points = blobs(1);
    expect(kmeans2d(points, 3, new Rng(4))).toEqual(kmeans2d(points, 3, new Rng(4)));
    for (const seed of [1, 2, 3, 4, 5]) {
      const centres = kmeans2d(points, 3, new Rng(seed));
      const rounded = centres.map((c) => `${Math.round(c.dx)},${Math.round(c.dy)}`).sort();
      expect(rounded).toEqual(['-6,0', '0,6', '5,5']);
      // every centre is the mean of the points nearest to it
      centres.forEach((c, k) => {
        const mine = points.filter((p) => centres.reduce((b, d, j) => ((p.dx - d.dx) ** 2 + (p.dy - d.dy) ** 2 < (p.dx - centres[b]!.dx) ** 2 + (p.dy - centres[b]!.dy) ** 2 ? j : b), 0) === k);
        expect(c.dx).toBeCloseTo(mine.reduce((a, p) => a + p.dx, 0) / mine.length, 12);
        expect(c.dy).toBeCloseTo(mine.reduce((a, p) => a + p.dy, 0) / mine.length, 12);
      });
    }
    // no more centres than distinct points
    expect(kmeans2d([{ dx: 1, dy: 1 }, { dx: 1, dy: 1 }, { dx: 2, dy: 1 }], 6, new Rng(1)).length).toBe(2);
  });

  it('gives every part its anchors (the root one zero anchor) and every pose its nearest-anchor types, the same for the same seed', () => {
    const rnd = uniform(9);
    const parents = [-1, 0, 1];
    const labels: PoseLabel[] = Array.from({ length: 40 }, () => {
      const x = Int32Array.of(20, 0, 0);
      const y = Int32Array.of(20, 0, 0);
      x[1] = x[0]! + (rnd() < 0.5 ? -5 : 5);
      y[1] = y[0]! + Math.round(rnd() * 2);
      x[2] = x[1]!;
      y[2] = y[1]! + (rnd() < 0.5 ? 4 : 8);
      return { x, y, scale: 1 };
    });
    const anchors = poseTypeAnchors(labels, parents, 2, 7);
    expect(poseTypeAnchors(labels, parents, 2, 7)).toEqual(anchors);
    expect(anchors[0]).toEqual([{ dx: 0, dy: 0 }]);
    expect(anchors[1]!.map((a) => a.dx).sort((a, b) => a - b)).toEqual([-5, 5]);
    expect(anchors[2]!.map((a) => `${a.dx},${a.dy}`).sort()).toEqual(['0,4', '0,8']);
    for (const y of labels) {
      const t = assignPoseTypes(y, parents, anchors);
      expect(t[0]).toBe(0);
      expect(anchors[1]![t[1]!]!.dx).toBe(y.x[1]! - y.x[0]!);
      expect(anchors[2]![t[2]!]!.dy).toBe(y.y[2]! - y.y[1]!);
    }
  });
});

describe('the LSP tree with midpoints', () => {
  it('has 26 nodes: each of the 12 midpoints sits between its two joints, head top - neck has none', () => {
    const { parents, midpoints } = lspTree(true);
    expect(parents.length).toBe(26);
    expect(midpoints.length).toBe(12);
    expect(topologicalOrder(parents).length).toBe(26); // a single-rooted tree
    midpoints.forEach(([child, parent], k) => {
      expect(LSP_TREE_PARENTS[child]).toBe(parent);
      expect(parents[child]).toBe(14 + k);
      expect(parents[14 + k]).toBe(parent);
    });
    expect(parents[13]).toBe(12);
    expect(lspTree(false)).toEqual({ parents: [...LSP_TREE_PARENTS], midpoints: [] });
  });
});

describe('gapbcfw train lsp: --types --midpoints --scales (tiny LSP folder)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pose-types-'));

  it('refuses bad options with exit code 2 and a message naming the option', async () => {
    const lsp = await writeTinyLsp(dir, 12);
    const bad: [string[], RegExp][] = [
      [['--types', '0'], /--types/],
      [['--types', '33'], /--types/],
      [['--scales', '1,x'], /--scales must list 1 to 8 distinct factors/],
      [['--scales', '1,1'], /--scales must list 1 to 8 distinct factors/],
      [['--midpoints', '--no-midpoints'], /--midpoints and --no-midpoints contradict each other/],
    ];
    for (const [args, message] of bad) {
      const r = await cli('train', lsp, '--split', 'full', '--max-passes', '1', ...args, '--json', '--quiet');
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('trains a model with types, midpoints and a pyramid (BCPFW, gap sampling, cache), saves it, and eval and predict read it back', async () => {
    const lsp = await writeTinyLsp(join(dir, 'b'), 12);
    const model = join(dir, 'typed.gbm');
    // every solver switch applies: pairwise steps, gap sampling and the cache store and score typed labels
    const t = await cli('train', lsp, '--split', 'full', '--filter-size', '3', '--types', '3', '--midpoints', '--scales', '1,0.8', '--max-passes', '3', '--lambda', '0.1', '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--out', model, '--json', '--quiet');
    expect(t.code, t.stderr).toBe(0);
    const m = loadModel(model);
    const options = (m.spec as { options: { parents: number[]; typeOffsets: CellOffset[][]; joints: number; scales: number[] } }).options;
    expect(options.parents.length).toBe(26);
    expect(options.joints).toBe(14);
    expect(options.scales).toEqual([1, 0.8]);
    expect(Math.max(...options.typeOffsets.map((a) => a.length))).toBeLessThanOrEqual(3);
    expect(m.fields.meta).toMatchObject({ midpoints: true });
    expect(m.fields.meta.reference as number).toBeGreaterThan(0);
    const e = await cli('eval', model, lsp, '--json');
    expect(e.code, e.stderr).toBe(0);
    for (const key of ['pcp', 'pck', 'testError']) expect(e.json![key]).toBe(t.json![key]);
    const p = await cli('predict', model, lsp, '--test-limit', '2', '--out-dir', join(dir, 'skeletons'), '--json', '--quiet');
    expect(p.code, p.stderr).toBe(0);
    expect(p.json!.images).toBe(2);
  }, 120_000);

  it('reads model files of the current format written before issue 21 and predicts as the code that wrote them (test/fixtures/pose)', async () => {
    const lsp = await writeTinyLsp(join(dir, 'c'), 12);
    const expected = JSON.parse(readFileSync(join(FIXTURES, 'k1-model.json'), 'utf8')) as { eval: Record<string, number>; predictions: { x: number[]; y: number[] }[] };
    const e = await cli('eval', join(FIXTURES, 'k1-model.gbm'), lsp, '--json');
    expect(e.code, e.stderr).toBe(0);
    for (const [key, value] of Object.entries(expected.eval)) expect(e.json![key], key).toBe(value);
    const m = loadModel(join(FIXTURES, 'k1-model.gbm'));
    const { loadTask } = await import('../src/tasks/index.js');
    const set = (await loadTask(lsp, { model: m, parts: ['test'] })).test!;
    const model = buildModel(m.spec);
    const got = Array.from({ length: set.length }, (_, i) => model.decode(m.w, set.input(i)) as PoseLabel);
    expect(got.map((y) => ({ x: [...y.x], y: [...y.y] }))).toEqual(expected.predictions);
  });
});
