/**
 * Every file gapbcfw reads whole (data, models, checkpoints, traces, DIMACS graphs) goes through
 * {@link readInputFile}, so that:
 *
 * - a failure names the file, with the reason in words (`is a folder (EISDIR)`);
 * - an input that is a pipe (a FIFO, `/dev/stdin`, `<(zcat ...)`) can be read ahead without blocking the event
 *   loop ({@link readAheadPipes}): a writer that never comes then leaves Ctrl-C and SIGTERM working, where a
 *   synchronous read would wait in the kernel with every signal handler locked out.
 * @module
 */
import * as fs from 'node:fs';
import { Socket } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { resolve } from 'node:path';
import { FormatError, InputError } from '../core/errors.js';

/** Pipes read ahead by {@link readAheadPipes}, by absolute path: their bytes can be read only once. */
const readAhead = new Map<string, Buffer>();

/**
 * Reads a whole file: the bytes {@link readAheadPipes} took from a pipe, else the file itself.
 * @throws InputError naming the file: missing, a folder, unreadable.
 */
export function readInputFile(path: string): Buffer {
  const ahead = readAhead.get(resolve(path));
  if (ahead !== undefined) return ahead;
  try {
    return fs.readFileSync(path);
  } catch (e) {
    throw inputFailure(e, path);
  }
}

/** Bytes searched for a NUL, the mark of binary data (text files never hold one; compressed files and images do early). */
const BINARY_PROBE = 1 << 16;

/**
 * The text of a file's bytes, refusing binary data (a NUL byte in its first 64 KiB: a compressed, image or other
 * foreign file), so that no message ever quotes its bytes as a token of the expected format.
 * @throws FormatError naming the file.
 */
export function textOf(bytes: Uint8Array, file: string, encoding: 'utf8' | 'latin1' = 'utf8'): string {
  const nul = bytes.subarray(0, BINARY_PROBE).indexOf(0);
  if (nul >= 0) throw new FormatError(`binary data (byte ${nul} is NUL), not a text file`, file);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(encoding);
}

/** {@link readInputFile} as text (see {@link textOf}). */
export function readInputText(path: string): string {
  return textOf(readInputFile(path), path);
}

/** The one-line error of a failed read naming the file: `cannot read F: no such file or directory (ENOENT)`. */
export function inputFailure(e: unknown, path: string): InputError {
  if (e instanceof InputError) return e;
  const err = e as NodeJS.ErrnoException;
  const reason = err.code === 'EISDIR' ? 'is a folder, not a file' : (/^[A-Z0-9]+: ([^,]+)/.exec(err.message ?? '')?.[1] ?? String(err.message ?? e).split('\n')[0]);
  return new InputError(`cannot read ${path}: ${reason}${err.code ? ` (${err.code})` : ''}`);
}

/**
 * Reads the pipes among `paths` (FIFOs, `/dev/stdin` when piped) into memory on the event loop, so that it, and with it
 * the signal handlers, go on while a pipe waits for its writer; {@link readInputFile} then returns their bytes.
 * Other files are left to their readers. The bytes are kept until {@link forgetReadAhead}.
 */
export async function readAheadPipes(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const key = resolve(path);
    if (readAhead.has(key) || fs.statSync(path, { throwIfNoEntry: false })?.isFIFO() !== true) continue;
    readAhead.set(key, await readPipe(path));
  }
}

/**
 * A file or pipe to read as a stream (raw input of `gapbcfw predict`, read as it arrives): a pipe through libuv's
 * pipe handle as {@link readAheadPipes} reads it (no thread waits for its writer), anything else with a file
 * stream. Errors, also those the stream emits later, name the file.
 * @throws InputError naming the file when it is missing, a folder or unreadable.
 */
export function openInputStream(path: string): Readable {
  const st = fs.statSync(path, { throwIfNoEntry: false });
  if (st?.isDirectory()) throw inputFailure(Object.assign(new Error('EISDIR: illegal operation on a directory'), { code: 'EISDIR' }), path);
  let stream: Readable;
  try {
    stream = st?.isFIFO() ? new Socket({ fd: fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), readable: true, writable: false }) : fs.createReadStream(path);
  } catch (e) {
    throw inputFailure(e, path);
  }
  // Re-emitted as the one-line error naming the file (a read that fails half-way, a missing file).
  const named = new PassThrough();
  stream.on('error', (e) => named.destroy(inputFailure(e, path)));
  named.once('close', () => stream.destroy()); // a reader that stops early (a signal) closes the file or pipe
  return stream.pipe(named);
}

/**
 * A pipe's bytes up to its writer's end. Opened without waiting for a writer (O_NONBLOCK) and read through libuv's
 * pipe handle, polled by the event loop: no thread waits in the kernel (a thread of libuv's pool blocked in open()
 * would also hold up the exit of the process).
 */
function readPipe(path: string): Promise<Buffer> {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    return Promise.reject(inputFailure(e, path));
  }
  const pipe = new Socket({ fd, readable: true, writable: false });
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    pipe.on('data', (chunk: Buffer) => chunks.push(chunk));
    pipe.on('end', () => done(Buffer.concat(chunks)));
    pipe.on('error', (e) => fail(inputFailure(e, path)));
  });
}

/** Drops the bytes of the pipes read ahead (a command has ended). */
export function forgetReadAhead(): void {
  readAhead.clear();
}
