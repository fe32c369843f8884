/**
 * The linear minimisation oracle of the nuclear-norm ball {W : ||W||_* <= tau}:
 *
 *   argmin_{||V||_* <= tau} <G, V> = -tau a b^T,   <G, V> = -tau sigma_1(G),
 *
 * where (a, b, sigma_1) is the top singular triple of G (Jaggi 2013, Sec. 4.2). It is computed by power
 * iteration on the Gram matrix of the smaller side of G (K x K for F x K gradients with K classes <= F
 * features: K^2 F flops to form, K^2 per iteration), warm-started from the previous call's vector plus a
 * small seeded perturbation (so that it is never orthogonal to the top eigenvector by accident).
 *
 * Stated tolerance: iteration stops when the eigen-residual ||C b - theta b|| <= tol * theta, with C the
 * Gram matrix and theta = b^T C b its Rayleigh quotient (default tol 1e-9). At stop, theta is within
 * tol * theta of an eigenvalue of C (Bauer-Fike), i.e. sigma is within about tol/2 relative of a singular
 * value of G. When the two top eigenvalues nearly coincide, power iteration converges slowly (as
 * (lambda_2/lambda_1)^k); after maxIterations (default 500) a Gram matrix of side <= 256 is then
 * decomposed densely by Jacobi rotations (exact to rounding; `method: 'jacobi'`), larger ones return with
 * `converged = false`. An underestimated sigma_1 would make the Frank-Wolfe gap (a certificate) too small,
 * which is why the fallback exists.
 */
import { check } from '../core/errors.js';
import { Rng } from '../core/rng.js';

/** Result of {@link topSingularPair}. */
export interface SingularPair {
  /** Left singular vector (length rows), unit norm. */
  u: Float64Array;
  /** Right singular vector (length cols), unit norm. */
  v: Float64Array;
  /** sigma = u^T A v >= 0. */
  sigma: number;
  /** Power iterations used. */
  iterations: number;
  /** Final relative eigen-residual ||C x - theta x|| / theta. */
  residual: number;
  /** False only when power iteration hit maxIterations on a Gram matrix too large for the dense fallback. */
  converged: boolean;
  /** 'power', or 'jacobi' when power iteration did not converge and the dense fallback answered. */
  method: 'power' | 'jacobi';
}

/** Largest Gram matrix side for which a non-converged power iteration falls back to a dense Jacobi eigen-decomposition. */
export const DENSE_FALLBACK_MAX = 256;

/** Settings of the power iteration that finds the top singular pair (the nuclear-norm LMO). */
export interface PowerOptions {
  /** Relative eigen-residual at which to stop. Default 1e-9. */
  tol?: number;
  /** Cap on power iterations (then the dense fallback). Default 500. */
  maxIterations?: number;
  /** Start vector for the small side (length min(rows, cols)); default a seeded random vector. */
  start?: Float64Array;
  /** PRNG for the random start / perturbation. Default `new Rng(1)`. */
  rng?: Rng;
}

/**
 * Top singular triple of a dense row-major `rows x cols` matrix `A`, by power iteration on the Gram
 * matrix of its smaller side. A zero matrix gives sigma = 0 and the first unit vectors.
 */
