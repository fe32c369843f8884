/**
 * Reading solver checkpoints (`gapbcfw train --checkpoint FILE`, `--resume FILE`): a model file
 * (src/io/model-file.ts) whose meta has `format: 'gapbcfw-checkpoint'` plus the solver state of
 * {@link SolverCheckpoint}. The solver itself checks that a checkpoint fits the problem and the
 * settings; this reader checks that the file is a well-formed checkpoint at all (types of the counters,
 * the trace, finite iterates), so that a damaged or hand-edited file is a FormatError rather than a
 * silently wrong run.
 */
import { FormatError, InputError } from '../core/errors.js';
import type { SolverCheckpoint } from './common.js';
import { readModelFile, writeModelFile, type ModelFileContent } from '../io/model-file.js';
import { lockOutput, removeStaleTemps, resolveOutput } from '../io/output.js';

/** The `format` of checkpoint files. */
export const CHECKPOINT_FORMAT = 'gapbcfw-checkpoint';

/** Reads and checks a checkpoint file. @throws FormatError naming the file; InputError when unreadable. */
export function readCheckpoint(path: string): SolverCheckpoint {
  return parseCheckpoint(readModelFile(path), path);
}

/** Checks the content of a checkpoint file (see {@link readCheckpoint}). */
export function parseCheckpoint(content: ModelFileContent, file?: string): SolverCheckpoint {
  const { meta, arrays } = content;
  const fail = (why: string): never => {
    throw new FormatError(why, file);
  };
  if (meta.format !== CHECKPOINT_FORMAT) fail(`not a gapbcfw checkpoint (format '${String(meta.format)}')`);
  const count = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  if (typeof meta.solver !== 'string' || meta.solver === '') fail("checkpoint: 'solver' must be a solver name");
  for (const key of ['n', 'dim', 'passes', 'oracleCalls'] as const) {
    if (!count(meta[key])) fail(`checkpoint: '${key}' must be a non-negative integer, got ${JSON.stringify(meta[key])}`);
  }
  if (typeof meta.seconds !== 'number' || !(meta.seconds >= 0)) fail(`checkpoint: 'seconds' must be a non-negative number, got ${JSON.stringify(meta.seconds)}`);
  if (meta.options === null || typeof meta.options !== 'object' || Array.isArray(meta.options)) fail("checkpoint: 'options' must be an object");
  if (!Array.isArray(meta.trace) || meta.trace.some((e) => e === null || typeof e !== 'object' || Array.isArray(e))) {
    fail("checkpoint: 'trace' must be an array of progress events");
  }
  if (meta.dataFingerprint !== undefined && typeof meta.dataFingerprint !== 'string') fail("checkpoint: 'dataFingerprint' must be a string");
  if (meta.rngState !== undefined && (!Array.isArray(meta.rngState) || meta.rngState.some((x) => !Number.isInteger(x)))) {
    fail("checkpoint: 'rngState' must be an array of integers");
  }
  for (const [name, a] of Object.entries(arrays)) {
    if (!(a instanceof Float64Array || a instanceof Int32Array)) fail(`checkpoint array '${name}' must be f64 or i32`);
    // Gap estimates are +Infinity until a block is first visited; every other value must be finite.
    const ok = name === 'gapEst' ? (x: number) => Number.isFinite(x) || x === Infinity : Number.isFinite;
    const bad = (a as Float64Array | Int32Array).findIndex((x) => !ok(x));
    if (bad >= 0) fail(`checkpoint array '${name}' has ${a[bad]} at index ${bad}`);
  }
  return { meta: meta as SolverCheckpoint['meta'], arrays: arrays as SolverCheckpoint['arrays'] };
}

/**
 * The checkpoints of one run, written to one file: opening it takes the file's lock (a second process
 * writing the same checkpoint is refused) and removes the temporary files of writers that were killed
 * mid-write; each checkpoint is then written atomically (src/io/output.ts). Close it when the run ends
 * (the lock is also released at process exit).
 */
export class CheckpointWriter {
  private readonly release: () => void;

  /** @throws InputError when `path` is not a regular file (or a new one) or another process writes it. */
  constructor(
    readonly path: string,
    option = '--checkpoint',
  ) {
    if (resolveOutput(path).kind !== 'file') throw new InputError(`${option} ${path}: a checkpoint must be a regular file (--resume reads it back)`);
    this.release = lockOutput(path, `${option} ${path}`);
    removeStaleTemps(path);
  }

  /** Writes `c` over the previous checkpoint (atomically: a kill mid-write leaves the previous one). */
  write(c: SolverCheckpoint): void {
    writeModelFile(this.path, { meta: { format: CHECKPOINT_FORMAT, ...c.meta }, arrays: c.arrays });
  }

  /** Releases the lock. */
  close(): void {
    this.release();
  }
}
