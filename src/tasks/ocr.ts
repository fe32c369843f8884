/**
 * `ocr:letter.data(.gz)`: Taskar's handwritten OCR words (the data set of both BCFW papers) as a linear chain of
 * letters; the papers' splits (`--split small` = fold 0 trains, folds 1-9 test: OCR-small; `large` the reverse).
 * @module
 */
import { loadOcr, ocrSplit, ocrToSequences } from '../data/ocr.js';
import { arrayDataset } from '../core/dataset.js';
import type { SequenceExample } from '../core/data.js';
import { firstOf, lineWriter, noFields, sequenceText } from './common.js';
import type { ChainSpec } from './model-kinds.js';
import type { Task } from './types.js';
import { CHAIN_RULE_OPTIONS, chainScores, namesOf } from './chains.js';

export const ocrTask: Task = {
  kind: 'ocr',
  data: 'ocr:letter.data(.gz)',
  summary: "Taskar's OCR words as letter chains (d = 4082); splits small (fold 0 trains: OCR-small), large, all, fold:K",
  predictions: 'text',
  splits: 'small (default) | large | all | fold:K',
  separateTest: true,
  options: [...CHAIN_RULE_OPTIONS],
  async load(path, o) {
    const split = o.split ?? 'small';
    const parts = ocrSplit(loadOcr(path), split);
    const train = ocrToSequences(parts.train);
    const testWords = o.test !== undefined ? ocrSplit(loadOcr(o.test), 'all').train : parts.test;
    const spec: ChainSpec = { kind: 'chain', numFeatures: train.numFeatures, numLabels: train.numLabels, labelNames: train.labelNames };
    const trainSet = firstOf(sequenceSet(train.examples), o.limit, path);
    const testSet = testWords.length > 0 ? firstOf(sequenceSet(ocrToSequences(testWords).examples), o.testLimit, o.test ?? path) : undefined;
    const scores = (part: 'train' | 'test', predictions: readonly unknown[]) => {
      const set = part === 'test' ? testSet! : trainSet;
      const gold = Array.from({ length: set.length }, (_, i) => namesOf(spec.labelNames, set.label(i)));
      return chainScores(gold, predictions as Int32Array[], spec.labelNames);
    };
    return {
      task: 'ocr',
      spec,
      train: trainSet,
      test: testSet,
      metrics: (part, predictions) => scores(part, predictions).metrics,
      tables: (part, predictions) => scores(part, predictions).tables,
      description: `ocr (split ${split}): ${Math.min(parts.train.length, o.limit ?? Infinity)} train / ${Math.min(testWords.length, o.testLimit ?? Infinity)} test words`,
      fields: noFields(),
      writer: (_part, target) => lineWriter<Int32Array>(target, (_i, y) => sequenceText(spec.labelNames, y)),
    };
  },
};

/** Sequences as an in-memory data set (inputs T x D row-major, labels of length T). */
export function sequenceSet(examples: readonly SequenceExample[]) {
  return arrayDataset(examples.map((e) => e.x), examples.map((e) => e.y));
}
