import { describe, expect, it } from 'vitest';
import {
  distanceTransform1d,
  distanceTransform1dTs,
  distanceTransform2d,
  distanceTransform2dAsync,
  distanceTransform2dTs,
  NO_ARGMAX,
  unflattenArgmax,
  type GdtImpl,
} from '../src/native/gdt.js';
import { InputError } from '../src/core/errors.js';
import { native } from '../src/native/addon.js';
import { bruteForce1d, bruteForce2d } from './helpers/gdt-brute.js';
import { uniform } from './helpers/random.js';

const randInt = (r: () => number, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));

const close = (x: number, y: number): boolean =>
  x === y || Math.abs(x - y) <= 1e-9 * (1 + Math.abs(y));

/** Cost re-evaluated at the returned argmax (the same expression as the implementations). */
const cost1d = (f: ArrayLike<number>, a: number, b: number, p: number, q: number): number => {
  const d = p - q;
  return f[q]! - a * d * d - b * d;
};

/**
 * Checks a 1-D result against brute force. exact: values and argmax bit for bit (integer data);
 * otherwise values within tolerance and the argmax must be a valid maximiser that reproduces D.
 */
function check1d(f: ArrayLike<number>, a: number, b: number, res: { values: Float64Array; argmax: Int32Array }, exact: boolean, ctx: string): void {
  const ref = bruteForce1d(f, a, b);
  const n = f.length;
  for (let p = 0; p < n; p++) {
    const got = res.values[p]!;
    const q = res.argmax[p]!;
    if (ref.argmax[p] === NO_ARGMAX) {
      if (q !== NO_ARGMAX || got !== -Infinity) throw new Error(`${ctx}: p=${p} expected all -inf, got (${got}, ${q})`);
      continue;
    }
    if (!(q >= 0 && q < n) || f[q] === -Infinity) throw new Error(`${ctx}: p=${p} invalid argmax ${q}`);
    if (!close(cost1d(f, a, b, p, q), got)) throw new Error(`${ctx}: p=${p} value at argmax ${cost1d(f, a, b, p, q)} != ${got}`);
    if (exact) {
      if (got !== ref.values[p] || q !== ref.argmax[p]) {
        throw new Error(`${ctx}: p=${p} got (${got}, ${q}) want (${ref.values[p]}, ${ref.argmax[p]})`);
      }
    } else if (!close(got, ref.values[p]!)) {
      throw new Error(`${ctx}: p=${p} got ${got} want ${ref.values[p]}`);
    }
  }
}

function check2d(
  f: ArrayLike<number>, h: number, w: number, c: { ay: number; by: number; ax: number; bx: number },
  res: { values: Float64Array; argmax: Int32Array }, exact: boolean, ctx: string,
): void {
  const ref = bruteForce2d(f, h, w, c.ay, c.by, c.ax, c.bx);
  for (let i = 0; i < h * w; i++) {
    const got = res.values[i]!;
    const k = res.argmax[i]!;
    if (ref.argmax[i] === NO_ARGMAX) {
      if (k !== NO_ARGMAX || got !== -Infinity) throw new Error(`${ctx}: i=${i} expected all -inf`);
      continue;
    }
    if (!(k >= 0 && k < h * w) || f[k] === -Infinity) throw new Error(`${ctx}: i=${i} invalid argmax ${k}`);
    const dy = Math.floor(i / w) - Math.floor(k / w);
    const dx = (i % w) - (k % w);
    const atArg = f[k]! - c.ax * dx * dx - c.bx * dx - c.ay * dy * dy - c.by * dy;
    if (!close(atArg, got)) throw new Error(`${ctx}: i=${i} value at argmax ${atArg} != ${got}`);
    if (exact) {
      if (got !== ref.values[i] || k !== ref.argmax[i]) {
        throw new Error(`${ctx}: i=${i} got (${got}, ${k}) want (${ref.values[i]}, ${ref.argmax[i]})`);
      }
    } else if (!close(got, ref.values[i]!)) {
      throw new Error(`${ctx}: i=${i} got ${got} want ${ref.values[i]}`);
    }
  }
}

const REAL_A = [0, 5e-324, 1e-300, 1e-12, 1e-6, 0.01, 0.37, 1, 7.5, 1e6];
const DYADIC_A = [0, 0.25, 0.5, 1, 2, 3];
const DYADIC_B = [0, 0.5, -0.5, 1, -2, 3];
const IMPLS: GdtImpl[] = ['native', 'ts'];

