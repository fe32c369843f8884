// The batched-pass skeleton (src/engine): for every model that plugs a BatchDecoder into it (dense chain,
// sparse chain, multiclass, segmentation) and for the adapter of the older whole-pass form (pose's),
//  - decoding any subset of blocks (any order, repeats) equals the full pass on those blocks, bit for bit;
//  - an in-memory pass in small chunks equals the pass in one chunk, and the thread count changes nothing;
//  - the per-object oracle's H equals the batched one whenever the labels agree;
// and the pass protocol around it: cancellation between chunks (fullOraclePassAsync, trainAsync's
// passSignal), the certificate a stopped run ends with, progress per chunk and the oracle counters.
import { describe, expect, it } from 'vitest';
import { type Problem, type StructuredModel } from '../src/core/problem.js';
import { modelProblem } from '../src/engine/problem.js';
import { Rng } from '../src/core/rng.js';
import { dotSparse, type SparseVector } from '../src/core/vector.js';
import { syntheticChain } from '../src/data/synthetic.js';
import { ChainModel } from '../src/models/chain.js';
import { MulticlassModel } from '../src/models/multiclass.js';
import { SegmentationModel, withAreas, type SegmentationGraph } from '../src/models/segmentation.js';
import { SparseChainModel, type SparseSequence } from '../src/models/sparse-chain.js';
import { preparedPass } from '../src/engine/engine.js';
import type { ScoringBackend } from '../src/core/scoring.js';
import { JsBackend } from '../kernels/js.js';
import { fullOraclePass, fullOraclePassAsync, type SolverPassProgress } from '../src/solvers/common.js';
import { trainAsync } from '../src/solvers/index.js';
import { setThreads } from '../src/native/threads.js';

const bits = (a: Float64Array) => Array.from(a, (x) => new DataView(Float64Array.of(x).buffer).getBigUint64(0).toString(16));
const asArrays = (labels: unknown[]) => labels.map((y) => (ArrayBuffer.isView(y) ? Array.from(y as Int32Array) : y));

interface Case {
  name: string;
  model: StructuredModel<unknown, unknown>;
  xs: unknown[];
  ys: unknown[];
  w: Float64Array;
}

function chainCase(threads = 2): Case {
  const data = syntheticChain({ sequences: 90, numLabels: 5, numFeatures: 12, seed: 7 });
  const model = new ChainModel({ numFeatures: data.numFeatures, numLabels: data.numLabels, threads });
  const rng = new Rng(3);
  return { name: 'dense chain', model: model as never, xs: data.examples.map((e) => e.x), ys: data.examples.map((e) => e.y), w: Float64Array.from({ length: model.dim }, () => rng.next() - 0.5) };
}

function sparseChainCase(): Case {
  const rng = new Rng(5);
  const F = 40;
  const K = 4;
  const xs: SparseSequence[] = [];
  const ys: Int32Array[] = [];
  for (let s = 0; s < 70; s++) {
    const T = 1 + rng.int(9);
    const offsets = new Int32Array(T + 1);
    const ids: number[] = [];
    for (let t = 0; t < T; t++) {
      const m = rng.int(5);
      for (let k = 0; k < m; k++) ids.push(rng.int(F));
      offsets[t + 1] = ids.length;
    }
    xs.push({ offsets, ids: Int32Array.from(ids), ...(s % 3 === 0 ? { values: Float64Array.from(ids, () => rng.next() * 2) } : {}) });
    ys.push(Int32Array.from({ length: T }, () => rng.int(K)));
  }
  const model = new SparseChainModel({ numFeatures: F, numLabels: K });
  return { name: 'sparse chain', model: model as never, xs, ys, w: Float64Array.from({ length: model.dim }, () => rng.next() - 0.5) };
}

function multiclassCase(): Case {
  const rng = new Rng(9);
  const F = 30;
  const K = 6;
  const xs: SparseVector[] = Array.from({ length: 150 }, (_, r) => {
    const indices = Int32Array.from({ length: F }, (_, j) => j).filter(() => rng.next() < 0.3);
    // a few rows repeat a feature: psi merges the repeats
    const ids = r % 11 === 0 && indices.length > 0 ? Int32Array.from([...indices, indices[0]!]) : indices;
    return { indices: ids, values: Float64Array.from(ids, () => rng.next()), nnz: ids.length };
  });
  const model = new MulticlassModel(F, K);
  return { name: 'multiclass', model: model as never, xs, ys: xs.map(() => rng.int(K)), w: Float64Array.from({ length: model.dim }, () => rng.next() - 0.5) };
}

