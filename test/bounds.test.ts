import { describe, expect, it } from 'vitest';
import { bcfw } from '../src/solvers/bcfw.js';
import { fw } from '../src/solvers/fw.js';
import { cuttingPlane } from '../src/solvers/cutting-plane.js';
import { ssg } from '../src/solvers/ssg.js';
import { Rng } from '../src/core/rng.js';
import { DenseBlocks, SparseBlocks } from '../src/solvers/blocks.js';
import { ClippedIterate, clipInto } from '../src/solvers/bounds.js';
import { boxedTinyChain, brutePrimal } from './helpers/tiny.js';

// Box constraints (2016 App. H): positivity on the transition weights and a general box [-0.3, 0.3] on the
// first-label biases of a tiny chain problem. The solvers keep v = sum_i w_i unclipped and use w = clip(v).
const { t, lower, upper, boxed } = boxedTinyChain();
const d = t.model.dim;
const lambda = 0.05;
const inBox = (w: Float64Array) => w.every((x, j) => x >= lower[j]! - 1e-15 && x <= upper[j]! + 1e-15);

describe('box-constrained solvers', () => {
  const unconstrained = bcfw(t.problem, { lambda, step: 'pairwise', gapThreshold: 1e-6, maxPasses: 100000 });

  it('the constraints bind: the unconstrained optimum leaves the box', () => {
    expect(inBox(unconstrained.w)).toBe(false);
  });

  const runs = {
    'BCFW': () => bcfw(boxed, { lambda, gapThreshold: 1e-4, maxPasses: 100000 }),
    'BCPFW gap cache': () => bcfw(boxed, { lambda, step: 'pairwise', sampling: 'gap', cache: true, gapThreshold: 1e-4, maxPasses: 100000, checkConsistency: true }),
    'hybrid, sparse blocks': () => bcfw(boxed, { lambda, step: 'hybrid', blockStorage: 'sparse', gapThreshold: 1e-4, maxPasses: 100000 }),
    'batch FW': () => fw(boxed, { lambda, gapThreshold: 1e-4, maxPasses: 200000 }),
    'cutting plane': () => cuttingPlane(boxed, { lambda, gapThreshold: 1e-4, maxPasses: 2000 }),
  };
  const results = Object.fromEntries(Object.entries(runs).map(([k, f]) => [k, f()]));

  it.each(Object.keys(runs))('%s returns a w in the box with a certified gap, and its primal matches enumeration', (name) => {
    const r = results[name]!;
    expect(r.stopReason).toBe('gap');
    expect(inBox(r.w)).toBe(true);
    expect(r.primal).toBeCloseTo(brutePrimal(t, lambda, r.w), 10);
  });

  it('the dual is a valid lower bound: no w in the box has a smaller primal (weak duality)', () => {
    const rng = new Rng(4);
    const best = Math.max(...Object.values(results).map((r) => r.dual!));
    for (let trial = 0; trial < 300; trial++) {
      const base = results['BCFW']!.w;
      const w = Float64Array.from(base, (x, j) => Math.min(Math.max(x + (rng.next() - 0.5) * (trial < 150 ? 0.2 : 2), lower[j]!), upper[j]!));
      expect(brutePrimal(t, lambda, w)).toBeGreaterThanOrEqual(best - 1e-12);
    }
  });

  it('all solvers reach the same constrained optimum within their certificates', () => {
    const all = Object.values(results);
    for (const a of all) for (const b of all) expect(Math.abs(a.primal! - b.primal!)).toBeLessThanOrEqual(a.gap! + b.gap! + 1e-12);
    // The constrained optimum is worse than the unconstrained one.
    expect(results['BCFW']!.primal!).toBeGreaterThan(unconstrained.primal! + unconstrained.gap!);
  });

  it('projected SSG stays in the box and approaches the same optimum', () => {
    const r = ssg(boxed, { lambda, maxPasses: 3000, gapCheck: 3000, seed: 3 });
    expect(inBox(r.w)).toBe(true);
    const opt = results['BCFW']!;
    expect(r.primal!).toBeGreaterThanOrEqual(opt.primal! - opt.gap! - 1e-12);
    expect(r.primal! - opt.primal!).toBeLessThan(2e-2);
  });

  it('rejects bounds that exclude w = 0 or have the wrong length', () => {
    expect(() => bcfw({ ...t.problem, bounds: { lower: new Float64Array(d).fill(0.1) } }, { lambda })).toThrow(/contain 0/);
    expect(() => bcfw({ ...t.problem, bounds: { lower: new Float64Array(3) } }, { lambda })).toThrow(/length/);
  });
});

