/**
 * Data sets for the multiclass Frank-Wolfe solvers, named `KIND:PATH` like everywhere in gapbcfw:
 * `libsvm:FILE` (LIBSVM/SVMlight text, plain or gzip) or `idx:IMAGES[,LABELS]` / `idx:DIR` (MNIST-style
 * IDX files; the labels file is inferred from the images file name when omitted). Plus the small
 * transformations the experiments need: a seeded hold-out split, a row subset, a constant bias feature.
 */
import { InputError } from '../core/errors.js';
import type { CsrMatrix, MulticlassDataset } from '../core/data.js';
import type { Rng } from '../core/rng.js';
import { loadIdxDataset } from './idx.js';
import { loadLibsvm } from './libsvm.js';

/** Data-set kinds the `multiclass-fw` command reads (`libsvm:FILE`, `idx:DIR`). */
export const MULTICLASS_DATA_KINDS = ['libsvm', 'idx'] as const;

/** How to load a test set consistently with a training set. */
export interface ShapeHint {
  numFeatures?: number;
  labelNames?: readonly string[];
}

/**
 * Loads `libsvm:FILE` or `idx:IMAGES[,LABELS]` / `idx:DIR`. With a `shape` (a training set's), the label
 * mapping is fixed and features beyond `numFeatures` are dropped (LIBSVM) or rejected (IDX).
 * @throws InputError on an unknown kind or missing path; FormatError on malformed files.
 */
export function loadMulticlassData(spec: string, shape: ShapeHint = {}): MulticlassDataset {
  const colon = spec.indexOf(':');
  const kind = spec.slice(0, Math.max(colon, 0));
  const path = spec.slice(colon + 1);
  if (!(MULTICLASS_DATA_KINDS as readonly string[]).includes(kind)) {
    throw new InputError(`data set '${spec}' must be KIND:PATH with KIND one of ${MULTICLASS_DATA_KINDS.join(', ')}`);
  }
  if (path === '') throw new InputError(`data set '${spec}' has no path`);
  if (kind === 'libsvm') {
    return loadLibsvm(path, { numFeatures: shape.numFeatures, labelNames: shape.labelNames, dropUnknownFeatures: shape.numFeatures !== undefined, minClasses: 2 });
  }
  const comma = path.indexOf(',');
  const images = comma < 0 ? path : path.slice(0, comma);
  const labels = comma < 0 ? undefined : path.slice(comma + 1);
  const data = loadIdxDataset(images, labels, { labelNames: shape.labelNames });
  if (shape.numFeatures !== undefined && data.X.cols !== shape.numFeatures) {
    throw new InputError(`${images} has ${data.X.cols} features per example, the training set ${shape.numFeatures}`);
  }
  return data;
}

/** The rows `rows` of a data set (in that order). */
export function selectRows(data: MulticlassDataset, rows: ArrayLike<number>): MulticlassDataset {
  const { X } = data;
  const indptr = new Int32Array(rows.length + 1);
  let nnz = 0;
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    if (!(Number.isInteger(i) && i >= 0 && i < X.rows)) throw new InputError(`row ${i} outside 0..${X.rows - 1}`);
    nnz += X.indptr[i + 1]! - X.indptr[i]!;
    indptr[r + 1] = nnz;
  }
  const indices = new Int32Array(nnz);
  const values = new Float64Array(nnz);
  const y = new Int32Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r]!;
    const s = X.indptr[i]!;
    const len = X.indptr[i + 1]! - s;
    indices.set(X.indices.subarray(s, s + len), indptr[r]!);
    values.set(X.values.subarray(s, s + len), indptr[r]!);
    y[r] = data.y[i]!;
  }
  return { X: { rows: rows.length, cols: X.cols, indptr, indices, values }, y, numLabels: data.numLabels, labelNames: data.labelNames };
}

/**
 * Seeded random split: a fraction `fraction` (0 < fraction < 1) of the rows becomes the test part, the
 * rest (in their original order) the training part.
 */
export function holdoutSplit(data: MulticlassDataset, fraction: number, rng: Rng): { train: MulticlassDataset; test: MulticlassDataset } {
  if (!(fraction > 0 && fraction < 1)) throw new InputError(`hold-out fraction must be in (0, 1), got ${fraction}`);
  const n = data.X.rows;
  const nTest = Math.round(fraction * n);
  if (nTest < 1 || nTest >= n) throw new InputError(`hold-out fraction ${fraction} of ${n} rows leaves an empty part`);
  const perm = rng.permutation(new Int32Array(n));
  const isTest = new Uint8Array(n);
  for (let r = 0; r < nTest; r++) isTest[perm[r]!] = 1;
  const train: number[] = [];
  const test: number[] = [];
  for (let i = 0; i < n; i++) (isTest[i] ? test : train).push(i);
  return { train: selectRows(data, train), test: selectRows(data, test) };
}

/** Appends a constant feature of value `value` (column index = old column count) to every row. */
export function withBias(data: MulticlassDataset, value = 1): MulticlassDataset {
  const X = data.X;
  const n = X.rows;
  const indptr = new Int32Array(n + 1);
  const indices = new Int32Array(X.indices.length + n);
  const values = new Float64Array(X.values.length + n);
  let p = 0;
  for (let i = 0; i < n; i++) {
    for (let q = X.indptr[i]!; q < X.indptr[i + 1]!; q++) {
      indices[p] = X.indices[q]!;
      values[p] = X.values[q]!;
      p++;
    }
    indices[p] = X.cols;
    values[p] = value;
    p++;
    indptr[i + 1] = p;
  }
  const out: CsrMatrix = { rows: n, cols: X.cols + 1, indptr, indices, values };
  return { ...data, X: out };
}