describe.each(IMPLS)('distanceTransform1d (%s) vs O(n^2) brute force', (impl) => {
  it('random real scores: 400 seeds, n = 1..60, a from 0 and subnormal to 1e6, -inf entries', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = uniform(seed);
      const n = randInt(r, 1, 60);
      const a = REAL_A[seed % REAL_A.length]!;
      const b = seed % 3 === 0 ? 0 : (r() - 0.5) * 20;
      const pInf = seed % 4 === 0 ? 0.3 : seed % 4 === 1 ? 0.9 : 0;
      const f = Float64Array.from({ length: n }, () => (r() < pInf ? -Infinity : (r() - 0.5) * 100));
      check1d(f, a, b, distanceTransform1d(f, { a, b }, { impl }), false, `seed=${seed} n=${n} a=${a} b=${b}`);
    }
  });

  it('integer scores with many ties: values and smallest-q argmax match exactly', () => {
    for (let seed = 1; seed <= 600; seed++) {
      const r = uniform(seed * 7919);
      const n = randInt(r, 1, 60);
      const a = DYADIC_A[seed % 6]!;
      const b = DYADIC_B[Math.floor(seed / 6) % 6]!;
      const range = seed % 5 === 0 ? 0 : randInt(r, 1, 6);
      const f = Float64Array.from({ length: n }, () => (seed % 3 === 0 && r() < 0.25 ? -Infinity : randInt(r, -range, range)));
      check1d(f, a, b, distanceTransform1d(f, { a, b }, { impl }), true, `seed=${seed} n=${n} a=${a} b=${b}`);
    }
  });

  it('tiny a (1e-300) on integer scores: values exact, argmax a true maximiser', () => {
    const r = uniform(99);
    const f = Float64Array.from({ length: 50 }, () => randInt(r, -3, 3));
    for (const b of [0, 1, -0.5]) check1d(f, 1e-300, b, distanceTransform1d(f, { a: 1e-300, b }, { impl }), false, `tiny a b=${b}`);
  });

  it('n = 1, n = 0, all -inf, a single finite entry', () => {
    for (const a of [0, 1, 1e-300]) {
      expect(distanceTransform1d([3.5], { a, b: 2 }, { impl })).toEqual({ values: new Float64Array([3.5]), argmax: new Int32Array([0]) });
      expect(distanceTransform1d([-Infinity], { a, b: 2 }, { impl })).toEqual({
        values: new Float64Array([-Infinity]),
        argmax: new Int32Array([NO_ARGMAX]),
      });
      const allInf = distanceTransform1d(new Float64Array(17).fill(-Infinity), { a, b: 1 }, { impl });
      expect(Array.from(allInf.values)).toEqual(new Array(17).fill(-Infinity));
      expect(Array.from(allInf.argmax)).toEqual(new Array(17).fill(-1));
      const one = new Float64Array(30).fill(-Infinity);
      one[11] = -4;
      const res = distanceTransform1d(one, { a, b: -1 }, { impl });
      expect(Array.from(res.argmax)).toEqual(new Array(30).fill(11));
      check1d(one, a, -1, res, true, `single finite a=${a}`);
    }
    const empty = distanceTransform1d([], { a: 1, b: 0 }, { impl });
    expect(empty.values.length).toBe(0);
    expect(empty.argmax.length).toBe(0);
  });

  it('a = 0 is the exact linear case: one maximiser of f(q) + b q for every p', () => {
    const f = new Float64Array(10).fill(1);
    const r0 = distanceTransform1d(f, { a: 0, b: 0 }, { impl });
    expect(Array.from(r0.argmax)).toEqual(new Array(10).fill(0)); // all tied: smallest q
    const r1 = distanceTransform1d(f, { a: 0, b: 1 }, { impl });
    expect(Array.from(r1.argmax)).toEqual(new Array(10).fill(9)); // f(q) + q grows with q
    expect(Array.from(r1.values)).toEqual(Array.from({ length: 10 }, (_, p) => 1 - (p - 9)));
  });

  it('accepts plain arrays, preallocated outputs and in-place (values === f)', () => {
    const r = uniform(5);
    const arr = Array.from({ length: 40 }, () => randInt(r, -5, 5));
    const ref = distanceTransform1d(arr, { a: 0.5, b: 1 }, { impl });
    check1d(arr, 0.5, 1, ref, true, 'plain array');
    const f = Float64Array.from(arr);
    const values = new Float64Array(40);
    const argmax = new Int32Array(40);
    const res = distanceTransform1d(f, { a: 0.5, b: 1 }, { impl, values, argmax });
    expect(res.values).toBe(values);
    expect(res.argmax).toBe(argmax);
    const inPlace = distanceTransform1d(f, { a: 0.5, b: 1 }, { impl, values: f });
    expect(inPlace.values).toBe(f);
    expect(f).toEqual(ref.values);
    expect(inPlace.argmax).toEqual(ref.argmax);
  });
});

