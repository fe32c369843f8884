/**
 * Summarises variant traces (scripts/experiments/variants.ts output): for every method, the median over
 * seeds of the effective passes and seconds at which the exact duality gap (checks and monitor events)
 * first fell to each threshold; null where a seed never got there (the median is then null if half did not).
 *
 *   npx tsx scripts/experiments/summarize.ts runs/ocr-large-1e-3 [--thresholds 1e-1,1e-2,1e-3]
 *
 * {@link crossings} is the same table for any per-event value (scripts/experiments/comparison.ts uses it for
 * the primal suboptimality against the best dual seen, and CPU seconds).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { groupSeries, readTraces, type TraceEvent, type TraceSeries } from '../../src/plot/traces.js';

/** Median of a list where null means "never": +Infinity in the order, null if the median itself is. */
export function medianOrNull(xs: (number | null)[]): number | null {
  const sorted = xs.map((x) => (x === null ? Infinity : x)).sort((a, b) => a - b);
  const m = sorted.length % 2 ? sorted[sorted.length >> 1]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return Number.isFinite(m) ? +m.toPrecision(4) : null;
}

/**
 * Per method: the median over seeds of each of `fields` (event keys, e.g. effectivePasses, seconds) at the first
 * event whose `value` is <= each threshold (`${field}To${threshold}`), and the median final value (`final`).
 */
export function crossings(series: readonly TraceSeries[], thresholds: readonly number[], value: (e: TraceEvent) => number | undefined, fields: readonly string[]): Record<string, unknown>[] {
  return series.map((s) => {
    const row: Record<string, unknown> = { method: s.method, seeds: s.runs.length };
    for (const thr of thresholds) {
      const hits = s.runs.map((run) => run.events.find((e) => (value(e) ?? Infinity) <= thr) ?? null);
      for (const field of fields) row[`${field}To${thr}`] = medianOrNull(hits.map((h) => (h ? Number(h[field]) : null)));
    }
    const finals = s.runs.map((run) => [...run.events].reverse().find((e) => value(e) !== undefined));
    row.final = medianOrNull(finals.map((e) => (e ? value(e)! : null)));
    return row;
  });
}

/** The exact duality gap of an event (checks and monitor events), if it has one. */
export const exactGap = (e: TraceEvent): number | undefined => (e.gapIsExact && typeof e.gap === 'number' ? e.gap : undefined);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ options: { thresholds: { type: 'string', default: '1e-1,1e-2,1e-3' } }, allowPositionals: true });
  const rows = crossings(groupSeries(readTraces(positionals).runs), values.thresholds.split(',').map(Number), exactGap, ['effectivePasses', 'seconds']);
  console.log(JSON.stringify(rows.map(({ final, ...r }) => ({ ...r, finalGap: final })), null, 1));
}
