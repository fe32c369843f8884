/**
 * What every long command does around its work: the outputs its table declares are checked before any work
 * starts (src/io/output.ts), and SIGINT, SIGTERM and SIGHUP (Ctrl-C, `kill`, Slurm and Kubernetes stopping a job,
 * a closed ssh session) stop it cleanly: the current block of work finishes, the gap is certified, the model and
 * checkpoint are written, and the exit status is 130, 143 or 129. A second signal abandons an exact pass in progress
 * (training then ends with its last gap estimate, marked not exact, and still writes its model); a third quits at once.
 * @module
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkOutputs, type OutputTarget } from '../io/output.js';
import { isDataSpec, parseDataSpec } from '../tasks/index.js';
import type { Args } from './args.js';
import type { Io } from './common.js';

/** Exit status after each signal (128 + its number). */
export const SIGNAL_EXIT: Readonly<Record<'SIGINT' | 'SIGTERM' | 'SIGHUP', number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** The files a `KIND:PATH` data set (or a plain path) reads: the file, or the files of a folder two levels deep. */
function inputFiles(arg: string): string[] {
  const path = isDataSpec(arg) ? parseDataSpec(arg).path : arg;
  if (path === '' || path === '-') return [];
  const out: string[] = [];
  const walk = (p: string, depth: number) => {
    const st = statSync(p, { throwIfNoEntry: false });
    if (st?.isFile()) out.push(p);
    else if (st?.isDirectory() && depth > 0) for (const name of readdirSync(p)) walk(join(p, name), depth - 1);
  };
  walk(path, 3);
  return out;
}

/**
 * Checks every output the command's table declares (folder exists, not a folder where a file is meant, not one
 * of the inputs, no two outputs the same file) before the work starts. @throws InputError naming the option.
 */
export function checkCommandOutputs(a: Args): void {
  const outputs: OutputTarget[] = [];
  const inputs: string[] = [];
  a.command.positionals.forEach((p, k) => {
    if (!p.input) return;
    const args = p.variadic ? a.positionals.slice(k) : [a.positionals[k]];
    for (const arg of args) if (arg !== undefined) inputs.push(...inputFiles(arg));
  });
  for (const o of a.command.options) {
    const v = a.values[o.name];
    if (typeof v !== 'string') continue;
    const updates = o.updates !== undefined && a.values[o.updates] === v;
    if (o.output) outputs.push({ path: v, option: `--${o.name}`, kind: o.output, ...(o.streamable === false ? { streamable: false } : {}), ...(updates ? { updates } : {}) });
    if (o.input) inputs.push(...inputFiles(v));
  }
  checkOutputs(outputs, inputs);
}

/** A handle on SIGINT / SIGTERM / SIGHUP for one command run. */
export interface Interrupt {
  /** Aborted at the first signal (its reason is the signal's name). */
  readonly signal: AbortSignal;
  /** Aborted at the second signal: an exact pass in progress is abandoned between chunks (solver option `passSignal`). */
  readonly urgent: AbortSignal;
  /** The exit status the signal calls for, or undefined when none came. */
  exitCode(): number | undefined;
  /** Removes the handlers. */
  dispose(): void;
}

/**
 * Handles SIGINT, SIGTERM and SIGHUP while a command works: the first aborts `signal` (the work then finishes its
 * current block and writes what it has) and says so on stderr; the second aborts `urgent` (an exact pass in
 * progress is abandoned between chunks); a third exits at once with the signal's status.
 */
export function interruptible(io: Io, finishing: string): Interrupt {
  const controller = new AbortController();
  const urgent = new AbortController();
  let received: keyof typeof SIGNAL_EXIT | undefined;
  const handlers = (Object.keys(SIGNAL_EXIT) as (keyof typeof SIGNAL_EXIT)[]).map((name) => {
    const handler = () => {
      if (urgent.signal.aborted) process.exit(SIGNAL_EXIT[name]);
      if (received !== undefined) {
        io.stderr.write(`\n${name} again: abandoning any exact pass in progress (the result is then not certified; send it once more to quit at once)\n`);
        urgent.abort(name);
        return;
      }
      received = name;
      io.stderr.write(`\ninterrupted by ${name}: ${finishing} (send it again to abandon an exact pass in progress)\n`);
      controller.abort(name);
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    urgent: urgent.signal,
    exitCode: () => (received === undefined ? undefined : SIGNAL_EXIT[received]),
    dispose: () => {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}

/** Runs `work` with the signal handlers of {@link interruptible}; returns its status, or the signal's when one came. */
export async function withInterrupts(io: Io, finishing: string, work: (signal: AbortSignal, urgent: AbortSignal) => Promise<number>): Promise<number> {
  const interrupt = interruptible(io, finishing);
  try {
    const code = await work(interrupt.signal, interrupt.urgent);
    return interrupt.exitCode() ?? code;
  } finally {
    interrupt.dispose();
  }
}
