import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers/capture.js';
import type { MulticlassDataset } from '../src/core/data.js';
import { InputError } from '../src/core/errors.js';
import { Rng } from '../src/core/rng.js';
import { loadLibsvm } from '../src/data/libsvm.js';
import { dataPath } from '../src/data/paths.js';
import { gaussianVector, hashRows, HashBins } from '../src/multiclass-fw/bins.js';
import { holdoutSplit, withBias } from '../src/data/multiclass.js';
import { NuclearLmo, symmetricEigen, topSingularPair } from '../src/multiclass-fw/lmo.js';
import { MulticlassLogistic, toClassMajor, type WeightedSubset } from '../src/multiclass-fw/problem.js';
import { exactLineSearch, trainMulticlassFw } from '../src/multiclass-fw/solvers.js';
import type { McfwSettings } from '../src/multiclass-fw/settings.js';
import { needsData } from './helpers/skips.js';

// ---------------------------------------------------------------------------------------------------
// Helpers

/** Random sparse multiclass data: n rows, F features (about `density` non-zero), K classes, all classes present. */
function randomData(n: number, F: number, K: number, seed: number, density = 0.5): MulticlassDataset {
  const rng = new Rng(seed);
  const indptr = [0];
  const indices: number[] = [];
  const values: number[] = [];
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i < K ? i : rng.int(K);
    for (let j = 0; j < F; j++) {
      if (rng.next() < density) {
        indices.push(j);
        // class-dependent mean so the problem has structure
        values.push(2 * (rng.next() - 0.5) + (j % K === y[i] ? 1 : 0));
      }
    }
    indptr.push(indices.length);
  }
  return {
    X: { rows: n, cols: F, indptr: Int32Array.from(indptr), indices: Int32Array.from(indices), values: Float64Array.from(values) },
    y,
    numLabels: K,
    labelNames: Array.from({ length: K }, (_, k) => String(k)),
  };
}

