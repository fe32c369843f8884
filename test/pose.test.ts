import { describe, expect, it } from 'vitest';
import { dotSparse } from '../src/core/vector.js';
import { modelProblem } from '../src/engine/problem.js';
import { PoseModel, treeMaxSum, treeScore, type EdgeCost, type PoseInput, type PoseLabel } from '../src/models/pose.js';
import { pcpPck, LSP_TREE_PARENTS, LSP_STICKS } from '../src/models/pose-eval.js';
import { Rng } from '../src/core/rng.js';
import { train } from '../src/solvers/index.js';
import { preparedPass } from '../src/engine/engine.js';

/** Small deterministic PRNG (independent of the package's). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Every labelling of P parts on an H x W grid. */
function* allLabellings(P: number, H: number, W: number): Generator<{ x: number[]; y: number[] }> {
  const n = H * W;
  const idx = new Array<number>(P).fill(0);
  for (;;) {
    yield { x: idx.map((j) => j % W), y: idx.map((j) => Math.floor(j / W)) };
    let k = 0;
    while (k < P && ++idx[k]! === n) idx[k++] = 0;
    if (k === P) return;
  }
}

const TREES: number[][] = [
  [-1, 0], // 2 parts
  [-1, 0, 0], // star
  [-1, 0, 1], // chain
  [1, -1, 1, 2], // root in the middle
];

describe('treeMaxSum (GDT messages) equals brute force', () => {
  for (const [t, parents] of TREES.entries()) {
    for (const [H, W] of [[3, 3], [2, 4], [4, 2]] as const) {
      it(`tree ${t} on ${H}x${W}`, () => {
        const rnd = lcg(17 * t + H * 5 + W);
        for (let trial = 0; trial < 6; trial++) {
          const P = parents.length;
          const scores = parents.map(() => Float64Array.from({ length: H * W }, () => Math.round(rnd() * 20 - 10)));
          const edges: EdgeCost[] = parents.map(() => ({
            ax: trial === 0 ? 0 : Math.round(rnd() * 4) / 2, // trial 0: the exact linear case
            bx: Math.round(rnd() * 8 - 4) / 2,
            ay: trial === 1 ? 0 : Math.round(rnd() * 4) / 2,
            by: Math.round(rnd() * 8 - 4) / 2,
            mx: Math.floor(rnd() * 5) - 2, // offsets pushing parents outside the grid too
            my: Math.floor(rnd() * 5) - 2,
          }));
          let best = -Infinity;
          for (const l of allLabellings(P, H, W)) best = Math.max(best, treeScore(scores, W, parents, edges, l.x, l.y));
          for (const impl of ['native', 'ts'] as const) {
            const res = treeMaxSum(scores, H, W, parents, edges, undefined, impl);
            expect(res.value).toBeCloseTo(best, 9);
            expect(treeScore(scores, W, parents, edges, res.x, res.y)).toBeCloseTo(best, 9);
          }
        }
      });
    }
  }
});

function tinyCase(seed: number, P: number, parents: number[], rows: number, cols: number) {
  const rnd = lcg(seed);
  const model = new PoseModel({ parents, meanOffsets: parents.map(() => ({ dx: Math.floor(rnd() * 3) - 1, dy: Math.floor(rnd() * 3) - 1 })), filterSize: 3, featureDim: 2, defScale: 2 });
  const x: PoseInput = { rows, cols, dim: 2, data: Float64Array.from({ length: rows * cols * 2 }, () => rnd() * 2 - 1) };
  const yTrue: PoseLabel = { x: Int32Array.from({ length: P }, () => Math.floor(rnd() * cols)), y: Int32Array.from({ length: P }, () => Math.floor(rnd() * rows)), scale: 1.5 };
  const w = Float64Array.from({ length: model.dim }, () => rnd() * 2 - 1);
  for (const j of model.quadraticIndices()) w[j] = Math.abs(w[j]!); // within the bounds
  return { model, x, yTrue, w };
}

