/**
 * Shared pieces of the `gapbcfw` commands: where they write, the usage error, the final report and the exit code
 * of a failure.
 * @module
 */
import { GapbcfwError, InputError } from '../core/errors.js';
import type { SolverResult } from '../solvers/common.js';
import { formatScoreTable } from '../eval/sequences.js';

/** Summary keys printed as tables in the human output (their JSON stays in --json). */
const TABLES: Readonly<Record<string, string>> = { perLabel: 'label', perType: 'span type' };

/** Where a command reads and writes: results to stdout, progress and errors to stderr, raw inputs from stdin. */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Default: process.stdin. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** A usage error: exit code 2 with a one-line reason. */
export class UsageError extends InputError {}

/** The solver figures that every training report shows, in one order. */
export function solverSummary(result: SolverResult & { batch?: number; overlap?: boolean; shrinking?: boolean; native?: boolean }): Record<string, unknown> {
  const { passes, effectivePasses, oracleCalls, seconds, primal, dual, gap, gapIsExact, gapUpperBound, primalUpperBound, gapThreshold, thresholdReached, threads, batch } = result;
  const oracleCallsPerSecond = seconds > 0 ? oracleCalls / seconds : undefined;
  // Overlapped mini-batches, shrinking and native block steps are named only when on.
  const overlap = result.overlap === true ? true : undefined;
  const shrinking = result.shrinking === true ? true : undefined;
  const native = result.native === true ? true : undefined;
  // Whether the oracle calls behind the certificate were all exact (src/core/approximate.ts); SSG has none.
  const oracle = result.approximateOracle ? 'approximate' : gap !== undefined ? 'exact' : undefined;
  return { passes, effectivePasses, oracleCalls, seconds, primal, dual, gap, gapIsExact, oracle, gapUpperBound, primalUpperBound, gapThreshold, thresholdReached, threads, batch, overlap, shrinking, native, oracleCallsPerSecond };
}

/** `stopped (maxPasses; the gap is above the threshold 0.01)`: why a run stopped, and whether short of its threshold. */
export function stopDescription(result: SolverResult): string {
  const above = result.thresholdReached === false ? `; the ${result.approximateOracle ? "gap's upper bound" : 'gap'} is above the threshold ${result.gapThreshold}` : '';
  return `stopped (${result.stopReason}${above})${approximateNote({ oracle: result.approximateOracle ? 'approximate' : undefined, gap: result.gap, gapUpperBound: result.gapUpperBound })}`;
}

/**
 * What a human reads after a headline when an approximate oracle ran (`oracle: 'approximate'`): the gap and primal
 * are estimates from below, not certificates, and their upper bound when there is one; '' otherwise.
 */
export function approximateNote(summary: { oracle?: unknown; gap?: unknown; gapUpperBound?: unknown; primalUpperBound?: unknown }): string {
  if (summary.oracle !== 'approximate') return '';
  const [what, bound] = summary.gap !== undefined ? ['gap', summary.gapUpperBound] : ['primal', summary.primalUpperBound];
  const upper = typeof bound === 'number' ? `its upper bound is ${+bound.toPrecision(6)}` : 'no upper bound (an oracle call had none)';
  return `; approximate oracle: the ${what} is an estimate from below, not a certificate; ${upper}`;
}

/**
 * Prints the result of a command: with --json one JSON object as the last stdout line (undefined fields
 * dropped), otherwise a headline and one `key: value` line per field.
 */
export function report(summary: Record<string, unknown>, json: boolean, io: Pick<Io, 'stdout'>, headline: string): void {
  const clean = Object.fromEntries(Object.entries(summary).filter(([, x]) => x !== undefined));
  if (json) {
    io.stdout.write(`${JSON.stringify(clean)}\n`);
    return;
  }
  io.stdout.write(`${headline}\n`);
  for (const [k, x] of Object.entries(clean)) {
    // testError / trainError next to testLoss / trainLoss are aliases for scripts (tasks/index.ts meanLossFields).
    if (k === 'command' || (k === 'testError' && 'testLoss' in clean) || (k === 'trainError' && 'trainLoss' in clean)) continue;
    if (TABLES[k] !== undefined && typeof x === 'object') {
      io.stdout.write(`  ${k}:\n${formatScoreTable(TABLES[k]!, x as Parameters<typeof formatScoreTable>[1])}`);
      continue;
    }
    const shown = typeof x === 'number' ? String(Number.isInteger(x) ? x : +x.toPrecision(6)) : Array.isArray(x) ? `${x.length} entries (see --json)` : typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x);
    io.stdout.write(`  ${k}: ${shown}\n`);
  }
}

/** Error codes (src/core/errors.ts) and system errors that mean bad usage or bad input: exit status 2. */
const USAGE_CODES = new Set(['ERR_GAPBCFW_BAD_INPUT', 'ERR_GAPBCFW_BAD_FORMAT', 'ERR_GAPBCFW_BAD_OPTION', 'ENOENT', 'EACCES', 'EISDIR', 'ENOTDIR']);

/**
 * The exit code of a failed command, mapped from the error's `code`, with its one-line reason on stderr: 2 for bad
 * usage, bad input and unreadable files; 1 for gapbcfw's other errors (a failed job, a missing optional package, an
 * addon that does not load) and for anything else, whose stack is printed then (it is a bug).
 */
export function reportFailure(e: unknown, io: Pick<Io, 'stderr'>): number {
  const code = (e as NodeJS.ErrnoException).code;
  if (e instanceof InputError || (code !== undefined && USAGE_CODES.has(code))) {
    io.stderr.write(`gapbcfw: ${(e as Error).message}\n`);
    return 2;
  }
  io.stderr.write(`gapbcfw: ${e instanceof GapbcfwError ? e.message : ((e as Error).stack ?? String(e))}\n`);
  return 1;
}