/** Reference singular value decomposition by one-sided Jacobi (Hestenes): returns singular values (descending) and vectors. */
function jacobiSvd(A: Float64Array, rows: number, cols: number): { s: number[]; u: Float64Array[]; v: Float64Array[] } {
  // Work on columns of a copy of A (rows x cols) if rows >= cols, else on the transpose.
  const tall = rows >= cols;
  const m = tall ? rows : cols;
  const c = tall ? cols : rows;
  const U: Float64Array[] = [];
  for (let j = 0; j < c; j++) {
    const col = new Float64Array(m);
    for (let i = 0; i < m; i++) col[i] = tall ? A[i * cols + j]! : A[j * cols + i]!;
    U.push(col);
  }
  const Vm: Float64Array[] = Array.from({ length: c }, (_, j) => {
    const e = new Float64Array(c);
    e[j] = 1;
    return e;
  });
  for (let sweep = 0; sweep < 60; sweep++) {
    let rotated = false;
    for (let p = 0; p < c; p++) {
      for (let q = p + 1; q < c; q++) {
        let alpha = 0;
        let beta = 0;
        let gamma = 0;
        for (let i = 0; i < m; i++) {
          alpha += U[p]![i]! ** 2;
          beta += U[q]![i]! ** 2;
          gamma += U[p]![i]! * U[q]![i]!;
        }
        if (Math.abs(gamma) <= 1e-15 * Math.sqrt(alpha * beta) || gamma === 0) continue;
        rotated = true;
        const zeta = (beta - alpha) / (2 * gamma);
        const t = Math.sign(zeta || 1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const cs = 1 / Math.sqrt(1 + t * t);
        const sn = cs * t;
        for (const M of [U, Vm]) {
          for (let i = 0; i < M[p]!.length; i++) {
            const a = M[p]![i]!;
            const b = M[q]![i]!;
            M[p]![i] = cs * a - sn * b;
            M[q]![i] = sn * a + cs * b;
          }
        }
      }
    }
    if (!rotated) break;
  }
  const triples = U.map((col, j) => {
    const s = Math.hypot(...col);
    return { s, left: col.map((x) => (s > 0 ? x / s : 0)), right: Vm[j]! };
  }).sort((a, b) => b.s - a.s);
  // For the tall case A = U S V^T with left = columns of U; for the wide case we decomposed A^T.
  return {
    s: triples.map((t) => t.s),
    u: triples.map((t) => (tall ? t.left : t.right)),
    v: triples.map((t) => (tall ? t.right : t.left)),
  };
}

const nuclear = (W: Float64Array, F: number, K: number) => jacobiSvd(W, F, K).s.reduce((a, b) => a + b, 0);
const dotv = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

function randomMatrix(rows: number, cols: number, rng: Rng): Float64Array {
  return Float64Array.from({ length: rows * cols }, () => rng.next() * 2 - 1);
}

/** Objective written as in the paper, eq. 2: f_i = log(1 + sum_{l != y} exp(w_l^T x - w_y^T x)), mean over rows. */
function paperObjective(d: MulticlassDataset, W: Float64Array): number {
  const K = d.numLabels;
  const Wc = toClassMajor(W, d.X.cols, K);
  let total = 0;
  for (let i = 0; i < d.X.rows; i++) {
    const s = new Array(K).fill(0);
    for (let q = d.X.indptr[i]!; q < d.X.indptr[i + 1]!; q++) for (let k = 0; k < K; k++) s[k] += Wc[k * d.X.cols + d.X.indices[q]!]! * d.X.values[q]!;
    let inner = 0;
    for (let l = 0; l < K; l++) if (l !== d.y[i]) inner += Math.exp(s[l] - s[d.y[i]!]);
    total += Math.log1p(inner);
  }
  return total / d.X.rows;
}

// ---------------------------------------------------------------------------------------------------

describe('multinomial logistic objective and gradient', () => {
  const d = randomData(25, 7, 4, 3);
  const p = new MulticlassLogistic(d);
  const rng = new Rng(5);
  const W = Float64Array.from({ length: p.size }, () => rng.next() - 0.5);

  it('matches the paper form log(1 + sum_{l != y} exp(...))', () => {
    expect(p.objective(p.zeros())).toBeCloseTo(Math.log(4), 14);
    expect(p.objective(W)).toBeCloseTo(paperObjective(d, W), 12);
  });

  it('gradient equals central finite differences (full data and a weighted subset)', () => {
    const subset: WeightedSubset = { index: Int32Array.from([3, 0, 17, 3, 22]), weight: Float64Array.from([2, 1, 0.5, 3, 1.5]), count: 5 };
    for (const s of [null, subset]) {
      const G = new Float64Array(p.size);
      const f0 = p.lossAndGradient(W, G, s);
      expect(f0).toBeCloseTo(p.objective(W, s), 14);
      const h = 1e-6;
      let maxErr = 0;
      let maxG = 0;
      for (let q = 0; q < p.size; q++) {
        const Wp = Float64Array.from(W);
        const Wm = Float64Array.from(W);
        Wp[q] += h;
        Wm[q] -= h;
        const fd = (p.objective(Wp, s) - p.objective(Wm, s)) / (2 * h);
        maxErr = Math.max(maxErr, Math.abs(fd - G[q]!));
        maxG = Math.max(maxG, Math.abs(G[q]!));
      }
      expect(maxG).toBeGreaterThan(1e-3);
      expect(maxErr).toBeLessThan(1e-8);
    }
  });

  it('the unrolled (generated) kernel equals the generic loop', () => {
    const g = new MulticlassLogistic(d, { kernel: 'generic' });
    const subset: WeightedSubset = { index: Int32Array.from([5, 2, 2, 24]), weight: Float64Array.from([1, 0.5, 2, 3]), count: 4 };
    for (const s of [null, subset]) {
      const count = s === null ? p.n : s.count;
      const [G1, G2] = [new Float64Array(p.size), new Float64Array(p.size)];
      const [S1, S2] = [new Float64Array(count * 4), new Float64Array(count * 4)];
      expect(p.accumulate(W, s, 0.3, G1, S1)).toBeCloseTo(g.accumulateGeneric(W, s, 0.3, G2, S2), 13);
      for (let q = 0; q < p.size; q++) expect(G1[q]).toBeCloseTo(G2[q]!, 14);
      expect(S1).toEqual(S2);
    }
    // Every class count up to 32 gets a kernel; 40 classes use the generic loop and agree too.
    const d40 = randomData(60, 5, 40, 9);
    const [a, b] = [new MulticlassLogistic(d40), new MulticlassLogistic(d40, { kernel: 'generic' })];
    const W40 = Float64Array.from({ length: a.size }, (_, q) => Math.sin(q));
    expect(a.objective(W40)).toBe(b.objective(W40));
    const d7 = randomData(60, 5, 7, 9);
    const W7 = Float64Array.from({ length: 35 }, (_, q) => Math.cos(q));
    expect(new MulticlassLogistic(d7).objective(W7)).toBeCloseTo(new MulticlassLogistic(d7, { kernel: 'generic' }).objective(W7), 13);
  });

  it('a weighted subset with integer weights equals repeating the rows', () => {
    const subset: WeightedSubset = { index: Int32Array.from([1, 4]), weight: Float64Array.from([3, 1]), count: 2 };
    const repeated: WeightedSubset = { index: Int32Array.from([1, 1, 1, 4]), weight: null, count: 4 };
    const G1 = new Float64Array(p.size);
    const G2 = new Float64Array(p.size);
    expect(p.lossAndGradient(W, G1, subset)).toBeCloseTo(p.lossAndGradient(W, G2, repeated), 14);
    for (let q = 0; q < p.size; q++) expect(G1[q]).toBeCloseTo(G2[q]!, 14);
  });

  it('is stable for huge scores and validates its input', () => {
    const big = Float64Array.from({ length: p.size }, (_, q) => (q % 4 === 0 ? 1e3 : -1e3));
    expect(Number.isFinite(p.objective(big))).toBe(true);
    expect(() => new MulticlassLogistic({ ...d, y: Int32Array.from(d.y).fill(9, 0, 1) })).toThrow(InputError);
    const nanX = { ...d.X, values: Float64Array.from(d.X.values) };
    nanX.values[2] = NaN;
    expect(() => new MulticlassLogistic({ ...d, X: nanX })).toThrow(/finite/);
    expect(() => new MulticlassLogistic({ ...d, numLabels: 1 })).toThrow(/at least 2 classes/);
    expect(() => p.objective(new Float64Array(3))).toThrow(/F x K/);
  });
});

describe('nuclear-norm LMO (top singular pair by power iteration)', () => {
  it('matches a dense SVD on small matrices of several shapes', () => {
    const rng = new Rng(11);
    for (const [rows, cols] of [[5, 3], [3, 5], [20, 10], [1, 4], [6, 1], [12, 12], [40, 3]] as const) {
      for (let rep = 0; rep < 3; rep++) {
        const A = randomMatrix(rows, cols, rng);
        const ref = jacobiSvd(A, rows, cols);
        const got = topSingularPair(A, rows, cols, { tol: 1e-12, maxIterations: 100000, rng });
        expect(got.converged).toBe(true);
        expect(got.sigma).toBeCloseTo(ref.s[0]!, 9);
        // Vectors agree up to sign when the top singular value is separated.
        if (ref.s.length === 1 || ref.s[0]! - ref.s[1]! > 1e-3 * ref.s[0]!) {
          expect(Math.abs(dotv(got.u, ref.u[0]!))).toBeCloseTo(1, 6);
          expect(Math.abs(dotv(got.v, ref.v[0]!))).toBeCloseTo(1, 6);
        }
        // sigma = u^T A v
        let uAv = 0;
        for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) uAv += got.u[r]! * A[r * cols + c]! * got.v[c]!;
        expect(uAv).toBeCloseTo(got.sigma, 10);
      }
    }
  });

  it('finds the top pair of a matrix with prescribed singular values', () => {
    // A = 5 e1 f1^T + 4.9 e2 f2^T + 1 e3 f3^T in rotated bases.
    const rng = new Rng(2);
    const rows = 8;
    const cols = 4;
    const orth = (m: number, k: number) => {
      const Q = jacobiSvd(randomMatrix(m, k, rng), m, k).u;
      return Q;
    };
    const L = orth(rows, 3);
    const R = orth(cols, 3);
    const s = [5, 4.9, 1];
    const A = new Float64Array(rows * cols);
    for (let t = 0; t < 3; t++) for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) A[r * cols + c] += s[t]! * L[t]![r]! * R[t]![c]!;
    const got = topSingularPair(A, rows, cols, { tol: 1e-12, maxIterations: 100000 });
    expect(got.sigma).toBeCloseTo(5, 9);
    expect(Math.abs(dotv(got.u, L[0]!))).toBeCloseTo(1, 6);
    expect(Math.abs(dotv(got.v, R[0]!))).toBeCloseTo(1, 6);
  });

  it('near-degenerate top singular values: power iteration falls back to the dense eigen-decomposition', () => {
    const rng = new Rng(6);
    const rows = 30;
    const cols = 6;
    const L = jacobiSvd(randomMatrix(rows, cols, rng), rows, cols).u;
    const R = jacobiSvd(randomMatrix(cols, cols, rng), cols, cols).u;
    const s = [1, 0.99999, 0.5, 0.2, 0.1, 0];
    const A = new Float64Array(rows * cols);
    for (let t = 0; t < cols; t++) for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) A[r * cols + c] += s[t]! * L[t]![r]! * R[t]![c]!;
    const got = topSingularPair(A, rows, cols, { tol: 1e-12, maxIterations: 50 });
    expect(got.method).toBe('jacobi');
    expect(got.converged).toBe(true);
    expect(got.sigma).toBeCloseTo(1, 12);
    expect(Math.abs(dotv(got.v, R[0]!))).toBeCloseTo(1, 6);
    // With enough iterations power iteration gets there by itself.
    const easy = topSingularPair(A, rows, cols, { tol: 1e-6, maxIterations: 1_000_000 });
    expect(easy.method).toBe('power');
    expect(easy.sigma).toBeCloseTo(1, 6); // tol 1e-6 on the residual: sigma to about 1e-7 here
    // symmetricEigen: A^T A has eigenvalues s^2 with eigenvectors R.
    const C = new Float64Array(cols * cols);
    for (let r = 0; r < rows; r++) for (let a = 0; a < cols; a++) for (let b = 0; b < cols; b++) C[a * cols + b] += A[r * cols + a]! * A[r * cols + b]!;
    const eig = symmetricEigen(C, cols);
    eig.values.forEach((v, t) => expect(v).toBeCloseTo(s[t]! ** 2, 12));
    expect(Math.abs(dotv(eig.vectors!.subarray(2 * cols, 3 * cols), R[2]!))).toBeCloseTo(1, 9);
  });

  it('the vertex minimises <G, V> over the ball: <G, V> = -tau sigma_1, ||V||_* = tau', () => {
    const rng = new Rng(4);
    const F = 9;
    const K = 4;
    const G = randomMatrix(F, K, rng);
    const lmo = new NuclearLmo(2.5, F, K, { tol: 1e-12, maxIterations: 100000 });
    const V = new Float64Array(F * K);
    const ans = lmo.solve(G, V);
    const ref = jacobiSvd(G, F, K);
    expect(ans.sigma).toBeCloseTo(ref.s[0]!, 9);
    expect(dotv(G, V)).toBeCloseTo(-2.5 * ref.s[0]!, 9);
    expect(nuclear(V, F, K)).toBeCloseTo(2.5, 9);
    // No other vertex of random rank-one form does better.
    for (let rep = 0; rep < 50; rep++) {
      const a = randomMatrix(F, 1, rng);
      const b = randomMatrix(K, 1, rng);
      const na = Math.hypot(...a);
      const nb = Math.hypot(...b);
      let val = 0;
      for (let j = 0; j < F; j++) for (let k = 0; k < K; k++) val += (G[j * K + k]! * 2.5 * a[j]! * b[k]!) / (na * nb);
      expect(val).toBeGreaterThanOrEqual(dotv(G, V) - 1e-9);
    }
    // Zero gradient: sigma 0, a vertex of the ball is still returned.
    const zero = lmo.solve(new Float64Array(F * K), V);
    expect(zero.sigma).toBe(0);
    expect(nuclear(V, F, K)).toBeCloseTo(2.5, 12);
  });
});

