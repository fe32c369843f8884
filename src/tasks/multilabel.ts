/**
 * `multilabel:FILE`: multi-label data in the LIBSVM multi-label format (src/data/multilabel.ts;
 * docs/models/multilabel.md) for the label-graph model (src/models/multilabel.ts); `--test multilabel:FILE` adds a
 * test set. `--label-graph independent|tree|full` picks the interactions (the Chow-Liu tree is computed on the
 * training labels and kept in the model's spec). Metrics: Hamming loss, subset accuracy, micro and macro F1.
 * Predictions: one line per example, its labels comma-separated (empty for none).
 * @module
 */
import { arrayDataset } from '../core/dataset.js';
import { LABEL_GRAPHS, labelGraphEdges, readMultilabelFile, type LabelGraph, type MultilabelData } from '../data/multilabel.js';
import type { MultilabelLabel } from '../models/multilabel.js';
import { firstOf, flagValue, lineWriter, noFields, stringValue } from './common.js';
import { INFERENCE_OPTIONS, inferenceOf } from './graph.js';
import type { MultilabelSpec } from './model-kinds.js';
import type { Task } from './types.js';

export const multilabelTask: Task = {
  kind: 'multilabel',
  data: 'multilabel:FILE',
  summary: 'LIBSVM multi-label rows (l1,l2 idx:val ...) for a graph over the labels; --test multilabel:FILE',
  predictions: 'text',
  separateTest: true,
  options: [
    { name: 'label-graph', type: 'choice', value: 'G', choices: [...LABEL_GRAPHS], use: 'train', tasks: ['multilabel'], default: 'tree', help: 'label interactions: none, the Chow-Liu tree of the training labels, or every pair' },
    { name: 'positivity', type: 'flag', use: 'train', tasks: ['multilabel'], help: 'attractive interactions only (bounds on the pair tables): the oracle is an exact cut' },
    ...INFERENCE_OPTIONS,
  ],
  async load(path, o) {
    const saved = o.model?.spec.kind === 'multilabel' ? o.model.spec : undefined;
    const train = readMultilabelFile(path, saved);
    const v = o.values;
    const labelGraph = (stringValue(v, 'label-graph') ?? 'tree') as LabelGraph;
    const spec: MultilabelSpec = saved ?? {
      kind: 'multilabel',
      numFeatures: train.numFeatures,
      numLabels: train.numLabels,
      labelNames: Array.from({ length: train.numLabels }, (_, k) => String(k)),
      labelGraph,
      edges: labelGraphEdges(labelGraph, train.numLabels, train.labels),
      positivity: flagValue(v, 'positivity'),
      ...inferenceOf(v),
    };
    const test = o.test === undefined ? undefined : readMultilabelFile(o.test, spec);
    const set = (d: MultilabelData) => arrayDataset(d.rows, d.labels);
    const sets = { train: firstOf(set(train), o.limit, path), test: test && firstOf(set(test), o.testLimit, o.test!) };
    return {
      task: 'multilabel',
      spec,
      train: sets.train,
      test: sets.test,
      description: `multilabel: ${sets.train.length} train${sets.test ? ` / ${sets.test.length} test` : ''} rows, ${spec.numFeatures} features, ${spec.numLabels} labels, ${spec.labelGraph} label graph (${spec.edges.length} edges)`,
      fields: noFields(),
      metrics: (part, predictions) => multilabelMetrics(Array.from({ length: sets[part]!.length }, (_, i) => sets[part]!.label(i)), predictions as MultilabelLabel[]),
      writer: (_part, target) => lineWriter<MultilabelLabel>(target, (_i, y) => Array.from(y.keys()).filter((l) => y[l] === 1).join(',')),
    };
  },
};

/**
 * Hamming loss (the fraction of wrong label decisions), subset accuracy (the fraction of examples with every label
 * right), micro F1 (over every decision) and macro F1 (the mean over labels of each label's F1; 0 for a label
 * never present nor predicted, as scikit-learn's default).
 */
export function multilabelMetrics(truths: readonly MultilabelLabel[], predictions: readonly MultilabelLabel[]): Record<string, number> {
  const L = truths[0]?.length ?? 0;
  const tp = new Float64Array(L);
  const fp = new Float64Array(L);
  const fn = new Float64Array(L);
  let wrong = 0;
  let exact = 0;
  predictions.forEach((y, i) => {
    const t = truths[i]!;
    let same = true;
    for (let l = 0; l < L; l++) {
      if (y[l] === 1 && t[l] === 1) tp[l]!++;
      else if (y[l] === 1) fp[l]!++;
      else if (t[l] === 1) fn[l]!++;
      if (y[l] !== t[l]) {
        wrong++;
        same = false;
      }
    }
    if (same) exact++;
  });
  const f1 = (a: number, b: number, c: number) => (a + b + c > 0 && a > 0 ? (2 * a) / (2 * a + b + c) : 0);
  const sum = (x: Float64Array) => x.reduce((s, v) => s + v, 0);
  const n = predictions.length;
  return {
    hammingLoss: n > 0 ? wrong / (n * L) : 0,
    subsetAccuracy: n > 0 ? exact / n : 0,
    microF1: f1(sum(tp), sum(fp), sum(fn)),
    macroF1: L > 0 ? Array.from(tp, (a, l) => f1(a, fp[l]!, fn[l]!)).reduce((s, v) => s + v, 0) / L : 0,
  };
}
