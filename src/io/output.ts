/**
 * Every file gapbcfw writes goes through this module, so that nothing is lost and nothing is clobbered:
 *
 * - {@link checkOutputs}: every output path is checked before a command's work starts (DESIGN: a run of
 *   hours must not end in a failed write, nor write over one of its inputs).
 * - {@link writeOutput}: a whole file at once (model files, checkpoints, path files, figures, gap shards,
 *   predictions). Regular files are written atomically (a temporary file in the same folder, renamed over
 *   the target), symbolic links are followed (the link's target is written, the link stays), character
 *   devices and FIFOs are streamed to (so `/dev/null` stays a device), and `-` (or `/dev/stdout`) is stdout.
 *   The next write of a file removes the temporary files that writers killed mid-write left beside it.
 * - {@link StreamedOutput}: a file written piece by piece while a run goes on (traces, prepared horse
 *   sets), readable with `tail -f`.
 * - {@link lockOutput}: one writer per output. The CLI takes the lock of every output of a command for its whole run
 *   (src/cli/session.ts), and a checkpoint writer its own (src/solvers/checkpoint.ts); {@link removeStaleTemps}
 *   removes what writers killed mid-write left.
 *
 * A write that fails half-way (full disk, quota, I/O error, a FIFO whose reader left) throws an
 * {@link OutputError} (exit 1: the job failed) whose one-line message names the file, after removing the
 * partial output; a path that cannot be written at all (no such folder, permission) is an InputError (exit 2).
 * @module
 */
import * as fs from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { GapbcfwError, InputError } from '../core/errors.js';

/** A write that failed after it started: full disk (ENOSPC, EDQUOT, EFBIG), I/O error (EIO), reader gone (EPIPE). */
export class OutputError extends GapbcfwError {
  constructor(message: string) {
    super(message, 'ERR_GAPBCFW_WRITE_FAILED');
  }
}

/** Errors of the device or the reader rather than of the path the user gave: the job failed (exit 1). */
const JOB_FAILURES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EIO', 'EPIPE', 'ENXIO']);

/** Where an output path leads once symbolic links are followed. */
export type ResolvedOutput =
  | { kind: 'stdout' }
  /** A regular file (or one to create): written atomically; `mode` is the existing file's permissions. */
  | { kind: 'file'; path: string; mode?: number }
  /** A character device or a FIFO: streamed to, never replaced. */
  | { kind: 'stream'; path: string };

/**
 * Resolves an output path: `-` is stdout, symbolic links are followed to their (possibly not yet existing)
 * target. @throws InputError for a folder, a block device, a socket, or a loop of links.
 */
export function resolveOutput(path: string): ResolvedOutput {
  if (isStdout(path)) return { kind: 'stdout' };
  const real = followLinks(path);
  const st = statQuietly(real);
  if (!st) return { kind: 'file', path: real };
  if (st.isFile()) return { kind: 'file', path: real, mode: st.mode & 0o7777 };
  if (st.isCharacterDevice() || st.isFIFO()) return { kind: 'stream', path: real };
  if (st.isDirectory()) throw new InputError(`${path} is a folder (give a file name)`);
  throw new InputError(`${path} is a ${st.isBlockDevice() ? 'block device' : 'socket'}: gapbcfw writes regular files, character devices and FIFOs only`);
}

/** Names of stdout: `-`, and the device names that lead to this process's stdout (written as `-` is, not reopened). */
const STDOUT_NAMES = new Set(['-', '/dev/stdout', '/dev/fd/1', '/proc/self/fd/1']);

/** Whether an output path names stdout (`-` or `/dev/stdout`). */
export function isStdout(path: string): boolean {
  return STDOUT_NAMES.has(path);
}