describe('hash bins', () => {
  function checkPartition(bins: HashBins, y: Int32Array, hash: Float64Array): void {
    const n = y.length;
    const seen = new Int32Array(n);
    let total = 0;
    const list = bins.list();
    for (const b of list) {
      expect(b.points.length).toBeGreaterThan(0);
      for (const i of b.points) {
        seen[i]!++;
        expect(y[i]).toBe(b.cls);
        expect(hash[i]).toBeGreaterThanOrEqual(b.lo - 1e-9 * Math.abs(b.lo) - 1e-12);
        expect(hash[i]).toBeLessThanOrEqual(b.hi + 1e-9 * Math.abs(b.hi) + 1e-12);
      }
      total += b.points.length;
    }
    expect(total).toBe(n);
    expect(Array.from(seen).every((c) => c === 1)).toBe(true);
    const binOf = bins.binOf();
    expect(Array.from(binOf).every((b) => b >= 0 && b < bins.count)).toBe(true);
    for (let b = 0; b < list.length; b++) for (const i of list[b]!.points) expect(binOf[i]).toBe(b);
  }

  it('splitting keeps every point in exactly one bin (ties, constant classes, repeated rounds)', () => {
    const rng = new Rng(8);
    const n = 400;
    const y = Int32Array.from({ length: n }, () => rng.int(4));
    const hash = Float64Array.from({ length: n }, (_, i) => (y[i] === 3 ? 0.7 : Math.round(rng.next() * 50) / 10)); // ties; class 3 constant
    const bins = HashBins.fromHash(hash, y, 5, 3);
    checkPartition(bins, y, hash);
    expect(bins.count).toBeLessThanOrEqual(3 * 3 + 1);
    let rounds = 0;
    let changed: number;
    do {
      changed = bins.split(4);
      checkPartition(bins, y, hash);
      rounds++;
    } while (changed > 0 || rounds < 3);
    // At the end, every bin holds <= delta points or points sharing one hash value.
    for (const b of bins.list()) {
      if (b.points.length > 4) expect(new Set(b.points.map((i) => hash[i])).size).toBe(1);
    }
  });

  it('cuts a bin into two equal-width halves; an empty half only narrows it', () => {
    const y = new Int32Array(6);
    const hash = Float64Array.from([0, 0.1, 0.2, 0.3, 0.35, 1]);
    const bins = HashBins.fromHash(hash, y, 1, 1); // one bin [0, 1]
    expect(bins.count).toBe(1);
    expect(bins.split(2)).toBe(1); // [0, 0.5) gets 5 points, [0.5, 1] gets 1
    expect(bins.list().map((b) => [b.lo, b.hi, b.points.length])).toEqual([
      [0, 0.5, 5],
      [0.5, 1, 1],
    ]);
    expect(bins.split(2)).toBe(1); // [0, 0.25): 3 points, [0.25, 0.5): 2
    expect(bins.list().map((b) => b.points.length)).toEqual([3, 2, 1]);
    // Three points in [0, 0.25) -> halves [0, 0.125) {0, 0.1} and [0.125, 0.25) {0.2}.
    expect(bins.split(2)).toBe(1);
    expect(bins.list().map((b) => b.points)).toEqual([[0, 1], [2], [3, 4], [5]]);
    // Narrowing only: all points of [0, 1) at 0.9x end in the right half; not counted as a division.
    const b2 = HashBins.fromHash(Float64Array.from([0, 0.9, 0.91, 0.92, 1]), new Int32Array(5), 1, 2); // [0, .5) {0}, [.5, 1] {4 points}
    expect(b2.list().map((b) => b.points.length)).toEqual([1, 4]);
    expect(b2.split(3)).toBe(0); // [.5, .75) empty, [.75, 1] keeps all 4
    expect(b2.list().map((b) => [b.lo, b.hi, b.points.length])).toEqual([
      [0, 0.5, 1],
      [0.75, 1, 4],
    ]);
  });

  it('initial bins are k0 equal-width bins per class over the sorted hash values; sampling draws one member per bin weighted by its size', () => {
    const d = randomData(300, 10, 3, 21);
    const rng = new Rng(3);
    const hash = hashRows(d.X, gaussianVector(10, rng));
    const bins = HashBins.fromHash(hash, d.y, 3, 7);
    expect(bins.count).toBeLessThanOrEqual(21);
    for (const b of bins.list()) {
      const width = b.hi - b.lo;
      const cls = Array.from(hash).filter((_, i) => d.y[i] === b.cls);
      const full = (Math.max(...cls) - Math.min(...cls)) / 7;
      expect(width).toBeCloseTo(full, 9);
    }
    const index = new Int32Array(bins.count);
    const weight = new Float64Array(bins.count);
    const nb = bins.sample(rng, index, weight);
    const list = bins.list();
    expect(weight.reduce((a, b) => a + b, 0)).toBe(300);
    for (let b = 0; b < nb; b++) {
      expect(list[b]!.points).toContain(index[b]);
      expect(weight[b]).toBe(list[b]!.points.length);
    }
  });

  it('gaussianVector has mean ~0 and variance ~1', () => {
    const g = gaussianVector(20001, new Rng(1));
    const mean = g.reduce((a, b) => a + b, 0) / g.length;
    const varc = g.reduce((a, b) => a + (b - mean) ** 2, 0) / g.length;
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(varc - 1)).toBeLessThan(0.05);
  });
});

