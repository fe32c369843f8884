import { check, InputError } from '../core/errors.js';
import type { StepCost, StructuredModel } from '../core/problem.js';
import type { BatchDecoder } from '../core/batch.js';
import { itemsOption } from '../engine/items.js';
import type { FeatureRows, ScoringBackend } from '../core/scoring.js';
import { NativeBackend } from '../../kernels/native.js';
import type { CsrMatrix } from '../core/data.js';
import { SparseAccumulator, type SparseVector } from '../core/vector.js';
import { native } from '../native/addon.js';
import { availableParallelism } from 'node:os';

/**
 * Multiclass SVM in the Crammer-Singer form as an SSVM (2013 paper, Sec. 6): phi(x, y) puts x into the
 * block of class y, so d = K * F; loss is 0-1. The smallest real structured problem: the oracle
 * enumerates the K classes. Inputs are sparse rows (see `csrRows`); labels are class ids 0..K-1.
 */
export class MulticlassModel implements StructuredModel<SparseVector, number> {
  readonly dim: number;
  private readonly acc: SparseAccumulator;

  constructor(
    readonly numFeatures: number,
    readonly numLabels: number,
  ) {
    check(Number.isInteger(numFeatures) && numFeatures >= 1, `numFeatures must be a positive integer, got ${numFeatures}`);
    check(Number.isInteger(numLabels) && numLabels >= 2, `numLabels must be an integer >= 2, got ${numLabels}`);
    this.dim = numFeatures * numLabels;
    this.acc = new SparseAccumulator(this.dim);
  }

  validate(x: SparseVector, y: number, where: string): void {
    check(Number.isInteger(y) && y >= 0 && y < this.numLabels, () => `${where}: label ${y} is outside 0..${this.numLabels - 1}`);
    for (let k = 0; k < x.nnz; k++) {
      const j = x.indices[k]!;
      check(j >= 0 && j < this.numFeatures, () => `${where}: feature index ${j} is outside 0..${this.numFeatures - 1}`);
      if (!Number.isFinite(x.values[k])) throw new InputError(`${where}: feature ${j} is ${x.values[k]}`);
    }
  }

  private classScore(w: Float64Array, x: SparseVector, c: number): number {
    const base = c * this.numFeatures;
    let s = 0;
    for (let k = 0; k < x.nnz; k++) s += w[base + x.indices[k]!]! * x.values[k]!;
    return s;
  }

  private argmax(w: Float64Array, x: SparseVector, yTrue: number): number {
    if (w.length !== this.dim) throw new InputError(`w must have length ${this.dim}, got ${w.length}`);
    let best = -Infinity;
    let arg = 0;
    for (let c = 0; c < this.numLabels; c++) {
      const s = this.classScore(w, x, c) + (yTrue >= 0 && c !== yTrue ? 1 : 0);
      if (s > best) {
        best = s;
        arg = c;
      }
    }
    return arg;
  }

  lossAugmentedDecode(w: Float64Array, x: SparseVector, yTrue: number): number {
    return this.argmax(w, x, yTrue);
  }

  decode(w: Float64Array, x: SparseVector): number {
    return this.argmax(w, x, -1);
  }

  psi(x: SparseVector, yTrue: number, y: number): SparseVector {
    if (y !== yTrue) {
      for (let k = 0; k < x.nnz; k++) {
        this.acc.add(yTrue * this.numFeatures + x.indices[k]!, x.values[k]!);
        this.acc.add(y * this.numFeatures + x.indices[k]!, -x.values[k]!);
      }
    }
    return this.acc.take();
  }

  loss(yTrue: number, y: number): number {
    return yTrue === y ? 0 : 1;
  }

  labelKey(y: number): string {
    return String(y);
  }

  labelToJSON(y: number): number {
    return y;
  }

  labelFromJSON(value: unknown): number {
    check(Number.isInteger(value) && (value as number) >= 0 && (value as number) < this.numLabels, `a multiclass label must be a class id, got ${String(value)}`);
    return value as number;
  }

  /** Class scores nnz K; the argmax K and psi 2 nnz; a stored label's score 1 per unit of its loss (StructuredModel.stepCost). */
  stepCost(x: SparseVector): StepCost {
    return { potentials: x.nnz * this.numLabels, oracle: this.numLabels + 2 * x.nnz, perLabel: 1 };
  }

  labelScores(w: Float64Array, x: SparseVector, yTrue: number, labels: readonly number[], out: Float64Array): void {
    const truth = this.classScore(w, x, yTrue);
    for (let k = 0; k < labels.length; k++) out[k] = this.loss(yTrue, labels[k]!) + this.classScore(w, x, labels[k]!) - truth;
  }

