/**
 * Output paths of long runs, checked before the work starts (DESIGN: "every output path is checked before the
 * work starts"): a run of hours must not end in a failed write, nor write over one of its inputs.
 * @module
 */
import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InputError } from '../core/errors.js';

/** One output a command will write. */
export interface OutputTarget {
  /** The path as the user gave it (`-` is stdout). */
  path: string;
  /** The option that names it, for messages (e.g. `--out`, `--checkpoint`). */
  option: string;
  /** A file (default) or a directory the command creates or fills. */
  kind?: 'file' | 'dir';
}

/**
 * Throws an InputError (exit 2) naming the option unless every output can be written: its directory exists
 * and is a directory, a file output is not a directory, no output is one of `inputs` (files the command reads:
 * data, models, checkpoints to resume from), and no two outputs are the same file.
 */
export function checkOutputs(outputs: readonly OutputTarget[], inputs: readonly string[] = []): void {
  const inputIds = new Map<string, string>();
  for (const p of inputs) {
    const id = fileId(p);
    if (id !== undefined) inputIds.set(id, p);
  }
  const seen = new Map<string, OutputTarget>();
  for (const out of outputs) {
    if (out.path === '-') continue;
    const what = `${out.option} ${out.path}`;
    const parent = dirname(resolve(out.path));
    const parentStat = statSync(parent, { throwIfNoEntry: false });
    if (!parentStat) throw new InputError(`${what}: the folder ${parent} does not exist`);
    if (!parentStat.isDirectory()) throw new InputError(`${what}: ${parent} is not a folder`);
    const st = statSync(out.path, { throwIfNoEntry: false });
    if ((out.kind ?? 'file') === 'file' && st?.isDirectory()) throw new InputError(`${what}: is a folder (give a file name)`);
    if (out.kind === 'dir' && st && !st.isDirectory()) throw new InputError(`${what}: exists and is not a folder`);
    const id = fileId(out.path) ?? resolve(out.path);
    const input = inputIds.get(id);
    if (input !== undefined) throw new InputError(`${what}: is an input of this command (${input}); refusing to overwrite it`);
    const other = seen.get(id);
    if (other) throw new InputError(`${what}: the same file as ${other.option} ${other.path}`);
    seen.set(id, out);
  }
}

/** Device and inode of an existing file (so that links and relative paths compare equal), else undefined. */
function fileId(path: string): string | undefined {
  try {
    const st = statSync(realpathSync(path));
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}