describe.each(IMPLS)('distanceTransform2d (%s) vs O((HW)^2) brute force', (impl) => {
  it('small random grids (real and integer scores, -inf cells, zero coefficients)', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const r = uniform(seed * 31 + 5);
      const h = randInt(r, 1, 12);
      const w = randInt(r, 1, 20); // wider than one column block sometimes
      const exact = seed % 2 === 0;
      let c: { ay: number; by: number; ax: number; bx: number };
      let f: Float64Array;
      if (exact) {
        c = { ay: DYADIC_A[randInt(r, 0, 5)]!, by: DYADIC_B[randInt(r, 0, 5)]!, ax: DYADIC_A[randInt(r, 0, 5)]!, bx: DYADIC_B[randInt(r, 0, 5)]! };
        const range = randInt(r, 0, 4);
        f = Float64Array.from({ length: h * w }, () => (r() < 0.2 ? -Infinity : randInt(r, -range, range)));
      } else {
        c = { ay: r() * 3, by: (r() - 0.5) * 4, ax: seed % 5 === 0 ? 0 : r() * 3, bx: (r() - 0.5) * 4 };
        f = Float64Array.from({ length: h * w }, () => (r() < 0.3 ? -Infinity : (r() - 0.5) * 50));
      }
      if (seed % 17 === 0) f.fill(-Infinity);
      const ctx = `seed=${seed} ${h}x${w} ${JSON.stringify(c)}`;
      check2d(f, h, w, c, distanceTransform2d(f, { height: h, width: w }, c, { impl }), exact, ctx);
    }
  });

  it('in-place (values === f) gives the same result', () => {
    const r = uniform(77);
    const f = Float64Array.from({ length: 9 * 13 }, () => randInt(r, -3, 3));
    const c = { ay: 0.5, by: -1, ax: 1, bx: 0.5 };
    const ref = distanceTransform2d(f, { height: 9, width: 13 }, c, { impl });
    const res = distanceTransform2d(f, { height: 9, width: 13 }, c, { impl, values: f });
    expect(res.values).toBe(f);
    expect(f).toEqual(ref.values);
    expect(res.argmax).toEqual(ref.argmax);
  });

  it('empty grids and a single finite cell', () => {
    expect(distanceTransform2d([], { height: 0, width: 5 }, { ay: 1, by: 0, ax: 1, bx: 0 }, { impl }).values.length).toBe(0);
    const f = new Float64Array(6 * 9).fill(-Infinity);
    f[4 * 9 + 2] = 1;
    const res = distanceTransform2d(f, { height: 6, width: 9 }, { ay: 1, by: 0.5, ax: 0.25, bx: -1 }, { impl });
    expect(Array.from(res.argmax)).toEqual(new Array(54).fill(4 * 9 + 2));
    const { y, x } = unflattenArgmax(res.argmax, 9);
    expect(Array.from(y)).toEqual(new Array(54).fill(4));
    expect(Array.from(x)).toEqual(new Array(54).fill(2));
  });
});

describe('native and TypeScript agree', () => {
  it('on large random inputs (1-D n = 100000, 2-D 97 x 131)', () => {
    const r = uniform(2024);
    const f = Float64Array.from({ length: 100_000 }, () => (r() < 0.05 ? -Infinity : (r() - 0.5) * 1e4));
    for (const a of [0, 1e-4, 1]) {
      const nat = distanceTransform1d(f, { a, b: 0.3 });
      const ts = distanceTransform1dTs(f, { a, b: 0.3 });
      let maxDiff = 0;
      let argDiff = 0;
      for (let p = 0; p < f.length; p++) {
        maxDiff = Math.max(maxDiff, Math.abs(nat.values[p]! - ts.values[p]!) / (1 + Math.abs(ts.values[p]!)));
        if (nat.argmax[p] !== ts.argmax[p]) argDiff++;
      }
      expect(maxDiff).toBeLessThan(1e-12);
      expect(argDiff).toBe(0);
    }
    const g = Float64Array.from({ length: 97 * 131 }, () => (r() < 0.1 ? -Infinity : (r() - 0.5) * 100));
    const c = { ay: 0.02, by: 0.1, ax: 0.05, bx: -0.2 };
    const nat2 = distanceTransform2d(g, { height: 97, width: 131 }, c);
    const ts2 = distanceTransform2dTs(g, { height: 97, width: 131 }, c);
    expect(nat2.argmax).toEqual(ts2.argmax);
    for (let i = 0; i < g.length; i++) expect(close(nat2.values[i]!, ts2.values[i]!)).toBe(true);
  });
});