  /**
   * The batched oracle (DESIGN seam 4, run by src/engine). The rows are packed once into a prepared native
   * batch (native/scoring/batch.h). Per call the items' scores, with +1 on every wrong class (the 0-1 loss
   * augmentation), come from the native scorer (the sparse rows against w, on the thread pool), or for a
   * whole pass from a non-native scoring backend (gpu.js, TypeScript) on rows densified a chunk at a time
   * (about 2^20 values; kept prepared across passes while the set stays under 2^25 values); the argmax of each
   * row is taken with ties to the smallest class, as the per-object oracle does, and H_i = [y != y_i] -
   * <w, psi_i(y)> is recomputed in float64 with the per-object path's sums (a row that repeats a feature
   * merges it first, as psi does).
   */
  prepareBatch(xs: readonly SparseVector[], ys: readonly number[], scoring?: ScoringBackend): BatchDecoder<number> {
    const { numFeatures: F, numLabels: K } = this;
    const n = xs.length;
    const offsets = new Int32Array(n + 1);
    xs.forEach((x, r) => (offsets[r + 1] = offsets[r]! + x.nnz));
    const ids = new Int32Array(offsets[n]!);
    const values = new Float64Array(ids.length);
    xs.forEach((x, r) => {
      ids.set(x.indices.subarray(0, x.nnz), offsets[r]!);
      values.set(x.values.subarray(0, x.nnz), offsets[r]!);
    });
    const truth = Int32Array.from(ys);
    const batch = new native.MulticlassBatch({ rowOffsets: offsets, ids, values, truth, numFeatures: F, numLabels: K });
    const threads = Math.min(scoring instanceof NativeBackend ? scoring.threads : availableParallelism(), 256);
    const scores = new Float64Array(n * K);
    const labels = new Int32Array(n);
    const dense = scoring && scoring.name !== 'native' ? denseScorer(xs, truth, F, K, scoring, scores) : undefined;
    return {
      size: n,
      score: (w, items, plain) => {
        if (dense && items === null) dense(w, plain);
        else batch.scores({ w, scores, augmented: !plain, ...itemsOption(items), threads });
      },
      decode: (_w, items) => batch.argmax({ scores, labels, ...itemsOption(items) }),
      recheck: (w, items, hinge) => batch.hinges({ w, labels, hinge, ...itemsOption(items), threads }),
      stepModel: batch,
      label: (i) => labels[i]!,
      truth: (i) => ys[i]!,
    };
  }
}

/**
 * Scores of every row from a dense scoring backend (gpu.js, TypeScript): rows densified a chunk at a time
 * (about 2^20 values; kept prepared across passes while the whole set stays under 2^25 values), +1 on every
 * wrong class when loss-augmented.
 */
function denseScorer(xs: readonly SparseVector[], truth: Int32Array, F: number, K: number, backend: ScoringBackend, scores: Float64Array): (w: Float64Array, plain: boolean) => void {
  const n = xs.length;
  const per = Math.max(1, Math.min(n, Math.floor(2 ** 20 / F)));
  const keep = n * F <= 2 ** 25;
  const dense = keep ? null : new Float64Array(per * F);
  const densify = (start: number, rows: number, into: Float64Array): Float64Array => {
    into.fill(0);
    for (let r = 0; r < rows; r++) {
      const x = xs[start + r]!;
      for (let k = 0; k < x.nnz; k++) into[r * F + x.indices[k]!]! += x.values[k]!; // a repeated feature sums, as in psi
    }
    return into;
  };
  const chunks: { start: number; rows: number; prepared: FeatureRows | null }[] = [];
  for (let start = 0; start < n; start += per) {
    const rows = Math.min(per, n - start);
    chunks.push({ start, rows, prepared: keep ? backend.prepare(densify(start, rows, new Float64Array(rows * F)), rows, F) : null });
  }
  const ones = new Float64Array(n).fill(1);
  return (w, plain) => {
    for (const { start, rows, prepared } of chunks) {
      const X = prepared ?? backend.prepare(densify(start, rows, dense!.subarray(0, rows * F)), rows, F);
      const out = scores.subarray(start * K, (start + rows) * K);
      backend.score(X, w, K, out, plain ? undefined : { labels: truth.subarray(start, start + rows), weight: ones.subarray(start, start + rows) });
    }
  };
}

/** Views of the rows of a CSR matrix as sparse vectors (no copy). */
export function csrRows(X: CsrMatrix): SparseVector[] {
  const rows: SparseVector[] = [];
  for (let r = 0; r < X.rows; r++) {
    const a = X.indptr[r]!;
    const b = X.indptr[r + 1]!;
    rows.push({ indices: X.indices.subarray(a, b), values: X.values.subarray(a, b), nnz: b - a });
  }
  return rows;
}
