// Scoring backends (kernels/): every backend against the float64 reference, gpu.js chunking and indices
// beyond 2^24, the batched chain and multiclass passes per backend against the per-object oracle and
// brute-force enumeration, thread-count independence, and the calibrated chooser with its cache.
import { preparedPass } from '../src/engine/engine.js';
import { native } from '../src/native/addon.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  GpuJsBackend,
  JsBackend,
  MAX_CHUNK_VALUES,
  NativeBackend,
  chooseBackend,
  chunkRows,
  createBackend,
  type ScoringBackend,
} from '../kernels/index.js';
import { InputError } from '../src/core/errors.js';
import { modelProblem } from '../src/engine/problem.js';
import { Rng } from '../src/core/rng.js';
import { dotSparse } from '../src/core/vector.js';
import { syntheticChain } from '../src/data/synthetic.js';
import { ChainModel } from '../src/models/chain.js';
import { MulticlassModel } from '../src/models/multiclass.js';
import { SegmentationModel, type SegmentationGraph } from '../src/models/segmentation.js';
import { SparseChainModel, type SparseSequence } from '../src/models/sparse-chain.js';
import { fullOraclePass } from '../src/solvers/common.js';
import { bruteHinge, randomW, tinyChain } from './helpers/tiny.js';

const backends: [string, () => ScoringBackend][] = [
  ['js', () => new JsBackend()],
  ['native, 1 thread', () => new NativeBackend(1)],
  ['native, 2 threads', () => new NativeBackend(2)],
  ['gpujs (default mode)', () => new GpuJsBackend()],
  ['gpujs cpu', () => new GpuJsBackend({ mode: 'cpu' })],
  ['gpujs webasm, 7 rows per chunk', () => new GpuJsBackend({ mode: 'webasm', rowsPerChunk: 7 })],
];

/** A random scoring problem: sparse-ish rows, signed weights, a loss augmentation. */
function problem(seed: number, rows: number, cols: number, K: number) {
  const rng = new Rng(seed);
  const X = Float64Array.from({ length: rows * cols }, () => (rng.next() < 0.5 ? 0 : rng.next() * 2 - 1));
  const W = Float64Array.from({ length: K * cols }, () => rng.next() * 2 - 1);
  const labels = Int32Array.from({ length: rows }, () => rng.int(K));
  const weight = Float64Array.from({ length: rows }, () => rng.next());
  return { X, W, labels, weight };
}

/** The definition, written out independently of every backend. */
function reference(X: Float64Array, W: Float64Array, rows: number, cols: number, K: number, labels?: Int32Array, weight?: Float64Array): Float64Array {
  const out = new Float64Array(rows * K);
  for (let n = 0; n < rows; n++) {
    for (let k = 0; k < K; k++) {
      let s = labels && labels[n] !== k ? weight![n]! : 0;
      for (let j = 0; j < cols; j++) s += W[k * cols + j]! * X[n * cols + j]!;
      out[n * K + k] = s;
    }
  }
  return out;
}

function maxError(a: Float64Array, b: Float64Array): number {
  let e = 0;
  for (let i = 0; i < a.length; i++) e = Math.max(e, Math.abs(a[i]! - b[i]!));
  return e;
}