function segmentationCase(): Case {
  const rng = new Rng(13);
  const DU = 5;
  const DP = 3;
  const xs: SegmentationGraph[] = [];
  const ys: Uint8Array[] = [];
  for (let k = 0; k < 40; k++) {
    const N = 2 + rng.int(12);
    const from: number[] = [];
    const to: number[] = [];
    for (let a = 0; a < N; a++) for (let b = a + 1; b < N; b++) if (rng.next() < 0.35) (from.push(a), to.push(b));
    const unary = Float32Array.from({ length: N * DU }, (_, j) => (j % DU === 0 ? 1 : Math.fround(rng.next() * 2 - 1)));
    const pairwise = Float32Array.from({ length: from.length * DP }, () => Math.fround(rng.next()));
    const areas = Float64Array.from({ length: N }, () => 1 + rng.int(50));
    xs.push({ numNodes: N, unary, edgeFrom: Int32Array.from(from), edgeTo: Int32Array.from(to), pairwise, areas });
    ys.push(withAreas(Uint8Array.from({ length: N }, () => (rng.next() < 0.5 ? 1 : 0)), areas));
  }
  const model = new SegmentationModel({ dUnary: DU, dPairwise: DP });
  const w = Float64Array.from({ length: DU + DP }, (_, j) => (j < DU ? rng.next() * 2 - 1 : rng.next()));
  return { name: 'segmentation', model: model as never, xs, ys, w };
}

/** A model whose prepareBatch is the older whole-pass function (as the pose model's is): the engine adapts it. */
function wholePassCase(): Case {
  const c = chainCase();
  const chain = c.model as unknown as ChainModel;
  const model = Object.assign(Object.create(chain) as ChainModel, {
    prepareBatch: (xs: readonly Float64Array[], ys: readonly Int32Array[], scoring?: ScoringBackend) => preparedPass(chain, xs, ys, scoring),
  });
  return { ...c, name: 'whole-pass adapter', model: model as never };
}

const CASES: (() => Case)[] = [chainCase, sparseChainCase, multiclassCase, segmentationCase, wholePassCase];

describe.each(CASES.map((make) => [make().name, make] as const))('batched oracle: %s', (_name, make) => {
  it('decodes any subset of blocks (any order, repeats) as the full pass does, bit for bit', () => {
    const c = make();
    const problem = modelProblem(c.model, c.xs, c.ys);
    const n = problem.n;
    const hinge = new Float64Array(n);
    const labels: unknown[] = [];
    for (const _ of problem.batch!.pass(c.w, { hinge, labels }));
    const rng = new Rng(1);
    for (const size of [1, 3, Math.min(17, n)]) {
      const blocks = Int32Array.from({ length: size + 2 }, () => rng.int(n));
      blocks[1] = blocks[0]!; // a repeat
      const got: unknown[] = [];
      const h = new Float64Array(size + 2);
      problem.batch!.decodeSubset(c.w, blocks, size, got, h);
      for (let q = 0; q < size; q++) {
        const i = blocks[q]!;
        expect(bits(h.subarray(q, q + 1))).toEqual(bits(hinge.subarray(i, i + 1)));
        expect(asArrays([got[q]])).toEqual(asArrays([labels[i]]));
      }
      expect(got.length).toBe(size); // entries past count untouched
    }
  });

  it('startSubset + finishSubset give what decodeSubset gives at the start\'s w, whatever w becomes meanwhile, on 1 and 2 threads', () => {
    const c = make();
    const problem = modelProblem(c.model, c.xs, c.ys);
    const batch = problem.batch!;
    const n = problem.n;
    const rng = new Rng(2);
    const blocks = Int32Array.from({ length: Math.min(13, n) }, () => rng.int(n));
    blocks[2] = blocks[1]!;
    const want: unknown[] = [];
    const wantH = new Float64Array(blocks.length);
    batch.decodeSubset(c.w, blocks, blocks.length - 1, want, wantH);
    for (const threads of [1, 2]) {
      setThreads(threads);
      try {
        const w = Float64Array.from(c.w);
        batch.startSubset!(w, blocks, blocks.length - 1);
        expect(() => batch.decodeSubset(w, blocks, 1, [], new Float64Array(1))).toThrow(/a subset is being decoded \(finishSubset first\)/);
        expect(() => batch.startSubset!(w, blocks, 1)).toThrow(/a subset is being decoded/);
        w.fill(0.25); // the decode works on the w of its start
        const got: unknown[] = [];
        const h = new Float64Array(blocks.length);
        const psis: (SparseVector | undefined)[] = [];
        batch.finishSubset!(got, h, psis);
        expect(bits(h.subarray(0, blocks.length - 1))).toEqual(bits(wantH.subarray(0, blocks.length - 1)));
        expect(asArrays(got)).toEqual(asArrays(want));
        // A background decode (the dense chain's, on 2 threads) also gives each label's psi, as the model's.
        expect(psis.length).toBe(blocks.length - 1);
        expect(psis.some((p) => p !== undefined)).toBe(threads === 2 && c.name === 'dense chain');
        psis.forEach((p, q) => {
          if (p === undefined) return;
          const mine = problem.psi(blocks[q]!, got[q]);
          expect([Array.from(p.indices.subarray(0, p.nnz)), bits(p.values.subarray(0, p.nnz))]).toEqual([Array.from(mine.indices.subarray(0, mine.nnz)), bits(mine.values.subarray(0, mine.nnz))]);
        });
        expect(() => batch.finishSubset!(got, h, psis)).toThrow(/no subset is being decoded \(startSubset first\)/);
      } finally {
        setThreads(undefined);
      }
    }
  });

  it('the per-object oracle gives the same H wherever it decodes the same label', () => {
    const c = make();
    const problem = modelProblem(c.model, c.xs, c.ys);
    const batched = fullOraclePass(problem, c.w);
    const sync = fullOraclePass({ ...problem, batch: undefined }, c.w);
    let same = 0;
    for (let i = 0; i < problem.n; i++) {
      const y = problem.oracle(i, c.w);
      const h = problem.loss(i, y) - dotSparse(c.w, problem.psi(i, y));
      if (h >= 0) {
        expect(batched.hinge[i], `block ${i}`).toBe(sync.hinge[i]);
        same++;
      }
    }
    expect(same).toBeGreaterThan(0);
  });
});

