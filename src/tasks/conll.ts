/**
 * `conll:FILE|DIR`: CoNLL-2000 chunking (WORD POS CHUNK) as sparse chains (Sha & Pereira attributes, d ~ 1.7 M);
 * DIR holds train.txt and test.txt. Metrics: chunk precision, recall and F1 by the conlleval rules and token
 * accuracy. Predictions: the input with a predicted chunk column appended; raw input (WORD POS lines, stdin or a
 * file) is tagged sentence by sentence as it streams in.
 * @module
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { check, FormatError } from '../core/errors.js';
import type { StructuredModel } from '../core/problem.js';
import { ChunkTagSet, encodeConll, formatConll, loadConll, parseConll, type ConllSet, type ConllSentence } from '../data/conll.js';
import { ChunkEvaluator, chunkScores, chunkScoresFromIds, type ChunkScores } from '../eval/chunks.js';
import { DEFAULT_MIN_FREQUENCY, FeatureDictionary, conllAttributes } from '../data/conll-features.js';
import type { SparseChainSpec } from './model-kinds.js';
import { sparseChainDim, type SparseChainModel, type SparseSequence } from '../models/sparse-chain.js';
import { flagValue, noFields, numberValue, writeText } from './common.js';
import type { ModelDescription, OptionSpec, RawPrediction, Task } from './types.js';
import { CHAIN_RULE_OPTIONS, chainOutputOf, chainScores, formatChainPrediction, isChainDecoder } from './chains.js';

/** `--min-frequency N`: the attribute dictionaries of conll, seq and conll-columns. */
export const MIN_FREQUENCY_OPTION: OptionSpec = {
  name: 'min-frequency', type: 'integer', value: 'N', min: 1, max: 1e9, help: 'attributes seen fewer than N times in training are dropped', default: '3 for conll, 1 for seq and conll-columns', use: 'train', tasks: ['conll', 'seq', 'conll-columns'],
};

export const conllTask: Task = {
  kind: 'conll',
  data: 'conll:FILE|DIR',
  summary: 'CoNLL-2000 chunking (WORD POS CHUNK); DIR = train.txt + test.txt, or --test conll:FILE',
  predictions: 'text',
  separateTest: true,
  options: [
    MIN_FREQUENCY_OPTION,
    { name: 'no-gold', type: 'flag', help: 'leave the input\'s chunk column out of the output (WORD POS PRED)', use: 'predict', tasks: ['conll'] },
    ...CHAIN_RULE_OPTIONS,
  ],
  async load(path, o) {
    const fixed = o.model?.spec.kind === 'sparse-chain' ? o.model.spec : undefined;
    const t = loadConllTask(path, { test: o.test, model: fixed, minFrequency: numberValue(o.values, 'min-frequency'), limit: o.limit, testLimit: o.testLimit });
    const sets = { train: t.train, test: t.test };
    const sentences = t.sentences;
    return {
      task: 'conll',
      spec: t.spec,
      train: t.train,
      test: t.test,
      description: t.description,
      fields: noFields(),
      metrics: (part, predictions) => chainScores(sets[part]!.tags, predictions as Int32Array[], t.spec.labelNames).metrics,
      tables: (part, predictions) => chainScores(sets[part]!.tags, predictions as Int32Array[], t.spec.labelNames).tables,
      writer: (part, target) => {
        const keepGold = !flagValue(target.values, 'no-gold');
        const list = sentences[part] ?? [];
        return {
          write: async (i, y) => {
            if (target.text) await writeText(target.text, formatConll([list[i]!], [t.tags.decode(y as Int32Array)], { keepGold }));
          },
          finish: async () => ({}),
        };
      },
    };
  },
  raw: (model, w, build) => tagStream(model, w, build()),
};

