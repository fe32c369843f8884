/**
 * `libsvm:FILE`: a multiclass LIBSVM/SVMlight file (plain or gzip) for the Crammer-Singer SSVM (0-1 loss);
 * `--test libsvm:FILE.t` adds a test set read with the training set's features and classes.
 * @module
 */
import type { MulticlassDataset } from '../core/data.js';
import type { SparseVector } from '../core/vector.js';
import { arrayDataset, type Dataset } from '../core/dataset.js';
import { csrRows } from '../models/multiclass.js';
import { loadMulticlassData } from '../data/multiclass.js';
import { firstOf, lineWriter, noFields } from './common.js';
import type { MulticlassSpec } from './model-kinds.js';
import type { DataKind, LoadOptions, Task, TaskData } from './types.js';

export const libsvmTask: Task = {
  kind: 'libsvm',
  data: 'libsvm:FILE',
  summary: 'multiclass LIBSVM/SVMlight rows for the Crammer-Singer SSVM; --test libsvm:FILE.t',
  predictions: 'text',
  separateTest: true,
  options: [],
  // Exact block solves over the K classes (LIBLINEAR -s 4's method) over a fresh permutation each pass, skipping settled rows (shrinking): the fastest here (docs/benchmarks.md).
  defaults: { solver: 'exact', sampling: 'perm' },
  load: (path, o) => loadMulticlassTask('libsvm', path, o),
};

/** The multiclass tasks (libsvm, idx): rows of the training file, an optional test file of the same kind. */
export async function loadMulticlassTask(kind: DataKind, path: string, o: LoadOptions): Promise<TaskData> {
  const fixed = o.model?.spec.kind === 'multiclass' ? o.model.spec : undefined;
  const train = loadMulticlassData(`${kind}:${path}`, fixed ? { numFeatures: fixed.numFeatures, labelNames: fixed.labelNames } : {});
  const spec: MulticlassSpec = { kind: 'multiclass', numFeatures: train.X.cols, numLabels: train.numLabels, labelNames: train.labelNames };
  const test = o.test === undefined ? undefined : loadMulticlassData(`${kind}:${o.test}`, { numFeatures: spec.numFeatures, labelNames: spec.labelNames });
  const sets = { train: firstOf(rowSet(train), o.limit, path), test: test && firstOf(rowSet(test), o.testLimit, o.test!) };
  return {
    task: kind,
    spec,
    train: sets.train,
    test: sets.test,
    description: `${kind}: ${sets.train.length} train${sets.test ? ` / ${sets.test.length} test` : ''} rows, ${spec.numFeatures} features, ${spec.numLabels} classes`,
    fields: noFields(),
    metrics: (part, predictions) => {
      const set = sets[part]!;
      let right = 0;
      predictions.forEach((y, i) => (right += y === set.label(i) ? 1 : 0));
      return { accuracy: predictions.length > 0 ? right / predictions.length : 0 };
    },
    writer: (_part, target) => lineWriter<number>(target, (_i, y) => spec.labelNames[y] ?? String(y)),
  };
}

function rowSet(data: MulticlassDataset): Dataset<SparseVector, number> {
  return arrayDataset(csrRows(data.X), Array.from(data.y));
}