describe.each(backends)('scoring backend %s', (_name, make) => {
  const backend = make();
  afterAll(() => backend.dispose());
  const tolerance = backend.precision === 'float32' ? 2e-5 : 1e-12;

  it('matches the float64 definition, with and without the loss augmentation', () => {
    for (const [rows, cols, K] of [[1, 1, 1], [3, 5, 2], [50, 129, 26], [33, 17, 1]] as const) {
      const p = problem(rows * 7 + K, rows, cols, K);
      const X = backend.prepare(p.X, rows, cols);
      const out = new Float64Array(rows * K);
      backend.score(X, p.W, K, out);
      expect(maxError(out, reference(p.X, p.W, rows, cols, K))).toBeLessThan(tolerance * cols);
      backend.score(X, p.W, K, out, { labels: p.labels, weight: p.weight });
      expect(maxError(out, reference(p.X, p.W, rows, cols, K, p.labels, p.weight))).toBeLessThan(tolerance * cols);
    }
  });

  it('takes float32 feature rows (scores accumulated from their exact values)', () => {
    const p = problem(8, 30, 40, 3);
    const X32 = Float32Array.from(p.X);
    const out = new Float64Array(90);
    backend.score(backend.prepare(X32, 30, 40), p.W, 3, out, { labels: p.labels.map((y) => y % 3), weight: p.weight });
    expect(maxError(out, reference(Float64Array.from(X32), p.W, 30, 40, 3, p.labels.map((y) => y % 3), p.weight))).toBeLessThan(tolerance * 40);
  });

  it('reuses prepared rows across weight vectors and handles an empty batch', () => {
    const p = problem(5, 40, 9, 3);
    const X = backend.prepare(p.X, 40, 9);
    for (const seed of [1, 2]) {
      const W = randomW(27, seed);
      const out = new Float64Array(120);
      backend.score(X, W, 3, out);
      expect(maxError(out, reference(p.X, W, 40, 9, 3))).toBeLessThan(tolerance * 9);
    }
    backend.score(backend.prepare(new Float64Array(0), 0, 4), new Float64Array(8), 2, new Float64Array(0));
  });

  it('rejects bad shapes and labels with clear errors', () => {
    expect(() => backend.prepare(new Float64Array(5), 2, 3)).toThrow(/expected rows x cols = 6/);
    const X = backend.prepare(new Float64Array(6), 2, 3);
    expect(() => backend.score(X, new Float64Array(5), 2, new Float64Array(4))).toThrow(/W has 5 values/);
    expect(() => backend.score(X, new Float64Array(6), 2, new Float64Array(3))).toThrow(/out has 3 values/);
    expect(() => backend.score(X, new Float64Array(6), 2, new Float64Array(4), { labels: Int32Array.of(0, 2), weight: new Float64Array(2) })).toThrow(/outside 0..1/);
    if (backend.name !== 'js') {
      expect(() => backend.score(new JsBackend().prepare(new Float64Array(6), 2, 3), new Float64Array(6), 2, new Float64Array(4))).toThrow(/another backend/);
    }
  });
});

describe('gpu.js batches beyond 2^24 values', () => {
  it('scores 2^24 + 2^19 feature values correctly (chunks keep every flat offset exact in float32)', () => {
    const cols = 64;
    const rows = (MAX_CHUNK_VALUES + 2 ** 19) / cols; // 270,336 rows: 17.3 M values in X
    expect(rows * cols).toBeGreaterThan(2 ** 24);
    const K = 3;
    const rng = new Rng(11);
    const X = new Float64Array(rows * cols);
    for (let i = 0; i < X.length; i += 1 + rng.int(5)) X[i] = rng.int(3) - 1; // small integers: float32-exact sums
    const W = Float64Array.from({ length: K * cols }, () => rng.int(5) - 2);
    const expected = new Float64Array(rows * K);
    new NativeBackend().score(new NativeBackend().prepare(X, rows, cols), W, K, expected);
    const gpu = new GpuJsBackend();
    const out = new Float64Array(rows * K);
    gpu.score(gpu.prepare(X, rows, cols), W, K, out);
    gpu.dispose();
    // Integer data: float32 sums are exact, so any indexing error shows up as a mismatch.
    let wrong = 0;
    for (let i = 0; i < out.length; i++) if (out[i] !== expected[i]) wrong++;
    expect(wrong).toBe(0);
    expect(chunkRows(cols, K) * cols).toBeLessThanOrEqual(MAX_CHUNK_VALUES);
  });
});