describe('Frank-Wolfe solvers', () => {
  const d = randomData(120, 12, 4, 7);
  const p = new MulticlassLogistic(d);
  const tau = 3;

  it('every iterate of every solver stays in the nuclear-norm ball', () => {
    const variants: McfwSettings[] = [
      { solver: 'fw', tau },
      { solver: 'fw', tau, step: 'line-search' },
      { solver: 'sfw', tau },
      { solver: 'svrf', tau },
      { solver: 'svrf', tau, svrfGlobalStep: true },
      { solver: 'afw', tau, k0: 5, nu: 5, delta: 3 },
      { solver: 'afw', tau, k0: 5, nu: 5, delta: 3, step: 'line-search' },
    ];
    for (const v of variants) {
      let worst = 0;
      let count = 0;
      trainMulticlassFw(p, { ...v, maxIterations: 40, evalEvery: 1000 }, { onIterate: (_t, W) => {
          worst = Math.max(worst, nuclear(W, p.numFeatures, p.numClasses));
          count++;
        } });
      expect(count).toBe(40);
      expect(worst).toBeLessThanOrEqual(tau * (1 + 1e-9));
      expect(worst).toBeGreaterThan(0.1 * tau); // it does move
    }
  });

  it('AFW with one point per bin is exactly full FW (2/(t+1) steps and line search)', () => {
    // k0 so large that every bin holds one point (hash values are distinct).
    const hashRng = new Rng(99);
    const bins = HashBins.fromHash(hashRows(d.X, gaussianVector(p.numFeatures, hashRng)), d.y, p.numClasses, 10_000_000);
    expect(bins.count).toBe(p.n);
    expect(bins.maxSize()).toBe(1);
    for (const step of ['default', 'line-search'] as const) {
      const iterates: Float64Array[] = [];
      const fw = trainMulticlassFw(p, { solver: 'fw', tau, step, maxIterations: 30, evalEvery: 1 }, { onIterate: (_t, W) => iterates.push(Float64Array.from(W)) });
      let t = 0;
      let maxDiff = 0;
      const afw = trainMulticlassFw(p, { solver: 'afw', tau, step, maxIterations: 30, evalEvery: 1 }, { bins, onIterate: (_t, W) => {
          for (let q = 0; q < W.length; q++) maxDiff = Math.max(maxDiff, Math.abs(W[q]! - iterates[t]![q]!));
          t++;
        } });
      expect(t).toBe(30);
      expect(maxDiff).toBeLessThan(1e-9);
      expect(afw.trace.map((e) => e.objective)).toEqual(fw.trace.map((e) => expect.closeTo(e.objective, 10)));
      expect(afw.gradientEvaluations).toBe(fw.gradientEvaluations);
    }
    // Hashing with a huge k0 (instead of passing the bins) gives singleton bins too.
    const hashed = trainMulticlassFw(p, { solver: 'afw', tau, k0: 10_000_000, maxIterations: 3 });
    expect(hashed.surrogates).toBe(p.n);
  });

  it('full FW decreases the objective and its gap certifies the residual', () => {
    const long = trainMulticlassFw(p, { solver: 'fw', tau, step: 'line-search', maxIterations: 400, evalEvery: 50 });
    const fStar = long.objective;
    const short = trainMulticlassFw(p, { solver: 'fw', tau, maxIterations: 20, evalEvery: 1, optimum: fStar });
    for (const e of short.trace) {
      expect(e.gap).toBeGreaterThanOrEqual(-1e-12);
      // F(W) - F* <= gap, with F* <= fStar
      expect(e.objective - fStar).toBeLessThanOrEqual(e.gap! + 1e-9);
      expect(e.residual).toBeCloseTo(e.objective - fStar, 12);
      expect(e.primal).toBe(e.objective);
    }
    expect(long.gap).toBeLessThan(short.gap);
    expect(long.objective).toBeLessThan(Math.log(4));
  });

  it('the exact line search minimises the objective along the FW direction', () => {
    const rng = new Rng(3);
    const W = Float64Array.from({ length: p.size }, () => (rng.next() - 0.5) * 0.05);
    const G = new Float64Array(p.size);
    const V = new Float64Array(p.size);
    const scores = new Float64Array(p.n * p.numClasses);
    const dir = new Float64Array(p.n * p.numClasses);
    p.lossAndGradient(W, G, null, scores);
    const ans = new NuclearLmo(tau, p.numFeatures, p.numClasses).solve(G, V);
    const gamma = exactLineSearch(p, null, scores, dir, ans, tau);
    const phi = (g: number) => p.objective(W.map((w, q) => (1 - g) * w + g * V[q]!));
    expect(gamma).toBeGreaterThan(0);
    expect(gamma).toBeLessThanOrEqual(1);
    for (const other of [0, 1, gamma * 0.99, Math.min(1, gamma * 1.01), gamma / 2]) expect(phi(gamma)).toBeLessThanOrEqual(phi(other) + 1e-12);
  });

  it('SFW draws t^2 points at round t, SVRF k points at inner step k with epochs of 2^(e+3)-2 steps', () => {
    const sfw = trainMulticlassFw(p, { solver: 'sfw', tau, maxIterations: 12, evalEvery: 1 });
    for (const e of sfw.trace.slice(1)) expect(e.batchSize).toBe(e.iteration ** 2);
    expect(sfw.gradientEvaluations).toBe((12 * 13 * 25) / 6);
    const svrf = trainMulticlassFw(p, { solver: 'svrf', tau, maxIterations: 20, evalEvery: 1 });
    const ev = svrf.trace.slice(1);
    // Epoch 1: 14 inner steps; epoch 2 starts at iteration 15 with k = 1.
    expect(ev.map((e) => e.epoch)).toEqual([...new Array(14).fill(1), ...new Array(6).fill(2)]);
    expect(ev.map((e) => e.innerStep)).toEqual([...Array.from({ length: 14 }, (_, i) => i + 1), 1, 2, 3, 4, 5, 6]);
    expect(ev.map((e) => e.batchSize)).toEqual(ev.map((e) => e.innerStep));
    // Two snapshots (n each) + 2 gradients per sample.
    const samples = (14 * 15) / 2 + (6 * 7) / 2;
    expect(svrf.gradientEvaluations).toBe(2 * p.n + 2 * samples);
    expect(svrf.pointsTouched).toBe(2 * p.n + samples);
    // The first inner step of an epoch uses the exact snapshot gradient: step 1 of every epoch is the full-FW vertex.
    expect(ev[14]!.stepSize).toBe(1);
    expect(svrf.epochs).toBe(2);
  });

  it('AFW splits bins every nu iterations and re-draws surrogates; counts the hashing pass', () => {
    const r = trainMulticlassFw(p, { solver: 'afw', tau, k0: 4, delta: 5, nu: 10, maxIterations: 45, evalEvery: 1 });
    const s = r.trace.map((e) => e.surrogates as number);
    expect(s[0]).toBeLessThanOrEqual(16);
    // Constant between splits, non-decreasing at iterations 10, 20, 30, 40.
    for (let t = 1; t < s.length; t++) {
      if (t % 10 !== 0) expect(s[t]).toBe(s[t - 1]);
      else expect(s[t]).toBeGreaterThanOrEqual(s[t - 1]!);
    }
    expect(s.at(-1)).toBeGreaterThan(s[0]!);
    expect(r.hashSeconds).toBeGreaterThanOrEqual(0);
    expect(r.trace[0]!.seconds).toBe(r.hashSeconds); // hashing is in the run time from the start
    const sumSurrogates = s.slice(0, 45).reduce((a, b) => a + b, 0);
    expect(r.gradientEvaluations).toBe(sumSurrogates);
    expect(r.pointsTouched).toBe(sumSurrogates + p.n);
  });

  it('same seed, same trace; another seed, another trace', () => {
    const strip = (r: ReturnType<typeof trainMulticlassFw>) => r.trace.map(({ seconds: _s, cpuSeconds: _c, hashSeconds: _h, ...rest }) => rest);
    for (const solver of ['afw', 'sfw', 'svrf'] as const) {
      const a = trainMulticlassFw(p, { solver, tau, maxIterations: 25, seed: 4 });
      const b = trainMulticlassFw(p, { solver, tau, maxIterations: 25, seed: 4 });
      const c = trainMulticlassFw(p, { solver, tau, maxIterations: 25, seed: 5 });
      expect(strip(a)).toEqual(strip(b));
      expect(a.W).toEqual(b.W);
      expect(c.W).not.toEqual(a.W);
    }
  });

  it('stops on passes, target, gap and abort; validates options', () => {
    expect(trainMulticlassFw(p, { solver: 'fw', tau, maxPasses: 5 }).iterations).toBe(5);
    const target = trainMulticlassFw(p, { solver: 'fw', tau, step: 'line-search', targetObjective: 1.2, evalEvery: 1, maxIterations: 200 });
    expect(target.stopReason).toBe('target');
    expect(target.objective).toBeLessThanOrEqual(1.2);
    const gap = trainMulticlassFw(p, { solver: 'fw', tau, step: 'line-search', gapThreshold: 0.05, evalEvery: 1, maxIterations: 2000 });
    expect(gap.stopReason).toBe('gap');
    expect(gap.gap).toBeLessThanOrEqual(0.05);
    const ac = new AbortController();
    const aborted = trainMulticlassFw(p, { solver: 'sfw', tau }, { signal: ac.signal, onIterate: (t) => t === 3 && ac.abort() });
    expect(aborted.stopReason).toBe('aborted');
    expect(aborted.iterations).toBe(3);
    expect(() => trainMulticlassFw(p, { solver: 'fw', tau: 0 })).toThrow(InputError);
    expect(() => trainMulticlassFw(p, { solver: 'sfw', tau, step: 'line-search' })).toThrow(/--line-search applies to fw and afw/);
    expect(() => trainMulticlassFw(p, { solver: 'nope' as 'fw', tau })).toThrow(/solver/);
    const outside = p.zeros();
    outside[0] = 10;
    expect(() => trainMulticlassFw(p, { solver: 'fw', tau }, { init: outside })).toThrow(/nuclear norm/);
  });
});