/** The stat of a path, or undefined when it does not exist (also when a part of it is a file: ENOTDIR). */
function statQuietly(path: string, link = false): fs.Stats | undefined {
  try {
    return link ? fs.lstatSync(path) : fs.statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

/** The file a path names after following symbolic links one by one (the last may not exist yet). */
function followLinks(path: string): string {
  let p = path;
  for (let hops = 0; hops < 40; hops++) {
    const st = statQuietly(p, true);
    if (!st?.isSymbolicLink()) return p;
    p = resolve(dirname(p), fs.readlinkSync(p));
  }
  throw new InputError(`${path}: too many levels of symbolic links`);
}

/** Where `-` goes: the CLI passes its stdout. */
export interface OutputOptions {
  /** Receives what is written to `-` (default process.stdout). */
  stdout?: {
    /** Writes one chunk. */
    write(chunk: string | Uint8Array): unknown;
  };
  /** The name messages give the file (one written under a temporary name, e.g. in a temporary folder). */
  as?: string;
}

/**
 * Writes `data` to `path` as a whole: atomically onto a regular file (temp file, fsync, rename; the old
 * file stays intact until the new one is complete and keeps its permissions), streamed to a character
 * device or FIFO, written to `options.stdout` (default process.stdout) for `-`.
 *
 * @throws OutputError naming the file when the device fails (nothing is left behind); InputError when
 *   the path cannot be written (missing folder, permission, a folder).
 */
export function writeOutput(path: string, data: string | Uint8Array, options: OutputOptions = {}): void {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const target = resolveOutput(path);
  if (target.kind === 'stdout') {
    (options.stdout ?? process.stdout).write(bytes);
    return;
  }
  let fd: number | undefined;
  const tmp = target.kind === 'file' ? tempName(target.path) : undefined;
  if (tmp !== undefined) removeStaleTemps(target.path); // of writers of this file that were killed mid-write
  try {
    if (target.kind === 'stream') {
      fd = fs.openSync(target.path, 'w');
    } else {
      fd = fs.openSync(tmp!, 'wx', 0o666);
      if (target.mode !== undefined) fs.fchmodSync(fd, target.mode);
    }
    writeAll(fd, bytes);
    if (tmp !== undefined) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    if (tmp !== undefined) fs.renameSync(tmp, target.path);
  } catch (e) {
    if (fd !== undefined) closeQuietly(fd);
    if (tmp !== undefined) removeQuietly(tmp);
    throw writeFailure(e, options.as ?? path, target.kind === 'file');
  }
}

/** The temporary file (or folder) of an atomic write: `.NAME.tmp-PID-RANDOM` beside the target. */
function tempName(target: string): string {
  return join(dirname(target), `.${basename(target)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let pos = 0;
  while (pos < bytes.length) pos += fs.writeSync(fd, bytes, pos, bytes.length - pos);
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    /* already failing */
  }
}

function removeQuietly(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch {
    /* it may not exist */
  }
}

/**
 * The one-line error of a failed write naming the file the user gave: OutputError (exit 1) when the device
 * or the reader failed, InputError (exit 2) when the path itself cannot be written.
 */
export function writeFailure(e: unknown, path: string, partialRemoved = false): GapbcfwError {
  if (e instanceof GapbcfwError) return e;
  const err = e as NodeJS.ErrnoException;
  const reason = describeErrno(err);
  if (err.code === 'EPIPE') return new OutputError(`cannot write ${path}: its reader closed it before the output was complete (EPIPE)`);
  if (err.code !== undefined && JOB_FAILURES.has(err.code)) return new OutputError(`cannot write ${path}: ${reason}${partialRemoved ? '; the partial output was removed' : ''}`);
  return new InputError(`cannot write ${path}: ${reason}`);
}

/** `no space left on device (ENOSPC)` from Node's `ENOSPC: no space left on device, write`. */
function describeErrno(e: NodeJS.ErrnoException): string {
  const m = /^[A-Z0-9]+: ([^,]+)/.exec(e.message ?? '');
  return m && e.code ? `${m[1]} (${e.code})` : (String(e.message ?? e).split('\n')[0] ?? 'unknown error');
}

/** Options of {@link StreamedOutput.open}. */
export interface StreamedOutputOptions extends OutputOptions {
  /** Keep the file's content and write after it (a resumed run's trace). */
  append?: boolean;
  /** Receives the one-line note that a FIFO's reader left. */
  warn?: (message: string) => void;
}

/**
 * A file written piece by piece as a run goes on (a trace, a prepared horse set): direct writes, so what is
 * written so far is on disk when the run is killed and a resumed run can append. A failed write restores
 * the file (removed when this output created it, cut back to its old length when appending) and throws
 * OutputError. When the reader of a FIFO leaves (EPIPE), the output is dropped from then on and `warn` says
 * so once; the run goes on.
 */
export class StreamedOutput {
  private fd: number | undefined;
  private readerGone = false;

  private constructor(
    private readonly path: string,
    private readonly target: ResolvedOutput,
    private readonly restoreTo: number | undefined,
    private readonly options: StreamedOutputOptions,
  ) {
    if (target.kind !== 'stdout') {
      try {
        this.fd = fs.openSync(target.path, options.append ? 'a' : 'w');
      } catch (e) {
        throw writeFailure(e, path);
      }
    }
  }

  /** Opens `path` (`-` is stdout), emptied unless `append`. */
  static open(path: string, options: StreamedOutputOptions = {}): StreamedOutput {
    const target = resolveOutput(path);
    // Length to cut back to on failure: undefined removes the file, a number truncates (appending to a file).
    let restoreTo: number | undefined;
    if (target.kind === 'file' && options.append) restoreTo = fs.statSync(target.path, { throwIfNoEntry: false })?.size;
    return new StreamedOutput(options.as ?? path, target, restoreTo, options);
  }

  /** Writes `chunk` (a string as UTF-8). */
  write(chunk: string | Uint8Array): void {
    if (this.readerGone) return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (this.target.kind === 'stdout') {
      (this.options.stdout ?? process.stdout).write(bytes);
      return;
    }
    try {
      writeAll(this.fd!, bytes);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPIPE' && this.target.kind === 'stream') {
        this.readerGone = true;
        this.options.warn?.(`${this.path}: its reader closed it; nothing more is written there (EPIPE)`);
        return;
      }
      this.discard();
      throw writeFailure(e, this.path, this.target.kind === 'file');
    }
  }

  /** Closes the file (idempotent). */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      fs.closeSync(fd);
    } catch (e) {
      this.discard();
      throw writeFailure(e, this.path, this.target.kind === 'file');
    }
  }

  /** Undoes this output (after a failed write): the file as it was before, nothing of a new one. */
  discard(): void {
    if (this.fd !== undefined) closeQuietly(this.fd);
    this.fd = undefined;
    if (this.target.kind !== 'file') return;
    if (this.restoreTo === undefined) removeQuietly(this.target.path);
    else {
      try {
        fs.truncateSync(this.target.path, this.restoreTo);
      } catch {
        /* best effort: the write already failed */
      }
    }
  }
}

/**
 * Cuts a file of lines back to the end of its last line that `keep` accepts, searching from the end (a resumed
 * run's trace: the lines written after its checkpoint go, so that the resumed run's lines follow on as in one run).
 * Returns false, leaving the file alone, when no line is accepted.
 * @throws InputError naming the file when it cannot be read or cut.
 */
export function cutAfterLastLine(path: string, keep: (line: string) => boolean): boolean {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(path);
  } catch (e) {
    throw writeFailure(e, path);
  }
  for (let end = bytes.length; end > 0; ) {
    const lineEnd = bytes[end - 1] === 0x0a ? end - 1 : end;
    const start = lineEnd === 0 ? 0 : bytes.lastIndexOf(0x0a, lineEnd - 1) + 1;
    if (keep(bytes.toString('utf8', start, lineEnd))) {
      try {
        fs.truncateSync(path, end);
        if (lineEnd === end) fs.appendFileSync(path, '\n'); // the kept line was the last, unterminated
      } catch (e) {
        throw writeFailure(e, path);
      }
      return true;
    }
    end = start;
  }
  return false;
}

/**
 * Makes the folder `path` (and missing parents) for a command's outputs (`--out-dir`, prepare-horse `--out`).
 * @throws InputError naming `option` and the path when it, or a parent, exists and is not a folder, or it
 *   cannot be made.
 */
export function makeOutputDir(path: string, option?: string): void {
  const what = option === undefined ? path : `${option} ${path}`;
  try {
    fs.mkdirSync(path, { recursive: true });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new InputError(`${what}: ${fs.existsSync(path) ? 'exists and is not a folder' : 'a part of the path is a file, not a folder'}`);
    throw new InputError(`${what}: cannot make the folder: ${describeErrno(e as NodeJS.ErrnoException)}`);
  }
}

/**
 * A new folder beside `target` (`.NAME.tmp-PID-RANDOM`, whose parents are made) for an output folder written as a
 * whole: {@link renameFolderIntoPlace} moves it to `target` once complete, so that no reader ever sees a part of it
 * (and what a killed writer left is removed by {@link removeStaleTemps} of `target`).
 * @throws InputError naming `option` when it cannot be made.
 */
export function temporaryFolder(target: string, option?: string): string {
  makeOutputDir(dirname(resolve(target)), option);
  removeStaleTemps(target);
  const tmp = tempName(resolve(target));
  makeOutputDir(tmp, option);
  return tmp;
}

/**
 * Moves the folder `tmp` (from {@link temporaryFolder}) to `target` by renames. An existing `target` must be a folder
 * holding only entries named in `replaceable` (an earlier output of the same kind): it is renamed aside, `tmp` takes
 * its place, and it is removed; for a moment `target` is missing, but never half-written.
 * @throws InputError when `target` holds anything else (`tmp` is left for the caller).
 */
export function renameFolderIntoPlace(tmp: string, target: string, replaceable: readonly string[]): void {
  checkReplaceableFolder(target, replaceable);
  const old = statQuietly(target) ? tempName(resolve(target)) : undefined;
  try {
    if (old !== undefined) fs.renameSync(target, old);
    fs.renameSync(tmp, target);
  } catch (e) {
    throw writeFailure(e, target);
  }
  if (old !== undefined) fs.rmSync(old, { recursive: true, force: true });
}

/** Throws an InputError unless `target` is missing, or a folder holding only entries named in `replaceable`. */
export function checkReplaceableFolder(target: string, replaceable: readonly string[], option?: string): void {
  const st = statQuietly(target);
  if (!st) return;
  const what = option === undefined ? target : `${option} ${target}`;
  if (!st.isDirectory()) throw new InputError(`${what}: exists and is not a folder`);
  const other = fs.readdirSync(target).filter((name) => !replaceable.includes(name));
  if (other.length > 0) throw new InputError(`${what}: holds other files than the ${replaceable.join(' and ')} it replaces (${other.slice(0, 3).join(', ')}${other.length > 3 ? ', ...' : ''}): choose a new or empty folder`);
}

/** Removes the folder `path` when it is empty (a folder a failed command made and wrote nothing into). */
export function removeEmptyFolder(path: string): void {
  try {
    fs.rmdirSync(path);
  } catch {
    /* not empty, or gone */
  }
}

// ---------------------------------------------------------------------------------------------------
// Locks and stale temporary files.

/** True while process `pid` exists (EPERM: it exists but belongs to someone else). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files and folders that atomic writes of `path` by processes no longer running left behind
 * (`.NAME.tmp-PID-*`, e.g. after a kill during a checkpoint write). Returns the removed paths.
 */
export function removeStaleTemps(path: string): string[] {
  const target = followLinks(path);
  const dir = dirname(target);
  const prefix = `.${basename(target)}.tmp-`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)-[a-z0-9]+$/.exec(name.slice(prefix.length));
    if (!m || alive(Number(m[1]))) continue;
    fs.rmSync(join(dir, name), { recursive: true, force: true }); // a file, or a temporary folder
    removed.push(join(dir, name));
  }
  return removed;
}

/** The locks this process holds, by lock file, with how many takers hold each (see {@link lockOutput}). */
const held = new Map<string, number>();

/**
 * Takes the lock of an output that only one process may write (`PATH.lock` beside the target file or folder,
 * holding the owner's PID): a lock of a process that is gone is taken over; one of a running process is refused at
 * once. A lock this process already holds is shared (a command's lock and its checkpoint writer's), and the file
 * goes when the last taker releases it. Returns the release function (also run at process exit).
 * @throws InputError naming the option and the owner's PID when another process holds the lock; OutputError when
 *   the lock cannot be written (a full disk).
 */
export function lockOutput(path: string, option = path): () => void {
  const lock = `${followLinks(resolve(path))}.lock`;
  const takers = held.get(lock) ?? 0;
  if (takers === 0) takeLock(lock, option);
  held.set(lock, takers + 1);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    const left = (held.get(lock) ?? 1) - 1;
    if (left > 0) held.set(lock, left);
    else {
      held.delete(lock);
      if (Number.parseInt(readQuietly(lock), 10) === process.pid) removeQuietly(lock);
    }
  };
  process.on('exit', release);
  return release;
}

/** Makes the lock file `lock` holding this process's PID, taking over a stale one. */
function takeLock(lock: string, option: string): void {
  for (let attempt = 0; ; attempt++) {
    let fd: number | undefined;
    try {
      fd = fs.openSync(lock, 'wx', 0o644);
      fs.writeSync(fd, `${process.pid}\n`);
      fs.closeSync(fd);
      return;
    } catch (e) {
      if (fd !== undefined) {
        // Made but not written (a full disk): leave no empty lock behind.
        closeQuietly(fd);
        removeQuietly(lock);
      }
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        const failure = writeFailure(e, lock);
        throw failure instanceof OutputError ? new OutputError(`${option}: cannot take its lock: ${failure.message}`) : failure;
      }
      const owner = Number.parseInt(readQuietly(lock), 10);
      if (Number.isInteger(owner) && owner > 0 && alive(owner) && owner !== process.pid) {
        throw new InputError(`${option} is being written by process ${owner} (lock file ${lock}); wait for it to end or choose another file`);
      }
      if (attempt > 0) throw new InputError(`${option}: cannot take the lock ${lock} (another process took it over)`);
      removeQuietly(lock); // stale: its owner is gone (or it is our own, left by an earlier run of this process)
    }
  }
}

function readQuietly(path: string): string {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------------
// The check before the work starts.

/** One output a command will write. */
export interface OutputTarget {
  /** The path as the user gave it (`-` is stdout). */
  path: string;
  /** The option that names it, for messages (e.g. `--out`, `--checkpoint`). */
  option: string;
  /** A file (default) or a folder the command creates or fills. */
  kind?: 'file' | 'dir';
  /** False when the output must be a regular file (a checkpoint, read back by --resume): no device, FIFO or stdout. */
  streamable?: boolean;
  /** True when the command reads this output's old content and writes it anew (the checkpoint it resumes from). */
  updates?: boolean;
  /** True when the command makes the file's folder (and missing parents) before writing it (`plot --out figs/a.svg`). */
  makeFolder?: boolean;
}

/**
 * Throws an InputError (exit 2) naming the option unless every output can be written: a file output has a
 * name, its folder exists (or, with `makeFolder`, can be made) and is writable, and it is not a folder (a
 * character device or FIFO is accepted where the output can be streamed); a folder output is a folder or can
 * be made in a writable folder; no output is one of `inputs` (files the command reads: data, models, a regular
 * file on stdin) unless it `updates` it; no two outputs are the same file (so `--checkpoint` is not `--out`),
 * and at most one is stdout.
 */
export function checkOutputs(outputs: readonly OutputTarget[], inputs: readonly string[] = []): void {
  const inputIds = new Map<string, string>();
  for (const p of inputs) {
    const id = fileId(p);
    if (id !== undefined) inputIds.set(id, p);
  }
  const seen = new Map<string, OutputTarget>();
  let stdout: OutputTarget | undefined;
  for (const out of outputs) {
    const what = `${out.option} ${out.path}`;
    if (out.path === '') throw new InputError(`${out.option}: an empty file name`);
    if (isStdout(out.path)) {
      if (out.kind === 'dir' || out.streamable === false) throw new InputError(`${what}: needs a ${out.kind === 'dir' ? 'folder' : 'file'} name, not stdout`);
      if (stdout) throw new InputError(`${what}: ${stdout.option} already writes to stdout`);
      stdout = out;
      continue;
    }
    const st = out.kind === 'dir' ? checkDirOutput(out, what) : checkFileOutput(out, what);
    if (st && !st.isFile() && !st.isDirectory()) continue; // a device or FIFO: several outputs may share it
    const id = fileId(out.path) ?? resolve(followLinks(out.path));
    const input = inputIds.get(id);
    if (input !== undefined && !out.updates) throw new InputError(`${what}: is an input of this command (${input}); refusing to overwrite it`);
    const other = seen.get(id);
    if (other) throw new InputError(`${what}: the same file as ${other.option} ${other.path}`);
    seen.set(id, out);
  }
}

/** Checks a file output; returns the target's stat when it exists. */
function checkFileOutput(out: OutputTarget, what: string): fs.Stats | undefined {
  let target: ResolvedOutput;
  try {
    target = resolveOutput(out.path);
  } catch (e) {
    throw new InputError(`${what}: ${(e as Error).message.replace(`${out.path} `, '')}`);
  }
  if (target.kind === 'stream') {
    if (out.streamable === false) throw new InputError(`${what}: must be a regular file (it is read back later), not a device or FIFO`);
    if (!writable(target.path)) throw new InputError(`${what}: is not writable`);
    return fs.statSync(target.path);
  }
  const path = (target as { path: string }).path;
  const folder = dirname(resolve(path));
  if (out.makeFolder) checkFolderToMake(folder, what);
  else checkFolder(folder, what);
  return statQuietly(path);
}

/** Checks a folder output: an existing folder, or one that can be made (its nearest existing ancestor is a writable folder). */
function checkDirOutput(out: OutputTarget, what: string): fs.Stats | undefined {
  const st = statQuietly(out.path);
  if (st && !st.isDirectory()) throw new InputError(`${what}: exists and is not a folder`);
  if (st && !writable(out.path)) throw new InputError(`${what}: the folder is not writable`);
  if (!st) checkFolderToMake(resolve(out.path), what);
  return st;
}

/** A folder that exists or can be made: its nearest existing ancestor is a writable folder. */
function checkFolderToMake(folder: string, what: string): void {
  let parent = dirname(folder);
  while (!statQuietly(parent) && dirname(parent) !== parent) parent = dirname(parent);
  checkFolder(statQuietly(folder) ? folder : parent, what);
}

function checkFolder(folder: string, what: string): void {
  const st = statQuietly(folder);
  if (!st) {
    // Name the file that stands where a folder should be (`--out notes.txt/m.gbm`), else the missing folder.
    let up = dirname(folder);
    while (!statQuietly(up) && dirname(up) !== up) up = dirname(up);
    if (statQuietly(up)?.isDirectory() === false) throw new InputError(`${what}: ${up} is a file, not a folder`);
    throw new InputError(`${what}: the folder ${folder} does not exist`);
  }
  if (!st.isDirectory()) throw new InputError(`${what}: ${folder} is not a folder`);
  if (!writable(folder)) throw new InputError(`${what}: the folder ${folder} is not writable`);
}

function writable(path: string): boolean {
  try {
    fs.accessSync(path, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Device and inode of an existing file (so that links and relative paths compare equal), else undefined. */
function fileId(path: string): string | undefined {
  try {
    const st = fs.statSync(fs.realpathSync(path));
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}
