// Runs the CLI in-process with captured stdout/stderr (no process spawned), optionally with text on stdin.
import { PassThrough } from 'node:stream';
import type { Io } from '../../src/cli/common.js';
import { main } from '../../src/cli/main.js';

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
  /** The last stdout line parsed as JSON, when it is JSON. */
  json: Record<string, unknown> | undefined;
}

/** Runs a CLI entry point on `argv` with captured streams; `stdin` is fed as standard input. */
export async function capture(entry: (argv: readonly string[], io: Io) => Promise<number>, argv: readonly string[], stdin?: string): Promise<Captured> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (b) => (stdout += b));
  err.on('data', (b) => (stderr += b));
  const input = stdin === undefined ? undefined : new PassThrough();
  input?.end(stdin);
  const code = await entry([...argv], { stdout: out, stderr: err, ...(input ? { stdin: input } : {}) });
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/** Runs `gapbcfw ARGV` in-process with captured output. */
export function cli(...argv: string[]): Promise<Captured> {
  return capture(main, argv);
}

/** Runs `gapbcfw ARGV` in-process with `stdin` as standard input. */
export function cliWithInput(stdin: string, ...argv: string[]): Promise<Captured> {
  return capture(main, argv, stdin);
}
