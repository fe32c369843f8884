import { describe, expect, it } from 'vitest';
import { bcfw } from '../src/solvers/bcfw.js';
import { fw } from '../src/solvers/fw.js';
import { ssg } from '../src/solvers/ssg.js';
import { train } from '../src/solvers/index.js';
import { blockGaps, fullOraclePass } from '../src/solvers/common.js';
import { InputError } from '../src/core/errors.js';
import { Rng } from '../src/core/rng.js';
import { axpySparse, copySparse, dot, normSqSparse } from '../src/core/vector.js';
import { allLabellings, bruteHinge, brutePrimal, tinyChain } from './helpers/tiny.js';

describe('duality gap', () => {
  it('block gaps at a random dual point are >= 0 and sum to primal - dual (primal by enumeration)', () => {
    for (let seed = 1; seed <= 15; seed++) {
      const t = tinyChain(seed, { n: 4, K: 3, D: 2, maxT: 3 });
      const { n, dim: d } = t.problem;
      const lambda = 0.05 + seed * 0.03;
      const rng = new Rng(seed);
      // alpha_i: random point of the simplex over all labellings of block i.
      const wBlocks = new Float64Array(n * d);
      const lBlocks = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const labels = allLabellings(t.ys[i]!.length, 3);
        const alpha = labels.map(() => rng.next());
        const total = alpha.reduce((a, b) => a + b, 0);
        labels.forEach((y, k) => {
          const a = alpha[k]! / total;
          axpySparse(a / (lambda * n), t.problem.psi(i, y), wBlocks.subarray(i * d, (i + 1) * d));
          lBlocks[i]! += (a * t.problem.loss(i, y)) / n;
        });
      }
      const w = new Float64Array(d);
      for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) w[j]! += wBlocks[i * d + j]!;
      const l = lBlocks.reduce((a, b) => a + b, 0);
      const pass = fullOraclePass(t.problem, w);
      for (let i = 0; i < n; i++) expect(pass.hinge[i]).toBeCloseTo(bruteHinge(t, i, w), 12);
      const g = blockGaps(lambda, (i) => dot(wBlocks.subarray(i * d, (i + 1) * d), w), lBlocks, pass.hinge);
      const primal = brutePrimal(t, lambda, w);
      const dual = l - 0.5 * lambda * dot(w, w);
      for (const gi of g) expect(gi).toBeGreaterThanOrEqual(-1e-12);
      expect(g.reduce((a, b) => a + b, 0)).toBeCloseTo(primal - dual, 12);
    }
  });
});

