/**
 * Users' own sequence labelling on the sparse chain: `seq:FILE` (CRFsuite's attribute format) and
 * `conll-columns:FILE` (CoNLL column files, attributes from templates). Labels and attributes become
 * dictionaries kept in the model file (spec.labelNames, spec.features); a columns model also keeps its
 * templates and tag column (task fields). Metrics: token accuracy, per-label P/R/F1 (micro, macro) and span F1
 * per type for BIO/IOB2/BIOES labels. Predictions: one label per line, a blank line between sequences (as
 * `crfsuite tag` writes them); raw input (a file or stdin) is tagged sequence by sequence as it streams in.
 * @module
 */
import { ArrayDataset } from '../core/dataset.js';
import { check, FormatError, InputError } from '../core/errors.js';
import type { StructuredModel } from '../core/problem.js';
import { FeatureDictionary } from '../data/conll-features.js';
import { readDataText } from '../data/paths.js';
import { encodeAttributes, encodeLabels, labelSet, parseAttributeFile, parseAttributeLine, parseLabelList, type AttributeSequence } from '../data/seq.js';
import { checkTemplatesAvoid, columnSequences, defaultTemplates, parseColumnFile, parseTemplates, splitColumns, templatesText, type Template } from '../data/templates.js';
import { sparseChainDim, type SparseSequence } from '../models/sparse-chain.js';
import { CHAIN_RULE_OPTIONS, chainOutputOf, chainScores, formatChainPrediction, isChainDecoder, namesOf } from './chains.js';
import { MIN_FREQUENCY_OPTION } from './conll.js';
import { numberValue, stringValue, writeText } from './common.js';
import type { SparseChainSpec } from './model-kinds.js';
import type { ModelDescription, OptionSpec, RawPrediction, Task, TaskFields } from './types.js';

/** The attribute-source identifiers kept in a model's dictionary. */
const SOURCE = { seq: 'crfsuite-attributes-v1', 'conll-columns': 'conll-columns-v1' } as const;
type SequenceKind = keyof typeof SOURCE;

const SEQ_KINDS: SequenceKind[] = ['seq', 'conll-columns'];
const LABELS_OPTION: OptionSpec = { name: 'labels', type: 'string', value: 'A,B,...', help: 'labels the model knows besides those of the training set (e.g. ones only the test set has)', use: 'train', tasks: SEQ_KINDS };
const TEMPLATE_OPTION: OptionSpec = { name: 'template', type: 'string', value: 'FILE', input: true, help: 'attribute templates, one per line (w[-1]|w[0], suf3[0], c2[1], bias; docs/models/sequences.md)', default: 'word, lower-case, shape, prefixes and suffixes 1-4, middle columns, each at -2..2', use: 'train', tasks: ['conll-columns'] };
const TAG_COLUMN_OPTION: OptionSpec = { name: 'tag-column', type: 'integer', value: 'N', min: 2, max: 10000, help: 'the column (1-based) holding the tags', default: 'the last', use: 'train', tasks: ['conll-columns'] };

/** How a kind turns a file into attribute sequences (a columns file by its templates and tag column). */
interface Reader {
  kind: SequenceKind;
  templates?: Template[];
  tagColumn?: number;
  /** Columns of a labelled line. */
  columns?: number;
}

/** A labelled set: encoded sequences, the gold label names and the line of every sequence. */
class SequenceSet extends ArrayDataset<SparseSequence, Int32Array> {
  constructor(xs: readonly SparseSequence[], ys: readonly Int32Array[], readonly gold: readonly string[][], readonly lines: readonly number[]) {
    super(xs, ys);
  }

  override slice(start: number, end = this.length): SequenceSet {
    return new SequenceSet(this.xs.slice(start, end), this.ys.slice(start, end), this.gold.slice(start, end), this.lines.slice(start, end));
  }
}

function readSequences(reader: Reader, path: string, labelled: boolean): AttributeSequence[] {
  const text = readDataText(path);
  if (reader.kind === 'seq') return parseAttributeFile(text, path, { labelled });
  const sentences = parseColumnFile(text, path);
  const width = sentences[0]!.rows[0]!.length;
  if (reader.columns === undefined) {
    check(width >= 2, `${path}: a column file needs at least the word and the tag`);
    reader.columns = width;
    reader.tagColumn ??= width;
    if (reader.tagColumn > width) throw new InputError(`--tag-column ${reader.tagColumn}: ${path} has ${width} columns`);
    checkTemplatesAvoid((reader.templates ??= defaultTemplates(reader.tagColumn)), reader.tagColumn);
  }
  const hasTags = width === reader.columns;
  if (!hasTags && !(width === reader.columns - 1 && reader.tagColumn === reader.columns)) {
    throw new FormatError(`expected ${reader.columns} columns (or ${reader.columns - 1} without the tags) as in the training file, found ${width}`, path, sentences[0]!.line);
  }
  if (labelled && !hasTags) throw new FormatError(`expected ${reader.columns} columns with the tags in column ${reader.tagColumn}, found ${width}`, path, sentences[0]!.line);
  return columnSequences(sentences, reader.templates!, reader.tagColumn!, hasTags);
}

