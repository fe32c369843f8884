import { check } from '../core/errors.js';
import type { SparseVector } from '../core/vector.js';
import type { ClipBounds } from './bounds.js';

/**
 * The working set of the 1-slack cutting-plane method (Joachims, Finley & Yu 2009, Alg. 4) and its dual QP.
 *
 * A joint constraint c stands for one labelling of every example: a_c = (1/n) sum_i psi_i(y_i^c) and
 * b_c = (1/n) sum_i L_i(y_i^c), and says b_c - <a_c, w> <= xi. Constraint 0 is the ground truth (a = 0,
 * b = 0: xi >= 0) and is never removed. The dual of the 1-slack QP over the working set is
 *
 *   max_{beta in simplex}  D(beta) = sum_c beta_c b_c - lambda (<v, w> - ||w||^2 / 2),
 *   v = (1/lambda) sum_c beta_c a_c,  w = clip(v)   (= l - lambda/2 ||w||^2 without bounds),
 *
 * and beta maps onto the n-slack dual point alpha_i(y) = sum over {c : y_i^c = y} of beta_c (2013 paper, eq. 4)
 * with the same w and l = sum_c beta_c b_c, so D(beta) is the n-slack dual value that the other solvers report
 * and a valid lower bound on the primal optimum for every beta in the simplex.
 *
 * The QP is solved in the space of the K constraints: the Gram matrix G = [<a_c, a_c'>] gives <a_c, v> =
 * (G beta)_c / lambda, so a step costs O(K) without box constraints; with them, w = v + r where
 * r = clip(v) - v lives on the bounded coordinates J only, and the rows of the a_c on J are kept as a K x |J|
 * matrix (a step then costs O(K |J|)).
 */
export class WorkingSet {
  /** Number of constraints K (constraint 0 is the ground truth). */
  size = 0;
  /** a_c, owned copies. */
  private vectors: SparseVector[] = [];
  private capacity = 0;
  private b = new Float64Array(0);
  /** The dual variables beta (a point of the simplex). */
  beta = new Float64Array(0);
  /** Outer iterations each constraint has spent with beta_c = 0 (for pruning). */
  private idle = new Int32Array(0);
  /** G, row-major with stride `capacity`. */
  private gram = new Float64Array(0);
  /** The bounded coordinates J, their bounds, and the rows a_c[J] (stride |J|). */
  private readonly bounded: Int32Array;
  private readonly lowerJ: Float64Array;
  private readonly upperJ: Float64Array;
  private aJ = new Float64Array(0);
  // Scratch of the QP: G beta, the gradient, v and r on J.
  private gBeta = new Float64Array(0);
  private grad = new Float64Array(0);
  private readonly vJ: Float64Array;
  private readonly rJ: Float64Array;

  constructor(
    readonly dim: number,
    bounds?: ClipBounds,
  ) {
    const J: number[] = [];
    if (bounds) for (let j = 0; j < dim; j++) if (bounds.lower[j] !== -Infinity || bounds.upper[j] !== Infinity) J.push(j);
    this.bounded = Int32Array.from(J);
    this.lowerJ = Float64Array.from(J, (j) => bounds!.lower[j]!);
    this.upperJ = Float64Array.from(J, (j) => bounds!.upper[j]!);
    this.vJ = new Float64Array(J.length);
    this.rJ = new Float64Array(J.length);
    this.grow(8);
    this.append({ indices: new Int32Array(0), values: new Float64Array(0), nnz: 0 }, 0);
    this.beta[0] = 1;
  }

  /** The Gram entry <a_c, a_e>. */
  gramAt(c: number, e: number): number {
    return this.gram[c * this.capacity + e]!;
  }

