/**
 * How many threads the native code uses: one process-wide setting (as sharp's `concurrency`), read by every
 * native call (batched exact passes, mini-batch decodes, graph cuts, pose decoding). Results never depend
 * on it: every example is decoded on its own.
 * @module
 */
import { availableParallelism } from 'node:os';
import { InputError } from '../core/errors.js';
import { native } from './addon.js';

/** The most threads {@link setThreads} accepts (the native pool runs the caller and up to 255 workers). */
export const MAX_THREADS = 256;

/**
 * Caps the threads of every native call of this process at `n` (the calling thread included); `undefined`
 * removes the cap (every core: os.availableParallelism()).
 */
export function setThreads(n: number | undefined): void {
  if (n !== undefined && !(Number.isInteger(n) && n >= 1 && n <= MAX_THREADS)) throw new InputError(`threads must be an integer in 1..${MAX_THREADS}, got ${String(n)}`);
  native.setThreads(n ?? 0);
}

/** The cap set by {@link setThreads}, undefined when none. */
export function threadCap(): number | undefined {
  return native.getThreads() || undefined;
}

/** The threads native calls use now: the cap of {@link setThreads}, else every core. */
export function threads(): number {
  return native.getThreads() || availableParallelism();
}
