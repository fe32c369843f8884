/**
 * `idx:IMAGES[,LABELS]` or `idx:DIR`: MNIST-style IDX files (uint8 pixels scaled to [0, 1]) for the Crammer-Singer
 * SSVM; the labels file is found next to the images file; `--test idx:...` adds a test set.
 * @module
 */
import { loadMulticlassTask } from './libsvm.js';
import type { Task } from './types.js';

export const idxTask: Task = {
  kind: 'idx',
  data: 'idx:IMAGES[,LABELS] | idx:DIR',
  summary: 'MNIST-style IDX images and labels for the Crammer-Singer SSVM; --test idx:...',
  predictions: 'text',
  separateTest: true,
  options: [],
  // Exact block solves over the K classes (LIBLINEAR -s 4's method) over a fresh permutation each pass, skipping settled rows (shrinking): the fastest here (docs/benchmarks.md).
  defaults: { solver: 'exact', sampling: 'perm' },
  load: (path, o) => loadMulticlassTask('idx', path, o),
};
