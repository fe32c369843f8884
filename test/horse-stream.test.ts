import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../src/core/rng.js';
import { type Problem } from '../src/core/problem.js';
import { modelProblem, meanLoss } from '../src/engine/problem.js';
import { FormatError, InputError } from '../src/core/errors.js';
import { HorseDataset, mergeHorseParts, trainingBytes, writeHorseDataset, type HorseRecord } from '../src/data/horse.js';
import { HorseRecordReader, shouldStream, StreamedHorseSet } from '../src/data/horse-stream.js';
import { chunksOf } from '../src/core/dataset.js';
import { loadTask } from '../src/tasks/index.js';
import { SegmentationModel, segmentationLoss } from '../src/models/segmentation.js';
import { dotSparse } from '../src/core/vector.js';
import { train } from '../src/solvers/index.js';
import type { TrainSettings } from '../src/solvers/settings.js';
import { main } from '../src/cli/main.js';
import { loadModel } from '../src/tasks/model.js';
import { capture } from './helpers/capture.js';
import { spawn, spawnSync } from 'node:child_process';
import { fullOraclePass, fullOraclePassAsync } from '../src/solvers/common.js';

/** The batched exact pass of a problem, run to its end: hinges and, when given, the plain predictions. */
function runPass<Y>(problem: Problem<Y>, w: Float64Array, hinge: Float64Array, predictions?: Y[]): void {
  for (const _ of problem.batch!.pass(w, { hinge, ...(predictions ? { predictions } : {}) }));
}

/**
 * A child script (in the tests' temporary folder) over the streamed training set: `problem` (one-image chunks), `set` and `w`
 * (0.1 everywhere) are defined, `imports` names more of src/ (name: module path), `body` follows.
 */
function streamedScript(name: string, imports: Record<string, string>, body: string[]): string {
  const src = new URL('../src/', import.meta.url).href;
  const script = join(root, name);
  writeFileSync(script, [
    `import { HorseDataset } from '${src}data/horse.js';`,
    `import { StreamedHorseSet } from '${src}data/horse-stream.js';`,
    `import { SegmentationModel } from '${src}models/segmentation.js';`,
    `import { modelProblem } from '${src}engine/problem.js';`,
    ...Object.entries(imports).map(([fn, module]) => `import { ${fn} } from '${src}${module}';`),
    `const ds = new HorseDataset(${JSON.stringify(dir)});`,
    `const set = new StreamedHorseSet(ds, ds.indices('train'));`,
    `const problem = modelProblem(new SegmentationModel({ dUnary: ${DU}, dPairwise: ${DP} }), set, { passChunk: 1 });`,
    `const w = new Float64Array(${DU + DP}).fill(0.1);`,
    ...body,
  ].join('\n'));
  return script;
}

const DU = 12;
const DP = 4;

/** A random superpixel image: a grid of superpixels (4-neighbour edges), features in [0, 1), labels by a hidden rule. */
function randomRecord(rng: Rng, name: string): HorseRecord {
  const rows = 2 + rng.int(3);
  const cols = 2 + rng.int(3);
  const N = rows * cols;
  const from: number[] = [];
  const to: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      if (c + 1 < cols) from.push(r * cols + c), to.push(r * cols + c + 1);
      if (r + 1 < rows) from.push(r * cols + c), to.push((r + 1) * cols + c);
    }
  }
  const E = from.length;
  const unary = new Float32Array(N * DU);
  const labels = new Uint8Array(N);
  for (let i = 0; i < N; i++) {
    unary[i * DU] = 1;
    for (let j = 1; j < DU; j++) unary[i * DU + j] = rng.next() < 0.3 ? 0 : rng.next();
    labels[i] = unary[i * DU + 1]! + 0.3 * rng.next() > 0.6 ? 1 : 0;
  }
  const pairwise = new Float32Array(E * DP);
  for (let q = 0; q < pairwise.length; q++) pairwise[q] = rng.next();
  const areas = new Float64Array(N);
  for (let i = 0; i < N; i++) areas[i] = 1 + rng.int(40);
  const H = 3 + rng.int(4);
  const W = 3 + rng.int(5); // odd sizes: the superpixel map needs padding
  const superpixels = new Uint16Array(H * W);
  for (let p = 0; p < H * W; p++) superpixels[p] = rng.int(N);
  return { name, height: H, width: W, graph: { numNodes: N, unary, edgeFrom: Int32Array.from(from), edgeTo: Int32Array.from(to), pairwise, areas }, labels, superpixels };
}

