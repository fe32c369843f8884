import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GapbcfwError, InputError } from '../core/errors.js';
import type { SolverResult } from '../solvers/common.js';

/** Shared pieces of the `gapbcfw` commands: argument parsing, number flags, the final report. */

/** Where a command writes: progress and errors to stderr, results to stdout. */
export interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** A usage error: exit code 2 with a one-line reason. */
export class UsageError extends InputError {}

export type ParsedArgs<O extends ParseArgsConfig['options']> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

/** parseArgs in strict mode with positionals; its errors become UsageErrors. */
export function parse<O extends ParseArgsConfig['options']>(args: string[], options: O): ParsedArgs<O> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message.split('\n')[0]!);
  }
}

/** Parses a numeric flag; `test` decides validity and `what` describes a valid value in the message. */
export function number(value: string | undefined, name: string, test: (x: number) => boolean, what: string): number | undefined {
  if (value === undefined) return undefined;
  const x = Number(value);
  if (value.trim() === '' || !test(x)) throw new UsageError(`--${name} must be ${what}, got '${value}'`);
  return x;
}
export const positive = (x: number) => Number.isFinite(x) && x > 0;
export const nonNegative = (x: number) => Number.isFinite(x) && x >= 0;
export const integer = (min: number) => (x: number) => Number.isInteger(x) && x >= min;

/** `--stream` / `--in-memory` (horse sets): read records per oracle call, or load them; undefined decides by size. */
export function streamOption(v: { stream?: boolean; 'in-memory'?: boolean }): boolean | undefined {
  if (v.stream && v['in-memory']) throw new UsageError('--stream and --in-memory contradict each other');
  return v.stream ? true : v['in-memory'] ? false : undefined;
}

/**
 * Prints the result of a command: with --json one JSON object as the last stdout line (undefined fields
 * dropped), otherwise a headline and one `key: value` line per field.
 */
/** The solver figures that every training report shows (`train` and `pose train`), in one order. */
export function solverSummary(result: SolverResult): Record<string, unknown> {
  const { passes, effectivePasses, oracleCalls, seconds, primal, dual, gap, gapIsExact, gapThreshold, thresholdReached } = result;
  return { passes, effectivePasses, oracleCalls, seconds, primal, dual, gap, gapIsExact, gapThreshold, thresholdReached };
}

/** `stopped (maxPasses, gap above the threshold 0.01)`: why a run stopped, and whether short of its threshold. */
export function stopDescription(result: SolverResult): string {
  return `stopped (${result.stopReason}${result.thresholdReached === false ? `; the gap is above the threshold ${result.gapThreshold}` : ''})`;
}

export function report(summary: Record<string, unknown>, json: boolean, io: Io, headline: string): void {
  const clean = Object.fromEntries(Object.entries(summary).filter(([, x]) => x !== undefined));
  if (json) {
    io.stdout.write(`${JSON.stringify(clean)}\n`);
    return;
  }
  io.stdout.write(`${headline}\n`);
  for (const [k, x] of Object.entries(clean)) {
    if (k === 'command') continue;
    const shown = typeof x === 'number' ? String(+x.toPrecision(6)) : Array.isArray(x) ? `${x.length} entries (see --json)` : typeof x === 'object' && x !== null ? JSON.stringify(x) : String(x);
    io.stdout.write(`  ${k}: ${shown}\n`);
  }
}

/**
 * The exit code of a failed command, with its one-line reason on stderr: 2 for bad usage, bad input and
 * unreadable files, 1 for anything else (the stack is printed then: it is a bug or a failed job).
 */
export function reportFailure(e: unknown, io: Io): number {
  const code = (e as NodeJS.ErrnoException).code;
  if (e instanceof InputError || code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') {
    io.stderr.write(`gapbcfw: ${(e as Error).message}\n`);
    return 2;
  }
  io.stderr.write(`gapbcfw: ${e instanceof GapbcfwError ? e.message : ((e as Error).stack ?? String(e))}\n`);
  return 1;
}