describe('on real data (dna)', needsData('multiclass', 'dna'), () => {
  it('AFW, SVRF (at an epoch end) and SFW all learn; AFW starts from <= 100 bins per class', () => {
    const train = loadLibsvm(dataPath('multiclass', 'dna', 'dna.scale'));
    const test = loadLibsvm(dataPath('multiclass', 'dna', 'dna.scale.t'), { numFeatures: train.X.cols, labelNames: train.labelNames });
    const p = new MulticlassLogistic(train);
    // SVRF restarts its step 2/(k+1) every epoch (the first inner step jumps to a vertex): judge it after
    // epochs of 14 + 30 + 62 + 126 = 232 steps.
    const iterations = { afw: 150, sfw: 60, svrf: 232 };
    for (const solver of ['afw', 'sfw', 'svrf'] as const) {
      const r = trainMulticlassFw(p, { solver, tau: 10, maxIterations: iterations[solver] }, { evaluate: (W) => ({ testAccuracy: p.accuracy(W, test) }) });
      expect(r.objective).toBeLessThan(Math.log(3) * 0.6);
      expect(r.metrics.testAccuracy).toBeGreaterThan(0.8);
      if (solver === 'afw') expect(r.trace[0]!.surrogates as number).toBeLessThanOrEqual(300);
    }
  });
});