const CODEBOOKS = { colour: new Float32Array(3), gradient: new Float32Array(0) };

function writeSet(dir: string, n: number, nTest: number, seed: number, part?: string, prefix = 'img'): HorseRecord[] {
  const rng = new Rng(seed);
  const recs = Array.from({ length: n + nTest }, (_, k) => ({ ...randomRecord(rng, `${prefix}${k}`), split: (k < n ? 'train' : 'test') as 'train' | 'test' }));
  writeHorseDataset(dir, recs, { colourWords: 1, gradientWords: 0 }, CODEBOOKS, undefined, part);
  return recs;
}

const bytesOf = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

let root: string;
let dir: string;
let records: HorseRecord[];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'horse-stream-'));
  dir = join(root, 'set');
  records = writeSet(dir, 24, 6, 7);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('HorseRecordReader', () => {
  it('reads every record bit for bit as decodeRecord does, in any order, through reused buffers', () => {
    const ds = new HorseDataset(dir);
    for (const slots of [1, 3]) {
      const reader = new HorseRecordReader(ds, slots);
      const rng = new Rng(3 + slots);
      const order = Array.from({ length: records.length * 3 }, (_, q) => (q % 2 === 0 ? rng.int(records.length) : q % records.length));
      const buffers = new Set<ArrayBufferLike>();
      for (const k of order) {
        const r = reader.record(k);
        const ref = records[k]!;
        for (const key of ['unary', 'edgeFrom', 'edgeTo', 'pairwise', 'areas'] as const) expect(bytesOf(r.graph[key]).equals(bytesOf(ref.graph[key]))).toBe(true);
        expect(r.graph.numNodes).toBe(ref.graph.numNodes);
        expect([...r.labels]).toEqual([...ref.labels]);
        expect([...r.superpixels]).toEqual([...ref.superpixels]);
        buffers.add(r.graph.unary.buffer);
      }
      // no per-call allocation of feature arrays: all views live in the `slots` slot buffers
      expect(buffers.size).toBe(slots);
      expect(reader.stats.reads + reader.stats.hits).toBe(order.length);
      // the ground truth comes from a short read of the head, as fresh arrays
      const gt = reader.groundTruth(5, Buffer.alloc(16));
      expect([...gt.labels]).toEqual([...records[5]!.labels]);
      expect([...gt.areas]).toEqual([...records[5]!.graph.areas]);
      reader.close();
    }
  });

  it('reads records spread over parts joined by mergeHorseParts', () => {
    const pdir = join(root, 'parts');
    const a = writeSet(pdir, 5, 2, 11, 'a', 'a');
    const b = writeSet(pdir, 4, 0, 12, 'b', 'b');
    const meta = mergeHorseParts(pdir);
    expect(meta.images.map((i) => i.file)).toEqual([...a.map(() => 'horse-a.bin'), ...b.map(() => 'horse-b.bin')]);
    const ds = new HorseDataset(pdir);
    const reader = new HorseRecordReader(ds, 1);
    [...a, ...b].forEach((ref, k) => {
      expect(bytesOf(reader.graph(k).unary).equals(bytesOf(ref.graph.unary))).toBe(true);
      expect(bytesOf(ds.read(k).graph.pairwise).equals(bytesOf(ref.graph.pairwise))).toBe(true);
    });
    reader.close();
  });
});

