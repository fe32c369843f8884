/**
 * The LIBSVM multi-label format (`multilabel:FILE`; docs/models/multilabel.md), one example per line:
 *
 *   l1,l2,... idx:val idx:val ...
 *
 * labels are 0-based label indices, comma-separated without spaces, in any order (an empty label set: the line
 * starts with its first `idx:val`, or is only features); feature indices are 1-based and increasing, as in LIBSVM.
 * `#` starts a comment; blank lines are skipped; files may be gzip-compressed. L is the largest label + 1 and F the
 * largest feature index (or the model's). Also the label graphs of the multi-label model: none, the Chow-Liu tree of
 * the training labels, or every pair.
 * @module
 */
import { FormatError } from '../core/errors.js';
import type { SparseVector } from '../core/vector.js';
import { readDataFile, textLines } from './paths.js';

/** A multi-label file read: sparse feature rows and 0/1 label vectors (Int32Array of L entries). */
export interface MultilabelData {
  rows: SparseVector[];
  labels: Int32Array[];
  /** F: features (the largest index, or the fixed count). */
  numFeatures: number;
  /** L: labels. */
  numLabels: number;
}

/** Largest F or L a file may call for by itself. */
const MAX_DIMENSION = 1e7;
const NUMBER_RE = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a multi-label LIBSVM file; with `shape` the file must fit it (a test set, or data for a trained model).
 * @throws FormatError naming the file and line on a malformed line; InputError when the file cannot be read.
 */
export function readMultilabelFile(path: string, shape?: { numFeatures: number; numLabels: number }): MultilabelData {
  const rows: SparseVector[] = [];
  const sets: number[][] = [];
  let maxIndex = 0;
  let maxLabel = -1;
  for (const { line: raw, lineNo } of textLines(readDataFile(path))) {
    const fail = (why: string): never => {
      throw new FormatError(why, path, lineNo);
    };
    const hash = raw.indexOf('#');
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (line === '') continue;
    const tokens = line.split(/\s+/);
    const set: number[] = [];
    if (!tokens[0]!.includes(':')) {
      for (const t of tokens.shift()!.split(',')) {
        if (!/^\d+$/.test(t)) fail(`label '${t}' is not a label index 0, 1, ... (labels are comma-separated, without spaces)`);
        const k = Number(t);
        if (set.includes(k)) fail(`label ${k} appears twice`);
        if (shape && k >= shape.numLabels) fail(`label ${k}; the model has labels 0..${shape.numLabels - 1}`);
        set.push(k);
        maxLabel = Math.max(maxLabel, k);
      }
    }
    const indices = new Int32Array(tokens.length);
    const values = new Float64Array(tokens.length);
    tokens.forEach((t, p) => {
      const colon = t.indexOf(':');
      const index = t.slice(0, colon);
      const value = t.slice(colon + 1);
      if (colon < 0 || !/^\d+$/.test(index) || Number(index) < 1) fail(`'${t}' is not idx:val with a 1-based feature index`);
      if (!NUMBER_RE.test(value)) fail(`'${t}': the value is not a finite number`);
      const j = Number(index);
      if (p > 0 && j <= indices[p - 1]! + 1) fail(`feature ${j} after ${indices[p - 1]! + 1}: indices must increase`);
      if (shape && j > shape.numFeatures) fail(`feature ${j}; the model has features 1..${shape.numFeatures}`);
      indices[p] = j - 1;
      values[p] = Number(value);
      maxIndex = Math.max(maxIndex, j);
    });
    rows.push({ indices, values, nnz: tokens.length });
    sets.push(set);
  }
  if (rows.length === 0) throw new FormatError('no examples (the file is empty)', path);
  const numFeatures = shape?.numFeatures ?? maxIndex;
  const numLabels = shape?.numLabels ?? maxLabel + 1;
  if (numFeatures < 1) throw new FormatError('no example has a feature', path);
  if (numFeatures > MAX_DIMENSION || numLabels > MAX_DIMENSION) throw new FormatError(`the file calls for ${numFeatures} features and ${numLabels} labels (at most ${MAX_DIMENSION})`, path);
  if (numLabels < 1) throw new FormatError('no example has a label: the number of labels is unknown', path);
  const labels = sets.map((set) => {
    const y = new Int32Array(numLabels);
    for (const k of set) y[k] = 1;
    return y;
  });
  return { rows, labels, numFeatures, numLabels };
}

/** The label graphs of the multi-label model. */
export const LABEL_GRAPHS = ['independent', 'tree', 'full'] as const;
/** A label graph: no edges, the Chow-Liu tree of the training labels, or every pair. */
export type LabelGraph = (typeof LABEL_GRAPHS)[number];

/** The edges [l, m] (l < m) of a label graph over L labels; the tree is the Chow-Liu tree of `labels`. */
export function labelGraphEdges(kind: LabelGraph, numLabels: number, labels: readonly Int32Array[]): [number, number][] {
  if (kind === 'independent') return [];
  if (kind === 'tree') return chowLiuTree(labels, numLabels);
  const edges: [number, number][] = [];
  for (let l = 0; l < numLabels; l++) for (let m = l + 1; m < numLabels; m++) edges.push([l, m]);
  return edges;
}

/**
 * The Chow-Liu tree of binary label vectors (C. Chow and C. Liu, IEEE Trans. Inf. Theory 14(3), 1968): the
 * maximum-weight spanning tree of the complete graph over the labels weighted by the empirical mutual information
 * of each pair, grown by Prim's algorithm from label 0 (ties: the smaller pair). Edges [l, m] with l < m.
 */
export function chowLiuTree(labels: readonly Int32Array[], numLabels: number): [number, number][] {
  const n = labels.length;
  const info = (l: number, m: number) => {
    const count = [0, 0, 0, 0];
    for (const y of labels) count[2 * y[l]! + y[m]!]!++;
    let mi = 0;
    for (let a = 0; a < 2; a++) {
      for (let b = 0; b < 2; b++) {
        const joint = count[2 * a + b]! / n;
        const pa = (count[2 * a]! + count[2 * a + 1]!) / n;
        const pb = (count[b]! + count[2 + b]!) / n;
        if (joint > 0) mi += joint * Math.log(joint / (pa * pb));
      }
    }
    return mi;
  };
  const inTree = new Uint8Array(numLabels);
  const best = new Float64Array(numLabels).fill(-Infinity);
  const from = new Int32Array(numLabels);
  const edges: [number, number][] = [];
  let next = 0;
  for (let added = 0; added < numLabels; added++) {
    inTree[next] = 1;
    if (added > 0) edges.push([Math.min(next, from[next]!), Math.max(next, from[next]!)]);
    const joined = next;
    next = -1;
    for (let m = 0; m < numLabels; m++) {
      if (inTree[m]) continue;
      const w = info(joined, m);
      if (w > best[m]!) {
        best[m] = w;
        from[m] = joined;
      }
      if (next < 0 || best[m]! > best[next]!) next = m;
    }
  }
  return edges;
}