describe.each(CASES.slice(0, 4).map((make) => [make().name, make] as const))('chunked and threaded passes: %s', (_name, make) => {
  it('an in-memory pass in chunks of 7 equals the one-chunk pass (hinges, labels, predictions), with progress per chunk', () => {
    const c = make();
    const runs = [undefined, 7].map((passChunk) => {
      const seen: number[] = [];
      const problem = modelProblem(c.model, c.xs, c.ys, { ...(passChunk ? { passChunk } : {}), onPassProgress: (done) => seen.push(done) });
      const hinge = new Float64Array(problem.n);
      const labels: unknown[] = [];
      const predictions: unknown[] = [];
      for (const _ of problem.batch!.pass(c.w, { hinge, labels, predictions }));
      return { hinge: bits(hinge), labels: asArrays(labels), predictions: asArrays(predictions), seen };
    });
    expect(runs[1]!.hinge).toEqual(runs[0]!.hinge);
    expect(runs[1]!.labels).toEqual(runs[0]!.labels);
    expect(runs[1]!.predictions).toEqual(runs[0]!.predictions);
    expect(runs[0]!.seen).toEqual([c.xs.length]);
    expect(runs[1]!.seen.length).toBe(Math.ceil(c.xs.length / 7));
    expect(runs[1]!.seen.at(-1)).toBe(c.xs.length);
  });
});

describe('scoring backends', () => {
  it('a non-native backend scores whole passes (in one chunk, whatever passChunk); subsets go to the native scorer', () => {
    const c = chainCase();
    let calls = 0;
    const js = new (class extends JsBackend {
      override score(...args: Parameters<JsBackend['score']>): void {
        calls++;
        super.score(...args);
      }
    })();
    const problem = modelProblem(c.model, c.xs, c.ys, { scoring: js, passChunk: 7 });
    const seen: number[] = [];
    const hinge = new Float64Array(problem.n);
    for (const p of problem.batch!.pass(c.w, { hinge, predictions: [] })) seen.push(p.done);
    expect(seen).toEqual([problem.n]);
    expect(calls).toBe(2); // plain and loss-augmented scores of every row, once each
    problem.batch!.decodeSubset(c.w, Int32Array.of(4, 2), 2, [], new Float64Array(2));
    expect(calls).toBe(2);
    const native = fullOraclePass(modelProblem(c.model, c.xs, c.ys), c.w);
    expect(bits(hinge)).toEqual(bits(native.hinge)); // float64 backends decode the same labels here
  });
});

describe('threads', () => {
  it('the chain pass gives bit-identical hinges and labels on 1, 2 and 7 threads', () => {
    const results = [1, 2, 7].map((threads) => {
      const c = chainCase(threads);
      const problem = modelProblem(c.model, c.xs, c.ys);
      const labels: unknown[] = [];
      const hinge = new Float64Array(problem.n);
      for (const _ of problem.batch!.pass(c.w, { hinge, labels }));
      return { hinge: bits(hinge), labels: asArrays(labels) };
    });
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });
});

