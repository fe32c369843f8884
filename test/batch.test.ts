import { describe, expect, it } from 'vitest';
import { ChainModel } from '../src/models/chain.js';
import { modelProblem } from '../src/engine/problem.js';
import { fullOraclePass } from '../src/solvers/common.js';
import { native } from '../src/native/addon.js';
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
      expect(problem.batch).toBeDefined();
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
    for (const _ of t.problem.batch!.pass(w, { hinge, labels }));
    for (let i = 0; i < t.problem.n; i++) {
      const y = t.problem.oracle(i, w);
      expect(Array.from(labels[i]!)).toEqual(Array.from(y));
      expect(hinge[i]).toBeCloseTo(Math.max(0, t.problem.loss(i, y) - dotSparse(w, t.problem.psi(i, y))), 12);
    }
  });

  it('the prepared chain batch rejects inconsistent data and calls with clear errors', () => {
    const make = (offsets: Int32Array, truth: Int32Array, features = new Float64Array(truth.length)) => () =>
      new native.DenseChainBatch({ offsets, truth, numLabels: 2, numFeatures: 1, features });
    expect(make(Int32Array.of(0, 2, 1), Int32Array.of(0, 1))).toThrow(/offsets must increase/);
    expect(make(Int32Array.of(1, 2), Int32Array.of(0, 1))).toThrow(/offsets needs n\+1 >= 2 entries, the first 0/);
    expect(make(Int32Array.of(0, 2), Int32Array.of(0, 5))).toThrow(/truth\[1\] = 5 is outside 0..1/);
    expect(make(Int32Array.of(0, 2), Int32Array.of(0, 1), Float64Array.of(0, NaN))).toThrow(/features\[1\] is NaN/);
    const batch = make(Int32Array.of(0, 2), Int32Array.of(0, 1))() as InstanceType<typeof native.DenseChainBatch>;
    const w = new Float64Array(2 * 1 + 4 + 4);
    const theta = new Float64Array(4);
    expect(() => batch.viterbi({ w, theta: new Float64Array(3), labels: new Int32Array(2) })).toThrow(/theta has length 3, expected 4/);
    expect(() => batch.hinges({ w, labels: Int32Array.of(0, -1), hinge: new Float64Array(1) })).toThrow(/labels\[1\] = -1 is outside 0..1/);
    expect(() => batch.scores({ w: new Float64Array(3), theta })).toThrow(/w has length 3, expected 10/);
    expect(() => batch.scores({ w, theta, items: Int32Array.of(0, 1) })).toThrow(/items\[1\] = 1 is outside 0..0/);
    expect(() => batch.scores({ w, theta, threads: 0 })).toThrow(/threads must be an integer in \[1, 256\]/);
    expect(() => batch.scores({ w, theta: theta as unknown as Float64Array, augmented: 1 as unknown as boolean })).toThrow(/augmented must be a boolean/);
    // still alive and correct afterwards
    batch.scores({ w, theta });
    expect(Array.from(theta)).toEqual([0, 0, 0, 0]);
  });

  it('a prepared object refuses to run once an array handed to it was transferred', () => {
    const features = new Float64Array(2);
    const batch = new native.DenseChainBatch({ offsets: Int32Array.of(0, 2), truth: Int32Array.of(0, 1), numLabels: 2, numFeatures: 1, features });
    structuredClone(features.buffer, { transfer: [features.buffer] });
    expect(() => batch.scores({ w: new Float64Array(10), theta: new Float64Array(4) })).toThrow(/detached or moved/);
  });
});
