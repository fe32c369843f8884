import { HostRows, checkRows, checkScore } from './backend.js';
import type { FeatureArray, FeatureRows, LossAugmentation, ScoringBackend } from '../src/core/scoring.js';

class JsRows extends HostRows {}

/** The reference backend: float64 loops in TypeScript, one row at a time. */
export class JsBackend implements ScoringBackend {
  readonly name = 'js' as const;
  readonly mode = 'float64-loops';
  readonly precision = 'float64' as const;

  prepare(X: FeatureArray, rows: number, cols: number): FeatureRows {
    checkRows(X, rows, cols);
    return new JsRows(X, rows, cols);
  }

  score(rows: FeatureRows, W: Float64Array, K: number, out: Float64Array, aug?: LossAugmentation): void {
    if (!(rows instanceof JsRows)) throw new TypeError('these rows were prepared by another backend');
    checkScore(rows, W, K, out, aug);
    const { X, cols: D } = rows;
    for (let n = 0; n < rows.rows; n++) {
      const x = n * D;
      for (let k = 0; k < K; k++) {
        let s = 0;
        for (let j = 0; j < D; j++) s += W[k * D + j]! * X[x + j]!;
        out[n * K + k] = aug && k !== aug.labels[n] ? s + aug.weight[n]! : s;
      }
    }
  }

  dispose(): void {}
}
