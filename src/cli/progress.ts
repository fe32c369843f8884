import type { Io } from './common.js';
import { fullOraclePassAsync, type AsyncPassOptions, type FullPass, type ProgressEvent } from '../solvers/common.js';
import type { Problem } from '../core/problem.js';
import type { PassProgress } from '../core/batch.js';
import { value, type Args } from './args.js';

const fmt = (x: number | undefined, digits = 4) => (x === undefined ? '-' : Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(digits - 1) : x.toPrecision(digits));

/** The task metric a progress line shows next to the test loss (the first the event has): chunk F1, AER, PCP, accuracy. */
const HEADLINE_METRICS = ['f1', 'aer', 'pcp', 'accuracy'] as const;

/**
 * Human-readable line of an event (also used for the final summary). The test figure is the mean task loss (the
 * papers' error for chains and multiclass, a weighted loss for alignment), so it is called a loss, followed by the
 * task's own metric.
 */
export function describeEvent(e: ProgressEvent): string {
  const parts = [`pass ${e.pass}`, `eff ${e.effectivePasses.toFixed(1)}`];
  if (e.primal !== undefined) parts.push(`primal ${fmt(e.primal)}`);
  if (e.dual !== undefined) parts.push(`dual ${fmt(e.dual)}`);
  if (e.gap !== undefined) parts.push(`gap ${fmt(e.gap)}${e.gapIsExact ? '' : '~'}`);
  if (e.trainError !== undefined) parts.push(`train loss ${fmt(e.trainError)}`);
  if (e.testError !== undefined) parts.push(`test loss ${fmt(e.testError)}`);
  const headline = HEADLINE_METRICS.find((m) => typeof e[m] === 'number');
  if (headline !== undefined) parts.push(`${headline} ${fmt(e[headline] as number)}`);
  parts.push(`${e.seconds.toFixed(1)}s`);
  return parts.join('  ');
}

/**
 * Passes as the `--max-passes` cap counts them: passes less the block steps the cache answered, over n (cache hits
 * cost no oracle call; src/solvers/bcfw.ts), so that a cached run's bar ends at the cap, not past it.
 */
export function cappedPasses(e: ProgressEvent, n: number): number {
  return typeof e.cacheHits === 'number' && n > 0 ? e.pass - e.cacheHits / n : e.pass;
}

/**
 * The redrawn progress line of a terminal `columns` wide: the passes against the cap, the last certified gap (exact,
 * `gap`; SSG: its primal) and the current estimate (`est ...~`, when the solver keeps one: not with averaging), then,
 * as far as the width allows, the pass of that check, the time, the passes with cache hits, the test figures, the
 * primal and the dual, and a bar over the cap in front. Never wider than `columns - 1`.
 */
export function progressLine(e: ProgressEvent, lastExact: ProgressEvent | undefined, maxPasses: number, n: number, columns: number): string {
  const capped = cappedPasses(e, n);
  const certified = lastExact === undefined ? 'gap -' : lastExact.gap !== undefined ? `gap ${fmt(lastExact.gap)}` : `primal ${fmt(lastExact.primal)}`;
  const estimate = typeof e.gapEstimate === 'number' ? [`est ${fmt(e.gapEstimate)}~`] : [];
  const required = [`pass ${Math.floor(capped)}/${maxPasses}`, certified, ...estimate];
  const headline = lastExact && HEADLINE_METRICS.find((m) => typeof lastExact[m] === 'number');
  const optional = [
    ...(lastExact ? [`(checked at pass ${Math.floor(cappedPasses(lastExact, n))})`] : []),
    `${e.seconds.toFixed(1)}s`,
    ...(capped === e.pass ? [] : [`${e.pass} passes with cache hits`]),
    ...(lastExact?.testError !== undefined ? [`test loss ${fmt(lastExact.testError)}`] : []),
    ...(headline ? [`${headline} ${fmt(lastExact![headline] as number)}`] : []),
    ...(lastExact?.primal !== undefined && lastExact.gap !== undefined ? [`primal ${fmt(lastExact.primal)}`] : []),
    ...(e.dual !== undefined ? [`dual ${fmt(e.dual)}`] : []),
  ];
  const limit = Math.max(columns - 1, 1);
  const join = (parts: string[]) => parts.join('  ');
  // A bar of 10 cells (plus brackets and a space) comes after the required parts, the optional ones after the bar;
  // what is left widens the bar up to 24 cells.
  const bar = join(required).length + 13 <= limit ? 13 : 0;
  let parts = required;
  for (const extra of optional) {
    if (join([...parts, extra]).length + bar > limit) break;
    parts = [...parts, extra];
  }
  const text = join(parts);
  if (bar === 0) return text.slice(0, limit);
  const cells = Math.min(24, limit - text.length - 3);
  const filled = Math.min(cells, Math.round((cells * capped) / Math.max(maxPasses, 1)));
  return `[${'#'.repeat(filled)}${'.'.repeat(cells - filled)}] ${text}`;
}

