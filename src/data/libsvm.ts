/**
 * LIBSVM / SVMlight sparse text format reader:
 *
 *   label idx:val idx:val ...   # optional comment
 *
 * Indices are 1-based and must be strictly increasing within a line; an optional `qid:N` token (SVMlight
 * ranking files) is skipped; `#` starts a comment; blank lines are skipped. Files may be gzip-compressed
 * (detected by magic bytes).
 *
 * Class ids: the distinct label tokens sorted by numeric value map to 0..K-1, and `labelNames` holds the
 * tokens. Labels are compared by numeric value, so `1`, `+1` and `1.0` are one class. To load a test file
 * consistently with a training file pass the training set's `numFeatures` (= `X.cols`) and `labelNames`.
 */
import { FormatError, InputError } from '../core/errors.js';
import type { MulticlassDataset } from '../core/data.js';
import { readDataText, textLines } from './paths.js';

/** Options of {@link loadLibsvm} / {@link parseLibsvm}. */
export interface LibsvmOptions {
  /**
   * Fixed number of features (columns). A feature index above it is an error, unless
   * `dropUnknownFeatures`. Default: the largest index found in the file.
   */
  numFeatures?: number;
  /**
   * Fixed label mapping: class id k has label `labelNames[k]`. A label not in the list is an error.
   * Default: the distinct labels of the file in increasing numeric order.
   */
  labelNames?: readonly string[];
  /** With `numFeatures`: silently drop features whose index exceeds it instead of failing. Default false. */
  dropUnknownFeatures?: boolean;
  /** Without `labelNames`: the file must have at least this many classes (training data: 2). Default 1. */
  minClasses?: number;
}

/**
 * Largest dense model (features x classes weights, 800 MB of float64) that a file may call for when it sets
 * the number of features itself (no `numFeatures`): gapbcfw's multiclass models keep one weight per feature
 * and class, so one stray index of 1e8 would otherwise allocate gigabytes for a three-line file.
 */
export const MAX_DENSE_WEIGHTS = 1e8;

const FLOAT_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const NONFINITE_RE = /^[+-]?(?:nan|inf|infinity)$/i;
const INDEX_RE = /^\d+$/;
const MAX_INDEX = 0x7fffffff;

/** Parses a numeric token; returns undefined when it is not a number, NaN for NaN/Inf spellings. */
function parseNumber(s: string): number | undefined {
  if (FLOAT_RE.test(s)) return Number(s);
  if (NONFINITE_RE.test(s)) return NaN;
  return undefined;
}

/** Numeric key of a label token (so '+1', '1' and '1.0' coincide); undefined when not a finite number. */
function labelKey(s: string): number | undefined {
  const v = parseNumber(s);
  return v === undefined || !Number.isFinite(v) ? undefined : v === 0 ? 0 : v; // -0 -> 0
}

/**
 * Loads a LIBSVM file (plain or gzip).
 *
 * @throws FormatError naming the file and 1-based line on a malformed line; InputError when the file
 *   cannot be read or an option is invalid.
 */
export function loadLibsvm(path: string, options: LibsvmOptions = {}): MulticlassDataset {
  return parseLibsvm(readDataText(path), options, path);
}

/**
 * Parses LIBSVM text. `fileNameForErrors` names the source in error messages.
 *
 * @throws FormatError (with the 1-based line) on: a non-numeric or NaN/Inf label, a token without
 *   `:`, an index that is not a positive integer (indices are 1-based), indices not strictly
 *   increasing (unsorted or duplicate), a value that is not a finite number, a label outside the fixed
 *   `labelNames`, an index above `numFeatures` (unless `dropUnknownFeatures`), or a file with no rows.
 */