describe('interrupted prepare', () => {
  it('leaves an index of the records written so far, marked incomplete; merge refuses it unless allowed', () => {
    const pdir = join(root, 'interrupted');
    const rng = new Rng(31);
    const recs = Array.from({ length: 5 }, (_, k) => ({ ...randomRecord(rng, `r${k}`), split: 'train' as const }));
    function* failing() {
      for (const [k, r] of recs.entries()) {
        if (k === 4) throw new Error('killed');
        yield r;
      }
    }
    expect(() => writeHorseDataset(pdir, failing(), { colourWords: 1, gradientWords: 0 }, CODEBOOKS, undefined, 'x', 2)).toThrow('killed');
    const part = JSON.parse(readFileSync(join(pdir, 'horse-x.json'), 'utf8')) as { incomplete?: boolean; images: unknown[] };
    expect(part.incomplete).toBe(true);
    expect(part.images.length).toBe(4); // flushed after records 2 and 4; the 5th never came
    expect(() => mergeHorseParts(pdir)).toThrow(/incomplete/);
    const meta = mergeHorseParts(pdir, undefined, true);
    expect(meta.incomplete).toBe(true);
    const reader = new HorseRecordReader(new HorseDataset(pdir));
    expect(bytesOf(reader.graph(3).unary).equals(bytesOf(recs[3]!.graph.unary))).toBe(true);
    reader.close();
  });
});