describe('PoseModel', () => {
  it('declares lower bounds 0 exactly on the quadratic deformation coefficients', () => {
    const m = new PoseModel({ parents: LSP_TREE_PARENTS, meanOffsets: LSP_TREE_PARENTS.map(() => ({ dx: 0, dy: 0 })) });
    expect(m.dim).toBe(14 * 5 * 5 * 31 + 13 * 4);
    const lower = m.bounds.lower!;
    const zeros = [...lower.keys()].filter((j) => lower[j] === 0);
    expect(zeros).toEqual(m.quadraticIndices());
    expect(zeros.length).toBe(26);
    expect(lower.filter((v) => v === -Infinity).length).toBe(m.dim - 26);
  });

  it('loss-augmented oracle = brute force over every labelling; psi, loss and labelScores agree', () => {
    for (const [seed, parents] of [[1, [-1, 0, 0]], [2, [-1, 0, 1]], [3, [1, -1]]] as const) {
      const P = parents.length;
      const { model, x, yTrue, w } = tinyCase(seed, P, [...parents], 3, 3);
      const labels: PoseLabel[] = [];
      let best = -Infinity;
      let bestPlain = -Infinity;
      for (const l of allLabellings(P, 3, 3)) {
        const y: PoseLabel = { x: Int32Array.from(l.x), y: Int32Array.from(l.y) };
        labels.push(y);
        const val = model.loss(yTrue, y) - dotSparse(w, model.psi(x, yTrue, y));
        best = Math.max(best, val);
        bestPlain = Math.max(bestPlain, dotSparse(w, model.phi(x, y)));
      }
      const yHat = model.lossAugmentedDecode(w, x, yTrue);
      expect(model.loss(yTrue, yHat) - dotSparse(w, model.psi(x, yTrue, yHat))).toBeCloseTo(best, 9);
      const yPred = model.decode(w, x);
      expect(dotSparse(w, model.phi(x, yPred))).toBeCloseTo(bestPlain, 9);
      // labelScores = L - <w, psi> for every labelling (the loss augmentation is exact everywhere).
      const out = new Float64Array(labels.length);
      model.labelScores(w, x, yTrue, labels, out);
      labels.forEach((y, k) => expect(out[k]).toBeCloseTo(model.loss(yTrue, y) - dotSparse(w, model.psi(x, yTrue, y)), 9));
      expect(model.loss(yTrue, yTrue)).toBe(0);
    }
  });

  it('loss augmentation equals the loss for every labelling (w = 0)', () => {
    const { model, x, yTrue } = tinyCase(5, 3, [-1, 0, 0], 3, 4);
    const w = new Float64Array(model.dim);
    const labels = [...allLabellings(3, 3, 4)].map((l) => ({ x: Int32Array.from(l.x), y: Int32Array.from(l.y) }));
    const out = new Float64Array(labels.length);
    model.labelScores(w, x, yTrue, labels, out);
    let maxLoss = 0;
    labels.forEach((y, k) => {
      const d = [0, 1, 2].map((p) => Math.min(((y.x[p]! - yTrue.x[p]!) ** 2 + (y.y[p]! - yTrue.y[p]!) ** 2) / 1.5 ** 2, 1));
      expect(out[k]).toBeCloseTo((d[0]! + d[1]! + d[2]!) / 3, 12);
      maxLoss = Math.max(maxLoss, out[k]!);
    });
    const y = model.lossAugmentedDecode(w, x, yTrue);
    expect(model.loss(yTrue, y)).toBeCloseTo(maxLoss, 12);
  });

  it('rejects bad inputs and labels', () => {
    const { model, x, yTrue } = tinyCase(7, 2, [-1, 0], 3, 3);
    expect(() => model.validate(x, { ...yTrue, scale: undefined }, 'ex')).toThrow(/scale/);
    expect(() => model.validate(x, { x: Int32Array.of(0, 3), y: Int32Array.of(0, 0), scale: 1 }, 'ex')).toThrow(/outside/);
    expect(() => model.validate({ ...x, dim: 3 }, yTrue, 'ex')).toThrow(/features/);
    expect(() => new PoseModel({ parents: [-1, 2, 1], meanOffsets: [{ dx: 0, dy: 0 }, { dx: 0, dy: 0 }, { dx: 0, dy: 0 }] })).toThrow(/cycle/);
    expect(() => model.labelFromJSON({ x: [0], y: [0] })).toThrow(/2 parts/);
    expect(model.labelFromJSON(model.labelToJSON(yTrue))).toEqual(yTrue);
  });

  it('BCFW trains on a synthetic pose set and the bounds are present on the problem', () => {
    // Parts sit where a feature fires; a tiny model must learn to find them.
    const rng = new Rng(3);
    const parents = [-1, 0, 0];
    const model = new PoseModel({ parents, meanOffsets: [{ dx: 0, dy: 0 }, { dx: -2, dy: 2 }, { dx: 2, dy: 2 }], filterSize: 1, featureDim: 4, defScale: 2 });
    const xs: PoseInput[] = [];
    const ys: PoseLabel[] = [];
    for (let i = 0; i < 12; i++) {
      const rows = 8;
      const cols = 8;
      const data = new Float64Array(rows * cols * 4);
      for (let j = 0; j < data.length; j++) data[j] = 0.2 * rng.next();
      const rx = 2 + Math.floor(rng.next() * 4);
      const ry = Math.floor(rng.next() * 3);
      const y = { x: Int32Array.of(rx, rx - 2, rx + 2 > 7 ? 7 : rx + 2), y: Int32Array.of(ry, ry + 2, ry + 2), scale: 2 };
      for (let p = 0; p < 3; p++) data[(y.y[p]! * cols + y.x[p]!) * 4 + p] += 1;
      xs.push({ rows, cols, dim: 4, data });
      ys.push(y);
    }
    const problem = modelProblem(model, xs, ys);
    expect(problem.bounds?.lower).toBe(model.bounds.lower);
    const res = train(problem, { lambda: 0.01, maxPasses: 30, gapThreshold: 1e-3, seed: 1 });
    let loss = 0;
    for (let i = 0; i < xs.length; i++) loss += model.loss(ys[i]!, model.decode(res.w, xs[i]!));
    expect(loss / xs.length).toBeLessThan(0.05);
  });
});