export function parseLibsvm(text: string, options: LibsvmOptions = {}, fileNameForErrors = '<libsvm>'): MulticlassDataset {
  const fixedCols = options.numFeatures;
  if (fixedCols !== undefined && !(Number.isInteger(fixedCols) && fixedCols >= 0 && fixedCols <= MAX_INDEX)) {
    throw new InputError(`numFeatures must be a non-negative integer, got ${fixedCols}`);
  }
  const drop = options.dropUnknownFeatures ?? false;

  // Fixed label mapping, if given.
  let fixedMap: Map<number, number> | undefined;
  if (options.labelNames !== undefined) {
    fixedMap = new Map();
    options.labelNames.forEach((name, k) => {
      const key = labelKey(name);
      if (key === undefined) throw new InputError(`labelNames[${k}] = ${JSON.stringify(name)} is not a finite number`);
      if (fixedMap!.has(key)) throw new InputError(`labelNames[${k}] = ${JSON.stringify(name)} duplicates labelNames[${fixedMap!.get(key)}]`);
      fixedMap!.set(key, k);
    });
  }

  const rowLabelKeys: number[] = [];
  const firstSpelling = new Map<number, string>();
  const indptr: number[] = [0];
  const indices: number[] = [];
  const values: number[] = [];
  let maxIndex = 0;
  let maxIndexLine = 0;

  let lineNo = 0;
  for (const next of textLines(text)) {
    lineNo = next.lineNo;
    let line = next.line;
    const hash = line.indexOf('#');
    if (hash >= 0) line = line.slice(0, hash);
    line = line.trim();
    if (line === '') continue;
    const err = (msg: string): FormatError => new FormatError(msg, fileNameForErrors, lineNo);

    const tokens = line.split(/\s+/);
    const labelTok = tokens[0]!;
    if (labelTok.includes(',')) throw err(`multi-label line (label ${JSON.stringify(labelTok)}) is not supported`);
    if (labelTok.includes(':')) throw err(`missing label: the line starts with the feature ${JSON.stringify(labelTok)}`);
    const lv = parseNumber(labelTok);
    if (lv === undefined) throw err(`label ${JSON.stringify(labelTok)} is not a number`);
    if (!Number.isFinite(lv)) throw err(`label ${JSON.stringify(labelTok)} is not finite`);
    const key = lv === 0 ? 0 : lv;
    if (fixedMap !== undefined) {
      if (!fixedMap.has(key)) {
        throw err(`unknown label ${JSON.stringify(labelTok)} (the label mapping has ${options.labelNames!.map((s) => JSON.stringify(s)).join(', ')})`);
      }
    } else if (!firstSpelling.has(key)) {
      firstSpelling.set(key, labelTok);
    }
    rowLabelKeys.push(key);

    let prev = 0;
    for (let k = 1; k < tokens.length; k++) {
      const tok = tokens[k]!;
      const colon = tok.indexOf(':');
      if (colon < 0) throw err(`token ${k + 1} ${JSON.stringify(tok)} is not of the form index:value (missing ':')`);
      const idxTok = tok.slice(0, colon);
      const valTok = tok.slice(colon + 1);
      if (idxTok === 'qid') {
        if (!INDEX_RE.test(valTok)) throw err(`qid ${JSON.stringify(valTok)} is not a non-negative integer`);
        continue;
      }
      if (!INDEX_RE.test(idxTok)) throw err(`feature index ${JSON.stringify(idxTok)} in ${JSON.stringify(tok)} is not a positive integer`);
      const idx = Number(idxTok);
      if (idx === 0) throw err(`feature index 0 in ${JSON.stringify(tok)}: indices are 1-based`);
      if (idx > MAX_INDEX) throw err(`feature index ${idxTok} is too large (at most ${MAX_INDEX})`);
      if (idx <= prev) {
        throw err(
          idx === prev
            ? `duplicate feature index ${idx}`
            : `feature indices must be strictly increasing: ${idx} comes after ${prev}`,
        );
      }
      prev = idx;
      const v = parseNumber(valTok);
      if (v === undefined) throw err(`value ${JSON.stringify(valTok)} of feature ${idx} is not a number`);
      if (!Number.isFinite(v)) throw err(`value ${JSON.stringify(valTok)} of feature ${idx} is not finite (NaN/Inf)`);
      if (fixedCols !== undefined && idx > fixedCols) {
        if (drop) continue;
        throw err(`feature index ${idx} exceeds numFeatures = ${fixedCols} (pass dropUnknownFeatures to ignore such features)`);
      }
      if (idx > maxIndex) {
        maxIndex = idx;
        maxIndexLine = lineNo;
      }
      indices.push(idx - 1);
      values.push(v);
    }
    indptr.push(indices.length);
  }
  if (rowLabelKeys.length === 0) throw new FormatError('no examples found (the file is empty or only has comments)', fileNameForErrors, Math.max(lineNo, 1));
  if (indices.length > MAX_INDEX) throw new FormatError(`too many non-zeros (${indices.length}) for 32-bit CSR indices`, fileNameForErrors);

  let labelNames: string[];
  let classOf: Map<number, number>;
  if (fixedMap !== undefined) {
    labelNames = [...options.labelNames!];
    classOf = fixedMap;
  } else {
    const keys = [...firstSpelling.keys()].sort((a, b) => a - b);
    labelNames = keys.map((k) => firstSpelling.get(k)!);
    classOf = new Map(keys.map((k, i) => [k, i]));
  }
  const minClasses = options.minClasses ?? 1;
  if (fixedMap === undefined && labelNames.length < minClasses) {
    throw new InputError(`${fileNameForErrors}: all ${rowLabelKeys.length} examples have the label ${labelNames[0]}; training needs at least ${minClasses} classes`);
  }
  if (fixedCols === undefined && maxIndex * Math.max(labelNames.length, 2) > MAX_DENSE_WEIGHTS) {
    const distinct = new Set(indices).size;
    throw new FormatError(
      `feature index ${maxIndex} calls for a dense model of ${maxIndex} features x ${labelNames.length} classes = ` +
        `${(maxIndex * labelNames.length).toExponential(2)} weights (${((8 * maxIndex * labelNames.length) / 2 ** 30).toFixed(1)} GiB), over the limit of ` +
        `${MAX_DENSE_WEIGHTS.toExponential(0)}: the models keep one weight per feature and class. The file uses ${distinct} distinct ` +
        `features; number them 1..${distinct} (with the same map for its test file)`,
      fileNameForErrors,
      maxIndexLine,
    );
  }
  const rows = rowLabelKeys.length;
  const y = new Int32Array(rows);
  for (let r = 0; r < rows; r++) y[r] = classOf.get(rowLabelKeys[r]!)!;
  return {
    X: {
      rows,
      cols: fixedCols ?? maxIndex,
      indptr: Int32Array.from(indptr),
      indices: Int32Array.from(indices),
      values: Float64Array.from(values),
    },
    y,
    numLabels: labelNames.length,
    labelNames,
  };
}
