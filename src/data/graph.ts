/**
 * The `graph:` JSON Lines format (docs/models/graphs.md): one example per line, a JSON object with
 *
 *   nodes         node feature rows: dense `[x_0, ..., x_{F-1}]` or sparse `{"indices": [...], "values": [...]}`
 *                 (0-based feature indices, increasing), mixed freely;
 *   edges         `[u, v]` pairs of 0-based node indices (no self-loops, no edge twice in either direction);
 *   edgeFeatures  optional: one dense row per edge, of one length Fe across the file (present on every line or none);
 *   labels        one label 0..K-1 per node;
 *   weights       optional: one loss weight > 0 per node (e.g. superpixel areas; default 1);
 *   name or id    optional: a string naming the example.
 *
 * Other keys are ignored; blank lines are skipped; files may be gzip-compressed. F is the dense rows' length (every
 * dense row must have it) or, with sparse rows only, the largest index + 1; K is the largest label + 1 (or the
 * model's). Any violation is a FormatError naming the file and line.
 * @module
 */
import { FormatError } from '../core/errors.js';
import { withNodeWeights, type GraphInput, type GraphLabel } from '../models/graph.js';
import { readDataFile, textLines } from './paths.js';

/** A `graph:` file read: its examples (ground truths carry their node weights), shape and names. */
export interface GraphData {
  inputs: GraphInput[];
  labels: GraphLabel[];
  /** F: node features. */
  numFeatures: number;
  /** K: labels. */
  numLabels: number;
  /** Fe: edge features (0: none). */
  numEdgeFeatures: number;
  /** Whether the examples carry node weights. */
  weighted: boolean;
}

/** The shape a file must have (a test file read for a training file or a model). */
export interface GraphShape {
  numFeatures: number;
  numLabels: number;
  numEdgeFeatures: number;
}

/** Largest F, K or Fe a file may call for by itself (its weights are F x K doubles). */
const MAX_DIMENSION = 1e7;

/** One line's example, with what the file's shape is checked against once every line is read. */
interface ParsedLine {
  line: number;
  input: GraphInput;
  label: GraphLabel;
  /** Lengths of its dense node rows (distinct), its largest feature index (-1: none) and label. */
  denseLengths: number[];
  maxIndex: number;
  maxLabel: number;
  /** Length of its edge feature rows (undefined: none given). */
  edgeFeatureLength?: number;
  weighted: boolean;
}

/**
 * Reads a `graph:` file. With `shape`, the file must fit it (a test set, or data for a trained model).
 * @throws FormatError (file and line) on a malformed line; InputError when the file cannot be read.
 */