  /**
   * Adds the constraint (a, b) with beta = 0, a given densely (length dim); `dense` is left unchanged. Its Gram
   * row is <a_c, a> over the stored entries of every a_c, so that G matches the stored vectors exactly.
   */
  add(dense: Float64Array, b: number): void {
    check(dense.length === this.dim, `a constraint needs ${this.dim} coordinates, got ${dense.length}`);
    let nnz = 0;
    for (let j = 0; j < this.dim; j++) if (dense[j] !== 0) nnz++;
    const a: SparseVector = { indices: new Int32Array(nnz), values: new Float64Array(nnz), nnz };
    for (let j = 0, k = 0; j < this.dim; j++) {
      if (dense[j] !== 0) {
        a.indices[k] = j;
        a.values[k++] = dense[j]!;
      }
    }
    const K = this.size;
    const row = new Float64Array(K + 1);
    for (let c = 0; c < K; c++) {
      const ac = this.vectors[c]!;
      let s = 0;
      for (let k = 0; k < ac.nnz; k++) s += ac.values[k]! * dense[ac.indices[k]!]!;
      row[c] = s;
    }
    let self = 0;
    for (let k = 0; k < nnz; k++) self += a.values[k]! * a.values[k]!;
    row[K] = self;
    this.append(a, b, row);
  }

  /** Appends a constraint with its Gram row (entries 0..K, the last one <a, a>). */
  private append(a: SparseVector, b: number, row?: Float64Array): void {
    if (this.size === this.capacity) this.grow(2 * this.capacity);
    const K = this.size;
    const cap = this.capacity;
    this.vectors.push(a);
    this.b[K] = b;
    this.beta[K] = 0;
    this.idle[K] = 0;
    for (let c = 0; c <= K; c++) {
      const g = row ? row[c]! : 0;
      this.gram[K * cap + c] = g;
      this.gram[c * cap + K] = g;
    }
    const m = this.bounded.length;
    if (m > 0) {
      const dense = new Float64Array(this.dim);
      for (let k = 0; k < a.nnz; k++) dense[a.indices[k]!] = a.values[k]!;
      for (let q = 0; q < m; q++) this.aJ[K * m + q] = dense[this.bounded[q]!]!;
    }
    this.size = K + 1;
  }