describe('distanceTransform2dAsync', () => {
  const r = uniform(31337);
  const h = 64;
  const w = 80;
  const f = Float64Array.from({ length: h * w }, () => (r() < 0.1 ? -Infinity : (r() - 0.5) * 100));
  const c = { ay: 0.01, by: 0.2, ax: 0.03, bx: -0.1 };

  it.each(IMPLS)('equals the sync version (%s)', async (impl) => {
    const sync = distanceTransform2d(f, { height: h, width: w }, c, { impl });
    const res = await distanceTransform2dAsync(f, { height: h, width: w }, c, { impl });
    expect(res.values).toEqual(sync.values);
    expect(res.argmax).toEqual(sync.argmax);
  });

  it('runs several jobs concurrently and writes into preallocated outputs', async () => {
    const sync = distanceTransform2d(f, { height: h, width: w }, c);
    const outs = Array.from({ length: 4 }, () => ({ values: new Float64Array(h * w), argmax: new Int32Array(h * w) }));
    const results = await Promise.all(outs.map((o) => distanceTransform2dAsync(f, { height: h, width: w }, c, o)));
    results.forEach((res, i) => {
      expect(res.values).toBe(outs[i]!.values);
      expect(res.values).toEqual(sync.values);
      expect(res.argmax).toEqual(sync.argmax);
    });
  });

  it('rejects with InputError on bad input and with the reason on an aborted signal', async () => {
    await expect(distanceTransform2dAsync(f, { height: h, width: w + 1 }, c)).rejects.toThrow(InputError);
    await expect(distanceTransform2dAsync(f, { height: h, width: w }, { ...c, ay: -1 })).rejects.toThrow(/ay must be a finite number >= 0/);
    const ac = new AbortController();
    ac.abort(new Error('stop'));
    await expect(distanceTransform2dAsync(f, { height: h, width: w }, c, { signal: ac.signal })).rejects.toThrow('stop');
  });
});

