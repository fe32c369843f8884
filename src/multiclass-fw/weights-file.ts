/**
 * The weight file of `multiclass-fw --out`: a gapbcfw model file (JSON header + little-endian arrays) holding W
 * feature-major (W[j * numClasses + k] = weight of class k on feature j) and what produced it.
 * @module
 */
import { FormatError } from '../core/errors.js';
import { readModelFile, writeModelFile } from '../io/model-file.js';
import type { OutputOptions } from '../io/output.js';

const FORMAT = 'gapbcfw-multiclass-fw';
const LAYOUT = 'feature-major: W[j * numClasses + k] = weight of class k on feature j';

/** A trained nuclear-norm multinomial logistic regression and how it was trained. */
export interface MulticlassFwWeights {
  /** numFeatures x numClasses, feature-major. */
  W: Float64Array;
  solver: string;
  tau: number;
  numFeatures: number;
  numClasses: number;
  labelNames: readonly string[];
  /** Whether a constant feature 1 was appended (the last feature). */
  bias: boolean;
  iterations: number;
  objective: number;
}

/** Writes a weight file (`-` is `options.stdout`). */
export function saveMulticlassFwWeights(path: string, m: MulticlassFwWeights, options?: OutputOptions): void {
  const { W, ...rest } = m;
  writeModelFile(path, { meta: { format: FORMAT, layout: LAYOUT, ...rest, labelNames: [...m.labelNames] }, arrays: { W } }, options);
}

/** Reads a weight file written by {@link saveMulticlassFwWeights}. @throws FormatError naming the file when a field is missing or inconsistent. */
export function loadMulticlassFwWeights(path: string): MulticlassFwWeights {
  const { meta, arrays } = readModelFile(path);
  if (meta.format !== FORMAT) throw new FormatError(`not a multiclass-fw weight file (format '${String(meta.format)}')`, path);
  const { solver, tau, numFeatures: F, numClasses: K, labelNames, bias, iterations, objective } = meta as Record<string, unknown>;
  const W = arrays.W;
  const posInt = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 1;
  if (!posInt(F) || !posInt(K)) throw new FormatError('numFeatures and numClasses must be positive integers', path);
  if (!(W instanceof Float64Array) || W.length !== (F as number) * (K as number)) throw new FormatError(`W must hold numFeatures x numClasses = ${(F as number) * (K as number)} float64 values`, path);
  if (!Array.isArray(labelNames) || labelNames.length !== K || labelNames.some((x) => typeof x !== 'string')) throw new FormatError('labelNames must list numClasses names', path);
  const bad = W.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) throw new FormatError(`W[${bad}] is ${W[bad]}: weights must be finite`, path);
  return {
    W, solver: String(solver), tau: Number(tau), numFeatures: F as number, numClasses: K as number, labelNames: labelNames as string[],
    bias: bias === true, iterations: Number(iterations), objective: Number(objective),
  };
}
