/**
 * Generalized distance transforms for max-sum messages (Felzenszwalb & Huttenlocher, "Distance
 * Transforms of Sampled Functions", Theory of Computing 2012).
 *
 * 1-D: `D(p) = max_q f(q) - a (p-q)^2 - b (p-q)` for `p, q = 0..n-1`, `a >= 0`, in O(n) through the
 * upper envelope of parabolas (the paper's lower envelope, negated). 2-D: the separable version on a
 * row-major `H x W` grid, one 1-D pass along x for every row, then one along y for every column.
 *
 * Conventions shared by every function here (and by the C++ core in native/gdt):
 * - `f` entries must be finite or `-Infinity` (an impossible state, never selected while any finite
 *   entry exists). NaN and `+Infinity` are rejected with an {@link InputError}.
 * - When every entry is `-Infinity`, every value is `-Infinity` and every argmax is {@link NO_ARGMAX} (-1).
 * - Ties go to the smallest q (2-D: the smallest flat index `y'*W + x'`, i.e. smallest y', then
 *   smallest x'). This is exact when the arithmetic is (e.g. integer `f` and dyadic coefficients);
 *   otherwise it holds up to rounding of the envelope intersections.
 * - `a = 0` is an exact linear scan (the maximiser of `f(q) + b q` serves every p). Any `a > 0`,
 *   however small, uses the envelope in a form that never divides by zero.
 * - `values[p]` is evaluated as `f(q*) - a*d*d - b*d` with `d = p - q*` (2-D: the x terms, then the
 *   y terms), so re-evaluating the cost at the returned argmax reproduces the value exactly.
 * - The native and TypeScript implementations run the same algorithm with the same floating-point
 *   expressions.
 *
 * @module
 */
import { InputError } from '../core/errors.js';
import { native } from './addon.js';
import { check, describe, finiteNumber, nonNegativeNumber, sharesMemory } from './is.js';

/** Which implementation computes the transform: the C++ addon (default) or plain TypeScript. */
export type GdtImpl = 'native' | 'ts';

/** argmax entry reported when every entry of `f` is `-Infinity`. */
export const NO_ARGMAX = -1;

/** Coefficients of the 1-D deformation cost `a d^2 + b d`, `d = p - q` (`a` finite and `>= 0`, `b` finite). */
export interface Gdt1dCoefficients {
  /** Quadratic coefficient, finite and `>= 0`. */
  a: number;
  /** Linear coefficient, finite (any sign). */
  b: number;
}

/**
 * Coefficients of the 2-D cost `ay dy^2 + by dy + ax dx^2 + bx dx` with `dy = y - y'`, `dx = x - x'`
 * (`ay`, `ax` finite and `>= 0`; `by`, `bx` finite).
 */
export interface Gdt2dCoefficients {
  /** Quadratic coefficient along y (rows), finite and `>= 0`. */
  ay: number;
  /** Linear coefficient along y, finite. */
  by: number;
  /** Quadratic coefficient along x (columns), finite and `>= 0`. */
  ax: number;
  /** Linear coefficient along x, finite. */
  bx: number;
}

/** Shape of a row-major grid: cell `(y, x)` is at flat index `y * width + x`. */
export interface GridShape {
  /** Number of rows H (non-negative integer). */
  height: number;
  /** Number of columns W (non-negative integer). */
  width: number;
}

/** Options of the transforms. */
export interface GdtOptions {
  /** Implementation; default `'native'`. */
  impl?: GdtImpl;
  /**
   * Preallocated output for the values (length n, resp. H*W); written in place and returned. It may
   * be `f` itself (an in-place transform) when `f` is a Float64Array; other overlaps with `f` are
   * rejected.
   */
  values?: Float64Array;
  /** Preallocated output for the argmax indices; must not share memory with `f` or `values`. */
  argmax?: Int32Array;
}

/** Options of {@link distanceTransform2dAsync}. */
export interface GdtAsyncOptions extends GdtOptions {
  /**
   * Checked before the job starts (an aborted signal rejects with its reason and computes nothing)
   * and again when it completes (the running native job cannot be interrupted; the Promise then
   * rejects with the reason, although the outputs have been written).
   */
  signal?: AbortSignal;
}