describe('batched chain pass per backend', () => {
  const data = syntheticChain({ sequences: 150, numLabels: 5, numFeatures: 12, seed: 4 });
  const xs = data.examples.map((e) => e.x);
  const ys = data.examples.map((e) => e.y);
  const model = new ChainModel({ numFeatures: data.numFeatures, numLabels: data.numLabels });

  /** The per-object path: native Viterbi per sequence, H from psi. */
  function perObject(w: Float64Array) {
    const p = modelProblem(model, xs, ys);
    return ys.map((_, i) => {
      const y = p.oracle(i, w);
      return { y, h: Math.max(0, p.loss(i, y) - dotSparse(w, p.psi(i, y))) };
    });
  }

  it('decodes the per-object labels, with bit-identical float64 hinges across backends', () => {
    for (const seed of [1, 2]) {
      const w = randomW(model.dim, seed, 0.5);
      const ref = perObject(w);
      const byDefault = { hinge: new Float64Array(xs.length), labels: [] as Int32Array[], predictions: [] as Int32Array[] };
      preparedPass(model, xs, ys)(w, byDefault.hinge, byDefault.labels, byDefault.predictions);
      ref.forEach((r, i) => {
        expect(Array.from(byDefault.labels[i]!)).toEqual(Array.from(r.y));
        expect(byDefault.hinge[i]).toBeCloseTo(r.h, 12);
        expect(Array.from(byDefault.predictions[i]!), `prediction ${i}`).toEqual(Array.from(model.decode(w, xs[i]!)));
      });
      for (const [name, make] of backends) {
        const backend = make();
        const hinge = new Float64Array(xs.length);
        const labels: Int32Array[] = [];
        preparedPass(model, xs, ys, backend)(w, hinge, labels);
        backend.dispose();
        let differ = 0;
        for (let i = 0; i < xs.length; i++) {
          if (Array.from(labels[i]!).join() === Array.from(byDefault.labels[i]!).join()) {
            expect(hinge[i], `${name}, sequence ${i}`).toBe(byDefault.hinge[i]); // same labels: the same float64 H
          } else {
            // only a float32 near-tie may decode differently, and then H agrees to float32 accuracy
            differ++;
            expect(backend.precision).toBe('float32');
            expect(Math.abs(hinge[i]! - byDefault.hinge[i]!)).toBeLessThan(1e-5);
          }
        }
        expect(differ, name).toBeLessThanOrEqual(backend.precision === 'float32' ? 2 : 0);
      }
    }
  });

  it('gives the enumerated H_i(w) on tiny chains, for every backend', () => {
    const t = tinyChain(9, { n: 8, K: 3, D: 3, maxT: 4, backend: 'native' });
    const w = randomW(t.model.dim, 3);
    for (const [, make] of backends) {
      const backend = make();
      const hinge = new Float64Array(t.xs.length);
      preparedPass(t.model, t.xs, t.ys, backend)(w, hinge);
      backend.dispose();
      for (let i = 0; i < t.xs.length; i++) expect(hinge[i]).toBeCloseTo(bruteHinge(t, i, w), backend.precision === 'float32' ? 5 : 12);
    }
  });

  it('is independent of the thread count (parallel decoding = the sequential path)', () => {
    const w = randomW(model.dim, 7, 0.5);
    const run = (threads: number, scoring?: ScoringBackend) => {
      const m = new ChainModel({ numFeatures: data.numFeatures, numLabels: data.numLabels, threads });
      const hinge = new Float64Array(xs.length);
      const labels: Int32Array[] = [];
      preparedPass(m, xs, ys, scoring)(w, hinge, labels);
      return { hinge: Array.from(hinge), labels: labels.map((y) => Array.from(y)) };
    };
    expect(run(2)).toEqual(run(1));
    expect(run(2, new JsBackend())).toEqual(run(1, new JsBackend()));
  });

  it('certifies with the same gap through the solvers whatever the backend', () => {
    const w = randomW(model.dim, 5, 0.5);
    const sums = [undefined, new JsBackend(), new NativeBackend(2)].map((scoring) => fullOraclePass(modelProblem(model, xs, ys, { scoring }), w).hingeSum);
    expect(sums[1]).toBe(sums[0]);
    expect(sums[2]).toBe(sums[0]);
  });
});