describe('streamed problem = in-memory problem', () => {
  const variants: [string, TrainSettings][] = [
    ['bcfw with averaging', { lambda: 0.05, maxPasses: 12, gapCheck: 4, gapThreshold: 0, seed: 3 }],
    ['bcpfw, gap sampling, cache 5', { lambda: 0.05, maxPasses: 12, gapCheck: 3, gapThreshold: 0, seed: 5, step: 'pairwise', sampling: 'gap', cache: { maxSize: 5 } } as TrainSettings],
    ['bcfw, perm, cache 50, sparse blocks', { lambda: 0.2, maxPasses: 8, gapCheck: 2, gapThreshold: 0, seed: 9, sampling: 'perm', cache: { maxSize: 50 }, blockStorage: 'sparse' } as TrainSettings],
    ['batch FW', { solver: 'fw', lambda: 0.05, maxPasses: 10, gapThreshold: 0 } as TrainSettings],
  ];
  for (const [name, options] of variants) {
    it(`${name}: same seed, same trace and weights bit for bit`, () => {
      const ds = new HorseDataset(dir);
      const mem = ds.load('train');
      const m1 = new SegmentationModel({ dUnary: DU, dPairwise: DP });
      const r1 = train(modelProblem(m1, mem.xs, mem.ys), options);
      const set = new StreamedHorseSet(ds, ds.indices('train'), { slots: 1 });
      const m2 = new SegmentationModel({ dUnary: DU, dPairwise: DP });
      const r2 = train(modelProblem(m2, set), options);
      const strip = (t: typeof r1.trace) => t.map(({ seconds: _s, ...rest }) => rest);
      expect(strip(r2.trace)).toEqual(strip(r1.trace));
      expect(bytesOf(r2.w).equals(bytesOf(r1.w))).toBe(true);
      expect(r2.oracleCalls).toBe(r1.oracleCalls);
      expect(r1.trace.filter((e) => e.gapIsExact).length).toBeGreaterThan(1);
      // the run does move: the Potts weights are clipped at 0, the gap shrinks
      expect(r1.w.slice(DU).every((x) => x >= 0)).toBe(true);
      expect(r1.gap!).toBeLessThan(r1.trace.find((e) => e.gapIsExact)!.gap!);
      // it read every training record, one at a time
      expect(set.reader.stats.reads).toBeGreaterThanOrEqual(mem.xs.length);
      set.close();
    });
  }

  it('the streamed batched exact pass, chunk by chunk with progress, equals the in-memory pass and the per-object oracle', () => {
    const ds = new HorseDataset(dir);
    const mem = ds.load('train');
    const model = new SegmentationModel({ dUnary: DU, dPairwise: DP });
    const rng = new Rng(4);
    const w = Float64Array.from({ length: DU + DP }, (_, j) => (j < DU ? rng.next() * 2 - 1 : rng.next()));
    const inMemory = modelProblem(model, mem.xs, mem.ys);
    const whole = new Float64Array(mem.xs.length);
    const wholePredictions: Uint8Array[] = [];
    runPass(inMemory, w, whole, wholePredictions);
    mem.xs.forEach((x, i) => expect(Array.from(wholePredictions[i]!)).toEqual(Array.from(model.decode(w, x))));
    const set = new StreamedHorseSet(ds, ds.indices('train'), { slots: 1 });
    const seen: number[] = [];
    const streamedProblem = modelProblem(model, set, { onPassProgress: (done, total) => seen.push(done / total) });
    const streamed = new Float64Array(mem.xs.length);
    const streamedPredictions: Uint8Array[] = [];
    runPass(streamedProblem, w, streamed, streamedPredictions);
    expect(bytesOf(streamed).equals(bytesOf(whole))).toBe(true);
    expect(streamedPredictions.map((y) => Array.from(y))).toEqual(wholePredictions.map((y) => Array.from(y)));
    expect(seen.at(-1)).toBe(1);
    // chunks of 5 images (the default is 128): the same numbers
    const chunked = new Float64Array(mem.xs.length);
    runPass(modelProblem(model, set, { passChunk: 5 }), w, chunked);
    expect(bytesOf(chunked).equals(bytesOf(whole))).toBe(true);
    // and the per-object oracle, block by block
    for (let i = 0; i < mem.xs.length; i++) {
      const y = inMemory.oracle(i, w);
      expect(whole[i]).toBe(Math.max(0, inMemory.loss(i, y) - dotSparse(w, inMemory.psi(i, y))));
    }
    set.close();
  });

  it('a streamed pass stops between chunks on an abort; subsets decode as the pass does; reads are counted', async () => {
    const ds = new HorseDataset(dir);
    const model = new SegmentationModel({ dUnary: DU, dPairwise: DP });
    const rng = new Rng(8);
    const w = Float64Array.from({ length: DU + DP }, (_, j) => (j < DU ? rng.next() * 2 - 1 : rng.next()));
    const set = new StreamedHorseSet(ds, ds.indices('train'), { slots: 1 });
    const problem = modelProblem(model, set, { passChunk: 4 });
    const whole = fullOraclePass(problem, w);
    // aborted after the second chunk of 4: 8 of 24 records read by the pass, then a rejection with the reason
    const before = set.reader.stats.reads;
    const controller = new AbortController();
    const seen: number[] = [];
    await expect(fullOraclePassAsync(problem, w, { signal: controller.signal, onProgress: (p) => (seen.push(p.done), p.done === 8 && controller.abort(new Error('SIGTERM'))) })).rejects.toThrow('SIGTERM');
    expect(seen).toEqual([4, 8]);
    expect(set.reader.stats.reads - before).toBe(8);
    // a subset of blocks, read and decoded together: the pass's hinges
    const blocks = Int32Array.of(17, 3, 3, 22);
    const labels: Uint8Array[] = [];
    const hinge = new Float64Array(4);
    problem.batch!.decodeSubset(w, blocks, 4, labels, hinge);
    blocks.forEach((i, q) => expect(hinge[q]).toBe(whole.hinge[i]));
    // the problem's counters: every record the passes and the subset read, with bytes and milliseconds
    const counted = problem.counters!();
    expect(counted.recordsRead).toBe(set.reader.stats.reads);
    expect(counted.bytesRead).toBeGreaterThan(0);
    expect(counted.examples).toBe(24 + 8 + 4);
    set.close();
  });

  it('a real SIGTERM stops a streamed exact pass between chunks (library-level handler, exit 143)', async () => {
    const script = streamedScript('sigterm.mts', { fullOraclePassAsync: 'solvers/common.js' }, [
      `const controller = new AbortController();`,
      `process.on('SIGTERM', () => controller.abort(new Error('SIGTERM')));`,
      `let done = 0;`,
      `try {`,
      `  // passes until the signal comes (each chunk also sleeps a little, so the parent can signal mid-pass)`,
      `  for (;;) await fullOraclePassAsync(problem, w, { signal: controller.signal, onProgress: (p) => { done = p.done; if (p.done === 1) console.log('started'); const t = Date.now() + 20; while (Date.now() < t); } });`,
      `} catch (e) {`,
      `  console.log(JSON.stringify({ stopped: String((e as Error).message), done, total: problem.n }));`,
      `  process.exit(143);`,
      `}`,
    ]);
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: new URL('..', import.meta.url).pathname, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (b) => (err += b));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (b) => ((out += b), out.includes('started') && resolve()));
      child.on('exit', () => resolve());
    });
    child.kill('SIGTERM');
    expect(await exited, err).toBe(143);
    const report = JSON.parse(out.trim().split('\n').at(-1)!) as { stopped: string; done: number; total: number };
    expect(report.stopped).toBe('SIGTERM');
    expect(report.done).toBeGreaterThanOrEqual(1);
    expect(report.done).toBeLessThan(report.total); // between chunks, not after a whole pass
  });

  it('a synchronous run over a streamed set lets go of each chunk it decoded (native batches released, not left to finalizers)', () => {
    // Finalizers of native objects run only when the event loop turns, never inside a synchronous train(): before the
    // engine released each chunk's batch, every record a pass read stayed pinned until the run returned (24 GB on 735
    // augmented horses). Here: 400 exact passes of one-image chunks, then a synchronous run with mini-batches (a
    // decoder per mini-batch); the arrays held must stay near one pass's, not grow with the passes.
    const script = streamedScript('held.mts', { fullOraclePass: 'solvers/common.js', train: 'solvers/index.js' }, [
      `fullOraclePass(problem, w);`,
      `const held = () => process.memoryUsage().arrayBuffers;`,
      `const afterOne = held();`,
      `for (let p = 0; p < 400; p++) fullOraclePass(problem, w);`,
      `const afterPasses = held();`,
      `train(problem, { lambda: 0.05, batch: 4, maxPasses: 400, gapCheck: 1000, gapThreshold: 0 });`,
      `console.log(JSON.stringify({ afterOne, afterPasses, afterTrain: held(), readBytes: set.reader.stats.bytes }));`,
    ]);
    const r = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: new URL('..', import.meta.url).pathname, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const m = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { afterOne: number; afterPasses: number; afterTrain: number; readBytes: number };
    const ds = new HorseDataset(dir);
    const setBytes = ds.indices('train').reduce((sum, k) => sum + ds.meta.images[k]!.bytes, 0);
    // the passes and the run read hundreds of times the set (every record a fresh copy) ...
    expect(m.readBytes).toBeGreaterThan(500 * setBytes);
    // ... and hold no more than a few sets' worth of arrays at the end
    const allowance = 4 * setBytes + 1e6;
    expect(m.afterPasses - m.afterOne).toBeLessThan(allowance);
    expect(m.afterTrain - m.afterOne).toBeLessThan(allowance);
  });

  it('loss and prediction through the streamed Dataset match the in-memory set (independent loss by hand)', () => {
    const ds = new HorseDataset(dir);
    const set = new StreamedHorseSet(ds, ds.indices('test'));
    const model = new SegmentationModel({ dUnary: DU, dPairwise: DP });
    const w = Float64Array.from({ length: DU + DP }, (_, j) => Math.sin(j + 1));
    expect(set.length).toBe(6);
    let byHand = 0;
    for (let i = 0; i < set.length; i++) {
      const ref = records[24 + i]!;
      const y = model.decode(w, ref.graph);
      let fg = 0, bg = 0, fn = 0, fp = 0;
      for (let q = 0; q < y.length; q++) {
        const a = ref.graph.areas[q]!;
        if (ref.labels[q]) { fg += a; if (!y[q]) fn += a; } else { bg += a; if (y[q]) fp += a; }
      }
      byHand += fg === 0 ? fp / bg : bg === 0 ? fn / fg : (fn / fg + fp / bg) / 2;
      expect(segmentationLoss(set.ys[i]!, y)).toBe(segmentationLoss(ref.labels, y, ref.graph.areas));
    }
    expect(meanLoss(model, w, set)).toBeCloseTo(byHand / 6, 14);
    expect(set.slice(2, 4).length).toBe(2);
    expect(bytesOf(set.slice(2, 4).input(1).unary).equals(bytesOf(records[27]!.graph.unary))).toBe(true);
    // chunks are fresh copies, read in order
    const chunks = [...chunksOf(set, 4)];
    expect(chunks.map((c) => [c.start, c.inputs.length])).toEqual([[0, 4], [4, 2]]);
    expect(bytesOf(chunks[0]!.inputs[3]!.unary).equals(bytesOf(records[27]!.graph.unary))).toBe(true);
    set.close();
  });
});

