import { availableParallelism } from 'node:os';
import { check } from '../src/core/errors.js';
import { native } from '../src/native.js';
import { HostRows, checkRows, checkScore, type FeatureArray, type FeatureRows, type LossAugmentation, type ScoringBackend } from './backend.js';

class NativeRows extends HostRows {}

/** C++ SIMD rows on a native thread pool (native/scoring/rows.cc), float64. */
export class NativeBackend implements ScoringBackend {
  readonly name = 'native' as const;
  readonly precision = 'float64' as const;
  readonly threads: number;

  constructor(threads: number = availableParallelism()) {
    check(Number.isInteger(threads) && threads >= 1, `threads must be a positive integer, got ${threads}`);
    this.threads = threads;
  }

  get mode(): string {
    return `simd-threads(${this.threads})`;
  }

  prepare(X: FeatureArray, rows: number, cols: number): FeatureRows {
    checkRows(X, rows, cols);
    return new NativeRows(X, rows, cols);
  }

  score(rows: FeatureRows, W: Float64Array, K: number, out: Float64Array, aug?: LossAugmentation): void {
    if (!(rows instanceof NativeRows)) throw new TypeError('these rows were prepared by another backend');
    checkScore(rows, W, K, out, aug);
    native.scoreRows(rows.X, rows.rows, rows.cols, W, K, aug?.labels ?? null, aug?.weight ?? null, out, this.threads);
  }

  dispose(): void {}
}
