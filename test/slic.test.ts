import { describe, expect, it } from 'vitest';
import { slic } from '../src/native/slic.js';
import { InputError } from '../src/core/errors.js';

/** An H x W RGB image whose colour depends on the pixel through f. */
function image(H: number, W: number, f: (y: number, x: number) => [number, number, number]): Uint8Array {
  const rgb = new Uint8Array(H * W * 3);
  for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) rgb.set(f(y, x), 3 * (y * W + x));
  return rgb;
}

function componentsOf(labels: Int32Array, H: number, W: number, count: number): number[] {
  // number of 4-connected components of each label
  const seen = new Uint8Array(H * W);
  const comps = new Array<number>(count).fill(0);
  for (let s = 0; s < H * W; s++) {
    if (seen[s]) continue;
    comps[labels[s]!]!++;
    const stack = [s];
    seen[s] = 1;
    while (stack.length) {
      const p = stack.pop()!;
      const y = Math.floor(p / W);
      const x = p % W;
      for (const [ny, nx] of [[y - 1, x], [y + 1, x], [y, x - 1], [y, x + 1]] as const) {
        if (ny < 0 || ny >= H || nx < 0 || nx >= W) continue;
        const q = ny * W + nx;
        if (!seen[q] && labels[q] === labels[p]) {
          seen[q] = 1;
          stack.push(q);
        }
      }
    }
  }
  return comps;
}

describe('slic (native SLIC superpixels)', () => {
  it('recovers four flat colour quadrants exactly', () => {
    const colours: [number, number, number][] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]];
    const rgb = image(40, 40, (y, x) => colours[(y < 20 ? 0 : 2) + (x < 20 ? 0 : 1)]!);
    const { labels, count } = slic(rgb, 40, 40, { numSuperpixels: 4 });
    expect(count).toBe(4);
    for (let y = 0; y < 40; y++) for (let x = 0; x < 40; x++) expect(labels[y * 40 + x]).toBe(labels[(y < 20 ? 0 : 20) * 40 + (x < 20 ? 0 : 20)]);
    expect(new Set(labels).size).toBe(4);
  });

  it('gives about K connected superpixels on a textured image, labels 0..count-1', () => {
    const H = 120;
    const W = 160;
    const rgb = image(H, W, (y, x) => [(x * 7 + y * 3) % 256, (Math.sin(x / 9) * 100 + 128) | 0, (Math.cos(y / 7) * 100 + 128) | 0]);
    for (const K of [50, 200]) {
      const { labels, count } = slic(rgb, H, W, { numSuperpixels: K, compactness: 20 });
      expect(count).toBeGreaterThan(K * 0.5);
      expect(count).toBeLessThan(K * 1.5);
      let max = -1;
      for (const l of labels) max = Math.max(max, l);
      expect(max).toBe(count - 1);
      expect(componentsOf(labels, H, W, count).every((c) => c === 1)).toBe(true);
    }
  });

  it('handles grey images, one superpixel and thin images', () => {
    const grey = new Uint8Array(30 * 20).map((_, p) => (p % 20 < 10 ? 10 : 240));
    const r = slic(grey, 30, 20, { channels: 1, numSuperpixels: 2 });
    expect(r.count).toBe(2);
    expect(slic(new Uint8Array(5 * 7 * 3), 5, 7, { numSuperpixels: 1 }).count).toBe(1);
    expect(slic(new Uint8Array(1 * 50 * 3), 1, 50, { numSuperpixels: 5 }).count).toBeGreaterThanOrEqual(1);
  });

  it('rejects bad arguments with InputError', () => {
    const rgb = new Uint8Array(4 * 4 * 3);
    expect(() => slic(rgb, 4, 5)).toThrow(InputError);
    expect(() => slic(rgb, 0, 4)).toThrow(InputError);
    expect(() => slic(rgb, 4, 4, { compactness: 0 })).toThrow(InputError);
    expect(() => slic(rgb, 4, 4, { numSuperpixels: 0 })).toThrow(InputError);
    expect(() => slic(rgb, 4, 4, { channels: 2 as 3 })).toThrow(InputError);
    expect(() => slic([] as unknown as Uint8Array, 4, 4)).toThrow(InputError);
  });
});
