/**
 * Benchmark of the generalized distance transforms: native (C++ addon) vs pure TypeScript vs the
 * O(n^2) brute force, 1-D and 2-D. Run with `npx tsx scripts/bench/gdt.ts` (after `npx cmake-js
 * compile`). Prints one JSON object to stdout (progress goes to stderr). Times are the median of
 * several repetitions after warm-up, in milliseconds per call; brute force is measured only where
 * it is affordable and reported as null elsewhere (never extrapolated).
 *
 * Each timed call takes the next of several distinct random inputs (at least ~4e5 elements in all):
 * the envelope's pop loop branches on the data, and a CPU's branch predictor memorises the
 * branch pattern of one small input repeated back to back, which made small sizes look 2-4x
 * faster than they are on fresh data.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  distanceTransform1d,
  distanceTransform2d,
  distanceTransform2dAsync,
  type GdtResult,
} from '../../src/native/gdt.js';
import { bruteForce1d, bruteForce2d } from '../../test/helpers/gdt-brute.js';
import { uniform } from '../../test/helpers/random.js';

const median = (xs: number[]): number => {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round = (x: number, digits = 4): number => Number(x.toPrecision(digits));

/**
 * Median time per call in ms: `warmup` untimed calls, then `reps` samples, each timing `inner`
 * back-to-back calls (so that microsecond-scale calls are measurable).
 */
function timeSync(fn: (call: number) => unknown, reps: number, inner: number, warmup = 2): number {
  let call = 0;
  for (let i = 0; i < warmup; i++) fn(call++);
  const samples: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    for (let i = 0; i < inner; i++) fn(call++);
    samples.push((performance.now() - t0) / inner);
  }
  return median(samples);
}

