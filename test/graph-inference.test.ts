/**
 * The native MRF routines (native/graph/, src/native/graph.ts) against brute-force enumeration on tiny graphs: tree
 * DP, K = 2 cuts and exhaustive search are exact; alpha-expansion ends where no expansion move improves and within
 * its 2c bound of the optimum; the LP routine's bound is above the optimum and its label below; `auto` picks the
 * routine the per-example rules name.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../src/core/rng.js';
import { InputError } from '../src/core/errors.js';
import { inferGraph, type GraphPotentials, type GraphRoutine } from '../src/native/graph.js';
import { mrfScore } from '../src/models/mrf.js';
import { bruteMax, labellings, mrfOf, randomForest, randomLoopy, randomTable, submodularTable } from './helpers/mrf.js';

const solve = (p: GraphPotentials, routine: GraphRoutine | 'auto' = 'auto') => {
  const labels = new Int32Array(p.unary.length / p.numLabels);
  const r = inferGraph(p, labels, { routine });
  return { ...r, labels };
};

/** A metric table: -weight * d(a, b) with d the truncated linear distance min(|a - b|, 2) (c = 2 in Boykov et al.'s bound). */
function metricTable(weight: number, K: number): number[] {
  return Array.from({ length: K * K }, (_, j) => -weight * Math.min(Math.abs(Math.floor(j / K) - (j % K)), 2));
}