/** Result of a transform. */
export interface GdtResult {
  /** `D(p)` (1-D) or `D(y, x)` at flat index `y*W + x` (2-D). */
  values: Float64Array;
  /**
   * The maximiser: q (1-D) or the flat index `y'*W + x'` (2-D; see {@link unflattenArgmax}), or
   * {@link NO_ARGMAX} when `f` is `-Infinity` everywhere.
   */
  argmax: Int32Array;
}

const MAX_CELLS = 2147483647; // argmax is Int32

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

/**
 * 1-D generalized distance transform for max-sum messages:
 * `values[p] = max_q f[q] - a (p-q)^2 - b (p-q)`, `argmax[p]` = the smallest maximising q.
 * O(n) time.
 *
 * @param f - scores, finite or `-Infinity` (any array-like of numbers; a Float64Array is used
 *   without copying by the native implementation).
 * @param coef - deformation cost coefficients `{a, b}`.
 * @param opts - implementation and preallocated outputs.
 * @returns the values and argmax (the preallocated arrays when given).
 * @throws {@link InputError} on NaN / `+Infinity` in `f`, `a < 0`, non-finite coefficients, wrong
 *   output types or lengths, or more than 2^31-1 entries.
 */
export function distanceTransform1d(f: ArrayLike<number>, coef: Gdt1dCoefficients, opts: GdtOptions = {}): GdtResult {
  const fn = 'distanceTransform1d';
  const impl = checkImpl(fn, opts.impl);
  const { a, b } = checkCoefficients1d(fn, coef);
  const f64 = checkScores(fn, f);
  const n = f64.length;
  const { values, argmax } = prepareOutputs(fn, f64, n, opts, /*allowAnyOverlapWithF=*/ true);
  if (impl === 'native') {
    native.gdt1d(f64, a, b, values, argmax);
  } else {
    transform1dInto(f64, 0, n, a, b, values, 0, argmax, 0, newScratch(n));
  }
  return { values, argmax };
}

/**
 * The pure TypeScript implementation of {@link distanceTransform1d} (same algorithm, same results);
 * equivalent to `distanceTransform1d(f, coef, {...opts, impl: 'ts'})`.
 */
export function distanceTransform1dTs(
  f: ArrayLike<number>,
  coef: Gdt1dCoefficients,
  opts: Omit<GdtOptions, 'impl'> = {},
): GdtResult {
  return distanceTransform1d(f, coef, { ...opts, impl: 'ts' });
}

/**
 * 2-D separable generalized distance transform on a row-major `height x width` grid:
 * `values[y*W+x] = max_{y',x'} f[y'*W+x'] - ay (y-y')^2 - by (y-y') - ax (x-x')^2 - bx (x-x')`,
 * `argmax[y*W+x] = y'*W + x'` of the maximiser (smallest flat index on ties). O(H W) time.
 *
 * @param f - scores in row-major order, finite or `-Infinity`, length `height * width`.
 * @param shape - grid shape.
 * @param coef - coefficients `{ay, by, ax, bx}`.
 * @param opts - implementation and preallocated outputs (`values` may be `f` itself).
 * @throws {@link InputError} on invalid input (see {@link distanceTransform1d}) or a shape that does
 *   not match `f.length`.
 */
export function distanceTransform2d(
  f: ArrayLike<number>,
  shape: GridShape,
  coef: Gdt2dCoefficients,
  opts: GdtOptions = {},
): GdtResult {
  const job = prepare2d('distanceTransform2d', f, shape, coef, opts);
  if (job.impl === 'native') {
    native.gdt2d(job.f, job.height, job.width, job.ay, job.by, job.ax, job.bx, job.values, job.argmax);
  } else {
    runTs2d(job);
  }
  return { values: job.values, argmax: job.argmax };
}

/**
 * The pure TypeScript implementation of {@link distanceTransform2d}; equivalent to
 * `distanceTransform2d(f, shape, coef, {...opts, impl: 'ts'})`.
 */
