import { describe, expect, it } from 'vitest';
import { preparedPass } from '../src/engine/engine.js';
import { ChainModel, type DecodeBackend } from '../src/models/chain.js';
import { InputError } from '../src/core/errors.js';
import { dotSparse, copySparse, toDense } from '../src/core/vector.js';
import { allLabellings, randomW, tinyChain } from './helpers/tiny.js';
import { Rng } from '../src/core/rng.js';

const backends: DecodeBackend[] = ['js', 'native'];

describe.each(backends)('chain Viterbi (%s) vs brute force', (backend) => {
  it('plain decoding reaches the best score over all labellings', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const t = tinyChain(seed, { K: 2 + (seed % 3), D: 1 + (seed % 4), maxT: 5, backend });
      const w = randomW(t.model.dim, 1000 + seed, 2);
      for (const x of t.xs) {
        const T = x.length / t.model.numFeatures;
        const y = t.model.decode(w, x);
        let best = -Infinity;
        for (const z of allLabellings(T, t.model.numLabels)) best = Math.max(best, t.model.score(w, x, z));
        expect(t.model.score(w, x, y)).toBeCloseTo(best, 10);
      }
    }
  });

  it('loss-augmented decoding maximises L(y_i, y) + <w, phi(x, y)>', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const t = tinyChain(seed, { K: 2 + (seed % 3), D: 2, maxT: 5, backend });
      const w = randomW(t.model.dim, 2000 + seed, 0.3); // small w so that the loss term matters
      t.xs.forEach((x, i) => {
        const yt = t.ys[i]!;
        const y = t.model.lossAugmentedDecode(w, x, yt);
        const value = (z: Int32Array) => t.model.loss(yt, z) + t.model.score(w, x, z);
        let best = -Infinity;
        for (const z of allLabellings(yt.length, t.model.numLabels)) best = Math.max(best, value(z));
        expect(value(y)).toBeCloseTo(best, 10);
      });
    }
  });

  it('at w = 0 the loss-augmented oracle returns a labelling with every position wrong', () => {
    const t = tinyChain(3, { K: 4, maxT: 6, backend });
    const w = new Float64Array(t.model.dim);
    t.xs.forEach((x, i) => expect(t.model.loss(t.ys[i]!, t.model.lossAugmentedDecode(w, x, t.ys[i]!))).toBe(1));
  });
});

describe('chain model', () => {
  it('native and JS decoders agree on random problems', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const a = tinyChain(seed, { K: 5, D: 7, maxT: 12, backend: 'js' });
      const b = tinyChain(seed, { K: 5, D: 7, maxT: 12, backend: 'native' });
      const w = randomW(a.model.dim, seed);
      a.xs.forEach((x, i) => {
        expect(b.model.decode(w, x)).toEqual(a.model.decode(w, x));
        expect(b.model.lossAugmentedDecode(w, x, a.ys[i]!)).toEqual(a.model.lossAugmentedDecode(w, x, a.ys[i]!));
      });
    }
  });

  it('native and JS decoders pick the same labelling among exact ties (26 states, integer scores)', () => {
    // Integer weights and binary features make many paths score exactly alike: the native decoder
    // (forward maxima on wide vectors, argmax recomputed on the backtrack) must break every tie as the
    // JS decoder's stored backpointers do (smallest previous state), plain, loss-augmented and batched.
    const D = 5, K = 26;
    const rng = new Rng(17);
    const js = new ChainModel({ numFeatures: D, numLabels: K, backend: 'js' });
    const nat = new ChainModel({ numFeatures: D, numLabels: K, backend: 'native' });
    const xs: Float64Array[] = [];
    const ys: Int32Array[] = [];
    for (let s = 0; s < 40; s++) {
      const T = 1 + rng.int(12);
      xs.push(Float64Array.from({ length: T * D }, () => rng.int(2)));
      ys.push(Int32Array.from({ length: T }, () => rng.int(K)));
    }
    for (let trial = 0; trial < 5; trial++) {
      const w = Float64Array.from({ length: js.dim }, () => rng.int(3) - 1);
      const labels: Int32Array[] = [];
      preparedPass(nat, xs, ys)(w, new Float64Array(xs.length), labels);
      xs.forEach((x, i) => {
        expect(nat.decode(w, x)).toEqual(js.decode(w, x));
        const expected = js.lossAugmentedDecode(w, x, ys[i]!);
        expect(nat.lossAugmentedDecode(w, x, ys[i]!)).toEqual(expected);
        if (js.loss(ys[i]!, expected) - dotSparse(w, js.psi(x, ys[i]!, expected)) > 0) expect(labels[i]).toEqual(expected);
      });
    }
  });

  it('psi = phi(x, y_i) - phi(x, y): <w, psi> is the score difference and psi(y_i) = 0', () => {
    const t = tinyChain(11, { K: 3, D: 3, maxT: 4 });
    const w = randomW(t.model.dim, 5);
    t.xs.forEach((x, i) => {
      const yt = t.ys[i]!;
      expect(t.model.psi(x, yt, yt).nnz).toBe(0);
      for (const y of allLabellings(yt.length, 3)) {
        const psi = t.model.psi(x, yt, y);
        expect(dotSparse(w, psi)).toBeCloseTo(t.model.score(w, x, yt) - t.model.score(w, x, y), 12);
      }
    });
  });

  it('psi has the OCR layout: unary blocks, first/last biases, transitions prev + K*next', () => {
    const m = new ChainModel({ numFeatures: 2, numLabels: 3, backend: 'js' });
    expect(m.dim).toBe(3 * 2 + 2 * 3 + 9);
    const x = Float64Array.of(1, 10, 2, 20);
    const psi = toDense(copySparse(m.psi(x, Int32Array.of(0, 1), Int32Array.of(2, 1))), m.dim);
    const expected = new Float64Array(m.dim);
    expected[0] = 1; expected[1] = 10; // +x_0 in block of state 0
    expected[4] = -1; expected[5] = -10; // -x_0 in block of state 2
    expected[6 + 0] = 1; expected[6 + 2] = -1; // first label
    expected[6 + 3 + 1] = 0; // last labels agree
    expected[12 + 0 + 3 * 1] = 1; expected[12 + 2 + 3 * 1] = -1; // transitions 0->1 and 2->1
    expect(Array.from(psi)).toEqual(Array.from(expected));
  });

  it('OCR dimension is 4082', () => {
    expect(new ChainModel({ numFeatures: 129, numLabels: 26 }).dim).toBe(4082);
  });

  it('normalised Hamming loss', () => {
    const m = new ChainModel({ numFeatures: 1, numLabels: 3 });
    expect(m.loss(Int32Array.of(0, 1, 2, 0), Int32Array.of(0, 2, 2, 1))).toBe(0.5);
  });

  it('rejects bad inputs with clear errors', () => {
    const m = new ChainModel({ numFeatures: 2, numLabels: 3 });
    expect(() => m.validate(new Float64Array(3), Int32Array.of(0, 1), 'ex')).toThrow(/T\*D/);
    expect(() => m.validate(Float64Array.of(0, 0, NaN, 0), Int32Array.of(0, 1), 'ex')).toThrow(/NaN/);
    expect(() => m.validate(new Float64Array(4), Int32Array.of(0, 3), 'ex')).toThrow(/label 3/);
    expect(() => m.validate(new Float64Array(0), new Int32Array(0), 'ex')).toThrow(InputError);
    expect(() => m.decode(new Float64Array(5), new Float64Array(4))).toThrow(/w must be a Float64Array of length/);
    expect(() => new ChainModel({ numFeatures: 0, numLabels: 3 })).toThrow(InputError);
  });
});

