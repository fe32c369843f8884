/**
 * `synthetic:`: 300 + 100 generated chain sequences (8 states, 24 binary features and a bias), the data of
 * `gapbcfw demo`: no files needed.
 * @module
 */
import { InputError } from '../core/errors.js';
import { syntheticChain } from '../data/synthetic.js';
import { firstOf, lineWriter, noFields, sequenceText } from './common.js';
import type { ChainSpec } from './model-kinds.js';
import { sequenceSet } from './ocr.js';
import type { Task } from './types.js';

export const syntheticTask: Task = {
  kind: 'synthetic',
  data: 'synthetic:',
  summary: '300 + 100 generated chain sequences, 8 states, 25 features (the demo data)',
  predictions: 'text',
  options: [],
  async load(path, o) {
    if (path !== '' && path !== 'chain') throw new InputError(`synthetic data '${path}' is unknown (use synthetic: or synthetic:chain)`);
    const all = syntheticChain({ sequences: 400 });
    const spec: ChainSpec = { kind: 'chain', numFeatures: all.numFeatures, numLabels: all.numLabels, labelNames: all.labelNames };
    return {
      task: 'synthetic',
      spec,
      train: firstOf(sequenceSet(all.examples.slice(0, 300)), o.limit, 'synthetic:'),
      test: firstOf(sequenceSet(all.examples.slice(300)), o.testLimit, 'synthetic:'),
      description: 'synthetic chain: 300 train / 100 test sequences, 8 states, 25 features',
      fields: noFields(),
      writer: (_part, target) => lineWriter<Int32Array>(target, (_i, y) => sequenceText(spec.labelNames, y)),
    };
  },
};
