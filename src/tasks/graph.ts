/**
 * `graph:FILE`: users' own graph-labelling data in JSON Lines (src/data/graph.ts; docs/models/graphs.md), one graph
 * per line, for the general graph model (src/models/graph.ts); `--test graph:FILE` adds a test set. Options choose
 * the pairwise tables (`--pairwise potts|full`), the loss, positivity and the inference routine. Metrics: node
 * accuracy, class-normalised error and the recall of every class (all weighted by the node weights when the file
 * gives them). Predictions: one JSON array of labels per example.
 * @module
 */
import { arrayDataset, type Dataset } from '../core/dataset.js';
import { InputError } from '../core/errors.js';
import { readGraphFile, type GraphData } from '../data/graph.js';
import { nodeWeightsOf, type GraphInput, type GraphLabel } from '../models/graph.js';
import { GRAPH_ROUTINES } from '../native/graph.js';
import { firstOf, flagValue, lineWriter, noFields, numberValue, stringValue } from './common.js';
import type { GraphSpec } from './model-kinds.js';
import type { OptionSpec, OptionValues, Task } from './types.js';

/** The inference options the graph and multi-label tasks share (saved in the model's spec). */
export const INFERENCE_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'inference', type: 'choice', value: 'R', choices: ['auto', ...GRAPH_ROUTINES], use: 'train', tasks: ['graph', 'multilabel'], default: 'auto',
    help: 'the oracle: auto = per example the first that applies of tree (DP), cut (K = 2), exhaustive, expansion, lp; a routine = that one where it applies',
  },
  { name: 'lp-iterations', type: 'integer', value: 'N', min: 1, max: 1e6, use: 'train', tasks: ['graph', 'multilabel'], default: '500', help: 'sweeps of the lp routine (MPLP) at most per call' },
];

/** The inference settings of a spec from the options. */
export function inferenceOf(v: OptionValues | undefined): { inference: string; lpIterations?: number } {
  const lpIterations = numberValue(v, 'lp-iterations');
  return { inference: stringValue(v, 'inference') ?? 'auto', ...(lpIterations !== undefined ? { lpIterations } : {}) };
}

export const graphTask: Task = {
  kind: 'graph',
  data: 'graph:FILE',
  summary: 'your own graphs in JSON Lines (nodes, edges, optional edge features, labels); --test graph:FILE',
  predictions: 'text',
  separateTest: true,
  options: [
    { name: 'pairwise', type: 'choice', value: 'P', choices: ['potts', 'full'], use: 'train', tasks: ['graph'], default: 'potts', help: 'pairwise weights per edge feature: one Potts weight, or a full K x K table' },
    { name: 'loss', type: 'choice', value: 'L', choices: ['hamming', 'balanced'], use: 'train', tasks: ['graph'], default: 'hamming', help: 'the wrong fraction of the nodes, or the mean over classes of their wrong fraction (class-normalised)' },
    { name: 'no-positivity', type: 'flag', use: 'train', tasks: ['graph'], help: 'no lower bound 0 on the Potts weights (it keeps cuts and expansion moves exact with edge features >= 0)' },
    ...INFERENCE_OPTIONS,
  ],
  async load(path, o) {
    const saved = o.model?.spec.kind === 'graph' ? o.model.spec : undefined;
    const train = readGraphFile(path, saved);
    const v = o.values;
    if (!saved && stringValue(v, 'pairwise') === 'full' && flagValue(v, 'no-positivity')) throw new InputError('--no-positivity applies to --pairwise potts (full tables have no bounds)');
    const pairwise = (saved?.pairwise ?? stringValue(v, 'pairwise') ?? 'potts') as GraphSpec['pairwise'];
    const spec: GraphSpec = saved ?? {
      kind: 'graph',
      numFeatures: train.numFeatures,
      numLabels: train.numLabels,
      labelNames: Array.from({ length: train.numLabels }, (_, k) => String(k)),
      numEdgeFeatures: train.numEdgeFeatures,
      pairwise,
      loss: (stringValue(v, 'loss') ?? 'hamming') as GraphSpec['loss'],
      positivity: pairwise === 'potts' && !flagValue(v, 'no-positivity'),
      ...inferenceOf(v),
    };
    const test = o.test === undefined ? undefined : readGraphFile(o.test, spec);
    const sets = { train: firstOf(graphSet(train), o.limit, path), test: test && firstOf(graphSet(test), o.testLimit, o.test!) };
    const nodes = (set: Dataset<GraphInput, GraphLabel>) => Array.from({ length: set.length }, (_, i) => set.label(i).length).reduce((a, b) => a + b, 0);
    return {
      task: 'graph',
      spec,
      train: sets.train,
      test: sets.test,
      description:
        `graph: ${sets.train.length} train${sets.test ? ` / ${sets.test.length} test` : ''} graphs (${nodes(sets.train)} train nodes), ` +
        `${spec.numFeatures} node features, ${spec.numEdgeFeatures} edge features, ${spec.numLabels} labels, ${spec.pairwise} pairwise`,
      fields: noFields(),
      metrics: (part, predictions) => nodeMetrics(sets[part]!, predictions as GraphLabel[], spec.numLabels),
      writer: (_part, target) => lineWriter<GraphLabel>(target, (_i, y) => JSON.stringify(Array.from(y))),
    };
  },
};

function graphSet(data: GraphData): Dataset<GraphInput, GraphLabel> {
  return arrayDataset(data.inputs, data.labels);
}

/**
 * Node accuracy, class-normalised error (the mean over the classes present of their wrong fraction) and the recall
 * of every class present (`recall0`, `recall1`, ...), each node counted with its weight.
 */
export function nodeMetrics(set: Dataset<unknown, GraphLabel>, predictions: readonly GraphLabel[], numLabels: number): Record<string, number> {
  const total = new Float64Array(numLabels);
  const right = new Float64Array(numLabels);
  predictions.forEach((y, i) => {
    const truth = set.label(i);
    const c = nodeWeightsOf(truth);
    for (let k = 0; k < truth.length; k++) {
      const weight = c ? c[k]! : 1;
      total[truth[k]!]! += weight;
      if (y[k] === truth[k]) right[truth[k]!]! += weight;
    }
  });
  const all = total.reduce((a, b) => a + b, 0);
  const present = Array.from(total.keys()).filter((k) => total[k]! > 0);
  const recall = Object.fromEntries(present.map((k) => [`recall${k}`, right[k]! / total[k]!]));
  const classNormalisedError = present.reduce((s, k) => s + 1 - right[k]! / total[k]!, 0) / Math.max(present.length, 1);
  return { accuracy: all > 0 ? right.reduce((a, b) => a + b, 0) / all : 0, classNormalisedError, ...recall };
}
