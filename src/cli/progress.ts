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
  if (e.oracle === 'approximate') parts.push(e.gapUpperBound === undefined ? '(approximate oracle, no bound)' : `(approximate oracle, gap <= ${fmt(e.gapUpperBound)})`);
  if (e.trainError !== undefined) parts.push(`train loss ${fmt(e.trainError)}`);
  if (e.testError !== undefined) parts.push(`test loss ${fmt(e.testError)}`);
  const headline = HEADLINE_METRICS.find((m) => typeof e[m] === 'number');
  if (headline !== undefined) parts.push(`${headline} ${fmt(e[headline] as number)}`);
  parts.push(`${e.seconds.toFixed(1)}s`);
  return parts.join('  ');
}

/**
 * Progress on stderr: on a TTY one redrawn line with a bar over `maxPasses` and the last exact gap;
 * otherwise one plain line per certified check (exact gap, or SSG's primal).
 */
export class ProgressPrinter {
  private lastExact: ProgressEvent | undefined;
  private drawn = false;

  constructor(
    private readonly stream: Io['stderr'],
    private readonly maxPasses: number,
    private readonly quiet: boolean,
  ) {}

  readonly onProgress = (e: ProgressEvent): void => {
    if (this.quiet) return;
    const certified = e.gapIsExact || e.primal !== undefined;
    if (certified) this.lastExact = e;
    if (this.stream.isTTY) {
      const width = 24;
      const filled = Math.min(width, Math.round((width * e.pass) / Math.max(this.maxPasses, 1)));
      const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
      const exact = this.lastExact ? `  last check: ${describeEvent(this.lastExact)}` : '';
      const line = `${bar} pass ${e.pass}/${this.maxPasses}  ${e.seconds.toFixed(1)}s${exact}`;
      this.stream.write(`\r\x1b[2K${line.slice(0, (this.stream.columns || 160) - 1)}`);
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