async function timeAsync(fn: (call: number) => Promise<unknown>, reps: number, warmup = 1): Promise<number> {
  let call = 0;
  for (let i = 0; i < warmup; i++) await fn(call++);
  const samples: number[] = [];
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    await fn(call++);
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

/** `count` distinct random score arrays of length n (2% -Infinity entries). */
function inputs(seed: number, n: number): Float64Array[] {
  const r = uniform(seed);
  const count = Math.max(1, Math.min(64, Math.ceil(4e5 / n)));
  return Array.from({ length: count }, () =>
    Float64Array.from({ length: n }, () => (r() < 0.02 ? -Infinity : (r() - 0.5) * 100)),
  );
}

function maxAbsDiff(x: GdtResult, y: GdtResult): { values: number; argmaxMismatches: number } {
  let d = 0;
  let m = 0;
  for (let i = 0; i < x.values.length; i++) {
    const u = x.values[i]!;
    const v = y.values[i]!;
    if (u !== v) d = Math.max(d, Math.abs(u - v));
    if (x.argmax[i] !== y.argmax[i]) m++;
  }
  return { values: d, argmaxMismatches: m };
}

const log = (msg: string): void => void process.stderr.write(`${msg}\n`);
const t0 = performance.now();

// ---------------------------------------------------------------- 1-D
const A = 0.01; // wide parabolas: the envelope keeps many of them (the harder case)
const B = 0.1;
const BRUTE_MAX_1D = 1e4;
const oneD = [];
for (const n of [1e2, 1e3, 1e4, 1e5, 1e6]) {
  const fs = inputs(n, n);
  const pick = (call: number): Float64Array => fs[call % fs.length]!;
  const f = fs[0]!; // for the correctness cross-checks below
  const outN = { values: new Float64Array(n), argmax: new Int32Array(n) };
  const outT = { values: new Float64Array(n), argmax: new Int32Array(n) };
  const inner = Math.max(1, Math.round(2e5 / n));
  const reps = n >= 1e6 ? 7 : 9;
  const nativeMs = timeSync((c) => distanceTransform1d(pick(c), { a: A, b: B }, { impl: 'native', ...outN }), reps, inner);
  const tsMs = timeSync((c) => distanceTransform1d(pick(c), { a: A, b: B }, { impl: 'ts', ...outT }), reps, inner);
  distanceTransform1d(f, { a: A, b: B }, { impl: 'native', ...outN });
  distanceTransform1d(f, { a: A, b: B }, { impl: 'ts', ...outT });
  let bruteMs: number | null = null;
  let bruteCheck: { values: number; argmaxMismatches: number } | null = null;
  if (n <= BRUTE_MAX_1D) {
    const innerB = Math.max(1, Math.round(1e6 / (n * n)));
    bruteMs = timeSync((c) => bruteForce1d(pick(c), A, B), n >= 1e4 ? 3 : 5, innerB, 1);
    bruteCheck = maxAbsDiff(bruteForce1d(f, A, B), outN);
  }
  oneD.push({
    n,
    nativeMs: round(nativeMs),
    tsMs: round(tsMs),
    bruteMs: bruteMs === null ? null : round(bruteMs),
    tsOverNative: round(tsMs / nativeMs, 3),
    bruteOverNative: bruteMs === null ? null : round(bruteMs / nativeMs, 3),
    nsPerElementNative: round((nativeMs * 1e6) / n, 3),
    nativeVsTs: maxAbsDiff(outN, outT),
    nativeVsBrute: bruteCheck,
  });
  log(`1-D n=${n}: native ${round(nativeMs)} ms, ts ${round(tsMs)} ms, brute ${bruteMs === null ? 'skipped' : `${round(bruteMs)} ms`}`);
}

// ---------------------------------------------------------------- 2-D
const C2 = { ay: 0.02, by: 0.1, ax: 0.03, bx: -0.05 };
const BRUTE_MAX_CELLS_2D = 64 * 64; // (H W)^2 = 1.7e7 cost evaluations
const twoD = [];
for (const side of [16, 32, 64, 256, 512, 1024]) {
  const h = side;
  const w = side;
  const cells = h * w;
  const fs = inputs(side * 7 + 1, cells);
  const pick = (call: number): Float64Array => fs[call % fs.length]!;
  const f = fs[0]!;
  const shape = { height: h, width: w };
  const outN = { values: new Float64Array(cells), argmax: new Int32Array(cells) };
  const outT = { values: new Float64Array(cells), argmax: new Int32Array(cells) };
  const outA = { values: new Float64Array(cells), argmax: new Int32Array(cells) };
  const inner = Math.max(1, Math.round(2e5 / cells));
  const reps = cells >= 1 << 20 ? 5 : 7;
  const nativeMs = timeSync((c) => distanceTransform2d(pick(c), shape, C2, { impl: 'native', ...outN }), reps, inner);
  const tsMs = timeSync((c) => distanceTransform2d(pick(c), shape, C2, { impl: 'ts', ...outT }), reps, inner);
  const nativeAsyncMs = await timeAsync((c) => distanceTransform2dAsync(pick(c), shape, C2, outA), reps);
  distanceTransform2d(f, shape, C2, { impl: 'native', ...outN });
  distanceTransform2d(f, shape, C2, { impl: 'ts', ...outT });
  await distanceTransform2dAsync(f, shape, C2, outA);
  let bruteMs: number | null = null;
  let bruteCheck: { values: number; argmaxMismatches: number } | null = null;
  if (cells <= BRUTE_MAX_CELLS_2D) {
    bruteMs = timeSync((c) => bruteForce2d(pick(c), h, w, C2.ay, C2.by, C2.ax, C2.bx), 3, 1, 1);
    bruteCheck = maxAbsDiff(bruteForce2d(f, h, w, C2.ay, C2.by, C2.ax, C2.bx), outN);
  }
  twoD.push({
    height: h,
    width: w,
    nativeMs: round(nativeMs),
    nativeAsyncMs: round(nativeAsyncMs),
    tsMs: round(tsMs),
    bruteMs: bruteMs === null ? null : round(bruteMs),
    tsOverNative: round(tsMs / nativeMs, 3),
    bruteOverNative: bruteMs === null ? null : round(bruteMs / nativeMs, 3),
    nsPerCellNative: round((nativeMs * 1e6) / cells, 3),
    nativeVsTs: maxAbsDiff(outN, outT),
    nativeVsAsync: maxAbsDiff(outN, outA),
    nativeVsBrute: bruteCheck,
  });
  log(`2-D ${h}x${w}: native ${round(nativeMs)} ms, async ${round(nativeAsyncMs)} ms, ts ${round(tsMs)} ms, brute ${bruteMs === null ? 'skipped' : `${round(bruteMs)} ms`}`);
}

console.log(
  JSON.stringify({
    benchmark: 'gdt',
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: cpus()[0]?.model ?? 'unknown',
    unit: 'ms per call (median)',
    inputsNote: 'each call takes the next of several distinct random inputs (no branch-predictor memorisation)',
    coefficients1d: { a: A, b: B },
    coefficients2d: C2,
    bruteLimits: { maxN1d: BRUTE_MAX_1D, maxCells2d: BRUTE_MAX_CELLS_2D, note: 'null = skipped, never extrapolated' },
    oneD,
    twoD,
    totalSeconds: round((performance.now() - t0) / 1000, 3),
  }),
);
