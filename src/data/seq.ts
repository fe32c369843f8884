/**
 * Users' own sequence-labelling data, for the sparse chain: CRFsuite's attribute format (`seq:FILE`) and CoNLL
 * column files (`conll-columns:FILE`, attributes from templates: src/data/templates.ts), read into labelled
 * sequences of attribute strings; the label set; and the encoding through a {@link FeatureDictionary}.
 *
 * CRFsuite's format: one item per line, `LABEL<TAB>ATTRIBUTE<TAB>ATTRIBUTE...`, an empty line between
 * sequences. An attribute is `NAME` (value 1) or `NAME:WEIGHT` (a real scale); a `:` or `\` inside NAME is
 * written `\:` or `\\`. Empty fields (two tabs in a row, a trailing tab) are ignored.
 * @module
 */
import { check, FormatError, InputError } from '../core/errors.js';
import type { SparseSequence } from '../models/sparse-chain.js';
import type { FeatureDictionary } from './conll-features.js';
import { textLines } from './paths.js';

/** One labelled sequence of a file: per token its label and attributes (with weights, or null when all are 1). */
export interface AttributeSequence {
  /** The T labels ('' when the input has none: data to be tagged). */
  labels: string[];
  /** The T tokens' attribute names. */
  attributes: string[][];
  /** The T tokens' attribute weights (aligned with `attributes`), or null when every weight is 1. */
  weights: (Float64Array | null)[];
  /** 1-based line of the first token (token t is on line `line + t`). */
  line: number;
}

/**
 * One CRFsuite item line: its label and attributes.
 * @throws FormatError (naming `file` and `lineNo`) for a line without a tab, an empty attribute name or a bad weight.
 */
export function parseAttributeLine(line: string, file: string, lineNo: number): { label: string; attributes: string[]; weights: Float64Array | null } {
  const fields = line.split('\t');
  if (fields.length < 2) throw new FormatError(`expected LABEL<TAB>ATTRIBUTE[:WEIGHT]... (no tab in ${JSON.stringify(line.length > 40 ? `${line.slice(0, 40)}...` : line)})`, file, lineNo);
  const attributes: string[] = [];
  let weights: number[] | null = null;
  for (let j = 1; j < fields.length; j++) {
    const field = fields[j]!;
    if (field === '') continue;
    let name = field;
    let weight = 1;
    if (field.includes('\\') || field.includes(':')) {
      // Unescape \: and \\; the first unescaped ':' starts the weight.
      let out = '';
      let at = -1;
      for (let c = 0; c < field.length; c++) {
        const ch = field[c]!;
        if (ch === '\\' && (field[c + 1] === ':' || field[c + 1] === '\\')) out += field[++c]!;
        else if (ch === ':') {
          at = c;
          break;
        } else out += ch;
      }
      name = out;
      if (at >= 0) {
        const text = field.slice(at + 1);
        weight = Number(text);
        if (text.trim() === '' || !Number.isFinite(weight)) throw new FormatError(`attribute ${JSON.stringify(name)} has a bad weight ${JSON.stringify(text)} (a finite number after ':'; write \\: for a colon in a name)`, file, lineNo);
      }
    }
    if (name === '') throw new FormatError(`empty attribute name in field ${j + 1}`, file, lineNo);
    if (weight !== 1 && weights === null) weights = new Array<number>(attributes.length).fill(1);
    attributes.push(name);
    weights?.push(weight);
  }
  return { label: fields[0]!, attributes, weights: weights && Float64Array.from(weights) };
}

/** One item line of CRFsuite's format: the label and the attributes (`:` and `\` escaped; `NAME:WEIGHT` where a weight is not 1). */
export function formatAttributeLine(label: string, attributes: readonly string[], weights?: ArrayLike<number> | null): string {
  const fields = attributes.map((a, j) => {
    const name = a.replace(/[\\:]/g, (c) => `\\${c}`);
    const w = weights?.[j] ?? 1;
    return w === 1 ? name : `${name}:${w}`;
  });
  return [label, ...fields].join('\t');
}

/** Options of {@link parseAttributeFile}. */
export interface SequenceReadOptions {
  /** Whether every item needs a label (training and evaluation data). Default true. */
  labelled?: boolean;
}

/**
 * Parses a file in CRFsuite's format (see the module documentation). Lines holding only whitespace separate
 * sequences as empty ones do.
 * @throws FormatError naming the file and line of a malformed line (no tab, an empty label, a bad weight), or for a file without items.
 */