export function readGraphFile(path: string, shape?: GraphShape): GraphData {
  const lines: ParsedLine[] = [];
  for (const { line, lineNo } of textLines(readDataFile(path))) {
    if (line.trim() === '') continue;
    lines.push(parseLine(line, lineNo, (why) => {
      throw new FormatError(why, path, lineNo);
    }));
  }
  if (lines.length === 0) throw new FormatError('no examples (the file is empty)', path);
  // The file's shape: dense rows of one length F; edge features on every line with edges or on none, of one length.
  const dense = lines.find((p) => p.denseLengths.length > 0);
  const edged = lines.filter((p) => p.input.edgeFrom.length > 0);
  const featured = edged.find((p) => p.edgeFeatureLength !== undefined);
  const numFeatures = shape?.numFeatures ?? (dense ? dense.denseLengths[0]! : lines.reduce((m, p) => Math.max(m, p.maxIndex), -1) + 1);
  const numLabels = shape?.numLabels ?? lines.reduce((m, p) => Math.max(m, p.maxLabel), -1) + 1;
  const numEdgeFeatures = shape?.numEdgeFeatures ?? featured?.edgeFeatureLength ?? 0;
  if (numFeatures < 1) throw new FormatError('the nodes have no features (every row is empty)', path);
  if (numFeatures > MAX_DIMENSION) throw new FormatError(`a feature index of ${numFeatures - 1} calls for more than ${MAX_DIMENSION} features`, path);
  if (!shape && numLabels < 2) throw new FormatError(`every node is labelled ${numLabels - 1}: training needs at least two labels`, path);
  // Where the expected shape comes from, in messages.
  const whose = (p: ParsedLine | undefined) => (shape ? 'the model has' : `line ${p!.line} has`);
  for (const p of lines) {
    const fail = (why: string): never => {
      throw new FormatError(why, path, p.line);
    };
    const other = p.denseLengths.find((n) => n !== numFeatures);
    if (other !== undefined) fail(`a dense node row has ${other} features; ${whose(dense)} ${numFeatures}`);
    if (p.maxIndex >= numFeatures) fail(`a node has feature index ${p.maxIndex} (features are 0..${numFeatures - 1})`);
    if (p.maxLabel >= numLabels) fail(`a node is labelled ${p.maxLabel}; labels are 0..${numLabels - 1}${shape ? ' (as the model)' : ''}`);
    if (p.input.edgeFrom.length === 0) {
      if (numEdgeFeatures > 0) p.input.edgeFeatures = new Float32Array(0);
      continue;
    }
    if (p.edgeFeatureLength === undefined && numEdgeFeatures > 0) fail(`no edgeFeatures; ${whose(featured)} ${numEdgeFeatures} per edge`);
    if (p.edgeFeatureLength !== undefined && numEdgeFeatures === 0) fail(`edgeFeatures given; ${shape ? 'the model has none' : `line ${edged.find((q) => q.edgeFeatureLength === undefined)!.line} has none`}`);
    if (p.edgeFeatureLength !== undefined && p.edgeFeatureLength !== numEdgeFeatures) fail(`edge feature rows of ${p.edgeFeatureLength} values; ${whose(featured)} ${numEdgeFeatures}`);
  }
  return {
    inputs: lines.map((p) => p.input),
    labels: lines.map((p) => p.label),
    numFeatures,
    numLabels,
    numEdgeFeatures,
    weighted: lines.some((p) => p.weighted),
  };
}

/** Parses and checks one line (everything that does not depend on the rest of the file). */
function parseLine(line: string, lineNo: number, fail: (why: string) => never): ParsedLine {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch (e) {
    return fail(`not a JSON object (${(e as Error).message})`);
  }
  if (o === null || typeof o !== 'object' || Array.isArray(o)) fail('not a JSON object');
  const nodes = o.nodes;
  if (!Array.isArray(nodes) || nodes.length === 0) fail("'nodes' must be a non-empty array of feature rows");
  const rows = (nodes as unknown[]).map((row, i) => nodeRow(row, i, fail));
  const N = rows.length;
  const labels = o.labels;
  if (!Array.isArray(labels) || labels.length !== N) fail(`'labels' must list one label per node (${N})`);
  (labels as unknown[]).forEach((k, i) => (Number.isInteger(k) && (k as number) >= 0) || fail(`'labels'[${i}] is ${JSON.stringify(k)} (labels are integers 0..K-1)`));
  const edges = o.edges;
  if (!Array.isArray(edges)) fail("'edges' must be an array of [u, v] pairs ([] for none)");
  const seen = new Set<number>();
  (edges as unknown[]).forEach((e, k) => {
    if (!Array.isArray(e) || e.length !== 2 || !e.every((u) => Number.isInteger(u))) fail(`edge ${k} must be a pair [u, v] of node indices`);
    const [u, v] = e as [number, number];
    if (u < 0 || v < 0 || u >= N || v >= N) fail(`edge ${k} is [${u}, ${v}]; nodes are 0..${N - 1}`);
    if (u === v) fail(`edge ${k} is a self-loop [${u}, ${v}]`);
    const key = Math.min(u, v) * N + Math.max(u, v);
    if (seen.has(key)) fail(`edge ${k} [${u}, ${v}] joins two nodes already joined`);
    seen.add(key);
  });
  const E = (edges as unknown[]).length;
  let edgeFeatures: number[][] | undefined;
  if (o.edgeFeatures !== undefined) {
    if (!Array.isArray(o.edgeFeatures) || o.edgeFeatures.length !== E) fail(`'edgeFeatures' must list one row per edge (${E})`);
    edgeFeatures = (o.edgeFeatures as unknown[]).map((row, k) => {
      if (!Array.isArray(row) || row.length === 0 || !row.every((x) => typeof x === 'number' && Number.isFinite(x))) fail(`'edgeFeatures'[${k}] must be a non-empty array of finite numbers`);
      if (row.length !== (o.edgeFeatures as unknown[][])[0]!.length) fail(`'edgeFeatures'[${k}] has ${row.length} values, 'edgeFeatures'[0] ${(o.edgeFeatures as unknown[][])[0]!.length}`);
      return row as number[];
    });
  }
  let weights: number[] | undefined;
  if (o.weights !== undefined) {
    if (!Array.isArray(o.weights) || o.weights.length !== N || !o.weights.every((x) => typeof x === 'number' && x > 0 && Number.isFinite(x))) fail(`'weights' must list one finite weight > 0 per node (${N})`);
    weights = o.weights as number[];
  }
  const name = o.name ?? o.id;
  if (name !== undefined && typeof name !== 'string') fail("'name' (or 'id') must be a string");
  const denseLengths = [...new Set(rows.flatMap((r) => (r.dense === undefined ? [] : [r.dense])))];
  const label = Int32Array.from(labels as number[]);
  if (weights) withNodeWeights(label, Float64Array.from(weights));
  return {
    line: lineNo,
    input: toInput(rows, edges as [number, number][], edgeFeatures, name as string | undefined),
    label,
    denseLengths,
    maxIndex: Math.max(-1, ...rows.map((r) => r.indices[r.indices.length - 1] ?? -1)),
    maxLabel: Math.max(...label),
    ...(edgeFeatures && E > 0 ? { edgeFeatureLength: edgeFeatures[0]!.length } : {}),
    weighted: weights !== undefined,
  };
}