describe('validation of streamed records', () => {
  it('rejects a non-finite feature at its first read, a bad label at open, a truncated file', () => {
    const bad = join(root, 'bad');
    const recs = writeSet(bad, 4, 0, 21);
    const meta = JSON.parse(readFileSync(join(bad, 'horse.json'), 'utf8')) as { images: { offset: number; bytes: number; numNodes: number; numEdges: number }[] };
    const ds = new HorseDataset(bad);
    const model = new SegmentationModel({ dUnary: DU, dPairwise: DP });
    // NaN in record 2's unary features (the first feature value of node 0 is at 28 + 8E + 8N + pad4(N))
    const im = meta.images[2]!;
    const at = im.offset + 28 + 8 * im.numEdges + 8 * im.numNodes + ((im.numNodes + 3) & ~3) + 4 * 3;
    const fd = openSync(join(bad, 'horse.bin'), 'r+');
    const nan = Buffer.alloc(4);
    nan.writeFloatLE(Number.NaN);
    writeSync(fd, nan, 0, 4, at);
    closeSync(fd);
    const set = new StreamedHorseSet(ds, ds.indices('train'));
    const p = modelProblem(model, set);
    const w = new Float64Array(DU + DP);
    expect(() => p.oracle(0, w)).not.toThrow();
    expect(() => p.oracle(2, w)).toThrow(InputError);
    expect(() => p.oracle(2, w)).toThrow(/img2: unary\[3\] is NaN/);
    set.close();
    // a label 2 in record 1: refused when the set is opened
    const fd2 = openSync(join(bad, 'horse.bin'), 'r+');
    const im1 = meta.images[1]!;
    writeSync(fd2, Buffer.from([2]), 0, 1, im1.offset + 28 + 8 * im1.numEdges + 8 * im1.numNodes);
    closeSync(fd2);
    expect(() => new StreamedHorseSet(ds, [1])).toThrow(/img1: label of superpixel 0 is 2/);
    // truncated: the last record is cut short
    const last = meta.images[3]!;
    const whole = readFileSync(join(bad, 'horse.bin'));
    writeFileSync(join(bad, 'horse.bin'), whole.subarray(0, last.offset + last.bytes - 10));
    const r = new HorseRecordReader(new HorseDataset(bad));
    expect(() => r.graph(3)).toThrow(FormatError);
    expect(() => r.graph(3)).toThrow(/truncated/);
    r.close();
    expect(recs.length).toBe(4);
  });

  it('decides streaming by size unless told (--stream / --in-memory)', async () => {
    const ds = new HorseDataset(dir);
    const all = ds.indices('all');
    expect(shouldStream(ds, all)).toBe(false); // a few KB
    expect(shouldStream(ds, all, true)).toBe(true);
    expect(shouldStream(ds, all, false)).toBe(false);
    expect((await loadTask(`horse:${dir}`, { stream: true })).description).toMatch(/streamed from disk/);
    expect((await loadTask(`horse:${dir}`)).description).not.toMatch(/streamed/);
  });
});