describe('PoseModel batched exact pass (native tree decoder on threads)', () => {
  /** Random images of several grid sizes, float32 features, w within the bounds. */
  function batchCase(seed: number, integer: boolean) {
    const rnd = lcg(seed);
    const parents = [1, -1, 1, 2, 0];
    const P = parents.length;
    const value = () => (integer ? Math.floor(rnd() * 3) - 1 : rnd() * 2 - 1);
    const model = new PoseModel({ parents, meanOffsets: parents.map(() => ({ dx: Math.floor(rnd() * 5) - 2, dy: Math.floor(rnd() * 5) - 2 })), filterSize: 3, featureDim: 3, defScale: 2, threads: 2 });
    const xs: PoseInput[] = [];
    const ys: PoseLabel[] = [];
    for (let i = 0; i < 9; i++) {
      const rows = 2 + (i % 4);
      const cols = 3 + ((i * 5) % 4);
      xs.push({ rows, cols, dim: 3, data: Float32Array.from({ length: rows * cols * 3 }, value) });
      ys.push({ x: Int32Array.from({ length: P }, () => Math.floor(rnd() * cols)), y: Int32Array.from({ length: P }, () => Math.floor(rnd() * rows)), scale: integer ? 1 : 1 + rnd() * 2 });
    }
    const w = Float64Array.from({ length: model.dim }, value);
    for (const j of model.quadraticIndices()) w[j] = Math.abs(w[j]!) * (integer ? 1 : 0.3);
    return { model, xs, ys, w };
  }

  for (const integer of [false, true]) {
    it(`gives the per-image labels and bit-identical hinges (${integer ? 'integer scores, many exact ties' : 'random scores'})`, async () => {
      const { JsBackend, NativeBackend } = await import('../kernels/index.js');
      for (let seed = 1; seed <= 4; seed++) {
        const { model, xs, ys, w } = batchCase(seed, integer);
        const expected = xs.map((x, i) => model.lossAugmentedDecode(w, x, ys[i]!));
        const plain = xs.map((x) => model.decode(w, x));
        const expectedHinge = expected.map((z, i) => Math.max(0, model.loss(ys[i]!, z) - dotSparse(w, model.psi(xs[i]!, ys[i]!, z))));
        // native filter responses inside the decoder; the native and TypeScript backends through im2col rows
        for (const scoring of [undefined, new NativeBackend(2), new JsBackend()]) {
          const hinge = new Float64Array(xs.length);
          const labels: PoseLabel[] = [];
          const predictions: PoseLabel[] = [];
          preparedPass(model, xs, ys, scoring)(w, hinge, labels, predictions);
          expect([...hinge]).toEqual(expectedHinge);
          if (scoring === undefined || integer) predictions.forEach((z, i) => expect({ x: [...z.x], y: [...z.y] }).toEqual({ x: [...plain[i]!.x], y: [...plain[i]!.y] }));
          // im2col sums the patch in another order: labels may differ only where scores tie exactly
          if (scoring === undefined || integer) labels.forEach((z, i) => expect({ x: [...z.x], y: [...z.y] }).toEqual({ x: [...expected[i]!.x], y: [...expected[i]!.y] }));
        }
      }
    });
  }

  it('equals brute force over every labelling on tiny grids', () => {
    for (const [seed, parents] of [[5, [-1, 0, 0]], [6, [1, -1]]] as const) {
      const P = parents.length;
      const { model, x, yTrue, w } = tinyCase(seed, P, [...parents], 3, 3);
      const x32: PoseInput = { ...x, data: Float32Array.from(x.data) };
      let best = -Infinity;
      for (const l of allLabellings(P, 3, 3)) {
        const y: PoseLabel = { x: Int32Array.from(l.x), y: Int32Array.from(l.y) };
        best = Math.max(best, model.loss(yTrue, y) - dotSparse(w, model.psi(x32, yTrue, y)));
      }
      const hinge = new Float64Array(1);
      preparedPass(model, [x32], [yTrue])(w, hinge);
      expect(hinge[0]).toBeCloseTo(best, 9);
    }
  });

  it('is what the solvers use: BCFW traces equal those of the per-image pass', () => {
    const { model, xs, ys } = batchCase(9, false);
    const batched = modelProblem(model, xs, ys);
    expect(batched.batch).toBeDefined();
    const a = train(batched, { lambda: 0.1, maxPasses: 4, gapCheck: 1, seed: 2 });
    const b = train({ ...batched, batch: undefined }, { lambda: 0.1, maxPasses: 4, gapCheck: 1, seed: 2 });
    expect([...a.w]).toEqual([...b.w]);
    expect(a.trace.map((t) => t.gap)).toEqual(b.trace.map((t) => t.gap));
  });

  it('rejects malformed batches with clear errors', async () => {
    const { native } = await import('../src/native/addon.js');
    const { model, xs, ys, w } = batchCase(3, false);
    const pass = preparedPass(model, xs, ys);
    expect(() => pass(new Float64Array(3), new Float64Array(xs.length))).toThrow(/w must be a Float64Array of length/);
    const tree = { parents: model.parents, order: Int32Array.of(1, 0, 2, 3, 4), types: model.types, joints: 5, levelScales: Float64Array.of(1), featureDim: 3, filterSize: 3 };
    const image = { levels: [{ rows: xs[0]!.rows, cols: xs[0]!.cols, features: xs[0]!.data as Float32Array }], truth: { x: ys[0]!.x, y: ys[0]!.y, scale: 1, level: 0 } };
    const out = { x: new Int32Array(5), y: new Int32Array(5), types: new Int32Array(5), levels: new Int32Array(1) };
    const make = (over: Record<string, unknown> = {}, img: Record<string, unknown> = {}) => () => new native.PoseBatch({ ...tree, ...over, images: [{ ...image, ...img }] } as never);
    const decode = (over: Record<string, unknown>) => () => make()().decode({ w, springs: new Float64Array(30), biases: new Float64Array(5), augmented: true, ...out, ...over } as never);
    expect(make()).not.toThrow();
    expect(decode({})).not.toThrow();
    expect(make({}, { levels: [{ rows: xs[0]!.rows, cols: xs[0]!.cols, features: new Float32Array(4) }] })).toThrow(/features has length 4/);
    expect(make({}, { levels: [{ rows: xs[0]!.rows, cols: xs[0]!.cols, features: Float32Array.from(xs[0]!.data, (v, j) => (j === 7 ? NaN : v)) }] })).toThrow(/features\[7\] is not finite/);
    expect(make({}, { levels: [{ rows: 2, cols: 2, features: new Float32Array(12), maps: new Float64Array(20) }] })).toThrow(/exactly one of features and maps/);
    expect(make({ order: Int32Array.of(0, 1, 2, 3, 4) })).toThrow(/does not follow its parent/);
    expect(make({ types: Int32Array.of(1, 0, 1, 1, 1) })).toThrow(/types must be integers in \[1, 256\]/);
    expect(make({ levelScales: Float64Array.of(1, 2) })).toThrow(/levels must be an array of 2 levels/);
    expect(make({}, { truth: { ...image.truth, x: Int32Array.of(0, 0, 0, 0, 99) } })).toThrow(/part 4 lies outside its level's grid/);
    expect(decode({ w: Float64Array.from(w, (v, j) => (j === 0 ? Infinity : v)) })).toThrow(/w\[0\] is Infinity/);
    expect(decode({ springs: Float64Array.from({ length: 30 }, (_, j) => (j === 6 ? -1 : 0)) })).toThrow(/quadratic spring coefficients must be >= 0 \(state 1\)/);
    expect(decode({ springs: Float64Array.from({ length: 30 }, (_, j) => (j === 4 ? 0.5 : 0)) })).toThrow(/anchors must be integers/);
    expect(decode({ biases: new Float64Array(4) })).toThrow(/biases has length 4, expected 5/);
    expect(decode({ items: Int32Array.of(1) })).toThrow(/items\[0\] = 1 is outside 0..0/);
    expect(() => new native.PoseBatch({ ...tree, images: [{ levels: image.levels }] }).decode({ w, springs: new Float64Array(30), biases: new Float64Array(5), augmented: true, ...out })).toThrow(/image 0 has no truth to augment with/);
    // finite weights whose responses overflow: a clear error, not a read outside the grid
    expect(decode({ w: Float64Array.from(w, (v, j) => (j % 2 === 0 ? 1e308 : -1e308)) })).toThrow(/not finite/);
    // the background decode: one at a time, nothing else meanwhile, its errors at finishBackground
    const batch = make()();
    const call = { w, springs: new Float64Array(30), biases: new Float64Array(5), augmented: true };
    expect(() => batch.finishBackground(out)).toThrow(/no background decode was started/);
    batch.decodeInBackground(call);
    expect(() => batch.decode({ ...call, ...out })).toThrow(/a background decode is in flight/);
    expect(() => batch.decodeInBackground(call)).toThrow(/a background decode is in flight/);
    const want = { x: new Int32Array(5), y: new Int32Array(5), types: new Int32Array(5), levels: new Int32Array(1) };
    expect(typeof batch.finishBackground(out)).toBe('number');
    make()().decode({ ...call, ...want });
    expect([...out.x, ...out.y]).toEqual([...want.x, ...want.y]);
    batch.decodeInBackground({ ...call, w: Float64Array.from(w, (v, j) => (j % 2 === 0 ? 1e308 : -1e308)) });
    expect(() => batch.finishBackground(out)).toThrow(/PoseBatch.finishBackground: .*not finite/);
    const maps = new native.PoseBatch({ ...tree, images: [{ levels: [{ rows: xs[0]!.rows, cols: xs[0]!.cols, maps: new Float64Array(5 * xs[0]!.rows * xs[0]!.cols) }], truth: image.truth }] });
    expect(() => maps.decodeInBackground(call)).toThrow(/image 0 has score maps, which only decode reads/);
  });
});

describe('PCP / PCK', () => {
  it('scores a perfect prediction 1 and a far one 0', () => {
    const gx = Float64Array.from({ length: 14 }, (_, j) => 10 + 5 * j);
    const gy = Float64Array.from({ length: 14 }, (_, j) => 100 - 6 * j);
    const perfect = pcpPck([{ x: gx, y: gy }], [{ x: gx, y: gy }]);
    expect(perfect.pcp).toBe(1);
    expect(perfect.pck).toBe(1);
    const far = pcpPck([{ x: gx.map((v) => v + 1000), y: gy }], [{ x: gx, y: gy }]);
    expect(far.pcp).toBe(0);
    expect(far.pck).toBe(0);
    expect(LSP_STICKS.length).toBe(10);
  });
});

import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataPath } from '../src/data/paths.js';
import { cli } from './helpers/capture.js';
import { needsData, releaseAddonOnly } from './helpers/skips.js';