/** Tags WORD POS [CHUNK] lines sentence by sentence (a blank line ends a sentence); chunk scores when gold is present. */
function tagStream(description: ModelDescription, w: Float64Array, model: StructuredModel<unknown, unknown>): RawPrediction {
  const spec = description.spec as SparseChainSpec;
  const dictionary = FeatureDictionary.fromJSON(spec.features);
  const tags = new ChunkTagSet(spec.labelNames);
  return {
    async run(lines, target, signal) {
      const keepGold = !flagValue(target.values, 'no-gold');
      const output = chainOutputOf(target.values);
      const name = target.name;
      const evaluator = new ChunkEvaluator();
      let columns: 2 | 3 | undefined;
      let block: string[] = [];
      let first = 0;
      let lineNo = 0;
      let sentences = 0;
      let tokens = 0;
      let gold = true;
      const flush = async () => {
        if (block.length === 0) return;
        for (const s of parseConll(`${block.join('\n')}\n`, name, { columns: 'auto', firstLine: first })) {
          const has = s.chunks === null ? 2 : 3;
          columns ??= has;
          if (has !== columns) throw new FormatError(`expected ${columns} columns like the first token line, found ${has}`, name, s.line);
          const x = dictionary.encodeConll(s.words, s.pos);
          const predicted = tags.decode(model.decode(w, x) as Int32Array);
          if (s.chunks) evaluator.add(s.chunks, predicted);
          else gold = false;
          const text = output && isChainDecoder(model) ? formatChainPrediction(model, w, x, spec.labelNames, output, sentences) : formatConll([s], [predicted], { keepGold });
          sentences++;
          tokens += s.words.length;
          if (target.text) await writeText(target.text, text);
        }
        block = [];
      };
      for await (const line of lines) {
        lineNo++;
        if (signal?.aborted) break;
        if (line.trim() === '') await flush();
        else {
          if (block.length === 0) first = lineNo;
          block.push(line);
        }
      }
      await flush();
      if (sentences === 0 && !signal?.aborted) throw new FormatError('no tokens', name);
      const scores = gold ? evaluator.result() : undefined;
      return { sentences, tokens, ...(scores ? { f1: scores.f1, precision: scores.precision, recall: scores.recall, accuracy: scores.tokenAccuracy } : {}) };
    },
  };
}

/** Chunk metrics of a model on a labelled set, in the CLI's JSON keys. */
export interface ConllMetrics {
  /** Chunk F1 (conlleval rules). */
  f1: number;
  precision: number;
  recall: number;
  /** Token accuracy. */
  accuracy: number;
  /** The papers' test error: mean per-sentence normalised Hamming loss. */
  testError: number;
}

/**
 * Predicts every sequence of a set and scores it: chunk precision/recall/F1, token accuracy and the papers'
 * error (mean normalised Hamming). `labelNames` are the model's tags (spec.labelNames). With `set.tags`
 * (as {@link loadConllTask} returns) chunks are scored against those gold strings.
 */
export function conllMetrics(
  model: SparseChainModel,
  w: Float64Array,
  set: { xs: readonly SparseSequence[]; ys: readonly Int32Array[]; tags?: readonly (readonly string[])[] },
  labelNames: readonly string[],
): ConllMetrics & { scores: ChunkScores } {
  const predicted = set.xs.map((x) => model.decode(w, x));
  // Gold tag strings when the set carries them (tags outside the model's set are label -1 in ys).
  const scores = set.tags
    ? chunkScores(set.tags, predicted.map((y) => Array.from(y, (k) => labelNames[k]!)))
    : chunkScoresFromIds(set.ys, predicted, labelNames);
  let loss = 0;
  for (let i = 0; i < predicted.length; i++) loss += model.loss(set.ys[i]!, predicted[i]!);
  return { f1: scores.f1, precision: scores.precision, recall: scores.recall, accuracy: scores.tokenAccuracy, testError: set.xs.length > 0 ? loss / set.xs.length : 0, scores };
}

/** Predicted tag names of sentences with a trained sparse-chain model (features through its dictionary; unseen attributes ignored). */
export function tagSentences(spec: SparseChainSpec, model: SparseChainModel, w: Float64Array, sentences: readonly ConllSentence[]): string[][] {
  const dictionary = FeatureDictionary.fromJSON(spec.features);
  const tags = new ChunkTagSet(spec.labelNames);
  return sentences.map((s) => tags.decode(model.decode(w, dictionary.encodeConll(s.words, s.pos))));
}

/** Options of {@link loadConllTask}. */
export interface ConllTaskOptions {
  /** Test file (a path, or `conll:PATH`). Default: `test.txt` next to the training file when PATH is a folder. */
  test?: string;
  /** Spec of a trained model (eval, tag): its dictionary and tags encode the data instead of new ones. */
  model?: SparseChainSpec;
  /** Minimum number of training occurrences of an attribute to enter the dictionary. Default {@link DEFAULT_MIN_FREQUENCY}. */
  minFrequency?: number;
  /** Use only the first `limit` training sentences (and build the dictionary on them). Default all. */
  limit?: number;
  /** Use only the first `testLimit` test sentences. Default all. */
  testLimit?: number;
}