describe('batched multiclass pass per backend', () => {
  const rng = new Rng(21);
  const F = 20;
  const K = 4;
  const xs = Array.from({ length: 300 }, () => {
    const indices = Int32Array.from(Array.from({ length: F }, (_, j) => j).filter(() => rng.next() < 0.4));
    return { indices, values: Float64Array.from(indices, () => rng.next() * 2 - 1), nnz: indices.length };
  });
  const ys = xs.map(() => rng.int(K));
  const model = new MulticlassModel(F, K);

  it('decodes the per-object argmax and its H in float64 on every backend', () => {
    const w = randomW(model.dim, 2);
    for (const [name, make] of backends) {
      const backend = make();
      const hinge = new Float64Array(xs.length);
      const labels: number[] = [];
      const predictions: number[] = [];
      preparedPass(model, xs, ys, backend)(w, hinge, labels, predictions);
      backend.dispose();
      let differ = 0;
      for (let i = 0; i < xs.length; i++) {
        if (backend.precision === 'float64') expect(predictions[i], `${name}, prediction ${i}`).toBe(model.decode(w, xs[i]!));
        const y = model.lossAugmentedDecode(w, xs[i]!, ys[i]!);
        const h = Math.max(0, model.loss(ys[i]!, y) - dotSparse(w, model.psi(xs[i]!, ys[i]!, y)));
        if (labels[i] === y) expect(hinge[i], `${name}, example ${i}`).toBe(h); // bit-identical to the per-object H
        else {
          differ++;
          expect(Math.abs(hinge[i]! - h)).toBeLessThan(1e-5);
        }
      }
      expect(differ, name).toBeLessThanOrEqual(backend.precision === 'float32' ? 2 : 0);
    }
  });

  it('rows that repeat a feature take the TypeScript psi (which merges the repeats): the same H as per object', () => {
    const w = randomW(model.dim, 4);
    const repeated = xs.map((x, i) => (i % 7 === 0 && x.nnz > 0 ? { indices: Int32Array.from([...x.indices, x.indices[0]!]), values: Float64Array.from([...x.values, 0.25]), nnz: x.nnz + 1 } : x));
    const hinge = new Float64Array(xs.length);
    preparedPass(model, repeated, ys)(w, hinge);
    repeated.forEach((x, i) => {
      const y = model.lossAugmentedDecode(w, x, ys[i]!);
      expect(hinge[i], `example ${i}`).toBe(Math.max(0, model.loss(ys[i]!, y) - dotSparse(w, model.psi(x, ys[i]!, y))));
    });
  });

  it('the prepared segmentation batch rejects malformed images with clear errors', () => {
    const image = (over: { truth?: Uint8Array; to?: Int32Array; unary?: unknown; pairwise?: Float32Array }) => ({
      unary: (over.unary ?? new Float32Array(2 * 3)) as Float32Array, pairwise: over.pairwise ?? new Float32Array(1 * 2), edgeFrom: Int32Array.of(0), edgeTo: over.to ?? Int32Array.of(1),
      truth: over.truth ?? Uint8Array.of(0, 1), lossWeights: new Float64Array(2), source: new Float64Array(2), sink: new Float64Array(2), potts: new Float64Array(1),
    });
    const make = (over: Parameters<typeof image>[0]) => () => new native.SegmentationBatch({ dUnary: 3, dPairwise: 2, images: [image(over)] });
    expect(make({})).not.toThrow();
    expect(make({ truth: Uint8Array.of(2, 0) })).toThrow(/truth must be 0 or 1/);
    expect(make({ to: Int32Array.of(2) })).toThrow(/edge 0 has an end outside 0..1/);
    expect(make({ unary: new Float64Array(6) })).toThrow(/images\[0\]: unary must be a Float32Array/);
    expect(make({ unary: new Float32Array(5) })).toThrow(/unary has length 5, expected 6/);
    expect(make({ pairwise: Float32Array.of(1, NaN) })).toThrow(/feature 1 is NaN/);
    const batch = new native.SegmentationBatch({ dUnary: 3, dPairwise: 2, images: [image({})] });
    const w = new Float64Array(5);
    expect(() => batch.psiDots({ w, labels: [Uint8Array.of(1, 2)], dots: new Float64Array(1) })).toThrow(/labels\[0\] must be 0 or 1/);
    expect(() => batch.psiDots({ w, labels: [], dots: new Float64Array(1) })).toThrow(/labels must be an array of 1 Uint8Arrays/);
    expect(() => batch.capacities({ w: new Float64Array(4) })).toThrow(/w has length 4, expected 5/);
    expect(() => batch.capacities({ w, items: Int32Array.of(1) })).toThrow(/items\[0\] = 1 is outside 0..0/);
  });

  it('the prepared multiclass batch rejects malformed rows with clear errors', () => {
    const one = (ids: Int32Array, truth = Int32Array.of(0)) => () =>
      new native.MulticlassBatch({ rowOffsets: Int32Array.of(0, ids.length), ids, values: new Float64Array(ids.length), truth, numFeatures: 3, numLabels: 2 });
    expect(one(Int32Array.of(0, 2))).not.toThrow();
    expect(one(Int32Array.of(0, 3))).toThrow(/ids\[1\] = 3 is outside 0..2/);
    expect(one(Int32Array.of(0), Int32Array.of(2))).toThrow(/truth\[0\] = 2 is outside 0..1/);
    const batch = one(Int32Array.of(0, 2))() as unknown as InstanceType<typeof native.MulticlassBatch>;
    expect(() => batch.hinges({ w: new Float64Array(6), labels: Int32Array.of(5), hinge: new Float64Array(1) })).toThrow(/labels\[0\] = 5 is outside 0..1/);
    expect(() => batch.scores({ w: new Float64Array(6), scores: new Float64Array(1) })).toThrow(/scores has length 1, expected 2/);
    expect(() => (batch.scores as (o: unknown) => void)(7)).toThrow(/expected an options object, got number/);
  });
});