/** The reader of a trained model (its task fields), checked. */
function readerOf(kind: SequenceKind, fields: TaskFields, file = '<model>'): Reader {
  if (kind === 'seq') return { kind };
  const { templates, tagColumn, columns } = fields.meta as { templates?: unknown; tagColumn?: unknown; columns?: unknown };
  if (typeof templates !== 'string' || !Number.isInteger(tagColumn) || !Number.isInteger(columns)) {
    throw new FormatError('model header: a conll-columns model needs fields templates (text), tagColumn and columns', file);
  }
  return { kind, templates: parseTemplates(templates, `${file} (templates)`), tagColumn: tagColumn as number, columns: columns as number };
}

function encodeSet(sequences: readonly AttributeSequence[], dictionary: FeatureDictionary, ids: ReadonlyMap<string, number>, file: string, unknown: 'error' | 'mark'): SequenceSet {
  return new SequenceSet(
    sequences.map((s) => encodeAttributes(dictionary, s)),
    sequences.map((s) => encodeLabels(s.labels, ids, { file, line: s.line }, unknown)),
    sequences.map((s) => s.labels),
    sequences.map((s) => s.line),
  );
}

function sequenceTask(kind: SequenceKind): Task {
  const seq = kind === 'seq';
  return {
    kind,
    data: `${kind}:FILE`,
    summary: seq
      ? "your own sequences in CRFsuite's format (LABEL<TAB>ATTR[:WEIGHT]..., a blank line between sequences); --test seq:FILE"
      : 'CoNLL column files (WORD ... TAG, a blank line between sentences), attributes from templates; --test conll-columns:FILE',
    predictions: 'text',
    separateTest: true,
    // Mean normalised Hamming losses of tagging data are small (mostly O tokens): 0.1 would stop far from the optimum.
    defaults: { gapThreshold: 0.01 },
    options: [MIN_FREQUENCY_OPTION, LABELS_OPTION, ...(seq ? [] : [TEMPLATE_OPTION, TAG_COLUMN_OPTION]), ...CHAIN_RULE_OPTIONS],
    checkFields: (fields, file) => void readerOf(kind, fields, file),
    async load(path, o) {
      const trained = o.model;
      const templateFile = stringValue(o.values, 'template');
      const reader: Reader = trained
        ? readerOf(kind, trained.fields)
        : { kind, templates: templateFile === undefined ? undefined : parseTemplates(readDataText(templateFile), templateFile), tagColumn: numberValue(o.values, 'tag-column') };
      let train = readSequences(reader, path, true);
      if (o.limit !== undefined) train = train.slice(0, o.limit);
      let test = o.test === undefined ? undefined : readSequences(reader, o.test, true);
      if (test && o.testLimit !== undefined) test = test.slice(0, o.testLimit);
      let spec: SparseChainSpec;
      let dictionary: FeatureDictionary;
      if (trained) {
        spec = trained.spec as SparseChainSpec;
        dictionary = FeatureDictionary.fromJSON(spec.features, SOURCE[kind]);
      } else {
        const extra = stringValue(o.values, 'labels');
        const labelNames = labelSet(train, extra === undefined ? [] : parseLabelList(extra));
        dictionary = FeatureDictionary.build(train.map((s) => s.attributes), { minFrequency: numberValue(o.values, 'min-frequency') ?? 1, templates: SOURCE[kind] });
        if (dictionary.size === 0) throw new InputError(`min frequency ${dictionary.minFrequency} (--min-frequency) leaves no attribute of ${path}; lower it`);
        spec = { kind: 'sparse-chain', numFeatures: dictionary.size, numLabels: labelNames.length, labelNames, features: dictionary.toJSON() };
      }
      const ids = new Map(spec.labelNames.map((name, k) => [name, k]));
      const trainSet = encodeSet(train, dictionary, ids, path, trained ? 'mark' : 'error');
      const testSet = test && encodeSet(test, dictionary, ids, o.test!, 'mark');
      const sets = { train: trainSet, test: testSet };
      const scores = (part: 'train' | 'test', predictions: readonly unknown[]) => chainScores(sets[part]!.gold, predictions as Int32Array[], spec.labelNames);
      const d = sparseChainDim(spec.numFeatures, spec.numLabels);
      return {
        task: kind,
        spec,
        train: trainSet,
        test: testSet,
        description:
          `${kind}: ${train.length} train${test ? ` / ${test.length} test` : ''} sequences, ${spec.numLabels} labels, ` +
          `${spec.numFeatures} attributes (min frequency ${dictionary.minFrequency}), d = ${d}`,
        fields: seq ? { meta: {}, arrays: {} } : { meta: { templates: templatesText(reader.templates!), tagColumn: reader.tagColumn, columns: reader.columns }, arrays: {} },
        metrics: (part, predictions) => scores(part, predictions).metrics,
        tables: (part, predictions) => scores(part, predictions).tables,
        writer: (_part, target) => ({
          write: async (_i, y) => {
            if (target.text) await writeText(target.text, `${namesOf(spec.labelNames, y as Int32Array).join('\n')}\n\n`);
          },
          finish: async () => ({}),
        }),
      };
    },
    raw: (model, w, build) => tagStream(kind, model, w, build()),
  };
}