describe('fingerprint of a horse set', () => {
  it('is the same in memory and streamed, costs no read after a pass, sees features but not the superpixel map', async () => {
    const copy = join(root, 'fp');
    writeSet(copy, 8, 2, 21);
    const inMemory = await loadTask(`horse:${copy}`, { stream: false });
    const streamed = await loadTask(`horse:${copy}`, { stream: true });
    const fp = inMemory.train.fingerprint();
    expect(fp).toMatch(/^horse:8:[0-9a-f]{8}$/);
    // a pass reads every record: the fingerprint then needs no further read
    const set = streamed.train as StreamedHorseSet;
    expect(set).toBeInstanceOf(StreamedHorseSet);
    runPass(modelProblem(new SegmentationModel({ dUnary: DU, dPairwise: DP }), set), new Float64Array(DU + DP), new Float64Array(8));
    const reads = set.reader.stats.reads;
    expect(streamed.train.fingerprint()).toBe(fp);
    expect(set.reader.stats.reads).toBe(reads);
    expect(streamed.test!.fingerprint()).toBe(inMemory.test!.fingerprint());
    expect(inMemory.test!.fingerprint()).not.toBe(fp);
    // flip one byte: in the first record's superpixel map (the record's last bytes), then in its unary features
    const ds = new HorseDataset(copy);
    const im = ds.meta.images[0]!;
    const bin = join(copy, 'horse.bin');
    const flip = (at: number) => {
      const b = readFileSync(bin);
      b[at] = b[at]! ^ 0xff;
      writeFileSync(bin, b);
    };
    flip(im.offset + im.bytes - 1);
    expect((await loadTask(`horse:${copy}`, { stream: false })).train.fingerprint()).toBe(fp);
    flip(im.offset + trainingBytes(im) - 1);
    const changed = (await loadTask(`horse:${copy}`, { stream: false })).train.fingerprint();
    expect(changed).not.toBe(fp);
    expect((await loadTask(`horse:${copy}`, { stream: true })).train.fingerprint()).toBe(changed);
  });
});