describe('MRF inference against brute force', () => {
  it('tree DP is exact on random forests (K = 2..4, shared and per-edge tables)', () => {
    const rng = new Rng(3);
    for (let trial = 0; trial < 60; trial++) {
      const N = 1 + rng.int(7);
      const K = 2 + rng.int(3);
      const edges = randomForest(rng, N);
      const shared = trial % 3 === 0 ? randomTable(rng, K) : undefined;
      const p = mrfOf(rng, N, K, edges, () => shared ?? randomTable(rng, K));
      if (shared) p.tables = Float64Array.from(shared);
      const r = solve(p, 'tree');
      expect(r.routine).toBe('tree');
      expect(r.exact).toBe(true);
      expect(r.score).toBeCloseTo(bruteMax(p).score, 12);
      expect(r.score).toBeCloseTo(mrfScore(p, r.labels), 12);
    }
  });

  it('the K = 2 cut is exact on random loopy graphs with submodular tables', () => {
    const rng = new Rng(5);
    for (let trial = 0; trial < 60; trial++) {
      const N = 2 + rng.int(8);
      const p = mrfOf(rng, N, 2, randomLoopy(rng, N, 1 + rng.int(6)), () => submodularTable(rng));
      const r = solve(p, 'cut');
      expect(r.routine).toBe('cut');
      expect(r.exact).toBe(true);
      expect(r.score).toBeCloseTo(bruteMax(p).score, 10);
      expect(r.score).toBeCloseTo(mrfScore(p, r.labels), 12);
    }
  });

  it('a cut is refused on a table that is not submodular (the automatic choice runs instead)', () => {
    const rng = new Rng(6);
    const p = mrfOf(rng, 4, 2, [[0, 1], [1, 2], [2, 3], [3, 0]], () => [0, 1, 1, 0]);
    const r = solve(p, 'cut');
    expect(r.routine).not.toBe('cut');
    expect(r.routine).toBe('exhaustive');
    expect(r.score).toBeCloseTo(bruteMax(p).score, 12);
  });

  it('exhaustive search is exact on random frustrated graphs', () => {
    const rng = new Rng(7);
    for (let trial = 0; trial < 40; trial++) {
      const N = 2 + rng.int(5);
      const K = 2 + rng.int(3);
      const p = mrfOf(rng, N, K, randomLoopy(rng, N, rng.int(5)), () => randomTable(rng, K, 2));
      const r = solve(p, 'exhaustive');
      expect(r.routine).toBe('exhaustive');
      expect(r.exact).toBe(true);
      expect(r.score).toBeCloseTo(bruteMax(p).score, 10);
      expect(r.score).toBeCloseTo(mrfScore(p, r.labels), 10);
    }
  });

  it('alpha-expansion ends where no expansion move improves, within 2c of the optimum (metric tables, energies >= 0)', () => {
    const rng = new Rng(11);
    for (let trial = 0; trial < 40; trial++) {
      const N = 2 + rng.int(6);
      const K = 3 + rng.int(2);
      const p = mrfOf(rng, N, K, randomLoopy(rng, N, 1 + rng.int(5)), () => metricTable(rng.next() * 2, K));
      for (let j = 0; j < p.unary.length; j++) p.unary[j] = -rng.next(); // energies D = -unary in [0, 1]
      const r = solve(p, 'expansion');
      expect(r.routine).toBe('expansion');
      expect(r.exact).toBe(false);
      expect(r.bound).toBe(Infinity);
      expect(r.score).toBeCloseTo(mrfScore(p, r.labels), 12);
      // No expansion move improves: every subset of nodes switched to every alpha scores at most as much.
      for (let alpha = 0; alpha < K; alpha++) {
        for (const move of labellings(N, 2)) {
          const y = r.labels.map((k, i) => (move[i] ? alpha : k));
          expect(mrfScore(p, y)).toBeLessThanOrEqual(r.score + 1e-9);
        }
      }
      // Boykov, Veksler & Zabih 2001, Thm. 6.1: E(x) <= 2c E(x*) with c = max d / min d over a != b (= 2 here).
      expect(-r.score).toBeLessThanOrEqual(2 * 2 * -bruteMax(p).score + 1e-9);
    }
  });

  it('the LP routine (MPLP): its bound is >= the optimum, its label <= it, and "exact" only when the bound meets the label', () => {
    const rng = new Rng(13);
    let proven = 0;
    let unproven = 0;
    for (let trial = 0; trial < 80; trial++) {
      const N = 3 + rng.int(5);
      const K = 2 + rng.int(3);
      const p = mrfOf(rng, N, K, randomLoopy(rng, N, 1 + rng.int(6)), () => randomTable(rng, K, 1.5));
      const best = bruteMax(p).score;
      const r = solve(p, 'lp');
      expect(r.routine).toBe('lp');
      expect(r.score).toBeCloseTo(mrfScore(p, r.labels), 10);
      expect(r.score).toBeLessThanOrEqual(best + 1e-12);
      expect(r.bound).toBeGreaterThanOrEqual(best - 1e-9);
      if (r.exact) {
        proven++;
        expect(r.score).toBeCloseTo(best, 8);
        expect(r.bound - r.score).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(r.bound)));
      } else {
        unproven++;
        expect(r.bound - r.score).toBeGreaterThan(1e-9 * Math.max(1, Math.abs(r.bound)));
      }
    }
    // Frustrated random tables: the relaxation is tight on some graphs and not on others.
    expect(proven).toBeGreaterThan(0);
    expect(unproven).toBeGreaterThan(0);
  });

  it('the LP routine is tight on trees (its bound proves the optimum)', () => {
    const rng = new Rng(17);
    for (let trial = 0; trial < 20; trial++) {
      const N = 2 + rng.int(6);
      const p = mrfOf(rng, N, 3, randomForest(rng, N, 1), () => randomTable(rng, 3));
      const r = solve(p, 'lp');
      expect(r.exact).toBe(true);
      expect(r.score).toBeCloseTo(bruteMax(p).score, 8);
    }
  });

  it('auto picks per example: tree on forests, cut for K = 2 submodular, exhaustive when tiny, expansion for metrics, lp otherwise', () => {
    const rng = new Rng(19);
    const loop: [number, number][] = Array.from({ length: 12 }, (_, i) => [i, (i + 1) % 12]);
    expect(solve(mrfOf(rng, 12, 3, randomForest(rng, 12, 1), () => randomTable(rng, 3))).routine).toBe('tree');
    expect(solve(mrfOf(rng, 12, 2, loop, () => submodularTable(rng))).routine).toBe('cut');
    expect(solve(mrfOf(rng, 4, 3, [[0, 1], [1, 2], [2, 0]], () => randomTable(rng, 3))).routine).toBe('exhaustive');
    expect(solve(mrfOf(rng, 12, 3, loop, () => metricTable(1, 3))).routine).toBe('expansion');
    expect(solve(mrfOf(rng, 12, 3, loop, () => randomTable(rng, 3))).routine).toBe('lp');
    // A routine named where it does not apply: the automatic choice.
    expect(solve(mrfOf(rng, 12, 3, loop, () => randomTable(rng, 3)), 'tree').routine).toBe('lp');
  });

  it('bad potentials are refused with clear errors', () => {
    const p: GraphPotentials = { unary: new Float64Array(6), numLabels: 2, edgeFrom: Int32Array.of(0), edgeTo: Int32Array.of(0), tables: new Float64Array(4) };
    expect(() => solve(p)).toThrow(InputError);
    expect(() => solve(p)).toThrow(/self-loops/);
    expect(() => solve({ ...p, edgeTo: Int32Array.of(3) })).toThrow(/nodes are 0..2/);
    expect(() => solve({ ...p, edgeTo: Int32Array.of(1), tables: new Float64Array(3) })).toThrow(/tables must hold/);
    expect(() => solve({ ...p, edgeTo: Int32Array.of(1), unary: Float64Array.of(0, NaN, 0, 0, 0, 0) })).toThrow(/not finite/);
    expect(() => inferGraph({ ...p, edgeTo: Int32Array.of(1) }, new Int32Array(3), { routine: 'magic' as GraphRoutine })).toThrow(/routine must be/);
  });
});