export function topSingularPair(A: Float64Array, rows: number, cols: number, options: PowerOptions = {}): SingularPair {
  check(Number.isInteger(rows) && Number.isInteger(cols) && rows >= 1 && cols >= 1, `bad matrix shape ${rows} x ${cols}`);
  check(A.length === rows * cols, `matrix has ${A.length} entries, expected ${rows} x ${cols}`);
  const tol = options.tol ?? 1e-9;
  const maxIterations = options.maxIterations ?? 500;
  check(tol > 0 && Number.isFinite(tol), `tol must be > 0, got ${tol}`);
  check(Number.isInteger(maxIterations) && maxIterations >= 1, `maxIterations must be a positive integer, got ${maxIterations}`);
  const rng = options.rng ?? new Rng(1);
  const small = Math.min(rows, cols);
  const smallIsCols = cols <= rows;
  // Gram matrix C (small x small) of the smaller side: A^T A when cols <= rows, else A A^T.
  const C = new Float64Array(small * small);
  if (smallIsCols) {
    for (let r = 0; r < rows; r++) {
      const o = r * cols;
      for (let a = 0; a < cols; a++) {
        const x = A[o + a]!;
        if (x === 0) continue;
        const ca = a * cols;
        for (let b = a; b < cols; b++) C[ca + b]! += x * A[o + b]!;
      }
    }
  } else {
    for (let a = 0; a < rows; a++) {
      for (let b = a; b < rows; b++) {
        let s = 0;
        for (let c = 0, oa = a * cols, ob = b * cols; c < cols; c++) s += A[oa + c]! * A[ob + c]!;
        C[a * rows + b] = s;
      }
    }
  }
  for (let a = 0; a < small; a++) for (let b = 0; b < a; b++) C[a * small + b] = C[b * small + a]!;
  let trace = 0;
  for (let a = 0; a < small; a++) trace += C[a * small + a]!;

  const x = new Float64Array(small);
  const y = new Float64Array(small);
  if (options.start !== undefined) {
    check(options.start.length === small, `start vector has length ${options.start.length}, expected ${small}`);
    let nrm = 0;
    for (let a = 0; a < small; a++) nrm += options.start[a]! ** 2;
    nrm = Math.sqrt(nrm);
    for (let a = 0; a < small; a++) x[a] = (nrm > 0 ? options.start[a]! / nrm : 0) + 1e-3 * (rng.next() - 0.5);
  } else {
    for (let a = 0; a < small; a++) x[a] = rng.next() - 0.5;
  }
  normalise(x);

  let iterations = 0;
  let residual = 0;
  let converged = trace === 0;
  while (!converged && iterations < maxIterations) {
    iterations++;
    symv(C, x, y, small);
    let theta = 0;
    for (let a = 0; a < small; a++) theta += x[a]! * y[a]!;
    let res = 0;
    for (let a = 0; a < small; a++) res += (y[a]! - theta * x[a]!) ** 2;
    residual = theta > 0 ? Math.sqrt(res) / theta : Infinity;
    const ny = norm(y);
    if (ny === 0) {
      // x lies in the null space of C (only possible at a bad start): restart randomly.
      for (let a = 0; a < small; a++) x[a] = rng.next() - 0.5;
      normalise(x);
      continue;
    }
    for (let a = 0; a < small; a++) x[a] = y[a]! / ny;
    if (residual <= tol) converged = true;
  }
  let method: 'power' | 'jacobi' = 'power';
  if (!converged && small <= DENSE_FALLBACK_MAX) {
    // Near-degenerate top eigenvalues make power iteration slow: take the top eigenvector of the
    // small Gram matrix from a dense Jacobi eigen-decomposition instead (exact to rounding).
    const eig = symmetricEigen(C, small);
    for (let a = 0; a < small; a++) x[a] = eig.vectors![a]!;
    symv(C, x, y, small);
    const theta = eig.values[0]!;
    let res = 0;
    for (let a = 0; a < small; a++) res += (y[a]! - theta * x[a]!) ** 2;
    residual = theta > 0 ? Math.sqrt(res) / theta : 0;
    converged = true;
    method = 'jacobi';
  }

  // Other side: w = A x (cols small) or A^T x (rows small); sigma = ||w||.
  const big = smallIsCols ? rows : cols;
  const w = new Float64Array(big);
  if (smallIsCols) {
    for (let r = 0; r < rows; r++) {
      let s = 0;
      for (let c = 0, o = r * cols; c < cols; c++) s += A[o + c]! * x[c]!;
      w[r] = s;
    }
  } else {
    for (let r = 0; r < rows; r++) {
      const xr = x[r]!;
      for (let c = 0, o = r * cols; c < cols; c++) w[c]! += A[o + c]! * xr;
    }
  }
  let sigma = norm(w);
  if (sigma > 0) {
    for (let a = 0; a < big; a++) w[a] = w[a]! / sigma;
  } else {
    // Zero matrix: any unit pair is a top pair.
    x.fill(0);
    x[0] = 1;
    w.fill(0);
    w[0] = 1;
    sigma = 0;
  }
  return smallIsCols
    ? { u: w, v: x, sigma, iterations, residual: trace === 0 ? 0 : residual, converged, method }
    : { u: x, v: w, sigma, iterations, residual: trace === 0 ? 0 : residual, converged, method };
}