describe('data helpers and CLI', () => {
  it('hold-out split is seeded and partitions the rows; bias adds a constant column', () => {
    const d = randomData(50, 6, 3, 1);
    const a = holdoutSplit(d, 0.2, new Rng(1));
    const b = holdoutSplit(d, 0.2, new Rng(1));
    expect(a.test.X.rows).toBe(10);
    expect(a.train.X.rows).toBe(40);
    expect(Array.from(a.test.y)).toEqual(Array.from(b.test.y));
    expect(a.train.X.values.length + a.test.X.values.length).toBe(d.X.values.length);
    const withB = withBias(d);
    expect(withB.X.cols).toBe(7);
    expect(withB.X.values.length).toBe(d.X.values.length + 50);
    expect(withB.X.indices[withB.X.indptr[1]! - 1]).toBe(6);
  });

  it('prints its usage with --help', async () => {
    const r = await cli('multiclass-fw', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: gapbcfw multiclass-fw DATA \[options\]/);
    expect(r.stdout).toMatch(/--solver NAME +afw/);
  });

  it('refuses bad usage with exit code 2 and a message naming the option', async () => {
    const fails = async (re: RegExp, ...argv: string[]) => {
      const r = await cli('multiclass-fw', ...argv);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(re);
    };
    await fails(/--tau/, 'libsvm:x');
    await fails(/--tau must be a positive number <= 1e6, got '-1'/, 'libsvm:x', '--tau', '-1');
    await fails(/--tau must be a positive number <= 1e6, got '1e308'/, 'libsvm:x', '--tau', '1e308');
    await fails(/--solver/, 'libsvm:x', '--tau', '1', '--solver', 'bcfw');
    await fails(/line-search/, 'libsvm:x', '--tau', '1', '--solver', 'sfw', '--line-search');
    await fails(/--k0 applies to afw/, 'libsvm:x', '--tau', '1', '--solver', 'fw', '--k0', '5');
    await fails(/KIND:PATH/, 'ocr:x', '--tau', '1');
    await fails(/nonexistent/, 'libsvm:/nonexistent/file', '--tau', '1');
    await fails(/takes DATA/, '--tau', '1');
  });

  it('trains on dna with --json, a trace and --optimum', needsData('multiclass', 'dna'), async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-mcfw-'));
    const trace = join(dir, 't.jsonl');
    const r = await cli('multiclass-fw', `libsvm:${dataPath('multiclass', 'dna', 'dna.scale')}`, '--test', `libsvm:${dataPath('multiclass', 'dna', 'dna.scale.t')}`, '--tau', '10', '--solver', 'afw', '--max-iterations', '60', '--optimum', '0.1', '--trace', trace, '--json', '--out', join(dir, 'w.gbm'));
    expect(r.code).toBe(0);
    const json = r.json!;
    for (const k of ['iterations', 'effectivePasses', 'oracleCalls', 'pointsTouched', 'seconds', 'primal', 'gap', 'residual', 'testAccuracy', 'accuracy', 'nuclearNorm']) expect(typeof json[k]).toBe('number');
    expect(json.nuclearNorm as number).toBeLessThanOrEqual(10 + 1e-9);
    expect(json.iterations).toBe(60);
    expect(r.stderr).toMatch(/obj/);
    const lines = readFileSync(trace, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, number>);
    expect(lines[0]!.iteration).toBe(0);
    expect(lines.at(-1)!.iteration).toBe(60);
    for (const e of lines) {
      expect(e.residual).toBeCloseTo(e.objective! - 0.1, 12);
      expect(e.primal).toBe(e.objective);
      expect(typeof e.seconds).toBe('number');
      expect(typeof e.pointsTouched).toBe('number');
    }
  });
});