export function distanceTransform2dTs(
  f: ArrayLike<number>,
  shape: GridShape,
  coef: Gdt2dCoefficients,
  opts: Omit<GdtOptions, 'impl'> = {},
): GdtResult {
  return distanceTransform2d(f, shape, coef, { ...opts, impl: 'ts' });
}

/**
 * {@link distanceTransform2d} off the main thread: the native job runs on the libuv thread pool and
 * the event loop keeps spinning. Validation errors reject the Promise with an {@link InputError}.
 *
 * **Contract:** `f` (when it is a Float64Array, it is read in place), `opts.values` and
 * `opts.argmax` must not be written, transferred, detached or resized until the Promise settles.
 * With `impl: 'ts'` the work runs synchronously on the calling thread inside the Promise.
 */
export async function distanceTransform2dAsync(
  f: ArrayLike<number>,
  shape: GridShape,
  coef: Gdt2dCoefficients,
  opts: GdtAsyncOptions = {},
): Promise<GdtResult> {
  const { signal } = opts;
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new InputError('distanceTransform2dAsync: opts.signal must be an AbortSignal');
  }
  signal?.throwIfAborted();
  const job = prepare2d('distanceTransform2dAsync', f, shape, coef, opts);
  if (job.impl === 'native') {
    await native.gdt2dAsync(job.f, job.height, job.width, job.ay, job.by, job.ax, job.bx, job.values, job.argmax);
  } else {
    runTs2d(job);
  }
  signal?.throwIfAborted();
  return { values: job.values, argmax: job.argmax };
}

/**
 * Splits flat 2-D argmax indices `y'*W + x'` into row and column arrays (`-1` stays `-1` in both).
 *
 * @param argmax - flat indices from {@link distanceTransform2d}.
 * @param width - grid width W (positive integer).
 */