  private grow(capacity: number): void {
    const old = this.capacity;
    const K = this.size;
    const m = this.bounded.length;
    const resize = <T extends Float64Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const out = make(capacity);
      out.set(a.subarray(0, K));
      return out;
    };
    this.b = resize(this.b, (n) => new Float64Array(n));
    this.beta = resize(this.beta, (n) => new Float64Array(n));
    this.idle = resize(this.idle, (n) => new Int32Array(n));
    this.gBeta = new Float64Array(capacity);
    this.grad = new Float64Array(capacity);
    const gram = new Float64Array(capacity * capacity);
    for (let c = 0; c < K; c++) gram.set(this.gram.subarray(c * old, c * old + K), c * capacity);
    this.gram = gram;
    const aJ = new Float64Array(capacity * m);
    aJ.set(this.aJ.subarray(0, K * m));
    this.aJ = aJ;
    this.capacity = capacity;
  }

  /** r = clip(v) - v on the bounded coordinates, from v on them. */
  private residual(): void {
    const { vJ, rJ, lowerJ, upperJ } = this;
    for (let q = 0; q < vJ.length; q++) {
      const x = vJ[q]!;
      rJ[q] = (x < lowerJ[q]! ? lowerJ[q]! : x > upperJ[q]! ? upperJ[q]! : x) - x;
    }
  }

  /** G beta and v on J = (1/lambda) sum_c beta_c a_c[J], from scratch (removes the drift of incremental updates). */
  private refresh(lambda: number): void {
    const K = this.size;
    const cap = this.capacity;
    const m = this.bounded.length;
    for (let c = 0; c < K; c++) {
      let s = 0;
      for (let e = 0; e < K; e++) s += this.gram[c * cap + e]! * this.beta[e]!;
      this.gBeta[c] = s;
    }
    this.vJ.fill(0);
    for (let c = 0; c < K; c++) {
      const bc = this.beta[c]! / lambda;
      if (bc !== 0) for (let q = 0; q < m; q++) this.vJ[q]! += bc * this.aJ[c * m + q]!;
    }
  }

  /**
   * The gradient of D at beta, grad_c = b_c - <a_c, w> (the violation of constraint c at w), into `grad`;
   * returns the FW gap max_c grad_c - <beta, grad> and sets `top` to the argmax. The FW gap of the QP is its own
   * duality gap: P_ws(w) - D(beta), with P_ws the 1-slack primal over the working set.
   */
  private gradient(lambda: number): { gap: number; top: number } {
    const K = this.size;
    const m = this.bounded.length;
    if (m > 0) this.residual();
    let top = 0;
    let mean = 0;
    for (let c = 0; c < K; c++) {
      let aw = this.gBeta[c]! / lambda;
      for (let q = 0; q < m; q++) aw += this.aJ[c * m + q]! * this.rJ[q]!;
      const g = (this.grad[c] = this.b[c]! - aw);
      mean += this.beta[c]! * g;
      if (g > this.grad[top]!) top = c;
    }
    return { gap: this.grad[top]! - mean, top };
  }

  /**
   * Maximises D over the simplex by pairwise Frank-Wolfe steps (2016 paper, Alg. 3, on this one block):
   * mass moves to the constraint s of largest gradient from the active constraint a that promises the largest
   * increase (the second-order choice of SMO), with the step gamma = min(lambda (grad_s - grad_a) / ||a_s - a_a||^2,
   * beta_a) - the exact line search without bounds, a step on the quadratic upper bound of the curvature with
   * them (clip is 1-Lipschitz), so D never decreases. Stops when the QP's duality gap is <= `tolerance` or after
   * `maxIterations` steps. Returns the steps taken and the final gap.
   */
  solve(lambda: number, tolerance: number, maxIterations: number): { iterations: number; gap: number } {
    const K = this.size;
    const cap = this.capacity;
    const m = this.bounded.length;
    const { beta, gram, grad, gBeta, aJ, vJ } = this;
    this.refresh(lambda);
    let iterations = 0;
    let { gap, top: s } = this.gradient(lambda);
    for (;;) {
      if (gap <= tolerance) {
        // Confirm on fresh sums before stopping.
        this.refresh(lambda);
        ({ gap, top: s } = this.gradient(lambda));
        if (gap <= tolerance) break;
      }
      if (iterations >= maxIterations) break;
      let a = -1;
      let bestGain = 0;
      let bestGamma = 0;
      const gs = grad[s]!;
      const gss = gram[s * cap + s]!;
      for (let c = 0; c < K; c++) {
        const bc = beta[c]!;
        const d = gs - grad[c]!;
        if (c === s || bc === 0 || !(d > 0)) continue;
        const curvature = (gss + gram[c * cap + c]! - 2 * gram[s * cap + c]!) / lambda;
        const gamma = curvature > 0 ? Math.min(d / curvature, bc) : bc;
        const gain = gamma * d - 0.5 * gamma * gamma * Math.max(curvature, 0);
        if (gain > bestGain) {
          bestGain = gain;
          bestGamma = gamma;
          a = c;
        }
      }
      if (a < 0) break; // no increase left in double precision
      const gamma = bestGamma;
      beta[s]! += gamma;
      beta[a] = gamma === beta[a] ? 0 : beta[a]! - gamma;
      for (let c = 0; c < K; c++) gBeta[c]! += gamma * (gram[c * cap + s]! - gram[c * cap + a]!);
      for (let q = 0; q < m; q++) vJ[q]! += (gamma / lambda) * (aJ[s * m + q]! - aJ[a * m + q]!);
      iterations++;
      ({ gap, top: s } = this.gradient(lambda));
    }
    let sum = 0;
    for (let c = 0; c < K; c++) sum += beta[c]!;
    for (let c = 0; c < K; c++) beta[c] = beta[c]! / sum;
    return { iterations, gap };
  }

  /**
   * SVMstruct's pruning: every constraint with beta_c = 0 has been idle one more iteration; those idle for
   * `window` iterations are removed. Only constraints with beta_c = 0 go, so the dual point (and its value)
   * is unchanged; the ground truth stays. Returns how many were removed.
   */
  prune(window: number): number {
    const K = this.size;
    const keep: number[] = [0];
    for (let c = 1; c < K; c++) {
      this.idle[c] = this.beta[c]! > 0 ? 0 : this.idle[c]! + 1;
      if (this.idle[c]! < window) keep.push(c);
    }
    if (keep.length < K) this.select(keep);
    return K - keep.length;
  }

  /** Keeps the constraints `keep` (ascending), in that order. */
  private select(keep: readonly number[]): void {
    const cap = this.capacity;
    const m = this.bounded.length;
    keep.forEach((c, k) => {
      this.b[k] = this.b[c]!;
      this.beta[k] = this.beta[c]!;
      this.idle[k] = this.idle[c]!;
      this.vectors[k] = this.vectors[c]!;
      for (let q = 0; q < m; q++) this.aJ[k * m + q] = this.aJ[c * m + q]!;
      keep.forEach((e, f) => (this.gram[k * cap + f] = this.gram[c * cap + e]!));
    });
    this.vectors.length = keep.length;
    this.size = keep.length;
  }

  /** The dual point of beta: v = (1/lambda) sum_c beta_c a_c into `v` (summed in constraint order); returns l = sum_c beta_c b_c. */
  dualPoint(lambda: number, v: Float64Array): number {
    v.fill(0);
    let l = 0;
    for (let c = 0; c < this.size; c++) {
      const bc = this.beta[c]!;
      if (bc === 0) continue;
      const a = this.vectors[c]!;
      const scale = bc / lambda;
      for (let k = 0; k < a.nnz; k++) v[a.indices[k]!]! += scale * a.values[k]!;
      l += bc * this.b[c]!;
    }
    return l;
  }

  /** Stored nonzeros of all a_c. */
  get storedEntries(): number {
    return this.vectors.reduce((s, a) => s + a.nnz, 0);
  }

  /** The working set as checkpoint arrays (beta, b, idle counts, G, and the a_c as CSR rows). */
  save(): Record<string, Float64Array | Int32Array> {
    const K = this.size;
    const offsets = new Int32Array(K + 1);
    for (let c = 0; c < K; c++) offsets[c + 1] = offsets[c]! + this.vectors[c]!.nnz;
    const indices = new Int32Array(offsets[K]!);
    const values = new Float64Array(offsets[K]!);
    this.vectors.forEach((a, c) => {
      indices.set(a.indices.subarray(0, a.nnz), offsets[c]!);
      values.set(a.values.subarray(0, a.nnz), offsets[c]!);
    });
    const gram = new Float64Array(K * K);
    for (let c = 0; c < K; c++) gram.set(this.gram.subarray(c * this.capacity, c * this.capacity + K), c * K);
    return { beta: this.beta.slice(0, K), b: this.b.slice(0, K), idle: this.idle.slice(0, K), gram, offsets, indices, values };
  }

  /** Replaces the working set by saved arrays (see save); checks their shapes and that beta is in the simplex. */
  load(arrays: Record<string, Float64Array | Int32Array>): void {
    const get = <T extends Float64Array | Int32Array>(name: string, type: new (n: number) => T): T => {
      const a = arrays[name];
      check(a instanceof type, `checkpoint array '${name}' is missing or has the wrong type`);
      return a as T;
    };
    const beta = get('beta', Float64Array);
    const K = beta.length;
    const b = get('b', Float64Array);
    const idle = get('idle', Int32Array);
    const gram = get('gram', Float64Array);
    const offsets = get('offsets', Int32Array);
    const indices = get('indices', Int32Array);
    const values = get('values', Float64Array);
    check(K >= 1 && b.length === K && idle.length === K && gram.length === K * K && offsets.length === K + 1, 'checkpoint working set arrays have inconsistent lengths');
    check(offsets[0] === 0 && offsets[K] === indices.length && indices.length === values.length && offsets.every((o, c) => c === 0 || o >= offsets[c - 1]!), 'checkpoint working set offsets are not a CSR index');
    check(indices.every((j) => j >= 0 && j < this.dim), `checkpoint working set has a coordinate outside 0..${this.dim - 1}`);
    check(offsets[1] === 0 && b[0] === 0, 'checkpoint working set does not start with the ground-truth constraint');
    const sum = beta.reduce((s, x) => s + x, 0);
    check(beta.every((x) => x >= 0) && Math.abs(sum - 1) < 1e-9, 'checkpoint dual variables beta are not a point of the simplex');
    this.size = 0;
    this.vectors = [];
    if (this.capacity < K) this.grow(Math.max(K, 2 * this.capacity));
    for (let c = 0; c < K; c++) {
      const a: SparseVector = { indices: indices.slice(offsets[c], offsets[c + 1]), values: values.slice(offsets[c], offsets[c + 1]), nnz: offsets[c + 1]! - offsets[c]! };
      this.append(a, b[c]!, gram.subarray(c * K, c * K + c + 1));
    }
    this.beta.set(beta);
    this.idle.set(idle);
  }

  /** Resets every idle count (a warm start begins a new run). */
  resetIdle(): void {
    this.idle.fill(0);
  }
}
