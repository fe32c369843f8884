/**
 * What every command does around its work: the outputs its table declares are checked before any work starts
 * (src/io/output.ts), and SIGINT, SIGTERM and SIGHUP (Ctrl-C, `kill`, Slurm and Kubernetes stopping a job, a closed
 * ssh session) stop it cleanly whenever they come:
 *
 * - before the work (reading the data): the command stops at once, nothing written;
 * - during the work: the current block of work finishes, the gap is certified, the model and checkpoint are written;
 *   a second signal abandons an exact pass in progress (training then ends with its last gap estimate, marked not
 *   exact, and still writes its model); a third quits at once;
 * - after the work: the results are written first (a second signal quits at once);
 * - after the results: only the exit status changes;
 *
 * and the exit status is then 130, 143 or 129.
 * @module
 */
import { existsSync, fstatSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { forgetReadAhead, readAheadPipes } from '../io/input.js';
import { checkOutputs, isStdout, lockOutput, resolveOutput, type OutputTarget } from '../io/output.js';
import { isDataSpec, parseDataSpec } from '../tasks/index.js';
import { value, type Args } from './args.js';
import { UsageError, type Io } from './common.js';

/** Exit status after each signal (128 + its number). */
export const SIGNAL_EXIT: Readonly<Record<'SIGINT' | 'SIGTERM' | 'SIGHUP', number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
type SignalName = keyof typeof SIGNAL_EXIT;

/** The path of an input argument: the PATH of `KIND:PATH` (data sets, `dimacs:FILE`), else the argument. */
function inputPath(arg: string): string {
  return isDataSpec(arg) ? parseDataSpec(arg).path : arg.startsWith('dimacs:') ? arg.slice('dimacs:'.length) : arg;
}

/**
 * The input arguments of a command: its input positionals and the values of its input options; with `streamed: false`,
 * without the raw input that a command streams itself (predict's INPUT when it is not a data set).
 */
function inputArgs(a: Args, streamed = true): string[] {
  const args: string[] = [];
  a.command.positionals.forEach((p, k) => {
    if (!p.input) return;
    const given = p.variadic ? a.positionals.slice(k) : a.positionals.slice(k, k + 1);
    args.push(...given.filter((arg) => streamed || !p.stdin || isDataSpec(arg)));
  });
  for (const o of a.command.options) {
    const v = a.values[o.name];
    if (o.input && typeof v === 'string') args.push(v);
  }
  return args;
}

/**
 * Reads the command's inputs that are pipes (a FIFO, `/dev/stdin`) ahead, on libuv's threads (src/io/input.ts): while
 * a pipe waits for its writer, Ctrl-C and SIGTERM still end the command at once (it is in its setup phase).
 */
export async function readPipedInputs(a: Args): Promise<void> {
  await readAheadPipes(inputArgs(a, false).map(inputPath).filter((p) => p !== '' && p !== '-'));
}

/** The files a `KIND:PATH` data set (or a plain path) reads: the file, or the files of a folder two levels deep. */
function inputFiles(arg: string): string[] {
  const path = inputPath(arg);
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

/** `/dev/stdin` when stdin is a regular file (`< FILE`): an input that no output may overwrite. */
function stdinFile(): string[] {
  try {
    return fstatSync(0).isFile() ? ['/dev/stdin'] : [];
  } catch {
    return [];
  }
}

/**
 * Checks every output the command's table declares (a name, its folder exists, not a folder where a file is meant,
 * not one of the inputs, no two outputs the same file, at most one on stdout) before the work starts, takes the lock
 * of each file or folder for the rest of the command's run (a second process writing one is refused at once with
 * the holder's PID; devices, FIFOs, stdout and files in folders still to be made take none), and returns where the command's summary goes: stdout, or
 * stderr when an output takes stdout (`--out -`), so that the output stays whole.
 * @throws InputError naming the option; UsageError for `--json` when an output takes stdout.
 */
export function checkCommandOutputs(a: Args, io: Io): Io {
  const outputs: OutputTarget[] = [];
  const inputs: string[] = [];
  a.command.positionals.forEach((p, k) => {
    if (!p.input) return;
    const args = p.variadic ? a.positionals.slice(k) : [a.positionals[k]];
    for (const arg of args) {
      if (arg !== undefined) inputs.push(...inputFiles(arg));
      if (p.stdin && (arg === undefined || arg === '-')) inputs.push(...stdinFile());
    }
  });
  let toStdout: string | undefined;
  for (const o of a.command.options) {
    const v = a.values[o.name];
    if (typeof v !== 'string') continue;
    const updates = o.updates !== undefined && a.values[o.updates] === v;
    if (o.output) {
      outputs.push({ path: v, option: `--${o.name}`, kind: o.output, ...(o.streamable === false ? { streamable: false } : {}), ...(updates ? { updates } : {}), ...(o.makeFolder ? { makeFolder: true } : {}) });
      if (isStdout(v) && !o.summaryAfter) toStdout = o.name;
    }
    if (o.input) inputs.push(...inputFiles(v));
  }
  checkOutputs(outputs, inputs);
  const locked = new Set(a.command.options.filter((o) => o.output && o.lock !== false).map((o) => `--${o.name}`));
  for (const o of outputs) {
    if (!locked.has(o.option) || isStdout(o.path) || (o.kind !== 'dir' && resolveOutput(o.path).kind === 'stream')) continue;
    // A figure whose folder the command makes once it is drawn (makeFolder): no lock in a folder that is not there
    // yet (the file is written whole, by an atomic rename, so two writers cannot mix it).
    if (o.kind !== 'dir' && !existsSync(dirname(resolve(o.path)))) continue;
    holdLock(o.path, `${o.option} ${o.path}`);
  }
  if (active) active.writesFiles = outputs.some((o) => !isStdout(o.path));
  if (toStdout === undefined) return io;
  if (value.flag(a, 'json')) throw new UsageError(`--json needs stdout for its summary, and --${toStdout} ${String(a.values[toStdout])} writes there: give --${toStdout} a file name, or leave out --json`);
  return { ...io, stdout: io.stderr };
}

/**
 * Takes the lock of an output (src/io/output.ts lockOutput) until the command in progress ends (else until the
 * process exits). @throws InputError naming `option` and the holder's PID when another process writes it.
 */
export function holdLock(path: string, option: string): void {
  const release = lockOutput(path, option);
  active?.locks.push(release);
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

/** Where a command run is: reading its input, working, writing its results, or done. */
type Phase = 'setup' | 'work' | 'results' | 'done';

/** The signal handlers of one command run, acting by its phase (see the module comment). */
class SignalSession implements Interrupt {
  private phase: Phase;
  private received: SignalName | undefined;
  private count = 0;
  private readonly controller = new AbortController();
  private readonly urgentController = new AbortController();
  private readonly handlers: (readonly [SignalName, () => void])[];
  /** The command writes files (a model, a checkpoint): a reader of stdout that leaves must not stop it. */
  writesFiles = false;
  /** Releases of the command's output locks (see checkCommandOutputs), run when the command ends. */
  readonly locks: (() => void)[] = [];

  constructor(
    private readonly io: Io,
    private finishing: string,
    phase: Phase,
  ) {
    this.phase = phase;
    this.handlers = (Object.keys(SIGNAL_EXIT) as SignalName[]).map((name) => {
      const handler = () => this.receive(name);
      process.on(name, handler);
      return [name, handler] as const;
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get urgent(): AbortSignal {
    return this.urgentController.signal;
  }

  private receive(name: SignalName): void {
    const say = (text: string) => this.io.stderr.write(`\n${text}\n`);
    this.count++;
    if (this.phase === 'setup') {
      say(`interrupted by ${name} before the work started: nothing was written`);
      process.exit(SIGNAL_EXIT[name]);
    }
    if (this.phase === 'done') {
      this.received ??= name;
      say(`interrupted by ${name} after the results were written`);
      return;
    }
    if (this.phase === 'results') {
      if (this.received !== undefined) process.exit(SIGNAL_EXIT[this.received]);
      this.received = name;
      say(`interrupted by ${name}: writing the results first (send it again to quit at once)`);
      return;
    }
    if (this.count >= 3) process.exit(SIGNAL_EXIT[this.received ?? name]);
    if (this.count === 2) {
      say(`${name} again: abandoning any exact pass in progress (the result is then not certified; send it once more to quit at once)`);
      this.urgentController.abort(name);
      return;
    }
    this.received = name;
    say(`interrupted by ${name}: ${this.finishing} (send it again to abandon an exact pass in progress)`);
    this.controller.abort(name);
  }

  /** Runs the work phase of a command (its abort signals are this session's), then enters the results phase. */
  async work(finishing: string, work: (signal: AbortSignal, urgent: AbortSignal) => Promise<number>): Promise<number> {
    // A signal that came while the setup held the thread (reading the data) waits in libuv's signal pipe: take it
    // in while still in the setup phase (two turns of the event loop, see runCommand), so that the command exits
    // with its status before any work.
    if (this.phase === 'setup') for (let turn = 0; turn < 2; turn++) await nextTurn();
    this.finishing = finishing;
    this.phase = 'work';
    this.count = 0;
    try {
      return this.exitCodeOr(await work(this.signal, this.urgent));
    } finally {
      this.phase = 'results';
      this.count = 0;
    }
  }

  /** The command has written its results: a signal now only sets the exit status. */
  done(): void {
    this.phase = 'done';
  }

  exitCode(): number | undefined {
    return this.received === undefined ? undefined : SIGNAL_EXIT[this.received];
  }

  exitCodeOr(code: number): number {
    return this.exitCode() ?? code;
  }

  dispose(): void {
    for (const [name, handler] of this.handlers) process.off(name, handler);
    for (const release of this.locks.splice(0)) release();
  }
}

/** The command run in progress (see {@link runCommand}): its signal handlers serve every phase of it. */
let active: SignalSession | undefined;

/**
 * Whether the command in progress writes files besides stdout (`train --trace - --out m.gbm | head`): then a reader
 * of stdout that leaves ends only what goes to stdout, and the run goes on to write its files.
 */
export function writesFiles(): boolean {
  return active?.writesFiles === true;
}

/**
 * Runs a command with the signal handlers of its whole run (see the module comment); returns its exit status, or
 * the signal's when one came. Signals that arrived during synchronous work are taken in before the status is.
 */
export async function runCommand(io: Io, run: () => Promise<number>): Promise<number> {
  const session = new SignalSession(io, 'stopping', 'setup');
  const outer = active;
  active = session;
  try {
    const code = await run();
    session.done();
    // A signal that came while the work held the thread waits in libuv's signal pipe, read in the poll phase of the
    // event loop: two turns (check phase, then a whole loop iteration) hand it to the handlers.
    if (session.exitCode() === undefined) for (let turn = 0; turn < 2; turn++) await nextTurn();
    return session.exitCodeOr(code);
  } finally {
    session.dispose();
    active = outer;
    if (!outer) forgetReadAhead();
  }
}

/**
 * Handles SIGINT, SIGTERM and SIGHUP while a command works: the first aborts `signal` (the work then finishes its
 * current block and writes what it has) and says so on stderr; the second aborts `urgent` (an exact pass in
 * progress is abandoned between chunks); a third exits at once with the signal's status.
 */
export function interruptible(io: Io, finishing: string): Interrupt {
  return new SignalSession(io, finishing, 'work');
}

/**
 * Runs `work` as the work phase of the command (with the handlers of {@link runCommand}, or its own outside one);
 * returns its status, or the signal's when one came.
 */
export async function withInterrupts(io: Io, finishing: string, work: (signal: AbortSignal, urgent: AbortSignal) => Promise<number>): Promise<number> {
  if (active) return active.work(finishing, work);
  const interrupt = new SignalSession(io, finishing, 'work');
  try {
    return await interrupt.work(finishing, work);
  } finally {
    interrupt.dispose();
  }
}