/** The training set and optional test set of `conll:PATH`, encoded for {@link SparseChainModel}. */
export interface ConllTask {
  spec: SparseChainSpec;
  train: ConllSet;
  test?: ConllSet;
  /** Human-readable summary. */
  description: string;
  /** The sentences as read (for tagging output and chunk scores). */
  sentences: { train: ConllSentence[]; test?: ConllSentence[] };
  dictionary: FeatureDictionary;
  tags: ChunkTagSet;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Loads `conll:PATH` for training or evaluation. PATH is a CoNLL file, or a folder holding `train.txt`
 * and `test.txt` (both are then used). Without `model`, the tag set and the attribute dictionary are built
 * on the training sentences; with it, the model's are used (unseen attributes are ignored; a tag the model
 * does not know is a FormatError).
 */
export function loadConllTask(path: string, options: ConllTaskOptions = {}): ConllTask {
  let trainPath = path;
  let testPath = options.test === undefined ? undefined : options.test.replace(/^conll:/, '');
  if (isDirectory(path)) {
    trainPath = join(path, 'train.txt');
    testPath ??= join(path, 'test.txt');
  }
  const limit = options.limit;
  check(limit === undefined || (Number.isInteger(limit) && limit >= 1), `limit must be a positive integer, got ${limit}`);
  const testLimit = options.testLimit;
  check(testLimit === undefined || (Number.isInteger(testLimit) && testLimit >= 0), `testLimit must be a non-negative integer, got ${testLimit}`);
  let trainSentences = loadConll(trainPath);
  if (limit !== undefined) trainSentences = trainSentences.slice(0, limit);
  let testSentences = testPath === undefined ? undefined : loadConll(testPath);
  if (testSentences && testLimit !== undefined) testSentences = testSentences.slice(0, testLimit);

  let dictionary: FeatureDictionary;
  let tags: ChunkTagSet;
  if (options.model) {
    const m = options.model;
    check(m.kind === 'sparse-chain', `a ${String(m.kind)} model cannot read conll data`);
    dictionary = FeatureDictionary.fromJSON(m.features);
    tags = new ChunkTagSet(m.labelNames);
    check(dictionary.size === m.numFeatures && tags.size === m.numLabels, 'the model spec is inconsistent (dictionary or tag count)');
  } else {
    tags = ChunkTagSet.fromSentences(trainSentences);
    dictionary = FeatureDictionary.build(
      (function* () {
        for (const s of trainSentences) yield conllAttributes(s.words, s.pos);
      })(),
      { minFrequency: options.minFrequency ?? DEFAULT_MIN_FREQUENCY },
    );
    check(dictionary.size > 0, `min frequency ${dictionary.minFrequency} (--min-frequency) leaves no attribute: none occurs that often in ${trainPath}; lower it`);
  }
  const spec: SparseChainSpec = {
    kind: 'sparse-chain',
    numFeatures: dictionary.size,
    numLabels: tags.size,
    labelNames: [...tags.names],
    features: dictionary.toJSON(),
  };
  // Tags outside the set can only occur in data the tag set was not built on (a test set, or any data read
  // with a model): they become label -1 there, always wrong, and count as gold chunks in the F1.
  const train = encodeConll(trainSentences, dictionary, tags, trainPath, options.model ? 'mark' : 'error');
  const test = testSentences ? encodeConll(testSentences, dictionary, tags, testPath, 'mark') : undefined;
  const unknown = train.unknownTags + (test?.unknownTags ?? 0);
  const d = sparseChainDim(spec.numFeatures, spec.numLabels);
  return {
    spec,
    train,
    test,
    description:
      `conll: ${trainSentences.length} train${testSentences ? ` / ${testSentences.length} test` : ''} sentences, ` +
      `${spec.numLabels} tags, ${spec.numFeatures} attributes (min frequency ${dictionary.minFrequency}), d = ${d}` +
      (unknown > 0 ? `; ${unknown} tokens carry chunk types the model cannot predict` : ''),
    sentences: { train: trainSentences, test: testSentences },
    dictionary,
    tags,
  };
}