describe('cancellation and counters', () => {
  const c = chainCase();

  it('fullOraclePassAsync equals the synchronous pass, and an abort between chunks rejects with the reason', async () => {
    const problem = modelProblem(c.model, c.xs, c.ys, { passChunk: 10 });
    const sync = fullOraclePass(problem, c.w);
    const full = await fullOraclePassAsync(problem, c.w);
    expect(bits(full.hinge)).toEqual(bits(sync.hinge));
    const controller = new AbortController();
    const done: number[] = [];
    const aborted = fullOraclePassAsync(problem, c.w, { signal: controller.signal, onProgress: (p) => (done.push(p.done), p.done >= 30 && controller.abort(new Error('stop at 30'))) });
    await expect(aborted).rejects.toThrow('stop at 30');
    expect(done).toEqual([10, 20, 30]); // stopped after the chunk that saw the abort
    await expect(fullOraclePassAsync(problem, c.w, { signal: controller.signal })).rejects.toThrow('stop at 30');
  });

  it('passSignal abandons an exact pass inside trainAsync: the run ends at once without a certificate', async () => {
    for (const solver of ['bcfw', 'fw', 'ssg'] as const) {
      const problem = modelProblem(c.model, c.xs, c.ys, { passChunk: 10 });
      const passSignal = new AbortController();
      const chunks: SolverPassProgress[] = [];
      // Batch FW certifies every iteration (it takes no gapCheck).
      const settings = { solver, lambda: 0.01, maxPasses: 50, gapThreshold: 0, seed: 1, ...(solver === 'fw' ? {} : { gapCheck: 2 }) };
      const r = await trainAsync(problem, settings, {
        passSignal: passSignal.signal,
        onPassProgress: (p) => {
          chunks.push(p);
          if (p.pass === 4 && p.done === 30) passSignal.abort();
        },
      });
      expect(r.stopReason, solver).toBe('aborted');
      expect(r.gapIsExact, solver).toBe(false);
      expect(r.primal, solver).toBeUndefined();
      if (solver !== 'bcfw') expect(r.gap, solver).toBeUndefined();
      expect(chunks.at(-1)).toMatchObject({ solver, pass: 4, done: 30, total: c.xs.length }); // no chunk after the abort
      expect(r.passes).toBe(4);
    }
  });

  it('signal (not passSignal) during an exact pass lets it finish: the run ends certified', async () => {
    const problem = modelProblem(c.model, c.xs, c.ys, { passChunk: 10 });
    const signal = new AbortController();
    const r = await trainAsync(problem, { solver: 'bcfw', lambda: 0.01, maxPasses: 50, gapCheck: 2, gapThreshold: 0, seed: 1 }, { signal: signal.signal, onPassProgress: (p) => p.pass === 4 && p.done === 30 && signal.abort() });
    expect(r.stopReason).toBe('aborted');
    expect(r.gapIsExact).toBe(true);
    expect(r.passes).toBe(4);
    const pass = fullOraclePass(problem, r.w);
    let wSq = 0;
    for (const x of r.w) wSq += x * x;
    expect(r.primal).toBe(0.5 * 0.01 * wSq + pass.hingeSum / problem.n);
  });

  it('results carry the run\'s oracle counters; progress events carry each pass\'s', async () => {
    const problem = modelProblem(c.model, c.xs, c.ys);
    const progress: SolverPassProgress[] = [];
    const r = await trainAsync(problem, { solver: 'fw', lambda: 0.01, maxPasses: 3, gapThreshold: 0 }, { onPassProgress: (p) => progress.push(p) });
    expect(r.oracle).toBeDefined();
    expect(r.oracle!.examples).toBe(r.oracleCalls); // every oracle call of batch FW is a batched example
    expect(r.oracle!.scoringMs + r.oracle!.decodingMs + r.oracle!.checkingMs).toBeGreaterThan(0);
    expect(r.oracle!.recordsRead).toBe(0);
    expect(progress.length).toBe(r.passes + 1);
    expect(progress[0]).toMatchObject({ solver: 'fw', pass: 0, done: c.xs.length, total: c.xs.length, examples: c.xs.length, predictions: 0 });
    // a second run on the same problem counts its own work only
    const again = await trainAsync(problem, { solver: 'fw', lambda: 0.01, maxPasses: 1, gapThreshold: 0 });
    expect(again.oracle!.examples).toBe(again.oracleCalls);
  });

  it('the segmentation model times its per-object oracle calls into the problem\'s counters', () => {
    const s = segmentationCase();
    const problem: Problem = modelProblem(s.model, s.xs, s.ys);
    for (let i = 0; i < 5; i++) problem.oracle(i, s.w);
    const counted = problem.counters!();
    expect(counted.examples).toBe(5);
    expect(counted.decodingMs).toBeGreaterThan(0);
  });
});