// The README's real-data pose run (about 25 s on the release addon) takes over 3 minutes on the sanitizers' -O1
// build (GAPBCFW_ADDON); their run covers the same native code through the tiny-data tests of this file instead.

describe('gapbcfw train / eval / predict lsp:DIR (real LSP-small)', needsData('lsp', 'joints.mat'), () => {
  it('beats the mean-pose baseline; eval keeps the stored baseline and reads no training image; predict draws skeletons', releaseAddonOnly, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pose-'));
    const model = join(dir, 'pose.gbm');
    const lsp = `lsp:${dataPath('lsp')}`;
    const t = await cli('train', lsp, '--split', 'small', '--lambda', '10', '--max-passes', '10', '--test-limit', '100', '--out', model, '--json', '--quiet');
    expect(t.code, t.stderr).toBe(0);
    const r = t.json!;
    expect(r.n).toBe(100);
    expect(r.gapIsExact).toBe(true);
    // The model against the mean pose of its 100 training images, on the same 100 test images.
    expect(r.pcp as number).toBeGreaterThan((r.meanPosePcp as number) + 0.03);
    expect(r.pck as number).toBeGreaterThan(r.meanPosePck as number);
    // A copy of the folder holding only joints.mat and the 100 test images: eval must not need the training images.
    const testOnly = join(dir, 'lsp-test-only');
    mkdirSync(join(testOnly, 'images'), { recursive: true });
    symlinkSync(join(dataPath('lsp'), 'joints.mat'), join(testOnly, 'joints.mat'));
    for (let k = 1001; k <= 1100; k++) symlinkSync(join(dataPath('lsp'), 'images', `im${k}.jpg`), join(testOnly, 'images', `im${k}.jpg`));
    const e = await cli('eval', model, `lsp:${testOnly}`, '--test-limit', '100', '--json');
    expect(e.code, e.stderr).toBe(0);
    for (const key of ['pcp', 'pck', 'testError', 'meanPosePcp', 'meanPosePck']) expect(e.json![key]).toBe(r[key]);
    // Skeleton overlays of the test images: scaled by an integer to >= 480 px, a key below (and at least 480 px wide,
    // so that the key's three entries fit).
    const outDir = join(dir, 'overlays');
    const p = await cli('predict', model, lsp, '--test-limit', '2', '--out-dir', outDir, '--json', '--quiet');
    expect(p.code, p.stderr).toBe(0);
    expect(p.json!.images).toBe(2);
    const { default: sharp } = await import('sharp');
    const meta = await sharp(join(outDir, 'im1001.png')).metadata();
    const original = await sharp(join(dataPath('lsp'), 'images', 'im1001.jpg')).metadata();
    const s = Math.ceil(480 / original.height!);
    expect([meta.format, meta.width, meta.height]).toEqual(['png', Math.max(480, s * original.width!), s * original.height! + 34]);
  }, 180_000);
});