describe('CLI on a streamed set', () => {
  it('train / gap / eval give the same numbers streamed and in memory', async () => {
    const results: Record<string, Record<string, unknown>>[] = [];
    for (const mode of ['--in-memory', '--stream']) {
      const model = join(root, `m${mode}.gbm`);
      const args = ['--lambda', '0.05', '--max-passes', '6', '--gap-check', '3', '--gap-threshold', '0', '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--cache-size', '5', '--json', '--quiet', mode];
      const t = await capture(main, ['train', `horse:${dir}`, ...args, '--out', model]);
      expect(t.code).toBe(0);
      const g = await capture(main, ['gap', model, `horse:${dir}`, '--json', mode]);
      const e = await capture(main, ['eval', model, `horse:${dir}`, '--json', mode]);
      results.push({ t: t.json!, g: g.json!, e: e.json!, w: { w: [...loadModel(model).w] } });
    }
    const [mem, str] = results as [Record<string, Record<string, unknown>>, Record<string, Record<string, unknown>>];
    for (const key of ['primal', 'dual', 'gap', 'oracleCalls', 'cacheHits', 'testError']) expect(str.t![key]).toBe(mem.t![key]);
    expect(str.w!.w).toEqual(mem.w!.w);
    for (const key of ['primal', 'gap', 'trainError']) expect(str.g![key]).toBe(mem.g![key]);
    expect(str.g!.gap as number).toBeCloseTo(str.t!.gap as number, 10);
    expect(str.e!.testError).toBe(mem.e!.testError);
    expect(str.e!.testError).toBe(str.t!.testError);
  });
});