describe('BCFW', () => {
  it('the dual never decreases with line search (every block step)', () => {
    for (const seed of [1, 2, 3]) {
      const t = tinyChain(seed, { n: 8, K: 3, D: 3, maxT: 5 });
      let prev = 0; // dual at alpha = ground truth: l = 0, w = 0
      let steps = 0;
      bcfw(t.problem, { lambda: 0.1, averaging: false, maxPasses: 30, gapThreshold: 0, seed }, { onStep: (s) => {
          expect(s.dual).toBeGreaterThanOrEqual(prev - 1e-12);
          expect(s.gamma).toBeGreaterThanOrEqual(0);
          expect(s.gamma).toBeLessThanOrEqual(1);
          prev = s.dual;
          steps++;
        } });
      expect(steps).toBe(30 * 8);
    }
  });

  it('per-block exact gaps without averaging sum to the reported gap', () => {
    const t = tinyChain(4, { n: 6 });
    const r = bcfw(t.problem, { lambda: 0.2, averaging: false, maxPasses: 7, gapCheck: 3 });
    expect(r.blockGaps).toBeDefined();
    expect(r.blockGaps!.reduce((a, b) => a + b, 0)).toBeCloseTo(r.gap!, 12);
    expect(r.primal! - r.dual!).toBeCloseTo(r.gap!, 12);
    expect(r.primal).toBeCloseTo(brutePrimal(t, 0.2, r.w), 10);
  });

  it('the certified gap at the averaged iterate matches the enumerated primal', () => {
    const t = tinyChain(9, { n: 6 });
    const r = bcfw(t.problem, { lambda: 0.1, maxPasses: 5, gapCheck: 5 });
    expect(r.gapIsExact).toBe(true);
    expect(r.primal).toBeCloseTo(brutePrimal(t, 0.1, r.w), 10);
    expect(r.gap).toBeGreaterThanOrEqual(-1e-12);
  });

  it('same seed, same trace; another seed, another trace', () => {
    const t = tinyChain(5, { n: 10 });
    const strip = (tr: { seconds: number }[]) => tr.map(({ seconds: _s, ...rest }) => rest);
    for (const sampling of ['uniform', 'perm'] as const) {
      const a = bcfw(t.problem, { lambda: 0.1, maxPasses: 12, gapCheck: 4, seed: 3, sampling, gapThreshold: 0 });
      const b = bcfw(t.problem, { lambda: 0.1, maxPasses: 12, gapCheck: 4, seed: 3, sampling, gapThreshold: 0 });
      const c = bcfw(t.problem, { lambda: 0.1, maxPasses: 12, gapCheck: 4, seed: 4, sampling, gapThreshold: 0 });
      expect(strip(a.trace)).toEqual(strip(b.trace));
      expect(Array.from(a.w)).toEqual(Array.from(b.w));
      expect(strip(a.trace)).not.toEqual(strip(c.trace));
    }
  });

  it('stops on the gap threshold, on max passes, and aborts cleanly', () => {
    const t = tinyChain(6, { n: 8 });
    const r1 = bcfw(t.problem, { lambda: 0.1, gapThreshold: 1e-2, maxPasses: 100000 });
    expect(r1.stopReason).toBe('gap');
    expect(r1.gap).toBeLessThanOrEqual(1e-2);
    expect(r1.passes % 10).toBe(0);
    const r2 = bcfw(t.problem, { lambda: 0.1, gapThreshold: 0, maxPasses: 3 });
    expect(r2.stopReason).toBe('maxPasses');
    expect(r2.passes).toBe(3);
    expect(r2.gapIsExact).toBe(true);
    expect(r2.effectivePasses).toBe(4); // 3 passes + the final exact pass
    const ac = new AbortController();
    ac.abort();
    const r3 = bcfw(t.problem, { lambda: 0.1 }, { signal: ac.signal });
    expect(r3.stopReason).toBe('aborted');
    expect(r3.gap).toBeGreaterThan(0);
  });
});

describe('FW, BCFW and SSG reach the same optimum', () => {
  // Tolerances come from the certificates: primal(w) - primal* <= gap(w), and lambda-strong convexity
  // of the primal gives ||w - w*|| <= sqrt(2 gap(w) / lambda). FW and BCFW converge as O(1/k), so a gap
  // of 1e-4 (tens of thousands of passes on this 6-block problem) is what both reach in about a second.
  const t = tinyChain(21, { n: 6, K: 3, D: 2, maxT: 3 });
  const lambda = 0.1;
  const threshold = 1e-4;
  const ref = fw(t.problem, { lambda, gapThreshold: threshold, maxPasses: 200000 });
  const radius = (gap: number) => Math.sqrt((2 * Math.max(gap, 0)) / lambda);

  it('batch FW certifies its iterate, and its primal matches enumeration', () => {
    expect(ref.stopReason).toBe('gap');
    expect(ref.primal).toBeCloseTo(brutePrimal(t, lambda, ref.w), 10);
  });

  it('BCFW (uniform and perm, with and without averaging) agrees with FW within the certified radius', () => {
    for (const sampling of ['uniform', 'perm'] as const) {
      for (const averaging of [true, false]) {
        const r = bcfw(t.problem, { lambda, gapThreshold: threshold, maxPasses: 200000, sampling, averaging });
        expect(r.stopReason).toBe('gap');
        expect(Math.abs(r.primal! - ref.primal!)).toBeLessThanOrEqual(r.gap! + ref.gap!);
        let distSq = 0;
        for (let j = 0; j < r.w.length; j++) distSq += (r.w[j]! - ref.w[j]!) ** 2;
        expect(Math.sqrt(distSq)).toBeLessThanOrEqual(radius(r.gap!) + radius(ref.gap!));
      }
    }
  });

  it('SSG with averaging approaches the optimum at its O(1/(lambda k)) rate', () => {
    // E[primal(w_avg)] - primal* <= 2 G^2 / (lambda (k + 1)) for rho = 2/(k+2) averaging
    // (Lacoste-Julien, Schmidt & Bach 2012), with G >= ||lambda w - psi|| <= 2 max ||psi||.
    let maxPsi = 0;
    t.ys.forEach((yt, i) => {
      for (const y of allLabellings(yt.length, 3)) maxPsi = Math.max(maxPsi, Math.sqrt(normSqSparse(copySparse(t.problem.psi(i, y)))));
    });
    const passes = 3000;
    const r = ssg(t.problem, { lambda, maxPasses: passes, gapCheck: passes, seed: 2 });
    const k = passes * t.problem.n;
    const bound = (2 * (2 * maxPsi) ** 2) / (lambda * (k + 1));
    const excess = r.primal! - (ref.primal! - ref.gap!); // >= primal(w_ssg) - primal*
    expect(excess).toBeGreaterThanOrEqual(0);
    expect(excess).toBeLessThanOrEqual(3 * bound + ref.gap!);
    expect(r.primal! - ref.primal!).toBeLessThan(1e-2);
  });
});

