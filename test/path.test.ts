import { describe, expect, it } from 'vitest';
import { regularizationPath, pathWeights } from '../src/path/regpath.js';
import { gridSearch } from '../src/path/grid.js';
import { bcfw } from '../src/solvers/bcfw.js';
import { certificate, fullOraclePass } from '../src/solvers/common.js';
import type { Problem } from '../src/core/problem.js';
import { tinyChain } from './helpers/tiny.js';

/** Primal objective at (w, lambda) by a full oracle pass. */
function primal(problem: Problem, lambda: number, w: Float64Array): number {
  return certificate(lambda, problem.n, w, 0, fullOraclePass(problem, w).hingeSum).primal;
}

/**
 * A certified lower bound on the optimum at lambda: primal - gap of a solve to `tolerance` (the bound is valid
 * whatever the tolerance; a looser one only makes the epsilon checks stricter).
 */
function optimumLowerBound(problem: Problem, lambda: number, tolerance = 1e-3): number {
  const r = bcfw(problem, { lambda, step: 'pairwise', sampling: 'gap', cache: true, gapThreshold: tolerance, maxPasses: 200000 });
  return r.primal! - r.gap!;
}

describe('epsilon-approximate regularization path (Alg. 6-7)', () => {
  const t = tinyChain(91, { n: 8, K: 3, D: 3, maxT: 4 });
  const epsilon = 0.05;

  // Plain FW steps converge slowly at small lambda: that variant stops the path earlier.
  for (const [solver, minLambda] of [[{ step: 'pairwise', sampling: 'gap', cache: true }, 1e-4], [{ step: 'fw', sampling: 'gap' }, 1e-2]] as const) {
    it(`certifies every breakpoint and gives an epsilon-approximate w for any lambda (${solver.step})`, () => {
      const path = regularizationPath(t.problem, { epsilon, solver, minLambda });
      expect(path.breakpoints.length).toBeGreaterThan(2);
      expect(path.gapInf).toBeLessThanOrEqual(path.kappa * epsilon * (1 + 1e-12));
      let prev = path.lambdaInf;
      for (const b of path.breakpoints) {
        expect(b.lambda).toBeLessThan(prev);
        prev = b.lambda;
        expect(b.gapIsExact).toBe(true);
        expect(b.gap).toBeLessThanOrEqual(path.kappa * epsilon);
      }
      // Probe lambdas above lambda_inf, at and between breakpoints, and down to where the path stops.
      const probes = [2 * path.lambdaInf, path.lambdaInf];
      for (const b of path.breakpoints) probes.push(b.lambda, b.lambda * 0.999);
      for (let j = 0; j + 1 < path.breakpoints.length; j++) probes.push(Math.sqrt(path.breakpoints[j]!.lambda * path.breakpoints[j + 1]!.lambda));
      for (const lambda of probes.filter((l) => l >= path.validDownTo).filter((_, k) => k % 2 === 0).slice(0, 14)) {
        const w = pathWeights(path, lambda);
        expect(primal(t.problem, lambda, w) - optimumLowerBound(t.problem, lambda)).toBeLessThanOrEqual(epsilon);
      }
    });
  }

  it('stops at minLambda and says so; a large epsilon completes at once (rho <= 0), valid down to 0', () => {
    const truncated = regularizationPath(t.problem, { epsilon, minLambda: 0.05 });
    expect(truncated.stopReason).toBe('minLambda');
    expect(truncated.complete).toBe(false);
    expect(truncated.validDownTo).toBeGreaterThan(0);
    expect(truncated.validDownTo).toBeLessThan(0.05);
    expect(() => pathWeights(truncated, truncated.validDownTo / 2)).toThrow(/below the path's range/);
    // epsilon = 20 exceeds any possible Delta <= max loss (1) plus the bound at lambda_inf: the path is one piece.
    const complete = regularizationPath(t.problem, { epsilon: 20 });
    expect(complete.complete).toBe(true);
    expect(complete.breakpoints).toHaveLength(0);
    expect(complete.validDownTo).toBe(0);
    for (const lambda of [1e-4, 1e-2, 1, complete.lambdaInf * 3]) {
      expect(primal(t.problem, lambda, pathWeights(complete, lambda)) - optimumLowerBound(t.problem, lambda, 1)).toBeLessThanOrEqual(20);
    }
  });

  it('a complete path covers every lambda down to 0', () => {
    const path = regularizationPath(t.problem, { epsilon: 0.3, minLambda: 1e-6 });
    if (path.complete) expect(path.validDownTo).toBe(0);
    else expect(path.validDownTo).toBeGreaterThan(0);
  });

  it('the heuristic path measures its true gaps, which may exceed kappa * epsilon but stay moderate', () => {
    const path = regularizationPath(t.problem, { epsilon, heuristic: true, minLambda: 1e-3 });
    expect(path.kappa).toBe(0.7);
    expect(path.breakpoints.length).toBeGreaterThan(1);
    for (const b of path.breakpoints) {
      expect(b.gapIsExact).toBe(false);
      expect(b.trueGap).toBeDefined();
      expect(b.trueGap!).toBeGreaterThanOrEqual(-1e-12);
    }
  });
});

describe('grid search', () => {
  const t = tinyChain(92, { n: 10, K: 3, D: 3, maxT: 4 });
  const lambdas = [16, 4, 1, 0.25, 0.0625, 0.015625];

  it('solves every lambda to epsilon; warm start needs fewer oracle calls than cold start', () => {
    // Oracle calls are the measure here: the cache of Alg. 5 alone (the adaptive one weighs them against its own work).
    const solver = { step: 'pairwise', sampling: 'gap', cache: { adaptive: false } } as const;
    const cold = gridSearch(t.problem, { lambdas, epsilon: 0.01, warmStart: 'none', solver });
    const primalWarm = gridSearch(t.problem, { lambdas, epsilon: 0.01, warmStart: 'keep-primal', solver });
    const dualWarm = gridSearch(t.problem, { lambdas, epsilon: 0.01, warmStart: 'keep-dual', solver });
    for (const g of [cold, primalWarm, dualWarm]) {
      expect(g.points.map((p) => p.lambda)).toEqual(lambdas);
      for (const p of g.points) {
        expect(p.stopReason).toBe('gap');
        expect(p.gap).toBeLessThanOrEqual(0.01);
      }
    }
    expect(primalWarm.effectivePasses).toBeLessThan(cold.effectivePasses);
  });
});