/** A node row as {@link NodeRow}. */
/** A node's features: sparse indices and values (zeros dropped); a dense row keeps its length. */
interface NodeRow {
  indices: number[];
  values: number[];
  dense?: number;
}

function nodeRow(row: unknown, i: number, fail: (why: string) => never): NodeRow {
  const finite = (x: unknown) => typeof x === 'number' && Number.isFinite(x);
  if (Array.isArray(row)) {
    if (!row.every(finite)) fail(`node ${i}: a dense row must hold finite numbers`);
    const indices: number[] = [];
    const values: number[] = [];
    row.forEach((x: number, j) => {
      if (x !== 0) {
        indices.push(j);
        values.push(x);
      }
    });
    return { indices, values, dense: row.length };
  }
  const r = row as { indices?: unknown; values?: unknown } | null;
  if (r === null || typeof r !== 'object' || !Array.isArray(r.indices) || !Array.isArray(r.values) || r.indices.length !== r.values.length) {
    fail(`node ${i}: a row must be an array of numbers or {"indices": [...], "values": [...]} of one length`);
  }
  const indices = r!.indices as unknown[];
  indices.forEach((j, p) => {
    if (!Number.isInteger(j) || (j as number) < 0 || (p > 0 && (j as number) <= (indices[p - 1] as number))) fail(`node ${i}: sparse indices must be increasing integers >= 0`);
  });
  if (!(r!.values as unknown[]).every(finite)) fail(`node ${i}: sparse values must be finite numbers`);
  return { indices: indices as number[], values: r!.values as number[] };
}

/** The typed arrays of an example. */
function toInput(rows: NodeRow[], edges: [number, number][], edgeFeatures: number[][] | undefined, name: string | undefined): GraphInput {
  const N = rows.length;
  const rowStart = new Int32Array(N + 1);
  rows.forEach((r, i) => (rowStart[i + 1] = rowStart[i]! + r.indices.length));
  const indices = new Int32Array(rowStart[N]!);
  const values = new Float32Array(rowStart[N]!);
  rows.forEach((r, i) => {
    indices.set(r.indices, rowStart[i]);
    values.set(r.values, rowStart[i]);
  });
  const input: GraphInput = { numNodes: N, rowStart, indices, values, edgeFrom: Int32Array.from(edges, (e) => e[0]), edgeTo: Int32Array.from(edges, (e) => e[1]) };
  if (edgeFeatures && edges.length > 0) input.edgeFeatures = Float32Array.from(edgeFeatures.flat());
  if (name !== undefined) input.name = name;
  return input;
}
