import { readInputText } from '../io/input.js';
import type { TopLevelSpec } from 'vega-lite';
import { FormatError, InputError } from '../core/errors.js';
import { listTraceFiles } from './traces.js';

/** One solved lambda of a path or a grid search (a line of `gapbcfw path --trace`). */
export interface LambdaRow {
  method: string;
  lambda: number;
  /** Cumulative seconds and effective passes from the start of the method. */
  seconds: number;
  effectivePasses: number;
  gap?: number;
  trueGap?: number;
  testError?: number;
}

/** What a figure over lambda can draw (the y axis of `gapbcfw plot FILE... --x lambda`). */
export const LAMBDA_METRICS = ['testError', 'seconds', 'effectivePasses', 'gap', 'trueGap'] as const;
/** One of {@link LAMBDA_METRICS}. */
export type LambdaMetric = (typeof LAMBDA_METRICS)[number];
const TITLES: Record<LambdaMetric, string> = {
  testError: 'test error',
  seconds: 'cumulative seconds',
  effectivePasses: 'cumulative effective passes',
  gap: 'certified (or estimated) gap',
  trueGap: 'true gap',
};

/** Reads lambda rows from JSONL files or folders; a line without `lambda` and `method` is a FormatError naming it. */
export function readLambdaRows(paths: readonly string[]): LambdaRow[] {
  const rows: LambdaRow[] = [];
  for (const file of listTraceFiles(paths)) {
    readInputText(file).split('\n').forEach((line, k) => {
      if (line.trim() === '') return;
      let row: LambdaRow;
      try {
        row = JSON.parse(line) as LambdaRow;
      } catch {
        throw new FormatError('not a JSON line', file, k + 1);
      }
      // A training trace's events also carry method and lambda (for legends), but they are passes of one lambda.
      if ('pass' in row && 'gapIsExact' in row) {
        throw new FormatError('a training trace (one lambda, events by pass), not lambda rows: --x lambda plots gapbcfw path --trace; plot this one against --x effective, passes or time', file, k + 1);
      }
      if (typeof row.method !== 'string' || !(row.lambda > 0) || typeof row.seconds !== 'number' || typeof row.effectivePasses !== 'number') {
        throw new FormatError("a lambda row needs 'method', 'lambda' > 0, 'seconds' and 'effectivePasses' (write it with gapbcfw path --trace)", file, k + 1);
      }
      rows.push(row);
    });
  }
  return rows;
}

/**
 * A metric against lambda (log scale, decreasing to the right) with one line per method: the paper's
 * Fig. 4 (cumulative time and effective passes of path vs grid search) and test error against lambda.
 * The default title names the metric.
 */
export function lambdaFigure(rows: readonly LambdaRow[], y: LambdaMetric, title?: string, size: { width?: number; height?: number } = {}): TopLevelSpec {
  const values = rows.filter((r) => typeof r[y] === 'number' && Number.isFinite(r[y]) && (y === 'testError' || (r[y] as number) > 0));
  if (values.length === 0) throw new InputError(`no '${y}' values to plot`);
  const log = y !== 'testError';
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: size.width ?? 520,
    height: size.height ?? 300,
    background: 'white',
    title: title ?? `${TITLES[y]} against lambda`,
    data: { values: values.map((r) => ({ method: r.method, lambda: r.lambda, value: r[y] })) },
    mark: { type: 'line', point: { size: 10 } },
    encoding: {
      x: { field: 'lambda', type: 'quantitative', scale: { type: 'log', reverse: true }, title: 'lambda (decreasing)' },
      y: { field: 'value', type: 'quantitative', scale: log ? { type: 'log' } : { zero: false }, title: TITLES[y] },
      color: { field: 'method', type: 'nominal', title: 'method' },
      // Dash patterns as well as colours: the methods stay apart in black and white.
      strokeDash: { field: 'method', type: 'nominal', title: 'method' },
    },
    config: { font: 'DejaVu Sans, Liberation Sans, sans-serif' },
  };
}