/**
 * Progress on stderr: on a TTY one redrawn line that fits the terminal (see {@link progressLine}); otherwise one
 * plain line per certified check (exact gap, or SSG's primal).
 */
export class ProgressPrinter {
  private lastExact: ProgressEvent | undefined;
  private drawn = false;

  /** `n`: the number of blocks (cache hits count against the pass cap as a fraction of them). */
  constructor(
    private readonly stream: Io['stderr'],
    private readonly maxPasses: number,
    private readonly quiet: boolean,
    private readonly n = 0,
  ) {}

  readonly onProgress = (e: ProgressEvent): void => {
    if (this.quiet) return;
    const certified = e.gapIsExact || e.primal !== undefined;
    if (certified) this.lastExact = e;
    if (this.stream.isTTY) {
      this.stream.write(`\r\x1b[2K${progressLine(e, this.lastExact, this.maxPasses, this.n, this.stream.columns || 80)}`);
      this.drawn = true;
    } else if (certified) {
      this.stream.write(`${describeEvent(e)}\n`);
    }
  };

  /** Ends the redrawn line. */
  finish(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }
}

/** A duration for humans: `42 s`, `17 min`, `3 h 5 min`. */
export function formatSeconds(s: number): string {
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

/**
 * Progress of counted work (`done` of `total`) with rate and ETA on stderr: a redrawn line on a TTY,
 * otherwise a line at most every `every` milliseconds and at the end. Nothing when quiet.
 */
export function countProgress(stream: Io['stderr'], label: string, quiet: boolean, every = 5000): (done: number, total: number) => void {
  const t0 = Date.now();
  let last = -Infinity;
  return (done, total) => {
    if (quiet) return;
    const now = Date.now();
    if (done < total && now - last < (stream.isTTY ? 200 : every)) return;
    last = now;
    const elapsed = (now - t0) / 1000;
    const eta = done > 0 && done < total ? `, ETA ${formatSeconds((elapsed * (total - done)) / done)}` : '';
    const line = `${label}: ${done}/${total} (${Math.round((100 * done) / Math.max(total, 1))}%, ${formatSeconds(elapsed)}${eta})`;
    if (stream.isTTY) stream.write(`\r\x1b[2K${line}${done >= total ? '\n' : ''}`);
    else stream.write(`${line}\n`);
  };
}

/** Progress lines of an exact pass (per chunk), unless --quiet. */
export function passProgress(io: Io, a: Args): (progress: PassProgress) => void {
  const show = countProgress(io.stderr, 'exact pass', value.flag(a, 'quiet'));
  return (p) => show(p.done, p.total);
}

/**
 * The exact pass of a command, cancellable: undefined when `signal` stopped it between chunks (the caller then
 * writes no result: a gap needs every example), else the pass.
 */
export async function passUnlessStopped(problem: Problem, w: Float64Array, options: AsyncPassOptions & { signal: AbortSignal }): Promise<FullPass | undefined> {
  try {
    return await fullOraclePassAsync(problem, w, options);
  } catch (e) {
    if (options.signal.aborted) return undefined;
    throw e;
  }
}
