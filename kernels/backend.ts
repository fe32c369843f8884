/**
 * Shared pieces of the scoring backends (the interface is src/core/scoring.ts). A backend computes the product
 * scores[n, k] = <W_k, X_n>; models then decode (Viterbi, argmax, graph cut) from the scores and recompute every
 * hinge in float64 from the decoded labels, so a float32 backend only proposes labels.
 */
import { check } from '../src/core/errors.js';
import type { FeatureArray, FeatureRows, LossAugmentation } from '../src/core/scoring.js';

/** Rows kept as the caller's array (the CPU backends; each subclasses it to recognise its own rows). */
export class HostRows implements FeatureRows {
  constructor(
    readonly X: FeatureArray,
    readonly rows: number,
    readonly cols: number,
  ) {}
}

/** Checks the shapes of prepare(). */
export function checkRows(X: FeatureArray, rows: number, cols: number): void {
  check(Number.isInteger(rows) && rows >= 0, `rows must be an integer >= 0, got ${rows}`);
  check(Number.isInteger(cols) && cols >= 1, `cols must be a positive integer, got ${cols}`);
  check(X.length === rows * cols, () => `X has ${X.length} values, expected rows x cols = ${rows * cols}`);
}

/** Checks the shapes of score(). */
export function checkScore(X: FeatureRows, W: Float64Array, K: number, out: Float64Array, aug?: LossAugmentation): void {
  check(Number.isInteger(K) && K >= 1, `K must be a positive integer, got ${K}`);
  check(W.length === K * X.cols, () => `W has ${W.length} values, expected K x cols = ${K * X.cols}`);
  check(out.length === X.rows * K, () => `out has ${out.length} values, expected rows x K = ${X.rows * K}`);
  if (aug) {
    check(aug.labels.length === X.rows && aug.weight.length === X.rows, () => `the loss augmentation needs ${X.rows} labels and weights`);
    for (let n = 0; n < X.rows; n++) {
      const y = aug.labels[n]!;
      check(y >= 0 && y < K, () => `aug.labels[${n}] = ${y} is outside 0..${K - 1}`);
    }
  }
}