describe('chain psi backends', () => {
  it('native psi equals the TypeScript psi on random labellings', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const a = tinyChain(seed, { K: 4, D: 5, maxT: 8, backend: 'js' });
      const b = tinyChain(seed, { K: 4, D: 5, maxT: 8, backend: 'native' });
      const w = randomW(a.model.dim, seed + 99);
      a.xs.forEach((x, i) => {
        const y = a.model.decode(w, x);
        const pa = toDense(copySparse(a.model.psi(x, a.ys[i]!, y)), a.model.dim);
        const pb = toDense(copySparse(b.model.psi(x, a.ys[i]!, y)), b.model.dim);
        expect(Array.from(pb)).toEqual(Array.from(pa));
      });
    }
  });
});

describe('chain labelScores', () => {
  it.each(['js', 'native'] as const)('scores stored labels like L(y_i, y) - <w, psi> (%s), between decodes of other lengths', (backend) => {
    const t = tinyChain(17, { K: 3, D: 2, maxT: 6, n: 8, backend });
    const w = randomW(t.model.dim, 3);
    t.xs.forEach((x, i) => {
      const yt = t.ys[i]!;
      const labels = allLabellings(yt.length, 3).slice(0, 20);
      const out = new Float64Array(labels.length);
      t.model.labelScores(w, x, yt, labels, out);
      labels.forEach((y, k) => expect(out[k]).toBeCloseTo(t.model.loss(yt, y) - dotSparse(w, t.model.psi(x, yt, y)), 12));
      // A decode after labelScores must still be exact (shared scratch buffers).
      const z = t.model.lossAugmentedDecode(w, x, yt);
      let best = -Infinity;
      for (const y of allLabellings(yt.length, 3)) best = Math.max(best, t.model.loss(yt, y) + t.model.score(w, x, y));
      expect(t.model.loss(yt, z) + t.model.score(w, x, z)).toBeCloseTo(best, 10);
    });
  });
});

describe('native chainViterbi on given node scores', () => {
  it('matches brute force and rejects bad input', async () => {
    const { native } = await import('../src/native/addon.js');
    const rng = new (await import('../src/core/rng.js')).Rng(4);
    for (let trial = 0; trial < 50; trial++) {
      const T = 1 + rng.int(5);
      const K = 1 + rng.int(4);
      const theta = Float64Array.from({ length: T * K }, () => rng.next() * 2 - 1);
      const trans = Float64Array.from({ length: K * K }, () => rng.next() * 2 - 1);
      const out = new Int32Array(T);
      const got = native.chainViterbi(theta, T, K, trans, out);
      const score = (y: Int32Array) => y.reduce((s, k, t) => s + theta[t * K + k]! + (t > 0 ? trans[y[t - 1]! + K * k]! : 0), 0);
      let best = -Infinity;
      for (const y of allLabellings(T, K)) best = Math.max(best, score(y));
      expect(got).toBeCloseTo(best, 12);
      expect(score(out)).toBeCloseTo(best, 12);
    }
    expect(() => native.chainViterbi(new Float64Array(4), 2, 2, new Float64Array(3), new Int32Array(2))).toThrow(/trans/);
    expect(() => native.chainViterbi(Float64Array.of(0, NaN, 0, 0), 2, 2, new Float64Array(4), new Int32Array(2))).toThrow(/NaN/);
  });
});