describe('ClippedIterate: v and w = clip(v) in one array', () => {
  it('after any updates of v, w is clipInto(v) and v() is v, bit for bit; without bounds v() is w', () => {
    const n = 200;
    const rng = new Rng(9);
    const lo = new Float64Array(n).fill(-Infinity);
    const hi = new Float64Array(n).fill(Infinity);
    for (let j = 0; j < n; j += 7) lo[j] = 0;
    for (let j = 3; j < n; j += 11) [lo[j], hi[j]] = [-0.2, 0.3];
    const box = new ClippedIterate(n, { lower: lo, upper: hi });
    const v = new Float64Array(n);
    for (let step = 0; step < 50; step++) {
      const gamma = rng.next();
      const target = box.unclip();
      // the same update of v and of the array holding v (as the block kernels move it)
      for (const u of [v, target]) for (let j = 0; j < n; j++) u[j]! += -gamma * u[j]! + Math.sin(j + step) * gamma;
      box.reclip();
      expect([...box.w]).toEqual([...clipInto(v, { lower: lo, upper: hi }, new Float64Array(n))]);
      expect([...box.v()]).toEqual([...v]);
    }
    const free = new ClippedIterate(n, undefined);
    free.unclip()[4] = 2;
    free.reclip();
    expect(free.v()).toBe(free.w);
    expect(free.w[4]).toBe(2);
  });
});

describe('block storage', () => {
  it('dots (native for dense blocks) gives dot of every block, the same on any number of threads', () => {
    const rng = new Rng(3);
    const [n, dim] = [6, 70000];
    const w = Float64Array.from({ length: dim }, () => rng.next() - 0.5);
    const psi = { indices: Int32Array.from({ length: 500 }, (_, q) => q * 97), values: Float64Array.from({ length: 500 }, () => rng.next()), nnz: 500 };
    for (const threads of [1, 2]) {
      for (const blocks of [new DenseBlocks(n, dim, { chunkedStats: true, threads }), new SparseBlocks(n, dim)]) {
        for (let i = 0; i < n; i++) blocks.addSparse(i, new Float64Array(dim), psi, rng.next());
        for (let i = 0; i < n; i++) blocks.update(i, new Float64Array(dim), null, psi, 0.3, rng.next(), 0);
        const which = Int32Array.of(4, 0, 5, 2);
        const out = new Float64Array(4);
        blocks.dots(which, 3, w, out);
        expect(out[3]).toBe(0);
        // The dense kernel adds in another order than the plain loop (four partial sums): equal up to rounding.
        const stored = new Float64Array(dim);
        for (let q = 0; q < 3; q++) {
          blocks.read(which[q]!, stored);
          const scale = stored.reduce((a, x, j) => a + Math.abs(x * w[j]!), 0);
          expect(Math.abs(out[q]! - blocks.dot(which[q]!, w))).toBeLessThanOrEqual(1e-14 * scale);
        }
      }
    }
    // Bit for bit on one and two threads: the sums do not depend on the thread that takes a block.
    const dots = (threads: number) => {
      const blocks = new DenseBlocks(n, dim, { chunkedStats: true, threads });
      const r = new Rng(8);
      for (let i = 0; i < n; i++) blocks.replace(i, new Float64Array(dim), Float64Array.from({ length: dim }, () => r.next() - 0.5));
      const out = new Float64Array(n);
      blocks.dots(Int32Array.from({ length: n }, (_, i) => i), n, w, out);
      return [...out];
    };
    expect(dots(2)).toEqual(dots(1));
    // In the background: at v as it was when they started, whatever v becomes before the wait.
    const blocks = new DenseBlocks(n, dim, { chunkedStats: true, threads: 2 });
    for (let i = 0; i < n; i++) blocks.replace(i, new Float64Array(dim), Float64Array.from({ length: dim }, () => rng.next() - 0.5));
    const which = Int32Array.of(5, 1, 3);
    const want = new Float64Array(3);
    blocks.dots(which, 3, w, want);
    const v = Float64Array.from(w);
    const got = new Float64Array(3);
    const wait = blocks.startDots(which, 3, v, got);
    v.fill(7);
    wait();
    expect([...got]).toEqual([...want]);
  });
});