describe('backend chooser', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-kernels-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a forced backend and reports it', () => {
    for (const name of ['native', 'js', 'gpujs'] as const) {
      const { backend, report } = chooseBackend(name, { cacheFile: null });
      expect(backend.name).toBe(name);
      expect(report).toMatchObject({ backend: name, how: 'forced', precision: backend.precision });
      expect(report.mode.length).toBeGreaterThan(0);
      backend.dispose();
    }
    expect(() => createBackend('cuda' as never)).toThrow(InputError);
    expect(() => chooseBackend('cuda' as never)).toThrow(/unknown scoring backend 'cuda'/);
  });

  it('calibrates once, caches the choice per machine, and recovers from a corrupt cache', () => {
    const file = join(dir, 'backend.json');
    const first = chooseBackend('auto', { cacheFile: file });
    expect(first.report.how).toBe('calibrated');
    // every backend that ran was timed, and the winner is the fastest of them
    const millis = first.report.millis!;
    expect(Object.keys(millis).sort()).toEqual(expect.arrayContaining(['js', 'native']));
    expect(millis[first.report.backend]).toBe(Math.min(...Object.values(millis)));
    first.backend.dispose();
    const cached = Object.values(JSON.parse(readFileSync(file, 'utf8')) as Record<string, { backend: string }>);
    expect(cached).toHaveLength(1);
    const second = chooseBackend('auto', { cacheFile: file });
    expect(second.report).toMatchObject({ how: 'cached', backend: first.report.backend });
    second.backend.dispose();
    writeFileSync(file, '{ not json');
    const third = chooseBackend('auto', { cacheFile: file });
    expect(third.report.how).toBe('calibrated');
    third.backend.dispose();
  });
});

