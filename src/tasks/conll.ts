/**
 * `conll:FILE|DIR`: CoNLL-2000 chunking (WORD POS CHUNK) as sparse chains (Sha & Pereira attributes, d ~ 1.7 M);
 * DIR holds train.txt and test.txt. Metrics: chunk precision, recall and F1 by the conlleval rules and token
 * accuracy. Predictions: the input with a predicted chunk column appended; raw input (WORD POS lines, stdin or a
 * file) is tagged sentence by sentence as it streams in.
 * @module
 */
import { FormatError } from '../core/errors.js';
import type { StructuredModel } from '../core/problem.js';
import { ChunkTagSet, formatConll, loadConllTask, parseConll, type ConllSentence, type SparseChainSpec } from '../data/conll.js';
import { ChunkEvaluator, chunkScores, chunkScoresFromIds, type ChunkScores } from '../eval/chunks.js';
import { FeatureDictionary, conllAttributes } from '../models/conll-features.js';
import type { SparseChainModel, SparseSequence } from '../models/sparse-chain.js';
import { flagValue, noFields, numberValue, writeText } from './common.js';
import type { ModelDescription, RawPrediction, Task } from './types.js';

export const conllTask: Task = {
  kind: 'conll',
  data: 'conll:FILE|DIR',
  summary: 'CoNLL-2000 chunking (WORD POS CHUNK); DIR = train.txt + test.txt, or --test conll:FILE',
  predictions: 'text',
  separateTest: true,
  options: [
    { name: 'min-frequency', type: 'integer', value: 'N', min: 1, max: 1e9, help: 'attributes seen fewer than N times in training are dropped', default: '3', use: 'train', tasks: ['conll'] },
    { name: 'no-gold', type: 'flag', help: 'leave the input\'s chunk column out of the output (WORD POS PRED)', use: 'predict', tasks: ['conll'] },
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
      metrics: (part, predictions) => {
        const set = sets[part]!;
        const s = chunkScores(set.tags, (predictions as Int32Array[]).map((y) => t.tags.decode(y)));
        return { f1: s.f1, precision: s.precision, recall: s.recall, accuracy: s.tokenAccuracy };
      },
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
        // parseConll numbers lines from 1: pad the block so that its messages name the line of the input.
        for (const s of parseConll(`${'\n'.repeat(first - 1)}${block.join('\n')}\n`, name, { columns: 'auto' })) {
          const has = s.chunks === null ? 2 : 3;
          columns ??= has;
          if (has !== columns) throw new FormatError(`expected ${columns} columns like the first token line, found ${has}`, name, s.line);
          const predicted = tags.decode(model.decode(w, dictionary.encode(conllAttributes(s.words, s.pos))) as Int32Array);
          if (s.chunks) evaluator.add(s.chunks, predicted);
          else gold = false;
          sentences++;
          tokens += s.words.length;
          if (target.text) await writeText(target.text, formatConll([s], [predicted], { keepGold }));
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
      if (sentences === 0) throw new FormatError('no tokens', name);
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
  return sentences.map((s) => tags.decode(model.decode(w, dictionary.encode(conllAttributes(s.words, s.pos)))));
}