describe('monitor events (plots only)', () => {
  const t = tinyChain(12, { n: 8 });
  it('SSG monitorEvery logs the primal and metrics of its returned iterate without counting them', () => {
    const base = { lambda: 0.1, maxPasses: 6, gapCheck: 3, seed: 2 };
    const plain = ssg(t.problem, base);
    const monitored = ssg(t.problem, { ...base, monitorEvery: 2 }, { evaluate: (w) => ({ norm: dot(w, w) }) });
    expect(Array.from(monitored.w)).toEqual(Array.from(plain.w));
    expect(monitored.oracleCalls).toBe(plain.oracleCalls);
    const monitors = monitored.trace.filter((e) => e.monitor);
    expect(monitors.map((e) => e.pass)).toEqual([2, 4, 6]);
    expect(monitors.at(-1)!.primal).toBeCloseTo(brutePrimal(t, 0.1, monitored.w), 12);
    for (const e of monitors) expect(typeof e.norm).toBe('number');
    expect(() => ssg(t.problem, { ...base, monitorEvery: 0 })).toThrow(/monitorEvery/);
  });

  it("BCFW's monitor events carry the evaluate metrics", () => {
    const r = bcfw(t.problem, { lambda: 0.1, maxPasses: 4, gapCheck: 2, monitorEvery: 1 }, { evaluate: (w) => ({ norm: dot(w, w) }) });
    const monitors = r.trace.filter((e) => e.monitor);
    expect(monitors.length).toBe(4);
    for (const e of monitors) expect(typeof e.norm).toBe('number');
  });
});

describe('solver options', () => {
  const t = tinyChain(1, { n: 3 });
  it('reject bad values with InputError', () => {
    expect(() => bcfw(t.problem, { lambda: 0 })).toThrow(InputError);
    expect(() => bcfw(t.problem, { lambda: NaN })).toThrow(/lambda/);
    expect(() => bcfw(t.problem, { gapCheck: 0 })).toThrow(/--gap-check/);
    expect(() => bcfw(t.problem, { maxPasses: 1.5 })).toThrow(/--max-passes/);
    expect(() => bcfw(t.problem, { sampling: 'bogus' as 'perm' })).toThrow(/sampling/);
    expect(() => bcfw(t.problem, { sampling: 'gap', averaging: true })).toThrow(/averaging/);
    expect(() => bcfw(t.problem, { step: 'sideways' as 'fw' })).toThrow(/step/);
    expect(() => bcfw(t.problem, { cache: { factor: -1 } })).toThrow(/--cache-f/);
    expect(() => train(t.problem, { solver: 'nope' as 'fw' })).toThrow(/--solver must be one of bcfw, fw, ssg, cutting-plane/);
  });
  it('default lambda is 1/n', () => {
    expect(train(t.problem, { maxPasses: 1 }).lambda).toBeCloseTo(1 / 3, 15);
  });
});