export function unflattenArgmax(argmax: Int32Array, width: number): { y: Int32Array; x: Int32Array } {
  check(Number.isInteger(width) && width > 0, `unflattenArgmax: width must be a positive integer, got ${width}`);
  const y = new Int32Array(argmax.length);
  const x = new Int32Array(argmax.length);
  for (let i = 0; i < argmax.length; i++) {
    const k = argmax[i]!;
    if (k < 0) {
      y[i] = NO_ARGMAX;
      x[i] = NO_ARGMAX;
    } else {
      y[i] = Math.floor(k / width);
      x[i] = k - y[i]! * width;
    }
  }
  return { y, x };
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

function checkImpl(fn: string, impl: unknown): GdtImpl {
  if (impl === undefined) return 'native';
  check(impl === 'native' || impl === 'ts', `${fn}: opts.impl must be 'native' or 'ts', got ${String(impl)}`);
  return impl;
}

function checkCoefficients1d(fn: string, coef: Gdt1dCoefficients): Gdt1dCoefficients {
  check(typeof coef === 'object' && coef !== null, `${fn}: coefficients must be an object {a, b}`);
  return { a: nonNegativeNumber(fn, 'a', coef.a), b: finiteNumber(fn, 'b', coef.b) };
}

/** Returns f as a Float64Array (no copy when it already is one) after checking every entry. */
function checkScores(fn: string, f: ArrayLike<number>): Float64Array {
  check(
    f !== null && typeof f === 'object' && typeof (f as ArrayLike<number>).length === 'number' &&
      !(f instanceof BigInt64Array || f instanceof BigUint64Array),
    `${fn}: f must be an array of numbers or a Float64Array, got ${describe(f)}`,
  );
  const len = (f as ArrayLike<number>).length;
  check(Number.isInteger(len) && len >= 0 && len <= MAX_CELLS, `${fn}: f has ${len} entries (at most 2^31-1 supported)`);
  if (!ArrayBuffer.isView(f)) {
    // Plain arrays: Float64Array.from would coerce, so check the entries' types first.
    for (let i = 0; i < len; i++) {
      check(typeof f[i] === 'number', `${fn}: f[${i}] is ${describe(f[i])}, expected a number`);
    }
  }
  const f64 = f instanceof Float64Array ? f : Float64Array.from(f);
  for (let i = 0; i < f64.length; i++) {
    const x = f64[i]!;
    // x !== x is NaN; +Infinity is the only other rejected value.
    if (x !== x || x === Infinity) {
      throw new InputError(`${fn}: f[${i}] is ${x} (entries must be finite or -Infinity)`);
    }
  }
  return f64;
}

function prepareOutputs(
  fn: string,
  f: Float64Array,
  n: number,
  opts: GdtOptions,
  allowAnyOverlapWithF: boolean,
): GdtResult {
  const values = opts.values ?? new Float64Array(n);
  const argmax = opts.argmax ?? new Int32Array(n);
  check(values instanceof Float64Array, `${fn}: opts.values must be a Float64Array, got ${describe(values)}`);
  check(argmax instanceof Int32Array, `${fn}: opts.argmax must be an Int32Array, got ${describe(argmax)}`);
  check(values.length === n, `${fn}: opts.values has length ${values.length}, expected ${n}`);
  check(argmax.length === n, `${fn}: opts.argmax has length ${argmax.length}, expected ${n}`);
  check(!sharesMemory(argmax, f), `${fn}: opts.argmax must not share memory with f`);
  check(!sharesMemory(argmax, values), `${fn}: opts.argmax must not share memory with opts.values`);
  if (!allowAnyOverlapWithF) {
    const same = values.buffer === f.buffer && values.byteOffset === f.byteOffset && values.length === f.length;
    check(same || !sharesMemory(values, f), `${fn}: opts.values must be f itself (in-place) or not share memory with f`);
  }
  return { values, argmax };
}

interface Job2d {
  impl: GdtImpl;
  f: Float64Array;
  height: number;
  width: number;
  ay: number;
  by: number;
  ax: number;
  bx: number;
  values: Float64Array;
  argmax: Int32Array;
}

function prepare2d(fn: string, f: ArrayLike<number>, shape: GridShape, coef: Gdt2dCoefficients, opts: GdtOptions): Job2d {
  const impl = checkImpl(fn, opts.impl);
  check(typeof shape === 'object' && shape !== null, `${fn}: shape must be an object {height, width}`);
  const { height, width } = shape;
  check(Number.isInteger(height) && height >= 0, `${fn}: shape.height must be a non-negative integer, got ${String(height)}`);
  check(Number.isInteger(width) && width >= 0, `${fn}: shape.width must be a non-negative integer, got ${String(width)}`);
  check(height * width <= MAX_CELLS, `${fn}: height*width = ${height * width} exceeds 2^31-1`);
  check(typeof coef === 'object' && coef !== null, `${fn}: coefficients must be an object {ay, by, ax, bx}`);
  const ay = nonNegativeNumber(fn, 'ay', coef.ay);
  const by = finiteNumber(fn, 'by', coef.by);
  const ax = nonNegativeNumber(fn, 'ax', coef.ax);
  const bx = finiteNumber(fn, 'bx', coef.bx);
  const f64 = checkScores(fn, f);
  check(f64.length === height * width, `${fn}: f has length ${f64.length}, expected height*width = ${height * width}`);
  const { values, argmax } = prepareOutputs(fn, f64, f64.length, opts, false);
  return { impl, f: f64, height, width, ay, by, ax, bx, values, argmax };
}

// ---------------------------------------------------------------------------------------------
// Pure TypeScript implementation (mirrors native/gdt/gdt.cc)
// ---------------------------------------------------------------------------------------------

/** Scratch of the envelope, sized once per call. */
interface Scratch {
  v: Int32Array; // centres q of the envelope parabolas (paper: v)
  z: Float64Array; // boundaries, length n+1 (paper: z)
  fv: Float64Array; // f(v[k]), so that out may alias f
}

function newScratch(n: number): Scratch {
  return { v: new Int32Array(n), z: new Float64Array(n + 1), fv: new Float64Array(n) };
}

/**
 * 1-D transform of f[fOff .. fOff+n) into out[outOff ..) and arg[argOff ..). out may alias f.
 * Preconditions checked by the callers: a finite >= 0, b finite, entries finite or -Infinity.
 */
function transform1dInto(
  f: Float64Array,
  fOff: number,
  n: number,
  a: number,
  b: number,
  out: Float64Array,
  outOff: number,
  arg: Int32Array,
  argOff: number,
  ws: Scratch,
): void {
  if (n === 0) return;
  if (a === 0) {
    // Linear cost: D(p) = max_q [f(q) + b q] - b p; one maximiser q* (smallest on ties) for all p.
    let best = -1;
    let bestG = -Infinity;
    for (let q = 0; q < n; q++) {
      const fq = f[fOff + q]!;
      if (!(fq > -Infinity)) continue;
      const g = fq + b * q;
      if (best < 0 || g > bestG) {
        best = q;
        bestG = g;
      }
    }
    if (best < 0) {
      out.fill(-Infinity, outOff, outOff + n);
      arg.fill(NO_ARGMAX, argOff, argOff + n);
      return;
    }
    const fq = f[fOff + best]!;
    for (let p = 0; p < n; p++) {
      const d = p - best;
      out[outOff + p] = fq - b * d;
      arg[argOff + p] = best;
    }
    return;
  }
  const { v, z, fv } = ws;
  const twoA = 2 * a;
  // Upper envelope of P_q(p) = f(q) - a (p-q)^2 - b (p-q). For v < q, P_q - P_v vanishes at
  //   s = (g(v) - g(q)) / (2a (q - v)) + (q + v) / 2,  g(q) = f(q) + b q,
  // and P_q wins for p > s. v[k] owns (z[k], z[k+1]].
  let k = -1;
  for (let q = 0; q < n; q++) {
    const fq = f[fOff + q]!;
    if (!(fq > -Infinity)) continue;
    const gq = fq + b * q;
    let s = -Infinity;
    while (k >= 0) {
      const vk = v[k]!;
      const gv = fv[k]! + b * vk; // g(v[k]), recomputed: the same value as when it was pushed
      s = (gv - gq) / (twoA * (q - vk)) + 0.5 * (q + vk);
      if (s > z[k]!) break;
      k--;
    }
    if (k < 0) s = -Infinity;
    k++;
    v[k] = q;
    fv[k] = fq;
    z[k] = s;
  }
  const count = k + 1;
  if (count === 0) {
    out.fill(-Infinity, outOff, outOff + n);
    arg.fill(NO_ARGMAX, argOff, argOff + n);
    return;
  }
  z[count] = Infinity;
  k = 0;
  for (let p = 0; p < n; p++) {
    while (z[k + 1]! < p) k++;
    const q = v[k]!;
    const d = p - q;
    out[outOff + p] = fv[k]! - a * d * d - b * d;
    arg[argOff + p] = q;
  }
}

const COLUMN_BLOCK = 8;

function runTs2d(job: Job2d): void {
  const { f, height: h, width: w, ay, by, ax, bx, values: out, argmax: arg } = job;
  if (h * w === 0) return;
  const ws = newScratch(Math.max(h, w));
  // Pass 1: along x for every row (written into out/arg; out may alias f).
  for (let y = 0; y < h; y++) transform1dInto(f, y * w, w, ax, bx, out, y * w, arg, y * w, ws);
  // Pass 2: along y for every column, COLUMN_BLOCK columns gathered at a time.
  const col = new Float64Array(COLUMN_BLOCK * h);
  const colArgY = new Int32Array(COLUMN_BLOCK * h);
  const colArgX = new Int32Array(COLUMN_BLOCK * h);
  for (let x0 = 0; x0 < w; x0 += COLUMN_BLOCK) {
    const nb = Math.min(COLUMN_BLOCK, w - x0);
    for (let y = 0; y < h; y++) {
      const row = y * w + x0;
      for (let j = 0; j < nb; j++) {
        col[j * h + y] = out[row + j]!;
        colArgX[j * h + y] = arg[row + j]!;
      }
    }
    for (let j = 0; j < nb; j++) transform1dInto(col, j * h, h, ay, by, col, j * h, colArgY, j * h, ws);
    for (let y = 0; y < h; y++) {
      const row = y * w + x0;
      for (let j = 0; j < nb; j++) {
        const ys = colArgY[j * h + y]!;
        out[row + j] = col[j * h + y]!;
        arg[row + j] = ys < 0 ? NO_ARGMAX : ys * w + colArgX[j * h + ys]!;
      }
    }
  }
}