describe('batched segmentation pass per backend', () => {
  const DU = 20;
  const DP = 5;
  const rng = new Rng(33);
  const graphs: SegmentationGraph[] = [];
  const truths: Uint8Array[] = [];
  for (let t = 0; t < 60; t++) {
    const N = 1 + (t % 10);
    const from: number[] = [];
    const to: number[] = [];
    for (let a = 0; a < N; a++) for (let b = a + 1; b < N; b++) if (rng.next() < 0.4) (from.push(a), to.push(b));
    const unary = Float32Array.from({ length: N * DU }, (_, k) => (k % DU === 0 ? 1 : rng.next() < 0.3 ? 0 : Math.fround(rng.next() * 2 - 1)));
    const pairwise = Float32Array.from({ length: from.length * DP }, () => Math.fround(rng.next()));
    const areas = Float64Array.from({ length: N }, () => 1 + rng.int(40));
    graphs.push({ numNodes: N, unary, edgeFrom: Int32Array.from(from), edgeTo: Int32Array.from(to), pairwise, areas });
    truths.push(Uint8Array.from({ length: N }, () => rng.int(2)));
  }
  const model = new SegmentationModel({ dUnary: DU, dPairwise: DP });
  const problem = modelProblem(model, graphs, truths); // validates (and attaches the areas to the truths)

  /** max over all 2^N labellings of L - <w, psi>: the exact H_i(w). */
  function bruteH(i: number, w: Float64Array): number {
    let best = -Infinity;
    const N = graphs[i]!.numNodes;
    for (let m = 0; m < 1 << N; m++) {
      const y = Uint8Array.from({ length: N }, (_, k) => (m >> k) & 1);
      best = Math.max(best, model.loss(truths[i]!, y) - dotSparse(w, model.psi(graphs[i]!, truths[i]!, y)));
    }
    return best;
  }

  it('equals the per-object oracle and brute-force enumeration on every backend', () => {
    const w = Float64Array.from({ length: DU + DP }, (_, j) => (j < DU ? rng.next() * 2 - 1 : rng.next()));
    const perObject = graphs.map((_, i) => {
      const y = problem.oracle(i, w);
      return { y, h: problem.loss(i, y) - dotSparse(w, problem.psi(i, y)) };
    });
    for (const [name, make] of [['model default', () => undefined], ...backends] as [string, () => ScoringBackend | undefined][]) {
      const scoring = make();
      const hinge = new Float64Array(graphs.length);
      const labels: Uint8Array[] = [];
      const predictions: Uint8Array[] = [];
      preparedPass(model, graphs, truths, scoring)(w, hinge, labels, predictions);
      scoring?.dispose();
      for (let i = 0; i < graphs.length; i++) {
        if (scoring?.precision !== 'float32') expect(Array.from(predictions[i]!), `${name}, prediction ${i}`).toEqual(Array.from(model.decode(w, graphs[i]!)));
        expect(hinge[i], `${name}, image ${i}`).toBeCloseTo(bruteH(i, w), scoring?.precision === 'float32' ? 5 : 12);
        if (Array.from(labels[i]!).join() === Array.from(perObject[i]!.y).join()) expect(hinge[i]).toBe(Math.max(0, perObject[i]!.h));
      }
    }
  });
});

describe('batched sparse-chain (CoNLL-style) pass', () => {
  const rng = new Rng(44);
  const F = 50;
  const K = 4;
  const xs: SparseSequence[] = [];
  const ys: Int32Array[] = [];
  for (let s = 0; s < 80; s++) {
    const T = 1 + rng.int(6);
    const offsets = new Int32Array(T + 1);
    const ids: number[] = [];
    for (let t = 0; t < T; t++) {
      for (let a = 0; a < 1 + rng.int(5); a++) ids.push(rng.int(F));
      offsets[t + 1] = ids.length;
    }
    xs.push({ offsets, ids: Int32Array.from(ids), ...(s % 3 === 0 ? { values: Float64Array.from(ids, () => rng.next() * 2) } : {}) });
    ys.push(Int32Array.from({ length: T }, () => rng.int(K)));
  }

  it('gives the per-object labels and bit-identical H, for the native and the TypeScript decoders', () => {
    for (const backend of ['native', 'js'] as const) {
      const model = new SparseChainModel({ numFeatures: F, numLabels: K, backend });
      const w = randomW(model.dim, 3);
      const problem = modelProblem(model, xs, ys);
      const hinge = new Float64Array(xs.length);
      const labels: Int32Array[] = [];
      const predictions: Int32Array[] = [];
      preparedPass(model, xs, ys)(w, hinge, labels, predictions);
      for (let i = 0; i < xs.length; i++) {
        expect(Array.from(predictions[i]!), `${backend}, prediction ${i}`).toEqual(Array.from(model.decode(w, xs[i]!)));
        const y = problem.oracle(i, w);
        expect(Array.from(labels[i]!), `${backend}, sentence ${i}`).toEqual(Array.from(y));
        expect(hinge[i]).toBe(Math.max(0, problem.loss(i, y) - dotSparse(w, problem.psi(i, y))));
      }
    }
  });
});