export function parseAttributeFile(text: string, file: string, options: SequenceReadOptions = {}): AttributeSequence[] {
  const labelled = options.labelled ?? true;
  return lineBlocks(text, file, 'no items: expected LABEL<TAB>ATTRIBUTE... lines').map((block) => {
    const s: AttributeSequence = { labels: [], attributes: [], weights: [], line: block[0]!.lineNo };
    for (const { line, lineNo } of block) {
      const item = parseAttributeLine(line, file, lineNo);
      if (labelled && item.label === '') throw new FormatError('empty label (the line starts with a tab)', file, lineNo);
      s.labels.push(item.label);
      s.attributes.push(item.attributes);
      s.weights.push(item.weights);
    }
    return s;
  });
}

/**
 * The blocks of non-blank lines of a text (lines holding only whitespace separate them), with their line numbers.
 * @throws FormatError naming `file` with `empty` when there is none.
 */
export function lineBlocks(text: string, file: string, empty: string): { line: string; lineNo: number }[][] {
  const out: { line: string; lineNo: number }[][] = [];
  let current: { line: string; lineNo: number }[] = [];
  let lastLine = 0;
  for (const next of textLines(text)) {
    lastLine = next.lineNo;
    if (next.line.trim() !== '') current.push(next);
    else if (current.length > 0) {
      out.push(current);
      current = [];
    }
  }
  if (current.length > 0) out.push(current);
  if (out.length === 0) throw new FormatError(empty, file, Math.max(lastLine, 1));
  return out;
}

/**
 * The labels of a task, sorted by code unit (label id = index): those of the training sequences and any `extra`
 * (labels the training set lacks but the model should know, e.g. ones only the test set has).
 */
export function labelSet(sequences: readonly { labels: readonly string[] }[], extra: readonly string[] = []): string[] {
  const seen = new Set<string>(extra);
  for (const s of sequences) for (const l of s.labels) seen.add(l);
  return [...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * A sequence's attributes through a dictionary: ids ascending per token (unseen attributes dropped); values only
 * when some weight differs from 1 (then aligned with the ids, a repeated attribute counted as often as it appears).
 */
export function encodeAttributes(dictionary: FeatureDictionary, s: Pick<AttributeSequence, 'attributes' | 'weights'>): SparseSequence {
  if (s.weights.every((w) => w === null)) return dictionary.encode(s.attributes);
  const T = s.attributes.length;
  const offsets = new Int32Array(T + 1);
  const ids: number[] = [];
  const values: number[] = [];
  for (let t = 0; t < T; t++) {
    const pairs: [number, number][] = [];
    const names = s.attributes[t]!;
    const w = s.weights[t];
    for (let j = 0; j < names.length; j++) {
      const id = dictionary.id(names[j]!);
      if (id >= 0) pairs.push([id, w ? w[j]! : 1]);
    }
    pairs.sort((a, b) => a[0] - b[0]);
    for (const [id, v] of pairs) {
      ids.push(id);
      values.push(v);
    }
    offsets[t + 1] = ids.length;
  }
  return { offsets, ids: Int32Array.from(ids), values: Float64Array.from(values) };
}

/**
 * Label ids of a sequence. A label outside the set is an error naming the file and line, or with `unknown: 'mark'`
 * the id -1 (a gold label no prediction matches: data read for a trained model).
 */
export function encodeLabels(labels: readonly string[], ids: ReadonlyMap<string, number>, where: { file: string; line: number }, unknown: 'error' | 'mark'): Int32Array {
  const y = new Int32Array(labels.length);
  for (let t = 0; t < labels.length; t++) {
    const k = ids.get(labels[t]!);
    if (k !== undefined) y[t] = k;
    else if (unknown === 'mark') y[t] = -1;
    else throw new FormatError(`label ${JSON.stringify(labels[t])} is not one of the model's ${ids.size} labels`, where.file, where.line + t);
  }
  return y;
}

/** Splits `A,B,C` (the `--labels` option) into distinct non-empty names. */
export function parseLabelList(text: string): string[] {
  const names = text.split(',');
  if (names.some((n) => n === '')) throw new InputError(`--labels: '${text}' must be a comma-separated list of non-empty labels`);
  check(new Set(names).size === names.length, `--labels: '${text}' names a label twice`);
  return names;
}
