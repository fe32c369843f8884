import { describe, expect, it } from 'vitest';
import { ChainModel } from '../src/models/chain.js';
import { modelProblem } from '../src/core/problem.js';
import { fullOraclePass } from '../src/solvers/common.js';
import { native } from '../src/native.js';
import { dotSparse } from '../src/core/vector.js';
import { syntheticChain } from '../src/data/synthetic.js';
import { randomW, tinyChain } from './helpers/tiny.js';

describe('batched exact pass (chain)', () => {
  it('gives every H_i(w) of the per-object path, on 1 and 2 threads', () => {
    const data = syntheticChain({ sequences: 120, numLabels: 6, numFeatures: 10, seed: 3 });
    const xs = data.examples.map((e) => e.x);
    const ys = data.examples.map((e) => e.y);
    for (const threads of [1, 2]) {
      const model = new ChainModel({ numFeatures: data.numFeatures, numLabels: data.numLabels, threads });
      const problem = modelProblem(model, xs, ys);
      expect(problem.hingeAll).toBeDefined();
      for (const seed of [1, 2, 3]) {
        const w = randomW(model.dim, seed, 0.5);
        const batched = fullOraclePass(problem, w);
        // Reference: oracle, psi and loss block by block.
        let sum = 0;
        for (let i = 0; i < problem.n; i++) {
          const y = problem.oracle(i, w);
          const h = Math.max(problem.loss(i, y) - dotSparse(w, problem.psi(i, y)), 0);
          expect(batched.hinge[i]).toBeCloseTo(h, 12);
          sum += h;
        }
        expect(batched.hingeSum).toBeCloseTo(sum, 10);
      }
    }
  });

  it('a model with the JS decoder batches with the TypeScript scoring backend and agrees with its per-object path', () => {
    const t = tinyChain(3, { backend: 'js' });
    const w = randomW(t.model.dim, 1);
    const labels: Int32Array[] = [];
    const hinge = new Float64Array(t.problem.n);
    t.problem.hingeAll!(w, hinge, labels);
    for (let i = 0; i < t.problem.n; i++) {
      const y = t.problem.oracle(i, w);
      expect(Array.from(labels[i]!)).toEqual(Array.from(y));
      expect(hinge[i]).toBeCloseTo(Math.max(0, t.problem.loss(i, y) - dotSparse(w, t.problem.psi(i, y))), 12);
    }
  });

  it('rejects inconsistent batches with clear errors', () => {
    const w = new Float64Array(2 * 1 + 4 + 4);
    const viterbi = (offsets: Int32Array, tokens: number, theta = new Float64Array(2 * tokens)) =>
      native.chainViterbiBatch(theta, offsets, new Float64Array(4), 2, new Int32Array(tokens), 2);
    expect(() => viterbi(Int32Array.of(0, 2, 1), 2)).toThrow(/decrease/);
    expect(() => viterbi(Int32Array.of(1, 2), 2)).toThrow(/offsets\[0\]/);
    expect(() => viterbi(Int32Array.of(0, 2), 2, new Float64Array(3))).toThrow(/theta/);
    expect(() => viterbi(Int32Array.of(0, 2), 2, Float64Array.of(0, 1, NaN, 0))).toThrow(/NaN/);
    const hinge = (y: Int32Array, yHat: Int32Array, x = new Float64Array(y.length)) =>
      native.chainHingeOfLabels(w, 1, 2, x, Int32Array.of(0, y.length), y, yHat, new Float64Array(1), 2);
    expect(() => hinge(Int32Array.of(0, 5), Int32Array.of(0, 1))).toThrow(/yAll\[1\] = 5 is outside/);
    expect(() => hinge(Int32Array.of(0, 1), Int32Array.of(0, -1))).toThrow(/yHat\[1\] = -1 is outside/);
    expect(() => hinge(Int32Array.of(0, 1), Int32Array.of(0, 1), new Float64Array(3))).toThrow(/xAll/);
  });
});
