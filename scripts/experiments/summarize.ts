/**
 * Summarises variant traces (scripts/experiments/variants.ts output): for every method, the median over
 * seeds of the effective passes and seconds at which the exact duality gap (checks and monitor events)
 * first fell to each threshold; null where a seed never got there (the median is then null if half did not).
 *
 *   npx tsx scripts/experiments/summarize.ts runs/ocr-large-1e-3 [--thresholds 1e-1,1e-2,1e-3]
 */
import { parseArgs } from 'node:util';
import { groupSeries, readTraces } from '../../src/plot/traces.js';

const { values, positionals } = parseArgs({ options: { thresholds: { type: 'string', default: '1e-1,1e-2,1e-3' } }, allowPositionals: true });
const thresholds = values.thresholds.split(',').map(Number);
const { runs } = readTraces(positionals);
const median = (xs: (number | null)[]) => {
  const sorted = xs.map((x) => (x === null ? Infinity : x)).sort((a, b) => a - b);
  const m = sorted.length % 2 ? sorted[sorted.length >> 1]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  return Number.isFinite(m) ? +m.toPrecision(4) : null;
};
const out = groupSeries(runs).map((series) => {
  const row: Record<string, unknown> = { method: series.method, seeds: series.runs.length };
  for (const thr of thresholds) {
    const hits = series.runs.map((run) => run.events.find((e) => e.gapIsExact && typeof e.gap === 'number' && e.gap <= thr) ?? null);
    row[`effectivePassesTo${thr}`] = median(hits.map((h) => (h ? Number(h.effectivePasses) : null)));
    row[`secondsTo${thr}`] = median(hits.map((h) => (h ? Number(h.seconds) : null)));
  }
  const finals = series.runs.map((run) => [...run.events].reverse().find((e) => e.gapIsExact && typeof e.gap === 'number'));
  row.finalGap = median(finals.map((e) => (e ? Number(e.gap) : null)));
  return row;
});
console.log(JSON.stringify(out, null, 1));