function symv(C: Float64Array, x: Float64Array, y: Float64Array, m: number): void {
  for (let a = 0; a < m; a++) {
    let s = 0;
    for (let b = 0, o = a * m; b < m; b++) s += C[o + b]! * x[b]!;
    y[a] = s;
  }
}

function norm(x: Float64Array): number {
  let s = 0;
  for (let a = 0; a < x.length; a++) s += x[a]! * x[a]!;
  return Math.sqrt(s);
}

function normalise(x: Float64Array): void {
  const s = norm(x);
  if (s > 0) for (let a = 0; a < x.length; a++) x[a] = x[a]! / s;
  else x[0] = 1;
}

/** Options of {@link NuclearLmo}. */
export interface LmoOptions {
  /** Relative eigen-residual tolerance of the power iteration. Default 1e-9. */
  tol?: number;
  /** Cap on power iterations per call (then the dense fallback). Default 500. */
  maxIterations?: number;
  /** Seed of the start / perturbation vectors. Default 1. */
  seed?: number;
}

/** What one LMO call returns (the vertex itself is written into the caller's buffer). */
export interface LmoAnswer {
  /** sigma_1(G): <G, V> = -tau sigma. */
  sigma: number;
  /** Power iterations used. */
  iterations: number;
  converged: boolean;
  /** Left factor a (length F) and right factor b (length K): V = -tau a b^T, i.e. V[j*K+k] = -tau a_j b_k. */
  a: Float64Array;
  b: Float64Array;
}

/**
 * Linear minimisation oracle over the nuclear-norm ball of radius tau, for F x K feature-major gradients
 * (see problem.ts). Keeps the last right singular vector to warm-start the next call.
 */
export class NuclearLmo {
  readonly tau: number;
  private readonly tol: number;
  private readonly maxIterations: number;
  private readonly rng: Rng;
  private last: Float64Array | undefined;
  /** Total power iterations over all calls. */
  powerIterations = 0;
  calls = 0;
  /** Calls answered by the dense fallback. */
  denseFallbacks = 0;

  constructor(
    tau: number,
    readonly numFeatures: number,
    readonly numClasses: number,
    options: LmoOptions = {},
  ) {
    check(Number.isFinite(tau) && tau > 0, `tau must be a positive finite number, got ${tau}`);
    this.tau = tau;
    this.tol = options.tol ?? 1e-9;
    this.maxIterations = options.maxIterations ?? 500;
    this.rng = new Rng(options.seed ?? 1);
  }

  /** Writes the vertex argmin_{||V||_* <= tau} <G, V> into `V` (F x K, feature-major). */
  solve(G: Float64Array, V: Float64Array): LmoAnswer {
    const F = this.numFeatures;
    const K = this.numClasses;
    const small = Math.min(F, K);
    const pair = topSingularPair(G, F, K, {
      tol: this.tol,
      maxIterations: this.maxIterations,
      rng: this.rng,
      start: this.last !== undefined && this.last.length === small ? this.last : undefined,
    });
    this.last = K <= F ? pair.v : pair.u;
    this.calls++;
    this.powerIterations += pair.iterations;
    if (pair.method === 'jacobi') this.denseFallbacks++;
    const a = pair.u;
    const b = pair.v;
    const t = -this.tau;
    for (let j = 0; j < F; j++) {
      const aj = t * a[j]!;
      for (let k = 0, o = j * K; k < K; k++) V[o + k] = aj * b[k]!;
    }
    return { sigma: pair.sigma, iterations: pair.iterations, converged: pair.converged, a, b };
  }
}