describe('input validation', () => {
  const f = new Float64Array([1, 2, 3]);
  it.each([
    ['NaN in f', () => distanceTransform1d([1, NaN, 2], { a: 1, b: 0 }), /f\[1\] is NaN/],
    ['+Infinity in f', () => distanceTransform1d([1, Infinity], { a: 1, b: 0 }), /f\[1\] is Infinity/],
    ['negative a', () => distanceTransform1d(f, { a: -1, b: 0 }), /a must be a finite number >= 0, got -1/],
    ['infinite a', () => distanceTransform1d(f, { a: Infinity, b: 0 }), /a must be a finite number >= 0/],
    ['NaN b', () => distanceTransform1d(f, { a: 1, b: NaN }), /b must be a finite number, got NaN/],
    ['string b', () => distanceTransform1d(f, { a: 1, b: '1' as unknown as number }), /b must be a finite number/],
    ['f not an array', () => distanceTransform1d('abc' as unknown as number[], { a: 1, b: 0 }), /f must be an array of numbers/],
    ['non-number entry', () => distanceTransform1d([1, 'x' as unknown as number], { a: 1, b: 0 }), /f\[1\] is string/],
    ['values of the wrong type', () => distanceTransform1d(f, { a: 1, b: 0 }, { values: new Float32Array(3) as unknown as Float64Array }), /opts.values must be a Float64Array, got Float32Array/],
    ['argmax of the wrong type', () => distanceTransform1d(f, { a: 1, b: 0 }, { argmax: new Float64Array(3) as unknown as Int32Array }), /opts.argmax must be an Int32Array/],
    ['values length mismatch', () => distanceTransform1d(f, { a: 1, b: 0 }, { values: new Float64Array(4) }), /opts.values has length 4, expected 3/],
    ['argmax sharing memory with f', () => distanceTransform1d(f, { a: 1, b: 0 }, { argmax: new Int32Array(f.buffer, 0, 3) }), /must not share memory/],
    ['unknown impl', () => distanceTransform1d(f, { a: 1, b: 0 }, { impl: 'gpu' as GdtImpl }), /opts.impl must be 'native' or 'ts'/],
    ['2-D shape mismatch', () => distanceTransform2d(f, { height: 2, width: 2 }, { ay: 1, by: 0, ax: 1, bx: 0 }), /f has length 3, expected height\*width = 4/],
    ['2-D non-integer width', () => distanceTransform2d(f, { height: 2, width: 1.5 }, { ay: 1, by: 0, ax: 1, bx: 0 }), /shape.width must be a non-negative integer/],
    ['2-D negative ax', () => distanceTransform2d(f, { height: 1, width: 3 }, { ay: 1, by: 0, ax: -2, bx: 0 }), /ax must be a finite number >= 0/],
    ['2-D partially overlapping values', () => {
      const buf = new Float64Array(5);
      return distanceTransform2d(buf.subarray(0, 4), { height: 2, width: 2 }, { ay: 1, by: 0, ax: 1, bx: 0 }, { values: buf.subarray(1, 5) });
    }, /in-place\) or not share memory/],
  ])('%s throws InputError', (_name, fn, message) => {
    expect(fn).toThrow(InputError);
    expect(fn).toThrow(message);
  });

  it('the raw native binding throws TypeError/RangeError and keeps the process alive', () => {
    const out = new Float64Array(3);
    const arg = new Int32Array(3);
    expect(() => native.gdt1d(new Float32Array(3) as unknown as Float64Array, 1, 0, out, arg)).toThrow(TypeError);
    expect(() => native.gdt1d(new Float32Array(3) as unknown as Float64Array, 1, 0, out, arg)).toThrow('gdt1d: f must be a Float64Array, got Float32Array');
    expect(() => native.gdt1d(f, 1, 0, out, new Float64Array(3) as unknown as Int32Array)).toThrow('gdt1d: argmax must be an Int32Array, got Float64Array');
    expect(() => native.gdt1d(new Float64Array([1, NaN, 0]), 1, 0, out, arg)).toThrow(RangeError);
    expect(() => native.gdt1d(new Float64Array([1, Infinity, 0]), 1, 0, out, arg)).toThrow('gdt1d: f[1] is Infinity');
    expect(() => native.gdt1d(f, -1, 0, out, arg)).toThrow('gdt1d: a must be >= 0, got -1');
    expect(() => native.gdt1d(f, 1, NaN, out, arg)).toThrow('gdt1d: b must be finite, got NaN');
    expect(() => native.gdt1d(f, '1' as unknown as number, 0, out, arg)).toThrow(TypeError);
    expect(() => native.gdt1d(f, 1, 0, new Float64Array(2), arg)).toThrow('gdt1d: out has length 2, expected 3');
    expect(() => (native.gdt1d as (...a: unknown[]) => void)(f, 1, 0, out)).toThrow('gdt1d: expected 5 arguments, got 4');
    expect(() => native.gdt2d(f, 2, 2, 1, 0, 1, 0, out, arg)).toThrow('gdt2d: f has length 3, expected H*W = 4');
    expect(() => native.gdt2d(f, 3, -1, 1, 0, 1, 0, out, arg)).toThrow(RangeError);
    expect(() => native.gdt2d(f, 3, 1, 1, 0, 1, 0, out, new Int32Array(out.buffer, 0, 3))).toThrow('must not share memory');
    expect(() => native.gdt2dAsync(f, 1, 3, 1, 0, -1, 0, out, arg)).toThrow('gdt2dAsync: ax must be >= 0, got -1');
    // still alive and correct afterwards
    native.gdt1d(f, 1, 0, out, arg);
    expect(Array.from(out)).toEqual([1, 2, 3]);
    expect(Array.from(arg)).toEqual([0, 1, 2]);
  });

  it('unflattenArgmax validates width and keeps -1', () => {
    expect(() => unflattenArgmax(new Int32Array(2), 0)).toThrow(InputError);
    const { y, x } = unflattenArgmax(new Int32Array([-1, 7]), 3);
    expect(Array.from(y)).toEqual([-1, 2]);
    expect(Array.from(x)).toEqual([-1, 1]);
  });
});
