import { FormatError } from '../core/errors.js';
import type { Breakpoint, RegularizationPath } from './regpath.js';
import { readModelFile, writeModelFile, type ModelArray } from '../io/model-file.js';
// Upward, on purpose (test/imports.test.ts): a path file embeds the model it was computed for, in the model-file
// header that tasks/ own (task, spec and task fields), so it reads and writes that part with the tasks' codec.
import type { ModelDescription } from '../tasks/types.js';
import { describeModel, readModelDescription } from '../tasks/model.js';
import type { OutputOptions } from '../io/output.js';

const FORMAT = 'gapbcfw-path';

/** A stored regularization path: the model (task, shape, task fields as in model files), the path's pieces and per-breakpoint records. */
export interface StoredPath extends ModelDescription, Pick<RegularizationPath, 'epsilon' | 'kappa' | 'heuristic' | 'lambdaInf' | 'wInf' | 'complete' | 'validDownTo' | 'stopReason'> {
  breakpoints: (Breakpoint & { testError?: number })[];
}

/** Writes a path file: JSON header (breakpoints, certificates) plus one weight vector per piece (`-` is `options.stdout`). */
export function savePath(path: string, p: StoredPath, options?: OutputOptions): void {
  const model = describeModel(p);
  const arrays: Record<string, ModelArray> = { ...model.arrays, wInf: p.wInf };
  p.breakpoints.forEach((b, j) => (arrays[`w${j + 1}`] = b.w));
  writeModelFile(path, {
    meta: {
      format: FORMAT, ...model.meta, epsilon: p.epsilon, kappa: p.kappa, heuristic: p.heuristic, lambdaInf: p.lambdaInf,
      complete: p.complete, validDownTo: p.validDownTo, stopReason: p.stopReason,
      // Fields left undefined (e.g. testError without a test set) are dropped: JSON has no undefined.
      breakpoints: p.breakpoints.map(({ w: _w, ...rest }) => Object.fromEntries(Object.entries(rest).filter(([, x]) => x !== undefined))),
    },
    arrays,
  }, options);
}

export function isPathFile(meta: Record<string, unknown>): boolean {
  return meta.format === FORMAT;
}

/** Reads a path file written by `savePath`. */
export function loadPath(path: string): StoredPath {
  const { meta, arrays } = readModelFile(path);
  if (!isPathFile(meta)) throw new FormatError(`not a gapbcfw path file (format '${String(meta.format)}')`, path);
  const records = meta.breakpoints as Omit<Breakpoint, 'w'>[];
  const wInf = arrays.wInf;
  if (!(wInf instanceof Float64Array) || !Array.isArray(records)) throw new FormatError('path file lacks wInf or breakpoints', path);
  const finite = (w: Float64Array, name: string) => {
    const bad = w.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) throw new FormatError(`${name}[${bad}] is ${w[bad]}: weights must be finite`, path);
  };
  finite(wInf, 'wInf');
  const breakpoints = records.map((r, j) => {
    const w = arrays[`w${j + 1}`];
    if (!(w instanceof Float64Array) || w.length !== wInf.length) throw new FormatError(`path file lacks the weights of breakpoint ${j + 1}`, path);
    finite(w, `w${j + 1}`);
    return { ...r, w };
  });
  const { task, spec, fields } = readModelDescription(meta, arrays, path);
  const { epsilon, kappa, heuristic, lambdaInf, complete, validDownTo, stopReason } = meta as unknown as StoredPath;
  return { task, spec, fields, epsilon, kappa, heuristic, lambdaInf, complete, validDownTo, stopReason, wInf, breakpoints };
}