/**
 * Eigen-decomposition of a symmetric m x m matrix (row-major, not modified) by cyclic Jacobi rotations,
 * accurate to rounding: eigenvalues in decreasing order and, with `vectors`, the matching unit
 * eigenvectors (row r of `vectors` is the eigenvector of `values[r]`).
 */
export function symmetricEigen(S: Float64Array, m: number, vectors = true): { values: Float64Array; vectors: Float64Array | null } {
  check(S.length === m * m, `matrix has ${S.length} entries, expected ${m} x ${m}`);
  const A = Float64Array.from(S);
  // Q accumulates the rotations: A_final = Q^T S Q, eigenvector r = column r of Q.
  const Q = vectors ? new Float64Array(m * m) : null;
  if (Q) for (let a = 0; a < m; a++) Q[a * m + a] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    let diag = 0;
    for (let p = 0; p < m; p++) {
      diag += A[p * m + p]! ** 2;
      for (let q = p + 1; q < m; q++) off += A[p * m + q]! ** 2;
    }
    if (off <= 1e-30 * Math.max(diag, 1e-300)) break;
    for (let p = 0; p < m; p++) {
      for (let q = p + 1; q < m; q++) {
        const apq = A[p * m + q]!;
        if (apq === 0) continue;
        const app = A[p * m + p]!;
        const aqq = A[q * m + q]!;
        const theta = (aqq - app) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < m; r++) {
          const arp = A[r * m + p]!;
          const arq = A[r * m + q]!;
          A[r * m + p] = c * arp - s * arq;
          A[r * m + q] = s * arp + c * arq;
        }
        for (let r = 0; r < m; r++) {
          const apr = A[p * m + r]!;
          const aqr = A[q * m + r]!;
          A[p * m + r] = c * apr - s * aqr;
          A[q * m + r] = s * apr + c * aqr;
        }
        if (Q) {
          for (let r = 0; r < m; r++) {
            const qrp = Q[r * m + p]!;
            const qrq = Q[r * m + q]!;
            Q[r * m + p] = c * qrp - s * qrq;
            Q[r * m + q] = s * qrp + c * qrq;
          }
        }
      }
    }
  }
  const order = Array.from({ length: m }, (_, a) => a).sort((a, b) => A[b * m + b]! - A[a * m + a]!);
  const values = Float64Array.from(order, (a) => A[a * m + a]!);
  let vecs: Float64Array | null = null;
  if (Q) {
    vecs = new Float64Array(m * m);
    order.forEach((a, r) => {
      for (let b = 0; b < m; b++) vecs![r * m + b] = Q[b * m + a]!;
    });
  }
  return { values, vectors: vecs };
}

/** Eigenvalues of a symmetric m x m matrix in decreasing order (see {@link symmetricEigen}). */
export function symmetricEigenvalues(S: Float64Array, m: number): Float64Array {
  return symmetricEigen(S, m, false).values;
}

/** Nuclear norm (sum of singular values) of a row-major rows x cols matrix, via the smaller Gram matrix. */
export function nuclearNorm(A: Float64Array, rows: number, cols: number): number {
  check(A.length === rows * cols, `matrix has ${A.length} entries, expected ${rows} x ${cols}`);
  const m = Math.min(rows, cols);
  const C = new Float64Array(m * m);
  if (cols <= rows) {
    for (let r = 0; r < rows; r++) for (let a = 0; a < cols; a++) for (let b = 0; b < cols; b++) C[a * m + b]! += A[r * cols + a]! * A[r * cols + b]!;
  } else {
    for (let a = 0; a < rows; a++) for (let b = 0; b < rows; b++) {
      let s = 0;
      for (let c = 0; c < cols; c++) s += A[a * cols + c]! * A[b * cols + c]!;
      C[a * m + b] = s;
    }
  }
  let total = 0;
  for (const e of symmetricEigenvalues(C, m)) total += Math.sqrt(Math.max(e, 0));
  return total;
}