/**
 * Tags raw input sequence by sequence as it streams in (a blank line ends a sequence): CRFsuite item lines (the
 * label field may be empty) or column lines (with or without the tag column). When every item carries a label the
 * summary has the metrics.
 */
function tagStream(kind: SequenceKind, description: ModelDescription, w: Float64Array, model: StructuredModel<unknown, unknown>): RawPrediction {
  const spec = description.spec as SparseChainSpec;
  const dictionary = FeatureDictionary.fromJSON(spec.features, SOURCE[kind]);
  const reader = readerOf(kind, description.fields);
  return {
    async run(lines, target, signal) {
      const output = chainOutputOf(target.values);
      if (output && !isChainDecoder(model)) throw new InputError('this model has no chain decoder');
      const gold: string[][] = [];
      const predicted: Int32Array[] = [];
      let labelled = true;
      let tokens = 0;
      let lineNo = 0;
      let block: AttributeSequence | null = null;
      let rows: string[][] = [];
      const flush = async () => {
        if (block === null) return;
        const s: AttributeSequence = kind === 'seq' ? block : columnsBlock(reader, rows, block.line, target.name);
        const x = encodeAttributes(dictionary, s);
        const y = model.decode(w, x) as Int32Array;
        const index = predicted.length;
        if (s.labels.every((l) => l !== '')) gold.push(s.labels);
        else labelled = false;
        predicted.push(y);
        tokens += y.length;
        const text = output && isChainDecoder(model) ? formatChainPrediction(model, w, x, spec.labelNames, output, index) : `${namesOf(spec.labelNames, y).join('\n')}\n\n`;
        if (target.text) await writeText(target.text, text);
        block = null;
        rows = [];
      };
      for await (const line of lines) {
        lineNo++;
        if (signal?.aborted) break;
        if (line.trim() === '') {
          await flush();
          continue;
        }
        block ??= { labels: [], attributes: [], weights: [], line: lineNo };
        if (kind === 'seq') {
          const item = parseAttributeLine(line, target.name, lineNo);
          block.labels.push(item.label);
          block.attributes.push(item.attributes);
          block.weights.push(item.weights);
        } else rows.push(splitColumns(line));
      }
      await flush();
      if (predicted.length === 0) throw new FormatError('no items', target.name);
      const metrics = labelled ? chainScores(gold, predicted, spec.labelNames).metrics : {};
      return { sequences: predicted.length, tokens, ...metrics };
    },
  };
}

/** A block of column lines as one attribute sequence (tags read when the lines have the tag column). */
function columnsBlock(reader: Reader, rows: string[][], line: number, name: string): AttributeSequence {
  const width = rows[0]!.length;
  const hasTags = width === reader.columns;
  const bad = rows.findIndex((r) => r.length !== width);
  if (bad >= 0) throw new FormatError(`expected ${width} columns like the line above, found ${rows[bad]!.length}`, name, line + bad);
  if (!hasTags && !(width === reader.columns! - 1 && reader.tagColumn === reader.columns)) {
    throw new FormatError(`expected ${reader.columns} columns (or ${reader.columns! - 1} without the tags), found ${width}`, name, line);
  }
  return columnSequences([{ rows, line }], reader.templates!, reader.tagColumn!, hasTags)[0]!;
}

export const seqTask = sequenceTask('seq');
export const columnsTask = sequenceTask('conll-columns');
