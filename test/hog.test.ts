import { describe, expect, it } from 'vitest';
import { filterResponses, hog, hogShape, HOG_DIM } from '../src/native/hog.js';
import { PoseModel, type PoseInput } from '../src/models/pose.js';

/** Grey stripes whose intensity varies along direction theta (degrees): gradients point along theta. */
function stripes(thetaDeg: number, size = 64, period = 16): { width: number; height: number; channels: number; data: Float64Array } {
  const t = (thetaDeg * Math.PI) / 180;
  const data = new Float64Array(size * size);
  for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) data[y * size + x] = 128 + 100 * Math.sin((2 * Math.PI * (x * Math.cos(t) + y * Math.sin(t))) / period);
  return { width: size, height: size, channels: 1, data };
}

function binMass(f: ReturnType<typeof hog>, from: number, count: number): number[] {
  const m = new Array<number>(count).fill(0);
  for (let c = 0; c < f.rows * f.cols; c++) for (let o = 0; o < count; o++) m[o] += f.data[c * HOG_DIM + from + o]!;
  return m;
}

describe('HOG (31-dim Felzenszwalb cells)', () => {
  it('has the documented grid shape', () => {
    expect(hogShape(160, 70, 4)).toEqual({ rows: 38, cols: 16 });
    const f = hog(stripes(0, 40), 8);
    expect([f.rows, f.cols, f.dim, f.data.length]).toEqual([3, 3, 31, 3 * 3 * 31]);
  });

  // Orientation bin o is centred on o * 20 degrees (y axis pointing down the rows).
  for (const [theta, bin] of [[0, 0], [40, 2], [60, 3], [120, 6], [160, 8]] as const) {
    it(`stripes varying along ${theta} degrees put most mass in contrast-insensitive bin ${bin}`, () => {
      const f = hog(stripes(theta), 8);
      const m = binMass(f, 18, 9);
      const total = m.reduce((a, b) => a + b, 0);
      const arg = m.indexOf(Math.max(...m));
      expect(arg).toBe(bin);
      // The expected bin and its neighbours hold nearly all of it.
      const near = m[bin]! + m[(bin + 1) % 9]! + m[(bin + 8) % 9]!;
      expect(near / total).toBeGreaterThan(0.9);
      // The contrast-sensitive bins o and o + 9 (both gradient signs of a sinusoid) carry the mass.
      const s = binMass(f, 0, 18);
      expect(s[bin]! + s[bin + 9]!).toBeGreaterThan(0.5 * s.reduce((a, b) => a + b, 0));
    });
  }

  it('is zero on a flat image and respects the 0.2 truncation', () => {
    const flat = hog({ width: 32, height: 32, channels: 3, data: new Float64Array(32 * 32 * 3).fill(77) }, 4);
    expect(flat.data.every((v) => v === 0)).toBe(true);
    const f = hog(stripes(30), 4);
    for (let c = 0; c < f.rows * f.cols; c++) for (let o = 0; o < 27; o++) expect(f.data[c * 31 + o]).toBeLessThanOrEqual(0.4 + 1e-6);
  });

  it('rejects bad input', () => {
    expect(() => hog({ width: 4, height: 4, channels: 1, data: new Float64Array(15) })).toThrow(/length 15/);
    const bad = new Float64Array(16);
    bad[3] = NaN;
    expect(() => hog({ width: 4, height: 4, channels: 1, data: bad }, 1)).toThrow(/NaN/);
    expect(() => hog(stripes(0), 0)).toThrow(/sbin/);
  });

  it('native filter responses equal the TypeScript ones', () => {
    const f = hog(stripes(25, 48), 4);
    const parents = [-1, 0, 0];
    const w = Float64Array.from({ length: 3 * 5 * 5 * 31 + 8 }, (_, j) => Math.sin(j * 0.37));
    const mk = (scoring: 'native' | 'ts') => new PoseModel({ parents, meanOffsets: parents.map(() => ({ dx: 0, dy: 0 })), scoring });
    const x: PoseInput = { rows: f.rows, cols: f.cols, dim: 31, data: f.data };
    const a = mk('native').partScores(w, x);
    const b = mk('ts').partScores(w, x);
    for (let p = 0; p < 3; p++) for (let j = 0; j < a[p]!.length; j++) expect(a[p]![j]).toBeCloseTo(b[p]![j]!, 9);
    expect(filterResponses(f, w, 1, 5)[0]!.length).toBe(f.rows * f.cols);
  });
});
