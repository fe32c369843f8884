import { availableParallelism } from 'node:os';
import { check } from '../src/core/errors.js';
import { native, type NativeScoringRows } from '../src/native/addon.js';
import { checkRows, checkScore } from './backend.js';
import type { FeatureArray, FeatureRows, LossAugmentation, ScoringBackend } from '../src/core/scoring.js';

/** Rows handed to the native code once (a prepared ScoringRows object: shape and finiteness checked there). */
class NativeRows implements FeatureRows {
  readonly prepared: NativeScoringRows;
  constructor(
    X: FeatureArray,
    readonly rows: number,
    readonly cols: number,
  ) {
    this.prepared = new native.ScoringRows({ X, rows, cols });
  }
}

/** C++ SIMD rows on the native thread pool (native/scoring/rows.cc), float64. */
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
    const threads = Math.min(this.threads, 256);
    rows.prepared.score(aug ? { W, K, out, augLabels: aug.labels, augWeight: aug.weight, threads } : { W, K, out, threads });
  }

  dispose(): void {}
}
