// Runs a CLI entry point with captured stdout/stderr (no process spawned).
import { PassThrough } from 'node:stream';
import type { Io } from '../../src/cli/common.js';

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
  /** The last stdout line parsed as JSON, when it is JSON. */
  json: Record<string, unknown> | undefined;
}

export async function capture(entry: (argv: string[], io: Io) => Promise<number>, argv: string[]): Promise<Captured> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (b) => (stdout += b));
  err.on('data', (b) => (stderr += b));
  const code = await entry(argv, { stdout: out as unknown as NodeJS.WriteStream, stderr: err as unknown as NodeJS.WriteStream });
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}
